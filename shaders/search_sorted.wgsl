// searchsorted: out0[i] = the insertion position (int64) of value i in the sorted 1-D view `a`,
// four values per invocation, on the halving schedule of the frontend's generic search
// (api/searching.py): `base` moves up by `half` where a[base + half] goes before the value, the
// length shrinks by `half` either way, so every probe lies inside `a`; the last probe decides
// between base and base + 1.  log2(len(a)) loads per value instead of as many passes.
// Bindings: 0 P (uniform), 1 in0 (a), 2 in1 (values), 3 out0 (int64, contiguous).
// Params: the common block over the (collapsed) values' shape with operand 0 = the values; then
// a's length, offset and stride (i32 bits), in elements, at slots ${a_slot}, +1, +2.
${header}

fn is_nan_value(a: ${type}) -> bool {
    return ${isnan};
}

// a before b in NumPy's sort order: NaN after every number, -0.0 and 0.0 equal.
fn sorts_before(a: ${type}, b: ${type}) -> bool {
    return (${less}) || (is_nan_value(b) && !is_nan_value(a));
}

// Element k of a and whether it goes before x (side left: sorts before it; right: x does not
// sort before it).
fn goes_before(k: u32, x: ${type}) -> bool {
    let e = u32(prm_i(${a_slot}u + 1u) + i32(k) * prm_i(${a_slot}u + 2u));
    let a = ${load_a};
    return ${goes_before};
}

${functions}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    // Four values per invocation, searched together: the schedule depends only on len(a).
    let last = prm(1u) - 1u;
    var x: array<${type}, 4>;
    for (var j = 0u; j < 4u; j = j + 1u) {
        let i = min(4u * t + j, last);
        x[j] = ${load_x};
    }
    var base = vec4<u32>(0u);
    var length = prm(${a_slot}u);
    while (length > 1u) {
        let half = length >> 1u;
        let c = base + vec4<u32>(half);
        base = select(base, c, vec4<bool>(goes_before(c.x, x[0]), goes_before(c.y, x[1]),
                                          goes_before(c.z, x[2]), goes_before(c.w, x[3])));
        length = length - half;
    }
    base += select(vec4<u32>(0u), vec4<u32>(1u),
                   vec4<bool>(goes_before(base.x, x[0]), goes_before(base.y, x[1]),
                              goes_before(base.z, x[2]), goes_before(base.w, x[3])));
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (4u * t + j <= last) {
            out0[8u * t + 2u * j] = base[j];
            out0[8u * t + 2u * j + 1u] = 0u;
        }
    }
}
