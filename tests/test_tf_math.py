"""wt.tf's math ops (tf.math.* and the top-level aliases) and creation functions, on every
device.

* Every float op against NumPy (float32 inputs, NumPy computing in float64) over its domain,
  reductions over every axis choice with and without keepdims.
* TensorFlow's dtype rules: which dtypes each kernel takes (InvalidArgumentError otherwise),
  integer division and means, empty reductions, ``divide``'s integer-to-float table, and the
  operand-matching rule of the legacy/off promotion modes next to the new promotion's.  The
  exact expected values are TensorFlow 2.21's for the same calls.
"""

from __future__ import annotations

import math

import pytest

import webtensor as wt
import webtensor.tf as tf
from webtensor.tf.errors import InvalidArgumentError

np = pytest.importorskip("numpy")



@pytest.fixture(name="on")
def on_device(dev):
    with wt.set_default_device(dev):
        yield dev


def _close(got, expected, rtol=2e-5, atol=1e-6):
    got = np.asarray(got.tolist() if isinstance(got, wt.Tensor) else got, dtype=np.float64)
    np.testing.assert_allclose(got, np.asarray(expected, dtype=np.float64), rtol=rtol,
                               atol=atol, equal_nan=True)


GENERAL = [-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 3.0]
POSITIVE = [0.125, 0.5, 1.0, 2.0, 7.5]
UNIT = [-0.75, -0.5, 0.0, 0.25, 0.5, 0.9]
ABOVE_ONE = [1.0, 1.5, 2.0, 10.0]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


UNARY = {  # name: (NumPy reference, inputs)
    "abs": (np.abs, GENERAL), "negative": (np.negative, GENERAL), "sign": (np.sign, GENERAL),
    "square": (np.square, GENERAL), "sqrt": (np.sqrt, POSITIVE),
    "rsqrt": (lambda x: 1 / np.sqrt(x), POSITIVE), "exp": (np.exp, GENERAL),
    "expm1": (np.expm1, GENERAL), "log": (np.log, POSITIVE), "log1p": (np.log1p, UNIT),
    "sin": (np.sin, GENERAL), "cos": (np.cos, GENERAL), "tan": (np.tan, UNIT),
    "asin": (np.arcsin, UNIT), "acos": (np.arccos, UNIT), "atan": (np.arctan, GENERAL),
    "sinh": (np.sinh, GENERAL), "cosh": (np.cosh, GENERAL), "tanh": (np.tanh, GENERAL),
    "asinh": (np.arcsinh, GENERAL), "acosh": (np.arccosh, ABOVE_ONE),
    "atanh": (np.arctanh, UNIT), "sigmoid": (_sigmoid, GENERAL),
    "log_sigmoid": (lambda x: -np.logaddexp(0, -x), GENERAL),
    "softplus": (lambda x: np.logaddexp(0, x), GENERAL),
    "softsign": (lambda x: x / (1 + np.abs(x)), GENERAL),
    "reciprocal": (lambda x: 1 / x, POSITIVE + [-2.0]),
    "reciprocal_no_nan": (lambda x: np.where(x == 0, 0, 1 / np.where(x == 0, 1, x)), GENERAL),
    "round": (np.round, GENERAL + [2.5, -3.5]), "rint": (np.rint, GENERAL + [2.5]),
    "floor": (np.floor, GENERAL), "ceil": (np.ceil, GENERAL),
    "is_nan": (np.isnan, GENERAL + [math.nan, math.inf]),
    "is_inf": (np.isinf, GENERAL + [math.nan, -math.inf]),
    "is_finite": (np.isfinite, GENERAL + [math.nan, math.inf]),
    "real": (np.real, GENERAL), "imag": (np.imag, GENERAL),
    "angle": (lambda x: np.where(x < 0, np.pi, 0.0), GENERAL + [-0.0]),
    "conj": (np.conj, GENERAL),
}


def _op(name):
    return getattr(tf.math, name)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32_against_numpy(on, name):
    ref, values = UNARY[name]
    x = tf.constant(values, dtype=tf.float32)
    out = _op(name)(x)
    expected = ref(np.asarray(values, dtype=np.float32).astype(np.float64))
    assert out.device is on and out.shape == x.shape
    if out.dtype is wt.bool:
        assert out.tolist() == expected.tolist()
    else:
        assert out.dtype is wt.float32
        _close(out, expected)
    if name in tf.__all__:
        assert getattr(tf, name)(x).tolist() == out.tolist()  # the top-level alias


