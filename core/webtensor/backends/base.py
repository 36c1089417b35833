"""The backend contract: a few dozen primitives every device implements.

The frontend (``webtensor.api``) has already decided everything before a primitive runs: the
output shape and dtype, the promoted input dtypes, broadcasting (as stride-0 views), the axes.
So a primitive only computes.  Conventions ("out first", as in Nx):

* ``out`` is a freshly allocated, C-contiguous Tensor; the primitive fills all of it.
* Inputs are Tensors that may be arbitrary strided views (``shape``, ``strides`` in elements,
  ``offset``) over their buffer ``_data``; ``out`` never aliases an input.
* Inputs of elementwise primitives already have the computation dtype; only ``cast`` changes
  dtype, and comparisons/predicates write ``bool``.
* Buffers hold exactly NumPy's bytes for the dtype (``to_bytes``/``from_bytes`` are memcpy-like).

Elementwise ops are named by the strings of ``webtensor.ops`` (``"add"``, ``"sin"``...).
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from functools import wraps

from .. import ops as _ops

# True while the frontend computes in float64 on purpose, to round once to a narrower result
# (random normals, linspace): devices that route float64 elsewhere need not warn about it.
_INTERNAL_FLOAT64: ContextVar[bool] = ContextVar("webtensor_internal_float64", default=False)


@contextmanager
def internal_float64():
    token = _INTERNAL_FLOAT64.set(True)
    try:
        yield
    finally:
        _INTERNAL_FLOAT64.reset(token)


def float64_is_internal() -> bool:
    return _INTERNAL_FLOAT64.get()


def computes_in_float64(fn):
    """Decorator: ``fn`` uses float64 intermediates on purpose (see ``internal_float64``)."""
    @wraps(fn)
    def wrapper(*args, **kwargs):
        with internal_float64():
            return fn(*args, **kwargs)
    return wrapper


def check_scatter(op: str, out, axis: int, indices, updates) -> None:
    """The ``scatter`` primitive's preconditions (the API guarantees them; a backend checks)."""
    if op not in _ops.SCATTER_MODES:
        raise ValueError(f"scatter: unknown op {op!r}")
    if tuple(updates.shape) != tuple(indices.shape):
        raise ValueError(f"scatter: updates shape {updates.shape} != indices shape "
                         f"{indices.shape}")
    for d, (ni, no) in enumerate(zip(indices.shape, out.shape)):
        if d != axis and ni > no:
            raise ValueError(f"scatter: indices have {ni} elements along axis {d}, out only {no}")


# window_reduce's ops -> the elementwise op that folds two values (the same arithmetic, so a
# window reduction equals folding its strided views with that op, on every device)
WINDOW_OPS = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}


