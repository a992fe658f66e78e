"""zyk-rayserve-wrapper-starves-engine: vLLM 0.3.2 (V0) inside a Ray Serve replica,
Llama-2-7b-chat on one A10G; the benchmark has 400 requests outstanding but the
wrapper lets at most 3 reach the engine at a time. Engine-side: running 1-3,
waiting 0, KV mostly free. Run from the worktree root."""
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Hist, family, write_bundle  # noqa

OUT = "cases/zyk-rayserve-wrapper-starves-engine/bundle"
MODEL = "meta-llama/Llama-2-7b-chat-hf"
T0 = 1710766500  # 2024-03-18 12:55:00 UTC
INTERVAL, N = 10, 61
NUM_GPU_BLOCKS, NUM_CPU_BLOCKS, BLOCK = 1024, 512, 16
ITL = 0.036
rng = random.Random(5)
L = {"model_name": MODEL}
ttft = Hist([0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0])
tpot = Hist([0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5])
e2e = Hist([1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0])
tot = {"p": 0, "g": 0}


def newreq(now):
    p = int(min(3000, max(20, rng.lognormvariate(math.log(450), 0.7))))
    o = int(min(1500, max(10, rng.lognormvariate(math.log(230), 0.7))))
    return {"p": p, "o": o, "done": 0, "start": now, "first": None}


# before the window: ~140 requests already done since the burst began (~7 min earlier)
for _ in range(140):
    r = newreq(0)
    tot["p"] += r["p"]; tot["g"] += r["o"]
    tt = rng.uniform(0.06, 0.3)
    ttft.observe(tt); tpot.observe(ITL, r["o"] - 1)
    e2e.observe(tt + r["o"] * ITL)

