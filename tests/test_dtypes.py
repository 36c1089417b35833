"""The 15 dtypes: attributes, parsing, categories, machine limits, casting rules and defaults.

Oracles: NumPy where it has the answer (imported per test, so the rest also runs under Pyodide),
otherwise independent computations: IEEE bit patterns decoded with ``struct`` (bfloat16 is the top
16 bits of a float32), integer ranges from ``struct``'s packing limits, value-by-value brute force
for casting, and the naming conventions of the seeds.
"""

import copy
import functools
import itertools
import math
import pickle
import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import assert_refuses_non_dtype, in_new_thread, param_id

NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
)  # the issue's list
NUMPY_NAMES = tuple(n for n in NAMES if n != "bfloat16")
ARRAY_API_KINDS = (
    "bool", "signed integer", "unsigned integer", "integral", "real floating",
    "complex floating", "numeric",
)
CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


class Tensorish:
    """Anything with a ``dtype`` attribute (a tensor, an array)."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return f"Tensorish({self.dtype!r})"


# ---------------------------------------------------------------------------------------------
# Independent oracles (pure Python).

_PREFIX = {"int": "i", "uint": "u", "float": "f", "bfloat": "bf", "complex": "c"}
_KIND_OF_PREFIX = {"int": "i", "uint": "u", "float": "f", "bfloat": "f", "complex": "c"}


def _split(name):
    m = re.fullmatch(r"([a-z]+?)(\d+)", name)
    return m[1], int(m[2])


def seed_short(name):
    """The seeds' abbreviations: b, i32, u8, bf16, c128."""
    if name == "bool":
        return "b"
    prefix, bits = _split(name)
    return f"{_PREFIX[prefix]}{bits}"


def nx_name(name):
    """Nx's spelling: pred for bool, s32 for int32, otherwise the short name."""
    if name == "bool":
        return "pred"
    short = seed_short(name)
    return "s" + short[1:] if short.startswith("i") else short


def ref_kind(name):
    return "b" if name == "bool" else _KIND_OF_PREFIX[_split(name)[0]]


def ref_itemsize(name):
    return 1 if name == "bool" else _split(name)[1] // 8


REF_KIND_GROUPS = {  # the Array API's definitions of the kinds
    "bool": {"b"},
    "signed integer": {"i"},
    "unsigned integer": {"u"},
    "integral": {"i", "u"},
    "real floating": {"f"},
    "complex floating": {"c"},
    "numeric": {"i", "u", "f", "c"},
}

_INT_CODES = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i",
              "uint32": "I", "int64": "q", "uint64": "Q"}
_FLOAT_CODES = {"float16": "e", "float32": "f", "float64": "d"}


def struct_int_range(name):
    """(min, max) of an integer dtype: the extreme values struct can pack in its format."""
    code = "<" + _INT_CODES[name]
    bits = 8 * struct.calcsize(code)
    candidates = range(-(2 ** bits), 2 ** bits + 1)

    def packs(v):
        try:
            struct.pack(code, v)
            return True
        except struct.error:
            return False

    # binary search the edges
    lo, hi = candidates[0], 0  # smallest packable
    while lo < hi:
        mid = (lo + hi) // 2
        if packs(mid):
            hi = mid
        else:
            lo = mid + 1
    smallest = lo
    lo, hi = 0, candidates[-1]  # largest packable
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if packs(mid):
            lo = mid
        else:
            hi = mid - 1
    return smallest, lo


def fits_int(v, name):
    try:
        struct.pack("<" + _INT_CODES[name], v)
        return True
    except struct.error:
        return False


def decode(name, pattern):
    """The value of a float bit pattern; bfloat16 is the top half of a float32."""
    if name == "bfloat16":
        return struct.unpack("<f", struct.pack("<I", pattern << 16))[0]
    code = "<" + _FLOAT_CODES[name]
    return struct.unpack(code, pattern.to_bytes(struct.calcsize(code), "little"))[0]


def encode(name, value):
    """The bit pattern of ``value`` in a float format (rounding); OverflowError if too large."""
    if name == "bfloat16":
        bits32 = struct.unpack("<I", struct.pack("<f", value))[0]
        return bits32 >> 16  # truncation: only used on values that are exact in bfloat16
    code = "<" + _FLOAT_CODES[name]
    return int.from_bytes(struct.pack(code, value), "little")


