"""The browser driver inside Pyodide on a real browser's WebGPU (tests/browser/run.mjs runs it).

Skipped elsewhere: natively, and in Pyodide under Node (no ``navigator.gpu``).  The cpu device
is the oracle; reads here wait through JSPI (pytest runs under ``runPythonAsync``), and the
async twins are awaited through ``run_sync`` so both read paths run in every test.
"""

from __future__ import annotations

import sys

import pytest

if sys.platform != "emscripten":
    pytest.skip("browser-only tests (run them with tests/browser/run.mjs)",
                allow_module_level=True)

from webtensor.backends.webgpu import probe  # noqa: E402

if not probe().available:
    pytest.skip(f"no browser WebGPU here: {probe().reason}", allow_module_level=True)

from pyodide.ffi import can_run_sync, run_sync  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor import device as _device  # noqa: E402
from webtensor.backends.webgpu import browser  # noqa: E402
from webtensor.backends.webgpu.driver import SPEC_LIMITS, WANTED_FEATURES  # noqa: E402

GPU = _device.as_device("webgpu")
CPU = _device.cpu
DRIVER = GPU.backend.driver

VALUES = {
    wt.float32: [0.5, -1.25, 3.0e38, -0.0, 1e-30, 7.0, 2.5, -8.0, 100.0, 0.125, 6.0, -3.5],
    wt.int32: [0, -1, 2**31 - 1, -(2**31), 5, 6, 7, -8, 9, 10, 11, 12],
    wt.uint8: [0, 255, 1, 128, 5, 6, 7, 8, 9, 10, 11, 12],
    wt.bool: [True, False, True, True, False, False, True, False, True, False, True, True],
    wt.float64: [0.1, -2.0, 1e300, 4.0, 5.5, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0],
}
VIEWS = {  # name -> how to take it from a (3, 4) tensor
    "whole": lambda t: t,
    "0-d": lambda t: t[1, 2],
    "size 0": lambda t: t[:, 4:],
    "transposed": lambda t: t.T,
    "strided": lambda t: t[::2, ::-3],
}


def pair(dt):
    data = VALUES[dt]
    return (wt.asarray(data, dtype=dt, device=GPU).reshape((3, 4)),
            wt.asarray(data, dtype=dt, device=CPU).reshape((3, 4)))


def test_the_browser_driver_runs_the_device():
    assert DRIVER.name == "browser-webgpu"
    assert DRIVER.limits == SPEC_LIMITS  # the spec defaults, never the adapter's maxima
    assert DRIVER.features <= set(WANTED_FEATURES)
    info = wt.device_info(GPU)
    assert info["adapter"]["backend_type"] == "WebGPU (browser)"
    assert info["adapter"]["adapter_type"] == ("GPU" if probe().hardware else "CPU")


def test_default_device_in_browser(monkeypatch):
    monkeypatch.delenv("WEBTENSOR_DEVICE", raising=False)
    assert _device._initial_default() is GPU  # any adapter, even SwiftShader, beats pure Python
    monkeypatch.setenv("WEBTENSOR_DEVICE", "cpu")
    assert _device._initial_default() is CPU


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("dt", VALUES, ids=lambda dt: dt.name)
def test_sync_and_async_reads_match_the_cpu(dt, view):
    assert can_run_sync()  # pytest runs under runPythonAsync
    g, c = (VIEWS[view](t) for t in pair(dt))
    want = c.tolist()
    assert g.tolist() == want
    assert run_sync(g.tolist_async()) == want
    assert g.tobytes() == c.tobytes()
    if c.size == 1:
        assert run_sync(g.item_async()) == c.item() == g.item()


def test_computed_results_read_both_ways():
    g, c = pair(wt.float32)
    yg, yc = (wt.where(t > 0, t * 2.0, -t) - 1.0 for t in (g, c))
    assert yg.tolist() == yc.tolist() == run_sync(yg.tolist_async())
    assert bool(yg[0, 0] > 0) is bool(yc[0, 0] > 0)
    assert repr(yg).replace("webgpu", "cpu") == repr(yc)


def test_item_async_needs_one_element():
    g, _ = pair(wt.int32)
    with pytest.raises(ValueError, match=r"item_async.*shape \(3, 4\)"):
        run_sync(g.item_async())


def test_sync_async_waits_and_reports_nothing_when_clean():
    g, c = pair(wt.int32)
    y = g * 3 + 1
    assert run_sync(wt.sync_async()) is None
    assert run_sync(wt.sync_async(GPU)) is None
    assert y.tolist() == (c * 3 + 1).tolist()
    with pytest.raises(ValueError, match="sync_async: unknown device 'tpu'"):
        run_sync(wt.sync_async("tpu"))


