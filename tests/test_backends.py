"""Backend-level tests: every primitive of the contract, called directly, on every dtype.

Two sections:

* NumPy-free (runs under Pyodide too): the pure-Python backend against exact Python reference
  computations and ``struct`` byte layouts.
* With NumPy: the pure-Python backend equals the NumPy backend bit for bit (``to_bytes``) on
  hypothesis-drawn values (NaN, inf, -0.0, subnormals, extremes) and views (0-d, size-0,
  strided, negative strides, stride-0 broadcasts, offsets); transcendental ops within 2 ULP.
  The NumPy backend is also compared with plain NumPy where NumPy defines the answer
  (bfloat16: float32 NumPy rounded to bfloat16).
"""

from __future__ import annotations

import functools
import math
import operator
import struct
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import bf16_bits_py, bf16_round_py, dtype_values, f16_round_py, f32_round_py
from webtensor import ops
from webtensor import shape as _s
from webtensor.backends import _pycodec
from webtensor.backends._philox import philox_block
from webtensor.backends.cpu_python import PythonBackend
from webtensor.device import Device
from webtensor.tensor import Tensor, empty

PY = Device("cpu", PythonBackend)
ALL = tuple(wt.all_dtypes)
INTS = tuple(wt.all_int_dtypes)
FLOATS = tuple(wt.all_float_dtypes)
NAN, INF = math.nan, math.inf

# Small example counts keep the module under a minute; WEBTENSOR_HYPOTHESIS=thorough (a profile
# with 1000 examples) scales them up tenfold.
_SCALE = max(1, settings.default.max_examples // 100)
FEW = settings(max_examples=15 * _SCALE)
SOME = settings(max_examples=30 * _SCALE)


# -- building views ---------------------------------------------------------------------------------

@dataclass
class View:
    """A strided view over a buffer of canonical values (the same on every device)."""

    dt: object
    shape: tuple
    strides: tuple
    offset: int
    buffer: list

    def on(self, device) -> Tensor:
        data = device.backend.from_bytes(self.dt, _pycodec.to_bytes(self.buffer, self.dt))
        return Tensor._wrap(data, self.shape, self.dt, device, strides=self.strides,
                            offset=self.offset)

    @property
    def values(self) -> list:
        """The view's elements in C order."""
        return [self.buffer[o] for o in _s.flat_offsets(self.shape, self.strides, self.offset)]


def _layout(shape, steps, pad):
    """Strides and offset of a view with per-axis ``steps`` (0: broadcast) into a buffer."""
    big = tuple(abs(s) * n if s else 1 for s, n in zip(steps, shape))
    base = _s.contiguous_strides(big)
    strides = tuple(s * b for s, b in zip(steps, base))
    offset = pad
    if _s.size_of(shape):
        offset += sum((n - 1) * -st_ for n, st_ in zip(shape, strides) if st_ < 0)
    return strides, offset, pad + _s.size_of(big)


@st.composite
def views(draw, dt, shape=None, *, max_dims=3, max_side=4, min_side=0, finite=False,
          bound=None, contiguous=False, values=None):
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(min_side, max_side), max_size=max_dims)))
    if contiguous:
        steps, pad = (1,) * len(shape), 0
    else:
        steps = tuple(draw(st.sampled_from((1, 1, 2, -1, -2, 0))) for _ in shape)
        pad = draw(st.sampled_from((0, 0, 1, 3)))
    strides, offset, size = _layout(shape, steps, pad)
    strat = values if values is not None else dtype_values(dt, finite=finite, bound=bound)
    buf = draw(st.lists(strat, min_size=size, max_size=size))
    return View(dt, tuple(shape), strides, offset, buf)


def run(device, fn_name, out_shape, out_dt, *args, **kwargs) -> Tensor:
    """Call the primitive ``fn_name`` with a fresh ``out`` (after the op name for the op-first
    primitives: ``unary(op, out, x)``); return ``out``."""
    out = empty(tuple(out_shape), out_dt, device)
    if out.size:
        fn = getattr(device.backend, fn_name)
        if fn_name in _OP_FIRST:
            fn(args[0], out, *args[1:], **kwargs)
        else:
            fn(out, *args, **kwargs)
    return out


_OP_FIRST = ("unary", "binary", "reduce", "arg_reduce", "scan")


def py_values(t: Tensor) -> list:
    return PY.backend.to_values(t)


def same(a, b) -> bool:
    """Bitwise equality of Python scalars (NaN == NaN, the sign of zero counts)."""
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    if isinstance(a, float):
        if a != a:
            return b != b
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b and type(a) is type(b)


def wrap(v: int, dt) -> int:
    bits = dt.bits
    v &= (1 << bits) - 1
    if dt.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


# =====================================================================================================
# NumPy-free section
# =====================================================================================================

_STRUCT = {wt.bool: "?", wt.int8: "b", wt.int16: "h", wt.int32: "i", wt.int64: "q",
           wt.uint8: "B", wt.uint16: "H", wt.uint32: "I", wt.uint64: "Q", wt.float16: "e",
           wt.float32: "f", wt.float64: "d"}


def _struct_bytes(vals, dt) -> bytes:
    if dt is wt.bfloat16:
        return b"".join(struct.pack("<H", bf16_bits_py(v)) for v in vals)
    if dt.kind == "c":
        code = "f" if dt is wt.complex64 else "d"
        return b"".join(struct.pack(f"<{code}{code}", z.real, z.imag) for z in vals)
    return struct.pack(f"<{len(vals)}{_STRUCT[dt]}", *vals)


@pytest.mark.parametrize("dt", ALL, ids=str)
@FEW
@given(data=st.data())
def test_byte_layout_is_numpys(dt, data):
    vals = data.draw(st.lists(dtype_values(dt), max_size=8))
    buf = PY.backend.from_values(dt, vals)
    t = Tensor._wrap(buf, (len(vals),), dt, PY)
    raw = PY.backend.to_bytes(t)
    assert len(raw) == len(vals) * dt.itemsize
    size = dt.itemsize
    for i, v in enumerate(vals):
        got = raw[i * size:(i + 1) * size]
        if v != v:  # NaN: the payload of a NaN is the C casts' business
            back = PY.backend.from_bytes(dt, got)[0]
            parts = (back.real, back.imag) if dt.kind == "c" else (back,)
            assert any(p != p for p in parts)
            continue
        assert got == _struct_bytes([v], dt), (v, got)
    back = PY.backend.from_bytes(dt, raw)
    assert all(same(a, b) for a, b in zip(back, vals)) and len(back) == len(vals)


