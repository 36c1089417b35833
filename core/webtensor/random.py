"""``wt.random``: counter-based random numbers that are the same on every device.

Where it sits: distributions here are compositions of webtensor ops over raw uint32 words that
the device's backend draws with ``backend.random_bits(out, key, counter)`` (Philox-4x32-10, see
``backends/_philox.py``).  The words are identical on every device; turning them into values
uses exact arithmetic (shifts, int->float casts of small ints, multiplication by powers of two),
so ``bits``, ``uniform``, ``randint``, ``bernoulli``, ``permutation``/``shuffle`` and ``choice``
(without ``p``) give bit-identical results everywhere.  ``normal`` uses ``log``/``sqrt``/``cos``:
on the CPU it is computed in float64 and rounded, so the NumPy and pure-Python backends agree
(barring a one-in-billions rounding tie); other devices may differ in the last bit or two.

Keys (JAX style, explicit and functional)::

    key = wt.random.key(42)               # any Python int seed
    k1, k2 = wt.random.split(key)         # never reuse a key once it is split
    x = wt.random.normal(k1, (3, 4))
    y = wt.random.uniform(k2, (5,), minval=-1.0, maxval=1.0)

A :class:`Key` is an immutable pair of uint32 words held as Python ints, not a tensor: the words
are parameters of the generator, so drawing on a GPU never waits on a read-back.  Every function
also accepts a raw ``(k0, k1)`` pair or a uint32 tensor of shape ``(2,)`` (JAX's raw key layout;
see :func:`key_data` / :func:`wrap_key_data`).

Stream layout (a contract other devices follow): a draw of ``n`` words from key ``k`` uses
Philox blocks ``0, 1, ...`` of ``k``; element ``i`` of a draw uses words ``[w*i, w*(i+1))`` where
``w`` is the number of words per element (1, or 2 for 64-bit results), so a smaller draw is a
prefix of a larger one.  ``split``/``fold_in`` use other halves of the 128-bit counter space.

Stateful convenience (NumPy style): ``wt.random.seed(0)``, then ``rand``, ``randn``,
``random``, ``integers`` draw from a process-wide key that advances on every call.  It is guarded
by a lock, so threads never get the same key, but the order in which threads draw is up to the
scheduler: use explicit keys for reproducible multi-threaded code.
"""

from __future__ import annotations

import math
import os
import threading

from . import _tracing, _validate
from . import dtypes as _d
from . import ops as _ops
from . import shape as _s
from .api import elementwise as _ew
from .backends import _philox
from .backends.base import computes_in_float64
from .device import as_device
from .tensor import Tensor, broadcast_view, cast, empty, from_values, scalar

__all__ = [
    "Key", "key", "PRNGKey", "key_data", "wrap_key_data", "split", "fold_in",
    "bits", "uniform", "normal", "randint", "bernoulli", "permutation", "shuffle", "choice",
    "seed", "next_key", "rand", "randn", "random", "random_sample", "integers",
]

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1


# -- keys -----------------------------------------------------------------------------------------

class Key:
    """A generator key: two uint32 words.  Immutable, hashable; make one with :func:`key`."""

    __slots__ = ("_words",)

    def __init__(self, k0: int, k1: int):
        for w in (k0, k1):
            if not isinstance(w, int) or isinstance(w, bool) or not 0 <= w <= _M32:
                raise ValueError(f"wt.random.Key: key words must be ints in [0, 2**32), got "
                                 f"({k0!r}, {k1!r}); use wt.random.key(seed) for a seed")
        self._words = (int(k0), int(k1))

    @property
    def words(self) -> tuple[int, int]:
        return self._words

    def __iter__(self):
        return iter(self._words)

    def __len__(self) -> int:
        return 2

    def __getitem__(self, i):
        return self._words[i]

    def __eq__(self, other) -> bool:
        if isinstance(other, Key):
            return self._words == other._words
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("wt.random.Key", self._words))

    def __repr__(self) -> str:
        return f"wt.random.Key({self._words[0]}, {self._words[1]})"

    def __reduce__(self):
        return (Key, self._words)


