# Broadcasting
# Shapes line up from the right; a size-1 (or missing) axis stretches to match. No data is copied:
# the smaller operand is read through a view with stride 0.
import webtensor as wt

col = wt.reshape(wt.arange(6), (6, 1))    # shape (6, 1)
row = wt.arange(8)                        # shape (8,)
table = col * 10 + row                    # (6, 1) op (8,) -> (6, 8)
print("col", col.shape, "+ row", row.shape, "->", table.shape)
print(table)

# A normalised outer product: each row scaled by its own maximum.
outer = wt.astype(col + 1, wt.float32) * (wt.astype(row, wt.float32) / 3.5 - 1.0)
scaled = outer / wt.max(wt.abs(outer), axis=1, keepdims=True)
wt.show(scaled, title="rows scaled to [-1, 1] (diverging colours)")

try:
    wt.ones((3, 4)) + wt.ones((3,))
except ValueError as e:
    print("ValueError:", e)

# A last expression that is a tensor is drawn too:
table % 7
