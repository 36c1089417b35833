"""Elementwise ops and dimension shuffles.

:class:`Elemwise` applies one entry of :data:`SCALAR_OPS` to tensors.  As in PyTensor, its
inputs have one rank (lower-rank inputs get leading broadcastable axes through a
:class:`DimShuffle`), its output dtype comes from the entry's rule over the input dtypes, and
its static shape from the inputs' static shapes, where a size is known if any input knows it
and 1 only if every input has 1.  Sizes that cannot agree are refused when the graph is built;
when the function runs, a size-1 axis that the type did not declare broadcastable is refused
too (PyTensor does not broadcast at run time).

An entry computes with webtensor functions: its inputs are first cast to the dtype the entry
computes in (``compute``), so webtensor's promotion never decides a result dtype.
"""

from __future__ import annotations

import math

import webtensor as wt

from . import _dtypes as _dt
from .graph import Apply, Op
from .type import TensorType


class ScalarOp:
    """One elementwise operation: PyTensor's name for it, the rule for its output dtype, the
    dtype its inputs are cast to before ``fn`` runs, and how ``pp`` writes it."""

    def __init__(self, name, fn, out, compute="out", nin=1, infix=None, pp_name=None,
                 literals=True):
        self.name = name  # as PyTensor prints the op (Add, True_div, Sigmoid)
        self.fn = fn  # (*tensors) -> tensor, the inputs already in the compute dtype
        self.out = out  # (*dtype names) -> dtype name; raises TypeError for refused dtypes
        self.compute = compute  # "out" | "upcast" | "keep" | "switch" | "second"
        self.nin = nin  # -1: any number (add, mul)
        self.infix = infix
        self.pp_name = pp_name
        self.literals = literals  # scalar constants may ride as Python numbers

    def __repr__(self) -> str:
        return f"ScalarOp({self.name})"


# -- output dtype rules (PyTensor's output_types_preference functions) ----------------------

def _refuse(name: str, dtypes, why: str):
    raise TypeError(f"{name}: {why} (input dtypes: {', '.join(dtypes)})")


def upcast_out(name):
    return lambda *ds: _dt.upcast(*ds)


def upcast_out_nobool(name):
    def rule(*ds):
        out = _dt.upcast(*ds)
        if out == "bool":
            _refuse(name, ds, "bool output not supported; cast an input to an integer dtype")
        return out
    return rule


def upcast_out_min8(name):
    return lambda *ds: "int8" if _dt.upcast(*ds) == "bool" else _dt.upcast(*ds)


def upcast_out_no_complex(name):
    def rule(*ds):
        if any(d in _dt.COMPLEX for d in ds):
            _refuse(name, ds, "complex dtypes are not supported")
        return _dt.upcast(*ds)
    return rule


def upgrade_to_float(name):
    return lambda *ds: _dt.upgrade_to_float(*ds)


def upgrade_to_float_no_complex(name):
    def rule(*ds):
        if any(d in _dt.COMPLEX for d in ds):
            _refuse(name, ds, "complex dtypes are not supported")
        return _dt.upgrade_to_float(*ds)
    return rule


def same_out(name):
    return lambda d: d


def same_out_nobool(name):
    def rule(d):
        if d == "bool":
            _refuse(name, (d,), "bool input not supported")
        return d
    return rule


def same_out_nocomplex_nobool(name):
    def rule(d):
        if d == "bool" or d in _dt.COMPLEX:
            _refuse(name, (d,), "bool and complex inputs are not supported")
        return d
    return rule


def same_out_float_only(name):
    def rule(d):
        if d not in _dt.FLOAT:
            _refuse(name, (d,), "only float types are supported")
        return d
    return rule


def real_out(name):
    return lambda d: _dt.REAL_OF.get(d, d)


def float64_out(name):
    return lambda *ds: "float64"


def bool_out(name):
    return lambda *ds: "bool"


def true_div_out(name):
    from .config import config

    def rule(*ds):
        if all(d in _dt.DISCRETE for d in ds):
            return config.floatX
        return _dt.upcast(*ds)
    return rule


def bitwise_out(name):
    def rule(*ds):
        if any(d not in _dt.DISCRETE for d in ds):
            _refuse(name, ds, "bitwise operations need integer or bool inputs")
        if "bool" in ds and any(d != "bool" for d in ds):
            _refuse(name, ds, "bool and integer inputs do not mix; cast the bool input")
        return _dt.upcast(*ds)
    return rule


