"""TensorFlow's gather/scatter family: ``gather``, ``gather_nd``, ``scatter_nd``, partitions,
stitches, masks, ``one_hot``, ``sequence_mask``, set-like ops and ``reverse_sequence``.

Each function composes webtensor's public ops (``take``, indexing, ``where``, ``unique_all``,
...); ``scatter_nd`` additionally uses the API's internal scatter helper, which drives the
existing backend ``scatter`` primitive.  So everything runs on every device and returns tensors
on the device of its main input.  Unlike NumPy, TensorFlow refuses negative and out-of-range
indices (``InvalidArgumentError``) instead of wrapping them: the indices are checked here with
one small read back to the host, as TensorFlow's CPU kernels do.  Functions whose output shape
depends on values (``dynamic_partition``, ``dynamic_stitch``) read those values too.

The private helpers at the top (tensor conversion, host reads, axis checks) are shared with
``_spatial`` and ``_quantization``.
"""

from __future__ import annotations

import math

import webtensor as wt

from .. import dtypes as _d
from ..api import _reduce
from ..tensor import Tensor
from .errors import InvalidArgumentError

__all__ = [
    "boolean_mask",
    "dynamic_partition",
    "dynamic_stitch",
    "gather",
    "gather_nd",
    "one_hot",
    "reverse_sequence",
    "scatter_nd",
    "sequence_mask",
    "setdiff1d",
    "unique_with_counts",
]

# TensorFlow's index dtypes; the seed documents int32 as the default of every ``out_idx``.
_INDEX_DTYPES = {_d.int32, _d.int64}
_INT32_MAX = 2 ** 31 - 1


# -- shared helpers ----------------------------------------------------------------------------

def _tf(fn: str) -> str:
    return f"tf.{fn}"


def _tensor(x, fn: str, arg: str, *, device=None, dtype=None) -> Tensor:
    """``x`` as a tensor; Python data goes to ``device`` (that of the tensors it joins)."""
    x = _unwrap(x)
    if isinstance(x, Tensor):
        if device is not None and x.device is not device:
            raise ValueError(f"{_tf(fn)}: `{arg}` is on {x.device.name} but the other inputs are "
                             f"on {device.name}; move it with {arg}.to_device(...)")
        return x
    if dtype is None:
        from ._casting import as_tensor

        return as_tensor(x, fn, device)  # TensorFlow's int32 / float32 for Python data
    try:
        return wt.asarray(x, dtype=dtype, device=device)
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"{_tf(fn)}: `{arg}` must be a tensor or a nested list of numbers, got "
                        f"{type(x).__name__} ({e})") from None


def _unwrap(x):
    """A tf.Variable's current value; anything else unchanged."""
    from ._variables import _ReadsAsTensor

    return x.value() if isinstance(x, _ReadsAsTensor) else x


def _int_tensor(x, fn: str, arg: str, *, device=None) -> Tensor:
    """An integer tensor (bool and float indices are refused, as TensorFlow does)."""
    t = _tensor(x, fn, arg, device=device)
    if t.dtype.kind not in "iu":
        raise TypeError(f"{_tf(fn)}: `{arg}` must have an integer dtype (int32 or int64), got "
                        f"{t.dtype.name}; cast it with tf.cast({arg}, tf.int32)")
    return t


def _host_ints(x, fn: str, arg: str) -> list:
    """Small integer parameters (shapes, block sizes, paddings) as nested Python ints."""
    x = _unwrap(x)
    if isinstance(x, Tensor):
        if x.dtype.kind not in "iu":
            raise TypeError(f"{_tf(fn)}: `{arg}` must hold integers, got {x.dtype.name}")
        return x.tolist()
    if isinstance(x, (bool, float, complex, str, bytes, dict, set)):
        # (a str would recurse forever: its items are strings again)
        raise TypeError(f"{_tf(fn)}: `{arg}` must hold integers, got {x!r} "
                        f"({type(x).__name__})")
    if isinstance(x, int):
        return x
    if hasattr(x, "__index__"):
        return x.__index__()
    try:
        return [_host_ints(v, fn, arg) for v in x]
    except TypeError:
        raise TypeError(f"{_tf(fn)}: `{arg}` must be an integer or a list of integers, got "
                        f"{x!r}") from None


