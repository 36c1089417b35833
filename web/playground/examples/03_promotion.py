# Type promotion: ALL vs SAFE
# TensorFlow's modes: ALL promotes any pair (possibly losing precision), SAFE refuses pairs that
# could lose information. A Python scalar is *weak*: it defers to the tensor's dtype.
# The "Type promotion" tab shows every pair of every mode.
import webtensor as wt

i8 = wt.asarray([1, 2, 3], dtype=wt.int8)
u32 = wt.asarray([4, 5, 6], dtype=wt.uint32)
i32 = wt.asarray([1, 2, 3], dtype=wt.int32)
f32 = wt.asarray([0.5, 1.5, 2.5], dtype=wt.float32)
pairs = {
    "int8 + uint32": lambda: i8 + u32,
    "int32 + float32": lambda: i32 + f32,
    "int8 + 1 (weak int)": lambda: i8 + 1,
    "int8 + 0.5 (weak float)": lambda: i8 + 0.5,
}

for mode in ("all", "safe"):
    print(f"--- {mode} ---")
    with wt.promotion_mode(mode):
        for name, compute in pairs.items():
            try:
                result = compute()
                print(f"{name:24s} -> {result.dtype}{' (weak)' if result.weak else ''}")
            except TypeError as e:  # TypePromotionError is a TypeError
                print(f"{name:24s} -> refused ({type(e).__name__})")
                print(f"    {str(e).split(': ', 1)[-1]}")
