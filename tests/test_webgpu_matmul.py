"""Native WebGPU matmul against the CPU device.

Skipped (reason printed) without wgpu, a WebGPU adapter or NumPy (the oracle's bound is
computed with NumPy).  What must hold, through ``wt.matmul`` / ``@``:

* int32/uint32: bit-identical to the CPU (products and sums wrap modulo 2**32).
* float32: the kernel accumulates with fma in k order, so each element is within
  ``gamma_K * S`` of the exact dot product, ``S = sum_k |a_ik| |b_kj|``; the CPU rounds an
  exact-product float64 sum once (within ``2**-24 * S``).  Hence the bound
  ``|gpu - cpu| <= (K + 2) * 2**-24 * S`` per element (``gamma_K < (K + 1) * 2**-24`` for the
  sizes here).  NaN appears exactly where the CPU has NaN.
* No call is routed to the CPU (``backend.routed`` does not grow).
"""

from __future__ import annotations

import pytest

try:
    from webtensor.backends.webgpu import probe as _probe

    _PROBE = _probe()
    _REASON = _PROBE.reason
except ImportError as e:  # pragma: no cover - only without the webgpu package
    _PROBE, _REASON = None, str(e)

if _PROBE is None or not _PROBE.available:
    pytest.skip(f"webgpu device unavailable: {_REASON}", allow_module_level=True)

np = pytest.importorskip("numpy", reason="the float32 error bound is computed with NumPy")

import webtensor as wt  # noqa: E402
from webtensor import device as _device  # noqa: E402
from webtensor.backends.webgpu import matmul as gpu_matmul  # noqa: E402
from webtensor.tensor import empty  # noqa: E402

GPU = _device.as_device("webgpu")
CPU = _device.cpu
B = GPU.backend
DTYPES = (wt.float32, wt.int32, wt.uint32)


def _routed() -> int:
    return sum(n for (prim, _dt), n in B.routed.items() if prim == "matmul")


def _data(dt, shape, seed):
    rng = np.random.default_rng(seed)
    if dt is wt.float32:
        return rng.standard_normal(shape).astype(np.float32)
    info = np.iinfo(np.int32 if dt is wt.int32 else np.uint32)
    return rng.integers(info.min, info.max, shape, endpoint=True).astype(info.dtype)


def _check(c, g, a, b) -> None:
    """``g`` (webgpu) against ``c`` (cpu) for inputs ``a``, ``b`` (NumPy, as multiplied)."""
    assert g.device == GPU and g.shape == c.shape and g.dtype == c.dtype
    cv, gv = np.asarray(c), np.asarray(g)
    if c.dtype is not wt.float32:
        assert cv.tobytes() == gv.tobytes()
        return
    k = a.shape[-1]
    with np.errstate(invalid="ignore"):  # inf * 0 in the bound where the result is NaN anyway
        s = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    s = s.reshape(cv.shape) if s.size == cv.size else np.broadcast_to(s, cv.shape)
    nan = np.isnan(cv)
    assert (np.isnan(gv) == nan).all()
    err = np.abs(gv.astype(np.float64) - cv.astype(np.float64))[~nan]
    assert (err <= (k + 2) * 2.0 ** -24 * s[~nan]).all(), err.max()


def _both(fn, a, b, dt):
    before = _routed()
    c = fn(wt.asarray(a, dtype=dt, device=CPU), wt.asarray(b, dtype=dt, device=CPU))
    g = fn(wt.asarray(a, dtype=dt, device=GPU), wt.asarray(b, dtype=dt, device=GPU))
    assert _routed() == before
    return c, g


SHAPES = [  # (m, k, n): single elements, vectors, ragged edges, several tiles
    (1, 1, 1), (1, 9, 1), (1, 37, 70), (70, 37, 1), (5, 7, 3), (4, 8, 12), (64, 64, 64),
    (65, 17, 130), (33, 100, 67),
]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("mkn", SHAPES, ids=str)
def test_matmul_shapes(dt, mkn):
    m, k, n = mkn
    a, b = _data(dt, (m, k), 1), _data(dt, (k, n), 2)
    c, g = _both(lambda x, y: x @ y, a, b, dt)
    _check(c, g, a, b)


# Layouts select the tile loaders: row-major with K, N multiples of 4 (vec4 along k for A,
# along columns for B), transposed views (vec4 along rows for A, along k for B), odd sizes and
# strided or flipped views (scalar loads).
LAYOUTS = {
    "plain": lambda x: x,
    "transposed": lambda x: wt.asarray(x.mT, copy=True).mT,
    "every_other_row": lambda x: wt.concat([x, x], axis=-2)[..., ::2, :],
    "flipped": lambda x: wt.flip(wt.flip(x, axis=-1), axis=-1),
    "negative_stride": lambda x: wt.flip(wt.asarray(wt.flip(x, axis=-2), copy=True), axis=-2),
}


