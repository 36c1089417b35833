// The playground page: editor, Run/Stop, examples, output (text, tracebacks, tensor figures),
// the promotion explorer, and the Python worker's lifecycle. Python runs in worker.js; this
// file only talks to it with messages, so the page stays responsive whatever the code does.
import examples from "virtual:examples";
import { createEditor } from "./editor.js";
import { mountExplorer } from "./explorer.js";
import { renderTensor } from "./heatmap.js";

const $ = (sel) => document.querySelector(sel);
const ui = {
  run: $("#run"),
  stop: $("#stop"),
  examples: $("#examples"),
  share: $("#share"),
  badge: $("#device-badge"),
  progress: $("#load-progress"),
  progressText: $("#load-text"),
  output: $("#output"),
  runStatus: $("#run-status"),
  tabs: document.querySelectorAll("[role=tab]"),
  outputTab: $("#tab-output"),
};

// ---- code <-> URL hash ------------------------------------------------------------------------
// "#code=<base64url UTF-8>" reproduces a session; "#example=<name>" opens a gallery example.
function encodeCode(code) {
  let bin = "";
  for (const b of new TextEncoder().encode(code)) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeCode(text) {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/")); // atob accepts missing padding
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** What the hash asks for: {code, example (its name or null), problem (why it was not honoured)}. */
function codeFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  let problem = null;
  if (params.has("code")) {
    try {
      return { code: decodeCode(params.get("code")), example: null, problem };
    } catch {
      problem = "the code in this link is damaged (it is not base64url UTF-8; was it cut short?)";
    }
  } else if (params.has("example") && !examples.some((e) => e.name === params.get("example"))) {
    problem = `there is no example "${params.get("example")}" ` +
      `(the gallery has ${examples.map((e) => e.name).join(", ")})`;
  }
  const example = examples.find((e) => e.name === params.get("example")) ?? examples[0];
  return { code: example.code, example: example.name, problem };
}

const hashFor = (code) => {
  const example = examples.find((e) => e.code === code);
  return example ? `#example=${example.name}` : `#code=${encodeCode(code)}`;
};

let hashTimer = null;
/** On every edit the example menu, and once edits settle the hash, describe the code. */
function saveToHash(code) {
  ui.examples.value = examples.find((e) => e.code === code)?.name ?? "";
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    const hash = hashFor(code);
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }, 300);
}

/** Shows code that came from the hash or the example menu (nothing is re-saved). */
function showCode({ code, example, problem }) {
  if (code !== editor.getCode()) editor.setCode(code);
  clearTimeout(hashTimer);
  editor.markError(null);
  ui.examples.value = example ?? "";
  if (problem) appendBlock("stderr", `Could not open the link: ${problem}; showing the ${example} example.\n`);
}

// ---- worker ------------------------------------------------------------------------------------
let worker = null;
let nextId = 1;
const pending = new Map(); // id -> {resolve, reject}
let workerState = "loading"; // loading | ready | failed
let running = false; // a run was requested and has not finished (it may wait for loading)
let explorerLoaded = false;

/** The page's state, also on <body data-state> for styling and tests. */
const pageState = () => (running && workerState !== "failed" ? "running" : workerState);

function updateState() {
  document.body.dataset.state = pageState();
  ui.stop.disabled = !running;
}

function request(msg) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ ...msg, id });
  });
}

function startWorker() {
  workerState = "loading";
  updateState();
  ui.progress.hidden = false;
  ui.progress.value = 0;
  ui.progressText.textContent = "Loading Python…";
  setBadge("loading", "starting…", "");
  worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (e) => onWorkerMessage(e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    // A module that fails to load gives an ErrorEvent without a message.
    fatal(e.message ? `the Python worker failed: ${e.message}`
      : "the Python worker could not be started (worker.js or ../webtensor.mjs did not load; " +
        "the browser console says why)");
  };
}

function fatal(message) {
  workerState = "failed";
  running = false;
  updateState();
  ui.progress.hidden = true;
  ui.progressText.textContent = "";
  setBadge("failed", "not loaded", message);
  appendBlock("error", `${message}\nRun starts a fresh Python.`);
  rejectPending(new Error(message));
}

function rejectPending(error) {
  for (const { reject } of pending.values()) reject(error);
  pending.clear();
}

function setBadge(kind, text, title) {
  ui.badge.className = `badge badge-${kind}`;
  ui.badge.textContent = text;
  ui.badge.title = title;
}

function onWorkerMessage(msg) {
  switch (msg.type) {
    case "progress":
      if (msg.fraction != null) ui.progress.value = msg.fraction;
      if (msg.message) ui.progressText.textContent = msg.message;
      break;
    case "ready": {
      ui.progress.hidden = true;
      ui.progressText.textContent = `webtensor ${msg.version} ready in ${msg.seconds.toFixed(1)} s`;
      if (msg.device === "webgpu") {
        setBadge("gpu", `WebGPU: ${msg.adapter || "adapter"}`, "tensors default to the webgpu device");
      } else {
        setBadge("cpu", "CPU (no WebGPU)", msg.reason || "no WebGPU adapter");
      }
      window.playground.readyAt = performance.now();
      workerState = "ready";
      updateState();
      warmUp(msg.device);
      if (running) ui.runStatus.textContent = "running…";
      if (explorerLoaded) explorer.load().catch(() => {});
      break;
    }
    case "stdout":
    case "stderr":
      appendText(msg.type, msg.text);
      break;
    case "tensor":
      appendFigure(msg.payload);
      break;
    case "done":
    case "warmed":
    case "explorer": {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (!p) break;
      if (msg.type === "explorer" && msg.error) p.reject(new Error(msg.error));
      else p.resolve(msg.type === "explorer" ? msg.data : msg);
      break;
    }
    case "fatal":
      fatal(msg.message);
      break;
  }
}

