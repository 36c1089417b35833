"""Statistical functions (Array API chapter) and NumPy's extras built on them.

Every function here is a composition of backend primitives (``reduce``, ``scan``, ``sort``,
``gather``, ``scatter``) and elementwise ops, so it runs on any device.  A few read small amounts
of data back to the host, because a Python-level decision depends on it:

* ``quantile``/``percentile``/``median`` read ``q`` when it is given as a tensor (its values
  decide which sorted positions are gathered);
* ``histogram`` reads the data's min and max when ``range`` is not given (NumPy's "autodetected
  range" check) and the bin edges when they are given as an array (the monotonic check);
* ``average`` reads whether the weights sum to zero (NumPy raises ZeroDivisionError).

Accumulation dtypes follow the Array API (see ``_reduce.accumulation_dtype``); functions that
return floats (``mean``, ``var``, ``std``, ``quantile``) compute integer input in the default
float dtype (float64 in the ``numpy`` promotion mode), and float16/bfloat16 input in float32,
rounding once at the end.
"""

from __future__ import annotations

import math

from .. import _validate
from .. import dtypes as _d
from ..tensor import Tensor, cast, empty, from_values
from . import _reduce as _r
from . import elementwise as ew
from ._common import (
    as_tensor,
    axes_tuple,
    axis_index,
    check_kind,
    check_supported,
    float_dtype_for,
    promote,
    stretched_operand,
)
from .creation import asarray

__all__ = ["sum", "prod", "max", "min", "mean", "var", "std", "cumulative_sum",
           "cumulative_prod", "cumsum", "cumprod", "median", "quantile", "percentile",
           "average", "histogram"]

_builtin_max, _builtin_min = max, min
_REAL = "biuf"
_NUMERIC = "biufc"


# -- sum, prod --------------------------------------------------------------------------------------

def _sum_like(op: str, x, axis, dtype, keepdims: bool) -> Tensor:
    x = as_tensor(x, op)
    check_kind(x.dtype, _NUMERIC, op)
    axes = axes_tuple(x, axis, op)
    acc = _r.accumulation_dtype(x.dtype, dtype, op)
    weak = x.weak and dtype is None and acc is x.dtype
    return _r.reduce(op, x, axes, keepdims, dtype=acc, weak=weak)


