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

from .. import shape as _s
from ..backends.webgpu import exprs, kernels
from ..backends.webgpu import matmul as _matmul
from ..backends.webgpu import reduce as _reduce
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


class _Layout:
    """A group's external inputs as a kernel sees them: the buffers it binds (one per distinct
    value), the views it loads (one per distinct view), the literals in the uniform block, and
    the group's shape collapsed with every view (and the dense outputs) walked in C order."""

    def __init__(self, group: Group, skip=()):
        self.binding_of: dict[int, int] = {}
        self.values = []
        self.views = []
        self.literals = []
        for view in group.inputs:
            if view.value.id in skip:
                continue
            if view.value.kind == "lit":
                self.literals.append(view)
                continue
            if view.value.id not in self.binding_of:
                self.binding_of[view.value.id] = len(self.values)
                self.values.append(view.value)
            self.views.append(view)
        shape = group.shape
        self.n = _s.size_of(shape)
        self.cshape, cstrides = kernels.collapse(
            shape, [v.strides for v in self.views] + [kernels_contiguous(shape)])
        self.strides = cstrides[:len(self.views)]

    def params(self, threads: int) -> tuple[Params, dict]:
        params = Params(self.n, threads, self.cshape,
                        [(v.offset, st) for v, st in zip(self.views, self.strides)])
        slots = {}
        for view in self.literals:
            if view.value.id not in slots:
                slots[view.value.id] = params.add(*literal_words(view.value.payload,
                                                                 storage_of(view.dtype)))
        return params, slots


def _emit(group: Group, layout: _Layout, at: int, first_binding: int, lit_slots: dict,
          idx: str, fns: dict, prefix: str, preset=None):
    """SSA lines computing every member of ``group`` at element ``idx``: (lines, register of
    each member value).  ``preset``: value id -> register of values computed elsewhere."""
    lines = []
    view_name: dict[tuple, str] = {}
    nd = len(layout.cshape)
    for j, (view, st) in enumerate(zip(layout.views, layout.strides)):
        index = kernels.index_expr(kernels.index_mode(layout.cshape, st), j, nd, idx, at, fns)
        buf = f"in{first_binding + layout.binding_of[view.value.id]}"
        name = f"{prefix}x{j}"
        lines.append(f"let {name} = {STORAGE[storage_of(view.dtype)].load.format(buf=buf, idx=index)};")
        view_name[_vkey(view)] = name
    _literal_names(layout, at, lit_slots, view_name)
    member_lines, names = _emit_members(group, view_name, fns, prefix, prefix, preset)
    return lines + member_lines, names


def _literal_names(layout: _Layout, at: int, lit_slots: dict, view_name: dict) -> None:
    for view in layout.literals:
        view_name[_vkey(view)] = literal_expr(storage_of(view.dtype), at + lit_slots[view.value.id])


def _emit_members(group: Group, view_name: dict, fns: dict, fn_prefix: str, prefix: str,
                  preset=None):
    """One ``let`` per member, reading external views through ``view_name``."""
    lines = []
    names = dict(preset or {})
    for k, node in enumerate(group.members):
        expr, ins = node_expr(node)
        out_storage = storage_of(node.results[0].dtype)
        args = []
        for view in node.reads():
            found = names.get(view.value.id) if (_internal(view, group)
                                                 or view.value.id in names) else None
            args.append(found if found is not None else view_name[_vkey(view)])
        fn = _function(fns, expr, ins, out_storage, fn_prefix)
        value = f"{fn}({', '.join(args)})"
        narrow = NARROW.get(out_storage)
        if narrow is not None:
            value = narrow.format(v=value)
        elif out_storage == "f32":
            # each op's own rounding, as run one by one (GPUs would fuse a * b + c across ops)
            value = f"rounded_f32({value})"
        reg = f"{prefix}t{k}"
        lines.append(f"let {reg} = {value};")
        names[node.results[0].id] = reg
    return lines, names


# -- four elements per invocation (kernels.vec4_kernel) -----------------------------------------