def test_rounding_edges():
    b = PY.backend
    f16 = b.from_values(wt.float16, [65519.0, 65520.0, -1e6, 2.0 ** -25, 2.0 ** -25 * 1.5,
                                      1 + 2 ** -11 + 2 ** -40])
    assert f16 == [65504.0, INF, -INF, 0.0, 2.0 ** -24, 1 + 2 ** -10]
    f32 = b.from_values(wt.float32, [3.4028235677973366e38, 3.4028235e38, 1e-46, -1e39])
    assert f32 == [INF, 3.4028234663852886e38, 0.0, -INF]
    # bfloat16 goes through float32: 1 + 2**-8 + 2**-30 rounds to float32 1 + 2**-8 (a tie)...
    bf = b.from_values(wt.bfloat16, [1 + 2 ** -8 + 2 ** -30, 1 + 3 * 2 ** -8, 3.4e38, NAN])
    assert bf[:3] == [1.0, 1 + 2 ** -6, INF] and bf[3] != bf[3]
    t = Tensor._wrap(bf, (4,), wt.bfloat16, PY)
    assert b.to_bytes(t)[-2:] == struct.pack("<H", 0x7FC0)


@pytest.mark.parametrize("v", [2 ** 60 + 2 ** 36 + 1, -(2 ** 60 + 2 ** 36 + 1), 2 ** 53 + 1,
                               2 ** 63 - 1, 2 ** 64 - 1, 2 ** 127 * 3, 2 ** 200])
def test_int_to_float32_is_correctly_rounded(v):
    """float(v) rounds to float64 first; a float32 tie there would round the wrong way."""
    a = abs(v)
    n = a.bit_length()
    if n > 128:
        expected = INF
    else:
        shift = max(n - 24, 0)
        q, r = divmod(a, 1 << shift)
        half = 1 << shift >> 1
        if r > half or (r == half and shift and q & 1):
            q += 1
        expected = float(q << shift) if (q << shift) < 2 ** 128 else INF
    expected = math.copysign(expected, v)
    assert PY.backend.from_values(wt.float32, [v]) == [expected]
    if -(2 ** 63) <= v < 2 ** 64:
        src_dt = wt.int64 if v < 2 ** 63 else wt.uint64
        x = Tensor._wrap(PY.backend.from_values(src_dt, [v]), (1,), src_dt, PY)
        assert py_values(run(PY, "cast", (1,), wt.float32, x)) == [expected]
        c = py_values(run(PY, "cast", (1,), wt.complex64, x))[0]
        assert c == complex(expected, 0)


def test_float_to_int_truncates_saturates_and_maps_nan_to_zero():
    vals = [NAN, -NAN, INF, -INF, 2.9, -2.9, -0.0, 1e20, -1e20, 127.5, -128.9, 255.9, 256.0]
    for dt, expected in [
        (wt.int8, [0, 0, 127, -128, 2, -2, 0, 127, -128, 127, -128, 127, 127]),
        (wt.uint8, [0, 0, 255, 0, 2, 0, 0, 255, 0, 127, 0, 255, 255]),
        (wt.int64, [0, 0, 2 ** 63 - 1, -(2 ** 63), 2, -2, 0, 2 ** 63 - 1, -(2 ** 63), 127, -128,
                    255, 256]),
        (wt.uint64, [0, 0, 2 ** 64 - 1, 0, 2, 0, 0, 2 ** 64 - 1, 0, 127, 0, 255, 256]),
    ]:
        assert PY.backend.from_values(dt, vals) == expected, dt
        x = Tensor._wrap(PY.backend.from_values(wt.float64, vals), (len(vals),), wt.float64, PY)
        assert py_values(run(PY, "cast", (len(vals),), dt, x)) == expected, dt


_INT_OPS = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "floor_divide": lambda a, b: a // b if b else 0,
    "remainder": lambda a, b: a % b if b else 0,
    "maximum": max, "minimum": min, "bitwise_and": operator.and_, "bitwise_xor": operator.xor,
}


@pytest.mark.parametrize("dt", INTS, ids=str)
@SOME
@given(data=st.data())
def test_python_int_ops_match_exact_arithmetic(dt, data):
    n = data.draw(st.integers(0, 6))
    a = data.draw(st.lists(dtype_values(dt), min_size=n, max_size=n))
    b = data.draw(st.lists(dtype_values(dt), min_size=n, max_size=n))
    ta = Tensor._wrap(PY.backend.from_values(dt, a), (n,), dt, PY)
    tb = Tensor._wrap(PY.backend.from_values(dt, b), (n,), dt, PY)
    for name, fn in _INT_OPS.items():
        got = py_values(run(PY, "binary", (n,), dt, name, ta, tb))
        assert got == [wrap(fn(x, y), dt) for x, y in zip(a, b)], name
    got = py_values(run(PY, "binary", (n,), dt, "bitwise_left_shift", ta, tb))
    assert got == [wrap(x << y, dt) if 0 <= y < dt.bits else 0 for x, y in zip(a, b)]
    got = py_values(run(PY, "binary", (n,), dt, "bitwise_right_shift", ta, tb))
    assert got == [x >> y if 0 <= y < dt.bits else (-1 if x < 0 else 0) for x, y in zip(a, b)]
    got = py_values(run(PY, "binary", (n,), dt, "pow", ta, tb))
    assert got == [wrap(pow(x, y, 1 << 64), dt) if y >= 0 else
                   (1 if x == 1 else (-1) ** (y % 2) if x == -1 else 0) for x, y in zip(a, b)]
    if n:
        got = py_values(run(PY, "reduce", (), dt, "sum", ta, (0,)))
        assert got == [wrap(sum(a), dt)]
        got = py_values(run(PY, "reduce", (), dt, "prod", ta, (0,)))
        assert got == [wrap(math.prod(a), dt)]
        got = py_values(run(PY, "scan", (n,), dt, "sum", ta, 0))
        assert got == [wrap(sum(a[:i + 1]), dt) for i in range(n)]