def _int_arg(value, fn: str, what: str, fix: str) -> int:
    if isinstance(value, bool) or value is None:
        raise TypeError(f"wt.random.{fn}: {what} must be an int, got {value!r}; {fix}")
    if isinstance(value, Tensor):
        if value.size != 1 or value.dtype.kind not in "iu":
            raise TypeError(f"wt.random.{fn}: {what} must be an int or a one-element integer "
                            f"tensor, got a {value.dtype.name} tensor of shape {value.shape}")
        return int(value.item())
    if isinstance(value, int):
        return int(value)
    index = getattr(value, "__index__", None)
    if index is not None and not isinstance(value, float):
        return int(index())
    raise TypeError(f"wt.random.{fn}: {what} must be an int, got {value!r} "
                    f"({type(value).__name__}); {fix}")


def key(seed) -> Key:
    """The key of an integer ``seed`` (any Python int: negative and >64-bit seeds too).

    Seeds in ``[-2**63, 2**64)`` map like JAX's ``PRNGKey``: ``(high 32 bits, low 32 bits)`` of
    the 64-bit two's complement value (so ``key(-1) == key(2**64 - 1)``); larger seeds are
    hashed with Philox.
    """
    s = _int_arg(seed, "key", "seed", "e.g. wt.random.key(int(seed))")
    return Key(*_philox.seed_key(s))


PRNGKey = key  # JAX's older name


def _as_key(k, fn: str) -> Key:
    if isinstance(k, Key):
        return k
    if isinstance(k, Tensor):
        if k.shape != (2,) or k.dtype.kind not in "iu":
            raise TypeError(f"wt.random.{fn}: a key tensor must be integer with shape (2,) "
                            f"(JAX's raw key layout), got {k.dtype.name} {k.shape}")
        return Key(*[int(v) & _M32 for v in k.tolist()])
    if isinstance(k, (tuple, list)) and len(k) == 2 and all(
            isinstance(w, int) and not isinstance(w, bool) for w in k):
        return Key(k[0], k[1])
    if isinstance(k, int) and not isinstance(k, bool):
        raise TypeError(f"wt.random.{fn}: expected a key, got the int {k!r}; make a key with "
                        f"wt.random.key({k!r}) and pass that")
    raise TypeError(f"wt.random.{fn}: expected a key from wt.random.key(seed), got {k!r} "
                    f"({type(k).__name__})")


def key_data(k, *, device=None) -> Tensor:
    """The key's two words as a uint32 tensor of shape (2,) (JAX's raw key)."""
    k = _as_key(k, "key_data")
    return from_values(list(k.words), (2,), _d.uint32, as_device(device, "random.key_data"))


def wrap_key_data(data) -> Key:
    """A :class:`Key` from a uint32 tensor of shape (2,) or a pair of ints."""
    return _as_key(data, "wrap_key_data")


def split(k, num: int = 2) -> tuple[Key, ...]:
    """``num`` new independent keys derived from ``k`` (``k1, k2 = split(k)``)."""
    k = _as_key(k, "split")
    n = _int_arg(num, "split", "num", "e.g. split(key, 3)")
    _validate.count(n, "wt.random.split", "num")
    return tuple(Key(*w) for w in _philox.split(k.words, n))


def fold_in(k, data) -> Key:
    """A new key from ``k`` and an integer ``data`` in ``[-2**63, 2**64)`` (step, rank...)."""
    k = _as_key(k, "fold_in")
    d = _int_arg(data, "fold_in", "data", "fold in an integer such as a step number")
    if not -(1 << 63) <= d < (1 << 64):
        raise ValueError(f"wt.random.fold_in: data {d} is outside [-2**63, 2**64); fold in "
                         f"smaller pieces (fold_in(fold_in(key, a), b))")
    return Key(*_philox.fold_in(k.words, d))


# -- raw words ------------------------------------------------------------------------------------

def _fill_words(out: Tensor, words: tuple[int, int], counter: int = 0) -> None:
    """Fill the uint32 tensor ``out`` through the backend primitive."""
    backend = out.device.backend
    try:
        backend.random_bits(out, words, counter)
    except NotImplementedError:
        # NOTE: a backend without a native primitive gets host-generated words (same stream).
        try:
            raw = _philox.philox_words_numpy(words, counter, out.size).tobytes()
        except ImportError:
            import struct

            raw = struct.pack(f"<{out.size}I", *_philox.philox_words_python(words, counter,
                                                                          out.size))
        host = Tensor._wrap(backend.from_bytes(_d.uint32, raw), out.shape, _d.uint32, out.device)
        backend.copy(out, host)


def _words(k: Key, n: int, device) -> Tensor:
    out = empty((n,), _d.uint32, device)
    if n:
        _fill_words(out, k.words)
    return out


