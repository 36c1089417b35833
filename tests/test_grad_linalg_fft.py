"""Derivatives of ``wt.linalg`` and ``wt.fft`` (the host functions: decompositions and
transforms computed on the host, traced as one ``host`` node).

Every rule, in both modes, against central finite differences in float64 on the CPU backends
(NumPy and pure Python) and against JAX (x64) where it is importable; complex inputs follow
JAX's convention (``df/dre - i df/dim``).  On webgpu (float32/complex64) the gradients equal the
CPU device's within float32 tolerances.  ``wt.jit`` and ``wt.vmap`` of these functions equal eager
results; a function without a rule raises naming it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import BACKENDS, DEVICES
from webtensor.compile.rules import NoDerivativeError


@pytest.fixture(scope="module", params=BACKENDS, name="dev")
def dev_fixture(request):
    return request.param


CPU_DEVICES = [pytest.param(d, id=n) for n, d in DEVICES.items() if n != "webgpu"]


def _on_gpu(dev) -> bool:
    return dev.backend.name == "webgpu"


def _cpu_oracle():
    return DEVICES.get("numpy", DEVICES["python"])


# -- inputs --------------------------------------------------------------------------------------

def _entries(shape, seed, cplx):
    rng = random.Random(seed)
    n = math.prod(shape)
    if cplx:
        return [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(n)]
    return [rng.uniform(-1, 1) for _ in range(n)]


def _flat(v):
    if isinstance(v, list):
        return [e for item in v for e in _flat(item)]
    return [v]


def make_input(kind: str, shape, seed: int, cplx: bool) -> list:
    """Flat values: ``m`` random, ``sq`` random + 2I (well conditioned), ``spd`` B B^H + nI
    (positive definite), ``x`` a signal."""
    vals = _entries(shape, seed, cplx)
    if kind in ("sq", "spd"):
        n = shape[-1]
        batch = math.prod(shape[:-2])
        out = []
        for b in range(batch):
            m = [vals[b * n * n + i * n:b * n * n + (i + 1) * n] for i in range(n)]
            if kind == "spd":
                m = [[sum(m[i][k] * (m[j][k].conjugate() if cplx else m[j][k])
                          for k in range(n)) for j in range(n)] for i in range(n)]
            m = [[v + (n if kind == "spd" else 2.0) * (i == j) for j, v in enumerate(row)]
                 for i, row in enumerate(m)]
            out.extend(v for row in m for v in row)
        return out
    return vals


def tensors(case, dev, dtype_real=None):
    """The case's inputs on ``dev`` (float64/complex128 unless ``dtype_real`` says)."""
    real = dtype_real or wt.float64
    cdt = wt.complex64 if real is wt.float32 else wt.complex128
    out = []
    for k, (kind, shape) in enumerate(case.ins):
        cplx = case.cplx and kind != "r"  # "r": a real input even in a complex case
        vals = make_input("m" if kind == "r" else kind, shape, 17 * k + 3, cplx)
        out.append(wt.reshape(wt.asarray(vals, dtype=cdt if cplx else real, device=dev),
                              shape))
    return out


# -- the cases -----------------------------------------------------------------------------------

class Case(NamedTuple):
    fn: Callable  # fn(xp, *inputs): xp is webtensor or jax.numpy
    ins: tuple  # (kind, shape) per input
    cplx: bool = False
    jax: bool = True  # JAX has this derivative (not: QR of wide matrices)


def _eigh_view(xp, res):
    """Eigen-pairs through functions invariant under each vector's sign/phase."""
    w, v = res
    c = [1.0, 2.5, 4.0][:v.shape[-1]]
    c = wt.asarray(c, dtype=w.dtype, device=w.device) if xp is wt else xp.asarray(c)
    proj = (v * c) @ xp.conj(xp.matrix_transpose(v))
    return w, xp.abs(v) ** 2, proj


def _svd_view(xp, res):
    u, s, vh = res
    return s, xp.abs(u) ** 2, xp.abs(vh) ** 2, u @ vh


