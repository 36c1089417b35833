#!/usr/bin/env node
// Run the webtensor test suite inside Pyodide (CPython compiled to WebAssembly) in Node.
//
// Usage (from anywhere; scripts/test.sh prepares everything):
//   node tests/pyodide/run_pytest.mjs [--wheel dist/webtensor-X-py3-none-any.whl]
//                                     [--deps-dir .cache/pyodide-wheels] [--] [pytest args...]
//
// - Pyodide comes from web/node_modules (npm package "pyodide", pinned in web/package.json).
// - pytest, hypothesis and their dependencies are the pure wheels pinned in
//   tests/pyodide/requirements.txt, downloaded beforehand into --deps-dir. The npm package
//   ships no wheels and nothing is fetched from the network here.
// - webtensor is installed from the built wheel (default: newest dist/webtensor-*.whl), so the
//   tests exercise the installed package, shaders included.
// - The repository is mounted at /repo (NODEFS) and pytest runs there, so pyproject.toml's
//   pytest settings apply. Extra arguments are passed to pytest.main(); without any, pytest
//   uses `testpaths`. The process exits with pytest's exit code.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const t0 = performance.now();
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..");
const seconds = (t) => ((performance.now() - t) / 1000).toFixed(1);

function fail(msg) {
  console.error(`run_pytest.mjs: ${msg}`);
  process.exit(2);
}

// ---- arguments -----------------------------------------------------------------------------
let wheel = null;
let depsDir = path.join(repoRoot, ".cache", "pyodide-wheels");
const pytestArgs = [];
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      pytestArgs.push(...argv.slice(i + 1));
      break;
    } else if (a === "--wheel") {
      wheel = path.resolve(argv[++i]);
    } else if (a === "--deps-dir") {
      depsDir = path.resolve(argv[++i]);
    } else {
      pytestArgs.push(a);
    }
  }
}

if (wheel === null) {
  const distDir = path.join(repoRoot, "dist");
  const candidates = existsSync(distDir)
    ? readdirSync(distDir)
        .filter((f) => /^webtensor-.*-py3-none-any\.whl$/.test(f))
        .map((f) => path.join(distDir, f))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  if (candidates.length === 0) fail(`no webtensor wheel in ${distDir}; build it first`);
  wheel = candidates[0];
}
if (!existsSync(wheel)) fail(`wheel not found: ${wheel}`);

// Wheels pinned in requirements.txt ("name==version" lines), located in depsDir.
const normalize = (name) => name.toLowerCase().replace(/[-_.]+/g, "_");
const depWheels = [];
{
  const reqFile = path.join(here, "requirements.txt");
  const files = existsSync(depsDir) ? readdirSync(depsDir).filter((f) => f.endsWith(".whl")) : [];
  for (const raw of readFileSync(reqFile, "utf8").split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const m = /^([A-Za-z0-9_.-]+)==([^\s;]+)$/.exec(line);
    if (!m) fail(`${reqFile}: expected "name==version", got "${line}"`);
    const prefix = `${normalize(m[1])}-${m[2]}-`;
    const found = files.find((f) => {
      const [name, version] = f.split("-");
      return `${normalize(name)}-${version}-` === prefix;
    });
    if (!found) fail(`${m[1]}==${m[2]} not found in ${depsDir} (run scripts/test.sh to download it)`);
    if (!found.endsWith("-none-any.whl")) fail(`${found} is not a pure-Python wheel`);
    depWheels.push(path.join(depsDir, found));
  }
}

// ---- Pyodide -------------------------------------------------------------------------------
const pyodideDir = path.join(repoRoot, "web", "node_modules", "pyodide");
if (!existsSync(path.join(pyodideDir, "pyodide.mjs"))) {
  fail(`Pyodide not installed in ${pyodideDir}; run "npm ci" in web/`);
}
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);

// Pass WEBTENSOR_* settings (e.g. WEBTENSOR_CPU=python) and CI through to Python's os.environ.
const env = { HOME: "/home/pyodide" };
for (const [k, v] of Object.entries(process.env)) {
  if (k.startsWith("WEBTENSOR_") || k === "CI") env[k] = v;
}

let t = performance.now();
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep, env });
const loadSecs = seconds(t);

// Raw (unbuffered) stdout/stderr so pytest's progress output looks as it does natively.
const isatty = Boolean(process.stdout.isTTY);
pyodide.setStdout({ write: (buf) => process.stdout.write(buf) && buf.length, isatty });
pyodide.setStderr({ write: (buf) => process.stderr.write(buf) && buf.length, isatty: false });

t = performance.now();
// loadPackage accepts wheel paths; in Node they are read from the local file system.
await pyodide.loadPackage([...depWheels, wheel], { messageCallback: () => {} });
const installSecs = seconds(t);

pyodide.FS.mkdirTree("/repo");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: repoRoot }, "/repo");

t = performance.now();
// Only inspect webtensor here; importing it (or pytest plugins) before pytest.main() would
// bypass assertion rewriting and any import-time settings the tests control.
const header = pyodide.runPython(`
import importlib.metadata as md, importlib.util, os, platform, sys
import pyodide
os.chdir("/repo")
origin = importlib.util.find_spec("webtensor").origin
assert sys.platform == "emscripten", sys.platform
assert not origin.startswith("/repo/"), f"webtensor would be imported from the source tree: {origin}"
"\\n".join([
    f"Pyodide {pyodide.__version__}, Python {platform.python_version()}, sys.platform={sys.platform!r}",
    f"pytest {md.version('pytest')}, hypothesis {md.version('hypothesis')}",
    f"webtensor {md.version('webtensor')} from {os.path.dirname(origin)}",
])
`);
console.log(header);
console.log(`[pyodide] start ${loadSecs}s, install wheels ${installSecs}s, inspect ${seconds(t)}s`);

t = performance.now();
// No cache provider: keep the native runs' .pytest_cache untouched.
pyodide.globals.set("pytest_args_json", JSON.stringify(pytestArgs));
const rc = pyodide.runPython(`
import json, pytest
int(pytest.main(["-p", "no:cacheprovider", *json.loads(pytest_args_json)]))
`);
console.log(`[pyodide] pytest exit code ${rc}; pytest ${seconds(t)}s, total ${seconds(t0)}s`);
process.exit(rc);
