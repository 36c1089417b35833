"""Per-op WGSL expressions: the elementwise ops of ``webtensor.ops`` as data.

``UNARY[op][t]`` / ``BINARY[op][t]`` is a WGSL expression in the inputs ``a`` (and ``b``) of
compute type ``t``: ``f32``, ``i32``, ``u32``, ``bool``, ``i64``/``u64`` (``vec2<u32>``: lo, hi)
or ``c64`` (``vec2<f32>``: re, im); the result has the op's output type (``bool`` for comparisons
and predicates, the real part's type for complex ``abs``/``real``/``imag``, else ``t``).  Helper
functions live in ``shaders/*.wgsl``.

A *storage* (``kernels.STORAGE``) computes in the type ``COMPUTE`` names: the narrow integers in
i32/u32 (their store keeps the low bits, which is NumPy's wrap), float16/bfloat16 in f32 (their
store rounds once to nearest even).  ``unary``/``binary``/``cast`` look an op up for a storage:
an entry under the storage's own name (``nextafter`` of float16) wins over the compute type's.
An (op, storage) pair with no expression is computed on the CPU.
"""

from __future__ import annotations

import re

from ... import ops as _ops
from ... import precision as _precision

# The type each storage computes in.
COMPUTE = {"f32": "f32", "f16": "f32", "bf16": "f32", "i32": "i32", "i16": "i32", "i8": "i32",
           "u32": "u32", "u16": "u32", "u8": "u32", "bool": "bool", "i64": "i64", "u64": "u64",
           "c64": "c64"}
# Value range of the narrow integer storages: float -> int casts saturate to it.
_RANGE = {"i8": (-128, 127), "i16": (-32768, 32767), "u8": (0, 255), "u16": (0, 65535)}

_IDENTITY = {"f32": "a", "i32": "a", "u32": "a", "i64": "a", "u64": "a"}
_INT_IDENTITY = {"i32": "a", "u32": "a", "i64": "a", "u64": "a"}
_NOT_FLOAT = ("i32", "u32", "bool", "i64", "u64")


def _float_and_complex(op: str) -> dict[str, str]:
    """``op`` on f32 and c64 (``shaders/float32.wgsl``, ``shaders/complex64.wgsl``)."""
    return {"f32": f"{op}_f32(a)", "c64": f"{op}_c64(a)"}


UNARY: dict[str, dict[str, str]] = {
    "abs": {"f32": "abs_f32(a)", "i32": "abs(a)", "u32": "a", "i64": "abs_i64(a)", "u64": "a",
            "c64": "abs_c64(a)"},
    **{op: _float_and_complex(op) for op in _ops.UNARY_TRANSCENDENTAL},
    "sqrt": {"f32": "sqrt_f32(a)", "c64": "sqrt_c64(a)"},  # *_f32: subnormal-safe (float32.wgsl)
    # opq: the shader compiler would fold 0.0 * x to 0.0 (wrong for inf, NaN and -x)
    "reciprocal": {"f32": "div_f32(1.0, a)", "c64": "div_c64(vec2<f32>(1.0, opq(0.0)), a)"},
    "negative": {"f32": "neg_f32(a)", "i32": "-a", "u32": "0u - a", "i64": "neg_u64(a)",
                 "u64": "neg_u64(a)", "c64": "neg_c64(a)"},
    "positive": {**_IDENTITY, "c64": "a"},
    "square": {"f32": "a * a", "i32": "a * a", "u32": "a * a", "i64": "mul_u64(a, a)",
               "u64": "mul_u64(a, a)", "c64": "mul_c64(a, a)"},
    "sign": {"f32": "sign_f32(a)", "i32": "sign_i32(a)", "u32": "select(0u, 1u, a != 0u)",
             "i64": "sign_i64(a)", "u64": "vec2<u32>(select(0u, 1u, nz_u64(a)), 0u)",
             "c64": "sign_c64(a)"},
    "conj": {**_IDENTITY, "c64": "conj_c64(a)"},
    "ceil": {"f32": "ceil_f32(a)", **_INT_IDENTITY},
    "floor": {"f32": "floor_f32(a)", **_INT_IDENTITY},
    "trunc": {"f32": "trunc(a)", **_INT_IDENTITY},
    # WGSL round: ties to even, like NumPy (complex: each part)
    "round": {"f32": "round(a)", **_INT_IDENTITY, "c64": "round(a)"},
    "bitwise_invert": {"i32": "~a", "u32": "~a", "bool": "!a", "i64": "~a", "u64": "~a"},
    "real": {**_IDENTITY, "c64": "a.x"},
    "imag": {"f32": "0.0", "i32": "0", "u32": "0u", "i64": "vec2<u32>(0u)",
             "u64": "vec2<u32>(0u)", "c64": "a.y"},
    "isfinite": {"f32": "is_finite_f32(a)", **dict.fromkeys(_NOT_FLOAT, "true"),
                 "c64": "is_finite_f32(a.x) & is_finite_f32(a.y)"},
    "isinf": {"f32": "is_inf_f32(a)", **dict.fromkeys(_NOT_FLOAT, "false"),
              "c64": "is_inf_f32(a.x) | is_inf_f32(a.y)"},
    "isnan": {"f32": "is_nan_f32(a)", **dict.fromkeys(_NOT_FLOAT, "false"),
              "c64": "is_nan_f32(a.x) | is_nan_f32(a.y)"},
    "signbit": {"f32": "sign_bit_f32(a)", "i32": "a < 0", "u32": "false",
                "i64": "is_neg_i64(a)", "u64": "false"},
    "logical_not": {"f32": "!nonzero_f32(a)", "i32": "a == 0", "u32": "a == 0u", "bool": "!a",
                    "i64": "!nz_u64(a)", "u64": "!nz_u64(a)", "c64": "!nonzero_c64(a)"},
}

