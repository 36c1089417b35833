"""``webtensor.symbolic.config``: the settings PyTensor's tensor module reads.

Only ``floatX`` changes meaning here: it is the dtype of the untyped constructors
(``at.matrix()``), of ``zeros``/``ones``/``eye`` without a dtype, of integer true division, and
of Python floats in expressions when it is narrower than float64 (PyTensor's ``cast_policy``
'custom').  ``change_flags`` sets it for a ``with`` block, as ``pytensor.config.change_flags``.
"""

from __future__ import annotations

import contextlib

_FLOATX = ("float64", "float32", "float16")


class Config:
    """The symbolic front end's settings (one instance: ``config``)."""

    def __init__(self):
        self._floatX = "float64"

    @property
    def floatX(self) -> str:  # noqa: N802 - PyTensor's spelling
        return self._floatX

    @floatX.setter
    def floatX(self, value) -> None:  # noqa: N802
        name = str(value)
        if name not in _FLOATX:
            raise ValueError(f"config.floatX must be one of {', '.join(_FLOATX)}, got {value!r}")
        self._floatX = name

    @contextlib.contextmanager
    def change_flags(self, **flags):
        """``with config.change_flags(floatX="float32"):`` sets flags for the block."""
        saved = {}
        for key, value in flags.items():
            if key != "floatX":
                raise ValueError(f"config.change_flags: unknown flag {key!r}; the symbolic "
                                 f"front end has only floatX")
            saved[key] = getattr(self, key)
            setattr(self, key, value)
        try:
            yield self
        finally:
            for key, value in saved.items():
                setattr(self, key, value)

    def __repr__(self) -> str:
        return f"<webtensor.symbolic.config floatX={self._floatX!r}>"


config = Config()
