"""Nx's window functions and ``conv``.

``window_sum``/``window_mean``/``window_max``/``window_min``/``window_product`` (and
``window_reduce`` when its function is a built-in add, multiply, max or min starting from that
op's identity) pad the tensor (``nx.pad``'s fill-and-write) with the op's identity, then call
the backend's ``window_reduce`` primitive on the padded tensor: one kernel on WebGPU, whose
fold (from the window's first element, positions in row-major order, the elementwise op's own
arithmetic) equals folding the strided views below on every device, bit for bit.

``window_reduce`` with the user's function is composed from the core: the padded tensor is
seen through one strided view per position inside the window (view ``q`` holds, for every
output element, the input element at offset ``q`` of its window; ``strides`` and
``window_dilations`` are the views' steps and offsets), and the views are folded with the
function, once per window position.

``conv`` is im2col: the input (dilated by interior padding, then padded) is seen through one
strided view per kernel position, the views are written side by side into a patch matrix
``(batch, channels * kernel positions, output positions)`` and one batched ``wt.matmul`` with
the kernel reshaped to ``(out channels, channels * kernel positions)`` does the rest; feature
groups and batch groups are extra batch axes of that matmul.
"""

from __future__ import annotations

import inspect
import itertools
import math

from .. import dtypes as _d
from ..api import _reduce as _r
from ..api import elementwise as _ew
from ..api import linalg as _la
from ..tensor import Tensor, empty
from ._core import (
    axis_index,
    fail,
    int_list,
    merge,
    names_of,
    norm_names,
    nx_function,
    operand_as,
    prepare,
    strong,
    to_floating,
    to_tensor,
    type_text,
)
from ._elementwise import add as _nx_add
from ._elementwise import max as _nx_max
from ._elementwise import min as _nx_min
from ._elementwise import multiply as _nx_multiply
from ._shape import pad_into

__all__ = ["window_sum", "window_mean", "window_max", "window_min", "window_product",
           "window_reduce", "window_scatter_max", "window_scatter_min", "conv"]


# -- geometry ------------------------------------------------------------------------------------

def _window(window_dimensions, rank: int, fn: str) -> list:
    if isinstance(window_dimensions, Tensor):
        window_dimensions = window_dimensions.shape
    if not isinstance(window_dimensions, (tuple, list)) or not all(
            isinstance(w, int) and not isinstance(w, bool) and w >= 1 for w in window_dimensions):
        fail(fn, f"window dimensions must be a tuple of positive sizes, got {window_dimensions!r}")
    if len(window_dimensions) != rank:
        fail(fn, f"invalid window dimensions, rank of shape ({rank}) does not match rank of "
                 f"window ({len(window_dimensions)})")
    return list(window_dimensions)


def padding_config(shape, kernel, padding, fn: str) -> list:
    """Nx's padding modes: ``"valid"`` (none), ``"same"`` ((k - 1) split low/high, whatever
    the strides), or a list of ``(low, high)`` per dimension."""
    if padding == "valid":
        return [(0, 0)] * len(shape)
    if padding == "same":
        return [((k - 1) // 2, k - 1 - (k - 1) // 2) for k in kernel]
    if isinstance(padding, (list, tuple)) and len(padding) == len(shape) and all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in p) for p in padding):
        return [tuple(p) for p in padding]
    if isinstance(padding, (list, tuple)):
        fail(fn, f"padding must be a list of (low, high) tuples, one per dimension ("
                 f"{len(shape)}), where each element is an integer. Got: {padding!r}")
    fail(fn, f"invalid padding mode specified, padding must be one of \"valid\", \"same\", or a "
             f"padding configuration, got: {padding!r}")


