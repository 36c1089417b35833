"""The ``window_reduce`` backend primitive and the nx window ops built on it, on every device.

Oracles: a NumPy fold of the window positions in the dtype's own arithmetic (bit-exact for sums
and products of real dtypes, values for max/min, whose zero signs NumPy leaves open), the CPU
device bit for bit (any NaN matching any NaN), and folding the strided window views with
``wt.add``/``wt.multiply``/``wt.maximum``/``wt.minimum`` on the same device (the definition:
NaN and signed zeros as the elementwise ops have them).  Derivatives against JAX
(``lax.reduce_window`` under ``jax.grad``/``jax.jvp``/``jax.jacfwd``).  Launch counts on the
recording driver, and on the real WebGPU device when there is one.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
import webtensor.nx as nx
from _oracle import (
    BACKENDS,
    DEVICES,
    assert_complex_close,
    assert_same_values,
    bf16_round,
    compute_values,
    dtype_values,
    layouts,
    storage_array,
    tensor_from_storage,
    tensor_storage,
    to_storage,
)
from webtensor.backends.base import window_positions, window_shape, window_view
from webtensor.backends.webgpu.backend import WebGPUBackend
from webtensor.backends.webgpu.recording import RecordingDriver
from webtensor.device import Device
from webtensor.tensor import empty

np = pytest.importorskip("numpy")

pytestmark = pytest.mark.filterwarnings("ignore:webgpu. float64 work runs on the CPU")

OPS = ("sum", "prod", "max", "min")
CPU = DEVICES.get("numpy") or DEVICES["python"]


@pytest.fixture(scope="module", params=BACKENDS, name="dev")
def _dev(request):
    return request.param


# -- helpers --------------------------------------------------------------------------------------

def primitive(op, x, window, strides, dilations):
    out = empty(window_shape(x.shape, window, strides, dilations), x.dtype, x.device)
    if out.size:
        x.device.backend.window_reduce(op, out, x, tuple(window), tuple(strides),
                                       tuple(dilations))
    return out


_FOLD = {"sum": wt.add, "prod": wt.multiply, "max": wt.maximum, "min": wt.minimum}


def fold_views(op, x, window, strides, dilations):
    """The definition: the window views of ``x`` folded with the elementwise op."""
    shape = window_shape(x.shape, window, strides, dilations)
    acc = None
    for q in window_positions(window):
        v = window_view(x, q, shape, strides, dilations)
        acc = wt.asarray(v, copy=True) if acc is None else _FOLD[op](acc, v)
    return acc


def ref_fold(op, values, dt, window, strides, dilations):
    """NumPy: the window positions folded in row-major order, rounded to ``dt`` each step."""
    shape = window_shape(values.shape, window, strides, dilations)
    boolean = dt is wt.bool
    fn = {"sum": np.logical_or if boolean else np.add,
          "prod": np.logical_and if boolean else np.multiply,
          "max": np.logical_or if boolean else np.maximum,
          "min": np.logical_and if boolean else np.minimum}[op]
    acc = None
    with np.errstate(all="ignore"):
        for q in itertools.product(*(range(w) for w in window)):
            part = values[tuple(slice(i * d, i * d + (n - 1) * s + 1, s) for i, n, s, d in
                                zip(q, shape, strides, dilations))]
            acc = part.copy() if acc is None else fn(acc, part)
            if dt is wt.bfloat16:
                acc = bf16_round(acc)
    return acc


def storage_of(t):
    return np.ascontiguousarray(tensor_storage(t))


def same_bits(got, want, dt, **kw):
    assert got.shape == want.shape and got.dtype is want.dtype is dt
    assert_same_values(storage_of(got).reshape(-1), storage_of(want).reshape(-1), dt, **kw)


@st.composite
def geometries(draw, max_dims=3, extra=4):
    """(input shape, window, strides, dilations) with at least one window per axis."""
    rank = draw(st.integers(1, max_dims))
    window = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    strides = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    dilations = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    shape = tuple((w - 1) * d + 1 + draw(st.integers(0, extra))
                  for w, d in zip(window, dilations))
    return shape, window, strides, dilations


def _ops_for(dt):
    return ("sum", "prod") if dt.kind == "c" else OPS


# -- the primitive --------------------------------------------------------------------------------

@settings(max_examples=60)
@given(data=st.data())
def test_primitive_matches_numpy_and_the_cpu(dev, data):
    dt = data.draw(st.sampled_from(wt.all_dtypes), label="dtype")
    op = data.draw(st.sampled_from(_ops_for(dt)), label="op")
    shape, window, strides, dilations = data.draw(geometries(), label="geometry")
    values = data.draw(st.lists(dtype_values(dt), min_size=math.prod(shape),
                                max_size=math.prod(shape)), label="values")
    layout = data.draw(st.none() | layouts(len(shape)), label="layout")
    storage = storage_array(values, dt, shape)
    x = tensor_from_storage(storage, dt, dev, layout=layout)
    got = primitive(op, x, window, strides, dilations)
    want = ref_fold(op, compute_values(storage, dt), dt, window, strides, dilations)
    if dt.kind == "c" and op == "prod":  # NumPy's complex product may fuse multiply-adds
        assert_complex_close(storage_of(got), want, dt, eps_factor=4 * len(values))
    else:  # NumPy orders max/min's zeros as it likes
        assert_same_values(storage_of(got), to_storage(want, dt), dt,
                           zero_sign=op not in ("max", "min"))
    cpu = primitive(op, tensor_from_storage(storage, dt, CPU, layout=layout), window, strides,
                    dilations)
    same_bits(got, cpu, dt)


@settings(max_examples=40)
@given(data=st.data())
def test_primitive_equals_folding_the_views_with_the_elementwise_op(dev, data):
    """NaN, infinities and signed zeros as wt.maximum/wt.minimum/wt.add/wt.multiply have them,
    in every float format."""
    dt = data.draw(st.sampled_from([wt.float16, wt.bfloat16, wt.float32, wt.float64,
                                    wt.complex64]), label="dtype")
    op = data.draw(st.sampled_from(_ops_for(dt)), label="op")
    shape, window, strides, dilations = data.draw(geometries(max_dims=2), label="geometry")
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -2.0]
    if dt.kind == "c":
        specials = [complex(a, b) for a in specials for b in (0.0, -0.0, 1.0, math.inf)]
    values = data.draw(st.lists(st.sampled_from(specials), min_size=math.prod(shape),
                                max_size=math.prod(shape)), label="values")
    x = tensor_from_storage(storage_array(values, dt, shape), dt, dev)
    same_bits(primitive(op, x, window, strides, dilations),
              fold_views(op, x, window, strides, dilations), dt)


def test_signed_zeros_and_nan_of_max_and_min(dev):
    x = wt.asarray([[-0.0, 0.0, 0.0, -0.0, math.nan, 1.0]], dtype=wt.float32, device=dev)
    mx = primitive("max", x, (1, 2), (1, 1), (1, 1)).tolist()[0]
    mn = primitive("min", x, (1, 2), (1, 1), (1, 1)).tolist()[0]
    assert [math.copysign(1, v) for v in mx[:3]] == [1, 1, 1]  # -0.0 < +0.0
    assert [math.copysign(1, v) for v in mn[:3]] == [-1, 1, -1]
    assert math.isnan(mx[3]) and math.isnan(mx[4]) and math.isnan(mn[3]) and math.isnan(mn[4])
    s = primitive("sum", wt.asarray([-0.0, -0.0], device=dev), (2,), (1,), (1,))
    assert math.copysign(1, s.item()) == -1  # a sum of -0.0s stays -0.0


def test_primitive_errors(dev):
    x = wt.zeros((4, 4), device=dev)
    b = dev.backend
    with pytest.raises(ValueError, match="window_reduce: unknown op 'mean'"):
        b.window_reduce("mean", empty((3, 3), wt.float32, dev), x, (2, 2), (1, 1), (1, 1))
    with pytest.raises(ValueError, match=r"window_reduce: out has shape \(2, 2\), the windows "
                                         r"give \(3, 3\)"):
        b.window_reduce("sum", empty((2, 2), wt.float32, dev), x, (2, 2), (1, 1), (1, 1))
    with pytest.raises(ValueError, match=r"window_reduce: strides must be 2 positive ints"):
        b.window_reduce("sum", empty((3, 3), wt.float32, dev), x, (2, 2), (0, 1), (1, 1))
    with pytest.raises(TypeError, match="window_reduce: max of complex values"):
        z = wt.zeros((4,), dtype=wt.complex64, device=dev)
        b.window_reduce("max", empty((3,), wt.complex64, dev), z, (2,), (1,), (1,))


# -- select and scatter ---------------------------------------------------------------------------

SELECTS = ("max", "min", "max_last", "min_last")


def scatter(select, x, source, window, strides, dilations):
    out = empty(x.shape, source.dtype, x.device)
    if out.size:
        x.device.backend.window_scatter(select, out, x, source, tuple(window), tuple(strides),
                                        tuple(dilations))
    return out


def ref_selected(select, values, window, strides, dilations, shape):
    """Per window, the index (in ``values``) of the element the selection rule picks."""
    ge = select.startswith("max")
    last = select.endswith("_last")
    picked = {}
    for o in itertools.product(*(range(n) for n in shape)):
        best = None
        for q in itertools.product(*(range(w) for w in window)):
            at = tuple(i * s + j * d for i, s, j, d in zip(o, strides, q, dilations))
            if best is None:
                best = at
                continue
            a, b = (values[at], values[best]) if last else (values[best], values[at])
            holds = bool(a >= b) if ge else bool(a <= b)  # NaN compares False
            if holds == last:
                best = at
        picked[o] = best
    return picked


@settings(max_examples=60)
@given(data=st.data())
def test_window_scatter_matches_numpy_and_the_cpu(dev, data):
    dt = data.draw(st.sampled_from([d for d in wt.all_dtypes if d.kind != "c"]), label="x")
    out_dt = data.draw(st.sampled_from([dt, wt.float32, wt.int64, wt.float16]), label="out")
    select = data.draw(st.sampled_from(SELECTS), label="select")
    shape, window, strides, dilations = data.draw(geometries(), label="geometry")
    values = data.draw(st.lists(dtype_values(dt), min_size=math.prod(shape),
                                max_size=math.prod(shape)), label="values")
    wshape = window_shape(shape, window, strides, dilations)
    small = dtype_values(out_dt, finite=True, bound=4) if out_dt.kind == "f" else \
        dtype_values(out_dt)  # integers wrap as they add
    sources = data.draw(st.lists(small, min_size=math.prod(wshape),
                                 max_size=math.prod(wshape)), label="source")
    layout = data.draw(st.none() | layouts(len(shape)), label="layout")
    xs, ss = storage_array(values, dt, shape), storage_array(sources, out_dt, wshape)
    x = tensor_from_storage(xs, dt, dev, layout=layout)
    got = scatter(select, x, tensor_from_storage(ss, out_dt, dev), window, strides, dilations)
    # the reference: the sources of the windows selecting each element, in the windows' C
    # order, added from 0 in the output's arithmetic
    picked = ref_selected(select, compute_values(xs, dt), window, strides, dilations, wshape)
    src = compute_values(ss, out_dt)
    want = np.zeros(shape, src.dtype)
    with np.errstate(all="ignore"):
        for o, at in picked.items():
            want[at] = np.logical_or(want[at], src[o]) if out_dt is wt.bool else \
                want[at] + src[o]
            if out_dt is wt.bfloat16:
                want[at] = bf16_round(want[at])
    assert_same_values(storage_of(got), to_storage(want, out_dt), out_dt)
    cpu = scatter(select, tensor_from_storage(xs, dt, CPU, layout=layout),
                  tensor_from_storage(ss, out_dt, CPU), window, strides, dilations)
    same_bits(got, cpu, out_dt)


DISJOINT = [((2, 2), (2, 2), (1, 1)), ((2, 3), (3, 4), (1, 1)), ((2, 2), (3, 2), (2, 1)),
            ((1, 1), (1, 2), (1, 1))]


@pytest.mark.parametrize("geometry", DISJOINT, ids=str)
@pytest.mark.parametrize("out_dt", [wt.float32, wt.int64, wt.complex64, wt.float16],
                         ids=lambda d: d.name)
def test_window_scatter_over_disjoint_windows(dev, geometry, out_dt):
    """Pooling's case (no element in two windows): on WebGPU one kernel per window writes its
    own elements (whole-word outputs); the same bits as everywhere, zero signs included."""
    window, strides, dilations = geometry
    rnd = np.random.default_rng(7)
    xs = rnd.integers(-2, 3, size=(6, 8)).astype(np.float32)
    xs[1, 1] = np.nan
    wshape = window_shape(xs.shape, window, strides, dilations)
    src = rnd.integers(-3, 4, size=wshape).astype(np.float32)
    src[0, 0] = -0.0  # 0 + -0.0 is +0.0
    for select in SELECTS:
        got, cpu = (scatter(select, wt.asarray(xs, device=d)[:, ::-1],
                            wt.asarray(src, device=d).astype(out_dt), window, strides,
                            dilations) for d in (dev, CPU))
        same_bits(got, cpu, out_dt)
    dev_r, backend, driver = _recording()
    x = wt.asarray(xs, device=wt.device.cpu).to_device(dev_r)
    source = wt.zeros(wshape, dtype=out_dt, device=dev_r)
    before = len(driver.launches)
    scatter("max", x, source, window, strides, dilations)
    covering = window == strides and all(o * s == n for o, s, n in zip(wshape, strides,
                                                                       xs.shape))
    packed = out_dt is wt.float16  # two elements a word: the general two kernels
    assert len(driver.launches) - before == (2 if packed or not covering else 1)


def test_window_scatter_selections_with_ties_and_nan(dev):
    x = wt.asarray([[3.0, 3.0, math.nan, 1.0, 5.0, 5.0]], device=dev)
    src = wt.asarray([[10.0, 20.0, 30.0, 40.0, 50.0]], device=dev)  # windows of 2, stride 1
    got = {sel: scatter(sel, x, src, (1, 2), (1, 1), (1, 1)).tolist()[0] for sel in SELECTS}
    # first extreme wins and a NaN gives way | the last extreme wins, a NaN only if first
    assert got["max"] == [10.0, 0.0, 20.0, 30.0, 90.0, 0.0]
    assert got["max_last"] == [0.0, 30.0, 30.0, 0.0, 40.0, 50.0]
    assert got["min"] == [10.0, 0.0, 20.0, 70.0, 50.0, 0.0]
    assert got["min_last"] == [0.0, 30.0, 30.0, 40.0, 0.0, 50.0]


def test_window_scatter_errors(dev):
    b = dev.backend
    x, src = wt.zeros((4,), device=dev), wt.zeros((3,), device=dev)
    with pytest.raises(ValueError, match="window_scatter: unknown selection 'mean'"):
        b.window_scatter("mean", empty((4,), wt.float32, dev), x, src, (2,), (1,), (1,))
    with pytest.raises(ValueError, match=r"window_scatter: source has shape \(3,\), the "
                                         r"windows give \(2,\)"):
        b.window_scatter("max", empty((4,), wt.float32, dev), x, src, (3,), (1,), (1,))
    with pytest.raises(TypeError, match="window_scatter: out is int32 but the source is "
                                        "float32"):
        b.window_scatter("max", empty((4,), wt.int32, dev), x, src, (2,), (1,), (1,))
    with pytest.raises(TypeError, match="window_scatter: selecting among complex values"):
        z = wt.zeros((4,), dtype=wt.complex64, device=dev)
        b.window_scatter("max", empty((4,), wt.float32, dev), z, src, (2,), (1,), (1,))


# -- the nx window ops ----------------------------------------------------------------------------

_IDENTITY = {"sum": 0, "product": 1, "mean": 0}


def ref_nx_window(op, values, dt, window, strides, dilations, config):
    """nx's window op: pad with the op's identity, then the NumPy fold (mean: sum / size)."""
    if op in _IDENTITY:
        fill = _IDENTITY[op]
    elif dt.kind == "f":
        fill = -np.inf if op == "max" else np.inf
    else:
        info = wt.iinfo(dt)
        fill = info.min if op == "max" else info.max
    padded = np.pad(values, config, constant_values=fill)
    prim = {"product": "prod", "mean": "sum"}.get(op, op)
    return ref_fold(prim, padded, dt, window, strides, dilations)


NX_DTYPES = [dt for dt in wt.all_dtypes if dt is not wt.bool]  # nx reads bool as u8


@settings(max_examples=60)
@given(data=st.data())
def test_nx_window_ops_match_numpy_and_the_cpu(dev, data):
    dt = data.draw(st.sampled_from(NX_DTYPES), label="dtype")
    ops = ("sum", "product", "mean") if dt.kind == "c" else ("sum", "product", "max", "min",
                                                             "mean")
    op = data.draw(st.sampled_from(ops), label="op")
    shape, window, strides, dilations = data.draw(geometries(extra=3), label="geometry")
    config = [(data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))) for _ in shape]
    shape = tuple(max(1, n - lo - hi) for n, (lo, hi) in zip(shape, config))
    finite = op in ("mean", "product")
    values = data.draw(st.lists(dtype_values(dt, finite=finite, bound=8 if finite else None),
                                min_size=math.prod(shape), max_size=math.prod(shape)))
    storage = storage_array(values, dt, shape)
    fn = getattr(nx, f"window_{op}")
    kw = {"strides": list(strides), "padding": config, "window_dilations": list(dilations)}
    x = tensor_from_storage(storage, dt, dev)
    eff = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
    if any(n + lo + hi < e for n, (lo, hi), e in zip(shape, config, eff)):
        with pytest.raises(ValueError, match="would result in empty tensor"):
            fn(x, window, **kw)
        return
    got = fn(x, window, **kw)
    want = ref_nx_window(op, compute_values(storage, dt), dt, window, strides, dilations, config)
    if op == "mean":
        n = math.prod(window)
        np.testing.assert_allclose(np.asarray(got.tolist()), want / n, rtol=1e-2, atol=1e-2)
    elif dt.kind == "c" and op == "product":
        assert_complex_close(storage_of(got), want, dt, eps_factor=64)
    else:
        assert got.dtype is dt
        assert_same_values(storage_of(got), to_storage(want, dt), dt,
                           zero_sign=op not in ("max", "min"))
    same_bits(got, fn(tensor_from_storage(storage, dt, CPU), window, **kw), got.dtype)


def test_nx_window_ops_keep_names_and_types(dev):
    x = nx.iota((4, 6), names=["rows", "cols"], type="s16", backend=dev)
    for fn in (nx.window_sum, nx.window_max, nx.window_min, nx.window_product):
        y = fn(x, (2, 3), strides=[2, 1])
        assert y.names == ("rows", "cols") and nx.type(y) == ("s", 16) and y.shape == (2, 4)
    assert nx.type(nx.window_mean(x, (2, 2))) == ("f", 32)


_BUILTINS = [("add", 0), ("add", -0.0), ("multiply", 1), ("max", -math.inf),
             ("min", math.inf)]


@pytest.mark.parametrize("name,acc", _BUILTINS, ids=lambda v: str(v))
@pytest.mark.parametrize("lib", ["nx", "wt"])
def test_window_reduce_with_a_builtin_equals_the_user_function_path(dev, name, acc, lib):
    fun = getattr(nx, name) if lib == "nx" else \
        {"add": wt.add, "multiply": wt.multiply, "max": wt.maximum, "min": wt.minimum}[name]
    values = [-0.0, -0.0, 1.5, math.nan, -0.0, 0.0, math.inf, -2.0, -0.0, -0.0, 3.0, 0.25]
    x = nx.tensor(values, type="f32", backend=dev)
    x = nx.reshape(x, (3, 4))
    kw = {"strides": [1, 2], "padding": [(0, 1), (1, 0)]}
    got = nx.window_reduce(x, acc, (2, 2), fun, **kw)
    want = nx.window_reduce(x, acc, (2, 2), lambda v, a: fun(v, a), **kw)  # composed
    same_bits(got, want, wt.float32)


def test_window_reduce_with_other_accumulators_composes(dev):
    x = nx.iota((3, 3), type="s32", backend=dev)
    got = nx.window_reduce(x, 5, (2, 2), nx.add)  # 5 is not add's identity
    assert got.tolist() == [[5 + 0 + 1 + 3 + 4, 5 + 1 + 2 + 4 + 5], [5 + 3 + 4 + 6 + 7,
                                                                       5 + 4 + 5 + 7 + 8]]


# -- launches -------------------------------------------------------------------------------------

def _recording():
    driver = RecordingDriver()
    backend = WebGPUBackend(driver)
    return Device("webgpu-recording", lambda: backend), backend, driver


@pytest.mark.parametrize("op", ["sum", "max", "min", "product"])
def test_a_window_op_is_one_dispatch_on_webgpu(op):
    dev, backend, driver = _recording()
    x = wt.reshape(wt.asarray(list(range(2 * 8 * 8)), dtype=wt.float32, device=wt.device.cpu),
                   (2, 8, 8)).to_device(dev)
    before = len(driver.launches)
    getattr(nx, f"window_{op}")(x, (1, 3, 3), strides=[1, 2, 2])
    launches = driver.launches[before:]
    assert len(launches) == 1 and not backend.routed
    assert "fn window_value(" in launches[0].wgsl
    before = len(driver.launches)
    getattr(nx, f"window_{op}")(x, (1, 3, 3), padding="same")  # + the padding's fill and write
    assert len(driver.launches) - before == 3 and not backend.routed


def test_a_window_op_is_one_dispatch_on_the_real_device():
    gpu = DEVICES.get("webgpu")
    if gpu is None:
        pytest.skip("no WebGPU adapter")
    x = nx.iota((1, 4, 16, 16), type="f32", backend=gpu)
    nx.window_max(x, (1, 1, 3, 3), strides=[1, 1, 2, 2]).tolist()
    before = gpu.backend.memory_stats()["dispatches"]
    y = nx.window_max(x, (1, 1, 3, 3), strides=[1, 1, 2, 2])
    assert gpu.backend.memory_stats()["dispatches"] - before == 1
    assert y.tolist() == fold_views("max", x, (1, 1, 3, 3), (1, 1, 2, 2), (1, 1, 1, 1)).tolist()


# -- the compiler: jit, autodiff, vmap ------------------------------------------------------------

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax
jax.config.update("jax_enable_x64", True)

_JAX_OP = {"sum": (lax.add, 0.0), "max": (lax.max, -math.inf), "min": (lax.min, math.inf),
           "product": (lax.mul, 1.0)}
GRAD_CASES = [((2, 2), (1, 1), (1, 1), "valid"), ((2, 3), (1, 2), (1, 1), "same"),
              ((3, 2), (2, 1), (1, 1), [(1, 0), (0, 2)]), ((2, 2), (1, 1), (2, 1), "valid"),
              ((1, 3), (2, 2), (1, 2), [(2, 1), (1, 1)])]


def _jax_pad(window, dilations, padding):
    if padding == "valid":
        return [(0, 0)] * len(window)
    if padding == "same":
        eff = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
        return [((e - 1) // 2, e - 1 - (e - 1) // 2) for e in eff]
    return padding


def _jax_window(op, window, strides, dilations, padding):
    fn, init = _JAX_OP[op]
    pad = _jax_pad(window, dilations, padding)
    return lambda t: lax.reduce_window(t, jnp.asarray(init, t.dtype), fn, window, strides,
                                       pad, window_dilation=dilations)


def _nx_window(op, window, strides, dilations, padding):
    fn = getattr(nx, f"window_{op}")
    return lambda t: fn(t, window, strides=list(strides), padding=padding,
                        window_dilations=list(dilations))


def ref_max_grad(op, x, w, window, strides, dilations, padding):
    """XLA's select-and-scatter, written out: per window (scanned in row-major order) a later
    element replaces the selected one unless the selected one compares >= (<=) to it, and the
    window's weight goes to the selected element (padding elements drop theirs)."""
    pad = _jax_pad(window, dilations, padding)
    fill = -np.inf if op == "max" else np.inf
    xp = np.pad(x.astype(np.float64), pad, constant_values=fill)
    g = np.zeros(xp.shape)
    keep = np.greater_equal if op == "max" else np.less_equal
    for o in itertools.product(*(range(n) for n in w.shape)):
        best = None
        for q in itertools.product(*(range(k) for k in window)):
            at = tuple(i * s + j * d for i, s, j, d in zip(o, strides, q, dilations))
            if best is None or not keep(xp[best], xp[at]):
                best = at
        g[best] += w[o]
    return g[tuple(slice(lo, lo + n) for (lo, _), n in zip(pad, x.shape))]


