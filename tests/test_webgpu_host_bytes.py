"""The webgpu backend's bytes for one Python scalar (every new scalar operand, ``x * 2.5``)
are packed directly for the common (type, dtype) pairs; they must be exactly the bytes the CPU
backend's conversion gives, which every other value still takes.  No GPU needed."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import webtensor as wt
from webtensor.backends.cpu_python import PythonBackend
from webtensor.backends.webgpu import backend as webgpu_backend
from webtensor.device import cpu
from webtensor.tensor import Tensor

# cpu_bytes needs no device: a backend object without a driver is enough
BACKEND = object.__new__(webgpu_backend.WebGPUBackend)

INT_DTYPES = [wt.int8, wt.int16, wt.int32, wt.int64, wt.uint8, wt.uint16, wt.uint32, wt.uint64]
FLOAT_EDGES = [0.0, -0.0, 1.0, -2.5, 0.1, 1e-45, 7e-46, 1.4e-45, 1e-39, -1e-39, 1e-310,
               3.4028234663852886e38, 3.4028235e38, 3.4028235677973366e38, 3.5e38, -3.5e38,
               1.7976931348623157e308, 2.0 ** -149, 2.0 ** -150, 3 * 2.0 ** -151,
               1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24, math.inf, -math.inf, math.nan, -math.nan]


def generic(dtype, value) -> bytes:
    """The active CPU backend's bytes (NumPy, or pure Python under WEBTENSOR_CPU=python), checked
    against the pure-Python backend's too, so both backends are the oracle in every run."""
    found = BACKEND._cpu_bytes(dtype, [value])
    python_cpu = PythonBackend()
    t = Tensor._wrap(python_cpu.from_values(dtype, [value]), (1,), dtype, cpu)
    assert python_cpu.to_bytes(t) == found, (dtype, value)
    return found


def packed(dtype, value) -> bytes:
    return BACKEND.cpu_bytes(dtype, [value])


@pytest.mark.parametrize("dtype", [wt.float32, wt.float64])
@pytest.mark.parametrize("value", FLOAT_EDGES)
def test_float_edges_pack_as_the_cpu_converts(dtype, value):
    assert packed(dtype, value) == generic(dtype, value)


@given(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True))
def test_any_float_packs_as_the_cpu_converts(value):
    for dtype in (wt.float32, wt.float64):
        assert packed(dtype, value) == generic(dtype, value)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_ints_pack_as_the_cpu_converts_up_to_the_bounds(dtype):
    info = wt.iinfo(dtype)
    for value in (0, 1, -1 if info.min < 0 else 2, info.min, info.max, info.max - 1):
        assert packed(dtype, value) == generic(dtype, value), value


@given(st.integers(-(2 ** 63), 2 ** 64 - 1))
def test_any_int_in_range_packs_as_the_cpu_converts(value):
    for dtype in INT_DTYPES:
        info = wt.iinfo(dtype)
        if info.min <= value <= info.max:
            assert packed(dtype, value) == generic(dtype, value)


def test_bools_and_other_pairs_take_the_cpu_conversion():
    assert packed(wt.bool, True) == generic(wt.bool, True) == b"\x01"
    assert packed(wt.bool, False) == generic(wt.bool, False) == b"\x00"
    # not in the packing table: converted by the CPU backend, the same as before
    for dtype, value in ((wt.float32, 3), (wt.float32, True), (wt.int32, True),
                         (wt.float16, 0.1), (wt.bfloat16, 0.1), (wt.complex64, 1 + 2j),
                         (wt.float64, 2 ** 70)):
        assert packed(dtype, value) == generic(dtype, value), (dtype, value)


def test_the_packed_bytes_match_numpy():
    np = pytest.importorskip("numpy")
    for value in FLOAT_EDGES:
        if math.isfinite(value) and abs(value) < 3.4028235677973366e38:
            assert packed(wt.float32, value) == np.array([value], np.float64).astype(
                np.float32).tobytes(), value
    for dtype, name in ((wt.int8, "int8"), (wt.uint64, "uint64"), (wt.int64, "int64")):
        info = wt.iinfo(dtype)
        for value in (info.min, info.max):
            assert packed(dtype, value) == np.array([value], name).tobytes()
