"""Values crossing into the symbolic world: Python numbers, lists, NumPy arrays and webtensor
tensors become tensors of a given type on a given device (``TensorType.filter``: what a
compiled function does with its arguments), and constants get PyTensor's dtypes.
"""

from __future__ import annotations

import math
import struct

import webtensor as wt

from . import _dtypes as _dt
from .config import config

_PY_SCALARS = (bool, int, float, complex)


def is_array_like(value) -> bool:
    """A NumPy array or scalar (anything with a dtype and the array interface)."""
    return hasattr(value, "__array_interface__") or (
        hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "__array__"))


def python_dtype(value, fn: str = "as_tensor_variable") -> str:
    """The dtype NumPy gives a Python number or a nested list of them."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64" if -(1 << 63) <= value < (1 << 63) else _dt.autocast_int(value)
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, (list, tuple)):
        kinds = set()
        _collect_kinds(value, kinds, fn)
        for kind, name in (("c", "complex128"), ("f", "float64"), ("i", "int64"),
                           ("b", "bool")):
            if kind in kinds:
                return name
        return "float64"  # an empty list, as NumPy
    raise TypeError(f"{fn}: cannot make a tensor of a {type(value).__name__} ({value!r:.60}); "
                    f"pass numbers, nested lists of numbers, NumPy arrays or webtensor tensors")


def _collect_kinds(seq, kinds: set, fn: str) -> None:
    for v in seq:
        if isinstance(v, (list, tuple)):
            _collect_kinds(v, kinds, fn)
        elif isinstance(v, bool):
            kinds.add("b")
        elif isinstance(v, int):
            kinds.add("i")
        elif isinstance(v, float):
            kinds.add("f")
        elif isinstance(v, complex):
            kinds.add("c")
        elif is_array_like(v) or isinstance(v, wt.Tensor):
            kinds.add(_dt.KIND[_array_dtype(v, fn)].replace("u", "i"))
        else:
            raise TypeError(f"{fn}: a list entry is a {type(v).__name__} ({v!r:.60}); lists "
                            f"must hold numbers")


def _array_dtype(value, fn: str) -> str:
    name = value.dtype.name if isinstance(value, wt.Tensor) else str(value.dtype)
    if name not in _dt.KIND:
        raise TypeError(f"{fn}: unsupported dtype {name}; symbolic tensors have one of "
                        f"{', '.join(_dt.NAMES)}")
    return name


def describe(value) -> str:
    """How an error message names a value: 'a NumPy float32 array of shape (2, 3)'."""
    if isinstance(value, wt.Tensor):
        return f"a {value.dtype.name} webtensor tensor of shape {value.shape}"
    if is_array_like(value) and hasattr(value, "shape"):
        return f"a NumPy {value.dtype} array of shape {tuple(value.shape)}"
    if isinstance(value, (list, tuple)):
        return f"a Python {type(value).__name__} ({python_dtype(value)} values)"
    return f"a Python {type(value).__name__} ({value!r:.40})"


def host_tensor(value, dtype: str | None = None, fn: str = "as_tensor_variable") -> wt.Tensor:
    """``value`` as a webtensor tensor (on its own device, or the CPU), of ``dtype`` if given,
    else of NumPy's dtype for it."""
    if isinstance(value, wt.Tensor):
        _array_dtype(value, fn)
        t = value
    elif is_array_like(value):
        src = _array_dtype(value, fn)
        t = wt.asarray(value, dtype=_dt.wt_dtype(src), device=wt.device.cpu)
    else:
        src = python_dtype(value, fn)
        t = wt.asarray(value, dtype=_dt.wt_dtype(src), device=wt.device.cpu)
    if dtype is not None and t.dtype.name != dtype:
        t = wt.astype(t, _dt.wt_dtype(dtype))
    return t


# -- filtering a function's arguments --------------------------------------------------------

