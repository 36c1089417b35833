// webtensor, TensorFlow.js and jax-js on the same WebGPU device, in one page and one run.
//
// Every library runs the same workloads; each timing enqueues the work `reps` times and
// then waits for one element of the last result, so it measures GPU throughput plus the
// library's own per-op overhead, not readback of big results.  The libraries take turns
// workload by workload, for several rounds (?rounds=N), so that a slow spell of the machine
// hits them alike; the runner (run_peers.mjs) reports medians and per-round ratios from
// `globalThis.benchResult`.
import { loadWebtensor } from "../webtensor.mjs";

const { tf, jax } = globalThis.peers;
const np = jax.numpy;
const log = (s) => { document.getElementById("log").textContent += s + "\n"; };

const MATMUL_SIZES = [256, 512, 1024];
const CHAIN_SIZE = 1 << 20;
const SUM_SIZE = 1 << 24;
const SORT_SIZE = 1 << 20;
const SCATTER = { n: 1 << 20, m: 1 << 10 };  // updates, targets
const BUDGET_MS = 1500;   // per measurement, after one warm-up run
const MAX_REPS = 20;
const PARAMS = new URLSearchParams(location.search);
const ROUNDS = Math.max(1, Number(PARAMS.get("rounds") ?? 3));
const SLOW_MS = 5000;     // a call this slow is timed in the first round only

// The MLP training step: 784-256-10, a batch of 128, one jitted value-and-grad plus SGD update.
const MLP = { batch: 128, sizes: [784, 256, 10] };
const MLP_FLOP = 6 * MLP.batch * (784 * 256 + 256 * 10);  // forward + backward matmuls

const WORKLOADS = [
  ...MATMUL_SIZES.map((n) => ({ name: `matmul ${n}`, kind: "matmul", n, flop: 2 * n ** 3 })),
  { name: "8-op chain 1M eager", kind: "chain", n: CHAIN_SIZE, bytes: 2 * 4 * CHAIN_SIZE },
  { name: "8-op chain 1M eager, fast", kind: "chain_fast", n: CHAIN_SIZE,
    bytes: 2 * 4 * CHAIN_SIZE },
  { name: "8-op chain 1M jit", kind: "chain_jit", n: CHAIN_SIZE, bytes: 2 * 4 * CHAIN_SIZE },
  // webtensor with wt.set_precision("fast"): WGSL's built-in sin/exp/sqrt, as the peers use
  { name: "8-op chain 1M jit, fast", kind: "chain_jit_fast", n: CHAIN_SIZE,
    bytes: 2 * 4 * CHAIN_SIZE },
  { name: "sum 16M", kind: "sum", n: SUM_SIZE, bytes: 4 * SUM_SIZE },
  // webtensor with wt.set_precision("fast"): plain float32 additions, as the peers sum
  { name: "sum 16M, fast", kind: "sum_fast", n: SUM_SIZE, bytes: 4 * SUM_SIZE },
  { name: "MLP train step jit", kind: "mlp", n: MLP.batch, flop: MLP_FLOP },
  { name: "MLP train step jit, fast", kind: "mlp_fast", n: MLP.batch, flop: MLP_FLOP },
  // ascending float32 sort (TF.js: top-k of the negated values, k = n; it has no sort)
  { name: "sort 1M", kind: "sort", n: SORT_SIZE, bytes: 2 * 4 * SORT_SIZE },
  // 1M float32 updates added into 1K targets at the page's random indices (TF.js: scatterND,
  // jax-js: the gradient of a take, its only scatter-add)
  { name: "scatter-add 1M", kind: "scatter", n: SCATTER.n, m: SCATTER.m, bytes: 12 * SCATTER.n },
  // the same sum as jax-js computes it, in both libraries: the jitted gradient of a take
  { name: "scatter-add 1M, grad of take", kind: "scatter_grad", n: SCATTER.n, m: SCATTER.m,
    bytes: 12 * SCATTER.n },
];

// ?only=a,b keeps the workloads whose names contain a or b (run_peers.mjs --only).
const ONLY = (PARAMS.get("only") ?? "").split(",").filter(Boolean);
const SELECTED = WORKLOADS.filter((w) => !ONLY.length || ONLY.some((o) => w.name.includes(o)));

// Indices in [0, m) from the same generator: floor(m * u).
function randomIndices(n, m, seed) {
  return Int32Array.from(randomFloats(n, seed), (u) => Math.floor(u * m));
}

function randomFloats(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 4294967296;
  }
  return out;
}

