"""Native WebGPU gather, scatter and Philox random bits against the CPU device.

Skipped (reason printed) without wgpu, a WebGPU adapter or NumPy (used to make test data).
What must hold:

* gather (``wt.take``, ``take_along_axis``, advanced indexing) and scatter (``x[idx] = v``,
  and the frontend's ``scatter`` with add/min/max) give the CPU device's bytes exactly, for
  duplicate and negative indices, strided and broadcast views, and every dtype gather/``set``
  moves as raw bits; scatter results do not depend on invocation order (repeated runs agree).
* ``random_bits`` gives ``_philox``'s words (both the NumPy and the pure-Python generator) for
  any key and 128-bit counter, and ``wt.random`` distributions are identical on both devices.
* scatter add/min/max run natively for every dtype but float64/complex128 and equal the CPU's
  bytes: float adds fold each target's updates in C order like the CPU's float64 sum, rounded
  once (bit-exact on ordinary data, within 1 ULP where that float64 sum is itself inexact),
  also with 100000 updates into 1 .. 70000 targets; in fast precision float adds are float32
  additions in C order (NumPy's sequential ``add.at`` in float32).
* None of these calls is routed to the CPU.
"""

from __future__ import annotations

import math

import pytest

from _gpu import webgpu_or_skip  # noqa: E402
from _oracle import ulps32  # noqa: E402

GPU, CPU, B = webgpu_or_skip()

np = pytest.importorskip("numpy", reason="test data is made with NumPy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor.api import _reduce  # noqa: E402
from webtensor.backends import _philox  # noqa: E402
from webtensor.tensor import empty  # noqa: E402

NATIVE_PRIMS = ("gather", "scatter", "random_bits")
# gather and scatter-set move raw bits: every element size runs natively.
MOVED = (wt.bool, wt.int8, wt.int16, wt.float16, wt.float32, wt.int32, wt.uint32, wt.int64,
         wt.float64, wt.complex64, wt.complex128)


def _routed() -> int:
    return sum(n for (prim, _dt), n in B.routed.items() if prim in NATIVE_PRIMS)


def _data(dt, shape, seed):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) * 50
    if dt.kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    if dt is wt.bool:
        return values > 0
    if dt.kind in "iu":
        return values.astype(np.int64)  # wt.asarray wraps them into dt
    return values


def _both(fn, *arrays, dtypes=None, native=True):
    """``fn`` on the CPU and on the GPU with the same data; the results' bytes compared."""
    before = _routed()
    outs = []
    for device in (CPU, GPU):
        args = [wt.asarray(a, dtype=None if dtypes is None else dtypes[i], device=device)
                for i, a in enumerate(arrays)]
        outs.append(fn(*args))
    c, g = outs
    assert g.device == GPU and g.shape == c.shape and g.dtype == c.dtype
    assert g.tobytes() == c.tobytes(), (c, g)
    if native:
        assert _routed() == before
    return g


# -- gather ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", MOVED, ids=str)
def test_take_every_dtype(dt):
    x = _data(dt, (5, 7), 1)
    idx = np.array([4, -1, 0, 2, 2, -5])
    d = (dt, wt.int64)
    _both(lambda a, i: wt.take(a, i, axis=0), x, idx, dtypes=d)
    _both(lambda a, i: wt.take(a, i, axis=1), x, idx, dtypes=d)
    _both(lambda a, i: wt.take(a, i), x, np.array([34, 0, -35, 17]), dtypes=d)
    _both(lambda a, i: a.mT[i], x, idx, dtypes=d)  # transposed source


@pytest.mark.parametrize("dt", (wt.bool, wt.int16, wt.float32, wt.int64), ids=str)
def test_gather_views_and_advanced_indexing(dt):
    x = _data(dt, (4, 6, 5), 2)
    d = (dt, wt.int64, wt.int64)
    rows, cols = np.array([[0, 3], [-1, 2]]), np.array([1, 4])
    _both(lambda a, i, j: a[i, :, j], x, rows, cols, dtypes=d)  # separated: moved to front
    _both(lambda a, i, j: a[:, i, j], x, rows, cols, dtypes=d)
    _both(lambda a, i, j: a[::-1, 1:, ::2][i, j], x, rows, cols, dtypes=d)
    mask = _data(wt.bool, (4, 6), 3)
    _both(lambda a, m: a[m], x, mask, dtypes=(dt, wt.bool))


@pytest.mark.parametrize("dt", (wt.uint8, wt.float32, wt.complex64), ids=str)
def test_take_along_axis_broadcasts(dt):
    x = _data(dt, (1, 6, 3), 4)
    idx = np.random.default_rng(5).integers(-6, 6, (4, 9, 1))
    _both(lambda a, i: wt.take_along_axis(a, i, axis=1), x, idx, dtypes=(dt, wt.int64))


def test_gather_sizes_over_one_workgroup_and_empty():
    x = np.arange(5000, dtype=np.int32)
    idx = np.random.default_rng(6).integers(0, 5000, 3001)
    _both(lambda a, i: wt.take(a, i), x, idx, dtypes=(wt.int32, wt.int64))
    _both(lambda a, i: wt.take(a, i), x > 2500, idx, dtypes=(wt.bool, wt.int64))
    g = _both(lambda a, i: wt.take(a, i, axis=0), x, np.zeros(0, np.int64),
              dtypes=(wt.int32, wt.int64))
    assert g.shape == (0,)


