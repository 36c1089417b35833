"""Graph rewrites: common subexpressions, constants, aliases and view composition are exact and
make programs smaller.  Pure Python (the partition and rewrite logic needs no device)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from webtensor import shape as _s
from webtensor.compile.ir import Value, View
from webtensor.compile.passes import compose, optimize


def _prims(graph):
    return [n.prim if n.op is None else f"{n.prim}.{n.op}" for n in graph.nodes]


def test_common_subexpressions_merge():
    def f(x):
        return wt.sin(x) * 2 + wt.sin(x) * 2
    g = wt.make_graph(f)(wt.ones(3))
    assert _prims(g).count("unary.sin") == 1 and _prims(g).count("binary.multiply") == 1


def test_constants_fold_into_literals():
    def f(x):
        one = wt.ones_like(x)
        return x * one + wt.full_like(x, -2.0) * 3 - wt.zeros_like(x)
    g = optimize(wt.make_graph(f)(wt.ones(3)))
    assert "fill" not in _prims(g)
    assert all(v.value.kind in ("input", "lit", "node") for n in g.nodes for v in n.reads())
    x = wt.asarray([1.5, -0.0, float("nan")])
    assert wt.jit(f)(x).tobytes() == f(x).tobytes()


def test_identities_become_aliases_but_outputs_stay_fresh():
    def f(x):
        y = x * 1
        z = (y + (-0.0)) - 0.0
        return wt.exp(z), y
    g = wt.make_graph(f)(wt.ones(3))
    # y is an output: kept; z's arithmetic reads x directly
    assert _prims(g) == ["binary.multiply", "unary.exp"]
    x = wt.asarray([-0.0, 2.0, float("-inf")])
    got, want = wt.jit(f)(x), f(x)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(got, want))
    assert got[1]._data is not x._data  # an output never aliases an input
    # x + 0.0 is not an identity (-0.0 + 0.0 is +0.0)
    g = wt.make_graph(lambda x: wt.exp(x + 0.0))(wt.ones(3))
    assert _prims(g) == ["binary.add", "unary.exp"]


def test_copies_of_broadcasts_compose():
    def f(x):
        s = wt.sum(x)
        return wt.broadcast_to(wt.reshape(s, (1, 1)), (3, 4)) * x
    g = wt.make_graph(f)(wt.ones((3, 4)))
    assert "copy" not in _prims(g)


@st.composite
def view_pairs(draw):
    """A value, a view of it (the copy's source) and a view of the copy."""
    shape_v = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    value = Value(wt.float32, shape_v, None, "input")
    # inner: slices with steps / flips / permutation / broadcast of the value
    nd = len(shape_v)
    strides_v = _s.contiguous_strides(shape_v)
    shape_i, strides_i, offset = [], [], 0
    for d in range(nd):
        n = shape_v[d]
        step = draw(st.sampled_from([1, 2, -1]))
        count = len(range(0, n, abs(step)))
        if step < 0:
            offset += (n - 1) * strides_v[d]
        shape_i.append(count)
        strides_i.append(step * strides_v[d])
    order = draw(st.permutations(range(nd)))
    shape_i = [shape_i[d] for d in order]
    strides_i = [strides_i[d] for d in order]
    if draw(st.booleans()):
        shape_i.insert(0, draw(st.integers(1, 3)))
        strides_i.insert(0, 0)
    inner = View(value, tuple(shape_i), tuple(strides_i), offset)
    # outer: a slice/flip/broadcast/reshape of the dense copy
    cs = _s.contiguous_strides(inner.shape)
    kind = draw(st.sampled_from(["slice", "broadcast", "reshape", "transpose"]))
    copy_value = Value(wt.float32, inner.shape, None, "node")
    if kind == "reshape":
        outer = View(copy_value, (_s.size_of(inner.shape),), (1,), 0)
    elif kind == "transpose":
        outer = View(copy_value, tuple(reversed(inner.shape)), tuple(reversed(cs)), 0)
    elif kind == "broadcast":
        outer = View(copy_value, (2,) + inner.shape, (0,) + cs, 0)
    else:
        starts = [draw(st.integers(0, n - 1)) for n in inner.shape]
        shape_o = [draw(st.integers(1, n - s)) for n, s in zip(inner.shape, starts)]
        outer = View(copy_value, tuple(shape_o), cs, sum(a * b for a, b in zip(starts, cs)))
    return value, inner, outer


def _read(view, buffer):
    offs = _s.flat_offsets(view.shape, view.strides, view.offset)
    return [buffer[o] for o in offs]


@settings(max_examples=200, deadline=None)
@given(pair=view_pairs())
def test_composed_views_read_what_the_copy_would(pair):
    value, inner, outer = pair
    data = list(range(value.size))
    copy = _read(inner, data)
    composed = compose(inner, outer)
    if composed is None:
        return  # not expressible as one view: the pass keeps the copy
    assert composed.value is value
    assert _read(composed, data) == _read(outer, copy)
