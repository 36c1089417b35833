"""Autodiff: every derivative rule against central finite differences in float64, and against JAX
where it is importable; gradients through views, reductions, control flow; forward mode, vmap,
Jacobians; errors.  Runs on the CPU backends (NumPy and pure Python); the webgpu device has its
own file (test_webgpu_grad.py) so the browser suite runs it too.
"""

from __future__ import annotations

import math
import random

import pytest

import webtensor as wt
from _oracle import DEVICES
from webtensor import ops
from webtensor.compile.rules import LINEAR, NONDIFF, PARTIALS

CPU = [pytest.param(d, id=n) for n, d in DEVICES.items() if n != "webgpu"]


@pytest.fixture(scope="module", params=CPU, name="dev")
def dev_fixture(request):
    return request.param


# -- tools ----------------------------------------------------------------------------------------

def numeric_grad(f, xs, eps=1e-6):
    """Central differences of the scalar ``f`` (float64 tensors in ``xs``), per input."""
    def at(k, flat, i, delta):
        vals = list(flat)
        vals[i] += delta
        x = xs[k]
        args = list(xs)
        args[k] = wt.reshape(wt.asarray(vals, dtype=x.dtype, device=x.device), x.shape)
        return f(*args).item()

    def partial(k, flat, i, step):
        return (at(k, flat, i, step) - at(k, flat, i, -step)) / (2 * eps)

    grads = []
    for k, x in enumerate(xs):
        flat = _flatten(x.tolist() if x.ndim else [x.item()])
        if x.dtype.kind == "c":  # JAX's convention: df/dre - i df/dim
            grads.append([complex(partial(k, flat, i, eps), -partial(k, flat, i, eps * 1j))
                          for i in range(len(flat))])
        else:
            grads.append([partial(k, flat, i, eps) for i in range(len(flat))])
    return grads


def _flatten(v):
    if isinstance(v, list):
        out = []
        for e in v:
            out.extend(_flatten(e))
        return out
    return [v]


def assert_close(got, want, rtol=1e-6, atol=1e-7, context=""):
    got, want = _flatten(got), _flatten(want)
    assert len(got) == len(want), context
    for a, b in zip(got, want):
        assert abs(a - b) <= max(rtol * max(abs(a), abs(b)), atol), (context, got, want)


def check_grad(f, *xs, rtol=1e-5, atol=1e-6):
    """wt.grad(f) with respect to every argument equals central differences."""
    grads = wt.grad(f, argnums=tuple(range(len(xs))))(*xs)
    for k, (g, n) in enumerate(zip(grads, numeric_grad(f, xs))):
        assert g.shape == xs[k].shape and g.dtype is xs[k].dtype
        assert_close(g.tolist() if g.ndim else [g.item()], n, rtol, atol, f"argument {k}")


def projected(fn, out_shape_seed=0):
    """``fn``'s output dotted with a fixed pseudo-random projection: a scalar whose gradient
    exercises every output element with a different weight."""
    def f(*xs):
        y = fn(*xs)
        rng = random.Random(out_shape_seed + y.size)
        w = wt.reshape(wt.asarray([rng.uniform(-1, 1) for _ in range(y.size)],
                                  dtype=y.dtype, device=y.device), y.shape)
        if y.dtype.kind == "c":  # a complex output: a complex weight, the real part
            w = w * complex(0.6, rng.uniform(-1, 1))
            return wt.sum(wt.real(y * w))
        return wt.sum(y * w)
    return f


def values(dev, shape, lo=-2.0, hi=2.0, seed=0, avoid=()):
    rng = random.Random(seed)
    n = math.prod(shape)
    vals = []
    while len(vals) < n:
        v = rng.uniform(lo, hi)
        if all(abs(v - a) > 0.2 for a in avoid):
            vals.append(v)
    return wt.reshape(wt.asarray(vals, dtype=wt.float64, device=dev), shape)


# -- the rule tables ----------------------------------------------------------------------------

def test_every_float_op_has_a_rule_or_is_marked():
    missing = [op.name for op in ops.ELEMENTWISE.values() if set(op.kinds) & set("fc")
               and op.name not in PARTIALS and op.name not in NONDIFF and op.name not in LINEAR]
    assert missing == [], f"ops with neither a derivative rule nor a NONDIFF mark: {missing}"
    assert not set(PARTIALS) & NONDIFF and not set(LINEAR) & (NONDIFF | set(PARTIALS))


