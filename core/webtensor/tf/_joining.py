"""TensorFlow's "Slicing and Joining" chapter (the parts that are not gathers).

Slices, splits, unstack, reverse and transpose return views, as webtensor's own functions do;
concat, stack, tile and pad return new tensors.  ``strided_slice`` translates TensorFlow's five
bit masks into an ordinary index (slices, ints, None, Ellipsis) whose clamping rules are the
same as TensorFlow's.  The ``alias_inplace_*`` functions write into ``value`` and return it.
"""

from __future__ import annotations

import builtins

import webtensor as wt

from ..tensor import Tensor
from ._casting import as_tensor, check_axis, int_list, int_scalar, unwrap
from .errors import InvalidArgumentError

__all__ = ["slice", "strided_slice", "split", "tile", "pad", "concat", "concat_v2", "stack",
           "pack", "parallel_stack", "unstack", "unpack", "reverse", "reverse_v2", "transpose",
           "empty", "empty_like", "alias_inplace_update", "alias_inplace_add",
           "alias_inplace_subtract"]

_slice = builtins.slice  # `slice` below is TensorFlow's


def _vector(value, n: int, fn: str, arg: str) -> list[int]:
    """An int vector of exactly ``n`` entries (one per dimension of the input)."""
    out = int_list(value, fn, arg)
    if len(out) != n:
        raise InvalidArgumentError(f"tf.{fn}", f"{arg} must have one entry per dimension of the "
                                               f"rank-{n} input, got {len(out)}: {out}")
    return out


def slice(input_, begin, size, name=None) -> Tensor:  # noqa: A001 - TensorFlow's name
    """``size[i]`` elements from ``begin[i]`` along each dimension (``size[i] == -1``: all the
    rest).  Requires ``0 <= begin[i] <= begin[i] + size[i] <= shape[i]``."""
    fn = "slice"
    x = as_tensor(input_, fn)
    starts = _vector(begin, x.ndim, fn, "begin")
    sizes = _vector(size, x.ndim, fn, "size")
    key = []
    for i, (b, s, n) in enumerate(zip(starts, sizes, x.shape)):
        if s == -1:
            s = n - b
        if not (0 <= b <= n and s >= 0 and b + s <= n):
            raise InvalidArgumentError(
                f"tf.{fn}", f"in dimension {i} (size {n}), begin={b} and size={sizes[i]} leave "
                            f"the tensor; need 0 <= begin <= begin + size <= {n} (size -1 means "
                            f"'to the end')")
        key.append(_slice(b, b + s))
    return x[tuple(key)]


