"""Utility functions (Array API chapter): all, any, diff; NumPy's isclose, allclose,
array_equal.

All are compositions of elementwise ops and the ``reduce`` primitive.  ``allclose`` and
``array_equal`` return a Python bool (as NumPy does), so they read one scalar back to the host.
"""

from __future__ import annotations

import builtins

from .. import dtypes as _d
from ..tensor import Tensor, cast
from . import _reduce as _r
from . import elementwise as ew
from ._common import (
    as_tensor,
    axes_tuple,
    axis_index,
    broadcast_all,
    check_kind,
    float_dtype_for,
    operand,
    promote,
)

__all__ = ["all", "any", "diff", "isclose", "allclose", "array_equal"]


def _logical_reduce(op: str, x, axis, keepdims: bool) -> Tensor:
    x = as_tensor(x, op)
    axes = axes_tuple(x, axis, op)
    return _r.reduce(op, cast(x, _d.bool, weak=False), axes, keepdims)


def all(x, /, axis=None, *, keepdims: bool = False) -> Tensor:  # noqa: A001
    """True where every element along ``axis`` is nonzero (NaN counts as nonzero); True for an
    empty reduction."""
    return _logical_reduce("all", x, axis, keepdims)


def any(x, /, axis=None, *, keepdims: bool = False) -> Tensor:  # noqa: A001
    """True where some element along ``axis`` is nonzero; False for an empty reduction."""
    return _logical_reduce("any", x, axis, keepdims)


# -- diff -------------------------------------------------------------------------------------------

def _edge(value, x: Tensor, axis: int, dtype, weak: bool, fn: str) -> Tensor:
    """``prepend``/``append`` as a tensor to concatenate along ``axis``: a scalar (or 0-d)
    becomes a slab of length 1; anything else must match ``x`` off ``axis``."""
    t = cast(operand(value, dtype, x.device, weak), dtype, weak=weak)
    if t.ndim == 0:
        shape = list(x.shape)
        shape[axis] = 1
        return _r.broadcast_to(t, tuple(shape))
    if t.ndim != x.ndim or _mismatch(t.shape, x.shape, axis):
        raise ValueError(f"wt.{fn}: prepend/append of shape {t.shape} does not match x's shape "
                         f"{x.shape} except along axis {axis}; give a scalar or a matching "
                         f"tensor")
    return t


def _mismatch(a, b, axis: int) -> bool:
    return builtins.any(m != n for i, (m, n) in enumerate(zip(a, b)) if i != axis)


def _difference(x: Tensor, axis: int) -> Tensor:
    """``x[1:] - x[:-1]`` along ``axis`` (``!=`` for bool, as NumPy does)."""
    n = x.shape[axis]
    hi = _r.slice_axis(x, axis, 1, n)
    lo = _r.slice_axis(x, axis, 0, n - 1)
    out = ew.not_equal(hi, lo) if x.dtype is _d.bool else ew.subtract(hi, lo)
    return cast(out, x.dtype, weak=x.weak)


def diff(x, /, *, axis=-1, n: int = 1, prepend=None, append=None) -> Tensor:
    """The ``n``-th discrete difference along ``axis``; ``prepend``/``append`` (scalars or
    tensors) are joined to ``x`` along ``axis`` first."""
    fn = "diff"
    x = as_tensor(x, fn)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"wt.{fn}: n must be a non-negative int, got {n!r}")
    if x.ndim == 0:
        raise ValueError(f"wt.{fn}: needs a tensor with at least one dimension, got a 0-d "
                         f"tensor")
    ax = axis_index(x, axis, fn)
    if prepend is not None or append is not None:
        x, prepend, append = _r.same_device((x, prepend, append), fn)
        dt, weak, _, _ = promote([x] + [v for v in (prepend, append) if v is not None], fn)
        parts = [cast(x, dt, weak=weak)]
        if prepend is not None:
            parts.insert(0, _edge(prepend, x, ax, dt, weak, fn))
        if append is not None:
            parts.append(_edge(append, x, ax, dt, weak, fn))
        x = _r.concat(parts, ax)
    for _ in range(n):
        if x.shape[ax] == 0:
            break
        x = _difference(x, ax)
    return x


# -- closeness --------------------------------------------------------------------------------------

def isclose(a, b, /, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """NumPy's isclose: ``|a - b| <= atol + rtol * |b|`` (not symmetric), infinities equal
    only to themselves, NaN equal to NaN only with ``equal_nan``."""
    fn = "isclose"
    dt, _, device, (a, b) = promote(_r.same_device((a, b), fn), fn)
    check_kind(dt, "biufc", fn)
    compute = float_dtype_for(dt)
    x = a if isinstance(a, Tensor) else _r.full((), a, compute, device)
    y = b if isinstance(b, Tensor) else _r.full((), b, compute, device)
    (x, y), _, _ = broadcast_all((cast(x, compute), cast(y, compute)), fn)
    tolerance = ew.add(ew.multiply(ew.abs(y), rtol), atol)
    close = ew.logical_and(ew.less_equal(ew.abs(ew.subtract(x, y)), tolerance), ew.isfinite(y))
    close = ew.logical_or(close, ew.equal(x, y))
    if equal_nan:
        close = ew.logical_or(close, ew.logical_and(ew.isnan(x), ew.isnan(y)))
    return close


def allclose(a, b, /, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True if ``isclose`` holds everywhere (a Python bool)."""
    close = isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return bool(_r.reduce("all", close, tuple(range(close.ndim)), False).item())


def array_equal(a1, a2, /, equal_nan: bool = False) -> bool:
    """True if both have the same shape and equal elements (a Python bool)."""
    fn = "array_equal"
    _, _, _, (a1, a2) = promote(_r.same_device((a1, a2), fn), fn)
    s1 = a1.shape if isinstance(a1, Tensor) else ()
    s2 = a2.shape if isinstance(a2, Tensor) else ()
    if s1 != s2:
        return False
    same = ew.equal(a1, a2)
    if equal_nan:
        same = ew.logical_or(same, ew.logical_and(ew.isnan(a1), ew.isnan(a2)))
    return bool(_r.reduce("all", same, tuple(range(same.ndim)), False).item())
