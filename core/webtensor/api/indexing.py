"""Indexing: ``Tensor.__getitem__`` / ``__setitem__`` and the Array API ``take`` functions.

An index is parsed into entries (int, slice, None, ``...``, integer array, bool mask).  Every
entry but the arrays and masks is applied as a view (offset and stride changes, no copy);
arrays and masks ("advanced" indices) then select along the dimensions they cover:

* every advanced index becomes a non-negative int32 or int64 index over its group of
  dimensions (a bool mask over ``k`` dimensions becomes the flat positions of its True
  elements, so it indexes the group of ``k`` dimensions as one), the groups' indices are
  broadcast together and combined into one flat index over the merged group; a traced int32
  index array alone in its gather or scatter goes as it is (gather and scatter wrap and clamp
  it themselves, ``_traced_index``);
* ``__getitem__`` reads with the backend's ``gather`` along the merged dimension,
  ``__setitem__`` writes with ``scatter`` into a copy of the indexed region and assigns it back.

Where the broadcast index dimensions go follows NumPy: at the place of the advanced indices when
these are adjacent in the index (integers count as advanced then), else first.
https://numpy.org/doc/stable/user/basics.indexing.html#combining-advanced-and-basic-indexing

Nx-style named access: ``t[{"x": slice(1, 3), "y": 0}]`` indexes the named (or numbered) axes
and leaves the others whole; a 0-d integer *tensor* there is Nx's dynamic index, clamped into
range (``t[{0: wt.asarray(-1)}]`` is ``t[0]``) where a plain index would count from the end or
raise.
"""

from __future__ import annotations

import math
import sys
from array import array
from itertools import compress

from .. import dtypes as _d
from .. import shape as _s
from .._tracing import is_traced
from ..tensor import Tensor, broadcast_view, cast, empty
from . import manipulation as _m
from ._common import as_tensor, axis_index, is_scalar, operand, promote

__all__ = ["take", "take_along_axis"]

_GET, _SET = "Tensor.__getitem__", "Tensor.__setitem__"
_INDEX_FORMS = ("integers, slices, ..., None, bool masks or integer arrays "
                "(or a dict from axis name to one of those)")


# -- parsed index entries -----------------------------------------------------------------------

class _Advanced:
    """An integer array or bool mask: an int32 or int64 ``index`` over a group of dims."""

    __slots__ = ("index", "sizes", "pos")

    def __init__(self, index: Tensor, sizes: tuple, pos: int):
        self.index = index  # values in [0, prod(sizes)) (a lone traced one: see _traced_index)
        self.sizes = sizes  # the sizes of the dimensions it covers (empty for a 0-d mask)
        self.pos = pos  # where its dimensions sit in the basic view


class _Array:
    """An integer index array: a tensor, or (from a Python list) its flat values and shape."""

    __slots__ = ("tensor", "values", "shape")

    def __init__(self, tensor: Tensor | None, values=None, shape=None):
        self.tensor, self.values = tensor, values
        self.shape = tensor.shape if tensor is not None else shape


class _Mask:
    """A bool mask: its values as Python bools, or a bool tensor."""

    __slots__ = ("shape", "values")

    def __init__(self, shape: tuple, values: list | Tensor):
        self.shape, self.values = shape, values


def _width(e) -> int:
    """How many dimensions of the indexed tensor an entry consumes."""
    if e is None or e is Ellipsis:
        return 0
    if e.__class__ is _Mask:
        return len(e.shape)
    return 1


def _type_error(item, fn: str) -> TypeError:
    fix = "; convert it with int(i)" if isinstance(item, float) else ""
    if isinstance(item, Tensor):
        what = f"a {item.dtype.name} tensor"
        fix = "; cast it with x.astype(wt.int64)" if item.dtype.kind in "fc" else ""
    else:
        what = f"{item!r} of type {type(item).__name__}"
    return TypeError(f"wt.{fn}: invalid index {what}; indices must be {_INDEX_FORMS}{fix}")


def _classify(x: Tensor, item, fn: str):
    """One index item -> int, slice, None, Ellipsis, _Array or _Mask."""
    cls = item.__class__
    if cls is int or item is None or item is Ellipsis:
        return item
    if cls is slice:
        return _check_slice(item, fn)
    if cls is bool:
        return _Mask((), [bool(item)])
    if cls is Tensor:
        return _from_tensor(x, item, fn)
    if hasattr(item, "__array_interface__") or isinstance(item, (list, tuple)):
        return _from_sequence(x, item, fn)
    if isinstance(item, (float, complex, str, bytes)) or not hasattr(item, "__index__"):
        raise _type_error(item, fn)
    return item.__index__()


