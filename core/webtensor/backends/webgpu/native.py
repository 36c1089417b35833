"""The native driver: WebGPU through wgpu-py (wgpu-native on Vulkan, Metal or D3D12)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from contextlib import contextmanager

from .driver import (
    SPEC_LIMITS,
    UNIFORM_ALIGN,
    WANTED_FEATURES,
    Driver,
    Indirect,
    Pipeline,
    fold_grid,
)

_BG_CACHE_MAX = 4096
# wgpu-native's names of the WebGPU features it calls otherwise (its subgroups, which also
# give WGSL the subgroup_id built-in, need no ``enable`` directive)
_NATIVE_FEATURE = {"subgroups": "subgroup"}
_DIRECT_WRITE_MAX = 4096  # bytes: writes up to this skip wgpu-py's wrapper (see write_buffer)
# wgpu-native's C functions (cffi) and wgpu-py's wrappers of them, bound when the first driver
# starts
_lib = _ffi = _api = None


def _bind_native():
    """wgpu-py's cffi handle on wgpu-native: the per-dispatch pass commands call it directly,
    skipping wgpu-py's per-call wrapper objects and error-scope bookkeeping."""
    global _lib, _ffi, _api
    if _lib is None:
        from wgpu.backends.wgpu_native import _api as wgpu_native_api
        from wgpu.backends.wgpu_native._ffi import ffi, lib

        _lib, _ffi = lib, ffi
        _api = wgpu_native_api


class _NativePipeline(Pipeline):
    """A pipeline plus what dispatch needs of it without attribute chains: the raw handle, the
    bind group layout and its id (the bind group cache key)."""

    __slots__ = ("raw", "bgl", "bgl_id")

    def __init__(self, handle, bgl, n_in: int, n_out: int, uniform_size: int):
        super().__init__((handle, bgl), n_in, n_out, uniform_size)
        self.raw = handle._internal
        self.bgl = bgl
        # uniform_size is part of the layout key, so the layout's id covers it
        self.bgl_id = id(bgl)


def request_adapter():
    """The preferred wgpu adapter, or None when wgpu finds none."""
    import wgpu

    with _no_wayland_session_noise():
        return wgpu.gpu.request_adapter_sync(power_preference="high-performance")


@contextmanager
def _no_wayland_session_noise():
    """Opening a Vulkan driver on Linux asks libwayland for a desktop session, and without
    XDG_RUNTIME_DIR (servers, containers, CI) libwayland prints "error: XDG_RUNTIME_DIR is
    invalid or not set in the environment." - not an error for a compute device, which never
    draws.  While the driver starts, an empty private directory stands in for it (no session
    socket in it: the answer is the same "no Wayland here", quietly); the environment is put
    back at once.  With XDG_RUNTIME_DIR set, nothing changes."""
    if not sys.platform.startswith("linux") or os.path.isdir(os.environ.get("XDG_RUNTIME_DIR",
                                                                             "")):
        yield
        return
    previous = os.environ.get("XDG_RUNTIME_DIR")
    with tempfile.TemporaryDirectory(prefix="webtensor-runtime-") as empty:
        os.environ["XDG_RUNTIME_DIR"] = empty
        try:
            yield
        finally:
            if previous is None:
                os.environ.pop("XDG_RUNTIME_DIR", None)
            else:
                os.environ["XDG_RUNTIME_DIR"] = previous


def adapter_description(adapter) -> dict[str, str]:
    info = adapter.info
    keys = ("vendor", "device", "description", "adapter_type", "backend_type")
    return {k: str(info.get(k, "")) for k in keys}


