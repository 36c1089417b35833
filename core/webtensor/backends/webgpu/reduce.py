"""Reductions, arg-reductions and scans of the WebGPU backend as WGSL kernels.

Every op is an *accumulator family* (``_FAMILIES``): an identity, ``lift`` (one element and its
position in the row -> an accumulator), an associative ``merge`` and ``out`` (accumulator -> the
result's words).  Accumulators are four u32 words (layouts in ``shaders/reduce_lib.wgsl``), so
one reduction template and one scan template serve every op and dtype:

* ``reduce``/``arg_reduce``: the input is seen as ``rows`` (the kept dims, C order) of ``length``
  elements (the reduced dims, C order), both as strided views of the input buffer.  A pass gives
  each row ``lanes`` invocations (a tree in workgroup memory combines them) on GPUs, one
  invocation per chunk of a row and no tree on CPU adapters (``REDUCE_PLANS``); long rows are
  cut into chunks whose partial accumulators a further pass reduces, until one chunk is left.
* ``scan``: one invocation per (row, chunk) walks the chunk in order.  Rows longer than one chunk
  first reduce every chunk (a reduction pass), scan the chunk totals (``scan_carry.wgsl``) and
  then rescan each chunk from its carry: linear work, parallel over chunks.

Exactness: integer, bool, max/min and arg results equal the CPU device bit for bit (max/min
compare order keys in which -0.0 < +0.0 and NaN wins; argmax/argmin let -0.0 tie +0.0).  Float32
sums accumulate a triple-float (hi + mid + lo, ~72 bits: a double-float pair drifted by tens of
ULP after cancellation) and products a double-float mantissa with a separate exponent (no
float32 over/underflow in between; a sum moves to a 2^-64 scale when it would overflow), so they
match the CPU's float64 left-to-right accumulation within 1 ULP, and where float64 itself drifts
(cancellation after many rounded additions) the triple-float is the closer to the exact sum.
Other dtypes: 8/16-bit ints compute in i32/u32 (sums/products wrap to the result's width when
stored); int64/uint64 add and multiply in two words with carries and compare (high, low) keys;
float16/bfloat16 use the float32 accumulators and round once at the end as the CPU does
(reduce_half.wgsl: float16 from the exact value, bfloat16 through float32); complex64 sums are
float32 sums of the (re, im) components, products float32 complex products with a separate
exponent (within about 3 eps per factor of the CPU's complex128 product), any/all exact.  Results narrower than a word go through a uint32
temporary and a native cast (_u32_sink).
Limits: a computed NaN's sign may differ from the CPU's (IEEE leaves it open); a sum that went
past float32's range and cancels back below 2^-62 loses bits; a product whose float64 running
value would over/underflow (beyond 1e+-308) keeps its exact exponent here.
"""

from __future__ import annotations

from functools import lru_cache

from ... import dtypes as _d
from ... import ops as _ops
from ... import precision as _precision
from ... import shape as _s
from ...tensor import Tensor
from . import kernels
from .kernels import STORAGE, STORAGE_OF, Kernel, Params, source

# The element types these kernels read natively (kernels.STORAGE: 8/16-bit ones packed in
# words, int64/uint64 as two words).
TYPES = {dt: s for dt, s in STORAGE_OF.items() if dt is not _d.complex64}
_WIDE = ("i64", "u64")
_HALF = ("f16", "bf16")

REDUCE_OPS, ARG_OPS, SCAN_OPS = _ops.REDUCTIONS, _ops.ARG_REDUCTIONS, _ops.SCANS

WORKGROUP = 256  # invocations of a reduction pass (shaders/reduce.wgsl)
# A reduction pass's plan by adapter class: (elements one invocation folds per chunk, solo).
# GPUs give a row up to 256 lanes of 64 elements and combine them by a tree in workgroup
# memory.  CPU adapters (SwiftShader, lavapipe) pay far more for a workgroup's barriers than for
# any loop (a 16M float32 sum in Chromium: 720 ms with 64 per lane, 124 ms with 1024; a 128 x
# 256 sum over the rows: 7.8 ms with a tree of 8 lanes, 0.7 ms without): there one invocation
# ("solo") folds a row of up to SOLO_ROW elements in one pass (one pass costs about a dispatch),
# a longer one in chunks of 1024, a chunk per invocation, and the next pass folds the chunks.
REDUCE_PLANS = {"software": (1024, True), "gpu": (64, False)}
SOLO_ROW = 16384
# A scan's chunking by adapter class: (shortest chunk one invocation walks, chunks per row at
# most; the carry pass walks them in order).  Each chunk's total is a reduction pass (with a
# workgroup tree, before CPU adapters took solo passes): a 1M float32 cumsum on lavapipe took
# 156 ms in chunks of 256, 25 ms in chunks of 8192 (3.4 ms for 64K, was 11.8).  GPUs want the
# parallelism of many short chunks.
SCAN_CHUNKING = {"software": (8192, 256), "gpu": (256, 4096)}

