// complex64 as vec2<f32>(re, im), computed the way the CPU device does: products and Smith's
// quotient with separately rounded float32 operations (`opq` keeps the shader compiler from
// fusing a multiply into an add, which would change the rounding), abs as a float32 hypot;
// the elementary functions and pow from float32 building blocks (normwise within a few eps of
// the CPU: tests/test_webgpu_complex.py), and the running product of reduce.py's cprod family.
// Uniforms/bindings: none; needs prelude.wgsl and float32.wgsl.  Dtype: c64.

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
            return vec2<f32>(div_f32(a.x, abr), div_f32(a.y, abr));
        }
        let rat = div_f32(b.y, b.x);
        let scl = div_f32(1.0, opq(b.x + opq(b.y * rat)));
        return vec2<f32>(opq(a.x + opq(a.y * rat)) * scl, opq(a.y - opq(a.x * rat)) * scl);
    }
    let rat = div_f32(b.x, b.y);
    let scl = div_f32(1.0, opq(b.y + opq(b.x * rat)));
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

// -- elementary functions ---------------------------------------------------------------------
// Float32 formulas on the float32.wgsl building blocks.  Special values (inf/NaN/signed zero in
// either part) follow C99 Annex G, which NumPy implements; where Annex G leaves a zero's or an
// infinity's sign unspecified we give what the formula gives.  Inputs beyond C64_HUGE take
// asymptotic forms so that 1 +- z and products of square roots never overflow.

const C64_HUGE: f32 = 0x1p60f;
const C64_LN2: f32 = 0x1.62e43p-1f;  // float32 nearest of ln 2 (hex: exact)
const C64_LOG2E: f32 = 0x1.715476p0f;
const C64_LOG10E: f32 = 0x1.bcb7b2p-2f;
const C64_HALF_PI: f32 = 0x1.921fb6p0f;

fn c64_max_abs(z: vec2<f32>) -> f32 {
    return bitcast<f32>(max(bitcast<u32>(abs_f32(z.x)), bitcast<u32>(abs_f32(z.y))));
}

// A part beyond C64_HUGE, infinite or NaN.
fn c64_far(z: vec2<f32>) -> bool {
    return max(bitcast<u32>(abs_f32(z.x)), bitcast<u32>(abs_f32(z.y))) > bitcast<u32>(C64_HUGE);
}

// -i * w, i * w: the rotations that turn sin into sinh, asin into asinh, ...
fn c64_times_minus_i(w: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(w.y, neg_f32(w.x));
}

fn c64_times_i(w: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(neg_f32(w.y), w.x);
}

// Principal square root, Kahan's formula on |x|, |y| (signs restored at the end), scaled by an
// even power of two so that neither |x| + |z| overflows nor the halving loses tiny bits.
fn sqrt_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (is_inf_f32(y)) {
        return vec2<f32>(inf_f32(), y);
    }
    if (is_nan_f32(x)) {
        return vec2<f32>(x, x);
    }
    if (is_inf_f32(x)) {
        if (!sign_bit_f32(x)) {
            return vec2<f32>(x, select(copysign_f32(0.0, y), y, is_nan_f32(y)));
        }
        return vec2<f32>(select(0.0, y, is_nan_f32(y)), copysign_f32(inf_f32(), y));
    }
    if (is_nan_f32(y)) {
        return vec2<f32>(y, y);
    }
    if (!nonzero_f32(x) && !nonzero_f32(y)) {
        return vec2<f32>(0.0, y);
    }
    var ax = abs_f32(x);
    var ay = abs_f32(y);
    let big = max(ax, ay);
    var unscale = 1.0;
    if (big >= 0x1p124f) {
        ax = ax * 0.25;
        ay = ay * 0.25;
        unscale = 2.0;
    } else if (big < 0x1p-100f) {
        ax = abs_scaled_up_f32(ax);
        ay = abs_scaled_up_f32(ay);
        unscale = 0x1p-50f;
    }
    let t = sqrt_f32(opq(opq(ax + hypot_f32(ax, ay)) * 0.5));
    let other = ay / (2.0 * t);
    if (!sign_bit_f32(x)) {
        return vec2<f32>(t * unscale, copysign_f32(other * unscale, y));
    }
    return vec2<f32>(other * unscale, copysign_f32(t * unscale, y));
}