// Run enqueue() once to warm up, once to size the repetitions, then `reps` times in a row
// (a call over the budget is its own measurement).
// `materialize` (lazy libraries only) makes the library compute a whole result: jax-js fuses a
// slice into the computation that produced it, so reading one element would compute only that.
async function timeJs(enqueue, finish, release, materialize = async (r) => r) {
  const value = await finish(await materialize(enqueue()));
  let t0 = performance.now();
  await finish(await materialize(enqueue()));
  const one = performance.now() - t0;
  if (one >= BUDGET_MS) return { ms: one, value };
  const reps = Math.max(1, Math.min(MAX_REPS, Math.floor(BUDGET_MS / Math.max(one, 0.05))));
  t0 = performance.now();
  let last;
  for (let i = 0; i < reps; i++) {
    if (last !== undefined) release(last);
    last = await materialize(enqueue());
  }
  await finish(last);
  return { ms: (performance.now() - t0) / reps, value };
}

const libraries = {
  async "TensorFlow.js"() {
    await tf.setBackend("webgpu");
    await tf.ready();
    return async (w) => {
      if (["chain_jit", "chain_jit_fast", "mlp", "mlp_fast", "scatter_grad"].includes(w.kind)) {
        return null;  // no jit
      }
      const shape = w.kind === "matmul" ? [w.n, w.n] : [w.n];
      const a = tf.tensor(randomFloats(w.n * (w.kind === "matmul" ? w.n : 1), 1), shape);
      const b = w.kind === "scatter" ? tf.tensor(randomIndices(w.n, w.m, 3), [w.n, 1], "int32")
        : tf.tensor(randomFloats(w.n * (w.kind === "matmul" ? w.n : 1), 2), shape);
      const chain = () => tf.tidy(() => {  // functional API: chained methods need an import
        let y = tf.sin(tf.add(tf.mul(a, 1.5), 0.5));
        y = tf.mul(y, y);
        return tf.exp(tf.sqrt(tf.abs(tf.sub(y, 0.25))));
      });
      const step = {
        matmul: () => tf.matMul(a, b),
        sort: () => tf.tidy(() => tf.neg(tf.topk(tf.neg(a), w.n).values)),
        scatter: () => tf.scatterND(b, a, [w.m]),
        chain,
        chain_fast: chain,  // (TF.js has one precision)
        sum: () => tf.sum(a),
        sum_fast: () => tf.sum(a),
      }[w.kind];
      const finish = async (r) => {
        const one = tf.slice(tf.reshape(r, [-1]), [0], [1]);
        const [value] = await one.data();
        one.dispose();
        r.dispose();
        return value;
      };
      const ms = await timeJs(step, finish, (r) => r.dispose());
      a.dispose();
      b.dispose();
      return ms;
    };
  },

  async "jax-js"() {
    const devices = await jax.init();
    if (!devices.includes("webgpu")) throw new Error("jax-js found no webgpu backend");
    jax.defaultDevice("webgpu");
    const chainEager = (x) => {
      let y = np.sin(x.mul(1.5).add(0.5));
      y = y.ref.mul(y);
      return np.exp(np.sqrt(np.abs(y.sub(0.25))));
    };
    const chain = jax.jit(chainEager);
    // scatter-add: the gradient of sum(take(x, i) * u) with respect to x adds u at i
    const scatterAdd = jax.jit((x, u, i) => jax.grad((x, u, i) => np.take(x, i).mul(u).sum())(x, u, i));
    const loss = (params, x, y) => {
      const [w1, b1, w2, b2] = params;
      const h = jax.nn.relu(np.matmul(x, w1).add(b1));
      const logp = jax.nn.logSoftmax(np.matmul(h, w2).add(b2));
      return np.negative(logp.mul(y).sum()).div(MLP.batch);
    };
    const trainStep = jax.jit((params, x, y) => {
      const [value, grads] = jax.valueAndGrad(loss)(params.map((p) => p.ref), x, y);
      return [value, params.map((p, i) => p.sub(grads[i].mul(0.1)))];
    });
    return async (w) => {
      if (w.kind === "mlp" || w.kind === "mlp_fast") {  // (jax-js has one precision)
        const [n0, n1, n2] = MLP.sizes;
        let params = [np.array(randomFloats(n0 * n1, 3)).reshape([n0, n1]).mul(0.05),
                      np.zeros([n1]), np.array(randomFloats(n1 * n2, 4)).reshape([n1, n2]).mul(0.05),
                      np.zeros([n2])];
        const x = np.array(randomFloats(MLP.batch * n0, 5)).reshape([MLP.batch, n0]);
        const labels = Array.from({ length: MLP.batch }, (_, i) => i % n2);
        const y = jax.nn.oneHot(np.array(labels, { dtype: np.int32 }), n2);
        const step = () => {
          const [value, next] = trainStep(params, x.ref, y.ref);
          params = next;
          return value;
        };
        const finish = async (r) => (await r.data())[0];
        const result = await timeJs(step, finish, (r) => r.dispose(), (r) => r.blockUntilReady());
        x.dispose();
        y.dispose();
        params.forEach((p) => p.dispose());
        return result;
      }
      const shape = w.kind === "matmul" ? [w.n, w.n] : [w.n];
      const size = w.n * (w.kind === "matmul" ? w.n : 1);
      const a = np.array(randomFloats(size, 1)).reshape(shape);
      const b = w.kind.startsWith("scatter")
        ? np.array(randomIndices(w.n, w.m, 3), { dtype: np.int32 })
        : np.array(randomFloats(size, 2)).reshape(shape);
      const zeros = np.zeros([w.m ?? 1]);
      const step = {
        matmul: () => np.matmul(a.ref, b.ref),
        sort: () => np.sort(a.ref),
        scatter: () => scatterAdd(zeros.ref, a.ref, b.ref),
        scatter_grad: () => scatterAdd(zeros.ref, a.ref, b.ref),
        chain: () => chainEager(a.ref),
        chain_fast: () => chainEager(a.ref),
        chain_jit: () => chain(a.ref),
        chain_jit_fast: () => chain(a.ref),  // (jax-js has only its built-in transcendentals)
        sum: () => np.sum(a.ref),
        sum_fast: () => np.sum(a.ref),
      }[w.kind];
      const finish = async (r) => {
        const [value] = await r.ravel().slice([0, 1]).data();
        return value;
      };
      const ms = await timeJs(step, finish, (r) => r.dispose(), (r) => r.blockUntilReady());
      a.dispose();
      b.dispose();
      zeros.dispose();
      return ms;
    };
  },

  async webtensor() {
    const py = await loadWebtensor({});
    const device = py.runPython("import webtensor as wt; wt.default_device().name");
    if (device !== "webgpu") throw new Error(`webtensor's default device is ${device}`);
    await py.runPythonAsync(`
import time
import webtensor as wt
import webtensor.tf

BUDGET_S, MAX_REPS = ${BUDGET_MS / 1000}, ${MAX_REPS}

def _host_floats(n, seed):
    # the page's generator, so every library sees the same numbers
    out, s = [], seed
    for _ in range(n):
        s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
        out.append(s / 4294967296)
    return out

async def _finish(r):
    return await r.reshape(-1)[0].item_async()

def _chain(x):
    y = wt.sin(x * 1.5 + 0.5)
    y = y * y
    return wt.exp(wt.sqrt(wt.abs(y - 0.25)))

_chain_jit = wt.jit(_chain)
_scatter_grad = wt.jit(wt.grad(lambda x, u, i: wt.sum(wt.take(x, i) * u)))

def _mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    logp = wt.nn.log_softmax(wt.nn.relu(x @ w1 + b1) @ w2 + b2)
    return -wt.sum(logp * y) / x.shape[0]

@wt.jit
def _train_step(params, x, y):
    value, grads = wt.value_and_grad(_mlp_loss)(params, x, y)
    return value, tuple(p - 0.1 * g for p, g in zip(params, grads))

def _mlp_setup(batch, sizes):
    n0, n1, n2 = sizes
    params = (wt.asarray(_host_floats(n0 * n1, 3), dtype=wt.float32).reshape(n0, n1) * 0.05,
              wt.zeros(n1), wt.asarray(_host_floats(n1 * n2, 4), dtype=wt.float32).reshape(n1, n2) * 0.05,
              wt.zeros(n2))
    x = wt.asarray(_host_floats(batch * n0, 5), dtype=wt.float32).reshape(batch, n0)
    y = wt.nn.one_hot(wt.arange(batch) % n2, n2)
    return [params], x, y

async def wt_bench(kind, n, m=0):
    if kind in ("mlp", "mlp_fast"):
        state, x, y = _mlp_setup(n, ${JSON.stringify(MLP.sizes)})
        def step():
            with wt.set_precision("fast" if kind == "mlp_fast" else "exact"):
                value, state[0] = _train_step(state[0], x, y)
            return value
        return await _time(step)
    shape = (n, n) if kind == "matmul" else (n,)
    size = n * n if kind == "matmul" else n
    if kind in ("scatter", "scatter_grad"):
        a = wt.asarray(_host_floats(n, 1), dtype=wt.float32)
        b = wt.asarray([int(u * m) for u in _host_floats(n, 3)], dtype=wt.int32)
        b = b.reshape(n, 1) if kind == "scatter" else b
        zeros = wt.zeros(m, dtype=wt.float32)
    elif size <= 1 << 20:
        a = wt.asarray(_host_floats(size, 1), dtype=wt.float32).reshape(shape)
        b = wt.asarray(_host_floats(size, 2), dtype=wt.float32).reshape(shape)
    else:  # 16M Python floats would take minutes to build in WebAssembly; values don't matter
        a = wt.arange(size, dtype=wt.int32).astype(wt.float32) * (1.0 / size)
        b = a
    def step():
        if kind == "matmul":
            return a @ b
        if kind == "chain":
            return _chain(a)
        if kind == "chain_fast":
            with wt.set_precision("fast"):
                return _chain(a)
        if kind == "chain_jit":
            return _chain_jit(a)
        if kind == "chain_jit_fast":
            with wt.set_precision("fast"):
                return _chain_jit(a)
        if kind == "sort":
            return wt.sort(a)
        if kind == "scatter":
            return wt.tf.scatter_nd(b, a, (m,))
        if kind == "scatter_grad":
            return _scatter_grad(zeros, a, b)
        with wt.set_precision("fast" if kind == "sum_fast" else "exact"):
            return wt.sum(a)
    return await _time(step)

async def _time(step):
    value = await _finish(step())
    t0 = time.perf_counter()
    await _finish(step())
    one = time.perf_counter() - t0
    if one >= BUDGET_S:
        return {"ms": one * 1000, "value": value}
    reps = max(1, min(MAX_REPS, int(BUDGET_S / max(one, 5e-5))))
    t0 = time.perf_counter()
    for _ in range(reps):
        r = step()
    await _finish(r)
    return {"ms": (time.perf_counter() - t0) / reps * 1000, "value": value}
`);
    const bench = py.globals.get("wt_bench");
    return async (w) => (await bench(w.kind, w.n, w.m ?? 0)).toJs({ dict_converter: Object.fromEntries });
  },
};

