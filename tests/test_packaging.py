"""The wheel is pure Python, ships the WGSL shaders and works from a clean venv."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    sys.platform == "emscripten", reason="builds wheels and venvs with subprocesses"
)

REPO = Path(__file__).resolve().parents[1]
SHADERS = sorted(p.name for p in (REPO / "shaders").glob("*.wgsl"))


def _run(*cmd: str | os.PathLike[str], cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Without build isolation when hatchling is installed (dev extra): fast and offline.
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-isolation"]
    _run(sys.executable, "-m", "build", "--wheel", *isolation, "--outdir", out, REPO, cwd=out)
    (whl,) = out.glob("*.whl")
    return whl


def test_shader_sources_exist() -> None:
    assert SHADERS, "no shaders/*.wgsl in the repository"


def test_wheel_is_pure(wheel: Path) -> None:
    assert wheel.name.startswith("webtensor-")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name


def test_wheel_contains_shaders(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        packaged = sorted(
            n.removeprefix("webtensor/shaders/")
            for n in names
            if n.startswith("webtensor/shaders/") and n.endswith(".wgsl")
        )
        assert packaged == SHADERS
        for name in packaged:
            data = zf.read(f"webtensor/shaders/{name}")
            assert data == (REPO / "shaders" / name).read_bytes(), name
        assert "webtensor/__init__.py" in names
        assert not any(n.startswith(("tests/", "core/", "shaders/")) for n in names), names


def test_wheel_carries_the_browser_executor(wheel: Path) -> None:
    # Under Pyodide `import webtensor` evaluates it: a page needs no webtensor JavaScript.
    name = "webtensor/backends/webgpu/gpu_executor.mjs"
    with zipfile.ZipFile(wheel) as zf:
        assert zf.read(name) == (REPO / "core" / name).read_bytes()


def test_wheel_installs_and_reads_shaders(wheel: Path, tmp_path: Path) -> None:
    import venv  # not in Pyodide's stdlib

    env_dir = tmp_path / "venv"
    # No pip inside the venv (ensurepip is slow); this interpreter's pip installs into it.
    venv.create(env_dir, with_pip=False, clear=True)
    py = env_dir / "bin" / "python"
    pip = (sys.executable, "-m", "pip", "--python", py)
    _run(*pip, "install", "--no-deps", "--no-index", "--no-cache-dir", wheel, cwd=tmp_path)
    script = textwrap.dedent(
        """
        import importlib.resources, json, webtensor
        shaders = importlib.resources.files("webtensor").joinpath("shaders")
        wgsl = {p.name: p.read_text(encoding="utf-8") for p in shaders.iterdir()
                if p.name.endswith(".wgsl")}
        print(json.dumps({"file": webtensor.__file__, "shaders": wgsl}))
        """
    )
    result = json.loads(_run(py, "-I", "-c", script, cwd=tmp_path))
    assert Path(result["file"]).is_relative_to(env_dir), result["file"]
    assert sorted(result["shaders"]) == SHADERS
    assert "fn " in result["shaders"]["prelude.wgsl"]
