"""Derivative rules, one per (primitive, op), written with ``wt`` functions.

* Elementwise ops: ``PARTIALS[op](inputs, output)`` gives the partial derivative of the output
  with respect to each input (None: zero).  Reverse mode multiplies the cotangent by it, forward
  mode the tangent; the view transposes in ``ad.py`` undo broadcasting.
* ``LINEAR``: ops that are real-linear but not complex multiplications (``conj``): the map
  itself carries tangents and cotangents.
* ``NONDIFF``: ops whose derivative is zero wherever it exists (floor, sign, comparisons...):
  they pass no gradient, as in JAX.  A float op in none of these tables has no rule:
  differentiating through it raises, naming it (never a silent zero); a test keeps the tables
  complete.
* Complex numbers follow JAX's convention: a cotangent is the transpose under the bilinear
  pairing ``Re(sum(u * v))`` (no conjugation), so a holomorphic op multiplies by its complex
  derivative in both modes, and ``wt.grad`` of a real function of ``z = x + iy`` is
  ``df/dx - i df/dy``.  A real-valued op of a complex input (``abs``, ``imag``, ``phase``)
  gives the partial ``c = df/dx - i df/dy``: reverse mode multiplies by it, forward mode keeps
  the real part of ``c * t`` (the cast to the real result).
* ``VJP[prim]``: the other primitives (reductions, scans, matmul, gather/scatter, sort, cast,
  copies) and the control-flow nodes.  Each returns ``(view, cotangent)`` pairs for the views
  its node read.
"""

from __future__ import annotations

import math

from .. import dtypes as _d
from .. import shape as _s
from ..api import creation as _c
from ..api import elementwise as ew
from ..api import manipulation as _m
from ..api import statistical as _st
from ..api._reduce import index_operand
from ..backends.base import WINDOW_SELECT, window_positions, window_shape, window_view
from ..tensor import Tensor, cast, empty
from .ir import View
from .trace import READ_MODIFY_WRITE

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _half(x):
    return ew.multiply(x, 0.5)


# -- elementwise partial derivatives --------------------------------------------------------------

def _unary(fn):
    return lambda ins, y: (fn(ins[0], y),)


