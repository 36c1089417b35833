#!/usr/bin/env bash
# The whole webtensor test suite, from a fresh Debian machine or a warm checkout.
#
#   bash scripts/test.sh [pytest args...]      # e.g. bash scripts/test.sh -x -k matmul
#
# Stages: system packages -> .venv (editable install + dev extra) -> ruff -> pytest (CPython)
# -> pytest with WEBTENSOR_CPU=python -> build wheel -> pytest inside Pyodide (Node)
# -> static site (build_wasm.py, with the JupyterLite site) -> browser tests, playground tests
# and JupyterLite tests (headless Chromium).
# Setup stages abort on failure; check stages all run and the summary lists what failed.
# Re-runs skip installs whose inputs (pyproject.toml, web/package-lock.json,
# tests/pyodide/requirements.txt) have not changed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

# ---- configuration ---------------------------------------------------------------------
# Debian packages the suite needs, installed (apt-get) only when missing. Add them here,
# e.g. APT_PACKAGES=(mesa-vulkan-drivers chromium).
APT_PACKAGES=(mesa-vulkan-drivers chromium)  # lavapipe: the webgpu device runs; chromium: browser tests
VENV="$ROOT/.venv"
PYODIDE_WHEELS="$ROOT/.cache/pyodide-wheels"
PYODIDE_REQUIREMENTS="$ROOT/tests/pyodide/requirements.txt"
MIN_PYTHON="3.11"
MIN_NODE=18

export PIP_DISABLE_PIP_VERSION_CHECK=1

# ---- helpers ---------------------------------------------------------------------------
if [[ -t 1 ]]; then BOLD=$'\e[1m' RED=$'\e[31m' GREEN=$'\e[32m' RESET=$'\e[0m'
else BOLD="" RED="" GREEN="" RESET=""; fi

SUMMARY=()
FAILED=0
STAGE_T0=""
STAGE_NAME=""

stage() {  # stage NAME: print a header and start the stage's clock
  STAGE_NAME="$1"
  STAGE_T0="$EPOCHREALTIME"
  printf '\n%s==> %s%s\n' "$BOLD" "$STAGE_NAME" "$RESET"
}

stage_done() {  # stage_done STATUS: record the running stage's result and time
  local secs
  secs=$(awk -v a="$STAGE_T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  SUMMARY+=("$(printf '%-6s %6ss  %s' "$1" "$secs" "$STAGE_NAME")")
  printf '%s<== %s: %s (%ss)%s\n' "$BOLD" "$STAGE_NAME" "$1" "$secs" "$RESET"
}

check() {  # check CMD...: run a check stage's command; on failure record it and go on
  local rc=0
  "$@" || rc=$?
  if ((rc == 0)); then
    stage_done ok
  else
    stage_done "FAIL"
    SUMMARY[-1]+=" (exit $rc)"
    FAILED=1
  fi
}

die() {
  printf '%sERROR: %s%s\n' "$RED" "$*" "$RESET" >&2
  exit 1
}

sha() { cat "$@" | sha256sum | cut -d' ' -f1; }

python_ok() {  # python_ok EXE: EXE is Python >= MIN_PYTHON with venv + ensurepip
  "$1" -c "import sys, venv, ensurepip; sys.exit(sys.version_info < tuple(map(int, '$MIN_PYTHON'.split('.'))))" \
    >/dev/null 2>&1
}

find_python() {
  local exe
  for exe in ${WEBTENSOR_PYTHON:-} python3 python3.14 python3.13 python3.12 python3.11; do
    if command -v "$exe" >/dev/null 2>&1 && python_ok "$exe"; then
      PYTHON="$exe"
      return 0
    fi
  done
  return 1
}

node_ok() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
    (($(node -p 'process.versions.node.split(".")[0]') >= MIN_NODE))
}

