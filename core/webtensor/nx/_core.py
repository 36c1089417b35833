"""Shared plumbing of ``webtensor.nx``: Nx types, numbers and tensors, axes and names, options.

Everything here turns Nx's spelling into webtensor's: a type (``"s64"``, ``("s", 64)``, a
``wt.DType``) into a DType, a number or nested list into a tensor with Nx's default types
(s64, f32, c64; booleans u8), an axis given by name or number into its index.  Types of results
follow Nx: :func:`merge` is ``wt.result_type`` in the ``"nx"`` promotion mode, so Python numbers
are sized by value as Nx's ``merge_number`` does.
"""

from __future__ import annotations

import functools
import math

from .. import dtypes as _d
from .. import promotion as _p
from .._tracing import ConcretizationError, is_traced
from ..api._common import operand
from ..device import Device, as_device, default_device
from ..tensor import Tensor, cast, from_values

NX_MODE = _p.MODES["nx"]

# -- errors -------------------------------------------------------------------------------------------


def fail(fn: str, message: str, kind=ValueError):
    """Raise ``kind`` naming the nx function (Nx raises ArgumentError; the Python spelling is a
    ValueError for values and shapes, a TypeError for types, an IndexError for indices)."""
    raise kind(f"nx.{fn}: {message}")


# -- types --------------------------------------------------------------------------------------------

# Nx's type tuples for every dtype (bool, which Nx lacks, reads as XLA's "pred").
_TUPLES = {dt: (dt.nx.rstrip("0123456789"), int(dt.nx.lstrip("abcdefghijklmnopqrstuvwxyz")))
           for dt in _d.all_dtypes if dt is not _d.bool}
_TUPLES[_d.bool] = ("pred", 8)
_BY_TUPLE = {t: dt for dt, t in _TUPLES.items() if dt is not _d.bool}
_FLOAT_KINDS = ("f", "bf", "c")


def type_tuple(dt: _d.DType) -> tuple:
    """``("s", 64)`` for int64: Nx's representation of a type."""
    return _TUPLES[dt]


def type_text(dt: _d.DType) -> str:
    """The type as error messages show it: ``("f", 32)``."""
    kind, bits = _TUPLES[dt]
    return f'("{kind}", {bits})'


def parse_type(spec, fn: str, what: str = "type"):
    """An Nx type (``"s64"``, ``("s", 64)``, ``"f32"``, a ``wt.DType``) -> DType; None stays."""
    if spec is None or spec.__class__ is _d.DType:
        return spec
    if isinstance(spec, tuple) and len(spec) == 2:
        found = _BY_TUPLE.get((spec[0], spec[1]))
        if found is not None:
            return found
    elif isinstance(spec, str):
        try:
            found = _d.dtype(spec)
        except TypeError:
            found = None
        if found is not None and found is not _d.bool:
            return found
    fail(fn, f"invalid numerical type: {spec!r} (Nx types are s8..s64, u8..u64, f16, f32, f64, "
             f"bf16, c64, c128, as \"s64\" or (\"s\", 64))", TypeError)


def is_float(dt: _d.DType) -> bool:
    return dt.kind in "fc"


def to_floating(dt: _d.DType) -> _d.DType:
    """Nx.Type.to_floating: integers become f32, floating types stay."""
    return dt if dt.kind in "fc" else _d.float32


def to_real(dt: _d.DType) -> _d.DType:
    """Nx.Type.to_real: complex -> its part type, other floats stay, integers -> f32."""
    if dt.kind == "c":
        return dt.real_dtype
    return dt if dt.kind == "f" else _d.float32


def to_complex(dt: _d.DType) -> _d.DType:
    """Nx.Type.to_complex: c128 from f64/c128, else c64."""
    return _d.complex128 if dt in (_d.float64, _d.complex128) else _d.complex64


def to_aggregate(dt: _d.DType) -> _d.DType:
    """Nx.Type.to_aggregate: sums and products of integers in 64 bits."""
    if dt.kind == "u":
        return _d.uint64
    if dt.kind in "ib":
        return _d.int64
    return dt


def merge(*operands) -> _d.DType:
    """The type Nx gives ``op(a, b, ...)``: Nx.Type.merge of tensor types, Python numbers sized
    by value (``wt.result_type`` in the ``nx`` promotion mode)."""
    ops = [o.dtype if o.__class__ is Tensor else o for o in operands]
    with _p.promotion_mode("nx"):
        return _p.result_type(*ops)


# -- numbers ------------------------------------------------------------------------------------------

# Nx's atoms for the non-finite numbers
ATOMS = {"nan": math.nan, "infinity": math.inf, "neg_infinity": -math.inf}
_NUMBER = (bool, int, float, complex)


