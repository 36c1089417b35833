"""The WebGPU backend on the recording driver: no adapter needed, so these run everywhere.

What they check, for every primitive and dtype: the device's capability report and its real
dispatch agree (a "native" entry launches kernels and routes nothing, a "cpu" entry routes);
every launch obeys the binding rules (the driver raises ``BindingError`` otherwise: at most 8
storage buffers, no buffer bound as an output and again, uniforms of the kernel's size);
repeated work reuses its plan and pipeline; generated kernels declare what they bind.
"""

from __future__ import annotations

import re

import pytest

import webtensor as wt
from webtensor import dtypes as _d
from webtensor import ops
from webtensor.backends.webgpu.backend import DEFER_MIN_GROUPS, FAMILIES, WebGPUBackend
from webtensor.backends.webgpu.driver import Indirect
from webtensor.backends.webgpu.kernels import RARE_PATHS, REDO_HEADER, STORAGE_OF, reaches
from webtensor.backends.webgpu.recording import BindingError, RecordingDriver
from webtensor.device import Device


@pytest.fixture
def rec():
    """A fresh device on a recording driver: (device, backend, driver)."""
    driver = RecordingDriver()
    backend = WebGPUBackend(driver)
    return Device("webgpu-recording", lambda: backend), backend, driver


def _tensor(dev, dt, shape=(3, 4)):
    n = 1
    for s in shape:
        n *= s
    return wt.reshape(wt.asarray([1] * n, device=wt.device.cpu).astype(dt), shape).to_device(dev)


def _calls(backend, driver):
    return len(driver.launches), sum(backend.routed.values())


NATIVE_DTYPES = [dt for dt in _d.all_dtypes if dt not in (_d.float64, _d.complex128)]


def _applicable(op, dt):
    return dt.kind in op.kinds and not (op.result == "float" and dt.kind in "biu")


@pytest.mark.parametrize("op", ops.UNARY + ops.BINARY, ids=lambda o: o.name)
def test_capabilities_match_dispatch_for_elementwise_ops(rec, op):
    dev, backend, driver = rec
    prim = "unary" if op.arity == 1 else "binary"
    family = FAMILIES[prim]
    for dt in _d.all_dtypes:
        if not _applicable(op, dt):
            continue
        args = [_tensor(dev, dt) for _ in range(op.arity)]
        out_dt = {"bool": _d.bool, "real": dt.real_dtype,
                  "complex": getattr(dt, "complex_dtype", None)}.get(op.result, dt)
        if op.result == "float" and dt.kind in "biu":
            continue
        out = wt.empty((3, 4), dtype=out_dt, device=dev)
        launches, routed = _calls(backend, driver)
        getattr(backend, prim)(op.name, out, *args)
        native = family.supports(prim, op.name, dt) and out_dt in STORAGE_OF
        now_launches, now_routed = _calls(backend, driver)
        where = f"{op.name}({dt.name})"
        if native:
            assert now_routed == routed and now_launches > launches, f"{where} was routed"
        else:
            assert now_routed == routed + 1, f"{where} ran natively but claims no kernel"


