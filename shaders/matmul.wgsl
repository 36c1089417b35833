// Batched tiled matrix product: out0[z, i, j] = sum over k of A[z, i, k] * B[z, k, j].
// Bindings: 0 P (uniform), 1 in0 = A (read, array<${a_word}>), 2 in1 = B (read,
// array<${b_word}>), 3 out0 (read_write, C-contiguous (batch, M, N)).
// Params (u32 slots): [0] 0, [1] M, [2] N, [3] K, [4] column tiles, [5] row tiles,
// [6] workgroups in use, [7] batch dims, [8] A offset, [9] A row stride, [10] A k stride,
// [11] B offset, [12] B k stride, [13] B column stride (elements, i32 bits), then per batch
// dim d at 14 + 3d: its size, A stride, B stride.  Broadcast batch dims have stride 0.
// Dtypes: ${T} (f32 accumulates with fma in k order; u32 also serves i32: wrapping).
// Each 16x16 workgroup computes a 64x64 output tile, each invocation a 4x4 register tile.
// A and B pass through workgroup tiles of 16 k-steps stored k-major ([kk][row] and [kk][col]),
// so the inner loop reads one vec4 of each per step.  Loads are vec4 where the view allows
// (mode "r": unit stride along rows/columns, "k": unit stride along k), else scalar ("s").
${header}

const TILE: u32 = 64u;
const TK: u32 = 16u;

var<workgroup> tile_a: array<vec4<${T}>, 256>;  // TK x TILE, [kk][row / 4]
var<workgroup> tile_b: array<vec4<${T}>, 256>;  // TK x TILE, [kk][col / 4]

fn mac(a: ${T}, b: vec4<${T}>, acc: vec4<${T}>) -> vec4<${T}> {
    return ${mac};
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let g = wid.x + (wid.y + wid.z * nwg.y) * nwg.x;
    if (g >= prm(6u)) {
        return;  // the grid fold overshoots; whole workgroups leave, so barriers stay uniform
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
    let b_sn = prm_i(13u);
    let row0 = tm * TILE;
    let col0 = tn * TILE;

    var acc: array<vec4<${T}>, 4>;
    for (var k0 = 0u; k0 < K; k0 = k0 + TK) {
${load_a}
${load_b}
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk = kk + 1u) {
            let av = tile_a[kk * 16u + lid.y];
            let bv = tile_b[kk * 16u + lid.x];
            acc[0] = mac(av.x, bv, acc[0]);
            acc[1] = mac(av.y, bv, acc[1]);
            acc[2] = mac(av.z, bv, acc[2]);
            acc[3] = mac(av.w, bv, acc[3]);
        }
        workgroupBarrier();
    }

    for (var r = 0u; r < 4u; r = r + 1u) {
        let i = row0 + lid.y * 4u + r;
        if (i < M) {
            let out_row = (z * M + i) * N;
            for (var c = 0u; c < 4u; c = c + 1u) {
                let j = col0 + lid.x * 4u + c;
                if (j < N) {
                    out0[out_row + j] = ${store};
                }
            }
        }
    }
}
