"""Helpers shared by the manipulation and indexing tests: the dtypes and settings they draw
with, random storage, tensors over it (0-d kept 0-d), and a bit-exact comparison with a NumPy
result."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import (
    BACKENDS,
    assert_same_values,
    layouts,
    np_storage_dtype,
    shapes,
    tensor_from_storage,
    tensor_storage,
)

# The dtypes the view tests draw from: one per storage width and kind.
VIEW_DTYPES = [wt.bool, wt.int8, wt.uint16, wt.int64, wt.float16, wt.bfloat16, wt.float32,
               wt.complex64]
dtypes = st.sampled_from(VIEW_DTYPES)
# ``pytestmark = ON_EVERY_BACKEND``: every test of the module runs once per device
# (``backend`` is the Device).
ON_EVERY_BACKEND = pytest.mark.parametrize("backend", BACKENDS)


def view_settings(max_examples: int):
    return settings(max_examples=max_examples, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _np():
    return pytest.importorskip("numpy")


def random_storage(shape, dt, seed):
    """Random bytes of ``dt``'s storage (any bit pattern; bool as 0/1)."""
    np = _np()
    rng = np.random.default_rng(seed)
    sd = np_storage_dtype(dt)
    n = math.prod(shape)
    if dt is wt.bool:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    raw = rng.integers(0, 256, n * sd.itemsize, dtype=np.uint8)
    return raw.view(sd).reshape(shape).copy()


def make(storage, dt, device, layout=None):
    """``tensor_from_storage`` that also keeps 0-d storage 0-d."""
    if storage.ndim == 0:
        from webtensor.tensor import Tensor

        return Tensor._wrap(device.backend.from_bytes(dt, storage.tobytes()), (), dt, device)
    return tensor_from_storage(storage, dt, device, layout=layout)


def check(got, expected, dt=None):
    """``got`` (tensor) has exactly ``expected``'s shape and bits (NaN matches NaN)."""
    np = _np()
    dt = got.dtype if dt is None else dt
    assert got.dtype is dt
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    # (flattened: _oracle's comparison cannot view 0-d complex arrays as pairs)
    assert_same_values(np.ascontiguousarray(tensor_storage(got)).reshape(-1),
                       np.ascontiguousarray(expected).reshape(-1), dt, context="values")


def t(values, backend, **kw):
    return wt.asarray(values, device=backend, **kw)


@st.composite
def view_tensors(draw, device, min_dims=0, max_dims=3, min_side=0, max_side=4, dtype=None):
    """(tensor, storage ndarray, layout): random values over a possibly strided view."""
    shape = draw(shapes(min_dims, max_dims, min_side, max_side))
    dt = draw(st.sampled_from(VIEW_DTYPES)) if dtype is None else dtype
    storage = random_storage(shape, dt, draw(st.integers(0, 2 ** 32 - 1)))
    # (0-d tensors are always contiguous: _oracle's layouts need at least one axis.)
    layout = draw(st.none() | layouts(len(shape))) if shape else None
    return make(storage, dt, device, layout), storage, layout
