"""zym-dsv4pro-dp4-4k-prompt-stutter: DeepSeek-V4-Pro on 4 Atlas A2 nodes (DP4 x TP8),
--max-num-batched-tokens 4096, 10 streams with ~4,500-token prompts (vllm-ascend issue 10924).
Imitates vLLM 0.20.2 V1 metrics and log lines."""
from common import Engine, epoch, log_lines, merge_texts, models_body, stamp, write_bundle

CID = "zym-dsv4pro-dp4-4k-prompt-stutter"
MODEL = "DeepSeek-V4-Pro"
MML = 65536
BS = 128
BLOCKS = 5200
T0 = epoch(2026, 6, 25, 3, 10)
DT = 10.0
STEP, STALL1, STALL2 = 0.070, 1.2, 0.2
PROMPT, OUT = 4500, 1000
LAM = 0.119            # new prompts per second over all engines
RUN = [3, 3, 2, 2]
PID = 3391
cache_info = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True",
              "gpu_memory_utilization": "0.9", "is_attention_free": "False",
              "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS),
              "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
              "sliding_window": "None", "swap_space": "0", "swap_space_bytes": "0"}
engs = [Engine(MODEL, MML, cache_info, engine=str(e), seed=10924 + e) for e in range(4)]
boot = T0 - 40 * 60
logs = [
    f"(APIServer pid={PID}) INFO {stamp(boot)} [api_server.py:1880] vLLM API server version 0.20.2",
    f"(APIServer pid={PID}) INFO {stamp(boot)} [utils.py:326] non-default args: {{'model_tag': '/root/.cache', 'host': '0.0.0.0', "
    f"'port': 10010, 'model': '/root/.cache', 'max_model_len': {MML}, 'served_model_name': ['{MODEL}'], "
    f"'tensor_parallel_size': 8, 'data_parallel_size': 4, 'data_parallel_size_local': 1, 'data_parallel_start_rank': 0, "
    f"'gpu_memory_utilization': 0.9, 'max_num_batched_tokens': 4096, 'max_num_seqs': 40}}",
    f"(EngineCore_DP0 pid={PID + 88}) INFO {stamp(boot + 60)} [core.py:96] Initializing a V1 LLM engine (v0.20.2) with config: "
    f"model='/root/.cache', speculative_config=None, max_seq_len={MML}, tensor_parallel_size=8, pipeline_parallel_size=1, "
    f"data_parallel_size=4, enforce_eager=False, kv_cache_dtype=auto, device_config=npu, served_model_name={MODEL}, "
    f"enable_prefix_caching=True, enable_chunked_prefill=True",
    f"(EngineCore_DP0 pid={PID + 88}) INFO {stamp(boot + 1500)} [kv_cache_utils.py:1087] GPU KV cache size: {BLOCKS * BS:,} tokens",
    f"(EngineCore_DP0 pid={PID + 88}) INFO {stamp(boot + 1500)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {BLOCKS * BS / MML:.2f}x",
    f"(APIServer pid={PID}) INFO {stamp(boot + 1900)} [api_server.py:1950] Starting vLLM API server 0 on http://0.0.0.0:10010",
]
scrapes = []
acc = 0.0
for i in range(61):
    t = T0 + i * DT
    dt = 300.0 if i == 0 else DT
    acc += LAM * dt
    arrivals = int(acc)
    acc -= arrivals
    # spread the arrivals over the engines in proportion to their streams
    per = [0, 0, 0, 0]
    for a in range(arrivals):
        per[(i * 3 + a) % 4 if i else a % 4] += 1
    stall_s = arrivals * ((STALL1 - STEP) + (STALL2 - STEP))
    frac = max(0.0, 1.0 - stall_s / dt)
    rs = []
    for e, eng in enumerate(engs):
        run = RUN[e]
        ctx = PROMPT + eng.rng.randint(200, 800)
        kv = run * -(-ctx // BS) / BLOCKS
        r = eng.step(dt, running=run, waiting=0, kv=kv, step_s=STEP, decode_frac=frac,
                     new_reqs=per[e], prompt_len=PROMPT, ttft_s=1.55, fin_reqs=per[e], out_len=OUT,
                     max_tokens=2048, dec_s=(OUT - 1) * 0.081, prefill_hit=0.0, jitter=0.05,
                     prefill_tokens_per_step=0)
        # lockstep: every prompt on any rank gives each running stream one ~1.2 s and one ~0.2 s gap
        n_st = arrivals * run - per[e]
        eng.h["itl"].obs(STALL1 * (1 + eng.rng.uniform(-0.08, 0.08)), max(n_st, 0))
        eng.h["itl"].obs(STALL2 * (1 + eng.rng.uniform(-0.08, 0.08)), max(n_st, 0))
        eng.c["gen"] += 2 * max(n_st, 0)
        r["gen"] += 2 * max(n_st, 0)
        eng.h["iter"].obs(4096, per[e])
        eng.h["iter"].obs(PROMPT - 4096 + run, per[e])
        rs.append((r, run, kv))
    scrapes.append({"t": t, "status": 200, "text": merge_texts([e.text() for e in engs])})
    if i:
        for e, (r, run, kv) in enumerate(rs):
            logs += log_lines(t, PID, e, DT, r, run, 0, kv, 0.0, logger_line=258)

engine_args = {"argv": ["vllm", "serve", "/root/.cache", "--host", "0.0.0.0", "--port", "10010",
                        "--max_model_len", str(MML), "--max-num-batched-tokens", "4096",
                        "--served-model-name", MODEL, "--gpu-memory-utilization", "0.90",
                        "--max-num-seqs", "40", "--data-parallel-size", "4", "--tensor-parallel-size", "8",
                        "--data-parallel-size-local", "1", "--data-parallel-start-rank", "0"],
               "args": {"model": "/root/.cache", "max-model-len": MML, "max-num-batched-tokens": 4096,
                        "served-model-name": MODEL, "gpu-memory-utilization": 0.9, "max-num-seqs": 40,
                        "data-parallel-size": 4, "tensor-parallel-size": 8, "data-parallel-size-local": 1}}
write_bundle(CID, endpoint="http://a2-node0:10010", started_at=T0, interval_s=DT,
             notes="10 concurrent streaming clients, prompts above 4000 tokens; users report stutter.",
             scrapes=scrapes, server={"version": "0.20.2", "models": models_body(MODEL, "/root/.cache", MML, int(T0) - 600),
                                      "health": 200},
             engine_args=engine_args, logs="\n".join(logs) + "\n")
print("ok")
