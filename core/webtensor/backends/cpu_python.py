"""The CPU device in pure Python: every primitive of the backend contract, no NumPy.

Used in Pyodide without NumPy and when ``WEBTENSOR_CPU=python``.  A buffer is a Python list of
canonical values (see ``_pycodec``): bool, int in range, float holding exactly a value of the
dtype (float16/bfloat16/float32 too), complex with representable parts.  Views are read through
``shape.flat_offsets``; results are written back with the output dtype's semantics (wrap/round),
so the bytes always equal the NumPy backend's (``to_bytes`` is NumPy's layout).

Semantics shared with ``cpu_numpy`` (the two agree bit for bit, transcendental ops aside):

* Float accumulation (sum, prod, cumsum, cumprod, matmul, scatter-add) runs left to right in C
  order of the reduced elements, in float64 (complex128 for complex), rounded once to the output
  dtype at the end (bfloat16 through float32).  Integers wrap; bool sum/prod are any/all.
* max/min reductions, scans and scatters return the canonical quiet NaN when a NaN is involved,
  and order -0.0 below +0.0 (IEEE 754-2019 maximum/minimum).  Complex max/min are refused.
* Elementwise maximum/minimum return the first NaN operand (NumPy's rule) and also order -0.0
  below +0.0.  argmax/argmin return the first occurrence, a NaN counting as the extreme.
* Sorting is stable; ascending puts NaNs last, descending is the reverse order with ties kept in
  their original order (NaNs first); complex sorts by (real, imag) with NaNs as NumPy places them.

Which NaN an operation on two NaN operands returns is the hardware's choice (and NumPy's loop
order's), so only that payload/sign may differ between the backends.
"""

from __future__ import annotations

import math
import operator
from functools import reduce as _fold
from itertools import accumulate, compress

from .. import dtypes as _d
from .. import ops as _ops
from .. import shape as _s
from . import _pycodec as _c
from ._pyops import BINARY, UNARY
from .base import (
    WINDOW_OPS,
    WINDOW_SELECT,
    Backend,
    check_scatter,
    check_window,
    check_window_scatter,
    window_positions,
    window_view,
)

NAN = math.nan
_KIND = {"b": "b", "i": "i", "u": "i", "f": "f", "c": "c"}


# -- reading and writing views ------------------------------------------------------------------------

def _gather_offsets(buf: list, offs: list) -> list:
    if not offs:
        return []
    if len(offs) == 1:
        return [buf[offs[0]]]
    return list(operator.itemgetter(*offs)(buf))


def read_view(x) -> list:
    """The values of view ``x`` in C order.  May be the buffer itself: never mutate it."""
    buf = x._data
    n = _s.size_of(x.shape)
    if n == 0:
        return []
    off = x.offset
    if _s.is_contiguous(x.shape, x.strides):
        if off == 0 and len(buf) == n:
            return buf
        return buf[off:off + n]
    return _gather_offsets(buf, _s.flat_offsets(x.shape, x.strides, off))


def _permuted(x, order):
    return (tuple(x.shape[i] for i in order), tuple(x.strides[i] for i in order))


def _read_order(x, order) -> list:
    """The values of ``x`` with its axes visited in ``order`` (C order of the permuted view)."""
    if list(order) == list(range(len(order))):
        return read_view(x)
    shape, strides = _permuted(x, order)
    if _s.size_of(shape) == 0:
        return []
    return _gather_offsets(x._data, _s.flat_offsets(shape, strides, x.offset))


def _write(out, vals: list) -> None:
    """Write C-ordered ``vals`` (already canonical) into the view ``out``."""
    buf = out._data
    n = _s.size_of(out.shape)
    if n == 0:
        return
    if _s.is_contiguous(out.shape, out.strides):
        off = out.offset
        if off == 0 and len(buf) == n:
            buf[:] = vals
        else:
            buf[off:off + n] = vals
        return
    for o, v in zip(_s.flat_offsets(out.shape, out.strides, out.offset), vals):
        buf[o] = v


