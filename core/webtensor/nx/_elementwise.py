"""Nx's element-wise functions: the core's ops with Nx's names and Nx's result types.

Each function decides the result type as Nx does (``merge`` of the operands, Python numbers
sized by value; ``to_floating`` for float-valued functions; u8 for predicates and comparisons),
converts its operands to that type and calls the core op, so every device computes it with its
own kernels.  The tables below are the whole definition.
"""

from __future__ import annotations

from .. import dtypes as _d
from ..api import _reduce as _r
from ..api import elementwise as _ew
from ..tensor import Tensor, cast
from ._core import (
    fail,
    merge,
    number_type,
    nx_function,
    operand_as,
    parse_type,
    prepare,
    strong,
    to_complex,
    to_floating,
    to_real,
    to_tensor,
    type_text,
)


def _same(dt):
    return dt


def _u8(x: Tensor) -> Tensor:
    return cast(x, _d.uint8, weak=False)


def _no_complex(dt, fn: str) -> None:
    if dt.kind == "c":
        fail(fn, f"{fn} is not supported for complex types, got: {type_text(dt)}", TypeError)


def _integers_only(dt, fn: str) -> None:
    if dt.kind not in "iu":
        fail(fn, f"bitwise operators expect integer tensors as inputs and outputs an integer "
                 f"tensor, got: {type_text(dt)}", TypeError)


# -- unary ----------------------------------------------------------------------------------------

def _rsqrt(x):
    return _ew.reciprocal(_ew.sqrt(x)) if x.dtype.kind == "c" else _ew.rsqrt(x)


def _sigmoid(x):
    if x.dtype.kind == "c":
        return _ew.reciprocal(_ew.add(_ew.exp(_ew.negative(x)), _ones(x)))
    return _ew.sigmoid(x)


def _cbrt(x):
    if x.dtype.kind == "c":  # the principal cube root, as Nx's Complex.power(z, 1/3)
        return _ew.pow(x, operand_as(1 / 3, x.dtype, x.device, "cbrt"))
    return _ew.cbrt(x)


def _ones(x):
    return operand_as(1, x.dtype, x.device, "nx")


def _real_only(op, fn):
    def apply(x):
        _no_complex(x.dtype, fn)
        return op(x)
    return apply


# name -> (core function of a tensor already of the result's computation type, type rule)
_FLOAT_UNARY = {
    "exp": _ew.exp, "expm1": _ew.expm1, "log": _ew.log, "log1p": _ew.log1p,
    "sigmoid": _sigmoid, "cos": _ew.cos, "sin": _ew.sin, "tan": _ew.tan, "cosh": _ew.cosh,
    "sinh": _ew.sinh, "tanh": _ew.tanh, "acos": _ew.acos, "asin": _ew.asin, "atan": _ew.atan,
    "acosh": _ew.acosh, "asinh": _ew.asinh, "atanh": _ew.atanh, "sqrt": _ew.sqrt,
    "rsqrt": _rsqrt, "cbrt": _cbrt,
    "erf": _real_only(_ew.erf, "erf"), "erfc": _real_only(_ew.erfc, "erfc"),
    "erf_inv": _real_only(_ew.erf_inv, "erf_inv"),
}


def _round_away(x):
    """Nx rounds half away from zero (the core's round is ties-to-even)."""
    t = _ew.trunc(x)
    frac = _ew.abs(_ew.subtract(x, t))
    half = operand_as(0.5, x.dtype, x.device, "round")
    return _ew.where(_ew.greater_equal(frac, half), _ew.add(t, _ew.sign(x)), t)


def _keep_ints(op, fn):
    """ceil/floor/round: integers come back as they are; complex is refused."""
    def apply(x):
        _no_complex(x.dtype, fn)
        return x if x.dtype.kind in "iu" else op(x)
    return apply


def _bits(op, fn):
    def apply(x):
        _integers_only(x.dtype, fn)
        return op(x)
    return apply


