#!/usr/bin/env bash
# Re-record fixtures/<scenario>/ from the lab: a real vLLM per scenario, its workload, and
# `kvdoctor diagnose --reproduce --allow-load --save-bundle` (bundle + reproducer records),
# plus expected.yaml from the scenario registry. A scenario whose live diagnosis does not match
# its expectation is reported and left unwritten. Then `kvdoctor check --update-golden` replays
# them all and rewrites each golden report.md (review the diff before committing).
# Usage: scripts/record-fixtures.sh [SCENARIO ...]   (default: every scenario; ~2 min each)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-lab.sh
# Servers of this run live in their own lab dir, away from a developer's .lab.
export KVDOCTOR_LAB_DIR=${KVDOCTOR_LAB_DIR:-$(mktemp -d)}
rc=0
.venv/bin/python -m kvdoctor.lab.fixtures --root fixtures "$@" || rc=$?
shopt -s nullglob
dirs=(fixtures/*/)
if [ ${#dirs[@]} -gt 0 ]; then
  .venv/bin/kvdoctor check --update-golden "${dirs[@]}" || rc=$?
fi
exit $rc
