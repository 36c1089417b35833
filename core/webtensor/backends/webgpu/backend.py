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

import struct
import threading
from collections import Counter
from functools import wraps

from ... import dtypes as _d
from ..._warnings import warn_once
from ...tensor import Tensor
from ..base import Backend, float64_is_internal
from . import elementwise, gather, kernels, matmul, reduce, rng, search, sort, summary, window
from .allocator import Allocator, GPUBuffer, bucket, is_constant
from .driver import Indirect
from .kernels import STORAGE_OF

NATIVE = STORAGE_OF  # the dtypes the kernels compute with (float64/complex128: the CPU)
# Launches of at least this many workgroups (1,024 elements each for vec4 kernels, 256 for the
# others) run a kernel's deferred pair on CPU adapters: below it, the pair's two extra
# dispatches cost more than the rare path they skip.  GPUs branch for real and never need it.
DEFER_MIN_GROUPS = 64
_WIDE_FLOATS = (_d.float64, _d.complex128)

# The kernel families: each runs its primitives natively where it can (``run`` returns False
# otherwise: the device routes the call to the CPU) and says which dtypes it supports.
FAMILIES = {prim: family for family in (elementwise, reduce, matmul, gather, sort, rng,
                                        window)
            for prim in family.PRIMITIVES}
# primitive -> (position of the output among its arguments, the output's contents are read)
OUTPUT = {"copy": (0, False), "assign": (0, True), "fill": (0, False), "iota": (0, False),
          "cast": (0, False), "unary": (1, False), "binary": (1, False), "where": (0, False),
          "reduce": (1, False), "arg_reduce": (1, False), "scan": (1, False),
          "matmul": (0, False), "gather": (0, False), "scatter": (1, True), "sort": (0, False),
          "argsort": (0, False), "random_bits": (0, False), "window_reduce": (1, False),
          "window_scatter": (1, False)}


def _warn_float64(dtypes) -> None:
    """Warn once per session when float64/complex128 arithmetic is routed to the CPU."""
    if float64_is_internal() or not any(dt in _WIDE_FLOATS for dt in dtypes):
        return
    warn_once("webgpu-float64",
              "webgpu: float64 work runs on the CPU (WGSL has no 64-bit floats in browsers), so "
              "it is much slower than float32; use float32 (or complex64) tensors for GPU speed")


def _cpu():
    from ...device import cpu

    return cpu


# (Python type, dtype) -> packing of one value whose bytes are the CPU backend's conversion
# (struct rounds a float to float32 like C's cast, which NumPy and the pure-Python backend
# use; ints are packed only within the dtype's range).
_PACK = {
    (float, _d.float32): struct.Struct("<f").pack,
    (float, _d.float64): struct.Struct("<d").pack,
    (bool, _d.bool): struct.Struct("<?").pack,
    **{(int, dt): struct.Struct(fmt).pack for dt, fmt in (
        (_d.int8, "<b"), (_d.int16, "<h"), (_d.int32, "<i"), (_d.int64, "<q"),
        (_d.uint8, "<B"), (_d.uint16, "<H"), (_d.uint32, "<I"), (_d.uint64, "<Q"))},
}


def adapter_class(info: dict[str, str]) -> str:
    """"llvmpipe" (Mesa's lavapipe), "software" (another CPU adapter: SwiftShader, WARP) or
    "gpu": CPU adapters differ in which kernel shapes their compilers handle well."""
    if info.get("adapter_type", "").upper() != "CPU":
        return "gpu"
    names = " ".join(str(info.get(k, "")) for k in ("vendor", "device", "description"))
    return "llvmpipe" if "llvmpipe" in names.lower() else "software"