def float_width(name):
    return 16 if name == "bfloat16" else 8 * struct.calcsize(_FLOAT_CODES[name])


def float_limits(name):
    """Machine limits of a float format computed from its bit patterns alone."""
    one = encode(name, 1.0)
    eps = decode(name, one + 1) - 1.0
    largest = decode(name, encode(name, math.inf) - 1)  # the pattern below +inf
    mantissa = round(-math.log2(eps))
    precision = int(-math.log10(eps))
    return {
        "bits": float_width(name),
        "eps": eps,
        "max": largest,
        "min": -largest,
        "smallest_normal": decode(name, 1 << mantissa),  # exponent field 1, mantissa 0
        "smallest_subnormal": decode(name, 1),
        "precision": precision,
        "resolution": 10.0 ** -precision,
        "mantissa": mantissa,
    }


@functools.cache
def all_float_values(name):
    """Every value of a 16-bit float format (NaNs included once as nan)."""
    values = {decode(name, p) for p in range(1 << 16)}
    nans = [v for v in values if v != v]
    return tuple([v for v in values if v == v] + nans[:1])


@functools.cache
def float_value_set(name):
    return frozenset(all_float_values(name))


def representable(value, name):
    """Is ``value`` (a Python bool/int/float/complex) exactly a value of dtype ``name``?"""
    if isinstance(value, complex):
        if name.startswith("complex"):
            return all_representable([value.real, value.imag], name)
        return value.imag == 0 and all_representable([value.real], name)
    return all_representable([value], name)


def all_representable(values, name):
    """Is every real number in ``values`` exactly a value of dtype ``name``?"""
    if name.startswith("complex"):
        name = _part(name)
    finite = [v for v in values if not isinstance(v, float) or math.isfinite(v)]
    if ref_kind(name) != "f" and len(finite) < len(values):
        return False  # nan and inf are float values only
    if name == "bool":
        return set(finite) <= {0, 1}
    if ref_kind(name) in "iu":
        if any(v != int(v) for v in finite):
            return False
        return not finite or (fits_int(int(min(finite)), name) and fits_int(int(max(finite)), name))
    if name in ("float16", "bfloat16"):
        return float_value_set(name).issuperset(finite)
    code = f"<{len(finite)}{_FLOAT_CODES[name]}"
    try:
        return list(struct.unpack(code, struct.pack(code, *finite))) == finite
    except OverflowError:
        return False


def enumerable_domain(name):
    """Every value of the small dtypes (all 2**16 bit patterns at most)."""
    if name == "bool":
        return [False, True]
    if ref_kind(name) in "iu" and ref_itemsize(name) <= 2:
        lo, hi = struct_int_range(name)
        return list(range(lo, hi + 1))
    if name in ("float16", "bfloat16"):
        return list(all_float_values(name))
    return None


def _part(name):
    return {"complex64": "float32", "complex128": "float64"}.get(name, name)


# ---------------------------------------------------------------------------------------------
# The dtype objects.


def test_fifteen_dtypes_exported_in_order():
    assert tuple(d.name for d in wt.all_dtypes) == NAMES
    for name in NAMES:
        d = getattr(wt, name)
        assert isinstance(d, wt.DType)
        assert d is wt.dtype(name)
    assert len(set(wt.all_dtypes)) == 15


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes(name):
    d = wt.dtype(name)
    assert d.name == name
    assert d.short == seed_short(name)
    assert d.nx == nx_name(name)
    assert d.itemsize == ref_itemsize(name)
    assert d.bits == 8 * ref_itemsize(name)
    assert d.kind == ref_kind(name)
    assert getattr(wt, d.short) is d  # wt.i32, wt.bf16, wt.b ...
    assert str(d) == name
    assert eval(repr(d), {"wt": wt}) is d