// exp(x) * (cos y, sin y); exp(x / 2) twice where exp(x) alone would overflow.
fn c64_scaled_cis(x: f32, c: f32, s: f32) -> vec2<f32> {
    if (x > 88.0) {
        let h = exp_f32(0.5 * x);
        return vec2<f32>(opq(h * c) * h, opq(h * s) * h);
    }
    let e = exp_f32(x);
    return vec2<f32>(e * c, e * s);
}

fn exp_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (!nonzero_f32(y)) {
        return vec2<f32>(exp_f32(x), y);
    }
    if (is_inf_f32(x) && !is_finite_f32(y)) {
        if (sign_bit_f32(x)) {
            return vec2<f32>(0.0, copysign_f32(0.0, y));
        }
        return vec2<f32>(x, nan_f32());
    }
    return c64_scaled_cis(x, cos_f32(y), sin_f32(y));
}

// NumPy's expm1: (expm1(x) cos y - 2 sin^2(y / 2), exp(x) sin y); no cancellation in the real
// part beyond what the (larger) imaginary part hides.
fn expm1_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (!is_finite_f32(x) || !is_finite_f32(y)) {
        // the Array API's special values: exp's, less 1 (expm1(inf + 0i) = inf + 0i)
        let w = exp_c64(z);
        return vec2<f32>(w.x - 1.0, w.y);
    }
    if (x > 88.0) {
        return c64_scaled_cis(x, cos_f32(y), sin_f32(y));  // the - 2 sin^2(y / 2) is lost
    }
    let h = sin_f32(0.5 * y);
    let re = opq(expm1_f32(x) * cos_f32(y)) - opq(2.0 * h * h);
    return vec2<f32>(re, exp_f32(x) * sin_f32(y));
}

// log|z| without overflow or underflow; near |z| = 1 as log1p(|z|^2 - 1) / 2 with |z|^2 - 1
// summed exactly enough in float-float (no cancellation).
fn c64_log_abs(x: f32, y: f32) -> f32 {
    if (!is_finite_f32(x) || !is_finite_f32(y)) {
        return log_f32(hypot_f32(x, y));  // inf if either part is, else NaN
    }
    let ax = abs_f32(x);
    let ay = abs_f32(y);
    let hi = max(ax, ay);
    let lo = min(ax, ay);
    if (hi >= 0.5 && hi < 2.0) {
        let s = df_add(df_add(two_prod(hi, hi), vec2<f32>(-1.0, 0.0)), two_prod(lo, lo));
        return 0.5 * log1p_f32(s.x + s.y);
    }
    if (hi > 0x1p100f) {
        return log_f32(hypot_f32(hi * 0x1p-64f, lo * 0x1p-64f)) + 64.0 * C64_LN2;
    }
    if (hi < 0x1p-100f) {
        // both parts scaled up by 2^100 exactly (subnormals included)
        return log_f32(hypot_f32(abs_scaled_up_f32(hi), abs_scaled_up_f32(lo)))
            - 100.0 * C64_LN2;
    }
    return log_f32(hypot_f32(hi, lo));
}

fn log_c64(z: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(c64_log_abs(z.x, z.y), atan2_f32(z.y, z.x));
}

fn log2_c64(z: vec2<f32>) -> vec2<f32> {
    return log_c64(z) * C64_LOG2E;
}

fn log10_c64(z: vec2<f32>) -> vec2<f32> {
    return log_c64(z) * C64_LOG10E;
}

// log(1 + z): the real part as log1p(2x + x^2 + y^2) / 2 in float-float while |z| is moderate
// (exact cancellation near |1 + z| = 1), else log|1 + z|.
fn log1p_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let xp1 = opq(x + 1.0);
    let im = atan2_f32(y, xp1);
    if (!is_finite_f32(x) || !is_finite_f32(y) || c64_max_abs(z) > 0x1p20f) {
        return vec2<f32>(c64_log_abs(xp1, y), im);
    }
    if (c64_max_abs(z) < 0x1p-60f) {
        // log|1 + z| = x + (y^2 - x^2) / 2 + ...: x^2 is below half an ulp of x, y^2 need not
        // be (|x| << |y|); -0 + 0i gives +0 as log|1 + z| does
        return vec2<f32>(x + opq(0.5 * y * y), y);
    }
    let s = df_add(df_add(two_prod(x, x), two_prod(y, y)), vec2<f32>(2.0 * x, 0.0));
    if (s.x + s.y <= -0.5) {
        return vec2<f32>(c64_log_abs(xp1, y), im);  // 1 + x is exact there (Sterbenz)
    }
    return vec2<f32>(0.5 * log1p_f32(s.x + s.y), im);
}

