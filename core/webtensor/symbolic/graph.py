"""The graph: variables, the applications of ops that produce them, and walks over both.

As in PyTensor, a :class:`Variable` is produced by at most one :class:`Apply` (its ``owner``;
inputs, constants and shared variables have none), and an ``Apply`` records an :class:`Op`,
its input variables and its output variables.  Variables compare and hash by identity, so
they key dictionaries (``givens``, ``eval``'s inputs) as in PyTensor.
"""

from __future__ import annotations

import types


class Variable:
    """A node of the graph standing for a value of ``type``."""

    def __init__(self, type, owner=None, index=None, name=None):
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self.tag = types.SimpleNamespace()

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        if self.owner is not None:
            if len(self.owner.outputs) == 1 and getattr(self.owner.op, "single_name", False):
                return str(self.owner.op)
            return f"{self.owner.op}.{self.index}"
        return f"<{self.type}>"

    __repr__ = __str__

    def get_parents(self) -> list:
        return [self.owner] if self.owner is not None else []

    def eval(self, inputs_to_values=None, **kwargs):
        """Compile a function from the variables in ``inputs_to_values`` (a dict; keys may also
        be variable names) to this variable, cached per set of inputs, and run it."""
        from .function import eval_variable

        return eval_variable(self, inputs_to_values, kwargs)


class Apply:
    """One application of ``op`` to ``inputs``, producing ``outputs`` of the given types."""

    def __init__(self, op, inputs, output_types):
        from .variable import TensorVariable

        self.op = op
        self.inputs = list(inputs)
        self.outputs = [TensorVariable(t, self, i) for i, t in enumerate(output_types)]
        self.tag = types.SimpleNamespace()

    @property
    def out(self):
        return self.outputs[0]

    def default_output(self):
        if len(self.outputs) != 1:
            raise ValueError(f"{self.op} has {len(self.outputs)} outputs; pick one")
        return self.outputs[0]

    @property
    def nin(self) -> int:
        return len(self.inputs)

    @property
    def nout(self) -> int:
        return len(self.outputs)

    def __str__(self) -> str:
        return f"{self.op}({', '.join(str(i) for i in self.inputs)})"

    __repr__ = __str__


class Op:
    """An operation: ``make_node`` types its outputs when the graph is built; ``perform`` runs
    it on webtensor tensors (under ``wt.jit`` when a function is compiled).

    ``__props__`` names the attributes that identify the op (equality, hashing, printing).
    """

    __props__: tuple = ()
    single_name = False  # print a single-output variable as the op alone (PyTensor's argmax)

    def _props(self) -> tuple:
        return tuple(getattr(self, p) for p in self.__props__)

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        return hash((type(self), self._props()))

    def __str__(self) -> str:
        if not self.__props__:
            return type(self).__name__
        inner = ", ".join(f"{p}={getattr(self, p)!r}" for p in self.__props__)
        return f"{type(self).__name__}{{{inner}}}"

    __repr__ = __str__

    def make_node(self, *inputs) -> Apply:  # pragma: no cover - every op defines it
        raise NotImplementedError

    def __call__(self, *inputs):
        node = self.make_node(*inputs)
        return node.outputs[0] if len(node.outputs) == 1 else node.outputs

    def perform(self, ev, node, inputs) -> list:  # pragma: no cover
        raise NotImplementedError

    def pp(self, node, args: list) -> str:
        """How ``pp`` writes this application given its inputs' text."""
        return f"{self}({', '.join(args)})"


# -- walks -----------------------------------------------------------------------------------

def toposort(outputs, stop=frozenset()) -> list:
    """The Apply nodes computing ``outputs``, each after the nodes of its inputs (variables in
    ``stop`` count as leaves).  Iterative, so deep graphs do not hit the recursion limit."""
    order = []
    seen = set()
    for out in outputs:
        if out.owner is None or id(out) in stop or id(out.owner) in seen:
            continue
        stack = [(out.owner, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for i in reversed(node.inputs):
                if i.owner is not None and id(i) not in stop and id(i.owner) not in seen:
                    stack.append((i.owner, False))
    return order


def ancestors(outputs, stop=frozenset()) -> list:
    """Every variable ``outputs`` depend on (themselves included), inputs before users."""
    seen = {}
    for node in toposort(outputs, stop):
        for v in node.inputs:
            seen.setdefault(id(v), v)
        for v in node.outputs:
            seen.setdefault(id(v), v)
    for v in outputs:
        seen.setdefault(id(v), v)
    return list(seen.values())


def graph_inputs(outputs, stop=frozenset()) -> list:
    """The variables without an owner that ``outputs`` depend on (in first-use order)."""
    found = {}
    for v in ancestors(outputs, stop):
        if v.owner is None or id(v) in stop:
            found.setdefault(id(v), v)
    return list(found.values())


def depends_on(outputs, targets) -> set:
    """ids of the variables among ``ancestors(outputs)`` that depend on any of ``targets``
    (the targets included)."""
    hit = {id(t) for t in targets}
    for node in toposort(outputs):
        if any(id(i) in hit for i in node.inputs):
            hit.update(id(o) for o in node.outputs)
    return hit