def _bits(mask, fn: str, arg: str) -> int:
    m = int_scalar(mask, fn, arg)
    if m < 0:
        raise InvalidArgumentError(f"tf.{fn}", f"{arg} must be a non-negative bit mask, got {m}")
    return m


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None) -> Tensor:
    """NumPy-style ``input_[spec_0, ..., spec_n-1]`` where spec ``i`` is ``begin[i]:end[i]:
    strides[i]`` modified by bit ``i`` of the masks (begin/end masks: use the fullest range;
    ellipsis: ``...``; new axis: ``None``; shrink: the single index ``begin[i]``)."""
    fn = "strided_slice"
    x = as_tensor(input_, fn)
    starts = int_list(begin, fn, "begin")
    stops = int_list(end, fn, "end")
    steps = [1] * len(starts) if strides is None else int_list(strides, fn, "strides")
    if not len(starts) == len(stops) == len(steps):
        raise InvalidArgumentError(f"tf.{fn}", f"begin, end and strides must have the same "
                                               f"length, got {len(starts)}, {len(stops)} and "
                                               f"{len(steps)}")
    bmask, emask = _bits(begin_mask, fn, "begin_mask"), _bits(end_mask, fn, "end_mask")
    ellipsis = _bits(ellipsis_mask, fn, "ellipsis_mask")
    new_axis = _bits(new_axis_mask, fn, "new_axis_mask")
    shrink = _bits(shrink_axis_mask, fn, "shrink_axis_mask")
    if ellipsis & (ellipsis - 1):
        raise InvalidArgumentError(f"tf.{fn}", f"ellipsis_mask={ellipsis} has more than one bit "
                                               f"set; only one ellipsis is allowed")
    key: list = []
    for i, (b, e, s) in enumerate(zip(starts, stops, steps)):
        bit = 1 << i
        if ellipsis & bit:
            key.append(Ellipsis)
        elif new_axis & bit:
            key.append(None)
        elif s == 0:
            raise InvalidArgumentError(f"tf.{fn}", f"strides[{i}] is 0; strides must be "
                                                   f"non-zero")
        elif shrink & bit:
            if s < 0:
                raise InvalidArgumentError(f"tf.{fn}", f"strides[{i}]={s} is negative on the "
                                                       f"shrunk dimension {i}; only positive "
                                                       f"strides are allowed there")
            key.append(("shrink", b, i))
        else:
            key.append(_slice(None if bmask & bit else b, None if emask & bit else e, s))
    # Which input dimension each spec refers to, to range-check the shrunk indices.
    dims_used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if dims_used > x.ndim:
        raise InvalidArgumentError(f"tf.{fn}", f"{dims_used} dimensions are indexed but the "
                                               f"input has rank {x.ndim}; use fewer specs or "
                                               f"new_axis_mask")
    dim, index = 0, []
    for k in key:
        if k is Ellipsis:
            dim += x.ndim - dims_used
        elif isinstance(k, tuple):
            _tag, b, i = k
            n = x.shape[dim]
            if not -n <= b < n:
                raise InvalidArgumentError(f"tf.{fn}", f"slice index {b} of dimension {dim} is "
                                                       f"out of bounds (size {n}) in spec {i}")
            k = b
            dim += 1
        elif k is not None:
            dim += 1
        index.append(k)
    return x[tuple(index)]


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list[Tensor]:
    """Split ``value`` along ``axis`` into ``num_or_size_splits`` equal pieces (an int that must
    divide the axis) or into pieces of the given sizes (one may be -1: the rest)."""
    fn = "split"
    x = as_tensor(value, fn)
    if x.ndim == 0:
        raise InvalidArgumentError(f"tf.{fn}", "cannot split a 0-d tensor; it has no axis")
    ax = check_axis(int_scalar(axis, fn, "axis"), x.ndim, fn)
    n = x.shape[ax]
    scalar = not isinstance(num_or_size_splits, (list, tuple)) and not (
        isinstance(num_or_size_splits, Tensor) and num_or_size_splits.ndim > 0)
    if scalar:
        k = int_scalar(num_or_size_splits, fn, "num_or_size_splits")
        if k < 1 or n % k:
            raise InvalidArgumentError(
                f"tf.{fn}", f"num_or_size_splits={k} must be >= 1 and evenly divide the size "
                            f"{n} of axis {ax}; pass a list of sizes for unequal pieces")
        sizes = [n // k] * k
    else:
        sizes = int_list(num_or_size_splits, fn, "num_or_size_splits")
        if not sizes:
            raise ValueError(f"tf.{fn}: num_or_size_splits is empty; give at least one size")
        unknown = [i for i, s in enumerate(sizes) if s == -1]
        if len(unknown) > 1 or any(s < -1 for s in sizes):
            raise InvalidArgumentError(f"tf.{fn}", f"sizes {sizes} must be >= 0, with at most "
                                                   f"one -1 (inferred)")
        known = sum(s for s in sizes if s != -1)
        if unknown and known <= n:
            sizes[unknown[0]] = n - known
        elif unknown or known != n:
            raise InvalidArgumentError(f"tf.{fn}", f"sizes {sizes} must add up to the size {n} "
                                                   f"of axis {ax}")
    if num is not None and int_scalar(num, fn, "num") != len(sizes):
        raise ValueError(f"tf.{fn}: num={num} but num_or_size_splits gives {len(sizes)} pieces")
    out, start = [], 0
    for s in sizes:
        key = (_slice(None),) * ax + (_slice(start, start + s),)
        out.append(x[key])
        start += s
    return out


def tile(input, multiples, name=None) -> Tensor:  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along dimension ``i`` (one entry per
    dimension, each >= 0)."""
    fn = "tile"
    x = as_tensor(input, fn)
    reps = _vector(multiples, x.ndim, fn, "multiples")
    if any(r < 0 for r in reps):
        raise InvalidArgumentError(f"tf.{fn}", f"multiples must be >= 0, got {reps}")
    if x.ndim == 0:
        return wt.asarray(x, copy=True)
    return wt.tile(x, tuple(reps))


_PAD_MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0) -> Tensor:
    """``tensor`` padded by ``paddings[d] = [before, after]`` along each dimension ``d``, with
    ``constant_values`` (CONSTANT), a mirror without the edge (REFLECT, at most ``shape[d]-1``)
    or with it (SYMMETRIC, at most ``shape[d]``); ``mode`` is case-insensitive."""
    fn = "pad"
    x = as_tensor(tensor, fn)
    if not isinstance(mode, str):
        raise TypeError(f"tf.{fn}: mode must be a string ('CONSTANT', 'REFLECT' or 'SYMMETRIC'), "
                        f"got {mode!r} ({type(mode).__name__})")
    mode_name = mode.upper()
    if mode_name not in _PAD_MODES:
        raise ValueError(f"tf.{fn}: unknown padding mode {mode!r}; use 'CONSTANT', 'REFLECT' or "
                         f"'SYMMETRIC'")
    paddings = unwrap(paddings)
    constant_values = unwrap(constant_values)
    if isinstance(paddings, Tensor):
        if paddings.shape != (x.ndim, 2):
            raise InvalidArgumentError(f"tf.{fn}", f"paddings must have shape [{x.ndim}, 2] for "
                                                   f"a rank-{x.ndim} tensor, got "
                                                   f"{list(paddings.shape)}")
        paddings = paddings.tolist()
    if not isinstance(paddings, (list, tuple)) or len(paddings) != x.ndim or any(
            not isinstance(row, (list, tuple, Tensor)) or len(row) != 2 for row in paddings):
        raise InvalidArgumentError(f"tf.{fn}", f"paddings must be {x.ndim} [before, after] "
                                               f"pairs (shape [{x.ndim}, 2]), got {paddings!r}")
    widths = [int_list(list(row), fn, "paddings") for row in paddings]
    limit = {"REFLECT": 1, "SYMMETRIC": 0}.get(mode_name)
    for d, (before, after) in enumerate(widths):
        if before < 0 or after < 0:
            raise InvalidArgumentError(f"tf.{fn}", f"paddings must be non-negative, got "
                                                   f"{[before, after]} for dimension {d}")
        if limit is not None and max(before, after) > x.shape[d] - limit:
            raise InvalidArgumentError(
                f"tf.{fn}", f"{mode_name} padding of dimension {d} (size {x.shape[d]}) by "
                            f"{[before, after]} is too large; each side must be at most "
                            f"{x.shape[d] - limit}")
    if mode_name != "CONSTANT":
        return wt.pad(x, widths, mode=_PAD_MODES[mode_name])
    if isinstance(constant_values, Tensor):
        constant_values = constant_values.item()
    return wt.pad(x, widths, mode="constant", constant_values=constant_values)


# -- joining ----------------------------------------------------------------------------------------

def _tensors(values, fn: str) -> list[Tensor]:
    """Tensors for a list of values; Python data joins the first tensor's device."""
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        values = [values]
    device = next((v.device for v in values if isinstance(v, Tensor)), None)
    return [as_tensor(v, fn, device=device) for v in values]


def _is_axis(value) -> bool:
    if isinstance(value, Tensor):
        return value.ndim == 0 and value.dtype.kind in "iu"
    return not isinstance(value, bool) and hasattr(value, "__index__")


def _concat(values, axis, fn: str) -> Tensor:
    ax = int_scalar(axis, fn, "axis")
    tensors = _tensors(values, fn)
    if len(tensors) == 1:  # TensorFlow returns the single value without checking the axis
        return tensors[0]
    first = tensors[0]
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise InvalidArgumentError(f"tf.{fn}", f"value {i} is a scalar; scalars cannot be "
                                                   f"concatenated (use tf.stack)")
        if t.ndim != first.ndim:
            raise InvalidArgumentError(f"tf.{fn}", f"ranks differ: value 0 has shape "
                                                   f"{first.shape}, value {i} has {t.shape}")
    ax = check_axis(ax, first.ndim, fn)
    for i, t in enumerate(tensors):
        if any(a != b for d, (a, b) in enumerate(zip(t.shape, first.shape)) if d != ax):
            raise InvalidArgumentError(f"tf.{fn}", f"value {i} has shape {t.shape} but value 0 "
                                                   f"has {first.shape}; all dimensions except "
                                                   f"axis {ax} must match")
    return wt.concat(tensors, axis=ax)


def concat(*args, **kwargs) -> Tensor:
    """Join tensors along an existing axis.  Both argument orders work: the seed's
    ``concat(concat_dim, values)`` and the later ``concat(values, axis)`` (also as keywords
    ``concat_dim=``/``axis=`` and ``values=``)."""
    fn = "concat"
    kwargs.pop("name", None)
    names = {"values", "axis", "concat_dim"}
    unknown = set(kwargs) - names
    if unknown or len(args) + len(kwargs) != 2 or ("axis" in kwargs and "concat_dim" in kwargs):
        raise TypeError(f"tf.{fn}: expected concat(concat_dim, values) or concat(values, axis) "
                        f"(plus name=), got {len(args)} positional and keywords "
                        f"{sorted(kwargs)}")
    axis = kwargs.get("axis", kwargs.get("concat_dim"))
    values = kwargs.get("values")
    if len(args) == 2:
        a, b = args
        values, axis = (b, a) if _is_axis(a) else (a, b)
    elif len(args) == 1:
        if values is None:
            values = args[0]
        else:
            axis = args[0]
    return _concat(values, axis, fn)


def concat_v2(values, axis, name="concat_v2") -> Tensor:
    """Join the tensors ``values`` along dimension ``axis`` (negative counts from the end)."""
    return _concat(values, axis, "concat_v2")


def _stack(values, axis, fn: str) -> Tensor:
    if isinstance(values, Tensor) or not isinstance(values, (list, tuple)):
        raise TypeError(f"tf.{fn}: values must be a list of tensors, got "
                        f"{type(values).__name__}")
    ax = int_scalar(axis, fn, "axis")
    if not values:
        raise ValueError(f"tf.{fn}: values is empty; give at least one tensor")
    tensors = _tensors(values, fn)
    r = tensors[0].ndim
    if not -(r + 1) <= ax < r + 1:
        raise ValueError(f"tf.{fn}: axis={ax} is out of range [{-(r + 1)}, {r + 1}) for "
                         f"stacking rank-{r} tensors")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise InvalidArgumentError(f"tf.{fn}", f"value {i} has shape {t.shape} but value 0 "
                                                   f"has {tensors[0].shape}; all must match")
    return wt.stack(tensors, axis=ax)


def stack(values, axis=0, name="stack") -> Tensor:
    """Stack same-shaped tensors along a new dimension ``axis`` (in ``[-(R+1), R+1)``)."""
    return _stack(values, axis, "stack")


def pack(values, axis=0, name="pack") -> Tensor:
    """Deprecated name of :func:`stack`."""
    return _stack(values, axis, "pack")


def parallel_stack(values, name="parallel_stack") -> Tensor:
    """``stack(values, axis=0)`` (TensorFlow's graph-time variant; here the same function)."""
    return _stack(values, 0, "parallel_stack")


def _unstack(value, num, axis, fn: str) -> list[Tensor]:
    x = as_tensor(value, fn)
    if x.ndim == 0:
        raise ValueError(f"tf.{fn}: cannot unstack a 0-d tensor; it needs rank >= 1")
    ax = int_scalar(axis, fn, "axis")
    if not -x.ndim <= ax < x.ndim:
        raise ValueError(f"tf.{fn}: axis={ax} is out of range [{-x.ndim}, {x.ndim}) for a "
                         f"tensor of shape {x.shape}")
    ax %= x.ndim
    if num is not None and int_scalar(num, fn, "num") != x.shape[ax]:
        raise InvalidArgumentError(f"tf.{fn}", f"num={num} but axis {ax} of shape {x.shape} has "
                                               f"length {x.shape[ax]}")
    return list(wt.unstack(x, axis=ax))


def unstack(value, num=None, axis=0, name="unstack") -> list[Tensor]:
    """The slices of ``value`` along ``axis`` (that dimension removed), as a list."""
    return _unstack(value, num, axis, "unstack")


def unpack(value, num=None, axis=0, name="unpack") -> list[Tensor]:
    """Deprecated name of :func:`unstack`."""
    return _unstack(value, num, axis, "unpack")


def _reverse(tensor, axis, fn: str) -> Tensor:
    x = as_tensor(tensor, fn)
    axis = unwrap(axis)
    if isinstance(axis, bool) or (isinstance(axis, (list, tuple)) and any(
            isinstance(a, bool) for a in axis)) or (
            isinstance(axis, Tensor) and axis.dtype is wt.bool):
        raise TypeError(f"tf.{fn}: axis holds booleans (the old per-dimension flags); pass the "
                        f"indices of the dimensions to reverse, e.g. [0, 2]")
    if isinstance(axis, (list, tuple)) or (isinstance(axis, Tensor) and axis.ndim):
        axes = int_list(axis, fn, "axis")
    else:
        axes = [int_scalar(axis, fn, "axis")]
    normalized = [check_axis(a, x.ndim, fn) for a in axes]
    if len(set(normalized)) != len(normalized):
        raise InvalidArgumentError(f"tf.{fn}", f"axis {axes} names a dimension more than once")
    return wt.flip(x, axis=tuple(normalized))


def reverse(tensor, axis, name=None) -> Tensor:
    """``tensor`` with the dimensions listed in ``axis`` reversed (an int or a list)."""
    return _reverse(tensor, axis, "reverse")


def reverse_v2(tensor, axis, name=None) -> Tensor:
    """Same as :func:`reverse`."""
    return _reverse(tensor, axis, "reverse_v2")


def transpose(a, perm=None, name="transpose", conjugate=False) -> Tensor:
    """``a`` with dimension ``i`` of the result being dimension ``perm[i]`` of ``a`` (reversed
    order when ``perm`` is None); ``conjugate=True`` also conjugates complex values."""
    fn = "transpose"
    x = as_tensor(a, fn)
    if perm is None:
        order = list(range(x.ndim - 1, -1, -1))
    else:
        order = _vector(perm, x.ndim, fn, "perm")
        normalized = [p + x.ndim if p < 0 else p for p in order]
        if sorted(normalized) != list(range(x.ndim)):
            raise InvalidArgumentError(f"tf.{fn}", f"perm {order} is not a permutation of "
                                                   f"{list(range(x.ndim))}")
        order = normalized
    out = wt.permute_dims(x, tuple(order))
    return wt.conj(out) if conjugate and x.dtype.kind == "c" else out


# -- empty tensors and in-place updates -------------------------------------------------------------

def empty(output_shape, dtype, init=False) -> Tensor:
    """A new tensor of ``output_shape`` and ``dtype``: zeros when ``init``, else contents left
    unspecified (whatever the allocation holds)."""
    fn = "empty"
    from ._casting import as_dtype

    dims = int_list(output_shape, fn, "output_shape")
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"tf.{fn}", f"output_shape must be >= 0, got {dims}")
    dt = as_dtype(dtype, fn)
    return (wt.zeros if init else wt.empty)(tuple(dims), dtype=dt)