// sinh(x + iy) = (sinh x cos y, cosh x sin y), e^|x| / 2 split in two where it overflows.
fn sinh_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (!nonzero_f32(y)) {
        return vec2<f32>(sinh_f32(x), y);
    }
    if (!is_finite_f32(y)) {
        if (is_inf_f32(x)) {
            return vec2<f32>(abs_f32(x), nan_f32());
        }
        if (!nonzero_f32(x)) {
            return vec2<f32>(x, nan_f32());
        }
        return vec2<f32>(nan_f32(), nan_f32());
    }
    let c = cos_f32(y);
    let s = sin_f32(y);
    if (abs_f32(x) > 88.0) {
        let w = c64_scaled_cis(abs_f32(x), 0.5 * c, 0.5 * s);
        return vec2<f32>(copysign_f32(1.0, x) * w.x, w.y);
    }
    return vec2<f32>(sinh_f32(x) * c, cosh_f32(x) * s);
}

// cosh(x + iy) = (cosh x cos y, sinh x sin y).
fn cosh_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (!nonzero_f32(y)) {
        if (is_nan_f32(x)) {
            return vec2<f32>(x, y);
        }
        return vec2<f32>(cosh_f32(x), copysign_f32(0.0, x) * copysign_f32(1.0, y));
    }
    if (!is_finite_f32(y)) {
        if (!nonzero_f32(x)) {
            return vec2<f32>(nan_f32(), 0.0);
        }
        if (is_inf_f32(x)) {
            return vec2<f32>(abs_f32(x), nan_f32());
        }
        return vec2<f32>(nan_f32(), nan_f32());
    }
    let c = cos_f32(y);
    let s = sin_f32(y);
    if (abs_f32(x) > 88.0) {
        let w = c64_scaled_cis(abs_f32(x), 0.5 * c, 0.5 * s);
        return vec2<f32>(w.x, copysign_f32(1.0, x) * w.y);
    }
    return vec2<f32>(cosh_f32(x) * c, sinh_f32(x) * s);
}

// Kahan's tanh: with t = tan y, b = 1 + t^2, s = sinh x, r = sqrt(1 + s^2):
// tanh z = (b r s + i t) / (1 + b s^2); for |x| > 9 tanh x rounds to +-1 and the imaginary part
// is 4 sin y cos y e^(-2|x|).
fn tanh_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (is_nan_f32(x)) {
        return vec2<f32>(x, select(x, y, !nonzero_f32(y)));
    }
    if (is_inf_f32(x)) {
        if (!is_finite_f32(y)) {
            return vec2<f32>(copysign_f32(1.0, x), copysign_f32(0.0, y));
        }
        return vec2<f32>(copysign_f32(1.0, x), copysign_f32(0.0, sin_f32(y) * cos_f32(y)));
    }
    if (!is_finite_f32(y)) {
        if (!nonzero_f32(x)) {
            return vec2<f32>(x, nan_f32());
        }
        return vec2<f32>(nan_f32(), nan_f32());
    }
    if (abs_f32(x) > 9.0) {
        let e = exp_f32(-abs_f32(x));
        return vec2<f32>(copysign_f32(1.0, x), opq(opq(4.0 * sin_f32(y)) * cos_f32(y)) * e * e);
    }
    let t = tan_f32(y);
    let b = 1.0 + t * t;
    let s = sinh_f32(x);
    let r = sqrt_f32(1.0 + s * s);
    let d = 1.0 + b * s * s;
    return vec2<f32>(opq(b * r) * s / d, t / d);
}

// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz) (Annex G defines them so).
fn sin_c64(z: vec2<f32>) -> vec2<f32> {
    if (is_inf_f32(z.y) && !is_finite_f32(z.x)) {
        return vec2<f32>(nan_f32(), abs_f32(z.y));  // Annex G leaves the sign open; NumPy's
    }
    return c64_times_minus_i(sinh_c64(c64_times_i(z)));
}

