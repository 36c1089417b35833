"""``wt.linalg``: the Array API linear algebra extension (2024.12), all 23 functions.

cholesky, cross, det, diagonal, eigh, eigvalsh, inv, matmul, matrix_norm, matrix_power,
matrix_rank, matrix_transpose, outer, pinv, qr, slogdet, solve, svd, svdvals, tensordot, trace,
vecdot, vector_norm.

Where it sits: the contractions are the tensor compositions of ``webtensor.api.linalg`` (one
batched ``backend.matmul``); norms are elementwise ops and ``backend.reduce``.  The
decompositions (LU with partial pivoting for det/slogdet/inv/solve, Cholesky, Householder QR as
LAPACK does it, cyclic Jacobi for eigh, one-sided Jacobi for svd) run on the host: the matrices
are read back once, computed in double precision (Python floats / complex) and written back
rounded to the result dtype.  On the NumPy CPU backend the same functions call ``numpy.linalg``
in float64/complex128 instead (faster, same results within rounding); set
``webtensor.linalg._USE_NUMPY = False`` to force the pure-Python kernels.  A device with its own
kernels can replace these paths behind the same functions.  Each decomposition is a host
function (``api/_host.py``): traced, it is one node whose results are known by shape and dtype,
so ``wt.jit``, ``wt.grad``, ``wt.jvp`` and ``wt.vmap`` go through it (the derivative rules are in
``compile/host_rules.py``; ``docs/autodiff.md`` lists them).

Dtypes: floating and complex inputs keep their dtype (float16 and bfloat16 included: computed in
double, rounded once); bool and integer inputs compute in the default float dtype (float64 in
the ``numpy`` promotion mode), like the other float-valued functions.  Singular or non-positive-
definite inputs raise :class:`LinAlgError` (a ValueError).  Eigenvectors and singular vectors are
unique only up to sign (phase, for complex); they may differ from NumPy's by that factor.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from . import dtypes as _d
from . import shape as _s
from .api import linalg as _api
from .api._common import as_tensor, axes_tuple, check_kind, float_dtype_for, promote
from .api._host import call, host_function
from .api.linalg import matmul, matrix_transpose, tensordot, vecdot
from .tensor import Tensor, broadcast_view, cast, contiguous, empty, from_values

__all__ = ["LinAlgError", "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv",
           "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm", "EighResult", "QRResult", "SlogdetResult", "SVDResult"]

_USE_NUMPY = True  # the NumPy backend may hand decompositions to numpy.linalg


class LinAlgError(ValueError):
    """A matrix has no answer for the requested operation (singular, not positive definite)."""


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


# -- the functions shared with the main namespace ------------------------------------------------

def diagonal(x, /, *, offset: int = 0) -> Tensor:
    """The ``offset`` diagonal of each matrix (last two axes), as a view."""
    return _api.diagonal_view(as_tensor(x, "linalg.diagonal"), offset, -2, -1,
                               "linalg.diagonal")


def trace(x, /, *, offset: int = 0, dtype=None) -> Tensor:
    """Sum along the ``offset`` diagonal of each matrix, with ``sum``'s dtype rules (signed
    ints accumulate in the default int dtype, unsigned in the unsigned int of its width)."""
    fn = "linalg.trace"
    d = _api.diagonal_view(as_tensor(x, fn), offset, -2, -1, fn)
    return _api.sum_diagonal(d, dtype, fn)


def outer(x1, x2, /) -> Tensor:
    """Outer product of two 1-D tensors: ``out[i, j] = x1[i] * x2[j]``."""
    fn = "linalg.outer"
    a, b = as_tensor(x1, fn), as_tensor(x2, fn)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"wt.{fn}: expects two 1-D tensors, got shapes {a.shape} and "
                         f"{b.shape}; wt.outer flattens its inputs")
    return _api.outer_1d(a, b, fn)


def cross(x1, x2, /, *, axis: int = -1) -> Tensor:
    """Cross product of 3-element vectors along ``axis`` (in ``[-N, -1]``, N the smaller rank);
    the other dimensions broadcast."""
    return _api.cross(x1, x2, axis=axis)


# -- host plumbing -------------------------------------------------------------------------------

def _input(x, fn: str, *, square: bool = False):
    """(tensor, computation dtype) of a stack of matrices."""
    x = as_tensor(x, fn)
    check_kind(x.dtype, "biufc", fn)
    if x.ndim < 2:
        raise ValueError(f"wt.{fn}: expects a matrix or a stack of matrices (at least 2 "
                         f"dimensions), got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"wt.{fn}: expects square matrices in the last two dimensions, got "
                         f"shape {x.shape}")
    return x, float_dtype_for(x.dtype)


def _numpy(x: Tensor):
    """NumPy when the tensor lives on the NumPy backend and the fast path is on, else None."""
    if not _USE_NUMPY or getattr(x._backend, "name", "") != "numpy":
        return None
    import numpy

    return numpy


def _np_in(np, x: Tensor, dt):
    arr = np.asarray(x)
    return arr.astype(np.complex128 if dt.kind == "c" else np.float64)


def _np_out(np, arr, dt, device) -> Tensor:
    from .api.creation import asarray

    arr = np.asarray(arr)
    if dt.kind != "c" and arr.dtype.kind == "c":
        arr = arr.real
    return cast(asarray(arr, device=device), dt, weak=False)


def _read(x: Tensor, dt) -> list:
    """The matrices of ``x`` (C order over the batch) as lists of rows of Python numbers."""
    conv = complex if dt.kind == "c" else float
    vals = [conv(v) for v in x._backend.to_values(x)]
    m, n = x.shape[-2:]
    count = _s.size_of(x.shape[:-2])
    size = m * n
    return [[vals[b * size + i * n:b * size + (i + 1) * n] for i in range(m)]
            for b in range(count)]


def _write(mats, shape, dt, device) -> Tensor:
    flat = []
    for mat in mats:
        if isinstance(mat, list):
            for row in mat:
                if isinstance(row, list):
                    flat.extend(row)
                else:
                    flat.append(row)
        else:
            flat.append(mat)
    if dt.kind != "c":
        flat = [v.real if isinstance(v, complex) else v for v in flat]
    return from_values(flat, tuple(shape), dt, device)


def _real(dt):
    return dt.real_dtype if dt.kind == "c" else dt


def _conj(v):
    return v.conjugate() if isinstance(v, complex) else v


# -- pure-Python kernels (double precision) -------------------------------------------------------

def _lu(a):
    """LU with partial pivoting -> (lu rows, permutation, sign, singular)."""
    n = len(a)
    a = [row[:] for row in a]
    perm = list(range(n))
    sign = 1
    singular = False
    for k in range(n):
        p = k
        best = abs(a[k][k])
        for i in range(k + 1, n):
            v = abs(a[i][k])
            if v > best:
                p, best = i, v
        if a[p][k] == 0:
            singular = True
            continue
        if p != k:
            a[p], a[k] = a[k], a[p]
            perm[p], perm[k] = perm[k], perm[p]
            sign = -sign
        rowk = a[k]
        pivot = rowk[k]
        for i in range(k + 1, n):
            row = a[i]
            f = row[k] / pivot
            row[k] = f
            if f:
                for j in range(k + 1, n):
                    row[j] -= f * rowk[j]
    return a, perm, sign, singular


def _lu_solve(lu, perm, b):
    """Solve with an LU factorization; ``b`` is a list of rows (n x k)."""
    n = len(lu)
    k = len(b[0]) if b else 0
    y = [b[perm[i]][:] for i in range(n)]
    for i in range(n):
        row = lu[i]
        yi = y[i]
        for j in range(i):
            f = row[j]
            if f:
                yj = y[j]
                for c in range(k):
                    yi[c] -= f * yj[c]
    for i in range(n - 1, -1, -1):
        row = lu[i]
        yi = y[i]
        for j in range(i + 1, n):
            f = row[j]
            if f:
                yj = y[j]
                for c in range(k):
                    yi[c] -= f * yj[c]
        d = row[i]
        for c in range(k):
            yi[c] /= d
    return y


def _det(a):
    lu, _perm, sign, singular = _lu(a)
    if singular:
        return 0.0
    d = sign
    for i in range(len(lu)):
        d *= lu[i][i]
    return d


def _slogdet(a, is_complex):
    lu, _perm, sign, singular = _lu(a)
    if singular:
        return (0j if is_complex else 0.0), -math.inf
    s = complex(sign) if is_complex else float(sign)
    log = 0.0
    for i in range(len(lu)):
        d = lu[i][i]
        mag = abs(d)
        s *= d / mag
        log += math.log(mag)
    if is_complex:
        s = s / abs(s) if s != 0 else s
    return s, log


def _solve(a, b, fn):
    lu, perm, _sign, singular = _lu(a)
    if singular:
        raise LinAlgError(f"wt.{fn}: the matrix is singular (a zero pivot in its LU "
                          f"factorization); no unique solution exists")
    return _lu_solve(lu, perm, b)


def _cholesky(a, fn):
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for j in range(n):
        s = a[j][j]
        for k in range(j):
            v = low[j][k]
            s -= (v * _conj(v)).real if isinstance(v, complex) else v * v
        s = s.real if isinstance(s, complex) else s
        if not s > 0:
            raise LinAlgError(f"wt.{fn}: the matrix is not positive definite (pivot {j} is "
                              f"{s!r}); Cholesky needs a symmetric/Hermitian positive-definite "
                              f"input")
        d = math.sqrt(s)
        low[j][j] = d
        for i in range(j + 1, n):
            s = a[i][j]
            for k in range(j):
                s -= low[i][k] * _conj(low[j][k])
            low[i][j] = s / d
    return low


def _qr(a, m, n, complete):
    """Householder QR with LAPACK's conventions (geqrf + orgqr), so R matches NumPy's."""
    r = [row[:] for row in a]
    k = min(m, n)
    reflectors = []
    for j in range(k):
        alpha = r[j][j]
        xnorm = math.sqrt(sum(abs(r[i][j]) ** 2 for i in range(j + 1, m)))
        if xnorm == 0 and not (isinstance(alpha, complex) and alpha.imag != 0):
            reflectors.append(None)
            continue
        re = alpha.real if isinstance(alpha, complex) else alpha
        beta = -math.copysign(math.sqrt(abs(alpha) ** 2 + xnorm * xnorm), re)
        tau = (beta - alpha) / beta
        scale = 1 / (alpha - beta)
        v = [1.0] + [r[i][j] * scale for i in range(j + 1, m)]
        r[j][j] = beta
        for i in range(j + 1, m):
            r[i][j] = 0.0
        ctau = _conj(tau)
        for c in range(j + 1, n):
            w = sum(_conj(v[i - j]) * r[i][c] for i in range(j, m))
            if w:
                f = ctau * w
                for i in range(j, m):
                    r[i][c] -= f * v[i - j]
        reflectors.append((v, tau))
    cols = m if complete else k
    q = [[1.0 if i == c else 0.0 for c in range(cols)] for i in range(m)]
    for j in range(k - 1, -1, -1):
        ref = reflectors[j]
        if ref is None:
            continue
        v, tau = ref
        for c in range(cols):
            w = sum(_conj(v[i - j]) * q[i][c] for i in range(j, m))
            if w:
                f = tau * w
                for i in range(j, m):
                    q[i][c] -= f * v[i - j]
    rows = m if complete else k
    return q, [r[i][:] for i in range(rows)]


def _eigh(a, want_vectors):
    """Cyclic Jacobi on the Hermitian matrix given by the lower triangle of ``a``."""
    n = len(a)
    is_complex = any(isinstance(v, complex) for row in a for v in row)
    h = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            v = a[i][j]
            if i == j:
                h[i][i] = v.real if isinstance(v, complex) else v
            else:
                h[i][j] = v
                h[j][i] = _conj(v)
    vec = [[(1.0 if i == j else 0.0) for j in range(n)] for i in range(n)] \
        if want_vectors else None
    scale = math.sqrt(sum(abs(v) ** 2 for row in h for v in row))
    tiny = 1e-300 + 1e-18 * scale
    for _sweep in range(100):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = h[p][q]
                app, aqq = h[p][p], h[q][q]
                mag = abs(apq)
                if mag <= tiny or mag <= 1e-16 * math.sqrt(abs(app) * abs(aqq)):
                    continue
                if mag != mag:  # NaN: give up, the result is NaN anyway
                    continue
                rotated = True
                if is_complex:
                    apq = complex(apq)
                jpp, jpq, jqp, jqq = _rotation_for(app, aqq, apq)
                _apply(h, vec, p, q, jpp, jpq, jqp, jqq, n)
        if not rotated:
            break
    w = [h[i][i].real if isinstance(h[i][i], complex) else h[i][i] for i in range(n)]
    order = sorted(range(n), key=lambda i: (w[i] != w[i], w[i]))
    w = [w[i] for i in order]
    if vec is not None:
        vec = [[row[i] for i in order] for row in vec]
    return w, vec


def _rotation_for(app, aqq, apq):
    """(jpp, jpq, jqp, jqq) with J^H [[app, apq], [conj(apq), aqq]] J diagonal."""
    mag = abs(apq)
    tau = (aqq - app) / (2 * mag)
    t = (1.0 if tau >= 0 else -1.0) / (abs(tau) + math.sqrt(1 + tau * tau))
    c = 1 / math.sqrt(1 + t * t)
    s = t * c
    # J = D R with D = diag(1, conj(e)) making apq real (e = apq / |apq|), R a real rotation.
    e = apq / mag
    ce = _conj(e)
    return c, s, -s * ce, c * ce


def _apply(h, vec, p, q, jpp, jpq, jqp, jqq, n):
    """h <- J^H h J, vec <- vec J for the 2x2 block J at (p, q)."""
    for row in h:
        xp, xq = row[p], row[q]
        row[p] = xp * jpp + xq * jqp
        row[q] = xp * jpq + xq * jqq
    rp, rq = h[p], h[q]
    cpp, cpq, cqp, cqq = _conj(jpp), _conj(jpq), _conj(jqp), _conj(jqq)
    for k in range(n):
        xp, xq = rp[k], rq[k]
        rp[k] = cpp * xp + cqp * xq
        rq[k] = cpq * xp + cqq * xq
    h[p][q] = h[q][p] = 0.0
    for i in (p, q):
        v = h[i][i]
        h[i][i] = v.real if isinstance(v, complex) else v
    if vec is not None:
        for row in vec:
            xp, xq = row[p], row[q]
            row[p] = xp * jpp + xq * jqp
            row[q] = xp * jpq + xq * jqq


def _complete_basis(cols, m, want, is_complex):
    """Extend orthonormal column vectors (lists of length m) to ``want`` of them."""
    out = [c[:] for c in cols]
    e = 0
    while len(out) < want and e < m:
        v = [0.0] * m
        v[e] = 1.0
        e += 1
        for _ in range(2):
            for u in out:
                d = sum(_conj(u[i]) * v[i] for i in range(m))
                if d:
                    for i in range(m):
                        v[i] -= d * u[i]
        norm = math.sqrt(sum(abs(x) ** 2 for x in v))
        if norm > 0.5:
            out.append([x / norm for x in v])
    return out


def _svd(a, m, n, want_vectors, full):
    """One-sided Jacobi SVD -> (U rows m x r, s, Vh rows r x n) with r = m or min(m, n)."""
    if m < n:
        ah = [[_conj(a[i][j]) for i in range(m)] for j in range(n)]
        u2, s, vh2 = _svd(ah, n, m, want_vectors, full)
        if not want_vectors:
            return None, s, None
        # A^H = U2 S Vh2  =>  A = Vh2^H S U2^H
        u = [[_conj(vh2[j][i]) for j in range(len(vh2))] for i in range(m)]
        vh = [[_conj(u2[j][i]) for j in range(n)] for i in range(len(u2[0]) if u2 else 0)]
        return u, s, vh
    is_complex = any(isinstance(v, complex) for row in a for v in row)
    cols = [[a[i][j] for i in range(m)] for j in range(n)]  # column vectors of A
    vcols = [[(1.0 if i == j else 0.0) for i in range(n)] for j in range(n)]
    for _sweep in range(100):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                cp, cq = cols[p], cols[q]
                alpha = sum(abs(x) ** 2 for x in cp)
                beta = sum(abs(x) ** 2 for x in cq)
                gamma = sum(_conj(x) * y for x, y in zip(cp, cq))
                if abs(gamma) <= 1e-15 * math.sqrt(alpha * beta) or abs(gamma) < 1e-300:
                    continue
                rotated = True
                if is_complex:
                    gamma = complex(gamma)
                jpp, jpq, jqp, jqq = _rotation_for(alpha, beta, gamma)
                for vecs in (cols, vcols):
                    xp, xq = vecs[p], vecs[q]
                    vecs[p] = [x * jpp + y * jqp for x, y in zip(xp, xq)]
                    vecs[q] = [x * jpq + y * jqq for x, y in zip(xp, xq)]
        if not rotated:
            break
    s = [math.sqrt(sum(abs(x) ** 2 for x in c)) for c in cols]
    order = sorted(range(n), key=lambda j: -s[j] if s[j] == s[j] else -math.inf)
    s = [s[j] for j in order]
    if not want_vectors:
        return None, s, None
    smax = s[0] if s else 0.0
    ucols = []
    for rank, j in enumerate(order):
        if s[rank] > smax * 1e-14 * max(m, n) and s[rank] > 1e-300:
            ucols.append([x / s[rank] for x in cols[j]])
        else:
            break
    ucols = _complete_basis(ucols, m, m if full else n, is_complex)
    u = [[ucols[j][i] for j in range(len(ucols))] for i in range(m)]
    vh = [[_conj(vcols[j][i]) for i in range(n)] for j in order]
    return u, s, vh


# -- decompositions and solvers --------------------------------------------------------------------

def det(x, /) -> Tensor:
    """The determinant of each square matrix."""
    x, dt = _input(x, "linalg.det", square=True)
    return call("linalg.det", (x,), [(x.shape[:-2], dt)], dt=dt)[0]


@host_function("linalg.det")
def _det_host(x, *, dt):
    np = _numpy(x)
    if np is not None:
        return _np_out(np, np.linalg.det(_np_in(np, x, dt)), dt, x.device)
    return _write([_det(a) for a in _read(x, dt)], x.shape[:-2], dt, x.device)


def slogdet(x, /) -> SlogdetResult:
    """(sign, log|det|) of each square matrix; a singular one gives (0, -inf).  ``sign`` has
    the input's dtype (a unit complex number for complex), ``logabsdet`` the real dtype."""
    x, dt = _input(x, "linalg.slogdet", square=True)
    batch = x.shape[:-2]
    return SlogdetResult(*call("linalg.slogdet", (x,), [(batch, dt), (batch, _real(dt))], dt=dt))