_ROUND = {wt.float16: f16_round_py, wt.bfloat16: bf16_round_py, wt.float32: f32_round_py,
          wt.float64: float}


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@SOME
@given(data=st.data())
def test_python_float_ops_round_once(dt, data):
    """+, -, *, / and sqrt equal the exactly rounded result; sums accumulate in float64 left to
    right and round once."""
    n = data.draw(st.integers(1, 6))
    a = data.draw(st.lists(dtype_values(dt, finite=True), min_size=n, max_size=n))
    b = data.draw(st.lists(dtype_values(dt, finite=True), min_size=n, max_size=n))
    r = _ROUND[dt]
    ta = Tensor._wrap(PY.backend.from_values(dt, a), (n,), dt, PY)
    tb = Tensor._wrap(PY.backend.from_values(dt, b), (n,), dt, PY)
    for name, fn in [("add", operator.add), ("subtract", operator.sub),
                     ("multiply", operator.mul)]:
        got = py_values(run(PY, "binary", (n,), dt, name, ta, tb))
        assert all(same(g, r(fn(x, y))) for g, x, y in zip(got, a, b)), name
    got = py_values(run(PY, "binary", (n,), dt, "divide", ta, tb))
    for g, x, y in zip(got, a, b):
        if y:
            assert same(g, r(x / y))
    got = py_values(run(PY, "reduce", (), dt, "sum", ta, (0,)))
    assert same(got[0], r(functools.reduce(operator.add, a)))
    got = py_values(run(PY, "unary", (n,), dt, "sqrt", ta))
    assert all(same(g, r(math.sqrt(x))) for g, x in zip(got, a) if x >= 0)


def test_python_nan_and_signed_zero_rules():
    b = PY.backend
    f = Tensor._wrap(b.from_values(wt.float32, [1.0, NAN, -0.0, 0.0, 2.0, NAN, -1.0]), (7,),
                     wt.float32, PY)
    assert py_values(run(PY, "arg_reduce", (), wt.int64, "argmax", f, 0)) == [1]
    assert py_values(run(PY, "arg_reduce", (), wt.int64, "argmin", f, 0)) == [1]
    m = py_values(run(PY, "reduce", (), wt.float32, "max", f, (0,)))[0]
    assert m != m
    z = f._view((2,), (1,), 2)  # [-0.0, 0.0]
    assert same(py_values(run(PY, "reduce", (), wt.float32, "max", z, (0,)))[0], 0.0)
    assert same(py_values(run(PY, "reduce", (), wt.float32, "min", z, (0,)))[0], -0.0)
    ab = f._view((2,), (1,), 2)
    ba = f._view((2,), (-1,), 3)
    assert [math.copysign(1, v) for v in py_values(run(PY, "binary", (2,), wt.float32,
                                                       "maximum", ab, ba))] == [1, 1]
    assert [math.copysign(1, v) for v in py_values(run(PY, "binary", (2,), wt.float32,
                                                       "minimum", ab, ba))] == [-1, -1]
    srt = py_values(run(PY, "sort", (7,), wt.float32, f, 0, False))
    assert srt[:5] == [-1.0, -0.0, 0.0, 1.0, 2.0] and all(v != v for v in srt[5:])
    assert math.copysign(1, srt[1]) == -1  # stable: -0.0 came first
    assert py_values(run(PY, "argsort", (7,), wt.int64, f, 0, True)) == [1, 5, 4, 0, 2, 3, 6]
    assert py_values(run(PY, "argsort", (7,), wt.int64, f, 0, False)) == [6, 2, 3, 0, 4, 1, 5]


@SOME
@given(vals=st.lists(st.integers(-3, 3), max_size=12), desc=st.booleans())
def test_python_sort_is_stable_in_both_directions(vals, desc):
    t = Tensor._wrap(PY.backend.from_values(wt.int16, vals), (len(vals),), wt.int16, PY)
    got = py_values(run(PY, "argsort", (len(vals),), wt.int64, t, 0, desc))
    expected = sorted(range(len(vals)), key=lambda i: -vals[i] if desc else vals[i])
    assert got == expected


def test_python_views_strided_negative_broadcast():
    b = PY.backend
    buf = b.from_values(wt.int32, list(range(24)))
    x = Tensor._wrap(buf, (2, 3, 4), wt.int32, PY)
    v = x._view((3, 2), (-4, 9), 11)  # negative and odd strides with an offset
    assert py_values(v) == [11, 20, 7, 16, 3, 12]
    bc = x._view((2, 3), (0, 1), 5)
    assert py_values(bc) == [5, 6, 7, 5, 6, 7]
    out = run(PY, "unary", (2, 3), wt.int32, "negative", bc)
    assert py_values(out) == [-5, -6, -7, -5, -6, -7]
    # assign into a strided target leaves the rest of the buffer alone
    target = x._view((2, 2), (-12, 2), 12 + 1)
    b.assign(target, bc._view((2, 2), (0, 1), 5))
    assert buf[13] == 5 and buf[15] == 6 and buf[1] == 5 and buf[3] == 6 and buf[2] == 2
    assert py_values(x._view((0, 3), (3, 1), 0)) == []
    assert b.to_bytes(x._view((), (), 7)) == struct.pack("<i", 7)


