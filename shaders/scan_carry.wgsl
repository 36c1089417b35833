// The carries of a chunked scan: for every row, the exclusive running merge of its chunk
// accumulators (carry[g] = merge of chunks 0..g-1, the identity for g = 0).  One invocation per
// row; rows have few chunks (len / chunk length).
// Bindings: 0 P (uniform), 1 in0 (chunk accumulators, 4 words each), 2 out0 (carries, same).
// Params: [1] rows, [2] chunks per row.
${header}

${lib}

${ops}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (row >= prm(1u)) {
        return;
    }
    let chunks = prm(2u);
    var acc = acc_identity();
    for (var g = 0u; g < chunks; g = g + 1u) {
        let s = 4u * (row * chunks + g);
        out0[s] = acc.x;
        out0[s + 1u] = acc.y;
        out0[s + 2u] = acc.z;
        out0[s + 3u] = acc.w;
        acc = acc_merge(acc, vec4<u32>(in0[s], in0[s + 1u], in0[s + 2u], in0[s + 3u]));
    }
}
