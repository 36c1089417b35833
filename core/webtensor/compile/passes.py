"""Graph rewrites before execution, each exact (the program's results keep every bit):

* dead-code elimination: nodes whose results nobody reads;
* common subexpressions: a node identical to an earlier one (same primitive, parameters and
  input views) reuses its result;
* constants: ``fill`` results, and exact elementwise ops whose inputs are all literals, become
  literals (read through stride-0 views, so they ride in a kernel's uniform block);
* aliases: ``copy`` of a view, ``x * 1``, ``x + (-0.0)``, ``x - 0.0``, ``-(-x)``: consumers read
  the input through the composed view instead, when the two views compose into one.

Values that leave the program (outputs, written-back arguments) and bases of partial writes are
never replaced, so results stay fresh dense tensors as in eager execution.  Not ``x * 0 -> 0``
(NaN and infinities), and no folding of ops whose last bit may differ between devices.
"""

from __future__ import annotations

from .. import shape as _s
from .ir import Graph, Node, Value, View


def optimize(graph: Graph) -> Graph:
    return dead_code(simplify(dead_code(graph)))


def dead_code(graph: Graph) -> Graph:
    """Drop nodes whose results reach neither an output, a write-back nor a live node."""
    live = {v.value.id for v in graph.outputs}
    live |= {final.id for _, final in graph.mutated}
    kept = []
    for node in reversed(graph.nodes):
        if any(v.id in live for v in node.results):
            kept.append(node)
            for v in node.read_values():
                live.add(v.id)
    kept.reverse()
    if len(kept) == len(graph.nodes):
        return graph
    return Graph(graph.inputs, kept, graph.outputs, graph.mutated, graph.consts,
                 graph.in_avals, graph.fun_name)


# -- views ------------------------------------------------------------------------------------

def compose(inner: View, outer: View) -> View | None:
    """The view of ``inner.value`` that reading ``outer`` (a view of the dense value ``inner``
    was copied into) amounts to, or None when it is not one strided view."""
    shape_c = inner.shape
    cs = _s.contiguous_strides(shape_c)
    if outer.shape == shape_c and outer.dense:
        return View(inner.value, outer.shape, inner.strides, inner.offset, outer.weak,
                    outer.names)
    if _s.is_contiguous(shape_c, inner.strides) or _s.size_of(shape_c) <= 1:
        # the copy holds a contiguous stretch of the source in the same order
        if _s.size_of(shape_c) <= 1:
            strides = tuple(0 for _ in outer.strides)
            return View(inner.value, outer.shape, strides, inner.offset, outer.weak,
                        outer.names)
        return View(inner.value, outer.shape, outer.strides, inner.offset + outer.offset,
                    outer.weak, outer.names)
    # general: each dimension of ``outer`` walks one dimension of the copy (or is broadcast)
    rem = outer.offset
    start = []
    for s in cs:
        q, rem = divmod(rem, s) if s else (0, rem)
        start.append(q)
    if rem:
        return None
    offset = inner.offset + sum(i * s for i, s in zip(start, inner.strides))
    strides = []
    used = set()
    for n, st in zip(outer.shape, outer.strides):
        if st == 0 or n == 1:
            strides.append(0)
            continue
        found = None
        for d, c in enumerate(cs):
            if d in used or shape_c[d] == 1 or st % c:
                continue
            step = st // c
            if 0 <= start[d] + step * (n - 1) < shape_c[d]:  # the walk stays in dimension d
                found = (d, step)
                break
        if found is None:
            return None
        d, step = found
        used.add(d)
        strides.append(step * inner.strides[d])
    return View(inner.value, outer.shape, tuple(strides), offset, outer.weak, outer.names)


def _literal_view(lit: Value, outer: View) -> View:
    return View(lit, outer.shape, (0,) * len(outer.shape), 0, outer.weak, outer.names)


# -- simplification ----------------------------------------------------------------------------

_IDENTITY_OPS = {  # binary op -> (literal that makes it the identity, which side may hold it)
    "multiply": (1, (0, 1)), "add": (-0.0, (0, 1)), "subtract": (0.0, (1,)),
}
# elementwise ops folded on the host: exact everywhere (no rounding differences between
# devices; float results are checked to be normal or zero)
_FOLDABLE = {"negative", "positive", "add", "subtract", "multiply", "equal", "not_equal",
             "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
             "logical_not", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "abs",
             "maximum", "minimum"}


