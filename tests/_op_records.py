"""The op-record conformance table: every public op family, one record per op, run on every
device by ``tests/test_conformance.py``.

A :class:`Record` says, for one op:

``fn``
    The callable: the public function where it reaches the backend primitive unchanged
    (``wt.sin``, ``wt.where``), else the primitive itself through :func:`prim` (a reduction to
    the input's own dtype, a scan with max, a gather with negative indices, a cast to every
    dtype): the backend contract every device implements.  ``fn(*args, **kwargs)`` returns a
    tensor or a tuple of tensors; it is traceable, so ``wt.jit(fn)`` must equal it.
``dtypes``
    The dtypes of the first operand it accepts (refusals are tested in the op's own module).
``grid(dt)``
    Deterministic :class:`Case` s (pure Python): special values (NaN of both signs, +-inf, -0.0,
    subnormals, integer extremes; all against all for binary ops), pseudo-random samples,
    strided, negative-stride and broadcast views, Python scalar operands.
``draw(dt, device)``
    A hypothesis strategy of random cases: shapes (0-d and size 0 too), views with negative and
    zero strides and offsets, weak operands, and for binary ops mixed dtypes that promote.
``oracle(case, result, device)``
    The NumPy reference check (None for ``fill``/``iota``: the reference device is theirs).
    Without NumPy (Pyodide), the reference device is the CPU device.
``agree(case, device)``
    The :class:`Tol` within which a device equals the reference device (``_oracle.REFERENCE``,
    the NumPy CPU backend): bitwise unless a bound below says otherwise; None for the inputs
    a pair is not compared on (the code says why).  ``elsewhere(dt, device)`` names the module
    that compares a whole (dtype, device) pair instead.
``native(dt)``
    On webgpu: the call must not be routed to the CPU.
``examples``, ``webgpu_examples``, ``per_dtype``
    How many random cases each device draws (per dtype with ``per_dtype``; on webgpu every
    dtype at once).

Tolerances (the bounds the suite documents; nothing else is inexact):

* ``ops.TRANSCENDENTAL`` float results: within ``TRANSCENDENTAL_ULP`` (2) ULP of NumPy's float64
  result rounded to the dtype (on special values and random cases; the pseudo-random samples
  are compared between devices only); complex results of multi-step formulas normwise within
  ``COMPLEX_*_EPS`` eps.  Between the two CPU backends: bitwise on special values except float64
  (1 ULP: libm differs), on other values 2 ULP (float64 tanh 3: NumPy's SIMD tanh); complex
  transcendental normwise within ``COMPLEX_*_EPS``; NaN payloads kept by exact ops.
* webgpu against the CPU: float32 transcendental functions within ``WEBGPU_F32_ULP`` (4) ULP
  (``logaddexp`` measured at ``max(|result|, |x1|, |x2|)``: it cancels near 0), float16 and
  bfloat16 within 2; complex64 formulas are compared normwise in ``test_webgpu_complex.py``;
  float sums, products and matrix products within ``ACCUMULATION_EPS`` eps of the largest result
  (the device sums in its own order).  float64/complex128 are routed to the CPU: bitwise.
* Data movement (copy, assign, gather, scatter set, sort, cast, where, fill, iota) keeps NaN
  payloads: bitwise.

To add an op: append a record to ``RECORDS`` (usually through a family builder below), with the
oracle and the tolerance; ``test_conformance.py`` picks it up on every device, eagerly, under
``wt.jit`` and against the reference device.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from hypothesis import strategies as st

import webtensor as wt
from _oracle import (
    ALL_DTYPES,
    BITS,
    EXACT,
    Tol,
    View,
    assert_complex_close,
    assert_same_values,
    bf16_round,
    broadcast_pairs,
    compute_values,
    dtype_values,
    ref_cast,
    run_primitive,
    sample_values,
    shapes,
    special_values,
    tensor_storage,
    to_storage,
    view_layout,
    views,
)
from webtensor import ops
from webtensor import shape as _s

ALL = tuple(ALL_DTYPES)
TRANSCENDENTAL_ULP = 2
COMPLEX_EPS = {"pow": 64}  # normwise bound (in eps) of complex formulas; others below
COMPLEX_TRANSCENDENTAL_EPS = 16
COMPLEX_FORMULA_EPS = 8
WEBGPU_F32_ULP = 4
WEBGPU_NARROW_ULP = 2  # float16 and bfloat16
ACCUMULATION_EPS = 8
# Complex ops whose result is computed part by part (compared exactly, inf/nan inputs included);
# every other complex op is compared normwise on finite inputs bounded by COMPLEX_BOUND.
COMPLEX_EXACT = {"add", "subtract", "negative", "positive", "conj", "real", "imag", "round",
                 "complex",
                 "equal", "not_equal", "isfinite", "isinf", "isnan", "logical_not",
                 "logical_and", "logical_or", "logical_xor"}
COMPLEX_BOUND = 8.0
# complex64 multi-step formulas on webgpu: normwise bounds of their own (test_webgpu_complex.py)
C64_FORMULAS = frozenset(ops.TRANSCENDENTAL | {"sqrt", "sign"})
SAMPLES = 300  # pseudo-random values per grid, after the special values


@dataclass
class Case:
    """One call: ``args`` are :class:`View` s (a tensor on each device) or plain values;
    ``label`` names the kind of input (specials, sample, scalar, view, random)."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    label: str = "sample"
    native: bool = True  # False: this call may be routed to the CPU on webgpu
    raises: tuple | None = None  # (exception type, message pattern) the call must raise
    oracle: bool = True  # False: compared between devices only
    jit: bool = True  # False: the same program as another case (not traced again)

    def tensors(self, device) -> tuple:
        return tuple(a.on(device) if isinstance(a, View) else a for a in self.args)

    def __repr__(self) -> str:
        return f"Case[{self.label}]({', '.join(map(repr, self.args))}, {self.kwargs})"


@dataclass
class Record:
    """One op of the table (the fields are described in the module docstring)."""

    name: str
    fn: Callable
    dtypes: tuple
    grid: Callable
    draw: Callable | None
    oracle: Callable | None
    agree: Callable
    native: Callable = lambda dt: False
    creates: bool = False  # fn takes device= (creation: no tensor operand)
    per_dtype: bool = False  # random cases drawn per dtype (else the draw picks dtypes itself)
    # (dt, device) -> where that pair is compared instead (None: here)
    elsewhere: Callable = lambda dt, device: None
    examples: int = 15  # hypothesis examples per device (per dtype with per_dtype)
    webgpu_examples: int = 15  # on webgpu (a software adapter is slow; every dtype at once)

    def __repr__(self) -> str:
        return self.name


def prim(name: str, out_shape, out_dt, *args, device=None):
    """Backend primitive ``name`` into a fresh ``out`` on the device of the first tensor
    argument (or ``device``), as the frontend calls it; traceable under ``wt.jit``."""
    from webtensor.tensor import Tensor

    if device is None:
        device = next(a.device for a in args if isinstance(a, Tensor))
    return run_primitive(device, name, out_shape, out_dt, *args)


def _np():
    import numpy as np

    return np


def _finite(dt, values):
    """Non-finite floats replaced by 0.5 (accumulations compared across devices)."""
    if dt.kind not in "fc":
        return values
    return [v if math.isfinite(abs(v)) else 0.5 for v in values]


def _sample_grid(dt, n, seed, *, finite=False):
    vals = sample_values(dt, n, seed)[-n:]
    return _finite(dt, vals) if finite else vals


