#!/usr/bin/env bash
# Create (or refresh) kvdoctor's own virtual environment in .venv with the dev tools.
# Idempotent: a stamp records the hash of pyproject.toml so a re-run installs nothing new.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.kvdoctor-stamp
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "^WARNING: Location" || true
  .venv/bin/python -m pip install -q -e '.[dev]' 2>&1 | grep -v "^WARNING: Location" || true
  .venv/bin/python -c "import kvdoctor, click, pydantic, httpx, pytest" 
  echo "$want" > "$stamp"
fi
