"""Elementwise ops of the pure-Python backend, on flat lists of canonical values.

``UNARY[op](vals, dt)`` and ``BINARY[op](a, b, dt)`` take the inputs' values (dtype ``dt``) and
return the results as "natural" Python values of the output dtype (ints not yet wrapped, floats
not yet rounded); the backend's store step applies the output dtype's semantics.

Bit-for-bit agreement with ``cpu_numpy`` rests on three facts: +, -, *, / and sqrt computed in
float64 and rounded once to float32/float16/bfloat16 equal the correctly rounded narrow result
(double rounding is innocuous when 53 >= 2p + 2); multi-step algorithms (floor division, complex
products and quotients) are replayed operation by operation with the same rounding NumPy
applies; and where NumPy's own result depends on the CPU (FMA in complex products, SIMD ``abs``
of complex) ``cpu_numpy`` computes with explicit real operations that this module mirrors.
"""

from __future__ import annotations

import cmath
import math
import struct

from .. import dtypes as _d
from .. import ops as _ops
from . import _annex_g
from . import _pycodec as _c

INF = math.inf
NAN = math.nan
DNAN = _c.DEFAULT_NAN
_F32_FAMILY = (_d.float16, _d.bfloat16, _d.float32)

_isinf = math.isinf
_isfinite = math.isfinite
_copysign = math.copysign


def _div(x: float, y: float) -> float:
    """IEEE division (Python raises on a zero divisor)."""
    if y:
        return x / y
    if x != x:
        return x
    if x == 0:
        return DNAN
    return INF if (_copysign(1.0, x) > 0) == (_copysign(1.0, y) > 0) else -INF


def _floats(vals, dt) -> list:
    """Inputs as floats (for float-valued ops that received ints or bools)."""
    if dt.kind == "f":
        return vals
    return [float(v) for v in vals]


def _parts(vals):
    return [z.real for z in vals], [z.imag for z in vals]


def _part_rounder(dt):
    """List rounding to a complex dtype's part precision (None for complex128)."""
    return _c.round_f32 if dt is _d.complex64 else None


# -- complex arithmetic, replayed as cpu_numpy computes it ---------------------------------------------

def cmul(a: list, b: list, dt) -> list:
    """(ar*br - ai*bi, ar*bi + ai*br), each operation rounded to the part precision."""
    ar, ai = _parts(a)
    br, bi = _parts(b)
    r = _part_rounder(dt)
    if r is None:
        return [complex(w * y - x * z, w * z + x * y) for w, x, y, z in zip(ar, ai, br, bi)]
    p1 = r([w * y for w, y in zip(ar, br)])
    p2 = r([x * z for x, z in zip(ai, bi)])
    p3 = r([w * z for w, z in zip(ar, bi)])
    p4 = r([x * y for x, y in zip(ai, br)])
    re = r([p - q for p, q in zip(p1, p2)])
    im = r([p + q for p, q in zip(p3, p4)])
    return [complex(p, q) for p, q in zip(re, im)]


def _cdiv1(ar, ai, br, bi, r):
    """NumPy's complex division (Smith's method), every operation rounded by ``r``."""
    abr, abi = abs(br), abs(bi)
    if abr >= abi:
        if abr == 0 and abi == 0:
            return complex(_div(ar, abr), _div(ai, abr))
        rat = r(_div(bi, br))
        scl = r(_div(1.0, r(br + r(bi * rat))))
        return complex(r(r(ar + r(ai * rat)) * scl), r(r(ai - r(ar * rat)) * scl))
    rat = r(_div(br, bi))
    scl = r(_div(1.0, r(bi + r(br * rat))))
    return complex(r(r(r(ar * rat) + ai) * scl), r(r(r(ai * rat) - ar) * scl))


def cdiv(a: list, b: list, dt) -> list:
    r = _c.r32 if dt is _d.complex64 else float
    return [_cdiv1(x.real, x.imag, y.real, y.imag, r) for x, y in zip(a, b)]


def cabs1(re: float, im: float, dt) -> float:
    """|z| as cpu_numpy computes it (complex64: in float64, rounded once by the caller)."""
    x, y = abs(re), abs(im)
    if x == INF or y == INF:
        return INF
    if x != x or y != y:
        return DNAN  # the canonical NaN, whatever the parts' NaN bits
    if dt is _d.complex64:
        return math.sqrt(x * x + y * y)
    hi, lo = (x, y) if x >= y else (y, x)
    if hi == 0:
        return 0.0
    e = math.frexp(hi)[1]
    hs = math.ldexp(hi, -e)
    ls = math.ldexp(lo, -e)
    try:
        return math.ldexp(math.sqrt(hs * hs + ls * ls), e)
    except OverflowError:
        return INF


def cabs(vals: list, dt) -> list:
    return [cabs1(z.real, z.imag, dt) for z in vals]