def _check_slice(sl: slice, fn: str) -> slice:
    parts = []
    for part in (sl.start, sl.stop, sl.step):
        if part is not None and part.__class__ is not int:
            if isinstance(part, (float, complex)) or not hasattr(part, "__index__"):
                raise TypeError(f"wt.{fn}: slice bounds must be integers or None, got {part!r} "
                                f"({type(part).__name__}) in {sl}")
            part = part.__index__()
        parts.append(part)
    if parts[2] == 0:
        raise ValueError(f"wt.{fn}: slice step cannot be zero (in {sl})")
    return slice(*parts)


def _from_tensor(x: Tensor, t: Tensor, fn: str):
    if t.device is not x.device:
        raise ValueError(f"wt.{fn}: the index is on {t.device.name} but the tensor is on "
                         f"{x.device.name}; move it with index.to_device(...)")
    kind = t.dtype.kind
    if kind == "b":
        return _Mask(t.shape, t)  # its positions are found on its device (_mask_index)
    if kind not in "iu":
        raise _type_error(t, fn)
    if t.ndim == 0 and not is_traced(t):
        return t.item()
    return _Array(t)  # a traced 0-d index (wt.jit) gathers, as an integer would select


def _from_sequence(x: Tensor, seq, fn: str):
    """Lists, NumPy arrays (and tuples nested in an index tuple) as array indices."""
    if hasattr(seq, "__array_interface__"):
        from .creation import asarray

        try:
            t = asarray(seq, device=x.device)
        except TypeError:
            raise _type_error(seq, fn) from None
        return _from_tensor(x, t, fn)
    from .creation import nested_leaves, plain_scalar

    try:
        shape, leaves = nested_leaves(seq, fn)
    except ValueError as e:
        raise IndexError(f"wt.{fn}: an index list must be rectangular: {e}") from None
    leaves = [plain_scalar(v) if v.__class__ not in (int, bool) else v for v in leaves]
    if leaves and all(v.__class__ is bool for v in leaves):
        return _Mask(shape, leaves)
    for v in leaves:
        if v.__class__ is not int and v.__class__ is not bool:
            raise _type_error(v, fn)
    return _Array(None, [int(v) for v in leaves], shape)


def _entries(x: Tensor, key, fn: str) -> list:
    if key.__class__ is dict:
        return _named_entries(x, key, fn)
    if key.__class__ is not tuple:
        key = (key,)
    entries = [_classify(x, k, fn) for k in key]
    if sum(1 for e in entries if e is Ellipsis) > 1:
        raise IndexError(f"wt.{fn}: an index can only have a single ellipsis ('...')")
    used = sum(_width(e) for e in entries)
    if used > x.ndim:
        raise IndexError(f"wt.{fn}: too many indices for a tensor of shape {x.shape}: it has "
                         f"{x.ndim} dimension{'s' if x.ndim != 1 else ''} but {used} were "
                         f"indexed")
    return entries


def _named_entries(x: Tensor, key: dict, fn: str) -> list:
    """Nx-style access: ``{axis name or number: index}``; unnamed axes stay whole."""
    entries = [slice(None)] * x.ndim
    given: dict[int, object] = {}
    for k, item in key.items():
        try:
            ax = axis_index(x, k, fn)
        except (ValueError, TypeError) as e:
            raise IndexError(str(e)) from None
        if ax in given:
            raise IndexError(f"wt.{fn}: axis {ax} is indexed twice (by {given[ax]!r} and "
                             f"{k!r}); give each axis once")
        given[ax] = k
        if item.__class__ is Tensor and item.ndim == 0 and item.dtype.kind in "iu" and \
                x.shape[ax]:
            item = _dynamic_index(item, x.shape[ax])
        e = _classify(x, item, fn)
        if e is None or e is Ellipsis or (e.__class__ is _Mask and len(e.shape) != 1):
            raise TypeError(f"wt.{fn}: a named index must be an integer, a slice, an integer "
                            f"array or a 1-D bool mask, got {item!r} for axis {k!r}")
        entries[ax] = e
    return entries


def _dynamic_index(t: Tensor, n: int):
    """Nx's dynamic index: a 0-d integer tensor in a named index is clamped into ``[0, n)``
    (-1 selects the first element, not the last), not checked."""
    if not is_traced(t):
        return min(max(int(t.item()), 0), n - 1)
    from .elementwise import clip

    return clip(cast(t, _d.int64, weak=False), 0, n - 1)


