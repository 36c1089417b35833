"""Elementwise functions, clip/where and the Tensor operators, on every device.

Every op on every dtype it accepts, against NumPy and between devices (special values all
against all, samples, views, random shapes, mixed dtypes and weak operands), is the op-record
table's job: tests/_op_records.py (its oracle, ``check_result``, is the one used here) run by
test_conformance.py.  This module tests the rules around the ops: refusals, Python scalar
operands in every promotion mode, hand-written exact cases, result dtypes and weak flags, the
operators, clip and where with mixed operands, axis names.

What the oracles expect (``webtensor.ops`` is the spec; NumPy gives the values):

* Result dtypes follow webtensor's rules, not NumPy's: the operands promote with
  ``wt.result_type`` in the active mode; an op whose table kinds exclude the promoted dtype's kind
  raises TypeError naming the op and the dtype; rule ``float`` computes bool and integers in the
  *default float dtype* (float32 unless changed; float64 in ``numpy`` mode), so
  ``sqrt(int32) -> float32`` where NumPy gives float64; ``real`` gives complex inputs their real
  dtype; ``bool`` gives bool; ``same`` keeps the promoted dtype.
* The weak flag: an op on weak operands only is weak, one strong operand makes it strong,
  comparisons and predicates are never weak (their bool is a definite dtype).
* Values: NumPy applied to the same values converted to the computation dtype with webtensor's
  cast rules (bfloat16 computed in float32 and rounded to nearest even).  Integer and bool results
  and non-transcendental float results must be bit-identical (any NaN matches any NaN: IEEE does
  not fix the payload or sign of a computed NaN; maximum/minimum of +0 and -0 may return either
  zero, which the Array API leaves unspecified).  ``ops.TRANSCENDENTAL`` float results must be
  within 2 ULP of NumPy's float64 result rounded to the dtype (NumPy's own float32 SIMD
  functions are up to ~8 ULP off where results cancel, e.g. logaddexp near 0).  Complex results
  of multi-step formulas (multiply, divide, sqrt, sign, the transcendental functions) are
  compared normwise (a few eps of |expected|) on finite inputs, since componentwise ULP is not
  what complex libraries guarantee.
* Where webtensor defines what NumPy refuses or leaves to the platform: integer ``pow`` with a
  negative exponent is the truncated ``1 / x1**-x2`` (1 for 1, +-1 for -1, 0 otherwise, 0 ** -n
  included) where NumPy raises; integer division and modulo by zero give 0; shifts by the bit
  width or more (or a negative count) give 0, or -1 for a negative x1 shifted right;
  ``nextafter`` on bfloat16 steps to the neighbouring bfloat16 (computing it in float32 and
  rounding back would return x1 itself).
* Out-of-range Python ints raise OverflowError per the mode (checked against the promoted dtype,
  as NumPy does, so ``int8_tensor < 300`` raises where NumPy 2 compares exactly).
"""

from __future__ import annotations

import math
import operator
import struct

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import webtensor as wt
from _op_records import (
    COMPLEX_BOUND,
    COMPLEX_EXACT,
    accepted,
    check_result,
    result_rule,
    values_strategy,
)
from _oracle import (
    ALL_DTYPES,
    ROUND_PY,
    assert_same_values,
    backend_fixture,  # noqa: F401 - registers the `backend` fixture
    bf16_round_py,
    broadcast_pairs,
    compute_values,
    dtype_values,
    layouts,
    needs_numpy,
    ref_cast,
    same_float,
    sample_values,
    shapes,
    size_of,
    storage_array,
    tensor_from_storage,
    tensor_storage,
    to_storage,
)
from webtensor import ops
from webtensor.tensor import Tensor

OPS = sorted(ops.ELEMENTWISE)
UNARY = sorted(op.name for op in ops.UNARY)
BINARY = sorted(op.name for op in ops.BINARY)
MODES = ("standard", "numpy", "all", "safe", "strict")
WEAKABLE = (wt.int32, wt.float32, wt.complex64)  # weak tensors exist at the default dtypes

# Deterministic (derandomize), no example database, and no shrinking: a failure reports the
# drawn dtypes/shapes/values as found, and the suite's runtime stays bounded even when failing.
PROPERTY = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def fn(name):
    return getattr(wt, name)


def refused(op) -> list:
    return [dt for dt in ALL_DTYPES if dt.kind not in op.kinds]


def draw_tensor(data, dt, shape, device, compute, name, *, weak=False):
    """A tensor of ``dt`` with drawn values and a drawn layout (contiguous or a strided view)."""
    n = size_of(shape)
    values = data.draw(st.lists(values_strategy(dt, compute, name), min_size=n, max_size=n),
                       label=f"values {dt}")
    layout = data.draw(st.one_of(st.none(), layouts(len(shape))), label="layout")
    storage = storage_array(values, dt, shape)
    t = tensor_from_storage(storage, dt, device, layout=layout, weak=weak)
    return t, storage


# -- refusals (NumPy-free) --------------------------------------------------------------------------

REFUSED = [(name, dt) for name in OPS for dt in refused(ops.ELEMENTWISE[name])]


@pytest.mark.parametrize(("name", "dt"), REFUSED, ids=[f"{n}-{d}" for n, d in REFUSED])
def test_refused_kind_raises_type_error_naming_op_and_dtype(backend, name, dt):
    op = ops.ELEMENTWISE[name]
    x = wt.asarray([1, 0], dtype=dt, device=backend)
    args = (x,) * op.arity
    with pytest.raises(TypeError, match=rf"wt\.{name}\b.*\b{dt.name}\b"):
        fn(name)(*args)
    if op.arity == 2:  # with a Python scalar on either side too
        with pytest.raises(TypeError, match=rf"wt\.{name}\b.*\b{dt.name}\b"):
            fn(name)(x, True if dt is wt.bool else 1)
        with pytest.raises(TypeError, match=rf"wt\.{name}\b.*\b{dt.name}\b"):
            fn(name)(True if dt is wt.bool else 1, x)


def test_op_table_is_complete():
    """Every table op is a function; the accepted kinds cover something; no surprises."""
    for name, op in ops.ELEMENTWISE.items():
        f = fn(name)
        assert callable(f) and f.__name__ == name and f.__doc__
        assert accepted(op), name
        assert op.result in ("same", "float", "bool", "real", "complex")
    assert ops.TRANSCENDENTAL <= set(ops.ELEMENTWISE)
    assert {"clip", "where"} <= set(dir(wt))


_PY_SCALARS = st.one_of(
    st.booleans(),
    st.sampled_from([0, 1, -1, 2, 7, 127, 128, 255, 256, -129, 2 ** 31, -(2 ** 31) - 1, 2 ** 63,
                     2 ** 64, -(2 ** 63)]),
    st.integers(-(2 ** 70), 2 ** 70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.5, -0.0, 1.5, 1e-40, 3e38, 1e300]),
    st.builds(complex, st.floats(-4, 4), st.floats(-4, 4)),
)


