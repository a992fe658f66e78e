#!/usr/bin/env python3
"""Build the bundles of the k-* cases.

    PYTHONPATH=<worktree> /work/main/.venv/bin/python cases/_tools/k/cases.py [case-id ...]

Helpers copied from writer e (cases/_tools/e/cases.py); each builder states the scenario parameters of its case.yaml; the
request-level simulator in engine.py (copied from writer b, extended) turns them into consistent
scrapes, NVML samples and log lines. Deterministic: seeded RNGs, no wall-clock input.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import Req, Server, Sim, epoch, gpu_devices, models_body, stats_lines, ts, write_bundle  # noqa: E402
from logs import http_started, join  # noqa: E402

CASES = Path(__file__).resolve().parents[2]

VOCAB = (
    "the a of to in and for on with by from at as is are was be this that it its which when then than "
    "system user request response server client value field option default config error warning file "
    "path table column index update record session agent tool result output input message context "
    "function return list string number object array check build test deploy branch commit review "
    "change issue note plan step task status report summary detail reason source target version"
).split()


def words(rng: random.Random, n: int, vocab: list[str] | None = None) -> str:
    v = vocab or VOCAB
    return " ".join(rng.choice(v) for _ in range(n))


def tok_words(tokens: int) -> int:
    """Stand-in: about 1.3 tokens per word of the synthetic texts."""
    return max(1, int(tokens / 1.3))


def write_prompts(cid: str, rows: list[dict]) -> None:
    with (CASES / cid / "prompts.jsonl").open("w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def rid(rng: random.Random) -> str:
    return f"chatcmpl-{rng.getrandbits(128):032x}"


# ---------------------------------------------------------------- log helpers (V1 start-up)


def v1_refs(version: str) -> dict[str, str]:
    """Source-file references printed in the log lines (illustrative per release line)."""
    if version.startswith("0.9"):
        return {"apiver": "api_server.py:1336", "nondefault": "cli_args.py:325", "arch": "config.py:823", "mml": "config.py:1946",
                "sched": "config.py:2281", "init": "core.py:69", "load": "gpu_model_runner.py:1770", "loaded": "gpu_model_runner.py:1801",
                "avail": "gpu_worker.py:232", "kvsize": "kv_cache_utils.py:716", "conc": "kv_cache_utils.py:720",
                "graphs": "gpu_model_runner.py:2326", "initdone": "core.py:172", "ccinfo": "loggers.py:137", "start": "api_server.py:1390"}
    if version.startswith("0.19") or version.startswith("0.18"):
        return {"apiver": "api_server.py:1947", "nondefault": "utils.py:299", "arch": "model.py:552", "mml": "model.py:1677",
                "sched": "scheduler.py:241", "init": "core.py:101", "load": "gpu_model_runner.py:3489", "loaded": "gpu_model_runner.py:3582",
                "avail": "gpu_worker.py:379", "kvsize": "kv_cache_utils.py:1313", "conc": "kv_cache_utils.py:1317",
                "graphs": "gpu_model_runner.py:4512", "initdone": "core.py:262", "ccinfo": "loggers.py:176", "start": "api_server.py:2024"}
    return {"apiver": "api_server.py:2061", "nondefault": "utils.py:302", "arch": "model.py:561", "mml": "model.py:1702",
            "sched": "scheduler.py:248", "init": "core.py:104", "load": "gpu_model_runner.py:3702", "loaded": "gpu_model_runner.py:3795",
            "avail": "gpu_worker.py:402", "kvsize": "kv_cache_utils.py:1388", "conc": "kv_cache_utils.py:1392",
            "graphs": "gpu_model_runner.py:4807", "initdone": "core.py:271", "ccinfo": "loggers.py:183", "start": "api_server.py:2139"}


def engine_cfg_str(model: str, served: str, *, dtype: str, max_seq_len: int, tp: int, dp: int = 1, quant: str = "None",
                   kv_dtype: str = "auto", prefix: bool = True, extra: str = "") -> str:
    return (
        f"model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, "
        f"revision=None, tokenizer_revision=None, trust_remote_code=False, dtype={dtype}, max_seq_len={max_seq_len}, "
        f"download_dir=None, load_format=auto, tensor_parallel_size={tp}, pipeline_parallel_size=1, data_parallel_size={dp}, "
        f"disable_custom_all_reduce=False, quantization={quant}, enforce_eager=False, kv_cache_dtype={kv_dtype}, "
        f"device_config=cuda, seed=0, served_model_name={served}, enable_prefix_caching={prefix}, "
        f"chunked_prefill_enabled=True{extra}"
    )


def v1_startup(*, t: float, version: str, A: str, E: str, W: str, nondefault: str, arch: str, max_model_len: int,
               engine_cfg: str, weights_gib: float, kv_gib: float, kv_tokens: int, num_gpu_blocks: int, refs: dict[str, str],
               extra_cfg: list[str] | None = None, extra_after_kv: list[str] | None = None, mnbt: int = 8192) -> list[tuple[float, str]]:
    """Start-up lines; A/E/W are the process prefixes with a trailing space (or '' for releases without them)."""
    L: list[tuple[float, str]] = []
    conc = kv_tokens / max_model_len
    L.append((t, f"INFO {ts(t)} [__init__.py:216] Automatically detected platform cuda."))
    L.append((t + 2, f"{A}INFO {ts(t+2)} [{refs['apiver']}] vLLM API server version {version}"))
    L.append((t + 2, f"{A}INFO {ts(t+2)} [{refs['nondefault']}] non-default args: {nondefault}"))
    L.append((t + 9, f"{A}INFO {ts(t+9)} [{refs['arch']}] Resolved architecture: {arch}"))
    L.append((t + 9, f"{A}INFO {ts(t+9)} [{refs['mml']}] Using max model len {max_model_len}"))
    L.append((t + 10, f"{A}INFO {ts(t+10)} [{refs['sched']}] Chunked prefill is enabled with max_num_batched_tokens={mnbt}."))
    for i, line in enumerate(extra_cfg or []):
        L.append((t + 10 + i * 0.01, f"{A}INFO {ts(t+10)} {line}"))
    L.append((t + 18, f"{E}INFO {ts(t+18)} [{refs['init']}] Initializing a V1 LLM engine (v{version}) with config: {engine_cfg}"))
    L.append((t + 25, f"{W}INFO {ts(t+25)} [{refs['load']}] Starting to load model {refs['model_path']}..."))
    L.append((t + 70, f"{W}INFO {ts(t+70)} [{refs['loaded']}] Model loading took {weights_gib:.4f} GiB and 44.310512 seconds"))
    L.append((t + 95, f"{W}INFO {ts(t+95)} [{refs['avail']}] Available KV cache memory: {kv_gib:.2f} GiB"))
    L.append((t + 95.1, f"{E}INFO {ts(t+95)} [{refs['kvsize']}] GPU KV cache size: {kv_tokens:,} tokens"))
    L.append((t + 95.2, f"{E}INFO {ts(t+95)} [{refs['conc']}] Maximum concurrency for {max_model_len:,} tokens per request: {conc:.2f}x"))
    for i, line in enumerate(extra_after_kv or []):
        L.append((t + 95.3 + i * 0.01, line))
    L.append((t + 121, f"{W}INFO {ts(t+121)} [{refs['graphs']}] Graph capturing finished in 24 secs, took 0.55 GiB"))
    L.append((t + 122, f"{E}INFO {ts(t+122)} [{refs['initdone']}] init engine (profile, create kv cache, warmup model) took 52.14 seconds"))
    L.append((t + 123, f"{A}INFO {ts(t+123)} [{refs['ccinfo']}] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {num_gpu_blocks}"))
    L.append((t + 124, f"{A}INFO {ts(t+124)} [{refs['start']}] Starting vLLM API server 0 on http://0.0.0.0:8000"))
    api_pid = int(re.search(r"pid=(\d+)", A).group(1)) if "pid=" in A else 1
    for tt, line in http_started(t + 124.5, api_pid):
        L.append((tt, line if A else line.replace(f"(APIServer pid={api_pid}) ", "")))
    return L


def labels_v1(table: str, **kw: str) -> dict[str, str]:
    base = {
        "_block_size_resolved": "True", "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
        "cpu_kvcache_space_bytes": "None", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
        "gpu_memory_utilization": "0.9", "hash_block_size": "None", "is_attention_free": "False",
        "kv_cache_dtype_skip_layers": "[]", "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native",
        "kv_offloading_size": "None", "kv_sharing_fast_prefill": "False", "mamba_block_size": "None",
        "mamba_cache_dtype": "auto", "mamba_cache_mode": "none", "mamba_page_size_padded": "None",
        "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks_override": "None",
        "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
        "user_specified_block_size": "False", "user_specified_mamba_block_size": "False",
        "kv_cache_max_concurrency": "None", "kv_cache_size_tokens": "None",
    }
    if table in ("0.9.2", "0.10.0"):
        base["prefix_caching_hash_algo"] = "builtin"
    base.update(kw)
    return base


def merge_expositions(texts: list[str]) -> str:
    """Merge per-engine expositions (same family order) into one /metrics body, as a DP server
    serves it: each family's HELP/TYPE once, then the samples of every engine."""
    fams: list[tuple[str, list[str]]] = []
    index: dict[str, int] = {}
    for text in texts:
        cur = None
        header: list[str] = []
        for ln in text.splitlines():
            if ln.startswith("# HELP "):
                name = ln.split(" ", 3)[2]
                cur = name
                header = [ln]
                continue
            if ln.startswith("# TYPE "):
                header.append(ln)
                if cur not in index:
                    index[cur] = len(fams)
                    fams.append((cur, list(header)))
                continue
            fams[index[cur]][1].append(ln)
    out: list[str] = []
    for _, lines in fams:
        out.extend(lines)
    return "\n".join(out) + "\n"


