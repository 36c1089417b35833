"""tf.Variable wherever a tensor goes, sliced assignment and scatter_nd_update, on every device.

* A table with one valid call for every public wt.tf function (``tf.*`` and ``tf.math.*``):
  the call is made with tensors, then again with every tensor argument (also inside lists)
  wrapped in a ``tf.Variable``; the results must be equal.  A guard fails when a public
  function has no row, so new functions must join the table.
* ``v[key].assign(value)``, ``v.scatter_nd_update/add/sub`` against NumPy, with TensorFlow's
  rules (broadcast into the slice, the variable's dtype, last update wins on repeats) and
  errors; the values are those TensorFlow 2.21 gives for the same calls.
"""

from __future__ import annotations

import pytest

import webtensor as wt
import webtensor.tf as tf
from webtensor.tf.errors import InvalidArgumentError

np = pytest.importorskip("numpy")



def _f(d):
    return wt.asarray([0.5, 1.5, 2.5], dtype=wt.float32, device=d)


def _g(d):
    return wt.asarray([2.0, 0.25, 3.0], dtype=wt.float32, device=d)


def _m(d):
    return wt.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=wt.float32, device=d)


def _i(d):
    return wt.asarray([3, 1, 2], dtype=wt.int32, device=d)


def _b(d):
    return wt.asarray([True, False, True], device=d)


def _img(d):
    return wt.reshape(wt.arange(16, dtype=wt.float32, device=d), (1, 4, 4, 1))


def _q(d):
    return wt.asarray([0, 128, 255], dtype=wt.uint8, device=d)


def _s(d, v=1.0):
    return wt.asarray(v, dtype=wt.float32, device=d)


UNARY_FLOAT = ["to_double", "to_float", "to_bfloat16", "to_int32", "to_int64", "shape",
               "size", "rank", "transpose", "identity", "zeros_like",
               "ones_like", "abs", "negative", "sign", "square", "sqrt", "exp", "sin", "cos",
               "tan", "asin", "atan", "sinh", "cosh", "tanh", "asinh", "sigmoid", "round",
               "floor", "reduce_sum", "reduce_prod", "reduce_mean", "reduce_max", "reduce_min",
               "reduce_logsumexp", "argmax", "argmin", "cumsum", "unstack", "unpack",
               "fake_quant_with_min_max_args", "rsqrt", "expm1", "log", "log1p",
               "log_sigmoid", "softplus", "softsign", "reciprocal", "reciprocal_no_nan",
               "rint", "ceil", "is_nan", "is_inf", "is_finite", "real", "imag", "angle", "conj",
               "reduce_variance", "reduce_std", "reduce_euclidean_norm", "cumprod",
               "count_nonzero", "zero_fraction", "is_non_decreasing", "is_strictly_increasing",
               "top_k", "l2_normalize", "softmax", "log_softmax", "squeeze"]
UNARY_SMALL = ["acos", "atanh"]  # need |x| < 1
UNARY_BOOL = ["logical_not", "reduce_any", "reduce_all"]
BINARY_FLOAT = ["add", "subtract", "multiply", "maximum", "minimum", "pow", "truncatediv",
                "truncatemod", "realdiv", "atan2", "equal", "not_equal", "less", "less_equal",
                "greater", "greater_equal", "divide", "truediv", "floordiv", "floormod", "mod",
                "squared_difference", "divide_no_nan", "multiply_no_nan", "xlogy", "xlog1py",
                "xdivy", "nextafter", "fake_quant_with_min_max_args_gradient"]
BINARY_BOOL = ["logical_and", "logical_or", "logical_xor"]
NO_TENSOR = ["as_dtype", "string_to_number", "broadcast_static_shape", "empty",
             "experimental_enable_numpy_behavior"]