def is_number(x) -> bool:
    return isinstance(x, _NUMBER) or (isinstance(x, str) and x in ATOMS)


def number(x, fn: str):
    """A Python number with Nx's atoms (``"nan"``, ``"infinity"``, ``"neg_infinity"``) decoded."""
    if isinstance(x, str):
        if x in ATOMS:
            return ATOMS[x]
        fail(fn, f"expected a number or one of the atoms {', '.join(map(repr, ATOMS))}, got "
                 f"{x!r}", TypeError)
    return x


def number_type(x) -> _d.DType:
    """Nx.Type.infer: ints s64, floats f32, complex c64, booleans u8."""
    if isinstance(x, bool):
        return _d.uint8
    if isinstance(x, int):
        return _d.int64
    if isinstance(x, float):
        return _d.float32
    return _d.complex64


# -- devices ------------------------------------------------------------------------------------------

def device_of(backend, fn: str) -> Device:
    """Nx's ``backend:`` option: a wt.Device, a device name, ``(device, options)``, or None
    (the default backend, i.e. ``wt.default_device()``)."""
    if backend is None:
        return default_device()
    if isinstance(backend, tuple) and len(backend) == 2 and isinstance(backend[1], (list, dict)):
        backend = backend[0]
    if isinstance(backend, (Device, str)):
        try:
            return as_device(backend, f"nx.{fn}")
        except ValueError as e:
            fail(fn, str(e).split(": ", 1)[-1])
    fail(fn, f"backend must be a wt.Device or a device name ('cpu', 'webgpu'), got "
             f"{backend!r}", TypeError)


# -- tensors ------------------------------------------------------------------------------------------

def strong(x: Tensor, dt: _d.DType | None = None) -> Tensor:
    """``x`` as a strong (never weak) tensor of ``dt`` (default: its own dtype)."""
    return cast(x, x.dtype if dt is None else dt, weak=False)


def scalar_tensor(x, dt: _d.DType, device) -> Tensor:
    """A Python number as a 0-d tensor of ``dt`` (ints wrap, as Nx's overflow does)."""
    if dt.kind in "iu" and isinstance(x, int):
        bits = dt.itemsize * 8
        x &= (1 << bits) - 1
        if dt.kind == "i" and x >= 1 << (bits - 1):
            x -= 1 << bits
    return from_values([x], (), dt, device)


def to_tensor(x, fn: str, device=None) -> Tensor:
    """Nx.to_tensor: tensors pass (bool tensors become u8), numbers get Nx's default types,
    lists become ``nx.tensor``."""
    if x.__class__ is Tensor:
        if x.dtype is _d.bool:
            return cast(x, _d.uint8, weak=False)
        return x
    if is_number(x):
        x = number(x, fn)
        dev = device if device is not None else default_device()
        return scalar_tensor(x, number_type(x), dev)
    if isinstance(x, (list, tuple)):
        from ._creation import tensor

        return tensor(x, backend=device)
    if hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
        from ..api.creation import asarray

        t = asarray(x, device=device)
        return cast(t, _d.uint8, weak=False) if t.dtype is _d.bool else strong(t)
    fail(fn, f"expected a tensor or a number, got {type(x).__name__} ({x!r:.50})", TypeError)


def operand_as(x, dt: _d.DType, device, fn: str) -> Tensor:
    """``x`` (tensor or number) as a strong tensor of ``dt`` on ``device``."""
    if x.__class__ is Tensor:
        if x.device is not device:
            fail(fn, f"tensors live on different backends ({x.device.name} and {device.name}); "
                     f"move one with nx.backend_transfer(t, {device.name!r})")
        return strong(x, dt)
    if is_number(x):
        return strong(operand(number(x, fn), dt, device), dt)
    return strong(to_tensor(x, fn, device), dt)


def common_device(args, fn: str):
    """The device of the tensors among ``args`` (they must agree), else the default one."""
    dev = None
    for a in args:
        if a.__class__ is Tensor:
            if dev is None:
                dev = a.device
            elif a.device is not dev:
                fail(fn, f"tensors live on different backends ({dev.name} and {a.device.name}); "
                         f"move one with nx.backend_transfer(t, {dev.name!r})")
    return default_device() if dev is None else dev


def prepare(args, fn: str):
    """Numbers (atoms decoded) stay numbers, everything else becomes a tensor; -> (args, device)."""
    out = []
    for a in args:
        if a.__class__ is Tensor:
            out.append(a if a.dtype is not _d.bool else cast(a, _d.uint8, weak=False))
        elif is_number(a):
            out.append(number(a, fn))
        else:
            out.append(to_tensor(a, fn))
    return out, common_device(out, fn)


