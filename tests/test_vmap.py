"""wt.vmap equals a Python loop over the batch, for the op families and control flow, with
in_axes/out_axes drawn by hypothesis; on the CPU backends and the webgpu device."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt

PROPERTY = settings(max_examples=12, deadline=None)



def data(dev, shape, seed=0):
    n = 1
    for s in shape:
        n *= s
    vals = [((k * 7 + seed * 13) % 11) / 4 - 1.2 for k in range(n)]
    return wt.reshape(wt.asarray(vals, dtype=wt.float32, device=dev), shape)


def looped(fn, args, in_axes, out_axes, size):
    """The reference: fn on each example, stacked along out_axes."""
    outs = []
    for i in range(size):
        example = [a if ax is None else wt.take(a, wt.asarray(i, device=a.device), axis=ax)
                   for a, ax in zip(args, in_axes)]
        outs.append(fn(*example))
    if isinstance(outs[0], tuple):
        return tuple(wt.stack([o[k] for o in outs], axis=out_axes) for k in range(len(outs[0])))
    return wt.stack(outs, axis=out_axes)


FUNCTIONS = {
    "unary": (lambda a, b: wt.exp(wt.sin(a)) * 2, ((3, 4), (4,))),
    "binary_broadcast": (lambda a, b: a * b + wt.maximum(a, 0.5), ((3, 4), (4,))),
    "reduce": (lambda a, b: (wt.sum(a, axis=0), wt.max(a, axis=1), wt.argmax(a)), ((3, 4), (4,))),
    "matmul": (lambda a, b: a @ b, ((3, 4), (4,))),
    "indexing": (lambda a, b: a[1:, ::2] + a[[2, 0], 1:3].sum(), ((3, 4), (4,))),
    "manipulation": (lambda a, b: wt.concat([a.T, wt.flip(a, axis=0).T], axis=1) * 1,
                     ((3, 4), (4,))),
    "sort_cumsum": (lambda a, b: (wt.sort(a, axis=1), wt.cumulative_sum(a, axis=0)),
                    ((3, 4), (4,))),
    "where": (lambda a, b: wt.where(a > b, a, b * 2), ((3, 4), (4,))),
    "setitem": (lambda a, b: _setitem(a, b), ((3, 4), (4,))),
    "control": (lambda a, b: _control(a, b), ((3, 4), (4,))),
}


def _setitem(a, b):
    c = a * 1
    c[0] = b
    c[1:, 1] += 3
    return c


def _control(a, b):
    y = wt.cond(wt.sum(b) > 0, lambda t: t * 2, lambda t: -t, a)
    c, ys = wt.scan(lambda c, row: (c + row, c * row), b, y)
    k, z = wt.while_loop(lambda s: wt.sum(s[1]) < 4, lambda s: (s[0] + 1, s[1] + wt.abs(b) + 0.1),
                         (0, b * 0))
    return c, ys, z, wt.astype(k, wt.float32)


@PROPERTY
@given(name=st.sampled_from(sorted(FUNCTIONS)), ax0=st.sampled_from([0, 1, 2, -1]),
       ax1=st.sampled_from([0, 1, None]), out=st.sampled_from([0, 1, -1]), size=st.integers(1, 3))
def test_vmap_equals_a_loop(dev, name, ax0, ax1, out, size):
    fn, (s0, s1) = FUNCTIONS[name]
    shape0 = list(s0)
    shape0.insert(ax0 % (len(s0) + 1), size)
    shape1 = list(s1)
    if ax1 is not None:
        shape1.insert(ax1, size)
    a, b = data(dev, tuple(shape0)), data(dev, tuple(shape1), seed=1)
    in_axes = (ax0 % (len(s0) + 1), ax1)
    try:
        want = looped(fn, (a, b), in_axes, out, size)
    except ValueError:  # out_axes=1 is no axis of a 0-d per-example result: vmap refuses too
        with pytest.raises(ValueError, match="out of bounds"):
            wt.vmap(fn, in_axes=in_axes, out_axes=out)(a, b)
        return
    got = wt.vmap(fn, in_axes=in_axes, out_axes=out)(a, b)
    pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
    for g, w in pairs:
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tobytes() == w.tobytes(), (name, g, w)


def test_vmap_composes_with_grad_and_jit(dev):
    x = data(dev, (4, 3))
    per_example = wt.jit(wt.vmap(wt.grad(lambda a: wt.sum(wt.tanh(a) ** 2))))(x)
    loop = wt.stack([wt.grad(lambda a: wt.sum(wt.tanh(a) ** 2))(x[i]) for i in range(4)])
    assert per_example.tobytes() == loop.tobytes()
    rows = wt.vmap(lambda r: r * wt.sum(r))(x)  # per row: the row times its sum
    assert rows.tobytes() == (x * wt.sum(x, axis=1, keepdims=True)).tobytes()
    nested = wt.vmap(wt.vmap(lambda e: e * wt.sum(e)))(x)  # per element: e * e
    assert nested.tobytes() == (x * x).tobytes()


def test_vmap_errors():
    with pytest.raises(ValueError, match=r"wt.vmap: in_axes maps no argument"):
        wt.vmap(lambda a: a, in_axes=None)(wt.ones(3))
    with pytest.raises(ValueError, match=r"in_axes=2 is not an axis of argument leaf 0"):
        wt.vmap(lambda a: a, in_axes=2)(wt.ones((3, 2)))
    with pytest.raises(ValueError, match=r"out_axes is None for output leaf 0, but it depends"):
        wt.vmap(lambda a: a * 2, out_axes=None)(wt.ones(3))
    with pytest.raises(ValueError, match=r"in_axes has 1 entries but the function was called "
                                         r"with 2"):
        wt.vmap(lambda a, b: a, in_axes=(0,))(wt.ones(3), wt.ones(3))
