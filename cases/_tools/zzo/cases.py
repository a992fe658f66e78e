"""Writer zzo's cases (round 15): builds cases/zzo-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzo/cases.py [name]
sim.py simulates; gen.py (zzl's, unchanged) gives templates and helpers. Seeded, no wall clock.
Numbers not quoted by the sources are under `assumed:` in each case.yaml."""
from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
import sim  # noqa: E402
from sim import R, Cfg, Sim  # noqa: E402

ROOT = gen.ROOT
MiB, GiB = 1024 ** 2, 1024 ** 3
ts = gen.ts
V0T = "zw-v060-multistep16-metrics-distorted"   # vLLM 0.6.0 bundle: families / buckets
V1T = "a-max-num-seqs-100-piecewise-cliff"      # vLLM 0.28.0 bundle


def utc(*a):
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def v1_stats_fmt(pid):
    return (f"(APIServer pid={pid}) INFO {{ts}} [loggers.py:257] Engine 000: Avg prompt throughput: {{pt:.1f}} tokens/s, "
            "Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, "
            "GPU KV cache usage: {kv:.1f}%, Prefix cache hit rate: 0.0%")


# ------------------------------------------------------------ 1: vllm#8395 (dev-15)
def qwen72b_hang():
    cid = "zzo-qwen72b-tp4-rank-idle-hang"
    t0 = utc(2024, 9, 11, 14, 10, 0)
    n, iv = 61, 10.0
    rnd = random.Random(8395)
    reqs, t, rid = [], t0 - 120, 0
    while t < t0 + 600:
        t += rnd.uniform(5.0, 12.0)
        out = rnd.randint(100, 700)
        reqs.append(R(rid, t, rnd.randint(300, 1300), out, 5120, reason="stop")); rid += 1
    blocks = 23680
    cfg = Cfg(pool=blocks * 16, block=16, max_seqs=256, mnbt=32768, base=0.034, per_dec=0.0008, per_pf=0.00012,
              freeze_at=t0 + 152.3, stuck_step=0.5)
    s = Sim(cfg, reqs).run(t0 + 600)
    root = "/models/Qwen2-72B-Instruct"
    cc = {"block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
          "gpu_memory_utilization": "0.9", "num_cpu_blocks": "3276", "num_gpu_blocks": str(blocks),
          "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space": "4"}
    st = t0 - 1500
    logs = [(st, f"INFO {ts(st)} api_server.py:459] vLLM API server version 0.6.0"),
            (st + .1, f"INFO {ts(st)} api_server.py:460] args: Namespace(host='0.0.0.0', port=8000, model='{root}', served_model_name=['Qwen72B'], "
                      "tensor_parallel_size=4, max_model_len=32768, gpu_memory_utilization=0.9, swap_space=4, block_size=16, enable_prefix_caching=False, max_num_seqs=256, disable_log_requests=False)"),
            (st + 3, f"INFO {ts(st + 3)} llm_engine.py:213] Initializing an LLM engine (v0.6.0) with config: model='{root}', speculative_config=None, tokenizer='{root}', "
                     "skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=4, "
                     "pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
                     "served_model_name=Qwen72B, use_v2_block_manager=False, num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=True)"),
            (st + 6, f"INFO {ts(st + 6)} multiproc_gpu_executor.py:56] Reducing Torch parallelism from 64 threads to 1 to avoid unnecessary CPU contention."),
            (st + 80, f"INFO {ts(st + 80)} model_runner.py:926] Loading model weights took 33.9268 GB"),
            (st + 95, f"INFO {ts(st + 95)} distributed_gpu_executor.py:57] # GPU blocks: {blocks}, # CPU blocks: 3276"),
            (st + 120, f"INFO {ts(st + 120)} model_runner.py:1335] Graph capturing finished in 24 secs."),
            (st + 122, f"INFO {ts(st + 122)} api_server.py:512] Starting vLLM API server on http://0.0.0.0:8000")]
    fmt = ("INFO {ts} metrics.py:351] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, "
           "Running: {run} reqs, Swapped: 0 reqs, Pending: {wait} reqs, GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%.")
    logs += [x for x in sim.stats_lines(s, t0 - 120, t0 + 600, 5.0, fmt) if x[1].find("Running: 0 reqs, Swapped: 0 reqs, Pending: 0") < 0]
    for r in reqs:
        if r.t_arr > t0 + 600:
            continue
        logs.append((r.t_arr + .001, f"INFO {ts(r.t_arr)} async_llm_engine.py:204] Added request chat-{r.rid:032x}."))
        if r.t_end > 0:
            logs.append((r.t_end + .001, f"INFO {ts(r.t_end)} async_llm_engine.py:172] Finished request chat-{r.rid:032x}."))
            logs.append((r.t_end + .002, f'INFO:     10.10.3.{20 + r.rid % 7}:{40000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    used = 74_212 * MiB
    gpu = [{"t": round(t0 + k * iv, 3), "devices": [{"index": d, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 81920 * MiB,
            "memory_used": used + 420 * MiB, "processes": [{"pid": 3101 + d, "name": "python3", "used_memory": used}]} for d in range(4)]} for k in range(n)]
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--served-model-name", "Qwen72B", "--tensor-parallel-size", "4",
            "--max-model-len", "32768", "--gpu-memory-utilization", "0.9", "--trust-remote-code"]
    mc = {"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu", "hidden_size": 8192, "intermediate_size": 29568,
          "max_position_embeddings": 32768, "max_window_layers": 80, "model_type": "qwen2", "num_attention_heads": 64,
          "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072,
          "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_sliding_window": False, "vocab_size": 152064}
    sim.write(ROOT / "cases" / cid / "bundle", s, t0, n, iv, V0T, {"model_name": "Qwen72B"}, cc, True, "Qwen72B",
              gen.server_json("0.6.0", "Qwen72B", root, 32768, int(st + 122)),
              {"argv": argv, "args": {"model": root, "served-model-name": "Qwen72B", "tensor-parallel-size": 4, "max-model-len": 32768,
                                      "gpu-memory-utilization": 0.9, "trust-remote-code": True}},
              logs, "Qwen72B chat service, TP=4 on one node; users report requests hanging; nvidia-smi shows GPU 0-2 at 100% util and GPU 3 at 0%, CPU at 100%.",
              "http://qwen72b-svc:8000", gpu=gpu, model_config=mc)
    return s


# ------------------------------------------------------------ 2: MiaAI-Lab/...#122 (holdout-15)
def glm_four_seqs():
    cid = "zzo-glm53-hybrid-90k-fixed-4seqs-preempt"
    t0 = utc(2026, 9, 3, 9, 0, 0)
    n, iv = 91, 10.0
    rnd = random.Random(122)
    reqs, t, rid = [], t0 - 300, 0
    while t < t0 + 900:
        t += rnd.uniform(9, 15)
        p = int(rnd.choice([rnd.uniform(2000, 9000), rnd.uniform(9000, 30000)]))
        reqs.append(R(rid, t, p, rnd.randint(300, 1500), 4096, reason="stop")); rid += 1
    pool = 356_667
    cfg = Cfg(pool=pool, block=1, max_seqs=4, mnbt=2048, fixed=89_000, fixed_after_prefill=True,
              base=0.03, per_dec=0.004, per_pf=0.00016)
    s = Sim(cfg, reqs).run(t0 + 900)
    pre = s.cum("pre", t0 + 900) - s.cum("pre", t0)
    return _glm_write(cid, s, t0, n, iv, pool, 4, "MiaAI GLM-5.3-Flash-EXL3 kit soak at MAX_NUM_SEQS=4 on 2x DGX Spark (TP 2), agent-style prompts.",
                      "GLM-5.3-Flash-EXL3", 0.78, pre)


def _glm_write(cid, s, t0, n, iv, pool, mns, notes, served, util, pre, kvmem=None):
    pid = 1
    mml = 262144
    cc = gen.tmpl_cc(V1T, gpu_memory_utilization=str(util), num_gpu_blocks=str(pool // 16), enable_prefix_caching="True",
                     **({"kv_cache_memory_bytes": str(kvmem)} if kvmem else {}))
    st = t0 - 1800
    root = f"/models/{served}"
    logs = [(st, f"(APIServer pid={pid}) INFO {ts(st)} [utils.py:299] vLLM server version 0.28.0 model {root}"),
            (st + 1, f"(APIServer pid={pid}) INFO {ts(st + 1)} [utils.py:233] non-default args: {{'model': '{root}', 'served_model_name': ['{served}'], "
                     f"'max_model_len': {mml}, 'max_num_seqs': {mns}, 'max_num_batched_tokens': 2048, 'tensor_parallel_size': 2, "
                     + (f"'kv_cache_memory_bytes': {kvmem}, " if kvmem else f"'gpu_memory_utilization': {util}, ") + "'speculative_config': {'method': 'dflash', 'num_speculative_tokens': 7}}"),
            (st + 400, f"(EngineCore pid=210) INFO {ts(st + 400)} [kv_cache_utils.py:1710] GPU KV cache size: {pool:,} tokens"),
            (st + 400.1, f"(EngineCore pid=210) INFO {ts(st + 400)} [kv_cache_utils.py:1711] Maximum concurrency for {mml:,} tokens per request: {pool / mml:.2f}x"),
            (st + 460, f"(APIServer pid={pid}) INFO {ts(st + 460)} [api_server.py:1090] Starting vLLM server on http://0.0.0.0:8000")]
    logs += sim.stats_lines(s, t0 - 300, t0 + (n - 1) * iv, 10.0, v1_stats_fmt(pid))
    for r in s.reqs:
        if r.t_end > 0 and r.t_end <= t0 + (n - 1) * iv:
            logs.append((r.t_end + .002, f'(APIServer pid={pid}) INFO:     10.0.0.{5 + r.rid % 3}:{50000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    argv = ["vllm", "serve", root, "--served-model-name", served, "--max-model-len", str(mml), "--max-num-seqs", str(mns),
            "--max-num-batched-tokens", "2048", "--tensor-parallel-size", "2"] + (["--kv-cache-memory", str(kvmem)] if kvmem else ["--gpu-memory-utilization", str(util)])
    a, i = {"model": root}, 3
    while i < len(argv):
        v = argv[i + 1]
        a[argv[i][2:]] = int(v) if v.isdigit() else (float(v) if v.replace(".", "", 1).isdigit() else v); i += 2
    sim.write(ROOT / "cases" / cid / "bundle", s, t0, n, iv, V1T, {"engine": "0", "model_name": served}, cc, False, served,
              gen.server_json("0.28.0", served, root, mml, int(st + 460)), {"argv": argv, "args": a}, logs, notes,
              "http://spark-head:8000")
    print(cid, "preemptions in window", pre)
    return s


# ------------------------------------------------------------ 3: tonyd2wild/...#14 (holdout-15)
def glm_two_long():
    cid = "zzo-glm53-two-114k-streams-3gib-pool"
    t0 = utc(2026, 9, 2, 20, 0, 0)
    n, iv = 33, 10.0
    rnd = random.Random(14)
    pool = 310_292
    reqs, rid = [], 0
    t = t0 - 80
    for k in range(9):
        for j in range(2):
            reqs.append(R(rid, t + j * 0.2, 113_918 + rnd.randint(-40, 40), 250, 250, reason="length")); rid += 1
        t += 165
    cfg = Cfg(pool=pool, block=1, max_seqs=4, mnbt=2048, fixed=41_100, base=0.03, per_dec=0.02, per_pf=0.00036)
    s = Sim(cfg, reqs).run(t0 + 330)
    pre = s.cum("pre", t0 + 320) - s.cum("pre", t0)
    # closed loop: the client sends the next pair only when the previous pair has finished
    return _glm_write(cid, s, t0, n, iv, pool, 4, "GLM-5.3-Flash-NVFP4-DFlash2 kit on 2x DGX Spark, shipped KV 3 GiB; C2 test: two ~114k-token prompts at a time, 250 completion tokens forced, temperature 0.",
                      "GLM-5.3-Flash-NVFP4", 0.9, pre, kvmem=3221225472)


# ------------------------------------------------------------ 4: vllm-ascend#16315 (holdout-15)
def ascend_livelock():
    cid = "zzo-ascend-async-deferred-free-thrash"
    t0 = utc(2026, 8, 20, 3, 9, 0)
    n, iv = 61, 10.0
    rnd = random.Random(16315)
    reqs, rid = [], 0
    for k in range(16):
        reqs.append(R(rid, t0 - 540 + k * 0.5, rnd.randint(150, 260), rnd.randint(4000, 24000), 32768, reason="stop")); rid += 1
    t = t0 - 540
    while t < t0 + 600:
        t += rnd.uniform(40, 65)
        reqs.append(R(rid, t, rnd.randint(150, 260), rnd.randint(4000, 24000), 32768, reason="stop")); rid += 1
    pool = 204_800
    cfg = Cfg(pool=pool, block=128, max_seqs=256, mnbt=8192, base=0.03, per_dec=0.001, per_pf=0.00005,
              livelock_at=t0 + 240.4, stuck_step=0.4)
    s = Sim(cfg, reqs).run(t0 + 600)
    pid = 7
    served = "minimax-m3"
    root = "/mnt/share/MiniMax-M3-MXFP8"
    cc = gen.tmpl_cc(V1T, gpu_memory_utilization="0.92", num_gpu_blocks=str(pool // 128), block_size="128", enable_prefix_caching="True")
    st = t0 - 1500
    ktc = '{"kv_connector": "AscendStoreConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"backend": "mooncake", "lookup_rpc_port": "0"}}'
    logs = [(st, f"(APIServer pid={pid}) INFO {ts(st)} [utils.py:299] vLLM server version 0.28.0 model {root}"),
            (st + 1, f"(APIServer pid={pid}) INFO {ts(st + 1)} [utils.py:233] non-default args: {{'model': '{root}', 'tensor_parallel_size': 4, 'data_parallel_size': 2, "
                     f"'gpu_memory_utilization': 0.92, 'async_scheduling': True, 'kv_transfer_config': {ktc}}}"),
            (st + 500, f"(EngineCore_DP0 pid=301) INFO {ts(st + 500)} [kv_cache_utils.py:1710] GPU KV cache size: {pool:,} tokens"),
            (st + 500.1, f"(EngineCore_DP0 pid=301) INFO {ts(st + 500)} [kv_cache_utils.py:1711] Maximum concurrency for 196,608 tokens per request: {pool / 196608:.2f}x"),
            (st + 560, f"(APIServer pid={pid}) INFO {ts(st + 560)} [api_server.py:1090] Starting vLLM server on http://0.0.0.0:8000")]
    logs += sim.stats_lines(s, t0 - 540, t0 + 600, 10.0, v1_stats_fmt(pid))
    for r in s.reqs:
        if 0 < r.t_end <= t0 + 600:
            logs.append((r.t_end + .002, f'(APIServer pid={pid}) INFO:     127.0.0.1:{45000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    argv = ["vllm", "serve", root, "--served-model-name", served, "--tensor-parallel-size", "4", "--data-parallel-size", "2",
            "--gpu-memory-utilization", "0.92", "--async-scheduling", "--kv-transfer-config", ktc]
    args = {"served-model-name": served, "tensor-parallel-size": 4, "data-parallel-size": 2, "gpu-memory-utilization": 0.92,
            "async-scheduling": True, "kv-transfer-config": ktc}
    sim.write(ROOT / "cases" / cid / "bundle", s, t0, n, iv, V1T, {"engine": "0", "model_name": served}, cc, False, served,
              gen.server_json("0.28.0", served, root, 196608, int(st + 560)), {"argv": argv, "args": args}, logs,
              "vllm-ascend on Ascend A5 (TP4 x DP2), Mooncake KV pool, async scheduling on; evalscope AIME2025 x4 (120 questions); scraped from DP engine 0's metrics.",
              "http://a5-node:8000")
    print(cid, "preemptions before/after lock", s.cum("pre", t0 + 240), s.cum("pre", t0 + 600), "gen", s.cum("gen", t0 + 240), s.cum("gen", t0 + 600))
    return s


if __name__ == "__main__":
    want = sys.argv[1:] or ["qwen72b_hang", "glm_four_seqs", "glm_two_long", "ascend_livelock"]
    for w in want:
        globals()[w]()
