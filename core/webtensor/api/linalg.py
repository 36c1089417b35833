"""Linear algebra functions of the Array API main namespace, plus NumPy-style extras.

``x @ y`` -> ``Tensor.__matmul__`` -> ``matmul`` here: promote the dtypes, apply the 1-D rules,
broadcast the batch dimensions to stride-0 views, then one ``backend.matmul(out, a, b)``.
Everything else is a composition: ``tensordot``/``einsum``/``vecdot``/``inner``/``dot`` are
permutes and reshapes (views where possible) around that same batched matmul, ``diagonal`` is a
strided view (stride ``s1 + s2``), ``matrix_transpose`` swaps the last two strides.

Array API (main namespace): ``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot``.
NumPy extras: ``einsum``, ``diagonal``, ``trace``, ``outer``, ``inner``, ``dot``, ``vdot``,
``cross``, ``kron``.  The ``wt.linalg`` extension lives in ``webtensor.linalg``.
"""

from __future__ import annotations

from .. import dtypes as _d
from .. import shape as _s
from .. import views as _views
from ..tensor import Tensor, broadcast_view, cast, contiguous, empty, scalar
from ._common import as_tensor, axis_index, check_kind, check_supported, merge_names, promote

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot", "einsum", "diagonal", "trace",
           "outer", "inner", "dot", "vdot", "cross", "kron"]


# -- internal views ---------------------------------------------------------------------------------

_permute, _reshape = _views.permute, _views.reshape


def _as_operands(args, fn: str):
    """Promote ``args`` and return (dtype, weak, device, tensors of that dtype)."""
    dt, weak, device, args = promote(args, fn)
    out = []
    for a in args:
        if a.__class__ is Tensor:
            out.append(cast(a, dt, weak=weak))
        else:  # a Python scalar: a 0-d tensor on the operands' device
            out.append(scalar(a, dt, device, weak))
    return dt, weak, device, out


def _tensor(x, fn: str) -> Tensor:
    return x if x.__class__ is Tensor else as_tensor(x, fn)


def _check_numeric(dt, fn: str) -> None:
    check_kind(dt, "biufc", fn)


# -- the batched matmul every contraction goes through -----------------------------------------------

def _mm(a: Tensor, b: Tensor, batch, *, weak=False, names=None) -> Tensor:
    """``a`` (..., m, k) @ ``b`` (..., k, n) with equal dtypes; ``batch`` is the broadcast batch
    shape.  Bool computes in int32 and compares with 0 (NumPy's bool matmul is OR of ANDs)."""
    dt = a.dtype
    m, k = a.shape[-2:]
    n = b.shape[-1]
    a = broadcast_view(a, tuple(batch) + (m, k))
    b = broadcast_view(b, tuple(batch) + (k, n))
    compute = _d.int32 if dt is _d.bool else dt
    out = empty(tuple(batch) + (m, n), compute, a.device, weak=weak, names=names)
    if out.size:
        if k == 0:
            out._backend.fill(out, 0)
        else:
            out._backend.matmul(out, cast(a, compute), cast(b, compute))
    if dt is _d.bool:
        from .elementwise import not_equal

        out = not_equal(out, 0)
        if names is not None:
            out = out._view(out.shape, out.strides, out.offset, names=names)
    return out


def _matmul_names(a: Tensor, b: Tensor, batch, fn: str):
    """Batch names merge (clash -> error); rows are named by ``a``, columns by ``b``."""
    if a.names is None and b.names is None:
        return None
    fake_a = a._view(a.shape[:-2], a.strides[:-2], a.offset,
                     names=None if a.names is None else a.names[:-2])
    fake_b = b._view(b.shape[:-2], b.strides[:-2], b.offset,
                     names=None if b.names is None else b.names[:-2])
    lead = merge_names([fake_a, fake_b], tuple(batch), fn) or (None,) * len(batch)
    rows = None if a.names is None else a.names[-2]
    cols = None if b.names is None else b.names[-1]
    if rows is not None and rows == cols:
        cols = None
    names = tuple(lead) + (rows, cols)
    return names if any(n is not None for n in names) else None