def _host_int(x, fn: str, arg: str) -> int:
    v = _host_ints(x, fn, arg)
    if isinstance(v, list):
        flat = _flatten(v)
        if len(flat) != 1:
            raise ValueError(f"{_tf(fn)}: `{arg}` must be a scalar, got {v!r}")
        v = flat[0]
    return v


def _flatten(v) -> list:
    if not isinstance(v, list):
        return [v]
    return [leaf for item in v for leaf in _flatten(item)]


def _dtype(dtype, fn: str, arg: str = "dtype"):
    try:
        return wt.dtype(dtype)
    except (TypeError, ValueError):
        raise TypeError(f"{_tf(fn)}: `{arg}`={dtype!r} is not a data type; pass e.g. tf.int32 "
                        f"or 'float32'") from None


def _index_dtype(dtype, fn: str, arg: str):
    dt = _dtype(dtype, fn, arg)
    if dt not in _INDEX_DTYPES:
        raise TypeError(f"{_tf(fn)}: `{arg}` must be tf.int32 or tf.int64, got {dt.name}")
    return dt


def _axis(axis, ndim: int, fn: str, arg: str = "axis") -> int:
    axis = _host_int(axis, fn, arg)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(_tf(fn), f"`{arg}`={axis} is out of range for a tensor of "
                                   f"rank {ndim}; it must be in [{-ndim}, {ndim})")
    return axis + ndim if axis < 0 else axis


def _min_max(t: Tensor) -> tuple:
    """The smallest and largest value of a non-empty tensor with one read back."""
    return tuple(wt.stack([wt.min(t), wt.max(t)]).tolist())


def _check_indices(idx: Tensor, bound: int, fn: str, arg: str, what: str) -> None:
    """TensorFlow's rule: every index in ``[0, bound)`` (negative ones are errors too)."""
    if idx.size == 0:
        return
    low, high = _min_max(idx)
    if low >= 0 and high < bound:
        return
    flat = wt.reshape(idx, (-1,)).tolist()
    pos = next(i for i, v in enumerate(flat) if not 0 <= v < bound)
    where = _unravel(pos, idx.shape)
    raise InvalidArgumentError(_tf(fn), f"`{arg}`{list(where)} = {flat[pos]} is not in "
                               f"[0, {bound}) ({what}); TensorFlow does not wrap negative or "
                               f"out-of-range indices")


def _unravel(pos: int, shape) -> tuple:
    out = []
    for n in reversed(shape):
        out.append(pos % n)
        pos //= n
    return tuple(reversed(out))


# -- gather --------------------------------------------------------------------------------------

