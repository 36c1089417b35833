"""Automatic differentiation on the graph IR: reverse mode (``vjp``, ``grad``), forward mode
(``jvp``), and the transforms built from them (``jacrev``, ``jacfwd``, ``hessian``).

A function is traced into a graph; the graph is replayed (``replay.py``) on the primal values
in the current context, so outside ``wt.jit`` the forward pass computes at once and inside it
the forward and backward passes are recorded into the same program (fused and cached like any
other).  The backward pass walks the nodes in reverse, applying one rule per (primitive, op)
from ``rules.py``; the rules are written with ``wt`` functions, so they are themselves
differentiable (``grad(grad(f))``) and run on every device.

Views need no rules: a node that read a value through a broadcast, a transpose, a slice or a
flip sends its cotangent back through the view's transpose (a sum over broadcast axes, then a
write into zeros through the same strides), and a partial write (``x[i] = v``) splits the
cotangent between the region it wrote and the rest.
"""

from __future__ import annotations

import itertools

from .. import _tracing
from .. import dtypes as _d
from .. import shape as _s
from ..tensor import Tensor, empty
from . import pytree
from .ir import Graph, Node, View
from .replay import Replay
from .trace import Trace

LOW_PRECISION = (_d.float16, _d.bfloat16)


def differentiable(dtype) -> bool:
    return dtype.kind in "fc"


def accumulation_dtype(dtype):
    """Cotangents of float16/bfloat16 values add up in float32 and are rounded once."""
    return _d.float32 if dtype in LOW_PRECISION else dtype


# -- tracing a function ----------------------------------------------------------------------

class Traced:
    """A function traced on abstract arguments: its graph and output structure."""

    __slots__ = ("graph", "out_tree", "captures")

    def __init__(self, graph, out_tree, captures):
        self.graph = graph
        self.out_tree = out_tree
        self.captures = captures


def trace_function(fun, leaves, in_tree, fn: str, spread=True) -> Traced:
    """Trace ``fun`` on abstract copies of the tensor ``leaves`` (rebuilt into ``in_tree``)."""
    trace = Trace(parent=_tracing.active(), name=getattr(fun, "__name__", "fun"))
    args = [trace.new_input(t.shape, t.dtype, t.device, t.weak, t.names) for t in leaves]
    with trace:
        tree = pytree.unflatten(in_tree, args)
        result = fun(*tree) if spread else fun(tree)
        out_leaves, out_tree = pytree.flatten(result)
        outs = [_as_tensor(x, fn, leaves) for x in out_leaves]
    graph = trace.graph(outs)
    graph.in_avals = [(t.weak, t.names) for t in leaves] + \
        [(t.weak, t.names) for t in trace.captures]
    return Traced(graph, out_tree, list(trace.captures))


def _as_tensor(x, fn: str, leaves) -> Tensor:
    if x.__class__ is Tensor:
        return x
    if x.__class__ in (bool, int, float, complex):
        from ..api.creation import asarray

        return asarray(x, device=leaves[0].device if leaves else None)
    raise TypeError(f"wt.{fn}: the function returned a {type(x).__name__} ({x!r:.60}); it must "
                    f"return tensors, Python numbers and tuples/lists/dicts of them")


def as_leaves(tree, fn: str, what: str, device=None, fix: str | None = None):
    """A pytree of tensors and Python numbers -> (tensor leaves, structure).  Numbers become
    weak 0-d tensors (as JAX traces them) on ``device``, else that of the tensors among them;
    anything else is a TypeError naming ``fn``, ``what`` and ``fix``."""
    from ..api.creation import asarray

    leaves, td = pytree.flatten(tree)
    if device is None:
        device = next((x.device for x in leaves if x.__class__ is Tensor), None)
    out = []
    for x in leaves:
        if x.__class__ is Tensor:
            out.append(x)
        elif x.__class__ in (bool, int, float, complex) or hasattr(x, "__array_interface__"):
            out.append(asarray(x, device=device))
        else:
            raise TypeError(f"wt.{fn}: {what} holds a {type(x).__name__} ({x!r:.60}); "
                            f"{fix or 'pass tensors, Python numbers and tuples/lists/dicts of them'}")
    return out, td


# -- views: moving cotangents back through strides -----------------------------------------------

