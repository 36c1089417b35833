"""The CPU device on NumPy.

A buffer is a flat NumPy array of the dtype's storage type (bfloat16 is stored as its uint16
bits and computed in float32, rounded to nearest even).  A tensor view becomes an ``ndarray``
over that buffer without copying.

This backend is the reference the pure-Python one (``cpu_python``) reproduces bit for bit, so
where NumPy's result depends on the machine or on its loop order it computes in a defined way
instead (see ``cpu_python``'s docstring for the shared rules): float sums, products, matmul and
scatter-add accumulate left to right in float64 (no BLAS, no pairwise sums); complex products,
quotients, abs, sign and sqrt use explicit real formulas (no FMA); max/min give -0.0 < +0.0;
transcendental functions of float16/bfloat16/float32/complex64 run in double precision.
"""

from __future__ import annotations

import math
import sys
import threading

import numpy as np

from .. import dtypes as _d
from .. import ops as _ops
from .. import precision as _precision
from . import _pycodec, _pyops
from .base import (
    WINDOW_OPS,
    WINDOW_SELECT,
    Backend,
    check_scatter,
    check_window,
    check_window_scatter,
    window_positions,
)

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
    # Overflow to inf is the defined result: no warnings (see _quietly).
    return _quietly(_from_compute, np.asarray(values), dt)


def _from_compute(values: np.ndarray, dt) -> np.ndarray:
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
#
# NOTE: where NumPy's own answer depends on the CPU (fused multiply-add in SIMD complex
# products, SIMD complex abs, float32 transcendentals of 1-4 ULP) we compute with explicit real
# operations or in float64, so the answer is the same everywhere and the pure-Python backend
# (``_pyops``) can replay it bit for bit.

def _int_pow(a, b):
    """Integer power; a negative exponent gives the truncated 1 / a**-b (0 unless |a| == 1)."""
    neg = b < 0
    if not np.any(neg):
        return np.power(a, b)
    safe = np.power(a, np.where(neg, 0, b))
    one = np.ones_like(a)
    inverse = np.where(a == 1, one, np.where(a == -1, np.where(b % 2 == 0, one, -one), 0))
    return np.where(neg, inverse, safe).astype(a.dtype)


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


def _complex(re, im, dtype) -> np.ndarray:
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, dtype)
    out.real[...] = re
    out.imag[...] = im
    return out


def _cmul(a, b):
    """(ar*br - ai*bi, ar*bi + ai*br) in the part precision, no fused multiply-add."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    return _complex(ar * br - ai * bi, ar * bi + ai * br, np.result_type(a, b))


def _cdiv(a, b):
    """NumPy's complex division loop (Smith's method) on arrays."""
    ar, ai, br, bi = np.broadcast_arrays(a.real, a.imag, b.real, b.imag)
    abr, abi = np.abs(br), np.abs(bi)
    first = abr >= abi
    zero = (abr == 0) & (abi == 0)
    rat = bi / br
    scl = 1 / (br + bi * rat)
    re1 = (ar + ai * rat) * scl
    im1 = (ai - ar * rat) * scl
    rat = br / bi
    scl = 1 / (bi + br * rat)
    re2 = (ar * rat + ai) * scl
    im2 = (ai * rat - ar) * scl
    re = np.where(first, np.where(zero, ar / abr, re1), re2)
    im = np.where(first, np.where(zero, ai / abr, im1), im2)
    return _complex(re, im, np.result_type(a, b))


def _hypot128(x, y):
    """|x + iy| in float64 by exact power-of-two scaling (mirrored by ``_pyops.cabs1``)."""
    x, y = np.abs(x), np.abs(y)
    hi, lo = np.maximum(x, y), np.minimum(x, y)
    e = np.frexp(hi)[1]
    hs, ls = np.ldexp(hi, -e), np.ldexp(lo, -e)
    r = np.ldexp(np.sqrt(hs * hs + ls * ls), e)
    r = np.where(hi == 0, 0.0, r)
    r = np.where(np.isnan(x) | np.isnan(y), x + y, r)
    return np.where(np.isinf(x) | np.isinf(y), np.inf, r)


def _cabs(a):
    if a.dtype == np.complex64:
        x, y = a.real.astype(np.float64), a.imag.astype(np.float64)
        r = np.sqrt(x * x + y * y)
        return np.where(np.isinf(x) | np.isinf(y), np.inf, r).astype(np.float32)
    return _hypot128(a.real, a.imag)


def _abs(a):
    if a.dtype.kind != "c":
        return np.abs(a)
    r = _cabs(a)
    # a NaN part (and no infinite one): the canonical NaN, whatever the parts' NaN bits
    return np.where(np.isnan(r), r.dtype.type(_pycodec.DEFAULT_NAN), r)


def _csqrt(a):
    """Principal square root: Kahan's formula in float64 with C99 special values (mirrored by
    ``_pyops.csqrt1``)."""
    re, im = a.real.astype(np.float64), a.imag.astype(np.float64)
    big = np.maximum(np.abs(re), np.abs(im))
    huge, tiny = big >= 2.0 ** 1020, big < 2.0 ** -1020
    scale = np.where(huge, 0.25, np.where(tiny, 2.0 ** 108, 1.0))
    unscale = np.where(huge, 2.0, np.where(tiny, 2.0 ** -54, 1.0))
    sr, si = re * scale, im * scale
    t = np.sqrt((np.abs(sr) + _hypot128(sr, si)) * 0.5)
    pos = sr >= 0
    out_re = np.where(pos, t, np.abs(si) / (2.0 * t)) * unscale
    out_im = np.where(pos, si / (2.0 * t), np.copysign(t, si)) * unscale
    # Special values, lowest priority first.
    inf, nan_im = np.inf, np.isnan(im)
    cases = [
        ((re == 0) & (im == 0), 0.0, im),
        (nan_im, im, im),
        (re == -inf, np.where(nan_im, im, 0.0), np.copysign(inf, im)),
        (re == inf, inf, np.where(nan_im, im, np.copysign(0.0, im))),
        (np.isnan(re), re, re),
        (np.isinf(im), inf, im),
    ]
    for mask, r, i in cases:
        out_re = np.where(mask, r, out_re)
        out_im = np.where(mask, i, out_im)
    return _complex(out_re, out_im, np.complex128)


def _sqrt(a):
    return _csqrt(a) if a.dtype.kind == "c" else np.sqrt(a)


def _sign(a):
    if a.dtype.kind == "c":
        # z / |z|; 0 at 0; NaN + NaN j (the canonical NaN) where a part is NaN (Array API)
        mag = _cabs(a)
        re, im = a.real / mag, a.imag / mag
        out = np.where(mag == 0, 0, _complex(re, im, a.dtype)).astype(a.dtype)
        nan = np.isnan(a.real) | np.isnan(a.imag)
        if nan.any():
            out[nan] = complex(_pycodec.DEFAULT_NAN, _pycodec.DEFAULT_NAN)
        return out
    return np.sign(a)


def _square(a):
    return _cmul(a, a) if a.dtype.kind == "c" else np.square(a)


def _reciprocal(a):
    if a.dtype.kind == "c":
        return _cdiv(np.ones_like(a), a)
    return np.divide(1, a, dtype=a.dtype)


def _round(a):
    if a.dtype.kind in "iub":
        return a.copy()
    return np.round(a)


def _identity_for_ints(fn):
    def op(a):
        return a.copy() if a.dtype.kind in "iub" else fn(a)
    return op


def _imag(a):
    return np.imag(a) if a.dtype.kind == "c" else np.zeros_like(a)


def _logical(fn):
    def op(*args):
        return fn(*[x != 0 for x in args])
    return op


def _pow(a, b):
    if a.dtype.kind in "iu":
        return _int_pow(a, b)
    if a.dtype.kind == "c":
        return _cpow(a, b)
    return np.power(a, b)


def _cpow(a, b):
    """Complex power with the steps of ``_pyops.cpow1`` (the same on every device): NumPy's
    exp(b log a) and zero rules, with real integer exponents below 2**32 by binary powering."""
    a, b = np.broadcast_arrays(a, b)
    out = np.array(np.power(a, b))
    br = b.real
    with np.errstate(invalid="ignore"):
        integer = ((b.imag == 0) & np.isfinite(br) & (br == np.trunc(br)) & (br != 0)
                   & (np.abs(br) < _pyops.POW_INT_LIMIT) & (a != 0))
    if not integer.any():
        return out
    base, expo = a[integer], br[integer]
    n = np.abs(expo).astype(np.int64)
    p, acc = base.copy(), np.zeros_like(base)
    started = np.zeros(base.shape, dtype=bool)
    while True:
        bit = (n & 1).astype(bool)
        both = bit & started
        if both.any():
            acc[both] = _cmul(acc[both], p[both])
        acc[bit & ~started] = p[bit & ~started]  # the lowest set bit: no 1 * p
        started |= bit
        n >>= 1
        if not n.any():
            break
        p = _cmul(p, p)
    finite_a = np.isfinite(base.real) & np.isfinite(base.imag)
    overflowed = finite_a & ~(np.isfinite(acc.real) & np.isfinite(acc.imag))
    negative = expo < 0
    if negative.any():
        acc[negative] = _cdiv(np.ones_like(acc[negative]), acc[negative])
    keep = ~overflowed  # where the powers overflowed, exp(b log a) (np.power) stands
    picked = out[integer]
    picked[keep] = acc[keep]
    out[integer] = picked
    return out


def _expm1(x):
    """np.expm1, with the Array API's special values for complex input (those of exp less 1:
    expm1(inf + 0j) is inf + 0j, not NumPy's inf + NaN j)."""
    out = np.expm1(x)
    if x.dtype.kind == "c":
        special = ~(np.isfinite(x.real) & np.isfinite(x.imag))
        if special.any():
            w = np.exp(x[special])
            out[special] = _complex(w.real - 1, w.imag, x.dtype)
    return out