fn cos_c64(z: vec2<f32>) -> vec2<f32> {
    return cosh_c64(c64_times_i(z));
}

fn tan_c64(z: vec2<f32>) -> vec2<f32> {
    return c64_times_minus_i(tanh_c64(c64_times_i(z)));
}

// asinh for |z| > C64_HUGE (and infinities): log(2z) on the side of z's real part.
fn c64_asinh_far(z: vec2<f32>) -> vec2<f32> {
    let r = c64_log_abs(z.x, z.y) + C64_LN2;
    return vec2<f32>(copysign_f32(r, z.x), atan2_f32(z.y, abs_f32(z.x)));
}

// Kahan's asin: (atan2(x, Re(sqrt(1 - z) sqrt(1 + z))), asinh(Im(conj(sqrt(1 - z)) sqrt(1 + z)))).
fn asin_c64(z: vec2<f32>) -> vec2<f32> {
    if (!nonzero_f32(z.x) && is_nan_f32(z.y)) {
        return z;
    }
    if (c64_far(z)) {  // the asymptotic form also gives Annex G's inf/NaN results
        return c64_times_minus_i(c64_asinh_far(c64_times_i(z)));
    }
    let a = sqrt_c64(vec2<f32>(1.0 - z.x, neg_f32(z.y)));
    let b = sqrt_c64(vec2<f32>(1.0 + z.x, z.y));
    let re = opq(a.x * b.x) - opq(a.y * b.y);
    let im = opq(a.x * b.y) - opq(a.y * b.x);
    return vec2<f32>(atan2_f32(z.x, re), asinh_f32(im));
}

fn asinh_c64(z: vec2<f32>) -> vec2<f32> {
    return c64_times_minus_i(asin_c64(c64_times_i(z)));
}

// Kahan's acos: (2 atan2(Re sqrt(1 - z), Re sqrt(1 + z)), asinh(Im(conj(sqrt(1 + z)) sqrt(1 - z)))).
fn acos_c64(z: vec2<f32>) -> vec2<f32> {
    if (!nonzero_f32(z.x) && is_nan_f32(z.y)) {
        return vec2<f32>(C64_HALF_PI, z.y);
    }
    if (c64_far(z)) {
        // pi/2 - asin z with the real part as atan2(|y|, x): no cancellation for x >> |y|
        let l = c64_log_abs(z.x, z.y) + C64_LN2;
        return vec2<f32>(atan2_f32(abs_f32(z.y), z.x), neg_f32(copysign_f32(l, z.y)));
    }
    let a = sqrt_c64(vec2<f32>(1.0 - z.x, neg_f32(z.y)));
    let b = sqrt_c64(vec2<f32>(1.0 + z.x, z.y));
    let im = opq(b.x * a.y) - opq(b.y * a.x);
    return vec2<f32>(2.0 * atan2_f32(a.x, b.x), asinh_f32(im));
}

// Kahan's acosh: (asinh(Re(conj(sqrt(z - 1)) sqrt(z + 1))), 2 atan2(Im sqrt(z - 1), Re sqrt(z + 1))).
fn acosh_c64(z: vec2<f32>) -> vec2<f32> {
    if (!nonzero_f32(z.x) && is_nan_f32(z.y)) {
        return vec2<f32>(z.y, C64_HALF_PI);
    }
    if (c64_far(z)) {  // log(2z); Annex G's inf/NaN results included
        return vec2<f32>(c64_log_abs(z.x, z.y) + C64_LN2, atan2_f32(z.y, z.x));
    }
    let a = sqrt_c64(vec2<f32>(z.x - 1.0, z.y));
    let b = sqrt_c64(vec2<f32>(z.x + 1.0, z.y));
    let re = opq(a.x * b.x) + opq(a.y * b.y);
    return vec2<f32>(asinh_f32(re), 2.0 * atan2_f32(a.y, b.x));
}

