"""Native batched matmul for the WebGPU backend (``WebGPUBackend.matmul`` calls ``matmul``).

One dispatch per call: 64x64 output tiles per workgroup, 4x4 per invocation (larger for the
direct kernel on CPU adapters, by size: ``DIRECT_TILES``).  Operands laid out
for vec4 loads (B with unit column stride, A with unit k or row stride, N and K multiples of 4)
go through ``shaders/matmul_direct.wgsl``, which reads them straight from the buffers (2-3x
faster than the tiled kernel on CPU adapters, whose caches do what workgroup tiles would: 1024^2
in SwiftShader 3.5-5.3 s -> 1.5-1.9 s, measured side by side); the others through
``shaders/matmul.wgsl``, A and B staged through workgroup memory 16 k-steps at a time.  Both
accumulate in the same order, so they give the same bits.  Inputs are read
through their strides (transposed views, broadcast batch dims and negative strides need no
copy); each operand's tile loader is chosen from its layout: vec4 loads along the tile's rows or
columns (mode ``"r"``) or along k (``"k"``) when the view is aligned to whole vec4s, else scalar
loads (``"s"``, ``"sk"``: which index varies fastest between neighbouring invocations).

Float32 accumulates with ``fma`` in k order, so each element is within
``gamma_K * sum_k |a_ik b_kj|`` of the exact dot product; the CPU device rounds an exact-product
float64 sum once, so the two agree to about ``(K + 2) * 2**-24 * sum |a||b|`` (see the tests),
not bit for bit.  int32/uint32 wrap modulo 2**32 exactly like the CPU (u32 arithmetic serves
both: two's complement products and sums have the same bits).

float16/bfloat16 and 8/16-bit integers are cast up to float32 / int32 / uint32, multiplied by
those kernels and cast down (``WIDENED``): the narrow floats and their products are exact in
float32, so the result is the float32 accumulation rounded once to the dtype (the CPU rounds an
exact float64 sum once, bfloat16 through float32, so they agree within the f32 error plus one
rounding); the low bits of wrapping integer products and sums depend only on the operands' low
bits, so the cast down is the CPU's wrapped result, signed or not.

The other dtypes go through ``shaders/matmul_any.wgsl`` (same tiling and parameters, scalar
tiles and element loads through the dtype's ``Storage``; see ``_ANY``): bool ORs the ANDs;
int64/uint64 multiply-add in two words (exact, wrapping); complex64 accumulates each part with
two ``fma`` per step.  Packed results (bool) are stored with atomic or on their word, since
neighbouring elements of one word may belong to other invocations or workgroups.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from string import Template
from typing import NamedTuple

from ... import dtypes as _d
from ...tensor import empty
from . import kernels
from .kernels import Kernel, Params

# dtype -> (WGSL accumulation type, multiply-accumulate of scalar a, vec4 b into vec4 acc)
_TYPES = {
    _d.float32: ("f32", "fma(vec4<f32>(a), b, acc)"),
    _d.int32: ("u32", "acc + a * b"),
    _d.uint32: ("u32", "acc + a * b"),
}
TILE = 64  # output rows/columns per workgroup (shaders/matmul.wgsl)
_CONV = {"f32": ("bitcast<f32>({})", "bitcast<vec4<f32>>({})", "bitcast<u32>({})"),
         "u32": ("{}", "{}", "{}")}


@dataclass(frozen=True)
class _AnySpec:
    """One dtype of ``shaders/matmul_any.wgsl``: accumulator type, load of element ``{idx}``
    of ``{buf}`` as that type, multiply-add of ``a``, ``b`` into ``acc``, the result word(s)
    of accumulator ``v``, and the storage it is written in."""

    t: str
    load: str
    mac: str
    bits: str
    storage: str

    @property
    def tk(self) -> int:
        # k-steps per tile: two 16 x 64 tiles of two-word elements would fill the whole 16 KiB
        # of workgroup storage the spec guarantees, so those take half.
        return 8 if self.t.startswith("vec2") else 16


_S = kernels.STORAGE
_ANY = {
    _d.bool: _AnySpec("u32", f"select(0u, 1u, {_S['bool'].load})", "acc | (a & b)", "v", "bool"),
    **{dt: _AnySpec("vec2<u32>", _S["u64"].load, "add_u64(acc, mul_u64(a, b))", "v", "u64")
       for dt in (_d.int64, _d.uint64)},
    _d.complex64: _AnySpec(
        "vec2<f32>", _S["c64"].load,
        "vec2<f32>(fma(a.x, b.x, fma(-a.y, b.y, acc.x)), fma(a.x, b.y, fma(a.y, b.x, acc.y)))",
        "bitcast<vec2<u32>>(v)", "c64"),
}
# Narrow dtypes whose products take the kernels of a wider one, cast up and the result cast
# down.  float16 and bfloat16 values and their products are exact in float32, so float32's
# kernels (fma in k order) accumulate the exact products and the cast rounds once to the dtype;
# the low bits of wrapping 32-bit integer sums are the 8/16-bit ones.  256^2 float16 on lavapipe:
# 91 ms through matmul_any.wgsl's workgroup tiles and packed atomic stores, 16 ms this way.
WIDENED = {_d.float16: _d.float32, _d.bfloat16: _d.float32, _d.int8: _d.int32,
           _d.int16: _d.int32, _d.uint8: _d.uint32, _d.uint16: _d.uint32}
DTYPES = frozenset(_TYPES) | frozenset(_ANY) | frozenset(WIDENED)


def header(inputs, outputs, slots: int) -> tuple[str, int]:
    """Binding declarations for ``inputs``/``outputs`` (WGSL array element types) plus the
    parameter helpers; returns (text, uniform bytes)."""
    vec4s = kernels.uniform_vec4s(slots)
    lines = [f"@group(0) @binding(0) var<uniform> P: array<vec4<u32>, {vec4s}>;"]
    for i, elem in enumerate(inputs):
        lines.append(f"@group(0) @binding({i + 1}) var<storage, read> in{i}: array<{elem}>;")
    for i, elem in enumerate(outputs):
        lines.append(f"@group(0) @binding({len(inputs) + i + 1}) var<storage, read_write> "
                     f"out{i}: array<{elem}>;")
    return "\n".join(lines) + "\n\n" + kernels.source("params"), vec4s * 16


def _loader(operand: str, mode: str, t: str) -> str:
    """WGSL that stages one 16 x 64 slice of ``operand`` ("a" or "b") into its tile."""
    scalar, vector, _ = _CONV[t]
    buf, tile = ("in0", "tile_a") if operand == "a" else ("in1", "tile_b")
    base = f"{operand}_base"
    extent, origin = ("M", "row0") if operand == "a" else ("N", "col0")
    s_r, s_k = ("a_sm", "a_sk") if operand == "a" else ("b_sn", "b_sk")
    if mode == "r":
        body = [
            "let kk = li / 16u;",
            "let rq = li % 16u;",
            f"let r = {origin} + rq * 4u;",
            "let kc = k0 + kk;",
            f"var v = vec4<{t}>();",
            f"if (r < {extent} && kc < K) {{",
            f"    v = {vector.format(f'{buf}[u32({base} + i32(r) + i32(kc) * {s_k}) >> 2u]')};",
            "}",
            f"{tile}[kk * 16u + rq] = v;",
        ]
    elif mode == "k":
        body = [
            "let rl = li / 4u;",
            "let q = li % 4u;",
            f"let r = {origin} + rl;",
            "let kc = k0 + q * 4u;",
            f"var v = vec4<{t}>();",
            f"if (r < {extent} && kc < K) {{",
            f"    v = {vector.format(f'{buf}[u32({base} + i32(r) * {s_r} + i32(kc)) >> 2u]')};",
            "}",
            "for (var j = 0u; j < 4u; j = j + 1u) {",
            f"    {tile}[(q * 4u + j) * 16u + rl / 4u][rl % 4u] = v[j];",
            "}",
        ]
    else:
        rl, kk = ("idx % 64u", "idx / 64u") if mode == "s" else ("idx / 16u", "idx % 16u")
        address = f"u32({base} + i32(r) * {s_r} + i32(kc) * {s_k})"
        body = [
            "for (var e = 0u; e < 4u; e = e + 1u) {",
            "    let idx = li + e * 256u;",
            f"    let rl = {rl};",
            f"    let kk = {kk};",
            f"    let r = {origin} + rl;",
            "    let kc = k0 + kk;",
            f"    var v = {t}();",
            f"    if (r < {extent} && kc < K) {{",
            f"        v = {scalar.format(f'{buf}[{address}]')};",
            "    }",
            f"    {tile}[kk * 16u + rl / 4u][rl % 4u] = v;",
            "}",
        ]
    return "\n".join(["        {", *("            " + line for line in body), "        }"])


# An epilogue's view of a result register (int32 accumulates in u32).
_RESULT = {"float32": "{}", "int32": "bitcast<i32>({})", "uint32": "{}"}
_NO_EPILOGUE = ("", 0, 0)


def _with_epilogue(text: str, head: str, epilogue) -> str:
    """``text`` with an epilogue's functions after the header (``epilogue``: its WGSL, extra
    inputs, extra outputs, as ``fused_matmul`` passes it)."""
    functions = epilogue[0]
    return text if not functions else text.replace(head, head + "\n\n" + functions, 1)


def _store(dtype_name: str, t: str, value: str, index: str, epilogue) -> str:
    store = _CONV[t][2].format(value)
    if not epilogue[0]:
        return store
    # the store's statement goes on with the epilogue's call (``out0[...] = <store>;``)
    return f"{store};\n{' ' * 20}epilogue({index}, {_RESULT[dtype_name].format(value)})"


@lru_cache(maxsize=256)
def matmul_kernel(dtype_name: str, a_mode: str, b_mode: str, slots: int,
                  epilogue=_NO_EPILOGUE) -> Kernel:
    t, mac = _TYPES[_d.dtype(dtype_name)]
    words = {m: "vec4<u32>" if m in ("r", "k") else "u32" for m in (a_mode, b_mode)}
    _, n_in, n_out = epilogue
    head, uniform = header([words[a_mode], words[b_mode]] + ["u32"] * n_in,
                           ["u32"] * (1 + n_out), slots)
    text = Template(kernels.source("matmul")).substitute(
        header=head, T=t, mac=mac, a_word=words[a_mode], b_word=words[b_mode],
        load_a=_loader("a", a_mode, t), load_b=_loader("b", b_mode, t),
        store=_store(dtype_name, t, "acc[r][c]", "out_row + j", epilogue))
    return Kernel(kernels.with_libraries(_with_epilogue(text, head, epilogue)), 2 + n_in,
                  1 + n_out, uniform)


def _direct_setup(t: str, rows: int, cols: int) -> str:
    lines = [f"let r{r} = i32(min(row + {r}u, M - 1u));" for r in range(1, rows)]
    # B's column offsets past the first vec4 (clamped to the row's last vec4)
    lines += [f"let c{c} = i32(min(col + {4 * c}u, N - 4u) - col);" for c in range(1, cols // 4)]
    lines += [f"var acc{r}_{c} = vec4<{t}>();" for r in range(rows) for c in range(cols // 4)]
    return "\n".join("    " + line for line in lines)


def _direct_body(a_mode: str, vector: str, rows: int, cols: int) -> str:
    """The k-loop body of matmul_direct.wgsl: four k-steps for the rows x cols register tile,
    each accumulator in k order."""
    def load(buf: str, at: str) -> str:
        return vector.format(f"{buf}[u32({at}) >> 2u]")
    lines = [f"let b{s}_{c} = {load('in1', f'b_at + {s} * b_sk' + (f' + c{c}' if c else ''))};"
             for s in range(4) for c in range(cols // 4)]
    names = ["i32(row)", *(f"r{r}" for r in range(1, rows))]
    if a_mode == "k":  # one vec4 per row: k .. k + 3
        lines += [f"let a{r} = {load('in0', f'a_base + {names[r]} * a_sm + i32(k)')};"
                  for r in range(rows)]
        for step, part in enumerate("xyzw"):
            lines += [f"acc{r}_{c} = mac(a{r}.{part}, b{step}_{c}, acc{r}_{c});"
                      for r in range(rows) for c in range(cols // 4)]
    else:  # vec4s along the rows per k-step: rows row .. row + 3, row + 4 .. row + 7, ...
        for s in range(4):
            lines += [f"let e{s}_{q} = "
                      f"{load('in0', f'a_base + i32(row) + {4 * q} + (i32(k) + {s}) * a_sk')};"
                      for q in range(rows // 4)]
        for step in range(4):
            lines += [f"acc{r}_{c} = mac(e{step}_{r // 4}.{'xyzw'[r % 4]}, b{step}_{c}, "
                      f"acc{r}_{c});" for r in range(rows) for c in range(cols // 4)]
    return "\n".join(" " * 8 + line for line in lines)


# Register tiles of at most this many outputs call a fused epilogue once per register, as each
# vec4 is stored; larger ones from a loop over the stored tile, which reads the results back:
# unrolled, a 32x32 tile's epilogue took lavapipe 79 s to compile.
UNROLLED_EPILOGUE = 64


def _direct_store(dtype_name: str, t: str, epilogue, rows: int, cols: int) -> str:
    vec_store = _CONV[t][2].replace("bitcast<u32>", "bitcast<vec4<u32>>")
    unrolled = epilogue[0] and rows * cols <= UNROLLED_EPILOGUE
    lines = []
    for r in range(rows):
        body = []
        for c in range(cols // 4):
            at = f"at + {r}u * N + {4 * c}u"
            stores = [f"out0[({at}) >> 2u] = {vec_store.format(f'acc{r}_{c}')};"]
            if unrolled:
                stores += [f"epilogue({at} + {e}u, "
                           f"{_RESULT[dtype_name].format(f'acc{r}_{c}.{part}')});"
                           for e, part in enumerate("xyzw")]
            # columns past N (N a multiple of 4 only) are not stored
            body += stores if not c else [f"if (col + {4 * c}u < N) {{",
                                          *("    " + x for x in stores), "}"]
        lines += [f"if (row + {r}u < M) {{", *("    " + b for b in body), "}"]
    if epilogue[0] and not unrolled:
        word = _RESULT[dtype_name].format(_CONV[t][0].format("out0[i >> 2u][i & 3u]"))
        lines += [f"for (var r = 0u; r < {rows}u && row + r < M; r = r + 1u) {{",
                  f"    for (var c = 0u; c < {cols}u && col + c < N; c = c + 1u) {{",
                  "        let i = at + r * N + c;",
                  f"        epilogue(i, {word});",
                  "    }", "}"]
    return "\n".join("    " + line for line in lines)


# The register tiles (rows, columns) of an invocation of matmul_direct.wgsl by adapter class
# (backend.adapter_class), each with its rate in GFLOP/s on a 1024^2 float32 product with every
# thread busy (2 vCPUs).  A workgroup covers 16 * rows x 16 * columns outputs.  CPU adapters
# gather every lane's vec4 load separately, so larger tiles, which reuse each load for more
# outputs, run faster (lavapipe's 32x32: 6.1), but their compile time grows faster still: on
# first use (no shader cache) lavapipe takes 0.4 / 0.65 / 1.4 / 3.1 / 7.3 s for 16x4 / 16x8 /
# 16x16 / 32x16 / 32x32, and SwiftShader's 32x32 spills (2.2).  The tables stop at 16x16, and
# products under ``TILED_WORK`` keep the first tile (a larger one would save less than it
# takes to compile).  GPUs keep 4x4: on an H200 it was best or tied with 1x4 to 8x8 and the
# workgroup-tiled kernel from 1024^2 up (about 20 TFLOP/s at 2048^2, bench_gpu.py's kernels
# section).  ``direct_tile`` picks.
DIRECT_TILES = {
    "llvmpipe": {(16, 4): 1.54, (16, 8): 2.43, (16, 16): 3.16},
    "software": {(16, 4): 1.79, (16, 8): 1.89, (16, 16): 2.63},
    "gpu": {(4, 4): 1.0},
}
TILED_WORK = 1 << 24  # m * n * k (256^3: 16x4 takes 21 ms on lavapipe, 16x8 13)


@lru_cache(maxsize=256)
def direct_tile(adapter_class: str, threads: int, batch: int, m: int, n: int,
                k: int) -> tuple[int, int]:
    """The register tile with the least estimated time for a batch x (m x k @ k x n) product:
    the workgroups are spread over ``threads`` CPU threads, and each runs the outputs of its
    tile inside the product at the tile's rate (large tiles on small products leave threads
    idle: 2 threads take 16x8 for the 128 x 256 result of an MLP's first layer, 16x16 for
    784 x 256)."""
    tiles = DIRECT_TILES[adapter_class]
    if batch * m * n * k < TILED_WORK:
        return next(iter(tiles))

    def time(tile_rate):
        (rows, cols), rate = tile_rate
        tm, tn = 16 * rows, 16 * cols
        groups = batch * -(-m // tm) * -(-n // tn)
        return -(-groups // threads) * min(tm, m) * min(tn, n) / rate
    return min(tiles.items(), key=time)[0]


@lru_cache(maxsize=64)
def direct_kernel(dtype_name: str, a_mode: str, slots: int, epilogue=_NO_EPILOGUE,
                  tile: tuple[int, int] = (4, 4)) -> Kernel:
    rows, cols = tile
    t, mac = _TYPES[_d.dtype(dtype_name)]
    vector = _CONV[t][1]
    _, n_in, n_out = epilogue
    head, uniform = header(["vec4<u32>", "vec4<u32>"] + ["u32"] * n_in,
                           ["vec4<u32>"] + ["u32"] * n_out, slots)
    text = Template(kernels.source("matmul_direct")).substitute(
        header=head, T=t, body=_direct_body(a_mode, vector, rows, cols), rows=rows, cols=cols,
        tile_rows=16 * rows, tile_cols=16 * cols, setup=_direct_setup(t, rows, cols),
        store=_direct_store(dtype_name, t, epilogue, rows, cols))
    text = text.replace("@compute", f"fn mac(a: {t}, b: vec4<{t}>, acc: vec4<{t}>) -> "
                        f"vec4<{t}> {{\n    return {mac};\n}}\n\n@compute", 1)
    return Kernel(kernels.with_libraries(_with_epilogue(text, head, epilogue)), 2 + n_in,
                  1 + n_out, uniform)


def _direct_mode(a, b, a_bs, b_bs, a_sm, a_sk, b_sk, b_sn, m, n, k) -> str | None:
    """matmul_direct.wgsl's A mode ("k", "r") where the operands allow vec4 loads, else None."""
    if n % 4 or k % 4 or b_sn != 1 or b_sk % 4:
        return None
    for t, bs in ((a, a_bs), (b, b_bs)):
        if t._data.size % 16 or t.offset % 4 or any(s % 4 for s in bs):
            return None
    if a_sk == 1 and a_sm % 4 == 0:
        return "k"
    if a_sm == 1 and m % 4 == 0 and a_sk % 4 == 0:
        return "r"
    return None


