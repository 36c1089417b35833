"""Backend-level tests of the CPU backends: the primitives called directly.

Every primitive on every dtype, both backends against each other and against NumPy, is the
op-record table's job (tests/_op_records.py, run by test_conformance.py).  Here:

* NumPy-free (runs under Pyodide too): the pure-Python backend against exact Python reference
  computations and ``struct`` byte layouts.
* With NumPy: host conversions (``from_values``/``to_values``) of both backends agree; Philox
  random bits; and the places where the NumPy backend must not do what NumPy does (complex
  products without FMA, sequential float64 sums, the narrow-float matmul fast path).
"""

from __future__ import annotations

import functools
import math
import operator
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import (
    BITS,
    EXACT,
    View,
    bf16_bits_py,
    bf16_round_py,
    dtype_values,
    f16_round_py,
    f32_round_py,
    needs_numpy,
    run_primitive,
    tensor_storage,
    views,
)
from webtensor import ops
from webtensor import shape as _s
from webtensor.backends._philox import philox_block
from webtensor.backends.cpu_python import PythonBackend
from webtensor.device import Device
from webtensor.tensor import Tensor

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


run = run_primitive


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
    # indices past either end: wrapped once, then clamped (the contract, JAX's rule)
    wild = Tensor._wrap(b.from_values(wt.int32, [3, -4, 7, -9]), (4,), wt.int32, PY)
    assert py_values(run(PY, "gather", (4,), wt.float64, x, 0, wild)) == [30.0, 10.0, 30.0,
                                                                          10.0]
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        empty_x = Tensor._wrap(b.from_values(wt.float64, []), (0,), wt.float64, PY)
        run(PY, "gather", (4,), wt.float64, empty_x, 0, wild)
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
# With NumPy: host conversions, Philox, and what the NumPy backend must do differently from NumPy
# =====================================================================================================

try:
    from webtensor.backends.cpu_numpy import NumpyBackend
except ImportError:  # Pyodide without NumPy: only the section above runs
    NumpyBackend = None

NP = Device("cpu", NumpyBackend) if NumpyBackend is not None else None


def both(prim, out_shape, out_dt, *args, tol=BITS, context=""):
    """``prim`` on the NumPy and the pure-Python backend, compared (bitwise by default);
    returns (numpy result, python result)."""
    from _oracle import both as _both

    return _both(prim, out_shape, out_dt, *args, tol=tol, context=context, devices=(NP, PY))


@needs_numpy
@pytest.mark.parametrize("dt", ALL, ids=str)
@FEW
@given(data=st.data())
def test_host_values_agree(dt, data):
    """``to_values`` of a view and ``from_values`` of any Python scalars (ints far outside the
    dtype's range, floats, bools, complex) give the same on both backends."""
    from _oracle import assert_agree

    x = data.draw(views(dt))
    tn, tp = x.on(NP), x.on(PY)
    assert tn.tobytes() == tp.tobytes()
    assert all(same(a, b) for a, b in zip(NP.backend.to_values(tn), PY.backend.to_values(tp)))
    assert len(NP.backend.to_values(tn)) == tn.size
    scalars = data.draw(st.lists(st.one_of(dtype_values(dt), st.integers(-(2 ** 70), 2 ** 70),
                                           st.floats(), st.booleans(),
                                           st.complex_numbers(allow_nan=True)), max_size=6))
    if dt.kind not in "c":
        scalars = [s for s in scalars if not isinstance(s, complex)] + [1.5 + 2j]
    tn = Tensor._wrap(NP.backend.from_values(dt, scalars), (len(scalars),), dt, NP)
    tp = Tensor._wrap(PY.backend.from_values(dt, scalars), (len(scalars),), dt, PY)
    assert_agree(tp, tn, BITS, f"from_values {dt} {scalars}")


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


def _out_dtype(op, dt):
    return {"bool": wt.bool, "real": dt.real_dtype,
            "complex": dt.complex_dtype}.get(op.result, dt)


@needs_numpy
def test_numpy_backend_is_deterministic_where_numpy_is_not():
    """Complex products (FMA in NumPy's SIMD loops) and the choice between +-0 in maximum."""
    import numpy as np

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
    assert not np.signbit(tensor_storage(tn)).any()
    tn, _ = both("binary", (32,), wt.float32, "minimum", zeros, flipped)
    assert np.signbit(tensor_storage(tn)).all()


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
    import numpy as np

    from _oracle import compute_values

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
        tn, _ = both("matmul", (x.shape[0], y.shape[1]), dt, va, vb, tol=EXACT)
    got = compute_values(tensor_storage(tn), dt)[5:9, 0].tolist()
    assert got[:3] == [1.0, 1.0 + 4 * half, -1.0]  # ties to even
    if dt is not wt.float16:
        assert got[3] == 0.0


@needs_numpy
def test_recycled_buffers_are_never_shared_while_referenced():
    """The NumPy backend hands large buffers out again once nothing refers to them: never
    while a tensor, a view of one, a NumPy array or a DLPack capsule still does."""
    import ctypes

    import numpy as np

    def address(t):
        return t._data.__array_interface__["data"][0]

    n = 1 << 17  # 512 KiB of float32: recycled
    base = np.arange(n, dtype=np.float32)
    x = wt.asarray(base, device=NP)
    kept = [x * float(i) for i in range(1, 5)]  # the same size four times: all held
    t = x + 1.0
    held = [address(t) for t in kept] + [address(t)]
    view = t[::3]  # only a strided view holds this one
    t = x + 2.0
    held.append(address(t))
    exported = np.from_dlpack(t)  # only NumPy holds this one (shared memory)
    t = x + 3.0
    held.append(address(t))
    capsule = t.__dlpack__()  # only an unconsumed capsule holds this one
    del t
    for i in range(12):  # allocations of that size, each freed at once
        fresh = x * 0.0
        assert address(fresh) not in held
        fresh += float(i)
        assert wt.sum(fresh).item() == n * i
    for i, t in enumerate(kept, 1):
        assert np.array_equal(t.numpy(), base * i)
    assert np.array_equal(view.numpy(), (base + 1)[::3])
    assert np.array_equal(exported, base + 2)
    assert ctypes.string_at(held[-1], 4 * n) == (base + 3).tobytes()
    del capsule


@needs_numpy
def test_a_freed_large_buffer_is_reused():
    """The point of recycling: the next allocation of that size takes the pages already
    faulted in instead of fresh ones from the OS."""
    import numpy as np

    x = wt.asarray(np.ones(1 << 17, dtype=np.float32), device=NP)
    t = x * 2.0
    address = t._data.__array_interface__["data"][0]
    del t
    u = x * 3.0
    assert u._data.__array_interface__["data"][0] == address
    assert np.array_equal(u.numpy(), np.full(1 << 17, 3.0, np.float32))