def _write_order(out, order, vals: list) -> None:
    """Write ``vals``, C-ordered over ``out``'s axes permuted by ``order``."""
    shape, strides = _permuted(out, order)
    buf = out._data
    for o, v in zip(_s.flat_offsets(shape, strides, out.offset), vals):
        buf[o] = v


def _store(out, vals: list, kind: str | None = None) -> None:
    """Write computed values (kind ``kind``, default the output's) with ``out``'s semantics."""
    _write(out, _c.convert(vals, kind or out.dtype.kind, out.dtype))


# -- reductions -----------------------------------------------------------------------------------------

def _fmax_step(acc, v):
    """Running float maximum: NaN is sticky (canonical), -0.0 < +0.0."""
    if acc != acc:
        return acc
    if v != v:
        return NAN
    if v > acc:
        return v
    if v == acc == 0:
        return acc + v
    return acc


def _fmin_step(acc, v):
    if acc != acc:
        return acc
    if v != v:
        return NAN
    if v < acc:
        return v
    if v == acc == 0:
        return -(-acc - v)
    return acc


def _first(v):
    """A float max/min accumulator's start: NaN becomes the canonical NaN."""
    return NAN if v != v else v


def _cmul_step(acc, v):
    return complex(acc.real * v.real - acc.imag * v.imag, acc.real * v.imag + acc.imag * v.real)


def _refuse_complex(op, dt):
    if dt.kind == "c":
        raise TypeError(f"{op} is not defined for complex dtypes ({dt.name}); NumPy's "
                        f"lexicographic order is not supported, compare wt.real / wt.abs")


def _folder(op: str, dt):
    """A function reducing one list (length >= 1) of values of ``dt``."""
    k = _KIND[dt.kind]
    if op == "any":
        return any
    if op == "all":
        return all
    if k == "b":
        return {"sum": any, "prod": all, "max": any, "min": all}[op]
    if op == "sum":
        if k == "i":
            return sum
        # Not builtins.sum: Python >= 3.12 compensates float sums, NumPy does not.
        return lambda g: _fold(operator.add, g)
    if op == "prod":
        if k == "i":
            mask = (1 << dt.bits) - 1
            return lambda g: _fold(lambda a, b: (a * b) & mask, g)
        if k == "c":
            return lambda g: _fold(_cmul_step, g)
        return lambda g: _fold(operator.mul, g)
    _refuse_complex(op, dt)
    if k == "i":
        return max if op == "max" else min
    step = _fmax_step if op == "max" else _fmin_step
    return lambda g: _fold(step, g[1:], _first(g[0]))


def _scanner(op: str, dt):
    """A function giving the inclusive scan of one list of values of ``dt``."""
    k = _KIND[dt.kind]
    if k == "b":
        fn = {"sum": operator.or_, "prod": operator.and_, "max": operator.or_,
              "min": operator.and_}[op]
        return lambda g: list(accumulate(g, fn))
    if op == "sum":
        return lambda g: list(accumulate(g, operator.add))
    if op == "prod":
        if k == "i":
            mask = (1 << dt.bits) - 1
            return lambda g: list(accumulate(g, lambda a, b: (a * b) & mask))
        if k == "c":
            return lambda g: list(accumulate(g, _cmul_step))
        return lambda g: list(accumulate(g, operator.mul))
    _refuse_complex(op, dt)
    if k == "i":
        return lambda g: list(accumulate(g, max if op == "max" else min))
    step = _fmax_step if op == "max" else _fmin_step
    return lambda g: list(accumulate(g[1:], step, initial=_first(g[0])))


def _groups(vals: list, n: int) -> list:
    return [vals[i:i + n] for i in range(0, len(vals), n)] if n else []