@host_function("linalg.slogdet")
def _slogdet_host(x, *, dt):
    batch = x.shape[:-2]
    np = _numpy(x)
    if np is not None:
        sign, log = np.linalg.slogdet(_np_in(np, x, dt))
        return _np_out(np, sign, dt, x.device), _np_out(np, log, _real(dt), x.device)
    pairs = [_slogdet(a, dt.kind == "c") for a in _read(x, dt)]
    return (_write([p[0] for p in pairs], batch, dt, x.device),
            _write([p[1] for p in pairs], batch, _real(dt), x.device))


def inv(x, /) -> Tensor:
    """The inverse of each square matrix; LinAlgError if one is singular."""
    x, dt = _input(x, "linalg.inv", square=True)
    return call("linalg.inv", (x,), [(x.shape, dt)], dt=dt)[0]


@host_function("linalg.inv")
def _inv_host(x, *, dt):
    fn = "linalg.inv"
    np = _numpy(x)
    if np is not None:
        try:
            return _np_out(np, np.linalg.inv(_np_in(np, x, dt)), dt, x.device)
        except np.linalg.LinAlgError:
            raise LinAlgError(f"wt.{fn}: the matrix is singular (a zero pivot in its LU "
                              f"factorization); it has no inverse") from None
    n = x.shape[-1]
    eye = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    out = []
    for a in _read(x, dt):
        lu, perm, _sign, singular = _lu(a)
        if singular:
            raise LinAlgError(f"wt.{fn}: the matrix is singular (a zero pivot in its LU "
                              f"factorization); it has no inverse")
        out.append(_lu_solve(lu, perm, eye))
    return _write(out, x.shape, dt, x.device)


