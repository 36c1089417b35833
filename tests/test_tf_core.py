"""webtensor.tf core: casting, shapes, slicing and joining, constant / Variable, numpy behaviour.

Three kinds of checks:

* every example of the TensorFlow guides (Tensor Transformations; TF-NumPy type promotion) for
  these functions, with the guide's stated result (two stated results are known mistakes of
  that guide; the tests say so and check TensorFlow's real behaviour next to them);
* each function against a reference written here with plain NumPy loops (TensorFlow's rules
  spelled out, e.g. strided_slice's mask handling and clamping), over seeded random shapes
  (0-d, size 0), all dtypes, non-contiguous views, on both CPU backends and on webgpu;
* invalid arguments: the error type TensorFlow documents and a message naming the argument.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import random
import struct
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

import webtensor as wt
from _oracle import DEVICES, ref_cast
from _views import check, make, random_storage
from webtensor import tf
from webtensor.tf.errors import InvalidArgumentError

ALL = tuple(wt.all_dtypes)
DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def _np():
    return pytest.importorskip("numpy")


def _webgpu_param():
    try:
        from webtensor.backends.webgpu import probe

        found = probe()
        reason = found.reason
        ok = found.available
    except ImportError as e:  # pragma: no cover - without the webgpu package
        ok, reason = False, str(e)
    marks = () if ok else (pytest.mark.skip(reason=f"webgpu device unavailable: {reason}"),)
    return pytest.param("webgpu", id="webgpu", marks=marks)


DEVICE_PARAMS = [pytest.param(name, id=name) for name in DEVICES]
if "webgpu" not in DEVICES:  # (older _oracle: CPU backends only) add it, or a skip with reason
    DEVICE_PARAMS.append(_webgpu_param())


@pytest.fixture(scope="module", params=DEVICE_PARAMS)
def dev(request):
    """Each CPU backend, and the webgpu device when an adapter exists."""
    if request.param == "webgpu" and "webgpu" not in DEVICES:
        from webtensor import device as _device

        return _device.as_device("webgpu")
    return DEVICES[request.param]


def vals(x):
    return x.tolist()


def raises(exc, *words):
    """pytest.raises whose message must contain every word (case-insensitive)."""
    class _Ctx:
        def __enter__(self):
            self.ctx = pytest.raises(exc)
            self.info = self.ctx.__enter__()
            return self.info

        def __exit__(self, *a):
            out = self.ctx.__exit__(*a)
            text = str(self.info.value).lower()
            for w in words:
                assert w.lower() in text, f"{w!r} not in {text!r}"
            return out
    return _Ctx()


T3 = [[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]]


# == the guide's examples ==========================================================================

def test_seed_cast(dev):
    a = wt.asarray([1.8, 2.2], dtype=wt.float32, device=dev)
    out = tf.cast(a, wt.int32)
    assert out.dtype is wt.int32 and vals(out) == [1, 2] and out.device is dev


def test_seed_shape_size_rank(dev):
    t = wt.asarray([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]]], device=dev)
    assert vals(tf.shape(t)) == [2, 2, 3] and tf.shape(t).dtype is wt.int32
    assert tf.shape(t).device is dev
    assert vals(tf.size(t)) == 12 and tf.size(t).dtype is wt.int32
    assert vals(tf.rank(t)) == 3 and tf.rank(t).dtype is wt.int32
    assert tf.shape(t, out_type=wt.int64).dtype is wt.int64
    assert [vals(s) for s in tf.shape_n([t, t[0]])] == [[2, 2, 3], [2, 3]]


def test_seed_reshape(dev):
    t = wt.asarray([1, 2, 3, 4, 5, 6, 7, 8, 9], device=dev)
    assert vals(tf.reshape(t, [3, 3])) == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    t = wt.asarray([[[1, 1], [2, 2]], [[3, 3], [4, 4]]], device=dev)
    assert vals(tf.reshape(t, [2, 4])) == [[1, 1, 2, 2], [3, 3, 4, 4]]
    t = wt.asarray([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]],
                   device=dev)
    flat = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6]
    assert vals(tf.reshape(t, [-1])) == flat
    two = [[1, 1, 1, 2, 2, 2, 3, 3, 3], [4, 4, 4, 5, 5, 5, 6, 6, 6]]
    assert vals(tf.reshape(t, [2, -1])) == two
    assert vals(tf.reshape(t, [-1, 9])) == two
    assert vals(tf.reshape(t, [2, -1, 3])) == [[[1, 1, 1], [2, 2, 2], [3, 3, 3]],
                                               [[4, 4, 4], [5, 5, 5], [6, 6, 6]]]
    scalar = tf.reshape(wt.asarray([7], device=dev), [])
    assert scalar.shape == () and vals(scalar) == 7


def test_seed_squeeze_expand_dims(dev):
    t = wt.zeros((1, 2, 1, 3, 1, 1), device=dev)
    assert vals(tf.shape(tf.squeeze(t))) == [2, 3]
    assert vals(tf.shape(tf.squeeze(t, [2, 4]))) == [1, 2, 3, 1]
    assert tf.squeeze(t, []).shape == (2, 3)  # the default [] means every size-1 dimension
    assert tf.squeeze(t, squeeze_dims=[-1]).shape == (1, 2, 1, 3, 1)
    t = wt.zeros((2,), device=dev)
    assert vals(tf.shape(tf.expand_dims(t, 0))) == [1, 2]
    assert vals(tf.shape(tf.expand_dims(t, 1))) == [2, 1]
    assert vals(tf.shape(tf.expand_dims(t, -1))) == [2, 1]
    t2 = wt.zeros((2, 3, 5), device=dev)
    assert vals(tf.shape(tf.expand_dims(t2, 0))) == [1, 2, 3, 5]
    assert vals(tf.shape(tf.expand_dims(t2, 2))) == [2, 3, 1, 5]
    assert vals(tf.shape(tf.expand_dims(t2, 3))) == [2, 3, 5, 1]
    image = wt.zeros((4, 5, 3), device=dev)
    assert tf.expand_dims(image, 0).shape == (1, 4, 5, 3)


def test_seed_meshgrid(dev):
    x = wt.asarray([1, 2, 3], device=dev)
    y = wt.asarray([4, 5, 6], device=dev)
    # The guide's stated X, Y are the matrix-indexing ('ij') grids; its text (and TensorFlow)
    # make 'xy' the default, which swaps the first two dimensions.
    X, Y = tf.meshgrid(x, y, indexing="ij")
    assert vals(X) == [[1, 1, 1], [2, 2, 2], [3, 3, 3]]
    assert vals(Y) == [[4, 5, 6], [4, 5, 6], [4, 5, 6]]
    X, Y = tf.meshgrid(x, y)
    assert vals(X) == [[1, 2, 3], [1, 2, 3], [1, 2, 3]]
    assert vals(Y) == [[4, 4, 4], [5, 5, 5], [6, 6, 6]]
    assert X.device is dev


def test_seed_slice(dev):
    t = wt.asarray(T3, device=dev)
    assert vals(tf.slice(t, [1, 0, 0], [1, 1, 3])) == [[[3, 3, 3]]]
    assert vals(tf.slice(t, [1, 0, 0], [1, 2, 3])) == [[[3, 3, 3], [4, 4, 4]]]
    assert vals(tf.slice(t, [1, 0, 0], [2, 1, 3])) == [[[3, 3, 3]], [[5, 5, 5]]]
    assert vals(tf.slice(t, [1, 0, 0], [-1, -1, 2])) == [[[3, 3], [4, 4]], [[5, 5], [6, 6]]]


def test_seed_strided_slice(dev):
    t = wt.asarray(T3, device=dev)
    assert vals(tf.strided_slice(t, [1, 0, 0], [2, 1, 3], [1, 1, 1])) == [[[3, 3, 3]]]
    assert vals(tf.strided_slice(t, [1, 0, 0], [2, 2, 3], [1, 1, 1])) == [[[3, 3, 3],
                                                                           [4, 4, 4]]]
    # The guide states [[[4, 4, 4], [3, 3, 3]]] for begin [1, 1, 0], end [2, -1, 3], strides
    # [1, -1, 1]; but a negative end counts from the back (-1 -> 1), as for every other
    # begin/end, so TensorFlow itself returns an empty middle dimension.  Later TensorFlow
    # guides fixed the example to begin [1, -1, 0], end [2, -3, 3], which gives that result.
    assert tf.strided_slice(t, [1, 1, 0], [2, -1, 3], [1, -1, 1]).shape == (1, 0, 3)
    assert vals(tf.strided_slice(t, [1, -1, 0], [2, -3, 3], [1, -1, 1])) == [[[4, 4, 4],
                                                                              [3, 3, 3]]]


def test_seed_strided_slice_masks(dev):
    np = _np()
    foo = np.arange(7 * 8 * 9).reshape(7, 8, 9)
    x = wt.asarray(foo, device=dev)
    # foo[5:,:,:3] == foo[5:7,0:8,0:3]
    got = tf.strided_slice(x, [5, 0, 0], [0, 0, 3], [1, 1, 1], begin_mask=0b010,
                           end_mask=0b011)
    assert vals(got) == foo[5:7, 0:8, 0:3].tolist()
    # foo[::-1] reverses a tensor of shape 8
    v = wt.arange(8, device=dev)
    assert vals(tf.strided_slice(v, [0], [0], [-1], begin_mask=1, end_mask=1)) == \
        list(range(7, -1, -1))
    # foo[3:5,...,4:5] on 10x3x3x10 == foo[3:5,:,:,4:5]; foo[3:5,...] == foo[3:5,:,:,:]
    big = np.arange(10 * 3 * 3 * 10).reshape(10, 3, 3, 10)
    y = wt.asarray(big, device=dev)
    got = tf.strided_slice(y, [3, 0, 4], [5, 0, 5], [1, 1, 1], ellipsis_mask=0b010)
    assert vals(got) == big[3:5, :, :, 4:5].tolist()
    assert vals(tf.strided_slice(y, [3, 0], [5, 0], [1, 1], ellipsis_mask=0b10)) == \
        big[3:5, :, :, :].tolist()
    # foo[3:5,4] on 10x8 has shape (2,); foo[3:5,4:5] has shape (2, 1) (shrink mask 1 << 1)
    z = wt.zeros((10, 8), device=dev)
    assert tf.strided_slice(z, [3, 4], [5, 5], [1, 1], shrink_axis_mask=2).shape == (2,)
    assert tf.strided_slice(z, [3, 4], [5, 5], [1, 1]).shape == (2, 1)
    # a new axis: a length-1 dimension at that spec
    assert tf.strided_slice(z, [0, 3], [0, 5], [1, 1], new_axis_mask=1).shape == (1, 2, 8)


def test_seed_split(dev):
    value = wt.zeros((5, 30), device=dev)
    split0, split1, split2 = tf.split(value, [4, 15, 11], 1)
    assert [vals(tf.shape(s)) for s in (split0, split1, split2)] == [[5, 4], [5, 15], [5, 11]]
    split0, split1, split2 = tf.split(value, num_or_size_splits=3, axis=1)
    assert vals(tf.shape(split0)) == [5, 10]


def test_seed_tile(dev):
    t = wt.asarray([1, 2, 3, 4], device=dev)
    assert vals(tf.tile(t, [2])) == [1, 2, 3, 4, 1, 2, 3, 4]


def test_seed_pad(dev):
    t = wt.asarray([[1, 2, 3], [4, 5, 6]], device=dev)
    paddings = [[1, 1], [2, 2]]
    assert vals(tf.pad(t, paddings, "CONSTANT")) == [[0, 0, 0, 0, 0, 0, 0],
                                                     [0, 0, 1, 2, 3, 0, 0],
                                                     [0, 0, 4, 5, 6, 0, 0],
                                                     [0, 0, 0, 0, 0, 0, 0]]
    assert vals(tf.pad(t, paddings, "REFLECT")) == [[6, 5, 4, 5, 6, 5, 4],
                                                    [3, 2, 1, 2, 3, 2, 1],
                                                    [6, 5, 4, 5, 6, 5, 4],
                                                    [3, 2, 1, 2, 3, 2, 1]]
    assert vals(tf.pad(t, paddings, "SYMMETRIC")) == [[2, 1, 1, 2, 3, 3, 2],
                                                      [2, 1, 1, 2, 3, 3, 2],
                                                      [5, 4, 4, 5, 6, 6, 5],
                                                      [5, 4, 4, 5, 6, 6, 5]]
    assert vals(tf.pad(t, wt.asarray(paddings), "symmetric")) == \
        vals(tf.pad(t, paddings, "SYMMETRIC"))  # case-insensitive; paddings as a tensor


def test_seed_concat(dev):
    t1 = wt.asarray([[1, 2, 3], [4, 5, 6]], device=dev)
    t2 = wt.asarray([[7, 8, 9], [10, 11, 12]], device=dev)
    rows = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]
    cols = [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]]
    assert vals(tf.concat(0, [t1, t2])) == rows
    assert vals(tf.concat(1, [t1, t2])) == cols
    assert vals(tf.concat_v2([t1, t2], 0)) == rows
    assert vals(tf.concat_v2([t1, t2], 1)) == cols
    assert vals(tf.concat([t1, t2], 1)) == cols  # the later argument order works too
    assert vals(tf.concat(values=[t1, t2], axis=-1)) == cols
    assert vals(tf.shape(tf.concat(0, [t1, t2]))) == [4, 3]
    assert vals(tf.shape(tf.concat_v2([t1, t2], 1))) == [2, 6]
    # "tf.concat(axis, [tf.expand_dims(t, axis) for t in tensors])" == "tf.pack(tensors, axis)"
    for axis in (0, 1, 2):
        a = tf.concat(axis, [tf.expand_dims(t, axis) for t in (t1, t2)])
        assert vals(a) == vals(tf.pack([t1, t2], axis=axis))
    assert tf.concat(0, t1) is t1  # a single tensor is returned as is


def test_seed_stack_pack_unstack(dev):
    np = _np()
    x = wt.asarray([1, 4], device=dev)
    y = wt.asarray([2, 5], device=dev)
    z = wt.asarray([3, 6], device=dev)
    for fn in (tf.stack, tf.pack):
        assert vals(fn([x, y, z])) == [[1, 4], [2, 5], [3, 6]]
        assert vals(fn([x, y, z], axis=1)) == [[1, 2, 3], [4, 5, 6]]
    assert vals(tf.parallel_stack([x, y, z])) == [[1, 4], [2, 5], [3, 6]]
    assert vals(tf.stack([x, y, z])) == np.asarray([[1, 4], [2, 5], [3, 6]]).tolist()
    v = wt.asarray(np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5), device=dev)
    for fn in (tf.unstack, tf.unpack):
        parts = fn(v)
        assert len(parts) == 2 and all(p.shape == (3, 4, 5) for p in parts)
        assert [vals(p) for p in parts] == [vals(r) for r in list(v)]  # == list(x)
        parts = fn(v, axis=1)
        assert len(parts) == 3 and all(p.shape == (2, 4, 5) for p in parts)
        assert vals(parts[1]) == vals(v[:, 1])


REV_T = [[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
          [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]]


@pytest.mark.parametrize("fn", [tf.reverse, tf.reverse_v2], ids=["reverse", "reverse_v2"])
def test_seed_reverse(dev, fn):
    t = wt.asarray(REV_T, device=dev)
    last = [[[[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]],
             [[15, 14, 13, 12], [19, 18, 17, 16], [23, 22, 21, 20]]]]
    assert vals(fn(t, [3])) == last and vals(fn(t, -1)) == last
    second = [[[[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]],
               [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]]]
    assert vals(fn(t, [1])) == second and vals(fn(t, [-3])) == second
    third = [[[[8, 9, 10, 11], [4, 5, 6, 7], [0, 1, 2, 3]],
              [[20, 21, 22, 23], [16, 17, 18, 19], [12, 13, 14, 15]]]]
    assert vals(fn(t, [2])) == third and vals(fn(t, [-2])) == third
    assert vals(fn(t, [])) == REV_T


def test_seed_transpose(dev):
    x = wt.asarray([[1, 2, 3], [4, 5, 6]], device=dev)
    assert vals(tf.transpose(x)) == [[1, 4], [2, 5], [3, 6]]
    assert vals(tf.transpose(x, perm=[1, 0])) == [[1, 4], [2, 5], [3, 6]]
    x = wt.asarray([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], device=dev)
    assert vals(tf.transpose(x, perm=[0, 2, 1])) == [[[1, 4], [2, 5], [3, 6]],
                                                     [[7, 10], [8, 11], [9, 12]]]
    c = wt.asarray([[1 + 2j, 3 - 1j]], device=dev)
    assert vals(tf.transpose(c, conjugate=True)) == [[1 - 2j], [3 + 1j]]


def test_seed_empty(dev):
    e = tf.empty([2, 3], wt.int16)
    assert e.shape == (2, 3) and e.dtype is wt.int16
    z = tf.empty([2, 3], wt.float32, init=True)
    assert vals(z) == [[0.0] * 3] * 2
    like = tf.empty_like(wt.ones((4,), dtype=wt.uint8, device=dev), init=True)
    assert like.shape == (4,) and like.dtype is wt.uint8 and like.device is dev
    assert vals(like) == [0, 0, 0, 0]
    assert tf.empty_like(wt.ones((0, 2), device=dev)).shape == (0, 2)


def test_seed_alias_inplace(dev):
    value = wt.asarray([[1, 2], [3, 4], [5, 6]], device=dev)
    # loc None: value = update
    out = tf.alias_inplace_update(value, None, [[0, 0], [0, 0], [9, 9]])
    assert out is value and vals(value) == [[0, 0], [0, 0], [9, 9]]
    # loc scalar: value[i, :] = update
    tf.alias_inplace_update(value, 1, [7, 8])
    assert vals(value) == [[0, 0], [7, 8], [9, 9]]
    # loc vector: value[loc, :] = update
    tf.alias_inplace_update(value, [0, 2], [[1, 1], [2, 2]])
    assert vals(value) == [[1, 1], [7, 8], [2, 2]]
    tf.alias_inplace_add(value, 1, [10, 10])
    assert vals(value) == [[1, 1], [17, 18], [2, 2]]
    tf.alias_inplace_add(value, None, [[1, 1], [1, 1], [1, 1]])
    assert vals(value) == [[2, 2], [18, 19], [3, 3]]
    tf.alias_inplace_subtract(value, [0, 0, 2], [[1, 1], [1, 1], [3, 3]])  # repeats add up
    assert vals(value) == [[0, 0], [18, 19], [0, 0]]
    tf.alias_inplace_subtract(value, None, [[0, 0], [18, 19], [0, 0]])
    assert vals(value) == [[0, 0], [0, 0], [0, 0]]


# -- TF-NumPy type promotion guide --------------------------------------------------------------

def test_seed_constant_weak_and_strong():
    five = tf.constant(5)
    assert five.dtype is wt.int32 and five.weak and vals(five) == 5
    floats = tf.constant([5.0, 10.0, 3])
    assert floats.dtype is wt.float32 and floats.weak and vals(floats) == [5.0, 10.0, 3.0]
    strong = tf.constant(5, wt.int32)
    assert strong.dtype is wt.int32 and not strong.weak
    neg = -tf.constant(5)
    assert neg.dtype is wt.int32 and neg.weak and vals(neg) == -5


@pytest.mark.parametrize("mode", ["all", "safe"])
def test_seed_all_and_safe_modes(mode):
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    a = tf.constant(10, dtype=wt.int32)
    b = tf.constant(5.0, dtype=wt.float32)
    c = tf.constant(10, dtype=wt.int8)
    d = tf.constant(5, dtype=wt.uint32)
    if mode == "all":
        assert (a + b).dtype is wt.float32 and vals(a + b) == 15.0
        assert (c + d).dtype is wt.int64 and vals(c + d) == 15
        half = tf.constant(1, wt.int64) + tf.constant(3.2, wt.float16)
        assert half.dtype is wt.float16 and vals(half) == 4.19921875
    else:
        with raises(TypeError, "int32", "float32"):
            a + b
        with raises(TypeError, "int8", "uint32"):
            c + d
    weak = tf.constant(1.2) + tf.constant(3.1, wt.float16)
    assert weak.dtype is wt.float16 and vals(weak) == 4.30078125
    diff = tf.constant(5, wt.int16) - tf.constant(1, wt.float32)
    if mode == "all":
        assert diff.dtype is wt.float32 and vals(diff) == 4.0
    # tf.Variable in-place ops allow implicit conversions
    v = tf.Variable(10, wt.int32)
    out = v.assign_add(tf.constant(5, wt.int16))
    assert out is v and v.dtype is wt.int32 and vals(v.value()) == 15
    # tf.constant converts a tensor of another dtype
    a16 = tf.constant(10, wt.int16)
    conv = tf.constant(a16, wt.float32)
    assert conv.dtype is wt.float32 and vals(conv) == 10.0 and not conv.weak


def test_seed_order_independence_and_bit_widening():
    np = _np()
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    a = np.array(1, dtype=np.int8)
    b = tf.constant(1)
    c = np.array(1, dtype=np.float16)
    ab_c = wt.add(wt.add(a, b), c)
    ba_c = wt.add(wt.add(b, a), c)
    assert ab_c.dtype is ba_c.dtype is wt.float16 and vals(ab_c) == vals(ba_c) == 3.0
    new = np.array(3.2, np.float16) + tf.constant(1, wt.int8) + tf.constant(50)
    assert new.dtype is wt.float16 and vals(new) == 54.1875
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
    old = np.array(3.2, np.float16) + tf.constant(1, wt.int8) + tf.constant(50)
    assert old.dtype is wt.float64 and vals(old) == 54.19921875
    assert tf.constant(np.int16(3)).dtype is wt.int16  # NumPy values keep their dtype


# == references with NumPy loops ===================================================================

def _rng(seed, name):
    return random.Random(f"{name}:{seed}")


def _random_tensor(rnd, dev, dt=None, shape=None, *, min_dims=0, max_dims=4, max_side=4):
    """(numpy storage, tensor) with a random shape/dtype; sometimes a non-contiguous view."""
    dt = dt or rnd.choice(ALL)
    if shape is None:
        shape = tuple(rnd.randint(0, max_side) for _ in range(rnd.randint(min_dims, max_dims)))
    storage = random_storage(shape, dt, rnd.randrange(2 ** 32))
    layout = None
    if shape and rnd.random() < 0.5:
        layout = (tuple(rnd.choice((1, 2, -1, -2)) for _ in shape), rnd.choice((0, 3)))
    return storage, make(storage, dt, dev, layout)


def _loop_fill(out_shape, source_index, src):
    """``out[idx] = src[source_index(idx)]`` over every output index (NumPy loop)."""
    np = _np()
    out = np.empty(out_shape, dtype=src.dtype)
    for idx in np.ndindex(*out_shape):
        out[idx] = src[source_index(idx)]
    return out


SEEDS = range(10)


# -- strided_slice: TensorFlow's dense-spec algorithm, written out -------------------------------

class _TFError(Exception):
    pass


def _canon(x, masked, is_begin, stride, size):
    """TensorFlow's canonical begin/end of one range spec: the fullest range when masked,
    else negative counts from the back, clamped to [0, size] (stride > 0) or [-1, size - 1]."""
    lo, hi = (0, size) if stride > 0 else (-1, size - 1)
    if masked:
        return (lo if is_begin else hi) if stride > 0 else (hi if is_begin else lo)
    x = x + size if x < 0 else x
    return min(max(x, lo), hi)


def ref_strided_slice(src, begin, end, strides, bmask, emask, ellipsis, new_axis, shrink):
    np = _np()
    n = len(begin)
    specs = []  # sparse -> dense: (kind, b, e, s, bmasked, emasked)
    if not ellipsis:
        ellipsis_at = n  # an implicit ellipsis after the last spec
    else:
        ellipsis_at = (ellipsis & -ellipsis).bit_length() - 1
    used = sum(1 for i in range(n) if i != ellipsis_at and not (new_axis >> i) & 1)
    if used > src.ndim:
        raise _TFError("too many indices")
    for i in range(n + (1 if not ellipsis else 0)):
        if i == ellipsis_at:
            for _ in range(src.ndim - used):
                specs.append(("full",))
            continue
        if i >= n:
            continue
        bit = 1 << i
        if new_axis & bit:
            specs.append(("new",))
        elif strides[i] == 0:
            raise _TFError("zero stride")
        elif shrink & bit:
            if strides[i] < 0:
                raise _TFError("negative stride on a shrunk axis")
            specs.append(("shrink", begin[i]))
        else:
            specs.append(("range", begin[i], end[i], strides[i], bool(bmask & bit),
                          bool(emask & bit)))
    index_lists, out_shape = [], []
    dim = 0
    for spec in specs:
        if spec[0] == "new":
            out_shape.append(1)
            continue
        size = src.shape[dim]
        if spec[0] == "full":
            idx = list(range(size))
            out_shape.append(size)
        elif spec[0] == "shrink":
            b = spec[1] + size if spec[1] < 0 else spec[1]
            if not 0 <= b < size:
                raise _TFError("shrink index out of range")
            idx = [b]
        else:
            _, b, e, s, bm, em = spec
            b, e = _canon(b, bm, True, s, size), _canon(e, em, False, s, size)
            idx = list(range(b, e, s))
            out_shape.append(len(idx))
        index_lists.append(idx)
        dim += 1
    flat = [src[c] for c in itertools.product(*index_lists)] if index_lists else [src[()]]
    return np.array(flat, dtype=src.dtype).reshape(out_shape)


@pytest.mark.parametrize("seed", range(30))
def test_strided_slice_matches_reference(dev, seed):
    _np()
    rnd = _rng(seed, "strided_slice")
    storage, x = _random_tensor(rnd, dev, max_dims=4)
    n = rnd.randint(0, x.ndim + 1)
    begin = [rnd.randint(-6, 6) for _ in range(n)]
    end = [rnd.randint(-6, 6) for _ in range(n)]
    strides = [rnd.choice((-3, -2, -1, 1, 1, 2, 3)) for _ in range(n)]
    if n and rnd.random() < 0.1:
        strides[rnd.randrange(n)] = 0
    masks = [rnd.randrange(1 << n) if n else 0 for _ in range(2)]
    ellipsis = 1 << rnd.randrange(n) if n and rnd.random() < 0.3 else 0
    new_axis = rnd.randrange(1 << n) if n and rnd.random() < 0.3 else 0
    shrink = rnd.randrange(1 << n) if n and rnd.random() < 0.4 else 0
    for i in range(n):  # mostly valid shrink indices, so most cases produce values
        if (shrink >> i) & 1 and rnd.random() < 0.8:
            strides[i] = abs(strides[i]) or 1
    args = (begin, end, strides, *masks, ellipsis, new_axis, shrink)
    try:
        expected = ref_strided_slice(storage, *args)
    except _TFError:
        with pytest.raises(InvalidArgumentError):
            tf.strided_slice(x, *args[:3], begin_mask=masks[0], end_mask=masks[1],
                             ellipsis_mask=ellipsis, new_axis_mask=new_axis,
                             shrink_axis_mask=shrink)
        return
    got = tf.strided_slice(x, begin, wt.asarray(end, dtype=wt.int64), strides,
                           begin_mask=masks[0], end_mask=masks[1], ellipsis_mask=ellipsis,
                           new_axis_mask=new_axis, shrink_axis_mask=shrink)
    check(got, expected, x.dtype)
    assert got.device is dev


@pytest.mark.parametrize("seed", SEEDS)
def test_slice_matches_reference(dev, seed):
    rnd = _rng(seed, "slice")
    storage, x = _random_tensor(rnd, dev, max_dims=4)
    begin = [rnd.randint(0, n) for n in x.shape]
    size = [rnd.choice((-1, rnd.randint(0, n - b))) for b, n in zip(begin, x.shape)]
    real = [n - b if s == -1 else s for b, s, n in zip(begin, size, x.shape)]
    expected = _loop_fill(tuple(real), lambda i: tuple(b + k for b, k in zip(begin, i)),
                          storage)
    check(tf.slice(x, begin, wt.asarray(size), name="ignored"), expected, x.dtype)


def _mirror(i, n, mode):
    """Source index of padded position i (relative to the start of the data)."""
    while not 0 <= i < n:  # REFLECT excludes the edge, SYMMETRIC repeats it
        if i < 0:
            i = -i if mode == "REFLECT" else -i - 1
        else:
            i = 2 * (n - 1) - i if mode == "REFLECT" else 2 * n - 1 - i
    return i


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_pad_matches_reference(dev, seed, mode):
    np = _np()
    rnd = _rng(seed, "pad" + mode)
    storage, x = _random_tensor(rnd, dev, min_dims=1, max_dims=3)
    limit = {"CONSTANT": 3, "REFLECT": None, "SYMMETRIC": None}[mode]
    paddings = []
    for n in x.shape:
        top = limit if limit is not None else max(n - 1, 0) if mode == "REFLECT" else n
        paddings.append([rnd.randint(0, top), rnd.randint(0, top)])
    if mode == "REFLECT" and 0 in x.shape:  # REFLECT needs paddings <= size - 1, here -1
        with raises(InvalidArgumentError, "at most -1"):
            tf.pad(x, paddings, mode)
        return
    out_shape = tuple(b + n + a for n, (b, a) in zip(x.shape, paddings))
    if mode == "CONSTANT":
        fill = np.zeros((), dtype=storage.dtype)
        inside = lambda idx: all(0 <= i - b < n for i, (b, _), n in  # noqa: E731
                                 zip(idx, paddings, x.shape))
        expected = np.empty(out_shape, dtype=storage.dtype)
        for idx in np.ndindex(*out_shape):
            expected[idx] = storage[tuple(i - b for i, (b, _) in zip(idx, paddings))] \
                if inside(idx) else fill
    else:
        expected = _loop_fill(out_shape, lambda idx: tuple(
            _mirror(i - b, n, mode) for i, (b, _), n in zip(idx, paddings, x.shape)), storage)
    check(tf.pad(x, paddings, mode), expected, x.dtype)


@pytest.mark.parametrize("seed", SEEDS)
def test_tile_reverse_transpose_match_reference(dev, seed):
    rnd = _rng(seed, "trt")
    storage, x = _random_tensor(rnd, dev, max_dims=4, max_side=3)
    reps = [rnd.randint(0, 3) for _ in x.shape]
    tiled = tuple(n * r for n, r in zip(x.shape, reps))
    check(tf.tile(x, reps), _loop_fill(tiled, lambda i: tuple(
        k % n for k, n in zip(i, x.shape)), storage), x.dtype)
    axes = [a for a in range(x.ndim) if rnd.random() < 0.5]
    given = [a - x.ndim if rnd.random() < 0.5 else a for a in axes]
    check(tf.reverse(x, given), _loop_fill(x.shape, lambda i: tuple(
        n - 1 - k if d in axes else k for d, (k, n) in enumerate(zip(i, x.shape))), storage),
        x.dtype)
    perm = list(range(x.ndim))
    rnd.shuffle(perm)
    inverse = [perm.index(d) for d in range(x.ndim)]
    out_shape = tuple(x.shape[p] for p in perm)
    check(tf.transpose(x, perm), _loop_fill(out_shape, lambda i: tuple(
        i[inverse[d]] for d in range(x.ndim)), storage), x.dtype)


@pytest.mark.parametrize("seed", SEEDS)
def test_concat_stack_split_unstack_match_reference(dev, seed):
    np = _np()
    rnd = _rng(seed, "join")
    dt = rnd.choice(ALL)
    shape = tuple(rnd.randint(0, 3) for _ in range(rnd.randint(1, 3)))
    axis = rnd.randrange(len(shape))
    parts, tensors = [], []
    for _ in range(rnd.randint(1, 3)):
        s = list(shape)
        s[axis] = rnd.randint(0, 3)
        storage, t = _random_tensor(rnd, dev, dt, tuple(s))
        parts.append(storage)
        tensors.append(t)
    total = list(shape)
    total[axis] = sum(p.shape[axis] for p in parts)
    owner = [(j, k) for j, p in enumerate(parts) for k in range(p.shape[axis])]
    expected = np.empty(tuple(total), dtype=parts[0].dtype)
    for idx in np.ndindex(*total):
        j, k = owner[idx[axis]]
        expected[idx] = parts[j][idx[:axis] + (k,) + idx[axis + 1:]]
    joined = tf.concat_v2(tensors, axis - len(shape) if rnd.random() < 0.5 else axis)
    check(joined, expected, dt)
    # split back into the same pieces, by sizes (one inferred) and by count
    sizes = [p.shape[axis] for p in parts]
    given = list(sizes)
    given[rnd.randrange(len(given))] = -1
    for piece, part in zip(tf.split(joined, given, axis=axis), parts):
        check(piece, part, dt)
    k = rnd.randint(1, 3)
    if total[axis] % k == 0:
        step = total[axis] // k
        for j, piece in enumerate(tf.split(joined, k, axis=axis)):
            check(piece, expected[(slice(None),) * axis + (slice(j * step, (j + 1) * step),)],
                  dt)
    # stack same-shaped tensors, then unstack them again
    same = [_random_tensor(rnd, dev, dt, shape) for _ in range(rnd.randint(1, 3))]
    new_axis = rnd.randint(-len(shape) - 1, len(shape))
    stacked = tf.stack([t for _, t in same], axis=new_axis)
    a = new_axis % (len(shape) + 1)
    out_shape = shape[:a] + (len(same),) + shape[a:]
    check(stacked, _loop_fill(out_shape, lambda i: (i[a],) + i[:a] + i[a + 1:],
                              np.stack([s for s, _ in same])), dt)
    for (s, _), piece in zip(same, tf.unstack(stacked, axis=new_axis)):
        check(piece, s, dt)


@pytest.mark.parametrize("seed", SEEDS)
def test_shape_functions_match_reference(dev, seed):
    np = _np()
    rnd = _rng(seed, "shapes")
    storage, x = _random_tensor(rnd, dev, max_dims=4)
    assert vals(tf.shape(x)) == list(storage.shape)
    assert vals(tf.size(x, out_type=wt.int64)) == storage.size
    assert vals(tf.rank(x)) == storage.ndim
    flat = storage.reshape(-1)  # C order
    dims = list(storage.shape)
    rnd.shuffle(dims)
    if dims and rnd.random() < 0.5 and storage.size:
        dims[rnd.randrange(len(dims))] = -1
    real = [storage.size // max(1, math.prod(d for d in dims if d != -1)) if d == -1 else d
            for d in dims]
    check(tf.reshape(x, dims), _loop_fill(tuple(real), lambda i: (
        int(np.ravel_multi_index(i, real)),) if real else (0,), flat), x.dtype)
    ones = [d for d, n in enumerate(storage.shape) if n == 1]
    chosen = [d for d in ones if rnd.random() < 0.5]
    kept = tuple(n for d, n in enumerate(storage.shape) if d not in chosen)
    squeezed = tf.squeeze(x, chosen) if chosen else tf.squeeze(x)
    expect_shape = kept if chosen else tuple(n for n in storage.shape if n != 1)
    check(squeezed, flat.reshape(expect_shape), x.dtype)
    a = rnd.randint(-1 - x.ndim, x.ndim)
    expanded = tf.expand_dims(x, a)
    pos = a % (x.ndim + 1)
    check(expanded, storage.reshape(storage.shape[:pos] + (1,) + storage.shape[pos:]), x.dtype)


@pytest.mark.parametrize("seed", SEEDS)
def test_broadcast_shapes_match_reference(seed):
    rnd = _rng(seed, "bcast")
    base = [rnd.randint(0, 4) for _ in range(rnd.randint(0, 4))]
    sx = [1 if rnd.random() < 0.3 else n for n in base[rnd.randint(0, len(base)):]]
    sy = [1 if rnd.random() < 0.3 else n for n in base[rnd.randint(0, len(base)):]]
    if rnd.random() < 0.3 and sx:
        sx[0] += 5  # usually incompatible now
    width = max(len(sx), len(sy))
    px, py = [1] * (width - len(sx)) + sx, [1] * (width - len(sy)) + sy
    ok = all(a == b or 1 in (a, b) for a, b in zip(px, py))
    if not ok:
        with raises(InvalidArgumentError, "incompatible"):
            tf.broadcast_dynamic_shape(sx, sy)
        with raises(ValueError, "incompatible"):
            tf.broadcast_static_shape(tuple(sx), tuple(sy))
        return
    expected = [b if a == 1 else a for a, b in zip(px, py)]
    got = tf.broadcast_dynamic_shape(wt.asarray(sx, dtype=wt.int32), sy)
    assert vals(got) == expected and got.dtype is wt.int32
    assert tf.broadcast_static_shape(tuple(sx), sy) == tuple(expected)


def test_broadcast_static_shape_unknown_dims():
    assert tf.broadcast_static_shape((None, 3), (2, 1)) == (2, 3)
    assert tf.broadcast_static_shape((None, 1), (1, None)) == (None, None)
    assert tf.broadcast_static_shape((5,), None) is None
    assert tf.broadcast_dynamic_shape(wt.asarray([2, 1], dtype=wt.int64), [3]).dtype is wt.int64


@pytest.mark.parametrize("seed", SEEDS)
def test_meshgrid_matches_reference(dev, seed):
    np = _np()
    rnd = _rng(seed, "mesh")
    vecs = [_random_tensor(rnd, dev, shape=(rnd.randint(0, 3),)) for _ in range(rnd.randint(1, 3))]
    indexing = rnd.choice(("xy", "ij"))
    grids = tf.meshgrid(*[t for _, t in vecs], indexing=indexing)
    lengths = [s.shape[0] for s, _ in vecs]
    if indexing == "xy" and len(vecs) > 1:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    for k, ((s, t), g) in enumerate(zip(vecs, grids)):
        axis = (1 - k if k < 2 else k) if indexing == "xy" and len(vecs) > 1 else k
        expected = np.empty(tuple(lengths), dtype=s.dtype)
        for idx in np.ndindex(*lengths):
            expected[idx] = s[idx[axis]]
        check(g, expected, t.dtype)


def _wrap_int(value: int, dt) -> int:
    info = wt.iinfo(dt)
    return (value - info.min) % (info.max - info.min + 1) + info.min


@pytest.mark.parametrize("seed", SEEDS)
def test_alias_inplace_matches_reference(dev, seed):
    np = _np()
    rnd = _rng(seed, "inplace")
    numeric = [d for d in ALL if d.kind in "iu"] + [wt.float16, wt.float32, wt.float64,
                                                    wt.complex64, wt.complex128]
    dt = rnd.choice(numeric)
    rows = rnd.randint(1, 4)
    shape = (rows,) + tuple(rnd.randint(0, 3) for _ in range(rnd.randint(0, 2)))
    v_storage, value = _random_tensor(rnd, dev, dt, shape)
    value = wt.asarray(value, copy=True)  # a writable, contiguous target
    loc = [rnd.randrange(rows) for _ in range(rnd.randint(0, 4))]  # repeats happen
    u_storage, update = _random_tensor(rnd, dev, dt, (len(loc),) + shape[1:])
    op = rnd.choice(("update", "add", "subtract"))
    expected = np.array(v_storage, copy=True)
    for j, r in enumerate(loc):  # TensorFlow's kernel: one row after the other
        for idx in np.ndindex(*shape[1:]):
            old, new = expected[(r,) + idx], u_storage[(j,) + idx]
            if op != "update" and dt.kind in "iu":
                total = int(old) + int(new) if op == "add" else int(old) - int(new)
                new = _wrap_int(total, dt)
            elif op != "update":
                with np.errstate(all="ignore"):
                    new = old + new if op == "add" else old - new
            expected[(r,) + idx] = new
    fn = {"update": tf.alias_inplace_update, "add": tf.alias_inplace_add,
          "subtract": tf.alias_inplace_subtract}[op]
    assert fn(value, loc, update) is value
    check(value, expected, dt)


# -- casts ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_cast_and_to_functions_match_reference(dev, seed):
    from _oracle import compute_values, to_storage

    rnd = _rng(seed, "cast")
    src = rnd.choice(ALL)
    storage, x = _random_tensor(rnd, dev, src, max_dims=2)
    target = rnd.choice(ALL)
    for fn, dst in [(lambda v: tf.cast(v, target), target), (tf.to_double, wt.float64),
                    (tf.to_float, wt.float32), (tf.to_bfloat16, wt.bfloat16),
                    (tf.to_int32, wt.int32), (tf.to_int64, wt.int64)]:
        got = fn(x)
        assert got.dtype is dst and not got.weak and got.device is dev
        check(got, to_storage(ref_cast(compute_values(storage, src), dst), dst), dst)


def _ref_saturate(value, src, dst):
    """One value: clamp into ``dst``'s range (Python numbers), then convert."""
    np = _np()
    from _oracle import np_compute_dtype

    if dst.kind == "c":
        part = dst.real_dtype
        if src.kind != "c":  # (a real value keeps its exact type: ints beyond 2**53)
            return complex(_ref_saturate(value, src, part), 0.0)
        return complex(_ref_saturate(value.real, src.real_dtype, part),
                       _ref_saturate(value.imag, src.real_dtype, part))
    if isinstance(value, complex):
        value, src = value.real, src.real_dtype
    if dst is wt.bool:
        return bool(value)
    if dst.kind in "iu":
        info = wt.iinfo(dst)
        if isinstance(value, float):
            if math.isnan(value):
                return 0
            value = math.trunc(value) if math.isfinite(value) else value
        return int(min(max(value, info.min), info.max))
    # A float target: the cast's own rounding (ref_cast), then overflow saturates to +-max.
    converted = float(ref_cast(np.array([value], dtype=np_compute_dtype(src)), dst)[0])
    if math.isinf(converted) and not (isinstance(value, float) and math.isinf(value)):
        return math.copysign(wt.finfo(dst).max, value)
    return converted


