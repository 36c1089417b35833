"""Elementwise math, reductions and products (``pytensor.tensor.math``).

Each elementwise function builds an :class:`~webtensor.symbolic.elemwise.Elemwise` node of
the table entry of the same name; reductions and products have their own ops.  Result dtypes
are PyTensor's (``sum`` of int8 is int64, ``mean`` of ints is float64, comparisons are bool).
"""

from __future__ import annotations

import builtins
import math as _pymath

import webtensor as wt

from . import _dtypes as _dt
from .basic import as_tensor_variable, cast, constant, tensordot_axes
from .elemwise import DimShuffle, Elemwise
from .graph import Apply, Op
from .type import TensorType

# -- elementwise functions ----------------------------------------------------------------------


def _ew(key: str, doc: str):
    def fn(*inputs):
        return Elemwise(key)(*inputs)
    fn.__name__ = fn.__qualname__ = key
    fn.__doc__ = doc
    return fn


add = _ew("add", "a + b + ... elementwise.")
sub = _ew("sub", "a - b elementwise.")
mul = _ew("mul", "a * b * ... elementwise.")
true_div = _ew("true_div", "a / b elementwise (integers divide to floatX).")
int_div = _ew("int_div", "a // b elementwise (floor division).")
floor_div = int_div
mod = _ew("mod", "a % b elementwise (the sign of b, as Python).")
pow = _ew("pow", "a ** b elementwise.")  # noqa: A001 - PyTensor's name
maximum = _ew("maximum", "The larger of a and b, elementwise.")
minimum = _ew("minimum", "The smaller of a and b, elementwise.")
arctan2 = _ew("arctan2", "atan(a / b) in the right quadrant, elementwise.")
logaddexp = _ew("logaddexp", "log(exp(a) + exp(b)), elementwise, without overflow.")
lt = _ew("lt", "a < b (bool).")
gt = _ew("gt", "a > b (bool).")
le = _ew("le", "a <= b (bool).")
ge = _ew("ge", "a >= b (bool).")
eq = _ew("eq", "a == b (bool).")
neq = _ew("neq", "a != b (bool).")
and_ = _ew("and_", "Bitwise and (logical for bool).")
or_ = _ew("or_", "Bitwise or (logical for bool).")
xor = _ew("xor", "Bitwise xor (logical for bool).")
invert = _ew("invert", "Bitwise not (logical for bool).")
bitwise_and, bitwise_or, bitwise_xor, bitwise_not = and_, or_, xor, invert
neg = _ew("neg", "-a.")
abs = _ew("abs", "|a| (the modulus for complex a).")  # noqa: A001
sqr = _ew("sqr", "a * a.")
square = sqr
sqrt = _ew("sqrt", "The square root.")
exp = _ew("exp", "e ** a.")
exp2 = _ew("exp2", "2 ** a.")
expm1 = _ew("expm1", "exp(a) - 1, accurate near 0.")
log = _ew("log", "The natural logarithm.")
log2 = _ew("log2", "The base-2 logarithm.")
log10 = _ew("log10", "The base-10 logarithm.")
log1p = _ew("log1p", "log(1 + a), accurate near 0.")
sin, cos, tan = _ew("sin", "Sine."), _ew("cos", "Cosine."), _ew("tan", "Tangent.")
arcsin, arccos, arctan = (_ew("arcsin", "Inverse sine."), _ew("arccos", "Inverse cosine."),
                          _ew("arctan", "Inverse tangent."))
sinh, cosh, tanh = (_ew("sinh", "Hyperbolic sine."), _ew("cosh", "Hyperbolic cosine."),
                    _ew("tanh", "Hyperbolic tangent."))
arcsinh, arccosh, arctanh = (_ew("arcsinh", "Inverse hyperbolic sine."),
                             _ew("arccosh", "Inverse hyperbolic cosine."),
                             _ew("arctanh", "Inverse hyperbolic tangent."))