def gather(params, indices, validate_indices=None, name=None, axis=None,
           batch_dims=0) -> Tensor:
    """Slices of ``params`` along ``axis`` at ``indices``: the result has shape
    ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``.

    With ``batch_dims=b`` the first ``b`` dimensions of ``params`` and ``indices`` are batch
    dimensions (equal sizes), and each batch gathers from its own slice; ``axis`` defaults to
    ``batch_dims`` and must not be smaller."""
    fn = "gather"
    params = _tensor(params, fn, "params")
    indices = _int_tensor(indices, fn, "indices", device=params.device)
    if params.ndim == 0:
        raise InvalidArgumentError(_tf(fn), "`params` must be at least 1-D, got a scalar; "
                                   "wrap it with tf.reshape(params, [1])")
    b = _host_int(batch_dims, fn, "batch_dims")
    if not -indices.ndim <= b <= indices.ndim if indices.ndim else b != 0:
        raise InvalidArgumentError(_tf(fn), f"expected batch_dims in the range "
                                   f"[{-indices.ndim}, {indices.ndim}], but got {b}")
    # (axis defaults to batch_dims as given: -1 means params' last dimension)
    ax = _axis(b if axis is None else axis, params.ndim, fn)
    b = b + indices.ndim if b < 0 else b
    if b > ax:
        raise InvalidArgumentError(_tf(fn), f"batch_dims ({b}) must be less than or equal to "
                                   f"axis ({ax})")
    for d in range(b):
        if params.shape[d] != indices.shape[d]:
            raise InvalidArgumentError(_tf(fn), f"params.shape[{d}]: {params.shape[d]} should "
                                       f"be equal to indices.shape[{d}]: {indices.shape[d]} "
                                       f"(a batch dimension)")
    _check_indices(indices, params.shape[ax], fn, "indices", f"params.shape[{ax}]")
    shape = params.shape[:ax] + indices.shape[b:] + params.shape[ax + 1:]
    idx = wt.astype(indices, wt.int64)
    if b == 0:
        out = wt.take(params, wt.reshape(idx, (indices.size,)), axis=ax)
        return wt.reshape(out, shape)
    # Batches: fold each batch's dimension `ax` into one axis of size B * A, offset every
    # batch's indices by its start there, and gather once.
    batch = math.prod(params.shape[:b])
    size, pre = params.shape[ax], math.prod(params.shape[b:ax])
    post = math.prod(params.shape[ax + 1:])
    per_batch = math.prod(indices.shape[b:])
    source = wt.reshape(params, (batch, pre, size, post))
    source = wt.reshape(wt.permute_dims(source, (0, 2, 1, 3)), (batch * size, pre, post))
    starts = wt.reshape(wt.arange(batch, dtype=wt.int64, device=params.device) * size,
                        (batch, 1))
    flat = wt.reshape(wt.reshape(idx, (batch, per_batch)) + starts, (batch * per_batch,))
    out = wt.reshape(wt.take(source, flat, axis=0), (batch, per_batch, pre, post))
    return wt.reshape(wt.permute_dims(out, (0, 2, 1, 3)), shape)


def _flat_nd_index(indices: Tensor, dims, fn: str, arg: str) -> Tensor:
    """Row-major flat positions (shape ``indices.shape[:-1]``) of ``indices[..., :K]`` into
    ``dims`` (length K), after checking each component against its dimension: for K == 1 a
    view of the indices (their own integer dtype), else int64."""
    k = len(dims)
    if not k:
        return wt.zeros(indices.shape[:-1], dtype=wt.int64, device=indices.device)
    _check_nd_index(indices, dims, fn, arg)
    # one component needs no arithmetic (a copy of 1M indices costs as much as the scatter)
    idx = indices if k == 1 else wt.astype(indices, wt.int64, copy=False)
    flat = idx[..., k - 1]
    stride = dims[k - 1]
    for j in range(k - 2, -1, -1):
        flat = flat + idx[..., j] * stride
        stride *= dims[j]
    return flat


def _check_nd_index(indices: Tensor, dims, fn: str, arg: str) -> None:
    """Every index tuple in ``indices[..., :K]`` within ``dims`` (K >= 1), else
    InvalidArgumentError naming the first one that is not: one read back (min and max)."""
    k = len(dims)
    if not indices.size:
        return
    low, high = _min_max(indices)
    if (low < 0 or high >= min(dims)) and any(
            not 0 <= v < n for row in _rows(indices, k) for v, n in zip(row, dims)):
        row = next(r for r in _rows(indices, k) if any(not 0 <= v < n for v, n in zip(r, dims)))
        raise InvalidArgumentError(_tf(fn), f"`{arg}` holds the index {row}, which does not "
                                   f"index into the shape {list(dims)}; each component must "
                                   f"be in [0, dim)")


def _rows(idx: Tensor, k: int) -> list:
    flat = wt.reshape(idx, (-1,)).tolist()
    return [flat[i:i + k] for i in range(0, len(flat), k)]


def _nd_depth(indices: Tensor, rank: int, fn: str, arg: str, target: str) -> int:
    if indices.ndim == 0:
        raise InvalidArgumentError(_tf(fn), f"`{arg}` must be at least 1-D (its last dimension "
                                   f"holds the index tuples), got a scalar")
    k = indices.shape[-1]
    if k > rank:
        raise InvalidArgumentError(_tf(fn), f"the last dimension of `{arg}` ({k}) must be at "
                                   f"most the rank of {target} ({rank})")
    return k


