"""Array API manipulation functions (plus NumPy's transpose, swapaxes, split, pad, ravel).

Everything that only moves data is a new view computed with ``webtensor.shape`` (no bytes are
touched): reshape (when the strides allow it, as in NumPy), permute/transpose/moveaxis,
broadcast, expand_dims, squeeze, flip, split and unstack.  Functions that must produce new data
(concat, stack, tile, repeat, roll, pad) allocate an output and fill it with the backend's
``copy``/``assign``/``gather`` primitives.  ``assign_into`` is the single write path that
in-place operators and ``__setitem__`` share.

Axis names (Nx): any ``axis=`` argument accepts a name; views carry names along (permutes
reorder them, reshape keeps them only when the shape is unchanged, expand_dims inserts ``None``,
squeeze drops them) and functions joining tensors merge them (a clash is a ValueError).
"""

from __future__ import annotations

from .. import dtypes as _d
from .. import shape as _s
from ..tensor import Tensor, broadcast_view, cast, empty
from ._common import as_tensor, axes_tuple, axis_index, is_scalar, merge_names, promote

__all__ = [
    "reshape", "permute_dims", "transpose", "swapaxes", "moveaxis", "broadcast_to",
    "broadcast_arrays", "broadcast_shapes", "expand_dims", "squeeze", "flip", "roll", "concat",
    "stack", "unstack", "tile", "repeat", "split", "array_split", "pad", "ravel", "rename",
]


# -- helpers ----------------------------------------------------------------------------------------

def fresh_copy(x: Tensor) -> Tensor:
    """A new C-contiguous buffer holding ``x``'s values (always a copy)."""
    out = empty(x.shape, x.dtype, x.device, weak=x.weak, names=x.names)
    if x.size:
        x._backend.copy(out, x)
    return out


def _shape_arg(shape, fn: str) -> tuple[int, ...]:
    """An int or a sequence of ints (``-1`` allowed; checked by the caller)."""
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    return tuple(_s.index_arg(n, fn) for n in shape)


def _int_arg(value, fn: str, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"wt.{fn}: {what} must be an integer, got {value!r} "
                        f"({type(value).__name__})")
    return value.__index__()


def _out_axis(axis, ndim: int, fn: str) -> int:
    """An axis of a result with ``ndim`` dims (expand_dims, stack): ints only."""
    if isinstance(axis, str):
        raise TypeError(f"wt.{fn}: axis {axis!r} is a name, but it refers to a position in the "
                        f"result, where no axis has that name yet; pass an integer position")
    return _s.normalize_axis(axis, ndim, fn)


def _joined_axis(axis, ndim: int, names, fn: str) -> int:
    """An axis of tensors being joined, by position or by one of their merged names."""
    if isinstance(axis, str):
        if names is None or axis not in names:
            raise ValueError(f"wt.{fn}: no axis named {axis!r}; the tensors' names are {names}")
        return names.index(axis)
    return _s.normalize_axis(axis, ndim, fn)