def csign(vals: list, dt) -> list:
    mags = cabs(vals, dt)
    if dt is _d.complex64:
        mags = _c.round_f32(mags)
        r = _c.r32
    else:
        r = float
    # z / |z|; 0 at 0; NaN + NaN j (the canonical NaN) where a part is NaN (Array API)
    return [complex(DNAN, DNAN) if z.real != z.real or z.imag != z.imag else
            0j if m == 0 else complex(r(_div(z.real, m)), r(_div(z.imag, m)))
            for z, m in zip(vals, mags)]


_SQRT_BIG = 2.0 ** 1020
_SQRT_TINY = 2.0 ** -1020


def csqrt1(re: float, im: float) -> complex:
    """Principal square root (Kahan's formula in float64, C99 special values); cpu_numpy
    evaluates the same steps on arrays."""
    if im == INF or im == -INF:
        return complex(INF, im)
    if re != re:
        return complex(re, re)
    if re == INF:
        return complex(INF, im if im != im else _copysign(0.0, im))
    if re == -INF:
        return complex(im if im != im else 0.0, _copysign(INF, im))
    if im != im:
        return complex(im, im)
    if re == 0 and im == 0:
        return complex(0.0, im)
    big = max(abs(re), abs(im))
    if big >= _SQRT_BIG:
        re, im, unscale = re * 0.25, im * 0.25, 2.0
    elif big < _SQRT_TINY:
        re, im, unscale = re * 2.0 ** 108, im * 2.0 ** 108, 2.0 ** -54
    else:
        unscale = 1.0
    mag = cabs1(re, im, _d.complex128)
    t = math.sqrt((abs(re) + mag) * 0.5)
    if re >= 0:
        out_re, out_im = t, im / (2.0 * t)
    else:
        out_re, out_im = abs(im) / (2.0 * t), _copysign(t, im)
    return complex(out_re * unscale, out_im * unscale)


def csqrt(vals: list, dt) -> list:
    return [csqrt1(z.real, z.imag) for z in vals]


# -- float helpers -----------------------------------------------------------------------------------

def _round_half_even(v: float) -> float:
    if not _isfinite(v):
        return v
    return _copysign(float(round(v)), v)


def _ceil(v):
    return _copysign(float(math.ceil(v)), v) if _isfinite(v) else v


def _floor(v):
    return _copysign(float(math.floor(v)), v) if _isfinite(v) else v


def _trunc(v):
    return _copysign(float(math.trunc(v)), v) if _isfinite(v) else v


def _fmod(a, b):
    try:
        return math.fmod(a, b)
    except ValueError:
        return DNAN


def _divmod(a, b, r):
    """NumPy's ``npy_divmod`` (CPython's float divmod), each operation rounded by ``r``;
    ``b`` is nonzero (or NaN)."""
    mod = _fmod(a, b)
    div = r(r(a - mod) / b)
    if mod:
        if (b < 0) != (mod < 0):
            mod = r(mod + b)
            div = r(div - 1.0)
    else:
        mod = _copysign(0.0, b)
    if div:
        floordiv = _floor(div)
        if r(div - floordiv) > 0.5:
            floordiv = r(floordiv + 1.0)
    else:
        floordiv = _copysign(0.0, _div(a, b))
    return floordiv, mod


def _compute_rounder(dt):
    """float32 arithmetic for float16/bfloat16/float32 (NumPy computes half in float)."""
    return _c.r32 if dt in _F32_FAMILY else float


def _ffloordiv(a, b, dt):
    r = _compute_rounder(dt)
    out = []
    for x, y in zip(a, b):
        if y == 0:
            out.append(_div(x, y))
        elif _isinf(x) != _isinf(y) and x == x and y == y and x != 0:
            # Array API (not NumPy): inf // finite and finite // inf are floor(x / y), which is
            # x / y itself (+-inf or a signed zero)
            out.append(x / y)
        else:
            out.append(_divmod(x, y, r)[0])
    return out


def _fremainder(a, b, dt):
    r = _compute_rounder(dt)
    return [_fmod(x, y) if y == 0 else _divmod(x, y, r)[1] for x, y in zip(a, b)]


def _is_odd_int(y: float) -> bool:
    return _isfinite(y) and y == math.floor(y) and math.fmod(y, 2.0) != 0


def fpow(x: float, y: float) -> float:
    try:
        return math.pow(x, y)
    except OverflowError:
        return -INF if x < 0 and _is_odd_int(y) else INF
    except ValueError:
        if x == 0:
            return _copysign(INF, x) if _is_odd_int(y) else INF
        return DNAN


def _ipow(a, b, dt):
    mod = 1 << dt.bits
    return [pow(x, y, mod) if y >= 0 else
            1 if x == 1 else (1 if y % 2 == 0 else -1) if x == -1 else 0
            for x, y in zip(a, b)]


