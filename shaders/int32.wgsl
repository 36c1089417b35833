// Integer helpers with NumPy's semantics where WGSL differs.
// Uniforms/bindings: none.  Dtypes: i32, u32 (wrapping two's complement arithmetic).
// WGSL: a / 0 == a, a % 0 == 0, INT_MIN / -1 == INT_MIN, truncating division, shift counts
// taken modulo 32.  NumPy: x // 0 == x % 0 == 0, floor division, shifts past the width give 0
// (or the sign for arithmetic right shifts of negative values).
// The signed remainder is a - b * (a / b), not WGSL's `%`: NVIDIA's Vulkan driver returned a
// itself for `a % b` with b < 0 (7 % -2 == 7; seen on an H200), while its `/` was right.

// a - b * trunc(a / b), wrapping (INT_MIN and -1: 0), for b != 0.
fn trunc_rem_i32(a: i32, b: i32, q: i32) -> i32 {
    return a - b * q;
}

fn floor_div_i32(a: i32, b: i32) -> i32 {
    if (b == 0) {
        return 0;
    }
    let q = a / b;  // INT_MIN / -1 == INT_MIN: NumPy wraps the same way
    if ((trunc_rem_i32(a, b, q) != 0) & ((a < 0) != (b < 0))) {
        return q - 1;
    }
    return q;
}

fn remainder_i32(a: i32, b: i32) -> i32 {
    if (b == 0) {
        return 0;
    }
    let r = trunc_rem_i32(a, b, a / b);
    if ((r != 0) & ((r < 0) != (b < 0))) {
        return r + b;
    }
    return r;
}

fn floor_div_u32(a: u32, b: u32) -> u32 {
    return select(a / max(b, 1u), 0u, b == 0u);
}

fn remainder_u32(a: u32, b: u32) -> u32 {
    return select(a % max(b, 1u), 0u, b == 0u);
}

// a ** b by squaring (wraps); a negative exponent gives 1 / a**-b truncated (cpu_numpy._int_pow).
fn pow_i32(a: i32, b: i32) -> i32 {
    if (b < 0) {
        if (a == 1) {
            return 1;
        }
        if (a == -1) {
            return select(-1, 1, (b & 1) == 0);
        }
        return 0;
    }
    return bitcast<i32>(pow_u32(bitcast<u32>(a), u32(b)));
}

fn pow_u32(a: u32, b: u32) -> u32 {
    var result = 1u;
    var base = a;
    var e = b;
    loop {
        if (e == 0u) {
            break;
        }
        if ((e & 1u) == 1u) {
            result = result * base;
        }
        base = base * base;
        e = e >> 1u;
    }
    return result;
}

fn shl_i32(a: i32, b: i32) -> i32 {
    return select(a << u32(b & 31), 0, b < 0 || b >= 32);
}

fn shr_i32(a: i32, b: i32) -> i32 {
    return select(a >> u32(b & 31), select(0, -1, a < 0), b < 0 || b >= 32);
}

fn shl_u32(a: u32, b: u32) -> u32 {
    return select(a << (b & 31u), 0u, b >= 32u);
}

fn shr_u32(a: u32, b: u32) -> u32 {
    return select(a >> (b & 31u), 0u, b >= 32u);
}

fn sign_i32(a: i32) -> i32 {
    return select(select(0, -1, a < 0), 1, a > 0);
}

// gcd / lcm of the magnitudes (NumPy's exact result; the store wraps it to the dtype, so
// gcd(INT_MIN, 0) is INT_MIN again).  Stein's binary algorithm: shifts and subtractions only.
fn gcd_u32(a: u32, b: u32) -> u32 {
    if (a == 0u || b == 0u) {
        return a | b;
    }
    let k = countTrailingZeros(a | b);
    var x = a >> countTrailingZeros(a);
    var y = b;
    loop {
        y = y >> countTrailingZeros(y);  // y != 0 here
        if (x > y) {
            let t = x;
            x = y;
            y = t;
        }
        y = y - x;
        if (y == 0u) {
            break;
        }
    }
    return x << k;
}

fn lcm_u32(a: u32, b: u32) -> u32 {
    let g = gcd_u32(a, b);
    return select((a / max(g, 1u)) * b, 0u, g == 0u);  // wraps like NumPy's product
}

// |a| as u32 (|INT_MIN| is 2^31)
fn magnitude_i32(a: i32) -> u32 {
    return select(bitcast<u32>(a), 0u - bitcast<u32>(a), a < 0);
}

fn gcd_i32(a: i32, b: i32) -> i32 {
    return bitcast<i32>(gcd_u32(magnitude_i32(a), magnitude_i32(b)));
}

fn lcm_i32(a: i32, b: i32) -> i32 {
    return bitcast<i32>(lcm_u32(magnitude_i32(a), magnitude_i32(b)));
}

// (high, low) words of the 64-bit product a * b.
fn mul_wide_u32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let lo = (mid << 16u) | (p00 & 0xffffu);
    let hi = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(hi, lo);
}
