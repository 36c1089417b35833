// Float32 arithmetic with NumPy's semantics and transcendental functions within ~1-2 ULP of the
// correctly rounded result (the CPU device computes them in float64 and rounds once).
// Uniforms/bindings: none; needs prelude.wgsl and the kernel's `opq`.  Dtype: f32.
//
// NOTE: WGSL builtins are too loose for this (exp: 3 + 2|x| ULP, atan: 4096 ULP, sin/cos bounded
// only on [-pi, pi]) and shader compilers apply fast-math rewrites (lavapipe folds
// `(a + b) - a` to `b`).  Every value whose rounding error is recovered later goes through
// `opq`, an identity the compiler cannot see through.  Polynomials are Taylor series (exact
// coefficients rounded to f32) on small reduced ranges; range reductions use float-float
// ("df": hi + lo) arithmetic with exact products from 12-bit splits.
//
// Subnormals: WGSL lets an adapter flush float32 subnormal operands and results of arithmetic
// and comparisons to zero (SwiftShader does, lavapipe does not).  Decisions here are taken on
// bits (is_tiny_f32, cmp_key_f32, nonzero_f32), subnormal inputs are normalised by integer
// operations before any arithmetic, and tiny arguments return early, so every result that is
// not itself subnormal is the same on both kinds of adapter.  A subnormal *result* of
// arithmetic (1 / 3e38, exp(-100), 1e-30 * 1e-10) is 0 where the adapter flushes.

// -- subnormal-safe building blocks ---------------------------------------------------------------

// True for +-0 and the subnormals (|x| < 2^-126), decided on bits.
fn is_tiny_f32(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) < 0x00800000u;
}

// b 2^-23 for a subnormal's bits b (an integer < 2^23): (1 + b 2^-23) - 1, exact and a normal
// float, so no subnormal operand meets arithmetic that could flush it (and no int -> float
// conversion, slow on SwiftShader).
fn subnormal_significand_f32(b: u32) -> f32 {
    return bitcast<f32>(b | 0x3f800000u) - 1.0;
}

// |x| * 2^100 exactly, for |x| < 2^27: a subnormal's significand times 2^-49.
fn abs_scaled_up_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x) & 0x7fffffffu;
    let sub = subnormal_significand_f32(b) * 0x1p-26f;
    return select(bitcast<f32>(b) * 0x1p100f, sub, b < 0x00800000u);
}

// An i32 ordered like the float values, -0.0 equal to +0.0 (NaN: don't care): comparisons on
// integers see subnormals that a flushing float compare would take for zero.
fn cmp_key_f32(x: f32) -> i32 {
    let b = bitcast<i32>(x);
    return select(b, -(b & 0x7fffffff), b < 0);
}

// -- division and square root rounded once ---------------------------------------------------------
// WGSL lets `/` be off by 2.5 ULP and sqrt by more, and GPUs use that: NVIDIA's Vulkan driver
// divides through a reciprocal (3e38 / 3e38 == 0: the reciprocal is subnormal and flushes) and
// its sqrt is off by an ULP now and then (seen on an H200).  CPU adapters (lavapipe,
// SwiftShader) round both correctly.  IEEE_ARITHMETIC is the backend's word on that per
// adapter (WebGPUBackend._new_pipeline defines it): true keeps the built-ins, false takes the
// integer forms below, which give the correctly rounded result on any adapter (subnormals
// included).

// a / b rounded to nearest even.
fn div_f32(a: f32, b: f32) -> f32 {
    if (IEEE_ARITHMETIC) {
        return a / b;
    }
    return div_exact_f32(a, b);
}

// The significand (24 bits, leading bit set) and biased exponent of a finite non-zero |x| with
// bits xb (a subnormal's exponent is below 1).
fn unpack_f32(xb: u32) -> vec2<i32> {
    let e = i32(xb >> 23u);
    if (e == 0) {
        let s = countLeadingZeros(xb) - 8u;
        return vec2<i32>(i32(xb << s), 1 - i32(s));
    }
    return vec2<i32>(i32((xb & 0x007fffffu) | 0x00800000u), e);
}

// Round the q * 2^-shift part of a result to nearest even: q holds the result's significand
// bits above `shift` (shift in 1..26), more_below says whether anything non-zero lies below q.
fn round_bits_f32(q: u32, shift: u32, more_below: bool) -> u32 {
    let kept = q >> shift;
    let rest = q & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    let up = (rest > half) | ((rest == half) & (more_below | ((kept & 1u) != 0u)));
    return kept + select(0u, 1u, up);
}

// The float with sign bit `sign` and value q * 2^(biased - 151) for q in [2^24, 2^25) (a guard
// bit below the significand), rounded once (to a subnormal, 0 or inf where it lands there).
fn compose_f32(sign: u32, q: u32, biased: i32, more_below: bool) -> f32 {
    if (biased >= 255) {
        return bitcast<f32>(sign | 0x7f800000u);
    }
    let shift = u32(clamp(2 - biased, 1, 26));
    let base = select(0u, u32(biased - 1) << 23u, biased > 0);
    // a carry out of the significand steps the exponent (up to inf), as it should
    return bitcast<f32>(sign | (base + round_bits_f32(q, shift, more_below)));
}

fn div_exact_f32(a: f32, b: f32) -> f32 {
    let ua = bitcast<u32>(a);
    let ub = bitcast<u32>(b);
    let xa = ua & 0x7fffffffu;
    let xb = ub & 0x7fffffffu;
    let sign = (ua ^ ub) & 0x80000000u;
    if (((xa - 1u) >= 0x7f7fffffu) | ((xb - 1u) >= 0x7f7fffffu)) {
        // a zero, an infinity or a NaN: 0 / 0, inf / inf and NaNs as the built-in gives them;
        // the others by their bits (a subnormal the built-in may flush is non-zero here)
        let zero_over_zero = (xa == 0u) & (xb == 0u);
        let inf_over_inf = (xa == 0x7f800000u) & (xb == 0x7f800000u);
        if (is_nan_f32(a) | is_nan_f32(b) | zero_over_zero | inf_over_inf) {
            return a / b;
        }
        return bitcast<f32>(sign | select(0u, 0x7f800000u, (xa == 0x7f800000u) | (xb == 0u)));
    }
    let pa = unpack_f32(xa);
    let pb = unpack_f32(xb);
    let mb = u32(pb.x);
    var n = u32(pa.x);
    var e = pa.y - pb.y + 127;
    if (n < mb) {  // n / mb in [1, 2)
        n = n << 1u;
        e -= 1;
    }
    // q = floor(n 2^24 / mb) in [2^24, 2^25): a leading 1, then three 8-bit digits
    var r = n - mb;
    var q = 1u;
    for (var i = 0; i < 3; i++) {
        let t = r << 8u;
        let d = t / mb;
        r = t - d * mb;
        q = (q << 8u) | d;
    }
    return compose_f32(sign, q, e, r != 0u);
}

// (lo, hi) = v * v for v < 2^26, as 64 bits.  (int64.wgsl's mul_u64/lt_u64 do as much, but
// calling them would append int64.wgsl and int32.wgsl to every kernel that takes float32.wgsl:
// longer compiles on CPU adapters for code only GPUs run.)
fn square_u64(v: u32) -> vec2<u32> {
    let h = v >> 16u;
    let l = v & 0xffffu;
    let mid = 2u * h * l;
    let lo = l * l;
    let lo2 = lo + (mid << 16u);
    return vec2<u32>(lo2, h * h + (mid >> 16u) + select(0u, 1u, lo2 < lo));
}

fn less_u64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return (a.y < b.y) | ((a.y == b.y) & (a.x < b.x));
}

// sqrt(X) rounded to the nearest integer, for X in [2^46, 2^48) given as 4X (64 bits) and an
// estimate within 3 of it: (2 r + 1)^2 < 4X puts the root above r + 1/2, (2 r - 1)^2 > 4X below
// r - 1/2 (never equal: an odd square is not 4X).
fn nearest_root_u32(four_x: vec2<u32>, estimate: u32) -> u32 {
    var root = estimate;
    for (var i = 0; i < 3; i++) {
        let up = less_u64(square_u64(2u * root + 1u), four_x);
        let down = less_u64(four_x, square_u64(2u * root - 1u));
        if (!(up | down)) {
            break;  // the usual case after one test: the built-in's root was right
        }
        root = root + select(0u, 1u, up) - select(0u, 1u, down);
    }
    return root;
}