@pytest.mark.parametrize("name", NUMPY_NAMES)
def test_dtype_attributes_match_numpy(name):
    np = pytest.importorskip("numpy")
    d, ref = wt.dtype(name), np.dtype(name)
    assert (d.itemsize, d.kind, d.name) == (ref.itemsize, ref.kind, ref.name)
    assert d.is_bool == (ref.kind == "b")
    assert d.is_integer == np.issubdtype(ref, np.integer)
    assert d.is_signed == (np.issubdtype(ref, np.signedinteger) or np.issubdtype(ref, np.inexact))
    assert d.is_floating == np.issubdtype(ref, np.floating)
    assert d.is_complex == np.issubdtype(ref, np.complexfloating)
    if ref.kind in "fc":
        assert d.real_dtype.name == np.finfo(ref).dtype.name
        assert d.complex_dtype.name == np.result_type(ref, 1j).name
    else:
        assert d.real_dtype is d


@pytest.mark.parametrize("name", NAMES)
def test_dtype_predicates_match_representable_values(name):
    # Pure-Python oracle: signed means -1 fits, integer means 0.5 does not but 2 does.
    d = wt.dtype(name)
    assert d.is_signed == representable(-1, name)
    assert d.is_integer == (not representable(0.5, name) and representable(2, name))
    assert d.is_complex == representable(1j, name)
    assert d.is_floating == (representable(0.5, name) and not representable(1j, name))
    assert d.is_bool == (not representable(2, name))


def test_bfloat16_parts():
    assert wt.bfloat16.real_dtype is wt.bfloat16
    # complex64's parts (float32) hold every bfloat16 value, float16 does not
    assert wt.bfloat16.complex_dtype is wt.complex64
    assert all_representable(all_float_values("bfloat16"), "float32")
    assert not all_representable(all_float_values("bfloat16"), "float16")


@pytest.mark.parametrize("name", NAMES)
def test_interning_pickle_and_copy(name):
    d = wt.dtype(name)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(d, protocol)) is d
    assert copy.copy(d) is d
    assert copy.deepcopy(d) is d
    assert pickle.loads(pickle.dumps({d: [d]}))[d] == [d]


@pytest.mark.parametrize("name", NAMES)
def test_equality_with_spellings(name):
    d = wt.dtype(name)
    for other in wt.all_dtypes:
        spellings = (other.name, other.short, other.nx, other.name.upper())
        for s in spellings:
            assert (d == s) == (other is d)
            assert (d != s) == (other is not d)
            assert (s == d) == (other is d)
        assert (d == other) == (other is d)
    for junk in ("nonsense", "", 3, 2.5, None, object(), [d]):
        assert d != junk
        assert not (d == junk)
    assert {d: 1}[d] == 1 and hash(d) == hash(wt.dtype(name))


@pytest.mark.parametrize("name", NUMPY_NAMES)
def test_equality_with_numpy_dtypes(name):
    np = pytest.importorskip("numpy")
    d = wt.dtype(name)
    for other in NUMPY_NAMES:
        assert (d == np.dtype(other)) == (other == name)


# ---------------------------------------------------------------------------------------------
# wt.dtype parsing.


@pytest.mark.parametrize("name", NAMES)
def test_dtype_parses_every_spelling(name):
    d = getattr(wt, name)
    for spelling in (name, seed_short(name), nx_name(name)):
        assert wt.dtype(spelling) is d
        assert wt.dtype(spelling.upper()) is d
        assert wt.dtype(f"  {spelling} ") is d
    assert wt.dtype(d) is d
    assert wt.dtype(Tensorish(d)) is d
    assert wt.dtype(Tensorish(name)) is d
    assert wt.dtype(Tensorish(seed_short(name))) is d


def test_dtype_names_agree_with_numpy():
    np = pytest.importorskip("numpy")
    for name in NUMPY_NAMES:
        assert wt.dtype(name).name == np.dtype(name).name
    # NumPy's C-style aliases that webtensor also understands
    for alias in ("half", "single", "double", "cdouble", "bool_", "?"):
        assert wt.dtype(alias).name == np.dtype(alias).name


def test_dtype_extra_aliases():
    assert wt.dtype("bf") is wt.bfloat16
    assert wt.dtype("cdouble") is wt.complex128
    with pytest.raises(TypeError, match="cfloat"):  # ambiguous (NumPy 1: c128, PyTorch: c64)
        wt.dtype("cfloat")


