"""zym-dsv4-ascend-264-seqs-graph-ceiling: DeepSeek-V4-Flash-w8a8-mtp on 8x Ascend 910B2 (TP8),
MTP k=1, FULL_DECODE_ONLY graphs captured up to 512 tokens; a closed-loop client at 256 then 264
concurrent streams (vllm-ascend issue 14440). Imitates vLLM 0.23.0 V1 metrics and log lines."""
import json
from common import Engine, epoch, log_lines, models_body, stamp, write_bundle

CID = "zym-dsv4-ascend-264-seqs-graph-ceiling"
MODEL = "dsv4"
PATH = "/data/models/DeepSeek-V4-Flash-w8a8-mtp"
MML = 133120
BLOCKS = 15600
BS = 128
T0 = epoch(2026, 8, 19, 6, 0)
DT = 10.0
PROMPT, OUT = 1000, 2000
ACC = 0.80
STEP_A, STEP_B = 0.095, 0.330
HIT = 896 / 1000          # same prompt: 7 full blocks of 128 cached, the tail recomputed
PID = 1187

cache_info = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False",
              "cpu_offload_gb": "0", "enable_prefix_caching": "True",
              "gpu_memory_utilization": "0.9", "is_attention_free": "False",
              "num_cpu_blocks": "None", "num_gpu_blocks": str(BLOCKS),
              "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
              "sliding_window": "None", "swap_space": "0", "swap_space_bytes": "0"}
eng = Engine(MODEL, MML, cache_info, num_spec=1, seed=14440)