def test_a_bad_kernel_raises_a_clear_error_and_the_device_goes_on():
    wgsl = ("@group(0) @binding(0) var<uniform> n: u32;\n"
            "@compute @workgroup_size(64) fn main() {\n"
            "  let x: u32 = undefined_name;\n}\n")
    with pytest.raises(browser.KernelCompileError,
                       match=r"(?s)failed to compile.*line 3.*undefined_name"):
        DRIVER.create_pipeline(wgsl, "main", 0, 0, 4)
    with pytest.raises(browser.KernelCompileError, match="failed to compile"):
        DRIVER.create_pipeline(wgsl.replace("undefined_name", "1u"), "no_such_entry", 0, 0, 4)
    g, c = pair(wt.float32)
    assert (g + 1.0).tolist() == (c + 1.0).tolist()


def test_one_crossing_per_batch():
    x = wt.ones((64,), device=GPU)
    x[0].item()
    before = DRIVER.stats()
    for _ in range(40):
        x = x + 1.0
    assert x[0].item() == 41.0
    after = DRIVER.stats()
    assert after["dispatches"] - before["dispatches"] >= 40
    # Everything since the last read went to the executor with the read itself: one call.
    assert after["flushes"] == before["flushes"]
    assert after["reads"] - before["reads"] == 1
    assert after["submits"] - before["submits"] == 1


def test_the_uniform_arena_bounds_a_batch():
    x = wt.zeros((8,), dtype=wt.int32, device=GPU)
    x.tolist()
    before = DRIVER.stats()
    n = browser.MAX_BATCH + 20
    for _ in range(n):
        x = x + 1
    assert x.tolist() == [n] * 8
    after = DRIVER.stats()
    assert after["flushes"] - before["flushes"] == 1  # the full arena; the rest rode the read


@pytest.mark.parametrize("n", [browser.DIRECT_WRITE_BYTES // 4 - 1, browser.DIRECT_WRITE_BYTES])
def test_staged_and_direct_uploads_keep_program_order(n):
    values = [(i * 7919) % 1000 - 500 for i in range(n)]
    x = wt.asarray(values, dtype=wt.int32, device=GPU)
    y = x * 2  # recorded before the overwrite below
    x[1:] = wt.asarray(values[:-1], dtype=wt.int32, device=GPU)
    z = x + 1
    assert y[:5].tolist() == [2 * v for v in values[:5]]
    assert z[:5].tolist() == [values[0] + 1] + [v + 1 for v in values[:4]]
    assert y[-3:].tolist() == [2 * v for v in values[-3:]]


def test_buffers_are_freed_in_the_browser():
    def make():
        return [wt.ones((1000,), device=GPU) * i for i in range(10)]

    make()  # scalar operands may be cached on the device: let the cache fill first
    before = wt.memory_stats(GPU)["live_buffers"]
    xs = make()
    assert wt.memory_stats(GPU)["live_buffers"] >= before + 10
    del xs
    assert wt.memory_stats(GPU)["live_buffers"] == before
    destroyed = DRIVER.stats()["buffers_destroyed"]
    GPU.backend.empty_pool()
    assert DRIVER.stats()["buffers_destroyed"] > destroyed
    assert (wt.ones((3,), device=GPU) * 2).tolist() == [2.0, 2.0, 2.0]  # still usable


def test_sync_waits_for_queued_work_and_async_twin():
    x = wt.asarray([1.0, 2.0], device=GPU)
    y = x * 3 + 1
    wt.sync()  # blocks through JSPI (pytest runs under runPythonAsync)
    wt.sync(GPU)
    run_sync(wt.sync_async(GPU))
    assert y.tolist() == [4.0, 7.0]
    assert DRIVER.stats()["submits"] >= 1


def test_exact_scatter_sums_and_tf_index_check_match_the_cpu():
    """Float scatter-adds into few targets (the exact integer sums, vector and scalar loads,
    special values): the cpu device's bytes; tf.scatter_nd checks its indices while it
    scatters (one flag read back through JSPI) and refuses negative and too large ones."""
    import webtensor.tf as tf
    from webtensor.api import _reduce
    from webtensor.tf.errors import InvalidArgumentError

    n, m = 4099, 13
    idx = [(i * 7919) % m for i in range(n)]
    upd = [((i % 97) - 48) * 2.0 ** ((i % 61) - 30) for i in range(n)]
    upd[5], upd[9], upd[40], upd[77] = float("inf"), float("nan"), -0.0, 3.0e38
    outs = []
    for device in (GPU, CPU):
        b = wt.asarray(VALUES[wt.float32] + [0.0], dtype=wt.float32, device=device)
        i = wt.asarray(idx, dtype=wt.int32, device=device)
        u = wt.asarray(upd, dtype=wt.float32, device=device)
        outs.append([_reduce.scatter("add", b, 0, i, u).tobytes(),
                     _reduce.scatter("add", b, 0, i[1:], u[1:]).tobytes(),
                     tf.scatter_nd(wt.reshape(i, (n, 1)), u, (m,)).tobytes()])
    assert outs[0] == outs[1]
    for bad in (-1, m):
        wrong = list(idx)
        wrong[2000] = bad
        with pytest.raises(InvalidArgumentError, match=rf"the index \[{bad}\]"):
            tf.scatter_nd(wt.asarray([[j] for j in wrong], dtype=wt.int32, device=GPU),
                          wt.asarray(upd, dtype=wt.float32, device=GPU), (m,))
