"""Native ``sort``/``argsort`` for the WebGPU backend: an LSD radix sort for large sorts, a
multi-dispatch bitonic sort network for small ones.

Every element becomes a (key, index) pair: ``key`` an order-preserving unsigned transform of the
value (NumPy's order, -0.0 tied with +0.0, every NaN tied above +inf; inverted bitwise for
``descending``) and ``index`` its position in the row.  Pairs compare as (key, index), a total
order, so both algorithms give the stable sort, with identical results.  Keys are one u32 word
or, for int64/uint64, a (high, low) pair of words compared high word first.

**Radix** (``shaders/radix_*.wgsl``, ``radix_pairs``): keys have ``RADIX_KEY``'s significant
bits (32; 64 for 64-bit values; bool 1, 8/16-bit integers 8/16, bfloat16 16 and float16 19:
their float32 key without the bits that never vary), sorted a digit of up to 8 bits at a time
from the lowest.  Each row is cut into chunks, one invocation per chunk; per digit:

1. ``radix_count``: each chunk counts its digits in private counters and writes them to the
   digit table, laid out [row][digit][chunk] (the first digit also builds the pairs from the
   input view);
2. ``radix_scan``: the table's exclusive prefix sums (segment sums, their carries, rescans):
   the first output position of every (row, digit, chunk);
3. ``radix_scatter``: each chunk walks its pairs in order and moves each to the next position
   of its digit: stable, so after the last digit the rows are sorted.

No atomics and no workgroup memory: nothing depends on the order invocations run in, and the
kernels need nothing past WebGPU's defaults (no subgroups).  A 32-bit key takes 4 digits of 5
dispatches; rows shorter than 256 take narrower digits (fewer counters per chunk, more
passes; ``max_digit``).  The same pairs sort scatter's updates by target (``gather.py``).

**Bitonic** (``shaders/sort_*.wgsl``): each row is padded to a power of two ``2**log2`` with
sentinel pairs (key 0xffffffff, index >= n) that sort after every real element; the padded rows
lie end to end, and a bitonic network whose stages stop at the row length sorts every row
independently:

1. ``sort_local``, mode "sort": reads the input view, builds the pairs and runs every stage of
   span <= 1024 in workgroup memory (rows of <= 1024 elements are done after this one pass);
2. for each longer stage: ``sort_step`` for the steps of distance >= 1024 (the first "flips";
   the next ones, half-cleaners, go three to a dispatch), then ``sort_local`` mode "merge" for
   the distances below 1024.

``RADIX_FROM`` picks between them by row length and total size (crossovers measured on
lavapipe: radix from 2048 elements per row, from 16 for large batches of rows; 64-bit keys
later).  Finally ``sort_final`` writes the indices (int64) or the input elements they name.

Values narrower than a word (bool, 8/16-bit) sort through a uint32 temporary holding their bit
patterns (packed bytes cannot be scattered by one invocation per element) and a native cast
into the result's bits; the values written are always the input's own bits.  The pair buffers
(8 bytes per element, 12 for 64-bit keys; padded for bitonic) and the digit table must fit one
storage binding each (128 MiB); larger sorts, other dtypes (float64, complex) and non-fresh
outputs are routed to the CPU.
"""

from __future__ import annotations

from functools import lru_cache

from ... import dtypes as _d
from ...tensor import Tensor, empty
from . import kernels
from .kernels import STORAGE, STORAGE_OF, Params

BLOCK = 1024  # pairs sorted per workgroup (8 KiB of workgroup memory, 12 KiB for 64-bit keys)
_LOG2_BLOCK = BLOCK.bit_length() - 1
FUSED_LEVELS = 3  # global half-cleaner steps per dispatch (8 pairs in registers)

# Order-preserving key of the element at index ``ix`` of ``in0``, per storage ({load}: the
# storage's load of it).  Signed narrow ints load sign-extended, so flipping bit 31 orders them;
# float16/bfloat16 widen exactly to float32 (NaN stays NaN), which has the wanted key already.
_SIGNED = "(bitcast<u32>({load}) ^ 0x80000000u)"
_HALF_FLOAT = "f32_sort_key(bitcast<u32>({load}))"
SORT_KEY = {
    "f32": "f32_sort_key(in0[ix])",
    "i32": "(in0[ix] ^ 0x80000000u)",
    "u32": "in0[ix]",
    "bool": "select(0u, 1u, {load})",
    "u8": "{load}", "u16": "{load}", "i8": _SIGNED, "i16": _SIGNED,
    "f16": _HALF_FLOAT, "bf16": _HALF_FLOAT,
    # 64-bit: (high word, low word); the sign bit flipped for int64
    "i64": "vec2<u32>(in0[2u * ix + 1u] ^ 0x80000000u, in0[2u * ix])",
    "u64": "vec2<u32>(in0[2u * ix + 1u], in0[2u * ix])",
}
SORT_DTYPES = {dt: s for dt, s in STORAGE_OF.items() if dt is not _d.complex64}
_UINT_OF_SIZE = {1: _d.uint8, 2: _d.uint16}

