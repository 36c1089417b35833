"""``tf.experimental``: TF-NumPy as ``tf.experimental.numpy`` (``import
webtensor.tf.experimental.numpy as tnp``)."""

from . import numpy

__all__ = ["numpy"]
