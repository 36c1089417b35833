"""The examples of Nx v0.4's own documentation (tests/nx_doc_cases.py), run on every device
with the seed examples' checks (tests/test_nx_seed.py): the real library's printed results are
the oracle for functions the seed only names (windows, conv, pad, slices, dot, sort, ...)."""

from __future__ import annotations

import pytest

from nx_doc_cases import CASES
from test_nx_seed import run_steps

pytestmark = pytest.mark.filterwarnings("ignore:webgpu. float64 work runs on the CPU")


@pytest.mark.parametrize("steps", [pytest.param(steps, id=f"nx.ex:{line}")
                                   for line, steps in CASES])
def test_doc_example(dev, steps):
    run_steps(steps, dev)
