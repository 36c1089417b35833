// Batched matrix product for small or skinny outputs: each work item is a strip of up to four
// output elements along a row or a column (sharing the other operand's loads: 5 loads per 4
// multiply-adds, not 8).  out0[z, i, j] = sum over k of A[z, i, k] * B[z, k, j]; the same
// parameters as matmul.wgsl (see there; slot 6 holds the number of work items here).
// Bindings: 0 P (uniform), 1 in0 = A (read, array<u32>), 2 in1 = B (read, array<u32>),
// 3 out0 (read_write, C-contiguous (batch, M, N)).
// Dtypes: ${T} (f32: fma in k order, and k runs on to a multiple of 16 with zero products, so
// the result has the tiled kernel's bits, signed zeros included; u32 also serves i32).
// A tiled kernel spends a 64x64 tile on an output with 3 columns; this one does no wasted work.
${header}

fn mac(a: vec4<${T}>, b: vec4<${T}>, acc: vec4<${T}>) -> vec4<${T}> {
    return ${mac};
}

// Work item t: ${lanes} output element(s) of one row (strip "j") or one column (strip "i"),
// consecutive along the strip; its operand's lanes past the matrix re-read the last row or
// column (their results are not stored).  The other operand's load serves every lane.
fn store_outputs(t: u32) {
    let M = prm(1u);
    let N = prm(2u);
    let K = prm(3u);
${locate}
    let bases = matmul_batch_bases(z);
    let a_sk = prm_i(10u);
    let b_sk = prm_i(12u);
    var a_at = bases.x + i32(i) * prm_i(9u);
    var b_at = bases.y + i32(j) * prm_i(13u);
${steps}
    var acc = vec4<${T}>();
    for (var k = 0u; k < K; k = k + 1u) {
        acc = mac(${load_a}, ${load_b}, acc);
        a_at += a_sk;
        b_at += b_sk;
    }
    for (var k = K; k % 16u != 0u; k = k + 1u) {
        acc = mac(vec4<${T}>(), vec4<${T}>(), acc);
    }
${stores}
}

// Each invocation computes up to kernels.ITEMS work items, a whole grid apart: software adapters
// pay per invocation far more than for a short loop.
${main}
