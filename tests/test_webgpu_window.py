"""The window kernel family on the webgpu device against the CPU device, bit for bit: sliding
window reductions (window.wgsl), select-and-scatter (window_select.wgsl, window_scatter.wgsl,
window_select_write.wgsl) through nx's window ops.  Small and NumPy-free, so the browser suite
compiles and runs every window kernel on the browser's WGSL compiler too
(tests/test_window_reduce.py is the thorough native suite)."""

from __future__ import annotations

import pytest

import webtensor as wt
import webtensor.nx as nx
from _gpu import webgpu_or_skip

GPU, CPU, B = webgpu_or_skip()

DTYPES = [wt.float32, wt.int32, wt.uint8, wt.int16, wt.float16, wt.bfloat16, wt.int64]
GEOMETRIES = [  # (shape, window, strides, padding, dilations)
    ((2, 7, 6), (1, 3, 2), [1, 2, 1], "valid", [1, 1, 1]),
    ((3, 9), (2, 2), [2, 2], "same", [1, 1]),
    ((10, 5), (3, 2), [1, 1], [(1, 2), (0, 1)], [2, 1]),
]


def _data(dt, shape, seed):
    n = 1
    for s in shape:
        n *= s
    base = wt.reshape((wt.arange(n, device=CPU) * (7 + seed)) % 23 - 11, shape)
    if dt.kind == "u":
        base = base + 11
    if dt.kind == "f":
        base = base * 0.375
    return wt.astype(base, dt)


def _same(fn, *args):
    want = fn(*args)
    got = fn(*(a.to_device(GPU) for a in args))
    assert got.dtype is want.dtype and got.shape == want.shape
    assert got.to_device(CPU).tobytes() == want.tobytes()


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("geometry", range(len(GEOMETRIES)))
@pytest.mark.parametrize("op", ["window_sum", "window_product", "window_max", "window_min"])
def test_window_reductions_equal_the_cpu(op, geometry, dt):
    shape, window, strides, padding, dilations = GEOMETRIES[geometry]
    x = _data(dt, shape, geometry)
    _same(lambda t: getattr(nx, op)(t, window, strides=strides, padding=padding,
                                    window_dilations=dilations), x)


@pytest.mark.parametrize("dt", [wt.float32, wt.int32, wt.float16], ids=str)
@pytest.mark.parametrize("op", ["window_scatter_max", "window_scatter_min"])
@pytest.mark.parametrize("case", [
    ((6, 8), (2, 2), [2, 2], (3, 4)),  # pooling: windows do not overlap
    ((7, 5), (3, 2), [1, 1], (5, 4)),  # overlapping windows
])
def test_window_scatter_equals_the_cpu(case, op, dt):
    shape, window, strides, out_shape = case
    x = _data(dt, shape, 1)
    source = _data(dt, out_shape, 2)
    init = wt.asarray(0, dtype=dt, device=CPU)
    _same(lambda t, s, i: getattr(nx, op)(t, s, i, window, strides=strides), x, source, init)


def test_a_pooling_window_is_one_dispatch():
    x = _data(wt.float32, (1, 4, 16, 16), 0).to_device(GPU)
    nx.window_max(x, (1, 1, 2, 2), strides=[1, 1, 2, 2]).tolist()
    before = B.driver.stats()["dispatches"]
    nx.window_max(x, (1, 1, 2, 2), strides=[1, 1, 2, 2])
    assert B.driver.stats()["dispatches"] - before == 1
