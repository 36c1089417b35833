"""Searching functions (Array API chapter): argmax, argmin, nonzero, searchsorted,
count_nonzero, and NumPy's argwhere.  (``where`` lives with the elementwise functions; its
one-argument form calls ``nonzero``.)

``nonzero`` and ``argwhere`` read one scalar back to the host (the number of nonzero elements,
which is the result's length); the rest never read back.  ``searchsorted`` is the backend's
own search where it has one (``search_sorted``), else a branchless binary search: log2(n) rounds
of gather + compare + where, so it runs on any device.
"""

from __future__ import annotations

from .. import _validate
from .. import dtypes as _d
from ..tensor import Tensor, cast, empty
from . import _reduce as _r
from . import elementwise as ew
from ._common import (
    as_tensor,
    axes_tuple,
    axis_index,
    check_kind,
    check_supported,
    operand,
    promote,
)

__all__ = ["argmax", "argmin", "nonzero", "searchsorted", "count_nonzero", "argwhere"]


# -- argmax, argmin ---------------------------------------------------------------------------------

def _arg_reduce(op: str, x, axis, keepdims: bool) -> Tensor:
    x = as_tensor(x, op)
    check_supported(x.dtype, op)
    ndim = x.ndim
    if axis is None:
        x, ax = _r.flatten(x), 0
    else:
        if isinstance(axis, (tuple, list)):
            raise TypeError(f"wt.{op}: axis must be a single int or axis name, got {axis!r}; "
                            f"{op} reduces one axis (or all, with axis=None)")
        ax = axis_index(x, axis, op)
    if x.shape[ax] == 0:
        raise ValueError(f"wt.{op}: attempt to get {op} of an empty sequence (axis {ax} of "
                         f"shape {x.shape} has length 0); check x.size first")
    names = _r.keep_names(x.names, (ax,), keepdims)
    out = empty(x.shape[:ax] + x.shape[ax + 1:], _d.int64, x.device,
                names=None if keepdims else names)
    if out.size:
        x._backend.arg_reduce(op, out, x, ax)
    if not keepdims:
        return out
    if axis is None:
        return _r.reshape(out, (1,) * ndim)
    return _r.keepdims_view(out, (ax,), names)


def argmax(x, /, axis=None, *, keepdims: bool = False) -> Tensor:
    """Index (int64) of the first maximum along ``axis`` (None: of the flattened tensor);
    a NaN counts as the maximum."""
    return _arg_reduce("argmax", x, axis, keepdims)


def argmin(x, /, axis=None, *, keepdims: bool = False) -> Tensor:
    """Index (int64) of the first minimum along ``axis``; a NaN counts as the minimum."""
    return _arg_reduce("argmin", x, axis, keepdims)


# -- nonzero ----------------------------------------------------------------------------------------

def _truth(x: Tensor) -> Tensor:
    return cast(x, _d.bool, weak=False)


def _flat_nonzero(mask: Tensor) -> Tensor:
    """Flat indices (int64, C order) of the True elements of a 1-D bool tensor.

    The backend's own compaction where it has one (``flat_nonzero``), else: read back the
    count, and a stable argsort of ``not mask`` puts the True positions first, in order.
    """
    from .sorting import argsort_along

    found = mask._backend.flat_nonzero(mask)
    if found is not None:
        return found
    count = int(_r.reduce("sum", mask, (0,), False, dtype=_d.int64).item())
    order = argsort_along(ew.logical_not(mask), 0)
    return _r.slice_axis(order, 0, 0, count)


def flat_nonzero(mask: Tensor) -> Tensor:
    """The C-order flat positions (int64) of the True elements of a bool tensor of any
    shape (boolean-mask indexing's index)."""
    return _flat_nonzero(_r.flatten(mask))


def _unravel(flat: Tensor, shape) -> list[Tensor]:
    """Per-axis coordinates of C-order flat indices."""
    coords, stride = [], 1
    for n in reversed(shape):
        c = ew.floor_divide(flat, stride) if stride != 1 else flat
        coords.append(ew.remainder(c, n) if n != 1 else ew.multiply(c, 0))
        stride *= n
    return [cast(c, _d.int64, weak=False) for c in reversed(coords)]


