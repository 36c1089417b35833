"""``wt.fft``: the Array API FFT extension (2024.12), all 14 functions.

fft, ifft, fftn, ifftn, rfft, irfft, rfftn, irfftn, hfft, ihfft, fftfreq, rfftfreq, fftshift,
ifftshift.

Where it sits: like the decompositions of ``wt.linalg``, transforms run on the host.  On the NumPy
CPU backend each 1-D transform is ``numpy.fft`` in complex128; elsewhere the lines along the axis
are read back once and transformed in double precision by a pure-Python FFT (iterative radix-2
for powers of two, Bluestein's chirp-z for other lengths, so every length is O(n log n)), then
written back rounded to the result dtype.  Set ``webtensor.fft._USE_NUMPY = False`` to force the
pure-Python kernel.  Multi-axis transforms apply the 1-D transform axis by axis.  Each 1-D
transform is a host function (``api/_host.py``: ``fft.c2c``, ``fft.r2c``, ``fft.c2r``), one node
when traced, so the transforms jit, batch and differentiate (``docs/autodiff.md``).

Dtypes (NumPy 2 semantics): complex64/complex128 keep their dtype; real inputs become the complex
dtype of their precision (float32, float16 and bfloat16 -> complex64, float64 -> complex128);
bool and integers first go to the default float dtype.  ``irfft``/``hfft`` return the matching
real dtype.  ``norm`` is ``"backward"`` (default: the inverse scales by 1/n), ``"ortho"``
(1/sqrt(n) both ways) or ``"forward"`` (the forward transform scales by 1/n).
"""

from __future__ import annotations

import cmath
import math

from . import _validate
from . import dtypes as _d
from . import ops as _ops
from . import shape as _s
from .api._common import as_tensor, axis_index, check_supported, float_dtype_for
from .api._host import call, host_function
from .tensor import Tensor, cast, from_values

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_USE_NUMPY = True
_NORMS = ("backward", "ortho", "forward")


# -- pure-Python kernels (complex lists, double precision, unnormalized) ---------------------------

def _radix2(a: list, sign: int) -> list:
    n = len(a)
    out = list(a)
    j = 0
    for i in range(1, n):  # bit-reversal permutation
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j |= bit
        if i < j:
            out[i], out[j] = out[j], out[i]
    size = 2
    while size <= n:
        half = size // 2
        tw = [cmath.exp(complex(0.0, sign * 2.0 * math.pi * k / size)) for k in range(half)]
        for start in range(0, n, size):
            for k in range(half):
                u = out[start + k]
                v = out[start + k + half] * tw[k]
                out[start + k] = u + v
                out[start + k + half] = u - v
        size *= 2
    return out


def _bluestein(a: list, sign: int) -> list:
    n = len(a)
    # w[k] = exp(sign * i * pi * k^2 / n), with k^2 reduced mod 2n so the angle stays exact.
    w = [cmath.exp(complex(0.0, sign * math.pi * ((k * k) % (2 * n)) / n)) for k in range(n)]
    m = 1
    while m < 2 * n - 1:
        m *= 2
    fa = [0j] * m
    fb = [0j] * m
    for k in range(n):
        fa[k] = a[k] * w[k]
        c = w[k].conjugate()
        fb[k] = c
        if k:
            fb[m - k] = c
    fa = _radix2(fa, -1)
    fb = _radix2(fb, -1)
    conv = _radix2([x * y for x, y in zip(fa, fb)], 1)
    return [w[k] * conv[k] / m for k in range(n)]


def _dft(a: list, inverse: bool) -> list:
    n = len(a)
    sign = 1 if inverse else -1
    if n <= 1:
        return [complex(v) for v in a]
    if n & (n - 1) == 0:
        return _radix2([complex(v) for v in a], sign)
    return _bluestein([complex(v) for v in a], sign)


def _fit(line: list, n: int) -> list:
    return line[:n] if len(line) >= n else line + [0j] * (n - len(line))


def _scale(norm: str, n: int, inverse: bool) -> float:
    if norm == "ortho":
        return 1 / math.sqrt(n)
    if (norm == "backward") == inverse:
        return 1 / n
    return 1.0


def _line_c2c(line, n, norm, inverse):
    out = _dft(_fit(line, n), inverse)
    f = _scale(norm, n, inverse)
    return out if f == 1.0 else [v * f for v in out]