# (identity, lift(x, k), merge(a, b), out(a) -> vec2<u32>) per family; {bits} {truth} {key}
# {arg_key} {nan} {unkey} are the element type's expressions (_TYPE_EXPR).
_FAMILIES: dict[str, tuple[str, str, str, str]] = {
    "add": ("vec4<u32>(0u)", "vec4<u32>({bits}, 0u, 0u, 0u)",
            "vec4<u32>(a.x + b.x, 0u, 0u, 0u)", "vec2<u32>(a.x, 0u)"),
    "mul": ("vec4<u32>(1u, 0u, 0u, 0u)", "vec4<u32>({bits}, 0u, 0u, 0u)",
            "vec4<u32>(a.x * b.x, 0u, 0u, 0u)", "vec2<u32>(a.x, 0u)"),
    "or": ("vec4<u32>(0u)", "vec4<u32>(select(0u, 1u, {truth}), 0u, 0u, 0u)",
           "vec4<u32>(a.x | b.x, 0u, 0u, 0u)", "vec2<u32>(a.x, 0u)"),
    "and": ("vec4<u32>(1u, 0u, 0u, 0u)", "vec4<u32>(select(0u, 1u, {truth}), 0u, 0u, 0u)",
            "vec4<u32>(a.x & b.x, 0u, 0u, 0u)", "vec2<u32>(a.x, 0u)"),
    "max": ("vec4<u32>(0u)", "vec4<u32>(select({key}, 0xffffffffu, {nan}), 0u, 0u, 0u)",
            "vec4<u32>(max(a.x, b.x), 0u, 0u, 0u)", "vec2<u32>({unkey}, 0u)"),
    "min": ("vec4<u32>(0xffffffffu, 0u, 0u, 0u)", "vec4<u32>(select({key}, 0u, {nan}), 0u, 0u, 0u)",
            "vec4<u32>(min(a.x, b.x), 0u, 0u, 0u)", "vec2<u32>({unkey}, 0u)"),
    # argmin ranks by the complemented key, so both pick the largest key, earliest index
    "argmax": ("vec4<u32>(0u, 0xffffffffu, 0u, 0u)",
               "vec4<u32>(select({arg_key}, 0xffffffffu, {nan}), k, 0u, 0u)",
               "arg_merge(a, b)", "vec2<u32>(a.y, 0u)"),
    "argmin": ("vec4<u32>(0u, 0xffffffffu, 0u, 0u)",
               "vec4<u32>(select(~({arg_key}), 0xffffffffu, {nan}), k, 0u, 0u)",
               "arg_merge(a, b)", "vec2<u32>(a.y, 0u)"),
    # -0.0 is the identity of float addition (a sum of -0.0s stays -0.0, as on the CPU)
    "fsum": ("vec4<u32>(0x80000000u, 0u, 0u, 0u)", "vec4<u32>(bitcast<u32>(x), 0u, 0u, 0u)",
             "fsum_merge(a, b)", "vec2<u32>(fsum_out(a), 0u)"),
    "fprod": ("vec4<u32>(0x3f000000u, 0u, 1u, 0u)", "fprod_lift(x)", "fprod_merge(a, b)",
              "vec2<u32>(fprod_out(a), 0u)"),
    # wt.set_precision("fast"): plain float32 additions in the reduction's tree (pairwise
    # within a workgroup), within k * eps * sum |x| like any float32 sum, not the CPU's bits
    "fsum_fast": ("vec4<u32>(0x80000000u, 0u, 0u, 0u)", "vec4<u32>(bitcast<u32>(x), 0u, 0u, 0u)",
                  "vec4<u32>(bitcast<u32>(bitcast<f32>(a.x) + bitcast<f32>(b.x)), 0u, 0u, 0u)",
                  "vec2<u32>(a.x, 0u)"),
    # float16/bfloat16: the float32 accumulators (the values widen exactly), rounded once to
    # the 16-bit format at the end (reduce_half.wgsl)
    "hsum": ("vec4<u32>(0x80000000u, 0u, 0u, 0u)", "vec4<u32>(bitcast<u32>(x), 0u, 0u, 0u)",
             "fsum_merge(a, b)", "vec2<u32>(fsum_out16(a, {bf16}), 0u)"),
    "hprod": ("vec4<u32>(0x3f000000u, 0u, 1u, 0u)", "fprod_lift(x)", "fprod_merge(a, b)",
              "vec2<u32>(fprod_out16(a, {bf16}), 0u)"),
    # int64/uint64 (x = vec2<u32> (lo, hi)): wrapping two-word arithmetic (int64.wgsl); max/min
    # and the arg-reductions compare 64-bit keys (high, low) held in a.xy
    "add64": ("vec4<u32>(0u)", "vec4<u32>(x, 0u, 0u)", "vec4<u32>(add_u64(a.xy, b.xy), 0u, 0u)",
              "a.xy"),
    "mul64": ("vec4<u32>(1u, 0u, 0u, 0u)", "vec4<u32>(x, 0u, 0u)",
              "vec4<u32>(mul_u64(a.xy, b.xy), 0u, 0u)", "a.xy"),
    "max64": ("vec4<u32>(0u)", "vec4<u32>({key}, 0u, 0u)", "select(a, b, key64_gt(b.xy, a.xy))",
              "{unkey}"),
    "min64": ("vec4<u32>(0xffffffffu, 0xffffffffu, 0u, 0u)", "vec4<u32>({key}, 0u, 0u)",
              "select(a, b, key64_gt(a.xy, b.xy))", "{unkey}"),
    "argmax64": ("vec4<u32>(0u, 0u, 0xffffffffu, 0u)", "vec4<u32>({key}, k, 0u)",
                 "arg64_merge(a, b)", "vec2<u32>(a.z, 0u)"),
    "argmin64": ("vec4<u32>(0u, 0u, 0xffffffffu, 0u)", "vec4<u32>(~({key}), k, 0u)",
                 "arg64_merge(a, b)", "vec2<u32>(a.z, 0u)"),
    # complex64 (x = vec2<f32>): float32 complex products with a separate exponent
    # (shaders/complex64.wgsl)
    "cprod": ("vec4<u32>(0x3f800000u, 0u, 0u, 1u)", "cprod_lift(x)", "cprod_merge(a, b)",
              "cprod_out(a)"),
}