def gather_nd(params, indices, name=None) -> Tensor:
    """Elements (``K == params.ndim``) or slices (``K < params.ndim``) of ``params`` at the
    index tuples in the last dimension (length ``K``) of ``indices``."""
    fn = "gather_nd"
    params = _tensor(params, fn, "params")
    indices = _int_tensor(indices, fn, "indices", device=params.device)
    k = _nd_depth(indices, params.ndim, fn, "indices", "`params`")
    lead, rest = params.shape[:k], params.shape[k:]
    flat = _flat_nd_index(indices, lead, fn, "indices")
    source = wt.reshape(params, (math.prod(lead),) + rest)
    out = wt.take(source, wt.reshape(flat, (flat.size,)), axis=0)
    return wt.reshape(out, indices.shape[:-1] + rest)


def scatter_nd(indices, updates, shape, name=None) -> Tensor:
    """A zero tensor of ``shape`` with ``updates`` added at the index tuples of ``indices``
    (the inverse of ``gather_nd``); updates at repeated indices are summed."""
    fn = "scatter_nd"
    updates = _tensor(updates, fn, "updates")
    indices = _int_tensor(indices, fn, "indices", device=updates.device)
    dims = _host_ints(shape, fn, "shape")
    if not isinstance(dims, list) or any(isinstance(d, list) for d in dims):
        raise InvalidArgumentError(_tf(fn), f"`shape` must be a 1-D list of sizes, got {dims!r}")
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(_tf(fn), f"`shape` {dims} has a negative size")
    dims = tuple(dims)
    k = _nd_depth(indices, len(dims), fn, "indices", "`shape`")
    lead, rest = dims[:k], dims[k:]
    want = indices.shape[:-1] + rest
    if updates.shape != want:
        raise InvalidArgumentError(_tf(fn), f"`updates` has shape {list(updates.shape)} but "
                                   f"indices of shape {list(indices.shape)} into shape "
                                   f"{list(dims)} need updates of shape {list(want)} "
                                   f"(indices.shape[:-1] + shape[K:])")
    dt = updates.dtype
    # NOTE: bool has no "add"; TensorFlow's sum of bools is a logical or, done here in int8.
    work_dt = wt.int8 if dt == wt.bool else dt
    base = wt.zeros((math.prod(lead),) + rest, dtype=work_dt, device=updates.device)
    # one component: a backend may check the indices while it scatters (no pass of its own)
    flat = indices[..., 0] if k == 1 else _flat_nd_index(indices, lead, fn, "indices")
    n = flat.size
    values = wt.reshape(wt.astype(updates, work_dt, copy=False), (n,) + rest)
    index = wt.broadcast_to(wt.reshape(flat, (n,) + (1,) * len(rest)), (n,) + rest)
    done = _reduce.scatter_in_range("add", base, 0, index, values) if k == 1 else None
    if done is None:
        if k == 1:
            _check_nd_index(indices, lead, fn, "indices")
        out = _reduce.scatter("add", base, 0, index, values)
    else:
        out, ok = done
        if not ok:
            _check_nd_index(indices, lead, fn, "indices")  # raises, naming the index
            raise RuntimeError(f"{_tf(fn)}: the device found an index out of range that the "
                               f"host check did not; please report this bug")
    if dt == wt.bool:
        out = wt.not_equal(out, 0)
    return wt.reshape(out, dims)


# -- partition and stitch ------------------------------------------------------------------------

_MAX_PARTITIONS = 1 << 20  # more partitions than this only if there are as many entries

