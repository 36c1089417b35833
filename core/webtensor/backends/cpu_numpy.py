"""The CPU device on NumPy.

A buffer is a flat NumPy array of the dtype's storage type (bfloat16 is stored as its uint16
bits and computed in float32, rounded to nearest even).  A tensor view becomes an ``ndarray``
over that buffer without copying.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _d
from .base import Backend

_STORAGE = {
    _d.bool: np.dtype(np.bool_), _d.int8: np.dtype(np.int8), _d.int16: np.dtype(np.int16),
    _d.int32: np.dtype(np.int32), _d.int64: np.dtype(np.int64), _d.uint8: np.dtype(np.uint8),
    _d.uint16: np.dtype(np.uint16), _d.uint32: np.dtype(np.uint32),
    _d.uint64: np.dtype(np.uint64), _d.float16: np.dtype(np.float16),
    _d.bfloat16: np.dtype(np.uint16), _d.float32: np.dtype(np.float32),
    _d.float64: np.dtype(np.float64), _d.complex64: np.dtype(np.complex64),
    _d.complex128: np.dtype(np.complex128),
}


def storage_dtype(dt) -> np.dtype:
    return _STORAGE[dt]


# -- bfloat16 <-> float32 ------------------------------------------------------------------------

def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 to bfloat16 bits, nearest even; NaN stays a quiet NaN."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) >> 16
    nan = (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    out = rounded.astype(np.uint16)
    if nan.any():
        out[nan] = ((bits[nan] >> 16) | np.uint32(0x0040)).astype(np.uint16)
    return out


# -- value conversion with webtensor's cast semantics --------------------------------------------

def _float_to_int(x: np.ndarray, dt) -> np.ndarray:
    """Truncate toward zero; NaN -> 0; out-of-range values saturate (the GPU does the same)."""
    info = _d.iinfo(dt)
    x = np.asarray(x, dtype=np.float64)
    t = np.trunc(x)
    nan = np.isnan(t)
    high = t >= float(info.max)
    low = t <= float(info.min)
    out = np.where(nan | high | low, 0, t).astype(_STORAGE[dt])
    out[high] = info.max
    out[low] = info.min
    return out


def to_compute(a: np.ndarray, dt) -> np.ndarray:
    """A storage array as values NumPy can compute with (bfloat16 -> float32)."""
    return bf16_to_f32(a) if dt is _d.bfloat16 else a


def from_compute(values: np.ndarray, dt) -> np.ndarray:
    """Values of any NumPy dtype -> storage array of ``dt`` with webtensor's cast semantics."""
    values = np.asarray(values)
    src = values.dtype.kind
    if dt is _d.bfloat16:
        if src == "c":
            values = values.real
        return f32_to_bf16(values.astype(np.float32))
    target = _STORAGE[dt]
    if dt.kind in "iu" and src in "fc":
        return _float_to_int(values.real if src == "c" else values, dt)
    if dt.kind == "b":
        return values != 0
    if dt.kind == "f" and src == "c":
        values = values.real
    if dt.kind in "iu" and src in "iu":
        # Two's complement wrap, as C and WGSL do.
        return values.astype(target, casting="unsafe")
    return values.astype(target)


# -- elementwise ops -------------------------------------------------------------------------------

def _int_pow(a, b):
    """Integer power; a negative exponent gives the truncated 1 / a**-b (0 unless |a| == 1)."""
    neg = b < 0
    if not np.any(neg):
        return np.power(a, b)
    safe = np.power(a, np.where(neg, 0, b))
    one = np.ones_like(a)
    inverse = np.where(a == 1, one, np.where(a == -1, np.where(b % 2 == 0, one, -one), 0))
    return np.where(neg, inverse, safe).astype(a.dtype)


def _pow(a, b):
    if a.dtype.kind in "iu":
        return _int_pow(a, b)
    return np.power(a, b)


