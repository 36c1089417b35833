"""Pure view arithmetic: shapes, element strides, broadcasting, axis and index normalization.

A tensor is a view ``(shape, strides, offset)`` over a flat buffer, strides counted in elements.
Everything that only moves data (reshape, transpose, broadcast, slicing, flip, expand/squeeze) is
a new view computed here; no bytes are touched.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

Shape = tuple[int, ...]


def size_of(shape: Shape) -> int:
    return math.prod(shape)


def contiguous_strides(shape: Shape) -> Shape:
    found = _STRIDES.get(shape)
    if found is None:
        strides, step = [], 1
        for n in reversed(shape):
            strides.append(step)
            step *= max(n, 1)
        found = tuple(reversed(strides))
        if len(_STRIDES) < 4096:  # shapes repeat a lot in real programs; keep it bounded
            _STRIDES[tuple(shape)] = found
    return found


_STRIDES: dict = {}


def is_contiguous(shape: Shape, strides: Shape) -> bool:
    if 0 in shape:  # no elements: every layout is C-contiguous (as in NumPy)
        return True
    step = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != step:
            return False
        step *= n
    return True


def as_shape(shape, fn: str) -> Shape:
    """Normalize an int or a sequence of ints into a shape tuple, refusing negatives."""
    if isinstance(shape, int) or hasattr(shape, "__index__") and not isinstance(shape, Sequence):
        shape = (shape,)
    try:
        out = tuple(int(index_arg(n, fn)) for n in shape)
    except TypeError:
        raise TypeError(f"wt.{fn}: shape must be an int or a sequence of ints, got {shape!r}") \
            from None
    for n in out:
        if n < 0:
            raise ValueError(f"wt.{fn}: negative dimension {n} in shape {out}; "
                             f"dimensions must be >= 0")
    check_ndim(len(out), fn)
    if size_of(out) > MAX_BYTES:
        raise MemoryError(f"wt.{fn}: shape {out} has {size_of(out)} elements, more than any "
                          f"device can hold (at most 2**62 bytes); use a smaller shape")
    return out


MAX_NDIM = 64  # as NumPy 2: every device supports every rank up to this
MAX_BYTES = 1 << 62  # no tensor larger than this on any device (sizes stay machine ints)


_NAMESPACES = {"webtensor.linalg": "linalg.", "webtensor.fft": "fft.",
               "webtensor.random": "random.", "webtensor.tf": "tf."}


def entry_point() -> str | None:
    """The public function the user called (the outermost webtensor frame), for messages
    raised deep inside; None outside webtensor."""
    import sys

    frame, found = sys._getframe(1), None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module == "webtensor" or module.startswith("webtensor."):
            name = frame.f_code.co_name
            if not name.startswith("_") and name not in ("wrapper", "method"):
                prefix = next((p for m, p in _NAMESPACES.items() if module.startswith(m)), "")
                found = prefix + name
        frame = frame.f_back
    return found


def check_ndim(ndim: int, fn: str) -> None:
    if ndim > MAX_NDIM:
        raise ValueError(f"wt.{fn}: {ndim} dimensions; webtensor supports at most {MAX_NDIM} "
                         f"(as NumPy does): merge dimensions with wt.reshape")


def check_size(shape, itemsize: int, fn: str) -> int:
    """The element count of ``shape``; a MemoryError naming the bytes when no device could
    hold it (the same error on every device, before anything is allocated)."""
    size = size_of(shape)
    if size * itemsize > MAX_BYTES:
        if fn == "empty":  # an internal allocation: name the public function called
            fn = entry_point() or fn
        raise MemoryError(f"wt.{fn}: a tensor of shape {tuple(shape)} needs {size * itemsize} "
                          f"bytes, more than any device can hold (at most 2**62); use a smaller "
                          f"shape")
    return size


def index_arg(n, fn: str) -> int:
    if n.__class__ is int:
        return n
    if isinstance(n, (bool, type)):
        what = f"the bool {n!r}" if isinstance(n, bool) else f"the type {n.__name__}"
        raise TypeError(f"wt.{fn}: expected an integer, got {what}")
    try:
        return operator.index(n)
    except TypeError:  # no __index__, or one that refuses (a float array, a 2-element tensor)
        raise TypeError(f"wt.{fn}: expected an integer, got {n!r:.60} ({type(n).__name__})") \
            from None


def normalize_axis(axis: int, ndim: int, fn: str) -> int:
    axis = index_arg(axis, fn)
    if not -ndim <= axis < ndim:
        raise ValueError(f"wt.{fn}: axis {axis} is out of bounds for a tensor of {ndim} "
                         f"dimension{'s' if ndim != 1 else ''}; use an axis in [{-ndim}, {ndim})")
    return axis % ndim


def broadcast_shapes(*shapes: Shape, fn: str = "broadcast_shapes") -> Shape:
    """NumPy broadcasting: align trailing dimensions; a dimension of 1 stretches."""
    if shapes and all(s == shapes[0] for s in shapes):
        return tuple(shapes[0])
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        size = 1
        for s in shapes:
            if -i <= len(s):
                n = s[i]
                if n != 1:
                    if size not in (1, n):
                        raise ValueError(
                            f"wt.{fn}: shapes {', '.join(str(tuple(x)) for x in shapes)} cannot "
                            f"be broadcast together (dimension {i} is {size} in one and {n} in "
                            f"another); make them equal or 1, e.g. with wt.expand_dims"
                        )
                    size = n
        out.append(size)
    return tuple(out)


def broadcast_strides(shape: Shape, strides: Shape, target: Shape) -> Shape:
    """Strides that read a ``shape``/``strides`` view as ``target`` (stretched dims get 0)."""
    lead = len(target) - len(shape)
    out = [0] * lead
    for n, s, t in zip(shape, strides, target[lead:]):
        out.append(s if n == t else 0)
    return tuple(out)


def reshape_strides(shape: Shape, strides: Shape, new_shape: Shape) -> Shape | None:
    """Strides viewing the same elements in ``new_shape`` without a copy, or None if impossible.

    Walks old and new dimensions in groups of equal element count (NumPy's algorithm); a group
    of old dimensions can be re-split only if it is contiguous within itself.
    """
    if size_of(shape) == 0:
        return contiguous_strides(new_shape)
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new_strides = [0] * len(new_shape)
    oi = ni = 0
    while ni < len(new_shape) and oi < len(old):
        oj, nj = oi + 1, ni + 1
        op, np_ = old[oi][0], new_shape[ni]
        while op != np_:
            if np_ < op:
                np_ *= new_shape[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        new_strides[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            new_strides[k - 1] = new_strides[k] * new_shape[k]
        oi, ni = oj, nj
    return tuple(new_strides)


def resolve_reshape(size: int, shape: Shape, fn: str) -> Shape:
    """Fill in a single -1 and check the element count."""
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise ValueError(f"wt.{fn}: only one dimension can be -1, got shape {shape}")
    for n in shape:
        if n < -1:
            raise ValueError(f"wt.{fn}: invalid dimension {n} in shape {shape}")
    if unknown:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"wt.{fn}: cannot reshape {size} elements into shape {shape}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if math.prod(shape) != size:
        raise ValueError(f"wt.{fn}: cannot reshape {size} elements into shape {shape} "
                         f"({math.prod(shape)} elements); the sizes must match")
    return shape


def slice_dim(n: int, sl: slice) -> tuple[int, int, int]:
    """(start, length, step) of ``range(n)[sl]``."""
    r = range(n)[sl]
    return r.start, len(r), r.step


def flat_offsets(shape: Shape, strides: Shape, offset: int) -> list[int]:
    """Element offsets of a view in C order (the pure-Python backends' inner loop)."""
    offsets = [offset]
    for n, s in zip(shape, strides):
        if n == 1:
            continue
        steps = [k * s for k in range(n)]
        offsets = [o + d for o in offsets for d in steps]
    if size_of(shape) == 0:
        return []
    return offsets
