"""wt.jit on the webgpu device: fused kernels equal eager execution bit for bit, dispatch counts,
the binding limit, shared pipelines, control flow.  Runs natively (lavapipe) and in the browser
suite (Chromium's WebGPU); eager results are checked against NumPy elsewhere."""

from __future__ import annotations

import pytest

import webtensor as wt
from _gpu import webgpu_or_skip
from webtensor.compile.fuse import Group, partition

GPU, CPU, BACKEND = webgpu_or_skip()


@pytest.fixture(scope="module")
def gpu():
    return GPU, BACKEND


def _dispatches(backend) -> int:
    return backend.driver.stats()["dispatches"]


def test_eight_op_chain_is_one_dispatch(gpu):
    device, backend = gpu

    @wt.jit
    def chain(x):
        return wt.exp(wt.sqrt(wt.abs(wt.sin(x * 1.5 + 0.5) ** 2 - 0.25)))
    x = wt.linspace(-3, 3, 4096, dtype=wt.float32, device=device)
    chain(x).tolist()
    before = _dispatches(backend)
    got = chain(x)
    assert _dispatches(backend) - before == 1
    eager = wt.exp(wt.sqrt(wt.abs(wt.sin(x * 1.5 + 0.5) ** 2 - 0.25)))
    assert got.tobytes() == eager.tobytes()


def test_twenty_inputs_respect_the_binding_limit(gpu):
    device, backend = gpu

    def f(*xs):
        total = xs[0]
        for x in xs[1:]:
            total = total + x * 1.5
        return total
    args = [wt.full((37,), float(k), device=device) for k in range(20)]
    got = wt.jit(f)(*args)
    assert got.tobytes() == f(*args).tobytes()
    from webtensor.compile import webgpu_codegen

    g = wt.make_graph(f)(*args)
    units = partition(g, webgpu_codegen.fusable, webgpu_codegen.max_bindings(backend))
    groups = [u for u in units if isinstance(u, Group)]
    assert groups and all(len(webgpu_codegen.plan(u).inputs) + len(u.results) <= 8
                          for u in groups)


def test_literals_share_a_pipeline(gpu):
    device, backend = gpu
    x = wt.arange(10, dtype=wt.float32, device=device)
    wt.jit(lambda a: (a * 0.5 + 1) * 3)(x).tolist()
    pipelines = backend.driver.stats()["pipelines"]
    out = wt.jit(lambda a: (a * 0.25 + 7) * -2)(x)
    assert backend.driver.stats()["pipelines"] == pipelines
    assert out.tolist() == [(v * 0.25 + 7) * -2 for v in range(10)]


@pytest.mark.parametrize("dt", [wt.int8, wt.uint8, wt.int16, wt.uint16, wt.float16,
                                wt.bfloat16, wt.bool, wt.int64, wt.complex64])
def test_narrow_dtypes_are_renarrowed_after_every_node(gpu, dt):
    device, _ = gpu
    n = 4096
    if dt is wt.bool:
        a = wt.arange(n, device=device) % 3 == 0
        b = wt.arange(n, device=device) % 5 == 0
        f = lambda a, b: wt.logical_xor(a | b, a & ~b) == b  # noqa: E731
    elif dt.kind in "iu":
        a = wt.astype(wt.arange(n, device=device) * 37, dt)
        b = wt.astype(wt.arange(n, device=device) * 91 + 5, dt)
        f = lambda a, b: ((a + b) >> 1) * 3 - a  # noqa: E731
    else:
        a = wt.astype(wt.linspace(-50, 50, n, device=device), dt)
        b = wt.astype(wt.linspace(3, -7, n, device=device), dt)
        f = lambda a, b: a * b + a - b * 0.1  # noqa: E731
    got = wt.jit(f)(a, b)
    assert got.dtype is f(a, b).dtype and got.tobytes() == f(a, b).tobytes()


def test_strided_and_broadcast_inputs(gpu):
    device, _ = gpu
    x = wt.reshape(wt.arange(60, dtype=wt.float32, device=device), (3, 4, 5))
    row = wt.arange(5, dtype=wt.float32, device=device)

    def f(x, r):
        y = x[::-1, 1:3, ::2] * r[::2] + 1
        return wt.where(y > 20, y, -y), y.astype(wt.int16)
    got, want = wt.jit(f)(x, row), f(x, row)
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()


def test_fused_listing(gpu):
    device, _ = gpu

    def f(x, y):
        a = wt.sin(x) * 2 + y
        return wt.exp(a) - 1, wt.sum(a, axis=0) * 3
    text = wt.make_graph(f)(wt.ones((3, 4), device=device), wt.ones((4,), device=device)).fused()
    assert text.splitlines()[0] == "f on webgpu: 3 kernels for 7 nodes"
    assert "kernel 1: fused 5 ops" in text and "reduce.sum" in text


def test_control_flow_on_the_gpu(gpu):
    device, _ = gpu
    x = wt.asarray([1.0, 2.0, 3.0], device=device)

    def f(x, n):
        acc = wt.fori_loop(0, 4, lambda i, a: wt.cond(i % 2 == 0, lambda v: v + x,
                                                       lambda v: v * 0.5, a), wt.zeros_like(x))
        total, ys = wt.scan(lambda c, xi: (c + xi, c * xi), 0.0, acc)
        k, v = wt.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 1.5), (0, acc))
        return acc, total, ys, k, v
    got, want = wt.jit(f)(x, 3), f(x, 3)
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()
    assert got[0].tolist() == [0.75, 1.5, 2.25]


def test_random_programs_fuse_bit_exactly(gpu):
    device, _ = gpu
    dtypes = [wt.float32, wt.int32, wt.uint8, wt.float16, wt.int64, wt.complex64]
    for k, dt in enumerate(dtypes):
        n = 257
        a = wt.astype(wt.arange(n, device=device) * (k + 3) - 100, dt)
        b = wt.astype(wt.arange(n, device=device) % 7 + 1, dt)

        def f(a, b):
            c = a * b + a
            d = wt.where(wt.astype(c, wt.float32) > 0, c - b, b - a)
            return d * d, wt.astype(d, wt.float32) / 3
        for x, y in zip(wt.jit(f)(a, b), f(a, b)):
            assert x.tobytes() == y.tobytes(), dt
