"""Writes docs/promotion.md from the promotion modes themselves (run: python docs/gen_promotion.py).

The tables are rendered from ``webtensor.promotion.MODES``, so the page cannot drift from the
code; ``tests/test_docs.py`` checks that the committed page is current and runs its examples.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "core"))

from webtensor.promotion import MODES  # noqa: E402

INTRO = """\
# Type promotion

When an operation combines values of different dtypes, webtensor decides the result dtype with
the active **promotion mode**. There are five, each written as data in
`core/webtensor/promotion.py` and checked cell by cell against the reference tables of the
projects they come from.

| mode | what it is | defined by |
| --- | --- | --- |
| `standard` (default) | JAX's lattice with every 64-bit type; Python scalars are weak | a lattice (JAX) |
| `all` | TensorFlow's ALL mode: the same lattice shape with *sized* weak types | a lattice (TF) |
| `safe` | TensorFlow's SAFE mode: ALL's results, refusing bit-widening or lossy promotions | TF's lattice + a rule |
| `numpy` | NumPy 2 / NEP 50; this is Ivy's *precise* mode | a promotion order + safe casts |
| `strict` | JAX's strict mode: identical dtypes only (or a scalar of the same or lower kind) | JAX's lattice + a rule |

```python
import webtensor as wt
wt.set_promotion_mode("safe")          # process-wide
with wt.promotion_mode("numpy"):       # this block, this thread / async task only
    ...
```

## Weak types

A value whose dtype was *inferred* rather than given is **weak**: Python `int`, `float` and
`complex` scalars, and tensors created from Python data without a `dtype`. A weak operand defers
to the other operand's dtype within its kind, so `x_int8 + 1` stays `int8` and
`x_float16 * 2.0` stays `float16`. `bool` is always strong. Results carry the flag (TF's
WeakTensor): weak op weak gives a weak result.

- `standard`/`strict`: weak types are `i*`, `f*`, `c*`; a weak result materializes to the
  current default dtype of its kind (`wt.default_int_dtype()` etc., int32/float32/complex64).
- `all`/`safe`: TensorFlow's sized weak types `i32*`, `i64*`, `f32*`, `f64*`, `c128*`. A Python
  int is `i32*` and an int outside the int32 range is an `OverflowError`.
- `numpy`: NEP 50 — Python scalars are weak, but results never are; scalar-only expressions give
  NumPy's 64-bit defaults (int64, float64, complex128).

In every mode a Python int that does not fit the integer dtype it ends up in (e.g. `300` with a
`uint8` tensor) raises `OverflowError` naming the value, the dtype's range and the fix.

`wt.result_type(*dtypes_or_values)` gives the materialized dtype;
`wt.result_type(..., return_weak_type_flag=True)` gives `(dtype, weak)`;
`wt.promote_types(a, b)` takes two dtypes.

## Rules beyond a lattice

- **SAFE** refuses a promotion unless its result is the dtype of one of the operands and every
  other operand is weak or converts to that dtype without losing any value (int64/uint64 to
  float64 loses values). This single rule reproduces TensorFlow's 51 refused pairs exactly.
- **numpy**: the result is the first dtype of `b u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64
  c64 c128` to which every operand casts safely (`wt.can_cast(..., "safe")`); a Python scalar of
  a higher kind gives float64/complex128 (or the complex of the float's precision, as NumPy
  does). NumPy's table is not associative, but this rule gives NumPy's own n-ary answers.
- **strict** refuses two different strong dtypes, and a weak scalar of a higher kind than the
  strong dtype.

## Many operands, any order

`wt.result_type(a, b, c, ...)` never depends on the order of its arguments, in any mode.
The lattice modes take the least upper bound of all operands (associative and commutative).
TensorFlow folds its SAFE check left to right, so there `(u8, i8, i16)` raises but
`(i16, u8, i8)` does not; webtensor applies the SAFE rule to the whole set of operands instead:
the result must be one of the operands' dtypes and every other operand must be weak or convert
to it exactly. Both orders therefore give `int16` (`u8` and `i8` convert to `i16` exactly).
The binary case is exactly TensorFlow's table.

## Ivy's modes

Ivy's *precise* mode is webtensor's `numpy` mode (identical tables). Ivy's *non-precise* table
is `standard` on strong dtypes, except that Ivy sends `u64` with a signed integer to `f64`
where JAX's lattice gives the weak float (materialized as the default float).

## The seed's examples

