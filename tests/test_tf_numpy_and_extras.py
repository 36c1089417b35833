"""tf.experimental.numpy's dtype inference, and the Tensor Transformations features finished
later: gather's batch_dims, space_to_depth/depth_to_space with data_format="NCHW", quantize_v2's
round_mode, axis and ensure_minimum_range.  On every device.

Expected values marked "TensorFlow" are TensorFlow 2.21's results for the same calls (NCHW
through XLA, since TensorFlow's CPU kernels only take NHWC); the rest are NumPy references.
"""

from __future__ import annotations

import pytest

import webtensor as wt
import webtensor.tf as tf
import webtensor.tf.experimental.numpy as tnp
from webtensor.tf.errors import InvalidArgumentError, UnimplementedError

np = pytest.importorskip("numpy")



@pytest.fixture(name="on")
def on_device(dev):
    with wt.set_default_device(dev):
        yield dev


# == tf.experimental.numpy ======================================================================

# (value, dtype and weak flag in TensorFlow's ALL mode, in its legacy mode) - TensorFlow
TNP_CASES = [
    (1, (wt.int32, True), (wt.int64, False)),
    (1.0, (wt.float32, True), (wt.float64, False)),
    ([1, 2], (wt.int32, True), (wt.int64, False)),
    (1j, (wt.complex128, True), (wt.complex128, False)),
    (True, (wt.bool, False), (wt.bool, False)),
    ([1, 2.5], (wt.float32, True), (wt.float64, False)),
    (2 ** 40, (wt.int64, True), (wt.int64, False)),  # TensorFlow's ALL mode: OverflowError
]


@pytest.mark.parametrize("value,new,legacy", TNP_CASES)
@pytest.mark.parametrize("fn", [tnp.array, tnp.asarray, tnp.asanyarray])
def test_tnp_python_inference(on, fn, value, new, legacy):
    for mode, (dt, weak) in (("all", new), ("safe", new), ("legacy", legacy)):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
        t = fn(value)
        assert (t.dtype, t.weak) == (dt, weak), mode
        assert t.device is on and t.tolist() == value


def test_tnp_prefer_float32_and_typed_inputs(on):
    tnp.experimental_enable_numpy_behavior(prefer_float32=True)
    assert tnp.array(1.0).dtype is wt.float32 and tnp.array(1).dtype is wt.int64
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert tnp.array(np.int16(3)).dtype is wt.int16 and not tnp.array(np.int16(3)).weak
    t8 = tf.constant(3, tf.int8)
    assert tnp.array(t8).dtype is wt.int8
    assert tnp.array([1, 2], dtype=tf.float16).dtype is wt.float16
    assert tnp.array([1, 2], dtype=tnp.float16).dtype is wt.float16
    assert tnp.asarray(t8) is t8 and tnp.array(t8) is not t8  # array copies by default
    assert tnp.array(5, ndmin=2).shape == (1, 1) and tnp.ascontiguousarray(5).shape == (1,)
    assert tnp.copy(t8).tolist() == 3
    v = tf.Variable([1.0, 2.0])
    assert tnp.asarray(v).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="ndmin"):
        tnp.array(1, ndmin=-1)


def test_tnp_weak_values_promote_as_the_guide_says(on):
    tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    out = tnp.array(1) + tf.constant(2, tf.int8)
    assert out.dtype is wt.int8
    out = tnp.add(tnp.array([1.5]), tf.constant([1.0], tf.float16))
    assert out.dtype is wt.float16


def test_tnp_namespace():
    for name in tnp._SAME:
        assert getattr(tnp, name) is getattr(wt, name), name
    for name, target in tnp.ALIASES.items():
        assert getattr(tnp, name) is getattr(wt, target), name
    assert tnp.ndarray is wt.Tensor and tnp.pi == wt.pi
    assert tnp.experimental_enable_numpy_behavior is tf.experimental_enable_numpy_behavior
    import webtensor.tf.experimental as experimental

    assert tf.experimental.numpy is tnp and experimental.numpy is tnp


# == gather with batch_dims =====================================================================

P = np.arange(2 * 3 * 4).reshape(2, 3, 4)
GATHER_CASES = [  # (indices, kwargs, TensorFlow's result)
    ([[0, 2], [1, 1]], {"batch_dims": 1},
     [[[0, 1, 2, 3], [8, 9, 10, 11]], [[16, 17, 18, 19], [16, 17, 18, 19]]]),
    ([[0, 3], [1, 2]], {"axis": 2, "batch_dims": 1},
     [[[0, 3], [4, 7], [8, 11]], [[13, 14], [17, 18], [21, 22]]]),
    ([[0, 2], [1, 1]], {"batch_dims": -1},
     [[[0, 2], [4, 6], [8, 10]], [[13, 13], [17, 17], [21, 21]]]),
    ([[[0], [1], [2]], [[3], [2], [1]]], {"batch_dims": 2}, [[[0], [5], [10]],
                                                             [[15], [18], [21]]]),
]