def _nextafter_c(bits_of, from_bits, smallest, r):
    """C's nextafter on a binary format given by bit conversion functions (``r`` is None: a
    NaN operand gives the canonical NaN, as cpu_numpy's bfloat16 version does)."""
    def step(x, y):
        if x != x or y != y:
            return NAN if r is None else r(x + y)
        if x == y:
            return y
        if x == 0:
            return _copysign(smallest, y)
        b = bits_of(x)
        return from_bits(b + 1 if (x < y) == (x > 0) else b - 1)
    return step


def _f32_bits1(x):
    return _c.f32_bits([x])[0]


def _bits_f32_1(b):
    return _c.bits_f32([b])[0]


def _bf16_bits1(x):
    return _c.bf16_bits([x])[0]


def _bits_bf16_1(b):
    return _c.bits_bf16([b])[0]


_H = struct.Struct("<H")
_E = struct.Struct("<e")


def _nextafter_half(x, y):
    """NumPy's ``npy_half_nextafter`` as of NumPy 2.5 (equal inputs give y, as C99 says:
    nextafter(0.0, -0.0) is -0.0; NaN gives the canonical NaN)."""
    if x != x or y != y:
        return NAN
    if x == y:
        return y
    if x == 0:
        return _copysign(2.0 ** -24, y)
    b = _H.unpack(_E.pack(x))[0]
    return _E.unpack(_H.pack(b + 1 if (x < y) == (x > 0) else b - 1))[0]


_NEXTAFTER = {
    _d.float64: math.nextafter,
    _d.float32: _nextafter_c(_f32_bits1, _bits_f32_1, 2.0 ** -149, _c.r32),
    _d.bfloat16: _nextafter_c(_bf16_bits1, _bits_bf16_1, 2.0 ** -133, None),
    _d.float16: _nextafter_half,
}


def _logaddexp(x, y):
    if x == y:
        return x + 0.6931471805599453
    tmp = x - y
    if tmp > 0:
        return x + math.log1p(math.exp(-tmp))
    if tmp <= 0:
        return y + math.log1p(math.exp(tmp))
    return tmp


# -- transcendental functions with IEEE results where Python raises --------------------------------

def _special_log(v, at_zero=-INF):
    if v == 0:
        return at_zero
    return DNAN


def _math_specials():
    def overflow_inf(v):
        return INF

    def signed_inf(v):
        return _copysign(INF, v)

    def domain_nan(v):
        return DNAN

    def log_special(v):
        return -INF if v == 0 else DNAN

    def log1p_special(v):
        return -INF if v == -1 else DNAN

    def atanh_special(v):
        return _copysign(INF, v) if abs(v) == 1 else DNAN

    def acosh(v):
        # Pyodide's libm (musl) returns a finite value for some v <= -2 (-13941.39 gives -7.87)
        # instead of a domain error, so the domain is checked here.
        if v < 1:
            raise ValueError(f"acosh({v!r}) is outside the domain [1, inf]")
        return math.acosh(v)

    return {
        "exp": (math.exp, overflow_inf), "expm1": (math.expm1, overflow_inf),
        "log": (math.log, log_special), "log2": (math.log2, log_special),
        "log10": (math.log10, log_special), "log1p": (math.log1p, log1p_special),
        "sqrt": (math.sqrt, domain_nan), "sin": (math.sin, domain_nan),
        "cos": (math.cos, domain_nan), "tan": (math.tan, domain_nan),
        "asin": (math.asin, domain_nan), "acos": (math.acos, domain_nan),
        "atan": (math.atan, domain_nan), "sinh": (math.sinh, signed_inf),
        "cosh": (math.cosh, overflow_inf), "tanh": (math.tanh, domain_nan),
        "asinh": (math.asinh, domain_nan), "acosh": (acosh, domain_nan),
        "atanh": (math.atanh, atanh_special),
    }


_MATH = _math_specials()


def _map_real(name, vals):
    fn, special = _MATH[name]
    try:
        return [fn(v) for v in vals]
    except (ValueError, OverflowError):
        out = []
        for v in vals:
            try:
                out.append(fn(v))
            except (ValueError, OverflowError):
                out.append(special(v))
        return out


def _cexp_special(z):
    """exp of a finite ``z`` that overflows (cmath raises): ``e^x cis(y)`` with e^x = inf."""
    if not (_isfinite(z.real) and _isfinite(z.imag)):
        return _annex_g.exp(z)
    re, im = z.real, z.imag
    if im == 0:
        return complex(INF, im)
    try:  # e^x = (e^(x/2))^2: a part such as e^x sin(y) may still be finite
        half = math.exp(re / 2)
    except OverflowError:
        half = INF
    return complex(half * math.cos(im) * half, half * math.sin(im) * half)


