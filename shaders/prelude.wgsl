// Shared helper functions prepended to webtensor compute shaders.

// True if x is a NaN (exponent all ones, non-zero mantissa); bit-exact, independent of
// fast-math assumptions in the shader compiler.
fn is_nan_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// True if x is +inf or -inf.
fn is_inf_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

// A quiet NaN.
fn nan_f32() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}
