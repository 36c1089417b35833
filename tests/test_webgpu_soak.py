"""Soak test of the webgpu device: 10,000 mixed operations in a loop, then no leaked buffers.

Each iteration runs ``STEPS`` (elementwise, casts, reductions, matmul, views, advanced indexing,
in-place updates, random, sort) on fresh small inputs and folds integer results into an
accumulator updated in place.  Every ``CHECK_EVERY`` iterations the same steps run on the CPU
device and every result is compared (integers and exact float ops bit for bit through NumPy,
transcendentals within a few ULP).  At the end, with every tensor deleted and collected,
``wt.memory_stats("webgpu")`` must show the live buffers and bytes of the start.

About 15 s on lavapipe; deselect with ``-m "not soak"``.  Skipped (reason printed) when wgpu or a
WebGPU adapter is missing.
"""

from __future__ import annotations

import gc
import math

import pytest

import webtensor as wt
from webtensor.api import _common

# NumPy is the oracle here; under Pyodide without it the module is skipped, not broken.
np = pytest.importorskip("numpy")

from _gpu import webgpu_or_skip  # noqa: E402

GPU, CPU, B = webgpu_or_skip()

pytestmark = pytest.mark.soak

TOTAL_OPS = 10_000
CHECK_EVERY = 40
SHAPE = (8, 8)

# One iteration: (name, step).  A step takes the iteration's namespace (inputs ``a`` and ``i``,
# the device, the accumulator and every earlier result) and returns a tensor (kept under
# ``name``) or None (in-place steps).  Each step is one library call.
STEPS = [
    ("twice", lambda e: e["a"] * 2.0),
    ("b", lambda e: e["twice"] + 1.0),
    ("sin", lambda e: wt.sin(e["b"])),
    ("abs_sin", lambda e: wt.abs(e["sin"])),
    ("positive", lambda e: e["b"] > 0),
    ("neg", lambda e: -e["b"]),
    ("w", lambda e: wt.where(e["positive"], e["b"], e["neg"])),
    ("scaled", lambda e: e["b"] * 8.0),
    ("ints", lambda e: wt.astype(e["scaled"], wt.int32)),
    ("unsigned", lambda e: wt.astype(e["ints"], wt.uint32)),
    ("bits", lambda e: e["unsigned"] ^ 0x5A5A5A5A),
    ("col_sums", lambda e: wt.sum(e["w"], axis=0)),
    ("row_max", lambda e: wt.max(e["ints"], axis=1)),
    ("mean", lambda e: wt.mean(e["abs_sin"])),
    ("a_t", lambda e: wt.matrix_transpose(e["a"])),
    ("gram", lambda e: e["a"] @ e["a_t"]),
    ("strided", lambda e: e["gram"][1:7:2, ::-1]),
    ("flat", lambda e: wt.reshape(e["ints"], (64,))),
    ("picked", lambda e: e["w"][e["rows"]]),
    ("first_row", lambda e: e["ints"][0]),
    ("acc_row", lambda e: e["acc"][e["i"] % SHAPE[0]]),
    ("acc_sum", lambda e: e["acc_row"] + e["first_row"]),
    ("set_row", lambda e: e["acc"].__setitem__(e["i"] % SHAPE[0], e["acc_sum"])),
    ("cols", lambda e: e["ints"][:, :2]),
    ("set_cols", lambda e: e["acc"].__setitem__((slice(None), slice(2, 4)), e["cols"])),
    ("uniform", lambda e: wt.random.uniform(e["key"], (16,), device=e["device"])),
    ("order", lambda e: wt.argsort(e["flat"])),
    ("sorted", lambda e: wt.sort(e["w"], axis=0, descending=True)),
]
ITERATIONS = math.ceil(TOTAL_OPS / len(STEPS))
# Names whose float results may differ in the last bits between devices (builtins, sums).
INEXACT = {"sin", "abs_sin", "col_sums", "mean", "gram", "strided"}


def iteration(i: int, device, acc) -> dict:
    rng = np.random.default_rng(i)
    env = {"i": i, "device": device, "acc": acc, "key": wt.random.key(i),
           "a": wt.asarray(rng.standard_normal(SHAPE, dtype=np.float32), device=device),
           "rows": wt.asarray(rng.integers(0, SHAPE[0], 5), device=device)}
    for name, step in STEPS:
        result = step(env)
        if result is not None:
            env[name] = result
    return env


def compare(gpu_env: dict, cpu_env: dict, i: int) -> None:
    for name, _ in STEPS:
        if name not in cpu_env:
            continue
        got, want = np.asarray(gpu_env[name].to_device("cpu")), np.asarray(cpu_env[name])
        assert got.dtype == want.dtype and got.shape == want.shape, (i, name)
        if name in INEXACT:
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg=f"{i} {name}")
        else:
            assert got.tobytes() == want.tobytes(), f"iteration {i}: {name} differs"


def cached_scalar_buffers() -> tuple[int, int]:
    """Buffers (count, bytes) of the frontend's bounded cache of scalar operands on webgpu
    (``x * 2.0`` in a loop reuses one 0-d tensor and its stretched views, which share its
    buffer): alive by design, not a leak.  Constants kept on the host hold no GPU buffer until
    a kernel binds one."""
    held = {id(t._data): t._data for t in _common._SCALARS.values()
            if t.device.name == "webgpu" and t._data.handle is not None}
    return len(held), sum(data.size for data in held.values())


def test_soak_mixed_ops_then_no_live_buffers():
    gc.collect()
    baseline = wt.memory_stats("webgpu")
    cached_before = cached_scalar_buffers()
    created_before = baseline.get("buffers_created", 0)

    acc = wt.zeros(SHAPE, dtype=wt.int32, device="webgpu")
    cpu_acc = wt.zeros(SHAPE, dtype=wt.int32, device="cpu")
    for i in range(ITERATIONS):
        env = iteration(i, "webgpu", acc)
        cpu_env = iteration(i, "cpu", cpu_acc)  # cheap; keeps the accumulators in step
        if i % CHECK_EVERY == 0 or i == ITERATIONS - 1:
            compare(env, cpu_env, i)
            assert np.asarray(acc.to_device("cpu")).tobytes() == np.asarray(cpu_acc).tobytes()
    assert ITERATIONS * len(STEPS) >= TOTAL_OPS

    during = wt.memory_stats("webgpu")
    del env, cpu_env, acc, cpu_acc
    gc.collect()
    after = wt.memory_stats("webgpu")
    cached = [now - before for now, before in zip(cached_scalar_buffers(), cached_before)]
    assert cached[0] <= len(STEPS), "the scalar cache grew with the iterations"
    assert after["live_buffers"] == baseline["live_buffers"] + cached[0], (baseline, after)
    assert after["live_bytes"] == baseline["live_bytes"] + cached[1], (baseline, after)
    # The pool recycles freed buffers: far fewer creations than operations, bounded pool.
    assert during.get("buffers_created", 0) - created_before < TOTAL_OPS // 10, during
    assert after["pooled_bytes"] <= wt.asarray(0, device="webgpu").device.backend.memory.pool_bytes
