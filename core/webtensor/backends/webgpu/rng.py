"""Native ``random_bits`` for the WebGPU backend: Philox-4x32-10 in ``shaders/philox.wgsl``.

The stream layout is ``backends/_philox.py``'s (word ``i`` is word ``i % 4`` of block
``counter + i // 4``), so every device draws the same words for a key and counter and
``wt.random`` distributions built on them agree bit for bit.
"""

from __future__ import annotations

from functools import cache

from ... import dtypes as _d
from . import kernels
from .kernels import Kernel, Params

_M32 = 0xFFFFFFFF


@cache
def philox_kernel() -> Kernel:
    return kernels.render("philox", 0, 1, 10)


def random_bits(backend, out, key: tuple[int, int], counter: int) -> None:
    """Fill the fresh uint32 tensor ``out`` with the Philox stream of ``key`` from block
    ``counter`` (taken mod 2**128)."""
    k0, k1 = (int(w) for w in key)
    if not (0 <= k0 <= _M32 and 0 <= k1 <= _M32):
        raise ValueError(f"random_bits: key words must be ints in [0, 2**32), got {key!r}")
    n = out.size
    if n == 0:
        return
    blocks = -(-n // 4)
    counter = int(counter) & ((1 << 128) - 1)
    params = Params(n, blocks)
    params.add(k0, k1, *((counter >> (32 * i)) & _M32 for i in range(4)))
    backend.launch_threads(philox_kernel(), [out._data], params, blocks)


# -- the family's interface (backend.FAMILIES) ----------------------------------------------------

PRIMITIVES = ("random_bits",)


def supports(prim: str, op, dt) -> bool:
    return dt is _d.uint32  # the Philox stream is words


def capability(prim: str, dt) -> str:
    return "native" if supports(prim, None, dt) else "n/a"


def run(backend, prim: str, out, key, counter) -> bool:
    if not (supports(prim, None, out.dtype) and backend.native_ok(out)):
        return False
    random_bits(backend, out, key, counter)
    return True