def sum(x, /, axis=None, *, dtype=None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (None: all axes).  Small ints accumulate in the default int dtype,
    bool in the default int; ``dtype=`` casts the input first."""
    return _sum_like("sum", x, axis, dtype, keepdims)


def prod(x, /, axis=None, *, dtype=None, keepdims: bool = False) -> Tensor:
    """Product over ``axis``; the accumulation dtype follows the same rule as ``sum``."""
    return _sum_like("prod", x, axis, dtype, keepdims)


# -- max, min ---------------------------------------------------------------------------------------

def _check_not_empty(x: Tensor, axes, fn: str, fix: str) -> None:
    empty_axes = [a for a in axes if x.shape[a] == 0]
    if empty_axes:
        raise ValueError(f"wt.{fn}: zero-size reduction: axis {empty_axes[0]} of shape "
                         f"{x.shape} is empty and {fn} has no identity; {fix}")


def _extremum(op: str, x, axis, keepdims: bool, initial) -> Tensor:
    x = as_tensor(x, op)
    check_supported(x.dtype, op)
    axes = axes_tuple(x, axis, op)
    if initial is None:
        _check_not_empty(x, axes, op, "pass initial=<value> or check x.size first")
    elif _r.reduced_size(x.shape, axes) == 0:
        shape = _r.out_shape(x.shape, axes, keepdims)
        return _r.full(shape, initial, x.dtype, x.device,
                       names=_r.keep_names(x.names, axes, keepdims))
    out = _r.reduce(op, x, axes, keepdims, weak=x.weak)
    if initial is not None:
        combine = ew.maximum if op == "max" else ew.minimum
        out = cast(combine(out, initial), x.dtype, weak=x.weak)
    return out


def max(x, /, axis=None, *, keepdims: bool = False, initial=None) -> Tensor:  # noqa: A001
    """Maximum over ``axis``; NaN propagates.  An empty reduction needs ``initial=``."""
    return _extremum("max", x, axis, keepdims, initial)


def min(x, /, axis=None, *, keepdims: bool = False, initial=None) -> Tensor:  # noqa: A001
    """Minimum over ``axis``; NaN propagates.  An empty reduction needs ``initial=``."""
    return _extremum("min", x, axis, keepdims, initial)


# -- mean, var, std ---------------------------------------------------------------------------------

def _float_input(x, fn: str):
    """(x, result dtype, compute dtype) for functions with a float result."""
    x = as_tensor(x, fn)
    check_kind(x.dtype, _NUMERIC, fn)
    result = float_dtype_for(x.dtype)
    compute = _d.float32 if result is _d.float16 or result is _d.bfloat16 else result
    return x, result, compute


def _mean_in(x: Tensor, axes, keepdims: bool, compute) -> Tensor:
    total = _r.reduce("sum", x, axes, keepdims, dtype=compute)
    count = _r.reduced_size(x.shape, axes)
    if total.names is not None:
        return ew.divide(total, count)
    # A float sum over a count: ew.divide's promotion has nothing to decide, and skipping it
    # is a third of a small mean's cost (1,000 float32: 16 -> 12 µs on the NumPy backend).
    out = empty(total.shape, compute, total.device)
    divisor = stretched_operand(count, compute, total.device, True, total.shape)
    total.device.backend.binary("divide", out, total, divisor)
    return out


def mean(x, /, axis=None, *, keepdims: bool = False) -> Tensor:
    """Arithmetic mean over ``axis``; NaN for an empty reduction (0 / 0)."""
    x, result, compute = _float_input(x, "mean")
    axes = axes_tuple(x, axis, "mean")
    return cast(_mean_in(x, axes, keepdims, compute), result, weak=x.weak and x.dtype is result)


def _correction(correction, ddof, fn: str):
    if ddof is not None:
        if correction not in (0, 0.0):
            raise TypeError(f"wt.{fn}: pass correction= or NumPy's ddof=, not both")
        correction = ddof
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"wt.{fn}: correction must be an int or float, got {correction!r}")
    return correction


def _var_in(x: Tensor, axes, keepdims: bool, correction, compute) -> Tensor:
    """Variance in ``compute`` (real for complex input): sum |x - mean|^2 / (n - correction)."""
    xc = cast(x, compute)
    centered = ew.subtract(xc, _mean_in(xc, axes, True, compute))
    if compute.kind == "c":
        squares = ew.real(ew.multiply(centered, ew.conj(centered)))
    else:
        squares = ew.multiply(centered, centered)
    total = _r.reduce("sum", squares, axes, keepdims)
    dof = _r.reduced_size(x.shape, axes) - correction
    # NOTE: N - correction <= 0 gives NaN, as the Array API specifies (NumPy gives inf or NaN):
    # https://data-apis.org/array-api/2024.12/API_specification/generated/array_api.var.html
    return ew.divide(total, float(dof) if dof > 0 else math.nan)


def var(x, /, axis=None, *, correction=0.0, keepdims: bool = False, ddof=None) -> Tensor:
    """Variance with ``correction`` (NumPy's ``ddof``); complex input gives a real result."""
    x, result, compute = _float_input(x, "var")
    axes = axes_tuple(x, axis, "var")
    correction = _correction(correction, ddof, "var")
    out = _var_in(x, axes, keepdims, correction, compute)
    return cast(out, result.real_dtype, weak=x.weak and x.dtype is result)


def std(x, /, axis=None, *, correction=0.0, keepdims: bool = False, ddof=None) -> Tensor:
    """Standard deviation: ``sqrt(var(...))``."""
    x, result, compute = _float_input(x, "std")
    axes = axes_tuple(x, axis, "std")
    correction = _correction(correction, ddof, "std")
    out = ew.sqrt(_var_in(x, axes, keepdims, correction, compute))
    return cast(out, result.real_dtype, weak=x.weak and x.dtype is result)


# -- cumulative -------------------------------------------------------------------------------------

def _scan(op: str, fn: str, x: Tensor, axis: int, dtype, include_initial: bool) -> Tensor:
    """Inclusive scan along ``axis``, optionally with the identity prepended."""
    acc = _r.accumulation_dtype(x.dtype, dtype, fn)
    weak = x.weak and dtype is None and acc is x.dtype
    scanned = _r.scan(op, cast(x, acc, weak=weak), axis)
    if not include_initial:
        return scanned
    shape = list(x.shape)
    shape[axis] += 1
    out = _r.full(shape, _r.IDENTITY[op], acc, x.device, names=x.names)
    out.weak = weak
    if scanned.size:
        x._backend.assign(_r.slice_axis(out, axis, 1, shape[axis]), scanned)
    return out


def _cumulative(op: str, fn: str, x, axis, dtype, include_initial: bool) -> Tensor:
    x = as_tensor(x, fn)
    check_kind(x.dtype, _NUMERIC, fn)
    if x.ndim == 0:
        raise ValueError(f"wt.{fn}: expects a tensor with at least one dimension, got a 0-d "
                         f"tensor; use wt.{'cumsum' if op == 'sum' else 'cumprod'} or reshape "
                         f"it to shape (1,)")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"wt.{fn}: axis is required for a {x.ndim}-D tensor; pass "
                             f"axis=..., or use wt.{'cumsum' if op == 'sum' else 'cumprod'} "
                             f"(axis=None flattens)")
        axis = 0
    return _scan(op, fn, x, axis_index(x, axis, fn), dtype, include_initial)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """Cumulative sum along ``axis`` (required unless ``x`` is 1-D); ``include_initial``
    prepends a 0.  The dtype rule is ``sum``'s."""
    return _cumulative("sum", "cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Tensor:
    """Cumulative product along ``axis``; ``include_initial`` prepends a 1."""
    return _cumulative("prod", "cumulative_prod", x, axis, dtype, include_initial)


def _numpy_cumulative(op: str, fn: str, x, axis, dtype) -> Tensor:
    x = as_tensor(x, fn)
    check_kind(x.dtype, _NUMERIC, fn)
    if axis is None:
        x, axis = _r.flatten(x), 0
    return _scan(op, fn, x, axis_index(x, axis, fn), dtype, False)


def cumsum(x, /, axis=None, dtype=None) -> Tensor:
    """NumPy's cumsum: like ``cumulative_sum`` but ``axis=None`` flattens first."""
    return _numpy_cumulative("sum", "cumsum", x, axis, dtype)


def cumprod(x, /, axis=None, dtype=None) -> Tensor:
    """NumPy's cumprod: like ``cumulative_prod`` but ``axis=None`` flattens first."""
    return _numpy_cumulative("prod", "cumprod", x, axis, dtype)


# -- quantiles --------------------------------------------------------------------------------------

_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")
_DISCRETE = ("lower", "higher", "nearest")


def _q_values(q, scale: float, fn: str):
    """(flat list of quantiles in [0, 1], shape of q); reads a tensor ``q`` to the host."""
    if isinstance(q, (int, float)) and not isinstance(q, bool):
        values, shape = [q], ()
    else:
        # Python sequences are read as float64, as NumPy does (not the default float).
        qt = q if isinstance(q, Tensor) else asarray(q, dtype=_d.float64)
        check_kind(qt.dtype, "iuf", fn)
        values, shape = qt._backend.to_values(qt), qt.shape
    out = [v / scale for v in values]
    for v, raw in zip(out, values):
        if not 0.0 <= v <= 1.0:
            bound = "[0, 100]" if scale == 100 else "[0, 1]"
            raise ValueError(f"wt.{fn}: q={raw!r} is outside {bound}; "
                             f"{'percentiles' if scale == 100 else 'quantiles'} must lie in "
                             f"{bound}")
    return out, shape


def _positions(qs, n: int, method: str):
    """Lower/upper sorted positions and interpolation weights, as NumPy computes them."""
    lo, hi, gamma = [], [], []
    for q in qs:
        pos = q * (n - 1)
        if method == "higher":
            low = math.ceil(pos)
        elif method == "nearest":
            low = round(pos)  # half to even, like np.around
        else:
            low = math.floor(pos)
        g = pos - low if method == "linear" else 0.0
        if method == "midpoint":
            g = 0.0 if pos == low else 0.5
        low = _builtin_min(_builtin_max(low, 0), n - 1)
        lo.append(low)
        hi.append(_builtin_min(low + 1, n - 1))
        gamma.append(g)
    return lo, hi, gamma


def _lerp(a: Tensor, b: Tensor, g: Tensor) -> Tensor:
    """NumPy's ``_lerp``: ``a + (b - a) * g``, from the ``b`` end when ``g >= 0.5``."""
    diff = ew.subtract(b, a)
    low = ew.add(a, ew.multiply(diff, g))
    high = ew.subtract(b, ew.multiply(diff, ew.subtract(1, g)))
    return ew.where(ew.greater_equal(g, 0.5), high, low)


def _quantile(x, qs, q_shape, axis, method: str, keepdims: bool, fn: str) -> Tensor:
    from .sorting import sort_along

    x = as_tensor(x, fn)
    check_supported(x.dtype, fn)
    if method not in _METHODS:
        raise ValueError(f"wt.{fn}: method={method!r} is not supported; use one of "
                         f"{', '.join(map(repr, _METHODS))}")
    axes = axes_tuple(x, axis, fn)
    n = _r.reduced_size(x.shape, axes)
    if n == 0:
        raise ValueError(f"wt.{fn}: cannot take a quantile over an empty axis (shape "
                         f"{x.shape}, axis {axis}); the input must have at least one element")
    rows = sort_along(_r.rows_last(x, axes), -1)
    batch, k = rows.shape[:-1], len(qs)
    lo, hi, gamma = _positions(qs, n, method)
    result = _gathered(rows, lo, batch + (k,))
    if method not in _DISCRETE:
        compute = float_dtype_for(x.dtype)
        a, b = cast(result, compute), cast(_gathered(rows, hi, batch + (k,)), compute)
        g = _r.broadcast_to(from_values(gamma, (k,), compute, x.device), batch + (k,))
        result = _lerp(a, b, g)
    if result.dtype.kind == "f":
        has_nan = ew.isnan(_gathered(rows, [n - 1], batch + (1,)))
        result = ew.where(has_nan, float("nan"), result)
    return _quantile_shape(result, x, axes, q_shape, keepdims)


def _gathered(rows: Tensor, positions, shape) -> Tensor:
    idx = from_values(positions, (len(positions),), _d.int64, rows.device)
    return _r.gather(rows, rows.ndim - 1, _r.broadcast_to(idx, shape))


def _quantile_shape(result: Tensor, x: Tensor, axes, q_shape, keepdims: bool) -> Tensor:
    """``batch + (k,)`` -> ``q_shape + reduced shape`` (with keepdims' 1s)."""
    out_shape = _r.out_shape(x.shape, axes, keepdims)
    front = _r.move_axis(result, result.ndim - 1, 0)
    kept = _r.keep_names(x.names, axes, keepdims)
    names = None if kept is None else (None,) * len(q_shape) + kept
    return _r.reshape(front, tuple(q_shape) + tuple(out_shape), names=names)


def quantile(x, q, /, axis=None, *, method: str = "linear", keepdims: bool = False) -> Tensor:
    """The ``q``-th quantiles (``q`` in [0, 1]) over ``axis`` (None: all), NumPy's methods
    linear (default), lower, higher, nearest, midpoint.  NaN in a slice gives NaN.  The result
    has shape ``q.shape + reduced shape``; float methods return the float dtype of ``x``
    (the default float for integers), discrete methods ``x``'s own dtype."""
    qs, q_shape = _q_values(q, 1, "quantile")
    return _quantile(x, qs, q_shape, axis, method, keepdims, "quantile")


def percentile(x, q, /, axis=None, *, method: str = "linear", keepdims: bool = False) -> Tensor:
    """``quantile`` with ``q`` in percent ([0, 100])."""
    qs, q_shape = _q_values(q, 100, "percentile")
    return _quantile(x, qs, q_shape, axis, method, keepdims, "percentile")


def median(x, /, axis=None, *, keepdims: bool = False) -> Tensor:
    """The median over ``axis`` (the 0.5 quantile, averaging the two middle values)."""
    return _quantile(x, [0.5], (), axis, "linear", keepdims, "median")


# -- average ----------------------------------------------------------------------------------------

def _weights_along(w: Tensor, x: Tensor, axis, fn: str) -> Tensor:
    """Weights with ``x``'s shape: equal shapes, or 1-D weights along a single ``axis``."""
    if w.shape == x.shape:
        return w
    if axis is None or isinstance(axis, (tuple, list)) or w.ndim != 1:
        raise ValueError(f"wt.{fn}: weights of shape {w.shape} differ from x's shape "
                         f"{x.shape}; pass weights of x's shape, or 1-D weights with a single "
                         f"axis=")
    ax = axis_index(x, axis, fn)
    if w.shape[0] != x.shape[ax]:
        raise ValueError(f"wt.{fn}: 1-D weights of length {w.shape[0]} do not match axis {ax} "
                         f"of length {x.shape[ax]}")
    shape = tuple(n if i == ax else 1 for i, n in enumerate(x.shape))
    return _r.broadcast_to(_r.reshape(w, shape), x.shape)


def average(x, /, axis=None, weights=None, returned: bool = False, *, keepdims: bool = False):
    """NumPy's weighted average ``sum(x * w) / sum(w)`` over ``axis``; ``returned=True`` also
    gives the sum of weights (broadcast to the result's shape)."""
    fn = "average"
    x = as_tensor(x, fn)
    if weights is None:
        avg = mean(x, axis, keepdims=keepdims)
        scale = _r.reduced_size(x.shape, axes_tuple(x, axis, fn))
        wsum = _r.full(avg.shape, scale, avg.dtype, x.device)
        return (avg, wsum) if returned else avg
    dt, _, _, (x, w) = promote(_r.same_device((x, weights), fn), fn)
    check_kind(dt, _NUMERIC, fn)
    compute = float_dtype_for(dt)
    x, w = cast(x, compute), cast(w, compute)
    w = _weights_along(w, x, axis, fn)
    axes = axes_tuple(x, axis, fn)
    wsum = _r.reduce("sum", w, axes, keepdims)
    if wsum.size and bool(_any_zero(wsum)):
        raise ZeroDivisionError("wt.average: the weights sum to zero, so the average is not "
                                "defined; check the weights")
    avg = ew.divide(_r.reduce("sum", ew.multiply(x, w), axes, keepdims), wsum)
    return (avg, wsum) if returned else avg


def _any_zero(t: Tensor) -> Tensor:
    zero = ew.equal(t, 0)
    return _r.reduce("any", zero, tuple(range(zero.ndim)), False)


# -- histogram --------------------------------------------------------------------------------------

def _range_of(flat: Tensor, value_range, fn: str):
    """(first, last) edges as Python floats, NumPy's ``_get_outer_edges``."""
    if value_range is not None:
        first, last = (float(v) for v in value_range)
        if first > last:
            raise ValueError(f"wt.{fn}: range=({first}, {last}) has max < min; pass "
                             f"range=(min, max) with min <= max")
        if not (math.isfinite(first) and math.isfinite(last)):
            raise ValueError(f"wt.{fn}: range=({first}, {last}) is not finite")
    elif flat.size == 0:
        first, last = 0.0, 1.0
    else:
        first = float(_r.reduce("min", flat, (0,), False).item())
        last = float(_r.reduce("max", flat, (0,), False).item())
        if not (math.isfinite(first) and math.isfinite(last)):
            raise ValueError(f"wt.{fn}: autodetected range of [{first}, {last}] is not finite; "
                             f"remove NaN/inf values or pass range=(min, max)")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _uniform_edges(flat: Tensor, bins: int, value_range, fn: str) -> Tensor:
    """``bins + 1`` edges like ``np.linspace(first, last, bins + 1)`` in NumPy's bin dtype."""
    first, last = _range_of(flat, value_range, fn)
    edge_dtype = flat.dtype if flat.dtype.kind == "f" else _d.float64
    # NumPy computes in the data's float dtype for a range taken from the data; in float64 for
    # Python numbers (a given range, or (0, 1) for empty data).
    compute = edge_dtype if value_range is None and flat.size else _d.float64
    dev = flat.device
    start = from_values([first], (), compute, dev)
    stop = from_values([last], (), compute, dev)
    step = ew.divide(ew.subtract(stop, start), bins)
    y = ew.add(ew.multiply(_r.iota(bins + 1, dev, compute), step), start)
    y = ew.where(ew.equal(_r.iota(bins + 1, dev), bins), stop, y)
    edges = cast(y, edge_dtype)
    # NumPy refuses a range too narrow for the bin count (equal edges would make empty bins
    # that no value can fall into, and a density of inf); so do we, with its message.
    values = edges._backend.to_values(edges)
    if any(a >= b for a, b in zip(values, values[1:])):
        raise ValueError(f"wt.{fn}: too many bins for data range: {bins} finite-sized bins "
                         f"cannot be made between {first!r} and {last!r} in "
                         f"{edge_dtype.name}; use fewer bins, a wider range=, or a wider "
                         f"dtype")
    return edges


def _array_edges(bins, like: Tensor, fn: str) -> Tensor:
    edges = _r.same_device((like, bins), fn)[1]
    check_kind(edges.dtype, "iuf", fn)
    if edges.ndim != 1 or edges.shape[0] < 2:
        raise ValueError(f"wt.{fn}: bins given as an array must be 1-D with at least 2 edges, "
                         f"got shape {edges.shape}")
    values = edges._backend.to_values(edges)
    if any(a > b for a, b in zip(values, values[1:])):
        raise ValueError(f"wt.{fn}: bins must increase monotonically, got {values}")
    return edges


def _bin_counts(flat: Tensor, edges: Tensor, weights, fn: str) -> Tensor:
    """Counts (or summed weights) per bin: ``edges[i] <= v < edges[i+1]``, last bin closed."""
    from .searching import searchsorted

    nb = edges.shape[0] - 1
    dt, _, _, (flat, edges) = promote((flat, edges), fn)
    flat, edges = cast(flat, dt), cast(edges, dt)
    idx = ew.subtract(searchsorted(edges, flat, side="right"), 1)
    idx = ew.minimum(idx, nb - 1)  # a value equal to the last edge joins the last bin
    inside = ew.logical_and(ew.greater_equal(flat, _r.gather(edges, 0, _zeros_idx(flat, 0))),
                            ew.less_equal(flat, _r.gather(edges, 0, _zeros_idx(flat, nb))))
    idx = ew.where(inside, idx, nb)  # everything else goes to an overflow slot
    if weights is None:
        updates = _r.full(flat.shape, 1, _d.int64, flat.device)
    else:
        updates = _r.flatten(_r.same_device((flat, weights), fn)[1])
        if updates.shape != flat.shape:
            raise ValueError(f"wt.{fn}: weights must have the shape of x ({flat.size} "
                             f"elements), got {updates.size}")
    base = _r.full((nb + 1,), 0, updates.dtype, flat.device)
    counts = _r.scatter("add", base, 0, idx, updates)
    return _r.slice_axis(counts, 0, 0, nb)


def _zeros_idx(like: Tensor, value: int) -> Tensor:
    return _r.full(like.shape, value, _d.int64, like.device)


def histogram(x, bins=10, range=None, weights=None, density: bool = False):  # noqa: A002
    """NumPy's histogram of the flattened ``x``: ``(counts, edges)``.

    ``bins`` is a count of equal-width bins over ``range`` (default: the data's min and max) or
    a 1-D array of increasing edges.  Every bin is half-open except the last, which includes its
    right edge; values outside the range are not counted.
    """
    fn = "histogram"
    flat = _r.flatten(as_tensor(x, fn))
    check_supported(flat.dtype, fn)
    if isinstance(bins, str):
        raise TypeError(f"wt.{fn}: bins={bins!r}: string bin estimators are not supported; "
                        f"pass a number of bins or an array of edges")
    if isinstance(bins, (bool, float, complex)):
        raise TypeError(f"wt.{fn}: bins must be a number of bins (an int) or an array of "
                        f"edges, got {bins!r} ({type(bins).__name__})")
    if isinstance(bins, int):
        _validate.count(bins, f"wt.{fn}", "bins")
        if bins < 1:
            raise ValueError(f"wt.{fn}: bins={bins} must be a positive number of bins")
        edges = _uniform_edges(flat, bins, range, fn)
    else:
        edges = _array_edges(bins, flat, fn)
    counts = _bin_counts(flat, edges, weights, fn)
    if density:
        compute = float_dtype_for(counts.dtype)
        widths = ew.subtract(_r.slice_axis(cast(edges, compute), 0, 1, edges.shape[0]),
                             _r.slice_axis(cast(edges, compute), 0, 0, edges.shape[0] - 1))
        total = _r.reduce("sum", cast(counts, compute), (0,), False)
        counts = ew.divide(ew.divide(cast(counts, compute), widths), total)
    return counts, edges