def _wt_or_jax_lower(xp, a):
    """webtensor reads the lower triangle (and the diagonal's real part); JAX symmetrizes its
    input instead, so its twin is given the Hermitian matrix webtensor sees."""
    if xp is wt:
        return a
    low = xp.tril(a, k=-1)
    d = xp.real(xp.diagonal(a, axis1=-2, axis2=-1))
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    return low + xp.conj(xp.matrix_transpose(low)) + xp.astype(d, a.dtype)[..., None, :] * eye


def _linalg_cases(cplx: bool) -> dict:
    s = "c" if cplx else "r"
    la = {
        "inv": Case(lambda xp, a: xp.linalg.inv(a), (("sq", (3, 3)),)),
        "inv_permuted_batch": Case(lambda xp, a: xp.linalg.inv(xp.matrix_transpose(a)),
                                   (("sq", (2, 3, 3)),)),
        "solve": Case(lambda xp, a, b: xp.linalg.solve(a, b), (("sq", (3, 3)), ("m", (3, 2)))),
        "solve_vector": Case(lambda xp, a, b: xp.linalg.solve(a, b),
                             (("sq", (3, 3)), ("m", (3,)))),
        "solve_broadcast": Case(lambda xp, a, b: xp.linalg.solve(
            xp.broadcast_to(a, (2, 3, 3)), b), (("sq", (3, 3)), ("m", (2, 3, 2)))),
        "det": Case(lambda xp, a: xp.linalg.det(a), (("sq", (3, 3)),)),
        "det_broadcast": Case(lambda xp, a: xp.linalg.det(xp.broadcast_to(a, (2, 3, 3))),
                              (("sq", (3, 3)),)),
        "slogdet": Case(lambda xp, a: tuple(xp.linalg.slogdet(a)), (("sq", (2, 3, 3)),)),
        "cholesky": Case(lambda xp, a: xp.linalg.cholesky(_wt_or_jax_lower(xp, a)),
                         (("spd", (3, 3)),)),
        "cholesky_upper": Case(lambda xp, a: xp.linalg.cholesky(_wt_or_jax_lower(xp, a),
                                                                upper=True),
                               (("spd", (3, 3)),)),
        "qr_tall": Case(lambda xp, a: tuple(xp.linalg.qr(a)), (("m", (4, 3)),)),
        "qr_square_complete": Case(lambda xp, a: tuple(xp.linalg.qr(a, mode="complete")),
                                   (("m", (3, 3)),)),
        "qr_wide": Case(lambda xp, a: tuple(xp.linalg.qr(a)), (("m", (3, 5)),), jax=False),
        "eigh": Case(lambda xp, a: _eigh_view(xp, xp.linalg.eigh(_wt_or_jax_lower(xp, a))),
                     (("m", (3, 3)),)),
        "eigvalsh": Case(lambda xp, a: xp.linalg.eigvalsh(_wt_or_jax_lower(xp, a)),
                         (("m", (2, 3, 3)),)),
        "svd_tall": Case(lambda xp, a: _svd_view(xp, xp.linalg.svd(a, full_matrices=False)),
                         (("m", (4, 3)),)),
        "svd_wide": Case(lambda xp, a: _svd_view(xp, xp.linalg.svd(a, full_matrices=False)),
                         (("m", (3, 4)),)),
        "svd_square_full": Case(lambda xp, a: _svd_view(xp, xp.linalg.svd(a)),
                                (("m", (3, 3)),)),
        "svdvals": Case(lambda xp, a: xp.linalg.svdvals(a), (("m", (2, 3, 4)),)),
        "pinv": Case(lambda xp, a: xp.linalg.pinv(a), (("m", (4, 3)),)),
        "matrix_power_3": Case(lambda xp, a: xp.linalg.matrix_power(a, 3), (("m", (3, 3)),)),
        "matrix_power_-2": Case(lambda xp, a: xp.linalg.matrix_power(a, -2),
                                (("sq", (3, 3)),)),
        "vector_norm_axis": Case(lambda xp, a: xp.linalg.vector_norm(a, axis=1),
                                 (("m", (3, 4)),)),
        "vector_norm_3": Case(lambda xp, a: xp.linalg.vector_norm(a, ord=3), (("m", (3, 4)),)),
    }
    for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        la[f"matrix_norm_{o}"] = Case(lambda xp, a, o=o: xp.linalg.matrix_norm(a, ord=o),
                                      (("m", (2, 3, 4)),))
    for o in (1, math.inf, -math.inf):
        la[f"vector_norm_{o}"] = Case(lambda xp, a, o=o: xp.linalg.vector_norm(a, ord=o,
                                                                              axis=-1),
                                      (("m", (3, 4)),))
    return {f"{k}_{s}": c._replace(cplx=cplx) for k, c in la.items()}