PARTIALS = {
    # complex: conj(x) / |x| (0 at 0), written with y so that it has a derivative itself
    "abs": _unary(lambda x, y: ew.divide(ew.conj(x), ew.where(ew.equal(y, 0), _c.ones_like(y),
                                                              y))
                  if _is_complex(x) else ew.sign(x)),
    "acos": _unary(lambda x, y: ew.negative(ew.reciprocal(ew.sqrt(1 - ew.square(x))))),
    # sqrt(x - 1) * sqrt(x + 1), not sqrt(x**2 - 1): the two differ in sign off the real line
    "acosh": _unary(lambda x, y: ew.reciprocal(ew.sqrt(x - 1) * ew.sqrt(x + 1))),
    "asin": _unary(lambda x, y: ew.reciprocal(ew.sqrt(1 - ew.square(x)))),
    "asinh": _unary(lambda x, y: ew.reciprocal(ew.sqrt(ew.square(x) + 1))),
    "atan": _unary(lambda x, y: ew.reciprocal(ew.square(x) + 1)),
    "atanh": _unary(lambda x, y: ew.reciprocal(1 - ew.square(x))),
    "cos": _unary(lambda x, y: ew.negative(ew.sin(x))),
    "cosh": _unary(lambda x, y: ew.sinh(x)),
    "exp": _unary(lambda x, y: y),
    "expm1": _unary(lambda x, y: y + 1),
    "log": _unary(lambda x, y: ew.reciprocal(x)),
    "log1p": _unary(lambda x, y: ew.reciprocal(x + 1)),
    "log2": _unary(lambda x, y: ew.reciprocal(x * _LN2)),
    "log10": _unary(lambda x, y: ew.reciprocal(x * _LN10)),
    "sin": _unary(lambda x, y: ew.cos(x)),
    "sinh": _unary(lambda x, y: ew.cosh(x)),
    "sqrt": _unary(lambda x, y: _half(ew.reciprocal(y))),
    "tan": _unary(lambda x, y: ew.square(y) + 1),
    "tanh": _unary(lambda x, y: 1 - ew.square(y)),
    "reciprocal": _unary(lambda x, y: ew.negative(ew.square(y))),
    "negative": _unary(lambda x, y: _c.full_like(x, -1)),
    "positive": _unary(lambda x, y: _c.ones_like(x)),
    "square": _unary(lambda x, y: x * 2),
    "real": _unary(lambda x, y: _c.ones_like(y)),
    "imag": _unary(lambda x, y: _c.full_like(x, -1j) if _is_complex(x) else None),
    # atan2(imag, real): -i conj(x) / |x|**2; constant (0 or pi) on the real line
    "phase": _unary(lambda x, y: ew.divide(ew.multiply(ew.conj(x), -1j), ew.square(ew.abs(x)))
                    if _is_complex(x) else None),
    # Nx's complex(re, im) = re + i im
    "complex": lambda ins, y: (_c.ones_like(y), _c.full_like(y, 1j)),
    "add": lambda ins, y: (_c.ones_like(y), _c.ones_like(y)),
    "subtract": lambda ins, y: (_c.ones_like(y), _c.full_like(y, -1)),
    "multiply": lambda ins, y: (ins[1], ins[0]),
    "divide": lambda ins, y: (ew.reciprocal(ins[1]), ew.negative(ew.divide(y, ins[1]))),
    "remainder": lambda ins, y: (_c.ones_like(y), ew.negative(ew.floor_divide(ins[0], ins[1]))),
    "pow": lambda ins, y: _pow_partials(*ins, y),
    # ties split the gradient equally between both sides (JAX's convention)
    "maximum": lambda ins, y: _select_partials(ew.greater(ins[0], ins[1]),
                                               ew.equal(ins[0], ins[1]), y),
    "minimum": lambda ins, y: _select_partials(ew.less(ins[0], ins[1]),
                                               ew.equal(ins[0], ins[1]), y),
    # fmax/fmin: like maximum/minimum, and a NaN operand passes the gradient to the other
    "fmax": lambda ins, y: _select_partials(
        ew.logical_or(ew.greater(ins[0], ins[1]), ew.isnan(ins[1])), ew.equal(ins[0], ins[1]),
        y),
    "fmin": lambda ins, y: _select_partials(
        ew.logical_or(ew.less(ins[0], ins[1]), ew.isnan(ins[1])), ew.equal(ins[0], ins[1]), y),
    "atan2": lambda ins, y: _atan2_partials(*ins),
    "hypot": lambda ins, y: (ew.divide(ins[0], y), ew.divide(ins[1], y)),
    "copysign": lambda ins, y: (ew.where(ew.equal(ew.signbit(ins[0]), ew.signbit(ins[1])),
                                         _c.ones_like(y), _c.full_like(y, -1)), None),
    "logaddexp": lambda ins, y: (ew.exp(ins[0] - y), ew.exp(ins[1] - y)),
}


def _is_complex(x) -> bool:
    return x.dtype.kind == "c"


# Real-linear maps that are no complex multiplication: tangents and cotangents go through the
# map itself (conj's transpose under the bilinear pairing is conj).
LINEAR = {"conj": ew.conj}


def _pow_partials(a, b, y):
    zero = ew.equal(a, 0)
    da = ew.where(ew.equal(b, 0), _c.zeros_like(y), b * ew.pow(a, b - 1))
    # d/db a**b = a**b log a; at a == 0 JAX takes 0 (the limit from the right for b > 0)
    safe = ew.where(zero, _c.ones_like(a), a)
    db = ew.where(zero, _c.zeros_like(y), y * ew.log(safe))
    return da, db


def _select_partials(wins, tie, y):
    one, half, zero = _c.ones_like(y), _c.full_like(y, 0.5), _c.zeros_like(y)
    first = ew.where(wins, one, ew.where(tie, half, zero))
    return first, ew.subtract(one, first)


def _atan2_partials(a, b):
    d = ew.square(a) + ew.square(b)
    return ew.divide(b, d), ew.negative(ew.divide(a, d))