def _big_cosh_sinh(x):
    """(cosh x, sinh x) with overflow to infinity."""
    try:
        return math.cosh(x), math.sinh(x)
    except OverflowError:
        return INF, _copysign(INF, x)


def _mul0(big, small):
    """``big * small`` where an exact zero ``small`` keeps the sign product (C99's inf * 0)."""
    if small == 0:
        return _copysign(0.0, small) if big > 0 else -_copysign(0.0, small)
    return big * small


def _csinh_overflow(z):
    ch, sh = _big_cosh_sinh(z.real)
    return complex(_mul0(sh, math.cos(z.imag)), _mul0(ch, math.sin(z.imag)))


def _ccosh_overflow(z):
    ch, sh = _big_cosh_sinh(z.real)
    return complex(_mul0(ch, math.cos(z.imag)), _mul0(sh, math.sin(z.imag)))


def _csin_overflow(z):
    w = _csinh_overflow(complex(-z.imag, z.real))  # sin z = -i sinh(iz)
    return complex(w.imag, -w.real)


def _ccos_overflow(z):
    return _ccosh_overflow(complex(-z.imag, z.real))  # cos z = cosh(iz)


# finite inputs whose result overflows (cmath raises OverflowError): the formulas with inf
_OVERFLOWS = {"exp": _cexp_special, "sinh": _csinh_overflow, "cosh": _ccosh_overflow,
              "sin": _csin_overflow, "cos": _ccos_overflow}


def _clog_special(z):
    if z == 0:
        return complex(-INF, math.atan2(z.imag, z.real))
    return complex(math.log(abs(z)) if abs(z) != INF else INF, math.atan2(z.imag, z.real))


def _cnan(z):
    return complex(DNAN, DNAN)


def _finite_or(fn, special):
    """``fn`` (cmath) for finite input, Annex G's ``special`` for an infinite or NaN part
    (cmath signals those, or picks other signs for Annex G's open ones than NumPy does)."""
    def op(z):
        if _isfinite(z.real) and _isfinite(z.imag):
            return fn(z)
        return special(z)
    return op


def _catanh_special(z):
    """The poles: atanh(+-1 + 0i) = +-inf + 0i."""
    if z.imag == 0 and abs(z.real) == 1:
        return complex(_copysign(INF, z.real), z.imag)
    return complex(DNAN, DNAN)


def _catan_special(z):
    # atan(z) = -i atanh(iz)
    w = _catanh_special(complex(-z.imag, z.real))
    return complex(w.imag, -w.real)


def _open_signs(name, fn):
    def op(z):
        return _annex_g.open_sign_choice(name, z) or fn(z)
    return op


_CMATH = {
    **{name: (_finite_or(getattr(cmath, name), getattr(_annex_g, name)),
              _OVERFLOWS.get(name, _cnan))
       for name in ("exp", "sin", "cos", "tan", "sinh", "cosh", "tanh")},
    "log": (cmath.log, _clog_special), "asin": (_open_signs("asin", cmath.asin), _cnan),
    "acos": (_open_signs("acos", cmath.acos), _cnan),
    "atan": (_open_signs("atan", cmath.atan), _catan_special),
    "asinh": (cmath.asinh, _cnan), "acosh": (_open_signs("acosh", cmath.acosh), _cnan),
    "atanh": (cmath.atanh, _catanh_special),
}
_LOG2E = 1.442695040888963407359924681001892137
_LOG10E = 0.434294481903251827651128918916605082


def _cexpm1(z):
    # NumPy's nc_expm1
    a = math.sin(z.imag / 2)
    return complex(math.expm1(z.real) * math.cos(z.imag) - 2 * a * a,
                   math.exp(z.real) * math.sin(z.imag))


def _clog1p(z):
    # NumPy's nc_log1p
    return complex(math.log(math.hypot(z.real + 1, z.imag)), math.atan2(z.imag, z.real + 1))


def _clog_scaled(factor):
    def fn(z):
        w = cmath.log(z)
        return complex(w.real * factor, w.imag * factor)
    return fn


def _clog_scaled_special(factor):
    def fn(z):
        w = _clog_special(z)
        return complex(w.real * factor, w.imag * factor)
    return fn


def _clog1p_special(z):
    return complex(-INF, math.atan2(z.imag, z.real + 1))


_CMATH["expm1"] = (_finite_or(_cexpm1, _annex_g.expm1), _cnan)
_CMATH["log1p"] = (_clog1p, _clog1p_special)
_CMATH["log2"] = (_clog_scaled(_LOG2E), _clog_scaled_special(_LOG2E))
_CMATH["log10"] = (_clog_scaled(_LOG10E), _clog_scaled_special(_LOG10E))