_NORMS = ("backward", "ortho", "forward")


def _fft_cases() -> dict:
    cases = {}
    # each 1-D transform with each norm, the input cut (n < length) or zero-padded (n > length)
    for name, cplx in (("fft", True), ("fft", False), ("ifft", True), ("rfft", False),
                       ("irfft", True), ("hfft", True), ("ihfft", False)):
        for norm, n in zip(_NORMS, (None, 4, 9)):
            key = f"{name}_{'c' if cplx else 'r'}_{norm}_n{n}"
            cases[key] = Case(lambda xp, x, name=name, n=n, norm=norm: getattr(xp.fft, name)(
                x, n=n, axis=1, norm=norm), (("x", (2, 6)),), cplx)
    for name, cplx in (("fftn", True), ("ifftn", True), ("rfftn", False), ("irfftn", True)):
        for norm, sizes in (("backward", None), ("ortho", (3, 7)), ("forward", (5, 4))):
            key = f"{name}_{norm}_s{sizes}"
            cases[key] = Case(lambda xp, x, name=name, s=sizes, norm=norm: getattr(xp.fft, name)(
                x, s=s, axes=(0, 2), norm=norm), (("x", (4, 2, 5)),), cplx)
    # inputs read through strided and permuted views
    cases["fft_strided"] = Case(lambda xp, x: xp.fft.fft(x[:, ::2]), (("x", (3, 8)),), True)
    cases["rfft_permuted"] = Case(lambda xp, x: xp.fft.rfft(xp.matrix_transpose(x), axis=0),
                                  (("x", (3, 6)),))
    cases["irfft_broadcast"] = Case(lambda xp, x: xp.fft.irfft(xp.broadcast_to(x, (2, 4))),
                                    (("x", (1, 4)),), True)
    return cases


CASES = {**_linalg_cases(False), **_linalg_cases(True), **_fft_cases()}


# -- losses and finite differences ----------------------------------------------------------------

def _outs(res):
    return list(res) if isinstance(res, (tuple, list)) else [res]


def _weights(y, k, xp=wt):
    """A fixed pseudo-random projection for output ``k`` (complex for complex outputs)."""
    rng = random.Random(101 + 7 * k + y.size)
    cplx = y.dtype.kind == "c" if xp is wt else str(y.dtype).startswith("complex")
    vals = [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) if cplx else rng.uniform(-1, 1)
            for _ in range(y.size)]
    return vals


def loss_of(case, xp=wt):
    """The scalar ``sum_k re(sum(out_k * w_k))`` of the case's outputs."""
    def loss(*xs):
        total = None
        for k, y in enumerate(_outs(case.fn(xp, *xs))):
            w = _weights(y, k, xp)
            if xp is wt:
                w = wt.reshape(wt.asarray(w, dtype=y.dtype, device=y.device), y.shape)
            else:
                w = xp.reshape(xp.asarray(w, dtype=y.dtype), y.shape)
            term = xp.sum(xp.real(y * w))
            total = term if total is None else total + term
        return total
    return loss


def numeric_grad(f, xs, eps=1e-6):
    """Central differences of the scalar ``f`` per input (``df/dre - i df/dim`` for complex)."""
    def at(k, flat, i, delta):
        vals = list(flat)
        vals[i] += delta
        args = list(xs)
        args[k] = wt.reshape(wt.asarray(vals, dtype=xs[k].dtype, device=xs[k].device),
                             xs[k].shape)
        return f(*args).item()

    def d(k, flat, i, step):
        return (at(k, flat, i, step) - at(k, flat, i, -step)) / (2 * eps)

    grads = []
    for k, x in enumerate(xs):
        flat = _flat(x.tolist())
        if x.dtype.kind == "c":
            grads.append([complex(d(k, flat, i, eps), -d(k, flat, i, eps * 1j))
                          for i in range(len(flat))])
        else:
            grads.append([d(k, flat, i, eps) for i in range(len(flat))])
    return grads