# ufuncs whose result is bool whatever the inputs (comparisons, predicates)
_PREDICATES = frozenset({np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                         np.greater_equal, np.isnan, np.isinf, np.isfinite, np.signbit,
                         np.logical_and, np.logical_or, np.logical_xor, np.logical_not})


def _multiply(a, b):
    return _cmul(a, b) if a.dtype.kind == "c" else np.multiply(a, b)


def _divide(a, b):
    return _cdiv(a, b) if a.dtype.kind == "c" else np.divide(a, b)


def _zeros_ordered(ufunc, larger: bool):
    """``ufunc`` (maximum, minimum, fmax, fmin) with IEEE 754-2019's -0.0 < +0.0 where both
    operands are zeros (NumPy's choice between zeros depends on its SIMD path): a + b is the
    larger zero, -(-a - b) the smaller."""
    def op(a, b):
        r = ufunc(a, b)
        if r.dtype.kind == "f" and np.count_nonzero(r) != r.size:
            both = (a == 0) & (b == 0)
            r = np.where(both, a + b if larger else -(-a - b), r)
        return r
    return op


# maximum/minimum: the first NaN operand wins (NumPy's); fmax/fmin: a NaN gives way
_maximum, _minimum = _zeros_ordered(np.maximum, True), _zeros_ordered(np.minimum, False)
_fmax, _fmin = _zeros_ordered(np.fmax, True), _zeros_ordered(np.fmin, False)


def _floor_divide(a, b):
    """np.floor_divide, with the Array API's results for infinite operands: floor(a / b), so
    inf // 2 is inf and 1 // -inf is -0.0 (NumPy pairs // with % instead: NaN and -1.0)."""
    r = np.floor_divide(a, b)
    if r.dtype.kind == "f":
        special = (np.isinf(a) != np.isinf(b)) & ~np.isnan(a) & ~np.isnan(b) & (a != 0) & (b != 0)
        if special.any():
            r = np.where(special, np.divide(a, b), r)
    return r


# complex-aware wrappers -> the NumPy ufunc they are for real dtypes (cpu_numpy's fast path
# computes straight into the output with it)
_REAL_UFUNC = {_abs: np.abs, _sqrt: np.sqrt, _square: np.square, _multiply: np.multiply,
               _divide: np.divide}

UNARY = {
    "abs": _abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
    "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "cos": np.cos, "cosh": np.cosh,
    "exp": np.exp, "expm1": _expm1, "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "sin": np.sin, "sinh": np.sinh, "sqrt": _sqrt, "tan": np.tan,
    "tanh": np.tanh, "reciprocal": _reciprocal,
    "negative": np.negative, "positive": np.positive, "square": _square, "sign": _sign,
    "conj": np.conj, "ceil": _identity_for_ints(np.ceil), "floor": _identity_for_ints(np.floor),
    "trunc": _identity_for_ints(np.trunc), "round": _round,
    "bitwise_invert": np.invert, "real": np.real, "imag": _imag,
    "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "signbit": np.signbit,
    "logical_not": _logical(np.logical_not),
}

BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": _multiply, "divide": _divide,
    "floor_divide": _floor_divide, "remainder": np.remainder, "pow": _pow,
    "maximum": _maximum, "minimum": _minimum, "fmax": _fmax, "fmin": _fmin,
    "gcd": np.gcd, "lcm": np.lcm, "atan2": np.arctan2, "hypot": np.hypot,
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

# Transcendental ops of narrow floats run in float64 (complex64 in complex128): NumPy's float32
# SIMD versions are up to 3-4 ULP off; rounding the float64 result is nearly always exact.
# wt.set_precision("fast"): float32 ones run in NumPy's own float32 loops (about 10x faster),
# as NumPy computes them.
_TRANSCENDENTAL = _ops.TRANSCENDENTAL
_WIDEN = {np.dtype(np.float16): np.float64, np.dtype(np.float32): np.float64,
          np.dtype(np.complex64): np.complex128}
_F32 = np.dtype(np.float32)
# float16/bfloat16, computed through float32 (a set: DType's == is Python code)
_NARROW = frozenset({_d.float16, _d.bfloat16})


def _widened(op: str, fn, dtype):
    """The dtype ``op`` computes in for ``dtype`` values (None: the values' own)."""
    if op not in _TRANSCENDENTAL or dtype not in _WIDEN:
        return None
    if dtype == _F32 and isinstance(_REAL_UFUNC.get(fn, fn), np.ufunc) and _precision.fast():
        return None
    return _WIDEN[dtype]


def _into(fn, out_dt, dtype):
    """The NumPy ufunc that computes ``fn`` on ``dtype`` values into a buffer of ``out_dt``
    exactly as ``store`` would write its result (saving a temporary and a copy), or None."""
    if np.dtype(dtype).kind != "c":  # the real forms of the complex-aware wrappers
        fn = _REAL_UFUNC.get(fn, fn)
    if not isinstance(fn, np.ufunc) or out_dt is _d.bfloat16:
        return None
    dst = _STORAGE[out_dt]
    if dst == dtype:
        same = fn.nout == 1 and \
            fn.resolve_dtypes((dtype, dtype, None)[:fn.nin + 1])[-1] == dst
        return fn if same else None
    return fn if dst == np.bool_ and fn in _PREDICATES else None


_DIRECT: dict = {}
_UNKNOWN = object()


def _direct(op: str, a_dt, b_dt, out_dt):
    """The ufunc that computes elementwise ``op`` (unary where ``b_dt`` is None) from the
    operands' storage straight into the output, giving what the general path would store;
    None where that path converts, widens or wraps.  Decided once per dtypes and mode (the
    decision itself, ``resolve_dtypes`` included, costs more than a 1,000-element op)."""
    key = (op, a_dt, b_dt, out_dt, _precision.fast())
    found = _DIRECT.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        found = _DIRECT[key] = _direct_ufunc(op, a_dt, b_dt, out_dt)
    return found


def _direct_ufunc(op: str, a_dt, b_dt, out_dt):
    if _d.bfloat16 in (a_dt, b_dt, out_dt) or b_dt is not None and b_dt is not a_dt:
        return None  # bfloat16 computes in float32; mixed operands convert first
    if b_dt is None:
        fn = UNARY[op]
        if op == "bitwise_invert" and a_dt is _d.bool:
            return None
    else:
        fn = _BOOL_BINARY[op] if a_dt is _d.bool and op in _BOOL_BINARY else BINARY[op]
    storage = _STORAGE[a_dt]
    if _widened(op, fn, storage) is not None:
        return None
    return _into(fn, out_dt, storage)


def _flat(t, shape):
    """The flat storage lined up with a dense output of ``shape``: ``t``'s whole buffer when
    it is dense with that shape, a 0-d array for a stretched scalar (all strides 0; NumPy
    broadcasts a 0-d operand at half the cost of a 1-element one), else None."""
    if t._dense:
        return t._data if t.shape == shape else None
    if t.strides and not any(t.strides) and 0 not in t.shape:
        data = t._data  # a scalar operand's own buffer has this one element
        return (data if len(data) == 1 else data[t.offset:t.offset + 1]).reshape(())
    return None


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


# -- Nx's functions (erf family, cbrt, rsqrt, sigmoid, phase, bit counts) --------------------------
# Those NumPy lacks map the pure-Python backend's float64 scalar functions (same bits there).

def _scalar_map(fn):
    ufunc = np.frompyfunc(fn, 1, 1)

    def op(a):
        return np.asarray(ufunc(a), dtype=np.float64) if a.size else a.astype(np.float64)
    return op


def _sigmoid(a):
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _phase(a):
    if a.dtype.kind == "c":
        return np.arctan2(a.imag, a.real)
    return np.arctan2(np.zeros_like(a), a)


_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _unsigned_bits(a):
    """``a``'s bits as the unsigned integer of its width."""
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")


