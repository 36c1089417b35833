"""Nx's conversions: binaries, flat lists, numbers, batches, ``.npy``/``.npz`` files and a
serialization format of its own.

``serialize`` writes webtensor's format, versioned and documented in ``docs/nx.md``
("Serialization format"): a header (``b"WTNX"``, format version, compression flag) and then one
tree of nodes (tensors with their type, shape, names and little-endian bytes; tuples, lists and
maps of nodes), zlib-compressed when asked.  It reads back on any device; it is not Erlang's
term format, so it does not exchange files with Elixir's Nx.
"""

from __future__ import annotations

import ast
import io
import math
import struct
import sys
import zipfile
import zlib

from .. import dtypes as _d
from ..api import _reduce as _r
from ..tensor import Tensor
from ._backend import TEMPLATE, data_state
from ._core import (
    check_concrete,
    check_names,
    device_of,
    fail,
    is_number,
    nx_function,
    parse_type,
    strong,
    to_tensor,
)

__all__ = ["to_binary", "from_binary", "to_flat_list", "to_number", "to_tensor", "to_batched",
           "serialize", "deserialize", "load_npy", "load_numpy_archive", "from_numpy",
           "from_numpy_archive", "to_heatmap"]

_LITTLE = sys.byteorder == "little"


def _readable(t: Tensor, fn: str) -> None:
    state = data_state(t)
    if state is not None:
        raise RuntimeError("cannot perform operations on a Nx.TemplateBackend tensor"
                           if t.device is TEMPLATE else f"nx.{fn}: the tensor has no data "
                                                        f"({state})")
    check_concrete(t, fn)


def _limited(t: Tensor, limit, fn: str) -> Tensor:
    if limit is None:
        return t
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        fail(fn, f"limit must be a non-negative integer, got {limit!r}")
    flat = _r.flatten(t)
    return _r.slice_axis(flat, 0, 0, min(limit, t.size))


def to_binary(tensor, *, limit=None) -> bytes:
    """The tensor's values as bytes in C order and this machine's byte order (little endian
    everywhere webtensor runs); ``limit`` keeps the first values only."""
    fn = "to_binary"
    t = to_tensor(tensor, fn)
    _readable(t, fn)
    return _limited(t, limit, fn).tobytes()


