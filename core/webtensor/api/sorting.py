"""Sorting functions (Array API chapter): ``sort`` and ``argsort`` over the backend's stable
``sort``/``argsort`` primitives.

Order: ascending with NaN last; ``descending=True`` is the stable descending order with NaN
first (the primitive's contract, like NumPy's ``flip(sort(x))`` for values).  Complex tensors
sort lexicographically (real part, then imaginary part), as NumPy does, composed from two
stable argsorts of real tensors.  Sorting is always stable, so ``stable=False`` gives the same
result.  Nothing here reads back to the host.
"""

from __future__ import annotations

from .. import dtypes as _d
from ..tensor import Tensor, empty
from . import _reduce as _r
from ._common import as_tensor, axis_index, check_kind

__all__ = ["sort", "argsort"]

_SORTABLE = "biufc"


def _primitive(name: str, x: Tensor, axis: int, descending: bool) -> Tensor:
    out_dtype = x.dtype if name == "sort" else _d.int64
    out = empty(x.shape, out_dtype, x.device, weak=x.weak and name == "sort", names=x.names)
    if out.size:
        getattr(x._backend, name)(out, x, axis, descending)
    return out


def _complex_argsort(x: Tensor, axis: int, descending: bool) -> Tensor:
    """Lexicographic (real, imag) order: sort by imag, then stably by real."""
    from . import elementwise as ew

    by_imag = _primitive("argsort", ew.imag(x), axis, descending)
    real_then = _r.gather(ew.real(x), axis, by_imag)
    by_real = _primitive("argsort", real_then, axis, descending)
    return _r.gather(by_imag, axis, by_real)


def argsort_along(x: Tensor, axis: int, descending: bool = False) -> Tensor:
    """Stable argsort (int64) of a tensor along a normalized or negative ``axis``."""
    axis %= x.ndim
    if x.dtype.kind == "c":
        return _complex_argsort(x, axis, descending)
    return _primitive("argsort", x, axis, descending)


def sort_along(x: Tensor, axis: int, descending: bool = False) -> Tensor:
    """Stable sort of a tensor along a normalized or negative ``axis``."""
    axis %= x.ndim
    if x.dtype.kind == "c":
        return _r.gather(x, axis, _complex_argsort(x, axis, descending))
    return _primitive("sort", x, axis, descending)


def _prepare(x, axis, fn: str):
    """(tensor, axis); ``axis=None`` (a NumPy extra) sorts the flattened tensor."""
    x = as_tensor(x, fn)
    check_kind(x.dtype, _SORTABLE, fn)
    if axis is None:
        return _r.flatten(x), 0
    if x.ndim == 0:
        raise ValueError(f"wt.{fn}: cannot sort a 0-d tensor along axis {axis}; reshape it to "
                         f"shape (1,) or pass axis=None")
    return x, axis_index(x, axis, fn)


def _check_flags(descending, stable, fn: str) -> None:
    for name, value in (("descending", descending), ("stable", stable)):
        if not isinstance(value, bool):
            raise TypeError(f"wt.{fn}: {name} must be True or False, got {value!r}")


def sort(x, /, axis=-1, *, descending: bool = False, stable: bool = True) -> Tensor:
    """Sorted copy of ``x`` along ``axis`` (an int, a negative int or an axis name; None
    flattens).  NaN sorts last (first when descending).  Always stable."""
    _check_flags(descending, stable, "sort")
    x, ax = _prepare(x, axis, "sort")
    return sort_along(x, ax, descending)


def argsort(x, /, axis=-1, *, descending: bool = False, stable: bool = True) -> Tensor:
    """Indices (int64) that sort ``x`` along ``axis``; ties keep their original order."""
    _check_flags(descending, stable, "argsort")
    x, ax = _prepare(x, axis, "argsort")
    return argsort_along(x, ax, descending)