def _geometry(t: Tensor, window_dimensions, strides, padding, dilations, fn: str):
    """(window, strides, dilations, padding config, output shape) of a window op on ``t``."""
    rank = t.ndim
    window = _window(window_dimensions, rank, fn)
    strides = int_list(1 if strides is None else strides, rank, fn, "strides", 1)
    dilations = int_list(1 if dilations is None else dilations, rank, fn, "window_dilations", 1)
    eff = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
    config = padding_config(t.shape, eff, padding, fn)
    out = []
    for n, (lo, hi), k, s in zip(t.shape, config, eff, strides):
        size = (n + lo + hi - k) // s + 1
        if n + lo + hi - k < 0 or size <= 0:
            fail(fn, "window dimensions would result in empty tensor which is not currently "
                     "supported in Nx, please open an issue if you'd like this behavior to change")
        out.append(size)
    return window, strides, dilations, config, tuple(out)


def _padded(t: Tensor, config, value, fn: str) -> Tensor:
    if all(lo == 0 and hi == 0 for lo, hi in config):
        return t
    fill = operand_as(value, t.dtype, t.device, fn)
    return pad_into(t, fill, [(lo, hi, 0) for lo, hi in config], fn)


def _views(x: Tensor, window, strides, dilations, out_shape):
    """One strided view of ``x`` per window position, in row-major window order."""
    steps = tuple(st * s for st, s in zip(x.strides, strides))
    for q in itertools.product(*(range(w) for w in window)):
        offset = x.offset + sum(i * d * st for i, d, st in zip(q, dilations, x.strides))
        yield x._view(out_shape, steps, offset)


def _identity(op: str, dt):
    """The padding value that never changes ``op``'s result."""
    if op == "sum":
        return 0
    if op == "product":
        return 1
    if dt.kind == "f":
        return -math.inf if op == "max" else math.inf
    info = _d.iinfo(dt)
    return info.min if op == "max" else info.max


# the backend primitive's op names
_PRIMITIVE_OP = {"sum": "sum", "product": "prod", "max": "max", "min": "min"}


def _copy(x: Tensor, names=None) -> Tensor:
    out = empty(x.shape, x.dtype, x.device, names=names)
    if out.size:
        x._backend.copy(out, x)
    return out


def _native(op: str, t: Tensor, window, strides, dilations, config, out_shape, fn: str,
            fill=None):
    """``op`` over the windows of ``t`` padded with ``fill`` (default: the op's identity): one
    ``window_reduce``."""
    x = _padded(t, config, _identity(op, t.dtype) if fill is None else fill, fn)
    out = empty(out_shape, t.dtype, t.device, names=t.names)
    if out.size:
        t.device.backend.window_reduce(_PRIMITIVE_OP[op], out, x, tuple(window),
                                       tuple(strides), tuple(dilations))
    return out


def _window_op(op: str, tensor, window_dimensions, strides, padding, window_dilations,
               fn: str) -> Tensor:
    t = to_tensor(tensor, fn)
    if op in ("max", "min") and t.dtype.kind == "c":
        fail(fn, f"{fn} is not supported for complex types, got: {type_text(t.dtype)}",
             TypeError)
    window, strides, dilations, config, out_shape = _geometry(
        t, window_dimensions, strides, padding, window_dilations, fn)
    return _native(op, t, window, strides, dilations, config, out_shape, fn)


def _doc(what):
    return (f"The {what} over each window of ``window_dimensions``: ``strides`` (an int or one "
            f"per axis), ``padding`` (\"valid\", \"same\" or [(low, high), ...]) and "
            f"``window_dilations`` (gaps inside the window) as in Nx.")


