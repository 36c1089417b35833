"""TensorFlow's math ops: ``tf.math.*`` and the top-level aliases (``tf.add``, ``tf.reduce_sum``,
``tf.matmul``, ...), composed from webtensor's elementwise ops and reductions.

Dtypes, as TensorFlow handles them in each promotion mode:

* With weak tensors (webtensor's default ``"standard"`` mode, TF's ``"all"`` and ``"safe"``)
  Python data becomes a weak tensor, as ``tf.constant`` makes it, and the active promotion mode
  combines the operands (``tf.math.abs([100.0, 4.0])`` is a weak float32).
* In ``"numpy"`` (TF's ``"legacy"`` NumPy behaviour) and ``"strict"`` (TF's default, ``"off"``)
  binary ops match dtypes as TensorFlow's kernels do: one operand fixes the dtype (the first
  tensor among the inputs; for ``add``, ``divide``/``truediv`` and ``matmul`` the first input,
  whatever it is), Python data and NumPy arrays are converted to it, and a tensor of another
  dtype raises ``InvalidArgumentError``.

Each op takes the dtypes TensorFlow's kernel registers (``tf.sqrt`` of an int32 tensor raises
InvalidArgumentError, as in TensorFlow); integer results wrap, integer division by zero raises.
``divide``/``truediv`` of integers give TensorFlow's float: float32 for 8/16-bit, float64 for
32/64-bit integers.
"""

from __future__ import annotations

import builtins
import math as _pymath
from collections import namedtuple

import webtensor as wt

from ..tensor import Tensor
from ..tensor import cast as _retag
from ._casting import WEAK_MODES, as_dtype, as_tensor, python_dtype, unwrap
from ._variables import _check_python_data
from .errors import InvalidArgumentError


def _dtypes(kinds: str, without=()) -> frozenset:
    return frozenset(d for d in wt.all_dtypes if d.kind in kinds and d not in without)


# TensorFlow kernels' dtype lists, by kind (b bool, i signed, u unsigned, f float, c complex)
ANY = _dtypes("buifc")
NUMERIC = _dtypes("iufc")
REAL = _dtypes("iuf")
SIGNED = _dtypes("ifc")  # no unsigned integers (abs, negative, sign, pow)
INTS_FLOATS = _dtypes("if")
FLOAT = _dtypes("f")
INEXACT = _dtypes("fc")
BOOL = _dtypes("b")
MATMUL = _dtypes("iufc", without=(wt.int8, wt.int16))

# truediv of integers: TensorFlow's table (narrow integers to float32, wide ones to float64)
TRUEDIV_FLOAT = {wt.int8: wt.float32, wt.uint8: wt.float32, wt.int16: wt.float32,
                 wt.uint16: wt.float32, wt.int32: wt.float64, wt.uint32: wt.float64,
                 wt.int64: wt.float64, wt.uint64: wt.float64}

TopKV2 = namedtuple("TopKV2", ["values", "indices"])

__all__: list[str] = []
# names that live in tf.math only (TensorFlow 2 has no tf.log1p, tf.reduce_std ...)
MATH_ONLY: set[str] = set()


def _export(fn, top_level: bool = True):
    globals()[fn.__name__] = fn
    __all__.append(fn.__name__)
    if not top_level:
        MATH_ONLY.add(fn.__name__)
    return fn


def _math_only(fn):
    return _export(fn, top_level=False)


# -- shared helpers -----------------------------------------------------------------------------

def _describe(allowed: frozenset) -> str:
    return ", ".join(d.name for d in wt.all_dtypes if d in allowed)


def _require(t: Tensor, allowed: frozenset, fn: str, arg: str) -> Tensor:
    if t.dtype not in allowed:
        raise InvalidArgumentError(f"tf.{fn}", f"`{arg}` has dtype {t.dtype.name}, which this "
                                               f"op does not take (it takes "
                                               f"{_describe(allowed)}); convert it with tf.cast")
    return t


def _weak_like(out: Tensor, *inputs: Tensor) -> Tensor:
    """``out`` marked weak when every input is weak (TF's WeakTensor-supporting ops)."""
    if not out.weak and inputs and all(t.weak for t in inputs) and out.dtype.kind != "b":
        return _retag(out, out.dtype, weak=True)
    return out


def _strong(out: Tensor) -> Tensor:
    return _retag(out, out.dtype, weak=False) if out.weak else out


def _device(values):
    return next((v.device for v in values if isinstance(v, Tensor)), None)


