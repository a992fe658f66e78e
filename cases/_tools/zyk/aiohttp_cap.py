"""zyk-aiohttp-100-cap-healthy: vLLM 0.5.4 (V0) serving Qwen2-7B-Instruct on one
A100-80GB; the client (aiohttp, default TCPConnector limit=100) never has more
than 100 requests open, so the server runs exactly 100 with nothing waiting.
Run from the worktree root: python cases/_tools/zyk/aiohttp_cap.py"""
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Hist, family, fmt, lbl, one_two_five, write_bundle  # noqa

OUT = "cases/zyk-aiohttp-100-cap-healthy/bundle"
MODEL = "Qwen/Qwen2-7B-Instruct"
T0 = 1723026000  # 2024-08-07 10:20:00 UTC
INTERVAL = 10
N_SCRAPES = 61
MAX_MODEL_LEN = 32768
NUM_GPU_BLOCKS = 62318
NUM_CPU_BLOCKS = 4681
BLOCK = 16
CONNS = 100
ITL = 0.030  # s per decode step at batch 100

rng = random.Random(7241)
L = {"model_name": MODEL}

ttft = Hist([0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0])
tpot = Hist([0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5])
e2e = Hist([1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0])
ptok = Hist(one_two_five(MAX_MODEL_LEN))
gtok = Hist(one_two_five(MAX_MODEL_LEN))
best_of = Hist([1, 2, 5, 10, 20])
nreq = Hist([1, 2, 5, 10, 20])
prompt_total = 0
gen_total = 0
success = {"stop": 0, "length": 0}


def new_req(now):
    p = max(300, int(rng.gauss(900, 180)))
    o = max(40, int(rng.gauss(300, 70)))
    return {"p": p, "o": o, "done": 0, "start": now, "pf": False}


# warm state: 100 requests already in flight at various stages
slots = []
for i in range(CONNS):
    r = new_req(T0 - 10)
    r["done"] = rng.randint(0, r["o"] - 1)
    r["pf"] = True
    r["start"] = T0 - 0.2 - r["done"] * ITL
    slots.append(r)

# cumulative counters already accumulated before the window (server up ~40 min)
pre_done = 2590
for _ in range(pre_done):
    p = max(300, int(rng.gauss(900, 180)))
    o = max(40, int(rng.gauss(300, 70)))
    prompt_total += p
    gen_total += o
    ptok.observe(p)
    gtok.observe(o)
    best_of.observe(1)
    nreq.observe(1)
    tt = min(0.6, max(0.05, rng.lognormvariate(math.log(0.14), 0.45)))
    ttft.observe(tt)
    e2e.observe(tt + o * ITL * rng.uniform(0.95, 1.05))
    tpot.observe(ITL, o - 1)
    success["stop" if rng.random() < 0.93 else "length"] += 1