# ---- 1. system packages ----------------------------------------------------------------
stage "system packages"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
find_python || missing+=(python3 python3-venv)
node_ok || missing+=(nodejs npm)
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""
  [[ "$(id -u)" == 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
  find_python || die "no Python >= $MIN_PYTHON with venv available"
  node_ok || die "no Node.js >= $MIN_NODE with npm available"
else
  echo "nothing to install"
fi
echo "python: $(command -v "$PYTHON") ($("$PYTHON" -c 'import platform; print(platform.python_version())'))"
echo "node:   $(command -v node) ($(node --version)), npm $(npm --version 2>/dev/null)"
stage_done ok

# ---- 2. virtual environment ------------------------------------------------------------
stage "python environment (.venv, pip install -e '.[dev,gpu]')"
if [[ ! -x "$VENV/bin/python" ]] || ! python_ok "$VENV/bin/python"; then
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
stamp="$VENV/.webtensor-dev-install"
want="$(sha pyproject.toml)"
have_all='import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in ("webtensor", "pytest", "hypothesis", "numpy", "build", "hatchling", "wgpu", "array_api_strict", "jax", "jupyterlite_core", "jupyterlite_pyodide_kernel", "jupyter_server", "xdist")))'
if [[ "$(cat "$stamp" 2>/dev/null)" == "$want" ]] && "$PY" -c "$have_all" 2>/dev/null; then
  echo "up to date"
else
  "$PY" -m pip install --quiet -e '.[dev,gpu]'
  echo "$want" >"$stamp"
fi
"$PY" -c 'import platform, numpy, pytest, hypothesis
print(f"python {platform.python_version()}, numpy {numpy.__version__}, pytest {pytest.__version__}, hypothesis {hypothesis.__version__}")'
stage_done ok

# ---- 3. lint ---------------------------------------------------------------------------
stage "ruff check ."
check "$VENV/bin/ruff" check .

# ---- 4. pytest, native CPython ---------------------------------------------------------
# Test files run in parallel processes (pytest-xdist; a file stays in one worker, in order):
# one worker per core, at most 4 (a worker holds up to ~3.5 GB).  WEBTENSOR_TEST_WORKERS=1
# runs them in this process.
CORES="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)"
WORKERS="${WEBTENSOR_TEST_WORKERS:-$((CORES < 4 ? CORES : 4))}"
[[ "$WORKERS" =~ ^[1-9][0-9]*$ ]] ||
  die "WEBTENSOR_TEST_WORKERS must be a positive integer (1 runs the tests serially), got '$WORKERS'"
PARALLEL=()
if ((WORKERS > 1)); then PARALLEL=(-n "$WORKERS" --dist loadfile); fi
stage "pytest (CPython $("$PY" -c 'import platform; print(platform.python_version())'), NumPy installed)"
check "$PY" -m pytest ${PARALLEL[@]+"${PARALLEL[@]}"} "$@"

# ---- 5. pytest, pure-Python CPU backend ------------------------------------------------
stage "pytest (WEBTENSOR_CPU=python; webgpu already covered above)"
check env WEBTENSOR_CPU=python WEBTENSOR_TEST_WEBGPU=0 "$PY" -m pytest ${PARALLEL[@]+"${PARALLEL[@]}"} "$@"

# ---- 6. wheel --------------------------------------------------------------------------
stage "build wheel (dist/)"
rm -f dist/webtensor-*.whl
"$PY" -m build --wheel --no-isolation --outdir dist . >/dev/null
WHEEL="$(ls dist/webtensor-*.whl)"
[[ "$WHEEL" == *-py3-none-any.whl ]] || die "not a pure-Python wheel: $WHEEL"
echo "$WHEEL"
stage_done ok

# ---- 7. pytest inside Pyodide (WebAssembly) in Node ------------------------------------
stage "pyodide setup (web/node_modules, pinned test wheels)"
stamp="$ROOT/web/node_modules/.webtensor-npm-ci"
want="$(sha web/package.json web/package-lock.json)"
if [[ "$(cat "$stamp" 2>/dev/null)" == "$want" && -f web/node_modules/pyodide/pyodide.mjs ]]; then
  echo "web/node_modules up to date"
else
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
fi
stamp="$PYODIDE_WHEELS/.requirements-sha256"
want="$(sha "$PYODIDE_REQUIREMENTS")"
if [[ "$(cat "$stamp" 2>/dev/null)" == "$want" ]]; then
  echo "$PYODIDE_WHEELS up to date"
else
  rm -rf "$PYODIDE_WHEELS"
  mkdir -p "$PYODIDE_WHEELS"
  "$PY" -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version 3.14 --implementation py --abi none --platform any \
    --dest "$PYODIDE_WHEELS" -r "$PYODIDE_REQUIREMENTS"
  echo "$want" >"$stamp"
fi
stage_done ok

stage "pytest (Pyodide in Node)"
check node tests/pyodide/run_pytest.mjs --wheel "$WHEEL" -- "$@"

# ---- 8. the browser: Pyodide + WebGPU in headless Chromium ------------------------------
stage "static site (build_wasm.py -> build/site, JupyterLite in build/site/lite)"
"$PY" build_wasm.py
stage_done ok

stage "browser tests (Chromium: Pyodide + WebGPU, main thread and worker)"
check node tests/browser/run.mjs

# ---- 9. the playground in headless Chromium ---------------------------------------------
stage "playground tests (Chromium; screenshots in build/artifacts/playground)"
check node tests/playground/run.mjs --site build/site

# ---- 10. JupyterLite, offline -------------------------------------------------------------
stage "JupyterLite tests (Chromium, network blocked: REPL, webtensor-tour.ipynb, learn_spiral.ipynb)"
check node tests/lite/run.mjs --site build/site

# ---- summary ---------------------------------------------------------------------------
printf '\n%s==> summary%s\n' "$BOLD" "$RESET"
printf '  %s\n' "${SUMMARY[@]}"
if ((FAILED)); then
  printf '%sFAILED%s\n' "$RED" "$RESET"
  exit 1
fi
printf '%sall stages passed%s\n' "$GREEN" "$RESET"
