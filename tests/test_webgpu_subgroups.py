"""Reductions whose lanes combine by subgroup shuffles (``backends/webgpu/reduce.py``).

On adapters with the WebGPU ``subgroups`` feature, a reduction pass that gives a row several
lanes (the GPU plan) runs the lower levels of its tree by ``subgroupShuffleDown`` instead of
workgroup memory and barriers.  What must hold, under the GPU plan on whatever adapter runs
the tests (lavapipe natively, SwiftShader in Chromium, whose subgroups have 8 and 4 lanes):

* the subgroup kernels are the ones launched, and give the same bits as the workgroup-memory
  tree (the same tree, neighbours first) for every row length from 2 to 256 lanes, for exact
  and fast float sums, integer sums, max and argmax, and a long cumulative sum (whose chunk
  totals are a reduction pass);
* those results are the CPU device's (float sums within 1 ULP).

No NumPy: the data come from ``random`` so the file also runs in the browser.  Skipped (with
the reason) where the adapter has no subgroups.
"""

from __future__ import annotations

import random

import pytest

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402

GPU, CPU, B = webgpu_or_skip()

from _oracle import ulps_apart32  # noqa: E402
from webtensor.backends.webgpu import reduce as gpu_reduce  # noqa: E402

pytestmark = pytest.mark.skipif(not B.subgroups, reason="this WebGPU adapter has no subgroups")

# rows x length: lanes from 2 (rows of 17-32) to 256 (long rows, and one 2-pass sum)
SHAPES = ((64, 20), (33, 50), (16, 100), (9, 700), (5, 3000), (3, 9000), (1, 300_000))


@pytest.fixture(autouse=True)
def _gpu_plan(monkeypatch):
    """The GPU plan (lanes combined by a tree) whatever class this adapter is."""
    plans = gpu_reduce.REDUCE_PLANS
    monkeypatch.setattr(gpu_reduce, "REDUCE_PLANS", dict.fromkeys(plans, plans["gpu"]))


def _values(shape, seed, dtype):
    rng = random.Random(seed)
    n = shape[0] * shape[1]
    if dtype is wt.int32:
        flat = [rng.randrange(-2**31, 2**31) for _ in range(n)]
    else:  # wide magnitudes, so the order of additions shows in fast sums' bits
        flat = [rng.gauss(0.0, 1.0) * 10.0 ** rng.randrange(-3, 6) for _ in range(n)]
    return wt.reshape(wt.asarray(flat, dtype=dtype, device=CPU), shape)


def _results(x, monkeypatch, subgroups: bool) -> tuple[list[bytes], list[str]]:
    """(each reduction's result bytes, the kernels launched) with subgroups on or off."""
    monkeypatch.setattr(B, "subgroups", subgroups)
    launched = []
    launch = B.launch
    monkeypatch.setattr(B, "launch", lambda kernel, *a: (launched.append(kernel.wgsl),
                                                         launch(kernel, *a))[1])
    g = x.to_device(GPU)
    out = []
    for precision in ("exact", "fast") if x.dtype is wt.float32 else ("exact",):
        with wt.set_precision(precision):
            out += [wt.sum(g, axis=1), wt.sum(g, axis=0)]
    out += [wt.max(g, axis=1), wt.argmax(g, axis=1)]
    return [r.tobytes() for r in out], launched


@pytest.mark.parametrize("dtype", [wt.float32, wt.int32], ids=["float32", "int32"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_subgroup_levels_give_the_tree_s_bits(shape, dtype, monkeypatch):
    x = _values(shape, 7, dtype)
    with_subgroups, kernels = _results(x, monkeypatch, True)
    assert any("subgroupShuffleDown" in k for k in kernels)
    without, kernels = _results(x, monkeypatch, False)
    assert not any("subgroupShuffleDown" in k for k in kernels)
    assert with_subgroups == without


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_subgroup_reductions_are_the_cpu_s(shape, monkeypatch):
    monkeypatch.setattr(B, "subgroups", True)
    x = _values(shape, 11, wt.float32)
    g = x.to_device(GPU)
    for axis in (1, 0):
        want, got = wt.sum(x, axis=axis).tolist(), wt.sum(g, axis=axis).tolist()
        assert all(ulps_apart32(a, b) <= 1 for a, b in zip(want, got)), axis
    assert wt.max(g, axis=1).tolist() == wt.max(x, axis=1).tolist()
    assert wt.argmax(g, axis=1).tolist() == wt.argmax(x, axis=1).tolist()
    ints = _values(shape, 12, wt.int32)
    assert wt.sum(ints.to_device(GPU), axis=1).tolist() == wt.sum(ints, axis=1).tolist()


def test_a_long_cumulative_sum_takes_subgroup_totals(monkeypatch):
    """A scan of rows longer than one chunk reduces the chunks first (a pass with lanes)."""
    x = _values((2, 40_000), 5, wt.float32)
    monkeypatch.setattr(gpu_reduce, "SCAN_CHUNKING", dict.fromkeys(("software", "gpu"), (4096, 64)))
    found = []
    for subgroups in (True, False):
        monkeypatch.setattr(B, "subgroups", subgroups)
        found.append(wt.cumulative_sum(x.to_device(GPU), axis=1).tobytes())
    assert found[0] == found[1]
    want = wt.cumulative_sum(x, axis=1).tolist()
    got = wt.cumulative_sum(x.to_device(GPU), axis=1).tolist()
    assert all(ulps_apart32(a, b) <= 1 for ra, rb in zip(want, got) for a, b in zip(ra, rb))


def test_the_device_reports_the_feature():
    assert "subgroups" in wt.device_info(GPU)["features"]


def test_a_compiler_refusing_subgroup_kernels_gets_trees(monkeypatch):
    """Where the device offers subgroups but its shader compiler refuses these kernels, the
    backend stops asking for them and the reduction runs on workgroup-memory trees."""
    monkeypatch.setattr(B, "subgroups", True)
    monkeypatch.setattr(B, "_pipelines", {})  # every kernel compiles anew
    create = B.driver.create_pipeline

    def refusing(wgsl, *args):
        if "subgroupShuffleDown" in wgsl:
            raise RuntimeError("shader compiler: unknown built-in subgroup_id")
        return create(wgsl, *args)
    monkeypatch.setattr(B.driver, "create_pipeline", refusing)
    x = _values((9, 700), 3, wt.float32)
    got = wt.sum(x.to_device(GPU), axis=1).tolist()
    want = wt.sum(x, axis=1).tolist()
    assert all(ulps_apart32(a, b) <= 1 for a, b in zip(want, got))
    assert B.subgroups is False
