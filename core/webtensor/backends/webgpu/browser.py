"""The browser driver: WebGPU through ``navigator.gpu`` from Pyodide.

It implements ``driver.Driver`` like ``native.py`` does, with the same explicit limits and
features, but a Python -> JavaScript call costs microseconds, so nothing crosses per operation:
buffer creation, writes, dispatches and frees are recorded into a ``CommandBatch`` (integer ids,
one ``array('I')`` of command words, one byte stream of uniforms and one of small uploads) and a
whole batch is handed to the JS executor (``gpu_executor.mjs``, next to this file) in ONE call
per flush.  The JS side reads both byte streams as zero-copy views of the WebAssembly heap.

The executor ships in the wheel: ``import webtensor`` under Pyodide evaluates it through
Pyodide's JS interop (``register_executor``), so any page that installs the wheel has the GPU,
with no JavaScript of ours.  A page may still register its own executor as the JS module
``webtensor_gpu_executor``; it is used instead.

Reads are asynchronous in a browser.  ``read_buffer`` (``x.tolist()``, ``print(x)``, ``bool(x)``)
waits with ``pyodide.ffi.run_sync`` (JSPI) when ``can_run_sync()``, that is when Python was entered
through ``runPythonAsync``; otherwise it raises a RuntimeError naming the async twins
(``await x.tolist_async()``).  Opening the device is asynchronous too: JSPI opens it on first
use; where the first use cannot wait, ``await wt.init_async()`` (``initialize`` here) opens it.
"""

from __future__ import annotations

import importlib
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from .driver import (
    SPEC_LIMITS,
    UNIFORM_ALIGN,
    WANTED_FEATURES,
    Driver,
    Indirect,
    Pipeline,
    fold_grid,
)

EXECUTOR_MODULE = "webtensor_gpu_executor"  # a page's own executor, when it registers one
EXECUTOR_SOURCE = "gpu_executor.mjs"  # the executor shipped in this package

# Command words (gpu_executor.mjs decodes them; keep both in sync):
#   CREATE id size usage | DESTROY id | WRITE id offset upload_offset size
#   DISPATCH pipeline uniform_offset x y z n_buffers buffer_ids...
#     (x = INDIRECT_GRID: the counts are in buffer y at byte offset z, read when it runs)
OP_CREATE, OP_DESTROY, OP_WRITE, OP_DISPATCH = 1, 2, 3, 4
INDIRECT_GRID = 0xFFFFFFFF
USAGE_CODES = {"storage": 0, "uniform": 1}

# The uniform arena of one batch: max_batch dispatches at 256-byte aligned offsets.
MAX_BATCH = 256
ARENA_BYTES = MAX_BATCH * UNIFORM_ALIGN
# Writes this big skip the batch's upload stream: the executor reads them straight from the
# Python object's memory (one flush first keeps their order).
DIRECT_WRITE_BYTES = 256 << 10
# A batch whose staged uploads exceed this is flushed (bounds the copy held in Python).
MAX_STAGED_UPLOADS = 8 << 20

SYNC_READ_HELP = (
    "webgpu: reading a tensor waits for the GPU, and this Python code was entered synchronously "
    "(pyodide.runPython), where the browser cannot wait. Use the async twins: "
    "`await x.tolist_async()`, `await x.item_async()`, `await wt.sync_async()`; or run the code "
    "with pyodide.runPythonAsync, where x.tolist(), print(x) and bool(x) wait through JSPI"
)


NO_NAVIGATOR_GPU = ("navigator.gpu is undefined: this JavaScript runtime has no WebGPU (it needs "
                    "a browser that supports it: Chrome/Edge, Chromium on Linux with "
                    "--enable-unsafe-webgpu, a recent Firefox or Safari)")
# Why the device is not open yet where opening it has to be awaited (JSPI cannot wait here).
OPEN_ASYNC_HELP = (
    "the browser's WebGPU device opens asynchronously, and this code was entered synchronously "
    "(pyodide.runPython, or a browser without JSPI), where it cannot wait: run "
    "`await wt.init_async()` once first (from async code: pyodide.runPythonAsync, a notebook "
    "cell, or JavaScript's `await pyodide.runPython('wt.init_async()')`), then read tensors "
    "with the async twins (`await x.tolist_async()`)"
)


