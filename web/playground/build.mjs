#!/usr/bin/env node
// Builds the playground into a folder of static files:
//
//   node web/playground/build.mjs <outdir>      (build_wasm.py: <site>/playground)
//
// main.js (+ CodeMirror 6, the heatmap renderer, the explorer and the examples) is bundled by
// esbuild into one module; worker.js is copied as is, because it imports the site's loader
// "../webtensor.mjs" at run time (a sibling of the playground folder, never bundled);
// runner.py is fetched by the worker. The examples are web/playground/examples/*.py, in file
// name order (the first is the default); each file's first line "# Title" names it.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const nodeModules = path.resolve(here, "..", "node_modules");
const { build } = await import(path.join(nodeModules, "esbuild", "lib", "main.js"));

const outdir = process.argv[2];
if (!outdir) {
  console.error("usage: node web/playground/build.mjs <outdir>");
  process.exit(2);
}
const out = path.resolve(outdir);
const STATIC_FILES = ["index.html", "style.css", "worker.js", "runner.py"];

/** The gallery: [{name, title, code}] from examples/*.py. */
export function readExamples(dir = path.join(here, "examples")) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".py"))
    .sort()
    .map((file) => {
      const code = readFileSync(path.join(dir, file), "utf8");
      const first = code.split("\n", 1)[0];
      const name = file.replace(/^\d+[_-]/, "").replace(/\.py$/, "");
      const title = first.startsWith("#") ? first.replace(/^#\s*/, "") : name;
      return { name, title, code };
    });
}

const examplesPlugin = {
  name: "examples",
  setup(b) {
    b.onResolve({ filter: /^virtual:examples$/ }, () => ({ path: "examples", namespace: "examples" }));
    b.onLoad({ filter: /.*/, namespace: "examples" }, () => ({
      contents: `export default ${JSON.stringify(readExamples())};`,
      loader: "js",
      watchFiles: readdirSync(path.join(here, "examples")).map((f) => path.join(here, "examples", f)),
    }));
  },
};

const t0 = performance.now();
rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, "examples"), { recursive: true });
await build({
  entryPoints: [path.join(here, "main.js")],
  outfile: path.join(out, "main.js"),
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: "linked",
  nodePaths: [nodeModules],
  plugins: [examplesPlugin],
  logLevel: "warning",
  legalComments: "linked",
});
for (const f of STATIC_FILES) copyFileSync(path.join(here, f), path.join(out, f));
for (const ex of readdirSync(path.join(here, "examples")).filter((f) => f.endsWith(".py"))) {
  copyFileSync(path.join(here, "examples", ex), path.join(out, "examples", ex));
}
console.log(`playground built in ${out} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
