# Matrix multiply on the GPU, timed
# Times a float32 matmul on each device (webgpu when the browser has an adapter, and cpu) and
# checks that both give the same answer. Sizes are small so a software GPU finishes quickly.
import time

import webtensor as wt

n = 64
key = wt.random.key(0)
ka, kb = wt.random.split(key)
devices = [d.name for d in wt.devices()]
results = {}
for device in devices:
    a = wt.random.uniform(ka, (n, n), minval=-1.0, maxval=1.0, device=device)
    b = wt.random.uniform(kb, (n, n), minval=-1.0, maxval=1.0, device=device)
    (a @ b).tolist()                      # warm up: compile kernels, allocate buffers
    t0 = time.perf_counter()
    c = a @ b
    c.tolist()                            # reading waits for the device to finish
    seconds = time.perf_counter() - t0
    results[device] = c
    print(f"{device:7s} {n}x{n} @ {n}x{n}: {seconds * 1e3:7.2f} ms "
          f"({2 * n**3 / seconds / 1e9:.3f} GFLOP/s)")

if "webgpu" in results:
    gpu = results["webgpu"].to_device("cpu")
    print("max |webgpu - cpu| =", float(wt.max(wt.abs(gpu - results["cpu"]))))
wt.show(results[devices[-1] if len(devices) == 1 else "webgpu"], title="a @ b")
