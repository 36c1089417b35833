// Inclusive scan along one axis: one invocation per (row, chunk) walks its chunk in order,
// starting from the accumulator of everything before the chunk (scan_carry.wgsl; identity for
// the first chunk), and writes the running result.  Long rows are cut into chunks so the work
// stays parallel and linear (reduce chunk -> scan the chunk totals -> rescan each chunk).
// Bindings: 0 P (uniform), 1 in0 (elements), [2 in1 (carry accumulators, 4 words each)],
// then out0 (result elements of 1 or 2 words, C-contiguous with the input's shape).
// Params: [1] rows, [2] len, [3] chunks per row, [4] chunk length, [5] offset,
// [6] input stride along the axis, [7] output stride along the axis, [8] nk, then kept shape
// (nk), kept input strides (nk), kept output strides (nk) (strides as i32 bits).
// Dtype: ${elem} input; the accumulator family is described in reduce_lib.wgsl.
${header}

${lib}

${ops}

fn load_element(i: u32) -> ${elem} {
    return ${load};
}

// (input offset, output offset) of row `row` (C order over the kept dims).
fn row_offsets(row: u32) -> vec2<i32> {
    let nk = prm(8u);
    var rem = row;
    var off = vec2<i32>(0, 0);
    for (var d = nk; d > 0u; d = d - 1u) {
        let n = prm(8u + d);
        let c = i32(rem % n);
        off += c * vec2<i32>(prm_i(8u + nk + d), prm_i(8u + 2u * nk + d));
        rem = rem / n;
    }
    return off;
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    let rows = prm(1u);
    let chunks = prm(3u);
    if (t >= rows * chunks) {
        return;
    }
    let row = t / chunks;
    let g = t % chunks;
    let len = prm(2u);
    let chunk = prm(4u);
    let offs = row_offsets(row);
    let x_base = prm_i(5u) + offs.x;
    let x_step = prm_i(6u);
    let out_step = prm_i(7u);
    var acc = ${start};
    let stop = min(len, (g + 1u) * chunk);
    for (var k = g * chunk; k < stop; k = k + 1u) {
        let x = load_element(u32(x_base + i32(k) * x_step));
        acc = acc_fold(acc, x, k);
        let o = u32(offs.y + i32(k) * out_step);
${store}
    }
}
