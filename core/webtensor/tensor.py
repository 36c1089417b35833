"""The Tensor: a strided view over a device buffer, with a dtype, a weak flag and axis names.

Operators and methods delegate to ``webtensor.api``; this module holds the data structure, the
view constructors every API module shares, and reading values back.
"""

from __future__ import annotations

from . import shape as _s
from ._tracing import TracedBuffer, traced_repr
from .device import Device
from .dtypes import DType


class Tensor:
    """An n-dimensional array on a device.  Create one with ``wt.asarray`` and friends."""

    __slots__ = ("_data", "shape", "strides", "offset", "dtype", "weak", "names", "device",
                 "_dense", "_readonly", "__weakref__")
    # NumPy's operators return NotImplemented for us, so `ndarray + tensor` uses our promotion.
    __array_ufunc__ = None

    # -- construction (internal) -----------------------------------------------------------------
    @classmethod
    def _wrap(cls, data, shape, dtype: DType, device: Device, *, strides=None, offset=0,
              weak=False, names=None, readonly=False) -> Tensor:
        t = object.__new__(cls)
        t._data = data
        # _readonly: a view of a broadcast (its elements alias each other), or "dlpack": memory a
        # DLPack producer shared read-only; writes are refused
        t._readonly = readonly
        t.shape = shape
        # _dense: the view is exactly its whole buffer in C order (a fast path for backends).
        t._dense = strides is None and offset == 0
        t.strides = _s.contiguous_strides(shape) if strides is None else strides
        t.offset = offset
        t.dtype = dtype
        t.weak = weak
        t.names = names
        t.device = device
        return t

    def _view(self, shape, strides, offset, names=None, dtype=None) -> Tensor:
        """A view sharing this tensor's buffer."""
        if len(shape) > _s.MAX_NDIM:
            _s.check_ndim(len(shape), "view")
        return Tensor._wrap(self._data, shape, self.dtype if dtype is None else dtype,
                            self.device, strides=strides, offset=offset, weak=self.weak,
                            names=names, readonly=self._readonly)

    @property
    def _backend(self):
        return self.device.backend

    # -- attributes ------------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return _s.size_of(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def is_contiguous(self) -> bool:
        return _s.is_contiguous(self.shape, self.strides)

    # Members computed by the API (``T``, ``mT``, ``to_device``, ``copy``, ``__copy__``,
    # ``__deepcopy__``, ``__array_namespace__``, ``__dlpack__``, the NumPy-style methods and
    # the operators)
    # are installed from tables by ``_methods.py`` and ``api/elementwise.py``: this module sits
    # below the API and imports nothing from it.

    # -- reading values --------------------------------------------------------------------------
    def tolist(self):
        """Nested Python lists of Python scalars (a scalar for 0-d)."""
        flat = self._backend.to_values(self)
        if not self.shape:
            return flat[0]
        return nest(flat, self.shape)

    def item(self):
        if self.size != 1:
            raise ValueError(f"Tensor.item: only a tensor with exactly one element can be "
                             f"converted to a Python scalar, this one has shape {self.shape}")
        return self._backend.to_values(self)[0]

    async def tolist_async(self):
        """``tolist`` without blocking: ``await x.tolist_async()`` (how a browser reads when
        Python cannot wait for the GPU)."""
        flat = await _values_async(self)
        return flat[0] if not self.shape else nest(flat, self.shape)

    async def item_async(self):
        """``item`` without blocking: ``await x.item_async()``."""
        if self.size != 1:
            raise ValueError(f"Tensor.item_async: only a tensor with exactly one element can be "
                             f"converted to a Python scalar, this one has shape {self.shape}")
        return (await _values_async(self))[0]

    def tobytes(self) -> bytes:
        """The raw bytes in C order, exactly as NumPy lays out this dtype."""
        return self._backend.to_bytes(self)

    def numpy(self):
        """A NumPy array with the same values (bfloat16 needs ``ml_dtypes``; else float32)."""
        from ._numpy_interop import to_numpy

        return to_numpy(self)

    def __array__(self, dtype=None, copy=None):
        from ._numpy_interop import to_numpy

        if copy is False:  # NumPy 2 protocol: copy=False must not copy; ours always does
            raise ValueError("Tensor.__array__: copy=False is impossible; a tensor's values are "
                             "always copied into a new NumPy array (use np.asarray(x))")
        arr = to_numpy(self)
        return arr if dtype is None else arr.astype(dtype, copy=False)

    # -- Python protocol -------------------------------------------------------------------------
    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor; use .item() to get its value")
        return self.shape[0]

    def __iter__(self):
        # Not a generator itself: iter() of a 0-d tensor must raise at once, as in NumPy.
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor; use .item() to get its value")
        return (self[i] for i in range(self.shape[0]))

    def _scalar(self, convert, what: str):
        if self.size != 1:
            raise TypeError(f"{what}() of a tensor with shape {self.shape} is ambiguous; only "
                            f"single-element tensors convert. Use wt.any / wt.all for truth "
                            f"tests of many elements")
        return convert(self.item())

    def __bool__(self) -> bool:
        return self._scalar(bool, "bool")

    def __int__(self) -> int:
        if self.dtype.kind == "c":
            raise TypeError("int() of a complex tensor; take wt.real(x) first")
        return self._scalar(int, "int")

    def __float__(self) -> float:
        if self.dtype.kind == "c":
            raise TypeError("float() of a complex tensor; take wt.real(x) or wt.abs(x) first")
        return self._scalar(float, "float")

    def __complex__(self) -> complex:
        return self._scalar(complex, "complex")

    def __index__(self) -> int:
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer tensors can be used as an index, this one is "
                            f"{self.dtype.name}; cast with x.astype(wt.int64)")
        if self.size != 1:
            raise TypeError(f"index(): only a one-element integer tensor can be used as a Python "
                            f"index or count, this one has shape {self.shape}")
        return self._scalar(int, "index")

    def __hash__(self):
        raise TypeError("unhashable type: 'Tensor' (tensors compare elementwise)")

    # -- pickles (copies: ``_methods.py``): bytes + geometry + the device's name ----------------
    def __reduce__(self):
        # unpickled on the device of that name where it exists, else on the cpu
        return (_unpickle, (self.tobytes(), self.shape, self.dtype.name, self.device.name,
                            self.weak, self.names))

    def __repr__(self) -> str:
        if isinstance(self._data, TracedBuffer):
            return traced_repr(self)
        from ._format import tensor_repr

        return tensor_repr(self)

    def __str__(self) -> str:
        if isinstance(self._data, TracedBuffer):
            return traced_repr(self)
        from ._format import tensor_str

        return tensor_str(self)

    def __format__(self, spec: str) -> str:
        if spec and self.size == 1:
            return format(self.item(), spec)
        return str(self) if not spec else format(str(self), spec)


