"""webtensor.tf: gather/scatter, space/batch/depth, image patches and quantization.

Three layers of checks, each on every CPU backend and on the webgpu device when it exists:

* every example of TensorFlow's "Tensor Transformations" guide (the seed) for these functions,
  with the guide's stated result; where the guide's printed result is wrong (four known errata,
  listed in docs/_tf_spatial_quant.md) the test states the erratum and checks the value that
  TensorFlow actually returns, which the op's own precise description defines;
* each function against a reference written here independently with NumPy loops over random
  shapes (0-d and size-0 included), dtypes and non-contiguous inputs (seeded parametrization);
  the quantization references follow TensorFlow's C++ arithmetic scalar by scalar in float32;
* invalid arguments raise the error type TensorFlow documents with a message naming the argument.
"""

from __future__ import annotations

import math
import random

import pytest

import webtensor as wt
from _oracle import BACKENDS, HAS_NUMPY, needs_numpy
from _tf_guide import B1, B2, B3, B4, B4_PADDED, NO_PAD, X1, X2, X3, X4
from webtensor.tf import errors

tf = wt.tf
if HAS_NUMPY:
    import numpy as np



def T(values, device, dtype=None):
    return wt.asarray(values, dtype=dtype, device=device)


def listed(t):
    assert isinstance(t, wt.Tensor)
    return t.tolist()


# -- the guide's examples ------------------------------------------------------------------------

LETTERS2 = [["a", "b"], ["c", "d"]]
LETTERS3 = [[["a0", "b0"], ["c0", "d0"]], [["a1", "b1"], ["c1", "d1"]]]
CODE = {s: i for i, s in enumerate(["a", "b", "c", "d", "a0", "b0", "c0", "d0", "a1", "b1",
                                     "c1", "d1"])}


def coded(nested):
    """The guide's string tensors as integer codes (webtensor has no string dtype)."""
    if isinstance(nested, list):
        return [coded(v) for v in nested]
    return CODE[nested]


GATHER_ND_EXAMPLES = [  # (indices, params, output) exactly as printed in the guide
    ([[0, 0], [1, 1]], LETTERS2, ["a", "d"]),
    ([[1], [0]], LETTERS2, [["c", "d"], ["a", "b"]]),
    ([[1]], LETTERS3, [[["a1", "b1"], ["c1", "d1"]]]),
    ([[0, 1], [1, 0]], LETTERS3, [["c0", "d0"], ["a1", "b1"]]),
    ([[0, 0, 1], [1, 0, 1]], LETTERS3, ["b0", "b1"]),
    ([[[0, 0]], [[0, 1]]], LETTERS2, [["a"], ["b"]]),
    ([[[1]], [[0]]], LETTERS2, [[["c", "d"]], [["a", "b"]]]),
    ([[[1]], [[0]]], LETTERS3, [[[["a1", "b1"], ["c1", "d1"]]], [[["a0", "b0"], ["c0", "d0"]]]]),
    ([[[0, 1], [1, 0]], [[0, 0], [1, 1]]], LETTERS3,
     [[["c0", "d0"], ["a1", "b1"]], [["a0", "b0"], ["c1", "d1"]]]),
    ([[[0, 0, 1], [1, 0, 1]], [[0, 1, 1], [1, 1, 0]]], LETTERS3, [["b0", "b1"], ["d0", "c1"]]),
]


@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("indices,params,output", GATHER_ND_EXAMPLES)
def test_seed_gather_nd(device, indices, params, output):
    got = tf.gather_nd(T(coded(params), device), T(indices, device))
    assert got.device == device
    assert listed(got) == coded(output)


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_gather_permutes_and_shapes(device):
    params = T([[1, 2], [3, 4], [5, 6]], device)
    # "If indices is a permutation and len(indices) == params.shape[0] then this operation
    # will permute params accordingly."
    assert listed(tf.gather(params, T([2, 0, 1], device))) == [[5, 6], [1, 2], [3, 4]]
    # scalar / vector / higher-rank indices: shape indices.shape + params.shape[1:]
    assert listed(tf.gather(params, 1)) == [3, 4]
    assert tf.gather(params, [[0, 1], [2, 2]]).shape == (2, 2, 2)
    assert listed(tf.gather(params, [[0, 1], [2, 2]])[1, 0]) == [5, 6]


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_unique_with_counts(device):
    y, idx, count = tf.unique_with_counts(T([1, 1, 2, 4, 4, 4, 7, 8, 8], device))
    assert listed(y) == [1, 2, 4, 7, 8]
    assert listed(idx) == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    assert listed(count) == [2, 1, 3, 1, 2]
    assert idx.dtype == count.dtype == wt.int32  # out_idx defaults to tf.int32


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_scatter_nd(device):
    scatter = tf.scatter_nd(T([[4], [3], [1], [7]], device), T([9, 10, 11, 12], device),
                            T([8], device))
    assert listed(scatter) == [0, 11, 0, 10, 9, 0, 0, 12]
    slab = [[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]]
    zero = [[0] * 4] * 4
    scatter = tf.scatter_nd(T([[0], [2]], device), T([slab, slab], device), T([4, 4, 4], device))
    assert listed(scatter) == [slab, zero, slab, zero]
    assert scatter.device == device


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_dynamic_partition(device):
    out = tf.dynamic_partition(T([10, 20], device), T(1, device), 2)  # scalar partitions
    assert out[0].shape == (0, 2) and listed(out[1]) == [[10, 20]]
    out = tf.dynamic_partition(T([10, 20, 30, 40, 50], device), T([0, 0, 1, 1, 0], device), 2)
    assert [listed(o) for o in out] == [[10, 20, 50], [30, 40]]
    assert all(o.device == device for o in out)


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_dynamic_stitch(device):
    indices = [T(6, device), T([4, 1], device), T([[5, 2], [0, 3]], device)]
    data = [T([61, 62], device), T([[41, 42], [11, 12]], device),
            T([[[51, 52], [21, 22]], [[1, 2], [31, 32]]], device)]
    merged = tf.dynamic_stitch(indices, data)
    assert listed(merged) == [[1, 2], [11, 12], [21, 22], [31, 32], [41, 42], [51, 52],
                              [61, 62]]
    # "if an index appears in both indices[m][i] and indices[n][j] for (m,i) < (n,j) the slice
    # data[n][j] will appear in the merged result"
    merged = tf.dynamic_stitch([T([0, 1], device), T([1], device)],
                               [T([1, 2], device), T([9], device)])
    assert listed(merged) == [1, 9]


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_boolean_mask(device):
    assert listed(tf.boolean_mask(T([0, 1, 2, 3], device),
                                  T([True, False, True, False], device))) == [0, 2]
    got = tf.boolean_mask(T([[1, 2], [3, 4], [5, 6]], device), T([True, False, True], device))
    assert listed(got) == [[1, 2], [5, 6]]


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_one_hot(device):
    out = tf.one_hot(T([0, 2, -1, 1], device), 3, on_value=5.0, off_value=0.0, axis=-1)
    assert out.dtype == wt.float32
    assert listed(out) == [[5.0, 0.0, 0.0], [0.0, 0.0, 5.0], [0.0, 0.0, 0.0], [0.0, 5.0, 0.0]]
    out = tf.one_hot(T([[0, 2], [1, -1]], device), 3, on_value=1.0, off_value=0.0, axis=-1)
    assert listed(out) == [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]
    out = tf.one_hot(T([0, 1, 2], device), 3)
    assert out.dtype == wt.float32  # neither on/off value nor dtype: float32
    assert listed(out) == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    # the documented output shapes for vector and matrix indices
    features = T([0, 1, 2, 1, 0], device)
    assert tf.one_hot(features, 3).shape == (5, 3)
    assert tf.one_hot(features, 3, axis=0).shape == (3, 5)
    batch = T([[0, 1, 2, 1, 0]] * 2, device)
    assert tf.one_hot(batch, 3, axis=-1).shape == (2, 5, 3)
    assert tf.one_hot(batch, 3, axis=1).shape == (2, 3, 5)
    assert tf.one_hot(batch, 3, axis=0).shape == (3, 2, 5)
    assert tf.one_hot(T(1, device), 3).shape == (3,)  # scalar indices give a vector
    # dtype is assumed from on_value / off_value when not given
    assert tf.one_hot(features, 3, on_value=7).dtype == wt.int32
    assert tf.one_hot(features, 3, off_value=T(0, device, wt.int8)).dtype == wt.int8
    assert listed(tf.one_hot(T([1], device), 2, on_value=True, off_value=False)) == [[False,
                                                                                      True]]


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_sequence_mask(device):
    assert listed(tf.sequence_mask(T([1, 3, 2], device), 5)) == [
        [True, False, False, False, False],
        [True, True, True, False, False],
        [True, True, False, False, False]]


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_setdiff1d(device):
    out, idx = tf.setdiff1d(T([1, 2, 3, 4, 5, 6], device), T([1, 3, 5], device))
    assert listed(out) == [2, 4, 6] and listed(idx) == [1, 3, 5]
    assert idx.dtype == wt.int32


