"""Per-op overhead of webtensor's CPU device against calling NumPy directly, same run, in the
exact precision mode (the default) and the fast one (``wt.set_precision("fast")``), small and
large arrays.

Target: within 10 µs per op on 1,000-element float32 tensors with the NumPy backend; large
arrays within 10% of NumPy in fast mode.  Also reports the pure-Python backend's throughput.
Each cell is the median over ``--runs`` passes (default 3) of the best of 40 short timings,
webtensor's and NumPy's taken in turn.
Run: PYTHONPATH=core python bench/bench_cpu.py [--runs N]
"""

from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import timeit

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "core"))

import numpy as np  # noqa: E402
from _table import per_call, print_table  # noqa: E402

import webtensor as wt  # noqa: E402
from webtensor.backends.cpu_python import PythonBackend  # noqa: E402
from webtensor.device import Device  # noqa: E402

RUNS = 3  # passes of each table; a cell is the median of its passes


def overhead_table() -> None:
    a_np = np.linspace(0.5, 2.0, 1000, dtype=np.float32)
    b_np = a_np[::-1].copy()
    m_np = a_np[:900].reshape(30, 30)
    a, b, m = wt.asarray(a_np), wt.asarray(b_np), wt.asarray(m_np)
    cases = [
        ("x + y", lambda: a + b, lambda: a_np + b_np),
        ("x * 2.0", lambda: a * 2.0, lambda: a_np * np.float32(2.0)),
        ("sqrt(x)", lambda: wt.sqrt(a), lambda: np.sqrt(a_np)),
        ("x < y", lambda: a < b, lambda: a_np < b_np),
        ("sum(x)", lambda: wt.sum(a), lambda: np.sum(a_np)),
        ("max(x)", lambda: wt.max(a), lambda: np.max(a_np)),
        ("mean(x)", lambda: wt.mean(a), lambda: np.mean(a_np)),
        ("sum(m, axis=0)", lambda: wt.sum(m, axis=0), lambda: np.sum(m_np, axis=0)),
        ("x[10:500:3]", lambda: a[10:500:3], lambda: a_np[10:500:3]),
        ("reshape", lambda: wt.reshape(a, (10, 100)), lambda: a_np.reshape(10, 100)),
        ("m @ m (30x30)", lambda: m @ m, lambda: m_np @ m_np),
        ("astype(f16)", lambda: wt.astype(a, wt.float16), lambda: a_np.astype(np.float16)),
    ]
    print_table("NumPy backend, 1,000 float32 elements (µs per call)",
                ["op", "exact", "fast", "numpy", "fast overhead", "fast ratio"],
                _rows(cases, 1e6))


def _best_interleaved(ours, theirs) -> tuple[float, float, float]:
    """Seconds per call of ``ours`` in exact and fast mode and of ``theirs``: the best of 40
    short (~5 ms) timings each, taken in turn, so that all three see the same moments of a
    shared machine and its best ones are windows nobody preempted."""
    timers = [(timeit.Timer(ours), "exact"), (timeit.Timer(ours), "fast"),
              (timeit.Timer(theirs), "exact")]
    numbers = []
    for timer, mode in timers:
        with wt.set_precision(mode):
            numbers.append(max(1, int(timer.autorange()[0] * 0.005 / 0.2)))
    best = [math.inf] * 3
    for _ in range(40):
        for i, ((timer, mode), number) in enumerate(zip(timers, numbers)):
            with wt.set_precision(mode):
                best[i] = min(best[i], timer.timeit(number) / number)
    return best[0], best[1], best[2]


def _rows(cases, scale) -> list[list]:
    times = {label: [] for label, _, _ in cases}
    for _ in range(RUNS):  # whole passes: a noisy stretch spoils one sample of each row
        for label, ours, theirs in cases:
            times[label].append(_best_interleaved(ours, theirs))
    rows = []
    for label, samples in times.items():
        t_exact, t_fast, t_np = (statistics.median(column) for column in zip(*samples))
        rows.append([label, f"{t_exact * scale:.1f}", f"{t_fast * scale:.1f}",
                     f"{t_np * scale:.1f}", f"{(t_fast - t_np) * scale:.1f}",
                     f"{t_fast / t_np:.2f}x"])
    return rows


def large_table() -> None:
    a_np = np.linspace(0.5, 2.0, 1 << 22, dtype=np.float32)
    m_np = np.linspace(-1.0, 1.0, 512 * 512, dtype=np.float32).reshape(512, 512)
    a, m = wt.asarray(a_np), wt.asarray(m_np)
    b_np = a_np[::-1].copy()
    b = wt.asarray(b_np)
    two, one = np.float32(2), np.float32(1)
    t_np, u_np = np.empty_like(a_np), np.empty_like(a_np)
    cases = [
        ("x * 2.0 (4M)", lambda: a * 2.0, lambda: a_np * two),
        ("x + y (4M)", lambda: a + b, lambda: a_np + b_np),
        ("sin(x) (4M)", lambda: wt.sin(a), lambda: np.sin(a_np)),
        # NumPy writes the second op into the first one's temporary (temporary elision, a
        # reference-count test only C code can make); the next row's NumPy writes it into a
        # second buffer instead, as webtensor must (allocated beforehand: no page faults)
        ("x * 2.0 + 1.0 (4M)", lambda: a * 2.0 + 1.0, lambda: a_np * two + one),
        ("  NumPy, 2 buffers", lambda: a * 2.0 + 1.0,
         lambda: np.add(np.multiply(a_np, two, out=t_np), one, out=u_np)),
        ("sum(x) (4M)", lambda: wt.sum(a), lambda: np.sum(a_np)),
        ("max(x) (4M)", lambda: wt.max(a), lambda: np.max(a_np)),
        ("m @ m (512)", lambda: m @ m, lambda: m_np @ m_np),
    ]
    print_table("NumPy backend, large float32 (ms per call)",
                ["op", "exact", "fast", "numpy", "fast overhead", "fast ratio"],
                _rows(cases, 1e3))


def python_throughput() -> None:
    dev = Device("cpu-python", PythonBackend)
    rows = []
    for n in (1_000, 100_000):
        x = wt.asarray([float(i % 97) for i in range(n)], dtype=wt.float32, device=dev)
        y = wt.asarray([float(i % 89) + 1 for i in range(n)], dtype=wt.float32, device=dev)
        for label, fn in [("x + y", lambda x=x, y=y: x + y), ("sin(x)", lambda x=x: wt.sin(x)),
                          ("sum(x)", lambda x=x: wt.sum(x))]:
            t = per_call(fn, repeat=3)
            rows.append([label, f"{n:,}", f"{t * 1e3:.2f}", f"{n / t / 1e6:.2f}"])
    print_table("pure-Python backend throughput", ["op", "elements", "ms/call", "M elem/s"],
                rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS, help="passes per cell (median)")
    RUNS = parser.parse_args().runs
    overhead_table()
    large_table()
    python_throughput()