def _unpickle(data: bytes, shape, dtype_name: str, device_name: str, weak, names) -> Tensor:
    from . import _warnings
    from .device import as_device, cpu
    from .dtypes import dtype

    try:
        device = as_device(device_name, "unpickle")
    except ValueError:
        _warnings.warn(f"webtensor: a tensor pickled on the {device_name!r} device is "
                       f"unpickled on the cpu device (no {device_name!r} device here)")
        device = cpu
    dt = dtype(dtype_name)
    return Tensor._wrap(device.backend.from_bytes(dt, data), tuple(shape), dt, device,
                        weak=weak, names=names)


async def _values_async(t: Tensor) -> list:
    """The values of ``t`` in C order, awaiting the device's read when it has an async one."""
    read = getattr(t._backend, "to_bytes_async", None)
    if read is None:
        return t._backend.to_values(t)
    from .device import cpu

    data = await read(t)
    host = Tensor._wrap(cpu.backend.from_bytes(t.dtype, data), (t.size,), t.dtype, cpu)
    return cpu.backend.to_values(host)


def nest(flat: list, shape) -> list:
    """A flat C-ordered list as nested lists of ``shape`` (at least 1-D)."""
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    if step == 0:
        inner = shape[1:]
        return [nest([], inner) for _ in range(shape[0])]
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


# -- helpers shared by the API modules ------------------------------------------------------------

def empty(shape, dtype: DType, device: Device, *, weak=False, names=None,
          fn: str = "empty") -> Tensor:
    """A new contiguous tensor with unspecified contents (internal)."""
    if len(shape) > _s.MAX_NDIM:
        _s.check_ndim(len(shape), fn)
    data = device.backend.alloc(dtype, _s.check_size(shape, dtype.itemsize, fn))
    return Tensor._wrap(data, shape, dtype, device, weak=weak, names=names)


def from_values(values: list, shape, dtype: DType, device: Device, *, weak=False,
                names=None) -> Tensor:
    data = device.backend.from_values(dtype, values)
    return Tensor._wrap(data, shape, dtype, device, weak=weak, names=names)


def scalar(value, dtype: DType, device: Device, weak=False) -> Tensor:
    return from_values([value], (), dtype, device, weak=weak)


def constant(value, dtype: DType, device: Device, weak=False) -> Tensor:
    """``scalar`` for an internal, read-only operand (see ``Backend.constant``)."""
    return Tensor._wrap(device.backend.constant(dtype, value), (), dtype, device, weak=weak)


def contiguous(x: Tensor) -> Tensor:
    """``x`` itself if it is a dense C-ordered buffer, else a materialized copy."""
    if x.offset == 0 and x.is_contiguous:
        return x
    out = empty(x.shape, x.dtype, x.device, weak=x.weak, names=x.names)
    x._backend.copy(out, x)
    return out


def broadcast_view(x: Tensor, shape) -> Tensor:
    """``x`` seen with ``shape`` (stride 0 along stretched dims); no copy."""
    if x.shape == shape:
        return x
    strides = _s.broadcast_strides(x.shape, x.strides, shape)
    names = None
    if x.names is not None:
        names = (None,) * (len(shape) - x.ndim) + x.names
    view = x._view(shape, strides, x.offset, names=names)
    # stretched dims alias one element many times: like NumPy's broadcast_to, read-only
    if any(s == 0 and n > 1 for n, s in zip(shape, strides)):
        view._readonly = True
    return view


def cast(x: Tensor, dtype: DType, weak=None) -> Tensor:
    """``x`` converted to ``dtype`` (the same tensor when nothing changes)."""
    weak = x.weak if weak is None else weak
    if x.dtype is dtype:
        if x.weak == weak:
            return x
        return Tensor._wrap(x._data, x.shape, dtype, x.device, strides=x.strides,
                            offset=x.offset, weak=weak, names=x.names)
    out = empty(x.shape, dtype, x.device, weak=weak, names=x.names)
    x._backend.cast(out, x)
    return out

