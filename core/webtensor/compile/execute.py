"""Running a graph on a device, node by node, through the device's own backend.

Each node becomes one call of the backend method eager mode would have called, with the same
arguments; what eager mode pays per op in the API layer (argument parsing, promotion, shape
checks, building the output's description) was paid once, while tracing.  Buffers are freed
after their last use, and a write into a value nobody reads afterwards happens in place.

``Executable`` is what a jitted function caches per signature; the WebGPU device swaps the
elementwise chains of a graph for fused kernels before this runs (``fuse.py``).
"""

from __future__ import annotations

from ..backends.base import computes_in_float64
from ..tensor import Tensor
from .fuse import fused_graph
from .ir import Graph, Value, View
from .passes import dead_code

# Primitives whose ``out`` must be a fresh dense tensor: when the graph writes them into part
# of a buffer they run into a temporary that is then assigned.
_FRESH_OUT = frozenset({"copy", "fill", "iota", "cast", "unary", "binary", "where", "reduce",
                        "arg_reduce", "scan", "matmul", "gather", "sort", "argsort",
                        "random_bits", "window_reduce", "window_scatter"})


class Executable:
    """A graph prepared for one device: slots for its values and one step per node."""

    def __init__(self, graph: Graph, device, steps=None):
        self.device = device
        self.real = device._real_backend()
        self.lowering = lowering_for(self.real)
        graph = dead_code(graph)
        if self.lowering is not None:
            graph = fused_graph(graph, self.lowering.fusable,
                                self.lowering.max_bindings(self.real),
                                getattr(self.lowering, "anchorable", None))
        self.graph = graph
        self.slot: dict[int, int] = {}
        self.persistent: list[tuple[int, Value]] = []  # literals and constants, made once
        self.bound: list[tuple[int, Value]] = []  # captured buffers, bound by reference
        self.empties: list[tuple[int, Value]] = []
        self._cache: dict[int, object] = {}
        for v in graph.inputs:
            self._slot_of(v)
        nodes = graph.nodes
        self.last_use = _last_uses(graph)
        self.constant = _constant_nodes(graph) if steps is None else set()
        self.constant_values = {v.id for i in self.constant for v in nodes[i].results}
        self.steps = steps if steps is not None else [self._step(i, n) for i, n in
                                                      enumerate(nodes)]
        self.frees = _frees(graph, self.last_use, self.slot, len(nodes))
        # values computed from constants alone: computed on the first call, then kept
        self.hoisted = [(self.slot[v.id]) for i in sorted(self.constant)
                        for v in nodes[i].results]
        self._hoisted_ready = False
        self._hoisted_slots = frozenset(self.hoisted)
        self.outputs = [self._view_builder(v, keep_meta=True) for v in graph.outputs]
        self.n_slots = len(self.slot)

    # -- slots -----------------------------------------------------------------------------
    def _slot_of(self, value: Value) -> int:
        found = self.slot.get(value.id)
        if found is None:
            found = self.slot[value.id] = len(self.slot)
            if value.kind in ("lit", "const"):
                if value.kind == "const" and not isinstance(value.payload, tuple):
                    self.bound.append((found, value))
                else:
                    self.persistent.append((found, value))
            elif value.kind == "empty":
                self.empties.append((found, value))
        return found

    def _view_builder(self, view: View, keep_meta=False):
        slot = self._slot_of(view.value)
        shape, dtype, device = view.shape, view.dtype, self.device
        strides = None if view.dense else view.strides
        offset = view.offset
        weak = view.weak if keep_meta else False
        names = view.names if keep_meta else None
        wrap = Tensor._wrap

        def build(env):
            return wrap(env[slot], shape, dtype, device, strides=strides, offset=offset,
                        weak=weak, names=names)
        return build

    def _materialize(self, value: Value):
        real = self.real
        if value.kind == "lit":
            return real.from_values(value.dtype, [value.payload])
        kind, data = value.payload
        if kind == "values":
            return real.from_values(value.dtype, data)
        return real.from_bytes(value.dtype, data)

    # -- one node ----------------------------------------------------------------------------
    def _step(self, index: int, node):
        if node.prim in CONTROL:
            return CONTROL[node.prim](self, index, node)
        if node.prim == "fused":
            members = [self._step(index, m) for m in node.members]

            def one_by_one(env):
                for member in members:
                    member(env)
            return self.lowering.group_step(self, index, node, one_by_one)
        if node.prim in ("fused_reduce", "fused_matmul"):
            parts = [self._step(index, p) for p in (node.prologue, node.anchor, node.epilogue)
                     if p is not None]

            def parts_in_order(env):
                for part in parts:
                    part(env)
            return self.lowering.anchored_step(self, index, node, parts_in_order)
        real, device = self.real, self.device
        method = getattr(real, node.prim)
        if node.params.get("internal_float64"):
            method = computes_in_float64(method)
        builders = []
        for i, a in enumerate(node.args):
            if i == node.wpos:
                builders.append(None)
            elif isinstance(a, View):
                builders.append(self._view_builder(a))
            else:
                builders.append(a)
        wpos = node.wpos
        w = node.written
        result = node.results[0]
        out_slot = self._slot_of(result)
        dtype, size = result.dtype, result.size
        covers = w.dense
        base = node.base
        base_slot = None if base is None else self._slot_of(base)
        in_place = (base is not None and base.kind == "node"
                    and base.id not in self.constant_values  # a kept constant: never reused
                    and self.last_use.get(base.id) == index
                    and all(v.value is not base for v in node.reads()))
        out_strides = None if covers else w.strides
        w_shape, w_offset = w.shape, w.offset
        temp = not covers and node.prim in _FRESH_OUT
        flat = (size,)
        wrap = Tensor._wrap
        consts = tuple((i, b) for i, b in enumerate(builders) if not callable(b) and i != wpos)
        calls = tuple((i, b) for i, b in enumerate(builders) if callable(b))
        n_args = len(builders)

        def step(env):
            args = [None] * n_args
            for i, b in consts:
                args[i] = b
            for i, b in calls:
                args[i] = b(env)
            if base is None:
                buf = real.alloc(dtype, size)
            elif in_place:
                buf = env[base_slot]
            else:
                buf = real.alloc(dtype, size)
                real.copy(wrap(buf, flat, dtype, device), wrap(env[base_slot], flat, dtype,
                                                                device))
            out = wrap(buf, w_shape, dtype, device, strides=out_strides, offset=w_offset)
            if temp:
                tmp = wrap(real.alloc(dtype, out.size), w_shape, dtype, device)
                args[wpos] = tmp
                method(*args)
                real.assign(out, tmp)
            else:
                args[wpos] = out
                method(*args)
            env[out_slot] = buf
        return step

    # -- running -------------------------------------------------------------------------------
    def run(self, inputs: list) -> list:
        """Run on input buffers (dense, in graph input order); the environment of buffers."""
        with self.real.lock:  # a GPU program's dispatches go out as one, whatever the threads
            return self._run(inputs)

    def _run(self, inputs: list) -> list:
        env = [None] * self.n_slots
        for i, buf in enumerate(inputs):
            env[i] = buf
        cache = self._cache
        for slot, value in self.persistent:
            buf = cache.get(slot)
            if buf is None:
                buf = cache[slot] = self._materialize(value)
            env[slot] = buf
        for slot, value in self.bound:
            env[slot] = value.payload
        for slot, value in self.empties:
            env[slot] = self.real.alloc(value.dtype, value.size)
        frees = self.frees
        if self._hoisted_ready:
            for slot in self.hoisted:
                env[slot] = cache[("hoisted", slot)]
            constant = self.constant
        else:
            constant = ()
        for i, step in enumerate(self.steps):
            if i in constant:
                continue
            step(env)
            for slot in frees[i]:
                if slot not in self._hoisted_slots:
                    env[slot] = None
        if not self._hoisted_ready:
            for slot in self.hoisted:
                cache[("hoisted", slot)] = env[slot]
            self._hoisted_ready = True
        return env

    def __call__(self, args: list[Tensor]) -> list[Tensor]:
        """Run on argument tensors; the output tensors (and mutated arguments written back)."""
        real = self.real
        inputs = []
        for t in args:
            if not t._dense:
                if t.offset == 0 and t.is_contiguous and real.buffer_size(t._data, t.dtype) \
                        == t.size:
                    inputs.append(t._data)
                    continue
                dense = Tensor._wrap(real.alloc(t.dtype, t.size), t.shape, t.dtype, t.device)
                if t.size:
                    real.copy(dense, t)
                inputs.append(dense._data)
            else:
                inputs.append(t._data)
        env = self.run(inputs)
        outs = [b(env) for b in self.outputs]
        if self.graph.mutated:
            self._write_back(env, args)
        return outs

    def _write_back(self, env, args) -> None:
        real, device = self.real, self.device
        for target, final in self.graph.mutated:
            buf = env[self.slot[final.id]]
            if isinstance(target, int):
                arg = args[target]
                src = Tensor._wrap(buf, arg.shape, arg.dtype, device)
                if arg.size:
                    real.assign(arg, src)
            else:
                flat = (target.size,)
                dst = Tensor._wrap(target.payload, flat, target.dtype, device)
                if target.size:
                    real.assign(dst, Tensor._wrap(buf, flat, target.dtype, device))


