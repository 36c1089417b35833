// Accumulator arithmetic shared by the reduction and scan kernels (reduce.wgsl, scan.wgsl,
// scan_carry.wgsl).  An accumulator is a vec4<u32> whose meaning depends on the op family
// (backends/webgpu/reduce.py writes the per-family identity / lift / merge / out functions):
//   float32 sum:  x, y, z = hi, mid, lo (f32 bits) of a triple-float value hi + mid + lo,
//                 w = 1 when they are scaled by 2^-64 (a sum beyond float32's range)
//   float32 prod: x, y = hi, lo (f32 bits) with |hi| in [0.5, 1), z = exponent e (i32 bits),
//                 w = flags (zero / inf / NaN seen): the value is (hi + lo) * 2^e
//   max/min:      x = an order key (u32); argmax/argmin: x = key, y = index in the row
//   wrapping integer sum/prod, any/all: x = the u32 value
//   int64/uint64: sum/prod x, y = (lo, hi); max/min x, y = a 64-bit key (high, low);
//                 argmax/argmin x, y = key, z = index
// float16/bfloat16 use the float32 sum/prod accumulators (their values are exact in float32)
// and round once at the end (reduce_half.wgsl, appended for those dtypes).
// Uniforms/bindings: uses in0's length and (GPUs) uniform slot 0 (rd_opq); needs params.wgsl
// and prelude.wgsl.
// Dtypes: every 8/16/32/64-bit int, bool, float16/bfloat16/float32 (as their compute types).

// An identity the shader compiler cannot see through, so fast-math rewrites such as
// (a + b) - a -> b stay away from error-free transformations.  Two zeros that different
// compilers cannot prove:
// - in0's length shifted past any binding (at most 128 MiB: 2^25 words, 2^23 vec4s), for CPU
//   adapters: lavapipe inlines uniform values into shaders whose loops they bound, so it
//   folds params.wgsl's `opq` and reassociates two_sum into zero (seen: a triple-float scan
//   lost its low words);
// - uniform slot 0 as well on GPUs (IEEE_ARITHMETIC false): NVIDIA's Vulkan compiler knows a
//   binding's bound, folds the shift to 0 and then reassociates (seen: [1e8, 1e-3 x 10^4,
//   -1e8] summed to 0 on an H200).  (CPU adapters skip the xor: it costs them per use.)
fn rd_opq(x: f32) -> f32 {
    let hidden = bitcast<u32>(x) + (arrayLength(&in0) >> 27u);
    if (IEEE_ARITHMETIC) {
        return bitcast<f32>(hidden);
    }
    return bitcast<f32>(hidden ^ P[0].x);
}

// -- error-free transformations ------------------------------------------------------------------
// Every operand of an error expression goes through rd_opq, not just the rounded results.

// (s, e): s = fl(a + b) and a + b = s + e exactly.
fn rd_two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = rd_opq(a + b);
    let bb = rd_opq(s - a);
    return vec2<f32>(s, rd_opq(a - rd_opq(s - bb)) + rd_opq(b - bb));
}

// Top 12 significant bits of x; x - rd_split(x) is exact and fits 12 bits too.
fn rd_split(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
}

// (p, e): p = fl(a * b) and a * b = p + e exactly (Dekker; every partial product is exact).
fn rd_two_prod(a: f32, b: f32) -> vec2<f32> {
    let p = rd_opq(a * b);
    let ah = rd_split(a);
    let al = a - ah;
    let bh = rd_split(b);
    let bl = b - bh;
    var e = rd_opq(rd_opq(ah * bh) - p);
    e = rd_opq(e + rd_opq(ah * bl));
    e = rd_opq(e + rd_opq(al * bh));
    return vec2<f32>(p, e + rd_opq(al * bl));
}

fn rd_pack(hi: f32, lo: f32, z: u32, w: u32) -> vec4<u32> {
    return vec4<u32>(bitcast<u32>(hi), bitcast<u32>(lo), z, w);
}

// -- float32 sum ----------------------------------------------------------------------------------
// A triple-float hi + mid + lo: adding a float32 rounds only the lo component, so a sum keeps
// about 72 bits and matches the CPU's float64 left-to-right sum even after heavy cancellation
// (a double-float pair measurably drifts by tens of ULP on [1e8, 1e-3 x 10^4, -1e8]).
// Range: w = 1 means the components hold the value times 2^-64.  A sum switches to that scale
// when it would overflow float32, so [max, max, -max] gives max as float64 would (addends below
// 2^-62 vanish then, far under the 72 bits kept of a partial sum beyond 2^128).

const SUM_DOWN: f32 = 0x1p-64f;
const SUM_UP: f32 = 0x1p64f;

fn fsum_scaled(a: vec4<u32>) -> vec4<u32> {
    let hi = bitcast<f32>(a.x);
    if (a.w != 0u || !is_finite_f32(hi)) {
        return a;
    }
    return rd_pack(hi * SUM_DOWN, bitcast<f32>(a.y) * SUM_DOWN,
                   bitcast<u32>(bitcast<f32>(a.z) * SUM_DOWN), 1u);
}

