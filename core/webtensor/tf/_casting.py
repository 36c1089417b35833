"""TensorFlow's casting chapter: ``cast``, ``saturate_cast``, ``bitcast``, ``to_*`` and
``string_to_number``; plus the argument helpers every ``webtensor.tf`` module shares.

Casts follow webtensor's cast rules on every device (float -> int truncates and saturates, NaN
gives 0; int -> int wraps; complex -> real keeps the real part), where TensorFlow leaves
out-of-range float -> int conversions undefined.  ``bitcast`` reads the bytes in C order and
reinterprets them (webtensor stores every dtype as NumPy does, little endian), so it copies.
"""

from __future__ import annotations

import math
import re
import struct
from fractions import Fraction

import webtensor as wt

from ..tensor import Tensor
from ..tensor import cast as _retag
from . import _dtypes as _tfd
from .errors import InvalidArgumentError

__all__ = ["string_to_number", "to_double", "to_float", "to_bfloat16", "to_int32", "to_int64",
           "cast", "bitcast", "saturate_cast"]


# -- shared argument helpers (used by the other webtensor.tf modules) ----------------------------

# Promotion modes in which TensorFlow (or webtensor's default, JAX-like mode) has weak tensors:
# there Python data becomes a weak tensor.  In the others ("numpy" = TF's legacy NumPy
# behaviour, "strict" = TF's default) it is a strong int32 / float32 / complex128 tensor.
WEAK_MODES = frozenset(("standard", "all", "safe"))
_INT32_RANGE = (-2 ** 31, 2 ** 31 - 1)


def _python_leaves(value, out: list) -> bool:
    """Collect the leaves of nested lists/tuples of Python scalars; False if any leaf is not
    one (a tensor, an array, a NumPy scalar...)."""
    if isinstance(value, (list, tuple)):
        return all(_python_leaves(v, out) for v in value)
    if value.__class__ in (bool, int, float, complex):
        out.append(value)
        return True
    return False


def python_dtype(value):
    """TensorFlow's dtype for Python data (``convert_to_tensor``'s inference): bool, int32
    (int64 when a value does not fit), float32, complex128; None for anything else."""
    leaves: list = []
    if not _python_leaves(value, leaves) or not leaves:
        return None if leaves or not isinstance(value, (list, tuple)) else wt.float32
    classes = {v.__class__ for v in leaves}
    if complex in classes:
        return wt.complex128
    if float in classes:
        return wt.float32
    if int in classes:
        low, high = _INT32_RANGE
        return wt.int32 if all(low <= v <= high for v in leaves) else wt.int64
    return wt.bool


def as_tensor(value, fn: str, device=None) -> Tensor:
    """``value`` as a Tensor: tensors pass through, Variables give their value, NumPy data
    keeps its dtype, and Python data gets TensorFlow's dtype (int32, float32, complex128; weak
    in the modes that have weak tensors), on ``device`` when given."""
    if value.__class__ is Tensor:
        return value
    from ._variables import _ReadsAsTensor

    if isinstance(value, _ReadsAsTensor):  # a Variable or a slice of one
        return value.value()
    if _has_strings(value):
        raise TypeError(f"tf.{fn}: webtensor has no string dtype, so {value!r:.60} cannot be a "
                        f"tensor; parse strings with tf.string_to_number first")
    dt = python_dtype(value)
    try:
        t = wt.asarray(value, dtype=dt, device=device)
        if dt is not None and dt is not wt.bool and wt.get_promotion_mode() in WEAK_MODES:
            t = _retag(t, dt, weak=True)  # TensorFlow's WeakTensor (i32*, f32*, c128*)
        return t
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError(f"tf.{fn}: cannot convert {type(value).__name__} to a tensor: {e}") \
            from None


def unwrap(value):
    """A tf.Variable's current value; anything else unchanged."""
    from ._variables import _ReadsAsTensor

    return value.value() if isinstance(value, _ReadsAsTensor) else value


def _has_strings(value) -> bool:
    if isinstance(value, (str, bytes)):
        return True
    return isinstance(value, (list, tuple)) and any(_has_strings(v) for v in value)