class MultiSim:
    """Several data-parallel engines behind one API server."""

    def __init__(self, sims: list[Sim]):
        self.sims = sims
        self.srv = sims[0].srv

    def exposition(self, t: float) -> str:
        return merge_expositions([s.exposition(t) for s in self.sims])


def closed_loop(rng: random.Random, *, clients: int, slots: int, t_start: float, t_end: float, make) -> list[Req]:
    """Closed-loop clients against a server with `slots` running slots (max_num_seqs).
    make(i, t_arrive) -> Req with queue_s=0; queueing for a slot is added here."""
    reqs: list[Req] = []
    slot_free = [t_start] * slots
    client_t = [t_start + rng.uniform(0, 3.0) for _ in range(clients)]
    i = 0
    while True:
        c = min(range(clients), key=lambda k: client_t[k])
        ta = client_t[c]
        if ta >= t_end:
            break
        r = make(i, ta)
        s = min(range(slots), key=lambda k: slot_free[k])
        start = max(ta, slot_free[s])
        r.queue_s = round(start - ta + rng.uniform(0.002, 0.01), 4)
        r.finish()
        slot_free[s] = r.t_end
        client_t[c] = r.t_end + rng.uniform(0.05, 0.4)
        reqs.append(r)
        i += 1
    return reqs