def _operands(fn: str, values: list, args: tuple, *, first_fixes: bool = False,
              device=None) -> list:
    """The operands of a multi-input op as tensors with TensorFlow's dtype rule (module doc);
    Python data goes to the first tensor's device (else ``device``, else the default)."""
    values = [unwrap(v) for v in values]
    device = _device(values) or device
    if wt.get_promotion_mode() in WEAK_MODES:
        return [as_tensor(v, fn, device) for v in values]
    tensors = [v for v in values if isinstance(v, Tensor)]
    first = values[0] if first_fixes or not tensors else tensors[0]
    fixed = as_tensor(first, fn, device).dtype
    out = []
    for i, v in enumerate(values):
        if isinstance(v, Tensor):
            t = v
        elif python_dtype(v) is not None:
            try:
                _check_python_data(v, fixed, fn)
                t = wt.asarray(v, dtype=fixed, device=device)
            except TypeError:
                if not first_fixes:  # TensorFlow's "Cannot convert 2.5 to int32"
                    raise
                t = as_tensor(v, fn, device)  # the first input's dtype stays: mismatch below
        else:  # NumPy data: TensorFlow converts its values to the fixed dtype
            t = as_tensor(v, fn, device)
            t = wt.astype(t, fixed) if t.dtype is not fixed else t
        if t.dtype is not fixed:
            raise InvalidArgumentError(
                f"tf.{fn}", f"cannot compute tf.{fn} as input #{i}(zero-based) `{args[i]}` was "
                            f"expected to be a {fixed.name} tensor but is a {t.dtype.name} "
                            f"tensor; convert it with tf.cast, or enable TensorFlow's promotion "
                            f"with tf.experimental.numpy.experimental_enable_numpy_behavior("
                            f"dtype_conversion_mode='all')")
        out.append(t)
    return out


def _any_true(t: Tensor) -> bool:
    return bool(t.size) and bool(wt.any(t).item())


def _no_integer_zero(y: Tensor, fn: str) -> None:
    if y.dtype.kind in "iu" and _any_true(wt.equal(y, 0)):
        raise InvalidArgumentError(f"tf.{fn}", "integer division by zero")


def _host_axes(axis, ndim: int, fn: str) -> tuple:
    """A reduction's ``axis`` (None, an int, a list or an integer tensor) as sorted
    non-negative axes."""
    axis = unwrap(axis)
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Tensor):
        if axis.dtype.kind not in "iu":
            raise TypeError(f"tf.{fn}: axis must be an int32/int64 tensor, got "
                            f"{axis.dtype.name}")
        axis = axis.tolist()
    items = axis if isinstance(axis, (list, tuple)) else [axis]
    out = set()
    for a in items:
        if isinstance(a, bool) or not hasattr(a, "__index__"):
            raise TypeError(f"tf.{fn}: axis must hold integers, got {a!r} ({type(a).__name__})")
        a = a.__index__()
        if not -ndim <= a < ndim if ndim else a not in (0, -1):
            raise InvalidArgumentError(f"tf.{fn}", f"invalid reduction dimension {a} for an "
                                                   f"input of rank {ndim}; it must be in "
                                                   f"[{-ndim}, {ndim})")
        out.add(a % ndim if ndim else 0)
    return tuple(sorted(a for a in out if a < ndim))


def _keepdims(keepdims) -> bool:
    return bool(keepdims) if keepdims is not None else False


# -- elementwise: one input -----------------------------------------------------------------------

def _unary(tf_name: str, op, allowed: frozenset, *, param: str = "x", keeps_weak: bool = True,
           top_level: bool = True, doc: str = ""):
    def run(value):
        t = _require(as_tensor(value, tf_name), allowed, tf_name, param)
        out = op(t)
        return _weak_like(out, t) if keeps_weak else _strong(out)

    if param == "x":
        def function(x, name=None):
            return run(x)
    else:
        def function(input, name=None):  # noqa: A002 - TensorFlow's argument name
            return run(input)
    function.__name__ = function.__qualname__ = tf_name
    function.__doc__ = doc or f"TensorFlow's ``tf.math.{tf_name}`` (dtypes: {_describe(allowed)})."
    return _export(function, top_level)


def _zeros_like(t: Tensor) -> Tensor:
    return wt.zeros_like(t)


def _reciprocal(t):
    return wt.divide(wt.ones_like(t), t)


def _rsqrt(t):
    return _reciprocal(wt.sqrt(t))


def _softsign(t):
    return wt.divide(t, wt.add(wt.abs(t), 1))


def _angle(t):
    if t.dtype.kind == "c":
        return wt.atan2(wt.imag(t), wt.real(t))
    return wt.where(wt.less(t, 0), wt.full_like(t, _pymath.pi), wt.zeros_like(t))


def _reciprocal_no_nan(t):
    zero = wt.equal(t, 0)
    return wt.where(zero, wt.zeros_like(t), _reciprocal(wt.where(zero, wt.ones_like(t), t)))


