"""The Tensor object and wt.asarray / wt.frombuffer: attributes, creation from every kind of
source, dtype inference and conversion per promotion mode, copy semantics, the Python and NumPy
protocols, and the errors of each - on every CPU backend.

Expectations (webtensor's rules; NumPy only where it has the same answer):

* Python data without a dtype gives a *weak* tensor of the default dtype of its kind (int32,
  float32, complex64 unless changed); bool data is strong bool; mixed ints and floats give float.
  In ``numpy`` mode nothing is weak and the defaults are NumPy's 64-bit ones.
* An explicit dtype converts: Python ints out of the dtype's range wrap in ``standard`` mode and
  raise OverflowError in the other modes; floats to ints truncate toward zero, NaN -> 0 and
  saturate; complex to real drops the imaginary part; bfloat16 rounds via float32.
* ``copy=True`` always copies, ``copy=None`` only when needed (a tensor converts to itself),
  ``copy=False`` never copies: ValueError where it would have to (a dtype/device change, and
  foreign data - NumPy arrays, buffers, Python lists - which is always copied into a tensor).
* Bytes in and out are NumPy's layout for every dtype (NaN payloads included).
"""

from __future__ import annotations

import math
import operator
import struct

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import (
    ALL_DTYPES,
    backend_fixture,  # noqa: F401 - registers the `backend` fixture
    bf16_round_py,
    dtype_values,
    f16_round_py,
    f32_round_py,
    layouts,
    needs_numpy,
    np_storage_dtype,
    same_float,
    shapes,
    size_of,
    special_values,
    storage_array,
    tensor_from_storage,
)
from webtensor.tensor import Tensor

MODES = ("standard", "numpy", "all", "safe", "strict")
PROPERTY = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PY_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _same_list(got, expected):
    """Nested lists equal, floats bitwise (NaN == NaN, -0.0 != 0.0), Python types exact."""
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected):
            _same_list(g, e)
    elif isinstance(expected, float):
        assert type(got) is float and same_float(got, expected), (got, expected)
    elif isinstance(expected, complex):
        assert type(got) is complex, (got, expected)
        assert same_float(got.real, expected.real) and same_float(got.imag, expected.imag)
    else:
        assert type(got) is type(expected) and got == expected, (got, expected)


# -- attributes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_attributes(backend, dt):
    x = wt.asarray([[1, 0, 1], [0, 1, 1]], dtype=dt, device=backend)
    assert x.shape == (2, 3) and type(x.shape) is tuple
    assert all(type(s) is int for s in x.shape)
    assert x.dtype is dt
    assert (x.ndim, x.size, x.itemsize, x.nbytes) == (2, 6, dt.itemsize, 6 * dt.itemsize)
    assert x.device is backend
    assert x.weak is False
    assert x.names is None
    s = wt.asarray(1, dtype=dt, device=backend)
    assert (s.shape, s.ndim, s.size, s.nbytes) == ((), 0, 1, dt.itemsize)
    e = wt.asarray([[], []], dtype=dt, device=backend)
    assert (e.shape, e.ndim, e.size, e.nbytes) == ((2, 0), 2, 0, 0)


def test_weak_and_names_attributes(backend):
    x = wt.asarray([1, 2], device=backend)
    assert x.weak is True
    n = wt.asarray([[1, 2]], device=backend, names=("rows", None))
    assert n.names == ("rows", None)
    assert isinstance(x, Tensor)


