#!/usr/bin/env node
// webtensor in the JupyterLite site (build/site/lite/), offline, in headless Chromium with WebGPU.
//
//   python build_wasm.py                      # builds build/site (this script builds nothing)
//   node tests/lite/run.mjs [--site build/site] [--artifacts build/artifacts/lite] [--only repl]
//
// Serves the site on 127.0.0.1 and blocks every other request: Chromium resolves no host name
// but 127.0.0.1, and every request off the site's origin is aborted and reported (a site that
// needs the network fails here). Tests, one fresh browser context each:
//
//   repl      lite/repl/?kernel=python&code=...: `%pip install webtensor` from the site, a matmul
//             on the webgpu device (values against plain arithmetic done here), a tensor shown as
//             a heatmap through _repr_html_ (the PNG decoded: viridis ends, brighter as values
//             grow). Times page open -> first printed tensor.
//   notebook  lite/notebooks/?path=webtensor-tour.ipynb, Run All Cells: every cell runs without
//             an error, the printed dtypes and devices, the heatmaps, the GPU matmul matching the
//             CPU's.
// Screenshots go to the artifacts folder. Exit code 0 when every test passes.

import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..");
const { launchChromium, serveStatic } = await import(
  pathToFileURL(path.join(repoRoot, "tests", "harness.mjs")).href);

const option = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const site = path.resolve(option("--site", path.join(repoRoot, "build", "site")));
const artifacts = path.resolve(option("--artifacts", path.join(repoRoot, "build", "artifacts", "lite")));
const only = option("--only", null)?.split(",");
const KERNEL_TIMEOUT_MS = Number(process.env.LITE_KERNEL_TIMEOUT_MS ?? 150_000); // cold start on 2 busy cores: ~20-30 s measured, with margin
const CELL_TIMEOUT_MS = Number(process.env.LITE_CELL_TIMEOUT_MS ?? 120_000);
mkdirSync(artifacts, { recursive: true });

// Offline: no host name resolves but the loopback address the site is served on.
const OFFLINE_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"];

// Viridis' ends as matplotlib defines the map: the colours of a sequential heatmap's min and max.
const VIRIDIS_FIRST = [68, 1, 84];
const VIRIDIS_LAST = [253, 231, 37];

// ---- helpers ---------------------------------------------------------------------------------
class Failure extends Error {}
const check = (cond, what) => {
  if (!cond) throw new Failure(what);
};

async function newContext(browser, origin, viewport) {
  const context = await browser.newContext({ viewport });
  const blocked = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    blocked.push(url);
    return route.abort("blockedbyclient");
  });
  const logs = [];
  context.on("console", (m) => logs.push(`[${m.type()}] ${m.text()}`));
  context.on("weberror", (e) => logs.push(`[pageerror] ${e.error().message}`));
  context.on("response", (r) => {
    if (r.status() >= 400) logs.push(`[http ${r.status()}] ${r.url()}`);
  });
  return { context, blocked, logs };
}

/** The text of every output area under `scope` (CSS), one string per cell, in order. */
function cellOutputs(page, scope) {
  return page.$$eval(`${scope} .jp-Cell`, (cells) => cells.map((cell) => {
    const area = cell.querySelector(".jp-OutputArea");
    return area ? area.innerText : "";
  }));
}

/** The heatmap <img> of output `index` under `scope`, decoded: its size and the colour at the
 * centre of each of the rows x cols blocks (row-major). */
function heatmapColours(page, scope, index, rows, cols) {
  return page.evaluate(async ({ scope, index, rows, cols }) => {
    const cells = [...document.querySelectorAll(`${scope} .jp-Cell`)]
      .filter((c) => c.querySelector(".jp-OutputArea img"));
    const img = cells[index]?.querySelector(".jp-OutputArea img");
    if (!img) return null;
    await img.decode();
    const canvas = new OffscreenCanvas(img.naturalWidth, img.naturalHeight);
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const colours = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const x = Math.floor((c + 0.5) * img.naturalWidth / cols);
        const y = Math.floor((r + 0.5) * img.naturalHeight / rows);
        colours.push([...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)]);
      }
    }
    return { width: img.naturalWidth, height: img.naturalHeight, alt: img.alt,
      src: img.src.slice(0, 22), colours };
  }, { scope, index, rows, cols });
}