def test_backend_gather_rejects_mismatched_shapes():
    out = empty((3,), wt.float32, GPU)
    x = wt.zeros((4,), device=GPU)
    with pytest.raises(ValueError, match=r"gather: indices shape \(2,\) != out shape \(3,\)"):
        B.gather(out, x, 0, wt.zeros((2,), dtype=wt.int64, device=GPU))
    out = empty((2, 5), wt.float32, GPU)
    with pytest.raises(ValueError, match="gather: x has 3 elements along axis 1, the indices "
                                         "need 5"):
        B.gather(out, wt.zeros((2, 3), device=GPU), 0,
                 wt.zeros((2, 5), dtype=wt.int64, device=GPU))


# -- scatter --------------------------------------------------------------------------------------

def _set(target_shape, key_fn):
    def run(x, v):
        y = wt.zeros(target_shape, dtype=x.dtype, device=x.device)
        y[key_fn(y)] = v
        return y
    return run


@pytest.mark.parametrize("dt", MOVED, ids=str)
def test_setitem_duplicates_last_wins(dt):
    idx = np.array([1, 3, 1, -1, 0, 3, 3])
    v = _data(dt, (7, 5), 7)
    _both(lambda v, i: _set((6, 5), lambda y: i)(v, v), v, idx, dtypes=(dt, wt.int64))
    # a strided target (every other column) and a broadcast value
    _both(lambda v, i: _set((6, 10), lambda y: (i, slice(None, None, 2)))(v, v[0]),
          v, idx, dtypes=(dt, wt.int64))


@pytest.mark.parametrize("dt", (wt.bool, wt.uint8, wt.float32, wt.int64), ids=str)
def test_setitem_two_index_arrays_and_scalar(dt):
    rows, cols = np.array([2, 0, 2, -1]), np.array([[1], [3], [1]])

    def run(v, i, j):
        y = wt.zeros((3, 4, 5), dtype=dt, device=v.device)
        y[i, :, j] = v
        y[:, -1, i] = v[0, 0]
        return y
    _both(run, _data(dt, (3, 4, 4), 8), rows, cols, dtypes=(dt, wt.int64, wt.int64))


OPS = ("set", "add", "min", "max")


# every dtype whose scatter add/min/max is native (float64/complex128 are float64 work: CPU)
SCATTERED = (wt.float32, wt.float16, wt.bfloat16, wt.int8, wt.uint8, wt.int16, wt.uint16,
             wt.int32, wt.uint32, wt.int64, wt.uint64, wt.bool, wt.complex64)
FLOATS = (wt.float32, wt.float16, wt.bfloat16, wt.complex64)


def _specials(a, shape):
    """NaN, infinities and signed zeros at a few places of a float array."""
    a = a.copy()
    for k, v in enumerate((np.nan, -0.0, 0.0, np.inf, -np.inf)):
        a[k % shape[0], (2 * k) % shape[1]] = v
    return a


@pytest.mark.parametrize("dt, op", [(dt, op) for dt in SCATTERED for op in OPS
                                     if not (dt.kind == "c" and op in ("min", "max"))], ids=str)
def test_scatter_ops(dt, op):
    for axis in (0, 1):
        base = _data(dt, (6, 5), 9)
        shape = (9, 4) if axis == 0 else (5, 9)
        idx = np.random.default_rng(10).integers(-base.shape[axis], base.shape[axis], shape)
        upd = _data(dt, shape, 11)
        if dt in FLOATS:
            base, upd = _specials(base, base.shape), _specials(upd[::-1], shape)
        _both(lambda b, i, u, axis=axis: _reduce.scatter(op, b, axis, i, u), base, idx, upd,
              dtypes=(dt, wt.int64, dt))


def test_scatter_complex_min_max_is_refused():
    for device in (CPU, GPU):
        b = wt.zeros((3,), dtype=wt.complex64, device=device)
        i = wt.zeros((2,), dtype=wt.int64, device=device)
        with pytest.raises(TypeError, match="scatter-max"):
            _reduce.scatter("max", b, 0, i, wt.ones((2,), dtype=wt.complex64, device=device))


@pytest.mark.parametrize("dt", (wt.float32, wt.float16, wt.bfloat16, wt.complex64, wt.int8,
                                wt.uint16, wt.int64, wt.uint64), ids=str)
def test_scatter_add_many_updates_per_target_in_order(dt):
    # 6000 updates into 5 slots (and 1 slot): every run is long, float sums must follow the
    # CPU's order and precision, integers wrap.
    rng = np.random.default_rng(13)
    upd = _data(dt, (6000,), 14) * (1 if dt.kind in "iub" else 1e-3)
    if dt in (wt.int64, wt.uint64):
        upd = rng.integers(-(1 << 62), 1 << 62, 6000)  # sums wrap modulo 2**64
    for slots in (5, 1):
        idx = rng.integers(0, slots, 6000)
        base = _data(dt, (slots,), 15)
        g1 = _both(lambda b, i, u: _reduce.scatter("add", b, 0, i, u), base, idx, upd,
                   dtypes=(dt, wt.int64, dt))
        g2 = _both(lambda b, i, u: _reduce.scatter("add", b, 0, i, u), base, idx, upd,
                   dtypes=(dt, wt.int64, dt))
        assert g1.tobytes() == g2.tobytes()


# every dtype whose add the ordered path folds (sorted by target), and the atomic ones
MANY = (wt.float32, wt.float16, wt.bfloat16, wt.complex64, wt.int8, wt.uint16, wt.int32,
        wt.uint32, wt.int64)


