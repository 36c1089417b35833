"""Shared test fixtures."""

import os

import pytest
from hypothesis import HealthCheck, settings

import webtensor as wt
from _flushing import pytest_collection_modifyitems  # noqa: F401  (a hook: xfails on flushing adapters)
from _oracle import BACKENDS
from webtensor import dtypes as _dtypes

# Timing varies a lot between CPython, Pyodide (WebAssembly) and a busy 2-core CI machine:
# hypothesis deadlines would only add flakiness, and the example counts are set per test.
settings.register_profile("webtensor", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", parent=settings.get_profile("webtensor"),
                          max_examples=1000)
# CI=true: every run draws the same examples (derandomize) and keeps no example database, so
# a landing never fails by chance; local runs keep exploring and remember their failures.
settings.register_profile("ci", parent=settings.get_profile("webtensor"), derandomize=True,
                          database=None, print_blob=True)
_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
settings.load_profile(os.environ.get("WEBTENSOR_HYPOTHESIS", "ci" if _CI else "webtensor"))

# WEBTENSOR_TEST_WEBGPU=0 leaves the webgpu device out (scripts/test.sh's second CPython run,
# which only changes the default CPU backend, so the GPU part would repeat the first run).
if os.environ.get("WEBTENSOR_TEST_WEBGPU") == "0":
    collect_ignore_glob = ["test_webgpu*.py"]


@pytest.fixture(scope="module", params=BACKENDS, name="dev")
def dev_fixture(request):
    """Each device: numpy-cpu, python-cpu and webgpu where an adapter exists (``_oracle``)."""
    return request.param


@pytest.fixture(autouse=True)
def _restore_webtensor_settings():
    """Put the process-wide promotion mode, default dtypes and casting mode back after every
    test."""
    saved = (
        wt.get_promotion_mode(),
        wt.default_int_dtype(),
        wt.default_float_dtype(),
        wt.default_complex_dtype(),
        _dtypes.default_any_setting.get(),
        wt.get_casting_mode(),
    )
    yield
    mode, int_dt, float_dt, complex_dt, any_dt, casting = saved
    wt.casting_mode(casting)
    wt.set_promotion_mode(mode)
    wt.set_default_int_dtype(int_dt)
    wt.set_default_float_dtype(float_dt)
    wt.set_default_complex_dtype(complex_dt)
    wt.set_default_dtype(any_dt)