def nonzero(x, /) -> tuple[Tensor, ...]:
    """A tuple with one int64 index tensor per axis: the coordinates of the nonzero elements in
    C order.  A 0-d tensor is refused (Array API); reshape it to (1,) first."""
    x = as_tensor(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("wt.nonzero: a 0-d tensor has no axes to index; use "
                         "wt.nonzero(wt.reshape(x, (1,))) or wt.argwhere(x)")
    flat = _flat_nonzero(_r.flatten(_truth(x)))
    if x.ndim == 1:
        return (flat,)
    return tuple(_unravel(flat, x.shape))


def argwhere(x, /) -> Tensor:
    """NumPy's argwhere: the nonzero coordinates as an int64 tensor of shape (N, x.ndim)."""
    x = as_tensor(x, "argwhere")
    flat = _flat_nonzero(_r.flatten(_truth(x)))
    n = flat.shape[0]
    out = empty((n, x.ndim), _d.int64, x.device)
    if out.size:
        for axis, coord in enumerate(_unravel(flat, x.shape)):
            column = out._view((n,), (x.ndim,), axis)
            x._backend.assign(column, coord)
    return out


def count_nonzero(x, /, axis=None, *, keepdims: bool = False) -> Tensor:
    """Number of nonzero elements along ``axis`` (int64)."""
    x = as_tensor(x, "count_nonzero")
    axes = axes_tuple(x, axis, "count_nonzero")
    return _r.reduce("sum", _truth(x), axes, keepdims, dtype=_d.int64)


# -- searchsorted -----------------------------------------------------------------------------------

def _binary_search(a: Tensor, v: Tensor, side: str) -> Tensor:
    """Insertion positions of the 1-D ``v`` in the sorted 1-D ``a``: a branch-free lower bound
    on one halving schedule for every element of ``v``.  The answer stays in ``[base, base +
    length]``: ``base`` moves up by ``half`` where ``a[base + half]`` goes before ``v``, the
    length shrinks by ``half`` either way, so every probe lies inside ``a`` (no bounds test);
    the last probe decides between ``base`` and ``base + 1``.  Three ops and a gather per
    halving, on int32 positions (int64 costs GPUs two words per op).

    NaN sorts last, so ``a``'s NaN (if any) are its tail: a comparison with one is False,
    which is what a number ``v`` needs (``a[k] < v``, or ``<=`` for side right); a NaN ``v``
    goes before ``a``'s first NaN (left) or after its last (right), fixed up at the end."""
    n = a.shape[0]
    if n == 0:
        return _r.full(v.shape, 0, _d.int64, v.device)
    found = a._backend.search_sorted(a, v, side == "right")
    if found is not None:
        return found
    index = _d.int32 if n < 2**31 - 1 else _d.int64
    goes_after = ew.less if side == "left" else ew.less_equal
    base = _r.full(v.shape, 0, index, v.device)
    length = n
    while length > 1:
        half = length // 2
        cand = ew.add(base, half)
        base = ew.where(goes_after(_r.gather(a, 0, cand), v), cand, base)
        length -= half
    found = ew.add(base, cast(goes_after(_r.gather(a, 0, base), v), index, weak=False))
    if a.dtype.kind == "f":
        nan_at = n if side == "right" else count_nonzero(ew.logical_not(ew.isnan(a)))
        found = ew.where(ew.isnan(v), nan_at, found)
    return cast(found, _d.int64, weak=False)


def searchsorted(x1, x2, /, *, side: str = "left", sorter=None) -> Tensor:
    """Indices (int64, shaped like ``x2``) where ``x2``'s elements would be inserted into the
    sorted 1-D ``x1`` to keep it sorted; ``side='right'`` goes after equal elements.
    ``sorter`` holds indices that sort ``x1`` (e.g. from argsort).  NaN sorts last."""
    fn = "searchsorted"
    _validate.option(side, f"wt.{fn}", "side", ("left", "right"))
    x1 = as_tensor(x1, fn)
    if x1.ndim != 1:
        raise ValueError(f"wt.{fn}: x1 must be 1-D (a sorted sequence), got shape {x1.shape}")
    dt, _, device, (x1, x2) = promote(_r.same_device((x1, x2), fn), fn)
    check_supported(dt, fn)
    a = cast(x1, dt)
    v = operand(x2, dt, device)
    if sorter is not None:
        a = _r.gather(a, 0, _sorter(_r.same_device((a, sorter), fn)[1], a.shape[0], fn))
    out = _binary_search(a, _r.flatten(v), side)
    return _r.reshape(out, v.shape)


def _sorter(sorter, n: int, fn: str) -> Tensor:
    s = sorter
    check_kind(s.dtype, "iu", fn)
    if s.shape != (n,):
        raise ValueError(f"wt.{fn}: sorter must be 1-D with x1's length {n}, got shape "
                         f"{s.shape}")
    return s
