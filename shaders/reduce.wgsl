// One pass of a reduction over rows: every output row reduces `len` elements (or, in later
// passes, `len` partial accumulators).  A workgroup of 256 invocations holds 256 / lanes rows;
// the `lanes` invocations of a row walk one chunk of it, four consecutive elements at a time
// (lane's group, then the group `lanes` groups on: coalesced when the reduced axis is
// contiguous, and one vec4 load where in0 is bound as vec4s), and combine their accumulators by
// a tree (neighbours first: by subgroup shuffles as far as a subgroup reaches, where the
// adapter has them, then in workgroup memory; the same tree either way).  With one lane
// (reduce.py's "solo" kernels, which CPU adapters take, where a barrier costs more than a
// long loop) every invocation folds one chunk of one row alone: no tree, no barrier.  Every
// kernel of a pass (vec4 loads or not, computed input or loaded) folds the same elements in
// the same order, so their results are the same bits.
// A row split into several chunks writes one partial accumulator per chunk, which the next pass
// reduces (multi-pass for long rows).
// Bindings: 0 P (uniform), 1 in0 (elements, or partial accumulators of 4 words; array<u32>,
// or array<vec4<u32>> for aligned 32-bit elements), 2 out0 (the result words, or partial
// accumulators).
// Params: [1] rows, [2] len, [3] chunks per row, [4] lanes (a power of two <= 256),
// [5] chunk length; for element input: [6] offset, [7] nk, [8] nr, then kept shape (nk),
// kept strides (nk), reduced shape (nr), reduced strides (nr) (strides as i32 bits).
// Dtype: ${elem} input; the accumulator family is described in reduce_lib.wgsl.
${header}

${lib}

${ops}

${shared}

${offsets}

fn load_element(i: u32) -> ${elem} {
    return ${load};
}

${load_state}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32${builtins}) {
    let w = wid.x + (wid.y + wid.z * nwg.y) * nwg.x;
    let rows = prm(1u);
    let len = prm(2u);
    let chunks = prm(3u);
    let lanes = prm(4u);
    let chunk = prm(5u);
${place}
    var acc = acc_identity();
    if (row < rows) {
        let stop = min(len, (g + 1u) * chunk);
${fold}
    }
${combine}
    if (lane == 0u && row < rows) {
        let result = acc;
${write}
    }
}