def _lane(w: Tensor, n: int, lanes: int, i: int) -> Tensor:
    """Word ``i`` of each group of ``lanes`` consecutive words (a strided view, no copy)."""
    if lanes == 1:
        return w
    return w._view((n,), (lanes,), w.offset + i if n else w.offset)


def _c(value, dt, device) -> Tensor:
    """A constant of exactly ``dt``: keeps every op same-dtype in every promotion mode."""
    return scalar(value, dt, device)


def _reshape(t: Tensor, shape) -> Tensor:
    """A fresh contiguous (n,) result seen with ``shape``."""
    if t.shape == shape:
        return t
    if getattr(t, "_dense", False):  # the whole buffer: keep the backends' dense fast path
        return Tensor._wrap(t._data, shape, t.dtype, t.device, weak=t.weak)
    return t._view(shape, _s.contiguous_strides(shape), t.offset)


def _setup(fn, k, shape, device):
    k = _as_key(k, fn)
    shape = _s.as_shape(shape, f"random.{fn}")
    return k, shape, as_device(device, f"random.{fn}")


def _float_dtype(dtype, fn: str):
    dt = _d.default_float_dtype() if dtype is None else _d.dtype(dtype)
    if dt.kind not in _ops.function_kinds(f"random.{fn}"):
        raise TypeError(f"wt.random.{fn}: dtype must be a real floating dtype (float16, "
                        f"bfloat16, float32, float64), got {dt.name}")
    return dt


def bits(key, shape=(), dtype=_d.uint32, *, device=None) -> Tensor:
    """Raw random bits: uint8/16/32 take the top bits of one word per element, uint64 joins two
    words (the first is the high half)."""
    k, shape, dev = _setup("bits", key, shape, device)
    dt = _d.dtype(dtype)
    if dt.kind not in _ops.function_kinds("random.bits"):
        raise TypeError(f"wt.random.bits: dtype must be an unsigned integer dtype (uint8, "
                        f"uint16, uint32, uint64), got {dt.name}; view or cast the result")
    n = _s.size_of(shape)
    if dt is _d.uint64:
        w = _words(k, 2 * n, dev)
        out = _join64(_lane(w, n, 2, 0), _lane(w, n, 2, 1), dev)
    else:
        out = _words(k, n, dev)
        if dt is not _d.uint32:
            out = cast(_ew.bitwise_right_shift(out, _c(32 - dt.bits, _d.uint32, dev)), dt)
    return _reshape(out, shape)


def _join64(hi: Tensor, lo: Tensor, dev) -> Tensor:
    u64 = _d.uint64
    return _ew.bitwise_or(_ew.bitwise_left_shift(cast(hi, u64), _c(32, u64, dev)), cast(lo, u64))


# -- uniform --------------------------------------------------------------------------------------

# Words per element and the bits kept, per float dtype: u = (w >> (32 - b)) * 2**-b, exact.
_UNIFORM_BITS = {_d.float16: 11, _d.bfloat16: 8, _d.float32: 24}


def _unit_words(dt) -> int:
    return 2 if dt is _d.float64 else 1


def _unit(w: Tensor, n: int, dt, dev, lanes: int = 1, first: int = 0) -> Tensor:
    """Uniform [0, 1) values of dtype ``dt`` from the words ``w`` (exact arithmetic).

    float64: 53 bits, ``((w0 >> 5) * 2**26 + (w1 >> 6)) * 2**-53``; float32: ``(w >> 8) * 2**-24``;
    float16: 11 bits; bfloat16: 8 bits (every value on the grid is exact in the dtype, so the
    result never rounds up to 1).
    """
    u32 = _d.uint32
    if dt is _d.float64:
        a = cast(_ew.bitwise_right_shift(_lane(w, n, lanes, first), _c(5, u32, dev)), dt)
        b = cast(_ew.bitwise_right_shift(_lane(w, n, lanes, first + 1), _c(6, u32, dev)), dt)
        hi = _ew.add(_ew.multiply(a, _c(2.0 ** 26, dt, dev)), b)
        return _ew.multiply(hi, _c(2.0 ** -53, dt, dev))
    b = _UNIFORM_BITS[dt]
    q = cast(_ew.bitwise_right_shift(_lane(w, n, lanes, first), _c(32 - b, u32, dev)), dt)
    return _ew.multiply(q, _c(2.0 ** -b, dt, dev))