// atanh on |x|, |y| (odd in x, conjugate-symmetric; signs restored at the end):
// (log1p(4|x| / ((1 - |x|)^2 + y^2)) / 4, atan2(2|y|, 1 - x^2 - y^2) / 2) with 1 - x^2 - y^2
// summed in float-float; beyond C64_HUGE, (|x| / |z|^2, pi / 2).
fn atanh_c64(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (!nonzero_f32(x)) {
        return vec2<f32>(x, atan_f32(y));
    }
    let ax = abs_f32(x);
    let ay = abs_f32(y);
    var re: f32;
    var im: f32;
    if (is_inf_f32(ax) || is_inf_f32(ay)) {
        re = 0.0;
        im = select(C64_HALF_PI, y, is_nan_f32(y));
    } else if (is_nan_f32(ax) || is_nan_f32(ay)) {
        return vec2<f32>(nan_f32(), nan_f32());
    } else if (c64_max_abs(z) > C64_HUGE) {
        let h = hypot_f32(ax, ay);
        re = ax / h / h;
        im = C64_HALF_PI;
    } else {
        let omx = 1.0 - ax;
        re = 0.25 * log1p_f32(4.0 * ax / opq(opq(omx * omx) + opq(ay * ay)));
        let p = two_prod(ax, ax);
        let q = two_prod(ay, ay);
        let d = df_add(df_add(vec2<f32>(1.0, 0.0), -p), -q);
        im = 0.5 * atan2_f32(2.0 * ay, d.x + d.y);
    }
    return vec2<f32>(copysign_f32(re, x), copysign_f32(im, y));
}

fn atan_c64(z: vec2<f32>) -> vec2<f32> {
    return c64_times_minus_i(atanh_c64(c64_times_i(z)));
}

// z / |z| (the CPU's formula: the float32 magnitude, then two divisions); 0 stays 0.
fn sign_c64(z: vec2<f32>) -> vec2<f32> {
    if (is_nan_f32(z.x) || is_nan_f32(z.y)) {
        return vec2<f32>(nan_f32(), nan_f32());  // the Array API: NaN + NaN j
    }
    let m = abs_c64(z);
    if (m == 0.0) {
        return vec2<f32>(0.0, 0.0);
    }
    return vec2<f32>(div_f32(z.x, m), div_f32(z.y, m));
}

// Complex power, the steps of every device (_pyops.cpow1): 1 for a zero exponent; 0 ** b is 0
// where Re b > 0, else NaN; a real integer exponent below 2^32 in magnitude by binary powering
// (then 1 / a^|n|), exact where the powers are representable; else exp(b log a).
fn pow_c64(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    if (!nonzero_f32(b.x) && !nonzero_f32(b.y)) {
        return vec2<f32>(1.0, 0.0);
    }
    if (!nonzero_f32(a.x) && !nonzero_f32(a.y)) {
        if (b.x > 0.0) {
            return vec2<f32>(0.0, 0.0);
        }
        return vec2<f32>(nan_f32(), nan_f32());
    }
    if (!nonzero_f32(b.y) && b.x == trunc(b.x) && abs_f32(b.x) < 4294967296.0) {
        // NumPy's loop: the set bits of |n| from the lowest, the first one without a * 1
        var n = u32(abs_f32(b.x));
        var p = a;
        while ((n & 1u) == 0u) {
            p = mul_c64(p, p);
            n = n >> 1u;
        }
        var acc = p;
        n = n >> 1u;
        while (n != 0u) {
            p = mul_c64(p, p);
            if ((n & 1u) != 0u) {
                acc = mul_c64(acc, p);
            }
            n = n >> 1u;
        }
        let finite_a = is_finite_f32(a.x) && is_finite_f32(a.y);
        if (finite_a && !(is_finite_f32(acc.x) && is_finite_f32(acc.y))) {
            // float32 overflowed where the CPU's float64 product did not: exp(b log a) gives
            // the overflow (or, for n < 0, the underflow) of the result itself
            return exp_c64(c64_mul_recovering(b, log_c64(a)));
        }
        if (b.x < 0.0) {
            return div_c64(vec2<f32>(1.0, opq(0.0)), acc);
        }
        return acc;
    }
    return exp_c64(c64_mul_recovering(b, log_c64(a)));
}

// inf -> +-1 and NaN -> +-0 (the sign kept), for c64_mul_recovering.
fn c64_unit_if_inf(v: f32) -> f32 {
    return copysign_f32(select(0.0, 1.0, is_inf_f32(v)), v);
}

