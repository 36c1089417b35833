#!/usr/bin/env python3
"""Build the static web site that runs webtensor in the browser (Pyodide + WebGPU).

    python build_wasm.py [--out DIR] [--serve [--port N]]

Stages, into DIR (default ``build/site/``):

* ``pyodide/``: the runtime files of the npm package ``pyodide`` (``web/node_modules/pyodide``,
  pinned in ``web/package.json``), the pure webtensor wheel, and a ``pyodide-lock.json`` with a
  ``webtensor`` entry, so ``pyodide.loadPackage("webtensor")`` installs it from the site;
* ``webtensor.mjs`` (``loadWebtensor()``) and every other JS module of ``web/``;
* ``playground/``, built by ``node web/playground/build.mjs DIR/playground`` when that exists;
* ``lite/``, a JupyterLite deployment (``jupyter lite build`` from jupyterlite-core and
  jupyterlite-pyodide-kernel, pinned in pyproject.toml's ``lite`` extra) that works offline: the
  same npm Pyodide in ``lite/static/pyodide/`` with the pure wheels the kernel loads while it
  starts (``web/lite/requirements.txt``, downloaded once from PyPI into ``.cache/lite-wheels/``)
  listed in its ``pyodide-lock.json``, the webtensor wheel in ``lite/pypi/`` for ``%pip install
  webtensor``, and the notebooks of ``web/lite/files/``; ``--no-lite`` skips it;
* ``index.html``, redirecting to ``playground/``.

``--serve`` then serves DIR on 127.0.0.1 with the right MIME types and no caching.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import http.server
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
PYODIDE_NPM = WEB / "node_modules" / "pyodide"
# What a page needs from the npm package (sources maps help debugging; the .d.ts, README and
# demo consoles are not part of the runtime).
PYODIDE_RUNTIME = ("pyodide.mjs", "pyodide.mjs.map", "pyodide.js", "pyodide.js.map",
                   "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "package.json")
PLAYGROUND_BUILD = WEB / "playground" / "build.mjs"

# JupyterLite: its sources (jupyter-lite.json, files/), the kernel's start-up wheels, the cache.
LITE_SRC = WEB / "lite"
LITE_REQUIREMENTS = LITE_SRC / "requirements.txt"
LITE_WHEELS = ROOT / ".cache" / "lite-wheels"
LITE_STAGE = ROOT / "build" / "lite-src"  # the lite dir `jupyter lite build` reads
LITE_PINS = ("jupyterlite-core", "jupyterlite-pyodide-kernel")  # versions from pyproject.toml
LITE_APPS = ("lab", "notebooks", "tree", "repl")
PIP_DOWNLOAD = ("-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                "--python-version", "3.14", "--implementation", "py", "--abi", "none",
                "--platform", "any")

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


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path: Path) -> dict[str, str]:
    """``name==version`` lines (comments allowed) as {normalized name: version}."""
    pins = {}
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep:
            raise BuildError(f"{path}: {line!r} is not pinned as name==version")
        pins[normalize(name.strip())] = version.strip()
    return pins


def wheel_name_version(wheel: Path) -> tuple[str, str]:
    name, version = wheel.name.split("-")[:2]
    return normalize(name), version


def fetch_wheels(pins: dict[str, str], dest: Path) -> dict[str, Path]:
    """The pure wheel of each pin, from ``dest`` or else downloaded there from PyPI."""
    dest.mkdir(parents=True, exist_ok=True)
    def have() -> dict[str, Path]:
        found = {}
        for wheel in dest.glob("*.whl"):
            name, version = wheel_name_version(wheel)
            if pins.get(name) == version:
                found[name] = wheel
        return found
    missing = [f"{name}=={version}" for name, version in pins.items() if name not in have()]
    if missing:
        cmd = [sys.executable, *PIP_DOWNLOAD, "--dest", str(dest), *missing]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(f"downloading the JupyterLite kernel's wheels from PyPI failed "
                             f"({' '.join(cmd)}):\n{done.stderr[-2000:]}")
    found = have()
    if len(found) != len(pins):
        raise BuildError(f"no pure wheel for {sorted(set(pins) - set(found))} in {dest}")
    return found


def wheel_requirements(wheel: Path) -> list[str]:
    """The wheel's unconditional dependencies (normalized names)."""
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(meta).decode()
    return [normalize(re.match(r"[A-Za-z0-9._-]+", req).group())
            for req in re.findall(r"^Requires-Dist: (.+)$", text, re.MULTILINE)
            if ";" not in req]