@pytest.mark.parametrize("layout_a", LAYOUTS)
@pytest.mark.parametrize("layout_b", LAYOUTS)
@pytest.mark.parametrize("mkn", [(8, 12, 16), (9, 13, 11)], ids=str)
def test_matmul_views(layout_a, layout_b, mkn):
    m, k, n = mkn
    dt = wt.float32
    a, b = _data(dt, (m, k), 3), _data(dt, (k, n), 4)
    c, g = _both(lambda x, y: LAYOUTS[layout_a](x) @ LAYOUTS[layout_b](y), a, b, dt)
    _check(c, g, a, b)


def test_loader_modes_cover_every_layout():
    # The layouts above reach every loader; this pins the selection rule they rely on.
    assert gpu_matmul._mode(256, 0, (), 12, 1, 8, 12) == "k"  # row-major A
    assert gpu_matmul._mode(256, 0, (), 1, 8, 8, 12) == "r"  # transposed A
    assert gpu_matmul._mode(256, 0, (), 13, 1, 9, 13) == "sk"  # odd K
    assert gpu_matmul._mode(256, 0, (), 1, 9, 9, 13) == "s"  # transposed, odd M
    assert gpu_matmul._mode(260, 0, (), 12, 1, 8, 12) == "sk"  # buffer not whole vec4s
    assert gpu_matmul._mode(256, 2, (), 12, 1, 8, 12) == "sk"  # misaligned offset


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", [
    ((2, 3, 4, 5), (2, 3, 5, 6)),  # plain batch
    ((2, 1, 3, 4), (5, 4, 6)),  # broadcast batch dims, missing leading dim
    ((1, 7, 8), (4, 8, 2)),
    ((3, 65, 9), (9, 66)),  # 2-D operand against a batch, > one tile
    ((6,), (3, 6, 4)),  # 1-D first operand
    ((2, 5, 6), (6,)),  # 1-D second operand
], ids=str)
def test_matmul_batched(dt, shapes):
    sa, sb = shapes
    a, b = _data(dt, sa, 5), _data(dt, sb, 6)
    c, g = _both(wt.matmul, a, b, dt)
    aa = a[None, :] if a.ndim == 1 else a
    bb = b[:, None] if b.ndim == 1 else b
    _check(c, g, aa, bb)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", [((3, 0), (0, 4)), ((0, 5), (5, 3)), ((4, 5), (5, 0)),
                                    ((2, 0, 3), (3, 3))], ids=str)
def test_matmul_empty(dt, shapes):
    sa, sb = shapes
    a, b = _data(dt, sa, 7), _data(dt, sb, 8)
    c, g = _both(wt.matmul, a, b, dt)
    assert g.shape == c.shape and np.asarray(g).tobytes() == np.asarray(c).tobytes()


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_backend_matmul_k0_fills_zero(dt):
    # The frontend fills K=0 results itself; the primitive must still honour the contract.
    out = empty((3, 4), dt, GPU)
    B.fill(out, 7)
    a = wt.zeros((3, 0), dtype=dt, device=GPU)
    b = wt.zeros((0, 4), dtype=dt, device=GPU)
    B.matmul(out, a, b)
    assert np.asarray(out).tolist() == [[0] * 4] * 3


def test_matmul_integer_wraps():
    big = np.full((2, 3), 2 ** 31 - 1, np.int32)
    c, g = _both(wt.matmul, big, big.T.copy(), wt.int32)
    assert np.asarray(g).tobytes() == np.asarray(c).tobytes()
    assert np.asarray(g)[0, 0] == np.int32(3)  # 3 * (2**31 - 1)**2 mod 2**32, as int32


def test_matmul_nan_and_inf_propagate():
    a = _data(wt.float32, (5, 6), 9)
    b = _data(wt.float32, (6, 7), 10)
    a[1, 2] = np.nan
    a[3, 0] = np.inf
    b[0, :] = 0.0  # inf * 0 -> NaN on row 3
    c, g = _both(wt.matmul, a, b, wt.float32)
    _check(c, g, a, b)
    assert np.isnan(np.asarray(g)[1]).all() and np.isnan(np.asarray(g)[3]).all()


def test_matmul_large():
    a, b = _data(wt.float32, (300, 257), 11), _data(wt.float32, (257, 190), 12)
    c, g = _both(wt.matmul, a, b, wt.float32)
    _check(c, g, a, b)


def test_backend_matmul_shape_mismatch_names_the_op():
    out = empty((2, 2), wt.float32, GPU)
    a = wt.zeros((2, 3), device=GPU)
    b = wt.zeros((4, 2), device=GPU)
    with pytest.raises(ValueError, match=r"matmul: shapes \(2, 3\) @ \(4, 2\)"):
        B.matmul(out, a, b)


def test_matmul_other_dtypes_still_route():
    # Native kernels cover float32/int32/uint32; the rest is computed by the CPU device.
    before = B.routed[("matmul", "int16")]
    a = wt.asarray([[1, 2], [3, 4]], dtype=wt.int16, device=GPU)
    assert (a @ a).tolist() == [[7, 10], [15, 22]]
    assert B.routed[("matmul", "int16")] == before + 1