def _line_r2c(line, n, norm, inverse):
    out = _dft(_fit([complex(v) for v in line], n), False)[:n // 2 + 1]
    f = _scale(norm, n, False)
    return out if f == 1.0 else [v * f for v in out]


def _line_c2r(line, n, norm, inverse):
    h = n // 2 + 1
    half = _fit([complex(v) for v in line], h)
    full = half + [0j] * (n - h)
    for k in range(1, n - h + 1):
        full[n - k] = half[k].conjugate()
    out = _dft(full, True)
    f = _scale(norm, n, True)
    return [v.real * f for v in out]


# -- plumbing --------------------------------------------------------------------------------------

def _complex_of(dt):
    dt = float_dtype_for(dt)
    if dt.kind == "c":
        return dt
    return _d.complex128 if dt is _d.float64 else _d.complex64


def _input(x, fn: str, *, checked: bool = True) -> Tensor:
    x = as_tensor(x, fn)
    if checked:  # r2c transforms refuse complex input (ops.FUNCTION_KINDS)
        check_supported(x.dtype, fn)
    if x.ndim == 0:
        raise ValueError(f"wt.{fn}: needs at least 1 dimension, got a 0-d tensor")
    return x


def _check_norm(norm, fn: str) -> None:
    if norm not in _NORMS:
        raise ValueError(f"wt.{fn}: norm must be 'backward', 'ortho' or 'forward', got "
                         f"{norm!r}")


def _check_n(n, fn: str, what="n") -> int:
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"wt.{fn}: {what} must be an int, got {n!r}")
    n = n.__index__()
    if n < 1:
        raise ValueError(f"wt.{fn}: invalid number of data points {what}={n}; it must be >= 1")
    _validate.count(n, f"wt.{fn}", what)  # a MemoryError naming it, before anything is made
    return n


def _numpy(x: Tensor):
    if not _USE_NUMPY or getattr(x._backend, "name", "") != "numpy":
        return None
    import numpy

    return numpy


_NP_KIND = {"c2c": "fft", "r2c": "rfft", "c2r": "irfft"}
_PY_KIND = {"c2c": _line_c2c, "r2c": _line_r2c, "c2r": _line_c2r}


def _transform(x: Tensor, axis: int, n: int, norm: str, kind: str, inverse: bool,
               out_dt) -> Tensor:
    """One 1-D transform of ``x`` along ``axis`` (already normalized) with ``n`` points: the
    host function ``fft.<kind>`` (c2c, r2c or c2r)."""
    out_len = n // 2 + 1 if kind == "r2c" else n
    shape = x.shape[:axis] + (out_len,) + x.shape[axis + 1:]
    return call(f"fft.{kind}", (x,), [(shape, out_dt)], axis=axis, n=n, norm=norm,
                inverse=inverse, out_dt=out_dt)[0]


def _host_transform(kind: str):
    def run(x: Tensor, *, axis: int, n: int, norm: str, inverse: bool, out_dt) -> Tensor:
        return _run_transform(x, axis, n, norm, kind, inverse, out_dt)
    run.__name__ = f"_{kind}_host"
    return host_function(f"fft.{kind}", axis_params=("axis",))(run)


def _run_transform(x: Tensor, axis: int, n: int, norm: str, kind: str, inverse: bool,
                   out_dt) -> Tensor:
    out_len = n // 2 + 1 if kind == "r2c" else n
    np = _numpy(x)
    if np is not None:
        from .api.creation import asarray

        arr = np.asarray(x)
        arr = arr.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        name = "ifft" if kind == "c2c" and inverse else _NP_KIND[kind]
        res = getattr(np.fft, name)(arr, n=n, axis=axis, norm=norm)
        if out_dt.kind != "c":
            res = np.real(res)
        return cast(asarray(np.asarray(res), device=x.device), out_dt, weak=False)
    order = [i for i in range(x.ndim) if i != axis] + [axis]
    moved = x._view(tuple(x.shape[i] for i in order), tuple(x.strides[i] for i in order),
                    x.offset)
    vals = x._backend.to_values(moved)
    m = moved.shape[-1]
    count = _s.size_of(moved.shape[:-1])
    line_fn = _PY_KIND[kind]
    flat: list = []
    for i in range(count):
        flat.extend(line_fn(vals[i * m:(i + 1) * m], n, norm, inverse))
    shape = moved.shape[:-1] + (out_len,)
    out = from_values(flat, shape, out_dt, x.device)
    back = [0] * x.ndim
    for pos, ax in enumerate(order):
        back[ax] = pos
    return out._view(tuple(shape[p] for p in back), tuple(out.strides[p] for p in back),
                     out.offset)


