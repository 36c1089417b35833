"""Per-op WGSL expressions: the elementwise ops of ``webtensor.ops`` as data.

``UNARY[op][t]`` / ``BINARY[op][t]`` is a WGSL expression in the inputs ``a`` (and ``b``) of WGSL
type ``t`` (``f32``, ``i32``, ``u32``, ``bool``); the result has the op's output type (``bool``
for comparisons and predicates, else ``t``).  Helper functions live in ``shaders/*.wgsl``.  An
(op, type) pair missing here is computed on the CPU.
"""

from __future__ import annotations

_IDENTITY = {"f32": "a", "i32": "a", "u32": "a"}
_INT_IDENTITY = {"i32": "a", "u32": "a"}


def _float(fn: str) -> dict[str, str]:
    return {"f32": f"{fn}(a)"}


UNARY: dict[str, dict[str, str]] = {
    "abs": {"f32": "abs_f32(a)", "i32": "abs(a)", "u32": "a"},
    **{op: _float(f"{op}_f32") for op in (
        "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1",
        "log", "log1p", "log2", "log10", "sin", "sinh", "tan", "tanh")},
    "sqrt": {"f32": "sqrt(a)"},
    "reciprocal": {"f32": "1.0 / a"},
    "negative": {"f32": "neg_f32(a)", "i32": "-a", "u32": "0u - a"},
    "positive": _IDENTITY,
    "square": {"f32": "a * a", "i32": "a * a", "u32": "a * a"},
    "sign": {"f32": "sign_f32(a)", "i32": "sign_i32(a)", "u32": "select(0u, 1u, a != 0u)"},
    "conj": _IDENTITY,
    "ceil": {"f32": "ceil(a)", **_INT_IDENTITY},
    "floor": {"f32": "floor(a)", **_INT_IDENTITY},
    "trunc": {"f32": "trunc(a)", **_INT_IDENTITY},
    "round": {"f32": "round(a)", **_INT_IDENTITY},  # WGSL round: ties to even, like NumPy
    "bitwise_invert": {"i32": "~a", "u32": "~a", "bool": "!a"},
    "real": _IDENTITY,
    "imag": {"f32": "0.0", "i32": "0", "u32": "0u"},
    "isfinite": {"f32": "is_finite_f32(a)", "i32": "true", "u32": "true", "bool": "true"},
    "isinf": {"f32": "is_inf_f32(a)", "i32": "false", "u32": "false", "bool": "false"},
    "isnan": {"f32": "is_nan_f32(a)", "i32": "false", "u32": "false", "bool": "false"},
    "signbit": {"f32": "sign_bit_f32(a)", "i32": "a < 0", "u32": "false"},
    "logical_not": {"f32": "!nonzero_f32(a)", "i32": "a == 0", "u32": "a == 0u", "bool": "!a"},
}

_NZ = {"f32": "nonzero_f32({})", "i32": "({} != 0)", "u32": "({} != 0u)", "bool": "{}"}


def _logical(fmt: str) -> dict[str, str]:
    return {t: fmt.format(nz.format("a"), nz.format("b")) for t, nz in _NZ.items()}


BINARY: dict[str, dict[str, str]] = {
    "add": {"f32": "a + b", "i32": "a + b", "u32": "a + b", "bool": "a || b"},
    "subtract": {"f32": "a - b", "i32": "a - b", "u32": "a - b"},
    "multiply": {"f32": "a * b", "i32": "a * b", "u32": "a * b", "bool": "a && b"},
    "divide": {"f32": "a / b"},
    "floor_divide": {"f32": "floor_divide_f32(a, b)", "i32": "floor_div_i32(a, b)",
                     "u32": "floor_div_u32(a, b)"},
    "remainder": {"f32": "remainder_f32(a, b)", "i32": "remainder_i32(a, b)",
                  "u32": "remainder_u32(a, b)"},
    "pow": {"f32": "pow_f32(a, b)", "i32": "pow_i32(a, b)", "u32": "pow_u32(a, b)"},
    "maximum": {"f32": "maximum_f32(a, b)", "i32": "max(a, b)", "u32": "max(a, b)",
                "bool": "a || b"},
    "minimum": {"f32": "minimum_f32(a, b)", "i32": "min(a, b)", "u32": "min(a, b)",
                "bool": "a && b"},
    "atan2": {"f32": "atan2_f32(a, b)"},
    "hypot": {"f32": "hypot_f32(a, b)"},
    "copysign": {"f32": "copysign_f32(a, b)"},
    "nextafter": {"f32": "nextafter_f32(a, b)"},
    "logaddexp": {"f32": "logaddexp_f32(a, b)"},
    "bitwise_and": {"i32": "a & b", "u32": "a & b", "bool": "a && b"},
    "bitwise_or": {"i32": "a | b", "u32": "a | b", "bool": "a || b"},
    "bitwise_xor": {"i32": "a ^ b", "u32": "a ^ b", "bool": "a != b"},
    "bitwise_left_shift": {"i32": "shl_i32(a, b)", "u32": "shl_u32(a, b)"},
    "bitwise_right_shift": {"i32": "shr_i32(a, b)", "u32": "shr_u32(a, b)"},
    "equal": {"f32": "eq_f32(a, b)", "i32": "a == b", "u32": "a == b", "bool": "a == b"},
    "not_equal": {"f32": "!eq_f32(a, b)", "i32": "a != b", "u32": "a != b", "bool": "a != b"},
    "less": {"f32": "lt_f32(a, b)", "i32": "a < b", "u32": "a < b", "bool": "!a && b"},
    "less_equal": {"f32": "le_f32(a, b)", "i32": "a <= b", "u32": "a <= b", "bool": "!a || b"},
    "greater": {"f32": "lt_f32(b, a)", "i32": "a > b", "u32": "a > b", "bool": "a && !b"},
    "greater_equal": {"f32": "le_f32(b, a)", "i32": "a >= b", "u32": "a >= b",
                      "bool": "a || !b"},
    "logical_and": _logical("{} && {}"),
    "logical_or": _logical("{} || {}"),
    "logical_xor": _logical("{} != {}"),
}

# CAST[(source type, target type)]: the conversion with the CPU device's rules (float -> int
# truncates, NaN -> 0, saturates; int -> float rounds to nearest even; x -> bool is x != 0).
CAST: dict[tuple[str, str], str] = {
    ("f32", "i32"): "f32_to_i32(a)",
    ("f32", "u32"): "f32_to_u32(a)",
    ("f32", "bool"): "nonzero_f32(a)",
    ("i32", "f32"): "i32_to_f32(a)",
    ("i32", "u32"): "bitcast<u32>(a)",
    ("i32", "bool"): "a != 0",
    ("u32", "f32"): "u32_to_f32(a)",
    ("u32", "i32"): "bitcast<i32>(a)",
    ("u32", "bool"): "a != 0u",
    ("bool", "f32"): "select(0.0, 1.0, a)",
    ("bool", "i32"): "select(0, 1, a)",
    ("bool", "u32"): "select(0u, 1u, a)",
}

WHERE = "select(c, b, a)"  # op(a: cond, b: x1, c: x2) -> x1 where cond else x2
