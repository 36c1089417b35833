"""Shared plumbing of the API modules: operands, devices, axis names, dtype rules."""

from __future__ import annotations

import struct

from .. import dtypes as _d
from .. import ops as _ops
from .. import promotion as _p
from .. import shape as _s
from .._tracing import ACTIVE
from ..device import Device, as_device
from ..tensor import Tensor, broadcast_view, cast, constant, scalar

_PY_SCALARS = (bool, int, float, complex)


def is_scalar(x) -> bool:
    return isinstance(x, _PY_SCALARS) and not hasattr(x, "dtype")


def as_tensor(x, fn: str, device=None) -> Tensor:
    """A Tensor for ``x``: tensors pass through, anything array-like goes through asarray
    (onto ``device``: the device of the tensors it will be combined with)."""
    if x.__class__ is Tensor:
        return x
    from .creation import asarray

    try:
        return asarray(x, device=device)
    except (TypeError, ValueError) as e:
        raise TypeError(f"wt.{fn}: expected a tensor or array-like, got {type(x).__name__} "
                        f"({e})") from None


def common_device(tensors, fn: str) -> Device:
    device = None
    for t in tensors:
        if device is None:
            device = t.device
        elif t.device is not device:
            raise ValueError(
                f"wt.{fn}: operands are on different devices ({device.name} and "
                f"{t.device.name}); move one with x.to_device({device.name!r}) first"
            )
    return as_device(None) if device is None else device


PLAIN_SCALARS = frozenset(_PY_SCALARS)


def promote(args, fn: str):
    """Promote operands (tensors and Python scalars) -> (dtype, weak, device, list of args
    where array-likes became tensors)."""
    if len(args) == 2:  # the hot path of every binary op: tensor-tensor or tensor-scalar
        a, b = args
        ca, cb = a.__class__, b.__class__
        if ca is Tensor and (cb is Tensor or cb in PLAIN_SCALARS) or \
                cb is Tensor and ca in PLAIN_SCALARS:
            ka = (_WEAK[a.dtype] if a.weak else a.dtype) if ca is Tensor else a
            kb = (_WEAK[b.dtype] if b.weak else b.dtype) if cb is Tensor else b
            try:
                dt, weak = _p.resolve_pair(ka, kb, fn)
            except _p.TypePromotionError as e:
                raise _p.TypePromotionError(f"wt.{fn}: {e}") from None
            device = a.device if ca is Tensor else b.device
            if ca is Tensor and cb is Tensor and b.device is not device:
                common_device(args, fn)  # raises, naming both devices
            return dt, weak, device, args
    if not all(a.__class__ is Tensor or is_scalar(a) for a in args):
        # Lists and NumPy arrays join the tensors' device (x_on_some_device + [1, 2]).
        dev = next((a.device for a in args if a.__class__ is Tensor), None)
        args = [a if a.__class__ is Tensor or is_scalar(a) else as_tensor(a, fn, dev)
                for a in args]
    # Tensors enter result_type as their (weak) dtype so the lookup is a cache hit.
    keys = tuple((_WEAK[a.dtype] if a.weak else a.dtype) if a.__class__ is Tensor else a
                 for a in args)
    try:
        dt, weak = _p.resolve(keys, fn)
    except _p.TypePromotionError as e:
        raise _p.TypePromotionError(f"wt.{fn}: {e}") from None
    device = None
    for a in args:
        if a.__class__ is Tensor:
            if device is None:
                device = a.device
            elif a.device is not device:
                common_device([a for a in args if a.__class__ is Tensor], fn)  # raises
    return dt, weak, as_device(None) if device is None else device, args


_WEAK = _p.WEAK_OPERANDS


def operand(x, dtype, device, weak=False) -> Tensor:
    """``x`` (tensor or Python scalar) as a tensor of ``dtype`` on ``device``."""
    if x.__class__ is Tensor:
        return cast(x, dtype)
    # Scalar operands are internal, read-only 0-d tensors: reuse them (x * 2.0 in a loop).
    # NOTE: never while tracing: a cached traced scalar would leak into eager code.
    value = _value_key(x)
    if value is not None and ACTIVE.get() is None:
        # id(device): Device hashes in Python; the cached tensor keeps its device alive
        key = (x.__class__, value, dtype, id(device), weak)
        found = _SCALARS.get(key)
        if found is None:
            found = _remember(key, constant(x, dtype, device, weak))
        return found
    return scalar(x, dtype, device, weak)


_SCALARS: dict = {}
_SCALARS_MAX = 4096
_F64_BITS = struct.Struct("<d").pack
_C128_BITS = struct.Struct("<dd").pack