def _carg(g: list, op: str) -> int:
    """NumPy's complex argmax/argmin: the first NaN (either part) wins, else lexicographic."""
    best = g[0]
    if best != best:
        return 0
    pos = 0
    for i in range(1, len(g)):
        v = g[i]
        if v != v:
            return i
        if op == "argmax":
            better = v.real > best.real or (v.real == best.real and v.imag > best.imag)
        else:
            better = v.real < best.real or (v.real == best.real and v.imag < best.imag)
        if better:
            best, pos = v, i
    return pos


def _arg(g: list, op: str, kind: str) -> int:
    if kind == "c":
        return _carg(g, op)
    if kind == "f":
        for i, v in enumerate(g):
            if v != v:
                return i
    return g.index(max(g) if op == "argmax" else min(g))


# -- sorting ---------------------------------------------------------------------------------------------

def _ckey(z: complex):
    """NumPy's complex order: finite-ish lexicographic, then R+nanj, nan+Rj, nan+nanj."""
    re, im = z.real, z.imag
    if re == re:
        return (0, re, im) if im == im else (1, re, 0.0)
    return (2, im, 0.0) if im == im else (3, 0.0, 0.0)


def _order(g: list, kind: str, descending: bool) -> list:
    """Stable sorting permutation of ``g``; descending keeps ties in their original order."""
    idx = range(len(g))
    if kind == "c":
        keys = [_ckey(z) for z in g]
        return sorted(idx, key=keys.__getitem__, reverse=descending)
    if kind == "f":
        nans = [i for i in idx if g[i] != g[i]]
        if nans:
            ok = [i for i in idx if g[i] == g[i]]
            ok.sort(key=g.__getitem__, reverse=descending)
            return nans + ok if descending else ok + nans
    return sorted(idx, key=g.__getitem__, reverse=descending)


# -- the backend ------------------------------------------------------------------------------------------