@nx_function
def from_binary(data, type, *, backend=None) -> Tensor:  # noqa: A002 - Nx's name
    """A 1-D tensor of ``type`` from bytes (this machine's byte order)."""
    fn = "from_binary"
    dt = parse_type(type, fn)
    raw = bytes(data)
    if dt is None or len(raw) % dt.itemsize:
        fail(fn, "binary does not match the given size")
    dev = device_of(backend, fn)
    return Tensor._wrap(dev.backend.from_bytes(dt, raw), (len(raw) // dt.itemsize,), dt, dev)


def _atom(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("infinity" if v > 0 else "neg_infinity")
    return v


def to_flat_list(tensor, *, limit=None) -> list:
    """The values in C order; non-finite floats as Nx's atoms ``"nan"``, ``"infinity"``,
    ``"neg_infinity"``."""
    fn = "to_flat_list"
    t = to_tensor(tensor, fn)
    _readable(t, fn)
    t = _limited(t, limit, fn)
    return [_atom(v) for v in t._backend.to_values(t)]


def to_number(tensor):
    """The value of a scalar tensor as a Python number (non-finite floats as atoms)."""
    fn = "to_number"
    if is_number(tensor) and not isinstance(tensor, str):
        return tensor
    t = to_tensor(tensor, fn)
    if t.shape != ():
        fail(fn, f"cannot convert tensor of shape {t.shape} to number")
    _readable(t, fn)
    return _atom(t._backend.to_values(t)[0])


def to_heatmap(tensor, **options):
    """The tensor as a heatmap (``wt.to_heatmap``)."""
    from .._heatmap import to_heatmap as heatmap

    return heatmap(to_tensor(tensor, "to_heatmap"), **options)


def to_batched(tensor, batch_size, *, leftover="repeat"):
    """An iterator over batches of ``batch_size`` along the first axis; an uneven end is
    completed from the start (``leftover="repeat"``) or dropped (``"discard"``)."""
    fn = "to_batched"
    t = to_tensor(tensor, fn)
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        fail(fn, f"batch_size must be a positive integer, got {batch_size!r}")
    if leftover not in ("repeat", "discard"):
        fail(fn, f"leftover must be \"repeat\" or \"discard\", got {leftover!r}")
    if t.ndim == 0:
        fail(fn, "cannot batch scalar tensor")
    n = t.shape[0]
    if n < batch_size:
        fail(fn, "cannot batch beyond original tensor")
    full, rest = divmod(n, batch_size)

    def batches():
        for i in range(full):
            yield strong(_copy(_r.slice_axis(t, 0, i * batch_size, (i + 1) * batch_size)))
        if rest and leftover == "repeat":
            tail = _r.slice_axis(t, 0, full * batch_size, n)
            head = _r.slice_axis(t, 0, 0, batch_size - rest)
            yield _r.concat([tail, head], 0)
    return batches()


def _copy(x: Tensor) -> Tensor:
    from ..tensor import empty

    out = empty(x.shape, x.dtype, x.device, names=x.names)
    if out.size:
        x._backend.copy(out, x)
    return out


# -- serialization ------------------------------------------------------------------------------

MAGIC = b"WTNX"
VERSION = 1
_TYPES = {dt.nx: dt for dt in _d.all_dtypes if dt is not _d.bool}


def _encode(node, out: list, fn: str) -> None:
    if is_number(node) and not isinstance(node, str):
        node = to_tensor(node, fn)
    if isinstance(node, Tensor):
        t = node if node.dtype is not _d.bool else to_tensor(node, fn)
        _readable(t, fn)
        name = t.dtype.nx.encode()
        out.append(b"T" + struct.pack("<B", len(name)) + name + struct.pack("<B", t.ndim))
        out.append(struct.pack(f"<{t.ndim}Q", *t.shape))
        for n in (t.names or (None,) * t.ndim):
            if n is None:
                out.append(struct.pack("<H", 0xFFFF))
            else:
                raw = n.encode()
                out.append(struct.pack("<H", len(raw)) + raw)
        data = t.tobytes()
        if not _LITTLE and t.dtype.itemsize > 1:  # the format is little endian
            data = _swap(data, t.dtype)
        out.append(struct.pack("<Q", len(data)) + data)
    elif isinstance(node, (tuple, list)):
        out.append((b"t" if isinstance(node, tuple) else b"l") + struct.pack("<I", len(node)))
        for x in node:
            _encode(x, out, fn)
    elif isinstance(node, dict):
        out.append(b"m" + struct.pack("<I", len(node)))
        for k, v in node.items():
            if isinstance(k, str):
                raw = k.encode()
                out.append(b"s" + struct.pack("<I", len(raw)) + raw)
            elif isinstance(k, int) and not isinstance(k, bool):
                out.append(b"i" + struct.pack("<q", k))
            else:
                fail(fn, f"map keys must be strings or integers, got {k!r}", TypeError)
            _encode(v, out, fn)
    else:
        fail(fn, f"cannot serialize {type(node).__name__}: expected a tensor, a number, or a "
                 f"tuple, list or dict of them", TypeError)


def _swap(data: bytes, dt) -> bytes:
    step = dt.itemsize if dt.kind != "c" else dt.itemsize // 2
    return b"".join(data[i:i + step][::-1] for i in range(0, len(data), step))


def serialize(tensor_or_container, *, compressed=0) -> bytes:
    """Bytes holding a tensor or a container (tuple, list, dict) of tensors, with types,
    shapes and names: read them back with ``nx.deserialize``.  ``compressed`` (0-9) is a zlib
    level (0: none)."""
    fn = "serialize"
    if not isinstance(compressed, int) or isinstance(compressed, bool) or \
            not 0 <= compressed <= 9:
        fail(fn, f"compressed must be a level from 0 (none) to 9, got {compressed!r}")
    parts: list = []
    _encode(tensor_or_container, parts, fn)
    payload = b"".join(parts)
    if compressed:
        payload = zlib.compress(payload, compressed)
    return MAGIC + struct.pack("<BB", VERSION, 1 if compressed else 0) + payload


class _Reader:
    def __init__(self, data: bytes, fn: str):
        self.data, self.pos, self.fn = data, 0, fn

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            fail(self.fn, "the data ends too early: it is not a complete nx.serialize output")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))


def _decode(r: _Reader, dev):
    tag = r.take(1)
    if tag == b"T":
        (n,) = r.unpack("<B")
        name = r.take(n).decode()
        dt = _TYPES.get(name)
        if dt is None:
            fail(r.fn, f"unknown type {name!r} in the data")
        (rank,) = r.unpack("<B")
        shape = r.unpack(f"<{rank}Q") if rank else ()
        names = []
        for _ in range(rank):
            (length,) = r.unpack("<H")
            names.append(None if length == 0xFFFF else r.take(length).decode())
        (nbytes,) = r.unpack("<Q")
        data = r.take(nbytes)
        if nbytes != math.prod(shape) * dt.itemsize:
            fail(r.fn, "the data's byte count does not match its shape and type")
        if not _LITTLE and dt.itemsize > 1:
            data = _swap(data, dt)
        return Tensor._wrap(dev.backend.from_bytes(dt, data), tuple(shape), dt, dev,
                            names=check_names(names, rank, r.fn))
    if tag in (b"t", b"l"):
        (count,) = r.unpack("<I")
        items = [_decode(r, dev) for _ in range(count)]
        return tuple(items) if tag == b"t" else items
    if tag == b"m":
        (count,) = r.unpack("<I")
        out = {}
        for _ in range(count):
            kt = r.take(1)
            if kt == b"s":
                (length,) = r.unpack("<I")
                key = r.take(length).decode()
            elif kt == b"i":
                (key,) = r.unpack("<q")
            else:
                fail(r.fn, f"unknown map key tag {kt!r}")
            out[key] = _decode(r, dev)
        return out
    fail(r.fn, f"unknown node tag {tag!r}: the data is not an nx.serialize output")


def deserialize(data, *, backend=None):
    """The tensor or container that ``nx.serialize`` wrote (on ``backend``)."""
    fn = "deserialize"
    raw = bytes(data)
    if raw[:4] != MAGIC:
        fail(fn, "the data does not start with nx.serialize's header (b\"WTNX\")")
    if len(raw) < 6:
        fail(fn, "the data ends too early: it is not a complete nx.serialize output")
    version, compression = raw[4], raw[5]
    if version > VERSION:
        fail(fn, f"the data is in format version {version}; this webtensor reads versions up "
                 f"to {VERSION}: upgrade webtensor")
    payload = raw[6:]
    if compression:
        payload = zlib.decompress(payload)
    r = _Reader(payload, fn)
    out = _decode(r, device_of(backend, fn))
    if r.pos != len(payload):
        fail(fn, "unexpected bytes after the serialized value")
    return out


# -- .npy / .npz ------------------------------------------------------------------------------------

_NPY_TYPES = {"b1": _d.uint8, "u1": _d.uint8, "u2": _d.uint16, "u4": _d.uint32, "u8": _d.uint64,
              "i1": _d.int8, "i2": _d.int16, "i4": _d.int32, "i8": _d.int64,
              "f2": _d.float16, "f4": _d.float32, "f8": _d.float64, "c8": _d.complex64,
              "c16": _d.complex128}


def _read_npy(raw: bytes, dev, fn: str) -> Tensor:
    if raw[:6] != b"\x93NUMPY":
        fail(fn, "not a .npy file (no \\x93NUMPY magic)")
    major = raw[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", raw[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", raw[8:12])
        start = 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    descr, fortran, shape = header["descr"], header["fortran_order"], tuple(header["shape"])
    if not isinstance(descr, str):
        fail(fn, f"structured .npy arrays are not supported (descr {descr!r})")
    order, code = descr[0], descr[1:]
    dt = _NPY_TYPES.get(code)
    if dt is None:
        fail(fn, f"unsupported .npy dtype {descr!r}")
    data = raw[start + hlen:start + hlen + math.prod(shape) * dt.itemsize]
    if len(data) != math.prod(shape) * dt.itemsize:
        fail(fn, "the .npy data is shorter than its header says")
    big = order == ">" or (order == "=" and not _LITTLE)
    if big != (not _LITTLE) and dt.itemsize > 1:
        data = _swap(data, dt)
    if fortran:
        rev = tuple(reversed(shape))
        t = Tensor._wrap(dev.backend.from_bytes(dt, data), rev, dt, dev)
        t = _copy(_r.permute(t, list(reversed(range(len(shape))))))
        return t
    return Tensor._wrap(dev.backend.from_bytes(dt, data), shape, dt, dev)


def _bytes_of(source, fn: str) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if hasattr(source, "read"):
        return source.read()
    with open(source, "rb") as f:
        return f.read()


def load_npy(source, *, backend=None) -> Tensor:
    """A tensor from a ``.npy`` file (a path, a file object or its bytes); NumPy's bool
    becomes u8."""
    fn = "load_npy"
    return _read_npy(_bytes_of(source, fn), device_of(backend, fn), fn)


def load_numpy_archive(source, *, backend=None) -> list:
    """``[(name, tensor), ...]`` from a ``.npz`` archive (compressed or not)."""
    fn = "load_numpy_archive"
    dev = device_of(backend, fn)
    with zipfile.ZipFile(io.BytesIO(_bytes_of(source, fn))) as z:
        return [(name[:-4] if name.endswith(".npy") else name, _read_npy(z.read(name), dev, fn))
                for name in z.namelist()]


# Nx v0.4.0's names of the two loaders (later versions call them load_numpy!/load_numpy_archive!)
from_numpy = load_npy
from_numpy_archive = load_numpy_archive