def matmul(x1, x2, /) -> Tensor:
    """Matrix product with NumPy/Array API rules.

    1-D ``x1`` is a row vector and 1-D ``x2`` a column vector, the added dimension removed from
    the result; dimensions before the last two are batch dimensions and broadcast.  0-d operands
    are refused (use ``wt.multiply``).  The result dtype follows the active promotion mode.
    """
    fn = "matmul"
    # Fast path (per-op overhead): two strong, unnamed 2-D tensors of one numeric dtype.
    if x1.__class__ is Tensor and x2.__class__ is Tensor:
        s1, s2 = x1.shape, x2.shape
        if (len(s1) == 2 and len(s2) == 2 and s1[1] == s2[0] and s1[1]
                and x1.dtype is x2.dtype and x1.dtype is not _d.bool
                and x1.device is x2.device and not (x1.weak or x2.weak)
                and x1.names is None and x2.names is None):
            out = empty((s1[0], s2[1]), x1.dtype, x1.device)
            if out.size:
                x1.device.backend.matmul(out, x1, x2)
            return out
    dt, weak, _device, (a, b) = _as_operands((x1, x2), fn)
    _check_numeric(dt, fn)
    shape1, shape2 = a.shape, b.shape
    for which, t in (("x1", a), ("x2", b)):
        if t.ndim == 0:
            raise ValueError(f"wt.{fn}: {which} is 0-d (shapes {shape1} and {shape2}); matmul "
                             f"needs at least one dimension per operand, use wt.multiply for "
                             f"scalars")
    drop_rows = a.ndim == 1
    drop_cols = b.ndim == 1
    if drop_rows:
        a = a._view((1,) + a.shape, (0,) + a.strides, a.offset,
                    names=None if a.names is None else (None,) + a.names)
    if drop_cols:
        b = b._view(b.shape + (1,), b.strides + (0,), b.offset,
                    names=None if b.names is None else b.names + (None,))
    if a.shape[-1] != b.shape[-2]:
        where2 = "only dimension" if drop_cols else "second-to-last dimension"
        raise ValueError(f"wt.{fn}: shapes {shape1} and {shape2} are not aligned: x1's last "
                         f"dimension ({a.shape[-1]}) must equal x2's {where2} "
                         f"({b.shape[-2]})")
    try:
        batch = _s.broadcast_shapes(a.shape[:-2], b.shape[:-2], fn=fn)
    except ValueError:
        raise ValueError(f"wt.{fn}: shapes {shape1} and {shape2} have batch dimensions "
                         f"{a.shape[:-2]} and {b.shape[:-2]} that cannot be broadcast "
                         f"together; make them equal or 1") from None
    names = _matmul_names(a, b, batch, fn)
    out = _mm(a, b, batch, weak=weak, names=names)
    if drop_rows or drop_cols:
        keep = [i for i in range(out.ndim)
                if not (drop_rows and i == out.ndim - 2 or drop_cols and i == out.ndim - 1)]
        new_names = None
        if out.names is not None:
            new_names = tuple(out.names[i] for i in keep)
            if all(n is None for n in new_names):
                new_names = None
        out = out._view(tuple(out.shape[i] for i in keep), tuple(out.strides[i] for i in keep),
                        out.offset, names=new_names)
    return out