def _vector_kinds(layout: _Layout, outputs) -> list[str] | None:
    """Each input view's ``kernels.vec4_kind`` when the group can run four elements per
    invocation (every operand and result 32-bit), else None."""
    if layout.n % kernels.LANES or not layout.cshape:
        return None
    if any(storage_of(v.dtype) not in kernels.VEC4_STORAGES
           for v in [*outputs, *(view.value for view in layout.views)]):
        return None
    kinds = [kernels.vec4_kind(layout.cshape, st, view.offset)
             for view, st in zip(layout.views, layout.strides)]
    return None if None in kinds else kinds


def _plan_vec4(group: Group, layout: _Layout, outputs, kinds) -> FusedPlan:
    threads = layout.n // kernels.LANES
    params, lit_slots = layout.params(threads)
    fns: dict = {}
    nd = len(layout.cshape)
    lines = []
    lane_names = [{} for _ in range(kernels.LANES)]
    for j, (view, st, kind) in enumerate(zip(layout.views, layout.strides, kinds)):
        index = kernels.index_expr(kernels.index_mode(layout.cshape, st), j, nd, "i", 0, fns)
        loads, values = kernels.vec4_load(kind, storage_of(view.dtype), j,
                                          f"in{layout.binding_of[view.value.id]}", index)
        lines += loads
        for names, value in zip(lane_names, values):
            names[_vkey(view)] = value
    regs = []
    for lane, names in enumerate(lane_names):
        _literal_names(layout, 0, lit_slots, names)
        member_lines, reg = _emit_members(group, names, fns, "", f"l{lane}")
        lines += member_lines
        regs.append(reg)
    for o, value in enumerate(outputs):
        lines.append(kernels.vec4_store(storage_of(value.dtype), f"out{o}",
                                        [reg[value.id] for reg in regs]))
    kernel = kernels.vec4_kernel("\n".join(fns.values()), "\n".join("    " + x for x in lines),
                                 len(layout.values), len(outputs), len(params.words))
    return FusedPlan(kernel, params.pack(kernel), kernels.vec4_groups(threads), layout.values,
                     outputs, layout.n)


