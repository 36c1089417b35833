// Runs peers.html in headless Chromium and prints webtensor vs TensorFlow.js vs jax-js.
//
//   python build_wasm.py && node bench/browser/run_peers.mjs [--site build/site] [--json out.json]
//       [--only "scatter,chain"]    # only the workloads whose names contain one of these
//       [--rounds 3]                # the libraries take turns this many times; medians shown
//
// Bundles the peers with esbuild, serves the built site at / and the benchmark page at /bench/,
// and drives /usr/bin/chromium (or $CHROMIUM) with WebGPU enabled.
import { mkdir, copyFile, writeFile } from "node:fs/promises";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { launchChromium, serveStatic } from "../../tests/harness.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");
const WEB_MODULES = join(ROOT, "web", "node_modules");
const { values: args } = parseArgs({
  options: {
    site: { type: "string", default: join(ROOT, "build", "site") },
    json: { type: "string" },
    timeout: { type: "string", default: "1800" },
    only: { type: "string", default: "" },
    rounds: { type: "string", default: "3" },
  },
});

if (!/^[1-9][0-9]*$/.test(args.rounds)) {
  console.error(`run_peers: --rounds must be a positive integer, got ${JSON.stringify(args.rounds)}`);
  process.exit(2);
}

const esbuild = await import(pathToFileURL(join(WEB_MODULES, "esbuild", "lib", "main.js")));

const out = join(ROOT, "build", "bench-browser");
await mkdir(out, { recursive: true });
await esbuild.build({
  entryPoints: [join(HERE, "peers_entry.mjs")], bundle: true, format: "iife",
  outfile: join(out, "peers_bundle.js"), nodePaths: [WEB_MODULES], logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
});
for (const f of ["peers.html", "peers.mjs"]) await copyFile(join(HERE, f), join(out, f));

const server = await serveStatic(args.site, { routes: [["/bench/", out]] });
const url = `${server.url}/bench/peers.html?only=${encodeURIComponent(args.only)}` +
            `&rounds=${encodeURIComponent(args.rounds)}`;
const browser = await launchChromium({ webgpu: true });
let result;
try {
  const page = await browser.newPage();
  page.on("console", (m) => { if (m.type() === "error") console.error(`[page] ${m.text()}`); });
  page.on("pageerror", (e) => console.error(`[page error] ${e}`));
  await page.goto(url);
  await page.waitForFunction(() => globalThis.benchResult !== undefined, null,
                             { timeout: Number(args.timeout) * 1000, polling: 500 });
  result = await page.evaluate(() => globalThis.benchResult);
} finally {
  await browser.close();
  server.close();
}
if (result.fatal) {
  console.error(result.fatal);
  process.exit(1);
}

// One row per workload: each library's median time and its rate, and webtensor's time relative
// to each peer: the median of the ratios within a round (the two were timed minutes apart at
// most), with their range when there were several rounds.
const libs = Object.keys(result.ms);
const rate = (w, ms) => (w.flop ? `${(w.flop / ms / 1e6).toFixed(2)} GFLOP/s`
                                : `${(w.bytes / ms / 1e6).toFixed(2)} GB/s`);
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
function ratio(w, peer) {
  const mine = result.samples.webtensor?.[w.name];
  const other = result.samples[peer]?.[w.name];
  if (!mine || !other) return "-";
  // a peer timed once (too slow to repeat) is compared with every round of webtensor's
  const per = mine.map((m, i) => m / other[Math.min(i, other.length - 1)]);
  const range = per.length > 1 ? ` (${Math.min(...per).toFixed(2)}-${Math.max(...per).toFixed(2)})` : "";
  return `${median(per).toFixed(2)}x${range}`;
}
const rows = [["workload", ...libs.map((l) => `${l} ms (rate)`),
               ...libs.filter((l) => l !== "webtensor").map((l) => `webtensor / ${l}`)]];
for (const w of result.workloads) {
  const ms = libs.map((l) => result.ms[l][w.name]);
  rows.push([w.name,
             ...ms.map((m, i) => (m !== undefined ? `${m.toFixed(2)} (${rate(w, m)})`
                                   : result.errors[`${libs[i]}: ${w.name}`] ? "error" : "n/a")),
             ...libs.filter((l) => l !== "webtensor").map((l) => ratio(w, l))]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
console.log(`adapter: ${result.adapter} (headless Chromium; medians of ${result.rounds} rounds; ` +
            "ratio < 1: webtensor faster)");
for (const [i, r] of rows.entries()) {
  console.log(r.map((c, j) => (j ? c.padStart(widths[j]) : c.padEnd(widths[j]))).join("  "));
  if (i === 0) console.log(widths.map((n) => "-".repeat(n)).join("  "));
}
// The first element of each result, as a check that every library computed the same thing
// (the 16M sum's input differs for webtensor: it is built on the device, not from the page).
console.log("\nfirst element of each result:");
for (const w of result.workloads) {
  console.log(`  ${w.name.padEnd(16)} ` +
              libs.map((l) => `${l}=${result.values[l]?.[w.name] ?? "-"}`).join("  "));
}
for (const [k, v] of Object.entries(result.errors)) console.log(`error: ${k}: ${v}`);
if (args.json) await writeFile(args.json, JSON.stringify(result, null, 2));