// On a GPU device, an unmodified gallery example in the editor runs once silently as soon as
// Python is ready: creating its compute pipelines is most of a first run (1.3 s of 1.4 on
// SwiftShader), so the user's Run finds them compiled. A Run clicked meanwhile waits its turn.
function warmUp(device) {
  const code = editor.getCode();
  if (device !== "webgpu" || !examples.some((e) => e.code === code)) return;
  window.playground.warmup = request({ type: "warmup", code }).catch(() => null);
}

// ---- output ------------------------------------------------------------------------------------
function appendBlock(kind, text) {
  const block = document.createElement("pre");
  block.className = `out out-${kind}`;
  block.textContent = text;
  ui.output.append(block);
  block.scrollIntoView({ block: "nearest" });
  return block;
}

function appendText(kind, text) {
  const last = ui.output.lastElementChild;
  if (last?.classList.contains(`out-${kind}`) && last.tagName === "PRE") last.textContent += text;
  else appendBlock(kind, text);
}

function appendFigure(payload) {
  try {
    const fig = renderTensor(payload);
    // wt.show(t, figure="name") draws that figure again in place (live plots)
    const name = payload.figure;
    const old = name ? [...ui.output.querySelectorAll("figure.tensor")]
      .find((f) => f.dataset.figure === name) : null;
    if (name) {
      fig.dataset.figure = name;
      fig.dataset.updates = String(old ? Number(old.dataset.updates) + 1 : 1);
    }
    if (old) {
      old.replaceWith(fig);
      return;
    }
    ui.output.append(fig);
    fig.scrollIntoView({ block: "nearest" });
  } catch (e) {
    appendBlock("error", `could not draw the tensor: ${e.message}`);
  }
}

// ---- run / stop --------------------------------------------------------------------------------
async function run() {
  if (running) return;
  if (workerState === "failed") startWorker();
  const code = editor.getCode();
  selectTab(ui.outputTab);
  editor.markError(null);
  ui.output.replaceChildren();
  ui.runStatus.textContent = workerState === "loading" ? "waiting for Python to load…" : "running…";
  running = true;
  updateState();
  const t0 = performance.now();
  let done;
  try {
    done = await request({ type: "run", code });
  } catch (e) {
    ui.runStatus.textContent = e === STOPPED ? "stopped" : "failed";
    return;
  } finally {
    running = false;
    updateState();
  }
  const wall = (performance.now() - t0) / 1000;
  window.playground.lastRun = { ...done, wall };
  if (done.ok) {
    ui.runStatus.textContent = `finished in ${done.seconds.toFixed(2)} s`;
    return;
  }
  const e = done.error;
  const block = appendBlock("error", e.traceback);
  block.classList.add("traceback");
  if (e.line != null) {
    block.dataset.line = e.line;
    editor.markError(e.line);
  }
  ui.runStatus.textContent = `${e.type}${e.line != null ? ` on line ${e.line}` : ""}`;
}

const STOPPED = new Error("stopped");

function stop() {
  if (!running) return;
  // Python cannot be interrupted from outside; ending its worker is the only sure stop.
  worker.terminate();
  running = false;
  rejectPending(STOPPED);
  appendBlock("stderr", "Stopped: the Python worker was terminated; a fresh one is starting.\n");
  startWorker();
}

// ---- explorer tab ------------------------------------------------------------------------------
const explorer = mountExplorer($("#explorer"), (op, args) => request({ type: "explorer", op, args }));

function selectTab(tab) {
  for (const t of ui.tabs) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    $(`#${t.getAttribute("aria-controls")}`).hidden = !on;
  }
  if (tab.id === "tab-explorer" && !explorerLoaded) {
    explorerLoaded = true;
    explorer.load().catch((e) => {
      explorerLoaded = false;
      $("#explorer .explorer-status").textContent = `error: ${e.message ?? e}`;
    });
  }
}

// ---- wiring ------------------------------------------------------------------------------------
const initial = codeFromHash();
const editor = createEditor($("#editor"), { code: initial.code, onRun: run, onChange: saveToHash });

for (const ex of examples) {
  const option = document.createElement("option");
  option.value = ex.name;
  option.textContent = ex.title;
  ui.examples.append(option);
}
showCode(initial);
ui.examples.addEventListener("change", () => {
  const ex = examples.find((e) => e.name === ui.examples.value);
  if (!ex) return;
  showCode({ code: ex.code, example: ex.name });
  history.replaceState(null, "", `#example=${ex.name}`);
});
ui.run.addEventListener("click", run);
ui.stop.addEventListener("click", stop);
ui.share.addEventListener("click", async () => {
  const url = `${location.href.split("#")[0]}#code=${encodeCode(editor.getCode())}`;
  history.replaceState(null, "", url);
  try {
    await navigator.clipboard.writeText(url);
    ui.share.textContent = "Link copied";
  } catch {
    ui.share.textContent = "Link in address bar";
  }
  setTimeout(() => (ui.share.textContent = "Copy link"), 1500);
});
for (const t of ui.tabs) t.addEventListener("click", () => selectTab(t));
window.addEventListener("hashchange", () => showCode(codeFromHash()));

// A hook for tests, benchmarks and the console.
window.playground = { editor, run, stop, explorer, examples, state: pageState, readyAt: null,
  warmup: null };
startWorker();