_NZ = {"f32": "nonzero_f32({})", "i32": "({} != 0)", "u32": "({} != 0u)", "bool": "{}",
       "i64": "nz_u64({})", "u64": "nz_u64({})", "c64": "nonzero_c64({})"}


def _logical(fmt: str) -> dict[str, str]:
    return {t: fmt.format(nz.format("a"), nz.format("b")) for t, nz in _NZ.items()}



def _int64(signed: str, unsigned: str | None = None) -> dict[str, str]:
    """An int64 expression and its uint64 twin (the same unless given)."""
    return {"i64": signed, "u64": unsigned or signed}


# Nx's functions: float ones in shaders/float32.wgsl; bit counts in each storage's own width
# (8/16-bit values arrive sign- or zero-extended in 32 bits; 64-bit ones as (lo, hi) words).
def _bits(fn: str, narrow: str) -> dict[str, str]:
    """``fn`` over the low ``n`` bits of each integer storage, as ``narrow`` says per width."""
    out = {"i32": f"{fn}(a)", "u32": f"{fn}(a)"}
    for n in (8, 16):
        mask = hex((1 << n) - 1) + "u"
        out[f"u{n}"] = narrow.format(v="a", mask=mask, n=n, pad=32 - n, i="", u="u")
        out[f"i{n}"] = narrow.format(v="bitcast<u32>(a)", mask=mask, n=n, pad=32 - n, i="i32",
                                     u="u")
    return out


UNARY.update({
    **{op: {"f32": f"{op}_f32(a)"} for op in ("cbrt", "erf", "erfc", "erf_inv", "rsqrt",
                                                "sigmoid")},
    "phase": {"f32": "atan2_f32(0.0, a)", "c64": "atan2_f32(a.y, a.x)"},
    "count_leading_zeros": {
        **_bits("countLeadingZeros", "{i}(countLeadingZeros({v} & {mask}) - {pad}{u})"),
        **_int64("vec2<u32>(select(countLeadingZeros(a.y), 32u + countLeadingZeros(a.x), "
                 "a.y == 0u), 0u)")},
    "population_count": {
        **_bits("countOneBits", "{i}(countOneBits({v} & {mask}))"),
        **_int64("vec2<u32>(countOneBits(a.x) + countOneBits(a.y), 0u)")},
})

