"""``TensorType``: what a symbolic variable stands for (a dtype and a static shape), and the
constructor families (``at.matrix``, ``at.fvector``, ``at.dmatrices``...).

A static shape holds an int for a dimension known when the graph is built and ``None`` for
one known only when the compiled function is called; ``broadcastable`` is the older view of
the same thing (True where the size is 1).  Calling a type makes a fresh variable of it.
"""

from __future__ import annotations

import warnings

from . import _dtypes as _dt
from .config import config

_KIND_NAMES = {0: "Scalar", 1: "Vector", 2: "Matrix"}


def _shape_entry(s, fn: str):
    if s is None:
        return None
    if s is True or s is False:  # the legacy broadcastable spelling
        return 1 if s else None
    if isinstance(s, int) or (hasattr(s, "__index__") and not isinstance(s, float)):
        n = int(s.__index__())
        if n < 0:
            raise ValueError(f"{fn}: static shape entries must be >= 0 or None, got {n}")
        return n
    raise ValueError(f"{fn}: static shape entries must be a boolean, an integer or None, got "
                     f"{type(s).__name__} {s!r}")


def normalize_shape(shape, fn: str) -> tuple:
    if isinstance(shape, int) or (hasattr(shape, "__index__") and not isinstance(shape, bool)):
        return (_shape_entry(shape, fn),)
    try:
        entries = tuple(shape)
    except TypeError:
        raise TypeError(f"{fn}: shape must be a tuple of ints and None (e.g. (None, 3)), got "
                        f"{shape!r}") from None
    return tuple(_shape_entry(s, fn) for s in entries)


def shape_str(shape) -> str:
    inner = ", ".join("?" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


class TensorType:
    """The type of symbolic tensors: ``TensorType(dtype, shape)``; entries of ``shape`` are
    ints (static sizes) or None (unknown until the function is called)."""

    def __init__(self, dtype, shape=None, name=None, broadcastable=None):
        if broadcastable is not None:
            warnings.warn("The `broadcastable` keyword is deprecated; use `shape`.",
                          DeprecationWarning, stacklevel=2)
            if shape is None:
                shape = tuple(1 if b else None for b in broadcastable)
        if shape is None:
            raise TypeError("TensorType: shape is required (a tuple of ints and None, "
                            "e.g. TensorType('float64', shape=(None, None)))")
        self.dtype = _dt.as_name(dtype, "TensorType")
        self.shape = normalize_shape(shape, "TensorType")
        self.name = name

    # -- what the type says -----------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def broadcastable(self) -> tuple:
        return tuple(s == 1 for s in self.shape)

    @property
    def numpy_dtype(self):
        import numpy

        return numpy.dtype(self.dtype)

    def clone(self, dtype=None, shape=None, **kwargs) -> TensorType:
        return TensorType(self.dtype if dtype is None else dtype,
                          self.shape if shape is None else shape)

    def is_super(self, other) -> bool:
        """Every value of ``other`` is a value of this type."""
        return (isinstance(other, TensorType) and other.dtype == self.dtype
                and other.ndim == self.ndim
                and all(s is None or s == o for s, o in zip(self.shape, other.shape)))

    def in_same_class(self, other) -> bool:
        return isinstance(other, TensorType) and other.dtype == self.dtype and \
            other.broadcastable == self.broadcastable

    # -- making variables -------------------------------------------------------------------
    def __call__(self, name=None):
        from .variable import TensorVariable

        if name is not None and not isinstance(name, str):
            raise TypeError(f"{self}: a variable's name must be a str, got {name!r}")
        return TensorVariable(self, None, None, name)

    def make_variable(self, name=None):
        return self(name)

    def filter(self, data, strict=False, allow_downcast=None, device=None):
        """``data`` as a webtensor tensor of this type (see :func:`filter_value`)."""
        from .values import filter_value

        return filter_value(self, data, strict, allow_downcast, device)

    # -- identity and printing ------------------------------------------------------------------
    def __eq__(self, other) -> bool:
        return isinstance(other, TensorType) and self.dtype == other.dtype and \
            self.shape == other.shape

    def __hash__(self) -> int:
        return hash((TensorType, self.dtype, self.shape))

    def __str__(self) -> str:
        if self.name:
            return self.name
        kind = _KIND_NAMES.get(self.ndim, f"Tensor{self.ndim}")
        return f"{kind}({self.dtype}, shape={shape_str(self.shape)})"

    def __repr__(self) -> str:
        return f"TensorType({self.dtype}, shape={self.shape})"


def tensor(name=None, *, dtype=None, shape=None, **kwargs):
    """A variable of ``TensorType(dtype or floatX, shape)``: ``at.tensor(dtype='int32',
    shape=(None, 3), name='x')``."""
    if "broadcastable" in kwargs:
        warnings.warn("The `broadcastable` keyword is deprecated; use `shape`.",
                      DeprecationWarning, stacklevel=2)
        shape = tuple(1 if b else None for b in kwargs.pop("broadcastable"))
    if kwargs:
        raise TypeError(f"tensor: unexpected keyword argument(s) {', '.join(kwargs)}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"tensor: name must be a str (the shape is the keyword shape=), got "
                        f"{name!r}")
    if shape is None:
        raise TypeError("tensor: shape is required, e.g. at.tensor(dtype='float32', "
                        "shape=(None, 3)); None marks a size known only at call time")
    return TensorType(config.floatX if dtype is None else dtype, shape)(name)


# -- constructor families -------------------------------------------------------------------
# name -> default static shape (the ranks 0..7 and the broadcastable 2-d forms)
FAMILIES = {"scalar": (), "vector": (None,), "row": (1, None), "col": (None, 1),
            "matrix": (None, None)}
FAMILIES.update({f"tensor{n}": (None,) * n for n in range(3, 8)})
# typed prefixes (PyTensor's fully typed constructors)
PREFIXES = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "f": "float32",
            "d": "float64", "c": "complex64", "z": "complex128"}