def matrix_transpose(x, /) -> Tensor:
    """Swap the last two axes (a view; ``x.mT``)."""
    x = _tensor(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"wt.matrix_transpose: needs at least 2 dimensions, got shape "
                         f"{x.shape}; reshape a vector to (n, 1) or (1, n) first")
    axes = list(range(x.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return _permute(x, axes)


# -- contractions -------------------------------------------------------------------------------------

def _contract(a: Tensor, b: Tensor, a_axes, b_axes, fn: str, *, weak=False) -> Tensor:
    """Sum over the paired axes; result axes: ``a``'s free axes then ``b``'s (tensordot)."""
    free_a = [i for i in range(a.ndim) if i not in a_axes]
    free_b = [i for i in range(b.ndim) if i not in b_axes]
    m_shape = tuple(a.shape[i] for i in free_a)
    n_shape = tuple(b.shape[i] for i in free_b)
    k = _s.size_of(tuple(a.shape[i] for i in a_axes))
    a2 = _reshape(_permute(a, free_a + list(a_axes)), (_s.size_of(m_shape), k))
    b2 = _reshape(_permute(b, list(b_axes) + free_b), (k, _s.size_of(n_shape)))
    out = _mm(a2, b2, (), weak=weak)
    return _reshape(out, m_shape + n_shape)


def _axes_list(axes, ndim: int, which: str, fn: str) -> list[int]:
    if isinstance(axes, int) or hasattr(axes, "__index__"):
        axes = [axes]
    try:
        axes = list(axes)
    except TypeError:
        raise TypeError(f"wt.{fn}: axes for {which} must be an int or a sequence of ints, got "
                        f"{axes!r}") from None
    out = [_s.normalize_axis(a, ndim, fn) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"wt.{fn}: repeated axis in {tuple(axes)} for {which}; each axis may "
                         f"be contracted once")
    return out


def tensordot(x1, x2, /, *, axes=2) -> Tensor:
    """Sum products over ``axes``: an int N (last N of ``x1`` with first N of ``x2``) or a pair
    of axis sequences.  Contracted dimensions must have equal sizes (no broadcasting)."""
    fn = "tensordot"
    dt, weak, _device, (a, b) = _as_operands((x1, x2), fn)
    _check_numeric(dt, fn)
    if isinstance(axes, bool):
        raise TypeError(f"wt.{fn}: axes must be an int or a pair of sequences, got {axes!r}")
    if isinstance(axes, int) or hasattr(axes, "__index__"):
        n = int(axes.__index__())
        if n < 0:
            raise ValueError(f"wt.{fn}: axes must be >= 0, got {n}")
        if n > a.ndim or n > b.ndim:
            raise ValueError(f"wt.{fn}: cannot contract {n} axes of shapes {a.shape} and "
                             f"{b.shape}; both operands need at least {n} dimensions")
        a_axes = list(range(a.ndim - n, a.ndim))
        b_axes = list(range(n))
    else:
        try:
            ax1, ax2 = axes
        except (TypeError, ValueError):
            raise TypeError(f"wt.{fn}: axes must be an int or a pair (x1_axes, x2_axes), got "
                            f"{axes!r}") from None
        a_axes = _axes_list(ax1, a.ndim, "x1", fn)
        b_axes = _axes_list(ax2, b.ndim, "x2", fn)
        if len(a_axes) != len(b_axes):
            raise ValueError(f"wt.{fn}: got {len(a_axes)} axes for x1 but {len(b_axes)} for "
                             f"x2; pass the same number of axes for both")
    for i, j in zip(a_axes, b_axes):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"wt.{fn}: shape mismatch for the contraction: x1 axis {i} has "
                             f"size {a.shape[i]} but x2 axis {j} has size {b.shape[j]} "
                             f"(shapes {a.shape} and {b.shape})")
    return _contract(a, b, a_axes, b_axes, fn, weak=weak)


def _vector_axis(a: Tensor, b: Tensor, axis, fn: str) -> int:
    """The Array API rule for vecdot/cross: a negative axis counted from the end of both; a
    non-negative one is taken in the broadcast shape (as NumPy does)."""
    if isinstance(axis, bool) or not (isinstance(axis, int) or hasattr(axis, "__index__")):
        raise TypeError(f"wt.{fn}: axis must be an int, got {axis!r}")
    axis = int(axis.__index__())
    n = min(a.ndim, b.ndim)
    full = max(a.ndim, b.ndim)
    if axis >= 0:
        if axis >= full:
            raise ValueError(f"wt.{fn}: axis {axis} is out of bounds for the broadcast shape of "
                             f"{a.shape} and {b.shape} ({full} dimensions)")
        axis -= full
    if not -n <= axis <= -1:
        raise ValueError(f"wt.{fn}: axis {axis} must lie in [{-n}, -1] for shapes {a.shape} and "
                         f"{b.shape} (counted from the end of both)")
    return axis


def vecdot(x1, x2, /, *, axis=-1) -> Tensor:
    """Dot product of vectors along ``axis``, broadcasting the other dimensions; complex ``x1``
    is conjugated (``sum(conj(x1) * x2)``)."""
    fn = "vecdot"
    dt, weak, _device, (a, b) = _as_operands((x1, x2), fn)
    _check_numeric(dt, fn)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"wt.{fn}: needs at least 1-D operands, got shapes {a.shape} and "
                         f"{b.shape}")
    axis = _vector_axis(a, b, axis, fn)
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(f"wt.{fn}: the vectors along axis {axis} have sizes {a.shape[axis]} and "
                         f"{b.shape[axis]} (shapes {a.shape} and {b.shape}); they must be equal")
    if dt.kind == "c":
        from .elementwise import conj

        a = conj(a)
    a = _move_to_end(a, a.ndim + axis)
    b = _move_to_end(b, b.ndim + axis)
    try:
        batch = _s.broadcast_shapes(a.shape[:-1], b.shape[:-1], fn=fn)
    except ValueError:
        raise ValueError(f"wt.{fn}: shapes {tuple(x.shape for x in (a, b))} cannot be broadcast "
                         f"outside the vector axis") from None
    k = a.shape[-1]
    av = a._view(a.shape[:-1] + (1, k), a.strides[:-1] + (0, a.strides[-1]), a.offset)
    bv = b._view(b.shape[:-1] + (k, 1), b.strides[:-1] + (b.strides[-1], 0), b.offset)
    out = _mm(av, bv, batch, weak=weak)
    return out._view(batch, out.strides[:-2], out.offset)


