"""Making symbolic tensors and putting them together: ``as_tensor_variable``, constants,
casts, joins and stacks, allocation (``zeros``, ``alloc``, ``eye``, ``arange``, ``mgrid``),
and the axis shuffles (``transpose``, ``flatten``, ``shape_padleft``...).
"""

from __future__ import annotations

import math
import warnings

import webtensor as wt

from . import _dtypes as _dt
from .config import config
from .elemwise import DimShuffle, Elemwise
from .graph import Apply, Op, Variable
from .type import TensorType
from .values import constant_dtype, host_tensor
from .variable import TensorConstant, TensorVariable

# -- turning things into variables ----------------------------------------------------------

def constant(x, name=None, ndim=None, dtype=None) -> TensorConstant:
    """A :class:`TensorConstant` holding ``x`` (a copy): Python ints and floats get the
    smallest dtype that holds them (PyTensor's autocasting), arrays keep theirs."""
    if isinstance(x, Variable):
        raise TypeError(f"constant: {x} is already a symbolic variable")
    dt = _dt.as_name(dtype, "constant") if dtype is not None else constant_dtype(x, "constant")
    data = host_tensor(x, dt, "constant")  # a copy of arrays: later writes do not reach it
    if data is x:
        data = wt.asarray(x, copy=True)
    if ndim is not None and data.ndim != ndim:
        if data.ndim > ndim:
            raise ValueError(f"constant: the value has {data.ndim} dimensions, more than "
                             f"ndim={ndim}")
        data = wt.reshape(data, (1,) * (ndim - data.ndim) + data.shape)
    return TensorConstant(TensorType(dt, data.shape), data, name)


def as_tensor_variable(x, name=None, ndim=None, **kwargs) -> TensorVariable:
    """``x`` as a symbolic tensor: variables pass through, lists of variables are stacked,
    numbers and arrays become constants (Python bools are refused, as in PyTensor)."""
    if isinstance(x, Apply):
        x = x.default_output()
    if isinstance(x, TensorVariable):
        if ndim is not None and x.type.ndim != ndim:
            x = _to_ndim(x, ndim)
        if name is not None:
            x.name = name
        return x
    if isinstance(x, Variable):
        raise TypeError(f"as_tensor_variable: {x} is a {type(x).__name__}, not a tensor")
    if isinstance(x, bool):
        raise TypeError("Cannot cast True or False as a tensor variable. Please use "
                        "np.array(True) or np.array(False) if you need these constants. This "
                        "error might be caused by using the == operator on Variables. v == w "
                        "does not do what you think it does, use at.eq(v, w) instead.")
    if isinstance(x, (list, tuple)) and _holds_variables(x):
        return stack([as_tensor_variable(v) for v in x])
    return constant(x, name, ndim)


as_tensor = as_tensor_variable


def _holds_variables(seq) -> bool:
    for v in seq:
        if isinstance(v, Variable):
            return True
        if isinstance(v, (list, tuple)) and _holds_variables(v):
            return True
    return False


def _to_ndim(x, ndim):
    if x.type.ndim < ndim:
        return shape_padleft(x, ndim - x.type.ndim)
    extra = x.type.ndim - ndim
    if any(s != 1 for s in x.type.shape[:extra]):
        raise ValueError(f"as_tensor_variable: cannot make {x} ({x.type}) {ndim}-d: its leading "
                         f"axes are not broadcastable")
    return DimShuffle(x.type.ndim, range(extra, x.type.ndim))(x)


def get_scalar_constant_value(v, elemwise=True, only_process_constants=False):
    """The Python number a variable is known to be when the graph is built (a 0-d constant,
    a static size through ``x.shape[i]``), else NotScalarConstantError."""
    found = static_value(v) if isinstance(v, Variable) else v
    if found is None or isinstance(found, (list, tuple)):
        raise NotScalarConstantError(f"{v} is not a scalar constant")
    return found


class NotScalarConstantError(ValueError):
    """The variable's value is not known when the graph is built."""


