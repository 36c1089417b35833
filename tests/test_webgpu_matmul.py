"""Native WebGPU matmul against the CPU device.

Skipped (reason printed) without wgpu, a WebGPU adapter or NumPy (the oracle's bound is
computed with NumPy).  What must hold, through ``wt.matmul`` / ``@`` (and ``backend.matmul``
for bool, which the frontend computes in int32):

* Integers and bool: bit-identical to the CPU (products and sums wrap modulo 2**bits; 8/16-bit
  results are the low bits of a 32-bit accumulation, int64/uint64 are exact two-word sums).
* float32: the kernel accumulates with fma in k order, so each element is within
  ``gamma_K * S`` of the exact dot product, ``S = sum_k |a_ik| |b_kj|``; the CPU rounds an
  exact-product float64 sum once (within ``2**-24 * S``).  Hence the bound
  ``|gpu - cpu| <= (K + 2) * 2**-24 * S`` per element (``gamma_K < (K + 1) * 2**-24`` for the
  sizes here).  NaN appears exactly where the CPU has NaN.
* float16/bfloat16: the same f32 accumulation, then each side rounds once to the dtype (unit
  roundoff ``u``: 2**-11, 2**-8; the CPU's bfloat16 goes through float32), so
  ``|gpu - cpu| <= ((K + 2) * 2**-24 + 2.5 * u) * S + tiny`` (``tiny``: float16's smallest
  subnormal).  With integer-valued inputs every f32 step is exact and the bits must agree.
* complex64: two fma per part and step, so each part is within ``(2K + 3) * 2**-24 * S`` with
  ``S = sum_k (|re a| + |im a|) (|re b| + |im b|)``.
* No call is routed to the CPU (``backend.routed`` does not grow).
"""

from __future__ import annotations

import math
import warnings

import pytest

from _gpu import webgpu_or_skip  # noqa: E402

GPU, CPU, B = webgpu_or_skip()

np = pytest.importorskip("numpy", reason="the float error bounds are computed with NumPy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor.backends.webgpu import matmul as gpu_matmul  # noqa: E402
from webtensor.tensor import empty  # noqa: E402

FAST = (wt.float32, wt.int32, wt.uint32)  # vec4 kernels (shaders/matmul.wgsl)
OTHER = (wt.int8, wt.uint8, wt.int16, wt.uint16, wt.int64, wt.uint64, wt.float16,
         wt.bfloat16, wt.complex64)  # cast up (gpu_matmul.WIDENED) or matmul_any.wgsl
DTYPES = FAST + OTHER
# unit roundoff and smallest subnormal of the narrow floats
_NARROW = {wt.float16: (2.0 ** -11, 2.0 ** -24), wt.bfloat16: (2.0 ** -8, 2.0 ** -133)}


def _routed() -> int:
    return sum(n for (prim, _dt), n in B.routed.items() if prim == "matmul")


def _data(dt, shape, seed):
    """Random NumPy values for ``dt``: normal floats, integers over the whole range."""
    rng = np.random.default_rng(seed)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(np.float32)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    if dt.kind == "b":
        return rng.random(shape) < 0.3
    info = np.iinfo(np.dtype(dt.name))
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=info.dtype)


def _as_multiplied(x, dt):
    """The values ``x`` holds as a ``dt`` tensor, exactly, in float64 / complex128."""
    t = wt.asarray(x, dtype=dt, device=CPU)
    return np.asarray(wt.astype(t, wt.complex128 if dt.kind == "c" else wt.float64))