def _move_to_end(x: Tensor, axis: int) -> Tensor:
    axes = [i for i in range(x.ndim) if i != axis] + [axis]
    return _permute(x, axes)


# -- einsum ---------------------------------------------------------------------------------------------

def _parse_term(term: str, fn: str) -> list:
    """'ab...c' -> ['a', 'b', Ellipsis, 'c']."""
    out: list = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "...":
                raise ValueError(f"wt.{fn}: invalid subscript {term!r}: '.' must be part of "
                                 f"an ellipsis '...'")
            if Ellipsis in out:
                raise ValueError(f"wt.{fn}: subscript {term!r} has more than one ellipsis")
            out.append(Ellipsis)
            i += 3
            continue
        if not c.isascii() or not c.isalpha():
            raise ValueError(f"wt.{fn}: invalid character {c!r} in subscripts; use letters "
                             f"a-z, A-Z and '...'")
        out.append(c)
        i += 1
    return out


def _sum_labels(x: Tensor, labels: list, drop: set):
    """Sum ``x`` over the axes whose labels are in ``drop`` (via matmul with a ones vector, so
    integer wraparound and low-precision rounding follow the backend's matmul)."""
    drop_axes = [i for i, lab in enumerate(labels) if lab in drop]
    if not drop_axes:
        return x, labels
    keep_axes = [i for i in range(x.ndim) if i not in drop_axes]
    keep_shape = tuple(x.shape[i] for i in keep_axes)
    k = _s.size_of(tuple(x.shape[i] for i in drop_axes))
    a2 = _reshape(_permute(x, keep_axes + drop_axes), (_s.size_of(keep_shape), k))
    ones = empty((k, 1), x.dtype, x.device)
    ones._backend.fill(ones, 1)
    out = _mm(a2, ones, (), weak=x.weak)
    return _reshape(out, keep_shape), [labels[i] for i in keep_axes]