def assert_close(got, want, rtol, atol, context=""):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), context
    for a, b in zip(got, want):
        assert abs(a - b) <= max(rtol * max(abs(a), abs(b)), atol), (context, got, want)


def _grads(case, xs):
    loss = loss_of(case)
    grads = wt.grad(loss, argnums=tuple(range(len(xs))))(*xs)
    return loss, grads


# -- every rule against finite differences and JAX ----------------------------------------------

@pytest.mark.parametrize("name", sorted(CASES))
def test_rules_match_finite_differences(dev, name):
    case = CASES[name]
    if _on_gpu(dev):
        # float32 on the GPU: the same gradients as the CPU device computes
        xs = tensors(case, dev, wt.float32)
        grads = _grads(case, xs)[1]
        cpu = _cpu_oracle()
        want = _grads(case, [wt.asarray(x.tolist(), dtype=wt.complex128 if x.dtype.kind == "c"
                                        else wt.float64, device=cpu) for x in xs])[1]
        for g, x, w in zip(grads, xs, want):
            assert g.dtype is x.dtype and g.shape == x.shape
            scale = max(abs(v) for v in _flat(w.tolist()))
            assert_close(g.tolist(), w.tolist(), 2e-3, 2e-4 * scale, name)
        return
    xs = tensors(case, dev)
    loss, grads = _grads(case, xs)
    for k, (g, n) in enumerate(zip(grads, numeric_grad(loss, xs))):
        assert g.dtype is xs[k].dtype and g.shape == xs[k].shape
        assert_close(g.tolist(), n, 1e-5, 1e-6, f"{name}: argument {k}")
    # forward mode: the directional derivative along a random tangent
    tans = [wt.reshape(wt.asarray(_entries(x.shape, 5 + k, x.dtype.kind == "c"),
                                  dtype=x.dtype, device=dev), x.shape)
            for k, x in enumerate(xs)]
    _, tangent = wt.jvp(loss, tuple(xs), tuple(tans))
    eps = 1e-6
    plus = loss(*[x + t * eps for x, t in zip(xs, tans)]).item()
    minus = loss(*[x - t * eps for x, t in zip(xs, tans)]).item()
    assert_close([tangent.item()], [(plus - minus) / (2 * eps)], 1e-5, 1e-6, f"{name}: jvp")


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.jax))
def test_rules_against_jax(name):
    # on the NumPy backend: the other devices equal finite differences and the CPU device
    jax = pytest.importorskip("jax")
    import numpy as np

    dev = DEVICES["numpy"]

    jax.config.update("jax_enable_x64", True)
    case = CASES[name]
    xs = tensors(case, dev)
    arrays = [np.asarray(x.tolist()) for x in xs]
    nums = tuple(range(len(xs)))
    ours = wt.grad(loss_of(case), argnums=nums)(*xs)
    theirs = jax.grad(loss_of(case, jax.numpy), argnums=nums)(*arrays)
    for g, j in zip(ours, theirs):
        assert np.allclose(np.asarray(g.tolist()), np.asarray(j), rtol=1e-9, atol=1e-11), name
    tans = [np.asarray(_entries(x.shape, 9 + k, x.dtype.kind == "c")).reshape(x.shape)
            for k, x in enumerate(xs)]
    outs, tan = wt.jvp(lambda *a: tuple(_outs(case.fn(wt, *a))), tuple(xs),
                       tuple(wt.asarray(t, device=dev) for t in tans))
    j_outs, j_tan = jax.jvp(lambda *a: tuple(_outs(case.fn(jax.numpy, *a))), tuple(arrays),
                            tuple(tans))
    for o, t, jo, jt in zip(outs, tan, j_outs, j_tan):
        assert np.allclose(np.asarray(o.tolist()), np.asarray(jo), rtol=1e-10, atol=1e-12)
        assert np.allclose(np.asarray(t.tolist()), np.asarray(jt), rtol=1e-9, atol=1e-11), name


