"""The WGSL library's cheap forms of costly built-ins (``shaders/prelude.wgsl``).

CPU adapters emulate some WGSL built-ins at the cost of many arithmetic operations (on
SwiftShader, Chromium's: ``round``, float -> integer conversions and float ``min``/``max``/
``clamp`` 10-25 multiply-adds each, ``countLeadingZeros`` about 60), so the float32
library's hot paths use an addition, a bitcast or a select instead.  What must hold, on the
adapter that runs the tests (lavapipe natively, SwiftShader in Chromium):

* ``round_small_f32``/``round_small_i32`` round to nearest with ties to even, as ``round``
  does, for every |x| < 2^22 (ties, negative ties, the ends of the range, tiny values);
  ``small_i32_to_f32`` is ``f32(k)``; ``clamp_f32``/``clamp_i32`` clamp and keep NaN;
* the hot functions call none of the costly built-ins and use no short-circuit ``&&``/``||``
  (which compile to branches; ``&``/``|`` on bools do not) (a structural check: their values
  are tested against the CPU in ``test_conformance.py`` and ``test_webgpu_trig_reduction.py``).

No NumPy, so the file also runs in the browser.
"""

from __future__ import annotations

import math
import re
import struct

import pytest

from _gpu import run_wgsl, webgpu_or_skip

GPU, CPU, B = webgpu_or_skip()

import webtensor as wt  # noqa: E402
from webtensor.backends.webgpu import kernels  # noqa: E402

_BODY = """
let x = in0[i];
out0[6u * i] = bitcast<u32>(round_small_f32(x));
out0[6u * i + 1u] = bitcast<u32>(round_small_i32(x));
out0[6u * i + 2u] = bitcast<u32>(small_i32_to_f32(round_small_i32(x)));
out0[6u * i + 3u] = bitcast<u32>(clamp_f32(x, -2.5, 1000.0));
out0[6u * i + 4u] = bitcast<u32>(clamp_i32(round_small_i32(x), -3, 7));
out0[6u * i + 5u] = bitcast<u32>(round(x));
"""


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _run(values: list[float]) -> list[tuple]:
    x = wt.asarray(values, dtype=wt.float32, device=GPU)
    words = run_wgsl(_BODY, x, len(values), 6 * len(values))
    return [tuple(words[6 * i:6 * i + 6]) for i in range(len(values))]


def _bits_f(word: int) -> float:
    return struct.unpack("<f", struct.pack("<I", word))[0]


def _i32(word: int) -> int:
    return word - (1 << 32) if word >= 1 << 31 else word


VALUES = sorted({_f32(v) for v in (
    [k + 0.5 for k in range(-40, 40)]                       # ties both ways
    + [k + d for k in range(-5, 6) for d in (0.25, 0.49999997, 0.50000006, 0.75)]
    + [2.0 ** 22 - 0.5, -(2.0 ** 22 - 0.5), 2.0 ** 22 - 1.5, 4194303.75, -4194303.25]
    + [1e-30, -1e-30, 1.5e-45, 0.0, 0.3, -0.3, 1.4426950, -104.0 * 1.4426950, 88.5 * 1.4426950]
    + [1000.5, -2.5, -2.75, 999.75, 1000.25]
)})


@pytest.mark.parametrize("x", VALUES)
def test_round_small_rounds_ties_to_even_as_round_does(x):
    rf, ri, back, _clamped, _iclamped, builtin = _run([x])[0]
    want = round(x)  # Python's round: nearest, ties to even
    assert _bits_f(rf) == want, f"round_small_f32({x!r}) = {_bits_f(rf)!r}, expected {want}"
    assert _i32(ri) == want, f"round_small_i32({x!r}) = {_i32(ri)}, expected {want}"
    assert _bits_f(back) == want, f"small_i32_to_f32({want}) = {_bits_f(back)!r}"
    assert _bits_f(builtin) == want  # (the built-in agrees: the test's own premise)


def test_clamps_clamp_and_keep_nan():
    values = [-1e30, -2.75, -2.5, -2.0, 0.0, 7.4, 7.5, 999.0, 1000.25, 1e30, math.inf,
              -math.inf, math.nan]
    for x, row in zip(values, _run(values)):
        got = _bits_f(row[3])
        if math.isnan(x):
            assert math.isnan(got), f"clamp_f32(nan) = {got}"
        else:
            assert got == min(max(_f32(x), -2.5), 1000.0), f"clamp_f32({x}) = {got}"
        if abs(x) < 2.0 ** 22:
            assert _i32(row[4]) == min(max(round(x), -3), 7), f"clamp_i32({round(x)})"


# Library functions on the hot path of elementwise kernels (the exp and log families, sin/cos,
# sqrt, max/min): none may call a built-in that CPU adapters emulate slowly.
HOT = ("exp_split", "exp_f32", "expm1_f32", "log_reduce", "rem_pio2_cody_waite", "trig_reduce",
       "quadrant", "sin_cos_kernel", "sin_kernel", "cos_kernel", "sin_f32", "cos_f32",
       "tan_f32", "sqrt_f32", "subnormal_significand_f32", "abs_scaled_up_f32", "scale_f32",
       "maximum_f32", "minimum_f32", "fmax_f32", "fmin_f32", "pow_core", "eq_f32", "lt_f32",
       "le_f32", "tanh_f32")
COSTLY = re.compile(r"\b(?:round|clamp|countLeadingZeros|min|max|trunc)\s*\(|&&|\|\|")


def test_hot_library_functions_avoid_costly_builtins():
    text = "\n".join(kernels.source(lib) for lib in ("prelude", "float32"))
    bodies = {m.group(1): m.group(2) for m in re.finditer(
        r"^fn\s+(\w+)\(.*?\{\n(.*?)^\}", text, re.S | re.M)}
    for name in HOT:
        assert name in bodies, f"{name} is not a library function any more: update HOT"
        code = re.sub(r"//[^\n]*", "", bodies[name])
        costly = COSTLY.findall(code)
        assert not costly, f"{name} uses {costly}: see the cheap forms in prelude.wgsl"
