// Elementwise map: out0[i] = op(in0[i], in1[i], ...) over the C-ordered output; inputs are
// strided or broadcast views (see params.wgsl).  Also cast, where and raw copies.
// Bindings: 0 P (uniform), 1..${n_in} inputs (read), ${n_out_binding} out0 (read_write).
// Params: the common block; threads = output words (work items).
// Dtypes: f32/i32/u32 one element per word; bool/u8 four and u16 two per word, each
// invocation owning whole output words (no atomics).
${header}

fn op(${op_params}) -> ${out_type} {
    return ${expr};
}

${functions}

// Each invocation handles up to kernels.ITEMS output words (kernels.entry_point).
${main}
