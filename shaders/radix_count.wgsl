// LSD radix sort (backends/webgpu/sort.py), the first pass of every digit: each invocation owns
// one chunk of one row (chunk c of row r: positions [c * chunk, (c + 1) * chunk) of the row) and
// counts the digits of its pairs in private counters, then writes them to its column of the
// digit table, laid out [row][digit][chunk] so that one exclusive scan of the whole table
// (radix_scan.wgsl) gives every (row, digit, chunk) its first output position.
// No atomics: the table's contents do not depend on the order invocations run in.
// Mode "${mode}":
//   "load":  the first digit: read the input view (in0), build each element's pair (the
//            order-preserving key, inverted for descending, then its index in the row) and
//            write it to out0 in place, counting the key's lowest digit;
//   "count": read the pairs (in0) and count the digit at bit `shift` of key word `word`.
// Pairs are PAIR_WORDS u32 words: the key words (high word first) and the index in the row.
// Bindings: 0 P (uniform), then (load) in0 the input view, out0 the pairs, out1 the table, or
// (count) in0 the pairs, out0 the table.
// Params: [1] elements, [2] threads = rows * chunks, the common block (load: operand 0 = the
// input view over the (rows, n) shape, axis last; count: ndim 0, no operand); then arg(0) n,
// arg(1) chunk length, arg(2) chunks per row, arg(3) rows, arg(4) shift, arg(5) key word,
// arg(6) descending (load only).
${header}

const BINS: u32 = ${bins}u;
const PAIR_WORDS: u32 = ${pair_words}u;

fn arg(k: u32) -> u32 {
    return prm(operand_base(${n_operands}u) + k);
}

// float32 bits -> u32 whose unsigned order is NumPy's sort order: -0.0 ties with +0.0 and
// every NaN (any sign or payload) ties above +inf.
fn f32_sort_key(b: u32) -> u32 {
    let mag = b & 0x7fffffffu;
    if (mag > 0x7f800000u) {
        return 0xffffffffu;
    }
    if (mag == 0u) {
        return 0x80000000u;
    }
    if (b >= 0x80000000u) {
        return ~b;
    }
    return b | 0x80000000u;
}

// The key word holding this pass's digit for the pair at position g of the row-major pairs.
fn digit_word(g: u32, p: u32) -> u32 {
${digit_word}
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    let chunks = arg(2u);
    if (t >= arg(3u) * chunks) {
        return;
    }
    let n = arg(0u);
    let r = t / chunks;
    let c = t - r * chunks;
    let start = c * arg(1u);
    let stop = min(n, start + arg(1u));
    let shift = arg(4u);
    var counts: array<u32, BINS>;
    for (var p = start; p < stop; p = p + 1u) {
        let d = (digit_word(r * n + p, p) >> shift) & (BINS - 1u);
        counts[d] = counts[d] + 1u;
    }
    for (var d = 0u; d < BINS; d = d + 1u) {
        ${table}[(r * BINS + d) * chunks + c] = counts[d];
    }
}
