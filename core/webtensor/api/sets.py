"""Set functions (Array API chapter): unique_all, unique_counts, unique_inverse, unique_values,
NumPy's ``unique``, and ``isin`` (Array API 2025.12 draft).

One pipeline serves the unique functions: flatten, stable argsort, mark where a sorted element differs from
its predecessor, number the groups with a cumulative sum, then scatter values, first indices,
counts and inverse indices into place.  The number of unique values (the result's length) is
read back to the host: one scalar.  ``isin`` sorts ``x2`` and binary-searches it (complex:
compares all pairs); it reads nothing back.

NaN: the Array API functions treat every NaN as distinct (``NaN != NaN``), NumPy's ``unique``
collapses them by default (``equal_nan=True``).  ``-0.0`` and ``0.0`` are equal; the one kept is
the first in ``x``.  Values come out sorted, NaN last, complex lexicographically.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import dtypes as _d
from ..tensor import Tensor, cast
from . import _reduce as _r
from . import elementwise as ew
from ._common import as_tensor, axis_index, check_kind, operand, promote

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values", "unique", "isin"]


class UniqueAllResult(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


class _Groups(NamedTuple):
    """The sorted view of a flattened tensor, split into runs of equal values."""

    order: Tensor  # argsort of the flat input
    starts: Tensor  # bool, True where a new value begins (sorted order)
    group: Tensor  # int64, the group number of each sorted element
    count: int  # number of groups


def _group(order: Tensor, differs) -> _Groups:
    """Groups from ``differs`` (bool, one shorter than the data: sorted[i+1] != sorted[i];
    None when there are fewer than two elements)."""
    n = order.shape[0]
    starts = _r.full((n,), True, _d.bool, order.device)
    if differs is not None:
        starts._backend.assign(_r.slice_axis(starts, 0, 1, n), differs)
    group = ew.subtract(_r.scan("sum", cast(starts, _d.int64), 0), 1)
    count = int(_r.reduce("sum", starts, (0,), False, dtype=_d.int64).item()) if n else 0
    return _Groups(order, starts, group, count)


def _differs(s: Tensor, equal_nan: bool) -> Tensor:
    """``s[i+1] != s[i]`` along axis 0 (each NaN distinct unless ``equal_nan``)."""
    n = s.shape[0]
    nxt, prev = _r.slice_axis(s, 0, 1, n), _r.slice_axis(s, 0, 0, n - 1)
    diff = ew.not_equal(nxt, prev)
    if equal_nan and s.dtype.kind in "fc":
        diff = ew.logical_and(diff, ew.logical_not(ew.logical_and(ew.isnan(nxt),
                                                                  ew.isnan(prev))))
    return diff


def _flat_groups(x: Tensor, equal_nan: bool) -> tuple[_Groups, Tensor]:
    from .sorting import argsort_along

    flat = _r.flatten(x)
    order = argsort_along(flat, 0)
    s = _r.gather(flat, 0, order)
    differs = _differs(s, equal_nan) if s.shape[0] > 1 else None
    return _group(order, differs), s


def _at_starts(g: _Groups, values: Tensor) -> Tensor:
    """``values`` (sorted order) at each group's first element: shape ``(count,)``."""
    slots = ew.where(g.starts, g.group, g.count)  # the rest go to an overflow slot
    base = _r.full((g.count + 1,), 0, values.dtype, values.device)
    return _r.slice_axis(_r.scatter("set", base, 0, slots, values), 0, 0, g.count)


def _counts(g: _Groups) -> Tensor:
    base = _r.full((g.count,), 0, _d.int64, g.order.device)
    ones = _r.full(g.group.shape, 1, _d.int64, g.order.device)
    return _r.scatter("add", base, 0, g.group, ones)


def _inverse(g: _Groups, shape) -> Tensor:
    n = g.order.shape[0]
    base = _r.full((n,), 0, _d.int64, g.order.device)
    return _r.reshape(_r.scatter("set", base, 0, g.order, g.group), shape)


def _values(g: _Groups, s: Tensor, weak: bool) -> Tensor:
    out = _at_starts(g, s)
    return cast(out, out.dtype, weak=weak)


# -- Array API --------------------------------------------------------------------------------------

def unique_all(x, /) -> UniqueAllResult:
    """Sorted unique values with the index of each one's first occurrence (in the flattened
    ``x``), the inverse indices (shaped like ``x``) and the counts.  NaNs are distinct."""
    x = as_tensor(x, "unique_all")
    g, s = _flat_groups(x, equal_nan=False)
    return UniqueAllResult(_values(g, s, x.weak), _at_starts(g, g.order), _inverse(g, x.shape),
                           _counts(g))


def unique_counts(x, /) -> UniqueCountsResult:
    """Sorted unique values and how often each occurs.  NaNs are distinct."""
    x = as_tensor(x, "unique_counts")
    g, s = _flat_groups(x, equal_nan=False)
    return UniqueCountsResult(_values(g, s, x.weak), _counts(g))


def unique_inverse(x, /) -> UniqueInverseResult:
    """Sorted unique values and, for each element of ``x``, the index of its value."""
    x = as_tensor(x, "unique_inverse")
    g, s = _flat_groups(x, equal_nan=False)
    return UniqueInverseResult(_values(g, s, x.weak), _inverse(g, x.shape))