@pytest.mark.parametrize("prim,call", [
    ("reduce", lambda b, dev, dt: b.reduce(
        "sum", wt.empty((3,), dtype=dt, device=dev), _tensor(dev, dt), (1,))),
    ("arg_reduce", lambda b, dev, dt: b.arg_reduce(
        "argmax", wt.empty((3,), dtype=_d.int64, device=dev), _tensor(dev, dt), 1)),
    ("scan", lambda b, dev, dt: b.scan(
        "sum", wt.empty((3, 4), dtype=dt, device=dev), _tensor(dev, dt), 1)),
    ("sort", lambda b, dev, dt: b.sort(
        wt.empty((3, 4), dtype=dt, device=dev), _tensor(dev, dt), 1, False)),
    ("argsort", lambda b, dev, dt: b.argsort(
        wt.empty((3, 4), dtype=_d.int64, device=dev), _tensor(dev, dt), 1, False)),
    ("matmul", lambda b, dev, dt: b.matmul(
        wt.empty((3, 3), dtype=dt, device=dev), _tensor(dev, dt), _tensor(dev, dt, (4, 3)))),
    ("gather", lambda b, dev, dt: b.gather(
        wt.empty((3, 2), dtype=dt, device=dev), _tensor(dev, dt), 1,
        wt.asarray([[0, 1]] * 3, dtype=_d.int64, device=dev))),
    ("cast", lambda b, dev, dt: b.cast(
        wt.empty((3, 4), dtype=_d.float32, device=dev), _tensor(dev, dt))),
    ("where", lambda b, dev, dt: b.where(
        wt.empty((3, 4), dtype=dt, device=dev), _tensor(dev, _d.bool), _tensor(dev, dt),
        _tensor(dev, dt))),
    ("window_reduce", lambda b, dev, dt: b.window_reduce(
        "sum", wt.empty((2, 2), dtype=dt, device=dev), _tensor(dev, dt), (2, 2), (1, 2),
        (1, 1))),
], ids=lambda v: v if isinstance(v, str) else "")
def test_capabilities_match_dispatch_for_other_primitives(rec, prim, call):
    dev, backend, driver = rec
    caps = backend.capabilities()[prim]
    for dt in _d.all_dtypes:
        if prim in ("arg_reduce", "sort", "argsort") and dt.kind == "c":
            continue  # complex numbers have no order: every device refuses
        launches, routed = _calls(backend, driver)
        call(backend, dev, dt)
        now_launches, now_routed = _calls(backend, driver)
        if caps[dt.name] == "native":
            assert now_routed == routed and now_launches > launches, f"{prim}({dt.name}) routed"
        elif caps[dt.name] == "cpu":
            assert now_routed == routed + 1, f"{prim}({dt.name}) ran natively, report says cpu"


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_capabilities_match_dispatch_for_window_ops(rec, op):
    """Every op and dtype: a kernel launches exactly when the family says it has one (one
    launch: the window kernel), else the CPU computes it; complex max/min are refused."""
    dev, backend, driver = rec
    family = FAMILIES["window_reduce"]
    for dt in _d.all_dtypes:
        x = wt.permute_dims(_tensor(dev, dt, (4, 5)), (1, 0))  # a strided input
        out = wt.empty((2, 2), dtype=dt, device=dev)
        if dt.kind == "c" and op in ("max", "min"):
            with pytest.raises(TypeError, match="window_reduce: .* complex"):
                backend.window_reduce(op, out, x, (2, 3), (2, 1), (1, 1))
            continue
        launches, routed = _calls(backend, driver)
        backend.window_reduce(op, out, x, (2, 3), (2, 1), (1, 1))
        now_launches, now_routed = _calls(backend, driver)
        if family.supports("window_reduce", op, dt):
            assert (now_launches, now_routed) == (launches + 1, routed), f"{op}({dt.name})"
            assert "fn window_value(" in driver.launches[-1].wgsl
        else:
            assert now_routed == routed + 1, f"{op}({dt.name}) ran natively, claims no kernel"
    caps = backend.capabilities()["window_reduce"]
    assert caps["float32"] == caps["complex64"] == caps["int64"] == "native"
    assert caps["float64"] == caps["complex128"] == "cpu"


@pytest.mark.parametrize("select", ["max", "min", "max_last", "min_last"])
def test_capabilities_match_dispatch_for_window_scatter(rec, select):
    """Select and scatter: two launches (selection, then the gathering sum) where the family
    has kernels, the CPU otherwise; complex inputs are refused."""
    dev, backend, driver = rec
    family = FAMILIES["window_scatter"]
    caps = backend.capabilities()["window_scatter"]
    for dt in _d.all_dtypes:
        x = wt.permute_dims(_tensor(dev, dt, (4, 5)), (1, 0))
        src = wt.permute_dims(_tensor(dev, _d.float32, (2, 2)), (1, 0))
        out = wt.empty((5, 4), dtype=_d.float32, device=dev)
        if dt.kind == "c":
            assert caps[dt.name] == "n/a"
            with pytest.raises(TypeError, match="window_scatter: selecting among complex"):
                backend.window_scatter(select, out, x, src, (2, 3), (2, 1), (1, 1))
            continue
        launches, routed = _calls(backend, driver)
        backend.window_scatter(select, out, x, src, (2, 3), (2, 1), (1, 1))
        now_launches, now_routed = _calls(backend, driver)
        if family.supports("window_scatter", select, dt):
            assert caps[dt.name] == "native"
            assert (now_launches, now_routed) == (launches + 2, routed), f"{select}({dt.name})"
        else:
            assert caps[dt.name] == "cpu" and now_routed == routed + 1, f"{select}({dt.name})"


