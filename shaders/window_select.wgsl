// Window selection for select-and-scatter (window.py): out0[o] = the position (row-major index
// inside the window) of the element window o selects, walking the window from its first element.
// Bindings: 0 P (uniform), 1 in0 (the padded input, read), 2 out0 (u32 per window, read_write).
// Params: as window.wgsl's (the common block over the windows' collapsed shape with in0's window
// origins, then the window dims' sizes and steps, the innermost first).
${header}

fn compare(a: ${elem}, b: ${elem}) -> bool {
    return ${compare};
}

// Whether the next element v replaces the selected one.
fn replaces(best: ${elem}, v: ${elem}) -> bool {
    return ${replace};
}

fn load_x(idx: u32) -> ${elem} {
    return ${load};
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(1u)) {
        return;
    }
    let origin = bitcast<i32>(strided_index(t, 0u));
    let base = operand_base(1u);
    let inner = prm(base);
    let step = prm_i(base + 1u);
    var best = load_x(u32(origin));
    var sel = 0u;
    var k = 1u;
    var j0 = 1u;  // the first element is best already
    let o0 = origin;
${loops}
    out0[t] = sel;
}