/** Viridis, sampled in value order: starts and ends at the map's ends, green always rises. */
function checkSequential(found, what) {
  check(found, `${what}: no heatmap image in the output`);
  check(found.src === "data:image/png;base64,", `${what}: not an inline PNG (${found.src})`);
  const { colours } = found;
  check(JSON.stringify(colours[0]) === JSON.stringify(VIRIDIS_FIRST),
    `${what}: the smallest value is ${colours[0]}, not viridis' first colour ${VIRIDIS_FIRST}`);
  check(JSON.stringify(colours.at(-1)) === JSON.stringify(VIRIDIS_LAST),
    `${what}: the largest value is ${colours.at(-1)}, not viridis' last colour ${VIRIDIS_LAST}`);
  for (let i = 1; i < colours.length; i++) {
    check(colours[i][1] > colours[i - 1][1],
      `${what}: colours do not brighten with the values: ${JSON.stringify(colours)}`);
  }
}

// ---- tests -------------------------------------------------------------------------------------
// An off-site URL the kernel asks for (where piplite's PyPI fallback would go): it must fail.
const OFFSITE_PROBE = "https://pypi.org/simple/webtensor/";
const REPL_CELLS = [
  "%pip install webtensor",
  "import webtensor as wt\nx = wt.arange(12, dtype=wt.float32).reshape((3, 4))\ny = x @ x.T\nprint(y)",
  "import json\nprint(json.dumps({'device': str(y.device), 'default': str(wt.default_device()), " +
    "'backend': wt.device_info()['adapter']['backend_type'], 'values': y.tolist()}))",
  "x",
  `import js\ntry:\n    await js.fetch(${JSON.stringify(OFFSITE_PROBE)})\n    print("offline: NO")\n` +
    "except Exception as e:\n    print('offline: yes,', type(e).__name__)",
];

async function repl({ page, origin, timings }) {
  const query = ["kernel=python", "toolbar=1",
    ...REPL_CELLS.map((code) => `code=${encodeURIComponent(code)}`)].join("&");
  const t0 = performance.now();
  await page.goto(`${origin}/lite/repl/index.html?${query}`);
  const scope = ".jp-CodeConsole";
  // First printed tensor: cell 2's output (cell 1 is the install).
  await page.waitForFunction(
    () => [...document.querySelectorAll(".jp-CodeConsole .jp-Cell .jp-OutputArea")]
      .some((a) => a.innerText.includes("[[ 14.")),
    null, { timeout: KERNEL_TIMEOUT_MS + CELL_TIMEOUT_MS });
  timings.firstTensor = (performance.now() - t0) / 1000;
  await page.waitForFunction(
    () => document.querySelector(".jp-CodeConsole .jp-Cell .jp-OutputArea img") != null,
    null, { timeout: CELL_TIMEOUT_MS });
  timings.heatmap = (performance.now() - t0) / 1000;
  const outputs = (await cellOutputs(page, scope)).filter(Boolean);
  const text = outputs.join("\n---\n");
  check(!/Traceback|Error/.test(text), `an error in the REPL:\n${text}`);
  const line = outputs.find((o) => o.trim().startsWith("{\"device\""));
  check(line, `no JSON line in the REPL outputs:\n${text}`);
  const got = JSON.parse(line.trim());
  // x = 0..11 as a (3, 4) matrix; y = x @ x.T computed here by plain arithmetic.
  const x = [0, 1, 2].map((r) => [0, 1, 2, 3].map((c) => 4 * r + c));
  const want = x.map((a) => x.map((b) => a.reduce((s, v, k) => s + v * b[k], 0)));
  check(got.device === "webgpu" && got.default === "webgpu",
    `computed on ${got.device} (default ${got.default}), not webgpu`);
  check(got.backend === "WebGPU (browser)", `backend ${got.backend}`);
  check(JSON.stringify(got.values) === JSON.stringify(want), `x @ x.T = ${got.values}, want ${want}`);
  const heat = await heatmapColours(page, scope, 0, 3, 4);
  checkSequential(heat, "the REPL heatmap of x");
  check(heat.alt === "heatmap of a float32 tensor of shape (3, 4)", `alt text: ${heat.alt}`);
  await page.waitForFunction(
    () => [...document.querySelectorAll(".jp-CodeConsole .jp-Cell .jp-OutputArea")]
      .some((a) => a.innerText.includes("offline: ")),
    null, { timeout: CELL_TIMEOUT_MS });
  const probe = /offline: (.*)/.exec((await cellOutputs(page, scope)).join("\n"))[1];
  check(probe.startsWith("yes"), `the kernel reached ${OFFSITE_PROBE}: the network is not blocked`);
  await page.screenshot({ path: path.join(artifacts, "repl.png") });
}

