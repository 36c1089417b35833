"""Pure-Python value codecs of the 15 dtypes (no NumPy): rounding, wrapping, casting, bytes.

The pure-Python backend stores a buffer as a list of canonical Python values: ``bool`` for
bool, ``int`` in range for the integer dtypes, ``float`` holding exactly a representable value
for the float dtypes (float16/bfloat16/float32 included) and ``complex`` with representable
parts.  Every write goes through :func:`convert`, which applies the dtype's semantics exactly as
``cpu_numpy.from_compute`` does: integers wrap (two's complement), floats round to nearest even
(overflow -> inf), float -> int truncates with NaN -> 0 and saturation, complex -> real drops the
imaginary part, anything -> bfloat16 goes through float32.

Bulk conversions use ``array('f')`` (C's double -> float cast, round to nearest even) and
``struct``'s ``'e'`` format (correctly rounded double -> half), which keep the per-element cost
low.  NaN payloads are not preserved beyond sign and quietness (Python floats quiet signaling
NaNs; ``struct`` canonicalizes half NaNs).
"""

from __future__ import annotations

import math
import struct
import sys
from array import array

from .. import dtypes as _d

INF = math.inf
NAN = math.nan  # the canonical quiet NaN: positive, payload 0 (0x7FC00000 as float32)
# NOTE: the NaN an invalid operation produces in hardware (x86: negative).  Ops that Python
# refuses (sqrt(-1), 0/0...) return it so the bytes match NumPy's, which runs the hardware op.
DEFAULT_NAN = INF - INF

_BIG = sys.byteorder == "big"
_TWO53 = 1 << 53


def _typecode(kind: str, size: int) -> str:
    for code in {"i": "bhilq", "u": "BHILQ", "f": "fd"}[kind]:
        if array(code).itemsize == size:
            return code
    raise RuntimeError(f"no array typecode for {kind}{size * 8}")  # pragma: no cover


_CODES = {
    _d.int8: "b", _d.uint8: "B",
    _d.int16: _typecode("i", 2), _d.uint16: _typecode("u", 2),
    _d.int32: _typecode("i", 4), _d.uint32: _typecode("u", 4),
    _d.int64: _typecode("i", 8), _d.uint64: _typecode("u", 8),
    _d.float32: "f", _d.float64: "d",
}
_U16 = _typecode("u", 2)
_U32 = _typecode("u", 4)


