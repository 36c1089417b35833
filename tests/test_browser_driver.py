"""The browser driver's Python half, without a browser (tests/browser/run.mjs covers the rest).

* The wheel's JS executor (``gpu_executor.mjs``, package data) evaluates as a script through
  ``module_as_script``: in Node natively, through Pyodide's ``run_js`` under Pyodide.
* ``CommandBatch`` writes the wire format that gpu_executor.mjs decodes; ``WireModel`` below
  re-implements that decoder's buffer semantics (create zero-fills, write copies, destroy frees)
  as the oracle for what the driver records, and counts executor calls (one per flush).
* Outside JSPI a synchronous read raises a RuntimeError naming the async twins.
* The async twins (``tolist_async``, ``item_async``, ``wt.sync_async``) match their sync
  versions on every device here, across dtypes and views.
* In Pyodide without an adapter the default device is cpu, announced once; where the device
  could open but no code could wait for it, the cpu stands in (not kept as the default) and
  errors name ``await wt.init_async()``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import shutil
import subprocess
import sys
from importlib.resources import files

import pytest

import webtensor as wt
from _oracle import DEVICES
from webtensor import device as _device
from webtensor.backends.webgpu import browser
from webtensor.backends.webgpu.driver import SPEC_LIMITS, UNIFORM_ALIGN, Indirect, Pipeline

# The module (the package re-exports its probe() function under the same name).
probe_module = importlib.import_module("webtensor.backends.webgpu.probe")

# The limit names of the WebGPU specification's GPUSupportedLimits (https://www.w3.org/TR/webgpu/).
JS_LIMIT_NAMES = {
    "max-buffer-size": "maxBufferSize",
    "max-storage-buffer-binding-size": "maxStorageBufferBindingSize",
    "max-storage-buffers-per-shader-stage": "maxStorageBuffersPerShaderStage",
    "max-uniform-buffer-binding-size": "maxUniformBufferBindingSize",
    "max-compute-workgroups-per-dimension": "maxComputeWorkgroupsPerDimension",
    "max-compute-invocations-per-workgroup": "maxComputeInvocationsPerWorkgroup",
    "max-compute-workgroup-size-x": "maxComputeWorkgroupSizeX",
    "max-compute-workgroup-storage-size": "maxComputeWorkgroupStorageSize",
    "max-bind-groups": "maxBindGroups",
    "min-uniform-buffer-offset-alignment": "minUniformBufferOffsetAlignment",
    "min-storage-buffer-offset-alignment": "minStorageBufferOffsetAlignment",
}


# -- the executor shipped in the wheel -----------------------------------------------------------

EXECUTOR_JS = files("webtensor.backends.webgpu").joinpath(browser.EXECUTOR_SOURCE)
WIRE_OPS = {"CREATE": browser.OP_CREATE, "DESTROY": browser.OP_DESTROY,
            "WRITE": browser.OP_WRITE, "DISPATCH": browser.OP_DISPATCH}


def _evaluate_executor() -> dict:
    """The shipped executor evaluated as browser.py evaluates it: its exports' names and types,
    and its opcode table."""
    script = browser.module_as_script(EXECUTOR_JS.read_text(encoding="utf-8"))
    summary = ("JSON.stringify({types: Object.fromEntries(Object.entries(ns).map("
               "([k, v]) => [k, typeof v])), op: ns.OP})")
    if sys.platform == "emscripten":
        from pyodide.code import run_js

        return json.loads(run_js(f"(() => {{ const ns = {script}; return {summary}; }})()"))
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs Node.js to evaluate the JavaScript executor")
    done = subprocess.run([node, "-e", f"const ns = {script};\nconsole.log({summary});"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_shipped_executor_evaluates_with_its_exports():
    found = _evaluate_executor()
    assert found["types"] == {"OP": "object", "openDevice": "function",
                              "GpuExecutor": "function"}
    assert found["op"] == WIRE_OPS  # the wire format's opcodes agree on both sides


@pytest.mark.parametrize("source, found", [
    ('import { x } from "./y.mjs";\nexport const A = 1;\n', "'import { x } from \"./y.mjs\";'"),
    ("export default function () {}\n", "'export default function () {}'"),
    ("const A = 1;\n", "'no export'"),
])
def test_module_as_script_refuses_what_it_cannot_turn_into_a_script(source, found):
    with pytest.raises(ValueError) as info:
        browser.module_as_script(source)
    assert str(info.value) == ("module_as_script: only `export const/function/class NAME` at "
                               f"the start of a line are supported, found {found}")


def test_module_as_script_keeps_the_code_and_returns_the_exports():
    script = browser.module_as_script("export const A = 1;\nfunction hidden() {}\n"
                                      "export async function f() {}\nexport class K {}\n")
    assert "return { A, f, K };" in script
    assert "export" not in script and "function hidden() {}" in script


def test_js_limit_names_match_the_spec():
    assert set(JS_LIMIT_NAMES) == set(SPEC_LIMITS)
    for key, name in JS_LIMIT_NAMES.items():
        assert browser.js_limit_name(key) == name


def test_kernels_using_subgroups_get_the_browser_s_directive():
    """Browsers compile a shader with subgroup operations only after ``enable subgroups;``,
    which wgpu-native refuses: the browser driver adds it to exactly those kernels."""
    from webtensor.backends.webgpu import reduce as gpu_reduce

    for combine in ("tree", "subgroup", "solo"):
        wgsl = gpu_reduce.pass_kernel("fsum", "f32", True, 1, 32, combine=combine).wgsl
        sent = browser._with_directives(wgsl)
        assert sent.startswith("enable subgroups;\n") == (combine == "subgroup")
        assert sent.endswith(wgsl)


# -- the wire format --------------------------------------------------------------------------

class WireModel:
    """The executor's buffer semantics in Python, fed through the same single ``run`` call."""

    def __init__(self):
        self.buffers: dict[int, bytearray] = {}
        self.dispatches: list[tuple] = []
        self.runs = 0
        self.direct_writes = 0

    def run(self, cmds, uniforms, uploads):
        self.runs += 1
        for cmd in browser.CommandBatch.decode(cmds):
            if cmd[0] == "create":
                _, buf, size, usage = cmd
                assert size % 4 == 0 and usage in browser.USAGE_CODES.values()
                self.buffers[buf] = bytearray(size)
            elif cmd[0] == "destroy":
                del self.buffers[cmd[1]]
            elif cmd[0] == "write":
                _, buf, offset, start, size = cmd
                self.buffers[buf][offset:offset + size] = uploads[start:start + size]
            else:
                _, pipeline, uniform_offset, grid, buffers = cmd
                assert uniform_offset % UNIFORM_ALIGN == 0
                assert uniform_offset + 16 <= browser.ARENA_BYTES
                params = bytes(uniforms[uniform_offset:uniform_offset + 16])
                self.dispatches.append((pipeline, params, grid, buffers))

    def write(self, buf, offset, data):
        self.direct_writes += 1
        data = bytes(data)
        self.buffers[buf][offset:offset + len(data)] = data

    def stats(self):
        class Counters:
            @staticmethod
            def to_py():
                return {"submits": 0, "bind_groups": 0}

        return Counters()


