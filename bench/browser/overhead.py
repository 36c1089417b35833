"""Per-op overhead of the webgpu device: the browser driver (Pyodide + navigator.gpu) against the
native one (wgpu-py).

    python bench/browser/overhead.py                  # native: wgpu-py (lavapipe in CI)
    node tests/browser/run.mjs --only overhead        # the same code in headless Chromium

``run(n, sizes)`` times, per tensor size, ``n`` chained tiny ops (``x = x + 1.0``: one kernel
dispatch each, recorded and submitted in batches) and one read at the end; it returns
microseconds per op (also with a new scalar operand each op), the Python recording's part of it
(for a cached and a new scalar operand each op), and the time of one 4-byte read on its own.  Small sizes measure the
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


_fresh = iter(range(1, 1 << 40))


def _per_op_new_scalar_us(n: int, size: int) -> float:
    """``_per_op_us`` with a Python scalar the device has not seen before in every op
    (``x * (1 + i / 1e4)`` in a loop: a schedule, a playground animation)."""
    base = wt.zeros((size,), dtype=wt.float32, device="webgpu")
    (base + 0.5)[0].item()
    t0 = time.perf_counter()
    for _ in range(n):
        s = next(_fresh) * 2.0 ** -20
        x = base + s
    last = x[-1].item()
    elapsed = time.perf_counter() - t0
    if last != wt.asarray(s, dtype=wt.float32, device="cpu").item():
        raise AssertionError(f"overhead: expected {s}, got {last}")
    return elapsed / n * 1e6


def _record_us(n: int, size: int, fresh_scalars: bool = False, ops: int = 200) -> float:
    """Microseconds per op of Python recording ``x + 1.0`` (or ``x + s`` with a new Python
    scalar ``s`` each op): the per-op cost a fast GPU leaves (software adapters take about as
    long to run a tiny dispatch).  Runs of ``ops`` ops, fewer than a batch, each timed from an
    idle GPU, so the adapter's threads do not compete with the timed Python; the best of
    ``n / ops`` runs."""
    x = wt.zeros((size,), dtype=wt.float32, device="webgpu")
    (x + 1.0)[0].item()
    best = float("inf")
    for run in range(max(1, n // ops)):
        t0 = time.perf_counter()
        for i in range(ops):
            y = x + (1.0 + (run * ops + i) * 2.0 ** -20 if fresh_scalars else 1.0)
        best = min(best, time.perf_counter() - t0)
        y[0].item()  # runs the batch: the next run starts from an idle GPU
    return best / ops * 1e6


def _read_us(reps: int = 50) -> float:
    x = wt.ones((1,), dtype=wt.float32, device="webgpu")
    x.item()
    t0 = time.perf_counter()
    for _ in range(reps):
        x.item()
    return (time.perf_counter() - t0) / reps * 1e6


# The chain's fast arithmetic as hand-written kernels, in three layouts: one element per
# invocation; four, a whole grid apart (the generated kernels' layout); one vec4 per invocation,
# computed as a vector or lane by lane.
_RAW_HEAD = """
@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 16>;
@group(0) @binding(1) var<storage, read> in0: array<${T}>;
@group(0) @binding(2) var<storage, read_write> out0: array<${T}>;
fn chain(x: ${T}) -> ${T} {
    var y = sin(x * 1.5 + 0.5);
    y = y * y;
    return exp(sqrt(abs(y - 0.25)));
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let first = gid.x + gid.y * nwg.x * 64u;
"""
_RAW_CHAIN = {
    "raw_kernel_ms": ("f32", 1, """
    if (first >= P[0].x) { return; }
    out0[first] = chain(in0[first]);
}"""),
    "raw_items4_ms": ("f32", 4, """
    let stride = nwg.x * nwg.y * 64u;
    for (var item = 0u; item < 4u; item = item + 1u) {
        let i = first + item * stride;
        if (i >= P[0].x) { return; }
        out0[i] = chain(in0[i]);
    }
}"""),
    "raw_vec4_ms": ("vec4<f32>", 4, """
    if (first >= P[0].x / 4u) { return; }
    out0[first] = chain(in0[first]);
}"""),
    "raw_vec4_lanes_ms": ("vec4<f32>", 4, """
    if (first >= P[0].x / 4u) { return; }
    let x = in0[first];
    out0[first] = vec4<f32>(chain1(x.x), chain1(x.y), chain1(x.z), chain1(x.w));
}
fn chain1(x: f32) -> f32 {
    var y = sin(x * 1.5 + 0.5);
    y = y * y;
    return exp(sqrt(abs(y - 0.25)));
}"""),
}


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
    params = struct.pack("<I", n) + bytes(252)

    def raw(kernel, per_thread):
        def call():
            out = empty((n,), wt.float32, x.device)
            backend.launch(kernel, [x._data, out._data], params, -(-n // (64 * per_thread)))
            return out
        return call

    out = {"n": n}
    with wt.set_precision("fast"):
        out["jit_fast_ms"] = round(_ms_per_call(lambda: jitted(x)), 2)
    out["jit_exact_ms"] = round(_ms_per_call(lambda: jitted(x)), 2)
    reference = None
    for name, (wgsl_type, per_thread, body) in _RAW_CHAIN.items():
        kernel = Kernel(_RAW_HEAD.replace("${T}", wgsl_type) + body, 1, 1, 256)
        call = raw(kernel, per_thread)
        result = call().tolist()
        if reference is not None and result != reference:
            raise AssertionError(f"chain_split: {name} computed something else")
        reference = result
        out[name] = round(_ms_per_call(call), 2)
    return out


_RAW_SCALE = """
@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 16>;
@group(0) @binding(1) var<storage, read> in0: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out0: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = gid.x + gid.y * nwg.x * 64u;
    if (t >= P[0].x / 4u) { return; }
    out0[t] = in0[t] * 1.5;
}
"""


def eager_split(n: int = 1 << 20) -> dict:
    """Milliseconds per eager op of the chain on ``n`` float32 elements (fast precision), and
    of ``x * 1.5`` as one hand-written vec4 kernel through the same driver."""
    import struct

    from webtensor.backends.webgpu.kernels import Kernel
    from webtensor.tensor import empty

    x = wt.linspace(-3, 3, n, dtype=wt.float32, device="webgpu")
    ops = {"mul": lambda: x * 1.5, "add": lambda: x + 0.5, "sin": lambda: wt.sin(x),
           "square": lambda: x * x, "abs": lambda: wt.abs(x), "exp": lambda: wt.exp(x)}
    out = {}
    with wt.set_precision("fast"):
        for name, op in ops.items():
            out[f"eager_{name}_ms"] = round(_ms_per_call(op), 2)
    kernel, backend = Kernel(_RAW_SCALE, 1, 1, 256), x._backend
    params = struct.pack("<I", n) + bytes(252)

    def raw():
        r = empty((n,), wt.float32, x.device)
        backend.launch(kernel, [x._data, r._data], params, -(-n // 256))
        return r
    out["raw_vec4_mul_ms"] = round(_ms_per_call(raw), 2)
    return out


TRANSCENDENTALS = ("sin", "cos", "exp", "log", "tanh", "sqrt")


def transcendentals(n: int = 1 << 20) -> dict:
    """Milliseconds per jitted call of each float32 function on ``n`` elements, in exact
    precision (webtensor's own correctly reduced functions) and fast (WGSL's built-ins)."""
    x = wt.linspace(0.001, 30, n, dtype=wt.float32, device="webgpu")
    out = {}
    for name in TRANSCENDENTALS:
        fn = wt.jit(getattr(wt, name))
        for precision in ("exact", "fast"):
            with wt.set_precision(precision):
                out[f"{name}_{precision}_ms"] = round(_ms_per_call(lambda fn=fn: fn(x)), 2)
    return out


def _mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    logp = wt.nn.log_softmax(wt.nn.relu(x @ w1 + b1) @ w2 + b2)
    return -wt.sum(logp * y) / x.shape[0]


def mlp_split(batch: int = 128, sizes=(784, 256, 10)) -> dict:
    """bench/browser/peers.mjs's MLP training step (fast precision) and its matrix products
    one by one, forward and backward (the transposed operands are views): where its time goes."""
    n0, n1, n2 = sizes

    def rand(*shape):
        return wt.random.uniform(wt.random.key(len(shape) + shape[0]), shape) * 0.05

    params = (rand(n0, n1), wt.zeros(n1), rand(n1, n2), wt.zeros(n2))
    x, g1, g2 = rand(batch, n0), rand(batch, n1), rand(batch, n2)
    y = wt.nn.one_hot(wt.arange(batch) % n2, n2)
    h = rand(batch, n1)

    @wt.jit
    def step(params, x, y):
        value, grads = wt.value_and_grad(_mlp_loss)(params, x, y)
        return value, tuple(p - 0.1 * g for p, g in zip(params, grads))

    forward = wt.jit(_mlp_loss)
    products = {
        "x@w1": lambda: x @ params[0],
        "xT@g1": lambda: wt.matrix_transpose(x) @ g1,
        "h@w2": lambda: h @ params[2],
        "hT@g2": lambda: wt.matrix_transpose(h) @ g2,
        "g2@w2T": lambda: g2 @ wt.matrix_transpose(params[2]),
    }
    out = {}
    with wt.set_precision("fast"):
        out["mlp_step_ms"] = round(_ms_per_call(lambda: step(params, x, y)[1][0].reshape(-1)), 2)
        out["mlp_forward_ms"] = round(_ms_per_call(lambda: forward(params, x, y).reshape(1)), 2)
        for name, product in products.items():
            out[f"mlp_{name}_ms"] = round(_ms_per_call(lambda p=product: p().reshape(-1)), 2)
    return out


def run(n: int = 1000, sizes=(16, 4096)) -> dict:
    info = wt.device_info("webgpu")
    adapter = info["adapter"]
    out = {"driver": info["driver"], "ops": n,
           "adapter": " ".join(filter(None, (adapter.get(k) for k in (
               "vendor", "architecture", "device", "description"))))}
    for size in sizes:
        out[f"us_per_op_{size}"] = round(min(_per_op_us(n, size) for _ in range(3)), 2)
    out["us_per_op_new_scalar_16"] = round(min(_per_op_new_scalar_us(n, 16) for _ in range(3)), 2)
    out["record_us_per_op"] = round(min(_record_us(n, 16) for _ in range(3)), 2)
    out["record_us_per_op_new_scalar"] = round(min(_record_us(n, 16, True) for _ in range(3)), 2)
    out["us_per_read"] = round(_read_us(), 1)
    out.update(chain_split())
    out.update(eager_split())
    out.update(transcendentals())
    out.update(mlp_split())
    return out


if __name__ == "__main__":
    import json
    import os

    os.environ.setdefault("WEBTENSOR_DEVICE", "webgpu")
    print(json.dumps(run(), indent=1))