def _strided(dt, shape, steps, pad, values):
    """A view with per-axis ``steps`` (see ``view_layout``) over ``values``, repeated to fill."""
    strides, offset, size = view_layout(shape, steps, pad)
    buf = (values * (size // max(len(values), 1) + 1))[:size]
    return View(dt, shape, strides, offset, buf)


# =================================================================================================
# elementwise: one record per op of webtensor.ops.ELEMENTWISE
# =================================================================================================

def accepted(op) -> list:
    return [dt for dt in ALL if dt.kind in op.kinds]


def float_compute_dtype(dt):
    """The dtype rule ``float`` computes ``dt`` in."""
    if dt.kind in "fc":
        return dt
    return wt.float64 if wt.get_promotion_mode() == "numpy" else wt.default_float_dtype()


def result_rule(op, dt, weak):
    """(compute dtype, output dtype, weak) of ``op`` on the promoted ``(dt, weak)``, by the rules
    in webtensor.ops; None when the op refuses dt's kind."""
    if dt.kind not in op.kinds:
        return None
    compute = float_compute_dtype(dt) if op.result == "float" else dt
    out = {"bool": wt.bool, "real": compute.real_dtype,
           "complex": compute.complex_dtype}.get(op.result, compute)
    return compute, out, bool(weak) and out is not wt.bool


def is_complex_hard(name, compute) -> bool:
    return compute.kind == "c" and name not in COMPLEX_EXACT


# -- the NumPy reference ----------------------------------------------------------------------------

_REF = None


def ref_table():
    """name -> f(compute_dtype, *values) with NumPy (values already in the compute dtype)."""
    global _REF
    if _REF is not None:
        return _REF
    np = _np()

    def ints_identity(f):
        return lambda c, a: a.copy() if c.kind in "biu" else f(a)

    def logical(f):
        return lambda c, *a: f(*[x != 0 for x in a])

    def predicate(f, for_ints):
        return lambda c, a: np.full(a.shape, for_ints) if c.kind in "biu" else f(a)

    def int_pow(c, a, b):
        if c.kind not in "iu":
            return np.power(a, b)
        info = wt.iinfo(c)
        a, b = np.broadcast_arrays(a, b)
        out = []
        for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist()):
            if y < 0:
                r = 1 if x == 1 else ((-1) ** (-y) if x == -1 else 0)
            else:
                r = pow(x, y, 1 << c.bits)
            r &= (1 << c.bits) - 1
            if c.kind == "i" and r > info.max:
                r -= 1 << c.bits
            out.append(r)
        return np.array(out, dtype=np.dtype(c.name)).reshape(a.shape)

    def nextafter(c, a, b):
        if c is wt.float16:  # y for equal inputs, as NumPy >= 2.5 (before: x, for float16 only)
            return np.where(a == b, b, np.nextafter(a, b))
        if c is not wt.bfloat16:
            return np.nextafter(a, b)
        # bfloat16 neighbours, on the bits (values arrive as float32).
        a, b = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(b, np.float32))
        bits = (a.view(np.uint32) >> 16).astype(np.int64)
        step = np.where((a < b) == (a > 0), 1, -1)
        stepped = np.where(a == 0, np.where(b > 0, 1, 0x8001), bits + step)
        out = (stepped.astype(np.uint32) << 16).view(np.float32)
        out = np.where(a == b, b, out)
        return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), out).astype(np.float32)

    def signbit(c, a):
        if c.kind == "u":
            return np.zeros(a.shape, bool)
        if c.kind == "i":
            return a < 0
        return np.signbit(a)

    def floor_divide(c, a, b):
        """NumPy's floor_divide with the Array API's special cases for infinite operands
        (NumPy gives NaN for inf // finite and -1.0 for 1 // -inf)."""
        out = np.floor_divide(a, b)
        if c.kind != "f":
            return out
        negative = np.signbit(a) != np.signbit(b)
        inf_by_finite = np.isinf(a) & np.isfinite(b) & (b != 0)
        finite_by_inf = np.isfinite(a) & (a != 0) & np.isinf(b)
        out = np.where(inf_by_finite, np.where(negative, -np.inf, np.inf), out)
        return np.where(finite_by_inf, np.where(negative, -0.0, 0.0), out).astype(out.dtype)

    plain = {
        "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin,
        "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "cos": np.cos,
        "cosh": np.cosh, "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
        "log2": np.log2, "log10": np.log10, "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt,
        "tan": np.tan, "tanh": np.tanh, "negative": np.negative, "positive": np.positive,
        "square": np.square, "sign": np.sign, "conj": np.conj, "bitwise_invert": np.invert,
        "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
        "remainder": np.remainder, "maximum": np.maximum,
        "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin, "gcd": np.gcd, "lcm": np.lcm,
        "atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
        "logaddexp": np.logaddexp, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
        "bitwise_xor": np.bitwise_xor, "bitwise_left_shift": np.left_shift,
        "bitwise_right_shift": np.right_shift, "equal": np.equal, "not_equal": np.not_equal,
        "less": np.less, "less_equal": np.less_equal, "greater": np.greater,
        "greater_equal": np.greater_equal,
    }

    def plain_op(f):
        return lambda c, *a: f(*a)

    table = {name: plain_op(f) for name, f in plain.items()}
    table.update({
        "reciprocal": lambda c, a: np.divide(np.ones_like(a), a),
        "ceil": ints_identity(np.ceil), "floor": ints_identity(np.floor),
        "trunc": ints_identity(np.trunc), "round": ints_identity(np.round),
        "real": lambda c, a: np.real(a).copy(),
        "imag": lambda c, a: np.imag(a).copy() if c.kind == "c" else np.zeros_like(a),
        "isfinite": predicate(np.isfinite, True), "isinf": predicate(np.isinf, False),
        "isnan": predicate(np.isnan, False), "signbit": signbit,
        "logical_not": logical(np.logical_not), "logical_and": logical(np.logical_and),
        "logical_or": logical(np.logical_or), "logical_xor": logical(np.logical_xor),
        "pow": int_pow, "nextafter": nextafter, "floor_divide": floor_divide,
    })
    table.update(_nx_references())
    assert set(table) == set(ops.ELEMENTWISE), set(ops.ELEMENTWISE) ^ set(table)
    _REF = table
    return table


def _nx_references():
    """The ops webtensor.nx added, with SciPy as the oracle where NumPy has no function."""
    np = _np()
    special = pytest.importorskip("scipy.special")

    def bits(c, a, count):
        width = np.dtype(c.name).itemsize * 8
        u = a.astype(np.dtype(c.name)).view(f"u{width // 8}")
        return np.array([count(int(v), width) for v in u.reshape(-1)],
                        dtype=np.dtype(c.name)).reshape(a.shape)

    def complex_(c, a, b):  # the parts are placed, not computed (inf + 1j * inf has a NaN)
        a, b = np.broadcast_arrays(a, b)
        out = np.empty(a.shape, np.complex128 if c is wt.float64 else np.complex64)
        out.real, out.imag = a, b
        return out

    return {
        "cbrt": lambda c, a: np.cbrt(a), "erf": lambda c, a: special.erf(a),
        "erfc": lambda c, a: special.erfc(a), "erf_inv": lambda c, a: special.erfinv(a),
        "rsqrt": lambda c, a: np.divide(1.0, np.sqrt(a)), "sigmoid": lambda c, a: special.expit(a),
        "phase": lambda c, a: np.angle(a) if c.kind == "c" else np.arctan2(np.zeros_like(a), a),
        "count_leading_zeros": lambda c, a: bits(c, a, lambda v, w: w - v.bit_length()),
        "population_count": lambda c, a: bits(c, a, lambda v, w: bin(v).count("1")),
        "complex": complex_,
    }


