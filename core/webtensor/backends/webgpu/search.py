"""Native ``searchsorted`` for the WebGPU backend (``WebGPUBackend.search_sorted``).

One invocation per value runs the whole binary search (``shaders/search_sorted.wgsl``) with
the elementwise ``less`` of the value's storage (``exprs``), so every dtype with a native
comparison orders exactly as ``wt.less`` does on this device (subnormals compared on bits);
NaN sorts last.  The frontend's generic search (``api/searching.py``) runs four passes over
all values per halving (add, gather, compare, where): 1M values into 1K sorted ones took
about 40 kernels and 674 ms on lavapipe, here one kernel and 60 ms.
"""

from __future__ import annotations

from functools import lru_cache
from string import Template

from ... import dtypes as _d
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
    head, uniform = header(["u32", "u32"], ["u32"], 4 + ndim + ndim + 1 + 3)
    load = STORAGE[storage].load
    text = Template(kernels.source("search_sorted")).substitute(
        header=head, wg=kernels.WORKGROUP, type=STORAGE[storage].wgsl_type, less=less,
        isnan=isnan, a_slot=4 + ndim + ndim + 1, load_a=load.format(buf="in0", idx="e"),
        load_x=load.format(buf="in1", idx=index),
        goes_before="!sorts_before(x, a)" if right else "sorts_before(a, x)",
        functions="\n\n".join(functions.values()))
    return Kernel(kernels.with_libraries(text), 2, 1, uniform)


def search_sorted(backend, out, a, values, right: bool) -> bool | None:
    """``out`` (fresh int64, ``values``' shape) = insertion positions of ``values`` in the
    sorted 1-D ``a`` (same dtype, non-empty); None where the dtype has no native kernel."""
    storage = STORAGE_OF.get(a.dtype)
    if storage is None or out.dtype is not _d.int64 or not backend.fresh(out):
        return None
    if not backend.fits(out, a, values):
        return None
    shape, (strides,) = kernels.collapse(values.shape, [values.strides])
    kernel = search_sorted_kernel(storage, right, kernels.index_mode(shape, strides), len(shape))
    if kernel is None:
        return None
    if out.size:
        threads = -(-out.size // 4)
        params = Params(out.size, threads, shape, [(values.offset, strides)])
        params.add(a.shape[0], a.offset, a.strides[0])
        backend.launch_threads(kernel, [a._data, values._data, out._data], params, threads)
    return True
