"""Type promotion in the five modes.

Oracles: the golden tables in tests/golden/promotion/ (cell by cell, through the mode's table and
through the public ``wt.result_type`` with real operands), NumPy itself for the ``numpy`` mode,
and independent computations for n-ary rules: left folds of the golden tables (the JAX and TF
tables are associative) and the SAFE rule documented in ``webtensor/promotion.py`` evaluated with
struct-derived value ranges.
"""

import asyncio
import contextvars
import enum
import functools
import itertools
import json
import math
import struct
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import assert_refuses_non_dtype, in_new_thread, param_id
from webtensor.promotion import MODES, Lattice

GOLDEN_DIR = Path(__file__).parent / "golden" / "promotion"
MODE_FILES = {
    "standard": "jax_standard",
    "all": "tf_all",
    "safe": "tf_safe",
    "numpy": "numpy_nep50",
    "strict": "jax_strict",
}
MODE_NAMES = tuple(MODE_FILES)


@functools.cache
def golden(name):
    return json.loads((GOLDEN_DIR / f"{name}.json").read_text())


def table(mode):
    return golden(MODE_FILES[mode])["table"]


def labels(mode):
    return golden(MODE_FILES[mode])["types"]


class Weak:
    """A duck-typed weak tensor (TF's WeakTensor): a ``dtype`` and ``weak = True``."""

    __slots__ = ("dtype", "weak")

    def __init__(self, dtype):
        self.dtype = wt.dtype(dtype)
        self.weak = True

    def __repr__(self):
        return f"Weak({self.dtype.name})"