@needs_numpy
@pytest.mark.parametrize("name", BINARY)
@PROPERTY
@given(data=st.data())
def test_python_scalar_operands(backend, name, data):
    """``op(x, 1)``, ``op(1.5, x)``...: the scalar is weak; results match result_type and NumPy;
    out-of-range ints raise OverflowError exactly when result_type does (per mode)."""
    op = ops.ELEMENTWISE[name]
    mode = data.draw(st.sampled_from(MODES), label="mode")
    dt = data.draw(st.sampled_from(accepted(op)), label="dtype")
    weak = dt in WEAKABLE and data.draw(st.booleans(), label="weak")
    scalar = data.draw(_PY_SCALARS, label="scalar")
    reflected = data.draw(st.booleans(), label="reflected")
    shape = data.draw(shapes(max_dims=2), label="shape")
    probe = Tensor._wrap(None, (), dt, backend, weak=weak)
    with wt.promotion_mode(mode):
        error, rule = _scalar_expectation(op, probe, scalar, reflected)
        if rule and rule[0].kind == "c" and name not in COMPLEX_EXACT:
            # normwise-compared complex ops get bounded finite values (same Python type)
            scalar = _bounded(scalar)
            error, rule = _scalar_expectation(op, probe, scalar, reflected)
        compute = rule[0] if rule else dt
        x, storage = draw_tensor(data, dt, shape, backend, compute, name, weak=weak)
        args = (scalar, x) if reflected else (x, scalar)
        if error is not None:
            with pytest.raises(error):
                fn(name)(*args)
            return
        compute, out_dt, exp_weak = rule
        got = fn(name)(*args)
        assert (got.shape, got.dtype, got.weak) == (shape, out_dt, exp_weak)
        inputs = [scalar, (storage, dt)] if reflected else [(storage, dt), scalar]
        check_result(name, got, inputs, compute, out_dt,
                     context=f"[{mode}] {name}{'(s, x)' if reflected else '(x, s)'} "
                             f"s={scalar!r} x:{dt}{'*' if weak else ''}")


def _scalar_expectation(op, probe, scalar, reflected):
    """(exception type or None, result rule) for ``op`` on a tensor and a Python scalar."""
    args = (scalar, probe) if reflected else (probe, scalar)
    try:
        promoted, weak = wt.result_type(*args, return_weak_type_flag=True)
    except (OverflowError, TypeError) as e:
        return type(e), None
    rule = result_rule(op, promoted, weak)
    return (TypeError if rule is None else None), rule


def _bounded(s):
    if isinstance(s, bool):
        return s
    if isinstance(s, int):
        return max(-8, min(8, s))
    if isinstance(s, float):
        return s if math.isfinite(s) and abs(s) <= COMPLEX_BOUND else 1.5
    ok = all(math.isfinite(p) and abs(p) <= COMPLEX_BOUND for p in (s.real, s.imag))
    return s if ok else complex(1.5, -0.5)


# -- exact cases written out by hand (NumPy-free: these run under Pyodide) --------------------------

def _t(values, dt, dev):
    return wt.asarray(values, dtype=dt, device=dev)


def _assert_list(got, expected):
    got_l = got.tolist()
    if not isinstance(got_l, list):
        got_l, expected = [got_l], [expected] if not isinstance(expected, list) else expected
    assert len(got_l) == len(expected), (got_l, expected)
    for g, e in zip(got_l, expected):
        if isinstance(e, float):
            assert isinstance(g, float) and same_float(g, e), (got_l, expected)
        elif isinstance(e, complex):
            assert same_float(g.real, e.real) and same_float(g.imag, e.imag), (got_l, expected)
        else:
            assert type(g) is type(e) and g == e, (got_l, expected)