def test_dtype_python_types_give_defaults():
    assert wt.dtype(bool) is wt.bool
    assert wt.dtype(int) is wt.default_int_dtype()
    assert wt.dtype(float) is wt.default_float_dtype()
    assert wt.dtype(complex) is wt.default_complex_dtype()
    assert wt.dtype(Tensorish(float)) is wt.default_float_dtype()
    with wt.set_default_int_dtype(wt.int16), wt.set_default_float_dtype(wt.float64), \
            wt.set_default_complex_dtype(wt.complex128):
        assert wt.dtype(int) is wt.int16
        assert wt.dtype(float) is wt.float64
        assert wt.dtype(complex) is wt.complex128
        assert wt.dtype(bool) is wt.bool


def test_dtype_numpy_dtypes_scalar_types_and_arrays():
    np = pytest.importorskip("numpy")
    seen = set()
    for scalar_type in set(np.sctypeDict.values()):
        if scalar_type.__module__ != "numpy":
            continue  # registered by another package (ml_dtypes, which JAX installs): below
        ref = np.dtype(scalar_type)
        if ref.name in NUMPY_NAMES:
            seen.add(ref.name)
            assert wt.dtype(scalar_type).name == ref.name, scalar_type  # np.longlong too
            assert wt.dtype(ref).name == ref.name
            assert wt.dtype(np.zeros(2, ref)).name == ref.name
            assert wt.dtype(ref.type(0)).name == ref.name
            assert wt.dtype(Tensorish(ref)).name == ref.name
        else:
            with pytest.raises(TypeError, match="wt.dtype"):
                wt.dtype(ref)
            with pytest.raises(TypeError, match="wt.dtype"):
                wt.dtype(scalar_type)
    assert seen == set(NUMPY_NAMES)
    try:
        import ml_dtypes
    except ImportError:
        return
    assert wt.dtype(ml_dtypes.bfloat16) is wt.bfloat16  # the same format under the same name
    with pytest.raises(TypeError, match="wt.dtype"):
        wt.dtype(ml_dtypes.int4)


@pytest.mark.parametrize(
    "bad", ["int33", "", "float128", "complex32", "i", None, 3, 2.5, object(), [1], str, b"i32"],
    ids=param_id,
)
def test_dtype_rejects_with_accepted_spellings(bad):
    with pytest.raises(TypeError) as info:
        wt.dtype(bad)
    msg = str(info.value)
    assert msg.startswith("wt.dtype")
    assert repr(bad) in msg
    for d in wt.all_dtypes:
        assert d.name in msg and d.short in msg and d.nx in msg
    assert "bool, int, float, complex" in msg
    assert "NumPy" in msg and ".dtype" in msg


# ---------------------------------------------------------------------------------------------
# Categories and isdtype.


def test_category_tuples():
    by_kind = {k: tuple(getattr(wt, n) for n in NAMES if ref_kind(n) in k) for k in
               ("iu", "i", "u", "f", "c", "iufc")}
    assert wt.all_dtypes == tuple(getattr(wt, n) for n in NAMES)
    assert wt.all_int_dtypes == wt.all_signed_int_dtypes + wt.all_uint_dtypes
    assert set(wt.all_int_dtypes) == set(by_kind["iu"])
    assert wt.all_signed_int_dtypes == by_kind["i"]
    assert wt.all_uint_dtypes == by_kind["u"]
    assert set(wt.all_float_dtypes) == set(by_kind["f"])
    assert wt.all_complex_dtypes == by_kind["c"]
    assert set(wt.all_numeric_dtypes) == set(by_kind["iufc"])
    assert len(wt.all_numeric_dtypes) == len(set(wt.all_numeric_dtypes)) == 14
    for group in (wt.all_dtypes, wt.all_int_dtypes, wt.all_float_dtypes, wt.all_complex_dtypes,
                  wt.all_numeric_dtypes, wt.all_signed_int_dtypes, wt.all_uint_dtypes):
        assert isinstance(group, tuple)


def test_reference_classification_matches_numpy():
    np = pytest.importorskip("numpy")
    for name in NUMPY_NAMES:
        for kind in ARRAY_API_KINDS:
            assert np.isdtype(np.dtype(name), kind) == (ref_kind(name) in REF_KIND_GROUPS[kind])


