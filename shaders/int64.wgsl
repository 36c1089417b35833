// int64 / uint64 as vec2<u32>(lo, hi): two's complement arithmetic with carries, NumPy's
// semantics (wrapping add/sub/mul, floor division and modulo with x // 0 == x % 0 == 0, shifts
// past the width give 0 or the sign) and the CPU device's conversions (float -> int truncates,
// NaN -> 0, saturates; int -> float32 rounds to nearest even).
// Uniforms/bindings: none; needs int32.wgsl (mul_wide_u32) and prelude.wgsl.
// Dtypes: i64, u64 (the same vec2<u32>; the function name says how the bits are read).

fn add_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn neg_u64(a: vec2<u32>) -> vec2<u32> {
    return sub_u64(vec2<u32>(0u), a);
}

fn mul_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let w = mul_wide_u32(a.x, b.x);  // (hi, lo)
    return vec2<u32>(w.y, w.x + a.x * b.y + a.y * b.x);
}

fn nz_u64(a: vec2<u32>) -> bool {
    return (a.x | a.y) != 0u;
}

fn is_neg_i64(a: vec2<u32>) -> bool {
    return (a.y >> 31u) != 0u;
}

fn abs_i64(a: vec2<u32>) -> vec2<u32> {
    return select(a, neg_u64(a), is_neg_i64(a));
}

fn sign_i64(a: vec2<u32>) -> vec2<u32> {
    if (is_neg_i64(a)) {
        return vec2<u32>(0xffffffffu);
    }
    return vec2<u32>(select(0u, 1u, nz_u64(a)), 0u);
}

fn eq_u64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x == b.x && a.y == b.y;
}

fn lt_u64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn lt_i64(a: vec2<u32>, b: vec2<u32>) -> bool {
    let ah = bitcast<i32>(a.y);
    let bh = bitcast<i32>(b.y);
    return ah < bh || (ah == bh && a.x < b.x);
}

fn max_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, lt_u64(a, b));
}

fn min_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, lt_u64(b, a));
}

fn max_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, lt_i64(a, b));
}

fn min_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, lt_i64(b, a));
}

// -- shifts: a count >= 64 (or negative, read as a huge unsigned count) shifts everything out ----

fn shl_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let n = b.x;
    if (b.y != 0u || n >= 64u) {
        return vec2<u32>(0u);
    }
    if (n >= 32u) {
        return vec2<u32>(0u, a.x << (n - 32u));
    }
    if (n == 0u) {
        return a;
    }
    return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

fn shr_bits64(a: vec2<u32>, b: vec2<u32>, fill: u32) -> vec2<u32> {
    let n = b.x;
    if (b.y != 0u || n >= 64u) {
        return vec2<u32>(fill);
    }
    if (n == 0u) {
        return a;
    }
    // the high word shifted arithmetically when fill is all ones
    let hi_shift = select(a.y >> (n & 31u), bitcast<u32>(bitcast<i32>(a.y) >> (n & 31u)),
                          fill != 0u);
    if (n >= 32u) {
        return vec2<u32>(hi_shift, fill);
    }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), hi_shift);
}

fn shr_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return shr_bits64(a, b, 0u);
}

fn shr_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return shr_bits64(a, b, select(0u, 0xffffffffu, is_neg_i64(a)));
}

fn shl_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return shl_u64(a, b);
}

// -- division: restoring long division, one quotient bit per step ------------------------------

// (quotient.lo, quotient.hi, remainder.lo, remainder.hi) of n / d; d == 0 gives zeros.
fn divmod_u64(n: vec2<u32>, d: vec2<u32>) -> vec4<u32> {
    if (!nz_u64(d)) {
        return vec4<u32>(0u);
    }
    if (n.y == 0u && d.y == 0u) {
        return vec4<u32>(n.x / d.x, 0u, n.x % d.x, 0u);
    }
    var q = vec2<u32>(0u);
    var r = vec2<u32>(0u);
    for (var i = 63; i >= 0; i = i - 1) {
        let k = u32(i);
        let bit = select(n.x >> (k & 31u), n.y >> ((k - 32u) & 31u), k >= 32u) & 1u;
        // r < 2^k before this step (k bits consumed, k < 64): the shift cannot overflow
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if (!lt_u64(r, d)) {
            r = sub_u64(r, d);
            if (k >= 32u) {
                q.y = q.y | (1u << (k - 32u));
            } else {
                q.x = q.x | (1u << k);
            }
        }
    }
    return vec4<u32>(q, r);
}

fn floor_div_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return divmod_u64(a, b).xy;
}

fn remainder_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return divmod_u64(a, b).zw;
}

fn floor_div_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let negative = is_neg_i64(a) != is_neg_i64(b);
    let qr = divmod_u64(abs_i64(a), abs_i64(b));  // |INT64_MIN| reads as 2^63 unsigned
    var q = qr.xy;
    if (negative) {
        q = neg_u64(q);
        if (nz_u64(qr.zw)) {
            q = sub_u64(q, vec2<u32>(1u, 0u));
        }
    }
    return q;
}