reciprocal = _ew("reciprocal", "1 / a.")
sign = _ew("sign", "-1, 0 or 1 as the sign of a.")
ceil = _ew("ceil", "The smallest integer >= a (as a float).")
floor = _ew("floor", "The largest integer <= a (as a float).")
trunc = _ew("trunc", "a rounded towards 0 (as a float).")
round_half_to_even = _ew("round_half_to_even", "Round to nearest, ties to even.")
round_half_away_from_zero = _ew("round_half_away_from_zero",
                                "Round to nearest, ties away from 0.")
real = _ew("real", "The real part (a itself for real a).")
imag = _ew("imag", "The imaginary part (zeros for real a).")
angle = _ew("angle", "The argument of complex a (float64).")
conj = _ew("conj", "The complex conjugate.")
isnan = _ew("isnan", "a is NaN (bool).")
isinf = _ew("isinf", "a is +-inf (bool).")
sigmoid = _ew("sigmoid", "1 / (1 + exp(-a)).")
expit = sigmoid
softplus = _ew("softplus", "log(1 + exp(a)).")
deg2rad = _ew("deg2rad", "Degrees to radians.")
rad2deg = _ew("rad2deg", "Radians to degrees.")


def sgn(a):
    """Deprecated alias of :func:`sign`."""
    return sign(a)


def switch(cond, ift, iff):
    """``ift`` where ``cond`` is true (non-zero), else ``iff`` (``np.where``)."""
    return Elemwise("switch")(cond, ift, iff)


def where(cond, ift=None, iff=None, **kwargs):
    """``switch(cond, ift, iff)``; the one-argument form (indices of true entries) gives a
    value-dependent shape and is refused (see at.nonzero)."""
    if ift is None and iff is None:
        from .extra_ops import nonzero

        return nonzero(cond)
    if ift is None or iff is None:
        raise TypeError("where: pass both ift and iff, or neither")
    return switch(cond, ift, iff)


def clip(x, min, max):  # noqa: A002 - PyTensor's parameter names
    """``x`` limited to ``[min, max]`` (broadcasting)."""
    return Elemwise("clip")(x, min, max)


_ROUND_MODES = {"half_to_even": round_half_to_even,
                "half_away_from_zero": round_half_away_from_zero}


def round(a, mode=None):  # noqa: A001
    """``a`` rounded in its own (float) dtype; ``mode`` 'half_to_even' (the default, as in
    PyTensor) or 'half_away_from_zero'."""
    fn = _ROUND_MODES.get("half_to_even" if mode is None else mode)
    if fn is None:
        raise ValueError(f"round: mode must be 'half_to_even' or 'half_away_from_zero', got "
                         f"{mode!r}")
    return fn(a)


