"""zyu-glm51-mtp-rpc-timeout-engine-dead: GLM-5.1-FP8, TP=8 on 8x H200, MTP (3 draft tokens).
Normal traffic, then the workers hang: ~30 s without a step, the sample_tokens RPC times
out, EngineCore dies and the API server exits; later scrapes fail."""
import calendar, random, sys, time
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from prom import Engine, render, write_bundle

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zyu-glm51-mtp-rpc-timeout-engine-dead/bundle"
rnd = random.Random(40926)
T0 = calendar.timegm((2026, 4, 25, 18, 2, 0))
IV, N = 10, 61
STALL, DEAD = 246, 276          # seconds: workers hang; RPC timeout (30 s) kills EngineCore
MODEL = "zai-org/GLM-5.1-FP8"
MML, MAXSEQ, BS, NBLK = 131072, 64, 64, 18750
PF_BUDGET, PER_STREAM = 16384, 46.0
POS = [0.81, 0.62, 0.44]        # per-position acceptance

e = Engine(MML)
spec = dict(drafts=0, draft_tokens=0, accepted=0, per_pos=[0, 0, 0])
waiting, running = [], []
scrapes, logs = [], []
acc = dict(p=0, g=0, dr=0, dt=0, ac=0, pp=[0, 0, 0])
last = (0.0, 0.0)
frac = 0.0

def hs(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(T0 + t))