def _overlapping(shape, strides) -> bool:
    """Some element is reached by two indices (after broadcast axes were summed away)."""
    dims = sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1)
    extent = 0
    for step, n in dims:
        if step <= extent:
            return True
        extent += (n - 1) * step
    return False


_SPLIT_MAX = 64  # sub-views an overlapping view's adjoint adds one by one (more: one scatter)


def _loop_dims(shape, strides):
    """Dims to walk one index at a time so that the rest of the view overlaps nowhere, the
    shortest first (a window's positions, as in nx.conv's patches), or None when that is more
    than ``_SPLIT_MAX`` sub-views."""
    rest = [d for d, n in enumerate(shape) if n > 1]
    loop, count = [], 1
    while _overlapping([shape[d] for d in rest], [strides[d] for d in rest]):
        d = min(rest, key=lambda d: shape[d])
        rest.remove(d)
        loop.append(d)
        count *= shape[d]
        if count > _SPLIT_MAX:
            return None
    return loop


def transpose_view(view: View, g: Tensor) -> Tensor:
    """The cotangent of ``view.value`` (dense, the value's shape) from the cotangent ``g`` of
    the tensor ``view`` denotes: the adjoint of reading through the view."""
    from ..api import manipulation as _m
    from ..api import statistical as _st

    value = view.value
    shape, strides = list(view.shape), list(view.strides)
    stretched = [d for d, (n, s) in enumerate(zip(shape, strides)) if s == 0 and n > 1]
    if stretched:
        g = _st.sum(g, axis=tuple(stretched), keepdims=True, dtype=g.dtype)
        for d in stretched:
            shape[d] = 1
    shape, strides = tuple(shape), tuple(strides)
    size = _s.size_of(shape)
    g = Tensor._wrap(g._data, g.shape, g.dtype, g.device, strides=g.strides, offset=g.offset)
    if size == value.size and view.offset == 0 and _s.is_contiguous(shape, strides):
        return _m.reshape(g, value.shape)
    device = g.device
    backend = device.backend
    zeros = empty((value.size,), g.dtype, device)
    backend.fill(zeros, 0)
    if not _overlapping(shape, strides):
        target = Tensor._wrap(zeros._data, shape, g.dtype, device, strides=strides,
                              offset=view.offset)
        if size:
            backend.assign(target, _contiguous(g))
        return _m.reshape(zeros, value.shape)
    # overlapping views (as_strided windows, nx.conv's patches): add every element where it
    # came from, a few non-overlapping sub-views at a time, or all at once with a scatter
    loop = _loop_dims(shape, strides)
    if loop is not None:
        from ..api import elementwise as ew

        gc = _contiguous(g)
        keep = [d for d in range(len(shape)) if d not in loop]
        sub = tuple(shape[d] for d in keep)
        for idx in itertools.product(*(range(shape[d]) for d in loop)):
            target = Tensor._wrap(zeros._data, sub, g.dtype, device,
                                  strides=tuple(strides[d] for d in keep),
                                  offset=view.offset + sum(i * strides[d]
                                                           for i, d in zip(idx, loop)))
            part = Tensor._wrap(gc._data, sub, g.dtype, device,
                                strides=tuple(gc.strides[d] for d in keep),
                                offset=gc.offset + sum(i * gc.strides[d]
                                                       for i, d in zip(idx, loop)))
            backend.assign(target, ew.add(target, part))
        return _m.reshape(zeros, value.shape)
    index = _flat_indices(shape, strides, view.offset, device)
    out = empty((value.size,), g.dtype, device)
    backend.copy(out, zeros)
    if size:
        backend.scatter("add", out, 0, index, _m.reshape(_contiguous(g), (size,)))
    return _m.reshape(out, value.shape)


def _contiguous(t: Tensor) -> Tensor:
    if t.offset == 0 and t.is_contiguous:
        return t
    out = empty(t.shape, t.dtype, t.device)
    t.device.backend.copy(out, t)
    return out


def _flat_indices(shape, strides, offset, device) -> Tensor:
    from ..api import creation as _c
    from ..api import elementwise as ew
    from ..api import manipulation as _m

    total = _c.full(shape, offset, dtype=_d.int64, device=device)
    for d, (n, s) in enumerate(zip(shape, strides)):
        along = _c.arange(n, dtype=_d.int64, device=device) * s
        view_shape = [1] * len(shape)
        view_shape[d] = n
        total = ew.add(total, _m.reshape(along, tuple(view_shape)))
    return _m.reshape(total, (_s.size_of(shape),))