def einsum(subscripts: str, *operands) -> Tensor:
    """Einstein summation as NumPy's ``einsum``: implicit (``'ij,jk'``) and explicit
    (``'ij,jk->ik'``) outputs, ``...`` for broadcast dimensions, a label repeated within one
    operand takes its diagonal, labels absent from the output are summed.  Size-1 dimensions
    broadcast against the other operands' sizes for the same label.

    Built from diagonal views, permutes, reshapes and the batched matmul (pairwise, left to
    right); the result dtype is the promoted dtype of all operands."""
    fn = "einsum"
    if not isinstance(subscripts, str):
        raise TypeError(f"wt.{fn}: subscripts must be a string like 'ij,jk->ik', got "
                        f"{type(subscripts).__name__}")
    if not operands:
        raise ValueError(f"wt.{fn}: no operands given for subscripts {subscripts!r}")
    dt, weak, _device, ops = _as_operands(operands, fn)
    _check_numeric(dt, fn)
    spec = subscripts.replace(" ", "")
    explicit = "->" in spec
    if explicit:
        lhs, _, rhs = spec.partition("->")
        if "->" in rhs or "-" in rhs or ">" in rhs:
            raise ValueError(f"wt.{fn}: subscripts {subscripts!r} have more than one '->'")
    else:
        lhs, rhs = spec, None
        if "-" in lhs or ">" in lhs:
            raise ValueError(f"wt.{fn}: invalid subscripts {subscripts!r}; the output is "
                             f"introduced by '->'")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise ValueError(f"wt.{fn}: subscripts {subscripts!r} describe {len(terms)} operand"
                         f"{'s' if len(terms) != 1 else ''} but {len(ops)} were given")
    parsed = [_parse_term(t, fn) for t in terms]

    # Ellipsis dimensions become integer labels aligned from the right.
    n_ell = 0
    for term, t in zip(parsed, ops):
        letters = sum(1 for lab in term if lab is not Ellipsis)
        if Ellipsis in term:
            if t.ndim < letters:
                raise ValueError(f"wt.{fn}: operand {parsed.index(term)} has shape {t.shape} "
                                 f"but its subscripts name {letters} dimensions")
            n_ell = max(n_ell, t.ndim - letters)
        elif t.ndim != letters:
            raise ValueError(f"wt.{fn}: operand with subscripts {''.join(term)!r} has "
                             f"{t.ndim} dimension{'s' if t.ndim != 1 else ''} (shape "
                             f"{t.shape}) but {letters} labels; use '...' for the rest")
    labels_per_op = []
    for term, t in zip(parsed, ops):
        letters = sum(1 for lab in term if lab is not Ellipsis)
        own = t.ndim - letters
        labels: list = []
        for lab in term:
            if lab is Ellipsis:
                labels.extend(range(n_ell - own, n_ell))
            else:
                labels.append(lab)
        labels_per_op.append(labels)

    for labels, t in zip(labels_per_op, ops):
        for p, lab in enumerate(labels):
            q = labels.index(lab)
            if q < p and t.shape[p] != t.shape[q]:
                raise ValueError(f"wt.{fn}: repeated label {lab!r} spans dimensions of sizes "
                                 f"{t.shape[q]} and {t.shape[p]} in an operand of shape "
                                 f"{t.shape}; a diagonal needs equal sizes")

    # Sizes per label, with size-1 broadcasting.
    sizes: dict = {}
    for labels, t in zip(labels_per_op, ops):
        for lab, n in zip(labels, t.shape):
            seen = sizes.get(lab, 1)
            if n != 1 and seen not in (1, n):
                name = "..." if isinstance(lab, int) else repr(lab)
                raise ValueError(f"wt.{fn}: label {name} has size {seen} in one operand and {n} "
                                 f"in another (operand shapes {[x.shape for x in ops]})")
            sizes[lab] = n if seen == 1 else seen

    # The output labels.
    counts: dict = {}
    for labels in labels_per_op:
        for lab in dict.fromkeys(labels):
            counts[lab] = counts.get(lab, 0) + 1
    letters_all = [lab for labels in parsed for lab in labels if lab is not Ellipsis]
    if explicit:
        out_term = _parse_term(rhs, fn)
        out_labels: list = []
        for lab in out_term:
            if lab is Ellipsis:
                out_labels.extend(range(n_ell))
            else:
                if lab not in counts:
                    raise ValueError(f"wt.{fn}: output label {lab!r} does not appear in the "
                                     f"inputs {lhs!r}")
                if lab in out_labels:
                    raise ValueError(f"wt.{fn}: output label {lab!r} appears more than once "
                                     f"in {rhs!r}")
                out_labels.append(lab)
        if Ellipsis not in out_term and any(sizes.get(i, 1) != 1 for i in range(n_ell)):
            raise ValueError(f"wt.{fn}: the inputs have '...' dimensions but the output "
                             f"{rhs!r} has no '...' to hold them")
        if Ellipsis not in out_term:
            # Ellipsis dims of size 1 that are not kept are dropped (summed, trivially).
            pass
    else:
        single = sorted({lab for lab in letters_all if letters_all.count(lab) == 1})
        out_labels = list(range(n_ell)) + single

    # 1) repeated labels within one operand -> diagonal views.
    cur = []
    for labels, t in zip(labels_per_op, ops):
        labels = list(labels)
        while True:
            dup = next((lab for lab in labels if labels.count(lab) > 1), None)
            if dup is None:
                break
            p = labels.index(dup)
            q = labels.index(dup, p + 1)
            t = diagonal_view(t, 0, p, q, fn)
            labels = [lab for i, lab in enumerate(labels) if i not in (p, q)] + [dup]
        cur.append((t, labels))

    # 2) contract left to right; sum labels nobody else needs as early as possible.
    out_set = set(out_labels)

    def needed_after(idx):
        s = set(out_set)
        for _t, labs in cur[idx + 1:]:
            s.update(labs)
        return s

    acc, acc_labels = cur[0]
    acc, acc_labels = _sum_labels(acc, acc_labels, set(acc_labels) - needed_after(0))
    for idx in range(1, len(cur)):
        t, labels = cur[idx]
        keep = needed_after(idx)
        t, labels = _sum_labels(t, labels, set(labels) - keep - set(acc_labels))
        acc, acc_labels = _pair(acc, acc_labels, t, labels, keep, sizes, weak)
    acc, acc_labels = _sum_labels(acc, acc_labels, set(acc_labels) - out_set)

    # 3) order (and broadcast) to the output.
    acc = _permute(acc, [acc_labels.index(lab) for lab in out_labels])
    shape = tuple(sizes[lab] for lab in out_labels)
    acc = broadcast_view(acc, shape) if acc.shape != shape else acc
    if acc.strides != _s.contiguous_strides(shape) or acc.offset:
        acc = contiguous(acc)
    if acc.names is not None or acc.weak != weak:
        acc = Tensor._wrap(acc._data, acc.shape, acc.dtype, acc.device, strides=acc.strides,
                           offset=acc.offset, weak=weak)
    return acc


