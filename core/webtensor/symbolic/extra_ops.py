"""Sorting, repeating, rolling, diagonals, cumulative sums and ``choose``.

Ops whose result shape depends on the values (``nonzero``, ``nonzero_values``, ``compress``
with a symbolic condition) are refused when the graph is built: a compiled webtensor program
has the same shapes for every call with the same argument shapes.
"""

from __future__ import annotations

import webtensor as wt

from . import _dtypes as _dt
from .basic import as_tensor_variable, static_value
from .graph import Apply, Op
from .type import TensorType


def _axis(axis, ndim, fn):
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{fn}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: axis {axis} is out of range for a {ndim}-d input")
    return axis % ndim


class Sort(Op):
    """``np.sort`` / ``np.argsort`` along ``axis`` (stable)."""

    __props__ = ("axis", "arg")

    def __init__(self, axis, arg):
        self.axis, self.arg = axis, arg

    def __str__(self):
        return "ArgSortOp{kind='quicksort'}" if self.arg else "SortOp{kind='quicksort'}"

    def make_node(self, x):
        shape = x.type.shape if self.axis is not None else (
            None if None in x.type.shape else _prod(x.type.shape),)
        return Apply(self, [x], [TensorType("int64" if self.arg else x.type.dtype, shape)])

    def perform(self, ev, node, inputs):
        t = inputs[0]
        axis = self.axis
        if axis is None:
            t, axis = wt.reshape(t, (t.size,)), 0
        if self.arg:
            r = wt.argsort(t, axis=axis)
            return [r if r.dtype == wt.int64 else wt.astype(r, wt.int64)]
        return [wt.sort(t, axis=axis)]


def _prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def _sort(x, axis, arg, fn):
    x = as_tensor_variable(x)
    if axis is not None:
        axis = _axis(axis, x.type.ndim, fn)
    return Sort(axis, arg)(x)


def sort(a, axis=-1, kind="quicksort", order=None, *, stable=None):
    """``a`` sorted along ``axis`` (None: the flattened ``a``)."""
    return _sort(a, axis, False, "sort")


def argsort(a, axis=-1, kind="quicksort", order=None, stable=None):
    """The indices that sort ``a`` along ``axis`` (int64)."""
    return _sort(a, axis, True, "argsort")


class _Wrapped(Op):
    """An op that calls one webtensor function with static parameters."""

    __props__ = ("name", "params")

    def __init__(self, name, params, shape_fn, call):
        self.name, self.params = name, params
        self.shape_fn, self.call = shape_fn, call

    def __str__(self):
        inner = ", ".join(f"{k}={v}" for k, v in self.params)
        return f"{self.name}{{{inner}}}" if inner else self.name

    def make_node(self, x):
        return Apply(self, [x], [TensorType(x.type.dtype, self.shape_fn(x.type.shape))])

    def perform(self, ev, node, inputs):
        return [self.call(inputs[0], **dict(self.params))]


def _static_ints(value, fn, what):
    if hasattr(value, "type"):
        found = static_value(value)
        if found is None:
            raise ValueError(f"{fn}: {what} must be known when the graph is built (a constant "
                             f"or a static size), got {value}")
        value = found
    return value


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (None: flattened);
    ``repeats`` is an int or a list of ints known when the graph is built."""
    x = as_tensor_variable(a)
    reps = _static_ints(repeats, "repeat", "repeats")
    if isinstance(reps, (list, tuple)):
        reps = tuple(int(r) for r in reps)
    elif isinstance(reps, bool) or not isinstance(reps, int):
        raise TypeError(f"repeat: repeats must be an int or a list of ints, got {repeats!r}")
    ax = None if axis is None else _axis(axis, x.type.ndim, "repeat")

    def shape_fn(shape):
        if ax is None:
            n = None if None in shape else _prod(shape)
            if isinstance(reps, tuple):
                return (sum(reps),)
            return (None if n is None else n * reps,)
        out = list(shape)
        out[ax] = sum(reps) if isinstance(reps, tuple) else (
            None if shape[ax] is None else shape[ax] * reps)
        return tuple(out)

    def call(t, repeats, axis):
        return wt.repeat(t, list(repeats) if isinstance(repeats, tuple) else repeats, axis=axis)
    return _Wrapped("Repeat", (("repeats", reps), ("axis", ax)), shape_fn, call)(x)


def tile(A, reps, ndim=None):  # noqa: N803 - PyTensor's name
    """``A`` repeated ``reps[i]`` times along each axis (``np.tile``; reps known when the
    graph is built)."""
    x = as_tensor_variable(A)
    reps = _static_ints(reps, "tile", "reps")
    reps = (int(reps),) if isinstance(reps, int) else tuple(int(r) for r in reps)

    def shape_fn(shape):
        n = max(len(shape), len(reps))
        s = (1,) * (n - len(shape)) + tuple(shape)
        r = (1,) * (n - len(reps)) + reps
        return tuple(None if a is None else a * b for a, b in zip(s, r))
    return _Wrapped("Tile", (("reps", reps),), shape_fn,
                    lambda t, reps: wt.tile(t, reps))(x)


def roll(x, shift, axis=None):
    """``x`` rolled by ``shift`` along ``axis`` (None: the flattened ``x``)."""
    x = as_tensor_variable(x)
    shift = _static_ints(shift, "roll", "shift")
    ax = None if axis is None else _axis(axis, x.type.ndim, "roll")
    return _Wrapped("Roll", (("shift", int(shift)), ("axis", ax)), lambda s: s,
                    lambda t, shift, axis: wt.roll(t, shift, axis=axis))(x)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` of the plane (``axis1``, ``axis2``), as the last axis."""
    x = as_tensor_variable(a)
    n = x.type.ndim
    a1, a2 = _axis(axis1, n, "diagonal"), _axis(axis2, n, "diagonal")
    if a1 == a2:
        raise ValueError("diagonal: axis1 and axis2 must differ")

    def shape_fn(shape):
        r, c = shape[a1], shape[a2]
        d = None if r is None or c is None else max(0, min(r, c - offset) if offset >= 0
                                                     else min(r + offset, c))
        return tuple(s for i, s in enumerate(shape) if i not in (a1, a2)) + (d,)

    def call(t, offset, axis1, axis2):
        return wt.diagonal(t, offset=offset, axis1=axis1, axis2=axis2)
    op = _Wrapped("ExtractDiag", (("offset", offset), ("axis1", a1), ("axis2", a2)),
                  shape_fn, call)
    return op(x)