@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("batch_axis,seq_axis", [(0, 1), (2, 0)])
def test_seed_reverse_sequence(device, batch_axis, seq_axis):
    # Erratum: the guide writes output[0, 0:7] = input[0, 7:0:-1] (positions 7..1), but the op
    # "reverses the first seq_lengths[i] elements", i.e. positions 6..0 (input[0, 6::-1]), and
    # its second block copies output[3, 2:] where seq_lengths[3] = 5 means output[3, 5:].
    lengths = [7, 2, 3, 5]
    shape = [4, 8, 3] if batch_axis == 0 else [8, 2, 4]
    values = list(range(math.prod(shape)))
    x = wt.reshape(T(values, device), tuple(shape))
    out = tf.reverse_sequence(x, T(lengths, device), seq_axis=seq_axis, batch_axis=batch_axis)
    for i, n in enumerate(lengths):
        def along(t, i=i):
            return wt.moveaxis(t[(slice(None),) * batch_axis + (i,)], seq_axis if seq_axis <
                               batch_axis else seq_axis - 1, 0)
        got, src = listed(along(out)), listed(along(x))
        assert got[:n] == src[:n][::-1]
        assert got[n:] == src[n:]


# space/batch examples: inputs and outputs as printed in the guide (tests/_tf_guide.py)
SPACE_BATCH_EXAMPLES = [  # (space, batch, paddings/crops for the _nd forms)
    (X1, B1, NO_PAD), (X2, B2, NO_PAD), (X3, B3, NO_PAD), (X4, B4_PADDED, [[0, 0], [2, 0]]),
]


@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("space,batch,pads", SPACE_BATCH_EXAMPLES,
                         ids=["ex1", "ex2", "ex3", "ex4"])
def test_seed_space_batch_nd(device, space, batch, pads):
    out = tf.space_to_batch_nd(T(space, device), [2, 2], pads)
    assert out.shape == tuple(np_shape(batch)) and listed(out) == batch
    back = tf.batch_to_space_nd(T(batch, device), T([2, 2], device), T(pads, device))
    assert back.shape == tuple(np_shape(space)) and listed(back) == space


@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("space,batch", [(X1, B1), (X2, B2), (X3, B3), (X4, B4)],
                         ids=["ex1", "ex2", "ex3", "ex4"])
def test_seed_space_batch_legacy(device, space, batch):
    # Erratum: the legacy batch_to_space example (4) prints a [4, 2, 2, 1] value for the stated
    # output shape [2, 2, 4, 1]; the inverse of space_to_batch example (4) is X4.
    out = tf.space_to_batch(T(space, device), NO_PAD, block_size=2)
    assert listed(out) == batch and out.shape == tuple(np_shape(batch))
    back = tf.batch_to_space(T(batch, device), NO_PAD, block_size=2)
    assert listed(back) == space


def np_shape(nested) -> list:
    shape = []
    while isinstance(nested, list):
        shape.append(len(nested))
        nested = nested[0] if nested else None
    return shape


DEPTH_EXAMPLES = [  # (space [1, h, w, d], depth) pairs, block_size 2
    (X1, [[[[1, 2, 3, 4]]]]),
    (X2, [[[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]]]),
    # Erratum: depth_to_space prints this 4x4 output without its batch brackets.
    ([[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[9], [10], [13], [14]],
       [[11], [12], [15], [16]]]],
     [[[[1, 2, 3, 4], [5, 6, 7, 8]], [[9, 10, 11, 12], [13, 14, 15, 16]]]]),
]


@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("space,depth", DEPTH_EXAMPLES, ids=["1x1", "depth3", "4x4"])
def test_seed_space_depth(device, space, depth):
    out = tf.space_to_depth(T(space, device), 2)
    assert out.shape == tuple(np_shape(depth)) and listed(out) == depth
    back = tf.depth_to_space(T(depth, device), 2)
    assert back.shape == tuple(np_shape(space)) and listed(back) == space


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_quantize_examples(device):
    # "input ... range [0.0, 6.0] and the output type is quint8 ... multiply each value of the
    # input by 255/6 and cast to quint8"
    x = T([0.0, 0.5, 2.0, 4.4, 6.0], device)  # no product lands on an exact half
    q, lo, hi = tf.quantize_v2(x, 0.0, 6.0, "quint8")
    assert q.dtype == wt.uint8 and listed(lo) == 0.0 and listed(hi) == 6.0
    assert listed(q) == [0, 21, 85, 187, 255]  # x * 255 / 6 rounded
    # "If the output type was qint8 ... additionally subtract each value by 128"
    q8, _, _ = tf.quantize_v2(x, 0.0, 6.0, "qint8")
    assert q8.dtype == wt.int8 and listed(q8) == [v - 128 for v in listed(q)]
    # On exact halves TensorFlow's kernel rounds after the shift, half away from zero, so
    # 3.0 -> 127.5 gives 128 for quint8 but 127.5 - 128 = -0.5 -> -1 for qint8.
    half = T([3.0], device)
    assert listed(tf.quantize_v2(half, 0.0, 6.0, "quint8")[0]) == [128]
    assert listed(tf.quantize_v2(half, 0.0, 6.0, "qint8")[0]) == [-1]
    # "Dequantize on quint8 will take each value, cast to float, and multiply by 6 / 255" and on
    # qint8 "additionally add each value by 128 prior to casting"
    codes = T([0, 51, 128, 255], device, wt.uint8)
    got = listed(tf.dequantize(codes, 0.0, 6.0))
    assert got == pytest.approx([v * 6 / 255 for v in (0, 51, 128, 255)], rel=1e-6)
    got8 = listed(tf.dequantize(T([-128, -77, 0, 127], device, wt.int8), 0.0, 6.0))
    assert got8 == pytest.approx([(v + 128) * 6 / 255 for v in (-128, -77, 0, 127)], rel=1e-6)
    # MIN_FIRST: "number_of_steps = 1 << (# of bits in T)" ... round(input * range_scale) -
    # round(range_min * range_scale) + numeric_limits<T>::min(), clamped
    q, lo, hi = tf.quantize_v2(T([-1.0, 0.0, 2.5, 9.0], device), -1.0, 2.0, "quint8",
                               mode="MIN_FIRST")
    scale = 256 / (3.0 * 256 / 255)
    assert listed(q) == [0, 85, min(round(2.5 * scale) + 85, 255), 255]


