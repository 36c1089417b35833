"""wt.set_precision: "exact" (the default; identical bits on both CPU backends) and "fast"
(the NumPy backend sums and multiplies matrices as NumPy does).  The accuracy contract of
docs/numerics.md holds in both modes (tests/test_matmul_contract.py runs in both)."""

from __future__ import annotations

import pytest

import webtensor as wt
from _oracle import BACKENDS, DEVICES

FLOATS = [wt.float16, wt.bfloat16, wt.float32, wt.float64]



def _data(dev, dt, shape, seed):
    return wt.random.uniform(wt.random.key(seed), shape, minval=-1, maxval=1).astype(dt) \
        .to_device(dev)


def test_default_is_exact_and_the_setting_scopes():
    assert wt.get_precision() == "exact"
    with wt.set_precision("fast"):
        assert wt.get_precision() == "fast"
    assert wt.get_precision() == "exact"


@pytest.mark.parametrize("bad,error", [("quick", ValueError), (1, TypeError), (None, TypeError)])
def test_bad_modes_are_refused(bad, error):
    with pytest.raises(error, match=r"wt.set_precision: mode must be 'exact' or 'fast'"):
        wt.set_precision(bad)
    assert wt.get_precision() == "exact"


@pytest.mark.skipif("numpy" not in DEVICES, reason="needs the NumPy backend")
@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_fast_mode_is_numpys_own_arithmetic(dt):
    np = pytest.importorskip("numpy")
    dev = DEVICES["numpy"]
    x, a, b = _data(dev, dt, (3, 1000), 1), _data(dev, dt, (40, 70), 2), _data(dev, dt, (70, 30), 3)
    narrow = dt in (wt.float16, wt.bfloat16)
    xs, as_, bs = (t.astype(wt.float32).numpy() if narrow else t.numpy() for t in (x, a, b))
    with wt.set_precision("fast"):
        got_sum = wt.sum(x, axis=1).astype(wt.float32 if narrow else dt).numpy()
        got_mm = (a @ b).astype(wt.float32 if narrow else dt).numpy()
    want_sum = np.add.reduce(xs, axis=1)
    want_mm = xs.dtype.type(0) + np.matmul(as_, bs)
    if narrow:  # computed in float32, rounded once to the narrow dtype
        want_sum = wt.asarray(want_sum).astype(dt).astype(wt.float32).numpy()
        want_mm = wt.asarray(want_mm).astype(dt).astype(wt.float32).numpy()
    assert np.array_equal(got_sum, want_sum)
    assert np.array_equal(got_mm, want_mm)


@pytest.mark.skipif("numpy" not in DEVICES, reason="needs the NumPy backend")
@pytest.mark.parametrize("dt", [wt.float32, wt.float64], ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(1000,), (30, 40), (1 << 17,)], ids=str)
def test_fast_mode_ops_are_numpys_on_every_path(dt, shape):
    """The NumPy backend's shortcuts (flat dense buffers, 0-d scalar operands, results
    written straight into the output, recycled large buffers) give NumPy's own results."""
    np = pytest.importorskip("numpy")
    dev = DEVICES["numpy"]
    x, y = _data(dev, dt, shape, 9), _data(dev, dt, shape, 10)
    xs, ys = x.numpy(), y.numpy()
    two, one = xs.dtype.type(2), xs.dtype.type(1)
    m, k, n = _data(dev, dt, (3, 30, 40), 11), _data(dev, dt, (40, 20), 12), \
        _data(dev, dt, (3, 40, 20), 13)
    ms, ks, ns = m.numpy(), k.numpy(), n.numpy()
    with wt.set_precision("fast"):
        cases = [
            (x * 2.0 + 1.0, xs * two + one), (2.0 - x, two - xs), (x / y, xs / ys),
            (x < y, xs < ys), (wt.sqrt(wt.abs(x)), np.sqrt(np.abs(xs))), (wt.sin(x), np.sin(xs)),
            (wt.maximum(x, y), np.maximum(xs, ys)), (x[::2] + y[::2], xs[::2] + ys[::2]),
            (wt.sum(x), np.sum(xs)), (wt.sum(x[::3]), np.sum(xs[::3])),
            (wt.prod(x[:40] + 1.0), np.prod(xs[:40] + one)),
            (wt.max(x), np.max(xs)), (wt.min(x[1:]), np.min(xs[1:])),
            (wt.mean(x), np.sum(xs) / xs.dtype.type(xs.size)),
            (m[0] @ k, ms[0] @ ks), (m @ k, ms @ ks), (m @ n, ms @ ns),
        ]
    for i, (got, want) in enumerate(cases):
        assert np.array_equal(got.numpy(), want), i


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_max_min_zeros_and_nans_in_both_modes(dev, mode):
    """-0.0 < +0.0 and the canonical NaN, whichever way the reduction is taken."""
    x = wt.asarray([0.0, -0.0, 0.0, -0.0] * 250, device=dev)
    with wt.set_precision(mode):
        top, bottom = wt.max(x), wt.min(x)
        nan = wt.max(wt.where(wt.arange(1000, device=dev) == 7, float("nan"), x))
    assert top.tobytes() == wt.asarray(0.0).tobytes()
    assert bottom.tobytes() == wt.asarray(-0.0).tobytes()
    assert nan.tobytes() == wt.asarray(float("nan")).tobytes()


_NUMPY_TRANSCENDENTALS = {"sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log",
                          "tanh": "tanh", "log1p": "log1p",
                          "atan": "arctan", "asinh": "arcsinh"}


