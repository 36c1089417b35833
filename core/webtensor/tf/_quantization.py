"""TensorFlow's quantization ops: ``quantize_v2`` / ``dequantize`` / ``quantized_concat`` and the
``fake_quant_*`` family with its gradients.

webtensor has no ``qint8``/``quint8``/... dtypes: quantized tensors are plain integer tensors of
the same width (``qint8 -> int8``, ``quint8 -> uint8``, ``qint16 -> int16``, ``quint16 ->
uint16``, ``qint32 -> int32``; the TensorFlow names are accepted as strings wherever a quantized
type is asked for) and, as in TensorFlow, the ops that produce them return ``(output,
output_min, output_max)`` with the float32 range the integers stand for.

The range bookkeeping (TensorFlow's adjustment of min/max, the fake-quant "nudging" of min/max
onto the integer grid) is scalar work done on the host with float32 rounding after every
operation, exactly as TensorFlow's C++ does it in ``float``; the per-element work composes
webtensor's elementwise ops in float32 (float64 for MIN_FIRST, whose pseudo-code in the guide
computes in double), so it runs on every device.
"""

from __future__ import annotations

import math
import struct

import webtensor as wt

from .. import dtypes as _d
from ..tensor import Tensor
from ._gathering import _axis, _host_int, _tensor, _tf, _unwrap
from .errors import InvalidArgumentError, UnimplementedError

__all__ = [
    "dequantize",
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
    "quantize_v2",
    "quantized_concat",
]

# TensorFlow's quantized types and the integer dtype that stores each here.
QUANTIZED_TYPES = {"qint8": _d.int8, "quint8": _d.uint8, "qint16": _d.int16,
                   "quint16": _d.uint16, "qint32": _d.int32}
_STORAGE = tuple(QUANTIZED_TYPES.values())
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
_FLOAT32_MAX = 3.4028234663852886e38


