"""result_type cost per call, against a plain dict lookup measured in the same run.

Target (issue 2): a dtype pair is a table lookup after the first call, under 1 µs natively.
Run: PYTHONPATH=core python bench/bench_promotion.py
"""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "core"))

from _table import per_call, print_table  # noqa: E402

import webtensor as wt  # noqa: E402


def main() -> None:
    table = {(wt.int8, wt.uint32): wt.int64}
    baseline = per_call(lambda: table[wt.int8, wt.uint32])
    rows = []
    cases = [
        ("2 dtypes", (wt.int8, wt.uint32)),
        ("2 dtypes, weak result", (wt.uint64, wt.int8)),
        ("dtype + Python int", (wt.int8, 1)),
        ("dtype + Python float", (wt.int8, 1.0)),
        ("4 dtypes", (wt.int8, wt.uint8, wt.float16, wt.bfloat16)),
    ]
    for mode in ("standard", "all", "safe", "numpy"):
        with wt.promotion_mode(mode):
            for label, args in cases:
                try:
                    wt.result_type(*args)
                except TypeError:
                    continue  # refused in this mode
                t = per_call(lambda args=args: wt.result_type(*args))
                rows.append([mode, label, f"{t * 1e9:.0f}", f"{t / baseline:.1f}x"])
    print_table(f"wt.result_type per call (baseline dict lookup: {baseline * 1e9:.0f} ns)",
                ["mode", "operands", "ns/call", "vs dict"], rows)


if __name__ == "__main__":
    main()
