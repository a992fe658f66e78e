"""zyp-lmcache-pd-32k-decode-recompute: decode instance (kv_consumer) of a 1P1D
vLLM 0.10.1.1 + LMCache 0.3.3 (NIXL PD) deployment, Llama-3.1-8B on one H200 of a
p5en. Sequential length sweep: 8K then 16K prompts transfer (decoder loads them);
from T0+240 s 32K prompts find 0 LMCache hit tokens on the decoder, which recomputes
the whole prompt (~1.04 s) before decoding 300 tokens.
Run from the worktree root: python3 cases/_tools/zyp/lmcache_pd_32k.py"""
import calendar
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import write_bundle  # noqa
from prom0101 import EngineMetrics, render, cache_info  # noqa

OUT = "cases/zyp-lmcache-pd-32k-decode-recompute/bundle"
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
T0 = calendar.timegm((2025, 9, 9, 19, 58, 0))
INTERVAL, N = 10, 61
SWITCH = T0 + 240
MAXLEN = 65536
BLOCK = 16
NUM_BLOCKS = 55488            # 887,808 tokens x 128 KiB = 110,976 MiB = 108.38 GiB
GEN = 300
rng = random.Random(1547)

# ---- the client's sequential sweep --------------------------------------
reqs = []
t = T0 - 600.0
while t < T0 + (N - 1) * INTERVAL + 10:
    if t < T0 - 120:
        p, pf_p, ok, itl = 8192, rng.uniform(0.27, 0.30), True, 0.0086
    elif t < SWITCH:
        p, pf_p, ok, itl = 16384, rng.uniform(0.57, 0.60), True, 0.0090
    else:
        p, pf_p, ok, itl = 32768, rng.uniform(1.290, 1.305), False, 0.0095
    arr = t + pf_p                       # prefiller done, proxy sends to the decoder
    q = rng.uniform(0.0025, 0.0035)
    if ok:
        pre = 0.026 + p * 1.2e-6 + rng.uniform(0, 0.006)   # load from receiver buffer + 1 step
    else:
        pre = rng.uniform(1.030, 1.045)                      # 4 x 8192-token local prefill
    itl = itl * rng.uniform(0.99, 1.01)
    first = arr + q + pre
    end = first + (GEN - 1) * itl
    reqs.append(dict(id="cmpl-%032x-0" % rng.getrandbits(128), p=p, ok=ok, arr=arr, sched=arr + q,
                     first=first, end=end, itl=itl, client=t))
    t = end + rng.uniform(0.12, 0.20)


def state(at):
    em = EngineMetrics(MAXLEN)
    running = waiting = used = 0
    for r in reqs:
        if r["arr"] > at:
            continue
        if r["sched"] > at:
            waiting += 1
            continue
        em.c["prefix_q"] += r["p"]
        if r["first"] > at:
            running += 1
            used += math.ceil(r["p"] / BLOCK) if r["ok"] else \
                math.ceil(min(r["p"], 8192 * (1 + int((at - r["sched"]) / 0.26))) / BLOCK)
            continue
        em.start(GEN)
        em.h["vllm:time_to_first_token_seconds"].observe(r["first"] - r["arr"])
        em.h["vllm:iteration_tokens_total"].observe(r["p"] + 1)
        em.c["prompt"] += r["p"]
        g = min(GEN - 1, int((at - r["first"]) / r["itl"]))
        em.c["gen"] += 1 + g
        if g:
            em.h["vllm:time_per_output_token_seconds"].observe(r["itl"], g)
            em.h["vllm:iteration_tokens_total"].observe(1, g)
        if at >= r["end"]:
            em.finish(r["p"], GEN, GEN, r["end"] - r["arr"], r["sched"] - r["arr"],
                      r["first"] - r["sched"], r["end"] - r["first"], reason="length")
        else:
            running += 1
            used += math.ceil((r["p"] + 1 + g) / BLOCK)
    em.running, em.waiting, em.kv = running, waiting, used / NUM_BLOCKS
    return em


def ts(x):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(x))


def lts(x):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(x)) + ",%03d" % int((x % 1) * 1000)


CI = cache_info(NUM_BLOCKS, 0.9)
scrapes, gpu = [], []
MT = 143771 * 1024 ** 2
for k in range(N):
    at = T0 + k * INTERVAL
    scrapes.append({"t": at, "status": 200, "text": render({0: state(at)}, MODEL, CI)})
    used = (129394 + 10240 + 600) * 1024 ** 2 + rng.randint(0, 2) * 1024 ** 2
    gpu.append({"t": at, "devices": [{"index": 0, "name": "NVIDIA H200", "memory_total": MT, "memory_used": used,
                "processes": [{"pid": 612, "name": "VLLM::EngineCore", "used_memory": used - 600 * 1024 ** 2}]}]})

