"""``python -m webtensor``: a short tour, device info, and promotion tables in the terminal.

    python -m webtensor                      # info + a small example
    python -m webtensor promotion safe       # the full table of one mode
    python -m webtensor promotion all numpy  # the cells where two modes differ
"""

from __future__ import annotations

import argparse

import webtensor as wt
from webtensor.promotion import MODES


def _label(node) -> str:
    return node.short if hasattr(node, "short") else node.name


def print_table(mode: str, other: str | None = None) -> None:
    table = MODES[mode].table()
    labels = [_label(t) for t in MODES[mode].types()]
    if other is not None:
        theirs = MODES[other].table()
        diffs = [(a, b, table[a, b], theirs.get((a, b), "-")) for a in labels for b in labels
                 if (a, b) in theirs and table[a, b] != theirs[a, b]]
        print(f"{len(diffs)} cells differ between {mode!r} and {other!r}:")
        for a, b, mine, their in diffs:
            print(f"  {a:>5} + {b:<5}  {mode}: {mine:<6} {other}: {their}")
        return
    width = max(len(v) for v in table.values()) + 1
    print(f"promotion mode {mode!r}: {MODES[mode].description}")
    print(" " * 6 + "".join(x.rjust(width) for x in labels))
    for a in labels:
        print(a.rjust(6) + "".join(table[a, b].rjust(width) for b in labels))


def tour() -> None:
    backend = wt.default_device().backend.name
    print(f"webtensor {wt.__version__}: devices {[d.name for d in wt.devices()]}, "
          f"CPU backend {backend!r}, promotion mode {wt.get_promotion_mode()!r}")
    x = wt.asarray([[1, 2, 3], [4, 5, 6]], dtype=wt.int8)
    print("\nx =", repr(x))
    print("x + 1    ->", repr(x + 1), "  (a Python int is weak: int8 stays int8)")
    print("x * 0.5  ->", repr(x * 0.5))
    for mode in ("standard", "all", "safe", "numpy", "strict", "nx"):
        with wt.promotion_mode(mode):
            try:
                result = wt.result_type(wt.int32, wt.float32).name
            except TypeError:
                result = "TypePromotionError"
        print(f"int32 + float32 in {mode!r:>10}: {result}")
    print("\nMore: python -m webtensor promotion MODE [OTHER_MODE]")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m webtensor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    promo = sub.add_parser("promotion", help="print a promotion table or compare two modes")
    promo.add_argument("mode", choices=list(MODES), nargs="?", default="standard")
    promo.add_argument("other", choices=list(MODES), nargs="?")
    args = parser.parse_args(argv)
    if args.command == "promotion":
        print_table(args.mode, args.other)
    else:
        tour()


if __name__ == "__main__":
    main()