// Opens lite/notebooks/?path=<file>, runs Run > Run All Cells (the kernel starts on its own;
// cells queue until it is ready), waits for every code cell to finish and checks no cell
// failed; `timings[name]` gets the seconds, artifacts/<name>.png the page.
async function runAllCells(page, origin, file, name, timings) {
  const t0 = performance.now();
  await page.goto(`${origin}/lite/notebooks/index.html?path=${file}`);
  const scope = ".jp-Notebook";
  await page.waitForSelector(`${scope} .jp-Cell`, { timeout: KERNEL_TIMEOUT_MS });
  const nCode = await page.$$eval(`${scope} .jp-CodeCell`, (cells) => cells.length);
  await page.getByRole("menuitem", { name: "Run", exact: true }).click();
  await page.getByRole("menuitem", { name: /^Run All Cells/ }).click();
  await page.waitForFunction(({ scope, nCode }) => {
    const prompts = [...document.querySelectorAll(`${scope} .jp-CodeCell .jp-InputPrompt`)];
    return prompts.length === nCode && prompts.every((p) => /\[\d+\]/.test(p.innerText));
  }, { scope, nCode }, { timeout: KERNEL_TIMEOUT_MS + 4 * CELL_TIMEOUT_MS });
  timings[name] = (performance.now() - t0) / 1000;
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  const text = (await cellOutputs(page, scope)).join("\n---\n");
  check(!/Traceback|Error:/.test(text), `an error in the notebook:\n${text}`);
  return { scope, text };
}

async function notebook({ page, origin, timings }) {
  const { scope, text } = await runAllCells(page, origin, "webtensor-tour.ipynb", "notebook",
    timings);
  const expectLine = (pattern, what) => check(pattern.test(text), `${what}: not in\n${text}`);
  expectLine(/computes on webgpu/, "the default device");
  expectLine(/int8 \+ 1\s+-> int8/, "weak int promotion");
  expectLine(/int8 \* 0\.5 -> float32/, "weak float promotion");
  expectLine(/int8, uint8\s+-> int16/, "int8 with uint8");
  expectLine(/safe mode: wt\.add: In promotion mode 'safe'/, "safe mode refusing int32 + float32");
  const matmul = /256x256 matmul on webgpu: ([\d.]+) ms, on cpu: ([\d.]+) ms/.exec(text);
  check(matmul, `no timing line in\n${text}`);
  timings.matmulGpuMs = Number(matmul[1]);
  timings.matmulCpuMs = Number(matmul[2]);
  const diff = /largest difference: ([\d.e+-]+)/.exec(text);
  check(diff && Number(diff[1]) < 1e-3, `GPU and CPU products differ: ${diff?.[1]}`);
  // The heatmaps: the waves (48 x 48, diverging) and the product's corner (4 x 4).
  const images = await page.$$eval(`${scope} .jp-OutputArea img`,
    (imgs) => imgs.map((i) => ({ alt: i.alt, w: i.naturalWidth, src: i.src.slice(0, 22) })));
  check(images.length === 2 && images.every((i) => i.w > 0 && i.src === "data:image/png;base64,"),
    `expected two decoded PNG heatmaps, got ${JSON.stringify(images)}`);
  check(images[0].alt === "heatmap of a float32 tensor of shape (48, 48)" &&
    images[1].alt === "heatmap of a float32 tensor of shape (4, 4)",
  `heatmap alt texts: ${images.map((i) => i.alt)}`);
}

