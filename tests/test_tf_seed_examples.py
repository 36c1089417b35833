"""Every worked example of the two TensorFlow pages wt.tf imitates, one test each, on every
device, written as a TensorFlow 2 user writes them with ``import webtensor.tf as tf``.

* Seed 000, the TF-NumPy type promotion guide: each cell's code unchanged (only the import
  differs); the expected values are the outputs the page prints, which come from running
  TensorFlow.  Where a cell's comment disagrees with its printed output (``tnp.array(1.0)``),
  the printed output is TensorFlow's behaviour and is what is checked.
* Seed 001, the "Tensor Transformations" guide (TensorFlow 1): its examples are pseudo-code
  (``# 't' is [...]`` then ``shape(t) ==> [...]``); each is written as the TensorFlow 2 call
  with ``tf.constant`` inputs and checked against the page's ``==>`` value.  String examples
  (``gather_nd``) use numbers for the letters (webtensor has no string tensors), and TF 1's
  ``tf.Session`` is replaced by eager execution.  Where the page is wrong (see docs/tf.md,
  "Errata"), TensorFlow's real result is checked and the comment says so.  These expected
  values were checked once against TensorFlow 2.21.

Every example runs with the device under test as the default device, so ``tf.constant`` and
friends place their tensors there.
"""

from __future__ import annotations

import pytest

import webtensor as wt
import webtensor.tf as tf
import webtensor.tf.experimental.numpy as tnp
from _tf_guide import B1, B2, B3, B4, B4_PADDED, NO_PAD, X1, X2, X3, X4

np = pytest.importorskip("numpy")



@pytest.fixture(name="on")
def on_device(dev):
    """The device under test as the default device for one example."""
    with wt.set_default_device(dev):
        yield dev


def check(t, value, dtype=None, *, weak=None, device=None):
    """``t`` holds ``value`` (exactly), with ``dtype``/``weak`` when given."""
    if dtype is not None:
        assert t.dtype == dtype, f"dtype {t.dtype} != {dtype}"
    if weak is not None:
        assert t.weak is weak, f"weak={t.weak}, expected {weak}"
    if device is not None:
        assert t.device is device
    assert t.tolist() == value


# == seed 000: TF-NumPy type promotion ==========================================================

def test_000_setup(on, capsys):
    print("Using TensorFlow version %s" % tf.__version__)  # noqa: UP031 - the page verbatim
    assert capsys.readouterr().out.startswith("Using TensorFlow version 2.")


