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


def r32(x: float) -> float:
    """One float rounded to float32 (nearest even; overflow -> inf)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def r16(x: float) -> float:
    """One float rounded to float16 (nearest even, directly from the double)."""
    try:
        return _F16.unpack(_F16.pack(x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def rbf16(x: float) -> float:
    return round_bf16([x])[0]


def round_f32(vals: list) -> list:
    """Floats -> float32 values (as Python floats)."""
    return array("f", vals).tolist()


def round_f16(vals: list) -> list:
    n = len(vals)
    try:
        return list(struct.unpack(f"<{n}e", struct.pack(f"<{n}e", *vals)))
    except OverflowError:
        return [r16(v) for v in vals]


def f32_bits(vals: list) -> list:
    """Floats -> their float32 bit patterns (after rounding to float32)."""
    a = array(_U32, array("f", vals).tobytes())
    return a.tolist()


def bits_f32(bits: list) -> list:
    """float32 bit patterns -> Python floats."""
    return array("f", array(_U32, bits).tobytes()).tolist()


def bf16_bits(vals: list) -> list:
    """Floats -> bfloat16 bits: round to float32, then to bfloat16 nearest even; NaN stays a
    quiet NaN (``cpu_numpy.f32_to_bf16``)."""
    return [((b + 0x7FFF + ((b >> 16) & 1)) >> 16) if (b & 0x7FFFFFFF) <= 0x7F800000
            else ((b >> 16) | 0x40) for b in f32_bits(vals)]


def bits_bf16(bits: list) -> list:
    return bits_f32([b << 16 for b in bits])


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


def convert(vals: list, src_kind: str, dt) -> list:
    """Values whose Python type is given by ``src_kind`` (b, i/u, f, c) -> canonical values of
    ``dt`` with webtensor's cast semantics."""
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
        return round_float(vals, dt)
    # complex
    part = dt.real_dtype
    if sk == "c":
        if part is _d.float64:
            return list(vals)
        re = round_f32([v.real for v in vals])
        im = round_f32([v.imag for v in vals])
        return [complex(r, i) for r, i in zip(re, im)]
    return [complex(r, 0.0) for r in convert(vals, sk, part)]


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
    if dt is _d.bool:
        return bytes(vals)
    if dt is _d.float16:
        return struct.pack(f"<{len(vals)}e", *vals)
    if dt is _d.bfloat16:
        a = array(_U16, bf16_bits(vals))
    elif dt.kind == "c":
        a = array("f" if dt is _d.complex64 else "d",
                  [p for z in vals for p in (z.real, z.imag)])
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
    if dt is _d.float16:
        return list(struct.unpack(f"<{len(data) // 2}e", data))
    if dt is _d.bfloat16:
        a = array(_U16)
    elif dt.kind == "c":
        a = array("f" if dt is _d.complex64 else "d")
    else:
        a = array(_CODES[dt])
    a.frombytes(data)
    if _BIG:
        a.byteswap()
    if dt is _d.bfloat16:
        return bits_bf16(a.tolist())
    vals = a.tolist()
    if dt.kind == "c":
        return [complex(r, i) for r, i in zip(vals[0::2], vals[1::2])]
    return vals


ZERO = {dt: (False if dt.kind == "b" else 0 if dt.kind in "iu" else 0.0 if dt.kind == "f"
             else 0j) for dt in _d.all_dtypes}
