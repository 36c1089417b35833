"""The view layer: new geometry (shape, strides, offset) over a tensor's buffer, unchecked.

Every chapter of the API builds its views from these (arguments already validated there):
permute, reshape, move_axis, slice_axis, and broadcast (``tensor.broadcast_view``).  A view
never copies, except ``reshape`` of a layout that no strides can express (then a contiguous
copy first) and ``dense`` (always a C-ordered buffer).
"""

from __future__ import annotations

from . import shape as _s
from .tensor import Tensor, broadcast_view, contiguous

__all__ = ["permute", "reshape", "dense", "move_axis", "slice_axis", "broadcast_view"]


def permute(x: Tensor, order) -> Tensor:
    """``x`` with its axes in ``order`` (a permutation of ``range(x.ndim)``)."""
    order = tuple(order)
    if order == tuple(range(x.ndim)):
        return x
    names = None if x.names is None else tuple(x.names[i] for i in order)
    return x._view(tuple(x.shape[i] for i in order), tuple(x.strides[i] for i in order),
                   x.offset, names=names)


def reshape(x: Tensor, shape, names=None) -> Tensor:
    """``x`` with a new shape (same element count): a view when the strides allow, else a
    contiguous copy first."""
    shape = tuple(shape)
    if shape == x.shape and names is None:
        return x
    strides = _s.reshape_strides(x.shape, x.strides, shape)
    if strides is None:
        x = contiguous(x)
        strides = _s.contiguous_strides(shape)
    return x._view(shape, strides, x.offset, names=names)


def dense(x: Tensor, shape, names=None) -> Tensor:
    """``x`` as a C-ordered buffer seen with ``shape`` (a copy first unless ``x`` is one)."""
    x = contiguous(x) if not x.is_contiguous else x
    shape = tuple(shape)
    return x._view(shape, _s.contiguous_strides(shape), x.offset, names=names)


def move_axis(x: Tensor, source: int, dest: int) -> Tensor:
    order = [i for i in range(x.ndim) if i != source]
    order.insert(dest % x.ndim if x.ndim else 0, source)
    return permute(x, order)


def slice_axis(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    """``x[..., start:stop, ...]`` along ``axis`` (0 <= start <= stop <= n)."""
    shape = list(x.shape)
    shape[axis] = stop - start
    # An empty view keeps the base offset: nothing is read, and backends may check bounds.
    offset = x.offset + start * x.strides[axis] if _s.size_of(shape) else x.offset
    return x._view(tuple(shape), x.strides, offset, names=x.names)
