"""webtensor.nx's window ops and conv, webgpu against the CPU device in the same run:

* ``nx.conv``: a 3x3 convolution with 64 input and 64 output channels on a 1x64x56x56 f32 input
  (valid and same padding), i.e. the patch matrix (one strided view of the input, copied) + one
  batched ``wt.matmul``;
* ``nx.window_max``: 2x2 windows with stride 2 on the same input (max-pooling), i.e. one
  ``window_reduce`` (one kernel on webgpu), and its gradient (one ``window_scatter``: two
  kernels);

eager, and compiled with ``nx.defn``.  Each timing ends with a one-element read (the GPU
finishes the work); inputs are already on the device.  Numbers, never pass/fail.
Run: PYTHONPATH=core python bench/bench_nx.py [--quick]
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "core"))

from _table import per_call, print_table  # noqa: E402

import webtensor as wt  # noqa: E402
import webtensor.nx as nx  # noqa: E402

QUICK = "--quick" in sys.argv


def sync(t) -> None:
    wt.reshape(t, (-1,))[:1].tobytes()


def devices() -> list:
    out = [("cpu", wt.device.cpu)]
    gpu = next((d for d in wt.devices() if d.name == "webgpu"), None)
    if gpu is not None:
        out.append(("webgpu", gpu))
    return out


@nx.defn
def conv_same(x, k):
    return nx.conv(x, k, padding="same")


@nx.defn
def pool(x):
    return nx.window_max(x, (1, 1, 2, 2), strides=[1, 1, 2, 2])


pool_grad = wt.jit(wt.grad(lambda x: wt.sum(nx.window_max(x, (1, 1, 2, 2),
                                                          strides=[1, 1, 2, 2]))))

CASES = [
    ("conv 3x3 valid", lambda x, k: nx.conv(x, k)),
    ("conv 3x3 same", lambda x, k: nx.conv(x, k, padding="same")),
    ("conv 3x3 same, defn", conv_same),
    ("window_max 2x2/2", lambda x, k: nx.window_max(x, (1, 1, 2, 2), strides=[1, 1, 2, 2])),
    ("window_max 2x2/2, defn", lambda x, k: pool(x)),
    ("window_max 2x2/2 gradient, jit", lambda x, k: pool_grad(x)),
]


def main() -> None:
    key = wt.random.key(0)
    k1, k2 = wt.random.split(key)
    times: dict = {}
    rows = []
    for dev_name, dev in devices():
        x = nx.random_normal((1, 64, 56, 56), key=k1, backend=dev)
        k = nx.multiply(nx.random_normal((64, 64, 3, 3), key=k2, backend=dev), 0.05)
        for name, fn in CASES:
            sync(fn(x, k))  # compile / warm the pipelines
            t = per_call(lambda fn=fn, x=x, k=k: sync(fn(x, k)), min_time=0.05 if QUICK else 0.2,
                         repeat=2 if QUICK else 3)
            times[dev_name, name] = t
    for name, _ in CASES:
        cpu = times["cpu", name]
        row = [name, f"{cpu * 1e3:.2f}"]
        if ("webgpu", name) in times:
            gpu = times["webgpu", name]
            row += [f"{gpu * 1e3:.2f}", f"{cpu / gpu:.2f}x"]
        else:
            row += ["-", "-"]
        rows.append(row)
    flops = 2 * 64 * 64 * 9 * 54 * 54
    print_table("webtensor.nx on a 1x64x56x56 float32 input (ms per call, best of repeats)",
                ["op", "cpu", "webgpu", "cpu / webgpu"], rows)
    print(f"\nconv 3x3 valid: {flops / 1e9:.2f} GFLOP per call; "
          + ", ".join(f"{d}: {flops / times[d, 'conv 3x3 valid'] / 1e9:.1f} GFLOP/s"
                      for d, _ in devices()))
    gpu = next((d for d in wt.devices() if d.name == "webgpu"), None)
    if gpu is not None:
        print(f"webgpu adapter: {wt.device_info(gpu)['adapter']['description']}")


if __name__ == "__main__":
    main()