def _slice_along(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    """The view ``x[..., start:stop, ...]`` along ``axis`` (0 <= start <= stop <= n)."""
    shape = x.shape[:axis] + (stop - start,) + x.shape[axis + 1:]
    offset = x.offset + start * x.strides[axis] if _s.size_of(shape) else x.offset
    return x._view(shape, x.strides, offset, names=x.names)


# -- writing into existing tensors ----------------------------------------------------------------

def check_same_kind(dt: _d.DType, target: Tensor, fn: str, what: str) -> None:
    """Refuse to store ``what`` (whose dtype is ``dt``) unless ``same_kind`` allows it."""
    if not _d.can_cast(dt, target.dtype, "same_kind"):
        raise TypeError(
            f"wt.{fn}: cannot store {what} into a tensor of dtype {target.dtype.name}: "
            f"{dt.name} -> {target.dtype.name} is not a 'same_kind' cast; compute into a new "
            f"tensor instead, or convert explicitly with wt.astype(value, {target.dtype!r})"
        )


def fit_value(value: Tensor, shape, fn: str) -> Tensor:
    """``value`` broadcast to ``shape`` (leading 1-dims of ``value`` may be dropped, as NumPy
    allows when writing)."""
    vshape = value.shape
    while len(vshape) > len(shape) and vshape[0] == 1:
        vshape = vshape[1:]
    ok = len(vshape) <= len(shape) and all(
        v in (1, t) for v, t in zip(vshape, shape[len(shape) - len(vshape):]))
    if not ok:
        raise ValueError(f"wt.{fn}: cannot broadcast a value of shape {value.shape} into the "
                         f"target shape {tuple(shape)}; make the value's shape match or use "
                         f"dimensions of size 1")
    lead = value.ndim - len(vshape)
    v = value._view(vshape, value.strides[lead:], value.offset)
    return broadcast_view(v, tuple(shape))


def check_writable(target: Tensor, fn: str) -> None:
    """Broadcast views (stride 0 over a dimension longer than 1) alias their elements, and so
    does every view taken from one (``wt.broadcast_to(b, (2, 3))[1]`` is ``b`` itself)."""
    if target._readonly == "dlpack":
        raise ValueError(f"wt.{fn}: the target is read-only: its memory belongs to the "
                         f"library that shared it through DLPack as read-only; copy it first "
                         f"with wt.asarray(x, copy=True)")
    if target._readonly:
        raise ValueError(f"wt.{fn}: the target is a read-only broadcast view (from "
                         f"wt.broadcast_to or wt.broadcast_arrays, or a view of one): its rows "
                         f"share memory with each other and with the original, so writing "
                         f"would change them all; copy it first with wt.asarray(x, copy=True)")
    for n, s in zip(target.shape, target.strides):
        if s == 0 and n > 1:
            raise ValueError(f"wt.{fn}: the target is a broadcast view (shape {target.shape}, "
                             f"strides {target.strides}) whose elements share memory, so it "
                             f"cannot be written; copy it first with wt.asarray(x, copy=True)")


def write(target: Tensor, value: Tensor, fn: str) -> None:
    """Broadcast ``value`` (already of ``target``'s dtype) into the view ``target``."""
    check_writable(target, fn)
    if value.device is not target.device:
        raise ValueError(f"wt.{fn}: the value is on {value.device.name} but the target is on "
                         f"{target.device.name}; move it with value.to_device(...) first")
    v = fit_value(value, target.shape, fn)
    if not target.size:
        return
    if v._data is target._data:
        v = fresh_copy(v)  # the contract forbids aliasing (x[1:] = x[:-1])
    target._backend.assign(target, v)


def assign_into(target: Tensor, value, fn: str) -> None:
    """Write ``value`` into ``target`` in place (in-place operators).

    Allowed when ``value``'s dtype casts to ``target``'s under ``same_kind``; the value is
    broadcast to the target's shape.  Every check runs before any byte is written.
    """
    value = as_tensor(value, fn)
    check_same_kind(value.dtype, target, fn, f"a {value.dtype.name} result")
    write(target, cast(value, target.dtype), fn)


# -- shape changes ------------------------------------------------------------------------------------

def reshape(x, /, shape, *, copy: bool | None = None) -> Tensor:
    """``x`` with a new shape (one entry may be -1).  A view when the strides allow it (as in
    NumPy), else a copy; ``copy=True`` always copies, ``copy=False`` never does (ValueError)."""
    fn = "reshape"
    x = as_tensor(x, fn)
    shape = _s.resolve_reshape(x.size, _shape_arg(shape, fn), fn)
    _s.check_ndim(len(shape), fn)
    names = x.names if shape == x.shape else None
    strides = None if copy else _s.reshape_strides(x.shape, x.strides, shape)
    if strides is not None:
        return x._view(shape, strides, x.offset, names=names)
    if copy is False:
        raise ValueError(f"wt.{fn}: cannot reshape a view of shape {x.shape} with strides "
                         f"{x.strides} into {shape} without copying, but copy=False; pass "
                         f"copy=None to allow a copy")
    c = fresh_copy(x)
    return c._view(shape, _s.contiguous_strides(shape), 0, names=names)


def ravel(x, /) -> Tensor:
    """``x`` as a 1-D tensor in C order (a view when possible, like NumPy's ravel)."""
    return reshape(x, (-1,))


def permute_dims(x, /, axes) -> Tensor:
    """A view with the axes reordered: result axis ``i`` is ``x``'s axis ``axes[i]``."""
    fn = "permute_dims"
    x = as_tensor(x, fn)
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"wt.{fn}: axes must be a tuple of axes, got {axes!r}")
    perm = tuple(axis_index(x, a, fn) for a in axes)
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"wt.{fn}: axes {tuple(axes)} are not a permutation of the "
                         f"{x.ndim} axes of a tensor of shape {x.shape}; name each axis once")
    names = None if x.names is None else tuple(x.names[i] for i in perm)
    return x._view(tuple(x.shape[i] for i in perm), tuple(x.strides[i] for i in perm), x.offset,
                   names=names)


