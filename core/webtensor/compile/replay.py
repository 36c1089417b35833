"""Replaying a graph as ordinary calls: each node calls ``device.backend.<primitive>`` again.

Outside any trace this computes (eager); inside one it records the same nodes into the active
trace.  So a traced function's graph can be inlined into another program, differentiated (the
forward values autodiff needs are the replayed tensors), or batched (``vmap`` replays with a
batch axis).  ``Replay.tensor(view)`` is the tensor a node's input view denotes.
"""

from __future__ import annotations

from ..tensor import Tensor, empty
from .ir import Graph, Node, Value, View


class Replay:
    """Replays ``graph`` on ``inputs`` (tensors for ``graph.inputs``, in order)."""

    def __init__(self, graph: Graph, inputs, device=None):
        self.graph = graph
        self.device = device
        # value id -> a dense tensor holding it (shape: the value's shape)
        self.values: dict[int, Tensor] = {}
        for value, t in zip(graph.inputs, inputs):
            self.values[value.id] = _dense_of(t, value)

    # -- values and views ------------------------------------------------------------------
    def value(self, value: Value) -> Tensor:
        found = self.values.get(value.id)
        if found is None:
            found = self.values[value.id] = self._leaf(value)
        return found

    def _leaf(self, value: Value) -> Tensor:
        backend = value.device.backend
        if value.kind == "lit":
            data = backend.from_values(value.dtype, [value.payload])
        elif value.kind == "const" and isinstance(value.payload, tuple):
            kind, payload = value.payload
            data = backend.from_values(value.dtype, payload) if kind == "values" \
                else backend.from_bytes(value.dtype, payload)
        elif value.kind == "const":
            data = value.payload  # a captured buffer, by reference
        elif value.kind == "empty":
            data = backend.alloc(value.dtype, value.size)
        else:  # pragma: no cover - node values are made by their nodes first
            raise AssertionError(f"replay reached {value!r} before its node")
        return Tensor._wrap(data, value.shape, value.dtype, value.device)

    def tensor(self, view: View) -> Tensor:
        """The tensor the view denotes (a strided view over the value's tensor)."""
        base = self.value(view.value)  # dense, offset 0: the view's geometry applies as is
        return Tensor._wrap(base._data, view.shape, view.dtype, base.device,
                            strides=view.strides, offset=view.offset, weak=view.weak,
                            names=view.names)

    # -- running ---------------------------------------------------------------------------
    def run(self) -> list[Tensor]:
        for node in self.graph.nodes:
            self.node(node)
        return [self.tensor(v) for v in self.graph.outputs]

    def node(self, node: Node) -> None:
        if node.prim in CONTROL_REPLAY:
            outs = CONTROL_REPLAY[node.prim](self, node)
            for v, t in zip(node.results, outs):
                self.values[v.id] = _dense_of(t, v)
            return
        result = node.results[0]
        device = result.device
        backend = device.backend
        w = node.written
        buf = empty(result.shape, result.dtype, device)
        if node.base is not None:
            base = self.value(node.base)
            backend.copy(buf, Tensor._wrap(base._data, result.shape, base.dtype, device))
        out = Tensor._wrap(buf._data, w.shape, w.dtype, device, strides=None if w.dense else
                           w.strides, offset=w.offset)
        args = [self.tensor(a) if isinstance(a, View) and i != node.wpos else a
                for i, a in enumerate(node.args)]
        fresh = node.prim not in ("assign", "scatter")
        if fresh and not w.dense:
            tmp = empty(w.shape, w.dtype, device)
            args[node.wpos] = tmp
            getattr(backend, node.prim)(*args)
            backend.assign(out, tmp)
        else:
            args[node.wpos] = out
            getattr(backend, node.prim)(*args)
        self.values[result.id] = buf


def _copy_dense(t: Tensor) -> Tensor:
    out = empty(t.shape, t.dtype, t.device)
    t.device.backend.copy(out, t)
    return out


def _dense_of(t: Tensor, value: Value) -> Tensor:
    """``t`` as a dense tensor of ``value``'s shape (copied when it is a strided view)."""
    if t.offset == 0 and t.is_contiguous and t.size == value.size and \
            t.device.backend.buffer_size(t._data, t.dtype) == value.size:
        return t if t.shape == value.shape else Tensor._wrap(t._data, value.shape, t.dtype,
                                                             t.device)
    out = _copy_dense(t)
    return Tensor._wrap(out._data, value.shape, t.dtype, t.device)


def inline(graph: Graph, inputs) -> list[Tensor]:
    """Run (or, inside a trace, record) ``graph`` on ``inputs``; its output tensors."""
    return Replay(graph, inputs).run()


# prim -> fn(replay, node) -> output tensors (control.py: cond, while, scan; host.py: host)
CONTROL_REPLAY: dict = {}
