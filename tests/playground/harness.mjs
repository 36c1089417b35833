// The playground's page helpers, for its tests (run.mjs) and benchmark (bench/bench_playground.mjs);
// the static server and Chromium launch are the shared ones in tests/harness.mjs.
import { existsSync } from "node:fs";
import path from "node:path";

export { CHROMIUM, launchChromium, repoRoot, serveStatic } from "../harness.mjs";

/** Checks that `site` looks like build_wasm.py's output, with a clear message when not. */
export function checkSite(site) {
  for (const needed of ["webtensor.mjs", "pyodide", "playground/index.html", "playground/main.js"]) {
    if (!existsSync(path.join(site, needed))) {
      throw new Error(`${path.join(site, needed)} is missing: build the site first with ` +
        "`python build_wasm.py` (or pass --site DIR)");
    }
  }
}

/** Opens the playground in a browser context and (unless `wait` is false) waits for Python. */
export async function openPlayground(context, siteUrl, { hash = "", timeout = 120_000, wait = true } = {}) {
  const page = await context.newPage();
  const logs = [];
  page.on("console", (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`[pageerror] ${e.message}`));
  page.logs = logs;
  await page.goto(`${siteUrl}/playground/${hash}`);
  if (wait) await waitReady(page, timeout);
  else await page.waitForFunction(() => window.playground != null);
  return page;
}

export async function waitReady(page, timeout = 120_000) {
  await page.waitForFunction(
    () => ["ready", "failed"].includes(document.body.dataset.state), null, { timeout });
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state !== "ready") {
    const out = await page.textContent("#output");
    throw new Error(`the playground failed to load: ${out}\n${page.logs.join("\n")}`);
  }
}