def switch_out(name):
    return lambda c, a, b: _dt.upcast(a, b)


def second_out(name):
    return lambda a, b: b


# -- implementations in webtensor calls -------------------------------------------------------

def _fold(fn):
    """A variadic op (add, mul) from a binary one.  On bools webtensor's add and multiply are
    NumPy's logical or / and, as PyTensor's ops define them."""
    def run(*xs):
        acc = xs[0]
        for x in xs[1:]:
            acc = fn(acc, x)
        return acc
    return run


def _bool_identity(fn):
    return lambda x: x if _is_bool(x) else fn(x)


def _is_bool(x) -> bool:
    return isinstance(x, wt.Tensor) and x.dtype == wt.bool


def _sqr(x):
    return wt.logical_and(x, x) if _is_bool(x) else wt.square(x)


def _imag(x):
    return wt.zeros_like(x) if _is_bool(x) else wt.imag(x)


def _angle(x):
    if x.dtype.kind == "c":
        return wt.astype(wt.atan2(wt.imag(x), wt.real(x)), wt.float64)
    xf = wt.astype(x, wt.float64)
    return wt.atan2(wt.zeros_like(xf), xf)


def _round_half_away(x):
    # exact: x - trunc(x) loses no bits, so the comparison with 0.5 decides the tie rule
    t = wt.trunc(x)
    return wt.where(wt.abs(wt.subtract(x, t)) >= 0.5, wt.add(t, wt.sign(x)), t)


def _clip(x, lo, hi):
    return wt.minimum(wt.maximum(x, lo), hi)


def _exp2(x):
    return wt.pow(2.0, x)


def _second(a, b):
    return wt.broadcast_to(b, wt.broadcast_shapes(a.shape, b.shape))


def _deg2rad(x):
    return wt.multiply(x, math.pi / 180.0)


def _rad2deg(x):
    return wt.multiply(x, 180.0 / math.pi)


def _identity(x):
    return wt.astype(x, x.dtype, copy=True)


