// float16 and bfloat16 storage: 16-bit patterns (two per u32 word, NumPy's bytes) converted to
// and from the f32 the kernels compute in.  Widening is exact; narrowing rounds once to nearest
// even with integer arithmetic only, so it does not depend on the shader-f16 feature or on how a
// driver rounds pack2x16float (WGSL leaves that open), and subnormals are never flushed.
// Uniforms/bindings: none.  Dtypes: float16 / bfloat16 bits in the low 16 bits of a u32.

// float16 bits -> the same value as f32 (exact; NaN payloads kept).
fn f16_bits_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0x1fu) {
        return bitcast<f32>(sign | 0x7f800000u | (m << 13u));
    }
    if (e == 0u) {
        if (m == 0u) {
            return bitcast<f32>(sign);
        }
        // A subnormal m * 2^-24 is a normal f32: 2^(p - 24) * (m / 2^p), p the top bit of m.
        let p = 31u - countLeadingZeros(m);
        return bitcast<f32>(sign | ((p + 103u) << 23u) | ((m << (23u - p)) & 0x7fffffu));
    }
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

// f32 -> float16 bits, rounded to nearest even; overflow gives inf, NaN stays a quiet NaN.
fn f32_to_f16_bits(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    if (a > 0x7f800000u) {
        return sign | 0x7e00u | ((a >> 13u) & 0x3ffu);
    }
    if (a >= 0x477ff000u) {  // >= 65520 (half way from 65504 to 2^16): rounds to inf
        return sign | 0x7c00u;
    }
    if (a >= 0x38800000u) {  // >= 2^-14: normal; rebias the exponent by 127 - 15
        let r = a - 0x38000000u;
        return sign | ((r + 0xfffu + ((r >> 13u) & 1u)) >> 13u);
    }
    if (a < 0x33000000u) {  // < 2^-25 (at most half the smallest subnormal): +-0
        return sign;
    }
    // Subnormal result: the significand (implicit bit included) in units of 2^-24.
    let m = (a & 0x7fffffu) | 0x800000u;
    let shift = 126u - (a >> 23u);  // 14..24
    let half = 1u << (shift - 1u);
    return sign | ((m + half - 1u + ((m >> shift) & 1u)) >> shift);
}

fn f32_to_bf16_bits(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if ((b & 0x7fffffffu) > 0x7f800000u) {
        return (b >> 16u) | 0x40u;
    }
    return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

fn bf16_bits_to_f32(h: u32) -> f32 {
    return bitcast<f32>(h << 16u);
}

// nextafter in a 16-bit format (x, y exact values of it): the neighbour of x toward y; at
// x == y, y for bfloat16 and x for float16 (NumPy's float16 loop); the smallest subnormal of y's
// sign from +-0; NaN when either is NaN.  `bits` is x's 16-bit pattern, and the result a value
// of the format (storing it rounds exactly).  Decided on bits: bfloat16 subnormals are f32
// subnormals, which float compares may flush to zero.
fn nextafter16(x: f32, y: f32, bits: u32, is_bf16: bool) -> f32 {
    if (is_nan_f32(x) || is_nan_f32(y)) {
        return nan_f32();
    }
    let bx = bitcast<u32>(x);
    let by = bitcast<u32>(y);
    if (bx == by || ((bx | by) & 0x7fffffffu) == 0u) {
        return y;  // equal: y, as C99 and NumPy 2.5 (nextafter(0.0, -0.0) is -0.0)
    }
    var h = select(bits - 1u, bits + 1u, (f32_key(x) < f32_key(y)) != sign_bit_f32(x));
    if ((bx & 0x7fffffffu) == 0u) {
        h = select(0x0001u, 0x8001u, sign_bit_f32(y));
    }
    return select(f16_bits_to_f32(h), bf16_bits_to_f32(h), is_bf16);
}

fn nextafter_f16(x: f32, y: f32) -> f32 {
    return nextafter16(x, y, f32_to_f16_bits(x), false);
}

fn nextafter_bf16(x: f32, y: f32) -> f32 {
    return nextafter16(x, y, bitcast<u32>(x) >> 16u, true);
}