@pytest.mark.parametrize("dt", MANY, ids=str)
@pytest.mark.parametrize("slots", [1, 3, 1000, 70000])
def test_scatter_add_100k_duplicates(dt, slots):
    """100000 updates into 1 .. 70000 targets (the radix sort by target with 1, 2, 10 and 17
    key bits): the CPU device's bytes, twice.  Float updates are multiples of 2**-8 within
    2**5, so float64's running sums are exact and the sums are the exact ones rounded once."""
    rng = np.random.default_rng(slots)
    n = 100_000
    idx = rng.integers(-slots, slots, n)
    upd = rng.integers(-(1 << 13), 1 << 13, n) / 256
    if dt.kind == "c":
        upd = upd + 1j * rng.integers(-(1 << 13), 1 << 13, n) / 256
    elif dt.kind in "iu":
        upd = rng.integers(-(1 << 40), 1 << 40, n)  # wrap into the dtype
    base = _data(dt, (slots,), 3)
    fn = lambda b, i, u: _reduce.scatter("add", b, 0, i, u)  # noqa: E731
    g1 = _both(fn, base, idx, upd, dtypes=(dt, wt.int64, dt))
    g2 = _both(fn, base, idx, upd, dtypes=(dt, wt.int64, dt))
    assert g1.tobytes() == g2.tobytes()


@pytest.mark.parametrize("dt, op", [(wt.float32, "add"), (wt.int16, "add"), (wt.int8, "max"),
                                   (wt.float16, "min"), (wt.int64, "max"),
                                   (wt.uint64, "add")], ids=str)
@pytest.mark.parametrize("size", [6, 200_000])
def test_scatter_runs_around_the_fold_block(dt, op, size):
    """Targets hit 1, BLOCK - 1, BLOCK, BLOCK + 1, 2 BLOCK and 2 BLOCK + 1 times (shuffled):
    a run longer than one invocation's BLOCK folds in segments whose partials merge in order,
    and gives the CPU device's bytes; into 6 targets (the run heads listed first) and six
    targets spread over 200000 (few updates per target: every position checks for a head)."""
    from webtensor.backends.webgpu import gather as gpu_gather

    block = gpu_gather.ORDERED_BLOCK
    counts = [1, block - 1, block, block + 1, 2 * block, 2 * block + 1]
    rng = np.random.default_rng(32)
    targets = np.sort(rng.choice(size, len(counts), replace=False))
    idx = rng.permutation(np.repeat(targets, counts))
    if dt.kind == "f":
        upd = rng.integers(-(1 << 10), 1 << 10, idx.size) / 64
    else:
        upd = rng.integers(-(1 << 40), 1 << 40, idx.size)
    _both(lambda b, i, u: _reduce.scatter(op, b, 0, i, u), _data(dt, (size,), 33), idx,
          upd, dtypes=(dt, wt.int64, dt))


@pytest.mark.parametrize("stretches", [1, 3, 1000])
def test_scatter_segment_list_with_few_stretches(stretches, monkeypatch):
    """The list of segment starts built from capped stretches of sorted positions (one
    invocation walks every stretch count): the CPU device's bytes."""
    from webtensor.backends.webgpu import gather as gpu_gather

    monkeypatch.setattr(gpu_gather, "LIST_STRETCHES", stretches)
    monkeypatch.setattr(gpu_gather, "LIST_STRETCH", 5)
    rng = np.random.default_rng(stretches)
    idx = rng.integers(0, 40, 5000)
    idx[:2000] = 7  # a run of 2000 among short ones
    _both(lambda b, i, u: _reduce.scatter("add", b, 0, i, u), _data(wt.float16, (40,), 1),
          idx, rng.integers(-512, 512, 5000) / 64, dtypes=(wt.float16, wt.int64, wt.float16))


@pytest.mark.parametrize("dt", (wt.float32, wt.float16, wt.complex64), ids=str)
def test_scatter_add_fast_precision_is_float32_in_order(dt):
    """Fast precision on the ordered path (many targets: 16 updates each) folds each target's
    updates in C order with plain float32 additions: NumPy's sequential ``add.at`` in float32
    (float16 rounded once from it), bit for bit."""
    rng = np.random.default_rng(30)
    n, slots = 50_000, 3125
    idx = rng.integers(0, slots, n)
    upd = rng.standard_normal(n) * np.exp2(rng.integers(-10, 10, n))
    base = rng.standard_normal(slots)
    if dt.kind == "c":
        upd, base = upd + 1j * upd[::-1], base + 1j
    wide = np.complex64 if dt.kind == "c" else np.float32
    acc = base.astype(dt.name).astype(wide)
    np.add.at(acc, idx, upd.astype(dt.name).astype(wide))
    b = wt.asarray(base, dtype=dt, device=GPU)
    i = wt.asarray(idx, device=GPU)
    u = wt.asarray(upd, dtype=dt, device=GPU)
    before = _routed()
    with wt.set_precision("fast"):
        got = _reduce.scatter("add", b, 0, i, u)
    assert _routed() == before
    assert got.tobytes() == acc.astype(dt.name).tobytes()
    # exact mode is the CPU device's float64 sum rounded once, which this data tells apart from
    # float32 sums (float16 results mostly round both to the same value)
    exact = _reduce.scatter("add", b, 0, i, u)
    b, i, u = (wt.asarray(a, dtype=t, device=CPU) for a, t in
               ((base, dt), (idx, wt.int64), (upd, dt)))
    assert exact.tobytes() == _reduce.scatter("add", b, 0, i, u).tobytes()
    assert dt is wt.float16 or exact.tobytes() != got.tobytes()


