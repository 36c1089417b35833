"""TensorFlow's "Shapes and Shaping" chapter: shape queries (int32 tensors by default, on the
input's device), broadcasting of shapes, and the view-producing reshape/squeeze/expand_dims.

Static shapes (``broadcast_static_shape``) are tuples whose entries may be None (unknown), as a
TensorShape's are; an unknown rank is None.
"""

from __future__ import annotations

import math

import webtensor as wt

from ..tensor import Tensor
from ._casting import as_tensor, index_dtype, int_list, int_scalar
from .errors import InvalidArgumentError

__all__ = ["broadcast_dynamic_shape", "broadcast_static_shape", "shape", "shape_n", "size",
           "rank", "reshape", "squeeze", "expand_dims", "meshgrid"]


def _broadcast_pair(a: int | None, b: int | None) -> int | None:
    """One aligned pair of dimensions; raises ValueError when they cannot broadcast."""
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    if a is None or b is None:  # unknown against a known size > 1: the known one wins
        return b if a is None else a
    raise ValueError


def _broadcast(sx, sy) -> tuple:
    n = max(len(sx), len(sy))
    sx = (1,) * (n - len(sx)) + tuple(sx)
    sy = (1,) * (n - len(sy)) + tuple(sy)
    return tuple(_broadcast_pair(a, b) for a, b in zip(sx, sy))


def broadcast_dynamic_shape(shape_x, shape_y) -> Tensor:
    """The broadcast of two rank-1 integer shape tensors, as a rank-1 tensor (int32 unless
    either input is int64), on ``shape_x``'s device when it is a tensor."""
    fn = "broadcast_dynamic_shape"
    sx, sy = int_list(shape_x, fn, "shape_x"), int_list(shape_y, fn, "shape_y")
    try:
        out = _broadcast(sx, sy)
    except ValueError:
        raise InvalidArgumentError(f"tf.{fn}", f"incompatible shapes {sx} and {sy}: aligned "
                                               f"from the right, each pair of dimensions must "
                                               f"be equal or contain a 1") from None
    tensors = [s for s in (shape_x, shape_y) if isinstance(s, Tensor)]
    dt = wt.int64 if any(s.dtype is wt.int64 for s in tensors) else wt.int32
    device = tensors[0].device if tensors else None
    return wt.asarray(list(out), dtype=dt, device=device)


def _static(shape, fn: str, arg: str):
    if shape is None:
        return None
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"tf.{fn}: {arg} must be a shape (tuple or list of ints / None), got "
                        f"{shape!r}")
    return tuple(None if d is None else int_scalar(d, fn, arg) for d in shape)


def broadcast_static_shape(shape_x, shape_y) -> tuple | None:
    """The broadcast of two static shapes (tuples; None entries are unknown dimensions, a
    None shape an unknown rank).  Raises ValueError when they cannot broadcast."""
    fn = "broadcast_static_shape"
    sx, sy = _static(shape_x, fn, "shape_x"), _static(shape_y, fn, "shape_y")
    if sx is None or sy is None:
        return None
    try:
        return _broadcast(sx, sy)
    except ValueError:
        raise ValueError(f"tf.{fn}: incompatible shapes for broadcasting: {sx} and {sy}; "
                         f"aligned from the right, each pair of dimensions must be equal or "
                         f"contain a 1") from None


def shape(input, name=None, out_type=wt.int32) -> Tensor:  # noqa: A002 - TensorFlow names
    """The shape of ``input`` as a 1-D ``out_type`` tensor (int32 by default)."""
    fn = "shape"
    x = as_tensor(input, fn)
    return wt.asarray(list(x.shape), dtype=index_dtype(out_type, fn), device=x.device)


def shape_n(input, out_type=None, name=None) -> list[Tensor]:  # noqa: A002
    """``[shape(t) for t in input]``; ``input`` must be a non-empty list."""
    fn = "shape_n"
    if isinstance(input, Tensor) or not isinstance(input, (list, tuple)):
        raise TypeError(f"tf.{fn}: input must be a list of tensors, got "
                        f"{type(input).__name__}")
    if not input:
        raise ValueError(f"tf.{fn}: input must hold at least 1 tensor")
    dt = index_dtype(out_type, fn)
    return [shape(t, out_type=dt) for t in input]


def size(input, name=None, out_type=wt.int32) -> Tensor:  # noqa: A002
    """The number of elements of ``input`` as a 0-d ``out_type`` tensor (int32 by default)."""
    fn = "size"
    x = as_tensor(input, fn)
    return wt.asarray(x.size, dtype=index_dtype(out_type, fn), device=x.device)


def rank(input, name=None) -> Tensor:  # noqa: A002
    """The number of dimensions of ``input`` as a 0-d int32 tensor (NumPy's ``ndim``)."""
    x = as_tensor(input, "rank")
    return wt.asarray(x.ndim, dtype=wt.int32, device=x.device)


