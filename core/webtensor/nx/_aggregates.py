"""Nx's aggregates and cumulative functions on the core's reduce, scan, sort and gather.

Options are Nx's: ``axes`` (numbers or names) and ``keep_axes`` for the reductions, ``axis``,
``keep_axis`` and ``tie_break`` for argmax/argmin/median/mode, ``ddof`` for variance,
``reverse`` for the cumulative ones.  Types are Nx's: sums and products of integers in 64 bits,
means in floats, ``all``/``any``/``all_close`` in u8, argmax/argmin s64, median and mode in the
input's type (a median of an even count is a mean, so floating).
"""

from __future__ import annotations

import math

from .. import dtypes as _d
from ..api import _reduce as _r
from ..api import elementwise as _ew
from ..api import manipulation as _m
from ..api.sorting import sort_along
from ..tensor import Tensor, cast, empty
from ._core import (
    axes_list,
    axis_index,
    fail,
    flag,
    merge,
    norm_names,
    nx_function,
    operand_as,
    option,
    parse_type,
    prepare,
    strong,
    to_aggregate,
    to_floating,
    to_tensor,
    type_text,
)

__all__ = ["sum", "product", "reduce_max", "reduce_min", "all", "any", "mean", "variance",
           "standard_deviation", "weighted_mean", "median", "mode", "argmax", "argmin",
           "all_close", "reduce", "cumulative_sum", "cumulative_product", "cumulative_max",
           "cumulative_min"]


def _no_complex(t: Tensor, fn: str) -> None:
    if t.dtype.kind == "c":
        fail(fn, f"{fn} is not supported for complex types, got: {type_text(t.dtype)}",
             TypeError)


def _reduce(op: str, t: Tensor, axes, keep_axes, dt, fn: str) -> Tensor:
    """The core's reduction ``op`` over Nx's ``axes`` (None: all) in ``dt``."""
    keep_axes = flag(keep_axes, fn, "keep_axes")
    if axes is not None and not len(axes):
        return t  # Nx: reducing over no axes returns the tensor itself
    ax = axes_list(t, axes, fn)
    if op in ("max", "min") and t.size == 0:
        fail(fn, f"cannot {fn} an empty tensor of shape {t.shape}")
    return _r.reduce(op, t, tuple(ax), keep_axes, dtype=dt)


