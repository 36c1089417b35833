// Scatter, the pass over out: one invocation per element of out (per word of a packed or wide
// dtype) applies what the update pass left in the winners/keys buffer.  ${what}
// Bindings: 0 P (uniform), 1 in0 (winners or keys: one word per element of out, C order),
// 2 in1 (updates, contiguous; unused by the keys pass), 3 out0 (read_write, out's buffer).
// Params: the common block over out's (collapsed) shape with operand 0 = out's buffer view;
// extra slots [0] the updates' offset, [1] out's offset, [2] the first buffer word.
${header}

fn extra(i: u32) -> u32 {
    let nd = prm(3u);
    return prm(4u + nd + (nd + 1u) + i);
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
${body}
}
