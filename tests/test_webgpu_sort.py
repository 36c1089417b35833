"""Native WebGPU sort/argsort (``backends/webgpu/sort.py``) against the CPU device, bit for bit.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing.

What must hold for float32, int32, uint32 and bool, with either algorithm (the ``method``
fixture forces the radix sort or the bitonic network for every length; without it the
``RADIX_FROM`` table picks, which the crossover property checks on both sides):

* ``wt.sort`` / ``wt.argsort`` on the webgpu device give the CPU device's bytes exactly (values
  with their NaN payloads and signs of zero, int64 indices) along every axis of any view, both
  directions, rows of any length (short rows by the thousand, one row of 2**20);
* ties keep their original order (-0.0 ties with +0.0, every NaN ties with every NaN);
* the native path ran: ``backend.routed`` did not grow for these dtypes; float64 and complex
  still route to the CPU and stay correct (the packed and 64-bit dtypes are tested in
  test_webgpu_wide_reduce_sort.py);
* functions built on sorting (unique, median, quantile, nonzero, isin) agree with the CPU.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402

GPU, CPU, B = webgpu_or_skip()

# NumPy is the data source and oracle; under Pyodide without it the module is skipped.
np = pytest.importorskip("numpy")

from webtensor.backends.webgpu import sort as gpu_sort  # noqa: E402

NATIVE_DTYPES = (wt.float32, wt.int32, wt.uint32, wt.bool)
NP = {wt.float32: np.float32, wt.int32: np.int32, wt.uint32: np.uint32, wt.bool: np.bool_}
FUNCTIONS = {"sort": wt.sort, "argsort": wt.argsort}


def _f32(bits: int) -> np.float32:
    return np.frombuffer(struct.pack("<I", bits), np.float32)[0]


# NaNs of both signs and several payloads, both zeros, infinities, denormals.
SPECIAL_F32 = np.array(
    [_f32(0x7FC00000), _f32(0xFFC00000), _f32(0x7F800001), _f32(0xFFAB_CDEF), np.inf, -np.inf,
     0.0, -0.0, _f32(0x00000001), _f32(0x80000001), 1.0, -1.0, np.finfo(np.float32).max,
     np.finfo(np.float32).min], dtype=np.float32)


def sample(dt, shape, seed: int = 0, spread: int = 4) -> np.ndarray:
    """Values of ``dt`` with many ties (``spread`` distinct ordinary values) plus edge cases."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    if dt is wt.bool:
        return rng.random(size).reshape(shape) < 0.5
    if dt is wt.float32:
        pool = np.concatenate([SPECIAL_F32, np.arange(-spread, spread, dtype=np.float32) / 2])
    else:
        info = np.iinfo(NP[dt])
        pool = np.concatenate([np.array([info.min, info.max, info.min + 1, info.max - 1, 0]),
                               np.arange(spread) + (0 if dt is wt.uint32 else -spread // 2)])
        pool = pool.astype(NP[dt])
    return pool[rng.integers(0, len(pool), size)].reshape(shape)


def native_counts() -> dict:
    return {k: v for k, v in B.routed.items() if k[0] in FUNCTIONS}


def assert_same(got, want, context) -> None:
    assert got.device == GPU and want.device == CPU, context
    assert got.shape == want.shape and got.dtype is want.dtype, context
    g, w = got.tobytes(), want.tobytes()
    if g != w:
        gv, wv = np.asarray(got.to_device(CPU)), np.asarray(want)
        bad = np.flatnonzero(gv.reshape(-1).view(np.uint8 if gv.dtype == bool else gv.dtype)
                             != wv.reshape(-1).view(np.uint8 if wv.dtype == bool else wv.dtype))
        pytest.fail(f"{context}: {bad.size} elements differ, first at {bad[:5]}: gpu "
                    f"{gv.reshape(-1)[bad[:5]]} cpu {wv.reshape(-1)[bad[:5]]}")


def check_both(view_fn, data: np.ndarray, axis, descending: bool, context: str = "") -> None:
    """sort and argsort of ``view_fn(tensor)`` on both devices, and the native path ran."""
    before = native_counts()
    g_in, c_in = view_fn(wt.asarray(data, device=GPU)), view_fn(wt.asarray(data, device=CPU))
    for name, fn in FUNCTIONS.items():
        got = fn(g_in, axis=axis, descending=descending)
        want = fn(c_in, axis=axis, descending=descending)
        assert_same(got, want, f"{name} {context} shape {c_in.shape} axis {axis} "
                               f"descending {descending}")
    assert native_counts() == before, "sort/argsort were routed to the CPU"


def identity(t):
    return t


NEVER = {1: (), 2: ()}
ALWAYS = {1: ((1, 1),), 2: ((1, 1),)}


@pytest.fixture(params=["bitonic", "radix"])
def method(request, monkeypatch):
    """Force one algorithm for every sort of the test."""
    monkeypatch.setattr(gpu_sort, "RADIX_FROM", ALWAYS if request.param == "radix" else NEVER)
    return request.param


# -- dtypes, axes, directions --------------------------------------------------------------------

@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("shape", [(1,), (7,), (5, 6), (3, 4, 9), (2, 1, 3, 5)])
def test_every_axis_matches_cpu(dt, descending, shape, method):
    data = sample(dt, shape, seed=len(shape))
    for axis in [*range(len(shape)), -1]:
        check_both(identity, data, axis, descending, dt.name)


@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("n", [2, 3, 255, 1023, 1024, 1025, 2047, 2048, 2049, 5000])
def test_row_lengths_around_the_workgroup_block(dt, n, method):
    """Padding to a power of two, and the multi-dispatch network past 1024 elements."""
    data = sample(dt, (3, n), seed=n, spread=n // 3 + 2)
    check_both(identity, data, -1, n % 2 == 1, f"{dt.name} n={n}")
    check_both(identity, data, 0, n % 2 == 0, f"{dt.name} n={n} axis 0")


def test_many_short_rows():
    data = sample(wt.float32, (20000, 3), seed=3)
    check_both(identity, data, -1, False, "20000 rows of 3")
    check_both(identity, sample(wt.int32, (3, 4001), seed=4), 0, True, "4001 columns of 3")


def test_one_row_of_two_to_the_twenty():
    """A long row: 10 stages past the workgroup block (55 global steps); ties everywhere."""
    rng = np.random.default_rng(20)
    data = rng.integers(-1000, 1000, 1 << 20).astype(np.float32)
    data[rng.integers(0, data.size, 100)] = np.nan
    data[rng.integers(0, data.size, 100)] = -0.0
    before = native_counts()
    got = np.asarray(wt.argsort(wt.asarray(data, device=GPU)).to_device(CPU))
    assert native_counts() == before
    # NumPy's stable argsort is the oracle (NaN last, -0.0 == +0.0 keep their order).
    np.testing.assert_array_equal(got, np.argsort(data, kind="stable"))


def test_long_row_descending_values():
    data = sample(wt.float32, (3 * 4096 + 5,), seed=7, spread=50)
    check_both(identity, data, 0, True, "12293 elements")


# -- special values and stability ----------------------------------------------------------------

@pytest.mark.parametrize("descending", [False, True])
def test_nan_inf_and_signed_zero_order(descending, method):
    """NaN last (first when descending) in original order; -0.0/+0.0 tie; payloads kept."""
    data = np.tile(SPECIAL_F32, 3)
    np.random.default_rng(1).shuffle(data)
    check_both(identity, data, 0, descending, "special values")
    order = np.asarray(wt.argsort(wt.asarray(data, device=GPU), descending=descending))
    values = data[order]
    nan = np.isnan(values)
    n_nan = int(nan.sum())
    assert nan[:n_nan].all() if descending else nan[-n_nan:].all()
    # Equal keys (all NaNs, the two zeros) keep their original relative order.
    for group in (np.isnan(data), data == 0):
        positions = order[group[order]]
        assert list(positions) == sorted(positions)


@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=lambda d: d.name)
def test_ties_keep_original_order(dt, method):
    data = sample(dt, (3000,), seed=11, spread=2)
    for descending in (False, True):
        order = np.asarray(wt.argsort(wt.asarray(data, device=GPU), descending=descending))
        # NumPy's order as Python tuples: NaNs (all equal) above everything, -0.0 == 0.0.
        keys = [(1, 0.0) if v != v else (0, float(v)) for v in data[order].tolist()]
        for i in range(len(keys) - 1):
            a, b = (keys[i + 1], keys[i]) if descending else (keys[i], keys[i + 1])
            assert a <= b, f"out of order at {i}"
            assert a != b or order[i] < order[i + 1], f"equal elements changed order at {i}"


def test_integer_extremes(method):
    for dt in (wt.int32, wt.uint32):
        info = np.iinfo(NP[dt])
        data = np.array([info.max, info.min, 0, info.max, 1, info.min + 1, info.max - 1],
                        dtype=NP[dt])
        for descending in (False, True):
            check_both(identity, data, 0, descending, dt.name)


# -- views ---------------------------------------------------------------------------------------

VIEWS = {
    "transpose": lambda t: wt.permute_dims(t, (2, 0, 1)),
    "steps": lambda t: t[::2, 1:, ::-3],
    "flip": lambda t: wt.flip(t, axis=1),
    "offset": lambda t: t[1:, 2:7, 3:],
    "broadcast": lambda t: wt.broadcast_to(t[:, :1, :], (4, 6, 9)),
}


@pytest.mark.parametrize("view", VIEWS, ids=str)
@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=lambda d: d.name)
def test_non_contiguous_views(view, dt, method):
    data = sample(dt, (4, 6, 9), seed=5)
    for axis in (0, 1, 2):
        check_both(VIEWS[view], data, axis, axis == 1, f"{view} {dt.name}")


@pytest.mark.parametrize("shape,axis", [((0,), 0), ((3, 0), 1), ((3, 0), 0), ((0, 4), 1)])
def test_empty(shape, axis, method):
    for dt in NATIVE_DTYPES:
        check_both(identity, sample(dt, shape), axis, False, f"{dt.name} empty")


def test_axis_none_flattens(method):
    data = sample(wt.float32, (5, 7), seed=9)
    check_both(identity, data, None, True, "axis=None")


def test_zero_d_is_refused_like_cpu():
    with pytest.raises(ValueError, match=r"wt\.sort: cannot sort a 0-d tensor"):
        wt.sort(wt.asarray(1.0, device=GPU))
    with pytest.raises(TypeError, match=r"wt\.argsort: descending must be True or False"):
        wt.argsort(wt.asarray([1.0], device=GPU), descending=1)


# -- routing -------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:webgpu. float64")
@pytest.mark.parametrize("dt", [wt.float64])
def test_other_dtypes_route_and_match(dt):
    data = np.array([3, -1, 2, 3, 0, 7, -1], dtype=np.float64).astype(np.dtype(dt.name))
    key = ("sort", dt.name)
    before = B.routed[key]
    got = wt.sort(wt.asarray(data, device=GPU))
    assert_same(got, wt.sort(wt.asarray(data, device=CPU)), dt.name)
    assert B.routed[key] == before + 1


def test_capabilities_report_native_sort():
    caps = B.capabilities()
    for prim in FUNCTIONS:
        for dt in wt.all_dtypes:
            routed = dt in (wt.float64, wt.complex64, wt.complex128)
            assert caps[prim][dt.name] == ("cpu" if routed else "native"), (prim, dt)


def test_pair_buffer_too_big_routes(monkeypatch):
    """Beyond the binding limit for the (key, index) pairs the call routes, still correct."""
    data = sample(wt.int32, (3, 100), seed=2)
    monkeypatch.setattr(B, "max_binding", gpu_sort.padded_bytes(wt.asarray(data), 1) - 4)
    before = B.routed[("argsort", "int32")]
    got = wt.argsort(wt.asarray(data, device=GPU))
    assert_same(got, wt.argsort(wt.asarray(data, device=CPU)), "routed")
    assert B.routed[("argsort", "int32")] == before + 1


def test_radix_buffers_too_big_route(monkeypatch):
    """The radix sort's pair buffers past the binding limit: the call routes, still correct."""
    data = sample(wt.float32, (2, 4096), seed=6)
    assert gpu_sort.use_radix("f32", 4096, data.size)
    monkeypatch.setattr(B, "max_binding", gpu_sort.binding_bytes(wt.asarray(data), 1) - 4)
    before = B.routed[("sort", "float32")]
    got = wt.sort(wt.asarray(data, device=GPU), descending=True)
    assert_same(got, wt.sort(wt.asarray(data, device=CPU), descending=True), "routed")
    assert B.routed[("sort", "float32")] == before + 1


@pytest.mark.parametrize("segments", [1, 3, 1000])
def test_radix_digit_table_scan_segments(segments, monkeypatch):
    """The digit table's scan with its segments capped (one invocation walks all segment
    sums; longer tables take longer segments): same bytes as the CPU."""
    monkeypatch.setattr(gpu_sort, "SCAN_SEGMENTS", segments)
    monkeypatch.setattr(gpu_sort, "SCAN_SEGMENT", 7)
    check_both(identity, sample(wt.int32, (5, 3000), seed=segments, spread=500), -1, False,
               f"{segments} segments")


# -- the crossover between the two algorithms ----------------------------------------------------

@st.composite
def crossover_cases(draw):
    """(rows, n) just below, at and above one of RADIX_FROM's thresholds for one-word keys."""
    total, m = draw(st.sampled_from(gpu_sort.RADIX_FROM[1]))
    n = m + draw(st.sampled_from([-1, 0, 1]))
    rows = max(1, -(-total // n) + draw(st.sampled_from([-1, 0])))
    dt = draw(st.sampled_from(NATIVE_DTYPES))
    spread = draw(st.sampled_from([1, 3, 100, 100000]))
    return dt, rows, n, draw(st.booleans()), draw(st.integers(0, 99)), spread


@settings(max_examples=30, deadline=None)
@given(crossover_cases())
def test_property_crossover_lengths(case):
    """Both sides of every threshold: duplicates, NaNs, both zeros, every 32-bit dtype and
    bool, both directions; the CPU device's bytes (stable argsort included), and the algorithm
    the table names ran."""
    dt, rows, n, descending, seed, spread = case
    calls = []
    real = gpu_sort.radix_pairs

    def spy(*args, **kwargs):
        calls.append(args[6])  # the row length
        return real(*args, **kwargs)

    gpu_sort.radix_pairs = spy
    try:
        check_both(identity, sample(dt, (rows, n), seed=seed, spread=spread), -1, descending,
                   f"{dt.name} {rows} rows of {n}")
    finally:
        gpu_sort.radix_pairs = real
    radix = any(rows * n >= t and n >= m for t, m in gpu_sort.RADIX_FROM[1])
    assert calls == ([n, n] if radix else [])


def test_one_row_of_two_to_the_twenty_descending():
    """The radix sort's long row, descending: NaNs first, every tie in its original order
    (NumPy's stable argsort of the negated values is the oracle)."""
    rng = np.random.default_rng(21)
    data = rng.integers(-3000, 3000, 1 << 20).astype(np.float32)
    data[rng.integers(0, data.size, 300)] = np.nan
    data[rng.integers(0, data.size, 300)] = -0.0
    got = np.asarray(wt.argsort(wt.asarray(data, device=GPU), descending=True).to_device(CPU))
    key = np.where(np.isnan(data), -np.inf, -data)  # NaN above everything, so first here
    np.testing.assert_array_equal(got, np.argsort(key, kind="stable"))


# -- functions built on sorting ------------------------------------------------------------------

def _same_result(fn, data, **kwargs) -> None:
    got = fn(wt.asarray(data, device=GPU), **kwargs)
    want = fn(wt.asarray(data, device=CPU), **kwargs)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same(g, w, f"{fn.__name__} {kwargs}")


@pytest.mark.parametrize("dt", NATIVE_DTYPES, ids=lambda d: d.name)
def test_unique_family(dt):
    data = sample(dt, (6, 50), seed=13)
    before = native_counts()
    for fn in (wt.unique_values, wt.unique_counts, wt.unique_inverse, wt.unique_all):
        _same_result(fn, data)
    assert native_counts() == before


def test_median_quantile_nonzero_isin():
    data = sample(wt.float32, (7, 40), seed=17)
    data = np.where(np.isnan(data), np.float32(2.5), data)
    before = native_counts()
    _same_result(wt.median, data, axis=1)
    _same_result(lambda t, **kw: wt.quantile(t, 0.3, **kw), data, axis=0)
    _same_result(wt.median, sample(wt.int32, (9, 11), seed=1), axis=0)
    _same_result(wt.nonzero, sample(wt.bool, (30, 7), seed=3))
    assert native_counts() == before
    hay, needles = sample(wt.int32, (200,), seed=4), sample(wt.int32, (30,), seed=5)
    got = wt.isin(wt.asarray(needles, device=GPU), wt.asarray(hay, device=GPU))
    assert_same(got, wt.isin(wt.asarray(needles, device=CPU), wt.asarray(hay, device=CPU)),
                "isin")


# -- properties ----------------------------------------------------------------------------------

@st.composite
def sort_cases(draw):
    dt = draw(st.sampled_from(NATIVE_DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=1, max_size=3)))
    if draw(st.booleans()):
        shape = shape[:-1] + (draw(st.integers(1000, 2100)),)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    transpose = draw(st.booleans())
    step = draw(st.sampled_from([1, -1, 2, -3]))
    spread = draw(st.sampled_from([1, 3, 1000]))
    return dt, shape, axis, transpose, step, draw(st.booleans()), draw(st.integers(0, 99)), spread


@settings(max_examples=40, deadline=None)
@given(sort_cases())
def test_property_matches_cpu(case):
    dt, shape, axis, transpose, step, descending, seed, spread = case

    def view(t):
        t = t[(slice(None, None, step),) * t.ndim]
        return wt.permute_dims(t, tuple(reversed(range(t.ndim)))) if transpose else t

    check_both(view, sample(dt, shape, seed=seed, spread=spread), axis, descending, dt.name)