def test_every_host_function_has_a_rule():
    from webtensor.api._host import HOST
    from webtensor.compile.host_rules import HOST_RULES

    assert sorted(HOST) == sorted(HOST_RULES), "host functions and derivative rules differ"
    # the families the linalg and fft modules hand to the host
    assert {n.split(".")[0] for n in HOST} == {"linalg", "fft"}


# domains keeping each op away from its kinks and poles
_DOMAIN = {"acos": (-0.9, 0.9), "asin": (-0.9, 0.9), "atanh": (-0.9, 0.9),
           "acosh": (1.2, 3.0), "log": (0.2, 3.0), "log2": (0.2, 3.0), "log10": (0.2, 3.0),
           "log1p": (-0.5, 3.0), "sqrt": (0.2, 3.0), "reciprocal": (0.3, 3.0),
           "tan": (-1.2, 1.2), "pow": (0.3, 2.0), "erf_inv": (-0.9, 0.9), "rsqrt": (0.2, 3.0)}
_AVOID = {"abs": (0.0,), "remainder": (), "copysign": (0.0,), "cbrt": (0.0,)}

UNARY = sorted(op.name for op in ops.UNARY if op.name in PARTIALS)
BINARY = sorted(op.name for op in ops.BINARY if op.name in PARTIALS)


@pytest.mark.parametrize("name", UNARY)
def test_unary_rules_match_finite_differences(dev, name):
    lo, hi = _DOMAIN.get(name, (-2.0, 2.0))
    x = values(dev, (2, 3), lo, hi, seed=hash(name) % 100, avoid=_AVOID.get(name, ()))
    fn = getattr(wt, name)
    check_grad(projected(fn), x)
    # the same input as a transposed, a strided and a broadcast view
    big = values(dev, (3, 4), lo, hi, seed=7, avoid=_AVOID.get(name, ()))
    check_grad(projected(lambda a: fn(a.T[::2])), big)
    check_grad(projected(lambda a: fn(wt.broadcast_to(a[:1], (3, 4)))), big)


@pytest.mark.parametrize("name", BINARY)
def test_binary_rules_match_finite_differences(dev, name):
    lo, hi = _DOMAIN.get(name, (-2.0, 2.0))
    a = values(dev, (2, 3), lo, hi, seed=1, avoid=_AVOID.get(name, ()))
    b = values(dev, (3,), lo if name != "pow" else -1.5, hi, seed=2)
    if name in ("remainder",):
        b = values(dev, (3,), 0.7, 1.9, seed=2)
        a = values(dev, (2, 3), -2.0, 2.0, seed=1)
        # stay away from the jumps of the remainder (multiples of b)
        a = a + 0.01
    check_grad(projected(getattr(wt, name)), a, b)


# -- complex inputs: JAX's convention -----------------------------------------------------------

def complex_values(dev, shape, seed=0, re=(0.3, 1.5), im=(0.2, 1.0)):
    """Complex128 values off the real and imaginary axes (where the branch cuts are)."""
    rng = random.Random(seed)
    vals = [complex(rng.uniform(*re), rng.uniform(*im)) for _ in range(math.prod(shape))]
    return wt.reshape(wt.asarray(vals, dtype=wt.complex128, device=dev), shape)


COMPLEX_UNARY = sorted(op.name for op in ops.UNARY if "c" in op.kinds
                       and (op.name in PARTIALS or op.name in LINEAR))
COMPLEX_BINARY = sorted(op.name for op in ops.BINARY if "c" in op.kinds and op.name in PARTIALS)
_JAX_NAMES = {"phase": "angle", "pow": "power", "positive": "positive"}


def _jax_fn(name):
    jnp = pytest.importorskip("jax").numpy
    return getattr(jnp, _JAX_NAMES.get(name, name))


