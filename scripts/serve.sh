#!/usr/bin/env bash
# The main job. The browser playground (web/playground, built by build_wasm.py) is not part of
# the tree yet; until it is, this sets up the package and runs the terminal tour of webtensor
# (python -m webtensor), which shows a working default example.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ ! -x .venv/bin/python ]]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[numpy]'
exec .venv/bin/python -m webtensor "$@"