def _map_complex(name, vals):
    """cmath on each value; where cmath raises (C99's invalid/overflow cases) a formula with
    IEEE infinities, else NaN + NaN j (C99 special cases are followed only approximately)."""
    fn, special = _CMATH[name]
    out = []
    for z in vals:
        try:
            out.append(fn(z))
        except (ValueError, OverflowError, ZeroDivisionError):
            try:
                out.append(special(z))
            except (ValueError, OverflowError, ZeroDivisionError):
                out.append(complex(DNAN, DNAN))
    return out


def _transcendental(name):
    def op(vals, dt):
        if dt.kind == "c":
            return _map_complex(name, vals)
        return _map_real(name, _floats(vals, dt))
    return op


def _cmul_annex_g(a: complex, b: complex) -> complex:
    """C99 Annex G complex multiplication (GCC's ``__muldc3``): infinities survive NaN parts."""
    x, y, u, v = a.real, a.imag, b.real, b.imag
    ac, bd, ad, bc = x * u, y * v, x * v, y * u
    re, im = ac - bd, ad + bc
    if re == re or im == im:
        return complex(re, im)
    recalc = False
    if _isinf(x) or _isinf(y):
        x, y = _copysign(1.0 if _isinf(x) else 0.0, x), _copysign(1.0 if _isinf(y) else 0.0, y)
        u, v = (_copysign(0.0, u) if u != u else u), (_copysign(0.0, v) if v != v else v)
        recalc = True
    if _isinf(u) or _isinf(v):
        u, v = _copysign(1.0 if _isinf(u) else 0.0, u), _copysign(1.0 if _isinf(v) else 0.0, v)
        x, y = (_copysign(0.0, x) if x != x else x), (_copysign(0.0, y) if y != y else y)
        recalc = True
    if not recalc and (_isinf(ac) or _isinf(bd) or _isinf(ad) or _isinf(bc)):
        x, y, u, v = (_copysign(0.0, t) if t != t else t for t in (x, y, u, v))
        recalc = True
    if recalc:
        re, im = INF * (x * u - y * v), INF * (x * v + y * u)
    return complex(re, im)