def f32(x: float) -> float:
    """``x`` rounded to float32 (what a C++ ``float`` holds); overflow gives +-inf."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _quantized_dtype(t, fn: str, arg: str = "T"):
    if isinstance(t, str) and t in QUANTIZED_TYPES:
        return QUANTIZED_TYPES[t]
    try:
        dt = wt.dtype(t)
    except (TypeError, ValueError):
        dt = None
    if dt not in _STORAGE:
        names = ", ".join(f"{q} ({s.name})" for q, s in QUANTIZED_TYPES.items())
        raise TypeError(f"{_tf(fn)}: `{arg}`={t!r} is not a quantized type; use one of {names}")
    return dt


def _mode(mode, fn: str) -> str:
    mode = "MIN_COMBINED" if mode is None else mode
    if mode not in _MODES:
        raise ValueError(f"{_tf(fn)}: `mode` must be one of {', '.join(_MODES)}, got {mode!r}")
    return mode


def _host_float(x, fn: str, arg: str) -> float:
    """A float32 scalar parameter (Python number or one-element tensor) as a Python float."""
    x = _unwrap(x)
    if isinstance(x, (list, tuple)):
        x = wt.asarray(x, dtype=wt.float32)
    if isinstance(x, Tensor):
        if x.size != 1:
            raise InvalidArgumentError(_tf(fn), f"`{arg}` must be a scalar, got shape "
                                       f"{list(x.shape)}")
        x = wt.reshape(x, ()).item()
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{_tf(fn)}: `{arg}` must be a float, got {type(x).__name__}")
    if not math.isfinite(x):
        raise InvalidArgumentError(_tf(fn), f"`{arg}` must be finite, got {x}; a quantization "
                                            f"range needs finite ends")
    return f32(float(x))


def _float_input(x, fn: str, arg: str = "input") -> Tensor:
    t = _tensor(x, fn, arg, dtype=None if isinstance(x, Tensor) else wt.float32)
    if t.dtype != wt.float32:
        raise TypeError(f"{_tf(fn)}: `{arg}` must be float32, got {t.dtype.name}; cast it with "
                        f"tf.cast({arg}, tf.float32)")
    return t


def _scalar(value: float, device) -> Tensor:
    return wt.asarray(value, dtype=wt.float32, device=device)


def _round_half_away(x: Tensor) -> Tensor:
    """C's ``round``: halves go away from zero (``wt.round`` rounds them to even).  Written
    with ``trunc`` because ``x - trunc(x)`` is exact, where ``floor(|x| + 0.5)`` can round
    up below one half."""
    whole = wt.trunc(x)
    frac = x - whole
    return wt.where(wt.greater_equal(wt.abs(frac), 0.5), whole + wt.sign(x), whole)


def _bounds(dt) -> tuple:
    info = wt.iinfo(dt)
    return info.min, info.max


# -- quantize_v2 / dequantize ----------------------------------------------------------------

def _adjusted_range(lo: float, hi: float, minimum_range: float = 0.01) -> tuple:
    """TensorFlow widens the requested range to contain 0 and to span at least
    ``ensure_minimum_range`` times the largest magnitude (at least 1), so that the quantized
    buffer is never degenerate."""
    lo_adj = min(0.0, lo)
    epsilon = f32(max(1.0, max(abs(lo), abs(hi))) * f32(minimum_range))
    hi_adj = max(0.0, max(hi, f32(lo_adj + epsilon)))
    return lo_adj, hi_adj


def _min_first_quantize(x: Tensor, lo: float, hi: float, dt) -> Tensor:
    """The guide's MIN_FIRST formula, in double: round(x*scale) - round(lo*scale) + lowest,
    clamped to ``dt``."""
    low_q, high_q = _bounds(dt)
    if lo == hi:
        return wt.full(x.shape, low_q, dtype=dt, device=x.device)
    steps = 1 << dt.bits
    scale = steps / ((hi - lo) * (steps / (steps - 1.0)))
    q = _round_half_away(wt.astype(x, wt.float64) * scale)
    q = q - (_round_half_away_py(lo * scale) - low_q)
    return wt.astype(wt.clip(q, float(low_q), float(high_q)), dt)


def _round_half_away_py(v: float) -> float:
    return math.copysign(math.floor(abs(v) + 0.5), v) if abs(v) < 2.0 ** 52 else v


def _min_first_dequantize(q: Tensor, lo: float, hi: float) -> Tensor:
    """The guide's MIN_FIRST inverse, in double: lo + (q - lowest) * range / steps."""
    if lo == hi:
        return wt.full(q.shape, lo, dtype=wt.float32, device=q.device)
    steps = 1 << q.dtype.bits
    scale = (hi - lo) * (steps / (steps - 1.0)) / steps
    offset = wt.astype(q, wt.float64) - float(_bounds(q.dtype)[0])
    return wt.astype(offset * scale + lo, wt.float32)


def _scaled_factor(dt, lo: float, hi: float, narrow_range: bool) -> tuple:
    """SCALED mode's symmetric scale (TensorFlow >= 1.15): the largest factor that maps
    ``[lo, hi]`` inside the integer range (one step narrower with ``narrow_range``), and the
    integer range's ends."""
    low_q, high_q = _bounds(dt)
    if narrow_range:
        low_q += 1
    # C++ converts the integers to float before dividing: f32() them first.
    from_min = f32(f32(low_q) / lo) if low_q * lo > 0 else _FLOAT32_MAX
    from_max = f32(f32(high_q) / hi) if high_q * hi > 0 else _FLOAT32_MAX
    return min(from_min, from_max), low_q, high_q


_ROUND_MODES = ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN")


def _axis_ranges(value, n: int, fn: str, arg: str) -> list:
    """Per-slice range ends: ``value`` must hold exactly ``n`` floats (1-D)."""
    value = _unwrap(value)
    if isinstance(value, Tensor):
        values = value.tolist() if value.ndim == 1 else None
    elif isinstance(value, (list, tuple)):
        values = list(value)
    else:
        values = None
    if values is None or len(values) != n:
        raise InvalidArgumentError(_tf(fn), f"with `axis` given, `{arg}` must be a 1-D tensor "
                                   f"whose size ({'?' if values is None else len(values)}) "
                                   f"matches the axis dimension of the input ({n})")
    return [_host_float(v, fn, f"{arg}[{i}]") for i, v in enumerate(values)]