def int_range(dt) -> tuple[int, int]:
    if dt.kind == "u":
        return 0, (1 << dt.bits) - 1
    return -(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1


_RANGES = {dt: int_range(dt) for dt in _d.all_int_dtypes}


# -- integers ----------------------------------------------------------------------------------------

def wrap(vals: list, dt) -> list:
    """Python ints -> ``dt``'s range, two's complement wrap."""
    if not vals:
        return []
    lo, hi = _RANGES[dt]
    if lo <= min(vals) and max(vals) <= hi:
        return vals
    mask = (1 << dt.bits) - 1
    if dt.kind == "u":
        return [v & mask for v in vals]
    half = 1 << (dt.bits - 1)
    return [((v + half) & mask) - half for v in vals]


def wrap1(v: int, dt) -> int:
    lo, hi = _RANGES[dt]
    if lo <= v <= hi:
        return v
    mask = (1 << dt.bits) - 1
    if dt.kind == "u":
        return v & mask
    half = 1 << (dt.bits - 1)
    return ((v + half) & mask) - half


def float_to_int(vals: list, dt) -> list:
    """Floats -> ``dt``: truncate toward zero, NaN -> 0, out of range saturates."""
    lo, hi = _RANGES[dt]
    flo, fhi = float(lo), float(hi)
    return [(hi if v >= fhi else lo if v <= flo else int(v)) if v == v else 0 for v in vals]


# -- floats ------------------------------------------------------------------------------------------

_F32 = struct.Struct("<f")
_F16 = struct.Struct("<e")
_D64 = struct.Struct("<d")
_Q64 = struct.Struct("<Q")
_EXP64 = 0x7FF0000000000000
_SIG64 = 0x000FFFFFFFFFFFFF

# NOTE: a narrow NaN is kept as the double NaN with the same sign and its payload in the top
# bits (what C's float -> double conversion gives a quiet NaN).  The C casts used below quiet
# signaling NaNs and ``struct``'s half format drops payloads, so NaNs are encoded and decoded
# by hand, as NumPy's conversions (npy_half, C casts) treat them.


def has_nan(vals: list) -> bool:
    s = sum(vals)  # NaN if any element is NaN (or inf - inf: a false alarm, handled below)
    return s != s


def _double_bits(x: float) -> int:
    return _Q64.unpack(_D64.pack(x))[0]


def _double(bits: int) -> float:
    return _D64.unpack(_Q64.pack(bits))[0]


def _f32_nan_bits(x: float) -> int:
    d = _double_bits(x)
    sig = (d & _SIG64) >> 29
    return ((d >> 32) & 0x80000000) | 0x7F800000 | (sig or 0x400000)


def _f32_bits_nan(b: int) -> float:
    return _double(((b & 0x80000000) << 32) | _EXP64 | ((b & 0x7FFFFF) << 29))


def _f16_nan_bits(x: float) -> int:
    """NumPy's ``npy_double_to_half`` for a NaN: the top payload bits, kept a NaN."""
    d = _double_bits(x)
    sig = (d & _SIG64) >> 42
    return ((d >> 48) & 0x8000) | 0x7C00 | (sig or 1)


def _f16_bits_nan(h: int) -> float:
    return _double(((h & 0x8000) << 48) | _EXP64 | ((h & 0x3FF) << 42))


def r32(x: float) -> float:
    """One float rounded to float32 (nearest even; overflow -> inf)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def r16(x: float) -> float:
    """One float rounded to float16 (nearest even, directly from the double)."""
    if x != x:
        return _f16_bits_nan(_f16_nan_bits(x))
    try:
        return _F16.unpack(_F16.pack(x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def rbf16(x: float) -> float:
    return round_bf16([x])[0]


def round_f32(vals: list) -> list:
    """Floats -> float32 values (as Python floats)."""
    return array("f", vals).tolist()


def f16_bits(vals: list) -> list:
    """Floats -> float16 bit patterns, rounding to nearest even (overflow -> inf)."""
    n = len(vals)
    try:
        bits = list(struct.unpack(f"<{n}H", struct.pack(f"<{n}e", *vals)))
    except OverflowError:
        bits = [_H16.unpack(_F16.pack(r16(v)))[0] for v in vals]
    if has_nan(vals):
        for i, v in enumerate(vals):
            if v != v:
                bits[i] = _f16_nan_bits(v)
    return bits


def bits_f16(bits: list) -> list:
    n = len(bits)
    vals = list(struct.unpack(f"<{n}e", struct.pack(f"<{n}H", *bits)))
    if has_nan(vals):
        for i, h in enumerate(bits):
            if (h & 0x7C00) == 0x7C00 and h & 0x3FF:
                vals[i] = _f16_bits_nan(h)
    return vals


def round_f16(vals: list) -> list:
    if not has_nan(vals):
        n = len(vals)
        try:
            return list(struct.unpack(f"<{n}e", struct.pack(f"<{n}e", *vals)))
        except OverflowError:
            return [r16(v) for v in vals]
    return bits_f16(f16_bits(vals))


_H16 = struct.Struct("<H")


def f32_bits(vals: list) -> list:
    """Floats -> their float32 bit patterns (after rounding to float32)."""
    bits = array(_U32, array("f", vals).tobytes()).tolist()
    if has_nan(vals):
        for i, v in enumerate(vals):
            if v != v:
                bits[i] = _f32_nan_bits(v)
    return bits


def bits_f32(bits: list) -> list:
    """float32 bit patterns -> Python floats (signaling NaNs kept signaling)."""
    vals = array("f", array(_U32, bits).tobytes()).tolist()
    if has_nan(vals):
        for i, b in enumerate(bits):
            if (b & 0x7F800000) == 0x7F800000 and b & 0x7FFFFF:
                vals[i] = _f32_bits_nan(b)
    return vals


_HI = 0 if _BIG else 1  # index of a float32's high 16 bits among its native uint16 halves


def bf16_bits(vals: list) -> list:
    """Floats -> bfloat16 bits: round to float32, then to bfloat16 nearest even; NaN stays a
    quiet NaN (``cpu_numpy.f32_to_bf16``)."""
    if has_nan(vals):
        return [((b + 0x7FFF + ((b >> 16) & 1)) >> 16) if (b & 0x7FFFFFFF) <= 0x7F800000
                else ((b >> 16) | 0x40) for b in f32_bits(vals)]
    # Round on the 16-bit halves: small-int arithmetic is much cheaper in Python.
    h = array(_U16, array("f", vals).tobytes())
    return [hi + ((lo + (hi & 1) + 0x7FFF) >> 16) for hi, lo in zip(h[_HI::2], h[1 - _HI::2])]


def bf16_exact_bits(vals: list) -> list:
    """Bits of values that are already bfloat16 (no rounding; NaN payloads kept)."""
    if has_nan(vals):
        return [b >> 16 for b in f32_bits(vals)]
    return array(_U16, array("f", vals).tobytes())[_HI::2].tolist()


def bits_bf16(bits: list) -> list:
    a = array(_U16, bytes(4 * len(bits)))
    a[_HI::2] = array(_U16, bits)
    vals = array("f", a.tobytes()).tolist()
    if has_nan(vals):
        for i, b in enumerate(bits):
            if (b & 0x7F80) == 0x7F80 and b & 0x7F:
                vals[i] = _f32_bits_nan(b << 16)
    return vals


def round_bf16(vals: list) -> list:
    return bits_bf16(bf16_bits(vals))


def int_to_f32(v: int) -> float:
    """A Python int correctly rounded to float32 (``float(v)`` would round twice)."""
    if -_TWO53 <= v <= _TWO53:
        return r32(float(v))
    a = -v if v < 0 else v
    n = a.bit_length()
    if n > 129:
        f = INF
    else:
        # Keep 26 bits, rounding to odd (sticky bit): rounding that to 24 bits is exact RNE.
        s = n - 26
        m = a >> s
        if a & ((1 << s) - 1):
            m |= 1
        f = r32(math.ldexp(float(m), s))
    return -f if v < 0 else f


def int_to_f64(v: int) -> float:
    try:
        return float(v)
    except OverflowError:
        return -INF if v < 0 else INF


def ints_to_float(vals: list, dt) -> list:
    """Python ints (any size) -> values of the real float dtype ``dt``."""
    if not vals:
        return []
    small = min(vals) >= -_TWO53 and max(vals) <= _TWO53
    if dt is _d.float64:
        return [float(v) for v in vals] if small else [int_to_f64(v) for v in vals]
    if dt is _d.float16:
        return round_f16([float(v) for v in vals] if small else [int_to_f64(v) for v in vals])
    f32 = array("f", vals).tolist() if small else [int_to_f32(v) for v in vals]
    return round_bf16(f32) if dt is _d.bfloat16 else f32


def round_float(vals: list, dt) -> list:
    """Python floats -> values of the real float dtype ``dt``."""
    if dt is _d.float64:
        return vals
    if dt is _d.float32:
        return round_f32(vals)
    if dt is _d.float16:
        return round_f16(vals)
    return round_bf16(vals)


def scalar_rounder(dt):
    """A one-value rounding function for the float dtype ``dt`` (identity for float64)."""
    return {_d.float64: float, _d.float32: r32, _d.float16: r16, _d.bfloat16: rbf16}[dt]


# -- conversions between dtypes ---------------------------------------------------------------------

_KIND_OF_SRC = {"b": "b", "i": "i", "u": "i", "f": "f", "c": "c"}


def _signaling_nans(out: list, vals: list, src, dst) -> list:
    """Signaling NaNs through a float conversion, as NumPy's casts treat them: half -> float
    and bfloat16 -> float32 move bits (kept signaling), C's float -> double cast quiets."""
    src, dst = src.real_dtype, dst.real_dtype
    keep = dst is _d.float32 and src in (_d.float16, _d.bfloat16, _d.float32)
    quiet = dst is _d.float64 and src in (_d.float32, _d.bfloat16)
    if not (keep or quiet) or not has_nan(vals):
        return out
    out = list(out)
    for i, v in enumerate(vals):
        if v != v:
            out[i] = v if keep else _double(_double_bits(v) | (1 << 51))
    return out


def convert(vals: list, src_kind: str, dt, src_dt=None) -> list:
    """Values whose Python type is given by ``src_kind`` (b, i/u, f, c) -> canonical values of
    ``dt`` with webtensor's cast semantics (``src_dt``: the values' dtype, when known)."""
    sk = _KIND_OF_SRC[src_kind]
    dk = dt.kind
    if dk == "b":
        return list(vals) if sk == "b" else [v != 0 for v in vals]
    if dk in "iu":
        if sk == "b":
            return [int(v) for v in vals]
        if sk == "i":
            return wrap(vals, dt)
        if sk == "c":
            vals = [v.real for v in vals]
        return float_to_int(vals, dt)
    if dk == "f":
        if sk == "c":
            vals = [v.real for v in vals]
        elif sk == "b":
            vals = [1.0 if v else 0.0 for v in vals]
        elif sk == "i":
            return ints_to_float(vals, dt)
        out = round_float(vals, dt)
        return out if src_dt is None else _signaling_nans(out, vals, src_dt, dt)
    # complex
    part = dt.real_dtype
    if sk == "c":
        re, im = [v.real for v in vals], [v.imag for v in vals]
        if part is _d.float32:
            re, im = round_f32(re), round_f32(im)
        if src_dt is not None:
            re = _signaling_nans(re, [v.real for v in vals], src_dt, part)
            im = _signaling_nans(im, [v.imag for v in vals], src_dt, part)
        return [complex(r, i) for r, i in zip(re, im)]
    return [complex(r, 0.0) for r in convert(vals, sk, part, src_dt)]


def _py_kind(v) -> str:
    if isinstance(v, bool):
        return "b"
    if isinstance(v, int):
        return "i"
    if isinstance(v, float):
        return "f"
    if isinstance(v, complex):
        return "c"
    for kind, conv in (("i", "__index__"), ("f", "__float__"), ("c", "__complex__")):
        if hasattr(v, conv):
            return kind
    raise TypeError(f"cannot store {v!r} ({type(v).__name__}) in a tensor; use bool, int, "
                    f"float or complex values")


_PLAIN = {"b": bool, "i": int, "f": float, "c": complex}
_EXACT = {bool: "b", int: "i", float: "f", complex: "c"}


def from_python(values, dt) -> list:
    """Any Python scalars (mixed kinds allowed) -> canonical values of ``dt``."""
    values = list(values)
    kinds = [_EXACT.get(v.__class__) for v in values]
    distinct = set(kinds)
    if len(distinct) == 1 and None not in distinct:
        return convert(values, kinds[0], dt)
    groups: dict[str, list[int]] = {}
    for i, (v, kind) in enumerate(zip(values, kinds)):
        if kind is None:
            kind = _py_kind(v)
            values[i] = _PLAIN[kind](v)
        groups.setdefault(kind, []).append(i)
    out = [None] * len(values)
    for kind, idx in groups.items():
        for i, c in zip(idx, convert([values[i] for i in idx], kind, dt)):
            out[i] = c
    return out


# -- bytes (NumPy's layout: little endian, bool one byte, complex as pairs) ----------------------------

def to_bytes(vals: list, dt) -> bytes:
    """Canonical values of ``dt`` -> NumPy's bytes (NaN payloads kept)."""
    if dt is _d.bool:
        return bytes(vals)
    if dt is _d.float16:
        a = array(_U16, f16_bits(vals))
    elif dt is _d.bfloat16:
        a = array(_U16, bf16_exact_bits(vals))
    elif dt is _d.float32:
        a = array(_U32, f32_bits(vals))
    elif dt is _d.complex64:
        a = array(_U32, f32_bits([p for z in vals for p in (z.real, z.imag)]))
    elif dt is _d.complex128:
        a = array("d", [p for z in vals for p in (z.real, z.imag)])
    else:
        a = array(_CODES[dt], vals)
    if _BIG:
        a.byteswap()
    return a.tobytes()


def from_bytes(data, dt) -> list:
    data = bytes(data)
    if len(data) % dt.itemsize:
        raise ValueError(f"from_bytes: {len(data)} bytes is not a whole number of {dt.name} "
                         f"elements ({dt.itemsize} bytes each)")
    if dt is _d.bool:
        return [b != 0 for b in data]
    if dt.itemsize == 2 and dt.kind == "f":
        a = array(_U16)
    elif dt in (_d.float32, _d.complex64):
        a = array(_U32)
    elif dt is _d.complex128:
        a = array("d")
    else:
        a = array(_CODES[dt])
    a.frombytes(data)
    if _BIG:
        a.byteswap()
    vals = a.tolist()
    if dt is _d.float16:
        return bits_f16(vals)
    if dt is _d.bfloat16:
        return bits_bf16(vals)
    if dt in (_d.float32, _d.complex64):
        vals = bits_f32(vals)
    if dt.kind == "c":
        return [complex(r, i) for r, i in zip(vals[0::2], vals[1::2])]
    return vals


ZERO = {dt: (False if dt.kind == "b" else 0 if dt.kind in "iu" else 0.0 if dt.kind == "f"
             else 0j) for dt in _d.all_dtypes}
