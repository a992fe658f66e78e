#!/usr/bin/env bash
# The one command that sets everything up on a fresh machine and runs the main job: a real vLLM
# lab server mis-tuned on purpose, a live diagnosis with reproducers, and a Markdown report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-lab.sh
exec .venv/bin/kvdoctor demo "$@"