fn c64_zero_if_nan(v: f32) -> f32 {
    return select(v, copysign_f32(0.0, v), is_nan_f32(v));
}

// C99 Annex G's multiplication (what the C library's cpow uses): the plain product, but where
// both parts come out NaN and an operand or a partial product is infinite, the infinity is
// recovered (inf * (a nonzero finite) stays inf).
fn c64_mul_recovering(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let ac = opq(a.x * b.x);
    let bd = opq(a.y * b.y);
    let ad = opq(a.x * b.y);
    let bc = opq(a.y * b.x);
    let plain = vec2<f32>(ac - bd, ad + bc);
    if (!is_nan_f32(plain.x) || !is_nan_f32(plain.y)) {
        return plain;
    }
    var p = a;
    var q = b;
    var recalc = false;
    if (is_inf_f32(p.x) || is_inf_f32(p.y)) {
        p = vec2<f32>(c64_unit_if_inf(p.x), c64_unit_if_inf(p.y));
        q = vec2<f32>(c64_zero_if_nan(q.x), c64_zero_if_nan(q.y));
        recalc = true;
    }
    if (is_inf_f32(q.x) || is_inf_f32(q.y)) {
        q = vec2<f32>(c64_unit_if_inf(q.x), c64_unit_if_inf(q.y));
        p = vec2<f32>(c64_zero_if_nan(p.x), c64_zero_if_nan(p.y));
        recalc = true;
    }
    if (!recalc && (is_inf_f32(ac) || is_inf_f32(bd) || is_inf_f32(ad) || is_inf_f32(bc))) {
        p = vec2<f32>(c64_zero_if_nan(p.x), c64_zero_if_nan(p.y));
        q = vec2<f32>(c64_zero_if_nan(q.x), c64_zero_if_nan(q.y));
        recalc = true;
    }
    if (!recalc) {
        return plain;
    }
    let inf = inf_f32();
    return vec2<f32>(inf * (opq(p.x * q.x) - opq(p.y * q.y)),
                     inf * (opq(p.x * q.y) + opq(p.y * q.x)));
}

// -- products of many values (reduce.py's cprod family: prod, cumulative prod) ----------------
// Accumulator (re, im, e, empty): the value (re + i im) * 2^e with max(|re|, |im|) in [0.5, 1),
// or with a zero/inf/NaN part kept unscaled, so the running product never over/underflows
// float32 between factors; `empty` marks the identity (1 * inf would give a NaN part).
fn cprod_pack(v: vec2<f32>, e: i32) -> vec4<u32> {
    if (!is_finite_f32(v.x) || !is_finite_f32(v.y) || (!nonzero_f32(v.x) && !nonzero_f32(v.y))) {
        return vec4<u32>(bitcast<vec2<u32>>(v), bitcast<u32>(e), 0u);
    }
    let k = frexp(max(abs_f32(v.x), abs_f32(v.y))).exp;
    return vec4<u32>(bitcast<vec2<u32>>(ldexp(v, vec2<i32>(-k))), bitcast<u32>(e + k), 0u);
}

fn cprod_lift(x: vec2<f32>) -> vec4<u32> {
    return cprod_pack(x, 0);
}

fn cprod_merge(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    if (a.w != 0u) {
        return b;
    }
    if (b.w != 0u) {
        return a;
    }
    let p = mul_c64(bitcast<vec2<f32>>(a.xy), bitcast<vec2<f32>>(b.xy));
    return cprod_pack(p, bitcast<i32>(a.z) + bitcast<i32>(b.z));
}

// c * 2^e rounded once (inf past float32's range, 0 below it); zero/inf/NaN stay.
fn cprod_part(c: f32, e: i32) -> f32 {
    if (!nonzero_f32(c) || !is_finite_f32(c)) {
        return c;
    }
    let f = frexp(abs_f32(c));
    return copysign_f32(scale_f32(f.fract, f.exp + e), c);
}

fn cprod_out(a: vec4<u32>) -> vec2<u32> {
    if (a.w != 0u) {
        return vec2<u32>(0x3f800000u, 0u);
    }
    let e = bitcast<i32>(a.z);
    return bitcast<vec2<u32>>(vec2<f32>(cprod_part(bitcast<f32>(a.x), e),
                                        cprod_part(bitcast<f32>(a.y), e)));
}