# Pair helpers per key width in words (shaders/sort_local.wgsl, sort_step.wgsl): the WGSL key
# type, the padding sentinel's key, and the functions comparing, reading and writing keys.
_KEY_TYPE = {1: "u32", 2: "vec2<u32>"}
_KEY_MAX = {1: "0xffffffffu", 2: "vec2<u32>(0xffffffffu)"}
_PAIRS = {
    1: """\
const PAIR_WORDS: u32 = 2u;

fn pair_after(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {
    return ka > kb || (ka == kb && ia > ib);
}

fn read_pair_key(g: u32) -> u32 {
    return out0[PAIR_WORDS * g];
}

fn write_pair_key(g: u32, k: u32) {
    out0[PAIR_WORDS * g] = k;
}""",
    2: """\
const PAIR_WORDS: u32 = 3u;

// Keys are (high word, low word): the high words decide unless they are equal.
fn pair_after(ka: vec2<u32>, ia: u32, kb: vec2<u32>, ib: u32) -> bool {
    return ka.x > kb.x || (ka.x == kb.x && (ka.y > kb.y || (ka.y == kb.y && ia > ib)));
}

fn read_pair_key(g: u32) -> vec2<u32> {
    return vec2<u32>(out0[PAIR_WORDS * g], out0[PAIR_WORDS * g + 1u]);
}

fn write_pair_key(g: u32, k: vec2<u32>) {
    out0[PAIR_WORDS * g] = k.x;
    out0[PAIR_WORDS * g + 1u] = k.y;
}""",
}


def key_words(storage: str) -> int:
    return 2 if STORAGE[storage].words == 2 else 1


def pair_bytes(storage: str) -> int:
    return 4 * (key_words(storage) + 1)


def _pair_fields(words: int) -> dict[str, str]:
    return {"key_type": _KEY_TYPE[words], "pairs": _PAIRS[words]}

_LOAD_FROM_VIEW = """\
    let logp = arg(1u);
    let p = g & ((1u << logp) - 1u);
    if (p >= arg(0u)) {{
        return Pair({key_max}, p);
    }}
    let ix = {index}((g >> logp) * arg(0u) + p, 0u);
    var key = {key};
    if (arg(2u) != 0u) {{
        key = ~key;
    }}
    return Pair(key, p);"""

_LOAD_FROM_PAIRS = "    return Pair(read_pair_key(g), out0[PAIR_WORDS * g + PAIR_WORDS - 1u]);"

_NETWORK_SORT = """\
    let top = min(1u << arg(1u), BLOCK);
    for (var k = 2u; k <= top; k = k * 2u) {
        network_step(lid, k / 2u, true, count);
        for (var j = k / 4u; j > 0u; j = j / 2u) {
            network_step(lid, j, false, count);
        }
    }"""

_NETWORK_MERGE = """\
    for (var j = HALF; j > 0u; j = j / 2u) {
        network_step(lid, j, false, count);
    }"""


def _index_fn(contiguous: bool) -> str:
    return "contiguous_index" if contiguous else "strided_index"


@lru_cache(maxsize=64)
def local_sort_kernel(storage: str, contiguous: bool, slots: int) -> kernels.Kernel:
    words = key_words(storage)
    key = SORT_KEY[storage].format(load=STORAGE[storage].load.format(buf="in0", idx="ix"))
    load = _LOAD_FROM_VIEW.format(index=_index_fn(contiguous), key=key, key_max=_KEY_MAX[words])
    return kernels.render("sort_local", 1, 1, slots, mode="sort", n_operands=1, load=load,
                           network=_NETWORK_SORT, **_pair_fields(words))


@lru_cache(maxsize=4)
def local_merge_kernel(words: int) -> kernels.Kernel:
    return kernels.render("sort_local", 0, 1, 4, mode="merge", n_operands=0,
                           load=_LOAD_FROM_PAIRS, network=_NETWORK_MERGE, **_pair_fields(words))