_WIDEN = {wt.float16: wt.float64, wt.bfloat16: wt.float64, wt.float32: wt.float64,
          wt.complex64: wt.complex128}


def scalar_as_numpy(v, compute):
    """A Python scalar as the NumPy value it stands for before conversion to ``compute``."""
    np = _np()
    if isinstance(v, bool):
        return np.bool_(v)
    if isinstance(v, int):
        if compute.kind in "iu":
            return np.array(v, dtype=np.dtype(compute.name))  # range-checked by then
        return np.float64(float(v))
    if isinstance(v, float):
        return np.float64(v)
    return np.complex128(v)


def reference(name, inputs, compute, out_dt, shape):
    """Expected storage array: ``inputs`` are (storage array, dtype) pairs or Python scalars."""
    np = _np()
    vals = []
    for item in inputs:
        if isinstance(item, tuple):
            storage, dt = item
            vals.append(ref_cast(compute_values(storage, dt), compute))
        else:
            vals.append(ref_cast(np.asarray(scalar_as_numpy(item, compute)), compute))
    ref_dt = compute
    if name in ops.TRANSCENDENTAL and compute in _WIDEN:
        # NumPy's float32 SIMD functions are up to ~8 ULP off where the result cancels (e.g.
        # logaddexp near 0), so the oracle computes in float64 and rounds once to the dtype.
        ref_dt = _WIDEN[compute]
        vals = [ref_cast(v, ref_dt) for v in vals]
    with np.errstate(all="ignore"):
        res = ref_table()[name](ref_dt, *vals)
    out = to_storage(ref_cast(np.asarray(res), out_dt), out_dt)
    return np.broadcast_to(out, shape)


def check_result(name, got, inputs, compute, out_dt, *, context="", select=None):
    """Compare ``got`` with the NumPy reference: bitwise (any NaN matching any NaN; either zero
    for max/min of +0 and -0), ``TRANSCENDENTAL_ULP`` for ops.TRANSCENDENTAL float results,
    normwise for complex multi-step formulas.  ``select``: a mask of the elements compared."""
    np = _np()
    expected = reference(name, inputs, compute, out_dt, got.shape)
    actual = tensor_storage(got)
    raw = [np.broadcast_to(compute_values(*it), got.shape) if isinstance(it, tuple) else it
           for it in inputs]
    if select is not None:
        expected, actual = expected[select], actual[select]
        raw = [r[select] if isinstance(r, np.ndarray) else r for r in raw]
    if out_dt.kind == "c" and is_complex_hard(name, compute):
        factor = COMPLEX_EPS.get(name, COMPLEX_TRANSCENDENTAL_EPS
                                 if name in ops.TRANSCENDENTAL else COMPLEX_FORMULA_EPS)
        if name == "pow" and compute is wt.complex64:
            # float32 squaring and exp(b log a) amplify the rounding by |b| and |b log a|
            # (the per-element bound of test_webgpu_complex.py): a near 1e-38 has |log a| 87
            a, b = (np.asarray(r, dtype=np.complex128) for r in raw)
            with np.errstate(all="ignore"):
                bound = 8 + 2 * np.abs(b) + 2 * np.abs(b * np.log(a))
            factor = np.where(np.isfinite(bound), np.fmax(factor, bound), factor)
        assert_complex_close(actual, expected, out_dt, eps_factor=factor, context=context,
                             inputs=raw)
        return
    ulp = 0
    if out_dt.kind in "fc" and (name in ops.TRANSCENDENTAL or (name == "abs" and
                                                             compute.kind == "c")):
        ulp = TRANSCENDENTAL_ULP
    if name in ("maximum", "minimum", "fmax", "fmin") and out_dt.kind == "f":
        # max(+0, -0): either zero is correct (the Array API leaves it unspecified).
        zeros = [np.asarray(r == 0) for r in raw]
        both_zero = np.broadcast_to(np.logical_and(*zeros), actual.shape)
        either = both_zero & (compute_values(actual, out_dt) == 0)
        actual = np.where(either, expected, actual)
    assert_same_values(actual, expected, out_dt, ulp=ulp, context=context, inputs=raw)


def values_strategy(dt, compute, name):
    """Input values: everything, except that normwise-compared complex ops get bounded finite
    values (their special cases follow C99 Annex G, which the NumPy oracle does not fix)."""
    if compute.kind == "c" and name not in COMPLEX_EXACT:
        if dt.kind in "iu":
            info = wt.iinfo(dt)
            return st.integers(max(info.min, -100), min(info.max, 100))
        if dt.kind in "fc":
            return dtype_values(dt, finite=True, bound=COMPLEX_BOUND)
    return dtype_values(dt)


# -- cases ------------------------------------------------------------------------------------------

def _scalar_for(name, dt):
    """The Python scalar operand of the ``scalar`` case (a shift count for shifts)."""
    if dt.kind == "b":
        return True
    if dt.kind in "iu" and name in ("bitwise_left_shift", "bitwise_right_shift"):
        return 3
    return special_values(dt)[3]


def _within(values, limit_exp: int):
    """Complex values with each part scaled by a power of two (exactly) below 2**limit_exp."""
    def one(v):
        if not math.isfinite(v) or abs(v) < 2.0 ** limit_exp:
            return v
        m, e = math.frexp(v)
        return math.ldexp(m, e % limit_exp)
    return [complex(one(v.real), one(v.imag)) for v in values]


def elementwise_grid(name):
    """Special values (all against all through stride-0 views for binary ops), samples (device agreement only: the float64 functions of Python's math module,
    NumPy and SciPy differ by more than 2 ULP in places, erfc's tail for one), a strided view
    against a Python scalar; complex multi-step formulas also on samples bounded below exp's
    overflow (the two CPU backends only)."""
    op = ops.ELEMENTWISE[name]

    def grid(dt):
        sp = special_values(dt)
        rest = sample_values(dt, SAMPLES, seed=2)[len(sp):]
        n = len(sp)
        hard = dt.kind == "c" and name not in COMPLEX_EXACT
        if op.arity == 1:
            cases = [Case((View.of(dt, sp),), label="specials"),
                     Case((View.of(dt, rest),), oracle=False, jit=False)]
        else:
            cases = [
                # all against all: (n, 1) against (1, n), broadcast to stride-0 views
                Case((View.of(dt, sp, (n, 1)), View.of(dt, sp, (1, n))), label="specials"),
                Case((View.of(dt, rest), View.of(dt, rest[::-1])), oracle=False, jit=False),
                # a negative-stride view against a Python scalar
                Case((_strided(dt, (3, 4), (-2, 2), 1, sp), _scalar_for(name, dt)),
                     label="scalar"),
            ]
        if hard:
            # below exp's overflow (88 in complex64, 709 in complex128)
            bounded = _within(rest, 6 if dt is wt.complex64 else 9)
            args = (bounded,) if op.arity == 1 else (bounded, bounded[::-1])
            cases.append(Case(tuple(View.of(dt, a) for a in args), label="bounded", jit=False,
                              oracle=False))
        return cases
    return grid


WEAKABLE = (wt.int32, wt.float32, wt.complex64)  # weak tensors exist at the default dtypes


