"""complex64 math on the webgpu device (shaders/complex64.wgsl) against the CPU device.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing, or without NumPy.

What must hold, with ``backend.routed`` not growing (the native path ran):

* Finite results of sqrt, sign, exp, expm1, log, log1p, log2, log10, the trigonometric and
  hyperbolic functions and their inverses are within ``BOUND_EPS[op]`` float32 epsilons of the
  CPU's result, normwise: ``|got - want| <= bound * eps * |want|`` (componentwise ULP is not what
  complex formulas guarantee: a part much smaller than |want| carries the others' rounding).
  log1p is compared with an accurate float64 evaluation instead: the CPU (NumPy) takes
  log|1 + z|, which loses everything for tiny z.  Results below float32's normal range may be
  flushed to zero (``|got - want| <= tiny``).
* Special values (each part 0, -0, +-1.5, 2.5, 0.3, +-inf, NaN, and all pairs): every part that
  is zero, infinite or NaN on the CPU (C99 Annex G, as NumPy gives them; zero signs included) is
  the same on the device, and the device gives no such part where the CPU does not (a part
  below float32's normal range counts as a zero of its sign: it may be flushed).
* pow: NumPy's rules (a zero exponent gives 1; 0 ** b is 0 where Re b > 0, else NaN; integer
  exponents below 100 by repeated squaring, else exp(b log a)) within
  ``(8 + 2 |b| + 2 |b log a|) eps`` (float32 squaring and exp(b log a) amplify the rounding by
  the exponent); where the exact result overflows float32, only "not finite" is required.
* prod over axes and cumulative prod: within ``(2 + 3 n) eps`` for n factors (float32 complex
  products with a separate exponent: no over/underflow between factors); a NaN factor gives NaN
  parts, a zero factor among finite ones a zero (its sign may differ: the device multiplies in a
  tree).  any/all equal the CPU exactly.
* Views (reversed, strided, transposed), 0-d and empty inputs take the same native path.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402

GPU, CPU, B = webgpu_or_skip()

np = pytest.importorskip("numpy")

from _oracle import special_values  # noqa: E402
from webtensor.tensor import empty  # noqa: E402

C64 = wt.complex64
EPS = float(np.finfo(np.float32).eps)
TINY = float(np.finfo(np.float32).tiny)

# Normwise error bounds in float32 epsilons (measured maxima are about half of these).
BOUND_EPS = {
    "sqrt": 2, "sign": 2, "exp": 2, "log": 2, "log10": 2, "sin": 2, "cos": 2,
    "log2": 3, "log1p": 3, "sinh": 3, "cosh": 3, "asin": 3, "acos": 3, "atan": 3,
    "asinh": 3, "acosh": 3, "atanh": 3,
    "expm1": 4, "tan": 4, "tanh": 4,
}
UNARY = sorted(BOUND_EPS)

# Values where a formula is delicate: |z| near 1, branch points and cuts, over/underflow, tiny.
EDGES = [1e-30 + 1e-30j, 3e38 + 3e38j, -3e38 + 1j, 1e-40 + 1e-41j, 0.999 + 0.04j, 0.6 + 0.8j,
         -0.6 - 0.8j, 1 + 1e-7j, -1 + 1e-7j, 0.5 + 0j, 2 + 0j, -2 + 0j, -2 - 0j, 1e20 + 1e20j,
         100 + 1j, 100 + 1e30j, 89 + 1j, -89 + 2j, 1e-3 + 1e-4j, 1 + 0j, -1 + 0j, 1j, -1j,
         2j, -2j, -0.5 + 1e-20j, 1e-5 - 1e-5j, 88.5 + 3j, -10 + 1e-3j, 9.5 + 1j]


def _values(n: int, seed: int) -> np.ndarray:
    """Special values, edges, then ``n`` random values (log-uniform and near the origin)."""
    rnd = random.Random(seed)

    def spread():
        return math.copysign(math.exp(rnd.uniform(-14, 14)), rnd.random() - 0.5)

    rand = [complex(spread(), spread()) for _ in range(n // 2)]
    rand += [complex(rnd.uniform(-4, 4), rnd.uniform(-4, 4)) for _ in range(n - n // 2)]
    return np.array(special_values(C64) + EDGES + rand, dtype=np.complex64)


def routed() -> int:
    return sum(B.routed.values())


def _unary(device, op, x):
    out = empty(x.shape, C64, device)
    device.backend.unary(op, out, x)
    return out


def _both(fn, *arrays, view=None):
    """``fn`` on CPU and GPU copies of ``arrays`` (through ``view``); the GPU run must not
    route.  Returns (cpu result, gpu result) as complex128/bool NumPy arrays."""
    results = []
    for device in (CPU, GPU):
        ts = [wt.asarray(a, device=device) for a in arrays]
        if view is not None:
            ts = [view(t) for t in ts]
        before = routed()
        r = fn(device, *ts)
        if device is GPU:
            assert routed() == before, f"routed to the CPU: {B.routed.most_common(3)}"
            assert r.device == GPU
        results.append(np.asarray(r.tolist()).reshape(r.shape))
    return results


def _classes(v: np.ndarray):
    """Per part: NaN, +-inf, +0 or -0 (as codes), or 'finite nonzero'; a subnormal counts as
    a zero of its sign (the device may flush it)."""
    out = []
    for part in (v.real, v.imag):
        code = np.where(np.isnan(part), 1, np.where(np.isposinf(part), 2,
                        np.where(np.isneginf(part), 3, np.where(np.abs(part) < TINY, np.where(
                            np.signbit(part), 4, 5), 0))))
        out.append(code)
    return out


def _fmt(inputs, i, got, want):
    ins = ", ".join(repr(complex(a.reshape(-1)[i])) for a in inputs)
    return f"  inputs ({ins}) got {complex(got[i])!r} want {complex(want[i])!r}"


def assert_close(op, got, want, inputs, bound_eps, *, specials=True, zero_signs=True):
    """Finite ``want``: normwise within ``bound_eps`` (an array or a number) epsilons, or both
    below float32's normal range; special parts: the same class (see module docstring), tiny
    parts of either sign alike unless ``zero_signs``."""
    got, want = got.reshape(-1), want.reshape(-1)
    bound = np.broadcast_to(np.asarray(bound_eps, dtype=np.float64), want.shape)
    finite = np.isfinite(want)
    with np.errstate(all="ignore"):
        err = np.abs(got - want)
        ok = err <= bound * EPS * np.abs(want)
        ok |= (np.abs(want) < TINY) & (err <= TINY)
    bad = finite & ~ok
    if specials:
        g, w = _classes(got), _classes(want)
        if not zero_signs:
            g, w = [np.where(c == 4, 5, c) for c in g], [np.where(c == 4, 5, c) for c in w]
        special = (w[0] != 0) | (w[1] != 0) | (g[0] != 0) | (g[1] != 0)
        bad |= special & ((g[0] != w[0]) | (g[1] != w[1]))
    idx = np.nonzero(bad)[0]
    assert not len(idx), (f"{op}: {len(idx)} of {want.size} differ\n"
                          + "\n".join(_fmt(inputs, i, got, want) for i in idx[:6]))


# -- elementwise ------------------------------------------------------------------------------------

def _log1p_oracle(z: np.ndarray) -> np.ndarray:
    """log(1 + z) in float64 without the cancellation: where 1/2 < |1 + z| < 2, Re =
    log1p(2x + x^2 + y^2) / 2 (float64 holds the float32 terms with 29 bits to spare), else
    log|1 + z|; Im = atan2(y, 1 + x)."""
    x, y = z.real.astype(np.float64), z.imag.astype(np.float64)
    with np.errstate(all="ignore"):
        r = np.hypot(1 + x, y)
        near = (r > 0.5) & (r < 2)
        re = np.where(near, 0.5 * np.log1p(2 * x + x * x + y * y), np.log(r))
        im = np.arctan2(y, 1 + x)
    out = np.empty(z.shape, np.complex128)
    out.real, out.imag = re, im  # (re + 1j * im would turn an imaginary -0.0 into +0.0)
    return out


@pytest.mark.parametrize("op", UNARY)
def test_unary_within_bound(op):
    x = _values(3000, seed=len(op))
    want, got = _both(lambda d, t: _unary(d, op, t), x)
    if op == "log1p":
        finite = np.isfinite(want)
        want = np.where(finite, _log1p_oracle(x), want)
    assert_close(op, got, want, [x], BOUND_EPS[op])


PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
_F32 = st.floats(width=32, allow_nan=True, allow_infinity=True)


@PROPERTY
@given(op=st.sampled_from(UNARY), parts=st.lists(st.tuples(_F32, _F32), min_size=1, max_size=40))
def test_unary_property_any_float32_parts(op, parts):
    """Any float32 parts (subnormals, huge, inf, NaN, signed zeros) meet the same bound and
    special-value rules."""
    x = np.array([complex(a, b) for a, b in parts], dtype=np.complex64)
    want, got = _both(lambda d, t: _unary(d, op, t), x)
    if op == "log1p":
        want = np.where(np.isfinite(want), _log1p_oracle(x), want)
    assert_close(op, got, want, [x], BOUND_EPS[op])


def test_log_and_log1p_near_the_unit_circle():
    """|z| (log) or |1 + z| (log1p) within 1e-3 of 1: the real part is tiny and must keep its
    relative accuracy (a naive log(hypot) loses it all)."""
    rnd = random.Random(5)
    angles = [rnd.uniform(-math.pi, math.pi) for _ in range(2000)]
    radii = [1 + rnd.uniform(-1e-3, 1e-3) for _ in angles]
    z = np.array([r * complex(math.cos(t), math.sin(t)) for r, t in zip(radii, angles)],
                 dtype=np.complex64)
    want, got = _both(lambda d, t: _unary(d, "log", t), z)
    assert_close("log", got, want, [z], BOUND_EPS["log"])
    w = (z.astype(np.complex128) - 1).astype(np.complex64)
    want, got = _both(lambda d, t: _unary(d, "log1p", t), w)
    assert_close("log1p", got, _log1p_oracle(w), [w], BOUND_EPS["log1p"], specials=False)


def test_expm1_and_log1p_keep_tiny_arguments():
    z = np.array([1e-8 + 1e-9j, -3e-7 + 2e-12j, 1e-20 - 1e-25j, 2e-38 + 0j], dtype=np.complex64)
    for op in ("expm1", "log1p"):
        _, got = _both(lambda d, t, op=op: _unary(d, op, t), z)
        assert_close(op, got, z.astype(np.complex128), [z], 3, specials=False)


def test_branch_cuts_follow_the_sign_of_zero():
    """On a cut the side is chosen by the zero's sign: sqrt(-4 +- 0i) = +-2i, log(-1 +- 0i) =
    +-i pi, asin(2 +- 0i) has imaginary part of that sign, ..."""
    z = np.array([-4 + 0j, complex(-4, -0.0), -1 + 0j, complex(-1, -0.0), 2 + 0j,
                  complex(2, -0.0), 2j, complex(-0.0, 2), complex(0.0, -2)], dtype=np.complex64)
    for op in ("sqrt", "log", "asin", "acos", "atanh", "asinh", "atan", "acosh"):
        want, got = _both(lambda d, t, op=op: _unary(d, op, t), z)
        assert np.array_equal(np.signbit(got.imag), np.signbit(want.imag)), (op, got, want)
        assert np.array_equal(np.signbit(got.real), np.signbit(want.real)), (op, got, want)
        assert_close(op, got, want, [z], BOUND_EPS[op])
    _, got = _both(lambda d, t: _unary(d, "sqrt", t), z[:2])
    assert got.tolist() == [2j, -2j]


VIEWS = {
    "reversed": lambda t: t[::-1],
    "strided": lambda t: t[1::3],
    "transposed": lambda t: t.reshape((8, -1)).T,
}


@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_views_0d_and_empty(view):
    x = _values(400, seed=11)[: 8 * 50]
    for op in ("exp", "atanh", "sqrt", "log1p"):
        want, got = _both(lambda d, t, op=op: _unary(d, op, t), x, view=VIEWS[view])
        if op == "log1p":
            want = np.where(np.isfinite(want), _log1p_oracle(np.asarray(
                VIEWS[view](wt.asarray(x, device=CPU)).tolist())), want)
        assert got.shape == want.shape
        assert_close(op, got, want, [np.asarray(VIEWS[view](wt.asarray(x)).tolist())],
                     BOUND_EPS[op])
    scalar = np.array(0.5 - 2j, dtype=np.complex64)
    want, got = _both(lambda d, t: _unary(d, "tan", t), scalar)
    assert got.shape == () and abs(got - want) <= 4 * EPS * abs(want)
    none = np.zeros((0, 3), dtype=np.complex64)
    want, got = _both(lambda d, t: _unary(d, "cosh", t), none)
    assert got.shape == want.shape == (0, 3)


def test_frontend_functions_run_natively():
    v = np.array([1 + 2j, -0.5 + 0.25j], dtype=np.complex64)
    results = []
    for device in (CPU, GPU):
        x = wt.asarray(v, device=device)
        before = routed()
        y = wt.sqrt(wt.exp(x) * wt.sin(x)) + wt.log(x) ** wt.asarray(2 + 0j, dtype=C64,
                                                                      device=device)
        assert y.dtype is C64 and y.device == device
        if device is GPU:
            assert routed() == before
        results.append(np.asarray(y.tolist()))
    assert np.allclose(results[1], results[0], rtol=1e-5)


# -- pow --------------------------------------------------------------------------------------------

def _pow_inputs():
    sp = special_values(C64)
    a = [x for x in sp for _ in sp]
    b = [y for _ in sp for y in sp]
    rnd = random.Random(2)
    for _ in range(3000):
        a.append(complex(rnd.uniform(-3, 3), rnd.uniform(-3, 3)))
        k = rnd.random()
        b.append(complex(rnd.randint(-99, 99), 0) if k < 0.4 else
                 complex(rnd.uniform(-4, 4), 0 if k < 0.6 else rnd.uniform(-4, 4)))
    return np.array(a, dtype=np.complex64), np.array(b, dtype=np.complex64)


def test_pow_within_bound_and_specials():
    a, b = _pow_inputs()

    def run(d, x, y):
        out = empty(x.shape, C64, d)
        d.backend.binary("pow", out, x, y)
        return out

    want, got = _both(run, a, b)
    with np.errstate(all="ignore"):
        wide_b = b.astype(np.complex128)
        amplify = np.abs(wide_b) + np.abs(wide_b * np.log(a.astype(np.complex128)))
    bound = np.where(np.isfinite(amplify), 8 + 2 * amplify, 0)
    # float32 overflow where the exact result overflows: any non-finite result will do
    overflow = np.isfinite(a) & np.isfinite(b) & ~np.isfinite(want) & ~np.isfinite(got)
    keep = ~overflow
    # the sign of a zero part of a power is the arithmetic's (not in the standards), and GPU
    # compilers need not keep the sign of a zero through arithmetic (WGSL allows it; seen on
    # an H200): there the zero parts are compared without their signs
    assert_close("pow", got[keep], want[keep], [a[keep], b[keep]], bound[keep],
                 zero_signs=B.software)
    # NumPy's special cases, spelled out
    assert got[(a == 0) & (b.real > 0) & np.isfinite(b)].tolist() == \
        [0j] * int(np.sum((a == 0) & (b.real > 0) & np.isfinite(b)))
    zero_exp = (b == 0)
    assert np.all(got[zero_exp] == 1)


# -- reductions and scans ---------------------------------------------------------------------------

def _factors(shape, seed):
    rng = np.random.default_rng(seed)
    mag = rng.uniform(0.5, 1.9, shape) * np.exp(rng.uniform(-0.05, 0.05, shape))
    return (mag * np.exp(1j * rng.uniform(-math.pi, math.pi, shape))).astype(np.complex64)


def _reduce(op, out_dt, axes):
    def fn(d, t):
        keep = [n for i, n in enumerate(t.shape) if i not in axes]
        out = empty(tuple(keep), out_dt, d)
        d.backend.reduce(op, out, t, axes)
        return out
    return fn


def _cumprod(axis):
    def fn(d, t):
        out = empty(t.shape, C64, d)
        d.backend.scan("prod", out, t, axis)
        return out
    return fn


@pytest.mark.parametrize("shape,axes", [((5, 700), (1,)), ((3, 4, 50), (0, 2)), ((2000,), (0,)),
                                        ((7, 1), (1,)), ((), ())], ids=str)
def test_prod_any_all(shape, axes):
    x = _factors(shape, seed=len(shape) + sum(axes))
    if x.size > 20:
        flat = x.reshape(-1)
        flat[3] = 0
        flat[-2] = complex(0.0, -0.0)
    n = max(1, math.prod(shape[a] for a in axes))
    want, got = _both(_reduce("prod", C64, axes), x)
    assert_close("prod", got, want, [x], 2 + 3 * n, specials=False)
    assert np.array_equal(want == 0, got == 0)
    for op in ("any", "all"):
        want, got = _both(_reduce(op, wt.bool, axes), x)
        assert got.tolist() == want.tolist(), op


def test_prod_nan_zero_and_range():
    """A NaN factor makes NaN parts, a zero makes zero; 300 factors of |z| = 2 pass float32's
    range on the way (2^300) and come back: the exponent is kept apart."""
    x = _factors((4, 300), seed=3)
    x[0, 17] = complex(np.nan, 0)
    x[1, 40] = 0
    x[2] = (2 * np.exp(1j * np.linspace(0, 3, 300))).astype(np.complex64)
    x[2, 150:] = (0.5 * np.exp(-1j * np.linspace(0, 3, 150))).astype(np.complex64)
    want, got = _both(_reduce("prod", C64, (1,)), x)
    assert np.isnan(got[0].real) and np.isnan(got[0].imag)
    assert got[1] == 0
    assert np.all(np.isfinite(want[2:])) and np.all(np.isfinite(got[2:]))
    assert_close("prod", got[2:], want[2:], [x[2:]], 2 + 3 * 300, specials=False)


@pytest.mark.parametrize("view", [None, *VIEWS], ids=str)
def test_cumulative_prod(view):
    x = _factors(8 * 320, seed=4)
    x[77] = complex(np.nan, 1)
    want, got = _both(_cumprod(0 if view != "transposed" else 1), x,
                      view=VIEWS.get(view) if view else None)
    n = np.arange(1, got.shape[-1] + 1) if got.ndim == 1 else \
        np.broadcast_to(np.arange(1, got.shape[-1] + 1), got.shape)
    finite = np.isfinite(want)
    assert np.array_equal(finite, np.isfinite(got))
    assert_close("cumulative prod", got[finite], want[finite], [x], (2 + 3 * n)[finite],
                 specials=False)


def test_empty_reductions():
    x = np.zeros((0, 4), dtype=np.complex64)
    before = routed()
    B.reduce("prod", empty((0,), C64, GPU), wt.asarray(x, device=GPU), (1,))
    B.scan("prod", empty((0, 4), C64, GPU), wt.asarray(x, device=GPU), 1)
    assert routed() == before
    with pytest.raises(ValueError, match="reduce: prod over an empty axis"):
        B.reduce("prod", empty((4,), C64, GPU), wt.asarray(x, device=GPU), (0,))


def test_capabilities_claim_complex64_native():
    caps = B.capabilities()
    for prim in ("unary", "binary", "reduce", "scan"):
        assert caps[prim]["complex64"] == "native", prim
    assert caps["arg_reduce"]["complex64"] == "cpu"  # complex numbers have no order
