"""Kernel fusion: which elementwise nodes of a graph run together as one kernel.

A backend says which nodes it can fuse (``fusable``) and how many buffers one kernel may bind
(``max_bindings``: WebGPU's ``maxStorageBuffersPerShaderStage``, 8 by default).  The partition
is greedy, in program order:

* a node joins the group of the first producer it reads through the identity view (same shape,
  dense), so the value never leaves registers; any other view of a group's value (a broadcast,
  a transpose, a slice) needs that value materialized, so the reader starts a new group;
* groups stay convex: a node may not join a group that one of its other inputs depends on
  (that input would have to be computed in the middle of the kernel);
* two groups that a node reads through identity views merge into one when each reads the
  other only through identity views and the merged group stays convex (``x < 0`` and
  ``x + n`` feeding ``where``);
* a group binds its external inputs (literals ride in the uniform block and bind nothing) and
  writes every member value used outside it; joining is refused past ``max_bindings``.

The result is the graph's node list with each group of two or more nodes replaced by one
:class:`Group` node, scheduled where all its inputs are ready.  Single nodes stay as they are
(they run the backend's own cached kernel).

A backend that can also fuse around reductions and matmuls (``anchorable``) then gets
:class:`Anchored` nodes: the group computing a reduction's input (its *prologue*: the reduction
loads the group's inputs and computes each element in registers, the input is never stored)
and the group consuming a reduction's or a matmul's result (its *epilogue*: computed as each
result is stored), for ``sum(x * y)``, ``sqrt(sum(x ** 2))``, ``sum(x) / n`` or
``relu(x @ w + b)``.
"""

from __future__ import annotations

import heapq
from itertools import count

from .. import shape as _s
from .ir import Graph, Node, View

_group_ids = count()


class Group(Node):
    """Several elementwise nodes computed by one kernel (``prim == "fused"``).

    ``inputs``: the views it reads from outside (literal views included, in first-use order);
    ``results``: the member values it writes (used outside the group, or graph outputs).
    """

    __slots__ = ("id", "members", "shape", "inputs")

    def __init__(self, shape):
        super().__init__("fused", (), None, None, (), None)
        self.id = next(_group_ids)
        self.members: list[Node] = []
        self.shape = shape
        self.inputs: list[View] = []

    def reads(self):
        yield from self.inputs

    def read_values(self):
        return [v.value for v in self.inputs]

    def __repr__(self) -> str:
        return f"<Group {self.id}: {', '.join(n.prim + '.' + str(n.op) for n in self.members)}>"


class Anchored(Node):
    """A reduction or a matmul (the *anchor*) with its prologue and/or epilogue group
    (``prim``: ``"fused_reduce"``, ``"fused_matmul"``).

    ``anchor``: the reduction or matmul node; ``prologue`` (reductions only): the group computing the reduction's input (or
    None); ``stored``: the prologue's values also used elsewhere, which the first pass stores
    (each element is folded exactly once there); ``epilogue``: a group of the result's shape
    that reads the result only through dense views (or None).  ``results``: the reduction's
    result, the stored values, then the epilogue's.
    """

    __slots__ = ("prologue", "anchor", "epilogue", "stored")

    def __init__(self, prologue, anchor: Node, epilogue, stored=()):
        results = ((anchor.results[0],) + tuple(stored)
                   + (epilogue.results if epilogue is not None else ()))
        super().__init__("fused_" + anchor.prim, (), None, None, results, anchor.device)
        self.prologue = prologue
        self.anchor = anchor
        self.epilogue = epilogue
        self.stored = tuple(stored)

    @property
    def result(self):
        return self.anchor.results[0]

    def reads(self):
        if self.prologue is not None:
            yield from self.prologue.inputs
        else:
            yield from self.anchor.reads()
        if self.epilogue is not None:
            mine = self.result.id
            for view in self.epilogue.inputs:
                if view.value.id != mine:
                    yield view

    def read_values(self):
        return [v.value for v in self.reads()]

    def __repr__(self) -> str:
        return f"<Anchored {self.anchor.prim} {self.anchor.op or ''}>"


def _as_group(node: Node, fusable) -> Group | None:
    """``node`` as a group: itself if it is one, a group of one for a fusable node."""
    if isinstance(node, Group):
        return node
    if not fusable(node):
        return None
    g = Group(_out_shape(node))
    g.members.append(node)
    seen = set()
    for view in node.reads():
        key = (view.value.id, view.shape, view.strides, view.offset)
        if key not in seen:
            seen.add(key)
            g.inputs.append(view)
    g.results = tuple(node.results)
    g.device = node.device
    return g


def _covers_once(view: View) -> bool:
    """The view walks every element of its value exactly once (a permutation of it)."""
    dims = sorted(((st, n) for n, st in zip(view.shape, view.strides) if n != 1), reverse=True)
    expect = 1
    for st, n in reversed(dims):
        if st != expect:
            return False
        expect *= n
    return view.offset == 0 and expect == view.value.size


def _bindings(views) -> int:
    return len({v.value.id for v in views if v.value.kind != "lit"})


