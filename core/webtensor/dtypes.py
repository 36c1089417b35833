"""The 15 data types, their categories, parsing, machine limits, casting rules and defaults.

Every dtype is stored exactly as NumPy stores it (little endian; bool one byte; float16/bfloat16
16 bits; complex as (real, imag) pairs), so the byte layout is the same on every device.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ._settings import Setting

__all__ = [
    "DType", "dtype", "isdtype", "finfo", "iinfo", "can_cast",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "all_dtypes", "all_numeric_dtypes", "all_int_dtypes", "all_uint_dtypes",
    "all_signed_int_dtypes", "all_float_dtypes", "all_complex_dtypes",
    "default_int_dtype", "default_float_dtype", "default_complex_dtype", "default_dtype",
    "set_default_int_dtype", "set_default_float_dtype", "set_default_complex_dtype",
    "set_default_dtype",
]

_builtin_bool, _builtin_int, _builtin_float, _builtin_complex = bool, int, float, complex

# Kinds follow NumPy's one-letter codes; their order is the order of "same_kind" casting.
KIND_ORDER = {"b": 0, "u": 1, "i": 2, "f": 3, "c": 4}


class DType:
    """A webtensor data type.  Instances are interned: compare with ``is`` or ``==``.

    ``==`` also accepts any spelling :func:`dtype` understands (``wt.int32 == "i32"``), like
    NumPy; hashing stays identity-based so dict lookups on dtypes are as fast as possible.
    """

    __slots__ = ("name", "short", "nx", "itemsize", "kind", "bits", "__weakref__")

    def __init__(self, name: str, short: str, nx: str, itemsize: int, kind: str):
        self.name = name
        self.short = short  # the seeds' abbreviation: i32, u8, bf16, c128, b
        self.nx = nx  # Nx's spelling: s32, u8, bf16, c128, pred
        self.itemsize = itemsize
        self.kind = kind
        self.bits = 8 * itemsize

    def __repr__(self) -> str:
        return f"wt.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other) -> _builtin_bool:
        if other.__class__ is DType:
            return self is other
        try:
            return self is dtype(other)
        except TypeError:
            return NotImplemented

    __hash__ = object.__hash__

    def __reduce__(self):
        return (dtype, (self.name,))

    @property
    def is_bool(self) -> _builtin_bool:
        return self.kind == "b"

    @property
    def is_integer(self) -> _builtin_bool:
        return self.kind in "iu"

    @property
    def is_signed(self) -> _builtin_bool:
        return self.kind in "ifc"

    @property
    def is_floating(self) -> _builtin_bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> _builtin_bool:
        return self.kind == "c"

    @property
    def real_dtype(self) -> DType:
        """The dtype of the real (and imaginary) part: float32 for complex64, else itself."""
        return _COMPLEX_PARTS.get(self, self)

    @property
    def complex_dtype(self) -> DType:
        """The complex dtype whose parts have this float's precision (complex64 for f16/bf16/f32)."""
        if self.kind == "c":
            return self
        return complex128 if self.itemsize > 4 else complex64


def _make(name, short, nx, itemsize, kind) -> DType:
    return DType(name, short, nx, itemsize, kind)


bool = _make("bool", "b", "pred", 1, "b")  # noqa: A001 - the dtype is called bool everywhere
int8 = _make("int8", "i8", "s8", 1, "i")
int16 = _make("int16", "i16", "s16", 2, "i")
int32 = _make("int32", "i32", "s32", 4, "i")
int64 = _make("int64", "i64", "s64", 8, "i")
uint8 = _make("uint8", "u8", "u8", 1, "u")
uint16 = _make("uint16", "u16", "u16", 2, "u")
uint32 = _make("uint32", "u32", "u32", 4, "u")
uint64 = _make("uint64", "u64", "u64", 8, "u")
float16 = _make("float16", "f16", "f16", 2, "f")
bfloat16 = _make("bfloat16", "bf16", "bf16", 2, "f")
float32 = _make("float32", "f32", "f32", 4, "f")
float64 = _make("float64", "f64", "f64", 8, "f")
complex64 = _make("complex64", "c64", "c64", 8, "c")
complex128 = _make("complex128", "c128", "c128", 16, "c")

_COMPLEX_PARTS = {complex64: float32, complex128: float64}

