"""TensorFlow's ``tf.DType`` objects: ``tf.float32``, ``tf.qint8``, ``tf.string`` ...

Each TensorFlow dtype is one interned :class:`DType` holding TensorFlow's name and enum number
and the webtensor dtype that stores its values (``storage``).  The quantized types are stored as
the integer of the same width (``tf.qint8`` in ``int8``) but stay distinct DTypes
(``tf.qint8 != tf.int8``), as in TensorFlow.  ``tf.string`` exists by name only (for
``string_to_number`` and friends): webtensor has no string tensors.

A DType is accepted wherever webtensor takes a dtype (``wt.zeros(2, dtype=tf.float32)``): it
answers ``__webtensor_dtype__`` with its storage dtype.  ``tf.float32 == wt.float32`` holds;
``tf.qint8 == wt.int8`` does not (TensorFlow's distinction), though ``wt.int8 == tf.qint8``,
which webtensor answers by storage, does.
"""

from __future__ import annotations

import webtensor as wt

__all__ = [
    "DType", "as_dtype",
    "float16", "half", "bfloat16", "float32", "float64", "double",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bool", "complex64", "complex128",
    "qint8", "quint8", "qint16", "quint16", "qint32", "string",
]

_builtin_bool = bool


class DType:
    """A TensorFlow data type (``tf.float32``); compare with ``==`` or ``is``."""

    __slots__ = ("name", "as_datatype_enum", "_storage", "_quantized")

    def __init__(self, name: str, enum: int, storage, quantized: _builtin_bool = False):
        self.name = name
        self.as_datatype_enum = enum  # TensorFlow's DataType number (float32 is 1)
        self._storage = storage  # the webtensor dtype holding the values; None for string
        self._quantized = quantized

    # -- webtensor interop -------------------------------------------------------------------
    @property
    def __webtensor_dtype__(self):
        """The webtensor dtype that stores this type's values (what ``wt.dtype(d)`` gives)."""
        if self._storage is None:
            raise AttributeError("__webtensor_dtype__")
        return self._storage

    @property
    def storage(self):
        """The webtensor dtype of the stored values (``wt.int8`` for ``tf.qint8``); raises
        TypeError for ``tf.string``, which webtensor cannot store."""
        if self._storage is None:
            raise TypeError("tf.string has no webtensor dtype: webtensor has no string "
                            "tensors (parse strings with tf.string_to_number)")
        return self._storage

    # -- TensorFlow's properties -------------------------------------------------------------
    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        """The dtype of the real part: float32 for complex64, float64 for complex128, else
        itself."""
        if self._storage is not None and self._storage.kind == "c":
            return as_dtype(self._storage.real_dtype)
        return self

    @property
    def is_bool(self) -> _builtin_bool:
        return self is bool

    @property
    def is_floating(self) -> _builtin_bool:
        return not self._quantized and self._kind == "f"

    @property
    def is_integer(self) -> _builtin_bool:
        return not self._quantized and self._kind in "iu"

    @property
    def is_complex(self) -> _builtin_bool:
        return self._kind == "c"

    @property
    def is_quantized(self) -> _builtin_bool:
        return self._quantized

    @property
    def is_unsigned(self) -> _builtin_bool:
        """True for the unsigned integers (uint8 ... uint64), not for quint8/quint16."""
        return not self._quantized and self._kind == "u"

    @property
    def is_numeric(self) -> _builtin_bool:
        return self._kind in "iufc"

    @property
    def is_numpy_compatible(self) -> _builtin_bool:
        return True

    @property
    def _kind(self) -> str:
        return "s" if self._storage is None else self._storage.kind

    @property
    def size(self) -> int:
        """Bytes per element (0 for string, as in TensorFlow)."""
        return 0 if self._storage is None else self._storage.itemsize

    def _limit(self, which: str):
        if self._quantized or self._kind not in "iuf":
            kind = "quantized type" if self._quantized else "type"
            raise TypeError(f"tf.DType.{which}: cannot find the {which}imum value of {self.name} "
                            f"with {kind} {self.name}; only integer and floating types have "
                            f"limits")
        info = wt.iinfo(self._storage) if self._kind in "iu" else wt.finfo(self._storage)
        return getattr(info, which)

    @property
    def min(self):
        """The lowest value (a Python int or float); TypeError for bool, complex, quantized
        and string types, as in TensorFlow."""
        return self._limit("min")

    @property
    def max(self):
        """The highest value (a Python int or float); TypeError where ``min`` raises."""
        return self._limit("max")

    @property
    def limits(self) -> tuple:
        """``(min, max)`` (TensorFlow's ``limits``, with ``clip_negative=False``)."""
        return self.min, self.max

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (``numpy.float32``); quantized types give the storage type
        (``numpy.int8`` for qint8), bfloat16 gives ``ml_dtypes.bfloat16`` when it is
        installed, string gives ``numpy.object_``.  Needs NumPy."""
        try:
            import numpy as np
        except ImportError:
            raise ImportError(f"tf.{self.name}.as_numpy_dtype needs NumPy (pip install "
                              f"numpy)") from None
        if self._storage is None:
            return np.object_
        if self._storage is wt.bfloat16:
            try:
                import ml_dtypes
            except ImportError:
                raise ImportError("tf.bfloat16.as_numpy_dtype needs ml_dtypes (NumPy has no "
                                  "bfloat16): pip install ml_dtypes") from None
            return ml_dtypes.bfloat16
        return np.dtype(self._storage.name).type

    def is_compatible_with(self, other) -> _builtin_bool:
        """True when ``other`` names this same type."""
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    # -- comparisons and printing ------------------------------------------------------------
    def __eq__(self, other):
        if other.__class__ is DType:
            return self is other
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("tf.DType", self.name))

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: {self.name!r}>"

    def __reduce__(self):
        return (as_dtype, (self.name,))


def _make(name: str, enum: int, storage) -> DType:
    return DType(name, enum, storage, quantized=name.startswith(("qint", "quint")))


# TensorFlow's types with their types.proto numbers.
float32 = _make("float32", 1, wt.float32)
float64 = _make("float64", 2, wt.float64)
int32 = _make("int32", 3, wt.int32)
uint8 = _make("uint8", 4, wt.uint8)
int16 = _make("int16", 5, wt.int16)
int8 = _make("int8", 6, wt.int8)
string = _make("string", 7, None)
complex64 = _make("complex64", 8, wt.complex64)
int64 = _make("int64", 9, wt.int64)
bool = _make("bool", 10, wt.bool)  # noqa: A001 - TensorFlow's name
qint8 = _make("qint8", 11, wt.int8)
quint8 = _make("quint8", 12, wt.uint8)
qint32 = _make("qint32", 13, wt.int32)
bfloat16 = _make("bfloat16", 14, wt.bfloat16)
qint16 = _make("qint16", 15, wt.int16)
quint16 = _make("quint16", 16, wt.uint16)
uint16 = _make("uint16", 17, wt.uint16)
complex128 = _make("complex128", 18, wt.complex128)
float16 = _make("float16", 19, wt.float16)
uint32 = _make("uint32", 22, wt.uint32)
uint64 = _make("uint64", 23, wt.uint64)
half = float16
double = float64

all_types = (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16,
             uint32, uint64, bool, complex64, complex128, qint8, quint8, qint16, quint16, qint32,
             string)
_BY_NAME = {d.name: d for d in all_types}
_BY_ENUM = {d.as_datatype_enum: d for d in all_types}
_BY_STORAGE = {d._storage: d for d in all_types if d._storage is not None and not d._quantized}
# TensorFlow's extra spellings (as_dtype("half"), as_dtype("float"), ...)
_ALIASES = {"half": "float16", "float": "float32", "double": "float64"}
NAMES = frozenset(_BY_NAME) | frozenset(_ALIASES)


def as_dtype(type_value) -> DType:
    """The ``tf.DType`` for ``type_value``: a DType, a TensorFlow name (``"float32"``,
    ``"half"``, ``"qint8"``, ``"string"``), a TensorFlow enum number, a webtensor dtype, a
    NumPy dtype or scalar type, or the Python types ``bool`` and ``float``."""
    if type_value.__class__ is DType:
        return type_value
    if isinstance(type_value, str):
        key = type_value.strip().lower()
        found = _BY_NAME.get(_ALIASES.get(key, key))
        if found is not None:
            return found
    elif isinstance(type_value, int) and not isinstance(type_value, _builtin_bool):
        found = _BY_ENUM.get(type_value)
        if found is not None:
            return found
    elif type_value is object or getattr(type_value, "__name__", None) == "object_":
        return string
    elif type_value is _builtin_bool:
        return bool
    elif type_value is float:
        return float32
    elif not isinstance(type_value, type) or type_value.__module__ != "builtins":
        try:
            return _BY_STORAGE[wt.dtype(type_value)]
        except (TypeError, KeyError):
            pass
    raise TypeError(f"tf.as_dtype: cannot convert {type_value!r} to a TensorFlow DType; pass "
                    f"a tf.DType (tf.float32), a name ('int32', 'half', 'qint8'), a NumPy "
                    f"dtype or a webtensor dtype")
