"""Creating tensors the Nx way: ``tensor``, ``iota``, ``eye``, ``template``, diagonals, random
tensors, ``broadcast`` and the ``~V``/``~M`` sigils (``sigil_V``, ``sigil_M``)."""

from __future__ import annotations

import math
import re

from .. import dtypes as _d
from .. import random as _random
from ..api import _reduce as _r
from ..api import creation as _c
from ..api import elementwise as _ew
from ..api import linalg as _la
from ..api import manipulation as _m
from ..tensor import Tensor, broadcast_view, cast, empty
from ._core import (
    ATOMS,
    axis_index,
    check_names,
    device_of,
    fail,
    is_number,
    merge,
    names_of,
    new_tensor,
    norm_names,
    number_type,
    nx_function,
    operand_as,
    parse_type,
    shape_of,
    strong,
    to_tensor,
)

__all__ = ["tensor", "iota", "eye", "template", "make_diagonal", "put_diagonal",
           "take_diagonal", "broadcast", "random_uniform", "random_normal", "shuffle",
           "sigil_V", "sigil_M", "is_tensor"]


# -- nx.tensor ------------------------------------------------------------------------------------

def _flatten(data, fn: str):
    """Nested lists -> (shape, flat values); ragged nesting raises Nx's error."""
    if not isinstance(data, (list, tuple)):
        return (), [data]
    if not data:
        return (0,), []
    parts = [_flatten(item, fn) for item in data]
    inner = parts[0][0]
    for shape, _ in parts:
        if shape != inner:
            fail(fn, f"cannot build tensor because lists have different shapes, got {inner} "
                     f"at position 0 and {shape} at another position")
    return (len(data),) + inner, [v for _, vals in parts for v in vals]


def _value(v, fn: str):
    if isinstance(v, str):
        if v in ATOMS:
            return ATOMS[v]
        fail(fn, f"invalid value {v!r}: expected a number, True/False or one of the atoms "
                 f"{', '.join(map(repr, ATOMS))}", TypeError)
    if isinstance(v, Tensor):
        if v.ndim:
            fail(fn, "a list of tensors must be made of scalars; use nx.stack", TypeError)
        return v.item()
    if isinstance(v, (bool, int, float, complex)):
        return v
    fail(fn, f"invalid value {v!r:.40} ({type(v).__name__}): expected a number", TypeError)


def _inferred(values) -> _d.DType:
    """Nx's type inference for a list: floats make f32, complex c64, booleans alone u8."""
    dt = None
    for v in values:
        t = _d.float32 if isinstance(v, float) else number_type(v)
        dt = t if dt is None else merge(dt, t)
    return _d.int64 if dt is None else dt


@nx_function
def tensor(data, *, type=None, names=None, backend=None) -> Tensor:  # noqa: A002 - Nx's name
    """A tensor from a number, nested lists of numbers (or True/False, or the atoms ``"nan"``,
    ``"infinity"``, ``"neg_infinity"``), with Nx's default types (s64, f32, c64, u8 for
    booleans); a given ``type`` wraps integers that do not fit, as Nx does."""
    fn = "tensor"
    dt = parse_type(type, fn)
    dev = device_of(backend, fn)
    if isinstance(data, Tensor):
        out = to_tensor(data, fn)
        out = out if dt is None else strong(out, dt)
        if out.device is not dev and backend is not None:
            out = _c.asarray(out, device=dev, copy=True)
        names = check_names(names, out.ndim, fn) if names is not None else out.names
        return out._view(out.shape, out.strides, out.offset, names=names) \
            if names != out.names else out
    shape, flat = _flatten(data, fn)
    values = [_value(v, fn) for v in flat]
    if dt is None:
        dt = _inferred(values)
        if any(isinstance(v, float) and not math.isfinite(v) for v in values) and \
                dt.kind in "iu":
            dt = _d.float32
    if dt.kind in "iu" and any(isinstance(v, (float, complex)) for v in values):
        fail(fn, f"cannot build a {dt.nx} tensor from the float values in {data!r:.60}; "
                 f"give a float type or integers", TypeError)
    if dt.kind != "c" and any(isinstance(v, complex) for v in values):
        fail(fn, f"cannot build a {dt.nx} tensor from complex values; give type c64 or c128",
             TypeError)
    if dt.kind in "iu":  # Nx's overflow: the low bits of the integer
        bits = dt.itemsize * 8
        values = [int(v) & ((1 << bits) - 1) for v in values]
        if dt.kind == "i":
            values = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in values]
    return new_tensor(values, shape, dt, dev, check_names(names, len(shape), fn))


