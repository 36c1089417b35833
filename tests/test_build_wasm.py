"""build_wasm.py's JupyterLite staging: the offline Pyodide lock and the pinned kernel wheels.

The whole site is built and driven in Chromium by tests/lite/run.mjs; these check the pieces
that decide whether it works offline, on small wheels made here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "emscripten",
                                reason="build tooling: runs natively")

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_wasm", REPO / "build_wasm.py")
build_wasm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_wasm)


def make_wheel(folder: Path, name: str, version: str, requires=(), top="pkg") -> Path:
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    meta = "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(f"{top}/__init__.py", f"VERSION = {version!r}\n")
        zf.writestr(f"{name}-{version}.dist-info/METADATA",
                    f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{meta}")
    return wheel


def npm_style_lock(**packages) -> dict:
    return {"info": {"python": "3.14.2"}, "packages": {
        name: {"name": name, "version": version, "file_name": f"{name}-{version}-rebuilt.whl",
               "sha256": "0" * 64, "depends": ["six"], "imports": [name],
               "install_dir": "site", "package_type": "package"}
        for name, version in packages.items()}}


def test_lock_points_at_the_pypi_files_with_their_own_sha256(tmp_path):
    wheel = make_wheel(tmp_path, "jedi", "0.19.2", top="jedi")
    lock = build_wasm.lock_with_wheels(npm_style_lock(jedi="0.19.2", parso="0.8.6"),
                                       {"jedi": wheel})
    entry = lock["packages"]["jedi"]
    assert entry["file_name"] == wheel.name
    assert entry["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert entry["depends"] == ["six"]  # Pyodide's own entry otherwise kept
    assert lock["packages"]["parso"]["sha256"] == "0" * 64  # untouched: not a staged wheel


def test_lock_gains_entries_for_packages_pyodide_lacks(tmp_path):
    wheel = make_wheel(tmp_path, "comm", "0.2.3", top="comm",
                       requires=["traitlets>=4", "pytest; extra == 'test'"])
    lock = build_wasm.lock_with_wheels(npm_style_lock(), {"comm": wheel})
    entry = lock["packages"]["comm"]
    assert entry == {
        "name": "comm", "version": "0.2.3", "install_dir": "site", "package_type": "package",
        "imports": ["comm"], "depends": ["traitlets"], "unvendored_tests": False, "tool": {},
        "file_name": wheel.name, "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest()}


def test_lock_refuses_a_pin_that_differs_from_pyodide(tmp_path):
    wheel = make_wheel(tmp_path, "jedi", "0.19.1")
    with pytest.raises(build_wasm.BuildError,
                       match=r"pins jedi==0\.19\.1 but the npm Pyodide's lock has 0\.19\.2: "
                             r"pin that version"):
        build_wasm.lock_with_wheels(npm_style_lock(jedi="0.19.2"), {"jedi": wheel})


def test_read_pins(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("# comment\nPrompt_Toolkit==3.0.52   # ipython\n\nstack.data==0.6.3\n")
    assert build_wasm.read_pins(req) == {"prompt-toolkit": "3.0.52", "stack-data": "0.6.3"}
    req.write_text("micropip>=0.11\n")
    with pytest.raises(build_wasm.BuildError, match=r"'micropip>=0\.11' is not pinned as "
                                                    r"name==version"):
        build_wasm.read_pins(req)


def test_cached_wheels_are_used_without_downloading(tmp_path, monkeypatch):
    make_wheel(tmp_path, "six", "1.17.0")
    make_wheel(tmp_path, "six", "1.16.0")  # another version in the cache is ignored
    monkeypatch.setattr(build_wasm.subprocess, "run", lambda *a, **k: pytest.fail("downloaded"))
    found = build_wasm.fetch_wheels({"six": "1.17.0"}, tmp_path)
    assert found == {"six": tmp_path / "six-1.17.0-py3-none-any.whl"}


def test_the_kernel_pins_match_the_pinned_pyodide():
    npm_lock = build_wasm.PYODIDE_NPM / "pyodide-lock.json"
    if not npm_lock.exists():
        pytest.skip("web/node_modules is not installed (npm ci in web/)")
    packages = json.loads(npm_lock.read_text())["packages"]
    pins = build_wasm.read_pins(build_wasm.LITE_REQUIREMENTS)
    wrong = {name: (version, packages[name]["version"]) for name, version in pins.items()
             if name in packages and packages[name]["version"] != version}
    assert not wrong, f"web/lite/requirements.txt differs from Pyodide's lock: {wrong}"
    # What the kernel loads while it starts (micropip first, then ipython and jedi through
    # piplite, with their dependency closure in Pyodide's lock) is all pinned.
    needed, todo = set(), ["micropip", "ipython", "jedi"]
    while todo:
        name = build_wasm.normalize(todo.pop())
        if name not in needed:
            needed.add(name)
            todo.extend(packages.get(name, {}).get("depends", []))
    assert needed <= set(pins), f"not pinned: {sorted(needed - set(pins))}"
    assert "comm" in pins  # pyodide-kernel's dependency that Pyodide's lock lacks


def test_the_lite_extra_pins_what_build_wasm_checks():
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    lite = project["optional-dependencies"]["lite"]
    assert sorted(r.split("==")[0].split("[")[0] for r in lite) == sorted(build_wasm.LITE_PINS)
    assert all("==" in r for r in lite)
    assert set(lite) <= set(project["optional-dependencies"]["dev"])  # CI builds the site
