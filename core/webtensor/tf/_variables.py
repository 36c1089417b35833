"""``tf.constant``, ``tf.Variable`` and ``experimental_enable_numpy_behavior`` (the TF-NumPy
type promotion guide's front door), on top of webtensor's weak tensors and promotion modes.

* ``constant(value)`` without a dtype gives a *weak* tensor for Python data (TF's WeakTensor);
  with a dtype it is strong, and a tensor of another dtype is converted implicitly.
* A ``Variable`` holds a strong tensor.  ``assign``/``assign_add``/``assign_sub`` convert the
  value into the variable's dtype when the active promotion mode would promote the pair *to*
  that dtype (``int32`` variable + ``int16`` value: fine); a value that would widen it (a float
  into an int variable, ``int32`` into ``int8``) raises TypeError, since a variable's dtype
  never changes.  Every update stores a new tensor, so values read earlier never change.
* ``experimental_enable_numpy_behavior`` switches webtensor's promotion mode process-wide:
  ``"all"``/``"safe"`` are TensorFlow's modes; ``"legacy"`` (TF-NumPy's NumPy rules) maps to
  ``"numpy"``; ``"off"`` (no implicit promotion) maps to ``"strict"``.
"""

from __future__ import annotations

import math

import webtensor as wt

from ..device import as_device
from ..tensor import Tensor
from ._casting import _has_strings, as_dtype, as_tensor, int_list
from .errors import InvalidArgumentError

__all__ = ["constant", "Variable", "experimental_enable_numpy_behavior"]

_PY_SCALARS = (bool, int, float, complex)


def _check_python_value(v, dt: wt.DType, fn: str) -> None:
    """Refuse Python scalars that ``dt`` cannot hold exactly in kind (TensorFlow's TypeError)."""
    cls = v.__class__
    problem = None
    if dt is wt.bool:
        if cls is not bool:
            problem = "only True/False convert to bool"
    elif cls is complex and dt.kind != "c":
        problem = f"a complex value does not convert to {dt.name}"
    elif dt.kind in "iu":
        if cls is float:
            if not math.isfinite(v) or v != int(v):
                problem = f"{v!r} is not a whole number"
            else:
                v = int(v)
        if problem is None and not isinstance(v, bool):
            info = wt.iinfo(dt)
            if not info.min <= v <= info.max:
                problem = f"it is outside {dt.name}'s range {info.min} to {info.max}"
    if problem:
        raise TypeError(f"tf.{fn}: cannot convert {v!r} to {dt.name}: {problem}; pick a dtype "
                        f"that holds it, or convert explicitly with tf.cast")


def _check_python_data(value, dt: wt.DType, fn: str) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_python_data(item, dt, fn)
    elif value.__class__ in _PY_SCALARS:
        _check_python_value(value, dt, fn)


def _to_tensor(value, dt, fn: str, device=None) -> Tensor:
    """``value`` as a tensor on ``device`` (a Device or None): weak for Python data without
    ``dt``; converted to a strong ``dt`` otherwise (tensors too: the new promotion's implicit
    conversion)."""
    value = _unwrap(value)
    if dt is not None and (value.__class__ in _PY_SCALARS or isinstance(value, (list, tuple))):
        if _has_strings(value):
            as_tensor(value, fn)  # raises the no-string-dtype TypeError
        _check_python_data(value, dt, fn)
        try:
            return wt.asarray(value, dtype=dt, device=device)
        except (TypeError, ValueError) as e:
            raise TypeError(f"tf.{fn}: cannot convert the value to {dt.name}: {e}") from None
    t = as_tensor(value, fn, device)
    if device is not None and t.device is not device:
        t = t.to_device(device)
    if dt is not None and (t.dtype is not dt or t.weak):
        t = wt.astype(t, dt, copy=False)
    return t


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """A tensor from ``value`` (Python data, a NumPy array or a tensor).

    Without ``dtype`` Python data gives a weak tensor (int32 for ints, float32 for floats);
    with ``dtype`` the result is strong and a tensor of another dtype is converted.  ``shape``
    reshapes a value with that many elements, or fills the shape with a single-element value.
    """
    fn = "constant"
    dt = None if dtype is None else as_dtype(dtype, fn)
    t = _to_tensor(value, dt, fn)
    if shape is None:
        return t
    dims = tuple(int_list(list(shape) if isinstance(shape, tuple) else shape, fn, "shape"))
    if t.shape == dims:
        return t
    count = math.prod(dims)
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"tf.{fn}", f"shape {list(dims)} has a negative dimension")
    if t.size == count:
        return wt.reshape(t, dims)
    if t.size == 1:
        return wt.asarray(wt.broadcast_to(wt.reshape(t, ()), dims), copy=True)
    raise TypeError(f"tf.{fn}: value has {t.size} elements (shape {t.shape}) but shape "
                    f"{list(dims)} has {count}; give a value with {count} elements or a single "
                    f"element to fill it")