all_dtypes = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, complex64, complex128,
)
all_signed_int_dtypes = (int8, int16, int32, int64)
all_uint_dtypes = (uint8, uint16, uint32, uint64)
all_int_dtypes = all_signed_int_dtypes + all_uint_dtypes
all_float_dtypes = (float16, bfloat16, float32, float64)
all_complex_dtypes = (complex64, complex128)
all_numeric_dtypes = all_int_dtypes + all_float_dtypes + all_complex_dtypes

# ---------------------------------------------------------------------------------------------
# Parsing: every spelling a user may reasonably write.

_BY_NAME: dict[str, DType] = {}
for _dt in all_dtypes:
    for _spelling in (_dt.name, _dt.short, _dt.nx):
        _BY_NAME[_spelling] = _dt
_BY_NAME.update({"bool_": bool, "?": bool, "bf": bfloat16, "half": float16, "single": float32,
                 "double": float64, "cdouble": complex128})


def _accepted_spellings() -> str:
    return ", ".join(f"{d.name}/{d.short}" + (f"/{d.nx}" if d.nx not in (d.name, d.short) else "")
                     for d in all_dtypes)


def dtype(x) -> DType:
    """Return the webtensor dtype for ``x``.

    Accepts a DType, a name (``"int32"``), a short name (``"i32"``, ``"bf16"``), an Nx name
    (``"s32"``, ``"pred"``), the Python types ``bool``/``int``/``float``/``complex`` (giving the
    current default dtype of that kind), NumPy dtypes and scalar types, and anything with a
    ``dtype`` attribute (tensors, arrays).
    """
    if x.__class__ is DType:
        return x
    if isinstance(x, str):
        found = _BY_NAME.get(x.strip().lower())
        if found is not None:
            return found
    elif x is _builtin_bool:
        return bool
    elif x is _builtin_int:
        return default_int_dtype()
    elif x is _builtin_float:
        return default_float_dtype()
    elif x is _builtin_complex:
        return default_complex_dtype()
    else:
        found = _from_foreign(x)
        if found is not None:
            return found
    raise TypeError(
        f"wt.dtype: cannot interpret {x!r} as a data type. Accepted: a wt dtype, one of the names "
        f"{_accepted_spellings()}; the Python types bool, int, float, complex; a NumPy dtype; "
        f"or an object with a .dtype attribute."
    )


_as_dtype = dtype  # for functions whose `dtype` parameter shadows the function


def _from_foreign(x) -> DType | None:
    """NumPy dtypes / scalar types / arrays and other objects carrying ``.dtype``."""
    own = getattr(x, "__webtensor_dtype__", None)  # a front end's dtype (wt.tf.qint8 -> int8)
    if own.__class__ is DType:
        return own
    inner = getattr(x, "dtype", None)
    if inner is not None and inner is not x:
        if inner.__class__ is DType:
            return inner
        if isinstance(inner, (str, type)):  # obj.dtype == "float32" or == float
            try:
                return dtype(inner)
            except TypeError:
                return None
        if hasattr(inner, "name"):
            x = inner
    name = getattr(x, "name", None)  # numpy.dtype('int32').name == 'int32'
    if isinstance(name, str) and hasattr(x, "itemsize"):
        return _BY_NAME.get(name)
    if isinstance(x, type):  # numpy.float32, ml_dtypes.bfloat16 and friends
        module = (getattr(x, "__module__", "") or "").split(".")[0]
        if module in ("numpy", "ml_dtypes"):
            found = _BY_NAME.get(x.__name__)
            if found is None and module == "numpy":  # aliases: numpy.longlong is int64
                try:
                    found = _BY_NAME.get(sys.modules["numpy"].dtype(x).name)
                except Exception:
                    found = None
            return found
    return None


# ---------------------------------------------------------------------------------------------
# Categories (Array API isdtype).

_KIND_GROUPS = {
    "bool": frozenset(["b"]),
    "signed integer": frozenset(["i"]),
    "unsigned integer": frozenset(["u"]),
    "integral": frozenset(["i", "u"]),
    "real floating": frozenset(["f"]),
    "complex floating": frozenset(["c"]),
    "numeric": frozenset(["i", "u", "f", "c"]),
}