def _per_channel(values: list, shape_for: tuple, device) -> Tensor:
    """Per-channel floats as a float32 tensor that broadcasts along the channel axis."""
    return wt.reshape(wt.asarray(values, dtype=wt.float32, device=device), shape_for)


def quantize_v2(input, min_range, max_range, T, mode=None, name=None, narrow_range=False,
                round_mode="HALF_AWAY_FROM_ZERO", axis=None,
                ensure_minimum_range=0.01) -> tuple:
    """Quantize float32 ``input`` over ``[min_range, max_range]`` into the integer type ``T``;
    returns ``(output, output_min, output_max)`` with the range actually used.

    ``axis`` quantizes each slice along that dimension with its own range (``min_range`` and
    ``max_range`` then hold one value per slice, and so do the returned ranges);
    ``round_mode="HALF_TO_EVEN"`` (SCALED mode only) rounds ties to even;
    ``ensure_minimum_range`` sets how far the range is widened (see the docs)."""
    fn = "quantize_v2"
    x = _float_input(input, fn)
    dt = _quantized_dtype(T, fn)
    mode = _mode(mode, fn)
    if round_mode not in _ROUND_MODES:
        raise InvalidArgumentError(_tf(fn), f"`round_mode` must be one of "
                                   f"{', '.join(_ROUND_MODES)}, got {round_mode!r}")
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise InvalidArgumentError(_tf(fn), f"round_mode 'HALF_TO_EVEN' is only supported for "
                                   f"mode 'SCALED', but mode is {mode!r}")
    if narrow_range and mode != "SCALED":
        raise InvalidArgumentError(_tf(fn), f"`narrow_range` only applies to mode='SCALED', "
                                   f"got mode={mode!r}")
    if isinstance(ensure_minimum_range, bool) or not isinstance(ensure_minimum_range,
                                                                 (int, float)):
        raise TypeError(f"{_tf(fn)}: `ensure_minimum_range` must be a float, got "
                        f"{ensure_minimum_range!r}")
    if axis is None:
        channels = [(_host_float(min_range, fn, "min_range"),
                     _host_float(max_range, fn, "max_range"))]
        shape_for = ()
    else:
        ax = _host_int(axis, fn, "axis")
        if not -x.ndim <= ax < x.ndim:
            raise InvalidArgumentError(_tf(fn), f"`axis`={ax} is out of range for an input of "
                                       f"rank {x.ndim}")
        ax %= x.ndim
        if mode == "MIN_FIRST":
            raise UnimplementedError(_tf(fn), "MIN_FIRST mode is not implemented for quantize "
                                              "with an axis; use MIN_COMBINED or SCALED")
        n = x.shape[ax]
        channels = list(zip(_axis_ranges(min_range, n, fn, "min_range"),
                            _axis_ranges(max_range, n, fn, "max_range")))
        shape_for = tuple(n if d == ax else 1 for d in range(x.ndim))
    for lo_in, hi_in in channels:
        if hi_in < lo_in:
            raise InvalidArgumentError(_tf(fn), f"`max_range` ({hi_in}) must be >= `min_range` "
                                       f"({lo_in})")
    ranges = [_adjusted_range(lo, hi, ensure_minimum_range) for lo, hi in channels]
    low_q, high_q = _bounds(dt)
    if mode == "MIN_FIRST":  # (per tensor only)
        lo, hi = ranges[0]
        out = _min_first_quantize(x, lo, hi, dt)
    elif mode == "MIN_COMBINED":
        # (an empty range [0, 0], possible with ensure_minimum_range=0, scales by inf: the
        # values become NaN, which convert to 0, as in TensorFlow)
        scales = [f32((float(high_q) - float(low_q)) / f32(hi - lo)) if hi > lo else math.inf
                  for lo, hi in ranges]
        lo_t = _per_channel([lo for lo, _ in ranges], shape_for, x.device)
        hi_t = _per_channel([hi for _, hi in ranges], shape_for, x.device)
        scale_t = _per_channel(scales, shape_for, x.device)
        shifted = (wt.maximum(wt.minimum(x, hi_t), lo_t) - lo_t) * scale_t
        if dt.kind == "i":
            # NOTE: TensorFlow rounds half away from zero after shifting by half the range.
            half = f32((float(high_q) - float(low_q) + 1.0) / 2.0)
            out = wt.astype(_round_half_away(shifted - half), dt)
        else:
            # ... and for unsigned types adds 0.5 and truncates (its "fast path").
            out = wt.astype(shifted + 0.5, dt)
    else:
        scaled = [_scaled_factor(dt, lo, hi, narrow_range) for lo, hi in ranges]
        ranges = [(f32(f32(low_s) / scale), f32(f32(high_s) / scale))
                  for scale, low_s, high_s in scaled]
        lo_t = _per_channel([lo for lo, _ in ranges], shape_for, x.device)
        hi_t = _per_channel([hi for _, hi in ranges], shape_for, x.device)
        scale_t = _per_channel([scale for scale, _, _ in scaled], shape_for, x.device)
        product = wt.maximum(wt.minimum(x, hi_t), lo_t) * scale_t
        rounded = wt.round(product) if round_mode == "HALF_TO_EVEN" else \
            _round_half_away(product)
        out = wt.astype(rounded, dt)
    if axis is None:
        return out, _scalar(ranges[0][0], x.device), _scalar(ranges[0][1], x.device)
    return (out, wt.asarray([lo for lo, _ in ranges], dtype=wt.float32, device=x.device),
            wt.asarray([hi for _, hi in ranges], dtype=wt.float32, device=x.device))


