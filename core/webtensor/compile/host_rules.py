"""Derivative rules of the host functions (``api/_host.py``), one per function, as data.

``HOST_RULES[name] = HostRule(jvp, vjp)``:

* ``jvp(ins, outs, tans, **params) -> out tangents``: the forward rule, a map linear in the
  tangents ``tans`` (None: zero; integer inputs never get one), written with ``wt`` calls.
  Work on the primal values (an inverse, a decomposition) may call host functions; the
  tangents themselves only meet matmuls and elementwise ops, except in ``linalg.solve`` and
  the transforms.
* ``vjp(ins, outs, cts, **params) -> in cotangents``, or None: reverse mode then transposes the
  forward rule (``host.transpose_jvp``: reverse mode through the linear map).  One formula per
  function keeps both modes consistent, and the complex convention comes out as JAX's (the
  transpose under the bilinear pairing ``Re(sum(u * v))``) because the elementwise rules follow
  it.  The functions whose forward rule applies themselves to the tangent (``solve``, the FFTs:
  transposing them by reverse mode would recurse forever) give their transpose explicitly.

Conventions (checked against JAX and finite differences in ``tests/test_grad_linalg_fft.py``):
``cholesky``, ``eigh`` and ``eigvalsh`` read the lower triangle and the real part of the
diagonal, so their derivatives are those of that function (``_hermitian_from_lower``): zero for
the strict upper triangle.  Eigenvector and singular-vector derivatives need distinct
eigen/singular values (they are infinite or NaN otherwise, as in JAX).  Complex eigen/singular
vectors are unique only up to a phase each: the rules pick ``diag(V^H dV) = 0`` for ``eigh``
and JAX's choice for ``svd`` (the phase turns U's columns); functions invariant under those
phases have unique derivatives.  ``det`` and ``slogdet`` need an invertible matrix.  ``qr`` is
differentiable for ``mode='reduced'`` (any shape) and ``mode='complete'`` with M <= N; ``svd``
for ``full_matrices=False`` or square inputs: elsewhere the extra columns are not unique and
differentiating raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .. import dtypes as _d
from .. import linalg as _linalg
from ..api import creation as _c
from ..api import elementwise as ew
from ..api import manipulation as _m
from ..api import statistical as _st
from ..api._host import call
from ..tensor import cast
from .rules import NoDerivativeError


class HostRule(NamedTuple):
    jvp: Callable
    vjp: Callable | None = None


# -- matrix helpers ----------------------------------------------------------------------------

def _mT(x):
    return _linalg.matrix_transpose(x)


def _H(x):
    """The conjugate transpose of each matrix."""
    return ew.conj(_mT(x)) if x.dtype.kind == "c" else _mT(x)


def _mm(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = _linalg.matmul(out, x)
    return out


def _diag(x):
    return _linalg.diagonal(x)


def _diag_embed(d):
    """Matrices with ``d`` (..., n) on the diagonal."""
    n = d.shape[-1]
    return ew.multiply(_m.expand_dims(d, axis=-2), _c.eye(n, dtype=d.dtype, device=d.device))


def _real(x):
    return ew.real(x) if x.dtype.kind == "c" else x


def _as(x, like):
    return cast(x, like.dtype, weak=False)


def _row(v):
    """(..., n) -> (..., 1, n): one value per column."""
    return _m.expand_dims(v, axis=-2)


def _col(v):
    """(..., n) -> (..., n, 1): one value per row."""
    return _m.expand_dims(v, axis=-1)


def _off_diagonal_inverse(d):
    """``1 / d`` off the diagonal and 0 on it, for matrices ``d`` that vanish on the diagonal
    (differences of eigen/singular values): the diagonal never divides by zero."""
    eye = _c.eye(d.shape[-1], dtype=d.dtype, device=d.device)
    return ew.subtract(ew.reciprocal(ew.add(d, eye)), eye)


def _hermitian_from_lower(t):
    """The Hermitian matrix a routine reading only the lower triangle and the real part of the
    diagonal sees in ``t``: ``tril(t, -1) + tril(t, -1)^H + diag(re(diag(t)))``."""
    low = _c.tril(t, k=-1)
    return ew.add(ew.add(low, _H(low)), _diag_embed(_as(_real(_diag(t)), t)))


def _add(a, b):
    if a is None:
        return b
    return a if b is None else ew.add(a, b)


# -- inverses, solves, determinants --------------------------------------------------------------

def _inv_jvp(ins, outs, tans, *, dt):
    (y,), (da,) = outs, tans
    return [ew.negative(_mm(y, da, y))]


def _solve_jvp(ins, outs, tans, *, dt):
    (a, _b), (x,), (da, db) = ins, outs, tans
    rhs = _add(db, None if da is None else ew.negative(_mm(da, x)))
    return [_linalg.solve(a, rhs)]


def _solve_vjp(ins, outs, cts, *, dt):
    # x = a^-1 b:  b's cotangent solves with a's transpose; a's is minus that times x^T
    (a, _b), (x,), (g,) = ins, outs, cts
    gb = _linalg.solve(_mT(a), g)
    return [ew.negative(_mm(gb, _mT(x))), gb]


def _log_det_jvp(a, da):
    """d log det(a) = tr(a^-1 da) = sum(a^-T * da)."""
    return _st.sum(ew.multiply(_mT(_linalg.inv(a)), da), axis=(-2, -1))


def _det_jvp(ins, outs, tans, *, dt):
    (a,), (d,), (da,) = ins, outs, tans
    return [ew.multiply(d, _log_det_jvp(a, da))]


def _slogdet_jvp(ins, outs, tans, *, dt):
    (a,), (sign, _log), (da,) = ins, outs, tans
    tr = _log_det_jvp(a, da)
    if tr.dtype.kind != "c":
        return [None, tr]
    # log|det| moves with the real part; the unit sign turns with the imaginary part
    return [ew.multiply(ew.subtract(tr, _as(ew.real(tr), tr)), sign), ew.real(tr)]


# -- factorizations ------------------------------------------------------------------------------

def _cholesky_jvp(ins, outs, tans, *, dt, upper):
    (da,) = tans
    low = _H(outs[0]) if upper else outs[0]
    li = _linalg.inv(low)
    x = _mm(li, _hermitian_from_lower(da), _H(li))
    # dL = L phi(L^-1 dA L^-H), phi: the lower triangle with the diagonal halved
    phi = ew.subtract(_c.tril(x), ew.multiply(_diag_embed(_diag(x)), 0.5))
    dl = _mm(low, phi)
    return [_H(dl) if upper else dl]


def _qr_tall(q, r, da):
    """Tangents of Q (M, K), R (K, K) of a reduced QR with M >= K (= N)."""
    d = _mm(da, _linalg.inv(r))
    c = _mm(_H(q), d)
    low = _c.tril(c, k=-1)
    # Q^H dQ is skew-Hermitian: its strict lower triangle is c's; its diagonal is imaginary
    # (R's diagonal stays real)
    omega = ew.subtract(low, _H(low))
    if c.dtype.kind == "c":
        cd = _diag(c)
        omega = ew.add(omega, _diag_embed(ew.subtract(cd, _as(ew.real(cd), cd))))
    dq = ew.add(_mm(q, ew.subtract(omega, c)), d)
    dr = _mm(ew.subtract(c, omega), r)
    return dq, dr


def _qr_jvp(ins, outs, tans, *, dt, mode):
    (a,), (q, r), (da,) = ins, outs, tans
    m, n = a.shape[-2:]
    if mode == "complete" and m > n:
        raise NoDerivativeError(
            f"wt.grad: no derivative rule for wt.linalg.qr with mode='complete' and more rows "
            f"than columns (shape {a.shape}): the last {m - n} columns of Q are not unique; "
            f"use mode='reduced'")
    if m <= n:
        # a = [a1 | a2] with a1 square: q, r1 = qr(a1) and r2 = q^H a2
        dq, dr1 = _qr_tall(q, r[..., :m], da[..., :m])
        if m == n:
            return [dq, dr1]
        dr2 = ew.add(_mm(_H(dq), a[..., m:]), _mm(_H(q), da[..., m:]))
        return [dq, _m.concat([dr1, dr2], axis=-1)]
    return list(_qr_tall(q, r, da))


def _eigh_jvp(ins, outs, tans, *, dt):
    (w, v), (da,) = outs, tans
    p = _mm(_H(v), _hermitian_from_lower(da), v)
    wc = _as(w, v)
    f = _off_diagonal_inverse(ew.subtract(_row(wc), _col(wc)))  # 1 / (w_j - w_i)
    return [_real(_diag(p)), _mm(v, ew.multiply(f, p))]


def _eigvalsh_jvp(ins, outs, tans, *, dt):
    (a,), (da,) = ins, tans
    _w, v = _linalg.eigh(a)
    # d w_i = v_i^H dA v_i
    dav = _mm(_hermitian_from_lower(da), v)
    prod = ew.multiply(ew.conj(v) if v.dtype.kind == "c" else v, dav)
    return [_real(_st.sum(prod, axis=-2))]


def _svd_jvp(ins, outs, tans, *, dt, full_matrices):
    (a,), (u, s, vh), (da,) = ins, outs, tans
    m, n = a.shape[-2:]
    if full_matrices and m != n:
        raise NoDerivativeError(
            f"wt.grad: no derivative rule for wt.linalg.svd with full_matrices=True on a "
            f"non-square input (shape {a.shape}): the extra singular vectors are not unique; "
            f"use full_matrices=False")
    v = _H(vh)
    p = _mm(_H(u), da, v)  # (K, K)
    ds = _real(_diag(p))
    sc = _as(s, a)
    s2 = ew.square(s)
    f = _as(_off_diagonal_inverse(ew.subtract(_row(s2), _col(s2))), a)  # 1 / (s_j^2 - s_i^2)
    ps = ew.multiply(p, _row(sc))  # P S
    sp = ew.multiply(_col(sc), p)  # S P
    du = _mm(u, ew.multiply(f, ew.add(ps, _H(ps))))
    dv = _mm(v, ew.multiply(f, ew.add(sp, _H(sp))))
    if a.dtype.kind == "c":
        # the imaginary part of P's diagonal turns the phases of U's columns
        inv_s = _safe_reciprocal(s)
        du = ew.add(du, _mm(u, _diag_embed(ew.multiply(ew.subtract(_diag(p), _as(ds, p)),
                                                       _as(inv_s, p)))))
    if m > n:  # the part of dA V outside U's columns
        dav = _mm(da, v)
        du = ew.add(du, ew.divide(ew.subtract(dav, _mm(u, _H(u), dav)), _row(sc)))
    elif n > m:
        dau = _mm(_H(da), u)
        dv = ew.add(dv, ew.divide(ew.subtract(dau, _mm(v, vh, dau)), _row(sc)))
    return [du, ds, _H(dv)]


def _safe_reciprocal(s):
    """1 / s, and 0 where s is 0."""
    zero = ew.equal(s, 0)
    return ew.where(zero, _c.zeros_like(s), ew.reciprocal(ew.where(zero, _c.ones_like(s), s)))


def _svdvals_jvp(ins, outs, tans, *, dt):
    (a,), (da,) = ins, tans
    u, _s, vh = _linalg.svd(a, full_matrices=False)
    # d s_i = re(u_i^H dA v_i)
    dav = _mm(da, _H(vh))
    prod = ew.multiply(ew.conj(u) if u.dtype.kind == "c" else u, dav)
    return [_real(_st.sum(prod, axis=-2))]


# -- transforms ----------------------------------------------------------------------------------

_COMPLEX_OF = {_d.float64: _d.complex128}  # every other real dtype transforms in complex64


def _transform(kind, x, *, axis, n, norm, inverse):
    """The host transform ``fft.<kind>`` of ``x`` (its dtype fixes the result's)."""
    if kind == "c2c":
        out_dt = x.dtype
    elif kind == "r2c":
        out_dt = _COMPLEX_OF.get(x.dtype, _d.complex64)
    else:
        out_dt = x.dtype.real_dtype
    length = n // 2 + 1 if kind == "r2c" else n
    shape = x.shape[:axis] + (length,) + x.shape[axis + 1:]
    return call(f"fft.{kind}", (x,), [(shape, out_dt)], axis=axis, n=n, norm=norm,
                inverse=inverse, out_dt=out_dt)[0]


def _resize(t, axis: int, length: int):
    """``t`` cut or zero-padded to ``length`` along ``axis`` (what a transform's ``n`` does to
    its input, and the transpose of that)."""
    have = t.shape[axis]
    if have == length:
        return t
    if have > length:
        index = [slice(None)] * t.ndim
        index[axis] = slice(0, length)
        return t[tuple(index)]
    shape = list(t.shape)
    shape[axis] = length - have
    return _m.concat([t, _c.zeros(tuple(shape), dtype=t.dtype, device=t.device)], axis=axis)


def _transform_jvp(kind):
    def jvp(ins, outs, tans, *, axis, n, norm, inverse, out_dt):
        return [_transform(kind, tans[0], axis=axis, n=n, norm=norm, inverse=inverse)]
    return jvp


def _c2c_vjp(ins, outs, cts, *, axis, n, norm, inverse, out_dt):
    # the DFT matrix is symmetric: the transpose is the same transform, cut back to the input
    g = _transform("c2c", cts[0], axis=axis, n=n, norm=norm, inverse=inverse)
    return [_resize(g, axis, ins[0].shape[axis])]


def _r2c_vjp(ins, outs, cts, *, axis, n, norm, inverse, out_dt):
    # y = (s F x)[:n//2+1] for real x: x's cotangent is re(s F g) with g padded to n points
    g = _transform("c2c", _resize(cts[0], axis, n), axis=axis, n=n, norm=norm, inverse=False)
    return [_resize(ew.real(g), axis, ins[0].shape[axis])]


def _c2r_vjp(ins, outs, cts, *, axis, n, norm, inverse, out_dt):
    # y_j = s sum_k c_k re(x_k w^jk), c_k = 2 for the bins that stand for two (k and n - k),
    # 1 for k = 0 and the Nyquist bin: x_k's cotangent is s c_k conj(rfft(g))_k, the r2c
    # transform scaling by the inverse's factor (norm swapped)
    swapped = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    g = _transform("r2c", cts[0], axis=axis, n=n, norm=swapped, inverse=False)
    half = n // 2 + 1
    weights = [1.0] + [2.0] * (n - half) + [1.0] * (2 * half - n - 1)
    shape = [1] * g.ndim
    shape[axis] = half
    w = _m.reshape(_c.asarray(weights, dtype=g.dtype.real_dtype, device=g.device), tuple(shape))
    return [_resize(ew.multiply(ew.conj(g), w), axis, ins[0].shape[axis])]


HOST_RULES = {
    "linalg.inv": HostRule(_inv_jvp),
    "linalg.solve": HostRule(_solve_jvp, _solve_vjp),
    "linalg.det": HostRule(_det_jvp),
    "linalg.slogdet": HostRule(_slogdet_jvp),
    "linalg.cholesky": HostRule(_cholesky_jvp),
    "linalg.qr": HostRule(_qr_jvp),
    "linalg.eigh": HostRule(_eigh_jvp),
    "linalg.eigvalsh": HostRule(_eigvalsh_jvp),
    "linalg.svd": HostRule(_svd_jvp),
    "linalg.svdvals": HostRule(_svdvals_jvp),
    "fft.c2c": HostRule(_transform_jvp("c2c"), _c2c_vjp),
    "fft.r2c": HostRule(_transform_jvp("r2c"), _r2c_vjp),
    "fft.c2r": HostRule(_transform_jvp("c2r"), _c2r_vjp),
}