def _check(c, g, a, b) -> None:
    """``g`` (webgpu) against ``c`` (cpu) for inputs ``a``, ``b`` (float64/complex128 NumPy
    arrays of the values as multiplied)."""
    assert g.device == GPU and g.shape == c.shape and g.dtype == c.dtype
    if c.dtype.kind not in "fc":
        assert c.tobytes() == g.tobytes()
        return
    k = a.shape[-1]
    cv, gv = np.asarray(c), np.asarray(g)
    with np.errstate(invalid="ignore"):  # inf * 0 in the bound where the result is NaN anyway
        if c.dtype.kind == "c":
            s = np.matmul(np.abs(a.real) + np.abs(a.imag), np.abs(b.real) + np.abs(b.imag))
            scale, tiny = (2 * k + 3) * 2.0 ** -24, 0.0
        else:
            s = np.matmul(np.abs(a), np.abs(b))
            u, tiny = _NARROW.get(c.dtype, (0.0, 0.0))
            scale = (k + 2) * 2.0 ** -24 + 2.5 * u
    s = s.reshape(cv.shape) if s.size == cv.size else np.broadcast_to(s, cv.shape)
    parts = ((cv.real, gv.real), (cv.imag, gv.imag)) if c.dtype.kind == "c" else ((cv, gv),)
    for cp, gp in parts:
        nan = np.isnan(cp)
        assert (np.isnan(gp) == nan).all()
        err = np.abs(gp.astype(np.float64) - cp.astype(np.float64))[~nan]
        assert (err <= scale * s[~nan] + tiny).all(), err.max()


def _both(fn, a, b, dt):
    """``fn`` on the CPU and on the GPU; the GPU call must not route to the CPU."""
    before = _routed()
    c = fn(wt.asarray(a, dtype=dt, device=CPU), wt.asarray(b, dtype=dt, device=CPU))
    g = fn(wt.asarray(a, dtype=dt, device=GPU), wt.asarray(b, dtype=dt, device=GPU))
    assert _routed() == before
    return c, g


def _compare(fn, a, b, dt, a_as=None, b_as=None) -> None:
    c, g = _both(fn, a, b, dt)
    aa, bb = (_as_multiplied(x, dt) for x in (a if a_as is None else a_as,
                                               b if b_as is None else b_as))
    _check(c, g, aa, bb)


SHAPES = [  # (m, k, n): single elements, vectors, ragged edges, several tiles
    (1, 1, 1), (1, 9, 1), (1, 37, 70), (70, 37, 1), (5, 7, 3), (4, 8, 12), (64, 64, 64),
    (65, 17, 130), (33, 100, 67),
]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("mkn", SHAPES, ids=str)
def test_matmul_shapes(dt, mkn):
    m, k, n = mkn
    _compare(lambda x, y: x @ y, _data(dt, (m, k), 1), _data(dt, (k, n), 2), dt)


# Layouts select the tile loaders: row-major with K, N multiples of 4 (vec4 along k for A,
# along columns for B), transposed views (vec4 along rows for A, along k for B), odd sizes and
# strided, flipped or shifted views (scalar loads; for packed dtypes, elements in the middle of
# a word).
LAYOUTS = {
    "plain": lambda x: x,
    "transposed": lambda x: wt.asarray(x.mT, copy=True).mT,
    "every_other_row": lambda x: wt.concat([x, x], axis=-2)[..., ::2, :],
    "flipped": lambda x: wt.flip(wt.flip(x, axis=-1), axis=-1),
    "negative_stride": lambda x: wt.flip(wt.asarray(wt.flip(x, axis=-2), copy=True), axis=-2),
    "shifted": lambda x: wt.concat([x[..., :1, :], x], axis=-2)[..., 1:, :],
}


@pytest.mark.parametrize("layout_a", LAYOUTS)
@pytest.mark.parametrize("layout_b", LAYOUTS)
@pytest.mark.parametrize("mkn", [(8, 12, 16), (9, 13, 11)], ids=str)
def test_matmul_views(layout_a, layout_b, mkn):
    m, k, n = mkn
    dt = wt.float32
    a, b = _data(dt, (m, k), 3), _data(dt, (k, n), 4)
    _compare(lambda x, y: LAYOUTS[layout_a](x) @ LAYOUTS[layout_b](y), a, b, dt)


@pytest.mark.parametrize("dt", OTHER, ids=str)
@pytest.mark.parametrize("layouts", [("transposed", "every_other_row"),
                                     ("negative_stride", "flipped"),
                                     ("shifted", "transposed"), ("every_other_row", "shifted")],
                         ids=str)
def test_matmul_views_other_dtypes(dt, layouts):
    layout_a, layout_b = layouts
    a, b = _data(dt, (9, 13), 13), _data(dt, (13, 11), 14)
    _compare(lambda x, y: LAYOUTS[layout_a](x) @ LAYOUTS[layout_b](y), a, b, dt)