for _name, _op, _allowed, _top in [
    ("abs", wt.abs, SIGNED, True), ("negative", wt.negative, SIGNED, True),
    ("sign", wt.sign, SIGNED, True), ("square", wt.square, NUMERIC, True),
    ("sqrt", wt.sqrt, INEXACT, True), ("rsqrt", _rsqrt, INEXACT, False),
    ("exp", wt.exp, INEXACT, True), ("expm1", wt.expm1, INEXACT, False),
    ("log", wt.log, INEXACT, False), ("log1p", wt.log1p, INEXACT, False),
    ("sin", wt.sin, INEXACT, True), ("cos", wt.cos, INEXACT, True),
    ("tan", wt.tan, INEXACT, True), ("asin", wt.asin, INEXACT, True),
    ("acos", wt.acos, INEXACT, True), ("atan", wt.atan, INEXACT, True),
    ("sinh", wt.sinh, INEXACT, True), ("cosh", wt.cosh, INEXACT, True),
    ("tanh", wt.tanh, INEXACT, True), ("asinh", wt.asinh, INEXACT, True),
    ("acosh", wt.acosh, INEXACT, True), ("atanh", wt.atanh, INEXACT, True),
    ("sigmoid", wt.nn.sigmoid, FLOAT, True), ("log_sigmoid", wt.nn.log_sigmoid, FLOAT, False),
    ("softplus", wt.nn.softplus, FLOAT, False), ("softsign", _softsign, FLOAT, False),
    ("reciprocal", _reciprocal, INEXACT, False),
    ("reciprocal_no_nan", _reciprocal_no_nan, INEXACT, False),
    ("round", wt.round, INTS_FLOATS, True), ("rint", wt.round, FLOAT, False),
    ("floor", wt.floor, FLOAT, True), ("ceil", wt.ceil, FLOAT, False),
]:
    _unary(_name, _op, _allowed, top_level=_top)
for _name, _op in [("is_nan", wt.isnan), ("is_inf", wt.isinf), ("is_finite", wt.isfinite)]:
    _unary(_name, _op, FLOAT, keeps_weak=False, top_level=False)
_unary("logical_not", wt.logical_not, BOOL, keeps_weak=False)
_unary("real", lambda t: wt.real(t) if t.dtype.kind == "c" else t, NUMERIC, param="input",
       top_level=False, doc="The real part (a real input is returned as is).")
_unary("imag", lambda t: wt.imag(t) if t.dtype.kind == "c" else _zeros_like(t), NUMERIC,
       param="input", top_level=False, doc="The imaginary part (zeros for a real input).")
_unary("angle", _angle, INEXACT, param="input", top_level=False,
       doc="The argument of a complex input; for a real input pi where it is negative, else 0.")
_unary("conj", lambda t: wt.conj(t) if t.dtype.kind == "c" else t, NUMERIC, top_level=False,
       doc="The complex conjugate (a real input is returned as is).")


# -- elementwise: two inputs ----------------------------------------------------------------------

def _binary(tf_name: str, op, allowed: frozenset, *, params=("x", "y"), first_fixes=False,
            keeps_weak=True, top_level=True, doc=""):
    def run(a, b):
        x, y = _operands(tf_name, [a, b], params, first_fixes=first_fixes)
        _require(x, allowed, tf_name, params[0])
        _require(y, allowed, tf_name, params[1])
        out = op(x, y, tf_name)
        return _weak_like(out, x, y) if keeps_weak else _strong(out)

    if params == ("x", "y"):
        def function(x, y, name=None):
            return run(x, y)
    elif params == ("y", "x"):  # atan2(y, x)
        def function(y, x, name=None):
            return run(y, x)
    else:
        def function(x1, x2, name=None):
            return run(x1, x2)
    function.__name__ = function.__qualname__ = tf_name
    function.__doc__ = doc or f"TensorFlow's ``tf.math.{tf_name}`` (dtypes: {_describe(allowed)})."
    return _export(function, top_level)


def _plain(op):
    return lambda x, y, fn: op(x, y)


def _floordiv(x, y, fn):
    if x.dtype.kind in "iu":
        _no_integer_zero(y, fn)
        return wt.floor_divide(x, y)
    return wt.floor(wt.divide(x, y))  # TensorFlow's float floordiv is floor(x / y)


def _floormod(x, y, fn):
    _no_integer_zero(y, fn)
    return wt.remainder(x, y)


def _truncatediv(x, y, fn):
    if x.dtype.kind in "iu":
        _no_integer_zero(y, fn)
        q = wt.floor_divide(x, y)
        inexact = wt.not_equal(wt.remainder(x, y), 0)
        if x.dtype.kind == "u":
            return q
        differ = wt.not_equal(wt.less(x, 0), wt.less(y, 0))
        return wt.where(wt.logical_and(inexact, differ), q + 1, q)
    return wt.trunc(wt.divide(x, y))


