"""zyz-v061-llama65b-dies-on-preempt: llama-65b, TP=4, vLLM 0.6.1 (V0), block size 32, load test;
the engine dies on the first preemption. Source: vllm-project/vllm issue #8219.
V0 exposition as vllm/engine/metrics.py (0.6.x) writes it; after the crash the values freeze."""

from __future__ import annotations

import random

from common import (GiB, MiB, REQ_LAT_BUCKETS, TPOT_BUCKETS, TTFT_BUCKETS, Hist, build_1_2_5, epoch,
                    family, fmt, lbl, models_body, stamp, write_bundle)

CASE = "zyz-v061-llama65b-dies-on-preempt"
ROOT = "/data/models/llama-65b-instruct/base"
MAX_LEN = 8192
BLOCKS, BS = 2160, 32
CAP = BLOCKS * BS
INTERVAL = 5.0
T0 = epoch(2024, 9, 11, 17, 16, 84.0)
CRASH = 10 ** 9                   # set at the first step that must preempt
rng = random.Random(8219)
mn = {"model_name": ROOT}
cache_labels = {"block_size": "32", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
                "gpu_memory_utilization": "0.95", "num_cpu_blocks": "409", "num_gpu_blocks": str(BLOCKS),
                "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": "4294967296"}
H = {"ttft": Hist(TTFT_BUCKETS), "tpot": Hist(TPOT_BUCKETS), "e2e": Hist(REQ_LAT_BUCKETS),
     "ptok": Hist(build_1_2_5(MAX_LEN)), "gtok": Hist(build_1_2_5(MAX_LEN)), "best": Hist([1, 2, 5, 10, 20]),
     "n": Hist([1, 2, 5, 10, 20])}
C = {"pre": 0, "prompt": 0, "gen": 0, "stop": 0, "length": 0}


def text(run, wait, kv, pthr, gthr):
    L = []
    L += family("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
                [f"vllm:cache_config_info{lbl(cache_labels)} 1.0"])
    for name, doc, v in [("vllm:num_requests_running", "Number of requests currently running on GPU.", run),
                         ("vllm:num_requests_swapped", "Number of requests swapped to CPU.", 0),
                         ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", wait),
                         ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", round(kv, 6)),
                         ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", 0),
                         ("vllm:cpu_prefix_cache_hit_rate", "CPU prefix cache block hit rate.", -1),
                         ("vllm:gpu_prefix_cache_hit_rate", "GPU prefix cache block hit rate.", -1)]:
        L += family(name, "gauge", doc, [f"{name}{lbl(mn)} {fmt(v)}"])
    for fam_, doc, v in [("vllm:num_preemptions", "Cumulative number of preemption from the engine.", C["pre"]),
                         ("vllm:prompt_tokens", "Number of prefill tokens processed.", C["prompt"]),
                         ("vllm:generation_tokens", "Number of generation tokens processed.", C["gen"])]:
        L += family(fam_, "counter", doc, [f"{fam_}_total{lbl(mn)} {fmt(v)}"])
    for name, key, doc in [("vllm:time_to_first_token_seconds", "ttft", "Histogram of time to first token in seconds."),
                           ("vllm:time_per_output_token_seconds", "tpot", "Histogram of time per output token in seconds."),
                           ("vllm:e2e_request_latency_seconds", "e2e", "Histogram of end to end request latency in seconds."),
                           ("vllm:request_prompt_tokens", "ptok", "Number of prefill tokens processed."),
                           ("vllm:request_generation_tokens", "gtok", "Number of generation tokens processed."),
                           ("vllm:request_params_best_of", "best", "Histogram of the best_of request parameter."),
                           ("vllm:request_params_n", "n", "Histogram of the n request parameter.")]:
        L += family(name, "histogram", doc, H[key].lines(name, mn))
    L += family("vllm:request_success", "counter", "Count of successfully processed requests.",
                [f"vllm:request_success_total{lbl({**mn, 'finished_reason': r})} {fmt(C[r])}" for r in ("stop", "length")])
    L += family("vllm:avg_prompt_throughput_toks_per_s", "gauge", "Average prefill throughput in tokens/s.",
                [f"vllm:avg_prompt_throughput_toks_per_s{lbl(mn)} {fmt(round(pthr, 1))}"])
    L += family("vllm:avg_generation_throughput_toks_per_s", "gauge", "Average generation throughput in tokens/s.",
                [f"vllm:avg_generation_throughput_toks_per_s{lbl(mn)} {fmt(round(gthr, 1))}"])
    return "\n".join(L) + "\n"


