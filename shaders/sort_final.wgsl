// Last pass of the sort in sort.py: element p of row r of the result is the pair at position
// r * stride + p (stride: the bitonic network's padded row, the row length for radix); write
// its index (argsort, int64) or the input element it names (sort: the original bits, so NaN
// payloads and the sign of zero survive).
// Bindings: 0 P (uniform), in0 the pairs (${pair_words} words each, the index last), then in1
// the input view (sort only), out0 the result.
// Params: [1] element count, [2] threads = count, the common block over the (rows, n) shape
// with operand 0 = the input view, operand 1 = the result view; then arg(0) n = row length,
// arg(1) the pairs' row stride.
${header}

fn arg(k: u32) -> u32 {
    return prm(operand_base(2u) + k);
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (e >= prm(2u)) {
        return;
    }
    let n = arg(0u);
    let r = e / n;
    let idx = in0[${pair_words}u * (r * arg(1u) + e % n) + ${pair_words}u - 1u];
    let o = ${out_index}(e, 1u);
${store}
}