@pytest.mark.skipif("numpy" not in DEVICES, reason="needs the NumPy backend")
@pytest.mark.parametrize("name", sorted(_NUMPY_TRANSCENDENTALS))
def test_fast_float32_transcendentals_are_numpys_and_exact_mode_rounds_float64(name):
    np = pytest.importorskip("numpy")
    x = _data(DEVICES["numpy"], wt.float32, (5000,), 7) * 3
    ufunc = getattr(np, _NUMPY_TRANSCENDENTALS[name])
    with np.errstate(all="ignore"):
        want_fast = ufunc(x.numpy())
        want_exact = ufunc(x.numpy().astype(np.float64)).astype(np.float32)
    with wt.set_precision("fast"):
        fast = getattr(wt, name)(x).numpy()
    exact = getattr(wt, name)(x).numpy()
    assert np.array_equal(fast, want_fast, equal_nan=True)
    assert np.array_equal(exact, want_exact, equal_nan=True)


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_the_python_backend_computes_as_in_exact_mode(dt):
    dev = DEVICES["python"]
    x, a, b = _data(dev, dt, (3, 300), 4), _data(dev, dt, (20, 30), 5), _data(dev, dt, (30, 10), 6)
    exact = (wt.sum(x, axis=1).tobytes(), (a @ b).tobytes())
    with wt.set_precision("fast"):
        fast = (wt.sum(x, axis=1).tobytes(), (a @ b).tobytes())
    assert fast == exact


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_fast_sums_are_within_the_float32_bound_on_every_device(dev, dt):
    """|sum - exact| <= n u sum|x| (u of float32, the accumulator of the narrow floats too;
    float64 accumulates in float64), plus the final rounding to the dtype."""
    from fractions import Fraction

    x = _data(dev, dt, (2, 5000), 8)
    with wt.set_precision("fast"):
        got = wt.sum(x, axis=1).astype(wt.float64).tolist()
    u = 2.0 ** -53 if dt is wt.float64 else 2.0 ** -24
    out_u = {wt.float16: 2.0 ** -11, wt.bfloat16: 2.0 ** -8}.get(dt, u)
    for row, g in zip(x.astype(wt.float64).tolist(), got):
        exact = sum(Fraction(v) for v in row)
        bound = len(row) * Fraction(u) * sum(abs(Fraction(v)) for v in row) + \
            Fraction(out_u) * abs(exact)
        assert abs(Fraction(g) - exact) <= bound, (dt, g, float(exact))


def test_jit_retraces_when_the_precision_changes(dev):
    f = wt.jit(lambda x: wt.sum(x * 2.0))
    x = _data(dev, wt.float32, (100,), 7)
    f(x)
    f(x)
    assert f.trace_count == 1
    with wt.set_precision("fast"):
        f(x)
    assert f.trace_count == 2
    f(x)
    assert f.trace_count == 2


WEBGPU = [p for p in BACKENDS if p.id == "webgpu"]


@pytest.mark.skipif(not WEBGPU, reason="needs the webgpu device (an adapter)")
@pytest.mark.parametrize("name", ["sin", "cos", "tan", "exp", "log", "log2", "log10", "sqrt",
                                  "tanh", "sinh", "cosh", "atan", "atan2", "asin", "acos"])
def test_webgpu_fast_transcendentals_are_close_and_leave_exact_mode_alone(name):
    np = pytest.importorskip("numpy")
    gpu = WEBGPU[0].values[0]
    lo, hi = {"log": (0.01, 100), "log2": (0.01, 100), "log10": (0.01, 100), "sqrt": (0, 100),
              "asin": (-1, 1), "acos": (-1, 1), "atanh": (-0.9, 0.9)}.get(name, (-3, 3))
    x = _data(gpu, wt.float32, (4096,), 11) * ((hi - lo) / 2) + ((hi + lo) / 2)
    args = (x, _data(gpu, wt.float32, (4096,), 12)) if name == "atan2" else (x,)
    fn = getattr(wt, name)
    exact = fn(*args).tobytes()
    with wt.set_precision("fast"):
        fast = fn(*args)
    assert fn(*args).tobytes() == exact  # the exact kernels again: no plan mixes the modes
    want = getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan",
                        "atan2": "arctan2"}.get(name, name))(*(a.numpy().astype(np.float64)
                                                             for a in args))
    err = np.abs(fast.numpy() - want) / np.maximum(np.abs(want), 1.0)
    if name == "tan" and not gpu.backend.ieee_arithmetic:
        # GPUs' tan is sin / cos of WGSL's 2^-11 absolute bound (seen 2e-4 relative near the
        # poles on an H200): compared as angles
        err = np.abs(np.arctan(fast.numpy().astype(np.float64)) - np.arctan(want))
    assert float(err.max()) < 2e-5, f"{name}: fast built-in off by {float(err.max()):.2e}"


def test_webgpu_expressions_follow_the_precision_of_each_call():
    # exprs memoizes its lookups (every op asks): the key must carry the precision
    from webtensor.backends.webgpu import exprs

    exact_sin, exact_atan2 = exprs.unary("sin", "f32"), exprs.binary("atan2", "f32")
    for _ in range(2):
        with wt.set_precision("fast"):
            assert exprs.unary("sin", "f32") == "sin(a)"
            assert exprs.binary("atan2", "f32") == "atan2(a, b)"
            assert exprs.unary("sin", "c64") == exprs.unary("sin", "c64")  # no fast form
        assert exprs.unary("sin", "f32") == exact_sin != "sin(a)"
        assert exprs.binary("atan2", "f32") == exact_atan2 != "atan2(a, b)"
    with wt.set_precision("fast"):
        fast_add = exprs.binary("add", "f32")
    assert exprs.binary("add", "f32") == fast_add  # ops without a fast form are the same
    assert exprs.unary("sin", None) is None and exprs.binary("add", None) is None