def elementwise_draw(name):
    op = ops.ELEMENTWISE[name]

    @st.composite
    def case(draw, dt, device):
        """Random dtype(s), weak flags, shapes (broadcasting for binary ops) and layouts."""
        dt1 = draw(st.sampled_from(accepted(op)), label="dtype")
        w1 = dt1 in WEAKABLE and draw(st.booleans(), label="weak")
        if op.arity == 1:
            compute = result_rule(op, dt1, w1)[0]
            return Case((_draw_view(draw, dt1, draw(shapes(), label="shape"), compute, name,
                                    w1),), label="random")
        dt2 = draw(st.one_of(st.just(dt1), st.sampled_from(ALL)), label="dtype2")
        if draw(st.booleans(), label="swap"):
            dt1, dt2 = dt2, dt1
            w1 = dt1 in WEAKABLE and draw(st.booleans(), label="weak1")
        w2 = dt2 in WEAKABLE and draw(st.booleans(), label="weak2")
        s1, s2 = draw(broadcast_pairs(), label="shapes")
        promoted, weak = _promotion([(dt1, w1), (dt2, w2)])
        rule = result_rule(op, promoted, weak)
        compute = rule[0] if rule else promoted
        refused = None if rule else (TypeError, rf"wt\.{name}\b.*\b{promoted.name}\b")
        return Case((_draw_view(draw, dt1, s1, compute, name, w1),
                     _draw_view(draw, dt2, s2, compute, name, w2)), label="random",
                    raises=refused)
    return case


def _promotion(operands):
    """(promoted dtype, weak) of ``(dtype, weak)`` pairs and Python scalars."""
    from webtensor.tensor import Tensor

    probes = [Tensor._wrap(None, (), o[0], wt.device.cpu, weak=o[1]) if isinstance(o, tuple)
              else o for o in operands]
    if len(probes) == 1:
        return probes[0].dtype, probes[0].weak
    return wt.result_type(*probes, return_weak_type_flag=True)


def _draw_view(draw, dt, shape, compute, name, weak):
    n = _s.size_of(shape)
    values = draw(st.lists(values_strategy(dt, compute, name), min_size=n, max_size=n),
                  label=f"values {dt}")
    layout = draw(st.one_of(st.none(), st.tuples(
        st.tuples(*[st.sampled_from((1, 2, -1, -2, 0)) for _ in shape]),
        st.sampled_from((0, 3)))), label="layout")
    if layout is None:
        return View.of(dt, values, shape, weak=weak)
    steps, pad = layout
    strides, offset, size = view_layout(shape, steps, pad)
    buf = [values[0] if values else 0] * size
    for value, o in zip(values, _s.flat_offsets(shape, strides, offset)):
        buf[o] = value  # (a broadcast axis repeats one element: the last write stays)
    return View(dt, shape, strides, offset, buf, weak=weak)


def elementwise_oracle(name):
    op = ops.ELEMENTWISE[name]

    def oracle(case, got, device):
        np = _np()
        promoted, weak = _case_promotion(case)
        compute, out_dt, exp_weak = result_rule(op, promoted, weak)
        assert (got.dtype, got.weak) == (out_dt, exp_weak), (got.dtype, got.weak, out_dt, exp_weak)
        inputs = [(a.storage(), a.dt) if isinstance(a, View) else a for a in case.args]
        select = None
        if is_complex_hard(name, compute):
            # special cases (C99 Annex G) are compared between devices only
            bounded = np.ones(got.shape, bool)
            for a in case.args:
                v = np.broadcast_to(compute_values(a.storage(), a.dt) if isinstance(a, View)
                                    else np.asarray(a), got.shape)
                with np.errstate(invalid="ignore"):
                    bounded &= (np.abs(np.real(v)) <= COMPLEX_BOUND) & (
                        np.abs(np.imag(v)) <= COMPLEX_BOUND)
            select = bounded
        check_result(name, got, inputs, compute, out_dt, context=f"{name}({case.label})",
                     select=select)
    return oracle


def _case_promotion(case):
    """(promoted dtype, weak) of a case's operands (a Python scalar is weak)."""
    return _promotion([(a.dt, a.weak) if isinstance(a, View) else a for a in case.args])


def elementwise_agree(name):
    op = ops.ELEMENTWISE[name]
    unary = op.arity == 1

    def agree(case, device):
        promoted, weak = _case_promotion(case)
        compute, out, _ = result_rule(op, promoted, weak)
        transcendental = name in ops.TRANSCENDENTAL and out.kind in "fc"
        hard = is_complex_hard(name, compute) and out.kind == "c"
        if device == "webgpu":
            if case.label == "bounded":
                return None  # (for the two CPU backends' complex formulas)
            if compute in (wt.float64, wt.complex128):
                # routed to the CPU: the same code, on a contiguous copy of the operands, and
                # NumPy's float64 functions differ by an ULP between contiguous and strided loops
                contiguous = case.label in ("specials", "sample")
                return EXACT if contiguous or not transcendental else Tol(1)
            if transcendental and compute is wt.complex64 and name in C64_FORMULAS:
                return None  # normwise bounds per formula: test_webgpu_complex.py
            if transcendental:
                if compute is wt.float32:
                    return Tol(WEBGPU_F32_ULP, ulp_at_inputs=name == "logaddexp")
                return Tol(WEBGPU_NARROW_ULP)
            return EXACT
        # the pure-Python CPU backend against the NumPy one
        if transcendental and compute.kind == "c" and out.kind == "f" and \
                case.label in ("specials", "random"):
            return BITS  # phase: one atan2 of the parts (1 ULP apart on ordinary samples)
        if hard and name in ops.TRANSCENDENTAL:
            if case.label == "sample":
                return None  # |z| up to e^30: NumPy's formulas cancel there (bounded is compared)
            return Tol(complex_eps=COMPLEX_EPS.get(name, COMPLEX_TRANSCENDENTAL_EPS))
        if transcendental:
            if case.label == "specials":
                return Tol(1 if out.real_dtype is wt.float64 else 0)
            return Tol(3 if name == "tanh" and out is wt.float64 else TRANSCENDENTAL_ULP)
        if case.label == "view" and out.kind == "c":
            # the sign of the NaN of inf * nan depends on the loop NumPy picks for the layout
            return EXACT
        return Tol(nan_bits=True if unary else "inputs")
    return agree


def elementwise_native(name):
    def native(dt):
        from webtensor.backends.webgpu import exprs
        from webtensor.backends.webgpu.backend import NATIVE

        op = ops.ELEMENTWISE[name]
        compute = result_rule(op, dt, False)[0]
        if dt not in NATIVE or compute not in NATIVE:
            return False
        table = exprs.unary if op.arity == 1 else exprs.binary
        return table(name, NATIVE[compute]) is not None
    return native


def elementwise_elsewhere(name):
    def elsewhere(dt, device):
        if device == "webgpu" and name in C64_FORMULAS and dt is wt.complex64:
            return "test_webgpu_complex.py (normwise bounds per formula)"
        return None
    return elsewhere


def elementwise_records():
    return [Record(name, getattr(wt, name), tuple(accepted(op)),
                   elementwise_grid(name), elementwise_draw(name), elementwise_oracle(name),
                   elementwise_agree(name), elementwise_native(name),
                   elsewhere=elementwise_elsewhere(name), webgpu_examples=12)
            for name, op in sorted(ops.ELEMENTWISE.items())]


# =================================================================================================
# reductions, arg-reductions, scans (the primitives, to the input's own dtype)
# =================================================================================================

