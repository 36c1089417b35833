"""WGSL kernels: the templates in ``shaders/`` filled in for one op, dtype and view layout.

A ``Kernel`` is WGSL text plus its binding signature; the driver compiles and caches it by text.
Every buffer is bound as ``array<u32>`` and elements are loaded/stored by a ``Storage`` (how a
dtype's value sits in the words: one f32/i32/u32 per word, four bytes or two halves per word).
Kernel parameters travel in the uniform block described in ``shaders/params.wgsl``; ``Params``
builds its bytes.  Helper libraries (``prelude``, ``int32``, ``float32``, ``float16``, ``int64``,
``complex64``) are included when the generated code calls one of their functions.

Storages compute in a wider WGSL type where WGSL has no narrow one: int8/int16 load
sign-extended into i32 and uint8/uint16 zero-extended into u32 (a store keeps the low bits, so
results wrap exactly as in NumPy); float16/bfloat16 load exactly into f32 and store rounded once
to nearest even (``shaders/float16.wgsl``); int64/uint64 are ``vec2<u32>`` (lo, hi) and
complex64 ``vec2<f32>`` (re, im), two words per element.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path
from string import Template

SHADERS = Path(__file__).resolve().parents[2] / "shaders"
WORKGROUP = 64
# Output words per invocation of elementwise kernels (map.wgsl, fused kernels): CPU adapters
# (SwiftShader, lavapipe) pay per invocation, GPUs do not mind a short loop.
ITEMS = 4
_LIBRARIES = ("prelude", "int32", "float32", "float16", "int64", "complex64", "matmul_lib")


@cache
def source(name: str) -> str:
    return (SHADERS / f"{name}.wgsl").read_text()


@cache
def _functions(name: str) -> frozenset[str]:
    return frozenset(re.findall(r"\bfn\s+(\w+)", source(name)))


def _calls(text: str) -> set[str]:
    return set(re.findall(r"\b(\w+)\s*\(", text))


def with_constant(text: str, name: str, value: bool) -> str:
    """``text`` with ``const name: bool = value;`` defined after its ``enable`` directives."""
    lines = text.split("\n")
    at = 0
    while at < len(lines) and lines[at].startswith(("enable ", "requires ")):
        at += 1
    lines.insert(at, f"const {name}: bool = {'true' if value else 'false'};")
    return "\n".join(lines)


def with_libraries(text: str) -> str:
    """``text`` followed by every helper library it needs (transitively)."""
    used: list[str] = []
    pending = _calls(text)
    changed = True
    while changed:
        changed = False
        for lib in _LIBRARIES:
            if lib not in used and pending & _functions(lib):
                used.append(lib)
                pending |= _calls(source(lib))
                changed = True
    return "\n".join([text] + [source(lib) for lib in _LIBRARIES if lib in used])


@cache
def _library_functions() -> dict[str, str]:
    """Each library function's text, up to the next top-level ``fn``."""
    return {m.group(1): m.group(0) for lib in _LIBRARIES
            for m in re.finditer(r"^fn\s+(\w+).*?(?=^fn\s|\Z)", source(lib), re.S | re.M)}


@cache
def _library_calls() -> dict[str, frozenset[str]]:
    """Each library function's callees."""
    return {name: frozenset(_calls(text) - {name}) for name, text in _library_functions().items()}


def _reached(text: str) -> set[str]:
    """The library functions code ``text`` calls, directly or through other ones."""
    graph = _library_calls()
    pending, seen = list(_calls(text)), set()
    while pending:
        name = pending.pop()
        if name not in seen and name in graph:
            seen.add(name)
            pending.extend(graph[name])
    return seen


def reaches(text: str, targets) -> bool:
    """Whether code ``text`` calls one of the library functions ``targets``, directly or
    through other library functions."""
    return not _reached(text).isdisjoint(targets)


def inlined_size(text: str) -> int:
    """Characters of library code that code ``text`` calls, directly or not: what a compiler
    that inlines every call (SwiftShader's) has to compile once per call site."""
    functions = _library_functions()
    return sum(len(functions[name]) for name in _reached(text))


# -- wide invocations -----------------------------------------------------------------------------
# CPU adapters pay to start every invocation: on SwiftShader a vec4 kernel over 1M float32 that
# stores a constant takes 4.0 ms with one vec4 per invocation and 2.3 ms with four (x + y: 7.5
# -> 6.0 ms with two).  Short vec4 kernels therefore carry a second work item per invocation
# behind the WGSL constant WIDE_INVOCATIONS, defined per adapter (WebGPUBackend.
# wide_invocations) like IEEE_ARITHMETIC.  Long ones (exact sin or pow: 9-10K characters of
# library code inlined at each of four lanes) would compile twice as long for a few percent;
# the bound keeps division, sqrt, exp, log and tanh wide (3-5K each, GPU-only forms
# included), and a few of them together.
WIDE_MAX_CHARS = 8000

