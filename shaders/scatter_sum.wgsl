// Exact float sums for scatter-add, the pass over out: one invocation per element of out (and
// per part of a complex64 element) reads its accumulator slot (filled by scatter.wgsl, kind
// "sum", with scatter_sum_add.wgsl: see there for the slot's layout), adds the target's
// current value and writes the result once, as the CPU device does: the current value, then
// the updates in C order, summed in float64 (exactly, for ordinary data) and rounded once.
// Here the sum is exact, and rounded once to nearest even: the CPU's bits whenever its float64
// sum is exact, and the correctly rounded sum where that one rounds (gather.py: how far the
// CPU's can be then).  Special values follow the CPU's sequential
// float64 additions: the first NaN in order sticks (quieted, its payload kept), unless both
// infinities came before it (+inf + -inf is the default NaN of an x86 CPU, 0xffc00000 in
// float32); infinities of one sign give that infinity; a zero sum is -0.0 only when every term
// is -0.0.  Untouched elements are left as they are.  ${what}
// Bindings: 0 P (uniform), 1 in0 (accumulator slots: out's C order, PARTS per element), 2 in1
// (updates, contiguous in C order: a NaN's payload), 3 out0 (read_write, array<atomic<u32>>:
// out's buffer; packed elements change their lane with atomicXor).
// Params: the common block over out's (collapsed) shape with operand 0 = out's buffer view;
// extra slot [0] the updates' offset (elements).
${header}

const SUM_WINDOW_BITS: u32 = ${window_bits}u;  // see scatter_sum_add.wgsl
const SUM_WINDOWS: u32 = ${windows}u;
const SUM_SPECIAL: u32 = 4u * SUM_WINDOWS;
const SUM_SLOT: u32 = SUM_SPECIAL + 4u;
const INT_WORDS: u32 = 10u;  // the sums as plain 320-bit integers (bit 0 = 2^-149)
const PARTS: u32 = ${parts}u;
// the result format: significand bits, the lowest bit position (of 2^-149) its smallest
// subnormal step occupies, its infinity and sign bit
const P_BITS: u32 = ${p_bits}u;
const Q_MIN: u32 = ${q_min}u;
const INF: u32 = ${inf};
const SIGN: u32 = ${sign};
const NONE: u32 = 0xffffffffu;

fn extra(i: u32) -> u32 {
    let nd = prm(3u);
    return prm(4u + nd + (nd + 1u) + i);
}

// d += x * 2^bit (bit <= 288; the sums never carry past d's top word).
fn add_shifted(d: ptr<function, array<u32, INT_WORDS>>, x: u32, bit: u32) {
    let k = bit >> 5u;
    let s = bit & 31u;
    let add_lo = x << s;
    let add_hi = select(0u, x >> (32u - s), s != 0u);
    let r = (*d)[k] + add_lo;
    (*d)[k] = r;
    var carry = add_hi + select(0u, 1u, r < add_lo);
    for (var j = k + 1u; j < INT_WORDS; j = j + 1u) {
        if (carry == 0u) {
            break;
        }
        let t = (*d)[j] + carry;
        (*d)[j] = t;
        carry = select(0u, 1u, t < carry);
    }
}

// The integer of one sign's windows and carry counts, from in0[first].
fn from_windows(first: u32) -> array<u32, INT_WORDS> {
    var d: array<u32, INT_WORDS>;
    for (var w = 0u; w < SUM_WINDOWS; w = w + 1u) {
        let x = in0[first + w];
        if (x != 0u) {
            add_shifted(&d, x, SUM_WINDOW_BITS * w);
        }
        let c = in0[first + SUM_WINDOWS + w];
        if (c != 0u) {
            add_shifted(&d, c, SUM_WINDOW_BITS * w + 32u);
        }
    }
    return d;
}

// 32 bits of the integer d starting at bit q (bits past the top read as zero).
fn bits_at(d: ptr<function, array<u32, INT_WORDS>>, q: u32) -> u32 {
    let w = q >> 5u;
    let s = q & 31u;
    var v = 0u;
    if (w < INT_WORDS) {
        v = (*d)[w] >> s;
        if (s != 0u && w + 1u < INT_WORDS) {
            v = v | ((*d)[w + 1u] << (32u - s));
        }
    }
    return v;
}

// Whether any bit of d below bit q is set.
fn any_below(d: ptr<function, array<u32, INT_WORDS>>, q: u32) -> bool {
    let w = q >> 5u;
    var any = false;
    for (var k = 0u; k < min(w, INT_WORDS); k = k + 1u) {
        any = any || (*d)[k] != 0u;
    }
    if (w < INT_WORDS && (q & 31u) != 0u) {
        any = any || ((*d)[w] << (32u - (q & 31u))) != 0u;
    }
    return any;
}

