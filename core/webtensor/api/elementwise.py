"""The Array API elementwise functions, generated from the op table in ``webtensor.ops``."""

from __future__ import annotations

import builtins

from .. import dtypes as _d
from .. import promotion as _p
from ..ops import BINARY, ELEMENTWISE, UNARY, ElementwiseOp
from ..tensor import Tensor, cast, empty
from ._common import (
    PLAIN_SCALARS,
    as_tensor,
    broadcast_all,
    check_kind,
    check_supported,
    common_device,
    float_dtype_for,
    operand,
    promote,
    stretch,
    stretched_operand,
)

__all__ = [op.name for op in UNARY + BINARY] + ["clip", "where"]


def _result_dtypes(op: ElementwiseOp, dt: _d.DType):
    """(computation dtype, output dtype) of ``op`` on promoted dtype ``dt``."""
    check_kind(dt, op.kinds, op.name)
    if op.result == "complex":  # two float parts make one complex of their precision
        return dt, dt.complex_dtype
    compute = float_dtype_for(dt) if op.result == "float" else dt
    if op.result == "bool":
        return compute, _d.bool
    if op.result == "real":
        return compute, compute.real_dtype
    return compute, compute


def apply_unary(op: ElementwiseOp, x) -> Tensor:
    x = as_tensor(x, op.name)
    compute, out_dt = _result_dtypes(op, x.dtype)
    # NOTE: numpy mode has no weak results, for unary ops as for binary ones.
    weak = x.weak and out_dt is not _d.bool and _p.MODE.get().weak_results
    a = operand(x, compute, x.device)
    out = empty(x.shape, out_dt, x.device, weak=weak, names=x.names)
    x._backend.unary(op.name, out, a)
    return out


def _is_square(exponent, compute: _d.DType, out_dt: _d.DType) -> bool:
    """``x ** 2`` of a real tensor: computed as ``x * x`` (as NumPy's ``**`` does), one
    correctly rounded product, the bits every device's ``pow`` rounds to (it rounds x^2 once
    from a wider result, or powers integers by multiplying), without a kernel's exp/log."""
    return (exponent.__class__ in (int, float) and exponent == 2 and compute is out_dt
            and compute.kind in "iuf")


def apply_binary(op: ElementwiseOp, x1, x2) -> Tensor:
    dt, weak, device, (x1, x2) = promote((x1, x2), op.name)
    compute, out_dt = _result_dtypes(op, dt)
    c1, c2 = x1.__class__, x2.__class__
    if c1 is Tensor and c2 in PLAIN_SCALARS and x1.names is None:
        # tensor op Python scalar: the scalar's stretched operand comes from a cache
        a = cast(x1, compute)
        shape, names = a.shape, None
        if op.name == "pow" and _is_square(x2, compute, out_dt):
            out = empty(shape, out_dt, device, weak=weak)
            device.backend.binary("multiply", out, a, a)
            return out
        b = stretched_operand(x2, compute, device, weak, shape)
    elif c2 is Tensor and c1 in PLAIN_SCALARS and x2.names is None:
        b = cast(x2, compute)
        shape, names = b.shape, None
        a = stretched_operand(x1, compute, device, weak, shape)
    else:
        # a tensor already of the computation dtype is its own operand (what operand returns)
        a = x1 if c1 is Tensor and x1.dtype is compute else operand(x1, compute, device, weak)
        b = x2 if c2 is Tensor and x2.dtype is compute else operand(x2, compute, device, weak)
        if a.names is None and b.names is None and (a.shape == b.shape or not a.shape
                                                       or not b.shape):
            # The common case, tensors of one shape (or 0-d): nothing to merge, and a 0-d
            # operand is stretched with all-zero strides.
            shape, names = (b.shape if not a.shape else a.shape), None
            if a.shape != shape:
                a = stretch(a, shape)
            if b.shape != shape:
                b = stretch(b, shape)
        else:
            (a, b), shape, names = broadcast_all((a, b), op.name)
    out = empty(shape, out_dt, device, weak=weak and out_dt is not _d.bool, names=names)
    device.backend.binary(op.name, out, a, b)
    return out


def _make(op: ElementwiseOp):
    if op.arity == 1:
        def fn(x, /):
            return apply_unary(op, x)
    else:
        def fn(x1, x2, /):
            return apply_binary(op, x1, x2)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = op.doc
    return fn