// The built-in's sqrt, also of subnormals (the built-in sees a flushed one as +-0):
// sqrt(x 2^100) 2^-50 scales exactly.
fn sqrt_builtin_f32(x: f32) -> f32 {
    let sub = is_tiny_f32(x) & nonzero_f32(x);
    let r = sqrt(select(x, abs_scaled_up_f32(x), sub));
    return select(r, select(r * 0x1p-50f, nan_f32(), sign_bit_f32(x)), sub);
}

// sqrt rounded to nearest even, also of subnormals: the built-in's root of the significand
// (scaled to an integer in [2^46, 2^48), so its root is in [2^23, 2^24)) corrected by exact
// integer tests against the midpoints either side.
fn sqrt_f32(x: f32) -> f32 {
    // (the constant test alone: a compiler folds it away, CPU adapters pay no branch)
    if (IEEE_ARITHMETIC) {
        return sqrt_builtin_f32(x);
    }
    if (!is_finite_f32(x) | !nonzero_f32(x) | sign_bit_f32(x)) {
        return sqrt_builtin_f32(x);
    }
    let p = unpack_f32(bitcast<u32>(x));
    // x = m 2^(e - 150) = X 2^(e - 150 - s) with X = m 2^s and an even power of two
    let s = select(24u, 23u, (p.y & 1) != 0);
    let m = u32(p.x);
    let four_x = vec2<u32>(m << (s + 2u), m >> (30u - s));  // 4X as 64 bits
    // the built-in's sqrt of X as a float (exact: 24 significant bits), an integer in
    // [2^23, 2^24] within a few units of the correctly rounded root
    let xf = bitcast<f32>(((u32(s) + 23u + 127u) << 23u) | (m & 0x007fffffu));
    let root = nearest_root_u32(four_x, u32(sqrt(xf)));
    // root in [2^23, 2^24] (2^24: the carry steps the exponent): value root 2^((e - 150 - s) / 2)
    let k = (p.y - 150 - i32(s)) / 2;  // even numerator: exact
    return bitcast<f32>(u32(k + 150) * 0x00800000u + root - 0x00800000u);
}

// ceil and floor, also of subnormals (the builtins see a flushed one as +-0).  The results are
// built from x's sign bit: compilers that ignore the sign of zero fold a select between
// constants (1.0 / -0.0) into one that loses it.
fn ceil_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if (is_tiny_f32(x) & nonzero_f32(x)) {  // 1.0 or -0.0
        return bitcast<f32>((b & 0x80000000u) | select(0x3f800000u, 0u, sign_bit_f32(x)));
    }
    return ceil(x);
}

fn floor_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if (is_tiny_f32(x) & nonzero_f32(x)) {  // 0.0 or -1.0
        return bitcast<f32>((b & 0x80000000u) | select(0u, 0x3f800000u, sign_bit_f32(x)));
    }
    return floor(x);
}

// -- float-float building blocks ------------------------------------------------------------------

// (s, e) with s = fl(a + b) and a + b = s + e exactly.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = opq(a + b);
    let bb = opq(s - a);
    return vec2<f32>(s, (a - (s - bb)) + (b - bb));
}

// The same when |a| >= |b| (or a == 0).
fn fast_two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = opq(a + b);
    return vec2<f32>(s, b - (s - a));
}

// Top 12 significant bits of x (the rest, x - hi, is exact and has at most 12 bits).
fn split_hi(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
}

// (p, e) with p = fl(a * b) and a * b = p + e exactly (Dekker; every partial product is exact,
// so a fused multiply-add anywhere changes nothing).
fn two_prod(a: f32, b: f32) -> vec2<f32> {
    let p = opq(a * b);
    let ah = split_hi(a);
    let al = a - ah;
    let bh = split_hi(b);
    let bl = b - bh;
    var e = opq(ah * bh - p);
    e = opq(e + ah * bl);
    e = opq(e + al * bh);
    return vec2<f32>(p, e + al * bl);
}

fn df_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let s = two_sum(a.x, b.x);
    return fast_two_sum(s.x, s.y + (a.y + b.y));
}

fn df_mul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let p = two_prod(a.x, b.x);
    return fast_two_sum(p.x, p.y + (a.x * b.y + a.y * b.x));
}

// -- constants (f32 hi + lo splits of the float64 values) -----------------------------------------

const PI_HI: f32 = 0x1.921fb6p1f;
const PI_LO: f32 = -0x1.777a5cp-24f;
const PIO2_HI: f32 = 0x1.921fb6p0f;
const PIO2_LO: f32 = -0x1.777a5cp-25f;
const PIO4_HI: f32 = 0x1.921fb6p-1f;
const PIO4_LO: f32 = -0x1.777a5cp-26f;
const LN2_HI: f32 = 0x1.62e43p-1f;
const LN2_LO: f32 = -0x1.05c61p-29f;
// Cody-Waite split of ln 2: k * LN2_CW_HI is exact for |k| < 2^9.
const LN2_CW_HI: f32 = 0x1.62e4p-1f;
const LN2_CW_LO: f32 = 0x1.7f7d1cp-20f;
const INV_LN2_HI: f32 = 0x1.715476p0f;
const INV_LN2_LO: f32 = 0x1.4ae0cp-26f;

// -- exp family -----------------------------------------------------------------------------------

// e^r - 1 for |r| <= ln(2)/2: r + r^2 (1/2! + r/3! + ... + r^7/9!).
fn expm1_poly(r: f32) -> f32 {
    var q = 0x1.71de3ap-19f;
    q = q * r + 0x1.a01a02p-16f;
    q = q * r + 0x1.a01a02p-13f;
    q = q * r + 0x1.6c16c2p-10f;
    q = q * r + 0x1.111112p-7f;
    q = q * r + 0x1.555556p-5f;
    q = q * r + 0x1.555556p-3f;
    q = q * r + 0.5;
    return r + opq(opq(r * r) * q);
}

// e^x = 2^k (1 + p): returns (k, p), for |x| < 104.  p is opaque: callers add it to 1 (or to
// 1 - 2^-k) once, and a compiler reassociating 1 + (r + t) to (1 + r) + t rounds twice.
fn exp_split(x: f32) -> vec2<f32> {
    let k = round_small_f32(x * INV_LN2_HI);
    let r = opq(x - k * LN2_CW_HI) - k * LN2_CW_LO;
    return vec2<f32>(k, opq(expm1_poly(r)));
}

fn exp_f32(x: f32) -> f32 {
    let s = exp_split(clamp_f32(x, -104.0, 89.0));
    let e = scale_f32(1.0 + s.y, round_small_i32(s.x));
    return select(select(select(e, 0.0, x < -104.0), inf_f32(), x > 89.0), x, is_nan_f32(x));
}

// Selects, not branches (see trig_reduce); each argument range keeps its own formula.
fn expm1_f32(x: f32) -> f32 {
    let s = exp_split(clamp_f32(x, -17.5, 89.0));
    let k = round_small_i32(s.x);
    // e^x <= 1/2 (k <= -2): one rounding of e^x - 1 costs < 1/2 ULP; otherwise
    // e^x - 1 = 2^k (p + (1 - 2^-k)), and 1 - 2^-k is exact for -1 <= k <= 24.
    let small = k <= -2;
    let c = select(1.0, 1.0 - pow2_f32(-k), k <= 24);
    var v = scale_f32(select(s.y + c, 1.0 + s.y, small), k) - select(0.0, 1.0, small);
    v = select(v, expm1_poly(x), abs_f32(x) <= 0.34657359);
    v = select(v, x, is_tiny_f32(x));  // expm1(x) = x; the polynomial would flush a subnormal
    v = select(v, -1.0, x < -17.5);
    return select(select(v, inf_f32(), x > 89.0), x, is_nan_f32(x));
}

// -- log family (FreeBSD msun's logf/log2f/log10f reductions) --------------------------------------

// Splits x > 0 (finite) into k and f with x = 2^k (1 + f), 1 + f in [sqrt(2)/2, sqrt(2)).
// (Other x: garbage, which log_special's callers replace.)
fn log_reduce(x: f32) -> vec2<f32> {
    let bits = bitcast<u32>(x);
    // subnormal: x = (b 2^-23) 2^-126, a normal float's bits and k - 126 (x * 2^25 is 0 where
    // FTZ; countLeadingZeros is slow on SwiftShader)
    let sub = bits < 0x00800000u;
    let ix = select(bits, bitcast<u32>(subnormal_significand_f32(bits)), sub);
    var k = select(0, -126, sub) + i32(ix >> 23u) - 127;
    let m = ix & 0x007fffffu;
    let i = (m + 0x4afb0du) & 0x00800000u;  // 1 when the mantissa >= sqrt(2)
    let y = bitcast<f32>(m | (i ^ 0x3f800000u));
    k += i32(i >> 23u);
    return vec2<f32>(small_i32_to_f32(k), y - 1.0);
}