# load test: 70 closed-loop clients, prompts ~2.5k, max_tokens ~1.2k; V0 admits whole prompts (no chunking)
clients = [{"prompt": 0, "out": 0, "gen": 0, "start": 0.0, "state": "idle", "next": 3.2 * i + rng.uniform(0, 3)} for i in range(90)]
logs, scrapes, gpu = [], [], []
pre_t = T0 - 600
def L(t, lvl, src, msg):
    logs.append(f"{lvl} {stamp(t)} {src}] {msg}")
L(pre_t, "INFO", "api_server.py:495", "vLLM API server version 0.6.1")
L(pre_t, "INFO", "api_server.py:496", "args: Namespace(model='" + ROOT + "', tensor_parallel_size=4, load_format='auto', "
  "block_size=32, max_seq_len_to_capture=8192, max_model_len=8192, disable_log_requests=True, uvicorn_log_level='warning', "
  "gpu_memory_utilization=0.95, swap_space=4, enable_prefix_caching=False, num_scheduler_steps=1, ...)")
L(pre_t + 300, "INFO", "distributed_gpu_executor.py:57", f"# GPU blocks: {BLOCKS}, # CPU blocks: 409")
L(pre_t + 330, "INFO", "model_runner.py:1025", "Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.")
L(pre_t + 390, "INFO", "custom_all_reduce.py:223", "Registering 5635 cuda graph addresses")
L(pre_t + 395, "INFO", "model_runner.py:1300", "Graph capturing finished in 64 secs.")
L(pre_t + 400, "INFO", "api_server.py:228", "vLLM to use /tmp/tmpq3v2yc4l as PROMETHEUS_MULTIPROC_DIR")
used = 0
acc_p = acc_g = 0
run_cnt = wait_cnt = 0
last = None
for s in range(600):
    if s < CRASH:
        tick_p = tick_g = 0
        for c in clients:
            if c["state"] == "idle" and s >= c["next"]:
                c.update(prompt=rng.randint(450, 900), out=rng.randint(350, 900), gen=0, start=s, state="wait")
        running = [c for c in clients if c["state"] == "run"]
        for c in [c for c in clients if c["state"] == "wait"]:
            if len(running) < 256 and used + c["prompt"] + 64 * BS <= CAP:   # V0 watermark ~ 1% of blocks
                used += c["prompt"]; c["state"] = "run"; tick_p += c["prompt"]; running.append(c)
                c["ttft"] = s - c["start"] + rng.uniform(0.3, 1.6)
                H["ttft"].observe(c["ttft"])
        need = sum(min(12 if len(running) > 50 else 16, c["out"] - c["gen"]) for c in running)
        if used + need > CAP:          # the scheduler must preempt: the first preemption kills the engine
            CRASH = s
            C["pre"] = 1
            running = []
        for c in running:
            k = 12 if len(running) > 50 else 16
            k = min(k, c["out"] - c["gen"])
            c["gen"] += k; used += k; tick_g += k
            if c["gen"] >= c["out"]:
                used -= c["prompt"] + c["gen"]; c["state"] = "idle"; c["next"] = s + rng.uniform(1, 6)
                e2e = s - c["start"] + 1
                H["e2e"].observe(e2e); H["tpot"].observe(round((e2e - c["ttft"]) / max(1, c["gen"] - 1), 4), c["gen"] - 1)
                H["ptok"].observe(c["prompt"]); H["gtok"].observe(c["gen"]); H["best"].observe(1); H["n"].observe(1)
                C["stop" if c["gen"] < 880 else "length"] += 1
        C["prompt"] += tick_p; C["gen"] += tick_g
        run_cnt = len([c for c in clients if c["state"] == "run"]); wait_cnt = len([c for c in clients if c["state"] == "wait"])
        acc_p += tick_p; acc_g += tick_g
    if (s + 1) % int(INTERVAL) == 0:
        t = T0 + s + 1
        if s < CRASH:
            last = (acc_p / INTERVAL, acc_g / INTERVAL)
            acc_p = acc_g = 0
            scrapes.append({"t": t, "status": 200, "text": text(run_cnt, wait_cnt, used / CAP, last[0], last[1])})
            L(t, "INFO", "metrics.py:351", f"Avg prompt throughput: {last[0]:.1f} tokens/s, Avg generation throughput: "
              f"{last[1]:.1f} tokens/s, Running: {run_cnt} reqs, Swapped: 0 reqs, Pending: {wait_cnt} reqs, "
              f"GPU KV cache usage: {100 * used / CAP:.1f}%, CPU KV cache usage: 0.0%.")
        else:
            scrapes.append({"t": t, "status": 200, "text": text(run_cnt, wait_cnt, used / CAP, last[0], last[1])})
        mem = int(77.6 * GiB + rng.randint(0, 20) * MiB) if s < CRASH + 20 else int(77.6 * GiB)
        devs = [{"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85_899_345_920, "memory_used": mem,
                 "processes": [{"pid": 3100 + i, "name": "python3" if i == 0 else "VllmWorkerProcess", "used_memory": mem - 420 * MiB}]}
                for i in range(4)]
        gpu.append({"t": t, "devices": devs})
    if s == CRASH:
        t = T0 + s
        L(t, "WARNING", "scheduler.py:1439", "Sequence group cmpl-71c6c2702c07450bb38a3a497140d0eb-0 is preempted by "
          "PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end "
          "performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. "
          "total_num_cumulative_preemption=1")
        tb = ["Engine background task failed", "Traceback (most recent call last):",
              '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 53, in _log_task_completion',
              "    return_value = task.result()",
              '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 939, in run_engine_loop',
              "    result = task.result()",
              '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 868, in engine_step',
              "    request_outputs = await self.engine.step_async(virtual_engine)",
              '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 345, in step_async',
              "    output = await self.model_executor.execute_model_async(",
              '  File "/usr/local/lib/python3.10/dist-packages/vllm/executor/distributed_gpu_executor.py", line 177, in execute_model_async',
              "    return await self._driver_execute_model_async(execute_model_req)",
              "ValueError: max() arg is an empty sequence"]
        for line in tb:
            L(t, "ERROR", "async_llm_engine.py:63", line)
        L(t, "ERROR", "async_llm_engine.py:63", "The above exception was the direct cause of the following exception:")
        logs.append("vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly. This should never happen! "
                    "Please open an issue on Github. See stack trace above for the actual cause.")
    if s > CRASH and s % 7 == 0:
        logs.append(f"ERROR {stamp(T0 + s)} serving_chat.py:154] Error in preprocessing prompt inputs")
        logs.append("vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.")

