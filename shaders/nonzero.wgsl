// nonzero of a 1-D bool mask, sixteen bools (four mask words) per invocation.  Pass "count":
// out0[t] = invocation t's true elements.  Pass "write": with in1 = the inclusive scan of those
// counts, each invocation writes the indices (int64) of its true elements at their ranks among
// all of them.  No workgroup barriers: CPU adapters pay dearly for each.
// Bindings: 0 P (uniform), 1 in0 (the mask, from buffer word 0), [2 in1 (the scan)], then
// out0.  Params: [1] n (mask elements), [2] invocations.
${header}

// One bit per true element among the four bools of mask word w (none past the mask's end).
fn word_trues(w: u32) -> u32 {
    let n = prm(1u);
    if (4u * w >= n) {
        return 0u;
    }
    var x = in0[w];
    let valid = n - 4u * w;
    if (valid < 4u) {
        x = x & ((1u << (8u * valid)) - 1u);
    }
    x = x | (x >> 4u);
    x = x | (x >> 2u);
    x = x | (x >> 1u);
    return x & 0x01010101u;
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    var bits: array<u32, 4>;
    var c = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        bits[k] = word_trues(4u * t + k);
        c = c + countOneBits(bits[k]);
    }
${body}
}