class PythonBackend(Backend):
    name = "python"
    exact_float64 = True

    # -- memory ----------------------------------------------------------------------------------
    def alloc(self, dtype, size):
        try:
            return [_c.ZERO[dtype]] * size
        except (MemoryError, OverflowError):
            raise MemoryError(f"cpu: not enough memory for {size} elements of {dtype.name} "
                              f"(about {size * dtype.itemsize} bytes as Python values, more in "
                              f"practice)") from None

    def from_bytes(self, dtype, data):
        return _c.from_bytes(data, dtype)

    def to_bytes(self, x) -> bytes:
        return _c.to_bytes(read_view(x), x.dtype)

    def from_values(self, dtype, values):
        return _c.from_python(values, dtype)

    def to_values(self, x) -> list:
        return list(read_view(x))

    def flat_nonzero(self, mask):
        from ..tensor import Tensor

        positions = list(compress(range(mask.size), read_view(mask)))
        return Tensor._wrap(positions, (len(positions),), _d.int64, mask.device)

    # -- movement --------------------------------------------------------------------------------
    def copy(self, out, x):
        _write(out, read_view(x))

    def assign(self, target, x):
        _write(target, read_view(x))

    def fill(self, out, value):
        _write(out, _c.from_python([value], out.dtype) * _s.size_of(out.shape))

    def iota(self, out, start, step):
        n = _s.size_of(out.shape)
        dt = out.dtype
        if isinstance(start, complex) or isinstance(step, complex) or dt.kind == "c":
            start, step = complex(start), complex(step)
            sr, si, tr, ti = start.real, start.imag, step.real, step.imag
            vals = [complex(sr + tr * i, si + ti * i) for i in range(n)]
            kind = "c"
        elif dt.kind in "iu" and not isinstance(start, float) and not isinstance(step, float):
            start, step = int(start), int(step)
            vals = [start + step * i for i in range(n)]
            kind = "i"
        else:
            start, step = float(start), float(step)
            vals = [start + step * i for i in range(n)]
            kind = "f"
        _store(out, vals, kind)

    def cast(self, out, x):
        if x.dtype is out.dtype:
            _write(out, read_view(x))
            return
        _write(out, _c.convert(read_view(x), x.dtype.kind, out.dtype, x.dtype))

    # -- elementwise -----------------------------------------------------------------------------
    def unary(self, op, out, x):
        fn = UNARY.get(op)
        if fn is None:
            raise ValueError(f"unary: unknown op {op!r}")
        try:
            vals = fn(read_view(x), x.dtype)
        except TypeError as e:
            raise TypeError(f"{op}: {e}") from None
        _store(out, vals)

    def binary(self, op, out, a, b):
        fn = BINARY.get(op)
        if fn is None:
            raise ValueError(f"binary: unknown op {op!r}")
        if a.dtype is not b.dtype:
            raise TypeError(f"{op}: operands must share a dtype, got {a.dtype} and {b.dtype}")
        try:
            vals = fn(read_view(a), read_view(b), a.dtype)
        except TypeError as e:
            raise TypeError(f"{op}: {e}") from None
        _store(out, vals)

    def where(self, out, cond, a, b):
        _write(out, [x if c else y for c, x, y in zip(read_view(cond), read_view(a), read_view(b))])

    # -- reductions and scans --------------------------------------------------------------------
    def reduce(self, op, out, x, axes):
        if op not in _ops.REDUCTIONS:
            raise ValueError(f"reduce: unknown op {op!r}")
        axes = tuple(axes)
        kept = [i for i in range(x.ndim) if i not in axes]
        n = _s.size_of(tuple(x.shape[i] for i in axes))
        if n == 0:
            raise ValueError(f"reduce: {op} over an empty axis; the frontend fills identities")
        fold = _folder(op, x.dtype)
        vals = [fold(g) for g in _groups(_read_order(x, kept + list(axes)), n)]
        _store(out, vals, "b" if op in ("any", "all") else x.dtype.kind)

    def arg_reduce(self, op, out, x, axis):
        if op not in _ops.ARG_REDUCTIONS:
            raise ValueError(f"arg_reduce: unknown op {op!r}")
        n = x.shape[axis]
        if n == 0:
            raise ValueError(f"{op}: attempt to get {op} of an empty axis {axis}")
        order = [i for i in range(x.ndim) if i != axis] + [axis]
        kind = _KIND[x.dtype.kind]
        _store(out, [_arg(g, op, kind) for g in _groups(_read_order(x, order), n)], "i")

    def scan(self, op, out, x, axis):
        if op not in _ops.SCANS:
            raise ValueError(f"scan: unknown op {op!r}")
        n = x.shape[axis]
        order = [i for i in range(x.ndim) if i != axis] + [axis]
        fn = _scanner(op, x.dtype)
        vals = [v for g in _groups(_read_order(x, order), n) for v in fn(g)]
        _write_order(out, order, _c.convert(vals, x.dtype.kind, out.dtype))

    # -- linear algebra --------------------------------------------------------------------------
    def window_reduce(self, op, out, x, window, strides, dilations):
        check_window(op, out, x, window, strides, dilations)
        if out.size == 0:
            return
        fn = BINARY[WINDOW_OPS[op]]
        dt = x.dtype
        acc = None
        for q in window_positions(window):
            vals = read_view(window_view(x, q, out.shape, strides, dilations))
            # each step is ``binary``'s: the op, then the dtype's rounding
            acc = list(vals) if acc is None else _c.convert(fn(acc, vals, dt), dt.kind, dt)
        _write(out, acc)

    def window_scatter(self, select, out, x, source, window, strides, dilations):
        check_window_scatter(select, out, x, source, window, strides, dilations)
        dt = out.dtype
        acc = _c.convert([0] * out.size, "i", dt)
        positions = list(window_positions(window))
        shape = tuple(source.shape)
        if source.size:
            name, replace_if = WINDOW_SELECT[select]
            compare = BINARY[name]
            best = sel = None
            for k, q in enumerate(positions):
                vals = read_view(window_view(x, q, shape, strides, dilations))
                if best is None:
                    best, sel = list(vals), [0] * len(vals)
                    continue
                take = compare(vals, best, x.dtype) if replace_if else \
                    [not t for t in compare(best, vals, x.dtype)]
                for j, t in enumerate(take):
                    if t:
                        best[j], sel[j] = vals[j], k
            src = read_view(source)
            add = BINARY["add"]
            cs = _s.contiguous_strides(out.shape)  # acc is C-ordered over out.shape
            steps = [c * st for c, st in zip(cs, strides)]
            # position k's windows, last position first: each element's windows in C order
            for k in range(len(positions) - 1, -1, -1):
                js = [j for j, s in enumerate(sel) if s == k]
                if not js:
                    continue
                start = sum(i * d * c for i, d, c in zip(positions[k], dilations, cs))
                offs = _s.flat_offsets(shape, steps, start)
                targets = [offs[j] for j in js]
                new = _c.convert(add([acc[p] for p in targets], [src[j] for j in js], dt),
                                 dt.kind, dt)
                for p, v in zip(targets, new):
                    acc[p] = v
        _write(out, acc)

    def matmul(self, out, a, b):
        *batch, m, k = a.shape
        n = b.shape[-1]
        if b.shape[-2] != k or tuple(out.shape) != (*out.shape[:-2], m, n):
            raise ValueError(f"matmul: shapes {a.shape} @ {b.shape} -> {out.shape} do not match")
        nb = _s.size_of(tuple(out.shape[:-2]))
        kind = _KIND[a.dtype.kind]
        # a as (batch, m, k) rows and b as (batch, n, k) columns, both in C order.
        a_vals = read_view(_bview(a, out.shape[:-2]))
        b_vals = _read_order(_bview(b, out.shape[:-2]), _swap_last(len(out.shape)))
        res = []
        for t in range(nb):
            rows = [a_vals[(t * m + i) * k:(t * m + i + 1) * k] for i in range(m)]
            cols = [b_vals[(t * n + j) * k:(t * n + j + 1) * k] for j in range(n)]
            if k == 0:
                res.extend([_c.ZERO[out.dtype]] * (m * n))
            elif kind == "b":
                res.extend(any(map(operator.and_, r, c)) for r in rows for c in cols)
            elif kind == "i":
                res.extend(sum(map(operator.mul, r, c)) for r in rows for c in cols)
            elif kind == "f":
                res.extend(_fold(operator.add, map(operator.mul, r, c)) for r in rows
                           for c in cols)
            else:
                res.extend(_cdot(r, c) for r in rows for c in cols)
        _store(out, res, kind)

    # -- indexing --------------------------------------------------------------------------------
    def gather(self, out, x, axis, indices):
        if indices.shape != out.shape:
            raise ValueError(f"gather: indices shape {indices.shape} != out shape {out.shape}")
        strides = list(x.strides)
        for d, (nx, no) in enumerate(zip(x.shape, out.shape)):
            if d == axis:
                continue
            if nx == 1 and no != 1:
                strides[d] = 0
            elif nx < no:
                raise ValueError(f"gather: x has {nx} elements along axis {d}, the indices "
                                 f"need {no}")
        size = x.shape[axis]
        stride = strides[axis]
        strides[axis] = 0
        idx = _clamped_indices(read_view(indices), size, axis, "gather")
        base = _s.flat_offsets(out.shape, tuple(strides), x.offset)
        buf = x._data
        _write(out, [buf[o + i * stride] for o, i in zip(base, idx)])

    def scatter(self, op, out, axis, indices, updates):
        check_scatter(op, out, axis, indices, updates)
        dt = out.dtype
        kind = _KIND[dt.kind]
        if op in ("min", "max"):
            _refuse_complex(f"scatter-{op}", dt)
        strides = list(out.strides)
        stride = strides[axis]
        strides[axis] = 0
        idx = _clamped_indices(read_view(indices), out.shape[axis], axis, "scatter")
        base = _s.flat_offsets(indices.shape, tuple(strides), out.offset)
        targets = [o + i * stride for o, i in zip(base, idx)]
        upd = read_view(updates)
        buf = out._data
        if op == "set":
            for t, v in zip(targets, upd):
                buf[t] = v
            return
        if kind == "b":
            fn = operator.or_ if op in ("add", "max") else operator.and_
        elif op == "add":
            fn = operator.add
        elif kind == "i":
            fn = max if op == "max" else min
        else:
            fn = _fmax_step if op == "max" else _fmin_step
        touched = sorted(set(targets))
        if kind == "f" and op != "add":
            for t in touched:
                buf[t] = _first(buf[t])
        for t, v in zip(targets, upd):
            buf[t] = fn(buf[t], v)
        if kind in "ifc":
            new = _c.convert([buf[t] for t in touched], kind, dt)
            for t, v in zip(touched, new):
                buf[t] = v

    # -- sorting ---------------------------------------------------------------------------------
    def _sorted(self, out, x, axis, descending, want_indices):
        n = x.shape[axis]
        if n == 0 or _s.size_of(x.shape) == 0:
            return
        order = [i for i in range(x.ndim) if i != axis] + [axis]
        kind = _KIND[x.dtype.kind]
        res = []
        for g in _groups(_read_order(x, order), n):
            if not want_indices and (kind in "bi" or kind == "f" and not _c.has_nan(g)):
                res.extend(sorted(g, reverse=descending))  # stable, like the permutation
                continue
            perm = _order(g, kind, descending)
            res.extend(perm if want_indices else [g[i] for i in perm])
        _write_order(out, order, res)

    def sort(self, out, x, axis, descending):
        self._sorted(out, x, axis, descending, False)

    def argsort(self, out, x, axis, descending):
        self._sorted(out, x, axis, descending, True)

    # -- random ----------------------------------------------------------------------------------
    def random_bits(self, out, key, counter):
        if out.dtype is not _d.uint32:
            raise TypeError(f"random_bits: out must be uint32, got {out.dtype}")
        from ._philox import philox_words_python

        _write(out, philox_words_python(tuple(key), int(counter), _s.size_of(out.shape)))