def _truncatemod(x, y, fn):
    if x.dtype.kind in "iu":
        return x - _truncatediv(x, y, fn) * y
    return wt.copysign(wt.remainder(wt.abs(x), wt.abs(y)), x)  # C's fmod


def _pow(x, y, fn):
    if y.dtype.kind == "i" and _any_true(wt.less(y, 0)):
        raise InvalidArgumentError(f"tf.{fn}", "integers to negative integer powers are not "
                                               "allowed; use a float base")
    return wt.pow(x, y)


def _squared_difference(x, y, fn):
    d = wt.subtract(x, y)
    return wt.multiply(d, wt.conj(d)) if d.dtype.kind == "c" else wt.multiply(d, d)


def _divide_no_nan(x, y, fn):
    zero = wt.equal(y, 0)
    q = wt.divide(x, wt.where(zero, wt.ones_like(y), y))
    return wt.where(zero, wt.zeros_like(q), q)


def _multiply_no_nan(x, y, fn):
    p = wt.multiply(x, y)
    return wt.where(wt.equal(y, 0), wt.zeros_like(p), p)


def _xlogy(x, y, fn):
    zero = wt.equal(x, 0)
    out = wt.multiply(x, wt.log(wt.where(zero, wt.ones_like(y), y)))
    return wt.where(zero, wt.zeros_like(out), out)


def _xlog1py(x, y, fn):
    zero = wt.equal(x, 0)
    out = wt.multiply(x, wt.log1p(wt.where(zero, wt.zeros_like(y), y)))
    return wt.where(zero, wt.zeros_like(out), out)


def _xdivy(x, y, fn):
    zero = wt.equal(x, 0)
    out = wt.divide(x, wt.where(zero, wt.ones_like(y), y))
    return wt.where(zero, wt.zeros_like(out), out)


for _name, _op, _allowed, _kw in [
    ("add", _plain(wt.add), NUMERIC, {"first_fixes": True}),
    ("subtract", _plain(wt.subtract), NUMERIC, {}),
    ("multiply", _plain(wt.multiply), NUMERIC, {}),
    ("maximum", _plain(wt.maximum), REAL, {}),
    ("minimum", _plain(wt.minimum), REAL, {}),
    ("pow", _pow, SIGNED, {}),
    ("floordiv", _floordiv, REAL, {"top_level": False}),
    ("floormod", _floormod, REAL, {"top_level": False}),
    ("mod", _floormod, REAL, {"top_level": False}),
    ("truncatediv", _truncatediv, REAL, {}),
    ("truncatemod", _truncatemod, REAL, {}),
    ("realdiv", _plain(wt.divide), INEXACT, {}),
    ("squared_difference", _squared_difference, SIGNED, {"top_level": False}),
    ("divide_no_nan", _divide_no_nan, INEXACT, {"top_level": False}),
    ("multiply_no_nan", _multiply_no_nan, INEXACT, {"top_level": False}),
    ("xlogy", _xlogy, INEXACT, {"top_level": False}),
    ("xlog1py", _xlog1py, INEXACT, {"top_level": False}),
    ("xdivy", _xdivy, INEXACT, {"top_level": False}),
    ("atan2", _plain(wt.atan2), FLOAT, {"params": ("y", "x")}),
    ("nextafter", _plain(wt.nextafter), FLOAT, {"params": ("x1", "x2"), "top_level": False}),
    ("equal", _plain(wt.equal), ANY, {"keeps_weak": False}),
    ("not_equal", _plain(wt.not_equal), ANY, {"keeps_weak": False}),
    ("less", _plain(wt.less), REAL, {"keeps_weak": False}),
    ("less_equal", _plain(wt.less_equal), REAL, {"keeps_weak": False}),
    ("greater", _plain(wt.greater), REAL, {"keeps_weak": False}),
    ("greater_equal", _plain(wt.greater_equal), REAL, {"keeps_weak": False}),
    ("logical_and", _plain(wt.logical_and), BOOL, {"keeps_weak": False}),
    ("logical_or", _plain(wt.logical_or), BOOL, {"keeps_weak": False}),
    ("logical_xor", _plain(wt.logical_xor), BOOL, {"keeps_weak": False, "top_level": False}),
]:
    _binary(_name, _op, _allowed, **_kw)
del _name, _op, _allowed, _kw, _top


def _truediv(fn: str, x, y) -> Tensor:
    a, b = _operands(fn, [x, y], ("x", "y"), first_fixes=True)
    dt, weak = wt.result_type(a, b, return_weak_type_flag=True)
    if dt is wt.bool:
        raise TypeError(f"tf.{fn}: invalid dtype bool in __truediv__; TensorFlow divides "
                        f"integers, floats and complex numbers only (cast with tf.cast)")
    target = TRUEDIV_FLOAT.get(dt)
    if target is not None:  # integers divide as TensorFlow's float of their width
        a, b = wt.astype(a, target), wt.astype(b, target)
    out = wt.divide(a, b)
    return _retag(out, out.dtype, weak=True) if weak and not out.weak else out