@pytest.mark.parametrize("dev", CPU_DEVICES)
def test_second_derivatives_against_jax(dev):
    jax = pytest.importorskip("jax")
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    a = tensors(CASES["inv_r"], dev)[0]

    def ours(x):
        return wt.linalg.slogdet(x)[1] + wt.sum(wt.linalg.eigvalsh(x @ x.mT) ** 2) \
            + wt.sum(wt.abs(wt.fft.rfft(x, axis=0)) ** 2)

    def theirs(x):
        jnp = jax.numpy
        return jnp.linalg.slogdet(x)[1] + jnp.sum(jnp.linalg.eigvalsh(x @ x.T) ** 2) \
            + jnp.sum(jnp.abs(jnp.fft.rfft(x, axis=0)) ** 2)
    h = wt.hessian(ours)(a)
    want = jax.hessian(theirs)(np.asarray(a.tolist()))
    assert np.allclose(np.asarray(h.tolist()), np.asarray(want), rtol=1e-8, atol=1e-10)
    g2 = wt.grad(lambda x: wt.sum(wt.grad(ours)(x) ** 2))(a)
    j2 = jax.grad(lambda x: jax.numpy.sum(jax.grad(theirs)(x) ** 2))(np.asarray(a.tolist()))
    assert np.allclose(np.asarray(g2.tolist()), np.asarray(j2), rtol=1e-8, atol=1e-10)


# -- jit and vmap ----------------------------------------------------------------------------------

_PROGRAM_CASES = ["inv_r", "solve_broadcast_r", "slogdet_c", "cholesky_r", "qr_wide_r",
                  "eigh_c", "svd_tall_r", "svdvals_c", "pinv_r", "matrix_norm_nuc_r",
                  "fft_c_ortho_n4", "rfft_r_forward_n9", "irfft_c_backward_nNone",
                  "rfftn_ortho_s(3, 7)", "hfft_c_forward_n9", "fft_strided"]


def _same(got, want, exact, context):
    got, want = _flat(got), _flat(want)
    if exact:
        assert got == want, context
    else:
        assert_close(got, want, 1e-5, 1e-6, context)


def _cases_inputs(name, dev):
    return tensors(CASES[name], dev, wt.float32 if _on_gpu(dev) else None)


@pytest.mark.parametrize("name", _PROGRAM_CASES)
def test_jit_equals_eager(dev, name):
    case = CASES[name]
    xs = _cases_inputs(name, dev)
    f = wt.jit(lambda *a: tuple(_outs(case.fn(wt, *a))))
    eager = _outs(case.fn(wt, *xs))
    exact = not _on_gpu(dev)  # the host computes the same bits; GPU kernels may fuse
    for got, want in zip(f(*xs), eager):
        assert got.shape == want.shape and got.dtype is want.dtype
        _same(got.tolist(), want.tolist(), exact, name)
    # gradients under jit equal eager gradients
    nums = tuple(range(len(xs)))
    g_jit = wt.jit(wt.grad(loss_of(case), argnums=nums))(*xs)
    g_eager = wt.grad(loss_of(case), argnums=nums)(*xs)
    for a, b in zip(g_jit, g_eager):
        _same(a.tolist(), b.tolist(), False, name)


def test_jit_records_one_host_node_and_fuses_the_rest(dev):
    dt = wt.float32 if _on_gpu(dev) else wt.float64
    x = wt.reshape(wt.asarray(make_input("sq", (3, 3), 1, False), dtype=dt, device=dev), (3, 3))

    def f(a):
        return wt.sum(wt.exp(wt.linalg.inv(a * 2.0 + 1.0) * 0.5) - 1.0)
    graph = wt.make_graph(f)(x)
    hosts = [n for n in graph.nodes if n.prim == "host"]
    assert [n.op for n in hosts] == ["linalg.inv"]
    assert "host.linalg.inv" in str(graph)
    jf = wt.jit(f)
    _same([jf(x).item()], [f(x).item()], not _on_gpu(dev), "inv chain")
    if _on_gpu(dev):
        kernels = graph.fused(dev)
        # the prologue (a * 2 + 1) and the epilogue chain are fused kernels around the host
        assert kernels.count("fused") >= 2 and "host.linalg.inv" in kernels
    assert jf.trace_count == 1
    jf(x * 0.5)
    assert jf.trace_count == 1  # same signature: the host node needs no retrace