# name -> (function of the converted tensor, type rule from the input type, output cast)
_UNARY = {
    **{name: (op, to_floating, None) for name, op in _FLOAT_UNARY.items()},
    "negate": (_ew.negative, _same, None),
    "abs": (_ew.abs, _same, None),
    "sign": (_ew.sign, _same, None),
    "ceil": (_keep_ints(_ew.ceil, "ceil"), _same, None),
    "floor": (_keep_ints(_ew.floor, "floor"), _same, None),
    "round": (_keep_ints(_round_away, "round"), _same, None),
    "conjugate": (_ew.conj, to_complex, None),
    "real": (_ew.real, to_real, None),
    "imag": (_ew.imag, lambda dt: dt if dt.kind == "c" else to_real(dt), None),
    "phase": (_ew.phase, lambda dt: dt if dt.kind == "c" else to_real(dt), None),
    "bitwise_not": (_bits(_ew.bitwise_invert, "bitwise_not"), _same, None),
    "population_count": (_bits(_ew.population_count, "population_count"), _same, None),
    "count_leading_zeros": (_bits(_ew.count_leading_zeros, "count_leading_zeros"), _same,
                            None),
    "is_nan": (_ew.isnan, _same, _u8),
    "is_infinity": (_ew.isinf, _same, _u8),
    "logical_not": (_ew.logical_not, _same, _u8),
}