def _entries():
    e = {}

    def add(key, name, fn, rule, **kw):
        e[key] = ScalarOp(name, fn, rule(name), **kw)

    add("add", "Add", _fold(wt.add), upcast_out, nin=-1, infix="+")
    add("sub", "Sub", wt.subtract, upcast_out_nobool, nin=2, infix="-")
    add("mul", "Mul", _fold(wt.multiply), upcast_out, nin=-1, infix="*")
    add("true_div", "True_div", wt.divide, true_div_out, nin=2, infix="/")
    add("int_div", "Int_div", wt.floor_divide, upcast_out, nin=2, infix="//")
    add("mod", "Mod", wt.remainder, upcast_out, nin=2)
    add("pow", "Pow", wt.pow, upcast_out_min8, nin=2, infix="**")
    add("maximum", "Maximum", wt.maximum, upcast_out, nin=2)
    add("minimum", "Minimum", wt.minimum, upcast_out, nin=2)
    add("arctan2", "ArcTan2", wt.atan2, upgrade_to_float, nin=2)
    add("logaddexp", "LogAddExp", wt.logaddexp, upgrade_to_float, nin=2)
    for key, name, fn in (("lt", "Lt", wt.less), ("gt", "Gt", wt.greater),
                          ("le", "Le", wt.less_equal), ("ge", "Ge", wt.greater_equal),
                          ("eq", "Eq", wt.equal), ("neq", "Neq", wt.not_equal)):
        add(key, name, fn, bool_out, nin=2, compute="upcast")
    add("and_", "And", wt.bitwise_and, bitwise_out, nin=2)
    add("or_", "Or", wt.bitwise_or, bitwise_out, nin=2)
    add("xor", "Xor", wt.bitwise_xor, bitwise_out, nin=2)
    add("invert", "Invert", wt.bitwise_invert, bitwise_out)
    add("switch", "Switch", wt.where, switch_out, nin=3, compute="switch")
    add("clip", "Clip", _clip, upcast_out_no_complex, nin=3)
    add("second", "Second", _second, second_out, nin=2, compute="second", pp_name="fill",
        literals=False)
    add("identity", "Identity", _identity, same_out)
    add("neg", "Neg", wt.negative, same_out_nobool)
    add("abs", "Abs", _bool_identity(wt.abs), real_out, compute="keep")
    add("sqr", "Sqr", _sqr, same_out)
    add("sign", "Sign", wt.sign, same_out_nocomplex_nobool)
    for key, name, fn in (("sqrt", "Sqrt", wt.sqrt), ("exp", "Exp", wt.exp),
                          ("exp2", "Exp2", _exp2), ("expm1", "Expm1", wt.expm1),
                          ("log", "Log", wt.log), ("log2", "Log2", wt.log2),
                          ("log10", "Log10", wt.log10), ("log1p", "Log1p", wt.log1p),
                          ("sin", "Sin", wt.sin), ("cos", "Cos", wt.cos), ("tan", "Tan", wt.tan),
                          ("arcsin", "ArcSin", wt.asin), ("arccos", "ArcCos", wt.acos),
                          ("arctan", "ArcTan", wt.atan), ("sinh", "Sinh", wt.sinh),
                          ("cosh", "Cosh", wt.cosh), ("tanh", "Tanh", wt.tanh),
                          ("arcsinh", "ArcSinh", wt.asinh), ("arccosh", "ArcCosh", wt.acosh),
                          ("arctanh", "ArcTanh", wt.atanh),
                          ("reciprocal", "Reciprocal", wt.reciprocal),
                          ("sigmoid", "Sigmoid", wt.nn.sigmoid),
                          ("softplus", "Softplus", wt.nn.softplus),
                          ("deg2rad", "Deg2Rad", _deg2rad), ("rad2deg", "Rad2Deg", _rad2deg)):
        add(key, name, fn, upgrade_to_float)
    for key, name, fn in (("ceil", "Ceil", wt.ceil), ("floor", "Floor", wt.floor),
                          ("trunc", "Trunc", wt.trunc)):
        add(key, name, fn, upgrade_to_float_no_complex)
    add("round_half_to_even", "RoundHalfToEven", wt.round, same_out_float_only)
    add("round_half_away_from_zero", "RoundHalfAwayFromZero", _round_half_away,
        same_out_float_only)
    add("real", "Real", _bool_identity(wt.real), real_out, compute="keep")
    add("imag", "Imag", _imag, real_out, compute="keep")
    add("angle", "Angle", _angle, float64_out, compute="keep")
    add("conj", "Conj", _bool_identity(wt.conj), same_out, compute="keep")
    add("isnan", "IsNan", wt.isnan, bool_out, compute="keep")
    add("isinf", "IsInf", wt.isinf, bool_out, compute="keep")
    return e


SCALAR_OPS = _entries()


# -- static shapes --------------------------------------------------------------------------------

def broadcast_static(inputs, fn: str) -> tuple:
    """The static shape of an elementwise result over ``inputs`` (all of one rank), or a
    ValueError naming the two operands whose known sizes differ."""
    ndim = inputs[0].type.ndim
    out = []
    for d in range(ndim):
        known = None
        who = None
        all_one = True
        for v in inputs:
            s = v.type.shape[d]
            if s != 1:
                all_one = False
            if s is None or s == 1:
                continue
            if known is None:
                known, who = s, v
            elif s != known:
                shapes = [v.type.shape for v in inputs]
                raise ValueError(
                    f"{fn}: incompatible static shapes: {who} ({who.type}) has size {known} and "
                    f"{v} ({v.type}) has size {s} in axis {d}; sizes must be equal, or 1 to "
                    f"broadcast (Incompatible Elemwise input shapes {shapes})")
        out.append(known if known is not None else (1 if all_one else None))
    return tuple(out)


def literal_value(var):
    """The Python number a 0-d constant (possibly behind dimshuffles that only add axes)
    stands for, or None."""
    from .variable import TensorConstant

    while var.owner is not None and isinstance(var.owner.op, DimShuffle) and \
            var.owner.op.only_adds_axes:
        var = var.owner.inputs[0]
    if isinstance(var, TensorConstant) and var.type.ndim == 0:
        return var.scalar_value()
    return None


_PY = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


