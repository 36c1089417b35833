#!/usr/bin/env node
// webtensor in a real browser: headless Chromium (WebGPU on SwiftShader) + Pyodide.
//
//   python build_wasm.py                         # builds build/site (this script builds nothing)
//   node tests/browser/run.mjs [--site DIR] [--only a,b] [--bench] [-- pytest args...]
//
// Serves, on 127.0.0.1: the site at /, tests/browser/ at /browser-tests/, the repository's tests
// (+ pyproject.toml and bench/browser/) at /repo/, the pinned pytest wheels (scripts/test.sh
// downloads them to .cache/pyodide-wheels) at /wheels/. Then drives /usr/bin/chromium through
// playwright-core, one fresh browser and page (or module worker) per scenario:
//
//   pytest-main    tests/test_webgpu*.py, the webgpu device's part of tests/test_conformance.py
//                  (the op-record table) + tests/browser/test_in_browser.py in Pyodide on the
//                  browser's WebGPU, sync reads through JSPI (main thread)
//   pytest-worker  tests/browser/test_in_browser.py in a module worker
//   async-reads    plain runPython: sync reads raise naming the async twins, the twins work,
//                  a bad kernel fails at the next async read
//   no-adapter     requestAdapter() resolves null -> cpu device + one notice
//   no-webgpu      navigator.gpu undefined -> cpu device + one notice
//   bad-index-url  loadWebtensor with a wrong indexURL -> a clear error
//   plain-first-use  plain_pyodide.html: loadPyodide + loadPackage(wheel URL), no webtensor JS;
//                  runPythonAsync: the first GPU use opens the device (JSPI), a matmul on webgpu
//   plain-no-jspi  the same page with runPython only: the webgpu device is refused naming
//                  `await wt.init_async()`, which opens it; the async twins read the result
//   plain-csp      the page served with a Content-Security-Policy without 'unsafe-eval': the
//                  wheel's executor cannot be evaluated -> cpu, the reason names the fix
//   plain-csp-registered  the same page registering the executor module itself: webgpu
//   overhead       (--bench) per-op overhead micro-benchmark; compare with bench/browser/overhead.py
//                  run natively
// Exit code 0 when every scenario passes.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { CHROMIUM, launchChromium, repoRoot, serveStatic } from "../harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// pytest-main takes 7.5-8 minutes on 2 vCPUs (mostly SwiftShader compiling shaders): the limit
// only catches a hung page, so it leaves room for a slower machine.
const SCENARIO_TIMEOUT_MS = 15 * 60 * 1000;
// Asserts the SwiftShader default-device rule of native CPython; in a browser any adapter is the
// default (tests/browser/test_in_browser.py::test_default_device_in_browser checks that rule).
// The op-record table's CPU part (pure Python under jit) is the Pyodide stage's, and its random
// cases would draw subnormals this adapter may flush (tests/_flushing.py lists the
// deterministic ones): node ids are prefixes here.
const DESELECT = ["tests/test_webgpu.py::test_default_device_rule",
  "tests/test_conformance.py::test_grid[python-", "tests/test_conformance.py::test_random_cases"];

function fail(msg) {
  console.error(`run.mjs: ${msg}`);
  process.exit(2);
}

// ---- arguments -----------------------------------------------------------------------------
let site = path.join(repoRoot, "build", "site");
let only = null;
let bench = false;
let pytestArgs = null;
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      pytestArgs = argv.slice(i + 1);
      break;
    } else if (a === "--site") site = path.resolve(argv[++i]);
    else if (a === "--only") only = new Set(argv[++i].split(","));
    else if (a === "--bench") bench = true;
    else fail(`unknown argument ${a}`);
  }
}
if (!existsSync(path.join(site, "webtensor.mjs"))) {
  fail(`${site} has no webtensor.mjs; build the site first: python build_wasm.py`);
}
if (!existsSync(CHROMIUM)) fail(`${CHROMIUM} is missing; apt-get install chromium`);
const wheelName = readdirSync(path.join(site, "pyodide")).find((f) => /^webtensor-.*\.whl$/.test(f));
if (!wheelName) fail(`${site}/pyodide has no webtensor wheel; build the site: python build_wasm.py`);

