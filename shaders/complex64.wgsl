// complex64 as vec2<f32>(re, im), computed the way the CPU device does: products and Smith's
// quotient with separately rounded float32 operations (`opq` keeps the shader compiler from
// fusing a multiply into an add, which would change the rounding), abs as a float32 hypot.
// Uniforms/bindings: none; needs prelude.wgsl (and float32.wgsl for hypot_f32).  Dtype: c64.

fn neg_c64(a: vec2<f32>) -> vec2<f32> {
    return bitcast<vec2<f32>>(bitcast<vec2<u32>>(a) ^ vec2<u32>(0x80000000u));
}

fn conj_c64(a: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x, neg_f32(a.y));
}

fn mul_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(opq(a.x * b.x) - opq(a.y * b.y), opq(a.x * b.y) + opq(a.y * b.x));
}

// NumPy's complex division loop (Smith's method), both branches as the CPU evaluates them.
fn div_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let abr = abs_f32(b.x);
    let abi = abs_f32(b.y);
    if (!is_nan_f32(b.x) && !is_nan_f32(b.y) && abr >= abi) {
        if (abr == 0.0 && abi == 0.0) {
            return vec2<f32>(a.x / abr, a.y / abr);
        }
        let rat = b.y / b.x;
        let scl = 1.0 / opq(b.x + opq(b.y * rat));
        return vec2<f32>(opq(a.x + opq(a.y * rat)) * scl, opq(a.y - opq(a.x * rat)) * scl);
    }
    let rat = b.x / b.y;
    let scl = 1.0 / opq(b.y + opq(b.x * rat));
    return vec2<f32>(opq(opq(a.x * rat) + a.y) * scl, opq(opq(a.y * rat) - a.x) * scl);
}

fn abs_c64(a: vec2<f32>) -> f32 {
    return hypot_f32(a.x, a.y);
}

fn nonzero_c64(a: vec2<f32>) -> bool {
    return nonzero_f32(a.x) || nonzero_f32(a.y);
}

fn eq_c64(a: vec2<f32>, b: vec2<f32>) -> bool {
    return eq_f32(a.x, b.x) && eq_f32(a.y, b.y);
}
