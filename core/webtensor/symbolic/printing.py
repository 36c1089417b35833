"""Printing graphs: ``pp`` (an expression, in PyTensor's notation) and ``debugprint`` (the
graph as a tree of ops with ids, as ``pytensor.printing.debugprint``)."""

from __future__ import annotations

import sys

from .graph import Variable


def pp(var) -> str:
    """``var`` as an expression: ``((x * 2) + y)``, ``sum(x, axis=None)``, ``x[0, 1:]``."""
    memo: dict = {}
    from .graph import toposort

    def text(v):
        found = memo.get(id(v))
        if found is not None:
            return found
        if v.owner is None:
            return str(v)
        return memo[id(v)]

    if not isinstance(var, Variable):
        raise TypeError(f"pp: expected a symbolic variable, got {var!r}")
    for node in toposort([var]):
        args = [text(i) for i in node.inputs]
        s = node.op.pp(node, args)
        for k, o in enumerate(node.outputs):
            memo[id(o)] = s if len(node.outputs) == 1 else f"{s}.{k}"
    return text(var)


def _ids():
    n = 0
    while True:
        k = n
        label = ""
        while True:
            label = chr(ord("A") + k % 26) + label
            k = k // 26 - 1
            if k < 0:
                break
        yield label
        n += 1


def debugprint(obj, file=None, depth=-1, print_type=False, ids="CHAR", stop_on_name=False,
               **kwargs):
    """Print the graph computing ``obj`` (a variable, a list of them, or a compiled
    function) as a tree; ``file='str'`` returns the text instead of printing it."""
    from .function import Function

    if isinstance(obj, Function):
        roots = obj.outputs + obj.update_values
    elif isinstance(obj, (list, tuple)):
        roots = list(obj)
    else:
        roots = [obj]
    gen = _ids()
    labels: dict = {}
    expanded: set = set()
    lines: list = []

    def label_of(key):
        if key not in labels:
            labels[key] = next(gen)
        return labels[key]

    def line(v):
        node = v.owner
        if node is None:
            head = str(v)
            key = id(v)
        else:
            head = str(node.op)
            if len(node.outputs) > 1:
                head += f".{v.index}"
            key = id(node)
        text = head
        if ids:
            text += f" [id {label_of(key)}]"
        if print_type:
            text += f" <{v.type}>"
        if node is not None and v.name is not None:
            text += f" '{v.name}'"
        return text, node, key

    def walk(root):
        stack = [(root, "", "", 0)]  # explicit, so deep graphs print too
        while stack:
            v, prefix, child_prefix, level = stack.pop()
            text, node, key = line(v)
            lines.append(prefix + text)
            if node is None or key in expanded or (depth >= 0 and level >= depth):
                continue
            if stop_on_name and v.name is not None and level > 0:
                continue
            expanded.add(key)
            children = []
            for k, i in enumerate(node.inputs):
                last = k == len(node.inputs) - 1
                children.append((i, child_prefix + (" └─ " if last else " ├─ "),
                                 child_prefix + ("   " if last else " │ "), level + 1))
            stack.extend(reversed(children))

    for r in roots:
        walk(r)
    out = "\n".join(lines) + "\n"
    if file == "str":
        return out
    stream = sys.stdout if file is None else file
    stream.write(out)
    return stream


dprint = debugprint


def pprint(var) -> None:
    print(pp(var))


__all__ = ["debugprint", "dprint", "pp", "pprint"]
