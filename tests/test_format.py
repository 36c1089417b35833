"""repr/str of tensors: NumPy's layout, shortest round-trip floats, our metadata suffix."""

import math
import struct

import pytest

import webtensor as wt
from webtensor import _format

np = pytest.importorskip("numpy")


@pytest.fixture(autouse=True)
def _default_printoptions():
    with _format.set_printoptions(reset=True):
        yield


def _np_body(a, *, sep, prefix="", suffix="", precision=None, **kw):
    """NumPy's array2string with our defaults (precision None = shortest round trip)."""
    if precision is None:
        precision = 60  # maxprec with a huge cap prints the unique (shortest) digits
    return np.array2string(a, separator=sep, prefix=prefix, suffix=suffix, precision=precision,
                           max_line_width=kw.get("linewidth", 75), threshold=1000, edgeitems=3,
                           floatmode="maxprec", sign="-", legacy=False)


def _arrays():
    rng = np.random.default_rng(1234)
    out = [
        np.array([1, 2, 3], np.int32),
        np.array([-5, 120, 7], np.int8),
        np.array([2**63 - 1, -2**63, 0], np.int64),
        np.array([2**64 - 1, 0], np.uint64),
        np.array([True, False, True]),
        np.array([True, True]),
        np.arange(24, dtype=np.int16).reshape(2, 3, 4),
        np.arange(3000, dtype=np.int32).reshape(3, 1000),
        np.arange(2000, dtype=np.int64),
        np.arange(11 ** 3, dtype=np.int32).reshape(11, 11, 11),
        np.array([1.5, 2.0, np.nan, -np.inf], np.float32),
        np.array([np.nan, np.inf], np.float64),
        np.array([np.nan, -np.inf, np.inf], np.float32),
        np.array([-0.0, 0.0, 1.0], np.float32),
        np.array([0.0, 0.0], np.float64),
        np.sqrt(np.arange(12, dtype=np.float32)).reshape(3, 4),
        np.array([1e-5, 1e10], np.float64),
        np.array([1e-5, 1.5, np.nan], np.float32),
        np.array([1e8, 1.0], np.float32),
        np.array([1e-45, 3.4028235e38], np.float32),
        np.array([1e-300, 1e300, -2.5], np.float64),
        np.array([0.1, 0.2, 0.30000000000000004], np.float64),
        np.array([123456.789, 0.001], np.float64),
        np.array([0.5, 1000.0], np.float32),
        np.array([0.5, 500.0], np.float32),
        np.array([65504.0, 6e-8, 1.0], np.float16),
        np.array([0.1, 0.2, 0.333], np.float16),
        (rng.standard_normal((4, 5)) * 10).astype(np.float32),
        rng.standard_normal((3, 7)).astype(np.float64),
        rng.standard_normal((50, 40)).astype(np.float32),
        (rng.standard_normal(1500) * 1e6).astype(np.float32),
        rng.standard_normal((2, 3, 4, 5)).astype(np.float32),
        np.array([1 + 2j, 3.5 - 1j], np.complex128),
        np.array([1 + 2j, np.nan + 1j, 1e-7 - 3j], np.complex64),
        (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64),
        np.zeros((0,), np.float32),
        np.zeros((2, 0), np.float64),
        np.zeros((1, 1, 1), np.int32),
    ]
    return out


_ARRAYS = _arrays()
_IDS = [f"{a.dtype}-{a.shape}-{i}" for i, a in enumerate(_ARRAYS)]


@pytest.mark.parametrize("a", _ARRAYS, ids=_IDS)
def test_str_matches_numpy_layout_with_shortest_digits(a):
    t = wt.asarray(a)
    assert str(t) == _np_body(a, sep=" ")


@pytest.mark.parametrize("a", _ARRAYS, ids=_IDS)
def test_str_matches_numpy_defaults_with_precision_8(a):
    with _format.set_printoptions(precision=8):
        assert str(wt.asarray(a)) == str(a)


def _devices():
    from _oracle import DEVICES

    return ["cpu"] + (["webgpu"] if "webgpu" in DEVICES else [])


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("a", _ARRAYS, ids=_IDS)
def test_repr_body_matches_numpy_and_appends_metadata(a, device):
    t = wt.asarray(a, device=device)
    body = _np_body(a, sep=", ", prefix="Tensor(", suffix=",")
    meta = f"shape={a.shape}, dtype={a.dtype.name}, device={device})"
    text = "Tensor(" + body + ","
    last = len(text) - (text.rfind("\n") + 1)
    spacer = " " if last + len(meta) + 1 <= 75 else "\n       "
    assert repr(t) == text + spacer + meta