def make_driver():
    model = WireModel()
    device = browser.BrowserDevice(executor=model, limits=dict(SPEC_LIMITS),
                                   features=frozenset(), fallback=True,
                                   info={"vendor": "v", "architecture": "a", "device": "",
                                         "description": ""})
    return browser.BrowserDriver(device), model


PIPELINE = Pipeline(7, 1, 1, 16)


def test_recording_keeps_program_order_in_one_call_per_flush():
    driver, model = make_driver()
    a, b = driver.create_buffer(8), driver.create_buffer(10)
    driver.write_buffer(a, 0, b"\x01\x02\x03\x04\x05\x06\x07\x08")
    driver.dispatch(PIPELINE, [a, b], bytes(range(16)), 3)
    driver.write_buffer(a, 4, b"\xff" * 4)  # after the dispatch, in the same batch
    driver.dispatch(PIPELINE, [b, a], bytes(range(16, 32)), 70000)
    assert model.runs == 0  # nothing crosses until a flush
    driver.flush()
    assert model.runs == 1
    assert model.buffers[a] == bytearray(b"\x01\x02\x03\x04\xff\xff\xff\xff")
    assert len(model.buffers[b]) == 12  # whole words
    assert model.dispatches == [(7, bytes(range(16)), (3, 1, 1), (a, b)),
                                (7, bytes(range(16, 32)), (65535, 2, 1), (b, a))]
    driver.destroy_buffer(a)
    driver.flush()
    driver.flush()  # an empty batch does not cross
    assert model.runs == 2 and a not in model.buffers
    stats = driver.stats()
    assert (stats["dispatches"], stats["writes"], stats["flushes"]) == (2, 2, 2)
    assert (stats["buffers_created"], stats["buffers_destroyed"]) == (2, 1)


def test_indirect_dispatches_name_their_counts_buffer():
    driver, model = make_driver()
    a, counts = driver.create_buffer(8), driver.create_buffer(16)
    driver.dispatch(PIPELINE, [counts, a], bytes(16), Indirect(counts, 4))
    driver.flush()
    assert model.dispatches == [(7, bytes(16), (browser.INDIRECT_GRID, counts, 4), (counts, a))]


