"""float32 division and square root rounded once on every adapter (``shaders/float32.wgsl``).

WGSL lets ``/`` be off by 2.5 ULP and ``sqrt`` by more, and GPUs use that (NVIDIA's Vulkan
driver divides through a reciprocal that flushes to 0 past 2^126, so 3e38 / 3e38 was 0).  The
backend keeps the built-ins where the adapter rounds them correctly (CPU adapters:
``WebGPUBackend.ieee_arithmetic``) and otherwise defines ``IEEE_ARITHMETIC = false``, which
switches ``div_f32``/``sqrt_f32`` to exact integer forms.  These tests force the integer forms
on the adapter at hand and compare with correctly rounded results computed in Python (float64
division and sqrt rounded to float32: double rounding is harmless for both, 53 >= 2 * 24 + 2),
and the functions built on them (reciprocal, floor_divide, remainder, atan2, complex division
and sign) with the CPU device.  No NumPy, so the file also runs in the browser.
"""

from __future__ import annotations

import math
import random
import struct

import pytest

from _flushing import flushes_subnormals
from _gpu import run_wgsl, webgpu_or_skip
from _oracle import f32_round_py

GPU, CPU, B = webgpu_or_skip()

import webtensor as wt  # noqa: E402
from webtensor.backends.webgpu import kernels  # noqa: E402


def _f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


@pytest.fixture
def integer_forms():
    """The webgpu backend with IEEE_ARITHMETIC = false: pipelines built from here on take the
    integer forms; the built-in ones come back afterwards."""
    backend = next(d for d in wt.devices() if d.name == "webgpu").backend
    with backend.lock:
        saved = backend._pipelines, backend.ieee_arithmetic
        backend._pipelines, backend.ieee_arithmetic = {}, False
    yield backend
    with backend.lock:
        backend._pipelines, backend.ieee_arithmetic = saved


def _values(n: int, seed: int) -> list[float]:
    """Specials, subnormals, the ends of the range and powers of two, then random bit
    patterns (all exponents) and random normals of moderate size."""
    rng = random.Random(seed)
    fixed = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.0, 3.0, 0.5, 0.1, 7.0,
             _f32(1), _f32(2), _f32(3), _f32(0x7fffff), _f32(0x800000), _f32(0x7f7fffff),
             _f32(0x00400000), _f32(0x80000001), 3e38, 1e-38, 1e-45, 2.0 ** 126, 2.0 ** -126,
             2.0 ** 127, 2.0 ** -127, 2.0 ** -149]
    out = [f32_round_py(x) for x in fixed]  # the float32 values the device holds
    while len(out) < n:
        kind = rng.random()
        if kind < 0.6:
            bits = rng.getrandbits(32)
            if (bits >> 23) & 0xff == 0xff:
                continue
            out.append(_f32(bits))
        elif kind < 0.8:
            out.append(_f32(rng.getrandbits(23) | (rng.getrandbits(1) << 31)))  # subnormal
        else:
            out.append(f32_round_py(rng.uniform(-100.0, 100.0)))
    return out


def _same(got: float, want: float, flushes: bool) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    if _bits(got) == _bits(want):
        return True
    # a flushing adapter may store a subnormal result as a zero of the same sign
    return flushes and 0 < abs(want) < 2.0 ** -126 and got == 0.0 \
        and math.copysign(1.0, got) == math.copysign(1.0, want)