# Folding one element in directly where that is much less code than lift + merge (a smaller
# shader compiles faster on a CPU adapter).
_FOLDS = {"fsum": "fsum_add(a, x)", "hsum": "fsum_add(a, x)"}
# Folding a group of four consecutive elements (k is the first one's index in the row), and
# when that fold gives up (a condition on the chunk's accumulator, "" for never): the chunk is
# then folded again one element at a time (acc_fold).
_FOLD4_EACH = ("acc_fold(acc_fold(acc_fold(acc_fold(a, x0, k), x1, k + 1u), x2, k + 2u), "
               "x3, k + 3u)", "")
_FOLDS4 = dict.fromkeys(("fsum", "hsum"), ("fsum_fold4(a, x0, x1, x2, x3)",
                                           "!is_finite_f32(bitcast<f32>(acc.x))"))

_TYPE_EXPR: dict[str, dict[str, str]] = {
    "f32": {"bits": "bitcast<u32>(x)", "truth": "nonzero_f32(x)", "key": "f32_order_key(x)",
            "arg_key": "f32_arg_key(x)", "nan": "is_nan_f32(x)",
            "unkey": "f32_from_order_key(a.x)"},
    "i32": {"bits": "bitcast<u32>(x)", "truth": "x != 0", "key": "(bitcast<u32>(x) ^ 0x80000000u)",
            "arg_key": "(bitcast<u32>(x) ^ 0x80000000u)", "nan": "false",
            "unkey": "a.x ^ 0x80000000u"},
    "u32": {"bits": "x", "truth": "x != 0u", "key": "x", "arg_key": "x", "nan": "false",
            "unkey": "a.x"},
    "bool": {"bits": "select(0u, 1u, x)", "truth": "x", "key": "select(0u, 1u, x)",
             "arg_key": "select(0u, 1u, x)", "nan": "false", "unkey": "a.x"},
    # int64/uint64 keys: (high word, low word), int64's sign bit flipped
    "i64": {"truth": "nz_u64(x)", "key": "vec2<u32>(x.y ^ 0x80000000u, x.x)",
            "unkey": "vec2<u32>(a.y, a.x ^ 0x80000000u)"},
    "u64": {"truth": "nz_u64(x)", "key": "vec2<u32>(x.y, x.x)", "unkey": "vec2<u32>(a.y, a.x)"},
}
# 8/16-bit ints compute as i32/u32 (sign- or zero-extended): the 32-bit expressions hold, and
# their results' low bits are the narrow results (stores keep the low bits).
_TYPE_EXPR["c64"] = {"truth": "nonzero_c64(x)"}
_TYPE_EXPR.update(dict.fromkeys(("i8", "i16"), _TYPE_EXPR["i32"]))
_TYPE_EXPR.update(dict.fromkeys(("u8", "u16"), _TYPE_EXPR["u32"]))
# float16/bfloat16 compute as their exact float32 values; max/min results go back to 16 bits
# (exact: they are input values or the canonical NaN)
for _t, _bf16 in (("f16", "false"), ("bf16", "true")):
    _TYPE_EXPR[_t] = {**_TYPE_EXPR["f32"], "bf16": _bf16,
                      "unkey": f"f32_to_{_t}_bits(bitcast<f32>(f32_from_order_key(a.x)))"}


def family(op: str, t: str) -> str:
    """The accumulator family computing ``op`` on element type ``t`` (as the CPU device does:
    bool sum/max are any, bool prod/min are all)."""
    wide = "64" if t in _WIDE else ""
    if op in ARG_OPS:
        return op + wide
    if op == "any" or (t == "bool" and op in ("sum", "max")):
        return "or"
    if op == "all" or (t == "bool" and op in ("prod", "min")):
        return "and"
    if op in ("max", "min"):
        return op + wide
    if t == "c64":
        return "c" + op
    if t == "f32":
        return "fsum_fast" if op == "sum" and _precision.fast() else "f" + op
    if t in _HALF:
        return "h" + op
    return {"sum": "add", "prod": "mul"}[op] + wide


def value_words(t: str) -> int:
    """Words per result element of a sum/prod/max/min (scan results too) of element type t."""
    return 2 if t in _WIDE or t == "c64" else 1


@lru_cache(maxsize=64)
def _ops(fam: str, t: str) -> str:
    identity, lift, merge, out = (s.format(**_TYPE_EXPR[t]) for s in _FAMILIES[fam])
    fold = _FOLDS.get(fam, "acc_merge(a, acc_lift(x, k))")
    wt = STORAGE[t].wgsl_type
    return "\n".join([
        f"fn acc_identity() -> vec4<u32> {{\n    return {identity};\n}}",
        f"fn acc_lift(x: {wt}, k: u32) -> vec4<u32> {{\n    return {lift};\n}}",
        f"fn acc_merge(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {{\n    return {merge};\n}}",
        f"fn acc_fold(a: vec4<u32>, x: {wt}, k: u32) -> vec4<u32> {{\n    return {fold};\n}}",
        f"fn acc_fold4(a: vec4<u32>, x0: {wt}, x1: {wt}, x2: {wt}, x3: {wt}, k: u32) -> vec4<u32> "
        f"{{\n    return {_FOLDS4.get(fam, _FOLD4_EACH)[0]};\n}}",
        f"fn acc_out(a: vec4<u32>) -> vec2<u32> {{\n    return {out};\n}}",
    ])


