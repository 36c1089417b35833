// What a heatmap needs of a tensor, in one pass: the mean of every sy x sx block of each slice
// of x (S, H0, W0), and the finite minimum, finite maximum and "is anything not finite" of all
// of it.  One invocation per block (cell); the statistics meet in three words through atomics.
// Bindings: 0 P (uniform), 1 in0 = x (read, its storage), 2 out0 (read_write, atomic words):
// [0] order key of the finite minimum (all ones: none), [1] of the finite maximum (0: none),
// [2] 1 when some value is NaN or infinite, [3] unused, then the cells' float32 bits in C order.
// Params: [1] cells, [2] cells, [3] 0, [4] hq, [5] wq, [6] sy, [7] sx, [8] H0, [9] W0,
// [10] x offset, [11..13] x strides (i32 bits) of the slice, row and column dims.
// Dtype: ${storage} elements, read as float32 (${convert}).
${header}

fn value(at: u32) -> f32 {
    let a = ${load};
    return ${convert};
}

// An unsigned key ordered like the floats (finite ones; -0.0 below +0.0).
fn order_key(v: f32) -> u32 {
    let b = bitcast<u32>(v);
    return select(b ^ 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (c >= prm(1u)) {
        return;
    }
    let hq = prm(4u);
    let wq = prm(5u);
    let sy = prm(6u);
    let sx = prm(7u);
    let slice = c / (hq * wq);
    let rest = c % (hq * wq);
    let y0 = (rest / wq) * sy;
    let x0 = (rest % wq) * sx;
    let ny = min(sy, prm(8u) - y0);
    let nx = min(sx, prm(9u) - x0);
    // each value is scaled before it is added, so a block near the float maximum stays finite
    let scale = 1.0 / f32(ny * nx);
    let s_row = prm_i(12u);
    let s_col = prm_i(13u);
    var sum = 0.0;
    var lo = 0xffffffffu;
    var hi = 0u;
    var bad = 0u;
    for (var y = 0u; y < ny; y = y + 1u) {
        var at = prm_i(10u) + i32(slice) * prm_i(11u) + i32(y0 + y) * s_row + i32(x0) * s_col;
        for (var x = 0u; x < nx; x = x + 1u) {
            let v = value(u32(at));
            sum = sum + v * scale;
            if ((bitcast<u32>(v) & 0x7f800000u) != 0x7f800000u) {
                let k = order_key(v);
                lo = min(lo, k);
                hi = max(hi, k);
            } else {
                bad = 1u;
            }
            at = at + s_col;
        }
    }
    atomicStore(&out0[4u + c], bitcast<u32>(sum));
    if (hi != 0u) {
        atomicMin(&out0[0], lo);
        atomicMax(&out0[1], hi);
    }
    if (bad != 0u) {
        atomicOr(&out0[2], 1u);
    }
}
