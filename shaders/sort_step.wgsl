// Global steps of the bitonic network in sort.py, for spans too long for one workgroup; the
// (key, index) pairs are compared in place.  Two kinds:
//   flip (the first step of a stage): one invocation per pair; position q of each span of
//     2 * low pairs with 2 * low - 1 - q;
//   half-cleaners: `levels` (1..3) consecutive steps of distance low * 2^(levels-1) down to
//     low, fused: each invocation owns the 2^levels pairs base + v * low (v < 2^levels) and
//     runs the steps in registers, so the pairs cross memory once instead of `levels` times.
// Bindings: 0 P (uniform), 1 out0 the pairs (PAIR_WORDS words each: key words, index;
// read_write).  Keys are u32 or vec2<u32> (64-bit); sort.py inserts the pair helpers.
// Params: [1] padded element count, [2] threads (count / 2 for flip, count >> levels
// otherwise), [3] 0, [4] low (a power of two), [5] flip (0/1), [6] levels, [7] log2(low).
${header}

${pairs}

fn read_idx(g: u32) -> u32 {
    return out0[PAIR_WORDS * g + PAIR_WORDS - 1u];
}

fn write_pair(g: u32, k: ${key_type}, i: u32) {
    write_pair_key(g, k);
    out0[PAIR_WORDS * g + PAIR_WORDS - 1u] = i;
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    let low = prm(4u);
    if (prm(5u) != 0u) {
        let q = t % low;
        let start = (t / low) * 2u * low;
        let lo = start + q;
        let hi = start + 2u * low - 1u - q;
        let ka = read_pair_key(lo);
        let kb = read_pair_key(hi);
        let ia = read_idx(lo);
        let ib = read_idx(hi);
        if (pair_after(ka, ia, kb, ib)) {
            write_pair(lo, kb, ib);
            write_pair(hi, ka, ia);
        }
        return;
    }
    let levels = prm(6u);
    let width = 1u << levels;
    // Insert `levels` zero bits at bit log2(low) of t: the first of this invocation's pairs.
    let base = (t & (low - 1u)) | ((t >> prm(7u)) << (prm(7u) + levels));
    var keys: array<${key_type}, 8>;
    var idxs: array<u32, 8>;
    for (var v = 0u; v < width; v = v + 1u) {
        let g = base + v * low;
        keys[v] = read_pair_key(g);
        idxs[v] = read_idx(g);
    }
    for (var d = levels; d > 0u; d = d - 1u) {
        let dist = 1u << (d - 1u);
        for (var v = 0u; v < width; v = v + 1u) {
            if ((v & dist) == 0u) {
                let w = v | dist;
                let ka = keys[v];
                let ia = idxs[v];
                if (pair_after(ka, ia, keys[w], idxs[w])) {
                    keys[v] = keys[w];
                    idxs[v] = idxs[w];
                    keys[w] = ka;
                    idxs[w] = ia;
                }
            }
        }
    }
    for (var v = 0u; v < width; v = v + 1u) {
        write_pair(base + v * low, keys[v], idxs[v]);
    }
}