@pytest.mark.parametrize("name", COMPLEX_UNARY)
def test_complex_unary_rules_match_finite_differences(dev, name):
    z = complex_values(dev, (2, 3), seed=len(name))
    check_grad(projected(getattr(wt, name)), z)
    # forward mode: the same linear map, checked against the Jacobian's action
    t = complex_values(dev, (2, 3), seed=7, re=(-1, 1), im=(-1, 1))
    eps = 1e-6
    fd = (getattr(wt, name)(z + t * eps) - getattr(wt, name)(z - t * eps)) / (2 * eps)
    _, tan = wt.jvp(getattr(wt, name), (z,), (t,))
    assert_close(tan.tolist(), fd.tolist(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", COMPLEX_BINARY)
def test_complex_binary_rules_match_finite_differences(dev, name):
    a = complex_values(dev, (2, 3), seed=1)
    b = complex_values(dev, (3,), seed=2)
    check_grad(projected(getattr(wt, name)), a, b)


def test_complex_from_parts_and_real_inputs_through_complex_ops(dev):
    x, y = values(dev, (3,), seed=3), values(dev, (3,), seed=4)
    check_grad(projected(wt.complex), x, y)
    check_grad(projected(lambda a: wt.exp(wt.astype(a, wt.complex128) * 1j) * a), x)
    # sign is piecewise constant (zero derivative, as JAX says), conj a real-linear map
    z = complex_values(dev, (3,), seed=5)
    assert wt.grad(lambda a: wt.sum(wt.real(wt.sign(a) * 2j)))(z).tolist() == [0j] * 3
    g = wt.grad(lambda a: wt.sum(wt.imag(wt.conj(a) * a * (1 + 2j))))(z)
    check_grad(lambda a: wt.sum(wt.imag(wt.conj(a) * a * (1 + 2j))), z)
    assert g.dtype is wt.complex128


@pytest.mark.parametrize("name", COMPLEX_UNARY + COMPLEX_BINARY)
def test_complex_rules_against_jax(dev, name):
    jax = pytest.importorskip("jax")
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    arity = 2 if name in COMPLEX_BINARY else 1
    zs = [complex_values(dev, (2, 3), seed=k + 11) for k in range(arity)]
    w = np.asarray(complex_values(dev, (2, 3), seed=3, re=(-1, 1), im=(-1, 1)).tolist())
    ours = wt.grad(lambda *a: wt.sum(wt.real(getattr(wt, name)(*a) * wt.asarray(w, device=dev))),
                   argnums=tuple(range(arity)))(*zs)
    jf = _jax_fn(name)
    theirs = jax.grad(lambda *a: jax.numpy.sum(jax.numpy.real(jf(*a) * w)),
                      argnums=tuple(range(arity)))(*[np.asarray(z.tolist()) for z in zs])
    for g, j in zip(ours, theirs):
        assert np.allclose(np.asarray(g.tolist()), np.asarray(j), rtol=1e-10, atol=1e-12), name
    t = [np.asarray(complex_values(dev, (2, 3), seed=k + 21).tolist()) for k in range(arity)]
    _, tan = wt.jvp(getattr(wt, name), tuple(zs), tuple(wt.asarray(v, device=dev) for v in t))
    _, jtan = jax.jvp(jf, tuple(np.asarray(z.tolist()) for z in zs), tuple(t))
    assert np.allclose(np.asarray(tan.tolist()), np.asarray(jtan), rtol=1e-10, atol=1e-12), name


@pytest.mark.parametrize("name", COMPLEX_UNARY)
def test_complex_second_derivatives_against_jax(dev, name):
    # the derivative of a rule is taken through the rule itself: it must be differentiable
    # (abs's conj(x) / |x|, not conj(sign(x)), whose sign has a zero derivative)
    jax = pytest.importorskip("jax")
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    z = complex_values(dev, (4,), seed=len(name) + 1)
    w = np.asarray(complex_values(dev, (4,), seed=3, re=(-1, 1), im=(-1, 1)).tolist())
    w2 = np.asarray(complex_values(dev, (4,), seed=4, re=(-1, 1), im=(-1, 1)).tolist())
    op, jop = getattr(wt, name), _jax_fn(name)

    def ours(a):
        g = wt.grad(lambda u: wt.sum(wt.real(op(u) * wt.asarray(w, device=dev))))(a)
        return wt.sum(wt.real(g * wt.asarray(w2, device=dev)))

    def theirs(a):
        g = jax.grad(lambda u: jnp.sum(jnp.real(jop(u) * w)))(a)
        return jnp.sum(jnp.real(g * w2))
    got = wt.grad(ours)(z)
    want = jax.grad(theirs)(np.asarray(z.tolist()))
    assert np.allclose(np.asarray(got.tolist()), np.asarray(want), rtol=1e-9, atol=1e-11), name


def test_maximum_minimum_split_ties_equally(dev):
    x = wt.asarray([1.0, 2.0, 3.0], device=dev)
    y = wt.asarray([1.0, 5.0, 0.0], device=dev)
    gx, gy = wt.grad(lambda a, b: wt.sum(wt.maximum(a, b)), argnums=(0, 1))(x, y)
    assert gx.tolist() == [0.5, 0.0, 1.0] and gy.tolist() == [0.5, 1.0, 0.0]
    g = wt.grad(lambda a: wt.max(a))(wt.asarray([3.0, 1.0, 3.0], device=dev))
    assert g.tolist() == [0.5, 0.0, 0.5]


@pytest.mark.parametrize("case", [
    "sum", "mean", "prod", "prod_zero", "max", "min", "var", "std", "cumsum", "cumprod",
    "matmul", "matmul_batched", "vecdot", "sort", "take", "take_along", "index", "setitem",
    "setitem_index", "concat", "stack", "split", "pad", "where", "flip", "roll", "tile",
    "repeat", "transpose", "broadcast", "reshape_strided", "norm", "clip", "logsumexp",
    "softmax", "diagonal", "trace", "cond_scan"])
def test_compositions_match_finite_differences(dev, case):
    x = values(dev, (3, 4), seed=3)
    y = values(dev, (4, 2), seed=4)
    idx = wt.asarray([2, 0, 2, 1], device=dev)
    fns = {
        "sum": lambda a: wt.sum(a, axis=0), "mean": lambda a: wt.mean(a, axis=1),
        "prod": lambda a: wt.prod(a, axis=1),
        "prod_zero": lambda a: wt.prod(a * wt.asarray([[0.0, 1, 1, 1]] * 3, device=dev)
                                       + 0.0, axis=1),
        "max": lambda a: wt.max(a, axis=1), "min": lambda a: wt.min(a),
        "var": lambda a: wt.var(a, axis=0), "std": lambda a: wt.std(a, correction=1),
        "cumsum": lambda a: wt.cumulative_sum(a, axis=1),
        "cumprod": lambda a: wt.cumulative_prod(a, axis=0),
        "matmul": lambda a: a @ y, "matmul_batched": lambda a: wt.reshape(a, (2, 2, 3)) @
        wt.reshape(a, (2, 3, 2)),
        "vecdot": lambda a: wt.vecdot(a, a[::-1]), "sort": lambda a: wt.sort(a, axis=1),
        "take": lambda a: wt.take(a, idx, axis=1), "take_along": lambda a: wt.take_along_axis(
            a, wt.argsort(a, axis=1), axis=1),
        "index": lambda a: a[idx[:3], 1:] * a[0, idx[1:]],
        "setitem": _setitem, "setitem_index": lambda a: _setitem_index(a, idx),
        "concat": lambda a: wt.concat([a, a[:1] * 2], axis=0),
        "stack": lambda a: wt.stack([a, wt.sin(a)], axis=1),
        "split": lambda a: wt.split(a, 2, axis=1)[1] * wt.split(a, 2, axis=1)[0],
        "pad": lambda a: wt.pad(a, ((1, 0), (0, 2)), constant_values=1.5),
        "where": lambda a: wt.where(a > 0, a * a, wt.sin(a)),
        "flip": lambda a: wt.flip(a, axis=0) * a, "roll": lambda a: wt.roll(a, 1, axis=1),
        "tile": lambda a: wt.tile(a, (2, 1)), "repeat": lambda a: wt.repeat(a, 2, axis=0),
        "transpose": lambda a: a.T @ a, "broadcast": lambda a: a[:, None, :] * a[None, :, :],
        "reshape_strided": lambda a: wt.reshape(a[:, ::2], (6,)),
        "norm": lambda a: wt.linalg.vector_norm(a, axis=1),
        "clip": lambda a: wt.clip(a, -1.0, 1.0),
        "logsumexp": lambda a: wt.nn.logsumexp(a, axis=0),
        "softmax": lambda a: wt.nn.softmax(a), "diagonal": lambda a: wt.linalg.diagonal(a),
        "trace": lambda a: wt.linalg.trace(a[:, :3]), "cond_scan": _cond_scan,
    }
    check_grad(projected(fns[case]), x)


def _setitem(a):
    b = a * 1.0
    b[1:, ::2] = wt.sin(a[:2, 1::2])
    b[0] += 3.0 * a[2]
    return b


def _setitem_index(a, idx):
    b = wt.zeros_like(a)
    b[idx[:2]] = a[:2] * 2.0
    return b + a


def _cond_scan(a):
    def body(c, row):
        c = wt.cond(wt.sum(row) > 0, lambda t: t * row, lambda t: t + row, c)
        return c, wt.tanh(c)
    c, ys = wt.scan(body, wt.ones((4,), dtype=wt.float64, device=a.device), a)
    return c + wt.sum(ys, axis=0)


def test_float16_gradients_accumulate_in_float32(dev):
    x = wt.asarray([0.1] * 2048, dtype=wt.float16, device=dev)
    # 2048 uses of one element: float16 accumulation would round long before 2048
    g = wt.grad(lambda a: wt.sum(wt.broadcast_to(a[:1], (2048,))))(x)
    assert g.dtype is wt.float16 and g.tolist()[0] == 2048.0


# -- control flow, stop_gradient, higher order -------------------------------------------------------

def test_loops_and_stop_gradient(dev):
    x = values(dev, (3,), seed=5)
    frozen = wt.asarray(x.tolist(), dtype=wt.float64, device=dev)

    def loop(a):
        return wt.fori_loop(0, 3, lambda i, v: v * wt.cos(a) + 0.1, a)
    # stop_gradient(a) is a constant for autodiff: the same as a copy made outside
    got = wt.grad(lambda a: wt.sum(loop(a) * wt.stop_gradient(a)))(x)
    check_grad(lambda a: wt.sum(loop(a) * frozen), x)
    want = wt.grad(lambda a: wt.sum(loop(a) * frozen))(x)
    assert_close(got.tolist(), want.tolist(), rtol=1e-12)
    g = wt.grad(lambda a: wt.sum(wt.stop_gradient(a) * a))(x)
    assert_close(g.tolist(), x.tolist())


def test_second_derivatives(dev):
    x = wt.asarray(0.7, dtype=wt.float64, device=dev)
    d2 = wt.grad(wt.grad(lambda t: wt.sin(t) * t))(x)
    assert_close([d2.item()], [2 * math.cos(0.7) - 0.7 * math.sin(0.7)])
    h = wt.hessian(lambda v: wt.sum(v ** 3) + v[0] * v[1])(values(dev, (2,), seed=6))
    v = values(dev, (2,), seed=6).tolist()
    assert_close(h.tolist(), [[6 * v[0], 1.0], [1.0, 6 * v[1]]])


def test_jvp_jacobians_and_vmap_agree(dev):
    x = values(dev, (3,), seed=8)

    def f(a):
        b = wt.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * wt.tanh(a)), (0, a))[1]
        return wt.sin(a) * wt.sum(a ** 2) + b
    jf = wt.jacfwd(f)(x)
    jr = wt.jacrev(lambda a: wt.sin(a) * wt.sum(a ** 2) + a * wt.tanh(a) ** 3)(x)
    assert_close(jf.tolist(), jr.tolist(), rtol=1e-9)
    v = values(dev, (3,), seed=9)
    _, tangent = wt.jvp(f, (x,), (v,))
    assert_close(tangent.tolist(), (jf @ v).tolist(), rtol=1e-9)
    # a column of the Jacobian by finite differences
    eps = 1e-6
    e0 = wt.asarray([eps, 0.0, 0.0], dtype=wt.float64, device=dev)
    col = ((f(x + e0) - f(x - e0)) / (2 * eps)).tolist()
    assert_close([row[0] for row in jf.tolist()], col, rtol=1e-5)