def test_scatter_ordered_sort_past_the_binding_limit_routes(monkeypatch):
    """Updates whose sort buffers would not fit one binding: the CPU does the scatter."""
    from webtensor.backends.webgpu import sort as gpu_sort

    rng = np.random.default_rng(31)
    # as many targets as updates: the ordered path (the exact sums need few targets)
    idx, upd = rng.integers(0, 3000, 3000), rng.standard_normal(3000)
    monkeypatch.setattr(gpu_sort, "radix_fits", lambda *args: False)
    key = ("scatter", "int64")  # routes count the first input's dtype
    before = B.routed[key]
    _both(lambda b, i, u: _reduce.scatter("add", b, 0, i, u), np.zeros(3000), idx, upd,
          dtypes=(wt.float32, wt.int64, wt.float32), native=False)
    assert B.routed[key] == before + 1


def test_scatter_add_float32_within_one_ulp_where_float64_is_inexact():
    # Positive values over 2**-40 .. 2**40: float64's running sum rounds (it keeps 53 bits),
    # the GPU's sum is exact.  Both are far within half a float32 step of the exact sum (same
    # signs: relative error <= n * 2**-53), so the results differ by <= 1 ULP.
    rng = np.random.default_rng(16)
    n, slots = 4000, 40
    upd = (rng.random(n) + 1) * np.exp2(rng.integers(-40, 40, n))
    idx = rng.integers(0, slots, n)
    base = np.ones(slots)
    run = lambda device: _reduce.scatter(  # noqa: E731
        "add", wt.asarray(base, dtype=wt.float32, device=device), 0,
        wt.asarray(idx, device=device), wt.asarray(upd, dtype=wt.float32, device=device))
    before = _routed()
    c, g = np.asarray(run(CPU)), np.asarray(run(GPU))
    assert _routed() == before
    assert ulps32(c, g).max() <= 1
    # the data does exercise inexact float64 sums: some running sums differ from the
    # correctly rounded one (math.fsum)
    u32 = upd.astype(np.float32).astype(np.float64)
    inexact = 0
    for t in range(slots):
        terms = [1.0, *u32[idx == t].tolist()]
        running = 0.0
        for v in terms:
            running += v
        inexact += running != math.fsum(terms)
    assert inexact > 0


def test_scatter_add_keeps_bits_that_float64_cancels():
    # Documented divergence: far beyond float64's 53 bits the GPU sum is the exact one.
    before = _routed()
    outs = []
    for device in (CPU, GPU):
        b = wt.zeros((1,), device=device)
        i = wt.zeros((3,), dtype=wt.int64, device=device)
        u = wt.asarray(np.array([1e20, 1.0, -1e20], np.float32), device=device)
        outs.append(np.asarray(_reduce.scatter("add", b, 0, i, u)).tolist())
    assert outs == [[0.0], [1.0]]
    assert _routed() == before


# -- the exact float sums (few targets: integer accumulators, gather.py "sum") ----------------

@pytest.fixture
def exact_sums(monkeypatch):
    """Counts the scatters that took the exact sums (``gpu_gather._exact_sum``)."""
    from webtensor.backends.webgpu import gather as gpu_gather

    calls = []
    real = gpu_gather._exact_sum
    monkeypatch.setattr(gpu_gather, "_exact_sum", lambda *a: calls.append(1) or real(*a))
    return calls


def _f32_bits(*words):
    return np.array(words, np.uint32).view(np.float32)


# (current value, updates in C order) per target, as float32 bits or values
_NAN1, _NAN2, _NAN3, _SNAN = _f32_bits(0x7fc00001, 0xffc01234, 0x7fd00000, 0x7f800005)
_SPECIAL_TARGETS = [
    (0.0, [_NAN1, 1.0, _NAN2]),  # the first NaN's payload
    (0.0, [np.inf, 2.0, -np.inf, _NAN1]),  # inf - inf first: the default NaN sticks
    (0.0, [np.inf, _NAN2, -np.inf]),  # the NaN first
    (_NAN3, [np.inf, -np.inf]),  # the target's own NaN first
    (-0.0, [-0.0, -0.0]),  # every term -0.0
    (-0.0, [0.0]),
    (-0.0, []),  # untouched: kept
    (_SNAN, []),  # untouched signaling NaN: kept bit for bit
    (5.0, [_SNAN]),  # a signaling NaN update: quieted
    (1.0, [-1.0]),  # exact cancellation: +0.0
    (0.0, [1e-45, 1e-45, 3e-45, -1e-45]),  # subnormals
    (-1e-45, [1e-45]),
    (0.0, [1.1754942e-38, 1e-45]),  # into the smallest normal
    (0.0, [3.4e38, 3.4e38, -3.4e38]),  # float64 exact past float32's range and back
    (0.0, [3.4e38, 3.4e38]),  # overflow: inf
    (-3.4e38, [-3.4e38, 1.0]),  # -inf
    (np.inf, [1.0, 2.0]),
    (0.0, [-np.inf, 5.0]),
    (2.5, [0.0, -0.0, 1.5]),
]


def _nan_events(terms) -> int:
    """NaN terms, and inf + -inf, in a target's sequence: where two meet, which NaN survives
    is the CPU's compiler's choice for complex parts (NumPy's differs between the parts)."""
    infs = {np.sign(v) for v in terms if np.isinf(v)}
    return sum(bool(np.isnan(v)) for v in terms) + (len(infs) == 2)