# -- iota, eye, template -----------------------------------------------------------------------------

@nx_function
def iota(tensor_or_shape, *, axis=None, names=None, type=None, backend=None) -> Tensor:  # noqa: A002
    """Counting up over the whole shape, or along ``axis`` (repeated over the other axes)."""
    fn = "iota"
    shape = shape_of(tensor_or_shape, fn)
    dt = parse_type(type, fn) or _d.int64
    names = check_names(names, len(shape), fn) if names is not None else \
        norm_names(names_of(tensor_or_shape)) if isinstance(tensor_or_shape, Tensor) else None
    dev = device_of(backend, fn)
    if axis is None:
        n = math.prod(shape)
        out = cast(_r.iota(n, dev), dt, weak=False)
        return _r.reshape(out, shape, names)
    ax = axis_index(_Shaped(shape, names), axis, fn)
    line = cast(_r.iota(shape[ax], dev), dt, weak=False)
    view = _r.reshape(line, tuple(n if i == ax else 1 for i, n in enumerate(shape)))
    return _materialize(broadcast_view(view, shape), names)


class _Shaped:
    """A shape with names, standing in for a tensor where only those are needed."""

    __slots__ = ("shape", "names", "ndim")

    def __init__(self, shape, names):
        self.shape, self.names, self.ndim = tuple(shape), names, len(shape)


def _materialize(x: Tensor, names=None) -> Tensor:
    out = empty(x.shape, x.dtype, x.device, names=names)
    if out.size:
        x._backend.copy(out, x)
    return out


@nx_function
def eye(n_or_tensor_or_shape, *, type=None, names=None, backend=None) -> Tensor:  # noqa: A002
    """The identity matrix: ``eye(3)``, ``eye((2, 2))``, or of a square tensor's shape; with
    more than two dimensions, a stack of identities over the leading ones."""
    fn = "eye"
    arg = n_or_tensor_or_shape
    if isinstance(arg, int) and not isinstance(arg, bool):
        if arg <= 0:
            fail(fn, f"expected a positive size, got {arg}")
        shape = (arg, arg)
    else:
        shape = shape_of(arg, fn)
        if len(shape) < 2 or shape[-1] != shape[-2]:
            fail(fn, f"eye/2 expects a square matrix shape (or a batch of them), got {shape}")
    dt = parse_type(type, fn) or _d.int64
    dev = device_of(backend, fn)
    names = check_names(names, len(shape), fn) if names is not None else \
        norm_names(names_of(arg)) if isinstance(arg, Tensor) else None
    out = _r.full(shape, 0, dt, dev, names)
    _m.write(_la.diagonal_view(out, 0, -2, -1, fn), _r.full((), 1, dt, dev), fn)
    return out


@nx_function
def template(shape, type, *, names=None):  # noqa: A002 - Nx's name
    """A tensor with a shape, type and names but no data (``Nx.TemplateBackend``): every
    operation on it raises."""
    from ._backend import make_template

    fn = "template"
    shape = shape_of(shape, fn)
    dt = parse_type(type, fn)
    if dt is None:
        fail(fn, "a type is required, e.g. nx.template((2, 3), \"f32\")", TypeError)
    return make_template(shape, dt, check_names(names, len(shape), fn))


# -- diagonals -----------------------------------------------------------------------------------------

