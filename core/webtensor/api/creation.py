"""Array API creation functions: asarray and friends."""

from __future__ import annotations

from .. import dtypes as _d
from .. import promotion as _p
from .. import shape as _s
from ..device import as_device
from ..tensor import Tensor, cast, empty, from_values

__all__ = ["asarray", "tensor", "frombuffer", "empty", "empty_like", "zeros", "zeros_like",
           "ones", "ones_like", "full", "full_like"]

_PY_SCALARS = (bool, int, float, complex)


def _flatten(obj, fn: str):
    """Nested sequences -> (shape, flat list of leaves); ragged input is a ValueError."""
    if isinstance(obj, Tensor):
        return obj.shape, _flat_values(obj)
    if not isinstance(obj, (list, tuple)):
        return (), [obj]
    shape = None
    flat: list = []
    for i, item in enumerate(obj):
        sub_shape, sub = _flatten(item, fn)
        if shape is None:
            shape = sub_shape
        elif sub_shape != shape:
            raise ValueError(
                f"wt.{fn}: ragged nested sequence: element [{i}] has shape {sub_shape} but "
                f"element [0] has shape {shape}; every entry at one level must have the same "
                f"shape"
            )
        flat.extend(sub)
    return (len(obj),) + (shape or ()), flat


def _flat_values(t: Tensor) -> list:
    return t._backend.to_values(t)


def _infer(leaves, fn: str):
    """(dtype, weak) of untyped Python data, in the active promotion mode."""
    sample = []
    ints = [v for v in leaves if v.__class__ is int]
    if ints:
        sample += [min(ints), max(ints)]
    for kind in (bool, float, complex):
        found = next((v for v in leaves if v.__class__ is kind), None)
        if found is not None:
            sample.append(found)
    for v in leaves:
        if not isinstance(v, _PY_SCALARS):
            if hasattr(v, "dtype"):
                sample.append(v)
                continue
            raise TypeError(f"wt.{fn}: cannot convert {v!r} ({type(v).__name__}) to a tensor "
                            f"element; use bool, int, float or complex values")
    if not sample:  # an empty sequence: the default float, like NumPy
        return _d.default_float_dtype(), True
    # Subclasses (IntEnum, np.float64...) count as their Python base kind here.
    return _p._resolve(tuple(sample), fn)


def _check_explicit(values, dtype, fn: str):
    """Python ints converted to an explicit integer dtype: in range unless the mode wraps."""
    if dtype.kind not in "iu" or _p.get_promotion_mode() == "standard":
        return
    info = _d.iinfo(dtype)
    for v in values:
        if v.__class__ is int and not info.min <= v <= info.max:
            _p._check_int_range(v, dtype, fn)


def asarray(obj, /, *, dtype=None, device=None, copy=None, names=None) -> Tensor:
    """Convert ``obj`` (tensor, NumPy array, buffer, nested sequence or scalar) to a Tensor.

    Without ``dtype``, Python data gives a *weak* tensor of the default dtype of its kind (an
    explicitly typed source keeps its dtype).  ``copy=True`` always copies, ``copy=False`` never
    does (ValueError if it would have to), ``None`` copies only when needed.
    """
    fn = "asarray"
    dt = None if dtype is None else _d.dtype(dtype)
    dev = None if device is None else as_device(device, fn)
    if isinstance(obj, Tensor):
        return _from_tensor(obj, dt, dev, copy, names, fn)
    if hasattr(obj, "__array_interface__") or type(obj).__module__ == "numpy":
        from .._numpy_interop import from_numpy

        t = from_numpy(obj, as_device(dev, fn))
        return _from_tensor(t, dt, None, False if copy is None else copy, names, fn)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return frombuffer(obj, dtype=_d.uint8 if dt is None else dt, device=dev)
    if copy is False:
        raise ValueError(f"wt.{fn}: copy=False is impossible for a {type(obj).__name__}; "
                         f"Python data always has to be copied into a tensor")
    shape, leaves = _flatten(obj, fn)
    if dt is None:
        dt, weak = _infer(leaves, fn)
    else:
        weak = False
        _check_explicit(leaves, dt, fn)
    leaves = [_plain(v) for v in leaves]
    names = _check_names(names, len(shape), fn)
    return from_values(leaves, shape, dt, as_device(dev, fn), weak=weak, names=names)


tensor = asarray


def _plain(v):
    """Python scalars and 0-d foreign scalars as plain bool/int/float/complex."""
    if isinstance(v, _PY_SCALARS) and v.__class__ in _PY_SCALARS:
        return v
    item = getattr(v, "item", None)
    if item is not None:
        return item()
    for base in (bool, int, float, complex):
        if isinstance(v, base):
            return base(v)
    return v


def _check_names(names, ndim: int, fn: str):
    if names is None:
        return None
    names = tuple(names)
    if len(names) != ndim:
        raise ValueError(f"wt.{fn}: got {len(names)} axis names {names} for a {ndim}-D tensor; "
                         f"give one name (or None) per axis")
    for n in names:
        if n is not None and not isinstance(n, str):
            raise TypeError(f"wt.{fn}: axis names must be strings or None, got {n!r}")
    seen = [n for n in names if n is not None]
    if len(set(seen)) != len(seen):
        raise ValueError(f"wt.{fn}: duplicate axis names in {names}")
    return names if seen else None


