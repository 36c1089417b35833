"""DLPack: tensors handed to and taken from other libraries without copying.

The protocol (https://dmlc.github.io/dlpack/latest/python_spec.html): a producer's
``__dlpack__(stream=, max_version=, dl_device=, copy=)`` returns a PyCapsule named
``"dltensor_versioned"`` (DLPack >= 1.0, with read-only / copied flags) or ``"dltensor"``
(older consumers) holding a ``DLManagedTensor[Versioned]``: a data pointer, shape, strides in
elements, dtype code and device, and a deleter the consumer calls when it no longer needs the
memory.  A consumer renames the capsule to ``"used_..."``; a capsule nobody took frees itself.

Both directions are written with ``ctypes`` (the structs below are DLPack's C ABI), so they
need neither NumPy nor a compiled extension:

* export (``Tensor.__dlpack__``): a tensor on the NumPy cpu backend shares its buffer (the
  capsule keeps the buffer alive); the pure-Python backend keeps values as Python objects, so
  its tensors are exported as a copy (and ``copy=False`` raises BufferError); webgpu buffers
  cannot be read by any consumer: they are copied to the CPU only when the consumer allows it
  (``copy=True`` or ``dl_device=(kDLCPU, 0)``), else BufferError saying to move them first.
* import (``wt.from_dlpack``): CPU memory of any producer becomes a NumPy-backend tensor over
  the same memory (the producer's deleter runs when the last view of it dies), or a copy where
  sharing is impossible (pure-Python backend, another device, ``copy=True``).

bfloat16 travels as DLPack's ``kDLBfloat`` (NumPy cannot, JAX and PyTorch can).
"""

from __future__ import annotations

import contextlib

from . import dtypes as _d
from . import shape as _s

# DLDeviceType values (dlpack.h)
CPU, CUDA_HOST, ROCM_HOST, WEBGPU = 1, 3, 11, 15
_HOST_MEMORY = (CPU, CUDA_HOST, ROCM_HOST)  # memory the CPU can read directly
_DEVICE_TYPES = {"cpu": CPU, "webgpu": WEBGPU}
_VERSION = (1, 0)  # the DLPack version of the capsules made here
_READ_ONLY, _IS_COPIED = 1, 2  # DLPACK_FLAG_BITMASK_*

# dtype <-> DLDataType (code, bits): kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4,
# kDLComplex 5, kDLBool 6
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_TO_DL = {dt: (4 if dt is _d.bfloat16 else _CODES[dt.kind], dt.bits) for dt in _d.all_dtypes}
_FROM_DL = {code: dt for dt, code in _TO_DL.items()}

_NAME = b"dltensor"
_NAME_V = b"dltensor_versioned"
_USED = b"used_dltensor"
_USED_V = b"used_dltensor_versioned"

_abi = None  # the ctypes structures and C functions, made on first use


