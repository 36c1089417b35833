"""TensorFlow's spatial rearrangements: image patches, space <-> batch and space <-> depth.

All of them are pure data movement written as webtensor's ``pad``, ``reshape``,
``permute_dims`` and strided slicing, so they run on every device, keep the dtype and need no
kernel of their own.  Layouts are TensorFlow's: NHWC images, and for the ``_nd`` forms
``[batch] + spatial_shape + remaining_shape``.  Size parameters (block shapes, paddings, crops)
are small host values; they may be given as lists or integer tensors.
"""

from __future__ import annotations

import math

import webtensor as wt

from ..tensor import Tensor
from ._gathering import _host_int, _host_ints, _tensor, _tf
from .errors import InvalidArgumentError

__all__ = [
    "batch_to_space",
    "batch_to_space_nd",
    "depth_to_space",
    "extract_image_patches",
    "required_space_to_batch_paddings",
    "space_to_batch",
    "space_to_batch_nd",
    "space_to_depth",
]


def _vector(x, fn: str, arg: str, length=None) -> list:
    v = _host_ints(x, fn, arg)
    if not isinstance(v, list) or any(isinstance(e, list) for e in v):
        raise InvalidArgumentError(_tf(fn), f"`{arg}` must be a 1-D list of integers, got {v!r}")
    if length is not None and len(v) != length:
        raise InvalidArgumentError(_tf(fn), f"`{arg}` must have {length} entries, got {v!r}")
    return v


def _pairs(x, fn: str, arg: str, m: int) -> list:
    v = _host_ints(x, fn, arg)
    if (not isinstance(v, list) or len(v) != m
            or any(not isinstance(p, list) or len(p) != 2 or isinstance(p[0], list) for p in v)):
        raise InvalidArgumentError(_tf(fn), f"`{arg}` must have shape [{m}, 2] (a [start, end] "
                                   f"pair per spatial dimension), got {v!r}")
    if any(e < 0 for p in v for e in p):
        raise InvalidArgumentError(_tf(fn), f"every entry of `{arg}` must be >= 0, got {v!r}")
    return v


def _rank_at_least(x: Tensor, rank: int, fn: str, what: str) -> None:
    if x.ndim < rank:
        raise InvalidArgumentError(_tf(fn), f"`input` must have rank >= {rank} ({what}), got "
                                   f"shape {list(x.shape)}")


def _block_size(block_size, fn: str) -> int:
    b = _host_int(block_size, fn, "block_size")
    if b < 2:
        raise InvalidArgumentError(_tf(fn), f"`block_size` must be at least 2, got {b}")
    return b


def _rank4(x: Tensor, fn: str) -> None:
    if x.ndim != 4:
        raise InvalidArgumentError(_tf(fn), f"`input` must be 4-D [batch, height, width, "
                                   f"depth], got shape {list(x.shape)}")


# -- space <-> batch -------------------------------------------------------------------------

def _block_shape(block_shape, fn: str) -> list[int]:
    block = _vector(block_shape, fn, "block_shape")
    if any(b < 1 for b in block):
        raise InvalidArgumentError(_tf(fn), f"every entry of `block_shape` must be >= 1, got "
                                   f"{block}")
    return block


