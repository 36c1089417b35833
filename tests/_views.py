"""Helpers shared by the manipulation and indexing tests: random storage, tensors over it
(0-d kept 0-d), and a bit-exact comparison with a NumPy result."""

from __future__ import annotations

import math

import pytest

import webtensor as wt
from _oracle import assert_same_values, np_storage_dtype, tensor_from_storage, tensor_storage


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
