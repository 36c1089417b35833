"""TensorFlow's conversion and creation functions: ``convert_to_tensor``, ``is_tensor``,
``identity``, ``zeros``/``ones``/``*_like``, ``fill``, ``range``, ``where``,
``clip_by_value``.

Python data gets TensorFlow's dtypes (int32, float32, complex128); ``convert_to_tensor``,
``zeros``, ``fill`` and ``range`` give strong tensors, as TensorFlow does even with its new
promotion, while ``identity``, ``*_like`` and ``clip_by_value`` keep a weak input weak.
"""

from __future__ import annotations

import builtins

import webtensor as wt

from ..tensor import Tensor
from ..tensor import cast as _retag
from ._casting import as_dtype, as_tensor, python_dtype, unwrap
from ._math_ops import _operands
from ._variables import _check_python_data, _ReadsAsTensor
from .errors import InvalidArgumentError

__all__ = ["convert_to_tensor", "is_tensor", "identity", "zeros", "ones", "zeros_like",
           "ones_like", "fill", "range", "where", "clip_by_value"]


def _strong(t: Tensor) -> Tensor:
    return _retag(t, t.dtype, weak=False) if t.weak else t


def _converted(value, dt, fn: str, device=None) -> Tensor:
    """``value`` as a strong tensor of dtype ``dt`` (its own dtype when None).  Python data
    that ``dt`` cannot hold raises TypeError; a tensor of another dtype raises ValueError, as
    TensorFlow's conversion does."""
    value = unwrap(value)
    if dt is not None and python_dtype(value) is not None:
        _check_python_data(value, dt, fn)
        return wt.asarray(value, dtype=dt, device=device)
    if isinstance(value, Tensor):
        if dt is not None and value.dtype is not dt:
            raise ValueError(f"tf.{fn}: tensor conversion requested dtype {dt.name} for a "
                             f"tensor with dtype {value.dtype.name}; convert it with "
                             f"tf.cast(value, {dt.name})")
        return _strong(value)
    t = wt.asarray(value, dtype=python_dtype(value), device=device) \
        if python_dtype(value) is not None else as_tensor(value, fn, device)
    if dt is not None and t.dtype is not dt:
        t = wt.astype(t, dt)
    return _strong(t)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """``value`` as a (strong) tensor: tensors and variables as they are, NumPy data with its
    dtype, Python data with TensorFlow's (int32, float32, complex128).  ``dtype`` is required
    of the result; ``dtype_hint`` is used when the value converts to it, else ignored."""
    fn = "convert_to_tensor"
    dt = None if dtype is None else as_dtype(dtype, fn)
    if dt is None and dtype_hint is not None:
        hint = as_dtype(dtype_hint, fn, "dtype_hint")
        try:
            return _converted(value, hint, fn)
        except (TypeError, ValueError):
            pass
    return _converted(value, dt, fn)


def is_tensor(x) -> bool:
    """True for tensors and ``tf.Variable``s (not for NumPy arrays or Python data)."""
    return isinstance(x, (Tensor, _ReadsAsTensor))