def _bound(value, dt, dev, fn: str, what: str) -> Tensor:
    if isinstance(value, Tensor):
        return cast(value, dt, weak=False)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _c(float(value), dt, dev)
    raise TypeError(f"wt.random.{fn}: {what} must be a real number or a tensor, got {value!r}")


def _check_params(shape, params, fn: str) -> None:
    """Tensor parameters (bounds, mean...) must broadcast to the requested ``shape``."""
    shapes = [p.shape for p in params if isinstance(p, Tensor)]
    try:
        ok = _s.broadcast_shapes(shape, *shapes) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"wt.random.{fn}: parameters of shapes {', '.join(map(str, shapes))} "
                         f"do not broadcast to the requested shape {shape}; pass a shape they "
                         f"broadcast to")


def _check_result_shape(t: Tensor, shape, fn: str) -> Tensor:
    assert t.shape == shape, (t.shape, shape)  # guaranteed by _check_params
    return t


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0, *, device=None) -> Tensor:
    """Uniform values in ``[minval, maxval)`` (default dtype: ``wt.default_float_dtype()``).

    The unit value ``u`` in [0, 1) is exact (see ``_unit``); ``minval + u * (maxval - minval)``
    is computed in ``dtype`` (correctly rounded on every device) and clamped below ``maxval``.
    ``minval``/``maxval`` may be tensors broadcasting to ``shape``.
    """
    fn = "uniform"
    k, shape, dev = _setup(fn, key, shape, device)
    dt = _float_dtype(dtype, fn)
    scalars = not isinstance(minval, Tensor) and not isinstance(maxval, Tensor)
    if scalars:
        for name, v in (("minval", minval), ("maxval", maxval)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"wt.random.uniform: {name} must be a real number or a tensor, "
                                f"got {v!r}")
            if not math.isfinite(v):
                raise ValueError(f"wt.random.uniform: {name} must be finite, got {v!r}")
        if not minval < maxval:
            raise ValueError(f"wt.random.uniform: minval must be < maxval, got minval={minval!r}"
                             f", maxval={maxval!r}")
    _check_params(shape, (minval, maxval), fn)
    n = _s.size_of(shape)
    u = _unit(_words(k, _unit_words(dt) * n, dev), n, dt, dev, _unit_words(dt))
    u = _reshape(u, shape)
    if scalars and minval == 0 and maxval == 1:
        return u
    lo = _bound(minval, dt, dev, fn, "minval")
    hi = _bound(maxval, dt, dev, fn, "maxval")
    out = _ew.add(_ew.multiply(u, _ew.subtract(hi, lo)), lo)
    # Rounding can reach maxval (or overflow): keep the interval half-open.
    below = _ew.nextafter(hi, _c(-math.inf, dt, dev))
    out = _ew.maximum(_ew.minimum(out, below), lo)
    return _check_result_shape(out, shape, fn)


# -- normal ---------------------------------------------------------------------------------------

def _normal_compute_dtype(dt, dev):
    # NOTE: on the CPU, float64 makes log/cos/sqrt rounding differences between NumPy and the
    # pure-Python backend vanish once the result is rounded to float32 (or below).  Devices
    # without exact float64 compute in float32 instead (Backend.exact_float64).
    if dt is _d.float64 or dev.backend.exact_float64:
        return _d.float64
    return _d.float32