# Derivative zero wherever it exists, or outputs that are not real numbers.
NONDIFF = frozenset({
    "sign", "ceil", "floor", "trunc", "round", "floor_divide", "nextafter",
    "isfinite", "isinf", "isnan", "signbit", "logical_not", "logical_and", "logical_or",
    "logical_xor", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "bitwise_invert", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "gcd", "lcm",
})
NONDIFF_PRIMS = frozenset({"arg_reduce", "argsort", "random_bits", "fill", "iota"})

# Nx's functions (webtensor.nx); the bit counts are integer-only.
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
PARTIALS.update({
    "cbrt": _unary(lambda x, y: ew.reciprocal(ew.square(y) * 3)),
    "erf": _unary(lambda x, y: ew.exp(ew.negative(ew.square(x))) * _TWO_OVER_SQRT_PI),
    "erfc": _unary(lambda x, y: ew.exp(ew.negative(ew.square(x))) * -_TWO_OVER_SQRT_PI),
    "erf_inv": _unary(lambda x, y: ew.exp(ew.square(y)) * (math.sqrt(math.pi) / 2)),
    "rsqrt": _unary(lambda x, y: ew.multiply(ew.multiply(y, ew.square(y)), -0.5)),
    "sigmoid": _unary(lambda x, y: ew.multiply(y, 1 - y)),
})
NONDIFF = NONDIFF | {"count_leading_zeros", "population_count"}


class NoDerivativeError(NotImplementedError):
    """Differentiating through an op that has no derivative rule yet."""


def _no_rule(what: str):
    raise NoDerivativeError(
        f"wt.grad: no derivative rule for {what}; it is not differentiable in webtensor yet. "
        f"Wrap its input in wt.stop_gradient if no gradient needs to flow through it")


# -- the reverse-mode driver for one node -------------------------------------------------------

def _written(node, rp) -> Tensor:
    """The node's output as the primitive wrote it (the written view of its result)."""
    from .ad import view_of

    return view_of(rp.value(node.results[0]), node.written)


def apply_vjp(node, rp, gs) -> list:
    """(view, cotangent) pairs for what ``node`` read, from the cotangents of its results."""
    from .ad import split_partial_write

    if node.prim in CONTROL_VJP:
        return CONTROL_VJP[node.prim](node, rp, gs)
    if node.params.get("stop_gradient") or node.prim in NONDIFF_PRIMS:
        return []
    g = gs[0]
    pairs = []
    if node.prim in READ_MODIFY_WRITE:
        g_out = g
    else:
        base_ct, g_out = split_partial_write(node, rp, g)
        if base_ct is not None:
            base = node.base
            pairs.append((View(base, base.shape, _contiguous_strides(base.shape), 0),
                          _m.reshape(base_ct, base.shape)))
    rule = VJP.get(node.prim)
    if rule is None:
        _no_rule(f"the primitive {node.prim!r}")
    return pairs + rule(node, rp, g_out)


def _contiguous_strides(shape):
    from .. import shape as _s

    return _s.contiguous_strides(shape)


def _reads(node) -> list[View]:
    return list(node.reads())


def _elementwise_vjp(node, rp, g):
    op = node.op
    views = _reads(node)
    if op in NONDIFF or node.results[0].dtype.kind not in "fc":
        return []
    if op in LINEAR:
        return [(views[0], LINEAR[op](g))]
    partials = PARTIALS.get(op)
    if partials is None:
        _no_rule(f"wt.{op}")
    ins = [rp.tensor(v) for v in views]
    y = _written(node, rp)
    out = []
    for view, d in zip(views, partials(ins, y)):
        if d is not None and view.dtype.kind in "fc":
            out.append((view, ew.multiply(g, d)))
    return out


def _where_vjp(node, rp, g):
    cond, a, b = _reads(node)
    c = rp.tensor(cond)
    zero = _c.zeros_like(g)
    return [(a, ew.where(c, g, zero)), (b, ew.where(c, zero, g))]


def _cast_vjp(node, rp, g):
    (x,) = _reads(node)
    return [(x, g)] if x.dtype.kind in "fc" else []


