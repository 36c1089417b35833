#!/usr/bin/env bash
# The main job: build the browser playground and serve it on http://127.0.0.1:8000/
#
#   bash scripts/serve.sh [--port N]
#
# On a fresh Debian machine it installs what the build needs (Python venv, Node.js + npm), the
# build tools into .venv and the pinned web packages (web/package-lock.json), then runs
# `python build_wasm.py --serve`: the pure wheel, the Pyodide runtime, the playground and the
# JupyterLite site (lite/: notebooks and a REPL, offline) staged in
# build/site/. Open the printed address in a browser with WebGPU (Chrome/Edge, Safari 26+,
# Firefox 141+); without WebGPU the playground runs on its CPU device.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=()
command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null \
  || missing+=(python3 python3-venv)
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
if ((${#missing[@]})); then
  SUDO=""
  [[ "$(id -u)" == 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

[[ -x .venv/bin/python ]] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[lite]' build hatchling
[[ -f web/node_modules/pyodide/pyodide.mjs && -d web/node_modules/codemirror ]] \
  || (cd web && npm ci --no-audit --no-fund --loglevel=error)

exec .venv/bin/python build_wasm.py --serve "$@"
