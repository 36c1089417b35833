"""C99 Annex G's special values of the complex elementary functions, for inputs with an infinite
or NaN part (finite inputs go to ``cmath``, which raises where C would signal "invalid").

Each function is given for the first quadrant (``x >= +0``, ``y >= +0``) as Annex G states it,
and the symmetries Annex G guarantees carry it to the others:
``f(conj z) = conj f(z)`` for all of them, ``sinh``/``tanh`` are odd, ``cosh`` is even, and
``exp`` has no parity (its left half-plane is listed too).  Where Annex G leaves a sign open
("+-0", "+-inf") the choice is NumPy's, so that every device agrees bit for bit (the webgpu
shaders follow the same choices).  ``sin``, ``cos`` and ``tan`` follow from the hyperbolic
functions as Annex G defines them: ``sin z = -i sinh(iz)``, ``cos z = cosh(iz)``,
``tan z = -i tanh(iz)``.
"""

from __future__ import annotations

import math

from . import _pycodec as _c

INF = math.inf
NAN = _c.DEFAULT_NAN
_copysign = math.copysign
_isinf = math.isinf
_isnan = math.isnan


def _cis(r: float, y: float) -> complex:
    """``r * (cos y + i sin y)`` for an infinite or zero ``r`` and a finite ``y``: each part
    takes its sign from the cosine or sine (a zero part keeps the sign rule of ``r * 0``)."""
    c, s = math.cos(y), math.sin(y)
    re = _copysign(r, c) if c != 0 else _copysign(0.0, r) * c
    im = _copysign(r, s) if s != 0 else _copysign(0.0, r) * s
    return complex(re, im)


def _quadrant(fn_first, odd: bool | None):
    """Extend ``fn_first`` (defined for ``x >= +0, y >= +0`` and NaNs) to the whole plane by
    parity (``odd`` True/False; None: no parity, ``fn_first`` takes any ``x``) and conjugate
    symmetry."""
    def fn(z: complex) -> complex:
        x, y = z.real, z.imag
        negate = odd is not None and not _isnan(x) and _copysign(1.0, x) < 0
        if negate:  # f(z) = +-f(-z)
            x, y = -x, -y
        conj = not _isnan(y) and _copysign(1.0, y) < 0
        if conj:  # f(z) = conj f(conj z)
            y = -y
        w = fn_first(x, y)
        re, im = w.real, w.imag
        if conj:
            im = -im
        if negate and odd:
            re, im = -re, -im
        return complex(re, im)
    return fn


def _sinh_first(x: float, y: float) -> complex:
    if _isnan(x):
        return complex(NAN, y) if y == 0 else complex(NAN, NAN)
    if _isinf(x):
        if _isnan(y) or _isinf(y):
            return complex(x, NAN)
        return complex(INF, y) if y == 0 else _cis(INF, y)
    # x finite
    if _isnan(y) or _isinf(y):
        return complex(x, NAN) if x == 0 else complex(NAN, NAN)
    raise ValueError("finite input")  # cmath's business


def _cosh_first(x: float, y: float) -> complex:
    if _isnan(x):
        return complex(NAN, 0.0 * y) if y == 0 else complex(NAN, NAN)
    if _isinf(x):
        if _isnan(y) or _isinf(y):
            return complex(INF, NAN)
        return complex(INF, y) if y == 0 else _cis(INF, y)
    if _isnan(y) or _isinf(y):
        return complex(NAN, 0.0) if x == 0 else complex(NAN, NAN)
    raise ValueError("finite input")


def _tanh_first(x: float, y: float) -> complex:
    if _isnan(x):
        return complex(NAN, y) if y == 0 else complex(NAN, NAN)
    if _isinf(x):
        if _isinf(y):
            return complex(1.0, 0.0)
        return complex(1.0, _copysign(0.0, math.sin(2 * y)))  # (a NaN y lends its sign)
    if _isnan(y) or _isinf(y):
        return complex(x, NAN) if x == 0 else complex(NAN, NAN)
    raise ValueError("finite input")


def _exp_first(x: float, y: float) -> complex:
    # y >= +0 or NaN; x anything (exp has no parity)
    if _isnan(x):
        return complex(NAN, y) if y == 0 else complex(NAN, NAN)
    if _isinf(x) and x < 0:
        if _isinf(y):
            return complex(0.0, 0.0)
        if _isnan(y):
            return complex(0.0, _copysign(0.0, y))
        return _cis(0.0, y)
    if _isinf(x):
        if _isnan(y) or _isinf(y):
            return complex(INF, NAN)
        return complex(INF, y) if y == 0 else _cis(INF, y)
    if _isnan(y) or _isinf(y):
        return complex(NAN, NAN)
    raise ValueError("finite input")


_sinh = _quadrant(_sinh_first, odd=True)
_cosh = _quadrant(_cosh_first, odd=False)


def sinh(z: complex) -> complex:
    w = _sinh(z)
    if _isinf(w.real) and _isnan(w.imag):  # +-inf + i NaN: NumPy picks +inf
        return complex(INF, w.imag)
    return w


def cosh(z: complex) -> complex:
    if z.real == 0 and not math.isfinite(z.imag):  # NaN +- i0: NumPy picks +0
        return complex(NAN, 0.0)
    return _cosh(z)

tanh = _quadrant(_tanh_first, odd=True)
exp = _quadrant(_exp_first, odd=None)


def _times_i(z: complex) -> complex:
    return complex(-z.imag, z.real)


def _times_minus_i(z: complex) -> complex:
    return complex(z.imag, -z.real)


def sin(z: complex) -> complex:
    w = _times_minus_i(sinh(_times_i(z)))
    if _isnan(w.real) and _isinf(w.imag):  # NaN +- i inf: NumPy picks +inf
        return complex(w.real, INF)
    return w


def cos(z: complex) -> complex:
    return cosh(_times_i(z))


def tan(z: complex) -> complex:
    return _times_minus_i(tanh(_times_i(z)))


def expm1(z: complex) -> complex:
    """The Array API's special cases: those of ``exp`` with 1 taken from the real part."""
    w = exp(z)
    return complex(w.real - 1.0, w.imag)


# The inverse functions: cmath follows Annex G there, but where Annex G leaves the sign of an
# infinite or zero part open, these inputs get NumPy's choice.
_HALF_PI = math.pi / 2


def open_sign_choice(name: str, z: complex) -> complex | None:
    """NumPy's value for the inputs where Annex G leaves a sign open, else None."""
    x, y = z.real, z.imag
    if _isinf(x) and _isnan(y):
        if name == "asin":
            return complex(NAN, INF)
        if name == "acos":
            return complex(NAN, -INF)
        if name == "atan":
            return complex(_copysign(_HALF_PI, x), 0.0)
    if name == "acosh" and x == 0 and _isnan(y):
        return complex(NAN, _HALF_PI)
    return None
