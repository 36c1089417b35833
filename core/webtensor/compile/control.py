"""Control flow as graph nodes: ``wt.cond``, ``wt.while_loop``, ``wt.fori_loop``, ``wt.scan``.

Each takes Python functions and traces them into sub-graphs on abstract values of the operands
(so both branches of a ``cond``, and a loop body, are checked to return the same structure,
shapes and dtypes before anything runs).  Inside a traced function (``wt.jit``) the sub-graphs
become one node of the enclosing graph; outside, the node runs at once on the operands.  A
branch or body may read tensors of the enclosing function (they become extra operands) but not
write them: it returns new values instead, as in JAX.

The loop runners decide on the host: ``cond`` reads its predicate and ``while_loop`` its
condition each iteration (a GPU waits for that read); ``fori_loop`` with Python-int bounds and
``scan`` know their trip count and never wait.
"""

from __future__ import annotations

from .. import _tracing
from .. import dtypes as _d
from .. import shape as _s
from ..tensor import Tensor
from . import pytree
from .execute import CONTROL, Executable
from .ir import Node, Value
from .replay import CONTROL_REPLAY, Replay, inline
from .trace import Trace

# -- tracing a function into a sub-graph ---------------------------------------------------------

class _Sub:
    """A traced branch/body: its graph, output structure and avals, and the enclosing tensors it
    reads (appended to its inputs after the operands)."""

    __slots__ = ("graph", "out_tree", "out_avals", "captures")

    def __init__(self, graph, out_tree, out_avals, captures):
        self.graph = graph
        self.out_tree = out_tree
        self.out_avals = out_avals
        self.captures = captures


def _aval(t: Tensor):
    return (t.shape, t.dtype, t.weak, t.names, t.device)


def _trace_sub(fun, avals, in_tree, fn: str, label: str, spread: bool = False) -> _Sub:
    """Trace ``fun`` on abstract values shaped like ``avals``; it receives the tree rebuilt
    (``spread``: a tuple tree spread as positional arguments)."""
    parent = _tracing.active()
    trace = Trace(parent=parent, name=label)
    args = [trace.new_input(shape, dtype, device, weak, names)
            for shape, dtype, weak, names, device in avals]
    with trace:
        tree = pytree.unflatten(in_tree, args)
        result = fun(*tree) if spread else fun(tree)
        leaves, out_tree = pytree.flatten(result)
        outs = [_as_tensor(x, fn, label) for x in leaves]
    graph = trace.graph(outs)
    graph.in_avals = [(a[2], a[3]) for a in avals] + [(t.weak, t.names) for t in trace.captures]
    return _Sub(graph, out_tree, [_aval(t) for t in outs], list(trace.captures))


def _as_tensor(x, fn: str, what: str) -> Tensor:
    if x.__class__ is Tensor:
        return x
    if x.__class__ in (bool, int, float, complex):
        from ..api.creation import asarray

        return asarray(x)
    raise TypeError(f"wt.{fn}: {what} returned a {type(x).__name__} ({x!r:.60}); it must return "
                    f"tensors, Python numbers and tuples/lists/dicts of them")


def _leaves(tree, fn: str, what: str, device=None):
    """Operands as tensors (see ``ad.as_leaves``)."""
    from .ad import as_leaves

    return as_leaves(tree, fn, what, device, fix=f"only tensors, Python numbers and "
                     f"tuples/lists/dicts of them can flow through {fn}")


def _first_device(*trees):
    for tree in trees:
        for x in pytree.flatten(tree)[0]:
            if x.__class__ is Tensor:
                return x.device
    return None


def _promote_weak(leaves, out_avals):
    """Initial loop values that are weak (Python numbers) and whose dtype the body changes,
    cast to the body's dtype; None when nothing changes."""
    from ..tensor import cast

    changed = False
    out = list(leaves)
    for i, (t, a) in enumerate(zip(leaves, out_avals)):
        if t.weak and t.shape == a[0] and t.dtype is not a[1]:
            out[i] = cast(t, a[1], weak=a[2])
            changed = True
    return out if changed else None


def _describe(avals) -> str:
    return ", ".join(f"{a[1].name}{list(a[0])}" for a in avals)


def _check_same(fn: str, first: str, a_tree, a_avals, second: str, b_tree, b_avals) -> None:
    if a_tree != b_tree:
        raise TypeError(f"wt.{fn}: {first} and {second} must have the same structure, but "
                        f"{first} is {a_tree} and {second} is {b_tree}")
    for k, (a, b) in enumerate(zip(a_avals, b_avals)):
        if a[0] != b[0] or a[1] is not b[1]:
            raise TypeError(f"wt.{fn}: {first} and {second} must agree in shape and dtype, but "
                            f"at leaf {k} {first} is {a[1].name}{list(a[0])} and {second} is "
                            f"{b[1].name}{list(b[0])} (all: {_describe(a_avals)} vs "
                            f"{_describe(b_avals)}); cast with wt.astype or reshape so both "
                            f"match")