def view_of(t: Tensor, view: View) -> Tensor:
    """``t`` (the value's shape) seen through ``view``'s geometry."""
    t = _contiguous(t)  # cotangents may be broadcast views: the geometry needs real elements
    return Tensor._wrap(t._data, view.shape, t.dtype, t.device, strides=view.strides,
                        offset=t.offset + view.offset)


# -- reverse mode --------------------------------------------------------------------------------

class _Cotangents:
    """Per value, the sum of the cotangents reaching it (dense, in the accumulation dtype)."""

    def __init__(self):
        self.sums: dict[int, Tensor] = {}

    def add(self, view: View, g: Tensor) -> None:
        if g is None or not differentiable(view.value.dtype):
            return
        from ..api import elementwise as ew
        from ..tensor import cast

        g = cast(g, accumulation_dtype(view.value.dtype), weak=False)
        g = transpose_view(view, g)
        found = self.sums.get(view.value.id)
        self.sums[view.value.id] = g if found is None else ew.add(found, g)

    def add_value(self, value, g: Tensor) -> None:
        self.add(View(value, value.shape, _s.contiguous_strides(value.shape), 0), g)

    def pop(self, value):
        return self.sums.pop(value.id, None)

    def get(self, value):
        return self.sums.get(value.id)


def backward(graph: Graph, rp: Replay, cotangents, stop=frozenset()) -> list:
    """Cotangents of ``graph.inputs`` given cotangents for ``graph.outputs`` (None: zero).

    ``rp`` holds the replayed forward values; ``stop``: value ids that get no gradient.
    """
    from .rules import apply_vjp

    cots = _Cotangents()
    for view, g in zip(graph.outputs, cotangents):
        if g is not None:
            cots.add(view, g)
    for node in reversed(graph.nodes):
        gs = [cots.pop(r) for r in node.results]
        if all(g is None for g in gs):
            continue
        for view, g in apply_vjp(node, rp, gs):
            if view.value.id not in stop:
                cots.add(view, g)
    return [cots.get(v) for v in graph.inputs]


def split_partial_write(node: Node, rp: Replay, g: Tensor):
    """For a node that wrote part of a buffer: (cotangent of its base, of what it wrote)."""
    w = node.written
    region = view_of(g, w)
    if node.base is None:
        return None, region
    rest = empty(g.shape, g.dtype, g.device)
    backend = g.device.backend
    backend.copy(rest, g)
    zeros = empty(w.shape, g.dtype, g.device)
    backend.fill(zeros, 0)
    if zeros.size:
        backend.assign(view_of(rest, w), zeros)
    return rest, _contiguous(region)


def _check_grad_inputs(leaves, fn: str, argnums) -> None:
    for k, t in zip(argnums, leaves):
        if not differentiable(t.dtype):
            raise TypeError(
                f"wt.{fn}: argument {k} is a {t.dtype.name} tensor of shape {t.shape}; "
                f"gradients are taken with respect to floating-point (or complex) inputs: "
                f"cast it with wt.astype(x, wt.float32), or leave it out of argnums")


def vjp(fun, *primals, has_aux=False):
    """``(fun(*primals), vjp_fn)`` where ``vjp_fn(cotangent)`` gives the cotangents of
    ``primals`` (JAX's ``jax.vjp``).  With ``has_aux`` ``fun`` returns ``(out, aux)`` and the
    result is ``(out, vjp_fn, aux)``."""
    if not callable(fun):
        raise TypeError(f"wt.vjp: expected a function, got {fun!r}")
    leaves, in_tree = as_leaves(primals, "vjp", "primals")
    traced = trace_function(fun, leaves, in_tree, "vjp")
    graph = traced.graph
    rp = Replay(graph, leaves + traced.captures)
    outs = rp.run()
    out_tree = traced.out_tree
    n_out = len(outs)
    aux = None
    if has_aux:
        if out_tree.kind not in ("tuple", "list") or len(out_tree.children) != 2:
            raise TypeError(f"wt.vjp: has_aux=True needs the function to return a pair "
                            f"(output, aux), got the structure {out_tree}")
        main_tree, aux_tree = out_tree.children
        n_out = main_tree.num_leaves
        aux = pytree.unflatten(aux_tree, outs[n_out:])
        out_tree = main_tree
    primal_out = pytree.unflatten(out_tree, outs[:n_out])
    main_views = graph.outputs[:n_out]

    def vjp_fn(*cotangent):
        ct = cotangent[0] if len(cotangent) == 1 else cotangent
        ct_leaves, ct_tree = pytree.flatten(ct)
        if ct_tree != out_tree:
            raise TypeError(f"wt.vjp: the cotangent must have the output's structure {out_tree},"
                            f" got {ct_tree}")
        cts = []
        for k, (c, o) in enumerate(zip(ct_leaves, outs)):
            if c is None:
                cts.append(None)
                continue
            if c.__class__ is not Tensor:
                from ..api.creation import asarray

                c = asarray(c, dtype=o.dtype, device=o.device)
            if c.shape != o.shape:
                raise ValueError(f"wt.vjp: cotangent {k} has shape {c.shape}, but the output "
                                 f"has shape {o.shape}; pass one of the output's shape")
            cts.append(c)
        sub = Graph(graph.inputs, graph.nodes, main_views, graph.mutated)
        grads = backward(sub, rp, cts)
        result = []
        for t, g in zip(leaves, grads[:len(leaves)]):
            result.append(_finish(t, g))
        return pytree.unflatten(in_tree, result)

    if has_aux:
        return primal_out, vjp_fn, aux
    return primal_out, vjp_fn