def _check_offset(rows: int, cols: int, offset: int, fn: str) -> None:
    if offset > 0 and offset >= cols:
        fail(fn, f"offset must be less than length of axis 1 when positive, got: {offset}")
    if offset < 0 and -offset >= rows:
        fail(fn, f"absolute value of offset must be less than length of axis 0 when negative, "
                 f"got: {offset}")


@nx_function
def take_diagonal(tensor, *, offset=0) -> Tensor:
    """The ``offset`` diagonal of (a batch of) matrices, over the last two axes."""
    fn = "take_diagonal"
    t = to_tensor(tensor, fn)
    if t.ndim < 2:
        fail(fn, f"take_diagonal/2 expects tensor of rank 2 or higher, got tensor of rank: "
                 f"{t.ndim}")
    _check_offset(t.shape[-2], t.shape[-1], offset, fn)
    return _materialize(_la.diagonal_view(t, offset, -2, -1, fn))


@nx_function
def put_diagonal(tensor, diagonal, *, offset=0) -> Tensor:
    """A copy of the matrix ``tensor`` with ``diagonal`` written on its ``offset`` diagonal."""
    fn = "put_diagonal"
    t, d = to_tensor(tensor, fn), to_tensor(diagonal, fn)
    if t.ndim != 2:
        fail(fn, f"put_diagonal/3 expects tensor of rank 2, got tensor of rank: {t.ndim}")
    if d.ndim != 1:
        fail(fn, f"put_diagonal/3 expects diagonal of rank 1, got tensor of rank: {d.ndim}")
    rows, cols = t.shape
    _check_offset(rows, cols, offset, fn)
    length = min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols)
    if d.shape[0] != length:
        fail(fn, f"expected diagonal tensor of length: {length}, got diagonal tensor of "
                 f"length: {d.shape[0]}")
    dt = merge(t, d)
    out = _materialize(strong(t, dt), t.names)
    _m.write(_la.diagonal_view(out, offset, 0, 1, fn), operand_as(d, dt, out.device, fn), fn)
    return out


@nx_function
def make_diagonal(tensor, *, offset=0) -> Tensor:
    """A square matrix with the vector ``tensor`` on its ``offset`` diagonal."""
    fn = "make_diagonal"
    t = to_tensor(tensor, fn)
    if t.ndim != 1:
        fail(fn, f"make_diagonal/2 expects tensor of rank 1, got tensor of rank: {t.ndim}")
    n = t.shape[0] + abs(offset)
    out = _r.full((n, n), 0, t.dtype, t.device)
    _m.write(_la.diagonal_view(out, offset, 0, 1, fn), strong(t), fn)
    return out


# -- broadcast -----------------------------------------------------------------------------------------

@nx_function
def broadcast(tensor, shape, *, axes=None, names=None) -> Tensor:
    """``tensor`` broadcast to ``shape`` (a tuple, or a tensor's shape); ``axes`` says which
    axis of the result each axis of ``tensor`` becomes (default: the last ones)."""
    fn = "broadcast"
    t = to_tensor(tensor, fn)
    target = shape_of(shape, fn)
    if axes is None:
        axes = list(range(len(target) - t.ndim, len(target)))
    else:
        axes = [a + len(target) if isinstance(a, int) and a < 0 else a for a in axes]
    if len(axes) != t.ndim or any(not 0 <= a < len(target) for a in axes) or \
            list(axes) != sorted(set(axes)):
        fail(fn, f"cannot broadcast tensor of dimensions {t.shape} to {target} with axes "
                 f"{list(axes)}")
    view_shape = [1] * len(target)
    for i, a in enumerate(axes):
        if t.shape[i] not in (1, target[a]):
            fail(fn, f"cannot broadcast tensor of dimensions {t.shape} to {target} with axes "
                     f"{list(axes)}")
        view_shape[a] = t.shape[i]
    # Nx: broadcasting drops names; they come from ``names`` or from the shape's tensor
    if names is not None:
        out_names = check_names(names, len(target), fn)
    else:
        out_names = shape.names if isinstance(shape, Tensor) else None
    view = _r.reshape(t, tuple(view_shape))
    return _materialize(broadcast_view(view, tuple(target)), out_names)


