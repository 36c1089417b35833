"""The webgpu device against NumPy, same run: matmul GFLOP/s, elementwise and reduction GB/s,
sorts and scatter-adds, and the per-op cost of recording a dispatch.

Each GPU timing ends with a one-element read, which submits the recorded work and waits for
it, so it measures the device finishing the work (inputs already on the device).  Whatever
the backend does is measured: a primitive still routed to the CPU shows up as such (the
"path" column, from ``device_info``).
Run: PYTHONPATH=core python bench/bench_webgpu.py [--quick]  (``--quick``: smaller sizes)
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "core"))

import numpy as np  # noqa: E402
from _table import per_call, print_table  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor.api import _reduce  # noqa: E402  (the scatter primitive the API builds on)

GPU = "webgpu"
REPEAT = 3
TINY_OPS = 1000  # dispatches recorded per overhead measurement, one flush at the end


def sync(t) -> None:
    """Wait for ``t``: reading one element submits the pending batch and waits for the queue."""
    wt.reshape(t, (-1,))[:1].tobytes()


def path(primitive: str, dtype=wt.float32) -> str:
    """How the backend runs ``primitive`` (functions built on several: their own name)."""
    row = wt.device_info(GPU)["primitives"].get(primitive)
    return row[dtype.name] if row else f"({primitive})"


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}x"


def matmul_row(m: int, k: int, n: int, rng, transpose_a: bool = False,
               dtype: str = "float32") -> list:
    """(m x k) @ (k x n); ``transpose_a``: A is the transposed view of a k x m array (a weight
    gradient's x.T @ g), read through its strides on both sides."""
    a_np = rng.standard_normal((k, m) if transpose_a else (m, k), dtype=np.float32).astype(dtype)
    b_np = rng.standard_normal((k, n), dtype=np.float32).astype(dtype)
    a, b = wt.asarray(a_np, device=GPU), wt.asarray(b_np, device=GPU)
    if transpose_a:
        a, a_np = wt.matrix_transpose(a), a_np.T
    t_gpu = per_call(lambda: sync(a @ b), min_time=0.2, repeat=REPEAT)
    t_np = per_call(lambda: a_np @ b_np, min_time=0.2, repeat=REPEAT)
    flops = 2.0 * m * k * n
    name = (f"matmul {m}x{n}" if m == k == n else
            f"({k}x{m}).T @ {k}x{n}" if transpose_a else f"{m}x{k} @ {k}x{n}")
    if dtype != "float32":
        name += f" {dtype}"
    return [name, path("matmul", wt.dtype(dtype)), f"{t_gpu * 1e3:.2f}", f"{t_np * 1e3:.2f}",
            f"{flops / t_gpu / 1e9:.2f}", f"{flops / t_np / 1e9:.2f}", ratio(t_np, t_gpu)]


def bandwidth_rows_at(n: int, rng) -> list[list]:
    x_np = rng.standard_normal(n, dtype=np.float32)
    y_np = rng.standard_normal(n, dtype=np.float32)
    x, y = wt.asarray(x_np, device=GPU), wt.asarray(y_np, device=GPU)
    i_np = rng.integers(-(1 << 40), 1 << 40, n)
    i = wt.asarray(i_np, device=GPU)
    cases = [
        # (label, primitive, dtype, bytes moved, webgpu call, numpy call)
        ("x + y", "binary", wt.float32, 3 * 4 * n, lambda: sync(x + y), lambda: x_np + y_np),
        ("x * 2.5", "binary", wt.float32, 2 * 4 * n, lambda: sync(x * 2.5),
         lambda: x_np * np.float32(2.5)),
        ("sum(x)", "reduce", wt.float32, 4 * n, lambda: sync(wt.sum(x)), lambda: np.sum(x_np)),
        ("concat([x, y])", "assign", wt.float32, 4 * 4 * n, lambda: sync(wt.concat([x, y])),
         lambda: np.concatenate([x_np, y_np])),
        ("copy of i", "copy", wt.int64, 2 * 8 * n, lambda: sync(wt.asarray(i, copy=True)),
         lambda: i_np.copy()),
        ("copy of i[::2]", "copy", wt.int64, 8 * n,
         lambda: sync(wt.asarray(i[::2], copy=True)), lambda: i_np[::2].copy()),
    ]
    rows = []
    for label, prim, dtype, nbytes, ours, theirs in cases:
        t_gpu = per_call(ours, min_time=0.2, repeat=REPEAT)
        t_np = per_call(theirs, min_time=0.2, repeat=REPEAT)
        rows.append([f"{label} {n / (1 << 20):g}M {dtype.short}", path(prim, dtype),
                     f"{t_gpu * 1e3:.2f}", f"{t_np * 1e3:.2f}", f"{nbytes / t_gpu / 1e9:.2f}",
                     f"{nbytes / t_np / 1e9:.2f}", ratio(t_np, t_gpu)])
    return rows


def sort_scatter_rows(n: int, rng) -> list[list]:
    """sort/argsort of ``n`` float32 (NumPy: stable sorts, as ours), scatter-add of ``n``
    float32 updates into ``n // 1024`` and ``n`` targets (NumPy: ``add.at``), searchsorted of
    ``n`` float32 into ``n // 1024`` sorted ones and the nonzero positions of an ``n`` mask."""
    x_np = rng.standard_normal(n, dtype=np.float32)
    x = wt.asarray(x_np, device=GPU)
    cases = [
        (f"sort {n >> 20}M f32", "sort", lambda: sync(wt.sort(x)),
         lambda: np.sort(x_np, kind="stable")),
        (f"argsort {n >> 20}M f32", "argsort", lambda: sync(wt.argsort(x)),
         lambda: np.argsort(x_np, kind="stable")),
    ]
    for m in (n >> 10, n):
        idx_np = rng.integers(0, m, n)
        base_np = np.zeros(m, np.float32)
        idx, base = wt.asarray(idx_np, device=GPU), wt.asarray(base_np, device=GPU)

        def ours(idx=idx, base=base):
            sync(_reduce.scatter("add", base, 0, idx, x))

        def theirs(idx_np=idx_np, base_np=base_np):
            np.add.at(base_np.copy(), idx_np, x_np)

        label = f"{m >> 10}K" if m < 1 << 20 else f"{m >> 20}M"
        cases.append((f"scatter-add {n >> 20}M into {label}", "scatter", ours, theirs))
    hay_np = np.sort(rng.standard_normal(n >> 10, dtype=np.float32))
    hay = wt.asarray(hay_np, device=GPU)
    mask_np = x_np > 0.5
    mask = wt.asarray(mask_np, device=GPU)
    cases += [
        (f"searchsorted {n >> 20}M into {n >> 20}K f32", "search_sorted",
         lambda: sync(wt.searchsorted(hay, x)), lambda: np.searchsorted(hay_np, x_np)),
        (f"nonzero of {n >> 20}M bool (31% true)", "nonzero", lambda: sync(wt.nonzero(mask)[0]),
         lambda: np.nonzero(mask_np)),
    ]
    rows = []
    for label, prim, ours, theirs in cases:
        t_gpu = per_call(ours, min_time=0.2, repeat=REPEAT)
        t_np = per_call(theirs, min_time=0.2, repeat=REPEAT)
        rows.append([label, path(prim), f"{t_gpu * 1e3:.1f}", f"{t_np * 1e3:.1f}",
                     ratio(t_np, t_gpu)])
    return rows


def overhead_rows() -> list[list]:
    """Recording cost per op on a 4-element tensor: the Python side and the driver, not the
    GPU.  Scalars that compare equal to others (0.0, -0.0, complex) and fresh scalars (a new
    value every op: each one is uploaded) are rows of their own."""
    x_np = np.ones(4, dtype=np.float32)
    z_np = np.ones(4, dtype=np.complex64)
    x, z = wt.asarray(x_np, device=GPU), wt.asarray(z_np, device=GPU)
    cases = [
        ("x + 1.0", lambda y, i: y + 1.0, lambda y, i: y + np.float32(1.0), x, x_np),
        ("maximum(x, 0.0)", lambda y, i: wt.maximum(y, 0.0),
         lambda y, i: np.maximum(y, np.float32(0.0)), x, x_np),
        ("x * (1 + i / 1e6): a new scalar every op", lambda y, i: y * (1.0 + i * 1e-6),
         lambda y, i: y * np.float32(1.0 + i * 1e-6), x, x_np),
        ("z * 1j, complex64", lambda y, i: y * 1j, lambda y, i: y * np.complex64(1j), z, z_np),
    ]
    rows = []
    for label, ours, theirs, start, start_np in cases:
        def many_gpu(ours=ours, start=start):
            y = start
            for i in range(TINY_OPS):
                y = ours(y, i)
            sync(y)

        def many_np(theirs=theirs, start_np=start_np):
            y = start_np
            for i in range(TINY_OPS):
                y = theirs(y, i)

        t_gpu = per_call(many_gpu, min_time=0.2, repeat=REPEAT) / TINY_OPS
        t_np = per_call(many_np, min_time=0.2, repeat=REPEAT) / TINY_OPS
        rows.append([f"{label}, 4 elements ({TINY_OPS} ops, 1 flush)", path("binary"),
                     f"{t_gpu * 1e6:.1f}", f"{t_np * 1e6:.1f}", ratio(t_np, t_gpu)])
    return rows


def main(quick: bool = False) -> None:
    info = wt.device_info(GPU)
    adapter = info["adapter"]
    print(f"webgpu adapter: {adapter.get('device') or adapter.get('vendor')} "
          f"({adapter.get('adapter_type')}, {adapter.get('backend_type')}; "
          f"{adapter.get('description')}), driver {info['driver']}; NumPy {np.__version__}")
    print("ratio = webgpu speed / NumPy speed (above 1x: webgpu is faster)")
    head = ["case", "path", "webgpu ms", "numpy ms"]
    rng = np.random.default_rng(0)
    print_table("matmul (GFLOP/s)", head + ["webgpu GFLOP/s", "numpy GFLOP/s", "ratio"],
                [matmul_row(n, n, n, rng) for n in ((64, 128) if quick else (256, 512, 1024))]
                # an MLP's first layer (batch 128, 784 -> 256) and its weight gradient
                + [matmul_row(128, 784, 256, rng), matmul_row(784, 128, 256, rng, True)]
                # float16 operands (cast to float32 and back: matmul.WIDENED)
                + [matmul_row(n, n, n, rng, dtype="float16") for n in ((64,) if quick else (256,))])
    sizes = (1 << 16, 1 << 20) if quick else (1 << 20, 1 << 24)
    print_table("elementwise, reduction and copies (GB/s of input + output)",
                head + ["webgpu GB/s", "numpy GB/s", "ratio"],
                [row for n in sizes for row in bandwidth_rows_at(n, rng)])
    print_table("sort, scatter-add, searchsorted, nonzero (ms)", head + ["ratio"],
                sort_scatter_rows(1 << (16 if quick else 20), rng))
    print_table("per-op overhead on a tiny tensor (µs per op)",
                ["case", "path", "webgpu µs", "numpy µs", "ratio"], overhead_rows())


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