// log(1 + f) - f + f^2/2 for 1 + f in [sqrt(2)/2, sqrt(2)) (k_log1pf).
fn log1p_tail(f: f32) -> f32 {
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (0x1.999c26p-2f + w * 0x1.f13c4cp-3f);
    let t2 = z * (0x1.555554p-1f + w * 0x1.23d3dcp-2f);
    let hfsq = 0.5 * f * f;
    return s * (hfsq + (t2 + t1));
}

// The log family's result where it is special: NaN for x < 0, -inf for 0, x for +inf and NaN,
// else ``v`` (selects, not branches: see trig_reduce).
fn log_special(x: f32, v: f32) -> f32 {
    var r = select(v, x, is_inf_f32(x));
    r = select(r, nan_f32(), sign_bit_f32(x));
    r = select(r, -inf_f32(), (bitcast<u32>(x) & 0x7fffffffu) == 0u);
    return select(r, x, is_nan_f32(x));
}

fn log_f32(x: f32) -> f32 {
    return log_special(x, log_f32_finite(x));
}

fn log_f32_finite(x: f32) -> f32 {
    let kf = log_reduce(x);
    let dk = kf.x;
    let f = kf.y;
    let hfsq = 0.5 * f * f;
    let r = log1p_tail(f);
    // dk*ln2_hi - ((hfsq - (r + dk*ln2_lo)) - f), with ln2 split so dk*hi is exact
    let hi = dk * 0x1.62e3p-1f;
    let lo = dk * 0x1.2fefa2p-17f;
    return hi - opq(opq(hfsq - opq(r + lo)) - f);
}

fn log2_f32(x: f32) -> f32 {
    return log_special(x, log2_f32_finite(x));
}

fn log2_f32_finite(x: f32) -> f32 {
    let kf = log_reduce(x);
    let f = kf.y;
    let hfsq = 0.5 * f * f;
    let r = log1p_tail(f);
    let hi = split_hi(opq(f - hfsq));
    let lo = opq(opq(f - hi) - hfsq) + r;
    // ivln2hi = 0x1.716p0 (exact products with the 12-bit hi), ivln2lo = -0x1.7135a8p-13
    let t = opq(opq((lo + hi) * -0x1.7135a8p-13f) + lo * 0x1.716p0f);
    return opq(t + hi * 0x1.716p0f) + kf.x;
}

fn log10_f32(x: f32) -> f32 {
    return log_special(x, log10_f32_finite(x));
}

fn log10_f32_finite(x: f32) -> f32 {
    let kf = log_reduce(x);
    let y = kf.x;
    let f = kf.y;
    let hfsq = 0.5 * f * f;
    let r = log1p_tail(f);
    let hi = split_hi(opq(f - hfsq));
    let lo = opq(opq(f - hi) - hfsq) + r;
    // ivln10hi = 0x1.bccp-2, ivln10lo = -0x1.09d5b2p-15, log10_2hi = 0x1.344100p-2,
    // log10_2lo = 0x1.a84fb6p-21
    var t = opq(y * 0x1.a84fb6p-21f + (lo + hi) * -0x1.09d5b2p-15f);
    t = opq(t + lo * 0x1.bccp-2f);
    t = opq(t + hi * 0x1.bccp-2f);
    return t + y * 0x1.3441p-2f;
}

fn log1p_f32(x: f32) -> f32 {
    if (is_nan_f32(x) | (is_inf_f32(x) & (x > 0.0))) {
        return x;
    }
    if (x < -1.0) {
        return nan_f32();
    }
    if (x == -1.0) {
        return -inf_f32();
    }
    if (abs_f32(x) < 0x1p-24f) {
        return x;
    }
    // 1 + x = u + e exactly; log(1 + x) = log(u) + e / u to first order.
    let u = two_sum(1.0, x);
    return log_f32(u.x) + u.y / u.x;
}

// -- trigonometric ---------------------------------------------------------------------------------

// 2/pi in binary, 32 bits per word from the most significant; word 0 is a zero pad.  Selects,
// not a const array: a dynamically indexed const array is copied into every invocation's
// private memory first (lavapipe ran sin 3x slower with it).
fn two_over_pi_table(j: u32) -> u32 {
    var w = 0x424dd2e0u;
    w = select(w, 0xb7246e3au, j == 9u);
    w = select(w, 0xdebbc561u, j == 8u);
    w = select(w, 0xfe5163abu, j == 7u);
    w = select(w, 0x3c439041u, j == 6u);
    w = select(w, 0xdb629599u, j == 5u);
    w = select(w, 0xf534ddc0u, j == 4u);
    w = select(w, 0xfc2757d1u, j == 3u);
    w = select(w, 0x4e441529u, j == 2u);
    w = select(w, 0xa2f9836eu, j == 1u);
    return select(w, 0u, j == 0u);
}

fn two_over_pi_word(g: u32) -> u32 {
    // 32 bits of 2/pi starting at bit g of the table (bit 0 = MSB of word 0).
    let j = g >> 5u;
    let s = g & 31u;
    let a = two_over_pi_table(j);
    let b = two_over_pi_table(j + 1u);
    return select((a << s) | (b >> (32u - s)), a, s == 0u);
}

// Reduction of finite ax >= pi/4 (Payne-Hanek): ax = (q + r / (pi/2)) * pi/2 with |r| <= pi/4.
// Returns (r_hi, r_lo, q mod 4).  Written small, with loops: SwiftShader runs a kernel holding
// this code several times slower even where no argument takes this path.
fn rem_pio2(ax: f32) -> vec3<f32> {
    let bits = bitcast<u32>(ax);
    let m = (bits & 0x007fffffu) | 0x00800000u;  // ax = m * 2^(e - 23)
    // m times 96 bits of 2/pi whose weights put bits 94-95 of the product at 2^1 and 2^0
    // (mod 4), word by word from the least significant: (c1, c2, c3), carries out of c1 are
    // multiples of 4.
    let g = (bits >> 23u) - 120u;  // e + 7
    var c1 = 0u;
    var c2 = 0u;
    var c3 = 0u;
    var hi = 0u;
    var carry = 0u;
    for (var k = 0u; k < 3u; k = k + 1u) {
        let p = mul_wide_u32(m, two_over_pi_word(g + 64u - 32u * k));
        let w = p.y + hi;
        c3 = c2;
        c2 = c1;
        c1 = w + carry;
        carry = select(0u, 1u, w < p.y);
        hi = p.x;
    }
    // Fraction: the top 64 of its 94 bits as (a, b); at 1/2 or more, use fraction - 1.
    let a0 = ((c1 & 0x3fffffffu) << 2u) | (c2 >> 30u);
    let b0 = (c2 << 2u) | (c3 >> 30u);
    let neg = a0 >= 0x80000000u;
    let b = select(b0, ~b0 + 1u, neg);
    let a = select(a0, ~a0 + select(0u, 1u, b == 0u), neg);
    // (a 2^32 + b) 2^-64 as a double-float: its four 16-bit pieces are exact in f32 and do
    // not overlap, so adding them from the smallest keeps 48 significant bits.
    var f = vec2<f32>(0.0, 0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        let piece = (select(b, a, k >= 2u) >> (16u * (k & 1u))) & 0xffffu;
        f = df_add(f, vec2<f32>(f32(piece) * pow2_f32(i32(16u * k) - 64), 0.0));
    }
    let r = df_mul(f, vec2<f32>(PIO2_HI, PIO2_LO));
    let q = (c1 >> 30u) + select(0u, 1u, neg);
    return vec3<f32>(select(r, -r, neg), f32(q & 3u));
}

// Cody-Waite reduction for pi/4 <= ax < 400 (q < 256): pi/2 = CW1 + CW2 + CW3 + CW4, the first
// three with 16 significant bits (so q * CWi is exact), the last rounded to 24; 72 bits of pi/2
// keep r's relative error far below float32's at the closest approach of a float32 in this
// range to a multiple of pi/2.  Much cheaper than Payne-Hanek (no table, no wide products).
const PIO2_CW1: f32 = 0x1.921ep0f;
const PIO2_CW2: f32 = 0x1.b544p-16f;
const PIO2_CW3: f32 = 0x1.0b46p-34f;
const PIO2_CW4: f32 = 0x1.1a6264p-54f;
const TWO_OVER_PI_F32: f32 = 0x1.45f306p-1f;

