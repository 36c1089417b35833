"""``tf.math``: TensorFlow's math ops (``tf.math.add``, ``tf.math.log1p``, ``tf.math.top_k``
...).  The same functions as the top-level aliases (``tf.add``), here under their ``tf.math``
names; errors name ``tf.math.<op>``.  See ``docs/tf.md``."""

from .. import _validate
from . import _math_ops

__all__ = list(_math_ops.__all__)
for _name in __all__:
    globals()[_name] = _validate.checked(getattr(_math_ops, _name), "tf.math." + _name,
                                         "tf.math." + _name)
del _name