def _finish(primal: Tensor, g) -> Tensor:
    """A cotangent in the primal's dtype, weak flag and names (zeros when none arrived)."""
    from ..api import creation as _c
    from ..tensor import cast

    if g is None:
        return _c.zeros(primal.shape, dtype=primal.dtype, device=primal.device)
    g = cast(g, primal.dtype, weak=primal.weak)
    if g.shape != primal.shape:
        from ..api import manipulation as _m

        g = _m.reshape(g, primal.shape)
    return Tensor._wrap(g._data, g.shape, g.dtype, g.device, strides=g.strides,
                        offset=g.offset, weak=primal.weak, names=primal.names)


def _argnums(argnums, n: int, fn: str) -> tuple[int, ...]:
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    for k in nums:
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"wt.{fn}: argnums must be an int or a tuple of ints, got "
                            f"{argnums!r}")
        if not -n <= k < n:
            raise ValueError(f"wt.{fn}: argnums={argnums!r} is out of range for {n} "
                             f"positional argument{'s' if n != 1 else ''}")
    return tuple(k % n for k in nums)


def value_and_grad(fun, argnums=0, has_aux=False):
    """``fun`` and its gradient with respect to ``argnums`` (JAX's ``jax.value_and_grad``)."""
    if not callable(fun):
        raise TypeError(f"wt.value_and_grad: expected a function, got {fun!r}")
    return _GradFn(fun, argnums, has_aux, with_value=True)


def grad(fun, argnums=0, has_aux=False):
    """The gradient of a scalar-valued ``fun`` with respect to argument(s) ``argnums``
    (JAX's ``jax.grad``): ``wt.grad(f)(x)`` has ``x``'s structure, shape and dtype."""
    if not callable(fun):
        raise TypeError(f"wt.grad: expected a function, got {fun!r}")
    return _GradFn(fun, argnums, has_aux, with_value=False)


class _GradFn:
    def __init__(self, fun, argnums, has_aux, with_value):
        self.fun = fun
        self.argnums = argnums
        self.has_aux = has_aux
        self.with_value = with_value
        self.__name__ = f"grad({getattr(fun, '__name__', 'fun')})"
        self.__wrapped__ = fun

    def __call__(self, *args, **kwargs):
        fn = "value_and_grad" if self.with_value else "grad"
        nums = _argnums(self.argnums, len(args), fn)
        diff = [args[k] for k in nums]

        def partial(*d):
            full = list(args)
            for k, v in zip(nums, d):
                full[k] = v
            return self.fun(*full, **kwargs)

        leaves, _ = as_leaves(tuple(diff), fn, "the differentiated arguments")
        for k, arg in zip(nums, diff):
            sub, _ = as_leaves(arg, fn, "an argument")
            _check_grad_inputs(sub, fn, [k] * len(sub))
        if self.has_aux:
            out, vjp_fn, aux = vjp(partial, *diff, has_aux=True)
        else:
            out, vjp_fn = vjp(partial, *diff)
        if out.__class__ is not Tensor or out.size != 1 or out.ndim:
            kind = type(out).__name__ if out.__class__ is not Tensor else \
                f"a {out.dtype.name} tensor of shape {out.shape}"
            raise TypeError(f"wt.{fn}: the function must return a scalar (a 0-d tensor), got "
                            f"{kind}; reduce it (wt.sum, wt.mean) or use wt.vjp / wt.jacrev "
                            f"for non-scalar outputs")
        if out.dtype.kind != "f":
            raise TypeError(f"wt.{fn}: the function must return a real floating-point scalar, "
                            f"got {out.dtype.name}; cast it with wt.astype(out, wt.float32)")
        from ..api.creation import ones_like

        grads = vjp_fn(ones_like(out))
        g = grads[0] if isinstance(self.argnums, int) else tuple(grads)
        if self.with_value:
            return ((out, aux), g) if self.has_aux else (out, g)
        return (g, aux) if self.has_aux else g