fn rem_pio2_cody_waite(ax: f32) -> vec3<f32> {
    let q = round_small_f32(ax * TWO_OVER_PI_F32);  // (garbage past 2^22: Payne-Hanek's)
    let t1 = opq(ax - opq(q * PIO2_CW1));  // exact (Sterbenz: ax is within a factor 2)
    let s2 = two_sum(t1, -opq(q * PIO2_CW2));
    let s3 = two_sum(s2.x, -opq(q * PIO2_CW3));
    let lo = opq(s2.y + s3.y) - q * PIO2_CW4;
    let r = fast_two_sum(s3.x, lo);
    return vec3<f32>(r.x, r.y, q - 4.0 * floor(q * 0.25));  // q mod 4
}

// trig_reduce's quadrant (a float 0, 1, 2 or 3) as a u32, without a float -> int conversion.
fn quadrant(z: f32) -> u32 {
    return u32(round_small_i32(z));
}

// Set by trig_reduce where RARE_PATHS_DEFERRED (params.wgsl): an argument needs Payne-Hanek.
var<private> rare_args: bool;

// (r_hi, r_lo, quadrant) for |x| (finite).  Selects, not branches, except around Payne-Hanek:
// SwiftShader pays for both sides of a branch anyway, and for every branch (hence the deferred
// kernel pairs of kernels.py on CPU adapters).
fn trig_reduce(ax: f32) -> vec3<f32> {
    var t = select(rem_pio2_cody_waite(ax), vec3<f32>(ax, 0.0, 0.0), ax < 0.78539816);
    let far = (ax >= 400.0) & is_finite_f32(ax);
    if (RARE_PATHS_DEFERRED) {
        rare_args = rare_args | far;
    } else if (far) {
        t = rem_pio2(ax);
    }
    return t;
}

// The kernels' polynomials in z = r^2, highest coefficient first: sin's -1/11!, 1/9!, ...,
// -1/3!; cos's 1/12!, -1/10!, ..., 1/4! (Taylor coefficients rounded to f32).
const SIN_P0: f32 = -0x1.ae6456p-26f;
const SIN_P1: f32 = 0x1.71de3ap-19f;
const SIN_P2: f32 = -0x1.a01a02p-13f;
const SIN_P3: f32 = 0x1.111112p-7f;
const SIN_P4: f32 = -0x1.555556p-3f;
const COS_P0: f32 = 0x1.1eed8ep-29f;
const COS_P1: f32 = -0x1.27e4fcp-22f;
const COS_P2: f32 = 0x1.a01a02p-16f;
const COS_P3: f32 = -0x1.6c16c2p-10f;
const COS_P4: f32 = 0x1.555556p-5f;

// sin(rh + rl) for |rh| <= pi/4: r + r^3 (-1/3! + r^2/5! - ... - r^8/11!).
fn sin_kernel(rh: f32, rl: f32) -> f32 {
    let z = rh * rh;
    var s = SIN_P0;
    s = s * z + SIN_P1;
    s = s * z + SIN_P2;
    s = s * z + SIN_P3;
    s = s * z + SIN_P4;
    return rh + opq(rh * z * s + rl * (1.0 - 0.5 * z));
}

// cos(rh + rl) for |rh| <= pi/4: 1 - r^2/2 + r^4 (1/4! - r^2/6! + ... + r^8/12!).
fn cos_kernel(rh: f32, rl: f32) -> f32 {
    let zz = two_prod(rh, rh);
    let z = zz.x;
    let hz = 0.5 * z;
    let w = opq(1.0 - hz);
    var c = COS_P0;
    c = c * z + COS_P1;
    c = c * z + COS_P2;
    c = c * z + COS_P3;
    c = c * z + COS_P4;
    return w + opq(opq(opq(1.0 - w) - hz) - 0.5 * zz.y + (z * z * c - rh * rl));
}

// sin_kernel (use_cos false) or cos_kernel (true) as one polynomial whose coefficients are
// chosen: a CPU adapter evaluates both sides of every select or branch, so sin and cos would
// cost both kernels.  The same operations as the two kernels, up to the order of the last,
// tiny, additions.
fn sin_cos_kernel(rh: f32, rl: f32, use_cos: bool) -> f32 {
    let zz = two_prod(rh, rh);
    let z = zz.x;
    let hz = 0.5 * z;
    let w = opq(1.0 - hz);
    var p = select(SIN_P0, COS_P0, use_cos);
    p = p * z + select(SIN_P1, COS_P1, use_cos);
    p = p * z + select(SIN_P2, COS_P2, use_cos);
    p = p * z + select(SIN_P3, COS_P3, use_cos);
    p = p * z + select(SIN_P4, COS_P4, use_cos);
    let tail = select(rl * (1.0 - hz), opq(opq(1.0 - w) - hz) - 0.5 * zz.y - rh * rl, use_cos);
    return select(rh, w, use_cos) + opq(select(rh, z, use_cos) * z * p + tail);
}

fn sin_f32(x: f32) -> f32 {
    let t = trig_reduce(abs_f32(x));
    let q = quadrant(t.z);
    let v = sin_cos_kernel(t.x, t.y, (q & 1u) == 1u);
    let w = select(v, neg_f32(v), (q >= 2u) != sign_bit_f32(x));
    // sin(x) = x for tiny x (the kernel would flush a subnormal)
    return select(select(w, x, is_tiny_f32(x)), nan_f32(), !is_finite_f32(x));
}

fn cos_f32(x: f32) -> f32 {
    let t = trig_reduce(abs_f32(x));
    let q = quadrant(t.z);
    let v = sin_cos_kernel(t.x, t.y, (q & 1u) == 0u);
    return select(select(v, neg_f32(v), (q == 1u) | (q == 2u)), nan_f32(), !is_finite_f32(x));
}

fn tan_f32(x: f32) -> f32 {
    let t = trig_reduce(abs_f32(x));
    let s = sin_kernel(t.x, t.y);
    let c = cos_kernel(t.x, t.y);
    let v = select(s / c, -c / s, (quadrant(t.z) & 1u) == 1u);
    let w = select(v, neg_f32(v), sign_bit_f32(x));
    return select(select(w, x, is_tiny_f32(x)), nan_f32(), !is_finite_f32(x));
}

// -- inverse trigonometric -------------------------------------------------------------------------

// asin(s) - s for |s| <= 1/2: s^3 (1/6 + 3 s^2/40 + ...), Taylor to s^25.
fn asin_tail(s: f32) -> f32 {
    let z = s * s;
    var a = 0x1.a6863ep-8f;
    a = a * z + 0x1.df3bd4p-8f;
    a = a * z + 0x1.12ef3cp-7f;
    a = a * z + 0x1.3fde5p-7f;
    a = a * z + 0x1.7a8788p-7f;
    a = a * z + 0x1.c9999ap-7f;
    a = a * z + 0x1.1c4ec4p-6f;
    a = a * z + 0x1.6e8ba2p-6f;
    a = a * z + 0x1.f1c71cp-6f;
    a = a * z + 0x1.6db6dcp-5f;
    a = a * z + 0x1.333334p-4f;
    a = a * z + 0x1.555556p-3f;
    return s * z * a;
}

// sqrt(z) as hi + lo (one Newton correction of the rounded root).
fn sqrt_df(z: f32) -> vec2<f32> {
    let h = sqrt(z);
    if (h == 0.0) {
        return vec2<f32>(h, 0.0);
    }
    let p = two_prod(h, h);
    return vec2<f32>(h, ((z - p.x) - p.y) / (h + h));
}

fn asin_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    let ax = abs_f32(x);
    if (ax > 1.0) {
        return nan_f32();
    }
    if (is_tiny_f32(x)) {
        return x;
    }
    if (ax <= 0.5) {
        return x + opq(asin_tail(x));
    }
    // asin(x) = pi/2 - 2 asin(sqrt((1 - |x|) / 2))
    let s = sqrt_df((1.0 - ax) * 0.5);
    let h = two_sum(PIO2_HI, -2.0 * s.x);
    let v = h.x + opq(h.y + PIO2_LO - 2.0 * (asin_tail(s.x) + s.y));
    return copysign_f32(v, x);
}

fn acos_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    let ax = abs_f32(x);
    if (ax > 1.0) {
        return nan_f32();
    }
    if (ax <= 0.5) {  // pi/2 - asin(x)
        let h = two_sum(PIO2_HI, -x);
        return h.x + opq(h.y + PIO2_LO - asin_tail(x));
    }
    let s = sqrt_df((1.0 - ax) * 0.5);
    let a = 2.0 * s.x;
    let b = 2.0 * (asin_tail(s.x) + s.y);
    if (x > 0.0) {  // 2 asin(sqrt((1 - x) / 2))
        return a + b;
    }
    let h = two_sum(PI_HI, -a);  // pi - 2 asin(sqrt((1 + x) / 2))
    return h.x + opq(h.y + PI_LO - b);
}