def _reduction_dtypes(op) -> tuple:
    return tuple(dt for dt in ALL if not (op in ("max", "min") and dt.kind == "c"))


def _reduced(shape, axes) -> tuple:
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _moderate(dt, values):
    """Floats scaled by powers of two (exactly) to magnitudes in [1, 2), zeros kept and
    non-finite values made 1.5: products of a few dozen stay normal and finite."""
    def one(v):
        if not math.isfinite(v):
            return 1.5
        return math.ldexp(math.frexp(v)[0], 1) if v else v
    if dt.kind == "f":
        return [one(v) for v in values]
    if dt.kind == "c":
        return [complex(one(v.real), one(v.imag)) for v in values]
    return values


def _accumulates(op) -> bool:
    return op in ("sum", "prod")


def _reduction_values(op, dt, n, seed):
    vals = _sample_grid(dt, n, seed, finite=True)
    return _moderate(dt, vals) if op == "prod" else vals


def reduce_fn(op):
    def fn(x, *, axes):
        out_dt = wt.bool if op in ("any", "all") else x.dtype
        return prim("reduce", _reduced(x.shape, axes), out_dt, op, x, tuple(axes))
    fn.__name__ = f"reduce_{op}"
    return fn


def _reduction_grid(op, key="axes"):
    """4x6 samples over rows, columns (and both), a strided view, the special values."""
    def grid(dt):
        vals = _reduction_values(op, dt, 24, seed=15)
        x = View.of(dt, vals, (4, 6))
        both_axes = (0, 1) if key == "axes" else 1
        def k(a):
            return (a,) if key == "axes" else a
        return [Case((x,), {key: k(1)}), Case((x,), {key: k(0)}),
                Case((x,), {key: both_axes}),
                Case((_strided(dt, (3, 4), (-2, 2), 1, vals),), {key: k(0)}, label="view"),
                Case((View.of(dt, special_values(dt)),), {key: k(0)}, label="specials")]
    return grid


def _gpu_values(op, dt, device):
    """Values for a drawn view: the webgpu device accumulates floats in its own order, so its
    sums and products are compared on finite, moderate values (overflow is order-dependent)."""
    if device == "webgpu" and _accumulates(op) and dt.kind in "fc":
        return dtype_values(dt, finite=True, bound=4.0 if op == "prod" else 1e4)
    if op == "prod" and dt.kind in "fc":
        return dtype_values(dt, bound=4.0)
    return None


def _shape_and_axis(draw, min_side=0, max_dims=3):
    """A drawn shape of 1 to ``max_dims`` axes and one of its axes."""
    shape = tuple(draw(st.lists(st.integers(min_side, 4), min_size=1, max_size=max_dims)))
    return shape, draw(st.integers(0, len(shape) - 1))


def _draw_reduction(op):
    @st.composite
    def case(draw, dt, device):
        dt = draw(st.sampled_from(_reduction_dtypes(op)))
        x = draw(views(dt, min_side=1, values=_gpu_values(op, dt, device)))
        axes = tuple(sorted(draw(st.sets(st.integers(0, max(len(x.shape) - 1, 0)),
                                         max_size=len(x.shape)))))
        return Case((x,), {"axes": axes}, label="random")
    return case


def _reduction_oracle(op):
    def oracle(case, got, device):
        """Exact for ints, bool and max/min (NaN matching NaN); float sums and products
        within rounding (NumPy sums pairwise in the dtype, webtensor in float64)."""
        np = _np()
        x, axes = case.args[0], case.kwargs["axes"]
        dt = x.dt
        v = compute_values(x.storage(), dt)
        fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "any": np.any,
              "all": np.all}[op]
        kwargs = {"dtype": v.dtype} if _accumulates(op) and dt.kind in "iu" else {}
        if dt.kind == "b" and _accumulates(op):
            fn, kwargs = (np.any if op == "sum" else np.all), {}
        with np.errstate(all="ignore"):
            expected = np.asarray(fn(v, axis=axes, **kwargs))
            gv = compute_values(tensor_storage(got), got.dtype)
            if dt.kind in "fc" and _accumulates(op):
                expected = expected.astype(gv.dtype)
                if dt is wt.bfloat16:
                    expected = bf16_round(expected)
                close = np.isclose(gv, expected, rtol=2e-2 if dt in (wt.float16, wt.bfloat16)
                                   else 1e-5, atol=0, equal_nan=True)
                close |= np.isinf(gv) | np.isinf(expected)  # overflow is order-dependent
                assert close.all(), (op, dt, gv, expected)
            elif dt.kind == "f":
                assert ((gv == expected) | (np.isnan(gv) & np.isnan(expected))).all(), (
                    gv, expected)
            else:
                assert (gv == expected).all(), (gv, expected)
    return oracle


def _accumulation_agree(op):
    def agree(case, device):
        dt = case.args[0].dt
        if device == "webgpu":
            if _accumulates(op) and dt.kind in "fc" and dt not in (wt.float64, wt.complex128):
                return Tol(rel_eps=ACCUMULATION_EPS)
            return EXACT if _accumulates(op) else BITS
        # which NaN a sum of NaNs gives is up to the hardware and NumPy's loop order
        return EXACT if _accumulates(op) else BITS
    return agree


def _capability(prim_name):
    def native(dt):
        from webtensor.backends.webgpu.backend import NATIVE
        from webtensor.device import as_device

        return dt in NATIVE and as_device("webgpu").backend.capabilities()[prim_name][
            dt.name] == "native"
    return native


def reduction_records():
    return [Record(f"reduce_{op}", reduce_fn(op), _reduction_dtypes(op),
                   _reduction_grid(op), _draw_reduction(op), _reduction_oracle(op),
                   _accumulation_agree(op), _capability("reduce"), examples=30, webgpu_examples=10)
            for op in ops.REDUCTIONS]


def arg_reduce_fn(op):
    def fn(x, *, axis):
        return prim("arg_reduce", _reduced(x.shape, (axis,)), wt.int64, op, x, axis)
    fn.__name__ = op
    return fn


def _draw_arg_reduce(op):
    @st.composite
    def case(draw, dt, device):
        dt = draw(st.sampled_from(ALL))
        ties = st.sampled_from(special_values(dt)[:6]) if draw(st.booleans()) else None
        shape, axis = _shape_and_axis(draw, min_side=1)
        return Case((draw(views(dt, shape, values=ties)),), {"axis": axis}, label="random")
    return case


def _arg_reduce_oracle(op):
    def oracle(case, got, device):
        np = _np()
        x, axis = case.args[0], case.kwargs["axis"]
        expected = getattr(np, op)(compute_values(x.storage(), x.dt), axis=axis)
        assert (tensor_storage(got) == expected).all(), (tensor_storage(got), expected)
    return oracle


def arg_reduce_records():
    return [Record(op, arg_reduce_fn(op), ALL,
                   _reduction_grid("max", key="axis"), _draw_arg_reduce(op),
                   _arg_reduce_oracle(op), lambda case, device: EXACT,
                   _capability("arg_reduce"), examples=30, webgpu_examples=10)
            for op in ops.ARG_REDUCTIONS]


def scan_fn(op):
    def fn(x, *, axis):
        return prim("scan", x.shape, x.dtype, op, x, axis)
    fn.__name__ = f"scan_{op}"
    return fn