@pytest.mark.filterwarnings("ignore:webgpu. tensors larger than")
def test_window_inputs_beyond_the_binding_limit_go_to_the_cpu():
    driver = RecordingDriver({"max-storage-buffer-binding-size": 256})
    backend = WebGPUBackend(driver)
    dev = Device("webgpu-recording", lambda: backend)
    small, big = _tensor(dev, _d.float32, (4, 4)), _tensor(dev, _d.float32, (12, 12))
    backend.window_reduce("max", wt.empty((3, 3), dtype=_d.float32, device=dev), small,
                          (2, 2), (1, 1), (1, 1))
    assert not backend.routed and len(driver.launches) == 1
    backend.window_reduce("max", wt.empty((11, 11), dtype=_d.float32, device=dev), big, (2, 2),
                          (1, 1), (1, 1))
    assert backend.routed[("window_reduce", "float32")] == 1 and len(driver.launches) == 1


def test_capabilities_cover_every_primitive_and_dtype(rec):
    _, backend, _ = rec
    caps = backend.capabilities()
    assert set(caps) == set(FAMILIES)
    for prim, row in caps.items():
        assert set(row) == {dt.name for dt in _d.all_dtypes}, prim
        assert all(re.fullmatch(r"native|cpu|n/a|partial \(.+\)", v) for v in row.values()), row


def test_repeated_work_reuses_plans_and_pipelines(rec):
    dev, backend, driver = rec
    x, y = _tensor(dev, _d.float32), _tensor(dev, _d.float32)
    x + y
    pipelines, plans = len(driver.pipelines), len(backend.plans)
    for _ in range(5):
        x + y
    assert len(driver.pipelines) == pipelines and len(backend.plans) == plans
    wt.sum(x, axis=0)
    wt.sum(x, axis=0)
    wt.sort(x, axis=1)
    wt.sort(x, axis=1)
    kernels = [launch.wgsl for launch in driver.launches]
    assert len(driver.pipelines) == len(set(kernels)), "a kernel was compiled twice"


def test_in_place_work_never_binds_a_buffer_twice(rec):
    dev, backend, driver = rec
    x = _tensor(dev, _d.float32)
    x += x  # output aliases both inputs: the backend copies them first
    x[1:] = x[:-1]  # overlapping assignment
    wt.matmul(x, wt.permute_dims(x, (1, 0)))
    for launch in driver.launches:
        assert not set(launch.inputs) & set(launch.outputs)


def test_generated_kernels_declare_what_they_bind(rec):
    dev, backend, driver = rec
    x = _tensor(dev, _d.float16)
    wt.where(x > 0, x, -x)
    wt.cumulative_sum(x, axis=1)
    wt.argmax(x, axis=0)
    backend.window_reduce("max", wt.empty((2, 3), dtype=_d.float16, device=dev), x, (2, 2),
                          (1, 1), (1, 1))
    backend.window_reduce("sum", wt.empty((2, 2), dtype=_d.int64, device=dev),
                          _tensor(dev, _d.int64), (2, 3), (1, 1), (1, 1))
    backend.window_scatter("max", wt.empty((3, 4), dtype=_d.bfloat16, device=dev), x,
                           _tensor(dev, _d.bfloat16, (2, 3)), (2, 2), (1, 1), (1, 1))
    for launch in driver.launches:
        storage = re.findall(r"var<storage, (read|read_write)>", launch.wgsl)
        assert storage.count("read") == len(launch.inputs)
        assert storage.count("read_write") == len(launch.outputs)
        assert f"fn {launch.entry}(" in launch.wgsl


def test_radix_sort_and_ordered_scatter_obey_the_binding_rules(rec):
    """The radix sort (long rows, 32- and 64-bit keys, descending), scatter's sort by target
    and segmented fold, and the exact float sums (scalar and vector loads, int32 and int64
    indices): every launch binds what its kernel declares, nothing twice."""
    from webtensor.api import _reduce

    dev, backend, driver = rec
    for dt in (_d.float32, _d.int64, _d.float16):
        x = _tensor(dev, dt, (2, 5000))
        wt.argsort(x, axis=1, descending=True)
        wt.sort(x, axis=1)
    idx = wt.zeros((40000,), dtype=_d.int64, device=dev)  # one long run: segments and merge
    for dt in (_d.int16, _d.float16, _d.float32):  # ordered, exact sums (scalar, vec4)
        _reduce.scatter("add", _tensor(dev, dt, (7,)), 0, idx, _tensor(dev, dt, (40000,)))
    idx32 = wt.zeros((40000,), dtype=_d.int32, device=dev)
    backend.scatter_in_range("add", _tensor(dev, _d.float32, (7,)), 0, idx32,
                             _tensor(dev, _d.float32, (40000,)))
    heads = " ".join(launch.wgsl[:300] for launch in driver.launches)  # the shaders' comments
    for kernel in ("radix sort", "digit table", "ordered combine", "Exact float sums",
                   "contiguous 1-D operands"):
        assert kernel in heads, kernel
    assert sum(backend.routed.values()) == 0
    for launch in driver.launches:
        assert not set(launch.inputs) & set(launch.outputs)
        storage = re.findall(r"var<storage, (read|read_write)>", launch.wgsl)
        assert storage.count("read") == len(launch.inputs)
        assert storage.count("read_write") == len(launch.outputs)