def dequantize(input, min_range, max_range, mode=None, name=None, narrow_range=False) -> Tensor:
    """Float32 values of the quantized integer tensor ``input`` whose range is
    ``[min_range, max_range]`` (the inverse of ``quantize_v2`` in the same mode)."""
    fn = "dequantize"
    q = _tensor(input, fn, "input")
    _quantized_dtype(q.dtype, fn, "input.dtype")
    mode = _mode(mode, fn)
    lo, hi = _host_float(min_range, fn, "min_range"), _host_float(max_range, fn, "max_range")
    if narrow_range and mode != "SCALED":
        raise InvalidArgumentError(_tf(fn), f"`narrow_range` only applies to mode='SCALED', "
                                   f"got mode={mode!r}")
    low_q, high_q = _bounds(q.dtype)
    if mode == "MIN_COMBINED":
        scale = f32(f32(hi - lo) / f32(f32(high_q) - f32(low_q)))
        half = f32((float(high_q) - float(low_q) + 1.0) / 2.0) if q.dtype.kind == "i" else 0.0
        return (wt.astype(q, wt.float32) + half) * scale + lo
    if mode == "MIN_FIRST":
        return _min_first_dequantize(q, lo, hi)
    low_s = low_q + 1 if low_q and narrow_range else low_q
    if low_q == 0:
        scale = f32(hi / f32(high_q))
    else:
        scale = max(f32(lo / f32(low_s)), f32(hi / f32(high_q)))
    return wt.astype(q, wt.float32) * scale