@pytest.mark.parametrize("name", NAMES)
def test_isdtype_kinds(name):
    d = wt.dtype(name)
    for kind in ARRAY_API_KINDS:
        assert wt.isdtype(d, kind) is (ref_kind(name) in REF_KIND_GROUPS[kind])
    for k1, k2 in itertools.combinations(ARRAY_API_KINDS, 2):
        expected = ref_kind(name) in REF_KIND_GROUPS[k1] | REF_KIND_GROUPS[k2]
        assert wt.isdtype(d, (k1, k2)) is expected
    for other in wt.all_dtypes:
        assert wt.isdtype(d, other) is (other is d)
        assert wt.isdtype(d, other.name) is (other is d)
        assert wt.isdtype(d, (other, "bool")) is (other is d or name == "bool")
    assert wt.isdtype(d, ()) is False


def test_isdtype_matches_numpy():
    np = pytest.importorskip("numpy")
    for name in NUMPY_NAMES:
        for kind in ARRAY_API_KINDS:
            assert wt.isdtype(wt.dtype(name), kind) == np.isdtype(np.dtype(name), kind)
        for other in NUMPY_NAMES:
            assert wt.isdtype(wt.dtype(name), wt.dtype(other)) == np.isdtype(
                np.dtype(name), np.dtype(other))


@pytest.mark.parametrize("bad", ["int32", Tensorish(wt.int32), int, None], ids=repr)
def test_isdtype_rejects_non_dtypes(bad):
    with pytest.raises(TypeError) as info:
        wt.isdtype(bad, "integral")
    msg = str(info.value)
    assert msg.startswith("wt.isdtype") and repr(bad) in msg and "x.dtype" in msg


@pytest.mark.parametrize("kind", ["floating", "integer", "", 3, None, ("numeric", "ints")],
                         ids=repr)
def test_isdtype_rejects_unknown_kinds(kind):
    with pytest.raises(ValueError) as info:
        wt.isdtype(wt.float32, kind)
    msg = str(info.value)
    assert msg.startswith("wt.isdtype")
    bad = kind[1] if isinstance(kind, tuple) else kind
    assert repr(bad) in msg
    for k in ARRAY_API_KINDS:
        assert repr(k) in msg


# ---------------------------------------------------------------------------------------------
# finfo / iinfo.

FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")
INT_NAMES = tuple(n for n in NAMES if ref_kind(n) in "iu")


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_finfo_from_bit_patterns(name):
    ref = float_limits(_part(name))
    for arg in (wt.dtype(name), name, Tensorish(wt.dtype(name)), Tensorish(name)):
        fi = wt.finfo(arg)
        for field in ("bits", "eps", "max", "min", "smallest_normal", "smallest_subnormal",
                      "precision", "resolution"):
            assert getattr(fi, field) == ref[field], field
        assert fi.tiny == ref["smallest_normal"]
        assert fi.dtype is wt.dtype(_part(name))
        for field in ("eps", "max", "min", "smallest_normal", "smallest_subnormal",
                      "resolution"):
            assert type(getattr(fi, field)) is float
        assert type(fi.bits) is int and type(fi.precision) is int


def test_finfo_bfloat16_is_float32_with_16_mantissa_bits_less():
    bf, f32 = float_limits("bfloat16"), float_limits("float32")
    assert bf["mantissa"] == f32["mantissa"] - 16
    assert bf["smallest_normal"] == f32["smallest_normal"]
    assert wt.finfo(wt.bfloat16).smallest_normal == wt.finfo(wt.float32).smallest_normal
    assert wt.finfo(wt.bfloat16).max < wt.finfo(wt.float32).max


@pytest.mark.parametrize("name", [n for n in FLOAT_NAMES if n != "bfloat16"])
def test_finfo_matches_numpy(name):
    np = pytest.importorskip("numpy")
    ref, fi = np.finfo(np.dtype(name)), wt.finfo(name)
    assert fi.bits == ref.bits
    assert fi.precision == ref.precision
    for field in ("eps", "max", "min", "smallest_normal", "smallest_subnormal", "tiny"):
        assert fi.__getattribute__(field) == float(getattr(ref, field)), field
    assert ref.dtype.type(fi.resolution) == ref.resolution
    assert fi.dtype.name == ref.dtype.name
    assert wt.finfo(np.dtype(name)) == fi
    assert wt.finfo(np.zeros(1, name)) == fi