def test_loader_modes_cover_every_layout():
    # The layouts above reach every loader; this pins the selection rule they rely on.
    assert gpu_matmul._mode(256, 0, (), 12, 1, 8, 12) == "k"  # row-major A
    assert gpu_matmul._mode(256, 0, (), 1, 8, 8, 12) == "r"  # transposed A
    assert gpu_matmul._mode(256, 0, (), 13, 1, 9, 13) == "sk"  # odd K
    assert gpu_matmul._mode(256, 0, (), 1, 9, 9, 13) == "s"  # transposed, odd M
    assert gpu_matmul._mode(260, 0, (), 12, 1, 8, 12) == "sk"  # buffer not whole vec4s
    assert gpu_matmul._mode(256, 2, (), 12, 1, 8, 12) == "sk"  # misaligned offset
    assert gpu_matmul._scalar_mode(12, 1) == "sk" and gpu_matmul._scalar_mode(1, 12) == "s"


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
    _compare(wt.matmul, a, b, dt, a[None, :] if a.ndim == 1 else a,
             b[:, None] if b.ndim == 1 else b)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", [((3, 0), (0, 4)), ((0, 5), (5, 3)), ((4, 5), (5, 0)),
                                    ((2, 0, 3), (3, 3))], ids=str)
def test_matmul_empty(dt, shapes):
    sa, sb = shapes
    c, g = _both(wt.matmul, _data(dt, sa, 7), _data(dt, sb, 8), dt)
    assert g.shape == c.shape and g.tobytes() == c.tobytes()


@pytest.mark.parametrize("dt", DTYPES + (wt.bool,), ids=str)
def test_backend_matmul_k0_fills_zero(dt):
    # The frontend fills K=0 results itself; the primitive must still honour the contract.
    out = empty((3, 4), dt, GPU)
    B.fill(out, 7)
    a = wt.zeros((3, 0), dtype=dt, device=GPU)
    b = wt.zeros((0, 4), dtype=dt, device=GPU)
    B.matmul(out, a, b)
    assert out.tolist() == [[0] * 4] * 3


@pytest.mark.parametrize("mkn", [(1, 1, 1), (5, 7, 3), (65, 9, 130), (3, 300, 5)], ids=str)
@pytest.mark.parametrize("layout", ["plain", "transposed", "shifted"])
def test_backend_bool_matmul(mkn, layout):
    # The frontend sends bool as int32; the backend primitive still takes bool (OR of ANDs),
    # packed four to a word, and must match the CPU device's primitive.
    m, k, n = mkn
    results = []
    for dev in (CPU, GPU):
        a = LAYOUTS[layout](wt.asarray(_data(wt.bool, (m, k), 15), device=dev))
        b = LAYOUTS[layout](wt.asarray(_data(wt.bool, (k, n), 16), device=dev))
        out = empty((m, n), wt.bool, dev)
        before = _routed()
        dev.backend.matmul(out, a, b)
        assert _routed() == before
        results.append(out)
    assert results[0].tobytes() == results[1].tobytes()
    assert results[1].tolist() == (wt.asarray(results[0].tolist()) != 0).tolist()


def test_frontend_bool_matmul_matches_cpu():
    a, b = _data(wt.bool, (6, 40), 17), _data(wt.bool, (40, 7), 18)
    c, g = _both(wt.matmul, a, b, wt.bool)
    assert g.dtype is wt.bool and g.tobytes() == c.tobytes()
    assert g.tolist() == np.matmul(a, b).tolist()


# Wrapping, checked against Python integers (independent of both devices).
WRAP_CASES = [
    (wt.int8, 127, -128), (wt.uint8, 255, 255), (wt.int16, -32768, 32767),
    (wt.uint16, 65535, 65535), (wt.int32, 2 ** 31 - 1, 2 ** 31 - 1),
    (wt.int64, 2 ** 63 - 1, -(2 ** 63)), (wt.int64, -(2 ** 63) + 12345, 2 ** 40 + 7),
    (wt.uint64, 2 ** 64 - 1, 2 ** 63 + 5),
]