@_export
def divide(x, y, name=None) -> Tensor:
    """``x / y``; integers divide as floats (float32 for 8/16-bit, float64 for 32/64-bit)."""
    return _truediv("divide", x, y)


@_export
def truediv(x, y, name=None) -> Tensor:
    """``x / y`` with TensorFlow's integer-to-float rule (see ``divide``)."""
    return _truediv("truediv", x, y)


@_export
def scalar_mul(scalar, x, name=None) -> Tensor:
    """``scalar * x`` for a 0-d ``scalar``, converted to ``x``'s dtype."""
    fn = "scalar_mul"
    t, s = _operands(fn, [x, scalar], ("x", "scalar"))
    if s.ndim:
        raise ValueError(f"tf.{fn}: only scalar multiply works, got a scalar of shape "
                         f"{s.shape}")
    return _weak_like(wt.multiply(s, t), s, t)


@_export
def add_n(inputs, name=None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype."""
    fn = "add_n"
    inputs = unwrap(inputs)
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    if not inputs:
        raise ValueError(f"tf.{fn}: inputs must be a non-empty list of tensors")
    tensors = _operands(fn, list(inputs), tuple(f"inputs[{i}]" for i in range(len(inputs))))
    for i, t in enumerate(tensors):
        _require(t, NUMERIC, fn, f"inputs[{i}]")
        if t.shape != tensors[0].shape:
            raise InvalidArgumentError(f"tf.{fn}", f"inputs[{i}] has shape {t.shape} but "
                                                   f"inputs[0] has {tensors[0].shape}; all "
                                                   f"inputs must have the same shape")
    out = tensors[0]
    for t in tensors[1:]:
        out = wt.add(out, t)
    return out if len(tensors) > 1 else wt.asarray(out, copy=True)


# -- reductions ----------------------------------------------------------------------------------

def _reduction(tf_name: str, allowed: frozenset, top_level: bool = True):
    def decorate(compute):
        def function(input_tensor, axis=None, keepdims=False, name=None):
            x = _require(as_tensor(input_tensor, tf_name), allowed, tf_name, "input_tensor")
            axes = _host_axes(axis, x.ndim, tf_name)
            out = compute(x, axes, _keepdims(keepdims))
            return _weak_like(out, x) if out.dtype.kind != "b" else out

        function.__name__ = function.__qualname__ = tf_name
        function.__doc__ = compute.__doc__
        return _export(function, top_level)
    return decorate


def _count(x: Tensor, axes: tuple) -> int:
    return _pymath.prod(x.shape[a] for a in axes)


@_reduction("reduce_sum", NUMERIC)
def reduce_sum(x, axes, keepdims):
    """The sum over ``axis`` (all by default), in ``input_tensor``'s dtype (integers wrap)."""
    return wt.sum(x, axis=axes, dtype=x.dtype, keepdims=keepdims)


@_reduction("reduce_prod", NUMERIC)
def reduce_prod(x, axes, keepdims):
    """The product over ``axis``, in ``input_tensor``'s dtype."""
    return wt.prod(x, axis=axes, dtype=x.dtype, keepdims=keepdims)


@_reduction("reduce_mean", NUMERIC)
def reduce_mean(x, axes, keepdims):
    """The mean over ``axis``; integer means truncate toward zero (in the input's dtype)."""
    if x.dtype.kind not in "iu":
        return wt.mean(x, axis=axes, keepdims=keepdims)
    count = _count(x, axes)
    wide = wt.uint64 if x.dtype.kind == "u" else wt.int64
    total = wt.sum(x, axis=axes, dtype=wide, keepdims=keepdims)
    if count == 0:
        return wt.astype(wt.zeros_like(total), x.dtype)
    q = wt.floor_divide(wt.abs(total) if wide is wt.int64 else total, count)
    if wide is wt.int64:
        q = wt.where(wt.less(total, 0), wt.negative(q), q)
    return wt.astype(q, x.dtype)


def _extreme(x, axes, keepdims, which: str):
    op = wt.max if which == "max" else wt.min
    if x.size and all(x.shape[a] for a in axes):
        return op(x, axis=axes, keepdims=keepdims)
    # an empty reduction gives the identity: the lowest value for max, the highest for min
    if x.dtype.kind == "f":
        identity = -_pymath.inf if which == "max" else _pymath.inf
    else:
        info = wt.iinfo(x.dtype)
        identity = info.min if which == "max" else info.max
    shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims else \
        tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return wt.full(shape, identity, dtype=x.dtype, device=x.device)


@_reduction("reduce_max", REAL)
def reduce_max(x, axes, keepdims):
    """The maximum over ``axis``; NaN propagates; an empty reduction gives -inf (floats) or
    the dtype's lowest value."""
    return _extreme(x, axes, keepdims, "max")


@_reduction("reduce_min", REAL)
def reduce_min(x, axes, keepdims):
    """The minimum over ``axis``; an empty reduction gives +inf or the dtype's highest value."""
    return _extreme(x, axes, keepdims, "min")


@_reduction("reduce_any", BOOL)
def reduce_any(x, axes, keepdims):
    """Logical or over ``axis`` (bool input)."""
    return wt.any(x, axis=axes, keepdims=keepdims)


@_reduction("reduce_all", BOOL)
def reduce_all(x, axes, keepdims):
    """Logical and over ``axis`` (bool input)."""
    return wt.all(x, axis=axes, keepdims=keepdims)


@_reduction("reduce_logsumexp", FLOAT)
def reduce_logsumexp(x, axes, keepdims):
    """``log(sum(exp(x)))`` over ``axis``, computed stably."""
    return wt.nn.logsumexp(x, axis=axes, keepdims=keepdims)


@_reduction("reduce_variance", INEXACT, top_level=False)
def reduce_variance(x, axes, keepdims):
    """The population variance over ``axis`` (real for complex input)."""
    return _variance(x, axes, keepdims)


def _variance(x, axes, keepdims):
    centred = wt.subtract(x, wt.mean(x, axis=axes, keepdims=True))
    square = wt.real(wt.multiply(centred, wt.conj(centred))) if x.dtype.kind == "c" else \
        wt.multiply(centred, centred)
    return wt.mean(square, axis=axes, keepdims=keepdims)


@_reduction("reduce_std", INEXACT, top_level=False)
def reduce_std(x, axes, keepdims):
    """The population standard deviation over ``axis``."""
    return wt.sqrt(_variance(x, axes, keepdims))


@_reduction("reduce_euclidean_norm", NUMERIC, top_level=False)
def reduce_euclidean_norm(x, axes, keepdims):
    """``sqrt(sum(|x|**2))`` over ``axis``, in the input's dtype (integers truncate)."""
    if x.dtype.kind == "c":
        power = wt.real(wt.multiply(x, wt.conj(x)))
        return wt.astype(wt.sqrt(wt.sum(power, axis=axes, keepdims=keepdims)), x.dtype)
    if x.dtype.kind in "iu":
        wide = wt.astype(x, wt.float64)
        root = wt.sqrt(wt.sum(wt.multiply(wide, wide), axis=axes, keepdims=keepdims))
        return wt.astype(root, x.dtype)
    return wt.sqrt(wt.sum(wt.multiply(x, x), axis=axes, keepdims=keepdims))


def _single_axis(axis, ndim: int, fn: str, default: int = 0) -> int:
    axis = unwrap(axis)
    if axis is None:
        axis = default
    if isinstance(axis, Tensor):
        if axis.dtype.kind not in "iu" or axis.size != 1:
            raise TypeError(f"tf.{fn}: axis must be an integer scalar, got a {axis.dtype.name} "
                            f"tensor of shape {axis.shape}")
        axis = wt.reshape(axis, ()).item()
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"tf.{fn}: axis must be an integer, got {axis!r} "
                        f"({type(axis).__name__})")
    axis = axis.__index__()
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(f"tf.{fn}", f"axis {axis} is out of range for an input of "
                                               f"rank {ndim}; it must be in [{-ndim}, {ndim})")
    return axis % ndim


