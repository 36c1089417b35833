"""WGSL for a fused group of elementwise nodes: one kernel, one dispatch.

The kernel walks the group's output elements in C order.  External inputs are loaded through
their own strided views (as the eager map kernel loads them); every node then becomes one SSA
``let`` whose right-hand side calls a small function holding that node's ``exprs.py``
expression, so a value used twice is computed once and the text of an expression is never
pasted into another.  Literals (Python scalars of the program) are read from the uniform block,
so ``x * 0.5`` and ``x * 0.25`` share one pipeline.

Narrow dtypes are re-narrowed after every node (int8 wraps, float16 rounds to nearest even), so
a fused result equals the eager one bit for bit: eager stores every intermediate in its dtype.
A thread owns whole output words (four bool/8-bit or two 16-bit elements), as the map kernel's.
"""

from __future__ import annotations

import struct
from functools import lru_cache

from ..backends.webgpu import exprs, kernels
from ..backends.webgpu.kernels import STORAGE, STORAGE_OF, Params
from .fuse import Group
from .ir import Node

# A storage's value after a store and a load, computed on a register.
NARROW = {
    "u8": "({v} & 0xffu)", "u16": "({v} & 0xffffu)",
    "i8": "(({v} << 24u) >> 24u)", "i16": "(({v} << 16u) >> 16u)",
    "f16": "f16_bits_to_f32(f32_to_f16_bits({v}))",
    "bf16": "bf16_bits_to_f32(f32_to_bf16_bits({v}))",
}

_FUSABLE_PRIMS = ("unary", "binary", "where", "cast", "copy")


def storage_of(dtype) -> str | None:
    return STORAGE_OF.get(dtype)


def node_expr(node: Node) -> tuple[str, tuple[str, ...]] | None:
    """(WGSL expression in a, b, c; storages of the inputs) of an elementwise node, or None."""
    ins = list(node.reads())
    out = storage_of(node.results[0].dtype)
    if out is None or any(storage_of(v.dtype) is None for v in ins):
        return None
    st = tuple(storage_of(v.dtype) for v in ins)
    if node.prim == "unary":
        expr = exprs.unary(node.op, st[0])
    elif node.prim == "binary":
        expr = exprs.binary(node.op, st[0]) if st[0] == st[1] else None
    elif node.prim == "where":
        expr = exprs.WHERE if st[0] == "bool" and st[1] == st[2] == out else None
    elif node.prim == "cast":
        expr = exprs.cast(st[0], out)
    elif node.prim == "copy":
        expr = "a" if st[0] == out else None
    else:
        expr = None
    return None if expr is None else (expr, st)


def max_bindings(backend) -> int:
    """Storage buffers one kernel may bind (the uniform block does not count)."""
    return backend.driver.limits["max-storage-buffers-per-shader-stage"]


def fusable(node: Node) -> bool:
    if node.prim not in _FUSABLE_PRIMS or node.base is not None:
        return False
    w = node.written
    if not w.identity or node.results[0].size == 0:
        return False
    return node_expr(node) is not None


# -- literals ----------------------------------------------------------------------------------

def _f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def literal_words(value, storage: str) -> list[int]:
    """The uniform words of a literal of ``storage`` (its value in the compute type)."""
    c = exprs.COMPUTE[storage]
    if c == "f32":
        return [_f32_bits(float(value))]
    if c == "c64":
        z = complex(value)
        return [_f32_bits(z.real), _f32_bits(z.imag)]
    if c in ("i64", "u64"):
        v = int(value) & ((1 << 64) - 1)
        return [v & 0xFFFFFFFF, v >> 32]
    if c == "bool":
        return [1 if value else 0]
    return [int(value) & 0xFFFFFFFF]


def literal_expr(storage: str, slot: int) -> str:
    c = exprs.COMPUTE[storage]
    return {
        "f32": f"bitcast<f32>(prm({slot}u))",
        "i32": f"bitcast<i32>(prm({slot}u))",
        "u32": f"prm({slot}u)",
        "bool": f"(prm({slot}u) != 0u)",
        "i64": f"vec2<u32>(prm({slot}u), prm({slot + 1}u))",
        "u64": f"vec2<u32>(prm({slot}u), prm({slot + 1}u))",
        "c64": f"vec2<f32>(bitcast<f32>(prm({slot}u)), bitcast<f32>(prm({slot + 1}u)))",
    }[c]