@computes_in_float64
def normal(key, shape=(), dtype=None, mean=0.0, stddev=1.0, *, device=None) -> Tensor:
    """Normal values (Box-Muller).  Element ``2j`` is ``r cos t``, ``2j + 1`` is ``r sin t`` of
    pair ``j``; ``r = sqrt(-2 log(1 - u1))``, ``t = 2 pi u2``.  ``u1``/``u2`` have 53 bits for
    float64 and 24 bits otherwise (so float32 tails stop near 5.8 sigma, like JAX's)."""
    fn = "normal"
    k, shape, dev = _setup(fn, key, shape, device)
    dt = _float_dtype(dtype, fn)
    for name, v in (("mean", mean), ("stddev", stddev)):
        if not isinstance(v, Tensor) and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise TypeError(f"wt.random.normal: {name} must be a real number or a tensor, got "
                            f"{v!r}")
    _check_params(shape, (mean, stddev), fn)
    n = _s.size_of(shape)
    pairs = (n + 1) // 2
    cdt = _normal_compute_dtype(dt, dev)
    udt = _d.float64 if dt is _d.float64 else _d.float32  # which bits the uniforms take
    per = _unit_words(udt)
    w = _words(k, 2 * per * pairs, dev)
    u1 = cast(_unit(w, pairs, udt, dev, 2 * per, 0), cdt)
    u2 = cast(_unit(w, pairs, udt, dev, 2 * per, per), cdt)
    r = _ew.sqrt(_ew.multiply(_ew.log(_ew.subtract(_c(1.0, cdt, dev), u1)),
                              _c(-2.0, cdt, dev)))
    theta = _ew.multiply(u2, _c(2.0 * math.pi, cdt, dev))
    z = empty((2 * pairs,), cdt, dev)
    backend = dev.backend
    backend.assign(z._view((pairs,), (2,), 0), _ew.multiply(r, _ew.cos(theta)))
    backend.assign(z._view((pairs,), (2,), 1), _ew.multiply(r, _ew.sin(theta)))
    z = z._view(shape, _s.contiguous_strides(shape), 0)
    if not (isinstance(stddev, (int, float)) and stddev == 1):
        z = _ew.multiply(z, _bound(stddev, cdt, dev, fn, "stddev"))
    if not (isinstance(mean, (int, float)) and mean == 0):
        z = _ew.add(z, _bound(mean, cdt, dev, fn, "mean"))
    return _check_result_shape(cast(z, dt, weak=False), shape, fn)


# -- integers -------------------------------------------------------------------------------------

def randint(key, shape, minval, maxval, dtype=_d.int32, *, device=None) -> Tensor:
    """Integers in ``[minval, maxval)``.

    Each element takes 64 random bits ``x`` (two words) and returns ``minval + x % span``.  The
    modulo bias is at most ``span / 2**64``: below ``2**-32`` for every span up to ``2**32`` (all
    8-, 16- and 32-bit dtypes), and exactly 0 for power-of-two spans.  For int64/uint64 spans
    above ``2**32`` the relative bias grows to ``span / 2**64``.  ``minval``/``maxval`` may be
    integer tensors broadcasting to ``shape``; there, elements with ``maxval <= minval`` give
    ``minval``.
    """
    fn = "randint"
    k, shape, dev = _setup(fn, key, shape, device)
    dt = _d.dtype(dtype)
    if dt.kind not in _ops.function_kinds("random.randint"):
        raise TypeError(f"wt.random.randint: dtype must be an integer dtype, got {dt.name}; "
                        f"use wt.random.uniform for floats")
    n = _s.size_of(shape)
    w = _words(k, 2 * n, dev)
    x = _reshape(_join64(_lane(w, n, 2, 0), _lane(w, n, 2, 1), dev), shape)
    u64 = _d.uint64
    if not isinstance(minval, Tensor) and not isinstance(maxval, Tensor):
        lo = _int_arg(minval, fn, "minval", "pass integer bounds")
        hi = _int_arg(maxval, fn, "maxval", "pass integer bounds")
        info = _d.iinfo(dt)
        if not info.min <= lo < hi <= info.max + 1:
            raise ValueError(f"wt.random.randint: need {info.min} <= minval < maxval <= "
                             f"{info.max + 1} for {dt.name}, got minval={lo}, maxval={hi}; "
                             f"pick bounds inside the dtype or a wider dtype")
        span = hi - lo
        off = x if span == 1 << 64 else _ew.remainder(x, _c(span, u64, dev))
        out = _ew.add(off, _c(lo & _M64, u64, dev))
        return cast(out, dt, weak=False)
    lo_t = minval if isinstance(minval, Tensor) else _c(
        _int_arg(minval, fn, "minval", "pass integer bounds"), dt, dev)
    hi_t = maxval if isinstance(maxval, Tensor) else _c(
        _int_arg(maxval, fn, "maxval", "pass integer bounds"), dt, dev)
    for name, t in (("minval", lo_t), ("maxval", hi_t)):
        if t.dtype.kind not in "iu":
            raise TypeError(f"wt.random.randint: {name} must be an integer tensor, got "
                            f"{t.dtype.name}")
    _check_params(shape, (lo_t, hi_t), fn)
    lo_u, hi_u = cast(lo_t, u64, weak=False), cast(hi_t, u64, weak=False)
    valid = _ew.greater(hi_t, lo_t)
    span = _ew.where(valid, _ew.subtract(hi_u, lo_u), _c(1, u64, dev))
    out = cast(_ew.add(_ew.remainder(x, span), lo_u), dt, weak=False)
    out = _ew.where(valid, out, cast(lo_t, dt, weak=False))
    return _check_result_shape(out, shape, fn)


