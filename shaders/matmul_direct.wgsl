// Batched matrix product without workgroup memory: out0[z, i, j] = sum over k of
// A[z, i, k] * B[z, k, j], for operands laid out for vec4 loads (B: unit column stride; A: unit
// k stride, mode "k", or unit row stride, mode "r"; every vec4 aligned; N and K multiples of 4).
// Bindings and params: those of matmul.wgsl (out0 and the loads as vec4 words here).
// Each 16x16 workgroup computes a (16 * ${rows})x(16 * ${cols}) output tile, each invocation a
// ${rows}x${cols} register tile (matmul.DIRECT_TILES) straight from the buffers: on CPU adapters
// (SwiftShader, lavapipe) the caches serve the reuse that workgroup tiles would, without their
// barriers.  Columns past N (N a multiple of 4, not of ${cols}) read the last vec4 of the row
// and are not stored.
// Accumulation is the same as matmul.wgsl's (fma in k order), so the results are the same bits.
// Dtypes: ${T} (f32, or u32 serving i32 and u32).
${header}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let g = wid.x + (wid.y + wid.z * nwg.y) * nwg.x;
    if (g >= prm(6u)) {
        return;
    }
    let M = prm(1u);
    let N = prm(2u);
    let K = prm(3u);
    let tn = g % prm(4u);
    let rest = g / prm(4u);
    let tm = rest % prm(5u);
    let z = rest / prm(5u);
    let bases = matmul_batch_bases(z);
    let a_base = bases.x;
    let b_base = bases.y;
    let a_sm = prm_i(9u);
    let a_sk = prm_i(10u);
    let b_sk = prm_i(12u);
    let col = tn * ${tile_cols}u + lid.x * ${cols}u;
    let row = tm * ${tile_rows}u + lid.y * ${rows}u;
    if (col >= N || row >= M) {
        return;
    }
    // rows past M read the last row (in bounds) and are not stored
${setup}
    var b_at = b_base + i32(col);
    for (var k = 0u; k < K; k = k + 4u) {
${body}
        b_at += 4 * b_sk;
    }
    let at = (z * M + row) * N + col;
${store}
}
