"""Native gather and scatter for the WebGPU backend (``WebGPUBackend.gather``/``scatter``).

Gather (``shaders/gather.wgsl``) moves raw bits, so every dtype runs natively: one invocation per
output word (1- and 2-byte elements packed four or two to a word, 8- and 16-byte ones spread
over several words).

Scatter must equal the CPU device bit for bit whatever order invocations run in, so no pass
does a racy read-modify-write:

* ``set`` (last update wins, any dtype): the update pass takes ``atomicMax`` of ``i + 1`` into a
  "winners" buffer (one u32 per element of ``out``); then one invocation per element (or per
  word of packed dtypes) copies its winning update.
* ``add``/``min``/``max`` on int32/uint32 and ``or``/``and`` on bool are integer atomics straight
  into ``out`` (wrapping adds commute).
* float32 ``min``/``max`` take ``atomicMax``/``Min`` of order-preserving integer keys (NaN gets
  the extreme key, as the CPU's ``_float_keys``) into a keys buffer, then touched elements
  combine with their current value and decode (NaN results are the canonical quiet NaN).
* float32/float16/bfloat16/complex64 add ("sum", while the targets are few enough: fewer
  than about one per 32 updates, ``_sums_exactly``) sums exactly in integers: every float32 is
  an integer multiple of 2**-149, so each target (complex part) gets a fixed-point accumulator
  of 32-bit windows plus carry counts, one for its positive and one for its negative terms,
  which the updates add into with integer atomics (``shaders/scatter_sum_add.wgsl``; NaN and
  infinities record their first C-order position, zeros their sign).  Then one invocation per
  element of out adds the current value and rounds the exact sum once to nearest even
  (float16 directly, bfloat16 through float32, as the CPU does; ``shaders/scatter_sum.wgsl``):
  the CPU's bits whenever its float64 running sum is exact, and the correctly rounded sum
  always (where float64 rounds, the CPU's is 1 ULP off at most while its error stays below half
  a float32 step, e.g. for same-sign updates; cancellation beyond 53 bits loses more there:
  [1e20, 1, -1e20] sums to 1 here, to 0 on the CPU); NaN, infinities and signed zeros as the
  CPU's sequential float64 additions give them.  No sort,
  one pass over the updates (four at a time with vector loads where indices and updates are
  contiguous and 1-D: CPU adapters pay per load); it also flags an index outside [0, size)
  (``scatter_in_range``: TensorFlow's check, without a pass of its own).  Both precisions.
* everything else ("ordered": the float adds with many targets, add/min/max on the packed
  and 64-bit dtypes) follows the CPU's order literally.  The CPU starts each touched target
  from its current value, folds the target's updates in C order (float adds in float64 or
  complex128) and rounds once.  A first pass writes each update's target (buffer element of
  ``out``); the radix sort of ``sort.py`` orders the (target, update index) pairs by target on
  the target's significant bits only (1M updates into 1K targets: two 5-bit digits), stably,
  so each target's updates form one run in C order: O(n) passes, no comparison sort.  Then
  one invocation per run folds it sequentially (``shaders/scatter_ordered.wgsl``): where runs
  are long on average (``LIST_FROM`` updates per target of ``out``), the run heads are first
  listed densely (a count, scan and placement pass) so that neighbouring SIMD lanes fold
  neighbouring runs rather than idle beside one head; else the invocation at each sorted
  position folds if it is a run's head.  A run longer than ``ORDERED_BLOCK`` (16384) updates
  folds in segments ending at multiples of it, one invocation each, whose partial
  accumulators a second pass merges in order (lavapipe stops an invocation after 65535 loop
  iterations in all; a real GPU would stall on one long serial loop too).  Float sums use the
  reductions' triple-float accumulator (``shaders/reduce_lib.wgsl``, about 72 bits): it equals
  float64's left-to-right sum rounded once whenever that float64 sum is exact (every partial
  sum fits 53 bits, e.g. values within 2**29 of each other's scale), segmented or not.  Where
  float64 rounds, the result is within 1 ULP of the CPU's as long as float64's accumulated
  error stays well below half a float32 step of the result (always for same-sign updates:
  relative error <= n * 2**-53); both round a near-exact sum to nearest.  Under cancellation
  beyond 53 bits the GPU keeps bits the CPU loses ([1e20, 1, -1e20] sums to 1 here, to 0 on
  the CPU).  float16 rounds once from the sum, bfloat16 through float32, as the CPU does.
  Fast precision (``wt.set_precision("fast")``): the ordered path's float sums are plain
  float32 additions in the same order (float16/bfloat16 rounded once from the float32 sum; a
  long run's segment sums added in order), still deterministic, no longer the CPU's bits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from string import Template

from ... import dtypes as _d
from ... import ops as _ops
from ... import precision as _precision
from ...tensor import Tensor
from . import kernels
from .kernels import STORAGE_OF, Kernel, Params
from .matmul import header

_MASK = {1: "0xffu", 2: "0xffffu"}
NAN_KEY = {"max": "2147483647", "min": "(-2147483647 - 1)"}
# Keys buffer start value: never the key of a non-NaN float, nor the NaN key of that op.
_UNTOUCHED = {"max": -(1 << 31), "min": (1 << 31) - 1}


def _render(template: str, inputs, outputs, slots: int, lib: str = "", **fields) -> Kernel:
    head, uniform = header(inputs, outputs, slots)
    text = Template(kernels.source(template)).substitute(header=head, wg=kernels.WORKGROUP,
                                                         **fields)
    return Kernel(kernels.with_libraries(text + lib), len(inputs), len(outputs), uniform)


def _threads(itemsize: int, n: int) -> int:
    """Invocations for ``n`` elements: one per output word."""
    return n * (itemsize // 4) if itemsize >= 4 else -(-n // (4 // itemsize))


# -- gather ---------------------------------------------------------------------------------------

@lru_cache(maxsize=256)
def gather_kernel(itemsize: int, slots: int, modes=(False, False), ndim: int = 0,
                  index_words: int = 2) -> Kernel:
    """``modes``: the indices' and x's ``kernels.index_mode`` over the collapsed output shape
    of ``ndim`` dims (each operand's index computed by the cheapest function for it);
    ``index_words``: 1 for int32 indices, 2 for int64."""
    fns: dict[str, str] = {}
    index_i, index_x = (kernels.index_expr(mode, j, ndim, "e", functions=fns)
                        for j, mode in enumerate(modes))
    if itemsize >= 4:
        w = itemsize // 4
        body = [f"let e = t / {w}u;",
                f"out0[t] = in1[source_index(e) * {w}u + t % {w}u];"]
    else:
        per, bits = 4 // itemsize, 8 * itemsize
        body = ["var word = 0u;",
                f"for (var j = 0u; j < {per}u; j = j + 1u) {{",
                f"    let e = t * {per}u + j;",
                "    if (e < prm(1u)) {",
                "        let s = source_index(e);",
                f"        let v = (in1[s / {per}u] >> ((s % {per}u) * {bits}u)) & {_MASK[itemsize]};",
                f"        word = word | (v << (j * {bits}u));",
                "    }",
                "}",
                "out0[t] = word;"]
    return _render("gather", ["u32", "u32"], ["u32"], slots, words=max(1, itemsize // 4),
                   index_words=index_words, body=kernels.indent(body), index_i=index_i,
                   index_x=index_x, functions="\n\n".join(fns.values()))


def _check_shapes(fn: str, big_shape, small_shape, axis: int, big: str, small: str) -> None:
    if len(big_shape) != len(small_shape):
        raise ValueError(f"{fn}: {small} shape {small_shape} and {big} shape {big_shape} need "
                         f"the same number of dimensions")
    for d, (nb, ns) in enumerate(zip(big_shape, small_shape)):
        if d != axis and ns > nb and not (fn == "gather" and nb == 1):
            raise ValueError(f"{fn}: {big} has {nb} elements along axis {d}, the {small} need "
                             f"{ns}")


def gather(backend, out, x, axis: int, indices) -> None:
    """``out = take_along_axis(x, indices, axis)``; ``out`` fresh, ``indices`` int32 or int64
    with ``out``'s shape, ``x`` any view (size-1 dims broadcast, longer ones are cut)."""
    if tuple(indices.shape) != tuple(out.shape):
        raise ValueError(f"gather: indices shape {indices.shape} != out shape {out.shape}")
    _check_shapes("gather", x.shape, out.shape, axis, "x", "indices")
    if out.size == 0:
        return
    x_strides = [0 if d == axis or (nx == 1 and no != 1) else s
                 for d, (nx, no, s) in enumerate(zip(x.shape, out.shape, x.strides))]
    shape, (si, sx) = kernels.collapse(out.shape, [indices.strides, x_strides])
    params = Params(out.size, _threads(out.dtype.itemsize, out.size), shape,
                    [(indices.offset, si), (x.offset, sx)])
    params.add(x.strides[axis], x.shape[axis])
    modes = (kernels.index_mode(shape, si), kernels.index_mode(shape, sx))
    kernel = gather_kernel(out.dtype.itemsize, len(params.words), modes, len(shape),
                           indices.dtype.itemsize // 4)
    threads = params.words[2]
    backend.launch_threads(kernel, [indices._data, x._data, out._data], params, threads)


# -- scatter --------------------------------------------------------------------------------------

def _update_body(kind: str, op: str) -> tuple[list[str], str]:
    """The update pass for ``kind`` ("winner", "i32", "u32", "bool", "key") and ``op``:
    WGSL lines and the atomic's type."""
    load = "in1[update_index(i)]"
    if kind == "winner":
        return ["atomicMax(&out0[target_position(i)], i + 1u);"], "u32"
    if kind == "target":  # the ordered path's sort keys
        return ["atomicStore(&out0[i], target_element(i));"], "u32"
    if kind in ("i32", "u32"):
        fn = {"add": "atomicAdd", "max": "atomicMax", "min": "atomicMin"}[op]
        value = load if kind == "u32" else f"bitcast<i32>({load})"
        return [f"{fn}(&out0[target_element(i)], {value});"], kind
    if kind == "bool":
        # or (add, max) sets the target byte where the update is true; and (min) clears it
        # where the update is false.  Other bytes of the word are untouched.
        test, call = (("!= 0u", "atomicOr(&out0[e >> 2u], 1u << ((e & 3u) * 8u));")
                      if op in ("add", "max") else
                      ("== 0u", "atomicAnd(&out0[e >> 2u], ~(0xffu << ((e & 3u) * 8u)));"))
        return ["let s = update_index(i);",
                f"if (((in1[s >> 2u] >> ((s & 3u) * 8u)) & 0xffu) {test}) {{",
                "    let e = target_element(i);",
                f"    {call}",
                "}"], "u32"
    fn = "atomicMax" if op == "max" else "atomicMin"
    return [f"let v = bitcast<f32>({load});",
            f"let k = select(f32_key(v), {NAN_KEY[op]}, is_nan_f32(v));",
            f"{fn}(&out0[target_position(i)], k);"], "i32"


def _render_update(inputs, atomic: str, layout, slots: int, what: str, body, lib: str = ""):
    """scatter.wgsl for ``layout`` = (ndim, index modes of its four operands, words per index:
    1 for int32 indices, 2 for int64)."""
    ndim, modes, index_words = layout
    functions: dict[str, str] = {}
    at = [kernels.index_expr(mode, j, ndim, functions=functions) for j, mode in enumerate(modes)]
    return _render("scatter", inputs, [f"atomic<{atomic}>"], slots, lib=lib, what=what,
                   atomic=atomic, main=kernels.entry_point(_block(body, 2), "i"),
                   extra=4 + ndim + 4 * (ndim + 1), functions="\n\n".join(functions.values()),
                   indices_at=f"{at[0]} * {index_words}u", updates_at=at[1], out_at=at[2],
                   position_at=at[3],
                   high_is_zero="" if index_words == 1 else " && in0[at + 1u] == 0u")


@lru_cache(maxsize=64)
def scatter_update_kernel(kind: str, op: str, layout, slots: int) -> Kernel:
    body, atomic = _update_body(kind, op)
    inputs = ["u32"] if kind in ("winner", "target") else ["u32", "u32"]
    return _render_update(inputs, atomic, layout, slots, f"This one: {kind} {op}.", body)


@lru_cache(maxsize=64)
def scatter_apply_kernel(kind: str, itemsize: int, op: str, slots: int) -> Kernel:
    """The pass over out: ``kind`` "set" (copy winners; ``itemsize`` bytes) or "key"."""
    if kind == "key":
        combine = "max" if op == "max" else "min"
        nan = NAN_KEY[op]
        body = ["let k = bitcast<i32>(in0[t]);",
                f"if (k != {_UNTOUCHED[op]}) {{",
                "    let e = strided_index(t, 0u);",
                "    let current = bitcast<f32>(out0[e]);",
                f"    let r = {combine}(k, select(f32_key(current), {nan}, is_nan_f32(current)));",
                f"    out0[e] = select(bitcast<u32>(f32_from_key(r)), 0x7fc00000u, r == {nan});",
                "}"]
        inputs = ["u32"]
    elif itemsize >= 4:
        w = itemsize // 4
        body = [f"let p = t / {w}u;",
                f"let part = t % {w}u;",
                "let w = in0[p];",
                "if (w != 0u) {",
                f"    out0[strided_index(p, 0u) * {w}u + part] = "
                f"in1[(extra(0u) + w - 1u) * {w}u + part];",
                "}"]
        inputs = ["u32", "u32"]
    else:
        per, bits, mask = 4 // itemsize, 8 * itemsize, _MASK[itemsize]
        # out is contiguous here: buffer element e is position e - offset; each invocation
        # owns one whole word of out's buffer.
        body = ["let word_index = extra(2u) + t;",
                "var word = out0[word_index];",
                f"for (var j = 0u; j < {per}u; j = j + 1u) {{",
                f"    let e = word_index * {per}u + j;",
                "    let p = e - extra(1u);",
                "    if (e >= extra(1u) && p < prm(1u)) {",
                "        let w = in0[p];",
                "        if (w != 0u) {",
                "            let s = extra(0u) + w - 1u;",
                f"            let v = (in1[s / {per}u] >> ((s % {per}u) * {bits}u)) & {mask};",
                f"            word = (word & ~({mask} << (j * {bits}u))) | (v << (j * {bits}u));",
                "        }",
                "    }",
                "}",
                "out0[word_index] = word;"]
        inputs = ["u32", "u32"]
    what = f"This one: {kind} ({itemsize}-byte elements)."
    return _render("scatter_apply", inputs, ["u32"], slots, what=what, body=kernels.indent(body))


# -- exact float sums (shaders/scatter_sum_add.wgsl, scatter_sum.wgsl) --------------------------

# An update adds its significand (24 bits) shifted by its exponent modulo SUM_WINDOW_BITS to one
# window word, so a word wraps once in about 2^(8 - SUM_WINDOW_BITS) adds, and the carry count's
# atomic sits behind a branch that SIMD groups rarely take (narrower windows: wider slots).
SUM_WINDOW_BITS = 4
SUM_WINDOWS = 253 // SUM_WINDOW_BITS + 1  # float32 exponents (bits 2^-149 to 2^104 of terms)
SUM_SLOT = 4 * SUM_WINDOWS + 4  # accumulator words per target (and complex part)
_SUM_FIELDS = {"window_bits": SUM_WINDOW_BITS, "windows": SUM_WINDOWS}
SUM_STORAGES = ("f32", "f16", "bf16", "c64")
SUM_WORDS_PER_UPDATE = 8  # accumulator words the exact sums may take per update
SUM_WORDS_MIN = 1 << 17  # ... and at least (512 KiB: small scatters take them whatever n)
# vectors of four updates one invocation of the vector-load pass takes (SwiftShader and lavapipe
# measured fastest at 8-16; 1M updates still make 512 workgroups)
SUM_VEC4_ITEMS = 8
# The result format of each storage: significand bits, the bit (of 2^-149) its smallest step
# sits at, infinity, sign; bfloat16 rounds through float32 (``finish``), as the CPU does.
_F32_FORMAT = (24, 0, "0x7f800000u", "0x80000000u")
_SUM_FORMAT = {"f32": _F32_FORMAT, "c64": _F32_FORMAT, "bf16": _F32_FORMAT,
               "f16": (11, 125, "0x7c00u", "0x8000u")}


def _sum_access(storage: str) -> str:
    """scatter_sum.wgsl's per-storage functions: an update's and out's float32 bits, the
    store, and the conversions of a result into the stored format."""
    up = "extra(0u) + k"
    if storage in ("f32", "c64"):
        w = "2u * e + part" if storage == "c64" else "e"
        load = f"in1[2u * ({up}) + part]" if storage == "c64" else f"in1[{up}]"
        return (f"fn load_update(k: u32, part: u32) -> u32 {{\n    return {load};\n}}\n\n"
                f"fn load_out(e: u32, part: u32) -> u32 {{\n"
                f"    return atomicLoad(&out0[{w}]);\n}}\n\n"
                "fn current_bits(old: u32) -> u32 {\n    return old;\n}\n\n"
                f"fn store_out(e: u32, part: u32, old: u32, v: u32) {{\n"
                f"    atomicStore(&out0[{w}], v);\n}}\n\n"
                "fn special_bits(b: u32) -> u32 {\n    return b;\n}\n\n"
                "fn finish(v: u32) -> u32 {\n    return v;\n}")
    widen = ("bitcast<u32>(f16_bits_to_f32({}))" if storage == "f16" else "({} << 16u)")
    lane = "((e & 1u) * 16u)"
    special, finish = (("f32_to_f16_bits(bitcast<f32>(b))", "v") if storage == "f16" else
                       ("b", "f32_to_bf16_bits(bitcast<f32>(v))"))
    return ("fn load_update(k: u32, part: u32) -> u32 {\n"
            f"    let s = {up};\n"
            f"    return {widen.format('((in1[s >> 1u] >> ((s & 1u) * 16u)) & 0xffffu)')};\n}}\n\n"
            "fn load_out(e: u32, part: u32) -> u32 {\n"
            f"    return (atomicLoad(&out0[e >> 1u]) >> {lane}) & 0xffffu;\n}}\n\n"
            f"fn current_bits(old: u32) -> u32 {{\n    return {widen.format('old')};\n}}\n\n"
            "// Only this invocation writes this lane: xor flips exactly the bits that change.\n"
            "fn store_out(e: u32, part: u32, old: u32, v: u32) {\n"
            f"    atomicXor(&out0[e >> 1u], ((old ^ v) & 0xffffu) << {lane});\n}}\n\n"
            f"fn special_bits(b: u32) -> u32 {{\n    return {special};\n}}\n\n"
            f"fn finish(v: u32) -> u32 {{\n    return {finish};\n}}")


def _sum_library() -> str:
    return "\n" + Template(kernels.source("scatter_sum_add")).substitute(_SUM_FIELDS)


@lru_cache(maxsize=16)
def sum_add_kernel(storage: str, layout, slots: int) -> Kernel:
    """The update pass of the exact sums: every update into its target's accumulator."""
    if storage == "c64":
        body = ["let s = update_index(i);",
                "let slot = 2u * target_position(i);",
                "sum_add(slot, in1[2u * s], i + 1u);",
                "sum_add(slot + 1u, in1[2u * s + 1u], i + 1u);"]
    elif storage == "f32":
        body = ["sum_add(target_position(i), in1[update_index(i)], i + 1u);"]
    else:
        load = kernels.STORAGE[storage].load.format(buf="in1", idx="update_index(i)")
        body = [f"sum_add(target_position(i), bitcast<u32>({load}), i + 1u);"]
    body += ["if (!index_in_range(i)) {", "    atomicOr(&out0[extra(3u)], 1u);", "}"]
    return _render_update(["u32", "u32"], "u32", layout, slots,
                          f"This one: exact sum, {storage}.", body,
                          lib=_sum_library())


def _vec4_main(role: str) -> str:
    """The vector pass's entry point by role (``kernels.entry_point``'s roles): the flags of
    every vector of the invocation, then (where a zero, NaN or infinity was met) its marking
    walk (plain) or its listing for the redo kernel (defer), which runs only the walk."""
    walk = kernels.entry_point("        mark_vector(q);", "q", items=SUM_VEC4_ITEMS, role="redo")
    if role == "redo":
        return walk
    items = Template("""\
for (var item = 0u; item < ${items}u; item = item + 1u) {
    let q = first + item * stride;
    if (q >= prm(2u)) {
        break;
    }
    ${step}
}""")
    special = (items.substitute(items=SUM_VEC4_ITEMS, step="mark_vector(q);")
               if role == "plain" else "defer_invocation(first, stride);")
    body = [f"let first = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * {kernels.WORKGROUP}u;",
            f"let stride = nwg.x * nwg.y * nwg.z * {kernels.WORKGROUP}u;", "var flags = 0u;",
            items.substitute(items=SUM_VEC4_ITEMS, step="flags = flags | add_vector(q);"),
            "if ((flags & 2u) != 0u) {", kernels.indent(special.split("\n")), "}",
            "if ((flags & 1u) != 0u) {", "    atomicOr(&out0[prm(8u)], 1u);", "}"]
    lines = "\n".join(body).split("\n")
    return (f"@compute @workgroup_size({kernels.WORKGROUP})\n"
            "fn main(@builtin(global_invocation_id) gid: vec3<u32>, "
            "@builtin(num_workgroups) nwg: vec3<u32>) {\n" + kernels.indent(lines) + "\n}")


@lru_cache(maxsize=4)
def sum_add_vec4_kernel(index_words: int) -> Kernel:
    """The update pass of the exact float32 sums for contiguous 1-D indices and updates, with
    its deferred pair (the marking of zeros, NaN and infinities: ``_vec4_main``)."""
    if index_words == 1:
        load = "let v = in0[prm(4u) + q];\nlet high = vec4<u32>(0u);"
    else:  # two int64 indices per vector: their low and high words
        load = ("let a = in0[prm(4u) + 2u * q];\n"
                "let b = in0[prm(4u) + 2u * q + 1u];\n"
                "let v = vec4<u32>(a.x, a.z, b.x, b.z);\n"
                "let high = vec4<u32>(a.y, a.w, b.y, b.w);")
    vec4s = kernels.uniform_vec4s(9)

    def make(role: str) -> Kernel:
        head = kernels.header(2, 1, vec4s, "vec4<u32>", role=role, out="atomic<u32>")
        text = Template(kernels.source("scatter_sum_vec4")).substitute(
            header=head, load=kernels.indent(load.splitlines()), main=_vec4_main(role))
        return kernels._role_kernel(text + _sum_library(), 2, 1, vec4s, role)

    return replace(make("plain"), deferred=(make("defer"), make("redo")))


def _vec4_ok(layout, indices, updates) -> bool:
    """Whether the float32 sums' update pass may load four indices and updates at a time:
    1-D contiguous operands starting at whole vectors of buffers of whole vectors."""
    ndim, modes, index_words = layout
    return (ndim == 1 and modes == (True, True, "scalar", "scalar")
            and updates.dtype is _d.float32 and updates.offset % 4 == 0
            and (indices.offset * index_words) % 4 == 0
            and indices._data.size % 16 == 0 and updates._data.size % 16 == 0)


@lru_cache(maxsize=16)
def sum_result_kernel(storage: str, slots: int) -> Kernel:
    """The pass over out of the exact sums: each touched element's sum, rounded once."""
    p_bits, q_min, inf, sign = _SUM_FORMAT[storage]
    return _render("scatter_sum", ["u32", "u32"], ["atomic<u32>"], slots,
                   what=f"This one: {storage}.", parts=2 if storage == "c64" else 1,
                   p_bits=p_bits, q_min=q_min, inf=inf, sign=sign,
                   format=_sum_access(storage), **_SUM_FIELDS)


# -- the ordered combine: per dtype, how a run folds (see shaders/scatter_ordered.wgsl) --------
# ``cur`` is the target's bits (u32 lane, or vec2<u32> for 8-byte elements), ``u`` an update's.

def _signed(bits: int) -> str:
    return f"(bitcast<i32>({{}} << {32 - bits}u) >> {32 - bits}u)"


_HALF = {"f16": ("f16_bits_to_f32({})", "f32_to_f16_bits({})", "0x7e00u", "false"),
         "bf16": ("bf16_bits_to_f32({})", "f32_to_bf16_bits({})", "0x7fc0u", "true")}
_INT64_MINMAX = {("i64", "max"): "max_i64", ("i64", "min"): "min_i64",
                 ("u64", "max"): "max_u64", ("u64", "min"): "min_u64"}


# Fast precision: float sums in plain float32 additions, in the same order (no extended
# accumulator; float16/bfloat16 round once from the float32 sum).
_FAST_SUM = {
    "f32": ("f32", "var acc = bitcast<f32>(cur);", "acc = acc + bitcast<f32>(u);",
            "bitcast<u32>(acc)"),
    "c64": ("vec2<f32>", "var acc = bitcast<vec2<f32>>(cur);",
            "acc = acc + bitcast<vec2<f32>>(u);", "bitcast<vec2<u32>>(acc)"),
}


@dataclass(frozen=True)
class Fold:
    """How a run folds for one storage and op: ``accs`` the accumulator variables (name, WGSL
    type), ``init`` them from ``cur`` (a target's or first update's bits), ``fold`` in update
    ``u``, ``merge`` a later segment's partial (``p_<name>``), and the result's bits."""

    accs: tuple[tuple[str, str], ...]
    init: tuple[str, ...]
    fold: tuple[str, ...]
    merge: tuple[str, ...]
    result: str


def _one(acc_type: str, init: str, fold: str, merge: str, result: str) -> Fold:
    return Fold((("acc", acc_type),), (init,), (fold,), (merge,), result)


def fold_of(storage: str, op: str, fast: bool = False) -> Fold:
    """The ``Fold`` of ``op`` on ``storage`` (fast: float sums in float32)."""
    if fast and op == "add" and storage in _FAST_SUM:
        t, init, fold, result = _FAST_SUM[storage]
        return _one(t, init, fold, "acc = acc + p_acc;", result)
    if storage in ("u8", "u16", "i8", "i16"):
        bits = 8 if storage.endswith("8") else 16
        mask = _MASK[bits // 8]
        if op == "add":  # wraps: the low bits of the u32 sum
            return _one("u32", "var acc = cur;", "acc = acc + u;", "acc = acc + p_acc;",
                        f"acc & {mask}")
        signed = storage[0] == "i"
        dec = _signed(bits) if signed else "{}"
        enc = "bitcast<u32>(acc)" if signed else "acc"
        return _one("i32" if signed else "u32", f"var acc = {dec.format('cur')};",
                    f"acc = {op}(acc, {dec.format('u')});", f"acc = {op}(acc, p_acc);",
                    f"{enc} & {mask}")
    if storage in ("i64", "u64"):
        fn = "add_u64" if op == "add" else _INT64_MINMAX[(storage, op)]
        return _one("vec2<u32>", "var acc = cur;", f"acc = {fn}(acc, u);",
                    f"acc = {fn}(acc, p_acc);", "acc")
    if storage == "f32":
        return _one("vec4<u32>", "var acc = vec4<u32>(cur, 0u, 0u, 0u);",
                    "acc = fsum_add(acc, bitcast<f32>(u));", "acc = fsum_merge(acc, p_acc);",
                    "fsum_out(acc)")
    if storage == "c64":  # two float32 sums, as complex128 adds the parts independently
        return Fold((("re", "vec4<u32>"), ("im", "vec4<u32>")),
                    ("var re = vec4<u32>(cur.x, 0u, 0u, 0u);",
                     "var im = vec4<u32>(cur.y, 0u, 0u, 0u);"),
                    ("re = fsum_add(re, bitcast<f32>(u.x));",
                     "im = fsum_add(im, bitcast<f32>(u.y));"),
                    ("re = fsum_merge(re, p_re);", "im = fsum_merge(im, p_im);"),
                    "vec2<u32>(fsum_out(re), fsum_out(im))")
    dec, enc, nan, bf16 = _HALF[storage]
    if op == "add" and fast:
        return _one("f32", f"var acc = {dec.format('cur')};", f"acc = acc + {dec.format('u')};",
                    "acc = acc + p_acc;", enc.format("acc"))
    if op == "add":
        return _one("vec4<u32>", f"var acc = vec4<u32>(bitcast<u32>({dec.format('cur')}), 0u, "
                    "0u, 0u);", f"acc = fsum_add(acc, {dec.format('u')});",
                    "acc = fsum_merge(acc, p_acc);", f"fsum_out16(acc, {bf16})")
    # max/min on the float32 value's order key; NaN takes the winning key, gives the CPU's NaN
    key = f"select(f32_key({{0}}), {NAN_KEY[op]}, is_nan_f32({{0}}))"
    return Fold((("acc", "i32"),), (f"let c = {dec.format('cur')};", f"var acc = {key.format('c')};"),
                (f"let v = {dec.format('u')};", f"acc = {op}(acc, {key.format('v')});"),
                (f"acc = {op}(acc, p_acc);",),
                f"select({enc.format('f32_from_key(acc)')}, {nan}, acc == {NAN_KEY[op]})")


def _access(itemsize: int) -> str:
    """load_out / load_update / store_out for ``itemsize``-byte elements."""
    if itemsize == 4:
        return ("fn load_out(e: u32) -> u32 {\n    return atomicLoad(&out0[e]);\n}\n\n"
                "fn load_update(s: u32) -> u32 {\n    return in1[s];\n}\n\n"
                "fn store_out(e: u32, old: u32, v: u32) {\n    atomicStore(&out0[e], v);\n}")
    if itemsize == 8:
        return ("fn load_out(e: u32) -> vec2<u32> {\n"
                "    return vec2<u32>(atomicLoad(&out0[2u * e]), atomicLoad(&out0[2u * e + 1u]));"
                "\n}\n\n"
                "fn load_update(s: u32) -> vec2<u32> {\n"
                "    return vec2<u32>(in1[2u * s], in1[2u * s + 1u]);\n}\n\n"
                "fn store_out(e: u32, old: vec2<u32>, v: vec2<u32>) {\n"
                "    atomicStore(&out0[2u * e], v.x);\n"
                "    atomicStore(&out0[2u * e + 1u], v.y);\n}")
    per, bits, mask = 4 // itemsize, 8 * itemsize, _MASK[itemsize]
    lane = f"((e % {per}u) * {bits}u)"
    return (f"fn load_out(e: u32) -> u32 {{\n"
            f"    return (atomicLoad(&out0[e / {per}u]) >> {lane}) & {mask};\n}}\n\n"
            f"fn load_update(e: u32) -> u32 {{\n"
            f"    return (in1[e / {per}u] >> {lane}) & {mask};\n}}\n\n"
            "// Only this invocation writes this lane: xor flips exactly the bits that change.\n"
            f"fn store_out(e: u32, old: u32, v: u32) {{\n"
            f"    atomicXor(&out0[e / {per}u], ((old ^ v) & {mask}) << {lane});\n}}")


# the dtypes whose add/min/max scatter folds in order (bool, int32 and uint32 use atomics)
_STORAGE_OF = {dt: s for dt, s in STORAGE_OF.items()
               if dt not in (_d.bool, _d.int32, _d.uint32)}


ORDERED_BLOCK = 16384  # updates one invocation folds at most (lavapipe's loop limit: 65535)
LIST_STRETCH = 256  # sorted positions one invocation checks for segment starts (at least)
LIST_STRETCHES = 16384  # at most (one invocation walks their counts)
LIST_FROM = 16  # updates per target of out from which the segment starts are listed first
_WORDS = {"u32": 1, "i32": 1, "f32": 1, "vec2<u32>": 2, "vec2<f32>": 2, "vec4<u32>": 4}


def _save(fold: Fold) -> list[str]:
    """Store the accumulators into the partial slot at word ``base`` of out1."""
    lines, at = [], 0
    for name, t in fold.accs:
        words = _WORDS[t]
        bits = f"bitcast<{'u32' if words == 1 else f'vec{words}<u32>'}>({name})"
        lines.append(f"let w_{name} = {bits};")
        for k in range(words):
            part = f"w_{name}" if words == 1 else f"w_{name}[{k}]"
            lines.append(f"out1[base + {at + k}u] = {part};")
        at += words
    return lines


def _load(fold: Fold, prefix: str, decl: str) -> list[str]:
    """Read the partial slot at word ``base`` of in1 into ``{prefix}{name}`` variables."""
    lines, at = [], 0
    for name, t in fold.accs:
        words = _WORDS[t]
        parts = ", ".join(f"in1[base + {at + k}u]" for k in range(words))
        raw = parts if words == 1 else f"vec{words}<u32>({parts})"
        lines.append(f"{decl} {prefix}{name} = bitcast<{t}>({raw});")
        at += words
    return lines


_LIST_BODY = {
    "count": """\
let stop = min(n, (t + 1u) * prm(6u));
var c = 0u;
for (var k = t * prm(6u); k < stop; k = k + 1u) {
    if (segment_start(k)) {
        c = c + 1u;
    }
}
out0[t] = c;""",
    "carry": """\
var acc = 0u;
for (var g = 0u; g < prm(7u); g = g + 1u) {
    let v = out0[g];
    out0[g] = acc;
    acc = acc + v;
}""",
    "place": """\
let stop = min(n, (t + 1u) * prm(6u));
var at = in1[t];
for (var k = t * prm(6u); k < stop; k = k + 1u) {
    if (segment_start(k)) {
        out0[at] = k;
        at = at + 1u;
    }
}
if (t + 1u == prm(7u)) {
    out0[n] = at;
}""",
}

# Which segment an invocation folds: the t-th listed start, or position t if it starts one.
_FOLD_AT = {"fold_listed": """\
if (t >= in2[n]) {
    return;
}
let k = in2[t];""", "fold": """\
let k = t;
if (!segment_start(k)) {
    return;
}"""}

_FOLD_BODY = Template("""\
${at}
let e = target_at(k);
let head = k == 0u || target_at(k - 1u) != e;
let old = load_out(e);
var cur = old;
var j = k;
if (!head) {
    cur = load_update(update_offset() + update_at(k));
    j = k + 1u;
}
${init}
// a long run's segments end at multiples of BLOCK; a short run is folded whole
let long_run = !head || is_long(k, e);
let stop = select(n, min(n, (k / BLOCK + 1u) * BLOCK), long_run);
loop {
    if (j >= stop || target_at(j) != e) {
        break;
    }
    let u = load_update(update_offset() + update_at(j));
${fold}
    j = j + 1u;
}
if (!long_run) {
    store_out(e, old, ${result});
    return;
}
let base = 8u * (2u * (k / BLOCK) + select(1u, 0u, head));
${save}""")

_MERGE_BODY = Template("""\
// window t's last position lies in the run of any long run whose head is in window t
let last = min(n, (t + 1u) * BLOCK) - 1u;
let e = target_at(last);
let h = run_start(last, e);
if (h < t * BLOCK || !is_long(h, e)) {
    return;
}
var base = 16u * t;
${load}
var s = (t + 1u) * BLOCK;
loop {
    if (s >= n || target_at(s) != e) {
        break;
    }
    base = 8u * (2u * (s / BLOCK) + 1u);
${load_p}
${merge}
    s = s + BLOCK;
}
store_out(e, load_out(e), ${result});""")


def _block(lines, depth: int = 1) -> str:
    return "\n".join("    " * depth + line for line in lines)


# the segment-start list's passes: (inputs, outputs) after the pairs
_LIST_BINDINGS = {"count": ([], ["u32"]), "carry": ([], ["u32"]), "place": (["u32"], ["u32"])}


@lru_cache(maxsize=8)
def segment_list_kernel(mode: str, slots: int) -> Kernel:
    """The passes listing the ordered combine's segment starts (shaders/scatter_ordered.wgsl)."""
    inputs, outputs = _LIST_BINDINGS[mode]
    return _render("scatter_ordered", ["u32", *inputs], outputs, slots, what="", mode=mode,
                   block=ORDERED_BLOCK, access="", body=_block(_LIST_BODY[mode].splitlines()))


@lru_cache(maxsize=64)
def scatter_ordered_kernel(mode: str, storage: str, itemsize: int, op: str, fast: bool,
                           slots: int) -> Kernel:
    """The ordered combine's ``mode`` "fold" or "merge" (shaders/scatter_ordered.wgsl)."""
    fold = fold_of(storage, op, fast)
    inputs = ["u32", "u32"]
    if mode in _FOLD_AT:
        body = _FOLD_BODY.substitute(at=_FOLD_AT[mode], init=_block(fold.init, 0),
                                     fold=_block(fold.fold), result=fold.result,
                                     save=_block(_save(fold), 0))
        inputs += ["u32"] * (mode == "fold_listed")
        outputs = ["atomic<u32>", "u32"]
    else:
        body = _MERGE_BODY.substitute(load=_block(_load(fold, "", "var"), 0),
                                      load_p=_block(_load(fold, "p_", "let")),
                                      merge=_block(fold.merge), result=fold.result)
        outputs = ["atomic<u32>"]
    lib = ""
    if storage in ("f32", "c64", "f16", "bf16") and op == "add" and not fast:
        lib = "\n" + kernels.source("reduce_lib")
        if storage in ("f16", "bf16"):
            lib += "\n" + kernels.source("reduce_half")
    what = f"This one: {storage} {op}{', fast' if fast else ''}."
    return _render("scatter_ordered", inputs, outputs, slots, lib=lib, what=what,
                   mode=mode, block=ORDERED_BLOCK, access=_access(itemsize),
                   body=_block(body.splitlines()))


def _ordered_ok(op: str, dtype) -> bool:
    storage = _STORAGE_OF.get(dtype)
    if storage is None or op == "set":
        return False
    # min/max of complex numbers is refused by the CPU device (routed there for its error);
    # int32/uint32 and bool use atomics, float32 min/max keys.
    return not (storage == "c64" and op != "add")


def scatter_kind(op: str, dtype) -> str | None:
    """How ``scatter(op)`` on ``dtype`` runs natively, or None (routed to the CPU)."""
    if op not in _ops.SCATTER_MODES:
        return None
    if op == "set":
        return "winner" if dtype.itemsize in (1, 2, 4, 8, 16) else None
    if dtype in (_d.int32, _d.uint32):
        return "i32" if dtype is _d.int32 else "u32"
    if dtype is _d.bool:
        return "bool"
    if dtype is _d.float32 and op in ("max", "min"):
        return "key"
    return "ordered" if _ordered_ok(op, dtype) else None


_INDEX_DTYPES = (_d.int32, _d.int64)  # the index dtypes gather and scatter read directly


def scatter(backend, op: str, out, axis: int, indices, updates) -> Tensor | None:
    """In place on the view ``out``: scatter ``updates`` (``indices``' shape, ``out``'s
    dtype) along ``axis`` at ``indices`` (int32 or int64) with ``op``; ``scatter_kind`` must
    allow it.  Returns the exact sums' accumulators where they ran (``_exact_sum``)."""
    if tuple(updates.shape) != tuple(indices.shape):
        raise ValueError(f"scatter: updates shape {updates.shape} != indices shape "
                         f"{indices.shape}")
    _check_shapes("scatter", out.shape, indices.shape, axis, "out", "indices")
    if indices.size == 0 or out.size == 0:
        return None
    kind = scatter_kind(op, out.dtype)
    updates = backend.unaliased(out, [updates])[0]
    out_strides = [0 if d == axis else s for d, s in enumerate(out.strides)]
    c_strides = [0] * out.ndim
    step = 1
    for d in range(out.ndim - 1, -1, -1):
        c_strides[d] = 0 if d == axis else step
        step *= out.shape[d]
    c_axis = _c_stride(out.shape, axis)
    shape, (si, su, so, sc) = kernels.collapse(indices.shape, [indices.strides, updates.strides,
                                                                out_strides, c_strides])
    params = Params(indices.size, indices.size, shape,
                    [(indices.offset, si), (updates.offset, su), (out.offset, so), (0, sc)])
    params.add(out.strides[axis], c_axis, out.shape[axis])
    layout = (len(shape), tuple(kernels.index_mode(shape, s) for s in (si, su, so, sc)),
              indices.dtype.itemsize // 4)
    if kind == "ordered" and _sums_exactly(backend, op, out, indices.size):
        return _exact_sum(backend, out, axis, indices, updates, params, layout)
    if kind == "ordered":
        _ordered(backend, op, out, axis, indices, updates, params, layout)
        return None
    update = scatter_update_kernel(kind, op, layout, len(params.words))
    if kind in ("i32", "u32", "bool"):
        _launch_updates(backend, update, [indices._data, updates._data, out._data], params)
        return None
    untouched = 0 if kind == "winner" else _UNTOUCHED[op]
    work = _work_buffer(backend, out.device, out.size, untouched)
    inputs = [indices._data] if kind == "winner" else [indices._data, updates._data]
    _launch_updates(backend, update, [*inputs, work._data], params)
    _apply(backend, kind, op, out, updates, work)
    return None


def _launch_updates(backend, kernel, buffers, params: Params) -> None:
    """A scatter.wgsl pass: ``kernels.ITEMS`` updates per invocation."""
    backend.launch(kernel, buffers, params, kernels.map_groups(params.words[1]))


def _c_stride(shape, axis: int) -> int:
    n = 1
    for size in shape[axis + 1:]:
        n *= size
    return n


def _work_buffer(backend, device, n: int, value: int) -> Tensor:
    """A fresh int32 tensor of ``n`` words, each ``value`` (the winners/keys buffer)."""
    t = Tensor._wrap(backend.alloc(_d.int32, n), (n,), _d.int32, device)
    backend.fill(t, value)
    return t


def _apply(backend, kind: str, op: str, out, updates, work) -> None:
    eb = out.dtype.itemsize
    if kind == "key":
        shape, (so,) = kernels.collapse(out.shape, [out.strides])
        params = Params(out.size, out.size, shape, [(out.offset, so)])
        kernel = scatter_apply_kernel("key", 4, op, len(params.words))
        backend.launch_threads(kernel, [work._data, out._data], params, out.size)
        return
    if not updates.is_contiguous:
        updates = backend.materialize(updates)
    if eb >= 4:
        shape, (so,) = kernels.collapse(out.shape, [out.strides])
        threads = out.size * (eb // 4)
        params = Params(out.size, threads, shape, [(out.offset, so)])
        params.add(updates.offset)
    else:
        per = 4 // eb
        first_word = out.offset // per
        threads = (out.offset + out.size - 1) // per - first_word + 1
        params = Params(out.size, threads, (), [(out.offset, ())])
        params.add(updates.offset, out.offset, first_word)
    kernel = scatter_apply_kernel("set", eb, op, len(params.words))
    backend.launch_threads(kernel, [work._data, updates._data, out._data], params, threads)


def _sums_exactly(backend, op: str, out, n: int) -> bool:
    """Whether a float scatter-add of ``n`` updates takes the exact integer sums (else the
    ordered path): while their accumulators stay within SUM_WORDS_PER_UPDATE words per
    update (or SUM_WORDS_MIN): filling and rounding them costs per target of out, the sort
    per update (measured on lavapipe: they break even near 32 updates per target)."""
    storage = _STORAGE_OF[out.dtype]
    if op != "add" or storage not in SUM_STORAGES:
        return False
    words = SUM_SLOT * out.size * (2 if storage == "c64" else 1) + 1
    return (words <= max(SUM_WORDS_MIN, SUM_WORDS_PER_UPDATE * n)
            and 4 * words <= min(backend.max_binding, backend.memory.max_buffer))


def _exact_sum(backend, out, axis: int, indices, updates, params: Params, layout) -> Tensor:
    """Float scatter-add through exact integer accumulators, one slot per target (and complex
    part): the update pass adds into them, then each touched element of out is rounded once.
    Returns the accumulators, whose last word is the flag of an index outside [0, size)."""
    storage = _STORAGE_OF[out.dtype]
    slots = out.size * (2 if storage == "c64" else 1)
    flag = SUM_SLOT * slots
    acc = _work_buffer(backend, out.device, flag + 1, 0)
    n = indices.size
    if _vec4_ok(layout, indices, updates):
        index_words = layout[2]
        vec = Params(n, -(-n // 4))
        vec.add(indices.offset * index_words // 4, updates.offset // 4, out.shape[axis],
                _c_stride(out.shape, axis), flag)
        groups = -(-n // (4 * kernels.WORKGROUP * SUM_VEC4_ITEMS))
        backend.launch(sum_add_vec4_kernel(index_words),
                       [indices._data, updates._data, acc._data], vec, groups)
    else:
        params.add(flag)
        _launch_updates(backend, sum_add_kernel(storage, layout, len(params.words)),
                        [indices._data, updates._data, acc._data], params)
    if not updates.is_contiguous:  # a NaN's payload is read by its C-order position
        updates = backend.materialize(updates)
    shape, (so,) = kernels.collapse(out.shape, [out.strides])
    result = Params(out.size, slots, shape, [(out.offset, so)])
    result.add(updates.offset)
    backend.launch_threads(sum_result_kernel(storage, len(result.words)),
                           [acc._data, updates._data, out._data], result, slots)
    return acc


def scatter_in_range(backend, op: str, out, axis: int, indices, updates) -> bool | None:
    """``WebGPUBackend.scatter_in_range``: the exact float sums flag an index outside [0, size)
    as they scatter, so one word read back tells; None for every other scatter."""
    if not (out.size and indices.size and _native(backend, op, out, indices, updates)
            and scatter_kind(op, out.dtype) == "ordered"
            and _sums_exactly(backend, op, out, indices.size)):
        return None
    acc = scatter(backend, op, out, axis, indices, updates)
    return backend.read(acc._data, acc._data.nbytes - 4, 4) == bytes(4)


def _ordered(backend, op: str, out, axis: int, indices, updates, params: Params,
             layout) -> None:
    """The ordered path: targets, their stable radix sort, then the folds of the runs."""
    from . import sort as _sort

    n = indices.size
    bits = max(1, (out._data.nbytes // out.dtype.itemsize - 1).bit_length())
    if not _sort.radix_fits(backend, n, 1, "u32", bits):
        # too many updates for one sort binding: the CPU device does the whole scatter
        backend.route("scatter", (op, out, axis, indices, updates))
        return
    targets = backend.allocate(4 * n)
    _launch_updates(backend, scatter_update_kernel("target", op, layout, len(params.words)),
                    [indices._data, targets], params)
    pairs = _sort.radix_pairs(backend, targets, "u32", (n,), (1,), 0, n, 1, False, bits)
    if not updates.is_contiguous:
        updates = backend.materialize(updates)
    stretch = max(LIST_STRETCH, -(-n // LIST_STRETCHES))
    stretches = -(-n // stretch)
    windows = -(-n // ORDERED_BLOCK)
    partials = backend.allocate(64 * windows)
    key = (_STORAGE_OF[out.dtype], out.dtype.itemsize, op, _precision.fast())
    fold = [pairs, updates._data, out._data, partials]
    if n >= LIST_FROM * (out._data.nbytes // out.dtype.itemsize):
        # long runs on average (few targets): list their starts, fold them side by side
        sums, starts = backend.allocate(4 * stretches), backend.allocate(4 * (n + 1))
        passes = [("count", stretches, [pairs, sums]), ("carry", 1, [pairs, sums]),
                  ("place", stretches, [pairs, sums, starts]),
                  ("fold_listed", n, [*fold[:2], starts, *fold[2:]])]
    else:
        passes = [("fold", n, fold)]
    passes.append(("merge", windows, [pairs, partials, out._data]))
    for mode, threads, buffers in passes:
        params = Params(n, threads, (), [(0, ())])
        params.add(updates.offset, stretch, stretches)
        if mode in _LIST_BINDINGS:
            kernel = segment_list_kernel(mode, len(params.words))
        else:
            kernel = scatter_ordered_kernel(mode, *key, len(params.words))
        backend.launch_threads(kernel, buffers, params, threads)


# -- the family's interface (backend.FAMILIES) ----------------------------------------------------

PRIMITIVES = ("gather", "scatter")
_ITEMSIZES = (1, 2, 4, 8, 16)  # gather moves raw bits: every element size


def supports(prim: str, op, dt) -> bool:
    if prim == "gather":
        return dt.itemsize in _ITEMSIZES
    return scatter_kind(op, dt) is not None


def capability(prim: str, dt) -> str:
    if prim == "gather":
        return "native" if supports(prim, None, dt) else "cpu"
    # complex min/max is refused by every device: not counted
    ops = ("set", "add") if dt.kind == "c" else _ops.SCATTER_MODES
    native = sum(supports(prim, op, dt) for op in ops)
    return {len(ops): "native", 0: "cpu"}.get(native, f"partial ({native}/{len(ops)} ops)")


def run(backend, prim: str, *args) -> bool:
    if prim == "gather":
        out, x, axis, indices = args
        if not (supports(prim, None, x.dtype) and indices.dtype in _INDEX_DTYPES
                and x.dtype is out.dtype and backend.native_ok(out, x, indices)):
            return False
        gather(backend, out, x, axis, indices)
        return True
    op, out, axis, indices, updates = args
    if not _native(backend, op, out, indices, updates):
        return False
    scatter(backend, op, out, axis, indices, updates)
    return True


def _native(backend, op: str, out, indices, updates) -> bool:
    """Whether this scatter runs here (else on the CPU device)."""
    kind = scatter_kind(op, out.dtype)
    packed_set = kind == "winner" and out.dtype.itemsize < 4
    return (kind is not None and indices.dtype in _INDEX_DTYPES and updates.dtype is out.dtype
            and backend.fits(out, indices, updates) and (out.is_contiguous or not packed_set))
