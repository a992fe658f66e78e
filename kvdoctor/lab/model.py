"""The lab's tiny Llama-shaped model: generated on the spot, cached by the generator's hash.

The weights are written by ``_genmodel.py`` running inside the lab's vLLM environment (which has
numpy, safetensors and tokenizers); kvdoctor's own environment needs none of them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from kvdoctor.errors import KvdoctorError

GENERATOR = Path(__file__).with_name("_genmodel.py")
SERVED_MODEL_NAME = "kvdoctor-tiny-llama"

# The KV layout the generator writes (kept here so tests and scenarios need not read the files):
# 2 layers x 2 KV heads x head_dim 64 x 2 bytes (bf16) x 2 (K and V) = 1,024 bytes per token.
NUM_LAYERS = 2
NUM_KV_HEADS = 2
HEAD_DIM = 64
KV_BYTES_PER_ELEMENT = 2
BYTES_PER_TOKEN = 2 * NUM_LAYERS * NUM_KV_HEADS * HEAD_DIM * KV_BYTES_PER_ELEMENT
# The tokenizer is byte-level with no merges: one ASCII character is exactly one token.
CHARS_PER_TOKEN = 1
MAX_POSITION_EMBEDDINGS = 16384

_COMPLETE = ".complete"


def cache_root() -> Path:
    """Where generated models are kept (``$KVDOCTOR_CACHE_DIR`` or ``~/.cache/kvdoctor``)."""
    env = os.environ.get("KVDOCTOR_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "kvdoctor"


def model_hash() -> str:
    """Hash of the generator's source: any change to it regenerates the model."""
    return hashlib.sha256(GENERATOR.read_bytes()).hexdigest()[:12]


# (layers, KV heads, head dim): the generator's KV geometry; None is its default.
Geometry = tuple[int, int, int]


def model_dir(geometry: Geometry | None = None) -> Path:
    base = cache_root() / f"lab-model-{model_hash()}"
    if geometry is None or geometry == (NUM_LAYERS, NUM_KV_HEADS, HEAD_DIM):
        return base
    layers, kv_heads, head_dim = geometry
    return base.with_name(f"{base.name}-L{layers}-kv{kv_heads}-d{head_dim}")


def ensure_model(vllm_python: str, geometry: Geometry | None = None) -> Path:
    """Return the model directory, generating it with ``vllm_python`` when it is missing.

    ``geometry`` (layers, KV heads, head dim) asks for another KV layout of the same model
    family (the randomized accuracy harness varies it); None is the default layout.

    Generation writes into a temporary sibling and renames it into place, so a concurrent
    generator (another engineer's test run) never sees a half-written model.
    """
    target = model_dir(geometry)
    if (target / _COMPLETE).is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".tmp-", dir=target.parent))
    try:
        proc = subprocess.run(
            [vllm_python, str(GENERATOR), str(tmp), *(str(g) for g in geometry or ())],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise KvdoctorError(f"generating the lab model failed with {vllm_python}: {last}")
        (tmp / _COMPLETE).write_text(model_hash() + "\n")
        try:
            tmp.rename(target)
        except OSError:
            # Another process finished first; its copy is identical (same generator, same seed).
            if not (target / _COMPLETE).is_file():
                raise
    except OSError as exc:
        raise KvdoctorError(f"cannot write the lab model under {target.parent}: {exc}") from exc
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target
