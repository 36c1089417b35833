# Mandelbrot set (heatmap)
# Every pixel iterates z -> z**2 + c at once: each step is a handful of elementwise tensor ops,
# which run as WGSL kernels on the webgpu device (or on the CPU device without WebGPU).
import webtensor as wt

height, width, iterations = 72, 108, 24
# Pixel centres as float32 (arange * step keeps the whole computation in the GPU's float32).
y = -1.2 + (2.4 / (height - 1)) * wt.arange(height, dtype=wt.float32)
x = -2.1 + (3.0 / (width - 1)) * wt.arange(width, dtype=wt.float32)
cy, cx = wt.meshgrid(y, x, indexing="ij")

zx = wt.zeros_like(cx)
zy = wt.zeros_like(cy)
escape = wt.zeros((height, width))
for _ in range(iterations):
    zx, zy = zx * zx - zy * zy + cx, 2 * zx * zy + cy
    inside = zx * zx + zy * zy <= 4.0
    escape = escape + wt.astype(inside, wt.float32)
    # Park escaped points so they stay finite.
    zx = wt.where(inside, zx, 2.0)
    zy = wt.where(inside, zy, 0.0)

print(f"{int(wt.sum(escape == iterations))} of {height * width} points stayed bounded")
wt.show(escape, title="iterations before escape")