# -- bernoulli ------------------------------------------------------------------------------------

def bernoulli(key, p=0.5, shape=None, *, device=None) -> Tensor:
    """Booleans, True with probability ``p`` (resolution ``2**-32``): element ``i`` is
    ``word_i < ceil(p * 2**32)``, exactly.  ``shape`` defaults to ``p``'s shape."""
    fn = "bernoulli"
    k = _as_key(key, fn)
    if isinstance(p, Tensor):
        dev = p.device if device is None else as_device(device, "random.bernoulli")
        shape = p.shape if shape is None else _s.as_shape(shape, "random.bernoulli")
        if p.dtype.kind not in _ops.function_kinds("random.bernoulli"):
            raise TypeError(f"wt.random.bernoulli: p must be a real tensor, got {p.dtype.name}")
        _check_params(shape, (p,), fn)
        n = _s.size_of(shape)
        u = _ew.multiply(cast(_words(k, n, dev), _d.float64), _c(2.0 ** -32, _d.float64, dev))
        out = _ew.less(_reshape(u, shape), cast(p, _d.float64, weak=False))
        return _check_result_shape(out, shape, fn)
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"wt.random.bernoulli: p must be a probability (float) or a tensor, "
                        f"got {p!r}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"wt.random.bernoulli: p must be in [0, 1], got {p!r}")
    shape = () if shape is None else _s.as_shape(shape, "random.bernoulli")
    dev = as_device(device, "random.bernoulli")
    n = _s.size_of(shape)
    threshold = math.ceil(p * 2.0 ** 32)  # exact: scaling by a power of two
    w = _reshape(_words(k, n, dev), shape)
    if threshold > _M32:
        out = empty(shape, _d.bool, dev)
        dev.backend.fill(out, True)
        return out
    return _ew.less(w, _c(threshold, _d.uint32, dev))


# -- permutations ---------------------------------------------------------------------------------

def _sort_keys(k: Key, shape, dev) -> Tensor:
    """64-bit random sort keys of ``shape`` (ties have probability ~ n**2 / 2**65)."""
    n = _s.size_of(shape)
    w = _words(k, 2 * n, dev)
    return _reshape(_join64(_lane(w, n, 2, 0), _lane(w, n, 2, 1), dev), shape)


def _argsort(x: Tensor, axis: int) -> Tensor:
    out = empty(x.shape, _d.int64, x.device)
    try:
        x.device.backend.argsort(out, x, axis, False)
    except NotImplementedError:  # host fallback for backends without the primitive yet
        out = _host_argsort(x, axis)
    return out


def _host_argsort(x: Tensor, axis: int) -> Tensor:
    shape = x.shape
    values = x.device.backend.to_values(x)
    n = shape[axis]
    inner = _s.size_of(shape[axis + 1:])
    outer = _s.size_of(shape[:axis])
    result = [0] * len(values)
    for o in range(outer):
        for i in range(inner):
            base = o * n * inner + i
            idx = [base + j * inner for j in range(n)]
            order = sorted(range(n), key=lambda j: values[idx[j]])
            for j, src in enumerate(order):
                result[idx[j]] = src
    return from_values(result, shape, _d.int64, x.device)