def _special_case(dt):
    """(base, indices, updates) of _SPECIAL_TARGETS, targets interleaved; NaN payloads and
    signaling NaNs only where ``dt`` keeps float32 bits (float16/bfloat16: the default NaN);
    complex parts are equal, without two NaNs meeting."""
    keep_bits = dt is wt.float32
    cases = [(b, u) for b, u in _SPECIAL_TARGETS
             if keep_bits or not any(np.isnan(v) for v in (b, *u))]
    if not keep_bits:
        cases += [(np.nan, [1.0]), (0.0, [np.nan, np.inf, -np.inf]), (0.0, [1.0, np.nan])]
    if dt.kind == "c":
        cases = [(b, u) for b, u in cases if _nan_events([b, *u]) < 2]
    base = np.array([b for b, _ in cases], np.float32)
    order = [(k, t) for t, (_, u) in enumerate(cases) for k in range(len(u))]
    order.sort()  # the k-th update of every target, then the (k+1)-th: interleaved
    idx = np.array([t for _, t in order], np.int64)
    upd = np.array([cases[t][1][k] for k, t in order], np.float32)
    if dt.kind == "c":
        base, upd = _complex(base, base), _complex(upd, upd)
    elif dt is wt.float16:
        with np.errstate(over="ignore"):  # 3.4e38 is inf in float16
            base, upd = base.astype(np.float16), upd.astype(np.float16)
    return base, idx, upd


def _complex(re, im):
    out = np.empty(re.shape, np.complex64)
    out.real, out.imag = re, im
    return out


@pytest.mark.parametrize("dt", (wt.float32, wt.float16, wt.bfloat16, wt.complex64), ids=str)
def test_scatter_add_exact_sums_special_values(dt, exact_sums):
    """NaN (the first in C order, payload kept and quieted, unless both infinities came
    before it: the default NaN), infinities, overflow, signed zeros and subnormals, in the
    targets and in the updates: the CPU device's bytes."""
    base, idx, upd = _special_case(dt)  # (bfloat16: float32 values, converted by asarray)
    with np.errstate(over="ignore"):
        g = _both(lambda b, i, u: _reduce.scatter("add", b, 0, i, u), base, idx, upd,
                  dtypes=(dt, wt.int64, dt))
    assert exact_sums
    if dt is wt.float32:
        bits = np.asarray(g).view(np.uint32)
        assert bits[0] == 0x7fc00001 and bits[1] == 0xffc00000 and bits[2] == 0xffc01234
        assert bits[7] == 0x7f800005 and bits[8] == 0x7fc00005


@pytest.mark.parametrize("index_dt", (wt.int32, wt.int64), ids=str)
@pytest.mark.parametrize("n", (40_000, 300_000))
def test_scatter_add_exact_sums_special_values_among_many_updates(index_dt, n, exact_sums):
    """Zeros, NaN (distinct payloads) and infinities sprinkled through the updates, so they
    fall in different vectors, items and invocations of the vector pass (which marks them in a
    second walk over an invocation's updates: in the kernel itself for 40,000 updates, in the
    deferred pair's second kernel on CPU adapters for 300,000), and targets that only ever
    get -0.0 or nothing: the CPU device's bytes."""
    rng = np.random.default_rng(7)
    slots = 12
    idx = rng.integers(0, slots - 2, n)  # the last two targets get only zeros, or nothing
    upd = rng.standard_normal(n).astype(np.float32)
    spots = rng.choice(n, 60, replace=False)
    upd[spots[:20]] = 0.0
    upd[spots[20:30]] = -0.0
    upd[spots[30:40]] = np.inf
    upd[spots[40:45]] = -np.inf
    upd[spots[45:]] = _f32_bits(*(0x7fc00000 + 17 * k for k in range(1, 16)))
    idx[rng.choice(n, 9, replace=False)] = slots - 2
    upd[idx == slots - 2] = -0.0
    base = np.array([0.0] * (slots - 2) + [-0.0, 5.0], np.float32)
    _both(lambda b, i, u: _reduce.scatter("add", b, 0, i, u), base, idx, upd,
          dtypes=(wt.float32, index_dt, wt.float32))
    assert exact_sums


def _round_f32(q):
    """The float32 nearest the Fraction ``q`` (ties to even)."""
    from fractions import Fraction

    f = np.float32(float(q))  # float64 first: at most one float32 step off
    near = (np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf)))
    return min(near, key=lambda c: (abs(Fraction(float(c)) - q),
                                    int(np.array(c).view(np.uint32)) & 1))


def test_scatter_add_exact_sums_are_the_exact_sum_rounded_once(exact_sums):
    """Values over 2**-140 .. 2**100 of both signs with planted cancellations (float64's
    running sum rounds; the CPU's result can be off): each target is its exact sum (a
    Fraction) rounded once to float32."""
    from fractions import Fraction

    rng = np.random.default_rng(41)
    n, slots = 6000, 9
    upd = ((rng.random(n) + 1) * np.exp2(rng.integers(-140, 100, n))
           * rng.choice([-1, 1], n)).astype(np.float32)
    idx = rng.integers(0, slots, n)
    big = np.exp2(rng.integers(60, 100, 40)).astype(np.float32)
    upd[:40], upd[40:80] = big, -big[::-1]  # huge terms that cancel, around small ones
    base = rng.standard_normal(slots).astype(np.float32)
    got = _reduce.scatter("add", wt.asarray(base, device=GPU), 0, wt.asarray(idx, device=GPU),
                          wt.asarray(upd, device=GPU))
    want = [_round_f32(Fraction(float(base[t])) + sum(map(Fraction, upd[idx == t].tolist())))
            for t in range(slots)]
    assert np.asarray(got).tobytes() == np.array(want, np.float32).tobytes()
    assert exact_sums


