"""A heatmap's view of a tensor in one dispatch (``shaders/block_summary.wgsl``): block means
of every slice plus the finite min / max and "anything not finite", read back in one transfer.

``WebGPUBackend.summarize_blocks`` calls ``summarize``; the heatmap code falls back to ordinary
ops on devices without it (and for complex and float64 data here).
"""

from __future__ import annotations

import struct
from array import array
from functools import lru_cache
from string import Template

from . import exprs, kernels
from .kernels import STORAGE, STORAGE_OF, Kernel, Params


@lru_cache(maxsize=32)
def summary_kernel(storage: str) -> Kernel:
    convert = exprs.cast(storage, "f32")
    head, uniform = _header()
    text = Template(kernels.source("block_summary")).substitute(
        header=head, wg=kernels.WORKGROUP, storage=storage,
        load=STORAGE[storage].load.format(buf="in0", idx="at"), convert=convert)
    return Kernel(kernels.with_libraries(text), 1, 1, uniform)


def _header():
    vec4s = kernels.uniform_vec4s(14)
    text = "\n".join([
        f"@group(0) @binding(0) var<uniform> P: array<vec4<u32>, {vec4s}>;",
        "@group(0) @binding(1) var<storage, read> in0: array<u32>;",
        "@group(0) @binding(2) var<storage, read_write> out0: array<atomic<u32>>;",
    ]) + "\n\n" + kernels.source("params")
    return text, vec4s * 16


def _from_key(key: int) -> float:
    bits = key ^ 0x80000000 if key & 0x80000000 else ~key & 0xFFFFFFFF
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def summarize(backend, x, sy: int, sx: int):
    """(finite min | None, finite max | None, all finite, cells as float32 array) of the 3-D
    view ``x`` (slices, rows, columns), or None when its dtype has no float32 conversion here."""
    storage = STORAGE_OF.get(x.dtype)
    if storage is None or storage == "c64" or exprs.cast(storage, "f32") is None \
            or not backend.fits(x):
        return None
    s, h0, w0 = x.shape
    hq, wq = -(-h0 // sy), -(-w0 // sx)
    cells = s * hq * wq
    out = backend.allocate(4 * (4 + cells))
    backend.write(out, 0, struct.pack("<4I", 0xFFFFFFFF, 0, 0, 0))
    params = Params(cells, cells)
    params.add(hq, wq, sy, sx, h0, w0, x.offset, *x.strides)
    backend.launch_threads(summary_kernel(storage), [x._data, out], params, cells)
    raw = backend.read(out, 0, 4 * (4 + cells))
    lo, hi, bad, _ = struct.unpack_from("<4I", raw)
    values = array("f", raw[16:])
    if struct.pack("=I", 1) != struct.pack("<I", 1):  # big-endian hosts: the bytes are LE
        values.byteswap()
    if hi == 0:  # nothing finite
        return None, None, not bad, values
    return _from_key(lo), _from_key(hi), not bad, values