def empty_like(value, init=None) -> Tensor:
    """A new tensor with ``value``'s shape, dtype and device: zeros when ``init``, else
    unspecified contents."""
    x = as_tensor(value, "empty_like")
    return (wt.zeros if init else wt.empty)(x.shape, dtype=x.dtype, device=x.device)


def _rows(value: Tensor, loc, update, fn: str):
    """(row indices or None, update shaped like ``value[rows]``) after TensorFlow's checks."""
    if not isinstance(value, Tensor):
        raise TypeError(f"tf.{fn}: value must be a tensor (it is updated in place), got "
                        f"{type(value).__name__}")
    try:
        upd = wt.asarray(update, dtype=value.dtype, device=value.device) \
            if not isinstance(update, Tensor) else update
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"tf.{fn}: cannot convert update to {value.dtype.name}: {e}") from None
    if upd.device is not value.device:
        raise ValueError(f"tf.{fn}: update is on {upd.device.name} but value is on "
                         f"{value.device.name}; move it with update.to_device(...)")
    if upd.dtype is not value.dtype:
        if not wt.can_cast(upd.dtype, value.dtype, "same_kind"):
            raise TypeError(f"tf.{fn}: cannot write a {upd.dtype.name} update into a "
                            f"{value.dtype.name} value; cast it with tf.cast(update, "
                            f"{value.dtype.name})")
        upd = wt.astype(upd, value.dtype)
    if loc is None:
        if upd.size != value.size:
            raise InvalidArgumentError(f"tf.{fn}", f"with loc=None, update (shape {upd.shape}) "
                                                   f"must have as many elements as value (shape "
                                                   f"{value.shape})")
        return None, wt.reshape(upd, value.shape)
    if value.ndim == 0:
        raise InvalidArgumentError(f"tf.{fn}", "value is 0-d, so it has no rows to update; use "
                                               "loc=None")
    scalar = not isinstance(loc, (list, tuple)) and not (isinstance(loc, Tensor) and loc.ndim)
    rows = [int_scalar(loc, fn, "loc")] if scalar else int_list(loc, fn, "loc")
    n = value.shape[0]
    for r in rows:
        if not 0 <= r < n:
            raise InvalidArgumentError(f"tf.{fn}", f"loc {r} is out of range for value's first "
                                                   f"dimension of size {n}; need 0 <= loc < {n}")
    if scalar:
        if upd.shape != value.shape[1:]:
            raise InvalidArgumentError(f"tf.{fn}", f"with a scalar loc, update must have shape "
                                                   f"{value.shape[1:]}, got {upd.shape}")
        upd = wt.expand_dims(upd, axis=0)
    elif upd.shape != (len(rows),) + value.shape[1:]:
        raise InvalidArgumentError(f"tf.{fn}", f"with {len(rows)} locations, update must have "
                                               f"shape {(len(rows),) + value.shape[1:]}, got "
                                               f"{upd.shape}")
    return rows, upd