@pytest.mark.parametrize("name", ["abs", "sign", "sqrt", "exp", "log", "conj", "real", "imag",
                                  "angle", "square", "negative", "tanh"])
def test_unary_complex_against_numpy(on, name):
    values = [3 + 4j, -1 - 1j, 0.5j, 2.0 + 0j]
    x = tf.constant(values, dtype=tf.complex64)
    ref = {"abs": np.abs, "sign": lambda z: z / np.abs(z), "sqrt": np.sqrt, "exp": np.exp,
           "log": np.log, "conj": np.conj, "real": np.real, "imag": np.imag, "angle": np.angle,
           "square": np.square, "negative": np.negative, "tanh": np.tanh}[name]
    out = _op(name)(x)
    expected = ref(np.asarray(values, dtype=np.complex128))
    assert out.dtype is (wt.float32 if np.isrealobj(expected) else wt.complex64)
    got = np.asarray(out.tolist())
    np.testing.assert_allclose(got, expected, rtol=3e-5, atol=1e-6)


def _fmod_floor(x, y):
    return x - np.floor(x / y) * y


BINARY = {  # name: (NumPy reference, x, y)
    "add": (np.add, GENERAL, GENERAL[::-1]),
    "subtract": (np.subtract, GENERAL, GENERAL[::-1]),
    "multiply": (np.multiply, GENERAL, GENERAL[::-1]),
    "maximum": (np.maximum, GENERAL + [math.nan], GENERAL[::-1] + [1.0]),
    "minimum": (np.minimum, GENERAL + [1.0], GENERAL[::-1] + [math.nan]),
    "pow": (np.power, POSITIVE, [2.0, -1.0, 0.5, 3.0, 0.0]),
    "floordiv": (lambda x, y: np.floor(x / y), [-7.5, 7.5, 3.0, -1.0], [2.0, -2.0, 0.5, 3.0]),
    "floormod": (np.mod, [-7.5, 7.5, 3.0, -1.0], [2.0, -2.0, 0.5, 3.0]),
    "mod": (np.mod, [-7.5, 7.5, 3.0, -1.0], [2.0, -2.0, 0.5, 3.0]),
    "truncatediv": (lambda x, y: np.trunc(x / y), [-7.5, 7.5, 3.0], [2.0, -2.0, 0.5]),
    "truncatemod": (np.fmod, [-7.5, 7.5, 3.0, -1.0], [2.0, -2.0, 0.5, 3.0]),
    "realdiv": (np.divide, GENERAL, [2.0] * 8),
    "divide": (np.divide, GENERAL, [2.0, -4.0] * 4),
    "truediv": (np.divide, GENERAL, [0.5] * 8),
    "atan2": (np.arctan2, GENERAL, GENERAL[::-1]),
    "squared_difference": (lambda x, y: (x - y) ** 2, GENERAL, GENERAL[::-1]),
    "xlogy": (lambda x, y: np.where(x == 0, 0, x * np.log(np.where(x == 0, 1, y))),
              [0.0, 1.0, 0.0, 2.0], [0.0, 2.0, math.nan, 0.5]),
    "xlog1py": (lambda x, y: np.where(x == 0, 0, x * np.log1p(y)), [0.0, 1.0, 2.0],
                [-1.0, 2.0, 0.5]),
    "xdivy": (lambda x, y: np.where(x == 0, 0, x / np.where(x == 0, 1, y)), [0.0, 1.0, 3.0],
              [0.0, 2.0, -4.0]),
    "divide_no_nan": (lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)),
                      [1.0, math.nan, 3.0], [0.0, 0.0, 2.0]),
    "multiply_no_nan": (lambda x, y: np.where(y == 0, 0, x * y), [math.inf, math.nan, 3.0],
                        [0.0, 0.0, 2.0]),
    "nextafter": (lambda x, y: np.nextafter(x.astype(np.float32), y.astype(np.float32)),
                  [1.0, 0.0, -2.0], [2.0, -1.0, -2.0]),
    "equal": (np.equal, GENERAL, [0.0] * 8), "not_equal": (np.not_equal, GENERAL, [0.0] * 8),
    "less": (np.less, GENERAL, [0.5] * 8), "less_equal": (np.less_equal, GENERAL, [0.5] * 8),
    "greater": (np.greater, GENERAL, [0.5] * 8),
    "greater_equal": (np.greater_equal, GENERAL, [0.5] * 8),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float32_against_numpy(on, name):
    ref, xs, ys = BINARY[name]
    x, y = tf.constant(xs, dtype=tf.float32), tf.constant(ys, dtype=tf.float32)
    out = _op(name)(x, y)
    with np.errstate(all="ignore"):  # (the unused branch of NumPy's where)
        expected = ref(np.asarray(xs, np.float32).astype(np.float64),
                       np.asarray(ys, np.float32).astype(np.float64))
    assert out.device is on
    if out.dtype is wt.bool:
        assert out.tolist() == expected.tolist()
    else:
        assert out.dtype is wt.float32
        _close(out, expected)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical(on, name):
    a, b = [True, True, False, False], [True, False, True, False]
    expected = getattr(np, name)(a, b).tolist()
    assert _op(name)(a, b).tolist() == expected
    assert tf.math.logical_not(a).tolist() == [False, False, True, True]


