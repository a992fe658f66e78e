"""zxc-grafana-cache-panel-nodata-v011 (vllm-project/vllm#27341).

vLLM 0.11.0 serving the docs' Prometheus/Grafana example (Mistral-7B-v0.1, --max-model-len 2048)
under `vllm bench serve` ShareGPT at 3 req/s. Healthy server; the dashboard's Cache Utilization
panel queries vllm:gpu_cache_usage_perc, which 0.11.0 no longer exports.

Run: python3 cases/_tools/zxc/grafana_v011.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxc-grafana-cache-panel-nodata-v011"
MODEL = "mistralai/Mistral-7B-v0.1"
VERSION = "0.11.0"
MML = 2048
BLOCK = 16
NUM_BLOCKS = 28825
TOTAL = 85899345920  # A100-SXM4-80GB
INTERVAL = 5.0
rng = random.Random(2734127)

T_START = dt.datetime(2025, 10, 22, 17, 41, 12, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 1260.0
N = 73                      # 6 minutes at 5 s
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def sharegpt_len(lo, hi, med):
    x = int(rng.lognormvariate(0, 0.9) * med)
    return max(lo, min(hi, x))


reqs = []
t = T0 - 20.0
for i in range(1000):
    t += rng.expovariate(3.0)
    p = sharegpt_len(4, 1000, 150)
    o = sharegpt_len(4, min(900, MML - p), 165)
    itl = round(rng.uniform(0.0122, 0.0142), 5)
    reqs.append(Req(t_arrive=round(t, 3), prompt_len=p, gen_len=o, max_tokens=o,
                    queue_s=round(rng.uniform(0.0015, 0.009), 4),
                    prefill_s=round(0.014 + p / 14000.0, 4), itl_s=itl,
                    finished_reason="stop" if rng.random() < 0.14 else "length"))
for r in reqs:   # an early stop ends the request before max_tokens
    if r.finished_reason == "stop":
        r.gen_len = max(2, int(r.gen_len * rng.uniform(0.3, 0.95)))
        r.__post_init__()

cache_labels = {
    "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
    "cpu_kvcache_space_bytes": "None", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
    "gpu_memory_utilization": "0.9", "is_attention_free": "False", "kv_cache_memory_bytes": "None",
    "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
    "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(NUM_BLOCKS),
    "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "4096",
    "swap_space": "4",
}

tpl = Template("d-kv-93pct-38-streams-healthy")
created = T_START + 133.0
scrapes, peak = [], 0.0
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, step_tokens=2048)
    peak = max(peak, st["usage"])
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
    assert "gpu_cache_usage_perc" not in scrapes[-1]["text"]
print("peak usage", round(peak, 4), "running at end of bench", st)

P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore_DP0 pid=164) "
L = [
    f"{P_API}INFO {fts(T_START)} [api_server.py:1839] vLLM API server version {VERSION}",
    f"{P_API}INFO {fts(T_START)} [utils.py:233] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': 2048}}",
    f"{P_API}INFO {fts(T_START+8)} [model.py:547] Resolved architecture: MistralForCausalLM",
    f"{P_API}INFO {fts(T_START+8)} [model.py:1510] Using max model len 2048",
    f"{P_API}INFO {fts(T_START+9)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=2048.",
    f"{P_ENG}INFO {fts(T_START+17)} [core.py:644] Waiting for init message from front-end.",
    f"{P_ENG}INFO {fts(T_START+17)} [core.py:77] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=2048, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={MODEL}, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"{P_ENG}INFO {fts(T_START+24)} [gpu_model_runner.py:2602] Starting to load model {MODEL}...",
    f"{P_ENG}INFO {fts(T_START+24)} [cuda.py:366] Using Flash Attention backend on V1 engine.",
    f"{P_ENG}INFO {fts(T_START+97)} [gpu_model_runner.py:2653] Model loading took 13.4967 GiB and 71.884151 seconds",
    f"{P_ENG}INFO {fts(T_START+106)} [gpu_worker.py:298] Available KV cache memory: 56.30 GiB",
    f"{P_ENG}INFO {fts(T_START+107)} [kv_cache_utils.py:1087] GPU KV cache size: {NUM_BLOCKS*BLOCK:,} tokens",
    f"{P_ENG}INFO {fts(T_START+107)} [kv_cache_utils.py:1091] Maximum concurrency for 2,048 tokens per request: {NUM_BLOCKS*BLOCK/2048:.2f}x",
    f"{P_ENG}INFO {fts(T_START+129)} [gpu_model_runner.py:3480] Graph capturing finished in 21 secs, took 0.52 GiB",
    f"{P_ENG}INFO {fts(T_START+130)} [core.py:210] init engine (profile, create kv cache, warmup model) took 32.96 seconds",
    f"{P_API}INFO {fts(T_START+131)} [loggers.py:147] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NUM_BLOCKS}",
    f"{P_API}INFO {fts(T_START+132)} [api_server.py:1634] Supported_tasks: ['generate']",
    f"{P_API}INFO {fts(T_START+133)} [api_server.py:1910] Starting vLLM API server 0 on http://0.0.0.0:8000",
    f"{P_API}INFO:     Started server process [1]",
    f"{P_API}INFO:     Waiting for application startup.",
    f"{P_API}INFO:     Application startup complete.",
]
events = []
for k, r in enumerate(reqs):
    if T0 - 60 <= r.t_end <= T_END:
        events.append((r.t_end, f"{P_API}INFO:     172.18.0.1:{40000 + k % 20000} - \"POST /v1/completions HTTP/1.1\" 200 OK"))
for k in range(N):
    events.append((T0 + k * INTERVAL + 0.004, f"{P_API}INFO:     172.18.0.3:39166 - \"GET /metrics HTTP/1.1\" 200 OK"))
events += stats_lines(reqs, T0 - 55.0, T_END, 10.0, lambda x: fts(x), block_size=BLOCK, num_blocks=NUM_BLOCKS,
                      loggers_line="loggers.py:123")
L += [x for _, x in sorted(events, key=lambda e: e[0])]

proc = 78_383_775_744
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": TOTAL,
        "memory_used": proc + 555_745_280, "processes": [{"pid": 164, "name": "VLLM::EngineCore", "used_memory": proc}]}]}
       for i in range(N)]

model_config = {
    "architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 32768,
    "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.34.0.dev0", "use_cache": True, "vocab_size": 32000,
}
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(T_START + 133)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--max-model-len", "2048"], "args": {"max-model-len": 2048}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL,
            "notes": "docs Prometheus/Grafana example on vLLM 0.11.0 (Mistral-7B-v0.1, --max-model-len 2048) under vllm bench serve, ShareGPT, --request-rate 3.0. The Grafana 'Cache Utilization' panel shows No data since the upgrade; everything else on the dashboard draws. /metrics every 5 s for 6 min, NVML, server log"}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=L)
