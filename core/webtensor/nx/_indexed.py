"""Nx's indexed functions on the core's gather and scatter.

Indices that are tensors are *dynamic*: their values are unknown until the device computes
them, so, as in Nx (and XLA), they are clamped into range rather than checked: a slice start
moves so the slice fits, a ``take``/``gather`` index sticks to the first or last element.
``indexed_add``/``indexed_put`` drop updates whose index is out of range (they land in one
extra element that is cut off), so nothing is ever read back to the host.
"""

from __future__ import annotations

import math

from .. import dtypes as _d
from ..api import _reduce as _r
from ..api import elementwise as _ew
from ..api import manipulation as _m
from ..tensor import Tensor, empty
from ._core import (
    axis_index,
    fail,
    merge,
    names_of,
    norm_names,
    nx_function,
    operand_as,
    strong,
    to_tensor,
    type_text,
)

__all__ = ["slice", "slice_along_axis", "put_slice", "take", "take_along_axis", "gather",
           "indexed_add", "indexed_put"]

_I64 = _d.int64


def _int_tensor(t: Tensor, fn: str, what: str = "indices") -> Tensor:
    if t.dtype.kind not in "iu":
        fail(fn, f"{what} must be an integer tensor, got {type_text(t.dtype)}", TypeError)
    return strong(t, _I64)


def _clip(idx: Tensor, low: int, high: int, fn: str) -> Tensor:
    return _ew.minimum(_ew.maximum(idx, operand_as(low, _I64, idx.device, fn)),
                       operand_as(high, _I64, idx.device, fn))


def _copy(x: Tensor, names=None) -> Tensor:
    out = empty(x.shape, x.dtype, x.device, names=names)
    if out.size:
        x._backend.copy(out, x)
    return out


def _starts(t: Tensor, start_indices, fn: str):
    """Nx's start indices: all Python ints (static) or a mix with scalar integer tensors."""
    if not isinstance(start_indices, (list, tuple)):
        fail(fn, f"start indices must be a list, got {start_indices!r}", TypeError)
    if len(start_indices) != t.ndim:
        fail(fn, f"invalid start indices rank for shape of rank {t.ndim}")
    out, static = [], True
    for i, s in enumerate(start_indices):
        if isinstance(s, int) and not isinstance(s, bool):
            out.append(s)
            continue
        static = False
        s = to_tensor(s, fn, t.device)
        if s.ndim:
            fail(fn, f"index must be scalar, got shape {s.shape} for axis {i}")
        if s.dtype.kind not in "iu":
            fail(fn, f"index must be integer type, got {type_text(s.dtype)} for axis {i}",
                 TypeError)
        out.append(strong(s, _I64))
    return out, static


def _offsets(shape, starts, strides, out_shape, dev, fn: str) -> Tensor:
    """Flat (C-order) positions in ``shape`` of every element of a strided box whose
    ``starts`` are clamped tensors: an int64 tensor of ``out_shape``."""
    flat = None
    stride = 1
    for ax in range(len(shape) - 1, -1, -1):
        line = _r.iota(out_shape[ax], dev)
        if strides[ax] != 1:
            line = _ew.multiply(line, operand_as(strides[ax], _I64, dev, fn))
        s = starts[ax]
        line = _ew.add(line, s if isinstance(s, Tensor) else operand_as(s, _I64, dev, fn))
        if stride != 1:
            line = _ew.multiply(line, operand_as(stride, _I64, dev, fn))
        view = _r.reshape(line, tuple(n if i == ax else 1 for i, n in enumerate(out_shape)))
        flat = view if flat is None else _ew.add(flat, view)
        stride *= shape[ax]
    return _r.broadcast_to(flat, tuple(out_shape)) if flat is not None else \
        operand_as(0, _I64, dev, fn)