def dynamic_partition(data, partitions, num_partitions, name=None) -> list:
    """``outputs[i]`` stacks the slices ``data[js, ...]`` with ``partitions[js] == i`` in
    row-major order of ``js``; ``partitions.shape`` must be a prefix of ``data.shape``."""
    fn = "dynamic_partition"
    data = _tensor(data, fn, "data")
    partitions = _int_tensor(partitions, fn, "partitions", device=data.device)
    count = _host_int(num_partitions, fn, "num_partitions")
    if count < 1:
        raise InvalidArgumentError(_tf(fn), f"`num_partitions` must be at least 1, got {count}")
    if count > max(_MAX_PARTITIONS, partitions.size):
        # one output tensor per partition: refuse before making millions of empty ones
        raise MemoryError(f"{_tf(fn)}: num_partitions={count} would make {count} output tensors "
                          f"for {partitions.size} partition entries; use at most "
                          f"{max(_MAX_PARTITIONS, partitions.size)}")
    k = partitions.ndim
    if data.shape[:k] != partitions.shape:
        raise InvalidArgumentError(_tf(fn), f"`data.shape` {list(data.shape)} must start with "
                                   f"`partitions.shape` {list(partitions.shape)}")
    _check_indices(partitions, count, fn, "partitions", f"num_partitions={count}")
    labels = wt.reshape(partitions, (-1,)).tolist()
    rest = data.shape[k:]
    source = wt.reshape(data, (len(labels),) + rest)
    groups = [[] for _ in range(count)]
    for pos, label in enumerate(labels):
        groups[label].append(pos)
    # One gather for every partition, then views of consecutive runs.
    order = wt.asarray([p for g in groups for p in g], dtype=wt.int64, device=data.device)
    picked = wt.take(source, order, axis=0)
    outputs, start = [], 0
    for g in groups:
        outputs.append(picked[start:start + len(g)])
        start += len(g)
    return outputs


def dynamic_stitch(indices, data, name=None) -> Tensor:
    """``merged[indices[m][i, ...], ...] = data[m][i, ...]``; where an index repeats, the
    later ``(m, i)`` wins.  ``merged`` has ``max(indices) + 1`` rows."""
    fn = "dynamic_stitch"
    if not isinstance(indices, (list, tuple)) or not isinstance(data, (list, tuple)):
        raise TypeError(f"{_tf(fn)}: `indices` and `data` must be lists of tensors, one pair per "
                        f"piece, got {type(indices).__name__} and {type(data).__name__}; wrap "
                        f"single tensors in a list")
    indices, data = list(indices), list(data)
    if not indices or len(indices) != len(data):
        raise InvalidArgumentError(_tf(fn), f"`indices` and `data` must be non-empty lists of "
                                   f"the same length, got {len(indices)} and {len(data)}")
    first = next((d for d in data if isinstance(d, Tensor)), None)
    device = first.device if first is not None else None
    data = [_tensor(d, fn, f"data[{m}]", device=device) for m, d in enumerate(data)]
    device = data[0].device
    indices = [_int_tensor(i, fn, f"indices[{m}]", device=device) for m, i in enumerate(indices)]
    dt = data[0].dtype
    constant = None
    for m, (i, d) in enumerate(zip(indices, data)):
        if d.dtype != dt:
            raise TypeError(f"{_tf(fn)}: every `data` tensor must have the same dtype; data[0] "
                            f"is {dt.name} but data[{m}] is {d.dtype.name}")
        if d.shape[:i.ndim] != i.shape:
            raise InvalidArgumentError(_tf(fn), f"data[{m}].shape {list(d.shape)} must start "
                                       f"with indices[{m}].shape {list(i.shape)}")
        suffix = d.shape[i.ndim:]
        if constant is None:
            constant = suffix
        elif suffix != constant:
            raise InvalidArgumentError(_tf(fn), f"data[{m}].shape {list(d.shape)} minus "
                                       f"indices[{m}].shape leaves {list(suffix)}, but earlier "
                                       f"pieces leave {list(constant)}; it must be the same")
    flat_idx = wt.concat([wt.reshape(wt.astype(i, wt.int64), (i.size,)) for i in indices])
    flat_data = wt.concat([wt.reshape(d, (i.size,) + constant) for i, d in zip(indices, data)])
    rows = 0
    if flat_idx.size:
        low, high = _min_max(flat_idx)
        if low < 0:
            raise InvalidArgumentError(_tf(fn), f"`indices` hold the negative index {low}; "
                                       f"every index must be >= 0")
        rows = high + 1
    merged = wt.zeros((rows,) + constant, dtype=dt, device=device)
    if flat_idx.size:
        merged[flat_idx] = flat_data  # a scatter in order: the last write wins
    return merged


