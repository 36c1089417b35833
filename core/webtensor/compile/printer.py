"""A readable listing of a graph, like ``jax.make_jaxpr``: one line per node, values named
a, b, c..., types as ``f32[3,4]`` with ``~`` marking weak dtypes and ``name:size`` axes.

    { lambda a:f32[3] b:~f32[] ;
        c:f32[3] = binary.multiply a b[broadcast 3]
        d:f32[] = reduce.sum[axes=(0,)] c
      in (d,) }
"""

from __future__ import annotations

import functools
import inspect

from ..backends.base import Backend
from .ir import Graph, View

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_CONTROL_NAMES = {"cond": "cond", "while_loop": "while", "scan_loop": "scan"}


def _name(i: int) -> str:
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = _LETTERS[r] + out
    return out


def type_str(dtype, shape, weak=False, names=None) -> str:
    if names is None:
        dims = ",".join(map(str, shape))
    else:
        dims = ",".join(f"{n}:{s}" if n is not None else str(s) for n, s in zip(names, shape))
    return f"{'~' if weak else ''}{dtype.short}[{dims}]"


class _Namer:
    def __init__(self):
        self.names: dict[int, str] = {}

    def __call__(self, value) -> str:
        found = self.names.get(value.id)
        if found is None:
            found = self.names[value.id] = _name(len(self.names))
        return found


def format_graph(graph: Graph, indent: int = 0) -> str:
    namer = _Namer()
    pad = " " * indent
    ins = " ".join(f"{namer(v)}:{type_str(v.dtype, v.shape, *_aval(graph, i))}"
                   for i, v in enumerate(graph.inputs))
    lines = [f"{pad}{{ lambda {ins} ;"]
    for node in graph.nodes:
        lines.extend(_node_lines(node, namer, pad + "    "))
    outs = ", ".join(_ref(v, namer) for v in graph.outputs)
    comma = "," if len(graph.outputs) == 1 else ""
    lines.append(f"{pad}  in ({outs}{comma}) }}")
    return "\n".join(lines)


def _aval(graph, i):
    if i < len(graph.in_avals):
        return graph.in_avals[i]
    return (False, None)


def _ref(view, namer) -> str:
    if not isinstance(view, View):
        return repr(view)
    value = view.value
    if value.kind == "lit":
        return f"{value.payload!r}:{value.dtype.short}"
    name = namer(value)
    if value.kind == "const":
        name = f"{name}(const)"
    kind = view.kind()
    if not kind:
        return name
    dims = "x".join(map(str, view.shape)) or "scalar"
    return f"{name}[{kind} {dims}]"


@functools.cache
def _arg_names(prim: str) -> tuple[str, ...]:
    """The contract's parameter names of ``prim`` (``backends/base.py``), for labels."""
    method = getattr(Backend, prim, None)
    if method is None:
        return ()
    return tuple(inspect.signature(method).parameters)[1:]


def _params(node) -> str:
    skip = {node.wpos} | ({0} if node.op is not None else set())
    names = _arg_names(node.prim)
    shown = []
    for i, a in enumerate(node.args):
        if i in skip or isinstance(a, View):
            continue
        label = names[i] if i < len(names) else f"arg{i}"
        shown.append(f"{label}={a!r}")
    return f"[{', '.join(shown)}]" if shown else ""


def _node_lines(node, namer, pad) -> list[str]:
    if node.prim in _CONTROL_NAMES:
        return _control_lines(node, namer, pad)
    if node.prim == "host":
        return _host_lines(node, namer, pad)
    w = node.written
    out = node.results[0]
    target = f"{namer(out)}:{type_str(out.dtype, w.shape, w.weak, w.names)}"
    if node.base is not None or not w.dense:
        target += f" (writes {w.kind() or 'all'} of {namer(node.base) if node.base else 'new'})"
    name = node.prim if node.op is None else f"{node.prim}.{node.op}"
    ins = " ".join(_ref(a, namer) for i, a in enumerate(node.args)
                   if i != node.wpos and isinstance(a, View))
    return [f"{pad}{target} = {name}{_params(node)} {ins}".rstrip()]


def _control_lines(node, namer, pad) -> list[str]:
    outs = " ".join(f"{namer(v)}:{type_str(v.dtype, v.shape)}" for v in node.results)
    ins = " ".join(_ref(a, namer) for a in node.args if isinstance(a, View))
    head = f"{pad}{outs} = {_CONTROL_NAMES[node.prim]}"
    extra = {k: v for k, v in node.params.items() if k in ("length", "reverse")
             and (k != "reverse" or v)}
    if extra:
        head += "[" + ", ".join(f"{k}={v!r}" for k, v in extra.items()) + "]"
    lines = [f"{head} {ins}".rstrip()]
    for label, sub in node.params["graphs"].items():
        lines.append(f"{pad}  {label}:")
        lines.append(format_graph(sub, indent=len(pad) + 4))
    return lines


def _host_lines(node, namer, pad) -> list[str]:
    """``b:f32[3,3] c:f32[3,3] = host.linalg.qr[mode='reduced'] a``."""
    outs = " ".join(f"{namer(v)}:{type_str(v.dtype, v.shape)}" for v in node.results)
    ins = " ".join(_ref(a, namer) for a in node.args[1:])
    shown = ", ".join(f"{k}={v!r}" for k, v in node.params["static"].items()
                      if k not in ("dt", "out_dt"))  # the result types already show those
    return [f"{pad}{outs} = host.{node.op}{f'[{shown}]' if shown else ''} {ins}".rstrip()]


def format_kernels(original: Graph, graph: Graph, device) -> str:
    """The kernels ``graph`` (a partition of ``original``) runs on ``device``, one block each."""
    namer = _Namer()
    for v in original.inputs:
        namer(v)
    for node in original.nodes:  # name values as the plain listing does
        for v in node.results:
            namer(v)
    lines = [f"{original.fun_name} on {device.name}: {len(graph.nodes)} kernel"
             f"{'s' if len(graph.nodes) != 1 else ''} for {len(original.nodes)} node"
             f"{'s' if len(original.nodes) != 1 else ''}"]
    for k, node in enumerate(graph.nodes, 1):
        if node.prim == "fused":
            ins = " ".join(sorted({_ref(v, namer) for v in node.inputs}))
            outs = " ".join(namer(v) for v in node.results)
            lines.append(f"  kernel {k}: fused {len(node.members)} ops, reads {ins or '-'}, "
                         f"writes {outs}")
            for m in node.members:
                lines.extend(_node_lines(m, namer, "      "))
        elif node.prim in ("fused_reduce", "fused_matmul"):
            parts = [p for p in (node.prologue, node.epilogue) if p is not None]
            what = " and ".join(w for w, p in (("prologue", node.prologue),
                                                ("epilogue", node.epilogue)) if p is not None)
            ins = " ".join(sorted({_ref(v, namer) for v in node.reads()}))
            outs = " ".join(namer(v) for v in node.results)
            anchor = "reduction" if node.anchor.prim == "reduce" else "matmul"
            lines.append(f"  kernel {k}: {anchor} with a fused {what} "
                         f"({sum(len(p.members) for p in parts)} ops), reads {ins or '-'}, "
                         f"writes {outs}")
            for p in (node.prologue, node.anchor, node.epilogue):
                for m in ([] if p is None else getattr(p, "members", [p])):
                    lines.extend(_node_lines(m, namer, "      "))
        else:
            lines.append(f"  kernel {k}:")
            lines.extend(_node_lines(node, namer, "      "))
    return "\n".join(lines)