M = [[1.0, -2.0, 3.5], [0.25, 5.0, -1.5]]
REDUCTIONS = {
    "reduce_sum": np.sum, "reduce_prod": np.prod, "reduce_mean": np.mean, "reduce_max": np.max,
    "reduce_min": np.min, "reduce_logsumexp": lambda x, axis, keepdims: np.log(
        np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
    "reduce_variance": np.var, "reduce_std": np.std,
    "reduce_euclidean_norm": lambda x, axis, keepdims: np.sqrt(
        np.sum(x * x, axis=axis, keepdims=keepdims)),
}


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1], [1, 0]])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_against_numpy(on, name, axis, keepdims):
    x = tf.constant(M, dtype=tf.float32)
    out = _op(name)(x, axis=axis, keepdims=keepdims)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = REDUCTIONS[name](np.asarray(M, np.float64), axis=np_axis, keepdims=keepdims)
    assert out.dtype is wt.float32 and out.shape == expected.shape and out.device is on
    _close(out, expected, rtol=1e-5)


def test_reduction_axis_as_tensor_and_errors(on):
    x = tf.constant(M)
    assert tf.reduce_sum(x, axis=tf.constant([1])).tolist() == [2.5, 3.75]
    with pytest.raises(InvalidArgumentError, match="tf.reduce_sum.*invalid reduction dimension 2"):
        tf.reduce_sum(x, axis=2)
    with pytest.raises(TypeError, match="tf.reduce_sum: axis must hold integers"):
        tf.reduce_sum(x, axis=[0.5])


@pytest.mark.filterwarnings("ignore:webgpu. float64 work runs on the CPU")
def test_integer_reductions_follow_tensorflow(on):
    assert tf.reduce_sum(tf.constant([100, 100], tf.int8)).tolist() == -56  # wraps in int8
    mean8 = tf.reduce_mean(tf.constant([100, 100], tf.int8))
    assert mean8.dtype is wt.int8 and mean8.tolist() == 100  # no wrap in the mean
    assert tf.reduce_mean(tf.constant([-1, -2])).tolist() == -1  # truncates toward zero
    assert tf.reduce_mean([1, 2]).tolist() == 1
    assert tf.reduce_mean(tf.constant([[7, 8], [1, 2]], tf.uint16), axis=0).tolist() == [4, 5]
    assert tf.reduce_mean(tf.zeros([0], tf.int32)).tolist() == 0
    assert math.isnan(tf.reduce_mean(tf.zeros([0])).tolist())
    assert tf.reduce_max(tf.zeros([0])).tolist() == -math.inf
    assert tf.reduce_max(tf.zeros([0], tf.int32)).tolist() == -2 ** 31
    assert tf.reduce_min(tf.zeros([0], tf.uint8)).tolist() == 255
    assert tf.reduce_min(tf.zeros([2, 0]), axis=1).tolist() == [math.inf, math.inf]
    assert tf.reduce_prod(tf.zeros([0])).tolist() == 1.0
    norm = tf.math.reduce_euclidean_norm(tf.constant([3, 4, 1]))
    assert norm.dtype is wt.int32 and norm.tolist() == 5
    cnorm = tf.math.reduce_euclidean_norm(tf.constant([3 + 4j]))
    assert cnorm.dtype is wt.complex128 and cnorm.tolist() == 5 + 0j
    assert tf.math.count_nonzero([1, 0, 2]).tolist() == 2
    assert tf.math.count_nonzero([True, False]).dtype is wt.int64
    assert tf.math.zero_fraction([0, 1, 0, 3]).tolist() == 0.5
    assert tf.reduce_any([False, True]).tolist() is True
    assert tf.reduce_all([[True, False], [True, True]], axis=1).tolist() == [False, True]