def test_python_matmul_gather_scatter_random():
    b = PY.backend
    a = Tensor._wrap(b.from_values(wt.int8, [1, 2, 3, 4, 5, 6]), (2, 3), wt.int8, PY)
    bt = Tensor._wrap(b.from_values(wt.int8, [100, 1, 100, 1, 100, 1]), (3, 2), wt.int8, PY)
    assert py_values(run(PY, "matmul", (2, 2), wt.int8, a, bt)) == [
        wrap(600, wt.int8), 6, wrap(1500, wt.int8), 15]
    x = Tensor._wrap(b.from_values(wt.float64, [10.0, 20.0, 30.0]), (3,), wt.float64, PY)
    idx = Tensor._wrap(b.from_values(wt.int64, [2, -1, 0, 0]), (4,), wt.int64, PY)
    assert py_values(run(PY, "gather", (4,), wt.float64, x, 0, idx)) == [30.0, 30.0, 10.0, 10.0]
    upd = Tensor._wrap(b.from_values(wt.float64, [1.0, 2.0, 3.0, 4.0]), (4,), wt.float64, PY)
    for op, expected in [("set", [4.0, 20.0, 2.0]), ("add", [17.0, 20.0, 33.0]),
                         ("max", [10.0, 20.0, 30.0]), ("min", [3.0, 20.0, 1.0])]:
        out = Tensor._wrap(b.from_values(wt.float64, [10.0, 20.0, 30.0]), (3,), wt.float64, PY)
        b.scatter(op, out, 0, idx, upd)
        assert py_values(out) == expected, op
    with pytest.raises(IndexError, match="out of bounds"):
        bad = Tensor._wrap(b.from_values(wt.int64, [3]), (1,), wt.int64, PY)
        run(PY, "gather", (1,), wt.float64, x, 0, bad)
    words = py_values(run(PY, "random_bits", (6,), wt.uint32, (7, 9), 5))
    assert words == list(philox_block((7, 9), (5, 0, 0, 0)) + philox_block((7, 9), (6, 0, 0, 0))
                         )[:6]
    with pytest.raises(TypeError, match="complex"):
        c = Tensor._wrap(b.from_values(wt.complex64, [1j]), (1,), wt.complex64, PY)
        run(PY, "reduce", (), wt.complex64, "max", c, (0,))


def test_python_iota_fill_where():
    b = PY.backend
    assert py_values(run(PY, "iota", (4,), wt.uint8, 250, 3)) == [250, 253, 0, 3]
    assert py_values(run(PY, "iota", (3,), wt.uint64, 2 ** 64 - 1, 1)) == [2 ** 64 - 1, 0, 1]
    assert py_values(run(PY, "iota", (3,), wt.float32, 0, 0.1)) == [
        0.0, f32_round_py(0.1), f32_round_py(0.2)]
    assert py_values(run(PY, "iota", (2,), wt.complex128, 1j, 1 + 1j)) == [1j, 1 + 2j]
    assert py_values(run(PY, "fill", (2,), wt.int8, 300)) == [44, 44]
    assert py_values(run(PY, "fill", (2,), wt.bool, NAN)) == [True, True]
    c = Tensor._wrap(b.from_values(wt.bool, [True, False]), (2,), wt.bool, PY)
    x = Tensor._wrap(b.from_values(wt.int8, [1, 2]), (2,), wt.int8, PY)
    y = x._view((2,), (0,), 1)
    assert py_values(run(PY, "where", (2,), wt.int8, c, x, y)) == [1, 2]


def test_python_backend_errors_are_clear():
    b = PY.backend
    x = Tensor._wrap(b.from_values(wt.float32, [1.0]), (1,), wt.float32, PY)
    with pytest.raises(TypeError, match="bitwise_and.*float32"):
        run(PY, "binary", (1,), wt.float32, "bitwise_and", x, x)
    with pytest.raises(ValueError, match="unknown op"):
        run(PY, "unary", (1,), wt.float32, "frobnicate", x)
    with pytest.raises(TypeError, match="uint32"):
        run(PY, "random_bits", (1,), wt.int32, (0, 0), 0)
    with pytest.raises(ValueError, match="whole number"):
        b.from_bytes(wt.int32, b"abc")


# =====================================================================================================
# With NumPy: the two backends agree bit for bit; the NumPy backend agrees with NumPy
# =====================================================================================================

try:
    import numpy as np

    from webtensor.backends.cpu_numpy import NumpyBackend
except ImportError:  # Pyodide without NumPy: only the section above runs
    np = NumpyBackend = None

from _oracle import mismatch_mask  # noqa: E402 - NumPy is imported lazily inside

needs_numpy = pytest.mark.skipif(np is None, reason="needs NumPy")
NP = Device("cpu", NumpyBackend) if np is not None else None

# NumPy's own float64 SIMD tanh is up to 3 ULP away from the C library's (the Python backend's).
_ULP = {"tanh": 3}
_STORAGE_NP = {wt.bfloat16: "uint16"}


def np_storage(t: Tensor):
    return np.frombuffer(t.tobytes(), dtype=_STORAGE_NP.get(t.dtype, t.dtype.name)).reshape(
        t.shape)


def np_values(t: Tensor):
    """Values NumPy can compute with (bfloat16 as float32)."""
    s = np_storage(t)
    if t.dtype is wt.bfloat16:
        return (s.astype(np.uint32) << 16).view(np.float32)
    return s


def assert_backends_agree(tn: Tensor, tp: Tensor, context: str, *, ulp=0, complex_eps=0,
                          nan_bits=True):
    """Bitwise equality (NaN payload and sign included unless ``nan_bits`` is False: which NaN
    an operation on two NaNs returns is up to the hardware and NumPy's loop order); with
    ``ulp``/``complex_eps`` a tolerance for transcendental results."""
    assert tn.shape == tp.shape and tn.dtype is tp.dtype
    bn, bp = tn.tobytes(), tp.tobytes()
    if bn == bp:
        return
    dt = tn.dtype
    sn, sp = np_storage(tn), np_storage(tp)
    if complex_eps and dt.kind == "c":
        a = sn.astype(np.complex128)
        b = sp.astype(np.complex128)
        with np.errstate(all="ignore"):
            err = np.abs(a - b)
            scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), wt.finfo(dt).smallest_normal)
            bad = ~(err <= complex_eps * wt.finfo(dt).eps * scale)
        bad &= ~((a != a) & (b != b))
        bad &= ~(np.isinf(a) & np.isinf(b))  # C99 special cases: both infinite is enough
    elif ulp and dt.kind in "fc":
        bad = mismatch_mask(sn, sp, dt, ulp=ulp)
    else:
        bad = mismatch_mask(sn, sp, dt, ulp=0) if dt.kind in "fc" else sn != sp
        if dt.kind in "fc" and nan_bits is not False and not np.any(bad):
            # Any NaN matches any NaN only for ops that compute a NaN; data movement and exact
            # arithmetic must keep the bits.
            bad = (sn.reshape(-1).view(np.uint8) != sp.reshape(-1).view(np.uint8)).reshape(
                sn.shape + (-1,)).any(axis=-1)
            if nan_bits is not True:  # a mask of positions whose NaN bits may differ
                bad &= ~np.asarray(nan_bits)
    if np.any(bad):
        i = np.argwhere(np.asarray(bad))[:4]
        vn = np_values(tn)
        vp = np_values(tp)
        rows = [f"  at {tuple(int(k) for k in j)}: numpy {vn[tuple(j)]!r} python "
                f"{vp[tuple(j)]!r}" for j in i]
        raise AssertionError(f"{context}: backends differ in {int(np.sum(bad))} of "
                             f"{np.size(bad)} elements\n" + "\n".join(rows))