@pytest.mark.parametrize("case", WRAP_CASES, ids=str)
def test_matmul_integer_wraps(case):
    dt, x, y = case
    k = 3
    a = wt.full((2, k), x, dtype=dt, device=GPU)
    b = wt.full((k, 2), y, dtype=dt, device=GPU)
    bits = dt.itemsize * 8
    want = (k * x * y) % 2 ** bits
    if dt.kind == "i" and want >= 2 ** (bits - 1):
        want -= 2 ** bits
    before = _routed()
    assert (a @ b).tolist() == [[want] * 2] * 2
    assert _routed() == before


@pytest.mark.parametrize("dt", [wt.float16, wt.bfloat16], ids=str)
@pytest.mark.parametrize("mkn", [(5, 70, 9), (33, 130, 66)], ids=str)
def test_matmul_narrow_float_integers_exact(dt, mkn):
    # Integer values: products and sums are exact in f32 (|sum| < 2**24), so both devices round
    # the same exact value once, including ties (sums exceed the dtype's integer range).
    m, k, n = mkn
    rng = np.random.default_rng(19)
    a = rng.integers(-16, 17, (m, k)).astype(np.float32)
    b = rng.integers(-16, 17, (k, n)).astype(np.float32)
    c, g = _both(wt.matmul, a, b, dt)
    assert g.tobytes() == c.tobytes()
    assert (np.abs(np.asarray(c)) > 2 ** (11 if dt is wt.float16 else 8)).any()


@pytest.mark.parametrize("dt", [wt.float32, wt.float16, wt.bfloat16], ids=str)
def test_matmul_nan_and_inf_propagate(dt):
    a = _data(dt, (5, 6), 9)
    b = _data(dt, (6, 7), 10)
    a[1, 2] = np.nan
    a[3, 0] = np.inf
    b[0, :] = 0.0  # inf * 0 -> NaN on row 3
    c, g = _both(wt.matmul, a, b, dt)
    _check(c, g, _as_multiplied(a, dt), _as_multiplied(b, dt))
    assert np.isnan(np.asarray(g)[1]).all() and np.isnan(np.asarray(g)[3]).all()


@pytest.mark.parametrize("dt", [wt.float16, wt.bfloat16, wt.int8, wt.int16, wt.uint8,
                                wt.uint16], ids=str)
def test_narrow_dtypes_multiply_as_their_wide_dtype(monkeypatch, dt):
    """float16/bfloat16 and 8/16-bit integer products are the wide dtype's product of the
    operands cast up, cast down (float32's exact-product accumulation rounded once; integers
    wrapped), bit for bit, through the 32-bit kernels (no matmul_any.wgsl launch): plain,
    transposed and batched operands."""
    wide = {"f": wt.float32, "i": wt.int32, "u": wt.uint32}[dt.kind]
    element_kernels = []
    any_kernel = gpu_matmul.any_kernel
    monkeypatch.setattr(gpu_matmul, "any_kernel", lambda *a: (element_kernels.append(a),
                                                               any_kernel(*a))[1])
    rng = np.random.default_rng(4)
    scale = 3.0 if dt.kind == "f" else 40.0
    cases = [((64, 70), (70, 36), False), ((70, 64), (70, 36), True),
             ((3, 20, 16), (16, 12), False), ((5, 3), (3, 2), False)]
    for shape_a, shape_b, transpose in cases:
        a = wt.astype(wt.asarray(rng.standard_normal(shape_a).astype(np.float32) * scale,
                                 device=GPU), dt)
        b = wt.astype(wt.asarray(rng.standard_normal(shape_b).astype(np.float32) * scale,
                                 device=GPU), dt)
        if transpose:
            a = wt.matrix_transpose(a)
        got = a @ b
        assert not element_kernels, element_kernels
        want = wt.astype(wt.astype(a, wide) @ wt.astype(b, wide), dt)
        assert got.dtype is dt and got.tobytes() == want.tobytes(), (dt, shape_a, shape_b)
        c = wt.asarray(a.to_device(CPU)) @ wt.asarray(b.to_device(CPU))
        if dt.kind != "f":  # the CPU wraps the same way
            assert got.to_device(CPU).tobytes() == c.tobytes()