def _pair(a, la, b, lb, keep, sizes, weak):
    """Contract two labelled operands; labels in both and not kept are summed."""
    common = [lab for lab in la if lab in lb]
    batch = [lab for lab in common if lab in keep]
    summed = [lab for lab in common if lab not in keep]
    a_free = [lab for lab in la if lab not in lb]
    b_free = [lab for lab in lb if lab not in la]

    def arrange(t, labs, order):
        t = _permute(t, [labs.index(lab) for lab in order])
        target = tuple(sizes[lab] if lab in common else n for lab, n in zip(order, t.shape))
        return broadcast_view(t, target) if target != t.shape else t

    a = arrange(a, la, batch + a_free + summed)
    b = arrange(b, lb, batch + summed + b_free)
    nb = len(batch)
    bshape = a.shape[:nb]
    mshape = a.shape[nb:nb + len(a_free)]
    kshape = a.shape[nb + len(a_free):]
    nshape = b.shape[nb + len(summed):]
    bsz, m, k, n = (_s.size_of(s) for s in (bshape, mshape, kshape, nshape))
    a3 = _reshape(a, (bsz, m, k))
    b3 = _reshape(b, (bsz, k, n))
    out = _mm(a3, b3, (bsz,), weak=weak)
    return _reshape(out, bshape + mshape + nshape), batch + a_free + b_free