def _fields(fam: str, t: str, vec4: bool = False) -> dict[str, str]:
    s = STORAGE[t]
    lib = source("reduce_lib")
    if fam.startswith("h"):
        lib += "\n" + source("reduce_half")
    if vec4:  # in0 is array<vec4<u32>>: element i is lane i & 3 of vec4 i >> 2
        load = s.load.format(buf="in0[i >> 2u]", idx="i & 3u")
        state = "fn load_state(s: u32) -> vec4<u32> {\n    return in0[s];\n}"
    else:
        load = s.load.format(buf="in0", idx="i")
        state = ("fn load_state(s: u32) -> vec4<u32> {\n    return vec4<u32>(in0[4u * s], "
                 "in0[4u * s + 1u], in0[4u * s + 2u], in0[4u * s + 3u]);\n}")
    return {"lib": lib, "ops": _ops(fam, t), "elem": s.wgsl_type, "load": load,
            "load_state": state}


# Where a row's elements are (params: [7] nk, [8] nr, then kept shape, kept strides, reduced
# shape, reduced strides).  With one dim (or none) there is nothing to divide: most reductions
# (a whole contiguous tensor, one axis) take these branch-free forms.
_KEPT_OFFSET = {
    0: "fn kept_offset(row: u32) -> i32 {\n    return 0;\n}",
    1: "fn kept_offset(row: u32) -> i32 {\n    return i32(row) * prm_i(10u);\n}",
    2: """\
// Buffer offset of output row `row` (C order over the kept dims), relative to the view offset.
fn kept_offset(row: u32) -> i32 {
    let nk = prm(7u);
    var rem = row;
    var off = 0;
    for (var d = nk; d > 0u; d = d - 1u) {
        let n = prm(8u + d);
        off += i32(rem % n) * prm_i(8u + nk + d);
        rem = rem / n;
    }
    return off;
}""",
}
_REDUCED_OFFSET = {
    1: """\
fn reduced_offset(k: u32) -> i32 {
    return i32(k) * prm_i(10u + 2u * prm(7u));
}""",
    2: """\
// Buffer offset of element k of a row (C order over the reduced dims).
fn reduced_offset(k: u32) -> i32 {
    let nk = prm(7u);
    let nr = prm(8u);
    let base = 8u + 2u * nk;
    var rem = k;
    var off = 0;
    for (var d = nr; d > 0u; d = d - 1u) {
        let n = prm(base + d);
        off += i32(rem % n) * prm_i(base + nr + d);
        rem = rem / n;
    }
    return off;
}""",
}


# A lane folds groups of four consecutive elements, `lanes` groups apart; the row's last group
# may be partial.  With vec4 loads (a unit-stride row starting on a whole vec4) a group is one
# load; otherwise four (or a computed prologue's four elements), in the same order.
def _group_fold(vec4: bool, elem: str) -> str:
    if vec4:
        load = ["let v = in0[(u32(base) + k) >> 2u];"]
        xs = [f"bitcast<{elem}>(v.{c})" for c in "xyzw"]
    else:
        load = []
        xs = [f"load_element(u32(base + reduced_offset({k})))"
              for k in ("k", "k + 1u", "k + 2u", "k + 3u")]
    return "\n".join(" " * 12 + line
                     for line in [*load, f"acc = acc_fold4(acc, {', '.join(xs)}, k);"])


_FOLD_LOOPS = """\
        for (; k + 4u <= stop; k = k + 4u * lanes) {
${group}
        }
        for (var q = k; q < min(stop, k + 4u); q = q + 1u) {
            acc = acc_fold(acc, load_element(u32(base + reduced_offset(q))), q);
        }"""


# The careful redo (see _FOLDS4) walks the same elements in the same order in one loop, element by
# element (group starts are multiples of four): less code for the shader compiler than a copy of
# the loops above.
_REFOLD = """\
        if (${redo}) {
            acc = acc_identity();
            for (var q = first; q < stop; q = q + select(1u, 4u * lanes - 3u, (q & 3u) == 3u)) {
                acc = acc_fold(acc, load_element(u32(base + reduced_offset(q))), q);
            }
        }"""


def _fold_elements(fam: str, vec4: bool, elem: str) -> str:
    lines = ["        let base = prm_i(6u) + kept_offset(row);",
             "        let first = g * chunk + 4u * lane;",
             "        var k = first;",
             _FOLD_LOOPS.replace("${group}", _group_fold(vec4, elem))]
    redo = _FOLDS4.get(fam, _FOLD4_EACH)[1]
    if redo:
        lines.append(_REFOLD.replace("${redo}", redo))
    return "\n".join(lines)


_FOLD_STATES = """\
        for (var k = g * chunk + lane; k < stop; k = k + lanes) {
            acc = acc_merge(acc, load_state(row * len + k));
        }"""
_WRITE_STATE = """\
        let s = 4u * (row * chunks + g);
        out0[s] = result.x;
        out0[s + 1u] = result.y;
        out0[s + 2u] = result.z;
        out0[s + 3u] = result.w;"""
_WRITE_OUT = {
    1: "        out0[row] = acc_out(result).x;",
    2: "        let v = acc_out(result);\n        out0[2u * row] = v.x;\n"
       "        out0[2u * row + 1u] = v.y;",
}


