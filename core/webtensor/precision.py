"""How exactly float sums and matrix products are computed: ``"exact"`` (the default) or
``"fast"``.

``exact``: the CPU device sums floats left to right in float64 (and matmul's products in the
same order, at BLAS speed where the result provably rounds the same), so the NumPy and
pure-Python backends give identical bits, and the webgpu device stays within the documented
bounds of them (docs/numerics.md).  ``fast``: the NumPy backend uses NumPy's own pairwise sums
and BLAS matrix products in the tensors' dtype, as NumPy does: much faster for small and large
arrays, accurate to NumPy's error bounds, but the bits may differ between backends and from
run to run of a different BLAS; the webgpu device evaluates float32 transcendentals with WGSL's
built-ins (hardware on GPUs; accuracy and special values the adapter's).  The pure-Python
backend computes as in ``exact``.

    wt.set_precision("fast")            # everywhere, from now on
    with wt.set_precision("fast"):      # only this block (this thread or task)
        ...
"""

from __future__ import annotations

from ._settings import Setting

MODES = ("exact", "fast")
_PRECISION = Setting("precision", "exact")


def set_precision(mode: str):
    """Choose ``"exact"`` or ``"fast"`` float sums and matrix products (see the module doc)."""
    if not isinstance(mode, str) or mode not in MODES:
        error = ValueError if isinstance(mode, str) else TypeError
        raise error(f"wt.set_precision: mode must be 'exact' or 'fast', got {mode!r}")
    return _PRECISION.set(mode)


def get_precision() -> str:
    return _PRECISION.get()


def fast() -> bool:
    """The backends' question: may float sums and products take the fast path?"""
    return _PRECISION.get() == "fast"