class Elemwise(Op):
    """``scalar_op`` applied elementwise with PyTensor's broadcasting rules."""

    __props__ = ("key",)

    def __init__(self, key: str, dtype: str | None = None):
        self.key = key
        self.scalar_op = SCALAR_OPS[key] if key != "cast" else None
        self.dtype = dtype  # Cast's target

    def _props(self):
        return (self.key, self.dtype)

    def __str__(self) -> str:
        if self.key == "cast":
            return f"Cast{{{self.dtype}}}"
        return self.scalar_op.name

    def out_dtype(self, dtypes) -> str:
        if self.key == "cast":
            return self.dtype
        return self.scalar_op.out(*dtypes)

    def make_node(self, *inputs):
        from .basic import as_tensor_variable

        inputs = [as_tensor_variable(i) for i in inputs]
        sop = self.scalar_op
        if sop is not None and sop.nin > 0 and len(inputs) != sop.nin:
            raise TypeError(f"{self}: takes {sop.nin} inputs, got {len(inputs)}")
        if not inputs:
            raise TypeError(f"{self}: needs at least one input")
        ndim = max(v.type.ndim for v in inputs)
        inputs = [v if v.type.ndim == ndim else
                  DimShuffle(v.type.ndim, ("x",) * (ndim - v.type.ndim) +
                             tuple(range(v.type.ndim)))(v) for v in inputs]
        out_dtype = self.out_dtype([v.type.dtype for v in inputs])
        shape = broadcast_static(inputs, str(self))
        return Apply(self, inputs, [TensorType(out_dtype, shape)])

    # -- running ------------------------------------------------------------------------------
    def perform(self, ev, node, inputs):
        out_type = node.outputs[0].type
        shape = check_runtime_broadcast(self, node, inputs)
        if self.key == "cast":
            return [wt.astype(inputs[0], _dt.wt_dtype(self.dtype))]
        sop = self.scalar_op
        mode = sop.compute
        if mode == "out":
            targets = [out_type.dtype] * len(inputs)
        elif mode == "upcast":
            targets = [_dt.upcast(*[v.type.dtype for v in node.inputs])] * len(inputs)
        elif mode == "switch":
            targets = ["bool", out_type.dtype, out_type.dtype]
        elif mode == "second":
            targets = [None, out_type.dtype]
        else:
            targets = [None] * len(inputs)
        args = []
        tensors = 0
        for var, t, target in zip(node.inputs, inputs, targets):
            lit = literal_value(var) if sop.literals and target is not None else None
            if lit is not None:
                args.append(_PY[_dt.KIND[target]](lit))
            else:
                tensors += 1
                args.append(t if target is None or t.dtype.name == target else
                            wt.astype(t, _dt.wt_dtype(target)))
        if tensors == 0:
            args = [t if target is None or t.dtype.name == target else
                    wt.astype(t, _dt.wt_dtype(target))
                    for t, target in zip(inputs, targets)]
        out = sop.fn(*args)
        if out.shape != shape:
            out = wt.broadcast_to(out, shape)
        return [out]

    def pp(self, node, args):
        sop = self.scalar_op
        if self.key == "cast":
            return f"{self.dtype}({args[0]})"
        if sop.infix:
            return "(" + f" {sop.infix} ".join(args) + ")"
        if self.key == "neg":
            return f"(-{args[0]})"
        if self.key == "abs":
            return f"|{args[0]}|"
        return f"{sop.pp_name or sop.name}({', '.join(args)})"


def check_runtime_broadcast(op, node, inputs) -> tuple:
    """The result shape of an elementwise application, refusing what PyTensor refuses at run
    time: an axis of size 1 whose type did not declare it broadcastable, against a longer one,
    and sizes that differ."""
    shapes = [t.shape for t in inputs]
    ndim = len(shapes[0]) if shapes else 0
    out = []
    for d in range(ndim):
        n = max(s[d] for s in shapes)
        if any(s[d] == 0 for s in shapes):
            n = 0
        out.append(n)
    for k, (var, s) in enumerate(zip(node.inputs, shapes)):
        for d in range(ndim):
            if s[d] == out[d]:
                continue
            if s[d] == 1 and var.type.shape[d] != 1:
                raise ValueError(
                    f"{op}: runtime broadcasting is not allowed: input {k} ({var}, of type "
                    f"{var.type}) has length 1 in axis {d} where another input has length "
                    f"{out[d]}, but its type does not mark axis {d} broadcastable. Declare it "
                    f"(at.tensor(shape=...) with 1 there, at.row/at.col, specify_shape) or "
                    f"add the axis with dimshuffle('x', ...)")
            if s[d] != 1:
                raise ValueError(
                    f"{op}: input shapes {[tuple(x) for x in shapes]} do not match: input {k} "
                    f"({var}) has length {s[d]} in axis {d} where another has {out[d]}")
    return tuple(out)