def wheel_imports(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        tops = {n.split("/", 1)[0] for n in zf.namelist()}
    return sorted(t.removesuffix(".py") for t in tops
                  if not t.endswith((".dist-info", ".data")) and not t.startswith("_"))


def lock_with_wheels(lock: dict, wheels: dict[str, Path]) -> dict:
    """``lock`` listing ``wheels``: existing entries point at the files and their sha256 (the
    npm lock's hashes are of Pyodide's rebuilt wheels, never PyPI's: a mismatch makes the
    browser fail with only "Failed to fetch"); missing packages get new entries."""
    packages = lock["packages"]
    for name, wheel in sorted(wheels.items()):
        _, version = wheel_name_version(wheel)
        entry = packages.get(name)
        if entry is None:
            entry = packages[name] = {
                "name": name, "version": version, "install_dir": "site",
                "package_type": "package", "imports": wheel_imports(wheel),
                "depends": wheel_requirements(wheel), "unvendored_tests": False, "tool": {},
            }
        elif entry["version"] != version:
            raise BuildError(f"{LITE_REQUIREMENTS.relative_to(ROOT)} pins {name}=={version} but "
                             f"the npm Pyodide's lock has {entry['version']}: pin that version")
        entry["file_name"] = wheel.name
        entry["sha256"] = hashlib.sha256(wheel.read_bytes()).hexdigest()
    return lock


def check_lite_tools() -> None:
    """jupyterlite-core and the Pyodide kernel at the versions pyproject.toml's ``lite`` extra
    pins (the offline lock is made for what that kernel loads)."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["lite"]
    wanted = {re.sub(r"\[.*\]", "", name): version
              for name, version in (req.split("==") for req in extra)}
    for name in LITE_PINS:
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            have = None
        if have != wanted[name]:
            raise BuildError(f"the JupyterLite site needs {name}=={wanted[name]} (found "
                             f"{have or 'none'}): pip install -e '.[lite]', or build with "
                             f"--no-lite")


DOCS_NOTEBOOKS = ROOT / "docs" / "notebooks"


def stage_docs_notebooks(files: Path) -> None:
    """docs/notebooks/*.ipynb into the site, each opening with a ``%pip install webtensor``
    cell (natively webtensor is installed already; in JupyterLite it comes from the site)."""
    files.mkdir(parents=True, exist_ok=True)
    for path in sorted(DOCS_NOTEBOOKS.glob("*.ipynb")):
        notebook = json.loads(path.read_text())
        notebook["cells"].insert(0, {"cell_type": "code", "execution_count": None,
                                     "metadata": {}, "outputs": [],
                                     "source": ["%pip install webtensor"]})
        (files / path.name).write_text(json.dumps(notebook, indent=1))


def stage_lite(site: Path, wheel: Path) -> Path:
    """``site/lite``: a JupyterLite deployment that needs nothing from outside the site."""
    check_lite_tools()
    kernel_wheels = fetch_wheels(read_pins(LITE_REQUIREMENTS), LITE_WHEELS)
    if LITE_STAGE.exists():
        shutil.rmtree(LITE_STAGE)
    shutil.copytree(LITE_SRC, LITE_STAGE, ignore=shutil.ignore_patterns("requirements.txt"))
    stage_docs_notebooks(LITE_STAGE / "files")
    # static/pyodide/ is where `jupyter lite build` looks for a local Pyodide; it then points
    # the kernel's pyodideUrl at it instead of the CDN default.
    pyodide = LITE_STAGE / "static" / "pyodide"
    pyodide.mkdir(parents=True)
    for name in PYODIDE_RUNTIME:
        if (PYODIDE_NPM / name).exists():
            shutil.copyfile(PYODIDE_NPM / name, pyodide / name)
    for found in kernel_wheels.values():
        shutil.copyfile(found, pyodide / found.name)
    lock = lock_with_wheels(json.loads((PYODIDE_NPM / "pyodide-lock.json").read_text()),
                            kernel_wheels)
    (pyodide / "pyodide-lock.json").write_text(json.dumps(lock, separators=(",", ":")))
    (LITE_STAGE / "pypi").mkdir()  # piplite's index: `%pip install webtensor` from the site
    shutil.copyfile(wheel, LITE_STAGE / "pypi" / wheel.name)
    out = site / "lite"
    cmd = [sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(LITE_STAGE),
           "--output-dir", str(out), "--no-sourcemaps",
           "--LiteBuildConfig.cache_dir=" + str(ROOT / ".cache" / "jupyterlite"),
           *(arg for app in LITE_APPS for arg in ("--apps", app))]
    done = subprocess.run(cmd, cwd=LITE_STAGE, capture_output=True, text=True)
    if done.returncode != 0:
        raise BuildError(f"jupyter lite build failed ({' '.join(cmd)}):\n"
                         f"{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return out


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


def build_site(out: Path, lite: bool = True) -> dict:
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
    lite_out = stage_lite(out, wheel) if lite else None
    return {"out": out, "wheel": wheel, "modules": modules, "playground": playground,
            "lite": lite_out}


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
    parser.add_argument("--no-lite", action="store_true", help="skip the JupyterLite site")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    try:
        built = build_site(out, lite=not args.no_lite)
    except BuildError as e:
        print(f"build_wasm.py: {e}", file=sys.stderr)
        return 1
    rel = out.relative_to(ROOT) if out.is_relative_to(ROOT) else out
    print(f"built {rel}/")
    print(f"  pyodide/   Pyodide runtime + {built['wheel'].name} (loadPackage('webtensor'))")
    print(f"  modules    {', '.join(built['modules'])}")
    print(f"  playground {'playground/' if built['playground'] else '(not built: no ' + str(PLAYGROUND_BUILD.relative_to(ROOT)) + ')'}")
    print(f"  lite/      {'JupyterLite (lite/lab/, lite/repl/; %pip install webtensor)' if built['lite'] else '(skipped: --no-lite)'}")
    if args.serve:
        serve(out, args.port)
    else:
        print(f"serve it with: python build_wasm.py --out {rel} --serve [--port N]  "
              f"(or any static server; open http://127.0.0.1:8000/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