class Strong:
    """A tensor-like operand with a dtype and no weak flag."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = wt.dtype(dtype)

    def __repr__(self):
        return f"Strong({self.dtype.name})"


# Python scalars for the weak types: i* <- 1, f* <- 1.0, c* <- 1j; TF: i32* <- int,
# f32* <- float, c128* <- complex.  TF's i64* and f64* only come from weak tensors.
PY_SCALAR = {"i": 1, "f": 1.0, "c": 1j, "i32": 1, "f32": 1.0, "c128": 1j}
WEAK_TENSOR = {"i": "int64", "f": "float16", "c": "complex128", "i32": "int32",
               "i64": "int64", "f32": "float32", "f64": "float64", "c128": "complex128"}
DEFAULT_OF = {"i": wt.default_int_dtype, "f": wt.default_float_dtype,
              "c": wt.default_complex_dtype}


def operand_variants(label):
    """Real operands that stand for a golden-table label."""
    if not label.endswith("*"):
        return [wt.dtype(label), Strong(label)]
    base = label[:-1]
    variants = [PY_SCALAR[base]] if base in PY_SCALAR else []
    return variants + [Weak(WEAK_TENSOR[base])]


def operand(label):
    return operand_variants(label)[0]


def expected(mode, label):
    """The golden result label as ``(dtype, weak)``; None for "error"."""
    if label == "error":
        return None
    if not label.endswith("*"):
        return wt.dtype(label), False
    base = label[:-1]
    dt = DEFAULT_OF[base]() if base in DEFAULT_OF else wt.dtype(base)
    return dt, True


def outcome(*args):
    """What result_type does: ("ok", dtype, weak) or ("error", exception type)."""
    try:
        dt, weak = wt.result_type(*args, return_weak_type_flag=True)
    except (wt.TypePromotionError, OverflowError) as e:
        return ("error", type(e))
    return ("ok", dt, weak)


def as_outcome(exp):
    return ("error", wt.TypePromotionError) if exp is None else ("ok", *exp)


def fold(mode, labs):
    """Left fold of the golden table (label space); "error" is absorbing."""
    t = table(mode)
    result = labs[0]
    if len(labs) == 1:
        return t[f"{result},{result}"]
    for lab in labs[1:]:
        if result == "error":
            return "error"
        result = t[f"{result},{lab}"]
    return result


# ---------------------------------------------------------------------------------------------
# Golden tables, cell by cell.


def test_golden_files_are_the_shared_reference():
    assert sorted(p.name for p in GOLDEN_DIR.iterdir()) == sorted(
        [f"{f}.json" for f in MODE_FILES.values()]
        + ["array_api_required.json", "ivy_tables.json", "README.md", "nx_v04.json",
           "make_nx_v04.py"])
    for mode in MODE_NAMES:
        n = len(labels(mode))
        assert len(table(mode)) == n * n


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_mode_types_match_golden_labels(mode):
    got = [d.short if isinstance(d, wt.DType) else d.name for d in MODES[mode].types()]
    assert sorted(got) == sorted(labels(mode))
    assert set(MODES[mode].table()) == {(a, b) for a in labels(mode) for b in labels(mode)}


@pytest.mark.parametrize("mode,row", [(m, r) for m in MODE_NAMES for r in labels(m)])
def test_mode_table_row_matches_golden(mode, row):
    mine = MODES[mode].table()
    bad = []
    for col in labels(mode):
        want = table(mode)[f"{row},{col}"]
        if want != "n/a" and mine[row, col] != want:
            bad.append(f"{row},{col}: {mine[row, col]} != golden {want}")
    assert not bad


@pytest.mark.parametrize("mode,row", [(m, r) for m in MODE_NAMES for r in labels(m)])
def test_result_type_row_matches_golden(mode, row):
    """Every cell again through the public API with real operands (dtypes, tensor-likes,
    Python scalars, weak tensors), with and without the weak flag."""
    bad = []
    with wt.promotion_mode(mode):
        for col in labels(mode):
            want = table(mode)[f"{row},{col}"]
            if want == "n/a":
                continue
            exp = expected(mode, want)
            for a, b in itertools.product(operand_variants(row), operand_variants(col)):
                got = outcome(a, b)
                if got != as_outcome(exp):
                    bad.append(f"result_type({a!r}, {b!r}) -> {got}, golden {want}")
                elif exp is not None:
                    plain = wt.result_type(a, b)
                    if plain is not exp[0]:
                        bad.append(f"result_type({a!r}, {b!r}) -> {plain!r} without the flag")
    assert not bad


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_return_weak_type_flag_shape(mode):
    with wt.promotion_mode(mode):
        for lab in labels(mode):
            res = wt.result_type(operand(lab), return_weak_type_flag=True)
            assert isinstance(res, tuple) and len(res) == 2
            assert isinstance(res[0], wt.DType) and type(res[1]) is bool
            assert isinstance(wt.result_type(operand(lab)), wt.DType)


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_single_operand_is_the_diagonal(mode):
    with wt.promotion_mode(mode):
        for lab in labels(mode):
            want = table(mode)[f"{lab},{lab}"]
            if want != "n/a":
                assert outcome(operand(lab)) == as_outcome(expected(mode, want)), lab


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_promote_types_on_dtype_pairs(mode):
    strong = [lab for lab in labels(mode) if not lab.endswith("*")]
    with wt.promotion_mode(mode):
        for a, b in itertools.product(strong, repeat=2):
            want = table(mode)[f"{a},{b}"]
            if want == "n/a":
                continue
            if want == "error":
                with pytest.raises(wt.TypePromotionError):
                    wt.promote_types(a, b)
            else:
                assert wt.promote_types(wt.dtype(a), a) is wt.dtype(a)
                assert wt.promote_types(a, Strong(b)) is expected(mode, want)[0], (a, b)


@pytest.mark.parametrize("defaults", [
    ("int64", "float64", "complex128"),
    ("int16", "float16", "complex64"),
    ("uint8", "bfloat16", "complex128"),
])
@pytest.mark.parametrize("mode", MODE_NAMES)
def test_weak_results_follow_default_dtypes(mode, defaults):
    """standard/strict: weak results materialize to the current defaults; TF's sized weak types
    and NumPy's 64-bit scalars ignore them."""
    int_dt, float_dt, complex_dt = map(wt.dtype, defaults)
    with wt.promotion_mode(mode), wt.set_default_int_dtype(int_dt), \
            wt.set_default_float_dtype(float_dt), wt.set_default_complex_dtype(complex_dt):
        assert DEFAULT_OF["i"]() is int_dt  # what expected() will use
        for a, b in itertools.product(labels(mode), repeat=2):
            want = table(mode)[f"{a},{b}"]
            if want == "n/a":
                continue
            assert outcome(operand(a), operand(b)) == as_outcome(expected(mode, want)), (a, b)
            if want in ("i*", "f*", "c*"):
                assert wt.result_type(operand(a), operand(b)) is {
                    "i*": int_dt, "f*": float_dt, "c*": complex_dt}[want]