# -- masks ---------------------------------------------------------------------------------------

def boolean_mask(tensor, mask, name="boolean_mask", axis=None) -> Tensor:
    """``tensor[mask]`` for a K-D bool ``mask`` matching ``tensor.shape[axis:axis + K]``
    (``axis`` defaults to 0): the masked dimensions collapse into one of length
    ``count_nonzero(mask)``."""
    fn = "boolean_mask"
    tensor = _tensor(tensor, fn, "tensor")
    mask = _tensor(mask, fn, "mask", device=tensor.device)
    if mask.dtype != wt.bool:
        raise TypeError(f"{_tf(fn)}: `mask` must be a bool tensor, got {mask.dtype.name}; "
                        f"compare it, e.g. tf.not_equal(mask, 0)")
    k = mask.ndim
    if k == 0:
        raise ValueError(f"{_tf(fn)}: `mask` cannot be a scalar; it needs at least 1 dimension")
    ax = 0 if axis is None else _axis(axis, tensor.ndim, fn)
    if ax + k > tensor.ndim or tensor.shape[ax:ax + k] != mask.shape:
        raise ValueError(f"{_tf(fn)}: `mask` of shape {list(mask.shape)} must match dimensions "
                         f"{ax}..{ax + k - 1} of `tensor`, which has shape "
                         f"{list(tensor.shape)}")
    return tensor[(slice(None),) * ax + (mask,)]


def sequence_mask(lengths, maxlen=None, dtype=_d.bool, name=None) -> Tensor:
    """``mask[..., j] = j < lengths[...]`` for ``j`` in ``range(maxlen)`` (default
    ``max(lengths)``), cast to ``dtype``."""
    fn = "sequence_mask"
    lengths = _int_tensor(lengths, fn, "lengths")
    out_dt = _dtype(dtype, fn)
    if maxlen is None:
        maxlen = max(_min_max(lengths)[1], 0) if lengths.size else 0
    else:
        if isinstance(maxlen, Tensor) and maxlen.ndim != 0:
            raise ValueError(f"{_tf(fn)}: `maxlen` must be a scalar, got shape "
                             f"{list(maxlen.shape)}")
        if isinstance(maxlen, (list, tuple)):
            raise ValueError(f"{_tf(fn)}: `maxlen` must be a scalar, got {maxlen!r}")
        maxlen = max(_host_int(maxlen, fn, "maxlen"), 0)
        if maxlen > _INT32_MAX:
            raise InvalidArgumentError(_tf(fn), f"`maxlen` must fit int32 (as in TensorFlow), "
                                                f"got {maxlen}")
    positions = wt.arange(maxlen, dtype=wt.int64, device=lengths.device)
    mask = wt.less(positions, wt.expand_dims(wt.astype(lengths, wt.int64), axis=-1))
    return mask if out_dt == wt.bool else wt.astype(mask, out_dt)


# -- one_hot -------------------------------------------------------------------------------------

def _scalar_dtype(value):
    """The dtype TensorFlow gives a Python scalar (bool, int32, float32)."""
    if isinstance(value, bool):
        return wt.bool
    if isinstance(value, int):
        return wt.int32
    if isinstance(value, float):
        return wt.float32
    return None


