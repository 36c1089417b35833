// Browser test scenarios, run in the page (main thread) or in a module worker (worker.mjs).
// Each returns { ok, lines, ...details }; tests/browser/run.mjs checks the details. No `window`:
// the same code runs in both places. Served by run.mjs: the site at /, this folder at
// /browser-tests/, the repository's tests at /repo/, the pytest wheels at /wheels/.

const SITE = new URL("/", import.meta.url);

async function load(lines, options = {}) {
  const { loadWebtensor } = await import(new URL("webtensor.mjs", SITE).href);
  const stages = [];
  const pyodide = await loadWebtensor({
    stdout: (line) => lines.push(line),
    stderr: (line) => lines.push(`[stderr] ${line}`),
    onProgress: (stage) => {
      if (stages.at(-1) !== stage) stages.push(stage);
    },
    ...options,
  });
  return { pyodide, stages };
}

/** pytest inside Pyodide on this browser's WebGPU; `files` are repository paths to mount. */
async function pytest({ files, wheels, args }) {
  const lines = [];
  const t0 = performance.now();
  const { pyodide } = await load(lines);
  // pytest's progress dots come without newlines: collect raw output, split it at the end.
  let text = "";
  const decoder = new TextDecoder();
  pyodide.setStdout({ write: (buf) => ((text += decoder.decode(buf)), buf.length) });
  pyodide.setStderr({ write: (buf) => ((text += decoder.decode(buf)), buf.length) });
  await pyodide.loadPackage(wheels.map((w) => new URL(`/wheels/${w}`, SITE).href));
  const loadSeconds = (performance.now() - t0) / 1000;
  for (const file of files) {
    const response = await fetch(new URL(`/repo/${file}`, SITE));
    if (!response.ok) throw new Error(`fetching /repo/${file}: HTTP ${response.status}`);
    const path = `/repo/${file}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, new Uint8Array(await response.arrayBuffer()));
  }
  pyodide.globals.set("pytest_args_json", JSON.stringify(args));
  // runPythonAsync: reads inside the tests wait for the GPU through JSPI (run_sync).
  const rc = await pyodide.runPythonAsync(`
import json, os, sys, pytest
os.chdir("/repo")
sys.path[:0] = ["/repo/tests", "/repo/tests/browser"]
int(pytest.main(["-p", "no:cacheprovider", *json.loads(pytest_args_json)]))
`);
  lines.push(...text.split("\n"));
  return { ok: rc === 0, rc, lines, loadSeconds, seconds: (performance.now() - t0) / 1000 };
}

/** Reads from plain runPython (no JSPI): the sync read must fail naming the async twin, the
 * async twins must give the values, and a bad kernel must fail at the next async read. */
async function asyncReads() {
  const lines = [];
  const { pyodide } = await load(lines);
  const setup = pyodide.runPython(`
import webtensor as wt
from pyodide.ffi import can_run_sync
from webtensor.backends.webgpu.browser import KernelCompileError
data = [[1.5, -2.0, 3.25], [0.0, 7.0, -0.5]]
gpu = wt.asarray(data, dtype=wt.float32, device="webgpu")
cpu = wt.asarray(data, dtype=wt.float32, device="cpu")
y_gpu = (gpu * 2.0 - 1.0).T
y_cpu = (cpu * 2.0 - 1.0).T
sync_errors = []
for read in (lambda: y_gpu.tolist(), lambda: print(y_gpu), lambda: bool(y_gpu[0, 0])):
    try:
        read()
    except RuntimeError as e:
        sync_errors.append(str(e))
[str(wt.default_device()), can_run_sync(), sync_errors]
`).toJs();
  const [device, canRunSync, syncErrors] = setup;
  const values = await pyodide.runPythonAsync(`
got = await y_gpu.tolist_async()
item = await y_gpu[1, 0].item_async()
await wt.sync_async()
[got == y_cpu.tolist(), item == y_cpu[1, 0].item(), got]
`);
  const [same, sameItem, got] = values.toJs();
  // A kernel that does not compile: without JSPI creation cannot wait, so the next read raises.
  pyodide.runPython(`
driver = gpu._backend.driver
bad = driver.create_pipeline("@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }",
                             "main", 0, 1, 16)
`);
  const compile = await pyodide.runPythonAsync(`
try:
    await gpu.tolist_async()
    message = None
except KernelCompileError as e:
    message = str(e)
after = await (gpu + 1.0).tolist_async()  # the device keeps working afterwards
[message, after == (cpu + 1.0).tolist()]
`);
  const [compileError, recovered] = compile.toJs();
  return {
    ok: true, lines, device, canRunSync, syncErrors, same, sameItem, got, compileError,
    recovered,
  };
}

/** No adapter (navigator.gpu stubbed by the harness): cpu device, one notice, math works. */
async function noAdapter() {
  const lines = [];
  const { pyodide } = await load(lines);
  const result = await pyodide.runPythonAsync(`
import webtensor as wt
x = wt.asarray([1, 2, 3]) * 2
[str(wt.default_device()), str(x.device), x.tolist(), str(wt.default_device()),
 [d.name for d in wt.devices()], wt.device_info()["webgpu"]["reason"]]
`);
  const [device, xDevice, values, deviceAgain, devices, reason] = result.toJs();
  return { ok: true, lines, device, xDevice, values, deviceAgain, devices, reason };
}

/** A bad indexURL must reject with a message that says what to fix. */
async function badIndexURL() {
  const lines = [];
  try {
    await load(lines, { indexURL: new URL("/no-such-folder/", SITE).href });
    return { ok: false, lines, message: "loadWebtensor resolved" };
  } catch (err) {
    return { ok: true, lines, message: String(err.message) };
  }
}

/** Per-op overhead: `n` tiny elementwise ops (dispatch + batch), then one read. */
async function overhead({ n, sizes }) {
  const lines = [];
  const { pyodide } = await load(lines);
  pyodide.globals.set("bench_n", n);
  pyodide.globals.set("bench_sizes", pyodide.toPy(sizes));
  const code = await (await fetch(new URL("/repo/bench/browser/overhead.py", SITE))).text();
  pyodide.FS.mkdirTree("/bench");
  pyodide.FS.writeFile("/bench/overhead.py", code);
  const json = await pyodide.runPythonAsync(`
import json, sys
sys.path.insert(0, "/bench")
import overhead
json.dumps(overhead.run(bench_n, bench_sizes))
`);
  return { ok: true, lines, results: JSON.parse(json) };
}

const SCENARIOS = { pytest, asyncReads, noAdapter, badIndexURL, overhead };

export async function runScenario(name, config = {}) {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS)}`);
  try {
    return { ...(await scenario(config)), where: globalThis.document ? "page" : "worker" };
  } catch (err) {
    return { ok: false, lines: [], error: `${err.name}: ${err.message}\n${err.stack ?? ""}` };
  }
}

/** Run a scenario in a fresh module worker and resolve to its result. */
export function runInWorker(name, config = {}) {
  const worker = new Worker(new URL("worker.mjs", import.meta.url), { type: "module" });
  return new Promise((resolve) => {
    worker.onmessage = (event) => {
      worker.terminate();
      resolve(event.data);
    };
    worker.onerror = (event) => {
      worker.terminate();
      resolve({ ok: false, lines: [], error: `worker error: ${event.message}` });
    };
    worker.postMessage({ name, config });
  });
}