for _op in ELEMENTWISE.values():
    globals()[_op.name] = _make(_op)
del _op


def where(condition, x1=None, x2=None, /):
    """``x1`` where ``condition`` else ``x2`` (with one argument: the indices of nonzeros)."""
    if x1 is None and x2 is None:
        from .searching import nonzero

        return nonzero(condition)
    if x1 is None or x2 is None:
        raise TypeError("wt.where: pass both x1 and x2, or neither (for the nonzero indices)")
    dev = next((a.device for a in (x1, x2) if a.__class__ is Tensor), None)
    cond = as_tensor(condition, "where", dev)
    if cond.dtype is not _d.bool:
        cond = globals()["not_equal"](cond, 0)
    dt, weak, device, (x1, x2) = promote((x1, x2), "where")
    if dev is None:  # two Python scalars: they go where the condition is
        device = cond.device
    elif cond.device is not device:
        common_device([cond, x1 if x1.__class__ is Tensor else x2], "where")
    a = operand(x1, dt, device, weak)
    b = operand(x2, dt, device, weak)
    (c, a, b), shape, names = broadcast_all((cond, a, b), "where")
    out = empty(shape, dt, device, weak=weak, names=names)
    device.backend.where(out, c, a, b)
    return out


def clip(x, /, min=None, max=None):  # noqa: A002 - Array API names
    """Clamp ``x`` to ``[min, max]`` (either may be None); keeps ``x``'s dtype."""
    x = as_tensor(x, "clip")
    check_supported(x.dtype, "clip")
    out = x
    if min is not None:
        out = globals()["maximum"](out, min)
    if max is not None:
        out = globals()["minimum"](out, max)
    if out is x:
        from .creation import asarray

        return asarray(x, copy=True)
    return cast(out, x.dtype, weak=x.weak)


# -- operators --------------------------------------------------------------------------------------

_OPERATORS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
_COMPARISONS = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                "gt": "greater", "ge": "greater_equal"}
_UNARY_OPERATORS = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}


# NOTE: the op table's functions shadow builtins here (abs, pow, round, complex).
_OPERAND_TYPES = (bool, int, float, builtins.complex, list, tuple)


def _operand_ok(other) -> bool:
    """Operands our operators take; anything else gets NotImplemented (Python's protocol)."""
    return (other.__class__ is Tensor or isinstance(other, _OPERAND_TYPES)
            or hasattr(other, "__array_interface__"))


def _refuse_text(op, other):
    # NotImplemented would let Python try str/bytes repetition with the tensor as the count
    raise TypeError(f"wt.{op.name}: cannot combine a tensor with a {type(other).__name__} "
                    f"({other!r:.40}); convert the text to numbers first")


def _forward(op, refuse_text: bool = True):
    def forward(self, other):
        if _operand_ok(other):
            return apply_binary(op, self, other)
        if refuse_text and isinstance(other, (str, bytes)):
            _refuse_text(op, other)
        return NotImplemented
    return forward


def _reflected(op):
    def reflected(self, other):
        if _operand_ok(other):
            return apply_binary(op, other, self)
        if isinstance(other, (str, bytes)):
            _refuse_text(op, other)
        return NotImplemented
    return reflected


def _inplace(op):
    def inplace(self, other):
        from .manipulation import assign_into

        assign_into(self, apply_binary(op, self, other), f"{op.name} (in place)")
        return self
    return inplace


def _install_operators():
    for dunder, name in _OPERATORS.items():
        op = ELEMENTWISE[name]
        setattr(Tensor, f"__{dunder}__", _forward(op))
        setattr(Tensor, f"__r{dunder}__", _reflected(op))
        setattr(Tensor, f"__i{dunder}__", _inplace(op))
    for dunder, name in _COMPARISONS.items():
        # == and != with text fall back to identity (False / True), as Python does
        setattr(Tensor, f"__{dunder}__", _forward(ELEMENTWISE[name], dunder not in ("eq", "ne")))
    for dunder, name in _UNARY_OPERATORS.items():
        op = ELEMENTWISE[name]
        setattr(Tensor, f"__{dunder}__", lambda self, op=op: apply_unary(op, self))

    from .linalg import matmul as mm  # linalg imports this module, so bind it here

    def matmul(self, other):
        return mm(self, other)

    def rmatmul(self, other):
        return mm(other, self)

    Tensor.__matmul__, Tensor.__rmatmul__ = matmul, rmatmul


_install_operators()