class NativeDriver(Driver):
    name = "wgpu-native"

    def __init__(self, adapter=None, max_batch: int = 256):
        import wgpu

        _bind_native()
        self._wgpu = wgpu
        if adapter is None:
            adapter = request_adapter()
        if adapter is None:
            raise RuntimeError("wgpu found no WebGPU adapter")
        self.adapter = adapter
        self.adapter_info = adapter_description(adapter)
        self.threads = os.cpu_count() or 1
        available = set(adapter.features)
        self.features = frozenset(f for f in WANTED_FEATURES
                                  if _NATIVE_FEATURE.get(f, f) in available)
        adapter_limits = adapter.limits
        limits = {}
        for key, value in SPEC_LIMITS.items():
            have = adapter_limits.get(key)
            if have is None:
                continue
            # "max" limits may not exceed the adapter's, "min" (alignment) ones not go below.
            limits[key] = max(value, have) if key.startswith("min-") else min(value, have)
        with _no_wayland_session_noise():
            self.device = adapter.request_device_sync(
                required_features=sorted(_NATIVE_FEATURE.get(f, f) for f in self.features),
                required_limits=limits)
        self.limits = {k: int(self.device.limits.get(k, v)) for k, v in limits.items()}
        self.queue = self.device.queue
        self._queue_raw = self.queue._internal
        self._sync_buffer = None
        self.max_batch = max_batch
        usage = wgpu.BufferUsage
        self._storage_usage = usage.STORAGE | usage.INDIRECT | usage.COPY_SRC | usage.COPY_DST
        self._uniform_usage = usage.UNIFORM | usage.COPY_DST
        self._arena_size = max_batch * UNIFORM_ALIGN
        self._arena = self.device.create_buffer(size=self._arena_size,
                                                usage=self._uniform_usage)
        self._arena_raw = self._arena._internal
        self._device_raw = self.device._internal
        self._arena_data = bytearray(self._arena_size)
        self._arena_used = 0  # bytes of the arena the open batch uses (whole UNIFORM_ALIGNs)
        self._c_offset = _ffi.new("uint32_t[1]")  # wgpu-native copies it at record time
        self._pipelines: dict[tuple, Pipeline] = {}
        self._layouts: dict[tuple, tuple] = {}
        self._bind_groups: dict[tuple, object] = {}
        self._bg_by_buffer: dict[int, set] = {}
        # The open batch: encoder, pass, buffers it references, buffers to free after submit.
        self._encoder = None
        self._pass = None
        self._pass_id = None
        self._current = None  # the pipeline last set in the open pass
        self._serial = 0  # numbers the batches (bind group entries remember their last one)
        self._batch_refs: set[int] = set()
        self._batch_count = 0  # dispatches recorded in the open batch
        self._batch_writes = 0  # writes recorded in it (``_record_write``)
        self._doomed: list = []
        self._staging: list = []  # staging buffers of ``_record_write``, freed after the submit
        self._stats = {"dispatches": 0, "submits": 0, "pipelines": 0, "bind_groups": 0,
                       "buffers_created": 0, "buffers_destroyed": 0, "writes": 0, "reads": 0}

    # -- buffers ---------------------------------------------------------------------------------
    def create_buffer(self, size: int, usage: str = "storage"):
        size = max(4, (size + 3) & ~3)
        flags = self._storage_usage if usage == "storage" else self._uniform_usage
        self._stats["buffers_created"] += 1
        return self.device.create_buffer(size=size, usage=flags)

    def destroy_buffer(self, buf) -> None:
        key = id(buf)
        for bg_key in self._bg_by_buffer.pop(key, ()):
            self._forget_bind_group(bg_key)
        if key in self._batch_refs:
            self._doomed.append(buf)
        else:
            buf.destroy()
            self._stats["buffers_destroyed"] += 1

    def write_buffer(self, buf, offset: int, data) -> None:
        self._stats["writes"] += 1
        if id(buf) in self._batch_refs:
            # A queue write would run before the open batch's dispatches that use ``buf``.
            self._record_write(buf, offset, data)
        elif data.__class__ is bytes and 0 < len(data) <= _DIRECT_WRITE_MAX \
                and not (len(data) | offset) & 3 and offset + len(data) <= buf.size:
            # small writes (a new scalar operand) go straight to wgpu-native: wgpu-py's
            # write_buffer costs more than the copy.  Only writes that pass its checks (in
            # bounds, whole words): a bad one still gets wgpu-py's ValueError
            _lib.wgpuQueueWriteBuffer(self._queue_raw, buf._internal, offset,
                                      _ffi.from_buffer(data), len(data))
        else:
            self.queue.write_buffer(buf, offset, data)

    def busy(self, buf) -> bool:
        return id(buf) in self._batch_refs

    def _record_write(self, buf, offset: int, data) -> None:
        """Write ``buf`` in order with the open batch without submitting it (a submit costs
        several dispatches): a copy from a staging buffer, recorded between two compute passes.
        Counts towards ``max_batch``, so a loop of such writes still submits regularly."""
        staging = self.device.create_buffer_with_data(data=data,
                                                      usage=self._wgpu.BufferUsage.COPY_SRC)
        self._pass.end()
        self._encoder.copy_buffer_to_buffer(staging, 0, buf, offset, staging.size)
        self._pass = self._encoder.begin_compute_pass()
        self._pass_id = self._pass._internal
        self._current = None
        self._staging.append(staging)  # freed after the submit
        self._batch_writes += 1
        if self._batch_count + self._batch_writes >= self.max_batch:
            self.flush()

    def read_buffer(self, buf, offset: int, size: int) -> bytes:
        self.flush()
        self._stats["reads"] += 1
        if size == 0:
            return b""
        return bytes(self.queue.read_buffer(buf, offset, size))

    def wait_idle(self) -> None:
        """Submit everything recorded and wait until the GPU has run it (a 4-byte read queued
        after it: the queue runs in order; wgpu-py's on_submitted_work_done cannot be used)."""
        self.flush()
        if self._sync_buffer is None:
            self._sync_buffer = self.create_buffer(4)
        self.queue.read_buffer(self._sync_buffer, 0, 4)

    async def read_buffer_async(self, buf, offset: int, size: int) -> bytes:
        self.flush()
        self._stats["reads"] += 1
        if size == 0:
            return b""
        usage = self._wgpu.BufferUsage
        staging = self.device.create_buffer(size=size, usage=usage.MAP_READ | usage.COPY_DST)
        encoder = self.device.create_command_encoder()
        encoder.copy_buffer_to_buffer(buf, offset, staging, 0, size)
        self.queue.submit([encoder.finish()])
        await staging.map_async(self._wgpu.MapMode.READ)
        data = bytes(staging.read_mapped())
        staging.unmap()
        staging.destroy()
        return data

    # -- kernels ---------------------------------------------------------------------------------
    def _layout(self, n_in: int, n_out: int, uniform_size: int):
        key = (n_in, n_out, uniform_size)
        found = self._layouts.get(key)
        if found is None:
            compute = self._wgpu.ShaderStage.COMPUTE
            entries = [{"binding": 0, "visibility": compute,
                        "buffer": {"type": "uniform", "has_dynamic_offset": True,
                                   "min_binding_size": uniform_size}}]
            for i in range(n_in + n_out):
                kind = "read-only-storage" if i < n_in else "storage"
                entries.append({"binding": i + 1, "visibility": compute,
                                "buffer": {"type": kind}})
            bgl = self.device.create_bind_group_layout(entries=entries)
            layout = self.device.create_pipeline_layout(bind_group_layouts=[bgl])
            found = self._layouts[key] = (bgl, layout)
        return found

    def create_pipeline(self, wgsl: str, entry: str, n_in: int, n_out: int,
                        uniform_size: int) -> Pipeline:
        key = (wgsl, entry, n_in, n_out, uniform_size)
        found = self._pipelines.get(key)
        if found is None:
            bgl, layout = self._layout(n_in, n_out, uniform_size)
            module = self.device.create_shader_module(code=wgsl)
            handle = self.device.create_compute_pipeline(
                layout=layout, compute={"module": module, "entry_point": entry})
            found = self._pipelines[key] = _NativePipeline(handle, bgl, n_in, n_out,
                                                           uniform_size)
            self._stats["pipelines"] += 1
        return found

    def _bind_group(self, pipeline: _NativePipeline, buffers: Sequence, key: tuple) -> list:
        """A bind group of ``buffers`` (created on a cache miss).  Bind groups depend on the
        layout and the buffers only: the parameters come in through the dynamic offset.

        The cache entry is [group, raw handle, buffer ids, the batch it was last used in]."""
        if len(buffers) != pipeline.n_in + pipeline.n_out:
            raise ValueError(f"dispatch: {len(buffers)} buffers for a kernel with "
                             f"{pipeline.n_in} inputs and {pipeline.n_out} outputs")
        # The descriptor is built in cffi directly: wgpu-py's create_bind_group checks and
        # converts dict entries in Python, several times the cost of the C call (a miss happens
        # for every new combination of buffers: a loop over fresh scalars, a first run).
        # The call itself goes through wgpu-py's error-capturing wrapper, and the result is
        # wgpu-py's bind group object, which releases the handle when collected.
        n = len(buffers) + 1
        c_entries = _ffi.new("WGPUBindGroupEntry[]", n)
        first = c_entries[0]
        first.binding, first.buffer, first.size = 0, self._arena_raw, pipeline.uniform_size
        for i, buf in enumerate(buffers, 1):
            entry = c_entries[i]
            entry.binding, entry.buffer, entry.size = i, buf._internal, buf.size
        desc = _ffi.new("WGPUBindGroupDescriptor *")  # zeroed: no chain, empty label
        desc.layout, desc.entryCount, desc.entries = pipeline.bgl._internal, n, c_entries
        group = _api.GPUBindGroup("", _api.libf.wgpuDeviceCreateBindGroup(self._device_raw, desc),
                                  self.device)
        if len(self._bind_groups) >= _BG_CACHE_MAX:
            self._forget_bind_group(next(iter(self._bind_groups)))
        found = self._bind_groups[key] = [group, group._internal, key[1:], None]
        for buf in buffers:
            self._bg_by_buffer.setdefault(id(buf), set()).add(key)
        self._stats["bind_groups"] += 1
        return found

    def _forget_bind_group(self, key: tuple) -> None:
        found = self._bind_groups.pop(key, None)
        if found is not None and self._pass is not None:
            self._doomed.append(found[0])  # keep it alive until the batch is submitted

    def dispatch(self, pipeline: Pipeline, buffers: Sequence, uniforms: bytes,
                 workgroups: int) -> None:
        # The per-op hot path: one cache key, no other per-call objects, and the three pass
        # commands go straight to wgpu-native (encoding errors surface at end/finish, which
        # still go through wgpu-py's error capture).
        size = len(uniforms)
        if size != pipeline.uniform_size:
            raise ValueError(f"dispatch: {size} uniform bytes, the kernel declares "
                             f"{pipeline.uniform_size}")
        key = (pipeline.bgl_id, *map(id, buffers))
        found = self._bind_groups.get(key)
        if found is None:
            found = self._bind_group(pipeline, buffers, key)
        offset = self._arena_used
        if offset + size > self._arena_size:
            self.flush()
            offset = 0
        if self._pass is None:
            self._begin()
        self._arena_data[offset:offset + size] = uniforms
        self._arena_used = offset + -(-size // UNIFORM_ALIGN) * UNIFORM_ALIGN
        cpass = self._pass_id
        if pipeline is not self._current:
            _lib.wgpuComputePassEncoderSetPipeline(cpass, pipeline.raw)
            self._current = pipeline
        self._c_offset[0] = offset
        _lib.wgpuComputePassEncoderSetBindGroup(cpass, 0, found[1], 1, self._c_offset)
        max_dim = self.limits["max-compute-workgroups-per-dimension"]
        if type(workgroups) is Indirect:
            _lib.wgpuComputePassEncoderDispatchWorkgroupsIndirect(
                cpass, workgroups.buffer._internal, workgroups.offset)
        elif 0 < workgroups <= max_dim:
            _lib.wgpuComputePassEncoderDispatchWorkgroups(cpass, workgroups, 1, 1)
        else:
            _lib.wgpuComputePassEncoderDispatchWorkgroups(cpass, *fold_grid(workgroups, max_dim))
        if found[3] != self._serial:  # first use in this batch: its buffers are now busy
            found[3] = self._serial
            self._batch_refs.update(found[2])
        self._batch_count += 1
        if self._batch_count >= self.max_batch:
            self.flush()

    def _begin(self) -> None:
        self._encoder = self.device.create_command_encoder()
        self._pass = self._encoder.begin_compute_pass()
        self._pass_id = self._pass._internal
        self._current = None
        self._serial += 1

    def flush(self) -> None:
        if self._pass is None:
            return
        self._pass.end()
        # NOTE: queue writes run before the command buffers submitted after them, and this
        # batch is the only user of the arena until the next flush: one write per batch.
        self.queue.write_buffer(self._arena, 0, memoryview(self._arena_data)[:self._arena_used])
        self.queue.submit([self._encoder.finish()])
        self._stats["submits"] += 1
        self._stats["dispatches"] += self._batch_count
        self._pass = self._encoder = self._pass_id = self._current = None
        self._arena_used = 0
        self._batch_refs.clear()
        self._batch_count = self._batch_writes = 0
        doomed, self._doomed = self._doomed, []
        for buf in doomed:
            if isinstance(buf, self._wgpu.GPUBuffer):
                buf.destroy()
                self._stats["buffers_destroyed"] += 1
        staging, self._staging = self._staging, []
        for buf in staging:  # not counted: they never were tensors' buffers
            buf.destroy()

    def stats(self) -> dict[str, int]:
        stats = dict(self._stats)
        stats["dispatches"] += self._batch_count  # counted per batch, off the hot path
        stats["bind_groups_cached"] = len(self._bind_groups)
        return stats
