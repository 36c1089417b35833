#!/usr/bin/env python3
"""Build the static web site that runs webtensor in the browser (Pyodide + WebGPU).

    python build_wasm.py [--out DIR] [--serve [--port N]]

Stages, into DIR (default ``build/site/``):

* ``pyodide/``: the runtime files of the npm package ``pyodide`` (``web/node_modules/pyodide``,
  pinned in ``web/package.json``), the pure webtensor wheel, and a ``pyodide-lock.json`` with a
  ``webtensor`` entry, so ``pyodide.loadPackage("webtensor")`` installs it from the site;
* ``webtensor.mjs`` (``loadWebtensor()``) and every other JS module of ``web/``;
* ``playground/``, built by ``node web/playground/build.mjs DIR/playground`` when that exists;
* ``index.html``, redirecting to ``playground/``.

``--serve`` then serves DIR on 127.0.0.1 with the right MIME types and no caching.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import http.server
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
PYODIDE_NPM = WEB / "node_modules" / "pyodide"
# What a page needs from the npm package (sources maps help debugging; the .d.ts, README and
# demo consoles are not part of the runtime).
PYODIDE_RUNTIME = ("pyodide.mjs", "pyodide.mjs.map", "pyodide.js", "pyodide.js.map",
                   "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "package.json")
PLAYGROUND_BUILD = WEB / "playground" / "build.mjs"

MIME_TYPES = {
    ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
    ".whl": "application/zip", ".zip": "application/zip", ".json": "application/json",
    ".map": "application/json", ".html": "text/html; charset=utf-8", ".css": "text/css",
    ".py": "text/x-python; charset=utf-8", ".wgsl": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml",
}

INDEX_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>webtensor</title>
<meta http-equiv="refresh" content="0; url=playground/">
</head>
<body><p><a href="playground/">webtensor playground</a></p></body>
</html>
"""


class BuildError(RuntimeError):
    pass


def build_wheel(dest: Path) -> Path:
    """The pure ``py3-none-any`` wheel of this checkout, built into ``dest``."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", tmp,
               str(ROOT)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"building the wheel failed ({' '.join(cmd)}):\n"
                             f"{done.stdout[-2000:]}{done.stderr[-2000:]}\n"
                             f"Install the build tools with: pip install build hatchling")
        wheels = sorted(Path(tmp).glob("webtensor-*.whl"))
        if len(wheels) != 1 or not wheels[0].name.endswith("-py3-none-any.whl"):
            raise BuildError(f"expected one pure webtensor wheel, got {[w.name for w in wheels]}")
        target = dest / wheels[0].name
        shutil.copyfile(wheels[0], target)
    return target


def lock_entry(wheel: Path) -> dict:
    """A pyodide-lock.json package entry for the webtensor wheel."""
    name, version = wheel.name.split("-")[:2]
    return {
        "name": name, "version": version, "file_name": wheel.name,
        "install_dir": "site", "package_type": "package", "imports": [name],
        "depends": [], "unvendored_tests": False, "tool": {},
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
    }


def stage_pyodide(site: Path) -> Path:
    if not (PYODIDE_NPM / "pyodide.mjs").exists():
        raise BuildError(f"Pyodide is not installed in {PYODIDE_NPM}; run "
                         f"`npm ci` in {WEB}")
    dest = site / "pyodide"
    dest.mkdir(parents=True)
    for name in PYODIDE_RUNTIME:
        if (PYODIDE_NPM / name).exists():
            shutil.copyfile(PYODIDE_NPM / name, dest / name)
    wheel = build_wheel(dest)
    lock = json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text())
    lock["packages"]["webtensor"] = lock_entry(wheel)
    (dest / "pyodide-lock.json").write_text(json.dumps(lock, separators=(",", ":")))
    return wheel


def build_site(out: Path) -> dict:
    """Stage the whole site into ``out`` (replacing it); returns what was built."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    wheel = stage_pyodide(out)
    modules = []
    for src in sorted(WEB.glob("*.mjs")):
        shutil.copyfile(src, out / src.name)
        modules.append(src.name)
    if "webtensor.mjs" not in modules:
        raise BuildError(f"{WEB / 'webtensor.mjs'} is missing")
    (out / "index.html").write_text(INDEX_HTML)
    playground = None
    if PLAYGROUND_BUILD.exists():
        playground = out / "playground"
        done = subprocess.run(["node", str(PLAYGROUND_BUILD), str(playground)], cwd=ROOT)
        if done.returncode != 0:
            raise BuildError(f"node {PLAYGROUND_BUILD.relative_to(ROOT)} failed "
                             f"(exit {done.returncode})")
    return {"out": out, "wheel": wheel, "modules": modules, "playground": playground}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with explicit MIME types and no caching (a rebuilt site is never stale)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_request(self, code="-", size="-") -> None:
        if str(code).isdigit() and int(code) < 400:
            return  # a page load is ~20 requests: log only failures
        super().log_request(code, size)


def serve(site: Path, port: int) -> None:
    handler = functools.partial(SiteHandler, directory=str(site))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"serving {site} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)",
              flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "site",
                        help="the site directory (default: build/site)")
    parser.add_argument("--serve", action="store_true", help="serve the site after building")
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        built = build_site(out)
    except BuildError as e:
        print(f"build_wasm.py: {e}", file=sys.stderr)
        return 1
    rel = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"built {rel}/")
    print(f"  pyodide/   Pyodide runtime + {built['wheel'].name} (loadPackage('webtensor'))")
    print(f"  modules    {', '.join(built['modules'])}")
    print(f"  playground {'playground/' if built['playground'] else '(not built: no ' + str(PLAYGROUND_BUILD.relative_to(ROOT)) + ')'}")
    if args.serve:
        serve(out, args.port)
    else:
        print(f"serve it with: python build_wasm.py --out {rel} --serve [--port N]  "
              f"(or any static server; open http://127.0.0.1:8000/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