for _kind in ("c2c", "r2c", "c2r"):
    _host_transform(_kind)
del _kind


def _one(x, n, axis, norm, fn, kind, inverse):
    _check_norm(norm, fn)
    # the c2c steps of rfftn run on its complex intermediate: only r2c steps check the table
    x = _input(x, fn, checked=kind != "c2c")
    ax = axis_index(x, axis, fn)
    cdt = _complex_of(x.dtype)
    if kind == "c2r":
        m = x.shape[ax]
        n = 2 * (m - 1) if n is None else _check_n(n, fn)
        if n < 1:
            raise ValueError(f"wt.{fn}: invalid number of data points n={n} (from an input of "
                             f"length {m} along axis {ax}); pass n >= 1")
        return _transform(cast(x, cdt), ax, n, norm, kind, inverse, cdt.real_dtype)
    n = x.shape[ax] if n is None else _check_n(n, fn)
    if n < 1:
        raise ValueError(f"wt.{fn}: invalid number of data points n=0 (axis {ax} is empty); "
                         f"pass n >= 1")
    src = cast(x, cdt) if kind == "c2c" else cast(x, float_dtype_for(x.dtype))
    return _transform(src, ax, n, norm, kind, inverse, cdt)


# -- 1-D transforms ------------------------------------------------------------------------------

def fft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    """Discrete Fourier transform along ``axis`` (``n`` points: truncated or zero-padded)."""
    return _one(x, n, axis, norm, "fft.fft", "c2c", False)


def ifft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    """Inverse discrete Fourier transform along ``axis``."""
    return _one(x, n, axis, norm, "fft.ifft", "c2c", True)


def rfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    """DFT of a real signal: the ``n // 2 + 1`` non-negative frequency terms."""
    return _one(x, n, axis, norm, "fft.rfft", "r2c", False)


def irfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    """Inverse of ``rfft``: a real signal of ``n`` points (default ``2 * (m - 1)``)."""
    return _one(x, n, axis, norm, "fft.irfft", "c2r", True)


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def hfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    """DFT of a Hermitian-symmetric signal given by its first half: a real spectrum."""
    from .api.elementwise import conj

    _check_norm(norm, "fft.hfft")
    x = _input(x, "fft.hfft")
    return _one(conj(cast(x, _complex_of(x.dtype))), n, axis, _SWAP[norm], "fft.hfft", "c2r",
                True)


def ihfft(x, /, *, n=None, axis=-1, norm="backward") -> Tensor:
    """Inverse of ``hfft`` for a real signal: the first half of a Hermitian spectrum."""
    from .api.elementwise import conj

    _check_norm(norm, "fft.ihfft")
    return conj(_one(x, n, axis, _SWAP[norm], "fft.ihfft", "r2c", False))


# -- n-D transforms ------------------------------------------------------------------------------

def _axes_and_sizes(x: Tensor, s, axes, fn: str):
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    else:
        if not isinstance(axes, (list, tuple)):
            raise TypeError(f"wt.{fn}: axes must be a sequence of ints, got {axes!r}")
        axes = [axis_index(x, a, fn) for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"wt.{fn}: repeated axis in {tuple(axes)}")
    if s is None:
        sizes = [None] * len(axes)
    else:
        if not isinstance(s, (list, tuple)):
            raise TypeError(f"wt.{fn}: s must be a sequence of ints, got {s!r}")
        if len(s) != len(axes):
            raise ValueError(f"wt.{fn}: s has {len(s)} entries but there are {len(axes)} axes "
                             f"{tuple(axes)}; give one size per axis")
        if any(ax < 0 for ax in axes):
            raise ValueError(f"wt.{fn}: s has more entries than the tensor of shape {x.shape} "
                             f"has dimensions")
        sizes = [None if v == -1 else _check_n(v, fn, "s") for v in s]
    return axes, sizes


