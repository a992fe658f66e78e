"""zym-dspark-k7-past-block5: DeepSeek-V4-Flash-0731 on 2x DGX Spark (TP2 over Ray), DSpark with
num_speculative_tokens=7 > dspark_block_size=5 (vLLM PR 41834 thread). Imitates vLLM ~0.26 V1."""
from common import Engine, epoch, log_lines, models_body, stamp, write_bundle

CID = "zym-dspark-k7-past-block5"
MODEL = "deepseek-ai/DeepSeek-V4-Flash-0731"
MML = 262144
BS = 256
BLOCKS = 6292
T0 = epoch(2026, 8, 1, 9, 20)
DT = 10.0
POS = [0.181, 0.067, 0.039, 0.014, 0.009, 0.0, 0.0]
STEP = 0.046
PROMPT, OUT = 3000, 800
PID = 2231
cache_info = {"block_size": str(BS), "cache_dtype": "fp8", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True",
              "gpu_memory_utilization": "0.85", "is_attention_free": "False",
              "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS),
              "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256_cbor",
              "sliding_window": "None", "swap_space": "0", "swap_space_bytes": "0"}
eng = Engine(MODEL, MML, cache_info, num_spec=7, seed=41834)
boot = T0 - 14 * 60
logs = [
    f"(APIServer pid={PID}) INFO {stamp(boot)} [api_server.py:1885] vLLM API server version 0.26.1.dev212+gd64074e95",
    f"(APIServer pid={PID}) INFO {stamp(boot)} [utils.py:326] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', "
    f"'trust_remote_code': True, 'max_model_len': {MML}, 'tensor_parallel_size': 2, 'distributed_executor_backend': 'ray', "
    f"'gpu_memory_utilization': 0.85, 'kv_cache_dtype': 'fp8', 'max_num_seqs': 8, "
    f"'speculative_config': {{'method': 'dspark', 'num_speculative_tokens': 7, 'draft_sample_method': 'greedy'}}}}",
    f"(EngineCore pid={PID + 97}) INFO {stamp(boot + 30)} [core.py:98] Initializing a V1 LLM engine (v0.26.1.dev212+gd64074e95) with config: "
    f"model='{MODEL}', speculative_config=SpeculativeConfig(method='dspark', model='{MODEL}', num_spec_tokens=7), "
    f"tensor_parallel_size=2, pipeline_parallel_size=1, quantization=mxfp4, enforce_eager=False, kv_cache_dtype=fp8, "
    f"max_seq_len={MML}, served_model_name={MODEL}, enable_prefix_caching=True, enable_chunked_prefill=True",
    f"(EngineCore pid={PID + 97}) INFO {stamp(boot + 160)} [mxfp4.py:412] Using Marlin backend for MXFP4 MoE",
    f"(EngineCore pid={PID + 97}) INFO {stamp(boot + 530)} [kv_cache_utils.py:1151] GPU KV cache size: {BLOCKS * BS:,} tokens",
    f"(EngineCore pid={PID + 97}) INFO {stamp(boot + 530)} [kv_cache_utils.py:1155] Maximum concurrency for {MML:,} tokens per request: {BLOCKS * BS / MML:.2f}x",
    f"(EngineCore pid={PID + 97}) INFO {stamp(boot + 640)} [core.py:240] init engine (profile, create kv cache, warmup model) took 598.77 seconds",
    f"(APIServer pid={PID}) INFO {stamp(boot + 650)} [api_server.py:1952] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
scrapes = []
prev = [0] * 7
prev_d = 0
for i in range(61):
    t = T0 + i * DT
    if i == 0:
        eng.step(400.0, running=2, waiting=0, kv=0.004, step_s=STEP, pos_rates=POS, decode_frac=0.92,
                 new_reqs=24, prompt_len=PROMPT, ttft_s=1.45, fin_reqs=24, out_len=OUT, max_tokens=4096,
                 dec_s=(OUT - 1) / (1.31 / STEP), prefill_hit=0.5)
        prev, prev_d = list(eng.pos), eng.c["drafts"]
        scrapes.append({"t": t, "status": 200, "text": eng.text()})
        continue
    fin = eng._int("fin", 0.65)
    running = 1 if (fin and eng.rng.random() < 0.35) else 2
    frac = 1.0 - 0.135 * fin
    ctx = PROMPT + eng.rng.randint(100, 700)
    kv = running * -(-ctx // BS) / BLOCKS
    r = eng.step(DT, running=2, waiting=0, kv=kv, step_s=STEP, pos_rates=POS, decode_frac=frac,
                 new_reqs=fin, prompt_len=PROMPT, ttft_s=1.45, fin_reqs=fin, out_len=OUT, max_tokens=4096,
                 dec_s=(OUT - 1) / (1.31 / STEP), prefill_hit=0.5, jitter=0.05)
    eng.running = running
    d = eng.c["drafts"] - prev_d
    rates = [(eng.pos[j] - prev[j]) / d if d else 0 for j in range(7)]
    prev, prev_d = list(eng.pos), eng.c["drafts"]
    scrapes.append({"t": t, "status": 200, "text": eng.text()})
    logs += log_lines(t, PID, 0, DT, r, running, 0, kv, 0.5, spec=rates, k=7, logger_line=259, spec_line=118)

engine_args = {"argv": ["vllm", "serve", MODEL, "--trust-remote-code", "--tensor-parallel-size", "2",
                        "--distributed-executor-backend", "ray", "--max-model-len", str(MML),
                        "--gpu-memory-utilization", "0.85", "--kv-cache-dtype", "fp8", "--max-num-seqs", "8",
                        "--speculative-config",
                        '{"method": "dspark", "num_speculative_tokens": 7, "draft_sample_method": "greedy"}'],
               "args": {"model": MODEL, "tensor-parallel-size": 2, "distributed-executor-backend": "ray",
                        "max-model-len": MML, "gpu-memory-utilization": 0.85, "kv-cache-dtype": "fp8",
                        "max-num-seqs": 8,
                        "speculative-config": {"method": "dspark", "num_speculative_tokens": 7,
                                               "draft_sample_method": "greedy"}}}
write_bundle(CID, endpoint="http://spark-a:8000", started_at=T0, interval_s=DT,
             notes="Home lab, two streams of ordinary prose; DSpark enabled with the model card's spec config.",
             scrapes=scrapes, server={"version": "0.26.1.dev212+gd64074e95",
                                      "models": models_body(MODEL, MODEL, MML, int(T0) - 800), "health": 200},
             engine_args=engine_args, logs="\n".join(logs) + "\n")
print("ok")