def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None) -> tuple:
    """Concatenate quantized tensors with different ranges: each is requantized (MIN_FIRST
    arithmetic) into the union range, which is returned as ``(output, output_min,
    output_max)``; for signed types the range is made symmetric around 0."""
    fn = "quantized_concat"
    values, mins, maxes = list(values), list(input_mins), list(input_maxes)
    if len(values) < 2:
        raise InvalidArgumentError(_tf(fn), f"`values` needs at least 2 tensors, got "
                                   f"{len(values)}")
    if not len(mins) == len(maxes) == len(values):
        raise InvalidArgumentError(_tf(fn), f"`input_mins` ({len(mins)}) and `input_maxes` "
                                   f"({len(maxes)}) need one entry per value ({len(values)})")
    first = next((v for v in values if isinstance(v, Tensor)), None)
    device = first.device if first is not None else None
    values = [_tensor(v, fn, f"values[{i}]", device=device) for i, v in enumerate(values)]
    dt = _quantized_dtype(values[0].dtype, fn, "values[0].dtype")
    for i, v in enumerate(values):
        if v.dtype != dt:
            raise TypeError(f"{_tf(fn)}: every value must have the dtype of values[0] "
                            f"({dt.name}); values[{i}] is {v.dtype.name}")
        if v.ndim != values[0].ndim:
            raise InvalidArgumentError(_tf(fn), f"values[{i}] has rank {v.ndim} but values[0] "
                                       f"has rank {values[0].ndim}; ranks must match")
    if values[0].ndim == 0:
        raise InvalidArgumentError(_tf(fn), "scalars cannot be concatenated; reshape them to 1-D")
    axis = _axis(concat_dim, values[0].ndim, fn, "concat_dim")
    for i, v in enumerate(values):
        others = v.shape[:axis] + v.shape[axis + 1:]
        if others != values[0].shape[:axis] + values[0].shape[axis + 1:]:
            raise InvalidArgumentError(_tf(fn), f"values[{i}] has shape {list(v.shape)}, which "
                                       f"differs from values[0]'s {list(values[0].shape)} "
                                       f"outside `concat_dim` {axis}")
    ranges = [(_host_float(lo, fn, f"input_mins[{i}]"), _host_float(hi, fn, f"input_maxes[{i}]"))
              for i, (lo, hi) in enumerate(zip(mins, maxes))]
    out_lo = min(0.0, min(lo for lo, _ in ranges))
    out_hi = max(hi for _, hi in ranges)
    if dt.kind == "i":
        largest = max(abs(out_lo), abs(out_hi))
        out_lo, out_hi = -largest, largest
    parts = []
    for v, (lo, hi) in zip(values, ranges):
        if (lo, hi) != (out_lo, out_hi):
            v = _min_first_quantize(_min_first_dequantize(v, lo, hi), out_lo, out_hi, dt)
        parts.append(v)
    return wt.concat(parts, axis=axis), _scalar(out_lo, device), _scalar(out_hi, device)


# -- fake quantization -----------------------------------------------------------------------

def _quant_grid(num_bits, narrow_range, fn: str) -> tuple:
    bits = _host_int(num_bits, fn, "num_bits")
    if not 2 <= bits <= 16:
        raise InvalidArgumentError(_tf(fn), f"`num_bits` must be between 2 and 16 inclusive, "
                                   f"got {bits}")
    return (1 if narrow_range else 0), (1 << bits) - 1


def _nudge(lo: float, hi: float, quant_min: int, quant_max: int) -> tuple:
    """TensorFlow's nudging, in float32: move [lo, hi] so that 0.0 is exactly representable
    (the zero point is rounded to an integer of the grid).  Returns (min, max, scale)."""
    qmin, qmax = float(quant_min), float(quant_max)
    scale = f32(f32(hi - lo) / (qmax - qmin))
    zero_from_min = f32(qmin - f32(lo / scale))
    if zero_from_min < qmin:
        zero = quant_min
    elif zero_from_min > qmax:
        zero = quant_max
    else:
        zero = _round_half_away_py(zero_from_min)
    return f32((qmin - zero) * scale), f32((qmax - zero) * scale), scale


def _check_range(lo: float, hi: float, fn: str, where: str = "") -> None:
    if not lo < hi:
        raise InvalidArgumentError(_tf(fn), f"`min`{where} ({lo}) must be smaller than "
                                   f"`max`{where} ({hi})")


def _fake_quant(x: Tensor, nudged_min, nudged_max, scale) -> Tensor:
    """clamp to the nudged range, snap to the grid: floor((x - min) / scale + 1/2) * scale +
    min, with the reciprocal of the scale taken first as TensorFlow does."""
    inv = wt.divide(1.0, scale) if isinstance(scale, Tensor) else f32(1.0 / scale)
    clamped = wt.maximum(wt.minimum(x, nudged_max), nudged_min)
    return wt.floor((clamped - nudged_min) * inv + 0.5) * scale + nudged_min


def _inside(x: Tensor, nudged_min, nudged_max) -> Tensor:
    return wt.logical_and(wt.greater_equal(x, nudged_min), wt.less_equal(x, nudged_max))


