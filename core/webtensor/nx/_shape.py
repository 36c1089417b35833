"""Nx's shape, type and n-dimensional functions on the core's views, sort, matmul and fft.

Reshapes, transposes, squeezes and new axes are views (no copy); ``pad`` writes the tensor into
a strided view of a buffer filled with the pad value (interior padding is the view's step,
negative padding crops), so every device does it with its copy kernel.  ``dot`` with Nx's
contracting and batch axes is one batched ``wt.matmul`` after a transpose and reshape.
"""

from __future__ import annotations

import math

from .. import dtypes as _d
from .. import fft as _fft
from ..api import _reduce as _r
from ..api import linalg as _la
from ..api import manipulation as _m
from ..api.sorting import argsort_along, sort_along
from ..tensor import Tensor, cast, empty
from ._core import (
    axes_list,
    check_concrete,
    check_names,
    fail,
    is_number,
    merge,
    names_of,
    norm_names,
    number,
    number_type,
    nx_function,
    operand_as,
    option,
    parse_type,
    prepare,
    shape_of,
    strong,
    tensors_as,
    to_tensor,
    type_text,
    type_tuple,
)
from ._core import axis_index as _axis

__all__ = ["shape", "rank", "size", "byte_size", "names", "axes", "axis_index", "axis_size",
           "compatible", "reshape", "flatten", "new_axis", "squeeze", "transpose", "rename",
           "tile", "pad", "reverse", "concatenate", "stack", "sort", "argsort", "dot", "outer",
           "fft", "ifft", "type", "as_type", "bitcast"]


# -- facts about a tensor (numbers and tensors alike) ------------------------------------------------

def shape(tensor) -> tuple:
    """The shape as a tuple (``()`` for numbers; a shape tuple is its own shape)."""
    if isinstance(tensor, list):
        fail("shape", f"expected a tensor, a number or a shape, got {tensor!r:.40}", TypeError)
    return shape_of(tensor, "shape")


def rank(tensor) -> int:
    return len(shape(tensor))


def size(tensor) -> int:
    return math.prod(shape(tensor))


def type(tensor) -> tuple:  # noqa: A001 - Nx's name
    """The Nx type as a tuple, ``("s", 64)``."""
    if isinstance(tensor, Tensor):
        return type_tuple(tensor.dtype)
    if is_number(tensor):
        return type_tuple(number_type(number(tensor, "type")))
    fail("type", f"expected a tensor or a number, got {tensor!r:.40}", TypeError)


def byte_size(tensor) -> int:
    t = to_tensor(tensor, "byte_size")
    return t.size * t.dtype.itemsize


def names(tensor) -> list:
    """The axis names as a list (None for unnamed axes)."""
    if isinstance(tensor, Tensor):
        return list(names_of(tensor))
    if is_number(tensor):
        return []
    fail("names", f"expected a tensor or a number, got {tensor!r:.40}", TypeError)


def axes(tensor) -> list:
    return list(range(rank(tensor)))


def axis_index(tensor, axis) -> int:
    """The index of ``axis`` (a name, or a number counted from the back when negative)."""
    return _axis(to_tensor(tensor, "axis_index"), axis, "axis_index")


def axis_size(tensor, axis) -> int:
    t = to_tensor(tensor, "axis_size")
    return t.shape[_axis(t, axis, "axis_size")]


def compatible(left, right) -> bool:
    """Same shape and type, and names that do not clash (None matches any name); containers
    (tuples, lists, dicts) are compatible when their structure and leaves are."""
    if isinstance(left, (tuple, list)) or isinstance(right, (tuple, list)):
        return left.__class__ is right.__class__ and len(left) == len(right) and all(
            compatible(a, b) for a, b in zip(left, right))
    if isinstance(left, dict) or isinstance(right, dict):
        return isinstance(left, dict) and isinstance(right, dict) and left.keys() == \
            right.keys() and all(compatible(left[k], right[k]) for k in left)
    a, b = to_tensor(left, "compatible"), to_tensor(right, "compatible")
    if a.shape != b.shape or a.dtype is not b.dtype:
        return False
    return all(x is None or y is None or x == y for x, y in zip(names_of(a), names_of(b)))


# -- views ----------------------------------------------------------------------------------------