@pytest.mark.parametrize("src", ALL, ids=[d.name for d in ALL])
def test_saturate_cast_matches_reference(dev, src):
    np = _np()
    from _oracle import special_values, storage_array

    x = wt.asarray(special_values(src), dtype=src, device=dev)
    for dst in ALL:  # every pair, with the edge values of the source dtype
        got = tf.saturate_cast(x, dst)
        assert got.dtype is dst and got.device is dev
        with np.errstate(all="ignore"):
            expected = [_ref_saturate(v, src, dst) for v in x.tolist()]
        check(got, storage_array(expected, dst), dst)


@pytest.mark.parametrize("seed", SEEDS)
def test_bitcast_matches_reference(dev, seed):
    np = _np()
    from _oracle import np_storage_dtype

    rnd = _rng(seed, "bitcast")
    numeric = [d for d in ALL if d is not wt.bool]
    src, dst = rnd.choice(numeric), rnd.choice(numeric)
    shape = tuple(rnd.randint(0, 3) for _ in range(rnd.randint(0, 3)))
    if src.itemsize < dst.itemsize:
        shape = shape + (dst.itemsize // src.itemsize,)
    storage, x = _random_tensor(rnd, dev, src, shape)
    raw = np.ascontiguousarray(storage).tobytes()
    if src.itemsize > dst.itemsize:
        out_shape = shape + (src.itemsize // dst.itemsize,)
    elif src.itemsize < dst.itemsize:
        out_shape = shape[:-1]
    else:
        out_shape = shape
    expected = np.frombuffer(raw, dtype=np_storage_dtype(dst)).reshape(out_shape)
    got = tf.bitcast(x, dst)
    assert got.device is dev
    check(got, expected, dst)


def test_bitcast_examples():
    one = tf.bitcast(wt.asarray([1.0, -2.0], dtype=wt.float32), wt.uint8)
    assert one.shape == (2, 4) and vals(one) == [list(struct.pack("<f", 1.0)),
                                                 list(struct.pack("<f", -2.0))]
    back = tf.bitcast(one, wt.float32)
    assert vals(back) == [1.0, -2.0]
    assert tf.bitcast(wt.asarray(7, dtype=wt.int32), wt.uint32).shape == ()
    c = tf.bitcast(wt.asarray([[1.0, 2.0]], dtype=wt.float64), wt.complex128)
    assert vals(c) == [1 + 2j]


# -- string_to_number -----------------------------------------------------------------------------

def _f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_string_to_number_matches_reference(seed):
    rnd = _rng(seed, "s2n")
    shape = tuple(rnd.randint(0, 3) for _ in range(rnd.randint(0, 2)))
    n = math.prod(shape)
    ints = [rnd.randint(-2 ** 31, 2 ** 31 - 1) for _ in range(n)]
    floats = [_f32(rnd.uniform(-1e6, 1e6) * 10 ** rnd.randint(-30, 30)) for _ in range(n)]
    texts_i = [rnd.choice(("{}", " {}", "+{}" if v >= 0 else "{}", "{}\t")).format(v)
               for v in ints]
    texts_f = [repr(v) for v in floats]

    def nest(flat):
        if not shape:
            return flat[0]
        if len(shape) == 1:
            return flat
        return [flat[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]

    if not shape:  # one string
        ints, floats, texts_i, texts_f = ints[:1], floats[:1], texts_i[:1], texts_f[:1]
    if shape and shape[0] == 0:
        shape = (0,)  # an empty Python list cannot carry the inner dimensions
    got_i = tf.string_to_number(nest(texts_i), out_type=wt.int32)
    assert got_i.dtype is wt.int32 and got_i.shape == shape
    assert vals(wt.reshape(got_i, (-1,))) == ints
    got_f = tf.string_to_number(nest(texts_f))
    assert got_f.dtype is wt.float32 and got_f.shape == shape
    assert vals(wt.reshape(got_f, (-1,))) == floats
    got_d = tf.string_to_number(nest(texts_f), wt.float64)
    assert vals(wt.reshape(got_d, (-1,))) == [float(t) for t in texts_f]


def test_string_to_number_details():
    assert vals(tf.string_to_number(["1e39", "-1e39", "NaN", "-inf", " .5", "3."])) [:2] == \
        [math.inf, -math.inf]  # float overflow rounds to inf
    out = vals(tf.string_to_number(["NaN", "-inf", " .5", "3.", "-0"]))
    assert math.isnan(out[0]) and out[1:4] == [-math.inf, 0.5, 3.0]
    assert math.copysign(1.0, out[4]) == -1.0
    assert vals(tf.string_to_number([b"12", b"-3"], wt.int64)) == [12, -3]
    assert vals(tf.string_to_number("99999999999", wt.int64)) == 99999999999
    # One rounding from the decimal text: a value a hair above the midpoint between two float32
    # neighbours must round up, although the nearest double is the midpoint itself.
    low = Fraction(_f32(1.0 + 2 ** -23 * 2))  # even mantissa, so a plain tie rounds down to it
    mid = low + Fraction(2 ** -24)
    with localcontext() as ctx:
        ctx.prec = 80
        text = str(Decimal(mid.numerator) / Decimal(mid.denominator) + Decimal("1e-40"))
    assert float(text) == float(mid)  # the double is exactly the midpoint
    assert vals(tf.string_to_number(text)) == _f32(float(low) + 2 ** -23)
    np = pytest.importorskip("numpy")
    assert vals(tf.string_to_number(np.array(["1", "2"]), wt.int32)) == [1, 2]


@pytest.mark.parametrize("text,out_type,words", [
    ("abc", None, ["could not convert", "'abc'"]),
    ("1.5", wt.int32, ["could not convert", "int32"]),
    ("2147483648", wt.int32, ["out of range", "int32"]),
    ("1_000", wt.int32, ["could not convert"]),
    ("0x10", None, ["could not convert"]),
    ("", None, ["could not convert"]),
])
def test_string_to_number_errors(text, out_type, words):
    with raises(InvalidArgumentError, *words):
        tf.string_to_number(["1", text], out_type)


def test_string_to_number_argument_errors():
    with raises(TypeError, "out_type", "float16"):
        tf.string_to_number("1", wt.float16)
    with raises(TypeError, "string dtype"):
        tf.string_to_number(wt.asarray([1]))
    with raises(TypeError, "string_tensor", "5"):
        tf.string_to_number(["1", 5])
    with raises(InvalidArgumentError, "ragged"):
        tf.string_to_number([["1"], ["2", "3"]])


# == errors ========================================================================================

def test_casting_errors():
    x = wt.asarray([1, 2, 3], dtype=wt.int16)
    with raises(TypeError, "dtype", "not a data type"):
        tf.cast(x, "nope")
    with raises(InvalidArgumentError, "bitcast", "last dimension must be 2"):
        tf.bitcast(x, wt.int32)
    with raises(InvalidArgumentError, "last dimension"):
        tf.bitcast(wt.asarray(1, dtype=wt.int8), wt.int16)
    with raises(TypeError, "bool"):
        tf.bitcast(x, wt.bool)
    with raises(TypeError, "string dtype"):
        tf.cast("12", wt.int32)


def test_shape_errors():
    x = wt.zeros((2, 3))
    with raises(TypeError, "out_type", "int32 or int64"):
        tf.shape(x, out_type=wt.float32)
    with raises(ValueError, "at least 1"):
        tf.shape_n([])
    with raises(InvalidArgumentError, "reshape", "6 values", "[4]"):
        tf.reshape(x, [4])
    with raises(InvalidArgumentError, "more than one -1"):
        tf.reshape(x, [-1, -1])
    with raises(InvalidArgumentError, "cannot infer"):
        tf.reshape(x, [4, -1])
    with raises(InvalidArgumentError, "negative size"):
        tf.reshape(x, [-2, -3])
    with raises(InvalidArgumentError, "1-d"):
        tf.reshape(x, 6)
    with raises(TypeError, "shape", "integers"):
        tf.reshape(x, [2.0, 3])
    with raises(InvalidArgumentError, "squeeze dim[1]", "got 3"):
        tf.squeeze(wt.zeros((1, 3)), [1])
    with raises(InvalidArgumentError, "dim index 5"):
        tf.squeeze(x, 5)
    with raises(ValueError, "both", "squeeze_dims"):
        tf.squeeze(x, axis=[0], squeeze_dims=[0])
    with raises(ValueError, "both", "dim"):
        tf.expand_dims(x, axis=0, dim=0)
    with raises(ValueError, "axis is required"):
        tf.expand_dims(x)
    with raises(InvalidArgumentError, "axis 3", "[-3, 2]"):
        tf.expand_dims(x, 3)
    with raises(InvalidArgumentError, "axis -4"):
        tf.expand_dims(x, -4)
    assert tf.expand_dims(x, dim=-3).shape == (1, 2, 3)  # -1 - rank is allowed
    with raises(ValueError, "indexing"):
        tf.meshgrid([1], [2], indexing="xx")
    with raises(TypeError, "keyword", "sparse"):
        tf.meshgrid([1], sparse=True)
    with raises(TypeError, "shape_x", "int32 or int64"):
        tf.broadcast_dynamic_shape(wt.asarray([1.0]), [1])


def test_slicing_errors():
    x = wt.zeros((3, 4))
    with raises(InvalidArgumentError, "begin", "one entry per dimension"):
        tf.slice(x, [0], [1, 1])
    with raises(InvalidArgumentError, "dimension 1", "begin=3", "size=2"):
        tf.slice(x, [0, 3], [1, 2])
    with raises(InvalidArgumentError, "dimension 0"):
        tf.slice(x, [-1, 0], [1, 1])
    with raises(InvalidArgumentError, "same length"):
        tf.strided_slice(x, [0, 0], [1], [1, 1])
    with raises(InvalidArgumentError, "strides[1]", "non-zero"):
        tf.strided_slice(x, [0, 0], [1, 1], [1, 0])
    with raises(InvalidArgumentError, "ellipsis_mask", "one"):
        tf.strided_slice(x, [0, 0], [1, 1], ellipsis_mask=3)
    with raises(InvalidArgumentError, "slice index 3", "dimension 0", "out of bounds"):
        tf.strided_slice(x, [3], [4], shrink_axis_mask=1)
    with raises(InvalidArgumentError, "rank 2"):
        tf.strided_slice(x, [0, 0, 0], [1, 1, 1])
    with raises(InvalidArgumentError, "begin_mask", "non-negative"):
        tf.strided_slice(x, [0], [1], begin_mask=-1)
    with raises(InvalidArgumentError, "evenly divide", "4"):
        tf.split(x, 3, axis=1)
    with raises(InvalidArgumentError, "add up", "4"):
        tf.split(x, [1, 2], axis=1)
    with raises(InvalidArgumentError, "at most one -1"):
        tf.split(x, [-1, -1], axis=1)
    with raises(InvalidArgumentError, "axis=2", "rank 2"):
        tf.split(x, 1, axis=2)
    with raises(ValueError, "num=3"):
        tf.split(x, [2, 2], axis=1, num=3)
    with raises(InvalidArgumentError, "multiples", "one entry per dimension"):
        tf.tile(x, [2])
    with raises(InvalidArgumentError, "multiples must be >= 0"):
        tf.tile(x, [1, -1])


def test_pad_errors():
    x = wt.zeros((2, 3))
    with raises(ValueError, "padding mode", "'wrap'"):
        tf.pad(x, [[0, 0], [0, 0]], "wrap")
    with raises(InvalidArgumentError, "paddings", "[2, 2]"):
        tf.pad(x, [[0, 0]])
    with raises(InvalidArgumentError, "shape [2, 2]"):
        tf.pad(x, wt.zeros((2, 3), dtype=wt.int32))
    with raises(InvalidArgumentError, "non-negative"):
        tf.pad(x, [[0, -1], [0, 0]])
    with raises(InvalidArgumentError, "reflect", "at most 1"):
        tf.pad(x, [[2, 0], [0, 0]], "REFLECT")
    with raises(InvalidArgumentError, "symmetric", "at most 3"):
        tf.pad(x, [[0, 0], [0, 4]], "SYMMETRIC")
    assert vals(tf.pad(wt.asarray([1]), [[1, 1]], constant_values=7)) == [7, 1, 7]


def test_joining_errors():
    a, b = wt.zeros((2, 3)), wt.zeros((2, 4))
    with raises(InvalidArgumentError, "value 1", "(2, 4)", "axis 0"):
        tf.concat(0, [a, b])
    with raises(InvalidArgumentError, "ranks differ"):
        tf.concat_v2([a, wt.zeros((3,))], 0)
    with raises(InvalidArgumentError, "scalar"):
        tf.concat_v2([wt.asarray(1), wt.asarray(2)], 0)
    with raises(InvalidArgumentError, "axis=2", "rank 2"):
        tf.concat_v2([a, a], 2)
    with raises(TypeError, "concat(concat_dim, values)"):
        tf.concat([a, a])
    with raises(ValueError, "axis=3", "[-3, 3)"):
        tf.stack([a, a], axis=3)
    with raises(InvalidArgumentError, "value 1", "(2, 4)"):
        tf.stack([a, b])
    with raises(TypeError, "list of tensors"):
        tf.stack(a)
    with raises(ValueError, "0-d"):
        tf.unstack(wt.asarray(1))
    with raises(ValueError, "axis=2", "[-2, 2)"):
        tf.unpack(a, axis=2)
    with raises(InvalidArgumentError, "num=3", "length 2"):
        tf.unstack(a, num=3)
    with raises(InvalidArgumentError, "more than once"):
        tf.reverse(a, [1, -1])
    with raises(InvalidArgumentError, "axis=2"):
        tf.reverse_v2(a, [2])
    with raises(TypeError, "booleans"):
        tf.reverse(a, [True, False])
    with raises(InvalidArgumentError, "perm", "permutation"):
        tf.transpose(a, [0, 0])
    with raises(InvalidArgumentError, "perm", "one entry per dimension"):
        tf.transpose(a, [0])
    with raises(InvalidArgumentError, "output_shape", ">= 0"):
        tf.empty([-1], wt.float32)
    assert vals(tf.stack([1, 2])) == [1, 2]  # Python scalars stack into a vector


def test_alias_inplace_errors():
    value = wt.zeros((3, 2))
    with raises(InvalidArgumentError, "loc 3", "0 <= loc < 3"):
        tf.alias_inplace_update(value, [3], [[1, 1]])
    with raises(InvalidArgumentError, "shape (2,)"):
        tf.alias_inplace_add(value, 0, [1, 1, 1])
    with raises(InvalidArgumentError, "update must have shape (1, 2)"):
        tf.alias_inplace_subtract(value, [0], [1, 1])
    with raises(InvalidArgumentError, "as many elements"):
        tf.alias_inplace_update(value, None, [1])
    with raises(TypeError, "value must be a tensor"):
        tf.alias_inplace_update([[1]], None, [[1]])
    with raises(TypeError, "complex", "float32"):
        tf.alias_inplace_update(value, 0, wt.asarray([1j, 1j]))
    with raises(TypeError, "bool"):
        tf.alias_inplace_add(wt.zeros((2,), dtype=wt.bool), 0, True)
    with raises(ValueError, "broadcast view"):
        tf.alias_inplace_update(wt.broadcast_to(wt.zeros((1, 2)), (3, 2)), 0, [1, 1])
    assert vals(value) == [[0, 0]] * 3  # nothing was written by the failed calls


# == constant, Variable, numpy behaviour ===========================================================

def test_constant_conversions(dev):
    np = _np()
    assert tf.constant(np.arange(3, dtype=np.int16)).dtype is wt.int16
    assert not tf.constant(np.float32(2)).weak
    t = wt.asarray([1, 2], dtype=wt.int8, device=dev)
    assert tf.constant(t) is t
    conv = tf.constant(t, dtype=wt.float64)
    assert conv.dtype is wt.float64 and conv.device is dev and vals(conv) == [1.0, 2.0]
    assert tf.constant(2.0, wt.int32).dtype is wt.int32
    assert vals(tf.constant([1, 2, 3, 4], shape=[2, 2])) == [[1, 2], [3, 4]]
    filled = tf.constant(7, wt.int64, shape=(2, 3))
    assert vals(filled) == [[7, 7, 7]] * 2 and filled.dtype is wt.int64
    assert vals(tf.constant([[1.5]], shape=[2])) == [1.5, 1.5]
    v = tf.Variable([1, 2], device=dev)
    assert vals(tf.constant(v)) == [1, 2]


@pytest.mark.parametrize("value,dtype,words", [
    (300, wt.int8, ["300", "int8", "range"]),
    (-1, wt.uint8, ["-1", "uint8"]),
    (1.5, wt.int32, ["1.5", "whole number"]),
    ([1, 2.5], wt.int64, ["2.5"]),
    (1, wt.bool, ["only true/false"]),
    (1j, wt.float32, ["complex"]),
    (float("nan"), wt.int32, ["nan"]),
])
def test_constant_refuses_values_the_dtype_cannot_hold(value, dtype, words):
    with raises(TypeError, *words):
        tf.constant(value, dtype)


def test_constant_errors():
    with raises(TypeError, "3 elements", "shape [2, 2]"):
        tf.constant([1, 2, 3], shape=[2, 2])
    with raises(TypeError, "string dtype"):
        tf.constant("hello")
    with raises(TypeError, "string dtype"):
        tf.constant(["a"], wt.int32)


def test_variable_reads_like_a_tensor(dev):
    np = _np()
    v = tf.Variable([1.0, 2.0, 3.0], name="w", device=dev)
    assert v.dtype is wt.float32 and v.shape == (3,) and v.device is dev and v.name == "w"
    assert not v.value().weak and v.trainable
    assert vals(v + 1) == [2.0, 3.0, 4.0] and vals(1 - v) == [0.0, -1.0, -2.0]
    assert vals(v * v) == [1.0, 4.0, 9.0] and vals(-v) == [-1.0, -2.0, -3.0]
    assert vals(wt.asarray([1.0, 1.0, 1.0], device=dev) + v) == [2.0, 3.0, 4.0]
    assert vals(v == 2.0) == [False, True, False] and vals(v > 1.5) == [False, True, True]
    assert vals(v[1:]) == [2.0, 3.0] and len(v) == 3 and [float(e) for e in v] == [1, 2, 3]
    assert np.asarray(v).tolist() == [1.0, 2.0, 3.0] and v.numpy().tolist() == [1.0, 2.0, 3.0]
    assert (np.ones(3, dtype=np.float32) + v).__class__ is wt.Tensor
    assert vals(v.reshape(3, 1)) == [[1.0], [2.0], [3.0]] and vals(v.sum()) == 6.0
    assert vals(tf.reshape(v, [1, 3])) == [[1.0, 2.0, 3.0]]
    assert "'w'" in repr(v) and "float32" in repr(v)
    with raises(TypeError, "unhashable"):
        hash(v)
    with raises(TypeError, "item assignment", "assign"):
        v[0] = 5.0
    w = v
    w += 1  # rebinds to a tensor, as in TensorFlow; the variable is unchanged
    assert w.__class__ is wt.Tensor and vals(v.value()) == [1.0, 2.0, 3.0]


def test_variable_updates(dev):
    v = tf.Variable([1, 2], device=dev)
    assert v.dtype is wt.int32
    before = v.value()
    snapshot = v.read_value()
    assert v.assign([5, 6]) is v and vals(v.value()) == [5, 6]
    assert vals(before) == [1, 2] and vals(snapshot) == [1, 2]  # earlier reads never change
    v.assign_add(wt.asarray([1, 1], dtype=wt.int16, device=dev))
    assert vals(v.value()) == [6, 7] and v.dtype is wt.int32 and v.device is dev
    assert v.assign_sub([6, 6], read_value=False) is None and vals(v.value()) == [0, 1]
    v.assign_add(tf.Variable([2, 2]))
    assert vals(v.value()) == [2, 3]
    source = wt.asarray([9, 9], dtype=wt.int32, device=dev)
    v.assign(source)
    source[0] = 0  # the variable owns a copy
    assert vals(v.value()) == [9, 9]
    f = tf.Variable(0.5, dtype=wt.float64)
    f.assign_add(1)
    assert vals(f.value()) == 1.5 and f.dtype is wt.float64
    lazy = tf.Variable(lambda: [3, 4], dtype=wt.int8)
    assert lazy.dtype is wt.int8 and vals(lazy.value()) == [3, 4]
    loose = tf.Variable([1, 2], shape=(None,))
    loose.assign([1, 2, 3])
    assert loose.shape == (3,)


def test_variable_update_errors():
    v = tf.Variable([1, 2], dtype=wt.int32)
    with raises(TypeError, "immutable", "float32", "tf.cast"):
        v.assign([1.5, 2.5])
    with raises(TypeError, "immutable", "int64"):
        v.assign_add(wt.asarray([1, 1], dtype=wt.int64))
    with raises(TypeError, "2199023255552", "int32"):
        v.assign([2 ** 41, 1])  # never wraps silently
    with raises(OverflowError, "int32"):
        v.assign_add(2 ** 41)
    with raises(ValueError, "shape (3,)", "shapes must match"):
        v.assign([1, 2, 3])
    with raises(InvalidArgumentError, "shape (2,)", "shape ()"):
        v.assign_add(1)
    with raises(ValueError, "initial_value"):
        tf.Variable()
    with raises(ValueError, "shape=(3,)"):
        tf.Variable([1, 2], shape=(3,))
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
    small = tf.Variable(1, dtype=wt.int8)
    with raises(TypeError, "int8", "int32"):
        small.assign_add(tf.constant(1, wt.int32))
    small.assign_add(1)  # a weak Python int defers to the variable's dtype
    assert vals(small.value()) == 2
    assert vals(v.value()) == [1, 2]  # failed updates changed nothing


@pytest.mark.parametrize("mode,expected,float_dtype", [
    ("all", "all", wt.float32), ("SAFE", "safe", wt.float32),
    ("legacy", "numpy", wt.float64), ("off", "strict", wt.float32),
])
def test_enable_numpy_behavior_modes(mode, expected, float_dtype):
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    assert wt.get_promotion_mode() == expected
    assert wt.default_float_dtype() is float_dtype


def test_enable_numpy_behavior_prefer_float32_and_errors():
    tf.experimental_enable_numpy_behavior(prefer_float32=True)
    assert wt.get_promotion_mode() == "numpy" and wt.default_float_dtype() is wt.float32
    with raises(ValueError, "dtype_conversion_mode", "'fast'"):
        tf.experimental_enable_numpy_behavior(dtype_conversion_mode="fast")
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode="off")
    with raises(TypeError, "strict"):
        tf.constant(1, wt.int8) + tf.constant(1, wt.int16)


def test_name_arguments_are_accepted():
    x = wt.asarray([[1, 2]])
    assert vals(tf.shape(x, name="s")) == [1, 2]
    assert vals(tf.transpose(x, name="t")) == [[1], [2]]
    assert vals(tf.split(x, 2, axis=1, name="p")[1]) == [[2]]
    assert vals(tf.cast(x, wt.float32, name="c")) == [[1.0, 2.0]]
    assert vals(tf.concat(values=[x, x], axis=0, name="c")) == [[1, 2], [1, 2]]


# == documentation ================================================================================

@pytest.mark.skipif(not (DOCS / "tf.md").exists(), reason="docs/ is not part of this tree")
def test_docs_list_every_tf_name():
    text = (DOCS / "tf.md").read_text(encoding="utf-8")
    missing = [n for n in tf.__all__ if f"`tf.{n}(" not in text and f"`tf.{n}`" not in text]
    assert not missing, f"docs/tf.md does not describe: {missing}"
    extra = DOCS / "_tf_spatial_quant.md"
    if extra.exists():
        assert extra.read_text(encoding="utf-8").strip() in text, \
            "docs/tf.md must end with docs/_tf_spatial_quant.md, copied verbatim"