# small integers: ties on purpose (max/min's derivative goes to the first extreme in window
# order, as XLA's select-and-scatter picks it), and every float32 sum is exact
TIES = np.array([[1, 3, 3, 0, 2, 5], [3, 2, 1, 3, 3, -1], [0, 5, 5, 1, -1, 2],
                 [4, 4, 0, 2, 2, 2]], dtype=np.float32)


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: f"w{c[0]}s{c[1]}d{c[2]}")
@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_grad_matches_jax(dev, op, case):
    f, jf = _nx_window(op, *case), _jax_window(op, *case)
    shape = jf(TIES).shape
    w = np.arange(1, math.prod(shape) + 1, dtype=np.float32).reshape(shape)
    x = wt.asarray(TIES, device=dev)
    g = wt.grad(lambda t: wt.sum(f(t) * wt.asarray(w, device=dev)))(x)
    assert g.dtype is wt.float32
    if op != "sum":
        assert g.tolist() == ref_max_grad(op, TIES, w, *case).tolist()
    if op == "sum" or all(d == 1 for d in case[2]):  # JAX: no max/min VJP with dilations
        assert g.tolist() == np.asarray(jax.grad(lambda t: jnp.sum(jf(t) * w))(TIES)).tolist()


def test_max_gradient_with_nan_follows_select_and_scatter(dev):
    x = np.array([[1.0, np.nan, 5.0, 0.0], [3.0, 2.0, 1.0, 3.0]], dtype=np.float32)
    for op in ("max", "min"):
        f, jf = _nx_window(op, *GRAD_CASES[0]), _jax_window(op, *GRAD_CASES[0])
        g = wt.grad(lambda t, f=f: wt.sum(f(t)))(wt.asarray(x, device=dev))
        want = jax.grad(lambda t, jf=jf: jnp.sum(jf(t)))(x)
        assert g.tolist() == np.asarray(want).tolist()


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: f"w{c[0]}s{c[1]}d{c[2]}")
def test_product_gradient_matches_jax_forward_mode(dev, case):
    """JAX has no reverse mode for a multiplying reduce_window: its forward-mode derivatives,
    one input direction at a time, are the oracle.  Zeros in the windows test the exclusive products."""
    rnd = np.random.default_rng(1)
    x = rnd.uniform(0.5, 1.5, size=(4, 6)).astype(np.float32)
    x[1, 2] = x[2, 4] = 0.0
    f, jf = _nx_window("product", *case), _jax_window("product", *case)
    shape = jf(x).shape
    w = rnd.normal(size=shape).astype(np.float32)
    g = wt.grad(lambda t: wt.sum(f(t) * wt.asarray(w, device=dev)))(wt.asarray(x, device=dev))
    x64, want = x.astype(np.float64), np.zeros(x.shape)
    for i in np.ndindex(x.shape):  # (JAX's jacfwd cannot batch this reduce_window's jvp)
        e = np.zeros(x.shape)
        e[i] = 1.0
        want[i] = np.sum(w * np.asarray(jax.jvp(jf, (x64,), (e,))[1]))
    np.testing.assert_allclose(np.asarray(g.tolist()), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: f"w{c[0]}s{c[1]}d{c[2]}")