def _arg_extreme(fn: str, op, input, axis, output_type) -> Tensor:
    x = _require(as_tensor(input, fn), REAL | BOOL, fn, "input")
    dt = as_dtype(output_type, fn, "output_type")
    if dt not in (wt.int16, wt.uint16, wt.int32, wt.int64):
        raise TypeError(f"tf.{fn}: output_type must be int16, uint16, int32 or int64, got "
                        f"{dt.name}")
    ax = _single_axis(axis, x.ndim, fn)
    if x.shape[ax] == 0:
        raise InvalidArgumentError(f"tf.{fn}", f"reduction axis {ax} is empty in shape "
                                               f"{list(x.shape)}")
    if x.dtype is wt.bool:
        x = wt.astype(x, wt.uint8)
    return wt.astype(op(x, axis=ax), dt)


@_export
def argmax(input, axis=None, output_type=wt.int64, name=None) -> Tensor:  # noqa: A002
    """The index of the largest value along ``axis`` (0 when None); ties give the first."""
    return _arg_extreme("argmax", wt.argmax, input, axis, output_type)


@_export
def argmin(input, axis=None, output_type=wt.int64, name=None) -> Tensor:  # noqa: A002
    """The index of the smallest value along ``axis`` (0 when None); ties give the first."""
    return _arg_extreme("argmin", wt.argmin, input, axis, output_type)