def tensors_as(args, dt, fn: str):
    """Every argument as a strong tensor of ``dt`` on their common device."""
    args, dev = prepare(args, fn)
    return [operand_as(a, dt, dev, fn) for a in args]


def check_concrete(t: Tensor, fn: str) -> None:
    """Nx's defn error when a value is read while a function is being compiled."""
    if is_traced(t):
        raise ConcretizationError(
            f"nx.{fn}: cannot read the values of a tensor inside defn/jit: while the function is "
            f"compiled a tensor is an expression (Nx.Defn.Expr), its values exist only when the "
            f"compiled function runs. Return the tensor from the defn function and read it "
            f"outside, or use tensor operations (nx.select, ...) instead of Python branches")


# -- shapes, axes, names ------------------------------------------------------------------------------

def shape_of(x, fn: str) -> tuple:
    """Nx's shape argument: a tuple of sizes, a tensor (its shape) or a number (``()``)."""
    if x.__class__ is Tensor:
        return x.shape
    if is_number(x):
        return ()
    if isinstance(x, (tuple, list)) and all(isinstance(n, int) and not isinstance(n, bool)
                                            for n in x):
        if any(n < 0 for n in x):
            fail(fn, f"invalid dimension in shape {tuple(x)}: sizes must be >= 0")
        return tuple(x)
    fail(fn, f"expected a shape: a tuple of sizes such as (2, 3), a tensor or a number, got "
             f"{x!r:.60}", TypeError)


def names_of(x) -> tuple:
    if x.__class__ is Tensor:
        return x.names if x.names is not None else (None,) * x.ndim
    return ()


def check_names(names, rank: int, fn: str):
    """``names`` (a list of str/None, or None) for a tensor of ``rank`` -> wt names (or None)."""
    if names is None:
        return None
    names = list(names)
    if len(names) != rank:
        fail(fn, f"invalid names for tensor of rank {rank}, when specifying names every "
                 f"dimension must have a name or be None")
    for n in names:
        if n is not None and not isinstance(n, str):
            fail(fn, f"names must be strings or None, got {n!r}", TypeError)
    named = [n for n in names if n is not None]
    if len(set(named)) != len(named):
        fail(fn, f"names must be unique, got {names}")
    return tuple(names) if named else None


def norm_names(names):
    if names is None:
        return None
    names = tuple(names)
    return names if any(n is not None for n in names) else None


def axis_index(t, axis, fn: str, rank: int | None = None) -> int:
    """An axis by number (negative counts from the back) or by name."""
    rank = t.ndim if rank is None else rank
    if isinstance(axis, str):
        names = getattr(t, "names", None) or ()
        if axis not in names:
            fail(fn, f"key {axis!r} not found in tensor with names {list(names_of(t))}")
        return names.index(axis)
    if isinstance(axis, bool) or not isinstance(axis, int):
        fail(fn, f"an axis must be an integer or a name, got {axis!r}", TypeError)
    if not -rank <= axis < rank:
        fail(fn, f"given axis ({axis}) invalid for shape with rank {rank}")
    return axis % rank if rank else 0


def axes_list(t, axes, fn: str) -> list:
    """Nx's ``axes:`` option (None: every axis) -> sorted unique axis numbers."""
    if axes is None:
        return list(range(t.ndim))
    if not isinstance(axes, (list, tuple)):
        fail(fn, f"axes must be a list of axes (numbers or names), got {axes!r}", TypeError)
    out = [axis_index(t, a, fn) for a in axes]
    if len(set(out)) != len(out):
        fail(fn, f"axes {list(axes)} repeat an axis")
    return sorted(out)


def int_list(value, n: int, fn: str, what: str, minimum: int | None = None) -> list:
    """An int (repeated ``n`` times) or a list of ``n`` ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value] * n
    if not isinstance(value, (list, tuple)) or len(value) != n or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        fail(fn, f"{what} must be an integer or a list of {n} integers, got {value!r}")
    if minimum is not None and any(v < minimum for v in value):
        fail(fn, f"{what} must be >= {minimum}, got {list(value)}")
    return list(value)


def flag(value, fn: str, what: str) -> bool:
    if value is True or value is False:
        return value
    fail(fn, f"{what} must be True or False, got {value!r}", TypeError)


def option(value, fn: str, what: str, choices) -> str:
    if value not in choices:
        fail(fn, f"{what} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


# -- running in Nx's promotion mode ------------------------------------------------------------------

def nx_function(f):
    """Run ``f`` with the ``nx`` promotion mode active (the core ops it calls on numbers and
    mixed types then merge types as Nx does)."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        with _p.promotion_mode("nx"):
            return f(*args, **kwargs)
    return wrapper


def new_tensor(values: list, shape, dt, device, names=None) -> Tensor:
    return from_values(values, tuple(shape), dt, device, names=names)