NAN, INF = math.nan, math.inf
EXACT_CASES = [
    # (op, dtype, x1 list, x2 list or None, expected list, expected dtype)
    ("floor_divide", wt.int8, [7, -7, 7, -7, 0, -128, -128], [2, 2, -2, -2, 0, -1, 0],
     [3, -4, -4, 3, 0, -128, 0], wt.int8),
    ("remainder", wt.int8, [7, -7, 7, -7, 0, -128, 5], [2, 2, -2, -2, 0, -1, 0],
     [1, 1, -1, -1, 0, 0, 0], wt.int8),
    ("floor_divide", wt.uint64, [5, 2 ** 64 - 1], [0, 0], [0, 0], wt.uint64),
    ("remainder", wt.uint32, [5, 2 ** 32 - 1], [0, 7], [0, 3], wt.uint32),
    ("floor_divide", wt.int64, [-(2 ** 63), 9], [-1, 0], [-(2 ** 63), 0], wt.int64),
    ("floor_divide", wt.float32, [7.0, -7.0, 1.0, -1.0, 0.0], [-2.0, 2.0, 0.0, 0.0, 0.0],
     [-4.0, -4.0, INF, -INF, NAN], wt.float32),
    ("remainder", wt.float64, [-1.0, 1.0, 5.5, -0.0, 1.0], [3.0, -3.0, 2.0, 2.0, 0.0],
     [2.0, -2.0, 1.5, 0.0, NAN], wt.float64),
    ("add", wt.int8, [127, -128], [1, -1], [-128, 127], wt.int8),
    ("multiply", wt.uint8, [16, 255], [16, 255], [0, 1], wt.uint8),
    ("subtract", wt.uint16, [0], [1], [65535], wt.uint16),
    ("negative", wt.uint8, [1, 0], None, [255, 0], wt.uint8),
    ("abs", wt.int8, [-128, -5], None, [-128, 5], wt.int8),
    ("bitwise_left_shift", wt.int8, [1, 1, 1, -1, 3], [7, 8, 100, -1, 2], [-128, 0, 0, 0, 12],
     wt.int8),
    ("bitwise_right_shift", wt.int8, [-128, -128, 64, 64, -1], [9, 7, 8, 1, -3],
     [-1, -1, 0, 32, -1], wt.int8),
    ("bitwise_left_shift", wt.uint64, [1, 1], [63, 64], [2 ** 63, 0], wt.uint64),
    ("bitwise_right_shift", wt.uint32, [2 ** 32 - 1, 2 ** 32 - 1], [31, 32], [1, 0], wt.uint32),
    ("pow", wt.int32, [2, 2, -1, -1, 1, 0, 0, 3, -2], [10, -1, -3, -4, -5, -2, 0, 0, 3],
     [1024, 0, -1, 1, 1, 0, 1, 1, -8], wt.int32),
    ("pow", wt.int8, [2, 3], [7, 5], [-128, -13], wt.int8),
    ("pow", wt.uint8, [2, 0], [8, 0], [0, 1], wt.uint8),
    ("pow", wt.float64, [0.0, 1.0, NAN, -8.0, -INF], [-1.0, NAN, 0.0, 1 / 3, 3.0],
     [INF, 1.0, 1.0, NAN, -INF], wt.float64),
    ("maximum", wt.float32, [NAN, 1.0, -INF], [1.0, NAN, 2.0], [NAN, NAN, 2.0], wt.float32),
    ("minimum", wt.float64, [NAN, 1.0, INF], [1.0, NAN, 2.0], [NAN, NAN, 2.0], wt.float64),
    ("maximum", wt.bool, [True, False], [False, False], [True, False], wt.bool),
    ("add", wt.bool, [True, True, False], [True, False, False], [True, True, False], wt.bool),
    ("multiply", wt.bool, [True, True, False], [True, False, False], [True, False, False],
     wt.bool),
    ("divide", wt.int32, [1, -1, 0, 7], [2, 0, 0, 7], [0.5, -INF, NAN, 1.0], wt.float32),
    ("divide", wt.float64, [1.0, -1.0, 0.0, -0.0], [0.0, 0.0, 0.0, INF], [INF, -INF, NAN, -0.0],
     wt.float64),
    ("sqrt", wt.int32, [4, 2, -1], None, [2.0, 1.4142135381698608, NAN], wt.float32),
    ("sqrt", wt.float64, [-0.0, INF, -1e-300], None, [-0.0, INF, NAN], wt.float64),
    ("round", wt.float32, [2.5, -0.5, 3.5, 1.5, -2.5, 0.49999997], None,
     [2.0, -0.0, 4.0, 2.0, -2.0, 0.0], wt.float32),
    ("round", wt.int16, [-7, 7], None, [-7, 7], wt.int16),
    ("trunc", wt.float64, [-1.7, 1.7, -0.2], None, [-1.0, 1.0, -0.0], wt.float64),
    ("floor", wt.float32, [-1.5, 1.5, -0.0], None, [-2.0, 1.0, -0.0], wt.float32),
    ("ceil", wt.float32, [-1.5, 1.5, -0.5], None, [-1.0, 2.0, -0.0], wt.float32),
    ("sign", wt.float64, [-3.0, 0.0, 2.0, NAN], None, [-1.0, 0.0, 1.0, NAN], wt.float64),
    ("sign", wt.int8, [-128, 0, 5], None, [-1, 0, 1], wt.int8),
    ("copysign", wt.float32, [1.0, 1.0, -2.0], [-0.0, -NAN, 3.0], [-1.0, -1.0, 2.0], wt.float32),
    ("signbit", wt.float64, [-0.0, 0.0, -NAN, NAN, -INF], None, [True, False, True, False, True],
     wt.bool),
    ("nextafter", wt.float32, [1.0, 0.0, 1.0], [2.0, 1.0, 1.0],
     [1.0000001192092896, 1.401298464324817e-45, 1.0], wt.float32),
    ("nextafter", wt.float16, [0.0, 1.0], [1.0, 0.0], [2.0 ** -24, 1.0 - 2.0 ** -11], wt.float16),
    ("nextafter", wt.bfloat16, [1.0, 1.0, 0.0, -0.0, 2.0], [2.0, 0.0, -1.0, 1.0, 2.0],
     [1.0078125, 0.99609375, -(2.0 ** -133), 2.0 ** -133, 2.0], wt.bfloat16),
    ("add", wt.bfloat16, [1.0, 1.0078125, 256.0], [2.0 ** -8, 2.0 ** -8, 1.0],
     [1.0, 1.015625, 256.0], wt.bfloat16),
    ("multiply", wt.float16, [60000.0, 2.0 ** -14], [2.0, 2.0 ** -10], [INF, 2.0 ** -24],
     wt.float16),
    ("bitwise_invert", wt.bool, [True, False], None, [False, True], wt.bool),
    ("bitwise_invert", wt.uint8, [0, 255], None, [255, 0], wt.uint8),
    ("bitwise_invert", wt.int8, [0, -128], None, [-1, 127], wt.int8),
    ("bitwise_xor", wt.bool, [True, True], [True, False], [False, True], wt.bool),
    ("logical_and", wt.float32, [2.0, 0.0, NAN, -0.0], [1.0, 1.0, 1.0, 1.0],
     [True, False, True, False], wt.bool),
    ("logical_not", wt.int8, [0, 3], None, [True, False], wt.bool),
    ("equal", wt.float64, [NAN, 0.0, INF], [NAN, -0.0, INF], [False, True, True], wt.bool),
    ("not_equal", wt.float32, [NAN, 1.0], [NAN, 1.0], [True, False], wt.bool),
    ("less", wt.int64, [-(2 ** 63), 2 ** 62], [2 ** 63 - 1, 2 ** 62], [True, False], wt.bool),
    ("less", wt.uint64, [2 ** 64 - 1, 0], [2 ** 63, 1], [False, True], wt.bool),
    ("greater_equal", wt.float32, [NAN, -0.0], [1.0, 0.0], [False, True], wt.bool),
    ("isnan", wt.int32, [0, 1], None, [False, False], wt.bool),
    ("isfinite", wt.float16, [INF, NAN, 65504.0], None, [False, False, True], wt.bool),
    ("isinf", wt.bool, [True], None, [False], wt.bool),
    ("abs", wt.complex64, [3 + 4j, -0.0 + 0j], None, [5.0, 0.0], wt.float32),
    ("real", wt.complex128, [1.5 - 2j], None, [1.5], wt.float64),
    ("imag", wt.complex64, [1.5 - 2j], None, [-2.0], wt.float32),
    ("imag", wt.float64, [1.5], None, [0.0], wt.float64),
    ("conj", wt.complex128, [1 + 2j], None, [1 - 2j], wt.complex128),
    ("conj", wt.int8, [-3], None, [-3], wt.int8),
    ("square", wt.int8, [16, -12], None, [0, -112], wt.int8),
    ("reciprocal", wt.int32, [2, 0, -4], None, [0.5, INF, -0.25], wt.float32),
    ("exp", wt.float64, [0.0, -INF, INF, NAN], None, [1.0, 0.0, INF, NAN], wt.float64),
    ("log", wt.float32, [1.0, 0.0, -1.0, INF], None, [0.0, -INF, NAN, INF], wt.float32),
    ("atan2", wt.float64, [0.0, -0.0, 1.0], [-0.0, -0.0, INF], [math.pi, -math.pi, 0.0],
     wt.float64),
    ("hypot", wt.float64, [INF, 3.0], [NAN, 4.0], [INF, 5.0], wt.float64),
    # fmax/fmin: NaN gives way to a number (NaN only when both are); -0 < +0
    ("fmax", wt.float32, [NAN, 1.0, NAN, -0.0, -INF], [1.0, NAN, NAN, 0.0, -5.0],
     [1.0, 1.0, NAN, 0.0, -5.0], wt.float32),
    ("fmin", wt.float64, [NAN, 1.0, NAN, 0.0, INF], [1.0, NAN, NAN, -0.0, 5.0],
     [1.0, 1.0, NAN, -0.0, 5.0], wt.float64),
    ("fmin", wt.bfloat16, [NAN, 3.0], [2.0, NAN], [2.0, 3.0], wt.bfloat16),
    ("fmax", wt.int8, [-128, 5], [127, -3], [127, 5], wt.int8),
    ("fmax", wt.bool, [True, False], [False, False], [True, False], wt.bool),
    # gcd/lcm of the magnitudes; the exact result wraps to the dtype like every overflow
    ("gcd", wt.int8, [12, -12, 0, -128, -128, 7], [18, 18, 0, 0, 6, -1], [6, 6, 0, -128, 2, 1],
     wt.int8),
    ("lcm", wt.int8, [4, -4, 0, 100, -100], [6, 6, 5, 3, 7], [12, 12, 0, 44, -68], wt.int8),
    ("gcd", wt.uint64, [2 ** 64 - 1, 2 ** 63, 0], [2 ** 32 + 1, 2 ** 40, 9], [2 ** 32 + 1, 2 ** 40, 9],
     wt.uint64),
    ("lcm", wt.int64, [2 ** 62, -(2 ** 63), 6], [3, 6, -4], [-(2 ** 62), -(2 ** 63), 12],
     wt.int64),
    ("lcm", wt.uint32, [2 ** 31, 65537], [3, 65539], [2 ** 31, (65537 * 65539) % 2 ** 32],
     wt.uint32),
    # floor_divide with infinite operands follows the Array API (NumPy gives NaN and -1.0)
    ("floor_divide", wt.float64, [INF, INF, -INF, -INF, 1.0, -1.0, 1.0, -1.0, INF, 0.0, -0.0],
     [2.0, -2.0, 2.0, -2.0, -INF, INF, INF, -INF, INF, INF, INF],
     [INF, -INF, -INF, INF, -0.0, -0.0, 0.0, 0.0, NAN, 0.0, -0.0], wt.float64),
    ("floor_divide", wt.float32, [INF, -3.0, 5.0, -INF], [0.5, INF, -INF, -0.0],
     [INF, -0.0, -0.0, INF], wt.float32),
    ("floor_divide", wt.float16, [-INF, 7.0], [3.0, -INF], [-INF, -0.0], wt.float16),
    ("floor_divide", wt.bfloat16, [INF, -2.0], [-1.0, INF], [-INF, -0.0], wt.bfloat16),
]


