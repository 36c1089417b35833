// Scatter, the pass over the updates: one invocation per update i (C order over the collapsed
// indices shape) finds its target and combines with an integer atomic, so the result does not
// depend on the order invocations run in.  ${what}
// Bindings: 0 P (uniform), 1 in0 (int64 indices), 2 in1 (updates; unused by "winner"),
// 3 out0 (read_write, array<atomic<${atomic}>>: out's buffer, or a winners/keys buffer with one
// word per element of out).
// Params: the common block over the indices shape with operands 0 = indices (int64 elements),
// 1 = updates, 2 = out's buffer view, 3 = out's C-order positions (both with the axis stride
// zeroed); extra slots [0] out's axis stride, [1] out's C-order axis stride, [2] axis size.
${header}

fn extra(i: u32) -> u32 {
    let nd = prm(3u);
    return prm(4u + nd + 4u * (nd + 1u) + i);
}

// The target's coordinate along the axis (negative counts from the end; clamped, see gather).
fn target_axis(i: u32) -> i32 {
    let size = i32(extra(2u));
    var v = bitcast<i32>(in0[strided_index(i, 0u) * 2u]);
    v = select(v, v + size, v < 0);
    return clamp(v, 0, size - 1);
}

// Element index of update i's target in out's buffer.
fn target_element(i: u32) -> u32 {
    return u32(i32(strided_index(i, 2u)) + target_axis(i) * bitcast<i32>(extra(0u)));
}

// C-order position of update i's target in out (index into a winners/keys buffer).
fn target_position(i: u32) -> u32 {
    return strided_index(i, 3u) + u32(target_axis(i)) * extra(1u);
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (i >= prm(2u)) {
        return;
    }
${body}
}