scrapes, logs_metrics, gpu = [], [], []
usage_hist = []
TICK = 0.5
now = float(T0 - 10)
prompt_win = gen_win = 0
next_log = T0 - 5
for si in range(N_SCRAPES):
    t_scrape = T0 + si * INTERVAL
    while now < t_scrape:
        now += TICK
        steps = int(round(TICK / ITL))
        for k, r in enumerate(slots):
            if not r["pf"]:
                tt = min(0.6, max(0.05, rng.lognormvariate(math.log(0.14), 0.45)))
                ttft.observe(tt)
                r["pf"] = True
                r["ttft"] = tt
                prompt_total += r["p"]
                prompt_win += r["p"]
                r["done"] = 1
                gen_total += 1
                gen_win += 1
                continue
            adv = min(steps, r["o"] - r["done"])
            r["done"] += adv
            gen_total += adv
            gen_win += adv
            tpot.observe(ITL * rng.uniform(0.9, 1.15), adv)
            if r["done"] >= r["o"]:
                ptok.observe(r["p"])
                gtok.observe(r["o"])
                best_of.observe(1)
                nreq.observe(1)
                e2e.observe(now - r["start"])
                success["stop" if rng.random() < 0.93 else "length"] += 1
                slots[k] = new_req(now)  # client's next pooled request gets the freed connection
        while now >= next_log and next_log <= T0 + 600:
            ub = sum(math.ceil((r["p"] + r["done"]) / BLOCK) for r in slots) - (len(slots) - 1) * 12
            usage = ub / NUM_GPU_BLOCKS
            logs_metrics.append((next_log, prompt_win / 5.0, gen_win / 5.0, len(slots), usage))
            prompt_win = gen_win = 0
            next_log += 5
    running = len(slots)
    used_blocks = sum(math.ceil((r["p"] + r["done"]) / BLOCK) for r in slots)
    # shared system prompt (~200 tokens = 12 blocks) counted once with prefix caching
    used_blocks -= (running - 1) * 12
    usage = used_blocks / NUM_GPU_BLOCKS
    usage_hist.append(usage)
    lines = []
    lines += family("vllm:cache_config_info", "gauge", "information of cache_config", [
        ("vllm:cache_config_info", {
            "block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0",
            "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
            "num_cpu_blocks": str(NUM_CPU_BLOCKS), "num_gpu_blocks": str(NUM_GPU_BLOCKS),
            "num_gpu_blocks_override": "None", "sliding_window": "None",
            "swap_space": "4", "swap_space_bytes": str(4 * 1024 ** 3)}, 1.0)])
    lines += family("vllm:num_requests_running", "gauge", "Number of requests currently running on GPU.",
                    [("vllm:num_requests_running", L, float(running))])
    lines += family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                    [("vllm:num_requests_waiting", L, 0.0)])
    lines += family("vllm:num_requests_swapped", "gauge", "Number of requests swapped to CPU.",
                    [("vllm:num_requests_swapped", L, 0.0)])
    lines += family("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.",
                    [("vllm:gpu_cache_usage_perc", L, round(usage, 6))])
    lines += family("vllm:cpu_cache_usage_perc", "gauge", "CPU KV-cache usage. 1 means 100 percent usage.",
                    [("vllm:cpu_cache_usage_perc", L, 0.0)])
    lines += family("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.",
                    [("vllm:num_preemptions_total", L, 0.0)])
    lines += family("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
                    [("vllm:prompt_tokens_total", L, float(prompt_total))])
    lines += family("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
                    [("vllm:generation_tokens_total", L, float(gen_total))])
    lines += family("vllm:time_to_first_token_seconds", "histogram", "Histogram of time to first token in seconds.",
                    ttft.lines("vllm:time_to_first_token_seconds", L))
    lines += family("vllm:time_per_output_token_seconds", "histogram", "Histogram of time per output token in seconds.",
                    tpot.lines("vllm:time_per_output_token_seconds", L))
    lines += family("vllm:e2e_request_latency_seconds", "histogram", "Histogram of end to end request latency in seconds.",
                    e2e.lines("vllm:e2e_request_latency_seconds", L))
    lines += family("vllm:request_prompt_tokens", "histogram", "Number of prefill tokens processed.",
                    ptok.lines("vllm:request_prompt_tokens", L))
    lines += family("vllm:request_generation_tokens", "histogram", "Number of generation tokens processed.",
                    gtok.lines("vllm:request_generation_tokens", L))
    lines += family("vllm:request_params_best_of", "histogram", "Histogram of the best_of request parameter.",
                    best_of.lines("vllm:request_params_best_of", L))
    lines += family("vllm:request_params_n", "histogram", "Histogram of the n request parameter.",
                    nreq.lines("vllm:request_params_n", L))
    lines += family("vllm:request_success_total", "counter", "Count of successfully processed requests.",
                    [("vllm:request_success_total", {**L, "finished_reason": k}, float(v)) for k, v in success.items()])
    last = logs_metrics[-1] if logs_metrics else (0, 0, 0, 0, 0)
    lines += family("vllm:avg_prompt_throughput_toks_per_s", "gauge", "Average prefill throughput in tokens/s.",
                    [("vllm:avg_prompt_throughput_toks_per_s", L, round(last[1], 3))])
    lines += family("vllm:avg_generation_throughput_toks_per_s", "gauge", "Average generation throughput in tokens/s.",
                    [("vllm:avg_generation_throughput_toks_per_s", L, round(last[2], 3))])
    scrapes.append({"t": t_scrape, "status": 200, "text": "\n".join(lines) + "\n"})
    mem_used = int(73.4 * 1024 ** 3) + rng.randint(-2, 2) * 1024 ** 2
    gpu.append({"t": t_scrape, "devices": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB",
                "memory_total": 85899345920, "memory_used": mem_used,
                "processes": [{"pid": 2913, "name": "python", "used_memory": mem_used - 512 * 1024 ** 2}]}]})


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


log = []
st = T0 - 2400
log.append(f"INFO {ts(st)} api_server.py:339] vLLM API server version 0.5.4")
log.append(f"INFO {ts(st)} api_server.py:340] args: Namespace(host=None, port=8000, model='{MODEL}', max_model_len=None, enable_prefix_caching=True, disable_log_requests=True, max_num_seqs=256, gpu_memory_utilization=0.9, block_size=16, swap_space=4, tensor_parallel_size=1, enable_chunked_prefill=None)")
log.append(f"INFO {ts(st+2)} llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='{MODEL}', tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, pipeline_parallel_size=1, kv_cache_dtype=auto, enforce_eager=False, enable_prefix_caching=True")
log.append(f"INFO {ts(st+40)} model_runner.py:732] Loading model weights took 14.2487 GB")
log.append(f"INFO {ts(st+46)} gpu_executor.py:102] # GPU blocks: {NUM_GPU_BLOCKS}, # CPU blocks: {NUM_CPU_BLOCKS}")
log.append(f"INFO {ts(st+48)} model_runner.py:1024] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static.")
log.append(f"INFO {ts(st+66)} model_runner.py:1221] Graph capturing finished in 18 secs.")
log.append(f"INFO {ts(st+67)} api_server.py:292] Available routes are:")
log.append(f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")
for (t, p, g, run, u) in logs_metrics:
    if t < T0 - 5:
        continue
    log.append(f"INFO {ts(t)} metrics.py:406] Avg prompt throughput: {p:.1f} tokens/s, Avg generation throughput: {g:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {u*100:.1f}%, CPU KV cache usage: 0.0%.")

manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://vllm-qwen2:8000",
            "started_at": T0, "ended_at": T0 + (N_SCRAPES - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "recorded while the batch client was running; operator's complaint: the server never runs more than 100 requests at a time"}
server = {"version": {"version": "0.5.4"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": MAX_MODEL_LEN}]},
          "health": 200}
engine_args = {"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL,
                        "--enable-prefix-caching", "--disable-log-requests"],
               "args": {"model": MODEL, "enable-prefix-caching": True, "disable-log-requests": True}}
model_config = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
                "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
                "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
                "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28,
                "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
                "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "transformers_version": "4.41.2", "use_cache": True, "use_sliding_window": False,
                "vocab_size": 152064}
write_bundle(OUT, manifest, scrapes, server, engine_args, model_config, gpu, "\n".join(log) + "\n")
print("usage min/max", round(min(usage_hist), 4), round(max(usage_hist), 4), "ttft n", ttft.n,
      "success", success, "prompt_total", prompt_total, "gen_total", gen_total)