# Where an invocation works and how a row's lanes combine (shaders/reduce.wgsl), by kind of
# pass: "tree": ``lanes`` invocations per row, combined by a tree in workgroup memory; "subgroup":
# the same tree, its levels within a subgroup by shuffles; "solo": one invocation per (row,
# chunk), a row's chunks on neighbouring invocations, and no tree.
#   The tree merges neighbours first (lane l takes l + s for s = 1, 2, 4, ...), so its lower
# levels stay within a subgroup.  WGSL leaves open which invocations form a subgroup, so
# subgroup passes number their invocations (`slot`, which places the work) by subgroup_id and
# subgroup_invocation_id: lanes l and l + s, s below the subgroup's size, are then in one
# subgroup, s apart.  Where the subgroups do not exactly fill the workgroup, slot is the
# local index and every level goes through workgroup memory.
_PLACE = {
    "tree": """\
    let slot = lid;
    let g = w % chunks;
    let row = (w / chunks) * (256u / lanes) + slot / lanes;
    let lane = slot % lanes;""",
    "subgroup": """\
    let whole = sg_count * sg_size == 256u;
    let slot = select(lid, sg_id * sg_size + sg_lane, whole);
    let g = w % chunks;
    let row = (w / chunks) * (256u / lanes) + slot / lanes;
    let lane = slot % lanes;""",
    "solo": """\
    let p = w * 256u + lid;
    let g = p % chunks;
    let row = p / chunks;
    let lane = 0u;""",
}
_TREE_LEVELS = """\
    partial[slot] = acc;
    workgroupBarrier();
    for (var s = ${low}; s < lanes; s = s * 2u) {
        if ((lane & (2u * s - 1u)) == 0u) {
            partial[slot] = acc_merge(partial[slot], partial[slot + s]);
        }
        workgroupBarrier();
    }
    acc = partial[slot];"""
_COMBINE = {
    "tree": _TREE_LEVELS.replace("${low}", "1u"),
    # (shuffles from past the row or the subgroup fill lanes whose results no level reads)
    "subgroup": """\
    let in_subgroup = select(1u, min(sg_size, lanes), whole);
    for (var s = 1u; s < in_subgroup; s = s * 2u) {
        acc = acc_merge(acc, subgroupShuffleDown(acc, s));
    }
    if (in_subgroup < lanes) {
""" + kernels.indent(_TREE_LEVELS.replace("${low}", "in_subgroup").splitlines()) + "\n    }",
    "solo": "",
}
_SHARED = dict.fromkeys(("tree", "subgroup"), "var<workgroup> partial: array<vec4<u32>, 256>;")
_SHARED["solo"] = ""
_BUILTINS = dict.fromkeys(("tree", "solo"), "")
_BUILTINS["subgroup"] = (",\n        @builtin(subgroup_invocation_id) sg_lane: u32, "
                         "@builtin(subgroup_size) sg_size: u32,\n        "
                         "@builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32")


_SCAN_STORE = {
    1: "        out0[o] = acc_out(acc).x;",
    2: "        let v = acc_out(acc);\n        out0[2u * o] = v.x;\n        out0[2u * o + 1u] = v.y;",
}


@lru_cache(maxsize=512)
def pass_kernel(fam: str, t: str, from_elements: bool, out_words: int, slots: int,
                dims: tuple = (2, 2), fused: tuple = ("", 1, 1, ""), combine: str = "tree") -> Kernel:
    """One reduction pass; ``out_words`` 0 writes partial accumulators, else result words.
    ``combine``: how a row's lanes combine, "tree", "subgroup" (the tree's lower levels by
    subgroup shuffles) or "solo" (one invocation per (row, chunk), one lane; ``plan``).
    ``dims``: (kept, reduced) dim counts capped at 2, choosing the offset functions; reduced
    ``"vec4"``: one unit-stride dim whose groups of four load as one vec4 (``_vec4_rows``).
    ``fused``: (WGSL functions, inputs, outputs, epilogue call) of a compiled program's fused
    pass: ``prologue_element(i)`` computes element ``i`` of the (virtual, dense) input from
    several buffers instead of loading it, ``epilogue(row, value)`` stores what the program
    computes from each result."""
    functions, n_in, n_out, epilogue = fused
    vec4 = dims[1] == "vec4"  # unit-stride rows on whole vec4s of 32-bit elements
    write = _WRITE_OUT[out_words] if out_words else _WRITE_STATE
    if epilogue:
        write += "\n        " + epilogue
    nk, nr = dims[0], 1 if vec4 else dims[1]
    reduced = _REDUCED_OFFSET[max(1, min(nr, 2))]
    if nk < 2 and nr <= 1:  # the stride's slot is known: a constant uniform index (a dynamic
        # one costs SwiftShader about a third of a reduction's time)
        reduced = reduced.replace("10u + 2u * prm(7u)", f"{10 + 2 * nk}u")
    offsets = _KEPT_OFFSET[min(nk, 2)] + "\n\n" + reduced
    fields = _fields(fam, t, vec4)
    if functions:
        offsets += "\n\n" + functions
        if from_elements and "prologue_element" in functions:
            fields["load"] = "prologue_element(i)"
    fold = _fold_elements(fam, vec4, fields["elem"]) if from_elements else _FOLD_STATES
    return kernels.render("reduce", n_in, n_out, slots, in0="vec4<u32>" if vec4 else None,
                          fold=fold, write=write, offsets=offsets, place=_PLACE[combine],
                          combine=_COMBINE[combine], shared=_SHARED[combine],
                          builtins=_BUILTINS[combine], **fields)