def _device_of(tensors):
    from ..device import default_device

    return next((t.device for t in tensors), None) or default_device()


# -- running sub-graphs -------------------------------------------------------------------------

def _dense(real, t: Tensor):
    """The buffer of ``t`` as a dense value (copied when ``t`` is a strided view)."""
    if t._dense:
        return t._data
    out = Tensor._wrap(real.alloc(t.dtype, t.size), t.shape, t.dtype, t.device)
    if t.size:
        real.copy(out, t)
    return out._data


def _predicate(t: Tensor, fn: str) -> bool:
    if t.size != 1:
        raise TypeError(f"wt.{fn}: the predicate must be a scalar, got shape {t.shape}; reduce "
                        f"it with wt.any / wt.all first")
    return bool(t.device._real_backend().to_values(t)[0])


# -- cond ------------------------------------------------------------------------------------------

def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    Both functions are traced and must return the same structure, shapes and dtypes.  Inside
    ``wt.jit`` this is one node (the predicate is read when the program runs); use
    ``wt.where`` instead when both sides are cheap and you want no host read at all.
    """
    for f, what in ((true_fun, "true_fun"), (false_fun, "false_fun")):
        if not callable(f):
            raise TypeError(f"wt.cond: {what} must be a function, got {f!r}")
    device = _first_device(pred, operands)
    leaves, in_tree = _leaves(operands, "cond", "the operands", device)
    p = _leaves(pred, "cond", "pred", device)[0][0]
    if p.size != 1:
        raise TypeError(f"wt.cond: pred must be a scalar (one element), got shape {p.shape}; "
                        f"reduce it with wt.any / wt.all first")
    if p.dtype.kind == "c":
        raise TypeError("wt.cond: pred must be a bool or real number, got a complex tensor")
    avals = [_aval(t) for t in leaves]
    t_sub = _trace_sub(true_fun, avals, in_tree, "cond", "true_fun", spread=True)
    f_sub = _trace_sub(false_fun, avals, in_tree, "cond", "false_fun", spread=True)
    _check_same("cond", "true_fun", t_sub.out_tree, t_sub.out_avals, "false_fun",
                f_sub.out_tree, f_sub.out_avals)
    trace = _tracing.active()
    if trace is None:  # eager: run the chosen branch now
        return _run_sub_eager(t_sub if _predicate(p, "cond") else f_sub, leaves)
    if not _tracing.is_traced(p):  # a known predicate inside a trace: inline that branch
        chosen = true_fun if _predicate(p, "cond") else false_fun
        return chosen(*pytree.unflatten(in_tree, leaves))
    outs = _record(trace, "cond", [p] + leaves, [t_sub, f_sub],
                   {"true": t_sub.graph, "false": f_sub.graph}, t_sub.out_avals, {})
    return pytree.unflatten(t_sub.out_tree, outs)


def _run_sub_eager(sub: _Sub, leaves):
    device = _device_of(leaves + sub.captures)
    exe = Executable(sub.graph, device)
    outs = exe(list(leaves) + list(sub.captures))
    return pytree.unflatten(sub.out_tree, outs)


def _record(trace, prim, operands, subs, graphs, out_avals, params):
    """Append a control node reading ``operands`` then each sub-graph's captures."""
    args = list(operands)
    capture_slices = []
    for sub in subs:
        start = len(args)
        args.extend(sub.captures)
        capture_slices.append((start, len(args)))
    views = tuple(trace.view_of(t) for t in args)
    device = _device_of(args)
    results = tuple(Value(a[1], a[0], device, "node") for a in out_avals)
    node = Node(prim, views, None, None, results, device,
                params={"graphs": graphs, "captures": tuple(capture_slices), **params})
    trace.define(node)
    return [trace.wrap_value(v, a[2], a[3]) for v, a in zip(results, out_avals)]