def _fill_value(value, dt, device, fn: str, arg: str) -> Tensor:
    if isinstance(value, Tensor):
        return wt.reshape(wt.astype(value, dt), ())
    if isinstance(value, float) and dt.kind in "iub":
        # TensorFlow never converts a Python float to an integer or bool tensor implicitly.
        raise TypeError(f"{_tf(fn)}: `{arg}`={value!r} is a float but the output dtype is "
                        f"{dt.name}; pass an {dt.name} value or a float dtype")
    return wt.asarray(value, dtype=dt, device=device)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None,
            name=None) -> Tensor:
    """A tensor of rank ``indices.ndim + 1`` holding ``on_value`` where the new axis (``axis``,
    default last) position equals the index and ``off_value`` elsewhere; indices outside
    ``[0, depth)`` give a row of ``off_value``."""
    fn = "one_hot"
    indices = _int_tensor(indices, fn, "indices")
    device = indices.device
    n = _host_int(depth, fn, "depth")
    if n > _INT32_MAX:
        raise InvalidArgumentError(_tf(fn), f"`depth` must fit int32 (as in TensorFlow), got {n}")
    if n < 0:
        raise InvalidArgumentError(_tf(fn), f"`depth` must be non-negative, got {n}")
    given = {}
    on_value, off_value = _unwrap(on_value), _unwrap(off_value)
    for arg, value in (("on_value", on_value), ("off_value", off_value)):
        if value is None:
            continue
        if isinstance(value, Tensor):
            if value.size != 1:
                raise ValueError(f"{_tf(fn)}: `{arg}` must be a scalar, got shape "
                                 f"{list(value.shape)}")
            given[arg] = value.dtype
        else:
            value_dt = _scalar_dtype(value)
            if value_dt is None:
                raise TypeError(f"{_tf(fn)}: `{arg}` must be a number or a tensor, got "
                                f"{type(value).__name__}")
            # A Python scalar takes the requested dtype when one is given.
            given[arg] = _dtype(dtype, fn) if dtype is not None else value_dt
    if dtype is not None:
        out_dt = _dtype(dtype, fn)
        for arg, dt in given.items():
            if dt != out_dt:
                raise TypeError(f"{_tf(fn)}: dtype {dt.name} of `{arg}` does not match "
                                f"dtype={out_dt.name}")
    elif given:
        out_dt = given.get("on_value", given.get("off_value"))
    else:
        out_dt = wt.float32
    if len(given) == 2 and given["on_value"] != given["off_value"]:
        raise TypeError(f"{_tf(fn)}: dtype {given['on_value'].name} of `on_value` does not "
                        f"match dtype {given['off_value'].name} of `off_value`")
    on = _fill_value(1 if on_value is None else on_value, out_dt, device, fn, "on_value")
    off = _fill_value(0 if off_value is None else off_value, out_dt, device, fn, "off_value")
    rank = indices.ndim + 1
    ax = -1 if axis is None else _host_int(axis, fn, "axis")
    if not (ax == -1 or 0 <= ax < rank):
        raise InvalidArgumentError(_tf(fn), f"`axis` must be -1 or in [0, {rank - 1}] for "
                                   f"indices of rank {indices.ndim}, got {ax}")
    positions = wt.arange(n, dtype=wt.int64, device=device)
    hot = wt.equal(wt.expand_dims(wt.astype(indices, wt.int64), axis=-1), positions)
    out = wt.where(hot, on, off)
    return out if ax in (-1, rank - 1) else wt.moveaxis(out, -1, ax)


# -- set-like ------------------------------------------------------------------------------------

def unique_with_counts(x, out_idx=_d.int32, name=None) -> tuple:
    """``(y, idx, count)``: the distinct values of the 1-D ``x`` in order of first occurrence,
    ``y[idx[i]] == x[i]``, and how often each occurs."""
    fn = "unique_with_counts"
    x = _tensor(x, fn, "x")
    idx_dt = _index_dtype(out_idx if out_idx is not None else wt.int32, fn, "out_idx")
    if x.ndim != 1:
        raise InvalidArgumentError(_tf(fn), f"`x` must be 1-D, got shape {list(x.shape)}; "
                                   f"flatten it with tf.reshape(x, [-1])")
    res = wt.unique_all(x)
    # unique_all sorts the values; TensorFlow keeps them in order of first appearance.
    order = wt.argsort(res.indices, stable=True)
    rank = wt.argsort(order, stable=True)
    y = wt.take(res.values, order)
    idx = wt.take(rank, res.inverse_indices)
    count = wt.take(res.counts, order)
    return y, wt.astype(idx, idx_dt), wt.astype(count, idx_dt)