def test_finfo_python_float_type_uses_default():
    assert wt.finfo(float).dtype is wt.default_float_dtype()
    with wt.set_default_float_dtype("bf16"):
        assert wt.finfo(float).max == float_limits("bfloat16")["max"]


@pytest.mark.parametrize("name", INT_NAMES)
def test_iinfo(name):
    lo, hi = struct_int_range(name)
    for arg in (wt.dtype(name), name, Tensorish(wt.dtype(name))):
        ii = wt.iinfo(arg)
        assert (ii.min, ii.max, ii.bits, ii.dtype) == (lo, hi, ref_itemsize(name) * 8,
                                                        wt.dtype(name))
        assert type(ii.min) is int and type(ii.max) is int and type(ii.bits) is int


@pytest.mark.parametrize("name", INT_NAMES)
def test_iinfo_matches_numpy(name):
    np = pytest.importorskip("numpy")
    ref, ii = np.iinfo(np.dtype(name)), wt.iinfo(name)
    assert (ii.min, ii.max, ii.bits) == (int(ref.min), int(ref.max), ref.bits)
    assert ii.dtype.name == ref.dtype.name
    assert wt.iinfo(np.zeros(1, name)) == ii


@pytest.mark.parametrize("name", [n for n in NAMES if n not in FLOAT_NAMES])
def test_finfo_rejects_non_floats(name):
    with pytest.raises(TypeError) as info:
        wt.finfo(name)
    msg = str(info.value)
    assert msg.startswith("wt.finfo") and name in msg and "wt.iinfo" in msg


@pytest.mark.parametrize("name", [n for n in NAMES if n not in INT_NAMES])
def test_iinfo_rejects_non_ints(name):
    with pytest.raises(TypeError) as info:
        wt.iinfo(name)
    msg = str(info.value)
    assert msg.startswith("wt.iinfo") and name in msg and "wt.finfo" in msg


@pytest.mark.parametrize("fn", ["finfo", "iinfo"])
@pytest.mark.parametrize("bad", [1.5, object(), "float8", Tensorish("nonsense")], ids=param_id)
def test_info_rejects_non_dtypes(fn, bad):
    with pytest.raises(TypeError) as info:
        getattr(wt, fn)(bad)
    msg = str(info.value)
    assert msg.startswith(f"wt.{fn}:") and repr(bad) in msg and "a dtype or a tensor" in msg


# ---------------------------------------------------------------------------------------------
# can_cast.


def test_can_cast_matches_numpy_for_every_pair_and_casting():
    np = pytest.importorskip("numpy")
    for a, b in itertools.product(NUMPY_NAMES, repeat=2):
        for casting in CASTINGS:
            expected = bool(np.can_cast(np.dtype(a), np.dtype(b), casting=casting))
            assert wt.can_cast(wt.dtype(a), wt.dtype(b), casting=casting) is expected, \
                (a, b, casting)
        assert wt.can_cast(a, b) == bool(np.can_cast(a, b))  # default: "safe"


def test_can_cast_bfloat16_kind_rules_match_numpy_float16():
    # same_kind/no/equiv/unsafe only depend on kinds: NumPy answers them with float16 standing
    # in for bfloat16 (both are 16-bit real floats).
    np = pytest.importorskip("numpy")
    proxy = {"bfloat16": "float16"}
    for a, b in itertools.product(NAMES, repeat=2):
        if "bfloat16" not in (a, b):
            continue
        for casting in ("same_kind", "unsafe"):
            expected = bool(np.can_cast(proxy.get(a, a), proxy.get(b, b), casting=casting))
            assert wt.can_cast(a, b, casting=casting) is expected, (a, b, casting)
        for casting in ("no", "equiv"):
            assert wt.can_cast(a, b, casting=casting) is (a == b)


@pytest.fixture(scope="module")
def small_domains():
    return {n: enumerable_domain(n) for n in NAMES if enumerable_domain(n) is not None}


