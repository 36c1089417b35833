"""Gradients on the webgpu device equal the CPU device's (float32, same programs): rules, views,
reductions, control flow, vmap and jit compositions.  The CPU results are checked against finite
differences and JAX in test_grad.py.  Runs natively (lavapipe) and in the browser suite."""

from __future__ import annotations

import math

import pytest

import webtensor as wt
from _gpu import webgpu_or_skip
from webtensor import ops
from webtensor.compile.rules import PARTIALS

GPU, CPU, BACKEND = webgpu_or_skip()


def _data(dev, shape, lo=-2.0, hi=2.0, seed=0):
    n = math.prod(shape)
    vals = [lo + (hi - lo) * ((k * 0.6180339887 + seed * 0.31) % 1.0) for k in range(n)]
    return wt.reshape(wt.asarray(vals, dtype=wt.float32, device=dev), shape)


def _close(a, b, rtol=2e-4, atol=2e-5):
    for x, y in zip(_flat(a.tolist()), _flat(b.tolist())):
        assert math.isclose(x, y, rel_tol=rtol, abs_tol=atol) or (x != x and y != y), (a, b)


def _flat(v):
    if isinstance(v, list):
        return [e for item in v for e in _flat(item)]
    return [v]


def same_on_both(fn, shape=(3, 4), lo=-2.0, hi=2.0, **kw):
    def grads(dev):
        x = _data(dev, shape, lo, hi)

        def loss(a):
            y = fn(a)
            return wt.sum(wt.real(y * _data(dev, y.shape, -1.0, 1.0, seed=3)))
        return wt.grad(loss)(x)
    _close(grads(GPU), grads(CPU), **kw)


_DOMAIN = {"acos": (-0.9, 0.9), "asin": (-0.9, 0.9), "atanh": (-0.9, 0.9),
           "acosh": (1.2, 3.0), "log": (0.2, 3.0), "log2": (0.2, 3.0), "log10": (0.2, 3.0),
           "log1p": (-0.5, 3.0), "sqrt": (0.2, 3.0), "reciprocal": (0.3, 3.0),
           "tan": (-1.2, 1.2)}


@pytest.mark.parametrize("name", sorted(op.name for op in ops.UNARY if op.name in PARTIALS))
def test_unary_rules(name):
    lo, hi = _DOMAIN.get(name, (-2.0, 2.0))
    same_on_both(getattr(wt, name), lo=lo, hi=hi)


@pytest.mark.parametrize("name", sorted(op.name for op in ops.BINARY if op.name in PARTIALS))
def test_binary_rules(name):
    lo, hi = (0.3, 2.0) if name == "pow" else (-2.0, 2.0)
    same_on_both(lambda a: getattr(wt, name)(a, a[::-1] * 0.5 + 1.7), lo=lo, hi=hi)


@pytest.mark.parametrize("case", ["reduce", "views", "matmul", "gather", "setitem", "sort",
                                  "cumulative", "control", "nn"])
def test_compositions(case):
    fns = {
        "reduce": lambda a: wt.max(a, axis=1, keepdims=True) * wt.mean(a) + wt.prod(a, axis=0),
        "views": lambda a: a.T[::2] @ wt.flip(a, axis=0)[:, :2] + wt.broadcast_to(a[:1, :2], (2, 2)),
        "matmul": lambda a: a @ a.T @ a,
        "gather": lambda a: wt.take(a, wt.asarray([3, 0, 3], device=a.device), axis=1) * 2,
        "setitem": _setitem,
        "sort": lambda a: wt.sort(a, axis=1) * wt.arange(4, dtype=wt.float32, device=a.device),
        "cumulative": lambda a: wt.cumulative_sum(a, axis=1) * wt.cumulative_prod(a, axis=0),
        "control": _control,
        "nn": lambda a: wt.nn.log_softmax(a) + wt.nn.gelu(a) * wt.nn.sigmoid(a),
    }
    same_on_both(fns[case])


def _setitem(a):
    b = a * 1.0
    b[1:, ::2] = wt.sin(a[:2, 1::2])
    return b


def _control(a):
    def body(c, row):
        c = wt.cond(wt.sum(row) > 0, lambda t: t * row, lambda t: t + row, c)
        return c, wt.tanh(c)
    c, ys = wt.scan(body, wt.ones((4,), device=a.device), a)
    return wt.fori_loop(0, 2, lambda i, v: v * 0.5 + c, ys)


def test_training_step_under_jit_is_fused_and_matches_the_cpu():
    def loss(params, x, y):
        w1, b1, w2 = params
        h = wt.nn.relu(x @ w1 + b1)
        logits = h @ w2
        return -wt.mean(wt.sum(wt.nn.one_hot(y, 3) * wt.nn.log_softmax(logits), axis=1))

    def step(params, x, y):
        value, grads = wt.value_and_grad(loss)(params, x, y)
        return value, tuple(p - 0.1 * g for p, g in zip(params, grads))

    def run(dev):
        params = (_data(dev, (2, 8), seed=1), _data(dev, (8,), seed=2),
                  _data(dev, (8, 3), seed=3))
        x = _data(dev, (16, 2), seed=4)
        y = wt.asarray([k % 3 for k in range(16)], device=dev)
        jstep = wt.jit(step)
        losses = []
        for _ in range(5):
            value, params = jstep(params, x, y)
            losses.append(value.item())
        return losses, params, jstep
    gpu_losses, gpu_params, jstep = run(GPU)
    cpu_losses, cpu_params, _ = run(CPU)
    assert gpu_losses[-1] < gpu_losses[0]
    for a, b in zip(gpu_losses, cpu_losses):
        assert math.isclose(a, b, rel_tol=1e-4)
    for a, b in zip(gpu_params, cpu_params):
        _close(a, b, rtol=1e-3, atol=1e-4)
    assert jstep.trace_count == 1