// atan(u) - u for |u| <= tan(pi/8): u^3 (-1/3 + u^2/5 - ...), Taylor to u^25.
fn atan_tail(u: f32) -> f32 {
    let z = u * u;
    var a = 0x1.47ae14p-5f;
    a = a * z - 0x1.642c86p-5f;
    a = a * z + 0x1.861862p-5f;
    a = a * z - 0x1.af286cp-5f;
    a = a * z + 0x1.e1e1e2p-5f;
    a = a * z - 0x1.111112p-4f;
    a = a * z + 0x1.3b13b2p-4f;
    a = a * z - 0x1.745d18p-4f;
    a = a * z + 0x1.c71c72p-4f;
    a = a * z - 0x1.24924ap-3f;
    a = a * z + 0x1.99999ap-3f;
    a = a * z - 0x1.555556p-2f;
    return u * z * a;
}

// atan(t) for 0 <= t <= 1 as hi + lo; with `flip`, pi/2 - atan(t) (that is atan(1/t)).
fn atan_unit(t: f32, flip: bool) -> vec2<f32> {
    var u = t;
    var base = vec2<f32>(0.0, 0.0);
    if (t > 0.41421356) {  // atan(t) = pi/4 + atan((t - 1) / (t + 1))
        u = (t - 1.0) / (t + 1.0);
        base = vec2<f32>(PIO4_HI, PIO4_LO);
    }
    let tail = atan_tail(u);
    if (flip) {  // pi/2 - base - u - tail
        let c = select(vec2<f32>(PIO2_HI, PIO2_LO), vec2<f32>(PIO4_HI, PIO4_LO), base.x != 0.0);
        let h = two_sum(c.x, -u);
        return fast_two_sum(h.x, h.y + (c.y - tail));
    }
    let h = two_sum(base.x, u);
    return fast_two_sum(h.x, h.y + (base.y + tail));
}

fn atan_f32(x: f32) -> f32 {
    if (is_nan_f32(x) | is_tiny_f32(x)) {
        return x;
    }
    let ax = abs_f32(x);
    var r: vec2<f32>;
    if (ax > 1.0) {
        r = atan_unit(div_f32(1.0, ax), true);
    } else {
        r = atan_unit(ax, false);
    }
    return copysign_f32(r.x + r.y, x);
}

fn atan2_f32(y: f32, x: f32) -> f32 {
    if (is_nan_f32(x) | is_nan_f32(y)) {
        return nan_f32();
    }
    let ax = abs_f32(x);
    let ay = abs_f32(y);
    let x_neg = sign_bit_f32(x);
    var r: vec2<f32>;
    if (is_inf_f32(ax) & is_inf_f32(ay)) {
        r = vec2<f32>(PIO4_HI, PIO4_LO);
    } else if (!nonzero_f32(ay) | is_inf_f32(ax)) {
        r = vec2<f32>(0.0, 0.0);
    } else if (!nonzero_f32(ax) | is_inf_f32(ay)) {
        r = vec2<f32>(PIO2_HI, PIO2_LO);
    } else {
        // Non-negative floats order like their bits.  A subnormal operand is scaled up with
        // the other (the quotient of a flushed one would be 0 or NaN); past 2^27 the quotient
        // rounds to 0 anyway.
        let big = max(bitcast<u32>(ax), bitcast<u32>(ay));
        var sx = ax;
        var sy = ay;
        if ((is_tiny_f32(ax) | is_tiny_f32(ay)) & (big < 0x4d000000u)) {
            sx = abs_scaled_up_f32(ax);
            sy = abs_scaled_up_f32(ay);
        }
        if (bitcast<u32>(ay) <= bitcast<u32>(ax)) {
            r = atan_unit(div_f32(sy, sx), false);
        } else {
            r = atan_unit(div_f32(sx, sy), true);
        }
    }
    if (x_neg) {  // pi - r
        let h = two_sum(PI_HI, -r.x);
        r = vec2<f32>(h.x, h.y + (PI_LO - r.y));
    }
    return copysign_f32(r.x + r.y, y);
}

// -- hyperbolic (FreeBSD msun's formulas) ----------------------------------------------------------

fn sinh_f32(x: f32) -> f32 {
    let ax = abs_f32(x);
    if (!(ax < 89.5)) {  // NaN, inf and overflow
        return select(copysign_f32(inf_f32(), x), x, is_nan_f32(x));
    }
    if (ax < 0x1p-12f) {
        return x;
    }
    var v: f32;
    if (ax < 9.0) {
        let t = expm1_f32(ax);
        if (ax < 1.0) {
            v = 0.5 * (2.0 * t - t * t / (t + 1.0));
        } else {
            v = 0.5 * (t + t / (t + 1.0));
        }
    } else {
        let s = exp_split(ax);
        v = scale_f32(1.0 + s.y, round_small_i32(s.x) - 1);
    }
    return copysign_f32(v, x);
}

fn cosh_f32(x: f32) -> f32 {
    let ax = abs_f32(x);
    if (is_nan_f32(x)) {
        return x;
    }
    if (!(ax < 89.5)) {
        return inf_f32();
    }
    if (ax < 0.34657359) {
        let t = expm1_f32(ax);
        let w = 1.0 + t;
        return 1.0 + (t * t) / (w + w);
    }
    if (ax < 9.0) {
        let t = exp_f32(ax);
        return 0.5 * t + 0.5 / t;
    }
    let s = exp_split(ax);
    return scale_f32(1.0 + s.y, round_small_i32(s.x) - 1);
}

fn tanh_f32(x: f32) -> f32 {
    let ax = abs_f32(x);
    let big = ax >= 1.0;  // one expm1 for both ranges (code size costs on SwiftShader)
    let t = expm1_f32(select(-2.0 * ax, 2.0 * ax, big));
    var z = select(-t / (t + 2.0), 1.0 - 2.0 / (t + 2.0), big);
    z = select(z, 1.0, ax >= 9.0);
    return select(copysign_f32(z, x), x, (ax < 0x1p-12f) | is_nan_f32(x));
}

fn asinh_f32(x: f32) -> f32 {
    let ax = abs_f32(x);
    if (!is_finite_f32(x) | (ax < 0x1p-12f)) {
        return x;
    }
    var w: f32;
    if (ax > 0x1p28f) {
        w = log_f32(ax) + LN2_HI;
    } else if (ax > 2.0) {
        w = log_f32(2.0 * ax + 1.0 / (sqrt(x * x + 1.0) + ax));
    } else {
        let t = x * x;
        w = log1p_f32(ax + t / (1.0 + sqrt(1.0 + t)));
    }
    return copysign_f32(w, x);
}

fn acosh_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    if (x < 1.0) {
        return nan_f32();
    }
    if (x > 0x1p28f) {
        return log_f32(x) + LN2_HI;
    }
    if (x > 2.0) {
        return log_f32(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
    }
    let t = x - 1.0;
    return log1p_f32(t + sqrt(2.0 * t + t * t));
}

fn atanh_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    let ax = abs_f32(x);
    if (ax > 1.0) {
        return nan_f32();
    }
    if (ax == 1.0) {
        return copysign_f32(inf_f32(), x);
    }
    if (ax < 0x1p-12f) {
        return x;
    }
    var t: f32;
    if (ax < 0.5) {
        let t2 = ax + ax;
        t = 0.5 * log1p_f32(t2 + t2 * ax / (1.0 - ax));
    } else {
        t = 0.5 * log1p_f32((ax + ax) / (1.0 - ax));
    }
    return copysign_f32(t, x);
}

// -- Nx's functions: erf, erfc, erf_inv, cbrt, rsqrt, sigmoid --------------------------------------
// Polynomials fitted (weighted least squares, relative error 1e-10..1e-13) to erf(x)/x, to
// erfcx(x) = erfc(x) e^(x^2) piecewise, and to erf_inv; erfc(x) = e^-(x^2) erfcx(x) with x^2 and
// the exponential in float-float, so the tail keeps its relative accuracy down to the subnormals.

// erf(x) for |x| <= 0.5: x + x (erf(x)/x - 1) as a polynomial in x^2.
fn erf_small_f32(x: f32) -> f32 {
    let u = x * x;
    var p = 0x1.c54844p-14f;
    p = p * u + -0x1.bdef5p-11f;
    p = p * u + 0x1.564f68p-8f;
    p = p * u + -0x1.b82c9cp-6f;
    p = p * u + 0x1.ce2f2p-4f;
    p = p * u + -0x1.812746p-2f;
    p = p * u + 0x1.06eba8p-3f;
    return x + x * p;
}