def _ctypes():
    """The DLPack ABI as ctypes objects (imported lazily: ctypes may be missing in a
    browser build of Python)."""
    global _abi
    if _abi is not None:
        return _abi
    try:
        import ctypes
    except ImportError as e:  # pragma: no cover - Pyodide without ctypes
        raise BufferError(f"DLPack needs the ctypes module, which this Python lacks ({e}); "
                          f"exchange data with x.tobytes() / wt.frombuffer instead") from None

    class Device(ctypes.Structure):
        _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

    class DataType(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16)]

    class DLTensor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32),
                    ("dtype", DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                    ("strides", ctypes.POINTER(ctypes.c_int64)),
                    ("byte_offset", ctypes.c_uint64)]

    deleter_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    class Managed(ctypes.Structure):
        _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                    ("deleter", ctypes.c_void_p)]

    class Version(ctypes.Structure):
        _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]

    class ManagedVersioned(ctypes.Structure):
        _fields_ = [("version", Version), ("manager_ctx", ctypes.c_void_p),
                    ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                    ("dl_tensor", DLTensor)]

    api = ctypes.pythonapi

    def c_function(name, restype, *argtypes):
        return ctypes.PYFUNCTYPE(restype, *argtypes)((name, api))

    obj, ptr, text = ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p
    ns = type("ABI", (), {})()
    ns.ctypes = ctypes
    ns.Managed, ns.ManagedVersioned, ns.deleter_type = Managed, ManagedVersioned, deleter_type
    ns.new = c_function("PyCapsule_New", obj, ptr, text, ptr)
    ns.is_valid = c_function("PyCapsule_IsValid", ctypes.c_int, obj, text)
    ns.get_name = c_function("PyCapsule_GetName", text, obj)
    ns.get_pointer = c_function("PyCapsule_GetPointer", ptr, obj, text)
    ns.set_name = c_function("PyCapsule_SetName", ctypes.c_int, obj, text)
    # the same two for the capsule destructor, which gets the dying capsule as a raw pointer
    ns.raw_is_valid = c_function("PyCapsule_IsValid", ctypes.c_int, ptr, text)
    ns.raw_get_pointer = c_function("PyCapsule_GetPointer", ptr, ptr, text)
    # Our deleter (the consumer calls it) and our capsule destructor (runs when the capsule
    # dies; frees the tensor only if no consumer took it).  Both stay alive with the module.
    ns.deleter = deleter_type(_release)
    ns.destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_capsule_destructor)
    ns.deleter_address = ctypes.cast(ns.deleter, ctypes.c_void_p).value
    ns.destructor_address = ctypes.cast(ns.destructor, ctypes.c_void_p).value
    _abi = ns
    return ns


# Exported tensors not yet released: address of the managed struct -> what must stay alive
# (the struct, its shape/strides arrays, the buffer it points into).
_LIVE: dict = {}


def _release(address) -> None:
    """The deleter of our capsules: forget what kept the exported memory alive."""
    _LIVE.pop(address, None)


def _capsule_destructor(capsule) -> None:
    try:
        abi = _abi
        for name in (_NAME_V, _NAME):
            if abi.raw_is_valid(capsule, name):  # not renamed: no consumer took it
                _release(abi.raw_get_pointer(capsule, name))
                return
    except Exception:  # pragma: no cover - interpreter shutdown
        pass


# -- export ----------------------------------------------------------------------------------------

def device_of(t) -> tuple[int, int]:
    """``__dlpack_device__``: (kDLCPU, 0) or (kDLWebGPU, 0)."""
    return (_DEVICE_TYPES.get(t.device.name, CPU), 0)


def _check_request(t, stream, max_version, dl_device, copy):
    where = "Tensor.__dlpack__"
    if copy not in (None, True, False):
        raise TypeError(f"{where}: copy must be True, False or None, got {copy!r}")
    if stream is not None:
        raise BufferError(f"{where}: stream={stream!r} is not supported; webtensor's DLPack "
                          f"memory is host memory, for which the protocol's stream is None")
    if max_version is not None and (not isinstance(max_version, tuple) or len(max_version) != 2):
        raise TypeError(f"{where}: max_version must be a (major, minor) tuple, got "
                        f"{max_version!r}")
    if dl_device is not None:
        try:
            kind, index = (int(v) for v in dl_device)
        except (TypeError, ValueError):
            raise TypeError(f"{where}: dl_device must be a (device type, device id) tuple, "
                            f"got {dl_device!r}") from None
        if (kind, index) != (CPU, 0):
            raise BufferError(f"{where}: cannot export to DLPack device {dl_device!r}: "
                              f"webtensor exports host memory only (dl_device=(1, 0)); for a "
                              f"webgpu tensor that is a copy, x.to_device('cpu') first")