@pytest.mark.parametrize("width", [20, 40, 120])
def test_linewidth_matches_numpy(width):
    a = (np.random.default_rng(0).standard_normal((3, 12)) * 100).astype(np.float32)
    with _format.set_printoptions(linewidth=width):
        assert str(wt.asarray(a)) == _np_body(a, sep=" ", linewidth=width)


@pytest.mark.parametrize("threshold, edgeitems", [(10, 2), (100, 1), (5, 1), (59, 5)])
def test_summarization_options_match_numpy(threshold, edgeitems):
    a = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    with _format.set_printoptions(threshold=threshold, edgeitems=edgeitems):
        expected = np.array2string(a, threshold=threshold, edgeitems=edgeitems)
        assert str(wt.asarray(a)) == expected


def test_zero_d_repr_and_str():
    t = wt.asarray(np.float32(1.5))
    assert repr(t) == "Tensor(1.5, shape=(), dtype=float32, device=cpu)"
    assert str(wt.asarray(np.float32(2.0))) == "2.0"  # str of a 0-d: its scalar, like NumPy
    assert str(wt.asarray(np.float32(math.sqrt(2)))) == "1.4142135"
    assert str(wt.asarray(np.float64(math.sqrt(2)))) == "1.4142135623730951"
    assert str(wt.asarray(np.float32(1e-5))) == "1e-05"
    assert str(wt.asarray(np.int64(-7))) == "-7"
    assert str(wt.asarray(np.bool_(True))) == "True"
    assert repr(wt.asarray(np.bool_(False))) == "Tensor(False, shape=(), dtype=bool, device=cpu)"
    assert str(wt.asarray(np.complex64(1 + 2j))) == "(1+2j)"
    assert str(wt.asarray(np.complex64(0.1 - 0.2j))) == "(0.1-0.2j)"
    assert str(wt.asarray(np.complex128(2j))) == "2j"
    assert str(wt.asarray(np.float32(np.nan))) == "nan"
    assert str(wt.asarray(np.float32(-np.inf))) == "-inf"


def test_weak_names_and_the_brief_example():
    assert repr(wt.asarray([1, 2, 3])) == \
        "Tensor([1, 2, 3], shape=(3,), dtype=int32, device=cpu, weak=True)"
    t = wt.asarray([[1.0, 2.5]], dtype=wt.float32, names=("x", "y"))
    assert repr(t) == ("Tensor([[1. , 2.5]],\n"
                       "       shape=(1, 2), dtype=float32, device=cpu, names=('x', 'y'))")
    t = wt.asarray([3, 4], dtype=wt.int8, names=("x",))
    assert repr(t) == "Tensor([3, 4], shape=(2,), dtype=int8, device=cpu, names=('x',))"
    t = wt.asarray([[1, 2]], dtype=wt.int8, names=("x", None))
    assert repr(t).endswith("names=('x', None))")
    assert "weak" not in repr(wt.asarray([1, 2], dtype=wt.int32))


def test_metadata_moves_to_its_own_line_when_too_long():
    t = wt.asarray(np.arange(10, dtype=np.int64) * 10 ** 5)
    assert repr(t) == ("Tensor([     0, 100000, 200000, 300000, 400000, 500000, 600000, 700000,\n"
                       "        800000, 900000], shape=(10,), dtype=int64, device=cpu)")
    t = wt.asarray(np.arange(12, dtype=np.int64) * 10 ** 5)
    assert repr(t) == ("Tensor([      0,  100000,  200000,  300000,  400000,  500000,  600000,\n"
                       "         700000,  800000,  900000, 1000000, 1100000],\n"
                       "       shape=(12,), dtype=int64, device=cpu)")


def test_bfloat16_prints_its_own_shortest_digits():
    t = wt.asarray([1.0, 0.1, 3.140625, -2.0 ** -133], dtype=wt.bfloat16)
    # bf16(0.1) = 0.10009765625, shortest at 8 bits: 0.1; 2**-133 is a bf16 subnormal.
    # Scientific columns share the longest value's digit count (3.14), NumPy-style.
    assert str(t) == "[ 1.00e+00  1.00e-01  3.14e+00 -9.18e-41]"
    assert str(wt.asarray([1.0, 0.5, 0.1], dtype=wt.bfloat16)) == "[1.  0.5 0.1]"
    assert str(wt.asarray([math.pi], dtype=wt.bfloat16)) == "[3.14]"
    assert str(wt.asarray(math.pi, dtype=wt.bfloat16)) == "3.14"