def _shape_spec(shape, fn: str):
    if shape is None:
        return None
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"tf.{fn}: shape must be a tuple or list (None entries for unknown "
                        f"sizes), got {shape!r}")
    return tuple(None if d is None else int_list([d], fn, "shape")[0] for d in shape)


def _compatible(spec, shape) -> bool:
    return spec is None or (len(spec) == len(shape) and all(
        s is None or s == n for s, n in zip(spec, shape)))


# Operators a Variable answers by reading its value: binary (with reflected forms), comparisons
# and unary ones.  In-place operators are deliberately absent: `v += 1` rebinds `v` to a tensor,
# as in TensorFlow; use v.assign_add(1) to update the variable.
_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
           "lshift", "rshift", "matmul")
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
_UNARY = ("neg", "pos", "abs", "invert", "bool", "int", "float", "complex", "index", "len",
          "iter")


def _unwrap(other):
    return other.value() if isinstance(other, _ReadsAsTensor) else other


def _forward(dunder: str):
    def method(self, *args):
        return getattr(self._value, dunder)(*(_unwrap(a) for a in args))

    method.__name__ = dunder
    return method


class _ReadsAsTensor:
    """Reads like its tensor ``_value``: operators, comparisons, indexing, NumPy conversion,
    tensor methods and attributes.  Variables and variable slices share this."""

    __array_ufunc__ = None  # NumPy defers to our reflected operators
    __hash__ = None  # compares elementwise, like a tensor
    _value: Tensor

    @property
    def dtype(self) -> wt.DType:
        return self._value.dtype

    @property
    def shape(self) -> tuple:
        """The current value's shape."""
        return self._value.shape

    @property
    def device(self):
        return self._value.device

    @property
    def ndim(self) -> int:
        return self._value.ndim

    def value(self) -> Tensor:
        """The current value (the tensor itself; later assigns replace a variable's)."""
        return self._value

    def numpy(self):
        return self._value.numpy()

    def __array__(self, dtype=None, copy=None):
        return self._value.__array__(dtype=dtype, copy=copy)

    def __getattr__(self, attr: str):
        # Tensor methods and attributes (reshape, sum, T, tolist, size...) read the value.
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self._value, attr)


for _name in _BINARY:
    setattr(_ReadsAsTensor, f"__{_name}__", _forward(f"__{_name}__"))
    setattr(_ReadsAsTensor, f"__r{_name}__", _forward(f"__r{_name}__"))
for _name in _COMPARISONS + _UNARY + ("format",):
    setattr(_ReadsAsTensor, f"__{_name}__", _forward(f"__{_name}__"))
del _name


class VariableSlice(_ReadsAsTensor):
    """``v[key]``: the slice's value (read when sliced), which reads like a tensor, plus
    ``assign`` to write it into the variable (TensorFlow's sliced assignment)."""

    def __init__(self, variable: Variable, key):
        self._variable = variable
        self._key = key
        self._value = variable.value()[key]

    def assign(self, value, name=None):
        """``v[key] = value`` in the variable (a new tensor; ``value`` takes the variable's
        dtype under the same rule as ``Variable.assign`` and broadcasts to the slice's shape);
        returns the variable."""
        return self._variable._write(self._key, value)

    def __repr__(self) -> str:
        from .._format import tensor_str

        return (f"<tf.Variable {self._variable.name!r} slice {self._key!r} shape={self.shape} "
                f"dtype={self.dtype.name}, numpy={tensor_str(self._value)}>")


