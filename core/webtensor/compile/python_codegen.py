"""Fused elementwise groups on the pure-Python CPU backend.

A group becomes one generated Python function (compiled once per group) that reads its external
inputs once, chains the backend's list kernels (``backends/_pyops.py``) and converts each node's
result to its dtype right away (int8 wraps, float32/float16 round), exactly as the eager store
would; intermediate values never go through a buffer or a strided view.  The backend's results
are bit for bit those of node-by-node execution.
"""

from __future__ import annotations

from ..backends import _pycodec as _c
from ..backends._pyops import BINARY, UNARY
from ..backends.cpu_python import read_view
from ..tensor import Tensor
from .fuse import Group
from .ir import Node

_FUSABLE_PRIMS = ("unary", "binary", "where", "cast", "copy")


def max_bindings(backend) -> int:
    return 1 << 30  # lists: no limit on how many a function reads


def fusable(node: Node) -> bool:
    if node.prim not in _FUSABLE_PRIMS or node.base is not None:
        return False
    if node.prim == "unary" and node.op not in UNARY:
        return False
    if node.prim == "binary" and node.op not in BINARY:
        return False
    return node.written.identity and node.results[0].size > 0


def _source(group: Group, input_index: dict) -> tuple[str, dict]:
    env = {"convert": _c.convert}
    lines = []
    reg: dict[int, str] = {}

    def ref(view) -> str:
        found = reg.get(view.value.id)
        if found is not None and any(m.results[0] is view.value for m in group.members):
            return found
        return f"r{input_index[_key(view)]}"

    for k, node in enumerate(group.members):
        out = node.results[0].dtype
        ins = list(node.reads())
        args = [ref(v) for v in ins]
        name = f"v{k}"
        if node.prim == "unary":
            env[f"u{k}"], env[f"d{k}"], env[f"o{k}"] = UNARY[node.op], ins[0].dtype, out
            lines.append(f"{name} = convert(u{k}({args[0]}, d{k}), o{k}.kind, o{k})")
        elif node.prim == "binary":
            env[f"b{k}"], env[f"d{k}"], env[f"o{k}"] = BINARY[node.op], ins[0].dtype, out
            lines.append(f"{name} = convert(b{k}({args[0]}, {args[1]}, d{k}), o{k}.kind, o{k})")
        elif node.prim == "where":
            lines.append(f"{name} = [x if c else y for c, x, y in zip({args[0]}, {args[1]}, "
                         f"{args[2]})]")
        elif node.prim == "cast":
            env[f"d{k}"], env[f"o{k}"] = ins[0].dtype, out
            lines.append(f"{name} = convert({args[0]}, d{k}.kind, o{k}, d{k})"
                         if ins[0].dtype is not out else f"{name} = list({args[0]})")
        else:  # copy
            lines.append(f"{name} = list({args[0]})")
        reg[node.results[0].id] = name
    outs = ", ".join(reg[v.id] for v in group.results)
    n_in = len(input_index)
    params = ", ".join(f"r{j}" for j in range(n_in))
    body = "\n".join("    " + line for line in lines)
    return f"def fused({params}):\n{body}\n    return ({outs},)\n", env


def _key(view):
    return (view.value.id, view.shape, view.strides, view.offset)


def group_step(exe, index: int, group: Group, fallback):
    device = exe.device
    n = group.results[0].size
    input_index: dict = {}
    readers = []
    for view in group.inputs:
        key = _key(view)
        if key in input_index:
            continue
        input_index[key] = len(readers)
        if view.value.kind == "lit":
            value = view.value.payload
            readers.append(lambda env, value=value: [value] * n)
        else:
            slot, shape, strides, offset = (exe._slot_of(view.value), view.shape,
                                            view.strides, view.offset)
            dtype = view.dtype

            def read(env, slot=slot, shape=shape, strides=strides, offset=offset, dtype=dtype):
                return read_view(Tensor._wrap(env[slot], shape, dtype, device, strides=strides,
                                          offset=offset))
            readers.append(read)
    source, namespace = _source(group, input_index)
    exec(compile(source, f"<fused group {group.id}>", "exec"), namespace)  # noqa: S102
    fn = namespace["fused"]
    out_slots = [exe._slot_of(v) for v in group.results]

    def step(env):
        ins = [r(env) for r in readers]
        results = fn(*ins)
        for slot, vals in zip(out_slots, results):
            # a result may be an input list itself (identity ops): buffers never alias
            env[slot] = list(vals) if any(vals is x for x in ins) else vals
    return step
