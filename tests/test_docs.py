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


@pytest.mark.parametrize("page", ["dtypes.md", "interop.md", "autodiff.md"])
def test_page_examples_run(page):
    if not (DOCS / page).exists():
        pytest.skip("docs/ is not part of this tree")
    pytest.importorskip("numpy")  # the examples use NumPy's cpu backend and np.from_dlpack
    import webtensor as wt

    if wt.device.cpu.backend.name != "numpy":
        pytest.skip("the examples share memory through the NumPy cpu backend")
    with wt.set_default_device("cpu"):  # the pages' outputs are the cpu device's
        result = doctest.testfile(str(DOCS / page), module_relative=False,
                                  optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5
    assert result.failed == 0