def test_standard_weak_default_example():
    # The issue: weak results materialize to the default dtypes (int32/float32/complex64).
    assert wt.result_type(1, 1.0, return_weak_type_flag=True) == (wt.float32, True)
    with wt.set_default_float_dtype(wt.float64):
        assert wt.result_type(1, 1.0, return_weak_type_flag=True) == (wt.float64, True)
        assert wt.result_type(wt.float16, 1.0) is wt.float16


# ---------------------------------------------------------------------------------------------
# The other reference tables.


@pytest.mark.parametrize("mode", ["standard", "all", "numpy"])
def test_array_api_required_cells(mode):
    required = golden("array_api_required")["table"]
    checked = 0
    with wt.promotion_mode(mode):
        for key, want in required.items():
            if want == "unspecified":
                continue
            a, b = key.split(",")
            assert wt.result_type(wt.dtype(a), wt.dtype(b)) is wt.dtype(want), key
            assert wt.promote_types(a, b) is wt.dtype(want), key
            checked += 1
    assert checked > 50


def test_ivy_precise_table_is_numpy_mode():
    precise = golden("ivy_tables")["precise_mode_table"]
    with wt.promotion_mode("numpy"):
        for key, want in precise.items():
            a, b = key.split(",")
            assert wt.promote_types(a, b) is wt.dtype(want), key


def test_ivy_non_precise_table_is_standard_with_64_bit_float_default():
    non_precise = golden("ivy_tables")["non_precise_table"]
    standard = table("standard")
    differing = {key for key, want in non_precise.items() if standard[key] != want}
    u64_signed = {f"{a},{b}" for a in ("u64",) for b in ("i8", "i16", "i32", "i64")}
    u64_signed |= {f"{b},{a}" for a, b in (k.split(",") for k in u64_signed)}
    assert differing == u64_signed  # what the data says
    for key in differing:
        assert (non_precise[key], standard[key]) == ("f64", "f*")
    # standard's weak float materializes to the default float: with float64, Ivy's table exactly
    with wt.set_default_float_dtype(wt.float64):
        for key, want in non_precise.items():
            a, b = key.split(",")
            assert wt.result_type(wt.dtype(a), wt.dtype(b)) is wt.dtype(want), key
    for key in sorted(differing):
        a, b = key.split(",")
        assert wt.result_type(a, b) is wt.default_float_dtype()


# ---------------------------------------------------------------------------------------------
# SAFE mode.

_EXACT_INT_CODES = {"i8": "b", "u8": "B", "i16": "h", "u16": "H", "i32": "i", "u32": "I",
                    "i64": "q", "u64": "Q"}
_FLOAT_CODES = {"f16": "e", "f32": "f", "f64": "d"}


def _int_range(short):
    code = "<" + _EXACT_INT_CODES[short]
    bits = 8 * struct.calcsize(code)
    lo = -(2 ** (bits - 1)) if short.startswith("i") else 0
    for v in (lo, lo + 2 ** bits - 1):  # what struct packs is the range
        struct.pack(code, v)
    for v in (lo - 1, lo + 2 ** bits):
        with pytest.raises(struct.error):
            struct.pack(code, v)
    return lo, lo + 2 ** bits - 1


def _float_format(short):
    """(mantissa bits, max, smallest subnormal) from bit patterns; bf16 = top of a float32."""
    if short == "bf16":
        def dec(p):
            return struct.unpack("<f", struct.pack("<I", p << 16))[0]
        one = struct.unpack("<I", struct.pack("<f", 1.0))[0] >> 16
        inf = struct.unpack("<I", struct.pack("<f", math.inf))[0] >> 16
    else:
        code = "<" + _FLOAT_CODES[short]
        size = struct.calcsize(code)

        def dec(p):
            return struct.unpack(code, p.to_bytes(size, "little"))[0]
        one = int.from_bytes(struct.pack(code, 1.0), "little")
        inf = int.from_bytes(struct.pack(code, math.inf), "little")
    return round(-math.log2(dec(one + 1) - 1.0)), dec(inf - 1), dec(1)