def test_arg_extremes(on):
    x = tf.constant([[1, 5], [3, 2]])
    amax = tf.argmax(x)
    assert amax.dtype is wt.int64 and amax.tolist() == [1, 0]  # axis None means 0
    assert tf.argmin(x, axis=1, output_type=tf.int32).tolist() == [0, 1]
    assert tf.argmin(x, axis=1, output_type=tf.int32).dtype is wt.int32
    assert tf.argmax([True, False, True]).tolist() == 0
    assert tf.argmax([2, 7, 7]).tolist() == 1  # ties: the first
    with pytest.raises(InvalidArgumentError, match="reduction axis 0 is empty"):
        tf.argmax(tf.zeros([0]))
    with pytest.raises(TypeError, match="output_type"):
        tf.argmax(x, output_type=tf.float32)


def test_scans(on):
    assert tf.cumsum([1, 2, 3]).tolist() == [1, 3, 6]
    assert tf.cumsum([1, 2, 3], exclusive=True, reverse=True).tolist() == [5, 3, 0]
    assert tf.cumsum([1, 2, 3], exclusive=True).tolist() == [0, 1, 3]
    assert tf.cumsum([1, 2, 3], reverse=True).tolist() == [6, 5, 3]
    assert tf.math.cumprod([1, 2, 3], exclusive=True).tolist() == [1, 1, 2]
    assert tf.cumsum([[1, 2], [3, 4]], axis=1).tolist() == [[1, 3], [3, 7]]
    assert tf.cumsum(tf.constant([100, 100], tf.int8)).tolist() == [100, -56]
    with pytest.raises(InvalidArgumentError, match="tf.cumsum.*bool"):
        tf.cumsum([True, False])


def test_integer_division_family(on):
    a, b = tf.constant([-7, 7, -7, 7]), tf.constant([2, -2, -2, 2])
    assert tf.math.floordiv(a, b).tolist() == [-4, -4, 3, 3]
    assert tf.math.floormod(a, b).tolist() == [1, -1, -1, 1]
    assert tf.truncatediv(a, b).tolist() == [-3, -3, 3, 3]
    assert tf.truncatemod(a, b).tolist() == [-1, 1, -1, 1]
    assert tf.math.floordiv(tf.constant([7], tf.uint8), tf.constant([2], tf.uint8)).tolist() \
        == [3]
    for op in (tf.math.floordiv, tf.math.floormod, tf.truncatediv, tf.truncatemod):
        with pytest.raises(InvalidArgumentError, match="integer division by zero"):
            op(tf.constant([1, 2]), tf.constant([0, 1]))
    assert tf.pow(2, 3).tolist() == 8
    with pytest.raises(InvalidArgumentError, match="negative integer powers"):
        tf.pow(tf.constant([2]), tf.constant([-1]))
    assert tf.math.squared_difference(tf.constant([1]), tf.constant([4])).tolist() == [9]
    assert tf.math.squared_difference(1j, 2 + 0j).tolist() == 5 + 0j
    assert tf.add(tf.constant([250], tf.uint8), tf.constant([10], tf.uint8)).tolist() == [4]