ROWS = {
    **{n: lambda d: ([_f(d)], {}) for n in UNARY_FLOAT},
    **{n: lambda d: ([wt.asarray([0.25, -0.5], device=d)], {}) for n in UNARY_SMALL},
    **{n: lambda d: ([_b(d)], {}) for n in UNARY_BOOL},
    **{n: lambda d: ([_f(d), _g(d)], {}) for n in BINARY_FLOAT},
    **{n: lambda d: ([_b(d), wt.asarray([True, True, False], device=d)], {})
       for n in BINARY_BOOL},
    **dict.fromkeys(NO_TENSOR),
    "acosh": lambda d: ([wt.asarray([1.5, 2.0], device=d)], {}),
    "cast": lambda d: ([_f(d), tf.int32], {}),
    "bitcast": lambda d: ([_f(d), tf.int32], {}),
    "saturate_cast": lambda d: ([_f(d), tf.uint8], {}),
    "broadcast_dynamic_shape": lambda d: ([wt.asarray([2, 1], device=d),
                                           wt.asarray([3], device=d)], {}),
    "shape_n": lambda d: ([[_f(d), _m(d)]], {}),
    "reshape": lambda d: ([_m(d), wt.asarray([4], device=d)], {}),
    "expand_dims": lambda d: ([_f(d), wt.asarray(0, device=d)], {}),
    "meshgrid": lambda d: ([_f(d), _g(d)], {}),
    "slice": lambda d: ([_m(d), wt.asarray([0, 1], device=d), wt.asarray([2, 1], device=d)],
                        {}),
    "strided_slice": lambda d: ([_m(d), [0, 1], [2, 2], [1, 1]], {}),
    "split": lambda d: ([_m(d), 2], {"axis": wt.asarray(1, device=d)}),
    "tile": lambda d: ([_m(d), wt.asarray([2, 1], device=d)], {}),
    "pad": lambda d: ([_m(d), wt.asarray([[1, 0], [0, 1]], device=d)], {}),
    "concat": lambda d: ([[_m(d), _m(d)], 0], {}),
    "concat_v2": lambda d: ([[_m(d), _m(d)], 1], {}),
    "stack": lambda d: ([[_f(d), _g(d)]], {}),
    "pack": lambda d: ([[_f(d), _g(d)]], {"axis": 1}),
    "parallel_stack": lambda d: ([[_f(d), _g(d)]], {}),
    "reverse": lambda d: ([_m(d), [1]], {}),
    "reverse_v2": lambda d: ([_m(d), wt.asarray([0, 1], device=d)], {}),
    "empty_like": lambda d: ([_f(d)], {"init": True}),
    "alias_inplace_update": lambda d: ([_m(d), 1, wt.asarray([7.0, 8.0], device=d)], {}),
    "alias_inplace_add": lambda d: ([_m(d), [0], wt.asarray([[7.0, 8.0]], device=d)], {}),
    "alias_inplace_subtract": lambda d: ([_m(d), None, _m(d)], {}),
    "boolean_mask": lambda d: ([_f(d), _b(d)], {}),
    "dynamic_partition": lambda d: ([_f(d), wt.asarray([1, 0, 1], device=d), 2], {}),
    "dynamic_stitch": lambda d: ([[wt.asarray([1, 0], device=d), wt.asarray([2], device=d)],
                                  [wt.asarray([1.0, 2.0], device=d),
                                   wt.asarray([3.0], device=d)]], {}),
    "gather": lambda d: ([_m(d), wt.asarray([[1, 0]], device=d)], {"axis": 1, "batch_dims": 0}),
    "gather_nd": lambda d: ([_m(d), wt.asarray([[1, 0], [0, 1]], device=d)], {}),
    "one_hot": lambda d: ([_i(d), 4], {"on_value": _s(d, 2.0), "off_value": _s(d, -1.0)}),
    "reverse_sequence": lambda d: ([_m(d), wt.asarray([2, 1], device=d)],
                                   {"seq_axis": 1, "batch_axis": 0}),
    "scatter_nd": lambda d: ([wt.asarray([[1], [0]], device=d), wt.asarray([5.0, 6.0], device=d),
                              wt.asarray([3], device=d)], {}),
    "sequence_mask": lambda d: ([_i(d), wt.asarray(4, device=d)], {}),
    "setdiff1d": lambda d: ([_i(d), wt.asarray([1], dtype=wt.int32, device=d)], {}),
    "unique_with_counts": lambda d: ([wt.asarray([1, 1, 2], device=d)], {}),
    "batch_to_space": lambda d: ([wt.ones((4, 1, 1, 1), device=d),
                                  wt.asarray([[0, 0], [0, 0]], device=d), 2], {}),
    "batch_to_space_nd": lambda d: ([wt.ones((4, 1, 1, 1), device=d),
                                     wt.asarray([2, 2], device=d),
                                     wt.asarray([[0, 0], [0, 0]], device=d)], {}),
    "depth_to_space": lambda d: ([wt.reshape(wt.arange(8.0, device=d), (1, 1, 2, 4)), 2],
                                 {"data_format": "NHWC"}),
    "space_to_depth": lambda d: ([wt.reshape(_img(d), (1, 1, 4, 4)), 2],
                                 {"data_format": "NCHW"}),
    "extract_image_patches": lambda d: ([_img(d), [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                         "VALID"], {}),
    "required_space_to_batch_paddings": lambda d: ([wt.asarray([3, 4], device=d),
                                                    wt.asarray([2, 3], device=d)], {}),
    "space_to_batch": lambda d: ([_img(d), wt.asarray([[0, 0], [0, 0]], device=d), 2], {}),
    "space_to_batch_nd": lambda d: ([_img(d), wt.asarray([2, 2], device=d),
                                     wt.asarray([[0, 0], [0, 0]], device=d)], {}),
    "dequantize": lambda d: ([_q(d), _s(d, 0.0), _s(d, 6.0)], {}),
    "quantize_v2": lambda d: ([_f(d), _s(d, 0.0), _s(d, 3.0), tf.quint8], {}),
    "quantized_concat": lambda d: ([0, [_q(d), _q(d)], [_s(d, 0.0), _s(d, 0.0)],
                                    [_s(d, 6.0), _s(d, 3.0)]], {}),
    "fake_quant_with_min_max_vars": lambda d: ([_f(d), _s(d, 0.0), _s(d, 2.0)], {}),
    "fake_quant_with_min_max_vars_gradient": lambda d: ([_g(d), _f(d), _s(d, 0.0),
                                                         _s(d, 2.0)], {}),
    "fake_quant_with_min_max_vars_per_channel": lambda d: (
        [_m(d), wt.asarray([0.0, 1.0], device=d), wt.asarray([2.0, 3.0], device=d)], {}),
    "fake_quant_with_min_max_vars_per_channel_gradient": lambda d: (
        [_m(d), _m(d), wt.asarray([0.0, 1.0], device=d), wt.asarray([2.0, 3.0], device=d)],
        {}),
    "constant": lambda d: ([_f(d)], {"dtype": tf.float64}),
    "Variable": lambda d: ([_f(d)], {}),
    "convert_to_tensor": lambda d: ([_f(d)], {"dtype_hint": tf.float32}),
    "is_tensor": lambda d: ([_f(d)], {}),
    "zeros": lambda d: ([wt.asarray([2, 1], device=d)], {}),
    "ones": lambda d: ([wt.asarray([2], device=d), tf.int8], {}),
    "fill": lambda d: ([wt.asarray([2], device=d), _s(d, 1.5)], {}),
    "range": lambda d: ([wt.asarray(1, device=d), wt.asarray(7, device=d),
                         wt.asarray(2, device=d)], {}),
    "where": lambda d: ([_b(d), _f(d), _g(d)], {}),
    "clip_by_value": lambda d: ([_f(d), _s(d, 1.0), _s(d, 2.0)], {}),
    "scalar_mul": lambda d: ([_s(d, 2.0), _f(d)], {}),
    "add_n": lambda d: ([[_f(d), _g(d), _f(d)]], {}),
    "matmul": lambda d: ([_m(d), _m(d)], {"transpose_b": True}),
    "tensordot": lambda d: ([_m(d), _m(d), 1], {}),
    "invert_permutation": lambda d: ([wt.asarray([2, 0, 1], dtype=wt.int32, device=d)], {}),
    "polyval": lambda d: ([[_s(d, 2.0), _s(d, 1.0)], _f(d)], {}),
}


def _public():
    names = {n for n in tf.__all__ if callable(getattr(tf, n)) and n != "DType"}
    return names | set(tf.math.__all__)


def test_every_public_function_has_a_row():
    missing = sorted(_public() - set(ROWS))
    assert not missing, f"add rows to ROWS for: {missing}"
    stale = sorted(set(ROWS) - _public())
    assert not stale, f"ROWS names functions that no longer exist: {stale}"


def _variables(x):
    """Every tensor in ``x`` (also inside lists and tuples) as a tf.Variable."""
    if isinstance(x, wt.Tensor):
        return tf.Variable(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_variables(v) for v in x)
    return x


def _plain(x):
    if isinstance(x, tf.Variable):
        x = x.value()
    if isinstance(x, wt.Tensor):
        return (x.dtype.name, x.shape, _plain(x.tolist()))
    if isinstance(x, float) and x != x:
        return "nan"
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


def _function(name):
    return getattr(tf, name) if name in tf.__all__ else getattr(tf.math, name)


@pytest.mark.parametrize("name", sorted(n for n, row in ROWS.items() if row is not None))
def test_variables_are_accepted_like_tensors(dev, name):
    fn = _function(name)
    args, kwargs = ROWS[name](dev)
    expected = _plain(fn(*args, **kwargs))
    args, kwargs = ROWS[name](dev)  # fresh tensors (alias_inplace_* write into theirs)
    vargs, vkwargs = _variables(args), {k: _variables(v) for k, v in kwargs.items()}
    got = _plain(fn(*vargs, **vkwargs))
    assert got == expected


def test_slices_of_variables_are_accepted(dev):
    v = tf.Variable(wt.asarray([[1.0, 2.0], [3.0, 4.0]], device=dev))
    assert tf.add(v[0], v[1]).tolist() == [4.0, 6.0]
    assert tf.is_tensor(v[0]) and tf.is_tensor(v)
    assert tf.reduce_sum(v[:, 1]).tolist() == 6.0
    assert (v[1] * 2).tolist() == [6.0, 8.0] and v[1].shape == (2,)


# == sliced assignment =========================================================================

SLICE_CASES = [  # (initial, key, value, TensorFlow's result)
    ([1, 2, 3, 4], slice(1, 3), [5, 6], [1, 5, 6, 4]),
    ([1, 2, 3, 4], slice(1, 3), 7, [1, 7, 7, 4]),  # broadcast into the slice
    ([[1, 2], [3, 4]], (slice(None), 1), [9, 8], [[1, 9], [3, 8]]),
    ([[1, 2], [3, 4]], 0, [9, 8], [[9, 8], [3, 4]]),
    ([1, 2, 3, 4, 5], slice(None, None, 2), [0, 0, 0], [0, 2, 0, 4, 0]),
    ([[1, 2], [3, 4]], (Ellipsis, slice(None, None, -1)), [[5, 6], [7, 8]], [[6, 5], [8, 7]]),
]


@pytest.mark.parametrize("initial,key,value,expected", SLICE_CASES)
def test_sliced_assignment(dev, initial, key, value, expected):
    v = tf.Variable(wt.asarray(initial, dtype=wt.int32, device=dev))
    before = v.value()
    out = v[key].assign(value)
    assert out is v and v.dtype == tf.int32 and v.device is dev
    assert v.value().tolist() == expected
    assert before.tolist() == initial  # a new tensor: values read earlier never change
    ref = np.array(initial)
    ref[key] = value
    assert v.numpy().tolist() == ref.tolist()


def test_sliced_assignment_dtype_rule_and_errors(dev):
    v = tf.Variable(wt.asarray([1, 2, 3, 4], dtype=wt.int32, device=dev))
    v[0:2].assign(wt.asarray([7, 8], dtype=wt.int16, device=dev))  # int16 promotes to int32
    assert v.value().tolist() == [7, 8, 3, 4] and v.dtype == tf.int32
    with pytest.raises(TypeError, match="dtype is immutable"):
        v[1:3].assign([5.5, 6])
    with pytest.raises(InvalidArgumentError, match=r"cannot broadcast.*\[3\].*\[2\]"):
        v[1:3].assign([5, 6, 7])
    assert v.value().tolist() == [7, 8, 3, 4]  # failed assignments changed nothing
    with pytest.raises(TypeError, match=r"v\[key\]\.assign"):
        v[0] = 1


def test_slice_reads_the_value_when_sliced(dev):
    v = tf.Variable(wt.asarray([1.0, 2.0, 3.0], device=dev))
    s = v[1:]
    v.assign(wt.asarray([7.0, 8.0, 9.0], device=dev))
    assert s.tolist() == [2.0, 3.0] and v[1:].tolist() == [8.0, 9.0]
    assert "slice" in repr(s)


# == scatter_nd_update / add / sub ==============================================================

SCATTER_CASES = [  # (method, initial, indices, updates, TensorFlow's result)
    ("scatter_nd_update", [1, 2, 3, 4, 5, 6, 7, 8], [[4], [3], [1], [7]], [9, 10, 11, 12],
     [1, 11, 3, 10, 9, 6, 7, 12]),
    ("scatter_nd_update", [1, 2, 3], [[0], [0]], [5, 6], [6, 2, 3]),  # the last update wins
    ("scatter_nd_update", [[1, 2], [3, 4]], [[1]], [[7, 8]], [[1, 2], [7, 8]]),
    ("scatter_nd_update", [[1, 2], [3, 4]], [[1, 0], [0, 1]], [9, 8], [[1, 8], [9, 4]]),
    ("scatter_nd_update", [1, 2], [[[0]], [[1]]], [[5], [6]], [5, 6]),
    ("scatter_nd_update", [1, 2], [[0]] * 0, [], [1, 2]),
    ("scatter_nd_add", [1, 2, 3], [[0], [0]], [5, 6], [12, 2, 3]),  # repeats accumulate
    ("scatter_nd_sub", [1, 2, 3], [[2]], [5], [1, 2, -2]),
    ("scatter_nd_add", [[1, 2], [3, 4]], [[0]], [[10, 20]], [[11, 22], [3, 4]]),
]


@pytest.mark.parametrize("method,initial,indices,updates,expected", SCATTER_CASES)
def test_scatter_nd_methods(dev, method, initial, indices, updates, expected):
    v = tf.Variable(wt.asarray(initial, dtype=wt.int32, device=dev))
    idx = wt.asarray(indices, dtype=wt.int32, device=dev) if indices else \
        wt.zeros((0, 1), dtype=wt.int32, device=dev)
    upd = wt.asarray(updates, dtype=wt.int32, device=dev) if updates else \
        wt.zeros((0,), dtype=wt.int32, device=dev)
    before = v.value()
    assert getattr(v, method)(idx, upd) is v
    assert v.value().tolist() == expected and v.dtype == tf.int32 and v.device is dev
    assert before.tolist() == initial


def test_scatter_nd_update_errors(dev):
    v = tf.Variable(wt.asarray([1, 2, 3], dtype=wt.int32, device=dev))
    with pytest.raises(InvalidArgumentError, match=r"Variable.scatter_nd_update.*\[5\]"):
        v.scatter_nd_update([[5]], [5])
    with pytest.raises(InvalidArgumentError, match=r"\[-1\]"):
        v.scatter_nd_update([[-1]], [5])
    with pytest.raises(InvalidArgumentError, match="updates has shape"):
        v.scatter_nd_update([[0], [1]], [5])
    with pytest.raises(TypeError, match="dtype is immutable"):
        v.scatter_nd_update([[0]], [2.5])
    with pytest.raises(TypeError, match="integer"):
        v.scatter_nd_add([[0.0]], [1])
    assert v.value().tolist() == [1, 2, 3]


def test_scatter_nd_update_random_against_numpy(dev):
    rng = np.random.default_rng(7)
    for _ in range(5):
        base = rng.integers(-50, 50, size=(4, 3, 2))
        k = int(rng.integers(1, 4))
        n = int(rng.integers(0, 6))
        idx = np.stack([rng.integers(0, s, size=n) for s in base.shape[:k]], axis=-1) \
            .reshape(n, k)
        idx = np.unique(idx, axis=0)  # distinct: NumPy's fancy assignment order is unspecified
        upd = rng.integers(-9, 9, size=(len(idx),) + base.shape[k:])
        v = tf.Variable(wt.asarray(base, device=dev))
        v.scatter_nd_update(wt.asarray(idx.reshape(len(idx), k), device=dev),
                            wt.asarray(upd, device=dev))
        ref = base.copy()
        ref[tuple(idx.T)] = upd
        assert v.numpy().tolist() == ref.tolist()