def _inplace(value, loc, update, fn: str, sign: int) -> Tensor:
    from ._variables import Variable

    update = unwrap(update)
    if isinstance(value, Variable):
        # a variable's earlier values never change: update a copy, which becomes its value
        new = wt.asarray(value.value(), copy=True)
        _inplace(new, loc, update, fn, sign)
        value.assign(new)
        return value
    if sign and isinstance(value, Tensor) and value.dtype is wt.bool:
        raise TypeError(f"tf.{fn}: bool tensors cannot be added to; use alias_inplace_update")
    rows, upd = _rows(value, loc, update, fn)
    if rows is None:
        value[...] = upd if sign == 0 else (value + upd if sign > 0 else value - upd)
        return value
    if sign == 0:
        value[rows] = upd  # a repeated row: the last update wins
        return value
    # A repeated row accumulates every update aimed at it: apply the k-th occurrences of the
    # rows together, round after round, so that no round holds a row twice.
    rounds: list[list[int]] = []
    seen: dict[int, int] = {}
    for pos, r in enumerate(rows):
        k = seen.get(r, 0)
        seen[r] = k + 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append(pos)
    for positions in rounds:
        idx = [rows[p] for p in positions]
        part = wt.take(upd, wt.asarray(positions, device=value.device), axis=0)
        current = value[idx]
        value[idx] = current + part if sign > 0 else current - part
    return value


def alias_inplace_update(value, loc, update) -> Tensor:
    """``value[loc] = update`` in place (``loc``: None for all of ``value``, a row index, or a
    list of row indices), returning ``value``."""
    return _inplace(value, loc, update, "alias_inplace_update", 0)


def alias_inplace_add(value, loc, update) -> Tensor:
    """``value[loc] += update`` in place, returning ``value`` (repeated rows add up)."""
    return _inplace(value, loc, update, "alias_inplace_add", 1)


def alias_inplace_subtract(value, loc, update) -> Tensor:
    """``value[loc] -= update`` in place, returning ``value`` (repeated rows add up)."""
    return _inplace(value, loc, update, "alias_inplace_subtract", -1)