def transpose(x, /, axes=None) -> Tensor:
    """NumPy's transpose: reverse the axes, or permute them by ``axes``."""
    x = as_tensor(x, "transpose")
    if axes is None:
        axes = tuple(range(x.ndim - 1, -1, -1))
    return permute_dims(x, tuple(axes))


def swapaxes(x, /, axis1, axis2) -> Tensor:
    """A view with two axes exchanged."""
    fn = "swapaxes"
    x = as_tensor(x, fn)
    a, b = axis_index(x, axis1, fn), axis_index(x, axis2, fn)
    perm = list(range(x.ndim))
    perm[a], perm[b] = b, a
    return permute_dims(x, tuple(perm))


def moveaxis(x, source, destination, /) -> Tensor:
    """A view with the ``source`` axes moved to positions ``destination`` (others keep order)."""
    fn = "moveaxis"
    x = as_tensor(x, fn)
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    if len(src) != len(dst):
        raise ValueError(f"wt.{fn}: source {tuple(src)} and destination {tuple(dst)} must have "
                         f"the same number of elements")
    src = [axis_index(x, a, fn) for a in src]
    dst = [_s.normalize_axis(a, x.ndim, fn) for a in dst]
    for what, axes in (("source", src), ("destination", dst)):
        if len(set(axes)) != len(axes):
            raise ValueError(f"wt.{fn}: repeated axis in {what} {tuple(axes)}")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape that NumPy broadcasting gives for ``shapes``."""
    return _s.broadcast_shapes(*(_s.as_shape(s, "broadcast_shapes") for s in shapes))


def broadcast_to(x, /, shape) -> Tensor:
    """A view of ``x`` with ``shape`` (dimensions of size 1 stretch; no copy)."""
    fn = "broadcast_to"
    x = as_tensor(x, fn)
    shape = _s.as_shape(shape, fn)
    lead = len(shape) - x.ndim
    if lead < 0 or any(n not in (1, t) for n, t in zip(x.shape, shape[lead:])):
        raise ValueError(f"wt.{fn}: cannot broadcast shape {x.shape} to {shape}; each "
                         f"dimension must equal the target's or be 1 (aligned from the right) "
                         f"and the target must have at least {x.ndim} dimensions")
    return broadcast_view(x, shape)


def broadcast_arrays(*arrays) -> list[Tensor]:
    """Views of ``arrays`` broadcast against each other; they share the merged axis names."""
    fn = "broadcast_arrays"
    tensors = [as_tensor(a, fn) for a in arrays]
    shape = _s.broadcast_shapes(*(t.shape for t in tensors), fn=fn)
    names = merge_names(tensors, shape, fn)
    out = []
    for t in tensors:
        v = broadcast_view(t, shape)
        out.append(v._view(v.shape, v.strides, v.offset, names=names))
    return out


def expand_dims(x, /, axis=0) -> Tensor:
    """A view with new axes of size 1 at ``axis`` (an int or a tuple of positions in the
    result, negative counted from its end); their names are None."""
    fn = "expand_dims"
    x = as_tensor(x, fn)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = x.ndim + len(axes)
    _s.check_ndim(ndim, fn)
    new = sorted(_out_axis(a, ndim, fn) for a in axes)
    if len(set(new)) != len(new):
        raise ValueError(f"wt.{fn}: repeated axis in {tuple(axes)}; each position may appear "
                         f"once")
    shape, strides, names = list(x.shape), list(x.strides), list(x.names or (None,) * x.ndim)
    for a in new:
        shape.insert(a, 1)
        strides.insert(a, 0)
        names.insert(a, None)
    return x._view(tuple(shape), tuple(strides), x.offset,
                   names=tuple(names) if x.names is not None else None)


def squeeze(x, /, axis=None) -> Tensor:
    """A view without the given axes of size 1 (all of them when ``axis`` is None)."""
    fn = "squeeze"
    x = as_tensor(x, fn)
    if axis is None:
        axes = tuple(i for i, n in enumerate(x.shape) if n == 1)
    else:
        axes = axes_tuple(x, axis, fn)
    for a in axes:
        if x.shape[a] != 1:
            label = f"{a} ({x.names[a]!r})" if x.names and x.names[a] else f"{a}"
            raise ValueError(f"wt.{fn}: cannot squeeze axis {label} of size {x.shape[a]}; only "
                             f"axes of size 1 can be removed (shape {x.shape})")
    keep = [i for i in range(x.ndim) if i not in axes]
    names = None
    if x.names is not None:
        names = tuple(x.names[i] for i in keep)
        names = names if any(n is not None for n in names) else None
    return x._view(tuple(x.shape[i] for i in keep), tuple(x.strides[i] for i in keep), x.offset,
                   names=names)


def flip(x, /, *, axis=None) -> Tensor:
    """A view with the order of elements reversed along ``axis`` (all axes when None)."""
    fn = "flip"
    x = as_tensor(x, fn)
    strides, offset = list(x.strides), x.offset
    for a in axes_tuple(x, axis, fn):
        if x.shape[a] > 1 and x.size:  # (an empty view keeps its offset inside the buffer)
            offset += (x.shape[a] - 1) * strides[a]
            strides[a] = -strides[a]
    return x._view(x.shape, tuple(strides), offset, names=x.names)


def rename(x, /, names) -> Tensor:
    """A view of ``x`` with new axis names (a sequence of str/None per axis; None drops all)."""
    from .creation import check_names

    x = as_tensor(x, "rename")
    return x._view(x.shape, x.strides, x.offset, names=check_names(names, x.ndim, "rename"))


# -- joining --------------------------------------------------------------------------------------

def _as_tensors(arrays, fn: str) -> list[Tensor]:
    """Tensors for ``arrays``; array-likes land on the device of the first tensor among them."""
    if isinstance(arrays, Tensor) or not isinstance(arrays, (tuple, list)):
        raise TypeError(f"wt.{fn}: expected a sequence (list or tuple) of tensors, got "
                        f"{type(arrays).__name__}; wrap a single tensor in a list")
    if not arrays:
        raise ValueError(f"wt.{fn}: need at least one tensor")
    device = next((a.device for a in arrays if isinstance(a, Tensor)), None)
    out = []
    for a in arrays:
        if is_scalar(a):
            raise ValueError(f"wt.{fn}: got the scalar {a!r}; zero-dimensional values cannot "
                             f"be joined, wrap it as wt.asarray([{a!r}])")
        if not isinstance(a, Tensor) and device is not None:
            from .creation import asarray

            a = asarray(a, device=device)
        out.append(as_tensor(a, fn))
    return out


def concat(arrays, /, *, axis=0) -> Tensor:
    """Join tensors along an existing axis (``axis=None``: flatten them first).  Dtypes promote
    with the active promotion rules; axis names merge."""
    fn = "concat"
    tensors = _as_tensors(arrays, fn)
    dt, weak, device, _ = promote(tensors, fn)
    if axis is None:
        tensors = [reshape(t, (-1,)) for t in tensors]
        axis = 0
    first = tensors[0]
    for i, t in enumerate(tensors):
        if t.ndim != first.ndim:
            raise ValueError(f"wt.{fn}: tensor {i} has {t.ndim} dimensions (shape {t.shape}) "
                             f"but tensor 0 has {first.ndim} (shape {first.shape}); all must "
                             f"have the same number of dimensions")
    if first.ndim == 0:
        raise ValueError(f"wt.{fn}: zero-dimensional tensors cannot be concatenated; use "
                         f"wt.stack, or axis=None")
    names = merge_names(tensors, first.shape, fn)
    ax = _joined_axis(axis, first.ndim, names, fn)
    for i, t in enumerate(tensors):
        if any(a != b for k, (a, b) in enumerate(zip(t.shape, first.shape)) if k != ax):
            raise ValueError(f"wt.{fn}: tensor {i} has shape {t.shape} but tensor 0 has shape "
                             f"{first.shape}; all dimensions except axis {ax} must match")
    total = sum(t.shape[ax] for t in tensors)
    out = empty(first.shape[:ax] + (total,) + first.shape[ax + 1:], dt, device, weak=weak,
                names=names)
    start = 0
    for t in tensors:
        n = t.shape[ax]
        if n and out.size:
            device.backend.assign(_slice_along(out, ax, start, start + n), cast(t, dt))
        start += n
    return out


def stack(arrays, /, *, axis=0) -> Tensor:
    """Join tensors of one shape along a new axis (its name is None)."""
    fn = "stack"
    tensors = _as_tensors(arrays, fn)
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise ValueError(f"wt.{fn}: tensor {i} has shape {t.shape} but tensor 0 has shape "
                             f"{tensors[0].shape}; all tensors must have the same shape")
    ax = _out_axis(axis, tensors[0].ndim + 1, fn)
    return concat([expand_dims(t, ax) for t in tensors], axis=ax)


def unstack(x, /, *, axis=0) -> tuple[Tensor, ...]:
    """Views of ``x`` split along ``axis`` into ``x.shape[axis]`` tensors without that axis."""
    fn = "unstack"
    x = as_tensor(x, fn)
    if x.ndim == 0:
        raise ValueError(f"wt.{fn}: cannot unstack a 0-d tensor; it has no axis")
    ax = axis_index(x, axis, fn)
    return tuple(squeeze(_slice_along(x, ax, i, i + 1), ax) for i in range(x.shape[ax]))


def _split_points(n: int, indices_or_sections, fn: str, equal: bool) -> list[int]:
    """Boundaries [0, ..., n] of the pieces (NumPy's split/array_split rules)."""
    if isinstance(indices_or_sections, (tuple, list)) or (
            isinstance(indices_or_sections, Tensor) and indices_or_sections.ndim == 1):
        if isinstance(indices_or_sections, Tensor):
            indices_or_sections = indices_or_sections.tolist()
        points = [_int_arg(i, fn, "a split index") for i in indices_or_sections]
        return [0] + [p + n if p < 0 else p for p in points] + [n]
    k = _int_arg(indices_or_sections, fn, "the number of sections")
    if k <= 0:
        raise ValueError(f"wt.{fn}: the number of sections must be larger than 0, got {k}")
    if equal and n % k:
        raise ValueError(f"wt.{fn}: an axis of length {n} does not split into {k} equal "
                         f"sections; use wt.array_split for unequal sections")
    size, extra = divmod(n, k)
    points, start = [0], 0
    for i in range(k):
        start += size + (1 if i < extra else 0)
        points.append(start)
    return points


def _split(x, indices_or_sections, axis, fn: str, equal: bool) -> list[Tensor]:
    x = as_tensor(x, fn)
    if x.ndim == 0:
        raise ValueError(f"wt.{fn}: cannot split a 0-d tensor")
    ax = axis_index(x, axis, fn)
    n = x.shape[ax]
    points = _split_points(n, indices_or_sections, fn, equal)
    out = []
    for start, stop in zip(points[:-1], points[1:]):
        start = min(max(start, 0), n)
        stop = min(max(stop, start), n)
        out.append(_slice_along(x, ax, start, stop))
    return out


def split(x, indices_or_sections, axis=0) -> list[Tensor]:
    """NumPy's split: views of ``x``; an int must divide the axis into equal sections, a
    sequence gives the split points."""
    return _split(x, indices_or_sections, axis, "split", equal=True)


def array_split(x, indices_or_sections, axis=0) -> list[Tensor]:
    """NumPy's array_split: like split, but ``k`` sections need not be equal (the first
    ``n % k`` get one more element)."""
    return _split(x, indices_or_sections, axis, "array_split", equal=False)


# -- repetition --------------------------------------------------------------------------------------

def _materialize(view: Tensor, shape, names) -> Tensor:
    """Copy a (broadcast) view into a fresh buffer and view it as ``shape``."""
    c = fresh_copy(view)
    return c._view(tuple(shape), _s.contiguous_strides(tuple(shape)), 0, names=names)


def tile(x, repetitions, /) -> Tensor:
    """``x`` repeated ``repetitions[i]`` times along each axis (NumPy's tile)."""
    fn = "tile"
    x = as_tensor(x, fn)
    reps = _shape_arg(repetitions, fn)
    if any(r < 0 for r in reps):
        raise ValueError(f"wt.{fn}: repetitions must be >= 0, got {reps}")
    d = max(x.ndim, len(reps))
    lead = d - x.ndim
    shape = (1,) * lead + x.shape
    strides = (0,) * lead + x.strides
    reps = (1,) * (d - len(reps)) + reps
    # A view (r0, n0, r1, n1, ...) with stride 0 over each repetition, then one copy.
    view_shape, view_strides = [], []
    for r, n, s in zip(reps, shape, strides):
        view_shape += [r, n]
        view_strides += [0, s]
    view = x._view(tuple(view_shape), tuple(view_strides), x.offset)
    names = None if x.names is None else (None,) * lead + x.names
    return _materialize(view, tuple(r * n for r, n in zip(reps, shape)), names)


def repeat(x, repeats, /, *, axis=None) -> Tensor:
    """Each element repeated ``repeats`` times (an int, or one count per element along
    ``axis``); ``axis=None`` repeats the flattened tensor."""
    fn = "repeat"
    x = as_tensor(x, fn)
    if axis is None:
        x, ax = reshape(x, (-1,)), 0
    else:
        ax = axis_index(x, axis, fn)
    n = x.shape[ax]
    counts = _repeat_counts(repeats, n, fn)
    if isinstance(counts, int):
        view = expand_dims(x, ax + 1)
        view = view._view(view.shape[:ax + 1] + (counts,) + view.shape[ax + 2:], view.strides,
                          view.offset)
        shape = x.shape[:ax] + (n * counts,) + x.shape[ax + 1:]
        return _materialize(view, shape, x.names)
    from .indexing import take

    index = [i for i, c in enumerate(counts) for _ in range(c)]
    return take(x, index, axis=ax)


def _repeat_counts(repeats, n: int, fn: str):
    """An int, or a list of ``n`` non-negative ints (a length-1 sequence broadcasts)."""
    if isinstance(repeats, Tensor):
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"wt.{fn}: repeats must have an integer dtype, got "
                            f"{repeats.dtype.name}")
        if repeats.ndim > 1:
            raise ValueError(f"wt.{fn}: repeats must be an int or 1-D, got shape "
                             f"{repeats.shape}")
        repeats = repeats.tolist()
    if isinstance(repeats, (tuple, list)):
        counts = [_int_arg(r, fn, "each repeat count") for r in repeats]
        if len(counts) == 1:
            counts = counts[0]
        elif len(counts) != n:
            raise ValueError(f"wt.{fn}: got {len(counts)} repeat counts for an axis of length "
                             f"{n}; give one count per element, or a single int")
    else:
        counts = _int_arg(repeats, fn, "repeats")
    bad = [c for c in ([counts] if isinstance(counts, int) else counts) if c < 0]
    if bad:
        raise ValueError(f"wt.{fn}: repeat counts must be >= 0, got {bad[0]}")
    return counts


