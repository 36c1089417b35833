"""The promotion explorer's data (``webtensor._explorer``).

Oracles: the golden tables in tests/golden/promotion/ (the reference tables of JAX, TensorFlow
and NumPy), the public ``wt.result_type`` with real operands, the lattice edges for the paths
``explain`` narrates, and a brute-force comparison of the golden tables for ``diff``.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

import webtensor as wt
from webtensor import _explorer as ex
from webtensor.__main__ import print_table
from webtensor.promotion import MODES, TypePromotionError

GOLDEN_DIR = Path(__file__).parent / "golden" / "promotion"
GOLDEN = {"standard": "jax_standard", "all": "tf_all", "safe": "tf_safe",
          "numpy": "numpy_nep50", "strict": "jax_strict", "nx": "nx_v04"}
MODE_NAMES = list(GOLDEN)


@functools.cache
def golden(mode):
    data = json.loads((GOLDEN_DIR / f"{GOLDEN[mode]}.json").read_text())
    cells = {tuple(key.split(",")): value for key, value in data["table"].items()}
    return data["types"], cells


@functools.cache
def explorer_table(mode):
    return ex.table(mode)


def operand(label):
    """A real operand for a table label: a dtype, or a Python scalar / weak tensor-like."""
    scalars = {"i*": 1, "f*": 1.0, "c*": 1j, "i32*": 1, "f32*": 1.0, "c128*": 1j}
    if label in scalars:
        return scalars[label]
    if re.fullmatch(r"-?[0-9.]+\*", label):  # nx: a Python number, labelled by its value
        return float(label[:-1]) if "." in label else int(label[:-1])
    if label.endswith("*"):  # TF's i64* / f64*: a weak 64-bit tensor

        class Weak:
            dtype = wt.dtype(label[:-1])
            weak = True

        return Weak()
    return wt.dtype(label)


def kind_of(label):
    return label[0] if label.endswith("*") else wt.dtype(label).kind


def test_modes():
    assert ex.modes() == MODE_NAMES == list(MODES)


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_table_equals_golden_and_mode_table(mode):
    t = ex.table(mode)
    types, cells = golden(mode)
    assert t["mode"] == mode
    assert sorted(t["labels"]) == sorted(types)
    n = len(t["labels"])
    assert len(t["cells"]) == len(t["kinds"]) == n
    own = MODES[mode].table()
    for i, a in enumerate(t["labels"]):
        assert len(t["cells"][i]) == len(t["kinds"][i]) == n
        for j, b in enumerate(t["labels"]):
            cell = t["cells"][i][j]
            assert cell == own[a, b]
            if cells[a, b] != "n/a":  # NumPy has no bfloat16
                assert cell == cells[a, b], (a, b)
            assert t["kinds"][i][j] == ("error" if cell == "error" else kind_of(cell))


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_everything_is_json(mode):
    labels = ex.table(mode)["labels"]
    for value in (ex.table(mode), ex.explain(labels[0], labels[-1], mode), ex.diff(mode, "all"),
                  ex.modes()):
        assert json.loads(json.dumps(value)) == value


def test_int8_with_uint32():
    for mode, want in (("all", "i64"), ("standard", "i64"), ("numpy", "i64")):
        t = ex.table(mode)
        i, j = t["labels"].index("i8"), t["labels"].index("u32")
        assert t["cells"][i][j] == want and t["kinds"][i][j] == "i"
        assert ex.explain("i8", "u32", mode)["result"] == want
    t = ex.table("safe")
    i, j = t["labels"].index("i8"), t["labels"].index("u32")
    assert t["cells"][i][j] == "error" and t["kinds"][i][j] == "error"
    got = ex.explain("int8", "uint32", "safe")
    assert got["result"] is None
    assert "int8" in got["error"] and "uint32" in got["error"] and "'safe'" in got["error"]
    assert "int8 -> int16 -> int32 -> int64" in got["steps"]
    assert "uint32 -> int64" in got["steps"]
    assert any("join" in s and "int64" in s for s in got["steps"])
    assert any("wider" in s for s in got["steps"])


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_explain_always_equals_the_table_cell(mode):
    t = explorer_table(mode)
    for i, a in enumerate(t["labels"]):
        for j, b in enumerate(t["labels"]):
            got = ex.explain(a, b, mode)
            cell = t["cells"][i][j]
            if cell == "error":
                assert got["result"] is None and got["error"], (a, b)
                assert got["steps"][-1] == "refused: " + got["error"]
            else:
                assert got["result"] == cell and got["error"] is None, (a, b)
                assert got["steps"][-1] == f"result: {cell}"


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_explain_matches_result_type_with_real_operands(mode):
    """The error text is the library's own, and results agree with wt.result_type."""
    labels = explorer_table(mode)["labels"]
    for a in labels:
        for b in labels:
            got = ex.explain(a, b, mode)
            with wt.promotion_mode(mode):
                try:
                    dt, weak = wt.result_type(operand(a), operand(b),
                                              return_weak_type_flag=True)
                except TypePromotionError as e:
                    assert got["error"] is not None and got["error"] in str(e), (a, b)
                    continue
            assert got["error"] is None, (a, b)
            result = got["result"]
            assert weak is result.endswith("*"), (a, b)
            if result.endswith("*") and result[:-1] in ("i", "f", "c"):
                default = {"i": wt.default_int_dtype, "f": wt.default_float_dtype,
                           "c": wt.default_complex_dtype}[result[0]]()
                assert dt is default
            else:
                assert dt is wt.dtype(result.rstrip("*")), (a, b)


