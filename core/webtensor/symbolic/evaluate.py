"""Running a symbolic graph: each node's op calls webtensor functions on the values of its
inputs.  A compiled function runs this under ``wt.jit``, so the calls are traced into one
program (fused on WebGPU, cached per argument signature); ``grad`` runs it again inside
``wt.grad`` for the part of the graph that depends on the variables it differentiates by.
"""

from __future__ import annotations

import webtensor as wt

from .. import _tracing
from .variable import TensorConstant


class EvaluationError(ValueError):
    """A graph could not be evaluated (an input without a value, a size that depends on
    input values)."""


class Evaluator:
    """Values of the variables of one graph on ``device`` (``parent``: an evaluator whose
    values are reused for every variable not in ``recompute``)."""

    def __init__(self, device, parent=None, recompute=frozenset(), replace=None):
        self.device = device
        self.parent = parent
        self.recompute = recompute
        self.replace = replace if replace is not None else (
            parent.replace if parent is not None else {})
        self.values: dict = {}
        self._static: dict = {}

    def bind(self, var, tensor) -> None:
        self.values[id(var)] = tensor

    # -- values ------------------------------------------------------------------------------
    def _resolve(self, v):
        """The value of ``v`` if no node has to run here for it, else None."""
        vid = id(v)
        found = self.values.get(vid)
        if found is not None:
            return found
        if vid in self.replace:
            return None
        if self.parent is not None and vid not in self.recompute:
            return self.parent.value(v)
        if isinstance(v, TensorConstant):
            found = self.values[vid] = v.on(self.device)
            return found
        return None

    def value(self, var):
        """The tensor ``var`` stands for (running the nodes it needs, inputs first)."""
        found = self._resolve(var)
        if found is not None:
            return found
        stack = [var]
        while stack:
            v = stack[-1]
            vid = id(v)
            if vid in self.values:
                stack.pop()
                continue
            rep = self.replace.get(vid)
            if rep is not None:
                t = self._resolve(rep)
                if t is None:
                    stack.append(rep)
                    continue
                self.values[vid] = t
                stack.pop()
                continue
            t = self._resolve(v)
            if t is not None:
                stack.pop()
                continue
            node = v.owner
            if node is None:
                raise EvaluationError(f"no value was given for the input {v} ({v.type})")
            pending = False
            for i in node.inputs:
                if self._resolve(i) is None:
                    stack.append(i)
                    pending = True
            if pending:
                continue
            self._run(node)
            stack.pop()
        return self.values[id(var)]

    def _run(self, node) -> None:
        ins = [self._resolve(i) for i in node.inputs]
        outs = node.op.perform(self, node, ins)
        for var, t in zip(node.outputs, outs):
            want = var.type
            if t.dtype.name != want.dtype:
                raise AssertionError(f"internal error: {node.op} computed {t.dtype.name} where "
                                     f"its type says {want.dtype}")
            for d, (got, static) in enumerate(zip(t.shape, want.shape)):
                if static is not None and got != static:
                    raise ValueError(f"{node.op}: the result has size {got} in axis {d}, but "
                                     f"its static type {want} says {static} (the arguments "
                                     f"contradict a declared shape)")
            if len(t.shape) != want.ndim:
                raise AssertionError(f"internal error: {node.op} computed a {len(t.shape)}-d "
                                     f"result for a {want.ndim}-d type")
            self.values[id(var)] = t

    # -- sizes ------------------------------------------------------------------------------
    def static(self, var):
        """What ``var`` (a size, a shape vector, a slice bound) is while the program is being
        built: shapes are known then, values of the inputs are not."""
        from .basic import static_value
        from .shape import Shape

        found = static_value(var)
        if found is not None and not (isinstance(found, list) and None in found):
            return found
        vid = id(var)
        if vid in self._static:
            return self._static[vid]
        rep = self.replace.get(vid)
        if rep is not None:
            return self.static(rep)
        node = var.owner
        if node is None:
            if self.parent is not None:
                return self.parent.static(var)
            raise EvaluationError(
                f"a size, shape or slice bound depends on the value of the input {var} "
                f"({var.type}); webtensor compiles one program per argument shapes, so sizes "
                f"must follow from shapes and constants")
        if isinstance(node.op, Shape):
            result = list(self.value(node.inputs[0]).shape)
        else:
            host = wt.device.cpu
            eager = Evaluator(host)
            eager.static = self.static
            known = [self.static(i) for i in node.inputs]  # may read traced shapes
            with _tracing.suspended():
                ins = [wt.asarray(s, dtype=wt.dtype(i.type.dtype), device=host)
                       for s, i in zip(known, node.inputs)]
                outs = node.op.perform(eager, node, ins)
                result = outs[var.index].tolist()
        self._static[vid] = result
        return result
