// float16 / bfloat16 results of the float32 sum and product accumulators in reduce_lib.wgsl
// (appended to it by backends/webgpu/reduce.py for those dtypes).
// Uniforms/bindings: those of reduce_lib.wgsl; needs float16.wgsl.

// The float32 accumulators give r, the float32 nearest the exact result x, plus the sign of
// x - r.  The CPU device rounds x (a float64) to float16 once, and to bfloat16 through float32
// (x -> float32 -> bfloat16, two roundings).  So bfloat16 results are r rounded again, and
// float16 ones are r rounded except when r lies exactly half way between two float16 values
// (every such midpoint is a float32, so no other midpoint can separate x and r): then x
// decides, and r moves one float32 step toward x before the (ties-to-even) rounding.

// |r| (f32 bits, finite) is half way between two float16 values.
fn is_tie16(a: u32) -> bool {
    if (a >= 0x38800000u) {  // float16 normal range: 13 bits dropped
        return (a & 0x1fffu) == 0x1000u;
    }
    if (a < 0x33000000u) {  // below half the smallest subnormal
        return false;
    }
    // float16 subnormal: the significand in units of 2^-24 drops `shift` bits
    let shift = 126u - (a >> 23u);
    let m = (a & 0x7fffffu) | 0x800000u;
    return (m & ((1u << shift) - 1u)) == (1u << (shift - 1u));
}

// r rounded to float16 (bfloat16) bits as the CPU rounds x; `residual` has the sign of x - r
// (its bits only are read, so a flushed subnormal cannot hide it).
fn round16(r: u32, residual: u32, bf16: bool) -> u32 {
    if (bf16) {
        return f32_to_bf16_bits(bitcast<f32>(r));
    }
    var b = r;
    let a = b & 0x7fffffffu;
    if (a < 0x7f800000u && (residual & 0x7fffffffu) != 0u && is_tie16(a)) {
        // same signs: x is farther from zero than r
        b = select(b - 1u, b + 1u, (residual & 0x80000000u) == (b & 0x80000000u));
    }
    return f32_to_f16_bits(bitcast<f32>(b));
}

fn fsum_out16(a: vec4<u32>, bf16: bool) -> u32 {
    let r = fsum_out(a);
    var residual = 0u;
    if (!bf16 && a.w == 0u && a.y != 0u && is_finite_f32(bitcast<f32>(r))) {
        // x - r = (hi - r) + mid + lo; hi - r is exact (r is within a few ulp of hi)
        let d = rd_opq(bitcast<f32>(a.x) - bitcast<f32>(r));
        let p = rd_two_sum(d, bitcast<f32>(a.y));
        residual = bitcast<u32>(p.x + rd_opq(p.y + bitcast<f32>(a.z)));
    }
    return round16(r, residual, bf16);
}

// A product's r is hi * 2^e (for finite, normal float32 results) and x - r = lo * 2^e.
fn fprod_out16(a: vec4<u32>, bf16: bool) -> u32 {
    return round16(fprod_out(a), a.y, bf16);
}