@pytest.mark.parametrize("device", BACKENDS)
def test_seed_fake_quant_has_256_levels(device):
    # "Op divides this range into 255 steps (total of 256 values)"
    x = wt.linspace(-8.0, 8.0, 4001, device=device)
    out = sorted(set(listed(tf.fake_quant_with_min_max_args(x, min=-6.0, max=6.0))))
    assert len(out) == 256 and 0.0 in out
    # 255 equal steps of 12/255; nudging puts 0.0 on the grid, shifting [-6, 6] by < 1 step
    steps = [b - a for a, b in zip(out, out[1:])]
    assert max(steps) == pytest.approx(12 / 255, rel=1e-4)
    assert min(steps) == pytest.approx(12 / 255, rel=1e-4)
    assert abs(out[0] + 6.0) < 12 / 255 and abs(out[-1] - 6.0) < 12 / 255
    g = T([1.0] * 5, device)
    inp = T([-7.0, -6.0, 0.0, 5.9, 6.5], device)
    # "gradients * (inputs >= min && inputs <= max)" (here min/max are already on the grid)
    assert listed(tf.fake_quant_with_min_max_args_gradient(g, inp)) == [0.0, 1.0, 1.0, 1.0, 0.0]
    d_in, d_min, d_max = tf.fake_quant_with_min_max_vars_gradient(g, inp, -6.0, 6.0)
    assert listed(d_in) == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert listed(d_min) == 1.0 and listed(d_max) == 1.0  # sum(g * (x < min)), sum(g * (x > max))


# -- NumPy references ----------------------------------------------------------------------------

MOVE_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64",
               "complex64"]
SEEDS = range(4)


def reference_test(fn):
    """A test against the NumPy references: on every device, for each seed."""
    fn = pytest.mark.parametrize("seed", SEEDS)(fn)
    return needs_numpy(pytest.mark.parametrize("device", BACKENDS)(fn))


def random_shape(rng, low, high, min_dims, max_dims) -> tuple:
    """``min_dims`` to ``max_dims - 1`` axes of ``low`` to ``high - 1`` elements."""
    return tuple(int(s) for s in rng.integers(low, high, size=rng.integers(min_dims, max_dims)))


def rand_array(rng, shape, dtype: str):
    a = rng.integers(-50, 50, size=shape)
    if dtype == "bool":
        return a > 0
    if dtype.startswith("u"):
        a = np.abs(a)
    if dtype.startswith(("float", "complex")):
        a = a / 4
    return a.astype(dtype)


def tensor(a, device, strided=False):
    """``a`` on ``device``; ``strided`` gives a non-contiguous view holding the same values."""
    if strided and a.ndim and a.size:
        return wt.asarray(np.repeat(a, 2, axis=-1), device=device)[..., ::2]
    return wt.asarray(a, device=device)


def check(got, expected):
    assert isinstance(got, wt.Tensor)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert np.dtype(got.dtype.name) == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(np.asarray(got), expected)


def ref_gather(params, indices, axis):
    out = np.empty(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)
    for pos in np.ndindex(*out.shape):
        outer, idx, inner = pos[:axis], pos[axis:axis + indices.ndim], pos[axis + indices.ndim:]
        out[pos] = params[outer + (indices[idx],) + inner]
    return out


@reference_test
def test_gather_matches_reference(device, seed):
    rng = np.random.default_rng(seed)
    for dtype in MOVE_DTYPES:
        params = rand_array(rng, random_shape(rng, 1, 4, 1, 4), dtype)
        axis = int(rng.integers(-params.ndim, params.ndim))
        n = params.shape[axis]
        ishape = random_shape(rng, 0, 3, 0, 3)
        indices = rng.integers(0, n, size=ishape).astype(rng.choice(["int32", "int64"]))
        got = tf.gather(tensor(params, device, seed % 2 == 1), tensor(indices, device),
                        axis=axis)
        check(got, ref_gather(params, indices, axis % params.ndim))
        assert got.device == device


def ref_gather_nd(params, indices):
    k = indices.shape[-1]
    out = np.empty(indices.shape[:-1] + params.shape[k:], params.dtype)
    for pos in np.ndindex(*indices.shape[:-1]):
        out[pos] = params[tuple(indices[pos])]
    return out


def ref_scatter_nd(indices, updates, shape):
    out = np.zeros(shape, updates.dtype)
    for pos in np.ndindex(*indices.shape[:-1]):
        where = tuple(indices[pos])
        out[where] = out[where] + updates[pos] if updates.dtype != bool else \
            out[where] | updates[pos]
    return out


@reference_test
def test_gather_nd_and_scatter_nd_match_reference(device, seed):
    rng = np.random.default_rng(100 + seed)
    for dtype in MOVE_DTYPES:
        shape = random_shape(rng, 1, 4, 1, 4)
        params = rand_array(rng, shape, dtype)
        k = int(rng.integers(1, len(shape) + 1))
        lead = random_shape(rng, 0, 3, 0, 3)
        indices = np.stack([rng.integers(0, n, size=lead) for n in shape[:k]], axis=-1)
        indices = indices.reshape(lead + (k,)).astype("int32")
        got = tf.gather_nd(tensor(params, device, seed % 2 == 0), tensor(indices, device))
        check(got, ref_gather_nd(params, indices))
        # repeated indices are likely with these small shapes: scatter_nd must sum them
        updates = rand_array(rng, lead + shape[k:], dtype)
        if dtype == "float16":  # keep sums exact in half precision
            updates = np.round(updates)
        got = tf.scatter_nd(tensor(indices, device), tensor(updates, device, True), list(shape))
        check(got, ref_scatter_nd(indices, updates, shape))


def ref_dynamic_partition(data, partitions, count):
    flat_p = partitions.reshape(-1)
    flat_d = data.reshape((flat_p.size,) + data.shape[partitions.ndim:])
    return [flat_d[[j for j in range(flat_p.size) if flat_p[j] == i]] for i in range(count)]


def ref_dynamic_stitch(indices, data):
    rows = max((int(i.max()) + 1 for i in indices if i.size), default=0)
    const = data[0].shape[indices[0].ndim:]
    out = np.zeros((rows,) + const, data[0].dtype)
    for idx, d in zip(indices, data):
        for pos in np.ndindex(*idx.shape):
            out[idx[pos]] = d[pos]
    return out


@reference_test
def test_partition_and_stitch_match_reference(device, seed):
    rng = np.random.default_rng(200 + seed)
    for dtype in MOVE_DTYPES[::2]:
        pshape = random_shape(rng, 0, 4, 0, 3)
        rest = random_shape(rng, 1, 3, 0, 2)
        data = rand_array(rng, pshape + rest, dtype)
        count = int(rng.integers(1, 4))
        parts = rng.integers(0, count, size=pshape).astype("int32")
        got = tf.dynamic_partition(tensor(data, device, True), tensor(parts, device), count)
        assert len(got) == count
        for g, e in zip(got, ref_dynamic_partition(data, parts, count)):
            check(g, e)
        # stitching the partitions back with their positions restores the data
        positions = np.arange(parts.size).reshape(pshape)
        pos_parts = ref_dynamic_partition(positions, parts, count)
        stitched = tf.dynamic_stitch([tensor(p.astype("int32"), device) for p in pos_parts], got)
        check(stitched, data.reshape((parts.size,) + rest))
        # overlapping random pieces: the later piece wins
        pieces = [rng.integers(0, 5, size=random_shape(rng, 0, 3, 0, 3))
                  for _ in range(3)]
        values = [rand_array(rng, p.shape + rest, dtype) for p in pieces]
        got = tf.dynamic_stitch([tensor(p, device) for p in pieces],
                                [tensor(v, device) for v in values])
        check(got, ref_dynamic_stitch(pieces, values))