// pytest and friends: the exact wheels pinned in tests/pyodide/requirements.txt.
const wheelsDir = path.join(repoRoot, ".cache", "pyodide-wheels");
const normalize = (name) => name.toLowerCase().replace(/[-_.]+/g, "_");
const wheels = [];
{
  const files = existsSync(wheelsDir) ? readdirSync(wheelsDir) : [];
  const reqs = readFileSync(path.join(repoRoot, "tests", "pyodide", "requirements.txt"), "utf8");
  for (const raw of reqs.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const [name, version] = line.split("==");
    const found = files.find((f) => {
      const [n, v] = f.split("-");
      return f.endsWith(".whl") && normalize(n) === normalize(name) && v === version;
    });
    if (!found) fail(`${line} not in ${wheelsDir} (scripts/test.sh downloads it)`);
    wheels.push(found);
  }
}

// Repository files the in-browser pytest run needs: settings, helpers, the webgpu test files and
// the op-record table's (tests/_op_records.py, run on every device by test_conformance.py).
const WEBGPU_TESTS = /^test_(webgpu.*|conformance)\.py$/;
const testFiles = readdirSync(path.join(repoRoot, "tests"))
  .filter((f) => f.endsWith(".py") && (f.startsWith("_") || f === "conftest.py" ||
    WEBGPU_TESTS.test(f)))
  .map((f) => `tests/${f}`);
const mounted = ["pyproject.toml", ...testFiles, "tests/browser/test_in_browser.py"];
const webgpuTests = testFiles.filter((f) => WEBGPU_TESTS.test(path.basename(f)));

// ---- static server -------------------------------------------------------------------------
const ROUTES = [
  ["/browser-tests/", here],
  ["/executor/", path.join(repoRoot, "core", "webtensor", "backends", "webgpu")],
  ["/wheels/", wheelsDir],
  ["/repo/tests/", path.join(repoRoot, "tests")],
  ["/repo/bench/", path.join(repoRoot, "bench")],
  ["/repo/pyproject.toml", path.join(repoRoot, "pyproject.toml")],
];
const server = await serveStatic(site, { routes: ROUTES, cache: false });
const origin = server.url;

// ---- scenarios -------------------------------------------------------------------------------
const STUB_NO_ADAPTER = () => {
  if (globalThis.navigator.gpu) globalThis.navigator.gpu.requestAdapter = async () => null;
};
const STUB_NO_WEBGPU = () => {
  Object.defineProperty(Navigator.prototype, "gpu", { get: () => undefined });
};
const NOTICE = "[stderr] webtensor: no WebGPU here";
const CSP_NO_EVAL = "script-src 'self' 'wasm-unsafe-eval' 'unsafe-inline'";