def _shift(fn, bits_of):
    def shift(a, b):
        bits = a.dtype.itemsize * 8
        over = (b >= bits) | (b < 0)
        b_safe = np.where(over, 0, b).astype(a.dtype)
        out = fn(a, b_safe)
        if np.any(over):
            fill = bits_of(a)
            out = np.where(over, fill, out).astype(a.dtype)
        return out
    return shift


def _imag(a):
    return np.imag(a) if a.dtype.kind == "c" else np.zeros_like(a)


def _sign(a):
    if a.dtype.kind == "c":
        mag = np.abs(a)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(mag == 0, 0, a / np.where(mag == 0, 1, mag)).astype(a.dtype)
    return np.sign(a)


def _round(a):
    if a.dtype.kind in "iub":
        return a.copy()
    return np.round(a)


def _identity_for_ints(fn):
    def op(a):
        return a.copy() if a.dtype.kind in "iub" else fn(a)
    return op


def _logical(fn):
    def op(*args):
        return fn(*[x != 0 for x in args])
    return op


UNARY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "cos": np.cos, "cosh": np.cosh,
    "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "tan": np.tan,
    "tanh": np.tanh, "reciprocal": lambda a: np.divide(1, a, dtype=a.dtype),
    "negative": np.negative, "positive": np.positive, "square": np.square, "sign": _sign,
    "conj": np.conj, "ceil": _identity_for_ints(np.ceil), "floor": _identity_for_ints(np.floor),
    "trunc": _identity_for_ints(np.trunc), "round": _round,
    "bitwise_invert": np.invert, "real": np.real, "imag": _imag,
    "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "signbit": np.signbit,
    "logical_not": _logical(np.logical_not),
}

BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "pow": _pow,
    "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2, "hypot": np.hypot,
    "copysign": np.copysign, "nextafter": np.nextafter, "logaddexp": np.logaddexp,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "bitwise_left_shift": _shift(np.left_shift, lambda a: 0),
    "bitwise_right_shift": _shift(np.right_shift,
                                  lambda a: np.where(a < 0, -1, 0) if a.dtype.kind == "i" else 0),
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
    "logical_and": _logical(np.logical_and), "logical_or": _logical(np.logical_or),
    "logical_xor": _logical(np.logical_xor),
}

def _bf16_nextafter(xb: np.ndarray, yb: np.ndarray) -> np.ndarray:
    """nextafter on bfloat16 bits: the neighbouring bfloat16 of x toward y (y when x == y)."""
    x, y = np.broadcast_arrays(bf16_to_f32(xb), bf16_to_f32(yb))
    xb, yb = np.broadcast_arrays(xb, yb)
    bits = xb.astype(np.int32)
    up = (x < y) == (x > 0)  # away from zero when moving toward y in x's direction
    stepped = np.where(up, bits + 1, bits - 1)
    tiny = np.where(y > 0, 0x0001, 0x8001)  # from +-0: the smallest subnormal toward y
    out = np.where(x == 0, tiny, stepped)
    out = np.where(x == y, yb.astype(np.int32), out)
    out = np.where(np.isnan(x) | np.isnan(y), 0x7FC0, out)
    return out.astype(np.uint16)


# bool arithmetic NumPy does not define the way the Array API wants.
_BOOL_BINARY = {"add": np.logical_or, "multiply": np.logical_and}


