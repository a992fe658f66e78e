"""Bundle for zyo-ascend-qwen25vl-mm-cache-runtime-oom (vllm-ascend #5262): Qwen2.5-VL-7B on one
Ascend NPU; unprofiled multimodal memory grows ~0.1 GB per batch of image requests until NPU OOM."""
import os, sys, calendar, time, random
sys.path.insert(0, os.path.dirname(__file__))
from common import write_json, write_jsonl, manifest, engine_args
from v1metrics011 import V1Metrics011

D = os.path.join(os.path.dirname(__file__), "..", "..", "zyo-ascend-qwen25vl-mm-cache-runtime-oom", "bundle")
os.makedirs(D, exist_ok=True)
rnd = random.Random(5262)
MODEL = "/models/Qwen2.5-VL-7B-Instruct"
SERVED = "qwen2.5-vl-7b"
GiB = 2 ** 30
T_START = calendar.timegm((2025, 12, 22, 9, 40, 5))
T0 = calendar.timegm((2025, 12, 22, 10, 2, 0))
T1 = T0 + 600
INTERVAL = 10.0
LOAD_AT = T0 + 30.0

tot, util, w, act, nt = 60.96, 0.9, 15.65, 2.10, 0.90
budget = tot * util
kv_gib = budget - w - act - nt
per_tok = 2 * 28 * 4 * 128 * 2
BLK = 128
blocks = int(kv_gib * GiB // (per_tok * BLK))
pool = blocks * BLK
LEAK = 0.1e9 / GiB          # ~0.1 GB per loop iteration (quoted rate)
runtime_rsv = 0.45          # CANN runtime / HCCL outside torch
free0 = tot - budget - runtime_rsv

argv = ["vllm", "serve", MODEL, "--served-model-name", SERVED, "--max-model-len", "16384",
        "--gpu-memory-utilization", "0.9", "--max-num-batched-tokens", "8192", "--port", "8000"]
engine_args(D, argv)
write_json(os.path.join(D, "server.json"), {"version": {"version": "0.11.0"}, "models": {"object": "list", "data": [
    {"id": SERVED, "object": "model", "created": int(T0), "owned_by": "vllm", "root": MODEL, "parent": None,
     "max_model_len": 16384, "permission": []}]}, "health": 200})
write_json(os.path.join(D, "model_config.json"), {
    "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "vision_start_token_id": 151652, "vision_end_token_id": 151653,
    "vision_token_id": 151654, "image_token_id": 151655, "video_token_id": 151656, "hidden_act": "silu",
    "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 128000,
    "max_window_layers": 28, "model_type": "qwen2_5_vl", "num_attention_heads": 28, "num_hidden_layers": 28,
    "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.41.2", "use_cache": True,
    "use_sliding_window": False, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420,
                      "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14,
                      "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                      "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2, "temporal_patch_size": 2},
    "vocab_size": 152064})

cache_info = {"block_size": str(BLK), "gpu_memory_utilization": "0.9", "swap_space": "4", "cache_dtype": "auto",
              "is_attention_free": "False", "num_gpu_blocks_override": "None", "sliding_window": "None",
              "enable_prefix_caching": "True", "prefix_caching_hash_algo": "sha256", "cpu_offload_gb": "0",
              "calculate_kv_scales": "False", "kv_sharing_fast_prefill": "False", "kv_cache_memory_bytes": "None",
              "num_gpu_blocks": str(blocks), "num_cpu_blocks": "None"}
M = V1Metrics011(SERVED, 16384, cache_info)

def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))

rows, logs = [], []
scrapes = [T0 + INTERVAL * i for i in range(int((T1 - T0) / INTERVAL) + 1)]
si = 0
state = {"running": [], "win_p": 0, "win_g": 0, "last_log": T0 - 8.0}