# the plural constructors PyTensor defines: prefix -> families with a plural
PLURAL_PREFIXES = ("", "i", "l", "f", "d")
_PLURAL_NAME = {"matrix": "matrices"}


def _check_name(name, fn: str):
    if name is not None and not isinstance(name, str):
        raise TypeError(f"{fn}() takes the variable's name first, got {name!r}; pass the "
                        f"dtype by keyword: {fn}(name, dtype='int32')")


def _family(family: str, default_shape: tuple):
    def make(name=None, *, dtype=None, shape=None):
        _check_name(name, family)
        dtype = config.floatX if dtype is None else dtype
        if shape is None:
            shape = default_shape
        else:
            shape = normalize_shape(shape, family)
            if len(shape) != len(default_shape):
                raise ValueError(f"{family}: shape must be a tuple of length "
                                 f"{len(default_shape)}, got {shape}")
            for d, (want, got) in enumerate(zip(default_shape, shape)):
                if want == 1 and got != 1:
                    raise ValueError(f"{family}: dimension {d} of a `{family}` must have "
                                     f"shape 1, got {got}")
        return TensorType(dtype, shape)(name)
    make.__name__ = make.__qualname__ = family
    make.__doc__ = (f"A symbolic variable of static shape {shape_str(default_shape)} "
                    f"(``dtype`` defaults to config.floatX).")
    return make


class _TypedConstructor(TensorType):
    """A fully typed constructor (``at.fmatrix``): a TensorType instance that makes variables
    when called, as in PyTensor."""

    def __init__(self, dtype, shape, label):
        super().__init__(dtype, shape)
        self._label = label

    def __call__(self, name=None):
        _check_name(name, self._label)
        return TensorType(self.dtype, self.shape)(name)


def _plural(make, label: str):
    def many(*names):
        if len(names) == 1 and isinstance(names[0], int) and not isinstance(names[0], bool):
            return [make() for _ in range(names[0])]
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"{label}: pass one integer (how many) or names as strings, "
                                f"got {n!r}")
        if len(names) == 1:
            names = names[0]  # one string: a variable per character, as PyTensor does
            if len(names) == 1:
                return make(names)
        return [make(n) for n in names]
    many.__name__ = many.__qualname__ = label
    many.__doc__ = f"Several variables at once: ``{label}(3)`` or ``{label}('x', 'y')``."
    return many


def _build_constructors() -> dict:
    out = {}
    for family, shape in FAMILIES.items():
        out[family] = _family(family, shape)
        for prefix, dtype in PREFIXES.items():
            out[prefix + family] = _TypedConstructor(dtype, shape, prefix + family)
    for prefix in PLURAL_PREFIXES:
        for family in FAMILIES:
            plural = prefix + _PLURAL_NAME.get(family, family + "s")
            out[plural] = _plural(out[prefix + family], plural)
    return out


CONSTRUCTORS = _build_constructors()