def _fits(v, dtype: str) -> bool:
    """The Python number ``v`` converts to ``dtype`` without changing its value."""
    kind = _dt.KIND[dtype]
    if isinstance(v, complex):
        if kind != "c":
            return v.imag == 0 and _fits(v.real, dtype)
        return _fits(v.real, _dt.REAL_OF[dtype]) and _fits(v.imag, _dt.REAL_OF[dtype])
    if kind == "c":
        return _fits(v, _dt.REAL_OF[dtype])
    if kind == "b":
        return v in (0, 1)
    if kind in "iu":
        if isinstance(v, float) and not (math.isfinite(v) and v == int(v)):
            return False
        info = wt.iinfo(_dt.wt_dtype(dtype))
        return info.min <= int(v) <= info.max
    if math.isnan(v) or math.isinf(v):
        return True
    if dtype == "float64":
        return float(v) == v
    fmt = "<f" if dtype == "float32" else "<e"
    try:
        return struct.unpack(fmt, struct.pack(fmt, v))[0] == v
    except (OverflowError, struct.error):
        return False


def _flat(value) -> list:
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_flat(v))
        return out
    return [value]


class FilterError(TypeError):
    """A value that does not fit a symbolic input's type (the reason; callers add context)."""


def filter_value(tt, data, strict=False, allow_downcast=None, device=None) -> wt.Tensor:
    """``data`` as a tensor of type ``tt`` on ``device`` (PyTensor's ``TensorType.filter``):
    same dtype, or a safe upcast (float32 data into a float64 input), or any cast with
    ``allow_downcast``; Python floats may always become floatX; Python numbers and lists must
    convert without changing a value.  Then the rank and the static sizes must match."""
    from .graph import Variable

    if isinstance(data, Variable):
        raise FilterError("expected an array-like object, but found a symbolic Variable: maybe "
                          "you are calling a function on a (possibly shared) variable instead "
                          "of a numeric array? Use .eval() or .get_value() to get its value")
    want = tt.dtype
    device = device or wt.default_device()
    if isinstance(data, wt.Tensor) or is_array_like(data):
        src = _array_dtype(data, "function")
        if src != want:
            if strict:
                raise FilterError(f"{tt} expected a {want} array (strict=True), got dtype {src}")
            if not allow_downcast and _dt.upcast(want, src) != want:
                raise FilterError(
                    f"{tt} cannot store a value of dtype {src} without risking loss of "
                    f"precision. If you do not mind this loss, you can: 1) explicitly cast "
                    f"your data to {want}, or 2) set allow_input_downcast=True when calling "
                    f"function")
        t = data if isinstance(data, wt.Tensor) else None
        if t is None:
            t = wt.asarray(data, dtype=_dt.wt_dtype(src), device=device)
        elif t.device != device:
            t = t.to_device(device)
        if src != want:
            t = wt.astype(t, _dt.wt_dtype(want))
    else:
        if strict:
            raise FilterError(f"{tt} expected an array of dtype {want} (strict=True), got "
                              f"{describe(data)}")
        src = python_dtype(data, "function")
        lossless = allow_downcast or (allow_downcast is None and isinstance(data, float)
                                      and want == config.floatX) or src == want
        if not lossless:
            bad = next((v for v in _flat(data) if not _fits(v, want)), None)
            if bad is not None:
                raise FilterError(
                    f"{tt} cannot store accurately the value {bad!r} of {describe(data)}. If "
                    f"you do not mind this precision loss, you can: 1) explicitly convert your "
                    f"data to an array of dtype {want}, or 2) set allow_input_downcast=True "
                    f"when calling function")
        t = wt.asarray(data, dtype=_dt.wt_dtype(want), device=device)
    if t.ndim != tt.ndim:
        raise FilterError(f"wrong number of dimensions: expected {tt.ndim}, got {t.ndim} with "
                          f"shape {t.shape}")
    for want_n, got_n in zip(tt.shape, t.shape):
        if want_n is not None and want_n != got_n:
            raise FilterError(f"the type's shape {tt.shape} is not compatible with the data's "
                              f"{t.shape}")
    if t.weak:
        t = wt.astype(t, t.dtype)
    return t


def constant_dtype(value, fn: str = "as_tensor_variable") -> str:
    """The dtype PyTensor gives a constant: autocast for Python ints and floats, NumPy's dtype
    for arrays, NumPy scalars and lists."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return _dt.autocast_int(value)
    if isinstance(value, float):
        return _dt.autocast_float(value)
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, wt.Tensor) or is_array_like(value):
        return _array_dtype(value, fn)
    return python_dtype(value, fn)
