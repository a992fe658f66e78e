"""zyf-nixl-prefill-blocks-expire-keyerror: the prefill (P) instance of a 1P1D NixlConnector setup on
vLLM 0.10.2. From 60 s the decode side reads nothing, each prefilled request holds its 250 blocks for
the 120 s NIXL abort timeout, the pool fills, admissions wait for expiries, and at 420 s the
EngineCore dies with a KeyError in the KV-transfer bookkeeping."""
import bisect
import datetime as dt
import heapq
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sim import Engine, Req, scrape, stats_line, write_bundle, server_json, ts  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "cases" / "zyf-nixl-prefill-blocks-expire-keyerror" / "bundle"
rnd = random.Random(25562)
T0 = dt.datetime(2025, 9, 24, 16, 29, 0, tzinfo=dt.timezone.utc).timestamp()
INTERVAL, N = 15.0, 41
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
BLOCKS, BS, PROMPT = 27136, 16, 4000
NB = PROMPT // BS                  # 250 blocks per request
D_STOP, TIMEOUT, PREFILL, CRASH = 60.0, 120.0, 0.25, 420.2

reqs, held, rel = [], [], []       # held: heap of (release, ...) ; rel: (t_sched, release, t_first, expired)
t_prev = 0.0
i = 0
while True:
    a = T0 + 0.25 + 0.5 * i
    if a >= T0 + CRASH:
        break
    t = max(a, t_prev)
    while held and held[0] <= t:
        heapq.heappop(held)
    while (len(held) + 1) * NB > BLOCKS:
        t = heapq.heappop(held)
        while held and held[0] <= t:
            heapq.heappop(held)
    f = t + PREFILL
    expired = f >= T0 + D_STOP
    r_t = f + (TIMEOUT if expired else 0.3)
    heapq.heappush(held, r_t)
    r = Req(rid=i, t_arr=a, prompt=PROMPT, gen=1, max_tokens=1, t_sched=t, t_first=f, reason="length")
    if f >= T0 + CRASH:        # not finished before the crash: stays in flight forever in the capture
        r.t_first = float("inf"); r.stuck = True
    reqs.append(r)
    rel.append((t, r_t, f, expired))
    t_prev = t
    i += 1
# requests that arrived after the last admission before the crash stay waiting (never scheduled)
for r in reqs:
    if r.t_sched >= T0 + CRASH:
        r.t_sched = float("inf"); r.t_first = float("inf"); r.stuck = True

def usage(t):
    n = sum(1 for s, e_, f, x in rel if s <= t < e_ and s < T0 + CRASH)
    return min(1.0, n * NB / BLOCKS)

e = Engine(model_name=MODEL, engine="0", pool_tokens=BLOCKS * BS, block_size=BS, max_model_len=131072,
           created=T0 - 3000.0, usage_fn=usage)
e.cc_labels = {"block_size": "16", "gpu_memory_utilization": "0.9", "swap_space": "4", "cache_dtype": "auto",
               "is_attention_free": "False", "num_gpu_blocks_override": "None", "sliding_window": "None",
               "enable_prefix_caching": "True", "prefix_caching_hash_algo": "builtin", "cpu_offload_gb": "0",
               "calculate_kv_scales": "False", "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto",
               "mamba_ssm_cache_dtype": "auto", "num_gpu_blocks": str(BLOCKS), "num_cpu_blocks": "None"}
e.reqs = reqs
e.step_times = sorted(set(r.t_first for r in reqs if r.t_first < float("inf")))

cache = {}
scrapes = []
for k in range(N):
    t = T0 + k * INTERVAL
    if t < T0 + CRASH:
        scrapes.append((t, scrape(e, t, cache)))
    else:
        scrapes.append((t, {"t": round(t, 3), "error": "Cannot connect to host prefill-0:8100 ssl:default [Connect call failed ('10.0.2.11', 8100)]"}))

EPID, APID = 3747544, 3747210
logs = []
tb = T0 - 3060.0
def L(t, s):
    logs.append((t, s))