def _div(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if b == 0.0:
        if a == 0.0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    if math.isinf(a) and math.isinf(b):
        return math.nan
    return f32_round_py(a / b)


def _sqrt(x: float) -> float:
    if math.isnan(x) or x < 0:
        return math.nan
    return f32_round_py(math.sqrt(x))


def _check(name, inputs, got, want, flushes):
    bad = [(args, g, w) for args, g, w in zip(inputs, got, want) if not _same(g, w, flushes)]
    assert not bad, f"{name}: {len(bad)} of {len(want)} differ, e.g. {bad[:4]}"


@pytest.mark.parametrize("seed", [0, 1])
def test_divide_is_correctly_rounded(integer_forms, seed):
    flushes = flushes_subnormals()
    xs = _values(3000, seed)
    ys = _values(3000, seed + 100)
    random.Random(seed).shuffle(ys)
    pairs = [(x, y) for x in xs[:60] for y in xs[:60]] + list(zip(xs, ys))
    # quotients that are exact, and ones that land on subnormals, 0, inf and the largest float
    pairs += [(float(i * j), float(j)) for i in range(1, 40) for j in range(1, 40)]
    pairs += [(2.0 ** -100, 2.0 ** e) for e in range(20, 60)]
    pairs += [(3e38, 2.0 ** e) for e in range(-10, 3)] + [(3e38, 3e38), (1.0, 3e38)]
    a = wt.asarray([p[0] for p in pairs], dtype=wt.float32, device=GPU)
    b = wt.asarray([p[1] for p in pairs], dtype=wt.float32, device=GPU)
    _check("divide", pairs, wt.divide(a, b).tolist(), [_div(x, y) for x, y in pairs], flushes)
    _check("reciprocal", pairs, wt.reciprocal(b).tolist(), [_div(1.0, y) for _, y in pairs],
           flushes)


def test_sqrt_is_correctly_rounded(integer_forms):
    flushes = flushes_subnormals()
    xs = _values(6000, 7)
    # perfect squares and their neighbours (roots next to a midpoint or on a float)
    for m in (1, 3, 4095, 4097, 8388607, 8388608, 16777215):
        for e in (-140, -70, -1, 0, 1, 63):
            x = f32_round_py(float(m) ** 2 * 2.0 ** e) if m < 4096 else f32_round_py(
                float(m) * 2.0 ** e)
            xs += [x, _f32(_bits(x) + 1), _f32(max(_bits(x) - 1, 0))]
    got = wt.sqrt(wt.asarray(xs, dtype=wt.float32, device=GPU)).tolist()
    _check("sqrt", [(x,) for x in xs], got, [_sqrt(x) for x in xs], flushes)


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "atan2"])
def test_functions_on_division_match_the_cpu(integer_forms, op):
    flushes = flushes_subnormals()
    xs = _values(1500, 3)
    ys = _values(1500, 4)
    pairs = [(x, y) for x in xs[:40] for y in xs[:40]] + list(zip(xs, ys))
    args = [[p[i] for p in pairs] for i in (0, 1)]
    fn = getattr(wt, op)
    got = fn(*(wt.asarray(v, dtype=wt.float32, device=GPU) for v in args)).tolist()
    want = fn(*(wt.asarray(v, dtype=wt.float32, device=CPU) for v in args)).tolist()
    if op == "atan2":  # ULP-bounded, not exact: the same within 2 ULP (NaN for NaN)
        bad = [(p, g, w) for p, g, w in zip(pairs, got, want)
               if not (math.isnan(g) and math.isnan(w)) and abs(_key(g) - _key(w)) > 2
               and not (flushes and abs(w) < 2.0 ** -126 and g == 0.0)]
        assert not bad, f"atan2: {len(bad)} differ, e.g. {bad[:4]}"
        return
    _check(op, pairs, got, want, flushes)


def _key(x: float) -> int:
    bits = _bits(x)
    return -(bits & 0x7fffffff) if bits >> 31 else bits


