"""The elementwise operations as data: name, arity, accepted dtype kinds, result rule.

Result rules:

* ``same``  - the promoted input dtype (add, maximum, floor...).
* ``float`` - like ``same`` for float/complex; bool and integers become the default float
  dtype first (sqrt, sin, divide...).
* ``bool``  - comparisons and predicates.
* ``real``  - complex inputs give their real dtype (abs, real, imag); others keep their dtype.
* ``complex`` - float inputs (promoted) give the complex dtype of their precision (as JAX's
  ``lax.complex``, integers are refused: convert them first).

Kinds are NumPy's letters (b bool, u unsigned, i signed, f float, c complex); an input whose
promoted dtype has another kind is refused with a TypeError naming the op and the dtype.
Backends implement each op by name.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ElementwiseOp:
    name: str
    arity: int
    kinds: str
    result: str
    doc: str


_NUM = "iufc"
_REAL = "iuf"

# name, arity, kinds, result, doc
_TABLE = [
    # unary, math
    ("abs", 1, _NUM, "real", "Absolute value (the magnitude for complex)."),
    ("acos", 1, _NUM, "float", "Inverse cosine."),
    ("acosh", 1, _NUM, "float", "Inverse hyperbolic cosine."),
    ("asin", 1, _NUM, "float", "Inverse sine."),
    ("asinh", 1, _NUM, "float", "Inverse hyperbolic sine."),
    ("atan", 1, _NUM, "float", "Inverse tangent."),
    ("atanh", 1, _NUM, "float", "Inverse hyperbolic tangent."),
    ("cos", 1, _NUM, "float", "Cosine."),
    ("cosh", 1, _NUM, "float", "Hyperbolic cosine."),
    ("exp", 1, _NUM, "float", "Exponential."),
    ("expm1", 1, _NUM, "float", "exp(x) - 1, accurate near 0."),
    ("log", 1, _NUM, "float", "Natural logarithm."),
    ("log1p", 1, _NUM, "float", "log(1 + x), accurate near 0."),
    ("log2", 1, _NUM, "float", "Base-2 logarithm."),
    ("log10", 1, _NUM, "float", "Base-10 logarithm."),
    ("sin", 1, _NUM, "float", "Sine."),
    ("sinh", 1, _NUM, "float", "Hyperbolic sine."),
    ("sqrt", 1, _NUM, "float", "Square root."),
    ("tan", 1, _NUM, "float", "Tangent."),
    ("tanh", 1, _NUM, "float", "Hyperbolic tangent."),
    ("reciprocal", 1, _NUM, "float", "1 / x."),
    # unary, same dtype
    ("negative", 1, _NUM, "same", "-x."),
    ("positive", 1, _NUM, "same", "+x."),
    ("square", 1, _NUM, "same", "x * x."),
    ("sign", 1, _NUM, "same", "-1, 0 or 1 (x / |x| for complex)."),
    ("conj", 1, _NUM, "same", "Complex conjugate."),
    ("ceil", 1, _REAL, "same", "Round toward +inf."),
    ("floor", 1, _REAL, "same", "Round toward -inf."),
    ("trunc", 1, _REAL, "same", "Round toward zero."),
    ("round", 1, _NUM, "same", "Round to nearest, ties to even."),
    ("bitwise_invert", 1, "biu", "same", "Bitwise NOT (logical NOT for bool)."),
    ("real", 1, _NUM, "real", "Real part."),
    ("imag", 1, _NUM, "real", "Imaginary part (zeros for real dtypes)."),
    # unary predicates
    ("isfinite", 1, "b" + _NUM, "bool", "True where finite."),
    ("isinf", 1, "b" + _NUM, "bool", "True where +inf or -inf."),
    ("isnan", 1, "b" + _NUM, "bool", "True where NaN."),
    ("signbit", 1, _REAL, "bool", "True where the sign bit is set."),
    ("logical_not", 1, "b" + _NUM, "bool", "Logical NOT."),
    # -- the functions Nx adds (webtensor.nx and the core) -------------------------------------
    ("cbrt", 1, _REAL, "float", "Cube root (real, negative for negative x)."),
    ("erf", 1, _REAL, "float", "The error function 2/sqrt(pi) * integral_0^x exp(-t^2) dt."),
    ("erfc", 1, _REAL, "float", "1 - erf(x), accurate where erf(x) is close to 1."),
    ("erf_inv", 1, _REAL, "float", "The inverse error function (NaN outside [-1, 1])."),
    ("rsqrt", 1, _REAL, "float", "1 / sqrt(x)."),
    ("sigmoid", 1, _REAL, "float", "The logistic function 1 / (1 + exp(-x))."),
    ("count_leading_zeros", 1, "iu", "same", "Leading zero bits in x's own width."),
    ("population_count", 1, "iu", "same", "Set bits in x's own width."),
    ("phase", 1, "fc", "real", "Phase angle atan2(imag(x), real(x)) (pi for negative reals)."),
    ("complex", 2, "f", "complex", "x1 + x2 * 1j from two float tensors (parts placed exactly)."),
    # binary arithmetic
    ("add", 2, "b" + _NUM, "same", "x1 + x2."),
    ("subtract", 2, _NUM, "same", "x1 - x2."),
    ("multiply", 2, "b" + _NUM, "same", "x1 * x2."),
    ("divide", 2, _NUM, "float", "True division x1 / x2."),
    ("floor_divide", 2, _REAL, "same", "Floor division; integer division by zero gives 0."),
    ("remainder", 2, _REAL, "same", "Remainder with the sign of x2; integer x % 0 gives 0."),
    ("pow", 2, _NUM, "same", "x1 ** x2."),
    ("maximum", 2, "b" + _REAL, "same", "Elementwise maximum; NaN propagates."),
    ("minimum", 2, "b" + _REAL, "same", "Elementwise minimum; NaN propagates."),
    ("fmax", 2, "b" + _REAL, "same", "Elementwise maximum ignoring NaN (NaN only if both are)."),
    ("fmin", 2, "b" + _REAL, "same", "Elementwise minimum ignoring NaN (NaN only if both are)."),
    ("atan2", 2, _REAL, "float", "Quadrant-aware inverse tangent of x1 / x2."),
    ("hypot", 2, _REAL, "float", "sqrt(x1**2 + x2**2) without overflow."),
    ("copysign", 2, _REAL, "float", "|x1| with the sign of x2."),
    ("nextafter", 2, _REAL, "float", "Next representable value after x1 toward x2."),
    ("logaddexp", 2, _REAL, "float", "log(exp(x1) + exp(x2))."),
    # binary bitwise
    ("bitwise_and", 2, "biu", "same", "Bitwise AND."),
    ("bitwise_or", 2, "biu", "same", "Bitwise OR."),
    ("bitwise_xor", 2, "biu", "same", "Bitwise XOR."),
    ("bitwise_left_shift", 2, "iu", "same", "x1 << x2 (0 once the shift reaches the width)."),
    ("bitwise_right_shift", 2, "iu", "same", "x1 >> x2, arithmetic for signed types."),
    # number theory (the exact result, wrapped to the dtype like every integer overflow)
    ("gcd", 2, "iu", "same", "Greatest common divisor of |x1| and |x2| (gcd(0, 0) is 0)."),
    ("lcm", 2, "iu", "same", "Least common multiple of |x1| and |x2| (0 if either is 0)."),
    # comparisons and logic
    ("equal", 2, "b" + _NUM, "bool", "x1 == x2."),
    ("not_equal", 2, "b" + _NUM, "bool", "x1 != x2."),
    ("less", 2, "b" + _REAL, "bool", "x1 < x2."),
    ("less_equal", 2, "b" + _REAL, "bool", "x1 <= x2."),
    ("greater", 2, "b" + _REAL, "bool", "x1 > x2."),
    ("greater_equal", 2, "b" + _REAL, "bool", "x1 >= x2."),
    ("logical_and", 2, "b" + _NUM, "bool", "Logical AND."),
    ("logical_or", 2, "b" + _NUM, "bool", "Logical OR."),
    ("logical_xor", 2, "b" + _NUM, "bool", "Logical XOR."),
]

ELEMENTWISE: dict[str, ElementwiseOp] = {row[0]: ElementwiseOp(*row) for row in _TABLE}

ALL_KINDS = "b" + _NUM

# The other public functions that accept only some dtype kinds: those of their data input (for
# functions that make values, of the dtype they make).  Every public function found neither
# here nor in the elementwise table accepts all 15 dtypes.  The functions check their input
# against this table (``api._common.check_supported``), and ``wt.function_supported_dtypes``
# reads it: what a function refuses and what it says it supports cannot drift apart.
FUNCTION_KINDS: dict[str, str] = {
    "clip": _REAL, "cross": _NUM, "linalg.cross": _NUM,
    **dict.fromkeys(("argmax", "argmin", "max", "min", "searchsorted"), "b" + _REAL),
    **dict.fromkeys(("median", "quantile", "percentile", "histogram"), _REAL),
    **dict.fromkeys(("fft.rfft", "fft.rfftn", "fft.ihfft"), "b" + _REAL),
    "arange": _REAL, "linspace": _NUM, "fft.fftfreq": "f", "fft.rfftfreq": "f",
    "random.bits": "u", "random.randint": "iu", "random.integers": "iu",
    "random.bernoulli": _REAL,
    **dict.fromkeys(("random.uniform", "random.normal", "random.rand", "random.randn",
                     "random.random", "random.random_sample"), "f"),
}


def function_kinds(name: str) -> str:
    """The dtype kinds public function ``name`` accepts (``"max"``, ``"linalg.cross"``...)."""
    op = ELEMENTWISE.get(name)
    if op is not None:
        return op.kinds
    return FUNCTION_KINDS.get(name, ALL_KINDS)
UNARY = tuple(op for op in ELEMENTWISE.values() if op.arity == 1)
BINARY = tuple(op for op in ELEMENTWISE.values() if op.arity == 2)

# Ops whose float result must match NumPy within a few ULP rather than bit for bit.
TRANSCENDENTAL = frozenset({
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1", "log",
    "log1p", "log2", "log10", "sin", "sinh", "tan", "tanh", "atan2", "hypot", "logaddexp", "pow",
})
# Nx's functions computed by multi-step float formulas (a few ULP on the GPU, like the above).
TRANSCENDENTAL = TRANSCENDENTAL | {"cbrt", "erf", "erfc", "erf_inv", "rsqrt", "sigmoid", "phase"}

# The unary transcendental functions (TRANSCENDENTAL less the binary ones), in a fixed order.
UNARY_TRANSCENDENTAL = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp",
                        "expm1", "log", "log1p", "log2", "log10", "sin", "sinh", "tan", "tanh")
assert set(UNARY_TRANSCENDENTAL) <= TRANSCENDENTAL

# The reduction and scan primitives' ops (every backend accepts exactly these).
REDUCTIONS = ("sum", "prod", "max", "min", "any", "all")
ARG_REDUCTIONS = ("argmax", "argmin")
SCANS = ("sum", "prod", "max", "min")
SCATTER_MODES = ("set", "add", "min", "max")  # how scatter combines an update with the target