def _cond_step(exe: Executable, index: int, node: Node):
    real, device = exe.real, exe.device
    pred_b = exe._view_builder(node.args[0])
    builders = [exe._view_builder(v) for v in node.args]
    (t0, t1), (f0, f1) = node.params["captures"]
    n_ops = t0
    branches = {True: (Executable(node.params["graphs"]["true"], device), t0, t1),
                False: (Executable(node.params["graphs"]["false"], device), f0, f1)}
    out_slots = [exe._slot_of(v) for v in node.results]

    def step(env):
        taken = _predicate(pred_b(env), "cond")
        sub, c0, c1 = branches[taken]
        ins = [builders[i](env) for i in range(1, n_ops)] + \
              [builders[i](env) for i in range(c0, c1)]
        outs = sub(ins)
        for slot, t in zip(out_slots, outs):
            env[slot] = _dense(real, t)
    return step


CONTROL["cond"] = _cond_step


# -- while_loop ----------------------------------------------------------------------------------

def while_loop(cond_fun, body_fun, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val); return val``.

    ``body_fun`` must return the structure, shapes and dtypes it receives.  The condition is read
    on the host every iteration.  Reverse-mode gradients cannot go through it (its trip count is
    unknown while tracing): use ``wt.fori_loop`` with Python-int bounds or ``wt.scan``.
    """
    for f, what in ((cond_fun, "cond_fun"), (body_fun, "body_fun")):
        if not callable(f):
            raise TypeError(f"wt.while_loop: {what} must be a function, got {f!r}")
    leaves, in_tree = _leaves(init_val, "while_loop", "init_val")
    avals = [_aval(t) for t in leaves]
    c_sub = _trace_sub(cond_fun, avals, in_tree, "while_loop", "cond_fun")
    if len(c_sub.out_avals) != 1 or c_sub.out_avals[0][0] not in ((), (1,)):
        raise TypeError(f"wt.while_loop: cond_fun must return one scalar, got "
                        f"{_describe(c_sub.out_avals) or 'nothing'}")
    b_sub = _trace_sub(body_fun, avals, in_tree, "while_loop", "body_fun")
    promoted = _promote_weak(leaves, b_sub.out_avals)
    if promoted is not None:  # a weak initial value takes the body's dtype (as in JAX)
        leaves = promoted
        avals = [_aval(t) for t in leaves]
        c_sub = _trace_sub(cond_fun, avals, in_tree, "while_loop", "cond_fun")
        b_sub = _trace_sub(body_fun, avals, in_tree, "while_loop", "body_fun")
    _check_same("while_loop", "init_val", in_tree, avals, "body_fun's result",
                b_sub.out_tree, b_sub.out_avals)
    trace = _tracing.active()
    if trace is None:
        device = _device_of(leaves)
        outs = _run_while(Executable(c_sub.graph, device), Executable(b_sub.graph, device),
                          leaves, c_sub.captures, b_sub.captures)
        return pytree.unflatten(in_tree, _restore_meta(outs, avals))
    outs = _record(trace, "while_loop", leaves, [c_sub, b_sub],
                   {"cond": c_sub.graph, "body": b_sub.graph}, avals, {})
    return pytree.unflatten(in_tree, outs)


def _restore_meta(tensors, avals):
    """Loop results keep the initial value's weak flag and names."""
    return [Tensor._wrap(t._data, t.shape, t.dtype, t.device, strides=t.strides,
                         offset=t.offset, weak=a[2], names=a[3]) for t, a in zip(tensors, avals)]


def _run_while(cond_exe, body_exe, carry, c_caps, b_caps):
    carry = list(carry)
    while _predicate(cond_exe(carry + list(c_caps))[0], "while_loop"):
        carry = body_exe(carry + list(b_caps))
    return carry


def _while_step(exe: Executable, index: int, node: Node):
    real, device = exe.real, exe.device
    builders = [exe._view_builder(v) for v in node.args]
    (c0, c1), (b0, b1) = node.params["captures"]
    n = c0
    cond_exe = Executable(node.params["graphs"]["cond"], device)
    body_exe = Executable(node.params["graphs"]["body"], device)
    out_slots = [exe._slot_of(v) for v in node.results]

    def step(env):
        vals = [b(env) for b in builders]
        outs = _run_while(cond_exe, body_exe, vals[:n], vals[c0:c1], vals[b0:b1])
        for slot, t in zip(out_slots, outs):
            env[slot] = _dense(real, t)
    return step


CONTROL["while_loop"] = _while_step


# -- scan and fori_loop ----------------------------------------------------------------------------

