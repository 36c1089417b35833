"""GPU memory: buffers in size buckets, a pool of freed ones, and the memory statistics.

A tensor's buffer goes back to the pool when its ``GPUBuffer`` is collected.  Freed buffers
wait in the pool keyed by allocation size (at most ``pool_bytes``), so loops that allocate the
same shapes reuse buffers (and the driver's bind groups).  A full pool gives its least recently
freed buffers back to the driver, so stale sizes left by earlier work never stop the buffers of
the current loop from being recycled.  Reuse is safe while recorded work
still reads the old contents: dispatches run in order, and writes flush first.
"""

from __future__ import annotations

from collections import deque


class GPUBuffer:
    """A tensor's device buffer; its GPU memory goes back to the pool when this object is
    collected.  ``nbytes`` is the tensor data, ``size`` the allocation (whole words).

    A constant (``WebGPUBackend.constant``: a scalar operand) also keeps its bytes in ``host``,
    padded to whole words, and gets a driver buffer (``handle``) only when a kernel binds it;
    any write drops ``host``."""

    __slots__ = ("handle", "nbytes", "size", "owner", "host", "__weakref__")

    def __init__(self, handle, nbytes: int, size: int, owner=None, host=None):
        self.handle = handle
        self.nbytes = nbytes
        self.size = size
        self.owner = owner  # the allocator whose pool takes the handle back
        self.host = host

    def __del__(self):
        # Cheaper per tensor than weakref.finalize (no registry entry, no atexit bookkeeping).
        # Runs whenever a tensor dies, possibly inside a driver call: only queue the handle
        # (the next allocation or launch pools or destroys it).
        # It may run on any thread, even while another one holds the device's lock: it takes
        # no lock and only appends (atomic); ``collect`` does the accounting under the lock.
        owner = self.owner
        if owner is not None:
            owner.garbage.append((self.handle, self.size))

    def __repr__(self) -> str:
        return f"<GPUBuffer {self.nbytes} bytes>"


def is_constant(t) -> bool:
    """The tensor ``t`` is a view of a constant whose bytes are on the host (one element of its
    dtype: a bitcast view of another size reads the buffer instead)."""
    data = t._data
    return data.host is not None and data.nbytes == t.dtype.itemsize


def bucket(nbytes: int) -> int:
    """Allocation size for ``nbytes``: 256-byte steps up to 4 KiB, then eighths of a power of
    two up to 16 MiB (so freed buffers fit later requests of similar size), then whole vec4s
    (big buffers must stay within the binding limit; kernels that bind ``array<vec4<u32>>``
    read any element through its vec4)."""
    if nbytes <= 4096:
        return max(256, -(-nbytes // 256) * 256)
    if nbytes > 16 << 20:
        return (nbytes + 15) & ~15
    step = 1 << (nbytes.bit_length() - 4)
    return -(-nbytes // step) * step


class Allocator:
    """Buffers of one driver: allocation in buckets, the free pool, live/peak accounting."""

    POOL_BYTES = 64 << 20  # CPU adapters (their buffers are host memory)
    # GPUs: room for several buffers of the largest binding.  A buffer larger than the pool is
    # destroyed when freed, and creating one costs a clear of its memory: on an H200, x + y of
    # 32M float32 (128 MiB) took 4.7 ms with a 64 MiB pool, against 0.07 ms for 16M.
    GPU_POOL_BINDINGS = 4

    def __init__(self, driver, pool_bytes: int = POOL_BYTES):
        self.driver = driver
        self.pool_bytes = pool_bytes
        self.max_buffer = driver.limits["max-buffer-size"]
        self.garbage: list = []  # (handle, size) of collected GPUBuffers, appended lock-free
        # Freed handles per allocation size, oldest first; ``_freed`` holds every pooled handle
        # in the order it was freed (dicts keep insertion order), for least-recent eviction.
        self._pool: dict[int, deque] = {}
        self._freed: dict = {}
        self._pool_bytes = 0
        self._live = 0
        self._live_bytes = 0
        self._peak_bytes = 0
        # Every driver buffer not yet destroyed.  A handle must never be reachable only from its
        # GPUBuffer: when a reference cycle is collected, the collector finalizes every object
        # of the cycle (the handle too) before GPUBuffer.__del__ could hand it to the pool.
        self._owned: set = set()

    def allocate(self, nbytes: int, upload: bool = False) -> GPUBuffer:
        """A buffer for ``nbytes``: a pooled one of the same bucket if any, else a new one.
        ``upload``: the host writes it next, so it takes the least recently freed pooled
        buffer, and only one the open batch does not use (a write into that one would have to
        be recorded in the batch); outputs of kernels take the most recently freed, whose bind
        groups are likeliest to be cached."""
        if nbytes > self.max_buffer:
            raise MemoryError(
                f"webgpu: a tensor of {nbytes} bytes exceeds the device's maxBufferSize limit of "
                f"{self.max_buffer} bytes ({self.max_buffer >> 20} MiB); split it or use the "
                f"cpu device")
        if self.garbage:
            self.collect()
        size = bucket(nbytes) if nbytes > 256 else 256
        free = self._pool.get(size)
        if free and not (upload and self.driver.busy(free[0])):
            handle = free.popleft() if upload else free.pop()
            del self._freed[handle]
            self._pool_bytes -= size
        else:
            handle = self.driver.create_buffer(size)
            self._owned.add(handle)
        self._live += 1
        live = self._live_bytes = self._live_bytes + size
        if live > self._peak_bytes:
            self._peak_bytes = live
        return GPUBuffer(handle, nbytes, size, self)

    def collect(self) -> None:
        """Pool the buffers of collected tensors, evicting the least recently freed ones past
        ``pool_bytes`` (a buffer larger than the whole pool is destroyed at once)."""
        while self.garbage:
            handle, size = self.garbage.pop()
            self._live -= 1
            self._live_bytes -= size
            if size > self.pool_bytes:
                self._destroy(handle)
                continue
            while self._pool_bytes + size > self.pool_bytes:
                oldest, oldest_size = next(iter(self._freed.items()))
                del self._freed[oldest]
                # Within one size, handles are freed in order: the oldest is leftmost.
                self._pool[oldest_size].popleft()
                self._pool_bytes -= oldest_size
                self._destroy(oldest)
            free = self._pool.get(size)
            if free is None:
                free = self._pool[size] = deque()
            free.append(handle)
            self._freed[handle] = size
            self._pool_bytes += size

    def _destroy(self, handle) -> None:
        self._owned.discard(handle)
        self.driver.destroy_buffer(handle)

    def empty_pool(self) -> None:
        """Give every pooled (free) buffer back to the driver."""
        self.collect()
        for handle in self._freed:
            self._destroy(handle)
        self._pool.clear()
        self._freed.clear()
        self._pool_bytes = 0

    def stats(self) -> dict:
        self.collect()
        return {"live_buffers": self._live, "live_bytes": self._live_bytes,
                "pooled_buffers": sum(map(len, self._pool.values())),
                "pooled_bytes": self._pool_bytes, "peak_bytes": self._peak_bytes}
