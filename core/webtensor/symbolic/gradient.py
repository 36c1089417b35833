"""``grad(cost, wrt)``: symbolic gradients.

A gradient is a node of the graph like any other (:class:`Grad`).  When the function runs,
its op evaluates the part of the graph between ``wrt`` and ``cost`` again inside ``wt.grad``:
webtensor's reverse-mode autodiff (one rule per primitive, the same rules every front end
uses) then records the backward pass into the same traced program as the forward pass.
Everything that does not depend on ``wrt`` is computed once and read as a constant of the
differentiation.
"""

from __future__ import annotations

import warnings

import webtensor as wt

from . import _dtypes as _dt
from .basic import as_tensor_variable, zeros_like
from .evaluate import Evaluator
from .graph import Apply, Op, Variable, ancestors, depends_on, toposort


class DisconnectedInputError(ValueError):
    """A variable in ``wrt`` is not part of the graph computing ``cost``."""


class Grad(Op):
    """The gradients of the scalar ``cost`` (input 0) with respect to the other inputs."""

    def __init__(self, consider_constant=()):
        self.consider_constant = tuple(consider_constant)

    def _props(self):
        return (id(self),)

    def __str__(self):
        return "Grad"

    def make_node(self, cost, *wrt):
        node = Apply(self, [cost, *wrt], [w.type for w in wrt])
        blocked = {id(v) for v in self.consider_constant}
        dep = depends_on([cost], wrt) - blocked
        for w in wrt:
            dep.add(id(w))
        # what the differentiated part reads from the rest of the graph
        needs = {}
        for n in toposort([cost]):
            if any(id(o) in dep for o in n.outputs):
                for i in n.inputs:
                    if id(i) not in dep:
                        needs.setdefault(id(i), i)
        node.tag.recompute = frozenset(dep)
        node.tag.needs = list(needs.values())
        return node

    def perform(self, ev, node, inputs):
        cost = node.inputs[0]
        wrt = node.inputs[1:]
        for v in node.tag.needs:  # computed here, outside the differentiated function
            ev.value(v)
        recompute = node.tag.recompute

        def f(*values):
            sub = Evaluator(ev.device, parent=ev, recompute=recompute)
            for w, t in zip(wrt, values):
                sub.bind(w, t)
            return sub.value(cost)

        grads = wt.grad(f, argnums=tuple(range(len(wrt))))(*inputs[1:])
        return list(grads)

    def pp(self, node, args):
        return f"grad({args[0]}, [{', '.join(args[1:])}])"


def grad(cost, wrt, consider_constant=None, disconnected_inputs="raise", add_names=True,
         known_grads=None, return_disconnected="zero", null_gradients="raise"):
    """Symbolic gradients of the scalar ``cost`` with respect to ``wrt`` (a variable, or a
    list of them: then a list of gradients), each of its variable's type.

    ``consider_constant``: variables not differentiated through.  ``disconnected_inputs``:
    'raise' (DisconnectedInputError), 'warn' or 'ignore' for a ``wrt`` that ``cost`` does
    not depend on; ``return_disconnected`` says what its gradient is then ('zero' or 'none').
    """
    if known_grads is not None:
        raise NotImplementedError("grad: known_grads is not supported; differentiate a cost")
    if cost is None:
        raise TypeError("grad: cost is required (known_grads is not supported)")
    cost = as_tensor_variable(cost)
    if cost.type.ndim != 0:
        raise TypeError(f"Cost must be a scalar: grad got {cost} of type {cost.type}; reduce it "
                        f"with .sum() or .mean()")
    if cost.type.dtype not in _dt.FLOAT:
        raise TypeError(f"grad: the cost {cost} is {cost.type.dtype}; gradients need a "
                        f"floating-point cost: cast it (at.cast(cost, 'float64'))")
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else list(wrt)
    for w in wrt_list:
        if not isinstance(w, Variable):
            raise TypeError(f"grad: wrt must be symbolic variables, got {w!r}")
        if w.type.dtype not in _dt.FLOAT and w.type.dtype not in _dt.COMPLEX:
            raise TypeError(f"grad: {w} is {w.type.dtype}; gradients are taken with respect to "
                            f"floating-point variables (PyTensor would return a float "
                            f"gradient here); cast it first and differentiate the cast")
        if w.type.dtype in _dt.COMPLEX:
            raise TypeError(f"grad: complex variables ({w}) are not supported")
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError(f"grad: disconnected_inputs must be 'raise', 'warn' or 'ignore', got "
                         f"{disconnected_inputs!r}")
    consider = list(consider_constant or [])
    reachable = {id(v) for v in ancestors([cost])}
    connected = [w for w in wrt_list if id(w) in reachable]
    out = {}
    if connected:
        results = Grad(consider)(cost, *connected)
        results = results if isinstance(results, list) else [results]
        for w, g in zip(connected, results):
            if add_names and cost.name is not None and w.name is not None:
                g.name = f"(d{cost.name}/d{w.name})"
            out[id(w)] = g
    final = []
    for w in wrt_list:
        if id(w) in out:
            final.append(out[id(w)])
            continue
        msg = (f"grad: the cost {cost} does not depend on {w} ({w.type}): it is not part of "
               f"the graph computing the cost. Pass disconnected_inputs='ignore' to get zeros")
        if disconnected_inputs == "raise":
            raise DisconnectedInputError(msg)
        if disconnected_inputs == "warn":
            warnings.warn(msg, stacklevel=2)
        final.append(None if return_disconnected == "none" else zeros_like(w))
    return final[0] if single else final