def both(fn_name, out_shape, out_dt, *views_and_args, context="", ulp=0, complex_eps=0,
         nan_bits=True, **kwargs):
    """Run one primitive on both backends (View arguments become tensors on each device) and
    assert the outputs agree; returns (numpy_out, python_out)."""
    outs = []
    for dev in (NP, PY):
        args = [a.on(dev) if isinstance(a, View) else a for a in views_and_args]
        outs.append(run(dev, fn_name, out_shape, out_dt, *args, **kwargs))
    assert_backends_agree(*outs, context or fn_name, ulp=ulp, complex_eps=complex_eps,
                          nan_bits=nan_bits)
    return outs


def _both_nan(a: View, b: View):
    """Positions where both operands are NaN (the result may be either NaN)."""
    va, vb = np_values(a.on(NP)), np_values(b.on(NP))
    return np.broadcast_to((va != va) & (vb != vb), va.shape)


def _out_dtype(op, dt):
    if op.result == "bool":
        return wt.bool
    if op.result == "real":
        return dt.real_dtype
    if op.result == "complex":
        return dt.complex_dtype
    return dt


def _input_dtypes(op):
    kinds = op.kinds
    if op.result == "float":
        kinds = "".join(k for k in kinds if k in "fc")
    return [dt for dt in ALL if dt.kind in kinds]


# Complex results of multi-step libm-style formulas: compared normwise.
def _tolerance(name, dt):
    if name in ops.TRANSCENDENTAL:
        if dt.kind == "c":
            return {"complex_eps": 64 if name == "pow" else 16}
        return {"ulp": _ULP.get(name, 2) if dt is wt.float64 else 2}
    return {}


def _bounded(name, dt):
    """Complex transcendental inputs stay finite and moderate (C99 Annex G special cases and
    cancellation make componentwise comparison meaningless there)."""
    return dt.kind == "c" and name in ops.TRANSCENDENTAL


UNARY_CASES = [(op.name, dt) for op in ops.UNARY for dt in _input_dtypes(op)]
BINARY_CASES = [(op.name, dt) for op in ops.BINARY for dt in _input_dtypes(op)]


def _special_grid(dt, bounded):
    from _oracle import special_values

    vals = special_values(dt, finite=bounded)
    if bounded:
        vals = [v for v in vals if abs(v) <= 1e3]
    return vals


@needs_numpy
@pytest.mark.parametrize(("name", "dt"), UNARY_CASES, ids=[f"{n}-{d}" for n, d in UNARY_CASES])
def test_unary_special_values_agree(name, dt):
    op = ops.ELEMENTWISE[name]
    vals = _special_grid(dt, _bounded(name, dt))
    v = View(dt, (len(vals),), (1,), 0, vals)
    both("unary", (len(vals),), _out_dtype(op, dt), name, v, context=f"{name}({dt})",
         **_tolerance(name, dt))


@needs_numpy
@pytest.mark.parametrize(("name", "dt"), BINARY_CASES,
                         ids=[f"{n}-{d}" for n, d in BINARY_CASES])
def test_binary_special_values_agree(name, dt):
    op = ops.ELEMENTWISE[name]
    vals = _special_grid(dt, _bounded(name, dt))
    n = len(vals)
    a = View(dt, (n, n), (0, 1), 0, vals)  # a[i, j] = vals[j], b[i, j] = vals[i]
    b = View(dt, (n, n), (1, 0), 0, vals)
    both("binary", (n, n), _out_dtype(op, dt), name, a, b, context=f"{name}({dt})",
         nan_bits=_both_nan(a, b), **_tolerance(name, dt))


@needs_numpy
@pytest.mark.parametrize("name", [op.name for op in ops.UNARY])
@FEW
@given(data=st.data())
def test_unary_random_views_agree(name, data):
    op = ops.ELEMENTWISE[name]
    dt = data.draw(st.sampled_from(_input_dtypes(op)))
    x = data.draw(views(dt, finite=_bounded(name, dt), bound=1e3 if _bounded(name, dt) else None))
    both("unary", x.shape, _out_dtype(op, dt), name, x, context=f"{name}({dt})",
         **_tolerance(name, dt))