def stop_gradient(x):
    """``x`` with no gradient flowing back through it (a copy as far as autodiff knows)."""
    from .rules import stop_gradient as _stop

    return pytree.tree_map(_stop, x)


# -- Jacobians and Hessians ----------------------------------------------------------------------

def _basis(t: Tensor) -> Tensor:
    """The ``t.size`` unit tensors shaped like ``t``, stacked: shape ``(n,) + t.shape``."""
    from ..api import creation as _c
    from ..api import manipulation as _m

    n = t.size
    return _m.reshape(_c.eye(n, dtype=t.dtype, device=t.device), (n,) + t.shape)


def _jacobian(fun, argnums, mode: str):
    fn = "jacfwd" if mode == "fwd" else "jacrev"
    if not callable(fun):
        raise TypeError(f"wt.{fn}: expected a function, got {fun!r}")

    def jac(*args, **kwargs):
        from ..api import manipulation as _m
        from .batching import vmap
        from .forward import jvp

        nums = _argnums(argnums, len(args), fn)
        for k in nums:
            if args[k].__class__ is not Tensor:
                from ..api.creation import asarray

                args = args[:k] + (asarray(args[k]),) + args[k + 1:]
            _check_grad_inputs([args[k]], fn, [k])

        def partial(*d):
            full = list(args)
            for k, v in zip(nums, d):
                full[k] = v
            return fun(*full, **kwargs)

        xs = [args[k] for k in nums]
        results = []
        if mode == "rev":
            out, vjp_fn = vjp(partial, *xs)
            if out.__class__ is not Tensor:
                raise TypeError(f"wt.{fn}: the function must return one tensor, got "
                                f"{type(out).__name__}")
            rows = vmap(lambda ct: vjp_fn(ct))(_basis(out))
            for x, r in zip(xs, rows):
                results.append(_m.reshape(r, out.shape + x.shape))
        else:
            for i, x in enumerate(xs):
                def column(v, i=i):
                    tangents = [v if j == i else _zeros_like(x_) for j, x_ in enumerate(xs)]
                    return jvp(partial, tuple(xs), tuple(tangents))[1]
                cols = vmap(column)(_basis(x))  # (n, *out.shape)
                if cols.__class__ is not Tensor:
                    raise TypeError(f"wt.{fn}: the function must return one tensor")
                out_shape = cols.shape[1:]
                moved = _m.moveaxis(cols, 0, -1) if cols.ndim > 1 else cols
                results.append(_m.reshape(moved, out_shape + x.shape))
        return results[0] if isinstance(argnums, int) else tuple(results)

    jac.__name__ = f"{fn}({getattr(fun, '__name__', 'fun')})"
    return jac


def _zeros_like(x):
    from ..api.creation import zeros_like

    return zeros_like(x)


def jacrev(fun, argnums=0):
    """The Jacobian of ``fun`` by reverse mode, one vjp per output element, batched with
    ``vmap`` (JAX's ``jax.jacrev``): shape ``out.shape + x.shape``."""
    return _jacobian(fun, argnums, "rev")


def jacfwd(fun, argnums=0):
    """The Jacobian of ``fun`` by forward mode, one jvp per input element, batched with
    ``vmap`` (JAX's ``jax.jacfwd``): shape ``out.shape + x.shape``."""
    return _jacobian(fun, argnums, "fwd")


def hessian(fun, argnums=0):
    """The Hessian of a scalar ``fun``: ``jacfwd(jacrev(fun))`` (JAX's ``jax.hessian``)."""
    return jacfwd(jacrev(fun, argnums), argnums)
