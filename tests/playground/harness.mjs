// Shared by the playground tests (run.mjs) and benchmark (bench/bench_playground.mjs): a static
// file server for the built site on loopback, and headless Chromium through playwright-core.
import { createReadStream, existsSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "..", "..");
const { chromium } = await import(
  pathToFileURL(path.join(repoRoot, "web", "node_modules", "playwright-core", "index.mjs")).href
);

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const BASE_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".py": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".zip": "application/zip",
  ".whl": "application/zip",
  ".tar": "application/x-tar",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** Serves `root` on 127.0.0.1 (a free port); resolves to {url, close()}. */
export function serveStatic(root) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    let file = path.join(base, decodeURIComponent(url.pathname));
    if (!file.startsWith(base)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, "index.html");
    if (!existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${url.pathname}`);
      return;
    }
    res.writeHead(200, {
      "content-type": MIME[path.extname(file)] ?? "application/octet-stream",
      "content-length": statSync(file).size,
      // Cacheable, so later pages of one browser context reuse the compiled Wasm; each server
      // has a fresh port (a fresh origin), so a rebuilt site is never served stale.
      "cache-control": "max-age=3600",
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}

/** Headless Chromium; `webgpu: false` leaves out --enable-unsafe-webgpu (no adapter). */
export async function launchChromium({ webgpu = true } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}; install the Debian package "chromium" ` +
      "or point CHROMIUM at a Chromium binary");
  }
  const args = webgpu ? [...BASE_ARGS, "--enable-unsafe-webgpu"] : BASE_ARGS;
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}

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