@pytest.mark.parametrize("name", _PROGRAM_CASES)
def test_vmap_equals_a_loop(dev, name):
    case = CASES[name]
    xs = _cases_inputs(name, dev)
    # a batch of 3 examples: scaled copies of the inputs
    stacks = [wt.stack([x * s for s in (1.0, 0.5, 1.5)]) for x in xs]

    def f(*a):
        return tuple(_outs(case.fn(wt, *a)))
    got = wt.vmap(f)(*stacks)
    for i in range(3):
        want = f(*[s[i] for s in stacks])
        for g, w in zip(got, want):
            _same(g[i].tolist(), w.tolist(), False, f"{name}[{i}]")
    # one argument shared by every example (in_axes=None), the others batched
    if len(xs) == 2:
        got = wt.vmap(f, in_axes=(None, 0))(xs[0], stacks[1])
        for i in range(3):
            for g, w in zip(got, f(xs[0], stacks[1][i])):
                _same(g[i].tolist(), w.tolist(), False, f"{name} shared[{i}]")
    # per-example gradients
    per = wt.vmap(wt.grad(loss_of(case), argnums=tuple(range(len(xs)))))(*stacks)
    for i in range(3):
        one = wt.grad(loss_of(case), argnums=tuple(range(len(xs))))(*[s[i] for s in stacks])
        for g, w in zip(per, one):
            _same(g[i].tolist(), w.tolist(), False, f"{name} grad[{i}]")


@pytest.mark.parametrize("dev", CPU_DEVICES)
def test_jacobians_of_host_functions(dev):
    a = tensors(CASES["inv_r"], dev)[0]
    jr = wt.jacrev(wt.linalg.inv)(a)
    jf = wt.jacfwd(wt.linalg.inv)(a)
    assert jr.shape == (3, 3, 3, 3)
    assert_close(jr.tolist(), jf.tolist(), 1e-10, 1e-12)
    # a complex-linear map: both give the DFT matrix
    x = wt.asarray(_entries((5,), 2, True), dtype=wt.complex128, device=dev)
    jr = wt.jacrev(lambda v: wt.fft.fft(v, norm="ortho"))(x)
    jf = wt.jacfwd(lambda v: wt.fft.fft(v, norm="ortho"))(x)
    dft = [[complex(math.cos(2 * math.pi * j * k / 5), -math.sin(2 * math.pi * j * k / 5))
            / math.sqrt(5) for k in range(5)] for j in range(5)]
    assert_close(jr.tolist(), dft, 1e-10, 1e-12)
    assert_close(jf.tolist(), dft, 1e-10, 1e-12)


# -- conventions and limits ------------------------------------------------------------------------

def test_lower_triangle_readers_have_no_gradient_above_the_diagonal(dev):
    dt = wt.float32 if _on_gpu(dev) else wt.float64
    a = wt.reshape(wt.asarray(make_input("spd", (3, 3), 4, False), dtype=dt, device=dev), (3, 3))
    for fn in (lambda x: wt.sum(wt.linalg.cholesky(x)), lambda x: wt.sum(wt.linalg.eigvalsh(x)
                                                                         ** 3)):
        g = wt.grad(fn)(a).tolist()
        assert g[0][1] == g[0][2] == g[1][2] == 0.0
        assert g[1][0] != 0.0


def test_degenerate_eigenvalues_give_non_finite_eigenvector_derivatives(dev):
    dt = wt.float32 if _on_gpu(dev) else wt.float64
    a = wt.eye(3, dtype=dt, device=dev) * 2.0
    g = wt.grad(lambda x: wt.sum(wt.linalg.eigh(x).eigenvectors * wt.arange(
        9, dtype=dt, device=dev).reshape((3, 3))))(a)
    assert not all(math.isfinite(v) for v in _flat(g.tolist()))
    # eigenvalues alone stay finite: d(sum w) = d trace
    g = wt.grad(lambda x: wt.sum(wt.linalg.eigvalsh(x)))(a)
    assert _flat(g.tolist()) == [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0]