def isdtype(dtype, kind) -> _builtin_bool:
    """Array API ``isdtype(dtype, kind)``: is ``dtype`` of ``kind``?

    ``kind`` is a dtype, one of the kind names ``'bool'``, ``'signed integer'``,
    ``'unsigned integer'``, ``'integral'``, ``'real floating'``, ``'complex floating'``,
    ``'numeric'``, or a tuple of those (true if any matches).  (A dtype's name as ``kind``,
    ``'int32'``, is an extension.)
    """
    if dtype.__class__ is not DType:
        raise TypeError(f"wt.isdtype: expected a wt dtype as first argument, got {dtype!r}; "
                        f"pass x.dtype rather than the tensor itself")
    if isinstance(kind, tuple):
        matches = [isdtype(dtype, k) for k in kind]  # validate every kind, like NumPy
        return any(matches)
    if kind.__class__ is DType:
        return dtype is kind
    if isinstance(kind, str):
        group = _KIND_GROUPS.get(kind)
        if group is not None:
            return dtype.kind in group
        if kind in _BY_NAME:
            return dtype is _BY_NAME[kind]
    raise ValueError(f"wt.isdtype: unknown kind {kind!r}; use a dtype or one of "
                     f"{', '.join(repr(k) for k in _KIND_GROUPS)} (or a tuple of them)")


# ---------------------------------------------------------------------------------------------
# Machine limits.

# (explicit mantissa bits, exponent bits) of each binary floating-point format.
_FLOAT_FORMATS = {float16: (10, 5), bfloat16: (7, 8), float32: (23, 8), float64: (52, 11)}


