// Exclusive prefix sum of the radix sort's digit table (u32 counts, in place), in three
// dispatches of this kernel, mode "${mode}":
//   "sums":  invocation g adds up segment g (entries [g * seg, (g + 1) * seg)) of in0 into
//            out0[g];
//   "carry": one invocation turns the segment sums (out0) into their exclusive prefix sums;
//   "scan":  invocation g walks segment g of out0 from its carry (in0[g]), replacing each
//            entry with the sum of every entry before it.
// Bindings: 0 P (uniform), then in0 (table or sums; not for "carry"), out0 (sums or table).
// Params: [1] table entries, [2] threads, [3] ndim 0, [4] segment length, [5] segments.
${header}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (g >= prm(2u)) {
        return;
    }
${body}
}
