"""Plumbing shared by the reduction-style chapters (statistical, searching, sorting, sets, utility).

These helpers sit between the public functions and the backend primitives of
``webtensor.backends.base``: they compute output shapes, allocate ``out`` tensors, build views
(moving an axis, slicing one axis, keepdims) and call ``reduce``/``scan``/``gather``/``scatter``/
``sort``/``argsort``.  Nothing here reads values back to the host (but a backend's
``scatter_in_range``, one word).
"""

from __future__ import annotations

import math

from .. import dtypes as _d
from .. import promotion as _p
from .. import shape as _s
from .. import views as _views
from ..tensor import Tensor, broadcast_view, cast, empty
from ..views import move_axis, permute, slice_axis  # noqa: F401 - the chapters' views

# The value an empty reduction or scan starts from.
IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True}

_UINT_OF_SIZE = {1: _d.uint8, 2: _d.uint16, 4: _d.uint32, 8: _d.uint64}


def default_int() -> _d.DType:
    """The default integer dtype of the active mode (NumPy's mode accumulates in int64)."""
    if _p.get_promotion_mode() == "numpy":
        return _d.int64
    return _d.default_int_dtype()


def accumulation_dtype(dt: _d.DType, dtype, fn: str) -> _d.DType:
    """The dtype ``sum``/``prod``/``cumulative_*`` compute in (Array API rule).

    An explicit ``dtype`` wins.  Otherwise bool -> the default int; signed ints narrower than the
    default int -> the default int; unsigned ints narrower -> the unsigned int of that width;
    anything else keeps its dtype.
    """
    if dtype is not None:
        try:
            return _d.dtype(dtype)
        except TypeError:
            raise TypeError(f"wt.{fn}: dtype={dtype!r} is not a data type; pass e.g. "
                            f"dtype=wt.int64 or dtype='float32'") from None
    if dt.kind == "b":
        return default_int()
    if dt.kind in "iu":
        wide = default_int()
        if dt.itemsize < wide.itemsize:
            return wide if dt.kind == "i" else _UINT_OF_SIZE[wide.itemsize]
    return dt


def reduced_size(shape, axes) -> int:
    return math.prod(shape[a] for a in axes)


def out_shape(shape, axes, keepdims: bool) -> tuple[int, ...]:
    """The shape of a reduction over ``axes`` (reduced axes become 1 with ``keepdims``)."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape) if keepdims or i not in axes)


def keep_names(names, axes, keepdims: bool):
    """Axis names of a reduction result: a reduced axis loses its name unless it is kept."""
    if keepdims or names is None:
        return names
    kept = tuple(n for i, n in enumerate(names) if i not in axes)
    return kept if any(n is not None for n in kept) else None


def keepdims_view(out: Tensor, axes, names=None) -> Tensor:
    """``out`` (contiguous, reduced over ``axes``) re-viewed with those axes as length 1."""
    shape = list(out.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    shape = tuple(shape)
    return out._view(shape, _s.contiguous_strides(shape), out.offset, names=names)


def reduce(op: str, x: Tensor, axes, keepdims: bool, *, dtype=None, weak=False) -> Tensor:
    """``backend.reduce(op)`` of ``x`` (cast to ``dtype``) over ``axes``.

    An empty reduction gives ``IDENTITY[op]``; callers refuse empty max/min themselves.
    """
    dtype = x.dtype if dtype is None else dtype
    x = cast(x, dtype, weak=weak)
    if len(axes) == x.ndim:  # everything (the common case): a 0-d result
        shape = ()
    else:
        shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    names = keep_names(x.names, axes, keepdims)
    out = empty(shape, dtype, x.device, weak=weak, names=None if keepdims else names)
    if not shape or out.size:
        if 0 in x.shape:
            x._backend.fill(out, IDENTITY[op])
        else:
            x._backend.reduce(op, out, x, tuple(axes))
    return keepdims_view(out, axes, names) if keepdims else out


def scan(op: str, x: Tensor, axis: int) -> Tensor:
    """Inclusive ``backend.scan(op)`` along ``axis`` in ``x``'s dtype."""
    out = empty(x.shape, x.dtype, x.device, weak=x.weak, names=x.names)
    if out.size:
        x._backend.scan(op, out, x, axis)
    return out