def trace(a, offset=0, axis1=0, axis2=1):
    """The sum of a diagonal."""
    return diagonal(a, offset, axis1, axis2).sum(-1)


def _cum(kind, x, axis):
    x = as_tensor_variable(x)
    ax = None if axis is None else _axis(axis, x.type.ndim, kind)
    fn = wt.cumsum if kind == "cumsum" else wt.cumprod

    def shape_fn(shape):
        if ax is None:
            return (None if None in shape else _prod(shape),)
        return shape

    def call(t, axis):
        if axis is None:
            t, axis = wt.reshape(t, (t.size,)), 0
        return fn(t, axis=axis)
    return _Wrapped(kind.capitalize(), (("axis", ax),), shape_fn, call)(x)


def cumsum(x, axis=None):
    """Cumulative sums along ``axis`` (None: the flattened ``x``)."""
    return _cum("cumsum", x, axis)


def cumprod(x, axis=None):
    """Cumulative products along ``axis`` (None: the flattened ``x``)."""
    return _cum("cumprod", x, axis)


def choose(a, choices, mode="raise"):
    """``choices[a[i]][i]`` per position (``np.choose``): ``a`` and every choice broadcast
    together; ``mode`` 'wrap' and 'clip' bring ``a`` into range (with 'raise', out-of-range
    values pick the last choice instead of raising: the check would need the values)."""
    from .math import clip, eq, mod, switch

    a = as_tensor_variable(a)
    if a.type.dtype not in _dt.INTEGER:
        raise TypeError(f"choose: the index array must be integers, got {a} ({a.type})")
    if isinstance(choices, (list, tuple)):
        choices = [as_tensor_variable(c) for c in choices]
    else:
        c = as_tensor_variable(choices)
        n = c.type.shape[0]
        if n is None:
            raise ValueError("choose: the number of choices must be known when the graph is "
                             "built")
        choices = [c[i] for i in range(n)]
    n = len(choices)
    if mode == "wrap":
        a = mod(a, n)
    elif mode == "clip":
        a = clip(a, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    out = choices[-1]
    for k in range(n - 2, -1, -1):
        out = switch(eq(a, k), choices[k], out)
    if n == 1:  # still broadcast against the index array
        out = switch(eq(a, a), out, out)
    return out


def _value_dependent(fn: str):
    raise NotImplementedError(
        f"at.{fn}: the result's shape depends on the input's values, which a compiled "
        f"webtensor program cannot have (its shapes are fixed per argument shapes). Return "
        f"the input from the function and call wt.{fn.split('_')[0]} on the result, or use "
        f"at.switch to mask values instead")


def nonzero(a, return_matrix=False):
    """Refused: the number of non-zero entries depends on the values."""
    _value_dependent("nonzero")


def nonzero_values(a):
    """Refused: the number of non-zero entries depends on the values."""
    _value_dependent("nonzero_values")


def flatnonzero(a):
    """Refused: the number of non-zero entries depends on the values."""
    _value_dependent("flatnonzero")


def compress(condition, x, axis=None):
    """``x`` where ``condition`` is true along ``axis``; only a constant condition can be
    compiled (a symbolic one gives a value-dependent shape)."""
    from .variable import TensorConstant

    cond = as_tensor_variable(condition)
    if not isinstance(cond, TensorConstant):
        _value_dependent("compress")
    picks = [i for i, v in enumerate(cond.data.tolist()) if v]
    from .subtensor import take

    return take(x, picks, axis=axis)
