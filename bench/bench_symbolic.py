"""A PyTensor-style logistic-regression training step compiled by webtensor.symbolic against
the same graph compiled by PyTensor itself (native CPU: its default NUMBA mode, and the C
linker when a compiler exists), in the same run.

The step is PyTensor's tutorial example: forward pass, cross-entropy with L2, gradients of the
weights and bias, and the SGD updates of the shared weights, one call per step (floatX is the
data's dtype, so float32 runs stay float32 in both libraries); each timing
ends with the cost read on the host.  webtensor is timed with its data already on the device
(tensors) and, on the CPU, with NumPy arrays as arguments (converted every call, as PyTensor
takes them).  The ratio column is webtensor's time over PyTensor's default mode's time
(below 1: webtensor is faster).  Numbers, never pass/fail.
Run: PYTHONPATH=core python bench/bench_symbolic.py [--quick]
"""

from __future__ import annotations

import pathlib
import sys
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "core"))

from _table import per_call, print_table  # noqa: E402

import webtensor as wt  # noqa: E402
import webtensor.symbolic as at  # noqa: E402
from webtensor.backends.cpu_python import PythonBackend  # noqa: E402
from webtensor.device import Device  # noqa: E402

QUICK = "--quick" in sys.argv


def build(T, shared, grad, function, feats, dtype, **kwargs):
    """The tutorial's training step in the library ``T`` (pytensor.tensor or
    webtensor.symbolic)."""
    import numpy as np

    x = T.matrix("x", dtype=dtype)
    y = T.vector("y", dtype=dtype)
    rng = np.random.default_rng(1)
    w = shared((rng.standard_normal(feats) * 0.01).astype(dtype), name="w", **kwargs)
    b = shared(np.asarray(0.0, dtype=dtype), name="b", **kwargs)
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    prediction = p_1 > 0.5
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = grad(cost, [w, b])
    return function([x, y], [prediction, xent.mean()],
                    updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])


def data(n, feats, dtype):
    import numpy as np

    rng = np.random.default_rng(0)
    return (rng.standard_normal((n, feats)).astype(dtype),
            rng.integers(0, 2, n).astype(dtype))


def pytensor_steps(n, feats, dtype):
    import pytensor
    import pytensor.tensor as pt

    X, Y = data(n, feats, dtype)
    out = {}
    modes = [("pytensor (default: NUMBA)", None)]
    if pytensor.config.cxx:
        modes.append(("pytensor (C linker)", "FAST_RUN_C"))
    for label, mode in modes:
        kwargs = {}
        if mode == "FAST_RUN_C":
            kwargs["mode"] = pytensor.compile.mode.Mode(linker="cvm", optimizer="fast_run")
        with warnings.catch_warnings(), pytensor.config.change_flags(floatX=dtype):
            warnings.simplefilter("ignore")
            step = build(pt, pytensor.shared, pytensor.grad,
                         lambda i, o, kw=kwargs, **k: pytensor.function(i, o, **k, **kw),
                         feats, dtype)
        step(X, Y)
        out[label] = per_call(lambda step=step: step(X, Y)[1].item(), min_time=0.2, repeat=3)
    return out


def webtensor_steps(n, feats, dtype):
    X, Y = data(n, feats, dtype)
    devices = [("cpu", wt.device.cpu)]
    if n * feats <= 20_000 or not QUICK:
        devices.append(("python", Device("cpu", PythonBackend)))
    gpu = next((d for d in wt.devices() if d.name == "webgpu"), None)
    if gpu is not None:
        devices.append(("webgpu", gpu))
    out = {}
    for name, dev in devices:
        if name == "python" and n * feats > 40_000:
            continue  # pure Python: minutes per step at this size
        with warnings.catch_warnings(), at.config.change_flags(floatX=dtype):
            warnings.simplefilter("ignore")  # float64 on webgpu runs on the CPU (a warning)
            step = build(at, at.shared, at.grad, at.function, feats, dtype, device=dev)
            xs, ys = wt.asarray(X, device=dev), wt.asarray(Y, device=dev)
            step(xs, ys)
            out[f"webtensor {name} (tensors)"] = per_call(
                lambda step=step, xs=xs, ys=ys: step(xs, ys)[1].item(), min_time=0.2, repeat=3)
            if name == "cpu":
                out[f"webtensor {name} (NumPy arguments)"] = per_call(
                    lambda step=step: step(X, Y)[1].item(), min_time=0.2, repeat=3)
    return out


def main() -> None:
    try:
        import numpy  # noqa: F401
        import pytensor  # noqa: F401
    except ImportError as e:
        sys.exit(f"bench_symbolic: needs NumPy and PyTensor (pip install pytensor): {e}")
    sizes = [(400, 784, "float64"), (400, 784, "float32")] if QUICK else \
        [(100, 10, "float64"), (400, 784, "float64"), (400, 784, "float32"),
         (4000, 784, "float64")]
    rows = []
    for n, feats, dtype in sizes:
        base = pytensor_steps(n, feats, dtype)
        ours = webtensor_steps(n, feats, dtype)
        ref = base["pytensor (default: NUMBA)"]
        for label, t in {**base, **ours}.items():
            rows.append([f"{n}x{feats} {dtype}", label, f"{t * 1e3:.3f}", f"{t / ref:.2f}"])
    print_table("logistic regression training step (one call: forward, gradients, updates)",
                ["data", "implementation", "ms/step", "ratio vs pytensor"], rows)


if __name__ == "__main__":
    main()
