// Assignment into a strided view of an existing buffer: out0[view[i]] = in0[src[i]], for
// elements of one or more whole words (${words} per element); one invocation per word.
// Bindings: 0 P (uniform), 1 in0 (read), 2 out0 (read_write, the target's buffer).
// Params: the common block with operand 0 = the source view, 1 = the target view;
// threads = n * ${words}.
${header}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    let e = t / ${words}u;
    let part = t % ${words}u;
    out0[${target}(e, 1u) * ${words}u + part] = in0[${index}(e, 0u) * ${words}u + part];
}
