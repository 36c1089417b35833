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

// Each invocation computes up to kernels.ITEMS outputs, a whole grid apart: software adapters
// pay per invocation far more than for a short loop.
${main}