# -- dimshuffle ---------------------------------------------------------------------------------

class DimShuffle(Op):
    """Permute axes, drop broadcastable (size-1) axes, insert broadcastable ones ('x')."""

    __props__ = ("input_ndim", "new_order")

    def __init__(self, input_ndim: int, new_order):
        new_order = tuple(new_order)
        for e in new_order:
            if e != "x" and not (isinstance(e, int) and 0 <= e < input_ndim):
                raise ValueError(f"dimshuffle: pattern entries must be 'x' or an axis in "
                                 f"[0, {input_ndim}), got {e!r} in {new_order}")
        kept = [e for e in new_order if e != "x"]
        if len(set(kept)) != len(kept):
            raise ValueError(f"dimshuffle: an axis appears twice in the pattern {new_order}")
        self.input_ndim = input_ndim
        self.new_order = new_order
        self.drop = tuple(d for d in range(input_ndim) if d not in kept)
        self.perm = tuple(kept)
        self.only_adds_axes = not self.drop and list(kept) == sorted(kept)

    def make_node(self, x):
        from .basic import as_tensor_variable

        x = as_tensor_variable(x)
        if x.type.ndim != self.input_ndim:
            raise TypeError(f"dimshuffle: the pattern {self.new_order} is for a {self.input_ndim}"
                            f"-d input, got {x} of type {x.type}")
        for d in self.drop:
            if x.type.shape[d] not in (1, None):
                raise TypeError(
                    f"dimshuffle: cannot drop axis {d} of {x} ({x.type}): only axes of size 1 "
                    f"can be dropped; pattern {self.new_order}")
        shape = tuple(1 if e == "x" else x.type.shape[e] for e in self.new_order)
        return Apply(self, [x], [TensorType(x.type.dtype, shape)])

    def perform(self, ev, node, inputs):
        (t,) = inputs
        if self.drop:
            for d in self.drop:
                if t.shape[d] != 1:
                    raise ValueError(f"{self}: axis {d} of {node.inputs[0]} has size "
                                     f"{t.shape[d]}; only axes of size 1 can be dropped")
            t = wt.squeeze(t, axis=self.drop)
        if self.perm != tuple(sorted(self.perm)):
            rank = sorted(self.perm)
            t = wt.permute_dims(t, tuple(rank.index(p) for p in self.perm))
        for pos, e in enumerate(self.new_order):
            if e == "x":
                t = wt.expand_dims(t, axis=pos)
        return [t]

    def __str__(self) -> str:
        order = self.new_order
        adds = [i for i, e in enumerate(order) if e == "x"]
        if self.only_adds_axes and adds:
            return (f"ExpandDims{{axis={adds[0]}}}" if len(adds) == 1 else
                    f"ExpandDims{{axes={tuple(adds)}}}")
        if not adds and self.drop and list(self.perm) == sorted(self.perm):
            return (f"Squeeze{{axis={self.drop[0]}}}" if len(self.drop) == 1 else
                    f"Squeeze{{axes={list(self.drop)}}}")
        if not adds and not self.drop:
            n = self.input_ndim
            if n >= 2 and self.perm == tuple(range(n - 2)) + (n - 1, n - 2):
                return "MatrixTranspose" if n == 2 else "Transpose{axes=" + \
                    str(list(self.perm)) + "}"
            return f"Transpose{{axes={list(self.perm)}}}"
        return "DimShuffle{order=[" + ",".join(str(e) for e in order) + "]}"

    def pp(self, node, args):
        if self.only_adds_axes:
            return args[0]
        if str(self) == "MatrixTranspose":
            return f"{args[0]}.T"
        return "DimShuffle{" + ", ".join(str(e) for e in self.new_order) + f"}}({args[0]})"


def dimshuffle(x, *pattern):
    from .basic import as_tensor_variable

    x = as_tensor_variable(x)
    if len(pattern) == 1 and isinstance(pattern[0], (list, tuple)):
        pattern = tuple(pattern[0])
    return DimShuffle(x.type.ndim, pattern)(x)


def elemwise(key: str, *inputs):
    return Elemwise(key)(*inputs)