class NumpyBackend(Backend):
    name = "numpy"

    # -- views -----------------------------------------------------------------------------------
    @staticmethod
    def view(x) -> np.ndarray:
        """The NumPy array (storage dtype) a tensor view denotes; no copy."""
        buf = x._data
        if x._dense or (x.offset == 0 and len(buf) == x.size and x.is_contiguous):
            return buf.reshape(x.shape)
        item = buf.itemsize
        return np.ndarray(x.shape, buf.dtype, buffer=buf, offset=x.offset * item,
                          strides=tuple(s * item for s in x.strides))

    def values(self, x) -> np.ndarray:
        """The view as computable values (bfloat16 as float32)."""
        return to_compute(self.view(x), x.dtype)

    def store(self, out, values) -> None:
        """Write computed values into ``out`` (contiguous) with webtensor's cast rules."""
        dst = out._data.reshape(out.shape)
        values = np.asarray(values)
        if out.dtype is not _d.bfloat16 and values.dtype == dst.dtype:
            dst[...] = values
        else:
            dst[...] = from_compute(values, out.dtype)

    # -- memory ----------------------------------------------------------------------------------
    def alloc(self, dtype, size):
        return np.empty(size, _STORAGE[dtype])

    def from_bytes(self, dtype, data):
        return np.frombuffer(bytes(data), dtype=_STORAGE[dtype]).copy()

    def to_bytes(self, x) -> bytes:
        return np.ascontiguousarray(self.view(x)).tobytes()

    def from_values(self, dtype, values):
        if dtype.kind in "iu":
            arr = _ints_to_storage(values, dtype)
        else:
            arr = from_compute(np.array(values, dtype=_value_dtype(dtype)), dtype)
        return np.ascontiguousarray(arr).reshape(-1)

    def to_values(self, x) -> list:
        return self.values(x).reshape(-1).tolist()

    # -- movement --------------------------------------------------------------------------------
    def copy(self, out, x):
        out._data.reshape(out.shape)[...] = self.view(x)

    def assign(self, target, x):
        """Write ``x`` (same shape and dtype) into the strided view ``target``."""
        self.view(target)[...] = self.view(x)

    def fill(self, out, value):
        out._data[...] = self.from_values(out.dtype, [value])[0]

    def iota(self, out, start, step):
        n = out.size
        dt = out.dtype
        if dt.kind in "iu":
            vals = start + step * np.arange(n, dtype=np.int64)
        else:
            vals = start + step * np.arange(n, dtype=np.float64)
        self.store(out, vals)

    def cast(self, out, x):
        self.store(out, self.values(x))

    # -- elementwise -----------------------------------------------------------------------------
    def unary(self, op, out, x):
        a = self.values(x)
        fn = UNARY[op]
        with np.errstate(all="ignore"):
            if op in ("bitwise_invert",) and x.dtype is _d.bool:
                result = ~a
            else:
                result = fn(a)
        self.store(out, result)

    def binary(self, op, out, a, b):
        if op == "nextafter" and a.dtype is _d.bfloat16:
            # NOTE: the float32 neighbour would round straight back to x1; step the bf16 bits.
            out._data.reshape(out.shape)[...] = _bf16_nextafter(self.view(a), self.view(b))
            return
        x, y = self.values(a), self.values(b)
        fn = BINARY[op]
        if a.dtype is _d.bool and op in _BOOL_BINARY:
            fn = _BOOL_BINARY[op]
        with np.errstate(all="ignore"):
            result = fn(x, y)
        self.store(out, result)

    def where(self, out, cond, a, b):
        self.store(out, np.where(self.view(cond), self.values(a), self.values(b)))


def _value_dtype(dt):
    if dt.kind == "b":
        return np.bool_
    if dt.kind == "c":
        return np.complex128
    return np.float64


def _ints_to_storage(values, dtype):
    """Python ints/floats/bools -> an integer dtype: ints wrap, floats truncate/saturate."""
    if all(v.__class__ is int or v.__class__ is bool for v in values):
        bits = dtype.bits
        mask = (1 << bits) - 1
        wrapped = [int(v) & mask for v in values]
        arr = np.array(wrapped, dtype=np.uint64 if bits == 64 else np.int64)
        return arr.astype(_STORAGE[dtype], casting="unsafe")
    out = np.empty(len(values), _STORAGE[dtype])
    for i, v in enumerate(values):
        if isinstance(v, (float, complex)):
            out[i] = _float_to_int(np.array([v.real if isinstance(v, complex) else v]), dtype)[0]
        else:
            out[i] = _ints_to_storage([v], dtype)[0]
    return out