@nx_function
def reshape(tensor, new_shape, *, names=None) -> Tensor:
    """``tensor`` with a new shape (a tuple, with at most one ``"auto"``, or a tensor's shape);
    names come from ``names`` or from the shape's tensor."""
    fn = "reshape"
    t = to_tensor(tensor, fn)
    if isinstance(new_shape, (tuple, list)) and "auto" in new_shape:
        if list(new_shape).count("auto") > 1:
            fail(fn, f"only one dimension may be \"auto\", got {tuple(new_shape)}")
        known = math.prod(n for n in new_shape if n != "auto")
        if known == 0 or t.size % known:
            fail(fn, f"cannot reshape, current shape {t.shape} is not compatible with new shape "
                     f"{tuple(new_shape)}")
        new_shape = tuple(t.size // known if n == "auto" else n for n in new_shape)
    target = shape_of(new_shape, fn)
    if math.prod(target) != t.size:
        fail(fn, f"cannot reshape, current shape {t.shape} is not compatible with new shape "
                 f"{target}")
    if names is not None:
        out_names = check_names(names, len(target), fn)
    elif isinstance(new_shape, Tensor):
        out_names = new_shape.names
    else:
        out_names = None
    return _r.reshape(t, target, out_names)


@nx_function
def flatten(tensor) -> Tensor:
    t = to_tensor(tensor, "flatten")
    return _r.reshape(t, (t.size,))


@nx_function
def new_axis(tensor, axis, name=None) -> Tensor:
    """A new axis of size 1 at ``axis`` (negative counts from the back), named ``name``."""
    fn = "new_axis"
    t = to_tensor(tensor, fn)
    r = t.ndim
    pos = axis + r + 1 if axis < 0 else axis
    if not 0 <= pos <= r:
        fail(fn, f"new axis position for shape {t.shape} must be a number between {-r - 1} "
                 f"and {r}, got: {axis}")
    nms = list(names_of(t))
    nms.insert(pos, name)
    return _r.reshape(t, t.shape[:pos] + (1,) + t.shape[pos:], norm_names(nms))


@nx_function
def squeeze(tensor, *, axes=None) -> Tensor:
    """``tensor`` without its size-1 axes (only ``axes`` when given)."""
    fn = "squeeze"
    t = to_tensor(tensor, fn)
    if axes is not None and len(set(axes)) != len(axes):
        fail(fn, f"axes {list(axes)} must be unique integers between 0 and {t.ndim - 1}")
    which = [i for i, n in enumerate(t.shape) if n == 1] if axes is None else \
        axes_list(t, axes, fn)
    for a in which:
        if t.shape[a] != 1:
            fail(fn, f"cannot squeeze dimensions whose sizes are not 1, got {t.shape[a]} for "
                     f"dimension {a}")
    keep = [i for i in range(t.ndim) if i not in which]
    nms = names_of(t)
    return t._view(tuple(t.shape[i] for i in keep), tuple(t.strides[i] for i in keep), t.offset,
                   names=norm_names([nms[i] for i in keep]))


@nx_function
def transpose(tensor, *, axes=None) -> Tensor:
    """The axes in the order ``axes`` (numbers or names); reversed by default."""
    fn = "transpose"
    t = to_tensor(tensor, fn)
    if axes is not None and len(axes) != t.ndim:
        fail(fn, f"expected length of permutation ({len(axes)}) to match rank of shape "
                 f"({t.ndim})")
    order = list(reversed(range(t.ndim))) if axes is None else \
        [_axis(t, a, fn) for a in axes]
    if sorted(order) != list(range(t.ndim)):
        fail(fn, f"given axes {list(axes)} repeat an axis")
    return _r.permute(t, order)


@nx_function
def rename(tensor, names) -> Tensor:  # noqa: F811 - Nx's argument name
    t = to_tensor(tensor, "rename")
    return t._view(t.shape, t.strides, t.offset, names=check_names(names, t.ndim, "rename"))


@nx_function
def tile(tensor, repetitions) -> Tensor:
    """``tensor`` repeated along each axis (fewer repetitions than axes repeat the last
    ones; more add leading axes)."""
    fn = "tile"
    t = to_tensor(tensor, fn)
    if not isinstance(repetitions, (list, tuple)) or not all(
            isinstance(r, int) and not isinstance(r, bool) and r >= 1 for r in repetitions):
        fail(fn, f"repetitions must be a list of integers, got: {repetitions!r}")
    reps = list(repetitions)
    dims = [1] * max(len(reps) - t.ndim, 0) + list(t.shape)
    reps = [1] * max(t.ndim - len(reps), 0) + reps
    inter = []
    for n in dims:
        inter += [1, n]
    view = _r.reshape(t, tuple(inter))
    wide = []
    for r, n in zip(reps, dims):
        wide += [r, n]
    grown = _r.broadcast_to(view, tuple(wide))
    out = empty(grown.shape, t.dtype, t.device)
    if out.size:
        t._backend.copy(out, grown)
    return _r.reshape(out, tuple(r * n for r, n in zip(reps, dims)))


# -- pad ------------------------------------------------------------------------------------------

def pad_config(t_shape, config, fn: str) -> list:
    if not isinstance(config, (list, tuple)) or len(config) != len(t_shape):
        fail(fn, "invalid padding configuration, rank of padding configuration and shape must "
                 "match")
    out = []
    for entry in config:
        if not isinstance(entry, (list, tuple)) or len(entry) != 3 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in entry):
            fail(fn, f"each padding entry must be (low, high, interior) integers, got {entry!r}")
        if entry[2] < 0:
            fail(fn, f"interior padding must be >= 0, got {entry[2]}")
        out.append(tuple(entry))
    return out