@lru_cache(maxsize=4)
def step_kernel(words: int) -> kernels.Kernel:
    return kernels.render("sort_step", 0, 1, 8, **_pair_fields(words))


# The value the final pass writes for element ``ix`` of the input (``in1``), per kind: 32-bit
# bits, the 0/1 of a bool, the raw bit pattern of an 8/16-bit element (into uint32), or both
# words of a 64-bit element.
_FINAL_VALUE = {
    "bits": "    out0[o] = in1[ix];",
    "bool": "    out0[o] = select(0u, 1u, {bool});".format(
        bool=STORAGE["bool"].load.format(buf="in1", idx="ix")),
    "u8": "    out0[o] = {};".format(STORAGE["u8"].load.format(buf="in1", idx="ix")),
    "u16": "    out0[o] = {};".format(STORAGE["u16"].load.format(buf="in1", idx="ix")),
    "wide": "    out0[2u * o] = in1[2u * ix];\n    out0[2u * o + 1u] = in1[2u * ix + 1u];",
}


@lru_cache(maxsize=64)
def final_kernel(kind: str, words: int, contiguous_in: bool, contiguous_out: bool,
                 slots: int) -> kernels.Kernel:
    """``kind``: "indices" (int64 out) or a ``_FINAL_VALUE`` kind; ``words``: key words."""
    out_index = _index_fn(contiguous_out)
    pair_words = words + 1
    if kind == "indices":
        store = "    out0[2u * o] = idx;\n    out0[2u * o + 1u] = 0u;"
        return kernels.render("sort_final", 1, 1, slots, out_index=out_index, store=store,
                               pair_words=pair_words)
    ix = f"{_index_fn(contiguous_in)}(r * n + idx, 0u)"
    store = f"    let ix = {ix};\n{_FINAL_VALUE[kind]}"
    return kernels.render("sort_final", 2, 1, slots, out_index=out_index, store=store,
                           pair_words=pair_words)


# -- LSD radix sort (shaders/radix_*.wgsl) ---------------------------------------------------------

# Radix keys per storage: (WGSL key of element ``ix`` of ``in0``, significant bits).  Each is an
# order-preserving map into [0, 2**bits) with SORT_KEY's ties (the fewer bits, the fewer
# passes): narrow ints shift their range to start at 0; float16 and bfloat16 keys are the
# float32 key of their exactly widened value, whose low 13 (16) bits never vary.
RADIX_KEY = {
    "f32": ("f32_sort_key(in0[ix])", 32),
    "i32": ("(in0[ix] ^ 0x80000000u)", 32),
    "u32": ("in0[ix]", 32),
    "bool": ("select(0u, 1u, {load})", 1),
    "u8": ("{load}", 8), "u16": ("{load}", 16),
    "i8": ("((bitcast<u32>({load}) + 0x80u) & 0xffu)", 8),
    "i16": ("((bitcast<u32>({load}) + 0x8000u) & 0xffffu)", 16),
    "f16": ("(f32_sort_key(bitcast<u32>({load})) >> 13u)", 19),
    "bf16": ("(f32_sort_key(bitcast<u32>({load})) >> 16u)", 16),
    "i64": (SORT_KEY["i64"], 64), "u64": (SORT_KEY["u64"], 64),
}
RADIX_DIGIT = 8  # bits per pass at most: 256 private counters per invocation
MIN_DIGIT = 4  # bits per pass at least (short rows)
DIGIT_SLACK = 1  # rows of n take digits of at most log2(n) - DIGIT_SLACK bits
RADIX_CHUNK = 1024  # pairs one invocation walks (fewer when a row has few)
RADIX_INVOCATIONS = 1024  # chunks aimed at: shorter chunks until there are this many
SCAN_SEGMENT = 256  # table entries one invocation of the table scan adds up (at least)
# Segments at most: one invocation walks them all, and lavapipe stops an invocation after
# 65535 loop iterations in all (every loop of a kernel here stays far below that).
SCAN_SEGMENTS = 16384

_LOAD_KEY = """\
    let ix = {index}(g, 0u);
    var key = {key};
    if (arg(6u) != 0u) {{
        key = key ^ {flip};
    }}
{store}
    out0[PAIR_WORDS * g + PAIR_WORDS - 1u] = p;
    return {low};"""
