#!/usr/bin/env python3
"""Build the bundles (and prompt samples) of the h-* cases.

    PYTHONPATH=<worktree> /work/main/.venv/bin/python cases/_tools/h/cases.py [case-id ...]

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


# =========================================================================== case 1 (dev-3)
QWEN36_27B_CONFIG = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "image_token_id": 248056,
    "video_token_id": 248057,
    "vision_start_token_id": 248053,
    "vision_end_token_id": 248054,
    "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True, "packing_format": "auto_round:auto_gptq"},
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
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 27, "hidden_size": 1152, "out_hidden_size": 5120, "num_heads": 16, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2},
}


def h_qwen36_27b_block784_370tok_batch() -> None:
    cid = "h-qwen36-27b-block784-370tok-batch"
    rng = random.Random(8101)
    start = epoch(2026, 8, 15, 9, 12, 40)
    tb = start + 300.0  # the batch starts
    t0 = tb + 120.0
    n, interval = 31, 5.0
    model = "Qwen3.6-27B-int4-AutoRound"
    path = "/models/Qwen3.6-27B-int4-AutoRound"

    def make(i: int, ta: float) -> Req:
        plen = rng.randint(370, 373)  # 369-token shared prefix + the item
        return Req(rid=rid(rng), t_arrive=round(ta, 3), prompt_len=plen, hit=0, gen_len=10, max_tokens=10, queue_s=0.0,
                   prefill_s=round(rng.uniform(18.8, 21.6), 3), itl_s=round(rng.uniform(0.37, 0.42), 4), finished_reason="length")

    reqs = closed_loop(rng, clients=128, slots=128, t_start=tb, t_end=tb + 374.2 - 24.0, make=make)
    labels = labels_v1("0.18.0", gpu_memory_utilization="0.9", block_size="784", num_gpu_blocks="1700",
                       mamba_block_size="784", mamba_cache_mode="align", mamba_page_size_padded="1605632",
                       mamba_ssm_cache_dtype="float32", kv_cache_size_tokens="333200", kv_cache_max_concurrency="40.67")
    srv = Server("0.20.0", "0.18.0", model, 8192, 784, 1700, labels, start, pool_groups=4)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:259"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore_DP0 pid=287) ", "(Worker_TP0 pid=402) "
    refs = v1_refs("0.20.0") | {"model_path": path}
    nondefault = (f"{{'model_tag': '{path}', 'model': '{path}', 'served_model_name': ['{model}'], 'max_model_len': 8192, "
                  "'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 128, 'enable_prefix_caching': True}")
    logs = v1_startup(t=start, version="0.20.0", A=A, E=E, W=W, nondefault=nondefault,
                      arch="Qwen3_5ForConditionalGeneration", max_model_len=8192,
                      engine_cfg=engine_cfg_str(path, model, dtype="torch.float16", max_seq_len=8192, tp=2, quant="auto-round"),
                      weights_gib=8.1406, kv_gib=10.17, kv_tokens=333200, num_gpu_blocks=1700, refs=refs,
                      extra_cfg=["[interface.py:773] Setting attention block size to 784 tokens to ensure that attention page size is >= mamba page size.",
                                 "[interface.py:797] Padding mamba page size by 0.52% to ensure that mamba page size and attention page size are exactly equal."])
    logs += stats_lines(sim, start + 130, tb + 290, "v1", A)
    logs = [(tt, ln) for tt, ln in logs if not (tt < tb and "Running: 0 reqs" in ln and tt > start + 140)]
    gpus = gpu_devices("NVIDIA GeForce RTX 3090", 24576, [22891, 22891], [(402, "VLLM::Worker_TP0", 22310), (403, "VLLM::Worker_TP1", 22310)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://127.0.0.1:8000",
        notes="batch job: 2000 short classification prompts (369-token shared instruction + item, regex structured output, max_tokens=10) "
              "against Qwen3.6-27B int4 on 2x RTX 3090 (TP=2), 128 in flight; the run takes 374 s with prefix caching on and 377 s "
              "with it off; /metrics every 5 s for 150 s mid-run, NVML, server log; a sample of the prompts in prompts.jsonl",
        version_body={"version": "0.20.0"},
        models_body=models_body(model, path, 8192, int(start + 125)),
        argv=["vllm", "serve", path, "--served-model-name", model, "--tensor-parallel-size", "2", "--max-model-len", "8192",
              "--max-num-seqs", "128", "--gpu-memory-utilization", "0.9", "--enable-prefix-caching"],
        args={"served-model-name": model, "tensor-parallel-size": 2, "max-model-len": 8192, "max-num-seqs": 128,
              "gpu-memory-utilization": 0.9, "enable-prefix-caching": True},
        model_config=QWEN36_27B_CONFIG, gpus=gpus, logs=join(logs),
    )
    prng = random.Random(8102)
    instr = ("You are a strict classifier for customer support tickets. Read the ticket and answer with exactly one label "
             "from the list, in the form LABEL: <name>. ") + words(prng, tok_words(369) - 30)
    rows = []
    for i in range(40):
        item = words(prng, prng.randint(1, 3))
        rows.append({"model": model, "prompt": f"{instr}\nTicket: {item}\nLabel:", "max_tokens": 10, "min_tokens": 4,
                     "structured_outputs": {"regex": "LABEL: (billing|shipping|returns|account|technical|other)"}})
    write_prompts(cid, rows)


# =========================================================================== case 2 (dev-3)
def h_glm53_dcp4_prefix_zero_hits() -> None:
    cid = "h-glm53-dcp4-prefix-zero-hits"
    rng = random.Random(8201)
    start = epoch(2026, 8, 31, 8, 4, 12)
    t0 = start + 600.0
    n, interval = 37, 5.0
    t_end = t0 + interval * (n - 1)
    model = "GLM-5.3-Flash-NVFP4"
    path = "local-inference-lab/GLM-5.3-Flash-NVFP4"
    prefix = 16384
    reqs: list[Req] = []
    turns: list[tuple[int, int]] = []
    t = start + 420.0
    while t < t_end + 5:
        new = rng.randint(200, 600)
        plen = prefix + new
        gen = rng.randint(150, 400)
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=2048, queue_s=0.004,
                prefill_s=round(rng.uniform(1.36, 1.44), 3), itl_s=round(rng.uniform(0.0105, 0.0118), 4), finished_reason="stop")
        r.finish()
        reqs.append(r)
        turns.append((new, gen))
        t = r.t_end + rng.uniform(2.5, 5.0)
    labels = labels_v1("0.24.0", gpu_memory_utilization="0.9", block_size="64", cache_dtype="fp8", num_gpu_blocks="16384",
                       kv_cache_size_tokens="1048576", kv_cache_max_concurrency="8.0")
    srv = Server("0.27.2.dev41+g7c1e0a9d3", "0.24.0", model, 131072, 64, 16384, labels, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:263"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore pid=311) ", "(Worker_TP0 pid=455) "
    refs = v1_refs("0.27.2") | {"model_path": path}
    nondefault = (f"{{'model_tag': '{path}', 'model': '{path}', 'served_model_name': ['{model}'], 'max_model_len': 131072, "
                  "'tensor_parallel_size': 4, 'decode_context_parallel_size': 4, 'kv_cache_dtype': 'fp8', "
                  "'enable_prefix_caching': True, 'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}")
    cfg = engine_cfg_str(path, model, dtype="torch.bfloat16", max_seq_len=131072, tp=4, quant="modelopt_fp4", kv_dtype="fp8",
                         extra=", decode_context_parallel_size=4")
    cfg = cfg.replace("speculative_config=None", "speculative_config=SpeculativeConfig(method='mtp', model='local-inference-lab/GLM-5.3-Flash-NVFP4', num_spec_tokens=3)")
    logs = v1_startup(t=start, version="0.27.2.dev41+g7c1e0a9d3", A=A, E=E, W=W, nondefault=nondefault,
                      arch="Glm5MoeForCausalLM", max_model_len=131072, engine_cfg=cfg,
                      weights_gib=43.8125, kv_gib=31.50, kv_tokens=1048576, num_gpu_blocks=16384, refs=refs)
    logs += stats_lines(sim, start + 430, t_end, "v1", A)
    logs = [(tt, ln) for tt, ln in logs if "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs" not in ln]
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     172.17.0.1:{50000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for i, r in enumerate(reqs)]
    gpus = gpu_devices("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 97887, [89420] * 4,
                       [(455 + k, f"VLLM::Worker_TP{k}", 88790) for k in range(4)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://127.0.0.1:8000",
        notes="GLM-5.3-Flash-NVFP4 on 4x RTX PRO 6000 Blackwell, TP4 / DCP4 / MTP=3 (fork image of 2026-08-30); an agent "
              "session re-sends the same ~16K-token prefix on every request and TTFT never drops below the cold ~1.4 s; "
              "/metrics every 5 s for 3 min, NVML, server log; the session's requests in prompts.jsonl",
        version_body={"version": "0.27.2.dev41+g7c1e0a9d3"},
        models_body=models_body(model, path, 131072, int(start + 125)),
        argv=["vllm", "serve", path, "--served-model-name", model, "--tensor-parallel-size", "4",
              "--decode-context-parallel-size", "4", "--speculative-config", '{"method":"mtp","num_speculative_tokens":3}',
              "--kv-cache-dtype", "fp8", "--max-model-len", "131072", "--enable-prefix-caching"],
        args={"served-model-name": model, "tensor-parallel-size": 4, "decode-context-parallel-size": 4,
              "speculative-config": '{"method":"mtp","num_speculative_tokens":3}', "kv-cache-dtype": "fp8",
              "max-model-len": 131072, "enable-prefix-caching": True},
        model_config=None, gpus=gpus, logs=join(logs),
    )
    prng = random.Random(8202)
    system = ("You are a coding agent working in the repository described below. Use the tools to inspect and edit files. "
              + words(prng, tok_words(4000)))
    tools_doc = words(prng, tok_words(3000))
    document = words(prng, tok_words(prefix - 7000 - 60))
    rows = []
    for new, gen in turns[-12:]:
        rows.append({"model": model, "max_tokens": 2048, "messages": [
            {"role": "system", "content": system + "\n\nTools:\n" + tools_doc},
            {"role": "user", "content": "Project notes:\n" + document},
            {"role": "user", "content": words(prng, tok_words(new))}]})
    write_prompts(cid, rows)


# =========================================================================== case 3 (holdout-3)
QWEN35_08B_CONFIG = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "image_token_id": 248056,
    "video_token_id": 248057,
    "vision_start_token_id": 248053,
    "vision_end_token_id": 248054,
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
        "hidden_size": 1024,
        "intermediate_size": 3584,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 6,
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 128,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 16,
        "linear_value_head_dim": 128,
        "mamba_ssm_dtype": "float32",
        "max_position_embeddings": 262144,
        "mtp_num_hidden_layers": 1,
        "num_attention_heads": 8,
        "num_hidden_layers": 24,
        "num_key_value_heads": 2,
        "rms_norm_eps": 1e-06,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25, "mrope_interleaved": True, "mrope_section": [11, 11, 10]},
        "tie_word_embeddings": True,
        "use_cache": True,
        "vocab_size": 248320,
    },
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 12, "hidden_size": 768, "out_hidden_size": 1024, "num_heads": 12, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2},
}


def h_lmcache_mp_qwen35_08b_zero_external() -> None:
    cid = "h-lmcache-mp-qwen35-08b-zero-external"
    rng = random.Random(8301)
    start = epoch(2026, 7, 13, 10, 9, 2)
    t0 = start + 300.0
    n, interval = 31, 5.0
    t_end = t0 + interval * (n - 1)
    model = "Qwen/Qwen3.5-0.8B"
    plen = 104
    reqs: list[Req] = []
    lm: list[tuple[float, str]] = []
    t = start + 180.0
    while t < t_end + 3:
        gen = rng.randint(64, 200)
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=256, queue_s=0.004,
                prefill_s=round(rng.uniform(0.021, 0.027), 4), itl_s=round(rng.uniform(0.0052, 0.0058), 4), finished_reason="stop",
                ext_query=plen, ext_hit=0)
        r.finish()
        reqs.append(r)
        lt = r.t_end + 0.01
        lm.append((lt, f"[{_lmts(lt)}] LMCache WARNING: Session {r.rid} not found, skipping touch (lookup.py:524:lmcache.v1.multiprocess.modules.lookup)"))
        t = r.t_end + rng.uniform(2.5, 4.0)
    labels = labels_v1("0.24.0", gpu_memory_utilization="0.9", block_size="544", num_gpu_blocks="2318", mamba_block_size="544",
                       mamba_cache_mode="align", mamba_page_size_padded="1114112", mamba_ssm_cache_dtype="float32",
                       kv_cache_size_tokens="1260992", kv_cache_max_concurrency="153.93")
    srv = Server("0.24.0", "0.24.0", model, 8192, 544, 2318, labels, start, pool_groups=4)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:263"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1874) ", "(EngineCore pid=2012) ", "(EngineCore pid=2012) "
    refs = v1_refs("0.24.0") | {"model_path": model}
    kvt = '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.port":6555}}'
    nondefault = (f"{{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 8192, 'enable_prefix_caching': True, "
                  "'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheMPConnector', kv_role='kv_both', "
                  "kv_connector_extra_config={'lmcache.mp.port': 6555})}")
    logs = v1_startup(t=start, version="0.24.0", A=A, E=E, W=W, nondefault=nondefault,
                      arch="Qwen3_5ForConditionalGeneration", max_model_len=8192,
                      engine_cfg=engine_cfg_str(model, model, dtype="torch.bfloat16", max_seq_len=8192, tp=1),
                      weights_gib=1.6875, kv_gib=17.41, kv_tokens=1260992, num_gpu_blocks=2318, refs=refs,
                      extra_cfg=["[interface.py:773] Setting attention block size to 544 tokens to ensure that attention page size is >= mamba page size.",
                                 "[interface.py:797] Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are exactly equal."])
    logs.append((start - 40.0, f"[{_lmts(start - 40.0)}] LMCache WARNING: Insufficient /dev/shm capacity"))
    logs += stats_lines(sim, start + 190, t_end, "v1ext", A)
    logs = [(tt, ln) for tt, ln in logs if "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs" not in ln]
    logs += lm
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     127.0.0.1:{46000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for i, r in enumerate(reqs)]
    gpus = gpu_devices("NVIDIA GeForce RTX 4090", 24564, [22790], [(2012, "python3", 22210)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://127.0.0.1:8000",
        notes="WSL test box: vLLM 0.24.0 serving Qwen3.5-0.8B with LMCacheMPConnector against a standalone `lmcache server` "
              "(LMCache 0.5.1, --chunk-size 544 --l1-size-gb 8); the same chat payload is sent again and again and neither the "
              "prefix cache nor the external (LMCache) cache ever hits; /metrics every 5 s, NVML, vLLM log with the LMCache "
              "server warnings pasted in; the payload in prompts.jsonl",
        version_body={"version": "0.24.0"},
        models_body=models_body(model, model, 8192, int(start + 125)),
        argv=["vllm", "serve", model, "--enable-prefix-caching", "--max-model-len", "8192", "--kv-transfer-config", kvt],
        args={"enable-prefix-caching": True, "max-model-len": 8192, "kv-transfer-config": kvt},
        model_config=QWEN35_08B_CONFIG, gpus=gpus, logs=join(logs),
    )
    body = {"model": model, "max_tokens": 256, "messages": [
        {"role": "system", "content": "You are a helpful assistant. Answer briefly and precisely."},
        {"role": "user", "content": "Explain in three sentences what a KV cache is in transformer inference and why reusing it across requests that share a prefix saves work."}]}
    write_prompts(cid, [json.loads(json.dumps(body)) for _ in range(10)])


def _lmts(t: float) -> str:
    import datetime as _dt
    d = _dt.datetime.fromtimestamp(t, _dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{int((t % 1) * 1000):03d}"


# =========================================================================== case 4 (holdout-3)
QWEN38_27B_CONFIG = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
                            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "group_size": 16}}},
                            "ignore": ["lm_head"]},
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


def h_qwen38_27b_align_busy_zero_hits() -> None:
    cid = "h-qwen38-27b-align-busy-zero-hits"
    rng = random.Random(8401)
    start = epoch(2026, 8, 19, 18, 2, 30)
    t0 = start + 3300.0
    n, interval = 37, 5.0
    t_end = t0 + interval * (n - 1)
    model = "unsloth/Qwen3.8-27B-NVFP4"
    reqs: list[Req] = []
    t = start + 140.0
    while t < t_end:
        plen = rng.randint(7000, 16000)
        gen = rng.randint(2200, 4500)
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=8192, queue_s=0.004,
                prefill_s=round(plen / 2600.0 + rng.uniform(0.1, 0.6), 3), itl_s=round(rng.uniform(0.065, 0.09), 4),
                finished_reason="stop")
        reqs.append(r)
        t += rng.uniform(26.0, 40.0)
    labels = labels_v1("0.24.0", gpu_memory_utilization="0.85", block_size="1600", cache_dtype="auto", num_gpu_blocks="3052",
                       mamba_block_size="1600", mamba_cache_mode="align", mamba_page_size_padded="6553600",
                       mamba_ssm_cache_dtype="float32", kv_cache_size_tokens="1220800", kv_cache_max_concurrency="9.31")
    srv = Server("0.27.1", "0.24.0", model, 131072, 1600, 3052, labels, start, pool_groups=4)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:263"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore pid=188) ", "(EngineCore pid=188) "
    refs = v1_refs("0.27.1") | {"model_path": model}
    spec = '{"method":"mtp","num_speculative_tokens":3}'
    nondefault = (f"{{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 131072, 'gpu_memory_utilization': 0.85, "
                  "'enable_prefix_caching': True, 'scheduling_policy': 'priority', "
                  "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3}}")
    cfg = engine_cfg_str(model, model, dtype="torch.bfloat16", max_seq_len=131072, tp=1, quant="compressed-tensors")
    cfg = cfg.replace("speculative_config=None", f"speculative_config=SpeculativeConfig(method='mtp', model='{model}', num_spec_tokens=3)")
    logs = v1_startup(t=start, version="0.27.1", A=A, E=E, W=W, nondefault=nondefault,
                      arch="Qwen3_5ForConditionalGeneration", max_model_len=131072, engine_cfg=cfg,
                      weights_gib=18.9023, kv_gib=41.27, kv_tokens=1220800, num_gpu_blocks=3052, refs=refs,
                      extra_cfg=["[interface.py:773] Setting attention block size to 1600 tokens to ensure that attention page size is >= mamba page size."])
    logs += stats_lines(sim, t0 - 120, t_end, "v1", A)
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     10.0.0.14:{52000 + i % 9000} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
             for i, r in enumerate(reqs) if r.t_arrive > t0 - 120]
    gpus = gpu_devices("NVIDIA GB10", 122570, [104330], [(188, "VLLM::EngineCore", 98120)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://10.0.0.5:8000",
        notes="engine B of a two-engine DGX Spark setup: Qwen3.8-27B-NVFP4 (hybrid GDN) with MTP=3 and --scheduling-policy priority, "
              "production agent traffic in the busy evening; prefix caching is on but the hit counter has not moved since start; "
              "/metrics every 5 s for 3 min after ~55 min of uptime, NVML, server log; a sample of the sessions' requests in prompts.jsonl",
        version_body={"version": "0.27.1"},
        models_body=models_body(model, model, 131072, int(start + 125)),
        argv=["vllm", "serve", model, "--max-model-len", "131072", "--gpu-memory-utilization", "0.85", "--enable-prefix-caching",
              "--scheduling-policy", "priority", "--speculative-config", spec],
        args={"max-model-len": 131072, "gpu-memory-utilization": 0.85, "enable-prefix-caching": True,
              "scheduling-policy": "priority", "speculative-config": spec},
        model_config=QWEN38_27B_CONFIG, gpus=gpus, logs=join(logs),
    )
    prng = random.Random(8402)
    system = ("You are an autonomous software agent. Follow the tool protocol exactly and think before acting. "
              + words(prng, tok_words(4800 - 40)))
    rows = []
    for s in range(4):
        hist: list[dict] = [{"role": "system", "content": system}]
        hist.append({"role": "user", "content": words(prng, tok_words(prng.randint(900, 1800)))})
        for k in range(4):
            rows.append({"model": model, "max_tokens": 8192, "messages": [dict(m) for m in hist]})
            hist.append({"role": "assistant", "content": words(prng, tok_words(prng.randint(300, 700)))})
            hist.append({"role": "user", "content": words(prng, tok_words(prng.randint(200, 900)))})
    write_prompts(cid, rows)


# =========================================================================== case 5 (holdout-3)
QWEN36_35B_A3B_CONFIG = {
    "architectures": ["Qwen3_5MoeForConditionalGeneration"],
    "model_type": "qwen3_5_moe",
    "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]},
    "text_config": {
        "model_type": "qwen3_5_moe_text",
        "attention_bias": False,
        "attn_output_gate": True,
        "dtype": "bfloat16",
        "eos_token_id": 248044,
        "full_attention_interval": 4,
        "head_dim": 256,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 10,
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 128,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_value_head_dim": 128,
        "mamba_ssm_dtype": "float32",
        "max_position_embeddings": 262144,
        "moe_intermediate_size": 512,
        "mtp_num_hidden_layers": 1,
        "num_attention_heads": 16,
        "num_experts": 256,
        "num_experts_per_tok": 8,
        "num_hidden_layers": 40,
        "num_key_value_heads": 2,
        "rms_norm_eps": 1e-06,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25, "mrope_interleaved": True, "mrope_section": [11, 11, 10]},
        "shared_expert_intermediate_size": 512,
        "use_cache": True,
        "vocab_size": 248320,
    },
}


def h_gb10_fp8_kv_silently_disables_apc() -> None:
    cid = "h-gb10-fp8-kv-silently-disables-apc"
    rng = random.Random(8501)
    start = epoch(2026, 7, 31, 14, 20, 5)
    t0 = start + 1200.0
    n, interval = 37, 5.0
    t_end = t0 + interval * (n - 1)
    model = "qwen3.6-35b-a3b"
    path = "Qwen/Qwen3.6-35B-A3B-FP8"
    reqs: list[Req] = []
    steps: list[tuple[int, int]] = []
    plen = 94200
    t = start + 900.0
    while t < t_end + 5:
        plen += rng.randint(120, 420)
        gen = rng.randint(120, 260)
        r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen, max_tokens=4096, queue_s=0.004,
                prefill_s=round(plen / 9900.0, 3), itl_s=round(rng.uniform(0.026, 0.030), 4), finished_reason="stop")
        r.finish()
        reqs.append(r)
        steps.append((plen, gen))
        t = r.t_end + rng.uniform(2.0, 4.0)
    labels = labels_v1("0.24.0", gpu_memory_utilization="0.8", block_size="2112", cache_dtype="fp8", num_gpu_blocks="2040",
                       enable_prefix_caching="False", mamba_cache_mode="none", mamba_page_size_padded="4325376",
                       mamba_ssm_cache_dtype="float32", kv_cache_size_tokens="1077120", kv_cache_max_concurrency="4.11")
    srv = Server("0.25.0", "0.24.0", model, 262144, 2112, 2040, labels, start, pool_groups=4)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:263"
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1) ", "(EngineCore pid=143) ", "(EngineCore pid=143) "
    refs = v1_refs("0.25.0") | {"model_path": path}
    nondefault = (f"{{'model_tag': '{path}', 'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', 'model': '{path}', "
                  f"'served_model_name': ['{model}'], 'max_model_len': 262144, 'gpu_memory_utilization': 0.8, 'kv_cache_dtype': 'fp8'}}")
    logs = v1_startup(t=start, version="0.25.0", A=A, E=E, W=W, nondefault=nondefault,
                      arch="Qwen3_5MoeForConditionalGeneration", max_model_len=262144,
                      engine_cfg=engine_cfg_str(path, model, dtype="torch.bfloat16", max_seq_len=262144, tp=1, quant="fp8",
                                                kv_dtype="fp8", prefix=False),
                      weights_gib=34.6172, kv_gib=21.19, kv_tokens=1077120, num_gpu_blocks=2040, refs=refs,
                      extra_cfg=["[interface.py:773] Setting attention block size to 2112 tokens to ensure that attention page size is >= mamba page size."],
                      extra_after_kv=[f"{W}WARNING {ts(start + 95.3)} [attention.py:258] Using uncalibrated q_scale 1.0 and/or prob_scale 1.0 with fp8 attention. This may cause accuracy issues."])
    logs += stats_lines(sim, start + 910, t_end, "v1", A)
    logs = [(tt, ln) for tt, ln in logs if "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs" not in ln]
    logs += [(r.t_arrive + 0.002, f'{A}INFO:     10.42.3.17:{44000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for i, r in enumerate(reqs)]
    gpus = gpu_devices("NVIDIA GB10", 122570, [99810], [(143, "VLLM::EngineCore", 97420)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=interval, endpoint="http://vllm-driver.ai.svc.cluster.local:8000",
        notes="home-lab agent backend: Qwen3.6-35B-A3B on a DGX Spark (GB10) with --kv-cache-dtype fp8, serving one agentic "
              "tool-calling loop that re-sends an ~85k-token prefix on every step; every step takes ~10 s of prefill and the "
              "log prints 'Prefix cache hit rate: 0.0%' on every sample; /metrics every 5 s for 3 min, NVML, server log; the "
              "session's steps in prompts.jsonl",
        version_body={"version": "0.25.0"},
        models_body=models_body(model, path, 262144, int(start + 125)),
        argv=["vllm", "serve", path, "--served-model-name", model, "--max-model-len", "262144", "--gpu-memory-utilization", "0.8",
              "--kv-cache-dtype", "fp8", "--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder"],
        args={"served-model-name": model, "max-model-len": 262144, "gpu-memory-utilization": 0.8, "kv-cache-dtype": "fp8",
              "enable-auto-tool-choice": True, "tool-call-parser": "qwen3_coder"},
        model_config=QWEN36_35B_A3B_CONFIG, gpus=gpus, logs=join(logs),
    )
    prng = random.Random(8502)
    system = ("You are the ML operator agent of a home Kubernetes cluster. Prime directive: you cannot crash the inference path. "
              + words(prng, tok_words(20000)))
    tools = words(prng, tok_words(25000))
    context = words(prng, tok_words(85000 - 45000 - 100))
    hist: list[dict] = [{"role": "system", "content": system + "\n\n# Tools\n" + tools},
                        {"role": "user", "content": "Cluster context:\n" + context}]
    grown = words(prng, tok_words(94200 - 85000))
    hist.append({"role": "assistant", "content": grown})
    rows = []
    for plen_k, gen_k in steps[-4:]:
        rows.append({"model": model, "max_tokens": 4096, "messages": [dict(m) for m in hist]})
        hist.append({"role": "assistant", "content": words(prng, tok_words(gen_k))})
        hist.append({"role": "tool", "content": words(prng, tok_words(max(40, 300 - gen_k)))})
    write_prompts(cid, rows)


BUILDERS = {
    "h-qwen36-27b-block784-370tok-batch": h_qwen36_27b_block784_370tok_batch,
    "h-glm53-dcp4-prefix-zero-hits": h_glm53_dcp4_prefix_zero_hits,
    "h-lmcache-mp-qwen35-08b-zero-external": h_lmcache_mp_qwen35_08b_zero_external,
    "h-qwen38-27b-align-busy-zero-hits": h_qwen38_27b_align_busy_zero_hits,
    "h-gb10-fp8-kv-silently-disables-apc": h_gb10_fp8_kv_silently_disables_apc,
}


def main(argv: list[str]) -> int:
    for cid in argv or list(BUILDERS):
        BUILDERS[cid]()
        print("built", cid)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