def simplify(graph: Graph) -> Graph:
    pinned = {v.value.id for v in graph.outputs} | {f.id for _, f in graph.mutated}
    bases = {n.base.id for n in graph.nodes if n.base is not None}
    keep_dense = pinned | bases
    # value id -> function(view of that value) -> replacement view or None
    subst: dict = {}
    seen: dict = {}
    nodes = []
    for node in graph.nodes:
        node = _rewrite_reads(node, subst)
        nodes.append(node)
        if node.wpos is None:  # control flow and host calls: several fresh results
            continue
        result = node.results[0]
        if result.id in keep_dense:
            continue
        key = _key(node)
        if key is not None:
            first = seen.get(key)
            if first is not None:
                subst[result.id] = _same_as(first)
                continue
            seen[key] = result
        lit = _literal_of(node)
        if lit is not None:
            subst[result.id] = lambda w, lit=lit: _literal_view(lit, w)
            continue
        alias = _alias_of(node)
        if alias is not None:
            subst[result.id] = lambda w, inner=alias: compose(inner, w)
    if not subst:
        return graph
    return Graph(graph.inputs, nodes, graph.outputs, graph.mutated, graph.consts, graph.in_avals,
                 graph.fun_name)


def _same_as(value: Value):
    return lambda w: View(value, w.shape, w.strides, w.offset, w.weak, w.names)


def _rewritten(view: View, subst) -> View:
    while True:
        fn = subst.get(view.value.id)
        if fn is None:
            return view
        new = fn(view)
        if new is None:
            return view
        view = new


def _rewrite_reads(node: Node, subst) -> Node:
    changed = False
    args = list(node.args)
    for i, a in enumerate(args):
        if i != node.wpos and isinstance(a, View) and a.value.id in subst:
            new = _rewritten(a, subst)
            if new is not a:
                args[i] = new
                changed = True
    if not changed:
        return node
    return Node(node.prim, tuple(args), node.wpos, node.base, node.results, node.device,
                dict(node.params))


def _key(node: Node):
    """A hashable description of what the node computes (None: do not merge)."""
    if node.params.get("stop_gradient"):
        return None
    parts = [node.prim, node.base.id if node.base is not None else None, node.device]
    for i, a in enumerate(node.args):
        if i == node.wpos:
            w = a
            parts.append(("out", w.shape, w.strides, w.offset, w.dtype, w.weak))
        elif isinstance(a, View):
            v = a.value
            # literals compare by value (repr keeps -0.0 apart from 0.0 and NaN equal to NaN)
            ident = ("lit", v.dtype, repr(v.payload)) if v.kind == "lit" else v.id
            parts.append((ident, a.shape, a.strides, a.offset))
        else:
            try:
                hash(a)
            except TypeError:
                return None
            parts.append((type(a), a))
    if node.params:
        parts.append(tuple(sorted((k, repr(v)) for k, v in node.params.items())))
    return tuple(parts)


def _literal_of(node: Node):
    """A literal Value equal to every element the node writes, or None."""
    if node.base is not None or not node.written.dense:
        return None
    result = node.results[0]
    if node.prim == "fill":
        from .trace import _canonical

        return Value(result.dtype, (), result.device, "lit",
                     payload=_canonical(result.dtype, node.args[1]))
    if node.prim not in ("unary", "binary", "cast", "where") or \
            (node.prim in ("unary", "binary") and node.op not in _FOLDABLE):
        return None
    reads = list(node.reads())
    if not reads or any(v.value.kind != "lit" for v in reads):
        return None
    return _fold(node, reads, result)


def _fold(node, reads, result):
    from ..device import cpu
    from ..tensor import Tensor

    real = cpu._real_backend()
    args = []
    for i, a in enumerate(node.args):
        if i == node.wpos:
            out = Tensor._wrap(real.alloc(result.dtype, 1), (), result.dtype, cpu)
            args.append(out)
        elif isinstance(a, View):
            v = a.value
            args.append(Tensor._wrap(real.from_values(v.dtype, [v.payload]), (), v.dtype, cpu))
        else:
            args.append(a)
    getattr(real, node.prim)(*args)
    value = real.to_values(args[node.wpos])[0]
    if isinstance(value, complex) or isinstance(value, float) and value == value and \
            0.0 < abs(value) < 1.2e-38:
        return None  # complex, or a subnormal result: some adapters flush those
    return Value(result.dtype, (), result.device, "lit", payload=value)


def _alias_of(node: Node):
    """The input view the node's output equals element for element, or None."""
    result = node.results[0]
    if node.base is not None or not node.written.dense:
        return None
    if node.prim == "copy":
        (x,) = list(node.reads())
        return x if x.dtype is result.dtype else None
    if node.prim == "binary" and node.op in _IDENTITY_OPS:
        unit, sides = _IDENTITY_OPS[node.op]
        a, b = list(node.reads())
        for side in sides:
            lit, other = (a, b) if side == 0 else (b, a)
            if lit.value.kind == "lit" and other.dtype is result.dtype and \
                    _is_unit(lit.value.payload, unit, result.dtype) and \
                    other.shape == node.written.shape:
                return other
    return None


def _is_unit(payload, unit, dtype) -> bool:
    """``payload`` is the op's identity element: for floats with the right sign of zero
    (x + (-0.0) is x for every x, x + 0.0 is not for x = -0.0)."""
    import math

    if dtype.kind in "iu":
        return payload == int(unit)
    if dtype.kind != "f" or payload != unit:
        return False
    return math.copysign(1.0, payload) == math.copysign(1.0, unit)