def _constant_nodes(graph: Graph) -> set[int]:
    """Indices of the nodes whose inputs are all literals, embedded constants or results of
    such nodes (``wt.arange(3)`` inside a jitted function): the same on every call."""
    constant_values: set[int] = set()
    out: set[int] = set()
    # outputs are fresh tensors on every call (the caller may write into them): not kept
    leaving = {v.value.id for v in graph.outputs} | {f.id for _, f in graph.mutated}
    for i, node in enumerate(graph.nodes):
        if node.prim in CONTROL or any(v.id in leaving for v in node.results):
            continue
        reads = node.read_values()
        if all(v.kind == "lit" or v.kind == "const" and isinstance(v.payload, tuple)
               or v.id in constant_values for v in reads):
            out.add(i)
            constant_values.update(v.id for v in node.results)
    return out


def _last_uses(graph: Graph) -> dict[int, int]:
    """value id -> index of the last node reading it (outputs and write-backs: never freed)."""
    last: dict[int, int] = {}
    for i, node in enumerate(graph.nodes):
        for v in node.read_values():
            last[v.id] = i
    end = len(graph.nodes)
    for view in graph.outputs:
        last[view.value.id] = end
    for _, final in graph.mutated:
        last[final.id] = end
    return last


def _frees(graph, last_use, slots, n_nodes) -> list[list[int]]:
    """Per node, the slots whose buffers can be dropped once it has run."""
    frees: list[list[int]] = [[] for _ in range(n_nodes)]
    for j, node in enumerate(graph.nodes):
        for v in node.results:
            i = last_use.get(v.id, j)  # never read: dropped right after it is made
            if i < n_nodes:
                frees[i].append(slots[v.id])
    return frees


CONTROL: dict = {}  # prim -> step factory (control.py: cond, while, scan; host.py: host)

# backend name -> module with fusable(node), max_bindings(backend), group_step(...)
LOWERINGS = {"webgpu": "webtensor.compile.webgpu_codegen",
             "python": "webtensor.compile.python_codegen"}


def lowering_for(backend):
    """The module that fuses elementwise groups for ``backend``, or None (node by node)."""
    name = LOWERINGS.get(getattr(backend, "name", None))
    if name is None:
        return None
    import importlib

    return importlib.import_module(name)
