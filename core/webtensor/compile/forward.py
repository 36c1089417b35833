"""Forward-mode autodiff (``wt.jvp``): tangents pushed through a graph alongside its replay.

Each node's output tangent comes from its inputs' tangents: elementwise ops multiply by the same
partial derivatives reverse mode uses (``rules.PARTIALS``), linear primitives (copies, sums,
gathers, matmul in each argument) apply themselves to the tangents, and control nodes run their
sub-graphs on (value, tangent) pairs - which is how forward mode goes through ``while_loop``,
where reverse mode cannot.  A missing tangent is zero and is never materialized unless needed.
"""

from __future__ import annotations

from .. import dtypes as _d
from ..api import creation as _c
from ..api import elementwise as ew
from ..api import manipulation as _m
from ..api import statistical as _st
from ..api._reduce import index_operand
from ..tensor import Tensor, cast, empty
from .ad import _contiguous, view_of
from .ir import Graph, View
from .replay import Replay
from .rules import LINEAR, NONDIFF, NONDIFF_PRIMS, PARTIALS, _expand, _no_rule, _prod_others


class Forward:
    """Replays ``graph`` on ``inputs`` and propagates ``tangents`` (None: zero)."""

    def __init__(self, graph: Graph, inputs, tangents):
        self.graph = graph
        self.rp = Replay(graph, inputs)
        self.tangents: dict[int, Tensor] = {}
        for value, t in zip(graph.inputs, tangents):
            if t is not None:
                self.tangents[value.id] = _m.reshape(_contiguous(t), value.shape)

    def tangent(self, view: View):
        """The tangent of what ``view`` reads (None: zero)."""
        t = self.tangents.get(view.value.id)
        return None if t is None else view_of(t, view)

    def run(self):
        for node in self.graph.nodes:
            self.node(node)
        outs = [self.rp.tensor(v) for v in self.graph.outputs]
        return outs, [self.tangent(v) for v in self.graph.outputs]

    def node(self, node) -> None:
        if node.prim in CONTROL_JVP:
            outs, tans = CONTROL_JVP[node.prim](self, node)
            for v, o, t in zip(node.results, outs, tans):
                self.rp.values[v.id] = _m.reshape(_contiguous(o), v.shape)
                if t is not None:
                    self.tangents[v.id] = _m.reshape(_contiguous(t), v.shape)
            return
        self.rp.node(node)
        result = node.results[0]
        if result.dtype.kind not in "fc" or node.prim in NONDIFF_PRIMS \
                or node.params.get("stop_gradient"):
            return
        rule = JVP.get(node.prim)
        if rule is None:
            _no_rule(f"the primitive {node.prim!r}")
        t_out = rule(self, node)
        base_t = self.tangents.get(node.base.id) if node.base is not None else None
        w = node.written
        if node.prim == "scatter" or node.base is None and w.dense:
            tangent = t_out
        elif t_out is None and base_t is None:
            tangent = None
        else:  # a partial write: the base's tangent with the written region replaced
            tangent = empty(result.shape, result.dtype, result.device)
            backend = result.device.backend
            if base_t is not None:
                backend.copy(tangent, _m.reshape(base_t, result.shape))
            else:
                backend.fill(tangent, 0)
            region = view_of(tangent, w)
            if t_out is None:
                z = empty(w.shape, result.dtype, result.device)
                backend.fill(z, 0)
                t_out = z
            if region.size:
                backend.assign(region, _contiguous(cast(t_out, result.dtype, weak=False)))
        if tangent is not None:
            self.tangents[result.id] = _m.reshape(_contiguous(cast(tangent, result.dtype,
                                                                   weak=False)), result.shape)


def _reads(node):
    return list(node.reads())


