// Select and scatter where no two windows share an element and out0 stores whole words: one
// invocation per window selects (as window_select.wgsl) and writes its whole window of out0,
// 0 + the window's source at the selected element and 0 elsewhere (window.py).
// Bindings: 0 P (uniform), 1 in0 (the padded input), 2 in1 (the source), 3 out0.
// Params: the common block over the windows' collapsed shape with three operands: in0's window
// origins, out0's, the source's elements.  Then, at operand_base(3u): the innermost window
// dim's size and its steps in in0 and in out0, then per outer window dim (outermost first) its
// size and two steps.
${header}

fn compare(a: ${elem}, b: ${elem}) -> bool {
    return ${compare};
}

fn replaces(best: ${elem}, v: ${elem}) -> bool {
    return ${replace};
}

fn load_x(idx: u32) -> ${elem} {
    return ${load};
}

fn op(a: ${oelem}, b: ${oelem}) -> ${oelem} {
    return ${fold};
}

fn load_src(idx: u32) -> ${oelem} {
    return ${load_src};
}

fn store_out(idx: u32, v: ${oelem}) {
${store}
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(1u)) {
        return;
    }
    let x0 = bitcast<i32>(strided_index(t, 0u));
    let y0 = bitcast<i32>(strided_index(t, 1u));
    let base = operand_base(3u);
    let inner = prm(base);
    let xstep = prm_i(base + 1u);
    let ystep = prm_i(base + 2u);
    var best = load_x(u32(x0));
    var chosen = y0;
    var j0 = 1u;  // the first element is best already
${select_loops}
    let value = op(${zero}, load_src(strided_index(t, 2u)));
    j0 = 0u;
${write_loops}
}