model_config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
                "intermediate_size": 22016, "num_hidden_layers": 80, "num_attention_heads": 64,
                "num_key_value_heads": 64, "max_position_embeddings": 8192, "rms_norm_eps": 1e-05,
                "vocab_size": 32000, "torch_dtype": "float16", "rope_theta": 10000.0}
argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", ROOT, "--tensor-parallel-size", "4",
        "--load-format", "auto", "--block-size", "32", "--max-seq-len-to-capture", "8192", "--max-model-len", "8192",
        "--disable-log-requests", "--uvicorn-log-level", "warning", "--gpu-memory-utilization", "0.95"]
engine_args = {"argv": argv, "args": {"model": ROOT, "tensor-parallel-size": 4, "load-format": "auto", "block-size": 32,
                                      "max-seq-len-to-capture": 8192, "max-model-len": 8192, "disable-log-requests": True,
                                      "uvicorn-log-level": "warning", "gpu-memory-utilization": 0.95}}
server = {"version": {"version": "0.6.1"}, "models": models_body(ROOT, ROOT, MAX_LEN, int(pre_t) + 400), "health": 500}
write_bundle(CASE, endpoint="http://llm-65b.serving.svc:8000", started_at=T0, interval_s=INTERVAL,
             notes="load test against vllm:v0.6.1 (llama-65b, TP=4); /health 500 at capture end",
             scrapes=scrapes, server=server, engine_args=engine_args, model_config=model_config, gpu=gpu,
             logs="\n".join(logs) + "\n")
print("ok", len(scrapes), "kv at crash", round(used / CAP, 3), run_cnt, wait_cnt)