def _elementwise(fw, node):
    if node.op in NONDIFF:
        return None
    views = _reads(node)
    tans = [fw.tangent(v) if v.dtype.kind in "fc" else None for v in views]
    if all(t is None for t in tans):
        return None
    if node.op in LINEAR:
        return LINEAR[node.op](tans[0])
    partials = PARTIALS.get(node.op)
    if partials is None:
        _no_rule(f"wt.{node.op}")
    ins = [fw.rp.tensor(v) for v in views]
    y = view_of(fw.rp.value(node.results[0]), node.written)
    total = None
    for t, d in zip(tans, partials(ins, y)):
        if t is None or d is None:
            continue
        term = ew.multiply(t, d)
        total = term if total is None else ew.add(total, term)
    return total


def _where(fw, node):
    c, a, b = _reads(node)
    ta, tb = fw.tangent(a), fw.tangent(b)
    if ta is None and tb is None:
        return None
    y = view_of(fw.rp.value(node.results[0]), node.written)
    zero = _c.zeros_like(y)
    return ew.where(fw.rp.tensor(c), zero if ta is None else ta, zero if tb is None else tb)


def _same(fw, node):
    (x,) = _reads(node)
    return fw.tangent(x) if x.dtype.kind in "fc" else None


def _reduce(fw, node):
    op, _out, xv, axes = node.args
    t = fw.tangent(xv)
    if t is None or op in ("any", "all"):
        return None
    if op == "sum":
        return _st.sum(t, axis=tuple(axes), dtype=t.dtype)
    x = fw.rp.tensor(xv)
    if op == "prod":
        return _st.sum(ew.multiply(t, _prod_others(x, axes)), axis=tuple(axes), dtype=t.dtype)
    y = view_of(fw.rp.value(node.results[0]), node.written)
    hit = ew.equal(x, _expand(y, x.shape, axes))
    count = _st.sum(cast(hit, t.dtype), axis=tuple(axes), dtype=t.dtype)
    picked = _st.sum(ew.where(hit, t, _c.zeros_like(t)), axis=tuple(axes), dtype=t.dtype)
    return ew.divide(picked, count)


def _scan(fw, node):
    op, _out, xv, axis = node.args
    t = fw.tangent(xv)
    if t is None:
        return None
    if op == "sum":
        return _st.cumulative_sum(t, axis=axis)
    if op == "prod":
        x = fw.rp.tensor(xv)
        y = view_of(fw.rp.value(node.results[0]), node.written)
        return ew.multiply(y, _st.cumulative_sum(ew.divide(t, x), axis=axis))
    _no_rule(f"wt.cumulative_{op}")


def _matmul(fw, node):
    from ..api import linalg as _la

    _out, av, bv = node.args
    ta, tb = fw.tangent(av), fw.tangent(bv)
    total = None
    if ta is not None:
        total = _la.matmul(ta, fw.rp.tensor(bv))
    if tb is not None:
        term = _la.matmul(fw.rp.tensor(av), tb)
        total = term if total is None else ew.add(total, term)
    return total


def _gather(fw, node):
    from .rules import _gather as gather

    _out, xv, axis, iv = node.args
    t = fw.tangent(xv)
    return None if t is None else gather(t, axis, fw.rp.tensor(iv))


def _scatter(fw, node):
    op, _out, axis, iv, uv = node.args
    base = node.base
    result = node.results[0]
    tb = fw.tangents.get(base.id) if base is not None else None
    tu = fw.tangent(uv)
    if tb is None and tu is None:
        return None
    if op not in ("set", "add"):
        _no_rule(f"scatter with op {op!r} in forward mode")
    out = empty(result.shape, result.dtype, result.device)
    backend = result.device.backend
    if tb is not None:
        backend.copy(out, _m.reshape(tb, result.shape))
    else:
        backend.fill(out, 0)
    idx = fw.rp.tensor(iv)
    if tu is None:
        tu = _c.zeros(uv.shape, dtype=result.dtype, device=result.device)
    if idx.size:
        backend.scatter(op, out, axis, index_operand(idx),
                        _contiguous(cast(tu, result.dtype, weak=False)))
    return out


def _sort(fw, node):
    from .rules import _gather as gather

    _out, xv, axis, descending = node.args
    t = fw.tangent(xv)
    if t is None:
        return None
    x = fw.rp.tensor(xv)
    perm = empty(x.shape, _d.int64, x.device)
    if perm.size:
        x.device.backend.argsort(perm, x, axis, descending)
    return gather(t, axis, perm)


