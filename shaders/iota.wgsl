// out0[i] = start + i * step in 32-bit wrapping integer arithmetic (int32, uint32).
// Bindings: 0 P (uniform), 1 out0 (read_write).
// Params: [1] n, [2] threads = n, [3] 0, [4] start, [5] step (two's complement bits).
${header}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    out0[t] = prm(4u) + t * prm(5u);
}