# -- building the view -------------------------------------------------------------------------

def _checked(i: int, n: int, axis: int, fn: str) -> int:
    if not -n <= i < n:
        raise IndexError(f"wt.{fn}: index {i} is out of bounds for axis {axis} with size {n}; "
                         f"valid indices are {-n} to {n - 1}" if n else
                         f"wt.{fn}: index {i} is out of bounds for axis {axis} with size 0")
    return i + n if i < 0 else i


# Index tensors up to this many elements are checked on the host; longer ones by their minimum
# and maximum, reduced on their own device (two numbers read back, not the whole array: a 1M
# index on webgpu took 130 ms to read and scan in Python).
_HOST_CHECK = 4096


def _array_index(a: _Array, n: int, axis: int, fn: str, device, alone: bool = False) -> Tensor:
    """An integer index array checked against ``n`` and made non-negative (int32 or int64);
    ``alone``: the only index array of the gather or scatter it goes to (then a traced int32
    one is left as it is, see ``_traced_index``)."""
    values = a.values
    if values is None:
        if is_traced(a.tensor):
            return _traced_index(a.tensor, n, device, alone)
        if a.tensor.size > _HOST_CHECK:
            low, high = _bounds(a.tensor)
            if low < -n or high >= n:  # the first offender, for the message
                _checked(next(v for v in a.tensor._backend.to_values(a.tensor)
                              if not -n <= v < n), n, axis, fn)
            return _non_negative(a.tensor, low, n, device)
        values = a.tensor._backend.to_values(a.tensor)
    if values:
        low, high = min(values), max(values)
        if low < -n or high >= n:
            _checked(next(v for v in values if not -n <= v < n), n, axis, fn)
    else:
        low = 0
    if a.tensor is None:
        if low < 0:
            values = [v + n if v < 0 else v for v in values]
        return _int_tensor(values, a.shape, device)
    return _non_negative(a.tensor, low, n, device)


def _bounds(t: Tensor) -> tuple[int, int]:
    """The smallest and largest value of a non-empty integer tensor, one read."""
    from ._reduce import reduce

    axes = tuple(range(t.ndim))
    pair = _m.stack([reduce("min", t, axes, False), reduce("max", t, axes, False)])
    low, high = pair._backend.to_values(pair)
    return int(low), int(high)


def _non_negative(t: Tensor, low: int, n: int, device) -> Tensor:
    """``t`` (checked against ``n``, smallest value ``low``) as int32 or int64
    (``_index_dtype``), negatives wrapped."""
    t = cast(t, _index_dtype(t, n), weak=False)
    return t if low >= 0 else _wrapped(t, n, device)


def _traced_index(t: Tensor, n: int, device, alone: bool = False) -> Tensor:
    """Index values unknown until a traced program runs (``wt.jit``): they cannot be checked,
    so negative ones wrap once and the rest are clamped into ``[0, n)`` (as JAX reads; its
    scatters drop such updates, webtensor's clamp them too).  Gather and scatter do exactly
    that to their indices (the backend contract), so an index array ``alone`` in its gather
    or scatter whose values int32 holds goes as it is (an int32 one costs no pass at all);
    combined ones are normalised first (their flat index is a sum)."""
    from .elementwise import clip

    dt = _index_dtype(t, n)
    t = cast(t, dt, weak=False)
    if alone and dt is _d.int32 and n:
        return t
    return cast(clip(_wrapped(t, n, device), 0, max(n - 1, 0)), dt, weak=False)


def _wrapped(t: Tensor, n: int, device) -> Tensor:
    """Integer index tensor ``t`` with its negative values counted from the end of ``n``."""
    from .elementwise import add, less, where

    return where(less(t, _int_tensor([0], (), device, t.dtype)),
                 add(t, _int_tensor([n], (), device, t.dtype)), t)


# Index dtypes whose values int32 holds: such indices into an axis of fewer than 2^31 elements
# are wrapped and passed on as int32 (half the bytes of int64, and int32 ones need no cast).
_INT32_INDEX = (_d.int8, _d.uint8, _d.int16, _d.uint16, _d.int32)


def _index_dtype(t: Tensor, n: int):
    return _d.int32 if t.dtype in _INT32_INDEX and n < 2**31 else _d.int64