@nx_function
def slice(tensor, start_indices, lengths, *, strides=1) -> Tensor:  # noqa: A001 - Nx's name
    """The box of ``lengths`` from ``start_indices`` (every ``strides``-th element); starts are
    clamped so the box fits (tensor starts too, on the device)."""
    fn = "slice"
    t = to_tensor(tensor, fn)
    starts, static = _starts(t, start_indices, fn)
    if not isinstance(lengths, (list, tuple)) or len(lengths) != t.ndim:
        fail(fn, f"invalid limit indices rank for shape of rank {t.ndim}")
    if isinstance(strides, int) and not isinstance(strides, bool):
        strides = [strides] * t.ndim
    if len(strides) != t.ndim:
        fail(fn, f"invalid strides rank for shape of rank {t.ndim}")
    out_shape = []
    for ax, (n, length, s) in enumerate(zip(t.shape, lengths, strides)):
        if not isinstance(length, int) or length < 1:
            fail(fn, f"length at axis {ax} must be greater than or equal to 1, got: {length!r}")
        if not isinstance(s, int) or s < 1:
            fail(fn, f"stride at axis {ax} must be greater than or equal to 1, got: {s!r}")
        if length > n:
            fail(fn, f"length at axis {ax} must be less than axis size of {n}, got: {length}")
        out_shape.append(-(-length // s))
    if static:
        starts = [min(max(s, 0), n - length) for s, n, length in zip(starts, t.shape, lengths)]
        view = t._view(tuple(out_shape), tuple(st * s for st, s in zip(t.strides, strides)),
                       t.offset + sum(a * st for a, st in zip(starts, t.strides)),
                       names=t.names)
        return _copy(view, t.names)
    clamped = [_clip(s, 0, n - length, fn) if isinstance(s, Tensor) else min(max(s, 0), n - length)
               for s, n, length in zip(starts, t.shape, lengths)]
    idx = _offsets(t.shape, clamped, strides, out_shape, t.device, fn)
    out = _r.gather(_r.flatten(t), 0, _r.flatten(idx))
    return _r.reshape(out, tuple(out_shape), t.names)


@nx_function
def slice_along_axis(tensor, start_index, length, *, axis=0, strides=1) -> Tensor:
    """``slice`` along one ``axis``, the other axes whole."""
    fn = "slice_along_axis"
    t = to_tensor(tensor, fn)
    ax = axis_index(t, axis, fn)
    starts = [0] * t.ndim
    starts[ax] = start_index
    lengths = list(t.shape)
    lengths[ax] = length
    steps = [1] * t.ndim
    steps[ax] = strides
    return slice(t, starts, lengths, strides=steps)


@nx_function
def put_slice(tensor, start_indices, slice) -> Tensor:  # noqa: A002 - Nx's name
    """A copy of ``tensor`` with ``slice`` written at ``start_indices`` (clamped so it fits);
    the type merges both."""
    fn = "put_slice"
    t, s = to_tensor(tensor, fn), to_tensor(slice, fn)
    if s.ndim != t.ndim:
        fail(fn, f"invalid slice for put_slice, rank of slice must match {t.ndim}, got: "
                 f"{s.ndim}")
    if any(a > b for a, b in zip(s.shape, t.shape)):
        fail(fn, f"slice shape {s.shape} must be less than or equal to tensor shape {t.shape}")
    starts, static = _starts(t, start_indices, fn)
    dt = merge(t, s)
    nt, ns = names_of(t), names_of(s)
    names = norm_names([a if a is not None else b for a, b in zip(nt, ns)])
    out = _copy(strong(t, dt), names)
    value = operand_as(s, dt, t.device, fn)
    if static:
        starts = [min(max(a, 0), n - m) for a, n, m in zip(starts, t.shape, s.shape)]
        if s.size:
            view = out._view(s.shape, out.strides,
                             out.offset + sum(a * st for a, st in zip(starts, out.strides)))
            _m.write(view, value, fn)
        return out
    clamped = [_clip(a, 0, n - m, fn) if isinstance(a, Tensor) else min(max(a, 0), n - m)
               for a, n, m in zip(starts, t.shape, s.shape)]
    idx = _offsets(t.shape, clamped, [1] * t.ndim, s.shape, t.device, fn)
    flat = _r.scatter("set", _r.flatten(out), 0, _r.flatten(idx), _r.flatten(value))
    return _r.reshape(flat, t.shape, names)


@nx_function
def take(tensor, indices, *, axis=0) -> Tensor:
    """The slices of ``tensor`` along ``axis`` at ``indices`` (any shape: it replaces the axis
    in the result's shape); indices are clamped into range."""
    fn = "take"
    t = to_tensor(tensor, fn)
    idx = _int_tensor(to_tensor(indices, fn, t.device), fn)
    ax = axis_index(t, axis, fn)
    n = t.shape[ax]
    if n == 0:
        fail(fn, f"cannot take from an empty axis {ax} of shape {t.shape}")
    idx = _clip(idx, 0, n - 1, fn)
    pre, post = t.shape[:ax], t.shape[ax + 1:]
    p, q = math.prod(pre), math.prod(post)
    src = _r.reshape(t, (p, n, q))
    flat = _r.reshape(idx, (1, idx.size, 1))
    out = _r.gather(src, 1, _r.broadcast_to(flat, (p, idx.size, q)))
    nt = names_of(t)
    ni = names_of(idx) if idx.ndim != 1 else (idx.names[0] if idx.names else nt[ax],)
    names = norm_names(list(nt[:ax]) + list(ni) + list(nt[ax + 1:]))
    return _r.reshape(out, pre + idx.shape + post, names)


@nx_function
def take_along_axis(tensor, indices, *, axis=0) -> Tensor:
    """``out[..., i, ...] = tensor[..., indices[..., i, ...], ...]`` along ``axis`` (indices of
    the tensor's shape but for that axis; clamped into range)."""
    fn = "take_along_axis"
    t = to_tensor(tensor, fn)
    idx = _int_tensor(to_tensor(indices, fn, t.device), fn)
    ax = axis_index(t, axis, fn)
    if idx.ndim != t.ndim or any(a != b for i, (a, b) in enumerate(zip(idx.shape, t.shape))
                                 if i != ax):
        fail(fn, f"shapes must have the same number of dimensions and agree except on axis "
                 f"{ax}. Expected {t.shape[:ax] + ('*',) + t.shape[ax + 1:]}, got: {idx.shape}")
    idx = _clip(idx, 0, t.shape[ax] - 1, fn)
    out = _r.gather(t, ax, idx)
    return out._view(out.shape, out.strides, out.offset, names=t.names)


def _flat_index(t: Tensor, idx: Tensor, fn: str, clamp: bool):
    """Flat positions of the coordinates in ``idx``'s last axis (one per axis of ``t``) and,
    when not clamping, whether each is in range."""
    if idx.ndim < 1:
        fail(fn, "expected indices rank to be at least 1, got: 0")
    if idx.shape[-1] != t.ndim:
        fail(fn, f"expected the last indices dimension size ({idx.shape[-1]}) to match the "
                 f"tensor rank ({t.ndim})")
    flat, valid, stride = None, None, 1
    for ax in range(t.ndim - 1, -1, -1):
        c = _r.reshape(_r.slice_axis(idx, idx.ndim - 1, ax, ax + 1), idx.shape[:-1])
        n = t.shape[ax]
        if clamp:
            c = _clip(c, 0, n - 1, fn)
        else:
            ok = _ew.logical_and(_ew.greater_equal(c, operand_as(0, _I64, t.device, fn)),
                                 _ew.less(c, operand_as(n, _I64, t.device, fn)))
            valid = ok if valid is None else _ew.logical_and(valid, ok)
        term = c if stride == 1 else _ew.multiply(c, operand_as(stride, _I64, t.device, fn))
        flat = term if flat is None else _ew.add(flat, term)
        stride *= n
    if flat is None:
        flat = _r.full(idx.shape[:-1], 0, _I64, t.device)
    return flat, valid


@nx_function
def gather(tensor, indices) -> Tensor:
    """The elements of ``tensor`` at the coordinates in the last axis of ``indices`` (one per
    axis of ``tensor``); the result has ``indices``' other axes.  Coordinates are clamped."""
    fn = "gather"
    t = to_tensor(tensor, fn)
    idx = _int_tensor(to_tensor(indices, fn, t.device), fn)
    flat, _ = _flat_index(t, idx, fn, clamp=True)
    if t.size == 0:
        fail(fn, f"cannot gather from an empty tensor of shape {t.shape}")
    out = _r.gather(_r.flatten(t), 0, _r.flatten(flat))
    return _r.reshape(out, idx.shape[:-1])


def _indexed(op: str, target, indices, updates, fn: str) -> Tensor:
    t = to_tensor(target, fn)
    idx = _int_tensor(to_tensor(indices, fn, t.device), fn)
    u = to_tensor(updates, fn, t.device)
    if idx.ndim != 2:
        fail(fn, f"indices must be a rank 2 tensor, got: {idx.ndim}")
    if u.ndim != 1:
        fail(fn, f"updates must be a rank 1 tensor, got: {u.ndim}")
    if idx.shape[1] != t.ndim:
        fail(fn, f"expected indices to have shape (*, {t.ndim}), got: {idx.shape}")
    if u.shape != idx.shape[:1]:
        fail(fn, f"expected updates tensor to match the first axis of indices tensor with "
                 f"shape {idx.shape}, got {u.shape}")
    dt = merge(t, u)
    flat, valid = _flat_index(t, idx, fn, clamp=False)
    spill = operand_as(t.size, _I64, t.device, fn)  # an extra element for dropped updates
    flat = _ew.where(valid, flat, spill)
    base = _r.concat([_r.flatten(strong(t, dt)), _r.full((1,), 0, dt, t.device)], 0)
    out = _r.scatter(op, base, 0, flat, operand_as(u, dt, t.device, fn))
    return _r.reshape(_r.slice_axis(out, 0, 0, t.size), t.shape, t.names)


@nx_function
def indexed_add(target, indices, updates) -> Tensor:
    """A copy of ``target`` with ``updates[i]`` added at the coordinates ``indices[i]``
    (repeated coordinates add up; out-of-range ones are dropped)."""
    return _indexed("add", target, indices, updates, "indexed_add")


@nx_function
def indexed_put(target, indices, updates) -> Tensor:
    """A copy of ``target`` with ``updates[i]`` written at ``indices[i]`` (the last write wins
    for repeated coordinates; out-of-range ones are dropped)."""
    return _indexed("set", target, indices, updates, "indexed_put")