def test_transpose_attributes(backend):
    x = wt.asarray([[1, 2, 3], [4, 5, 6]], dtype=wt.int32, device=backend)
    assert x.T.shape == (3, 2)
    assert x.T.tolist() == [[1, 4], [2, 5], [3, 6]]
    assert x.mT.tolist() == [[1, 4], [2, 5], [3, 6]]
    with pytest.raises(ValueError, match=r"\.T.*2-D.*\.mT"):
        _ = wt.asarray([1, 2, 3], device=backend).T
    with pytest.raises(ValueError, match=r"\.T"):
        _ = wt.asarray([[[1]]], device=backend).T
    s = wt.asarray([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=wt.int8, device=backend)
    assert s.mT.tolist() == [[[1, 3], [2, 4]], [[5, 7], [6, 8]]]
    with pytest.raises(ValueError):
        _ = wt.asarray([1, 2], device=backend).mT
    n = wt.asarray([[1, 2]], device=backend, names=("a", "b"))
    assert n.T.names == ("b", "a")


# -- asarray from Python data -----------------------------------------------------------------------

INFERENCE = [
    # (data, mode, dtype, weak)
    (1, "standard", wt.int32, True),
    (1.5, "standard", wt.float32, True),
    (1j, "standard", wt.complex64, True),
    (True, "standard", wt.bool, False),
    ([1, 2], "standard", wt.int32, True),
    ([1, 2.5], "standard", wt.float32, True),
    ([[1, 2], [3, 4.5]], "standard", wt.float32, True),
    ([1, 2j], "standard", wt.complex64, True),
    ([1.5, 2j], "standard", wt.complex64, True),
    ([True, False], "standard", wt.bool, False),
    ([True, 2], "standard", wt.int32, True),
    ([True, 2.5], "standard", wt.float32, True),
    ([], "standard", wt.float32, True),
    ([[], []], "standard", wt.float32, True),
    (1, "numpy", wt.int64, False),
    (1.5, "numpy", wt.float64, False),
    (1j, "numpy", wt.complex128, False),
    (True, "numpy", wt.bool, False),
    ([1, 2.5], "numpy", wt.float64, False),
    ([2 ** 40, -3], "numpy", wt.int64, False),
    (1, "all", wt.int32, True),
    (1.5, "all", wt.float32, True),
    (1, "strict", wt.int32, True),
    (1.5, "safe", wt.float32, True),
]


@pytest.mark.parametrize(("data", "mode", "dtype", "weak"), INFERENCE,
                         ids=[f"{c[1]}-{c[0]!r}" for c in INFERENCE])
def test_inference(backend, data, mode, dtype, weak):
    with wt.promotion_mode(mode):
        x = wt.asarray(data, device=backend)
    assert x.dtype is dtype
    assert x.weak is weak
    assert x.device is backend


def test_inference_follows_default_dtypes(backend):
    with wt.set_default_int_dtype(wt.int64), wt.set_default_float_dtype(wt.float64):
        x = wt.asarray([2 ** 40, 1], device=backend)
        assert (x.dtype, x.weak) == (wt.int64, True)
        assert x.tolist() == [2 ** 40, 1]
        assert wt.asarray(0.1, device=backend).tolist() == 0.1
    with wt.set_default_complex_dtype(wt.complex128):
        assert wt.asarray(1j, device=backend).dtype is wt.complex128
    assert wt.asarray(1, device=backend).dtype is wt.int32


@pytest.mark.parametrize("mode", ["standard", "all", "safe", "strict"])
def test_inference_out_of_range_python_int(backend, mode):
    with wt.promotion_mode(mode), pytest.raises(OverflowError, match=r"2147483648.*int32"):
        wt.asarray([1, 2 ** 31], device=backend)
    with wt.promotion_mode("numpy"), pytest.raises(OverflowError, match="int64"):
        wt.asarray(2 ** 63, device=backend)
    # a float among them makes it a float tensor: no int range applies
    x = wt.asarray([2 ** 31, 0.5], device=backend)
    assert x.dtype is wt.float32 and x.tolist() == [2147483648.0, 0.5]


def test_nested_sequences_shapes_and_values(backend):
    x = wt.asarray([[1, 2, 3], [4, 5, 6]], device=backend)
    assert x.shape == (2, 3) and x.tolist() == [[1, 2, 3], [4, 5, 6]]
    t = wt.asarray(((1, 2), [3, 4]), device=backend)  # tuples and lists mix
    assert t.shape == (2, 2) and t.tolist() == [[1, 2], [3, 4]]
    e = wt.asarray([[[]]], device=backend)
    assert e.shape == (1, 1, 0) and e.tolist() == [[[]]]
    z = wt.asarray([[], [], []], dtype=wt.int8, device=backend)
    assert z.shape == (3, 0) and z.tolist() == [[], [], []]
    s = wt.asarray(7, device=backend)
    assert s.shape == () and s.tolist() == 7
    c = wt.asarray([[1 + 2j], [3.5]], device=backend)
    _same_list(c.tolist(), [[1 + 2j], [3.5 + 0j]])


def re_escape(s):
    """The position exactly: ``[1]`` must not match the start of ``[1][1]``."""
    import re

    return re.escape(s) + r"(?!\[)"


RAGGED = [
    ([[1, 2], [3]], "[1]"),
    ([[1, 2], 3], "[1]"),
    ([1, [2]], "[1]"),
    ([[1, 2], [3, [4, 5]]], "[1][1]"),
    ([[[1], [2]], [[3], [4, 5]]], "[1][1]"),
    ([[1, 2], [3, 4], [5, 6, 7]], "[2]"),
    ([[], [1]], "[1]"),
]


@pytest.mark.parametrize(("data", "where"), RAGGED, ids=[str(i) for i in range(len(RAGGED))])
def test_ragged_sequences_name_the_position(backend, data, where):
    with pytest.raises(ValueError, match=r"wt\.asarray: ragged.*element " + re_escape(where)):
        wt.asarray(data, device=backend)
    with pytest.raises(ValueError, match="ragged"):
        wt.asarray(data, dtype=wt.float32, device=backend)


@pytest.mark.parametrize("bad", ["abc", None, [1, None], [1, "2"], {1, 2}, object(), [[1], [b"x"]]],
                         ids=["str", "None", "list-None", "list-str", "set", "object", "bytes"])
def test_unconvertible_elements(backend, bad):
    with pytest.raises(TypeError, match=r"wt\.asarray"):
        wt.asarray(bad, device=backend)


def test_copy_false_for_python_data(backend):
    with pytest.raises(ValueError, match=r"copy=False"):
        wt.asarray([1, 2], copy=False, device=backend)
    assert wt.asarray([1, 2], copy=True, device=backend).tolist() == [1, 2]


def test_unknown_device_and_dtype(backend):
    with pytest.raises(ValueError, match=r"unknown device 'tpu'"):
        wt.asarray([1], device="tpu")
    with pytest.raises(TypeError, match=r"dtype='int7' is not a data type"):
        wt.asarray([1], dtype="int7", device=backend)


# -- explicit dtype conversion ----------------------------------------------------------------------

WRAPS = [
    (300, wt.uint8, 44), (-1, wt.uint8, 255), (128, wt.int8, -128), (-129, wt.int8, 127),
    (2 ** 63, wt.int64, -(2 ** 63)), (2 ** 64 + 5, wt.uint64, 5), (-1, wt.uint64, 2 ** 64 - 1),
    (2 ** 32, wt.uint32, 0), (65536 + 7, wt.int16, 7),
]


@pytest.mark.parametrize(("value", "dt", "wrapped"), WRAPS, ids=[f"{v}-{d}" for v, d, _ in WRAPS])
@pytest.mark.parametrize("mode", MODES)
def test_explicit_int_dtype_overflow_per_mode(backend, mode, value, dt, wrapped):
    """A Python int that does not fit an explicit dtype is an OverflowError in every mode
    (it used to wrap in the standard one, silently); casting a tensor still wraps."""
    with wt.promotion_mode(mode):
        with pytest.raises(OverflowError, match=rf"{value}.*{dt.name}"):
            wt.asarray([value, 1], dtype=dt, device=backend)
        with pytest.raises(OverflowError, match=rf"{dt.name}"):
            wt.asarray(value, dtype=dt, device=backend)
        wide = wt.asarray([value, 1], dtype=wt.float64 if abs(value) >= 2 ** 63 else wt.int64,
                          device=backend)
        if wide.dtype is wt.int64 and dt.itemsize < 8:
            assert wt.astype(wide, dt).tolist() == [wrapped, 1]
        info = wt.iinfo(dt)  # the extremes themselves are fine in every mode
        assert wt.asarray([info.min, info.max], dtype=dt, device=backend).tolist() == \
            [info.min, info.max]


CONVERSIONS = [
    # (value, dtype, expected Python value)
    (2.7, wt.int32, 2), (-2.7, wt.int32, -2), (math.nan, wt.int32, 0), (1e10, wt.int32, 2 ** 31 - 1),
    (-1e10, wt.int32, -(2 ** 31)), (math.inf, wt.uint8, 255), (-math.inf, wt.int64, -(2 ** 63)),
    (-1.5, wt.uint16, 0), (255.9, wt.uint8, 255), (1e300, wt.uint64, 2 ** 64 - 1),
    (1.5, wt.bool, True), (0.0, wt.bool, False), (math.nan, wt.bool, True), (-0.0, wt.bool, False),
    (2, wt.bool, True), (0j, wt.bool, False), (1j, wt.bool, True),
    (1 + 2j, wt.float64, 1.0), (1 + 2j, wt.int8, 1), (3, wt.complex64, 3 + 0j),
    (True, wt.float32, 1.0), (False, wt.int8, 0), (True, wt.complex128, 1 + 0j),
    (0.1, wt.float32, f32_round_py(0.1)), (0.1, wt.float16, f16_round_py(0.1)),
    (0.1, wt.bfloat16, bf16_round_py(0.1)), (1e40, wt.float32, math.inf),
    (70000.0, wt.float16, math.inf), (65519.0, wt.float16, 65504.0), (1e-50, wt.float32, 0.0),
    (-1e-50, wt.float32, -0.0), (2 ** 70, wt.float32, float(2 ** 70)),
    (2 ** 24 + 1, wt.float32, float(2 ** 24)), (2 ** 60 + 2 ** 36 + 1, wt.float32, 2.0 ** 60 + 2.0 ** 37),
    (3.5e38, wt.bfloat16, math.inf), (-0.0, wt.bfloat16, -0.0), (1.00390625, wt.bfloat16, 1.0),
    (1.01171875, wt.bfloat16, 1.015625), (2 ** 64 - 1, wt.float64, 1.8446744073709552e19),
]


@pytest.mark.parametrize(("value", "dt", "expected"), CONVERSIONS,
                         ids=[f"{v!r}-{d}" for v, d, _ in CONVERSIONS])
def test_explicit_dtype_conversion(backend, value, dt, expected):
    for mode in ("standard", "numpy"):  # only Python ints out of range depend on the mode
        with wt.promotion_mode(mode):
            x = wt.asarray(value, dtype=dt, device=backend)
            assert (x.dtype, x.weak, x.shape) == (dt, False, ())
            _same_list(x.item(), expected)
            _same_list(wt.asarray([value], dtype=dt, device=backend).tolist(), [expected])


@needs_numpy
@PROPERTY
@given(data=st.data())
def test_python_values_round_trip_every_dtype(backend, data):
    """Values exact in a dtype come back unchanged through asarray(..., dtype) and tolist."""
    dt = data.draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = data.draw(shapes(), label="shape")
    n = size_of(shape)
    values = data.draw(st.lists(dtype_values(dt), min_size=n, max_size=n), label="values")
    values = [_canonical_nan(v) for v in values]  # NaN payloads of Python floats: unspecified
    nested = _nest(values, shape)
    x = wt.asarray(nested, dtype=dt, device=backend)
    if 0 in shape:  # nested lists end at the first empty level: (0, 2) is just []
        shape = shape[:shape.index(0) + 1]
    assert x.shape == shape and x.dtype is dt
    expected = nested if shape else values[0]
    if dt.kind in "fc":
        expected = _nest([PY_TYPE[dt.kind](v) for v in values], shape) if shape else \
            PY_TYPE[dt.kind](values[0])
    _same_list(x.tolist(), expected)
    assert x.tobytes() == storage_array(values, dt).tobytes()


def _canonical_nan(v):
    if isinstance(v, float) and math.isnan(v):
        return math.copysign(math.nan, v)
    if isinstance(v, complex):
        return complex(_canonical_nan(v.real), _canonical_nan(v.imag))
    return v


def _nest(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = size_of(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


# -- names ------------------------------------------------------------------------------------------

def test_names_validation(backend):
    x = wt.asarray([[1, 2]], device=backend, names=["a", "b"])
    assert x.names == ("a", "b")
    assert wt.asarray([[1, 2]], device=backend, names=(None, None)).names is None
    with pytest.raises(ValueError, match=r"1 axis names.*2-D"):
        wt.asarray([[1, 2]], device=backend, names=("a",))
    with pytest.raises(ValueError, match="axis names"):
        wt.asarray(1, device=backend, names=("a",))
    with pytest.raises(TypeError, match=r"strings or None.*3"):
        wt.asarray([[1, 2]], device=backend, names=("a", 3))
    with pytest.raises(ValueError, match="duplicate axis names"):
        wt.asarray([[1, 2]], device=backend, names=("a", "a"))
    y = wt.asarray(x, names=("c", None))
    assert y.names == ("c", None) and x.names == ("a", "b")


# -- bytes and buffers ------------------------------------------------------------------------------

def test_frombuffer_and_bytes(backend):
    raw = struct.pack("<3f", 1.5, -2.0, 0.25)
    x = wt.frombuffer(raw, device=backend)
    assert (x.dtype, x.shape, x.weak) == (wt.float32, (3,), False)
    assert x.tolist() == [1.5, -2.0, 0.25]
    assert x.tobytes() == raw
    y = wt.frombuffer(bytearray(raw), dtype=wt.float32, count=2, offset=4, device=backend)
    assert y.tolist() == [-2.0, 0.25]
    assert wt.frombuffer(memoryview(raw), dtype="uint8", device=backend).shape == (12,)
    assert wt.frombuffer(raw, dtype=wt.int16, count=0, device=backend).shape == (0,)
    assert wt.frombuffer(b"", dtype=wt.float64, device=backend).shape == (0,)
    b = wt.asarray(b"\x01\x02\xff", device=backend)
    assert (b.dtype, b.tolist()) == (wt.uint8, [1, 2, 255])
    # a buffer's elements are converted (bytes hold uint8); wt.frombuffer reinterprets
    h = wt.asarray(b"\x01\x00\xff\xff", dtype=wt.int16, device=backend)
    assert h.tolist() == [1, 0, 255, 255]
    assert wt.frombuffer(b"\x01\x00\xff\xff", dtype=wt.int16, device=backend).tolist() == [1, -1]
    assert wt.asarray(bytearray(b"\x07"), device=backend).tolist() == [7]
    n = wt.asarray(b"\x01\x02", device=backend, names=("bytes",))
    assert n.names == ("bytes",)
    source = bytearray(b"\x01\x02")
    c = wt.asarray(source, device=backend)
    source[0] = 9  # the tensor holds a copy
    assert c.tolist() == [1, 2]


def test_frombuffer_errors(backend):
    raw = bytes(10)
    with pytest.raises(ValueError, match=r"buffer size 10.*multiple.*float32.*4"):
        wt.frombuffer(raw, dtype=wt.float32, device=backend)
    with pytest.raises(ValueError, match=r"offset 11.*10 bytes"):
        wt.frombuffer(raw, dtype=wt.uint8, offset=11, device=backend)
    with pytest.raises(ValueError, match=r"offset -1"):
        wt.frombuffer(raw, dtype=wt.uint8, offset=-1, device=backend)
    with pytest.raises(ValueError, match=r"3 items of float32 need 12 bytes.*10"):
        wt.frombuffer(raw, dtype=wt.float32, count=3, device=backend)
    with pytest.raises(TypeError):
        wt.frombuffer([1, 2, 3], dtype=wt.uint8, device=backend)
    with pytest.raises(ValueError, match="copy=False"):
        wt.asarray(raw, copy=False, device=backend)
    with pytest.raises(ValueError, match=r"buffer size 3.*int16"):
        wt.frombuffer(b"abc", dtype=wt.int16, device=backend)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_bytes_round_trip_exactly(backend, dt):
    """Every bit pattern of the dtype survives frombuffer -> tobytes (NaN payloads too)."""
    n = 64
    raw = bytes((i * 37 + 11) % 256 for i in range(n * dt.itemsize))
    if dt is wt.bool:
        raw = bytes(b % 2 for b in raw)
    x = wt.frombuffer(raw, dtype=dt, device=backend)
    assert x.tobytes() == raw
    assert wt.frombuffer(x.tobytes(), dtype=dt, device=backend).tobytes() == raw


@pytest.mark.parametrize("dt", [d for d in ALL_DTYPES if d.kind in "fc"], ids=str)
def test_special_float_values_round_trip(backend, dt):
    """NaN of both signs, +-inf, -0.0, subnormals, max: exact through asarray and tolist."""
    vals = special_values(dt)
    x = wt.asarray(vals, dtype=dt, device=backend)
    _same_list(x.tolist(), [PY_TYPE[dt.kind](v) for v in vals])
    y = wt.frombuffer(x.tobytes(), dtype=dt, device=backend)
    assert y.tobytes() == x.tobytes()
    _same_list(y.tolist(), x.tolist())


# -- NumPy arrays -----------------------------------------------------------------------------------

NUMPY_DTYPES = [dt for dt in ALL_DTYPES if dt is not wt.bfloat16]


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_from_numpy_every_dtype(backend, dt):
    np = pytest.importorskip("numpy")
    arr = (np.arange(12) - 5).astype(dt.name).reshape(3, 4)
    if dt.kind == "f":
        arr[0, 0] = np.nan
        arr[0, 1] = -np.inf
        arr[0, 2] = -0.0
    x = wt.asarray(arr, device=backend)
    assert (x.dtype, x.shape, x.weak, x.device) == (dt, (3, 4), False, backend)
    assert x.tobytes() == arr.tobytes()
    back = x.numpy()
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == arr.tobytes()
    assert np.asarray(x).tobytes() == arr.tobytes()
    assert np.asarray(x).dtype == arr.dtype
    # non-contiguous, reversed and big-endian sources
    view = arr[::-1, ::2]
    assert wt.asarray(view, device=backend).tobytes() == np.ascontiguousarray(view).tobytes()
    if arr.dtype.itemsize > 1:
        big = arr.astype(arr.dtype.newbyteorder(">"))
        assert wt.asarray(big, device=backend).tobytes() == arr.tobytes()
    # 0-d arrays and NumPy scalars are strong 0-d tensors
    s = wt.asarray(arr[1, 1], device=backend)
    assert (s.shape, s.dtype, s.weak) == ((), dt, False)
    z = wt.asarray(np.asarray(arr[2, 3]), device=backend)
    assert (z.shape, z.dtype) == ((), dt)
    e = wt.asarray(arr[:0], device=backend)
    assert (e.shape, e.dtype) == ((0, 4), dt)


def test_from_numpy_conversions_and_copies(backend):
    np = pytest.importorskip("numpy")
    arr = np.array([1.7, -2.5, np.nan, 300.0])
    x = wt.asarray(arr, dtype=wt.uint8, device=backend)
    assert x.dtype is wt.uint8 and x.tolist() == [1, 0, 0, 255]
    x = wt.asarray(arr, dtype=wt.float32, device=backend)
    assert x.tolist()[:2] == [f32_round_py(1.7), -2.5]
    named = wt.asarray(arr, names=("n",), device=backend)
    assert named.names == ("n",)
    for copy in (None, True):
        t = wt.asarray(arr, copy=copy, device=backend)
        arr[0] = 42.0
        assert t.tolist()[0] != 42.0  # the tensor owns a copy
        arr[0] = 1.7
    with pytest.raises(ValueError, match="copy=False"):
        wt.asarray(arr, copy=False, device=backend)
    s = wt.asarray(np.float32(1.5), device=backend)
    assert (s.dtype, s.weak, s.item()) == (wt.float32, False, 1.5)
    b = wt.asarray(np.bool_(True), device=backend)
    assert (b.dtype, b.item()) == (wt.bool, True)
    m = wt.asarray([np.float32(1.5), 2], device=backend)  # a strong NumPy scalar inside a list
    assert m.dtype is wt.float32 and m.tolist() == [1.5, 2.0]
    for bad in (np.array(["a"]), np.array([1, "a"], dtype=object),
                np.array(["2020-01-01"], dtype="datetime64[D]")):
        with pytest.raises(TypeError, match=r"NumPy dtype .* no webtensor equivalent"):
            wt.asarray(bad, device=backend)


def test_numpy_interop_of_bfloat16_and_views(backend):
    np = pytest.importorskip("numpy")
    x = wt.asarray([1.0, 0.1, -3.5], dtype=wt.bfloat16, device=backend)
    a = np.asarray(x)
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        assert a.dtype == np.float32
    assert [float(v) for v in a] == [1.0, bf16_round_py(0.1), -3.5]
    base = np.arange(12, dtype=np.int16)
    t = tensor_from_storage(base.reshape(3, 4), wt.int16, backend, layout=((-1, 2), 3))
    assert t.tobytes() == base.reshape(3, 4).tobytes()
    assert np.array_equal(np.asarray(t), base.reshape(3, 4))
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(t, copy=False)
    c = x.numpy()
    c[0] = 7  # a copy: the tensor is unchanged
    assert x.tolist()[0] == 1.0


@needs_numpy
@PROPERTY
@given(data=st.data())
def test_tobytes_tolist_match_numpy_on_views(backend, data):
    """Strided and reversed views read back exactly as NumPy reads the same view."""
    import numpy as np

    dt = data.draw(st.sampled_from(ALL_DTYPES), label="dtype")
    shape = data.draw(shapes(max_side=4), label="shape")
    n = size_of(shape)
    values = data.draw(st.lists(dtype_values(dt), min_size=n, max_size=n), label="values")
    layout = data.draw(st.one_of(st.none(), layouts(len(shape))), label="layout")
    storage = storage_array(values, dt, shape)
    x = tensor_from_storage(storage, dt, backend, layout=layout)
    assert x.tobytes() == storage.tobytes()
    if dt is wt.bfloat16:
        ref = (storage.astype(np.uint32) << 16).view(np.float32).tolist()
    else:
        ref = storage.tolist()
    _same_list(x.tolist(), ref)
    if dt is wt.bfloat16:
        expanded = (storage.astype(np.uint32) << 16).view(np.float32)
        assert x.numpy().astype(np.float32).tobytes() == expanded.tobytes()
    else:
        assert x.numpy().tobytes() == storage.tobytes()
        assert x.numpy().dtype == np_storage_dtype(dt)
    c = wt.asarray(x, copy=True)
    assert c.tobytes() == storage.tobytes()


# -- from other tensors -----------------------------------------------------------------------------

def test_from_tensor_copy_semantics(backend):
    x = wt.asarray([1, 2, 3], dtype=wt.int32, device=backend)
    assert wt.asarray(x) is x
    assert wt.asarray(x, copy=False) is x
    assert wt.asarray(x, dtype=wt.int32, copy=False) is x
    c = wt.asarray(x, copy=True)
    assert c is not x and c.tolist() == [1, 2, 3] and c.dtype is wt.int32
    x += 10  # the copy does not share the buffer
    assert c.tolist() == [1, 2, 3] and x.tolist() == [11, 12, 13]
    f = wt.asarray(x, dtype=wt.float32)
    assert (f.dtype, f.weak, f.tolist()) == (wt.float32, False, [11.0, 12.0, 13.0])
    with pytest.raises(ValueError, match=r"copy=False.*float32"):
        wt.asarray(x, dtype=wt.float32, copy=False)
    w = wt.asarray([1, 2], device=backend)
    assert wt.asarray(w).weak is True
    assert wt.asarray(w, copy=True).weak is True
    s = wt.asarray(w, dtype=wt.int32)  # an explicit dtype gives a strong tensor, like JAX
    assert (s.dtype, s.weak, s.tolist()) == (wt.int32, False, [1, 2]) and w.weak
    assert wt.asarray(w, dtype=wt.int32, copy=False).weak is False
    sc = wt.asarray(w, dtype=wt.int32, copy=True)
    w += 1
    assert sc.tolist() == [1, 2] and w.tolist() == [2, 3]
    assert wt.asarray(w, dtype=wt.int64).weak is False
    t = wt.tensor([1.5], device=backend)
    assert t.dtype is wt.float32 and wt.tensor is wt.asarray


def test_from_tensor_conversions_use_cast_rules(backend):
    x = wt.asarray([1.7, -1.7, math.nan, 1e10, -math.inf], dtype=wt.float64, device=backend)
    assert wt.asarray(x, dtype=wt.int32).tolist() == [1, -1, 0, 2 ** 31 - 1, -(2 ** 31)]
    assert wt.asarray(x, dtype=wt.uint8).tolist() == [1, 0, 0, 255, 0]
    assert wt.asarray(x, dtype=wt.bool).tolist() == [True, True, True, True, True]
    i = wt.asarray([300, -1], dtype=wt.int32, device=backend)
    assert wt.asarray(i, dtype=wt.uint8).tolist() == [44, 255]  # tensors wrap in every mode
    with wt.promotion_mode("numpy"):
        assert wt.asarray(i, dtype=wt.uint8).tolist() == [44, 255]


def test_tensors_inside_lists(backend):
    a = wt.asarray([1, 2], dtype=wt.int8, device=backend)
    x = wt.asarray([a, a], device=backend)
    assert x.shape == (2, 2) and x.tolist() == [[1, 2], [1, 2]]
    assert x.dtype is wt.int8  # a strong tensor inside decides the dtype
    y = wt.asarray([a, [3, 4]], device=backend)
    assert y.tolist() == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match="ragged"):
        wt.asarray([a, [1, 2, 3]], device=backend)


def test_to_device(backend):
    from webtensor.device import Device

    x = wt.asarray([1.5, -0.0], dtype=wt.float32, device=backend)
    assert x.to_device(backend) is x
    other = Device("other", type(backend.backend))
    y = x.to_device(other)
    assert y.device is other and y.tobytes() == x.tobytes() and y.dtype is wt.float32
    assert wt.asarray(x, device=other).device is other
    with pytest.raises(ValueError, match="copy=False"):
        wt.asarray(x, device=other, copy=False)
    with pytest.raises(ValueError, match="unknown device"):
        x.to_device("gpu:7")


# -- the Python protocol ----------------------------------------------------------------------------

def test_bool(backend):
    assert bool(wt.asarray(True, device=backend)) is True
    assert bool(wt.asarray([0.0], device=backend)) is False
    assert bool(wt.asarray([[3]], device=backend)) is True
    assert bool(wt.asarray(0j, device=backend)) is False
    assert bool(wt.asarray(math.nan, device=backend)) is True
    with pytest.raises(TypeError, match=r"bool\(\).*\(2,\).*ambiguous.*wt\.any / wt\.all"):
        bool(wt.asarray([1, 2], device=backend))
    with pytest.raises(TypeError, match=r"bool\(\).*\(0,\)"):
        bool(wt.asarray([], device=backend))
    with pytest.raises(TypeError, match="ambiguous"):
        if wt.asarray([1, 2], device=backend) > 0:
            pass


def test_int_float_complex(backend):
    assert int(wt.asarray(2.7, device=backend)) == 2
    assert int(wt.asarray(-2.7, device=backend)) == -2
    assert type(int(wt.asarray(True, device=backend))) is int
    assert int(wt.asarray([2 ** 64 - 1], dtype=wt.uint64, device=backend)) == 2 ** 64 - 1
    assert float(wt.asarray(3, dtype=wt.int8, device=backend)) == 3.0
    assert type(float(wt.asarray(3, device=backend))) is float
    assert complex(wt.asarray(1.5, device=backend)) == 1.5 + 0j
    assert complex(wt.asarray(1 - 2j, device=backend)) == 1 - 2j
    with pytest.raises(TypeError, match=r"int\(\) of a complex tensor.*wt\.real"):
        int(wt.asarray(1 + 0j, device=backend))
    with pytest.raises(TypeError, match=r"float\(\) of a complex tensor"):
        float(wt.asarray(1j, device=backend))
    with pytest.raises(TypeError, match=r"int\(\).*\(2,\)"):
        int(wt.asarray([1, 2], device=backend))
    with pytest.raises(TypeError, match=r"float\(\).*\(0,\)"):
        float(wt.asarray([], device=backend))
    with pytest.raises(ValueError):
        int(wt.asarray(math.nan, device=backend))  # like int(float('nan'))
    with pytest.raises(OverflowError):
        int(wt.asarray(math.inf, device=backend))


def test_index(backend):
    i = wt.asarray(2, dtype=wt.int64, device=backend)
    assert operator.index(i) == 2
    assert [10, 20, 30][i] == 30
    assert list(range(wt.asarray(3, dtype=wt.uint8, device=backend))) == [0, 1, 2]
    assert "abcdef"[wt.asarray(1, device=backend):wt.asarray(3, device=backend)] == "bc"
    with pytest.raises(TypeError, match=r"only integer tensors.*float32.*astype"):
        operator.index(wt.asarray(2.0, device=backend))
    with pytest.raises(TypeError, match=r"bool"):
        operator.index(wt.asarray(True, device=backend))
    with pytest.raises(TypeError, match=r"index\(\).*\(2,\)"):
        operator.index(wt.asarray([1, 2], device=backend))


def test_len_and_iter(backend):
    x = wt.asarray([[1, 2], [3, 4], [5, 6]], dtype=wt.int16, device=backend)
    assert len(x) == 3
    assert len(wt.asarray([], device=backend)) == 0
    rows = list(x)
    assert len(rows) == 3 and all(isinstance(r, Tensor) for r in rows)
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    assert rows[0].dtype is wt.int16
    assert [e.tolist() for e in wt.asarray([7, 8], device=backend)] == [7, 8]
    assert list(wt.asarray([[]], device=backend))[0].shape == (0,)
    s = wt.asarray(5, device=backend)
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d tensor.*item"):
        len(s)
    with pytest.raises(TypeError, match=r"iteration over a 0-d tensor"):
        iter(s)
    with pytest.raises(TypeError, match="0-d"):
        for _ in s:
            pass


def test_hash_and_equality(backend):
    x = wt.asarray([1], device=backend)
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    with pytest.raises(TypeError):
        {x}  # noqa: B018


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_tolist_and_item_types(backend, dt):
    x = wt.asarray([[1, 0, 1]], dtype=dt, device=backend)
    got = x.tolist()
    assert isinstance(got, list) and isinstance(got[0], list)
    assert all(type(v) is PY_TYPE[dt.kind] for v in got[0])
    assert got == [[PY_TYPE[dt.kind](1), PY_TYPE[dt.kind](0), PY_TYPE[dt.kind](1)]]
    one = wt.asarray([[1]], dtype=dt, device=backend)
    assert type(one.item()) is PY_TYPE[dt.kind] and one.item() == 1
    assert type(wt.asarray(1, dtype=dt, device=backend).tolist()) is PY_TYPE[dt.kind]
    with pytest.raises(ValueError, match=r"item.*exactly one element.*\(1, 3\)"):
        x.item()
    with pytest.raises(ValueError, match=r"\(0,\)"):
        wt.asarray([], dtype=dt, device=backend).item()


def test_tolist_of_empty_shapes(backend):
    for shape, expected in (((0,), []), ((2, 0), [[], []]), ((0, 3), []),
                            ((2, 0, 3), [[], []]), ((1, 2, 0), [[[], []]])):
        x = wt.zeros(shape, dtype=wt.int8, device=backend)
        assert x.shape == shape
        assert x.tolist() == expected


def test_tobytes_matches_struct_layout(backend):
    """NumPy-free check of the byte layout: little endian, bool one byte, complex (re, im)."""
    cases = [
        (wt.bool, [True, False], b"\x01\x00"),
        (wt.int8, [-1, 2], struct.pack("<2b", -1, 2)),
        (wt.uint16, [1, 65535], struct.pack("<2H", 1, 65535)),
        (wt.int32, [-2, 7], struct.pack("<2i", -2, 7)),
        (wt.int64, [-(2 ** 63), 5], struct.pack("<2q", -(2 ** 63), 5)),
        (wt.uint64, [2 ** 64 - 1], struct.pack("<Q", 2 ** 64 - 1)),
        (wt.float16, [1.5, -0.0], struct.pack("<2e", 1.5, -0.0)),
        (wt.bfloat16, [1.0, -2.0], b"\x80\x3f\x00\xc0"),
        (wt.float32, [0.1], struct.pack("<f", 0.1)),
        (wt.float64, [math.inf], struct.pack("<d", math.inf)),
        (wt.complex64, [1 - 2j], struct.pack("<2f", 1.0, -2.0)),
        (wt.complex128, [0.5j], struct.pack("<2d", 0.0, 0.5)),
    ]
    for dt, values, raw in cases:
        x = wt.asarray(values, dtype=dt, device=backend)
        assert x.tobytes() == raw, dt
        assert wt.frombuffer(raw, dtype=dt, device=backend).tolist() == x.tolist()


def test_array_namespace_and_dlpack(backend):
    x = wt.asarray([1], device=backend)
    assert x.__array_namespace__() is wt
    assert x.__array_namespace__(api_version="2024.12") is wt
    assert x.__array_namespace__(api_version="2023.12") is wt
    with pytest.raises(ValueError, match=r"unsupported api_version '2099.01'.*2024\.12"):
        x.__array_namespace__(api_version="2099.01")
    if backend.name == "webgpu":  # DLPack itself: tests/test_dlpack.py
        assert x.__dlpack_device__() == (15, 0)
        with pytest.raises(BufferError, match="move it to the cpu first"):
            x.__dlpack__()
    else:
        assert x.__dlpack_device__() == (1, 0)
        assert "dltensor" in repr(x.__dlpack__())
    assert wt.__array_api_version__ == "2024.12"


def test_format_and_repr(backend):
    assert f"{wt.asarray(1.23456, device=backend):.2f}" == "1.23"
    assert f"{wt.asarray([7], dtype=wt.int8, device=backend):03d}" == "007"
    x = wt.asarray([1, 2], device=backend)
    assert f"{x}" == str(x)
    assert format(x, ">30") == format(str(x), ">30")
    for dt in ALL_DTYPES:  # repr and str work for every dtype (their format: test_format.py)
        t = wt.asarray([1, 0], dtype=dt, device=backend)
        assert isinstance(repr(t), str) and isinstance(str(t), str)
    assert "weak=True" in repr(wt.asarray([1.5], device=backend))
    assert "weak" not in repr(wt.asarray([1.5], dtype=wt.float32, device=backend))


@pytest.mark.parametrize("dt", wt.all_int_dtypes, ids=str)
def test_integer_extremes_are_exact(backend, dt):
    info = wt.iinfo(dt)
    x = wt.asarray([info.min, info.max], dtype=dt, device=backend)
    assert x.tolist() == [info.min, info.max]
    assert int(wt.asarray(info.max, dtype=dt, device=backend)) == info.max
    assert operator.index(wt.asarray(info.min, dtype=dt, device=backend)) == info.min
