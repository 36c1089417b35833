// Exact float sums for scatter-add, the update pass for contiguous 1-D operands: as
// scatter.wgsl's kind "sum" (scatter_sum_add.wgsl adds each float32 term into its target's
// accumulator slot), but every invocation loads four consecutive indices and updates with vec4
// reads (SwiftShader pays per load: about half the time of four scalar loads each).
// Zeros, NaN and infinities (rare) are marked in a second walk over the vectors of an invocation
// that met one: in the same kernel on GPUs; on CPU adapters, which run a branch's code whether
// or not a lane takes it, in a second kernel dispatched for the listed invocations only (the
// deferred pair of kernels.RARE_PATHS: gather._vec4_main writes the entry point of each role).
// Bindings: 0 P (uniform), 1 in0 (indices as vec4<u32>: four int32 or two int64 per vector),
// 2 in1 (float32 updates as vec4<u32>), 3 out0 (read_write, array<atomic<u32>>: the slots).
// Both input buffers hold whole vectors past their last element (allocation sizes of 16 bytes'
// multiples): the lanes past n are read, not used.
// An index outside [0, axis size) (negative ones too) sets the flag word (any value but 0).
// Params: [1] n updates, [2] threads, [3] ndim 0, then [4] the indices' offset in vectors,
// [5] the updates' offset in vectors, [6] out's axis size, [7] out's C-order axis stride (the
// collapsed indices shape is 1-D: every update's target differs only along the axis), [8] the
// flag word's index in out0.
${header}

// The accumulator base of the target at axis coordinate `v` (negative coordinates counting
// from the end, clamped as scatter.wgsl).
fn lane_base(v: u32) -> u32 {
    let size = prm(6u);
    let c = bitcast<i32>(v);
    let w = select(c, c + i32(size), c < 0);
    return u32(clamp(w, 0, i32(size) - 1)) * prm(7u) * SUM_SLOT;
}

// Add term `u` into the windows of the target at coordinate `v` (low word; `high`: an int64's
// high word); 1 when the index is outside [0, axis size), else 0.
fn add_lane(v: u32, high: u32, u: u32) -> u32 {
    sum_add_windows(lane_base(v), u);
    return select(0u, 1u, v >= prm(6u) || high != 0u);
}

// Adds vector q's terms into their targets' windows (lanes past n are not used); returns bit 0:
// an index outside [0, axis size), bit 1: a zero, NaN or infinity among the terms.
fn add_vector(q: u32) -> u32 {
    let i = 4u * q;
    let n = prm(1u);
${load}
    let u = in1[prm(5u) + q];
    // unrolled: a vector's lanes by constant index
    var outside = add_lane(v.x, high.x, u.x);
    var special = sum_special(u.x);
    if (i + 1u < n) {
        outside = outside | add_lane(v.y, high.y, u.y);
        special = special || sum_special(u.y);
    }
    if (i + 2u < n) {
        outside = outside | add_lane(v.z, high.z, u.z);
        special = special || sum_special(u.z);
    }
    if (i + 3u < n) {
        outside = outside | add_lane(v.w, high.w, u.w);
        special = special || sum_special(u.w);
    }
    return outside | select(0u, 2u, special);
}

// Marks the slots of vector q's zeros, NaN and infinities (sum_mark).
fn mark_vector(q: u32) {
    let i = 4u * q;
    let n = prm(1u);
${load}
    let u = in1[prm(5u) + q];
    sum_mark(lane_base(v.x), u.x, i + 1u);
    if (i + 1u < n) {
        sum_mark(lane_base(v.y), u.y, i + 2u);
    }
    if (i + 2u < n) {
        sum_mark(lane_base(v.z), u.z, i + 3u);
    }
    if (i + 3u < n) {
        sum_mark(lane_base(v.w), u.w, i + 4u);
    }
}

${main}
