"""Writes nx_v04.json: Nx v0.4's result types of a binary operation (``Nx.add`` and friends).

Nx decides the type of ``op(a, b)`` with ``binary_type``: two numbers -> ``Nx.Type.infer`` of
their sum; a tensor and a number -> ``Nx.Type.merge_number(type, number)``; two tensors ->
``Nx.Type.merge(type_a, type_b)``.  Below, those functions transcribed clause by clause from Nx
v0.4's ``lib/nx/type.ex`` (independently of webtensor's own ``promotion.py``), checked against
every example of their documentation, then tabulated with webtensor's labels.  Nx has no bool
type: its cells are "n/a".  The weak types are Python numbers, labelled by value (``-200*`` is
the Python int -200).

Run: python tests/golden/promotion/make_nx_v04.py
"""

import json
import pathlib

KIND_RANK = {"c": 4, "f": 3, "bf": 2, "s": 1, "u": 0}  # Nx's type_to_int


def merge(left, right):
    if left[0] == right[0]:
        return (left[0], max(left[1], right[1]))
    a, b = (left, right) if KIND_RANK[left[0]] < KIND_RANK[right[0]] else (right, left)
    if a[0] == "u" and b[0] == "s":
        return ("s", max(min(a[1] * 2, 64), b[1]))
    return b


def unsigned_size(x):
    for limit, size in ((1, 1), (255, 8), (65535, 16), (4_294_967_295, 32)):
        if x <= limit:
            return size
    return 64


def signed_size(x):
    if x < 0:
        return signed_size(-x - 1)
    for limit, size in ((1, 1), (127, 8), (32767, 16), (2_147_483_647, 32)):
        if x <= limit:
            return size
    return 64


def merge_number(t, number):
    kind, size = t
    if kind == "u" and isinstance(number, int) and number >= 0:
        return ("u", max(unsigned_size(number), size))
    if kind == "u" and isinstance(number, int):
        return merge_number(("s", min(size * 2, 64)), number)
    if kind == "s" and isinstance(number, int):
        return ("s", max(signed_size(number), size))
    if kind in ("bf", "f", "c"):
        return t
    return ("f", 32)


def infer(number):
    return ("s", 64) if isinstance(number, int) else ("f", 32)


def binary_type(a, b):
    if not isinstance(a, tuple) and not isinstance(b, tuple):
        return infer(a + b)
    if not isinstance(a, tuple):
        return merge_number(b, a)
    if not isinstance(b, tuple):
        return merge_number(a, b)
    return merge(a, b)


# Every example of Nx.Type.merge/2 and merge_number/2 in Nx v0.4's documentation.
MERGE_DOCS = [
    (("s", 8), ("s", 8), ("s", 8)), (("s", 8), ("s", 64), ("s", 64)),
    (("s", 8), ("u", 8), ("s", 16)), (("s", 16), ("u", 8), ("s", 16)),
    (("s", 8), ("u", 16), ("s", 32)), (("s", 32), ("u", 8), ("s", 32)),
    (("s", 8), ("u", 32), ("s", 64)), (("s", 64), ("u", 8), ("s", 64)),
    (("s", 8), ("u", 64), ("s", 64)), (("u", 8), ("f", 32), ("f", 32)),
    (("u", 64), ("f", 32), ("f", 32)), (("s", 8), ("f", 32), ("f", 32)),
    (("s", 64), ("f", 32), ("f", 32)), (("u", 8), ("f", 64), ("f", 64)),
    (("u", 64), ("f", 64), ("f", 64)), (("s", 8), ("f", 64), ("f", 64)),
    (("s", 64), ("f", 64), ("f", 64)), (("u", 8), ("bf", 16), ("bf", 16)),
    (("u", 64), ("bf", 16), ("bf", 16)), (("s", 8), ("bf", 16), ("bf", 16)),
    (("s", 64), ("bf", 16), ("bf", 16)), (("f", 32), ("bf", 16), ("f", 32)),
    (("f", 64), ("bf", 16), ("f", 64)), (("c", 64), ("f", 32), ("c", 64)),
    (("c", 64), ("c", 64), ("c", 64)), (("c", 128), ("c", 64), ("c", 128)),
]
MERGE_NUMBER_DOCS = [
    (("u", 8), 0, ("u", 8)), (("u", 8), 255, ("u", 8)), (("u", 8), 256, ("u", 16)),
    (("u", 8), -1, ("s", 16)), (("u", 8), -32767, ("s", 16)), (("u", 8), -32768, ("s", 16)),
    (("u", 8), -32769, ("s", 32)), (("s", 8), 0, ("s", 8)), (("s", 8), 127, ("s", 8)),
    (("s", 8), -128, ("s", 8)), (("s", 8), 128, ("s", 16)), (("s", 8), -129, ("s", 16)),
    (("s", 8), 1.0, ("f", 32)), (("u", 64), -1337, ("s", 64)), (("f", 32), 1, ("f", 32)),
    (("f", 32), 1.0, ("f", 32)), (("f", 64), 1.0, ("f", 64)),
]

LABELS = {("u", 8): "u8", ("u", 16): "u16", ("u", 32): "u32", ("u", 64): "u64",
          ("s", 8): "i8", ("s", 16): "i16", ("s", 32): "i32", ("s", 64): "i64",
          ("bf", 16): "bf16", ("f", 16): "f16", ("f", 32): "f32", ("f", 64): "f64",
          ("c", 64): "c64", ("c", 128): "c128"}
NUMBERS = {"1*": 1, "200*": 200, "300*": 300, "-1*": -1, "-200*": -200, "1.0*": 1.0}
ORDER = ["b", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "bf16", "f16", "f32", "f64",
         "c64", "c128"]


def main() -> None:
    for a, b, want in MERGE_DOCS:
        assert merge(a, b) == want == merge(b, a), (a, b)
    for t, number, want in MERGE_NUMBER_DOCS:
        assert merge_number(t, number) == want, (t, number)
    operands = {label: t for t, label in LABELS.items()} | NUMBERS
    types = ORDER + list(NUMBERS)
    table = {}
    for a in types:
        for b in types:
            if "b" in (a, b):
                table[f"{a},{b}"] = "n/a"
            else:
                table[f"{a},{b}"] = LABELS[binary_type(operands[a], operands[b])]
    out = {"source": "Nx v0.4 lib/nx/type.ex (merge, merge_number, infer) and Nx's binary_type",
           "types": types, "table": table}
    path = pathlib.Path(__file__).with_name("nx_v04.json")
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