fn remainder_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let qr = divmod_u64(abs_i64(a), abs_i64(b));
    var r = select(qr.zw, neg_u64(qr.zw), is_neg_i64(a));  // truncated remainder, sign of a
    if (nz_u64(r) && is_neg_i64(r) != is_neg_i64(b)) {
        r = add_u64(r, b);
    }
    return r;
}

// -- gcd / lcm of the magnitudes (binary gcd as in int32.wgsl; the result wraps) ---------------

fn ctz_u64(a: vec2<u32>) -> u32 {
    return select(countTrailingZeros(a.x), 32u + countTrailingZeros(a.y), a.x == 0u);
}

fn gcd_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (!nz_u64(a) || !nz_u64(b)) {
        return vec2<u32>(a.x | b.x, a.y | b.y);
    }
    let k = ctz_u64(vec2<u32>(a.x | b.x, a.y | b.y));
    var x = shr_u64(a, vec2<u32>(ctz_u64(a), 0u));
    var y = b;
    loop {
        y = shr_u64(y, vec2<u32>(ctz_u64(y), 0u));  // y != 0 here
        if (lt_u64(y, x)) {
            let t = x;
            x = y;
            y = t;
        }
        y = sub_u64(y, x);
        if (!nz_u64(y)) {
            break;
        }
    }
    return shl_u64(x, vec2<u32>(k, 0u));
}

fn lcm_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let g = gcd_u64(a, b);
    if (!nz_u64(g)) {
        return vec2<u32>(0u);
    }
    return mul_u64(floor_div_u64(a, g), b);
}

fn gcd_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return gcd_u64(abs_i64(a), abs_i64(b));  // |INT64_MIN| reads as 2^63 unsigned
}

fn lcm_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return lcm_u64(abs_i64(a), abs_i64(b));
}

// a ** b by squaring (wraps); a negative exponent gives the truncated 1 / a**-b.
fn pow_u64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    var result = vec2<u32>(1u, 0u);
    var base = a;
    var e = b;
    loop {
        if (!nz_u64(e)) {
            break;
        }
        if ((e.x & 1u) == 1u) {
            result = mul_u64(result, base);
        }
        base = mul_u64(base, base);
        e = shr_u64(e, vec2<u32>(1u, 0u));
    }
    return result;
}

fn pow_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (is_neg_i64(b)) {
        if (eq_u64(a, vec2<u32>(1u, 0u))) {
            return a;
        }
        if (eq_u64(a, vec2<u32>(0xffffffffu))) {
            return select(a, vec2<u32>(1u, 0u), (b.x & 1u) == 0u);
        }
        return vec2<u32>(0u);
    }
    return pow_u64(a, b);
}

// -- conversions ---------------------------------------------------------------------------------

fn i32_to_i64(a: i32) -> vec2<u32> {
    return vec2<u32>(bitcast<u32>(a), select(0u, 0xffffffffu, a < 0));
}

// Rounded to nearest even: the bits below the top 32 fold into a sticky bit, then the 32-bit
// conversion rounds once (it keeps 24 of the 32 bits, so the sticky bit only breaks ties).
fn u64_to_f32(a: vec2<u32>) -> f32 {
    if (a.y == 0u) {
        return u32_to_f32(a.x);
    }
    let n = 32u - countLeadingZeros(a.y);  // bits of the high word, 1..32
    var top = a.y;
    var sticky = a.x != 0u;
    if (n < 32u) {
        top = (a.y << (32u - n)) | (a.x >> n);
        sticky = (a.x & ((1u << n) - 1u)) != 0u;
    }
    return u32_to_f32(top | select(0u, 1u, sticky)) * pow2_f32(i32(n));
}

fn i64_to_f32(a: vec2<u32>) -> f32 {
    let m = u64_to_f32(abs_i64(a));
    return select(m, -m, is_neg_i64(a));
}

// |x| < 2^64 truncated, as (lo, hi); exact (the halves of an integer-valued f32 are exact).
fn f32_trunc_u64(ax: f32) -> vec2<u32> {
    let t = trunc(ax);
    let hi = floor(t * 2.3283064365386963e-10);  // 2^-32
    return vec2<u32>(u32(t - hi * 4294967296.0), u32(hi));
}

fn f32_to_i64(x: f32) -> vec2<u32> {
    if (is_nan_f32(x)) {
        return vec2<u32>(0u);
    }
    if (x >= 9223372036854775808.0) {
        return vec2<u32>(0xffffffffu, 0x7fffffffu);
    }
    if (x <= -9223372036854775808.0) {
        return vec2<u32>(0u, 0x80000000u);
    }
    let m = f32_trunc_u64(abs_f32(x));
    return select(m, neg_u64(m), sign_bit_f32(x));
}

fn f32_to_u64(x: f32) -> vec2<u32> {
    if (is_nan_f32(x) || x <= 0.0) {
        return vec2<u32>(0u);
    }
    if (x >= 18446744073709551616.0) {
        return vec2<u32>(0xffffffffu);
    }
    return f32_trunc_u64(x);
}
