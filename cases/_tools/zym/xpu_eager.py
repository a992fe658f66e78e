"""zym-xpu-b60-eager-half-speed: Muse-Glimmer-30B on 4x Arc Pro B60 (TP4, FP8 weights + FP8 KV) with
--enforce-eager, one stream at ~17 tok/s (intel/llm-scaler issue 607). Imitates vLLM 0.27 V1."""
from common import Engine, epoch, log_lines, models_body, stamp, write_bundle

CID = "zym-xpu-b60-eager-half-speed"
MODEL = "meta-muse/Muse-Glimmer-30B"
SERVED = "muse-glimmer"
MML = 65536
BS = 64
BLOCKS = 6400
T0 = epoch(2026, 8, 12, 14, 30)
DT = 10.0
STEP = 1 / 17.15
PROMPT, OUT = 600, 500
PID = 40412
cache_info = {"block_size": str(BS), "cache_dtype": "fp8", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True",
              "gpu_memory_utilization": "0.9", "is_attention_free": "False",
              "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS),
              "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256_cbor",
              "sliding_window": "None", "swap_space": "0", "swap_space_bytes": "0"}
eng = Engine(SERVED, MML, cache_info, seed=607)
boot = T0 - 9 * 60
logs = [
    f"(APIServer pid={PID}) INFO {stamp(boot)} [api_server.py:1890] vLLM API server version 0.27.2.dev0",
    f"(APIServer pid={PID}) INFO {stamp(boot)} [utils.py:326] non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', "
    f"'dtype': 'float16', 'max_model_len': {MML}, 'quantization': 'fp8', 'enforce_eager': True, "
    f"'served_model_name': ['{SERVED}'], 'tensor_parallel_size': 4, 'kv_cache_dtype': 'fp8'}}",
    f"(EngineCore pid={PID + 311}) INFO {stamp(boot + 20)} [core.py:98] Initializing a V1 LLM engine (v0.27.2.dev0) with config: "
    f"model='{MODEL}', speculative_config=None, dtype=torch.float16, max_seq_len={MML}, tensor_parallel_size=4, "
    f"pipeline_parallel_size=1, quantization=fp8, enforce_eager=True, kv_cache_dtype=fp8, device_config=xpu, "
    f"served_model_name={SERVED}, enable_prefix_caching=True, enable_chunked_prefill=True, "
    f"compilation_config={{'level': 0, 'cudagraph_mode': <CUDAGraphMode.NONE: 0>, 'cudagraph_capture_sizes': []}}",
    f"(EngineCore pid={PID + 311}) INFO {stamp(boot + 250)} [kv_cache_utils.py:1151] GPU KV cache size: {BLOCKS * BS:,} tokens",
    f"(EngineCore pid={PID + 311}) INFO {stamp(boot + 250)} [kv_cache_utils.py:1155] Maximum concurrency for {MML:,} tokens per request: {BLOCKS * BS / MML:.2f}x",
    f"(EngineCore pid={PID + 311}) INFO {stamp(boot + 262)} [core.py:240] init engine (profile, create kv cache, warmup model) took 231.50 seconds",
    f"(APIServer pid={PID}) INFO {stamp(boot + 270)} [api_server.py:1952] Starting vLLM API server 0 on http://0.0.0.0:8000",
]
scrapes = []
cycle = 0.25 + (OUT - 1) * STEP + 3.0
for i in range(61):
    t = T0 + i * DT
    if i == 0:
        eng.step(300.0, running=1, waiting=0, kv=0.0022, step_s=STEP, decode_frac=0.9, new_reqs=9,
                 prompt_len=PROMPT, ttft_s=0.24, fin_reqs=9, out_len=OUT, max_tokens=OUT,
                 dec_s=(OUT - 1) * STEP, prefill_hit=0.96, jitter=0.02)
        scrapes.append({"t": t, "status": 200, "text": eng.text()})
        continue
    fin = eng._int("fin", DT / cycle)
    frac = 1.0 - fin * 3.25 / DT
    running = 0 if (fin and eng.rng.random() < 0.3) else 1
    kv = running * -(-(PROMPT + eng.rng.randint(20, 480)) // BS) / BLOCKS
    r = eng.step(DT, running=1, waiting=0, kv=kv, step_s=STEP, decode_frac=frac, new_reqs=fin,
                 prompt_len=PROMPT, ttft_s=0.24, fin_reqs=fin, out_len=OUT, max_tokens=OUT,
                 dec_s=(OUT - 1) * STEP, prefill_hit=0.96, jitter=0.02)
    eng.running = running
    scrapes.append({"t": t, "status": 200, "text": eng.text()})
    logs += log_lines(t, PID, 0, DT, r, running, 0, kv, 0.96, logger_line=259)

engine_args = {"argv": ["vllm", "serve", MODEL, "--served-model-name", SERVED, "--tensor-parallel-size", "4",
                        "--quantization", "fp8", "--kv-cache-dtype", "fp8", "--dtype", "float16",
                        "--max-model-len", str(MML), "--enforce-eager"],
               "args": {"model": MODEL, "served-model-name": SERVED, "tensor-parallel-size": 4,
                        "quantization": "fp8", "kv-cache-dtype": "fp8", "dtype": "float16",
                        "max-model-len": MML, "enforce-eager": True}}
write_bundle(CID, endpoint="http://b60-box:8000", started_at=T0, interval_s=DT,
             notes="Single user, fixed prompt, 500-token answers; decode feels slow.",
             scrapes=scrapes, server={"version": "0.27.2.dev0",
                                      "models": models_body(SERVED, MODEL, MML, int(T0) - 300), "health": 200},
             engine_args=engine_args, logs="\n".join(logs) + "\n")
print("ok")