# =========================================================================== case 1 (dev-4)
QWEN35_4B_CONFIG = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "tie_word_embeddings": True,
    "text_config": {
        "model_type": "qwen3_5_text",
        "attention_bias": False,
        "attn_output_gate": True,
        "dtype": "bfloat16",
        "eos_token_id": 248044,
        "full_attention_interval": 4,
        "head_dim": 256,
        "hidden_act": "silu",
        "hidden_size": 2560,
        "intermediate_size": 9216,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 8,
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 128,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_value_head_dim": 128,
        "mamba_ssm_dtype": "float32",
        "max_position_embeddings": 262144,
        "mtp_num_hidden_layers": 1,
        "num_attention_heads": 16,
        "num_hidden_layers": 32,
        "num_key_value_heads": 4,
        "rms_norm_eps": 1e-06,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25, "mrope_interleaved": True, "mrope_section": [11, 11, 10]},
        "use_cache": True,
        "vocab_size": 248320,
    },
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 24, "hidden_size": 1024, "out_hidden_size": 2560, "num_heads": 16, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2},
}


def k_qwen35_4b_align_ckpt_in_unique_suffix() -> None:
    cid = "k-qwen35-4b-align-ckpt-in-unique-suffix"
    rng = random.Random(9101)
    start = epoch(2026, 6, 11, 9, 12, 40)
    t0 = start + 300.0
    n, interval = 37, 5.0
    t_end = t0 + interval * (n - 1)
    model = "Qwen/Qwen3.5-4B"
    version = "0.23.0rc1.dev112+g16282a9c4"
    reqs: list[Req] = []
    t = t0 + 4.0
    for i in range(64):
        plen = 1500 + rng.randint(650, 750) + 12  # shared prefix + unique suffix + chat-template tokens
        r = Req(rid=f"cmpl-{rng.getrandbits(128):032x}-0", t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=128, max_tokens=128,
                queue_s=0.004, prefill_s=round(rng.uniform(0.86, 0.95), 3), itl_s=round(rng.uniform(0.0105, 0.0115), 4),
                finished_reason="length")
        r.finish()
        reqs.append(r)
        t = r.t_end + rng.uniform(0.03, 0.08)
    labels = labels_v1("0.18.0", gpu_memory_utilization="0.9", block_size="528", num_gpu_blocks="2084",
                       mamba_block_size="528", mamba_cache_mode="align", mamba_page_size_padded="1081344",
                       mamba_ssm_cache_dtype="float32", kv_cache_size_tokens="1100352", kv_cache_max_concurrency="4.2")
    srv = Server(version, "0.18.0", model, 262144, 528, 2084, labels, start, pool_groups=4)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:259"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore_DP0 pid=247) ", "(EngineCore_DP0 pid=247) "
    refs = v1_refs(version) | {"model_path": model}
    nondefault = f"{{'model_tag': '{model}', 'model': '{model}', 'enforce_eager': True, 'enable_prefix_caching': True}}"
    cfg = engine_cfg_str(model, model, dtype="torch.bfloat16", max_seq_len=262144, tp=1).replace("enforce_eager=False", "enforce_eager=True")
    logs = v1_startup(t=start, version=version, A=A, E=E, W=W, nondefault=nondefault,
                      arch="Qwen3_5ForConditionalGeneration", max_model_len=262144, engine_cfg=cfg,
                      weights_gib=8.6142, kv_gib=60.12, kv_tokens=1100352, num_gpu_blocks=2084, refs=refs,
                      extra_cfg=["[interface.py:773] Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size."])
    logs = [(tt, ln) for tt, ln in logs if "Graph capturing finished" not in ln]
    logs += stats_lines(sim, t0 - 60, t_end, "v1", A)
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     127.0.0.1:{41000 + i} - "POST /v1/completions HTTP/1.1" 200 OK') for i, r in enumerate(reqs)]
    gpus = gpu_devices("NVIDIA H100 80GB HBM3", 81559, [74102], [(247, "VLLM::EngineCore_DP0", 73450)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://127.0.0.1:8000",
        notes="benchmark of prefix reuse on a hybrid model: 64 requests sent one at a time, every prompt ~2200 tokens made of "
              "the same 1500-token prefix followed by a ~700-token part unique to the request, 128 output tokens; prefix "
              "caching on (align mode); /metrics every 5 s over the run, NVML, server log",
        version_body={"version": version},
        models_body=models_body(model, model, 262144, int(start + 125)),
        argv=["vllm", "serve", model, "--enforce-eager", "--enable-prefix-caching"],
        args={"enforce-eager": True, "enable-prefix-caching": True},
        model_config=QWEN35_4B_CONFIG, gpus=gpus, logs=join(logs),
    )


# =========================================================================== case 2 (dev-4)
def k_glm53_dflash2_draft_group_zero_hits() -> None:
    cid = "k-glm53-dflash2-draft-group-zero-hits"
    rng = random.Random(9201)
    start = epoch(2026, 8, 30, 7, 40, 3)
    t0 = start + 14400.0
    n, interval = 37, 5.0
    t_end = t0 + interval * (n - 1)
    model = "GLM-5.3-Flash-NVFP4"
    path = "local-inference-lab/GLM-5.3-Flash-NVFP4"
    version = "0.26.1rc1.dev1133+gf94666b60"
    reqs: list[Req] = []
    # earlier traffic since start: 442,227 queried tokens, 0 hits (the quoted counters before the probe)
    hist_total, acc = 442227, 0
    t = start + 300.0
    while acc < hist_total:
        plen = min(hist_total - acc, rng.randint(3000, 14000))
        acc += plen
        gen = rng.randint(150, 900)
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=4096, queue_s=0.004,
                prefill_s=round(plen / 1900.0, 3), itl_s=round(rng.uniform(0.042, 0.048), 4), finished_reason="stop")
        r.finish()
        reqs.append(r)
        t = r.t_end + rng.uniform(60.0, 300.0)
    assert t < t0 - 60, t
    # the probe inside the window
    probe: list[tuple[float, int, int]] = []  # (arrival, prompt_len, gen)
    tp = t0 + 12.0
    for plen in (4608, 4608, 4611, 4611):
        probe.append((tp, plen, 16))
        tp += 16.0
    tp += 10.0
    for k in range(4):
        probe.append((tp + 0.01 * k, 8192, 16))
    for ta, plen, gen in probe:
        conc = plen == 8192
        r = Req(rid=rid(rng), t_arrive=round(ta, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=gen, queue_s=0.004,
                prefill_s=round((4.1 + rng.uniform(-0.1, 0.1)) if conc else (2.4 + rng.uniform(-0.05, 0.05)), 3),
                itl_s=round(rng.uniform(0.043, 0.047), 4), finished_reason="length")
        r.finish()
        reqs.append(r)
    labels = labels_v1("0.24.0", gpu_memory_utilization="0.85", block_size="2304", cache_dtype="fp8", num_gpu_blocks="642",
                       kv_cache_size_tokens="1479168", kv_cache_max_concurrency="5.64", user_specified_block_size="True")
    srv = Server(version, "0.24.0", model, 262144, 2304, 642, labels, start, pool_groups=1)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:263"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore pid=214) ", "(Worker_TP0 pid=231) "
    refs = v1_refs(version) | {"model_path": path}
    spec = '{"method":"dflash","model":"z-lab/GLM-5.3-Flash-DFlash2","num_speculative_tokens":7}'
    nondefault = (f"{{'model_tag': '{path}', 'model': '{path}', 'served_model_name': ['{model}'], 'max_model_len': 262144, "
                  "'block_size': 2304, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.85, 'kv_cache_dtype': 'fp8', "
                  "'enable_prefix_caching': True, 'enable_chunked_prefill': True, "
                  "'speculative_config': {'method': 'dflash', 'model': 'z-lab/GLM-5.3-Flash-DFlash2', 'num_speculative_tokens': 7}}")
    cfg = engine_cfg_str(path, model, dtype="torch.bfloat16", max_seq_len=262144, tp=2, quant="modelopt_fp4", kv_dtype="fp8")
    cfg = cfg.replace("speculative_config=None", "speculative_config=SpeculativeConfig(method='dflash', model='z-lab/GLM-5.3-Flash-DFlash2', num_spec_tokens=7)")
    cfg = cfg.replace("chunked_prefill_enabled=True", "enable_prefix_caching=True, enable_chunked_prefill=True").replace(
        "enable_prefix_caching=True, enable_prefix_caching=True", "enable_prefix_caching=True")
    logs = v1_startup(t=start, version=version, A=A, E=E, W=W, nondefault=nondefault,
                      arch="GlmMoeDsaForCausalLM", max_model_len=262144, engine_cfg=cfg,
                      weights_gib=38.4410, kv_gib=44.06, kv_tokens=1479168, num_gpu_blocks=642, refs=refs,
                      extra_after_kv=[f"{E}WARNING {ts(start + 95.3)} [kv_cache_coordinator.py:611] Disabling fine-grained prefix-cache hits "
                                      "because these KV cache managers require block-aligned lookups: KpoolTailManager"])
    logs += stats_lines(sim, t0 - 60, t_end, "v1", A)
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     192.168.100.7:{50100 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
             for i, r in enumerate(reqs) if r.t_arrive > t0 - 60]
    gpus = [gpu_devices("NVIDIA GB10", 122570, [109850], [(231, "VLLM::Worker_TP0", 103200)])]
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://192.168.100.2:8000",
        notes="head node of a 2x DGX Spark (GB10) TP=2 pair serving GLM-5.3-Flash-NVFP4 with the DFlash2 drafter; the prefix "
              "cache has never hit since start. During this capture we sent a 4608-token prompt twice, a 4611-token prompt "
              "twice (same text byte-for-byte each time), then four identical ~8k-token prompts at once. /metrics every 5 s "
              "for 3 min, NVML of this node, server log",
        version_body={"version": version},
        models_body=models_body(model, path, 262144, int(start + 125)),
        argv=["vllm", "serve", path, "--served-model-name", model, "--tensor-parallel-size", "2", "--max-model-len", "262144",
              "--block-size", "2304", "--gpu-memory-utilization", "0.85", "--kv-cache-dtype", "fp8", "--enable-prefix-caching",
              "--enable-chunked-prefill", "--speculative-config", spec],
        args={"served-model-name": model, "tensor-parallel-size": 2, "max-model-len": 262144, "block-size": 2304,
              "gpu-memory-utilization": 0.85, "kv-cache-dtype": "fp8", "enable-prefix-caching": True,
              "enable-chunked-prefill": True, "speculative-config": spec},
        model_config=None, gpus=gpus[0], logs=join(logs),
    )