@st.composite
def view_pair(draw, dt, bounded=False):
    """Two views whose shapes broadcast to a common shape (broadcast with stride 0)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    kw = {"finite": bounded, "bound": 1e3 if bounded else None}
    a = draw(views(dt, shape, **kw))
    b = draw(views(dt, shape, **kw))
    return a, b


@needs_numpy
@pytest.mark.parametrize("name", [op.name for op in ops.BINARY])
@FEW
@given(data=st.data())
def test_binary_random_views_agree(name, data):
    op = ops.ELEMENTWISE[name]
    dt = data.draw(st.sampled_from(_input_dtypes(op)))
    a, b = data.draw(view_pair(dt, _bounded(name, dt)))
    both("binary", a.shape, _out_dtype(op, dt), name, a, b, context=f"{name}({dt})",
         nan_bits=_both_nan(a, b), **_tolerance(name, dt))


@needs_numpy
@pytest.mark.parametrize("src", ALL, ids=str)
@FEW
@given(data=st.data())
def test_cast_all_pairs_agree_and_match_reference(src, data):
    from _oracle import ref_cast, to_storage

    x = data.draw(views(src))
    for dst in ALL:
        tn, _ = both("cast", x.shape, dst, x, context=f"cast {src} -> {dst}")
        expected = to_storage(ref_cast(np_values(x.on(NP)), dst), dst)
        assert not np.any(mismatch_mask(np_storage(tn), np.asarray(expected).reshape(x.shape),
                                        dst)), f"cast {src} -> {dst}"


@needs_numpy
@pytest.mark.parametrize("dt", ALL, ids=str)
@FEW
@given(data=st.data())
def test_memory_and_movement_agree(dt, data):
    x = data.draw(views(dt))
    tn, tp = x.on(NP), x.on(PY)
    assert tn.tobytes() == tp.tobytes()
    assert all(same(a, b) for a, b in zip(NP.backend.to_values(tn), PY.backend.to_values(tp)))
    assert len(NP.backend.to_values(tn)) == tn.size
    both("copy", x.shape, dt, x)
    # Python scalars of every kind, including ints far outside the range of the dtype.
    scalars = data.draw(st.lists(st.one_of(dtype_values(dt), st.integers(-(2 ** 70), 2 ** 70),
                                           st.floats(), st.booleans(),
                                           st.complex_numbers(allow_nan=True)), max_size=6))
    if dt.kind not in "c":
        scalars = [s for s in scalars if not isinstance(s, complex)] + [1.5 + 2j]
    raw_n = NP.backend.from_values(dt, scalars)
    raw_p = PY.backend.from_values(dt, scalars)
    tn = Tensor._wrap(raw_n, (len(scalars),), dt, NP)
    tp = Tensor._wrap(raw_p, (len(scalars),), dt, PY)
    assert_backends_agree(tn, tp, f"from_values {dt} {scalars}")
    value = data.draw(st.one_of(dtype_values(dt), st.integers(-(2 ** 66), 2 ** 66)))
    both("fill", (2, 3), dt, value, context=f"fill {dt} {value!r}")
    start = data.draw(st.one_of(st.integers(-(2 ** 65), 2 ** 65), st.floats(-1e6, 1e6)))
    step = data.draw(st.one_of(st.integers(-(2 ** 40), 2 ** 40), st.floats(-1e3, 1e3)))
    both("iota", (7,), dt, start, step, context=f"iota {dt} {start!r} {step!r}")


@needs_numpy
@pytest.mark.parametrize("dt", ALL, ids=str)
@FEW
@given(data=st.data())
def test_assign_and_where_agree(dt, data):
    src = data.draw(views(dt))
    target = data.draw(views(dt, src.shape, values=dtype_values(dt)))
    outs = []
    for dev in (NP, PY):
        t = target.on(dev)
        dev.backend.assign(t, src.on(dev))
        whole = Tensor._wrap(t._data, (len(target.buffer),), dt, dev)
        outs.append(whole)
    assert_backends_agree(*outs, f"assign {dt}")
    cond = data.draw(views(wt.bool, src.shape))
    both("where", src.shape, dt, cond, src, target, context=f"where {dt}")


def _reduction_dtypes(op):
    if op in ("max", "min"):
        return [dt for dt in ALL if dt.kind != "c"]
    return list(ALL)


@needs_numpy
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "any", "all"])
@SOME
@given(data=st.data())
def test_reduce_agrees_and_matches_numpy(op, data):
    dt = data.draw(st.sampled_from(_reduction_dtypes(op)))
    x = data.draw(views(dt, min_side=1, bound=4.0 if op == "prod" and dt.kind in "fc" else None))
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(len(x.shape) - 1, 0)),
                                          max_size=len(x.shape)))))
    out_shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    out_dt = wt.bool if op in ("any", "all") else dt
    tn, _ = both("reduce", out_shape, out_dt, op, x, axes, context=f"{op}{axes} {dt}",
                 nan_bits=op not in ("sum", "prod"))
    # Against plain NumPy: exact for ints/bool and max/min (up to the sign of zero); sums and
    # products of floats within rounding (NumPy sums pairwise in the dtype, we in float64).
    v = np_values(x.on(NP))
    fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "any": np.any,
          "all": np.all}[op]
    kwargs = {"dtype": v.dtype} if op in ("sum", "prod") and dt.kind in "iu" else {}
    if dt.kind == "b" and op in ("sum", "prod"):
        fn, kwargs = (np.any if op == "sum" else np.all), {}
    with np.errstate(all="ignore"):
        expected = np.asarray(fn(v, axis=axes, **kwargs))
        got = np_values(tn)
        if dt.kind in "fc" and op in ("sum", "prod"):
            expected = expected.astype(got.dtype)
            if dt is wt.bfloat16:
                from _oracle import bf16_round

                expected = bf16_round(expected)
            close = np.isclose(got, expected, rtol=2e-2 if dt in (wt.float16, wt.bfloat16)
                               else 1e-5, atol=0, equal_nan=True)
            close |= np.isinf(got) | np.isinf(expected)  # overflow order-dependent
            assert close.all(), (op, dt, got, expected)
        elif dt.kind == "f":
            assert ((got == expected) | (np.isnan(got) & np.isnan(expected))).all()
        else:
            assert (got == expected).all()


@needs_numpy
@pytest.mark.parametrize("op", ["argmax", "argmin"])
@SOME
@given(data=st.data())
def test_arg_reduce_agrees_and_matches_numpy(op, data):
    dt = data.draw(st.sampled_from(ALL))
    x = data.draw(views(dt, min_side=1, values=st.sampled_from(
        _special_grid(dt, False)[:6]) if data.draw(st.booleans()) else None))
    if not x.shape:
        return
    axis = data.draw(st.integers(0, len(x.shape) - 1))
    out_shape = tuple(n for i, n in enumerate(x.shape) if i != axis)
    tn, _ = both("arg_reduce", out_shape, wt.int64, op, x, axis, context=f"{op} {dt}")
    expected = getattr(np, op)(np_values(x.on(NP)), axis=axis)
    assert (np_values(tn) == expected).all()


@needs_numpy
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
@SOME
@given(data=st.data())
def test_scan_agrees_and_matches_reduce(op, data):
    dt = data.draw(st.sampled_from(_reduction_dtypes(op)))
    x = data.draw(views(dt, bound=4.0 if op == "prod" and dt.kind in "fc" else None))
    if not x.shape:
        return
    axis = data.draw(st.integers(0, len(x.shape) - 1))
    tn, _ = both("scan", x.shape, dt, op, x, axis, context=f"cum{op} {dt}",
                 nan_bits=op in ("max", "min"))
    if x.shape[axis] and _s.size_of(x.shape):
        # The last prefix is the reduction over the axis, bit for bit.
        rn = run(NP, "reduce", tuple(n for i, n in enumerate(x.shape) if i != axis), dt, op,
                 x.on(NP), (axis,))
        last = np.take(np_storage(tn), -1, axis=axis)
        assert last.tobytes() == np_storage(rn).tobytes()
    if dt.kind in "iub":
        v = np_values(x.on(NP))
        if dt.kind == "b":
            ufunc = np.logical_or if op in ("sum", "max") else np.logical_and
            expected = ufunc.accumulate(v, axis=axis)
        else:
            ufunc = {"sum": np.add, "prod": np.multiply, "max": np.maximum,
                     "min": np.minimum}[op]
            expected = ufunc.accumulate(v, axis=axis, dtype=v.dtype)
        assert (np_values(tn) == expected).all()


@st.composite
def matmul_case(draw, dt):
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    a_batch = tuple(1 if draw(st.booleans()) else b for b in batch)
    b_batch = tuple(1 if draw(st.booleans()) else b for b in batch)[draw(st.integers(0, 2)):]
    bounded = dt.kind in "fc" and draw(st.booleans())
    kw = {"finite": bounded, "bound": 100.0 if bounded else None}
    a = draw(views(dt, a_batch + (m, k), **kw))
    b = draw(views(dt, b_batch + (k, n), **kw))
    return a, b, batch + (m, n)


@needs_numpy
@pytest.mark.parametrize("dt", ALL, ids=str)
@FEW
@given(data=st.data())
def test_matmul_agrees_and_matches_numpy(dt, data):
    a, b, out_shape = data.draw(matmul_case(dt))
    batch = out_shape[:-2]
    # Broadcast batch dims are stride-0 views, as the frontend passes them.
    ta = {}
    for dev in (NP, PY):
        ta[dev] = []
        for v in (a, b):
            t = v.on(dev)
            shape = batch + v.shape[-2:]
            strides = _s.broadcast_strides(t.shape, t.strides, shape)
            ta[dev].append(t._view(shape, strides, t.offset))
    outs = [run(dev, "matmul", out_shape, dt, *ta[dev]) for dev in (NP, PY)]
    assert_backends_agree(*outs, f"matmul {dt}", nan_bits=False)
    va, vb = np_values(a.on(NP)), np_values(b.on(NP))
    got = np_values(outs[0])
    with np.errstate(all="ignore"):
        if dt.kind in "fc":
            wide = np.complex128 if dt.kind == "c" else np.float64
            expected = np.matmul(va.astype(wide), vb.astype(wide)).astype(got.dtype)
            if dt is wt.bfloat16:
                from _oracle import bf16_round

                expected = bf16_round(expected)
            ok = np.isclose(got, expected, rtol=1e-2 if dt.itemsize == 2 else 1e-5, atol=1e-30)
            ok |= (got == expected) | (np.isnan(got) & np.isnan(expected))
            # Large finite terms: the float64 BLAS order may overflow or cancel differently.
            ok |= ~np.isfinite(np.matmul(np.abs(va.astype(wide)), np.abs(vb.astype(wide)))
                               .astype(got.dtype))
            assert ok.all(), (got, expected)
        else:
            assert (got == np.matmul(va, vb)).all()


@needs_numpy
@pytest.mark.parametrize("dt", ALL, ids=str)
@FEW
@given(data=st.data())
def test_gather_agrees_and_matches_numpy(dt, data):
    x = data.draw(views(dt, min_side=1, max_dims=3))
    if not x.shape:
        return
    axis = data.draw(st.integers(0, len(x.shape) - 1))
    size = x.shape[axis]
    idx_shape = list(x.shape)
    idx_shape[axis] = data.draw(st.integers(0, 4))
    idx = data.draw(views(wt.int64, tuple(idx_shape), values=st.integers(-size, size - 1)))
    tn, _ = both("gather", idx.shape, dt, x, axis, idx, context=f"gather {dt}")
    expected = np.take_along_axis(np_storage(x.on(NP)), np_values(idx.on(NP)), axis)
    assert np_storage(tn).tobytes() == expected.tobytes()


@needs_numpy
@pytest.mark.parametrize("op", ["set", "add", "min", "max"])
@SOME
@given(data=st.data())
def test_scatter_agrees_and_matches_numpy(op, data):
    dts = [dt for dt in ALL if not (op in ("min", "max") and dt.kind == "c")]
    dt = data.draw(st.sampled_from(dts))
    base = data.draw(views(dt, min_side=1, max_dims=2, contiguous=True))
    if not base.shape:
        return
    axis = data.draw(st.integers(0, len(base.shape) - 1))
    size = base.shape[axis]
    idx_shape = list(base.shape)
    idx_shape[axis] = data.draw(st.integers(0, 5))  # duplicates likely
    idx = data.draw(views(wt.int64, tuple(idx_shape), values=st.integers(-size, size - 1)))
    upd = data.draw(views(dt, tuple(idx_shape)))
    outs = []
    for dev in (NP, PY):
        out = base.on(dev)
        dev.backend.scatter(op, out, axis, idx.on(dev), upd.on(dev))
        outs.append(out)
    assert_backends_agree(*outs, f"scatter-{op} {dt}", nan_bits=op != "add")
    # Against NumPy's sequential ufunc.at (exact for ints, bool and set).
    if dt.kind in "biu" or op == "set":
        ref = np_storage(base.on(NP)).copy()
        i = np_values(idx.on(NP))
        u = np_storage(upd.on(NP))
        if op == "set":
            for pos in np.ndindex(i.shape):
                tgt = list(pos)
                tgt[axis] = i[pos]
                ref[tuple(tgt)] = u[pos]
        else:
            coords = list(np.indices(i.shape))
            coords[axis] = np.where(i < 0, i + size, i)
            ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum}[op]
            if dt.kind == "b":
                ufunc = np.logical_or if op in ("add", "max") else np.logical_and
            ufunc.at(ref, tuple(coords), u)
        assert np_storage(outs[0]).tobytes() == ref.tobytes()


@needs_numpy
@pytest.mark.parametrize("dt", ALL, ids=str)
@SOME
@given(data=st.data())
def test_sort_agrees_and_matches_numpy(dt, data):
    small = data.draw(st.booleans())  # many ties
    x = data.draw(views(dt, min_side=0, values=st.sampled_from(_special_grid(dt, False)[:5])
                        if small else None))
    if not x.shape:
        return
    axis = data.draw(st.integers(0, len(x.shape) - 1))
    desc = data.draw(st.booleans())
    sn, _ = both("sort", x.shape, dt, x, axis, desc, context=f"sort {dt} desc={desc}")
    an, _ = both("argsort", x.shape, wt.int64, x, axis, desc, context=f"argsort {dt}")
    v = np_values(x.on(NP))
    s = np_storage(x.on(NP))
    if desc:
        n = v.shape[axis]
        expected = (n - 1) - np.flip(np.argsort(np.flip(v, axis), axis=axis, kind="stable"),
                                     axis)
    else:
        expected = np.argsort(v, axis=axis, kind="stable")
    assert (np_values(an) == expected).all()
    assert np_storage(sn).tobytes() == np.take_along_axis(s, expected, axis).tobytes()


@SOME
@given(key=st.tuples(st.integers(0, 2 ** 32 - 1), st.integers(0, 2 ** 32 - 1)),
       counter=st.one_of(st.integers(0, 2 ** 128 - 1), st.integers(2 ** 64 - 3, 2 ** 64 + 3)),
       n=st.integers(0, 11))
@needs_numpy
def test_random_bits_agree_with_philox(key, counter, n):
    tn, tp = both("random_bits", (n,), wt.uint32, key, counter)
    blocks = [w for j in range((n + 3) // 4)
              for w in philox_block(key, tuple((((counter + j) % 2 ** 128) >> (32 * i)) &
                                               0xFFFFFFFF for i in range(4)))]
    assert py_values(tp) == blocks[:n]


@needs_numpy
def test_numpy_backend_is_deterministic_where_numpy_is_not():
    """Complex products (FMA in NumPy's SIMD loops) and the choice between +-0 in maximum."""
    rng = np.random.default_rng(0)
    for dt in (wt.complex64, wt.complex128):
        vals = (rng.standard_normal(64) + 1j * rng.standard_normal(64)).tolist()
        a = View(dt, (64,), (1,), 0, PY.backend.from_values(dt, vals))
        b = View(dt, (64,), (-1,), 63, PY.backend.from_values(dt, vals))
        for name in ("multiply", "divide"):
            both("binary", (64,), dt, name, a, b, context=f"{name} {dt}")
        for name in ("abs", "sqrt", "sign", "square", "reciprocal"):
            both("unary", (64,), _out_dtype(ops.ELEMENTWISE[name], dt), name, a)
    zeros = View(wt.float32, (32,), (1,), 0, [0.0, -0.0] * 16)
    flipped = View(wt.float32, (32,), (1,), 0, [-0.0, 0.0] * 16)
    tn, _ = both("binary", (32,), wt.float32, "maximum", zeros, flipped)
    assert not np.signbit(np_values(tn)).any()
    tn, _ = both("binary", (32,), wt.float32, "minimum", zeros, flipped)
    assert np.signbit(np_values(tn)).all()


@needs_numpy
def test_float_sum_is_sequential_float64():
    """The documented accumulation order: left to right in float64, rounded once."""
    vals = [1.0, 2.0 ** -24, 2.0 ** -24, 2.0 ** -24, 2.0 ** -24]
    x = View(wt.float32, (5,), (1,), 0, vals)
    tn, tp = both("reduce", (), wt.float32, "sum", x, (0,))
    assert py_values(tp) == [f32_round_py(1.0 + 4 * 2.0 ** -24)]
    # float16 overflow of intermediate sums does not happen (accumulated in float64)
    h = View(wt.float16, (3,), (1,), 0, [60000.0, 60000.0, -60000.0])
    _, hp = both("reduce", (), wt.float16, "sum", h, (0,))
    assert py_values(hp) == [60000.0]


@needs_numpy
@pytest.mark.parametrize("dt", [wt.float16, wt.bfloat16, wt.float32], ids=str)
def test_narrow_matmul_fast_path_keeps_the_sequential_bits(dt):
    """The NumPy backend uses BLAS for narrow floats and re-sums elements whose rounding BLAS
    cannot settle; ties and cancellation exercise that path."""
    rng = np.random.default_rng(1)
    big = {wt.float16: 2 ** 5, wt.bfloat16: 2 ** 4, wt.float32: 2 ** 12}[dt]
    a = rng.integers(-big, big, (12, 64)).astype(np.float64)  # integer sums: many exact ties
    b = rng.integers(-big, big, (64, 9)).astype(np.float64)
    a[:, 0] *= 2.0 ** 10  # plus cancellation against a large first term
    b[0, :] *= -(2.0 ** 10)
    a[3] = np.float64(np.float32(0.1))
    a[4, :3] = [np.inf, np.nan, 0.0]
    # Exact ties at the precision of dt (sum of 1 and half an ulp), which BLAS cannot settle.
    half = {wt.float16: 2.0 ** -11, wt.bfloat16: 2.0 ** -8, wt.float32: 2.0 ** -24}[dt]
    b[:2, 0] = 1.0
    for row, first in zip((5, 6, 7), (1.0, 1.0 + 2 * half, -1.0)):
        a[row] = 0.0
        a[row, :2] = [first, math.copysign(half, first)]
    if dt is not wt.float16:  # float64 cancellation: the sequential sum is 0, the exact one 1
        b[2, 0] = 1.0
        a[8] = 0.0
        a[8, :3] = [2.0 ** 60, 1.0, -(2.0 ** 60)]
    for x, y in ((a, b), (a[:, ::-1], b[::-1])):
        va = View(dt, x.shape, _s.contiguous_strides(x.shape), 0,
                  PY.backend.from_values(dt, x.reshape(-1).tolist()))
        vb = View(dt, y.shape, _s.contiguous_strides(y.shape), 0,
                  PY.backend.from_values(dt, y.reshape(-1).tolist()))
        tn, _ = both("matmul", (x.shape[0], y.shape[1]), dt, va, vb, nan_bits=False)
    got = np_values(tn)[5:9, 0].tolist()
    assert got[:3] == [1.0, 1.0 + 4 * half, -1.0]  # ties to even
    if dt is not wt.float16:
        assert got[3] == 0.0