def test_000_enable_all_mode(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert wt.get_promotion_mode() == "all"


def test_000_precision_loss_all(on):
    # i32 + f32 returns a f32 result in ALL mode.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    a = tf.constant(10, dtype = tf.int32)
    b = tf.constant(5.0, dtype = tf.float32)
    check(a + b, 15.0, tf.float32, weak=False, device=on)


def test_000_precision_loss_safe(on):
    # This promotion is not allowed in SAFE mode.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
    a = tf.constant(10, dtype = tf.int32)
    b = tf.constant(5.0, dtype = tf.float32)
    try:
        a + b
    except TypeError as e:
        message = f'{type(e)}: {e}'  # TypeError: explicitly specify the dtype or switch to ALL
    else:
        pytest.fail("SAFE mode allowed i32 + f32")
    assert "int32" in message and "float32" in message and "'safe'" in message


def test_000_bit_widening_all(on):
    # i8 + u32 returns an i64 result in ALL mode.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    a = tf.constant(10, dtype = tf.int8)
    b = tf.constant(5, dtype = tf.uint32)
    check(a + b, 15, tf.int64, weak=False)


def test_000_bit_widening_safe(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="safe")
    a = tf.constant(10, dtype = tf.int8)
    b = tf.constant(5, dtype = tf.uint32)
    with pytest.raises(TypeError, match="int8.*uint32|uint32.*int8"):
        a + b


def test_000_lattice_i64_plus_f16(on):
    # The first input is promoted to f16 in ALL mode.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    out = tf.constant(1, tf.int64) + tf.constant(3.2, tf.float16)
    check(out, 4.19921875, tf.float16, weak=False)  # printed: numpy=4.19921875


def test_000_weak_defers(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    out = tf.constant(1.2) + tf.constant(3.1, tf.float16)
    check(out, 4.30078125, tf.float16, weak=False)


def test_000_constant_int_is_weak(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(tf.constant(5), 5, tf.int32, weak=True, device=on)


def test_000_constant_list_is_weak(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(tf.constant([5.0, 10.0, 3]), [5.0, 10.0, 3.0], tf.float32, weak=True)


def test_000_constant_with_dtype_is_strong(on):
    # A normal Tensor is created when dtype arg is specified.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(tf.constant(5, tf.int32), 5, tf.int32, weak=False)


def test_000_weak_tensor_api(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(tf.math.abs([100.0, 4.0]), [100.0, 4.0], tf.float32, weak=True, device=on)


def _old_setup():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
    a = np.array(1, dtype=np.int8)
    b = tf.constant(1)
    c = np.array(1, dtype=np.float16)
    return a, b, c


def test_000_old_promotion_a_b_raises(on):
    a, b, c = _old_setup()
    # (a + b) + c throws an InvalidArgumentError.
    try:
        tf.add(tf.add(a, b), c)
    except tf.errors.InvalidArgumentError as e:
        message = f'{type(e)}: {e}'  # InvalidArgumentError
    else:
        pytest.fail("tf.add(int8, int32) did not raise")
    assert "input #1(zero-based)" in message and "int8" in message and "int32" in message


def test_000_old_promotion_b_a(on):
    a, b, c = _old_setup()
    # (b + a) + c returns an i32 result.
    check(tf.add(tf.add(b, a), c), 3, tf.int32, weak=False, device=on)


def _new_setup():
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    a = np.array(1, dtype=np.int8)
    b = tf.constant(1)
    c = np.array(1, dtype=np.float16)
    return a, b, c


def test_000_new_promotion_a_b(on):
    a, b, c = _new_setup()
    # (a + b) + c returns a f16 result.
    check(tf.add(tf.add(a, b), c), 3.0, tf.float16, weak=False, device=on)


def test_000_new_promotion_b_a(on):
    a, b, c = _new_setup()
    # (b + a) + c also returns a f16 result.
    check(tf.add(tf.add(b, a), c), 3.0, tf.float16, weak=False)


def test_000_old_bit_widening(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="legacy")
    out = np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)
    check(out, 54.19921875, tf.float64)


def test_000_new_bit_widening(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    out = np.array(3.2, np.float16) + tf.constant(1, tf.int8) + tf.constant(50)
    check(out, 54.1875, tf.float16)  # printed: numpy=54.1875 (the comment's 54.2 is rounded)


def test_000_dunder_neg_keeps_weak(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(-tf.constant(5), -5, tf.int32, weak=True)


def test_000_dunder_sub(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(tf.constant(5, tf.int16) - tf.constant(1, tf.float32), 4.0, tf.float32, weak=False)


def test_000_variable_assign_add(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    a = tf.Variable(10, tf.int32)
    out = a.assign_add(tf.constant(5, tf.int16))  # <tf.Variable shape=() dtype=int32, numpy=15>
    assert out is a and a.dtype == tf.int32 and a.shape == () and a.device is on
    check(a.value(), 15, tf.int32)


def test_000_constant_converts_tensor(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    a = tf.constant(10, tf.int16)
    check(tf.constant(a, tf.float32), 10.0, tf.float32, weak=False)


def test_000_tnp_array_int(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(tnp.array(1), 1, tf.int32, weak=True, device=on)


def test_000_tnp_array_float(on):
    # The page's comment says int32; its printed output (TensorFlow's) is a weak float32.
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    check(tnp.array(1.0), 1.0, tf.float32, weak=True)


# == seed 001: Tensor Transformations ============================================================

T3 = [[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]]]
INPUT = [[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]]
T1 = [[1, 2, 3], [4, 5, 6]]
T2 = [[7, 8, 9], [10, 11, 12]]
R4 = [[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
       [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]]
R4_DIM3 = [[[[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]],
            [[15, 14, 13, 12], [19, 18, 17, 16], [23, 22, 21, 20]]]]
R4_DIM1 = [[[[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]],
            [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]]]
R4_DIM2 = [[[[8, 9, 10, 11], [4, 5, 6, 7], [0, 1, 2, 3]],
            [[20, 21, 22, 23], [16, 17, 18, 19], [12, 13, 14, 15]]]]
S4 = [[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[9], [10], [13], [14]],
       [[11], [12], [15], [16]]]]
D4 = [[[[1, 2, 3, 4], [5, 6, 7, 8]], [[9, 10, 11, 12], [13, 14, 15, 16]]]]
# gather_nd's letters as numbers: a, b, c, d -> 1..4; a0..d0 -> 10..13; a1..d1 -> 20..23
L2 = [[1, 2], [3, 4]]
L3 = [[[10, 11], [12, 13]], [[20, 21], [22, 23]]]


def _shape(t):
    return tf.shape(t).tolist()


def _reverse_sequence_input(dims):
    return tf.reshape(tf.range(int(np.prod(dims))), dims)


def _reverse_sequence_1():
    # batch_dim = 0, seq_dim = 1, input.dims = (4, 8, ...), seq_lengths = [7, 2, 3, 5]
    x = _reverse_sequence_input([4, 8, 2])
    out = tf.reverse_sequence(x, [7, 2, 3, 5], seq_axis=1, batch_axis=0)
    src, got = x.tolist(), out.tolist()
    # Erratum: the reversed part is positions length-1 .. 0 (the page writes 7:0:-1), and
    # what follows is copied through (the page's last line starts at 2 instead of 5).
    return [got[b][:n] == src[b][:n][::-1] and got[b][n:] == src[b][n:]
            for b, n in enumerate([7, 2, 3, 5])]


def _reverse_sequence_2():
    # batch_dim = 2, seq_dim = 0, input.dims = (8, ?, 4, ...)
    x = _reverse_sequence_input([8, 3, 4, 2])
    out = tf.reverse_sequence(x, [7, 2, 3, 5], seq_axis=0, batch_axis=2)
    src = np.asarray(x.tolist())
    got = np.asarray(out.tolist())
    return [bool((got[:n, :, b] == src[:n, :, b][::-1]).all()
                 and (got[n:, :, b] == src[n:, :, b]).all())
            for b, n in enumerate([7, 2, 3, 5])]


def _concat_as_pack():
    tensors = [tf.constant([1, 4]), tf.constant([2, 5]), tf.constant([3, 6])]
    axis = 1
    a = tf.concat(axis, [tf.expand_dims(t, axis) for t in tensors])
    b = tf.pack(tensors, axis=axis)
    return [a.tolist(), b.tolist()]


def _concat_v2_as_stack():
    tensors = [tf.constant([1, 4]), tf.constant([2, 5]), tf.constant([3, 6])]
    axis = 0
    a = tf.concat_v2([tf.expand_dims(t, axis) for t in tensors], axis)
    return [a.tolist(), tf.stack(tensors, axis=axis).tolist()]


def _alias(fn, loc, update, start=((1, 2), (3, 4))):
    value = tf.constant([list(r) for r in start])
    out = fn(value, loc, update)
    return [out is value, value.tolist()]


def _unique_with_counts():
    x = tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8])
    y, idx, count = tf.unique_with_counts(x)
    return [y.tolist(), idx.tolist(), count.tolist()]


def _setdiff1d():
    x = [1, 2, 3, 4, 5, 6]
    y = [1, 3, 5]
    out, idx = tf.setdiff1d(x, y)
    return [out.tolist(), idx.tolist()]


def _dynamic_partition(partitions, data):
    outputs = tf.dynamic_partition(tf.constant(data), partitions, 2)
    return [(o.shape, o.tolist()) for o in outputs]


def _dynamic_stitch():
    indices = [6, [4, 1], [[5, 2], [0, 3]]]
    data = [[61, 62], [[41, 42], [11, 12]], [[[51, 52], [21, 22]], [[1, 2], [31, 32]]]]
    return tf.dynamic_stitch([tf.constant(i) for i in indices],
                             [tf.constant(d) for d in data]).tolist()


def _scatter_nd_1():
    indices = tf.constant([[4], [3], [1], [7]])
    updates = tf.constant([9, 10, 11, 12])
    shape = tf.constant([8])
    scatter = tf.scatter_nd(indices, updates, shape)
    return scatter.tolist()


def _scatter_nd_2():
    indices = tf.constant([[0], [2]])
    updates = tf.constant([[[5, 5, 5, 5], [6, 6, 6, 6],
                            [7, 7, 7, 7], [8, 8, 8, 8]],
                           [[5, 5, 5, 5], [6, 6, 6, 6],
                            [7, 7, 7, 7], [8, 8, 8, 8]]])
    shape = tf.constant([4, 4, 4])
    scatter = tf.scatter_nd(indices, updates, shape)
    return scatter.tolist()


def _quantize_quint8():
    # range [0.0, 6.0] into quint8: "multiply each value of the input by 255/6"
    q, lo, hi = tf.quantize_v2(tf.constant([0.0, 0.5, 2.0, 4.4, 6.0]), 0.0, 6.0, tf.quint8)
    return [q.tolist(), lo.tolist(), hi.tolist(), q.dtype == tf.uint8]


def _quantize_qint8():
    # "If the output type was qint8 ... subtract each value by 128"
    q, _, _ = tf.quantize_v2(tf.constant([0.0, 0.5, 2.0, 4.4, 6.0]), 0.0, 6.0, tf.qint8)
    return [q.tolist(), q.dtype == tf.int8]


def _dequantize_quint8():
    # "Dequantize on quint8 will take each value, cast to float, and multiply by 6 / 255"
    out = tf.dequantize(tf.constant([0, 51, 255], dtype=tf.quint8), 0.0, 6.0)
    return [round(v, 5) for v in out.tolist()]


def _quantize_min_first():
    # MIN_FIRST: round(input * range_scale) - round(range_min * range_scale) + lowest
    q, _, _ = tf.quantize_v2(tf.constant([-1.0, 0.0, 2.5, 9.0]), -1.0, 2.0, tf.quint8,
                             mode="MIN_FIRST")
    return q.tolist()


def _meshgrid(indexing=None):
    x = [1, 2, 3]
    y = [4, 5, 6]
    X, Y = tf.meshgrid(x, y) if indexing is None else tf.meshgrid(x, y, indexing=indexing)
    return [X.tolist(), Y.tolist()]


def _split_sizes():
    value = tf.zeros([5, 30])
    split0, split1, split2 = tf.split(value, [4, 15, 11], 1)
    return [_shape(split0), _shape(split1), _shape(split2)]


def _split_count():
    value = tf.zeros([5, 30])
    split0, split1, split2 = tf.split(value, num_or_size_splits=3, axis=1)
    return _shape(split0)


def _unstack():
    value = tf.zeros([2, 3, 4, 5])
    return [[s.shape for s in tf.unstack(value, axis=a)] for a in (0, 1)]


SEED_001 = [
    # Casting
    ("cast", lambda: tf.cast(tf.constant([1.8, 2.2], dtype=tf.float32), tf.int32), [1, 2]),
    # Shapes and shaping
    ("shape", lambda: tf.shape(tf.constant(T3)), [2, 2, 3]),
    ("size", lambda: tf.size(tf.constant(T3)), 12),
    ("rank", lambda: tf.rank(tf.constant(T3)), 3),
    ("reshape_3x3", lambda: tf.reshape(tf.constant([1, 2, 3, 4, 5, 6, 7, 8, 9]), [3, 3]),
     [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
    ("reshape_2x4", lambda: tf.reshape(tf.constant([[[1, 1], [2, 2]], [[3, 3], [4, 4]]]),
                                       [2, 4]), [[1, 1, 2, 2], [3, 3, 4, 4]]),
    ("reshape_flatten", lambda: tf.reshape(tf.constant(INPUT), [-1]),
     [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6]),
    ("reshape_2_minus1", lambda: tf.reshape(tf.constant(INPUT), [2, -1]),
     [[1, 1, 1, 2, 2, 2, 3, 3, 3], [4, 4, 4, 5, 5, 5, 6, 6, 6]]),
    ("reshape_minus1_9", lambda: tf.reshape(tf.constant(INPUT), [-1, 9]),
     [[1, 1, 1, 2, 2, 2, 3, 3, 3], [4, 4, 4, 5, 5, 5, 6, 6, 6]]),
    ("reshape_2_minus1_3", lambda: tf.reshape(tf.constant(INPUT), [2, -1, 3]),
     [[[1, 1, 1], [2, 2, 2], [3, 3, 3]], [[4, 4, 4], [5, 5, 5], [6, 6, 6]]]),
    ("reshape_scalar", lambda: tf.reshape(tf.constant([7]), []), 7),
    ("squeeze", lambda: _shape(tf.squeeze(tf.zeros([1, 2, 1, 3, 1, 1]))), [2, 3]),
    ("squeeze_axes", lambda: _shape(tf.squeeze(tf.zeros([1, 2, 1, 3, 1, 1]), [2, 4])),
     [1, 2, 3, 1]),
    ("expand_dims_0", lambda: _shape(tf.expand_dims(tf.zeros([2]), 0)), [1, 2]),
    ("expand_dims_1", lambda: _shape(tf.expand_dims(tf.zeros([2]), 1)), [2, 1]),
    ("expand_dims_minus1", lambda: _shape(tf.expand_dims(tf.zeros([2]), -1)), [2, 1]),
    ("expand_dims_t2_0", lambda: _shape(tf.expand_dims(tf.zeros([2, 3, 5]), 0)), [1, 2, 3, 5]),
    ("expand_dims_t2_2", lambda: _shape(tf.expand_dims(tf.zeros([2, 3, 5]), 2)), [2, 3, 1, 5]),
    ("expand_dims_t2_3", lambda: _shape(tf.expand_dims(tf.zeros([2, 3, 5]), 3)), [2, 3, 5, 1]),
    # Erratum: the page's X and Y are the indexing='ij' grids; the default 'xy' swaps them.
    ("meshgrid_xy", _meshgrid, [[[1, 2, 3], [1, 2, 3], [1, 2, 3]],
                                [[4, 4, 4], [5, 5, 5], [6, 6, 6]]]),
    ("meshgrid_ij", lambda: _meshgrid("ij"), [[[1, 1, 1], [2, 2, 2], [3, 3, 3]],
                                              [[4, 5, 6], [4, 5, 6], [4, 5, 6]]]),
    # Slicing and joining
    ("slice_1", lambda: tf.slice(tf.constant(INPUT), [1, 0, 0], [1, 1, 3]), [[[3, 3, 3]]]),
    ("slice_2", lambda: tf.slice(tf.constant(INPUT), [1, 0, 0], [1, 2, 3]),
     [[[3, 3, 3], [4, 4, 4]]]),
    ("slice_3", lambda: tf.slice(tf.constant(INPUT), [1, 0, 0], [2, 1, 3]),
     [[[3, 3, 3]], [[5, 5, 5]]]),
    ("strided_slice_1", lambda: tf.strided_slice(tf.constant(INPUT), [1, 0, 0], [2, 1, 3],
                                                 [1, 1, 1]), [[[3, 3, 3]]]),
    ("strided_slice_2", lambda: tf.strided_slice(tf.constant(INPUT), [1, 0, 0], [2, 2, 3],
                                                 [1, 1, 1]), [[[3, 3, 3], [4, 4, 4]]]),
    # Erratum: end -1 counts from the back, so the middle dimension is empty in TensorFlow;
    # the page's [[[4, 4, 4], [3, 3, 3]]] is what begin [1, -1, 0], end [2, -3, 3] give.
    ("strided_slice_3", lambda: _shape(tf.strided_slice(tf.constant(INPUT), [1, 1, 0],
                                                        [2, -1, 3], [1, -1, 1])), [1, 0, 3]),
    ("strided_slice_3_intended", lambda: tf.strided_slice(tf.constant(INPUT), [1, -1, 0],
                                                          [2, -3, 3], [1, -1, 1]),
     [[[4, 4, 4], [3, 3, 3]]]),
    ("split_sizes", _split_sizes, [[5, 4], [5, 15], [5, 11]]),
    ("split_count", _split_count, [5, 10]),
    ("pad_constant", lambda: tf.pad(tf.constant(T1), [[1, 1], [2, 2]], "CONSTANT"),
     [[0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 2, 3, 0, 0], [0, 0, 4, 5, 6, 0, 0],
      [0, 0, 0, 0, 0, 0, 0]]),
    ("pad_reflect", lambda: tf.pad(tf.constant(T1), [[1, 1], [2, 2]], "REFLECT"),
     [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1], [6, 5, 4, 5, 6, 5, 4],
      [3, 2, 1, 2, 3, 2, 1]]),
    ("pad_symmetric", lambda: tf.pad(tf.constant(T1), [[1, 1], [2, 2]], "SYMMETRIC"),
     [[2, 1, 1, 2, 3, 3, 2], [2, 1, 1, 2, 3, 3, 2], [5, 4, 4, 5, 6, 6, 5],
      [5, 4, 4, 5, 6, 6, 5]]),
    ("concat_0", lambda: tf.concat(0, [T1, T2]),
     [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]),
    ("concat_1", lambda: tf.concat(1, [T1, T2]), [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]]),
    ("concat_shape_0", lambda: _shape(tf.concat(0, [tf.zeros([2, 3]), tf.zeros([2, 3])])),
     [4, 3]),
    ("concat_shape_1", lambda: _shape(tf.concat(1, [tf.zeros([2, 3]), tf.zeros([2, 3])])),
     [2, 6]),
    ("concat_expand_dims_is_pack", _concat_as_pack, [[[1, 2, 3], [4, 5, 6]]] * 2),
    ("concat_v2_0", lambda: tf.concat_v2([T1, T2], 0),
     [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]),
    ("concat_v2_1", lambda: tf.concat_v2([T1, T2], 1),
     [[1, 2, 3, 7, 8, 9], [4, 5, 6, 10, 11, 12]]),
    ("concat_v2_shape_0", lambda: _shape(tf.concat_v2([tf.zeros([2, 3]), tf.zeros([2, 3])],
                                                      0)), [4, 3]),
    ("concat_v2_shape_1", lambda: _shape(tf.concat_v2([tf.zeros([2, 3]), tf.zeros([2, 3])],
                                                      1)), [2, 6]),
    ("concat_v2_expand_dims_is_pack", _concat_v2_as_stack, [[[1, 4], [2, 5], [3, 6]]] * 2),
    ("stack", lambda: tf.stack([[1, 4], [2, 5], [3, 6]]), [[1, 4], [2, 5], [3, 6]]),
    ("stack_axis_1", lambda: tf.stack([[1, 4], [2, 5], [3, 6]], axis=1),
     [[1, 2, 3], [4, 5, 6]]),
    ("parallel_stack", lambda: tf.parallel_stack([[1, 4], [2, 5], [3, 6]]),
     [[1, 4], [2, 5], [3, 6]]),
    ("pack", lambda: tf.pack([[1, 4], [2, 5], [3, 6]]), [[1, 4], [2, 5], [3, 6]]),
    ("pack_axis_1", lambda: tf.pack([[1, 4], [2, 5], [3, 6]], axis=1), [[1, 2, 3], [4, 5, 6]]),
    ("unstack", _unstack, [[(3, 4, 5)] * 2, [(2, 4, 5)] * 3]),
    ("alias_inplace_update_row", lambda: _alias(tf.alias_inplace_update, 1, [7, 8]),
     [True, [[1, 2], [7, 8]]]),
    ("alias_inplace_add_rows", lambda: _alias(tf.alias_inplace_add, [0, 1], [[1, 1], [2, 2]]),
     [True, [[2, 3], [5, 6]]]),
    ("alias_inplace_subtract_all", lambda: _alias(tf.alias_inplace_subtract, None,
                                                  [[1, 1], [1, 1]]), [True, [[0, 1], [2, 3]]]),
    ("reverse_sequence_batch0_seq1", _reverse_sequence_1, [True] * 4),
    ("reverse_sequence_batch2_seq0", _reverse_sequence_2, [True] * 4),
    ("reverse_dim3", lambda: tf.reverse(tf.constant(R4), [3]), R4_DIM3),
    ("reverse_dim_minus1", lambda: tf.reverse(tf.constant(R4), -1), R4_DIM3),
    ("reverse_dim1", lambda: tf.reverse(tf.constant(R4), [1]), R4_DIM1),
    ("reverse_dim_minus3", lambda: tf.reverse(tf.constant(R4), [-3]), R4_DIM1),
    ("reverse_dim2", lambda: tf.reverse(tf.constant(R4), [2]), R4_DIM2),
    ("reverse_dim_minus2", lambda: tf.reverse(tf.constant(R4), [-2]), R4_DIM2),
    ("reverse_v2_dim3", lambda: tf.reverse_v2(tf.constant(R4), [3]), R4_DIM3),
    ("reverse_v2_dim1", lambda: tf.reverse_v2(tf.constant(R4), [1]), R4_DIM1),
    ("reverse_v2_dim2", lambda: tf.reverse_v2(tf.constant(R4), [2]), R4_DIM2),
    ("transpose", lambda: tf.transpose(tf.constant(T1)), [[1, 4], [2, 5], [3, 6]]),
    ("transpose_perm", lambda: tf.transpose(tf.constant(T1), perm=[1, 0]),
     [[1, 4], [2, 5], [3, 6]]),
    ("transpose_3d", lambda: tf.transpose(tf.constant([T1, T2]), perm=[0, 2, 1]),
     [[[1, 4], [2, 5], [3, 6]], [[7, 10], [8, 11], [9, 12]]]),
    ("space_to_batch_nd_1", lambda: tf.space_to_batch_nd(tf.constant(X1), [2, 2], NO_PAD), B1),
    ("space_to_batch_nd_2", lambda: tf.space_to_batch_nd(tf.constant(X2), [2, 2], NO_PAD), B2),
    ("space_to_batch_nd_3", lambda: tf.space_to_batch_nd(tf.constant(X3), [2, 2], NO_PAD), B3),
    ("space_to_batch_nd_4", lambda: tf.space_to_batch_nd(tf.constant(X4), [2, 2],
                                                         [[0, 0], [2, 0]]), B4_PADDED),
    ("space_to_batch_1", lambda: tf.space_to_batch(tf.constant(X1), NO_PAD, 2), B1),
    ("space_to_batch_2", lambda: tf.space_to_batch(tf.constant(X2), NO_PAD, 2), B2),
    ("space_to_batch_3", lambda: tf.space_to_batch(tf.constant(X3), NO_PAD, 2), B3),
    ("space_to_batch_4", lambda: tf.space_to_batch(tf.constant(X4), NO_PAD, 2), B4),
    ("batch_to_space_nd_1", lambda: tf.batch_to_space_nd(tf.constant(B1), [2, 2], NO_PAD), X1),
    ("batch_to_space_nd_2", lambda: tf.batch_to_space_nd(tf.constant(B2), [2, 2], NO_PAD), X2),
    # (the page's input for (3) has the same erratum as space_to_batch_nd (3))
    ("batch_to_space_nd_3", lambda: tf.batch_to_space_nd(tf.constant(B3), [2, 2], NO_PAD), X3),
    ("batch_to_space_nd_4", lambda: tf.batch_to_space_nd(tf.constant(B4_PADDED), [2, 2],
                                                         [[0, 0], [2, 0]]), X4),
    ("batch_to_space_1", lambda: tf.batch_to_space(tf.constant(B1), NO_PAD, 2), X1),
    ("batch_to_space_2", lambda: tf.batch_to_space(tf.constant(B2), NO_PAD, 2), X2),
    ("batch_to_space_3", lambda: tf.batch_to_space(tf.constant(B3), NO_PAD, 2), X3),
    # Erratum: the page prints a [4, 2, 2, 1] value for the [2, 2, 4, 1] output; it is X4.
    ("batch_to_space_4", lambda: tf.batch_to_space(tf.constant(B4), NO_PAD, 2), X4),
    ("space_to_depth_1", lambda: tf.space_to_depth(tf.constant(X1), 2), [[[[1, 2, 3, 4]]]]),
    ("space_to_depth_2", lambda: tf.space_to_depth(tf.constant(X2), 2),
     [[[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]]]),
    ("space_to_depth_3", lambda: tf.space_to_depth(tf.constant(S4), 2), D4),
    ("depth_to_space_1", lambda: tf.depth_to_space(tf.constant([[[[1, 2, 3, 4]]]]), 2), X1),
    ("depth_to_space_2", lambda: tf.depth_to_space(
        tf.constant([[[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]]]), 2), X2),
    # Erratum: the page prints this [1, 4, 4, 1] output without its batch brackets.
    ("depth_to_space_3", lambda: tf.depth_to_space(tf.constant(D4), 2), S4),
    ("gather_permutation", lambda: tf.gather(tf.constant(T1), [1, 0]), [T1[1], T1[0]]),
    ("gather_nd_elements", lambda: tf.gather_nd(L2, [[0, 0], [1, 1]]), [1, 4]),
    ("gather_nd_slices", lambda: tf.gather_nd(L2, [[1], [0]]), [[3, 4], [1, 2]]),
    ("gather_nd_3d_matrix", lambda: tf.gather_nd(L3, [[1]]), [[[20, 21], [22, 23]]]),
    ("gather_nd_3d_rows", lambda: tf.gather_nd(L3, [[0, 1], [1, 0]]), [[12, 13], [20, 21]]),
    ("gather_nd_3d_elements", lambda: tf.gather_nd(L3, [[0, 0, 1], [1, 0, 1]]), [11, 21]),
    ("gather_nd_batched_elements", lambda: tf.gather_nd(L2, [[[0, 0]], [[0, 1]]]),
     [[1], [2]]),
    ("gather_nd_batched_slices", lambda: tf.gather_nd(L2, [[[1]], [[0]]]),
     [[[3, 4]], [[1, 2]]]),
    ("gather_nd_batched_3d_matrix", lambda: tf.gather_nd(L3, [[[1]], [[0]]]),
     [[[[20, 21], [22, 23]]], [[[10, 11], [12, 13]]]]),
    ("gather_nd_batched_3d_rows", lambda: tf.gather_nd(L3, [[[0, 1], [1, 0]],
                                                            [[0, 0], [1, 1]]]),
     [[[12, 13], [20, 21]], [[10, 11], [22, 23]]]),
    ("gather_nd_batched_3d_elements", lambda: tf.gather_nd(L3, [[[0, 0, 1], [1, 0, 1]],
                                                                [[0, 1, 1], [1, 1, 0]]]),
     [[11, 21], [13, 22]]),
    ("unique_with_counts", _unique_with_counts,
     [[1, 2, 4, 7, 8], [0, 0, 1, 2, 2, 2, 3, 4, 4], [2, 1, 3, 1, 2]]),
    ("scatter_nd_elements", _scatter_nd_1, [0, 11, 0, 10, 9, 0, 0, 12]),
    ("scatter_nd_slices", _scatter_nd_2,
     [[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]], [[0] * 4] * 4,
      [[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]], [[0] * 4] * 4]),
    ("dynamic_partition_scalar", lambda: _dynamic_partition(1, [10, 20]),
     [((0, 2), []), ((1, 2), [[10, 20]])]),
    ("dynamic_partition_vector", lambda: _dynamic_partition([0, 0, 1, 1, 0],
                                                            [10, 20, 30, 40, 50]),
     [((3,), [10, 20, 50]), ((2,), [30, 40])]),
    # (the page's merged has max(indices) + 1 = 7 rows, which is right; its prose says
    # max(indices))
    ("dynamic_stitch", _dynamic_stitch,
     [[1, 2], [11, 12], [21, 22], [31, 32], [41, 42], [51, 52], [61, 62]]),
    ("boolean_mask_1d", lambda: tf.boolean_mask([0, 1, 2, 3],
                                                np.array([True, False, True, False])), [0, 2]),
    ("boolean_mask_2d", lambda: tf.boolean_mask([[1, 2], [3, 4], [5, 6]],
                                                np.array([True, False, True])),
     [[1, 2], [5, 6]]),
    ("one_hot_vector", lambda: tf.one_hot([0, 2, -1, 1], 3, on_value=5.0, off_value=0.0,
                                          axis=-1),
     [[5.0, 0.0, 0.0], [0.0, 0.0, 5.0], [0.0, 0.0, 0.0], [0.0, 5.0, 0.0]]),
    ("one_hot_matrix", lambda: tf.one_hot([[0, 2], [1, -1]], 3, on_value=1.0, off_value=0.0,
                                          axis=-1),
     [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]),
    ("one_hot_defaults", lambda: tf.one_hot([0, 1, 2], 3),
     [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    ("sequence_mask", lambda: tf.sequence_mask([1, 3, 2], 5),
     [[True, False, False, False, False], [True, True, True, False, False],
      [True, True, False, False, False]]),
    # 255/6 * [0, 0.5, 2, 4.4, 6] = [0, 21.25, 85, 187, 255]
    ("quantize_v2_quint8", _quantize_quint8, [[0, 21, 85, 187, 255], 0.0, 6.0, True]),
    ("quantize_v2_qint8", _quantize_qint8, [[-128, -107, -43, 59, 127], True]),
    ("dequantize_quint8", _dequantize_quint8, [0.0, 1.2, 6.0]),
    # range_scale = 256 / (3 * 256/255) = 85; [-85, 0, 212.5 -> 213, 765] + 85 clamped
    ("quantize_v2_min_first", _quantize_min_first, [0, 85, 255, 255]),
    ("setdiff1d", _setdiff1d, [[2, 4, 6], [1, 3, 5]]),
]


@pytest.mark.parametrize("run,expected", [pytest.param(r, e, id=n) for n, r, e in SEED_001])
def test_001(on, run, expected):
    out = run()
    if isinstance(out, wt.Tensor):
        assert out.device is on
        out = out.tolist()
    assert out == expected