def test_complex_division_and_sign_match_the_cpu(integer_forms):
    xs = _values(800, 11)
    zs = [complex(xs[i], xs[-1 - i]) for i in range(len(xs))]
    ws = [complex(xs[(i * 7) % len(xs)], xs[(i * 13) % len(xs)]) for i in range(len(xs))]
    # sign's magnitude of subnormal parts is abs's (ULP-bounded, not exact): normal parts only
    normal = [z for z in zs if not any(0 < abs(p) < 2.0 ** -126 for p in (z.real, z.imag))]
    flushes = flushes_subnormals()
    if flushes:
        # Smith's method multiplies by the ratio of the divisor's parts, which a flushing
        # adapter takes for 0 where it is subnormal: parts within 2^+-60 of each other only
        def moderate(z):
            return all(p == 0 or 2.0 ** -60 < abs(p) < 2.0 ** 60 for p in (z.real, z.imag))
        pairs = [(z, w) for z, w in zip(zs, ws) if moderate(z) and moderate(w)]
        zs, ws = [p[0] for p in pairs], [p[1] for p in pairs]
    for name, fn, args in (("divide", wt.divide, (zs, ws)), ("sign", wt.sign, (normal,))):
        got = fn(*(wt.asarray(v, dtype=wt.complex64, device=GPU) for v in args)).tolist()
        want = fn(*(wt.asarray(v, dtype=wt.complex64, device=CPU) for v in args)).tolist()
        for part in ("real", "imag"):
            _check(f"{name}.{part}", list(zip(*args)), [getattr(g, part) for g in got],
                   [getattr(w, part) for w in want], flushes)


def test_the_adapter_class_decides_the_built_ins_and_the_pool():
    """CPU adapters keep the built-ins and a 64 MiB pool (host memory); GPUs take the integer
    forms and pool four of the largest bindings (a larger buffer is cleared anew each time)."""
    backend = next(d for d in wt.devices() if d.name == "webgpu").backend
    assert backend.ieee_arithmetic == (backend.adapter_class != "gpu") == backend.software
    assert backend.memory.pool_bytes == (64 << 20 if backend.software
                                         else 4 * backend.max_binding)


_ROOT_BODY = """
out0[i] = nearest_root_u32(vec2<u32>(in0[3u * i], in0[3u * i + 1u]), in0[3u * i + 2u]);
"""


def test_the_root_correction_steps_from_any_estimate_within_three():
    """sqrt_f32's integer correction, from estimates off by up to 3 either way (CPU adapters'
    correctly rounded built-in never exercises it)."""
    rng = random.Random(5)
    xs = [rng.randrange(1 << 46, 1 << 48) for _ in range(400)]
    xs += [r * r + d for r in (1 << 23, (1 << 23) + 1, (1 << 24) - 1) for d in (-1, 0, 1)
           if (1 << 46) <= r * r + d < (1 << 48)]
    xs += [r * r + r + d for r in (1 << 23, 12345678, (1 << 24) - 1) for d in (0, 1)]
    cases, want = [], []
    for x in xs:
        r = math.isqrt(x)
        nearest = r + 1 if (2 * r + 1) ** 2 < 4 * x else r
        for off in range(-3, 4):
            cases.append((4 * x, nearest + off))
            want.append(nearest)
    words = [w for four_x, est in cases for w in (four_x & 0xffffffff, four_x >> 32, est)]
    got = run_wgsl(_ROOT_BODY, wt.asarray(words, dtype=wt.uint32, device=GPU), len(cases),
                   len(cases))
    bad = [(c, g, w) for c, g, w in zip(cases, got, want) if g != w]
    assert not bad, f"{len(bad)} of {len(cases)} roots wrong, e.g. {bad[:4]}"


def test_the_constant_is_defined_after_the_enable_directives():
    """WGSL wants ``enable`` directives first: the backend's constant goes right after them."""
    text = "enable f16;\nenable subgroups;\nfn f() -> bool {\n    return IEEE_ARITHMETIC;\n}"
    lines = kernels.with_constant(text, "IEEE_ARITHMETIC", False).split("\n")
    assert lines[:3] == ["enable f16;", "enable subgroups;", "const IEEE_ARITHMETIC: bool = false;"]
    assert kernels.with_constant("fn g() {}", "IEEE_ARITHMETIC", True).startswith(
        "const IEEE_ARITHMETIC: bool = true;\nfn g() {}")
