"""Builders of the zxh-* cases (writer zxh, round 23). Run: python3 cases/_tools/zxh/cases.py
Deterministic (seeded RNGs, fixed epochs). Parameters from each case.yaml (quoted / assumed)."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import CASES, Engine, Req, epoch, merge_expositions, vtime, write_bundle  # noqa: E402

GiB = 1024 ** 3


def cfg(blocks, gmu, prefix=True, dtype="auto", kvbytes="None", mamba="auto", bs=16):
    return {"block_size": str(bs), "cache_dtype": dtype, "calculate_kv_scales": "False", "cpu_kvcache_space_bytes": "None",
            "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": str(gmu),
            "is_attention_free": "False", "kv_cache_memory_bytes": kvbytes, "kv_sharing_fast_prefill": "False",
            "mamba_cache_dtype": mamba, "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}


def startup(version, nondefault, t_boot, pool_tokens, mml, kv_gib, weights_gib, dp=1, extra=()):
    A = "(APIServer pid=1) "
    L = [A + f"INFO {vtime(t_boot)} [api_server.py:1839] vLLM API server version {version}",
         A + f"INFO {vtime(t_boot)} [utils.py:233] non-default args: {nondefault}",
         A + f"INFO {vtime(t_boot + 5)} [model.py:1510] Using max model len {mml}"]
    for d in range(dp):
        E = "(EngineCore_DP%d pid=%d) " % (d, 40 + d)
        L += [E + f"INFO {vtime(t_boot + 60)} [gpu_model_runner.py:2602] Model loading took {weights_gib:.4f} GiB and 41.3 seconds",
              E + f"INFO {vtime(t_boot + 90)} [gpu_worker.py:298] Available KV cache memory: {kv_gib:.2f} GiB",
              E + f"INFO {vtime(t_boot + 90)} [kv_cache_utils.py:1087] GPU KV cache size: {pool_tokens:,} tokens",
              E + f"INFO {vtime(t_boot + 90)} [kv_cache_utils.py:1091] Maximum concurrency for {mml:,} tokens per request: {pool_tokens / mml:.2f}x",
              E + f"INFO {vtime(t_boot + 120)} [core.py:210] init engine (profile, create kv cache, warmup model) took 58.40 seconds"]
    L += list(extra)
    L += [A + f"INFO {vtime(t_boot + 125)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000",
          A + "INFO:     Application startup complete."]
    return L


def stats_logs(engines, t0, t1, step=10.0, freeze=None):
    out, t = [], t0
    while t <= t1 + 1e-6:
        for e in engines:
            line = e.stats_line(t - step, t)
            if freeze is not None and t - step >= freeze:
                line = (f"Engine {int(e.engine):03d}: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: "
                        f"0.0 tokens/s, Running: {len(e.running(freeze))} reqs, Waiting: {len(e.waiting(freeze))} reqs, "
                        f"GPU KV cache usage: {100 * e.kv_usage(freeze):.1f}%, Prefix cache hit rate: 0.0%")
            out.append("(APIServer pid=1) " + f"INFO {vtime(t)} [loggers.py:257] " + line)
        t += step
    return out


def server(version, served, root, mml, t0, health=200):
    return {"version": {"version": version},
            "models": {"object": "list", "data": [{"id": served, "object": "model", "created": int(t0 - 900),
                                                   "owned_by": "vllm", "root": root, "parent": None,
                                                   "max_model_len": mml}]},
            "health": health}


# --------------------------------------------------------------------------- case 1
def dp4_minimax():
    cid = "zxh-dp4-reqcount-lb-minimax-55k"
    rng = random.Random(4079523)
    model = "MiniMaxAI/MiniMax-M2.7"
    t0 = epoch(2026, 4, 24, 14, 0, 0)
    warm = 300.0                      # traffic starts 5 min before the window
    t1 = t0 + 600.0
    n_eng = 4

    def service(L):
        return 0.3 + L / 7000.0 + 2.0 * (L / 100000.0) ** 2

    # arrivals, Poisson 0.4/s
    arr, t = [], t0 - warm
    while t < t1:
        t += rng.expovariate(0.4)
        arr.append(t)
    free_at = [t0 - warm] * n_eng
    queues = [[] for _ in range(n_eng)]   # (start, end) of assigned requests per engine
    reqs = [[] for _ in range(n_eng)]
    for i, ta in enumerate(arr):
        L = rng.randint(11000, 99000)
        # request-level score at arrival: waiting*4 + running
        scores = []
        for e in range(n_eng):
            w = sum(1 for (s, en) in queues[e] if ta < s)
            r = sum(1 for (s, en) in queues[e] if s <= ta < en)
            scores.append(w * 4 + r)
        e = min(range(n_eng), key=lambda k: (scores[k], k))
        start = max(ta, free_at[e])
        sv = service(L)
        free_at[e] = start + sv
        queues[e].append((start, start + sv))
        reqs[e].append(Req(rid=f"cmpl-{i}", t_arrive=ta, prompt=L, gen=1, queue_s=start - ta, prefill_s=sv,
                           itl_s=0.02, max_tokens=1))
    pool = 400_000
    engines = []
    for e in range(n_eng):
        E = Engine(ver="0180", model=model, reqs=reqs[e], pool_tokens=pool, block_size=16,
                   cache_cfg=cfg(pool // 16, 0.9), engine=str(e), t_created=t0 - warm - 200, step_tokens=8192)
        engines.append(E)
    nd = {'model_tag': model, 'model': model, 'trust_remote_code': True, 'enable_auto_tool_choice': True,
          'tool_call_parser': 'minimax_m2', 'reasoning_parser': 'minimax_m2', 'data_parallel_size': 4}
    logs = startup("0.19.1", nd, t0 - warm - 330, pool, 196608, 61.4, 58.2, dp=4)
    logs += stats_logs(engines, t0 - 60, t1)
    cfgjson = {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072,
               "num_hidden_layers": 62, "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128,
               "num_local_experts": 256, "num_experts_per_tok": 8, "intermediate_size": 1536,
               "max_position_embeddings": 196608, "vocab_size": 200064, "torch_dtype": "bfloat16",
               "quantization_config": {"quant_method": "fp8", "fmt": "float8_e4m3fn", "weight_block_size": [128, 128]}}
    gpu = []
    t = t0
    while t <= t1 + 1e-6:
        gpu.append({"t": t, "devices": [{"index": i, "name": "NVIDIA H200", "memory_total": 150754820096,
                                         "memory_used": int(0.9 * 150754820096) + 512 * 1024 ** 2,
                                         "processes": [{"pid": 40 + i, "name": "VLLM::EngineCore_DP%d" % i,
                                                        "used_memory": int(0.9 * 150754820096)}]} for i in range(4)]})
        t += 10
    write_bundle(cid, engines=engines, t0=t0, t1=t1, interval=10.0, endpoint="http://minimax-dp4:8000",
                 notes="vllm bench serve random 55000-token prompts (range ratio 0.8), 1 output token, request-rate 0.4, DP=4 behind one API server",
                 server=server("0.19.1", model, model, 196608, t0),
                 engine_args={"argv": ["vllm", "serve", model, "-tp", "1", "-dp", "4", "--tool-call-parser", "minimax_m2",
                                       "--reasoning-parser", "minimax_m2", "--enable-auto-tool-choice", "--trust-remote-code"],
                              "args": {"model": model, "tensor-parallel-size": 1, "data-parallel-size": 4,
                                       "tool-call-parser": "minimax_m2", "reasoning-parser": "minimax_m2",
                                       "enable-auto-tool-choice": True, "trust-remote-code": True}},
                 model_config=cfgjson, gpu=gpu, logs=logs, merge=merge_expositions)
    # summary
    for e in engines:
        rs = [r for r in e.reqs if t0 <= r.t_arrive <= t1]
        q = sorted(r.queue_s for r in rs)
        print(cid, "engine", e.engine, "n", len(rs), "tokens", sum(r.prompt for r in rs),
              "queue p50 %.1f max %.1f" % (q[len(q) // 2], q[-1]) if q else "")


# --------------------------------------------------------------------------- case 2
def nixl_crash():
    cid = "zxh-nixl-asym-tp4-tp1-decode-crash"
    rng = random.Random(43523)
    model = "RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8-dynamic"
    ver = "0.1.dev1+g2b51d23f6"
    t0 = epoch(2026, 5, 24, 10, 0, 0)
    t1 = t0 + 600.0
    pool = 157_120
    crashes = [t0 + 95.0, t0 + 95.0 + 240.0 + 30.0]     # bench starts t0+90; pod back 240 s after crash 1
    ups = [t0 - 900.0, t0 + 95.0 + 240.0]
    rows, logs = [], []
    nd = {'model_tag': model, 'model': model, 'max_model_len': 2205,
          'kv_transfer_config': {'kv_connector': 'NixlConnector', 'kv_role': 'kv_both'}}
    logs += startup(ver, nd, ups[0] - 130, pool, 2205, 47.95, 67.72,
                    extra=["(EngineCore_DP0 pid=40) INFO %s [nixl_connector.py:799] Initializing NIXL wrapper" % vtime(ups[0] - 40),
                           "(EngineCore_DP0 pid=40) INFO %s [factory.py:64] Creating v1 connector with name: NixlConnector and engine_id: 5d0f3c2a-7e41-4b8e-9a6d-1c2f8e0b7a11" % vtime(ups[0] - 35)])
    engines = {}
    for k, (up, cr) in enumerate(zip(ups, crashes)):
        reqs = []
        ta = max(up, t0 + 90.0)
        n = 0
        while ta < cr:
            # handed-off requests wait for remote KVs and never get scheduled before the crash
            reqs.append(Req(rid=f"cmpl-{k}-{n}", t_arrive=ta, prompt=2000, gen=100, queue_s=1e6, prefill_s=0.1,
                            itl_s=0.03, max_tokens=100))
            ta += rng.expovariate(4.0)
            n += 1
        engines[k] = Engine(ver="0180", model=model, reqs=reqs, pool_tokens=pool, block_size=16,
                            cache_cfg=cfg(pool // 16, 0.9), engine="0", t_created=up - 5)
    t = t0
    while t <= t1 + 1e-6:
        if ups[0] <= t < crashes[0]:
            rows.append({"t": t, "status": 200, "text": engines[0].exposition(t)})
        elif ups[1] <= t < crashes[1]:
            rows.append({"t": t, "status": 200, "text": engines[1].exposition(t)})
        else:
            rows.append({"t": t, "error": "Cannot connect to host decode-0.llama70b-decode:8000 ssl:default [Connect call failed ('10.42.3.17', 8000)]"})
        t += 10.0
    for k, cr in enumerate(crashes):
        E = "(EngineCore_DP0 pid=%d) " % (40 if k == 0 else 41)
        w = "(Worker_TP0 pid=%d) " % (88 if k == 0 else 89)
        rid = engines[k].reqs[0].rid if engines[k].reqs else "cmpl-x"
        tb = [w + f"ERROR {vtime(cr)} [multiproc_executor.py:703] WorkerProc hit an exception.",
              w + f"ERROR {vtime(cr)} [multiproc_executor.py:703] Traceback (most recent call last):",
              w + f'ERROR {vtime(cr)} [multiproc_executor.py:703]   File "/opt/vllm-source/vllm/v1/worker/gpu_model_runner.py", line 2671, in execute_model',
              w + f"ERROR {vtime(cr)} [multiproc_executor.py:703]     return self.kv_connector_no_forward(",
              w + f'ERROR {vtime(cr)} [multiproc_executor.py:703]   File "/opt/vllm-source/vllm/v1/worker/kv_connector_model_runner_mixin.py", line 87, in kv_connector_no_forward',
              w + f'ERROR {vtime(cr)} [multiproc_executor.py:703]   File "/opt/vllm-source/vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py", line 1412, in start_load_kv',
              w + f'ERROR {vtime(cr)} [multiproc_executor.py:703]   File "/opt/vllm-source/vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py", line 1040, in block_size_ratio_from_engine_id',
              w + f"ERROR {vtime(cr)} [multiproc_executor.py:703]     return self.block_size // self.remote_block_size[remote_engine_id]",
              w + f"ERROR {vtime(cr)} [multiproc_executor.py:703] KeyError: '9b3e27d4-61f0-4c5a-8e2b-7d4a0c9f1e53'",
              E + f"ERROR {vtime(cr + 1)} [core.py:847] EngineCore encountered a fatal error.",
              E + f"ERROR {vtime(cr + 1)} [core.py:847] KeyError: '9b3e27d4-61f0-4c5a-8e2b-7d4a0c9f1e53'",
              "(APIServer pid=1) " + f"ERROR {vtime(cr + 1)} [async_llm.py:480] AsyncLLM output_handler failed.",
              "(APIServer pid=1) " + f"ERROR {vtime(cr + 1)} [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
              "(APIServer pid=1) INFO:     10.42.1.9:51822 - \"POST /v1/completions HTTP/1.1\" 500 Internal Server Error",
              "(APIServer pid=1) " + f"INFO {vtime(cr + 2)} [launcher.py:110] Shutting down FastAPI HTTP server.",
              "(APIServer pid=1) INFO:     Shutting down"]
        before = [("(APIServer pid=1) " + f"INFO {vtime(r.t_arrive)} [logger.py:43] Received request {r.rid}: params: SamplingParams(n=1, temperature=0.0, max_tokens=100), kv_transfer_params: {{'do_remote_prefill': True, 'remote_engine_id': '9b3e27d4-61f0-4c5a-8e2b-7d4a0c9f1e53', 'remote_host': '10.42.2.11', 'remote_port': 5600, 'tp_size': 4}}.") for r in engines[k].reqs[:3]]
        logs += before + tb
        if k == 0:
            logs += startup(ver, nd, ups[1] - 130, pool, 2205, 47.95, 67.72)
    write_bundle(cid, engines=[engines[0]], t0=t0, t1=t1, interval=10.0, endpoint="http://decode-0.llama70b-decode:8000",
                 notes="decode pod 0 of 4 (TP1), P/D disaggregation with NixlConnector, prefill pods 3 x TP4; benchmark 100 users ISL 2000 OSL 100 starts at +90 s",
                 server=server(ver, model, model, 2205, t0, health=200),
                 engine_args={"argv": ["vllm", "serve", model, "--max-model-len", "2205", "--kv-transfer-config",
                                       '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'],
                              "args": {"model": model, "max-model-len": 2205, "tensor-parallel-size": 1,
                                       "kv-transfer-config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}}},
                 model_config={"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
                               "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
                               "intermediate_size": 28672, "max_position_embeddings": 131072, "vocab_size": 128256,
                               "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "compressed-tensors"}},
                 logs=logs)
    (CASES / cid / "bundle" / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    print(cid, "rows", len(rows), "errors", sum(1 for r in rows if "error" in r))


# --------------------------------------------------------------------------- case 3
def l4_mixed():
    cid = "zxh-l4-mixed-long-prefill-hol"
    rng = random.Random(41399)
    model = "Qwen/Qwen2.5-7B-Instruct"
    t0 = epoch(2026, 4, 30, 16, 0, 0)
    warm = 120.0
    t1 = t0 + 600.0
    rate_p = 6000.0
    arr, t = [], t0 - warm
    while t < t1:
        t += rng.expovariate(1.9)
        arr.append(t)
    free = t0 - warm
    reqs = []
    for i, ta in enumerate(arr):
        u = rng.random()
        if u < 0.8:
            L = rng.randint(150, 400)
        elif u < 0.95:
            L = rng.randint(1500, 3000)
        else:
            L = rng.randint(8000, 12000)
        start = max(ta, free)            # FCFS: a long prefill holds the 2048-token budget until done
        pre = 0.03 + L / rate_p
        free = start + pre
        g = rng.randint(64, 256)
        reqs.append(Req(rid=f"cmpl-{i}", t_arrive=ta, prompt=L, gen=g, queue_s=start - ta, prefill_s=pre,
                        itl_s=0.028 + 0.0004 * 12 + (0.01 if L > 8000 else 0.0), max_tokens=256, reason="stop"))
    pool = 108_544
    E = Engine(ver="0180", model=model, reqs=reqs, pool_tokens=pool, block_size=16, cache_cfg=cfg(pool // 16, 0.9),
               engine="0", t_created=t0 - warm - 100, step_tokens=2048)
    nd = {'model_tag': model, 'model': model, 'max_model_len': 16384}
    logs = startup("0.19.1", nd, t0 - warm - 240, pool, 16384, 5.80, 14.25) + stats_logs([E], t0 - 60, t1)
    gpu = [{"t": t0 + 10 * k, "devices": [{"index": 0, "name": "NVIDIA L4", "memory_total": 24152899584,
                                          "memory_used": 21900000000,
                                          "processes": [{"pid": 40, "name": "VLLM::EngineCore", "used_memory": 21470000000}]}]}
           for k in range(61)]
    write_bundle(cid, engines=[E], t0=t0, t1=t1, interval=10.0, endpoint="http://l4-bench:8000",
                 notes="synthetic mixed workload (80% small, 15% medium, 5% large prompts), default V1 scheduler",
                 server=server("0.19.1", model, model, 16384, t0),
                 engine_args={"argv": ["vllm", "serve", model, "--max-model-len", "16384"],
                              "args": {"model": model, "max-model-len": 16384}},
                 model_config={"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
                               "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
                               "intermediate_size": 18944, "max_position_embeddings": 32768, "vocab_size": 152064,
                               "torch_dtype": "bfloat16"},
                 gpu=gpu, logs=logs)
    w = [r for r in reqs if t0 <= r.t_arrive <= t1]
    tt = sorted(r.t_first - r.t_arrive for r in w)
    print(cid, "n", len(w), "ttft mean %.3f p50 %.3f p99 %.3f" % (sum(tt) / len(tt), tt[len(tt) // 2], tt[int(0.99 * len(tt))]))


# --------------------------------------------------------------------------- case 4
class Frozen(Engine):
    def __init__(self, *a, freeze, **k):
        super().__init__(*a, **k)
        self.freeze = freeze

    def exposition(self, t):
        return super().exposition(min(t, self.freeze))


def gb10_wedge():
    cid = "zxh-gb10-dflash-silent-wedge"
    rng = random.Random(10)
    model = "aeon-ultimate"
    ver = "0.24.0"
    t0 = epoch(2026, 7, 6, 9, 0, 0)
    t1 = t0 + 600.0
    tw = t0 + 180.0
    reqs = []
    for i in range(8):
        ta = t0 - rng.uniform(60, 400)
        L = rng.randint(6000, 30000)
        reqs.append(Req(rid=f"chatcmpl-{i}", t_arrive=ta, prompt=L, gen=16000, queue_s=0.0, prefill_s=L / 2400.0,
                        itl_s=1 / 22.0, max_tokens=32768))
    pool = 270_000
    E = Frozen(ver="0180", model=model, reqs=reqs, pool_tokens=pool, block_size=1056,
               cache_cfg=cfg(pool // 1056, 0.49, dtype="fp8_e4m3", kvbytes="16106127360", mamba="float32", bs=1056),
               engine="0", t_created=t0 - 3600, step_tokens=8192, freeze=tw)
    E.running = (lambda f: (lambda t: Engine.running(E, min(t, tw))))(None)
    E.waiting = (lambda t: Engine.waiting(E, min(t, tw)))
    nd = {'model_tag': '/models/qwen36-27b-aeon', 'model': '/models/qwen36-27b-aeon', 'served_model_name': ['aeon-ultimate', 'qwen3.6-27b-decensor-by-aeon'],
          'quantization': 'modelopt', 'kv_cache_dtype': 'fp8_e4m3', 'attention_backend': 'TRITON_ATTN',
          'mamba_cache_dtype': 'float32', 'max_model_len': 262144, 'max_num_seqs': 64, 'gpu_memory_utilization': 0.49,
          'kv_cache_memory_bytes': 16106127360, 'enable_chunked_prefill': True, 'reasoning_parser': 'qwen3',
          'enable_auto_tool_choice': True, 'tool_call_parser': 'qwen3_coder', 'port': 18010}
    logs = startup(ver, nd, t0 - 3800, pool, 262144, 15.0, 17.9) + stats_logs([E], t0 - 60, t1, freeze=tw)
    gpu = [{"t": t0 + 10 * k, "devices": [{"index": 0, "name": "NVIDIA GB10", "memory_total": 128 * GiB,
                                          "memory_used": int(66.5 * GiB),
                                          "processes": [{"pid": 40, "name": "VLLM::EngineCore", "used_memory": int(62.4 * GiB)}]}]}
           for k in range(61)]
    write_bundle(cid, engines=[E], t0=t0, t1=t1, interval=10.0, endpoint="http://127.0.0.1:18010",
                 notes="replaying loop-suspect thinking benchmark cases through the guard proxy (active=8); nvidia-smi shows 96% GPU utilization throughout",
                 server=server(ver, model, "/models/qwen36-27b-aeon", 262144, t0),
                 engine_args={"argv": None, "args": {k.replace("_", "-"): v for k, v in nd.items() if k != "model_tag"}},
                 model_config={"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
                               "text_config": {"model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64,
                                               "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256,
                                               "full_attention_interval": 4, "linear_num_value_heads": 48,
                                               "linear_num_key_heads": 16, "linear_key_head_dim": 128,
                                               "linear_value_head_dim": 128, "max_position_embeddings": 262144},
                               "torch_dtype": "bfloat16"},
                 gpu=gpu, logs=logs)
    print(cid, "running at wedge", len(Engine.running(E, tw)), "kv %.3f" % E.kv_usage(tw))


if __name__ == "__main__":
    dp4_minimax()
    nixl_crash()
    l4_mixed()
    gb10_wedge()