def test_big_writes_go_direct_after_a_flush():
    driver, model = make_driver()
    buf = driver.create_buffer(browser.DIRECT_WRITE_BYTES)
    data = bytes(i % 251 for i in range(browser.DIRECT_WRITE_BYTES))
    driver.write_buffer(buf, 0, data)
    # The buffer's creation had to reach the executor before the direct write.
    assert (model.runs, model.direct_writes) == (1, 1)
    assert model.buffers[buf] == data


def test_the_uniform_arena_bounds_a_batch():
    driver, model = make_driver()
    a, b = driver.create_buffer(4), driver.create_buffer(4)
    for i in range(browser.MAX_BATCH + 5):
        driver.dispatch(PIPELINE, [a, b], i.to_bytes(16, "little"), 1)
    assert model.runs == 1  # the full arena was handed over
    driver.flush()
    assert model.runs == 2
    assert [int.from_bytes(d[1], "little") for d in model.dispatches] == \
        list(range(browser.MAX_BATCH + 5))


@pytest.mark.parametrize("buffers, uniforms, match", [
    ([1], bytes(16), "1 buffers for a kernel with 1 inputs and 1 outputs"),
    ([1, 2], bytes(8), "8 uniform bytes, the kernel declares 16"),
])
def test_dispatch_checks_its_arguments(buffers, uniforms, match):
    driver, model = make_driver()
    with pytest.raises(ValueError, match=match):
        driver.dispatch(PIPELINE, buffers, uniforms, 1)
    driver.flush()
    assert model.dispatches == []  # bad input records nothing


def test_create_buffer_rejects_unknown_usage():
    driver, _ = make_driver()
    with pytest.raises(ValueError, match=r"create_buffer: usage 'vertex' is not one of"):
        driver.create_buffer(16, "vertex")


def test_sync_read_without_jspi_names_the_async_twins():
    driver, model = make_driver()
    buf = driver.create_buffer(16)
    with pytest.raises(RuntimeError, match=r"await x\.tolist_async\(\).*runPythonAsync"):
        driver.read_buffer(buf, 0, 16)
    assert driver.read_buffer(buf, 0, 0) == b""  # nothing to wait for
    assert model.runs == 1


def test_take_hands_over_and_empties():
    batch = browser.CommandBatch()
    assert batch.take() == (None, None, None) and not batch
    batch.create(1, 8, "uniform")
    batch.write(1, 0, b"abcd")
    batch.dispatch(3, [1], b"xyz!", (1, 1, 1))
    cmds, uniforms, uploads = batch.take()
    assert not batch and batch.dispatches == 0
    assert browser.CommandBatch.decode(cmds) == [
        ("create", 1, 8, 1), ("write", 1, 0, 0, 4), ("dispatch", 3, 0, (1, 1, 1), (1,))]
    assert bytes(uniforms) == b"xyz!" and bytes(uploads) == b"abcd"


# -- async twins --------------------------------------------------------------------------------

def run(coro):
    """Await ``coro``: with asyncio natively; by hand in Pyodide under Node, where asyncio.run
    needs JSPI and these coroutines (cpu device only there) complete without suspending."""
    if sys.platform != "emscripten":
        return asyncio.run(coro)
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise AssertionError("the coroutine suspended; run these tests natively or with JSPI")


# the driver's device names: the CPU, and webgpu where the suite has it (tests/_oracle.py)
DRIVER_DEVICES = ["cpu"] + [name for name in DEVICES if name == "webgpu"]
VIEWS = {
    "whole": lambda t: t,
    "0-d": lambda t: t[1, 2],
    "size 0": lambda t: t[:, 4:],
    "transposed": lambda t: t.T,
    "strided": lambda t: t[::2, ::-3],
}


@pytest.mark.parametrize("device", DRIVER_DEVICES)
@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("dt", [wt.bool, wt.int8, wt.uint16, wt.int32, wt.int64, wt.float16,
                                wt.bfloat16, wt.float32, wt.float64, wt.complex64],
                         ids=lambda dt: dt.name)
def test_async_twins_match_the_sync_reads(dt, view, device):
    values = [0, 1, 3, 7, 2, 5, 6, 4, 8, 9, 1, 0]
    t = VIEWS[view](wt.asarray(values, device=device).astype(dt).reshape((3, 4)))
    assert run(t.tolist_async()) == t.tolist()
    if t.size == 1:
        assert run(t.item_async()) == t.item()


