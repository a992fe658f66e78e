"""zxj-guidellm-unique-prefix-zero-hit-healthy (vllm-project/guidellm#217).

guidellm synthetic benchmark after the unique-prefix fix: 100 concurrent streams, ~512-token prompts
that share nothing, ~2,048-token outputs, Llama-4-Maverick FP8 on 8 x H200 (assumed TP8), vLLM 0.9.2.
Prefix cache on and queried, 0% hits: healthy.

Run: python3 cases/_tools/zxj/guidellm_unique.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxj-guidellm-unique-prefix-zero-hit-healthy"
MODEL = "RedHatAI/Llama-4-Maverick-17B-128E-Instruct-FP8"
SERVED = "RedHatAI/Llama-4-Maverick-17B-128E-Instruct-FP8"
VERSION = "0.9.2"
MML = 8192
BLOCK = 16
TOKENS = 800_000
NUM_BLOCKS = TOKENS // BLOCK
INTERVAL = 10.0
N = 43
rng = random.Random(217)
T_START = dt.datetime(2025, 7, 8, 17, 40, 0, tzinfo=dt.timezone.utc).timestamp()
T_BENCH = T_START + 600.0
T0 = T_BENCH + 60.0
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


reqs = []
for slot in range(100):
    t = T_BENCH + rng.uniform(0, 2.0)
    while t < T_END + 5 and len(reqs) < 500:
        p = max(1, min(1024, int(rng.gauss(512, 128))))
        g = max(1, min(4096, int(rng.gauss(2048, 64))))
        r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=g, queue_s=round(rng.uniform(0.002, 0.02), 4),
                prefill_s=round(rng.uniform(0.18, 0.38), 4), itl_s=round(rng.uniform(0.0405, 0.0435), 5),
                hit=0, finished_reason="length")
        reqs.append(r)
        t = r.t_end + rng.uniform(0.01, 0.05)
reqs.sort(key=lambda r: r.t_arrive)

cache_labels = {"block_size": str(BLOCK), "gpu_memory_utilization": "0.9", "num_gpu_blocks": str(NUM_BLOCKS),
                "enable_prefix_caching": "True"}
tpl = Template("e-lmcache-gpu-already-hits-healthy")
created = T_START + 330.0
scrapes = []
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, caching=True)
    for base in ("prefix_cache_queries", "prefix_cache_hits"):
        snap.counters[(f"vllm:gpu_{base}", frozenset())] = snap.counters[(f"vllm:{base}", frozenset())]
    snap.gauges[("vllm:gpu_cache_usage_perc", frozenset())] = snap.gauges[("vllm:kv_cache_usage_perc", frozenset())]
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=SERVED, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
print("reqs", len(reqs), st)

args = (f"{{'model': '{MODEL}', 'max_model_len': {MML}, 'tensor_parallel_size': 8, 'port': 8080}}")
L = [
    f"INFO {fts(T_START)} [__init__.py:244] Automatically detected platform cuda.",
    f"INFO {fts(T_START+4)} [api_server.py:1395] vLLM API server version {VERSION}",
    f"INFO {fts(T_START+4)} [cli_args.py:325] non-default args: {args}",
    f"INFO {fts(T_START+15)} [config.py:841] This model supports multiple tasks: {{'generate'}}. Defaulting to 'generate'.",
    f"INFO {fts(T_START+15)} [config.py:1472] Using max model len {MML}",
    f"INFO {fts(T_START+16)} [config.py:2285] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"INFO {fts(T_START+290)} [kv_cache_utils.py:716] GPU KV cache size: {TOKENS:,} tokens",
    f"INFO {fts(T_START+290)} [kv_cache_utils.py:720] Maximum concurrency for {MML:,} tokens per request: {TOKENS / MML:.2f}x",
    f"INFO {fts(T_START+325)} [core.py:172] init engine (profile, create kv cache, warmup model) took 262.41 seconds",
    f"INFO {fts(T_START+330)} [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8080",
    "INFO:     Started server process [1]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
]
ev = [(r.t_end, f"INFO:     10.131.2.17:{40000 + j % 20000} - \"POST /v1/completions HTTP/1.1\" 200 OK")
      for j, r in enumerate(reqs) if T0 - 10 <= r.t_end <= T_END]
ev += stats_lines(reqs, T0 - 10, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS,
                  loggers_line="loggers.py:118", prefix="")
L += [x for _, x in sorted(ev, key=lambda e: e[0])]

server = {"version": {"version": VERSION}, "models": models_body(SERVED, MODEL, MML, int(T_START + 330)), "health": 200}
engine_args = {"argv": None, "args": {"model": MODEL, "max-model-len": MML, "tensor-parallel-size": 8}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "llama-4-maverick-fp8-predictor:8080", "started_at": T0,
            "ended_at": T_END, "interval_s": INTERVAL, "complaint": "prefix-miss",
            "notes": "guidellm benchmark against the KServe Llama-4-Maverick FP8 predictor (8x H200): prompt_tokens 512 +-128, output_tokens 2048 +-64, concurrent rate 100, 500 requests, after the generator change that injects a unique prefix. The vLLM log shows 'Prefix cache hit rate: 0.0%' throughout; is prefix caching broken? /metrics every 10 s and server log, captured from outside the pod."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args, logs=L)
