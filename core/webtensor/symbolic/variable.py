"""Symbolic tensors: :class:`TensorVariable` and its kinds :class:`TensorConstant` (a value
fixed when the graph is built) and :class:`TensorSharedVariable` (a value that lives between
calls of compiled functions and that ``updates`` change).

The operators and methods (``x + y``, ``x.T``, ``x.sum(axis=0)``, ``x[1:, i]``) build graph
nodes, as PyTensor's ``_tensor_py_operators``.  ``==`` is identity, as in PyTensor (variables
key dictionaries): compare values with ``at.eq``.
"""

from __future__ import annotations

import webtensor as wt

from .. import _tracing
from . import _dtypes as _dt
from .graph import Variable


def _m():
    from . import math

    return math


def _b():
    from . import basic

    return basic


def _binary(name: str, reflected: bool = False):
    def method(self, other):
        from .graph import Variable as _V

        if not isinstance(other, (_V, int, float, complex, list, tuple, wt.Tensor)) and \
                not hasattr(other, "__array_interface__"):
            return NotImplemented
        fn = getattr(_m(), name)
        return fn(other, self) if reflected else fn(self, other)
    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


class _tensor_py_operators:  # noqa: N801 - PyTensor's name for the mix-in
    """Operators, attributes and methods shared by every symbolic tensor."""

    __array_priority__ = 1000  # NumPy defers `array + var` to us

    # -- arithmetic and comparison -------------------------------------------------------------
    __add__ = _binary("add")
    __radd__ = _binary("add", True)
    __sub__ = _binary("sub")
    __rsub__ = _binary("sub", True)
    __mul__ = _binary("mul")
    __rmul__ = _binary("mul", True)
    __truediv__ = _binary("true_div")
    __rtruediv__ = _binary("true_div", True)
    __floordiv__ = _binary("int_div")
    __rfloordiv__ = _binary("int_div", True)
    __mod__ = _binary("mod")
    __rmod__ = _binary("mod", True)
    __pow__ = _binary("pow")
    __rpow__ = _binary("pow", True)
    __and__ = _binary("and_")
    __rand__ = _binary("and_", True)
    __or__ = _binary("or_")
    __ror__ = _binary("or_", True)
    __xor__ = _binary("xor")
    __rxor__ = _binary("xor", True)
    __lt__ = _binary("lt")
    __le__ = _binary("le")
    __gt__ = _binary("gt")
    __ge__ = _binary("ge")
    __matmul__ = _binary("matmul")
    __rmatmul__ = _binary("matmul", True)

    def __neg__(self):
        return _m().neg(self)

    def __abs__(self):
        return _m().abs(self)

    def __invert__(self):
        return _m().invert(self)

    def __bool__(self):
        raise TypeError(
            f"a symbolic variable ({self}) has no truth value: its value exists only when a "
            f"compiled function runs. Use at.switch/at.where for conditions, and at.eq/at.lt to "
            f"compare (== on variables is identity, as in PyTensor)")

    def __len__(self):
        raise TypeError(f"len() of a symbolic variable ({self}) is not defined; use "
                        f"{self}.shape[0] (symbolic) instead")

    def __iter__(self):
        n = self.type.shape[0] if self.type.ndim else None
        if n is None:
            raise TypeError(f"cannot iterate over {self} ({self.type}): its first dimension is "
                            f"not known statically; give it a static size (at.tensor(shape="
                            f"(3, ...)) or specify_shape) or index it")
        return (self[i] for i in range(n))

    def __index__(self):
        raise TypeError(f"a symbolic variable ({self}) cannot be used as a Python integer")

    def __getitem__(self, key):
        from .subtensor import getitem

        return getitem(self, key)

    def __setitem__(self, key, value):
        raise TypeError("symbolic variables are immutable: use at.set_subtensor(x[key], value) "
                        "or at.inc_subtensor(x[key], value), which return a new variable")

    # -- attributes --------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def broadcastable(self) -> tuple:
        return self.type.broadcastable

    @property
    def shape(self):
        from .shape import shape

        return shape(self)

    @property
    def size(self):
        return _m().prod(self.shape)

    @property
    def T(self):  # noqa: N802
        return _b().transpose(self)

    @property
    def mT(self):  # noqa: N802
        return _b().swapaxes(self, -1, -2)

    @property
    def real(self):
        return _m().real(self)

    @property
    def imag(self):
        return _m().imag(self)

    # -- methods -----------------------------------------------------------------------------
    def reshape(self, shape, *, ndim=None):
        from .shape import reshape

        return reshape(self, shape, ndim=ndim)

    def dimshuffle(self, *pattern):
        from .elemwise import dimshuffle

        return dimshuffle(self, *pattern)

    def flatten(self, ndim=1):
        return _b().flatten(self, ndim)

    def ravel(self):
        return _b().flatten(self)

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = tuple(axes[0])
        return _b().transpose(self, axes or None)

    def swapaxes(self, axis1, axis2):
        return _b().swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        return _b().squeeze(self, axis)

    def astype(self, dtype):
        return _b().cast(self, dtype)

    def copy(self, name=None):
        out = _b().tensor_copy(self)
        out.name = name
        return out

    def fill(self, value):
        return _b().fill(self, value)

    def zeros_like(self, dtype=None):
        return _b().zeros_like(self, dtype)

    def ones_like(self, dtype=None):
        return _b().ones_like(self, dtype)

    def sum(self, axis=None, dtype=None, keepdims=False, acc_dtype=None):
        return _m().sum(self, axis, dtype, keepdims, acc_dtype)

    def prod(self, axis=None, dtype=None, keepdims=False, acc_dtype=None):
        return _m().prod(self, axis, dtype, keepdims, acc_dtype)

    def mean(self, axis=None, dtype=None, keepdims=False, acc_dtype=None):
        return _m().mean(self, axis, dtype, keepdims, acc_dtype)

    def var(self, axis=None, ddof=0, keepdims=False, corrected=False):
        return _m().var(self, axis, ddof, keepdims, corrected)

    def std(self, axis=None, ddof=0, keepdims=False, corrected=False):
        return _m().std(self, axis, ddof, keepdims, corrected)

    def max(self, axis=None, keepdims=False):
        return _m().max(self, axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return _m().min(self, axis, keepdims)

    def argmax(self, axis=None, keepdims=False):
        return _m().argmax(self, axis, keepdims)

    def argmin(self, axis=None, keepdims=False):
        return _m().argmin(self, axis, keepdims)

    def any(self, axis=None, keepdims=False):
        return _m().any(self, axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return _m().all(self, axis, keepdims)

    def ptp(self, axis=None):
        return _m().ptp(self, axis)

    def norm(self, L, axis=None, keepdims=False):  # noqa: N803 - PyTensor's name
        return _m().norm(self, L, axis, keepdims)

    def clip(self, a_min, a_max):
        return _m().clip(self, a_min, a_max)

    def round(self, mode=None):
        return _m().round(self, mode)

    def conj(self):
        return _m().conj(self)

    conjugate = conj

    def dot(self, other):
        return _m().dot(self, other)

    def cumsum(self, axis=None):
        from .extra_ops import cumsum

        return cumsum(self, axis)

    def cumprod(self, axis=None):
        from .extra_ops import cumprod

        return cumprod(self, axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        from .extra_ops import diagonal

        return diagonal(self, offset, axis1, axis2)

    def trace(self):
        from .extra_ops import trace

        return trace(self)

    def sort(self, axis=-1, kind="quicksort", order=None):
        from .extra_ops import sort

        return sort(self, axis, kind, order)

    def argsort(self, axis=-1, kind="quicksort", order=None):
        from .extra_ops import argsort

        return argsort(self, axis, kind, order)

    def repeat(self, repeats, axis=None):
        from .extra_ops import repeat

        return repeat(self, repeats, axis)

    def take(self, indices, axis=None, mode="raise"):
        from .subtensor import take

        return take(self, indices, axis, mode)

    def choose(self, choices, mode="raise"):
        from .extra_ops import choose

        return choose(self, choices, mode)

    def nonzero(self, return_matrix=False):
        from .extra_ops import nonzero

        return nonzero(self, return_matrix)

    def nonzero_values(self):
        from .extra_ops import nonzero_values

        return nonzero_values(self)

    def compress(self, a, axis=None):
        from .extra_ops import compress

        return compress(self, a, axis)

    def transfer(self, target):
        if target in ("cpu", None):
            return self
        raise ValueError(f"transfer({target!r}): symbolic variables live on no device; pick the "
                         f"device when compiling (at.function(..., device=...)) or pass tensors "
                         f"that are on it")

    def get_scalar_constant_value(self):
        from .basic import get_scalar_constant_value

        return get_scalar_constant_value(self)


class TensorVariable(_tensor_py_operators, Variable):
    """A symbolic tensor: the input of a graph, or the output of an op."""

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def clone(self, name=None):
        return TensorVariable(self.type, None, None, self.name if name is None else name)


def _format_scalar(value, dtype: str) -> str:
    if dtype == "float32":
        return _dt.float32_repr(value)
    if isinstance(value, float):
        text = repr(value)
        return text
    return str(value)


class TensorConstant(TensorVariable):
    """A value fixed when the graph is built (Python numbers and arrays in expressions)."""

    def __init__(self, type, data: wt.Tensor, name=None):
        super().__init__(type, None, None, name)
        self._data = data
        self._scalar = data.item() if type.ndim == 0 else None
        self._on: dict = {}  # device -> the value on it (uploaded once per device)

    @property
    def data(self) -> wt.Tensor:
        return self._data

    @property
    def value(self) -> wt.Tensor:
        return self._data

    def scalar_value(self):
        return self._scalar

    def on(self, device) -> wt.Tensor:
        """The value on ``device``: uploaded once (outside any trace, so a compiled program
        reads it as a constant and no traced value is kept here)."""
        found = self._on.get(device)
        if found is None:
            data = self._data
            with _tracing.suspended():
                found = data if data.device == device else data.to_device(device)
            self._on[device] = found
        return found

    def clone(self, name=None):
        return TensorConstant(self.type, self._data, self.name if name is None else name)

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        if self.type.ndim == 0:
            return _format_scalar(self._scalar, self.type.dtype)
        if self._data.size <= 16:
            return str(self._data)
        return f"TensorConstant{{{self.type}}}"

    def __repr__(self) -> str:
        return f"TensorConstant({self.type!r}, data={self})"


class TensorSharedVariable(TensorVariable):
    """A tensor whose value persists between calls of compiled functions (``at.shared``)."""

    def __init__(self, type, value: wt.Tensor, name=None, strict=False, allow_downcast=None):
        super().__init__(type, None, None, name)
        self._value = value
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.default_update = None

    def get_value(self, borrow=False, return_internal_type=False) -> wt.Tensor:
        """The current value (a copy unless ``borrow=True``), as a webtensor tensor."""
        if borrow:
            return self._value
        return wt.asarray(self._value, copy=True)

    def set_value(self, value, borrow=False) -> None:
        """Replace the value; it must fit the type (dtype, rank, static sizes)."""
        from .values import FilterError, filter_value

        try:
            t = filter_value(self.type, value, self.strict, self.allow_downcast,
                             self._value.device)
        except FilterError as e:
            raise TypeError(f"set_value of shared variable {self}: {e}") from None
        if t is value and not borrow:
            t = wt.asarray(t, copy=True)
        self._value = t

    def value_on(self, device) -> wt.Tensor:
        """The value on ``device`` (moved there once, and kept there)."""
        if self._value.device != device:
            self._value = self._value.to_device(device)
        return self._value

    def clone(self, name=None):
        return TensorSharedVariable(self.type, self._value, self.name if name is None else name,
                                    self.strict, self.allow_downcast)
