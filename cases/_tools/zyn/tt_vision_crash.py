"""zyn-tt-vision-block-table-crash: tenstorrent/vllm dev (V0), Llama-3.2-11B-Vision on N300,
pool 224 x 64 = 14,336 tokens, 16 running, usage climbs ~0.7 pt / 6 s to 100%, then the engine
dies with 'block table already exists'; scrapes fail afterwards. V0 metric names from
vllm/engine/metrics.py (stored commit 00c33e81). Run from the worktree root."""
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from prom import H, b125, fam, write_bundle  # noqa

OUT = "cases/zyn-tt-vision-block-table-crash/bundle"
MODEL = "meta-llama/Llama-3.2-11B-Vision-Instruct"
T0 = 1737614000  # 2025-01-23 06:33:20 UTC
INTERVAL, N = 10, 31
NB, BS, MAXLEN = 224, 64, 8192
POOL = NB * BS
rng = random.Random(55)
L = {"model_name": MODEL}
TTFT = H([0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0])
TPOT = H([0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5])
E2E = H([1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0])
PT, GT = H(b125(MAXLEN)), H(b125(MAXLEN))
BO, NN = H([1, 2, 5, 10, 20]), H([1, 2, 5, 10, 20])
c = dict(pre=0, prompt=0, gen=0)
succ = {"stop": 0, "length": 0}
# two earlier batches of 16 that finished (answers ended on EOS)
for _ in range(32):
    p, g = rng.randint(64, 2048), rng.randint(120, 520)
    c["prompt"] += p; c["gen"] += g
    TTFT.obs(rng.uniform(2.6, 9.5)); TPOT.obs(0.96, g - 1); E2E.obs(60.0 + g)
    PT.obs(p); GT.obs(g); BO.obs(1); NN.obs(1); succ["stop"] += 1
# current batch: 16 prompts prefetched earlier, all decoding at ~1.04 tok/s each
for _ in range(16):
    TTFT.obs(rng.uniform(3.0, 9.8))
used = int(POOL * 0.905)
c["prompt"] += 16 * 560
c["gen"] += used - 16 * 560
crash_at = None
acc = 0
logs = []
last_log = T0
scrapes = []
gen_rate = 16.7
for sec in range(0, (N - 1) * INTERVAL + 1):
    now = T0 + sec
    if crash_at is None:
        g = 17 if rng.random() < 0.7 else 16
        if used + g > POOL:
            crash_at = sec
        else:
            used += g; c["gen"] += g; acc += g
            TPOT.obs(0.96, g)
        if now - last_log >= 6 and crash_at is None:
            logs.append((now, acc / (now - last_log), used / POOL * 100))
            acc = 0; last_log = now
    if sec % INTERVAL == 0:
        if crash_at is not None and sec > crash_at:
            scrapes.append({"t": now, "error": "GET http://localhost:8000/metrics: [Errno 111] Connection refused"})
            continue
        kv = used / POOL
        o = []
        o += fam("vllm:cache_config_info", "gauge", "information of cache_config",
                 [("vllm:cache_config_info", {"block_size": "64", "cache_dtype": "auto", "cpu_offload_gb": "0",
                   "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9", "num_cpu_blocks": "0",
                   "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None", "sliding_window": "None",
                   "swap_space_bytes": "0"}, 1)])
        o += fam("vllm:num_requests_running", "gauge", "Number of requests currently running on GPU.",
                 [("vllm:num_requests_running", L, 16)])
        o += fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                 [("vllm:num_requests_waiting", L, 0)])
        o += fam("vllm:num_requests_swapped", "gauge", "Number of requests swapped to CPU.",
                 [("vllm:num_requests_swapped", L, 0)])
        o += fam("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.",
                 [("vllm:gpu_cache_usage_perc", L, round(kv, 6))])
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
                 [("vllm:avg_prompt_throughput_toks_per_s", L, 0.0)])
        o += fam("vllm:avg_generation_throughput_toks_per_s", "gauge", "Average generation throughput in tokens/s.",
                 [("vllm:avg_generation_throughput_toks_per_s", L, round(logs[-1][1], 3) if logs else gen_rate)])
        scrapes.append({"t": now, "status": 200, "text": "\n".join(o) + "\n"})


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


lg = [f"INFO {ts(T0 - 2400)} api_server.py:585] vLLM API server version 0.1.dev3881+g2f33504",
      f"INFO {ts(T0 - 2100)} tt_executor.py:68] # TT blocks: {NB}, # CPU blocks: 0"]
for (t, gt, kv) in logs:
    lg.append(f"INFO {ts(t)} metrics.py:396] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: 16 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%.")
tc = T0 + crash_at
lg += [f"ERROR {ts(tc)} engine.py:135] AssertionError('block table already exists')",
       "ERROR {} engine.py:135] Traceback (most recent call last):".format(ts(tc)),
       '  File "/home/user/vllm/vllm/engine/multiprocessing/engine.py", line 133, in start',
       '    self.run_engine_loop()',
       '  File "/home/user/vllm/vllm/engine/llm_engine.py", line 1386, in step',
       '    ) = self.scheduler[virtual_engine].schedule()',
       '  File "/home/user/vllm/vllm/core/scheduler.py", line 1219, in schedule',
       '    scheduler_outputs: SchedulerOutputs = self._schedule()',
       '  File "/home/user/vllm/vllm/core/block_manager.py", line 163, in allocate',
       '    assert (request_id',
       'AssertionError: block table already exists',
       f"CRITICAL {ts(tc + 1)} launcher.py:99] MQLLMEngine is already dead, terminating server process",
       "INFO:     Shutting down"]
manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://localhost:8000",
            "started_at": T0, "ended_at": T0 + (N - 1) * INTERVAL, "interval_s": float(INTERVAL),
            "notes": "prompt_client_cli.py, batches of 16 vision chats (2048-token prompts max, 2048 output); server died mid-batch"}
server = {"version": {"version": "0.1.dev3881+g2f33504"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm",
                                                  "root": MODEL, "parent": None, "max_model_len": MAXLEN}]},
          "health": 200}
engine_args = {"argv": None, "args": {"model": MODEL, "max-num-seqs": 16, "block-size": 64, "max-model-len": MAXLEN}}
write_bundle(OUT, manifest, scrapes, None, engine_args, None, None, "\n".join(lg) + "\n")
print("crash_at", crash_at, "logs", [(ts(a), round(b, 1), round(k, 1)) for a, b, k in logs][:3], logs[-1][2])