@pytest.mark.parametrize("op", ["sum", "max", "min", "product"])
def test_jvp_matches_jax(dev, op, case):
    rnd = np.random.default_rng(2)
    x = rnd.permutation(24).reshape(4, 6).astype(np.float32) / 4 + 0.5  # no ties
    t = rnd.normal(size=(4, 6)).astype(np.float32)
    f, jf = _nx_window(op, *case), _jax_window(op, *case)
    y, ty = wt.jvp(f, (wt.asarray(x, device=dev),), (wt.asarray(t, device=dev),))
    jy, jty = jax.jvp(jf, (x.astype(np.float64),), (t.astype(np.float64),))
    np.testing.assert_allclose(np.asarray(y.tolist()), np.asarray(jy), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ty.tolist()), np.asarray(jty), rtol=1e-5, atol=1e-6)


def test_second_order_through_window_ops(dev):
    """grad of grad: the window sum's adjoint is itself a window sum; max's is a scatter."""
    rnd = np.random.default_rng(3)
    x = rnd.permutation(20).reshape(4, 5).astype(np.float32) / 3
    v = rnd.normal(size=(4, 5)).astype(np.float32)

    def loss(t, lib):
        if lib is wt:
            s = nx.window_sum(t, (2, 2), strides=[1, 2], padding="same")
            m = nx.window_max(t * t, (2, 3), padding="valid")
        else:
            s = _jax_window("sum", (2, 2), (1, 2), (1, 1), "same")(t)
            m = _jax_window("max", (2, 3), (1, 1), (1, 1), "valid")(t * t)
        return lib.sum(s * s) + lib.sum(m)

    def hvp(t):
        return wt.sum(wt.grad(lambda a: loss(a, wt))(t) * wt.asarray(v, device=dev))

    got = wt.grad(hvp)(wt.asarray(x, device=dev))
    want = jax.grad(lambda t: jnp.sum(jax.grad(lambda a: loss(a, jnp))(t) * v))(x)
    np.testing.assert_allclose(np.asarray(got.tolist()), np.asarray(want), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("op", ["sum", "max", "min", "product", "mean"])
def test_vmap_equals_a_loop(dev, op):
    f = _nx_window(op, (2, 3), (2, 1), (1, 1), [(1, 0), (0, 1)])
    x = wt.asarray(np.random.default_rng(4).normal(size=(3, 4, 5)).astype(np.float32),
                   device=dev)
    for axis in (0, 1):
        got = wt.vmap(f, in_axes=axis)(x)
        examples = [f(wt.take(x, wt.asarray([i], device=dev), axis=axis)[(slice(None),) * axis
                                                                         + (0,)])
                    for i in range(x.shape[axis])]
        same_bits(got, wt.stack(examples), got.dtype)


@pytest.mark.parametrize("name", ["window_scatter_max", "window_scatter_min"])
def test_window_scatter_derivatives_and_vmap(dev, name):
    """Linear in the source: its gradient is the cotangent read at each window's selected
    element, its jvp the scatter of the tangent; vmap equals a loop."""
    rnd = np.random.default_rng(6)
    x = wt.asarray(rnd.integers(-3, 4, size=(4, 6)).astype(np.float32), device=dev)  # ties
    fn = getattr(nx, name)
    kw = {"strides": [1, 2], "padding": "same"}
    src = wt.asarray(rnd.normal(size=(4, 3)).astype(np.float32), device=dev)
    w = rnd.normal(size=(4, 6)).astype(np.float32)
    g = wt.grad(lambda s: wt.sum(fn(x, s, 0.0, (2, 3), **kw) * wt.asarray(w, device=dev)))(src)
    pad = _jax_pad((2, 3), (1, 1), "same")
    xp = np.pad(np.asarray(x.tolist()), pad, constant_values=0.0)
    wp = np.pad(w, pad)
    select = "max_last" if name.endswith("max") else "min_last"
    picked = ref_selected(select, xp, (2, 3), (1, 2), (1, 1), (4, 3))
    assert g.tolist() == [[float(wp[picked[(i, j)]]) for j in range(3)] for i in range(4)]
    t = wt.asarray(rnd.normal(size=(4, 3)).astype(np.float32), device=dev)
    _, jt = wt.jvp(lambda s: fn(x, s, 0.0, (2, 3), **kw), (src,), (t,))
    same_bits(jt, fn(x, t, 0.0, (2, 3), **kw), wt.float32)
    xs = wt.stack([x, -x, x * 2])
    batched = wt.vmap(lambda a, s: fn(a, s, 1.0, (2, 3), **kw))(xs, wt.stack([src, t, src]))
    loop = wt.stack([fn(xs[i], [src, t, src][i], 1.0, (2, 3), **kw) for i in range(3)])
    same_bits(batched, loop, wt.float32)


def test_jit_records_one_window_node_and_matches_eager(dev):
    @nx.defn
    def pool(t):
        return nx.window_max(t, (1, 2, 2), strides=[1, 2, 2]) + \
            nx.window_sum(t, (1, 3, 3), padding="same")[:, ::2, ::2]

    x = wt.asarray(np.random.default_rng(5).normal(size=(2, 6, 6)).astype(np.float32),
                   device=dev)
    graph = wt.make_graph(pool)(x)
    assert sum(n.prim == "window_reduce" for n in graph.nodes) == 2
    eager = nx.window_max(x, (1, 2, 2), strides=[1, 2, 2]) + \
        nx.window_sum(x, (1, 3, 3), padding="same")[:, ::2, ::2]
    same_bits(pool(x), eager, wt.float32)
    g = wt.jit(wt.grad(lambda t: wt.sum(pool(t))))(x)
    same_bits(g, wt.grad(lambda t: wt.sum(pool(t)))(x), wt.float32)
    # the gradient: a window sum for the sum, one select-and-scatter for the max, no sort
    prims = [n.prim for n in wt.make_graph(wt.grad(lambda t: wt.sum(pool(t))))(x).nodes]
    assert prims.count("window_scatter") == 1 and "scatter" not in prims
    assert "sort" not in prims and "argsort" not in prims