BINARY: dict[str, dict[str, str]] = {
    "add": {"f32": "a + b", "i32": "a + b", "u32": "a + b", "bool": "a | b",
            **_int64("add_u64(a, b)"), "c64": "a + b"},
    "subtract": {"f32": "a - b", "i32": "a - b", "u32": "a - b", **_int64("sub_u64(a, b)"),
                 "c64": "a - b"},
    "multiply": {"f32": "a * b", "i32": "a * b", "u32": "a * b", "bool": "a & b",
                 **_int64("mul_u64(a, b)"), "c64": "mul_c64(a, b)"},
    "divide": {"f32": "div_f32(a, b)", "c64": "div_c64(a, b)"},
    "floor_divide": {"f32": "floor_divide_f32(a, b)", "i32": "floor_div_i32(a, b)",
                     "u32": "floor_div_u32(a, b)",
                     **_int64("floor_div_i64(a, b)", "floor_div_u64(a, b)")},
    "remainder": {"f32": "remainder_f32(a, b)", "i32": "remainder_i32(a, b)",
                  "u32": "remainder_u32(a, b)",
                  **_int64("remainder_i64(a, b)", "remainder_u64(a, b)")},
    "pow": {"f32": "pow_f32(a, b)", "i32": "pow_i32(a, b)", "u32": "pow_u32(a, b)",
            **_int64("pow_i64(a, b)", "pow_u64(a, b)"), "c64": "pow_c64(a, b)"},
    "maximum": {"f32": "maximum_f32(a, b)", "i32": "max(a, b)", "u32": "max(a, b)",
                "bool": "a | b", **_int64("max_i64(a, b)", "max_u64(a, b)")},
    "minimum": {"f32": "minimum_f32(a, b)", "i32": "min(a, b)", "u32": "min(a, b)",
                "bool": "a & b", **_int64("min_i64(a, b)", "min_u64(a, b)")},
    "fmax": {"f32": "fmax_f32(a, b)", "i32": "max(a, b)", "u32": "max(a, b)",
             "bool": "a | b", **_int64("max_i64(a, b)", "max_u64(a, b)")},
    "fmin": {"f32": "fmin_f32(a, b)", "i32": "min(a, b)", "u32": "min(a, b)",
             "bool": "a & b", **_int64("min_i64(a, b)", "min_u64(a, b)")},
    "atan2": {"f32": "atan2_f32(a, b)"},
    "hypot": {"f32": "hypot_f32(a, b)"},
    "copysign": {"f32": "copysign_f32(a, b)"},
    # float16/bfloat16 step in their own format (the f32 neighbour would round back to x1)
    "nextafter": {"f32": "nextafter_f32(a, b)", "f16": "nextafter_f16(a, b)",
                  "bf16": "nextafter_bf16(a, b)"},
    "logaddexp": {"f32": "logaddexp_f32(a, b)"},
    "bitwise_and": {"i32": "a & b", "u32": "a & b", "bool": "a & b", **_int64("a & b")},
    "bitwise_or": {"i32": "a | b", "u32": "a | b", "bool": "a | b", **_int64("a | b")},
    "bitwise_xor": {"i32": "a ^ b", "u32": "a ^ b", "bool": "a != b", **_int64("a ^ b")},
    "bitwise_left_shift": {"i32": "shl_i32(a, b)", "u32": "shl_u32(a, b)",
                           **_int64("shl_i64(a, b)", "shl_u64(a, b)")},
    "bitwise_right_shift": {"i32": "shr_i32(a, b)", "u32": "shr_u32(a, b)",
                            **_int64("shr_i64(a, b)", "shr_u64(a, b)")},
    "gcd": {"i32": "gcd_i32(a, b)", "u32": "gcd_u32(a, b)",
            **_int64("gcd_i64(a, b)", "gcd_u64(a, b)")},
    "lcm": {"i32": "lcm_i32(a, b)", "u32": "lcm_u32(a, b)",
            **_int64("lcm_i64(a, b)", "lcm_u64(a, b)")},
    "equal": {"f32": "eq_f32(a, b)", "i32": "a == b", "u32": "a == b", "bool": "a == b",
              **_int64("eq_u64(a, b)"), "c64": "eq_c64(a, b)"},
    "not_equal": {"f32": "!eq_f32(a, b)", "i32": "a != b", "u32": "a != b", "bool": "a != b",
                  **_int64("!eq_u64(a, b)"), "c64": "!eq_c64(a, b)"},
    "less": {"f32": "lt_f32(a, b)", "i32": "a < b", "u32": "a < b", "bool": "!a & b",
             **_int64("lt_i64(a, b)", "lt_u64(a, b)")},
    "less_equal": {"f32": "le_f32(a, b)", "i32": "a <= b", "u32": "a <= b", "bool": "!a | b",
                   **_int64("!lt_i64(b, a)", "!lt_u64(b, a)")},
    "greater": {"f32": "lt_f32(b, a)", "i32": "a > b", "u32": "a > b", "bool": "a & !b",
                **_int64("lt_i64(b, a)", "lt_u64(b, a)")},
    "greater_equal": {"f32": "le_f32(b, a)", "i32": "a >= b", "u32": "a >= b",
                      "bool": "a | !b", **_int64("!lt_i64(a, b)", "!lt_u64(a, b)")},
    "logical_and": _logical("{} & {}"),
    "logical_or": _logical("{} | {}"),
    "logical_xor": _logical("{} != {}"),
}

BINARY["complex"] = {"f32": "vec2<f32>(a, b)"}  # two float32 parts: a complex64

