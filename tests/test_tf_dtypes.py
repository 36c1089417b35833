"""tf.DType: TensorFlow's dtype objects, their properties and where they are accepted.

The property table is TensorFlow 2.21's (printed once from ``tf.<name>.<property>``); limits
are checked against NumPy's ``iinfo``/``finfo``.  Acceptance is checked on every device.
"""

from __future__ import annotations

import pickle

import pytest

import webtensor as wt
import webtensor.tf as tf

np = pytest.importorskip("numpy")



# name: (enum, floating, integer, complex, quantized, unsigned, bool, numeric, size, real, stored)
TABLE = {
    "float16": (19, True, False, False, False, False, False, True, 2, "float16", wt.float16),
    "bfloat16": (14, True, False, False, False, False, False, True, 2, "bfloat16", wt.bfloat16),
    "float32": (1, True, False, False, False, False, False, True, 4, "float32", wt.float32),
    "float64": (2, True, False, False, False, False, False, True, 8, "float64", wt.float64),
    "int8": (6, False, True, False, False, False, False, True, 1, "int8", wt.int8),
    "int16": (5, False, True, False, False, False, False, True, 2, "int16", wt.int16),
    "int32": (3, False, True, False, False, False, False, True, 4, "int32", wt.int32),
    "int64": (9, False, True, False, False, False, False, True, 8, "int64", wt.int64),
    "uint8": (4, False, True, False, False, True, False, True, 1, "uint8", wt.uint8),
    "uint16": (17, False, True, False, False, True, False, True, 2, "uint16", wt.uint16),
    "uint32": (22, False, True, False, False, True, False, True, 4, "uint32", wt.uint32),
    "uint64": (23, False, True, False, False, True, False, True, 8, "uint64", wt.uint64),
    "bool": (10, False, False, False, False, False, True, False, 1, "bool", wt.bool),
    "complex64": (8, False, False, True, False, False, False, True, 8, "float32", wt.complex64),
    "complex128": (18, False, False, True, False, False, False, True, 16, "float64",
                   wt.complex128),
    "qint8": (11, False, False, False, True, False, False, True, 1, "qint8", wt.int8),
    "quint8": (12, False, False, False, True, False, False, True, 1, "quint8", wt.uint8),
    "qint16": (15, False, False, False, True, False, False, True, 2, "qint16", wt.int16),
    "quint16": (16, False, False, False, True, False, False, True, 2, "quint16", wt.uint16),
    "qint32": (13, False, False, False, True, False, False, True, 4, "qint32", wt.int32),
    "string": (7, False, False, False, False, False, False, False, 0, "string", None),
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_properties_match_tensorflow(name):
    d = getattr(tf, name)
    enum, floating, integer, cplx, quantized, unsigned, is_bool, numeric, size, real, stored = \
        TABLE[name]
    assert isinstance(d, tf.DType) and d.name == name and d.as_datatype_enum == enum
    assert (d.is_floating, d.is_integer, d.is_complex, d.is_quantized, d.is_unsigned,
            d.is_bool, d.is_numeric) == (floating, integer, cplx, quantized, unsigned, is_bool,
                                         numeric)
    assert d.size == size and d.real_dtype is getattr(tf, real) and d.base_dtype is d
    assert repr(d) == f"tf.{name}" and str(d) == f"<dtype: '{name}'>"
    assert tf.as_dtype(name) is d and tf.as_dtype(enum) is d and tf.as_dtype(d) is d
    assert pickle.loads(pickle.dumps(d)) is d
    if stored is None:
        with pytest.raises(TypeError, match="no string tensors"):
            _ = d.storage
    else:
        assert d.storage is stored and wt.dtype(d) is stored


@pytest.mark.parametrize("name", sorted(TABLE))
def test_limits(name):
    d = getattr(tf, name)
    stored = TABLE[name][-1]
    if name in ("bool", "string", "complex64", "complex128") or d.is_quantized:
        for attr in ("min", "max", "limits"):
            with pytest.raises(TypeError, match=name):
                getattr(d, attr)
        return
    if d.is_integer:
        info = np.iinfo(stored.name)
        assert (d.min, d.max) == (int(info.min), int(info.max))
    elif name == "bfloat16":
        assert d.max == -d.min == (2 - 2 ** -7) * 2.0 ** 127  # 3.38953e38, as TensorFlow prints
    else:
        info = np.finfo(stored.name)
        assert (d.min, d.max) == (float(info.min), float(info.max))
    assert d.limits == (d.min, d.max)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_as_numpy_dtype(name):
    d = getattr(tf, name)
    if name == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        assert d.as_numpy_dtype is ml_dtypes.bfloat16
    elif name == "string":
        assert d.as_numpy_dtype is np.object_
    else:  # quantized types give their storage's type (TensorFlow: a one-field record)
        assert d.as_numpy_dtype is np.dtype(TABLE[name][-1].name).type


def test_aliases_and_spellings():
    assert tf.half is tf.float16 and tf.double is tf.float64
    cases = {"half": tf.float16, "float": tf.float32, "double": tf.float64, "uint8": tf.uint8,
             np.int16: tf.int16, np.dtype("float32"): tf.float32, float: tf.float32,
             bool: tf.bool, "bfloat16": tf.bfloat16, "qint8": tf.qint8, 1: tf.float32,
             19: tf.float16, "string": tf.string, object: tf.string, wt.uint32: tf.uint32,
             " Float64 ": tf.float64}
    for spelling, d in cases.items():
        assert tf.as_dtype(spelling) is d, spelling


@pytest.mark.parametrize("bad", ["int", int, complex, str, bytes, "float99", 3.5, 99, None,
                                 True])
def test_as_dtype_refuses(bad):
    with pytest.raises(TypeError, match="tf.as_dtype: cannot convert"):
        tf.as_dtype(bad)


def test_equality():
    assert tf.qint8 != tf.int8 and not (tf.qint8 == tf.int8)
    assert tf.quint8 != tf.uint8 and tf.qint32 != tf.int32
    assert tf.float32 == "float32" and tf.float32 != "float64" and tf.float32 == np.float32
    assert tf.float32 == wt.float32 and wt.float32 == tf.float32
    assert tf.float32 != None  # noqa: E711 - TensorFlow's answer
    assert tf.float32 != "not a dtype" and tf.float32 != 3.5
    assert tf.qint8 != wt.int8  # a quantized type is not its storage in TensorFlow's terms
    assert len({tf.float32, tf.float32, tf.half, tf.float16}) == 2
    assert tf.float32.is_compatible_with(np.float32)
    assert not tf.float32.is_compatible_with(tf.int32)
    assert not tf.float32.is_compatible_with("nonsense")


def test_webtensor_functions_take_tf_dtypes(dev):
    assert wt.zeros(2, dtype=tf.float16, device=dev).dtype is wt.float16
    assert wt.zeros(2, dtype=tf.qint8, device=dev).dtype is wt.int8
    x = wt.asarray([1.5, -2.5], device=dev)
    assert wt.astype(x, tf.bfloat16).dtype is wt.bfloat16
    assert wt.result_type(tf.int8, tf.int16) is wt.int16
    assert wt.can_cast(tf.int8, tf.int32)
    with pytest.raises(TypeError, match="string"):
        wt.zeros(2, dtype=tf.string, device=dev)


def test_tensors_compare_equal_to_tf_dtypes(dev):
    with wt.set_default_device(dev):
        t = tf.constant([1.0, 2.0])
        assert t.dtype == tf.float32 and t.dtype != tf.float64 and t.device is dev
        assert tf.cast(t, tf.qint8).dtype == tf.int8  # stored as int8
        assert tf.constant(3, dtype=tf.quint8).dtype is wt.uint8
        assert tf.zeros([2], tf.qint16).dtype is wt.int16
        q, lo, hi = tf.quantize_v2(t, 0.0, 2.0, tf.qint16)
        assert q.dtype is wt.int16 and q.device is dev
        assert tf.string_to_number("7", out_type=tf.int64).dtype is wt.int64
        assert tf.string_to_number("7", out_type="float64").dtype is wt.float64
        with pytest.raises(TypeError, match="tf.cast: dtype=tf.string"):
            tf.cast(t, tf.string)
        with pytest.raises(TypeError, match="tf.cast: dtype=.*not a data type but a value"):
            tf.cast(t, t)
