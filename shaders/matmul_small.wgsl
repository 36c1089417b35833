// Batched matrix product for small or skinny outputs: one invocation per output element.
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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * 64u;
    if (t >= prm(6u)) {
        return;
    }
    let M = prm(1u);
    let N = prm(2u);
    let K = prm(3u);
    let j = t % N;
    let i = (t / N) % M;
    let bases = matmul_batch_bases(t / (M * N));
    var a_at = bases.x;
    var b_at = bases.y;
    let a_sk = prm_i(10u);
    let b_sk = prm_i(12u);
    a_at += i32(i) * prm_i(9u);
    b_at += i32(j) * prm_i(13u);
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
