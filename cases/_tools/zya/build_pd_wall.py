"""Bundle for zya-pd-decode-kv-wall-6p2d: decode-0 of a 6P+2D Mooncake split (vLLM 0.18.1, H20)."""
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import pdsim as P

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "cases" / "zya-pd-decode-kv-wall-6p2d" / "bundle"
BS, POOL = 16, 19114                     # 19,114 blocks x 16 = 305,824 tokens
BPT = 2 * 48 * 4 * 128 * 2               # 98,304 B per token
BW = 3.0e9                               # assumed effective pull rate per request
MODEL = "Qwen3-Coder-30B-A3B-Instruct"
MML = 131072
T_SERVE = 1779375600.0                   # server start (2026-05-21 15:00 UTC)
W0 = T_SERVE + 3600.0                    # first scrape
N, IV = 61, 10.0
T_TICK = W0 + 40.0                       # log tick with the quoted state


def xfer(p):
    return round(0.15 + p * BPT / BW, 3)


def main():
    rng = random.Random(1791)
    reqs = []
    t = T_SERVE + 20.0
    while t < W0 + N * IV:
        t += rng.expovariate(1 / (9.0 if t < T_TICK else 5.6))
        if T_TICK - 60 < t < T_TICK + 4:
            continue                     # lull before the fan-out burst (scripted below)
        if rng.random() < 0.25:
            p = rng.randint(30, 120)     # short tool-call turns
            g = rng.randint(8, 60)
        else:
            p = rng.randint(92000, 101000)   # long-context sessions pinned to decode-0
            g = int(min(2048, max(4, rng.lognormvariate(math.log(150), 1.2))))
        if T_TICK - 200 < t < T_TICK:
            g = min(g, 600)              # turns just before the lull are short
        reqs.append(P.Req(t_arr=round(t, 3), prompt=p, gen=g, max_tokens=8192, xfer_s=xfer(p)))
    # scripted fan-out: three ~99k-token turns land together, a 60k turn and two short turns behind
    for dt, p, g in [(-2.0, 99000, 1500), (-1.9, 98500, 1800), (-1.8, 99400, 2000),
                     (-1.0, 60200, 300), (-0.7, 49, 40), (-0.4, 63, 25)]:
        reqs.append(P.Req(t_arr=T_TICK + dt, prompt=p, gen=g, max_tokens=8192, xfer_s=xfer(p)))
    P.simulate(reqs, POOL, BS, lambda n: round(0.060 + 0.0015 * n, 4))
    return reqs



def ts_log(t):
    import datetime as dt
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


CACHE_INFO = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
              "is_attention_free": "False", "kv_sharing_fast_prefill": "False", "num_cpu_blocks": "None",
              "num_gpu_blocks": str(POOL), "num_gpu_blocks_override": "None",
              "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}

MODEL_CONFIG = {"architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
                "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
                "intermediate_size": 6144, "max_position_embeddings": 262144, "max_window_layers": 28,
                "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768,
                "norm_topk_prob": True, "num_attention_heads": 32, "num_experts": 128,
                "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4,
                "output_router_logits": False, "rms_norm_eps": 1e-06, "rope_scaling": None,
                "rope_theta": 10000000, "router_aux_loss_coef": 0.0, "shared_expert_intermediate_size": 0,
                "sliding_window": None, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "transformers_version": "4.51.0", "use_cache": True, "use_qk_norm": True,
                "use_sliding_window": False, "vocab_size": 151936}

KVCFG = '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}'
ARGV = ["vllm", "serve", "/models/Qwen/Qwen3-Coder-30B-A3B-Instruct", "--served-model-name", MODEL,
        "--port", "8200", "--tensor-parallel-size", "1", "--max-model-len", str(MML),
        "--gpu-memory-utilization", "0.9", "--enable-prefix-caching", "--kv-transfer-config", KVCFG]