# CAST[(source type, target type)]: the conversion with the CPU device's rules (float -> int
# truncates, NaN -> 0, saturates; int -> float rounds to nearest even; x -> bool is x != 0;
# int -> int wraps; complex -> real takes the real part).  Between compute types; ``cast``
# adds what a storage needs on top (saturation to a narrow integer's range).
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
    ("f32", "i64"): "f32_to_i64(a)",
    ("f32", "u64"): "f32_to_u64(a)",
    ("i32", "i64"): "i32_to_i64(a)",
    ("i32", "u64"): "i32_to_i64(a)",
    ("u32", "i64"): "vec2<u32>(a, 0u)",
    ("u32", "u64"): "vec2<u32>(a, 0u)",
    ("bool", "i64"): "vec2<u32>(select(0u, 1u, a), 0u)",
    ("bool", "u64"): "vec2<u32>(select(0u, 1u, a), 0u)",
    ("i64", "f32"): "i64_to_f32(a)",
    ("u64", "f32"): "u64_to_f32(a)",
    ("i64", "i32"): "bitcast<i32>(a.x)",
    ("u64", "i32"): "bitcast<i32>(a.x)",
    ("i64", "u32"): "a.x",
    ("u64", "u32"): "a.x",
    ("i64", "bool"): "nz_u64(a)",
    ("u64", "bool"): "nz_u64(a)",
    ("i64", "u64"): "a",
    ("u64", "i64"): "a",
    ("c64", "f32"): "a.x",
    ("c64", "bool"): "nonzero_c64(a)",
    ("f32", "c64"): "vec2<f32>(a, 0.0)",
}

WHERE = "select(c, b, a)"  # op(a: cond, b: x1, c: x2) -> x1 where cond else x2


def _lookup(table: dict[str, dict[str, str]], op: str, storage: str | None) -> str | None:
    if storage is None:
        return None
    row = table.get(op, {})
    return row.get(storage) or row.get(COMPUTE[storage])


# wt.set_precision("fast"): float32 (and float16/bfloat16, computed in float32) transcendentals
# as WGSL's built-ins, which GPUs evaluate in hardware.  WGSL leaves their accuracy (a few ULP on
# GPUs, coarser on software adapters) and their special values to the implementation; exact
# mode keeps our own functions (their ULP bounds, subnormals and special values everywhere).
FAST_F32 = {
    # (not asin/acos and the inverse hyperbolics: WGSL derives them by formulas that lose
    # digits near +-1, 3e-4 measured on lavapipe)
    **{op: f"{op}(a)" for op in ("sin", "cos", "tan", "exp", "log", "log2", "sinh", "cosh",
                                 "tanh", "atan", "sqrt")},
    "log10": "log2(a) * 0.30102999566398120",
    "atan2": "atan2(a, b)",
    "divide": "a / b",
    "reciprocal": "1.0 / a",
}


def _fast(op: str, storage: str | None) -> str | None:
    if storage is not None and COMPUTE.get(storage) == "f32" and _precision.fast():
        return FAST_F32.get(op)
    return None


def _expressions(table: dict[str, dict[str, str]], arity: str):
    """The lookup of ``table``'s WGSL expressions, memoized per (op, storage, precision): it
    runs for every op."""
    found: dict = {}

    def expression(op: str, storage: str | None) -> str | None:
        key = (op, storage, _precision.get_precision())
        try:
            return found[key]
        except KeyError:
            value = found[key] = _fast(op, storage) or _lookup(table, op, storage)
            return value

    expression.__name__ = expression.__qualname__ = arity
    expression.__doc__ = (f"The WGSL expression of {arity} ``op`` on ``storage`` values, or "
                          f"None (CPU).")
    return expression


unary = _expressions(UNARY, "unary")
binary = _expressions(BINARY, "binary")


def _compose(outer: str, inner: str) -> str:
    """``outer`` applied to the value of ``inner`` (both expressions in ``a``)."""
    return re.sub(r"\ba\b", f"({inner})", outer)


def _compute_cast(src: str, dst: str) -> str | None:
    """A cast between compute types; via f32 where no direct entry exists (complex <-> the
    rest: the real part, as the CPU takes it)."""
    if src == dst:
        return "a"
    direct = CAST.get((src, dst))
    if direct is not None:
        return direct
    if src == "c64" and ("f32", dst) in CAST:
        return _compose(CAST[("f32", dst)], "a.x")
    if dst == "c64" and (src, "f32") in CAST:
        return _compose("vec2<f32>(a, 0.0)", CAST[(src, "f32")])
    return None


def cast(src: str | None, dst: str | None) -> str | None:
    """The WGSL expression converting a ``src`` storage value to ``dst``'s compute type (the
    store does the rest: wrapping to a narrow width, rounding to float16/bfloat16), or None."""
    if src is None or dst is None:
        return None
    expr = _compute_cast(COMPUTE[src], COMPUTE[dst])
    if expr is not None and dst in _RANGE and COMPUTE[src] in ("f32", "c64"):
        # float -> narrow int saturates at the narrow range, not at 32 bits
        lo, hi = _RANGE[dst]
        expr = (f"clamp({expr}, {lo}, {hi})" if COMPUTE[dst] == "i32"
                else f"min({expr}, {hi}u)")
    return expr
