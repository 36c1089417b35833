"""Kernel fusion: which elementwise nodes of a graph run together as one kernel.

A backend says which nodes it can fuse (``fusable``) and how many buffers one kernel may bind
(``max_bindings``: WebGPU's ``maxStorageBuffersPerShaderStage``, 8 by default).  The partition
is greedy, in program order:

* a node joins the group of the first producer it reads through the identity view (same shape,
  dense), so the value never leaves registers; any other view of a group's value (a broadcast,
  a transpose, a slice) needs that value materialized, so the reader starts a new group;
* groups stay convex: a node may not join a group that one of its other inputs depends on
  (that input would have to be computed in the middle of the kernel);
* a group binds its external inputs (literals ride in the uniform block and bind nothing) and
  writes every member value used outside it; joining is refused past ``max_bindings``.

The result is the graph's node list with each group of two or more nodes replaced by one
:class:`Group` node, scheduled where all its inputs are ready.  Single nodes stay as they are
(they run the backend's own cached kernel).
"""

from __future__ import annotations

import heapq
from itertools import count

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


def partition(graph: Graph, fusable, max_bindings: int) -> list[Node]:
    """The graph's nodes with fusable chains replaced by :class:`Group` nodes."""
    consumers: dict[int, list[Node]] = {}
    for node in graph.nodes:
        for v in node.read_values():
            consumers.setdefault(v.id, []).append(node)
    pinned = {v.value.id for v in graph.outputs} | {final.id for _, final in graph.mutated}

    group_of: dict[int, Group] = {}  # member value id -> its group
    node_group: dict[int, Group] = {}  # id(node) -> group
    depends: dict[int, frozenset] = {}  # value id -> groups upstream of it
    groups: list[Group] = []

    def deps_of(node) -> frozenset:
        out = frozenset()
        for v in node.read_values():
            out |= depends.get(v.id, frozenset())
        return out

    def bindings(group: Group, extra: Node | None) -> int:
        members = group.members + ([extra] if extra is not None else [])
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
                    and bindings(g, node) <= max_bindings:
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


def fused_graph(graph: Graph, fusable, max_bindings: int) -> Graph:
    """A copy of ``graph`` whose nodes are the partition's units."""
    nodes = partition(graph, fusable, max_bindings)
    return Graph(graph.inputs, nodes, graph.outputs, graph.mutated, graph.consts,
                 graph.in_avals, graph.fun_name)


__all__ = ["Group", "fused_graph", "partition"]