L(tb, f"(APIServer pid={APID}) INFO {ts(tb)} [api_server.py:1896] vLLM API server version 0.10.2")
L(tb + 0.1, f"(APIServer pid={APID}) INFO {ts(tb)} [utils.py:328] non-default args: {{'model_tag': '{MODEL}', 'port': 8100, 'model': '{MODEL}', 'kv_transfer_config': KVTransferConfig(kv_connector='NixlConnector', kv_role='kv_both')}}")
L(tb + 25, f"(EngineCore_DP0 pid={EPID}) INFO {ts(tb + 25)} [factory.py:51] Creating v1 connector with name: NixlConnector and engine_id: 0d7b3f52-6a1e-4c39-8f0a-5e2d91c4b7a8")
L(tb + 26, f"(EngineCore_DP0 pid={EPID}) INFO {ts(tb + 26)} [nixl_connector.py:484] Initializing NIXL wrapper")
L(tb + 70, f"(EngineCore_DP0 pid={EPID}) INFO {ts(tb + 70)} [gpu_worker.py:276] Available KV cache memory: 53.00 GiB")
L(tb + 70.1, f"(EngineCore_DP0 pid={EPID}) INFO {ts(tb + 70)} [kv_cache_utils.py:864] GPU KV cache size: {BLOCKS * BS:,} tokens")
L(tb + 70.2, f"(EngineCore_DP0 pid={EPID}) INFO {ts(tb + 70)} [kv_cache_utils.py:868] Maximum concurrency for 131,072 tokens per request: {BLOCKS * BS / 131072:.2f}x")
L(tb + 110, f"(APIServer pid={APID}) INFO:     Application startup complete.")
for r in reqs:
    L(r.t_arr + 0.003, f"(APIServer pid={APID}) INFO:     10.0.2.5:{30000 + r.rid % 30000} - \"POST /v1/completions HTTP/1.1\" 200 OK")
n_exp = 0
for r, (s, r_t, f, x) in zip(reqs, rel):
    if x and r_t < T0 + CRASH and f < T0 + CRASH:
        n_exp += 1
        L(r_t, f"(EngineCore_DP0 pid={EPID}) WARNING {ts(r_t)} [nixl_connector.py:1048] Releasing expired KV blocks for request cmpl-{rnd.getrandbits(128):032x}-0 which were retrieved by 0 decode worker(s) within 120 seconds.")
t = T0 + 10
while t < T0 + CRASH:
    L(t, stats_line(e, t - 10, t, APID))
    t += 10
tc = T0 + CRASH
bad = f"cmpl-{rnd.getrandbits(128):032x}-0"
E = f"(EngineCore_DP0 pid={EPID}) ERROR {ts(tc)} [core.py:720]"
for ln in ["EngineCore encountered a fatal error.", "Traceback (most recent call last):",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 711, in run_engine_core',
           "    engine_core.run_busy_loop()",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 738, in run_busy_loop',
           "    self._process_engine_step()",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 764, in _process_engine_step',
           "    outputs, model_executed = self.step_fn()",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 292, in step',
           "    engine_core_outputs = self.scheduler.update_from_output(",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/sched/scheduler.py", line 920, in update_from_output',
           "    self._update_from_kv_xfer_finished(",
           '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/sched/scheduler.py", line 1197, in _update_from_kv_xfer_finished',
           "    self._free_blocks(self.requests[req_id])",
           "                      ~~~~~~~~~~~~~^^^^^^^^",
           f"KeyError: '{bad}'"]:
    L(tc + 0.0001 * len(logs), f"{E} {ln}")
L(tc + 0.05, f"(APIServer pid={APID}) ERROR {ts(tc)} [async_llm.py:485] AsyncLLM output_handler failed.")
L(tc + 0.06, f"(APIServer pid={APID}) ERROR {ts(tc)} [async_llm.py:485] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")
L(tc + 0.2, f"(APIServer pid={APID}) INFO:     10.0.2.5:31877 - \"POST /v1/completions HTTP/1.1\" 500 Internal Server Error")
L(tc + 0.5, f"(APIServer pid={APID}) ERROR {ts(tc)} [api_server.py:1555] Engine is dead. Shutting down FastAPI HTTP server.")
L(tc + 0.6, f"(APIServer pid={APID}) INFO:     Shutting down")
L(tc + 0.8, f"(APIServer pid={APID}) INFO:     Finished server process [{APID}]")

gpu = []
for k in range(N):
    t = T0 + k * INTERVAL
    alive = t < tc + 5
    gpu.append({"t": round(t, 3), "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,
                "memory_used": 77913702400 if alive else 568328192,
                "processes": [{"pid": EPID, "name": "VLLM::EngineCore", "used_memory": 77345374208}] if alive else []}]})
mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009],
      "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 131072, "model_type": "llama",
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
      "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 128256, "head_dim": 128}
kvtc = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
write_bundle(OUT, scrapes=scrapes, interval=INTERVAL, endpoint="http://prefill-0:8100",
             notes="prefill instance of a 1P1D NixlConnector deployment behind a P/D proxy; decode instance not captured",
             server=server_json("0.10.2", MODEL, MODEL, 131072, int(tb + 110)),
             engine_args={"argv": ["vllm", "serve", MODEL, "--port", "8100", "--kv-transfer-config", kvtc],
                          "args": {"model": MODEL, "port": 8100, "kv-transfer-config": kvtc}},
             model_config=mc, gpu=gpu, logs=logs)
print("ok expiries", n_exp, "requests", len(reqs))