def solve(x1, x2, /) -> Tensor:
    """Solve ``x1 @ out = x2`` for square ``x1``.  A 1-D ``x2`` of shape (M,) is one right-hand
    side (the result has shape (..., M)); otherwise ``x2`` is (..., M, K) and the batch
    dimensions broadcast.  LinAlgError if a matrix is singular."""
    fn = "linalg.solve"
    dt0, _weak, _device, (a, b) = promote((x1, x2), fn)
    a = as_tensor(a, fn) if a.__class__ is not Tensor else a
    b = as_tensor(b, fn) if b.__class__ is not Tensor else b
    check_kind(dt0, "biufc", fn)
    dt = float_dtype_for(dt0)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"wt.{fn}: x1 must be a square matrix or a stack of them, got shape "
                         f"{a.shape}")
    m = a.shape[-1]
    vector = b.ndim == 1
    if vector:
        if b.shape[0] != m:
            raise ValueError(f"wt.{fn}: x2 of shape {b.shape} does not match x1 of shape "
                             f"{a.shape}: it needs {m} elements")
        b = b._view((m, 1), (b.strides[0], 0), b.offset)
    elif b.ndim == 0 or b.shape[-2] != m:
        raise ValueError(f"wt.{fn}: x2 of shape {b.shape} does not match x1 of shape "
                         f"{a.shape}: x2 must be (M,) or (..., M, K) with M = {m}")
    try:
        batch = _s.broadcast_shapes(a.shape[:-2], b.shape[:-2], fn=fn)
    except ValueError:
        raise ValueError(f"wt.{fn}: the batch dimensions of x1 {a.shape} and x2 {b.shape} "
                         f"cannot be broadcast together") from None
    k = b.shape[-1]
    a = broadcast_view(a, batch + (m, m))
    b = broadcast_view(b, batch + (m, k))
    out = call("linalg.solve", (a, b), [(batch + (m, k), dt)], dt=dt)[0]
    if vector:
        out = out._view(batch + (m,), out.strides[:-1], out.offset)
    return out


