"""Graph rewrites before execution: dead-code elimination (nodes whose results nobody reads)."""

from __future__ import annotations

from .ir import Graph


def optimize(graph: Graph) -> Graph:
    return dead_code(graph)


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