def test_grad_under_jit_and_vmap(dev):
    xs = values(dev, (4, 3), seed=10)

    def loss(a):
        return wt.sum(wt.nn.softplus(a) * a)
    per_example = wt.jit(wt.vmap(wt.grad(loss)))(xs)
    loop = [wt.grad(loss)(xs[i]).tolist() for i in range(4)]
    assert_close(per_example.tolist(), loop, rtol=1e-12)


# -- errors -----------------------------------------------------------------------------------------

def test_errors(dev):
    x = values(dev, (3,), seed=11)
    with pytest.raises(TypeError, match=r"wt.grad: the function must return a scalar .* "
                                        r"float64 tensor of shape \(3,\).*wt.vjp"):
        wt.grad(lambda a: a * 2)(x)
    with pytest.raises(TypeError, match=r"wt.grad: argument 0 is a int32 tensor of shape "
                                        r"\(3,\); .*wt.astype"):
        wt.grad(lambda a: wt.sum(a))(wt.asarray([1, 2, 3], dtype=wt.int32, device=dev))
    with pytest.raises(TypeError, match=r"while_loop .*fori_loop.* wt.scan"):
        wt.grad(lambda a: wt.sum(wt.while_loop(lambda v: v.sum() < 10, lambda v: v * 2, a)))(
            wt.abs(x) + 1)
    with pytest.raises(ValueError, match=r"argnums=3 is out of range"):
        wt.grad(lambda a: wt.sum(a), argnums=3)(x)
    with pytest.raises(ValueError, match=r"vjp: cotangent 0 has shape \(2,\)"):
        wt.vjp(lambda a: a * 2, x)[1](wt.ones((2,), dtype=wt.float64, device=dev))
    with pytest.raises(ValueError, match=r"wt.vmap: the mapped axes have different sizes"):
        wt.vmap(lambda a, b: a + b)(wt.ones((3,)), wt.ones((4,)))
    from webtensor.compile.rules import NoDerivativeError

    with pytest.raises(NoDerivativeError, match=r"cumulative_max"):
        wt.grad(lambda a: wt.sum(wt.cumulative_max(a)) if hasattr(wt, "cumulative_max")
                else _scan_max(a))(x)