def snap(t):
    run = state["running"]
    M.running = len(run); M.waiting = 0
    M.kv = sum((r["p"] + r["done"] + BLK - 1) // BLK for r in run) / blocks
    rows.append({"t": t, "status": 200, "text": M.text()})

def advance_to(t):
    global si
    while si < len(scrapes) and scrapes[si] <= t:
        snap(scrapes[si]); si += 1
    while state["last_log"] + 10.0 <= t:
        state["last_log"] += 10.0
        lt = state["last_log"]
        if state["win_p"] or state["win_g"] or lt < LOAD_AT + 20:
            used = sum((r["p"] + r["done"] + BLK - 1) // BLK for r in state["running"])
            if state["win_p"] or state["win_g"]:
                logs.append((lt, "(APIServer pid=3112) INFO %s [loggers.py:127] Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%"
                             % (ts(lt), state["win_p"] / 10.0, state["win_g"] / 10.0, len(state["running"]), 100.0 * used / blocks,
                                100.0 * M.ph / M.pq if M.pq else 0.0)))
        state["win_p"] = state["win_g"] = 0

now = T0
advance_to(LOAD_AT)
now = LOAD_AT
it = 0
crash_t = None
while True:
    # one client loop iteration: 8 image+text chat requests at once
    it += 1
    batch = [{"arr": now, "p": rnd.randint(1020, 1320) + rnd.randint(40, 90), "o": rnd.randint(120, 200),
              "maxtok": 256, "done": 0, "pre": False} for _ in range(8)]
    state["running"] = list(batch)
    for r in batch:
        M.pq += r["p"]
    free = free0 - LEAK * (it - 1)
    if free < 1.04:        # encoder step of this batch cannot get its buffer
        crash_t = now + 0.41
        advance_to(crash_t)
        break
    pending = list(batch)
    t = now
    while pending:  # prefill (chunked, 8192 tokens / step), encoder runs per image in the step
        budget_tok, step = 8192, []
        for r in list(pending):
            if r["p"] <= budget_tok:
                step.append(r); budget_tok -= r["p"]; pending.remove(r)
            else:
                break
        if not step:
            step = [pending.pop(0)]
        tok = sum(r["p"] for r in step)
        dt = 0.055 + 0.065 * len(step) + 0.000045 * tok + rnd.uniform(0, 0.01)
        advance_to(t)
        t += dt
        M.h_iter.obs(tok + 0)
        M.prompt += tok; state["win_p"] += tok
        for r in step:
            r["pre"] = True; r["ttft"] = t; r["done"] = 1; r["last"] = t
            M.h_ttft.obs(t - r["arr"]); M.h_queue.obs(0.004)
            M.gen += 1; state["win_g"] += 1
    live = [r for r in batch]
    while live:
        n = len(live)
        dt = 0.027 + 0.0004 * n + rnd.uniform(0, 0.002)
        advance_to(t)
        t += dt
        M.h_iter.obs(n)
        fin = []
        for r in live:
            r["done"] += 1
            M.h_itl.obs(t - r["last"]); M.h_tpot.obs(t - r["last"]); r["last"] = t
            M.gen += 1; state["win_g"] += 1
            if r["done"] >= r["o"]:
                fin.append(r)
        for r in fin:
            live.remove(r); state["running"].remove(r)
            M.success["stop"] += 1
            M.h_e2e.obs(t - r["arr"]); M.h_inf.obs(t - r["arr"] - 0.004)
            M.h_prefill.obs(r["ttft"] - r["arr"]); M.h_decode.obs(t - r["ttft"])
            M.h_prompt.obs(r["p"]); M.h_gen.obs(r["done"]); M.h_maxgen.obs(r["maxtok"])
            M.h_n.obs(1); M.h_maxtok.obs(r["maxtok"])
            logs.append((t, '(APIServer pid=3112) INFO:     10.20.0.15:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK' % rnd.randint(30000, 60000)))
    now = t + rnd.uniform(0.8, 1.2)

# after the crash: the API server goes down, scrapes fail
for tt in scrapes[si:]:
    rows.append({"t": tt, "error": "GET http://127.0.0.1:8000/metrics: connection refused ([Errno 111] Connection refused)"})
write_jsonl(os.path.join(D, "metrics.jsonl"), rows)

alloc = w + kv_gib + LEAK * (it - 1) + 1.17
reserved = alloc + 2.09
S = T_START
E = "(EngineCore_DP0 pid=3340)"
head = [
 f"(APIServer pid=3112) INFO {ts(S)} [api_server.py:1839] vLLM API server version 0.11.0",
 f"(APIServer pid=3112) INFO {ts(S)} [utils.py:233] non-default args: {{'model_tag': '{MODEL}', 'port': 8000, 'model': '{MODEL}', 'max_model_len': 16384, 'served_model_name': ['{SERVED}'], 'gpu_memory_utilization': 0.9, 'max_num_batched_tokens': 8192}}",
 f"(APIServer pid=3112) INFO {ts(S+1)} [platform.py:159] Platform npu is activated (vllm-ascend 0.11.0rc0).",
 f"(APIServer pid=3112) INFO {ts(S+9)} [model.py:547] Resolved architecture: Qwen2_5_VLForConditionalGeneration",
 f"(APIServer pid=3112) INFO {ts(S+9)} [model.py:1510] Using max model len 16384",
 f"(APIServer pid=3112) INFO {ts(S+9)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.",
 f"{E} INFO {ts(S+15)} [core.py:644] Waiting for init message from front-end.",
 f"{E} INFO {ts(S+15)} [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=True, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=npu, served_model_name={SERVED}, enable_prefix_caching=True, chunked_prefill_enabled=True, ...",
 f"{E} INFO {ts(S+19)} [model_runner_v1.py:2602] Starting to load model {MODEL}...",
 f"{E} INFO {ts(S+31)} [model_runner_v1.py:2636] Loading model weights took {w:.4f} GB",
 f"{E} INFO {ts(S+52)} [worker_v1.py:228] Available memory: {kv_gib*GiB:.0f}, total memory: {tot*GiB:.0f}",
 f"{E} INFO {ts(S+52)} [kv_cache_utils.py:1087] GPU KV cache size: {pool:,} tokens",
 f"{E} INFO {ts(S+52)} [kv_cache_utils.py:1091] Maximum concurrency for 16,384 tokens per request: {pool/16384:.2f}x",
 f"{E} INFO {ts(S+81)} [model_runner_v1.py:3296] Graph capturing finished in 29 secs, took 0.41 GiB",
 f"{E} INFO {ts(S+81)} [core.py:210] init engine (profile, create kv cache, warmup model) took 50.12 seconds",
 f"(APIServer pid=3112) INFO {ts(S+83)} [api_server.py:1634] Supported_tasks: ['generate']",
 f"(APIServer pid=3112) INFO {ts(S+83)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8000",
 "(APIServer pid=3112) INFO:     Started server process [3112]",
 "(APIServer pid=3112) INFO:     Waiting for application startup.",
 "(APIServer pid=3112) INFO:     Application startup complete.",
 "...",
]
C = crash_t
tail = [
 f"{E} ERROR {ts(C)} [core.py:710] EngineCore encountered a fatal error.",
 f"{E} ERROR {ts(C)} [core.py:710] Traceback (most recent call last):",
 f"{E} ERROR {ts(C)} [core.py:710]   File \"/usr/local/python3.11.13/lib/python3.11/site-packages/vllm/v1/engine/core.py\", line 701, in run_engine_core",
 f"{E} ERROR {ts(C)} [core.py:710]     engine_core.run_busy_loop()",
 f"{E} ERROR {ts(C)} [core.py:710]   File \"/usr/local/python3.11.13/lib/python3.11/site-packages/vllm/v1/engine/core.py\", line 289, in step",
 f"{E} ERROR {ts(C)} [core.py:710]     model_output = self.execute_model_with_error_logging(",
 f"{E} ERROR {ts(C)} [core.py:710]   File \"/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py\", line 1871, in execute_model",
 f"{E} ERROR {ts(C)} [core.py:710]     self._execute_mm_encoder(scheduler_output)",
 f"{E} ERROR {ts(C)} [core.py:710]   File \"/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py\", line 1042, in _execute_mm_encoder",
 f"{E} ERROR {ts(C)} [core.py:710]     curr_group_outputs = self.model.get_multimodal_embeddings(**mm_kwargs_group)",
 f"{E} ERROR {ts(C)} [core.py:710]   File \"/vllm-workspace/vllm-ascend/vllm_ascend/models/qwen2_5_vl.py\", line 508, in forward",
 f"{E} ERROR {ts(C)} [core.py:710]     x = x + self.attn(",
 f"{E} ERROR {ts(C)} [core.py:710] RuntimeError: NPU out of memory. Tried to allocate 1.04 GiB (NPU 0; {tot:.2f} GiB total capacity; {alloc:.2f} GiB already allocated; {alloc:.2f} GiB current active; {tot - reserved - runtime_rsv + 0.0:.2f} GiB free; {reserved:.2f} GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.",
 f"(APIServer pid=3112) ERROR {ts(C)} [async_llm.py:480] AsyncLLM output_handler failed.",
 f"(APIServer pid=3112) ERROR {ts(C)} [async_llm.py:480] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
]
for k in range(8):
    tail.append(f"(APIServer pid=3112) INFO:     10.20.0.15:{rnd.randint(30000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error")
tail += ["(APIServer pid=3112) INFO:     Shutting down", "(APIServer pid=3112) INFO:     Waiting for application shutdown.",
         "(APIServer pid=3112) INFO:     Application shutdown complete.", "(APIServer pid=3112) INFO:     Finished server process [3112]"]
logs.sort(key=lambda x: x[0])
with open(os.path.join(D, "logs.txt"), "w") as f:
    f.write("\n".join(head + [l for _, l in logs if l] + tail) + "\n")

manifest(D, "http://127.0.0.1:8000", T0, T1, INTERVAL,
         "vLLM 0.11.0 + vllm-ascend 0.11.0rc0, Qwen2.5-VL-7B-Instruct on one Ascend 910B2 (64 GB). A benchmark loop sends batches of 8 image+text requests from 10:02:30. npu-smi (no NVML on this host): HBM use ~54 GB before the load, then rising ~0.1 GB per batch and never coming back down, until the engine died.")
print("budget %.2f kv %.2f blocks %d pool %d conc %.2f free0 %.2f iters %d crash at T0+%.0f alloc %.2f reserved %.2f free %.2f"
      % (budget, kv_gib, blocks, pool, pool / 16384, free0, it, crash_t - T0, alloc, reserved, tot - reserved - runtime_rsv))