def test_can_cast_safe_brute_force_small_sources(small_domains):
    """For every dtype with at most 2**16 values: safe iff every value converts exactly."""
    for src, values in small_domains.items():
        for dst in NAMES:
            expected = all_representable(values, dst)
            assert wt.can_cast(src, dst) is expected, (src, dst)


def test_can_cast_safe_to_bfloat16_from_wide_sources(small_domains):
    """Sources with more than 2**16 values never cast safely to bfloat16: each holds a value
    bfloat16 does not (the smallest such integer, or 1 + eps for floats)."""
    int_witness = next(v for v in itertools.count() if not representable(v, "bfloat16"))
    for src in NAMES:
        if src in small_domains:
            continue
        if ref_kind(src) in "fc":
            witness = 1.0 + float_limits(_part(src))["eps"]
        else:
            witness = int_witness
        assert representable(witness, src) and not representable(witness, "bfloat16"), src
        assert wt.can_cast(src, "bfloat16") is False
        assert wt.can_cast(src, "bfloat16", casting="unsafe") is True


def test_can_cast_accepts_tensors_and_spellings():
    assert wt.can_cast(Tensorish(wt.int8), "i16") is True
    assert wt.can_cast(Tensorish("f64"), wt.float32) is False
    assert wt.can_cast(Tensorish("f64"), wt.float32, casting="same_kind") is True


@pytest.mark.parametrize("casting", ["Safe", "fast", "", None, "same-kind"], ids=repr)
def test_can_cast_rejects_unknown_casting(casting):
    # (an unknown name is a ValueError, a value that is not a string a TypeError)
    with pytest.raises(ValueError if isinstance(casting, str) else TypeError) as info:
        wt.can_cast(wt.int8, wt.int16, casting=casting)
    msg = str(info.value)
    assert msg.startswith("wt.can_cast") and repr(casting) in msg
    for c in CASTINGS:
        assert repr(c) in msg


@pytest.mark.parametrize("bad", [1, 2.0, object(), "i7"], ids=param_id)
def test_can_cast_rejects_non_dtypes(bad):
    assert_refuses_non_dtype(wt.can_cast, bad)


# ---------------------------------------------------------------------------------------------
# Default dtypes.

SETTERS = {
    "int": (wt.set_default_int_dtype, wt.default_int_dtype, "integral"),
    "float": (wt.set_default_float_dtype, wt.default_float_dtype, "real floating"),
    "complex": (wt.set_default_complex_dtype, wt.default_complex_dtype, "complex floating"),
}


def test_defaults_as_stated_in_the_issue():
    assert wt.default_int_dtype() is wt.int32
    assert wt.default_float_dtype() is wt.float32
    assert wt.default_complex_dtype() is wt.complex64
    assert wt.default_dtype() is wt.float32


@pytest.mark.parametrize("kind", SETTERS)
def test_default_setters_accept_exactly_their_kind(kind):
    setter, getter, array_api_kind = SETTERS[kind]
    original = getter()
    valid = [d for d in wt.all_dtypes if wt.isdtype(d, array_api_kind)]
    last = original
    for d in wt.all_dtypes:
        if d in valid:
            setter(d)
            assert getter() is d
            setter(d.short)  # any spelling
            assert getter() is d
            last = d
        else:
            with pytest.raises(TypeError) as info:
                setter(d)
            msg = str(info.value)
            assert msg.startswith(f"wt.set_default_{kind}_dtype") and d.name in msg
            assert f"not a {kind} dtype" in msg
            listed = re.search(r"pass one of (.*)$", msg)[1]
            assert listed.split(", ") == [v.name for v in valid]
            assert getter() is last  # unchanged by the failed call
    setter(original)
    assert getter() is original


@pytest.mark.parametrize("kind", SETTERS)
def test_default_setters_reject_unparseable(kind):
    setter, getter, _ = SETTERS[kind]
    before = getter()
    with pytest.raises(TypeError, match="wt.dtype: cannot interpret 'nonsense'"):
        setter("nonsense")
    assert getter() is before


def _others(kind):
    """(setter, getter, the current default, the other dtypes of ``kind``)."""
    setter, getter, array_api_kind = SETTERS[kind]
    original = getter()
    return setter, getter, original, [d for d in wt.all_dtypes
                                      if wt.isdtype(d, array_api_kind) and d is not original]