def _many(x, s, axes, norm, fn, inverse):
    _check_norm(norm, fn)
    x = _input(x, fn)
    axes, sizes = _axes_and_sizes(x, s, axes, fn)
    out = cast(x, _complex_of(x.dtype))
    for ax, n in zip(axes, sizes):
        out = _one(out, n, ax, norm, fn, "c2c", inverse)
    return out


def fftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    """N-dimensional DFT over ``axes`` (all, or the last ``len(s)``) with sizes ``s``
    (``-1`` keeps an axis' size)."""
    return _many(x, s, axes, norm, "fft.fftn", False)


def ifftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    """N-dimensional inverse DFT."""
    return _many(x, s, axes, norm, "fft.ifftn", True)


def rfftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    """N-dimensional DFT of a real signal: ``rfft`` over the last axis, ``fft`` over the rest."""
    fn = "fft.rfftn"
    _check_norm(norm, fn)
    x = _input(x, fn)
    axes, sizes = _axes_and_sizes(x, s, axes, fn)
    if not axes:
        return cast(x, _complex_of(x.dtype), weak=False)
    out = _one(x, sizes[-1], axes[-1], norm, fn, "r2c", False)
    for ax, n in zip(axes[:-1], sizes[:-1]):
        out = _one(out, n, ax, norm, fn, "c2c", False)
    return out


def irfftn(x, /, *, s=None, axes=None, norm="backward") -> Tensor:
    """Inverse of ``rfftn``: ``ifft`` over all axes but the last, ``irfft`` over the last."""
    fn = "fft.irfftn"
    _check_norm(norm, fn)
    x = _input(x, fn)
    axes, sizes = _axes_and_sizes(x, s, axes, fn)
    out = cast(x, _complex_of(x.dtype))
    if not axes:
        return cast(out, out.dtype.real_dtype, weak=False)
    for ax, n in zip(axes[:-1], sizes[:-1]):
        out = _one(out, n, ax, norm, fn, "c2c", True)
    return _one(out, sizes[-1], axes[-1], norm, fn, "c2r", True)


# -- helpers ---------------------------------------------------------------------------------------

def _freq_dtype(dtype, fn):
    if dtype is not None:
        dt = _d.dtype(dtype)
        if dt.kind not in _ops.function_kinds(fn):
            raise TypeError(f"wt.{fn}: dtype must be a real floating-point dtype, got "
                            f"{dt.name}")
        return dt
    from . import promotion as _p

    return _p.resolve((1.0,), fn)[0]


def fftfreq(n, /, *, d=1.0, dtype=None, device=None) -> Tensor:
    """Sample frequencies of an ``n``-point DFT: ``[0, 1, ..., -2, -1] / (d * n)``."""
    fn = "fft.fftfreq"
    n = _check_n(n, fn)
    from .device import as_device

    vals = [(k if k < (n + 1) // 2 else k - n) / (d * n) for k in range(n)]
    return from_values(vals, (n,), _freq_dtype(dtype, fn), as_device(device, fn))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None) -> Tensor:
    """Sample frequencies of ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``."""
    fn = "fft.rfftfreq"
    n = _check_n(n, fn)
    from .device import as_device

    vals = [k / (d * n) for k in range(n // 2 + 1)]
    return from_values(vals, (n // 2 + 1,), _freq_dtype(dtype, fn), as_device(device, fn))


def _shift(x, axes, fn, sign):
    from .api.manipulation import roll

    x = as_tensor(x, fn)
    if axes is None:
        axes = list(range(x.ndim))
    elif not isinstance(axes, (list, tuple)):
        axes = [axes]
    axes = [axis_index(x, a, fn) for a in axes]
    out = x
    for ax in axes:
        n = x.shape[ax]
        out = roll(out, sign * (n // 2), axis=ax)
    if out is x:
        from .api.creation import asarray

        out = asarray(x, copy=True)
    return out


def fftshift(x, /, *, axes=None) -> Tensor:
    """Move the zero-frequency term to the centre (roll by ``n // 2`` along ``axes``)."""
    return _shift(x, axes, "fft.fftshift", 1)


def ifftshift(x, /, *, axes=None) -> Tensor:
    """Inverse of ``fftshift`` (roll by ``-(n // 2)``)."""
    return _shift(x, axes, "fft.ifftshift", -1)