def _int_tensor(values, shape, device, dtype=_d.int64) -> Tensor:
    """An int64 (or int32) tensor from Python ints (packed by ``array``: C speed, no NumPy
    needed)."""
    buf = array("q" if dtype is _d.int64 else "i", values)
    if sys.byteorder == "big":
        buf.byteswap()
    data = device.backend.from_bytes(dtype, buf.tobytes())
    return Tensor._wrap(data, tuple(shape), dtype, device)


def _mask_index(m: _Mask, sizes: tuple, axis: int, x: Tensor, fn: str) -> Tensor:
    if m.shape != sizes:
        axes = tuple(range(axis, axis + len(sizes)))
        raise IndexError(f"wt.{fn}: the bool mask of shape {m.shape} does not match the "
                         f"indexed tensor's shape {sizes} along axes {axes} (tensor shape "
                         f"{x.shape}); the mask needs exactly those dimensions")
    if m.values.__class__ is Tensor:
        from .searching import flat_nonzero

        return flat_nonzero(m.values)
    positions = list(compress(range(len(m.values)), m.values))
    return _int_tensor(positions, (len(positions),), x.device)


class _Plan:
    """A parsed index: the basic view plus the advanced indices over its dimensions."""

    __slots__ = ("view", "advanced", "adjacent")

    def __init__(self, view, advanced, adjacent):
        self.view, self.advanced, self.adjacent = view, advanced, adjacent


def _plan(x: Tensor, key, fn: str) -> _Plan:
    entries = _entries(x, key, fn)
    fill = x.ndim - sum(_width(e) for e in entries)
    shape, strides, names = [], [], []
    xnames = x.names or (None,) * x.ndim
    offset, dim = x.offset, 0
    advanced: list[_Advanced] = []
    # one index array alone goes to the gather/scatter as it is (see _traced_index)
    alone = sum(e.__class__ in (_Array, _Mask) for e in entries) == 1

    def keep(d):
        shape.append(x.shape[d])
        strides.append(x.strides[d])
        names.append(xnames[d])

    for e in entries:
        cls = e.__class__
        if cls is int:
            offset += _checked(e, x.shape[dim], dim, fn) * x.strides[dim]
            dim += 1
        elif cls is slice:
            start, length, step = _s.slice_dim(x.shape[dim], e)
            offset += start * x.strides[dim] if length else 0
            shape.append(length)
            strides.append(x.strides[dim] * step)
            names.append(xnames[dim])
            dim += 1
        elif e is None:
            shape.append(1)
            strides.append(0)
            names.append(None)
        elif e is Ellipsis:
            for _ in range(fill):
                keep(dim)
                dim += 1
        elif cls is _Array:
            index = _array_index(e, x.shape[dim], dim, fn, x.device, alone=alone)
            advanced.append(_Advanced(index, (x.shape[dim],), len(shape)))
            keep(dim)
            dim += 1
        else:  # _Mask
            sizes = x.shape[dim:dim + len(e.shape)]
            index = _mask_index(e, sizes, dim, x, fn)
            advanced.append(_Advanced(index, sizes, len(shape)))
            for _ in sizes:
                keep(dim)
                dim += 1
    while dim < x.ndim:
        keep(dim)
        dim += 1
    view_names = tuple(names) if any(n is not None for n in names) else None
    if not _s.size_of(shape):
        offset = x.offset  # nothing is read; keep the offset inside the buffer
    view = x._view(tuple(shape), tuple(strides), offset, names=view_names)
    return _Plan(view, advanced, _adjacent(entries) if advanced else True)


def _adjacent(entries) -> bool:
    """NumPy's rule: are the advanced entries (integers included) next to each other?"""
    fancy = [i for i, e in enumerate(entries) if e.__class__ in (int, _Array, _Mask)]
    return fancy[-1] - fancy[0] + 1 == len(fancy)


# -- advanced indexing ---------------------------------------------------------------------------

