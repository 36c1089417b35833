"""Array API data type functions that need tensors (the rest live in ``webtensor.dtypes``)."""

from __future__ import annotations

from .. import dtypes as _d
from ..device import as_device
from ..tensor import Tensor, cast
from ._common import as_tensor

__all__ = ["astype"]


def astype(x, dtype, /, *, copy: bool = True, device=None, casting: str = "unsafe") -> Tensor:
    """``x`` converted to ``dtype`` (Array API).  The result is strong (not weak).

    ``casting`` ("unsafe" by default, as in NumPy) refuses conversions that ``wt.can_cast``
    does not allow, with a TypeError naming both dtypes.  ``copy=False`` returns ``x`` itself
    when nothing changes.
    """
    x = as_tensor(x, "astype")
    dt = _d.dtype(dtype)
    if not _d.can_cast(x.dtype, dt, casting):
        raise TypeError(f"wt.astype: cannot cast {x.dtype.name} to {dt.name} with "
                        f"casting={casting!r}; use casting='unsafe' (the default) to allow it")
    if device is not None and as_device(device, "astype") is not x.device:
        x = x.to_device(device)
    if dt is x.dtype and not copy:
        return x if not x.weak else cast(x, dt, weak=False)
    if dt is x.dtype:
        from .creation import asarray

        out = asarray(x, copy=True)
        return cast(out, dt, weak=False)
    return cast(x, dt, weak=False)