ANCHORS = ("reduce", "matmul")


def absorb_around(graph: Graph, units: list, fusable, anchorable, max_bindings) -> list:
    """``units`` (a partition's schedule) with each reduction merged with the group producing
    its input, and each reduction or matmul with the group consuming its result, where the
    backend can (``anchorable``) and it is legal: values the prologue computes are stored if
    used elsewhere (only after the reduction), the epilogue reads the result through dense
    views only and nothing made after the anchor, and kernels stay within the binding limit."""
    pinned = {v.value.id for v in graph.outputs} | {final.id for _, final in graph.mutated}
    producer: dict[int, int] = {}
    readers: dict[int, list[int]] = {}
    for k, u in enumerate(units):
        for r in u.results:
            producer[r.id] = k
        for v in u.read_values():
            readers.setdefault(v.id, []).append(k)
    replaced: dict[int, Node | None] = {}  # unit index -> its new unit (None: gone)
    for k, unit in enumerate(units):
        if unit.prim not in ANCHORS or k in replaced or not anchorable(unit, None, None):
            continue
        w = unit.results[0]
        prologue, stored, p = None, (), None
        if unit.prim == "reduce":
            (xview,) = unit.reads()
            x = xview.value
            p = producer.get(x.id)
        g = None if p is None or p in replaced else _as_group(units[p], fusable)
        if g is not None and x.id in {r.id for r in g.results}:
            # values the group must still store: used elsewhere, each only after the reduction
            stored = tuple(r for r in g.results if r.id in pinned
                           or set(readers.get(r.id, ())) - {k})
            if all(min(set(readers.get(r.id, ())) - {k}, default=k + 1) > k for r in stored) \
                    and (not stored or _covers_once(xview)):
                prologue = g
            else:
                stored = ()
        epilogue, e = None, None
        later = sorted(set(readers.get(w.id, ())))
        if later and later[0] not in replaced:
            g = _as_group(units[later[0]], fusable)
            # dense views (a reshape, keepdims) keep the result's C order: element i of the
            # group is result i
            if (g is not None and _s.size_of(g.shape) == w.size
                    and all(v.dense for m in g.members for v in m.reads()
                            if v.value.id == w.id)
                    and all(producer.get(v.value.id, -1) < k for v in g.inputs
                            if v.value.id != w.id)):
                epilogue, e = g, later[0]
        for pro, epi in ((prologue, epilogue), (prologue, None), (None, epilogue)):
            st = stored if pro is not None else ()
            if (pro is None and epi is None) or not anchorable(unit, pro, epi, st):
                continue
            if pro is not None and epi is not None and any(
                    v.value.id in {m.results[0].id for m in pro.members} for v in epi.inputs):
                continue  # the epilogue (last pass) cannot read what the first pass stores
            ins = list(pro.inputs if pro is not None else unit.reads())
            outs = 1 + len(st)
            if epi is not None:
                ins += [v for v in epi.inputs if v.value.id != w.id]
                outs += len(epi.results)
            if _bindings(ins) + outs > max_bindings:
                continue
            # at the reduction's place: the epilogue reads nothing made after it
            replaced[k] = Anchored(pro, unit, epi, st)
            if pro is not None:
                replaced[p] = None
            if epi is not None:
                replaced[e] = None
            break
    if not replaced:
        return units
    return [replaced.get(k, u) for k, u in enumerate(units) if replaced.get(k, u) is not None]


def _out_shape(node: Node):
    return node.results[0].shape


def _may_join(group: Group, node: Node, group_of, depends) -> bool:
    """``node`` reads ``group``'s values only through identity views, and none of its other
    inputs depends on the group (the group would not be convex)."""
    for view in node.reads():
        g = group_of.get(view.value.id)
        if g is group:
            if not view.identity:
                return False
        elif group.id in depends.get(view.value.id, frozenset()):
            return False
    return True


def _may_merge(group: Group, other: Group, group_of, depends) -> bool:
    """Whether two groups may become one: each reads the other's values only through identity
    views (a member's value is a register, not an array), and no path leaves either and
    enters the other (every outside value one reads is independent of the other group)."""
    for a, b in ((group, other), (other, group)):
        for n in a.members:
            for view in n.reads():
                g = group_of.get(view.value.id)
                if g is b:
                    if not view.identity:
                        return False
                elif g is not a and b.id in depends.get(view.value.id, frozenset()):
                    return False
    return True


