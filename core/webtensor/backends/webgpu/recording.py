"""A driver that compiles nothing and runs nothing: it records every pipeline and launch.

With it the WebGPU backend runs anywhere, without an adapter: kernel generation, plan and
pipeline caching, CPU routing and the binding rules can be tested on every machine.  Buffers are
host memory (writes and reads round-trip; kernels do not change them), and each launch is
checked against the rules every real driver relies on: the binding signature matches the
kernel's, at most 8 storage buffers, no buffer bound both as an input and an output, uniforms
of the kernel's size, a grid that folds into the device's limits (or indirect counts in a live
buffer the dispatch does not write).
"""

from __future__ import annotations

from dataclasses import dataclass

from .driver import SPEC_LIMITS, Driver, Indirect, Pipeline, fold_grid


class BindingError(AssertionError):
    """A launch that a real WebGPU device would reject (or run wrongly)."""


@dataclass(frozen=True)
class Launch:
    wgsl: str
    entry: str
    inputs: tuple  # buffer handles, in binding order
    outputs: tuple
    uniforms: bytes
    workgroups: int | Indirect


class RecordingDriver(Driver):
    name = "recording"

    def __init__(self, limits: dict | None = None):
        self.limits = {**SPEC_LIMITS, **(limits or {})}
        self.features = frozenset()
        self.adapter_info = {"vendor": "none", "device": "recording driver",
                             "adapter_type": "none", "backend": "none"}
        self.memory: dict[int, bytearray] = {}
        self.pipelines: list[Pipeline] = []
        self.launches: list[Launch] = []
        self.flushes = 0
        self._next_handle = 0

    # -- buffers ---------------------------------------------------------------------------------
    def create_buffer(self, size: int, usage: str = "storage"):
        if size % 4:
            raise BindingError(f"buffer sizes are whole words, got {size} bytes")
        self._next_handle += 1
        self.memory[self._next_handle] = bytearray(size)
        return self._next_handle

    def destroy_buffer(self, buf) -> None:
        del self.memory[buf]

    def write_buffer(self, buf, offset: int, data) -> None:
        data = bytes(data)
        if offset % 4 or len(data) % 4:
            raise BindingError(f"writes are whole words: offset {offset}, {len(data)} bytes")
        self.memory[buf][offset:offset + len(data)] = data

    def read_buffer(self, buf, offset: int, size: int) -> bytes:
        if offset % 4 or size % 4:
            raise BindingError(f"reads are whole words: offset {offset}, {size} bytes")
        return bytes(self.memory[buf][offset:offset + size])

    # -- kernels ---------------------------------------------------------------------------------
    def create_pipeline(self, wgsl: str, entry: str, n_in: int, n_out: int,
                        uniform_size: int) -> Pipeline:
        storage = self.limits["max-storage-buffers-per-shader-stage"]
        if n_in + n_out > storage:
            raise BindingError(f"{n_in} inputs + {n_out} outputs exceed the {storage} storage "
                               f"buffers a shader stage may bind")
        if f"fn {entry}(" not in wgsl:
            raise BindingError(f"the kernel has no entry point {entry!r}")
        pipeline = Pipeline((wgsl, entry), n_in, n_out, uniform_size)
        self.pipelines.append(pipeline)
        return pipeline

    def dispatch(self, pipeline: Pipeline, buffers, uniforms: bytes, workgroups: int) -> None:
        buffers = tuple(buffers)
        if len(buffers) != pipeline.n_in + pipeline.n_out:
            raise BindingError(f"{len(buffers)} buffers for a kernel of {pipeline.n_in} inputs "
                               f"and {pipeline.n_out} outputs")
        inputs, outputs = buffers[:pipeline.n_in], buffers[pipeline.n_in:]
        if set(inputs) & set(outputs) or len(set(outputs)) != len(outputs):
            raise BindingError("a buffer is bound as an output and again in the same launch "
                               "(WebGPU forbids it)")
        if len(uniforms) != pipeline.uniform_size:
            raise BindingError(f"{len(uniforms)} uniform bytes for a kernel of "
                               f"{pipeline.uniform_size}")
        if type(workgroups) is Indirect:
            if workgroups.buffer not in self.memory:
                raise BindingError("an indirect dispatch's counts are in no live buffer")
            if workgroups.buffer in outputs:
                raise BindingError("an indirect dispatch's counts are in a buffer it writes")
            if workgroups.offset % 4 or workgroups.offset + 12 > len(
                    self.memory[workgroups.buffer]):
                raise BindingError(f"indirect counts at byte {workgroups.offset} do not fit "
                                   f"their buffer")
        else:
            if workgroups < 1:
                raise BindingError(f"a launch of {workgroups} workgroups")
            fold_grid(workgroups, self.limits["max-compute-workgroups-per-dimension"])
        wgsl, entry = pipeline.handle
        self.launches.append(Launch(wgsl, entry, inputs, outputs, bytes(uniforms), workgroups))

    def flush(self) -> None:
        self.flushes += 1

    def stats(self) -> dict[str, int]:
        return {"dispatches": len(self.launches), "pipelines": len(self.pipelines),
                "buffers": len(self.memory)}