def _make(op, name):
    def fn(tensor, window_dimensions, *, strides=1, padding="valid", window_dilations=1):
        return _window_op(op, tensor, window_dimensions, strides, padding, window_dilations,
                          name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _doc(op)
    return nx_function(fn)


window_sum = _make("sum", "window_sum")
window_product = _make("product", "window_product")
window_max = _make("max", "window_max")
window_min = _make("min", "window_min")


@nx_function
def window_mean(tensor, window_dimensions, *, strides=1, padding="valid",
                window_dilations=1) -> Tensor:
    """The mean over each window (its sum divided by the window's size, padding included)."""
    fn = "window_mean"
    total = _window_op("sum", tensor, window_dimensions, strides, padding, window_dilations, fn)
    dt = to_floating(total.dtype)
    n = math.prod(_window(window_dimensions, total.ndim, fn))
    return strong(_ew.divide(strong(total, dt), operand_as(n, dt, total.device, fn)))


# window_reduce functions that are a built-in fold (nx's and the core's, unwrapped)
_BUILTIN_FOLD = {inspect.unwrap(f): op for f, op in (
    (_nx_add, "sum"), (_nx_multiply, "product"), (_nx_max, "max"), (_nx_min, "min"),
    (_ew.add, "sum"), (_ew.multiply, "product"), (_ew.maximum, "max"),
    (_ew.minimum, "min"))}


def _builtin(fun, acc, dt):
    """The window op of ``fun`` when folding from ``acc`` gives exactly the native fold (the
    first step returns the first element), else None (the user's function path).  A float sum
    from +0.0 differs only where every element is -0.0, which adding ``acc`` afterwards
    fixes; complex products from 1 are not exact (inf * 0 is NaN)."""
    op = _BUILTIN_FOLD.get(inspect.unwrap(fun)) if callable(fun) else None
    if op is None or acc.__class__ not in (int, float) or (dt.kind == "c" and op != "sum"):
        return None
    want = {"sum": 0, "product": 1}.get(op)
    if want is None:
        want = _identity(op, dt)
    return op if acc == want else None


@nx_function
def window_reduce(tensor, acc, window_dimensions, fun, *, strides=1, padding="valid",
                  window_dilations=1) -> Tensor:
    """Reduces each window with ``fun(x, acc)`` starting from ``acc`` (also the padding
    value), in the window's row-major order; ``fun`` works on whole tensors, once per window
    position (a built-in add/multiply/max/min from its identity runs as one window kernel)."""
    fn = "window_reduce"
    if not callable(fun):
        fail(fn, f"expected a function of two tensors, got {fun!r}", TypeError)
    t = to_tensor(tensor, fn)
    window, strides, dilations, config, out_shape = _geometry(
        t, window_dimensions, strides, padding, window_dilations, fn)
    op = _builtin(fun, acc, t.dtype)
    if op is not None:
        out = _native(op, t, window, strides, dilations, config, out_shape, fn, acc)
        if op == "sum" and t.dtype.kind in "fc":  # acc + x0 + ...: +0.0 turns -0.0 to +0.0
            out = _ew.add(out, operand_as(acc, t.dtype, t.device, fn))
            out = out._view(out.shape, out.strides, out.offset, names=t.names)
        return strong(out)
    (a,), dev = prepare((acc,), fn)
    x = _padded(t, config, a, fn)
    result = operand_as(a, t.dtype, t.device, fn)
    for v in _views(x, window, strides, dilations, out_shape):
        y = fun(v, result)
        result = strong(y, t.dtype) if isinstance(y, Tensor) else \
            operand_as(y, t.dtype, t.device, fn)
    if result.shape != out_shape:
        result = _r.broadcast_to(result, out_shape)
    return _copy(result, t.names)


def _window_scatter(select: str, tensor, source, init_value, window_dimensions, strides,
                    padding, fn: str) -> Tensor:
    t, src = to_tensor(tensor, fn), to_tensor(source, fn)
    (init,), _ = prepare((init_value,), fn)
    if isinstance(init, Tensor) and init.ndim:
        fail(fn, "init_value must be a scalar")
    dt = merge(src, init)
    if dt.kind == "c" or t.dtype.kind == "c":
        fail(fn, f"{fn} is not supported for complex types", TypeError)
    window, strides, dilations, config, out_shape = _geometry(
        t, window_dimensions, strides, padding, 1, fn)
    if src.shape != out_shape:
        fail(fn, "source shape must match valid windows in input tensor")
    dev = t.device
    x = _padded(t, config, init, fn)
    # one window_scatter: Nx's selection (the last element comparing >= (<=) to the one
    # selected so far), the sources added in the windows' order from 0, then init_value
    out = empty(x.shape, dt, dev)
    if out.size:
        dev.backend.window_scatter(select, out, x, operand_as(src, dt, dev, fn), tuple(window),
                                   tuple(strides), tuple(dilations))
    offset = sum(lo * st for (lo, _), st in zip(config, out.strides))
    inner = out._view(t.shape, out.strides, offset)  # the padding's share is dropped
    result = _ew.add(operand_as(init, dt, dev, fn), inner)
    return result._view(result.shape, result.strides, result.offset, names=t.names)


@nx_function
def window_scatter_max(tensor, source, init_value, window_dimensions, *, strides=1,
                       padding="valid") -> Tensor:
    """Scatters (adds) ``source`` onto a tensor of ``init_value`` at the maximum of each
    window of ``tensor`` (the gradient of ``window_max``)."""
    return _window_scatter("max_last", tensor, source, init_value, window_dimensions,
                           strides, padding, "window_scatter_max")


@nx_function
def window_scatter_min(tensor, source, init_value, window_dimensions, *, strides=1,
                       padding="valid") -> Tensor:
    """Scatters (adds) ``source`` at the minimum of each window (the gradient of
    ``window_min``)."""
    return _window_scatter("min_last", tensor, source, init_value, window_dimensions,
                           strides, padding, "window_scatter_min")


# -- conv ----------------------------------------------------------------------------------------

def _perm(t: Tensor, perm, fn: str, what: str) -> list:
    if perm is None:
        return list(range(t.ndim))
    order = [axis_index(t, a, fn) for a in perm]
    if sorted(order) != list(range(t.ndim)):
        fail(fn, f"{what} must be a permutation of the {t.ndim} axes, got {list(perm)}")
    return order


@nx_function
def conv(tensor, kernel, *, strides=1, padding="valid", input_dilation=1, kernel_dilation=1,
         feature_group_size=1, batch_group_size=1, input_permutation=None,
         kernel_permutation=None, output_permutation=None) -> Tensor:
    """An n-D convolution (cross-correlation, as in neural networks) of ``tensor``
    (batch, channels, spatial...) with ``kernel`` (out channels, channels / feature groups,
    spatial...); the result is floating (batch / batch groups, out channels, spatial...)."""
    fn = "conv"
    t, k = to_tensor(tensor, fn), to_tensor(kernel, fn)
    if t.ndim < 3:
        fail(fn, f"input shape in conv requires at least rank 3, shape {t.shape} has rank "
                 f"{t.ndim}")
    if k.ndim < 3:
        fail(fn, f"kernel shape in conv requires at least rank 3, shape {k.shape} has rank "
                 f"{k.ndim}")
    if t.ndim != k.ndim:
        fail(fn, f"the input (rank {t.ndim}) and the kernel (rank {k.ndim}) must have the same "
                 f"rank")
    dt = to_floating(merge(t, k))
    in_perm = _perm(t, input_permutation, fn, "input_permutation")
    k_perm = _perm(k, kernel_permutation, fn, "kernel_permutation")
    out_perm = _perm(t, output_permutation, fn, "output_permutation")
    t = _r.permute(strong(t, dt), in_perm)
    k = _r.permute(strong(k, dt), k_perm)
    m = t.ndim - 2
    if isinstance(strides, list) and len(strides) != m:
        fail(fn, f"rank of strides much match rank of spatial dimensions got strides "
                 f"{strides} with rank {len(strides)} and got input shape {t.shape} of rank {m}")
    strides = int_list(strides, m, fn, "strides", 1)
    in_dil = int_list(input_dilation, m, fn, "input dilation", 1)
    k_dil = int_list(kernel_dilation, m, fn, "kernel dilation", 1)
    fg, bg = feature_group_size, batch_group_size
    batch, channels = t.shape[:2]
    out_ch, k_ch = k.shape[:2]
    if fg != 1 and bg != 1:
        fail(fn, f"either batch groups or feature groups must be 1, got batch_groups = {bg} and "
                 f"feature_groups = {fg}")
    if batch % bg:
        fail(fn, f"batch groups must evenly divide input batch size got rem({bg}, {batch}) != 0")
    if out_ch % fg:
        fail(fn, f"size of kernel output channels must be evenly divisible by feature groups "
                 f"got rem({out_ch}, {fg}) != 0 for kernel with shape {k.shape}")
    if out_ch % bg:
        fail(fn, f"size of kernel output channels must be evenly divisible by batch groups got "
                 f"rem({out_ch}, {bg}) != 0 for kernel with shape {k.shape}")
    if channels != k_ch * fg:
        fail(fn, f"size of input channels divided by feature groups must match size of kernel "
                 f"channels, got {channels} / {fg} != {k_ch} for shapes {t.shape} and {k.shape}")
    spatial = t.shape[2:]
    ksize = k.shape[2:]
    dilated = [n + (n - 1) * (d - 1) if n else 0 for n, d in zip(spatial, in_dil)]
    eff = [(kk - 1) * d + 1 for kk, d in zip(ksize, k_dil)]
    config = padding_config(dilated, eff, padding, fn)
    out_sp = []
    for n, (lo, hi), e, s in zip(dilated, config, eff, strides):
        size = (n + lo + hi - e) // s + 1
        if n + lo + hi - e < 0 or size <= 0:
            fail(fn, "conv would result in empty tensor which is not currently supported in Nx, "
                     "please open an issue if you'd like this behavior to change")
        out_sp.append(size)
    # dilate and pad the input in one write into a zero-filled buffer
    cfg = [(0, 0, 0), (0, 0, 0)] + [(lo, hi, d - 1) for (lo, hi), d in zip(config, in_dil)]
    zero = operand_as(0, dt, t.device, fn)
    x = t if all(c == (0, 0, 0) for c in cfg) else pad_into(t, zero, cfg, fn)
    # im2col: patches (batch, channels, kernel positions..., out positions...) are one strided
    # view of the input (the kernel positions step by the dilations, the output positions by
    # the strides), copied in one kernel
    kpos = math.prod(ksize)
    positions = math.prod(out_sp)
    xs = x.strides
    patch_view = x._view((batch, channels) + tuple(ksize) + tuple(out_sp),
                         xs[:2] + tuple(st * d for st, d in zip(xs[2:], k_dil))
                         + tuple(st * s for st, s in zip(xs[2:], strides)), x.offset)
    patches = _copy(patch_view)
    if fg > 1:
        cols = _r.reshape(patches, (batch, fg, (channels // fg) * kpos, positions))
        w = _r.reshape(k, (fg, out_ch // fg, k_ch * kpos))
        out = _la.matmul(w, cols)  # (batch, fg, out_ch / fg, positions)
        out = _r.reshape(out, (batch, out_ch, positions))
    elif bg > 1:
        cols = _r.reshape(patches, (bg, batch // bg, channels * kpos, positions))
        w = _r.reshape(k, (bg, 1, out_ch // bg, k_ch * kpos))
        out = _la.matmul(w, cols)  # (bg, batch / bg, out_ch / bg, positions)
        out = _r.reshape(_r.permute(out, (1, 0, 2, 3)), (batch // bg, out_ch, positions))
    else:
        cols = _r.reshape(patches, (batch, channels * kpos, positions))
        out = _la.matmul(_r.reshape(k, (out_ch, k_ch * kpos)), cols)
    out = _r.reshape(strong(out), (batch // bg, out_ch) + tuple(out_sp))
    names = [names_of(tensor if isinstance(tensor, Tensor) else t)[i] for i in in_perm] \
        if isinstance(tensor, Tensor) else [None] * t.ndim
    out = out._view(out.shape, out.strides, out.offset, names=norm_names(names))
    inverse = [out_perm.index(i) for i in range(len(out_perm))]
    return _r.permute(out, inverse) if inverse != list(range(out.ndim)) else out