def test_the_driver_refuses_what_webgpu_refuses():
    driver = RecordingDriver()
    wgsl = "@compute @workgroup_size(1) fn main() {}"
    with pytest.raises(BindingError, match="storage buffers"):
        driver.create_pipeline(wgsl, "main", 6, 3, 256)
    with pytest.raises(BindingError, match="entry point"):
        driver.create_pipeline(wgsl, "start", 1, 1, 256)
    pipeline = driver.create_pipeline(wgsl, "main", 1, 1, 256)
    a = driver.create_buffer(16)
    with pytest.raises(BindingError, match="bound as an output"):
        driver.dispatch(pipeline, [a, a], bytes(256), 1)
    with pytest.raises(BindingError, match="uniform bytes"):
        driver.dispatch(pipeline, [a, driver.create_buffer(16)], bytes(128), 1)
    counts = driver.create_buffer(16)
    with pytest.raises(BindingError, match="a buffer it writes"):
        driver.dispatch(pipeline, [a, counts], bytes(256), Indirect(counts))
    with pytest.raises(BindingError, match="do not fit"):
        driver.dispatch(pipeline, [a, driver.create_buffer(16)], bytes(256), Indirect(counts, 8))
    driver.dispatch(pipeline, [counts, a], bytes(256), Indirect(counts, 4))  # read-only: fine


def _rec_on(adapter_type: str):
    """``rec`` on an adapter of ``adapter_type`` ("CPU": a software one)."""
    driver = RecordingDriver()
    driver.adapter_info = {**driver.adapter_info, "adapter_type": adapter_type}
    backend = WebGPUBackend(driver)
    return Device(f"webgpu-recording-{adapter_type}", lambda: backend), backend, driver


@pytest.mark.parametrize("software", [True, False])
@pytest.mark.parametrize("form", ["eager", "jit"])
def test_rare_paths_run_as_a_deferred_pair_on_cpu_adapters(software, form):
    dev, backend, driver = _rec_on("CPU" if software else "DiscreteGPU")
    n = DEFER_MIN_GROUPS * 1024  # the smallest launch that takes the pair
    x = _tensor(dev, _d.float32, (n,))
    fn = (lambda a: wt.cos(a * 2.0) + 1.0) if form == "jit" else wt.sin
    run = wt.jit(fn) if form == "jit" else fn
    run(x)  # (jit: the first call traces)
    driver.launches.clear()
    run(x)
    if not software:
        assert len(driver.launches) == 1 and "defer_invocation" not in driver.launches[0].wgsl
        return
    reset, flagging, redo = driver.launches
    scratch = flagging.outputs[-1]
    # the redo buffer's header is reset, the flagging kernel lists into it, the redo kernel
    # runs the listed invocations with the counts the flagging kernel left there
    assert reset.outputs == (scratch,) and reset.workgroups == 1
    assert "const RARE_PATHS_DEFERRED: bool = true;" in flagging.wgsl
    assert "defer_invocation(first, stride)" in flagging.wgsl and flagging.workgroups == DEFER_MIN_GROUPS
    assert "const RARE_PATHS_DEFERRED: bool = false;" in redo.wgsl
    assert redo.workgroups == Indirect(scratch, 0)
    assert scratch in redo.inputs and redo.outputs == flagging.outputs[:-1]
    assert len(driver.memory[scratch]) >= 4 * (REDO_HEADER + n // 4)
    # smaller launches, and code without a rare path, stay one kernel
    driver.launches.clear()
    run(_tensor(dev, _d.float32, (n - 1024,)))
    wt.exp(x)
    assert len(driver.launches) == 2


def test_reaching_a_rare_path_is_decided_through_the_library():
    assert reaches("sin_f32(a)", RARE_PATHS) and reaches("tan_f32(a) + 1.0", RARE_PATHS)
    assert reaches("sin_c64(a)", RARE_PATHS)  # complex sin calls the float32 one
    assert not reaches("exp_f32(a) * sqrt_f32(b)", RARE_PATHS)
    assert not reaches("asin_f32(a)", RARE_PATHS)