def _gather(x: Tensor, axis: int, indices: Tensor, keep_names: bool = True) -> Tensor:
    """``take_along_axis(x, indices, axis)`` with ``indices`` already of the output's shape."""
    names = x.names if keep_names else None
    out = empty(indices.shape, x.dtype, x.device, weak=x.weak, names=names)
    try:
        x.device.backend.gather(out, x, axis, indices)
    except NotImplementedError:  # host fallback for backends without the primitive yet
        values = x.device.backend.to_values(x)
        idx = x.device.backend.to_values(indices)
        shape = indices.shape
        strides = _s.contiguous_strides(x.shape)
        ostrides = _s.contiguous_strides(shape)
        result = []
        for flat, j in enumerate(idx):
            pos = 0
            for a, (st, ost) in enumerate(zip(strides, ostrides)):
                coord = (flat // ost) % shape[a] if shape[a] else 0
                pos += (j if a == axis else coord) * st
            result.append(values[pos])
        out = from_values(result, shape, x.dtype, x.device, weak=x.weak, names=names)
    return out


def _permute(k: Key, x: Tensor, axis: int, independent: bool, fn: str) -> Tensor:
    if x.ndim == 0:
        raise ValueError(f"wt.random.{fn}: x must have at least one dimension, got a 0-d "
                         f"tensor; pass an int n to permute range(n)")
    axis = _s.normalize_axis(axis, x.ndim, f"random.{fn}")
    dev = x.device
    n = x.shape[axis]
    if independent:
        order = _argsort(_sort_keys(k, x.shape, dev), axis)
        return _gather(x, axis, order)
    order = _argsort(_sort_keys(k, (n,), dev), 0)
    if x.ndim == 1:
        return _gather(x, 0, order)
    lead = (1,) * axis + (n,) + (1,) * (x.ndim - axis - 1)
    order = order._view(lead, _s.contiguous_strides(lead), order.offset)
    return _gather(x, axis, broadcast_view(order, x.shape))


def permutation(key, x, axis: int = 0, independent: bool = False, *, device=None) -> Tensor:
    """A random permutation of ``range(x)`` (int ``x``, default int dtype) or of ``x``'s
    entries along ``axis`` (``independent=True`` permutes every 1-D slice separately).

    Implemented as a stable argsort of 64-bit random keys, so it runs on any device."""
    fn = "permutation"
    k = _as_key(key, fn)
    if isinstance(x, Tensor):
        return _permute(k, x, axis, independent, fn)
    n = _int_arg(x, fn, "x", "pass an int n or a tensor")
    if n < 0:
        raise ValueError(f"wt.random.permutation: n must be >= 0, got {n}")
    dev = as_device(device, "random.permutation")
    order = _argsort(_sort_keys(k, (n,), dev), 0)
    return cast(order, _d.default_int_dtype(), weak=False)


def shuffle(key, x, axis: int = 0) -> Tensor:
    """``x`` with its entries along ``axis`` shuffled, as a new tensor (unlike NumPy's
    in-place shuffle).  Same values as ``permutation(key, x, axis)``."""
    k = _as_key(key, "shuffle")
    if not isinstance(x, Tensor):
        raise TypeError(f"wt.random.shuffle: x must be a tensor, got {type(x).__name__}; "
                        f"use wt.random.permutation(key, n) for a permuted range")
    return _permute(k, x, axis, False, "shuffle")


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, *,
           device=None) -> Tensor:
    """Random entries of ``a`` (a tensor, sampled along ``axis``) or of ``range(a)`` (an int).

    Without ``p``: ``randint`` indices (``replace=True``) or the first entries of a
    ``permutation`` (``replace=False``).  With ``p`` (probabilities along the axis, normalized
    to sum 1): inverse-CDF sampling of float64 uniforms, or, without replacement, the ``k``
    smallest exponential races ``-log(u) / p`` (computed on the host in float64).
    """
    fn = "choice"
    k = _as_key(key, fn)
    shape = _s.as_shape(shape, "random.choice")
    if isinstance(a, Tensor):
        if a.ndim == 0:
            raise ValueError("wt.random.choice: a must be an int or a tensor with at least one "
                             "dimension, got a 0-d tensor")
        axis = _s.normalize_axis(axis, a.ndim, "random.choice")
        n, dev = a.shape[axis], a.device
    else:
        n = _int_arg(a, fn, "a", "pass an int n or a tensor")
        if n < 0:
            raise ValueError(f"wt.random.choice: a must be >= 0, got {n}")
        dev = as_device(device, "random.choice")
    count = _s.size_of(shape)
    if n == 0 and count:
        raise ValueError("wt.random.choice: cannot take a sample from an empty population")
    if not replace and count > n:
        raise ValueError(f"wt.random.choice: cannot take {count} samples without replacement "
                         f"from {n} entries; use replace=True or a smaller shape")
    if p is None:
        if replace:
            idx = randint(k, (count,), 0, max(n, 1), _d.int64, device=dev)
        else:
            idx = _argsort(_sort_keys(k, (n,), dev), 0)._view((count,), (1,), 0)
    else:
        idx = _weighted_indices(k, n, count, replace, p, dev)
    if not isinstance(a, Tensor):
        return _reshape(cast(idx, _d.default_int_dtype(), weak=False), shape) if count else \
            empty(shape, _d.default_int_dtype(), dev)
    out_shape = a.shape[:axis] + shape + a.shape[axis + 1:]
    flat_shape = a.shape[:axis] + (count,) + a.shape[axis + 1:]
    lead = (1,) * axis + (count,) + (1,) * (a.ndim - axis - 1)
    idx = idx._view(lead, _s.contiguous_strides(lead), idx.offset)
    out = _gather(a, axis, broadcast_view(idx, flat_shape), keep_names=False)
    return _reshape(out, out_shape)