def _make_reduction(name, op, type_rule, post=None, doc=""):
    def fn(tensor, *, axes=None, keep_axes=False) -> Tensor:
        t = to_tensor(tensor, name)
        if op in ("max", "min"):
            _no_complex(t, name)
        x = t if op not in ("any", "all") else cast(t, _d.bool, weak=False)
        out = _reduce(op, x, axes, keep_axes, type_rule(x.dtype), name)
        return post(out) if post is not None else strong(out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return nx_function(fn)


def _u8(x: Tensor) -> Tensor:
    return cast(x, _d.uint8, weak=False)


sum = _make_reduction(  # noqa: A001 - Nx's names
    "sum", "sum", to_aggregate,
    doc="The sum over ``axes`` (all by default); integers add up in 64 bits.")
product = _make_reduction(
    "product", "prod", to_aggregate,
    doc="The product over ``axes``; integers multiply in 64 bits.")
reduce_max = _make_reduction(
    "reduce_max", "max", lambda dt: dt, doc="The maximum over ``axes``.")
reduce_min = _make_reduction(
    "reduce_min", "min", lambda dt: dt, doc="The minimum over ``axes``.")
all = _make_reduction(  # noqa: A001
    "all", "all", lambda dt: dt, _u8, doc="1 (u8) where every value over ``axes`` is non-zero.")
any = _make_reduction(  # noqa: A001
    "any", "any", lambda dt: dt, _u8, doc="1 (u8) where some value over ``axes`` is non-zero.")


def _count(t: Tensor, axes, fn: str) -> int:
    return math.prod(t.shape[a] for a in axes_list(t, axes, fn))


@nx_function
def mean(tensor, *, axes=None, keep_axes=False) -> Tensor:
    """The mean over ``axes``: the sum (integers in 64 bits) divided by the count, as a float."""
    fn = "mean"
    t = to_tensor(tensor, fn)
    total = _reduce("sum", t, axes, keep_axes, to_aggregate(t.dtype), fn)
    dt = to_floating(total.dtype)
    n = _count(t, axes, fn) if axes is None or len(axes) else 1
    return strong(_ew.divide(strong(total, dt), operand_as(n, dt, t.device, fn)))


@nx_function
def variance(tensor, *, axes=None, ddof=0, keep_axes=False) -> Tensor:
    """The mean squared deviation from the mean over ``axes``, divided by ``n - ddof``."""
    fn = "variance"
    t = to_tensor(tensor, fn)
    dt = to_floating(t.dtype)
    m = mean(t, axes=axes, keep_axes=True)
    x = _ew.subtract(strong(t, dt), m)
    sq = _ew.multiply(x, _ew.conj(x)) if dt.kind == "c" else _ew.multiply(x, x)
    total = _reduce("sum", sq, axes, keep_axes, dt, fn)
    n = _count(t, axes, fn)
    return strong(_ew.divide(total, operand_as(n - ddof, dt, t.device, fn)))


@nx_function
def standard_deviation(tensor, *, axes=None, ddof=0, keep_axes=False) -> Tensor:
    """The square root of ``variance``."""
    return strong(_ew.sqrt(variance(tensor, axes=axes, ddof=ddof, keep_axes=keep_axes)))


@nx_function
def weighted_mean(tensor, weights, *, axis=None, keep_axis=False) -> Tensor:
    """sum(tensor * weights) / sum(weights) over ``axis`` (all by default); 1-D weights
    apply along ``axis``."""
    fn = "weighted_mean"
    t, w = to_tensor(tensor, fn), to_tensor(weights, fn)
    axes = None if axis is None else [axis_index(t, axis, fn)]
    if w.shape != t.shape:
        if axes is None:
            fail(fn, "axis must be specified when shapes of input and weights differ")
        if w.ndim != 1:
            fail(fn, "rank-1 weights tensor expected when input shapes differ")
        if w.shape[0] != t.shape[axes[0]]:
            fail(fn, "length of weights not compatible with specified axis")
        shape = tuple(n if i == axes[0] else 1 for i, n in enumerate(t.shape))
        w = _r.broadcast_to(_r.reshape(w, shape), t.shape)
    dt = merge(t, w)
    product_ = _ew.multiply(operand_as(t, dt, t.device, fn), operand_as(w, dt, t.device, fn))
    top = _reduce("sum", product_, axes, keep_axis, to_aggregate(dt), fn)
    bottom = _reduce("sum", strong(w), axes, keep_axis, to_aggregate(w.dtype), fn)
    out_dt = to_floating(merge(top, bottom))
    return strong(_ew.divide(strong(top, out_dt), strong(bottom, out_dt)))


def _sorted_along(t: Tensor, axis):
    """(sorted tensor, axis) with ``axis=None`` meaning the flattened tensor."""
    if axis is None:
        return sort_along(_r.flatten(t), 0), 0
    return sort_along(t, axis), axis


@nx_function
def median(tensor, *, axis=None, keep_axis=False) -> Tensor:
    """The middle value along ``axis`` (all by default); for an even count the mean of the two
    middle values (then a float, as in Nx)."""
    fn = "median"
    t = to_tensor(tensor, fn)
    _no_complex(t, fn)
    ax = None if axis is None else axis_index(t, axis, fn)
    if t.size == 0:
        fail(fn, f"cannot take the median of an empty tensor of shape {t.shape}")
    s, a = _sorted_along(t, ax)
    n = s.shape[a]
    half = n // 2
    keep = ax is not None and flag(keep_axis, fn, "keep_axis")
    if n % 2:
        out = _r.slice_axis(s, a, half, half + 1)
        out = strong(out) if keep else _squeeze(out, a)
        return _copy(out)
    pair = _r.slice_axis(s, a, half - 1, half + 1)
    dt = to_floating(t.dtype)
    total = _r.reduce("sum", strong(pair, dt), (a,), keep, dtype=dt)
    return strong(_ew.divide(total, operand_as(2, dt, t.device, fn)))


def _squeeze(x: Tensor, axis: int) -> Tensor:
    names = None if x.names is None else norm_names(x.names[:axis] + x.names[axis + 1:])
    return x._view(x.shape[:axis] + x.shape[axis + 1:], x.strides[:axis] + x.strides[axis + 1:],
                   x.offset, names=names)


def _copy(x: Tensor) -> Tensor:
    out = empty(x.shape, x.dtype, x.device, names=x.names)
    if out.size:
        x._backend.copy(out, x)
    return out


@nx_function
def mode(tensor, *, axis=None, keep_axis=False) -> Tensor:
    """The most frequent value along ``axis`` (all by default); ties go to the smallest."""
    fn = "mode"
    t = to_tensor(tensor, fn)
    _no_complex(t, fn)
    keep = flag(keep_axis, fn, "keep_axis")
    ax = None if axis is None else axis_index(t, axis, fn)
    if t.ndim == 0:
        return _copy(_r.reshape(t, (1,))) if keep else _copy(t)
    if t.size == 0:
        fail(fn, f"cannot take the mode of an empty tensor of shape {t.shape}")
    s, a = _sorted_along(t, ax)
    n = s.shape[a]
    # run lengths of equal values: for each position, the start of its run (cumulative max of
    # the positions where a run starts) and its end (the same from the back)
    pos = _r.broadcast_to(_r.reshape(_r.iota(n, t.device), tuple(
        n if i == a else 1 for i in range(s.ndim))), s.shape)
    edge = _r.full(_r.slice_axis(s, a, 0, 1).shape, True, _d.bool, t.device)
    changed = _ew.not_equal(_r.slice_axis(s, a, 1, n), _r.slice_axis(s, a, 0, n - 1))
    starts_here = _r.concat([edge, changed], a) if n > 1 else edge
    ends_here = _r.concat([changed, edge], a) if n > 1 else edge
    minus_one = operand_as(-1, _d.int64, t.device, fn)
    big = operand_as(n, _d.int64, t.device, fn)
    start = _r.scan("max", _ew.where(starts_here, pos, minus_one), a)
    end = _m.flip(_r.scan("min", _m.flip(_ew.where(ends_here, pos, big), axis=a), a), axis=a)
    counts = _ew.subtract(end, start)
    best = _r.reduce("max", counts, (a,), True)
    # the first position (so the smallest value) whose run is the longest
    winner = _ew.where(_ew.equal(counts, best), pos, big)
    idx = _r.reduce("min", winner, (a,), True)
    out = _r.gather(s, a, idx)
    out = out._view(out.shape, out.strides, out.offset,
                    names=s.names if ax is not None else None)
    if ax is None:
        return _r.reshape(out, (1,) * t.ndim) if keep else _r.reshape(out, ())
    return out if keep else _copy(_squeeze(out, a))


def _arg(op: str, tensor, axis, tie_break, keep_axis, fn: str) -> Tensor:
    t = to_tensor(tensor, fn)
    _no_complex(t, fn)
    option(tie_break, fn, "tie_break", ("low", "high"))
    keep = flag(keep_axis, fn, "keep_axis")
    if axis is None:
        x, ax = _r.flatten(t), 0
        keep = False
    else:
        x, ax = t, axis_index(t, axis, fn)
    if x.shape[ax] == 0:
        fail(fn, f"cannot take {fn} of an empty axis (shape {t.shape})")
    n = x.shape[ax]
    if tie_break == "high":  # the last extreme: the first one of the reversed axis
        x = _m.flip(x, axis=ax)
    names = _r.keep_names(x.names, (ax,), keep)
    out = empty(x.shape[:ax] + x.shape[ax + 1:], _d.int64, x.device,
                names=None if keep else names)
    if out.size:
        x._backend.arg_reduce(op, out, x, ax)
    if tie_break == "high":
        out = _ew.subtract(operand_as(n - 1, _d.int64, x.device, fn), out)
    if keep:
        out = _r.keepdims_view(out, (ax,), names)
    return strong(out)


@nx_function
def argmax(tensor, *, axis=None, tie_break="low", keep_axis=False) -> Tensor:
    """The index (s64) of the maximum along ``axis`` (of the flattened tensor by default);
    ``tie_break="high"`` takes the last of equal maxima."""
    return _arg("argmax", tensor, axis, tie_break, keep_axis, "argmax")


@nx_function
def argmin(tensor, *, axis=None, tie_break="low", keep_axis=False) -> Tensor:
    """The index (s64) of the minimum along ``axis``; ``tie_break="high"`` takes the last."""
    return _arg("argmin", tensor, axis, tie_break, keep_axis, "argmin")


@nx_function
def all_close(a, b, *, rtol=1.0e-5, atol=1.0e-8, equal_nan=False) -> Tensor:
    """1 (a u8 scalar) when ``|a - b| <= atol + rtol * |b|`` everywhere; infinities are close
    only to themselves; NaN only to NaN with ``equal_nan=True``."""
    fn = "all_close"
    (x, y), dev = prepare((a, b), fn)
    x, y = (v if isinstance(v, Tensor) else to_tensor(v, fn, dev) for v in (x, y))
    dt = merge(x, y)
    work = to_floating(dt) if dt.kind not in "fc" else dt
    xf, yf = operand_as(x, work, dev, fn), operand_as(y, work, dev, fn)
    tol = _ew.add(operand_as(atol, work.real_dtype, dev, fn),
                  _ew.multiply(operand_as(rtol, work.real_dtype, dev, fn), _ew.abs(yf)))
    close = _ew.less_equal(_ew.abs(_ew.subtract(xf, yf)), tol)
    if dt.kind in "fc":
        inf = _ew.logical_or(_ew.isinf(xf), _ew.isinf(yf))
        close = _ew.where(inf, _ew.equal(xf, yf), close)
        if flag(equal_nan, fn, "equal_nan"):
            close = _ew.logical_or(close, _ew.logical_and(_ew.isnan(xf), _ew.isnan(yf)))
    return _u8(_r.reduce("all", close, tuple(range(close.ndim)), False))


@nx_function
def reduce(tensor, acc, fun, *, axes=None, keep_axes=False, type=None) -> Tensor:  # noqa: A002
    """Reduces ``tensor`` over ``axes`` with ``fun(x, acc)`` (a function of two tensors,
    associative: it is applied pairwise over halves, then once more with ``acc``)."""
    fn = "reduce"
    if not callable(fun):
        fail(fn, f"expected a function of two tensors, got {fun!r}", TypeError)
    (t, a), dev = prepare((tensor, acc), fn)
    t = t if isinstance(t, Tensor) else to_tensor(t, fn, dev)
    dt = parse_type(type, fn) or merge(t, a)
    keep = flag(keep_axes, fn, "keep_axes")
    if axes is not None and not len(axes):
        return t
    ax = axes_list(t, axes, fn)
    x = strong(t, dt)
    kept = [i for i in range(x.ndim) if i not in ax]
    rows = _r.rows_last(x, ax)  # kept dims + (n,)
    n = rows.shape[-1]
    acc_t = operand_as(a, dt, dev, fn)
    if n == 0:
        out = _r.full(rows.shape[:-1], 0, dt, dev)
        _m.write(out, acc_t, fn)
    else:
        cur = rows
        while cur.shape[-1] > 1:  # combine halves pairwise: log2(n) calls of fun
            m = cur.shape[-1]
            half = m // 2
            lo = _r.slice_axis(cur, cur.ndim - 1, 0, half)
            hi = _r.slice_axis(cur, cur.ndim - 1, half, 2 * half)
            merged = _as(fun(lo, hi), dt, dev, fn)
            if m % 2:
                merged = _r.concat([strong(merged, dt), _r.slice_axis(cur, cur.ndim - 1, m - 1, m)],
                                   cur.ndim - 1)
            cur = merged
        out = _as(fun(_r.reshape(cur, cur.shape[:-1]), acc_t), dt, dev, fn)
    out_shape = tuple(1 if i in ax else x.shape[i] for i in range(x.ndim)) if keep else \
        tuple(x.shape[i] for i in kept)
    names = _r.keep_names(x.names, tuple(ax), keep)
    return _r.reshape(strong(out, dt), out_shape, names)


def _as(value, dt, dev, fn) -> Tensor:
    if isinstance(value, Tensor):
        return strong(value, dt)
    return operand_as(value, dt, dev, fn)


# -- cumulative ----------------------------------------------------------------------------------

def _make_cumulative(name, op):
    def fn(tensor, *, axis=0, reverse=False) -> Tensor:
        t = to_tensor(tensor, name)
        if op in ("max", "min"):
            _no_complex(t, name)
        ax = axis_index(t, axis, name)
        rev = flag(reverse, name, "reverse")
        x = _m.flip(t, axis=ax) if rev else t
        out = _r.scan(op, strong(x), ax)
        return _copy(_m.flip(out, axis=ax)) if rev else out
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The cumulative {op} along ``axis`` (0 by default); ``reverse=True`` "
                  f"accumulates from the end.")
    return nx_function(fn)


cumulative_sum = _make_cumulative("cumulative_sum", "sum")
cumulative_product = _make_cumulative("cumulative_product", "prod")
cumulative_max = _make_cumulative("cumulative_max", "max")
cumulative_min = _make_cumulative("cumulative_min", "min")
