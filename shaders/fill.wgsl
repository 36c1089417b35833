// Fill a contiguous output with a repeating pattern of 1, 2 or 4 words (the value's bytes;
// 8/16-bit values are replicated across a word).
// Bindings: 0 P (uniform), 1 out0 (read_write).
// Params: [1] n, [2] threads = words, [3] 0, [4..8) the pattern words.
${header}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    out0[t] = prm(4u + t % ${words}u);
}
