#!/usr/bin/env node
// Playground startup and default-example timings in headless Chromium (numbers, never pass/fail).
//
//   node bench/bench_playground.mjs [--site build/site] [--runs 3]
//
// For a launch with WebGPU (SwiftShader here) and one without (the CPU fallback), reports:
//   page interactive  navigation start -> editor shown and Run clickable (Python still loading)
//   python ready      navigation start -> the worker reports webtensor imported (Run executes)
//   default example   the first run and the median of --runs later runs: the Python-side time
//                     (compute + show) and the wall time seen by the page (incl. drawing).
//                     The first Run is clicked as soon as Python is ready; with WebGPU it waits
//                     for the example's silent warm-up (which compiles its pipelines), so its
//                     Python time is a later run's and its wall time includes the warm-up
// A fresh browser context per launch, so nothing comes from the HTTP or code cache. Also prints
// the size of the page's bundle (main.js: CodeMirror, the renderer, the explorer, the examples).
import { readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { checkSite, launchChromium, openPlayground, repoRoot, serveStatic } from "../tests/playground/harness.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const site = path.resolve(option("--site", path.join(repoRoot, "build", "site")));
const runs = Number(option("--runs", "3"));
checkSite(site);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function runDefault(page) {
  await page.evaluate(() => (window.playground.lastRun = null));
  await page.click("#run");
  await page.waitForFunction(() => window.playground.lastRun != null, null, { timeout: 300_000 });
  const report = await page.evaluate(() => window.playground.lastRun);
  if (!report.ok) throw new Error(`the default example failed: ${report.error.traceback}`);
  return report;
}

// wt.show of a 4M-element tensor already on the device: Python's time (block means and
// statistics on the device, one small transfer) and the page's (run -> figure drawn).
const SHOW = `import time
import webtensor as wt
x = wt.reshape(wt.sin(wt.arange(4_000_000, dtype=wt.float32) * 0.001), (2000, 2000))
wt.sync()
t0 = time.perf_counter()
wt.show(x)
print(f"show {time.perf_counter() - t0:.3f}")`;

async function timeShow(page) {
  await page.evaluate((code) => window.playground.editor.setCode(code), SHOW);
  await page.evaluate(() => (window.playground.lastRun = null));
  await page.click("#run");
  await page.waitForFunction(() => window.playground.lastRun != null, null, { timeout: 300_000 });
  const report = await page.evaluate(() => window.playground.lastRun);
  if (!report.ok) throw new Error(`the show run failed: ${report.error.traceback}`);
  const py = Number(/show ([\d.]+)/.exec(await page.textContent("#output"))[1]);
  return { py, wall: report.wall };
}

const server = await serveStatic(site);
const rows = [];
for (const webgpu of [true, false]) {
  const browser = await launchChromium({ webgpu });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await openPlayground(context, server.url);
    const times = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      return { interactive: nav.domContentLoadedEventEnd, ready: window.playground.readyAt };
    });
    const badge = await page.textContent("#device-badge");
    const first = await runDefault(page);
    const later = [];
    for (let i = 0; i < runs; i++) later.push(await runDefault(page));
    const shows = [];
    for (let i = 0; i < runs; i++) shows.push(await timeShow(page));
    rows.push({
      launch: webgpu ? "--enable-unsafe-webgpu" : "no WebGPU",
      device: badge,
      "page interactive ms": Math.round(times.interactive),
      "python ready ms": Math.round(times.ready),
      "1st run s (py/wall)": `${first.seconds.toFixed(2)} / ${first.wall.toFixed(2)}`,
      [`median of ${runs} s (py/wall)`]:
        `${median(later.map((r) => r.seconds)).toFixed(2)} / ${median(later.map((r) => r.wall)).toFixed(2)}`,
      "show 2000x2000 s (py/wall)": `${median(shows.map((r) => r.py)).toFixed(2)} / ${median(shows.map((r) => r.wall)).toFixed(2)}`,
    });
  } finally {
    await browser.close();
  }
}
await server.close();
const bundle = readFileSync(path.join(site, "playground", "main.js"));
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`playground benchmark (site ${site}, Chromium headless)`);
console.log(`bundle playground/main.js: ${kb(bundle.length)} minified, ${kb(gzipSync(bundle).length)} gzip`);
console.table(rows);