@lru_cache(maxsize=256)
def scan_kernel(fam: str, t: str, carried: bool, slots: int) -> Kernel:
    start = ("vec4<u32>(in1[4u * t], in1[4u * t + 1u], in1[4u * t + 2u], in1[4u * t + 3u])"
             if carried else "acc_identity()")
    store = _SCAN_STORE[value_words(t)]
    return kernels.render("scan", 2 if carried else 1, 1, slots, start=start, store=store,
                           **_fields(fam, t))


@lru_cache(maxsize=64)
def carry_kernel(fam: str, t: str) -> Kernel:
    return kernels.render("scan_carry", 1, 1, 3, **_fields(fam, t))


# -- planning and dispatch --------------------------------------------------------------------------

def plan(length: int, per_lane: int = REDUCE_PLANS["gpu"][0],
         solo: bool = False) -> tuple[int, int, int]:
    """(lanes, chunks, chunk length) of one pass over rows of ``length``: a power-of-two number
    of lanes giving each about 16+ elements, and chunks of at most ``lanes * per_lane`` (rounded
    up to whole groups of four); ``solo``: one lane, and rows of up to SOLO_ROW in one chunk."""
    lanes = 1 if solo or length <= 16 else min(WORKGROUP,
                                                1 << (-(-length // 16) - 1).bit_length())
    chunks = 1 if solo and length <= SOLO_ROW else -(-length // (lanes * per_lane))
    chunk = (-(-length // chunks) + 3) & ~3  # whole groups of four (see _FOLD_LOOPS)
    return lanes, -(-length // chunk), chunk


def _params(words: list[int]) -> Params:
    params = Params(0, 0)
    params.words = words
    return params


def _pass(backend, fam, t, src, dst, rows, length, lanes, chunks, chunk, view_words,
          out_words, prologue=None, epilogue=None) -> None:
    """One pass over ``src`` (a buffer, or a prologue's buffers) into ``dst``."""
    words = [0, rows, length, chunks, lanes, chunk, *view_words]
    dims = (view_words[1], view_words[2]) if view_words else (0, 1)
    ins, outs, functions, call = [src], [dst], [], ""
    if prologue is not None:
        ins = list(prologue.buffers)
        functions.append(prologue.wgsl(len(words), 0, 1))
        outs += prologue.outputs
        words += prologue.words
    if epilogue is not None:
        functions.append(epilogue.wgsl(len(words), len(ins), len(outs)))
        call = "epilogue(row, result_value(acc_out(result)));"
        ins += epilogue.buffers
        outs += epilogue.outputs
        words += epilogue.words
    vec4 = prologue is None and chunk % 4 == 0 and _vec4_rows(t, view_words)
    # (one lane: solo, with one chunk per row the same places as the tree's)
    combine = "solo" if lanes == 1 else "subgroup" if backend.subgroups else "tree"
    shape = (fam, t, bool(view_words), out_words, len(words),
             (min(dims[0], 2), "vec4" if vec4 else min(dims[1], 2)),
             ("\n\n".join(functions), len(ins), len(outs), call))
    kernel = pass_kernel(*shape, combine)
    if combine == "subgroup" and not backend.compiles(kernel):
        # a compiler that offers subgroups but refuses these built-ins (subgroup_id):
        # workgroup-memory trees from now on, the same bits
        backend.subgroups = False
        kernel = pass_kernel(*shape, "tree")
    # workgroups of this template's 256 invocations
    groups = (-(-rows * chunks // WORKGROUP) if lanes == 1
              else -(-rows // (WORKGROUP // lanes)) * chunks)
    backend.launch(kernel, ins + outs, _params(words), groups)


def _vec4_rows(t: str, view) -> bool:
    """Whether rows of the element view ``view`` (params [6...]) load as vec4s: 32-bit
    elements, unit stride along the (collapsed) row, every row starting on a whole vec4."""
    if t not in ("f32", "i32", "u32") or not view:
        return False
    offset, nk, nr = view[:3]
    if nr != 1 or view[3 + 2 * nk + nr] != 1:
        return False
    return offset % 4 == 0 and all(s % 4 == 0 for s in view[3 + nk:3 + 2 * nk])


def _reduce_rows(backend, fam, t, x, kept, reduced, dst, out_words, prologue=None,
                 epilogue=None) -> None:
    """Reduce the rows of view ``x`` into ``dst`` (``out_words`` words per row).  ``kept`` and
    ``reduced`` are (shape, strides) of the row and in-row dims (collapsed).  A ``prologue``
    (the first pass) computes ``x``'s elements instead of loading them (``x`` gives only the
    geometry), an ``epilogue`` (the last pass) stores more outputs from each result."""
    rows, length = _s.size_of(kept[0]), _s.size_of(reduced[0])
    view = [x.offset, len(kept[0]), len(reduced[0]), *kept[0], *kept[1], *reduced[0],
            *reduced[1]]
    src = None if prologue is not None else x._data
    per_lane, solo = REDUCE_PLANS["software" if backend.software else "gpu"]
    lanes, chunks, chunk = plan(length, per_lane, solo)
    while True:
        final = chunks == 1
        out = dst if final else backend.allocate(rows * chunks * 16)
        _pass(backend, fam, t, src, out, rows, length, lanes, chunks, chunk, view,
              out_words if final else 0, prologue, epilogue if final else None)
        if final:
            return
        src, length, view, prologue = out, chunks, [], None
        lanes, chunks, chunk = plan(length, per_lane, solo)


def _dims(x, dims) -> tuple[tuple, tuple]:
    shape, (strides,) = kernels.collapse([x.shape[d] for d in dims],
                                         [[x.strides[d] for d in dims]])
    return shape, strides


def _normalize_axes(op: str, x, axes) -> tuple[int, ...]:
    """The axes in [0, ndim), in the order given (the reduced dims are walked in that order);
    the primitive's own check (the API normalises axes, with names, in api/_common.py)."""
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, int) or not -x.ndim <= a < x.ndim:
            raise ValueError(f"{op}: axis {a!r} is out of range for a {x.ndim}-d input of shape "
                             f"{x.shape}; pass axes in [-{x.ndim}, {x.ndim})")
        a %= x.ndim
        if a in out:
            raise ValueError(f"{op}: axis {a} is repeated in {tuple(axes)}; pass each axis once")
        out.append(a)
    return tuple(out)


_UINT_OF_SIZE = {1: _d.uint8, 2: _d.uint16}


def _u32_sink(backend, out):
    """Where results go: ``out`` itself, or a uint32 twin cast into it afterwards (bool, 8- and
    16-bit results share words, which separate invocations cannot write safely).  The twin
    holds each result's bit pattern in its low bits (0/1 for bool), so a cast to the unsigned
    int of ``out``'s width, written over ``out``'s buffer, stores exactly those bits."""
    if out.dtype.itemsize >= 4:
        return out, None
    tmp = Tensor._wrap(backend.alloc(_d.uint32, out.size), out.shape, _d.uint32, out.device)
    if out.dtype is _d.bool:
        return tmp, lambda: backend.cast(out, tmp)
    bits = Tensor._wrap(out._data, out.shape, _UINT_OF_SIZE[out.dtype.itemsize], out.device)
    return tmp, lambda: backend.cast(bits, tmp)


# -- the primitives (each returns False when the op/dtypes are not native here) ----------------------

# complex64: sums (and cumulative sums) add the real and imaginary parts independently, as the
# CPU's complex128 sum does, so they run as float32 sums over a (re, im) view (_components);
# products (and cumulative products) use the cprod family, any/all the bool ones.
COMPLEX_OPS = {"reduce": ("sum", "prod", "any", "all"), "scan": ("sum", "prod")}
_COMPLEX_APPLICABLE = {"reduce": ("sum", "prod", "any", "all"), "scan": ("sum", "prod")}


def capability(prim: str, dt) -> str:
    """The capabilities() entry of ``prim`` (reduce, arg_reduce, scan) for dtype ``dt``."""
    if dt in TYPES:
        return "native"
    if dt is _d.complex64 and prim in COMPLEX_OPS:
        if len(COMPLEX_OPS[prim]) == len(_COMPLEX_APPLICABLE[prim]):
            return "native"
        return f"partial ({len(COMPLEX_OPS[prim])}/{len(_COMPLEX_APPLICABLE[prim])} ops)"
    return "cpu"


def _components(t) -> Tensor:
    """The complex64 view ``t`` as float32 with one more trailing dim: (re, im)."""
    return Tensor._wrap(t._data, (*t.shape, 2), _d.float32, t.device,
                        strides=(*(2 * s for s in t.strides), 1), offset=2 * t.offset)


def _element_type(prim: str, op: str, dt) -> str | None:
    """The kernels' element type for ``op`` on ``dt`` (None: not native)."""
    if dt is _d.complex64:
        return "c64" if op in COMPLEX_OPS[prim] else None
    return TYPES.get(dt)


def _complex_sum(backend, out, x) -> bool:
    return (x.dtype is _d.complex64 and out.dtype is _d.complex64
            and backend.native_ok(out, x))


def reduce(backend, op, out, x, axes) -> bool:
    if op not in REDUCE_OPS:
        raise ValueError(f"reduce: unknown op {op!r}; expected one of {', '.join(REDUCE_OPS)}")
    if op == "sum" and _complex_sum(backend, out, x):
        axes = _normalize_axes("reduce", x, axes)
        return reduce(backend, "sum", _components(out), _components(x), axes)
    t = _element_type("reduce", op, x.dtype)
    if t is None:
        return False
    fam = family(op, t)
    if out.dtype is not (_d.bool if fam in ("or", "and") else x.dtype):
        return False
    if not backend.native_ok(out, x):
        return False
    axes = _normalize_axes("reduce", x, axes)
    if any(x.shape[a] == 0 for a in axes) and out.size:
        raise ValueError(f"reduce: {op} over an empty axis; the frontend fills identities")
    if out.size == 0:
        return True
    x = backend.unaliased(out, [x])[0]
    sink, finish = _u32_sink(backend, out)
    kept = [d for d in range(x.ndim) if d not in axes]
    words = 1 if fam in ("or", "and") else value_words(t)
    _reduce_rows(backend, fam, t, x, _dims(x, kept), _dims(x, axes), sink._data, words)
    if finish:
        finish()
    return True


def fused_reduce(backend, op, out, x, axes, prologue=None, epilogue=None) -> bool:
    """``reduce`` for a compiled program: the input ``x`` computed by ``prologue`` (``x`` is
    then a view of a dense value that is never stored, giving the geometry), results passed on
    to ``epilogue``.  False when this reduction has no such kernel (the caller runs the parts
    one by one).  Epilogues need one-word results (float32, int32, uint32)."""
    if op not in REDUCE_OPS or x.dtype is _d.complex64:
        return False
    t = TYPES.get(x.dtype)
    if t is None:
        return False
    fam = family(op, t)
    if out.dtype is not (_d.bool if fam in ("or", "and") else x.dtype):
        return False
    words = 1 if fam in ("or", "and") else value_words(t)
    if epilogue is not None and (STORAGE_OF.get(out.dtype) not in _RESULT_VALUE or words != 1):
        return False
    if not backend.native_ok(out) or out.size == 0 or any(x.shape[a] == 0 for a in axes):
        return False
    sink, finish = (out, None) if epilogue is not None else _u32_sink(backend, out)
    kept = [d for d in range(x.ndim) if d not in axes]
    _reduce_rows(backend, fam, t, x, _dims(x, kept), _dims(x, axes), sink._data, words,
                 prologue, epilogue)
    if finish:
        finish()
    return True


# A result's value from acc_out's words, for an epilogue (its register type).
_RESULT_VALUE = {"f32": "bitcast<f32>(w.x)", "i32": "bitcast<i32>(w.x)", "u32": "w.x"}


def result_value_fn(storage: str) -> str:
    return (f"fn result_value(w: vec2<u32>) -> {STORAGE[storage].wgsl_type} {{\n"
            f"    return {_RESULT_VALUE[storage]};\n}}")


def arg_reduce(backend, op, out, x, axis) -> bool:
    if op not in ARG_OPS:
        raise ValueError(f"arg_reduce: unknown op {op!r}; expected argmax or argmin")
    t = TYPES.get(x.dtype)
    if t is None or out.dtype is not _d.int64 or not backend.native_ok(out, x):
        return False
    (axis,) = _normalize_axes(op, x, (axis,))
    if x.shape[axis] == 0:
        raise ValueError(f"{op}: attempt to get {op} of an empty axis {axis}")
    if out.size == 0:
        return True
    x = backend.unaliased(out, [x])[0]
    kept = [d for d in range(x.ndim) if d != axis]
    _reduce_rows(backend, family(op, t), t, x, _dims(x, kept), _dims(x, [axis]), out._data, 2)
    return True


def scan(backend, op, out, x, axis) -> bool:
    if op not in SCAN_OPS:
        raise ValueError(f"scan: unknown op {op!r}; expected one of {', '.join(SCAN_OPS)}")
    if op == "sum" and _complex_sum(backend, out, x):
        (axis,) = _normalize_axes("scan", x, (axis,))
        return scan(backend, "sum", _components(out), _components(x), axis)
    t = _element_type("scan", op, x.dtype)
    if t is None or out.dtype is not x.dtype or not backend.native_ok(out, x):
        return False
    if out.size == 0:
        return True
    (axis,) = _normalize_axes("scan", x, (axis,))
    x = backend.unaliased(out, [x])[0]
    fam = family(op, t)
    sink, finish = _u32_sink(backend, out)
    length = x.shape[axis]
    kept = [d for d in range(x.ndim) if d != axis]
    out_strides = _s.contiguous_strides(x.shape)
    kshape, (kx, ko) = kernels.collapse([x.shape[d] for d in kept],
                                        [[x.strides[d] for d in kept],
                                         [out_strides[d] for d in kept]])
    rows = _s.size_of(kshape)
    shortest, most = SCAN_CHUNKING["software" if backend.software else "gpu"]
    chunk = max(shortest, -(-length // most))
    chunks = -(-length // chunk)
    buffers = [x._data]
    if chunks > 1:
        lanes = plan(chunk, *REDUCE_PLANS["software" if backend.software else "gpu"])[0]
        totals = backend.allocate(rows * chunks * 16)
        carries = backend.allocate(rows * chunks * 16)
        kept_x = _dims(x, kept)
        view = [x.offset, len(kept_x[0]), 1, *kept_x[0], *kept_x[1], length, x.strides[axis]]
        _pass(backend, fam, t, x._data, totals, rows, length, lanes, chunks, chunk, view, 0)
        backend.launch(carry_kernel(fam, t), [totals, carries], _params([0, rows, chunks]),
                       kernels.groups_for(rows))
        buffers.append(carries)
    words = [0, rows, length, chunks, chunk, x.offset, x.strides[axis], out_strides[axis],
             len(kshape), *kshape, *kx, *ko]
    kernel = scan_kernel(fam, t, chunks > 1, len(words))
    backend.launch(kernel, [*buffers, sink._data], _params(words), kernels.groups_for(rows * chunks))
    if finish:
        finish()
    return True


# -- the family's interface (backend.FAMILIES) ----------------------------------------------------

PRIMITIVES = ("reduce", "arg_reduce", "scan")
_OPS = {"reduce": REDUCE_OPS, "arg_reduce": ARG_OPS, "scan": SCAN_OPS}


def supports(prim: str, op: str, dt) -> bool:
    """A kernel exists for ``prim`` ``op`` on dtype ``dt`` (layout and size are ``run``'s)."""
    if prim == "arg_reduce":
        return dt in TYPES
    return _element_type(prim, op, dt) is not None


def run(backend, prim: str, *args) -> bool:
    return {"reduce": reduce, "arg_reduce": arg_reduce, "scan": scan}[prim](backend, *args)


__all__ = ["PRIMITIVES", "supports", "capability", "run", "family", "plan", "fused_reduce",
           "result_value_fn"]