def _value_key(x):
    """The Python scalar ``x`` as a cache key (None: not cached).  Equal keys must mean the
    same scalar: floats that are zero (0.0 == -0.0) or NaN (equal to nothing, so never found
    again) and complex numbers (both) go by their bits."""
    cls = x.__class__
    if cls is float:
        return x if x and x == x else _F64_BITS(x)
    if cls is int or cls is bool:
        return x
    if cls is complex:
        return _C128_BITS(x.real, x.imag)
    return None


def _remember(key, value: Tensor) -> Tensor:
    """Cache ``value`` under ``key``, first dropping the oldest entry when the cache is full
    (dicts keep insertion order): a long run of new scalars (a hypothesis test, a schedule)
    must not stop the cache for the scalars a loop reuses."""
    if len(_SCALARS) >= _SCALARS_MAX:
        del _SCALARS[next(iter(_SCALARS))]
    _SCALARS[key] = value
    return value


def stretched_operand(x, dtype, device, weak, shape) -> Tensor:
    """The Python scalar ``x`` as ``operand`` makes it, seen with ``shape`` (every stride 0),
    as the backends take an elementwise operand.  Cached in ``_SCALARS`` beside the scalar
    (a view of its buffer, keyed with the shape), only while the scalar itself is there."""
    value = _value_key(x)
    if value is not None and ACTIVE.get() is None:
        key = (x.__class__, value, dtype, id(device), weak, shape)
        found = _SCALARS.get(key)
        if found is None:
            found = stretch(operand(x, dtype, device, weak), shape)
            if key[:5] in _SCALARS:
                _remember(key, found)
        return found
    return stretch(operand(x, dtype, device, weak), shape)


def stretch(x: Tensor, shape) -> Tensor:
    """A 0-d tensor seen with ``shape`` (every stride 0)."""
    if not shape:
        return x
    return Tensor._wrap(x._data, shape, x.dtype, x.device, strides=(0,) * len(shape),
                        offset=x.offset, weak=x.weak)


def float_dtype_for(dt: _d.DType) -> _d.DType:
    """The dtype a float-valued op computes in: ints and bool go to the default float."""
    if dt.kind in "fc":
        return dt
    if _p.get_promotion_mode() == "numpy":
        return _d.float64
    return _d.default_float_dtype()


_KIND_NAMES = {"b": "bool", "i": "signed integer", "u": "unsigned integer",
               "f": "floating-point", "c": "complex"}


def check_kind(dt: _d.DType, kinds: str, fn: str) -> None:
    if dt.kind not in kinds:
        raise TypeError(f"wt.{fn}: not supported for {dt.name} on any device; it accepts "
                        f"{', '.join(_KIND_NAMES[k] for k in kinds)} dtypes (cast the input "
                        f"with wt.astype, or see wt.casting_mode)")


def check_supported(dt: _d.DType, fn: str) -> None:
    """``dt`` must be a dtype public function ``fn`` accepts (the table ``ops.function_kinds``,
    which ``wt.function_supported_dtypes`` reads)."""
    check_kind(dt, _ops.function_kinds(fn), fn)


# -- axis names -----------------------------------------------------------------------------------

def merge_names(tensors, shape, fn: str):
    """Names of a broadcast result: aligned from the right; None defers; a clash is an error."""
    if all(t.names is None for t in tensors):
        return None
    out = [None] * len(shape)
    for t in tensors:
        if t.names is None:
            continue
        lead = len(shape) - t.ndim
        for i, name in enumerate(t.names):
            j = lead + i
            if name is None:
                continue
            if out[j] is not None and out[j] != name:
                raise ValueError(f"wt.{fn}: axis names clash at dimension {j}: {out[j]!r} vs "
                                 f"{name!r}; rename one with wt.rename(x, names)")
            out[j] = name
    return tuple(out) if any(n is not None for n in out) else None


def axis_index(x: Tensor, axis, fn: str) -> int:
    """An axis given as an int or, for named tensors, as a name."""
    if isinstance(axis, str):
        if x.names is None or axis not in x.names:
            raise ValueError(f"wt.{fn}: no axis named {axis!r}; the tensor's names are "
                             f"{x.names}")
        return x.names.index(axis)
    return _s.normalize_axis(axis, x.ndim, fn)


def axes_tuple(x: Tensor, axis, fn: str) -> tuple[int, ...]:
    """``None`` -> all axes; int, name or a sequence of them -> sorted unique axes."""
    if axis is None:
        return tuple(range(x.ndim))
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    out = [axis_index(x, a, fn) for a in axis]
    if len(set(out)) != len(out):
        raise ValueError(f"wt.{fn}: repeated axis in {tuple(axis)}; each axis may appear once")
    return tuple(sorted(out))


def broadcast_all(tensors, fn: str):
    """Broadcast tensors to one shape -> (views, shape, names)."""
    shape = _s.broadcast_shapes(*(t.shape for t in tensors), fn=fn)
    names = merge_names(tensors, shape, fn)
    return [broadcast_view(t, shape) for t in tensors], shape, names