def scan(f, init, xs=None, length=None, reverse=False):
    """JAX's ``lax.scan``: ``carry, y = f(carry, x)`` for each ``x`` along the leading axis of
    ``xs``; returns ``(carry, ys)`` with the ``y`` stacked along a new leading axis.

    ``xs`` may be None (then ``length`` is required and ``f`` receives None); ``reverse`` walks
    from the end (``ys`` stays in the order of ``xs``).
    """
    if not callable(f):
        raise TypeError(f"wt.scan: f must be a function, got {f!r}")
    device = _first_device(init, xs)
    c_leaves, c_tree = _leaves(init, "scan", "init", device)
    x_leaves, x_tree = _leaves(xs, "scan", "xs", device)
    n = _scan_length(x_leaves, length)
    x_avals = [(t.shape[1:], t.dtype, t.weak, None if t.names is None else t.names[1:],
                t.device) for t in x_leaves]
    c_avals = [_aval(t) for t in c_leaves]
    in_tree = pytree.TreeDef("tuple", None, (c_tree, x_tree))
    sub = _trace_sub(f, c_avals + x_avals, in_tree, "scan", "f", spread=True)
    out = sub.out_tree
    if out.kind not in ("tuple", "list") or len(out.children) != 2:
        raise TypeError(f"wt.scan: f must return a pair (carry, y), got the structure {out}")
    if out.children[0].num_leaves == len(c_leaves):
        promoted = _promote_weak(c_leaves, sub.out_avals[:len(c_leaves)])
        if promoted is not None:  # a weak initial carry takes f's dtype (as in JAX)
            c_leaves = promoted
            c_avals = [_aval(t) for t in c_leaves]
            sub = _trace_sub(f, c_avals + x_avals, in_tree, "scan", "f", spread=True)
            out = sub.out_tree
    c_out_tree, y_tree = out.children
    n_c = c_out_tree.num_leaves
    _check_same("scan", "init", c_tree, c_avals, "f's carry", c_out_tree, sub.out_avals[:n_c])
    y_avals = [((n,) + a[0], a[1], a[2], None if a[3] is None else (None,) + a[3], a[4])
               for a in sub.out_avals[n_c:]]
    trace = _tracing.active()
    if trace is None:
        device = _device_of(c_leaves + x_leaves)
        exe = Executable(sub.graph, device)
        carry, ys = _run_scan(exe, device, c_leaves, x_leaves, sub.captures, n, reverse,
                              y_avals)
        carry = _restore_meta(carry, c_avals)
        ys = _restore_meta(ys, y_avals)
    else:
        outs = _record(trace, "scan_loop", c_leaves + x_leaves, [sub], {"body": sub.graph},
                       c_avals + y_avals, {"length": n, "reverse": bool(reverse),
                                           "n_carry": len(c_leaves)})
        carry, ys = outs[:len(c_leaves)], outs[len(c_leaves):]
    return pytree.unflatten(c_out_tree, carry), pytree.unflatten(y_tree, ys)


def _scan_length(x_leaves, length) -> int:
    lengths = {t.shape[0] if t.ndim else None for t in x_leaves}
    if None in lengths:
        raise ValueError("wt.scan: every leaf of xs needs a leading axis to scan over; got a "
                         "0-d tensor")
    if length is not None:
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise TypeError(f"wt.scan: length must be a non-negative Python int, got "
                            f"{length!r}")
        lengths.add(length)
    if not lengths:
        raise ValueError("wt.scan: with xs=None, pass length= (the number of steps)")
    if len(lengths) > 1:
        raise ValueError(f"wt.scan: the leading axes of xs (and length=) disagree: "
                         f"{sorted(lengths)}; every leaf must have the same number of steps")
    return lengths.pop()


def _run_scan(exe, device, carry, xs, caps, n, reverse, y_avals):
    real = device._real_backend()
    ys = [Tensor._wrap(real.alloc(a[1], _s.size_of(a[0])), a[0], a[1], device) for a in y_avals]
    carry = list(carry)
    caps = list(caps)
    order = range(n - 1, -1, -1) if reverse else range(n)
    for t in order:
        x_t = [x._view(x.shape[1:], x.strides[1:], x.offset + t * x.strides[0])
               for x in xs]
        outs = exe(carry + x_t + caps)
        carry = outs[:len(carry)]
        for y, out in zip(ys, outs[len(carry):]):
            if out.size:
                real.assign(y._view(y.shape[1:], y.strides[1:], y.offset + t * y.strides[0]),
                            out)
    return carry, ys




def _scan_step(exe: Executable, index: int, node: Node):
    real, device = exe.real, exe.device
    builders = [exe._view_builder(v) for v in node.args]
    ((c0, c1),) = node.params["captures"]
    n_carry = node.params["n_carry"]
    n, reverse = node.params["length"], node.params["reverse"]
    body = Executable(node.params["graphs"]["body"], device)
    out_slots = [exe._slot_of(v) for v in node.results]
    y_avals = [(v.shape, v.dtype, False, None, device) for v in node.results[n_carry:]]

    def step(env):
        vals = [b(env) for b in builders]
        carry, ys = _run_scan(body, device, vals[:n_carry], vals[n_carry:c0], vals[c0:c1], n,
                              reverse, y_avals)
        for slot, t in zip(out_slots, carry + ys):
            env[slot] = _dense(real, t)
    return step