def blocks_for(n):
    # closed loop: contexts spread evenly from PROMPT to PROMPT+OUT tokens
    per = sum(-(-(PROMPT + i * OUT // 20) // BS) for i in range(21)) / 21
    return n * per


scrapes, logs = [], []
caps = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 513, 16))
cap_list = sorted(caps, reverse=True)
boot = T0 - 19 * 60
logs += [
    f"(APIServer pid={PID}) INFO {stamp(boot)} [api_server.py:1896] vLLM API server version 0.23.0",
    f"(APIServer pid={PID}) INFO {stamp(boot)} [utils.py:328] non-default args: {{'model_tag': '{PATH}', 'port': 8900, "
    f"'model': '{PATH}', 'tokenizer_mode': 'deepseek_v4', 'max_model_len': {MML}, 'quantization': 'ascend', "
    f"'served_model_name': ['{MODEL}'], 'tensor_parallel_size': 8, 'data_parallel_size': 1, 'enable_expert_parallel': True, "
    f"'block_size': 128, 'gpu_memory_utilization': 0.9, 'max_num_batched_tokens': 8192, 'max_num_seqs': 264, "
    f"'async_scheduling': True, 'speculative_config': {{'num_speculative_tokens': 1, 'method': 'mtp', 'enforce_eager': True}}, "
    f"'compilation_config': {{'cudagraph_mode': 'FULL_DECODE_ONLY'}}}}",
    f"(EngineCore_DP0 pid={PID + 120}) INFO {stamp(boot + 40)} [core.py:93] Initializing a V1 LLM engine (v0.23.0) with config: "
    f"model='{PATH}', speculative_config=SpeculativeConfig(method='mtp', model='{PATH}', num_spec_tokens=1), "
    f"dtype=torch.bfloat16, max_seq_len={MML}, tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, "
    f"quantization=ascend, enforce_eager=False, kv_cache_dtype=auto, device_config=npu, served_model_name={MODEL}, "
    f"enable_prefix_caching=True, enable_chunked_prefill=True, compilation_config={{'level': 0, 'cudagraph_mode': "
    f"<CUDAGraphMode.FULL_DECODE_ONLY: (2, 0)>, 'cudagraph_capture_sizes': {cap_list}, 'max_cudagraph_capture_size': 512}}",
    f"(EngineCore_DP0 pid={PID + 120}) INFO {stamp(boot + 610)} [kv_cache_utils.py:1087] GPU KV cache size: {BLOCKS * BS:,} tokens",
    f"(EngineCore_DP0 pid={PID + 120}) INFO {stamp(boot + 610)} [kv_cache_utils.py:1091] Maximum concurrency for {MML:,} tokens per request: {BLOCKS * BS / MML:.2f}x",
    f"(EngineCore_DP0 pid={PID + 120}) INFO {stamp(boot + 700)} [acl_graph.py:118] Capturing ACL graphs (decode, FULL): {len(caps)}/{len(caps)} sizes, largest {max(caps)} tokens",
    f"(EngineCore_DP0 pid={PID + 120}) INFO {stamp(boot + 760)} [core.py:214] init engine (profile, create kv cache, warmup model) took 718.42 seconds",
    f"(APIServer pid={PID}) INFO {stamp(boot + 765)} [loggers.py:153] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {BLOCKS}",
    f"(APIServer pid={PID}) INFO {stamp(boot + 770)} [api_server.py:1965] Starting vLLM API server 0 on http://0.0.0.0:8900",
]

for i in range(61):
    t = T0 + i * DT
    if i == 0:
        eng.running, eng.kv = 256, blocks_for(256) / BLOCKS
        # warm state: the client had been running at 256 for ~5 minutes before the capture
        r = eng.step(300.0, running=256, waiting=0, kv=blocks_for(256) / BLOCKS, step_s=STEP_A,
                     accept_rate=ACC, new_reqs=73, prompt_len=PROMPT, ttft_s=0.21, fin_reqs=73,
                     out_len=OUT, max_tokens=OUT, dec_s=(OUT - 1) / (1.8 / STEP_A), prefill_hit=HIT,
                     prefill_tokens_per_step=104)
        scrapes.append({"t": t, "status": 200, "text": eng.text()})
        continue
    tb = t - DT
    if tb < T0 + 240:
        n, st, ttft = 256, STEP_A, 0.21
        rate = 256 * (1.8 / STEP_A) / OUT
        dec = (OUT - 1) / (1.8 / STEP_A)
    else:
        n, st, ttft = 264, STEP_B, 0.74
        rate = 264 * (1.8 / STEP_B) / OUT
        since = t - (T0 + 240)
        b_tok = since * 1.8 / STEP_B
        dec = since + max(OUT - b_tok, 0) / (1.8 / STEP_A) if b_tok < OUT else (OUT - 1) / (1.8 / STEP_B)
    extra = 8 if abs(tb - (T0 + 240)) < 1e-6 else 0
    fin = eng._int("finrate", rate * DT)
    kv = blocks_for(n) / BLOCKS
    r = eng.step(DT, running=n, waiting=0, kv=kv, step_s=st, accept_rate=ACC, new_reqs=fin + extra,
                 prompt_len=PROMPT, ttft_s=ttft, fin_reqs=fin, out_len=OUT, max_tokens=OUT, dec_s=dec,
                 prefill_hit=HIT, prefill_tokens_per_step=104)
    scrapes.append({"t": t, "status": 200, "text": eng.text()})
    logs += log_lines(t, PID, 0, DT, r, n, 0, kv, HIT, spec=[ACC], k=1)

engine_args = {"argv": ["vllm", "serve", PATH, "--max-model-len", str(MML), "--max-num-batched-tokens", "8192",
                        "--served-model-name", MODEL, "--gpu-memory-utilization", "0.9", "--max-num-seqs", "264",
                        "--data-parallel-size", "1", "--tensor-parallel-size", "8", "--enable-expert-parallel",
                        "--tokenizer-mode", "deepseek_v4", "--tool-call-parser", "deepseek_v4",
                        "--enable-auto-tool-choice", "--reasoning-parser", "deepseek_v4",
                        "--quantization", "ascend", "--port", "8900", "--block-size", "128",
                        "--speculative-config", '{"num_speculative_tokens": 1,"method": "mtp","enforce_eager": true}',
                        "--compilation-config", '{"cudagraph_mode": "FULL_DECODE_ONLY"}', "--async-scheduling",
                        "--additional-config", '{"ascend_compilation_config":{"enable_npugraph_ex":true,"enable_static_kernel":false},"enable_cpu_binding": true,"enable_dsa_cp": true,"multistream_overlap_shared_expert":true}'],
               "args": {"model": PATH, "max-model-len": MML, "max-num-batched-tokens": 8192,
                        "served-model-name": MODEL, "gpu-memory-utilization": 0.9, "max-num-seqs": 264,
                        "data-parallel-size": 1, "tensor-parallel-size": 8, "enable-expert-parallel": True,
                        "quantization": "ascend", "block-size": 128,
                        "speculative-config": {"num_speculative_tokens": 1, "method": "mtp", "enforce_eager": True},
                        "compilation-config": {"cudagraph_mode": "FULL_DECODE_ONLY"}, "async-scheduling": True}}
write_bundle(CID, endpoint="http://npu-node-01:8900", started_at=T0, interval_s=DT,
             notes="Load test with a closed-loop client: 256 concurrent streams, then 264 from minute 4.",
             scrapes=scrapes, server={"version": "0.23.0", "models": models_body(MODEL, PATH, MML, int(T0) - 1200),
                                      "health": 200},
             engine_args=engine_args, logs="\n".join(logs) + "\n")
print("ok")
