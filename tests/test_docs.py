"""The documentation pages are generated from the code and their examples run as doctests."""

import doctest
import importlib.util
import pathlib

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_promotion", DOCS / "gen_promotion.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not (DOCS / "promotion.md").exists(), reason="docs/ is not part of this tree")
def test_promotion_page_is_current():
    committed = (DOCS / "promotion.md").read_text(encoding="utf-8")
    assert committed == _generator().render(), "run: python docs/gen_promotion.py"


@pytest.mark.skipif(not (DOCS / "promotion.md").exists(), reason="docs/ is not part of this tree")
def test_promotion_page_examples_run():
    pytest.importorskip("numpy")  # the seed's examples mix NumPy arrays with tensors
    result = doctest.testfile(str(DOCS / "promotion.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20
    assert result.failed == 0