def reshape(tensor, shape, name=None) -> Tensor:
    """``tensor`` with the shape ``shape`` (a 1-D list/tensor; one entry may be -1, inferred so
    the size stays the same; ``[]`` gives a scalar).  A view whenever the strides allow."""
    fn = "reshape"
    x = as_tensor(tensor, fn)
    dims = int_list(shape, fn, "shape")
    unknown = [i for i, d in enumerate(dims) if d == -1]
    bad = [d for d in dims if d < -1]
    if bad:
        raise InvalidArgumentError(f"tf.{fn}", f"shape {dims} has the negative size {bad[0]}; "
                                               f"only -1 (infer this dimension) is allowed")
    if len(unknown) > 1:
        raise InvalidArgumentError(f"tf.{fn}", f"shape {dims} has more than one -1; at most one "
                                               f"dimension can be inferred")
    known = math.prod(d for d in dims if d != -1)
    if unknown:
        if known == 0 or x.size % known:
            raise InvalidArgumentError(
                f"tf.{fn}", f"cannot infer the -1 in shape {dims} for a tensor with {x.size} "
                            f"values: {x.size} is not a multiple of the other sizes' product "
                            f"{known}" + (" (a zero size makes -1 ambiguous)" if not known else ""))
        dims[unknown[0]] = x.size // known
    elif known != x.size:
        raise InvalidArgumentError(f"tf.{fn}", f"input has {x.size} values, but the requested "
                                               f"shape {dims} has {known}; the sizes must match")
    return wt.reshape(x, tuple(dims))


def _axes(axis, fn: str, arg: str) -> list[int]:
    if isinstance(axis, Tensor) and axis.ndim == 0:
        return [int_scalar(axis, fn, arg)]
    if isinstance(axis, (list, tuple, Tensor)):
        return int_list(axis, fn, arg)
    return [int_scalar(axis, fn, arg)]


def squeeze(input, axis=None, name=None, squeeze_dims=None) -> Tensor:  # noqa: A002
    """``input`` without its size-1 dimensions (only those listed in ``axis`` when it is a
    non-empty list; None and ``[]`` both mean all of them)."""
    fn = "squeeze"
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError(f"tf.{fn}: cannot specify both 'axis' and 'squeeze_dims'; use axis "
                             f"(squeeze_dims is its deprecated name)")
        axis = squeeze_dims
    x = as_tensor(input, fn)
    listed = [] if axis is None else _axes(axis, fn, "axis")
    if not listed:  # None or [] (the guide's default): every size-1 dimension
        return wt.squeeze(x)
    axes = set()
    for a in listed:
        if not -x.ndim <= a < x.ndim:
            raise InvalidArgumentError(f"tf.{fn}", f"tried to squeeze dim index {a} for a "
                                                   f"tensor of rank {x.ndim}; it must be in "
                                                   f"[{-x.ndim}, {x.ndim})")
        a %= x.ndim
        if x.shape[a] != 1:
            raise InvalidArgumentError(f"tf.{fn}", f"cannot squeeze dim[{a}]: expected a "
                                                   f"dimension of 1, got {x.shape[a]} (shape "
                                                   f"{x.shape})")
        axes.add(a)
    return wt.squeeze(x, axis=tuple(sorted(axes)))


def expand_dims(input, axis=None, name=None, dim=None) -> Tensor:  # noqa: A002
    """``input`` with a new dimension of size 1 at ``axis`` (``-1 - rank <= axis <= rank``;
    negative counts from the end of the result)."""
    fn = "expand_dims"
    if dim is not None:
        if axis is not None:
            raise ValueError(f"tf.{fn}: cannot specify both 'axis' and 'dim'; use axis (dim is "
                             f"its deprecated name)")
        axis = dim
    if axis is None:
        raise ValueError(f"tf.{fn}: an axis is required, e.g. tf.expand_dims(x, 0)")
    x = as_tensor(input, fn)
    axes = _axes(axis, fn, "axis")
    if len(axes) != 1:
        raise InvalidArgumentError(f"tf.{fn}", f"axis must be a scalar (or hold one element), "
                                               f"got {axes}")
    a = axes[0]
    if not -1 - x.ndim <= a <= x.ndim:
        raise InvalidArgumentError(f"tf.{fn}", f"axis {a} is out of range for a tensor of rank "
                                               f"{x.ndim}; it must be in [{-1 - x.ndim}, "
                                               f"{x.ndim}]")
    return wt.expand_dims(x, axis=a)


def meshgrid(*args, **kwargs) -> list[Tensor]:
    """N-D coordinate grids from N coordinate vectors; ``indexing='xy'`` (default) swaps the
    first two output dimensions, ``'ij'`` keeps matrix order.  Each output keeps its input's
    dtype; inputs of any rank are flattened first, as TensorFlow does."""
    fn = "meshgrid"
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"tf.{fn}: unsupported keyword arguments {sorted(kwargs)}; only "
                        f"'indexing' and 'name' are accepted")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"tf.{fn}: indexing must be 'xy' or 'ij', got {indexing!r}")
    vectors = [wt.reshape(as_tensor(a, fn), (-1,)) for a in args]
    if not vectors:
        return []
    lengths = [v.shape[0] for v in vectors]
    if indexing == "xy" and len(vectors) > 1:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    out = []
    for i, v in enumerate(vectors):
        axis = i
        if indexing == "xy" and len(vectors) > 1 and i < 2:
            axis = 1 - i
        view = [1] * len(vectors)
        view[axis] = lengths[axis]
        grid = wt.broadcast_to(wt.reshape(v, tuple(view)), tuple(lengths))
        out.append(wt.asarray(grid, copy=True))  # a real tensor, not a broadcast view
    return out
