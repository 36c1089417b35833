"""``webtensor.tf``: TensorFlow's tensor transformations and weak-tensor front door.

Every function is a composition of webtensor's core ops, so it runs on every device.  The
modules split TensorFlow's guide by chapter; each lists its public names in ``__all__``.
See ``docs/tf.md`` for the list and every deviation from TensorFlow.
"""

from .. import _validate
from . import _casting, _gathering, _joining, _quantization, _shapes, _spatial, _variables, errors

__all__: list[str] = []
for _module in (_casting, _shapes, _joining, _gathering, _spatial, _quantization, _variables):
    # checked: shared keyword arguments validated, errors naming tf.<function>
    globals().update((name, _validate.checked(getattr(_module, name), "tf." + name,
                                                "tf." + name))
                     for name in _module.__all__)
    __all__ += _module.__all__
del _module