@pytest.mark.parametrize("dt,expected", [
    (tf.int8, tf.float32), (tf.uint8, tf.float32), (tf.int16, tf.float32),
    (tf.uint16, tf.float32), (tf.int32, tf.float64), (tf.uint32, tf.float64),
    (tf.int64, tf.float64), (tf.uint64, tf.float64), (tf.float16, tf.float16),
    (tf.bfloat16, tf.bfloat16), (tf.float32, tf.float32), (tf.complex64, tf.complex64),
])
def test_divide_of_integers_gives_tensorflows_float(on, dt, expected):
    for fn in (tf.divide, tf.truediv, tf.math.divide):
        out = fn(tf.constant([7, 1], dt), tf.constant([2, 4], dt))
        assert out.dtype == expected and out.tolist() == [3.5, 0.25]


def test_divide_details(on):
    assert tf.divide(tf.constant([1]), tf.constant([0])).tolist() == [math.inf]
    with pytest.raises(TypeError, match="tf.divide: invalid dtype bool"):
        tf.divide(tf.constant([True]), tf.constant([True]))
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    weak = tf.divide(7, 2)  # TensorFlow: float64, weak
    assert weak.dtype is wt.float64 and weak.weak and weak.tolist() == 3.5


REFUSED = [  # (function, dtype) pairs TensorFlow's kernels do not register
    (tf.sqrt, tf.int32), (tf.abs, tf.uint8), (tf.negative, tf.uint8), (tf.sign, tf.uint8),
    (tf.square, tf.bool), (tf.floor, tf.int32), (tf.math.rint, tf.int32),
    (tf.math.reciprocal, tf.int32), (tf.sigmoid, tf.int32), (tf.math.is_nan, tf.int32),
    (tf.math.expm1, tf.int32), (tf.reduce_max, tf.bool), (tf.reduce_sum, tf.bool),
    (tf.reduce_any, tf.float32), (tf.math.softmax, tf.int32), (tf.math.reduce_std, tf.int32),
    (tf.math.reduce_logsumexp, tf.int32), (tf.logical_not, tf.int32),
]


@pytest.mark.parametrize("fn,dt", REFUSED, ids=[f"{f.__name__}-{d.name}" for f, d in REFUSED])
def test_unsupported_dtypes_raise(on, fn, dt):
    x = tf.ones([2], dt)
    with pytest.raises(InvalidArgumentError, match=f"{fn.__name__}: .*{dt.name}, which this op "
                                                   f"does not take"):
        fn(x)


REFUSED_BINARY = [(tf.add, tf.bool), (tf.multiply, tf.bool), (tf.maximum, tf.bool),
                  (tf.less, tf.bool), (tf.less, tf.complex64), (tf.pow, tf.uint8),
                  (tf.atan2, tf.int32), (tf.logical_and, tf.int32), (tf.matmul, tf.int8),
                  (tf.math.floormod, tf.complex64)]


@pytest.mark.parametrize("fn,dt", REFUSED_BINARY,
                         ids=[f"{f.__name__}-{d.name}" for f, d in REFUSED_BINARY])
def test_unsupported_binary_dtypes_raise(on, fn, dt):
    x = tf.ones([2, 2], dt)
    with pytest.raises(InvalidArgumentError, match=f"{fn.__name__}: .*{dt.name}"):
        fn(x, x)


def test_equal_takes_every_dtype(on):
    for dt in (tf.bool, tf.int8, tf.uint64, tf.float16, tf.complex128):
        assert tf.equal(tf.ones([2], dt), tf.zeros([2], dt)).tolist() == [False, False]


# -- dtype matching: TensorFlow's classic rule and the new promotion -----------------------------

@pytest.mark.parametrize("mode", ["legacy", "off"])
def test_classic_operand_matching(on, mode):
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    i8 = np.array(1, np.int8)
    with pytest.raises(InvalidArgumentError, match=r"tf.add.*input #1\(zero-based\).*int8.*int32"):
        tf.add(i8, tf.constant(1))  # the first input fixes the dtype of add
    assert tf.subtract(i8, tf.constant(1)).dtype is wt.int32  # the first tensor fixes it
    assert tf.multiply(2, tf.constant(3.0)).tolist() == 6.0
    with pytest.raises(InvalidArgumentError, match="input #1"):
        tf.add(1, tf.constant(2.0))
    with pytest.raises(InvalidArgumentError, match="input #1"):
        tf.add(tf.constant(1), 2.5)
    with pytest.raises(TypeError, match="tf.subtract: cannot convert 2.5 to int32"):
        tf.subtract(tf.constant(1), 2.5)
    out = tf.add(tf.constant(1), np.array(1.5))  # NumPy values are converted (truncated)
    assert out.dtype is wt.int32 and out.tolist() == 2
    with pytest.raises(InvalidArgumentError, match="tf.equal.*int32.*float32"):
        tf.equal(tf.constant(1), tf.constant(1.0))
    assert tf.constant(5).dtype is wt.int32 and not tf.constant(5).weak
    assert tf.constant(2 ** 40).dtype is wt.int64
    assert tf.math.abs([100.0, 4.0]).weak is False