class WebGPUBackend(Backend):
    """Tensors in GPU storage buffers; each primitive goes to its kernel family (``FAMILIES``)
    and, where the family has no kernel for the dtypes or layout, to the CPU backend.

    The interface the families use: ``allocate``/``alloc``, ``launch``, ``read``/``write``,
    ``fits``/``fresh``/``native_ok``, ``unaliased``/``materialize``, ``cpu_bytes``, ``plans``
    and the primitives themselves (a family may call another, e.g. ``cast``)."""

    name = "webgpu"
    exact_float64 = True

    def __init__(self, driver=None):
        if driver is None:
            from .native import NativeDriver
            from .probe import probe

            driver = NativeDriver(probe().adapter)
        self.driver = driver
        # One thread at a time records into the open pass, the pool and the uniform arena:
        # every public method holds this (re-entrant: methods call each other).
        self.lock = threading.RLock()
        self.max_binding = driver.limits["max-storage-buffer-binding-size"]
        #: the adapter's row in tables of tuned kernel shapes (matmul.DIRECT_TILES)
        self.adapter_class = adapter_class(driver.adapter_info)
        #: a CPU adapter (SwiftShader, lavapipe): kernels that tune their shape ask
        self.software = self.adapter_class != "gpu"
        self.memory = Allocator(driver, Allocator.POOL_BYTES if self.software else
                                Allocator.GPU_POOL_BINDINGS * self.max_binding)
        self.routed: Counter = Counter()
        self.plans: dict = {}  # the families' dispatch plans, by key
        self._pipelines: dict = {}  # Kernel -> driver pipeline
        #: kernels may use subgroup operations (reduce.py's trees)
        self.subgroups = "subgroups" in driver.features
        #: the adapter rounds every float operation as IEEE says: `/` and sqrt correctly, no
        #: multiply and add fused (CPU adapters' compilers); elsewhere (GPUs) float32.wgsl's
        #: div_f32/sqrt_f32 take exact integer forms and prelude.wgsl's rounded_f32 keeps the
        #: ops of a compiled program from fusing (WGSL constant IEEE_ARITHMETIC)
        self.ieee_arithmetic = self.software
        #: kernels that may (``Kernel.widens``) run two work items per invocation: SwiftShader
        #: pays to start each one (WGSL constant WIDE_INVOCATIONS; kernels.py says more);
        #: lavapipe measured the same either way
        self.wide_invocations = self.adapter_class == "software"

    # -- memory ----------------------------------------------------------------------------------
    def allocate(self, nbytes: int) -> GPUBuffer:
        return self.memory.allocate(nbytes)

    def alloc(self, dtype, size):
        return self.memory.allocate(size * dtype.itemsize)

    def buffer_size(self, data, dtype) -> int:
        return data.nbytes // dtype.itemsize

    def empty_pool(self) -> None:
        """Give every pooled (free) buffer back to the driver."""
        self.memory.empty_pool()

    def memory_stats(self) -> dict:
        """Live GPU buffers and bytes (tensors not yet garbage-collected), the free pool, the
        peak, and the driver's counters."""
        return {**self.memory.stats(), **self.driver.stats()}

    def read(self, buf: GPUBuffer, start: int, nbytes: int) -> bytes:
        if nbytes == 0:
            return b""
        if buf.host is not None:
            return buf.host[start:start + nbytes]
        lo = start & ~3
        hi = (start + nbytes + 3) & ~3
        raw = self.driver.read_buffer(buf.handle, lo, hi - lo)
        return raw[start - lo:start - lo + nbytes]

    def write(self, buf: GPUBuffer, start: int, data: bytes) -> None:
        end = start + len(data)
        if not data:
            return
        self._writable(buf)
        lo = start & ~3
        hi = (end + 3) & ~3
        head = self.read(buf, lo, start - lo) if start != lo else b""
        tail = b""
        if hi != end:
            tail = bytes(hi - end) if end >= buf.nbytes else self.read(buf, end, hi - end)
        self.memory.collect()
        self.driver.write_buffer(buf.handle, lo, head + bytes(data) + tail)

    def from_bytes(self, dtype, data):
        data = bytes(data)
        buf = self.memory.allocate(len(data), upload=True)
        self.write(buf, 0, data)
        return buf

    def constant(self, dtype, value):
        """Kept on the host: elementwise kernels take it in their parameters (no buffer, no
        upload, no new bind group for a new Python scalar); ``bound`` uploads it for others."""
        data = self.cpu_bytes(dtype, [value])
        return GPUBuffer(None, len(data), bucket(len(data)), host=data + bytes(-len(data) % 4))

    def bound(self, buf: GPUBuffer):
        """``buf``'s driver buffer, uploading a constant's bytes the first time it is bound."""
        if buf.handle is None:
            fresh = self.memory.allocate(buf.nbytes, upload=True)
            buf.handle, buf.size, buf.owner = fresh.handle, fresh.size, fresh.owner
            fresh.owner = None  # ``buf`` returns the handle to the pool now
            self.driver.write_buffer(buf.handle, 0, buf.host)
        return buf.handle

    def _writable(self, buf: GPUBuffer) -> None:
        """Before anything writes ``buf``: a constant gets its driver buffer and loses its host
        copy, which the write would leave stale."""
        if buf.host is not None:
            self.bound(buf)
            buf.host = None

    def to_bytes(self, x) -> bytes:
        n = x.size * x.dtype.itemsize
        if n == 0:
            return b""
        if is_constant(x):
            return self._constant_bytes(x)
        if x.is_contiguous:
            return self.read(x._data, x.offset * x.dtype.itemsize, n)
        if not self._gathers_on_gpu(x):
            return _cpu().backend.to_bytes(self._whole_to_cpu(x))
        out = self.empty_like(x)
        self.copy(out, x)
        return self.read(out._data, 0, n)

    @staticmethod
    def _constant_bytes(x) -> bytes:
        """The view ``x`` of a constant (one element, every view repeats it) in C order."""
        return x._data.host[:x.dtype.itemsize] * x.size

    def _gathers_on_gpu(self, x) -> bool:
        """A view's elements can be made contiguous by a kernel: source and result each fit one
        storage binding (else reading the whole source buffer and gathering on the host is the
        only way, and the copy kernel would route right back here)."""
        return x._data.size <= self.max_binding and \
            bucket(x.size * x.dtype.itemsize) <= self.max_binding

    async def to_bytes_async(self, x) -> bytes:
        """``to_bytes`` without blocking (the browser's only way to read)."""
        n = x.size * x.dtype.itemsize
        if n == 0:
            return b""
        if is_constant(x):
            return self._constant_bytes(x)
        if not x.is_contiguous:
            if not self._gathers_on_gpu(x):
                raw = await self.driver.read_buffer_async(self.bound(x._data), 0, x._data.size)
                cpu = _cpu()
                data = cpu.backend.from_bytes(x.dtype, raw[:x._data.nbytes])
                return cpu.backend.to_bytes(Tensor._wrap(data, x.shape, x.dtype, cpu,
                                                         strides=x.strides, offset=x.offset))
            x = self.materialize(x)
        start = x.offset * x.dtype.itemsize
        lo, hi = start & ~3, (start + n + 3) & ~3
        raw = await self.driver.read_buffer_async(x._data.handle, lo, hi - lo)
        return raw[start - lo:start - lo + n]

    def from_values(self, dtype, values):
        return self.from_bytes(dtype, self.cpu_bytes(dtype, values))

    def to_values(self, x) -> list:
        return _cpu().backend.to_values(self._to_cpu(x))

    def cpu_bytes(self, dtype, values) -> bytes:
        """The bytes of ``values`` as ``dtype`` (the CPU backend converts them)."""
        if len(values) == 1:  # a scalar operand (x * 2.5 with a new value each time)
            value = values[0]
            pack = _PACK.get((value.__class__, dtype))
            if pack is not None:
                try:
                    # a finite float rounds once, as the CPU's cast does; the rest (inf,
                    # NaN, finite overflow, ints out of range) takes the CPU's way
                    if value - value == 0:
                        return pack(value)
                except (OverflowError, struct.error):
                    pass
        return self._cpu_bytes(dtype, values)

    def _cpu_bytes(self, dtype, values) -> bytes:
        cpu = _cpu()
        values = values if isinstance(values, list) else list(values)
        t = Tensor._wrap(cpu.backend.from_values(dtype, values), (len(values),), dtype, cpu)
        return cpu.backend.to_bytes(t)

    def empty_like(self, x) -> Tensor:
        return Tensor._wrap(self.alloc(x.dtype, x.size), x.shape, x.dtype, x.device)

    # -- launching kernels -----------------------------------------------------------------------
    def launch(self, kernel, buffers, params, groups: int) -> None:
        """Record one dispatch of ``groups`` workgroups of ``kernel`` over ``buffers`` (inputs,
        then outputs); ``params``: a ``Params`` or its packed bytes.  Every kernel of every
        family goes through here, so through one pipeline cache.  On CPU adapters a big
        launch of a kernel with a deferred pair runs the pair instead (``kernels.RARE_PATHS``)."""
        uniforms = params if params.__class__ is bytes else params.pack(kernel)
        for b in buffers[kernel.n_in:]:
            self._writable(b)
        if kernel.widens and self.wide_invocations:
            groups = -(-groups // 2)
        if kernel.deferred is not None and self.software and groups >= DEFER_MIN_GROUPS:
            self._launch_deferred(kernel, buffers, uniforms, groups)
        else:
            handles = [b.handle for b in buffers]
            if None in handles:
                handles = [self.bound(b) for b in buffers]
            self._dispatch(kernel, handles, uniforms, groups)

    def compiles(self, kernel) -> bool:
        """Whether the device's shader compiler takes ``kernel`` (its pipeline is built now and
        kept): kernels using optional WGSL features ask before their first launch.  In a
        browser without JSPI a refusal only shows at the next read, so this says True."""
        with self.lock:
            if kernel in self._pipelines:
                return True
            try:
                self._new_pipeline(kernel)
            except Exception:  # the driver's own error type (wgpu's, the browser's)
                return False
            return True

    def _new_pipeline(self, kernel):
        """Build ``kernel``'s pipeline and keep it; the adapter's constants (``IEEE_ARITHMETIC``)
        are defined here, so one kernel text serves every adapter."""
        wgsl = kernel.wgsl
        if "IEEE_ARITHMETIC" in wgsl:
            wgsl = kernels.with_constant(wgsl, "IEEE_ARITHMETIC", self.ieee_arithmetic)
        if kernel.widens:
            wgsl = kernels.with_constant(wgsl, "WIDE_INVOCATIONS", self.wide_invocations)
        pipeline = self.driver.create_pipeline(wgsl, kernel.entry, kernel.n_in,
                                               kernel.n_out, kernel.uniform_size)
        self._pipelines[kernel] = pipeline
        return pipeline

    def _dispatch(self, kernel, handles, uniforms: bytes, groups) -> None:
        pipeline = self._pipelines.get(kernel)
        if pipeline is None:
            pipeline = self._new_pipeline(kernel)
        if self.memory.garbage:
            self.memory.collect()
        self.driver.dispatch(pipeline, handles, uniforms, groups)

    def _launch_deferred(self, kernel, buffers, uniforms: bytes, groups: int) -> None:
        """The kernel's deferred pair: a redo buffer (header, then room to list every
        invocation) reset, the flagging kernel, then the redo kernel for the listed ones."""
        flagging, redo = kernel.deferred
        invocations = groups * kernels.MAX_WORKGROUP
        scratch = self.memory.allocate(4 * (kernels.REDO_HEADER + invocations))
        init = kernels.Params(kernels.REDO_HEADER, kernels.REDO_HEADER)
        init.add(*kernels.REDO_HEADER_INIT)
        header = kernels.fill_kernel(kernels.REDO_HEADER)
        self._dispatch(header, [scratch.handle], init.pack(header), 1)
        handles = [self.bound(b) for b in buffers]
        self._dispatch(flagging, [*handles, scratch.handle], uniforms, groups)
        ins, outs = handles[:kernel.n_in], handles[kernel.n_in:]
        self._dispatch(redo, [*ins, scratch.handle, *outs], uniforms, Indirect(scratch.handle))

    def launch_threads(self, kernel, buffers, params, threads: int) -> None:
        """``launch`` with one invocation per thread (kernels of ``kernels.WORKGROUP``)."""
        self.launch(kernel, buffers, params, kernels.groups_for(threads))

    def fits(self, *tensors) -> bool:
        """Every buffer fits one storage binding; else the work is routed to the CPU (correct,
        slow), which warns once: bindings are limited to maxStorageBufferBindingSize."""
        limit = self.max_binding
        for t in tensors:  # (a loop, not all(): this runs for every op)
            if t._data.size > limit:
                break
        else:
            return True
        warn_once("webgpu-binding",
                  f"webgpu: tensors larger than the {self.max_binding >> 20} MiB storage binding "
                  f"limit (maxStorageBufferBindingSize) are computed on the CPU; split them into "
                  f"smaller tensors to keep the work on the GPU")
        return False

    @staticmethod
    def fresh(t) -> bool:
        """``t`` is a whole C-contiguous buffer from offset 0 (what ``empty`` returns)."""
        return t._dense or (t.offset == 0 and t.is_contiguous)

    def native_ok(self, out, *inputs) -> bool:
        """A kernel may write ``out`` directly: it is fresh, and every buffer fits a binding."""
        return self.fresh(out) and self.fits(out, *inputs)

    def unaliased(self, out, inputs) -> list:
        """Inputs sharing ``out``'s buffer are copied first (WebGPU forbids binding a buffer as
        both input and output of one dispatch)."""
        return [self.materialize(t) if t._data is out._data else t for t in inputs]

    def materialize(self, x) -> Tensor:
        out = self.empty_like(x)
        self.copy(out, x)
        return out

    # -- routing to the CPU: the one fallback -----------------------------------------------------
    def _to_cpu(self, x) -> Tensor:
        """The view ``x`` as a contiguous tensor on the CPU device."""
        cpu = _cpu()
        return Tensor._wrap(cpu.backend.from_bytes(x.dtype, self.to_bytes(x)), x.shape, x.dtype,
                            cpu)

    def _whole_to_cpu(self, x) -> Tensor:
        """``x``'s whole buffer on the CPU device, viewed with ``x``'s geometry."""
        cpu = _cpu()
        raw = self.read(x._data, 0, x._data.nbytes)
        data = cpu.backend.from_bytes(x.dtype, raw)
        return Tensor._wrap(data, x.shape, x.dtype, cpu, strides=x.strides, offset=x.offset)

    def route(self, prim: str, args: tuple) -> None:
        """Run primitive ``prim`` on the CPU backend (``OUTPUT`` says which argument is the GPU
        output, and whether its current contents matter, as for scatter and assign)."""
        out_at, in_place = OUTPUT[prim]
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
            self.write(out._data, 0, cpu.backend.to_bytes(whole))
        elif self.fresh(out):
            self.write(out._data, 0, cpu.backend.to_bytes(cpu_out))
        else:
            tmp = Tensor._wrap(self.from_bytes(out.dtype, cpu.backend.to_bytes(cpu_out)),
                               out.shape, out.dtype, out.device)
            self.assign(out, tmp)

    # -- optional capabilities -------------------------------------------------------------------
    def summarize_blocks(self, x, sy, sx):
        return summary.summarize(self, x, sy, sx)

    def scatter_in_range(self, op, out, axis, indices, updates):
        return gather.scatter_in_range(self, op, out, axis, indices, updates)

    def search_sorted(self, sorted_values, values, right):
        return search.search_sorted(self, sorted_values, values, right)

    def flat_nonzero(self, mask):
        return search.flat_nonzero(self, mask)

    # -- introspection: derived from the families' own ``supports`` -------------------------------
    def capabilities(self) -> dict[str, dict[str, str]]:
        """``{primitive: {dtype name: "native" | "cpu" | "partial (k/n ops)"}}``."""
        return {prim: {dt.name: family.capability(prim, dt) for dt in _d.all_dtypes}
                for prim, family in FAMILIES.items()}

    def dtype_support(self) -> dict[str, str]:
        """Every dtype: natively in WGSL, or float64/complex128 routed to the CPU."""
        return {dt.name: "native" if dt in STORAGE_OF else "cpu" for dt in _d.all_dtypes}

    def device_info(self) -> dict:
        dtypes = self.dtype_support()
        return {
            "device": "webgpu",
            "driver": self.driver.name,
            "adapter": dict(self.driver.adapter_info),
            "limits": dict(self.driver.limits),
            "features": sorted(self.driver.features),
            "dtypes": dtypes,
            "primitives": self.capabilities(),
            "routed_calls": {f"{p}:{d}": n for (p, d), n in sorted(self.routed.items())},
        }


def _primitive(prim: str):
    """The backend method of ``prim``: its family's kernels, else the CPU."""
    family = FAMILIES[prim]

    def method(self, *args):
        if not family.run(self, prim, *args):
            self.route(prim, args)
    method.__name__ = prim
    return method


def _locked(method):
    @wraps(method)
    def locked(self, *args, **kwargs):
        with self.lock:
            return method(self, *args, **kwargs)
    return locked


for _name in OUTPUT:
    setattr(WebGPUBackend, _name, _locked(_primitive(_name)))
for _name in ("alloc", "allocate", "from_bytes", "to_bytes", "from_values", "to_values",
              "summarize_blocks", "scatter_in_range", "empty_pool", "memory_stats",
              "capabilities", "device_info"):
    setattr(WebGPUBackend, _name, _locked(getattr(WebGPUBackend, _name)))
del _name