def _weighted_indices(k: Key, n: int, count: int, replace: bool, p, dev) -> Tensor:
    if isinstance(p, Tensor):
        probs = p.tolist()
    else:
        probs = list(p)
    if len(probs) != n or any(isinstance(q, (list, tuple)) for q in probs):
        raise ValueError(f"wt.random.choice: p must be 1-D with {n} entries (one per choice), "
                         f"got {len(probs)}")
    probs = [float(q) for q in probs]
    if any(not q >= 0 or not math.isfinite(q) for q in probs):
        raise ValueError("wt.random.choice: p must hold finite probabilities >= 0")
    total = math.fsum(probs)
    if total <= 0:
        raise ValueError("wt.random.choice: p must have a positive sum")
    u = uniform(k, (count,), _d.float64, device=dev).tolist()
    if replace:
        import bisect

        cdf, acc = [], 0.0
        for q in probs:
            acc += q / total
            cdf.append(acc)
        # bisect_right never lands on a zero-probability entry (its CDF step is flat); a u
        # past the rounded total goes to the last entry with p > 0.
        last = max(i for i, q in enumerate(probs) if q > 0)
        idx = [min(bisect.bisect_right(cdf, x), last) for x in u]
    else:
        if sum(1 for q in probs if q > 0) < count:
            raise ValueError(f"wt.random.choice: only {sum(1 for q in probs if q > 0)} entries "
                             f"have p > 0, cannot take {count} without replacement")
        u = uniform(k, (n,), _d.float64, device=dev).tolist()
        race = [(-math.log1p(-x) / q if q > 0 else math.inf, i)
                for i, (x, q) in enumerate(zip(u, probs))]
        race.sort()
        idx = [i for _, i in race[:count]]
    return from_values(idx, (count,), _d.int64, dev)


# -- the stateful convenience -----------------------------------------------------------------------

_lock = threading.Lock()
_state: dict = {"key": None, "count": 0}


def seed(s) -> None:
    """Seed the process-wide generator used by rand/randn/random/integers/next_key."""
    k = key(s) if not isinstance(s, Key) else s
    with _lock:
        _state["key"] = k
        _state["count"] = 0


def next_key() -> Key:
    """A fresh key from the process-wide generator (seeded from OS entropy unless
    :func:`seed` was called); bridges the stateful and the explicit API."""
    if _tracing.active() is not None:
        # NOTE: a traced program would draw this key once and replay it on every call.
        raise _tracing.ConcretizationError(
            "wt.random's process-wide generator (seed/rand/randn/random/integers/next_key) "
            "cannot be used inside wt.jit: the key would be drawn once, while tracing, and "
            "every call would repeat the same numbers; pass a key as an argument "
            "(key = wt.random.key(0); f(x, key)) and use wt.random.normal(key, ...)")
    with _lock:
        if _state["key"] is None:
            _state["key"] = key(int.from_bytes(os.urandom(8), "little"))
        count = _state["count"]
        _state["count"] = count + 1
        base = _state["key"]
    return fold_in(base, count)


def _shape_args(shape, fn: str):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _s.as_shape(shape, f"random.{fn}")


def rand(*shape, dtype=None, device=None) -> Tensor:
    """Uniform [0, 1) values of ``shape`` (``rand(2, 3)``) from the process-wide generator."""
    return uniform(next_key(), _shape_args(shape, "rand"), dtype, device=device)


def randn(*shape, dtype=None, device=None) -> Tensor:
    """Standard normal values of ``shape`` (``randn(2, 3)``) from the process-wide generator."""
    return normal(next_key(), _shape_args(shape, "randn"), dtype, device=device)


def random(shape=(), dtype=None, *, device=None) -> Tensor:
    """Uniform [0, 1) values (NumPy's ``random``/``random_sample``), process-wide generator."""
    return uniform(next_key(), shape, dtype, device=device)


random_sample = random


def integers(low, high=None, shape=(), dtype=None, *, device=None) -> Tensor:
    """Integers in ``[low, high)`` (``[0, low)`` with one bound), like NumPy's
    ``Generator.integers``, from the process-wide generator (default int dtype)."""
    if high is None:
        low, high = 0, low
    dt = _d.default_int_dtype() if dtype is None else dtype
    return randint(next_key(), shape, low, high, dt, device=device)