def _cmul1(a: complex, b: complex) -> complex:
    return complex(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


def _clog1(z: complex) -> complex:
    try:
        return cmath.log(z)
    except (ValueError, OverflowError):
        return _clog_special(z)


def _cexp1(z: complex) -> complex:
    if not (_isfinite(z.real) and _isfinite(z.imag)):
        return _annex_g.exp(z)
    try:
        return cmath.exp(z)
    except OverflowError:
        return _cexp_special(z)


# Complex powers with a real integer exponent up to this magnitude are products (exact where
# the powers are representable: 1j ** -2147484672.0 == 1); every device uses the same steps.
POW_INT_LIMIT = 2 ** 32


def cpow1(a: complex, b: complex) -> complex:
    """Complex power, the same steps on every device: 1 for a zero exponent; 0 ** b is 0
    where Re b > 0, else NaN; a real integer exponent by binary powering from the lowest set
    bit (never 1 * a: 1 * inf would make a NaN part), then 1 / a^|n|; else, and where the
    powers overflow, exp(b log a) with Annex G's special values (the Array API's rule)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    if br == 0 and bi == 0:
        return 1 + 0j
    if ar == 0 and ai == 0:
        return 0j if br > 0 else complex(NAN, NAN)
    if bi == 0 and _isfinite(br) and br == int(br) and abs(br) < POW_INT_LIMIT:
        n, p = abs(int(br)), a
        while not n & 1:
            p, n = _cmul1(p, p), n >> 1
        acc, n = p, n >> 1
        while n:
            p = _cmul1(p, p)
            if n & 1:
                acc = _cmul1(acc, p)
            n >>= 1
        finite_a = _isfinite(ar) and _isfinite(ai)
        if not (finite_a and not (_isfinite(acc.real) and _isfinite(acc.imag))):
            return _cdiv1(1.0, 0.0, acc.real, acc.imag, float) if br < 0 else acc
    return _cexp1(_cmul_annex_g(b, _clog1(a)))


# -- Nx's functions: erf family, cbrt, rsqrt, sigmoid, phase, bit counts -------------------------------
#
# Scalar float64 functions shared with ``cpu_numpy`` (which maps the ones NumPy lacks over its
# arrays), so both CPU backends give the same bits.  erf/erfc are the C library's; erf_inv is an
# initial polynomial (the one shaders/float32.wgsl evaluates in float32, accurate to ~1e-9)
# refined by Newton steps on erf (central part) or erfc (tails, where 1 - |x| is exact).

_SQRT_PI_2 = 0.886226925452758  # sqrt(pi) / 2
_ERF_INV_CENTRAL = (  # erf_inv(x) / x as a polynomial in x*x - 0.28, for |x| <= 0.75
    0.9636066134555459, 0.33170873968328857, 0.2480655727813731, 0.23132216382644058,
    0.23960193123748158, 0.26385225937982215, 0.3040337748143943, 0.3614474036955286,
    0.3999789591986832, 0.454632993940178, 0.9727867523350399, 1.3873827581987728)
_ERF_INV_T0 = 1.1774100065231323  # sqrt(log(4)) rounded to float32: where the tail starts
_ERF_INV_TAIL = (  # erfc_inv(w) in t = sqrt(-log w): (t - T0) for t < 2.5, (t - 2.5) beyond
    (0.8134198315235804, 1.0111006965111813, 0.07047483543714803, -0.07213153758989138,
     0.05030911501102073, -0.027574820535159056, 0.011799483262682209,
     -0.003659129615312451, 0.0006938076495608958, -4.4827481022635673e-05,
     -5.083304442821124e-06),
    (2.19254592103715, 1.04698368992371, -0.004649962824138251, -0.0014495499803578711,
     0.0013538262035562186, -0.0006800351596913293, 0.00026321556679767544,
     -7.993276891192849e-05, 1.814984318883328e-05, -2.8474455951860156e-06,
     2.7167995558796676e-07, -1.1775092900734307e-08))


def _horner(coefs, v: float) -> float:
    acc = coefs[-1]
    for c in reversed(coefs[:-1]):
        acc = acc * v + c
    return acc


def erf_inv1(x: float) -> float:
    """The inverse error function of a float64 (NaN outside [-1, 1], +-inf at +-1)."""
    if x != x:
        return x
    a = abs(x)
    if a >= 1.0:
        return _copysign(INF, x) if a == 1.0 else DNAN
    if a <= 0.75:
        y = x * _horner(_ERF_INV_CENTRAL, x * x - 0.28)
        for _ in range(2):  # Newton on erf(y) = x
            if y == 0.0:
                break
            y -= (math.erf(y) - x) * _SQRT_PI_2 * math.exp(y * y)
        return y
    w = 1.0 - a  # exact (Sterbenz)
    t = math.sqrt(-math.log(w))
    y = (_horner(_ERF_INV_TAIL[0], t - _ERF_INV_T0) if t < 2.5
         else _horner(_ERF_INV_TAIL[1], t - 2.5))
    for _ in range(2):  # Newton on erfc(y) = w
        y += (math.erfc(y) - w) * _SQRT_PI_2 * math.exp(y * y)
    return _copysign(y, x)


def sigmoid1(x: float) -> float:
    """1 / (1 + e^-x) without overflow: e^x / (1 + e^x) for negative x."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    if x != x:
        return x
    e = math.exp(x)
    return e / (1.0 + e)


def phase1(z) -> float:
    return math.atan2(z.imag, z.real) if isinstance(z, complex) else math.atan2(0.0, z)


def _real_map(fn):
    def op(vals, dt):
        return [fn(v) for v in _floats(vals, dt)]
    return op


def _rsqrt(vals, dt):
    return [_div(1.0, r) for r in _map_real("sqrt", _floats(vals, dt))]


def _clz(vals, dt):
    bits, mask = dt.bits, (1 << dt.bits) - 1
    return [bits - (v & mask).bit_length() for v in vals]


def _popcount(vals, dt):
    mask = (1 << dt.bits) - 1
    return [(v & mask).bit_count() for v in vals]


NX_UNARY = {
    "cbrt": _real_map(math.cbrt), "erf": _real_map(math.erf), "erfc": _real_map(math.erfc),
    "erf_inv": _real_map(erf_inv1), "rsqrt": _rsqrt, "sigmoid": _real_map(sigmoid1),
    "count_leading_zeros": _clz, "population_count": _popcount,
    "phase": lambda vals, dt: [phase1(v) for v in vals],
}
NX_BINARY = {
    "complex": lambda a, b, dt: [complex(x, y) for x, y in zip(a, b)],
}


# -- the tables ---------------------------------------------------------------------------------------

def _by_kind(b=None, i=None, f=None, c=None):
    """An op dispatching on the input kind (bool, int, float, complex)."""
    table = {"b": b, "i": i, "u": i, "f": f, "c": c}

    def op(*args):
        fn = table[args[-1].kind]
        if fn is None:
            raise TypeError(f"not defined for {args[-1].name}")
        return fn(*args)
    return op


def _copy(vals, dt):
    return list(vals)


def _sqrt(vals, dt):
    if dt.kind == "c":
        return csqrt(vals, dt)
    return _map_real("sqrt", _floats(vals, dt))


def _reciprocal(vals, dt):
    if dt.kind == "c":
        return cdiv([1 + 0j] * len(vals), vals, dt)
    return [_div(1.0, v) for v in _floats(vals, dt)]


def _fsign(vals, dt):
    return [1.0 if v > 0 else -1.0 if v < 0 else 0.0 if v == 0 else v for v in vals]


def _isign(vals, dt):
    return [(v > 0) - (v < 0) for v in vals]


def _cround(vals, dt):
    return [complex(_round_half_even(z.real), _round_half_even(z.imag)) for z in vals]


def _true(vals, dt):
    return [True] * len(vals)


def _false(vals, dt):
    return [False] * len(vals)


UNARY = {
    "abs": _by_kind(b=_copy, i=lambda v, dt: [abs(x) for x in v],
                    f=lambda v, dt: [abs(x) for x in v], c=cabs),
    "reciprocal": _reciprocal,
    "sqrt": _sqrt,
    "negative": _by_kind(i=lambda v, dt: [-x for x in v], f=lambda v, dt: [-x for x in v],
                         c=lambda v, dt: [-x for x in v]),
    "positive": _copy,
    "square": _by_kind(b=lambda v, dt: list(v), i=lambda v, dt: [x * x for x in v],
                       f=lambda v, dt: [x * x for x in v], c=lambda v, dt: cmul(v, v, dt)),
    "sign": _by_kind(b=_copy, i=_isign, f=_fsign, c=csign),
    "conj": _by_kind(b=_copy, i=_copy, f=_copy, c=lambda v, dt: [z.conjugate() for z in v]),
    "ceil": _by_kind(b=_copy, i=_copy, f=lambda v, dt: [_ceil(x) for x in v]),
    "floor": _by_kind(b=_copy, i=_copy, f=lambda v, dt: [_floor(x) for x in v]),
    "trunc": _by_kind(b=_copy, i=_copy, f=lambda v, dt: [_trunc(x) for x in v]),
    "round": _by_kind(b=_copy, i=_copy, f=lambda v, dt: [_round_half_even(x) for x in v],
                      c=_cround),
    "bitwise_invert": _by_kind(b=lambda v, dt: [not x for x in v],
                               i=lambda v, dt: [~x for x in v]),
    "real": _by_kind(b=_copy, i=_copy, f=_copy, c=lambda v, dt: [z.real for z in v]),
    "imag": _by_kind(b=lambda v, dt: [False] * len(v), i=lambda v, dt: [0] * len(v),
                     f=lambda v, dt: [0.0] * len(v), c=lambda v, dt: [z.imag for z in v]),
    "isfinite": _by_kind(b=_true, i=_true, f=lambda v, dt: [_isfinite(x) for x in v],
                         c=lambda v, dt: [_isfinite(z.real) and _isfinite(z.imag) for z in v]),
    "isinf": _by_kind(b=_false, i=_false, f=lambda v, dt: [_isinf(x) for x in v],
                      c=lambda v, dt: [_isinf(z.real) or _isinf(z.imag) for z in v]),
    "isnan": _by_kind(b=_false, i=_false, f=lambda v, dt: [x != x for x in v],
                      c=lambda v, dt: [z != z for z in v]),
    "signbit": _by_kind(b=_false, i=lambda v, dt: [x < 0 for x in v],
                        f=lambda v, dt: [_copysign(1.0, x) < 0 for x in v]),
    "logical_not": lambda v, dt: [not x for x in v],
}
for _name in _ops.UNARY_TRANSCENDENTAL:
    UNARY[_name] = _transcendental(_name)


def _fmax(a, b, dt):
    """NumPy's NaN rule (first NaN operand wins) and IEEE 754-2019's -0 < +0."""
    return [x if x > y or x != x else y if y > x or y != y else (x + y if x == 0 else x)
            for x, y in zip(a, b)]


def _fmin(a, b, dt):
    return [x if x < y or x != x else y if y < x or y != y else (-(-x - y) if x == 0 else x)
            for x, y in zip(a, b)]


def _fmax_num(a, b, dt):
    """fmax: a NaN operand gives way to the other (two NaNs: the first, as NumPy); otherwise
    ``_fmax``'s order."""
    return [x if y != y else y if x != x else
            x if x > y else y if y > x else (x + y if x == 0 else x) for x, y in zip(a, b)]


def _fmin_num(a, b, dt):
    return [x if y != y else y if x != x else
            x if x < y else y if y < x else (-(-x - y) if x == 0 else x) for x, y in zip(a, b)]


def _lshift(a, b, dt):
    bits = dt.bits
    return [x << y if 0 <= y < bits else 0 for x, y in zip(a, b)]


def _rshift(a, b, dt):
    bits = dt.bits
    return [x >> y if 0 <= y < bits else (-1 if x < 0 else 0) for x, y in zip(a, b)]


def _real_binary(fn):
    def op(a, b, dt):
        return [fn(x, y) for x, y in zip(_floats(a, dt), _floats(b, dt))]
    return op


def _fdivide(a, b, dt):
    if dt.kind == "c":
        return cdiv(a, b, dt)
    return [x / y if y else _div(x, y) for x, y in zip(_floats(a, dt), _floats(b, dt))]


def _pow(a, b, dt):
    k = dt.kind
    if k in "iu":
        return _ipow(a, b, dt)
    if k == "c":
        return [cpow1(x, y) for x, y in zip(a, b)]
    return [fpow(x, y) for x, y in zip(_floats(a, dt), _floats(b, dt))]


def _nextafter(a, b, dt):
    step = _NEXTAFTER.get(dt, math.nextafter)
    return [step(x, y) for x, y in zip(_floats(a, dt), _floats(b, dt))]


def _bitwise(fn_name):
    import operator

    fn = getattr(operator, fn_name)

    def op(a, b, dt):
        if dt.kind not in "biu":
            raise TypeError(f"not defined for {dt.name}")
        return [fn(x, y) for x, y in zip(a, b)]
    return op


def _bool_max(a, b, dt):
    return [x or y for x, y in zip(a, b)]


def _bool_min(a, b, dt):
    return [x and y for x, y in zip(a, b)]


def _int_max(a, b, dt):
    return [x if x >= y else y for x, y in zip(a, b)]


def _int_min(a, b, dt):
    return [x if x <= y else y for x, y in zip(a, b)]


BINARY = {
    "add": _by_kind(b=lambda a, b, dt: [x or y for x, y in zip(a, b)],
                    i=lambda a, b, dt: [x + y for x, y in zip(a, b)],
                    f=lambda a, b, dt: [x + y for x, y in zip(a, b)],
                    c=lambda a, b, dt: [x + y for x, y in zip(a, b)]),
    "subtract": _by_kind(b=lambda a, b, dt: [x != y for x, y in zip(a, b)],
                         i=lambda a, b, dt: [x - y for x, y in zip(a, b)],
                         f=lambda a, b, dt: [x - y for x, y in zip(a, b)],
                         c=lambda a, b, dt: [x - y for x, y in zip(a, b)]),
    "multiply": _by_kind(b=lambda a, b, dt: [x and y for x, y in zip(a, b)],
                         i=lambda a, b, dt: [x * y for x, y in zip(a, b)],
                         f=lambda a, b, dt: [x * y for x, y in zip(a, b)], c=cmul),
    "divide": _fdivide,
    "floor_divide": _by_kind(i=lambda a, b, dt: [x // y if y else 0 for x, y in zip(a, b)],
                             f=_ffloordiv),
    "remainder": _by_kind(i=lambda a, b, dt: [x % y if y else 0 for x, y in zip(a, b)],
                          f=_fremainder),
    "pow": _pow,
    # maximum/fmax and minimum/fmin differ only for floats (how a NaN operand counts)
    "maximum": _by_kind(b=_bool_max, i=_int_max, f=_fmax),
    "minimum": _by_kind(b=_bool_min, i=_int_min, f=_fmin),
    "fmax": _by_kind(b=_bool_max, i=_int_max, f=_fmax_num),
    "fmin": _by_kind(b=_bool_min, i=_int_min, f=_fmin_num),
    # the exact result (the store wraps it, as NumPy's gcd(INT_MIN, 0) == INT_MIN)
    "gcd": _by_kind(i=lambda a, b, dt: [math.gcd(x, y) for x, y in zip(a, b)]),
    "lcm": _by_kind(i=lambda a, b, dt: [math.lcm(x, y) for x, y in zip(a, b)]),
    "atan2": _real_binary(math.atan2),
    "hypot": _real_binary(math.hypot),
    "copysign": _real_binary(_copysign),
    "nextafter": _nextafter,
    "logaddexp": _real_binary(_logaddexp),
    "bitwise_and": _bitwise("and_"),
    "bitwise_or": _bitwise("or_"),
    "bitwise_xor": _bitwise("xor"),
    "bitwise_left_shift": _by_kind(i=_lshift),
    "bitwise_right_shift": _by_kind(i=_rshift),
    "equal": lambda a, b, dt: [x == y for x, y in zip(a, b)],
    "not_equal": lambda a, b, dt: [x != y for x, y in zip(a, b)],
    "less": lambda a, b, dt: [x < y for x, y in zip(a, b)],
    "less_equal": lambda a, b, dt: [x <= y for x, y in zip(a, b)],
    "greater": lambda a, b, dt: [x > y for x, y in zip(a, b)],
    "greater_equal": lambda a, b, dt: [x >= y for x, y in zip(a, b)],
    "logical_and": lambda a, b, dt: [bool(x) and bool(y) for x, y in zip(a, b)],
    "logical_or": lambda a, b, dt: [bool(x) or bool(y) for x, y in zip(a, b)],
    "logical_xor": lambda a, b, dt: [bool(x) != bool(y) for x, y in zip(a, b)],
}
UNARY.update(NX_UNARY)
BINARY.update(NX_BINARY)
