// Shared by every browser runner (tests/browser/run.mjs, tests/playground/run.mjs,
// bench/bench_playground.mjs, bench/browser/run_peers.mjs): a static file server on loopback and
// headless Chromium through playwright-core (from web/node_modules).
import { createReadStream, existsSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "..");
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
  ".toml": "text/plain; charset=utf-8",
  ".wgsl": "text/plain; charset=utf-8",
  ".zip": "application/zip",
  ".whl": "application/zip",
  ".tar": "application/x-tar",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** The file for URL path `urlPath`: the first route [prefix, dir] it starts with, else under
 *  `root`; a folder serves its index.html; null when the path would leave its folder. */
function resolveFile(urlPath, root, routes) {
  const clean = decodeURIComponent(urlPath);
  for (const [prefix, dir] of [...routes, ["/", root]]) {
    if (clean === prefix || (prefix.endsWith("/") && clean.startsWith(prefix))) {
      const base = path.resolve(dir);
      const file = path.join(base, clean.slice(prefix.length));
      if (!file.startsWith(base)) return null;
      return existsSync(file) && statSync(file).isDirectory() ? path.join(file, "index.html") : file;
    }
  }
  return null;
}

/** Serves `root` (and `routes`: [[url prefix, folder], ...], tried first) on 127.0.0.1 at a
 *  free port; resolves to {url, close()}.  `cache: false` sends no-store (tests that rebuild). */
export function serveStatic(root, { routes = [], cache = true } = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const file = resolveFile(url.pathname, root, routes);
    if (file === null) {
      res.writeHead(403).end();
      return;
    }
    if (!existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${url.pathname}`);
      return;
    }
    res.writeHead(200, {
      "content-type": MIME[path.extname(file)] ?? "application/octet-stream",
      "content-length": statSync(file).size,
      // Cacheable by default, so later pages of one browser context reuse the compiled Wasm;
      // each server has a fresh port (a fresh origin), so a rebuilt site is never served stale.
      "cache-control": cache ? "max-age=3600" : "no-store",
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

/** Headless Chromium; `webgpu: false` leaves out --enable-unsafe-webgpu (no adapter);
 *  `args`: more command-line switches (e.g. --host-resolver-rules to go offline). */
export async function launchChromium({ webgpu = true, args: extra = [] } = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}; install the Debian package "chromium" ` +
      "or point CHROMIUM at a Chromium binary");
  }
  const args = [...BASE_ARGS, ...(webgpu ? ["--enable-unsafe-webgpu"] : []), ...extra];
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args });
}
