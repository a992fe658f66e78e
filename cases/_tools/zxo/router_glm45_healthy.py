"""zxo-router-static-discovery-glm45-backend-healthy (vllm-project/production-stack#617).

vLLM 0.10.0 serving zai-org/GLM-4.5 (TP8, assumed 8x H200) behind vllm-router; the router cannot build
StaticServiceDiscovery and answers 500. The backend itself is idle and fine: 4 direct requests served.

Run: python3 cases/_tools/zxo/router_glm45_healthy.py
"""
import datetime as dt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, add_created, models_body, render, snapshot, write_bundle  # noqa: E402

CID = "zxo-router-static-discovery-glm45-backend-healthy"
MODEL = "zai-org/GLM-4.5"
VERSION = "0.10.0"
MML = 131072
BLOCK = 16
NUM_BLOCKS = 42028
TOKENS = NUM_BLOCKS * BLOCK          # 672,448 tokens x 47,104 B/rank = 29.50 GiB per rank
INTERVAL = 15.0
CREATED = 1753795326.9352946         # the _created value in the reporter's scrape
KV_RESIDUAL = 9.75010481363281e-06   # quoted kv_cache_usage_perc

T_START = CREATED - 212.0
T0 = dt.datetime(2025, 7, 29, 13, 47, 0, tzinfo=dt.timezone.utc).timestamp()
N = 21
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


# four direct test requests (8-token prompts: 32 queried tokens in all; 200-500 generated tokens each)
reqs = []
for k, (ta, g) in enumerate([(CREATED + 420.0, 311), (CREATED + 505.0, 276), (CREATED + 611.0, 402), (CREATED + 688.0, 358)]):
    reqs.append(Req(t_arrive=ta, prompt_len=8, gen_len=g, max_tokens=1024, queue_s=0.004, prefill_s=0.21, itl_s=0.0231))

cache_labels = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "num_gpu_blocks": str(NUM_BLOCKS)}
tpl = add_created(Template("zyf-v0100-bs1-ttft-regression-4090"))
scrapes = []
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, step_tokens=8192)
    for k in ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"):
        snap.gauges[(k, frozenset())] = KV_RESIDUAL
    for k in list(snap.counters):
        if k[0] in ("vllm:prefix_cache_queries", "vllm:prefix_cache_hits"):
            snap.counters[("vllm:gpu_" + k[0][5:], k[1])] = snap.counters[k]
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=CREATED,
                                                           max_model_len=MML, cache_labels=cache_labels,
                                                           drop=("vllm:time_per_prefill_token",))})
print(st)

