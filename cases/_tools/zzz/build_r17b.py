"""Writer zzz (round 17, second pair) bundle builder.

Metric families, HELP texts and buckets follow vllm/v1/metrics/loggers.py and
vllm/v1/spec_decode/metrics.py as stored for the v0.10 line (PrometheusStatLogger, SpecDecodingProm,
build_1_2_5_buckets). The periodic log line follows LoggingStatLogger.log ("Engine 000: Avg prompt
throughput ..."). Start-up and error lines are written as the public threads quote them (see each
case's assumed: list)."""
import json, math, random, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3] / "cases"
GIB = 1024 ** 3
MIB = 1024 ** 2

TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
        20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
REQLAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
          480.0, 960.0, 1920.0, 7680.0]
PREFILL_TOK = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
ITER = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1


class Hist:
    def __init__(self, les):
        self.les, self.c, self.n, self.s = les, [0] * len(les), 0, 0.0

    def obs(self, v, k=1):
        for i, le in enumerate(self.les):
            if v <= le:
                self.c[i] += k
        self.n += k
        self.s += v * k

    def emit(self, L, name, help_, lab):
        L += [f"# HELP {name} {help_}", f"# TYPE {name} histogram"]
        for le, c in zip(self.les, self.c):
            L.append(f'{name}_bucket{{{lab},le="{float(le)}"}} {float(c)}')
        L.append(f'{name}_bucket{{{lab},le="+Inf"}} {float(self.n)}')
        L.append(f"{name}_count{{{lab}}} {float(self.n)}")
        L.append(f"{name}_sum{{{lab}}} {round(self.s, 6)}")


def gauge(L, name, help_, lab, v):
    L += [f"# HELP {name} {help_}", f"# TYPE {name} gauge", f"{name}{{{lab}}} {float(v)}"]


def counter(L, name, help_, lab, v):
    L += [f"# HELP {name}_total {help_}", f"# TYPE {name}_total counter", f"{name}_total{{{lab}}} {float(v)}"]


def w(d, name, obj):
    p = d / name
    if name.endswith(".jsonl"):
        p.write_text("".join(json.dumps(x) + "\n" for x in obj))
    elif isinstance(obj, str):
        p.write_text(obj)
    else:
        p.write_text(json.dumps(obj, indent=1) + "\n")


def S(ts):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(ts))


class Engine:
    """1-second step model of one V1 engine: requests prefill (chunked) then decode."""

    def __init__(self, served, mml, spec_k, pool_tokens):
        self.served, self.mml, self.k, self.pool = served, mml, spec_k, pool_tokens
        self.H = dict(ttft=Hist(TTFT), tpot=Hist(TPOT), e2e=Hist(REQLAT), queue=Hist(REQLAT),
                      infer=Hist(REQLAT), prefill=Hist(REQLAT), decode=Hist(REQLAT),
                      ptok=Hist(b125(mml)), gtok=Hist(b125(mml)), maxgen=Hist(b125(mml)),
                      maxtok=Hist(b125(mml)), n=Hist([1, 2, 5, 10, 20]), pft=Hist(PREFILL_TOK), iter=Hist(ITER))
        self.C = dict(prompt=0, gen=0, preempt=0, pq=0, ph=0, drafts=0, dtok=0, acc=0)
        self.pos = [0] * spec_k
        self.succ = {"stop": 0, "length": 0, "abort": 0}
        self.win_p = self.win_g = 0
        self.win_drafts = self.win_dtok = self.win_acc = 0
        self.win_pos = [0] * spec_k


