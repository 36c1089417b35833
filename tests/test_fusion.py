"""Kernel fusion: how traced graphs are partitioned into kernels (no GPU needed; the fused
WebGPU kernels themselves are tested in test_webgpu_jit.py)."""

from __future__ import annotations

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


def test_sibling_groups_join_the_node_that_reads_both():
    # x < 0 and x + 3 start two groups (neither reads the other); where reads both: one kernel
    def f(x):
        return wt.minimum(wt.where(x < 0, x + 3, x), 2)
    g = wt.make_graph(f)(wt.asarray([-2, 0, 5], dtype=wt.int32))
    units = partition(g, _everything_elementwise, 8)
    assert [_ops(u) for u in units] == [
        ["binary.less", "binary.add", "where.None", "binary.minimum"]]
    assert [v.id for v in units[0].results] == [units[0].members[-1].results[0].id]


def test_sibling_groups_that_one_path_leaves_stay_apart():
    # b = x + 1 feeds a reduction whose result feeds c: merging b's and c's groups around the
    # reduction would leave no order to run them in
    def f(x):
        b = x + 1
        c = (x * wt.sum(b)) * 2
        return wt.where(c > 0, b, c)
    g = wt.make_graph(f)(wt.ones((4,)))
    units = partition(g, _everything_elementwise, 8)
    assert [_ops(u) for u in units] == [
        "binary", "reduce", ["binary.multiply", "binary.multiply", "binary.greater", "where.None"]]


def test_sibling_groups_that_read_each_other_through_views_stay_apart():
    # a member's value is a register: a flipped or transposed read of it needs the array
    cases = {
        "flip": (lambda x: x * 2 + (x * 2)[::-1], wt.asarray([1.0, 2.0, 3.0])),
        "transpose": (lambda s: (lambda a: (a.T + 1) + a)(s * 2),
                      wt.asarray([[1.0, 2.0], [3.0, 4.0]])),
        "where": (lambda x: (lambda a: wt.where(a > 2, a, a[::-1]))(x * 2),
                  wt.asarray([1.0, 2.0, 3.0])),
    }
    for name, (f, x) in cases.items():
        units = partition(wt.make_graph(f)(x), _everything_elementwise, 8)
        assert len(units) == 2, (name, [_ops(u) for u in units])
        for device in ("cpu", "webgpu") if "webgpu" in wt.devices() else ("cpu",):
            x_on = x.to_device(device)
            assert wt.jit(f)(x_on).tolist() == f(x_on).tolist(), (name, device)


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