// erfc(x) e^(x^2) for x >= 0.5.
fn erfcx_f32(x: f32) -> f32 {
    if (x < 1.5) {
        let t = x - 1.0;
        var p = 0x1.2bb2b4p-13f;
        p = p * t + -0x1.b27fc6p-12f;
        p = p * t + 0x1.12d684p-10f;
        p = p * t + -0x1.69df44p-9f;
        p = p * t + 0x1.c8cd7ap-8f;
        p = p * t + -0x1.1100b8p-6f;
        p = p * t + 0x1.33cad2p-5f;
        p = p * t + -0x1.448374p-4f;
        p = p * t + 0x1.3c2728p-3f;
        p = p * t + -0x1.17c4e4p-2f;
        p = p * t + 0x1.b5d878p-2f;
        return p;
    }
    if (x < 3.0) {
        let t = x - 2.25;
        var p = -0x1.5a82d8p-21f;
        p = p * t + 0x1.4bd2f2p-19f;
        p = p * t + -0x1.1028cep-17f;
        p = p * t + 0x1.e98c94p-16f;
        p = p * t + -0x1.aee31ap-14f;
        p = p * t + 0x1.6d84fep-12f;
        p = p * t + -0x1.2bd23ep-10f;
        p = p * t + 0x1.da591cp-9f;
        p = p * t + -0x1.6883fap-7f;
        p = p * t + 0x1.061568p-5f;
        p = p * t + -0x1.6a70d2p-4f;
        p = p * t + 0x1.d94446p-3f;
        return p;
    }
    // x erfcx(x) as a polynomial in 1 / x^2 (x < 10.06 here)
    let u = 1.0 / (x * x);
    var p = -0x1.89af22p5f;
    p = p * u + 0x1.0f5e94p5f;
    p = p * u + -0x1.858d74p3f;
    p = p * u + 0x1.bbd6b6p1f;
    p = p * u + -0x1.0cd042p0f;
    p = p * u + 0x1.b12412p-2f;
    p = p * u + -0x1.20dd0cp-2f;
    p = p * u + 0x1.20dd74p-1f;
    return p / x;
}

// erfc(x) for 0.5 <= x (0 from 10.0542, where erfc(x) < 2^-150 rounds to zero).
fn erfc_pos_f32(x: f32) -> f32 {
    if (x >= 0x1.41bbf8p3f) {
        return 0.0;
    }
    let g = erfcx_f32(x);
    let sq = two_prod(x, x);
    if (sq.x <= 80.0) {
        let e = exp_neg_df(sq.x, sq.y);
        return opq(e.x * g) + e.y * g;
    }
    // e^-(x^2) = e^-(x^2 - 64 ln 2) 2^-64: everything stays normal until the last product
    let d = df_add(sq, vec2<f32>(-64.0 * LN2_HI, -64.0 * LN2_LO));
    let e = exp_neg_df(d.x, d.y);
    return (opq(e.x * g) + e.y * g) * 0x1p-64f;
}

fn erf_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    if ((bitcast<u32>(x) & 0x7fffffffu) < 0x21800000u) {
        // |x| < 2^-60: erf(x) = (2 / sqrt(pi)) x.  Scaled up by 2^100 on bits first, so no
        // subnormal operand or intermediate meets an adapter that flushes them (2^-126 too:
        // x (2 / sqrt(pi) - 1), the small path's correction, would be subnormal).
        return copysign_f32(abs_scaled_up_f32(x) * 0x1.20dd76p0f * 0x1p-100f, x);
    }
    let ax = abs_f32(x);
    if (ax <= 0.5) {
        return erf_small_f32(x);
    }
    if (ax >= 6.0) {  // erfc(6) < 2^-25: 1 - erfc rounds to 1
        return copysign_f32(1.0, x);
    }
    return copysign_f32(1.0 - erfc_pos_f32(ax), x);
}

fn erfc_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    if (x < -0.5) {  // erfc(x) = 2 - erfc(-x)
        if (x <= -6.0) {
            return 2.0;
        }
        return 2.0 - erfc_pos_f32(-x);
    }
    if (x <= 0.5) {
        return 1.0 - erf_small_f32(x);
    }
    return erfc_pos_f32(x);
}

// erf_inv: x P(x^2 - 0.28) for |x| <= 0.75; else from w = 1 - |x| (exact) a polynomial in
// t = sqrt(-log w), refined by one Newton step on erfc(y) = w (1 ULP where the polynomial
// alone, through the rounding of t, would be 3).
fn erf_inv_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    let ax = abs_f32(x);
    if (ax >= 1.0) {
        if (ax == 1.0) {
            return copysign_f32(inf_f32(), x);
        }
        return nan_f32();
    }
    if (ax <= 0.75) {
        let u = x * x - 0.28;
        var p = 0x1.632b84p0f;
        p = p * u + 0x1.f2111ap-1f;
        p = p * u + 0x1.d18b5p-2f;
        p = p * u + 0x1.999416p-2f;
        p = p * u + 0x1.721f44p-2f;
        p = p * u + 0x1.3754a2p-2f;
        p = p * u + 0x1.0e2f4ap-2f;
        p = p * u + 0x1.eab46ap-3f;
        p = p * u + 0x1.d9bf7p-3f;
        p = p * u + 0x1.fc09cep-3f;
        p = p * u + 0x1.53ab74p-2f;
        p = p * u + 0x1.ed5dd8p-1f;
        return x * p;
    }
    let w = 1.0 - ax;
    let t = sqrt(-log_f32(w));
    var y: f32;
    if (t < 2.5) {
        let s = t - 0x1.2d6abep0f;
        var p = -0x1.552282p-18f;
        p = p * s + -0x1.780a48p-15f;
        p = p * s + 0x1.6bc14ap-11f;
        p = p * s + -0x1.df9c04p-9f;
        p = p * s + 0x1.82a53ep-7f;
        p = p * s + -0x1.c3c92ep-6f;
        p = p * s + 0x1.9c21dcp-5f;
        p = p * s + -0x1.277366p-4f;
        p = p * s + 0x1.20aa38p-4f;
        p = p * s + 0x1.02d77ep0f;
        p = p * s + 0x1.a0789p-1f;
        y = p;
    } else {
        let s = t - 2.5;
        var p = -0x1.9496dp-27f;
        p = p * s + 0x1.23b6d2p-22f;
        p = p * s + -0x1.7e2d7cp-19f;
        p = p * s + 0x1.3080fcp-16f;
        p = p * s + -0x1.4f4328p-14f;
        p = p * s + 0x1.140064p-12f;
        p = p * s + -0x1.6488c6p-11f;
        p = p * s + 0x1.62e5bep-10f;
        p = p * s + -0x1.7bfda8p-10f;
        p = p * s + -0x1.30bd6ep-8f;
        p = p * s + 0x1.0c072p0f;
        p = p * s + 0x1.18a558p1f;
        y = p;
    }
    y = y + (erfc_pos_f32(y) - w) * 0x1.c5bf8ap-1f * exp(y * y);
    return copysign_f32(y, x);
}

// Cube root: x = m 2^(3q) with m in [1, 8) (subnormals through their integer significand),
// cbrt(m) from the builtins (~1e-6) and one Newton step on a float-float residual m - y^3.
fn cbrt_f32(x: f32) -> f32 {
    if (!is_finite_f32(x) | !nonzero_f32(x)) {
        return x;
    }
    let b = bitcast<u32>(x) & 0x7fffffffu;
    var fb = b;
    var e = 0;
    if (b < 0x00800000u) {  // b 2^-149, b an integer that f32 holds exactly
        fb = bitcast<u32>(f32(b));
        e = -149;
    }
    e += i32(fb >> 23u) - 127;
    let q = select(e / 3, (e - 2) / 3, e < 0);  // floor(e / 3)
    let m = bitcast<f32>((fb & 0x007fffffu) | (u32(127 + e - 3 * q) << 23u));
    var y = exp2(log2(m) * 0x1.555556p-2f);
    let y2 = two_prod(y, y);
    let y3 = df_mul(y2, vec2<f32>(y, 0.0));
    y = y + opq(opq(m - y3.x) - y3.y) / (3.0 * y2.x);
    return copysign_f32(y * pow2_f32(q), x);
}

fn rsqrt_f32(x: f32) -> f32 {
    if (!nonzero_f32(x)) {  // +-0 -> +-inf
        return copysign_f32(inf_f32(), x);
    }
    return div_f32(1.0, sqrt_f32(x));
}

// 1 / (1 + e^-x), as e^x / (1 + e^x) for negative x (no overflow, tiny results kept).
fn sigmoid_f32(x: f32) -> f32 {
    if (is_nan_f32(x)) {
        return x;
    }
    if (!sign_bit_f32(x)) {
        return 1.0 / (1.0 + exp_f32(-x));
    }
    let e = exp_f32(x);
    return e / (1.0 + e);
}