@pytest.mark.parametrize("index_dt", (wt.int32, wt.int64), ids=str)
@pytest.mark.parametrize("n", [1, 3, 6, 4099])
def test_scatter_add_exact_sums_odd_sizes_and_views(n, index_dt, exact_sums):
    """Update counts past whole vectors, views starting inside one (no vector loads), strided
    and 2-D updates, negative indices, int32 and int64 indices: the CPU device's bytes."""
    rng = np.random.default_rng(n)
    idx = rng.integers(-11, 11, n + 1)
    upd = rng.standard_normal((n + 1, 3)) * np.exp2(rng.integers(-20, 20, (n + 1, 3)))
    base = rng.standard_normal((11, 3))
    add = lambda b, i, u: _reduce.scatter("add", b, 0, i, u)  # noqa: E731
    d = (wt.float32, index_dt, wt.float32)
    _both(lambda b, i, u: add(b[:, 0], i[:n], u[:n, 0]), base, idx, upd, dtypes=d)
    _both(lambda b, i, u: add(b[:, 0], i[1:], u[1:, 0]), base, idx, upd, dtypes=d)
    _both(lambda b, i, u: add(b[:, 1], i[1:], u[1:, 1]), base, idx, upd, dtypes=d)
    _both(lambda b, i, u: add(b, wt.broadcast_to(wt.reshape(i, (n + 1, 1)), (n + 1, 3)), u),
          base, idx, upd, dtypes=d)
    _both(lambda b, i, u: add(b, wt.broadcast_to(wt.reshape(i[:n], (n, 1)), (n, 3)), u[:n].mT.mT),
          base, idx, upd, dtypes=d)
    assert len(exact_sums) == 5