def _node_name(mode, text):
    """An explanation's node name -> the lattice node ("int8" -> int8, "i* (weak 'i')" -> i*)."""
    label = text.split(" (weak")[0]
    for node in MODES[mode].types():
        if getattr(node, "name", None) == label:
            return node
    raise AssertionError(f"unknown node {text!r}")


@pytest.mark.parametrize("mode", ["standard", "all", "safe", "strict"])
def test_lattice_paths_walk_covering_edges_to_the_join(mode):
    lattice = MODES[mode].lattice
    labels = explorer_table(mode)["labels"]
    for a in labels:
        for b in labels:
            steps = ex.explain(a, b, mode)["steps"]
            join_line = next(s for s in steps if s.startswith("join (least upper bound)"))
            joined = _node_name(mode, join_line.rsplit(" is ", 1)[1])
            paths = [s for s in steps if " -> " in s]
            for path in paths:
                nodes = [_node_name(mode, part) for part in path.split(" -> ")]
                for low, high in zip(nodes, nodes[1:]):
                    assert high in lattice.edges[low], (a, b, path)
                assert nodes[-1] is joined
            # Each operand either walks up to the join or is the join itself.
            assert len(paths) + sum("is the join itself" in s for s in steps) == (
                1 if a == b else 2)


def test_rule_steps_name_the_rule():
    strict = ex.explain("f32", "i*", "strict")
    assert strict["result"] == "f32"
    assert any(s.startswith("strict rule") and s.endswith(": yes") for s in strict["steps"])
    higher = ex.explain("i32", "f*", "strict")  # a float scalar may not promote an int
    assert higher["result"] is None and higher["steps"][-2].endswith(": no")
    refused = ex.explain("i32", "i64", "strict")
    assert refused["result"] is None
    assert "strict rule: two different dtypes never combine implicitly" in refused["steps"]
    weak = ex.explain("b", "i*", "strict")
    assert weak["result"] is None and any("'i'" in s and ": no" in s for s in weak["steps"])
    safe = ex.explain("i32", "f32", "safe")
    assert "SAFE rule: int32 must convert to float32 without losing a value: no" in safe["steps"]
    numpy = ex.explain("u64", "i8", "numpy")
    assert numpy["result"] == "f64"
    assert any(s.startswith("first dtype that uint64 and int8 cast to safely: float64")
               for s in numpy["steps"])
    scalar = ex.explain("b", "f*", "numpy")
    assert scalar["result"] == "f64" and any("higher kind 'f'" in s for s in scalar["steps"])
    weak_result = ex.explain("i*", "f*", "standard")
    assert any("default dtype" in s for s in weak_result["steps"])


