"""The ``host`` node: one call of a host function (``api/_host.py``: the decompositions of
``wt.linalg``, the transforms of ``wt.fft``) inside a program.

``node.op`` is the function's name, ``node.args[1:]`` the views it reads and
``node.params["static"]`` its keyword parameters; its results are fresh dense values.  Every
transform of the compiler treats it as one more primitive:

* running (``execute.CONTROL``): the function is called on the concrete input tensors, through
  the device's own backend (NumPy, the pure-Python kernels, or a WebGPU read-back);
* replaying (``replay.CONTROL_REPLAY``): ``api._host.call`` again, which computes outside a
  trace and records a new node inside one;
* vmap (``batching.CONTROL_BATCH``): the functions take stacks of matrices or signals, so a
  batch axis becomes one more leading dimension (parameters naming an axis move by one);
* jvp and vjp: the rules of ``host_rules.py``.  A function without a rule raises
  :class:`~webtensor.compile.rules.NoDerivativeError` naming it, never a silent zero.
"""

from __future__ import annotations

from ..api import creation as _c
from ..api._host import HOST, call
from ..tensor import cast
from . import pytree
from .batching import CONTROL_BATCH
from .execute import CONTROL
from .forward import CONTROL_JVP
from .host_rules import HOST_RULES
from .replay import CONTROL_REPLAY, Replay
from .rules import CONTROL_VJP, _no_rule


def _avals(node):
    return [(v.shape, v.dtype) for v in node.results]


def _static(node) -> dict:
    return node.params["static"]


def _rule(name: str):
    rule = HOST_RULES.get(name)
    if rule is None:
        _no_rule(f"wt.{name}")
    return rule


# -- running -----------------------------------------------------------------------------------

def _host_step(exe, index: int, node):
    from .control import _dense

    run = HOST[node.op].run
    static = _static(node)
    builders = [exe._view_builder(v) for v in node.args[1:]]
    outs = [(exe._slot_of(v), v) for v in node.results]
    real = exe.real

    def step(env):
        res = run(*[b(env) for b in builders], **static)
        res = res if isinstance(res, tuple) else (res,)
        for (slot, value), t in zip(outs, res):
            if t.shape != value.shape or t.dtype is not value.dtype:  # pragma: no cover
                raise AssertionError(f"host function {node.op} returned {t.dtype.name}"
                                     f"{list(t.shape)}, its node promised "
                                     f"{value.dtype.name}{list(value.shape)}")
            env[slot] = _dense(real, t)
    return step


def _host_replay(rp, node):
    return call(node.op, [rp.tensor(v) for v in node.args[1:]], _avals(node), **_static(node))


# -- vmap --------------------------------------------------------------------------------------

def _host_batch(bt, node):
    views = node.args[1:]
    static = _static(node)
    if not any(bt.is_batched(v.value) for v in views):
        outs = call(node.op, [bt.plain(v) for v in views], _avals(node), **static)
        return outs, [False] * len(outs)
    # unbatched inputs join with a stride-0 batch axis (the functions broadcast nothing)
    ins = [bt.lifted(v) for v in views]
    moved = dict(static)
    for p in HOST[node.op].axis_params:
        moved[p] = static[p] + 1
    avals = [((bt.size,) + shape, dt) for shape, dt in _avals(node)]
    outs = call(node.op, ins, avals, **moved)
    return outs, [True] * len(outs)


# -- forward mode ------------------------------------------------------------------------------

def _differentiable(t) -> bool:
    return t.dtype.kind in "fc"


def _host_jvp(fw, node):
    views = node.args[1:]
    ins = [fw.rp.tensor(v) for v in views]
    outs = call(node.op, ins, _avals(node), **_static(node))
    tans = [fw.tangent(v) if _differentiable(v) else None for v in views]
    if all(t is None for t in tans) or not any(_differentiable(o) for o in outs):
        return outs, [None] * len(outs)
    out_t = _rule(node.op).jvp(ins, outs, tans, **_static(node))
    return outs, [None if t is None or not _differentiable(o) else cast(t, o.dtype, weak=False)
                  for o, t in zip(outs, out_t)]


# -- reverse mode ------------------------------------------------------------------------------

def _host_vjp(node, rp, gs):
    views = node.args[1:]
    diff = [i for i, v in enumerate(views) if _differentiable(v)]
    outs = [rp.value(r) for r in node.results]
    if not diff or not any(_differentiable(o) for o in outs):
        return []
    ins = [rp.tensor(v) for v in views]
    rule = _rule(node.op)
    static = _static(node)
    if rule.vjp is not None:
        cts = rule.vjp(ins, outs, gs, **static)
    else:
        cts = transpose_jvp(rule.jvp, ins, outs, gs, static, diff)
    return [(views[i], cts[i]) for i in diff if cts[i] is not None]


def transpose_jvp(jvp, ins, outs, gs, static, diff) -> list:
    """Cotangents of ``ins`` from those of ``outs`` (``gs``, None: zero), by transposing the
    forward rule: ``jvp`` is linear in the tangents, so reverse mode through it (on zero
    tangents; the point does not matter) is its transpose.  Only the values that depend on
    the tangents get cotangents: the primal work inside the rule (an inverse, a
    decomposition) is replayed once and never differentiated."""
    from .ad import backward, trace_function

    def linear(*ts):
        tans = [None] * len(ins)
        for i, t in zip(diff, ts):
            tans[i] = t
        out_t = jvp(ins, outs, tans, **static)
        return tuple(_c.zeros_like(o) if t is None else cast(t, o.dtype, weak=False)
                     for o, t in zip(outs, out_t))

    leaves = [_c.zeros(ins[i].shape, dtype=ins[i].dtype, device=ins[i].device) for i in diff]
    _, in_tree = pytree.flatten(tuple(leaves))
    traced = trace_function(linear, leaves, in_tree, "grad")
    graph = traced.graph
    rp = Replay(graph, leaves + traced.captures)
    rp.run()
    live = {v.id for v in graph.inputs[:len(leaves)]}
    for node in graph.nodes:
        if any(v.id in live for v in node.read_values()):
            live.update(r.id for r in node.results)
    stop = frozenset(v.id for v in graph.values() if v.id not in live)
    grads = backward(graph, rp, list(gs), stop)
    cts = [None] * len(ins)
    for i, g in zip(diff, grads[:len(leaves)]):
        cts[i] = g
    return cts


CONTROL["host"] = _host_step
CONTROL_REPLAY["host"] = _host_replay
CONTROL_BATCH["host"] = _host_batch
CONTROL_JVP["host"] = _host_jvp
CONTROL_VJP["host"] = _host_vjp