// -- pow, hypot, logaddexp -------------------------------------------------------------------------

// log2(x) as hi + lo for finite x > 0 (about 40 correct bits).
fn log2_df(x: f32) -> vec2<f32> {
    let kf = log_reduce(x);
    let f = kf.y;
    // s = f / (2 + f) as hi + lo; ln(1 + f) = 2s + 2s^3/3 + 2s^5/5 + ...
    let d = two_sum(2.0, f);
    let sh = opq(f / d.x);
    let p = two_prod(sh, d.x);
    let sl = (opq(f - p.x) - p.y - sh * d.y) / d.x;
    let z = sh * sh;
    var l = 0x1.111112p-3f;
    l = l * z + 0x1.3b13b2p-3f;
    l = l * z + 0x1.745d18p-3f;
    l = l * z + 0x1.c71c72p-3f;
    l = l * z + 0x1.24924ap-2f;
    l = l * z + 0x1.99999ap-2f;
    l = l * z + 0x1.555556p-1f;
    let ln = fast_two_sum(2.0 * sh, 2.0 * sl + sh * z * l);
    return df_add(vec2<f32>(kf.x, 0.0), df_mul(ln, vec2<f32>(INV_LN2_HI, INV_LN2_LO)));
}

// |x|^y for finite x != 0 and finite y (no sign handling).
fn pow_core(ax: f32, y: f32) -> f32 {
    let l = log2_df(ax);
    let w0 = y * l.x;
    if (!(abs_f32(w0) < 4096.0)) {  // far out of range (and no overflow in the df product)
        return select(0.0, inf_f32(), w0 > 0.0);
    }
    let w = df_mul(vec2<f32>(y, 0.0), l);
    let k = round_small_f32(w.x);  // scale_f32 overflows to inf or underflows to 0 past the range
    let f = opq(w.x - k) + w.y;
    let r = f * LN2_HI + f * LN2_LO;
    return scale_f32(1.0 + opq(expm1_poly(r)), round_small_i32(k));  // (opaque: see exp_split)
}

fn is_int_f32(y: f32) -> bool {
    if (is_tiny_f32(y)) {  // trunc(y) == y holds for a flushed subnormal
        return !nonzero_f32(y);
    }
    return trunc(y) == y;
}

fn is_odd_int_f32(y: f32) -> bool {
    let ay = abs_f32(y);
    return (ay < 16777216.0) & (trunc(ay) == ay) & ((u32(ay) & 1u) == 1u);
}

// C99 / NumPy pow, special cases first.
fn pow_f32(x: f32, y: f32) -> f32 {
    if (!nonzero_f32(y) | (x == 1.0)) {
        return 1.0;
    }
    if (is_nan_f32(x) | is_nan_f32(y)) {
        return nan_f32();
    }
    let ax = abs_f32(x);
    if (is_inf_f32(y)) {
        if (ax == 1.0) {
            return 1.0;
        }
        return select(0.0, inf_f32(), (ax > 1.0) == (y > 0.0));
    }
    let odd = is_odd_int_f32(y);
    let x_neg = sign_bit_f32(x);
    if (!nonzero_f32(ax)) {
        if (sign_bit_f32(y)) {
            return select(inf_f32(), copysign_f32(inf_f32(), x), odd);
        }
        return select(0.0, x, odd);
    }
    if (is_inf_f32(x)) {
        let v = select(inf_f32(), 0.0, sign_bit_f32(y));
        return select(v, neg_f32(v), x_neg & odd);
    }
    if (x_neg & !is_int_f32(y)) {
        return nan_f32();
    }
    let v = pow_core(ax, y);
    return select(v, neg_f32(v), x_neg & odd);
}

fn hypot_f32(x: f32, y: f32) -> f32 {
    if (is_inf_f32(x) | is_inf_f32(y)) {
        return inf_f32();
    }
    if (is_nan_f32(x) | is_nan_f32(y)) {
        return nan_f32();
    }
    // Non-negative floats order like their bits (a float max/min may flush subnormals).
    let ux = bitcast<u32>(abs_f32(x));
    let uy = bitcast<u32>(abs_f32(y));
    let a = bitcast<f32>(max(ux, uy));
    let b = bitcast<f32>(min(ux, uy));
    if (!nonzero_f32(a)) {
        return 0.0;
    }
    // Scale a into [1, 2) by powers of two (exact), sum the squares in float-float.
    var sa = a;
    var sb = b;
    var e = 0;
    if (max(ux, uy) < 0x0d800000u) {  // a < 2^-100
        sa = abs_scaled_up_f32(a);
        sb = abs_scaled_up_f32(b);
        e = -100;
    }
    let ea = i32(bitcast<u32>(sa) >> 23u) - 127;
    sa = scale_f32(sa, -ea);
    sb = scale_f32(sb, -ea);
    e += ea;
    let s = df_add(two_prod(sa, sa), two_prod(sb, sb));
    let r = sqrt_df_pair(s);
    return scale_f32(r, e);
}

// sqrt(hi + lo) rounded once.
fn sqrt_df_pair(s: vec2<f32>) -> f32 {
    let h = sqrt(s.x);
    let p = two_prod(h, h);
    return h + ((s.x - p.x) - p.y + s.y) / (h + h);
}

// e^-(dh + dl) as hi + lo for 0 <= dh <= 80 (about 36 correct bits).
fn exp_neg_df(dh: f32, dl: f32) -> vec2<f32> {
    let k = round(-dh * INV_LN2_HI);
    let t = two_prod(k, LN2_CW_LO);
    var r = two_sum(opq(-dh - k * LN2_CW_HI), -t.x);
    r = fast_two_sum(r.x, r.y - t.y - dl);
    // e^r - 1 = r + r^2/2 + r^3 (1/3! + r/4! + ...)
    var q = 0x1.71de3ap-19f;
    q = q * r.x + 0x1.a01a02p-16f;
    q = q * r.x + 0x1.a01a02p-13f;
    q = q * r.x + 0x1.6c16c2p-10f;
    q = q * r.x + 0x1.111112p-7f;
    q = q * r.x + 0x1.555556p-5f;
    q = q * r.x + 0x1.555556p-3f;
    var sq = two_prod(r.x, r.x);
    sq.y += 2.0 * r.x * r.y;
    let p = df_add(df_add(r, 0.5 * sq), vec2<f32>(r.x * sq.x * q, 0.0));
    let e = df_add(vec2<f32>(1.0, 0.0), p);
    let scale = pow2_f32(i32(k));
    return vec2<f32>(e.x * scale, e.y * scale);
}

// NumPy's npy_logaddexp, max(x, y) + log1p(exp(-|x - y|)), in float-float so that the sum
// stays accurate when it cancels (results near 0 from negative operands).
fn logaddexp_f32(x: f32, y: f32) -> f32 {
    if (is_nan_f32(x) | is_nan_f32(y)) {
        return nan_f32();
    }
    let m = select(y, x, cmp_key_f32(x) > cmp_key_f32(y));
    if (is_inf_f32(x) | is_inf_f32(y)) {
        return m;
    }
    if (x == y) {
        let h = two_sum(x, LN2_HI);
        return h.x + (h.y + LN2_LO);
    }
    var d = two_sum(x, -y);
    if (d.x < 0.0) {
        d = -d;
    }
    if (d.x > 80.0) {
        return m + exp_f32(-d.x);
    }
    let e = exp_neg_df(d.x, d.y);
    var l: vec2<f32>;
    if (e.x < 0x1p-12f) {  // log1p(e) = e - e^2/2 + e^3/3 - ...
        l = df_add(e, vec2<f32>(e.x * e.x * (e.x * 0x1.555556p-2f - 0.5), 0.0));
    } else {  // log(u) + u_lo / u for u = 1 + e in [1, 2]
        let u = df_add(vec2<f32>(1.0, 0.0), e);
        l = df_add(df_mul(log2_df(u.x), vec2<f32>(LN2_HI, LN2_LO)), vec2<f32>(u.y / u.x, 0.0));
    }
    let r = df_add(vec2<f32>(m, 0.0), l);
    return r.x + r.y;
}

// -- NumPy's float floor_divide / remainder (npy_divmod; floor_divide's infinite operands as the
// Array API says) -------------------------------------------------------------------------------

