# Image convolution
# A synthetic RGB picture, blurred with a 3x3 box filter and searched for edges with a Sobel
# filter. Each filter tap is one shifted slice, so the convolution is a sum of views.
import webtensor as wt

h, w = 48, 64
y, x = wt.meshgrid(wt.arange(h, dtype=wt.float32) / (h - 1),
                   wt.arange(w, dtype=wt.float32) / (w - 1), indexing="ij")
disc = wt.astype((x - 0.35) ** 2 + (y - 0.5) ** 2 < 0.06, wt.float32)
square = wt.astype((wt.abs(x - 0.72) < 0.15) & (wt.abs(y - 0.45) < 0.25), wt.float32)
image = wt.stack([disc, square, 0.25 + 0.5 * x * y], axis=-1)   # (h, w, 3), values in [0, 1]
wt.show(image, title="input picture")


def convolve(plane, kernel):
    """'valid' 2-D correlation of an (H, W) plane with a small (k, k) list of weights."""
    k = len(kernel)
    out = 0.0
    for i in range(k):
        for j in range(k):
            if kernel[i][j]:
                out = out + kernel[i][j] * plane[i:plane.shape[0] - k + 1 + i,
                                                 j:plane.shape[1] - k + 1 + j]
    return out


gray = wt.mean(image, axis=-1)
box = [[1 / 9] * 3] * 3
sobel_x = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]
sobel_y = [[-1, -2, -1], [0, 0, 0], [1, 2, 1]]
blurred = convolve(gray, box)
edges = wt.sqrt(convolve(gray, sobel_x) ** 2 + convolve(gray, sobel_y) ** 2)
wt.show(blurred, title="box blur (gray)")
wt.show(edges, title="Sobel edge strength")