def dsv41_oom():
    cid = "zzz-dsv41-tp8-longprefill-runtime-oom"
    d = ROOT / cid / "bundle"; d.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(94)
    served, mml, K = "deepseek-v4.1-flash", 262144, 5
    pool = 436224                      # 1704 blocks x 256 tokens (11.46 GiB / ~28.2 KB per token, assumed layout)
    blocks = pool // 256
    E = Engine(served, mml, K, pool)
    t0, iv, n = 1790064000.0, 10.0, 60
    t_long, t_oom = t0 + 380.0, None
    long_p, chunk = 188416, 16384
    lab = f'model_name="{served}",engine="0"'
    # normal traffic: agentic / document requests, 2k-30k prompt tokens, 200-1500 output tokens
    reqs, t = [], t0 - 120
    while t < t0 + n * iv:
        t += rnd.expovariate(1 / 6.0)
        p = int(min(30000, max(1800, rnd.lognormvariate(math.log(7000), 0.7))))
        g = rnd.randint(200, 1500)
        mx = rnd.choice([2048, 4096, 8192])
        hit = (int(p * rnd.uniform(0.2, 0.6)) // 256) * 256 if rnd.random() < 0.7 else 0
        reqs.append(dict(a=t, p=p, g=min(g, mx), mx=mx, done_p=hit, hit=hit, gen=0, st="wait", ft=None, last=None,
                         sched=None, pdone=None, long=False))
    reqs.append(dict(a=t_long, p=long_p, g=1200, mx=8192, done_p=0, hit=0, gen=0, st="wait", ft=None, last=None,
                     sched=None, pdone=None, long=True))
    reqs.sort(key=lambda r: r["a"])
    mets, logs, gpu = [], [], []
    steady_used = 81541 * MIB
    total = 81920 * MIB
    pids = [30211 + r for r in range(8)]
    dead = False
    sim_t = t0 - 120
    next_scrape = 0
    busy_until = sim_t
    while next_scrape < n:
        ts_scrape = t0 + next_scrape * iv
        # advance the engine one step (dt seconds) at a time until the scrape
        while sim_t < ts_scrape and not dead:
            active = [r for r in reqs if r["a"] <= sim_t and r["st"] in ("wait", "run")]
            # one engine step: budget of 16384 tokens; long prefill takes whole chunk
            pre = [r for r in active if r["done_p"] < r["p"]]
            dec = [r for r in active if r["done_p"] >= r["p"] and r["st"] == "run"]
            budget, step_tok, step_dt = chunk, 0, 0.0
            ctx_long = 0
            for r in pre:
                take = min(budget - len(dec), r["p"] - r["done_p"])
                if take <= 0:
                    break
                if r["st"] == "wait":
                    r["st"], r["sched"] = "run", sim_t
                    E.C["pq"] += r["p"]
                    E.C["ph"] += r["hit"]
                if r["long"]:
                    ctx_long = r["done_p"] + take
                    if r["done_p"] >= 131072:   # the 9th chunk (ctx 131072 -> 147456) is the one that dies
                        t_oom = sim_t
                        dead = True
                        break
                r["done_p"] += take
                budget -= take
                step_tok += take
            if dead:
                break
            # step time: prefill cost grows with context; decode ~45 ms per spec step
            step_dt = 0.045 + step_tok / 5000.0 + (ctx_long / 1e6) * step_tok / 4000.0 if step_tok else 0.045
            sim_t += step_dt
            for r in pre:
                if r["done_p"] >= r["p"] and r["pdone"] is None:
                    r["pdone"] = sim_t
                    r["ft"] = r["last"] = sim_t
                    r["gen"] = 1
                    E.C["prompt"] += r["p"]; E.win_p += r["p"]
                    E.C["gen"] += 1; E.win_g += 1
                    E.H["ttft"].obs(sim_t - r["a"])
                    step_tok += 1
            ngen = 0
            for r in dec:
                acc = min(K, max(0, int(rnd.gauss(2.2, 1.2))))
                acc = min(acc, r["g"] - r["gen"] - 1) if r["g"] - r["gen"] > 1 else 0
                new = 1 + acc
                E.C["drafts"] += 1; E.C["dtok"] += K; E.C["acc"] += acc
                E.win_drafts += 1; E.win_dtok += K; E.win_acc += acc
                for i in range(acc):
                    E.pos[i] += 1; E.win_pos[i] += 1
                E.H["tpot"].obs((sim_t - r["last"]) / new, new)
                r["last"] = sim_t
                r["gen"] += new
                ngen += new
                if r["gen"] >= r["g"]:
                    r["st"] = "done"
                    reason = "length" if r["g"] >= r["mx"] else "stop"
                    E.succ[reason] += 1
                    e2e = sim_t - r["a"]
                    E.H["e2e"].obs(e2e); E.H["queue"].obs(r["sched"] - r["a"]); E.H["infer"].obs(sim_t - r["sched"])
                    E.H["prefill"].obs(r["pdone"] - r["sched"]); E.H["decode"].obs(sim_t - r["pdone"])
                    E.H["ptok"].obs(r["p"]); E.H["gtok"].obs(r["gen"]); E.H["maxtok"].obs(r["mx"])
                    E.H["pft"].obs((r["pdone"] - r["sched"]) / r["p"])
            E.C["gen"] += ngen; E.win_g += ngen
            if step_tok + ngen:
                E.H["iter"].obs(step_tok + ngen)
            for r in pre:
                if r["gen"] == 1 and r["pdone"] == sim_t:
                    E.H["n"].obs(1); E.H["maxgen"].obs(r["mx"])
        if dead:
            break
        # scrape
        ts = ts_scrape
        run = [r for r in reqs if r["st"] == "run"]
        waiting = [r for r in reqs if r["st"] == "wait" and r["a"] <= ts]
        used_tok = sum(r["done_p"] + r["gen"] for r in run)
        usage = min(1.0, sum(math.ceil((r["done_p"] + r["gen"]) / 256) for r in run) / blocks)
        if next_scrape >= 0:
            L = []
            L += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
                  "# TYPE vllm:cache_config_info gauge",
                  'vllm:cache_config_info{block_size="256",cache_dtype="fp8_ds_mla",calculate_kv_scales="False",'
                  'cpu_offload_gb="0",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",'
                  f'is_attention_free="False",kv_sharing_fast_prefill="False",mamba_page_size_padded="None",'
                  f'num_cpu_blocks="None",num_gpu_blocks="{blocks}",num_gpu_blocks_override="None",'
                  'prefix_caching_hash_algo="builtin",sliding_window="None",swap_space="4.0",'
                  f'swap_space_bytes="{4 * GIB}"}} 1.0']
            gauge(L, "vllm:num_requests_running", "Number of requests in model execution batches.", lab, len(run))
            gauge(L, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", lab, len(waiting))
            gauge(L, "vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.", lab, round(usage, 6))
            counter(L, "vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", lab, E.C["pq"])
            counter(L, "vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", lab, E.C["ph"])
            gauge(L, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lab, round(usage, 6))
            counter(L, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", lab, E.C["pq"])
            counter(L, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", lab, E.C["ph"])
            counter(L, "vllm:num_preemptions", "Cumulative number of preemption from the engine.", lab, 0)
            counter(L, "vllm:prompt_tokens", "Number of prefill tokens processed.", lab, E.C["prompt"])
            counter(L, "vllm:generation_tokens", "Number of generation tokens processed.", lab, E.C["gen"])
            L += ["# HELP vllm:request_success_total Count of successfully processed requests.",
                  "# TYPE vllm:request_success_total counter"]
            for reason in ("stop", "length", "abort"):
                L.append(f'vllm:request_success_total{{{lab},finished_reason="{reason}"}} {float(E.succ[reason])}')
            H = E.H
            H["ptok"].emit(L, "vllm:request_prompt_tokens", "Number of prefill tokens processed.", lab)
            H["gtok"].emit(L, "vllm:request_generation_tokens", "Number of generation tokens processed.", lab)
            H["iter"].emit(L, "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", lab)
            H["maxgen"].emit(L, "vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", lab)
            H["n"].emit(L, "vllm:request_params_n", "Histogram of the n request parameter.", lab)
            H["maxtok"].emit(L, "vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", lab)
            H["ttft"].emit(L, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", lab)
            H["tpot"].emit(L, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", lab)
            H["pft"].emit(L, "vllm:time_per_prefill_token_request_seconds", "Time spent per token during prefill  phase in seconds", lab)
            H["e2e"].emit(L, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", lab)
            H["queue"].emit(L, "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", lab)
            H["infer"].emit(L, "vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", lab)
            H["prefill"].emit(L, "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", lab)
            H["decode"].emit(L, "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", lab)
            counter(L, "vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", lab, E.C["drafts"])
            counter(L, "vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", lab, E.C["dtok"])
            counter(L, "vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", lab, E.C["acc"])
            L += ["# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per draft position.",
                  "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter"]
            for i in range(K):
                L.append(f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{{lab},position="{i}"}} {float(E.pos[i])}')
            mets.append({"t": ts, "status": 200, "text": "\n".join(L) + "\n"})
            # log line every 10 s (LoggingStatLogger)
            pt, gt = E.win_p / iv, E.win_g / iv
            hr = 100.0 * E.C["ph"] / E.C["pq"] if E.C["pq"] else 0.0
            logs.append(f"(APIServer pid=1) INFO {S(ts)} [loggers.py:123] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                        f"Avg generation throughput: {gt:.1f} tokens/s, Running: {len(run)} reqs, Waiting: {len(waiting)} reqs, "
                        f"GPU KV cache usage: {usage * 100:.1f}%, Prefix cache hit rate: {hr:.1f}%")
            if E.win_drafts:
                rates = ", ".join(f"{p / E.win_drafts:.3f}" for p in E.win_pos)
                logs.append(f"(APIServer pid=1) INFO {S(ts)} [metrics.py:96] SpecDecoding metrics: Mean acceptance length: "
                            f"{1 + E.win_acc / E.win_drafts:.2f}, Accepted throughput: {E.win_acc / iv:.2f} tokens/s, "
                            f"Drafted throughput: {E.win_dtok / iv:.2f} tokens/s, Accepted: {E.win_acc} tokens, "
                            f"Drafted: {E.win_dtok} tokens, Per-position acceptance rate: {rates}, "
                            f"Avg Draft acceptance rate: {100 * E.win_acc / E.win_dtok:.1f}%")
            E.win_p = E.win_g = E.win_drafts = E.win_dtok = E.win_acc = 0
            E.win_pos = [0] * K
            # GPU: steady pool + activations; the long prefill grows the footprint
            lr = [r for r in reqs if r["long"] and r["st"] == "run"]
            extra = 0
            if lr:
                extra = -int(lr[0]["done_p"] / 131072 * 90) * MIB
            used = steady_used + extra + rnd.randint(-40, 40) * MIB
            gpu.append({"t": ts, "devices": [{"index": k, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total,
                                              "memory_used": used,
                                              "processes": [{"pid": pids[k], "name": "python3", "used_memory": used - 482 * MIB}]}
                                             for k in range(8)]})
        next_scrape += 1
    # after the crash: the API server is gone, the hung worker processes still hold the memory
    first_fail = next_scrape
    for i in range(first_fail, n):
        ts = t0 + i * iv
        mets.append({"t": ts, "error": "Connection refused (http://localhost:8000/metrics)"})
        used = 81136 * MIB
        gpu.append({"t": ts, "devices": [{"index": k, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total,
                                          "memory_used": used,
                                          "processes": [{"pid": pids[k], "name": "python3", "used_memory": used - 482 * MIB}]}
                                         for k in range(8)]})
    # ---- logs: start-up, steady lines, the OOM
    st = t0 - 900
    head = [f"(APIServer pid=1) INFO {S(st)} [api_server.py:1896] vLLM API server version 0.10.2.dev0+backport",
            f"(APIServer pid=1) INFO {S(st)} [utils.py:328] non-default args: {{'model': '/models/DeepSeek-V4.1-Flash', "
            f"'served_model_name': ['{served}'], 'trust_remote_code': True, 'max_model_len': {mml}, 'block_size': 256, "
            f"'kv_cache_dtype': 'fp8_ds_mla', 'gpu_memory_utilization': 0.9, 'tensor_parallel_size': 8, "
            f"'max_num_batched_tokens': 16384, 'enable_prefix_caching': True, "
            f"'speculative_config': {{'method': 'dspark', 'num_speculative_tokens': {K}}}}}",
            f"(APIServer pid=1) INFO {S(st + 6)} [scheduler.py:222] Chunked prefill is enabled with max_num_batched_tokens=16384."]
    for r in range(8):
        head.append(f"(Worker_TP{r} pid={pids[r]}) INFO {S(st + 430)} [gpu_model_runner.py:2392] Model loading took 62.17 GiB and 412.306518 seconds")
    budget = 0.9 * 81154 / 1024  # torch total 85095874560 B = 79.25 GiB
    fit = budget - 65.17 - 1.55 - 0.70
    full = 78.90 - 65.17 - 1.55 - 0.70
    for r in range(8):
        head.append(f"(Worker_TP{r} pid={pids[r]}) INFO {S(st + 520)} [gpu_worker.py:276] Available KV cache memory: 11.46 GiB")
    head += [f"(EngineCore_DP0 pid=210) INFO {S(st + 521)} [kv_cache_utils.py:864] GPU KV cache size: {pool:,} tokens",
             f"(EngineCore_DP0 pid=210) INFO {S(st + 521)} [kv_cache_utils.py:868] Maximum concurrency for {mml:,} tokens per request: {pool / mml:.2f}x"]
    for r in range(8):
        head.append(f"(Worker_TP{r} pid={pids[r]}) INFO {S(st + 560)} [gpu_model_runner.py:2906] Graph capturing finished in 38 secs, took 0.70 GiB")
    for r in range(8):
        head.append(f"(Worker_TP{r} pid={pids[r]}) INFO {S(st + 560)} [gpu_worker.py:805] Free memory on device (78.9/79.25 GiB) on startup. "
                    f"Desired GPU memory utilization is (0.9, {budget:.2f} GiB). Actual usage is 65.17 GiB for consumed memory "
                    f"(weights + non-torch), 1.55 GiB for peak activation, and 0.7 GiB for CUDAGraph memory. Replace "
                    f"gpu_memory_utilization config with `--kv-cache-memory={int(fit * GIB)}` ({fit:.2f} GiB) to fit into requested "
                    f"memory, or `--kv-cache-memory={int(full * GIB)}` ({full:.2f} GiB) to fully utilize gpu memory. "
                    f"Current kv cache memory in use is 11.46 GiB.")
    head += [f"(EngineCore_DP0 pid=210) INFO {S(st + 561)} [core.py:214] init engine (profile, create kv cache, warmup model) took 129.87 seconds",
             f"(APIServer pid=1) INFO {S(st + 562)} [loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}",
             f"(APIServer pid=1) INFO {S(st + 563)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
             "(APIServer pid=1) INFO:     Application startup complete."]
    tail = []
    if t_oom is not None:
        to = t_oom
        for r in range(8):
            tail.append(f"[rank{r}]:[W{time.strftime('%m%d %H:%M:%S', time.gmtime(to))}.{417000 + r * 13:06d}000 CUDACachingAllocator.cpp:3933] "
                        f"memory allocation failed with OOM on device {r} while trying to allocate 671088640 bytes (free: {513736704 + (5 - r) * 1048576}, total: 85095874560).")
        for r in (5, 2, 0):
            P = f"(Worker_TP{r} pid={pids[r]}) ERROR {S(to)} [multiproc_executor.py:654]"
            tail += [f"{P} WorkerProc hit an exception.",
                     f"{P} Traceback (most recent call last):",
                     f"{P}   File \"/opt/vllm/vllm/v1/executor/multiproc_executor.py\", line 649, in worker_busy_loop",
                     f"{P}     output = func(*args, **kwargs)",
                     f"{P}   File \"/opt/vllm/vllm/v1/worker/gpu_model_runner.py\", line 1589, in execute_model",
                     f"{P}     model_output = self.model(",
                     f"{P}   File \"/opt/vllm/vllm/model_executor/models/deepseek_v4.py\", line 811, in forward",
                     f"{P}     hidden_states, residual = mhc_post_tilelang(hidden_states, residual, ...)",
                     f"{P}   File \"/opt/vllm/vllm/model_executor/layers/mhc.py\", line 212, in mhc_post_tilelang",
                     f"{P}     out = torch.empty_like(residual)",
                     f"{P} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 640.00 MiB. GPU {r} has a total capacity of 79.25 GiB "
                     f"of which {489.94 + (5 - r):.2f} MiB is free. Including non-PyTorch memory, this process has 78.77 GiB memory in use. Of the "
                     f"allocated memory 75.57 GiB is allocated by PyTorch, with 704.00 MiB allocated in private pools (e.g., CUDA Graphs), and "
                     f"204.51 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                     f"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
                     f"(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"]
        tail += [f"(EngineCore_DP0 pid=210) ERROR {S(to + 1)} [core.py:710] EngineCore encountered a fatal error.",
                 f"(EngineCore_DP0 pid=210) ERROR {S(to + 1)} [core.py:710] Exception: WorkerProc hit an exception. See stack trace for more details.",
                 f"(APIServer pid=1) ERROR {S(to + 1)} [async_llm.py:485] AsyncLLM output_handler failed.",
                 f"(APIServer pid=1) ERROR {S(to + 1)} [async_llm.py:485] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.",
                 f"(APIServer pid=1) INFO:     Shutting down",
                 f"(APIServer pid=1) INFO:     Application shutdown complete."]
    # periodic lines only up to the crash
    w(d, "logs.txt", "\n".join(head + logs + tail) + "\n")
    w(d, "metrics.jsonl", mets)
    w(d, "gpu.jsonl", gpu)
    w(d, "manifest.json", {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:8000",
                           "started_at": t0, "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
                           "notes": "8x A100 80GB, TP=8, DSpark speculative decoding. Captured during production traffic; "
                                    "the engine died during the capture and all in-flight requests failed."})
    w(d, "server.json", {"version": {"version": "0.10.2.dev0+backport"},
                         "models": {"object": "list", "data": [{"id": served, "object": "model", "owned_by": "vllm",
                                                                "root": "/models/DeepSeek-V4.1-Flash", "max_model_len": mml}]},
                         "health": 200})
    argv = ["vllm", "serve", "/models/DeepSeek-V4.1-Flash", "--served-model-name", served, "--trust-remote-code",
            "--tensor-parallel-size", "8", "--max-model-len", str(mml), "--block-size", "256", "--kv-cache-dtype", "fp8_ds_mla",
            "--gpu-memory-utilization", "0.90", "--max-num-batched-tokens", "16384", "--enable-prefix-caching",
            "--speculative-config", json.dumps({"method": "dspark", "num_speculative_tokens": K})]
    w(d, "engine_args.json", {"argv": argv, "args": {"model": "/models/DeepSeek-V4.1-Flash", "served-model-name": served,
                                                     "tensor-parallel-size": 8, "max-model-len": mml, "block-size": 256,
                                                     "kv-cache-dtype": "fp8_ds_mla", "gpu-memory-utilization": 0.9,
                                                     "max-num-batched-tokens": 16384, "enable-prefix-caching": True,
                                                     "speculative-config": {"method": "dspark", "num_speculative_tokens": K}}})
    return t_oom, first_fail


def omni_startup():
    cid = "zzz-qwen3omni-stage-free-mem-startup"
    d = ROOT / cid / "bundle"; d.mkdir(parents=True, exist_ok=True)
    model = "/data/models/Qwen/Qwen3-Omni-30B-A3B-Instruct"
    t0, iv, n = 1765440000.0, 10.0, 30          # 2025-12-11, recorded right after the failed start
    tot_gib = 79.32
    total_nvml = 81920 * MIB
    st = t0 - 260
    # thinker stage (stage 0): TP=2 over both visible cards, high utilization (assumed 0.99)
    util0 = 0.99
    budget0 = util0 * tot_gib
    weights, nontorch, act = 30.05, 1.20, 3.60
    kv = budget0 - weights - nontorch - act
    bpt = 48 * 2 * 2 * 128 * 2                  # layers x (K,V) x kv heads per rank (4/2) x head_dim x bf16
    blocks = int(kv * GIB // (16 * bpt))
    tokens = blocks * 16
    mml = 65536
    held = budget0                               # what the thinker holds on each card after its start-up
    ctx1 = 0.30                                  # the talker worker's own CUDA context on that card
    free1 = tot_gib - held - ctx1
    need1 = 0.6 * tot_gib
    L = [f"(APIServer pid=4120) INFO {S(st)} [api_server.py:1772] vLLM API server version 0.12.0",
         f"(APIServer pid=4120) INFO {S(st)} [utils.py:253] non-default args: {{'model_tag': '{model}', 'host': '0.0.0.0', 'port': 10808, 'model': '{model}', 'omni': True}}",
         f"(APIServer pid=4120) INFO {S(st + 2)} [omni_stage.py:88] [Stage-0] Launching thinker stage (devices=0,1, tensor_parallel_size=2, gpu_memory_utilization={util0})",
         f"(APIServer pid=4120) INFO {S(st + 2)} [omni_stage.py:88] [Stage-1] Launching talker stage (devices=1, gpu_memory_utilization=0.6)",
         f"(APIServer pid=4120) INFO {S(st + 2)} [omni_stage.py:88] [Stage-2] Launching code2wav stage (devices=1)"]
    for r, pid in ((0, 4301), (1, 4302)):
        L.append(f"(Worker_TP{r} pid={pid}) [Stage-0] INFO {S(st + 95)} [gpu_model_runner.py:3338] Model loading took {weights:.4f} GiB memory and 71.226831 seconds")
    for r, pid in ((0, 4301), (1, 4302)):
        L.append(f"(Worker_TP{r} pid={pid}) [Stage-0] INFO {S(st + 140)} [gpu_worker.py:298] Available KV cache memory: {kv:.2f} GiB")
    L += [f"(EngineCore_DP0 pid=4290) [Stage-0] INFO {S(st + 141)} [kv_cache_utils.py:1087] GPU KV cache size: {tokens:,} tokens",
          f"(EngineCore_DP0 pid=4290) [Stage-0] INFO {S(st + 141)} [kv_cache_utils.py:1091] Maximum concurrency for {mml:,} tokens per request: {tokens / mml:.2f}x",
          f"(EngineCore_DP0 pid=4290) [Stage-0] INFO {S(st + 142)} [core.py:250] init engine (profile, create kv cache, warmup model) took 44.91 seconds"]
    P = f"(Worker pid=4411) [Stage-1] ERROR {S(st + 150)} [multiproc_executor.py:750]"
    L += [f"{P} WorkerProc failed to start.",
          f"{P} Traceback (most recent call last):",
          f"{P}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 722, in worker_main",
          f"{P}     worker = WorkerProc(*args, **kwargs)",
          f"{P}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 562, in __init__",
          f"{P}     self.worker.init_device()",
          f"{P}   File \"/usr/local/lib/python3.12/dist-packages/vllm/worker/worker_base.py\", line 324, in init_device",
          f"{P}     self.worker.init_device()  # type: ignore",
          f"{P}   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py\", line 235, in init_device",
          f"{P}     raise ValueError(",
          f"{P} ValueError: Free memory on device ({free1:.2f}/{tot_gib:.2f} GiB) on startup is less than desired GPU memory utilization (0.6, {need1:.2f} GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
          f"(EngineCore_DP0 pid=4400) [Stage-1] ERROR {S(st + 151)} [core.py:842] EngineCore failed to start.",
          f"(EngineCore_DP0 pid=4400) [Stage-1] ERROR {S(st + 151)} [core.py:842] Exception: WorkerProc initialization failed due to an exception in a background process. See stack trace for root cause.",
          f"(APIServer pid=4120) ERROR {S(st + 152)} [omni_stage.py:311] [Stage-1] stage initialization failed; shutting down all stages",
          f"(APIServer pid=4120) INFO {S(st + 155)} [omni_stage.py:330] [Stage-0] stage stopped",
          f"RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}"]
    w(d, "logs.txt", "\n".join(L) + "\n")
    w(d, "metrics.jsonl", [{"t": t0 + i * iv, "error": "Connection refused (http://localhost:10808/metrics)"} for i in range(n)])
    w(d, "gpu.jsonl", [{"t": t0 + i * iv, "devices": [{"index": k, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total_nvml,
                                                       "memory_used": 4 * MIB, "processes": []} for k in range(8)]}
                       for i in range(n)])
    w(d, "manifest.json", {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:10808",
                           "started_at": t0, "ended_at": t0 + (n - 1) * iv, "interval_s": iv,
                           "notes": "vllm-omni server (Qwen3-Omni, default stage config), CUDA_VISIBLE_DEVICES=1,5. Recorded right after "
                                    "the failed start; all stage processes had exited."})
    argv = ["vllm", "serve", model, "--omni", "--host", "0.0.0.0", "--port", "10808"]
    w(d, "engine_args.json", {"argv": argv, "args": {"model": model, "omni": True, "host": "0.0.0.0", "port": 10808}})
    w(d, "model_config.json", {"architectures": ["Qwen3OmniMoeForConditionalGeneration"], "model_type": "qwen3_omni_moe",
                               "thinker_config": {"model_type": "qwen3_omni_moe_thinker",
                                                  "text_config": {"model_type": "qwen3_omni_moe_text", "hidden_size": 2048,
                                                                  "num_hidden_layers": 48, "num_attention_heads": 32,
                                                                  "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128,
                                                                  "num_experts_per_tok": 8, "moe_intermediate_size": 768,
                                                                  "vocab_size": 151936, "max_position_embeddings": 65536,
                                                                  "torch_dtype": "bfloat16"}},
                               "torch_dtype": "bfloat16"})
    return dict(kv=round(kv, 2), blocks=blocks, tokens=tokens, free1=round(free1, 2), need1=round(need1, 2))


if __name__ == "__main__":
    import sys
    which = sys.argv[1:] or ["dsv41"]
    if "dsv41" in which:
        print(dsv41_oom())
    if "omni" in which:
        print(omni_startup())