def partition(graph: Graph, fusable, max_bindings: int) -> list[Node]:
    """The graph's nodes with fusable chains replaced by :class:`Group` nodes."""
    consumers: dict[int, list[Node]] = {}
    for node in graph.nodes:
        for v in node.read_values():
            consumers.setdefault(v.id, []).append(node)
    pinned = {v.value.id for v in graph.outputs} | {final.id for _, final in graph.mutated}

    order = {id(n): k for k, n in enumerate(graph.nodes)}
    group_of: dict[int, Group] = {}  # member value id -> its group
    node_group: dict[int, Group] = {}  # id(node) -> group
    depends: dict[int, frozenset] = {}  # value id -> groups upstream of it
    groups: list[Group] = []

    def deps_of(node) -> frozenset:
        out = frozenset()
        for v in node.read_values():
            out |= depends.get(v.id, frozenset())
        return out

    def bindings(members: list[Node]) -> int:
        """The buffers one kernel of ``members`` binds."""
        inside = {id(n) for n in members}
        values = {r.id for n in members for r in n.results}
        ins = set()
        for n in members:
            for view in n.reads():
                if view.value.id not in values and view.value.kind != "lit":
                    ins.add(view.value.id)
        outs = 0
        for n in members:
            r = n.results[0]
            if r.id in pinned or any(id(c) not in inside for c in consumers.get(r.id, ())):
                outs += 1
        return len(ins) + outs

    for node in graph.nodes:
        if not fusable(node):
            d = deps_of(node)
            for r in node.results:
                depends[r.id] = d
            continue
        shape = _out_shape(node)
        candidate = None
        for view in node.reads():  # the first group this node may legally join
            g = group_of.get(view.value.id)
            if g is not None and g is not candidate and g.shape == shape and view.identity \
                    and _may_join(g, node, group_of, depends) \
                    and bindings(g.members + [node]) <= max_bindings:
                candidate = g
                break
        if candidate is None:
            candidate = Group(shape)
            groups.append(candidate)
        candidate.members.append(node)
        node_group[id(node)] = candidate
        for r in node.results:
            group_of[r.id] = candidate
            depends[r.id] = deps_of(node) | {candidate.id}
        # Sibling groups this node also reads (``where(x < 0, x + n, x)``: the comparison and
        # the sum start separate groups) join it, where that keeps one kernel possible.
        for view in node.reads():
            other = group_of.get(view.value.id)
            if other is None or other is candidate or other.shape != shape \
                    or not view.identity or not _may_merge(candidate, other, group_of, depends) \
                    or bindings(candidate.members + other.members) > max_bindings:
                continue
            members = candidate.members + other.members
            candidate.members[:] = sorted(members, key=lambda n: order[id(n)])
            groups.remove(other)
            for n in other.members:
                node_group[id(n)] = candidate
                for r in n.results:
                    group_of[r.id] = candidate
            for key, ids in depends.items():
                if other.id in ids:
                    depends[key] = (ids - {other.id}) | {candidate.id}

    # Finish each group: its external inputs and the values it must write.
    for g in groups:
        inside = {id(n) for n in g.members}
        member_values = {n.results[0].id for n in g.members}
        seen = set()
        for n in g.members:
            for view in n.reads():
                key = (view.value.id, view.shape, view.strides, view.offset)
                if view.value.id not in member_values and key not in seen:
                    seen.add(key)
                    g.inputs.append(view)
        g.results = tuple(n.results[0] for n in g.members
                          if n.results[0].id in pinned
                          or any(id(c) not in inside for c in consumers.get(n.results[0].id, ())))
        g.device = g.members[0].device

    return _schedule(graph.nodes, node_group)


def _schedule(nodes, node_group) -> list[Node]:
    """Topological order of the condensed graph (groups as units), program order first."""
    units: list = []
    unit_of: dict[int, object] = {}
    for node in nodes:
        g = node_group.get(id(node))
        if g is None or len(g.members) == 1:
            units.append(node)
            unit_of[id(node)] = node
        elif g.members[0] is node:
            units.append(g)
            for m in g.members:
                unit_of[id(m)] = g
    producer: dict[int, object] = {}
    for node in nodes:
        for r in node.results:
            producer[r.id] = unit_of[id(node)]
    position = {id(u): k for k, u in enumerate(units)}
    waiting: dict[int, int] = {}
    users: dict[int, list] = {}
    for u in units:
        d = set()
        for v in u.read_values():
            p = producer.get(v.id)
            if p is not None and p is not u:
                d.add(id(p))
        waiting[id(u)] = len(d)
        for p in d:
            users.setdefault(p, []).append(u)
    ready = [(position[id(u)], u) for u in units if not waiting[id(u)]]
    heapq.heapify(ready)
    order: list = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(u)
        for w in users.get(id(u), ()):
            waiting[id(w)] -= 1
            if not waiting[id(w)]:
                heapq.heappush(ready, (position[id(w)], w))
    assert len(order) == len(units), "fusion produced a cycle"  # convexity rules it out
    return [u.members[0] if isinstance(u, Group) and len(u.members) == 1 else u
            for u in order]


def fused_graph(graph: Graph, fusable, max_bindings: int, anchorable=None) -> Graph:
    """A copy of ``graph`` whose nodes are the partition's units (reductions and matmuls merged
    with their prologue and epilogue groups where ``anchorable`` says the backend can)."""
    nodes = partition(graph, fusable, max_bindings)
    if anchorable is not None:
        nodes = absorb_around(graph, nodes, fusable, anchorable, max_bindings)
    return Graph(graph.inputs, nodes, graph.outputs, graph.mutated, graph.consts,
                 graph.in_avals, graph.fun_name)


__all__ = ["ANCHORS", "Anchored", "Group", "absorb_around", "fused_graph", "partition"]