```python
>>> import numpy as np
>>> import webtensor as wt
>>> with wt.promotion_mode("all"):                     # i32 + f32 is allowed in ALL ...
...     r = wt.asarray(10, dtype=wt.int32) + wt.asarray(5.0, dtype=wt.float32)
>>> r.dtype, r.item()
(wt.float32, 15.0)
>>> with wt.promotion_mode("safe"):                    # ... but not in SAFE
...     wt.asarray(10, dtype=wt.int32) + wt.asarray(5.0, dtype=wt.float32)
Traceback (most recent call last):
webtensor.promotion.TypePromotionError: wt.add: In promotion mode 'safe', implicit dtype promotion between (int32, weak=False) and (float32, weak=False) is disallowed: int32 does not convert to float32 exactly. Cast explicitly (e.g. wt.astype(x, dtype)) or relax the rules with wt.set_promotion_mode('all').
>>> with wt.promotion_mode("all"):                     # i8 + u32: bit-widening to i64
...     r = wt.asarray(10, dtype=wt.int8) + wt.asarray(5, dtype=wt.uint32)
>>> r.dtype, r.item()
(wt.int64, 15)
>>> with wt.promotion_mode("safe"):
...     wt.asarray(10, dtype=wt.int8) + wt.asarray(5, dtype=wt.uint32)
Traceback (most recent call last):
webtensor.promotion.TypePromotionError: wt.add: In promotion mode 'safe', implicit dtype promotion between (int8, weak=False) and (uint32, weak=False) is disallowed: the result int64 is wider than every operand. Cast explicitly (e.g. wt.astype(x, dtype)) or relax the rules with wt.set_promotion_mode('all').
>>> with wt.promotion_mode("all"):                     # the first common child in the lattice
...     wt.promote_types(wt.i8, wt.i32), wt.promote_types(wt.u64, wt.f16)
(wt.int32, wt.float16)
>>> with wt.promotion_mode("all"):                     # i64 + f16 -> f16: precision is lost
...     r = wt.asarray(1, dtype=wt.int64) + wt.asarray(3.2, dtype=wt.float16)
>>> r.dtype, r.item()
(wt.float16, 4.19921875)
>>> a, b, c = np.array(1, dtype=np.int8), wt.asarray(1), np.array(1, dtype=np.float16)
>>> with wt.promotion_mode("all"):                     # the order does not matter
...     wt.add(wt.add(a, b), c).dtype, wt.add(wt.add(b, a), c).dtype
(wt.float16, wt.float16)
>>> with wt.promotion_mode("all"):                     # minimal bits, no 64-bit surprise
...     r = np.array(3.2, np.float16) + wt.asarray(1, dtype=wt.int8) + wt.asarray(50)
>>> r.dtype, r.item()
(wt.float16, 54.1875)
>>> with wt.promotion_mode("all"):                     # weak tensors (TF's WeakTensor)
...     x, y = wt.asarray(5), wt.asarray([5.0, 10.0, 3])
>>> (x.dtype, x.weak), (y.dtype, y.weak)
((wt.int32, True), (wt.float32, True))
>>> with wt.promotion_mode("all"):
...     z = -wt.asarray(5)
...     w = wt.asarray(5, dtype=wt.int16) - wt.asarray(1, dtype=wt.float32)
>>> (z.dtype, z.item(), z.weak), (w.dtype, w.item(), w.weak)
((wt.int32, -5, True), (wt.float32, 4.0, False))
>>> with wt.promotion_mode("all"):                     # Python scalars: i32*, f32*, c128*
...     [wt.result_type(v, return_weak_type_flag=True) for v in (1, 1.0, 1j)]
[(wt.int32, True), (wt.float32, True), (wt.complex128, True)]
>>> with wt.promotion_mode("all"):
...     wt.result_type(wt.u8, 2**31)
Traceback (most recent call last):
OverflowError: wt.result_type: Python int 2147483648 is out of range for int32 (-2147483648 to 2147483647) (Python ints are int32 in mode 'all'). Give it an explicit, wide enough dtype, e.g. wt.asarray(2147483648, dtype=wt.int64), or cast the other operand.

```

The same operands in the five modes:

```python
>>> def each_mode(*operands):
...     out = {}
...     for mode in ("standard", "all", "safe", "numpy", "strict", "nx"):
...         with wt.promotion_mode(mode):
...             try:
...                 out[mode] = wt.result_type(*operands).name
...             except TypeError:
...                 out[mode] = "error"
...     return out
>>> each_mode(wt.int32, wt.float32)
{'standard': 'float32', 'all': 'float32', 'safe': 'error', 'numpy': 'float64', 'strict': 'error', 'nx': 'float32'}
>>> each_mode(wt.int8, 1.0)
{'standard': 'float32', 'all': 'float64', 'safe': 'error', 'numpy': 'float64', 'strict': 'error', 'nx': 'float32'}
>>> each_mode(wt.uint64, wt.int64)
{'standard': 'float32', 'all': 'float64', 'safe': 'error', 'numpy': 'float64', 'strict': 'error', 'nx': 'int64'}
>>> each_mode(wt.bfloat16, wt.float16)
{'standard': 'float32', 'all': 'float32', 'safe': 'error', 'numpy': 'float32', 'strict': 'error', 'nx': 'float16'}

```

Nx's value-sized Python ints (the other modes raise OverflowError for a negative int with
`uint8`):

```python
>>> with wt.promotion_mode("nx"):
...     [wt.result_type(wt.uint8, v).name for v in (200, 300, -1, -40000, 1.0)]
['uint8', 'uint16', 'int16', 'int32', 'float32']
>>> with wt.promotion_mode("nx"):
...     r = wt.asarray([0, 1, 2], dtype=wt.uint8) + -1
>>> r.dtype, r.tolist()
(wt.int16, [-1, 0, 1])

```

## The tables

Rows and columns are operands; `*` marks a weak type (for `numpy`, a Python scalar, which
never gives a weak result); `error` cells raise `wt.TypePromotionError`.
"""


def render_table(mode) -> str:
    table = mode.table()
    labels = [t.short if hasattr(t, "short") else t.name for t in mode.types()]
    head = "| | " + " | ".join(f"**{x}**" for x in labels) + " |"
    rule = "|---" * (len(labels) + 1) + "|"
    rows = [f"| **{a}** | " + " | ".join(table[a, b] for b in labels) + " |" for a in labels]
    return "\n".join([head, rule, *rows])


def render() -> str:
    parts = [INTRO]
    for name, mode in MODES.items():
        parts.append(f"\n### `{name}` — {mode.description}\n\n{render_table(mode)}\n")
    return "".join(parts)


if __name__ == "__main__":
    target = ROOT / "docs" / "promotion.md"
    target.write_text(render(), encoding="utf-8")
    print(f"wrote {target}")
