// Window reductions: out0[o] = the fold of in0 over output element o's window, from the
// window's first element in row-major order of its positions (window.py).
// Bindings: 0 P (uniform), 1 in0 (the padded input, read), 2 out0 (read_write).
// Params: the common block over the (collapsed) output shape with one operand: in0's window
// origins (offset, output strides times in0's strides).  Then, at operand_base(1u): [0] the
// innermost window dim's size and [1] its step in in0 elements (dilation times stride), then
// per outer window dim (outermost first) its size and step (the generated loops walk them).
// Dtypes: f32/i32/u32 one element per word; bool/u8/i8 four and u16/i16/f16/bf16 two per word,
// each invocation owning whole output words; int64/uint64/complex64 two words per element.
${header}

fn op(a: ${elem}, b: ${elem}) -> ${elem} {
    return ${fold};
}

fn load_x(idx: u32) -> ${elem} {
    return ${load};
}

// The fold of output element i's window: from its first element, positions in row-major
// order (nested loops, one per window dim: no division).
fn window_value(i: u32) -> ${elem} {
    let origin = bitcast<i32>(strided_index(i, 0u));
    let base = operand_base(1u);
    let inner = prm(base);
    let step = prm_i(base + 1u);
    var acc = load_x(u32(origin));
    var j0 = 1u;  // the first element is acc already
    let o0 = origin;
${loops}
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
