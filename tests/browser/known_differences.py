"""pytest plugin for in-browser runs (``-p known_differences``, added by tests/browser/run.mjs).

SwiftShader, Chromium's fallback adapter, flushes float32 subnormals to zero in arithmetic and
comparisons (operands and results), which WGSL allows
(https://www.w3.org/TR/WGSL/#floating-point-accuracy).  The kernels decide on bits wherever
that is cheap (comparisons, maximum/minimum, sign tests, casts, nextafter, the special cases of
pow/atan2/hypot, sqrt/ceil/floor/floor_divide and the log family of subnormal arguments: see
tests/test_webgpu_subnormals.py); what is left below is float arithmetic whose operand or exact
result is subnormal.  bfloat16 is computed in float32 and shares its exponent range, so its
subnormals flush the same way.

When the adapter is measured to flush, these cases of the op-record table (tests/_op_records.py,
run by tests/test_conformance.py) and of tests/test_webgpu.py become strict xfails: once a
kernel handles its case it XPASSes and the run fails, so the list cannot go stale.  The random
cases of the same ops draw subnormals only sometimes: non-strict xfails.
"""

from __future__ import annotations

import pytest

# op -> why the result differs from the cpu device on a flushing adapter.
_FLUSHED = {
    "reciprocal": "1/x of |x| > 2^126 (finfo.max) is subnormal: flushed to +-0",
    "add": "a sum with a subnormal operand or result is computed from +-0",
    "subtract": "a difference with a subnormal operand or result is computed from +-0",
    "multiply": "a product with a subnormal operand or result is flushed to +-0",
    "divide": "a subnormal divisor is +-0 (0 / tiny gives NaN, 1 / tiny inf) and subnormal "
              "quotients flush",
    "remainder": "a subnormal remainder (-1 % 3 * 2^-149 = 2^-149) comes from a float sum "
                 "(mod + divisor) that flushes to 0",
    "pow": "results below 2^-126 (2.5 ** -100) are flushed to 0",
    "atan2": "atan2(y, x) ~ y / x below 2^-126 is flushed to 0",
    "erf_inv": "erf_inv(x) ~ 0.886 x below 2^-126 is subnormal: flushed to 0",
}
_TABLE = "tests/test_conformance.py"
KNOWN = {
    **{f"{_TABLE}::test_grid[webgpu-{op}-{dt}]": reason
       for op, reason in _FLUSHED.items() for dt in ("float32", "bfloat16")},
    "tests/test_webgpu.py::test_transcendental_wide_ranges[20000]":
        "exp(x) for x < -87.34 and pow results below 2^-126 are subnormal: flushed to 0",
}
SOMETIMES = {f"{_TABLE}::test_random_cases[webgpu-{op}]": reason
             for op, reason in _FLUSHED.items()}


def flushes_subnormals() -> bool:
    """Does the webgpu device compute the smallest float32 subnormal plus zero as zero?"""
    import webtensor as wt
    from webtensor.backends.webgpu import probe

    if not probe().available:
        return False
    tiny = wt.asarray([1e-45], dtype=wt.float32, device="webgpu")
    return (tiny + 0.0).tolist() == [0.0]


def pytest_collection_modifyitems(config, items):
    known = [item for item in items if item.nodeid in KNOWN or item.nodeid in SOMETIMES]
    if not known or not flushes_subnormals():
        return
    for item in known:
        strict = item.nodeid in KNOWN
        reason = KNOWN[item.nodeid] if strict else SOMETIMES[item.nodeid]
        item.add_marker(pytest.mark.xfail(
            strict=strict, reason=f"this browser's adapter flushes float32 subnormals (WGSL "
            f"allows it): {reason}"))
