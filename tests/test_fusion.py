"""Kernel fusion: how graphs are partitioned, and what the fused WebGPU kernels compute.

The partition tests need no GPU (they use the WebGPU backend's fusability rules on traced
graphs); the kernel tests run on the webgpu device and compare fused results with eager ones bit
for bit (eager is tested against NumPy elsewhere).
"""

from __future__ import annotations

import pytest

import webtensor as wt
from webtensor.compile.fuse import Group, partition


def _ops(node):
    return [f"{m.prim}.{m.op}" for m in node.members] if isinstance(node, Group) else node.prim


def _everything_elementwise(node):
    return node.prim in ("unary", "binary", "where", "cast", "copy") and node.base is None \
        and node.written.identity


def test_a_chain_is_one_group_and_reductions_stay_outside():
    def f(x, y):
        a = wt.sin(x) * 2 + y
        return wt.exp(a) - 1, wt.sum(a, axis=0) * 3
    g = wt.make_graph(f)(wt.ones((3, 4)), wt.ones((4,)))
    units = partition(g, _everything_elementwise, 8)
    assert [_ops(u) for u in units] == [
        ["unary.sin", "binary.multiply", "binary.add", "unary.exp", "binary.subtract"],
        "reduce", "binary"]
    group = units[0]
    # `a` feeds the reduction and `exp`: it is written, as is the group's last value
    assert [v.id for v in group.results] == [group.members[2].results[0].id,
                                              group.members[4].results[0].id]
    assert {v.value.kind for v in group.inputs} == {"input", "lit"}


def test_groups_stay_convex():
    # a -> (reduce, not fusable) -> c and a -> c: c may not join a's group
    def f(x):
        a = x * 2
        s = wt.sum(a) + a
        return s + 1
    g = wt.make_graph(f)(wt.ones((5,)))
    units = partition(g, _everything_elementwise, 8)
    order = [_ops(u) for u in units]
    assert order[0] == "binary" and order[1] == "reduce"
    assert order[2] == ["binary.add", "binary.add"]


def test_non_identity_reads_of_a_group_value_start_a_new_group():
    def f(x):
        a = x * 2
        return a.T + 1  # a transposed view of a: a must be written first
    g = wt.make_graph(f)(wt.ones((3, 4)))
    units = partition(g, _everything_elementwise, 8)
    assert [_ops(u) for u in units] == ["binary", "binary"]


def test_binding_cap_splits_wide_graphs():
    def f(*xs):
        total = xs[0]
        for x in xs[1:]:
            total = total + x * 1.5
        return total
    args = [wt.full((6,), float(k)) for k in range(20)]
    g = wt.make_graph(f)(*args)
    for cap in (3, 4, 8):
        units = partition(g, _everything_elementwise, cap)
        assert sum(len(u.members) if isinstance(u, Group) else 1 for u in units) == len(g.nodes)
        for u in units:
            if isinstance(u, Group):
                bound = {v.value.id for v in u.inputs if v.value.kind != "lit"}
                assert len(bound) + len(u.results) <= cap, (cap, _ops(u))


# -- the WebGPU kernels ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gpu():
    from _gpu import webgpu_or_skip

    device, _, backend = webgpu_or_skip()
    return device, backend


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
