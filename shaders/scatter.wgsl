// Scatter, the pass over the updates: each update i (C order over the collapsed indices shape)
// finds its target and combines with an integer atomic, so the result does not depend on the
// order invocations run in.  ${what}
// Bindings: 0 P (uniform), 1 in0 (int32 or int64 indices: the low word is read), 2 in1
// (updates; unused by "winner"), 3 out0 (read_write, array<atomic<${atomic}>>: out's buffer, or
// a winners/keys buffer with one word per element of out, or the exact sums' accumulators).
// Params: the common block over the indices shape with operands 0 = indices (elements),
// 1 = updates, 2 = out's buffer view, 3 = out's C-order positions (both with the axis stride
// zeroed); extra slots [0] out's axis stride, [1] out's C-order axis stride, [2] axis size,
// [3] (kind "sum") the index of the word flagging an index outside [0, axis size).
// The operands' index functions are generated for this layout (constant uniform slots:
// SwiftShader runs a loop over dynamically indexed ones several times slower).
${header}

${functions}

fn extra(k: u32) -> u32 {
    return prm(${extra}u + k);
}

// The target's coordinate along the axis (negative counts from the end; clamped, see gather).
fn target_axis(i: u32) -> i32 {
    let size = i32(extra(2u));
    var v = bitcast<i32>(in0[${indices_at}]);
    v = select(v, v + size, v < 0);
    return clamp(v, 0, size - 1);
}

// Element index of update i's target in out's buffer.
fn target_element(i: u32) -> u32 {
    return u32(i32(${out_at}) + target_axis(i) * bitcast<i32>(extra(0u)));
}

// Whether update i's index lies in [0, axis size) (negative ones do not).
fn index_in_range(i: u32) -> bool {
    let at = ${indices_at};
    return in0[at] < extra(2u)${high_is_zero};
}

// C-order position of update i's target in out (index into a winners/keys buffer).
fn target_position(i: u32) -> u32 {
    return ${position_at} + u32(target_axis(i)) * extra(1u);
}

// Element index of update i in the updates' buffer.
fn update_index(i: u32) -> u32 {
    return ${updates_at};
}

// Each invocation handles up to kernels.ITEMS updates (kernels.entry_point).
${main}
