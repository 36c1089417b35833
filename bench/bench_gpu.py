"""The webgpu device on a real GPU: matmul GFLOP/s and elementwise GB/s as fractions of the
GPU's peak, against PyTorch on the same GPU in the same run (when PyTorch sees a CUDA device),
and the matmul kernel shapes side by side (the numbers behind ``matmul.DIRECT_TILES["gpu"]``).

On a GPU one dispatch of a 1M-element op takes microseconds, less than submitting it and
waiting for it, so every row queues ``reps`` calls and then waits once (a one-element read);
PyTorch's rows likewise queue and then synchronize.  Times are the best of three rounds.
``--peak-tflops``/``--peak-gbs``: the GPU's float32 rate and memory bandwidth (datasheet
figures) for the "% of peak" columns; PyTorch's own rate, measured here, is the practical one.

Run: PYTHONPATH=core python bench/bench_gpu.py --peak-tflops 67 --peak-gbs 4800 [--quick]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "core"))

import numpy as np  # noqa: E402
from _table import print_table  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor.api import _reduce  # noqa: E402  (the scatter primitive the API builds on)
from webtensor.backends.webgpu import matmul as _matmul  # noqa: E402

GPU = "webgpu"
ROUND = 0.15  # seconds each timed round aims at


def sync(t) -> None:
    """Submit what is queued and wait for it: read one element."""
    wt.reshape(t, (-1,))[:1].tobytes()


def best_time(queue, wait) -> float:
    """Seconds per call of ``queue`` (which queues work and returns something ``wait`` waits
    for): one untimed call (compiles), one to size the rounds, then the best of three."""
    wait(queue())
    start = time.perf_counter()
    wait(queue())
    once = max(time.perf_counter() - start, 1e-6)
    reps = max(1, min(200, int(ROUND / once)))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            out = queue()
        wait(out)
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def ours(fn) -> float:
    return best_time(fn, sync)


def torch_cuda():
    """PyTorch with a CUDA device (TF32 off: float32 products in float32), or None."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch


def theirs(torch, fn) -> float | None:
    if torch is None:
        return None
    return best_time(fn, lambda _: torch.cuda.synchronize())


def size(n: int) -> str:
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}K"


def cells(value: float | None, fmt: str = "{:.0f}") -> str:
    return "-" if value is None else fmt.format(value)


def matmul_rows(sizes, torch, peak_tflops) -> list[list]:
    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        a_np = rng.standard_normal((n, n), dtype=np.float32)
        b_np = rng.standard_normal((n, n), dtype=np.float32)
        a, b = wt.asarray(a_np, device=GPU), wt.asarray(b_np, device=GPU)
        flops = 2.0 * n ** 3
        t = ours(lambda a=a, b=b: a @ b)
        t_ref = None
        if torch is not None:
            ta, tb = torch.from_numpy(a_np).cuda(), torch.from_numpy(b_np).cuda()
            t_ref = theirs(torch, lambda ta=ta, tb=tb: ta @ tb)
        rate = flops / t / 1e9
        ref = None if t_ref is None else flops / t_ref / 1e9
        rows.append([f"matmul {n}^2 f32", f"{t * 1e3:.2f}", cells(t_ref and t_ref * 1e3, "{:.2f}"),
                     f"{rate:.0f}", cells(ref), f"{100 * rate / (peak_tflops * 1e3):.1f}%",
                     cells(ref and rate / ref, "{:.2f}x")])
    return rows


def kernel_rows(sizes, tiles) -> list[list]:
    """One float32 product per kernel shape: matmul_direct.wgsl with each register tile, and
    matmul.wgsl (operands staged through workgroup memory)."""
    rng = np.random.default_rng(1)
    kind = next(d for d in wt.devices() if d.name == GPU).backend.adapter_class
    saved_tiles, saved_mode = dict(_matmul.DIRECT_TILES[kind]), _matmul._direct_mode
    rows = []
    try:
        for n in sizes:
            a = wt.asarray(rng.standard_normal((n, n), dtype=np.float32), device=GPU)
            b = wt.asarray(rng.standard_normal((n, n), dtype=np.float32), device=GPU)
            rates = []
            for tile in [*tiles, "tiled"]:
                _matmul.direct_tile.cache_clear()
                if tile == "tiled":
                    _matmul._direct_mode = lambda *args: None
                else:
                    _matmul.DIRECT_TILES[kind] = {tile: 1.0}
                rates.append(2.0 * n ** 3 / ours(lambda a=a, b=b: a @ b) / 1e9)
                _matmul._direct_mode = saved_mode
            rows.append([f"{n}^2"] + [f"{r:.0f}" for r in rates])
    finally:
        _matmul.DIRECT_TILES[kind] = saved_tiles
        _matmul._direct_mode = saved_mode
        _matmul.direct_tile.cache_clear()
    return rows