def as_dtype(dtype, fn: str, arg: str = "dtype") -> wt.DType:
    """The webtensor dtype that stores ``dtype``: a ``tf.DType`` (``tf.qint8`` gives int8), a
    TensorFlow name (``"half"``, ``"quint8"``) or anything ``wt.dtype`` accepts."""
    if dtype is None:
        raise TypeError(f"tf.{fn}: {arg} is required; pass a dtype such as tf.float32")
    if isinstance(dtype, str) and dtype.strip().lower() in _tfd.NAMES:
        dtype = _tfd.as_dtype(dtype)
    if dtype.__class__ is _tfd.DType:
        try:
            return dtype.storage
        except TypeError as e:
            raise TypeError(f"tf.{fn}: {arg}=tf.string is not supported: {e}") from None
    if isinstance(dtype, bool) or not isinstance(dtype, (str, type)) and \
            hasattr(dtype, "shape") and not hasattr(dtype, "fields"):
        raise TypeError(f"tf.{fn}: {arg}={dtype!r:.60} is a value, not a data type; pass a "
                        f"dtype such as tf.float32 (or x.dtype)")
    try:
        return wt.dtype(dtype)
    except TypeError:
        raise TypeError(f"tf.{fn}: {arg}={dtype!r:.60} is not a data type; pass one such as "
                        f"tf.float32, tf.int32 or 'int64'") from None


def index_dtype(out_type, fn: str, arg: str = "out_type") -> wt.DType:
    """``int32`` or ``int64`` (TF's choice for shapes and indices; int32 when None)."""
    dt = wt.int32 if out_type is None else as_dtype(out_type, fn, arg)
    if dt not in (wt.int32, wt.int64):
        raise TypeError(f"tf.{fn}: {arg} must be int32 or int64, got {dt.name}")
    return dt


def _int_value(v, fn: str, arg: str) -> int:
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"tf.{fn}: {arg} must hold integers, got {v!r} ({type(v).__name__})")
    return v.__index__()


def int_scalar(value, fn: str, arg: str) -> int:
    """A Python int from an int, a NumPy integer or a 0-d integer tensor."""
    value = unwrap(value)
    if isinstance(value, Tensor):
        if value.dtype.kind not in "iu":
            raise TypeError(f"tf.{fn}: {arg} must be an integer tensor, got {value.dtype.name}")
        if value.ndim:
            raise InvalidArgumentError(f"tf.{fn}", f"{arg} must be a scalar, got shape "
                                                   f"{value.shape}")
        return int(value.item())
    return _int_value(value, fn, arg)


def int_list(value, fn: str, arg: str) -> list[int]:
    """Python ints from a list/tuple of ints or a 1-D integer tensor / array (TF's int vectors)."""
    value = unwrap(value)
    if isinstance(value, Tensor) or hasattr(value, "__array_interface__"):
        t = value if isinstance(value, Tensor) else wt.asarray(value)
        if t.dtype.kind not in "iu":
            raise TypeError(f"tf.{fn}: {arg} must be an int32 or int64 tensor, got "
                            f"{t.dtype.name}")
        if t.ndim != 1:
            raise InvalidArgumentError(f"tf.{fn}", f"{arg} must be 1-D, got shape {t.shape}")
        return [int(v) for v in t.tolist()]
    if not isinstance(value, (list, tuple)):
        raise InvalidArgumentError(f"tf.{fn}", f"{arg} must be a 1-D list of integers, got "
                                               f"{value!r}")
    return [int_scalar(v, fn, arg) for v in value]


def check_axis(axis: int, ndim: int, fn: str, arg: str = "axis") -> int:
    """``axis`` in ``[-ndim, ndim)`` made non-negative; else InvalidArgumentError."""
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(f"tf.{fn}", f"{arg}={axis} is out of range for a tensor of "
                                               f"rank {ndim}; it must be in [{-ndim}, {ndim})")
    return axis % ndim if ndim else axis


# -- casts ----------------------------------------------------------------------------------------

def cast(x, dtype, name=None) -> Tensor:
    """``x`` converted to ``dtype`` (complex -> real keeps the real part; float -> int
    truncates and saturates, NaN -> 0).  The result is strong and on ``x``'s device."""
    fn = "cast"
    dt = as_dtype(dtype, fn)
    return wt.astype(as_tensor(x, fn), dt, copy=False)


def _cast_to(dt: wt.DType, fn: str, default_name: str):
    def convert(x, name=default_name) -> Tensor:
        return wt.astype(as_tensor(x, fn), dt, copy=False)

    convert.__name__ = fn
    convert.__qualname__ = fn
    convert.__doc__ = f"``tf.cast(x, {dt.name})`` (TensorFlow's ``{fn}``)."
    return convert


to_double = _cast_to(wt.float64, "to_double", "ToDouble")
to_float = _cast_to(wt.float32, "to_float", "ToFloat")
to_bfloat16 = _cast_to(wt.bfloat16, "to_bfloat16", "ToBFloat16")
to_int32 = _cast_to(wt.int32, "to_int32", "ToInt32")
to_int64 = _cast_to(wt.int64, "to_int64", "ToInt64")