def build():
    reqs = main()
    steps = P.step_timeline(reqs, T_SERVE, W0 + N * IV + 1)
    created = T_SERVE + 95.0
    scrapes = []
    for k in range(N):
        t = W0 + k * IV + 0.4
        scrapes.append((round(t, 3), P.scrape(reqs, t, created, MODEL, MML, BS, POOL, CACHE_INFO, steps)))
    # logs: start-up, then one stats line per 10 s (the engine's default interval) over the window
    L = []
    api, core = 2716, 2981
    t0 = T_SERVE
    L.append(f"(APIServer pid={api}) INFO {ts_log(t0)} [api_server.py:1885] vLLM API server version 0.18.1")
    L.append(f"(APIServer pid={api}) INFO {ts_log(t0)} [utils.py:233] non-default args: {{'model_tag': '/models/Qwen/Qwen3-Coder-30B-A3B-Instruct', 'port': 8200, 'model': '/models/Qwen/Qwen3-Coder-30B-A3B-Instruct', 'max_model_len': {MML}, 'served_model_name': ['{MODEL}'], 'gpu_memory_utilization': 0.9, 'enable_prefix_caching': True, 'kv_transfer_config': KVTransferConfig(kv_connector='MooncakeConnector', kv_role='kv_consumer')}}")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts_log(t0+14)} [core.py:93] Initializing a V1 LLM engine (v0.18.1) with config: model='/models/Qwen/Qwen3-Coder-30B-A3B-Instruct', dtype=torch.bfloat16, max_seq_len={MML}, tensor_parallel_size=1, kv_cache_dtype=auto, served_model_name={MODEL}, enable_prefix_caching=True")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts_log(t0+19)} [factory.py:51] Creating v1 connector with name: MooncakeConnector and engine_id: 7c1f0d52-3a6e-4f1b-9d4e-2b8c5e9a1f30")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts_log(t0+44)} [gpu_model_runner.py:3412] Model loading took 56.93 GiB memory and 22.816931 seconds")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts_log(t0+71)} [gpu_worker.py:402] Available KV cache memory: 28.00 GiB")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts_log(t0+71)} [kv_cache_utils.py:1291] GPU KV cache size: 305,824 tokens")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts_log(t0+71)} [kv_cache_utils.py:1296] Maximum concurrency for 131,072 tokens per request: 2.33x")
    L.append(f"(EngineCore_DP0 pid={core}) INFO {ts_log(t0+93)} [core.py:218] init engine (profile, create kv cache, warmup model) took 48.71 seconds")
    L.append(f"(APIServer pid={api}) INFO {ts_log(t0+95)} [api_server.py:1957] Starting vLLM API server 0 on http://0.0.0.0:8200")
    last = {"p": 0, "g": 0}
    def cum(t):
        return (sum(r.prompt for r in reqs if r.t_first <= t), sum(r.gen_by(t) for r in reqs))
    tl = W0 - 10.0
    last["p"], last["g"] = cum(tl)
    while tl < W0 + N * IV:
        tl += 10.0
        p, g = cum(tl)
        run, wait, u = P.state(reqs, tl, BS, POOL)
        started = [r for r in reqs if r.t_sched <= tl]
        eq = sum(r.prompt for r in started) or 1
        eh = sum(r.prompt - 1 for r in started)
        L.append(f"(APIServer pid={api}) INFO {ts_log(tl)} [loggers.py:259] Engine 000: Avg prompt throughput: {(p-last['p'])/10:.1f} tokens/s, Avg generation throughput: {(g-last['g'])/10:.1f} tokens/s, Running: {len(run)} reqs, Waiting: {len(wait)} reqs, GPU KV cache usage: {u*100:.1f}%, Prefix cache hit rate: 0.0%, External prefix cache hit rate: {eh/eq*100:.1f}%")
        last["p"], last["g"] = p, g
    logs = "\n".join(L) + "\n"
    gpu = []
    for k in range(N):
        t = W0 + k * IV + 0.5
        gpu.append({"t": round(t, 3), "devices": [{"index": 0, "name": "NVIDIA H20", "memory_total": 97871 * 2**20,
                    "memory_used": 92994 * 2**20, "processes": [{"pid": core, "name": "VLLM::EngineCore", "used_memory": 92460 * 2**20}]}]})
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://decode-0:8200",
                "started_at": W0, "ended_at": W0 + (N - 1) * IV + 0.4, "interval_s": IV,
                "notes": "decode-0 of a 6P+2D prefill/decode split (MooncakeConnector, kv_consumer); agentic coder replay; users report slow first tokens"}
    server = {"version": {"version": "0.18.1"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(W0), "owned_by": "vllm",
                         "root": "/models/Qwen/Qwen3-Coder-30B-A3B-Instruct", "parent": None, "max_model_len": MML}]},
              "health": 200}
    eargs = {"argv": ARGV, "args": {"model": "/models/Qwen/Qwen3-Coder-30B-A3B-Instruct", "served-model-name": MODEL,
             "tensor-parallel-size": 1, "max-model-len": MML, "gpu-memory-utilization": 0.9,
             "enable-prefix-caching": True, "kv-transfer-config": KVCFG}}
    P.write_bundle(OUT, manifest, scrapes, server, eargs, MODEL_CONFIG, gpu, logs)
    return reqs


if __name__ == "__main__":
    reqs = build()
    fst = [r for r in reqs if W0 <= r.t_first <= W0 + N * IV]
    sh = [r.t_first - r.t_arr for r in fst if r.prompt < 200]
    lg = [r.t_first - r.t_arr for r in fst if r.prompt >= 200]
    print("short ttft", sorted(round(x, 1) for x in sh))
    print("long ttft", sorted(round(x, 1) for x in lg))
