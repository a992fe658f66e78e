"""zyf-lmcache-remote-store-2rps: one LMCache-connected vLLM 0.10.2 instance, a 2 req/s burst of
150 requests (2048 prompt / 100 output tokens); each LMCache store of a request costs ~800 ms and
blocks the engine step, so prefills complete at 1.25/s and the waiting queue builds."""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sim import Engine, Req, scrape, stats_line, write_bundle, server_json, ts  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "cases" / "zyf-lmcache-remote-store-2rps" / "bundle"
rnd = random.Random(1640)

T0 = dt.datetime(2025, 9, 18, 15, 0, 0, tzinfo=dt.timezone.utc).timestamp()
INTERVAL, N = 15.0, 21
B = T0 + 90.0                      # burst start; a scrape lands at B + 75 (end of arrivals)
MODEL = "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B"
POOL = 226_640                     # 14,165 blocks x 16
STORE = 0.8                        # s per 2048-token store (cachegen + remote put), blocks the step

e = Engine(model_name=MODEL, engine="0", pool_tokens=POOL, block_size=16, max_model_len=131072,
           created=T0 - 2400.0)
e.cc_labels = {"block_size": "16", "gpu_memory_utilization": "0.9", "swap_space": "4", "cache_dtype": "auto",
               "is_attention_free": "False", "num_gpu_blocks_override": "None", "sliding_window": "None",
               "enable_prefix_caching": "True", "prefix_caching_hash_algo": "builtin", "cpu_offload_gb": "0",
               "calculate_kv_scales": "False", "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto",
               "mamba_ssm_cache_dtype": "auto", "num_gpu_blocks": "14165", "num_cpu_blocks": "None"}
reqs = []
prev_f = None
for i in range(150):
    a = B + 0.5 * i
    s = a if prev_f is None else max(a, prev_f)
    f = s + STORE
    r = Req(rid=i, t_arr=a, prompt=2048, gen=100, max_tokens=100, t_sched=s, t_first=f, itl=0.1)
    reqs.append(r)
    prev_f = f
e.reqs = reqs
# engine steps: one step per prefill+store (ends at each first token), decode steps every 0.1 s between
steps = sorted(set([r.t_first for r in reqs] + [B + 0.8 + 0.1 * k for k in range(int((max(r.t_end for r in reqs) - B) / 0.1) + 1)]))
e.step_times = steps

cache = {}
scrapes = [(T0 + k * INTERVAL, scrape(e, T0 + k * INTERVAL, cache)) for k in range(N)]

EPID, APID = 4127, 3982
logs = []
t_boot = T0 - 2460.0
def L(t, s):
    logs.append((t, s))
L(t_boot, f"(APIServer pid={APID}) INFO {ts(t_boot)} [api_server.py:1896] vLLM API server version 0.10.2")
L(t_boot + 0.1, f"(APIServer pid={APID}) INFO {ts(t_boot)} [utils.py:328] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}}")
L(t_boot + 30, f"(EngineCore_DP0 pid={EPID}) INFO {ts(t_boot + 30)} [factory.py:51] Creating v1 connector with name: LMCacheConnectorV1 and engine_id: 6f0c2a9e-3d4b-4f1e-9a57-2c81d0b4e6a3")
L(t_boot + 31, f"(EngineCore_DP0 pid={EPID}) [{dt.datetime.fromtimestamp(t_boot + 31, dt.timezone.utc).strftime('%Y-%m-%d %H:%M:%S')},204] LMCache INFO: Creating LMCacheEngine with config: chunk_size=256, local_cpu=True, max_local_cpu_size=20.0, remote_url='lm://10.0.1.4:65432', remote_serde='cachegen' (cache_engine.py:87:lmcache.v1.cache_engine)")
L(t_boot + 95, f"(EngineCore_DP0 pid={EPID}) INFO {ts(t_boot + 95)} [gpu_worker.py:276] Available KV cache memory: 41.50 GiB")
L(t_boot + 95.1, f"(EngineCore_DP0 pid={EPID}) INFO {ts(t_boot + 95)} [kv_cache_utils.py:864] GPU KV cache size: 226,640 tokens")
L(t_boot + 95.2, f"(EngineCore_DP0 pid={EPID}) INFO {ts(t_boot + 95)} [kv_cache_utils.py:868] Maximum concurrency for 131,072 tokens per request: 1.73x")
L(t_boot + 140, f"(APIServer pid={APID}) INFO {ts(t_boot + 140)} [loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: 14165")
L(t_boot + 141, f"(APIServer pid={APID}) INFO:     Application startup complete.")

def lts(t):
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S") + f",{int((t % 1) * 1000):03d}"

for r in reqs:
    rid = f"cmpl-{rnd.getrandbits(128):032x}-0"
    L(r.t_arr + 0.01, f"(APIServer pid={APID}) INFO:     10.0.1.4:{40000 + r.rid} - \"POST /v1/completions HTTP/1.1\" 200 OK")
    L(r.t_sched + 0.002, f"(EngineCore_DP0 pid={EPID}) [{lts(r.t_sched + 0.002)}] LMCache INFO: Reqid: {rid}, Total tokens 2048, LMCache hit tokens: 0, need to load: 0 (vllm_v1_adapter.py:1048:lmcache.integration.vllm.vllm_v1_adapter)")
    cost = STORE * 1000 - 65 + rnd.uniform(-8, 8)
    off = 18 + rnd.uniform(-3, 3)
    L(r.t_first - 0.005, f"(EngineCore_DP0 pid={EPID}) [{lts(r.t_first - 0.005)}] LMCache INFO: Stored 2048 out of total 2048 tokens. size: 0.3750 GB, cost {cost:.4f} ms, throughput: {0.375 / (cost / 1000):.4f} GB/s; offload_time: {off:.4f} ms, put_time: {cost - off:.4f} ms (cache_engine.py:247:lmcache.v1.cache_engine)")
t = T0 + 10
while t <= T0 + (N - 1) * INTERVAL:
    a, b = t - 10, t
    busy = any(a - 10 < r.t_arr <= b or (r.t_first <= b and r.t_end > a - 10) for r in reqs)
    if busy:
        L(b, stats_line(e, a, b, APID))
    t += 10

gpu = [{"t": round(T0 + k * INTERVAL, 3), "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,
        "memory_used": 78224539648, "processes": [{"pid": EPID, "name": "VLLM::EngineCore", "used_memory": 77594935296}]}]}
       for k in range(N)]
model_config = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
                "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 13824,
                "max_position_embeddings": 131072, "max_window_layers": 48, "model_type": "qwen2", "num_attention_heads": 40,
                "num_hidden_layers": 48, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
                "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
                "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
kvtc = '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
write_bundle(OUT, scrapes=scrapes, interval=INTERVAL, endpoint="http://node2:8000",
             notes="LMCache-connected instance during a 2 req/s benchmark run (2048 in / 100 out); LMCACHE_CONFIG_FILE sets remote_url lm://<node1>:65432, remote_serde cachegen, chunk_size 256, local_cpu True, max_local_cpu_size 20",
             server=server_json("0.10.2", MODEL, MODEL, 131072, int(t_boot + 141)),
             engine_args={"argv": ["vllm", "serve", MODEL, "--port", "8000", "--kv-transfer-config", kvtc],
                          "args": {"model": MODEL, "port": 8000, "kv-transfer-config": kvtc}},
             model_config=model_config, gpu=gpu, logs=logs)
print("ok", OUT)