def _gather_reference(params, indices, axis, batch_dims):
    """TensorFlow's definition, as a loop over the batch dimensions."""
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_gather_reference(p, i, axis - 1, batch_dims - 1)
                     for p, i in zip(params, indices)])


@pytest.mark.parametrize("indices,kwargs,expected", GATHER_CASES)
def test_gather_batch_dims_examples(on, indices, kwargs, expected):
    out = tf.gather(tf.constant(P), tf.constant(indices), **kwargs)
    assert out.tolist() == expected and out.device is on
    idx = np.asarray(indices)
    b = kwargs["batch_dims"] % idx.ndim
    axis = kwargs.get("axis", kwargs["batch_dims"]) % P.ndim
    assert _gather_reference(P, idx, axis, b).tolist() == expected


def test_gather_batch_dims_random(on):
    rng = np.random.default_rng(3)
    for _ in range(12):
        b = int(rng.integers(0, 3))
        params = rng.normal(size=tuple(int(s) for s in rng.integers(1, 4, size=b + 2)))
        params = params.astype(np.float32)
        axis = int(rng.integers(b, params.ndim))
        tail = tuple(int(s) for s in rng.integers(0, 3, size=int(rng.integers(0, 3))))
        idx = rng.integers(0, params.shape[axis], size=params.shape[:b] + tail)
        out = tf.gather(params, tf.constant(idx, dtype=tf.int64), axis=axis, batch_dims=b)
        ref = _gather_reference(params, idx, axis, b)
        assert out.shape == ref.shape and out.tolist() == ref.tolist()


def test_gather_batch_dims_errors(on):
    params = tf.constant(P)
    with pytest.raises(InvalidArgumentError, match=r"params.shape\[0\]: 2 should be equal to "
                                                   r"indices.shape\[0\]: 3"):
        tf.gather(params, [[0, 2], [1, 1], [0, 0]], batch_dims=1)
    with pytest.raises(InvalidArgumentError, match=r"batch_dims in the range \[-1, 1\].* 2"):
        tf.gather(params, [0, 1], batch_dims=2)
    with pytest.raises(InvalidArgumentError, match="batch_dims .1. must be less than or equal "
                                                   "to axis .0."):
        tf.gather(params, [[0, 1], [1, 0]], axis=0, batch_dims=1)
    with pytest.raises(InvalidArgumentError, match=r"not in \[0, 3\)"):
        tf.gather(params, [[0, 3], [1, 1]], batch_dims=1)
    with pytest.raises(TypeError, match="batch_dims"):
        tf.gather(params, [0], batch_dims=0.5)


# == space_to_depth / depth_to_space with NCHW ===================================================

def test_nchw_matches_tensorflow(on):
    x = tf.reshape(tf.range(32, dtype=tf.float32), [1, 2, 4, 4])
    assert tf.space_to_depth(x, 2, data_format="NCHW").tolist() == [[  # TensorFlow (XLA)
        [[0.0, 2.0], [8.0, 10.0]], [[16.0, 18.0], [24.0, 26.0]], [[1.0, 3.0], [9.0, 11.0]],
        [[17.0, 19.0], [25.0, 27.0]], [[4.0, 6.0], [12.0, 14.0]], [[20.0, 22.0], [28.0, 30.0]],
        [[5.0, 7.0], [13.0, 15.0]], [[21.0, 23.0], [29.0, 31.0]]]]
    y = tf.reshape(tf.range(32, dtype=tf.float32), [1, 8, 2, 2])
    assert tf.depth_to_space(y, 2, data_format="NCHW").tolist() == [[
        [[0.0, 8.0, 1.0, 9.0], [16.0, 24.0, 17.0, 25.0], [2.0, 10.0, 3.0, 11.0],
         [18.0, 26.0, 19.0, 27.0]],
        [[4.0, 12.0, 5.0, 13.0], [20.0, 28.0, 21.0, 29.0], [6.0, 14.0, 7.0, 15.0],
         [22.0, 30.0, 23.0, 31.0]]]]