def test_functions_without_a_derivative_raise_naming_them(dev):
    dt = wt.float32 if _on_gpu(dev) else wt.float64
    tall = wt.reshape(wt.asarray(make_input("m", (4, 3), 1, False), dtype=dt, device=dev),
                      (4, 3))
    with pytest.raises(NoDerivativeError, match=r"wt.linalg.qr with mode='complete'"):
        wt.grad(lambda a: wt.sum(wt.linalg.qr(a, mode="complete").Q))(tall)
    with pytest.raises(NoDerivativeError, match=r"wt.linalg.svd with full_matrices=True"):
        wt.grad(lambda a: wt.sum(wt.linalg.svd(a).S))(tall)
    with pytest.raises(NoDerivativeError, match=r"full_matrices=True"):
        wt.jvp(lambda a: wt.linalg.svd(a).U, (tall,), (tall,))
    # a host function nobody wrote a rule for: an error naming it, never a silent zero
    from webtensor.api._host import HOST, call, host_function

    host_function("test.double")(lambda x: x * 2.0)
    try:
        def double(a):
            return call("test.double", (a,), [(a.shape, a.dtype)])[0]
        assert double(tall).tolist() == (tall * 2.0).tolist()
        assert wt.jit(double)(tall).tolist() == (tall * 2.0).tolist()
        with pytest.raises(NoDerivativeError, match=r"no derivative rule for wt.test.double"):
            wt.grad(lambda a: wt.sum(double(a)))(tall)
        with pytest.raises(NoDerivativeError, match=r"wt.test.double"):
            wt.jvp(double, (tall,), (tall,))
    finally:
        del HOST["test.double"]


def test_integer_inputs_get_no_gradient_and_stop_gradient_stops_host_nodes(dev):
    dt = wt.float32 if _on_gpu(dev) else wt.float64
    a = wt.reshape(wt.asarray(make_input("sq", (3, 3), 1, False), dtype=dt, device=dev), (3, 3))
    ints = wt.asarray([[2, 1], [0, 3]], dtype=wt.int32, device=dev)
    # an integer matrix is a constant: only the float argument gets a gradient
    g = wt.grad(lambda x: wt.linalg.det(ints) * wt.sum(x))(a)
    assert _flat(g.tolist()) == [6.0] * 9
    g = wt.grad(lambda x: wt.linalg.det(wt.stop_gradient(x)) * wt.sum(x))(a)
    d = wt.linalg.det(a).item()
    assert_close(g.tolist(), [[d] * 3] * 3, 1e-5, 1e-6)


# -- the transforms' transposes, as a property ------------------------------------------------------

_KINDS = {"fft": True, "ifft": True, "rfft": False, "irfft": True, "hfft": True, "ihfft": False}


@st.composite
def _transform_calls(draw):
    name = draw(st.sampled_from(sorted(_KINDS)))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    axis = draw(st.integers(0, len(shape) - 1))
    n = draw(st.none() | st.integers(1, 8))
    if n is None and name in ("irfft", "hfft") and shape[axis] < 2:
        n = 1  # the default 2 * (m - 1) points need m >= 2
    norm = draw(st.sampled_from(_NORMS))
    return name, shape, axis, n, norm, draw(st.integers(0, 2 ** 16))


@settings(max_examples=60)
@given(_transform_calls())
def test_transform_rules_are_transposes_of_each_other(call):
    """<g, J t> == <J^T g, t> under the bilinear pairing re(sum(u * v)): the forward rule and
    the explicit transpose describe the same linear map, whatever the shape, axis, n, norm."""
    name, shape, axis, n, norm, seed = call
    dev = _cpu_oracle()
    cdt = _KINDS[name]
    dt = wt.complex128 if cdt else wt.float64

    def f(x):
        return getattr(wt.fft, name)(x, n=n, axis=axis, norm=norm)
    x = wt.reshape(wt.asarray(_entries(shape, seed, cdt), dtype=dt, device=dev), shape)
    t = wt.reshape(wt.asarray(_entries(shape, seed + 1, cdt), dtype=dt, device=dev), shape)
    y, jt = wt.jvp(f, (x,), (t,))
    g = wt.reshape(wt.asarray(_entries(y.shape, seed + 2, y.dtype.kind == "c"), dtype=y.dtype,
                              device=dev), y.shape)
    (jg,) = wt.vjp(f, x)[1](g)
    lhs = wt.sum(wt.real(g * jt)).item()
    rhs = wt.sum(wt.real(jg * t)).item()
    assert math.isclose(lhs, rhs, rel_tol=1e-9, abs_tol=1e-9), (call, lhs, rhs)
