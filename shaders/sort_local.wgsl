// Bitonic sort network over blocks of 1024 (key, index) pairs held in workgroup memory: the
// stages that fit in one workgroup of the multi-dispatch sort in backends/webgpu/sort.py.
// Keys are order-preserving u32 transforms of the values, so comparing (key, index) pairs as
// unsigned integers gives the stable order; every step is a compare-exchange of two pairs.
// Two modes (this kernel: "${mode}"):
//   "sort":  load row elements from the input view (in0), pad each row to its power-of-two
//            length with sentinels, then run every stage of size <= min(row, 1024);
//   "merge": load pairs from out0 and run the half-cleaner steps of span < 1024 that finish
//            a stage whose longer spans sort_step.wgsl did globally.
// Keys are u32, or vec2<u32> (high word, low word) for 64-bit elements; sort.py inserts the
// pair helpers (pair_after, read_pair_key, write_pair_key) and PAIR_WORDS.
// Bindings: 0 P (uniform), then in0 (the input view, "sort" only), out0 the pairs
// (PAIR_WORDS words each: the key words, then the index within the row).
// Params: [1] padded element count, [2] threads (unused), the common block with operand 0 =
// the input view over the (rows, n) shape (axis last); then arg(0) n = row length,
// arg(1) log2 of the padded row length, arg(2) descending (0/1).
${header}

const BLOCK: u32 = 1024u;
const HALF: u32 = 512u;
const THREADS: u32 = 256u;

var<workgroup> keys: array<${key_type}, 1024>;
var<workgroup> idxs: array<u32, 1024>;

${pairs}

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

struct Pair {
    key: ${key_type},
    idx: u32,
}

fn load_pair(g: u32) -> Pair {
${load}
}

fn compare_exchange(lo: u32, hi: u32) {
    let ka = keys[lo];
    let kb = keys[hi];
    let ia = idxs[lo];
    let ib = idxs[hi];
    if (pair_after(ka, ia, kb, ib)) {
        keys[lo] = kb;
        keys[hi] = ka;
        idxs[lo] = ib;
        idxs[hi] = ia;
    }
}

// Step over spans of 2 * half: "flip" pairs position q with 2 * half - 1 - q (the first step of
// a stage, which merges two ascending runs), otherwise q with q + half.
fn network_step(lid: u32, half: u32, flip: bool, count: u32) {
    for (var s = 0u; s < HALF / THREADS; s = s + 1u) {
        let p = lid + s * THREADS;
        let q = p % half;
        let start = (p / half) * 2u * half;
        let lo = start + q;
        var hi = lo + half;
        if (flip) {
            hi = start + 2u * half - 1u - q;
        }
        if (hi < count) {
            compare_exchange(lo, hi);
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let base = (wid.x + (wid.y + wid.z * nwg.y) * nwg.x) * BLOCK;
    let total = prm(1u);
    if (base >= total) {
        return;
    }
    let count = min(BLOCK, total - base);
    for (var s = 0u; s < BLOCK / THREADS; s = s + 1u) {
        let l = lid + s * THREADS;
        if (l < count) {
            let v = load_pair(base + l);
            keys[l] = v.key;
            idxs[l] = v.idx;
        }
    }
    workgroupBarrier();
${network}
    for (var s = 0u; s < BLOCK / THREADS; s = s + 1u) {
        let l = lid + s * THREADS;
        if (l < count) {
            write_pair_key(base + l, keys[l]);
            out0[PAIR_WORDS * (base + l) + PAIR_WORDS - 1u] = idxs[l];
        }
    }
}
