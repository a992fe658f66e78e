"""Shared helpers for writer zzc (copied from writer zz, itself from writer l)'s bundle builders (kvdoctor.bundle/1).

Formats only: manifest / metrics.jsonl / server.json / engine_args.json / model_config.json /
gpu.jsonl / logs.txt as docs/bundle.md describes them. Deterministic: no wall clock, no randomness
beyond seeded generators in the case scripts.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

CASES = Path(__file__).resolve().parents[2]
GiB = 1 << 30
MiB = 1 << 20


def epoch(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: float = 0.0) -> float:
    return _dt.datetime(y, mo, d, h, mi, 0, tzinfo=_dt.timezone.utc).timestamp() + s


def stamp(t: float) -> str:
    """vLLM's log time stamp 'MM-DD HH:MM:SS'."""
    return _dt.datetime.fromtimestamp(t, tz=_dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def device(index: int, name: str, total: int, procs: list[tuple[int, str, int]], extra_used: int = 0) -> dict:
    used = sum(p[2] for p in procs) + extra_used
    return {"index": index, "name": name, "memory_total": int(total), "memory_used": int(min(used, total)),
            "processes": [{"pid": p, "name": n, "used_memory": int(u)} for p, n, u in procs]}


def write_bundle(case_id: str, *, endpoint: str, started_at: float, interval_s: float, notes: str,
                 scrapes: list[dict], server: dict | None = None, engine_args: dict | None = None,
                 model_config: dict | None = None, gpu: list[dict] | None = None,
                 logs: str | None = None) -> Path:
    b = CASES / case_id / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    for old in b.iterdir():
        old.unlink()
    ended = max([s["t"] for s in scrapes] + [started_at])
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
                "started_at": started_at, "ended_at": ended, "interval_s": interval_s, "notes": notes}
    (b / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with (b / "metrics.jsonl").open("w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    if server is not None:
        (b / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (b / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (b / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with (b / "gpu.jsonl").open("w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        (b / "logs.txt").write_text(logs)
    return b


def refused(t: float, host: str = "127.0.0.1", port: int = 8000) -> dict:
    return {"t": t, "error": f"GET http://{host}:{port}/metrics: connection refused ([Errno 111] Connection refused)"}


def models_body(served: str, root: str, max_len: int, created: int) -> dict:
    return {"object": "list", "data": [{"id": served, "object": "model", "created": created, "owned_by": "vllm",
                                        "root": root, "parent": None, "max_model_len": max_len,
                                        "permission": [{"id": "modelperm-0", "object": "model_permission",
                                                        "created": created, "allow_create_engine": False,
                                                        "allow_sampling": True, "allow_logprobs": True,
                                                        "allow_search_indices": False, "allow_view": True,
                                                        "allow_fine_tuning": False, "organization": "*",
                                                        "group": None, "is_blocking": False}]}]}


QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
    "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
    "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.43.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064,
}

QWEN25_72B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02,
    "intermediate_size": 29568, "max_position_embeddings": 32768, "max_window_layers": 80,
    "model_type": "qwen2", "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.43.1", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 152064,
}

LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama", "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": True, "vocab_size": 128256,
}