class _Layout:
    """Where the advanced dimensions go: the view with them merged into one dimension ``p`` of
    length ``n``, and the flat index (shape ``bshape``) into that dimension."""

    __slots__ = ("view", "p", "k", "flat", "bshape")

    def __init__(self, plan: _Plan, fn: str):
        from .elementwise import add, multiply

        view, adv = plan.view, plan.advanced
        covered = [a.pos + j for a in adv for j in range(len(a.sizes))]
        if plan.adjacent:
            self.p = adv[0].pos
        else:
            others = [d for d in range(view.ndim) if d not in covered]
            view = _m.permute_dims(view, tuple(covered + others))
            self.p = 0
        self.view, self.k = view, len(covered)
        self.bshape = _s.broadcast_shapes(*(a.index.shape for a in adv), fn=fn)
        flat = adv[0].index
        for a in adv[1:]:
            size = _int_tensor([math.prod(a.sizes)], (), flat.device)
            flat = add(multiply(flat, size), a.index)
        self.flat = flat

    def merged_shape(self, length: int) -> tuple:
        shape = self.view.shape
        return shape[:self.p] + (length,) + shape[self.p + self.k:]

    def merged_view(self, x: Tensor) -> Tensor:
        """``x`` (the view or a copy of it) with the advanced dimensions merged into one."""
        if self.k == 1:
            return x
        return _m.reshape(x, self.merged_shape(math.prod(x.shape[self.p:self.p + self.k])))

    def result_shape(self) -> tuple:
        shape = self.view.shape
        return shape[:self.p] + self.bshape + shape[self.p + self.k:]

    def result_names(self):
        names = self.view.names
        if names is None:
            return None
        out = names[:self.p] + (None,) * len(self.bshape) + names[self.p + self.k:]
        return out if any(n is not None for n in out) else None

    def index_view(self) -> Tensor:
        """The flat index laid along dimension ``p`` of the merged shape (stride 0 elsewhere)."""
        m = math.prod(self.bshape)
        flat = self.flat
        if flat.shape != self.bshape:
            flat = broadcast_view(flat, self.bshape)
        if flat.ndim != 1:
            flat = _m.reshape(flat, (m,))
        shape = self.merged_shape(m)
        strides = tuple(flat.strides[0] if d == self.p else 0 for d in range(len(shape)))
        return flat._view(shape, strides, flat.offset)


def _gather(plan: _Plan, fn: str) -> Tensor:
    layout = _Layout(plan, fn)
    x = layout.view
    source = layout.merged_view(x)
    index = layout.index_view()
    out = empty(index.shape, x.dtype, x.device, weak=x.weak)
    if out.size:
        x._backend.gather(out, source, layout.p, index)
    shape = layout.result_shape()
    return out._view(shape, _s.contiguous_strides(shape), 0, names=layout.result_names())


def _scatter(plan: _Plan, value: Tensor, fn: str) -> None:
    layout = _Layout(plan, fn)
    target = layout.view
    _m.check_writable(target, fn)
    updates = _m.fit_value(value, layout.result_shape(), fn)
    index = layout.index_view()
    if not index.size:
        return
    work = _m.fresh_copy(target)
    merged = layout.merged_view(work)  # a view: work is contiguous
    updates = _m.reshape(updates, index.shape)
    target._backend.scatter("set", merged, layout.p, index, updates)
    target._backend.assign(target, work)


# -- the operators -------------------------------------------------------------------------------

def _getitem(x: Tensor, key, fn: str) -> Tensor:
    plan = _plan(x, key, fn)
    if not plan.advanced:
        return plan.view
    return _gather(plan, fn)


def getitem(self: Tensor, key) -> Tensor:
    """``x[key]`` with NumPy's basic and advanced indexing; basic indexing gives a view."""
    view = _fast_view(self, key)
    if view is not None:
        return view
    return _getitem(self, key, _GET)


def _fast_view(x: Tensor, key):
    """The common case, ints and int/None-bounded slices only, without building a plan; None
    sends anything else (and every error) down the general path."""
    if key.__class__ is not tuple:
        key = (key,)
    if len(key) > x.ndim:
        return None
    shape, strides, kept = [], [], []
    offset = x.offset
    for d, k in enumerate(key):
        n, stride = x.shape[d], x.strides[d]
        if k.__class__ is int:
            if not -n <= k < n:
                return None
            offset += (k + n if k < 0 else k) * stride
        elif k.__class__ is slice and _plain_slice(k):
            start, stop, step = k.indices(n)
            length = len(range(start, stop, step))
            if length:
                offset += start * stride
            shape.append(length)
            strides.append(stride * step)
            kept.append(d)
        else:
            return None
    rest = range(len(key), x.ndim)
    shape.extend(x.shape[d] for d in rest)
    strides.extend(x.strides[d] for d in rest)
    kept.extend(rest)
    names = None
    if x.names is not None:
        names = tuple(x.names[d] for d in kept)
        if all(n is None for n in names):
            names = None
    if 0 in shape:
        offset = x.offset
    return x._view(tuple(shape), tuple(strides), offset, names=names)


