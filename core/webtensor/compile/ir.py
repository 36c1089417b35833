"""The program representation: SSA values, strided views of them, and primitive nodes.

A node is one call of a backend primitive (``backends/base.py``): ``unary``, ``binary``,
``reduce``, ``matmul``... with the same arguments eager mode passes, except that tensors are
replaced by :class:`View` objects.  So an unfused node runs by calling the very method eager
mode calls, and eager mode is the reference semantics of every compiled result.

* A :class:`Value` is one dense buffer of ``size`` elements of ``dtype``, written once.  Where a
  program writes into an existing buffer (``x[i] = v``, ``scatter``), the write produces a new
  value; the tracer's buffer cell then points at it, so later reads see the new version.
* A :class:`View` is how a node reads a value: shape, strides (elements) and offset, plus the
  tensor-level facts the API attached (weak flag, axis names) for printing.  Movement
  (reshape, transpose, broadcast, slicing, flips) is views, never nodes.
* Values come from graph inputs, constants (captured tensors, ``asarray`` data), literals
  (Python scalars the API turned into 0-d tensors) or nodes.
"""

from __future__ import annotations

from itertools import count

from .. import shape as _s

_ids = count()


class Value:
    """A dense buffer written once: ``kind`` is input | const | lit | node.

    ``shape`` is the shape it was made with (the buffer itself is flat: views give shapes).
    """

    __slots__ = ("id", "dtype", "shape", "size", "device", "kind", "payload", "producer",
                 "name")

    def __init__(self, dtype, shape, device, kind: str, payload=None, producer=None):
        self.id = next(_ids)
        self.dtype = dtype
        self.shape = tuple(shape)
        self.size = _s.size_of(self.shape)
        self.device = device
        self.kind = kind
        # input: position among the graph inputs; const: (backend buffer | bytes | list);
        # lit: the Python scalar (already converted to dtype); node: None
        self.payload = payload
        self.producer = producer
        self.name = None  # assigned when the graph is printed

    def __repr__(self) -> str:
        return f"<Value {self.id} {self.kind} {self.dtype.short}[{self.size}]>"


class View:
    """How a node reads (or writes) a value."""

    __slots__ = ("value", "shape", "strides", "offset", "weak", "names")

    def __init__(self, value: Value, shape, strides, offset, weak=False, names=None):
        self.value = value
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.weak = weak
        self.names = names

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def dense(self) -> bool:
        """The view is exactly its whole value in C order."""
        return (self.offset == 0 and _s.size_of(self.shape) == self.value.size
                and _s.is_contiguous(self.shape, self.strides))

    @property
    def identity(self) -> bool:
        """The view is its value exactly as it was made (same shape, dense)."""
        return self.shape == self.value.shape and self.dense

    def kind(self) -> str:
        """A human word for the view (what a teacher would call it); "" for the identity."""
        if self.dense:
            return "" if self.shape == self.value.shape else "reshape"
        if any(s == 0 and n > 1 for n, s in zip(self.shape, self.strides)):
            return "broadcast"
        if any(s < 0 for s in self.strides):
            return "flip"
        if _s.size_of(self.shape) == self.value.size and self.offset == 0:
            return "permute"
        return "slice"

    def __repr__(self) -> str:
        return f"<View of {self.value!r} {self.shape} {self.strides}+{self.offset}>"


class Node:
    """One primitive call.

    ``args`` is the primitive's positional arguments with tensors replaced by views; ``args[wpos]``
    is the tensor it writes (``out``, or ``target`` for ``assign``).  ``base`` is the value whose
    elements the write does not cover (None: the written view covers its whole buffer, or the
    buffer was never written before).  ``results`` are the values the node defines.
    Control-flow nodes (cond, while, scan) carry sub-graphs in ``params``.
    """

    __slots__ = ("prim", "args", "wpos", "base", "results", "device", "params")

    def __init__(self, prim: str, args: tuple, wpos, base, results, device, params=None):
        self.prim = prim
        self.args = args
        self.wpos = wpos
        self.base = base
        self.results = results
        self.device = device
        self.params = params or {}

    @property
    def op(self):
        """The op name of op-parameterized primitives (unary, binary, reduce, scan, ...)."""
        first = self.args[0] if self.args else None
        return first if isinstance(first, str) else None

    @property
    def written(self) -> View | None:
        return None if self.wpos is None else self.args[self.wpos]

    def reads(self):
        """Every view this node reads (its write target excluded; ``base`` included)."""
        for i, a in enumerate(self.args):
            if i != self.wpos and isinstance(a, View):
                yield a

    def read_values(self):
        seen = [v.value for v in self.reads()]
        if self.base is not None:
            seen.append(self.base)
        return seen

    def __repr__(self) -> str:
        return f"<Node {self.prim} {self.op or ''}>"


class Graph:
    """A traced program: inputs, nodes in execution order, output views.

    ``mutated`` lists (input position or const value, final value) pairs: buffers the program
    wrote into that existed before it ran; running it writes the final values back, as eager
    execution would have changed them.
    """

    __slots__ = ("inputs", "nodes", "outputs", "mutated", "consts", "in_avals", "fun_name")

    def __init__(self, inputs, nodes, outputs, mutated=(), consts=(), in_avals=(),
                 fun_name="fun"):
        self.inputs = list(inputs)
        self.nodes = list(nodes)
        self.outputs = list(outputs)
        self.mutated = list(mutated)
        self.consts = list(consts)
        self.in_avals = list(in_avals)
        self.fun_name = fun_name

    def values(self):
        seen = {}
        for v in self.inputs:
            seen[v.id] = v
        for node in self.nodes:
            for v in node.read_values():
                seen.setdefault(v.id, v)
            for v in node.results:
                seen.setdefault(v.id, v)
        for view in self.outputs:
            seen.setdefault(view.value.id, view.value)
        return list(seen.values())

    def __str__(self) -> str:
        from .printer import format_graph

        return format_graph(self)

    def fused(self, device=None) -> str:
        """How the program is split into kernels on ``device`` (default: the device it was
        traced on): one block per kernel, elementwise chains fused on WebGPU."""
        from .execute import lowering_for
        from .fuse import fused_graph
        from .printer import format_kernels

        if device is None:
            devices = [v.device for v in self.inputs] + [n.device for n in self.nodes]
            device = devices[0] if devices else None
        if device is None:
            from ..device import default_device

            device = default_device()
        elif isinstance(device, str):
            from ..device import as_device

            device = as_device(device, "Graph.fused")
        lowering = lowering_for(device._real_backend())
        graph = self
        if lowering is not None:
            graph = fused_graph(self, lowering.fusable,
                                lowering.max_bindings(device._real_backend()),
                                getattr(lowering, "anchorable", None))
        return format_kernels(self, graph, device)

    __repr__ = __str__