CONTROL["scan_loop"] = _scan_step


def fori_loop(lower, upper, body_fun, init_val):
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val)``.

    With Python-int bounds the trip count is known and the loop is a ``scan`` (no host reads,
    differentiable in both modes); with tensor bounds it is a ``while_loop``.  ``i`` is a 0-d
    tensor of the bounds' integer dtype (the default int for Python ints).
    """
    if not callable(body_fun):
        raise TypeError(f"wt.fori_loop: body_fun must be a function, got {body_fun!r}")
    static = all(b.__class__ is int for b in (lower, upper))
    if static:
        from ..api.creation import arange

        n = max(upper - lower, 0)

        def step(carry, i):
            return body_fun(i, carry), None
        idx = arange(lower, lower + n, dtype=_d.default_int_dtype(),
                     device=_first_device(init_val))
        carry, _ = scan(step, init_val, idx, length=n)
        return carry
    from ..api import elementwise as ew
    from ..api.creation import asarray

    device = _first_device(lower, upper, init_val)
    lo = lower if lower.__class__ is Tensor else asarray(lower, device=device)
    hi = upper if upper.__class__ is Tensor else asarray(upper, device=device)
    for b, what in ((lo, "lower"), (hi, "upper")):
        if b.ndim or b.dtype.kind not in "iu":
            raise TypeError(f"wt.fori_loop: {what} must be an integer scalar, got "
                            f"{b.dtype.name}{list(b.shape)}")
    def c(state):
        return ew.less(state[0], hi)

    def b(state):
        i, val = state
        return ew.add(i, 1), body_fun(i, val)
    _, out = while_loop(c, b, (lo, init_val))
    return out


def switch(index, branches, *operands):
    """``branches[index](*operands)``, index clamped to the valid range (JAX's lax.switch)."""
    branches = list(branches)
    if not branches or not all(callable(b) for b in branches):
        raise TypeError("wt.switch: branches must be a non-empty sequence of functions")
    if len(branches) == 1:
        return branches[0](*operands)
    from ..api import elementwise as ew

    i = ew.clip(index, 0, len(branches) - 1)
    if len(branches) == 2:
        return cond(ew.equal(i, 0), branches[0], branches[1], *operands)
    return cond(ew.equal(i, 0), branches[0],
                lambda *ops: switch(ew.subtract(i, 1), branches[1:], *ops), *operands)


__all__ = ["cond", "fori_loop", "scan", "switch", "while_loop"]


# -- replaying control nodes (inlining a graph that contains them) ---------------------------------

def _replay_cond(rp, node):
    args = [rp.tensor(v) for v in node.args]
    (t0, t1), (f0, f1) = node.params["captures"]
    graphs = node.params["graphs"]
    t_caps, f_caps = args[t0:t1], args[f0:f1]
    return cond(args[0], lambda *ops: inline(graphs["true"], list(ops) + t_caps),
                lambda *ops: inline(graphs["false"], list(ops) + f_caps), *args[1:t0])


def _replay_while(rp, node):
    args = [rp.tensor(v) for v in node.args]
    (c0, c1), (b0, b1) = node.params["captures"]
    graphs = node.params["graphs"]
    c_caps, b_caps = args[c0:c1], args[b0:b1]
    return while_loop(lambda c: inline(graphs["cond"], list(c) + c_caps)[0],
                      lambda c: inline(graphs["body"], list(c) + b_caps), args[:c0])


def _replay_scan(rp, node):
    args = [rp.tensor(v) for v in node.args]
    ((c0, c1),) = node.params["captures"]
    n_carry = node.params["n_carry"]
    caps = args[c0:c1]
    body = node.params["graphs"]["body"]

    def f(c, x):
        outs = inline(body, list(c) + list(x) + caps)
        return outs[:n_carry], outs[n_carry:]
    carry, ys = scan(f, args[:n_carry], args[n_carry:c0], length=node.params["length"],
                     reverse=node.params["reverse"])
    return list(carry) + list(ys)


CONTROL_REPLAY.update(cond=_replay_cond, while_loop=_replay_while, scan_loop=_replay_scan)


# -- reverse mode through control nodes ----------------------------------------------------------

def _float_positions(views) -> list[int]:
    return [i for i, v in enumerate(views) if v.dtype.kind in "fc"]


def _zeros_for(t: Tensor) -> Tensor:
    from ..api.creation import zeros
    from .ad import accumulation_dtype

    return zeros(t.shape, dtype=accumulation_dtype(t.dtype), device=t.device)


def _as_cotangent(g, t: Tensor) -> Tensor:
    from ..tensor import cast
    from .ad import accumulation_dtype

    if g is None:
        return _zeros_for(t)
    return cast(g, accumulation_dtype(t.dtype), weak=False)


def _cond_vjp(node, rp, gs):
    from .ad import backward

    views = list(node.args)
    (t0, t1), (f0, f1) = node.params["captures"]
    graphs = node.params["graphs"]
    pred = rp.tensor(views[0])
    ins = [rp.tensor(v) for v in views[1:]]
    n_ops, n_ins = t0 - 1, len(ins)
    diff = _float_positions(views[1:])
    outs = [rp.value(r) for r in node.results]
    g_outs = [_as_cotangent(g, o) for g, o in zip(gs, outs) if o.dtype.kind in "fc"]
    float_out = [k for k, o in enumerate(outs) if o.dtype.kind in "fc"]

    def branch(graph, lo, hi):
        def f(*args):
            ins_, gs_ = list(args[:n_ins]), list(args[n_ins:])
            sub = Replay(graph, ins_[:n_ops] + ins_[lo:hi])
            sub.run()
            cts = [None] * len(graph.outputs)
            for k, g in zip(float_out, gs_):
                cts[k] = g
            grads = backward(graph, sub, cts)
            result = []
            for i in diff:
                if i < n_ops:
                    g = grads[i]
                elif lo <= i < hi:
                    g = grads[n_ops + i - lo]
                else:
                    g = None
                result.append(_as_cotangent(g, ins_[i]))
            return result
        return f

    grads = cond(pred, branch(graphs["true"], t0 - 1, t1 - 1),
                 branch(graphs["false"], f0 - 1, f1 - 1), *ins, *g_outs)
    return [(views[1 + i], g) for i, g in zip(diff, grads)]


def _while_vjp(node, rp, gs):
    raise TypeError("wt.grad: reverse-mode differentiation through wt.while_loop is not "
                    "possible: its number of iterations is unknown while tracing. Use "
                    "wt.fori_loop with Python-int bounds or wt.scan (forward mode, wt.jvp, "
                    "works through while_loop)")


def _scan_vjp(node, rp, gs):
    from .ad import backward

    views = list(node.args)
    ((c0, c1),) = node.params["captures"]
    n_carry, length, reverse = (node.params["n_carry"], node.params["length"],
                                node.params["reverse"])
    body = node.params["graphs"]["body"]
    init = [rp.tensor(v) for v in views[:n_carry]]
    xs = [rp.tensor(v) for v in views[n_carry:c0]]
    caps = [rp.tensor(v) for v in views[c0:c1]]
    n_x = len(xs)
    outs = [rp.value(r) for r in node.results]
    c_diff = _float_positions(views[:n_carry])
    x_diff = _float_positions(views[n_carry:c0])
    k_diff = _float_positions(views[c0:c1])
    y_diff = [j for j, o in enumerate(outs[n_carry:]) if o.dtype.kind in "fc"]

    # the carry entering each step, recomputed by a forward scan
    def forward(c, x):
        res = inline(body, list(c) + list(x) + caps)
        return res[:n_carry], list(c)
    _, carries = scan(forward, init, xs, length=length, reverse=reverse)

    g_carry = [_as_cotangent(gs[i], outs[i]) for i in c_diff]
    g_ys = [_as_cotangent(gs[n_carry + j], outs[n_carry + j]) for j in y_diff]
    g_caps = [_zeros_for(caps[k]) for k in k_diff]

    def step(state, inp):
        gc, gk = state
        c_t, x_t, gy_t = inp
        sub = Replay(body, list(c_t) + list(x_t) + caps)
        sub.run()
        cts = [None] * len(body.outputs)
        for i, g in zip(c_diff, gc):
            cts[i] = g
        for j, g in zip(y_diff, gy_t):
            cts[n_carry + j] = g
        grads = backward(body, sub, cts)
        new_c = [_as_cotangent(grads[i], c_t[i]) for i in c_diff]
        g_x = [_as_cotangent(grads[n_carry + i], x_t[i]) for i in x_diff]
        new_k = [acc + _as_cotangent(grads[n_carry + n_x + k], caps[k])
                 for acc, k in zip(gk, k_diff)]
        return (new_c, new_k), g_x

    (g_init, g_k), g_xs = scan(step, (g_carry, g_caps), (carries, xs, g_ys), length=length,
                               reverse=not reverse)
    pairs = [(views[i], g) for i, g in zip(c_diff, g_init)]
    pairs += [(views[n_carry + i], g) for i, g in zip(x_diff, g_xs)]
    pairs += [(views[c0 + k], g) for k, g in zip(k_diff, g_k)]
    return pairs


def _register_vjps():
    from .rules import CONTROL_VJP

    CONTROL_VJP.update(cond=_cond_vjp, while_loop=_while_vjp, scan_loop=_scan_vjp)


_register_vjps()


# -- forward mode through control nodes ------------------------------------------------------------

def _jvp_sub(graph, ins, tans):
    """Outputs and their tangents (zeros where none) of ``graph`` on ``ins``."""
    from ..api.creation import zeros_like
    from .forward import Forward

    outs, out_t = Forward(graph, ins, tans).run()
    return outs, [zeros_like(o) if t is None or o.dtype.kind not in "fc" else t
                  for o, t in zip(outs, out_t)]


def _tangents_or_zeros(fw, views):
    from ..api.creation import zeros_like

    out = []
    for v in views:
        t = fw.tangent(v)
        out.append(zeros_like(fw.rp.tensor(v)) if t is None else t)
    return out


def _cond_jvp(fw, node):
    views = list(node.args)
    (t0, t1), (f0, f1) = node.params["captures"]
    graphs = node.params["graphs"]
    ins = [fw.rp.tensor(v) for v in views[1:]]
    tans = _tangents_or_zeros(fw, views[1:])
    n_ins, n_ops = len(ins), t0 - 1

    def branch(graph, lo, hi):
        def f(*args):
            a, t = list(args[:n_ins]), list(args[n_ins:])
            outs, out_t = _jvp_sub(graph, a[:n_ops] + a[lo:hi], t[:n_ops] + t[lo:hi])
            return outs + out_t
        return f

    res = cond(fw.rp.tensor(views[0]), branch(graphs["true"], t0 - 1, t1 - 1),
               branch(graphs["false"], f0 - 1, f1 - 1), *ins, *tans)
    k = len(node.results)
    return res[:k], res[k:]


def _while_jvp(fw, node):
    views = list(node.args)
    (c0, c1), (b0, b1) = node.params["captures"]
    graphs = node.params["graphs"]
    vals = [fw.rp.tensor(v) for v in views]
    tans = _tangents_or_zeros(fw, views)
    n = c0
    c_caps, b_caps = vals[c0:c1], vals[b0:b1]
    b_tans = tans[b0:b1]

    def cond_fun(state):
        c, _ = state
        return inline(graphs["cond"], list(c) + c_caps)[0]

    def body_fun(state):
        c, t = state
        outs, out_t = _jvp_sub(graphs["body"], list(c) + b_caps, list(t) + b_tans)
        return outs, out_t

    c, t = while_loop(cond_fun, body_fun, (vals[:n], tans[:n]))
    return list(c), list(t)


def _scan_jvp(fw, node):
    views = list(node.args)
    ((c0, c1),) = node.params["captures"]
    n_carry = node.params["n_carry"]
    body = node.params["graphs"]["body"]
    vals = [fw.rp.tensor(v) for v in views]
    tans = _tangents_or_zeros(fw, views)
    caps, k_tans = vals[c0:c1], tans[c0:c1]

    def f(state, inp):
        c, t = state
        x, tx = inp
        outs, out_t = _jvp_sub(body, list(c) + list(x) + caps, list(t) + list(tx) + k_tans)
        return (outs[:n_carry], out_t[:n_carry]), (outs[n_carry:], out_t[n_carry:])

    (c, t), (ys, tys) = scan(f, (vals[:n_carry], tans[:n_carry]),
                             (vals[n_carry:c0], tans[n_carry:c0]),
                             length=node.params["length"], reverse=node.params["reverse"])
    return list(c) + list(ys), list(t) + list(tys)


def _register_jvps():
    from .forward import CONTROL_JVP

    CONTROL_JVP.update(cond=_cond_jvp, while_loop=_while_jvp, scan_loop=_scan_jvp)


_register_jvps()


# -- vmap through control nodes --------------------------------------------------------------------

def _batch_sub(graph, ins, flags, size):
    """Outputs of ``graph`` run batched, every output given the batch axis."""
    from ..api import manipulation as _m
    from .batching import Batcher

    outs, out_flags = Batcher(graph, ins, flags, size).run()
    return [o if b else _m.broadcast_to(_m.expand_dims(o, axis=0), (size,) + o.shape)
            for o, b in zip(outs, out_flags)]


def _batched_args(bt, views):
    """(tensors with the batch axis in front where batched, flags)."""
    flags = [bt.is_batched(v.value) for v in views]
    return [bt.lifted(v) if f else bt.plain(v) for v, f in zip(views, flags)], flags


def _cond_batch(bt, node):
    from .batching import select_batched

    views = list(node.args)
    (t0, t1), (f0, f1) = node.params["captures"]
    graphs = node.params["graphs"]
    ins, flags = _batched_args(bt, views[1:])
    n_ops, size = t0 - 1, bt.size
    if not bt.is_batched(views[0].value):
        def branch(graph, lo, hi):
            return lambda *a: _batch_sub(graph, list(a[:n_ops]) + list(a[lo:hi]),
                                         flags[:n_ops] + flags[lo:hi], size)
        outs = cond(bt.plain(views[0]), branch(graphs["true"], t0 - 1, t1 - 1),
                    branch(graphs["false"], f0 - 1, f1 - 1), *ins)
        return outs, [True] * len(outs)
    # a predicate per example: both branches, then a per-example select
    yes = _batch_sub(graphs["true"], ins[:n_ops] + ins[t0 - 1:t1 - 1],
                     flags[:n_ops] + flags[t0 - 1:t1 - 1], size)
    no = _batch_sub(graphs["false"], ins[:n_ops] + ins[f0 - 1:f1 - 1],
                    flags[:n_ops] + flags[f0 - 1:f1 - 1], size)
    pred = bt.lifted(views[0])
    from ..api import elementwise as ew
    from ..api import manipulation as _m

    pred = _m.reshape(pred, (size,))
    if pred.dtype.kind != "b":
        pred = ew.not_equal(pred, 0)
    return [select_batched(pred, a, b) for a, b in zip(yes, no)], [True] * len(yes)


def _force_batched(t, flag, size):
    from ..api import manipulation as _m

    return t if flag else _m.broadcast_to(_m.expand_dims(t, axis=0), (size,) + t.shape)


def _while_batch(bt, node):
    from ..api import elementwise as ew
    from ..api import manipulation as _m
    from ..api import utility as _u
    from .batching import select_batched

    views = list(node.args)
    (c0, c1), (b0, b1) = node.params["captures"]
    graphs = node.params["graphs"]
    vals, flags = _batched_args(bt, views)
    size, n = bt.size, c0
    carry = [_force_batched(t, f, size) for t, f in zip(vals[:n], flags[:n])]
    c_caps, cf = vals[c0:c1], flags[c0:c1]
    b_caps, bf = vals[b0:b1], flags[b0:b1]

    def preds(c):
        p = _batch_sub(graphs["cond"], list(c) + c_caps, [True] * n + cf, size)[0]
        p = _m.reshape(p, (size,))
        return p if p.dtype.kind == "b" else ew.not_equal(p, 0)

    def cond_fun(c):
        return _u.any(preds(c))

    def body_fun(c):
        new = _batch_sub(graphs["body"], list(c) + b_caps, [True] * n + bf, size)
        live = preds(c)
        return [select_batched(live, a, b) for a, b in zip(new, c)]

    out = while_loop(cond_fun, body_fun, carry)
    return list(out), [True] * n


def _scan_batch(bt, node):
    from ..api import manipulation as _m

    views = list(node.args)
    ((c0, c1),) = node.params["captures"]
    n_carry = node.params["n_carry"]
    body = node.params["graphs"]["body"]
    vals, flags = _batched_args(bt, views)
    size = bt.size
    carry = [_force_batched(t, f, size) for t, f in zip(vals[:n_carry], flags[:n_carry])]
    # batched xs are (B, T, ...): scan walks T, so the batch axis goes second
    xs = [_m.moveaxis(t, 0, 1) if f else t for t, f in zip(vals[n_carry:c0],
                                                           flags[n_carry:c0])]
    x_flags = flags[n_carry:c0]
    caps, k_flags = vals[c0:c1], flags[c0:c1]

    def f(c, x):
        outs = _batch_sub(body, list(c) + list(x) + caps,
                          [True] * n_carry + x_flags + k_flags, size)
        return outs[:n_carry], outs[n_carry:]

    c, ys = scan(f, carry, xs, length=node.params["length"], reverse=node.params["reverse"])
    ys = [_m.moveaxis(y, 1, 0) for y in ys]
    return list(c) + ys, [True] * (len(c) + len(ys))


def _register_batching():
    from .batching import CONTROL_BATCH

    CONTROL_BATCH.update(cond=_cond_batch, while_loop=_while_batch, scan_loop=_scan_batch)


_register_batching()
