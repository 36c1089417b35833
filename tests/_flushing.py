"""Known differences on adapters that flush float32 subnormals (tests/conftest.py uses the hook).

SwiftShader, Chromium's fallback adapter, and GPUs (NVIDIA's Vulkan driver, seen on an H200)
flush float32 subnormals to zero in arithmetic and comparisons (operands and results), which
WGSL allows
(https://www.w3.org/TR/WGSL/#floating-point-accuracy).  The kernels decide on bits wherever
that is cheap (comparisons, maximum/minimum, sign tests, casts, nextafter, the special cases of
pow/atan2/hypot, sqrt/ceil/floor/floor_divide and the log family of subnormal arguments: see
tests/test_webgpu_subnormals.py); what is left below is float arithmetic whose operand or exact
result is subnormal.  bfloat16 is computed in float32 and shares its exponent range, so its
subnormals flush the same way.

When the adapter is measured to flush, these cases of the op-record table (tests/_op_records.py,
run by tests/test_conformance.py) and of tests/test_webgpu.py become strict xfails: once a
kernel handles its case it XPASSes and the run fails, so the list cannot go stale.  Division
and reciprocal are listed only where the adapter's built-in `/` is used: elsewhere
(``WebGPUBackend.ieee_arithmetic`` false) the integer form divides subnormals exactly.
"""

from __future__ import annotations

import pytest

_BOTH = ("float32", "bfloat16")
# op -> (the input dtypes whose grid differs, why the result differs from the cpu device on a
# flushing adapter)
_FLUSHED = {
    "add": (_BOTH, "a sum with a subnormal operand or result is computed from +-0"),
    "subtract": (_BOTH, "a difference with a subnormal operand or result is computed from +-0"),
    "multiply": (_BOTH, "a product with a subnormal operand or result is flushed to +-0"),

    "remainder": (_BOTH, "a subnormal remainder (-1 % 3 * 2^-149 = 2^-149) comes from a float "
                         "sum (mod + divisor) that flushes to 0"),
    "pow": (_BOTH, "results below 2^-126 (2.5 ** -100) are flushed to 0"),
    "atan2": (_BOTH, "atan2(y, x) ~ y / x below 2^-126 is flushed to 0"),
    "erf_inv": (_BOTH, "erf_inv(x) ~ 0.886 x below 2^-126 is subnormal: flushed to 0"),
    "erf": (("bfloat16",), "erf(x) ~ 1.13 x of a subnormal bfloat16 is subnormal: flushed to 0"),
    "hypot": (("bfloat16",), "hypot of a subnormal and a zero is subnormal: flushed to 0"),
    "logaddexp": (("bfloat16",), "logaddexp(x, -inf) = x for a subnormal x: flushed to 0"),
    "exp": (("int8",), "exp(-100) (int8 computed in float32) is subnormal: flushed to 0"),
    "sigmoid": (("int8",), "sigmoid(-100) ~ exp(-100) is subnormal: flushed to 0"),
}
# ... and where the built-in `/` divides (WebGPUBackend.ieee_arithmetic)
_FLUSHED_BY_DIVISION = {
    "reciprocal": (_BOTH, "1/x of |x| > 2^126 (finfo.max) is subnormal: flushed to +-0"),
    "divide": (_BOTH, "a subnormal divisor is +-0 (0 / tiny gives NaN, 1 / tiny inf) and "
                      "subnormal quotients flush"),
}


# ... and on GPUs (NVIDIA, seen on an H200), which also flush where SwiftShader keeps the
# subnormal: these results are built from a subnormal operand by arithmetic
_FLUSHED_ON_GPUS = {
    "hypot": (("float32",), "hypot(0, 4e-45) is |y| scaled by arithmetic: flushed to 0"),
    "erf": (("float32",), "erf(x) ~ 1.13 x of a subnormal x is subnormal: flushed to 0"),
    "logaddexp": (("float32",), "logaddexp(x, -inf) = x for a subnormal x: flushed to 0"),
}


def _grid(table):
    return {f"tests/test_conformance.py::test_grid[webgpu-{op}-{dt}]": reason
            for op, (dtypes, reason) in table.items() for dt in dtypes}


KNOWN = {
    **_grid(_FLUSHED),
    "tests/test_webgpu.py::test_transcendental_wide_ranges[20000]":
        "exp(x) for x < -87.34 and pow results below 2^-126 are subnormal: flushed to 0",
}


def flushes_subnormals() -> bool:
    """Does the webgpu device compute the smallest float32 subnormal plus zero as zero?"""
    import webtensor as wt
    from webtensor.backends.webgpu import probe

    if not probe().available:
        return False
    tiny = wt.asarray([1e-45], dtype=wt.float32, device="webgpu")
    return (tiny + 0.0).tolist() == [0.0]


def pytest_collection_modifyitems(config, items):
    if not any(item.nodeid in KNOWN for item in items) or not flushes_subnormals():
        return
    import webtensor as wt

    known = dict(KNOWN)
    backend = next(d for d in wt.devices() if d.name == "webgpu").backend
    known.update(_grid(_FLUSHED_BY_DIVISION if backend.ieee_arithmetic else _FLUSHED_ON_GPUS))
    for item in items:
        reason = known.get(item.nodeid)
        if reason:
            item.add_marker(pytest.mark.xfail(
                strict=True, reason=f"this adapter flushes float32 subnormals "
                f"(WGSL allows it): {reason}"))