def setdiff1d(x, y, index_dtype=_d.int32, name=None) -> tuple:
    """``(out, idx)``: the values of the 1-D ``x`` that are not in ``y``, in their order in
    ``x`` (duplicates kept), and their positions in ``x``."""
    fn = "setdiff1d"
    x = _tensor(x, fn, "x")
    y = _tensor(y, fn, "y", device=x.device, dtype=None)
    idx_dt = _index_dtype(index_dtype, fn, "index_dtype")
    for arg, t in (("x", x), ("y", y)):
        if t.ndim != 1:
            raise InvalidArgumentError(_tf(fn), f"`{arg}` must be 1-D, got shape "
                                       f"{list(t.shape)}")
    if y.dtype != x.dtype:
        if y.weak:  # a Python list adopts x's dtype, as TensorFlow converts it
            y = wt.astype(y, x.dtype)
        else:
            raise TypeError(f"{_tf(fn)}: `y` must have the dtype of `x` ({x.dtype.name}), got "
                            f"{y.dtype.name}")
    keep = wt.isin(x, y, invert=True)
    positions = wt.nonzero(keep)[0]
    return wt.take(x, positions), wt.astype(positions, idx_dt)


# -- reverse_sequence ----------------------------------------------------------------------------

def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,
                     seq_dim=None, batch_dim=None) -> Tensor:
    """For each slice ``i`` along ``batch_axis``, reverse its first ``seq_lengths[i]`` elements
    along ``seq_axis``; the rest is copied through."""
    fn = "reverse_sequence"
    x = _tensor(input, fn, "input")
    lengths = _int_tensor(seq_lengths, fn, "seq_lengths", device=x.device)
    seq_axis = _alias(seq_axis, seq_dim, "seq_axis", "seq_dim", fn)
    batch_axis = _alias(batch_axis, batch_dim, "batch_axis", "batch_dim", fn)
    if seq_axis is None:
        raise TypeError(f"{_tf(fn)}: `seq_axis` is required (the dimension to reverse)")
    if batch_axis is None:
        batch_axis = 0
    s_ax = _axis(seq_axis, x.ndim, fn, "seq_axis")
    b_ax = _axis(batch_axis, x.ndim, fn, "batch_axis")
    if s_ax == b_ax:
        raise InvalidArgumentError(_tf(fn), f"`seq_axis` and `batch_axis` must differ, both are "
                                   f"{s_ax}")
    if lengths.ndim != 1 or lengths.shape[0] != x.shape[b_ax]:
        raise InvalidArgumentError(_tf(fn), f"`seq_lengths` must be a vector of length "
                                   f"input.shape[{b_ax}] = {x.shape[b_ax]}, got shape "
                                   f"{list(lengths.shape)}")
    steps = x.shape[s_ax]
    _check_indices(lengths, steps + 1, fn, "seq_lengths", f"a length up to input.shape[{s_ax}]")
    ones = [1] * x.ndim
    t_shape, l_shape = list(ones), list(ones)
    t_shape[s_ax], l_shape[b_ax] = steps, x.shape[b_ax]
    t = wt.reshape(wt.arange(steps, dtype=wt.int64, device=x.device), tuple(t_shape))
    n = wt.reshape(wt.astype(lengths, wt.int64), tuple(l_shape))
    source = wt.where(wt.less(t, n), n - 1 - t, t)
    index_shape = list(x.shape)
    index_shape[s_ax] = steps
    return wt.take_along_axis(x, wt.broadcast_to(source, tuple(index_shape)), axis=s_ax)


def _alias(new, old, new_name: str, old_name: str, fn: str):
    if new is not None and old is not None and new != old:
        raise ValueError(f"{_tf(fn)}: `{new_name}`={new} and its deprecated alias "
                         f"`{old_name}`={old} disagree; pass only `{new_name}`")
    return new if new is not None else old