@dataclass(frozen=True)
class finfo_object:
    """Machine limits of a floating-point (or complex, by its parts) dtype, as Python floats."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    smallest_subnormal: float
    precision: int
    resolution: float
    dtype: DType

    @property
    def tiny(self) -> float:  # NumPy's name for smallest_normal
        return self.smallest_normal


@dataclass(frozen=True)
class iinfo_object:
    """Range of an integer dtype, as Python ints."""

    bits: int
    max: int
    min: int
    dtype: DType


def _dtype_of_arg(x, fn: str) -> DType:
    if x.__class__ is DType:
        return x
    try:
        return dtype(x)
    except TypeError:
        raise TypeError(f"wt.{fn}: expected a dtype or a tensor, got {x!r}") from None


def finfo(type_) -> finfo_object:
    """Array API ``finfo`` for float16, bfloat16, float32, float64, complex64 and complex128.

    For complex dtypes the limits are those of the real and imaginary parts (Array API rule).
    """
    dt = _dtype_of_arg(type_, "finfo")
    part = dt.real_dtype
    if part not in _FLOAT_FORMATS:
        raise TypeError(f"wt.finfo: {dt.name} is not a floating-point or complex dtype; "
                        f"use wt.iinfo for integer dtypes")
    mantissa, exponent = _FLOAT_FORMATS[part]
    bias = 2 ** (exponent - 1) - 1
    largest = (2.0 - 2.0 ** -mantissa) * 2.0 ** bias
    precision = int(mantissa * 0.30102999566398120)  # NumPy's int(-log10(eps))
    return finfo_object(
        bits=part.bits,
        eps=2.0 ** -mantissa,
        max=largest,
        min=-largest,
        smallest_normal=2.0 ** (1 - bias),
        smallest_subnormal=2.0 ** (1 - bias - mantissa),
        precision=precision,
        resolution=10.0 ** -precision,
        dtype=part,
    )


def iinfo(type_) -> iinfo_object:
    """Array API ``iinfo`` for the eight integer dtypes."""
    dt = _dtype_of_arg(type_, "iinfo")
    if dt.kind == "i":
        return iinfo_object(dt.bits, 2 ** (dt.bits - 1) - 1, -(2 ** (dt.bits - 1)), dt)
    if dt.kind == "u":
        return iinfo_object(dt.bits, 2 ** dt.bits - 1, 0, dt)
    raise TypeError(f"wt.iinfo: {dt.name} is not an integer dtype; "
                    f"use wt.finfo for floating-point and complex dtypes")


# ---------------------------------------------------------------------------------------------
# Casting rules (NumPy's, with bfloat16 placed where its 8-bit significand puts it).

# "safe" casts preserve every value; this is the graph of direct safe casts, closed transitively
# below.  NumPy treats int64/uint64 -> float64 as safe, and so do we.
_SAFE_EDGES = {
    bool: (uint8, int8),
    uint8: (uint16, int16, float16, bfloat16),
    uint16: (uint32, int32, float32),
    uint32: (uint64, int64, float64),
    uint64: (float64,),
    int8: (int16, float16, bfloat16),
    int16: (int32, float32),
    int32: (int64, float64),
    int64: (float64,),
    float16: (float32, complex64),
    bfloat16: (float32, complex64),
    float32: (float64, complex64),
    float64: (complex128,),
    complex64: (complex128,),
    complex128: (),
}


def _closure(edges) -> dict:
    reach = {}
    for start in edges:
        seen, todo = {start}, [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        reach[start] = frozenset(seen)
    return reach


SAFE_CASTS = _closure(_SAFE_EDGES)

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def can_cast(from_, to, /, casting: str = "safe") -> _builtin_bool:
    """Can ``from_`` (a dtype or tensor) be cast to dtype ``to`` under the ``casting`` rule?

    ``"no"``/``"equiv"``: only the same dtype; ``"safe"``: every value is preserved;
    ``"same_kind"``: safe, or to the same or a higher kind (bool < uint < int < float < complex);
    ``"unsafe"``: always.
    """
    if not isinstance(casting, str) or casting not in _CASTINGS:
        error = ValueError if isinstance(casting, str) else TypeError
        raise error(f"wt.can_cast: casting must be one of {', '.join(map(repr, _CASTINGS))}, "
                         f"got {casting!r}")
    src = _dtype_of_arg(from_, "can_cast")
    dst = _dtype_of_arg(to, "can_cast")
    if casting in ("no", "equiv"):
        return src is dst
    if casting == "unsafe":
        return True
    if dst in SAFE_CASTS[src]:
        return True
    return casting == "same_kind" and KIND_ORDER[src.kind] <= KIND_ORDER[dst.kind]


# ---------------------------------------------------------------------------------------------
# Default dtypes (Ivy's model).  They decide what Python scalars and untyped data become.

_KIND_CHECKS = {"int": "iu", "float": "f", "complex": "c"}
_default_int = Setting("default_int_dtype", int32)
_default_float = Setting("default_float_dtype", float32)
_default_complex = Setting("default_complex_dtype", complex64)
default_any_setting = Setting("default_dtype", None)  # None: follow the default float dtype


def default_int_dtype() -> DType:
    return _default_int.get()


def default_float_dtype() -> DType:
    return _default_float.get()


def default_complex_dtype() -> DType:
    return _default_complex.get()


def _checked_default(fn: str, kind: str, value) -> DType:
    dt = dtype(value)
    if dt.kind not in _KIND_CHECKS[kind]:
        raise TypeError(f"wt.{fn}: {dt.name} is not a {kind} dtype; "
                        f"pass one of {', '.join(d.name for d in all_dtypes if d.kind in _KIND_CHECKS[kind])}")
    return dt


def set_default_int_dtype(value):
    """Set the default integer dtype (process-wide; local to the block when used with ``with``)."""
    return _default_int.set(_checked_default("set_default_int_dtype", "int", value))


def set_default_float_dtype(value):
    """Set the default floating-point dtype (process-wide; or local in a ``with`` block)."""
    return _default_float.set(_checked_default("set_default_float_dtype", "float", value))


def set_default_complex_dtype(value):
    """Set the default complex dtype (process-wide; or local in a ``with`` block)."""
    return _default_complex.set(_checked_default("set_default_complex_dtype", "complex", value))


def set_default_dtype(value):
    """Set the global default dtype used when nothing else decides (default: the float default)."""
    return default_any_setting.set(None if value is None else dtype(value))


def default_dtype(dtype=None, item=None) -> DType:  # noqa: A002 - Ivy's signature
    """The dtype to use, Ivy style: ``dtype`` if given; else that of ``item`` (a tensor or array
    gives its own dtype, a Python scalar or nested sequence the default of its kind); else the
    global default dtype (the default float dtype unless set with ``set_default_dtype``)."""
    if dtype is not None:
        return _as_dtype(dtype)
    if item is not None:
        inferred = _infer_item(item)
        if inferred is not None:
            return inferred
    fallback = default_any_setting.get()
    return default_float_dtype() if fallback is None else fallback


def _infer_item(item) -> DType | None:
    if isinstance(item, _builtin_bool):
        return bool
    if isinstance(item, _builtin_int):
        return default_int_dtype()
    if isinstance(item, _builtin_float):
        return default_float_dtype()
    if isinstance(item, _builtin_complex):
        return default_complex_dtype()
    if isinstance(item, (list, tuple)):
        kinds = [_infer_item(x) for x in item]
        kinds = [k for k in kinds if k is not None]
        if not kinds:
            return None
        return max(kinds, key=lambda d: KIND_ORDER[d.kind])
    found = getattr(item, "dtype", None)
    if found is not None:
        try:
            return _as_dtype(found)
        except TypeError:
            return None
    return None
