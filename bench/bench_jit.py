"""wt.jit against eager execution, same run: the 8-op elementwise chain at several sizes, the
per-call overhead of a cached jitted function with 1, 10 and 100 nodes, and autodiff's cost: a
jitted 784-256-10 MLP loss (batch 128) against its jitted value_and_grad (time and, on webgpu,
kernel launches per call).

Each timing ends with a one-element read (the GPU finishes the work), inputs already on the
device.  Devices: cpu (the default CPU backend), the pure-Python backend, and webgpu when an
adapter exists.  Numbers, never pass/fail.
Run: PYTHONPATH=core python bench/bench_jit.py [--quick]
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "core"))

from _table import per_call, print_table  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor.backends.cpu_python import PythonBackend  # noqa: E402
from webtensor.device import Device  # noqa: E402

QUICK = "--quick" in sys.argv


def chain(x):
    return wt.exp(wt.sqrt(wt.abs(wt.sin(x * 1.5 + 0.5) ** 2 - 0.25)))


def adds(n: int):
    def f(x):
        for _ in range(n):
            x = x + 1.0
        return x
    f.__name__ = f"adds{n}"
    return f


def sync(t) -> None:
    wt.reshape(t, (-1,))[:1].tobytes()


def devices() -> list:
    out = [("cpu", wt.device.cpu), ("python", Device("cpu", PythonBackend))]
    gpu = next((d for d in wt.devices() if d.name == "webgpu"), None)
    if gpu is not None:
        out.append(("webgpu", gpu))
    return out


def chain_rows(name, dev, sizes) -> list[list]:
    rows = []
    jitted = wt.jit(chain)
    for n in sizes:
        x = wt.linspace(-3, 3, n, dtype=wt.float32, device=dev)
        sync(jitted(x))
        t_eager = per_call(lambda x=x: sync(chain(x)), min_time=0.1, repeat=3)
        t_jit = per_call(lambda x=x: sync(jitted(x)), min_time=0.1, repeat=3)
        rows.append([name, f"{n:,}", f"{t_eager * 1e3:.3f}", f"{t_jit * 1e3:.3f}",
                     f"{t_eager / t_jit:.2f}x"])
    return rows


def overhead_rows(name, dev) -> list[list]:
    rows = []
    x = wt.ones((16,), device=dev)
    for nodes in (1, 10, 100):
        f = adds(nodes)
        jitted = wt.jit(f)
        sync(jitted(x))
        t_eager = per_call(lambda f=f: sync(f(x)), min_time=0.1, repeat=3)
        t_jit = per_call(lambda j=jitted: sync(j(x)), min_time=0.1, repeat=3)
        rows.append([name, str(nodes), f"{t_eager * 1e6:.1f}", f"{t_jit * 1e6:.1f}",
                     f"{t_eager / t_jit:.2f}x"])
    return rows


def _mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    logp = wt.nn.log_softmax(wt.nn.relu(x @ w1 + b1) @ w2 + b2)
    return -wt.sum(logp * y) / x.shape[0]


def _launches(dev) -> int:
    stats = getattr(dev.backend, "memory_stats", None)
    return stats().get("dispatches", 0) if stats else 0


def grad_rows(name, dev) -> list[list]:
    key = wt.random.key(0)
    k1, k2, k3 = wt.random.split(key, 3)
    params = (wt.random.normal(k1, (784, 256), device=dev) * 0.05, wt.zeros(256, device=dev),
              wt.random.normal(k2, (256, 10), device=dev) * 0.05, wt.zeros(10, device=dev))
    x = wt.random.uniform(k3, (128, 784), device=dev)
    y = wt.nn.one_hot(wt.arange(128, device=dev) % 10, 10)
    forward = wt.jit(_mlp_loss)
    both = wt.jit(wt.value_and_grad(_mlp_loss))
    sync(forward(params, x, y))
    sync(both(params, x, y)[0])
    counts = []
    for f in (forward, lambda *a: both(*a)[0]):
        before = _launches(dev)
        sync(f(params, x, y))
        counts.append(_launches(dev) - before)
    t_fwd = per_call(lambda: sync(forward(params, x, y)), min_time=0.2, repeat=3)
    t_both = per_call(lambda: sync(both(params, x, y)[0]), min_time=0.2, repeat=3)
    launches = f"{counts[0]} / {counts[1]}" if counts[1] else "-"
    return [[name, f"{t_fwd * 1e3:.2f}", f"{t_both * 1e3:.2f}", f"{t_both / t_fwd:.2f}x",
             launches]]


def main() -> None:
    sizes = (4096, 65536) if QUICK else (4096, 65536, 1 << 20)
    chain_table, overhead_table, grad_table = [], [], []
    for name, dev in devices():
        chain_table += chain_rows(name, dev, sizes if name != "python" else (4096,))
        overhead_table += overhead_rows(name, dev)
        if name != "python":  # a 784x256 matmul in pure Python takes minutes
            grad_table += grad_rows(name, dev)
        if name == "cpu":
            with wt.set_precision("fast"):
                grad_table += grad_rows("cpu (fast)", dev)
    print_table("8-op chain exp(sqrt(abs(sin(1.5x+0.5)^2-0.25))), float32: eager vs wt.jit",
                ["device", "elements", "eager ms", "jit ms", "speedup"], chain_table)
    print_table("per-call cost, 16 elements, x = x + 1.0 repeated: eager vs a cached jit",
                ["device", "nodes", "eager us", "jit us", "speedup"], overhead_table)
    print_table("784-256-10 MLP, batch 128, jitted: loss vs value_and_grad (forward + backward)",
                ["device", "forward ms", "fwd+bwd ms", "ratio", "launches fwd / fwd+bwd"],
                grad_table)


if __name__ == "__main__":
    main()