def iround(a, mode=None):
    """``cast(round(a, mode), 'int64')``."""
    return cast(round(a, mode), "int64")


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (bool), with infinities equal to
    themselves and NaN equal to NaN only when ``equal_nan``."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    diff = abs(sub(a, b))
    close = le(diff, add(constant(float(atol)), mul(constant(float(rtol)), abs(b))))
    finite = invert(or_(or_(isnan(a), isnan(b)), or_(isinf(a), isinf(b))))
    both_inf = and_(and_(isinf(a), isinf(b)), eq(a, b))
    out = or_(and_(close, finite), both_inf)
    if equal_nan:
        out = or_(out, and_(isnan(a), isnan(b)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (a bool scalar)."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def _not_available(name: str, what: str):
    def fn(*args, **kwargs):
        raise NotImplementedError(
            f"at.{name}: webtensor has no {what} yet, so webtensor.symbolic cannot compile it; "
            f"compute it outside the function, or build it from the supported functions")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Not available: webtensor has no {what} yet (raises NotImplementedError)."
    return fn


erf = _not_available("erf", "error function")
erfc = _not_available("erfc", "complementary error function")
erfinv = _not_available("erfinv", "inverse error function")
erfcinv = _not_available("erfcinv", "inverse complementary error function")
gamma = _not_available("gamma", "gamma function")
gammaln = _not_available("gammaln", "log-gamma function")
psi = _not_available("psi", "digamma function")
chi2sf = _not_available("chi2sf", "chi-squared survival function")


# -- reductions -------------------------------------------------------------------------------------

def _axes(axis, ndim: int, fn: str):
    """``None`` (all axes) or a sorted tuple of distinct axes."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        axes = list(axis)
    else:
        axes = [axis]
    out = []
    for a in axes:
        if hasattr(a, "type"):
            from .basic import static_value

            a = static_value(a)
        if isinstance(a, bool) or not isinstance(a, int):
            raise TypeError(f"{fn}: axis must be None, an int or a list of ints, got {axis!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"{fn}: axis {a} is out of range for a {ndim}-d input")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: duplicate axes in {axis!r}")
    return tuple(sorted(out))


_REDUCE_NAMES = {"sum": "Sum", "prod": "Prod", "max": "Max", "min": "Min", "all": "All",
                 "any": "Any"}
_WT_REDUCE = {"sum": wt.sum, "prod": wt.prod, "max": wt.max, "min": wt.min, "all": wt.all,
              "any": wt.any}


def _axes_label(axes) -> str:
    if axes is None:
        return "axes=None"
    if len(axes) == 1:
        return f"axis={axes[0]}"
    return f"axes={list(axes)}"


class Reduce(Op):
    """A reduction over ``axes`` (None: all): sum, prod, max, min, all, any."""

    __props__ = ("kind", "axes", "dtype", "acc_dtype")

    def __init__(self, kind, axes, dtype, acc_dtype=None):
        self.kind, self.axes, self.dtype, self.acc_dtype = kind, axes, dtype, acc_dtype

    def __str__(self):
        return f"{_REDUCE_NAMES[self.kind]}{{{_axes_label(self.axes)}}}"

    def make_node(self, x):
        axes = range(x.type.ndim) if self.axes is None else self.axes
        shape = tuple(s for d, s in enumerate(x.type.shape) if d not in axes)
        return Apply(self, [x], [TensorType(self.dtype, shape)])

    def perform(self, ev, node, inputs):
        (t,) = inputs
        out = _dt.wt_dtype(self.dtype)
        axis = self.axes
        if self.kind in ("sum", "prod"):
            acc = _dt.wt_dtype(self.acc_dtype or self.dtype)
            r = _WT_REDUCE[self.kind](t, axis=axis, dtype=acc)
        else:
            r = _WT_REDUCE[self.kind](t, axis=axis)
        return [r if r.dtype == out else wt.astype(r, out)]

    def pp(self, node, args):
        if self.kind == "sum":
            ax = "None" if self.axes is None else str(self.axes)
            return f"sum({args[0]}, axis={ax})"
        return f"{self}({args[0]})"


def _keep(out, x, axes, keepdims: bool):
    if not keepdims:
        return out
    axes = range(x.type.ndim) if axes is None else axes
    order = []
    k = 0
    for d in range(x.type.ndim):
        if d in axes:
            order.append("x")
        else:
            order.append(k)
            k += 1
    return DimShuffle(out.type.ndim, order)(out)


_SUM_DEFAULT = {"bool": "int64", "int8": "int64", "int16": "int64", "int32": "int64",
                "uint8": "uint64", "uint16": "uint64", "uint32": "uint64"}


def _reduce(kind, x, axis, keepdims, dtype=None, acc_dtype=None, fn=None):
    x = as_tensor_variable(x)
    axes = _axes(axis, x.type.ndim, fn or kind)
    if axes is not None and len(axes) == x.type.ndim and axis is None:
        axes = None
    out = Reduce(kind, axes, dtype, acc_dtype)(x)
    return _keep(out, x, axes, keepdims)


def sum(input, axis=None, dtype=None, keepdims=False, acc_dtype=None):  # noqa: A001, A002
    """The sum over ``axis``; small integers sum to int64 (uint64), as in PyTensor."""
    x = as_tensor_variable(input)
    dtype = _SUM_DEFAULT.get(x.type.dtype, x.type.dtype) if dtype is None else \
        _dt.as_name(dtype, "sum")
    acc = None if acc_dtype is None else _dt.as_name(acc_dtype, "sum")
    return _reduce("sum", x, axis, keepdims, dtype, acc)


def prod(input, axis=None, dtype=None, keepdims=False, acc_dtype=None,  # noqa: A002
         no_zeros_in_input=False):
    """The product over ``axis`` (dtypes as :func:`sum`)."""
    x = as_tensor_variable(input)
    dtype = _SUM_DEFAULT.get(x.type.dtype, x.type.dtype) if dtype is None else \
        _dt.as_name(dtype, "prod")
    acc = None if acc_dtype is None else _dt.as_name(acc_dtype, "prod")
    return _reduce("prod", x, axis, keepdims, dtype, acc)


def _ordered(x, fn):
    if x.type.dtype in _dt.COMPLEX:
        raise TypeError(f"{fn}: complex values ({x}, {x.type.dtype}) have no order; take "
                        f"at.real or at.abs first")


def max(x, axis=None, keepdims=False):  # noqa: A001
    """The maximum over ``axis``."""
    x = as_tensor_variable(x)
    _ordered(x, "max")
    return _reduce("max", x, axis, keepdims, x.type.dtype)


def min(x, axis=None, keepdims=False):  # noqa: A001
    """The minimum over ``axis``."""
    x = as_tensor_variable(x)
    _ordered(x, "min")
    return _reduce("min", x, axis, keepdims, x.type.dtype)


def all(x, axis=None, keepdims=False):  # noqa: A001
    """Whether every element over ``axis`` is true (non-zero)."""
    return _reduce("all", x, axis, keepdims, "bool")


def any(x, axis=None, keepdims=False):  # noqa: A001
    """Whether some element over ``axis`` is true (non-zero)."""
    return _reduce("any", x, axis, keepdims, "bool")


def ptp(a, axis=None):
    """``max(a, axis) - min(a, axis)`` (peak to peak)."""
    return sub(max(a, axis), min(a, axis))


def _float_result(x, dtype, fn):
    if dtype is not None:
        return _dt.as_name(dtype, fn)
    return "float64" if x.type.dtype in _dt.DISCRETE else x.type.dtype


class Moment(Op):
    """``mean``, ``var`` (``ddof``) and ``std`` over ``axes``."""

    __props__ = ("kind", "axes", "dtype", "ddof")

    def __init__(self, kind, axes, dtype, ddof=0):
        self.kind, self.axes, self.dtype, self.ddof = kind, axes, dtype, ddof

    def __str__(self):
        return f"{self.kind.capitalize()}{{{_axes_label(self.axes)}}}"

    def make_node(self, x):
        axes = range(x.type.ndim) if self.axes is None else self.axes
        shape = tuple(s for d, s in enumerate(x.type.shape) if d not in axes)
        return Apply(self, [x], [TensorType(self.dtype, shape)])

    def perform(self, ev, node, inputs):
        (t,) = inputs
        dt = _dt.wt_dtype(self.dtype)
        if t.dtype != dt:
            t = wt.astype(t, dt)
        if self.kind == "mean":
            return [wt.mean(t, axis=self.axes)]
        if t.dtype.kind == "c":
            # PyTensor's complex variance: the mean of (x - mean)**2, no conjugate (complex)
            d = wt.subtract(t, wt.mean(t, axis=self.axes, keepdims=True))
            axes = range(t.ndim) if self.axes is None else self.axes
            n = 1
            for a in axes:
                n *= t.shape[a]
            v = wt.divide(wt.sum(wt.multiply(d, d), axis=self.axes), float(n - self.ddof))
            return [wt.sqrt(v) if self.kind == "std" else v]
        fn = wt.var if self.kind == "var" else wt.std
        return [fn(t, axis=self.axes, correction=self.ddof)]


def mean(input, axis=None, dtype=None, keepdims=False, acc_dtype=None):  # noqa: A002
    """The mean over ``axis`` (float64 for integer inputs)."""
    x = as_tensor_variable(input)
    axes = _axes(axis, x.type.ndim, "mean")
    out = Moment("mean", axes, _float_result(x, dtype, "mean"))(x)
    return _keep(out, x, axes, keepdims)


def var(input, axis=None, ddof=0, keepdims=False, corrected=False):  # noqa: A002
    """The variance over ``axis`` (divided by ``n - ddof``)."""
    x = as_tensor_variable(input)
    axes = _axes(axis, x.type.ndim, "var")
    out = Moment("var", axes, _float_result(x, None, "var"), ddof)(x)
    return _keep(out, x, axes, keepdims)


def std(input, axis=None, ddof=0, keepdims=False, corrected=False):  # noqa: A002
    """The standard deviation over ``axis``."""
    x = as_tensor_variable(input)
    axes = _axes(axis, x.type.ndim, "std")
    out = Moment("std", axes, _float_result(x, None, "std"), ddof)(x)
    return _keep(out, x, axes, keepdims)


class ArgReduce(Op):
    """``argmax`` / ``argmin`` over one axis (None: the flattened input), as int64."""

    __props__ = ("kind", "axis")
    single_name = True

    def __init__(self, kind, axis):
        self.kind, self.axis = kind, axis

    def __str__(self):
        return f"{self.kind}" if self.axis is None else f"{self.kind.capitalize()}" \
            f"{{axis={self.axis}}}"

    def make_node(self, x):
        shape = () if self.axis is None else tuple(
            s for d, s in enumerate(x.type.shape) if d != self.axis)
        return Apply(self, [x], [TensorType("int64", shape)])

    def perform(self, ev, node, inputs):
        fn = wt.argmax if self.kind == "argmax" else wt.argmin
        r = fn(inputs[0], axis=self.axis)
        return [r if r.dtype == wt.int64 else wt.astype(r, wt.int64)]


def _arg(kind, x, axis, keepdims):
    x = as_tensor_variable(x)
    axes = _axes(axis, x.type.ndim, kind)
    if axes is not None and len(axes) > 1:
        if len(axes) != x.type.ndim:
            raise NotImplementedError(f"{kind}: several axes (other than all of them) are not "
                                      f"supported; transpose and reshape first")
        axes = None
    ax = None if axes is None else axes[0]
    if x.type.ndim == 0:
        ax = None
    out = ArgReduce(kind, ax)(x)
    return _keep(out, x, axes, keepdims)


def argmax(x, axis=None, keepdims=False):
    """The index of the maximum along ``axis`` (None: of the flattened input), int64."""
    x = as_tensor_variable(x)
    _ordered(x, "argmax")
    return _arg("argmax", x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """The index of the minimum along ``axis`` (None: of the flattened input), int64."""
    x = as_tensor_variable(x)
    _ordered(x, "argmin")
    return _arg("argmin", x, axis, keepdims)


def max_and_argmax(a, axis=None, keepdims=False):
    """``[max(a, axis), argmax(a, axis)]``."""
    return [max(a, axis, keepdims), argmax(a, axis, keepdims)]


def norm(x, L, axis=None, keepdims=False):  # noqa: N803
    """``sum(|x| ** L, axis) ** (1 / L)`` (L = 0 and infinite L are not supported)."""
    if L == 0 or _pymath.isinf(L):
        raise NotImplementedError("norm: L = 0 and infinite L are not supported")
    x = as_tensor_variable(x)
    return pow(sum(pow(abs(x), L), axis=axis, keepdims=keepdims), 1.0 / L)


# -- products ---------------------------------------------------------------------------------------

def _shared_dim(a, b, da, db, fn):
    sa, sb = a.type.shape[da], b.type.shape[db]
    if sa is not None and sb is not None and sa != sb:
        raise ValueError(f"{fn}: Incompatible shared dimension for dot product: {a} has shape "
                         f"{a.type.shape} and {b} has shape {b.type.shape} (axis {da} of the "
                         f"first is {sa}, axis {db} of the second is {sb})")


class Dot(Op):
    """The matrix/vector product of two tensors of rank 1 or 2."""

    def make_node(self, a, b):
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.type.ndim not in (1, 2) or b.type.ndim not in (1, 2):
            raise TypeError(f"Dot: inputs must be vectors or matrices, got {a.type} and "
                            f"{b.type}")
        _shared_dim(a, b, a.type.ndim - 1, 0, "dot")
        shape = a.type.shape[:-1] + b.type.shape[1:]
        return Apply(self, [a, b], [TensorType(_dt.upcast(a.type.dtype, b.type.dtype), shape)])

    def perform(self, ev, node, inputs):
        dt = _dt.wt_dtype(node.outputs[0].type.dtype)
        a, b = (t if t.dtype == dt else wt.astype(t, dt) for t in inputs)
        return [wt.matmul(a, b)]

    def pp(self, node, args):
        return f"({args[0]} \\dot {args[1]})"


def dot(l, r):  # noqa: E741 - PyTensor's parameter names
    """The dot product: matrix/vector products for ranks 1-2, a product with scalars, and for
    higher ranks a sum over the last axis of ``l`` and the second-to-last of ``r``."""
    l, r = as_tensor_variable(l), as_tensor_variable(r)
    if l.type.ndim == 0 or r.type.ndim == 0:
        return mul(l, r)
    if l.type.ndim <= 2 and r.type.ndim <= 2:
        return Dot()(l, r)
    return tensordot(l, r, [[l.type.ndim - 1], [builtins.max(0, r.type.ndim - 2)]])


class Tensordot(Op):
    """``np.tensordot(a, b, axes)`` with ``axes`` a pair of axis tuples."""

    __props__ = ("axes",)

    def __init__(self, axes):
        self.axes = axes

    def __str__(self):
        return f"Tensordot{{axes={self.axes}}}"

    def make_node(self, a, b):
        xa, xb = self.axes
        for da, db in zip(xa, xb):
            _shared_dim(a, b, da, db, "tensordot")
        shape = tuple(s for d, s in enumerate(a.type.shape) if d not in xa) + \
            tuple(s for d, s in enumerate(b.type.shape) if d not in xb)
        return Apply(self, [a, b], [TensorType(_dt.upcast(a.type.dtype, b.type.dtype), shape)])

    def perform(self, ev, node, inputs):
        dt = _dt.wt_dtype(node.outputs[0].type.dtype)
        a, b = (t if t.dtype == dt else wt.astype(t, dt) for t in inputs)
        return [wt.tensordot(a, b, axes=self.axes)]


def tensordot(a, b, axes=2):
    """Sum the products of ``a`` and ``b`` over ``axes``: an int (the last ``axes`` axes of
    ``a`` with the first of ``b``) or two lists of axes."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    return Tensordot(tensordot_axes(a, b, axes, "tensordot"))(a, b)


def outer(x, y):
    """The outer product of two vectors (flattened first if they are not)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.type.ndim != 1:
        x = x.flatten()
    if y.type.ndim != 1:
        y = y.flatten()
    return Dot()(DimShuffle(1, (0, "x"))(x), DimShuffle(1, ("x", 0))(y))


class Matmul(Op):
    """``np.matmul``: the product of the last two axes, batch axes broadcast."""

    __props__ = ("dtype",)

    def __init__(self, dtype=None):
        self.dtype = dtype

    def __str__(self):
        return "Matmul"

    def make_node(self, a, b):
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.type.ndim == 0 or b.type.ndim == 0:
            raise ValueError("matmul: scalar operands are not allowed, use '*' instead")
        sa, sb = a.type.shape, b.type.shape
        va, vb = len(sa) == 1, len(sb) == 1
        ma = (1,) + sa if va else sa
        mb = sb + (1,) if vb else sb
        _shared_dim(a, b, a.type.ndim - 1, 0 if vb else b.type.ndim - 2, "matmul")
        batch_a, batch_b = ma[:-2], mb[:-2]
        n = builtins.max(len(batch_a), len(batch_b))
        batch_a = (1,) * (n - len(batch_a)) + batch_a
        batch_b = (1,) * (n - len(batch_b)) + batch_b
        batch = []
        for x, y in zip(batch_a, batch_b):
            if x == 1:
                batch.append(y)
            elif y == 1 or y is None or x == y:
                batch.append(x if y != 1 or x is not None else None)
            elif x is None:
                batch.append(y)
            else:
                raise ValueError(f"matmul: batch shapes {sa[:-2]} and {sb[:-2]} do not "
                                 f"broadcast")
        shape = tuple(batch) + (() if va else (ma[-2],)) + (() if vb else (mb[-1],))
        dtype = self.dtype or _dt.upcast(a.type.dtype, b.type.dtype)
        return Apply(self, [a, b], [TensorType(dtype, shape)])

    def perform(self, ev, node, inputs):
        dt = _dt.wt_dtype(node.outputs[0].type.dtype)
        a, b = (t if t.dtype == dt else wt.astype(t, dt) for t in inputs)
        return [wt.matmul(a, b)]


def matmul(x1, x2, dtype=None):
    """``x1 @ x2`` (numpy.matmul semantics)."""
    return Matmul(None if dtype is None else _dt.as_name(dtype, "matmul"))(x1, x2)


def batched_dot(a, b):
    """Per index of the first axis, the dot product of ``a[i]`` and ``b[i]``: (B, n, m) with
    (B, m, k) gives (B, n, k); (B, n) with (B, n) gives (B,)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.type.ndim < 2 or b.type.ndim < 2 or a.type.ndim > 3 or b.type.ndim > 3:
        raise TypeError(f"batched_dot: inputs must have 2 or 3 dimensions (a batch axis first), "
                        f"got {a.type} and {b.type}")
    _shared_dim(a, b, 0, 0, "batched_dot")
    a3 = DimShuffle(2, (0, "x", 1))(a) if a.type.ndim == 2 else a
    b3 = DimShuffle(2, (0, 1, "x"))(b) if b.type.ndim == 2 else b
    out = matmul(a3, b3)
    keep = [0] + ([1] if a.type.ndim == 3 else []) + ([2] if b.type.ndim == 3 else [])
    if len(keep) == 3:
        return out
    return DimShuffle(3, keep)(out)


class BatchedTensordot(Op):
    """``tensordot`` of ``a[i]`` and ``b[i]`` for each index ``i`` of the first axis."""

    __props__ = ("axes",)

    def __init__(self, axes):
        self.axes = axes

    def make_node(self, a, b):
        xa, xb = self.axes
        _shared_dim(a, b, 0, 0, "batched_tensordot")
        for da, db in zip(xa, xb):
            _shared_dim(a, b, da, db, "batched_tensordot")
        batch = a.type.shape[0] if a.type.shape[0] is not None else b.type.shape[0]
        shape = (batch,) + tuple(s for d, s in enumerate(a.type.shape) if d and d not in xa) + \
            tuple(s for d, s in enumerate(b.type.shape) if d and d not in xb)
        return Apply(self, [a, b], [TensorType(_dt.upcast(a.type.dtype, b.type.dtype), shape)])

    def perform(self, ev, node, inputs):
        dt = _dt.wt_dtype(node.outputs[0].type.dtype)
        a, b = (t if t.dtype == dt else wt.astype(t, dt) for t in inputs)
        xa, xb = self.axes
        fa = [d for d in range(1, a.ndim) if d not in xa]
        fb = [d for d in range(1, b.ndim) if d not in xb]
        a2 = wt.permute_dims(a, (0, *fa, *xa))
        b2 = wt.permute_dims(b, (0, *xb, *fb))
        n = a.shape[0]
        sa = [a.shape[d] for d in fa]
        sb = [b.shape[d] for d in fb]
        k = _pymath.prod(a.shape[d] for d in xa)
        a2 = wt.reshape(a2, (n, _pymath.prod(sa), k))
        b2 = wt.reshape(b2, (n, k, _pymath.prod(sb)))
        return [wt.reshape(wt.matmul(a2, b2), (n, *sa, *sb))]


def batched_tensordot(x, y, axes=2):
    """``tensordot(x[i], y[i], axes)`` per batch index ``i`` (axes count from the first
    non-batch axis when ``axes`` is an int)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if isinstance(axes, int) and not isinstance(axes, bool):
        axes = [list(range(x.type.ndim - axes, x.type.ndim)), list(range(1, axes + 1))]
    xa, xb = tensordot_axes(x, y, axes, "batched_tensordot")
    if 0 in xa or 0 in xb:
        raise ValueError("batched_tensordot: the batch axis 0 cannot be summed over")
    return BatchedTensordot((xa, xb))(x, y)


__all__ = sorted(n for n, v in list(globals().items())
                 if not n.startswith("_") and callable(v) and not isinstance(v, type)
                 and getattr(v, "__module__", None) == __name__)