def _masked(gradients: Tensor, mask: Tensor) -> Tensor:
    return wt.where(mask, gradients, 0.0)


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, name=None, num_bits=8,
                                 narrow_range=False) -> Tensor:
    """Float32 ``inputs`` clamped to ``[min, max]`` (nudged so 0 is on the grid) and snapped to
    the nearest of its ``2**num_bits`` steps."""
    fn = "fake_quant_with_min_max_args"
    x = _float_input(inputs, fn, "inputs")
    lo, hi = _args_range(min, max, fn)
    qmin, qmax = _quant_grid(num_bits, narrow_range, fn)
    nmin, nmax, scale = _nudge(lo, hi, qmin, qmax)
    return _fake_quant(x, nmin, nmax, scale)


def _args_range(lo, hi, fn: str) -> tuple:
    lo = -6.0 if lo is None else lo
    hi = 6.0 if hi is None else hi
    lo, hi = _host_float(lo, fn, "min"), _host_float(hi, fn, "max")
    _check_range(lo, hi, fn)
    return lo, hi


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0, max=6.0, name=None,
                                          num_bits=8, narrow_range=False) -> Tensor:
    """``gradients`` where the input lies in the nudged ``[min, max]``, else 0."""
    fn = "fake_quant_with_min_max_args_gradient"
    x = _float_input(inputs, fn, "inputs")
    g = _gradients(gradients, x, fn)
    lo, hi = _args_range(min, max, fn)
    qmin, qmax = _quant_grid(num_bits, narrow_range, fn)
    nmin, nmax, _ = _nudge(lo, hi, qmin, qmax)
    return _masked(g, _inside(x, nmin, nmax))


def _gradients(gradients, x: Tensor, fn: str) -> Tensor:
    g = _float_input(gradients, fn, "gradients")
    if g.shape != x.shape:
        raise InvalidArgumentError(_tf(fn), f"`gradients` has shape {list(g.shape)} but "
                                   f"`inputs` has shape {list(x.shape)}; they must match")
    if g.device is not x.device:
        raise ValueError(f"{_tf(fn)}: `gradients` is on {g.device.name} but `inputs` on "
                         f"{x.device.name}; move one with .to_device(...)")
    return g


def _vars_range(lo, hi, fn: str) -> tuple:
    """``(lo, hi)`` scalars; ``None`` means TensorFlow's 'both zero' case."""
    lo, hi = _host_float(lo, fn, "min"), _host_float(hi, fn, "max")
    if lo == 0.0 and hi == 0.0:
        return None
    _check_range(lo, hi, fn)
    return lo, hi


def fake_quant_with_min_max_vars(inputs, min, max, name=None, num_bits=8,
                                 narrow_range=False) -> Tensor:
    """``fake_quant_with_min_max_args`` with the range given as (trainable) scalar tensors; a
    range of exactly ``[0, 0]`` gives zeros, as in TensorFlow."""
    fn = "fake_quant_with_min_max_vars"
    x = _float_input(inputs, fn, "inputs")
    qmin, qmax = _quant_grid(num_bits, narrow_range, fn)
    rng = _vars_range(min, max, fn)
    if rng is None:
        return wt.zeros_like(x)
    nmin, nmax, scale = _nudge(*rng, qmin, qmax)
    return _fake_quant(x, nmin, nmax, scale)


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, name=None, num_bits=8,
                                          narrow_range=False) -> tuple:
    """``(d_inputs, d_min, d_max)``: gradients inside the nudged range go to the input, those
    below it are summed into ``d_min`` and those above into ``d_max``."""
    fn = "fake_quant_with_min_max_vars_gradient"
    x = _float_input(inputs, fn, "inputs")
    g = _gradients(gradients, x, fn)
    qmin, qmax = _quant_grid(num_bits, narrow_range, fn)
    rng = _vars_range(min, max, fn)
    zero = wt.zeros((), dtype=wt.float32, device=x.device)
    if rng is None:  # TensorFlow passes everything through to the input
        return g, zero, zero
    nmin, nmax, _ = _nudge(*rng, qmin, qmax)
    below = wt.sum(_masked(g, wt.less(x, nmin)))
    above = wt.sum(_masked(g, wt.greater(x, nmax)))
    return _masked(g, _inside(x, nmin, nmax)), below, above