# -- random --------------------------------------------------------------------------------------------

def _random_setup(tensor_or_shape, names, fn: str):
    shape = shape_of(tensor_or_shape, fn)
    if names is not None:
        names = check_names(names, len(shape), fn)
    elif isinstance(tensor_or_shape, Tensor):
        names = norm_names(names_of(tensor_or_shape))
    return shape, names


def _key(key, fn: str):
    return _random.next_key() if key is None else key


@nx_function
def random_uniform(tensor_or_shape, min=0.0, max=1.0, *, type=None, names=None,  # noqa: A002
                   backend=None, key=None) -> Tensor:
    """Uniform values in ``[min, max)``: floats (f32 by default) or, for integer bounds and
    types, integers.  Draws from ``wt.random``'s process-wide generator unless a ``key`` (a
    ``wt.random.key``) is given."""
    fn = "random_uniform"
    shape, names = _random_setup(tensor_or_shape, names, fn)
    lo, hi = to_tensor(min, fn), to_tensor(max, fn)
    if lo.ndim or hi.ndim:
        fail(fn, f"random_uniform/3 expects min and max to be scalars, got: min shape: "
                 f"{lo.shape} and max shape: {hi.shape}")
    range_type = merge(lo, hi)
    dt = parse_type(type, fn) or range_type
    if not (dt.kind in "fc" or (dt.kind in "iu" and range_type.kind in "iu")):
        fail(fn, f"random_uniform/3 expects compatible types, got: {dt.nx} with range "
                 f"{range_type.nx}", TypeError)
    dev = device_of(backend, fn)
    k = _key(key, fn)
    lo_v, hi_v = lo.item() if not isinstance(min, (int, float)) else min, \
        hi.item() if not isinstance(max, (int, float)) else max
    if dt.kind in "iu":
        out = _random.randint(k, shape, int(lo_v), int(hi_v), dtype=dt, device=dev)
    elif dt.kind == "c":
        part = dt.real_dtype
        k1, k2 = _random.split(k)
        re = _random.uniform(k1, shape, dtype=part, minval=float(lo_v), maxval=float(hi_v),
                             device=dev)
        im = _random.uniform(k2, shape, dtype=part, minval=float(lo_v), maxval=float(hi_v),
                             device=dev)
        out = _ew.complex(re, im)
    else:
        out = _random.uniform(k, shape, dtype=dt, minval=float(lo_v), maxval=float(hi_v),
                              device=dev)
    return out._view(out.shape, out.strides, out.offset, names=names)


@nx_function
def random_normal(tensor_or_shape, mu=0.0, sigma=1.0, *, type=None, names=None,  # noqa: A002
                  backend=None, key=None) -> Tensor:
    """Normal values with mean ``mu`` and standard deviation ``sigma`` (f32 by default)."""
    fn = "random_normal"
    shape, names = _random_setup(tensor_or_shape, names, fn)
    m, s = to_tensor(mu, fn), to_tensor(sigma, fn)
    if m.ndim or s.ndim:
        fail(fn, f"random_normal/3 expects mu and sigma to be scalars got: mu shape: "
                 f"{m.shape} and sigma shape: {s.shape}")
    if m.dtype.kind not in "fc" or s.dtype.kind not in "fc":
        fail(fn, f"random_normal/3 expects mu and sigma to be float types, got: mu type: "
                 f"{m.dtype.nx} and sigma type: {s.dtype.nx}", TypeError)
    dt = parse_type(type, fn) or _d.float32
    if dt.kind not in "fc":
        fail(fn, f"random_normal/3 expects float type, got: {dt.nx}", TypeError)
    dev = device_of(backend, fn)
    k = _key(key, fn)
    mean = mu if isinstance(mu, (int, float)) else m.item()
    std = sigma if isinstance(sigma, (int, float)) else s.item()
    if dt.kind == "c":
        k1, k2 = _random.split(k)
        part = dt.real_dtype
        out = _ew.complex(_random.normal(k1, shape, dtype=part, mean=float(mean),
                                         stddev=float(std), device=dev),
                          _random.normal(k2, shape, dtype=part, mean=float(mean),
                                         stddev=float(std), device=dev))
    else:
        out = _random.normal(k, shape, dtype=dt, mean=float(mean), stddev=float(std),
                             device=dev)
    return out._view(out.shape, out.strides, out.offset, names=names)


