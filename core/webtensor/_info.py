"""The Array API inspection namespace: ``wt.__array_namespace_info__()``."""

from __future__ import annotations

from . import device as _device
from . import dtypes as _d
from . import shape as _s

# The dtypes the Array API defines (not float16, bfloat16), in webtensor's order.
ARRAY_API_DTYPES = tuple(dt for dt in _d.all_dtypes if dt not in (_d.float16, _d.bfloat16))
_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric")


class Info:
    """What this namespace supports, per the Array API 2024.12 inspection functions."""

    __module__ = "webtensor"

    def capabilities(self) -> dict:
        return {
            "boolean indexing": True,  # results have data-dependent shapes
            "data-dependent shapes": True,  # nonzero, unique_*, boolean masks
            "max dimensions": _s.MAX_NDIM,  # every device, as NumPy 2
        }

    def default_device(self):
        return _device.default_device()

    def devices(self) -> list:
        return _device.devices()

    def default_dtypes(self, *, device=None) -> dict:
        _device.as_device(device, "__array_namespace_info__().default_dtypes")
        return {
            "real floating": _d.default_float_dtype(),
            "complex floating": _d.default_complex_dtype(),
            "integral": _d.default_int_dtype(),
            "indexing": _d.int64,
        }

    def dtypes(self, *, device=None, kind=None) -> dict:
        """Name -> dtype of the Array API's dtypes that ``device`` supports (all 13 on every
        device), filtered by ``kind`` (a kind name or a tuple of them).  float16 and bfloat16
        are webtensor's too, but the standard says to list only its own dtypes
        (``wt.valid_dtypes_for`` lists all 15)."""
        fn = "__array_namespace_info__().dtypes"
        dev = _device.as_device(device, fn)
        if kind is not None:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            for k in kinds:
                if not isinstance(k, str):
                    raise TypeError(f"{fn}: kind must be a kind name or a tuple of them, got "
                                    f"{k!r}; use one of {', '.join(map(repr, _KINDS))}")
                if k not in _KINDS:
                    raise ValueError(f"{fn}: unknown kind {k!r}; use one of "
                                     f"{', '.join(map(repr, _KINDS))}")
        from .dtype_support import valid_dtypes_for

        valid = valid_dtypes_for(dev)
        return {dt.name: dt for dt in ARRAY_API_DTYPES
                if dt in valid and (kind is None or _d.isdtype(dt, kind))}


def __array_namespace_info__() -> Info:
    return Info()