@pytest.mark.parametrize("mode", ["all", "safe"])
def test_new_promotion(on, mode):
    tf.experimental_enable_numpy_behavior(dtype_conversion_mode=mode)
    out = tf.add(tf.constant(1), 2.5)
    assert out.dtype is wt.float32 and out.weak and out.tolist() == 3.5
    assert tf.subtract(np.array(1, np.int8), tf.constant(1)).dtype is wt.int8
    assert tf.add(tf.constant(1, tf.int8), tf.constant(1)).dtype is wt.int8
    assert tf.pow(tf.constant(2), 0.5).dtype is wt.float32
    assert tf.reduce_sum([1, 2, 3]).weak and tf.reduce_sum([1, 2, 3]).tolist() == 6
    assert tf.equal(tf.constant(1), 1.0).tolist() is True
    assert tf.matmul([[1, 2]], [[3], [4]]).weak
    if mode == "safe":
        with pytest.raises(TypeError, match="safe"):
            tf.add(tf.constant(1, tf.int32), tf.constant(1.0, tf.float32))


# -- other math ops ------------------------------------------------------------------------------

def test_math_misc(on):
    values, indices = tf.math.top_k([1, 3, 3, 2], k=2)
    assert values.tolist() == [3, 3] and indices.tolist() == [1, 2]
    assert indices.dtype is wt.int32 and tf.math.top_k([[1, 5, 2]]).values.tolist() == [[5]]
    with pytest.raises(InvalidArgumentError, match="k=5"):
        tf.math.top_k([1, 2], k=5)
    assert tf.add_n([[1, 2], [3, 4], [5, 6]]).tolist() == [9, 12]
    with pytest.raises(InvalidArgumentError, match="same shape"):
        tf.add_n([[1, 2], [3]])
    assert tf.math.scalar_mul(2, tf.constant([1.5])).tolist() == [3.0]
    with pytest.raises(ValueError, match="only scalar multiply"):
        tf.math.scalar_mul([1, 2], tf.constant([1, 2]))
    _close(tf.math.l2_normalize([3.0, 4.0]), [0.6, 0.8])
    _close(tf.math.l2_normalize([[3.0, 4.0], [0.0, 0.0]], axis=1), [[0.6, 0.8], [0.0, 0.0]])
    assert tf.math.invert_permutation([3, 4, 0, 2, 1]).tolist() == [2, 4, 3, 0, 1]
    with pytest.raises(InvalidArgumentError, match="not a permutation"):
        tf.math.invert_permutation([0, 0])
    assert tf.math.polyval([2.0, 1.0, 0.0], 3.0).tolist() == 21.0
    assert tf.math.is_non_decreasing([1, 1, 2]).tolist() is True
    assert tf.math.is_strictly_increasing([1, 1, 2]).tolist() is False
    assert tf.math.is_strictly_increasing([5]).tolist() is True
    sm = tf.math.softmax([[1.0, 2.0, 3.0]])
    _close(sm, [np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum()])
    _close(tf.math.log_softmax([1.0, 2.0]), [-1.3132616, -0.31326166])
    assert tf.math.conj(tf.constant([-1, 2])).tolist() == [-1, 2]
    assert tf.math.real(tf.constant([-1, 2])).dtype is wt.int32