const expect = (cond, what) => (cond ? null : what);
const SCENARIOS = [
  {
    name: "pytest-main", scenario: "pytest",
    config: { files: mounted, wheels,
      args: pytestArgs ?? ["-q", ...webgpuTests, "tests/browser/test_in_browser.py",
        ...DESELECT.flatMap((t) => ["--deselect", t])] },
    checks: (r) => [expect(r.rc === 0, `pytest exit code ${r.rc}`)],
  },
  {
    name: "pytest-worker", scenario: "pytest", worker: true,
    config: { files: mounted, wheels, args: ["-q", "tests/browser/test_in_browser.py"] },
    checks: (r) => [expect(r.rc === 0, `pytest exit code ${r.rc}`),
      expect(r.where === "worker", `ran in the ${r.where}`)],
  },
  {
    name: "async-reads", scenario: "asyncReads",
    checks: (r) => [
      expect(r.device === "webgpu", `default device ${r.device}, expected webgpu`),
      expect(r.canRunSync === false, "can_run_sync() was true under runPython"),
      expect(r.syncErrors.length === 3 &&
        r.syncErrors.every((m) => m.includes("await x.tolist_async()")),
      `sync reads did not all raise naming the async twin: ${JSON.stringify(r.syncErrors)}`),
      expect(r.same && r.sameItem, `async twins differ from the cpu device: ${r.got}`),
      expect(/failed to compile[\s\S]*line \d+/.test(r.compileError ?? ""),
        `no clear compile error: ${r.compileError}`),
      expect(r.recovered, "the device did not keep working after the compile error"),
    ],
  },
  ...[["no-adapter", STUB_NO_ADAPTER, "requestAdapter() found no WebGPU adapter"],
    ["no-webgpu", STUB_NO_WEBGPU, "navigator.gpu is undefined"]].map(([name, stub, reason]) => ({
    name, scenario: "noAdapter", initScript: stub,
    checks: (r) => [
      expect(r.device === "cpu" && r.xDevice === "cpu" && r.deviceAgain === "cpu",
        `devices ${r.device}/${r.xDevice}`),
      expect(JSON.stringify(r.values) === "[2,4,6]", `values ${r.values}`),
      expect(JSON.stringify(r.devices) === '["cpu"]', `devices ${r.devices}`),
      expect(r.reason.includes(reason), `reason ${r.reason}`),
      expect(r.lines.filter((l) => l.startsWith(NOTICE)).length === 1 &&
        r.lines.some((l) => l.startsWith(NOTICE) && l.includes(reason)),
      `expected one notice naming "${reason}": ${JSON.stringify(r.lines)}`),
    ],
  })),
  {
    name: "bad-index-url", scenario: "badIndexURL",
    checks: (r) => [expect(r.message.includes("could not load Pyodide from") &&
      r.message.includes("/no-such-folder/") && r.message.includes("build_wasm.py"),
    `message: ${r.message}`)],
  },
  {
    name: "plain-first-use", plain: "first-use",
    checks: (r) => [
      expect(r.device === "webgpu" && r.yDevice === "webgpu", `devices ${r.device}/${r.yDevice}`),
      expect(r.backend === "WebGPU (browser)", `backend ${r.backend}`),
      expect(JSON.stringify(r.values) === JSON.stringify(r.want), `${r.values} != ${r.want}`),
      expect(r.lines.some((l) => l.includes("webgpu")), "print(y) did not name the device"),
      expect(!r.lines.some((l) => l.startsWith("[stderr]")), `stderr: ${r.lines}`),
    ],
  },
  {
    name: "plain-no-jspi", plain: "no-jspi",
    checks: (r) => [
      expect(r.canRunSync === false, "can_run_sync() was true under runPython"),
      expect(r.refused.includes("await wt.init_async()"), `refusal: ${r.refused}`),
      expect(r.before === "cpu", `default before init_async: ${r.before}`),
      expect(r.lines.filter((l) => l.includes("WebGPU device is not open yet")).length === 1 &&
        r.lines.some((l) => l.includes("await wt.init_async()")),
      `expected one notice naming init_async: ${JSON.stringify(r.lines)}`),
      expect(r.opened === "webgpu" && r.device === "webgpu" && r.yDevice === "webgpu",
        `init_async -> ${r.opened}, default ${r.device}, y on ${r.yDevice}`),
      expect(JSON.stringify(r.values) === JSON.stringify(r.want), `${r.values} != ${r.want}`),
      expect(r.syncRead.includes("await x.tolist_async()"), `sync read: ${r.syncRead}`),
    ],
  },
  {
    name: "plain-csp", plain: "report", csp: true,
    checks: (r) => [
      expect(r.device === "cpu", `default device ${r.device} where the executor cannot load`),
      expect(JSON.stringify(r.values) === "[2,4,6]", `values ${r.values}`),
      expect(r.reason.includes("EvalError") && r.reason.includes("'unsafe-eval'") &&
        r.reason.includes("pyodide.registerJsModule('webtensor_gpu_executor'"),
      `reason does not name the fix: ${r.reason}`),
    ],
  },
  {
    name: "plain-csp-registered", plain: "first-use", csp: true,
    executor: "/executor/gpu_executor.mjs",
    checks: (r) => [
      expect(r.device === "webgpu" && r.yDevice === "webgpu", `devices ${r.device}/${r.yDevice}`),
      expect(JSON.stringify(r.values) === JSON.stringify(r.want), `${r.values} != ${r.want}`),
    ],
  },
  {
    name: "overhead", scenario: "overhead", bench: true,
    config: { n: 1000, sizes: [16, 4096] },
    checks: () => [],
  },
];