def space_to_batch_nd(input, block_shape, paddings, name=None) -> Tensor:
    """Zero-pad the spatial dimensions ``1..M``, cut them into blocks of ``block_shape`` and
    move the position inside the block into the batch dimension (block position major)."""
    fn = "space_to_batch_nd"
    x = _tensor(input, fn, "input")
    block = _block_shape(block_shape, fn)
    m = len(block)
    pads = _pairs(paddings, fn, "paddings", m)
    _rank_at_least(x, m + 1, fn, f"a batch dimension plus {m} spatial ones")
    batch, spatial, rest = x.shape[0], x.shape[1:m + 1], x.shape[m + 1:]
    padded_shape = [n + p[0] + p[1] for n, p in zip(spatial, pads)]
    for i, (n, b) in enumerate(zip(padded_shape, block)):
        if n % b:
            raise InvalidArgumentError(_tf(fn), f"padded spatial dimension {i + 1} has size {n} "
                                       f"(input {spatial[i]} + paddings {pads[i]}), which "
                                       f"block_shape[{i}]={b} does not divide; adjust "
                                       f"`paddings` (tf.required_space_to_batch_paddings)")
    if any(p[0] or p[1] for p in pads):
        x = wt.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * len(rest))
    split = [batch]
    for n, b in zip(padded_shape, block):
        split += [n // b, b]
    x = wt.reshape(x, tuple(split) + rest)
    # block offsets first, then batch, then the block grid, then the remaining dimensions
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    x = wt.permute_dims(x, tuple(perm))
    grid = tuple(n // b for n, b in zip(padded_shape, block))
    return wt.reshape(x, (batch * math.prod(block),) + grid + rest)


def space_to_batch(input, paddings, block_size, name=None) -> Tensor:
    """The 4-D form of ``space_to_batch_nd`` with a square ``block_size`` (>= 2)."""
    fn = "space_to_batch"
    x = _tensor(input, fn, "input")
    _rank4(x, fn)
    b = _block_size(block_size, fn)
    return space_to_batch_nd(x, [b, b], paddings)


def batch_to_space_nd(input, block_shape, crops, name=None) -> Tensor:
    """The inverse of ``space_to_batch_nd``: move blocks of the batch dimension back into the
    spatial dimensions ``1..M``, then crop them by ``crops``."""
    fn = "batch_to_space_nd"
    x = _tensor(input, fn, "input")
    block = _block_shape(block_shape, fn)
    m = len(block)
    crop = _pairs(crops, fn, "crops", m)
    _rank_at_least(x, m + 1, fn, f"a batch dimension plus {m} spatial ones")
    batch, spatial, rest = x.shape[0], x.shape[1:m + 1], x.shape[m + 1:]
    blocks = math.prod(block)
    if batch % blocks:
        raise InvalidArgumentError(_tf(fn), f"the batch dimension ({batch}) must be divisible "
                                   f"by prod(block_shape) = {blocks}")
    full = [n * b for n, b in zip(spatial, block)]
    for i, (n, c) in enumerate(zip(full, crop)):
        if c[0] + c[1] > n:
            raise InvalidArgumentError(_tf(fn), f"crops[{i}] = {c} removes more than the "
                                       f"{n} elements of spatial dimension {i + 1} "
                                       f"(input {spatial[i]} * block {block[i]})")
    out_batch = batch // blocks
    x = wt.reshape(x, tuple(block) + (out_batch,) + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = wt.reshape(wt.permute_dims(x, tuple(perm)), (out_batch,) + tuple(full) + rest)
    if any(c[0] or c[1] for c in crop):
        x = x[(slice(None),) + tuple(slice(c[0], n - c[1]) for n, c in zip(full, crop))]
    return x


def batch_to_space(input, crops, block_size, name=None) -> Tensor:
    """The 4-D form of ``batch_to_space_nd`` with a square ``block_size`` (>= 2)."""
    fn = "batch_to_space"
    x = _tensor(input, fn, "input")
    _rank4(x, fn)
    b = _block_size(block_size, fn)
    return batch_to_space_nd(x, [b, b], crops)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None) -> tuple:
    """``(paddings, crops)``, int32 of shape ``[N, 2]``: the least end padding on top of
    ``base_paddings`` that makes ``block_shape`` divide the padded ``input_shape``, and the
    crops that undo it."""
    fn = "required_space_to_batch_paddings"
    shape = _host_ints(input_shape, fn, "input_shape")
    block = _host_ints(block_shape, fn, "block_shape")
    for arg, v in (("input_shape", shape), ("block_shape", block)):
        if not isinstance(v, list) or any(isinstance(e, list) for e in v):
            raise ValueError(f"{_tf(fn)}: `{arg}` must be 1-D, got {v!r}")
    n = len(block)
    if len(shape) != n:
        raise ValueError(f"{_tf(fn)}: `input_shape` ({len(shape)} entries) and `block_shape` "
                         f"({n} entries) must have the same length")
    if any(b < 1 for b in block):
        raise ValueError(f"{_tf(fn)}: every entry of `block_shape` must be >= 1, got {block}")
    if base_paddings is None:
        base = [[0, 0] for _ in range(n)]
    else:
        base = _host_ints(base_paddings, fn, "base_paddings")
        if (not isinstance(base, list) or len(base) != n
                or any(not isinstance(p, list) or len(p) != 2 for p in base)):
            raise ValueError(f"{_tf(fn)}: `base_paddings` must have shape [{n}, 2], got "
                             f"{base!r}")
    paddings, crops = [], []
    for size, b, (start, end) in zip(shape, block, base):
        extra = (-(size + start + end)) % b
        paddings.append([start, end + extra])
        crops.append([0, extra])
    device = next((t.device for t in (input_shape, block_shape, base_paddings)
                   if isinstance(t, Tensor)), None)
    return (wt.reshape(wt.asarray(paddings, dtype=wt.int32, device=device), (n, 2)),
            wt.reshape(wt.asarray(crops, dtype=wt.int32, device=device), (n, 2)))


# -- space <-> depth -------------------------------------------------------------------------

_DATA_FORMATS = ("NHWC", "NCHW")


def _channels_last(x: Tensor, data_format, fn: str) -> tuple:
    """``x`` in NHWC layout and whether it came as NCHW (``data_format``)."""
    if data_format not in _DATA_FORMATS:
        if not isinstance(data_format, str):
            raise TypeError(f"{_tf(fn)}: `data_format` must be 'NHWC' or 'NCHW', got "
                            f"{data_format!r}")
        raise InvalidArgumentError(_tf(fn), f"`data_format`={data_format!r} is not supported; "
                                   f"use 'NHWC' or 'NCHW' ('NCHW_VECT_C' is not supported)")
    nchw = data_format == "NCHW"
    return (wt.permute_dims(x, (0, 2, 3, 1)) if nchw else x), nchw


def _back(x: Tensor, nchw: bool) -> Tensor:
    return wt.permute_dims(x, (0, 3, 1, 2)) if nchw else x


def space_to_depth(input, block_size, name=None, data_format="NHWC") -> Tensor:
    """``[b, h, w, d] -> [b, h/bs, w/bs, bs*bs*d]``: each ``bs x bs`` block becomes the depth
    vector, rows of the block first.  ``data_format="NCHW"`` takes and gives ``[b, d, h, w]``
    (the same rearrangement with channels first)."""
    fn = "space_to_depth"
    x = _tensor(input, fn, "input")
    _rank4(x, fn)
    bs = _block_size(block_size, fn)
    x, nchw = _channels_last(x, data_format, fn)
    b, h, w, d = x.shape
    if h % bs or w % bs:
        raise InvalidArgumentError(_tf(fn), f"height {h} and width {w} must both be divisible "
                                   f"by block_size {bs}")
    x = wt.reshape(x, (b, h // bs, bs, w // bs, bs, d))
    x = wt.permute_dims(x, (0, 1, 3, 2, 4, 5))
    return _back(wt.reshape(x, (b, h // bs, w // bs, bs * bs * d)), nchw)


def depth_to_space(input, block_size, name=None, data_format="NHWC") -> Tensor:
    """The inverse of ``space_to_depth``: ``[b, h, w, d] -> [b, h*bs, w*bs, d/(bs*bs)]``
    (``[b, d, h, w]`` in and out with ``data_format="NCHW"``)."""
    fn = "depth_to_space"
    x = _tensor(input, fn, "input")
    _rank4(x, fn)
    bs = _block_size(block_size, fn)
    x, nchw = _channels_last(x, data_format, fn)
    b, h, w, d = x.shape
    if d % (bs * bs):
        raise InvalidArgumentError(_tf(fn), f"depth {d} must be divisible by block_size^2 = "
                                   f"{bs * bs}")
    x = wt.reshape(x, (b, h, w, bs, bs, d // (bs * bs)))
    x = wt.permute_dims(x, (0, 1, 3, 2, 4, 5))
    return _back(wt.reshape(x, (b, h * bs, w * bs, d // (bs * bs))), nchw)


# -- image patches ---------------------------------------------------------------------------

def _window(x, fn: str, arg: str) -> tuple:
    v = _vector(x, fn, arg, length=4)
    if v[0] != 1 or v[3] != 1:
        raise InvalidArgumentError(_tf(fn), f"`{arg}` must be [1, rows, cols, 1] (only the "
                                   f"spatial dimensions can be windowed), got {v}")
    if v[1] < 1 or v[2] < 1:
        raise InvalidArgumentError(_tf(fn), f"the entries of `{arg}` must be >= 1, got {v}")
    return v[1], v[2]


def _output_size(size: int, k: int, stride: int, padding: str, fn: str, dim: str) -> tuple:
    """(output size, padding before, padding after) of TensorFlow's SAME / VALID rules."""
    if padding == "VALID":
        room = size - k + stride
        out = room // stride if room >= 0 else -(-room // stride)  # C's truncating division
        if out < 0:
            raise InvalidArgumentError(_tf(fn), f"the effective {dim} patch size {k} exceeds "
                                       f"the image {dim} {size} with padding='VALID' (the "
                                       f"output size would be {out})")
        return out, 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + k - size, 0)
    return out, total // 2, total - total // 2


def extract_image_patches(images, ksizes, strides, rates, padding, name=None) -> Tensor:
    """``[batch, rows, cols, depth] -> [batch, out_rows, out_cols, krows*kcols*depth]``: each
    output pixel holds its (dilated) patch, flattened in (row, col, depth) order."""
    fn = "extract_image_patches"
    x = _tensor(images, fn, "images")
    if x.ndim != 4:
        raise InvalidArgumentError(_tf(fn), f"`images` must be 4-D [batch, rows, cols, depth], "
                                   f"got shape {list(x.shape)}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"{_tf(fn)}: `padding` must be 'SAME' or 'VALID', got {padding!r}")
    kr, kc = _window(ksizes, fn, "ksizes")
    sr, sc = _window(strides, fn, "strides")
    rr, rc = _window(rates, fn, "rates")
    b, rows, cols, d = x.shape
    eff_r, eff_c = kr + (kr - 1) * (rr - 1), kc + (kc - 1) * (rc - 1)
    out_r, top, bottom = _output_size(rows, eff_r, sr, padding, fn, "row")
    out_c, left, right = _output_size(cols, eff_c, sc, padding, fn, "col")
    shape = (b, out_r, out_c, kr * kc * d)
    if 0 in shape:
        return wt.zeros(shape, dtype=x.dtype, device=x.device)
    if top or bottom or left or right:
        x = wt.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)])
    patches = []
    for i in range(kr):
        r0 = i * rr
        for j in range(kc):
            c0 = j * rc
            patches.append(x[:, r0:r0 + (out_r - 1) * sr + 1:sr,
                             c0:c0 + (out_c - 1) * sc + 1:sc, :])
    return wt.reshape(wt.stack(patches, axis=3), shape)