def test_matmul_and_tensordot(on):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tf.constant([[0.5, -1.0], [2.0, 1.0]])
    ref_a, ref_b = np.asarray(a.tolist()), np.asarray(b.tolist())
    _close(tf.matmul(a, b), ref_a @ ref_b)
    _close(tf.matmul(a, b, transpose_a=True), ref_a.T @ ref_b)
    _close(tf.matmul(a, b, transpose_b=True), ref_a @ ref_b.T)
    c = tf.constant([[1 + 1j, 2j], [1 - 1j, 3 + 0j]])
    ref_c = np.asarray(c.tolist())
    got = np.asarray(tf.matmul(c, c, adjoint_a=True).tolist())
    np.testing.assert_allclose(got, ref_c.conj().T @ ref_c)
    with pytest.raises(ValueError, match="transpose_a and adjoint_a"):
        tf.matmul(a, b, transpose_a=True, adjoint_a=True)
    with pytest.raises(InvalidArgumentError, match="at least 2-D"):
        tf.matmul([1.0, 2.0], a)
    assert tf.tensordot([[1, 2]], [[3], [4]], axes=1).tolist() == [[11]]
    batched = tf.matmul(tf.ones([3, 2, 4]), tf.ones([3, 4, 5]))
    assert batched.shape == (3, 2, 5) and batched.tolist()[2][1][4] == 4.0


# -- creation and conversion ----------------------------------------------------------------------

def test_creation(on):
    assert tf.zeros([2]).dtype is wt.float32 and tf.zeros([2]).device is on
    assert tf.zeros((2,), tf.int8).tolist() == [0, 0] and tf.zeros(3).shape == (3,)
    assert tf.ones([2], tf.qint8).dtype is wt.int8
    assert tf.zeros_like([1.5], dtype=tf.int32).tolist() == [0]
    like = tf.ones_like(tf.constant([[1, 2]], tf.uint8))
    assert like.dtype is wt.uint8 and like.tolist() == [[1, 1]]
    assert tf.fill([2, 1], 1.5).tolist() == [[1.5], [1.5]] and tf.fill([2], 3).dtype is wt.int32
    assert tf.range(3).tolist() == [0, 1, 2] and tf.range(3).dtype is wt.int32
    assert tf.range(5, 1, -2).tolist() == [5, 3]
    assert tf.range(0.5, 2).tolist() == [0.5, 1.5] and tf.range(0.5, 2).dtype is wt.float32
    assert tf.range(1, 10, 3, dtype=tf.float64).tolist() == [1.0, 4.0, 7.0]
    assert tf.range(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert tf.range(4, 4).tolist() == []
    with pytest.raises(InvalidArgumentError, match="requires start <= limit"):
        tf.range(5, 1)
    with pytest.raises(InvalidArgumentError, match="delta != 0"):
        tf.range(0, 1, 0)
    with pytest.raises(InvalidArgumentError, match="negative dimension"):
        tf.zeros([-1])
    assert tf.where([True, False, True]).tolist() == [[0], [2]]
    assert tf.where([True, False], [1, 2], [3, 4]).tolist() == [1, 4]
    with pytest.raises(ValueError, match="both be given"):
        tf.where([True], [1])
    assert tf.clip_by_value([1, 5, 9], 2, 6).tolist() == [2, 5, 6]
    assert tf.clip_by_value(tf.constant([1, 5, 9], tf.int8), 2, 6).dtype is wt.int8
    # TensorFlow applies the maximum first: min(t, hi), then max(., lo)
    assert tf.clip_by_value([1.0, 5.0], [0.0, 6.0], 4.0).tolist() == [1.0, 6.0]


def test_conversion(on):
    t = tf.convert_to_tensor([1, 2])
    assert t.dtype is wt.int32 and not t.weak and t.device is on
    assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype is wt.float32
    assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype is wt.float32
    with pytest.raises(TypeError, match="cannot convert 1.5 to int32"):
        tf.convert_to_tensor(1.5, dtype=tf.int32)
    with pytest.raises(ValueError, match="requested dtype float32.*int32"):
        tf.convert_to_tensor(tf.constant(1), dtype=tf.float32)
    v = tf.Variable([1.5, 2.5])
    assert tf.convert_to_tensor(v).tolist() == [1.5, 2.5]
    assert (tf.is_tensor(tf.constant(1)), tf.is_tensor(1), tf.is_tensor(np.array(1)),
            tf.is_tensor(v)) == (True, False, False, True)
    ident = tf.identity(v)
    v.assign([0.0, 0.0])
    assert ident.tolist() == [1.5, 2.5]  # a copy
    assert tf.shape(v).tolist() == [2] and tf.rank(v).tolist() == 1 and tf.size(v).tolist() == 2