def export(t, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a capsule over ``t``'s memory (or a copy where it cannot be
    shared)."""
    _check_request(t, stream, max_version, dl_device, copy)
    versioned = max_version is not None and max_version[0] >= 1
    backend = t.device._real_backend()
    on_cpu = t.device.name == "cpu"
    if not on_cpu and copy is not True and dl_device is None:
        raise BufferError(
            f"Tensor.__dlpack__: this tensor is on the {t.device.name} device, whose buffers "
            f"no DLPack consumer can read; move it to the cpu first (x.to_device('cpu')), or "
            f"let the consumer take a copy (copy=True, e.g. np.from_dlpack(x, copy=True))")
    shares = on_cpu and backend.name == "numpy" and copy is not True and \
        hasattr(t._data, "__array_interface__")  # not a buffer being traced (wt.jit)
    if shares and t._readonly and not versioned:
        shares = False  # an old consumer could not be told the memory is read-only
    if not shares and copy is False:
        why = ("the pure-Python cpu backend keeps values as Python objects" if on_cpu and
               backend.name != "numpy" else "an old (unversioned) consumer cannot be told the "
               "memory is read-only" if on_cpu else f"the {t.device.name} device's memory "
               f"cannot be read in place")
        raise BufferError(f"Tensor.__dlpack__: copy=False is impossible: {why}; use copy=None "
                          f"(copy when needed)")
    abi = _ctypes()
    if shares:
        data = t._data  # the flat NumPy buffer; the view starts at t.offset
        address = data.__array_interface__["data"][0] + t.offset * data.itemsize
        strides = tuple(1 if n == 1 else s for n, s in zip(t.shape, t.strides))
        keep, flags = data, (_READ_ONLY if t._readonly else 0)
    else:
        raw = t.tobytes()  # C order; for webgpu this waits for the device and downloads
        holder = abi.ctypes.create_string_buffer(raw, max(len(raw), 1))
        address = abi.ctypes.addressof(holder)
        strides = _s.contiguous_strides(t.shape)
        keep, flags = holder, _IS_COPIED
    return _capsule(abi, t, address, strides, keep, flags if versioned else None)


def _capsule(abi, t, address, strides, keep, flags):
    ctypes = abi.ctypes
    ndim = len(t.shape)
    shape = (ctypes.c_int64 * max(ndim, 1))(*t.shape)
    stride_array = (ctypes.c_int64 * max(ndim, 1))(*strides)
    managed = abi.Managed() if flags is None else abi.ManagedVersioned()
    if flags is not None:
        managed.version.major, managed.version.minor = _VERSION
        managed.flags = flags
    tensor = managed.dl_tensor
    tensor.data = address or None
    tensor.device.device_type, tensor.device.device_id = CPU, 0
    tensor.ndim = ndim
    tensor.dtype.code, tensor.dtype.bits = _TO_DL[t.dtype]
    tensor.dtype.lanes = 1
    tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = ctypes.cast(stride_array, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    managed.deleter = abi.deleter_address
    key = ctypes.addressof(managed)
    _LIVE[key] = (managed, shape, stride_array, keep)
    return abi.new(key, _NAME if flags is None else _NAME_V, abi.destructor_address)


# -- import ----------------------------------------------------------------------------------------

class _Owner:
    """Holds an imported DLPack tensor; calls the producer's deleter when collected (the last
    view of the memory is gone)."""

    __slots__ = ("address", "deleter")

    def __init__(self, address: int, deleter: int):
        self.address, self.deleter = address, deleter

    def release(self) -> None:
        address, self.address = self.address, None
        if address and self.deleter:
            _abi.deleter_type(self.deleter)(address)

    def __del__(self):
        with contextlib.suppress(Exception):  # at interpreter shutdown ctypes may be gone
            self.release()


def _take_capsule(x, fn: str, copy):
    """Ask ``x`` for a capsule (the versioned protocol first, then the old one)."""
    try:
        return x.__dlpack__(stream=None, max_version=_VERSION, dl_device=(CPU, 0), copy=copy)
    except TypeError:
        pass  # a producer that predates max_version / dl_device / copy
    except BufferError as e:
        raise BufferError(f"wt.{fn}: {type(x).__name__} cannot export its data to the cpu "
                          f"({e})") from None
    try:
        return x.__dlpack__()
    except (TypeError, RuntimeError, BufferError, ValueError) as e:
        raise BufferError(f"wt.{fn}: the DLPack export of {type(x).__name__} failed ({e})") \
            from None


def _parse(abi, capsule, fn: str):
    """(owner, address, shape, element strides, dtype, read-only) of a capsule we now own."""
    ctypes = abi.ctypes
    if type(capsule).__name__ != "PyCapsule":
        raise BufferError(f"wt.{fn}: __dlpack__ returned {type(capsule).__name__}, not a "
                          f"DLPack capsule")
    name = abi.get_name(capsule)
    if name == _NAME_V:
        address = abi.get_pointer(capsule, _NAME_V)
        managed = abi.ManagedVersioned.from_address(address)
        owner = _Owner(address, managed.deleter)
        abi.set_name(capsule, _USED_V)  # ours now: the producer's destructor leaves it
        if managed.version.major != _VERSION[0]:
            owner.release()
            raise BufferError(f"wt.{fn}: DLPack version {managed.version.major}."
                              f"{managed.version.minor} is not supported (webtensor reads "
                              f"1.x)")
        read_only = bool(managed.flags & _READ_ONLY)
    elif name == _NAME:
        address = abi.get_pointer(capsule, _NAME)
        managed = abi.Managed.from_address(address)
        owner = _Owner(address, managed.deleter)
        abi.set_name(capsule, _USED)
        read_only = False
    else:
        raise BufferError(f"wt.{fn}: the capsule is named {name!r}, not 'dltensor' or "
                          f"'dltensor_versioned' (already consumed?)")
    t = managed.dl_tensor
    kind = t.device.device_type
    code = (t.dtype.code, t.dtype.bits)
    problem = None
    if kind not in _HOST_MEMORY:
        problem = (f"the data is on DLPack device type {kind}, not in CPU memory; move it to "
                   f"the CPU first")
    elif code not in _FROM_DL or t.dtype.lanes != 1:
        problem = (f"DLPack dtype (code {code[0]}, {code[1]} bits, {t.dtype.lanes} lanes) has "
                   f"no webtensor equivalent")
    elif t.ndim > _s.MAX_NDIM:
        problem = f"{t.ndim} dimensions; webtensor supports at most {_s.MAX_NDIM}"
    if problem is not None:
        owner.release()
        raise BufferError(f"wt.{fn}: {problem}")
    dt = _FROM_DL[code]
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides = _s.contiguous_strides(shape)
    base = (t.data or 0) + t.byte_offset
    del ctypes
    return owner, base, shape, strides, dt, read_only


def import_(x, device, copy, fn: str = "from_dlpack"):
    """``wt.from_dlpack`` for a non-webtensor producer: a cpu tensor over its memory (NumPy
    backend), or a copy on ``device``."""
    from .device import as_device, cpu
    from .tensor import Tensor

    dev = cpu if device is None else as_device(device, fn)
    host = dev if dev.name == "cpu" else cpu  # where the data arrives first
    shares = dev.name == "cpu" and dev._real_backend().name == "numpy" and copy is not True
    if copy is False and not shares:
        why = (f"the {dev.name} device cannot use another library's memory" if dev.name != "cpu"
               else "the pure-Python cpu backend keeps values as Python objects")
        raise BufferError(f"wt.{fn}: copy=False is impossible: {why}; use copy=None (copy when "
                          f"needed)")
    abi = _ctypes()
    capsule = _take_capsule(x, fn, copy)
    owner, base, shape, strides, dt, read_only = _parse(abi, capsule, fn)
    size = _s.size_of(shape)
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0) if size else 0
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0) if size else -1
    nbytes = (hi - lo + 1) * dt.itemsize
    start = base + lo * dt.itemsize
    contiguous = lo == 0 and tuple(strides) == _s.contiguous_strides(shape)
    if shares and size:
        import numpy as np

        from .backends.cpu_numpy import storage_dtype

        memory = (abi.ctypes.c_char * nbytes).from_address(start)
        memory.owner = owner  # the producer's deleter runs once no view of it is left
        flat = np.frombuffer(memory, dtype=storage_dtype(dt))
        if read_only:
            flat.flags.writeable = False
        return Tensor._wrap(flat, shape, dt, dev, strides=None if contiguous else strides,
                            offset=-lo, readonly="dlpack" if read_only else False)
    try:  # a copy: read the span, then the view's elements in C order
        raw = abi.ctypes.string_at(start, nbytes) if size else b""
    finally:
        owner.release()
    data = host._real_backend().from_bytes(dt, raw)
    t = Tensor._wrap(data, shape, dt, host, strides=None if contiguous else strides, offset=-lo)
    from .api.creation import asarray

    out = asarray(t, copy=True) if not contiguous else t
    return out if dev is out.device else asarray(out, device=dev)
