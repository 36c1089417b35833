// Window reductions: out0[o] = the fold of in0 over output element o's window, from the
// window's first element in row-major order of its positions (window.py).
// Bindings: 0 P (uniform), 1 in0 (the padded input, read), 2 out0 (read_write).
// Params: the common block over the (collapsed) output shape with one operand: in0's window
// origins (offset, output strides times in0's strides).  Then, at operand_base(1u):
//   [0] nw, the window dims before the last, [1] outer = their positions, [2] inner = the last
//   window dim's size, [3] its step in in0 elements (dilation times stride), then per outer
//   window dim k in 1..nw: [2 + 2k] size, [3 + 2k] step.
// Dtypes: f32/i32/u32 one element per word; bool/u8/i8 four and u16/i16/f16/bf16 two per word,
// each invocation owning whole output words; int64/uint64/complex64 two words per element.
${header}

fn op(a: ${elem}, b: ${elem}) -> ${elem} {
    return ${fold};
}

fn load_x(idx: u32) -> ${elem} {
    return ${load};
}

fn window_value(i: u32) -> ${elem} {
    let origin = bitcast<i32>(strided_index(i, 0u));
    let base = operand_base(1u);
    let nw = prm(base);
    let outer = prm(base + 1u);
    let inner = prm(base + 2u);
    let step = prm_i(base + 3u);
    var acc = load_x(u32(origin));
    var j0 = 1u;  // the first element is acc already
    for (var k = 0u; k < outer; k = k + 1u) {
        var off = origin;
        var rem = k;
        for (var d = nw; d > 0u; d = d - 1u) {
            let n = prm(base + 2u + 2u * d);
            off += i32(rem % n) * prm_i(base + 3u + 2u * d);
            rem = rem / n;
        }
        off += i32(j0) * step;
        for (var j = j0; j < inner; j = j + 1u) {
            acc = op(acc, load_x(u32(off)));
            off += step;
        }
        j0 = 0u;
    }
    return acc;
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
${body}
}