// C fmodf, exact (musl's shift-subtract loop on the significands).
fn fmod_f32(x: f32, y: f32) -> f32 {
    var uxi = bitcast<u32>(x);
    var uyi = bitcast<u32>(y);
    var ex = i32((uxi >> 23u) & 0xffu);
    var ey = i32((uyi >> 23u) & 0xffu);
    let sx = uxi & 0x80000000u;
    if (((uyi << 1u) == 0u) | is_nan_f32(y) | (ex == 0xff)) {
        return nan_f32();
    }
    if ((uxi << 1u) <= (uyi << 1u)) {
        if ((uxi << 1u) == (uyi << 1u)) {
            return bitcast<f32>(sx);
        }
        return x;
    }
    if (ex == 0) {
        var i = uxi << 9u;
        loop {
            if ((i >> 31u) != 0u) {
                break;
            }
            ex -= 1;
            i = i << 1u;
        }
        uxi = uxi << u32(1 - ex);
    } else {
        uxi = (uxi & 0x007fffffu) | 0x00800000u;
    }
    if (ey == 0) {
        var i = uyi << 9u;
        loop {
            if ((i >> 31u) != 0u) {
                break;
            }
            ey -= 1;
            i = i << 1u;
        }
        uyi = uyi << u32(1 - ey);
    } else {
        uyi = (uyi & 0x007fffffu) | 0x00800000u;
    }
    loop {
        if (ex <= ey) {
            break;
        }
        let i = uxi - uyi;
        if ((i >> 31u) == 0u) {
            if (i == 0u) {
                return bitcast<f32>(sx);
            }
            uxi = i;
        }
        uxi = uxi << 1u;
        ex -= 1;
    }
    let i = uxi - uyi;
    if ((i >> 31u) == 0u) {
        if (i == 0u) {
            return bitcast<f32>(sx);
        }
        uxi = i;
    }
    loop {
        if ((uxi >> 23u) != 0u) {
            break;
        }
        uxi = uxi << 1u;
        ex -= 1;
    }
    if (ex > 0) {
        uxi = (uxi - 0x00800000u) | (u32(ex) << 23u);
    } else {
        uxi = uxi >> u32(1 - ex);
    }
    return bitcast<f32>(uxi | sx);
}

// (floor quotient, remainder) as npy_divmod computes them (b != 0).
// (a - mod) / b of npy_divmod, also when a, mod or b is subnormal (which a flushing adapter
// takes for +-0): the three scaled by 2^100 together give the same roundings (the quotient is
// an integer or 0, never subnormal).  Past 2^27 no scaling is needed: the quotient overflows
// to inf (tiny b) or a - mod is exact with mod flushed (|mod| < ulp(a), or a = mod).
fn divmod_quotient(a: f32, mod_: f32, b: f32) -> f32 {
    let big = max(bitcast<u32>(a) & 0x7fffffffu, bitcast<u32>(b) & 0x7fffffffu);
    if ((is_tiny_f32(a) | is_tiny_f32(mod_) | is_tiny_f32(b)) & (big < 0x4d000000u)) {
        let sa = copysign_f32(abs_scaled_up_f32(a), a);
        let sm = copysign_f32(abs_scaled_up_f32(mod_), mod_);
        return div_f32(opq(sa - sm), copysign_f32(abs_scaled_up_f32(b), b));
    }
    return div_f32(opq(a - mod_), b);
}

fn divmod_f32(a: f32, b: f32) -> vec2<f32> {
    var mod_ = fmod_f32(a, b);
    var div = divmod_quotient(a, mod_, b);
    if (nonzero_f32(mod_)) {
        if (sign_bit_f32(b) != sign_bit_f32(mod_)) {  // a subnormal mod_ compares as 0
            if (is_tiny_f32(mod_) & ((bitcast<u32>(b) & 0x7fffffffu) < 0x4d000000u)) {
                // mod + b scaled by 2^100 (a flushing add would drop mod); a subnormal sum
                // still flushes when scaled back
                let sm = copysign_f32(abs_scaled_up_f32(mod_), mod_);
                mod_ = (sm + copysign_f32(abs_scaled_up_f32(b), b)) * 0x1p-100f;
            } else {
                mod_ = mod_ + b;
            }
            div = div - 1.0;
        }
    } else {
        mod_ = copysign_f32(0.0, b);
    }
    var fdiv: f32;
    if (nonzero_f32(div)) {
        fdiv = floor(div);
        if (div - fdiv > 0.5) {
            fdiv = fdiv + 1.0;
        }
    } else {  // +-0 with the sign of a / b (finite a, non-zero b), taken from the bits
        fdiv = bitcast<f32>((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u);
    }
    return vec2<f32>(fdiv, mod_);
}

fn floor_divide_f32(a: f32, b: f32) -> f32 {
    if (!nonzero_f32(b)) {
        if (is_tiny_f32(a) & nonzero_f32(a)) {  // +-inf, not the 0 / 0 of a flushed a
            return bitcast<f32>(((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u) | 0x7f800000u);
        }
        return div_f32(a, b);
    }
    if ((is_inf_f32(a) != is_inf_f32(b)) & !is_nan_f32(a) & !is_nan_f32(b) & nonzero_f32(a)) {
        // Array API (not NumPy): inf // finite and finite // inf are floor(a / b), so +-inf
        // or a zero with the quotient's sign
        let sign = (bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u;
        return bitcast<f32>(sign | select(0u, 0x7f800000u, is_inf_f32(a)));
    }
    return divmod_f32(a, b).x;
}

fn remainder_f32(a: f32, b: f32) -> f32 {
    if (!nonzero_f32(b)) {
        return fmod_f32(a, b);
    }
    return divmod_f32(a, b).y;
}

// -- NaN-aware comparisons and selections ------------------------------------------------------------

// Selects, not branches: CPU adapters pay for every branch (relu is a maximum).
fn maximum_f32(a: f32, b: f32) -> f32 {
    let ba = bitcast<u32>(a);
    let bb = bitcast<u32>(b);
    var r = select(b, a, cmp_key_f32(a) > cmp_key_f32(b));
    r = select(r, bitcast<f32>(ba & bb), ((ba | bb) & 0x7fffffffu) == 0u);  // -0.0 only if both are
    r = select(r, b, is_nan_f32(b));
    return select(r, a, is_nan_f32(a));
}

fn minimum_f32(a: f32, b: f32) -> f32 {
    let ba = bitcast<u32>(a);
    let bb = bitcast<u32>(b);
    var r = select(b, a, cmp_key_f32(a) < cmp_key_f32(b));
    r = select(r, bitcast<f32>(ba | bb), ((ba | bb) & 0x7fffffffu) == 0u);
    r = select(r, b, is_nan_f32(b));
    return select(r, a, is_nan_f32(a));
}

// fmax / fmin: a NaN operand gives way to the other (NaN only when both are NaN: the first,
// as NumPy's).
fn fmax_f32(a: f32, b: f32) -> f32 {
    let x = select(a, b, is_nan_f32(a) & !is_nan_f32(b));
    return maximum_f32(x, select(b, x, is_nan_f32(b)));
}

fn fmin_f32(a: f32, b: f32) -> f32 {
    let x = select(a, b, is_nan_f32(a) & !is_nan_f32(b));
    return minimum_f32(x, select(b, x, is_nan_f32(b)));
}

fn nextafter_f32(x: f32, y: f32) -> f32 {
    if (is_nan_f32(x) | is_nan_f32(y)) {
        return nan_f32();
    }
    let bx = bitcast<u32>(x);
    let by = bitcast<u32>(y);
    if ((bx == by) | (((bx | by) & 0x7fffffffu) == 0u)) {
        return y;
    }
    if ((bx & 0x7fffffffu) == 0u) {  // from +-0: the smallest subnormal toward y
        return bitcast<f32>((by & 0x80000000u) | 1u);
    }
    let kx = f32_key(x);
    return f32_from_key(select(kx - 1, kx + 1, kx < f32_key(y)));
}

// NumPy's sign: NaN stays, +-0 -> +0, else +-1.  Built from bits: compilers pattern-match the
// comparison form into a native sign instruction that keeps the zero's sign.
fn sign_f32(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if (is_nan_f32(x)) {
        return x;
    }
    if ((b & 0x7fffffffu) == 0u) {
        return 0.0;
    }
    return bitcast<f32>((b & 0x80000000u) | 0x3f800000u);
}

// IEEE comparisons on order keys (NaN compares false), exact for subnormals.
fn eq_f32(a: f32, b: f32) -> bool {
    return !is_nan_f32(a) & !is_nan_f32(b) & (cmp_key_f32(a) == cmp_key_f32(b));
}

fn lt_f32(a: f32, b: f32) -> bool {
    return !is_nan_f32(a) & !is_nan_f32(b) & (cmp_key_f32(a) < cmp_key_f32(b));
}

fn le_f32(a: f32, b: f32) -> bool {
    return !is_nan_f32(a) & !is_nan_f32(b) & (cmp_key_f32(a) <= cmp_key_f32(b));
}