async function main() {
  const adapter = await navigator.gpu?.requestAdapter();
  const info = adapter?.info ?? {};
  const result = { adapter: `${info.vendor ?? "?"} ${info.architecture ?? ""} ${info.description ?? ""}`.trim(),
                   workloads: SELECTED, rounds: ROUNDS, ms: {}, samples: {}, values: {}, errors: {} };
  log(`adapter: ${result.adapter}`);
  const runners = [];
  for (const [name, setup] of Object.entries(libraries)) {
    result.ms[name] = {};
    result.samples[name] = {};
    result.values[name] = {};
    try {
      runners.push([name, await setup()]);
    } catch (e) {
      result.errors[name] = String(e);
      log(`${name}: setup failed: ${e}`);
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const w of SELECTED) {
      // each round starts with the next library, so none always runs first
      for (let k = 0; k < runners.length; k++) {
        const [name, run] = runners[(k + round) % runners.length];
        const samples = result.samples[name][w.name];
        if (result.errors[`${name}: ${w.name}`] || (samples && samples[0] >= SLOW_MS)) continue;
        try {
          const timed = await run(w);
          if (timed === null) continue;  // the library has no such feature (shown as n/a)
          const { ms, value } = timed;
          (result.samples[name][w.name] ??= []).push(ms);
          result.values[name][w.name] = value;
          log(`${round} ${name.padEnd(14)} ${w.name.padEnd(16)} ${ms.toFixed(2)} ms  (first element ${value})`);
        } catch (e) {
          result.errors[`${name}: ${w.name}`] = String(e);
          log(`${name} ${w.name}: ${e}`);
        }
      }
    }
  }
  for (const [name] of runners) {
    for (const [w, samples] of Object.entries(result.samples[name])) {
      const sorted = [...samples].sort((a, b) => a - b);
      result.ms[name][w] = sorted[(sorted.length - 1) >> 1];  // the median (lower, if even)
    }
  }
  globalThis.benchResult = result;
}

main().catch((e) => { globalThis.benchResult = { fatal: String(e.stack ?? e) }; log(String(e)); });