@nx_function
def shuffle(tensor, *, axis=None, key=None) -> Tensor:
    """``tensor``'s elements in a random order (along ``axis`` when given)."""
    fn = "shuffle"
    t = to_tensor(tensor, fn)
    k = _key(key, fn)
    if axis is None:
        flat = _r.reshape(t, (t.size,))
        return _r.reshape(_random.shuffle(k, flat, 0), t.shape, t.names)
    ax = axis_index(t, axis, fn)
    return _random.shuffle(k, t, ax)


# -- sigils ---------------------------------------------------------------------------------------------

_SIGIL_NUMBER = re.compile(r"^(?P<re>[+-]?(?:Inf|NaN|[0-9][0-9_]*(?:\.[0-9_]+)?(?:e[+-]?[0-9]+)?)"
                           r"(?![i0-9]))?(?P<im>[+-]?(?:Inf|NaN|[0-9][0-9_]*(?:\.[0-9_]+)?"
                           r"(?:e[+-]?[0-9]+)?)?i)?$")


def _sigil_value(text: str, fn: str):
    m = _SIGIL_NUMBER.match(text)
    if not m or (m.group("re") is None and m.group("im") is None):
        fail(fn, f"expected a number in the sigil, got {text!r}")

    def part(s):
        s = s.replace("_", "")
        sign = -1.0 if s.startswith("-") else 1.0
        body = s.lstrip("+-")
        if body == "Inf":
            return sign * math.inf
        if body == "NaN":
            return math.nan
        if body == "":
            return sign * 1.0
        return float(s) if any(c in body for c in ".e") else int(s)

    re_part = part(m.group("re")) if m.group("re") else 0.0
    if m.group("im") is None:
        return re_part
    return complex(float(re_part), float(part(m.group("im")[:-1])))


def _sigil(text: str, modifier, fn: str):
    rows = [line.split() for line in text.strip().splitlines() if line.strip()]
    values = [[_sigil_value(v, fn) for v in row] for row in rows]
    flat = [v for row in values for v in row]
    dt = parse_type(modifier, fn) if modifier else None
    if dt is None:
        if any(isinstance(v, complex) for v in flat):
            dt = _d.complex64
        elif any(isinstance(v, float) for v in flat):
            dt = _d.float32
        else:
            dt = _d.int64
    if dt.kind in "fc":
        values = [[complex(v) if dt.kind == "c" else float(v) for v in row] for row in values]
    return values, dt


def sigil_V(text: str, modifier=None, *, backend=None) -> Tensor:  # noqa: N802 - Nx's name
    """``~V[1 2 3]f32`` as ``nx.sigil_V("1 2 3", "f32")``: a vector from space-separated
    numbers (``Inf``, ``NaN`` and complex ``1+2i`` allowed)."""
    values, dt = _sigil(text, modifier, "sigil_V")
    if len(values) != 1:
        fail("sigil_V", "a vector sigil takes one line of numbers")
    return tensor(values[0], type=dt, backend=backend)


def sigil_M(text: str, modifier=None, *, backend=None) -> Tensor:  # noqa: N802 - Nx's name
    """``~M[...]`` as ``nx.sigil_M("1 2\\n3 4", "s32")``: a matrix, one row per line."""
    values, dt = _sigil(text, modifier, "sigil_M")
    return tensor(values, type=dt, backend=backend)


def is_tensor(x) -> bool:
    """Nx's ``is_tensor`` guard: a number or a tensor."""
    return isinstance(x, Tensor) or (is_number(x) and not isinstance(x, str))