L = [
    f"INFO {fts(T_START)} [api_server.py:1755] vLLM API server version {VERSION}",
    f"INFO {fts(T_START)} [cli_args.py:261] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': {MML}, 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.9}}",
    f"INFO {fts(T_START+9)} [config.py:1604] Using max model len {MML}",
    f"INFO {fts(T_START+10)} [config.py:2434] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"INFO {fts(T_START+16)} [core.py:572] Waiting for init message from front-end.",
    f"INFO {fts(T_START+16)} [core.py:71] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len={MML}, tensor_parallel_size=8, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True",
    f"(VllmWorker rank=0 pid=412) INFO {fts(T_START+31)} [gpu_model_runner.py:1843] Starting to load model {MODEL}...",
    f"(VllmWorker rank=0 pid=412) INFO {fts(T_START+31)} [cuda.py:290] Using Flash Attention backend on V1 engine.",
    f"(VllmWorker rank=0 pid=412) INFO {fts(T_START+128)} [gpu_model_runner.py:1892] Model loading took 82.9817 GiB and 96.402311 seconds",
    f"(VllmWorker rank=0 pid=412) INFO {fts(T_START+164)} [gpu_worker.py:255] Available KV cache memory: 29.50 GiB",
    f"INFO {fts(T_START+165)} [kv_cache_utils.py:833] GPU KV cache size: {TOKENS:,} tokens",
    f"INFO {fts(T_START+165)} [kv_cache_utils.py:837] Maximum concurrency for {MML:,} tokens per request: {TOKENS / MML:.2f}x",
    f"(VllmWorker rank=0 pid=412) INFO {fts(T_START+203)} [gpu_model_runner.py:2485] Graph capturing finished in 37 secs, took 1.27 GiB",
    f"INFO {fts(T_START+204)} [core.py:193] init engine (profile, create kv cache, warmup model) took 75.31 seconds",
    f"INFO {fts(T_START+210)} [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "INFO:     Started server process [1]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
]
ev = []
for k, r in enumerate(reqs):
    ev.append((r.t_end, f"INFO:     10.0.0.4:{51200 + k} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
    for tl in (r.t_arrive + 5, r.t_end + 5):
        ev.append((tl, None))
# V1 stats lines every 10 s while a request runs, and one idle line after
t = CREATED + 415.0
prev = snapshot(reqs, t - 10, block_size=BLOCK, num_blocks=NUM_BLOCKS)[1]
last_busy = False
while t <= T_END:
    cur = snapshot(reqs, t, block_size=BLOCK, num_blocks=NUM_BLOCKS)[1]
    pt, gt = (cur["prompt"] - prev["prompt"]) / 10, (cur["gen"] - prev["gen"]) / 10
    busy = bool(pt or gt or cur["running"])
    if busy or last_busy:
        hr = 100.0 * cur["h"] / cur["q"] if cur["q"] else 0.0
        ev.append((t, f"INFO {fts(t)} [loggers.py:118] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {cur['running']} reqs, Waiting: {cur['waiting']} reqs, GPU KV cache usage: {100*cur['usage'] if cur['running'] else 0.0:.1f}%, Prefix cache hit rate: {hr:.1f}%"))
    last_busy = busy
    prev = cur
    t += 10
for i in range(N):
    ev.append((T0 + i * INTERVAL + 0.01, f"INFO:     10.0.0.9:{60100 + i} - \"GET /metrics HTTP/1.1\" 200 OK"))
    if i % 2 == 0:
        ev.append((T0 + i * INTERVAL + 3.0, f"INFO:     10.0.0.7:{61100 + i} - \"GET /health HTTP/1.1\" 200 OK"))
L += [x for _, x in sorted(ev, key=lambda e: e[0]) if x]

model_config = {
    "architectures": ["Glm4MoeForCausalLM"], "attention_bias": True, "attention_dropout": 0.0, "pad_token_id": 151329,
    "eos_token_id": [151329, 151336, 151338], "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
    "partial_rotary_factor": 0.5, "first_k_dense_replace": 3, "initializer_range": 0.02, "intermediate_size": 12288,
    "max_position_embeddings": 131072, "model_type": "glm4_moe", "moe_intermediate_size": 1536, "norm_topk_prob": True,
    "num_attention_heads": 96, "n_group": 1, "topk_group": 1, "n_routed_experts": 160, "n_shared_experts": 1,
    "routed_scaling_factor": 2.5, "num_experts_per_tok": 8, "num_hidden_layers": 92, "num_key_value_heads": 8,
    "num_nextn_predict_layers": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.54.0", "use_cache": True,
    "use_qk_norm": True, "vocab_size": 151552,
}
GIB = 2**30
gpu = []
for i in range(N):
    tt = T0 + i * INTERVAL
    gpu.append({"t": tt, "devices": [{"index": d, "name": "NVIDIA H200", "memory_total": 150754820096,
                "memory_used": int(125.6 * GIB), "processes": [{"pid": 412 + d, "name": "VLLM::Worker", "used_memory": int(125.1 * GIB)}]}
               for d in range(8)]})
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(CREATED)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--tensor-parallel-size", "8", "--max-model-len", str(MML), "--gpu-memory-utilization", "0.9"],
               "args": {"tensor-parallel-size": 8, "max-model-len": MML, "gpu-memory-utilization": 0.9}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://10.0.0.5:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL,
            "notes": "Backend vLLM 0.10.0 (GLM-4.5, TP8) behind the production-stack vllm-router (latest). Since upgrading, every request through the router fails with 500 Internal Server Error; the router logs 'DynamicConfigWatcher: Error loading config file: StaticServiceDiscovery.__init__() missing 7 required positional arguments ...' and 'Connection refused'. Captured directly from the backend's /metrics for 5 minutes; 4 test requests had been sent straight to the backend before the capture."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=L)
