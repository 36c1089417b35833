"""Conversion between Tensors and NumPy arrays (only imported when NumPy is used)."""

from __future__ import annotations

from . import dtypes as _d
from .tensor import Tensor


def _np():
    try:
        import numpy
    except ImportError:
        raise ImportError("this needs NumPy, which is not installed; pip install numpy") \
            from None
    return numpy


def _bfloat16_numpy_type():
    try:
        import ml_dtypes
    except ImportError:
        return None
    return ml_dtypes.bfloat16


def to_numpy(t: Tensor):
    """A NumPy array with ``t``'s values.  bfloat16 becomes ml_dtypes.bfloat16 when that
    package is installed, float32 otherwise (exact: every bfloat16 is a float32)."""
    np = _np()
    raw = t.tobytes()
    if t.dtype is _d.bfloat16:
        bits = np.frombuffer(raw, dtype=np.uint16).reshape(t.shape)
        bf16 = _bfloat16_numpy_type()
        if bf16 is not None:
            return bits.view(bf16).copy()
        wide = bits.astype(np.uint32)
        wide <<= 16  # in place: `<<` on a 0-d array would return a NumPy scalar
        return wide.view(np.float32)
    return np.frombuffer(raw, dtype=np.dtype(t.dtype.name)).reshape(t.shape).copy()


def from_numpy(arr, device) -> Tensor:
    np = _np()
    arr = np.asarray(arr)
    dt = _d.dtype(arr.dtype) if arr.dtype.name in _d._BY_NAME else None
    if dt is None:
        raise TypeError(f"wt.asarray: NumPy dtype {arr.dtype} has no webtensor equivalent; "
                        f"convert it first, e.g. arr.astype(np.float32)")
    data = np.ascontiguousarray(arr)
    if data.dtype.byteorder == ">":
        data = data.astype(data.dtype.newbyteorder("<"))
    buf = device.backend.from_bytes(dt, data.tobytes())
    return Tensor._wrap(buf, tuple(arr.shape), dt, device)