# -- diagonals and friends --------------------------------------------------------------------------

def diagonal_view(x: Tensor, offset, axis1, axis2, fn: str) -> Tensor:
    """The ``offset`` diagonal of the ``axis1``/``axis2`` planes as a view; the diagonal
    becomes the last axis (NumPy's layout)."""
    if x.ndim < 2:
        raise ValueError(f"wt.{fn}: needs at least 2 dimensions, got shape {x.shape}")
    offset = _s.index_arg(offset, fn)
    a1 = axis_index(x, axis1, fn)
    a2 = axis_index(x, axis2, fn)
    if a1 == a2:
        raise ValueError(f"wt.{fn}: axis1 and axis2 must differ, both are {a1}")
    n1, n2 = x.shape[a1], x.shape[a2]
    s1, s2 = x.strides[a1], x.strides[a2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start = x.offset + offset * s2
    else:
        length = max(0, min(n1 + offset, n2))
        start = x.offset - offset * s1
    keep = [i for i in range(x.ndim) if i not in (a1, a2)]
    if length == 0 or any(x.shape[i] == 0 for i in keep):
        start = x.offset  # an empty view: keep the offset inside the buffer
    names = None
    if x.names is not None:
        names = tuple(x.names[i] for i in keep) + (None,)
        if all(n is None for n in names):
            names = None
    return x._view(tuple(x.shape[i] for i in keep) + (length,),
                   tuple(x.strides[i] for i in keep) + (s1 + s2,), start, names=names)


def diagonal(x, /, offset: int = 0, axis1=0, axis2=1) -> Tensor:
    """NumPy's ``diagonal``: the diagonal of the ``axis1``/``axis2`` planes as a view (no copy),
    appended as the last axis.  ``wt.linalg.diagonal`` uses the last two axes instead."""
    return diagonal_view(_tensor(x, "diagonal"), offset, axis1, axis2, "diagonal")


def trace(x, /, offset: int = 0, axis1=0, axis2=1, dtype=None) -> Tensor:
    """NumPy's ``trace``: the sum along a diagonal, with ``wt.sum``'s dtype rules."""
    d = diagonal_view(_tensor(x, "trace"), offset, axis1, axis2, "trace")
    return sum_diagonal(d, dtype, "trace")


def sum_diagonal(d: Tensor, dtype, fn: str) -> Tensor:
    """Sum a diagonal view over its last axis with the Array API ``sum`` dtype rule."""
    from . import _reduce

    check_kind(d.dtype, "biufc", fn)
    acc = _reduce.accumulation_dtype(d.dtype, dtype, fn)
    return _reduce.reduce("sum", d, (d.ndim - 1,), False, dtype=acc)


def outer(x1, x2, /) -> Tensor:
    """NumPy's ``outer``: both inputs are flattened; ``out[i, j] = x1[i] * x2[j]``."""
    fn = "outer"
    a, b = _tensor(x1, fn), _tensor(x2, fn)
    a = _reshape(a, (a.size,))
    b = _reshape(b, (b.size,))
    return outer_1d(a, b, fn)


def outer_1d(a: Tensor, b: Tensor, fn: str) -> Tensor:
    from .elementwise import multiply

    av = a._view((a.shape[0], 1), (a.strides[0], 0), a.offset)
    bv = b._view((1, b.shape[0]), (0, b.strides[0]), b.offset)
    return multiply(av, bv)


def inner(x1, x2, /) -> Tensor:
    """NumPy's ``inner``: sum over the last axes; shape ``x1.shape[:-1] + x2.shape[:-1]``."""
    fn = "inner"
    dt, weak, _device, (a, b) = _as_operands((x1, x2), fn)
    _check_numeric(dt, fn)
    if a.ndim == 0 or b.ndim == 0:
        from .elementwise import multiply

        return multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"wt.{fn}: the last dimensions differ: shapes {a.shape} and {b.shape}")
    return _contract(a, b, [a.ndim - 1], [b.ndim - 1], fn, weak=weak)