def static_value(v):
    """What ``v`` is known to be before the function runs: a Python number (0-d), a list of
    ints/None (1-d integer vectors such as shapes), or None."""
    from .shape import Shape
    from .subtensor import Subtensor

    if isinstance(v, TensorConstant):
        if v.type.ndim == 0:
            return v.scalar_value()
        if v.type.ndim == 1:
            return v.data.tolist()
        return None
    node = v.owner
    if node is None:
        return None
    op = node.op
    if isinstance(op, Shape):
        return list(node.inputs[0].type.shape)
    if isinstance(op, MakeVector):
        return [static_value(i) for i in node.inputs]
    if isinstance(op, Subtensor) and not op.advanced and len(op.idx_list) == 1 and \
            not isinstance(op.idx_list[0], slice) and op.idx_list[0] is not None:
        inner = static_value(node.inputs[0])
        k = static_value(node.inputs[1 + op.idx_list[0].k])
        if isinstance(inner, list) and isinstance(k, int) and -len(inner) <= k < len(inner):
            return inner[k]
        return None
    if isinstance(op, Elemwise) and v.type.ndim == 0:
        ins = [static_value(i) for i in node.inputs]
        if any(i is None or isinstance(i, list) for i in ins):
            return None
        fn = _STATIC_ARITH.get(op.key)
        if fn is not None:
            return fn(*ins)
        if op.key == "cast":
            return int(ins[0]) if _dt.KIND[op.dtype] in "iu" else ins[0]
    if isinstance(op, DimShuffle) and op.only_adds_axes and v.type.ndim == 0:
        return static_value(node.inputs[0])
    return None


_STATIC_ARITH = {
    "add": lambda *a: sum(a), "sub": lambda a, b: a - b, "neg": lambda a: -a,
    "mul": lambda *a: math.prod(a),
    "int_div": lambda a, b: a // b if b else None,
}


def static_ints(v, fn: str, what: str) -> list:
    """The entries (ints or None) of a 1-d integer vector such as a shape."""
    found = static_value(v)
    if isinstance(found, list):
        return found
    n = v.type.shape[0] if v.type.ndim == 1 else None
    if n is None:
        raise ValueError(f"{fn}: the length of {what} ({v}, {v.type}) must be known when the "
                         f"graph is built; pass a tuple, or ndim=")
    return [None] * n


# -- casting --------------------------------------------------------------------------------

def cast(x, dtype):
    """``x`` converted to ``dtype`` (a coercion like ``np.asarray(x, dtype)``); complex to
    real is refused (use real, imag, abs or angle)."""
    dtype = _dt.as_name(dtype, "cast")
    x = as_tensor_variable(x)
    if x.type.dtype == dtype:
        return x
    if x.type.dtype in _dt.COMPLEX and dtype not in _dt.COMPLEX:
        raise TypeError(f"cast: casting {x} from {x.type.dtype} to {dtype} is ambiguous: "
                        f"consider at.real, at.imag, at.angle or at.abs")
    return Elemwise("cast", dtype)(x)


def tensor_copy(x):
    return Elemwise("identity")(x)


# -- joining ----------------------------------------------------------------------------------

def _axis(axis, ndim: int, fn: str) -> int:
    if isinstance(axis, Variable):
        found = static_value(axis)
        if found is None:
            raise TypeError(f"{fn}: the axis must be known when the graph is built, got {axis}")
        axis = found
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{fn}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: axis {axis} is out of range for {ndim}-d inputs")
    return axis % ndim


class Join(Op):
    """Concatenation along ``axis`` (``at.concatenate``, ``at.join``)."""

    __props__ = ("axis",)

    def __init__(self, axis):
        self.axis = axis

    def __str__(self):
        return "Join"

    def make_node(self, *tensors):
        tensors = [as_tensor_variable(t) for t in tensors]
        if not tensors:
            raise ValueError("concatenate: needs at least one tensor")
        ndims = [t.type.ndim for t in tensors]
        if len(set(ndims)) != 1:
            raise TypeError(f"Only tensors with the same number of dimensions can be joined. "
                            f"Input ndims were: {ndims}")
        if ndims[0] == 0:
            raise TypeError("concatenate: 0-d tensors cannot be joined; use at.stack")
        axis = self.axis
        shape = []
        for d in range(ndims[0]):
            sizes = [t.type.shape[d] for t in tensors]
            if d == axis:
                shape.append(None if None in sizes else sum(sizes))
                continue
            known = {s for s in sizes if s is not None}
            if len(known) > 1:
                raise ValueError(
                    f"concatenate: all input array dimensions other than the specified `axis` "
                    f"({axis}) must match exactly, or be unknown (None), but along dimension "
                    f"{d}, the inputs shapes are incompatible: {sizes} (inputs: "
                    f"{', '.join(str(t) for t in tensors)})")
            shape.append(known.pop() if known else None)
        dtype = _dt.upcast(*[t.type.dtype for t in tensors])
        return Apply(self, tensors, [TensorType(dtype, shape)])

    def perform(self, ev, node, inputs):
        dt = _dt.wt_dtype(node.outputs[0].type.dtype)
        parts = [t if t.dtype == dt else wt.astype(t, dt) for t in inputs]
        return [wt.concat(parts, axis=self.axis)]

    def pp(self, node, args):
        return f"join({self.axis}, {', '.join(args)})"


