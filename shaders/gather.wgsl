// Gather (take_along_axis): out0[e] = x[..., index[e], ...] along one axis, for any dtype as
// raw bits: 1- and 2-byte elements packed in words (each invocation owns whole output words),
// 4-byte ones one per word, 8- and 16-byte ones ${words} words each (one invocation per word).
// Bindings: 0 P (uniform), 1 in0 (int32 or int64 indices: ${index_words} words each), 2 in1 (x),
// 3 out0 (read_write, contiguous).
// Params: the common block over the (collapsed) output shape with operand 0 = the indices view
// (int32 or int64 elements), operand 1 = x with its axis stride zeroed (stride 0 on broadcast
// dims); then the extra slots [0] x's axis stride (i32 bits), [1] x's size along the axis.
${header}

fn extra(i: u32) -> u32 {
    let nd = prm(3u);
    return prm(4u + nd + 2u * (nd + 1u) + i);
}

// Element index in x's buffer of output element e.  The frontend passes indices in range;
// a negative one counts from the end (as on the CPU), and anything else is clamped so that
// no read leaves the tensor.
fn source_index(e: u32) -> u32 {
    let size = i32(extra(1u));
    var v = bitcast<i32>(in0[${index_i} * ${index_words}u]);  // an int32, or an int64's low word
    v = select(v, v + size, v < 0);
    v = clamp(v, 0, size - 1);
    return u32(i32(${index_x}) + v * bitcast<i32>(extra(0u)));
}

${functions}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
${body}
}