def exact(a, b):
    """Does every value of dtype ``a`` convert to dtype ``b`` without loss? (labels)"""
    if a == b or a == "b":
        return True
    if b == "b":
        return False
    if b.startswith("c"):
        if a.startswith("c"):
            return exact({"c64": "f32", "c128": "f64"}[a], {"c64": "f32", "c128": "f64"}[b])
        return exact(a, {"c64": "f32", "c128": "f64"}[b])
    if a.startswith("c"):
        return False
    if a in _EXACT_INT_CODES:
        lo, hi = _int_range(a)
        if b in _EXACT_INT_CODES:
            blo, bhi = _int_range(b)
            return blo <= lo and hi <= bhi
        mantissa, largest, _ = _float_format(b)
        return max(-lo, hi) <= 2 ** (mantissa + 1) and hi <= largest
    if b in _EXACT_INT_CODES:
        return False
    (ma, xa, sa), (mb, xb, sb) = _float_format(a), _float_format(b)
    return ma <= mb and xa <= xb and sa >= sb


def _materialized(label):
    return label[:-1] if label.endswith("*") else label


def safe_reference(labs):
    """The SAFE n-ary rule as documented in webtensor/promotion.py, on top of ALL's results:
    the result must be the dtype of one of the operands and every other strong operand must
    convert to it exactly.  Returns the result label or "error"."""
    result = fold("all", labs)
    target = _materialized(result)
    if not any(_materialized(lab) == target for lab in labs):
        return "error"
    for lab in labs:
        if not lab.endswith("*") and not exact(lab, target):
            return "error"
    return result


def test_safe_reference_rule_reproduces_tf_safe_table():
    safe, all_ = table("safe"), table("all")
    for a, b in itertools.product(labels("safe"), repeat=2):
        assert safe_reference([a, b]) == safe[f"{a},{b}"], (a, b)
        if safe[f"{a},{b}"] != "error":
            assert safe[f"{a},{b}"] == all_[f"{a},{b}"]


def test_safe_disallowed_pairs():
    data = golden("tf_safe")
    errors = {frozenset(k.split(",")) for k, v in data["table"].items() if v == "error"}
    assert errors == {frozenset(p) for p in data["disallowed_pairs"]}
    assert len(errors) == 51  # the count


@pytest.mark.parametrize("pair", golden("tf_safe")["disallowed_pairs"], ids=",".join)
def test_safe_error_message(pair):
    a, b = pair
    with wt.promotion_mode("safe"):
        for x, y in ((operand(a), operand(b)), (operand(b), operand(a))):
            with pytest.raises(wt.TypePromotionError) as info:
                wt.result_type(x, y)
            assert isinstance(info.value, TypeError)
            msg = str(info.value)
            for lab in (a, b):
                dt, weak = expected("safe", lab)
                assert f"({dt.name}, weak={weak})" in msg, msg
            assert "'safe'" in msg
            assert "Cast explicitly" in msg
            assert "wt.set_promotion_mode('all')" in msg


def test_safe_seed_examples():
    # The seed: i32 + f32 and i8 + u32 are allowed in ALL and refused in SAFE.
    for a, b in ((wt.int32, wt.float32), (wt.int8, wt.uint32)):
        with wt.promotion_mode("all"):
            allowed = wt.result_type(a, b)
        with wt.promotion_mode("safe"), pytest.raises(TypeError, match="disallowed"):
            wt.result_type(a, b)
        assert allowed is wt.dtype(table("all")[f"{a.short},{b.short}"])


def test_safe_nary_is_order_independent_readme_example():
    # TF: (u8, i8, i16) raises, (i16, u8, i8) does not.  webtensor decides once for the set.
    with wt.promotion_mode("safe"):
        first = outcome(wt.uint8, wt.int8, wt.int16)
        second = outcome(wt.int16, wt.uint8, wt.int8)
        assert first == second
        assert first == as_outcome(expected("safe", safe_reference(["u8", "i8", "i16"])))
        with pytest.raises(wt.TypePromotionError):
            wt.result_type(wt.uint8, wt.int8)


def _multisets(mode, k):
    return itertools.combinations_with_replacement(labels(mode), k)


def test_safe_nary_matches_documented_rule_for_all_triples():
    bad = []
    with wt.promotion_mode("safe"):
        for labs in _multisets("safe", 3):
            want = as_outcome(expected("safe", safe_reference(list(labs))))
            for perm in set(itertools.permutations(labs)):
                got = outcome(*map(operand, perm))
                if got != want:
                    bad.append((perm, got, want))
    assert not bad[:10]


# ---------------------------------------------------------------------------------------------
# N-ary results: order independence, associativity, folds.