@host_function("linalg.solve")
def _solve_host(a, b, *, dt):
    fn = "linalg.solve"
    np = _numpy(a)
    if np is not None:
        try:
            res = np.linalg.solve(_np_in(np, a, dt), _np_in(np, b, dt))
        except np.linalg.LinAlgError:
            raise LinAlgError(f"wt.{fn}: the matrix is singular (a zero pivot in its LU "
                              f"factorization); no unique solution exists") from None
        return _np_out(np, res, dt, a.device)
    return _write([_solve(p, q, fn) for p, q in zip(_read(a, dt), _read(b, dt))],
                  b.shape, dt, a.device)


def cholesky(x, /, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` (``x = L @ L^H``; ``U = L^H`` when ``upper``), read from the
    lower triangle of ``x``.  LinAlgError if a matrix is not positive definite."""
    x, dt = _input(x, "linalg.cholesky", square=True)
    return call("linalg.cholesky", (x,), [(x.shape, dt)], dt=dt, upper=bool(upper))[0]


@host_function("linalg.cholesky")
def _cholesky_host(x, *, dt, upper):
    fn = "linalg.cholesky"
    np = _numpy(x)
    if np is not None:
        try:
            low = np.linalg.cholesky(_np_in(np, x, dt))
        except np.linalg.LinAlgError:
            raise LinAlgError(f"wt.{fn}: the matrix is not positive definite; Cholesky needs a "
                              f"symmetric/Hermitian positive-definite input") from None
        if upper:
            low = np.conj(np.swapaxes(low, -1, -2))
        return _np_out(np, low, dt, x.device)
    out = []
    for a in _read(x, dt):
        low = _cholesky(a, fn)
        if upper:
            n = len(low)
            low = [[_conj(low[j][i]) for j in range(n)] for i in range(n)]
        out.append(low)
    return _write(out, x.shape, dt, x.device)


def qr(x, /, *, mode: str = "reduced") -> QRResult:
    """QR factorization (Householder, LAPACK's sign conventions): ``x = Q @ R``.
    ``mode='reduced'``: Q (..., M, K), R (..., K, N) with K = min(M, N); ``'complete'``: Q is
    (..., M, M) and R (..., M, N)."""
    fn = "linalg.qr"
    if mode not in ("reduced", "complete"):
        raise ValueError(f"wt.{fn}: mode must be 'reduced' or 'complete', got {mode!r}")
    x, dt = _input(x, fn)
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    k = m if mode == "complete" else min(m, n)
    return QRResult(*call("linalg.qr", (x,), [(batch + (m, k), dt), (batch + (k, n), dt)],
                          dt=dt, mode=mode))


@host_function("linalg.qr")
def _qr_host(x, *, dt, mode):
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    np = _numpy(x)
    if np is not None:
        q, r = np.linalg.qr(_np_in(np, x, dt), mode=mode)
        return _np_out(np, q, dt, x.device), _np_out(np, r, dt, x.device)
    qs, rs = [], []
    for a in _read(x, dt):
        q, r = _qr(a, m, n, mode == "complete")
        qs.append(q)
        rs.append(r)
    k = m if mode == "complete" else min(m, n)
    return (_write(qs, batch + (m, k), dt, x.device),
            _write(rs, batch + (k, n), dt, x.device))


def eigh(x, /) -> EighResult:
    """Eigenvalues (ascending, real dtype) and eigenvectors (columns) of each
    symmetric/Hermitian matrix, read from its lower triangle."""
    x, dt = _input(x, "linalg.eigh", square=True)
    return EighResult(*call("linalg.eigh", (x,), [(x.shape[:-1], _real(dt)), (x.shape, dt)],
                            dt=dt))


@host_function("linalg.eigh")
def _eigh_host(x, *, dt):
    np = _numpy(x)
    if np is not None:
        w, v = np.linalg.eigh(_np_in(np, x, dt))
        return _np_out(np, w, _real(dt), x.device), _np_out(np, v, dt, x.device)
    ws, vs = [], []
    for a in _read(x, dt):
        w, v = _eigh(a, True)
        ws.append(w)
        vs.append(v)
    return (_write(ws, x.shape[:-1], _real(dt), x.device),
            _write(vs, x.shape, dt, x.device))


def eigvalsh(x, /) -> Tensor:
    """Eigenvalues (ascending, real dtype) of each symmetric/Hermitian matrix."""
    x, dt = _input(x, "linalg.eigvalsh", square=True)
    return call("linalg.eigvalsh", (x,), [(x.shape[:-1], _real(dt))], dt=dt)[0]


@host_function("linalg.eigvalsh")
def _eigvalsh_host(x, *, dt):
    np = _numpy(x)
    if np is not None:
        return _np_out(np, np.linalg.eigvalsh(_np_in(np, x, dt)), _real(dt), x.device)
    return _write([_eigh(a, False)[0] for a in _read(x, dt)], x.shape[:-1], _real(dt),
                  x.device)


def svd(x, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U @ diag(S) @ Vh``, S descending (real dtype).
    ``full_matrices``: U (..., M, M), Vh (..., N, N); else (..., M, K), (..., K, N)."""
    x, dt = _input(x, "linalg.svd")
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    ru = m if full_matrices else k
    rv = n if full_matrices else k
    return SVDResult(*call("linalg.svd", (x,), [(batch + (m, ru), dt), (batch + (k,), _real(dt)),
                                                (batch + (rv, n), dt)],
                           dt=dt, full_matrices=bool(full_matrices)))


@host_function("linalg.svd")
def _svd_host(x, *, dt, full_matrices):
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    np = _numpy(x)
    if np is not None:
        u, s, vh = np.linalg.svd(_np_in(np, x, dt), full_matrices=full_matrices)
        return (_np_out(np, u, dt, x.device), _np_out(np, s, _real(dt), x.device),
                _np_out(np, vh, dt, x.device))
    us, ss, vhs = [], [], []
    for a in _read(x, dt):
        u, s, vh = _svd(a, m, n, True, full_matrices)
        us.append(u)
        ss.append(s)
        vhs.append(vh)
    ru = m if full_matrices else k
    rv = n if full_matrices else k
    return (_write(us, batch + (m, ru), dt, x.device),
            _write(ss, batch + (k,), _real(dt), x.device),
            _write(vhs, batch + (rv, n), dt, x.device))


def svdvals(x, /) -> Tensor:
    """Singular values of each matrix, descending, in the real dtype."""
    x, dt = _input(x, "linalg.svdvals")
    m, n = x.shape[-2:]
    return call("linalg.svdvals", (x,), [(x.shape[:-2] + (min(m, n),), _real(dt))], dt=dt)[0]


@host_function("linalg.svdvals")
def _svdvals_host(x, *, dt):
    m, n = x.shape[-2:]
    np = _numpy(x)
    if np is not None:
        return _np_out(np, np.linalg.svd(_np_in(np, x, dt), compute_uv=False), _real(dt),
                       x.device)
    return _write([_svd(a, m, n, False, False)[1] for a in _read(x, dt)],
                  x.shape[:-2] + (min(m, n),), _real(dt), x.device)


# -- compositions ----------------------------------------------------------------------------------

def _cutoff(s: Tensor, rtol, m: int, n: int, fn: str) -> Tensor:
    """``rtol * max(s)`` per matrix, shaped (..., 1) to compare against ``s``."""
    from .api import _reduce
    from .api.elementwise import multiply

    smax = _reduce.reduce("max", s, (s.ndim - 1,), True)
    if rtol is None:
        rtol = max(m, n) * _d.finfo(s.dtype).eps
    if isinstance(rtol, Tensor):
        rtol = rtol._view(rtol.shape + (1,), rtol.strides + (0,), rtol.offset)
    return multiply(smax, rtol)


def matrix_rank(x, /, *, rtol=None) -> Tensor:
    """The number of singular values above ``rtol * max(S)`` (default ``rtol``: max(M, N) times
    the dtype's eps), as the default integer dtype."""
    fn = "linalg.matrix_rank"
    x, dt = _input(x, fn)
    m, n = x.shape[-2:]
    from .api import _reduce
    from .api.elementwise import greater

    int_dt = _reduce.default_int()
    if min(m, n) == 0:
        from .api.creation import zeros

        return zeros(x.shape[:-2], dtype=int_dt, device=x.device)
    s = svdvals(x)
    big = greater(s, _cutoff(s, rtol, m, n, fn))
    return _reduce.reduce("sum", big, (big.ndim - 1,), False, dtype=int_dt)


def pinv(x, /, *, rtol=None) -> Tensor:
    """Moore-Penrose pseudo-inverse from the SVD; singular values at or below
    ``rtol * max(S)`` count as zero (default ``rtol``: max(M, N) times the dtype's eps)."""
    fn = "linalg.pinv"
    x, dt = _input(x, fn)
    m, n = x.shape[-2:]
    if min(m, n) == 0:
        from .api.creation import zeros

        return zeros(x.shape[:-2] + (n, m), dtype=dt, device=x.device)
    from .api.elementwise import conj, divide, greater, multiply, where

    u, s, vh = svd(cast(x, dt), full_matrices=False)
    keep = greater(s, _cutoff(s, rtol, m, n, fn))
    s_inv = cast(where(keep, divide(1, where(keep, s, 1)), 0), dt)
    v = matrix_transpose(vh)
    uh = matrix_transpose(u)
    if dt.kind == "c":
        v, uh = conj(v), conj(uh)
    scaled = multiply(v, s_inv._view(s_inv.shape[:-1] + (1, s_inv.shape[-1]),
                                     s_inv.strides[:-1] + (0, s_inv.strides[-1]),
                                     s_inv.offset))
    return matmul(scaled, uh)


def matrix_power(x, n, /) -> Tensor:
    """``x`` multiplied by itself ``n`` times (identity for 0, powers of the inverse for n < 0)."""
    fn = "linalg.matrix_power"
    x = as_tensor(x, fn)
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"wt.{fn}: n must be an int, got {n!r}")
    n = n.__index__()
    check_kind(x.dtype, "biufc", fn)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"wt.{fn}: expects square matrices in the last two dimensions, got "
                         f"shape {x.shape}")
    if n == 0:
        from .api.creation import eye

        ident = eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return contiguous(broadcast_view(ident, x.shape))
    if n < 0:
        x = inv(x)
        n = -n
    result = None
    base = x
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    if result is x:
        result = empty(x.shape, x.dtype, x.device, weak=x.weak)
        x._backend.copy(result, x)
    return result


# -- norms -----------------------------------------------------------------------------------------

def _abs_for_norm(x: Tensor, fn: str):
    """(|x| in the working float dtype, the result dtype)."""
    from .api.elementwise import abs as _abs

    check_kind(x.dtype, "biufc", fn)
    dt = float_dtype_for(x.dtype)
    out_dt = _real(dt)
    work = out_dt if out_dt.itemsize >= 4 else _d.float32
    a = _abs(cast(x, dt, weak=False))
    return cast(a, work, weak=False), out_dt


def _ord_value(ord, fn: str):
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"wt.{fn}: ord must be a number (or inf/-inf), got {ord!r}")
    return ord


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2) -> Tensor:
    """The ``ord``-norm of vectors along ``axis`` (None: all elements as one vector; a tuple:
    those axes together).  ``ord``: inf (max |x|), -inf (min |x|), 0 (count of nonzeros),
    any other p: ``sum(|x|**p) ** (1/p)``.  Result: the real floating dtype of ``x``
    (float16/bfloat16 accumulate in float32)."""
    fn = "linalg.vector_norm"
    from .api import _reduce
    from .api.elementwise import multiply, not_equal, sqrt
    from .api.elementwise import pow as _pow

    x = as_tensor(x, fn)
    ord = _ord_value(ord, fn)
    axes = axes_tuple(x, axis, fn)
    a, out_dt = _abs_for_norm(x, fn)
    if x.ndim == 0:
        a = a._view((1,), (0,), a.offset)
        axes = (0,)
    n = _s.size_of(tuple(a.shape[i] for i in axes))
    if ord in (math.inf, -math.inf):
        if n == 0:
            raise ValueError(f"wt.{fn}: the {'max' if ord > 0 else 'min'} norm of an empty "
                             f"vector is undefined (shape {x.shape}, axis {axis})")
        r = _reduce.reduce("max" if ord > 0 else "min", a, axes, keepdims)
    elif ord == 0:
        r = _reduce.reduce("sum", cast(not_equal(a, 0), a.dtype), axes, keepdims)
    elif ord == 1:
        r = _reduce.reduce("sum", a, axes, keepdims)
    elif ord == 2:
        r = sqrt(_reduce.reduce("sum", multiply(a, a), axes, keepdims))
    else:
        p = float(ord)
        r = _pow(_reduce.reduce("sum", _pow(a, p), axes, keepdims), 1.0 / p)
    if x.ndim == 0:
        r = r._view((), (), r.offset)
    return cast(r, out_dt, weak=False)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro") -> Tensor:
    """The ``ord``-norm of each matrix (last two axes): 'fro', 'nuc' (sum of singular values),
    1 / -1 (max / min column sum of |x|), inf / -inf (max / min row sum), 2 / -2 (largest /
    smallest singular value).  Result: the real floating dtype of ``x``."""
    fn = "linalg.matrix_norm"
    from .api import _reduce
    from .api.elementwise import multiply, sqrt

    x, _dt = _input(x, fn)
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise ValueError(f"wt.{fn}: invalid ord {ord!r}; use 'fro', 'nuc', 1, -1, 2, -2, "
                             f"inf or -inf")
    else:
        ord = _ord_value(ord, fn)
        if ord not in (1, -1, 2, -2, math.inf, -math.inf):
            raise ValueError(f"wt.{fn}: invalid ord {ord!r}; use 'fro', 'nuc', 1, -1, 2, -2, "
                             f"inf or -inf")
    m, n = x.shape[-2:]
    rows, cols = x.ndim - 2, x.ndim - 1
    a, out_dt = _abs_for_norm(x, fn)
    if ord == "fro":
        r = sqrt(_reduce.reduce("sum", multiply(a, a), (rows, cols), False))
    elif ord in ("nuc", 2, -2):
        if min(m, n) == 0:
            if ord != "nuc":
                raise ValueError(f"wt.{fn}: the {ord}-norm of an empty matrix (shape "
                                 f"{x.shape}) is undefined")
            from .api.creation import zeros

            r = zeros(x.shape[:-2], dtype=a.dtype, device=x.device)
        else:
            s = cast(svdvals(x), a.dtype)
            op = "sum" if ord == "nuc" else ("max" if ord == 2 else "min")
            r = _reduce.reduce(op, s, (s.ndim - 1,), False)
    else:
        along = rows if ord in (1, -1) else cols
        other = n if ord in (1, -1) else m
        if other == 0:
            raise ValueError(f"wt.{fn}: the {ord}-norm of a matrix with shape {x.shape} is "
                             f"undefined (no {'columns' if along == rows else 'rows'})")
        sums = _reduce.reduce("sum", a, (along,), False)
        r = _reduce.reduce("max" if ord > 0 else "min", sums, (sums.ndim - 1,), False)
    if keepdims:
        r = r._view(r.shape + (1, 1), r.strides + (0, 0), r.offset)
        r = contiguous(r)
    return cast(r, out_dt, weak=False)