def ref_boolean_mask(x, mask, axis):
    k = mask.ndim
    out = []
    for outer in np.ndindex(*x.shape[:axis]):
        row = [x[outer + pos] for pos in np.ndindex(*mask.shape) if mask[pos]]
        out.append(np.array(row, x.dtype).reshape((len(row),) + x.shape[axis + k:]))
    return np.array(out, x.dtype).reshape(x.shape[:axis] + (int(mask.sum()),) +
                                          x.shape[axis + k:])


def ref_one_hot(indices, depth, on, off, axis, dtype):
    out = np.full(indices.shape + (depth,), off, dtype)
    for pos in np.ndindex(*indices.shape):
        if 0 <= indices[pos] < depth:
            out[pos + (indices[pos],)] = on
    return np.moveaxis(out, -1, axis)


def ref_sequence_mask(lengths, maxlen):
    out = np.zeros(lengths.shape + (maxlen,), bool)
    for pos in np.ndindex(*lengths.shape):
        for j in range(maxlen):
            out[pos + (j,)] = j < lengths[pos]
    return out


@reference_test
def test_masks_and_one_hot_match_reference(device, seed):
    rng = np.random.default_rng(300 + seed)
    for dtype in MOVE_DTYPES:
        shape = random_shape(rng, 0, 4, 1, 4)
        x = rand_array(rng, shape, dtype)
        axis = int(rng.integers(0, len(shape)))
        k = int(rng.integers(1, len(shape) - axis + 1))
        mask = rng.random(shape[axis:axis + k]) < 0.5
        got = tf.boolean_mask(tensor(x, device, True), tensor(mask, device), axis=axis)
        check(got, ref_boolean_mask(x, mask, axis))
    for out_dtype in ["float32", "int8", "int64", "bool", "float16"]:
        ishape = random_shape(rng, 0, 4, 0, 3)
        depth = int(rng.integers(0, 5))
        indices = rng.integers(-1, depth + 2, size=ishape).astype(rng.choice(["int32", "int64"]))
        axis = int(rng.integers(-1, len(ishape) + 1))
        on, off = (True, False) if out_dtype == "bool" else (3, -2 if out_dtype[0] != "u" else 1)
        got = tf.one_hot(tensor(indices, device), depth, on_value=on, off_value=off, axis=axis,
                         dtype=out_dtype)
        check(got, ref_one_hot(indices, depth, on, off, axis, out_dtype))
        lengths = rng.integers(0, 5, size=ishape).astype("int32")
        maxlen = None if seed % 2 else int(rng.integers(0, 6))
        expect_len = maxlen if maxlen is not None else int(lengths.max(initial=0))
        got = tf.sequence_mask(tensor(lengths, device), maxlen,
                               dtype=wt.bool if seed < 2 else wt.float32)
        check(got, ref_sequence_mask(lengths, expect_len).astype("bool" if seed < 2 else
                                                                "float32"))


def ref_unique_with_counts(x):
    ys, idx, counts, where = [], [], [], {}
    for v in x.tolist():
        if v not in where:
            where[v] = len(ys)
            ys.append(v)
            counts.append(0)
        idx.append(where[v])
        counts[where[v]] += 1
    return np.array(ys, x.dtype), np.array(idx, "int32"), np.array(counts, "int32")


def ref_setdiff1d(x, y):
    drop = set(y.tolist())
    keep = [i for i, v in enumerate(x.tolist()) if v not in drop]
    return x[keep], np.array(keep, "int64")


@reference_test
def test_set_ops_match_reference(device, seed):
    rng = np.random.default_rng(400 + seed)
    for dtype in ["int8", "uint16", "int32", "int64", "float32", "float64"]:
        x = rand_array(rng, (int(rng.integers(0, 12)),), dtype) % 7
        y, idx, count = tf.unique_with_counts(tensor(x, device, True))
        ey, eidx, ecount = ref_unique_with_counts(x)
        check(y, ey)
        check(idx, eidx)
        check(count, ecount)
        other = rand_array(rng, (int(rng.integers(0, 5)),), dtype) % 7
        out, where = tf.setdiff1d(tensor(x, device), tensor(other, device, True),
                                  index_dtype=wt.int64)
        eout, ewhere = ref_setdiff1d(x, other)
        check(out, eout)
        check(where, ewhere)


def ref_reverse_sequence(x, lengths, seq_axis, batch_axis):
    out = x.copy()
    for pos in np.ndindex(*x.shape):
        n = lengths[pos[batch_axis]]
        t = pos[seq_axis]
        if t < n:
            src = list(pos)
            src[seq_axis] = n - 1 - t
            out[pos] = x[tuple(src)]
    return out


@reference_test
def test_reverse_sequence_matches_reference(device, seed):
    rng = np.random.default_rng(500 + seed)
    for dtype in MOVE_DTYPES:
        shape = random_shape(rng, 1, 5, 2, 4)
        x = rand_array(rng, shape, dtype)
        seq_axis, batch_axis = (int(a) for a in rng.choice(len(shape), 2, replace=False))
        lengths = rng.integers(0, shape[seq_axis] + 1, size=shape[batch_axis])
        got = tf.reverse_sequence(tensor(x, device, True), tensor(lengths, device),
                                  seq_axis=seq_axis, batch_axis=batch_axis)
        check(got, ref_reverse_sequence(x, lengths, seq_axis, batch_axis))
    # the deprecated seq_dim / batch_dim spellings
    x = rand_array(rng, (2, 4), "int32")
    got = tf.reverse_sequence(tensor(x, device), tensor(np.array([4, 0]), device), seq_dim=1,
                              batch_dim=0)
    check(got, ref_reverse_sequence(x, [4, 0], 1, 0))


# -- spatial references --------------------------------------------------------------------------

