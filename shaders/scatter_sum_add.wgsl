// Exact float sums for scatter-add, the update side (appended to scatter.wgsl, kind "sum", and
// scatter_sum_vec4.wgsl; the result side is scatter_sum.wgsl).  Every float32 is an integer
// multiple of 2^-149, so a sum of float32 values is a fixed-point integer; each target
// accumulates it exactly with integer atomics, one integer for the positive and one for the
// negative terms.  Integer addition is exact and commutes, so the accumulator does not depend
// on the order invocations run in.
// Each integer is kept as SUM_WINDOWS window words and as many carry counts, B =
// SUM_WINDOW_BITS (gather.py) apart: window w counts units of 2^(Bw - 149), its carry count
// units of 2^(Bw + 32 - 149).  A term m * 2^(s - 149) (m the 24-bit significand, or a
// subnormal's fraction with s = 0) adds m << (s % B) (< 2^(23 + B)) to window s / B, and 1 to
// that window's carry count when the add wraps (the count, at most the number of updates, never
// does).  A window wraps about once in 2^(8 - B) of its adds, so the carry's atomic sits behind
// a branch that whole SIMD groups rarely take.  Zeros, NaN and infinities, which are rare,
// take a branch of their own (`sum_mark`; the vector pass runs it in a second walk over the
// updates of an invocation that met one).
// Accumulator slot (SUM_SLOT words, zero-filled): [0, W) the positive terms' windows, [W, 2W)
// their carry counts, [2W, 4W) the same for the negative terms (W = SUM_WINDOWS), then
// SUM_SPECIAL + [0] zeros (atomicMax: 1 a -0.0 term, 2 a +0.0 term), [1], [2], [3] the bitwise
// complement of the first position (C order of the updates, from 1) of a NaN, a +inf and a
// -inf term (atomicMax of the complement keeps the first; 0, the fill, reads back as "none").
// A slot with a word set has been touched.

const SUM_WINDOW_BITS: u32 = ${window_bits}u;
const SUM_WINDOWS: u32 = ${windows}u;
const SUM_SPECIAL: u32 = 4u * SUM_WINDOWS;
const SUM_SLOT: u32 = SUM_SPECIAL + 4u;

// Add the float32 term with bits `b` at update position `pos` (>= 1) into slot `slot`.
fn sum_add(slot: u32, b: u32, pos: u32) {
    let base = slot * SUM_SLOT;
    sum_add_windows(base, b);
    sum_mark(base, b, pos);
}

// The window and carry atomics of a term (nothing for zeros, NaN and infinities).
fn sum_add_windows(base: u32, b: u32) {
    let e = (b >> 23u) & 0xffu;
    let negative = b >= 0x80000000u;
    let finite = e != 255u;
    let s = max(e, 1u) - 1u;
    let m = (b & 0x7fffffu) | select(0x800000u, 0u, e == 0u);
    let v = select(0u, m << (s % SUM_WINDOW_BITS), finite);
    let w = base + select(0u, 2u * SUM_WINDOWS, negative) + s / SUM_WINDOW_BITS;
    let old = atomicAdd(&out0[w], v);
    if (old > ~v) {
        atomicAdd(&out0[w + SUM_WINDOWS], 1u);
    }
}

// A zero, NaN or infinity: the terms `sum_mark` records.
fn sum_special(b: u32) -> bool {
    let mag = b & 0x7fffffffu;
    return mag == 0u || mag >= 0x7f800000u;
}

// Zeros mark the slot; NaN and infinities keep their first position.
fn sum_mark(base: u32, b: u32, pos: u32) {
    if (sum_special(b)) {
        let mag = b & 0x7fffffffu;
        let negative = b >= 0x80000000u;
        let finite = mag < 0x7f800000u;
        let k = select(0u, select(select(2u, 3u, negative), 1u, mag > 0x7f800000u), !finite);
        let key = select(select(2u, 1u, negative), ~pos, !finite);
        atomicMax(&out0[base + SUM_SPECIAL + k], key);
    }
}
