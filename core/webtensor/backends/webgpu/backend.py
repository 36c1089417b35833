"""The WebGPU device's backend: tensors in GPU storage buffers, primitives as WGSL kernels.

A buffer holds exactly NumPy's bytes for the dtype (padded to whole 4-byte words), so uploads,
downloads and ``to_bytes`` are memcpy.  A primitive runs natively when a kernel exists for its
op and dtypes (``exprs.py`` tables, ``kernels.py`` storages): the views are collapsed, the
parameters packed and one dispatch is recorded with the driver.  Everything else is routed to
the CPU device's backend transparently (download the inputs, compute, upload the result), so
every op and dtype is correct; ``capabilities()`` and ``device_info()`` say which run where.

Subnormals: WGSL lets an adapter flush float32 subnormal operands and results to zero, and
some do (SwiftShader, Chromium's fallback adapter; lavapipe does not).  The kernels decide on
bits wherever that is cheap, so these equal the CPU device bit for bit on every adapter:
copies, ``where``, casts between float32/float16/bfloat16/integers/bool, comparisons,
``maximum``/``minimum``, ``abs``/``negative``/``sign``/``copysign``/``nextafter``, the
predicates, and ``sqrt``/``ceil``/``floor``/``floor_divide`` with subnormal operands (rescaled
by integer operations); the transcendental functions keep their ULP bound for subnormal
arguments (the log family normalises them on bits, sin(x) = x and friends return early) and
pow/atan2/hypot decide their special cases on bits.  What stays the adapter's is float
arithmetic whose operand or exact result is subnormal, for float32 and bfloat16 (which shares
float32's exponent range): ``add``/``subtract``/``multiply`` (tiny + 0 is 0),
``divide``/``reciprocal`` (a subnormal divisor is +-0, a subnormal quotient is 0), and
subnormal results of ``remainder``/``exp``/``pow``/``atan2``/``hypot``/``logaddexp``, which are
+-0 there.  float16 subnormals are normal float32 values and are always exact.
"""

from __future__ import annotations

import threading
from collections import Counter
from functools import wraps

from ... import dtypes as _d
from ... import ops as _ops
from ..._warnings import warn_once
from ...tensor import Tensor
from ..base import Backend, float64_is_internal
from . import exprs, kernels
from .kernels import RAW, Params

# dtypes whose elementwise ops and casts run as WGSL kernels -> their storage (kernels.STORAGE):
# bool and 8-bit types packed 4 per word, 16-bit ones 2 per word (a thread owns whole output
# words), int64/uint64 as vec2<u32>, complex64 as vec2<f32>.  float64/complex128 are routed to
# the CPU (browsers have no f64 in WGSL); the first such routing warns (_warn_float64).
NATIVE = {_d.float32: "f32", _d.int32: "i32", _d.uint32: "u32", _d.bool: "bool",
          _d.int8: "i8", _d.int16: "i16", _d.uint8: "u8", _d.uint16: "u16",
          _d.float16: "f16", _d.bfloat16: "bf16", _d.int64: "i64", _d.uint64: "u64",
          _d.complex64: "c64"}
_WIDE_FLOATS = (_d.float64, _d.complex128)


def _warn_float64(dtypes) -> None:
    """Warn once per session when float64/complex128 arithmetic is routed to the CPU."""
    if float64_is_internal() or not any(dt in _WIDE_FLOATS for dt in dtypes):
        return
    warn_once("webgpu-float64", "webgpu: float64 work runs on the CPU (WGSL has no 64-bit floats in browsers), so it is "
         "much slower than float32; use float32 (or complex64) tensors for GPU speed")

_ROUTED_ONLY: tuple[str, ...] = ()
_MAP_PLANS_MAX = 4096  # cached elementwise dispatch plans (dropped all at once when full)


class GPUBuffer:
    """A tensor's device buffer; its GPU memory goes back to the pool when this object is
    collected.  ``nbytes`` is the tensor data, ``size`` the allocation (whole words)."""

    __slots__ = ("handle", "nbytes", "size", "owner", "__weakref__")

    def __init__(self, handle, nbytes: int, size: int, owner=None):
        self.handle = handle
        self.nbytes = nbytes
        self.size = size
        self.owner = owner  # the backend whose pool takes the handle back

    def __del__(self):
        # Cheaper per tensor than weakref.finalize (no registry entry, no atexit bookkeeping).
        # Runs whenever a tensor dies, possibly inside a driver call: only queue the handle
        # (the next allocation or dispatch pools or destroys it).
        # It may run on any thread, even while another one holds the device's lock: it takes
        # no lock and only appends (atomic); ``_collect`` does the accounting under the lock.
        owner = self.owner
        if owner is not None:
            owner._garbage.append((self.handle, self.size))

    def __repr__(self) -> str:
        return f"<GPUBuffer {self.nbytes} bytes>"