# -- rare paths, deferred -------------------------------------------------------------------------
# CPU adapters run every side of every branch for every group of lanes (SwiftShader emits no
# real branches), so a costly path that almost no argument takes costs its full price on every
# element: Payne-Hanek reduction of |x| >= 400 in sin/cos/tan was 28 of a jitted exact chain's
# 76 ms on 1M elements in Chromium.  Kernels whose code reaches such a path come in a deferred
# pair too: the first, compiled with RARE_PATHS_DEFERRED (params.wgsl), drops the path, marks
# the invocations whose arguments need it and lists them in a redo buffer; the second,
# dispatched indirectly for just the listed invocations (zero workgroups when none), recomputes
# them in full.  Backends launch the pair on CPU adapters, for big launches (``launch``).
RARE_PATHS = frozenset({"trig_reduce"})
# The redo buffer: the redo kernel's indirect dispatch (x, y, z), the count, the flagging
# dispatch's grid stride (invocations), then the list of flagged invocations.
REDO_HEADER = 5
REDO_HEADER_INIT = (0, 1, 1, 0, 0)
REDO_GROUP = 256  # the redo kernel's workgroup size
# Bound on any kernel's workgroup size (the redo list has room for every invocation).
MAX_WORKGROUP = 256
_DEFERRED_OFF = "const RARE_PATHS_DEFERRED: bool = false;"
_DEFERRED_ON = "const RARE_PATHS_DEFERRED: bool = true;"
_DEFER_INVOCATION = f"""
// Lists invocation `first` (whose work items are a grid `stride` apart) for the redo kernel,
// which runs one workgroup per {REDO_GROUP} entries.
fn defer_invocation(first: u32, stride: u32) {{
    let slot = atomicAdd(&redo[3], 1u);
    atomicStore(&redo[{REDO_HEADER}u + slot], first);
    atomicStore(&redo[4], stride);
    if (slot % {REDO_GROUP}u == 0u) {{
        atomicAdd(&redo[0], 1u);
    }}
}}
"""


def with_deferred_pair(make, code: str) -> Kernel:
    """``make(role)``'s plain kernel, carrying its deferred pair (``make("defer")``,
    ``make("redo")``) when ``code`` (the kernel's own functions and body) reaches a rare
    path.  ``make`` passes ``role`` to ``header``/``render`` and ``entry_point``."""
    plain = make("plain")
    if not reaches(code, RARE_PATHS):
        return plain
    return replace(plain, deferred=(make("defer"), make("redo")))


@dataclass(frozen=True)
class Storage:
    """How elements of one kind sit in ``array<u32>``: WGSL value type, elements per word, load
    of element ``{idx}`` from buffer ``{buf}``, and the low bits of value ``{v}`` to store (for
    ``words`` > 1: a ``vec{words}<u32>`` of the element's words)."""

    name: str
    wgsl_type: str
    per_word: int
    load: str
    store: str
    words: int = 1  # words per element (8-byte and 16-byte elements)

    @property
    def bits(self) -> int:
        return 32 // self.per_word


def _lane(bits: int) -> str:
    """The unsigned ``bits``-bit element ``{idx}`` of a packed buffer ``{buf}``."""
    per = 32 // bits
    shift = {4: 2, 2: 1}[per]
    return (f"(({{buf}}[{{idx}} >> {shift}u] >> (({{idx}} & {per - 1}u) * {bits}u)) "
            f"& {hex((1 << bits) - 1)}u)")


def _signed_lane(bits: int) -> str:
    """The signed ``bits``-bit element, sign-extended to i32 (shift it to the top, then back)."""
    return f"(bitcast<i32>({_lane(bits)} << {32 - bits}u) >> {32 - bits}u)"


def _pair(cast: str) -> str:
    return f"{cast}(vec2<u32>({{buf}}[2u * {{idx}}], {{buf}}[2u * {{idx}} + 1u]))"


STORAGE = {s.name: s for s in (
    Storage("f32", "f32", 1, "bitcast<f32>({buf}[{idx}])", "bitcast<u32>({v})"),
    Storage("i32", "i32", 1, "bitcast<i32>({buf}[{idx}])", "bitcast<u32>({v})"),
    Storage("u32", "u32", 1, "{buf}[{idx}]", "{v}"),
    Storage("bool", "bool", 4, "((({buf}[{idx} >> 2u] >> (({idx} & 3u) * 8u)) & 0xffu) != 0u)",
            "select(0u, 1u, {v})"),
    Storage("u8", "u32", 4, _lane(8), "({v} & 0xffu)"),
    Storage("u16", "u32", 2, _lane(16), "({v} & 0xffffu)"),
    Storage("i8", "i32", 4, _signed_lane(8), "(bitcast<u32>({v}) & 0xffu)"),
    Storage("i16", "i32", 2, _signed_lane(16), "(bitcast<u32>({v}) & 0xffffu)"),
    Storage("f16", "f32", 2, f"f16_bits_to_f32({_lane(16)})", "f32_to_f16_bits({v})"),
    Storage("bf16", "f32", 2, f"bf16_bits_to_f32({_lane(16)})", "f32_to_bf16_bits({v})"),
    Storage("i64", "vec2<u32>", 1, _pair(""), "{v}", words=2),
    Storage("u64", "vec2<u32>", 1, _pair(""), "{v}", words=2),
    Storage("c64", "vec2<f32>", 1, _pair("bitcast<vec2<f32>>"), "bitcast<vec2<u32>>({v})",
            words=2),
    Storage("x128", "vec4<u32>", 1, "vec4<u32>({buf}[4u * {idx}], {buf}[4u * {idx} + 1u], "
            "{buf}[4u * {idx} + 2u], {buf}[4u * {idx} + 3u])", "{v}", words=4),
)}

