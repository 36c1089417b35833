"""Shared test fixtures."""

import pytest

import webtensor as wt
from webtensor import dtypes as _dtypes


@pytest.fixture(autouse=True)
def _restore_webtensor_settings():
    """Put the process-wide promotion mode and default dtypes back after every test."""
    saved = (
        wt.get_promotion_mode(),
        wt.default_int_dtype(),
        wt.default_float_dtype(),
        wt.default_complex_dtype(),
        _dtypes._default_any.get(),
    )
    yield
    mode, int_dt, float_dt, complex_dt, any_dt = saved
    wt.set_promotion_mode(mode)
    wt.set_default_int_dtype(int_dt)
    wt.set_default_float_dtype(float_dt)
    wt.set_default_complex_dtype(complex_dt)
    wt.set_default_dtype(any_dt)
