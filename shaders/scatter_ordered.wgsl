// Scatter, the ordered combine (float sums and every packed or 64-bit dtype): the updates were
// stably sorted by the buffer element they hit (the radix sort of backends/webgpu/sort.py), so
// each target's updates form one run of the sorted pairs, in C order, and runs are in
// ascending target order.  One invocation per run folds the target's current value and then
// the run's updates one after another, exactly as the CPU device does, and writes the target
// once: no invocation order can change the result.  ${what}
// A run longer than BLOCK updates is cut into segments ending at multiples of BLOCK (one
// invocation may loop only so long: lavapipe stops every invocation after 65535 loop
// iterations in all); the first folds from the target's value, the others from their first
// update, into partial accumulators that mode "merge" combines in order before writing the
// target.  Partials sit in slots of 8 words, two per window of BLOCK sorted positions: slot 2w
// for a long run's head in window w, 2w + 1 for a later segment starting at the window's
// first position (a long run spans more than a window, so no two heads share one).
// Mode "fold" runs an invocation per sorted position, which folds if the position starts a
// segment.  Where runs are long, the segment starts are first listed densely (modes "count",
// "carry", "place": counts per stretch of positions, their exclusive sums, then the starts in
// order, their number last), so that neighbouring invocations of "fold_listed" fold
// neighbouring runs instead of idling beside one.
// Mode: "${mode}".
// Bindings: 0 P (uniform), 1 in0 (the sorted pairs: the buffer element of out an update hits,
// then the update's index in C order), then
//   count: out0 (a count per stretch);  carry: out0 (the counts -> exclusive sums);
//   place: in1 (exclusive sums), out0 (segment starts, their number at [n]);
//   fold:  in1 (updates, contiguous), out0 (out), out1 (partials);
//   fold_listed: in1 (updates), in2 (segment starts), out0 (out), out1 (partials);
//   merge: in1 (partials), out0 (out).
// out (read_write, array<atomic<u32>>) is out's buffer: packed targets share words, so a
// target's lane is changed with one atomicXor that leaves the other lanes alone.
// Params: [1] n updates, [2] threads, [3] ndim 0, [4] unused offset, then [5] the updates'
// offset (elements), [6] positions per stretch, [7] stretches.
${header}

const BLOCK: u32 = ${block}u;

fn update_offset() -> u32 {
    return prm(5u);
}

fn target_at(k: u32) -> u32 {
    return in0[2u * k];
}

fn update_at(k: u32) -> u32 {
    return in0[2u * k + 1u];
}

// The first sorted position of the run of target e, which holds position k (binary search:
// targets ascend).
fn run_start(k: u32, e: u32) -> u32 {
    var lo = 0u;
    var hi = k;
    loop {
        if (lo >= hi) {
            break;
        }
        let mid = (lo + hi) / 2u;
        if (target_at(mid) < e) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The run of target e that starts at h is longer than BLOCK.
fn is_long(h: u32, e: u32) -> bool {
    return h + BLOCK < prm(1u) && target_at(h + BLOCK) == e;
}

// Position k starts a segment: a run's head, or a multiple of BLOCK inside a long run.
fn segment_start(k: u32) -> bool {
    let e = target_at(k);
    if (k == 0u || target_at(k - 1u) != e) {
        return true;
    }
    return k % BLOCK == 0u && is_long(run_start(k, e), e);
}

${access}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    let n = prm(1u);
    if (t >= prm(2u)) {
        return;
    }
${body}
}
