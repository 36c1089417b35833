"""The GPU driver interface: the few WebGPU calls the WebGPU backend makes.

``WebGPUBackend`` (``backend.py``) turns primitives into kernels; a ``Driver`` owns the device and
runs them.  Three drivers implement this interface: ``native.py`` (wgpu-py: Vulkan, Metal,
D3D12), ``browser.py`` (``navigator.gpu`` through Pyodide) and ``recording.py`` (runs nothing,
records every launch: tests without an adapter).  The real ones request the same explicit
limits (``SPEC_LIMITS``) so code that runs on one runs on the other.

Kernel convention shared by every driver and every WGSL template:

* binding 0 is a uniform buffer (the kernel's parameters, bound with a dynamic offset into one
  per-batch arena);
* bindings 1..n_in are ``var<storage, read>`` inputs, then n_out ``var<storage, read_write>``
  outputs;
* the same buffer is never bound as an input and an output of one dispatch (the WebGPU spec
  forbids it; wgpu-native does not check), and a kernel uses at most 8 storage bindings.

Dispatches are recorded into one open compute pass and submitted in batches: on a read, on an
explicit ``flush``, or every ``max_batch`` dispatches.  Writes that would overtake recorded work on
the same buffer flush first, so program order is kept.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import NamedTuple

# The WebGPU specification's default limits; drivers request exactly these (never the adapter's
# maxima, which wgpu-py would grant natively and a browser would not).
# https://www.w3.org/TR/webgpu/#limit-default
SPEC_LIMITS: dict[str, int] = {
    "max-buffer-size": 256 << 20,
    "max-storage-buffer-binding-size": 128 << 20,
    "max-storage-buffers-per-shader-stage": 8,
    "max-uniform-buffer-binding-size": 64 << 10,
    "max-compute-workgroups-per-dimension": 65535,
    "max-compute-invocations-per-workgroup": 256,
    "max-compute-workgroup-size-x": 256,
    "max-compute-workgroup-storage-size": 16 << 10,
    "max-bind-groups": 4,
    "min-uniform-buffer-offset-alignment": 256,
    "min-storage-buffer-offset-alignment": 256,
}

# Optional features used when the adapter has them, by their WebGPU names (``enable f16;``
# needs shader-f16; "subgroups": reductions combine a row's lanes by subgroup shuffles, see
# reduce.py, where WGSL also has the subgroup_id built-in).
WANTED_FEATURES = ("shader-f16", "subgroups")

UNIFORM_ALIGN = SPEC_LIMITS["min-uniform-buffer-offset-alignment"]


def fold_grid(groups: int, max_dim: int = 65535) -> tuple[int, int, int]:
    """Workgroup counts (x, y, z) covering at least ``groups`` workgroups, each <= ``max_dim``.

    Kernels recover the linear workgroup index as ``x + (y + z * ny) * nx`` and return early
    past the end, so the fold may overshoot.
    """
    if groups <= max_dim:
        return max(groups, 1), 1, 1
    x = max_dim
    rest = -(-groups // x)
    if rest <= max_dim:
        return x, rest, 1
    y = max_dim
    z = -(-rest // y)
    if z > max_dim:
        raise MemoryError(f"a dispatch of {groups} workgroups exceeds the 65535^3 grid")
    return x, y, z


class Indirect(NamedTuple):
    """Workgroup counts that the GPU reads when the dispatch runs: three u32 (x, y, z) at byte
    ``offset`` of ``buffer`` (a storage buffer an earlier kernel wrote; it may also be bound,
    read-only, to the dispatch itself)."""

    buffer: object
    offset: int = 0


class Pipeline:
    """A compiled kernel plus its binding signature (drivers subclass or wrap it)."""

    __slots__ = ("handle", "n_in", "n_out", "uniform_size", "__weakref__")

    def __init__(self, handle, n_in: int, n_out: int, uniform_size: int):
        self.handle = handle
        self.n_in = n_in
        self.n_out = n_out
        self.uniform_size = uniform_size


class Driver(ABC):
    """One GPU device.  Buffers are opaque handles with storage + copy usage."""

    name: str = "abstract"
    #: the limits actually requested from the device (``SPEC_LIMITS`` unless raised on purpose)
    limits: dict[str, int]
    #: optional features enabled on the device
    features: frozenset[str]
    #: adapter description: vendor, device, adapter_type ("CPU", "DiscreteGPU", ...), backend
    adapter_info: dict[str, str]
    #: how many dispatches an open batch holds before it is submitted
    max_batch: int = 256
    #: the host's CPU threads: a CPU adapter (SwiftShader, lavapipe) runs workgroups on them
    threads: int = 1

    # -- buffers ---------------------------------------------------------------------------------
    @abstractmethod
    def create_buffer(self, size: int, usage: str = "storage"):
        """A new zero-filled buffer of ``size`` bytes (a multiple of 4).  ``usage`` is
        ``"storage"`` (kernel binding, indirect dispatch counts, copy source and destination)
        or ``"uniform"``."""

    @abstractmethod
    def destroy_buffer(self, buf) -> None:
        """Release ``buf``; safe while recorded work still uses it (freed after the submit)."""

    @abstractmethod
    def write_buffer(self, buf, offset: int, data) -> None:
        """Copy ``data`` (bytes-like, length a multiple of 4) into ``buf`` at byte ``offset``
        (a multiple of 4), ordered after every dispatch recorded so far."""

    def busy(self, buf) -> bool:
        """True when the open batch uses ``buf``: a write into it then has to be recorded in
        the batch, which costs more than a write into a buffer it does not use."""
        return False

    @abstractmethod
    def read_buffer(self, buf, offset: int, size: int) -> bytes:
        """Submit pending work, wait, and return ``size`` bytes of ``buf`` from ``offset``
        (both multiples of 4)."""

    async def read_buffer_async(self, buf, offset: int, size: int) -> bytes:
        """The awaitable twin of ``read_buffer`` (the browser cannot block)."""
        return self.read_buffer(buf, offset, size)

    # -- kernels ---------------------------------------------------------------------------------
    @abstractmethod
    def create_pipeline(self, wgsl: str, entry: str, n_in: int, n_out: int,
                        uniform_size: int) -> Pipeline:
        """Compile ``wgsl`` (cached by its text) for the binding convention of this module."""

    @abstractmethod
    def dispatch(self, pipeline: Pipeline, buffers: Sequence, uniforms: bytes,
                 workgroups: int | Indirect) -> None:
        """Record one dispatch of ``workgroups`` workgroups (folded into 2-D/3-D as needed), or
        of the counts an ``Indirect`` names.

        ``buffers`` are the inputs then the outputs; ``uniforms`` has ``pipeline.uniform_size``
        bytes.
        """

    @abstractmethod
    def flush(self) -> None:
        """Submit everything recorded so far (does not wait)."""

    def wait_idle(self) -> None:
        """Submit everything recorded so far and wait until the GPU has run it."""
        self.flush()

    async def wait_idle_async(self) -> None:
        """The awaitable twin of ``wait_idle``."""
        self.wait_idle()

    # -- introspection ---------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        """Counters: dispatches, submits, pipelines, live buffers..."""
        return {}