def _make_unary(name, op, rule, post):
    def fn(tensor) -> Tensor:
        t = to_tensor(tensor, name)
        dt = rule(t.dtype)
        out = op(strong(t, dt))
        return post(out) if post is not None else strong(out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Nx.{name}: element-wise, with Nx's result type."
    return nx_function(fn)


# -- binary ---------------------------------------------------------------------------------------

def _quotient_type(dt):
    return dt


def _remainder(x, y):
    """Nx's remainder has the sign of the dividend (Elixir's rem); the core's has the divisor's."""
    if x.dtype.kind in "iu":
        r = _ew.remainder(x, y)
        if x.dtype.kind == "u":
            return r
        zero = operand_as(0, x.dtype, x.device, "remainder")
        fix = _ew.logical_and(_ew.not_equal(r, zero),
                              _ew.not_equal(_ew.less(r, zero), _ew.less(x, zero)))
        return _ew.where(fix, _ew.subtract(r, y), r)
    return _ew.copysign(_ew.remainder(_ew.abs(x), _ew.abs(y)), x)


def _quotient(x, y):
    """Integer division truncated toward zero (Elixir's div); by zero gives 0."""
    q = _ew.floor_divide(x, y)
    if x.dtype.kind == "u":
        return q
    zero = operand_as(0, x.dtype, x.device, "quotient")
    one = operand_as(1, x.dtype, x.device, "quotient")
    inexact = _ew.not_equal(_ew.remainder(x, y), zero)
    negative = _ew.not_equal(_ew.less(x, zero), _ew.less(y, zero))
    return _ew.where(_ew.logical_and(inexact, negative), _ew.add(q, one), q)


def _checked(op, check):
    def apply(x, y):
        check(x.dtype)
        return op(x, y)
    return apply


# name -> (core op on two tensors of the computation type, type rule, kind check, output cast)
_BINARY = {
    "add": (_ew.add, _same, None, None),
    "subtract": (_ew.subtract, _same, None, None),
    "multiply": (_ew.multiply, _same, None, None),
    "power": (_ew.pow, _same, None, None),
    "divide": (_ew.divide, to_floating, None, None),
    "atan2": (_ew.atan2, to_floating, "real", None),
    "remainder": (_remainder, _same, "real", None),
    "quotient": (_quotient, _quotient_type, "int", None),
    "max": (_ew.maximum, _same, "real", None),
    "min": (_ew.minimum, _same, "real", None),
    "bitwise_and": (_ew.bitwise_and, _same, "int", None),
    "bitwise_or": (_ew.bitwise_or, _same, "int", None),
    "bitwise_xor": (_ew.bitwise_xor, _same, "int", None),
    "left_shift": (_ew.bitwise_left_shift, _same, "int", None),
    "right_shift": (_ew.bitwise_right_shift, _same, "int", None),
    "equal": (_ew.equal, _same, None, _u8),
    "not_equal": (_ew.not_equal, _same, None, _u8),
    "greater": (_ew.greater, _same, "real", _u8),
    "greater_equal": (_ew.greater_equal, _same, "real", _u8),
    "less": (_ew.less, _same, "real", _u8),
    "less_equal": (_ew.less_equal, _same, "real", _u8),
    "logical_and": (_ew.logical_and, _same, None, _u8),
    "logical_or": (_ew.logical_or, _same, None, _u8),
    "logical_xor": (_ew.logical_xor, _same, None, _u8),
}


def _make_binary(name, op, rule, check, post):
    def fn(left, right) -> Tensor:
        (a, b), dev = prepare((left, right), name)
        dt = rule(merge(a, b))
        if check == "real":
            _no_complex(dt, name)
        elif check == "int":
            if name == "quotient" and dt.kind not in "iu":
                fail(name, f"quotient expects integer tensors as inputs and outputs an integer "
                           f"tensor, got: {type_text(dt)}", TypeError)
            _integers_only(dt, name)
        out = op(operand_as(a, dt, dev, name), operand_as(b, dt, dev, name))
        return post(out) if post is not None else strong(out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Nx.{name}: element-wise with broadcasting, with Nx's result type."
    return nx_function(fn)


# -- the rest ------------------------------------------------------------------------------------

@nx_function
def select(pred, on_true, on_false) -> Tensor:
    """``on_true`` where ``pred`` is non-zero, else ``on_false`` (all three broadcast)."""
    fn = "select"
    (p, a, b), dev = prepare((pred, on_true, on_false), fn)
    dt = merge(a, b)
    p = p if isinstance(p, Tensor) else to_tensor(p, fn, dev)
    cond = _ew.not_equal(p, operand_as(0, p.dtype, p.device, fn))
    x, y = operand_as(a, dt, dev, fn), operand_as(b, dt, dev, fn)
    if p.ndim:  # Nx: a non-scalar predicate gives the result its shape and names
        x, y = (_r.broadcast_to(_unnamed(v), p.shape) for v in (x, y))
        out = _ew.where(_unnamed(cond), x, y)
        return out._view(out.shape, out.strides, out.offset, names=p.names)
    return strong(_ew.where(cond, x, y))


def _unnamed(t: Tensor) -> Tensor:
    return t if t.names is None else t._view(t.shape, t.strides, t.offset, names=None)


@nx_function
def clip(tensor, min, max) -> Tensor:  # noqa: A002 - Nx's names
    """``tensor`` clamped to ``[min, max]`` (scalars); the type merges all three (numbers
    with their default types, as Nx's clip does)."""
    fn = "clip"
    (t, lo, hi), dev = prepare((tensor, min, max), fn)
    if not isinstance(t, Tensor):
        t = to_tensor(t, fn, dev)
    types = [x.dtype if isinstance(x, Tensor) else number_type(x) for x in (t, lo, hi)]
    for what, x in (("min", lo), ("max", hi)):
        if isinstance(x, Tensor) and x.ndim:
            fail(fn, f"{what} value must be a scalar shape, got: {x.shape}")
    dt = merge(*types)
    _no_complex(dt, fn)
    x = operand_as(t, dt, dev, fn)
    out = _ew.minimum(_ew.maximum(x, operand_as(lo, dt, dev, fn)), operand_as(hi, dt, dev, fn))
    return strong(out)


@nx_function
def complex(real, imag) -> Tensor:  # noqa: A001 - Nx's name
    """``real + imag * i`` from two real tensors (c64, as Nx v0.4 types it)."""
    fn = "complex"
    (a, b), dev = prepare((real, imag), fn)
    for x in (a, b):
        dt = x.dtype if isinstance(x, Tensor) else number_type(x)
        if dt.kind == "c":
            fail(fn, "complex/2 does not accept complex tensors as inputs", TypeError)
    # Nx v0.4 computes imag * i + real: merge(f64, c64) is c64 there, so the result always is
    dt = merge(merge(a, b), _d.complex64)
    part = dt.real_dtype
    return _ew.complex(operand_as(a, part, dev, fn), operand_as(b, part, dev, fn))


@nx_function
def map(tensor, fun, *, type=None) -> Tensor:  # noqa: A001 - Nx's names
    """``fun`` applied to every element (it receives a scalar tensor); runs vectorized with
    ``wt.vmap``, so ``fun`` must be made of tensor operations."""
    from ..compile import vmap

    fn = "map"
    t = to_tensor(tensor, fn)
    out_dt = parse_type(type, fn) or t.dtype
    if not callable(fun):
        fail(fn, f"expected a function of one scalar tensor, got {fun!r}", TypeError)
    flat = _r.reshape(t, (t.size,))
    if t.size == 0:
        return strong(cast(t, out_dt, weak=False))

    def one(x):
        y = fun(x)
        return to_tensor(y, fn, x.device) if not isinstance(y, Tensor) else y

    mapped = vmap(one)(flat)
    return _r.reshape(strong(mapped, out_dt), t.shape, t.names)


__all__ = list(_UNARY) + list(_BINARY) + ["select", "clip", "complex", "map"]

for _name, (_op, _rule, _post) in _UNARY.items():
    globals()[_name] = _make_unary(_name, _op, _rule, _post)
for _name, (_op, _rule, _check, _post) in _BINARY.items():
    globals()[_name] = _make_binary(_name, _op, _rule, _check, _post)
del _name, _op, _rule, _post, _check