@pytest.mark.parametrize("case", EXACT_CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(EXACT_CASES)])
def test_exact_cases(backend, case):
    name, dt, a, b, expected, out_dt = case
    x1 = _t(a, dt, backend)
    got = fn(name)(x1) if b is None else fn(name)(x1, _t(b, dt, backend))
    assert got.dtype is out_dt
    assert not got.weak
    _assert_list(got, expected)


# The Array API's floor_divide special cases, one row per rule of the standard (2024.12), in its
# order: (x1, x2, result).  NumPy gives NaN for inf // finite and -1.0 for 1 // -inf.
FLOOR_DIVIDE_SPECIAL = [
    (NAN, 2.0, NAN), (2.0, NAN, NAN), (NAN, NAN, NAN),
    (INF, INF, NAN), (INF, -INF, NAN), (-INF, INF, NAN), (-INF, -INF, NAN),
    (0.0, 0.0, NAN), (-0.0, 0.0, NAN), (0.0, -0.0, NAN), (-0.0, -0.0, NAN),
    (0.0, 2.0, 0.0), (0.0, INF, 0.0), (-0.0, 2.0, -0.0), (-0.0, INF, -0.0),
    (0.0, -2.0, -0.0), (0.0, -INF, -0.0), (-0.0, -2.0, 0.0), (-0.0, -INF, 0.0),
    (2.0, 0.0, INF), (INF, 0.0, INF), (2.0, -0.0, -INF), (INF, -0.0, -INF),
    (-2.0, 0.0, -INF), (-INF, 0.0, -INF), (-2.0, -0.0, INF), (-INF, -0.0, INF),
    (INF, 2.0, INF), (INF, -2.0, -INF), (-INF, 2.0, -INF), (-INF, -2.0, INF),
    (2.0, INF, 0.0), (2.0, -INF, -0.0), (-2.0, INF, -0.0), (-2.0, -INF, 0.0),
    (7.0, 2.0, 3.0), (-7.0, -2.0, 3.0), (7.0, -2.0, -4.0), (-7.0, 2.0, -4.0),
    (0.5, 2.0, 0.0), (-0.5, 2.0, -1.0), (0.5, -2.0, -1.0),
]


