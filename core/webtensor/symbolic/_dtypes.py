"""Dtypes as PyTensor names them (strings), and PyTensor's rules for result dtypes.

PyTensor follows NumPy's promotion of *arrays* (``upcast``: the dtype of ``zeros(a) +
zeros(b)``), which is webtensor's ``numpy`` promotion mode applied to dtypes; Python numbers
are typed first by autocasting (the smallest integer type that holds an int, float32 for a
float that float32 holds exactly).  Every rule here works on dtype names, so graph building
never touches a device.
"""

from __future__ import annotations

import math
import struct

from .. import dtypes as _d
from .. import promotion as _p
from .config import config

# PyTensor's dtypes (no bfloat16) in NumPy's order
NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64", "complex64", "complex128")
KIND = {n: _d.dtype(n).kind for n in NAMES}  # 'b' 'i' 'u' 'f' 'c'
DISCRETE = frozenset(n for n in NAMES if KIND[n] in "biu")
INTEGER = frozenset(n for n in NAMES if KIND[n] in "iu")
FLOAT = frozenset(n for n in NAMES if KIND[n] == "f")
COMPLEX = frozenset(n for n in NAMES if KIND[n] == "c")
# the real dtype of a complex one's parts
REAL_OF = {"complex64": "float32", "complex128": "float64"}


def wt_dtype(name: str) -> _d.DType:
    return _d.dtype(name)


def as_name(dtype, fn: str = "TensorType") -> str:
    """A dtype spelled any way PyTensor accepts (``'float32'``, ``'floatX'``, ``np.float32``,
    a NumPy or webtensor dtype) as its name."""
    if isinstance(dtype, str):
        if dtype == "floatX":
            return config.floatX
        if dtype in KIND:
            return dtype
    try:
        name = _d.dtype(dtype).name
    except (TypeError, ValueError, KeyError):
        name = None
    if name not in KIND:
        raise TypeError(f"{fn}: unsupported dtype {dtype!r}; use one of {', '.join(NAMES)} "
                        f"(or 'floatX')")
    return name


_UPCAST: dict = {}


def upcast(*names: str) -> str:
    """NumPy's result dtype for arrays of these dtypes (PyTensor's ``upcast``)."""
    key = names
    found = _UPCAST.get(key)
    if found is None:
        with _p.promotion_mode("numpy"):
            found = _p.result_type(*[_d.dtype(n) for n in names]).name
        _UPCAST[key] = found
    return found


# PyTensor's ``upgrade_to_float``: integers become the float that holds them
_TO_FLOAT = {"bool": "float32", "int8": "float32", "int16": "float32", "uint8": "float32",
             "uint16": "float32", "int32": "float64", "int64": "float64", "uint32": "float64",
             "uint64": "float64"}


def upgrade_to_float(*names: str) -> str:
    return upcast(*[_TO_FLOAT.get(n, n) for n in names])


# -- Python numbers -----------------------------------------------------------------------------

_INT_RANGES = [("int8", 7), ("int16", 15), ("int32", 31), ("int64", 63)]


def autocast_int(value: int) -> str:
    """The smallest signed integer dtype holding ``value`` (PyTensor's ``autocast_int``)."""
    for name, bits in _INT_RANGES:
        if -(1 << bits) <= value < (1 << bits):
            return name
    if 0 <= value < (1 << 64):
        return "uint64"  # what NumPy makes of it
    raise OverflowError(f"the Python int {value} does not fit any integer dtype (int64 or "
                        f"uint64); pass it as a float")


def _fits_float32(value: float) -> bool:
    if math.isnan(value):
        return False  # NaN != NaN: PyTensor's exactness test sends it to float64
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0] == value
    except OverflowError:
        return False


def autocast_float(value: float) -> str:
    """float32 when it holds ``value`` exactly, else float64; floatX when floatX is narrower
    than float64 (PyTensor's ``autocast_float`` under ``cast_policy='custom'``)."""
    if config.floatX != "float64":
        return config.floatX
    return "float32" if _fits_float32(value) else "float64"


def float32_repr(value: float) -> str:
    """The shortest decimal that reads back as the same float32 (how NumPy prints one)."""
    if math.isnan(value) or math.isinf(value):
        return repr(value)
    for digits in range(1, 10):
        text = f"{value:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == value:
            return _numpy_style(text)
    return repr(value)


def _numpy_style(text: str) -> str:
    if "e" in text or "." in text or "inf" in text or "nan" in text:
        return text
    return text + ".0"
