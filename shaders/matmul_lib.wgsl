// Shared by the matmul kernels (matmul.wgsl, matmul_any.wgsl, matmul_direct.wgsl,
// matmul_small.wgsl; their parameter layout is matmul.wgsl's).

// The buffer offsets (A, B) where batch matrix z starts: the views' offsets plus z's index
// along each batch dim (C order) times that dim's strides.
fn matmul_batch_bases(z: u32) -> vec2<i32> {
    var bases = vec2<i32>(prm_i(8u), prm_i(11u));
    var left = z;
    for (var d = prm(7u); d > 0u; d = d - 1u) {
        let slot = 14u + 3u * (d - 1u);
        let size = prm(slot);
        let c = i32(left % size);
        left = left / size;
        bases += c * vec2<i32>(prm_i(slot + 1u), prm_i(slot + 2u));
    }
    return bases;
}