A, E = "(APIServer pid=388)", "(EngineCore_0 pid=612)"
st = T0 - 2400
lg = [
    f"{A} INFO {ts(st)} [api_server.py:1805] vLLM API server version 0.10.1.1",
    f"{A} INFO {ts(st)} [utils.py:326] non-default args: {{'model_tag': '{MODEL}', 'port': 8200, 'model': '{MODEL}', "
    f"'max_model_len': {MAXLEN}, 'gpu_memory_utilization': 0.9, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', "
    f"engine_id='0', kv_buffer_device='cuda', kv_buffer_size=1000000000.0, kv_role='kv_consumer', kv_rank=None, kv_parallel_size=1, "
    f"kv_ip='127.0.0.1', kv_port=14579, kv_connector_extra_config={{'discard_partial_chunks': False, 'lmcache_rpc_port': 'consumer1'}}, kv_connector_module_path=None)}}",
    f"{E} INFO {ts(st+9)} [core.py:71] Initializing a V1 LLM engine (v0.10.1.1) with config: model='{MODEL}', tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len={MAXLEN}, tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True, chunked_prefill_enabled=True",
    f"{E} [{lts(st+14.2)}] LMCache INFO: Loading LMCache config file /configs/lmcache-decoder-config.yaml (utils.py:57:lmcache.integration.vllm.utils)",
    f"{E} [{lts(st+14.9)}] LMCache INFO: use mla: False, kv shape: (32, 2, 256, 8, 128) (vllm_v1_adapter.py:441:lmcache.integration.vllm.vllm_v1_adapter)",
    f"{E} INFO {ts(st+41)} [gpu_model_runner.py:1953] Model loading took 14.9896 GiB and 24.183113 seconds",
    f"{E} INFO {ts(st+62)} [gpu_worker.py:276] Available KV cache memory: 108.38 GiB",
    f"{E} INFO {ts(st+62)} [kv_cache_utils.py:849] GPU KV cache size: 887,808 tokens",
    f"{E} INFO {ts(st+62)} [kv_cache_utils.py:853] Maximum concurrency for 65,536 tokens per request: 13.55x",
    f"{E} INFO {ts(st+81)} [core.py:214] init engine (profile, create kv cache, warmup model) took 39.62 seconds",
    f"{A} INFO {ts(st+83)} [loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NUM_BLOCKS}",
    f"{A} INFO {ts(st+84)} [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8200",
]
ev = []
END = T0 + (N - 1) * INTERVAL
for r in reqs:
    if T0 - 60 <= r["arr"] <= END:
        ev.append((r["arr"], f'{A} INFO:     10.0.3.17:{40000 + int(r["arr"]) % 20000} - "POST /v1/completions HTTP/1.1" 200 OK'))
        hit = r["p"] if r["ok"] else 0
        ev.append((r["sched"], f"{E} [{lts(r['sched'])}] LMCache INFO: Reqid: {r['id']}, Total tokens {r['p']}, "
                               f"LMCache hit tokens: {hit}, need to load: {max(0, hit - 1)} "
                               f"(vllm_v1_adapter.py:802:lmcache.integration.vllm.vllm_v1_adapter)"))
prev = None
x = T0 - 55.0
while x <= END:
    em = state(x)
    if prev is not None:
        pt = (em.c["prompt"] - prev.c["prompt"]) / 10.0
        gt = (em.c["gen"] - prev.c["gen"]) / 10.0
        ev.append((x, f"{A} INFO {ts(x)} [loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                      f"Avg generation throughput: {gt:.1f} tokens/s, Running: {em.running} reqs, Waiting: {em.waiting} reqs, "
                      f"GPU KV cache usage: {em.kv*100:.1f}%, Prefix cache hit rate: 0.0%"))
    prev = em
    x += 10.0
ev.sort(key=lambda e: e[0])
lg += [e for _, e in ev]

manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://decode-0:8200",
            "started_at": T0, "ended_at": END, "interval_s": float(INTERVAL),
            "notes": "decode instance (kv_consumer) of a 1P1D vLLM + LMCache PD setup during a sequential input-length sweep; end-to-end TTFT about doubles once prompts reach 32K"}
server = {"version": {"version": "0.10.1.1"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": END, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": MAXLEN}]},
          "health": 200}
KVT = '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer","kv_connector_extra_config":{"discard_partial_chunks":false,"lmcache_rpc_port":"consumer1"}}'
engine_args = {"argv": ["vllm", "serve", MODEL, "--port", "8200", "--max-model-len", str(MAXLEN),
                        "--gpu-memory-utilization", "0.9", "--kv-transfer-config", KVT],
               "args": {"model": MODEL, "port": 8200, "max-model-len": MAXLEN, "gpu-memory-utilization": 0.9,
                        "kv-transfer-config": KVT}}
model_config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "head_dim": 128,
                "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
                "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
                "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
                "pretraining_tp": 1, "rms_norm_eps": 1e-05,
                "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                 "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "transformers_version": "4.43.0.dev0", "use_cache": True, "vocab_size": 128256}
write_bundle(OUT, manifest, scrapes, server, engine_args, model_config, gpu, "\n".join(lg) + "\n")

# summary for the case text (not a diagnosis)
def win(a, b, ok):
    rs = [r for r in reqs if a <= r["arr"] and r["end"] <= b and r["ok"] == ok]
    if not rs:
        return None
    tt = sorted(r["first"] - r["arr"] for r in rs)
    pf = sorted(r["first"] - r["sched"] for r in rs)
    return len(rs), round(tt[0], 3), round(tt[len(tt) // 2], 3), round(tt[-1], 3), round(pf[len(pf) // 2], 3), round(rs[0]["itl"] * 1000, 2)
print("16K in window", win(T0, SWITCH, True))
print("32K in window", win(SWITCH, END, False))
e = state(END)
print("end: running", e.running, "waiting", e.waiting, "kv", round(e.kv, 4), "success", e.success, "prompt", e.c["prompt"], "gen", e.c["gen"])
print("max kv", max(state(T0 + k * 10).kv for k in range(N)), "max waiting", max(state(T0 + k * 10).waiting for k in range(N)))