def window_shape(shape, window, strides, dilations) -> tuple[int, ...]:
    """The output shape of a window reduction of an (already padded) input of ``shape``."""
    return tuple(max(0, (n - (w - 1) * d - 1) // s + 1)
                 for n, w, s, d in zip(shape, window, strides, dilations))


def _check_geometry(fn: str, x, window, strides, dilations, windows_shape, what: str):
    for name, values in (("window", window), ("strides", strides), ("dilations", dilations)):
        if len(values) != x.ndim or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
            raise ValueError(f"{fn}: {name} must be {x.ndim} positive ints (one per axis of "
                             f"the input), got {tuple(values)!r}")
    want = window_shape(x.shape, window, strides, dilations)
    if tuple(windows_shape) != want:
        raise ValueError(f"{fn}: {what} has shape {tuple(windows_shape)}, the windows give "
                         f"{want}")
    if x.dtype.kind == "c" and what == "source":
        raise TypeError(f"{fn}: selecting among complex values is not defined (complex "
                        f"numbers have no order)")


def check_window(op: str, out, x, window, strides, dilations) -> None:
    """The ``window_reduce`` primitive's preconditions (the API guarantees them)."""
    if op not in WINDOW_OPS:
        raise ValueError(f"window_reduce: unknown op {op!r}; expected one of "
                         f"{', '.join(WINDOW_OPS)}")
    _check_geometry("window_reduce", x, window, strides, dilations, out.shape, "out")
    if out.dtype is not x.dtype:
        raise TypeError(f"window_reduce: out is {out.dtype.name} but the input is "
                        f"{x.dtype.name}; they must match")
    if op in ("max", "min") and x.dtype.kind == "c":
        raise TypeError(f"window_reduce: {op} of complex values is not defined (complex numbers "
                        f"have no order)")


# window_scatter's selections -> (comparison, whether the next element replaces the selected
# one when comparison(next, selected) holds; else it does unless comparison(selected, next))
WINDOW_SELECT = {"max": ("greater_equal", False), "min": ("less_equal", False),
                 "max_last": ("greater_equal", True), "min_last": ("less_equal", True)}


def check_window_scatter(select: str, out, x, source, window, strides, dilations) -> None:
    """The ``window_scatter`` primitive's preconditions."""
    if select not in WINDOW_SELECT:
        raise ValueError(f"window_scatter: unknown selection {select!r}; expected one of "
                         f"{', '.join(WINDOW_SELECT)}")
    _check_geometry("window_scatter", x, window, strides, dilations, source.shape, "source")
    if tuple(out.shape) != tuple(x.shape):
        raise ValueError(f"window_scatter: out has shape {tuple(out.shape)}, the input "
                         f"{tuple(x.shape)}; they must match")
    if out.dtype is not source.dtype:
        raise TypeError(f"window_scatter: out is {out.dtype.name} but the source is "
                        f"{source.dtype.name}; they must match")


def window_positions(window):
    """The positions inside a window in the fold order: row-major (the last axis fastest)."""
    return itertools.product(*(range(w) for w in window))


def window_view(x, q, out_shape, strides, dilations):
    """The strided view of ``x`` holding, for every output element, the element at position
    ``q`` of its window."""
    steps = tuple(st * s for st, s in zip(x.strides, strides))
    offset = x.offset + sum(i * d * st for i, d, st in zip(q, dilations, x.strides))
    return x._view(tuple(out_shape), steps, offset)


class Backend:
    """Base class documenting the contract; a device module subclasses it."""

    name = "abstract"
    #: held while a caller drives the backend step by step (a compiled program's run): a GPU
    #: backend's re-entrant lock; CPU backends keep no shared state and need none
    lock = nullcontext()
    #: float64 arithmetic gives exactly the CPU device's bits (IEEE double, the same formulas):
    #: the CPU backends, and webgpu, which routes float64 work to the CPU
    exact_float64 = False

    # -- memory ----------------------------------------------------------------------------------
    def alloc(self, dtype, size: int):
        """A new buffer for ``size`` elements of ``dtype`` (contents unspecified)."""
        raise NotImplementedError

    def buffer_size(self, data, dtype) -> int:
        """How many elements of ``dtype`` the buffer ``data`` holds."""
        return len(data)

    def from_bytes(self, dtype, data) -> object:
        """A buffer holding ``data`` (bytes-like, NumPy's layout for ``dtype``)."""
        raise NotImplementedError

    def to_bytes(self, x) -> bytes:
        """The bytes of the view ``x`` in C order."""
        raise NotImplementedError

    def from_values(self, dtype, values: list):
        """A buffer from a flat list of Python scalars, converted to ``dtype`` (wrap/round)."""
        raise NotImplementedError

    def to_values(self, x) -> list:
        """The elements of the view ``x`` in C order as Python scalars (bool/int/float/complex)."""
        raise NotImplementedError

    def constant(self, dtype, value):
        """A one-element buffer holding the Python scalar ``value`` as ``dtype``, for an
        internal operand (``x * 2.0``) that nothing ever writes: a backend may keep it on the
        host (webgpu passes it to kernels in their parameters instead of a buffer)."""
        return self.from_values(dtype, [value])

    # -- data movement ---------------------------------------------------------------------------
    def copy(self, out, x) -> None:
        """Materialize the view ``x`` (same dtype) into ``out``."""
        raise NotImplementedError

    def assign(self, target, x) -> None:
        """Write ``x`` (same shape and dtype) into the strided view ``target`` of an existing
        buffer (``__setitem__``, in-place operators).  ``x`` never aliases ``target``."""
        raise NotImplementedError

    def fill(self, out, value) -> None:
        """Set every element of ``out`` to the Python scalar ``value``, converted as
        ``from_values`` converts (ints wrap, floats round or truncate/saturate to ints)."""
        raise NotImplementedError

    def iota(self, out, start, step) -> None:
        """``out[i] = start + i * step`` (computed in ``out.dtype``), for arange/linspace."""
        raise NotImplementedError

    def cast(self, out, x) -> None:
        """Convert ``x`` to ``out.dtype`` with NumPy's casting semantics."""
        raise NotImplementedError

    # -- elementwise -----------------------------------------------------------------------------
    def unary(self, op: str, out, x) -> None:
        raise NotImplementedError

    def binary(self, op: str, out, a, b) -> None:
        raise NotImplementedError

    def where(self, out, cond, a, b) -> None:
        """``out = cond ? a : b``; ``cond`` is bool, ``a``/``b`` have ``out.dtype``."""
        raise NotImplementedError

    # -- reductions and scans --------------------------------------------------------------------
    def reduce(self, op: str, out, x, axes: tuple[int, ...]) -> None:
        """``op`` in sum, prod, max, min, any, all over ``axes``; ``out`` has those axes removed.

        ``x`` already has the accumulation dtype (the frontend casts); max/min propagate NaN.
        """
        raise NotImplementedError

    def arg_reduce(self, op: str, out, x, axis: int) -> None:
        """``op`` in argmax, argmin along ``axis`` (first occurrence; NaN wins); ``out`` int64."""
        raise NotImplementedError

    def scan(self, op: str, out, x, axis: int) -> None:
        """Inclusive cumulative ``op`` in sum, prod, max, min along ``axis``."""
        raise NotImplementedError

    def window_reduce(self, op: str, out, x, window, strides, dilations) -> None:
        """``op`` in sum, prod, max, min over the windows of ``x`` (already padded; any strided
        view): ``out[o] = fold(x[o * strides + q * dilations] for q in the window)``, one tuple
        entry per axis, ``out`` C-contiguous of ``window_shape(...)`` and ``x``'s dtype.

        The fold is the elementwise op of ``WINDOW_OPS`` (add, multiply, maximum, minimum, with
        its NaN and signed-zero rules; bool sum/prod are or/and), applied from the window's
        first element in row-major order of the positions ``q`` and rounded to the dtype after
        every step: exactly folding the strided views ``window_view(x, q, ...)`` with that op,
        so every device gives the same bits.  Complex max/min are refused (TypeError).
        """
        raise NotImplementedError

    def window_scatter(self, select: str, out, x, source, window, strides, dilations) -> None:
        """Select and scatter (the derivative of a window max/min, Nx's window_scatter_max):
        in each window of ``x`` (as ``window_reduce``'s) one element is selected, walking the
        window in row-major order from its first element: for ``"max"``/``"min"`` the next
        element replaces the selected one unless ``selected >= next`` (``<=``) -- XLA's select:
        the first extreme wins and a NaN gives way -- for ``"max_last"``/``"min_last"`` it
        does when ``next >= selected`` (``<=``): the last extreme wins, a NaN is kept only
        in the first position.  ``out`` (C-contiguous, ``x``'s shape, ``source``'s dtype)
        gets ``0 + source[o] + ...`` over the windows ``o`` that selected each element, in C
        order of the windows, rounded to the dtype after every step.  Complex ``x`` is
        refused (TypeError)."""
        raise NotImplementedError

    # -- linear algebra --------------------------------------------------------------------------
    def matmul(self, out, a, b) -> None:
        """Batched ``(..., m, k) @ (..., k, n)``; batch dims already broadcast to ``out``'s."""
        raise NotImplementedError

    # -- indexing --------------------------------------------------------------------------------
    def gather(self, out, x, axis: int, indices) -> None:
        """``out[..., i, ...] = x[..., indices[..., i, ...], ...]`` (take_along_axis; indices
        are int32, or int64 holding values int32 holds, with ``out``'s shape; a negative index
        counts from the end once, then every index is clamped into ``[0, size)``: the
        frontend checks eager indices first, traced ones take this rule, JAX's for reads)."""
        raise NotImplementedError

    def scatter(self, op: str, out, axis: int, indices, updates) -> None:
        """In place on ``out`` (a fresh copy the frontend made): along ``axis``, element
        ``updates[..., i, ...]`` goes to position ``indices[..., i, ...]`` (as gather's:
        int32 or int64 values int32 holds, wrapped and clamped; JAX drops such updates);
        ``op`` in set, add, min, max.  For ``set`` with duplicate indices the last update
        wins."""
        raise NotImplementedError

    # -- sorting ---------------------------------------------------------------------------------
    def sort(self, out, x, axis: int, descending: bool) -> None:
        """Stable sort along ``axis``; NaNs last (first when descending), like NumPy."""
        raise NotImplementedError

    def argsort(self, out, x, axis: int, descending: bool) -> None:
        """Stable argsort (int64) along ``axis``, same order as ``sort``."""
        raise NotImplementedError

    # -- optional capabilities (None: the frontend computes it from the primitives) -----------
    def summarize_blocks(self, x, sy: int, sx: int):
        """For heatmaps, in one pass over the 3-D view ``x`` (slices, rows, columns): the means
        of its ``sy`` x ``sx`` blocks (float32, C order) and the finite min, finite max and
        "every value finite" of all of it, as ``(vmin | None, vmax | None, all_finite,
        cells)``; None when this backend has no such fast path (the default)."""
        return None

    def search_sorted(self, sorted_values, values, right: bool):
        """``searchsorted`` in one go: a new int64 tensor of ``values``' shape holding the
        insertion positions of ``values`` into the 1-D ``sorted_values`` (non-empty, the same
        dtype, sorted with NaN last), after equal elements where ``right``.  None when this
        backend has no such fast path (the default: the frontend runs a binary search of
        gather, compare and where passes)."""
        return None

    def flat_nonzero(self, mask):
        """The positions (a new int64 tensor, in order) of the true elements of the 1-D bool
        ``mask``: the one primitive whose result's size depends on the data (it reads back the
        count).  None when this backend has no such path (the default: the frontend counts
        with a reduction, then sorts the mask)."""
        return None

    def scatter_in_range(self, op: str, out, axis: int, indices, updates):
        """``scatter`` for callers that refuse indices outside ``[0, out.shape[axis])``
        (negative ones too: TensorFlow's rule), checking them while it scatters: True when
        every index is in range, False when one is not (``out`` is then unspecified); None when
        this backend has no such fast path for the call (the default: nothing is done, the
        caller checks the indices and calls ``scatter``)."""
        return None

    def dtype_support(self) -> dict[str, str]:
        """dtype name -> how this backend computes it: ``"native"`` (here) or ``"cpu"``
        (routed to the CPU device, transparently).  A dtype missing from the dict is not
        supported at all (``wt.invalid_dtypes_for``).  Default: all 15 dtypes, natively."""
        from .. import dtypes as _d

        return dict.fromkeys((dt.name for dt in _d.all_dtypes), "native")

    def native_dtype(self, dtype):
        """This backend's own object for the webtensor ``dtype`` (NumPy's dtype on the NumPy
        backend); by default the webtensor dtype itself (backends with no dtype objects)."""
        return dtype

    # -- random ----------------------------------------------------------------------------------
    def random_bits(self, out, key: tuple[int, int], counter: int) -> None:
        """Fill ``out`` (uint32) with Philox-4x32-10 output words for ``key`` from ``counter``."""
        raise NotImplementedError
