// Philox-4x32-10 stream (backends/_philox.py): output word i is word i % 4 of the block whose
// 128-bit counter is counter + i / 4; one invocation per block, up to four words each.
// Bindings: 0 P (uniform), 1 out0 (read_write, the uint32 output, contiguous).
// Params: [1] n words, [2] threads = blocks, [3] 0, [4] k0, [5] k1, [6..10) counter words
// c0..c3 (c0 lowest).
// Dtypes: u32 only.  WGSL has no 32x32 -> 64-bit multiply: the high word is built from
// 16-bit halves (the low word is the wrapping u32 product).
${header}

const M0: u32 = 0xD2511F53u;
const M1: u32 = 0xCD9E8D57u;
const W0: u32 = 0x9E3779B9u;
const W1: u32 = 0xBB67AE85u;

// High 32 bits of the 64-bit product a * b.
fn mul_hi(a: u32, b: u32) -> u32 {
    let al = a & 0xffffu;
    let ah = a >> 16u;
    let bl = b & 0xffffu;
    let bh = b >> 16u;
    let lh = al * bh;
    let hl = ah * bl;
    let mid = ((al * bl) >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);  // < 3 * 2^16: no overflow
    return ah * bh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
}

@compute @workgroup_size(${wg})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + (gid.y + gid.z * nwg.y) * nwg.x * ${wg}u;
    if (t >= prm(2u)) {
        return;
    }
    // counter + t with carries through the four words
    var c0 = prm(6u) + t;
    var carry = select(0u, 1u, c0 < t);
    var c1 = prm(7u) + carry;
    carry = select(0u, 1u, carry == 1u && c1 == 0u);
    var c2 = prm(8u) + carry;
    carry = select(0u, 1u, carry == 1u && c2 == 0u);
    var c3 = prm(9u) + carry;
    var k0 = prm(4u);
    var k1 = prm(5u);
    for (var r = 0u; r < 10u; r = r + 1u) {
        let hi0 = mul_hi(M0, c0);
        let lo0 = M0 * c0;
        let hi1 = mul_hi(M1, c2);
        let lo1 = M1 * c2;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 = k0 + W0;
        k1 = k1 + W1;
    }
    let n = prm(1u);
    let first = t * 4u;
    let block = array<u32, 4>(c0, c1, c2, c3);
    for (var j = 0u; j < 4u; j = j + 1u) {
        if (first + j < n) {
            out0[first + j] = block[j];
        }
    }
}