slots = []
now = T0 - 30.0
TICK = 0.25
admit_gap = 0.0
logs, scrapes, gpu = [], [], []
win = {"p": 0, "g": 0}
next_log, next_scrape = T0 - 25.0, T0
state = []
while next_scrape <= T0 + (N - 1) * INTERVAL:
    now += TICK
    # the wrapper hands a new request to the engine only when fewer than 3 are open,
    # and then only after a short delay (its own handling time)
    if len(slots) < 3:
        admit_gap -= TICK
        if admit_gap <= 0 or not slots:
            slots.append(newreq(now))
            admit_gap = rng.uniform(0.3, 1.5)
    steps = TICK / ITL
    for r in list(slots):
        if r["first"] is None:
            tt = rng.uniform(0.05, 0.25)
            r["first"] = now + tt
            ttft.observe(tt)
            tot["p"] += r["p"]; win["p"] += r["p"]
            r["done"] = 1; tot["g"] += 1; win["g"] += 1
            continue
        adv = min(int(steps + rng.random()), r["o"] - r["done"])
        r["done"] += adv; tot["g"] += adv; win["g"] += adv
        tpot.observe(ITL * rng.uniform(0.93, 1.1), adv)
        if r["done"] >= r["o"]:
            e2e.observe(now - r["start"])
            slots.remove(r)
    if not slots:  # the wrapper always has the next request ready when nothing is open
        r = newreq(now)
        r["first"] = now + 0.1
        ttft.observe(0.1)
        tot["p"] += r["p"]; win["p"] += r["p"]
        r["done"] = 1; tot["g"] += 1; win["g"] += 1
        slots.append(r)
        admit_gap = rng.uniform(0.3, 1.5)
    used = sum(math.ceil((r["p"] + r["done"]) / BLOCK) for r in slots)
    usage = used / NUM_GPU_BLOCKS
    if now >= next_log:
        logs.append((next_log, win["p"] / 5.0, win["g"] / 5.0, len(slots), usage))
        win = {"p": 0, "g": 0}
        next_log += 5
    if now >= next_scrape:
        lines = []
        lines += family("vllm:cache_config_info", "gauge", "information of cache_config", [
            ("vllm:cache_config_info", {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
                                        "gpu_memory_utilization": "0.9", "num_cpu_blocks": str(NUM_CPU_BLOCKS),
                                        "num_gpu_blocks": str(NUM_GPU_BLOCKS), "sliding_window": "None",
                                        "swap_space_bytes": str(4 * 1024 ** 3)}, 1.0)])
        for name, doc, v in [
            ("vllm:num_requests_running", "Number of requests currently running on GPU.", len(slots)),
            ("vllm:num_requests_swapped", "Number of requests swapped to CPU.", 0),
            ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", 0),
            ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", round(usage, 6)),
            ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", 0.0)]:
            lines += family(name, "gauge", doc, [(name, L, float(v))])
        lines += family("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
                        [("vllm:prompt_tokens_total", L, float(tot["p"]))])
        lines += family("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
                        [("vllm:generation_tokens_total", L, float(tot["g"]))])
        lines += family("vllm:time_to_first_token_seconds", "histogram", "Histogram of time to first token in seconds.",
                        ttft.lines("vllm:time_to_first_token_seconds", L))
        lines += family("vllm:time_per_output_token_seconds", "histogram", "Histogram of time per output token in seconds.",
                        tpot.lines("vllm:time_per_output_token_seconds", L))
        lines += family("vllm:e2e_request_latency_seconds", "histogram", "Histogram of end to end request latency in seconds.",
                        e2e.lines("vllm:e2e_request_latency_seconds", L))
        last = logs[-1]
        lines += family("vllm:avg_prompt_throughput_toks_per_s", "gauge", "Average prefill throughput in tokens/s.",
                        [("vllm:avg_prompt_throughput_toks_per_s", L, round(last[1], 3))])
        lines += family("vllm:avg_generation_throughput_toks_per_s", "gauge", "Average generation throughput in tokens/s.",
                        [("vllm:avg_generation_throughput_toks_per_s", L, round(last[2], 3))])
        scrapes.append({"t": next_scrape, "status": 200, "text": "\n".join(lines) + "\n"})
        mem = int(21.3 * 1024 ** 3) + rng.randint(0, 3) * 1024 ** 2
        gpu.append({"t": next_scrape, "devices": [{"index": 0, "name": "NVIDIA A10G", "memory_total": 24146608128,
                    "memory_used": mem, "processes": [{"pid": 126565, "name": "ray::ServeReplica:default:OpenLLMDeployment",
                                                       "used_memory": mem - 300 * 1024 ** 2}]}]})
        state.append((next_scrape - T0, len(slots), round(usage, 3)))
        next_scrape += INTERVAL


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


P = "(ServeReplica:default:OpenLLMDeployment pid=126565)"
lg = [f"{P} INFO {ts(T0-3600)} llm_engine.py:79] Initializing an LLM engine with config: model='{MODEL}', tokenizer='{MODEL}', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0)",
      f"{P} INFO {ts(T0-3560)} llm_engine.py:337] # GPU blocks: {NUM_GPU_BLOCKS}, # CPU blocks: {NUM_CPU_BLOCKS}",
      f"{P} INFO {ts(T0-3558)} model_runner.py:676] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
      f"{P} INFO {ts(T0-3530)} model_runner.py:748] Graph capturing finished in 28 secs."]
for (t, p, g, run, u) in logs:
    if t < T0 - 5:
        continue
    lg.append(f"{P} INFO {ts(t)} metrics.py:161] Avg prompt throughput: {p:.1f} tokens/s, Avg generation throughput: {g:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {u*100:.1f}%, CPU KV cache usage: 0.0%")
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://ray-serve-llm:8000",
            "started_at": T0, "ended_at": T0 + (N - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "recorded during a 400-request benchmark_serving burst; complaint: the vLLM deployment works through the burst far slower than the OpenLLM one"}
server = {"version": {"version": "0.3.2"}, "models": None, "health": 200}
engine_args = {"argv": None, "args": {"model": MODEL, "gpu-memory-utilization": 0.9}}
model_config = {"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
                "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008,
                "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 32,
                "num_hidden_layers": 32, "num_key_value_heads": 32, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
                "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "float16",
                "transformers_version": "4.32.0.dev0", "use_cache": True, "vocab_size": 32000}
write_bundle(OUT, manifest, scrapes, server, engine_args, model_config, gpu, "\n".join(lg) + "\n")
print("running range", min(s[1] for s in state), max(s[1] for s in state), "usage range",
      min(s[2] for s in state), max(s[2] for s in state),
      "gen/s range", round(min(l[2] for l in logs[5:]), 1), round(max(l[2] for l in logs[5:]), 1))
