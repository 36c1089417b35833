// Scatter, the ordered combine (float sums and every packed or 64-bit dtype): the updates were
// stably sorted by the buffer element they hit (the radix sort of backends/webgpu/sort.py), so
// each target's updates form one run of the sorted pairs, in C order.  The invocation at the
// head of a run folds the target's current value and then the run's updates one after
// another, exactly as the CPU device does, and writes the target once: no invocation order can
// change the result.  ${what}
// Bindings: 0 P (uniform), 1 in0 (the sorted pairs: the buffer element of out an update hits,
// then the update's index in C order), 2 in1 (updates, contiguous), 3 out0 (read_write,
// array<atomic<u32>>: out's buffer; packed targets share words, so a target's lane is changed
// with one atomicXor that leaves the other lanes alone).
// Params: [1] n updates, [2] threads (= n), [3] ndim 0, [4] unused offset, then extra slot [0]
// the updates' offset (elements).
${header}

fn update_offset() -> u32 {
    return prm(5u);
}

fn target_at(k: u32) -> u32 {
    return in0[2u * k];
}

fn update_at(k: u32) -> u32 {
    return in0[2u * k + 1u];
}

${access}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    let n = prm(1u);
    if (k >= n) {
        return;
    }
    let e = target_at(k);
    if (k > 0u && target_at(k - 1u) == e) {
        return;  // not the head of its run
    }
    let cur = load_out(e);
${init}
    var j = k;
    loop {
        let u = load_update(update_offset() + update_at(j));
${fold}
        j = j + 1u;
        if (j >= n || target_at(j) != e) {
            break;
        }
    }
    store_out(e, cur, ${result});
}