# =========================================================================== case 3 (holdout-4)
QWEN38_27B_CONFIG = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]},
    "text_config": {
        "model_type": "qwen3_5_text",
        "attention_bias": False,
        "attn_output_gate": True,
        "dtype": "bfloat16",
        "eos_token_id": 248044,
        "full_attention_interval": 4,
        "head_dim": 256,
        "hidden_act": "silu",
        "hidden_size": 5120,
        "intermediate_size": 17408,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 16,
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 128,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 48,
        "linear_value_head_dim": 128,
        "mamba_ssm_dtype": "float32",
        "max_position_embeddings": 262144,
        "mtp_num_hidden_layers": 1,
        "num_attention_heads": 24,
        "num_hidden_layers": 64,
        "num_key_value_heads": 4,
        "rms_norm_eps": 1e-06,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25, "mrope_interleaved": True, "mrope_section": [11, 11, 10]},
        "use_cache": True,
        "vocab_size": 248320,
    },
}


def k_qwen38_27b_mtp_2080ti_repeat_no_reuse() -> None:
    cid = "k-qwen38-27b-mtp-2080ti-repeat-no-reuse"
    rng = random.Random(9301)
    start = epoch(2026, 9, 8, 13, 5, 11)
    t0 = start + 420.0
    n, interval = 37, 5.0
    t_end = t0 + interval * (n - 1)
    model = "Qwen3.8-27B-Uncensored-FP8"
    version = "0.21.0"
    reqs: list[Req] = []
    t = t0 + 3.0
    while t < t_end:
        plen = 2237 + rng.randint(40, 180)
        gen = rng.randint(200, 400)
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=1024, queue_s=0.004,
                prefill_s=round(rng.uniform(0.972, 0.996), 3), itl_s=round(rng.uniform(0.038, 0.045), 4), finished_reason="stop")
        r.finish()
        reqs.append(r)
        t = r.t_end + rng.uniform(1.0, 3.0)
    labels = labels_v1("0.18.0", gpu_memory_utilization="0.92", block_size="1600", num_gpu_blocks="116",
                       mamba_block_size="1600", mamba_cache_mode="align", mamba_page_size_padded="3276800",
                       mamba_ssm_cache_dtype="float32", kv_cache_size_tokens="185600", kv_cache_max_concurrency="1.45")
    srv = Server(version, "0.18.0", model, 128000, 1600, 116, labels, start, pool_groups=4)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:259"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore_DP0 pid=176) ", "(Worker_TP0 pid=302) "
    path = "/models/Qwen3.8-27B-Uncensored-FP8"
    refs = v1_refs(version) | {"model_path": path}
    spec = '{"method":"mtp","num_speculative_tokens":3}'
    nondefault = (f"{{'model_tag': '{path}', 'model': '{path}', 'served_model_name': ['{model}'], 'max_model_len': 128000, "
                  "'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.92, 'enable_prefix_caching': True, "
                  "'mamba_cache_mode': 'align', 'max_num_seqs': 1, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}")
    cfg = engine_cfg_str(path, model, dtype="torch.float16", max_seq_len=128000, tp=2, quant="fp8")
    cfg = cfg.replace("speculative_config=None", f"speculative_config=SpeculativeConfig(method='mtp', model='{path}', num_spec_tokens=3)")
    logs = v1_startup(t=start, version=version, A=A, E=E, W=W, nondefault=nondefault,
                      arch="Qwen3_5ForConditionalGeneration", max_model_len=128000, engine_cfg=cfg,
                      weights_gib=14.2031, kv_gib=5.31, kv_tokens=185600, num_gpu_blocks=116, refs=refs,
                      extra_cfg=["[interface.py:773] Setting attention block size to 1600 tokens to ensure that attention page size is >= mamba page size."])
    logs += stats_lines(sim, t0 - 60, t_end, "v1", A)
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     192.168.1.40:{53100 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for i, r in enumerate(reqs)]
    gpus = gpu_devices("NVIDIA GeForce RTX 2080 Ti", 22528, [21140, 20980], [(302, "VLLM::Worker_TP0", 20610), (303, "VLLM::Worker_TP1", 20450)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://192.168.1.20:8000",
        notes="two modded 22 GB RTX 2080 Ti (TP=2) serving Qwen3.8-27B FP8 with MTP (3 tokens) and prefix caching; a test "
              "client sends, one at a time, requests that all start with the same 2237-token prefix (byte-identical) and "
              "end with a short question; first-token time does not improve on repeats; /metrics every 5 s for 3 min, NVML, server log",
        version_body={"version": version},
        models_body=models_body(model, path, 128000, int(start + 125)),
        argv=["vllm", "serve", path, "--served-model-name", model, "--tensor-parallel-size", "2", "--max-model-len", "128000",
              "--gpu-memory-utilization", "0.92", "--enable-prefix-caching", "--mamba-cache-mode", "align", "--max-num-seqs", "1",
              "--speculative-config", spec],
        args={"served-model-name": model, "tensor-parallel-size": 2, "max-model-len": 128000, "gpu-memory-utilization": 0.92,
              "enable-prefix-caching": True, "mamba-cache-mode": "align", "max-num-seqs": 1, "speculative-config": spec},
        model_config=QWEN38_27B_CONFIG, gpus=gpus, logs=join(logs),
    )


# =========================================================================== case 4 (holdout-4)
def k_dsv4_flash_reasoning_high_zero_hits() -> None:
    cid = "k-dsv4-flash-reasoning-high-zero-hits"
    rng = random.Random(9401)
    start = epoch(2026, 8, 26, 10, 2, 44)
    t0 = start + 1500.0
    n, interval = 37, 5.0
    t_end = t0 + interval * (n - 1)
    model = "deepseek-v4-flash"
    path = "deepseek-ai/DeepSeek-V4-Flash-0731"
    version = "0.21.1rc1.dev339+g1967a5627bc3"
    reqs: list[Req] = []
    # before the window: the 'shared' arm at reasoning_effort=low (first request cold, then ~95 % hits)
    t = t0 - 240.0
    for i in range(6):
        plen = 6000 + rng.randint(60, 260)
        hit = 0 if i == 0 else 5888
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=hit, gen_len=rng.randint(120, 260), max_tokens=512,
                queue_s=0.004, prefill_s=round(rng.uniform(3.85, 4.0) if i == 0 else rng.uniform(1.6, 1.7), 3),
                itl_s=round(rng.uniform(0.055, 0.07), 4), finished_reason="stop")
        r.finish()
        reqs.append(r)
        t = r.t_end + rng.uniform(1.5, 3.0)
    assert t < t0 - 5, t
    # the window: the same arm at reasoning_effort=high, 0 hit tokens
    t = t0 + 4.0
    while t < t_end - 6:
        plen = 6000 + rng.randint(60, 260)
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=rng.randint(180, 320), max_tokens=512,
                queue_s=0.004, prefill_s=round(rng.uniform(4.15, 4.25), 3), itl_s=round(rng.uniform(0.055, 0.07), 4),
                finished_reason="length")
        r.finish()
        reqs.append(r)
        t = r.t_end + rng.uniform(1.5, 3.0)
    labels = labels_v1("0.18.0", gpu_memory_utilization="0.85", block_size="256", cache_dtype="nvfp4_ds_mla", num_gpu_blocks="4352",
                       kv_cache_size_tokens="1114112", kv_cache_max_concurrency="1.06")
    srv = Server(version, "0.18.0", model, 1048576, 256, 4352, labels, start, pool_groups=1)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:259"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore_DP0 pid=121) ", "(Worker_TP0 pid=188) "
    refs = v1_refs(version) | {"model_path": path}
    spec = '{"method":"dspark","num_speculative_tokens":5}'
    nondefault = (f"{{'model_tag': '{path}', 'model': '{path}', 'served_model_name': ['{model}'], 'max_model_len': 1048576, "
                  "'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.85, 'kv_cache_dtype': 'nvfp4_ds_mla', "
                  "'enable_prefix_caching': True, 'enable_chunked_prefill': True, 'tokenizer_mode': 'deepseek_v4', "
                  "'reasoning_parser': 'deepseek_v4', 'speculative_config': {'method': 'dspark', 'num_speculative_tokens': 5}}")
    cfg = engine_cfg_str(path, model, dtype="torch.bfloat16", max_seq_len=1048576, tp=2, quant="fp8", kv_dtype="nvfp4_ds_mla")
    cfg = cfg.replace("speculative_config=None", f"speculative_config=SpeculativeConfig(method='dspark', model='{path}', num_spec_tokens=5)")
    logs = v1_startup(t=start, version=version, A=A, E=E, W=W, nondefault=nondefault,
                      arch="DeepseekV4ForCausalLM", max_model_len=1048576, engine_cfg=cfg,
                      weights_gib=71.3828, kv_gib=19.94, kv_tokens=1114112, num_gpu_blocks=4352, refs=refs)
    logs += stats_lines(sim, t0 - 250, t_end, "v1", A)
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     10.20.0.31:{47200 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for i, r in enumerate(reqs)]
    gpus = gpu_devices("NVIDIA GB10", 122570, [112930], [(188, "VLLM::Worker_TP0", 106400)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://10.20.0.10:8888",
        notes="DeepSeek-V4-Flash-0731 on 2x DGX Spark (TP=2, head node's NVML), prefix caching on. Test client: sequential "
              "chat requests sharing one byte-identical 6000-token system prompt, short user turn; first 6 requests (before "
              "this capture) with chat_template_kwargs.reasoning_effort=low, then (during the capture) the same requests with "
              "reasoning_effort=high: cached_tokens is 0 on every high request. /metrics every 5 s for 3 min, server log",
        version_body={"version": version},
        models_body=models_body(model, path, 1048576, int(start + 125)),
        argv=["vllm", "serve", path, "--served-model-name", model, "--tensor-parallel-size", "2", "--max-model-len", "1048576",
              "--gpu-memory-utilization", "0.85", "--kv-cache-dtype", "nvfp4_ds_mla", "--enable-prefix-caching",
              "--enable-chunked-prefill", "--tokenizer-mode", "deepseek_v4", "--reasoning-parser", "deepseek_v4",
              "--speculative-config", spec],
        args={"served-model-name": model, "tensor-parallel-size": 2, "max-model-len": 1048576, "gpu-memory-utilization": 0.85,
              "kv-cache-dtype": "nvfp4_ds_mla", "enable-prefix-caching": True, "enable-chunked-prefill": True,
              "tokenizer-mode": "deepseek_v4", "reasoning-parser": "deepseek_v4", "speculative-config": spec},
        model_config=None, gpus=gpus, logs=join(logs),
    )


BUILDERS = {
    "k-qwen35-4b-align-ckpt-in-unique-suffix": k_qwen35_4b_align_ckpt_in_unique_suffix,
    "k-glm53-dflash2-draft-group-zero-hits": k_glm53_dflash2_draft_group_zero_hits,
    "k-qwen38-27b-mtp-2080ti-repeat-no-reuse": k_qwen38_27b_mtp_2080ti_repeat_no_reuse,
    "k-dsv4-flash-reasoning-high-zero-hits": k_dsv4_flash_reasoning_high_zero_hits,
}


def main(argv: list[str]) -> int:
    for cid in argv or list(BUILDERS):
        BUILDERS[cid]()
        print("built", cid)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