def pad_into(t: Tensor, value: Tensor, config, fn: str) -> Tensor:
    """``t`` padded per (low, high, interior) with the 0-d ``value`` (both of one dtype): a
    buffer filled with the value, then ``t`` written into its strided view (negative padding
    crops)."""
    out_shape, src, dst = [], [], []
    for n, (lo, hi, interior) in zip(t.shape, config):
        step = interior + 1
        total = lo + hi + (n + (n - 1) * interior if n else 0)
        if total < 0:
            fail(fn, f"padding {(lo, hi, interior)} removes more than the {n} elements of an axis")
        out_shape.append(total)
        # element i lands at lo + i * step: keep those inside [0, total)
        first = min(n, (-lo + step - 1) // step) if lo < 0 else 0
        last = max(first, min(n, (total - lo + step - 1) // step))
        src.append((first, last))
        dst.append((lo + first * step, step))
    out = empty(tuple(out_shape), t.dtype, t.device, names=t.names)
    if out.size:
        _fill(out, value)
        count = [b - a for a, b in src]
        if all(c > 0 for c in count):
            view = out._view(tuple(count), tuple(s * st for (_, st), s in zip(dst, out.strides)),
                             out.offset + sum(d * s for (d, _), s in zip(dst, out.strides)))
            part = t._view(tuple(count), t.strides,
                           t.offset + sum(a * s for (a, _), s in zip(src, t.strides)))
            _m.write(view, part, fn)
    return out


def _fill(out: Tensor, value: Tensor) -> None:
    """Every element of ``out`` set to the 0-d ``value`` (a tensor: it may be traced)."""
    _m.write(out, value, "pad")


@nx_function
def pad(tensor, pad_value, padding_config) -> Tensor:
    """``tensor`` padded with ``pad_value`` per axis by ``(low, high, interior)``: ``interior``
    values between elements, negative ``low``/``high`` remove elements."""
    fn = "pad"
    (t, v), dev = prepare((tensor, pad_value), fn)
    t = t if isinstance(t, Tensor) else to_tensor(t, fn, dev)
    if isinstance(v, Tensor) and v.ndim:
        fail(fn, "padding value must be a scalar")
    dt = merge(t, v)
    config = pad_config(t.shape, padding_config, fn)
    return pad_into(strong(t, dt), operand_as(v, dt, dev, fn), config, fn)


# -- n-dimensional ------------------------------------------------------------------------------------

@nx_function
def reverse(tensor, *, axes=None) -> Tensor:
    """``tensor`` reversed along ``axes`` (all by default)."""
    fn = "reverse"
    t = to_tensor(tensor, fn)
    ax = axes_list(t, axes, fn)
    return _m.flip(t, axis=tuple(ax)) if ax else t


@nx_function
def concatenate(tensors, *, axis=0) -> Tensor:
    """Joins tensors (types merged) along ``axis``."""
    fn = "concatenate"
    if not isinstance(tensors, (list, tuple)) or not tensors:
        fail(fn, "empty list passed to concatenate")
    ts = [to_tensor(t, fn) for t in tensors]
    if len(ts) == 1:
        return ts[0]
    dt = merge(*ts)
    ax = _axis(ts[0], axis, fn)
    ts = tensors_as(ts, dt, fn)
    first = ts[0]
    for t in ts[1:]:
        if t.ndim != first.ndim or any(a != b for i, (a, b) in enumerate(zip(t.shape,
                                                                              first.shape))
                                       if i != ax):
            fail(fn, f"expected all shapes to match {first.shape} except on axis {ax}, got: "
                     f"{t.shape}")
    names_out = list(names_of(first))
    for t in ts[1:]:
        for i, n in enumerate(names_of(t)):
            if names_out[i] is None:
                names_out[i] = n
    out = _r.concat(ts, ax)
    return out._view(out.shape, out.strides, out.offset, names=norm_names(names_out))


@nx_function
def stack(tensors, *, axis=0, name=None) -> Tensor:
    """Joins same-shaped tensors along a new axis ``axis`` (named ``name``)."""
    if not isinstance(tensors, (list, tuple)) or not tensors:
        fail("stack", "empty list passed to stack")
    return concatenate([new_axis(t, axis, name) for t in tensors], axis=axis)


def _direction(direction, fn):
    return option(direction, fn, "direction", ("asc", "desc")) == "desc"


@nx_function
def sort(tensor, *, axis=0, direction="asc") -> Tensor:
    """Sorted along ``axis`` (0 by default), ``direction="desc"`` for descending."""
    fn = "sort"
    t = to_tensor(tensor, fn)
    if t.dtype.kind == "c":
        fail(fn, f"sort is not supported for complex types, got: {type_text(t.dtype)}",
             TypeError)
    if t.ndim == 0:
        return t
    return sort_along(t, _axis(t, axis, fn), _direction(direction, fn))


@nx_function
def argsort(tensor, *, axis=0, direction="asc") -> Tensor:
    """The indices (s64) that sort ``tensor`` along ``axis`` (stable)."""
    fn = "argsort"
    t = to_tensor(tensor, fn)
    if t.dtype.kind == "c":
        fail(fn, f"argsort is not supported for complex types, got: {type_text(t.dtype)}",
             TypeError)
    if t.ndim == 0:
        return operand_as(0, _d.int64, t.device, fn)
    return strong(argsort_along(t, _axis(t, axis, fn), _direction(direction, fn)))


@nx_function
def dot(t1, *args) -> Tensor:
    """``dot(a, b)``, ``dot(a, contract_a, b, contract_b)`` or
    ``dot(a, contract_a, batch_a, b, contract_b, batch_b)``: sums of products over the
    contracting axes, batched over the batch axes (Nx's order of result axes: batch, free
    axes of ``a``, free axes of ``b``)."""
    fn = "dot"
    if len(args) == 1:
        a, b = to_tensor(t1, fn), to_tensor(args[0], fn)
        if a.ndim == 0 or b.ndim == 0:
            from ._elementwise import multiply

            return multiply(a, b)
        ca = [a.ndim - 1]
        cb = [0] if b.ndim == 1 else [b.ndim - 2]
        return _dot(a, ca, [], b, cb, [], fn)
    if len(args) == 3:
        ca, b, cb = args
        return _dot(to_tensor(t1, fn), ca, [], to_tensor(b, fn), cb, [], fn)
    if len(args) == 5:
        ca, ba, b, cb, bb = args
        return _dot(to_tensor(t1, fn), ca, ba, to_tensor(b, fn), cb, bb, fn)
    fail(fn, "dot takes (a, b), (a, contract_a, b, contract_b) or (a, contract_a, batch_a, b, "
             "contract_b, batch_b)", TypeError)


def _dot(a: Tensor, ca, ba, b: Tensor, cb, bb, fn: str) -> Tensor:
    ca = [_axis(a, x, fn) for x in ca]
    cb = [_axis(b, x, fn) for x in cb]
    ba = [_axis(a, x, fn) for x in ba]
    bb = [_axis(b, x, fn) for x in bb]
    if not ba and bb:
        fail(fn, "left tensor must be batched if right tensor is batched")
    if ba and not bb:
        fail(fn, "right tensor must be batched if left tensor is batched")
    for side, axes in (("left", ba), ("right", bb)):
        if axes and axes != list(range(len(axes))):
            fail(fn, f"invalid dot batch axis for the {side} tensor, batch axes must be "
                     f"successive dimensions starting from 0, got {axes}")
    if len(ba) != len(bb):
        fail(fn, f"dot expects as many batch axes on both sides, got {ba} and {bb}")
    for side, axes, contract in (("left", ba, ca), ("right", bb, cb)):
        if any(a in contract for a in axes):
            fail(fn, f"dot batch axes for {side} tensor ({axes}) cannot be in contract axes "
                     f"({contract})")
    if len(ca) != len(cb):
        fail(fn, f"dot expects the same number of contracting axes on both sides, got {ca} and "
                 f"{cb}")
    for x, y in zip(ca, cb):
        if a.shape[x] != b.shape[y]:
            fail(fn, f"dot/zip expects shapes to be compatible, dimension {x} of left-side "
                     f"({a.shape[x]}) does not equal dimension {y} of right-side "
                     f"({b.shape[y]})")
    for x, y in zip(ba, bb):
        if a.shape[x] != b.shape[y]:
            fail(fn, f"dot/zip expects batch dimensions to match, dimension {x} of left-side "
                     f"({a.shape[x]}) does not equal dimension {y} of right-side ({b.shape[y]})")
    dt = merge(a, b)
    a, b = tensors_as((a, b), dt, fn)
    fa = [i for i in range(a.ndim) if i not in ca and i not in ba]
    fb = [i for i in range(b.ndim) if i not in cb and i not in bb]
    batch = [a.shape[i] for i in ba]
    k = math.prod(a.shape[i] for i in ca)
    m = math.prod(a.shape[i] for i in fa)
    n = math.prod(b.shape[i] for i in fb)
    left = _r.reshape(_r.permute(a, ba + fa + ca), tuple(batch) + (m, k))
    right = _r.reshape(_r.permute(b, bb + cb + fb), tuple(batch) + (k, n))
    out = _la.matmul(left, right)
    na, nb = names_of(a), names_of(b)
    out_names = [na[i] for i in ba] + [na[i] for i in fa] + [nb[i] for i in fb]
    shape_out = tuple(batch) + tuple(a.shape[i] for i in fa) + tuple(b.shape[i] for i in fb)
    return _r.reshape(strong(out), shape_out, norm_names(out_names))


@nx_function
def outer(t1, t2) -> Tensor:
    """The outer product of the flattened tensors: a matrix."""
    fn = "outer"
    a, b = to_tensor(t1, fn), to_tensor(t2, fn)
    from ._elementwise import multiply

    out = multiply(_r.reshape(a, (a.size, 1)), _r.reshape(b, (1, b.size)))
    na, nb = names_of(a), names_of(b)
    first = na[0] if na else None
    last = nb[-1] if nb else None
    return out._view(out.shape, out.strides, out.offset, names=norm_names([first, last]))


def _dft(tensor, length, fn, inverse):
    t = to_tensor(tensor, fn)
    if t.ndim == 0:
        fail(fn, "fft expects a tensor of rank 1 or more")
    n = t.shape[-1]
    if length is None:
        length = n
    elif length == "power_of_two":
        length = 1 << max(n - 1, 0).bit_length()
    elif not isinstance(length, int) or isinstance(length, bool) or length < 1:
        fail(fn, f"expected an integer or 'power_of_two' as length, got: {length!r}")
    ct = _d.complex128 if t.dtype in (_d.float64, _d.complex128) else _d.complex64
    x = strong(t, ct)
    out = (_fft.ifft if inverse else _fft.fft)(x, n=length, axis=-1)
    return out._view(out.shape, out.strides, out.offset, names=t.names)


@nx_function
def fft(tensor, *, length=None, eps=1.0e-10) -> Tensor:
    """The DFT along the last axis (``length`` pads or cuts; ``"power_of_two"`` pads)."""
    return _dft(tensor, length, "fft", False)


@nx_function
def ifft(tensor, *, length=None, eps=1.0e-10) -> Tensor:
    """The inverse DFT along the last axis."""
    return _dft(tensor, length, "ifft", True)


# -- types ----------------------------------------------------------------------------------------

@nx_function
def as_type(tensor, type) -> Tensor:  # noqa: A002 - Nx's name
    """``tensor`` converted to ``type`` (floats to integers truncate, as a cast does)."""
    fn = "as_type"
    t = to_tensor(tensor, fn)
    dt = parse_type(type, fn)
    if dt is None:
        fail(fn, "a type is required", TypeError)
    if dt is t.dtype:
        return t
    return cast(t, dt, weak=False)


@nx_function
def bitcast(tensor, type) -> Tensor:  # noqa: A002 - Nx's name
    """The same bits read as ``type`` (of the same width).  Reads the bytes back through the
    host (the core has no bitcast primitive yet), so it is not available inside defn."""
    fn = "bitcast"
    t = to_tensor(tensor, fn)
    dt = parse_type(type, fn)
    if t.dtype.kind == "c" or dt.kind == "c":
        fail(fn, "Nx.bitcast/2 does not support complex inputs", TypeError)
    if dt.itemsize != t.dtype.itemsize:
        fail(fn, f"input type width must match new type width, got input type "
                 f"{type_text(t.dtype)} and output type {type_text(dt)}")
    check_concrete(t, fn)
    data = t._backend.to_bytes(t)
    out = t.device.backend.from_bytes(dt, data)
    return Tensor._wrap(out, t.shape, dt, t.device, names=t.names)