@pytest.mark.parametrize("kind", SETTERS)
def test_default_setter_is_process_wide(kind):
    setter, getter, original, others = _others(kind)
    new = others[-1]
    result = setter(new)
    assert getter() is new
    assert in_new_thread(getter) is new
    assert new.name in repr(result)
    setter(original)
    assert getter() is original


@pytest.mark.parametrize("kind", SETTERS)
def test_default_setter_as_context_manager_is_local(kind):
    setter, getter, original, others = _others(kind)
    with setter(others[0]) as value:
        assert value is others[0]
        assert getter() is others[0]
        assert in_new_thread(getter) is original  # the thread sees the process-wide value
        with setter(others[-1]):
            assert getter() is others[-1]
        assert getter() is others[0]
        setter(others[-1])  # a plain call inside the block changes only the block's value
        assert getter() is others[-1]
        assert in_new_thread(getter) is original
    assert getter() is original


def test_default_dtype_resolution_order():
    assert wt.default_dtype() is wt.default_float_dtype()
    wt.set_default_float_dtype(wt.float64)
    assert wt.default_dtype() is wt.float64
    wt.set_default_dtype("int64")
    assert wt.default_dtype() is wt.int64
    assert wt.default_dtype(item=1.0) is wt.float64  # item beats the global default
    assert wt.default_dtype(dtype="u8", item=1.0) is wt.uint8  # dtype beats item
    assert wt.default_dtype(dtype=Tensorish(wt.int8)) is wt.int8
    wt.set_default_dtype(None)
    assert wt.default_dtype() is wt.float64
    with wt.set_default_dtype(wt.complex128):
        assert wt.default_dtype() is wt.complex128
    assert wt.default_dtype() is wt.float64
    with pytest.raises(TypeError, match="wt.dtype: cannot interpret 'nonsense'"):
        wt.set_default_dtype("nonsense")
    with pytest.raises(TypeError, match="wt.dtype: cannot interpret 'nonsense'"):
        wt.default_dtype(dtype="nonsense")


def _ref_item_dtype(item):
    """Ivy: the highest Python kind among the leaves (bool < int < float < complex)."""
    leaves = []

    def walk(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        else:
            leaves.append(x)

    walk(item)
    for kind, default in ((complex, wt.default_complex_dtype), (float, wt.default_float_dtype)):
        if any(type(x) is kind for x in leaves):
            return default()
    if any(type(x) is int for x in leaves):
        return wt.default_int_dtype()
    if leaves:
        return wt.bool
    return wt.default_dtype()


_scalars = st.one_of(st.booleans(), st.integers(-10, 10), st.floats(-1e3, 1e3),
                     st.complex_numbers(max_magnitude=1e3))
_items = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(item=_items, defaults=st.tuples(st.sampled_from(wt.all_int_dtypes),
                                       st.sampled_from(wt.all_float_dtypes),
                                       st.sampled_from(wt.all_complex_dtypes)))
def test_default_dtype_of_items(item, defaults):
    with wt.set_default_int_dtype(defaults[0]), wt.set_default_float_dtype(defaults[1]), \
            wt.set_default_complex_dtype(defaults[2]):
        assert wt.default_dtype(item=item) is _ref_item_dtype(item)


@settings(max_examples=100, deadline=None)
@given(item=st.lists(_scalars, min_size=1, max_size=6))
def test_default_dtype_of_flat_lists_matches_numpy_kind(item):
    np = pytest.importorskip("numpy")
    kind = np.asarray(item).dtype.kind
    expected = {"b": wt.bool, "i": wt.default_int_dtype(), "f": wt.default_float_dtype(),
                "c": wt.default_complex_dtype()}[kind]
    assert wt.default_dtype(item=item) is expected


def test_default_dtype_of_arrays_and_tensors():
    assert wt.default_dtype(item=Tensorish(wt.uint16)) is wt.uint16
    assert wt.default_dtype(item=[]) is wt.default_dtype()
    assert wt.default_dtype(item=Tensorish("nonsense")) is wt.default_dtype()
    np = pytest.importorskip("numpy")
    for name in NUMPY_NAMES:
        assert wt.default_dtype(item=np.zeros(3, name)).name == name
