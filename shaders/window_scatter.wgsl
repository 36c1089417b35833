// Select-and-scatter's gather side (window.py): out0[p] = 0 + in0[o] + ... over the windows o
// that selected element p (in1, from window_select.wgsl), in C order of the windows, so no
// two invocations write one element and every device adds in the same order.
// Bindings: 0 P (uniform), 1 in0 (the source, one element per window, read), 2 in1 (the
// selections, u32 per window, read), 3 out0 (read_write).
// Params: [1] n (elements of out0), [2] threads (its words), [3] the source's offset, then per
// axis a of the input (1-long axes left out) from 0, at 4 + 8a: its size, window size,
// dilation, stride, windows along it, the source's stride, and the two constants giving the
// first window that holds a position (window.py).  The generated loops walk, per axis, the
// windows holding the element in ascending order (so all of them in C order).
${header}

fn op(a: ${elem}, b: ${elem}) -> ${elem} {
    return ${fold};
}

fn load_src(idx: u32) -> ${elem} {
    return ${load};
}

fn scatter_value(i: u32) -> ${elem} {
    var acc: ${elem} = ${zero};
    var rem = i;
${coords}
    let s = prm_i(3u);
    let lin = 0;
    let k = 0;
${loops}
    return acc;
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
${body}
}