logs.append("(EngineCore_DP0 pid=312) INFO 04-25 17:41:07 [kv_cache_utils.py:1087] GPU KV cache size: 1,200,000 tokens\n")
logs.append("(APIServer pid=1) INFO 04-25 17:44:52 [api_server.py:1688] Starting vLLM API server 0 on http://0.0.0.0:8000\n")
for s in range(0, IV * (N - 1) + 1):
    for _ in range(2):   # about 1.36 requests/s
        if s < DEAD and rnd.random() < 0.68:
            waiting.append(dict(p=rnd.randint(1500, 12000), n=rnd.randint(250, 1400), pf=0, done=0, ta=s))
    if s < STALL:
        while waiting and len(running) < MAXSEQ:
            r = waiting.pop(0); r["tsch"] = s; running.append(r)
        b = PF_BUDGET
        for r in running:
            if r["pf"] < r["p"] and b > 0:
                k = min(b, r["p"] - r["pf"]); r["pf"] += k; b -= k
                e.c["prompt"] += k; e.c["prefix_q"] += k; acc["p"] += k
                if r["pf"] == r["p"]:
                    r["tf"] = s + 0.15 + k / PF_BUDGET
                    e.first_token(r["tf"] - r["ta"], 2048)
                    r["done"] = 1; e.c["gen"] += 1; acc["g"] += 1
        dec = [r for r in running if r["pf"] == r["p"] and r["done"] < r["n"]]
        steps = 16   # engine steps per second at this batch
        for r in dec:
            k = min(int(PER_STREAM + rnd.random()), r["n"] - r["done"])
            r["done"] += k; e.c["gen"] += k; acc["g"] += k
            e.h["vllm:inter_token_latency_seconds"].observe(1.0 / PER_STREAM, k)
        if dec:
            nd = steps * len(dec)
            spec["drafts"] += nd; spec["draft_tokens"] += 3 * nd
            acc["dr"] += nd; acc["dt"] += 3 * nd
            for j, pr in enumerate(POS):
                a = int(nd * pr); spec["per_pos"][j] += a; acc["pp"][j] += a
                spec["accepted"] += a; acc["ac"] += a
            e.h["vllm:iteration_tokens_total"].observe(4 * len(dec), steps)
        for r in [r for r in running if r["done"] >= r["n"]]:
            running.remove(r)
            e.finish(r["p"], r["n"], 2048, r["tsch"] - r["ta"], r["tf"] - r["tsch"], s + 1 - r["tf"], "stop")
    e.running, e.waiting = len(running), len(waiting)
    if s < STALL:
        e.kv = sum(-(-(r["pf"] + r["done"]) // BS) for r in running) / NBLK
    if s % IV == 0:
        if s > 0 and s < DEAD:
            pt, gt = acc["p"] / IV, acc["g"] / IV
            idle = not any((pt, gt) + last); last = (pt, gt)
            if not idle:
                logs.append(f"(APIServer pid=1) INFO {hs(s)} [loggers.py:236] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                            f"Avg generation throughput: {gt:.1f} tokens/s, Running: {e.running} reqs, Waiting: {e.waiting} reqs, "
                            f"GPU KV cache usage: {e.kv*100:.1f}%, Prefix cache hit rate: 0.0%\n")
                if acc["dr"]:
                    mal = 1 + acc["ac"] / acc["dr"]
                    logs.append(f"(APIServer pid=1) INFO {hs(s)} [metrics.py:96] SpecDecoding metrics: Mean acceptance length: {mal:.2f}, "
                                f"Accepted throughput: {acc['ac']/IV:.2f} tokens/s, Drafted throughput: {acc['dt']/IV:.2f} tokens/s, "
                                f"Accepted: {acc['ac']} tokens, Drafted: {acc['dt']} tokens, Per-position acceptance rate: "
                                + ", ".join(f"{x/acc['dr']:.3f}" for x in acc["pp"])
                                + f", Avg Draft acceptance rate: {acc['ac']/acc['dt']*100:.1f}%\n")
            acc = dict(p=0, g=0, dr=0, dt=0, ac=0, pp=[0, 0, 0])
        if s < DEAD:
            logs.append('(APIServer pid=1) INFO:     10.0.3.14:39210 - "GET /metrics HTTP/1.1" 200 OK\n')
            scrapes.append({"t": T0 + s, "status": 200, "text": render({0: e}, MODEL, {
                "block_size": str(BS), "cache_dtype": "fp8", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
                "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
                "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
                "num_cpu_blocks": "None", "num_gpu_blocks": str(NBLK), "num_gpu_blocks_override": "None",
                "prefix_caching_hash_algo": "sha256", "sliding_window": "None"}, spec=spec)})
        else:
            scrapes.append({"t": T0 + s, "error": "GET http://gpu-node-07:8000/metrics: [Errno 111] Connection refused"})
    if s == DEAD:
        ep = "(EngineCore_DP0 pid=312)"
        logs += [
            f"{ep} ERROR {hs(s)} [dump_input.py:72] Dumping input data for V1 LLM engine (v0.20.1) with config: model='{MODEL}', speculative_config=SpeculativeConfig(method='mtp', model='{MODEL}', num_spec_tokens=3), tensor_parallel_size=8, ...\n",
            f"{ep} ERROR {hs(s)} [dump_input.py:79] Dumping scheduler output for model execution: SchedulerOutput(scheduled_new_reqs=[], scheduled_cached_reqs=CachedRequestData(req_ids={len(running)} reqs), num_scheduled_tokens={{...}}, total_num_scheduled_tokens={4*len(running)}, ...)\n",
            f"{ep} ERROR {hs(s)} [dump_input.py:81] Dumping scheduler stats: SchedulerStats(num_running_reqs={len(running)}, num_waiting_reqs={len(waiting)}, step_counter=0, current_wave=0, kv_cache_usage={e.kv:.4f}, ...)\n",
            f"{ep} ERROR {hs(s)} [core.py:1128] EngineCore encountered a fatal error.\n",
            f"{ep} ERROR {hs(s)} [core.py:1128] Traceback (most recent call last):\n",
            f'{ep} ERROR {hs(s)} [core.py:1128]   File ".../vllm/v1/engine/core.py", line 1205, in _process_engine_step\n',
            f"{ep} ERROR {hs(s)} [core.py:1128]     outputs, model_executed = self.step_fn()\n",
            f'{ep} ERROR {hs(s)} [core.py:1128]   File ".../vllm/v1/engine/core.py", line 523, in step_with_batch_queue\n',
            f"{ep} ERROR {hs(s)} [core.py:1128]     model_output = future.result()\n",
            f'{ep} ERROR {hs(s)} [core.py:1128]   File ".../vllm/v1/executor/multiproc_executor.py", line 388, in get_response\n',
            f'{ep} ERROR {hs(s)} [core.py:1128]     raise TimeoutError(f"RPC call to {{method}} timed out.") from e\n',
            f"{ep} ERROR {hs(s)} [core.py:1128] TimeoutError: RPC call to sample_tokens timed out.\n",
            f"(APIServer pid=1) ERROR {hs(s)} [async_llm.py:525] AsyncLLM output_handler failed.\n",
            f"(APIServer pid=1) ERROR {hs(s)} [async_llm.py:525] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.\n",
        ] + [f'(APIServer pid=1) INFO:     10.0.3.{rnd.randint(20,90)}:{rnd.randint(30000,60000)} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error\n' for _ in range(6)] + [
            f"(APIServer pid=1) INFO {hs(s+1)} [launcher.py:110] Shutting down FastAPI HTTP server.\n",
            "INFO:     Shutting down\n", "INFO:     Finished server process [1]\n",
        ]

write_bundle(OUT,
    {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://gpu-node-07:8000",
     "started_at": T0, "ended_at": T0 + IV * (N - 1), "interval_s": float(IV),
     "notes": "production GLM-5.1 endpoint; users report requests hanging, then 5xx"},
    scrapes,
    server={"version": {"version": "0.20.1"},
            "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                       "root": MODEL, "max_model_len": MML}]}, "health": 200},
    engine_args={"argv": None, "args": {"model": MODEL, "tensor-parallel-size": 8, "max-num-seqs": MAXSEQ,
                 "max-model-len": MML, "gpu-memory-utilization": 0.9, "kv-cache-dtype": "fp8",
                 "speculative-config": '{"method":"mtp","num_speculative_tokens":3}'}},
    logs="".join(logs))
print("running at stall", len(running), "waiting end", len(waiting))