def plan(group: Group) -> FusedPlan:
    layout = _Layout(group)
    outputs = list(group.results)
    kinds = _vector_kinds(layout, outputs)
    if kinds is not None:
        return _plan_vec4(group, layout, outputs, kinds)
    step = max(STORAGE[storage_of(v.dtype)].per_word for v in outputs)
    threads = -(-layout.n // step)
    params, lit_slots = layout.params(threads)
    slots = len(params.words)
    fns: dict = {}
    lines, names = _emit(group, layout, 0, 0, lit_slots, "i", fns, "")
    # stores
    n_in = len(layout.values)
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
    return FusedPlan(kernel, params.pack(kernel), kernels.map_groups(threads), layout.values,
                     outputs, layout.n)


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


def _function(fns: dict, expr: str, ins, out_storage, prefix: str = "") -> str:
    key = (prefix, expr, ins, out_storage)
    found = fns.get(key)
    if found is None:
        name = f"{prefix}f{len(fns)}"
        params = ", ".join(f"{'abc'[j]}: {wgsl_type(s)}" for j, s in enumerate(ins))
        fns[key] = f"fn {name}({params}) -> {wgsl_type(out_storage)} {{\n    return {expr};\n}}"
        return name
    return found.split("(", 1)[0][3:]


@lru_cache(maxsize=1024)
def _kernel(functions: str, body: str, n_in: int, n_out: int, slots: int):
    return kernels.program_kernel(functions, body, n_in, n_out, slots)


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


# -- reductions with a prologue and an epilogue ---------------------------------------------------

# Storages an epilogue may write: one element per word, so invocations never share a word.
_EPILOGUE_STORES = frozenset(s for s, st in STORAGE.items() if st.per_word == 1)


def anchorable(node: Node, prologue: Group | None, epilogue: Group | None, stored=()) -> bool:
    """The reduce (or matmul) kernels can take ``prologue`` (storing ``stored`` of its values)
    and ``epilogue`` around ``node``."""
    if node.base is not None or not node.written.identity:
        return False
    if node.prim == "matmul":
        return (prologue is None and node.results[0].dtype in _matmul.EPILOGUE_DTYPES
                and (epilogue is None or _epilogue_ok(epilogue)))
    if node.prim != "reduce":
        return False
    op, _out, xview, _axes = node.args
    t = storage_of(xview.dtype)
    if t is None or t == "c64" or op not in _reduce.REDUCE_OPS:
        return False
    if prologue is not None and all(v.value.kind == "lit" for v in prologue.inputs):
        return False  # (the first pass binds the prologue's buffers)
    if any(storage_of(v.dtype) not in _EPILOGUE_STORES for v in stored):
        return False
    if epilogue is not None:
        if storage_of(node.results[0].dtype) not in ("f32", "i32", "u32"):
            return False
        return _epilogue_ok(epilogue)
    return True


def _epilogue_ok(epilogue: Group) -> bool:
    return all(storage_of(v.dtype) in _EPILOGUE_STORES for v in epilogue.results)


class _Fragment:
    """A prologue or epilogue of one reduction: its WGSL (given where its uniforms start and
    its first input binding), its uniform words, and per call its buffers."""

    __slots__ = ("wgsl", "words", "buffers", "outputs")

    def __init__(self, wgsl, words):
        self.wgsl = wgsl
        self.words = words
        self.buffers = ()
        self.outputs = ()


def _stores(values, names, first_out: int, idx: str) -> list[str]:
    """Stores of one-element-per-word values at element ``idx`` into out{first_out}, ..."""
    lines = []
    for o, value in enumerate(values, first_out):
        s = STORAGE[storage_of(value.dtype)]
        word = s.store.format(v=names[value.id])
        if s.words == 1:
            lines.append(f"out{o}[{idx}] = {word};")
        else:
            lines.append(f"let r{o} = {word};")
            lines.extend(f"out{o}[{s.words}u * {idx} + {c}u] = r{o}.{p};"
                         for c, p in enumerate("xyzw"[:s.words]))
    return lines


def _prologue(group: Group, value, stored) -> tuple[_Fragment, list]:
    layout = _Layout(group)
    params, lit_slots = layout.params(layout.n)
    elem = wgsl_type(storage_of(value.dtype))

    @lru_cache(maxsize=8)
    def wgsl(at: int, first: int, first_out: int) -> str:
        fns: dict = {}
        lines, names = _emit(group, layout, at, first, lit_slots, "i", fns, "p")
        lines += _stores(stored, names, first_out, "i")
        return "\n".join([*fns.values(), f"fn prologue_element(i: u32) -> {elem} {{",
                          *("    " + line for line in lines),
                          f"    return {names[value.id]};", "}"])
    return _Fragment(wgsl, list(params.words)), layout.values


def _epilogue(group: Group, result) -> tuple[_Fragment, list]:
    layout = _Layout(group, skip={result.id})
    params, lit_slots = layout.params(layout.n)
    storage = storage_of(result.dtype)

    @lru_cache(maxsize=8)
    def wgsl(at: int, first: int, first_out: int) -> str:
        fns: dict = {}
        lines, names = _emit(group, layout, at, first, lit_slots, "row", fns, "e",
                             preset={result.id: "v"})
        stores = _stores(group.results, names, first_out, "row")
        return "\n".join([_reduce.result_value_fn(storage), *fns.values(),
                          f"fn epilogue(row: u32, v: {wgsl_type(storage)}) {{",
                          *("    " + line for line in lines + stores), "}"])
    return _Fragment(wgsl, list(params.words)), layout.values


def _wired_epilogue(exe, node, result):
    """(fragment, slots of its inputs, (slot, dtype, size) of its outputs) of the epilogue
    around an anchored node's ``result``, or (None, [], []) without one."""
    if node.epilogue is None:
        return None, [], []
    epi, values = _epilogue(node.epilogue, result)
    return (epi, [exe._slot_of(v) for v in values],
            [(exe._slot_of(v), v.dtype, v.size) for v in node.epilogue.results])


def anchored_step(exe, index: int, node, fallback):
    """The Executable step of an anchored reduction or matmul."""
    if node.anchor.prim == "matmul":
        return matmul_step(exe, index, node, fallback)
    return reduce_step(exe, index, node, fallback)


def matmul_step(exe, index: int, node, fallback):
    """A matmul storing its epilogue's values with each result (``fallback``: one by one)."""
    from ..tensor import Tensor

    backend = exe.real
    mm = node.anchor
    _out, aview, bview = mm.args
    result = mm.results[0]
    epi, epi_slots, epi_outs = _wired_epilogue(exe, node, result)
    a_build, b_build = exe._view_builder(aview), exe._view_builder(bview)
    out_slot = exe._slot_of(result)
    shape, dtype, size = result.shape, result.dtype, result.size
    device, limit, wrap = exe.device, backend.max_binding, Tensor._wrap
    fused_matmul = _matmul.fused_matmul

    def step(env):
        bufs = [env[s] for s in epi_slots]
        if any(b.size > limit for b in bufs):
            fallback(env)
            return
        out = wrap(backend.alloc(dtype, size), shape, dtype, device)
        epi.buffers = bufs
        epi.outputs = [backend.alloc(dt, n) for _, dt, n in epi_outs]
        if not fused_matmul(backend, out, a_build(env), b_build(env), epi):
            fallback(env)
            return
        env[out_slot] = out._data
        for (slot, _, _), b in zip(epi_outs, epi.outputs):
            env[slot] = b
    return step


def reduce_step(exe, index: int, node, fallback):
    """The Executable step of a reduction with its prologue/epilogue: the reduce kernels'
    passes, the first computing the input elements, the last storing the epilogue's values
    (``fallback``: the parts one by one, where a buffer is past the binding limit or the
    reduction has no such kernel)."""
    from ..tensor import Tensor

    backend = exe.real
    red = node.anchor
    op, _out, xview, axes = red.args
    result = red.results[0]
    device = exe.device
    wrap = Tensor._wrap
    limit = backend.max_binding
    pro_outs = [(exe._slot_of(v), v.dtype, v.size) for v in node.stored]
    if node.prologue is not None:
        pro, pro_values = _prologue(node.prologue, xview.value, node.stored)
        pro_slots = [exe._slot_of(v) for v in pro_values]
        x_build = None
    else:
        pro, pro_slots = None, []
        x_build = exe._view_builder(xview)
    epi, epi_slots, epi_outs = _wired_epilogue(exe, node, result)
    out_slot = exe._slot_of(result)
    shape, dtype, size = result.shape, result.dtype, result.size
    x_shape, x_dtype, x_strides, x_offset = xview.shape, xview.dtype, xview.strides, xview.offset
    fused_reduce = _reduce.fused_reduce

    def step(env):
        pro_bufs = [env[s] for s in pro_slots]
        epi_bufs = [env[s] for s in epi_slots]
        if any(b.size > limit for b in pro_bufs + epi_bufs):
            fallback(env)
            return
        if pro is not None:  # the input is never stored: a view giving only its geometry
            x = wrap(pro_bufs[0] if pro_bufs else None, x_shape, x_dtype, device,
                     strides=x_strides, offset=x_offset)
            pro.buffers = pro_bufs
            pro.outputs = [backend.alloc(dt, n) for _, dt, n in pro_outs]
        else:
            x = x_build(env)
        out = wrap(backend.alloc(dtype, size), shape, dtype, device)
        news = []
        if epi is not None:
            news = [backend.alloc(dt, n) for _, dt, n in epi_outs]
            epi.buffers, epi.outputs = epi_bufs, news
        if not fused_reduce(backend, op, out, x, axes, pro, epi):
            fallback(env)
            return
        env[out_slot] = out._data
        for (slot, _, _), b in zip(epi_outs, news):
            env[slot] = b
        if pro is not None:
            for (slot, _, _), b in zip(pro_outs, pro.outputs):
                env[slot] = b
    return step
