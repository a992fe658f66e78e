"""zyn-multistep-chunked-pending-stall: V0 engine (0.6.1 branch build), multi-step + chunked
prefill. After three completions the scheduler stops admitting: running 0, waiting 24, KV 0.
Metric names/help from vllm/engine/metrics.py (stored commit 00c33e81, V0), label model_name.
Run from the worktree root."""
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from prom import H, b125, fam, num, write_bundle  # noqa

OUT = "cases/zyn-multistep-chunked-pending-stall/bundle"
MODEL = "meta-llama/Meta-Llama-3.1-8B-Instruct"
T0 = 1726675800  # 2024-09-18 16:10:00 UTC
INTERVAL, N = 10, 31
NB, BS, MAXLEN = 28000, 16, 16384
rng = random.Random(8378)
L = {"model_name": MODEL}
TTFT = H([0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0])
TPOT = H([0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5])
E2E = H([1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0])
PT, GT = H(b125(MAXLEN)), H(b125(MAXLEN))
BO, NN = H([1, 2, 5, 10, 20]), H([1, 2, 5, 10, 20])
c = dict(pre=0, prompt=0, gen=0)
succ = {"stop": 0, "length": 0}
state = dict(run=0, wait=0, kv=0.0, swp=0, apt=0.0, agt=0.0)