# Raw storage by element size, for kernels that only move bits (copy, where, assign).
RAW = {1: "u8", 2: "u16", 4: "u32", 8: "u64", 16: "x128"}


def _storage_of():
    from ... import dtypes as _d

    return {_d.float32: "f32", _d.int32: "i32", _d.uint32: "u32", _d.bool: "bool",
            _d.int8: "i8", _d.int16: "i16", _d.uint8: "u8", _d.uint16: "u16",
            _d.float16: "f16", _d.bfloat16: "bf16", _d.int64: "i64", _d.uint64: "u64",
            _d.complex64: "c64"}


# The one dtype -> storage map: the dtypes whose values the kernels compute with.  float64 and
# complex128 have none (browsers have no f64 in WGSL): their work is routed to the CPU.  Each
# kernel family's supported set is a subset of this.
STORAGE_OF = _storage_of()


@dataclass(frozen=True)
class Kernel:
    """A compute shader and its binding signature: uniforms at binding 0, then ``n_in``
    read-only and ``n_out`` read-write storage buffers."""

    wgsl: str
    n_in: int
    n_out: int
    uniform_size: int  # bytes
    entry: str = "main"
    #: (flagging kernel, redo kernel) where the code reaches a rare path (see ``RARE_PATHS``)
    deferred: tuple[Kernel, Kernel] | None = None
    #: each invocation runs a second work item, a grid apart, where the adapter asks for
    #: ``WIDE_INVOCATIONS`` (``launch`` halves the workgroups then)
    widens: bool = False
    _hash: int = field(default=0, init=False, compare=False, repr=False)

    def __hash__(self) -> int:
        # Computed once: every launch looks its kernel up in the pipeline cache.
        h = self._hash
        if not h:
            h = hash((self.wgsl, self.n_in, self.n_out, self.uniform_size, self.entry,
                      self.deferred))
            object.__setattr__(self, "_hash", h)
        return h


