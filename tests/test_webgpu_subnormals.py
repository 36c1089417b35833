"""Subnormal float32 and bfloat16 values on the webgpu device, against the CPU device.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing.  Runs natively
(lavapipe keeps subnormals) and in the browser suite (SwiftShader flushes them to zero, which
WGSL allows), so each property below is checked on both kinds of adapter.

What must hold, with subnormal operands, on every adapter:

* Bit-level ops equal the CPU bit for bit (any NaN matches any NaN): comparisons,
  maximum/minimum, abs/negative/sign/copysign/nextafter, the predicates, ``where`` and casts
  between float32, float16, bfloat16, int32 and bool (decided on bits in the kernels).
* ``sqrt``, ``ceil``, ``floor`` and ``floor_divide`` are exact (subnormals are rescaled by
  integer operations); ``remainder`` is exact wherever the CPU's result is not subnormal.
* Every unary transcendental is within ``ULP_BOUND`` ULP (the bound of tests/test_webgpu.py);
  tiny arguments take early returns, so sin(x) = x is kept, not flushed.
* ``pow``, ``atan2``, ``hypot`` and ``logaddexp`` are within ``ULP_BOUND`` ULP wherever the
  CPU's result is not itself subnormal (a subnormal result of arithmetic is the adapter's).
* ``add``, ``subtract``, ``multiply``, ``divide`` and ``reciprocal`` give the CPU's result, or,
  on an adapter measured to flush, the result of the same op with every subnormal operand
  replaced by a zero of its sign and a subnormal result flushed the same way.
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402
from _op_records import WEBGPU_F32_ULP as ULP_BOUND
from _oracle import ulps_apart32
from webtensor import device as _device

GPU, CPU, B = webgpu_or_skip()

SMALLEST_NORMAL = 2.0 ** -126


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bf16(bits: int) -> float:
    return f32(bits << 16)


# Subnormals (smallest, odd patterns, largest), the normals next to them, and the usual edges.
_TINY_BITS = (0x00000001, 0x00000003, 0x00012345, 0x00400000, 0x007FFFFF, 0x00800000,
              0x00800001, 0x01000000)
_TINY_BF16 = (0x0001, 0x0003, 0x0040, 0x007F, 0x0080, 0x0081)
_OTHERS = (0.0, -0.0, 1.0, -1.0, 2.5, 0.5, 1e-30, 1e30, 3.4028234663852886e38, math.inf,
           -math.inf, math.nan)
FLOAT32_VALUES = [s * f32(b) for b in _TINY_BITS for s in (1.0, -1.0)] + [
    f32(bits32(v)) for v in _OTHERS]
BFLOAT16_VALUES = [s * bf16(b) for b in _TINY_BF16 for s in (1.0, -1.0)] + [
    bf16(bits32(v) >> 16) for v in _OTHERS]
VALUES = {wt.float32: FLOAT32_VALUES, wt.bfloat16: BFLOAT16_VALUES}


def is_subnormal(x: float) -> bool:
    return x != 0 and abs(x) < SMALLEST_NORMAL


def flushed(x: float) -> float:
    return math.copysign(0.0, x) if is_subnormal(x) else x


def grid(values):
    xs = [a for a in values for _ in values]
    ys = [b for _ in values for b in values]
    return xs, ys


def on_both(dt, values):
    return (wt.asarray(values, dtype=dt, device="cpu"),
            wt.asarray(values, dtype=dt, device="webgpu"))


def same_value(a, b) -> bool:
    """Equal as floats including the sign of zero; any NaN matches any NaN."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def mismatches(got: list, want: list, inputs: tuple, ulp: int = 0, skip=None) -> list:
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if same_value(g, w) or (skip is not None and skip(w)):
            continue
        if ulp and isinstance(g, float) and not math.isnan(g) and not math.isnan(w) and (
                math.isfinite(g) and math.isfinite(w)) and ulps_apart32(g, w) <= ulp:
            continue
        bad.append(f"{tuple(x[i] for x in inputs)}: gpu {g!r} cpu {w!r}")
    return bad


def adapter_flushes() -> bool:
    """Does the webgpu device compute the smallest subnormal plus zero as zero?"""
    tiny = wt.asarray([f32(1)], dtype=wt.float32, device="webgpu")
    return (tiny + 0.0).tolist() == [0.0]


FLOATS = (wt.float32, wt.bfloat16)
BIT_LEVEL_UNARY = ("abs", "negative", "positive", "sign", "isfinite", "isinf", "isnan",
                   "signbit", "logical_not", "sqrt", "ceil", "floor", "trunc", "round")
BIT_LEVEL_BINARY = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                    "maximum", "minimum", "copysign", "nextafter", "logical_and", "logical_or",
                    "floor_divide")