@pytest.mark.parametrize("mode", ["standard", "all", "strict"])
def test_nary_equals_golden_fold_for_all_triples(mode):
    """These tables are associative: the n-ary result is any fold of the golden table."""
    bad = []
    with wt.promotion_mode(mode):
        for labs in _multisets(mode, 3):
            want = as_outcome(expected(mode, fold(mode, list(labs))))
            for perm in set(itertools.permutations(labs)):
                got = outcome(*map(operand, perm))
                if got != want:
                    bad.append((perm, got, want))
    assert not bad[:10]


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_nary_order_independent_for_all_triples(mode):
    bad = []
    with wt.promotion_mode(mode):
        for labs in _multisets(mode, 3):
            perms = list(itertools.permutations(labs))
            first = outcome(*map(operand, perms[0]))
            bad += [p for p in perms[1:] if outcome(*map(operand, p)) != first]
    assert not bad[:10]


def _rebuild(out):
    """A result as an operand again: a weak result becomes a weak tensor."""
    _, dt, weak = out
    return Weak(dt) if weak else dt


_SMALL_INTS = st.integers(-100, 100)


def _operands(mode, ints=_SMALL_INTS):
    dtypes = st.sampled_from(wt.all_dtypes)
    scalars = st.one_of(st.booleans(), ints, st.floats(), st.complex_numbers())
    weak = st.sampled_from(labels(mode)).filter(lambda lab: lab.endswith("*")).map(
        lambda lab: operand_variants(lab)[-1])
    return st.one_of(dtypes, dtypes.map(Strong), scalars, weak)


