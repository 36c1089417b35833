"""Native WebGPU sort and reductions of the packed and wide dtypes against the CPU device.

int8/uint8/int16/uint16/float16/bfloat16 (packed two or four to a word) and int64/uint64 (two
words per element): ``backends/webgpu/sort.py`` and ``reduce.py``.  Skipped as a whole (reason
printed) when wgpu or a WebGPU adapter is missing, or NumPy (the data source) is absent.

What must hold, bit for bit against the CPU device, with ``backend.routed`` not growing:

* sort/argsort: NumPy's stable order (NaN last or first when descending, -0.0 tied with +0.0,
  64-bit values decided by the high word then the low word), the sorted values being the
  input's own bits (NaN payloads kept), along every axis of views, past the 1024-element block;
* sum/prod (wrapping in the result dtype), max/min/any/all, argmax/argmin and cumulative
  sum/prod/max/min;
* float16 sums/products are the exact result rounded once (float16 ties decided by the bits
  float32 cannot hold), bfloat16 ones rounded through float32 as the CPU device does; a NaN
  result may differ from the CPU's only in its sign and payload (IEEE leaves them open);
* complex64 sums and cumulative sums are componentwise float32 sums (within 1 ULP); complex64
  products, any/all and cumulative products are checked in test_webgpu_complex.py.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402
from _oracle import ulps32

GPU, CPU, B = webgpu_or_skip()

np = pytest.importorskip("numpy")

from webtensor.api import _reduce  # noqa: E402
from webtensor.backends.webgpu import reduce as gpu_reduce  # noqa: E402
from webtensor.backends.webgpu import sort as gpu_sort  # noqa: E402
from webtensor.tensor import Tensor, empty  # noqa: E402

# The CPU oracle widens bfloat16 NaN payloads to float64 in its sums, which NumPy warns about.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

PACKED = (wt.int8, wt.uint8, wt.int16, wt.uint16, wt.float16, wt.bfloat16)
WIDE = (wt.int64, wt.uint64)
DTYPES = PACKED + WIDE
FLOATS = (wt.float16, wt.bfloat16)
PRIMS = ("sort", "argsort", "reduce", "arg_reduce", "scan")
PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, database=None)


@pytest.fixture(autouse=True)
def _native_only():
    """No call of these dtypes may fall back to the CPU."""
    before = B.routed.copy()
    yield
    names = {dt.name for dt in DTYPES}
    grown = {k: n - before[k] for k, n in B.routed.items()
             if k[0] in PRIMS and k[1] in names and n > before[k]}
    assert not grown, f"routed to the CPU: {grown}"


# -- data ------------------------------------------------------------------------------------------

def _bits_pool(dt) -> np.ndarray:
    """Edge values of a 16-bit float format as bit patterns: NaNs of both signs and several
    payloads, infinities, both zeros, subnormals, the largest finite values, small integers."""
    if dt is wt.float16:
        specials = [0x7E00, 0xFE00, 0x7C01, 0xFD55, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001,
                    0x8001, 0x03FF, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00]
    else:
        specials = [0x7FC0, 0xFFC0, 0x7F81, 0xFFAB, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001,
                    0x8001, 0x007F, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80]
    return np.array(specials, dtype=np.uint16)


def _as_dtype(a: np.ndarray, dt) -> np.ndarray:
    """NumPy storage of ``dt`` (bfloat16 as its uint16 bits)."""
    return a.astype(np.uint16) if dt is wt.bfloat16 else a.astype(np.dtype(dt.name))


def sample(dt, shape, seed=0, spread=6, specials=True, huge=True) -> np.ndarray:
    """Values of ``dt`` with many ties (``spread`` ordinary values), plus edge values: the
    integer extremes (64-bit ones differing only in their high or low word), or float specials.
    Returned as the dtype's storage (float16/bfloat16 as uint16 bit patterns).

    ``huge=False`` leaves out bfloat16's largest finite and subnormal values: a float64 sum of
    3e38 and 1 (or of 0.5 and 1e-40) loses the small one, so the CPU's sum is no exact oracle
    then (float16 sums are exact in float64).
    """
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    if dt in FLOATS:
        values = (np.arange(spread) - spread // 2) / 2
        ordinary = (values.astype(np.float16).view(np.uint16) if dt is wt.float16
                    else (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))
        edges = _bits_pool(dt)
        if not huge and dt is wt.bfloat16:
            magnitude = edges & 0x7FFF
            edges = edges[(magnitude != 0x7F7F) & ((magnitude >= 0x80) | (magnitude == 0))]
        pool = np.concatenate([edges, ordinary]) if specials else ordinary
    else:
        info = np.iinfo(dt.name)
        edges = [info.min, info.max, info.min + 1, info.max - 1, 0]
        if dt in WIDE:
            edges += [2**32, 2**32 + 1, 2**32 - 1, 2**31, 3 << 40]
            edges += [-(2**32), -(2**32) - 1, -1, -(2**31)] if dt is wt.int64 else [2**63]
        start = 0 if info.min == 0 else -spread // 2
        ordinary = list(range(start, start + spread))
        values = (edges if specials else []) + ordinary
        bits = 8 * dt.itemsize  # ordinary values past the range wrap (long rows, narrow ints)
        pool = np.array([v % (1 << bits) for v in values], dtype=f"u{dt.itemsize}").view(
            np.dtype(dt.name))
    return pool[rng.integers(0, len(pool), n)].reshape(shape)


def tensors(data: np.ndarray, dt, view=None):
    """(cpu, gpu) tensors of ``data`` (the dtype's storage) viewed by ``view``."""
    out = []
    for device in (CPU, GPU):
        if dt in FLOATS:
            # exactly these bits (NaN payloads included), from the backend's raw bytes
            raw = device.backend.from_bytes(dt, np.ascontiguousarray(data).tobytes())
            t = Tensor._wrap(raw, data.shape, dt, device)
        else:
            t = wt.asarray(data, dtype=dt, device=device)
        out.append(t if view is None else view(t))
    return tuple(out)


def same(got, want, context="", nan_sign_free=False) -> None:
    """``got`` (GPU) has ``want``'s (CPU) dtype, shape and bytes; ``nan_sign_free``: a NaN may
    be any NaN."""
    assert got.device == GPU and want.device == CPU, context
    assert got.shape == want.shape and got.dtype is want.dtype, context
    g, w = got.tobytes(), want.tobytes()
    if g == w:
        return
    size = want.dtype.itemsize
    kind = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    gb, wb = np.frombuffer(g, kind), np.frombuffer(w, kind)
    bad = gb != wb
    if nan_sign_free and want.dtype in FLOATS:
        def nan(b):
            exp = 0x7C00 if want.dtype is wt.float16 else 0x7F80
            return ((b & exp) == exp) & ((b & (~exp & 0x7FFF)) != 0)
        bad &= ~(nan(gb) & nan(wb))
    idx = np.flatnonzero(bad)
    assert idx.size == 0, (f"{context}: {idx.size} elements differ, first at {idx[:5]}: gpu "
                           f"{[hex(v) for v in gb[idx[:5]]]} cpu {[hex(v) for v in wb[idx[:5]]]}")


def check(fn, data, dt, view=None, context="", nan_sign_free=False) -> None:
    c, g = tensors(data, dt, view)
    same(fn(g), fn(c), f"{context} {dt.name} shape {c.shape}", nan_sign_free)


# -- sort / argsort --------------------------------------------------------------------------------

SORTS = {"sort": wt.sort, "argsort": wt.argsort}


@pytest.fixture(params=["bitonic", "radix"])
def method(request, monkeypatch):
    """Force one algorithm for every sort of the test (radix: the narrow keys of 8, 16 and 19
    bits and the 64-bit keys' per-word digits at every row length)."""
    always = {1: ((1, 1),), 2: ((1, 1),)}
    monkeypatch.setattr(gpu_sort, "RADIX_FROM",
                        always if request.param == "radix" else {1: (), 2: ()})
    return request.param


def check_sorts(data, dt, axis, descending, view=None, context="") -> None:
    for name, fn in SORTS.items():
        check(lambda t, fn=fn: fn(t, axis=axis, descending=descending), data, dt, view,
              f"{name} axis {axis} descending {descending} {context}")


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("shape", [(1,), (9,), (40,), (3, 5, 7)])
def test_sort_every_axis(dt, descending, shape, method):
    data = sample(dt, shape, seed=len(shape) + shape[-1])
    for axis in range(len(shape)):
        check_sorts(data, dt, axis, descending)


@pytest.mark.parametrize("dt", [wt.int8, wt.uint16, wt.float16, wt.bfloat16, wt.int64,
                                wt.uint64], ids=str)
@pytest.mark.parametrize("n", [1023, 1025, 2049])
def test_sort_rows_past_the_workgroup_block(dt, n, method):
    """The global network steps (sort_step.wgsl) and merges, with 64-bit keys too."""
    data = sample(dt, (2, n), seed=n, spread=n // 4)
    check_sorts(data, dt, -1, n % 2 == 1, context=f"n={n}")


@pytest.mark.parametrize("n", [5000, 20000])
def test_sort_long_int64_row_against_numpy(n):
    """int64 values whose order often hangs on the low word alone (20000: the radix sort's
    eight digits): NumPy's stable argsort is the oracle, both directions."""
    rng = np.random.default_rng(64)
    data = (rng.integers(-3, 3, n) << 32) + rng.integers(0, 2**32, n) * (rng.random(n) < 0.7)
    for descending in (False, True):
        got = wt.argsort(wt.asarray(data, dtype=wt.int64, device=GPU), descending=descending)
        want = np.argsort(-data if descending else data, kind="stable")  # no int64 min here
        np.testing.assert_array_equal(np.asarray(got.to_device(CPU)), want)


@pytest.mark.parametrize("dt", [wt.int8, wt.uint16, wt.float16, wt.bfloat16, wt.uint64],
                         ids=str)
def test_sort_long_rows_by_radix(dt, monkeypatch):
    """Rows long enough for the radix sort by default, ties and specials everywhere."""
    calls = []
    real = gpu_sort.radix_pairs
    monkeypatch.setattr(gpu_sort, "radix_pairs", lambda *a, **k: calls.append(1) or real(*a, **k))
    data = sample(dt, (2, 9000), seed=9, spread=300)
    for descending in (False, True):
        check_sorts(data, dt, -1, descending, context="radix by default")
    assert len(calls) == 4


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_float_specials_keep_their_bits(dt, descending, method):
    """NaN payloads and signs, -0.0/+0.0 ties: the CPU's bytes exactly, NaNs at the end."""
    data = np.tile(_bits_pool(dt), 3)
    np.random.default_rng(2).shuffle(data)
    check_sorts(data, dt, 0, descending)
    order = np.asarray(wt.argsort(tensors(data, dt)[1], descending=descending).to_device(CPU))
    exp = 0x7C00 if dt is wt.float16 else 0x7F80
    nan = ((data[order] & exp) == exp) & ((data[order] & (~exp & 0x7FFF)) != 0)
    k = int(nan.sum())
    assert k == 12 and (nan[:k].all() if descending else nan[-k:].all())


VIEWS = {
    "transpose": lambda t: wt.permute_dims(t, (2, 0, 1)),
    "steps": lambda t: t[::2, 1:, ::-3],
    "offset": lambda t: t[1:, 2:7, 3:],
}


@pytest.mark.parametrize("view", VIEWS, ids=str)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_sort_views(view, dt, method):
    data = sample(dt, (4, 6, 9), seed=5)
    for axis in (0, 2):
        check_sorts(data, dt, axis, axis == 2, VIEWS[view], view)


def test_sort_empty_and_capabilities():
    for dt in DTYPES:
        check_sorts(sample(dt, (3, 0)), dt, 1, False)
    caps = B.capabilities()
    for prim in SORTS:
        for dt in DTYPES:
            assert caps[prim][dt.name] == "native", (prim, dt)
        assert caps[prim]["float64"] == caps[prim]["complex64"] == "cpu"


def test_sort_pair_buffer_limit_counts_64_bit_keys(monkeypatch):
    """64-bit keys take 12 bytes per padded element: past the binding limit the call routes
    (and stays correct)."""
    data = sample(wt.int64, (3, 100))
    assert gpu_sort.padded_bytes(wt.asarray(data, dtype=wt.int64), 1) == 3 * 128 * 12
    monkeypatch.setattr(B, "max_binding", 3 * 128 * 12 - 4)
    key = ("sort", "int64")
    before = B.routed[key]
    check(lambda t: wt.sort(t), data, wt.int64)
    assert B.routed[key] == before + 1
    B.routed[key] = before  # expected routing: keep the autouse check about the native path


@PROPERTY
@given(st.sampled_from(DTYPES), st.lists(st.integers(1, 9), min_size=1, max_size=3),
       st.booleans(), st.integers(0, 99), st.sampled_from([1, -1, 2]),
       st.sampled_from(["bitonic", "radix"]))
def test_sort_property(dt, shape, descending, seed, step, algorithm):
    data = sample(dt, tuple(shape), seed=seed, spread=seed % 7 + 1)
    def view(t):
        return t[(slice(None, None, step),) * t.ndim]

    saved = gpu_sort.RADIX_FROM
    gpu_sort.RADIX_FROM = {1: ((1, 1),), 2: ((1, 1),)} if algorithm == "radix" else {1: (), 2: ()}
    try:
        check_sorts(data, dt, seed % len(shape), descending, view)
    finally:
        gpu_sort.RADIX_FROM = saved


# -- reductions ------------------------------------------------------------------------------------

def _reduce_ops(axis):
    """The reductions computing in the input's dtype (``dtype=`` keeps narrow sums narrow)."""
    def in_dtype(op):
        return lambda t: _reduce.reduce(op, t, axis, False)
    return {
        "sum": in_dtype("sum"), "prod": in_dtype("prod"), "max": in_dtype("max"),
        "min": in_dtype("min"), "any": lambda t: wt.any(t, axis=axis),
        "all": lambda t: wt.all(t, axis=axis),
    }


REDUCE_CASES = [((1,), (0,)), ((13,), (0,)), ((5, 300), (1,)), ((300, 5), (0,)),
                ((2, 3, 4, 5), (0, 2)), ((2, 16500), (1,))]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape,axes", REDUCE_CASES, ids=str)
def test_reductions_in_the_input_dtype(dt, shape, axes):
    """Integer sums/products wrap in the dtype; max/min/any/all exact; floats round once."""
    data = sample(dt, shape, seed=sum(shape), spread=9, huge=False)
    for name, fn in _reduce_ops(axes).items():
        check(fn, data, dt, context=name, nan_sign_free=name in ("sum", "prod"))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_public_sum_and_mean_dtypes(dt):
    """wt.sum's default accumulation dtype (a cast, then a native reduction), and dtype=."""
    data = sample(dt, (6, 70), seed=3, specials=dt not in FLOATS)
    check(lambda t: wt.sum(t, axis=1), data, dt, context="sum")
    check(lambda t: wt.prod(t, axis=0), data, dt, context="prod", nan_sign_free=True)
    check(lambda t: wt.sum(t, dtype=dt), data, dt, context="sum dtype=")
    check(lambda t: wt.max(t, axis=(0, 1), keepdims=True), data, dt, context="max keepdims")


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_reductions_of_views(dt, view):
    data = sample(dt, (4, 6, 9), seed=8, spread=9, huge=False)
    for name, fn in _reduce_ops((1,)).items():
        check(fn, data, dt, VIEWS[view], f"{name} {view}", nan_sign_free=name in ("sum", "prod"))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_arg_reductions(dt):
    """First occurrence of the extreme; NaN wins; -0.0 ties +0.0; long rows (two passes)."""
    for shape, axis in [((9,), 0), ((5, 300), 1), ((300, 5), 0), ((2, 20000), 1)]:
        data = sample(dt, shape, seed=shape[0], spread=5)
        for fn in (wt.argmax, wt.argmin):
            def arg(t, fn=fn, axis=axis):
                return fn(t, axis=axis)

            def flipped(t, axis=axis):
                return wt.flip(t, axis=axis)

            check(arg, data, dt, context=fn.__name__)
            check(arg, data, dt, flipped, context=f"{fn.__name__} flipped")


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape,axis", [((13,), 0), ((4, 300), 1), ((300, 4), 0), ((2, 3000), 1)])
def test_scans(dt, shape, axis):
    """Cumulative sum/prod (in the dtype) and max/min; rows past one chunk carry across."""
    data = sample(dt, shape, seed=shape[-1], spread=5, huge=False)
    for op in gpu_reduce.SCAN_OPS:
        check(lambda t, op=op: _reduce.scan(op, t, axis), data, dt, context=f"scan {op}",
              nan_sign_free=op in ("sum", "prod"))
    check(lambda t: wt.cumulative_sum(t, axis=axis), data, dt, context="cumulative_sum",
          nan_sign_free=True)


def test_scan_of_views():
    for dt in (wt.int8, wt.float16, wt.uint64):
        data = sample(dt, (4, 6, 9), seed=4, spread=5, huge=False)
        for view in VIEWS.values():
            check(lambda t: _reduce.scan("sum", t, 1), data, dt, view, "scan view",
                  nan_sign_free=True)


def test_int64_carries_and_wraps():
    """Sums carry from the low word into the high word and wrap past 2**64; products wrap;
    max/min decide on the low word when the high words tie."""
    rng = np.random.default_rng(7)
    for dt in WIDE:
        info = np.iinfo(dt.name)
        data = rng.integers(info.min, info.max, (3, 5000), dtype=np.dtype(dt.name),
                            endpoint=True)
        data[0] = np.uint32(0xFFFFFFFF).astype(np.dtype(dt.name))  # every add carries
        for name, fn in _reduce_ops((1,)).items():
            check(fn, data, dt, context=name)
        check(lambda t: _reduce.scan("prod", t, 1), data | 1, dt, context="cumprod")
    low_word_only = np.array([2**32 + 5, 2**32 + 7, 2**32 + 1, -(2**32) + 3, -(2**32) + 9])
    for fn in (wt.max, wt.min, wt.argmax, wt.argmin):
        check(fn, low_word_only, wt.int64, context=fn.__name__)


def test_float16_sums_round_once_from_the_exact_value():
    """2048 + 1 is half way between float16 2048 and 2050; a tiny addend float32 cannot hold
    next to 2049 decides the rounding, as in the CPU's float64 sum rounded once."""
    tiny = float(np.float16(2.0**-24))
    rows = np.array([[2048, 1, tiny, 0], [2048, 1, -tiny, 0], [2050, 1, -tiny, 0],
                     [2050, 1, tiny, 0], [-2048, -1, -tiny, 0], [2048, 1, 0, 0]],
                    dtype=np.float64)
    data = rows.astype(np.float16)
    want = [np.float16(sum(map(float, row))) for row in data]  # exact in float64
    got = wt.sum(wt.asarray(data, device=GPU), axis=1)
    assert np.asarray(got.to_device(CPU)).tolist() == [float(w) for w in want]
    check(lambda t: wt.sum(t, axis=1), data.view(np.uint16), wt.float16, context="ties")
    check(lambda t: _reduce.scan("sum", t, 1), data.view(np.uint16), wt.float16,
          context="tie prefixes")


def test_bfloat16_sums_round_through_float32_like_the_cpu():
    """The CPU stores a bfloat16 result through float32 (two roundings): matched exactly."""
    rng = np.random.default_rng(5)
    data = sample(wt.bfloat16, (3, 20000), specials=False, spread=40)
    small = (rng.standard_normal((3, 20000)).astype(np.float32).view(np.uint32) >> 16)
    data = np.where(rng.random((3, 20000)) < 0.5, data, small.astype(np.uint16))
    check(lambda t: _reduce.scan("sum", t, 1), data, wt.bfloat16, context="bf16 cumsum")
    check(lambda t: _reduce.reduce("sum", t, (1,), False), data, wt.bfloat16, context="bf16 sum")


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_half_float_specials(dt):
    """inf, -0.0 + -0.0, NaN (any sign for computed NaNs, the canonical NaN for max/min)."""
    pool = _bits_pool(dt)
    for row in (pool[[4, 12, 13]], pool[[7, 7, 7]], pool[[4, 5]], pool[[11, 11, 13]],
                pool[[8, 9, 10]], pool[[0, 13]], pool[[6, 7]]):
        for name, fn in _reduce_ops((0,)).items():
            check(fn, row, dt, context=f"{name} {[hex(v) for v in row]}",
                  nan_sign_free=name in ("sum", "prod"))


def test_capabilities_and_bad_ops():
    caps = B.capabilities()
    for prim in ("reduce", "arg_reduce", "scan"):
        for dt in DTYPES:
            assert caps[prim][dt.name] == "native", (prim, dt)
        assert caps[prim]["float64"] == "cpu"
    assert caps["reduce"]["complex64"] == "native"  # sum, prod, any, all
    assert caps["scan"]["complex64"] == "native"  # cumulative sum and prod
    assert caps["arg_reduce"]["complex64"] == "cpu"
    x = wt.asarray(np.ones((2, 3), dtype=np.int16), device=GPU)
    with pytest.raises(ValueError, match="reduce: unknown op 'median'; expected one of sum"):
        B.reduce("median", empty((2,), wt.int16, GPU), x, (1,))
    with pytest.raises(ValueError, match="scan: unknown op 'mean'"):
        B.scan("mean", empty((2, 3), wt.int16, GPU), x, 1)
    with pytest.raises(ValueError, match=r"argmax: axis 5 is out of range .* shape \(2, 3\)"):
        B.arg_reduce("argmax", empty((2,), wt.int64, GPU), x, 5)


@PROPERTY
@given(st.sampled_from(DTYPES), st.lists(st.integers(1, 40), min_size=1, max_size=3),
       st.integers(0, 99), st.sampled_from(["sum", "prod", "max", "min"]))
def test_reduce_scan_property(dt, shape, seed, op):
    shape = tuple(shape)
    data = sample(dt, shape, seed=seed, spread=seed % 9 + 2, huge=False)
    axis = seed % len(shape)
    nan_free = op in ("sum", "prod")
    check(lambda t: _reduce.reduce(op, t, (axis,), False), data, dt, context=op,
          nan_sign_free=nan_free)
    check(lambda t: _reduce.scan(op, t, axis), data, dt, context=f"scan {op}",
          nan_sign_free=nan_free)


# -- complex64 sums ----------------------------------------------------------------------------------

@pytest.mark.parametrize("view", [None, *VIEWS], ids=str)
def test_complex64_sums_componentwise(view):
    """Real and imaginary parts sum as float32 sums do (within 1 ULP of the CPU's complex128
    sum, usually equal), natively: sum over axes, cumulative sums, long rows."""
    rng = np.random.default_rng(9)
    shape = (4, 6, 9) if view else (2, 16500)
    a = (rng.standard_normal(shape) * np.exp(rng.uniform(-3, 3, shape))
         + 1j * rng.standard_normal(shape)).astype(np.complex64)
    a.reshape(-1)[[3, 40]] = [complex(np.nan, 1.0), complex(np.inf, -0.0)]
    fns = {"sum all": wt.sum, "sum axis 1": lambda t: wt.sum(t, axis=1),
           "sum axes (0, -1)": lambda t: wt.sum(t, axis=(0, -1)),
           "cumulative_sum": lambda t: wt.cumulative_sum(t, axis=1)}
    key = ("reduce", "complex64"), ("scan", "complex64")
    before = [B.routed[k] for k in key]
    for name, fn in fns.items():
        if len(shape) == 2 and "axes" in name:
            continue
        c, g = (wt.asarray(a, device=d) for d in (CPU, GPU))
        if view:
            c, g = VIEWS[view](c), VIEWS[view](g)
        want, got = fn(c), fn(g)
        assert got.dtype is want.dtype is wt.complex64 and got.shape == want.shape, name
        wv = np.asarray(want).reshape(-1).view(np.float32)
        gv = np.asarray(got.to_device(CPU)).reshape(-1).view(np.float32)
        assert ulps32(wv, gv).max(initial=0) <= 1, (name, wv, gv)
    assert [B.routed[k] for k in key] == before, "complex64 sums were routed"


def test_complex64_other_reductions_are_native():
    """Products of small Gaussian integers are exact in float32: equal to the CPU's."""
    a = np.array([[1 + 2j, -3 + 0.5j, 2 - 1j], [2j, 1j, 4 + 0j]], dtype=np.complex64)
    c, g = (wt.asarray(a, device=d) for d in (CPU, GPU))
    before = B.routed[("reduce", "complex64")]
    same(wt.prod(g, axis=1), wt.prod(c, axis=1), "prod")
    same(wt.any(g, axis=1), wt.any(c, axis=1), "any")
    assert B.routed[("reduce", "complex64")] == before
