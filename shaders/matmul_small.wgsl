// Batched matrix product for small or skinny outputs: each output element is one work item.
// out0[z, i, j] = sum over k of A[z, i, k] * B[z, k, j]; the same parameters as matmul.wgsl
// (see there; slot 6 holds the number of output elements here).
// Bindings: 0 P (uniform), 1 in0 = A (read, array<u32>), 2 in1 = B (read, array<u32>),
// 3 out0 (read_write, C-contiguous (batch, M, N)).
// Dtypes: ${T} (f32: fma in k order, and k runs on to a multiple of 16 with zero products, so
// the result has the tiled kernel's bits, signed zeros included; u32 also serves i32).
// A tiled kernel spends a 64x64 tile on an output with 3 columns; this one does no wasted work.
${header}

fn mac(a: ${T}, b: ${T}, acc: ${T}) -> ${T} {
    return ${mac};
}

// Output element t (C order over (batch, M, N)).
fn store_output(t: u32) {
    let M = prm(1u);
    let N = prm(2u);
    let K = prm(3u);
    let j = t % N;
    let i = (t / N) % M;
    let bases = matmul_batch_bases(t / (M * N));
    let a_sk = prm_i(10u);
    let b_sk = prm_i(12u);
    var a_at = bases.x + i32(i) * prm_i(9u);
    var b_at = bases.y + i32(j) * prm_i(13u);
    var acc = ${T}();
    for (var k = 0u; k < K; k = k + 1u) {
        acc = mac(${load_a}, ${load_b}, acc);
        a_at += a_sk;
        b_at += b_sk;
    }
    for (var k = K; k % 16u != 0u; k = k + 1u) {
        acc = mac(${T}(), ${T}(), acc);
    }
    out0[t] = ${store};
}

// Each invocation computes up to kernels.ITEMS outputs, a whole grid apart: software adapters
// pay per invocation far more than for a short loop.
${main}