def routed_total() -> int:
    return sum(_device.as_device("webgpu").backend.routed.values())


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("op", BIT_LEVEL_UNARY)
def test_bit_level_unary_exact(op, dt):
    cpu, gpu = on_both(dt, VALUES[dt])
    fn = getattr(wt, op)
    routed = routed_total()
    got = fn(gpu).tolist()
    assert routed_total() == routed, f"{op}[{dt}] did not run natively"
    bad = mismatches(got, fn(cpu).tolist(), (VALUES[dt],))
    assert not bad, f"{op}[{dt}]: {bad[:5]}"


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("op", BIT_LEVEL_BINARY)
def test_bit_level_binary_exact(op, dt):
    xs, ys = grid(VALUES[dt])
    (cx, gx), (cy, gy) = on_both(dt, xs), on_both(dt, ys)
    fn = getattr(wt, op)
    routed = routed_total()
    got = fn(gx, gy).tolist()
    assert routed_total() == routed, f"{op}[{dt}] did not run natively"
    bad = mismatches(got, fn(cx, cy).tolist(), (xs, ys))
    assert not bad, f"{op}[{dt}]: {len(bad)} differ: {bad[:5]}"


# float32 bit patterns around the subnormal range (either sign), plus zeros.
_near_tiny_bits = st.integers(0, 0x01800000).flatmap(
    lambda b: st.sampled_from([b, b | 0x80000000]))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_near_tiny_bits, _near_tiny_bits), min_size=1, max_size=64))
def test_order_ops_on_random_tiny_pairs(pairs):
    """Comparisons and maximum/minimum of random subnormal/small-normal pairs, bit-exact."""
    xs = [f32(a) for a, _ in pairs]
    ys = [f32(b) for _, b in pairs]
    (cx, gx), (cy, gy) = on_both(wt.float32, xs), on_both(wt.float32, ys)
    for op in ("less", "less_equal", "equal", "maximum", "minimum"):
        fn = getattr(wt, op)
        bad = mismatches(fn(gx, gy).tolist(), fn(cx, cy).tolist(), (xs, ys))
        assert not bad, f"{op}: {bad[:3]}"


def test_where_and_copies_keep_subnormal_bits():
    vals = FLOAT32_VALUES
    cpu, gpu = on_both(wt.float32, vals)
    cond = [i % 3 == 0 for i in range(len(vals))]
    got = wt.where(wt.asarray(cond, device="webgpu"), gpu, gpu[::-1]).tolist()
    want = wt.where(wt.asarray(cond, device="cpu"), cpu, cpu[::-1]).tolist()
    assert not mismatches(got, want, (vals,))
    assert not mismatches(gpu[::2].to_device("cpu").tolist(), vals[::2], (vals[::2],))


@pytest.mark.parametrize("src,dst", [(wt.float32, wt.bfloat16), (wt.float32, wt.float16),
                                     (wt.bfloat16, wt.float32), (wt.float32, wt.int32),
                                     (wt.float32, wt.bool), (wt.bfloat16, wt.bool),
                                     (wt.bfloat16, wt.float16)], ids=str)
def test_casts_exact(src, dst):
    vals = VALUES[src]
    cpu, gpu = on_both(src, vals)
    got, want = gpu.astype(dst).tolist(), cpu.astype(dst).tolist()
    assert not mismatches(got, want, (vals,)), f"{src} -> {dst}"


def test_float16_subnormals_widen_exactly():
    """Every float16 subnormal is a normal float32; the widening goes by bits."""
    vals = [s * m * 2.0 ** -24 for m in (1, 2, 3, 0x155, 0x3FF) for s in (1.0, -1.0)]
    cpu, gpu = on_both(wt.float16, vals)
    got, want = gpu.astype(wt.float32).tolist(), cpu.astype(wt.float32).tolist()
    assert got == want == vals


_TRANSCENDENTAL_UNARY = ("exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
                         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
                         "atanh")


@pytest.mark.parametrize("op", _TRANSCENDENTAL_UNARY)
def test_transcendental_unary_of_subnormals(op):
    vals = [v for v in FLOAT32_VALUES if abs(v) < 1e-20]
    cpu, gpu = on_both(wt.float32, vals)
    fn = getattr(wt, op)
    bad = mismatches(fn(gpu).tolist(), fn(cpu).tolist(), (vals,), ulp=ULP_BOUND)
    assert not bad, f"{op}: {bad[:5]}"