def _draw_scan(op):
    @st.composite
    def case(draw, dt, device):
        dt = draw(st.sampled_from(_reduction_dtypes(op)))
        shape, axis = _shape_and_axis(draw)
        x = draw(views(dt, shape, values=_gpu_values(op, dt, device)))
        return Case((x,), {"axis": axis}, label="random")
    return case


def _scan_oracle(op):
    def oracle(case, got, device):
        """On the CPU devices the last prefix is the reduction over the axis, bit for bit (the
        webgpu device scans and reduces in different orders: its results are compared with
        the CPU's); ints and bool equal NumPy's accumulate."""
        np = _np()
        x, axis = case.args[0], case.kwargs["axis"]
        dt = x.dt
        if x.shape[axis] and _s.size_of(x.shape) and device.name == "cpu":
            red = reduce_fn(op)(x.on(device), axes=(axis,))
            last = np.take(tensor_storage(got), -1, axis=axis)
            assert last.tobytes() == tensor_storage(red).tobytes(), (last, tensor_storage(red))
        if dt.kind in "iub":
            v = compute_values(x.storage(), dt)
            if dt.kind == "b":
                ufunc = np.logical_or if op in ("sum", "max") else np.logical_and
                expected = ufunc.accumulate(v, axis=axis)
            else:
                ufunc = {"sum": np.add, "prod": np.multiply, "max": np.maximum,
                         "min": np.minimum}[op]
                expected = ufunc.accumulate(v, axis=axis, dtype=v.dtype)
            assert (tensor_storage(got) == expected).all()
    return oracle


def scan_records():
    return [Record(f"scan_{op}", scan_fn(op), _reduction_dtypes(op),
                   _reduction_grid(op, key="axis"), _draw_scan(op), _scan_oracle(op),
                   _accumulation_agree(op), _capability("scan"), examples=30, webgpu_examples=10)
            for op in ops.SCANS]


# =================================================================================================
# matmul, gather, scatter, sort, argsort
# =================================================================================================

def matmul_fn(a, b):
    """The matmul primitive with broadcast batch axes as stride-0 views (as the frontend
    passes them)."""
    batch = _s.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    ops_ = []
    for t in (a, b):
        shape = batch + t.shape[-2:]
        ops_.append(t._view(shape, _s.broadcast_strides(t.shape, t.strides, shape), t.offset))
    return prim("matmul", batch + (a.shape[-2], b.shape[-1]), a.dtype, *ops_)


def _matmul_grid(dt):
    vals = _sample_grid(dt, 24, seed=15, finite=True)
    return [Case((View.of(dt, vals, (4, 6)), View.of(dt, vals, (6, 4)))),
            Case((View.of(dt, vals[:12], (2, 1, 2, 3)), View.of(dt, vals[6:24], (3, 3, 2))),
                 label="batch"),
            Case((_strided(dt, (3, 4), (-2, 2), 1, vals), _strided(dt, (4, 2), (1, -3), 2, vals)),
                 label="view")]


@st.composite
def _draw_matmul(draw, dt, device):
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    a_batch = tuple(1 if draw(st.booleans()) else b for b in batch)
    b_batch = tuple(1 if draw(st.booleans()) else b for b in batch)[draw(st.integers(0, 2)):]
    bounded = dt.kind in "fc" and (device == "webgpu" or draw(st.booleans()))
    kw = {"finite": bounded, "bound": 100.0 if bounded else None}
    return Case((draw(views(dt, a_batch + (m, k), **kw)), draw(views(dt, b_batch + (k, n),
                                                                      **kw))), label="random")


def _matmul_oracle(case, got, device):
    """float64 (complex128) NumPy products rounded to the dtype, within rounding; exact for
    ints and bool."""
    np = _np()
    a, b = case.args
    dt = a.dt
    va, vb = compute_values(a.storage(), dt), compute_values(b.storage(), dt)
    gv = compute_values(tensor_storage(got), dt)
    with np.errstate(all="ignore"):
        if dt.kind in "fc":
            wide = np.complex128 if dt.kind == "c" else np.float64
            expected = np.matmul(va.astype(wide), vb.astype(wide)).astype(gv.dtype)
            if dt is wt.bfloat16:
                expected = bf16_round(expected)
            ok = np.isclose(gv, expected, rtol=1e-2 if dt.itemsize == 2 else 1e-5, atol=1e-30)
            ok |= (gv == expected) | (np.isnan(gv) & np.isnan(expected))
            # Large finite terms: the float64 BLAS order may overflow or cancel differently
            # (the CPU adds in C order: [1e38, x, -1e38] loses x there, not in BLAS's order),
            # within float64's accumulation bound k eps sum|a b|.
            scale = np.matmul(np.abs(va.astype(wide)), np.abs(vb.astype(wide)))
            ok |= ~np.isfinite(scale.astype(gv.dtype))
            exact = np.matmul(va.astype(wide), vb.astype(wide))
            k = va.shape[-1]
            ok |= np.abs(gv.astype(wide) - exact) <= 2 * k * np.finfo(np.float64).eps * scale
            assert ok.all(), (gv, expected)
        elif dt.kind == "b":
            assert (gv == np.matmul(va, vb)).all()
        else:
            assert (gv == np.matmul(va, vb)).all()


def _matmul_agree(case, device):
    dt = case.args[0].dt
    if device == "webgpu" and dt.kind in "fc" and dt not in (wt.float64, wt.complex128):
        return Tol(rel_eps=ACCUMULATION_EPS)
    return EXACT


def gather_fn(x, idx, *, axis):
    return prim("gather", idx.shape, x.dtype, x, axis, idx)


def _index_view(shape, low, high, seed):
    import random

    rnd = random.Random(seed)
    n = _s.size_of(shape)
    return View.of(wt.int64, [rnd.randint(low, high) for _ in range(n)], shape)


def _gather_grid(dt):
    vals = sample_values(dt, 35, seed=1)[-35:]
    x = View.of(dt, vals, (5, 7))
    sp = special_values(dt)
    n = len(sp)
    return [Case((x, _index_view((6, 7), -5, 4, 1)), {"axis": 0}),
            Case((x, _index_view((5, 4), -7, 6, 2)), {"axis": 1}),
            Case((_strided(dt, (3, 4), (-2, 2), 1, vals), _index_view((3, 6), -4, 3, 3)),
                 {"axis": 1}, label="view"),
            Case((View.of(dt, sp), View.of(wt.int64, list(range(-n, n)))), {"axis": 0},
                 label="specials")]


@st.composite
def _draw_gather(draw, dt, device):
    shape, axis = _shape_and_axis(draw, min_side=1)
    x = draw(views(dt, shape))
    size = shape[axis]
    idx_shape = list(shape)
    idx_shape[axis] = draw(st.integers(0, 4))
    idx = draw(views(wt.int64, tuple(idx_shape), values=st.integers(-size, size - 1)))
    return Case((x, idx), {"axis": axis}, label="random")


def _gather_oracle(case, got, device):
    np = _np()
    (x, idx), axis = case.args, case.kwargs["axis"]
    expected = np.take_along_axis(x.storage(), compute_values(idx.storage(), wt.int64), axis)
    assert tensor_storage(got).tobytes() == expected.tobytes()


def scatter_fn(op):
    def fn(base, idx, updates, *, axis):
        from webtensor.api import _reduce

        return _reduce.scatter(op, base, axis, idx, updates)
    fn.__name__ = f"scatter_{op}"
    return fn


def _scatter_dtypes(op) -> tuple:
    return tuple(dt for dt in ALL if not (op in ("min", "max") and dt.kind == "c"))