def _plain_slice(k: slice) -> bool:
    return ((k.start is None or k.start.__class__ is int)
            and (k.stop is None or k.stop.__class__ is int)
            and (k.step is None or (k.step.__class__ is int and k.step != 0)))


def _value_for(x: Tensor, value, fn: str) -> Tensor:
    """``value`` as a tensor of ``x``'s dtype, refused unless it casts under ``same_kind``."""
    if value.__class__ is not Tensor and not is_scalar(value):
        from .creation import asarray

        try:
            value = asarray(value, device=x.device)
        except (TypeError, ValueError) as e:
            raise TypeError(f"wt.{fn}: cannot use {type(value).__name__} as a value: {e}") \
                from None
    dt, _weak, device, _ = promote((x, value), fn)
    if is_scalar(value):
        what = f"the Python {type(value).__name__} {value!r}"
    else:
        what = f"a {value.dtype.name} value"
    if value.__class__ is not Tensor or value.dtype is not dt:
        what += f" (it promotes to {dt.name} with {x.dtype.name})"
    _m.check_same_kind(dt, x, fn, what)
    return operand(value, x.dtype, device)


def setitem(self: Tensor, key, value) -> None:
    """``x[key] = value``: the value is converted to ``x``'s dtype (same_kind rule) and
    broadcast to the indexed shape; with repeated indices the last write wins."""
    fn = _SET
    view = _fast_view(self, key)
    plan = None if view is not None else _plan(self, key, fn)
    value = _value_for(self, value, fn)
    if plan is None or not plan.advanced:
        _m.write(view if plan is None else plan.view, value, fn)
    else:
        _scatter(plan, value, fn)


Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem


# -- Array API functions ------------------------------------------------------------------------

def _int_indices(x: Tensor, indices, fn: str) -> Tensor:
    if indices.__class__ is not Tensor:
        if isinstance(indices, (float, complex, bool)):
            raise TypeError(f"wt.{fn}: indices must be integers, got {indices!r}")
        from .creation import asarray

        empty_list = isinstance(indices, (list, tuple)) and not indices
        indices = asarray(indices, device=x.device, dtype=_d.int64 if empty_list else None)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"wt.{fn}: indices must have an integer dtype, got "
                        f"{indices.dtype.name}; cast with wt.astype(indices, wt.int64)")
    return indices


def take(x, indices, /, *, axis=None) -> Tensor:
    """Elements of ``x`` at ``indices`` along ``axis`` (``axis=None``: of the flattened
    tensor); negative indices count from the end, out-of-range ones raise IndexError."""
    fn = "take"
    x = as_tensor(x, fn)
    indices = _int_indices(x, indices, fn)
    if axis is None:
        x, ax = _m.reshape(x, (-1,)), 0
    else:
        ax = axis_index(x, axis, fn)
    return _getitem(x, (slice(None),) * ax + (indices,), fn)


def take_along_axis(x, indices, /, axis=-1) -> Tensor:
    """``out[..., i, ...] = x[..., indices[..., i, ...], ...]`` along ``axis``; the other
    dimensions of ``x`` and ``indices`` broadcast."""
    fn = "take_along_axis"
    x = as_tensor(x, fn)
    indices = _int_indices(x, indices, fn)
    if axis is None:
        x = _m.reshape(x, (-1,))
        axis = 0
        if indices.ndim != 1:
            raise ValueError(f"wt.{fn}: with axis=None the indices must be 1-D, got shape "
                             f"{indices.shape}")
    if indices.ndim != x.ndim:
        raise ValueError(f"wt.{fn}: indices have {indices.ndim} dimensions (shape "
                         f"{indices.shape}) but x has {x.ndim} (shape {x.shape}); they must "
                         f"have the same number, use wt.expand_dims on the indices")
    ax = axis_index(x, axis, fn)
    n = x.shape[ax]
    index = _array_index(_Array(indices), n, ax, fn, x.device, alone=True)
    ones = [(s[:ax] + (1,) + s[ax + 1:]) for s in (x.shape, indices.shape)]
    b = _s.broadcast_shapes(*ones, fn=fn)
    out_shape = b[:ax] + (indices.shape[ax],) + b[ax + 1:]
    source = _m.broadcast_to(x, b[:ax] + (n,) + b[ax + 1:])
    out = empty(out_shape, x.dtype, x.device, weak=x.weak, names=x.names)
    if out.size:
        x._backend.gather(out, source, ax, _m.broadcast_to(index, out_shape))
    return out
