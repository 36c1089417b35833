"""TensorFlow's error classes that webtensor.tf raises (``wt.tf.errors.InvalidArgumentError``).

They subclass the Python exception a NumPy user would expect, so ``except ValueError`` works too.
"""

from __future__ import annotations

__all__ = ["InvalidArgumentError", "OpError", "UnimplementedError"]


class OpError(Exception):
    """Base of TensorFlow-style errors: carries the op's name."""

    def __init__(self, op: str, message: str):
        super().__init__(f"{op}: {message}")
        self.op = op
        self.message = message


class InvalidArgumentError(OpError, ValueError):
    """An argument has a valid type but an invalid value (TensorFlow's InvalidArgumentError)."""


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented for these arguments (TensorFlow's UnimplementedError)."""