def identity(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's argument name
    """A new tensor with ``input``'s values, dtype and device (a variable's current value)."""
    t = as_tensor(input, "identity")
    return wt.asarray(t, copy=True)


def _shape(shape, fn: str) -> tuple:
    shape = unwrap(shape)
    if isinstance(shape, Tensor):
        if shape.dtype.kind not in "iu" or shape.ndim > 1:
            raise TypeError(f"tf.{fn}: shape must be a 1-D integer tensor, got "
                            f"{shape.dtype.name} of shape {shape.shape}")
        shape = shape.tolist()
    if isinstance(shape, (bool, float, str, bytes)) or not (
            hasattr(shape, "__index__") or isinstance(shape, (list, tuple))):
        raise TypeError(f"tf.{fn}: shape must be an int or a list of ints, got {shape!r:.60} "
                        f"({type(shape).__name__})")
    dims = [shape] if hasattr(shape, "__index__") else list(shape)
    out = []
    for d in dims:
        if isinstance(d, Tensor) and d.size == 1:
            d = d.item()
        if isinstance(d, bool) or not hasattr(d, "__index__"):
            raise TypeError(f"tf.{fn}: shape must hold integers, got {d!r} "
                            f"({type(d).__name__})")
        d = d.__index__()
        if d < 0:
            raise InvalidArgumentError(f"tf.{fn}", f"shape {dims} has the negative dimension "
                                                   f"{d}")
        out.append(d)
    return tuple(out)


def zeros(shape, dtype=wt.float32, name=None, layout=None) -> Tensor:
    """A tensor of ``shape`` filled with zeros (float32 unless ``dtype``), on the default
    device."""
    return wt.zeros(_shape(shape, "zeros"), dtype=as_dtype(dtype, "zeros"))


def ones(shape, dtype=wt.float32, name=None, layout=None) -> Tensor:
    """A tensor of ``shape`` filled with ones (float32 unless ``dtype``)."""
    return wt.ones(_shape(shape, "ones"), dtype=as_dtype(dtype, "ones"))


def _like(fn: str, input, dtype, value) -> Tensor:
    t = as_tensor(input, fn)
    if dtype is None:
        return wt.full_like(t, value)  # keeps a weak input weak
    dt = as_dtype(dtype, fn)
    return wt.full(t.shape, value, dtype=dt, device=t.device)


def zeros_like(input, dtype=None, name=None, layout=None) -> Tensor:  # noqa: A002
    """Zeros with ``input``'s shape and device, and its dtype unless ``dtype`` is given."""
    return _like("zeros_like", input, dtype, 0)


def ones_like(input, dtype=None, name=None, layout=None) -> Tensor:  # noqa: A002
    """Ones with ``input``'s shape and device, and its dtype unless ``dtype`` is given."""
    return _like("ones_like", input, dtype, 1)


def fill(dims, value, name=None, layout=None) -> Tensor:
    """A tensor of shape ``dims`` filled with the scalar ``value`` (whose dtype it takes)."""
    fn = "fill"
    shape = _shape(dims, fn)
    v = _converted(value, None, fn)
    if v.ndim:
        raise InvalidArgumentError(f"tf.{fn}", f"value must be a scalar, got shape {v.shape}")
    return wt.asarray(wt.broadcast_to(v, shape), copy=True)


def _scalar(v, fn: str, arg: str):
    v = unwrap(v)
    if isinstance(v, Tensor):
        if v.ndim:
            raise InvalidArgumentError(f"tf.{fn}", f"{arg} must be a scalar, got shape "
                                                   f"{v.shape}")
        return v.item(), v.dtype
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        if hasattr(v, "dtype") and hasattr(v, "item"):  # NumPy scalars and 0-d arrays
            return v.item(), wt.dtype(v)
        raise TypeError(f"tf.{fn}: {arg} must be a number, got {v!r:.60} "
                        f"({type(v).__name__})")
    return v, python_dtype(v)


_RANGE_ORDER = (wt.int32, wt.int64, wt.float32, wt.float64)  # TensorFlow's inference order


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:  # noqa: A001
    """``[start, start + delta, ...)`` up to (not including) ``limit``; ``range(n)`` counts
    from 0.  The dtype is ``dtype``, else the widest of the arguments' (int32 for Python
    ints, float32 for floats).  ``delta`` must be nonzero and point from start to limit."""
    fn = "range"
    if limit is None:
        start, limit = 0, start
    values = [_scalar(v, fn, arg) for v, arg in ((start, "start"), (limit, "limit"),
                                                  (delta, "delta"))]
    if dtype is not None:
        dt = as_dtype(dtype, fn)
    else:
        kinds = [d for _, d in values]
        dt = builtins.max(kinds, key=lambda d: _RANGE_ORDER.index(d)
                          if d in _RANGE_ORDER else -1)
    if dt.kind not in "iuf":
        raise TypeError(f"tf.{fn}: dtype must be an integer or floating type, got {dt.name}")
    lo, hi, step = (v for v, _ in values)
    if step == 0:
        raise InvalidArgumentError(f"tf.{fn}", "requires delta != 0")
    if step > 0 and lo > hi:
        raise InvalidArgumentError(f"tf.{fn}", f"requires start <= limit when delta > 0: "
                                               f"{lo}/{hi}")
    if step < 0 and lo < hi:
        raise InvalidArgumentError(f"tf.{fn}", f"requires start >= limit when delta < 0: "
                                               f"{lo}/{hi}")
    if dt.kind in "iu":
        lo, hi, step = int(lo), int(hi), int(step)
        count = -((lo - hi) // step) if step > 0 else -((hi - lo) // -step)
        return wt.astype(wt.arange(count, dtype=wt.int64) * step + lo, dt)
    # floats: the count and the values computed in dt, as TensorFlow's kernel does
    lo_t, hi_t, step_t = (wt.asarray(v, dtype=dt) for v in (lo, hi, step))
    count = int(wt.ceil(wt.abs((hi_t - lo_t) / step_t)).item())
    return wt.arange(count, dtype=dt) * step_t + lo_t


def where(condition, x=None, y=None, name=None) -> Tensor:
    """With ``x`` and ``y``: ``x`` where ``condition`` is true, else ``y`` (broadcast
    together).  Without them: the coordinates of the true elements, an int64 tensor of shape
    ``[count, rank]``."""
    fn = "where"
    cond = as_tensor(condition, fn)
    if (x is None) != (y is None):
        raise ValueError(f"tf.{fn}: x and y must both be given or both be None")
    if x is None:
        return wt.argwhere(cond)
    if cond.dtype is not wt.bool:
        raise InvalidArgumentError(f"tf.{fn}", f"condition must be a bool tensor, got "
                                               f"{cond.dtype.name}; compare first, e.g. "
                                               f"tf.not_equal(c, 0)")
    a, b = _operands(fn, [x, y], ("x", "y"), device=cond.device)
    out = wt.where(cond, a, b)
    return out


def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> Tensor:
    """``t`` with values below ``clip_value_min`` raised to it and values above
    ``clip_value_max`` lowered to it (TensorFlow's order: the maximum is applied first).  The
    bounds may broadcast but must not change ``t``'s shape."""
    fn = "clip_by_value"
    x, lo, hi = _operands(fn, [t, clip_value_min, clip_value_max],
                          ("t", "clip_value_min", "clip_value_max"))
    if x.dtype.kind in "bc":
        raise InvalidArgumentError(f"tf.{fn}", f"t must be an integer or floating tensor, got "
                                               f"{x.dtype.name}")
    out = wt.maximum(wt.minimum(x, hi), lo)
    if out.shape != x.shape:
        raise InvalidArgumentError(f"tf.{fn}", f"the clip values of shapes {lo.shape} and "
                                               f"{hi.shape} would broadcast t of shape "
                                               f"{x.shape} to {out.shape}")
    return out