@pytest.mark.parametrize("mode", MODE_NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_commutative(mode, data):
    a, b = data.draw(_operands(mode)), data.draw(_operands(mode))
    with wt.promotion_mode(mode):
        assert outcome(a, b) == outcome(b, a)


@pytest.mark.parametrize("mode", MODE_NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_order_independent(mode, data):
    ops = data.draw(st.lists(_operands(mode), min_size=1, max_size=5))
    with wt.promotion_mode(mode):
        first = outcome(*ops)
        for perm in itertools.permutations(ops):
            assert outcome(*perm) == first, perm


@pytest.mark.parametrize("mode", ["standard", "all", "strict"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_associative(mode, data):
    # Non-negative ints: a folded weak result no longer knows the int's value to range-check it
    a, b, c = (data.draw(_operands(mode, st.integers(0, 100))) for _ in range(3))
    with wt.promotion_mode(mode):
        whole = outcome(a, b, c)
        for x, y, z in ((a, b, c), (b, c, a), (c, a, b)):
            inner = outcome(x, y)
            folded = inner if inner[0] == "error" else outcome(_rebuild(inner), z)
            if mode == "strict" and "error" in (whole[0], folded[0]):
                assert whole[0] == folded[0] == "error"  # strict: errors agree too
            elif whole[0] == "ok" or folded[0] == "ok":
                assert folded == whole, (x, y, z)


def test_numpy_mode_pairs_are_not_associative():
    """Why associativity is only required where the table has it: NumPy's pairwise results
    (here webtensor's own numpy-mode table) are not associative, e.g. (i8, u8, f16)."""
    t = MODES["numpy"].table()
    labs = sorted({a for a, _ in t})
    broken = [(a, b, c) for a, b, c in itertools.product(labs, repeat=3)
              if t[t[a, b], c] != t[a, t[b, c]]]
    assert ("i8", "u8", "f16") in broken


# ---------------------------------------------------------------------------------------------
# numpy mode against NumPy.

NUMPY_DTYPE_NAMES = [d.name for d in wt.all_dtypes if d is not wt.bfloat16]


def test_numpy_mode_all_pairs_and_triples_against_numpy():
    np = pytest.importorskip("numpy")
    pool = NUMPY_DTYPE_NAMES + [1, 1.0, 1j, True, 0, -1.5]
    with wt.promotion_mode("numpy"):
        for k in (1, 2, 3):
            for combo in itertools.combinations_with_replacement(pool, k):
                w = [wt.dtype(x) if isinstance(x, str) else x for x in combo]
                n = [np.dtype(x) if isinstance(x, str) else x for x in combo]
                assert wt.result_type(*w).name == np.result_type(*n).name, combo


@settings(max_examples=150, deadline=None)
@given(ops=st.lists(st.one_of(st.sampled_from(NUMPY_DTYPE_NAMES), st.integers(0, 100),
                              st.floats(), st.complex_numbers(), st.booleans()),
                    min_size=1, max_size=5))
def test_numpy_mode_against_numpy_nary(ops):
    np = pytest.importorskip("numpy")
    w = [wt.dtype(x) if isinstance(x, str) else x for x in ops]
    n = [np.dtype(x) if isinstance(x, str) else x for x in ops]
    with wt.promotion_mode("numpy"):
        assert wt.result_type(*w).name == np.result_type(*n).name
        assert wt.result_type(*w, return_weak_type_flag=True)[1] is False


def test_numpy_mode_numpy_operands():
    np = pytest.importorskip("numpy")
    operands = [np.dtype("int8"), np.int16, np.zeros(2, "uint32"), np.float32(1), np.float64(2),
                np.complex64(1j), np.bool_(True), 3, 2.5]
    with wt.promotion_mode("numpy"):
        for a, b in itertools.product(operands, repeat=2):
            assert wt.result_type(a, b).name == np.result_type(a, b).name, (a, b)


def test_numpy_mode_bfloat16_with_scalars():
    # NumPy's scalar rule depends only on kinds: float16 stands in for the other 16-bit float.
    np = pytest.importorskip("numpy")
    with wt.promotion_mode("numpy"):
        for scalar in (1, 1.0, 1j, True):
            ref = np.result_type(np.float16, scalar).name
            assert wt.result_type(wt.bfloat16, scalar).name == ref.replace("float16",
                                                                            "bfloat16")


_EDGE_INTS = sorted({s * 2 ** k + d for k in (7, 8, 15, 16, 31, 32, 63, 64) for s in (1, -1)
                     for d in (-1, 0, 1)} | {0, 1, -1, 300})


def test_numpy_mode_python_int_overflow_matches_numpy():
    """NumPy raises OverflowError when a Python int does not fit the other operand's dtype
    (``np.uint8(1) + 300``); webtensor's numpy mode raises in result_type."""
    np = pytest.importorskip("numpy")
    with wt.promotion_mode("numpy"), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name in NUMPY_DTYPE_NAMES:
            for v in _EDGE_INTS:
                try:
                    ref = ("ok", (np.asarray(1, dtype=name) + v).dtype.name)
                except OverflowError:
                    ref = ("error", OverflowError)
                try:
                    got = ("ok", wt.result_type(wt.dtype(name), v).name)
                except OverflowError:
                    got = ("error", OverflowError)
                assert got == ref, (name, v)
        for v in _EDGE_INTS:  # alone: NumPy's default integer, within its range
            if -(2 ** 63) <= v < 2 ** 63:
                assert wt.result_type(v).name == np.result_type(v).name


# ---------------------------------------------------------------------------------------------
# Python int range checks.


def _fits(v, short):
    lo, hi = _int_range(short)
    return lo <= v <= hi


@pytest.mark.parametrize("mode", ["all", "safe"])
@settings(max_examples=100, deadline=None)
@given(v=st.one_of(st.integers(), st.sampled_from(_EDGE_INTS)),
       other=st.sampled_from(wt.all_dtypes))
def test_tf_modes_python_int_is_int32(mode, v, other):
    want = table(mode)[f"{other.short},i32*"]
    with wt.promotion_mode(mode):
        if not _fits(v, "i32") or (want in _EXACT_INT_CODES and not _fits(v, want)):
            with pytest.raises(OverflowError) as info:
                wt.result_type(other, v)
            msg = str(info.value)
            assert msg.startswith("wt.result_type") and str(v) in msg
            if not _fits(v, "i32"):
                assert "int32" in msg and repr(mode) in msg
        else:
            assert outcome(other, v) == as_outcome(expected(mode, want))
        if not _fits(v, "i32"):
            with pytest.raises(OverflowError, match="int32"):
                wt.result_type(v)
            with pytest.raises(OverflowError, match="int32"):
                wt.result_type(Weak("float64"), v)


@pytest.mark.parametrize("mode", ["standard", "strict", "numpy"])
@settings(max_examples=100, deadline=None)
@given(v=st.one_of(st.integers(), st.sampled_from(_EDGE_INTS)),
       other=st.sampled_from(wt.all_dtypes))
def test_python_int_must_fit_an_integer_result(mode, v, other):
    want = table(mode)[f"{other.short},i*"]
    if want in ("error", "n/a"):
        return
    exp = expected(mode, want)
    with wt.promotion_mode(mode):
        if exp[0].kind in "iu" and not _fits(v, exp[0].short):
            with pytest.raises(OverflowError) as info:
                wt.result_type(other, v)
            msg = str(info.value)
            assert msg.startswith("wt.result_type") and str(v) in msg and exp[0].name in msg
            lo, hi = _int_range(exp[0].short)
            assert f"({lo} to {hi})" in msg and "explicit" in msg
        else:
            assert outcome(other, v) == as_outcome(exp)


def test_standard_lone_int_uses_default_int_range():
    big = 2 ** 31
    with pytest.raises(OverflowError, match="int32"):
        wt.result_type(big)
    with wt.set_default_int_dtype(wt.int64):
        assert wt.result_type(big, return_weak_type_flag=True) == (wt.int64, True)


# ---------------------------------------------------------------------------------------------
# Strict mode.


def test_strict_errors():
    strict = table("strict")
    with wt.promotion_mode("strict"):
        for a, b in itertools.product(labels("strict"), repeat=2):
            if strict[f"{a},{b}"] != "error":
                continue
            with pytest.raises(wt.TypePromotionError) as info:
                wt.result_type(operand(a), operand(b))
            msg = str(info.value)
            for lab in (a, b):
                dt, weak = expected("strict", lab)
                assert f"({dt.name}, weak={weak})" in msg
            assert "'strict'" in msg and "Cast explicitly" in msg
            assert "wt.set_promotion_mode('standard')" in msg


# ---------------------------------------------------------------------------------------------
# Operands.


def test_operand_kinds():
    class Color(enum.IntEnum):
        RED = 3
        BIG = 300

    class MyFloat(float):
        pass

    for mode in MODE_NAMES:
        with wt.promotion_mode(mode):
            assert outcome(wt.int8, Color.RED) == outcome(wt.int8, 3)
            assert outcome(wt.uint8, Color.BIG) == outcome(wt.uint8, 300)  # range-checked
            assert outcome(wt.int8, MyFloat(2.0)) == outcome(wt.int8, 2.0)
            assert outcome(wt.int8, True) == outcome(wt.int8, wt.bool)  # bool is strong
            assert outcome("i8", "float16") == outcome(wt.int8, wt.float16)
            assert outcome(Strong("u16"), wt.int8) == outcome(wt.uint16, wt.int8)
            assert outcome(int, wt.int8) == outcome(wt.default_int_dtype(), wt.int8)


def test_result_type_errors():
    with pytest.raises(ValueError) as info:
        wt.result_type()
    assert str(info.value).startswith("wt.result_type") and "at least one" in str(info.value)
    for bad in (object(), "nonsense", None, [wt.int8], b"i8"):
        with pytest.raises(TypeError) as info:
            wt.result_type(wt.int8, bad)
        msg = str(info.value)
        assert msg.startswith("wt.result_type") and repr(bad) in msg
        assert type(bad).__name__ in msg and "Python scalars" in msg


@pytest.mark.parametrize("bad", [1, 1.0, 1j, object(), "i7"], ids=param_id)
def test_promote_types_rejects_non_dtypes(bad):
    assert_refuses_non_dtype(wt.promote_types, bad)


def test_type_promotion_error_is_type_error():
    assert issubclass(wt.TypePromotionError, TypeError)


def test_lattice_refuses_non_lattices():
    a, b, c, d = (wt.int8, wt.int16, wt.int32, wt.int64)
    with pytest.raises(ValueError, match="not a lattice.*no unique least upper bound"):
        Lattice({a: [c, d], b: [c, d], c: [], d: []})
    lat = Lattice({a: [b], b: [], c: [b]})
    assert lat.path(a, b) == [a, b]
    with pytest.raises(ValueError, match="is not above"):
        lat.path(b, a)


# ---------------------------------------------------------------------------------------------
# The active mode: process-wide and context-local.


def test_default_mode_is_standard():
    assert wt.get_promotion_mode() == "standard"


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_set_promotion_mode_is_process_wide(mode):
    wt.set_promotion_mode(mode)
    assert wt.get_promotion_mode() == mode
    assert in_new_thread(wt.get_promotion_mode) == mode
    assert in_new_thread(lambda: outcome(wt.int8, wt.uint8)) == as_outcome(
        expected(mode, table(mode)["i8,u8"]))


@pytest.mark.parametrize("enter", ["promotion_mode", "set_promotion_mode"])
def test_with_block_is_context_local(enter):
    wt.set_promotion_mode("all")
    cm = getattr(wt, enter)("numpy")
    with cm as value:
        assert wt.get_promotion_mode() == "numpy"
        assert value is MODES["numpy"]
        assert wt.result_type(wt.int8, 1.0) is wt.float64  # numpy mode in effect
        assert in_new_thread(wt.get_promotion_mode) == "all"
        with wt.promotion_mode("strict"):
            assert wt.get_promotion_mode() == "strict"
            assert in_new_thread(wt.get_promotion_mode) == "all"
        assert wt.get_promotion_mode() == "numpy"
        wt.set_promotion_mode("safe")  # inside a block: changes the block's mode only
        assert wt.get_promotion_mode() == "safe"
        assert in_new_thread(wt.get_promotion_mode) == "all"
    assert wt.get_promotion_mode() == "all"


def test_promotion_mode_changes_nothing_until_entered():
    cm = wt.promotion_mode("strict")
    assert wt.get_promotion_mode() == "standard"
    with cm:
        assert wt.get_promotion_mode() == "strict"
    assert wt.get_promotion_mode() == "standard"
    with wt.promotion_mode(MODES["safe"]):  # mode objects work too
        assert wt.get_promotion_mode() == "safe"


def test_with_block_restores_on_exception():
    with pytest.raises(wt.TypePromotionError), wt.promotion_mode("strict"):
        wt.result_type(wt.int8, wt.int16)
    assert wt.get_promotion_mode() == "standard"


@pytest.mark.parametrize("fn", ["set_promotion_mode", "promotion_mode"])
@pytest.mark.parametrize("bad", ["fast", "Standard", "", None, 3, "precise"], ids=repr)
def test_unknown_mode(fn, bad):
    with pytest.raises(ValueError) as info:
        getattr(wt, fn)(bad)
    msg = str(info.value)
    assert msg.startswith(f"wt.{fn}:") and repr(bad) in msg
    for mode in MODE_NAMES:
        assert repr(mode) in msg
    assert wt.get_promotion_mode() == "standard"


async def _task_body(mode, entered, others_entered, log):
    with wt.promotion_mode(mode):
        entered.set()
        await others_entered.wait()  # both tasks are now inside their blocks
        for _ in range(5):
            log.append((mode, wt.get_promotion_mode(), outcome(wt.int8, wt.uint8)))
            await asyncio.sleep(0)


def test_asyncio_tasks_do_not_leak_modes():
    if sys.platform == "emscripten":
        pytest.skip("asyncio.run needs a blocking event loop")

    async def main():
        log = []
        e1, e2 = asyncio.Event(), asyncio.Event()
        await asyncio.gather(_task_body("numpy", e1, e2, log), _task_body("safe", e2, e1, log))
        return log

    log = asyncio.run(main())
    assert {entry[0] for entry in log} == {"numpy", "safe"}
    assert [entry[0] for entry in log[:2]] != [log[0][0]] * 2  # they did interleave
    for mode, seen, out in log:
        assert seen == mode
        assert out == as_outcome(expected(mode, table(mode)["i8,u8"]))
    assert wt.get_promotion_mode() == "standard"


def test_interleaved_contexts_without_an_event_loop():
    """What asyncio does for tasks, done by hand (runs under Pyodide too): two coroutines, each
    stepped inside its own copy of the context, interleaved."""

    class Yield:
        def __await__(self):
            yield

    async def body(mode, log):
        with wt.set_promotion_mode(mode):
            for _ in range(4):
                log.append((mode, wt.get_promotion_mode(), outcome(wt.int32, wt.float32)))
                await Yield()

    log = []
    tasks = [(contextvars.copy_context(), body(m, log)) for m in ("strict", "all")]
    while tasks:
        for entry in list(tasks):
            ctx, coro = entry
            try:
                ctx.run(coro.send, None)
            except StopIteration:
                tasks.remove(entry)
    assert [m for m, _, _ in log] == ["strict", "all"] * 4
    for mode, seen, out in log:
        assert seen == mode
        assert out == as_outcome(expected(mode, table(mode)["i32,f32"]))
    assert wt.get_promotion_mode() == "standard"