def _scan_max(a):
    from webtensor.api import _reduce as _r

    return wt.sum(_r.scan("max", a, 0))


def test_has_aux_and_value_and_grad(dev):
    x = values(dev, (3,), seed=12)
    (val, aux), g = wt.value_and_grad(lambda a: (wt.sum(a * a), {"mean": wt.mean(a)}),
                                      has_aux=True)(x)
    assert_close([val.item()], [sum(v * v for v in x.tolist())])
    assert_close([aux["mean"].item()], [sum(x.tolist()) / 3])
    assert_close(g.tolist(), [2 * v for v in x.tolist()])
    params = {"w": values(dev, (3,), seed=13), "b": wt.asarray(0.5, dtype=wt.float64,
                                                               device=dev)}
    g = wt.grad(lambda p: wt.sum(wt.tanh(p["w"] * x + p["b"])))(params)
    assert set(g) == {"w", "b"} and g["b"].shape == ()


# -- JAX as an oracle -------------------------------------------------------------------------------

def test_against_jax(dev):
    jax = pytest.importorskip("jax")
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4))
    w = rng.standard_normal((4, 5))

    def ours(a, w):
        h = wt.nn.gelu(a @ w)
        z = wt.nn.log_softmax(h, axis=1)
        c, _ = wt.scan(lambda c, r: (c * 0.5 + r, c), wt.zeros((5,), dtype=wt.float64,
                                                               device=dev), z)
        return wt.sum(c ** 2) + wt.sum(wt.nn.relu(a) * wt.nn.sigmoid(a))

    def theirs(a, w):
        h = jax.nn.gelu(a @ w)
        z = jax.nn.log_softmax(h, axis=1)
        c, _ = jax.lax.scan(lambda c, r: (c * 0.5 + r, c), jnp.zeros(5), z)
        return jnp.sum(c ** 2) + jnp.sum(jax.nn.relu(a) * jax.nn.sigmoid(a))
    got = wt.grad(ours, argnums=(0, 1))(wt.asarray(a, device=dev), wt.asarray(w, device=dev))
    want = jax.grad(theirs, argnums=(0, 1))(a, w)
    for g, j in zip(got, want):
        assert np.allclose(np.asarray(g.tolist()), np.asarray(j), rtol=1e-12, atol=1e-12)