def _scatter_grid(op):
    def grid(dt):
        vals = _sample_grid(dt, 48, seed=5, finite=op == "add")
        sp = special_values(dt)
        return [Case((View.of(dt, vals[:24], (4, 6)), _index_view((3, 6), -4, 3, 4),
                      View.of(dt, vals[24:42], (3, 6))), {"axis": 0}),
                Case((View.of(dt, vals[:24], (4, 6)), _index_view((4, 9), -6, 5, 5),
                      _strided(dt, (4, 9), (1, -1), 0, vals)), {"axis": 1}, label="view"),
                Case((View.of(dt, sp), _index_view((len(sp),), -len(sp), len(sp) - 1, 6),
                      View.of(dt, sp[::-1])), {"axis": 0}, label="specials")]
    return grid


def _draw_scatter(op):
    @st.composite
    def case(draw, dt, device):
        dt = draw(st.sampled_from(_scatter_dtypes(op)))
        shape, axis = _shape_and_axis(draw, min_side=1, max_dims=2)
        base = draw(views(dt, shape, contiguous=True))
        size = shape[axis]
        idx_shape = list(shape)
        idx_shape[axis] = draw(st.integers(0, 5))  # duplicates likely
        idx = draw(views(wt.int64, tuple(idx_shape), values=st.integers(-size, size - 1)))
        upd = draw(views(dt, tuple(idx_shape)))
        return Case((base, idx, upd), {"axis": axis}, label="random")
    return case


def _scatter_oracle(op):
    def oracle(case, got, device):
        """NumPy's sequential ``ufunc.at`` (exact for ints, bool and set)."""
        np = _np()
        (base, idx, upd), axis = case.args, case.kwargs["axis"]
        dt = base.dt
        if dt.kind not in "biu" and op != "set":
            return
        ref = base.storage().copy()
        i = compute_values(idx.storage(), wt.int64)
        u = upd.storage()
        size = base.shape[axis]
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
        assert tensor_storage(got).tobytes() == ref.tobytes()
    return oracle


def _scatter_agree(op):
    def agree(case, device):
        dt = case.args[0].dt
        if op != "add":
            return BITS
        if device == "webgpu" and dt.kind in "fc" and dt not in (wt.float64, wt.complex128):
            return Tol(1)  # float64 sums of a target's updates, rounded once: 1 ULP if inexact
        return EXACT
    return agree


def sort_fn(which):
    def fn(x, *, axis, descending):
        return prim(which, x.shape, x.dtype if which == "sort" else wt.int64, x, axis,
                    descending)
    fn.__name__ = which
    return fn


def _sort_grid(dt):
    sp = special_values(dt)
    vals = sample_values(dt, 24, seed=15)[-24:]
    ties = (sp[:5] * 24)[:24]
    return [Case((View.of(dt, sp),), {"axis": 0, "descending": False}, label="specials"),
            Case((View.of(dt, sp),), {"axis": 0, "descending": True}, label="specials"),
            Case((View.of(dt, vals, (4, 6)),), {"axis": 1, "descending": False}),
            Case((View.of(dt, ties, (4, 6)),), {"axis": 0, "descending": True}, label="ties"),
            Case((_strided(dt, (3, 4), (-2, 2), 1, vals),), {"axis": 1, "descending": True},
                 label="view")]


@st.composite
def _draw_sort(draw, dt, device):
    small = draw(st.booleans())  # many ties
    shape, axis = _shape_and_axis(draw)
    x = draw(views(dt, shape, values=st.sampled_from(special_values(dt)[:5]) if small else None))
    return Case((x,), {"axis": axis, "descending": draw(st.booleans())}, label="random")


def _sort_oracle(which):
    def oracle(case, got, device):
        """NumPy's stable argsort (descending: of the flipped axis, as the stable order of
        equal keys is kept)."""
        np = _np()
        x = case.args[0]
        axis, desc = case.kwargs["axis"], case.kwargs["descending"]
        v = compute_values(x.storage(), x.dt)
        if desc:
            n = v.shape[axis]
            expected = (n - 1) - np.flip(np.argsort(np.flip(v, axis), axis=axis,
                                                    kind="stable"), axis)
        else:
            expected = np.argsort(v, axis=axis, kind="stable")
        if which == "argsort":
            assert (tensor_storage(got) == expected).all(), (tensor_storage(got), expected)
        else:
            assert tensor_storage(got).tobytes() == np.take_along_axis(
                x.storage(), expected, axis).tobytes()
    return oracle


# =================================================================================================
# cast, where, copy, assign, fill, iota
# =================================================================================================

def cast_fn(x):
    """The cast primitive from ``x``'s dtype to every dtype."""
    return tuple(prim("cast", x.shape, dst, x) for dst in ALL)


def _cast_grid(dt):
    return [Case((View.of(dt, special_values(dt)),), label="specials"),
            Case((View.of(dt, sample_values(dt, 200, seed=4)[-200:]),)),
            Case((_strided(dt, (3, 4), (-2, 2), 1, sample_values(dt, 30, seed=4)),),
                 label="view")]


@st.composite
def _draw_cast(draw, dt, device):
    return Case((draw(views(dt)),), label="random")


def _cast_oracle(case, got, device):
    """webtensor's cast rules (tests/_oracle.ref_cast), bitwise (any NaN matching any NaN)."""
    np = _np()
    x = case.args[0]
    for dst, t in zip(ALL, got):
        expected = to_storage(ref_cast(compute_values(x.storage(), x.dt), dst), dst)
        assert_same_values(tensor_storage(t), np.asarray(expected).reshape(x.shape), dst,
                           context=f"cast {x.dt} -> {dst}")


def where_fn(c, x1, x2):
    return wt.where(c, x1, x2)


def _where_grid(dt):
    vals = sample_values(dt, 50, seed=6)
    n = len(vals)
    c = View.of(wt.bool, [i % 3 == 0 for i in range(n)])
    return [Case((c, View.of(dt, vals), View.of(dt, vals[::-1]))),
            # a broadcast condition column and a mid-word view of the packed condition
            Case((View(wt.bool, (3, 5), (1, 0), 1, [True, False, True, True]),
                  View.of(dt, vals[:15], (3, 5)), View(dt, (3, 5), (0, 1), 0, vals[-5:])),
                 label="view")]


@st.composite
def _draw_where(draw, dt, device):
    src = draw(views(dt))
    other = draw(views(dt, src.shape))
    cond = draw(views(wt.bool, src.shape))
    return Case((cond, src, other), label="random")


def _where_oracle(case, got, device):
    np = _np()
    c, a, b = case.args
    expected = np.where(c.storage(), a.storage(), b.storage())
    assert tensor_storage(got).tobytes() == expected.tobytes()


def copy_fn(x):
    return prim("copy", x.shape, x.dtype, x)


# (shape, strides, offset, buffer size) of views over one buffer: 0-d, size 0, offsets,
# transposed, stepped, negative, broadcast, mixed.
LAYOUTS = {
    "0-d": ((), (), 3, 8),
    "size-0": ((2, 0, 3), (0, 3, 1), 0, 4),
    "contiguous-offset": ((3, 4), (4, 1), 5, 20),
    "transposed": ((4, 3), (1, 4), 0, 12),
    "step-2": ((3, 3), (8, 2), 1, 24),
    "negative": ((3, 4), (-4, -1), 11, 12),
    "broadcast": ((3, 5), (0, 1), 2, 8),
    "broadcast-col": ((4, 3), (1, 0), 0, 4),
    "mixed-4d": ((2, 2, 3, 2), (-24, 1, 4, 12), 24, 48),
}