def _bucket(nbytes: int) -> int:
    """Allocation size for ``nbytes``: 256-byte steps up to 4 KiB, then eighths of a power of
    two up to 16 MiB (so freed buffers fit later requests of similar size), then exact words
    (big buffers must stay within the binding limit)."""
    if nbytes <= 4096:
        return max(256, -(-nbytes // 256) * 256)
    if nbytes > 16 << 20:
        return (nbytes + 3) & ~3
    step = 1 << (nbytes.bit_length() - 4)
    return -(-nbytes // step) * step


def _cpu():
    from ...device import cpu

    return cpu


def _fresh(t: Tensor) -> bool:
    """``t`` is a whole C-contiguous buffer from offset 0 (what ``empty`` returns)."""
    return t.offset == 0 and t.is_contiguous


class WebGPUBackend(Backend):
    name = "webgpu"

    def __init__(self, driver=None):
        if driver is None:
            from .native import NativeDriver
            from .probe import probe

            driver = NativeDriver(probe().adapter)
        self.driver = driver
        # One thread at a time records into the open pass, the pool and the uniform arena:
        # every public method holds this (re-entrant: methods call each other).
        self.lock = threading.RLock()
        self._max_buffer = driver.limits["max-buffer-size"]
        self._max_binding = driver.limits["max-storage-buffer-binding-size"]
        self._live = 0
        self._live_bytes = 0
        self._peak_bytes = 0
        self._garbage: list = []
        self._pool: dict[int, list] = {}
        self._pool_bytes = 0
        self.routed: Counter = Counter()
        self._pipelines: dict = {}  # Kernel -> driver pipeline
        self._map_plans: dict = {}  # _map's key -> (pipeline, uniforms, workgroups)
        # Every driver buffer not yet destroyed.  A handle must never be reachable only from its
        # GPUBuffer: when a reference cycle is collected, the collector finalizes every object
        # of the cycle (the handle too) before GPUBuffer.__del__ could hand it to the pool.
        self._owned: set = set()

    # -- memory ----------------------------------------------------------------------------------
    # Freed buffers wait in a pool keyed by allocation size (at most POOL_BYTES), so loops that
    # allocate the same shapes reuse buffers and bind groups.  Reuse is safe while recorded work
    # still reads the old contents: dispatches run in order, and writes flush first.
    POOL_BYTES = 64 << 20

    def _new_buffer(self, nbytes: int) -> GPUBuffer:
        if nbytes > self._max_buffer:
            raise MemoryError(
                f"webgpu: a tensor of {nbytes} bytes exceeds the device's maxBufferSize limit of "
                f"{self._max_buffer} bytes ({self._max_buffer >> 20} MiB); split it or use the "
                f"cpu device")
        if self._garbage:
            self._collect()
        size = _bucket(nbytes) if nbytes > 256 else 256
        free = self._pool.get(size)
        if free:
            handle = free.pop()
            self._pool_bytes -= size
        else:
            handle = self.driver.create_buffer(size)
            self._owned.add(handle)
        self._live += 1
        live = self._live_bytes = self._live_bytes + size
        if live > self._peak_bytes:
            self._peak_bytes = live
        return GPUBuffer(handle, nbytes, size, self)

    def _collect(self) -> None:
        while self._garbage:
            handle, size = self._garbage.pop()
            self._live -= 1
            self._live_bytes -= size
            if self._pool_bytes + size <= self.POOL_BYTES:
                self._pool.setdefault(size, []).append(handle)
                self._pool_bytes += size
            else:
                self._owned.discard(handle)
                self.driver.destroy_buffer(handle)

    def empty_pool(self) -> None:
        """Give every pooled (free) buffer back to the driver."""
        self._collect()
        for handles in self._pool.values():
            for handle in handles:
                self._owned.discard(handle)
                self.driver.destroy_buffer(handle)
        self._pool.clear()
        self._pool_bytes = 0

    def memory_stats(self) -> dict:
        """Live GPU buffers and bytes (tensors not yet garbage-collected), the free pool, the
        peak, and the driver's counters."""
        self._collect()
        return {"live_buffers": self._live, "live_bytes": self._live_bytes,
                "pooled_buffers": sum(map(len, self._pool.values())),
                "pooled_bytes": self._pool_bytes, "peak_bytes": self._peak_bytes,
                **self.driver.stats()}

    def _read(self, buf: GPUBuffer, start: int, nbytes: int) -> bytes:
        if nbytes == 0:
            return b""
        lo = start & ~3
        hi = (start + nbytes + 3) & ~3
        raw = self.driver.read_buffer(buf.handle, lo, hi - lo)
        return raw[start - lo:start - lo + nbytes]

    def _write(self, buf: GPUBuffer, start: int, data: bytes) -> None:
        end = start + len(data)
        if not data:
            return
        lo = start & ~3
        hi = (end + 3) & ~3
        head = self._read(buf, lo, start - lo) if start != lo else b""
        tail = b""
        if hi != end:
            tail = bytes(hi - end) if end >= buf.nbytes else self._read(buf, end, hi - end)
        self._collect()
        self.driver.write_buffer(buf.handle, lo, head + bytes(data) + tail)

    def alloc(self, dtype, size):
        return self._new_buffer(size * dtype.itemsize)

    def buffer_size(self, data, dtype) -> int:
        return data.nbytes // dtype.itemsize

    def from_bytes(self, dtype, data):
        data = bytes(data)
        buf = self._new_buffer(len(data))
        self._write(buf, 0, data)
        return buf

    def to_bytes(self, x) -> bytes:
        n = x.size * x.dtype.itemsize
        if n == 0:
            return b""
        if x.is_contiguous:
            return self._read(x._data, x.offset * x.dtype.itemsize, n)
        if not self._gathers_on_gpu(x):
            cpu = _cpu()
            return cpu.backend.to_bytes(self._whole_to_cpu(x))
        out = self._empty_like(x)
        self.copy(out, x)
        return self._read(out._data, 0, n)

    def _gathers_on_gpu(self, x) -> bool:
        """A view's elements can be made contiguous by a kernel: source and result each fit one
        storage binding (else reading the whole source buffer and gathering on the host is the
        only way, and the copy kernel would route right back here)."""
        return x._data.size <= self._max_binding and \
            _bucket(x.size * x.dtype.itemsize) <= self._max_binding

    async def to_bytes_async(self, x) -> bytes:
        """``to_bytes`` without blocking (the browser's only way to read)."""
        n = x.size * x.dtype.itemsize
        if n == 0:
            return b""
        if not x.is_contiguous:
            if not self._gathers_on_gpu(x):
                raw = await self.driver.read_buffer_async(x._data.handle, 0, x._data.size)
                cpu = _cpu()
                data = cpu.backend.from_bytes(x.dtype, raw[:x._data.nbytes])
                return cpu.backend.to_bytes(Tensor._wrap(data, x.shape, x.dtype, cpu,
                                                         strides=x.strides, offset=x.offset))
            x = self._materialize(x)
        start = x.offset * x.dtype.itemsize
        lo, hi = start & ~3, (start + n + 3) & ~3
        raw = await self.driver.read_buffer_async(x._data.handle, lo, hi - lo)
        return raw[start - lo:start - lo + n]

    def from_values(self, dtype, values):
        cpu = _cpu()
        values = values if isinstance(values, list) else list(values)
        t = Tensor._wrap(cpu.backend.from_values(dtype, values), (len(values),), dtype, cpu)
        return self.from_bytes(dtype, cpu.backend.to_bytes(t))

    def to_values(self, x) -> list:
        return _cpu().backend.to_values(self._to_cpu(x))

    def _empty_like(self, x) -> Tensor:
        return Tensor._wrap(self.alloc(x.dtype, x.size), x.shape, x.dtype, x.device)

    # -- dispatch --------------------------------------------------------------------------------
    def _fits(self, *tensors) -> bool:
        """Every buffer fits one storage binding; else the work is routed to the CPU (correct,
        slow), which warns once: bindings are limited to maxStorageBufferBindingSize."""
        if all(t._data.size <= self._max_binding for t in tensors):
            return True
        warn_once("webgpu-binding",
                  f"webgpu: tensors larger than the {self._max_binding >> 20} MiB storage binding "
                  f"limit (maxStorageBufferBindingSize) are computed on the CPU; split them into "
                  f"smaller tensors to keep the work on the GPU")
        return False

    def _pipeline(self, kernel):
        """The driver's pipeline for ``kernel`` (kernels are cached objects: a dict hit)."""
        pipeline = self._pipelines.get(kernel)
        if pipeline is None:
            pipeline = self.driver.create_pipeline(kernel.wgsl, "main", kernel.n_in,
                                                   kernel.n_out, kernel.uniform_size)
            self._pipelines[kernel] = pipeline
        return pipeline

    def _dispatch(self, kernel, buffers, params: Params, threads: int) -> None:
        if self._garbage:
            self._collect()
        self.driver.dispatch(self._pipeline(kernel), [b.handle for b in buffers],
                             params.pack(kernel), -(-threads // kernels.WORKGROUP))

    def _unaliased(self, out, inputs) -> list:
        """Inputs sharing ``out``'s buffer are copied first (WebGPU forbids binding a buffer as
        both input and output of one dispatch)."""
        return [self._materialize(t) if t._data is out._data else t for t in inputs]

    def _materialize(self, x) -> Tensor:
        out = self._empty_like(x)
        self.copy(out, x)
        return out

    def _map(self, expr: str, out, inputs, storages, out_storage: str) -> None:
        """``out = expr(inputs)`` elementwise; ``out`` fresh, inputs any views of its shape."""
        out_data = out._data
        handles = []
        key = [expr, out_storage, out.shape, *storages]
        for t in inputs:
            if t._data is out_data:
                return self._map(expr, out, self._unaliased(out, inputs), storages,
                                 out_storage)
            handles.append(t._data.handle)
            key += (t.strides, t.offset)
        handles.append(out_data.handle)
        # Everything below depends only on the key: the kernel, its pipeline, the packed
        # parameters and the workgroup count are built once per (op, dtypes, layout).
        key = tuple(key)
        found = self._map_plans.get(key)
        if found is None:
            found = self._map_plan(expr, out, inputs, storages, out_storage)
            if len(self._map_plans) >= _MAP_PLANS_MAX:
                self._map_plans.clear()
            self._map_plans[key] = found
        if self._garbage:
            self._collect()
        self.driver.dispatch(found[0], handles, found[1], found[2])

    def _map_plan(self, expr: str, out, inputs, storages, out_storage: str) -> tuple:
        """(pipeline, packed parameters, workgroups) of ``_map``'s dispatch."""
        n = out.size
        shape, strides = kernels.collapse(out.shape, [t.strides for t in inputs])
        modes = tuple((s, kernels.index_mode(shape, st))
                      for s, st in zip(storages, strides))
        threads = -(-n // kernels.STORAGE[out_storage].per_word)
        slots = 4 + len(shape) + len(inputs) * (len(shape) + 1)
        kernel = kernels.map_kernel(expr, out_storage, modes, slots)
        params = Params(n, threads, shape, [(t.offset, st) for t, st in zip(inputs, strides)])
        return self._pipeline(kernel), params.pack(kernel), kernels.map_groups(threads)

    def _map_index(self, expr: str, out, out_storage: str, params: Params) -> None:
        """``out[i] = expr(i)`` for a fresh ``out`` (``expr`` reads its parameters itself)."""
        threads = params.words[2]
        kernel = kernels.map_kernel(expr, out_storage, (), len(params.words), index_arg=True)
        items = kernels.WORKGROUP * kernels.map_groups(threads)  # map.wgsl loops over ITEMS
        self._dispatch(kernel, [out._data], params, items)

    def _native_ok(self, out, *inputs) -> bool:
        return _fresh(out) and self._fits(out, *inputs)

    # -- routing to the CPU ----------------------------------------------------------------------
    def _to_cpu(self, x) -> Tensor:
        """The view ``x`` as a contiguous tensor on the CPU device."""
        cpu = _cpu()
        return Tensor._wrap(cpu.backend.from_bytes(x.dtype, self.to_bytes(x)), x.shape, x.dtype,
                            cpu)

    def _whole_to_cpu(self, x) -> Tensor:
        """``x``'s whole buffer on the CPU device, viewed with ``x``'s geometry."""
        cpu = _cpu()
        raw = self._read(x._data, 0, x._data.nbytes)
        data = cpu.backend.from_bytes(x.dtype, raw)
        return Tensor._wrap(data, x.shape, x.dtype, cpu, strides=x.strides, offset=x.offset)

    def _route(self, prim: str, args: tuple, out_at: int, in_place: bool = False) -> None:
        """Run primitive ``prim`` on the CPU backend; ``args[out_at]`` is the GPU output
        (``in_place``: its current contents matter, as for scatter and assign)."""
        cpu = _cpu()
        out = args[out_at]
        dtype = next((a.dtype for i, a in enumerate(args)
                      if isinstance(a, Tensor) and i != out_at), out.dtype)
        self.routed[(prim, dtype.name)] += 1
        _warn_float64([a.dtype for a in args if isinstance(a, Tensor)])
        if out.size == 0 and not in_place:
            return
        converted = []
        for i, a in enumerate(args):
            if i == out_at:
                if in_place:
                    a = self._whole_to_cpu(a)
                else:
                    a = Tensor._wrap(cpu.backend.alloc(a.dtype, a.size), a.shape, a.dtype, cpu)
                cpu_out = a
            elif isinstance(a, Tensor):
                a = self._to_cpu(a)
            converted.append(a)
        getattr(cpu.backend, prim)(*converted)
        if in_place:
            whole = Tensor._wrap(cpu_out._data, (out._data.nbytes // out.dtype.itemsize,),
                                 out.dtype, cpu)
            self._write(out._data, 0, cpu.backend.to_bytes(whole))
        elif _fresh(out):
            self._write(out._data, 0, cpu.backend.to_bytes(cpu_out))
        else:
            tmp = Tensor._wrap(self.from_bytes(out.dtype, cpu.backend.to_bytes(cpu_out)),
                               out.shape, out.dtype, out.device)
            self.assign(out, tmp)

    # -- data movement ---------------------------------------------------------------------------
    def copy(self, out, x):
        if out.size == 0:
            return
        if not _fresh(out):
            self.assign(out, x)
            return
        eb = x.dtype.itemsize
        if not self._fits(out, x):
            self._route("copy", (out, x), 0)
        elif eb <= 4:
            self._map("a", out, [x], [RAW[eb]], RAW[eb])
        else:
            x = self._unaliased(out, [x])[0]
            words = eb // 4
            shape, (st,) = kernels.collapse(x.shape, [x.strides])
            slots = 4 + 2 * len(shape) + 1
            kernel = kernels.copy_wide_kernel(words, kernels.is_contiguous_1d(shape, st), slots)
            threads = out.size * words
            self._dispatch(kernel, [x._data, out._data],
                           Params(out.size, threads, shape, [(x.offset, st)]), threads)

    def assign(self, target, x):
        n = target.size
        if n == 0:
            return
        if not self._fits(target, x):
            self._route("assign", (target, x), 0, in_place=True)
            return
        x = self._unaliased(target, [x])[0]
        eb = target.dtype.itemsize
        shape, (sx, st) = kernels.collapse(target.shape, [x.strides, target.strides])
        contiguous_src = kernels.is_contiguous_1d(shape, sx)
        if eb >= 4:
            words = eb // 4
            slots = 4 + len(shape) + 2 * (len(shape) + 1)
            kernel = kernels.assign_kernel(words, contiguous_src, slots)
            params = Params(n, n * words, shape, [(x.offset, sx), (target.offset, st)])
            self._dispatch(kernel, [x._data, target._data], params, n * words)
            return
        inverse = _inverse_view(shape, st, target.offset)
        if inverse is None:
            self._route("assign", (target, x), 0, in_place=True)
            return
        first, span, dims = inverse
        per = 4 // eb
        first_word = first // per
        threads = (first + span - 1) // per - first_word + 1
        params = Params(n, threads, shape, [(x.offset, sx)])
        params.add(first, span, first_word, len(dims))
        for d in dims:
            params.add(*d)
        kernel = kernels.assign_packed_kernel(RAW[eb], contiguous_src, len(params.words))
        self._dispatch(kernel, [x._data, target._data], params, threads)

    def fill(self, out, value):
        if out.size == 0:
            return
        if not self._native_ok(out):
            self._route("fill", (out, value), 0)
            return
        cpu = _cpu()
        one = Tensor._wrap(cpu.backend.from_values(out.dtype, [value]), (1,), out.dtype, cpu)
        pattern = cpu.backend.to_bytes(one)
        if len(pattern) < 4:
            pattern = pattern * (4 // len(pattern))
        words = [int.from_bytes(pattern[i:i + 4], "little") for i in range(0, len(pattern), 4)]
        threads = -(-out.size * out.dtype.itemsize // 4)
        params = Params(out.size, threads)
        params.add(*words)
        self._dispatch(kernels.fill_kernel(len(words)), [out._data], params, threads)

    def iota(self, out, start, step):
        storage = NATIVE.get(out.dtype)
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, step))
        if ints and storage in _IOTA_WRAP and self._native_ok(out):
            # integers: start + i * step modulo 2**64, the low bits kept (as on the CPU)
            if out.size:
                params = Params(out.size, -(-out.size // kernels.STORAGE[storage].per_word))
                params.add(start & 0xFFFFFFFF, (start >> 32) & 0xFFFFFFFF, step & 0xFFFFFFFF,
                           (step >> 32) & 0xFFFFFFFF)
                self._map_index(_IOTA_WRAP[storage], out, storage, params)
            return
        if storage in _IOTA_FLOAT and _exact_in_f32(start, step, out.size) \
                and self._native_ok(out):
            # floats: the CPU rounds start + i * step (float64) once; when every value is an
            # integer below 2**24 float32 computes it exactly, so rounding once agrees
            if out.size:
                params = Params(out.size, -(-out.size // kernels.STORAGE[storage].per_word))
                params.add(int(start) & 0xFFFFFFFF, int(step) & 0xFFFFFFFF)
                self._map_index(_IOTA_FLOAT[storage], out, storage, params)
            return
        self._route("iota", (out, start, step), 0)

    def cast(self, out, x):
        if x.dtype is out.dtype:
            self.copy(out, x)
            return
        src, dst = NATIVE.get(x.dtype), NATIVE.get(out.dtype)
        expr = exprs.cast(src, dst)
        if expr is not None and self._native_ok(out, x):
            if out.size:
                self._map(expr, out, [x], [src], dst)
            return
        self._route("cast", (out, x), 0)

    # -- elementwise -----------------------------------------------------------------------------
    def unary(self, op, out, x):
        t = NATIVE.get(x.dtype)
        expr = exprs.unary(op, t)
        dst = NATIVE.get(out.dtype)
        if expr is not None and dst is not None and self._native_ok(out, x):
            if out.size:
                self._map(expr, out, [x], [t], dst)
            return
        if op not in _ops.ELEMENTWISE:
            raise ValueError(f"unary: unknown op {op!r}")
        self._route("unary", (op, out, x), 1)

    def binary(self, op, out, a, b):
        t = NATIVE.get(a.dtype)
        expr = exprs.binary(op, t)
        dst = NATIVE.get(out.dtype)
        if expr is not None and dst is not None and b.dtype is a.dtype \
                and self._native_ok(out, a, b):
            if out.size:
                self._map(expr, out, [a, b], [t, t], dst)
            return
        if op not in _ops.ELEMENTWISE:
            raise ValueError(f"binary: unknown op {op!r}")
        self._route("binary", (op, out, a, b), 1)

    def where(self, out, cond, a, b):
        eb = out.dtype.itemsize
        if eb in RAW and cond.dtype is _d.bool and self._native_ok(out, cond, a, b):
            if out.size:
                self._map(exprs.WHERE, out, [cond, a, b], ["bool", RAW[eb], RAW[eb]], RAW[eb])
            return
        self._route("where", (out, cond, a, b), 0)

    # -- routed to the CPU in this version -------------------------------------------------------
    def reduce(self, op, out, x, axes):
        from . import reduce as _reduce

        if not _reduce.reduce(self, op, out, x, axes):
            self._route("reduce", (op, out, x, axes), 1)

    def arg_reduce(self, op, out, x, axis):
        from . import reduce as _reduce

        if not _reduce.arg_reduce(self, op, out, x, axis):
            self._route("arg_reduce", (op, out, x, axis), 1)

    def scan(self, op, out, x, axis):
        from . import reduce as _reduce

        if not _reduce.scan(self, op, out, x, axis):
            self._route("scan", (op, out, x, axis), 1)

    def matmul(self, out, a, b):
        from . import matmul as _mm

        if (a.dtype in _mm.DTYPES and b.dtype is a.dtype and out.dtype is a.dtype
                and self._native_ok(out, a, b)):
            _mm.matmul(self, out, a, b)
            return
        self._route("matmul", (out, a, b), 0)

    def gather(self, out, x, axis, indices):
        if (indices.dtype is _d.int64 and x.dtype is out.dtype and self._native_ok(out, x, indices)
                and x.dtype.itemsize in (1, 2, 4, 8, 16)):
            from .gather import gather

            gather(self, out, x, axis, indices)
            return
        self._route("gather", (out, x, axis, indices), 0)

    def scatter(self, op, out, axis, indices, updates):
        from .gather import scatter, scatter_kind

        kind = scatter_kind(op, out.dtype)
        packed_set = kind == "winner" and out.dtype.itemsize < 4
        if (kind is not None and indices.dtype is _d.int64 and updates.dtype is out.dtype
                and self._fits(out, indices, updates) and (out.is_contiguous or not packed_set)):
            scatter(self, op, out, axis, indices, updates)
            return
        self._route("scatter", (op, out, axis, indices, updates), 1, in_place=True)

    def sort(self, out, x, axis, descending):
        from . import sort as _sort

        if _sort.native_ok(self, out, x, axis):
            _sort.sort_along(self, out, x, axis, descending, indices=False)
            return
        self._route("sort", (out, x, axis, descending), 0)

    def argsort(self, out, x, axis, descending):
        from . import sort as _sort

        if _sort.native_ok(self, out, x, axis):
            _sort.sort_along(self, out, x, axis, descending, indices=True)
            return
        self._route("argsort", (out, x, axis, descending), 0)

    def summarize_blocks(self, x, sy, sx):
        from .summary import summarize

        return summarize(self, x, sy, sx)

    def random_bits(self, out, key, counter):
        if out.dtype is _d.uint32 and self._native_ok(out):
            from .rng import random_bits

            random_bits(self, out, key, counter)
            return
        self._route("random_bits", (out, key, counter), 0)

    # -- introspection ---------------------------------------------------------------------------
    def capabilities(self) -> dict[str, dict[str, str]]:
        """``{primitive: {dtype name: "native" | "cpu" | "partial (k/n ops)"}}``."""
        from . import reduce as _reduce
        from . import sort as _sort

        table: dict[str, dict[str, str]] = {}
        for dt in _d.all_dtypes:
            t = NATIVE.get(dt)
            row = {
                "copy": "native", "assign": "native", "fill": "native",
                "iota": ("native" if t in _IOTA_WRAP else
                         "partial (integer values below 2**24)" if t in _IOTA_FLOAT else "cpu"),
                "cast": _cast_coverage(t),
                "where": "native" if dt.itemsize in RAW else "cpu",
                "unary": _coverage(exprs.unary, _ops.UNARY, dt, t),
                "binary": _coverage(exprs.binary, _ops.BINARY, dt, t),
                **dict.fromkeys(("sort", "argsort"),
                                "native" if dt in _sort.SORT_DTYPES else "cpu"),
                **{prim: _reduce.capability(prim, dt)
                   for prim in ("reduce", "arg_reduce", "scan")},
                **dict.fromkeys(_ROUTED_ONLY, "cpu"),
                **_indexing_rng_rows(dt),
            }
            for prim, status in row.items():
                table.setdefault(prim, {})[dt.name] = status
        return table

    def dtype_support(self) -> dict[str, str]:
        """Every dtype: natively in WGSL, or float64/complex128 routed to the CPU."""
        return {dt.name: "native" if dt in NATIVE else "cpu" for dt in _d.all_dtypes}

    def device_info(self) -> dict:
        caps = self.capabilities()
        dtypes = self.dtype_support()
        return {
            "device": "webgpu",
            "driver": self.driver.name,
            "adapter": dict(self.driver.adapter_info),
            "limits": dict(self.driver.limits),
            "features": sorted(self.driver.features),
            "dtypes": dtypes,
            "primitives": caps,
            "routed_calls": {f"{p}:{d}": n for (p, d), n in sorted(self.routed.items())},
        }


def _locked(method):
    @wraps(method)
    def locked(self, *args, **kwargs):
        with self.lock:
            return method(self, *args, **kwargs)
    return locked


for _name in ("alloc", "from_bytes", "to_bytes", "from_values", "to_values", "copy", "assign",
              "fill", "iota", "cast", "unary", "binary", "where", "reduce", "arg_reduce", "scan",
              "matmul", "gather", "scatter", "sort", "argsort", "summarize_blocks", "random_bits",
              "empty_pool", "memory_stats", "capabilities", "device_info"):
    setattr(WebGPUBackend, _name, _locked(getattr(WebGPUBackend, _name)))
del _name


# iota natively: the element index is ``i``; parameters from slot 4 (see ``iota``).
_IOTA_U32 = "prm(4u) + i * prm(6u)"
_IOTA_WRAP = {
    **dict.fromkeys(("u8", "u16", "u32"), _IOTA_U32),
    **dict.fromkeys(("i8", "i16", "i32"), f"bitcast<i32>({_IOTA_U32})"),
    **dict.fromkeys(("i64", "u64"), "add_u64(vec2<u32>(prm(4u), prm(5u)), "
                                    "mul_u64(vec2<u32>(i, 0u), vec2<u32>(prm(6u), prm(7u))))"),
}
_IOTA_FLOAT = dict.fromkeys(("f32", "f16", "bf16"),
                            "i32_to_f32(bitcast<i32>(prm(4u) + i * prm(5u)))")


def _exact_in_f32(start, step, n: int) -> bool:
    """Every value of ``start + i * step`` (i < n) is an integer of magnitude < 2**24."""
    values = (start, step)
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        return False
    if any(isinstance(v, float) and not v.is_integer() for v in values):
        return False
    first, last = int(start), int(start) + int(step) * max(n - 1, 0)
    return max(abs(first), abs(last)) < 1 << 24


def _indexing_rng_rows(dt) -> dict[str, str]:
    """capabilities() of matmul, gather, scatter and random_bits (see matmul.py, gather.py)."""
    from .gather import scatter_kind
    from .matmul import DTYPES as matmul_dtypes

    # complex min/max is refused by every device: not counted
    scatter_ops = ("set", "add") if dt.kind == "c" else ("set", "add", "min", "max")
    scatter_native = sum(scatter_kind(op, dt) is not None for op in scatter_ops)
    return {
        "matmul": "native" if dt in matmul_dtypes else "cpu",
        "gather": "native",  # raw bits: every element size
        "scatter": {len(scatter_ops): "native", 0: "cpu"}.get(
            scatter_native, f"partial ({scatter_native}/{len(scatter_ops)} ops)"),
        "random_bits": "native" if dt is _d.uint32 else "n/a",
    }


def _cast_coverage(t) -> str:
    """Casts from this dtype: "native" when it converts natively to every other NATIVE dtype
    (casts to float64/complex128 are float64 work: they run on the CPU)."""
    if t is None:
        return "cpu"
    targets = [u for u in NATIVE.values() if u != t]
    native = sum(exprs.cast(t, u) is not None for u in targets)
    return "native" if native == len(targets) else f"partial ({native}/{len(targets)} targets)"


def _coverage(lookup, ops, dt, t) -> str:
    """How many of the ops this dtype reaches a backend with have a native expression."""
    applicable = [op.name for op in ops if dt.kind in op.kinds
                  and not (op.result == "float" and dt.kind in "biu")]
    if not applicable:
        return "n/a"
    native = sum(1 for name in applicable if lookup(name, t) is not None)
    if native == len(applicable):
        return "native"
    return "cpu" if native == 0 else f"partial ({native}/{len(applicable)} ops)"


def _inverse_view(shape, strides, offset):
    """For a packed-target assignment: (first element, span, dims) where dims are
    (|stride|, size, flipped, C-order multiplier) sorted by |stride|, or None when the view's
    dims are not nested (each |stride| larger than the extent of the smaller ones)."""
    cmul = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        cmul[d] = cmul[d + 1] * shape[d + 1]
    first = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    dims = sorted(((abs(s), n, int(s < 0), m) for n, s, m in zip(shape, strides, cmul)),
                  reverse=True)
    extent = 0
    for step, n, _flip, _m in reversed(dims):
        if step == 0 or step <= extent:
            return None
        extent += (n - 1) * step
    return first, extent + 1, dims
