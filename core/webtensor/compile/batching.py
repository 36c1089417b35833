"""``wt.vmap``: a function of one example, run on a batch.

The function is traced once on a single example; its graph is then replayed with a leading batch
axis on every value that depends on a batched input.  Because the API already turned
broadcasting, promotion and shapes into primitive calls, batching a primitive is mechanical:
every view it reads gets the batch axis in front (stride 0 for values that are not batched) and
its axis parameters move by one.  Control flow: ``cond`` on a batched predicate computes both
branches and selects (as JAX does); loops carry batched values; a ``while_loop`` whose condition
is batched runs until every example is done, freezing the finished ones.
"""

from __future__ import annotations

from .. import shape as _s
from ..api import elementwise as ew
from ..api import manipulation as _m
from ..tensor import Tensor, empty
from . import pytree
from .ad import _contiguous, as_leaves, trace_function
from .ir import Graph, View

# primitive -> positions of axis parameters that move by one under a batch axis
_AXIS_ARGS = {"reduce": 3, "arg_reduce": 3, "scan": 3, "gather": 2, "scatter": 2, "sort": 2,
              "argsort": 2}
# primitive -> positions of per-axis tuples that get an entry for the batch axis (a window of 1)
_PER_AXIS_ARGS = {"window_reduce": (3, 4, 5), "window_scatter": (4, 5, 6)}
_UNBATCHED_PRIMS = frozenset({"fill", "iota", "random_bits"})


class Batcher:
    """Replays ``graph`` with a batch of ``size`` along a new leading axis of batched values."""

    def __init__(self, graph: Graph, inputs, batched, size: int):
        self.graph = graph
        self.size = size
        self.values: dict[int, Tensor] = {}
        self.batched: set[int] = set()
        from .replay import Replay

        self.rp = Replay(graph, [])  # for literals and constants
        for value, t, b in zip(graph.inputs, inputs, batched):
            shape = ((size,) if b else ()) + value.shape
            self.values[value.id] = _m.reshape(_contiguous(t), shape)
            if b:
                self.batched.add(value.id)

    def value(self, value) -> Tensor:
        found = self.values.get(value.id)
        if found is None:
            found = self.values[value.id] = self.rp.value(value)
        return found

    def is_batched(self, value) -> bool:
        return value.id in self.batched

    def lifted(self, view: View) -> Tensor:
        """The view with the batch axis in front (stride 0 when the value is not batched)."""
        t = self.value(view.value)
        step = view.value.size if self.is_batched(view.value) else 0
        return Tensor._wrap(t._data, (self.size,) + view.shape, view.dtype, t.device,
                            strides=(step,) + view.strides, offset=view.offset,
                            weak=view.weak)

    def plain(self, view: View) -> Tensor:
        t = self.value(view.value)
        return Tensor._wrap(t._data, view.shape, view.dtype, t.device, strides=view.strides,
                            offset=view.offset, weak=view.weak)

    def run(self):
        for node in self.graph.nodes:
            self.node(node)
        return ([self.lifted(v) if self.is_batched(v.value) else self.plain(v)
                 for v in self.graph.outputs],
                [self.is_batched(v.value) for v in self.graph.outputs])

    def node(self, node) -> None:
        if node.prim in CONTROL_BATCH:
            outs, flags = CONTROL_BATCH[node.prim](self, node)
            for v, t, b in zip(node.results, outs, flags):
                shape = ((self.size,) if b else ()) + v.shape
                self.values[v.id] = _m.reshape(_contiguous(t), shape)
                if b:
                    self.batched.add(v.id)
            return
        reads = [v.value for v in node.reads()]
        if node.base is not None:
            reads.append(node.base)
        if node.prim in _UNBATCHED_PRIMS or not any(self.is_batched(v) for v in reads):
            self.rp.values = self.values
            self.rp.node(node)
            return
        result = node.results[0]
        device = result.device
        backend = device.backend
        size = self.size
        buf = empty((size,) + result.shape, result.dtype, device)
        if node.base is not None:
            base = node.base
            src = self.lifted(View(base, result.shape, _s.contiguous_strides(result.shape), 0))
            backend.copy(buf, src)
        w = node.written
        out = Tensor._wrap(buf._data, (size,) + w.shape, w.dtype, device,
                           strides=(result.size,) + w.strides, offset=w.offset)
        args = []
        for i, a in enumerate(node.args):
            if i == node.wpos:
                args.append(out)
            elif isinstance(a, View):
                args.append(self.lifted(a))
            else:
                args.append(a)
        k = _AXIS_ARGS.get(node.prim)
        if k is not None:
            axes = args[k]
            args[k] = tuple(a + 1 for a in axes) if isinstance(axes, tuple) else axes + 1
        for k in _PER_AXIS_ARGS.get(node.prim, ()):
            args[k] = (1,) + tuple(args[k])
        fresh = node.prim not in ("assign", "scatter")
        dense = node.base is None and w.dense
        if fresh and not dense:
            tmp = empty((size,) + w.shape, w.dtype, device)
            args[node.wpos] = tmp
            getattr(backend, node.prim)(*args)
            backend.assign(out, tmp)
        else:
            if fresh:
                args[node.wpos] = Tensor._wrap(buf._data, (size,) + w.shape, w.dtype, device)
            getattr(backend, node.prim)(*args)
        self.values[result.id] = buf
        self.batched.add(result.id)


