#!/usr/bin/env bash
# The one command that sets everything up on a fresh machine and runs every test tier:
# kvdoctor's venv, the lab's vLLM venv, lint, types, unit tests, then the lab tier against
# real vLLM servers. Extra arguments go to pytest (e.g. `-m "not lab"` for the fast tier only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${KVDOCTOR_SKIP_LAB:-0}" != "1" ]; then
  bash scripts/setup-lab.sh
fi
# A real Prometheus and promtool for the fleet and alert-rule tests (Debian's package).
bash scripts/install-prometheus.sh
# Debian's Alertmanager for the lab test of the alert path (tests/alerting).
bash scripts/install-alertmanager.sh
echo "== ruff"; .venv/bin/ruff check kvdoctor kvaccuracy tests benchmarks
echo "== mypy"; .venv/bin/mypy
echo "== pytest"
if [ "${KVDOCTOR_SKIP_LAB:-0}" = "1" ]; then
  exec .venv/bin/python -m pytest -m "not lab" "$@"
fi
# The fast tier (unit, rules, corpus, alerting logic: CPU only) runs beside the lab tier, whose
# time is mostly vLLM start-ups, windows and experiments that judge themselves against their own
# baselines and guard only against what the run itself adds (the guard leaves a pool the
# traffic fills by itself), so a busy host must not change a verdict: that is a requirement of
# the lab, and this runs it. The fast tier's output is printed once both end.
fast_log="$(mktemp "${TMPDIR:-/tmp}/kvdoctor-fast-tier.XXXXXX")"
.venv/bin/python -m pytest -m "not lab" -p no:cacheprovider "$@" >"$fast_log" 2>&1 &
fast_pid=$!
# Ctrl-C or a kill of this script stops the fast tier too (by its PID).
trap 'kill "$fast_pid" 2>/dev/null || true' INT TERM
lab_rc=0
.venv/bin/python -m pytest -m lab --durations=25 "$@" || lab_rc=$?
fast_rc=0
wait "$fast_pid" || fast_rc=$?
trap - INT TERM
echo "== pytest, fast tier (ran beside the lab tier)"
cat "$fast_log"
rm -f "$fast_log"
# pytest exits 5 when a tier selected no test (a path given that holds only the other tier).
for rc in "$lab_rc" "$fast_rc"; do
  if [ "$rc" != 0 ] && [ "$rc" != 5 ]; then
    exit "$rc"
  fi
done
