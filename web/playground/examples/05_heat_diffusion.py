# Heat diffusion
# Explicit finite differences for du/dt = alpha * laplacian(u) on a plate with two hot spots and a
# cold edge. wt.roll shifts the grid to read the four neighbours.
import webtensor as wt

n, steps, alpha = 48, 60, 0.2
y, x = wt.meshgrid(wt.arange(n), wt.arange(n), indexing="ij")
hot = ((x - 14) ** 2 + (y - 16) ** 2 < 30) | ((x - 34) ** 2 + (y - 30) ** 2 < 50)
u = wt.astype(hot, wt.float32) * 100.0
edge = (x == 0) | (y == 0) | (x == n - 1) | (y == n - 1)

frames = [u]
for step in range(1, steps + 1):
    neighbours = (wt.roll(u, 1, axis=0) + wt.roll(u, -1, axis=0)
                  + wt.roll(u, 1, axis=1) + wt.roll(u, -1, axis=1))
    u = u + alpha * (neighbours - 4 * u)
    u = wt.where(edge, 0.0, u)            # the edge is held at 0 degrees
    if step % 20 == 0:
        frames.append(u)

print("total heat:", [round(float(wt.sum(f))) for f in frames])
wt.show(wt.stack(frames), title="temperature at t = 0, 20, 40, 60 (slide the first axis)")