@pytest.mark.parametrize("shape,bs", [((2, 3, 4, 6), 2), ((1, 2, 9, 3), 3), ((3, 1, 2, 2), 2)])
def test_nchw_is_nhwc_with_channels_first(on, shape, bs):
    x = tf.reshape(tf.range(int(np.prod(shape))), list(shape))
    nhwc = tf.transpose(x, [0, 2, 3, 1])
    s2d = tf.space_to_depth(x, bs, data_format="NCHW")
    assert s2d.tolist() == tf.transpose(tf.space_to_depth(nhwc, bs), [0, 3, 1, 2]).tolist()
    back = tf.depth_to_space(s2d, bs, data_format="NCHW")
    assert back.tolist() == x.tolist()


def test_data_format_errors(on):
    x = tf.zeros([1, 1, 4, 4])
    with pytest.raises(InvalidArgumentError, match="'NHCW' is not supported"):
        tf.space_to_depth(x, 2, data_format="NHCW")
    with pytest.raises(InvalidArgumentError, match="NCHW_VECT_C"):
        tf.depth_to_space(x, 2, data_format="NCHW_VECT_C")
    with pytest.raises(InvalidArgumentError, match="divisible"):
        tf.space_to_depth(tf.zeros([1, 4, 1, 4]), 2, data_format="NCHW")


# == quantize_v2: round_mode, axis, ensure_minimum_range ========================================

X = [-1.5, -0.5, 0.0, 0.25, 0.5, 1.5, 2.5, 3.0]
QUANTIZE_CASES = [  # (x, min, max, T, kwargs, TensorFlow's (output, min, max))
    (X, -2.0, 3.0, tf.qint8, {}, ([-103, -52, -26, -13, -1, 51, 102, 127], -2.0, 3.0)),
    (X, -2.0, 3.0, tf.qint8, {"mode": "SCALED"},
     ([-64, -21, 0, 11, 21, 64, 106, 127], -3.0236220359802246, 3.0)),
    (X, 0.0, 0.001, tf.quint8, {"ensure_minimum_range": 0.5},
     ([0, 0, 0, 128, 255, 255, 255, 255], 0.0, 0.5)),
    (X, 0.0, 0.0, tf.quint8, {"ensure_minimum_range": 0.0}, ([0] * 8, 0.0, 0.0)),
    (X, 0.0, 0.001, tf.quint8, {}, ([0, 0, 0, 255, 255, 255, 255, 255], 0.0,
                                     0.009999999776482582)),
    (X, -0.001, 0.001, tf.qint8, {"mode": "SCALED", "ensure_minimum_range": 0.5},
     ([-128, -127, 0, 64, 127, 127, 127, 127], -0.502929151058197, 0.49900001287460327)),
    (X, 1.0, 3.0, tf.quint8, {}, ([0, 0, 0, 21, 43, 128, 213, 255], 0.0, 3.0)),
    (X, -300.0, 333.0, tf.qint16, {"ensure_minimum_range": 0.01},
     ([-1864, -1761, -1709, -1683, -1657, -1553, -1450, -1398], -300.0, 333.0)),
    (X, -2.0, 3.0, tf.qint8, {"ensure_minimum_range": -1.0},
     ([-103, -52, -26, -13, -1, 51, 102, 127], -2.0, 3.0)),
]
HALVES = [0.5, 1.5, 2.5, 3.5, -2.5, -0.5, 126.5, -127.5, -128.0, 127.4]
QUANTIZE_CASES += [  # SCALED rounding, TensorFlow (narrow_range=True)
    (HALVES, -127.0, 127.0, tf.qint8, {"mode": "SCALED", "narrow_range": True},
     ([1, 2, 3, 4, -3, -1, 127, -127, -127, 127], -127.0, 127.0)),
    (HALVES, -127.0, 127.0, tf.qint8, {"mode": "SCALED", "narrow_range": True,
                                       "round_mode": "HALF_TO_EVEN"},
     ([0, 2, 2, 4, -2, 0, 126, -127, -127, 127], -127.0, 127.0)),
    (HALVES, -127.0, 127.0, tf.quint8, {"mode": "SCALED", "narrow_range": True},
     ([1, 3, 5, 7, 1, 1, 254, 1, 1, 255], 0.49803921580314636, 127.0)),
    (HALVES, -127.0, 127.0, tf.qint8, {"mode": "SCALED"},
     ([1, 2, 3, 4, -3, -1, 127, -128, -128, 127], -128.0, 127.0)),
]


@pytest.mark.parametrize("x,lo,hi,T,kwargs,expected", QUANTIZE_CASES)
def test_quantize_v2_options(on, x, lo, hi, T, kwargs, expected):
    q, out_lo, out_hi = tf.quantize_v2(tf.constant(x), lo, hi, T, **kwargs)
    assert (q.tolist(), out_lo.tolist(), out_hi.tolist()) == expected
    assert q.dtype is T.storage and q.device is on and out_lo.dtype is wt.float32