_STORE_KEY = {1: "    out0[PAIR_WORDS * g] = key;",
              2: "    out0[PAIR_WORDS * g] = key.x;\n    out0[PAIR_WORDS * g + 1u] = key.y;"}


def radix_bits(storage: str) -> int:
    return RADIX_KEY[storage][1]


def max_digit(n: int) -> int:
    """The widest digit for rows of ``n``: short rows take narrower digits (more passes, but
    fewer counters per chunk to clear, write and scan)."""
    return max(MIN_DIGIT, min(RADIX_DIGIT, (n - 1).bit_length() - DIGIT_SLACK))


def digit_widths(bits: int, n: int = 1 << 30) -> list[int]:
    """Bits per pass, lowest first: as few passes as ``max_digit(n)`` allows, widths as equal
    as possible (fewer counters); 64-bit keys split per word (no digit straddles two)."""
    if bits > 32:
        return digit_widths(32, n) + digit_widths(bits - 32, n)
    passes = -(-bits // max_digit(n))
    base, extra = divmod(bits, passes)
    return [base + (i < extra) for i in range(passes)]


@lru_cache(maxsize=64)
def radix_load_kernel(storage: str, bits: int, contiguous: bool, width: int,
                      slots: int) -> kernels.Kernel:
    """The first digit's count pass, which also writes the pairs from the input view."""
    words = key_words(storage)
    key = RADIX_KEY[storage][0].format(load=STORAGE[storage].load.format(buf="in0", idx="ix"))
    flip = "vec2<u32>(0xffffffffu)" if words == 2 else f"{hex((1 << bits) - 1)}u"
    body = _LOAD_KEY.format(index=_index_fn(contiguous), key=key, flip=flip,
                            store=_STORE_KEY[words], low="key.y" if words == 2 else "key")
    return kernels.render("radix_count", 1, 2, slots, mode="load", bins=1 << width,
                          pair_words=words + 1, n_operands=1, digit_word=body, table="out1")


@lru_cache(maxsize=64)
def radix_count_kernel(words: int, width: int) -> kernels.Kernel:
    body = "    return in0[PAIR_WORDS * g + arg(5u)];"
    return kernels.render("radix_count", 1, 1, 16, mode="count", bins=1 << width,
                          pair_words=words + 1, n_operands=0, digit_word=body, table="out0")


@lru_cache(maxsize=64)
def radix_scatter_kernel(words: int, width: int) -> kernels.Kernel:
    return kernels.render("radix_scatter", 2, 1, 16, bins=1 << width, pair_words=words + 1)


_SCAN_BODY = {
    "sums": (1, """\
    let stop = min(prm(1u), (g + 1u) * prm(4u));
    var acc = 0u;
    for (var i = g * prm(4u); i < stop; i = i + 1u) {
        acc = acc + in0[i];
    }
    out0[g] = acc;"""),
    "carry": (0, """\
    var acc = 0u;
    for (var i = 0u; i < prm(5u); i = i + 1u) {
        let v = out0[i];
        out0[i] = acc;
        acc = acc + v;
    }"""),
    "scan": (1, """\
    let stop = min(prm(1u), (g + 1u) * prm(4u));
    var acc = in0[g];
    for (var i = g * prm(4u); i < stop; i = i + 1u) {
        let v = out0[i];
        out0[i] = acc;
        acc = acc + v;
    }"""),
}


@lru_cache(maxsize=4)
def radix_scan_kernel(mode: str) -> kernels.Kernel:
    n_in, body = _SCAN_BODY[mode]
    return kernels.render("radix_scan", n_in, 1, 8, mode=mode, body=body)


def radix_chunk(n: int, rows: int) -> int:
    """Pairs per invocation: RADIX_CHUNK, shorter (down to 64) until the rows make
    RADIX_INVOCATIONS chunks, and never longer than a row."""
    per_row = max(1, RADIX_INVOCATIONS // rows)
    return max(1, min(n, RADIX_CHUNK, max(64, -(-n // per_row))))


def radix_table_entries(n: int, rows: int, bits: int) -> int:
    return rows * (1 << max(digit_widths(bits, n))) * -(-n // radix_chunk(n, rows))


def radix_fits(backend, n: int, rows: int, storage: str, bits: int) -> bool:
    """Whether the radix sort's buffers (pairs, digit table) fit one storage binding each."""
    limit = min(backend.max_binding, backend.memory.max_buffer)
    return max(rows * n * pair_bytes(storage), 4 * radix_table_entries(n, rows, bits)) <= limit


def radix_pairs(backend, data, storage: str, shape, strides, offset: int, n: int, rows: int,
                descending: bool, bits: int | None = None):
    """The stably sorted (key, index) pairs of every row of the view (``data``, ``shape`` and
    ``strides`` collapsed with the axis last; ``rows`` rows of ``n``), rows end to end.
    ``bits``: the keys' significant bits (default: the storage's)."""
    bits = bits or radix_bits(storage)
    words = key_words(storage)
    total = rows * n
    chunk = radix_chunk(n, rows)
    chunks = -(-n // chunk)
    threads = rows * chunks
    src = backend.allocate(total * pair_bytes(storage))
    dst = backend.allocate(total * pair_bytes(storage))
    table = backend.allocate(4 * radix_table_entries(n, rows, bits))
    contiguous = kernels.is_contiguous_1d(shape, strides)
    shift = 0
    for width in digit_widths(bits, n):
        word, bit = words - 1 - shift // 32, shift % 32
        entries = rows * chunks << width
        if shift == 0:
            params = Params(total, threads, shape, [(offset, strides)])
            params.add(n, chunk, chunks, rows, bit, word, int(descending))
            kernel = radix_load_kernel(storage, bits, contiguous, width, len(params.words))
            backend.launch_threads(kernel, [data, src, table], params, threads)
        else:
            params = Params(total, threads)
            params.add(n, chunk, chunks, rows, bit, word)
            backend.launch_threads(radix_count_kernel(words, width), [src, table], params,
                                   threads)
        _scan_table(backend, table, entries)
        params = Params(total, threads)
        params.add(n, chunk, chunks, rows, bit, word)
        backend.launch_threads(radix_scatter_kernel(words, width), [src, table, dst], params,
                               threads)
        src, dst = dst, src
        shift += width
    return src


def _scan_table(backend, table, entries: int) -> None:
    """The table's exclusive prefix sums, in place (shaders/radix_scan.wgsl)."""
    segment = max(SCAN_SEGMENT, -(-entries // SCAN_SEGMENTS))
    segments = -(-entries // segment)
    sums = backend.allocate(4 * segments)
    for mode, inputs, threads in (("sums", [table, sums], segments), ("carry", [sums], 1),
                                  ("scan", [sums, table], segments)):
        params = Params(entries, threads)
        params.add(segment, segments)
        backend.launch_threads(radix_scan_kernel(mode), inputs, params, threads)


def padded_bytes(x, axis: int) -> int:
    """Bytes of the bitonic network's pair buffer for sorting ``x`` along ``axis``."""
    n = x.shape[axis]
    return x.size // n * (1 << (n - 1).bit_length()) * pair_bytes(SORT_DTYPES[x.dtype])


# When radix beats the bitonic network (measured on lavapipe): per key words, (total elements,
# row length) thresholds; radix when some pair holds.  Radix costs a few dispatches per digit
# and clears, writes and scans every chunk's counters: it loses on small sorts and short rows.
RADIX_FROM = {1: ((1, 2048), (1 << 14, 256), (1 << 16, 64), (1 << 18, 16)),
              2: ((1, 8192), (1 << 14, 4096), (1 << 16, 1024), (1 << 18, 256))}


def use_radix(storage: str, n: int, total: int) -> bool:
    """Whether rows of ``n`` (``total`` elements in all) sort by radix (else bitonic)."""
    return any(total >= t and n >= m for t, m in RADIX_FROM[key_words(storage)])


def binding_bytes(x, axis: int) -> int:
    """The largest buffer the sort of ``x`` along ``axis`` binds."""
    storage = SORT_DTYPES[x.dtype]
    n = x.shape[axis]
    if not use_radix(storage, n, x.size):
        return padded_bytes(x, axis)
    return max(x.size * pair_bytes(storage),
               4 * radix_table_entries(n, x.size // n, radix_bits(storage)))


def native_ok(backend, out, x, axis: int) -> bool:
    """Whether the native path handles this call (else the caller routes it to the CPU)."""
    if x.dtype not in SORT_DTYPES or out.offset != 0 or not out.is_contiguous:
        return False
    if x.size == 0:
        return True
    limit = min(backend.max_binding, backend.memory.max_buffer)
    return backend.fits(out, x) and binding_bytes(x, axis) <= limit


def sort_along(backend, out, x, axis: int, descending: bool, indices: bool) -> None:
    """``out`` = the stable sort of ``x`` along ``axis`` (``indices``: the argsort, int64).

    ``out`` is a fresh contiguous tensor of ``x``'s shape; ``native_ok`` must hold.
    """
    if x.size == 0:
        return
    storage = SORT_DTYPES[x.dtype]
    if indices:
        _sort(backend, out, x, axis, descending, "indices")
    elif x.dtype.itemsize < 4:
        # One invocation per element cannot write packed bytes: sort the bit patterns into
        # uint32, then cast them down (keeps the low bits) into ``out`` seen as unsigned ints.
        wide = empty(out.shape, _d.uint32, out.device)
        if storage == "bool":
            _sort(backend, wide, x, axis, descending, "bool")
            backend.cast(out, wide)
            return
        size = x.dtype.itemsize
        _sort(backend, wide, x, axis, descending, kernels.RAW[size])
        bits = Tensor._wrap(out._data, out.shape, _UINT_OF_SIZE[size], out.device)
        backend.cast(bits, wide)
    else:
        _sort(backend, out, x, axis, descending, "wide" if key_words(storage) == 2 else "bits")


def _sort(backend, out, x, axis: int, descending: bool, kind: str) -> None:
    storage = SORT_DTYPES[x.dtype]
    x = backend.unaliased(out, [x])[0]
    n = x.shape[axis]
    order = [d for d in range(x.ndim) if d != axis] + [axis]
    shape, (xs, os) = kernels.collapse(
        [x.shape[d] for d in order], [[x.strides[d] for d in order],
                                      [out.strides[d] for d in order]])
    if use_radix(storage, n, x.size):
        pairs = radix_pairs(backend, x._data, storage, shape, xs, x.offset, n, x.size // n,
                            descending)
        stride = n
    else:
        pairs = _bitonic_pairs(backend, x, storage, shape, xs, n, descending)
        stride = 1 << (n - 1).bit_length()
    count = x.size
    final = Params(count, count, shape, [(x.offset, xs), (out.offset, os)])
    final.add(n, stride)
    kernel = final_kernel(kind, key_words(storage), kernels.is_contiguous_1d(shape, xs),
                          kernels.is_contiguous_1d(shape, os), len(final.words))
    inputs = [pairs] if kind == "indices" else [pairs, x._data]
    backend.launch_threads(kernel, inputs + [out._data], final, count)


def _bitonic_pairs(backend, x, storage: str, shape, xs, n: int, descending: bool):
    """The sorted pairs of the bitonic network: each row padded to a power of two."""
    log2 = (n - 1).bit_length()
    total = x.size // n << log2
    words = key_words(storage)
    pairs = backend.allocate(total * pair_bytes(storage))

    params = Params(total, total, shape, [(x.offset, xs)])
    params.add(n, log2, int(descending))
    kernel = local_sort_kernel(storage, kernels.is_contiguous_1d(shape, xs), len(params.words))
    backend.launch(kernel, [x._data, pairs], params, -(-total // BLOCK))

    for stage in range(_LOG2_BLOCK + 1, log2 + 1):  # stages of span 2 * BLOCK .. 2**log2
        flip = Params(total, total // 2)
        flip.add(1 << (stage - 1), 1, 1, stage - 1)
        backend.launch_threads(step_kernel(words), [pairs], flip, total // 2)
        top = stage - 2  # log2 of the longest half-cleaner distance
        while top >= _LOG2_BLOCK:
            levels = min(FUSED_LEVELS, top - _LOG2_BLOCK + 1)
            low = top - levels + 1
            step = Params(total, total >> levels)
            step.add(1 << low, 0, levels, low)
            backend.launch_threads(step_kernel(words), [pairs], step, total >> levels)
            top = low - 1
        backend.launch(local_merge_kernel(words), [pairs], Params(total, total),
                       total // BLOCK)
    return pairs


# -- the family's interface (backend.FAMILIES) ----------------------------------------------------

PRIMITIVES = ("sort", "argsort")


def supports(prim: str, op, dt) -> bool:
    return dt in SORT_DTYPES


def capability(prim: str, dt) -> str:
    return "native" if supports(prim, None, dt) else "cpu"


def run(backend, prim: str, out, x, axis, descending) -> bool:
    if not native_ok(backend, out, x, axis):
        return False
    sort_along(backend, out, x, axis, descending, indices=prim == "argsort")
    return True
