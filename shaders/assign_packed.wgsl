// Assignment into a strided view of 8/16-bit elements (${per_word} per word).  Each invocation
// owns one word of the target buffer: for each element of it, the view is inverted (dims sorted
// by |stride|, which the host checked are nested) to find the source element, or the old value
// is kept.
// Bindings: 0 P (uniform), 1 in0 (read), 2 out0 (read_write, the target's buffer).
// Params: the common block with operand 0 = the source view (shape = the target's shape), then
// at slot S = 4 + ndim + (ndim + 1): first element, span (elements), first word, ndim2, and per
// sorted dim: |stride|, size, flipped (0/1), C-order multiplier.
${header}

fn load_src(i: u32) -> u32 {
    let idx = ${index}(i, 0u);
    return ${load};
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    let s = 4u + prm(3u) + prm(3u) + 1u;
    let first = prm(s);
    let span = prm(s + 1u);
    let nd = prm(s + 3u);
    let w = prm(s + 2u) + t;
    var word = out0[w];
    for (var j = 0u; j < ${per_word}u; j = j + 1u) {
        let p = w * ${per_word}u + j;
        if (p < first || p - first >= span) {
            continue;
        }
        var rel = p - first;
        var e = 0u;
        var inside = true;
        for (var d = 0u; d < nd; d = d + 1u) {
            let q = s + 4u + d * 4u;
            let c = rel / prm(q);
            let n = prm(q + 1u);
            if (c >= n) {
                inside = false;
                break;
            }
            rel = rel - c * prm(q);
            e = e + select(c, n - 1u - c, prm(q + 2u) != 0u) * prm(q + 3u);
        }
        if (inside && rel == 0u) {
            let shift = j * ${bits}u;
            word = (word & ~(${mask}u << shift)) | (load_src(e) << shift);
        }
    }
    out0[w] = word;
}