def test_log_of_subnormals_is_exact_enough():
    """log of every power of two in the subnormal range (an exact multiple of ln 2)."""
    vals = [2.0 ** -k for k in range(127, 150)]
    cpu, gpu = on_both(wt.float32, vals)
    for op in ("log", "log2", "log10"):
        fn = getattr(wt, op)
        bad = mismatches(fn(gpu).tolist(), fn(cpu).tolist(), (vals,), ulp=ULP_BOUND)
        assert not bad, f"{op}: {bad[:5]}"
    assert wt.log2(gpu).tolist() == [-float(k) for k in range(127, 150)]


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_remainder_exact_unless_the_result_is_subnormal(dt):
    xs, ys = grid(VALUES[dt])
    (cx, gx), (cy, gy) = on_both(dt, xs), on_both(dt, ys)
    bad = mismatches(wt.remainder(gx, gy).tolist(), wt.remainder(cx, cy).tolist(), (xs, ys),
                     skip=is_subnormal)
    assert not bad, f"remainder[{dt}]: {len(bad)} differ: {bad[:5]}"


@pytest.mark.parametrize("op", ("pow", "atan2", "hypot", "logaddexp"))
def test_transcendental_binary_with_subnormal_operands(op):
    xs, ys = grid(FLOAT32_VALUES)
    (cx, gx), (cy, gy) = on_both(wt.float32, xs), on_both(wt.float32, ys)
    fn = getattr(wt, op)
    bad = mismatches(fn(gx, gy).tolist(), fn(cx, cy).tolist(), (xs, ys), ulp=ULP_BOUND,
                     skip=is_subnormal)
    assert not bad, f"{op}: {len(bad)} differ: {bad[:5]}"


def test_special_cases_decided_on_bits():
    """Cases a flushing compare would get wrong: y == 0, x == 0 and sign tests."""
    tiny = f32(0x00012345)
    cases = [("pow", 0.0, tiny, 0.0), ("pow", 0.0, -tiny, math.inf), ("pow", -2.0, tiny, math.nan),
             ("pow", math.inf, -tiny, 0.0), ("pow", tiny, 0.5, math.sqrt(tiny)),
             ("atan2", tiny, 0.0, math.pi / 2), ("atan2", tiny, tiny, math.pi / 4),
             ("atan2", -tiny, -tiny, -3 * math.pi / 4), ("hypot", 3 * tiny, 4 * tiny, None),
             ("remainder", -1.0, f32(0x00800001), None)]
    for op, x, y, expect in cases:
        fn = getattr(wt, op)
        gx, gy = (wt.asarray([v], dtype=wt.float32, device="webgpu") for v in (x, y))
        cx, cy = (wt.asarray([v], dtype=wt.float32, device="cpu") for v in (x, y))
        [got], [want] = fn(gx, gy).tolist(), fn(cx, cy).tolist()
        if expect is not None:
            assert math.isnan(want) if math.isnan(expect) else (
                want == pytest.approx(expect, rel=1e-6)), (op, x, y, want)
        if is_subnormal(want):
            continue
        assert same_value(got, want) or ulps_apart32(got, want) <= ULP_BOUND, (op, x, y, got, want)


def _flush_model(op: str, args: list[list[float]]) -> list[float]:
    """``op`` computed by the CPU device on flushed operands, the result flushed."""
    cpu = [wt.asarray([flushed(v) for v in a], dtype=wt.float32, device="cpu") for a in args]
    return [flushed(v) for v in getattr(wt, op)(*cpu).tolist()]


@pytest.mark.parametrize("op", ("add", "subtract", "multiply", "divide", "reciprocal"))
def test_arithmetic_is_exact_or_flushed(op):
    if op == "reciprocal":
        args = [FLOAT32_VALUES]
    else:
        args = list(grid(FLOAT32_VALUES))
    pairs = [on_both(wt.float32, a) for a in args]
    fn = getattr(wt, op)
    got = fn(*(p[1] for p in pairs)).tolist()
    want = fn(*(p[0] for p in pairs)).tolist()
    model = _flush_model(op, args) if adapter_flushes() else want
    bad = [f"{tuple(a[i] for a in args)}: gpu {g!r} cpu {w!r} flushed {m!r}"
           for i, (g, w, m) in enumerate(zip(got, want, model))
           if not (same_value(g, w) or same_value(g, m))]
    assert not bad, f"{op}: {len(bad)} differ: {bad[:5]}"


def test_flush_model_differs_from_the_cpu():
    """The model above is not vacuous: it changes results that involve subnormals."""
    tiny = f32(1)
    assert _flush_model("add", [[tiny], [0.0]]) == [0.0]
    assert _flush_model("multiply", [[2.0 ** -100], [2.0 ** -30]]) == [0.0]
    assert _flush_model("divide", [[1.0], [-tiny]]) == [-math.inf]