def test_scatter_add_exact_sums_carry_and_duplicate_heavy(exact_sums):
    """200001 updates into 3 targets: window words wrap again and again (carries), a sum past
    float32's range (inf), and large terms cancelling back to a small value; twice, the same
    bytes."""
    n = 200_001
    idx = np.arange(n) % 3
    upd = np.where(idx == 0, 1.75, 3e38).astype(np.float32)
    third = np.full(n // 3, 2.0 ** 40)
    third[1::2] = -(2.0 ** 40)  # pairs that cancel (float64 keeps the 0.125 beside them)
    third[0] = 0.125
    upd[idx == 2] = third
    fn = lambda b, i, u: _reduce.scatter("add", b, 0, i, u)  # noqa: E731
    g1 = _both(fn, np.zeros(3), idx, upd, dtypes=(wt.float32, wt.int64, wt.float32))
    g2 = _both(fn, np.zeros(3), idx, upd, dtypes=(wt.float32, wt.int64, wt.float32))
    assert g1.tobytes() == g2.tobytes()
    assert np.asarray(g1).tolist() == [1.75 * (n // 3), np.inf, 0.125]
    assert len(exact_sums) == 2


@pytest.mark.parametrize("dt", (wt.float32, wt.bfloat16, wt.complex64), ids=str)
def test_scatter_add_fast_precision_takes_the_exact_sums(dt, exact_sums):
    """Few targets: fast precision gives the exact sums too (as fast as any float32 order)."""
    rng = np.random.default_rng(42)
    idx = rng.integers(0, 50, 20_000)
    upd = rng.standard_normal(20_000) * np.exp2(rng.integers(-30, 30, 20_000))
    if dt.kind == "c":
        upd = upd + 1j * upd[::-1]
    b = wt.zeros((50,), dtype=dt, device=GPU)
    i = wt.asarray(idx, device=GPU)
    u = wt.asarray(upd, dtype=dt, device=GPU)
    with wt.set_precision("fast"):
        fast = _reduce.scatter("add", b, 0, i, u)
    assert fast.tobytes() == _reduce.scatter("add", b, 0, i, u).tobytes()
    assert len(exact_sums) == 2


def test_scatter_in_range_flags_indices_outside(exact_sums):
    """``scatter_in_range``: True with the scatter done where every index is in [0, size),
    False for a negative one, one past the end, or an int64 beyond 32 bits; None (nothing
    done) for scatters other than the exact sums."""
    rng = np.random.default_rng(43)
    upd = wt.asarray(rng.standard_normal(1001), dtype=wt.float32, device=GPU)
    good = rng.integers(0, 9, 1001)
    for index_dt in (wt.int32, wt.int64):
        out = wt.zeros((9,), device=GPU)
        assert B.scatter_in_range("add", out, 0, wt.asarray(good, dtype=index_dt, device=GPU),
                                  upd) is True
        want = _reduce.scatter("add", wt.zeros((9,), device=CPU), 0,
                               wt.asarray(good, device=CPU), wt.asarray(np.asarray(upd), device=CPU))
        assert out.tobytes() == want.tobytes()
        for at, bad in ((1, -1), (1000, 9), (517, -9), (3, 1 << 32)):
            if bad == 1 << 32 and index_dt is wt.int32:
                continue
            idx = good.copy()
            idx[at] = bad
            for i in (idx, idx[1:]):  # vector loads, and scalar ones (an odd offset)
                flat = wt.asarray(i, dtype=index_dt, device=GPU)
                assert B.scatter_in_range("add", wt.zeros((9,), device=GPU), 0, flat,
                                          upd[1:] if i is not idx else upd) is False
    ints = wt.zeros((9,), dtype=wt.int32, device=GPU)
    assert B.scatter_in_range("add", ints, 0, wt.asarray(good, device=GPU),
                              wt.asarray(good, dtype=wt.int32, device=GPU)) is None
    many = wt.zeros((5000,), device=GPU)  # many targets: the ordered path
    assert B.scatter_in_range("add", many, 0, wt.asarray(good, device=GPU), upd) is None
    assert not any(many.tolist())


def test_tf_scatter_nd_on_webgpu_checks_indices_while_scattering(exact_sums):
    """tf.scatter_nd: the CPU device's bytes; indices out of range (negative ones too) raise
    TensorFlow's error, for float updates (checked by the exact sums) and others (min/max)."""
    from webtensor.tf.errors import InvalidArgumentError

    rng = np.random.default_rng(44)
    idx = rng.integers(0, 7, (500, 1)).astype(np.int32)
    rows = rng.standard_normal((500, 3))
    for dt, shape, upd in ((wt.float32, (7,), rows[:, 0]), (wt.float32, (7, 3), rows),
                           (wt.int32, (7,), (rows[:, 0] * 100).astype(np.int64)),
                           (wt.bool, (7,), rows[:, 0] > 0)):
        g = _both(lambda i, u, shape=shape: wt.tf.scatter_nd(i, u, shape), idx, upd,
                  dtypes=(wt.int32, dt))
        for bad in (-1, 7):
            wrong = idx.copy()
            wrong[250, 0] = bad
            with pytest.raises(InvalidArgumentError, match=rf"the index \[{bad}\]"):
                wt.tf.scatter_nd(wt.asarray(wrong, device=GPU),
                                 wt.asarray(upd, dtype=dt, device=GPU), shape)
        assert g.dtype is dt
    assert len(exact_sums) == 2 + 4  # the float cases, and their out-of-range calls


def _scatter_into_view(op, dt, base, view, axis, idx, upd, upd_view=lambda u: u):
    """backend.scatter on ``view(base)`` (in place) on both devices; the whole bases compared."""
    before = _routed()
    results = []
    for device in (CPU, GPU):
        b = wt.asarray(base, dtype=dt, device=device)
        u = upd_view(wt.asarray(upd, dtype=dt, device=device))
        i = wt.asarray(idx, dtype=wt.int64, device=device)
        device.backend.scatter(op, view(b), axis, i, u)
        results.append(b.tobytes())
    assert results[0] == results[1]
    assert _routed() == before


@pytest.mark.parametrize("dt, op", [(wt.int8, "add"), (wt.int8, "max"), (wt.float16, "add"),
                                   (wt.bfloat16, "min"), (wt.float32, "add"), (wt.int64, "max"),
                                   (wt.uint16, "min"), (wt.complex64, "add")], ids=str)
def test_scatter_into_strided_views(dt, op):
    base = _data(dt, (7, 9), 17)
    rng = np.random.default_rng(18)
    # every other column, reversed rows (a packed dtype's targets share words with neighbours
    # that must stay untouched); transposed updates; and the transposed view as the target
    idx = rng.integers(-7, 7, (11, 5))
    _scatter_into_view(op, dt, base, lambda b: b[::-1, ::2], 0, idx, _data(dt, (11, 5), 19))
    _scatter_into_view(op, dt, base, lambda b: b[::-1, ::2], 0, idx, _data(dt, (5, 11), 20),
                       upd_view=lambda u: u.mT)
    idx = rng.integers(0, 7, (9, 3))
    _scatter_into_view(op, dt, base, lambda b: b.mT, 1, idx, _data(dt, (9, 3), 21))


@pytest.mark.parametrize("dt", (wt.float32, wt.int16), ids=str)
def test_scatter_ordered_empty_and_aliased(dt):
    base = _data(dt, (4, 3), 22)
    _both(lambda b, i, u: _reduce.scatter("add", b, 0, i, u), base, np.zeros((0, 3), np.int64),
          np.zeros((0, 3)), dtypes=(dt, wt.int64, dt))
    before = _routed()
    for out_shape in ((4, 3), (0, 3)):  # the backend directly: nothing to do, nothing routed
        b = wt.asarray(np.zeros(out_shape), dtype=dt, device=GPU)
        kept = b.tobytes()
        B.scatter("add", b, 0, empty((0, 3), wt.int64, GPU), empty((0, 3), dt, GPU))
        assert b.tobytes() == kept
    # updates that are a view of the target's own buffer are read before it changes
    idx = np.array([[3, 0, 3], [3, 1, 0]])
    results = []
    for device in (CPU, GPU):
        b = wt.asarray(base, dtype=dt, device=device)
        device.backend.scatter("add", b, 0, wt.asarray(idx, device=device), b[1:3])
        results.append(b.tobytes())
    assert results[0] == results[1]
    assert _routed() == before


@pytest.mark.parametrize("op", OPS)
def test_scatter_is_deterministic_with_many_duplicates(op):
    # 20000 updates into 7 slots: the atomics race hard, the result must not depend on it.
    rng = np.random.default_rng(12)
    idx = rng.integers(0, 7, 20000)
    upd = rng.integers(-1000, 1000, 20000)
    base = np.zeros(7, np.int64)
    g1 = _both(lambda b, i, u: _reduce.scatter(op, b, 0, i, u), base, idx, upd,
               dtypes=(wt.int32, wt.int64, wt.int32))
    g2 = _both(lambda b, i, u: _reduce.scatter(op, b, 0, i, u), base, idx, upd,
               dtypes=(wt.int32, wt.int64, wt.int32))
    assert g1.tobytes() == g2.tobytes()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), m=st.integers(1, 40), cols=st.integers(1, 3),
       seed=st.integers(0, 2 ** 16), dt=st.sampled_from((wt.int8, wt.float32, wt.float64)))
def test_setitem_property(n, m, cols, seed, dt):
    rng = np.random.default_rng(seed)
    idx = rng.integers(-n, n, m)
    v = _data(dt, (m, cols), seed)
    _both(lambda v, i: _set((n, cols), lambda y: i)(v, v), v, idx, dtypes=(dt, wt.int64))


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 6), m=st.integers(1, 30), cols=st.integers(1, 3),
       seed=st.integers(0, 2 ** 16), op=st.sampled_from(("add", "min", "max")),
       dt=st.sampled_from((wt.int8, wt.uint16, wt.float16, wt.float32, wt.uint64)))
