"""TF-NumPy: ``import webtensor.tf.experimental.numpy as tnp``.

``tnp.array`` / ``tnp.asarray`` infer dtypes as TF-NumPy does:

* with TensorFlow's new promotion (``"all"``, ``"safe"``; and webtensor's default
  ``"standard"`` mode) Python data gives *weak* tensors: ``int`` is ``i32*`` (``i64*`` when a
  value does not fit), ``float`` is ``f32*``, ``complex`` is ``c128*`` (``bool`` is a strong
  bool);
* otherwise (``"legacy"`` = webtensor's ``"numpy"`` mode, or TensorFlow's default) NumPy's
  defaults, strong: int64, float64 (float32 with ``prefer_float32=True``), complex128.

NumPy arrays, NumPy scalars and tensors keep their dtype (strong).  The NumPy-named functions
are webtensor's own (``tnp.add is wt.add``), whose Python-scalar and list handling already
follows the active promotion mode, plus TF-NumPy's aliases (``tnp.absolute``,
``tnp.concatenate``, ``tnp.power`` ...).
"""

from __future__ import annotations

import webtensor as wt

from ...tensor import Tensor
from ...tensor import cast as _retag
from .. import experimental_enable_numpy_behavior  # (wt.tf's, arguments checked)
from .._casting import WEAK_MODES, python_dtype, unwrap

ndarray = Tensor

# dtypes (webtensor's; TF-NumPy's are NumPy's scalar types, which webtensor also accepts)
bool_ = wt.bool
int8, int16, int32, int64 = wt.int8, wt.int16, wt.int32, wt.int64
uint8, uint16, uint32, uint64 = wt.uint8, wt.uint16, wt.uint32, wt.uint64
float16, bfloat16, float32, float64 = wt.float16, wt.bfloat16, wt.float32, wt.float64
complex64, complex128 = wt.complex64, wt.complex128
float_, complex_, int_ = wt.float64, wt.complex128, wt.int64
e, pi, inf, nan, newaxis = wt.e, wt.pi, wt.inf, wt.nan, None

# webtensor functions under the same NumPy name
_SAME = ("abs", "add", "all", "allclose", "any", "arange", "argmax", "argmin", "argsort",
         "array_equal", "broadcast_arrays", "broadcast_to", "ceil", "clip", "conj", "cos",
         "cosh", "count_nonzero", "cross", "cumprod", "cumsum", "diag", "diagonal", "diff",
         "divide", "dot", "einsum", "empty", "empty_like", "equal", "exp", "expand_dims",
         "expm1", "eye", "finfo", "flip", "floor", "floor_divide", "full", "full_like",
         "greater", "greater_equal", "hypot", "iinfo", "imag", "inner", "isclose", "isfinite",
         "isinf", "isnan", "kron", "less", "less_equal", "linspace", "log", "log10", "log1p",
         "log2", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor",
         "matmul", "max", "maximum", "mean", "meshgrid", "min", "minimum", "moveaxis",
         "multiply", "negative", "nextafter", "nonzero", "not_equal", "ones", "ones_like",
         "outer", "pad", "positive", "prod", "promote_types", "ravel", "real", "reciprocal",
         "remainder", "repeat", "reshape", "result_type", "roll", "round", "sign", "signbit",
         "sin", "sinh", "sort", "split", "sqrt", "square", "squeeze", "stack", "std",
         "subtract", "sum", "swapaxes", "take", "take_along_axis", "tan", "tanh", "tensordot",
         "tile", "trace", "transpose", "tril", "triu", "var", "vdot", "where", "zeros",
         "zeros_like", "bitwise_and", "bitwise_or", "bitwise_xor")
# TF-NumPy's NumPy spellings of webtensor functions
ALIASES = {"absolute": "abs", "fabs": "abs", "amax": "max", "amin": "min", "arccos": "acos",
           "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh", "arctan": "atan",
           "arctanh": "atanh", "arctan2": "atan2", "around": "round", "bitwise_not":
           "bitwise_invert", "concatenate": "concat", "conjugate": "conj", "mod": "remainder",
           "power": "pow", "true_divide": "divide"}

for _name in _SAME:
    globals()[_name] = getattr(wt, _name)
for _name, _target in ALIASES.items():
    globals()[_name] = getattr(wt, _target)
del _name, _target


def _numpy_dtype(value):
    """NumPy's default dtype for Python data (int64, the default float, complex128)."""
    dt = python_dtype(value)
    if dt is None or dt is wt.bool:
        return dt
    if dt.kind == "f":
        return wt.default_float_dtype() if wt.get_promotion_mode() == "numpy" else wt.float64
    return {"i": wt.int64, "c": wt.complex128}[dt.kind]


def _convert(val, dtype, copy: bool, fn: str) -> Tensor:
    val = unwrap(val)
    if dtype is not None:
        from .._casting import as_dtype

        dt = as_dtype(dtype, f"experimental.numpy.{fn}")
        return wt.asarray(val, dtype=dt, copy=True if copy else None)
    inferred = python_dtype(val)
    if inferred is None:  # tensors, NumPy arrays and scalars keep their dtype
        return wt.asarray(val, copy=True if copy else None)
    if wt.get_promotion_mode() in WEAK_MODES:
        t = wt.asarray(val, dtype=inferred)
        return t if t.dtype is wt.bool else _retag(t, t.dtype, weak=True)
    return wt.asarray(val, dtype=_numpy_dtype(val))


def array(val, dtype=None, copy=True, ndmin=0) -> Tensor:
    """A tensor from ``val`` with TF-NumPy's dtype inference (see the module doc); ``copy``
    (default True) copies tensors and arrays; ``ndmin`` prepends size-1 dimensions."""
    if isinstance(ndmin, bool) or not isinstance(ndmin, int) or ndmin < 0:
        raise TypeError(f"tnp.array: ndmin must be a non-negative int, got {ndmin!r}")
    t = _convert(val, dtype, bool(copy), "array")
    if t.ndim < ndmin:
        t = wt.reshape(t, (1,) * (ndmin - t.ndim) + t.shape)
    return t


def asarray(a, dtype=None) -> Tensor:
    """``array(a, dtype, copy=False)``: a tensor of the right dtype is returned as is."""
    return _convert(a, dtype, False, "asarray")


def asanyarray(a, dtype=None) -> Tensor:
    """Same as ``asarray`` (webtensor has no array subclasses)."""
    return _convert(a, dtype, False, "asanyarray")


def ascontiguousarray(a, dtype=None) -> Tensor:
    """``array(a, dtype, ndmin=1)`` (webtensor tensors need no contiguity)."""
    return array(a, dtype, copy=False, ndmin=1)


def copy(a) -> Tensor:
    """A copy of ``a`` (``array(a, copy=True)``)."""
    return array(a, copy=True)


__all__ = (["array", "asarray", "asanyarray", "ascontiguousarray", "copy", "ndarray",
            "experimental_enable_numpy_behavior", "bool_", "int8", "int16", "int32", "int64",
            "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32", "float64",
            "complex64", "complex128", "float_", "complex_", "int_", "e", "pi", "inf", "nan",
            "newaxis"] + list(_SAME) + list(ALIASES))