def bandwidth_rows(n, torch, peak_gbs) -> list[list]:
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal(n, dtype=np.float32)
    y_np = rng.standard_normal(n, dtype=np.float32)
    x, y = wt.asarray(x_np, device=GPU), wt.asarray(y_np, device=GPU)
    tx = ty = None
    if torch is not None:
        tx, ty = torch.from_numpy(x_np).cuda(), torch.from_numpy(y_np).cuda()
    cases = [
        ("x + y", 12 * n, lambda: x + y, lambda: tx + ty),
        ("x * 2.5", 8 * n, lambda: x * 2.5, lambda: tx * 2.5),
        ("copy", 8 * n, lambda: wt.asarray(x, copy=True), lambda: tx.clone()),
        ("sum, fast", 4 * n, lambda: _precise("fast", wt.sum, x), lambda: tx.sum()),
        ("sum, exact", 4 * n, lambda: _precise("exact", wt.sum, x), lambda: tx.sum()),
    ]
    rows = []
    for label, nbytes, fn, fn_ref in cases:
        t = ours(fn)
        t_ref = theirs(torch, fn_ref)
        rate = nbytes / t / 1e9
        ref = None if t_ref is None else nbytes / t_ref / 1e9
        rows.append([f"{label}, {size(n)} f32", f"{t * 1e6:.0f}", cells(t_ref and t_ref * 1e6),
                     f"{rate:.0f}", cells(ref), f"{100 * rate / peak_gbs:.1f}%",
                     cells(ref and rate / ref, "{:.2f}x")])
    return rows


def _precise(mode, fn, *args):
    with wt.set_precision(mode):
        return fn(*args)


def chain(x):
    return wt.exp(wt.sqrt(wt.abs(wt.sin(x * 1.5 + 0.5) ** 2 - 0.25)))


def chain_rows(n, torch) -> list[list]:
    """The 8-op chain of bench_jit.py, jitted (one fused kernel) in both precisions, against
    PyTorch's eager ops (one kernel each)."""
    x = wt.linspace(-3, 3, n, dtype=wt.float32, device=GPU)
    jitted = wt.jit(chain)
    t_ref = None
    if torch is not None:
        tx = torch.linspace(-3, 3, n, dtype=torch.float32, device="cuda")
        t_ref = theirs(torch, lambda: torch.exp(torch.sqrt(torch.abs(
            torch.sin(tx * 1.5 + 0.5) ** 2 - 0.25))))
    rows = []
    for mode in ("fast", "exact"):
        t = ours(lambda mode=mode: _precise(mode, jitted, x))
        rows.append([f"jit chain, {mode}, {size(n)} f32", f"{t * 1e6:.0f}",
                     cells(t_ref and t_ref * 1e6), f"{8 * n / t / 1e9:.0f}",
                     cells(t_ref and t_ref / t, "{:.2f}x")])
    return rows


def sort_rows(n, torch) -> list[list]:
    rng = np.random.default_rng(3)
    x_np = rng.standard_normal(n, dtype=np.float32)
    idx_np = rng.integers(0, n, n)
    x, idx = wt.asarray(x_np, device=GPU), wt.asarray(idx_np, device=GPU)
    base = wt.zeros(n, dtype=wt.float32, device=GPU)
    tx = tidx = tbase = None
    if torch is not None:
        tx, tidx = torch.from_numpy(x_np).cuda(), torch.from_numpy(idx_np).cuda()
        tbase = torch.zeros(n, dtype=torch.float32, device="cuda")
    cases = [
        ("sort", lambda: wt.sort(x), lambda: torch.sort(tx, stable=True)[0]),
        ("argsort", lambda: wt.argsort(x), lambda: torch.sort(tx, stable=True)[1]),
        ("scatter-add", lambda: _reduce.scatter("add", base, 0, idx, x),
         lambda: tbase.index_add(0, tidx, tx)),
    ]
    rows = []
    for label, fn, fn_ref in cases:
        t = ours(fn)
        t_ref = theirs(torch, fn_ref)
        rows.append([f"{label} {size(n)} f32", f"{t * 1e3:.2f}", cells(t_ref and t_ref * 1e3,
                     "{:.2f}"), cells(t_ref and t_ref / t, "{:.2f}x")])
    return rows


