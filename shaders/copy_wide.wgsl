// Copy of a strided view of 16-byte elements (complex128) into a contiguous output, one
// invocation per output word (8-byte elements go through the map kernels: elementwise._copy).
// Bindings: 0 P (uniform), 1 in0 (read), 2 out0 (read_write).
// Params: the common block with one operand; threads = n * ${words} words.
${header}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    let e = t / ${words}u;
    out0[t] = in0[${index}(e, 0u) * ${words}u + t % ${words}u];
}