def _copy_vjp(node, rp, g):
    return [(_reads(node)[0], g)]


def _assign_vjp(node, rp, g):
    return [(_reads(node)[0], g)]


def _expand(g: Tensor, shape, axes) -> Tensor:
    """``g`` (reduced over ``axes``) broadcast back to ``shape``."""
    kept = list(shape)
    for a in axes:
        kept[a] = 1
    return _m.broadcast_to(_m.reshape(g, tuple(kept)), tuple(shape))


def _reduce_vjp(node, rp, g):
    op, _out, xview, axes = node.args
    if op in ("any", "all") or xview.dtype.kind not in "fc":
        return []
    x = rp.tensor(xview)
    y = _written(node, rp)
    if op == "sum":
        return [(xview, _expand(g, x.shape, axes))]
    if op == "prod":
        return [(xview, _expand(g, x.shape, axes) * _prod_others(x, axes))]
    # max/min: every element equal to the extreme shares the gradient equally
    hit = ew.equal(x, _expand(y, x.shape, axes))
    count = _st.sum(cast(hit, g.dtype), axis=tuple(axes), keepdims=False)
    share = ew.divide(g, count)
    return [(xview, ew.where(hit, _expand(share, x.shape, axes), _c.zeros_like(x)))]


def _prod_others(x: Tensor, axes) -> Tensor:
    """For each element, the product of the other elements of its reduction group (exact at
    zeros: exclusive products from both sides, not y / x)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    order = kept + list(axes)
    moved = _m.permute_dims(x, tuple(order))
    lead = tuple(moved.shape[:len(kept)])
    n = 1
    for a in axes:
        n *= x.shape[a]
    rows = _m.reshape(moved, lead + (n,))
    ones = _c.ones(lead + (1,), dtype=x.dtype, device=x.device)
    left = _st.cumulative_prod(_m.concat([ones, rows[..., :-1]], axis=-1), axis=-1)
    rev = _m.flip(rows, axis=-1)
    right = _m.flip(_st.cumulative_prod(_m.concat([ones, rev[..., :-1]], axis=-1), axis=-1),
                    axis=-1)
    others = _m.reshape(ew.multiply(left, right), moved.shape)
    inverse = [order.index(i) for i in range(x.ndim)]
    return _m.permute_dims(others, tuple(inverse))


def _scan_vjp(node, rp, g):
    op, _out, xview, axis = node.args
    if xview.dtype.kind not in "fc":
        return []
    if op == "sum":
        return [(xview, _m.flip(_st.cumulative_sum(_m.flip(g, axis=axis), axis=axis),
                                axis=axis))]
    if op == "prod":
        x = rp.tensor(xview)
        y = _written(node, rp)
        rev = _m.flip(_st.cumulative_sum(_m.flip(ew.multiply(g, y), axis=axis), axis=axis),
                      axis=axis)
        return [(xview, ew.divide(rev, x))]
    _no_rule(f"wt.cumulative_{op}")


def _matmul_vjp(node, rp, g):
    from ..api import linalg as _la

    _out, av, bv = node.args
    a, b = rp.tensor(av), rp.tensor(bv)
    out = []
    if av.dtype.kind in "fc":
        out.append((av, _la.matmul(g, _la.matrix_transpose(b))))
    if bv.dtype.kind in "fc":
        out.append((bv, _la.matmul(_la.matrix_transpose(a), g)))
    return out


def _zeros(shape, dtype, device) -> Tensor:
    z = empty(tuple(shape), dtype, device)
    if z.size:
        device.backend.fill(z, 0)
    return z


def _scatter_add(shape, axis, indices: Tensor, g: Tensor) -> Tensor:
    z = _zeros(shape, g.dtype, g.device)
    if g.size:
        g.device.backend.scatter("add", z, axis, index_operand(indices), _contiguous(g))
    return z


def _gather(g: Tensor, axis, indices: Tensor) -> Tensor:
    out = empty(indices.shape, g.dtype, g.device)
    if out.size:
        g.device.backend.gather(out, _contiguous(g), axis, index_operand(indices))
    return out


def _contiguous(t: Tensor) -> Tensor:
    from .ad import _contiguous as contiguous

    return contiguous(t)


def _gather_vjp(node, rp, g):
    _out, xview, axis, iview = node.args
    if xview.dtype.kind not in "fc":
        return []
    return [(xview, _scatter_add(xview.shape, axis, rp.tensor(iview), g))]


def _scatter_vjp(node, rp, g):
    op, _out, axis, iview, uview = node.args
    if node.results[0].dtype.kind not in "fc":
        return []
    idx = rp.tensor(iview)
    base = node.base
    base_view = View(base, base.shape, _contiguous_strides(base.shape), 0) if base else None
    g_updates = _gather(g, axis, idx)
    if op == "add":
        g_base = g
    elif op == "set":
        g_base = empty(g.shape, g.dtype, g.device)
        g.device.backend.copy(g_base, g)
        if idx.size:
            g.device.backend.scatter("set", g_base, axis, index_operand(idx),
                                     _zeros(idx.shape, g.dtype, g.device))
    else:  # min/max: the winners get the gradient
        y = rp.value(node.results[0])
        u = rp.tensor(uview)
        g_updates = ew.where(ew.equal(u, _gather(y, axis, idx)), g_updates,
                             _c.zeros_like(g_updates))
        old = rp.value(base) if base is not None else y
        g_base = ew.where(ew.equal(_m.reshape(old, y.shape), y), g, _c.zeros_like(g))
    out = [(uview, g_updates)]
    if base_view is not None:
        out.append((base_view, _m.reshape(g_base, base.shape)))
    return out


def _sort_vjp(node, rp, g):
    _out, xview, axis, descending = node.args
    if xview.dtype.kind not in "fc":
        return []
    x = rp.tensor(xview)
    perm = empty(x.shape, _d.int64, x.device)
    if perm.size:
        x.device.backend.argsort(perm, x, axis, descending)
    return [(xview, _scatter_add(x.shape, axis, perm, g))]


# -- window reductions ------------------------------------------------------------------------

def window(x: Tensor, op: str, window_, strides, dilations) -> Tensor:
    """The ``window_reduce`` primitive on the view ``x``, into a fresh tensor."""
    out = empty(window_shape(x.shape, window_, strides, dilations), x.dtype, x.device)
    if out.size:
        x.device.backend.window_reduce(op, out, x, tuple(window_), tuple(strides),
                                       tuple(dilations))
    return out


def _window_parts(x: Tensor, window_, strides, dilations) -> list:
    """Per window position (row-major): the view of ``x`` at that position and the flat
    C-order positions (int64) in ``x`` of its elements."""
    out_shape = window_shape(x.shape, window_, strides, dilations)
    flat = _m.reshape(_c.arange(x.size, dtype=_d.int64, device=x.device), x.shape)
    return [(window_view(x, q, out_shape, strides, dilations),
             window_view(flat, q, out_shape, strides, dilations))
            for q in window_positions(window_)]


def window_selected(x: Tensor, select: str, window_, strides, dilations) -> Tensor:
    """The flat position in ``x`` of the element each window selects, as ``window_scatter``
    selects it (``"max"``/``"min"``: XLA's select-and-scatter, which JAX differentiates
    reduce_window by: the first of equal extremes, and a NaN gives way)."""
    name, replace_if = WINDOW_SELECT[select]
    compare = getattr(ew, name)
    best = index = None
    for v, i in _window_parts(x, window_, strides, dilations):
        if best is None:
            best, index = v, i
            continue
        take = compare(v, best) if replace_if else ew.logical_not(compare(best, v))
        best = ew.where(take, v, best)
        index = ew.where(take, i, index)
    return index


def window_scatter(select: str, x: Tensor, source: Tensor, window_, strides,
                   dilations) -> Tensor:
    """The ``window_scatter`` primitive: ``source`` added at each window's selected element."""
    out = empty(x.shape, source.dtype, x.device)
    if out.size:
        x.device.backend.window_scatter(select, out, x, source, tuple(window_), tuple(strides),
                                        tuple(dilations))
    return out