def test_half_to_even_without_narrow_range_rounds_to_even(on):
    # Documented semantics (TensorFlow 2.21's CPU kernel rounds these halves away from zero
    # and reports -127 as the minimum; see docs/tf.md).
    q, lo, _ = tf.quantize_v2(tf.constant(HALVES), -127.0, 127.0, tf.qint8, mode="SCALED",
                              round_mode="HALF_TO_EVEN")
    assert q.tolist() == [0, 2, 2, 4, -2, 0, 126, -128, -128, 127] and lo.tolist() == -128.0


XX = [[-1.0, 0.5, 2.0], [3.0, -4.0, 0.25]]
AXIS_CASES = [  # TensorFlow
    ([-1.0, -4.0, 0.0], [3.0, 1.0, 2.0], tf.qint8, {"axis": 1},
     ([[-128, 102, 127], [127, -128, -96]], [-1.0, -4.0, 0.0], [3.0, 1.0, 2.0])),
    ([-1.0, -4.0], [2.0, 3.0], tf.quint8, {"axis": 0},
     ([[0, 128, 255], [255, 0, 155]], [-1.0, -4.0], [2.0, 3.0])),
    ([-1.0, -4.0, 0.0], [3.0, 1.0, 2.0], tf.qint8, {"mode": "SCALED", "axis": 1},
     ([[-42, 16, 127], [127, -128, 16]], [-3.0236220359802246, -4.0, -2.0157480239868164],
      [3.0, 3.96875, 2.0])),
    ([-1.0, -4.0, 0.0], [3.0, 1.0, 2.0], tf.qint8, {"mode": "SCALED", "axis": -1},
     ([[-42, 16, 127], [127, -128, 16]], [-3.0236220359802246, -4.0, -2.0157480239868164],
      [3.0, 3.96875, 2.0])),
]


@pytest.mark.parametrize("lo,hi,T,kwargs,expected", AXIS_CASES)
def test_quantize_v2_per_axis(on, lo, hi, T, kwargs, expected):
    q, out_lo, out_hi = tf.quantize_v2(tf.constant(XX), tf.constant(lo), hi, T, **kwargs)
    assert (q.tolist(), out_lo.tolist(), out_hi.tolist()) == expected
    # each slice quantizes as the whole tensor would with its own range
    axis = kwargs["axis"] % 2
    for i in range(len(lo)):
        part = [row[i] for row in XX] if axis == 1 else XX[i]
        rest = {k: v for k, v in kwargs.items() if k != "axis"}
        single, _, _ = tf.quantize_v2(tf.constant(part), lo[i], hi[i], T, **rest)
        got = [row[i] for row in q.tolist()] if axis == 1 else q.tolist()[i]
        assert got == single.tolist()


def test_quantize_v2_option_errors(on):
    x = tf.constant(XX)
    with pytest.raises(InvalidArgumentError, match="HALF_TO_EVEN' is only supported for mode "
                                                   "'SCALED'"):
        tf.quantize_v2(x, -2.0, 3.0, tf.qint8, round_mode="HALF_TO_EVEN")
    with pytest.raises(InvalidArgumentError, match="round_mode"):
        tf.quantize_v2(x, -2.0, 3.0, tf.qint8, round_mode="UP")
    with pytest.raises(UnimplementedError, match="MIN_FIRST"):
        tf.quantize_v2(x, [-1.0, 0.0, 0.0], [1.0, 1.0, 1.0], tf.quint8, mode="MIN_FIRST",
                       axis=1)
    with pytest.raises(InvalidArgumentError, match="size .2. matches the axis dimension .* .3."):
        tf.quantize_v2(x, [-1.0, -4.0], [3.0, 1.0], tf.qint8, axis=1)
    with pytest.raises(InvalidArgumentError, match="1-D tensor"):
        tf.quantize_v2(x, -1.0, 3.0, tf.qint8, axis=1)
    with pytest.raises(InvalidArgumentError, match="axis.=2 is out of range"):
        tf.quantize_v2(x, [-1.0], [3.0], tf.qint8, axis=2)
    with pytest.raises(InvalidArgumentError, match="must be >="):
        tf.quantize_v2(x, [1.0, 0.0, 0.0], [0.0, 1.0, 1.0], tf.qint8, axis=1)
    with pytest.raises(TypeError, match="ensure_minimum_range"):
        tf.quantize_v2(x, 0.0, 1.0, tf.qint8, ensure_minimum_range="big")