def layout_view(dt, name: str, seed: int = 0) -> View:
    shape, strides, offset, size = LAYOUTS[name]
    return View(dt, shape, strides, offset, sample_values(dt, size, seed)[-size:])


def _copy_grid(dt):
    return [Case((layout_view(dt, name),), label=name) for name in LAYOUTS]


@st.composite
def _draw_copy(draw, dt, device):
    return Case((draw(views(dt)),), label="random")


def _copy_oracle(case, got, device):
    assert tensor_storage(got).tobytes() == case.args[0].storage().tobytes()


def assign_fn(buffer, src, *, shape, strides, offset):
    """``src`` assigned into a view of a copy of ``buffer``; the whole copy is the result (so
    the elements outside the view are checked too)."""
    out = prim("copy", buffer.shape, buffer.dtype, buffer)
    out.device.backend.assign(out._view(tuple(shape), tuple(strides), offset), src)
    return out


def _assign_case(dt, base, src, shape, strides, offset, label):
    return Case((View.of(dt, base), View.of(dt, src, shape)),
                {"shape": shape, "strides": strides, "offset": offset}, label=label)


def _assign_grid(dt):
    cases = []
    for name, (shape, strides, offset, size) in LAYOUTS.items():
        if "broadcast" in name:
            continue
        n = _s.size_of(shape)
        base = sample_values(dt, size, seed=7)[-size:]
        src = sample_values(dt, n + 8, seed=8)[-n:] if n else []
        cases.append(_assign_case(dt, base, src, shape, strides, offset, name))
    return cases


@st.composite
def _draw_assign(draw, dt, device):
    src = draw(views(dt))
    target = draw(views(dt, src.shape))
    return Case((View.of(dt, target.buffer), src),
                {"shape": target.shape, "strides": target.strides, "offset": target.offset},
                label="random")


def _assign_oracle(case, got, device):
    np = _np()
    buf, src = case.args
    ref = buf.storage().copy()
    kw = case.kwargs
    if _s.size_of(kw["shape"]):
        idx = np.array(_s.flat_offsets(kw["shape"], kw["strides"], kw["offset"]))
        ref[idx] = src.storage().reshape(-1)
    assert tensor_storage(got).tobytes() == ref.tobytes()


FILL_SIZES = (0, 1, 5, 67, 4097)


def fill_fn(*, value, dtype, device):
    return tuple(prim("fill", (n,), dtype, value, device=device) for n in FILL_SIZES)


def _fill_grid(dt):
    cases = []
    for value in sample_values(dt, 3, seed=14)[:8] + [True, 7, -1.5, 3e9]:
        if isinstance(value, complex) and dt.kind != "c" or \
                isinstance(value, float) and dt.kind in "iub" and not math.isfinite(value):
            continue
        cases.append(Case((), {"value": value, "dtype": dt}))
    return cases


@st.composite
def _draw_fill(draw, dt, device):
    value = draw(st.one_of(dtype_values(dt), st.integers(-(2 ** 66), 2 ** 66)))
    return Case((), {"value": value, "dtype": dt}, label="random")


def iota_fn(*, start, step, n, dtype, device):
    return prim("iota", (n,), dtype, start, step, device=device)


IOTA_ANY = ((0, 1), (5, -3), (2 ** 31 - 3, 1000), (0.5, 0.25), (-1, 7))
IOTA_INT = ((0, 1), (5, -3), (2 ** 31 - 3, 1000), (-(2 ** 40) + 7, 2 ** 33 + 5),
            (2 ** 63 + 11, -(2 ** 62)), (-1, 255))
IOTA_FLOAT_EXACT = ((0, 1), (-5, 3), (100.0, -7.0), (2 ** 23, 1), (-3000, 257))
# values a float32 kernel could not compute exactly: routed to the CPU on webgpu
IOTA_FLOAT_ROUTED = ((0.5, 0.1), (2 ** 24, 3), (1e30, 1.0))


def _iota_grid(dt):
    def case(start, step, n, native):
        return Case((), {"start": start, "step": step, "n": n, "dtype": dt}, native=native)
    cases = [case(a, b, 70, False) for a, b in IOTA_ANY
             if dt.kind != "b" and not (dt.kind in "iu" and isinstance(a, float))]
    if dt.kind in "iu":
        cases += [case(a, b, n, True) for a, b in IOTA_INT for n in (1, 5, 4097)]
    if dt in (wt.float32, wt.float16, wt.bfloat16):
        cases += [case(a, b, 4097, True) for a, b in IOTA_FLOAT_EXACT]
        cases += [case(a, b, 67, False) for a, b in IOTA_FLOAT_ROUTED]
    return cases


@st.composite
def _draw_iota(draw, dt, device):
    start = draw(st.one_of(st.integers(-(2 ** 65), 2 ** 65), st.floats(-1e6, 1e6)))
    step = draw(st.one_of(st.integers(-(2 ** 40), 2 ** 40), st.floats(-1e3, 1e3)))
    return Case((), {"start": start, "step": step, "n": 7, "dtype": dt}, label="random",
                native=False)


def _iota_native(dt):
    """Integer iota runs natively; float iota where float32 arithmetic is exact (the cases
    say which)."""
    from webtensor.backends.webgpu.backend import NATIVE

    return dt in NATIVE and dt.kind in "iuf"


def _bits(case, device):
    return BITS


def other_records():
    return [
        Record("matmul", matmul_fn, ALL, _matmul_grid, _draw_matmul, _matmul_oracle,
               _matmul_agree, _capability("matmul"), per_dtype=True),
        Record("gather", gather_fn, ALL, _gather_grid, _draw_gather, _gather_oracle,
               _bits, _capability("gather"), per_dtype=True),
        *[Record(f"scatter_{op}", scatter_fn(op), _scatter_dtypes(op),
                 _scatter_grid(op), _draw_scatter(op), _scatter_oracle(op), _scatter_agree(op),
                 _capability("scatter"), examples=30, webgpu_examples=10) for op in ops.SCATTER_MODES],
        *[Record(which, sort_fn(which), ALL, _sort_grid, _draw_sort, _sort_oracle(which),
                 _bits, _capability(which), examples=30, per_dtype=True)
          for which in ("sort", "argsort")],
        Record("cast", cast_fn, ALL, _cast_grid, _draw_cast, _cast_oracle, _bits,
               per_dtype=True),
        Record("where", where_fn, ALL, _where_grid, _draw_where, _where_oracle, _bits,
               _capability("where"), per_dtype=True),
        Record("copy", copy_fn, ALL, _copy_grid, _draw_copy, _copy_oracle, _bits,
               _capability("copy"), per_dtype=True),
        Record("assign", assign_fn, ALL, _assign_grid, _draw_assign, _assign_oracle,
               _bits, per_dtype=True),
        Record("fill", fill_fn, ALL, _fill_grid, _draw_fill, None, _bits,
               _capability("fill"), creates=True, per_dtype=True),
        Record("iota", iota_fn, ALL, _iota_grid, _draw_iota, None, _bits,
               _iota_native, creates=True, per_dtype=True),
    ]


RECORDS = (elementwise_records() + reduction_records() + arg_reduce_records() + scan_records()
           + other_records())
BY_NAME = {r.name: r for r in RECORDS}
assert len(BY_NAME) == len(RECORDS), "record names must be unique"