def bitcast(input, type, name=None) -> Tensor:  # noqa: A002 - TensorFlow's argument names
    """The bytes of ``input`` reinterpreted as ``type``.  A wider source gains a last axis of
    ``itemsize(src) // itemsize(type)``; a narrower one must end in an axis of exactly
    ``itemsize(type) // itemsize(src)``, which disappears."""
    fn = "bitcast"
    x = as_tensor(input, fn)
    dt = as_dtype(type, fn, "type")
    for what, d in (("input", x.dtype), ("type", dt)):
        if d is wt.bool:
            raise TypeError(f"tf.{fn}: {what} dtype bool cannot be bitcast (TensorFlow allows "
                            f"numeric dtypes only); cast it with tf.cast(x, tf.uint8) first")
    src, dst = x.dtype.itemsize, dt.itemsize
    if src == dst:
        shape = x.shape
    elif src > dst:
        shape = x.shape + (src // dst,)
    else:
        ratio = dst // src
        if x.ndim == 0 or x.shape[-1] != ratio:
            raise InvalidArgumentError(
                f"tf.{fn}", f"cannot bitcast {x.dtype.name} of shape {x.shape} to {dt.name}: "
                            f"the last dimension must be {ratio} (= {dt.itemsize} / "
                            f"{x.dtype.itemsize} bytes); reshape the input to end in {ratio}")
        shape = x.shape[:-1]
    flat = wt.frombuffer(x.tobytes(), dtype=dt, device=x.device)
    return wt.reshape(flat, shape)


def _complex_from_parts(re_part: Tensor, im_part: Tensor, dt: wt.DType) -> Tensor:
    """A complex tensor from its parts, exactly (inf and NaN parts stay where they are)."""
    return bitcast(wt.stack([re_part, im_part], axis=-1), dt)


def _largest(dt: wt.DType):
    return wt.iinfo(dt).max if dt.kind in "iu" else wt.finfo(dt).max


def _saturate_real(x: Tensor, dt: wt.DType) -> Tensor:
    """Real ``x`` (bool/int/float) -> real ``dt`` with out-of-range values clamped."""
    if dt is wt.bool or x.dtype is wt.bool:
        return wt.astype(x, dt, copy=False)
    if dt.kind in "iu":
        if x.dtype.kind in "iu":  # int -> int wraps, so clamp first in the source dtype
            src, dst = wt.iinfo(x.dtype), wt.iinfo(dt)
            low, high = max(src.min, dst.min), min(src.max, dst.max)
            if low > src.min or high < src.max:
                x = wt.clip(x, low, high)
        # NOTE: float -> int casts already saturate (and give 0 for NaN) on every device.
        return wt.astype(x, dt, copy=False)
    out = wt.astype(x, dt, copy=False)
    if _largest(x.dtype) > wt.finfo(dt).max:
        # Rounding to the target decides what overflows: values just above its max round down
        # to it; whatever became +-inf from a finite input saturates to +-max instead.
        overflow = wt.isinf(out) & wt.isfinite(x)
        limit = wt.full(x.shape, wt.finfo(dt).max, dtype=dt, device=x.device)
        out = wt.where(overflow, wt.where(x > 0, limit, -limit), out)
    return out


def saturate_cast(value, dtype, name=None) -> Tensor:
    """``value`` cast to ``dtype`` with values outside ``dtype``'s range clamped to its limits
    (complex -> real keeps the real part; complex -> complex clamps each part)."""
    fn = "saturate_cast"
    x = as_tensor(value, fn)
    dt = as_dtype(dtype, fn)
    if x.dtype.kind == "c":
        if dt.kind != "c":
            return _saturate_real(wt.real(x), dt)
        part = dt.real_dtype
        return _complex_from_parts(_saturate_real(wt.real(x), part),
                                   _saturate_real(wt.imag(x), part), dt)
    if dt.kind == "c":
        return wt.astype(_saturate_real(x, dt.real_dtype), dt, copy=False)
    return _saturate_real(x, dt)


# -- string_to_number ---------------------------------------------------------------------------------

_INT_TEXT = re.compile(r"[+-]?[0-9]+\Z")
_FLOAT_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_SPECIAL_TEXT = re.compile(r"[+-]?(inf|infinity|nan)\Z", re.IGNORECASE)
_NUMBER_TYPES = (wt.float32, wt.float64, wt.int32, wt.int64)
_F32_MAX = Fraction(struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0])
_F32_OVERFLOW = Fraction(2) ** 128  # where the next float32 after max would be