class Variable(_ReadsAsTensor):
    """A mutable, named tensor: TensorFlow's ``tf.Variable``.

    ``Variable(initial_value, trainable=None, validate_shape=True, caching_device=None,
    name=None, *, dtype=None, shape=None, device=None)``.  The positional order follows
    TensorFlow, so the second positional argument is ``trainable`` (``tf.Variable(10,
    tf.int32)`` infers int32 from ``10``; pass ``dtype=`` to choose a dtype).  ``shape`` may hold
    None entries to allow assigning values of other sizes there; ``device`` places the value.
    Read it like a tensor (operators, indexing, ``np.asarray(v)``, ``v.numpy()``) or with
    ``v.value()``.
    """

    def __init__(self, initial_value=None, trainable=None, validate_shape=True,
                 caching_device=None, name=None, *, dtype=None, shape=None, device=None):
        fn = "Variable"
        if initial_value is None:
            raise ValueError(f"tf.{fn}: initial_value must be given (a value or a callable "
                             f"returning one)")
        if callable(initial_value) and not isinstance(initial_value, (Tensor, _ReadsAsTensor)):
            initial_value = initial_value()
        dt = None if dtype is None else as_dtype(dtype, fn)
        dev = None if device is None else as_device(device, f"tf.{fn}")
        value = _to_tensor(initial_value, dt, fn, dev)
        self._spec = _shape_spec(shape, fn) if shape is not None else (
            value.shape if validate_shape else None)
        if not _compatible(self._spec, value.shape):
            raise ValueError(f"tf.{fn}: initial value of shape {value.shape} does not match "
                             f"shape={shape}")
        # Variables are strong, and own their buffer (a later write to the source must not
        # reach the variable).
        self._value = wt.astype(value, value.dtype, copy=True)
        self.name = "Variable" if name is None else str(name)
        self.trainable = True if trainable is None else bool(trainable)

    # -- reading (the rest comes from _ReadsAsTensor) -------------------------------------------
    def read_value(self) -> Tensor:
        """A copy of the current value."""
        return wt.asarray(self._value, copy=True)

    def __getitem__(self, key) -> VariableSlice:
        """The slice's value, which reads like a tensor and has ``.assign``."""
        return VariableSlice(self, _unwrap_key(key))

    def __setitem__(self, key, value):
        raise TypeError("tf.Variable does not support item assignment; use "
                        "v[key].assign(value) (or v.assign(new_value))")

    def __repr__(self) -> str:
        from .._format import tensor_str

        return (f"<tf.Variable {self.name!r} shape={self.shape} dtype={self.dtype.name} "
                f"device={self.device.name}, numpy={tensor_str(self._value)}>")

    # -- updating -------------------------------------------------------------------------------
    def _converted(self, value, fn: str) -> Tensor:
        """``value`` in the variable's dtype, if the active promotion mode promotes the pair to
        that dtype; else TypeError (a variable's dtype is immutable)."""
        value = _unwrap(value)
        python_data = [value] if isinstance(value, (list, tuple)) else []
        if not (value.__class__ in _PY_SCALARS or isinstance(value, Tensor)):
            try:
                value = as_tensor(value, fn, self.device)
            except OverflowError:  # a Python int too big even for inference
                _check_python_data(value, self.dtype, f"Variable.{fn}")
                raise
        if isinstance(value, Tensor) and value.device is not self.device:
            value = value.to_device(self.device)  # TensorFlow copies across devices implicitly
        try:
            target = wt.result_type(self._value, value)
        except (wt.TypePromotionError, OverflowError) as e:
            raise type(e)(f"tf.Variable.{fn}: {e}") from None
        if target is not self.dtype:
            what = f"{value.dtype.name}{' (weak)' if value.weak else ''}" if isinstance(
                value, Tensor) else f"Python {type(value).__name__} {value!r}"
            raise TypeError(
                f"tf.Variable.{fn}: a variable's dtype is immutable, but a {what} value "
                f"promotes a {self.dtype.name} variable to {target.name} (promotion mode "
                f"{wt.get_promotion_mode()!r}); cast it first with tf.cast(value, "
                f"{self.dtype.name})")
        if python_data:  # values the dtype cannot hold must not wrap silently
            _check_python_data(python_data[0], self.dtype, f"Variable.{fn}")
        if isinstance(value, Tensor):
            return wt.astype(value, self.dtype, copy=False)
        return wt.asarray(value, dtype=self.dtype, device=self.device)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replace the value (same dtype rule as above; the shape must fit the declared one)."""
        fn = "assign"
        new = self._converted(value, fn)
        if not _compatible(self._spec, new.shape):
            raise ValueError(f"tf.Variable.{fn}: cannot assign a value of shape {new.shape} to "
                             f"variable {self.name!r} of shape {self._spec}; shapes must match "
                             f"(declare shape=(None, ...) to allow changes)")
        self._value = wt.asarray(new, copy=True)
        return self if read_value else None

    def _update(self, delta, fn: str, sign: int, read_value: bool):
        d = self._converted(delta, fn)
        if d.shape != self.shape:
            raise InvalidArgumentError(
                f"tf.Variable.{fn}", f"cannot update variable with shape {self.shape} using a "
                                     f"tensor with shape {d.shape}; shapes must be equal")
        new = self._value + d if sign > 0 else self._value - d
        self._value = wt.astype(new, self.dtype, copy=False)
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """``v = v + delta`` (same dtype rule; ``delta`` must have the variable's shape)."""
        return self._update(delta, "assign_add", 1, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """``v = v - delta`` (same dtype rule; ``delta`` must have the variable's shape)."""
        return self._update(delta, "assign_sub", -1, read_value)

    def _write(self, key, value):
        """``v[key] = value`` into a copy that becomes the new value (sliced assignment)."""
        fn = "assign"
        target = self._value[key]
        new_value = self._converted(value, fn)
        try:
            fits = wt.broadcast_shapes(new_value.shape, target.shape) == target.shape
        except ValueError:
            fits = False
        if not fits:
            raise InvalidArgumentError(
                "tf.Variable.assign", f"cannot broadcast the value's shape {list(new_value.shape)} "
                                      f"into the slice's shape {list(target.shape)}")
        out = wt.asarray(self._value, copy=True)
        out[key] = new_value
        self._value = out
        return self

    def _scatter_nd(self, indices, updates, fn: str):
        """(flat row positions, updates as rows, row shape) for the scatter_nd_* methods."""
        from ._gathering import _flat_nd_index, _int_tensor, _nd_depth

        qualified = f"Variable.{fn}"
        idx = _int_tensor(indices, qualified, "indices", device=self.device)
        k = _nd_depth(idx, self.ndim, qualified, "indices", "the variable")
        lead, rest = self.shape[:k], self.shape[k:]
        rows = self._converted(updates, fn)
        want = idx.shape[:-1] + rest
        if rows.shape != want:
            raise InvalidArgumentError(
                f"tf.Variable.{fn}", f"updates has shape {list(rows.shape)} but indices of shape "
                                     f"{list(idx.shape)} into a variable of shape "
                                     f"{list(self.shape)} need {list(want)} "
                                     f"(indices.shape[:-1] + shape[K:])")
        flat = _flat_nd_index(idx, lead, qualified, "indices")
        n = flat.size
        return wt.reshape(flat, (n,)), wt.reshape(rows, (n,) + rest), rest, math.prod(lead)

    def scatter_nd_update(self, indices, updates, name=None):
        """Write ``updates`` at the index tuples in the last dimension of ``indices``
        (``updates.shape == indices.shape[:-1] + shape[K:]``); with repeated indices the last
        update wins.  Returns the variable."""
        flat, rows, rest, count = self._scatter_nd(indices, updates, "scatter_nd_update")
        out = wt.asarray(self._value, copy=True)
        if flat.size:
            view = wt.reshape(out, (count,) + rest)  # a view of the fresh copy
            view[flat] = rows
        self._value = out
        return self

    def _scatter_nd_accumulate(self, indices, updates, fn: str, sign: int):
        from ._gathering import scatter_nd

        self._scatter_nd(indices, updates, fn)  # checks, with this method's name
        delta = scatter_nd(indices, self._converted(updates, fn), self.shape)
        new = self._value + delta if sign > 0 else self._value - delta
        self._value = wt.astype(new, self.dtype, copy=False)
        return self

    def scatter_nd_add(self, indices, updates, name=None):
        """Add ``updates`` at the index tuples of ``indices`` (repeats accumulate)."""
        return self._scatter_nd_accumulate(indices, updates, "scatter_nd_add", 1)

    def scatter_nd_sub(self, indices, updates, name=None):
        """Subtract ``updates`` at the index tuples of ``indices`` (repeats accumulate)."""
        return self._scatter_nd_accumulate(indices, updates, "scatter_nd_sub", -1)


def _unwrap_key(key):
    """Variables (and slices) inside an index read as their values."""
    if isinstance(key, tuple):
        return tuple(_unwrap(k) for k in key)
    return _unwrap(key)


# -- numpy behaviour ----------------------------------------------------------------------------------

# TensorFlow's dtype_conversion_mode -> webtensor promotion mode.
NUMPY_BEHAVIOR_MODES = {"all": "all", "safe": "safe", "legacy": "numpy", "off": "strict"}


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode="legacy"):
    """Switch type promotion process-wide (``tnp.experimental_enable_numpy_behavior``).

    ``dtype_conversion_mode``: ``"all"`` and ``"safe"`` select TensorFlow's modes;
    ``"legacy"`` selects webtensor's ``"numpy"`` mode (NumPy's rules, as TF-NumPy's legacy
    behaviour) with float64 as the default float dtype unless ``prefer_float32``; ``"off"``
    selects ``"strict"`` (no implicit promotion between different dtypes).  The other modes
    use float32 as the default float dtype.  For a temporary change use
    ``with wt.promotion_mode(...)`` instead.
    """
    key = dtype_conversion_mode.lower() if isinstance(dtype_conversion_mode, str) else None
    if key not in NUMPY_BEHAVIOR_MODES:
        raise ValueError(f"tf.experimental_enable_numpy_behavior: dtype_conversion_mode must be "
                         f"one of {', '.join(map(repr, NUMPY_BEHAVIOR_MODES))}, got "
                         f"{dtype_conversion_mode!r}")
    wt.set_promotion_mode(NUMPY_BEHAVIOR_MODES[key])
    legacy_double = key == "legacy" and not prefer_float32
    wt.set_default_float_dtype(wt.float64 if legacy_double else wt.float32)
