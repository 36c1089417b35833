"""Native WebGPU gather, scatter and Philox random bits against the CPU device.

Skipped (reason printed) without wgpu, a WebGPU adapter or NumPy (used to make test data).
What must hold:

* gather (``wt.take``, ``take_along_axis``, advanced indexing) and scatter (``x[idx] = v``,
  and the frontend's ``scatter`` with add/min/max) give the CPU device's bytes exactly, for
  duplicate and negative indices, strided and broadcast views, and every dtype gather/``set``
  moves as raw bits; scatter results do not depend on invocation order (repeated runs agree).
* ``random_bits`` gives ``_philox``'s words (both the NumPy and the pure-Python generator) for
  any key and 128-bit counter, and ``wt.random`` distributions are identical on both devices.
* None of these calls is routed to the CPU, except float32 scatter-add (documented).
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

np = pytest.importorskip("numpy", reason="test data is made with NumPy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor import device as _device  # noqa: E402
from webtensor.api import _reduce  # noqa: E402
from webtensor.backends import _philox  # noqa: E402
from webtensor.tensor import empty  # noqa: E402

GPU = _device.as_device("webgpu")
CPU = _device.cpu
B = GPU.backend
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


@pytest.mark.parametrize("dt", (wt.float32, wt.int32, wt.uint32, wt.bool), ids=str)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axis", (0, 1))
def test_scatter_ops(dt, op, axis):
    base = _data(dt, (6, 5), 9)
    shape = (9, 4) if axis == 0 else (5, 9)
    idx = np.random.default_rng(10).integers(-base.shape[axis], base.shape[axis], shape)
    upd = _data(dt, shape, 11)
    if dt is wt.float32:  # NaN in the base and the updates, signed zeros
        base[0, 0], base[1, 1], base[2, 2] = np.nan, -0.0, 0.0
        upd[0, 0], upd[1, 1], upd[2, 2] = np.nan, 0.0, -0.0
    native = not (dt is wt.float32 and op == "add")  # float32 add: routed, see gather.py
    _both(lambda b, i, u: _reduce.scatter(op, b, axis, i, u), base, idx, upd,
          dtypes=(dt, wt.int64, dt), native=native)


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
    assert caps["scatter"]["float32"] == "partial (3/4 ops)"  # add is routed
    assert caps["scatter"]["int8"] == "partial (1/4 ops)"  # set only
    assert caps["random_bits"]["uint32"] == "native"
    assert caps["matmul"]["float32"] == "native" and caps["matmul"]["float64"] == "cpu"