def _window_others(views: list) -> list:
    """For each window position, the product of the window's other elements (exclusive
    products from both sides: exact at zeros)."""
    n = len(views)
    left, right = [None] * n, [None] * n
    for k in range(1, n):
        left[k] = views[k - 1] if left[k - 1] is None else ew.multiply(left[k - 1], views[k - 1])
    for k in range(n - 2, -1, -1):
        right[k] = views[k + 1] if right[k + 1] is None else \
            ew.multiply(views[k + 1], right[k + 1])
    out = []
    for lo, hi, v in zip(left, right, views):
        if lo is None and hi is None:
            out.append(_c.ones_like(v))
        else:
            out.append(hi if lo is None else lo if hi is None else ew.multiply(lo, hi))
    return out


def _flat(t: Tensor) -> Tensor:
    return _m.reshape(t, (t.size,))


def window_sum_transpose(g: Tensor, shape, window_, strides, dilations) -> Tensor:
    """The adjoint of a window sum: each input element gets the sum of ``g`` over the windows
    holding it.  As JAX does: ``g`` spread ``strides`` apart into zeros padded by the window's
    extent less one, then summed over windows with the same dilations and stride 1."""
    lows = [(w - 1) * d for w, d in zip(window_, dilations)]
    padded = tuple(n + lo for n, lo in zip(shape, lows))
    z = _zeros(padded, g.dtype, g.device)
    if g.size:
        cs = _s.contiguous_strides(padded)
        region = z._view(g.shape, tuple(c * s for c, s in zip(cs, strides)),
                         sum(lo * c for lo, c in zip(lows, cs)))
        g.device.backend.assign(region, _contiguous(g))
    return window(z, "sum", window_, (1,) * len(shape), dilations)


