// Batched tiled matrix product for the dtypes without a 32-bit kernel to take them (bool,
// int64/uint64, complex64; 8/16-bit ones are cast up: matmul.WIDENED):
// out0[z, i, j] = sum over k of A[z, i, k] * B[z, k, j].
// Bindings: 0 P (uniform), 1 in0 = A (read), 2 in1 = B (read), 3 out0 (read_write,
// C-contiguous (batch, M, N) in the dtype's storage; atomic words for packed dtypes).
// Params: the slots of matmul.wgsl ([1] M, [2] N, [3] K, [4] column tiles, [5] row tiles,
// [6] workgroups in use, [7] batch dims, [8..13] offsets and strides, 14 + 3d per batch dim).
// Accumulator ${T}, multiply-add `${mac}`; ${TK} k-steps per tile.
// Each 16x16 workgroup computes a 64x64 output tile, each invocation a 4x4 register tile of
// scalars; A and B pass through workgroup tiles stored k-major ([kk][row], [kk][col]), loaded
// element by element through the views' strides (the dtype's storage decides the words).
${header}

const TILE: u32 = 64u;
const TK: u32 = ${TK}u;

var<workgroup> tile_a: array<${T}, ${tile_elems}>;  // TK x TILE, [kk][row]
var<workgroup> tile_b: array<${T}, ${tile_elems}>;  // TK x TILE, [kk][col]

fn mac(a: ${T}, b: ${T}, acc: ${T}) -> ${T} {
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

    var acc: array<${T}, 16>;  // [r * 4 + c]
    for (var k0 = 0u; k0 < K; k0 = k0 + TK) {
${load_a}
${load_b}
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk = kk + 1u) {
            var av: array<${T}, 4>;
            var bv: array<${T}, 4>;
            for (var q = 0u; q < 4u; q = q + 1u) {
                av[q] = tile_a[kk * TILE + lid.y * 4u + q];
                bv[q] = tile_b[kk * TILE + lid.x * 4u + q];
            }
            for (var r = 0u; r < 4u; r = r + 1u) {
                for (var c = 0u; c < 4u; c = c + 1u) {
                    acc[r * 4u + c] = mac(av[r], bv[c], acc[r * 4u + c]);
                }
            }
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
                    let e = out_row + j;
                    let v = acc[r * 4u + c];
${store}
                }
            }
        }
    }
}
