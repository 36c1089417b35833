"""Native searching for the WebGPU backend: ``searchsorted`` (``WebGPUBackend.search_sorted``)
and the positions of a mask's true elements (``WebGPUBackend.flat_nonzero``).

Each invocation runs four values' whole binary searches (``shaders/search_sorted.wgsl``) with
the elementwise ``less`` of the value's storage (``exprs``), so every dtype with a native
comparison orders exactly as ``wt.less`` does on this device (subnormals compared on bits);
NaN sorts last.  The frontend's generic search (``api/searching.py``) runs four passes over
all values per halving (add, gather, compare, where): 1M values into 1K sorted ones took
about 40 kernels and 674 ms on lavapipe, here one kernel and 60 ms.

``flat_nonzero`` compacts (``shaders/nonzero.wgsl``): a pass counts the true elements of
every sixteen bools (a population count per mask word), the scan primitive ranks those
counts, the last rank (the total, read back) sizes the result, and a second pass writes each
true element's index at its rank.  The frontend's generic form counts with a reduction and
sorts the mask (a stable argsort of ``not mask``).
"""

from __future__ import annotations

import math
import struct
from functools import lru_cache
from string import Template

from ... import dtypes as _d
from ...tensor import Tensor
from . import exprs, kernels
from .kernels import STORAGE, STORAGE_OF, Kernel, Params
from .matmul import header


@lru_cache(maxsize=64)
def search_sorted_kernel(storage: str, right: bool, mode, ndim: int) -> Kernel | None:
    """The kernel for values of ``storage`` (None where it has no native comparison), side
    right or left, values indexed by ``kernels.index_mode`` ``mode`` over ``ndim`` dims."""
    less, isnan = exprs.binary("less", storage), exprs.unary("isnan", storage)
    if less is None or isnan is None:
        return None
    functions: dict[str, str] = {}
    index = kernels.index_expr(mode, 0, ndim, "i", functions=functions)
    a_slot = 4 + ndim + (ndim + 1)  # after the common block and the values' operand
    head, uniform = header(["u32", "u32"], ["u32"], a_slot + 3)
    load = STORAGE[storage].load
    text = Template(kernels.source("search_sorted")).substitute(
        header=head, wg=kernels.WORKGROUP, type=STORAGE[storage].wgsl_type, less=less,
        isnan=isnan, a_slot=a_slot, load_a=load.format(buf="in0", idx="e"),
        load_x=load.format(buf="in1", idx=index),
        goes_before="!sorts_before(x, a)" if right else "sorts_before(a, x)",
        functions="\n\n".join(functions.values()))
    return Kernel(kernels.with_libraries(text), 2, 1, uniform)


def search_sorted(backend, a, values, right: bool) -> Tensor | None:
    """The insertion positions (int64, ``values``' shape) of ``values`` in the sorted 1-D
    ``a`` (same dtype, non-empty); None where the dtype has no native kernel or a tensor is
    too big for one binding."""
    storage = STORAGE_OF.get(a.dtype)
    if storage is None or not backend.fits(a, values):
        return None
    shape, (strides,) = kernels.collapse(values.shape, [values.strides])
    kernel = search_sorted_kernel(storage, right, kernels.index_mode(shape, strides), len(shape))
    if kernel is None:
        return None
    out = _tensor(backend, _d.int64, values.shape, a.device)
    if not backend.fits(out):
        return None
    if out.size:
        threads = -(-out.size // 4)
        params = Params(out.size, threads, shape, [(values.offset, strides)])
        params.add(a.shape[0], a.offset, a.strides[0])
        backend.launch_threads(kernel, [a._data, values._data, out._data], params, threads)
    return out


NONZERO_PER_INVOCATION = 16  # bools: four mask words

_NONZERO_WRITE = """    var pos = in1[t] - c;
    for (var k = 0u; k < 4u; k = k + 1u) {
        var x = bits[k];
        while (x != 0u) {
            out0[2u * pos] = 4u * (4u * t + k) + (firstTrailingBit(x) >> 3u);
            out0[2u * pos + 1u] = 0u;
            pos = pos + 1u;
            x = x & (x - 1u);
        }
    }"""


@lru_cache(maxsize=2)
def nonzero_kernel(write: bool) -> Kernel:
    """Pass "count" (``write`` False) or "write" of ``shaders/nonzero.wgsl``."""
    inputs = ["u32", "u32"] if write else ["u32"]
    head, uniform = header(inputs, ["u32"], 4)
    text = Template(kernels.source("nonzero")).substitute(
        header=head, wg=kernels.WORKGROUP, body=_NONZERO_WRITE if write else "    out0[t] = c;")
    return Kernel(kernels.with_libraries(text), len(inputs), 1, uniform)


def flat_nonzero(backend, mask) -> Tensor | None:
    """The positions (int64, in order) of the true elements of the 1-D bool ``mask``; None
    where ``mask`` is too big for one binding."""
    if mask.dtype is not _d.bool or not backend.fits(mask):
        return None
    n = mask.shape[0]
    if n == 0:
        return _tensor(backend, _d.int64, (0,), mask.device)
    if not backend.fresh(mask):
        mask = backend.materialize(mask)
    threads = -(-n // NONZERO_PER_INVOCATION)
    params = Params(n, threads)
    counts = _tensor(backend, _d.int32, (threads,), mask.device)
    starts = _tensor(backend, _d.int32, (threads,), mask.device)
    backend.launch_threads(nonzero_kernel(False), [mask._data, counts._data], params, threads)
    backend.scan("sum", starts, counts, 0)
    (total,) = struct.unpack("<i", backend.read(starts._data, 4 * (threads - 1), 4))
    out = _tensor(backend, _d.int64, (total,), mask.device)
    if total:
        backend.launch_threads(nonzero_kernel(True), [mask._data, starts._data, out._data],
                               params, threads)
    return out


def _tensor(backend, dtype, shape: tuple, device) -> Tensor:
    """A new C-contiguous tensor on this backend (the caller fills it)."""
    return Tensor._wrap(backend.alloc(dtype, math.prod(shape)), tuple(shape), dtype, device)