// Each scenario gets a fresh browser: no GPU-process state (pytest-main's buffers, the
// async-reads scenario's deliberately bad kernel) carries from one scenario into the next.
async function runScenario(s) {
  const browser = await launchChromium({ webgpu: true });
  try {
    return await runIn(browser, s);
  } finally {
    await browser.close();
  }
}

async function runIn(browser, s) {
  const page = await browser.newPage();
  const pageErrors = [];
  page.on("pageerror", (err) => pageErrors.push(String(err)));
  if (s.initScript) await page.addInitScript(s.initScript);
  let run;
  if (s.plain) {
    const query = new URLSearchParams({ pyodide: "/pyodide/pyodide.mjs",
      wheel: `/pyodide/${wheelName}`, mode: s.plain, ...(s.executor && { executor: s.executor }) });
    if (s.csp) {
      // What Pyodide itself needs, and no 'unsafe-eval'.
      await page.route("**/plain_pyodide.html*", async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, headers: { ...response.headers(),
          "content-security-policy": CSP_NO_EVAL } });
      });
    }
    await page.goto(`${origin}/browser-tests/plain_pyodide.html?${query}`);
    // Polled from here: waitForFunction would evaluate a string in a page whose CSP forbids it.
    run = (async () => {
      for (;;) {
        const done = await page.evaluate(() => globalThis.plainDone ?? null);
        if (done) return done;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
  } else {
    await page.goto(`${origin}/browser-tests/page.html`);
    run = page.evaluate(async ({ name, config, worker }) => {
      const m = await import("/browser-tests/scenarios.mjs");
      return worker ? m.runInWorker(name, config) : m.runScenario(name, config);
    }, { name: s.scenario, config: s.config ?? {}, worker: Boolean(s.worker) });
  }
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, lines: [], error: "timed out" }),
      SCENARIO_TIMEOUT_MS);
  });
  const r = await Promise.race([run, timeout]);
  clearTimeout(timer);
  await page.close();
  return { r, pageErrors };
}

const results = [];
for (const s of SCENARIOS) {
  if (only ? !only.has(s.name) : s.bench && !bench) continue;
  const t0 = performance.now();
  let outcome;
  try {
    outcome = await runScenario(s);
  } catch (e) {
    // A crashed renderer is the browser's failure, not a result: say so and run once more.
    if (!String(e).includes("Target crashed")) throw e;
    console.log(`\n=== ${s.name}: the page crashed (${String(e).split("\n")[0]}); running it again`);
    outcome = await runScenario(s);
  }
  const { r, pageErrors } = outcome;
  const problems = r.ok ? s.checks(r).filter(Boolean) : [r.error ?? "failed"];
  problems.push(...pageErrors.map((e) => `page error: ${e}`));
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  const status = problems.length ? "FAIL" : "ok";
  results.push([status, secs, s.name]);
  console.log(`\n=== ${s.name}: ${status} (${secs}s)`);
  if (s.scenario === "pytest" || s.plain || problems.length) console.log(r.lines.join("\n"));
  if (s.scenario === "overhead" && r.results) console.log(JSON.stringify(r.results, null, 1));
  for (const p of problems) console.log(`  - ${p}`);
}
await server.close();

console.log("\nbrowser tests:");
for (const [status, secs, name] of results) console.log(`  ${status.padEnd(4)} ${secs.padStart(6)}s  ${name}`);
process.exit(results.some(([status]) => status !== "ok") ? 1 : 0);
