// Shared helper functions prepended to webtensor compute shaders.
// Uniforms/bindings: none of its own; kernels define `opq` (see backends/webgpu/kernels.py).
// Dtypes: f32, i32, u32 (8/16-bit values arrive unpacked in u32).

// True if x is a NaN (exponent all ones, non-zero mantissa); bit-exact, independent of
// fast-math assumptions in the shader compiler.
fn is_nan_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// True if x is +inf or -inf.
fn is_inf_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

// A quiet NaN.  The bits go through a `var`: a constant expression that evaluates to NaN or
// infinity is a shader-creation error (https://www.w3.org/TR/WGSL/#floating-point-evaluation);
// browsers (Tint) reject it, naga does not.
fn nan_f32() -> f32 {
    var bits = 0x7fc00000u;
    return bitcast<f32>(bits);
}

fn inf_f32() -> f32 {
    var bits = 0x7f800000u;
    return bitcast<f32>(bits);
}

fn is_finite_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u;
}

// x != 0 by bits (NaN is non-zero, -0.0 is zero).
fn nonzero_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) != 0u;
}

fn sign_bit_f32(x: f32) -> bool {
    return (bitcast<u32>(x) >> 31u) != 0u;
}

fn abs_f32(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu);
}

fn neg_f32(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u);
}

fn copysign_f32(x: f32, s: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}

// 2^k as f32 for -126 <= k <= 127.
fn pow2_f32(k: i32) -> f32 {
    return bitcast<f32>(u32(k + 127) << 23u);
}

// A float32 value as the operation that made it rounded it.  GPU compilers fuse a multiply and
// an add into one fma (one rounding instead of two) wherever they meet, also across two ops of
// a compiled program, which would then differ from running the ops one by one; CPU adapters
// round every operation.  IEEE_ARITHMETIC (defined per adapter by WebGPUBackend._new_pipeline)
// keeps this free there.
fn rounded_f32(x: f32) -> f32 {
    if (IEEE_ARITHMETIC) {
        return x;
    }
    return opq(x);
}

// -- cheap forms of costly built-ins ---------------------------------------------------------------
// SwiftShader (Chromium's CPU adapter) spends about as long on one round(), float -> integer
// conversion or float min/max/clamp (their NaN rules) as on 10-25 multiply-adds, and on one
// countLeadingZeros as on 60; the library's hot paths use these forms instead (an add, a
// bitcast or a select each, as cheap on GPUs).

// round(x) (to nearest, ties to even) for |x| < 2^22: past 1.5 * 2^23 floats are integers, so
// the addition itself rounds.  The result is opaque too: a fast-math compiler would otherwise
// distribute a product over the subtraction (k * c -> s * c - 1.5 * 2^23 * c) and cancel.
fn round_small_f32(x: f32) -> f32 {
    return opq(opq(x + 0x1.8p23f) - 0x1.8p23f);
}

// The same, as an i32 (for integer-valued x: i32(x)).
fn round_small_i32(x: f32) -> i32 {
    return bitcast<i32>(opq(x + 0x1.8p23f)) - 0x4b400000;
}

// f32(k) for |k| < 2^22 (opaque, as round_small_f32).
fn small_i32_to_f32(k: i32) -> f32 {
    return opq(bitcast<f32>(k + 0x4b400000) - 0x1.8p23f);
}

// clamp(x, lo, hi) for lo <= hi; NaN stays NaN.  GPUs (IEEE_ARITHMETIC false) decide NaN on
// bits: NVIDIA's compiler turned the two selects into a min/max that returns lo for NaN.
fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let c = select(select(x, lo, x < lo), hi, x > hi);
    if (IEEE_ARITHMETIC) {
        return c;
    }
    return select(c, x, is_nan_f32(x));
}

fn clamp_i32(k: i32, lo: i32, hi: i32) -> i32 {
    return select(select(k, lo, k < lo), hi, k > hi);
}

// x * 2^k with one rounding, for x in [0.5, 4) and any k (overflow -> inf, underflow -> 0):
// 2^k in two normal factors where it is not one (the first product is exact then), chosen by
// selects (CPU adapters run both sides of a branch, and pay for the branch).
fn scale_f32(x: f32, k: i32) -> f32 {
    let k1 = clamp_i32(k, -126, 127);
    let k2 = clamp_i32(k - k1, -126, 127);
    let p = opq(x * pow2_f32(k1));
    return select(p * pow2_f32(k2), p, k2 == 0);
}

// -- integer -> float32, rounded to nearest even (WGSL leaves the direction unspecified) --------

fn u32_to_f32(u: u32) -> f32 {
    if (u < 0x1000000u) {
        return f32(u);
    }
    let s = 8u - countLeadingZeros(u);  // bits below the 24 kept
    var q = u >> s;
    let rem = u & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    if ((rem > half) | ((rem == half) & ((q & 1u) == 1u))) {
        q += 1u;
    }
    return f32(q) * pow2_f32(i32(s));
}

fn i32_to_f32(i: i32) -> f32 {
    let m = u32_to_f32(select(u32(i), 0u - u32(i), i < 0));
    return select(m, -m, i < 0);
}

// -- float32 -> integer: truncate, NaN -> 0, saturate (cpu_numpy._float_to_int) ----------------

fn f32_to_i32(x: f32) -> i32 {
    if (is_nan_f32(x)) {
        return 0;
    }
    if (x >= 2147483648.0) {
        return 2147483647;
    }
    if (x <= -2147483648.0) {
        return -2147483647 - 1;
    }
    return i32(trunc(x));
}

fn f32_to_u32(x: f32) -> u32 {
    if (is_nan_f32(x) | (x <= 0.0)) {
        return 0u;
    }
    if (x >= 4294967296.0) {
        return 0xffffffffu;
    }
    return u32(trunc(x));
}

// A float32 as an i32 ordered like the floats, -0.0 just below +0.0 (NaN: don't care).
fn f32_key(x: f32) -> i32 {
    let b = bitcast<i32>(x);
    return select(b, b ^ 0x7fffffff, b < 0);
}

fn f32_from_key(k: i32) -> f32 {
    return bitcast<f32>(select(k, k ^ 0x7fffffff, k < 0));
}