# the load test starts at T0+48: 3 requests complete, then the scheduler stops admitting
events = {}  # sec -> (running, waiting, prompt tok, gen tok)
done = 0
logs = []
last_log = T0 + 3
acc_p = acc_g = 0
for sec in range(0, (N - 1) * INTERVAL + 1):
    now = T0 + sec
    p = g = 0
    if 48 <= sec < 53:
        state["run"] = min(3, sec - 47); state["wait"] = 0
        p = 350 if sec < 51 else 0
        g = 1 if sec >= 50 else 0
        state["kv"] = state["run"] * 23 / NB
    elif 53 <= sec < 55:
        # the three requests finish (short answers), nothing new gets in
        g = 14
        if sec == 54:
            for _ in range(3):
                pp, gg = rng.randint(330, 370), rng.randint(24, 31)
                TTFT.obs(rng.uniform(0.9, 2.2)); TPOT.obs(0.012, gg - 1)
                E2E.obs(rng.uniform(3.0, 4.6)); PT.obs(pp); GT.obs(gg); BO.obs(1); NN.obs(1)
                succ["stop"] += 1
            state["run"] = 0; state["kv"] = 0.0
        state["wait"] = (sec - 52) * 5
    elif sec >= 55:
        state["run"] = 0; state["kv"] = 0.0
        state["wait"] = min(24, 10 + (sec - 55) * 2)
    c["prompt"] += p; c["gen"] += g
    acc_p += p; acc_g += g
    if now - last_log >= 5:
        dt = now - last_log
        state["apt"], state["agt"] = acc_p / dt, acc_g / dt
        if sec >= 40:
            logs.append((now, state["apt"], state["agt"], state["run"], state["swp"], state["wait"],
                         state["kv"] * 100))
        acc_p = acc_g = 0; last_log = now
    if sec % INTERVAL == 0:
        o = []
        o += fam("vllm:cache_config_info", "gauge", "information of cache_config",
                 [("vllm:cache_config_info", {"block_size": "16", "cache_dtype": "auto",
                   "cpu_offload_gb": "0", "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9",
                   "is_attention_free": "False", "num_cpu_blocks": "2048", "num_gpu_blocks": str(NB),
                   "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": "4294967296"}, 1)])
        o += fam("vllm:num_requests_running", "gauge", "Number of requests currently running on GPU.",
                 [("vllm:num_requests_running", L, state["run"])])
        o += fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                 [("vllm:num_requests_waiting", L, state["wait"])])
        o += fam("vllm:num_requests_swapped", "gauge", "Number of requests swapped to CPU.",
                 [("vllm:num_requests_swapped", L, 0)])
        o += fam("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.",
                 [("vllm:gpu_cache_usage_perc", L, round(state["kv"], 6))])
        o += fam("vllm:cpu_cache_usage_perc", "gauge", "CPU KV-cache usage. 1 means 100 percent usage.",
                 [("vllm:cpu_cache_usage_perc", L, 0)])
        o += fam("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.",
                 [("vllm:num_preemptions_total", L, c["pre"])])
        o += fam("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.",
                 [("vllm:prompt_tokens_total", L, c["prompt"])])
        o += fam("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.",
                 [("vllm:generation_tokens_total", L, c["gen"])])
        for name, doc, h in [
            ("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT),
            ("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT),
            ("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", E2E),
            ("vllm:request_prompt_tokens", "Number of prefill tokens processed.", PT),
            ("vllm:request_generation_tokens", "Number of generation tokens processed.", GT),
            ("vllm:request_params_best_of", "Histogram of the best_of request parameter.", BO),
            ("vllm:request_params_n", "Histogram of the n request parameter.", NN)]:
            o += fam(name, "histogram", doc, h.lines(name, L))
        o += fam("vllm:request_success_total", "counter", "Count of successfully processed requests.",
                 [("vllm:request_success_total", {**L, "finished_reason": r}, v) for r, v in succ.items()])
        o += fam("vllm:avg_prompt_throughput_toks_per_s", "gauge", "Average prefill throughput in tokens/s.",
                 [("vllm:avg_prompt_throughput_toks_per_s", L, round(state["apt"], 3))])
        o += fam("vllm:avg_generation_throughput_toks_per_s", "gauge", "Average generation throughput in tokens/s.",
                 [("vllm:avg_generation_throughput_toks_per_s", L, round(state["agt"], 3))])
        events[sec] = {"t": now, "status": 200, "text": "\n".join(o) + "\n"}


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


st = T0 - 420
lg = [f"INFO {ts(st)} api_server.py:495] vLLM API server version 0.6.1.post2",
      f"INFO {ts(st)} api_server.py:496] args: Namespace(model='{MODEL}', max_model_len={MAXLEN}, gpu_memory_utilization=0.9, enable_chunked_prefill=True, num_scheduler_steps=8, max_num_seqs=256, block_size=16, swap_space=4, enable_prefix_caching=False, tensor_parallel_size=1)",
      f"INFO {ts(st + 75)} gpu_executor.py:122] # GPU blocks: {NB}, # CPU blocks: 2048",
      f"INFO {ts(st + 110)} model_runner.py:1335] Graph capturing finished in 21 secs.",
      f"INFO {ts(st + 112)} api_server.py:228] vLLM to use /tmp/tmpx3k2 as PROMETHEUS_MULTIPROC_DIR"]
for (t, apt, agt, run, swp, wt, kv) in logs:
    lg.append(f"INFO {ts(t)} metrics.py:351] Avg prompt throughput: {apt:.1f} tokens/s, Avg generation throughput: {agt:.1f} tokens/s, Running: {run} reqs, Swapped: {swp} reqs, Pending: {wt} reqs, GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%.")
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://10.0.0.17:8000",
            "started_at": T0, "ended_at": T0 + (N - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "load test against the multi-step + chunked-prefill branch build: 3 completions, then every request hangs"}
server = {"version": {"version": "0.6.1.post2"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": MAXLEN}]},
          "health": 200}
engine_args = {"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL,
                        "--max-model-len", str(MAXLEN), "--enable-chunked-prefill", "--num-scheduler-steps", "8"],
               "args": {"model": MODEL, "max-model-len": MAXLEN, "enable-chunked-prefill": True,
                        "num-scheduler-steps": 8}}
model_config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "bos_token_id": 128000,
                "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 4096,
                "intermediate_size": 14336, "max_position_embeddings": 131072, "model_type": "llama",
                "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
                "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0,
                "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "vocab_size": 128256}
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3",
        "memory_total": 85520809984, "memory_used": 77309411328,
        "processes": [{"pid": 4121, "name": "python", "used_memory": 76752437248}]}]} for i in range(N)]
write_bundle(OUT, manifest, [events[k] for k in sorted(events)], server, engine_args, model_config, gpu,
             "\n".join(lg) + "\n")
for l in logs[:8]:
    print(ts(l[0]), l[1:])
print(logs[-1])
