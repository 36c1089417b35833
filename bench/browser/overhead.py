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


_RAW_CHAIN = """
@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 16>;
@group(0) @binding(1) var<storage, read> in0: array<f32>;
@group(0) @binding(2) var<storage, read_write> out0: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 64u;
    if (i >= P[0].x) { return; }
    var y = sin(in0[i] * 1.5 + 0.5);
    y = y * y;
    out0[i] = exp(sqrt(abs(y - 0.25)));
}
"""


def _chain(x):
    y = wt.sin(x * 1.5 + 0.5)
    y = y * y
    return wt.exp(wt.sqrt(wt.abs(y - 0.25)))


def _ms_per_call(step, reps: int = 10) -> float:
    step()[0].item()
    t0 = time.perf_counter()
    for _ in range(reps):
        r = step()
    r[0].item()
    return (time.perf_counter() - t0) / reps * 1e3


def chain_split(n: int = 1 << 20) -> dict:
    """The jitted 8-op chain in fast precision against the same arithmetic as one hand-written
    kernel through the same driver: what the generated kernel and the jit call cost over the
    bare dispatch."""
    import struct

    from webtensor.backends.webgpu.kernels import Kernel
    from webtensor.tensor import empty

    x = wt.linspace(-3, 3, n, dtype=wt.float32, device="webgpu")
    jitted = wt.jit(_chain)
    backend = x._backend
    kernel = Kernel(_RAW_CHAIN, 1, 1, 256)
    params = struct.pack("<I", n) + bytes(252)
    groups = -(-n // 64)

    def raw():
        out = empty((n,), wt.float32, x.device)
        backend.launch(kernel, [x._data, out._data], params, groups)
        return out

    with wt.set_precision("fast"):
        fast = _ms_per_call(lambda: jitted(x))
    return {"n": n, "jit_fast_ms": round(fast, 2), "jit_exact_ms": round(
        _ms_per_call(lambda: jitted(x)), 2), "raw_kernel_ms": round(_ms_per_call(raw), 2)}


def run(n: int = 1000, sizes=(16, 4096)) -> dict:
    info = wt.device_info("webgpu")
    adapter = info["adapter"]
    out = {"driver": info["driver"], "ops": n,
           "adapter": " ".join(filter(None, (adapter.get(k) for k in (
               "vendor", "architecture", "device", "description"))))}
    for size in sizes:
        out[f"us_per_op_{size}"] = round(min(_per_op_us(n, size) for _ in range(3)), 2)
    out["us_per_read"] = round(_read_us(), 1)
    out.update(chain_split())
    return out


if __name__ == "__main__":
    import json
    import os

    os.environ.setdefault("WEBTENSOR_DEVICE", "webgpu")
    print(json.dumps(run(), indent=1))