def unique_values(x, /) -> Tensor:
    """Sorted unique values of ``x`` (flattened).  NaNs are distinct."""
    x = as_tensor(x, "unique_values")
    g, s = _flat_groups(x, equal_nan=False)
    return _values(g, s, x.weak)


# -- NumPy's unique ---------------------------------------------------------------------------------

def _row_groups(rows: Tensor) -> tuple[_Groups, Tensor]:
    """Groups of equal rows of a 2-D tensor, in lexicographic row order."""
    from .sorting import argsort_along

    n, m = rows.shape
    order = _r.iota(n, rows.device)
    for j in reversed(range(m)):  # stable sorts, least significant column first
        column = _r.gather(_r.slice_axis(rows, 1, j, j + 1), 0, _r.reshape(order, (n, 1)))
        step = argsort_along(_r.reshape(column, (n,)), 0)
        order = _r.gather(order, 0, step)
    sorted_rows = _r.gather(rows, 0, _r.broadcast_to(_r.reshape(order, (n, 1)), (n, m)))
    differs = None
    if n > 1:
        ne = ew.not_equal(_r.slice_axis(sorted_rows, 0, 1, n),
                          _r.slice_axis(sorted_rows, 0, 0, n - 1))
        differs = _r.reduce("any", ne, (1,), False)
    return _group(order, differs), sorted_rows


def _unique_axis(x: Tensor, axis, flags):
    ax = axis_index(x, axis, "unique")
    moved = _r.move_axis(x, ax, 0)
    rest = moved.shape[1:]
    n = moved.shape[0]
    rows = _r.reshape(moved, (n, _r.reduced_size(rest, range(len(rest)))))
    g, s = _row_groups(rows)
    m = rows.shape[1]
    slots = ew.where(g.starts, g.group, g.count)
    base = _r.full((g.count + 1, m), 0, x.dtype, x.device)
    picked = _r.scatter("set", base, 0, _r.broadcast_to(_r.reshape(slots, (n, 1)), (n, m)), s)
    values = _r.reshape(_r.slice_axis(picked, 0, 0, g.count), (g.count,) + rest)
    values = _r.move_axis(values, 0, ax)
    return _numpy_result(values, g, flags, (n,))


def _numpy_result(values: Tensor, g: _Groups, flags, inverse_shape):
    return_index, return_inverse, return_counts = flags
    out = [values]
    if return_index:
        out.append(_at_starts(g, g.order))
    if return_inverse:
        out.append(_inverse(g, inverse_shape))
    if return_counts:
        out.append(_counts(g))
    return out[0] if len(out) == 1 else tuple(out)


def unique(x, /, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis=None, *, equal_nan: bool = True):
    """NumPy's unique: sorted unique values, plus optionally first indices, inverse indices
    and counts (in that order).  ``axis=None`` flattens (the inverse then has ``x``'s shape);
    an ``axis`` finds unique slices along it.  NaNs compare equal unless ``equal_nan=False``."""
    x = as_tensor(x, "unique")
    flags = (return_index, return_inverse, return_counts)
    if axis is not None:
        if x.ndim == 0:
            raise ValueError(f"wt.unique: axis={axis!r} is out of bounds for a 0-d tensor; "
                             f"use axis=None")
        return _unique_axis(x, axis, flags)
    g, s = _flat_groups(x, equal_nan)
    return _numpy_result(_values(g, s, x.weak), g, flags, x.shape)


# -- isin -------------------------------------------------------------------------------------------

def _member_sorted(v: Tensor, haystack: Tensor) -> Tensor:
    """Membership by binary search in the sorted ``haystack`` (real dtypes)."""
    from .searching import searchsorted
    from .sorting import sort_along

    s = sort_along(haystack, 0)
    n = s.shape[0]
    pos = searchsorted(s, v)
    probe = _r.gather(s, 0, _r.flatten(ew.minimum(pos, n - 1)))
    return ew.logical_and(ew.less(pos, n), ew.equal(_r.reshape(probe, v.shape), v))


def _member_pairwise(v: Tensor, haystack: Tensor) -> Tensor:
    """Membership by comparing every pair (complex, which has no sort order to search)."""
    n = haystack.shape[0]
    column = _r.reshape(v, v.shape + (1,))
    equal = ew.equal(column, _r.broadcast_to(haystack, v.shape + (n,)))
    return _r.reduce("any", equal, (v.ndim,), False)


def isin(x1, x2, /, *, invert: bool = False) -> Tensor:
    """True where an element of ``x1`` occurs anywhere in ``x2`` (the 2025.12 draft, NumPy's
    isin); ``invert=True`` negates.  NaN is never found.  Shaped like ``x1``."""
    fn = "isin"
    dt, _, device, (x1, x2) = promote(_r.same_device((x1, x2), fn), fn)
    check_kind(dt, "biufc", fn)
    v = cast(operand(x1, dt, device), dt, weak=False)
    haystack = _r.flatten(cast(operand(x2, dt, device), dt, weak=False))
    if haystack.shape[0] == 0 or v.size == 0:
        found = _r.full(v.shape, False, _d.bool, device)
    elif dt.kind == "c":
        found = _member_pairwise(v, haystack)
    else:
        found = _member_sorted(v, haystack)
    return ew.logical_not(found) if invert else found
