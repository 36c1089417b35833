# Random numbers
# Counter-based Philox keys: the same key gives the same numbers on every device. split() makes
# independent streams without any global state.
import webtensor as wt

key = wt.random.key(42)
k_normal, k_uniform = wt.random.split(key)
samples = wt.random.normal(k_normal, (2000,))
print(f"mean {float(wt.mean(samples)):.3f}  std {float(wt.std(samples)):.3f}")

counts, edges = wt.histogram(samples, bins=40, range=(-4.0, 4.0))
wt.show(wt.astype(counts, wt.float32), title="histogram of 2000 normal samples")

noise = wt.random.uniform(k_uniform, (32, 48))
wt.show(noise, title="uniform noise in [0, 1)")
print("same key, same numbers:", bool(wt.all(wt.random.normal(k_normal, (2000,)) == samples)))
