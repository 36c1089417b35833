// The playground's Python process: a module Web Worker that loads Pyodide + webtensor through
// the site's loader (../webtensor.mjs) and runs the editor's code, so a long computation never
// freezes the page (and Stop can simply terminate this worker).
//
// Messages in:  {type: "run", id, code} | {type: "warmup", id, code} | {type: "explorer", id,
//               op, args}
// Messages out: {type: "progress", message, fraction} | {type: "ready", device, adapter, reason,
//               version, seconds} | {type: "stdout"|"stderr", text} | {type: "tensor", payload}
//               | {type: "done", id, ok, error, seconds, pipelines} | {type: "warmed", id,
//               seconds, pipelines} | {type: "explorer", id, data | error} | {type: "fatal",
//               message}
import { loadWebtensor } from "../webtensor.mjs";

const post = (msg, transfer = []) => self.postMessage(msg, transfer);
const t0 = performance.now();
let pyodide = null;
let playground = null; // the runner.py module

// The loader reports stages as onProgress(stage, detail); show them on one bar.
const STAGE_FRACTION = { pyodide: 0.1, webtensor: 0.55, webgpu: 0.8, ready: 0.92 };
const STAGE_TEXT = {
  pyodide: "Loading Python (Pyodide)",
  webtensor: "Installing webtensor",
  webgpu: "Opening the WebGPU device",
  ready: "Starting the playground",
};

function progress(stage, detail) {
  post({
    type: "progress",
    message: STAGE_TEXT[stage] ?? String(detail ?? stage),
    detail: detail == null ? null : String(detail),
    fraction: STAGE_FRACTION[stage] ?? null,
  });
}

// Python calls emit(kind, data) for streamed output and tensors.
function emit(kind, data) {
  if (kind === "tensor") {
    const payload = data.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
    // Own copies (never views of the Wasm heap), so their buffers can be transferred.
    const transfer = [];
    for (const key of ["values", "lut"]) {
      if (payload[key] instanceof Uint8Array) {
        payload[key] = payload[key].slice();
        transfer.push(payload[key].buffer);
      }
    }
    post({ type: "tensor", payload }, transfer);
  } else {
    post({ type: kind, text: String(data) });
  }
}

async function jsAdapterName() {
  // Only used to explain a CPU fallback when the browser does have an adapter.
  try {
    const adapter = await navigator.gpu?.requestAdapter();
    if (!adapter) return "";
    const info = adapter.info ?? {};
    return info.description || info.device || info.vendor || "WebGPU adapter";
  } catch {
    return "";
  }
}

async function start() {
  progress("pyodide", "starting");
  const options = { onProgress: progress, stdout: (s) => console.log(s), stderr: (s) => console.warn(s) };
  let webgpuFailure = "";
  try {
    pyodide = await loadWebtensor(options);
  } catch (e) {
    // Opening WebGPU must never cost the user the playground: load again on the CPU device.
    webgpuFailure = `loading with WebGPU failed: ${e?.message ?? e}`;
    console.warn(webgpuFailure);
    pyodide = await loadWebtensor({ ...options, webgpu: false });
  }
  // User output streams to the page line by line from here on.
  pyodide.setStdout({ batched: (s) => post({ type: "stdout", text: s + "\n" }) });
  pyodide.setStderr({ batched: (s) => post({ type: "stderr", text: s + "\n" }) });
  progress("ready", "loading the runner");
  const source = await (await fetch(new URL("./runner.py", import.meta.url))).text();
  pyodide.FS.mkdirTree("/playground");
  pyodide.FS.writeFile("/playground/_playground.py", source);
  pyodide.runPython("import sys; sys.path.insert(0, '/playground')");
  playground = pyodide.pyimport("_playground");
  playground.install_show_hook(emit);
  const info = playground.setup().toJs({ dict_converter: Object.fromEntries });
  if (info.device === "cpu") {
    if (webgpuFailure) info.reason = webgpuFailure;
    const name = await jsAdapterName();
    if (name) info.reason = `${info.reason} (the browser offers "${name}")`.trim();
  }
  post({ type: "ready", ...info, seconds: (performance.now() - t0) / 1000 });
}

async function handle(msg) {
  if (msg.type === "run") {
    let json;
    try {
      pyodide.globals.set("_pg_source", msg.code);
      json = await pyodide.runPythonAsync(
        "import json as _pg_json, _playground\n_pg_json.dumps(await _playground.run(_pg_source))");
    } catch (e) {
      // runner.run reports the script's own exceptions; reaching here means Python itself broke.
      if (e?.pyodide_fatal_error) throw e; // the interpreter is unusable: "fatal" restarts it
      const message = String(e?.message ?? e);
      const error = { type: e?.type ?? e?.name ?? "Error", message, traceback: message, line: null };
      json = JSON.stringify({ ok: false, error, seconds: 0 });
    }
    post({ type: "done", id: msg.id, ...JSON.parse(json) });
  } else if (msg.type === "warmup") {
    // The example once, its output discarded: its kernels compile before the first Run.
    pyodide.globals.set("_pg_source", msg.code);
    const json = await pyodide.runPythonAsync(
      "import json as _pg_json, _playground\n_pg_json.dumps(await _playground.warm_up(_pg_source))");
    post({ type: "warmed", id: msg.id, ...JSON.parse(json) });
  } else if (msg.type === "explorer") {
    try {
      const json = playground.explorer(JSON.stringify({ op: msg.op, args: msg.args ?? [] }));
      post({ type: "explorer", id: msg.id, data: JSON.parse(json) });
    } catch (e) {
      post({ type: "explorer", id: msg.id, error: String(e.message ?? e) });
    }
  } else {
    throw new Error(`worker: unknown message type ${JSON.stringify(msg.type)}; use run, warmup or explorer`);
  }
}

// Requests run one at a time, in order: a run may await the GPU (JSPI), and Python must not be
// re-entered from another message while it is suspended.
const ready = start().catch((e) => {
  post({ type: "fatal", message: String(e?.stack ?? e) });
  throw e;
});
let queue = ready;
self.onmessage = (event) => {
  queue = queue.then(() => handle(event.data)).catch((e) => {
    post({ type: "fatal", message: String(e?.stack ?? e) });
  });
};
