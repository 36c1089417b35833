// LSD radix sort (backends/webgpu/sort.py), the last pass of every digit: each invocation walks
// the same chunk as radix_count.wgsl in order, starting each digit at the position the scanned
// digit table gives its (row, digit, chunk), and moves every pair to the next position of its
// digit.  Chunks of a row take positions in chunk order and a chunk's pairs in their order, so
// the pass is stable, which makes the whole sort stable.
// Bindings: 0 P (uniform), 1 in0 the pairs, 2 in1 the scanned table ([row][digit][chunk]: the
// first output pair of each), 3 out0 the pairs in digit order.
// Params: [1] elements, [2] threads = rows * chunks, [3] ndim 0; then arg(0) n, arg(1) chunk
// length, arg(2) chunks per row, arg(3) rows, arg(4) shift, arg(5) key word.
${header}

const BINS: u32 = ${bins}u;
const PAIR_WORDS: u32 = ${pair_words}u;

fn arg(k: u32) -> u32 {
    return prm(4u + k);
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
    let word = arg(5u);
    var next: array<u32, BINS>;
    for (var d = 0u; d < BINS; d = d + 1u) {
        next[d] = in1[(r * BINS + d) * chunks + c];
    }
    for (var p = start; p < stop; p = p + 1u) {
        let s = PAIR_WORDS * (r * n + p);
        let d = (in0[s + word] >> shift) & (BINS - 1u);
        let o = PAIR_WORDS * next[d];
        next[d] = next[d] + 1u;
        for (var w = 0u; w < PAIR_WORDS; w = w + 1u) {
            out0[o + w] = in0[s + w];
        }
    }
}