def _f32_from_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _f32_nearest(exact: Fraction, negative: bool) -> float:
    """The float32 nearest to ``exact`` (ties to even; beyond max + half an ulp: inf); the
    sign comes from the text, so "-0" gives -0.0.

    Rounding the double ``float(text)`` to float32 could round twice; this rounds once."""
    sign = -1.0 if negative else 1.0
    mag = abs(exact)
    if mag >= _F32_MAX:
        # Between max and 2**128 the midpoint decides; the tie goes to 2**128 (even mantissa).
        return sign * (math.inf if mag - _F32_MAX >= _F32_OVERFLOW - mag else float(_F32_MAX))
    try:
        bits = struct.unpack("<I", struct.pack("<f", float(mag)))[0]
    except OverflowError:  # pragma: no cover - mag < max, so float(mag) fits
        bits = 0x7F7FFFFF
    below = bits if Fraction(_f32_from_bits(bits)) <= mag else bits - 1
    low, high = Fraction(_f32_from_bits(below)), Fraction(_f32_from_bits(below + 1))
    if mag - low < high - mag or (mag - low == high - mag and below % 2 == 0):
        return sign * _f32_from_bits(below)
    return sign * _f32_from_bits(below + 1)


def _parse(text, out_type: wt.DType, where: str):
    fn = "tf.string_to_number"
    if isinstance(text, bytes):  # TensorFlow strings are bytes
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidArgumentError(fn, f"the bytes {text!r}{where} are not UTF-8") from None
    if not isinstance(text, str):
        raise TypeError(f"{fn}: string_tensor must hold strings, got {text!r} "
                        f"({type(text).__name__}){where}")
    body = text.strip()
    if out_type.kind == "i":
        if not _INT_TEXT.match(body):
            raise InvalidArgumentError(fn, f"could not convert string {text!r}{where} to "
                                           f"{out_type.name}: expected an optionally signed "
                                           f"decimal integer")
        value = int(body)
        info = wt.iinfo(out_type)
        if not info.min <= value <= info.max:
            raise InvalidArgumentError(fn, f"string {text!r}{where} is out of range for "
                                           f"{out_type.name} ({info.min} to {info.max}); use "
                                           f"out_type=tf.int64 or a float type")
        return value
    if _SPECIAL_TEXT.match(body):
        return float(body)
    if not _FLOAT_TEXT.match(body):
        raise InvalidArgumentError(fn, f"could not convert string {text!r}{where} to "
                                       f"{out_type.name}: expected a decimal number such as "
                                       f"'1.5', '-2e3', 'inf' or 'nan'")
    if out_type is wt.float64:
        return float(body)  # correctly rounded; overflow gives inf
    return _f32_nearest(Fraction(body), body.startswith("-"))


def _nested_strings(value, path: str = ""):
    """(shape, flat list) of a str or nested list/tuple of str; ragged nests are refused."""
    if not isinstance(value, (list, tuple)):
        return (), [(value, path)]
    shape, flat = None, []
    for i, item in enumerate(value):
        sub_shape, sub = _nested_strings(item, f"{path}[{i}]")
        if shape is None:
            shape = sub_shape
        elif sub_shape != shape:
            raise InvalidArgumentError(
                "tf.string_to_number", f"ragged nested list: element {path}[{i}] has shape "
                                       f"{sub_shape} but element {path}[0] has {shape}")
        flat.extend(sub)
    return (len(value),) + (shape or ()), flat


def string_to_number(string_tensor, out_type=None, name=None) -> Tensor:
    """Parse each string of ``string_tensor`` (a str, bytes, a nested list of them or a NumPy
    string array) as ``out_type`` (float32 by default; float64, int32, int64 also accepted).

    Leading and trailing whitespace is ignored.  An unparsable string or an integer out of range
    raises InvalidArgumentError; a float out of range rounds to +-inf.  The result has the
    nesting's shape and lives on the default device (webtensor has no string tensors).
    """
    fn = "string_to_number"
    dt = wt.float32 if out_type is None else as_dtype(out_type, fn, "out_type")
    if dt not in _NUMBER_TYPES:
        raise TypeError(f"tf.{fn}: out_type must be one of "
                        f"{', '.join(d.name for d in _NUMBER_TYPES)}, got {dt.name}")
    if isinstance(string_tensor, Tensor):
        raise TypeError(f"tf.{fn}: got a {string_tensor.dtype.name} tensor, but webtensor has no "
                        f"string dtype; pass Python strings (or nested lists of them)")
    if hasattr(string_tensor, "__array_interface__"):  # NumPy arrays of str / bytes
        string_tensor = string_tensor.tolist()
    shape, flat = _nested_strings(string_tensor)
    values = [_parse(text, dt, f" at {path}" if path else "") for text, path in flat]
    return wt.reshape(wt.asarray(values, dtype=dt), shape)