def _scan(fn: str, op, x, axis, exclusive, reverse) -> Tensor:
    x = _require(as_tensor(x, fn), NUMERIC, fn, "x")
    if x.ndim == 0:
        raise InvalidArgumentError(f"tf.{fn}", "the input must be at least 1-D, got a scalar")
    ax = _single_axis(axis, x.ndim, fn)
    if reverse:
        x = wt.flip(x, axis=ax)
    out = op(x, axis=ax, dtype=x.dtype)
    if exclusive and x.shape[ax]:
        identity = wt.ones_like if op is wt.cumprod else wt.zeros_like
        first = identity(wt.take(out, wt.asarray([0], device=x.device), axis=ax))
        rest = wt.take(out, wt.arange(x.shape[ax] - 1, device=x.device), axis=ax)
        out = wt.concat([first, rest], axis=ax)
    if reverse:
        out = wt.flip(out, axis=ax)
    return _weak_like(out, x)


@_export
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Cumulative sum along ``axis``; ``exclusive`` starts from 0, ``reverse`` runs backwards."""
    return _scan("cumsum", wt.cumsum, x, axis, exclusive, reverse)


@_math_only
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None) -> Tensor:
    """Cumulative product along ``axis``; ``exclusive`` starts from 1."""
    return _scan("cumprod", wt.cumprod, x, axis, exclusive, reverse)


@_math_only
def count_nonzero(input, axis=None, keepdims=None, dtype=wt.int64, name=None):  # noqa: A002
    """The number of nonzero (true) elements over ``axis``, as ``dtype`` (int64)."""
    fn = "count_nonzero"
    x = as_tensor(input, fn)
    axes = _host_axes(axis, x.ndim, fn)
    out = wt.sum(wt.astype(wt.not_equal(x, 0), wt.int64), axis=axes,
                 keepdims=_keepdims(keepdims))
    return wt.astype(out, as_dtype(dtype, fn))


@_math_only
def zero_fraction(value, name=None) -> Tensor:
    """The fraction of zeros in ``value`` as a float32 scalar."""
    x = as_tensor(value, "zero_fraction")
    return wt.mean(wt.astype(wt.equal(x, 0), wt.float32))


def _monotone(fn: str, x, strict: bool) -> Tensor:
    t = _require(as_tensor(x, fn), REAL, fn, "x")
    flat = wt.reshape(t, (-1,))
    if flat.size < 2:
        return wt.asarray(True, device=t.device)
    compare = wt.less if strict else wt.less_equal
    return wt.all(compare(flat[:-1], flat[1:]))


@_math_only
def is_non_decreasing(x, name=None) -> Tensor:
    """True when the flattened ``x`` never decreases (True for fewer than 2 elements)."""
    return _monotone("is_non_decreasing", x, strict=False)


@_math_only
def is_strictly_increasing(x, name=None) -> Tensor:
    """True when the flattened ``x`` always increases (True for fewer than 2 elements)."""
    return _monotone("is_strictly_increasing", x, strict=True)


@_math_only
def top_k(input, k=1, sorted=True, index_type=wt.int32, name=None):  # noqa: A002
    """The ``k`` largest entries along the last axis and their indices, largest first (ties:
    the lower index first); a ``(values, indices)`` named tuple."""
    fn = "top_k"
    x = _require(as_tensor(input, fn), REAL, fn, "input")
    k = unwrap(k)
    k = k.item() if isinstance(k, Tensor) and k.size == 1 else k
    if isinstance(k, bool) or not hasattr(k, "__index__"):
        raise TypeError(f"tf.{fn}: k must be an integer, got {k!r} ({type(k).__name__})")
    k = k.__index__()
    if x.ndim == 0:
        raise InvalidArgumentError(f"tf.{fn}", "input must be at least 1-D, got a scalar")
    if not 0 <= k <= x.shape[-1]:
        raise InvalidArgumentError(f"tf.{fn}", f"k={k} must be in [0, {x.shape[-1]}] (the last "
                                               f"dimension of input)")
    dt = as_dtype(index_type, fn, "index_type")
    if dt not in (wt.int16, wt.int32, wt.int64):
        raise TypeError(f"tf.{fn}: index_type must be int16, int32 or int64, got {dt.name}")
    order = wt.argsort(x, axis=-1, descending=True, stable=True)[..., :k]
    values = wt.take_along_axis(x, order, axis=-1)
    return TopKV2(_weak_like(values, x), wt.astype(order, dt))


@_math_only
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Tensor:
    """``x / sqrt(max(sum(x**2, axis), epsilon))`` (all axes when ``axis`` is None)."""
    fn = "l2_normalize"
    if dim is not None:
        if axis is not None:
            raise ValueError(f"tf.{fn}: cannot specify both 'axis' and 'dim'; use axis")
        axis = dim
    t = _require(as_tensor(x, fn), INEXACT, fn, "x")
    axes = _host_axes(axis, t.ndim, fn)
    if t.dtype.kind == "c":
        power = wt.real(wt.multiply(t, wt.conj(t)))
    else:
        power = wt.multiply(t, t)
    total = wt.sum(power, axis=axes, keepdims=True)
    floor = wt.full_like(total, float(epsilon))
    return wt.multiply(t, wt.astype(_rsqrt(wt.maximum(total, floor)), t.dtype))


@_math_only
def softmax(logits, axis=None, name=None) -> Tensor:
    """``exp(logits) / sum(exp(logits), axis)`` (last axis when None), computed stably."""
    fn = "softmax"
    x = _require(as_tensor(logits, fn), FLOAT, fn, "logits")
    return wt.nn.softmax(x, axis=_single_axis(axis, x.ndim, fn, default=-1))


@_math_only
def log_softmax(logits, axis=None, name=None) -> Tensor:
    """``logits - log(sum(exp(logits), axis))`` (last axis when None), computed stably."""
    fn = "log_softmax"
    x = _require(as_tensor(logits, fn), FLOAT, fn, "logits")
    return wt.nn.log_softmax(x, axis=_single_axis(axis, x.ndim, fn, default=-1))


@_math_only
def invert_permutation(x, name=None) -> Tensor:
    """The inverse of the permutation ``x`` (1-D int32/int64): ``y[x[i]] = i``."""
    fn = "invert_permutation"
    t = as_tensor(x, fn)
    if t.dtype not in (wt.int32, wt.int64):
        raise InvalidArgumentError(f"tf.{fn}", f"x must be int32 or int64, got {t.dtype.name}")
    if t.ndim != 1:
        raise InvalidArgumentError(f"tf.{fn}", f"x must be 1-D, got shape {t.shape}")
    values = t.tolist()
    if sorted(values) != list(builtins.range(len(values))):
        raise InvalidArgumentError(f"tf.{fn}", f"x = {values} is not a permutation of 0..."
                                               f"{len(values) - 1}")
    return wt.astype(wt.argsort(t), t.dtype)


@_math_only
def polyval(coeffs, x, name=None) -> Tensor:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (zeros for no
    coefficients)."""
    fn = "polyval"
    coeffs = unwrap(coeffs)
    if isinstance(coeffs, Tensor):
        coeffs = list(wt.unstack(coeffs)) if coeffs.ndim else [coeffs]
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"tf.{fn}: coeffs must be a list of tensors or numbers, got "
                         f"{type(coeffs).__name__}")
    if not coeffs:
        return wt.zeros_like(as_tensor(x, fn))
    out = coeffs[0]
    for c in coeffs[1:]:
        out = globals()["add"](globals()["multiply"](out, x), c)
    return as_tensor(out, fn)