def _window_reduce_vjp(node, rp, g):
    op, _out, xview, window_, strides, dilations = node.args
    if xview.dtype.kind not in "fc":
        return []
    x = rp.tensor(xview)
    if op == "sum":
        return [(xview, window_sum_transpose(g, x.shape, window_, strides, dilations))]
    if op == "prod":
        parts = _window_parts(x, window_, strides, dilations)
        others = _window_others([v for v, _ in parts])
        index = _m.concat([_flat(i) for _, i in parts])
        updates = _m.concat([_flat(ew.multiply(g, o)) for o in others])
        return [(xview, _m.reshape(_scatter_add((x.size,), 0, index, updates), x.shape))]
    # max/min: the gradient goes to the selected element of each window
    return [(xview, window_scatter(op, x, _contiguous(g), window_, strides, dilations))]


def _window_scatter_vjp(node, rp, g):
    select, _out, xview, sview, window_, strides, dilations = node.args
    if sview.dtype.kind not in "fc":
        return []
    index = window_selected(rp.tensor(xview), select, window_, strides, dilations)
    picked = _gather(_flat(_contiguous(g)), 0, _flat(index))
    return [(sview, _m.reshape(picked, sview.shape))]


VJP = {
    "unary": _elementwise_vjp, "binary": _elementwise_vjp, "where": _where_vjp,
    "cast": _cast_vjp, "copy": _copy_vjp, "assign": _assign_vjp, "reduce": _reduce_vjp,
    "scan": _scan_vjp, "matmul": _matmul_vjp, "gather": _gather_vjp,
    "scatter": _scatter_vjp, "sort": _sort_vjp, "window_reduce": _window_reduce_vjp,
    "window_scatter": _window_scatter_vjp,
}

CONTROL_VJP: dict = {}  # cond, scan_loop, while_loop (control.py), host (host.py)


def stop_gradient(x):
    """A copy of ``x`` that autodiff treats as a constant."""
    from .. import _tracing

    if x.__class__ is not Tensor:
        return x
    out = empty(x.shape, x.dtype, x.device, weak=x.weak, names=x.names)
    x.device.backend.copy(out, x)
    trace = _tracing.active()
    if trace is not None and _tracing.is_traced(out):  # the copy just recorded
        trace.nodes[-1].params["stop_gradient"] = True
    return out