def _channel_ranges(lo, hi, x: Tensor, fn: str):
    """Per-channel nudged (min, max, scale) as float32 tensors of shape [d], and a bool [d]
    mask of the channels whose range is exactly [0, 0]."""
    if x.ndim < 1:
        raise InvalidArgumentError(_tf(fn), "`inputs` must have at least 1 dimension (the last "
                                   "one holds the channels)")
    d = x.shape[-1]
    lows = _channel_values(lo, d, fn, "min")
    highs = _channel_values(hi, d, fn, "max")
    return lows, highs


def _channel_values(v, d: int, fn: str, arg: str) -> list:
    v = _unwrap(v)
    t = v if isinstance(v, Tensor) else wt.asarray(v, dtype=wt.float32)
    if t.shape != (d,):
        raise InvalidArgumentError(_tf(fn), f"`{arg}` must have shape [{d}] (one value per "
                                   f"channel of the last input dimension), got "
                                   f"{list(t.shape)}")
    if t.dtype.kind != "f":
        raise TypeError(f"{_tf(fn)}: `{arg}` must be float32, got {t.dtype.name}")
    return [f32(float(e)) for e in t.tolist()]


def _nudged_channels(lows, highs, num_bits, narrow_range, x: Tensor, fn: str) -> tuple:
    qmin, qmax = _quant_grid(num_bits, narrow_range, fn)
    nmins, nmaxs, scales, zero = [], [], [], []
    for c, (lo, hi) in enumerate(zip(lows, highs)):
        if lo == 0.0 and hi == 0.0:
            # NOTE: an unbounded range makes every input 'inside' for the gradient and the
            # forward pass overwrites the channel with zeros (TensorFlow's 'both zero' case).
            nmins.append(-math.inf)
            nmaxs.append(math.inf)
            scales.append(1.0)
            zero.append(True)
            continue
        _check_range(lo, hi, fn, f"[{c}]")
        n_lo, n_hi, scale = _nudge(lo, hi, qmin, qmax)
        nmins.append(n_lo)
        nmaxs.append(n_hi)
        scales.append(scale)
        zero.append(False)

    def vec(values, dtype=wt.float32):
        return wt.asarray(values, dtype=dtype, device=x.device)

    return vec(nmins), vec(nmaxs), vec(scales), vec(zero, wt.bool), any(zero)


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, name=None, num_bits=8,
                                             narrow_range=False) -> Tensor:
    """Fake quantization with a separate ``[min[c], max[c]]`` for each channel ``c`` of the
    last dimension of ``inputs``."""
    fn = "fake_quant_with_min_max_vars_per_channel"
    x = _float_input(inputs, fn, "inputs")
    lows, highs = _channel_ranges(min, max, x, fn)
    nmin, nmax, scale, zero, any_zero = _nudged_channels(lows, highs, num_bits, narrow_range,
                                                         x, fn)
    if not any_zero:
        return _fake_quant(x, nmin, nmax, scale)
    # Zero channels are computed on a harmless range and then overwritten.
    nmin, nmax = wt.where(zero, 0.0, nmin), wt.where(zero, 1.0, nmax)
    return wt.where(zero, 0.0, _fake_quant(x, nmin, nmax, scale))


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, name=None,
                                                      num_bits=8, narrow_range=False) -> tuple:
    """``(d_inputs, d_min, d_max)`` per channel: ``d_min[c]`` / ``d_max[c]`` sum the gradients
    of channel ``c`` below / above its nudged range."""
    fn = "fake_quant_with_min_max_vars_per_channel_gradient"
    x = _float_input(inputs, fn, "inputs")
    g = _gradients(gradients, x, fn)
    lows, highs = _channel_ranges(min, max, x, fn)
    nmin, nmax, _, _, _ = _nudged_channels(lows, highs, num_bits, narrow_range, x, fn)
    axes = tuple(range(x.ndim - 1))
    below = wt.sum(_masked(g, wt.less(x, nmin)), axis=axes)
    above = wt.sum(_masked(g, wt.greater(x, nmax)), axis=axes)
    return _masked(g, _inside(x, nmin, nmax)), below, above