// a + v with v already in a's scale.
fn fsum_add_raw(acc: vec4<u32>, value: f32) -> vec4<u32> {
    var a = acc;
    var x = value;
    let plain = bitcast<f32>(a.x) + x;
    if (!is_finite_f32(plain)) {
        if (a.w != 0u || !is_finite_f32(bitcast<f32>(a.x)) || !is_finite_f32(x)) {
            // inf or NaN met: plain float arithmetic decides (inf - inf is NaN, NaN sticks)
            return vec4<u32>(bitcast<u32>(plain), 0u, 0u, 0u);
        }
        a = fsum_scaled(a);  // overflow: continue at the 2^-64 scale
        x = x * SUM_DOWN;
    }
    let hi = bitcast<f32>(a.x);
    let s = rd_two_sum(hi, x);
    let m = rd_two_sum(bitcast<f32>(a.y), s.y);
    let lo = bitcast<f32>(a.z) + m.y;
    let h = rd_two_sum(s.x, m.x);
    let t = rd_two_sum(h.y, lo);
    // an exact zero tail keeps s (and the sign of -0.0 + -0.0)
    let head = select(h.x, s.x, m.x == 0.0 && lo == 0.0);
    return rd_pack(head, t.x, bitcast<u32>(t.y), a.w);
}

fn fsum_add(a: vec4<u32>, x: f32) -> vec4<u32> {
    return fsum_add_raw(a, select(x, x * SUM_DOWN, a.w != 0u));
}

// A reduction's inner loop folds four elements with a cheaper step and renormalizes once:
// each element's two error-free additions keep hi + mid exact and round only lo, as
// fsum_add_raw does, but mid may grow to a few ULP of hi until fsum_norm's two exact additions
// (hi + mid, then its error + lo) restore the triple-float.  The rounding error per element
// stays of order 2^-70 of the largest partial sum.  There is no overflow test: once a step
// meets inf, NaN or float32's range, hi stays inf or NaN, and the kernel folds the whole chunk
// again with fsum_add (reduce.py's _FOLDS4; a CPU adapter that runs every branch for every lane
// then pays for the careful code once per chunk, not once per element).
fn fsum_add_lazy(a: vec4<u32>, x: f32) -> vec4<u32> {
    let s = rd_two_sum(bitcast<f32>(a.x), select(x, x * SUM_DOWN, a.w != 0u));
    let m = rd_two_sum(bitcast<f32>(a.y), s.y);
    return rd_pack(s.x, m.x, bitcast<u32>(bitcast<f32>(a.z) + m.y), a.w);
}

fn fsum_norm(acc: vec4<u32>) -> vec4<u32> {
    var a = acc;
    if (!is_finite_f32(bitcast<f32>(a.x) + bitcast<f32>(a.y))) {
        a = fsum_scaled(a);  // hi + mid rounds beyond float32: renormalize at the 2^-64 scale
    }
    let hi = bitcast<f32>(a.x);
    let mid = bitcast<f32>(a.y);
    let lo = bitcast<f32>(a.z);
    let h = rd_two_sum(hi, mid);
    let t = rd_two_sum(h.y, lo);
    // an exact zero tail keeps hi (and the sign of -0.0 + -0.0)
    return rd_pack(select(h.x, hi, mid == 0.0 && lo == 0.0), t.x, bitcast<u32>(t.y), a.w);
}

fn fsum_fold4(a: vec4<u32>, x0: f32, x1: f32, x2: f32, x3: f32) -> vec4<u32> {
    let b = fsum_add_lazy(fsum_add_lazy(fsum_add_lazy(fsum_add_lazy(a, x0), x1), x2), x3);
    return fsum_norm(b);
}

fn fsum_merge(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    var acc = a;
    var other = b;
    if (a.w != b.w) {
        acc = fsum_scaled(a);
        other = fsum_scaled(b);
    }
    acc = fsum_add_raw(acc, bitcast<f32>(other.x));
    if (other.y != 0u) {
        acc = fsum_add_raw(fsum_add_raw(acc, bitcast<f32>(other.y)), bitcast<f32>(other.z));
    }
    return acc;
}

// The float32 nearest hi + mid + lo (times 2^64 at the large scale: overflows to inf).
fn fsum_out(a: vec4<u32>) -> u32 {
    let hi = bitcast<f32>(a.x);
    var r = hi;
    if (is_finite_f32(hi) && a.y != 0u) {
        r = hi + (bitcast<f32>(a.y) + bitcast<f32>(a.z));
    }
    if (a.w != 0u) {
        r = r * SUM_UP;
    }
    return bitcast<u32>(r);
}

// -- float32 product ------------------------------------------------------------------------------

const PROD_ZERO: u32 = 1u;
const PROD_INF: u32 = 2u;
const PROD_NAN: u32 = 4u;