class KernelCompileError(RuntimeError):
    """A WGSL kernel the browser's WebGPU rejected (the message has its line numbers)."""


def js_limit_name(key: str) -> str:
    """The JavaScript spelling of a WebGPU limit: ``max-buffer-size`` -> ``maxBufferSize``."""
    head, *rest = key.split("-")
    return head + "".join(word.capitalize() for word in rest)


def _can_run_sync() -> bool:
    try:
        from pyodide.ffi import can_run_sync
    except ImportError:  # outside Pyodide, or a Pyodide without JSPI support
        return False
    return bool(can_run_sync())


def _run_sync(awaitable):
    from pyodide.ffi import run_sync

    return run_sync(awaitable)


def _translate(err: Exception) -> Exception:
    """A Python exception for a rejected executor promise (a JsException)."""
    message = str(err)
    for prefix in ("Error: ", "OperationError: ", "AbortError: "):
        message = message.removeprefix(prefix)
    if "failed to compile" in message:
        return KernelCompileError(f"webgpu: {message}")
    return RuntimeError(f"webgpu: {message}")


# -- recording --------------------------------------------------------------------------------

class CommandBatch:
    """Commands recorded since the last flush, in the executor's wire format."""

    __slots__ = ("cmds", "uniforms", "uploads", "dispatches")

    def __init__(self):
        self.cmds = array("I")
        self.uniforms = bytearray()
        self.uploads = bytearray()
        self.dispatches = 0

    def __bool__(self) -> bool:
        return bool(self.cmds)

    def create(self, buf: int, size: int, usage: str) -> None:
        self.cmds.extend((OP_CREATE, buf, size, USAGE_CODES[usage]))

    def destroy(self, buf: int) -> None:
        self.cmds.extend((OP_DESTROY, buf))

    def write(self, buf: int, offset: int, data) -> None:
        start = len(self.uploads)
        self.uploads += data
        self.cmds.extend((OP_WRITE, buf, offset, start, len(self.uploads) - start))

    def uniform_offset(self) -> int:
        """Where the next dispatch's uniforms go (256-byte aligned)."""
        return -(-len(self.uniforms) // UNIFORM_ALIGN) * UNIFORM_ALIGN

    def dispatch(self, pipeline: int, buffers: Sequence[int], uniforms: bytes,
                 grid: tuple[int, int, int]) -> None:
        offset = self.uniform_offset()
        data = self.uniforms
        data += bytes(offset - len(data))
        data += uniforms
        data += bytes(-len(data) % 4)  # the executor copies whole words into the arena
        self.cmds.extend((OP_DISPATCH, pipeline, offset, *grid, len(buffers), *buffers))
        self.dispatches += 1

    def take(self) -> tuple:
        """The batch as the executor's (cmds, uniforms, uploads) arguments (None when empty),
        leaving this batch empty."""
        out = tuple(x if x else None for x in (self.cmds, self.uniforms, self.uploads))
        self.__init__()
        return out

    @staticmethod
    def decode(cmds: Sequence[int]) -> list[tuple]:
        """The commands as (name, operands...) tuples (for tests and debugging)."""
        out, i = [], 0
        while i < len(cmds):
            op = cmds[i]
            if op == OP_DISPATCH:
                n = cmds[i + 6]
                out.append(("dispatch", cmds[i + 1], cmds[i + 2], tuple(cmds[i + 3:i + 6]),
                            tuple(cmds[i + 7:i + 7 + n])))
                i += 7 + n
            else:
                name, width = {OP_CREATE: ("create", 4), OP_DESTROY: ("destroy", 2),
                               OP_WRITE: ("write", 5)}[op]
                out.append((name, *cmds[i + 1:i + width]))
                i += width
        return out


# -- the executor ---------------------------------------------------------------------------------

_EXPORT = re.compile(
    r"^export\s+(?:async\s+)?(?:function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)",
    re.MULTILINE)


def _with_directives(wgsl: str) -> str:
    """``wgsl`` with the ``enable`` directive browsers require of a shader using subgroup
    operations (wgpu-native's compiler refuses the directive, so kernels are written without)."""
    return "enable subgroups;\n" + wgsl if "@builtin(subgroup_size)" in wgsl else wgsl


def module_as_script(source: str) -> str:
    """An import-free ES module's source as one JavaScript expression whose value is an object
    holding its exports (``eval`` cannot run a module; ``import()`` of a data: URL is async)."""
    names = _EXPORT.findall(source)
    unsupported = [line for line in re.findall(r"^[ \t]*(?:import|export)\b.*$", source,
                                               re.MULTILINE) if not _EXPORT.match(line)]
    if unsupported or not names:
        raise ValueError(f"module_as_script: only `export const/function/class NAME` at the "
                         f"start of a line are supported, found "
                         f"{unsupported[0] if unsupported else 'no export'!r}")
    body = re.sub(r"^export\s+", "", source, flags=re.MULTILINE)
    return f"(() => {{\n'use strict';\n{body}\nreturn {{ {', '.join(names)} }};\n}})()"


_executor = None  # the executor's JS namespace (openDevice, GpuExecutor, OP), once loaded
_executor_error: str | None = None


def register_executor():
    """Load the WebGPU executor once: a page's registered ``webtensor_gpu_executor`` module, else
    the copy shipped in this package, evaluated through Pyodide's JS interop.  ``import
    webtensor`` calls this under Pyodide; returns the executor, or None with the reason kept for
    ``open_device``."""
    global _executor, _executor_error
    if _executor is not None or _executor_error is not None:
        return _executor
    try:
        _executor = importlib.import_module(EXECUTOR_MODULE)
        return _executor
    except ImportError:
        pass
    try:
        from importlib.resources import files

        from pyodide.code import run_js

        source = files(__package__).joinpath(EXECUTOR_SOURCE).read_text(encoding="utf-8")
        _executor = run_js(module_as_script(source))
    except Exception as e:  # e.g. a page whose Content-Security-Policy forbids eval
        _executor_error = f"the WebGPU executor could not be loaded ({type(e).__name__}: {e})"
        if "EvalError" in str(e):
            _executor_error += (
                "; allow 'unsafe-eval' in the page's Content-Security-Policy, or register the "
                f"executor before importing webtensor: pyodide.registerJsModule("
                f"'{EXECUTOR_MODULE}', await import('<URL of webtensor/backends/webgpu/"
                f"{EXECUTOR_SOURCE}>'))")
    return _executor


# -- the device -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class BrowserDevice:
    """An opened ``GPUDevice`` and its executor."""

    executor: object
    limits: dict[str, int]
    features: frozenset[str]
    info: dict[str, str]
    fallback: bool  # a software adapter (SwiftShader): isFallbackAdapter

    @property
    def description(self) -> str:
        info = self.info
        name = (info["device"] or info["description"]
                or " ".join(filter(None, (info["vendor"], info["architecture"]))) or "adapter")
        kind = "fallback adapter" if self.fallback else "GPU"
        return f"{name} ({kind}, browser WebGPU)"


_opened: BrowserDevice | None = None
_failure: str | None = None  # why no device could be opened, once tried


async def initialize() -> BrowserDevice | None:
    """Open the browser's WebGPU device (once); None, with the reason kept for ``probe()``, when
    there is none.  ``wt.init_async()`` awaits this; without it the first use opens the device
    through JSPI when possible."""
    try:
        return await _initialize()
    finally:
        _clear_probe()  # the probe may hold "not open yet": it must see the outcome


async def _initialize() -> BrowserDevice | None:
    global _opened, _failure
    if _opened is not None or _failure is not None:
        return _opened
    if not _has_navigator_gpu():
        _failure = NO_NAVIGATOR_GPU
        return None
    executor_module = register_executor()
    if executor_module is None:
        _failure = _executor_error
        return None
    import js
    from pyodide.ffi import JsException, to_js

    limits = {js_limit_name(k): v for k, v in SPEC_LIMITS.items()}
    try:
        found = await executor_module.openDevice(
            to_js(limits, dict_converter=js.Object.fromEntries), to_js(list(WANTED_FEATURES)),
            ARENA_BYTES)
    except JsException as e:
        _failure = f"opening the WebGPU device failed ({e})"
        return None
    error = getattr(found, "error", None)  # a JsProxy raises AttributeError for a missing key
    if error:
        _failure = str(error)
        return None
    names = {js_limit_name(k): k for k in SPEC_LIMITS}
    info = found.info.to_py()
    fallback = bool(info.pop("fallback"))
    info.update(adapter_type="CPU" if fallback else "GPU", backend_type="WebGPU (browser)")
    _opened = BrowserDevice(
        executor=found.executor,
        limits={names[k]: int(v) for k, v in found.limits.to_py().items()},
        features=frozenset(found.features.to_py()), info=info, fallback=fallback)
    return _opened


def decline(reason: str) -> None:
    """Never open the device in this process (``loadWebtensor({webgpu: false})``): the probe
    reports ``reason`` and webtensor computes on the cpu device."""
    global _failure
    if _opened is None and _failure is None:
        _failure = reason
        _clear_probe()


def _clear_probe() -> None:
    from .probe import probe

    probe.cache_clear()


def _has_navigator_gpu() -> bool:
    try:
        import js
    except ImportError:  # not in Pyodide at all
        return False
    navigator = getattr(js.globalThis, "navigator", None)
    return navigator is not None and getattr(navigator, "gpu", None) is not None


def _host_threads() -> int:
    """navigator.hardwareConcurrency (the page's or worker's), 1 where there is none."""
    try:
        import js
    except ImportError:
        return 1
    navigator = getattr(js.globalThis, "navigator", None)
    threads = getattr(navigator, "hardwareConcurrency", None)
    return threads if isinstance(threads, int) and threads > 0 else 1


def open_device() -> tuple[BrowserDevice | None, str]:
    """The opened device and "" or None and why (opens it through JSPI when not yet tried)."""
    if _opened is None and _failure is None:
        if not _has_navigator_gpu():
            return None, NO_NAVIGATOR_GPU
        if not _can_run_sync():
            return None, OPEN_ASYNC_HELP
        _run_sync(_initialize())
    return _opened, _failure or ""


def pending() -> bool:
    """Whether the device may still open: navigator.gpu exists but opening it was never tried,
    because no code could wait for it yet (``await wt.init_async()`` would)."""
    return _opened is None and _failure is None and _has_navigator_gpu()


class BrowserDriver(Driver):
    name = "browser-webgpu"

    def __init__(self, device: BrowserDevice | None = None):
        if device is None:
            device, reason = open_device()
            if device is None:
                raise RuntimeError(f"the browser's WebGPU device is not available: {reason}")
        self._ex = device.executor
        self.limits = dict(device.limits)
        self.features = device.features
        self.adapter_info = dict(device.info)
        self.threads = _host_threads()
        self.max_batch = MAX_BATCH
        self._batch = CommandBatch()
        self._staged = 0
        self._next_buffer = 1
        self._next_pipeline = 1
        self._pipelines: dict[tuple, Pipeline] = {}
        self._stats = {"dispatches": 0, "flushes": 0, "pipelines": 0, "buffers_created": 0,
                       "buffers_destroyed": 0, "writes": 0, "reads": 0}

    # -- buffers ---------------------------------------------------------------------------------
    def create_buffer(self, size: int, usage: str = "storage") -> int:
        if usage not in USAGE_CODES:
            raise ValueError(f"create_buffer: usage {usage!r} is not one of {sorted(USAGE_CODES)}")
        buf = self._next_buffer
        self._next_buffer += 1
        self._batch.create(buf, max(4, (size + 3) & ~3), usage)
        self._stats["buffers_created"] += 1
        return buf

    def destroy_buffer(self, buf: int) -> None:
        self._batch.destroy(buf)
        self._stats["buffers_destroyed"] += 1

    def write_buffer(self, buf: int, offset: int, data) -> None:
        self._stats["writes"] += 1
        size = memoryview(data).nbytes
        if size >= DIRECT_WRITE_BYTES:
            self.flush()
            self._ex.write(buf, offset, data)
            return
        self._batch.write(buf, offset, data)
        self._staged += size
        if self._staged > MAX_STAGED_UPLOADS:
            self.flush()

    def _start_read(self, buf: int, offset: int, size: int):
        self._stats["reads"] += 1
        self._staged = 0
        return self._ex.read(*self._batch.take(), buf, offset, size)

    def _finish_read(self, view) -> bytes:
        try:
            return view.to_bytes()  # the one copy: mapped GPU memory -> Python bytes
        finally:
            self._ex.endRead(view)

    def read_buffer(self, buf: int, offset: int, size: int) -> bytes:
        if size == 0:
            self.flush()
            return b""
        if not _can_run_sync():
            raise RuntimeError(SYNC_READ_HELP)
        from pyodide.ffi import JsException

        try:
            view = _run_sync(self._start_read(buf, offset, size))
        except JsException as e:
            raise _translate(e) from None
        return self._finish_read(view)

    async def read_buffer_async(self, buf: int, offset: int, size: int) -> bytes:
        if size == 0:
            self.flush()
            return b""
        from pyodide.ffi import JsException

        try:
            view = await self._start_read(buf, offset, size)
        except JsException as e:
            raise _translate(e) from None
        return self._finish_read(view)

    def wait_idle(self) -> None:
        """``wait_idle_async`` for synchronous code (needs JSPI, like every blocking read)."""
        if not _can_run_sync():
            raise RuntimeError(SYNC_READ_HELP)
        _run_sync(self.wait_idle_async())

    async def wait_idle_async(self) -> None:
        """Submit everything recorded and wait until the GPU has run it; raises pending kernel
        and validation errors."""
        from pyodide.ffi import JsException

        self._staged = 0
        try:
            await self._ex.sync(*self._batch.take())
        except JsException as e:
            raise _translate(e) from None

    # -- kernels ---------------------------------------------------------------------------------
    def create_pipeline(self, wgsl: str, entry: str, n_in: int, n_out: int,
                        uniform_size: int) -> Pipeline:
        key = (wgsl, entry, n_in, n_out, uniform_size)
        found = self._pipelines.get(key)
        if found is None:
            pid = self._next_pipeline
            self._next_pipeline += 1
            self._ex.createPipeline(pid, _with_directives(wgsl), entry, n_in, n_out,
                                    uniform_size)
            # With JSPI a bad kernel fails here; otherwise at the next read (which awaits every
            # pending check, since the browser would otherwise skip the batch silently).
            if _can_run_sync():
                problem = _run_sync(self._ex.check(pid))
                if problem:
                    self._ex.forgetPipeline(pid)
                    raise KernelCompileError(f"webgpu: {problem}")
            found = self._pipelines[key] = Pipeline(pid, n_in, n_out, uniform_size)
            self._stats["pipelines"] += 1
        return found

    def dispatch(self, pipeline: Pipeline, buffers: Sequence, uniforms: bytes,
                 workgroups: int | Indirect) -> None:
        if len(buffers) != pipeline.n_in + pipeline.n_out:
            raise ValueError(f"dispatch: {len(buffers)} buffers for a kernel with "
                             f"{pipeline.n_in} inputs and {pipeline.n_out} outputs")
        size = len(uniforms)
        if size != pipeline.uniform_size:
            raise ValueError(f"dispatch: {size} uniform bytes, the kernel declares "
                             f"{pipeline.uniform_size}")
        if self._batch.uniform_offset() + size > ARENA_BYTES:
            self.flush()
        if type(workgroups) is Indirect:
            grid = (INDIRECT_GRID, workgroups.buffer, workgroups.offset)
        else:
            grid = fold_grid(workgroups, self.limits["max-compute-workgroups-per-dimension"])
        self._batch.dispatch(pipeline.handle, buffers, uniforms, grid)
        self._stats["dispatches"] += 1
        if self._batch.dispatches >= self.max_batch:
            self.flush()

    def flush(self) -> None:
        if not self._batch:
            return
        self._staged = 0
        self._ex.run(*self._batch.take())
        self._stats["flushes"] += 1

    def stats(self) -> dict[str, int]:
        counters = self._ex.stats().to_py()
        return {**self._stats, "submits": int(counters["submits"]),
                "bind_groups": int(counters["bind_groups"])}