# scalar multiply-add for the one-element-per-work-item kernel (matmul_small.wgsl)
_SMALL_MAC = {"f32": "fma(a, b, acc)", "u32": "acc + a * b"}
SMALL = 16  # outputs with fewer rows or columns, or k up to this, skip the 64x64 tiles


def small_strip(m: int, n: int) -> str:
    """The axis of ``small_kernel``'s strips for an m x n output: the one whose edge leaves
    fewer lanes idle (a row of 10 takes strips of 4, 4 and 2; columns of 128 fill theirs)."""
    return "i" if -n % 4 > -m % 4 else "j"


def small_items(strip: str, batch: int, m: int, n: int) -> int:
    """``small_kernel``'s work items (strips of four outputs)."""
    return batch * (m * -(-n // 4) if strip == "j" else n * -(-m // 4))


class _Strip(NamedTuple):
    """How ``small_kernel`` walks strips along one axis (WGSL fragments)."""

    locate: str  # the work item's row i, column j and batch z
    operand: str  # the operand whose four lanes are loaded ("a" or "b")
    axis: str  # the strip's axis variable ("i" or "j")
    extent: str  # that axis's length ("M" or "N")
    step: str  # the stripped operand's stride along it
    lane_offset: str  # lane c's output offset from lane 0's ("{c}" is c)
    lane_inside: str  # lane c lies in the matrix


_STRIPS = {
    "j": _Strip("let strips = (N + 3u) / 4u;\nlet i = (t / strips) % M;\n"
                "let j = 4u * (t % strips);\nlet z = t / (strips * M);",
                "b", "j", "N", "prm_i(13u)", "{c}u", "j + {c}u < N"),
    "i": _Strip("let strips = (M + 3u) / 4u;\nlet j = t % N;\n"
                "let i = 4u * ((t / N) % strips);\nlet z = t / (N * strips);",
                "a", "i", "M", "prm_i(9u)", "{c}u * N", "i + {c}u < M"),
}


@lru_cache(maxsize=64)
def small_kernel(dtype_name: str, slots: int, epilogue=_NO_EPILOGUE, strip: str = "j") -> Kernel:
    t, _ = _TYPES[_d.dtype(dtype_name)]
    scalar = _CONV[t][0]
    _, n_in, n_out = epilogue
    head, uniform = header(["u32"] * (2 + n_in), ["u32"] * (1 + n_out), slots)
    walk = _STRIPS[strip]
    op, along = walk.operand, walk.axis
    steps = [f"let {op}_step = {walk.step};"]
    steps += [f"let {op}{c} = i32(min({along} + {c}u, {walk.extent} - 1u) - {along}) * {op}_step;"
              for c in range(1, 4)]
    buf = {"a": "in0", "b": "in1"}
    lanes = ", ".join(scalar.format(f"{buf[op]}[u32({op}_at{f' + {op}{c}' if c else ''})]")
                      for c in range(4))
    loads = {o: f"vec4<{t}>({lanes})" if o == op
             else f"vec4<{t}>({scalar.format(f'{buf[o]}[u32({o}_at)]')})" for o in "ab"}
    stores = ["let o = (z * M + i) * N + j;"]
    for c, part in enumerate("xyzw"):
        at = "o" if c == 0 else f"o + {walk.lane_offset.format(c=c)}"
        line = f"out0[{at}] = {_store(dtype_name, t, f'acc.{part}', at, epilogue)};"
        stores += [line] if c == 0 else [f"if ({walk.lane_inside.format(c=c)}) {{", "    " + line,
                                         "}"]
    text = Template(kernels.source("matmul_small")).substitute(
        header=head, T=t, mac=_SMALL_MAC[t], lanes=4, load_a=loads["a"], load_b=loads["b"],
        locate=kernels.indent(walk.locate.splitlines()), steps=kernels.indent(steps),
        stores=kernels.indent(stores),
        main=kernels.entry_point("        store_outputs(t);", count="prm(6u)", items=1))
    return Kernel(kernels.with_libraries(_with_epilogue(text, head, epilogue)), 2 + n_in,
                  1 + n_out, uniform)


def _any_loader(operand: str, mode: str, spec: _AnySpec) -> str:
    """WGSL that stages one TK x 64 slice of ``operand`` element by element into its tile."""
    buf, tile = ("in0", "tile_a") if operand == "a" else ("in1", "tile_b")
    extent, origin = ("M", "row0") if operand == "a" else ("N", "col0")
    s_r, s_k = ("a_sm", "a_sk") if operand == "a" else ("b_sn", "b_sk")
    rl, kk = ("idx % 64u", "idx / 64u") if mode == "s" else ("idx / TK", "idx % TK")
    body = [
        f"for (var e = 0u; e < {spec.tk * TILE // 256}u; e = e + 1u) {{",
        "    let idx = li + e * 256u;",
        f"    let rl = {rl};",
        f"    let kk = {kk};",
        f"    let r = {origin} + rl;",
        "    let kc = k0 + kk;",
        f"    var v = {spec.t}();",
        f"    if (r < {extent} && kc < K) {{",
        f"        let at = u32({operand}_base + i32(r) * {s_r} + i32(kc) * {s_k});",
        f"        v = {spec.load.format(buf=buf, idx='at')};",
        "    }",
        f"    {tile}[kk * TILE + rl] = v;",
        "}",
    ]
    return "\n".join(["        {", *("            " + line for line in body), "        }"])


def _any_store(spec: _AnySpec) -> str:
    """WGSL storing accumulator ``v`` as output element ``e``."""
    storage = _S[spec.storage]
    if storage.words == 2:
        lines = [f"let bits = {spec.bits};", "out0[2u * e] = bits.x;",
                 "out0[2u * e + 1u] = bits.y;"]
    else:
        # Clear, then set, only this element's bits: other elements of the word may be written
        # by other invocations at the same time.
        per, width = storage.per_word, storage.bits
        lines = [f"let w = e / {per}u;",
                 f"let sh = (e % {per}u) * {width}u;",
                 f"atomicAnd(&out0[w], ~({hex((1 << width) - 1)}u << sh));",
                 f"atomicOr(&out0[w], {spec.bits} << sh);"]
    return "\n".join(" " * 20 + line for line in lines)


@lru_cache(maxsize=256)
def any_kernel(dtype_name: str, a_mode: str, b_mode: str, slots: int) -> Kernel:
    spec = _ANY[_d.dtype(dtype_name)]
    packed = _S[spec.storage].per_word > 1
    head, uniform = header(["u32", "u32"], ["atomic<u32>" if packed else "u32"], slots)
    text = Template(kernels.source("matmul_any")).substitute(
        header=head, T=spec.t, TK=spec.tk, tile_elems=spec.tk * TILE, mac=spec.mac,
        load_a=_any_loader("a", a_mode, spec), load_b=_any_loader("b", b_mode, spec),
        store=_any_store(spec))
    return Kernel(kernels.with_libraries(text), 2, 1, uniform)


def _scalar_mode(s_r: int, s_k: int) -> str:
    """Element loads: "sk" when k is the faster-moving index in memory, else "s"."""
    return "sk" if abs(s_k) < abs(s_r) else "s"


def _mode(buffer_size: int, offset: int, batch_strides, s_r: int, s_k: int, extent: int,
          k: int) -> str:
    """The loader for an operand: vec4 along rows/columns ("r") or k ("k") when every vec4
    is aligned and either wholly inside or outside the matrix, else scalar."""
    aligned = buffer_size % 16 == 0 and all(v % 4 == 0 for v in (offset, *batch_strides))
    if aligned and s_r == 1 and extent % 4 == 0 and s_k % 4 == 0:
        return "r"
    if aligned and s_k == 1 and k % 4 == 0 and s_r % 4 == 0:
        return "k"
    return _scalar_mode(s_r, s_k)


def matmul(backend, out, a, b, epilogue=None) -> None:
    """``out = a @ b`` on the GPU; ``out`` fresh (batch, M, N), ``a``/``b`` any views whose
    batch dims broadcast to ``out``'s, dtype in ``DTYPES``.  ``epilogue`` (float32, int32 and
    uint32 only: see ``fused_matmul``) is called with each result as it is stored."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    batch = tuple(out.shape[:-2])
    if b.shape[-2] != k or tuple(out.shape[-2:]) != (m, n):
        raise ValueError(f"matmul: shapes {a.shape} @ {b.shape} -> {out.shape} do not match; "
                         f"the frontend (wt.matmul) checks and broadcasts them")
    if out.size == 0:
        return
    if k == 0:
        backend.fill(out, 0)
        return
    a_bs, b_bs = (_batch_strides(t, batch) for t in (a, b))
    shape, (a_bs, b_bs) = kernels.collapse(batch, [a_bs, b_bs])
    # A size-1 matrix dim never advances, so its stride cannot spoil vec4 alignment.
    a_sm, a_sk = (0 if m == 1 else a.strides[-2]), (0 if k == 1 else a.strides[-1])
    b_sk, b_sn = (0 if k == 1 else b.strides[-2]), (0 if n == 1 else b.strides[-1])
    small = a.dtype in _TYPES and (min(m, n) < SMALL or k <= SMALL)
    direct = (not small and a.dtype in _TYPES
              and _direct_mode(a, b, a_bs, b_bs, a_sm, a_sk, b_sk, b_sn, m, n, k))
    matrices = out.size // (m * n)
    tile = (direct_tile(backend.adapter_class, backend.driver.threads, matrices, m, n, k)
            if direct else (4, 4))
    tiles_m, tiles_n = -(-m // (16 * tile[0])), -(-n // (16 * tile[1]))
    groups = tiles_m * tiles_n * matrices
    params = Params(0, 0)
    params.words[1:4] = [m, n, k]
    params.add(tiles_n, tiles_m, groups, len(shape), a.offset, a_sm, a_sk, b.offset, b_sk, b_sn)
    for size, sa, sb in zip(shape, a_bs, b_bs):
        params.add(size, sa, sb)
    fused, ins, outs = _NO_EPILOGUE, [a._data, b._data], [out._data]
    if epilogue is not None:
        fused = (epilogue.wgsl(len(params.words), 2, 1), len(epilogue.buffers),
                 len(epilogue.outputs))
        params.add(*epilogue.words)
        ins += epilogue.buffers
        outs += epilogue.outputs
    if small:
        # strips of four outputs are the work items: no tile is mostly padding
        strip = small_strip(m, n)
        items = small_items(strip, matrices, m, n)
        params.words[6] = items  # slot 6: work items (matmul.wgsl: workgroups in use)
        kernel = small_kernel(a.dtype.name, len(params.words), fused, strip)
        backend.launch(kernel, ins + outs, params, kernels.groups_for(items))
        return
    if direct:
        kernel = direct_kernel(a.dtype.name, direct, len(params.words), fused, tile)
    elif a.dtype in _TYPES:
        a_mode = _mode(a._data.size, a.offset, a_bs, a_sm, a_sk, m, k)
        b_mode = _mode(b._data.size, b.offset, b_bs, b_sn, b_sk, n, k)
        kernel = matmul_kernel(a.dtype.name, a_mode, b_mode, len(params.words), fused)
    else:
        kernel = any_kernel(a.dtype.name, _scalar_mode(a_sm, a_sk), _scalar_mode(b_sn, b_sk),
                            len(params.words))
    backend.launch(kernel, ins + outs, params, groups)


def fused_matmul(backend, out, a, b, epilogue) -> bool:
    """``matmul`` for a compiled program, passing each result to ``epilogue`` as it is stored.
    False where there is no such kernel (the caller runs matmul and epilogue one by one)."""
    k = a.shape[-1]
    if not (a.dtype in _TYPES and b.dtype is a.dtype and out.dtype is a.dtype and out.size
            and k and backend.native_ok(out, a, b)):
        return False
    matmul(backend, out, a, b, epilogue)
    return True


def _batch_strides(t, batch) -> tuple[int, ...]:
    """``t``'s strides over the batch dims of ``batch`` (missing or size-1 dims: stride 0)."""
    lead = t.ndim - 2
    strides = [0] * (len(batch) - lead) + list(t.strides[:lead])
    sizes = [1] * (len(batch) - lead) + list(t.shape[:lead])
    for d, (have, want) in enumerate(zip(sizes, batch)):
        if have == 1:
            strides[d] = 0
        elif have != want:
            raise ValueError(f"matmul: batch dims {t.shape[:lead]} do not broadcast to {batch}")
    return tuple(strides)


# -- the family's interface (backend.FAMILIES) ----------------------------------------------------

PRIMITIVES = ("matmul",)
EPILOGUE_DTYPES = frozenset(_TYPES)


def supports(prim: str, op, dt) -> bool:
    return dt in DTYPES


def capability(prim: str, dt) -> str:
    return "native" if supports(prim, None, dt) else "cpu"


def run(backend, prim: str, out, a, b) -> bool:
    if not (supports(prim, None, a.dtype) and b.dtype is a.dtype and out.dtype is a.dtype
            and backend.native_ok(out, a, b)):
        return False
    wide = WIDENED.get(a.dtype)
    if wide is not None and out.size and a.shape[-1]:
        a_wide, b_wide, out_wide = (empty(t.shape, wide, t.device) for t in (a, b, out))
        backend.cast(a_wide, a)
        backend.cast(b_wide, b)
        matmul(backend, out_wide, a_wide, b_wide)
        backend.cast(out, out_wide)
        return True
    matmul(backend, out, a, b)
    return True
