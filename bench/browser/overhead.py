"""Per-op overhead of the webgpu device: the browser driver (Pyodide + navigator.gpu) against the
native one (wgpu-py).

    python bench/browser/overhead.py                  # native: wgpu-py (lavapipe in CI)
    node tests/browser/run.mjs --only overhead        # the same code in headless Chromium

``run(n, sizes)`` times, per tensor size, ``n`` chained tiny ops (``x = x + 1.0``: one kernel
dispatch each, recorded and submitted in batches) and one read at the end; it returns
microseconds per op, and the time of one 4-byte read on its own.  Small sizes measure the
overhead (Python, driver, submit), not the GPU.
"""

from __future__ import annotations

import time

import webtensor as wt


def _per_op_us(n: int, size: int) -> float:
    x = wt.zeros((size,), dtype=wt.float32, device="webgpu")
    (x + 1.0)[0].item()  # compile the kernel, fill the buffer pool
    t0 = time.perf_counter()
    for _ in range(n):
        x = x + 1.0
    last = x[-1].item()
    elapsed = time.perf_counter() - t0
    if last != float(n):
        raise AssertionError(f"overhead: expected {n}, got {last}")
    return elapsed / n * 1e6


def _read_us(reps: int = 50) -> float:
    x = wt.ones((1,), dtype=wt.float32, device="webgpu")
    x.item()
    t0 = time.perf_counter()
    for _ in range(reps):
        x.item()
    return (time.perf_counter() - t0) / reps * 1e6


def run(n: int = 1000, sizes=(16, 4096)) -> dict:
    info = wt.device_info("webgpu")
    adapter = info["adapter"]
    out = {"driver": info["driver"], "ops": n,
           "adapter": " ".join(filter(None, (adapter.get(k) for k in (
               "vendor", "architecture", "device", "description"))))}
    for size in sizes:
        out[f"us_per_op_{size}"] = round(min(_per_op_us(n, size) for _ in range(3)), 2)
    out["us_per_read"] = round(_read_us(), 1)
    return out


if __name__ == "__main__":
    import json
    import os

    os.environ.setdefault("WEBTENSOR_DEVICE", "webgpu")
    print(json.dumps(run(), indent=1))