def _from_tensor(t: Tensor, dt, dev, copy, names, fn):
    needs_change = (dt is not None and dt is not t.dtype) or (dev is not None and
                                                                dev is not t.device)
    if copy is False and needs_change:
        raise ValueError(f"wt.{fn}: copy=False but converting to {dt or t.dtype} on "
                         f"{dev or t.device} requires a copy")
    out = t
    if dev is not None and dev is not t.device:
        out = _to_device(out, dev)
    if dt is not None and dt is not out.dtype:
        out = cast(out, dt, weak=False)
    elif copy:
        if out is t:
            fresh = empty(t.shape, t.dtype, t.device, weak=t.weak, names=t.names)
            t._backend.copy(fresh, t)
            out = fresh
    if names is not None:
        out = out._view(out.shape, out.strides, out.offset,
                        names=_check_names(names, out.ndim, fn))
    return out


def _to_device(t: Tensor, dev) -> Tensor:
    data = dev.backend.from_bytes(t.dtype, t.tobytes())
    return Tensor._wrap(data, t.shape, t.dtype, dev, weak=t.weak, names=t.names)


def frombuffer(buffer, dtype=_d.float32, count=-1, offset=0, *, device=None) -> Tensor:
    """A 1-D tensor from raw bytes laid out as NumPy lays out ``dtype`` (little endian)."""
    dt = _d.dtype(dtype)
    raw = memoryview(buffer).cast("B")
    if offset < 0 or offset > len(raw):
        raise ValueError(f"wt.frombuffer: offset {offset} is outside the buffer of {len(raw)} "
                         f"bytes")
    raw = raw[offset:]
    n = len(raw) // dt.itemsize if count < 0 else count
    if count < 0 and len(raw) % dt.itemsize:
        raise ValueError(f"wt.frombuffer: buffer size {len(raw)} is not a multiple of the "
                         f"{dt.name} item size {dt.itemsize}; pass count= or slice the buffer")
    if n * dt.itemsize > len(raw):
        raise ValueError(f"wt.frombuffer: {n} items of {dt.name} need {n * dt.itemsize} bytes, "
                         f"the buffer has {len(raw)}")
    dev = as_device(device, "frombuffer")
    data = dev.backend.from_bytes(dt, bytes(raw[:n * dt.itemsize]))
    return Tensor._wrap(data, (n,), dt, dev)


def _creation_dtype(dtype, fill, fn):
    if dtype is not None:
        return _d.dtype(dtype), False
    if fill is None:
        return _d.default_float_dtype(), False
    if isinstance(fill, Tensor):
        return fill.dtype, False
    dt, _weak = _p._resolve((fill,), fn)
    return dt, False


def empty(shape, *, dtype=None, device=None, names=None) -> Tensor:
    shape = _s.as_shape(shape, "empty")
    dt, _ = _creation_dtype(dtype, None, "empty")
    from ..tensor import empty as _empty

    return _empty(shape, dt, as_device(device, "empty"),
                  names=_check_names(names, len(shape), "empty"))


def full(shape, fill_value, *, dtype=None, device=None, names=None) -> Tensor:
    fn = "full"
    shape = _s.as_shape(shape, fn)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, _PY_SCALARS):
        raise TypeError(f"wt.{fn}: fill_value must be a bool, int, float or complex, got "
                        f"{fill_value!r}")
    dt, _ = _creation_dtype(dtype, fill_value, fn)
    _check_explicit([fill_value], dt, fn)
    from ..tensor import empty as _empty

    out = _empty(shape, dt, as_device(device, fn), names=_check_names(names, len(shape), fn))
    out._backend.fill(out, fill_value)
    return out


def zeros(shape, *, dtype=None, device=None, names=None) -> Tensor:
    return full(shape, 0, dtype=_d.default_float_dtype() if dtype is None else dtype,
                device=device, names=names)


def ones(shape, *, dtype=None, device=None, names=None) -> Tensor:
    return full(shape, 1, dtype=_d.default_float_dtype() if dtype is None else dtype,
                device=device, names=names)


def _like(x, dtype, device):
    x = x if isinstance(x, Tensor) else asarray(x)
    return x.shape, (x.dtype if dtype is None else dtype), (x.device if device is None
                                                           else device), x.names


def empty_like(x, /, *, dtype=None, device=None) -> Tensor:
    shape, dt, dev, names = _like(x, dtype, device)
    return empty(shape, dtype=dt, device=dev, names=names)


def zeros_like(x, /, *, dtype=None, device=None) -> Tensor:
    shape, dt, dev, names = _like(x, dtype, device)
    return full(shape, 0, dtype=dt, device=dev, names=names)


def ones_like(x, /, *, dtype=None, device=None) -> Tensor:
    shape, dt, dev, names = _like(x, dtype, device)
    return full(shape, 1, dtype=dt, device=dev, names=names)


def full_like(x, /, fill_value, *, dtype=None, device=None) -> Tensor:
    shape, dt, dev, names = _like(x, dtype, device)
    return full(shape, fill_value, dtype=dt, device=dev, names=names)