def concatenate(tensor_list, axis=0):
    """Join tensors of one rank along ``axis``."""
    if isinstance(tensor_list, Variable) or not isinstance(tensor_list, (list, tuple)):
        raise TypeError(f"concatenate: the first argument must be a list or tuple of tensors, "
                        f"got {tensor_list!r}; PyTensor's signature is concatenate(tensor_list, "
                        f"axis=0)")
    tensors = [as_tensor_variable(t) for t in tensor_list]
    if not tensors:
        raise ValueError("concatenate: needs at least one tensor")
    axis = _axis(axis, max(t.type.ndim for t in tensors) or 1, "concatenate")
    return Join(axis)(*tensors)


def join(axis, *tensors_list):
    """``concatenate(tensors_list, axis)`` (PyTensor's argument order)."""
    if len(tensors_list) == 1:
        return as_tensor_variable(tensors_list[0])
    return concatenate(list(tensors_list), axis)


class MakeVector(Op):
    """A vector from 0-d tensors (``at.stack`` of scalars)."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __str__(self):
        return f"MakeVector{{dtype='{self.dtype}'}}"

    def make_node(self, *scalars):
        return Apply(self, scalars, [TensorType(self.dtype, (len(scalars),))])

    def perform(self, ev, node, inputs):
        dt = _dt.wt_dtype(self.dtype)
        if not inputs:
            return [wt.zeros((0,), dtype=dt, device=ev.device)]
        return [wt.stack([t if t.dtype == dt else wt.astype(t, dt) for t in inputs])]

    def pp(self, node, args):
        return "[" + ", ".join(args) + "]"


def stack(tensors, *more, axis=0):
    """Stack tensors of one rank along a new ``axis``: ``stack([a, b, c], axis=0)``.  The
    deprecated form ``stack(a, b, c)`` still works (with a DeprecationWarning)."""
    if more or isinstance(tensors, Variable):
        if more and len(more) == 1 and isinstance(more[0], int) and \
                isinstance(tensors, (list, tuple)):
            axis = more[0]
        else:
            warnings.warn("stack(*tensors) is deprecated, use stack(tensors, axis=0) instead",
                          DeprecationWarning, stacklevel=2)
            tensors = [tensors, *more]
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise ValueError("stack: needs a non-empty list of tensors")
    tensors = [as_tensor_variable(t) for t in tensors]
    ndims = {t.type.ndim for t in tensors}
    if len(ndims) != 1:
        raise TypeError(f"stack: all tensors must have the same rank, got ranks "
                        f"{[t.type.ndim for t in tensors]}")
    nd = ndims.pop()
    axis = _axis(axis, nd + 1, "stack")
    if nd == 0 and axis == 0:
        return MakeVector(_dt.upcast(*[t.type.dtype for t in tensors]))(*tensors)
    return Join(axis)(*[shape_padaxis(t, axis) for t in tensors])


def stacklists(arg):
    """Stack a nested list of tensors, keeping its structure: ``stacklists([[a, b], [c,
    d]])`` of scalars is a 2x2 matrix."""
    if isinstance(arg, (list, tuple)):
        return stack([stacklists(a) for a in arg])
    return as_tensor_variable(arg)


# -- allocation -----------------------------------------------------------------------------------

def _scalar_inputs(values, fn: str):
    out = []
    for v in values:
        v = as_tensor_variable(v)
        if v.type.ndim != 0 or v.type.dtype not in _dt.INTEGER:
            raise TypeError(f"{fn}: sizes must be integer scalars, got {v} ({v.type})")
        out.append(v)
    return out


class Alloc(Op):
    """``value`` broadcast to a shape given by integer scalars (``zeros``, ``ones``,
    ``alloc``)."""

    def make_node(self, value, *shape):
        value = as_tensor_variable(value)
        dims = _scalar_inputs(shape, "alloc")
        if value.type.ndim > len(dims):
            raise ValueError(f"alloc: the value {value} ({value.type}) has more dimensions than "
                             f"the shape ({len(dims)})")
        static = []
        lead = len(dims) - value.type.ndim
        for k, d in enumerate(dims):
            s = static_value(d)
            if s is not None and s < 0:
                raise ValueError(f"alloc: negative size {s} in the shape")
            if k >= lead:
                vs = value.type.shape[k - lead]
                if vs is not None and vs != 1 and s is not None and s != vs:
                    raise ValueError(f"alloc: the value's size {vs} in axis {k - lead} does "
                                     f"not broadcast to {s}")
                if s is None and vs not in (None, 1):
                    s = vs
            static.append(s)
        return Apply(self, [value, *dims], [TensorType(value.type.dtype, static)])

    def perform(self, ev, node, inputs):
        shape = tuple(ev.static(v) for v in node.inputs[1:])
        return [wt.broadcast_to(inputs[0], shape)]

    def pp(self, node, args):
        return f"alloc({', '.join(args)})"


def alloc(value, *shape):
    """``value`` broadcast to ``shape`` (sizes as ints or integer scalars)."""
    return Alloc()(value, *shape)


def _shape_list(shape, fn: str) -> list:
    if isinstance(shape, Variable):
        if shape.type.ndim == 0:
            return [shape]
        n = static_ints(shape, fn, "the shape")
        return [shape[i] for i in range(len(n))]
    if isinstance(shape, int) and not isinstance(shape, bool):
        return [shape]
    try:
        return list(shape)
    except TypeError:
        raise TypeError(f"{fn}: shape must be a tuple/list of sizes, got {shape!r}") from None


def zeros(shape, dtype=None):
    """A tensor of zeros (``dtype`` defaults to floatX)."""
    dtype = config.floatX if dtype is None else _dt.as_name(dtype, "zeros")
    return alloc(constant(0, dtype=dtype), *_shape_list(shape, "zeros"))


def ones(shape, dtype=None):
    """A tensor of ones (``dtype`` defaults to floatX)."""
    dtype = config.floatX if dtype is None else _dt.as_name(dtype, "ones")
    return alloc(constant(1, dtype=dtype), *_shape_list(shape, "ones"))


def fill(model, value):
    """``value`` broadcast to the shape of ``model`` (the dtype is ``value``'s)."""
    return Elemwise("second")(model, value)


second = fill


def zeros_like(model, dtype=None, opt=False):
    model = as_tensor_variable(model)
    dtype = model.type.dtype if dtype is None else _dt.as_name(dtype, "zeros_like")
    return fill(model, constant(0, dtype=dtype))


def ones_like(model, dtype=None, opt=False):
    model = as_tensor_variable(model)
    dtype = model.type.dtype if dtype is None else _dt.as_name(dtype, "ones_like")
    return fill(model, constant(1, dtype=dtype))


class Eye(Op):
    """``n x m`` with ones on diagonal ``k``."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __str__(self):
        return f"Eye{{dtype='{self.dtype}'}}"

    def make_node(self, n, m, k):
        n, m, k = _scalar_inputs((n, m, k), "eye")
        return Apply(self, [n, m, k], [TensorType(self.dtype, (static_value(n),
                                                               static_value(m)))])

    def perform(self, ev, node, inputs):
        n, m, k = (ev.static(v) for v in node.inputs)
        return [wt.eye(n, m, k=k, dtype=_dt.wt_dtype(self.dtype), device=ev.device)]


def eye(n, m=None, k=0, dtype=None):
    """The identity-like ``n x m`` matrix with ones on diagonal ``k``."""
    dtype = config.floatX if dtype is None else _dt.as_name(dtype, "eye")
    return Eye(dtype)(n, n if m is None else m, k)


def identity_like(x, dtype=None):
    x = as_tensor_variable(x)
    dtype = x.type.dtype if dtype is None else _dt.as_name(dtype, "identity_like")
    return eye(x.shape[0], x.shape[1], 0, dtype)


class ARange(Op):
    """``[start, stop)`` in steps of ``step``."""

    __props__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __str__(self):
        return f"ARange{{dtype='{self.dtype}'}}"

    def make_node(self, start, stop, step):
        ins = [as_tensor_variable(v) for v in (start, stop, step)]
        for v in ins:
            if v.type.ndim != 0:
                raise TypeError(f"arange: start, stop and step must be scalars, got {v}")
        vals = [static_value(v) for v in ins]
        n = None
        if None not in vals:
            if vals[2] == 0:
                raise ValueError("arange: step must not be 0")
            n = max(0, math.ceil((vals[1] - vals[0]) / vals[2]))
        return Apply(self, ins, [TensorType(self.dtype, (n,))])

    def perform(self, ev, node, inputs):
        start, stop, step = (ev.static(v) for v in node.inputs)
        return [wt.arange(start, stop, step, dtype=_dt.wt_dtype(self.dtype), device=ev.device)]


def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values (``np.arange``); the bounds must be known when the function is
    compiled (constants, or sizes of the inputs)."""
    if stop is None:
        start, stop = 0, start
    start, stop, step = (as_tensor_variable(v) for v in (start, stop, step))
    if dtype is None:
        dtype = _dt.upcast(start.type.dtype, stop.type.dtype, step.type.dtype)
        if dtype in _dt.INTEGER:
            dtype = "int64" if _dt.KIND[dtype] == "i" else "uint64"
    else:
        dtype = _dt.as_name(dtype, "arange")
    return ARange(dtype)(start, stop, step)


class _Grid:
    """``mgrid[0:5, 0:3]`` (dense) and ``ogrid[...]`` (open) mesh grids."""

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        ranges = []
        for k in key:
            if not isinstance(k, slice):
                raise TypeError(f"{'ogrid' if self.sparse else 'mgrid'}: index with slices, "
                                f"got {k!r}")
            if isinstance(k.step, complex):
                raise NotImplementedError("mgrid/ogrid: complex steps (number of points) are "
                                          "not supported; use at.arange")
            ranges.append(arange(0 if k.start is None else k.start, k.stop,
                                 1 if k.step is None else k.step))
        n = len(ranges)
        out = []
        for i, r in enumerate(ranges):
            pattern = ["x"] * n
            pattern[i] = 0
            v = DimShuffle(1, pattern)(r)
            if not self.sparse:
                v = v * ones_like_shape(ranges, i, r.type.dtype)
            out.append(v)
        return out


def ones_like_shape(ranges, skip, dtype):
    n = len(ranges)
    acc = None
    for j, r in enumerate(ranges):
        if j == skip:
            continue
        pattern = ["x"] * n
        pattern[j] = 0
        term = DimShuffle(1, pattern)(ones_like(r, dtype))
        acc = term if acc is None else acc * term
    return constant(1, dtype=dtype) if acc is None else acc


mgrid = _Grid(False)
ogrid = _Grid(True)


# -- axis shuffles --------------------------------------------------------------------------------

def transpose(x, axes=None):
    """``x`` with its axes reversed, or permuted as ``axes`` says."""
    x = as_tensor_variable(x)
    if axes is None:
        axes = tuple(reversed(range(x.type.ndim)))
    axes = tuple(a % x.type.ndim if isinstance(a, int) and x.type.ndim else a for a in axes)
    if sorted(axes) != list(range(x.type.ndim)):
        raise ValueError(f"transpose: axes {axes} are not a permutation of {x.type.ndim} axes")
    return DimShuffle(x.type.ndim, axes)(x)


def swapaxes(x, axis1, axis2):
    x = as_tensor_variable(x)
    n = x.type.ndim
    order = list(range(n))
    a, b = _axis(axis1, n, "swapaxes"), _axis(axis2, n, "swapaxes")
    order[a], order[b] = order[b], order[a]
    return DimShuffle(n, order)(x)


def shape_padleft(t, n_ones=1):
    """``t`` with ``n_ones`` broadcastable axes added in front."""
    t = as_tensor_variable(t)
    return DimShuffle(t.type.ndim, ("x",) * n_ones + tuple(range(t.type.ndim)))(t)


def shape_padright(t, n_ones=1):
    """``t`` with ``n_ones`` broadcastable axes added at the end."""
    t = as_tensor_variable(t)
    return DimShuffle(t.type.ndim, tuple(range(t.type.ndim)) + ("x",) * n_ones)(t)


def shape_padaxis(t, axis):
    """``t`` with a broadcastable axis inserted at ``axis``."""
    t = as_tensor_variable(t)
    n = t.type.ndim + 1
    if isinstance(axis, bool) or not isinstance(axis, int) or not -n <= axis < n:
        raise IndexError(f"shape_padaxis: axis {axis!r} is out of range for a {n}-d result")
    axis %= n
    order = list(range(t.type.ndim))
    order.insert(axis, "x")
    return DimShuffle(t.type.ndim, order)(t)


def expand_dims(a, axis):
    a = as_tensor_variable(a)
    axes = [axis] if isinstance(axis, int) else list(axis)
    n = a.type.ndim + len(axes)
    axes = sorted(_axis(ax, n, "expand_dims") for ax in axes)
    order = list(range(a.type.ndim))
    for ax in axes:
        order.insert(ax, "x")
    return DimShuffle(a.type.ndim, order)(a)


def squeeze(x, axis=None):
    """``x`` without its broadcastable axes (or without ``axis``, which must have size 1)."""
    x = as_tensor_variable(x)
    n = x.type.ndim
    if axis is None:
        drop = [d for d in range(n) if x.type.shape[d] == 1]
    else:
        drop = sorted({_axis(a, n, "squeeze") for a in ([axis] if isinstance(axis, int)
                                                        else axis)})
        for d in drop:
            if x.type.shape[d] not in (None, 1):
                raise ValueError(f"squeeze: cannot squeeze axis {d} of {x} ({x.type}): its "
                                 f"size is {x.type.shape[d]}, not 1")
    return DimShuffle(n, [d for d in range(n) if d not in drop])(x)


def flatten(x, ndim=1):
    """``x`` with its trailing axes merged so that it has ``ndim`` axes."""
    from .shape import reshape

    x = as_tensor_variable(x)
    if isinstance(ndim, bool) or not isinstance(ndim, int) or not 1 <= ndim <= max(x.type.ndim,
                                                                                   1):
        raise ValueError(f"flatten: ndim must be between 1 and {max(x.type.ndim, 1)} for {x} "
                         f"({x.type}), got {ndim!r}")
    if ndim == 1:
        return reshape(x, (-1,))
    lead = [x.type.shape[d] if x.type.shape[d] is not None else x.shape[d]
            for d in range(ndim - 1)]
    return reshape(x, (*lead, -1))


def tensordot_axes(a, b, axes, fn: str) -> tuple:
    """``axes`` of tensordot as a pair of tuples of non-negative axes, checked."""
    na, nb = a.type.ndim, b.type.ndim
    if isinstance(axes, int) and not isinstance(axes, bool):
        if axes < 0 or axes > na or axes > nb:
            raise ValueError(f"{fn}: axes={axes} needs both inputs to have at least {axes} "
                             f"dimensions, got {na} and {nb}")
        return tuple(range(na - axes, na)), tuple(range(axes))
    try:
        xa, xb = axes
        xa = [xa] if isinstance(xa, int) else list(xa)
        xb = [xb] if isinstance(xb, int) else list(xb)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: axes must be an int or a pair of axis lists, got {axes!r}") \
            from None
    if len(xa) != len(xb):
        raise ValueError(f"{fn}: the axes lists {xa} and {xb} have different lengths")
    out = []
    for lst, n in ((xa, na), (xb, nb)):
        norm = []
        for d in lst:
            if not -n <= d < n:
                raise ValueError(f"{fn}: axis {d} is out of range for a {n}-d input")
            norm.append(d % n)
        if len(set(norm)) != len(norm):
            raise ValueError(f"{fn}: repeated axis in {lst}")
        out.append(tuple(norm))
    return tuple(out)