def _bview(x, batch):
    """``x`` seen with the batch dims ``batch`` (stride 0 where broadcast)."""
    from ..tensor import Tensor

    lead = len(batch) + 2 - len(x.shape)
    if lead < 0:
        raise ValueError(f"matmul: operand shape {x.shape} has more batch dims than {batch}")
    shape = tuple(batch) + tuple(x.shape[-2:])
    strides = list((0,) * lead + tuple(x.strides))
    for i, nb in enumerate(batch):
        if i >= lead and x.shape[i - lead] != nb:
            if x.shape[i - lead] != 1:
                raise ValueError(f"matmul: batch dims {x.shape[:-2]} do not broadcast to "
                                 f"{tuple(batch)}")
            strides[i] = 0
    strides = tuple(strides)
    return Tensor._wrap(x._data, shape, x.dtype, x.device, strides=strides, offset=x.offset)


def _swap_last(ndim: int) -> list:
    return list(range(ndim - 2)) + [ndim - 1, ndim - 2]


def _cdot(r: list, c: list) -> complex:
    """Sequential complex dot product with explicit real operations (no fused multiply-add)."""
    re = im = None
    for x, y in zip(r, c):
        pr = x.real * y.real - x.imag * y.imag
        pi = x.real * y.imag + x.imag * y.real
        if re is None:
            re, im = pr, pi
        else:
            re, im = re + pr, im + pi
    return complex(re, im)


def _clamped_indices(idx: list, size: int, axis: int, fn: str) -> list:
    """Gather's and scatter's indices (Backend.gather): negative ones wrapped once, then all
    clamped into [0, size); an axis of size 0 takes none."""
    if not idx:
        return idx
    if size == 0:
        raise IndexError(f"{fn}: index {idx[0]} is out of bounds for axis {axis} with size 0")
    if min(idx) < 0 or max(idx) >= size:
        return [min(max(i + size if i < 0 else i, 0), size - 1) for i in idx]
    return idx