CONTROL_BATCH: dict = {}  # cond, while_loop, scan_loop (control.py), host (host.py)


def _axes_for(in_axes, args, fn: str):
    """Per positional argument, its in_axes entry (an int, None, or a pytree of them)."""
    if isinstance(in_axes, (int, type(None))) and not isinstance(in_axes, bool):
        return [in_axes] * len(args)
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise ValueError(f"wt.{fn}: in_axes has {len(in_axes)} entries but the function "
                             f"was called with {len(args)} positional arguments")
        return list(in_axes)
    raise TypeError(f"wt.{fn}: in_axes must be an int, None, or a tuple/list with one entry "
                    f"per argument, got {in_axes!r}")


def _leaf_axes(spec, arg, fn: str) -> list:
    """The axis of each tensor leaf of ``arg`` from its in_axes entry (a prefix pytree)."""
    leaves, td = pytree.flatten(arg)
    if spec is None or isinstance(spec, int) and not isinstance(spec, bool):
        return [spec] * len(leaves)
    spec_leaves, spec_td = pytree.flatten(spec)
    if spec_td != td:
        raise ValueError(f"wt.{fn}: an in_axes entry {spec!r} does not match its argument's "
                         f"structure {td}")
    return spec_leaves


def vmap(fun, in_axes=0, out_axes=0):
    """Vectorize ``fun`` over a batch axis (JAX's ``jax.vmap``).

    ``in_axes``: per positional argument the axis to map over (None: the argument is shared by
    every example); an int applies to all.  ``out_axes``: where the batch axis goes in the
    outputs (an int, None for outputs that do not depend on the batch, or a pytree of them).
    Composes with ``wt.jit`` and ``wt.grad`` in any order.
    """
    if not callable(fun):
        raise TypeError(f"wt.vmap: expected a function, got {fun!r}")

    def batched(*args):
        specs = _axes_for(in_axes, args, "vmap")
        flat_axes = []
        for spec, arg in zip(specs, args):
            flat_axes += _leaf_axes(spec, arg, "vmap")
        leaves, in_tree = as_leaves(tuple(args), "vmap", "the arguments")
        size = None
        moved, examples, flags = [], [], []
        for k, (t, ax) in enumerate(zip(leaves, flat_axes)):
            if ax is None:
                moved.append(t)
                examples.append(t)
                flags.append(False)
                continue
            if isinstance(ax, bool) or not isinstance(ax, int) or not -t.ndim <= ax < t.ndim:
                raise ValueError(f"wt.vmap: in_axes={ax!r} is not an axis of argument leaf {k} "
                                 f"with shape {t.shape}")
            ax %= t.ndim
            if size is None:
                size = t.shape[ax]
            elif t.shape[ax] != size:
                raise ValueError(f"wt.vmap: the mapped axes have different sizes: {size} and "
                                 f"{t.shape[ax]} (argument leaf {k}, axis {ax}); every mapped "
                                 f"axis must have the same length")
            front = _m.moveaxis(t, ax, 0)
            moved.append(front)
            examples.append(Tensor._wrap(front._data, front.shape[1:], front.dtype,
                                         front.device, strides=front.strides[1:],
                                         offset=front.offset, weak=front.weak))
            flags.append(True)
        if size is None:
            raise ValueError("wt.vmap: in_axes maps no argument; give at least one argument "
                             "an integer axis")
        traced = trace_function(fun, examples, in_tree, "vmap")
        runner = Batcher(traced.graph, moved + traced.captures,
                         flags + [False] * len(traced.captures), size)
        outs, out_flags = runner.run()
        out_axes_leaves = _out_axes(out_axes, traced.out_tree)
        final = []
        for k, (o, b, ax) in enumerate(zip(outs, out_flags, out_axes_leaves)):
            if ax is None:
                if b:
                    raise ValueError(f"wt.vmap: out_axes is None for output leaf {k}, but it "
                                     f"depends on the mapped axis; give it an integer axis")
                final.append(o)
                continue
            if not b:
                o = _m.broadcast_to(_m.expand_dims(o, axis=0), (size,) + o.shape)
            if isinstance(ax, bool) or not isinstance(ax, int) or not -o.ndim <= ax < o.ndim:
                raise ValueError(f"wt.vmap: out_axes={ax!r} is out of bounds for output leaf "
                                 f"{k}, which has {o.ndim - 1} dimension"
                                 f"{'s' if o.ndim != 2 else ''} per example; use an axis in "
                                 f"[{-o.ndim}, {o.ndim})")
            final.append(_m.moveaxis(o, 0, ax) if ax % o.ndim else o)
        return pytree.unflatten(traced.out_tree, final)

    batched.__name__ = f"vmap({getattr(fun, '__name__', 'fun')})"
    batched.__wrapped__ = fun
    return batched


def _out_axes(out_axes, tree):
    n = tree.num_leaves
    if out_axes is None or isinstance(out_axes, int) and not isinstance(out_axes, bool):
        return [out_axes] * n
    leaves, td = pytree.flatten(out_axes)
    if td != tree:
        raise ValueError(f"wt.vmap: out_axes {out_axes!r} does not match the output structure "
                         f"{tree}")
    return leaves


def select_batched(pred, a, b):
    """``where`` of a batched predicate (shape (B,)) over batched values (B, ...)."""
    shape = (pred.shape[0],) + (1,) * (a.ndim - 1)
    return ew.where(_m.reshape(pred, shape), a, b)