// x as (m, 0, e, flags) with x = m * 2^e, |m| in [0.5, 1); zeros, infinities and NaN only set a
// flag (their sign goes into m = +-0.5, e = 1).  Subnormals are normalized with integer shifts
// (the GPU may flush subnormal arithmetic).
fn fprod_lift(x: f32) -> vec4<u32> {
    let b = bitcast<u32>(x);
    let mag = b & 0x7fffffffu;
    let sign = b & 0x80000000u;
    if (mag == 0u) {
        return vec4<u32>(sign | 0x3f000000u, 0u, 1u, PROD_ZERO);
    }
    if (mag == 0x7f800000u) {
        return vec4<u32>(sign | 0x3f000000u, 0u, 1u, PROD_INF);
    }
    if (mag > 0x7f800000u) {
        return vec4<u32>(0x3f000000u, 0u, 1u, PROD_NAN);
    }
    var field = i32(mag >> 23u);
    var frac = mag & 0x7fffffu;
    if (field == 0) {
        let top = 31u - countLeadingZeros(frac);
        frac = (frac << (23u - top)) & 0x7fffffu;
        field = i32(top) - 22;
    }
    return vec4<u32>(sign | (126u << 23u) | frac, 0u, bitcast<u32>(field - 126), 0u);
}

fn fprod_merge(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let ah = bitcast<f32>(a.x);
    let al = bitcast<f32>(a.y);
    let bh = bitcast<f32>(b.x);
    let bl = bitcast<f32>(b.y);
    let p = rd_two_prod(ah, bh);
    let tail = p.y + (ah * bl + al * bh);
    var hi = rd_opq(p.x + tail);
    var lo = rd_opq(tail) - rd_opq(hi - p.x);
    var e = bitcast<i32>(a.z) + bitcast<i32>(b.z);
    // |hi| is in [0.25, 1]: scale by 2 exactly back into [0.5, 1)
    if (abs(hi) < 0.5) {
        hi = hi * 2.0;
        lo = lo * 2.0;
        e = e - 1;
    } else if (abs(hi) >= 1.0) {
        hi = hi * 0.5;
        lo = lo * 0.5;
        e = e + 1;
    }
    e = clamp(e, -0x20000000, 0x20000000);  // far outside float32's range, never wraps
    return rd_pack(hi, lo, bitcast<u32>(e), a.w | b.w);
}

// The float32 bits of (hi + lo) * 2^e, rounded to nearest even (subnormals built from bits).
fn fprod_out(a: vec4<u32>) -> u32 {
    let flags = a.w;
    if ((flags & PROD_NAN) != 0u || (flags & (PROD_ZERO | PROD_INF)) == (PROD_ZERO | PROD_INF)) {
        return 0x7fc00000u;
    }
    let sign = a.x & 0x80000000u;
    if ((flags & PROD_INF) != 0u) {
        return sign | 0x7f800000u;
    }
    if ((flags & PROD_ZERO) != 0u) {
        return sign;
    }
    let biased = 126 + bitcast<i32>(a.z);
    if (biased >= 255) {
        return sign | 0x7f800000u;
    }
    if (biased >= 1) {
        return sign | (u32(biased) << 23u) | (a.x & 0x7fffffu);
    }
    let shift = u32(1 - biased);
    if (shift > 24u) {
        return sign;
    }
    let m = (a.x & 0x7fffffu) | 0x800000u;
    var q = m >> shift;
    let rem = m & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    let lo = a.y & 0x7fffffffu;
    let lo_up = lo != 0u && (a.y & 0x80000000u) == sign;
    let tie_up = lo_up || (lo == 0u && (q & 1u) == 1u);
    if (rem > half || (rem == half && tie_up)) {
        q = q + 1u;
    }
    return sign | q;
}

// -- order keys (u32, ascending like the values) ------------------------------------------------

fn f32_order_key(x: f32) -> u32 {
    return bitcast<u32>(f32_key(x)) ^ 0x80000000u;
}

// max/min keys: NaN gets the key that wins (all ones for max, zero for min).
fn f32_from_order_key(k: u32) -> u32 {
    if (k == 0xffffffffu || k == 0u) {
        return 0x7fc00000u;
    }
    return bitcast<u32>(f32_from_key(bitcast<i32>(k ^ 0x80000000u)));
}

// argmax/argmin: -0.0 and +0.0 tie (the first wins), so both get +0.0's key.
fn f32_arg_key(x: f32) -> u32 {
    let k = f32_order_key(x);
    return select(k, 0x80000000u, k == 0x7fffffffu);
}

// The earlier of two (key, index) pairs with the larger key.
fn arg_merge(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    if (b.x > a.x || (b.x == a.x && b.y < a.y)) {
        return b;
    }
    return a;
}

// -- 64-bit integers (int64/uint64 as vec2<u32> (lo, hi); int64.wgsl has the arithmetic) --------
// max/min keys are (high word, low word) of an order-preserving transform; argmax/argmin keep
// (key high, key low, index) in x, y, z.

fn key64_gt(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x > b.x || (a.x == b.x && a.y > b.y);
}

fn arg64_merge(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    if (key64_gt(b.xy, a.xy) || (all(b.xy == a.xy) && b.z < a.z)) {
        return b;
    }
    return a;
}