def dot(x1, x2, /) -> Tensor:
    """NumPy's ``dot``: 0-d -> multiply; 1-D x2 -> sum over the last axes; else the last axis of
    ``x1`` with the second-to-last of ``x2``."""
    fn = "dot"
    dt, weak, _device, (a, b) = _as_operands((x1, x2), fn)
    _check_numeric(dt, fn)
    if a.ndim == 0 or b.ndim == 0:
        from .elementwise import multiply

        return multiply(a, b)
    bx = 0 if b.ndim == 1 else b.ndim - 2
    if a.shape[-1] != b.shape[bx]:
        raise ValueError(f"wt.{fn}: shapes {a.shape} and {b.shape} are not aligned: "
                         f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[bx]} (dim {bx})")
    return _contract(a, b, [a.ndim - 1], [bx], fn, weak=weak)


def vdot(x1, x2, /) -> Tensor:
    """NumPy's ``vdot``: flatten both, conjugate ``x1``, dot product (a 0-d tensor)."""
    fn = "vdot"
    a, b = _tensor(x1, fn), _tensor(x2, fn)
    if a.size != b.size:
        raise ValueError(f"wt.{fn}: the inputs have {a.size} and {b.size} elements (shapes "
                         f"{a.shape} and {b.shape}); they must have the same size")
    return vecdot(_reshape(a, (a.size,)), _reshape(b, (b.size,)))


def cross(x1, x2, /, *, axis: int = -1) -> Tensor:
    """Cross product of 3-element vectors along ``axis``; other dimensions broadcast."""
    fn = "cross"
    dt, weak, device, (a, b) = _as_operands((x1, x2), fn)
    check_supported(dt, fn)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"wt.{fn}: needs at least 1-D operands, got shapes {a.shape} and "
                         f"{b.shape}")
    axis = _vector_axis(a, b, axis, fn)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(f"wt.{fn}: the vectors along axis {axis} must have 3 elements, got "
                         f"{a.shape[axis]} and {b.shape[axis]} (shapes {a.shape} and "
                         f"{b.shape})")
    a = _move_to_end(a, a.ndim + axis)
    b = _move_to_end(b, b.ndim + axis)
    batch = _s.broadcast_shapes(a.shape[:-1], b.shape[:-1], fn=fn)
    out = empty(batch + (3,), dt, device, weak=weak)
    ndim = out.ndim
    axes = list(range(ndim - 1))
    axes.insert(ndim + axis, ndim - 1)
    if out.size == 0:
        return _permute(out, axes)
    from .elementwise import multiply, subtract

    def comp(t, i):
        return t._view(t.shape[:-1], t.strides[:-1], t.offset + i * t.strides[-1])

    a0, a1, a2 = (comp(a, i) for i in range(3))
    b0, b1, b2 = (comp(b, i) for i in range(3))
    parts = [subtract(multiply(a1, b2), multiply(a2, b1)),
             subtract(multiply(a2, b0), multiply(a0, b2)),
             subtract(multiply(a0, b1), multiply(a1, b0))]
    for i, p in enumerate(parts):
        out._backend.assign(comp(out, i), broadcast_view(cast(p, dt), batch))
    return _permute(out, axes)


def kron(x1, x2, /) -> Tensor:
    """Kronecker product (NumPy's ``kron``): blocks ``x1[i, j] * x2``."""
    fn = "kron"
    dt, weak, _device, (a, b) = _as_operands((x1, x2), fn)
    _check_numeric(dt, fn)
    nd = max(a.ndim, b.ndim)
    a = _reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = _reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ia = []
    ib = []
    for n, m in zip(a.shape, b.shape):
        ia += [n, 1]
        ib += [1, m]
    from .elementwise import multiply

    prod = multiply(_reshape(a, tuple(ia)), _reshape(b, tuple(ib)))
    return _reshape(contiguous(prod), tuple(n * m for n, m in zip(a.shape, b.shape)))