// docs/notebooks/learn_spiral.ipynb (staged with a %pip cell by build_wasm.py): the training
// with wt.value_and_grad under wt.jit runs in Pyodide on WebGPU and reaches its accuracy.
async function spiral({ page, origin, timings }) {
  const { scope, text } = await runAllCells(page, origin, "learn_spiral.ipynb", "spiral", timings);
  check(/device: webgpu/.test(text), `not on webgpu:\n${text}`);
  const accuracy = /training accuracy ([\d.]+)%/.exec(text);
  check(accuracy && Number(accuracy[1]) >= 95, `training accuracy: ${accuracy?.[1]}\n${text}`);
  timings.accuracy = Number(accuracy[1]);
  const images = await page.$$eval(`${scope} .jp-OutputArea img`, (imgs) => imgs.length);
  check(images === 2, `expected the loss curve and the regions picture, got ${images} images`);
}

// name -> [test, viewport]: the notebooks' are tall, so that their screenshots show every cell.
const TESTS = {
  repl: [repl, { width: 1280, height: 900 }],
  notebook: [notebook, { width: 1280, height: 2400 }],
  spiral: [spiral, { width: 1280, height: 3000 }],
};

// ---- main ------------------------------------------------------------------------------------
const server = await serveStatic(site);
const browser = await launchChromium({ webgpu: true, args: OFFLINE_ARGS });
console.log(`lite tests in Chromium ${browser.version()}, site ${site} at ${server.url}`);
const results = [];
for (const [name, [fn, viewport]] of Object.entries(TESTS)) {
  if (only && !only.includes(name)) continue;
  const { context, blocked, logs } = await newContext(browser, server.url, viewport);
  const page = await context.newPage();
  const timings = {};
  const t0 = performance.now();
  let problem = null;
  try {
    await fn({ page, origin: server.url, timings });
    // Only the REPL's deliberate probe may have been asked for (when routing sees the worker's
    // requests; otherwise name resolution refused it).
    const unexpected = blocked.filter((url) => url !== OFFSITE_PROBE);
    check(unexpected.length === 0, `requests off the site (blocked): ${unexpected.join(", ")}`);
    timings.blocked = blocked.length;
  } catch (err) {
    problem = err instanceof Failure ? err.message : String(err?.stack ?? err);
    await page.screenshot({ path: path.join(artifacts, `${name}-failed.png`) }).catch(() => {});
  }
  await context.close();
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  results.push([problem ? "FAIL" : "ok", secs, name]);
  console.log(`\n=== ${name}: ${problem ? "FAIL" : "ok"} (${secs}s) ${JSON.stringify(timings)}`);
  if (problem) {
    console.log(`  - ${problem}`);
    console.log(logs.slice(-40).join("\n"));
  }
  if (name === "repl" && timings.firstTensor) {
    console.log(`  time to first result (REPL page open -> first printed tensor): ` +
      `${timings.firstTensor.toFixed(1)} s`);
  }
}
await browser.close();
await server.close();
console.log("\nlite tests:");
for (const [status, secs, name] of results) console.log(`  ${status.padEnd(4)} ${secs.padStart(6)}s  ${name}`);
process.exit(results.some(([s]) => s !== "ok") ? 1 : 0);