# -- products -----------------------------------------------------------------------------------

@_export
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None) -> Tensor:
    """The matrix product of the last two dimensions (batched over the leading ones), after
    transposing (``transpose_*``) or conjugate-transposing (``adjoint_*``) an operand."""
    fn = "matmul"
    x, y = _operands(fn, [a, b], ("a", "b"), first_fixes=True)
    for t, arg in ((x, "a"), (y, "b")):
        _require(t, MATMUL, fn, arg)
        if t.ndim < 2:
            raise InvalidArgumentError(f"tf.{fn}", f"`{arg}` must be at least 2-D (a matrix or "
                                                   f"a batch of them), got shape {t.shape}")
    flags = ((x, transpose_a, adjoint_a, "a"), (y, transpose_b, adjoint_b, "b"))
    ready = []
    for t, transpose, adjoint, arg in flags:
        if transpose and adjoint:
            raise ValueError(f"tf.{fn}: only one of transpose_{arg} and adjoint_{arg} can be "
                             f"True")
        if transpose or adjoint:
            t = wt.matrix_transpose(t)
            if adjoint and t.dtype.kind == "c":
                t = wt.conj(t)
        ready.append(t)
    out = wt.matmul(*ready)
    if output_type is not None:
        out = wt.astype(out, as_dtype(output_type, fn, "output_type"))
    return _weak_like(out, x, y)


@_export
def tensordot(a, b, axes, name=None) -> Tensor:
    """Sums products over ``axes`` (an int N: the last N of ``a`` with the first N of ``b``;
    or a pair of axis lists)."""
    fn = "tensordot"
    x, y = _operands(fn, [a, b], ("a", "b"), first_fixes=True)
    _require(x, MATMUL, fn, "a")
    axes = unwrap(axes)
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    try:
        out = wt.tensordot(x, y, axes=axes)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"tf.{fn}", str(e).partition(": ")[2] or str(e)) from None
    return _weak_like(out, x, y)
