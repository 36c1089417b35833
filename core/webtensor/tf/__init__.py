"""``webtensor.tf``: TensorFlow's namespace on webtensor (``import webtensor.tf as tf``).

Every function is a composition of webtensor's core ops, so it runs on every device.  The
modules split TensorFlow's API by chapter; each lists its public names in ``__all__``:
dtypes (``tf.float32``, ``tf.qint8``, ``tf.as_dtype``), the math ops (also as ``tf.math``),
creation and conversion, the tensor transformations, quantization, ``constant``/``Variable``.
``tf.experimental.numpy`` is TF-NumPy.  See ``docs/tf.md`` for the list and every deviation
from TensorFlow.
"""

from .. import __version__ as _wt_version
from .. import _validate
from . import (
    _casting,
    _creation,
    _dtypes,
    _gathering,
    _joining,
    _math_ops,
    _quantization,
    _shapes,
    _spatial,
    _variables,
    errors,
)

# The TensorFlow API level imitated, with webtensor's own version as the local part.
__version__ = f"2.20.0+webtensor.{_wt_version}"

__all__: list[str] = []
for _module in (_dtypes, _casting, _shapes, _joining, _gathering, _spatial, _quantization,
                _variables, _creation, _math_ops):
    # (the math ops TensorFlow 2 has only as tf.math.<op> stay there)
    _names = [n for n in _module.__all__ if n not in _math_ops.MATH_ONLY]
    for _name in _names:
        _obj = getattr(_module, _name)
        if callable(_obj) and not isinstance(_obj, type):
            # checked: shared keyword arguments validated, errors naming tf.<function>
            _obj = _validate.checked(_obj, "tf." + _name, "tf." + _name)
        globals()[_name] = _obj
    __all__ += _names
del _module, _names, _name, _obj

# tf.math (every math op, named tf.math.<op> in errors) and tf.experimental.numpy
from . import experimental, math  # noqa: E402

__all__ += ["math", "experimental", "errors"]