def test_scatter_ordered_property(n, m, cols, seed, op, dt):
    rng = np.random.default_rng(seed)
    idx = rng.integers(-n, n, (m, cols))
    _both(lambda b, i, u: _reduce.scatter(op, b, 0, i, u), _data(dt, (n, cols), seed), idx,
          _data(dt, (m, cols), seed + 1), dtypes=(dt, wt.int64, dt))


def test_scatter_unknown_op_is_refused():
    out = wt.zeros((3,), device=GPU)
    with pytest.raises(ValueError, match="scatter: unknown op 'mul'"):
        B.scatter("mul", out, 0, wt.zeros((1,), dtype=wt.int64, device=GPU),
                  wt.zeros((1,), device=GPU))


def test_backend_scatter_rejects_mismatched_shapes():
    out = wt.zeros((3,), device=GPU)
    with pytest.raises(ValueError, match=r"scatter: updates shape \(2,\) != indices shape"):
        B.scatter("set", out, 0, wt.zeros((1,), dtype=wt.int64, device=GPU),
                  wt.zeros((2,), device=GPU))


# -- random bits ----------------------------------------------------------------------------------

CASES = [  # (key, counter, n): counters whose blocks carry across one, two and three words
    ((0, 0), 0, 1), ((0, 0), 0, 10), ((0xFFFFFFFF, 0x12345678), 5, 4),
    ((7, 9), (1 << 32) - 2, 1001), ((1, 2), (1 << 64) - 1, 17), ((3, 4), (1 << 96) - 3, 33),
    ((5, 6), (1 << 128) - 2, 13),  # wraps modulo 2**128
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_bits_equals_philox(case):
    key, counter, n = case
    before = _routed()
    out = empty((n,), wt.uint32, GPU)
    B.random_bits(out, key, counter)
    words = np.asarray(out).tolist()
    assert _routed() == before
    assert words == _philox.philox_words_numpy(key, counter, n).tolist()
    assert words == _philox.philox_words_python(key, counter, n)


def test_random_bits_large_and_empty():
    out = empty((100003,), wt.uint32, GPU)
    B.random_bits(out, (11, 12), 3)
    assert np.array_equal(np.asarray(out), _philox.philox_words_numpy((11, 12), 3, 100003))
    B.random_bits(empty((0,), wt.uint32, GPU), (1, 1), 0)


def test_random_bits_wrong_dtype_is_refused():
    with pytest.raises(TypeError, match="random_bits: out must be uint32, got int32"):
        B.random_bits(empty((4,), wt.int32, GPU), (1, 2), 0)


DISTRIBUTIONS = {
    "bits": lambda k, d: wt.random.bits(k, (3, 5), device=d),
    "uniform": lambda k, d: wt.random.uniform(k, (257,), device=d),
    "normal": lambda k, d: wt.random.normal(k, (4, 33), device=d),
    "randint": lambda k, d: wt.random.randint(k, (50,), -7, 1000, device=d),
    "permutation": lambda k, d: wt.random.permutation(k, 40, device=d),
    "bernoulli": lambda k, d: wt.random.bernoulli(k, 0.3, (64,), device=d),
}


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_random_distributions_match_cpu(name):
    for seed in (0, 12345):
        key = wt.random.key(seed)
        c = DISTRIBUTIONS[name](key, CPU)
        before = B.routed[("random_bits", "uint32")]
        g = DISTRIBUTIONS[name](key, GPU)
        assert g.device == GPU and g.tobytes() == c.tobytes()
        assert B.routed[("random_bits", "uint32")] == before


def test_capabilities_report_native_rows():
    caps = B.capabilities()
    assert caps["gather"]["complex128"] == "native"
    assert caps["scatter"]["int32"] == caps["scatter"]["bool"] == "native"
    for dt in SCATTERED:
        assert caps["scatter"][dt.name] == "native", dt
    assert caps["scatter"]["float64"] == "partial (1/4 ops)"  # set only: float64 sums route
    assert caps["scatter"]["complex128"] == "partial (1/2 ops)"  # complex min/max: refused
    assert caps["random_bits"]["uint32"] == "native"
    assert caps["matmul"]["float32"] == "native" and caps["matmul"]["float64"] == "cpu"
