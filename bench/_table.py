"""Tiny helpers shared by the benchmarks: timing with repeats and a plain-text table."""

from __future__ import annotations

import timeit


def per_call(fn, *, min_time: float = 0.2, repeat: int = 5) -> float:
    """Best-of-``repeat`` seconds per call of ``fn`` (the minimum is the least noisy)."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, int(number * min_time / 0.2))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def print_table(title: str, header: list[str], rows: list[list]) -> None:
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n{title}")
    for i, row in enumerate(cells):
        print("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)))
        if i == 0:
            print("  " + "  ".join("-" * w for w in widths))