def overhead_rows(torch, ops: int = 1000) -> list[list]:
    x = wt.ones(4, dtype=wt.float32, device=GPU)

    def many():
        y = x
        for _ in range(ops):
            y = y + 1.0
        return y
    t = ours(many) / ops
    t_ref = None
    if torch is not None:
        tx = torch.ones(4, dtype=torch.float32, device="cuda")

        def many_ref():
            y = tx
            for _ in range(ops):
                y = y + 1.0
            return y
        t_ref = theirs(torch, many_ref) / ops
    return [[f"x + 1.0, 4 elements ({ops} ops, one wait)", f"{t * 1e6:.1f}",
             cells(t_ref and t_ref * 1e6, "{:.1f}"), cells(t_ref and t_ref / t, "{:.2f}x")]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peak-tflops", type=float, default=67.0,
                        help="the GPU's float32 TFLOP/s (default: an H100/H200's 67)")
    parser.add_argument("--peak-gbs", type=float, default=4800.0,
                        help="the GPU's memory bandwidth in GB/s (default: an H200's 4800)")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--only", default="", help="comma-separated sections to run")
    parser.add_argument("--tiles", default="4x4,4x8,8x4,8x8",
                        help="register tiles (rows x columns) of the kernels section")
    parser.add_argument("--kernel-sizes", default="2048,4096",
                        help="matrix sizes of the kernels section")
    args = parser.parse_args()
    info = wt.device_info(GPU)
    adapter = info["adapter"]
    print(f"webgpu adapter: {adapter.get('device') or adapter.get('vendor')} "
          f"({adapter.get('adapter_type')}, {adapter.get('backend_type')}; "
          f"{adapter.get('description')}), driver {info['driver']}")
    torch = torch_cuda()
    print("baseline: " + (f"PyTorch {torch.__version__} on {torch.cuda.get_device_name()}"
                          if torch else "none (no PyTorch with CUDA)"))
    quick = args.quick
    only = set(filter(None, args.only.split(",")))

    head = ["case", "webgpu", "torch"]
    tiles = [tuple(int(v) for v in t.split("x")) for t in args.tiles.split(",")]
    kernel_sizes = [int(v) for v in args.kernel_sizes.split(",")]
    sections = {
        "matmul": ("matmul (ms; GFLOP/s; ratio: webgpu speed / torch speed)",
                   head + ["webgpu GFLOP/s", "torch GFLOP/s", "of peak", "ratio"],
                   lambda: matmul_rows((256, 512) if quick else (1024, 2048, 4096), torch,
                                       args.peak_tflops)),
        "kernels": ("matmul kernels (GFLOP/s): matmul_direct.wgsl by register tile, matmul.wgsl",
                    ["size"] + [f"{r}x{c}" for r, c in tiles] + ["tiled"],
                    lambda: kernel_rows((256,) if quick else kernel_sizes, tiles)),
        "bandwidth": ("elementwise, copy and sum (µs; GB/s of input + output)",
                      head + ["webgpu GB/s", "torch GB/s", "of peak", "ratio"],
                      lambda: [row for n in ((1 << 20,) if quick else (1 << 24, 1 << 25))
                               for row in bandwidth_rows(n, torch, args.peak_gbs)]),
        "chain": ("8-op chain (µs; GB/s: one read and one write per op; ratio: torch eager "
                  "time / ours)", head + ["webgpu GB/s", "ratio"],
                  lambda: chain_rows(1 << (20 if quick else 24), torch)),
        "sort": ("sort and scatter-add (ms)", head + ["ratio"],
                 lambda: [row for n in ((1 << 16,) if quick else (1 << 20, 1 << 24))
                          for row in sort_rows(n, torch)]),
        "overhead": ("per-op overhead on a tiny tensor (µs per op)", head + ["ratio"],
                     lambda: overhead_rows(torch)),
    }
    for name, (title, header, rows) in sections.items():
        if only and name not in only:
            continue
        try:
            print_table(title, header, rows())
        except Exception:  # reported; the other sections still run
            print(f"\n{title}: failed")
            traceback.print_exc(file=sys.stdout)


if __name__ == "__main__":
    main()