// The result format's bits nearest the integer d * 2^-149 (ties to even), sign aside.
fn round_magnitude(d: ptr<function, array<u32, INT_WORDS>>) -> u32 {
    var top = 0u;
    for (var k = 0u; k < INT_WORDS; k = k + 1u) {
        if ((*d)[k] != 0u) {
            top = 32u * k + firstLeadingBit((*d)[k]);
        }
    }
    // q: the position of the result's last significand bit
    let q = select(Q_MIN, top + 1u - P_BITS, top + 1u >= P_BITS + Q_MIN);
    let keep = (1u << P_BITS) - 1u;
    let m = bits_at(d, q) & keep;
    var up = false;
    if (q > 0u && (bits_at(d, q - 1u) & 1u) != 0u) {
        up = (m & 1u) != 0u || any_below(d, q - 1u);
    }
    // m's top bit lands in the exponent field: subnormals (q == Q_MIN) come out right, and a
    // rounding carry moves to the next binade (or to infinity)
    let bits = ((q - Q_MIN) << (P_BITS - 1u)) + m + select(0u, 1u, up);
    return min(bits, INF);
}

${format}

// (touched, result bits) of slot `base` for an element whose current value has float32 bits
// `cur`; `part` is the complex part (0 otherwise).
fn sum_value(base: u32, cur: u32, part: u32) -> vec2<u32> {
    var touched = 0u;
    for (var k = 0u; k < SUM_SLOT; k = k + 1u) {
        touched = touched | in0[base + k];
    }
    if (touched == 0u) {
        return vec2<u32>(0u, 0u);
    }
    let cmag = cur & 0x7fffffffu;
    // first positions of NaN, +inf and -inf terms; the current value is position 0
    let nan_at = select(~in0[base + SUM_SPECIAL + 1u], 0u, cmag > 0x7f800000u);
    let pinf_at = select(~in0[base + SUM_SPECIAL + 2u], 0u, cur == 0x7f800000u);
    let ninf_at = select(~in0[base + SUM_SPECIAL + 3u], 0u, cur == 0xff800000u);
    let both_inf_at = max(pinf_at, ninf_at);
    if (nan_at < both_inf_at) {
        let b = select(load_update(nan_at - 1u, part), cur, nan_at == 0u);
        return vec2<u32>(1u, special_bits(b | 0x400000u));
    }
    if (both_inf_at != NONE) {
        return vec2<u32>(1u, special_bits(0xffc00000u));
    }
    if (pinf_at != NONE || ninf_at != NONE) {
        return vec2<u32>(1u, INF | select(0u, SIGN, ninf_at != NONE));
    }
    var pos = from_windows(base);
    var neg = from_windows(base + 2u * SUM_WINDOWS);
    var nonzero = 0u;
    for (var k = 0u; k < INT_WORDS; k = k + 1u) {
        nonzero = nonzero | pos[k] | neg[k];
    }
    if (cmag != 0u) {
        // the current value joins its sign's integer: m * 2^(s - 149), as sum_add adds it
        let e = cmag >> 23u;
        let m = select(cmag, (cmag & 0x7fffffu) | 0x800000u, e != 0u);
        let s = max(e, 1u) - 1u;
        if (cur >= 0x80000000u) {
            add_shifted(&neg, m, s);
        } else {
            add_shifted(&pos, m, s);
        }
    }
    // |pos - neg| and its sign
    var negative = false;
    for (var k = INT_WORDS; k > 0u; k = k - 1u) {
        if (pos[k - 1u] != neg[k - 1u]) {
            negative = neg[k - 1u] > pos[k - 1u];
            break;
        }
    }
    var d: array<u32, INT_WORDS>;
    var borrow = 0u;
    var zero = true;
    for (var k = 0u; k < INT_WORDS; k = k + 1u) {
        let a = select(pos[k], neg[k], negative);
        let b = select(neg[k], pos[k], negative);
        let r = a - b;
        let b1 = select(0u, 1u, a < b);
        d[k] = r - borrow;
        borrow = b1 + select(0u, 1u, r < borrow);
        zero = zero && d[k] == 0u;
    }
    if (zero) {
        // -0.0 only when every term is -0.0: the current value, and no +0.0 or non-zero update
        let all_negative_zero = cur == 0x80000000u && nonzero == 0u &&
            in0[base + SUM_SPECIAL] != 2u;
        return vec2<u32>(1u, select(0u, SIGN, all_negative_zero));
    }
    return vec2<u32>(1u, round_magnitude(&d) | select(0u, SIGN, negative));
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    let part = t % PARTS;
    let e = strided_index(t / PARTS, 0u);
    let old = load_out(e, part);
    let r = sum_value(t * SUM_SLOT, current_bits(old), part);
    if (r.x != 0u) {
        store_out(e, part, old, finish(r.y));
    }
}
