"""Native WebGPU reductions, arg-reductions and scans against the CPU device.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing.  Everything goes
through the public API (``wt.sum``, ``wt.argmax``, ``wt.cumulative_sum``...) on both devices, and
an autouse fixture asserts that no reduce/arg_reduce/scan call of a native dtype was routed to
the CPU (``backend.routed`` did not grow), so the WGSL kernels really ran.

What must hold:

* int32/uint32 (wrapping), bool, max/min (NaN propagates as the canonical NaN, -0.0 < +0.0) and
  argmax/argmin (first occurrence, NaN wins, -0.0 ties +0.0) equal the CPU bit for bit.
* float32 sums, products, means and cumulative sums/products are within 1 ULP of the CPU's
  float64 left-to-right result.  Where the CPU's own float64 rounding error can reach half an
  ULP of the result (heavy cancellation), the GPU is instead checked against the exactly rounded
  sum: its triple-float accumulator is the more accurate of the two.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import (
    reduce_plan_fixture,  # noqa: F401, E402 - registers `reduce_plan`
    webgpu_or_skip,  # noqa: E402
)
from _oracle import ulps32

GPU, CPU, B = webgpu_or_skip()

np = pytest.importorskip("numpy")

from webtensor.api import _reduce  # noqa: E402
from webtensor.backends.webgpu import reduce as gpu_reduce  # noqa: E402
from webtensor.tensor import empty  # noqa: E402

# The 32-bit and bool dtypes tested here (the packed and 64-bit ones natively read too, in
# test_webgpu_wide_reduce_sort.py).
NATIVE_DTYPES = (wt.float32, wt.int32, wt.uint32, wt.bool)
PRIMS = ("reduce", "arg_reduce", "scan")
PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None)
F32_MAX = float(np.finfo(np.float32).max)


@pytest.fixture(autouse=True)
def _native_only():
    """No native-dtype reduction, arg-reduction or scan may fall back to the CPU."""
    before = B.routed.copy()
    yield
    grown = {k: n - before[k] for k, n in B.routed.items()
             if k[0] in PRIMS and k[1] in {dt.name for dt in gpu_reduce.TYPES} and n > before[k]}
    assert not grown, f"routed to the CPU: {grown}"


# -- data ------------------------------------------------------------------------------------------

def sample(dt, shape, seed=0, specials=False) -> np.ndarray:
    """Deterministic values of ``dt``: full-range ints (sums and products wrap), floats of mixed
    sign and scale, and, with ``specials``, NaN/inf/signed zeros/subnormals sprinkled in."""
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    if dt is wt.bool:
        a = rng.random(n) < 0.5
    elif dt is wt.int32:
        a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
        a[::3] = rng.integers(-9, 10, a[::3].size)
    elif dt is wt.uint32:
        a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        a[::3] = rng.integers(0, 10, a[::3].size)
    else:
        a = (rng.standard_normal(n) * np.exp(rng.uniform(-3, 3, n))).astype(np.float32)
        if specials and n:
            pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -3e-39, F32_MAX],
                            dtype=np.float32)
            pick = rng.random(n) < 0.15
            a[pick] = rng.choice(pool, int(pick.sum()))
    return a.reshape(shape)


def pair(a: np.ndarray, dt):
    return wt.asarray(a, dtype=dt, device=CPU), wt.asarray(a, dtype=dt, device=GPU)


def results(fn, a: np.ndarray, dt, view=None, **kwargs):
    """(cpu, gpu) NumPy results of ``fn(view(x), **kwargs)`` on the same data on both
    devices."""
    c, g = (x if view is None else view(x) for x in pair(a, dt))
    rc, rg = fn(c, **kwargs), fn(g, **kwargs)
    assert rg.device == GPU and rc.shape == rg.shape and rc.dtype == rg.dtype
    return np.asarray(rc), np.asarray(rg.to_device(CPU))


def check(fn, a, dt, *, max_ulp=0, bits=False, view=None, **kwargs):
    """GPU equals the CPU bit for bit (``bits``: NaN payloads too, for max/min's canonical NaN),
    or for float32 results within ``max_ulp`` with any NaN matching any NaN (IEEE leaves a
    computed NaN's sign open: the CPU's inf * 0 is a negative NaN)."""
    c, g = results(fn, a, dt, view, **kwargs)
    if c.dtype == np.float32 and not bits:
        assert ulps32(c, g).max(initial=0) <= max_ulp, (c, g)
    else:
        assert c.tobytes() == g.tobytes(), (c, g)


def scan_extremum(x, op, axis):
    """Cumulative max/min (no public function; the backend primitive through the frontend)."""
    return _reduce.scan(op, x, axis)


def exact_f32(values) -> np.float32:
    """The float32 nearest the exact sum of ``values`` (float32 values exactly in float64)."""
    return np.float32(float(sum(map(Fraction, map(float, values)), Fraction(0))))


# -- reductions over dtypes, shapes and axes ---------------------------------------------------------

CASES = [  # (shape, axis, keepdims)
    ((), None, False), ((), (), False), ((1,), None, False), ((7,), 0, True),
    ((0,), None, False), ((3, 0, 2), 1, False), ((3, 0, 2), (0, 2), True),
    ((5, 300), 1, False), ((5, 300), 0, True), ((300, 5), -1, False),
    ((2, 3, 4, 5), (0, 2), False), ((2, 3, 4, 5), (-1, -3), True), ((2, 3, 4, 5), None, False),
    ((2, 16500), 1, False),  # rows of two chunks: a second pass over partials
    ((40000,), None, False),
]
SUM_LIKE = {"sum": wt.sum, "prod": wt.prod}
EXTREMA = {"max": wt.max, "min": wt.min}
LOGICAL = {"any": wt.any, "all": wt.all}


@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=str)
@pytest.mark.parametrize("shape,axis,keepdims", CASES, ids=str)
def test_reductions(dt, shape, axis, keepdims, reduce_plan):
    a = sample(dt, shape, seed=len(shape) + sum(shape))
    empty_axis = 0 in shape and (axis is None or any(
        shape[i] == 0 for i in ((axis,) if isinstance(axis, int) else axis)))
    tol = 1 if dt is wt.float32 else 0
    for fn in SUM_LIKE.values():
        check(fn, a, dt, axis=axis, keepdims=keepdims, max_ulp=tol)
    for fn in LOGICAL.values():
        check(fn, a, dt, axis=axis, keepdims=keepdims)
    for fn in EXTREMA.values():
        if empty_axis:  # no identity: both devices refuse the same way
            for x in pair(a, dt):
                with pytest.raises(ValueError, match="zero-size reduction"):
                    fn(x, axis=axis)
        else:
            check(fn, a, dt, axis=axis, keepdims=keepdims, bits=True)
    if dt is wt.float32:
        check(wt.mean, a, dt, max_ulp=1, axis=axis, keepdims=keepdims)


VIEWS = {
    "transposed": lambda x: wt.permute_dims(x, (2, 0, 1)),
    "stepped": lambda x: x[::2, 1::3, :],
    "flipped": lambda x: x[::-1, :, ::-2],
    "offset": lambda x: x[1:, 2:, 3:],
    "broadcast": lambda x: wt.broadcast_to(x[:, :1, :], (6, 5, 7)),
}


@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=str)
@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_reductions_of_views(dt, view, reduce_plan):
    a = sample(dt, (6, 10, 7), seed=3, specials=True)
    make = VIEWS[view]
    tol = 1 if dt is wt.float32 else 0
    for axis in (None, 0, (1, 2), (2, 0)):
        for fn in SUM_LIKE.values():
            check(fn, a, dt, view=make, axis=axis, max_ulp=tol)
        for fn in (*EXTREMA.values(), *LOGICAL.values()):
            check(fn, a, dt, view=make, axis=axis, bits=True)
    for axis in (None, 1, -1):
        check(wt.argmax, a, dt, view=make, axis=axis)
        check(wt.argmin, a, dt, view=make, axis=axis, keepdims=True)
        check(wt.cumulative_sum, a, dt, max_ulp=tol, view=make, axis=1 if axis is None else axis)


# -- float32 special values -------------------------------------------------------------------------

SPECIAL_ROWS = [
    [-0.0, 0.0], [0.0, -0.0], [-0.0, -0.0], [-0.0], [1.0, math.nan, 2.0], [math.nan, -math.inf],
    [math.inf, -math.inf], [math.inf, 0.0], [-math.inf, -0.0, 3.0], [1e-45, -1e-45, 1e-45],
    [3e-39, 2.0 ** -100, 2.0 ** -60], [F32_MAX, F32_MAX, -F32_MAX], [-F32_MAX, -F32_MAX],
    [2.0 ** 100, 2.0 ** 100, 2.0 ** -100, 2.0 ** -100], [1e30, 1e30, 1e-30, 1e-30],
    [-2.0 ** -70, 2.0 ** -70, 2.0 ** -70],
]


@pytest.mark.parametrize("row", SPECIAL_ROWS, ids=str)
def test_float_specials(row):
    a = np.array(row, dtype=np.float32)
    for fn in (*SUM_LIKE.values(), wt.cumulative_sum, wt.cumulative_prod):
        check(fn, a, wt.float32)  # these rows are exact: no rounding tie to excuse
    for fn in (*EXTREMA.values(), *LOGICAL.values(), wt.argmax, wt.argmin):
        check(fn, a, wt.float32, bits=True)
    for op in ("max", "min"):
        check(scan_extremum, a, wt.float32, bits=True, op=op, axis=0)


@pytest.mark.parametrize("row", SPECIAL_ROWS, ids=str)
def test_float_special_sums_in_whole_groups(row):
    """The same rows inside whole groups of four, where a float sum's fast group fold runs and,
    meeting inf, NaN or float32's range, gives up and folds the chunk again one element at a
    time: with vec4 loads, scalar loads (offset 1) and a fused prologue, with each row also
    after a thousand ordinary values (the redo starts from the chunk's beginning).  -0.0 pads:
    it leaves any sum as it is."""
    ordinary = sample(wt.float32, (1000,), seed=3)
    fused = wt.jit(lambda x: wt.sum(x * 1.0))
    for head in ([], list(ordinary)):
        a = np.array([-0.0] * 4 + head + row + [-0.0] * (8 - len(row) % 4), dtype=np.float32)
        check(wt.sum, a, wt.float32)
        check(wt.sum, a, wt.float32, view=lambda x: x[4:])
        check(wt.sum, a, wt.float32, view=lambda x: x[1:])
        check(fused, a, wt.float32)


def test_signed_zero_and_nan_rules():
    """The rules themselves, checked against NumPy (not only against the CPU device)."""
    def gpu(values, fn):
        return np.asarray(fn(wt.asarray(np.array(values, dtype=np.float32), device=GPU))
                          .to_device(CPU))

    assert str(gpu([-0.0, 0.0], wt.max)) == "0.0" and str(gpu([0.0, -0.0], wt.min)) == "-0.0"
    assert str(gpu([-0.0, -0.0], wt.sum)) == "-0.0" and str(gpu([-0.0, 0.0], wt.sum)) == "0.0"
    assert int(gpu([-0.0, 0.0], wt.argmax)) == 0 and int(gpu([0.0, -0.0], wt.argmin)) == 0
    assert int(gpu([1.0, math.nan, math.nan], wt.argmin)) == 1
    nan = gpu([1.0, -math.nan, 2.0], wt.max)
    assert nan.view(np.uint32) == np.float32(np.nan).view(np.uint32)  # canonical quiet NaN
    assert np.isnan(gpu([math.inf, -math.inf], wt.sum)) and np.isnan(gpu([math.inf, 0], wt.prod))
    assert gpu([2.0 ** -100] * 2 + [2.0 ** 100] * 2, wt.prod) == 1.0  # no float32 underflow
    assert gpu([2.0 ** -75, 1.5 * 2.0 ** -75], wt.prod).view(np.uint32) == 1  # 0.75 * 2^-149
    assert gpu([2.0 ** -75, 2.0 ** -75], wt.prod).view(np.uint32) == 0  # a tie: to even
    assert gpu([F32_MAX, F32_MAX, -F32_MAX], wt.sum) == F32_MAX  # no float32 overflow


# -- integers -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", [wt.int32, wt.uint32], ids=str)
def test_integer_wraparound(dt):
    info = np.iinfo(dt.name)
    a = np.array([info.max, 1, info.max, 3, info.min, 7], dtype=dt.name)
    for fn in (wt.sum, wt.prod, wt.cumulative_sum, wt.cumulative_prod, wt.max, wt.min):
        check(fn, a, dt)
    c, g = results(wt.sum, a, dt)
    want = int(sum(int(v) for v in a)) % 2 ** 32
    assert int(g.astype(np.int64)) % 2 ** 32 == want


# -- arg reductions ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=str)
def test_arg_reductions(dt, reduce_plan):
    for shape in ((1,), (9,), (4, 33), (3, 5, 7), (2, 16500)):
        a = sample(dt, shape, seed=sum(shape), specials=True)
        if dt is not wt.bool:
            a.reshape(-1)[::5] = a.reshape(-1)[-1]  # ties: the first occurrence must win
        for axis in (None, 0, -1):
            for fn in (wt.argmax, wt.argmin):
                check(fn, a, dt, axis=axis)
                check(fn, a, dt, axis=axis, keepdims=True)


def test_argmax_long_row_first_occurrence(reduce_plan):
    a = np.zeros(1 << 18, dtype=np.float32)
    a[[70000, 200000, 262143]] = 5.0
    a[[1000, 150000]] = -5.0
    assert int(np.asarray(wt.argmax(wt.asarray(a, device=GPU)).to_device(CPU))) == 70000
    assert int(np.asarray(wt.argmin(wt.asarray(a, device=GPU)).to_device(CPU))) == 1000
    a[123456] = np.nan
    for fn in (wt.argmax, wt.argmin):
        assert int(np.asarray(fn(wt.asarray(a, device=GPU)).to_device(CPU))) == 123456


# -- scans -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=str)
@pytest.mark.parametrize("shape,axis", [((1,), 0), ((13,), 0), ((4, 300), 1), ((300, 4), 0),
                                        ((3, 2000), -1), ((2, 3, 4), 1), ((2, 0, 3), 2)],
                         ids=str)
def test_scans(dt, shape, axis):
    a = sample(dt, shape, seed=sum(shape))
    if dt is wt.float32:  # keep cumulative products in range
        a = np.where(np.abs(a) > 0, np.float32(1) + a / 64, a).astype(np.float32)
    tol = 1 if dt is wt.float32 else 0
    check(lambda x: wt.cumulative_sum(x, axis=axis), a, dt, max_ulp=tol)
    check(lambda x: wt.cumulative_prod(x, axis=axis, include_initial=True), a, dt, max_ulp=tol)
    for op in ("max", "min"):
        check(scan_extremum, a, dt, bits=True, op=op, axis=axis % len(shape))


@pytest.mark.parametrize("chunking", [(256, 4096), (8192, 256), (16, 8)], ids=str)
@pytest.mark.parametrize("dt", [wt.float32, wt.int32, wt.uint8, wt.float16, wt.int64], ids=str)
def test_scans_in_chunks(monkeypatch, dt, chunking, reduce_plan):
    """Rows cut into chunks (each chunk's total, the carries walked in order, each chunk
    rescanned from its carry) as either adapter class cuts them, and in many short chunks up
    to the per-row cap: the CPU device's results."""
    from webtensor.backends.webgpu import reduce as gpu_reduce

    monkeypatch.setattr(gpu_reduce, "SCAN_CHUNKING", {"software": chunking, "gpu": chunking})
    a = sample(dt, (3, 9000), seed=5)
    if dt is wt.float32:
        a = np.where(np.abs(a) > 0, np.float32(1) + a / 4096, a).astype(np.float32)
    tol = 1 if dt is wt.float32 else 0
    for axis in (1, 0):
        check(wt.cumulative_sum, a, dt, max_ulp=tol, axis=axis)
        check(scan_extremum, a, dt, bits=True, op="max", axis=axis)
    check(lambda x: wt.cumulative_prod(x[:, :3000], axis=1), a, dt, max_ulp=tol)


def test_scan_of_noncontiguous_long_rows():
    a = sample(wt.float32, (600, 9), seed=11)
    check(lambda x: wt.cumulative_sum(wt.permute_dims(x, (1, 0))[::2, ::-1], axis=1), a,
          wt.float32, max_ulp=1)
    check(lambda x: wt.cumulative_sum(x[3:, 1:], axis=0), a, wt.float32, max_ulp=1)


# -- accuracy: multi-pass sizes and cancellation ------------------------------------------------------

def test_multipass_sizes(reduce_plan):
    """2^22 elements (two passes for a full sum), 2^20 (max, argmin) and a one-row scan of
    2^20 (4096 chunks)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(1 << 22).astype(np.float32)
    assert gpu_reduce.plan(a.size, *gpu_reduce.REDUCE_PLANS[reduce_plan])[1] > 1
    check(wt.sum, a, wt.float32, max_ulp=1)
    check(wt.max, a[: 1 << 20], wt.float32, bits=True)
    check(wt.argmin, a[: 1 << 20], wt.float32)
    ints = rng.integers(-2**31, 2**31, 1 << 22, dtype=np.int64).astype(np.int32)
    check(wt.sum, ints, wt.int32)
    check(wt.cumulative_sum, a[: 1 << 20], wt.float32, max_ulp=1)


@pytest.mark.parametrize("precision", ["exact", "fast"])
@pytest.mark.parametrize("dt", [wt.float32, wt.int32, wt.uint32])
def test_vec4_and_scalar_loads_fold_in_the_same_order(precision, dt, monkeypatch, reduce_plan):
    """Rows starting on a whole vec4 load four elements at a time; the same values at another
    offset (or computed by a fused prologue) load one by one, in the same order: same bits,
    also for fast float sums, whose value depends on the order."""
    rng = np.random.default_rng(11)
    n = 5 * 4000 + 3
    flat = wt.asarray((rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n)).astype(np.float32),
                      device=GPU)
    if dt is not wt.float32:
        flat = wt.astype(flat * 1000, dt)
    loads = []
    compile_pass = gpu_reduce.pass_kernel

    def recording(fam, t, from_elements, out_words, slots, dims=(2, 2), fused=("", 1, 1, ""),
                  combine="tree"):
        if from_elements:
            loads.append(dims[1] == "vec4")
        return compile_pass(fam, t, from_elements, out_words, slots, dims, fused, combine)
    monkeypatch.setattr(gpu_reduce, "pass_kernel", recording)
    with wt.set_precision(precision):
        for offset in range(4):
            view = wt.reshape(flat[offset:offset + 5 * 4000], (5, 4000))
            dense = wt.asarray(view.to_device(CPU), device=GPU)
            for axis in (1, None):
                loads.clear()
                got = wt.sum(view, axis=axis)
                assert loads == [offset == 0]
                want = wt.sum(dense, axis=axis)
                assert loads == [offset == 0, True]
                assert got.tobytes() == want.tobytes(), (offset, axis)


def _barriers_of_sums(monkeypatch) -> list[list[bool]]:
    """For three float32 sums (rows of 128 and of 16384, one row of 40000), whether each
    launched pass has a workgroup barrier; each sum checked against the CPU."""
    launched = []
    launch = B.launch
    monkeypatch.setattr(B, "launch", lambda kernel, *a: (launched.append(kernel),
                                                         launch(kernel, *a))[1])
    rng = np.random.default_rng(3)
    found = []
    for shape, axis in (((128, 256), 0), ((3, 16384), 1), ((40000,), None)):
        launched.clear()
        check(wt.sum, rng.standard_normal(shape).astype(np.float32), wt.float32, axis=axis,
              max_ulp=1)
        found.append(["workgroupBarrier" in k.wgsl for k in launched])
    return found


def test_the_software_plan_has_no_tree(monkeypatch, reduce_plan):
    """The software plan folds each chunk in one invocation with no workgroup tree (a barrier
    costs a CPU adapter more than the loop), in one pass for rows of up to SOLO_ROW; the gpu
    plan combines lanes by a tree."""
    found = _barriers_of_sums(monkeypatch)
    if reduce_plan == "software":
        assert found == [[False], [False], [False, False]]
    else:
        assert all(passes[0] for passes in found), found


def test_the_adapter_takes_its_class_plan(monkeypatch):
    found = _barriers_of_sums(monkeypatch)
    assert found[0] == [not B.software], (B.software, found)


def test_large_cancellation():
    """x, a shuffled -x and small noise: the total is the noise's sum, 10^4 times smaller than
    the partial sums.  Both devices stay within 1 ULP of the exact result and of each other."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(1 << 18) * 1e4).astype(np.float32)
    noise = rng.standard_normal(4096).astype(np.float32)
    a = np.concatenate([x, -x[rng.permutation(x.size)], noise])[rng.permutation(2 * x.size
                                                                                + noise.size)]
    c, g = results(wt.sum, a, wt.float32)
    exact = np.float32(math.fsum(a.astype(np.float64)))
    assert ulps32(g, exact) <= 1 and ulps32(c, g) <= 1
    check(wt.cumulative_sum, a, wt.float32, max_ulp=1)


def test_sum_more_accurate_than_float64():
    """A case where the CPU's float64 running sum drifts by ~20 ULP: 10^4 x 1e-3 added to 1e8
    round at float64's 2^-26 step each time.  The GPU's triple-float keeps them exactly."""
    a = np.concatenate([[1e8], np.full(10000, 1e-3), [-1e8]]).astype(np.float32)
    g = np.asarray(wt.sum(wt.asarray(a, device=GPU)).to_device(CPU))
    assert g == exact_f32(a)
    prefix = np.asarray(wt.cumulative_sum(wt.asarray(a, device=GPU)).to_device(CPU))
    assert prefix[-1] == exact_f32(a) and prefix[0] == np.float32(1e8)


def _within_rule(values, got) -> None:
    """``got`` (GPU) is within 1 ULP of the CPU's float64 sequential sum when that sum's own
    error bound is below half an ULP of the result; else within 1 ULP of the exact sum
    (plus the triple-float's error bound, 2^-66 of the magnitude sum per element)."""
    wide = np.asarray(values, dtype=np.float64)
    exact = exact_f32(values)
    magnitude = float(np.abs(wide).sum())
    cpu = np.float32(np.add.accumulate(wide)[-1]) if wide.size else np.float32(0)
    half_ulp = float(np.spacing(np.abs(exact))) / 2 if exact else 2.0 ** -150
    if wide.size * 2.0 ** -53 * magnitude < half_ulp:
        assert ulps32(np.float32(got), cpu) <= 1, (got, cpu)
    else:
        slack = wide.size * 2.0 ** -66 * magnitude
        assert abs(float(got) - float(exact)) <= 2 * half_ulp + slack, (got, exact)


_F32 = st.floats(width=32, allow_nan=False, allow_infinity=False, min_value=-2.0 ** 100,
                 max_value=2.0 ** 100)


@st.composite
def _cancelling(draw):
    """Values, their negations in another order and a little noise: sums that cancel."""
    xs = draw(st.lists(_F32, min_size=1, max_size=24))
    noise = draw(st.lists(_F32.map(lambda v: float(np.float32(v * 1e-6))), max_size=4))
    items = xs + [-v for v in xs] + noise
    return draw(st.permutations(items))


@PROPERTY
@given(st.one_of(st.lists(_F32, min_size=1, max_size=80), _cancelling()))
def test_float_sum_property(values):
    a = np.array(values, dtype=np.float32)
    g = wt.asarray(a, device=GPU)
    total = np.asarray(wt.sum(g).to_device(CPU))
    _within_rule(a, total)
    prefix = np.asarray(wt.cumulative_sum(g).to_device(CPU))
    for k in (0, len(a) // 2, len(a) - 1):
        _within_rule(a[: k + 1], prefix[k])
    mean_c, mean_g = results(wt.mean, a, wt.float32)
    if ulps32(np.float32(total), np.float32(np.add.accumulate(a.astype(np.float64))[-1])) == 0:
        assert ulps32(mean_c, mean_g) <= 1


@PROPERTY
@given(st.lists(st.floats(0.5, 2.0, width=32) | st.sampled_from([0.0, -0.0, -1.0, 3e-39]),
                min_size=1, max_size=200))
def test_float_prod_property(values):
    a = np.array(values, dtype=np.float32)
    check(wt.prod, a, wt.float32, max_ulp=1)
    check(wt.cumulative_prod, a, wt.float32, max_ulp=1)


# -- routing, errors, capabilities -------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:webgpu. float64")
def test_non_native_dtypes_route_and_match():
    before = B.routed[("reduce", "float64")]
    a = sample(wt.float32, (4, 5), seed=2).astype(np.float64)
    check(lambda x: wt.sum(x, axis=1), a, wt.float64)
    assert B.routed[("reduce", "float64")] == before + 1
    caps = B.capabilities()
    for prim in PRIMS:
        assert {caps[prim][dt.name] for dt in NATIVE_DTYPES} == {"native"}
        assert caps[prim]["float64"] == "cpu"


def _gpu_out(shape, dt):
    return empty(shape, dt, GPU)


def test_bad_calls_name_the_problem():
    x = wt.asarray(np.ones((2, 3), dtype=np.float32), device=GPU)
    with pytest.raises(ValueError, match="reduce: unknown op 'median'"):
        B.reduce("median", _gpu_out((2,), wt.float32), x, (1,))
    with pytest.raises(ValueError, match="arg_reduce: unknown op 'argfoo'"):
        B.arg_reduce("argfoo", _gpu_out((2,), wt.int64), x, 1)
    with pytest.raises(ValueError, match="scan: unknown op 'mean'"):
        B.scan("mean", _gpu_out((2, 3), wt.float32), x, 1)
    with pytest.raises(ValueError, match=r"axis 2 is out of range .* shape \(2, 3\)"):
        B.reduce("sum", _gpu_out((2,), wt.float32), x, (2,))
    with pytest.raises(ValueError, match="axis 1 is repeated"):
        B.reduce("sum", _gpu_out((2,), wt.float32), x, (1, -1))
    hollow = wt.asarray(np.ones((2, 0), dtype=np.float32), device=GPU)
    with pytest.raises(ValueError, match="over an empty axis"):
        B.reduce("max", _gpu_out((2,), wt.float32), hollow, (1,))
    with pytest.raises(ValueError, match="argmax of an empty axis 1"):
        B.arg_reduce("argmax", _gpu_out((2,), wt.int64), hollow, 1)


def test_random_shapes_against_cpu():
    """Random ranks, sizes and axis sets (a deterministic sample) for every native dtype."""
    rnd = random.Random(42)
    for i in range(24):
        shape = tuple(rnd.choice((1, 2, 3, 5, 17, 40)) for _ in range(rnd.randint(1, 4)))
        axes = tuple(sorted(rnd.sample(range(len(shape)), rnd.randint(1, len(shape)))))
        dt = NATIVE_DTYPES[i % len(NATIVE_DTYPES)]
        a = sample(dt, shape, seed=i, specials=True)
        tol = 1 if dt is wt.float32 else 0
        check(wt.sum, a, dt, max_ulp=tol, axis=axes)
        check(wt.max, a, dt, bits=True, axis=axes, keepdims=True)
        check(wt.any, a, dt, axis=axes)
