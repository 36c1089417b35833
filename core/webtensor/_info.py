"""The Array API inspection namespace: ``wt.__array_namespace_info__()``."""

from __future__ import annotations

from . import device as _device
from . import dtypes as _d

_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric")


class Info:
    """What this namespace supports, per the Array API 2024.12 inspection functions."""

    __module__ = "webtensor"

    def capabilities(self) -> dict:
        return {
            "boolean indexing": True,  # results have data-dependent shapes
            "data-dependent shapes": True,  # nonzero, unique_*, boolean masks
            "max dimensions": None,  # no fixed limit
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
        """Name -> dtype of every dtype on ``device`` (all 15 everywhere), filtered by kind."""
        _device.as_device(device, "__array_namespace_info__().dtypes")
        if kind is not None:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            for k in kinds:
                if isinstance(k, str) and k not in _KINDS:
                    raise ValueError(f"__array_namespace_info__().dtypes: unknown kind {k!r}; "
                                     f"use one of {', '.join(map(repr, _KINDS))}")
        return {dt.name: dt for dt in _d.all_dtypes if kind is None or _d.isdtype(dt, kind)}


def __array_namespace_info__() -> Info:
    return Info()