def ref_space_to_batch_nd(x, block, pads):
    m = len(block)
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    batch = x.shape[0]
    grid = [padded.shape[1 + i] // block[i] for i in range(m)]
    out = np.zeros((batch * math.prod(block),) + tuple(grid) + x.shape[1 + m:], x.dtype)
    for offsets in np.ndindex(*block):
        flat = 0
        for o, b in zip(offsets, block):
            flat = flat * b + o
        for b in range(batch):
            for cell in np.ndindex(*grid):
                src = tuple(c * bs + o for c, bs, o in zip(cell, block, offsets))
                out[(flat * batch + b,) + cell] = padded[(b,) + src]
    return out


def ref_batch_to_space_nd(x, block, crops):
    m = len(block)
    batch = x.shape[0] // math.prod(block)
    full = [x.shape[1 + i] * block[i] for i in range(m)]
    out = np.zeros((batch,) + tuple(full) + x.shape[1 + m:], x.dtype)
    for pos in np.ndindex(*out.shape[:1 + m]):
        b, cell = pos[0], pos[1:]
        offsets = [c % bs for c, bs in zip(cell, block)]
        flat = 0
        for o, bs in zip(offsets, block):
            flat = flat * bs + o
        out[pos] = x[(flat * batch + b,) + tuple(c // bs for c, bs in zip(cell, block))]
    return out[(slice(None),) + tuple(slice(c0, n - c1) for n, (c0, c1) in zip(full, crops))]


@reference_test
def test_space_batch_nd_match_reference(device, seed):
    rng = np.random.default_rng(600 + seed)
    for dtype in MOVE_DTYPES:
        m = int(rng.integers(1, 3))
        block = [int(b) for b in rng.integers(1, 4, size=m)]
        spatial = [int(s) for s in rng.integers(0, 5, size=m)]
        pads = []
        for s, b in zip(spatial, block):
            start = int(rng.integers(0, 3))
            end = int(rng.integers(0, 3))
            end += (-(s + start + end)) % b
            pads.append([start, end])
        rest = random_shape(rng, 1, 3, 0, 2)
        x = rand_array(rng, (int(rng.integers(0, 3)),) + tuple(spatial) + rest, dtype)
        got = tf.space_to_batch_nd(tensor(x, device, seed % 2 == 0), block, pads)
        check(got, ref_space_to_batch_nd(x, block, pads))
        y = rand_array(rng, got.shape, dtype)
        crops = [[int(rng.integers(0, n * b // 2 + 1)), 0] for n, b in zip(got.shape[1:], block)]
        back = tf.batch_to_space_nd(tensor(y, device, True), T(block, device), crops)
        check(back, ref_batch_to_space_nd(y, block, crops))
        # the two are inverse: with the same paddings as crops, the input comes back
        check(tf.batch_to_space_nd(got, block, pads), x)


@needs_numpy
@pytest.mark.parametrize("seed", range(8))
def test_required_space_to_batch_paddings_satisfy_the_contract(seed):
    rng = np.random.default_rng(700 + seed)
    n = int(rng.integers(1, 4))
    shape = rng.integers(0, 10, size=n)
    block = rng.integers(1, 5, size=n)
    base = rng.integers(0, 4, size=(n, 2)) if seed % 2 else None
    paddings, crops = tf.required_space_to_batch_paddings(list(shape), list(block),
                                                          None if base is None else base.tolist())
    assert paddings.dtype == crops.dtype == wt.int32
    p, c = np.asarray(paddings), np.asarray(crops)
    b = np.zeros((n, 2), int) if base is None else base
    assert (p[:, 0] == b[:, 0]).all()
    assert ((p[:, 1] - b[:, 1] >= 0) & (p[:, 1] - b[:, 1] < block)).all()
    assert ((shape + p[:, 0] + p[:, 1]) % block == 0).all()
    assert (c[:, 0] == 0).all() and (c[:, 1] == p[:, 1] - b[:, 1]).all()


def ref_space_to_depth(x, bs):
    b, h, w, d = x.shape
    out = np.zeros((b, h // bs, w // bs, bs * bs * d), x.dtype)
    for n, i, j, di, dj, c in np.ndindex(b, h // bs, w // bs, bs, bs, d):
        out[n, i, j, (di * bs + dj) * d + c] = x[n, i * bs + di, j * bs + dj, c]
    return out


def ref_depth_to_space(x, bs):
    b, h, w, d = x.shape
    dd = d // (bs * bs)
    out = np.zeros((b, h * bs, w * bs, dd), x.dtype)
    for n, i, j, c in np.ndindex(*out.shape):
        out[n, i, j, c] = x[n, i // bs, j // bs, ((i % bs) * bs + j % bs) * dd + c]
    return out


@reference_test
def test_space_depth_match_reference(device, seed):
    rng = np.random.default_rng(800 + seed)
    for dtype in MOVE_DTYPES:
        bs = int(rng.integers(2, 4))
        b, h, w, d = (int(rng.integers(0, 3)), bs * int(rng.integers(0, 3)),
                      bs * int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        x = rand_array(rng, (b, h, w, d), dtype)
        check(tf.space_to_depth(tensor(x, device, True), bs), ref_space_to_depth(x, bs))
        y = rand_array(rng, (b, h // bs + 1, w // bs, d * bs * bs), dtype)
        check(tf.depth_to_space(tensor(y, device, True), bs), ref_depth_to_space(y, bs))


def ref_extract_image_patches(x, k, s, r, padding):
    b, rows, cols, d = x.shape
    eff = [k[i] + (k[i] - 1) * (r[i] - 1) for i in range(2)]
    size = [rows, cols]
    if padding == "VALID":
        # C's truncating division, as TensorFlow's GetWindowedOutputSize
        out = [math.trunc((size[i] - eff[i] + s[i]) / s[i]) for i in range(2)]
        if min(out) < 0:
            return None  # TensorFlow: "Computed output size would be negative"
        before = [0, 0]
    else:
        out = [-(-size[i] // s[i]) for i in range(2)]
        before = [max(0, (out[i] - 1) * s[i] + eff[i] - size[i]) // 2 for i in range(2)]
    res = np.zeros((b, out[0], out[1], k[0] * k[1] * d), x.dtype)
    for n, i, j, ki, kj, c in np.ndindex(b, out[0], out[1], k[0], k[1], d):
        y = i * s[0] + ki * r[0] - before[0]
        z = j * s[1] + kj * r[1] - before[1]
        if 0 <= y < rows and 0 <= z < cols:
            res[n, i, j, (ki * k[1] + kj) * d + c] = x[n, y, z, c]
    return res


@reference_test
def test_extract_image_patches_matches_reference(device, seed):
    rng = np.random.default_rng(900 + seed)
    for dtype in MOVE_DTYPES:
        x = rand_array(rng, (int(rng.integers(1, 3)), int(rng.integers(0, 7)),
                             int(rng.integers(1, 7)), int(rng.integers(1, 3))), dtype)
        k, s, r = ([int(v) for v in rng.integers(1, hi, size=2)] for hi in (4, 4, 3))
        padding = ["SAME", "VALID"][int(rng.integers(0, 2))]
        args = (tensor(x, device, True), [1, *k, 1], [1, *s, 1], [1, *r, 1], padding)
        expect = ref_extract_image_patches(x, k, s, r, padding)
        if expect is None:
            with pytest.raises(IAE, match="VALID"):
                tf.extract_image_patches(*args)
        else:
            check(tf.extract_image_patches(*args), expect)


@pytest.mark.parametrize("device", BACKENDS)
def test_extract_image_patches_known_case(device):
    # 10x10 image of 1..100, 3x3 patches every 5 pixels: each patch starts at (5i, 5j)
    img = wt.reshape(wt.arange(1, 101, device=device), (1, 10, 10, 1))
    got = tf.extract_image_patches(img, [1, 3, 3, 1], [1, 5, 5, 1], [1, 1, 1, 1], "VALID")
    first = [1, 2, 3, 11, 12, 13, 21, 22, 23]
    assert got.shape == (1, 2, 2, 9)
    assert listed(got[0, 0, 0]) == first
    assert listed(got[0, 1, 1]) == [v + 55 for v in first]


# -- quantization references ---------------------------------------------------------------------

Q_TYPES = ["qint8", "quint8", "qint16", "quint16", "qint32"]
STORAGE = {"qint8": "int8", "quint8": "uint8", "qint16": "int16", "quint16": "uint16",
           "qint32": "int32"}


def c_round(v: float) -> float:
    """C's round(): half away from zero (exact for float32 inputs held in a double)."""
    return math.copysign(math.floor(abs(v) + 0.5), v)


def saturate(v: float, lo: int, hi: int) -> int:
    return int(min(max(v, lo), hi)) if not math.isnan(v) else 0


def ref_quantize(x, lo_in, hi_in, qtype, mode, narrow=False):
    f = np.float32
    info = np.iinfo(STORAGE[qtype])
    lo_in, hi_in = f(lo_in), f(hi_in)
    lo = min(f(0), lo_in)
    eps = f(max(f(1), max(abs(lo_in), abs(hi_in))) / f(100))
    hi = max(f(0), max(hi_in, f(lo + eps)))
    out = []
    if mode == "SCALED":
        qmin = info.min + (1 if narrow and info.min else 0)
        s_min = f(f(qmin) / lo) if qmin * lo > 0 else np.finfo(f).max
        s_max = f(f(info.max) / hi) if info.max * hi > 0 else np.finfo(f).max
        scale = min(s_min, s_max)
        lo, hi = f(f(qmin) / scale), f(f(info.max) / scale)
    for v in x.reshape(-1).tolist():
        v = f(v)
        if mode == "MIN_COMBINED":
            scale = f((float(info.max) - float(info.min)) / float(f(hi - lo)))
            c = f(min(max(v, lo), hi) - lo)
            if info.min < 0:
                half = f((float(info.max) - float(info.min) + 1) / 2)
                q = c_round(float(f(f(c * scale) - half)))
            else:
                q = math.trunc(float(f(f(c * scale) + f(0.5))))
        elif mode == "MIN_FIRST":
            steps = 2.0 ** (8 * info.dtype.itemsize)
            rscale = steps / ((float(hi) - float(lo)) * (steps / (steps - 1)))
            q = c_round(float(v) * rscale) - c_round(float(lo) * rscale) + info.min
        else:
            q = c_round(float(f(min(max(v, lo), hi) * scale)))
        out.append(saturate(q, info.min, info.max))
    return np.array(out, STORAGE[qtype]).reshape(x.shape), lo, hi


def ref_dequantize(q, lo, hi, qtype, mode):
    f = np.float32
    info = np.iinfo(STORAGE[qtype])
    lo, hi = f(lo), f(hi)
    out = []
    for v in q.reshape(-1).tolist():
        if mode == "MIN_COMBINED":
            scale = f(f(hi - lo) / f(f(info.max) - f(info.min)))
            half = f((float(info.max) - float(info.min) + 1) / 2) if info.min < 0 else f(0)
            out.append(f(f(f(v) + half) * scale) + lo)
        elif mode == "MIN_FIRST":
            steps = 2.0 ** (8 * info.dtype.itemsize)
            rscale = (float(hi) - float(lo)) * (steps / (steps - 1)) / steps
            out.append(f(float(lo) + (v - info.min) * rscale))
        else:
            scale = f(hi / f(info.max)) if info.min == 0 else max(f(lo / f(info.min)),
                                                                   f(hi / f(info.max)))
            out.append(f(f(v) * scale))
    return np.array(out, "float32").reshape(q.shape)


@needs_numpy
@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("mode", ["MIN_COMBINED", "MIN_FIRST", "SCALED"])
@pytest.mark.parametrize("seed", range(2))
def test_quantize_dequantize_match_reference(device, mode, seed):
    rng = np.random.default_rng(1000 + seed + 10 * len(mode))
    for qtype in Q_TYPES:
        lo = float(np.float32(rng.choice([0.0, -1.0, -6.5, 2.0]) * rng.random()))
        hi = float(np.float32(lo + rng.choice([0.0, 0.001, 1.0, 6.0, 300.0]) * rng.random()))
        shape = random_shape(rng, 0, 4, 0, 3)
        x = (rng.standard_normal(shape) * 4).astype("float32")
        if x.size:  # exact halves and the range ends, where rounding rules differ
            x.reshape(-1)[0] = lo
            x.reshape(-1)[-1] = hi
        q, qlo, qhi = tf.quantize_v2(tensor(x, device, True), lo, hi, qtype, mode=mode)
        eq, elo, ehi = ref_quantize(x, lo, hi, qtype, mode)
        check(q, eq)
        assert q.device == device and qlo.dtype == wt.float32
        assert listed(qlo) == float(elo) and listed(qhi) == float(ehi)
        back = tf.dequantize(q, qlo, qhi, mode=mode)
        check(back, ref_dequantize(eq, elo, ehi, qtype, mode))


@needs_numpy
@pytest.mark.parametrize("device", BACKENDS)
def test_quantize_scaled_narrow_range(device):
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0], "float32")
    q, lo, hi = tf.quantize_v2(tensor(x, device), -2.0, 2.0, wt.int8, mode="SCALED",
                               narrow_range=True)
    eq, elo, ehi = ref_quantize(x, -2.0, 2.0, "qint8", "SCALED", narrow=True)
    check(q, eq)
    assert listed(q)[0] == -127 and listed(lo) == float(elo) == -2.0


@needs_numpy
@pytest.mark.parametrize("device", BACKENDS)
def test_quantize_round_trip_error_is_within_one_step(device):
    x = np.linspace(-3, 5, 101).astype("float32")
    for mode in ["MIN_COMBINED", "MIN_FIRST"]:
        q, lo, hi = tf.quantize_v2(tensor(x, device), -3.0, 5.0, "quint8", mode=mode)
        back = np.asarray(tf.dequantize(q, lo, hi, mode=mode))
        assert np.abs(back - x).max() <= 8.0 / 255 * 1.01


@needs_numpy
@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("qtype", ["quint8", "qint8", "qint16"])
def test_quantized_concat_matches_reference(device, qtype):
    rng = np.random.default_rng(11)
    info = np.iinfo(STORAGE[qtype])
    values = [rng.integers(info.min, int(info.max) + 1, size=(2, n)).astype(STORAGE[qtype])
              for n in (3, 1, 2)]
    mins, maxes = [-1.0, 0.0, -1.0], [1.0, 4.0, 1.0]
    out, lo, hi = tf.quantized_concat(1, [tensor(v, device, True) for v in values], mins, maxes)
    f = np.float32
    elo, ehi = f(min(0.0, *mins)), f(max(maxes))
    if info.min < 0:
        elo, ehi = -max(abs(elo), abs(ehi)), max(abs(elo), abs(ehi))
    parts = []
    for v, a, b in zip(values, mins, maxes):
        if (a, b) == (elo, ehi):
            parts.append(v)
            continue
        as_float = ref_dequantize(v, a, b, qtype, "MIN_FIRST")
        steps = 2.0 ** (8 * info.dtype.itemsize)
        rscale = steps / ((float(ehi) - float(elo)) * (steps / (steps - 1)))
        q = [saturate(c_round(float(e) * rscale) - c_round(float(elo) * rscale) + info.min,
                      info.min, info.max) for e in as_float.reshape(-1).tolist()]
        parts.append(np.array(q, v.dtype).reshape(v.shape))
    check(out, np.concatenate(parts, axis=1))
    assert listed(lo) == float(elo) and listed(hi) == float(ehi)


@pytest.mark.parametrize("device", BACKENDS)
def test_quantized_concat_copies_pieces_already_in_the_output_range(device):
    a = T([0, 255], device, wt.uint8)  # range [0, 1]: requantized into [0, 2]
    b = T([7, 200], device, wt.uint8)  # range [0, 2] is the output range: copied unchanged
    out, lo, hi = tf.quantized_concat(0, [a, b], [0.0, 0.0], [1.0, 2.0])
    assert listed(lo) == 0.0 and listed(hi) == 2.0
    assert listed(out) == [0, 128, 7, 200]  # 1.0 of 2.0 is 127.5 steps: rounded away from 0


def ref_nudge(lo, hi, qmin, qmax):
    f = np.float32
    lo, hi = f(lo), f(hi)
    scale = f(f(hi - lo) / f(qmax - qmin))
    zp_from_min = f(f(qmin) - f(lo / scale))
    if zp_from_min < qmin:
        zp = qmin
    elif zp_from_min > qmax:
        zp = qmax
    else:
        zp = c_round(float(zp_from_min))
    return f(f(qmin - zp) * scale), f(f(qmax - zp) * scale), scale


def ref_fake_quant(x, lo, hi, bits, narrow):
    f = np.float32
    nmin, nmax, scale = ref_nudge(lo, hi, 1 if narrow else 0, (1 << bits) - 1)
    inv = f(f(1) / scale)
    out = []
    for v in x.reshape(-1).tolist():
        c = max(min(f(v), nmax), nmin)
        out.append(f(f(math.floor(f(f(f(c - nmin) * inv) + f(0.5)))) * scale) + nmin)
    return np.array(out, "float32").reshape(x.shape), nmin, nmax


@needs_numpy
@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("seed", range(3))
def test_fake_quant_matches_reference(device, seed):
    rng = np.random.default_rng(1200 + seed)
    for _ in range(3):
        lo = float(np.float32(-rng.random() * 8 + (1.5 if rng.random() < 0.3 else 0)))
        hi = float(np.float32(lo + 0.01 + rng.random() * 10))
        bits = int(rng.choice([2, 4, 8, 16]))
        narrow = bool(rng.random() < 0.5)
        shape = random_shape(rng, 0, 4, 0, 4)
        x = (rng.standard_normal(shape) * 6).astype("float32")
        g = rng.standard_normal(shape).astype("float32")
        expect, nmin, nmax = ref_fake_quant(x, lo, hi, bits, narrow)
        xt, gt = tensor(x, device, True), tensor(g, device)
        kw = {"num_bits": bits, "narrow_range": narrow}
        check(tf.fake_quant_with_min_max_args(xt, min=lo, max=hi, **kw), expect)
        check(tf.fake_quant_with_min_max_vars(xt, T(lo, device, wt.float32),
                                              T(hi, device, wt.float32), **kw), expect)
        inside = (x >= nmin) & (x <= nmax)
        check(tf.fake_quant_with_min_max_args_gradient(gt, xt, min=lo, max=hi, **kw),
              np.where(inside, g, np.float32(0)))
        d_in, d_min, d_max = tf.fake_quant_with_min_max_vars_gradient(gt, xt, lo, hi, **kw)
        check(d_in, np.where(inside, g, np.float32(0)))
        assert d_min.shape == d_max.shape == ()
        assert float(d_min) == pytest.approx(float(g[x < nmin].sum()), rel=1e-5, abs=1e-5)
        assert float(d_max) == pytest.approx(float(g[x > nmax].sum()), rel=1e-5, abs=1e-5)


@needs_numpy
@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("rank", [1, 2, 4])
def test_fake_quant_per_channel_matches_reference(device, rank):
    rng = np.random.default_rng(1300 + rank)
    d = 3
    shape = tuple(int(s) for s in rng.integers(1, 3, size=rank - 1)) + (d,)
    x = (rng.standard_normal(shape) * 5).astype("float32")
    g = rng.standard_normal(shape).astype("float32")
    lows = np.array([-1.0, 0.0, -6.3], "float32")
    highs = np.array([1.0, 0.0, 2.2], "float32")  # channel 1 is TensorFlow's 'both zero' case
    out = tf.fake_quant_with_min_max_vars_per_channel(tensor(x, device, True),
                                                      tensor(lows, device), highs)
    d_in, d_min, d_max = tf.fake_quant_with_min_max_vars_per_channel_gradient(
        tensor(g, device), tensor(x, device), lows, highs)
    exp_out, exp_in = np.zeros_like(x), np.zeros_like(g)
    exp_min, exp_max = np.zeros(d, "float32"), np.zeros(d, "float32")
    for c in range(d):
        xc, gc = x[..., c], g[..., c]
        if lows[c] == 0 and highs[c] == 0:
            exp_in[..., c] = gc  # everything passes through to the input
            continue
        exp_out[..., c], nmin, nmax = ref_fake_quant(xc, lows[c], highs[c], 8, False)
        inside = (xc >= nmin) & (xc <= nmax)
        exp_in[..., c] = np.where(inside, gc, np.float32(0))
        exp_min[c], exp_max[c] = gc[xc < nmin].sum(), gc[xc > nmax].sum()
    check(out, exp_out)
    check(d_in, exp_in)
    np.testing.assert_allclose(np.asarray(d_min), exp_min, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(d_max), exp_max, rtol=1e-5, atol=1e-5)
    assert d_min.shape == (d,) and out.device == device


# -- errors ----------------------------------------------------------------------------------------

IAE = errors.InvalidArgumentError
ERROR_CASES = [
    # (call, error type, words the message must contain)
    (lambda: tf.gather([1, 2, 3], [3]), IAE, ["tf.gather", "indices", "[0, 3)"]),
    (lambda: tf.gather([1, 2, 3], [-1]), IAE, ["indices", "-1"]),
    (lambda: tf.gather([1, 2, 3], [0.5]), TypeError, ["indices", "integer"]),
    (lambda: tf.gather([[1, 2]], [0], axis=2), IAE, ["axis", "rank 2"]),
    (lambda: tf.gather_nd([[1, 2]], [[0, 2]]), IAE, ["tf.gather_nd", "[0, 2]", "[1, 2]"]),
    (lambda: tf.gather_nd([1, 2], [[0, 0]]), IAE, ["last dimension", "rank"]),
    (lambda: tf.scatter_nd([[9]], [1], [8]), IAE, ["tf.scatter_nd", "[9]"]),
    (lambda: tf.scatter_nd([[1]], [1, 2], [8]), IAE, ["updates", "shape"]),
    (lambda: tf.scatter_nd([[1]], [1], [-8]), IAE, ["shape", "negative"]),
    (lambda: tf.dynamic_partition([1, 2], [0, 2], 2), IAE, ["partitions", "[0, 2)"]),
    (lambda: tf.dynamic_partition([1, 2], [0], 2), IAE, ["data.shape", "partitions.shape"]),
    (lambda: tf.dynamic_partition([1, 2], [0, 0], 0), IAE, ["num_partitions"]),
    (lambda: tf.dynamic_stitch([[0], [1]], [[1]]), IAE, ["same length"]),
    (lambda: tf.dynamic_stitch([[-1]], [[1]]), IAE, ["negative"]),
    (lambda: tf.dynamic_stitch([[0], [1]], [[[1, 2]], [[1]]]), IAE, ["data[1]"]),
    (lambda: tf.dynamic_stitch([[0], [1]], [[1], [1.5]]), TypeError, ["dtype", "data[1]"]),
    (lambda: tf.boolean_mask([1, 2], [True]), ValueError, ["mask", "shape"]),
    (lambda: tf.boolean_mask([1, 2], True), ValueError, ["mask", "scalar"]),
    (lambda: tf.boolean_mask([1, 2], [1, 0]), TypeError, ["mask", "bool"]),
    (lambda: tf.one_hot([0], 3, on_value=1.0, dtype=wt.int32), TypeError, ["on_value"]),
    (lambda: tf.one_hot([0], 3, on_value=1.0, off_value=0), TypeError, ["off_value"]),
    (lambda: tf.one_hot([0], 3, axis=2), IAE, ["axis"]),
    (lambda: tf.one_hot([0], -1), IAE, ["depth"]),
    (lambda: tf.one_hot([0.0], 3), TypeError, ["indices"]),
    (lambda: tf.sequence_mask([1, 2], [3, 4]), ValueError, ["maxlen", "scalar"]),
    (lambda: tf.unique_with_counts([[1]]), IAE, ["1-D"]),
    (lambda: tf.unique_with_counts([1], out_idx=wt.int8), TypeError, ["out_idx"]),
    (lambda: tf.setdiff1d([[1]], [1]), IAE, ["x", "1-D"]),
    (lambda: tf.reverse_sequence([[1, 2]], [3], seq_axis=1), IAE, ["seq_lengths", "3"]),
    (lambda: tf.reverse_sequence([[1, 2]], [1, 1], seq_axis=1), IAE, ["seq_lengths", "length"]),
    (lambda: tf.reverse_sequence([[1, 2]], [1], seq_axis=0), IAE, ["differ"]),
    (lambda: tf.reverse_sequence([[1, 2]], [1]), TypeError, ["seq_axis"]),
    (lambda: tf.space_to_batch_nd(wt.zeros((1, 3, 1)), [2], [[0, 0]]), IAE,
     ["block_shape[0]=2", "paddings"]),
    (lambda: tf.space_to_batch_nd(wt.zeros((1, 4, 1)), [2], [[0, -1]]), IAE, ["paddings", ">= 0"]),
    (lambda: tf.space_to_batch_nd(wt.zeros((1, 4, 1)), [0], [[0, 0]]), IAE, ["block_shape"]),
    (lambda: tf.space_to_batch_nd(wt.zeros((1, 4, 1)), [2], [0, 0]), IAE, ["paddings", "[1, 2]"]),
    (lambda: tf.space_to_batch(wt.zeros((1, 4, 4, 1)), [[0, 0], [0, 0]], 1), IAE,
     ["block_size", "at least 2"]),
    (lambda: tf.space_to_batch(wt.zeros((4, 4, 1)), [[0, 0], [0, 0]], 2), IAE, ["4-D"]),
    (lambda: tf.batch_to_space_nd(wt.zeros((3, 1, 1)), [2], [[0, 0]]), IAE, ["divisible"]),
    (lambda: tf.batch_to_space_nd(wt.zeros((2, 1, 1)), [2], [[2, 1]]), IAE, ["crops[0]"]),
    (lambda: tf.required_space_to_batch_paddings([4], [2, 2]), ValueError, ["same length"]),
    (lambda: tf.space_to_depth(wt.zeros((1, 3, 4, 1)), 2), IAE, ["divisible", "block_size 2"]),
    (lambda: tf.depth_to_space(wt.zeros((1, 1, 1, 6)), 2), IAE, ["depth 6"]),
    (lambda: tf.extract_image_patches(wt.zeros((1, 4, 4, 1)), [1, 2, 2, 1], [1, 1, 1, 1],
                                      [1, 1, 1, 1], "FULL"), ValueError, ["padding", "FULL"]),
    (lambda: tf.extract_image_patches(wt.zeros((1, 4, 4, 1)), [2, 2, 2, 1], [1, 1, 1, 1],
                                      [1, 1, 1, 1], "SAME"), IAE, ["ksizes", "[1, rows"]),
    (lambda: tf.extract_image_patches(wt.zeros((1, 2, 4, 1)), [1, 4, 2, 1], [1, 1, 1, 1],
                                      [1, 1, 1, 1], "VALID"), IAE, ["row", "VALID"]),
    (lambda: tf.quantize_v2([1.0], 0.0, 1.0, wt.float32), TypeError, ["T", "qint8"]),
    (lambda: tf.quantize_v2([1.0], 2.0, 1.0, "quint8"), IAE, ["max_range", "min_range"]),
    (lambda: tf.quantize_v2([1.0], 0.0, 1.0, "quint8", mode="ROUND"), ValueError, ["mode"]),
    (lambda: tf.quantize_v2(wt.asarray([1], dtype=wt.int32), 0.0, 1.0, "quint8"), TypeError,
     ["input", "float32"]),
    (lambda: tf.quantize_v2([1.0], 0.0, 1.0, "quint8", narrow_range=True), IAE,
     ["narrow_range", "SCALED"]),
    (lambda: tf.dequantize(wt.asarray([1.0]), 0.0, 1.0), TypeError, ["input.dtype"]),
    (lambda: tf.dequantize(wt.asarray([1], dtype=wt.uint8), [0.0, 1.0], 1.0), IAE,
     ["min_range", "scalar"]),
    (lambda: tf.quantized_concat(0, [wt.asarray([1], dtype=wt.uint8)], [0.0], [1.0]), IAE,
     ["at least 2"]),
    (lambda: tf.quantized_concat(0, [wt.asarray([1], dtype=wt.uint8),
                                     wt.asarray([1], dtype=wt.int8)], [0.0, 0.0], [1.0, 1.0]),
     TypeError, ["values[1]"]),
    (lambda: tf.quantized_concat(0, [wt.asarray([1], dtype=wt.uint8)] * 2, [0.0], [1.0, 1.0]),
     IAE, ["input_mins"]),
    (lambda: tf.fake_quant_with_min_max_args([1.0], min=1.0, max=1.0), IAE,
     ["min", "smaller than", "max"]),
    (lambda: tf.fake_quant_with_min_max_args([1.0], num_bits=1), IAE, ["num_bits", "2 and 16"]),
    (lambda: tf.fake_quant_with_min_max_args(wt.asarray([1.0], dtype=wt.float64)), TypeError,
     ["inputs", "float32"]),
    (lambda: tf.fake_quant_with_min_max_vars([1.0], 2.0, 1.0), IAE, ["min", "max"]),
    (lambda: tf.fake_quant_with_min_max_vars_gradient([1.0, 2.0], [1.0], -1.0, 1.0), IAE,
     ["gradients", "shape"]),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel([[1.0, 2.0]], [0.0], [1.0]), IAE,
     ["min", "[2]"]),
    (lambda: tf.fake_quant_with_min_max_vars_per_channel([[1.0, 2.0]], [0.0, 3.0], [1.0, 1.0]),
     IAE, ["min`[1]"]),
]


@pytest.mark.parametrize("call,error,words", ERROR_CASES,
                         ids=[f"case{i}" for i in range(len(ERROR_CASES))])
def test_invalid_arguments_raise_documented_errors(call, error, words):
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert message.startswith("tf.") or "tf." in message
    for word in words:
        assert word in message, (word, message)


def test_invalid_argument_error_is_a_value_error():
    with pytest.raises(ValueError):
        tf.gather([1, 2, 3], [5])
    try:
        tf.space_to_depth(wt.zeros((1, 3, 3, 1)), 2)
    except errors.InvalidArgumentError as e:
        assert e.op == "tf.space_to_depth"


def test_exports_and_name_arguments():
    names = ["gather", "gather_nd", "scatter_nd", "dynamic_partition", "dynamic_stitch",
             "boolean_mask", "one_hot", "sequence_mask", "unique_with_counts", "setdiff1d",
             "reverse_sequence", "extract_image_patches", "space_to_batch_nd", "space_to_batch",
             "required_space_to_batch_paddings", "batch_to_space_nd", "batch_to_space",
             "space_to_depth", "depth_to_space", "quantize_v2", "dequantize", "quantized_concat",
             "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
             "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
             "fake_quant_with_min_max_vars_per_channel",
             "fake_quant_with_min_max_vars_per_channel_gradient"]
    import inspect

    for name in names:
        assert name in tf.__all__
        assert "name" in inspect.signature(getattr(tf, name)).parameters, name
    # name= is accepted and ignored
    assert listed(tf.gather([1, 2], [1], name="g")) == [2]
    assert listed(tf.sequence_mask([1], 2, name="m")) == [[True, False]]


@pytest.mark.parametrize("device", BACKENDS)
def test_random_index_checks_do_not_wrap(device):
    # a property over random inputs: any negative index is an error, never Python-style wrapping
    rnd = random.Random(5)
    for _ in range(5):
        n = rnd.randint(1, 5)
        bad = rnd.choice([-rnd.randint(1, n), n + rnd.randint(0, 3)])
        idx = [rnd.randrange(n) for _ in range(3)] + [bad]
        rnd.shuffle(idx)
        with pytest.raises(IAE):
            tf.gather(T(list(range(n)), device), T(idx, device))
        with pytest.raises(IAE):
            tf.gather_nd(T(list(range(n)), device), T([[i] for i in idx], device))


@pytest.mark.parametrize("device", BACKENDS)
def test_empty_index_tuples_address_the_whole_tensor(device):
    # K = 0: every (empty) index tuple selects, or adds into, the whole tensor
    params = T([[1, 2], [3, 4]], device)
    empty_tuples = wt.zeros((3, 0), dtype=wt.int32, device=device)
    assert listed(tf.gather_nd(params, empty_tuples)) == [[[1, 2], [3, 4]]] * 3
    summed = tf.scatter_nd(empty_tuples, T([[[1, 2], [3, 4]]] * 3, device), [2, 2])
    assert listed(summed) == [[3, 6], [9, 12]]