def wgsl_type(storage: str) -> str:
    return STORAGE[storage].wgsl_type


# -- the kernel ----------------------------------------------------------------------------------

class FusedPlan:
    """What one fused group needs at run time: kernel, packed uniforms, workgroups."""

    __slots__ = ("kernel", "uniforms", "workgroups", "inputs", "outputs", "n")

    def __init__(self, kernel, uniforms, workgroups, inputs, outputs, n):
        self.kernel = kernel
        self.uniforms = uniforms
        self.workgroups = workgroups
        self.inputs = inputs  # value per binding, in binding order
        self.outputs = outputs  # result values, in binding order
        self.n = n


def plan(group: Group) -> FusedPlan:
    shape = group.shape
    n = 1
    for s in shape:
        n *= s
    # bindings: one per distinct external non-literal value; operands: one per distinct view
    binding_of: dict[int, int] = {}
    binding_values = []
    operand_views = []
    literal_views = []
    for view in group.inputs:
        if view.value.kind == "lit":
            literal_views.append(view)
            continue
        if view.value.id not in binding_of:
            binding_of[view.value.id] = len(binding_values)
            binding_values.append(view.value)
        operand_views.append(view)
    outputs = list(group.results)
    out_contig = kernels_contiguous(shape)
    cshape, cstrides = kernels.collapse(shape, [v.strides for v in operand_views]
                                        + [out_contig] * max(1, len(outputs)))
    in_strides = cstrides[:len(operand_views)]
    step = max(STORAGE[storage_of(v.dtype)].per_word for v in outputs)
    threads = -(-n // step)
    params = Params(n, threads, cshape, [(v.offset, st) for v, st in zip(operand_views,
                                                                         in_strides)])
    lit_slot = {}
    for view in literal_views:
        key = (view.value.id,)
        if key not in lit_slot:
            lit_slot[key] = params.add(*literal_words(view.value.payload,
                                                      storage_of(view.dtype)))
    slots = len(params.words)
    # -- WGSL text
    fns: dict[tuple, str] = {}
    lines = []
    names: dict[int, str] = {}  # value id -> register name (external views by operand key)
    view_name: dict[tuple, str] = {}
    for j, (view, st) in enumerate(zip(operand_views, in_strides)):
        storage = storage_of(view.dtype)
        index = kernels.index_expr(kernels.index_mode(cshape, st), j, len(cshape))
        load = STORAGE[storage].load.format(buf=f"in{binding_of[view.value.id]}", idx=index)
        name = f"x{j}"
        lines.append(f"let {name} = {load};")
        view_name[_vkey(view)] = name
    for view in literal_views:
        view_name[_vkey(view)] = literal_expr(storage_of(view.dtype), lit_slot[(view.value.id,)])
    for k, node in enumerate(group.members):
        expr, ins = node_expr(node)
        out_storage = storage_of(node.results[0].dtype)
        args = []
        for view in node.reads():
            found = names.get(view.value.id) if _internal(view, group) else None
            args.append(found if found is not None else view_name[_vkey(view)])
        fn = _function(fns, expr, ins, out_storage)
        value = f"{fn}({', '.join(args)})"
        narrow = NARROW.get(out_storage)
        if narrow is not None:
            value = narrow.format(v=value)
        reg = f"t{k}"
        lines.append(f"let {reg} = {value};")
        names[node.results[0].id] = reg
    # stores
    n_in = len(binding_values)
    stores, words_init, flushes = [], [], []
    for o, value in enumerate(outputs):
        storage = storage_of(value.dtype)
        s = STORAGE[storage]
        reg = names[value.id]
        buf = f"out{o}"
        if s.words > 1:
            parts = "xyzw"[:s.words]
            stores.append(f"let r{o} = {s.store.format(v=reg)};")
            stores.extend(f"{buf}[{s.words}u * i + {c}u] = r{o}.{p};"
                          for c, p in enumerate(parts))
        elif s.per_word == 1:
            stores.append(f"{buf}[i] = {s.store.format(v=reg)};")
        else:
            words_init.append(f"var w{o} = 0u;")
            stores.append(f"w{o} = w{o} | ({s.store.format(v=reg)} << ((i % {s.per_word}u) * "
                          f"{s.bits}u));")
            flushes.append(f"if ((j + 1u) % {s.per_word}u == 0u) {{ {buf}[(t * {step}u + j) / "
                           f"{s.per_word}u] = w{o}; w{o} = 0u; }}")
    if step == 1:  # one element per thread: straight-line code (a loop of one trip halves
        # SwiftShader's speed)
        body = ["let i = t;", *lines, *stores]
    else:
        body = [*words_init,
                f"for (var j = 0u; j < {step}u; j = j + 1u) {{",
                f"    let i = t * {step}u + j;",
                "    if (i < prm(1u)) {",
                *("        " + line for line in lines + stores),
                "    }",
                *("    " + line for line in flushes),
                "}"]
    kernel = _kernel("\n".join(fns.values()), "\n".join("    " + b for b in body), n_in,
                     len(outputs), slots)
    return FusedPlan(kernel, params.pack(kernel), kernels.map_groups(threads), binding_values,
                     outputs, n)


def _vkey(view):
    return (view.value.id, view.shape, view.strides, view.offset)


def _internal(view, group) -> bool:
    return any(m.results[0] is view.value for m in group.members)


def kernels_contiguous(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= s
    return tuple(reversed(strides))


def _function(fns: dict, expr: str, ins, out_storage) -> str:
    key = (expr, ins, out_storage)
    found = fns.get(key)
    if found is None:
        name = f"f{len(fns)}"
        params = ", ".join(f"{'abc'[j]}: {wgsl_type(s)}" for j, s in enumerate(ins))
        fns[key] = f"fn {name}({params}) -> {wgsl_type(out_storage)} {{\n    return {expr};\n}}"
        return name
    return found.split("(", 1)[0][3:]


@lru_cache(maxsize=1024)
def _kernel(functions: str, body: str, n_in: int, n_out: int, slots: int):
    vec4s = kernels.uniform_vec4s(slots)
    text = "\n".join([
        kernels.header(n_in, n_out, vec4s), "", functions, "",
        f"@compute @workgroup_size({kernels.WORKGROUP})",
        "fn main(@builtin(global_invocation_id) gid: vec3<u32>, "
        "@builtin(num_workgroups) nwg: vec3<u32>) {",
        f"    let first = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * {kernels.WORKGROUP}u;",
        f"    let stride = nwg.x * nwg.y * nwg.z * {kernels.WORKGROUP}u;",
        f"    for (var item = 0u; item < {kernels.ITEMS}u; item = item + 1u) {{",
        "    let t = first + item * stride;  // a whole grid apart (see map.wgsl)",
        "    if (t >= prm(2u)) {",
        "        return;",
        "    }",
        body,
        "    }",
        "}",
    ])
    return kernels.Kernel(kernels.with_libraries(text), n_in, n_out, vec4s * 16)


# -- running it ----------------------------------------------------------------------------------

def group_step(exe, index: int, group: Group, fallback):
    """The Executable step of a fused group: one dispatch (``fallback``: the members run one by
    one, for buffers past the binding size limit)."""
    backend = exe.real
    p = plan(group)
    kernel = p.kernel
    in_slots = [exe._slot_of(v) for v in p.inputs]
    outs = [(exe._slot_of(v), v.dtype, v.size) for v in p.outputs]
    uniforms, workgroups = p.uniforms, p.workgroups
    launch = backend.launch
    limit = backend.max_binding
    alloc = backend.alloc
    if any(size * dt.itemsize > limit for _, dt, size in outs):
        return fallback  # too big for one binding: eager kernels route it as they do

    def step(env):
        bufs = [env[s] for s in in_slots]
        if any(b.size > limit for b in bufs):
            fallback(env)
            return
        new = [alloc(dt, size) for _, dt, size in outs]
        launch(kernel, bufs + new, uniforms, workgroups)
        for (slot, _, _), b in zip(outs, new):
            env[slot] = b
    return step
