// Kernel parameters and view indexing, included by every webtensor kernel.
// Uniform `P` (binding 0, declared by the kernel): u32 slots
//   [0] always 0 (see opq), [1] n elements, [2] threads, [3] ndim, [4, 4 + ndim) shape,
//   then per strided operand j at 4 + ndim + j * (ndim + 1): offset, ndim strides (i32 bits),
//   then kernel-specific slots.

fn prm(i: u32) -> u32 {
    return P[i >> 2u][i & 3u];
}

fn prm_i(i: u32) -> i32 {
    return bitcast<i32>(prm(i));
}

// True in the first kernel of a deferred pair (kernels.py, "rare paths"): library functions
// with a costly path that almost no argument takes (trig_reduce's Payne-Hanek) set `rare_args`
// instead of running it, and the second kernel recomputes the flagged invocations in full.
// A constant, so the compiler drops the untaken side.
const RARE_PATHS_DEFERRED: bool = false;

// An identity the shader compiler cannot see through (slot 0 is always 0).  It keeps fast-math
// rewrites such as (a + b) - a -> b away from code that recovers rounding errors.
fn opq(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ P[0].x);
}

fn operand_base(j: u32) -> u32 {
    let nd = prm(3u);
    return 4u + nd + j * (nd + 1u);
}

// Buffer element index of operand j at C-order position i of the (collapsed) shape.
fn strided_index(i: u32, j: u32) -> u32 {
    let nd = prm(3u);
    let base = operand_base(j);
    var rem = i;
    var off = prm_i(base);
    for (var d = nd; d > 0u; d = d - 1u) {
        let n = prm(3u + d);
        off += i32(rem % n) * prm_i(base + d);
        rem = rem / n;
    }
    return u32(off);
}

fn contiguous_index(i: u32, j: u32) -> u32 {
    return prm(operand_base(j)) + i;
}

// An operand whose strides are all 0 (a broadcast scalar): its one element, no division.
fn scalar_index(i: u32, j: u32) -> u32 {
    return prm(operand_base(j));
}