def test_matmul_float16_overflow_and_subnormals():
    # Rounded once at the end: a sum past 65504 is inf, tiny sums keep float16 subnormals.
    big = np.full((2, 4), 200.0, np.float32)
    tiny = np.full((2, 4), 2.0 ** -12, np.float32)
    for a, b in ((big, big.T.copy()), (tiny, tiny.T.copy())):
        c, g = _both(wt.matmul, a, b, wt.float16)
        assert g.tobytes() == c.tobytes()
    assert np.asarray(g)[0, 0] == np.float16(4 * 2.0 ** -24)


def test_matmul_complex64_parts():
    # Each part of the complex product: re = ar br - ai bi, im = ar bi + ai br.
    a = np.array([[1 + 2j, 3 - 1j]], np.complex64)
    b = np.array([[2 - 1j], [-1j]], np.complex64)
    c, g = _both(wt.matmul, a, b, wt.complex64)
    assert g.tolist() == c.tolist() == [[(1 + 2j) * (2 - 1j) + (3 - 1j) * -1j]]


def test_matmul_large():
    a, b = _data(wt.float32, (300, 257), 11), _data(wt.float32, (257, 190), 12)
    _compare(wt.matmul, a, b, wt.float32)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(OTHER), st.integers(1, 70), st.integers(1, 40), st.integers(1, 70),
       st.integers(1, 3), st.booleans(), st.integers(0, 2 ** 32 - 1))
def test_matmul_property_matches_cpu(dt, m, k, n, batch, transpose_b, seed):
    a, b = _data(dt, (batch, m, k), seed), _data(dt, (k, n), seed + 1)
    layout = LAYOUTS["transposed" if transpose_b else "plain"]
    _compare(lambda x, y: x @ layout(y), a, b, dt)


def test_backend_matmul_shape_mismatch_names_the_op():
    out = empty((2, 2), wt.float32, GPU)
    a = wt.zeros((2, 3), device=GPU)
    b = wt.zeros((4, 2), device=GPU)
    with pytest.raises(ValueError, match=r"matmul: shapes \(2, 3\) @ \(4, 2\)"):
        B.matmul(out, a, b)


def test_capabilities_matmul_row():
    row = B.capabilities()["matmul"]
    assert {name for name, status in row.items() if status == "native"} == {
        dt.name for dt in DTYPES + (wt.bool,)}
    assert row["float64"] == row["complex128"] == "cpu"


def test_matmul_float64_still_routes():
    # WGSL has no 64-bit floats: float64 is computed by the CPU device.
    before = B.routed[("matmul", "float64")]
    a = wt.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=wt.float64, device=GPU)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert (a @ a).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert B.routed[("matmul", "float64")] == before + 1


@pytest.mark.parametrize("shape", [((300, 64), (64, 3)), ((2, 300), (300, 64)),
                                   ((5, 7), (7, 1)), ((4, 3, 9), (9, 2)), ((33, 5), (5, 70)),
                                   ((10, 7), (7, 10), "transposed")])
@pytest.mark.parametrize("strip", ["i", "j"])
@pytest.mark.parametrize("dt", [wt.float32, wt.int32])
def test_small_kernel_has_the_tiled_kernels_bits(shape, strip, dt, monkeypatch):
    """Skinny outputs and short k take strips of four outputs along a column ("i") or a row
    ("j") per work item, lanes past the edge idle; the result is the tiled kernel's, bit for
    bit (fma in k order, zero products up to a multiple of 16)."""
    from webtensor.backends.webgpu import matmul as mm

    n_a, n_b = math.prod(shape[0]), math.prod(shape[1])
    a = wt.reshape(wt.astype(wt.arange(n_a, device=GPU) % 17 - 8, dt) * (0.37 if dt.kind == "f"
                                                                         else 1), shape[0])
    b = wt.reshape(wt.astype(wt.arange(n_b, device=GPU) % 13 - 6, dt) * (-1.3 if dt.kind == "f"
                                                                          else 1), shape[1])
    if shape[2:]:  # strided operands: both transposed views
        a, b = wt.reshape(a, shape[0][::-1]).mT, wt.reshape(b, shape[1][::-1]).mT
    monkeypatch.setattr(mm, "small_strip", lambda m, n: strip)
    small = (a @ b).tobytes()
    monkeypatch.setattr(mm, "SMALL", 0)
    monkeypatch.setattr(mm, "_direct_mode", lambda *args: None)
    tiled = (a @ b).tobytes()
    assert small == tiled