def _window_reduce(fw, node):
    from .rules import _gather as gather
    from .rules import _window_others, _window_parts, window, window_selected

    op, _out, xv, window_, strides, dilations = node.args
    t = fw.tangent(xv)
    if t is None:
        return None
    if op == "sum":
        return window(t, "sum", window_, strides, dilations)
    x = fw.rp.tensor(xv)
    if op == "prod":
        views = [v for v, _ in _window_parts(x, window_, strides, dilations)]
        tans = [v for v, _ in _window_parts(t, window_, strides, dilations)]
        total = None
        for dt, others in zip(tans, _window_others(views)):
            term = ew.multiply(dt, others)
            total = term if total is None else ew.add(total, term)
        return total
    index = window_selected(x, op, window_, strides, dilations)
    flat = _m.reshape(_contiguous(t), (t.size,))
    return _m.reshape(gather(flat, 0, _m.reshape(index, (index.size,))), index.shape)


def _window_scatter(fw, node):
    from .rules import window_scatter

    select, _out, xv, sv, window_, strides, dilations = node.args
    t = fw.tangent(sv)  # linear in the source; the selection is piecewise constant
    if t is None:
        return None
    return window_scatter(select, fw.rp.tensor(xv), t, window_, strides, dilations)


JVP = {"unary": _elementwise, "binary": _elementwise, "where": _where, "cast": _same,
       "copy": _same, "assign": _same, "reduce": _reduce, "scan": _scan, "matmul": _matmul,
       "gather": _gather, "scatter": _scatter, "sort": _sort, "window_reduce": _window_reduce,
       "window_scatter": _window_scatter}

CONTROL_JVP: dict = {}  # cond, while_loop, scan_loop (control.py), host (host.py)


def jvp(fun, primals, tangents):
    """``(fun(*primals), J·tangents)``: forward-mode derivative (JAX's ``jax.jvp``).

    ``primals`` and ``tangents`` are tuples with the same structure, shapes and dtypes."""
    from . import pytree
    from .ad import as_leaves, trace_function

    if not callable(fun):
        raise TypeError(f"wt.jvp: expected a function, got {fun!r}")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("wt.jvp: primals and tangents must be tuples (one entry per argument "
                        "of the function), e.g. wt.jvp(f, (x,), (v,))")
    leaves, in_tree = as_leaves(tuple(primals), "jvp", "primals")
    t_leaves, t_tree = as_leaves(tuple(tangents), "jvp", "tangents")
    if t_tree != in_tree:
        raise TypeError(f"wt.jvp: tangents must have the primals' structure {in_tree}, got "
                        f"{t_tree}")
    for k, (p, t) in enumerate(zip(leaves, t_leaves)):
        if p.shape != t.shape:
            raise ValueError(f"wt.jvp: tangent {k} has shape {t.shape}, but its primal has "
                             f"shape {p.shape}")
        if p.dtype.kind in "fc" and t.dtype is not p.dtype:
            raise TypeError(f"wt.jvp: tangent {k} is {t.dtype.name}, but its primal is "
                            f"{p.dtype.name}; tangents have their primal's dtype")
    traced = trace_function(fun, leaves, in_tree, "jvp")
    tans = [t if p.dtype.kind in "fc" else None for p, t in zip(leaves, t_leaves)]
    fw = Forward(traced.graph, leaves + traced.captures, tans + [None] * len(traced.captures))
    outs, out_t = fw.run()
    out_t = [_c.zeros_like(o) if t is None else _finish_tangent(o, t)
             for o, t in zip(outs, out_t)]
    return pytree.unflatten(traced.out_tree, outs), pytree.unflatten(traced.out_tree, out_t)


def _finish_tangent(out: Tensor, t: Tensor) -> Tensor:
    t = cast(t, out.dtype, weak=out.weak)
    return Tensor._wrap(t._data, t.shape, t.dtype, t.device, strides=t.strides,
                        offset=t.offset, weak=out.weak, names=out.names)
