"""webtensor.symbolic on the webgpu device: compiled functions are one fused program (an
elementwise graph is one dispatch), and their outputs, updates and gradients match the same
function run on the CPU device.  Runs natively (lavapipe) and in the browser suite
(Chromium's WebGPU); tests/test_symbolic_pytensor.py compares with PyTensor itself.
"""

from __future__ import annotations

import math

import pytest

import webtensor as wt
import webtensor.symbolic as at
from _gpu import webgpu_or_skip

GPU, CPU, BACKEND = webgpu_or_skip()


def _dispatches() -> int:
    return BACKEND.driver.stats()["dispatches"]


def _close(a, b, rel=2e-6, abs_=1e-6):
    fa = wt.reshape(a, (a.size,)).tolist()
    fb = wt.reshape(b, (b.size,)).tolist()
    assert a.shape == b.shape and a.dtype == b.dtype
    for x, y in zip(fa, fb):
        assert math.isclose(x, y, rel_tol=rel, abs_tol=abs_), (x, y)


def _data(shape, seed, device):
    n = 1
    for s in shape:
        n *= s
    flat = [math.sin(k * 0.37 + seed) * 2.0 for k in range(n)]
    return wt.reshape(wt.asarray(flat, dtype=wt.float32, device=device), shape)


def test_an_elementwise_graph_is_one_dispatch():
    x = at.fvector("x")
    y = at.exp(at.sqrt(abs(at.sin(x * 1.5 + 0.5) ** 2 - 0.25)))
    f = at.function([x], y)
    data = _data((4096,), 0, GPU)
    f(data).tolist()  # trace, compile the kernel
    before = _dispatches()
    got = f(data)
    assert _dispatches() - before == 1
    _close(got, f(data.to_device(CPU)).to_device(GPU))


def test_outputs_match_the_cpu_device():
    x, y = at.fmatrix("x"), at.fmatrix("y")
    outs = [at.dot(x, y.T), (x * y).sum(axis=0), at.switch(x > y, x, y * 2), x.argmax(axis=1),
            at.concatenate([x, y], axis=1)[:, ::3], at.sigmoid(x).mean(), x.T.reshape((-1,))]
    f = at.function([x, y], outs)
    a, b = _data((5, 7), 1, GPU), _data((5, 7), 2, GPU)
    on_gpu = f(a, b)
    on_cpu = f(a.to_device(CPU), b.to_device(CPU))
    for g, c in zip(on_gpu, on_cpu):
        assert g.device == GPU and c.device == CPU
        _close(g, c.to_device(GPU))


def test_a_float32_training_loop_matches_the_cpu_device():
    def make(device):
        with at.config.change_flags(floatX="float32"):
            x, y = at.fmatrix("x"), at.fvector("y")
            w = at.shared(wt.zeros(3, dtype=wt.float32, device=device), name="w")
            b = at.shared(wt.zeros((), dtype=wt.float32, device=device), name="b")
            p = at.sigmoid(at.dot(x, w) + b)
            cost = (-y * at.log(p) - (1 - y) * at.log(1 - p)).mean() + 0.01 * (w ** 2).sum()
            gw, gb = at.grad(cost, [w, b])
            train = at.function([x, y], cost, updates=[(w, w - 0.5 * gw), (b, b - 0.5 * gb)])
        return train, w, b
    X = _data((32, 3), 3, CPU)
    Y = wt.astype(wt.sum(X, axis=1) > 0, wt.float32)
    results = {}
    for device in (GPU, CPU):
        train, w, b = make(device)
        xs, ys = X.to_device(device), Y.to_device(device)
        costs = [train(xs, ys).item() for _ in range(20)]
        assert costs[-1] < costs[0] * 0.5
        results[device.name] = (costs, w.get_value(), b.get_value())
        assert w.get_value().device == device
    (cg, wg, bg), (cc, wc, bc) = results["webgpu"], results["cpu"]
    for g, c in zip(cg, cc):
        assert math.isclose(g, c, rel_tol=1e-5)
    _close(wg, wc.to_device(GPU), rel=1e-5, abs_=1e-6)
    _close(bg, bc.to_device(GPU), rel=1e-5, abs_=1e-6)


def test_gradients_match_the_cpu_device():
    x = at.fmatrix("x")
    cost = (at.tanh(at.dot(x, x.T)) ** 2).sum() + at.log1p(x ** 2).max(axis=0).sum()
    f = at.function([x], at.grad(cost, x))
    a = _data((4, 6), 4, GPU)
    _close(f(a), f(a.to_device(CPU)).to_device(GPU), rel=1e-5, abs_=1e-5)


def test_runtime_broadcasting_is_refused_on_the_gpu_too():
    v, w = at.fvector("v"), at.fvector("w")
    f = at.function([v, w], v * w, device=GPU)
    with pytest.raises(ValueError, match="runtime broadcasting is not allowed"):
        f([1.0], [1.0, 2.0])
