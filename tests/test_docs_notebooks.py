"""The notebooks in docs/notebooks run top to bottom, natively, on every device, and show what
they claim (the spiral notebook reaches its accuracy and draws its two figures)."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

import webtensor as wt
from _oracle import BACKENDS

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "docs" / "notebooks").glob("*.ipynb"))

pytestmark = pytest.mark.skipif(
    sys.platform == "emscripten",
    reason="the pure-Python backend trains for minutes under Pyodide; the playground test runs "
           "the same spiral program in Pyodide, in the browser")


def run_notebook(path: Path, device) -> tuple[dict, list]:
    """Execute the code cells in order in one namespace (a cell's last expression evaluated,
    as Jupyter does) with ``device`` as the default; returns (namespace, shown payloads)."""
    cells = [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    namespace, shown = {"__name__": "__main__"}, []
    with wt.set_default_device(device), wt.set_show_hook(shown.append):
        for i, cell in enumerate(cells):
            name = f"{path.name}[cell {i}]"
            tree = ast.parse("".join(cell["source"]), name)
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, name, "exec"), namespace)
            if last is not None:
                eval(compile(ast.Expression(last.value), name, "eval"), namespace)
    return namespace, shown


def test_there_are_notebooks():
    assert NOTEBOOKS, "docs/notebooks holds no notebook"


# the NumPy CPU backend and webgpu (the pure-Python backend would train for minutes)
NOTEBOOK_DEVICES = [p for p in BACKENDS if p.id != "python"]


@pytest.mark.parametrize("dev", NOTEBOOK_DEVICES)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, dev):
    ns, shown = run_notebook(path, dev)
    if path.stem == "learn_spiral":
        assert ns["acc"] >= 0.95, f"training accuracy {ns['acc']:.1%}"
        assert ns["losses"][-1] < ns["losses"][0] / 4
        assert [p["kind"] for p in shown] == ["line", "image"]
        assert tuple(shown[1]["shape"]) == (48, 48, 3)