def roll(x, /, shift, *, axis=None) -> Tensor:
    """Elements shifted cyclically by ``shift`` along ``axis`` (the flattened tensor when None);
    ``shift`` and ``axis`` may be tuples, paired as NumPy pairs them."""
    fn = "roll"
    x = as_tensor(x, fn)
    if axis is None:
        flat = roll(reshape(x, (-1,)), shift, axis=0)
        return reshape(flat, x.shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ValueError(f"wt.{fn}: shift {tuple(shifts)} and axis {tuple(axes)} must have the "
                         f"same length (or one of them a single value)")
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    total = [0] * x.ndim
    for s, a in zip(shifts, axes):
        total[axis_index(x, a, fn)] += _int_arg(s, fn, "shift")
    out = x
    for ax, s in enumerate(total):
        n = x.shape[ax]
        if n and s % n:
            k = n - s % n
            out = concat([_slice_along(out, ax, k, n), _slice_along(out, ax, 0, k)], axis=ax)
    return fresh_copy(out) if out is x else out


# -- padding ---------------------------------------------------------------------------------------

_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def _pairs(value, ndim: int, fn: str, what: str, check) -> list[tuple]:
    """NumPy's broadcasting of pad_width / constant_values to ``ndim`` (before, after) pairs."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if not isinstance(value, (tuple, list)):
        value = ((value, value),)
    elif value and not isinstance(value[0], (tuple, list)):
        value = (tuple(value),)
    rows = [tuple(r) for r in value]
    if len(rows) == 1:
        rows = rows * ndim
    if len(rows) != ndim:
        raise ValueError(f"wt.{fn}: {what} has {len(rows)} entries for a {ndim}-D tensor; give "
                         f"one (before, after) pair per axis, a single pair, or a single value")
    out = []
    for r in rows:
        if len(r) == 1:
            r = (r[0], r[0])
        if len(r) != 2:
            raise ValueError(f"wt.{fn}: {what} entries must be (before, after) pairs, got {r}")
        out.append(tuple(check(v) for v in r))
    return out


def _pad_width(value, fn):
    v = _int_arg(value, fn, "pad_width")
    if v < 0:
        raise ValueError(f"wt.{fn}: pad_width must be >= 0, got {v}")
    return v


def _pad_source(i: int, n: int, mode: str) -> int:
    """Index into an axis of length ``n`` whose value lands at padded position ``i`` (relative
    to the original start; negative before it, >= n after it)."""
    if mode == "edge" or (mode == "reflect" and n == 1):
        return min(max(i, 0), n - 1)
    if mode == "reflect":
        period = 2 * (n - 1)
        j = i % period
        return j if j < n else period - j
    period = 2 * n  # symmetric
    j = i % period
    return j if j < n else period - 1 - j


def pad(x, pad_width, mode: str = "constant", *, constant_values=0) -> Tensor:
    """NumPy's pad for modes 'constant', 'edge', 'reflect' and 'symmetric'."""
    fn = "pad"
    x = as_tensor(x, fn)
    if mode not in _PAD_MODES:
        raise ValueError(f"wt.{fn}: unsupported mode {mode!r}; use one of "
                         f"{', '.join(map(repr, _PAD_MODES))}")
    widths = _pairs(pad_width, x.ndim, fn, "pad_width", lambda v: _pad_width(v, fn))
    if mode == "constant":
        values = _pairs(constant_values, x.ndim, fn, "constant_values", _pad_value(fn))
        return _pad_constant(x, widths, values, fn)
    from .indexing import take

    out = x
    for ax, (before, after) in enumerate(widths):
        n = x.shape[ax]
        if not before and not after:
            continue
        if n == 0:
            raise ValueError(f"wt.{fn}: cannot pad the empty axis {ax} with mode {mode!r}; "
                             f"only mode 'constant' can extend an empty axis")
        index = [_pad_source(i, n, mode) for i in range(-before, n + after)]
        out = take(out, index, axis=ax)
    if out is x:
        return fresh_copy(x)
    return out._view(out.shape, out.strides, out.offset, names=x.names)


def _pad_value(fn):
    def check(v):
        if isinstance(v, Tensor):
            v = v.item()
        if not is_scalar(v) and not hasattr(v, "__index__") and not hasattr(v, "__float__"):
            raise TypeError(f"wt.{fn}: constant_values must be numbers, got {v!r}")
        return v
    return check


def _pad_constant(x: Tensor, widths, values, fn: str) -> Tensor:
    from .creation import full

    shape = tuple(b + n + a for n, (b, a) in zip(x.shape, widths))
    out = empty(shape, x.dtype, x.device, weak=x.weak, names=x.names)
    backend = x._backend
    if x.size:
        center = out
        for ax, (b, _a) in enumerate(widths):
            center = _slice_along(center, ax, b, b + x.shape[ax])
        backend.assign(center, x)
    for ax, ((b, a), (vb, va)) in enumerate(zip(widths, values)):
        for start, stop, v in ((0, b, vb), (shape[ax] - a, shape[ax], va)):
            slab = _slice_along(out, ax, start, stop)
            if slab.size:
                fill = full((), v, dtype=x.dtype, device=x.device)
                backend.assign(slab, broadcast_view(fill, slab.shape))
    return out