def _f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def test_float32_shortest_digits_match_numpy():
    rng = np.random.default_rng(7)
    patterns = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    specials = np.array([0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800001,
                         0x4B800000, 0x3DCCCCCD, 0x33800000], np.uint32)
    for bits in np.concatenate([patterns, specials]).tolist():
        v = _f32(bits)
        if not math.isfinite(v):
            continue
        assert _format.format_float(v, "float32") == str(np.float32(v)), hex(bits)


def test_float16_shortest_digits_match_numpy():
    for bits in range(0, 1 << 16, 7):
        v = float(np.array([bits], np.uint16).view(np.float16)[0])
        if not math.isfinite(v):
            continue
        assert _format.format_float(v, "float16") == str(np.float16(v)), hex(bits)


def test_bfloat16_shortest_digits_round_trip_and_are_minimal():
    # Every bf16 value: the digits read back to the same bf16, and one digit fewer never does.
    fmt = _format._BINARY["bfloat16"]
    for bits in range(0, 1 << 16, 5):
        v = _f32(bits << 16)
        if not math.isfinite(v) or v == 0:
            continue
        s = _format._shortest(v, fmt)
        assert _format._round_to(float(s), fmt)[0] == v
        digits, _ = _format._digits(s)
        if len(digits) > 1:
            shorter = f"{v:.{len(digits) - 2}e}"
            assert _format._round_to(float(shorter), fmt)[0] != v


def test_round_to_handles_ties_subnormals_and_overflow():
    f32 = _format._BINARY["float32"]
    assert _format._round_to(1.0 + 2.0 ** -24, f32) == (1.0, True)  # tie -> even
    assert _format._round_to(1.0 + 3 * 2.0 ** -24, f32)[0] == 1.0 + 2.0 ** -22
    assert _format._round_to(2.0 ** -150, f32)[0] == 0.0  # half the smallest subnormal
    assert _format._round_to(3 * 2.0 ** -151, f32)[0] == 2.0 ** -149
    assert _format._round_to(3.5e38, f32)[0] == math.inf
    assert _format._round_to(-3.5e38, f32)[0] == -math.inf


def test_summarized_repr_reads_only_the_edges(monkeypatch):
    t = wt.asarray(np.arange(10 ** 6, dtype=np.float32).reshape(1000, 1000))
    backend = t.device.backend
    sizes = []
    original = backend.to_values

    def spy(x):
        sizes.append(x.size)
        return original(x)

    monkeypatch.setattr(backend, "to_values", spy)
    text = repr(t)
    assert max(sizes) <= 9 and sum(sizes) == 36
    assert text.count("...") == 7  # six rows and the row of rows
    monkeypatch.undo()
    assert str(t) == str(np.arange(10 ** 6, dtype=np.float32).reshape(1000, 1000))


def test_strided_views_print_their_own_values():
    a = np.arange(2400, dtype=np.int32).reshape(40, 60)
    t = wt.asarray(a)
    view = t._view((20, 30), (120, -2), 59)  # every other row, columns reversed by 2
    assert str(view) == str(a[::2, ::-2])


def test_printoptions_validation_and_scoping():
    before = _format.get_printoptions()
    with _format.set_printoptions(precision=3, linewidth=40):
        assert _format.get_printoptions()["precision"] == 3
        assert str(wt.asarray([math.pi], dtype=wt.float64)) == "[3.142]"
    assert _format.get_printoptions() == before
    with pytest.raises(ValueError, match="set_printoptions: precision must be None"):
        _format.set_printoptions(precision=-1)
    with pytest.raises(ValueError, match="set_printoptions: threshold must be an int >= 0"):
        _format.set_printoptions(threshold="many")
    with pytest.raises(ValueError, match="linewidth must be an int >= 1"):
        _format.set_printoptions(linewidth=0)
    assert _format.get_printoptions() == before


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64,
                                   np.complex128])
def test_zero_d_str_matches_numpy_scalars(dtype):
    values = [0.0, -0.0, 1.0, 0.1, 1e-4, 9.999e-5, 999.0, 1000.0, 65504.0, 999999.0, 1e6,
              1234567.0, 1e15, 1e16, 1.5e-7, -2.5, math.pi, math.inf, -math.inf, math.nan]
    if np.dtype(dtype).kind == "c":
        values = [complex(a, b) for a in values[::3] for b in values[1::4]]
    for v in values:
        with np.errstate(over="ignore"):
            s = dtype(v)
        assert str(wt.asarray(s)) == str(s), (dtype, v)


def test_formatting_never_imports_numpy():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(_format))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert "numpy" not in imported