def test_item_async_needs_one_element():
    with pytest.raises(ValueError, match=r"Tensor.item_async: .* shape \(2,\)"):
        run(wt.asarray([1, 2]).item_async())


@pytest.mark.parametrize("device", [None, *DRIVER_DEVICES])
def test_sync_async(device):
    x = wt.asarray([1.0, 2.0], device=device or "cpu") * 3.0
    assert run(wt.sync_async(device)) is None
    assert x.tolist() == [3.0, 6.0]
    with pytest.raises(ValueError, match="wt.sync_async: unknown device 'tpu'"):
        run(wt.sync_async("tpu"))


# -- the Pyodide default device -----------------------------------------------------------------

def test_pyodide_without_webgpu_falls_back_to_cpu_once(monkeypatch, capsys):
    import webtensor.backends.webgpu as webgpu_package

    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.delenv("WEBTENSOR_DEVICE", raising=False)
    found = probe_module.probe.__wrapped__()  # the browser branch, uncached
    # No navigator.gpu here (CPython, Node).
    assert not found.available
    assert "navigator.gpu" in found.reason
    monkeypatch.setattr(webgpu_package, "probe", lambda: found)
    monkeypatch.setattr(_device, "_DEVICES", {"cpu": _device.cpu})
    monkeypatch.setattr(_device, "_webgpu_probed", False)
    monkeypatch.setattr(_device, "_cpu_fallback_noticed", False)
    assert _device._initial_default() is _device.cpu
    assert _device._initial_default() is _device.cpu
    err = capsys.readouterr().err
    assert err.count("webtensor: no WebGPU here") == 1
    assert found.reason in err and "cpu device" in err


def test_pyodide_before_the_device_opens_the_cpu_stands_in(monkeypatch, capsys):
    """A browser with navigator.gpu, code entered without JSPI: nothing can wait for the device
    to open, so the cpu stands in without becoming the default, errors name init_async, and
    init_async settles it (here: no adapter, so cpu for good)."""
    import functools

    import webtensor.backends.webgpu as webgpu_package
    from webtensor._settings import Setting

    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.delenv("WEBTENSOR_DEVICE", raising=False)
    monkeypatch.setattr(browser, "_has_navigator_gpu", lambda: True)
    monkeypatch.setattr(browser, "_can_run_sync", lambda: False)
    monkeypatch.setattr(browser, "_opened", None)
    monkeypatch.setattr(browser, "_failure", None)
    fresh_probe = functools.lru_cache(maxsize=1)(probe_module.probe.__wrapped__)
    monkeypatch.setattr(webgpu_package, "probe", fresh_probe)
    monkeypatch.setattr(probe_module, "probe", fresh_probe)  # what browser.initialize clears
    monkeypatch.setattr(_device, "_DEVICES", {"cpu": _device.cpu})
    monkeypatch.setattr(_device, "_webgpu_probed", False)
    monkeypatch.setattr(_device, "_cpu_fallback_noticed", False)
    monkeypatch.setattr(_device, "_default_device", Setting("default_device", None))

    assert wt.default_device() is _device.cpu
    assert wt.default_device() is _device.cpu
    assert _device._default_device.get() is None  # not kept: init_async may still open webgpu
    err = capsys.readouterr().err
    assert err.count("webtensor: the WebGPU device is not open yet") == 1
    assert "`await wt.init_async()`" in err and "cpu device until then" in err
    with pytest.raises(ValueError, match=r"wt\.asarray: the webgpu device is not open yet: "
                                         r".*run `await wt\.init_async\(\)` once first"):
        wt.asarray([1.0], device="webgpu")

    no_adapter = "navigator.gpu.requestAdapter() found no WebGPU adapter"

    async def open_finds_no_adapter():
        monkeypatch.setattr(browser, "_failure", no_adapter)

    monkeypatch.setattr(browser, "_initialize", open_finds_no_adapter)
    assert run(wt.init_async()) is _device.cpu
    assert _device._default_device.get() is _device.cpu  # an answer now: kept
    err = capsys.readouterr().err
    assert err.count("webtensor: no WebGPU here") == 1 and no_adapter in err
    with pytest.raises(ValueError, match=r"wt\.asarray: the webgpu device is not available "
                                         r"here: navigator\.gpu\.requestAdapter\(\) found no"):
        wt.asarray([1.0], device="webgpu")


def test_init_async_returns_the_default_device():
    # Natively, or in Pyodide under Node (no navigator.gpu: settled without waiting on JS).
    assert run(wt.init_async()) is wt.default_device()
    with wt.set_default_device("cpu"):
        assert run(wt.init_async()) is _device.cpu