def uniform_vec4s(slots: int) -> int:
    """Uniform blocks come in 256-byte steps (so few distinct kernel texts)."""
    return 16 * max(1, -(-slots // 64))


def header(n_in: int, n_out: int, vec4s: int, element: str = "u32",
           in0: str | None = None, role: str = "plain", out: str | None = None) -> str:
    """The bindings (storage buffers as ``array<element>``, ``in0`` as ``array<in0>`` and the
    outputs as ``array<out>`` if given) and params.wgsl.  ``role``: ``"plain"``, or the
    flagging (``"defer"``: the redo buffer after the outputs) or redo (``"redo"``: its list
    after the inputs) kernel of a deferred pair (``RARE_PATHS``)."""
    lines = [f"@group(0) @binding(0) var<uniform> P: array<vec4<u32>, {vec4s}>;"]
    for i in range(n_in):
        kind = in0 if i == 0 and in0 else element
        lines.append(f"@group(0) @binding({i + 1}) var<storage, read> in{i}: array<{kind}>;")
    first_out = n_in + 1
    if role == "redo":
        lines.append(f"@group(0) @binding({first_out}) var<storage, read> redo_list: array<u32>;")
        first_out += 1
    for i in range(n_out):
        lines.append(f"@group(0) @binding({first_out + i}) var<storage, read_write> out{i}: "
                     f"array<{out or element}>;")
    params = source("params")
    if role == "defer":
        lines.append(f"@group(0) @binding({first_out + n_out}) var<storage, read_write> redo: "
                     f"array<atomic<u32>>;")
        assert _DEFERRED_OFF in params
        params = params.replace(_DEFERRED_OFF, _DEFERRED_ON) + _DEFER_INVOCATION
    return "\n".join(lines) + "\n\n" + params


def entry_point(body: str, index: str = "t", items: int = ITEMS, wg: int = WORKGROUP,
                count: str = "prm(2u)", role: str = "plain", wide: bool = False) -> str:
    """The ``main`` of a kernel over ``count`` work items: each invocation runs ``body`` for
    up to ``items`` of them (``index``), a whole grid apart, so neighbouring invocations touch
    neighbouring words (coalesced on GPUs, fewer invocations on CPU adapters).  Roles of a
    deferred pair (``RARE_PATHS``): ``"defer"`` lists the invocation when its work items met a
    rare path, ``"redo"`` runs the listed invocations' work items again.  ``wide`` (one
    item per invocation only): a second item, a grid further, where the adapter defines
    ``WIDE_INVOCATIONS`` true (``WIDE_INVOCATIONS``, above)."""
    if role == "redo":
        wg = REDO_GROUP
    lines = [f"@compute @workgroup_size({wg})",
             "fn main(@builtin(global_invocation_id) gid: vec3<u32>, "
             "@builtin(num_workgroups) nwg: vec3<u32>) {"]
    if role == "redo":
        lines += [f"    let slot = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * {wg}u;",
                  "    if (slot >= redo_list[3]) {", "        return;", "    }",
                  f"    let first = redo_list[{REDO_HEADER}u + slot];",
                  "    let stride = redo_list[4];"]
    else:
        lines += [f"    let first = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * {wg}u;",
                  f"    let stride = nwg.x * nwg.y * nwg.z * {wg}u;"]
    if items == 1:
        lines += [f"    let {index} = first;",
                  f"    if ({index} >= {count}) {{", "        return;", "    }", body]
        if wide:  # (a block, not a return: the flagging kernel reads its flag after it)
            nested = "\n".join("        " + line for line in body.split("\n"))
            lines += ["    if (WIDE_INVOCATIONS) {", f"        let {index} = first + stride;",
                      f"        if ({index} < {count}) {{", nested, "        }", "    }"]
    else:
        # (the flagging kernel leaves the loop, not the invocation: its flag is read after)
        leave = "break" if role == "defer" else "return"
        lines += [f"    for (var item = 0u; item < {items}u; item = item + 1u) {{",
                  f"        let {index} = first + item * stride;",
                  f"        if ({index} >= {count}) {{", f"            {leave};", "        }",
                  body, "    }"]
    if role == "defer":
        lines += ["    if (rare_args) {", "        defer_invocation(first, stride);", "    }"]
    return "\n".join(lines + ["}"])


def indent(lines) -> str:
    """WGSL ``lines`` one level (four spaces) in, joined."""
    return "\n".join("    " + line for line in lines)


def _role_kernel(text: str, n_in: int, n_out: int, vec4s: int, role: str,
                 wide: bool = False) -> Kernel:
    """The Kernel of ``text`` in ``role`` (``header``): the redo kernel binds its list as one
    more input, the flagging kernel its redo buffer as one more output."""
    return Kernel(with_libraries(text), n_in + (role == "redo"), n_out + (role == "defer"),
                  vec4s * 16, widens=wide)


def render(template: str, n_in: int, n_out: int, slots: int, in0: str | None = None,
           role: str = "plain", **fields) -> Kernel:
    vec4s = uniform_vec4s(slots)
    text = Template(source(template)).substitute(
        header=header(n_in, n_out, vec4s, in0=in0, role=role), wg=WORKGROUP, n_in=n_in,
        n_out_binding=n_in + 1, **fields)
    return _role_kernel(text, n_in, n_out, vec4s, role)


def program_kernel(functions: str, body: str, n_in: int, n_out: int, slots: int,
                   element: str = "u32", items: int = ITEMS, wg: int = WORKGROUP,
                   wide: bool = False) -> Kernel:
    """A kernel of generated ``functions`` and a ``body`` run per work item ``t``
    (``entry_point``, ``wide`` there), buffers bound as ``array<element>``; with its deferred
    pair when the code reaches a rare path."""
    vec4s = uniform_vec4s(slots)

    def make(role: str) -> Kernel:
        text = "\n".join([header(n_in, n_out, vec4s, element, role=role), "", functions, "",
                          entry_point(body, items=items, wg=wg, role=role, wide=wide)])
        return _role_kernel(text, n_in, n_out, vec4s, role, wide)

    return with_deferred_pair(make, functions + body)


def index_fn(mode) -> str:
    """The params.wgsl function locating an operand's element: ``True`` contiguous, ``False``
    strided, ``"scalar"`` one element read everywhere (a Python number's 0-d tensor)."""
    if mode == "scalar":
        return "scalar_index"
    return "contiguous_index" if mode else "strided_index"


def index_expr(mode, j: int, ndim: int, i: str = "i", at: int = 0, functions=None) -> str:
    """WGSL for the buffer index of operand ``j`` at C-order position ``i`` of a (collapsed)
    ``ndim``-dim shape whose parameters (params.wgsl's layout) start at uniform slot ``at``.
    Every slot is a constant: SwiftShader runs a dynamically indexed uniform read (params.wgsl's
    ``operand_base``, ``strided_index``) about 1.5x slower per element over a whole kernel.
    Strided views get an unrolled function, added to ``functions`` (name -> WGSL); without
    that dict they call params.wgsl's generic ``strided_index``."""
    base = at + 4 + ndim + j * (ndim + 1)
    if mode == "scalar":
        return f"prm({base}u)"
    if mode:
        return f"(prm({base}u) + {i})"
    if functions is None:
        return f"strided_index({i}, {j}u)"
    name = f"index_at{at}_{j}"
    if name not in functions:
        steps = [f"    off += i32(rem % prm({at + 4 + d}u)) * prm_i({base + 1 + d}u);\n"
                 f"    rem = rem / prm({at + 4 + d}u);" for d in reversed(range(ndim))]
        functions[name] = "\n".join([f"fn {name}(i: u32) -> u32 {{", "    var rem = i;",
                                     f"    var off = prm_i({base}u);", *steps,
                                     "    return u32(off);", "}"])
    return f"{name}({i})"


# An operand in index mode PARAM is a constant whose bits are uniform slots after the operands'
# offsets and strides (``param_slots``): no buffer, no binding.
PARAM = "param"


def param_slots(ins, ndim: int) -> list:
    """The first uniform slot of each PARAM operand of ``ins`` ((storage, mode, ...) per
    operand; None for the others), in order after the ``len(ins)`` operands' index slots."""
    slot = 4 + ndim + len(ins) * (ndim + 1)
    slots = []
    for storage, mode, *_ in ins:
        slots.append(slot if mode == PARAM else None)
        if mode == PARAM:
            slot += STORAGE[storage].words
    return slots


def param_load(storage: str, slot: int, name: str) -> str:
    """WGSL setting ``name`` to the value of a PARAM operand whose words start at ``slot``: its
    storage's own load of element 0, each buffer word ``words[k]`` read as ``prm(slot + k)``.
    (Not through a local array: SwiftShader copies one into private memory per invocation.)"""
    load = STORAGE[storage].load.format(buf="words", idx="0u")
    value = _WORD_OF_PARAM.sub(lambda m: f"prm({slot}u + ({m[1]}))", load)
    return f"let {name} = {value};"


_WORD_OF_PARAM = re.compile(r"words\[([^\]]*)\]")


def buffer_names(ins) -> list:
    """The binding name of each operand of ``ins``: ``in0``, ``in1``... for the ones read from
    a buffer, in order (PARAM operands have none)."""
    names, k = [], 0
    for _storage, mode, *_ in ins:
        names.append(None if mode == PARAM else f"in{k}")
        k += mode != PARAM
    return names


def index_mode(shape, strides):
    """``"scalar"`` when every stride is 0, else whether the view is contiguous (1-D, step 1):
    the cheapest index function for the operand (no division per element)."""
    if all(s == 0 for s in strides):
        return "scalar"
    return is_contiguous_1d(shape, strides)


@lru_cache(maxsize=4096)
def map_kernel(expr: str, out: str, ins: tuple[tuple[str, object], ...], slots: int,
               index_arg: bool = False, ndim: int = 0) -> Kernel:
    """``out0 = expr`` over inputs ``ins`` = ((storage name, index mode), ...); the mode is
    ``index_mode``'s: contiguous (True), strided (False) or "scalar"; ``ndim``: the collapsed
    shape's dims (the slots of the operands' offsets).

    ``expr`` names the inputs ``a``, ``b``, ``c`` (and ``i``, the element's C-order index, when
    ``index_arg``); it is wrapped in ``fn op``.
    """
    so = STORAGE[out]
    names = "abc"
    args = [f"{names[j]}: {STORAGE[s].wgsl_type}" for j, (s, _) in enumerate(ins)]
    params = ", ".join(args + ["i: u32"] * index_arg)
    loads = []
    functions: dict[str, str] = {}
    bufs, slots_at = buffer_names(ins), param_slots(ins, ndim)
    for j, (s, contiguous) in enumerate(ins):
        if contiguous == PARAM:
            loads.append(param_load(s, slots_at[j], f"v{j}"))
            continue
        idx = f"i{j}"
        loads.append(f"let {idx} = {index_expr(contiguous, j, ndim, functions=functions)};")
        loads.append(f"let v{j} = {STORAGE[s].load.format(buf=bufs[j], idx=idx)};")
    call = "op(" + ", ".join([f"v{j}" for j in range(len(ins))] + ["i"] * index_arg) + ")"
    if so.words > 1:
        parts = "xyzw"[:so.words]
        body = ["let i = t;", *loads, f"let r = {so.store.format(v=call)};",
                *(f"out0[{so.words}u * t + {k}u] = r.{c};" for k, c in enumerate(parts))]
    elif so.per_word == 1:
        body = ["let i = t;", *loads, f"out0[t] = {so.store.format(v=call)};"]
    else:
        inner = [*loads, f"word = word | ({so.store.format(v=call)} << (j * {so.bits}u));"]
        body = ["var word = 0u;",
                f"for (var j = 0u; j < {so.per_word}u; j = j + 1u) {{",
                f"    let i = t * {so.per_word}u + j;",
                "    if (i < prm(1u)) {",
                *("        " + line for line in inner),
                "    }",
                "}",
                "out0[t] = word;"]
    fns = "\n\n".join(functions.values())
    main = "\n".join("        " + line for line in body)
    return with_deferred_pair(
        lambda role: render("map", len(ins) - bufs.count(None), 1, slots, role=role,
                            op_params=params,
                            out_type=so.wgsl_type, expr=expr, functions=fns,
                            main=entry_point(main, role=role)), expr + fns)


# -- four elements per invocation -------------------------------------------------------------
# SwiftShader and lavapipe bounds-check and gather every scalar load of every lane; a vec4 load
# is one 128-bit access.  Elementwise kernels whose operands are all 32-bit and lie in whole
# aligned vec4s bind their buffers as array<vec4<u32>> and compute four consecutive elements per
# invocation, lane by lane through the same scalar code (so the bits are the scalar kernel's):
# about 3x faster on Chromium's SwiftShader (bench/browser/overhead.py's chain split).

LANES = 4
# 8-bit storages hold the four elements of an invocation in one word (a vec4's component):
# a bool result of 32-bit operands is one word store, a bool operand one word load.
_BYTE_LANE = {"bool": "((({w} >> {s}) & 0xffu) != 0u)", "u8": "(({w} >> {s}) & 0xffu)",
              "i8": "(bitcast<i32>((({w} >> {s}) & 0xffu) << 24u) >> 24u)"}
# 16-bit storages hold them in two words (half a vec4), the low half of a word first.
_HALF_LANE = {"u16": "(({w} >> {s}) & 0xffffu)",
              "i16": "(bitcast<i32>((({w} >> {s}) & 0xffffu) << 16u) >> 16u)",
              "f16": "f16_bits_to_f32((({w} >> {s}) & 0xffffu))",
              "bf16": "bf16_bits_to_f32((({w} >> {s}) & 0xffffu))"}
# 8-byte storages hold them in two vec4s (two words, x and y, per element).
_PAIR_CAST = {"i64": "{v}", "u64": "{v}", "c64": "bitcast<vec2<f32>>({v})"}
VEC4_STORAGES = ("f32", "i32", "u32", *_BYTE_LANE, *_HALF_LANE, *_PAIR_CAST)
# SwiftShader runs 256-invocation workgroups of a vec4 kernel 10-20% faster than 64-invocation
# ones (fewer workgroups to set up); GPUs don't mind.
VEC4_WORKGROUP = 256
_VEC4_LOAD = {"f32": "bitcast<vec4<f32>>({v})", "i32": "bitcast<vec4<i32>>({v})", "u32": "{v}"}


def vec4_kind(shape, strides, offset: int) -> str | None:
    """How a vec4 kernel over the (collapsed, C-order) ``shape`` loads an operand view:
    ``"vec"`` (each invocation's four elements are one aligned vec4), ``"splat"`` (the four
    share one element), or None (neither: the scalar kernel)."""
    if all(s == 0 for s in strides):
        return "splat"
    if shape[-1] % LANES:
        return None  # four consecutive elements may straddle rows
    if strides[-1] == 0:
        return "splat"
    if strides[-1] == 1 and offset % LANES == 0 and all(s % LANES == 0 for s in strides[:-1]):
        return "vec"
    return None


def vec4_load(kind: str, storage: str, j: int, buf: str, index: str) -> tuple[list, list]:
    """(WGSL lines loading operand ``j`` at element ``index`` (the first lane's), the value of
    each lane)."""
    if storage in _BYTE_LANE:  # element k: byte k % 4 of word k / 4, a vec4's component
        lane = _BYTE_LANE[storage]
        if kind == "vec":
            lines = [f"let w{j} = ({index}) >> 2u;", f"let x{j} = {buf}[w{j} >> 2u][w{j} & 3u];"]
            return lines, [lane.format(w=f"x{j}", s=f"{8 * k}u") for k in range(LANES)]
        word = f"{buf}[k{j} >> 4u][(k{j} >> 2u) & 3u]"
        return [f"let k{j} = {index};",
                f"let x{j} = {lane.format(w=word, s=f'((k{j} & 3u) * 8u)')};"], [f"x{j}"] * LANES
    if storage in _HALF_LANE:  # element k: half k % 2 of word k / 2
        lane = _HALF_LANE[storage]
        if kind == "vec":  # words k / 2 and k / 2 + 1 (k a multiple of 4): a vec4's half
            lines = [f"let w{j} = ({index}) >> 1u;", f"let q{j} = {buf}[w{j} >> 2u];",
                     f"let x{j} = select(q{j}.xy, q{j}.zw, (w{j} & 2u) != 0u);"]
            return lines, [lane.format(w=f"x{j}.{c}", s=f"{h}u")
                           for c in "xy" for h in (0, 16)]
        word = f"{buf}[k{j} >> 3u][(k{j} >> 1u) & 3u]"
        return [f"let k{j} = {index};",
                f"let x{j} = {lane.format(w=word, s=f'((k{j} & 1u) * 16u)')};"], [f"x{j}"] * LANES
    if storage in _PAIR_CAST:  # element k: words 2k, 2k + 1, half of vec4 k / 2
        cast = _PAIR_CAST[storage]
        if kind == "vec":
            lines = [f"let w{j} = ({index}) >> 1u;", f"let x{j} = {buf}[w{j}];",
                     f"let y{j} = {buf}[w{j} + 1u];"]
            halves = [f"x{j}.xy", f"x{j}.zw", f"y{j}.xy", f"y{j}.zw"]
            return lines, [cast.format(v=h) for h in halves]
        lines = [f"let k{j} = {index};", f"let q{j} = {buf}[k{j} >> 1u];",
                 f"let x{j} = {cast.format(v=f'select(q{j}.xy, q{j}.zw, (k{j} & 1u) == 1u)')};"]
        return lines, [f"x{j}"] * LANES
    if kind == "vec":
        load = _VEC4_LOAD[storage].format(v=f"{buf}[({index}) >> 2u]")
        return [f"let x{j} = {load};"], [f"x{j}[{lane}]" for lane in range(LANES)]
    load = STORAGE[storage].load.format(buf=f"{buf}[k{j} >> 2u]", idx=f"k{j} & 3u")
    return [f"let k{j} = {index};", f"let x{j} = {load};"], [f"x{j}"] * LANES


def vec4_store(storage: str, buf: str, lanes) -> str:
    v = [STORAGE[storage].store.format(v=lane) for lane in lanes]
    values = ", ".join(v)
    if storage in _BYTE_LANE:  # invocation t's four elements: word t
        r = f"bytes_{buf}"
        return (f"let {r} = vec4<u32>({values});\n    {buf}[t >> 2u][t & 3u] = "
                f"{r}.x | ({r}.y << 8u) | ({r}.z << 16u) | ({r}.w << 24u);")
    if storage in _HALF_LANE:  # invocation t's four elements: words 2t, 2t + 1
        return (f"{buf}[t >> 1u][(t & 1u) * 2u] = {v[0]} | ({v[1]} << 16u);\n"
                f"    {buf}[t >> 1u][(t & 1u) * 2u + 1u] = {v[2]} | ({v[3]} << 16u);")
    if storage in _PAIR_CAST:  # invocation t's four elements: vec4s 2t and 2t + 1
        return (f"{buf}[2u * t] = vec4<u32>({v[0]}, {v[1]});\n"
                f"    {buf}[2u * t + 1u] = vec4<u32>({v[2]}, {v[3]});")
    return f"{buf}[t] = vec4<u32>({values});"


@lru_cache(maxsize=1024)
def vec4_kernel(functions: str, body: str, n_in: int, n_out: int, slots: int) -> Kernel:
    """A kernel of one invocation per four output elements (``t``; ``i = 4 t``): ``body``
    loads with ``vec4_load`` and stores with ``vec4_store``; ``vec4_groups`` workgroups.
    Short code runs wide on adapters that ask (``WIDE_INVOCATIONS``)."""
    return program_kernel(functions, "    let i = t * 4u;\n" + body, n_in, n_out, slots,
                          "vec4<u32>", items=1, wg=VEC4_WORKGROUP,
                          wide=inlined_size(functions + body) <= WIDE_MAX_CHARS)


def vec4_groups(threads: int) -> int:
    return -(-threads // VEC4_WORKGROUP)


@lru_cache(maxsize=4096)
def map_vec4_kernel(expr: str, out: str, ins: tuple[tuple[str, object, str], ...], slots: int,
                    ndim: int) -> Kernel:
    """``map_kernel`` four elements per invocation; ``ins``: (storage, index mode, vec4 kind)."""
    names = "abc"
    params = ", ".join(f"{names[j]}: {STORAGE[s].wgsl_type}" for j, (s, _, _) in enumerate(ins))
    functions: dict[str, str] = {}
    lines, lanes = [], []
    bufs, slots_at = buffer_names(ins), param_slots(ins, ndim)
    for j, (s, mode, kind) in enumerate(ins):
        if mode == PARAM:
            lines.append(param_load(s, slots_at[j], f"x{j}"))
            lanes.append([f"x{j}"] * LANES)
            continue
        loads, values = vec4_load(kind, s, j, bufs[j],
                                  index_expr(mode, j, ndim, functions=functions))
        lines += loads
        lanes.append(values)
    op = f"fn op({params}) -> {STORAGE[out].wgsl_type} {{\n    return {expr};\n}}"
    calls = [f"op({', '.join(v[lane] for v in lanes)})" for lane in range(LANES)]
    lines.append(vec4_store(out, "out0", calls))
    return vec4_kernel("\n\n".join([op, *functions.values()]),
                       "\n".join("    " + line for line in lines), len(ins) - bufs.count(None), 1,
                       slots)


@lru_cache(maxsize=256)
def copy_wide_kernel(words: int, contiguous: bool, slots: int) -> Kernel:
    return render("copy_wide", 1, 1, slots, words=words, index=index_fn(contiguous))


@lru_cache(maxsize=256)
def assign_kernel(words: int, contiguous_src: bool, contiguous_dst: bool, slots: int) -> Kernel:
    return render("assign", 1, 1, slots, words=words, index=index_fn(contiguous_src),
                  target=index_fn(contiguous_dst))


@cache
def copy_vec4_kernel() -> Kernel:
    """``out0[b + t] = in0[a + t]`` for ``prm(2)`` vec4s (``a``, ``b``: slots 4 and 5, in
    vec4s): a contiguous run of whole vec4s into another (an assignment such as concat's)."""
    return program_kernel("", "        out0[prm(5u) + t] = in0[prm(4u) + t];", 1, 1, 6,
                          "vec4<u32>")


@lru_cache(maxsize=256)
def assign_packed_kernel(storage: str, contiguous_src: bool, slots: int) -> Kernel:
    s = STORAGE[storage]
    return render("assign_packed", 1, 1, slots, per_word=s.per_word, bits=s.bits,
                   mask=hex((1 << s.bits) - 1), index=index_fn(contiguous_src),
                   load=s.load.format(buf="in0", idx="idx"))


@lru_cache(maxsize=16)
def fill_kernel(words: int) -> Kernel:
    return render("fill", 0, 1, 8, words=words)


@cache
def fill_vec4_kernel() -> Kernel:
    """Fill a fresh buffer's first ``total`` words with a pattern of 1, 2 or 4 words, a vec4 at
    a time (CPU adapters pay per invocation and per store).  Params: [1] n, [2] vectors,
    [3] 0, [4..8) the pattern repeated to four words, [8] total; the last vector keeps the
    words past ``total`` (another view's, where ``out`` is a prefix of its buffer)."""
    body = ("let pattern = vec4<u32>(prm(4u), prm(5u), prm(6u), prm(7u));\n"
            "let rest = prm(8u) - 4u * t;\n"
            "if (rest >= 4u) {\n"
            "    out0[t] = pattern;\n"
            "} else {\n"
            "    out0[t] = select(out0[t], pattern, vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(rest));\n"
            "}")
    return program_kernel("", body, 0, 1, 9, element="vec4<u32>")


# -- parameters ----------------------------------------------------------------------------------

class Params:
    """The u32 slots of a kernel's uniform block (layout in ``shaders/params.wgsl``)."""

    __slots__ = ("words",)

    def __init__(self, n: int, threads: int, shape=(), operands=()):
        """``operands``: (offset, strides) per strided operand, over ``shape``."""
        words = [0, n, threads, len(shape), *shape]
        for offset, strides in operands:
            words.append(offset)
            words.extend(strides)
        self.words = words

    def add(self, *values: int) -> int:
        slot = len(self.words)
        self.words.extend(values)
        return slot

    def pack(self, kernel: Kernel) -> bytes:
        n = kernel.uniform_size // 4
        words = [w & 0xFFFFFFFF for w in self.words]  # negative strides wrap (two's complement)
        if len(words) > n:
            raise ValueError(f"{len(words)} parameters do not fit a {n}-slot uniform block")
        return _u32_struct(len(words)).pack(*words) + bytes(4 * (n - len(words)))


@cache
def _u32_struct(n: int) -> struct.Struct:
    return struct.Struct(f"<{n}I")


def collapse(shape, strides_list):
    """Merge dims that every operand walks contiguously, drop size-1 dims.

    Returns (shape, [strides per operand]); ``()`` shapes stay 0-d.
    """
    dims = [(n, [s[d] for s in strides_list]) for d, n in enumerate(shape) if n != 1]
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides_list]
    for n, ss in dims:
        if out_shape and all(prev[-1] == s * n for prev, s in zip(out_strides, ss)):
            out_shape[-1] *= n
            for prev, s in zip(out_strides, ss):
                prev[-1] = s
            continue
        out_shape.append(n)
        for prev, s in zip(out_strides, ss):
            prev.append(s)
    return tuple(out_shape), [tuple(s) for s in out_strides]


def is_contiguous_1d(shape, strides) -> bool:
    return len(shape) == 0 or (len(shape) == 1 and strides[0] == 1)


def groups_for(threads: int) -> int:
    """Workgroups of ``WORKGROUP`` invocations for one invocation per thread."""
    return -(-threads // WORKGROUP)


def map_groups(items: int) -> int:
    """Workgroups for ``items`` output words of a kernel looping over ``ITEMS`` of them."""
    return -(-items // (WORKGROUP * ITEMS))