def test_numpy_order_steps_agree_with_numpy():
    np = pytest.importorskip("numpy")
    for a in ("u8", "i8", "u16", "i32", "u64", "f16", "f32", "c64"):
        for b in ("u32", "i64", "f64", "i16"):
            steps = ex.explain(a, b, "numpy")["steps"]
            line = next(s for s in steps if s.startswith("first dtype that"))
            name = re.search(r"to safely: (\w+)", line).group(1)
            assert np.dtype(name) == np.promote_types(wt.dtype(a).name, wt.dtype(b).name)


def brute_force_diff(mode_a, mode_b):
    """Cells of mode_a's golden table whose labels exist in mode_b and whose results differ."""
    types_a, cells_a = golden(mode_a)
    types_b, cells_b = golden(mode_b)
    labels = ex.table(mode_a)["labels"]
    table_a, table_b = MODES[mode_a].table(), MODES[mode_b].table()
    out = []
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            if a in types_b and b in types_b:
                mine, theirs = table_a[a, b], table_b[a, b]
                # the golden tables say the same wherever they are defined
                for golden_cells, value in ((cells_a, mine), (cells_b, theirs)):
                    assert golden_cells[a, b] in (value, "n/a")
                if mine != theirs:
                    out.append([i, j])
    return out


@pytest.mark.parametrize("mode_a", MODE_NAMES)
@pytest.mark.parametrize("mode_b", MODE_NAMES)
def test_diff_is_the_brute_force_comparison(mode_a, mode_b):
    got = ex.diff(mode_a, mode_b)
    assert got == brute_force_diff(mode_a, mode_b)
    if mode_a == mode_b:
        assert got == []
    # symmetric: the same label pairs either way round
    labels = ex.table(mode_a)["labels"]
    flipped = ex.diff(mode_b, mode_a)
    labels_b = ex.table(mode_b)["labels"]
    assert sorted((labels[i], labels[j]) for i, j in got) == sorted(
        (labels_b[i], labels_b[j]) for i, j in flipped)


def test_diff_count_matches_the_cli(capsys):
    print_table("all", "safe")
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"{len(ex.diff('all', 'safe'))} cells differ between 'all' and 'safe':"
    # SAFE differs from ALL exactly where TensorFlow refuses a pair (either order)
    labels = ex.table("all")["labels"]
    pairs = {frozenset((labels[i], labels[j])) for i, j in ex.diff("all", "safe")}
    refused = json.loads((GOLDEN_DIR / "tf_safe.json").read_text())["disallowed_pairs"]
    assert pairs == {frozenset(p) for p in refused}


def test_explain_accepts_dtypes_and_names():
    assert ex.explain(wt.int8, "uint8", "standard") == ex.explain("i8", "u8", "standard")


def test_errors():
    with pytest.raises(ValueError, match=r"_explorer\.table: unknown promotion mode 'jax'; "
                                         r"choose one of 'standard', 'all'"):
        ex.table("jax")
    with pytest.raises(ValueError, match=r"_explorer\.explain: unknown promotion mode"):
        ex.explain("i8", "i8", "nope")
    with pytest.raises(ValueError, match=r"_explorer\.explain: 'i\*' is not an operand of mode "
                                         r"'all'; use one of its labels \(.*i32\*"):
        ex.explain("i*", "i8", "all")
    with pytest.raises(ValueError, match=r"'int3' is not an operand"):
        ex.explain("int3", "i8", "standard")
    with pytest.raises(ValueError, match=r"unknown promotion mode"):
        ex.diff("standard", 3)