def _bit_length(u):
    """Bit lengths of unsigned integers (exact: 32-bit halves go through float64)."""
    if u.dtype.itemsize < 8:
        _, e = np.frexp(u.astype(np.float64))
        return e.astype(np.int64)
    hi = _bit_length((u >> np.uint64(32)).astype(np.uint32))
    lo = _bit_length((u & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    return np.where(hi > 0, hi + 32, lo)


def _clz(a):
    return (a.dtype.itemsize * 8 - _bit_length(_unsigned_bits(a))).astype(a.dtype)


def _popcount(a):
    u = _unsigned_bits(a)
    counts = _POP8[u.view(np.uint8).reshape(u.shape + (u.dtype.itemsize,))]
    return counts.sum(axis=-1, dtype=np.int64).astype(a.dtype)


UNARY.update({
    "cbrt": _scalar_map(math.cbrt), "erf": _scalar_map(math.erf), "erfc": _scalar_map(math.erfc),
    "erf_inv": _scalar_map(_pyops.erf_inv1), "rsqrt": lambda a: 1.0 / np.sqrt(a),
    "sigmoid": _sigmoid, "phase": _phase, "count_leading_zeros": _clz,
    "population_count": _popcount,
})
BINARY["complex"] = lambda a, b: _complex(a, b, np.result_type(a.dtype, np.complex64))
_TRANSCENDENTAL = _TRANSCENDENTAL | {"cbrt", "erf", "erfc", "erf_inv", "rsqrt", "sigmoid",
                                     "phase"}


# bool arithmetic NumPy does not define the way the Array API wants.
_BOOL_BINARY = {"add": np.logical_or, "multiply": np.logical_and}


# -- helpers of the non-elementwise primitives ------------------------------------------------------

_KEY_INT = {2: np.int16, 4: np.int32, 8: np.int64}


def _float_keys(v: np.ndarray, nan_key: str) -> np.ndarray:
    """Integers ordered like the floats ``v`` with -0.0 < +0.0; NaN gets the largest key
    (``nan_key="max"``) or the smallest ("min"), so an integer max/min propagates it."""
    it = _KEY_INT[v.dtype.itemsize]
    info = np.iinfo(it)
    bits = np.ascontiguousarray(v).view(it)
    keys = np.where(bits < 0, bits ^ it(info.max), bits)
    return np.where(np.isnan(v), it(info.max if nan_key == "max" else info.min), keys)


def _keys_to_floats(keys: np.ndarray, float_dtype) -> np.ndarray:
    """Inverse of ``_float_keys``; the NaN keys give the canonical quiet NaN."""
    it = keys.dtype.type
    info = np.iinfo(it)
    nan = (keys == info.max) | (keys == info.min)
    bits = np.where(keys < 0, keys ^ it(info.max), keys).astype(it)
    out = np.ascontiguousarray(bits).view(float_dtype)
    return np.where(nan, float_dtype.type(np.nan), out)


def _canonical_nan(r: np.ndarray) -> np.ndarray:
    """NaN results of max/min reductions as the canonical quiet NaN (NumPy returns whichever
    NaN its loop met)."""
    nan = np.isnan(r)
    return np.where(nan, r.dtype.type(np.nan), r) if nan.any() else r


def _rows_last(v: np.ndarray, axes) -> np.ndarray:
    """``v`` with ``axes`` moved last and merged: shape ``kept + (n,)``, C order within rows."""
    kept = [i for i in range(v.ndim) if i not in axes]
    n = 1
    for a in axes:
        n *= v.shape[a]
    return v.transpose(kept + list(axes)).reshape(tuple(v.shape[i] for i in kept) + (n,))


def _refuse_complex(op, dt):
    if dt.kind == "c":
        raise TypeError(f"{op} is not defined for complex dtypes ({dt.name}); NumPy's "
                        f"lexicographic order is not supported, compare wt.real / wt.abs")


def _seq_complex_prod(v: np.ndarray, axis: int = -1, cumulative: bool = False):
    """Left-to-right complex128 products along ``axis`` with explicit real operations."""
    v = np.moveaxis(v.astype(np.complex128), axis, -1)
    acc = v[..., 0]
    steps = [acc]
    for i in range(1, v.shape[-1]):
        acc = _cmul(acc, v[..., i])
        steps.append(acc)
    if cumulative:
        return np.moveaxis(np.stack(steps, axis=-1), -1, axis)
    return acc


def _seq_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float64 ``a @ b`` whose products are summed left to right over k (no BLAS, no FMA):
    the order the pure-Python backend uses, so the bits agree."""
    *batch, m, k = a.shape
    n = b.shape[-1]
    acc = a[..., :, 0:1] * b[..., 0:1, :]
    cells = max(1, int(np.prod(batch, dtype=np.int64)) * m * n)
    block = max(1, (1 << 21) // cells)
    for k0 in range(1, k, block):
        k1 = min(k, k0 + block)
        p = a[..., k0:k1, None] * b[..., None, k0:k1, :]
        p[..., 0, :] = acc + p[..., 0, :]
        np.add.accumulate(p, axis=-2, out=p)
        acc = p[..., -1, :]
    return acc


def _round_to(values: np.ndarray, dt) -> np.ndarray:
    """float64 values rounded to the narrow float ``dt``, as comparable bit patterns."""
    if dt is _d.bfloat16:
        return f32_to_bf16(values.astype(np.float32))
    return values.astype(_STORAGE[dt]).view(np.uint16 if dt is _d.float16 else np.uint32)


def _narrow_matmul(a: np.ndarray, b: np.ndarray, dt) -> np.ndarray:
    """``_seq_matmul`` for float16/bfloat16/float32 inputs at BLAS speed, same bits.

    The products of narrow floats are exact in float64, so the sequential float64 sum and
    BLAS's (any order, FMA or not) are both within ``gamma_k * sum|a_i b_i|`` of the exact dot
    product.  Where that interval around BLAS's result rounds to a single value of ``dt`` the
    sequential sum rounds to it too; the few other elements are summed sequentially.
    """
    s = np.matmul(a, b)
    t = np.matmul(np.abs(a), np.abs(b))
    k = a.shape[-1] + 1
    gamma = k * 2.0 ** -53 / (1 - k * 2.0 ** -53)
    delta = 2.0 * gamma * t / (1 - gamma)
    lo = np.nextafter(s - delta, -np.inf)
    hi = np.nextafter(s + delta, np.inf)
    unsure = (_round_to(lo, dt) != _round_to(hi, dt)) | ~np.isfinite(s) | ~np.isfinite(t)
    zero = t == 0  # every product is a signed zero (a ReLU's dead units): the sum is -0.0
    if zero.any():  # when every product is -0.0, else +0.0; count the negative products
        neg_a, neg_b = np.signbit(a).astype(np.float64), np.signbit(b).astype(np.float64)
        negatives = np.matmul(neg_a, 1.0 - neg_b) + np.matmul(1.0 - neg_a, neg_b)
        s[zero] = np.where(negatives[zero] == a.shape[-1], -0.0, 0.0)
        unsure &= ~zero
    if unsure.any():
        where = np.nonzero(unsure)
        batch_idx, i, j = where[:-2], where[-2], where[-1]
        rows = a[batch_idx + (i,)]  # (count, k)
        cols = np.moveaxis(b, -1, -2)[batch_idx + (j,)]
        p = rows * cols
        s[where] = np.add.accumulate(p, axis=-1)[:, -1]
    return s


def _seq_cmatmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    *batch, m, k = a.shape
    n = b.shape[-1]
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag

    def products(k0, k1, keep):
        x_r, x_i = ar[..., k0:k1, None], ai[..., k0:k1, None]
        y_r, y_i = br[..., None, k0:k1, :], bi[..., None, k0:k1, :]
        pr = x_r * y_r - x_i * y_i
        pi = x_r * y_i + x_i * y_r
        return (pr[..., 0, :], pi[..., 0, :]) if keep else (pr, pi)

    acc_r, acc_i = products(0, 1, True)
    cells = max(1, int(np.prod(batch, dtype=np.int64)) * m * n)
    block = max(1, (1 << 20) // cells)
    for k0 in range(1, k, block):
        k1 = min(k, k0 + block)
        pr, pi = products(k0, k1, False)
        pr[..., 0, :] = acc_r + pr[..., 0, :]
        pi[..., 0, :] = acc_i + pi[..., 0, :]
        np.add.accumulate(pr, axis=-2, out=pr)
        np.add.accumulate(pi, axis=-2, out=pi)
        acc_r, acc_i = pr[..., -1, :], pi[..., -1, :]
    return _complex(acc_r, acc_i, np.complex128)


def _window_slices(q, out_shape, strides, dilations) -> tuple:
    """The basic index selecting, for every output element, position ``q`` of its window."""
    return tuple(slice(i * d, i * d + (n - 1) * s + 1, s)
                 for i, n, s, d in zip(q, out_shape, strides, dilations))


def _window_selection(select, v, positions, shape, strides, dilations) -> np.ndarray:
    """The position (row-major index in the window) each window of ``v`` selects."""
    name, replace_if = WINDOW_SELECT[select]
    compare = BINARY[name]
    best = sel = None
    for k, q in enumerate(positions):
        part = v[_window_slices(q, shape, strides, dilations)]
        if best is None:
            best, sel = part.copy(), np.zeros(shape, np.int64)
            continue
        take = compare(part, best) if replace_if else ~compare(best, part)
        best = np.where(take, part, best)
        sel[take] = k
    return sel


def _clamped_indices(idx: np.ndarray, size: int, axis: int, fn: str) -> np.ndarray:
    """Gather's and scatter's indices (Backend.gather): negative ones wrapped once, then all
    clamped into [0, size); an axis of size 0 takes none."""
    idx = np.asarray(idx, dtype=np.int64)
    if idx.size:
        if size == 0:
            raise IndexError(f"{fn}: index {int(idx.flat[0])} is out of bounds for axis {axis} "
                             f"with size 0")
        if (idx < 0).any() or (idx >= size).any():
            idx = np.clip(np.where(idx < 0, idx + size, idx), 0, size - 1)
    return idx


def _stable_argsort(v: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort; descending is the reversed order with ties kept in original order."""
    if v.ndim > 2:
        # NumPy's sorts handle at most 32 dimensions: sort rows of (everything else, axis)
        moved = np.moveaxis(v, axis, -1)
        rows = _stable_argsort(moved.reshape(-1, v.shape[axis]), 1, descending)
        return np.moveaxis(rows.reshape(moved.shape), -1, axis)
    if not descending:
        return np.argsort(v, axis=axis, kind="stable")
    n = v.shape[axis]
    flipped = np.argsort(np.flip(v, axis), axis=axis, kind="stable")
    return (n - 1) - np.flip(flipped, axis)


def _take_along(v: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """``np.take_along_axis`` for any rank (NumPy's own stops at 63 dimensions)."""
    if v.ndim <= 32:
        return np.take_along_axis(v, idx, axis)
    moved_v, moved_i = np.moveaxis(v, axis, -1), np.moveaxis(idx, axis, -1)
    rows = np.take_along_axis(moved_v.reshape(-1, moved_v.shape[-1]),
                              moved_i.reshape(-1, moved_i.shape[-1]), 1)
    return np.moveaxis(rows.reshape(moved_i.shape), -1, axis)


# np.errstate(all="ignore") costs ~2.5 µs per use, as much as a 1,000-element add.  NumPy 2
# keeps the error state in a context variable; setting that variable directly is the same
# thing for ~0.1 µs.  Older NumPy (or a future layout) falls back to errstate.
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE

    with np.errstate(all="ignore"):
        _IGNORE_ALL = _ERRSTATE.get()
except (ImportError, AttributeError):
    _ERRSTATE = None


def _quietly(fn, *args):
    """``fn(*args)`` with NumPy's floating-point warnings off (results carry inf/NaN)."""
    if _ERRSTATE is None:
        with np.errstate(all="ignore"):
            return fn(*args)
    token = _ERRSTATE.set(_IGNORE_ALL)
    try:
        return fn(*args)
    finally:
        _ERRSTATE.reset(token)


# -- recycled buffers -------------------------------------------------------------------------
#
# A fresh NumPy array of a few hundred KB or more is often memory glibc has just taken from
# the OS: every page faults in (and is zeroed) on first write.  glibc gives such blocks back
# once enough of them are free together (it shrinks its heap or unmaps them), which is what
# a chain of ops leaves behind: ``x * 2.0 + 1.0`` on 4M float32 faulted ~1,000 pages per call,
# 6 ms of its 8 ms.  NumPy escapes that by writing the second op into the first one's
# temporary, a test of reference counts only C code can make (and CPython 3.14 changed).
# The backend keeps its recent large buffers instead, and hands one out again once no array
# refers to it.

_RECYCLE_MIN = 256 << 10  # smaller blocks stay in malloc's free lists (no faults measured)
_RECYCLE_MAX = 16 << 20  # larger ones are left to malloc: four of these fill the budget
_RECYCLE_BYTES = 64 << 20  # the most kept (in use or not): what glibc's heap may keep itself
_RECYCLE_PER_SIZE = 4


def _refs(items: list, i: int) -> int:
    """The reference count of ``items[i]``, read the same way for every list."""
    return sys.getrefcount(items[i])


class _Recycler:
    """Buffers of the recent large allocations, per byte size, least recently used size first.

    A buffer is free when the only reference left is its entry here: no tensor, view, DLPack
    capsule or other array holds it (they all reach it through ``.base``).  The test compares
    its count with that of a probe object which also has one list as its only referrer, read
    by the same code, so it holds however the interpreter counts (CPython 3.14 borrows
    references on its stack)."""

    def __init__(self):
        self._sizes: dict[int, list] = {}
        self._bytes = 0
        self._probe = [object()]
        self._lock = threading.Lock()

    def take(self, nbytes: int) -> np.ndarray:
        """A uint8 buffer of ``nbytes`` bytes: a free kept one, else a new one (kept)."""
        with self._lock:
            sizes = self._sizes
            kept = sizes.pop(nbytes, [])
            sizes[nbytes] = kept  # the most recently used size now
            free = _refs(self._probe, 0)
            for i in range(len(kept)):
                if _refs(kept, i) == free:
                    return kept[i]
            raw = np.empty(nbytes, np.uint8)
            if len(kept) < _RECYCLE_PER_SIZE:
                kept.append(raw)
                self._bytes += nbytes
                while self._bytes > _RECYCLE_BYTES:  # forget the oldest (in use or not)
                    size, bufs = next(iter(sizes.items()))
                    bufs.pop(0)
                    if not bufs:
                        del sizes[size]
                    self._bytes -= size
            return raw


_RECYCLER = _Recycler()


class NumpyBackend(Backend):
    name = "numpy"
    exact_float64 = True

    # -- views -----------------------------------------------------------------------------------
    @staticmethod
    def view(x) -> np.ndarray:
        """The NumPy array (storage dtype) a tensor view denotes; no copy."""
        buf = x._data
        if x._dense:
            return buf.reshape(x.shape)
        if x.size == 0:
            return buf[:0].reshape(x.shape)
        if x.is_contiguous:  # C order from an offset: a slice (np.ndarray(...) costs ~2 us)
            return buf[x.offset:x.offset + x.size].reshape(x.shape)
        item = buf.itemsize
        # a dimension of length 1 never moves: its stride may be any int (x[::2**70]), which
        # NumPy would refuse
        return np.ndarray(x.shape, buf.dtype, buffer=buf, offset=x.offset * item,
                          strides=tuple(0 if n == 1 else s * item
                                        for n, s in zip(x.shape, x.strides)))

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
        storage = _STORAGE[dtype]
        nbytes = size * storage.itemsize
        if _RECYCLE_MIN <= nbytes <= _RECYCLE_MAX:
            return _RECYCLER.take(nbytes).view(storage)
        return np.empty(size, storage)

    def native_dtype(self, dtype):
        """NumPy's dtype; bfloat16 is ml_dtypes' when that package is installed (NumPy has
        none: without it, the webtensor dtype, whose values are stored as uint16 bits)."""
        if dtype is _d.bfloat16:
            try:
                import ml_dtypes
            except ImportError:
                return dtype
            return np.dtype(ml_dtypes.bfloat16)
        return _STORAGE[dtype]

    def from_bytes(self, dtype, data):
        return np.frombuffer(bytes(data), dtype=_STORAGE[dtype]).copy()

    def to_bytes(self, x) -> bytes:
        return np.ascontiguousarray(self.view(x)).tobytes()

    def from_values(self, dtype, values):
        values = values if isinstance(values, list) else list(values)
        arr = None
        if dtype.kind not in "iu":
            classes = {v.__class__ for v in values}
            if classes <= {float} and dtype.kind in "fc":
                arr = np.array(values, dtype=np.float64)
            elif classes <= {int} and dtype.kind in "fc":
                arr = np.array(values)
                if arr.dtype.kind not in "iu":  # beyond 64 bits: exact rounding below
                    arr = None
        if arr is None:
            # Exact conversion in pure Python (ints wrap, ints -> float32 rounded once...).
            canon = _pycodec.from_python(values, dtype)
            if dtype is _d.bfloat16:
                return f32_to_bf16(np.array(canon, dtype=np.float32)).reshape(-1)
            return np.array(canon, dtype=_STORAGE[dtype]).reshape(-1)
        return np.ascontiguousarray(from_compute(arr, dtype)).reshape(-1)

    def to_values(self, x) -> list:
        return self.values(x).reshape(-1).tolist()

    def flat_nonzero(self, mask):
        from ..tensor import Tensor

        positions = np.flatnonzero(self.view(mask)).astype(np.int64, copy=False)
        return Tensor._wrap(positions, positions.shape, _d.int64, mask.device)

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
        if isinstance(start, complex) or isinstance(step, complex) or dt.kind == "c":
            start, step = complex(start), complex(step)
            i = np.arange(n, dtype=np.float64)
            vals = _complex(start.real + step.real * i, start.imag + step.imag * i,
                            np.complex128)
        elif dt.kind in "iu" and not isinstance(start, float) and not isinstance(step, float):
            # Exact modulo 2**64, then wrapped to the dtype (Python ints of any size).
            m = (1 << 64) - 1
            with np.errstate(over="ignore"):
                vals = np.uint64(int(start) & m) + np.uint64(int(step) & m) * np.arange(
                    n, dtype=np.uint64)
            out._data[...] = vals.astype(_STORAGE[dt], casting="unsafe")
            return
        else:
            vals = float(start) + float(step) * np.arange(n, dtype=np.float64)
        self.store(out, vals.reshape(out.shape))

    def cast(self, out, x):
        if x.dtype is out.dtype:
            self.copy(out, x)
            return
        self.store(out, self.values(x))

    # -- elementwise -----------------------------------------------------------------------------
    def unary(self, op, out, x):
        ufunc = _direct(op, x.dtype, None, out.dtype)
        if ufunc is not None:  # one ufunc call straight into the output
            dst = out._data
            if x._dense:
                _quietly(ufunc, x._data, dst)
            else:
                _quietly(ufunc, self.view(x), dst.reshape(out.shape))
            return
        a = self.values(x)
        fn = UNARY[op]
        if (wide := _widened(op, fn, a.dtype)) is not None:
            a = a.astype(wide)
        if op == "bitwise_invert" and x.dtype is _d.bool:
            result = ~a
        else:
            result = _quietly(fn, a)
        self.store(out, result)

    def binary(self, op, out, a, b):
        if op == "nextafter" and a.dtype is _d.float16:
            # NumPy before 2.5 gave x for equal float16 inputs (nextafter(0.0, -0.0) == 0.0);
            # C99, float32/float64 and NumPy 2.5 give y
            x, y = self._operand(a), self._operand(b)
            self.store(out, np.where(x == y, y, _quietly(np.nextafter, x, y)))
            return
        ufunc = _direct(op, a.dtype, b.dtype, out.dtype)
        if ufunc is not None:  # one ufunc call straight into the output
            shape = out.shape
            x, y = _flat(a, shape), _flat(b, shape)
            if x is not None and y is not None:  # dense operands: no views to build
                _quietly(ufunc, x, y, out._data)
            else:
                _quietly(ufunc, self._operand(a), self._operand(b), out._data.reshape(shape))
            return
        if op == "nextafter" and a.dtype is _d.bfloat16:
            # NOTE: the float32 neighbour would round straight back to x1; step the bf16 bits.
            out._data.reshape(out.shape)[...] = _bf16_nextafter(self.view(a), self.view(b))
            return
        x, y = self._operand(a), self._operand(b)
        fn = BINARY[op]
        if a.dtype is _d.bool and op in _BOOL_BINARY:
            fn = _BOOL_BINARY[op]
        if (wide := _widened(op, fn, x.dtype)) is not None:
            x, y = x.astype(wide), y.astype(_WIDEN[y.dtype])
        self.store(out, _quietly(fn, x, y))

    def _operand(self, t) -> np.ndarray:
        """Elementwise input values; a scalar stretched to the output shape (all strides 0)
        stays 0-d and NumPy broadcasts it, which is much cheaper than a stride-0 view."""
        if t.strides and not any(t.strides) and 0 not in t.shape:
            return to_compute(t._data[t.offset:t.offset + 1].reshape(()), t.dtype)
        return self.values(t)

    def where(self, out, cond, a, b):
        self.store(out, np.where(self.view(cond), self.values(a), self.values(b)))

    # -- reductions and scans --------------------------------------------------------------------
    def reduce(self, op, out, x, axes):
        axes = tuple(axes)
        dt = x.dtype
        k = dt.kind
        if 0 in x.shape and any(x.shape[a] == 0 for a in axes):
            raise ValueError(f"reduce: {op} over an empty axis; the frontend fills identities")
        flat = x._dense and len(axes) == x.ndim and dt is not _d.bfloat16
        if flat:  # everything of a C-ordered buffer: NumPy would merge the axes into this one
            v, axes = x._data, (0,)
        else:
            v = self.values(x)
        if op in ("any", "all") or (k == "b" and op in ("sum", "prod", "max", "min")):
            fn = np.any if op in ("any", "sum", "max") else np.all
            self.store(out, fn(v, axis=axes))
            return
        if op not in _ops.REDUCTIONS:
            raise ValueError(f"reduce: unknown op {op!r}")
        if k in "iu":
            if op in ("sum", "prod"):
                ufunc = np.add if op == "sum" else np.multiply
                r = ufunc.reduce(v, axis=axes, dtype=v.dtype)
            else:
                r = (np.maximum if op == "max" else np.minimum).reduce(v, axis=axes)
            self.store(out, r)
            return
        if op in ("max", "min"):
            _refuse_complex(op, dt)
            ufunc = np.maximum if op == "max" else np.minimum
            r = ufunc.reduce(v, axis=axes)
            if r.ndim == 0:  # one result (a NumPy scalar): Python compares are cheaper
                if r == 0:  # a zero: its sign needs the exact order
                    r = _keys_to_floats(ufunc.reduce(_float_keys(v, op), axis=axes), v.dtype)
                elif r != r:
                    r = v.dtype.type(np.nan)  # the canonical NaN
            else:
                if np.count_nonzero(r) != r.size:
                    r = _keys_to_floats(ufunc.reduce(_float_keys(v, op), axis=axes), v.dtype)
                r = _canonical_nan(r)
            self.store(out, r)
            return
        if _precision.fast():  # NumPy's pairwise sum / product in the dtype (narrow: float32)
            ufunc = np.add if op == "sum" else np.multiply
            if dt in _NARROW:
                self.store(out, _quietly(ufunc.reduce, v, axes, np.float32))
            elif flat:  # straight into the output's one element (keepdims: its shape (1,))
                _quietly(ufunc.reduce, v, 0, None, out._data, True)
            else:  # straight into the output
                _quietly(ufunc.reduce, v, axes, None, out._data.reshape(out.shape))
            return
        rows = _rows_last(v, axes)
        if op == "prod" and k == "c":
            self.store(out, _quietly(_seq_complex_prod, rows))
            return
        wide = rows.astype(np.complex128 if k == "c" else np.float64)
        ufunc = np.add if op == "sum" else np.multiply
        if wide.shape[-1] > 1:
            r = _quietly(ufunc.accumulate, wide, -1)[..., -1]
        else:
            r = wide[..., 0]
        self.store(out, r)

    def arg_reduce(self, op, out, x, axis):
        if op not in ("argmax", "argmin"):
            raise ValueError(f"arg_reduce: unknown op {op!r}")
        if x.shape[axis] == 0:
            raise ValueError(f"{op}: attempt to get {op} of an empty axis {axis}")
        v = self.values(x)
        self.store(out, (np.argmax if op == "argmax" else np.argmin)(v, axis=axis))

    def scan(self, op, out, x, axis):
        if op not in ("sum", "prod", "max", "min"):
            raise ValueError(f"scan: unknown op {op!r}")
        dt = x.dtype
        k = dt.kind
        v = self.values(x)
        if v.size == 0:
            return
        if k == "b":
            ufunc = np.logical_or if op in ("sum", "max") else np.logical_and
            r = ufunc.accumulate(v, axis=axis)
        elif k in "iu":
            ufunc = {"sum": np.add, "prod": np.multiply, "max": np.maximum,
                     "min": np.minimum}[op]
            r = ufunc.accumulate(v, axis=axis, dtype=v.dtype)
        elif op in ("max", "min"):
            _refuse_complex(f"cumulative {op}", dt)
            ufunc = np.maximum if op == "max" else np.minimum
            r = ufunc.accumulate(v, axis=axis)
            if np.count_nonzero(r) != r.size:
                r = _keys_to_floats(ufunc.accumulate(_float_keys(v, op), axis=axis), v.dtype)
            r = _canonical_nan(r)
        elif op == "prod" and k == "c":
            r = _quietly(_seq_complex_prod, v, axis, True)
        else:
            wide = v.astype(np.complex128 if k == "c" else np.float64)
            with np.errstate(all="ignore"):
                r = (np.add if op == "sum" else np.multiply).accumulate(wide, axis=axis)
        self.store(out, r)

    def window_reduce(self, op, out, x, window, strides, dilations):
        check_window(op, out, x, window, strides, dilations)
        if out.size == 0:
            return
        name = WINDOW_OPS[op]
        fn = _BOOL_BINARY.get(name, BINARY[name]) if x.dtype is _d.bool else BINARY[name]
        v = self.values(x)
        dst = out._data.reshape(out.shape)
        positions = window_positions(window)
        # each step is ``binary``'s: values in, the op, stored with the dtype's rounding
        first = next(positions)
        self.store(out, v[_window_slices(first, out.shape, strides, dilations)])
        for q in positions:
            part = v[_window_slices(q, out.shape, strides, dilations)]
            ufunc = _into(fn, out.dtype, part.dtype)
            if ufunc is not None:
                _quietly(ufunc, dst, part, dst)  # in place: out is the accumulator
            else:
                self.store(out, _quietly(fn, self.values(out), part))

    def window_scatter(self, select, out, x, source, window, strides, dilations):
        check_window_scatter(select, out, x, source, window, strides, dilations)
        src = self.values(source)
        acc = np.zeros(out.shape, src.dtype)
        positions = list(window_positions(window))
        shape = tuple(source.shape)
        if source.size:
            sel = _window_selection(select, self.values(x), positions, shape, strides,
                                    dilations)
            add = _BOOL_BINARY["add"] if out.dtype is _d.bool else np.add
            zero = np.zeros((), src.dtype)
            # position k's windows, last position first: each element's windows in C order
            for k in range(len(positions) - 1, -1, -1):
                hit = sel == k
                if not hit.any():
                    continue
                sl = _window_slices(positions[k], shape, strides, dilations)
                r = _quietly(add, acc[sl], np.where(hit, src, zero))  # + 0 changes nothing
                acc[sl] = bf16_to_f32(f32_to_bf16(r)) if out.dtype is _d.bfloat16 else r
        self.store(out, acc)

    # -- linear algebra --------------------------------------------------------------------------
    def matmul(self, out, a, b):
        shape = tuple(out.shape)
        batch = shape[:-2]
        x, y = self.values(a), self.values(b)
        m, k = x.shape[-2:]
        n = y.shape[-1]
        if y.shape[-2] != k or shape[-2:] != (m, n):
            raise ValueError(f"matmul: shapes {a.shape} @ {b.shape} -> {out.shape} do not match")
        if x.shape[:-2] != batch:
            x = np.broadcast_to(x, batch + (m, k))
        if y.shape[:-2] != batch:
            y = np.broadcast_to(y, batch + (k, n))
        kind = a.dtype.kind
        if k == 0:
            self.store(out, np.zeros(shape, dtype=np.int8))
            return
        fast = _precision.fast()
        narrow = a.dtype in _NARROW
        dst = out._data.reshape(shape)
        if (kind in "biu" or fast and not narrow) and dst.dtype == x.dtype == y.dtype:
            # exact integers, or BLAS in the dtype: NumPy's product straight into the output
            _quietly(np.matmul, x, y, dst)
            return
        if kind in "biu":
            r = np.matmul(x, y)
        elif fast:  # BLAS in float32 for float16/bfloat16, rounded once
            r = _quietly(np.matmul, x.astype(np.float32), y.astype(np.float32))
        elif a.dtype is _d.float64:
            r = _quietly(_seq_matmul, x, y)
        elif kind == "f":
            r = _quietly(_narrow_matmul, x.astype(np.float64), y.astype(np.float64), a.dtype)
        else:
            r = _quietly(_seq_cmatmul, x.astype(np.complex128), y.astype(np.complex128))
        self.store(out, r)

    # -- indexing --------------------------------------------------------------------------------
    def gather(self, out, x, axis, indices):
        if tuple(indices.shape) != tuple(out.shape):
            raise ValueError(f"gather: indices shape {indices.shape} != out shape {out.shape}")
        src = self.view(x)
        index = []
        for d, (nx, no) in enumerate(zip(x.shape, out.shape)):
            if d == axis or nx == no or nx == 1:
                index.append(slice(None))
            elif nx > no:
                index.append(slice(0, no))
            else:
                raise ValueError(f"gather: x has {nx} elements along axis {d}, the indices "
                                 f"need {no}")
        src = src[tuple(index)]
        src = np.broadcast_to(src, tuple(src.shape[axis] if d == axis else no
                                         for d, no in enumerate(out.shape)))
        idx = _clamped_indices(self.view(indices), x.shape[axis], axis, "gather")
        out._data.reshape(out.shape)[...] = _take_along(src, idx, axis)

    def scatter(self, op, out, axis, indices, updates):
        check_scatter(op, out, axis, indices, updates)
        dt = out.dtype
        k = dt.kind
        if op in ("min", "max"):
            _refuse_complex(f"scatter-{op}", dt)
        idx = _clamped_indices(self.view(indices), out.shape[axis], axis, "scatter")
        # Flat positions in out's buffer of every update, in C order of the updates.
        flat = np.full(idx.shape, out.offset, dtype=np.int64)
        for d, n in enumerate(idx.shape):
            shape = [1] * idx.ndim
            shape[d] = n
            coord = idx if d == axis else np.arange(n, dtype=np.int64).reshape(shape)
            flat = flat + coord * out.strides[d]
        flat = flat.reshape(-1)
        buf = out._data
        if op == "set":
            upd = np.broadcast_to(self.view(updates), idx.shape).reshape(-1)
            # Last duplicate wins: keep each position's last occurrence.
            _, first_rev = np.unique(flat[::-1], return_index=True)
            keep = flat.size - 1 - first_rev
            buf[flat[keep]] = upd[keep]
            return
        upd = np.broadcast_to(self.values(updates), idx.shape).reshape(-1)
        if k == "b":
            ufunc = np.logical_or if op in ("add", "max") else np.logical_and
            ufunc.at(buf, flat, upd)
            return
        if k in "iu":
            ufunc = {"add": np.add, "max": np.maximum, "min": np.minimum}[op]
            ufunc.at(buf, flat, upd)
            return
        touched = np.unique(flat)
        current = to_compute(buf, dt)
        if op == "add":
            wide = np.complex128 if k == "c" else np.float64
            with np.errstate(all="ignore"):  # (signalling NaNs met in the casts stay NaN)
                acc = current.astype(wide)
                np.add.at(acc, flat, upd.astype(wide))
            buf[touched] = from_compute(acc[touched], dt)
            return
        keys = _float_keys(current, op)
        (np.maximum if op == "max" else np.minimum).at(keys, flat, _float_keys(upd, op))
        buf[touched] = from_compute(_keys_to_floats(keys[touched], current.dtype), dt)

    # -- sorting ---------------------------------------------------------------------------------
    def sort(self, out, x, axis, descending):
        if x.size == 0:
            return
        idx = _stable_argsort(self.values(x), axis, descending)
        out._data.reshape(out.shape)[...] = _take_along(self.view(x), idx, axis)

    def argsort(self, out, x, axis, descending):
        if x.size == 0:
            return
        self.store(out, _stable_argsort(self.values(x), axis, descending))

    # -- random ----------------------------------------------------------------------------------
    def random_bits(self, out, key, counter):
        if out.dtype is not _d.uint32:
            raise TypeError(f"random_bits: out must be uint32, got {out.dtype}")
        from ._philox import philox_words_numpy

        words = philox_words_numpy(tuple(int(w) for w in key), int(counter), out.size)
        out._data.reshape(out.shape)[...] = words.reshape(out.shape)