def same_device(args, fn: str) -> list:
    """``args`` with array-likes (lists, NumPy arrays) made tensors on the device of the first
    tensor among them (not the default device); tensors and Python scalars pass through."""
    from ._common import as_tensor, is_scalar
    from .creation import asarray

    device = next((a.device for a in args if isinstance(a, Tensor)), None)
    out = []
    for a in args:
        if a is None or isinstance(a, Tensor) or is_scalar(a):
            out.append(a)
        elif device is None:
            out.append(as_tensor(a, fn))
        else:
            try:
                out.append(asarray(a, device=device))
            except (TypeError, ValueError) as e:
                raise TypeError(f"wt.{fn}: expected a tensor or array-like, got "
                                f"{type(a).__name__} ({e})") from None
    return out


# -- views ------------------------------------------------------------------------------------------

# permute, move_axis, slice_axis: the view layer's (views.py); reshape here is views.dense
# (the reductions want C-ordered rows)
reshape = _views.dense


def flatten(x: Tensor) -> Tensor:
    return reshape(x, (x.size,))


def rows_last(x: Tensor, axes) -> Tensor:
    """``x`` with ``axes`` moved to the end and merged into one: shape ``kept + (n,)``."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = permute(x, kept + list(axes))
    shape = tuple(x.shape[i] for i in kept) + (reduced_size(x.shape, axes),)
    return reshape(moved, shape)


def concat(tensors, axis: int) -> Tensor:
    """Join same-dtype tensors (equal shapes except along ``axis``) into a new tensor."""
    first = tensors[0]
    shape = list(first.shape)
    shape[axis] = sum(t.shape[axis] for t in tensors)
    out = empty(tuple(shape), first.dtype, first.device, weak=first.weak, names=first.names)
    start = 0
    for t in tensors:
        n = t.shape[axis]
        if n and t.size:
            first._backend.assign(slice_axis(out, axis, start, start + n), t)
        start += n
    return out


# -- allocation and primitives -----------------------------------------------------------------------

def full(shape, value, dtype: _d.DType, device, names=None) -> Tensor:
    out = empty(tuple(shape), dtype, device, names=names)
    if out.size:
        device.backend.fill(out, value)
    return out


def iota(n: int, device, dtype=_d.int64) -> Tensor:
    out = empty((n,), dtype, device)
    if n:
        device.backend.iota(out, 0, 1)
    return out


def gather(x: Tensor, axis: int, indices: Tensor) -> Tensor:
    """take_along_axis: ``indices`` (integers, wrapped and clamped as Backend.gather says)
    has the result's shape."""
    out = empty(indices.shape, x.dtype, x.device)
    if out.size:
        x._backend.gather(out, x, axis, index_operand(indices))
    return out


def scatter(op: str, base: Tensor, axis: int, indices: Tensor, updates: Tensor) -> Tensor:
    """A copy of ``base`` with ``updates`` scattered into it along ``axis``."""
    out = empty(base.shape, base.dtype, base.device)
    if out.size:
        base._backend.copy(out, base)
        if updates.size:
            base._backend.scatter(op, out, axis, index_operand(indices), cast(updates, base.dtype))
    return out


def scatter_in_range(op: str, base: Tensor, axis: int, indices: Tensor, updates: Tensor):
    """``scatter`` on a backend that checks the indices against ``[0, size)`` while it
    scatters (``Backend.scatter_in_range``, which reads back whether one was not): ``(out,
    every index in range)``, or None where the backend has no such path for the call (the
    caller checks the indices itself)."""
    if not (base.size and updates.size):
        return None
    out = empty(base.shape, base.dtype, base.device)
    base._backend.copy(out, base)
    ok = base._backend.scatter_in_range(op, out, axis, index_operand(indices),
                                        cast(updates, base.dtype))
    return None if ok is None else (out, ok)


def index_operand(indices: Tensor) -> Tensor:
    """Gather's and scatter's indices: int32 ones as they are (a cast costs a pass over
    them), else int64."""
    return cast(indices, _d.int32 if indices.dtype is _d.int32 else _d.int64)


def broadcast_to(x: Tensor, shape) -> Tensor:
    return broadcast_view(x, tuple(shape))