@pytest.mark.parametrize("dt", wt.all_float_dtypes, ids=str)
def test_floor_divide_special_cases_follow_the_array_api(backend, dt):
    a = _t([r[0] for r in FLOOR_DIVIDE_SPECIAL], dt, backend)
    b = _t([r[1] for r in FLOOR_DIVIDE_SPECIAL], dt, backend)
    for got in (wt.floor_divide(a, b), a // b):
        assert got.dtype is dt
        for (x1, x2, want), value in zip(FLOOR_DIVIDE_SPECIAL, got.tolist()):
            assert same_float(value, want), f"{x1} // {x2} gave {value}, expected {want}"
    # a Python scalar divisor takes the same path
    assert same_float((a[27:28] // -2.0).item(), -INF)
    assert same_float((_t([-3.0], dt, backend) // INF).item(), -0.0)


def _float32_bits(t) -> list:
    return list(struct.unpack(f"<{t.size}I", struct.pack(f"<{t.size}f", *t.tolist())))


def test_maximum_minimum_fmax_fmin_keep_the_cpus_nan_payloads_and_zeros(backend):
    """Every pair of NaNs (two payloads, both signs), signed zeros, infinities and numbers: the
    same bits as the CPU device (the first NaN's payload where both are NaN, as NumPy)."""
    specials = [0.0, -0.0, 1.5, -2.0, INF, -INF]
    nans = [struct.unpack("<f", struct.pack("<I", bits))[0]
            for bits in (0x7FC00001, 0xFFC00002)]
    pairs = [(a, b) for a in specials + nans for b in specials + nans]
    for f in (wt.maximum, wt.minimum, wt.fmax, wt.fmin):
        got, want = (f(_t([a for a, _ in pairs], wt.float32, dev),
                       _t([b for _, b in pairs], wt.float32, dev))
                     for dev in (backend, "cpu"))
        for (a, b), g, w in zip(pairs, _float32_bits(got), _float32_bits(want)):
            assert g == w, f"{f.__name__}({a}, {b}): {g:#010x} on {backend}, {w:#010x} on cpu"


@pytest.mark.parametrize("dt", wt.all_int_dtypes, ids=str)
def test_integer_division_and_modulo_by_zero_give_zero(backend, dt):
    info = wt.iinfo(dt)
    x = _t([info.min, info.max, 0, 1], dt, backend)
    zero = _t([0, 0, 0, 0], dt, backend)
    for f in (wt.floor_divide, wt.remainder):
        _assert_list(f(x, zero), [0, 0, 0, 0])
        _assert_list(f(x, 0), [0, 0, 0, 0])
    _assert_list(x // 0, [0, 0, 0, 0])
    _assert_list(x % 0, [0, 0, 0, 0])


# -- result dtypes and the weak flag (NumPy-free) ---------------------------------------------------

DTYPE_RULES = [
    # (op, operand dtypes, mode, expected dtype)  -- webtensor's rules, not NumPy's
    ("sqrt", (wt.int32,), "standard", wt.float32),
    ("sqrt", (wt.int64,), "standard", wt.float32),
    ("sqrt", (wt.uint8,), "standard", wt.float32),
    ("sqrt", (wt.int32,), "numpy", wt.float64),
    ("sqrt", (wt.float16,), "standard", wt.float16),
    ("sqrt", (wt.bfloat16,), "numpy", wt.bfloat16),
    ("sqrt", (wt.complex64,), "standard", wt.complex64),
    ("sin", (wt.int8,), "standard", wt.float32),
    ("exp", (wt.uint64,), "numpy", wt.float64),
    ("divide", (wt.int8, wt.int8), "standard", wt.float32),
    ("divide", (wt.int64, wt.int64), "standard", wt.float32),
    ("divide", (wt.int8, wt.int8), "numpy", wt.float64),
    ("divide", (wt.int8, wt.float16), "standard", wt.float16),
    ("atan2", (wt.int16, wt.int16), "standard", wt.float32),
    ("abs", (wt.complex128,), "standard", wt.float64),
    ("abs", (wt.complex64,), "standard", wt.float32),
    ("abs", (wt.int8,), "standard", wt.int8),
    ("real", (wt.complex64,), "standard", wt.float32),
    ("imag", (wt.float16,), "standard", wt.float16),
    ("add", (wt.bool, wt.bool), "standard", wt.bool),
    ("add", (wt.int8, wt.uint8), "standard", wt.int16),
    ("add", (wt.bfloat16, wt.float16), "standard", wt.float32),
    ("multiply", (wt.float32, wt.complex64), "standard", wt.complex64),
    ("floor_divide", (wt.uint8, wt.int8), "numpy", wt.int16),
    ("pow", (wt.int8, wt.int8), "standard", wt.int8),
    ("equal", (wt.float32, wt.float32), "standard", wt.bool),
    ("less", (wt.int8, wt.uint64), "numpy", wt.bool),
    ("isnan", (wt.int8,), "standard", wt.bool),
    ("round", (wt.int32,), "standard", wt.int32),
    ("floor", (wt.uint16,), "standard", wt.uint16),
    ("reciprocal", (wt.uint8,), "standard", wt.float32),
    ("logical_and", (wt.complex128, wt.int8), "standard", wt.bool),
    ("bitwise_and", (wt.bool, wt.uint8), "standard", wt.uint8),
]


@pytest.mark.parametrize("case", DTYPE_RULES,
                         ids=[f"{c[0]}-{'-'.join(map(str, c[1]))}-{c[2]}" for c in DTYPE_RULES])
def test_result_dtype_rules(backend, case):
    name, dtypes, mode, expected = case
    args = [wt.asarray([1, 0], dtype=d, device=backend) for d in dtypes]
    with wt.promotion_mode(mode):
        got = fn(name)(*args)
    assert got.dtype is expected
    assert got.weak is False


def test_float_rule_follows_the_default_float_dtype(backend):
    x = _t([4, 9], wt.int32, backend)
    with wt.set_default_float_dtype(wt.float64):
        assert wt.sqrt(x).dtype is wt.float64
        assert wt.divide(x, x).dtype is wt.float64
        assert (x / 2).dtype is wt.float64
    with wt.set_default_float_dtype(wt.float16):
        _assert_list(wt.sqrt(x), [2.0, 3.0])
        assert wt.sqrt(x).dtype is wt.float16
    assert wt.sqrt(x).dtype is wt.float32


def test_weak_flag_propagation(backend):
    w = wt.asarray([1, 2], device=backend)  # weak int32
    wf = wt.asarray([1.5, 2.0], device=backend)  # weak float32
    s8 = _t([1, 2], wt.int8, backend)
    s16 = _t([1, 2], wt.float16, backend)
    assert w.weak and wf.weak and not s8.weak
    # weak op weak -> weak (at the default dtype of the kind)
    r = w + w
    assert (r.dtype, r.weak) == (wt.int32, True)
    r = w * wf
    assert (r.dtype, r.weak) == (wt.float32, True)
    # weak op strong -> strong, and the strong dtype wins
    r = w + s8
    assert (r.dtype, r.weak) == (wt.int8, False)
    r = wf - s16
    assert (r.dtype, r.weak) == (wt.float16, False)
    r = s8 * wf
    assert (r.dtype, r.weak) == wt.result_type(s8, wf, return_weak_type_flag=True)
    # Python scalars keep weakness
    assert (w + 1).weak and (1.5 * wf).weak and not (s8 + 1).weak
    r = w + 1.5
    assert (r.dtype, r.weak) == (wt.float32, True)
    # unary ops keep the flag; the float rule turns a weak int into a weak float
    assert (-w).weak and wt.abs(wf).weak
    r = wt.sqrt(w)
    assert (r.dtype, r.weak) == (wt.float32, True)
    assert not wt.sqrt(s8).weak
    # comparisons and predicates are never weak
    for r in (w == w, w < 1, wf != wf, wt.isnan(wf), wt.logical_not(w), wt.signbit(wf),
              wt.logical_and(w, w)):
        assert (r.dtype, r.weak) == (wt.bool, False)
    # numpy mode has no weak results
    with wt.promotion_mode("numpy"):
        r = w + w
        assert r.weak is False
        r = wt.sqrt(w)
        assert r.weak is False


def test_mixed_python_scalars_and_int_tensors(backend):
    x = _t([1, 2], wt.int32, backend)
    r = x + 1
    assert (r.dtype, r.weak) == (wt.int32, False)
    r = 1 + x
    assert r.dtype is wt.int32
    _assert_list(r, [2, 3])
    r = x + 1.5
    assert r.dtype is wt.float32
    _assert_list(r, [2.5, 3.5])
    r = 1.5 - x
    _assert_list(r, [0.5, -0.5])
    r = x * 1j
    assert r.dtype is wt.complex64
    r = x + True
    assert r.dtype is wt.int32
    _assert_list(r, [2, 3])
    b = _t([True, False], wt.bool, backend)
    r = b + 1
    assert r.dtype is wt.int32 and r.weak
    with wt.promotion_mode("numpy"):
        assert (x + 1.5).dtype is wt.float64  # NumPy: int array + Python float -> float64
        assert (x + 1).dtype is wt.int32
        assert (b + 1).dtype is wt.int64
    x16 = _t([1, 2], wt.float16, backend)
    assert (x16 * 2.5).dtype is wt.float16
    assert (x16 * 2).dtype is wt.float16


@pytest.mark.parametrize("mode", MODES)
def test_out_of_range_python_int_overflow(backend, mode):
    x8 = _t([1, 2], wt.int8, backend)
    u8 = _t([1, 2], wt.uint8, backend)
    with wt.promotion_mode(mode):
        for bad in (128, -129, 300, 2 ** 40):
            # the TF modes refuse ints beyond int32 first, whatever the other operand
            dtype = "int32" if mode in ("all", "safe") and bad == 2 ** 40 else "int8"
            with pytest.raises(OverflowError, match=rf"{bad}.*{dtype}"):
                x8 + bad
            with pytest.raises(OverflowError, match=rf"{bad}.*{dtype}"):
                bad * x8
            with pytest.raises(OverflowError):
                wt.less(x8, bad)
        with pytest.raises(OverflowError, match="uint8"):
            u8 - (-1)
        _assert_list(x8 + 127, [-128, -127])  # in range: the result wraps
        x64 = _t([1], wt.int64, backend)
        _assert_list(x64 + 5, [6])
        if mode in ("all", "safe"):  # TF's modes: Python ints are int32
            with pytest.raises(OverflowError, match="int32"):
                x64 + 2 ** 40
        else:
            _assert_list(x64 + 2 ** 40, [2 ** 40 + 1])
        with pytest.raises(OverflowError, match="int32" if mode in ("all", "safe") else "int64"):
            x64 + 2 ** 63


def test_python_int_range_check_survives_the_promotion_cache(backend):
    x = _t([1], wt.int64, backend)
    with wt.promotion_mode("all"):
        x + 5  # caches (int64, int)
        with pytest.raises(OverflowError):
            x + 2 ** 40
    x8 = _t([1], wt.int8, backend)
    x8 + 1
    with pytest.raises(OverflowError):
        x8 + 1000


def test_scalar_operand_cache_tells_equal_looking_values_apart(backend):
    """Python scalar operands are cached per value.  0.0 == -0.0 and 0j == -0j, and a NaN
    equals nothing: each must still get its own operand, with its own bits, every time (the
    second round reads the cache)."""
    def bits(t):
        return [struct.pack("<f", v) for v in t.tolist()]

    x = _t([1.0, -2.0], wt.float32, backend)
    off = _t([False, False], wt.bool, backend)
    for _ in range(2):
        for value in (0.0, -0.0, 0.0, math.nan, -math.nan):
            got = wt.where(off, x, value)
            assert bits(got) == [struct.pack("<f", value)] * 2
            got = x * value  # a stretched operand: cached per shape beside the scalar
            want = [struct.pack("<f", v * value) for v in (1.0, -2.0)]
            if math.isnan(value):
                assert all(math.isnan(v) for v in got.tolist())
            else:
                assert bits(got) == want
    z = _t([1 + 1j], wt.complex64, backend)
    for _ in range(2):
        for value in (0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)):
            got = wt.where(_t([False], wt.bool, backend), z, value).tolist()[0]
            assert [math.copysign(1, p) for p in (got.real, got.imag)] == \
                [math.copysign(1, p) for p in (value.real, value.imag)]


def test_strict_and_safe_modes_refuse_through_ops(backend):
    x8 = _t([1], wt.int8, backend)
    x16 = _t([1], wt.int16, backend)
    f32 = _t([1.0], wt.float32, backend)
    with wt.promotion_mode("strict"):
        with pytest.raises(wt.TypePromotionError, match=r"wt\.add"):
            x8 + x16
        with pytest.raises(wt.TypePromotionError):
            x8 + 1.5
        assert (x8 + 1).dtype is wt.int8
        assert (f32 * 2).dtype is wt.float32
    with wt.promotion_mode("safe"):
        with pytest.raises(TypeError):
            f32 + _t([1], wt.int64, backend)
        assert (x8 + x16).dtype is wt.int16


# -- operators --------------------------------------------------------------------------------------

BINARY_OPERATORS = [
    ("add", operator.add, operator.iadd), ("subtract", operator.sub, operator.isub),
    ("multiply", operator.mul, operator.imul), ("divide", operator.truediv, operator.itruediv),
    ("floor_divide", operator.floordiv, operator.ifloordiv),
    ("remainder", operator.mod, operator.imod), ("pow", operator.pow, operator.ipow),
    ("bitwise_and", operator.and_, operator.iand), ("bitwise_or", operator.or_, operator.ior),
    ("bitwise_xor", operator.xor, operator.ixor),
    ("bitwise_left_shift", operator.lshift, operator.ilshift),
    ("bitwise_right_shift", operator.rshift, operator.irshift),
]
COMPARISON_OPERATORS = [("equal", operator.eq, operator.eq), ("not_equal", operator.ne,
                                                              operator.ne),
                        ("less", operator.lt, operator.gt), ("less_equal", operator.le,
                                                              operator.ge),
                        ("greater", operator.gt, operator.lt),
                        ("greater_equal", operator.ge, operator.le)]


def _int_operands(backend):
    return _t([1, 2, 3, 7], wt.int32, backend), _t([2, 1, 3, 2], wt.int32, backend)


@pytest.mark.parametrize(("name", "op", "iop"), BINARY_OPERATORS, ids=[c[0] for c in
                                                                      BINARY_OPERATORS])
def test_binary_operators_match_functions(backend, name, op, iop):
    x, y = _int_operands(backend)
    f = fn(name)
    for a, b in ((x, y), (x, 3), (3, x), (y, x), (x, True), (True, x)):
        got = op(a, b)
        want = f(a, b)
        assert isinstance(got, Tensor)
        assert (got.dtype, got.weak, got.shape) == (want.dtype, want.weak, want.shape)
        assert got.tolist() == want.tolist()
    if name in ("add", "subtract", "multiply", "divide", "pow", "floor_divide", "remainder"):
        xf = _t([1.5, -2.0, 4.0], wt.float64, backend)
        _assert_list(op(2.5, xf), f(2.5, xf).tolist())
        _assert_list(op(xf, 2.5), f(xf, 2.5).tolist())


SQUARED = (wt.float16, wt.bfloat16, wt.float32, wt.float64, wt.int8, wt.uint8, wt.int32,
           wt.int64)


@pytest.mark.parametrize("dt", SQUARED, ids=str)
def test_power_of_two_is_the_exactly_rounded_square(backend, dt):
    """``x ** 2`` (and ``wt.pow(x, 2.0)`` of floats, eagerly and jitted) is ``x * x``: the square
    rounded once to the dtype (wrapped for integers), on every device; the pow kernel of a
    tensor exponent may be a few ULP off on webgpu.  Its gradient is ``2 x``."""
    values = sample_values(dt, 200, seed=3)
    x = _t(values, dt, backend)
    if dt.kind == "f":
        want = [ROUND_PY[dt](v * v) for v in values]
    else:
        bits = 8 * dt.itemsize
        wrap = [(v * v) % (1 << bits) for v in values]
        want = [w - (1 << bits) if dt.kind == "i" and w >> (bits - 1) else w for w in wrap]
    two = 2.0 if dt.kind == "f" else 2
    for got in (x ** 2, wt.pow(x, two), wt.jit(lambda t: t ** 2)(x), x * x):
        assert got.dtype is dt
        _assert_list(got, want)
    if dt.kind == "f":
        # (normal values: CPU adapters may flush 2 x of a subnormal x to zero)
        finite = _t([v for v in values if 1e-30 < abs(v) < 1e3], dt, backend)
        grad = wt.grad(lambda t: wt.sum(t ** 2))(finite)
        _assert_list(grad, [2.0 * v for v in finite.tolist()])


def test_reflected_operators_keep_operand_order(backend):
    x = _t([1, 2, 4], wt.int32, backend)
    _assert_list(10 - x, [9, 8, 6])
    _assert_list(x - 10, [-9, -8, -6])
    _assert_list(10 // x, [10, 5, 2])
    _assert_list(10 % x, [0, 0, 2])
    _assert_list(2 ** x, [2, 4, 16])
    _assert_list(x ** 2, [1, 4, 16])
    _assert_list(1 << x, [2, 4, 16])
    _assert_list(256 >> x, [128, 64, 16])
    _assert_list(1 / x, [1.0, 0.5, 0.25])
    _assert_list(6 & x, [0, 2, 4])
    _assert_list(6 | x, [7, 6, 6])
    _assert_list(6 ^ x, [7, 4, 2])
    _assert_list(3.0 - x, [2.0, 1.0, -1.0])
    _assert_list((1 + 1j) * _t([2.0], wt.complex128, backend), [2 + 2j])


@pytest.mark.parametrize(("name", "op", "rop"), COMPARISON_OPERATORS,
                         ids=[c[0] for c in COMPARISON_OPERATORS])
def test_comparison_operators(backend, name, op, rop):
    x, y = _int_operands(backend)
    for a, b in ((x, y), (x, 2), (x, 2.5)):
        got = op(a, b)
        want = fn(name)(a, b)
        assert (got.dtype, got.weak) == (wt.bool, False)
        assert got.tolist() == want.tolist()
        # a scalar on the left uses the reflected comparison and gives the same answer
        if not isinstance(b, Tensor):
            assert op(b, a).tolist() == fn(name)(b, a).tolist()
            assert rop(a, b).tolist() == op(b, a).tolist()


def test_unary_operators(backend):
    x = _t([1, -2, 0], wt.int8, backend)
    _assert_list(-x, [-1, 2, 0])
    _assert_list(+x, [1, -2, 0])
    _assert_list(abs(x), [1, 2, 0])
    _assert_list(~x, [-2, 1, -1])
    b = _t([True, False], wt.bool, backend)
    _assert_list(~b, [False, True])
    f = _t([1.5, -0.0], wt.float32, backend)
    _assert_list(-f, [-1.5, 0.0])
    with pytest.raises(TypeError, match=r"bitwise_invert.*float32"):
        _ = ~f
    with pytest.raises(TypeError, match=r"negative.*bool"):
        _ = -b
    for r in (-x, +x, abs(x)):
        assert r.dtype is wt.int8


def test_matmul_operators(backend):
    a = wt.asarray([[1, 2], [3, 4]], dtype=wt.int32, device=backend)
    b = wt.asarray([[5], [6]], dtype=wt.int8, device=backend)
    r = a @ b
    assert (r.dtype, r.tolist()) == (wt.int32, [[17], [39]])
    assert a.__rmatmul__(wt.asarray([[1, 0]], dtype=wt.int32, device=backend)).tolist() == \
        [[1, 2]]
    with pytest.raises(TypeError):
        a @ "x"
    try:
        import numpy as np
    except ImportError:
        return
    r = np.array([[1, 0]], dtype=np.int32) @ a  # NumPy defers to Tensor.__rmatmul__
    assert isinstance(r, Tensor) and r.tolist() == [[1, 2]]


def test_operators_with_unsupported_operands(backend):
    x = _t([1, 2], wt.int32, backend)
    for bad in ("a", None, object(), {1: 2}):
        with pytest.raises(TypeError):
            x + bad
        with pytest.raises(TypeError):
            bad * x
        with pytest.raises(TypeError):
            _ = x < bad
    assert (x == None) is False  # noqa: E711 - NotImplemented on both sides: identity
    assert (x != "a") is True


def test_operators_with_sequences(backend):
    x = _t([1, 2, 3], wt.int32, backend)
    r = x + [1, 1, 1]
    assert r.device is backend
    _assert_list(r, [2, 3, 4])
    assert r.dtype is wt.int32  # a Python list is weak, like a scalar
    _assert_list((10, 20, 30) - x, [9, 18, 27])
    _assert_list(x == [1, 0, 3], [True, False, True])


def test_operators_with_numpy_operands(backend):
    np = pytest.importorskip("numpy")
    x = _t([1.0, 2.0], wt.float32, backend)
    r = x + np.array([1.0, 1.0], dtype=np.float32)
    assert isinstance(r, Tensor) and r.dtype is wt.float32
    r = np.array([1, 2], dtype=np.int64) + x
    assert isinstance(r, Tensor) and r.dtype is wt.result_type(wt.int64, wt.float32)
    assert r.tolist() == [2.0, 4.0]
    r = np.float64(1.0) + x  # NumPy scalars are strong (NEP 50)
    assert isinstance(r, Tensor) and r.dtype is wt.float64
    r = x < np.array([1.5, 1.5], dtype=np.float32)
    assert isinstance(r, Tensor) and r.tolist() == [True, False]
    r = np.array([1.5, 1.5], dtype=np.float32) > x
    assert isinstance(r, Tensor) and r.tolist() == [True, False]


def test_different_devices_raise(backend):
    from webtensor.device import Device

    other = Device("other", type(backend.backend))
    x = _t([1, 2], wt.int32, backend)
    y = _t([1, 2], wt.int32, other)
    with pytest.raises(ValueError, match=r"wt\.add.*different devices"):
        x + y
    with pytest.raises(ValueError, match="different devices"):
        wt.where(x > 1, x, y)
    with pytest.raises(ValueError, match=r"wt\.where.*different devices"):
        wt.where(y > 1, x, x)
    # array-likes and Python scalars join the device of the tensors they meet
    for r in (y + [1, 2], [1, 2] * y, y == (1, 2), wt.where([True, False], y, 0),
              wt.where(y > 1, 1.5, 2.5), wt.where(y > 1, y, [5, 6])):
        assert r.device is other
    _assert_list(wt.where(y > 1, 1.5, 2.5), [2.5, 1.5])


# -- in-place operators (assign_into from api.manipulation) -----------------------------------------

@pytest.mark.parametrize(("name", "op", "iop"), BINARY_OPERATORS, ids=[c[0] for c in
                                                                      BINARY_OPERATORS])
def test_inplace_operators_keep_identity_and_dtype(backend, name, op, iop):
    if name == "divide":
        x = _t([1.0, 2.0, 3.0, 7.0], wt.float32, backend)
        y = _t([2.0, 1.0, 3.0, 2.0], wt.float32, backend)
    else:
        x, y = _int_operands(backend)
    want = op(x, y).tolist()
    before = x
    x = iop(x, y)
    assert x is before
    assert x.dtype is (wt.float32 if name == "divide" else wt.int32)
    assert x.tolist() == want


def test_inplace_same_kind_casting(backend):
    x = _t([1, 2], wt.int32, backend)
    x += 1
    _assert_list(x, [2, 3])
    x -= True
    _assert_list(x, [1, 2])
    with pytest.raises(TypeError, match=r"(float32.*int32|int32.*float32)"):
        x += 1.5
    _assert_list(x, [1, 2])  # a refused in-place op leaves the target alone
    with pytest.raises(TypeError, match=r"(float32.*int32|int32.*float32)"):
        x /= 2
    f = _t([1.0, 2.0], wt.float32, backend)
    f += _t([1, 1], wt.int32, backend)
    assert f.dtype is wt.float32
    _assert_list(f, [2.0, 3.0])
    f *= _t([0.1, 0.1], wt.float64, backend)  # float64 -> float32: same kind
    assert f.dtype is wt.float32
    _assert_list(f, [0.20000000298023224, 0.30000001192092896])
    i8 = _t([100, -100], wt.int8, backend)
    i8 += _t([100, -100], wt.int16, backend)  # int16 result wraps into int8
    assert i8.dtype is wt.int8
    _assert_list(i8, [-56, 56])
    u8 = _t([1], wt.uint8, backend)
    with pytest.raises(TypeError, match=r"(int16.*uint8|uint8.*int16)"):
        u8 += _t([1], wt.int8, backend)
    b = _t([True, False], wt.bool, backend)
    b |= True
    _assert_list(b, [True, True])
    with pytest.raises(TypeError):
        b += 1
    c = _t([1 + 1j], wt.complex64, backend)
    c *= 2
    _assert_list(c, [2 + 2j])
    with pytest.raises(TypeError):
        f += c


def test_inplace_broadcasting_and_shapes(backend):
    x = wt.asarray([[1, 2, 3], [4, 5, 6]], dtype=wt.int32, device=backend)
    x += _t([10, 20, 30], wt.int32, backend)
    assert x.tolist() == [[11, 22, 33], [14, 25, 36]]
    y = _t([1, 2, 3], wt.int32, backend)
    with pytest.raises(ValueError):
        y += x  # the result (2, 3) does not fit the target (3,)
    assert y.tolist() == [1, 2, 3]


def test_inplace_writes_through_views_and_handles_overlap(backend):
    np = pytest.importorskip("numpy")
    storage = np.array([1, 2, 3, 4, 5, 6], dtype=np.int32)
    x = tensor_from_storage(storage, wt.int32, backend)
    rev = x._view((6,), (-1,), 5)  # a reversed view of the same buffer
    every_other = x._view((3,), (2,), 0)
    every_other += 100
    assert x.tolist() == [101, 2, 103, 4, 105, 6]
    assert rev.tolist() == [6, 105, 4, 103, 2, 101]
    x += rev  # overlapping operands: the right side is read before any write
    assert x.tolist() == [107, 107, 107, 107, 107, 107]


# -- clip and where ---------------------------------------------------------------------------------

def test_clip_basics(backend):
    x = _t([-5, 0, 5, 10], wt.int16, backend)
    r = wt.clip(x, 0, 6)
    assert r.dtype is wt.int16
    _assert_list(r, [0, 0, 5, 6])
    _assert_list(wt.clip(x, min=1), [1, 1, 5, 10])
    _assert_list(wt.clip(x, max=1), [-5, 0, 1, 1])
    r = wt.clip(x)
    _assert_list(r, [-5, 0, 5, 10])
    assert r is not x
    _assert_list(wt.clip(x, 6, 0), [0, 0, 0, 0])  # min > max: max wins, like NumPy
    f = _t([NAN, -1.0, 2.0], wt.float32, backend)
    _assert_list(wt.clip(f, -0.5, 0.5), [NAN, -0.5, 0.5])
    lo = _t([0.0, NAN, 0.0], wt.float32, backend)
    _assert_list(wt.clip(f, lo, 1.0), [NAN, NAN, 1.0])
    m = wt.asarray([[1, 5], [7, 9]], dtype=wt.uint8, device=backend)
    r = wt.clip(m, _t([2, 6], wt.uint8, backend), _t([[4], [8]], wt.uint8, backend))
    assert r.tolist() == [[2, 4], [7, 8]] and r.dtype is wt.uint8
    w = wt.asarray([1.5, 3.0], device=backend)
    assert wt.clip(w, 0, 2).weak
    for bad in (_t([True], wt.bool, backend), _t([1j], wt.complex64, backend)):
        with pytest.raises(TypeError, match=r"wt\.clip"):
            wt.clip(bad, 0, 1)


def test_where_basics(backend):
    c = _t([True, False, True], wt.bool, backend)
    x = _t([1, 2, 3], wt.int8, backend)
    y = _t([10, 20, 30], wt.int16, backend)
    r = wt.where(c, x, y)
    assert r.dtype is wt.int16
    _assert_list(r, [1, 20, 3])
    r = wt.where(c, x, 0)
    assert r.dtype is wt.int8 and not r.weak
    _assert_list(r, [1, 0, 3])
    r = wt.where(c, 1.5, x)
    assert r.dtype is wt.float32
    _assert_list(r, [1.5, 2.0, 1.5])
    r = wt.where(_t([2, 0, -1], wt.int32, backend), x, y)  # non-bool condition: != 0
    _assert_list(r, [1, 20, 3])
    r = wt.where(wt.asarray([[True], [False]], device=backend), x, y)
    assert r.shape == (2, 3)
    assert r.tolist() == [[1, 2, 3], [10, 20, 30]]
    wx = wt.asarray([1, 2, 3], device=backend)
    assert wt.where(c, wx, 5).weak
    assert not wt.where(c, wx, x).weak
    with pytest.raises(TypeError, match=r"wt\.where"):
        wt.where(c, x)
    with pytest.raises(ValueError):
        wt.where(_t([True, False], wt.bool, backend), x, y)


@needs_numpy
@PROPERTY
@given(data=st.data())
def test_clip_matches_numpy(backend, data):
    import numpy as np

    dt = data.draw(st.sampled_from([d for d in ALL_DTYPES if d.kind in "iuf"]), label="dtype")
    shape = data.draw(shapes(), label="shape")
    x, sx = draw_tensor(data, dt, shape, backend, dt, "clip")
    lo_hi = []
    for label in ("min", "max"):
        kind = data.draw(st.sampled_from(["none", "scalar", "tensor"]), label=label)
        if kind == "none":
            lo_hi.append(None)
        elif kind == "scalar":
            v = data.draw(dtype_values(dt), label=label)
            lo_hi.append(v)
        else:
            bshape = shape[data.draw(st.integers(0, len(shape)), label="drop"):]
            t, _ = draw_tensor(data, dt, bshape, backend, dt, "clip")
            lo_hi.append(t)
    got = wt.clip(x, *lo_hi)
    assert got.dtype is dt and got.shape == shape

    def vals(v):
        if v is None or not isinstance(v, Tensor):
            return v
        return compute_values(tensor_storage(v), dt)

    expected = compute_values(sx, dt)
    with np.errstate(all="ignore"):
        lo, hi = vals(lo_hi[0]), vals(lo_hi[1])
        if lo is not None:
            expected = np.maximum(expected, ref_cast(np.asarray(lo), dt)
                                  if not isinstance(lo, np.ndarray) else lo)
        if hi is not None:
            expected = np.minimum(expected, ref_cast(np.asarray(hi), dt)
                                  if not isinstance(hi, np.ndarray) else hi)
    expected = to_storage(ref_cast(np.asarray(expected), dt), dt)
    assert_same_values(tensor_storage(got), np.broadcast_to(expected, shape), dt,
                       zero_sign=False, context=f"clip({dt})")


@needs_numpy
@PROPERTY
@given(data=st.data())
def test_where_matches_numpy(backend, data):
    import numpy as np

    dt1 = data.draw(st.sampled_from(ALL_DTYPES), label="dtype1")
    dt2 = data.draw(st.one_of(st.just(dt1), st.sampled_from(ALL_DTYPES)), label="dtype2")
    cdt = data.draw(st.sampled_from([wt.bool, wt.int8, wt.float32]), label="cond dtype")
    s1, s2 = data.draw(broadcast_pairs(), label="shapes")
    sc = data.draw(st.sampled_from([s1, s2, ()]), label="cond shape")
    c, stc = draw_tensor(data, cdt, sc, backend, cdt, "where")
    x1, st1 = draw_tensor(data, dt1, s1, backend, dt1, "where")
    x2, st2 = draw_tensor(data, dt2, s2, backend, dt2, "where")
    dt, weak = wt.result_type(x1, x2, return_weak_type_flag=True)
    got = wt.where(c, x1, x2)
    shape = np.broadcast_shapes(sc, s1, s2)
    assert (got.shape, got.dtype, got.weak) == (shape, dt, weak)
    cond = compute_values(stc, cdt) != 0
    a = ref_cast(compute_values(st1, dt1), dt)
    b = ref_cast(compute_values(st2, dt2), dt)
    expected = to_storage(np.where(cond, a, b), dt)
    assert_same_values(tensor_storage(got), np.broadcast_to(expected, shape), dt,
                       context=f"where({cdt}, {dt1}, {dt2})")


# -- names travel through elementwise ops -----------------------------------------------------------

def test_axis_names_merge_and_clash(backend):
    x = wt.asarray([[1, 2, 3]], dtype=wt.int32, device=backend, names=("b", "x"))
    y = wt.asarray([1, 2, 3], dtype=wt.int32, device=backend, names=("x",))
    assert (x + y).names == ("b", "x")
    assert wt.sqrt(x).names == ("b", "x")
    assert (x + 1).names == ("b", "x")
    assert (x == y).names == ("b", "x")
    z = wt.asarray([1, 2, 3], dtype=wt.int32, device=backend, names=("y",))
    with pytest.raises(ValueError, match=r"wt\.add.*'x'.*'y'|wt\.add.*'y'.*'x'"):
        x + z
    u = wt.asarray([1, 2, 3], dtype=wt.int32, device=backend)
    assert (u + u).names is None


def test_bfloat16_results_are_rounded_float32_results(backend):
    """bfloat16 = float32 computed, rounded to nearest even (a NumPy-free spot check)."""
    a = [1.0, 3.0, 0.1, 1000.0, 7.0]
    b = [3.0, 7.0, 0.3, 0.001, 9.0]
    xa = _t(a, wt.bfloat16, backend)
    xb = _t(b, wt.bfloat16, backend)
    qa = [bf16_round_py(v) for v in a]
    qb = [bf16_round_py(v) for v in b]
    assert xa.tolist() == qa
    f32 = [struct.unpack("<f", struct.pack("<f", x / y))[0] for x, y in zip(qa, qb)]
    _assert_list(xa / xb, [bf16_round_py(v) for v in f32])
    f32 = [struct.unpack("<f", struct.pack("<f", x * y))[0] for x, y in zip(qa, qb)]
    _assert_list(xa * xb, [bf16_round_py(v) for v in f32])
    r = xa + 1
    assert r.dtype is wt.bfloat16
