"""Writer zzg's cases (round 13): builds cases/zzg-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzg/cases.py
Numbers not quoted from the source are listed under `assumed:` in each case.yaml. Seeded, no wall clock.
gen.py is zzb's builder copied unchanged (families / HELP / buckets from the last scrape of an existing case bundle).
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB = 1024 ** 3
MiB = 1024 ** 2
ts = gen.ts
V0T = "c-v0-recompute-warnings-limo32b"   # vLLM 0.7.3 (V0) bundle
V1T = "b-hybrid-qwen35-block528"          # vLLM 0.19.1 (V1) bundle


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def args_of(argv: list[str]) -> dict:
    a, i = {}, 2
    while i < len(argv):
        k = argv[i][2:]
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            v = argv[i + 1]
            for cast in (int, float):
                try:
                    v = cast(v); break
                except ValueError:
                    pass
            a[k] = v; i += 2
        else:
            a[k] = True; i += 1
    return a


def write_manifest(out: Path, t0: float, t1: float, interval: float, notes: str, endpoint: str, extra: dict | None = None) -> None:
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": t0,
           "ended_at": t1, "interval_s": interval, "notes": notes}
    man.update(extra or {})
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")


# ---------------------------------------------------------------- 1: vllm#13218 (dev-13)
def gauge_removed() -> None:
    cid = "zzg-v0-gen-throughput-gauge-removed"
    t0 = utc(2025, 2, 13, 6, 20, 0)
    rnd = random.Random(13218)
    interval, n = 10.0, 61
    reqs, t, rid = [], t0 - 240, 0
    while t < t0 + 600:
        t += rnd.expovariate(1.5)
        p = rnd.randint(300, 1500)
        g = rnd.randint(80, 450)
        cached = (p // 16) * 16 * 0 + (min(p, 512) // 16) * 16 if rnd.random() < 0.6 else 0  # shared system prompt
        reqs.append(Req(rid, t, p, cached, g, 1024, "stop")); rid += 1
    pool = 62_800 * 16
    c = Case(cid=cid, version="0.7.2", v0=True, model_name="Qwen/Qwen2.5-7B-Instruct", model_root="Qwen/Qwen2.5-7B-Instruct",
             max_model_len=8192, start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V0T, gpu_memory_utilization="0.9", num_gpu_blocks="62800", num_cpu_blocks="4681",
                                   enable_prefix_caching="True", block_size="16", swap_space="4"),
             pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V0T)
    gen.simulate(c, reqs, lambda k: 0.0125 + 0.00009 * k, lambda r, k: 0.018 + (r.prompt - r.cached) / 22000.0, gen_reserve=False)
    root = "Qwen/Qwen2.5-7B-Instruct"
    argv = ["vllm", "serve", root, "--max-model-len", "8192", "--enable-prefix-caching", "--disable-log-requests"]
    ts0 = t0 - 900
    logs = [(ts0, f"INFO {ts(ts0)} api_server.py:840] vLLM API server version 0.7.2"),
            (ts0 + 0.1, f"INFO {ts(ts0)} api_server.py:841] args: Namespace(host=None, port=8000, model='{root}', max_model_len=8192, "
                        f"gpu_memory_utilization=0.9, swap_space=4, block_size=None, enable_prefix_caching=True, disable_log_requests=True)"),
            (ts0 + 6, f"INFO {ts(ts0 + 6)} llm_engine.py:234] Initializing a V0 LLM engine (v0.7.2) with config: model='{root}', speculative_config=None, "
                      f"tokenizer='{root}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, "
                      f"max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, "
                      f"disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, "
                      f"served_model_name={root}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, "
                      f"chunked_prefill_enabled=False, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, "
                      f"pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":256}}, use_cached_outputs=True, "),
            (ts0 + 30, f"INFO {ts(ts0 + 30)} model_runner.py:1115] Loading model weights took 14.2487 GB"),
            (ts0 + 34, f"INFO {ts(ts0 + 34)} worker.py:266] Memory profiling takes 2.41 seconds"),
            (ts0 + 34.1, f"INFO {ts(ts0 + 34)} worker.py:266] the current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.24GiB"),
            (ts0 + 34.2, f"INFO {ts(ts0 + 34)} worker.py:266] model weights take 14.25GiB; non_torch_memory takes 0.21GiB; PyTorch activation peak memory takes 1.38GiB; the rest of the memory reserved for KV Cache is 55.40GiB."),
            (ts0 + 34.3, f"INFO {ts(ts0 + 34)} executor_base.py:110] # CUDA blocks: 62800, # CPU blocks: 4681"),
            (ts0 + 34.4, f"INFO {ts(ts0 + 34)} executor_base.py:115] Maximum concurrency for 8192 tokens per request: 122.66x"),
            (ts0 + 52, f"INFO {ts(ts0 + 52)} model_runner.py:1562] Graph capturing finished in 17 secs, total memory used 0.62 GiB"),
            (ts0 + 52.1, f"INFO {ts(ts0 + 52)} llm_engine.py:431] init engine (profile, create kv cache, warmup model) took 21.37 seconds"),
            (ts0 + 54, f"INFO {ts(ts0 + 54)} api_server.py:926] Starting vLLM API server on http://0.0.0.0:8000")]
    pre = lambda x: [r for r in reqs if r.t_first <= x]
    tt = t0 - 200
    while tt < t0 + (n - 1) * interval:
        a, b = tt, tt + 5
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        pend = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        ct = sum(r.cached for r in pre(b)) - sum(r.cached for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
        logs.append((b, f"INFO {ts(b)} metrics.py:455] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, "
                        f"Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, GPU KV cache usage: {100 * blocks * 16 / pool:.1f}%, CPU KV cache usage: 0.0%."))
        logs.append((b + 0.001, f"INFO {ts(b)} metrics.py:471] Prefix cache hit rate: GPU: {100.0 * ct / pt if pt else 0.0:.2f}%, CPU: 0.00%"))
        tt = b
    for r in reqs:
        if r.t_end <= t0 + (n - 1) * interval:
            logs.append((r.t_end + 0.001, f'INFO:     10.8.3.{21 + r.rid % 4}:{50000 + r.rid % 15000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    for k in range(n):
        logs.append((t0 + k * interval + 0.02, f'INFO:     10.8.0.9:{38000 + k} - "GET /metrics HTTP/1.1" 200 OK'))
    used = 73_500 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 81920 * MiB, "memory_used": used + 4 * MiB,
                               "processes": [{"pid": 1, "name": "python3", "used_memory": used}]}])
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645, "hidden_act": "silu",
          "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 32768, "max_window_layers": 28,
          "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
          "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
          "transformers_version": "4.43.1", "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}
    out = ROOT / "cases" / cid / "bundle"
    gen.write(c, out, server=gen.server_json("0.7.2", root, root, 8192, int(ts0 + 54)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="After the upgrade from vLLM 0.5.3.post1 to 0.7.2 the Grafana panel 'Avg generation throughput' (vllm:avg_generation_throughput_toks_per_s) is empty; the operator recorded the server to check it.",
              endpoint="http://10.8.0.4:8000")
    print(cid, "reqs", len(reqs), "max running", max(sum(1 for r in reqs if r.t_sched <= t0 + k * interval < r.t_end) for k in range(n)))


# ---------------------------------------------------------------- 2: vllm#48966
def engine_death() -> None:
    cid = "zzg-engine-death-exit0-offload-assert"
    crash = utc(2026, 7, 17, 7, 4, 8)          # 01:04:08 MDT
    interval, n_ok, n_dead = 10.0, 12, 48
    t0 = crash - 118
    rnd = random.Random(48966)
    reqs, t, rid = [], t0 - 300, 0
    prefixes = [rnd.randint(5000, 24000) for _ in range(6)]
    while t < crash + 30:
        t += rnd.expovariate(0.3)
        base = rnd.choice(prefixes)
        p = base + rnd.randint(400, 10000)
        cached = (base // 64) * 64 if rnd.random() < 0.85 else 0
        reqs.append(Req(rid, t, p, cached, rnd.randint(200, 1500), 4096, "stop")); rid += 1
    pool = 3750 * 64
    model = "deepseek-ai/DeepSeek-V4-Flash"
    c = Case(cid=cid, version="0.24.0", v0=False, model_name=model, model_root=model, max_model_len=131072, start=t0,
             n_scrapes=n_ok, interval=interval,
             labels_cc=gen.tmpl_cc(V1T, gpu_memory_utilization="0.92", num_gpu_blocks="3750", block_size="64", enable_prefix_caching="True",
                                   kv_offloading_backend="native", kv_offloading_size="128.0", mamba_block_size="None",
                                   mamba_cache_mode="none", mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto",
                                   user_specified_block_size="False"),
             pool_tokens=pool, block_size=64, max_num_seqs=256, tmpl=V1T)
    gen.simulate(c, reqs, lambda k: 0.018 + 0.0004 * k, lambda r, k: 0.15 + (r.prompt - r.cached) / 9000.0, gen_reserve=False)
    # requests that had not finished at the crash never finish
    for r in reqs:
        if r.t_end > crash:
            r.t_end = 1e12
            r.reason = "error"
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    def with_offload_hits(text: str) -> str:
        """CPU offload connector: a share of the local misses is loaded from the CPU tier (external hits)."""
        import re
        q = float(re.search(r'^vllm:prefix_cache_queries_total\{[^}]*\} (\S+)$', text, re.M).group(1))
        h = float(re.search(r'^vllm:prefix_cache_hits_total\{[^}]*\} (\S+)$', text, re.M).group(1))
        eq = q - h
        eh = float(int(0.35 * eq / 64) * 64)
        text = re.sub(r'^(vllm:external_prefix_cache_queries_total\{[^}]*\}) \S+$', lambda m: f"{m.group(1)} {eq}", text, flags=re.M)
        text = re.sub(r'^(vllm:external_prefix_cache_hits_total\{[^}]*\}) \S+$', lambda m: f"{m.group(1)} {eh}", text, flags=re.M)
        text = re.sub(r'^(vllm:prompt_tokens_by_source_total\{[^}]*source="local_compute"\}) \S+$', lambda m: f"{m.group(1)} {eq - eh}", text, flags=re.M)
        text = re.sub(r'^(vllm:prompt_tokens_by_source_total\{[^}]*source="external_kv_transfer"\}) \S+$', lambda m: f"{m.group(1)} {eh}", text, flags=re.M)
        return text
    recs = [json.dumps({"t": round(t0 + k * interval, 3), "status": 200, "text": with_offload_hits(gen.scrape(c, t0 + k * interval, t0 - 3600))}) for k in range(n_ok)]
    for k in range(n_dead):
        recs.append(json.dumps({"t": round(t0 + (n_ok + k) * interval, 3),
                                "error": "GET http://10.40.2.11:8000/metrics: connection refused ([Errno 111] Connection refused)"}))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    A, E = "(APIServer pid=1)", "(EngineCore pid=287)"
    W = "(Worker_TP0 pid=401)"
    lt = lambda x: ts(x)
    argv = ["vllm", "serve", model, "--tensor-parallel-size", "2", "--max-model-len", "131072", "--gpu-memory-utilization", "0.92",
            "--enable-prefix-caching", "--kv-offloading-backend", "native", "--kv-offloading-size", "128", "--port", "8000"]
    logs = []
    ts0 = t0 - 1500
    logs += [(ts0, f"{A} INFO {lt(ts0)} [api_server.py:1351] vLLM API server version 0.24.0"),
             (ts0 + 0.1, f"{A} INFO {lt(ts0)} [utils.py:253] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 131072, "
                         f"'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.92, 'enable_prefix_caching': True, 'kv_offloading_backend': 'native', 'kv_offloading_size': 128.0}}"),
             (ts0 + 9, f"{A} INFO {lt(ts0 + 9)} [model.py:1510] Using max model len 131072"),
             (ts0 + 9.1, f"{A} INFO {lt(ts0 + 9)} [scheduler.py:229] Chunked prefill is enabled with max_num_batched_tokens=8192."),
             (ts0 + 200, f"{W} INFO {lt(ts0 + 200)} [gpu_model_runner.py:3905] Model loading took 71.62 GiB memory and 171.204518 seconds"),
             (ts0 + 260, f"{W} INFO {lt(ts0 + 260)} [gpu_worker.py:390] Available KV cache memory: 9.88 GiB"),
             (ts0 + 260.2, f"{E} INFO {lt(ts0 + 260)} [kv_cache_utils.py:1291] GPU KV cache size: 240,000 tokens"),
             (ts0 + 260.3, f"{E} INFO {lt(ts0 + 260)} [kv_cache_utils.py:1296] Maximum concurrency for 131,072 tokens per request: 1.83x"),
             (ts0 + 261, f"{E} INFO {lt(ts0 + 261)} [factory.py:64] Creating offloading spec with name: CPUOffloadingSpec"),
             (ts0 + 262, f"{E} INFO {lt(ts0 + 262)} [offloading_connector.py:96] Offloading KV cache to CPU: 128.00 GiB, block size 64 tokens"),
             (ts0 + 310, f"{E} INFO {lt(ts0 + 310)} [core.py:278] init engine (profile, create kv cache, warmup model) took 104.92 seconds"),
             (ts0 + 314, f"{A} INFO {lt(ts0 + 314)} [api_server.py:1399] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    for lt_, line in gen.stats_lines(c, t0 - 120, crash - 1, 1, "loggers.py:271", prefix=True):
        logs.append((lt_, line))
    for r in reqs:
        if r.t_end <= crash:
            logs.append((r.t_end + 0.001, f'{A} INFO:     10.40.2.5:{42000 + r.rid % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    P = "/usr/local/lib/python3.12/dist-packages/vllm"
    tb = [f"{E} ERROR {lt(crash)} [core.py:1110] EngineCore encountered a fatal error.",
          f"{E} ERROR {lt(crash)} [core.py:1110] Traceback (most recent call last):",
          f'{E} ERROR {lt(crash)} [core.py:1110]   File "{P}/v1/engine/core.py", line 1101, in run_engine_core',
          f"{E} ERROR {lt(crash)} [core.py:1110]     engine_core.run_busy_loop()",
          f'{E} ERROR {lt(crash)} [core.py:1110]   File "{P}/v1/engine/core.py", line 1142, in run_busy_loop',
          f"{E} ERROR {lt(crash)} [core.py:1110]     self._process_engine_step()",
          f'{E} ERROR {lt(crash)} [core.py:1110]   File "{P}/v1/engine/core.py", line 1175, in _process_engine_step',
          f"{E} ERROR {lt(crash)} [core.py:1110]     outputs, model_executed = self.step_fn()",
          f'{E} ERROR {lt(crash)} [core.py:1110]   File "{P}/v1/engine/core.py", line 412, in step',
          f"{E} ERROR {lt(crash)} [core.py:1110]     scheduler_output = self.scheduler.schedule()",
          f'{E} ERROR {lt(crash)} [core.py:1110]   File "{P}/v1/core/sched/scheduler.py", line 602, in schedule',
          f"{E} ERROR {lt(crash)} [core.py:1110]     self.connector.update_state_after_alloc(request, new_blocks, num_external_computed_tokens)",
          f'{E} ERROR {lt(crash)} [core.py:1110]   File "{P}/distributed/kv_transfer/kv_connector/v1/offloading_connector.py", line 128, in update_state_after_alloc',
          f"{E} ERROR {lt(crash)} [core.py:1110]     return self.connector_scheduler.update_state_after_alloc(request, blocks, num_external_tokens)",
          f'{E} ERROR {lt(crash)} [core.py:1110]   File "{P}/distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py", line 241, in update_state_after_alloc',
          f"{E} ERROR {lt(crash)} [core.py:1110]     assert num_computed_gpu_blocks + len(src_block_ids) == len(block_ids)",
          f"{E} ERROR {lt(crash)} [core.py:1110] AssertionError",
          f"{A} ERROR {lt(crash + 0.2)} [async_llm.py:693] AsyncLLM output_handler failed.",
          f"{A} ERROR {lt(crash + 0.2)} [async_llm.py:693] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."]
    for k, ln in enumerate(tb):
        logs.append((crash + 0.001 * k, ln))
    inflight = [r for r in reqs if r.t_arr <= crash < r.t_end]
    for k, r in enumerate(inflight):
        logs.append((crash + 0.3 + 0.001 * k, f'{A} INFO:     10.40.2.5:{42000 + r.rid % 20000} - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'))
    logs += [(crash + 0.6, f"{A} ERROR {lt(crash + 0.6)} [api_server.py:1447] Engine core died; shutting down the API server."),
             (crash + 0.7, f"{A} INFO:     Shutting down"),
             (crash + 1.2, f"{A} INFO:     Waiting for application shutdown."),
             (crash + 1.3, f"{A} INFO:     Application shutdown complete."),
             (crash + 1.4, f"{A} INFO:     Finished server process [1]"),
             (crash + 4, "vllm-dsv4.service: Deactivated successfully."),
             (crash + 4.1, "vllm-dsv4.service: Consumed 3h 41min 12.881s CPU time.")]
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")
    gpu = []
    for k in range(n_ok + n_dead):
        tt = t0 + k * interval
        alive = tt < crash
        devs = []
        for i in range(2):
            used = 88_650 * MiB if alive else 0
            devs.append({"index": i, "name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "memory_total": 97_887 * MiB,
                         "memory_used": used + 512 * MiB,
                         "processes": ([{"pid": 401 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used}] if alive else [])})
        gpu.append({"t": round(tt, 3), "devices": devs})
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "server.json").write_text(json.dumps(gen.server_json("0.24.0", model, model, 131072, int(ts0 + 314)), indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps({"argv": argv, "args": args_of(argv)}, indent=1) + "\n")
    write_manifest(out, t0, t0 + (n_ok + n_dead - 1) * interval, interval,
                   "DeepSeek V4 Flash, TP2 on RTX PRO 6000 Blackwell, CPU KV offload; the endpoint went offline at 01:04 MDT and systemd (Restart=on-failure) did not restart it. Log = journalctl of the unit.",
                   "http://10.40.2.11:8000")
    print(cid, "in flight at crash", len(inflight), "max waiting", max(sum(1 for r in reqs if r.t_arr <= t0 + k * interval < r.t_sched) for k in range(n_ok)),
          "max usage", max(sum(r.prompt + r.gen_by(t0 + k * interval) for r in reqs if r.t_sched <= t0 + k * interval < r.t_end) / pool for k in range(n_ok)))


# ---------------------------------------------------------------- 3: tenstorrent/tt-inference-server#4753
SEEDS = [6000, 7003, 8007, 5003]  # chosen so the per-engine KV usage at the stall matches the quoted 59.6 % (engine 003) and the assumed 55-64 % (others)


def tt_stall() -> None:
    cid = "zzg-tt-dp4-gptoss-running-no-tokens"
    stall = utc(2026, 7, 22, 20, 1, 30)
    interval, n = 15.0, 41
    t0 = stall - 240
    rnd = random.Random(4753)
    slots = [9, 8, 8, 7]   # client slots per engine; engine 002 has one slot whose request arrives after the stall
    model = "openai/gpt-oss-120b"
    pool = 1685 * 64

    class SReq(Req):
        def gen_by(self, t):
            return Req.gen_by(self, min(t, stall))

        def steps_by(self, t):
            return Req.steps_by(self, min(t, stall))

    cases, rid = [], 0
    for e, ns in enumerate(slots):
        rnd = random.Random(SEEDS[e])
        reqs = []
        for s in range(ns):
            t = t0 - 1800 + rnd.uniform(0, 200)
            while True:
                p = rnd.randint(300, 2500)
                g = rnd.randint(1500, 16000)
                r = SReq(rid, t, p, 0, g, 16384, "stop"); rid += 1
                r.step_s = 0.070 + 0.0012 * ns
                r.t_sched = t
                r.t_first = t + 0.3 + p / 4000.0
                r.t_end = r.t_first + r.steps() * r.step_s
                if e == 2 and s == ns - 1 and r.t_end > stall - 20:
                    # this slot's request finishes just before the stall; the next one arrives after it and waits
                    r.t_end = min(r.t_end, stall - 12)
                    r.gen = max(2, 1 + int((r.t_end - r.t_first) / r.step_s))
                    r.t_end = r.t_first + r.steps() * r.step_s
                    reqs.append(r)
                    w = SReq(rid, stall + 23.0, 1900, 0, 4000, 16384, "stop"); rid += 1
                    w.t_sched = w.t_first = w.t_end = 1e12
                    reqs.append(w)
                    break
                if r.t_end > stall:
                    r.t_end = 1e12   # wedged: never finishes
                    reqs.append(r)
                    break
                reqs.append(r)
                t = r.t_end + rnd.uniform(0.5, 3.0)
        c = Case(cid=cid, version="0.11.1", v0=False, model_name=model, model_root=model, max_model_len=65536, start=t0,
                 n_scrapes=n, interval=interval,
                 labels_cc=gen.tmpl_cc(V1T, gpu_memory_utilization="0.9", num_gpu_blocks="1685", block_size="64", enable_prefix_caching="True",
                                       mamba_block_size="None", mamba_cache_mode="none", mamba_page_size_padded="None",
                                       mamba_ssm_cache_dtype="auto", sliding_window="128"),
                 pool_tokens=pool, block_size=64, max_num_seqs=32, tmpl=V1T, engine=str(e))
        c.reqs = reqs
        cases.append(c)
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    recs = []
    for k in range(n):
        t = t0 + k * interval
        recs.append(json.dumps({"t": round(t, 3), "status": 200, "text": gen.merge_scrapes([gen.scrape(c, t, t0 - 3600) for c in cases])}))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    pfx = "[tt-inference-server-cff81b8c] "
    logs = []
    for e, c in enumerate(cases):
        for lt_, line in gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, 1, "loggers.py:259", eng=f"00{e}", prefix=True):
            line = line.replace("[loggers.py:259]", "loggers.py:259]")
            if lt_ > stall + 10:
                line = line.replace(" INFO ", " DEBUG ", 1)
            logs.append((lt_ + 0.01 * e, pfx + line))
    t = t0 - 56
    while t < t0 + (n - 1) * interval:
        counts = []
        for c in cases:
            counts.append([sum(1 for r in c.reqs if r.t_arr <= t < r.t_sched), sum(1 for r in c.reqs if r.t_sched <= t < r.t_end)])
        logs.append((t, pfx + f"(APIServer pid=1) DEBUG {ts(t)} core_client.py:1178] Received counts: {json.dumps(counts).replace('],[', '], [')} (slice(0, 4, None))"))
        t += 5
    for c in cases:
        for r in c.reqs:
            if r.t_end < 1e11:
                logs.append((r.t_end + 0.002, pfx + f'(APIServer pid=1) INFO:     127.0.0.1:{45000 + r.rid % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")
    argv = ["vllm", "serve", model, "--data-parallel-size", "4", "--tensor-parallel-size", "8", "--max-model-len", "65536",
            "--max-num-seqs", "32", "--block-size", "64", "--enable-prefix-caching"]
    (out / "engine_args.json").write_text(json.dumps({"argv": None, "args": args_of(argv)}, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(gen.server_json("0.11.1", model, model, 65536, int(t0 - 5000)), indent=1) + "\n")
    mc = {"architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0, "eos_token_id": 200002,
          "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880, "initial_context_length": 4096,
          "intermediate_size": 2880, "layer_types": ["sliding_attention", "full_attention"] * 18, "max_position_embeddings": 131072,
          "model_type": "gpt_oss", "num_attention_heads": 64, "num_experts_per_tok": 4, "num_hidden_layers": 36, "num_key_value_heads": 8,
          "num_local_experts": 128, "pad_token_id": 199999,
          "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"},
          "rms_norm_eps": 1e-05, "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False},
          "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0, "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 201088}
    (out / "model_config.json").write_text(json.dumps(mc, indent=1) + "\n")
    write_manifest(out, t0, t0 + (n - 1) * interval, interval,
                   "tt-inference-server v0.17.0 (vLLM fork on tt-metal), gpt-oss-120b, 4 DP engines on a Wormhole Galaxy, during a full eval run; the eval stopped progressing. Log = CI job output of the server container.",
                   "http://127.0.0.1:8000",
                   {"not_checked": [{"what": "gpu", "why": "NVML not available (no NVIDIA driver): Tenstorrent Wormhole devices"}]})
    for e, c in enumerate(cases):
        print(cid, "engine", e, "running at stall", sum(1 for r in c.reqs if r.t_sched <= stall + 1 < r.t_end),
              "waiting after", sum(1 for r in c.reqs if r.t_arr <= stall + 60 < r.t_sched))


# ---------------------------------------------------------------- 4: vllm#1879
def v024_freeze() -> None:
    cid = "zzg-v0-tp2-4090-kv-full-freeze"
    last = utc(2023, 12, 16, 0, 58, 6)        # last stats line quoted
    interval, n = 10.0, 61
    t0 = last - 300
    pool = 1464 * 16
    root = "TheBloke/CodeLlama-13B-Instruct-fp16"
    rnd = random.Random(1879)
    # the long n=2 request: 4,200 shared prompt tokens, two sequences at ~155.5 tokens/s each
    big_start = last - 60.8
    big_prompt, rate = 4200, 155.6
    def big_tokens(t):  # tokens in the pool held by the big request (frozen after `last`)
        t = min(t, last + 0.5)
        if t < big_start + 0.9:
            return 0
        g = int((t - big_start - 0.9) * rate)
        return big_prompt + 2 * g
    # the quoted log: 84.9 % at last-10, 91.5 % at last-5, 97.3 % at last
    small = []
    t = t0 - 120
    while t < big_start - 5:
        t += rnd.expovariate(1 / 25.0)
        if t > big_start - 5:
            break
        p, g = rnd.randint(700, 1400), rnd.randint(150, 450)
        small.append((t, p, g, t + 0.35 + g / 34.0))
    def state(t):
        run = [s for s in small if s[0] <= t < s[3]]
        big = t >= big_start and True
        toks = sum(s[1] + int(min(t - s[0], s[3] - s[0]) * 34.0) for s in run) + big_tokens(t)
        blocks = sum(math.ceil((s[1] + int(min(t - s[0], s[3] - s[0]) * 34.0)) / 16) for s in run) + (math.ceil(big_tokens(t) / 16) if big else 0)
        return len(run) + (1 if big else 0), blocks / 1464.0
    def gen_total(t):
        t = min(t, last + 0.5)
        g = sum(int(min(max(0.0, t - s[0] - 0.35), s[3] - s[0] - 0.35) * 34.0) for s in small)
        return g + max(0, big_tokens(t) - big_prompt)
    lbl = f'model_name="{root}"'
    texts = []
    for k in range(n):
        tt = t0 + k * interval
        te = min(tt, last)               # gauges are only set by the engine's stats logging: frozen after the last step
        run, usage = state(te)
        a = max(t0, te - 5)
        pt = (sum(s[1] for s in small if a < s[0] <= te) + (big_prompt if a < big_start <= te else 0)) / 5.0
        gt = (gen_total(te) - gen_total(a)) / max(1e-9, te - a)
        vals = [("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s.", pt),
                ("vllm:avg_generation_throughput_toks_per_s", "Average generation throughput in tokens/s.", gt),
                ("vllm:num_requests_running", "Number of requests that is currently running for inference.", run),
                ("vllm:num_requests_swapped", "Number requests swapped to CPU.", 0),
                ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", 0),
                ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", usage),
                ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", 0.0)]
        lines = []
        for name, h, v in vals:
            lines += [f"# HELP {name} {h}", f"# TYPE {name} gauge", f"{name}{{{lbl}}} {float(round(v, 6))}"]
        texts.append(json.dumps({"t": round(tt, 3), "status": 200, "text": "\n".join(lines) + "\n"}))
    out = ROOT / "cases" / cid / "bundle"
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.jsonl").write_text("\n".join(texts) + "\n")
    logs = []
    ts0 = t0 - 900
    logs += [(ts0, f"INFO {ts(ts0)} api_server.py:727] args: Namespace(host='0.0.0.0', port=8000, allow_credentials=False, served_model_name='model', "
                   f"chat_template=None, response_role='assistant', model='{root}', tokenizer=None, revision=None, tokenizer_revision=None, "
                   f"tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', max_model_len=16384, "
                   f"worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=2, max_parallel_loading_workers=None, block_size=16, seed=0, "
                   f"swap_space=8, gpu_memory_utilization=0.95, max_num_batched_tokens=None, max_num_seqs=16, max_paddings=256, disable_log_stats=False, "
                   f"quantization=None, enforce_eager=False, max_context_len_to_capture=8192, engine_use_ray=False, disable_log_requests=True, max_log_len=None)"),
             (ts0 + 3, f"INFO {ts(ts0 + 3)} llm_engine.py:73] Initializing an LLM engine with config: model='{root}', tokenizer='{root}', tokenizer_mode=auto, "
                       f"revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=16384, download_dir=None, "
                       f"load_format=auto, tensor_parallel_size=2, quantization=None, enforce_eager=False, seed=0)"),
             (ts0 + 95, f"INFO {ts(ts0 + 95)} llm_engine.py:223] # GPU blocks: 1464, # CPU blocks: 1310"),
             (ts0 + 97, f"\x1b[36m(RayWorkerVllm pid=20741)\x1b[0m INFO {ts(ts0 + 97)} model_runner.py:394] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
             (ts0 + 97.1, f"INFO {ts(ts0 + 97)} model_runner.py:394] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
             (ts0 + 121, f"INFO {ts(ts0 + 121)} model_runner.py:437] Graph capturing finished in 24 secs."),
             (ts0 + 121.5, f"INFO {ts(ts0 + 121)} serving_chat.py:260] Using default chat template:"),
             (ts0 + 122, "INFO:     Started server process [20533]"),
             (ts0 + 122.1, "INFO:     Waiting for application startup."),
             (ts0 + 122.2, "INFO:     Application startup complete."),
             (ts0 + 122.3, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    tt = last - 120
    while tt <= last + 0.01:
        run, usage = state(tt)
        if run:
            a = tt - 5
            pt = (sum(s[1] for s in small if a < s[0] <= tt) + (big_prompt if a < big_start <= tt else 0)) / 5.0
            gt = (gen_total(tt) - gen_total(a)) / 5.0
            logs.append((tt, f"INFO {ts(tt)} llm_engine.py:649] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, "
                             f"Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {100 * usage:.1f}%, CPU KV cache usage: 0.0%"))
        tt += 5
    for i, s in enumerate(small):
        logs.append((s[3] + 0.01, f'INFO:     192.168.1.{30 + i % 3}:{52000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model=" + root]
    args = {"model": root, "served-model-name": "model", "host": "0.0.0.0", "port": 8000, "max-model-len": 16384, "max-num-seqs": 16,
            "tensor-parallel-size": 2, "swap-space": 8, "gpu-memory-utilization": 0.95, "disable-log-requests": True}
    (out / "engine_args.json").write_text(json.dumps({"argv": None, "args": args}, indent=1) + "\n")
    srv = gen.server_json("0.2.4", "model", "model", 16384, int(ts0 + 122))
    m = srv["models"]["data"][0]
    m.pop("max_model_len"); m["root"] = "model"
    (out / "server.json").write_text(json.dumps(srv, indent=1) + "\n")
    mc = {"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 5120,
          "initializer_range": 0.02, "intermediate_size": 13824, "max_position_embeddings": 16384, "model_type": "llama",
          "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 40, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
          "rope_scaling": None, "rope_theta": 1000000, "tie_word_embeddings": False, "torch_dtype": "float16",
          "transformers_version": "4.33.0.dev0", "use_cache": True, "vocab_size": 32016}
    (out / "model_config.json").write_text(json.dumps(mc, indent=1) + "\n")
    gpu = []
    for k in range(n):
        tt = t0 + k * interval
        util_used = 23_330 * MiB
        gpu.append({"t": round(tt, 3), "devices": [{"index": i, "name": "NVIDIA GeForce RTX 4090", "memory_total": 24_564 * MiB,
                                                     "memory_used": util_used + 310 * MiB,
                                                     "processes": [{"pid": 20533 if i == 0 else 20741, "name": "python" if i == 0 else "ray::RayWorkerVllm",
                                                                    "used_memory": util_used}]} for i in range(2)]})
    (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    write_manifest(out, t0, t0 + (n - 1) * interval, interval,
                   "vLLM 0.2.4 OpenAI server, TP2 on 2x RTX 4090; a chat request stopped answering and no request completes any more; the operator recorded the server before killing it.",
                   "http://192.168.1.20:8000")
    for tq in (last - 10, last - 5, last):
        print(cid, ts(tq), "usage %.3f" % state(tq)[1], "running", state(tq)[0])


if __name__ == "__main__":
    for f in (gauge_removed, engine_death, tt_stall, v024_freeze):
        f()
