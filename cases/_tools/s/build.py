"""Bundle builder for the s-* cases (kvdoctor.bundle/1). Metric names, HELP texts and bucket
layouts copied from other cases' bundles of nearby releases (format examples); numbers scripted here.
Run from the worktree root: python cases/_tools/s/build.py"""
import json, math, random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GiB, MiB = 1 << 30, 1 << 20
TTFT_OLD = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TTFT_NEW = TTFT_OLD + [20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_OLD = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
TPOT_NEW = TPOT_OLD + [5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
E2E_OLD = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
E2E_NEW = E2E_OLD + [120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]


def lbl(d):
    return ",".join(f'{k}="{v}"' for k, v in d.items())


class Hist:
    def __init__(self, buckets):
        self.b = buckets; self.c = [0] * (len(buckets) + 1); self.s = 0.0; self.n = 0

    def obs(self, v, n=1):
        for i, le in enumerate(self.b):
            if v <= le:
                self.c[i] += n; break
        else:
            self.c[-1] += n
        self.s += v * n; self.n += n


class Fam:
    """One metric family; samples keyed by label tuple."""
    def __init__(self, name, kind, help_, created=False):
        self.name, self.kind, self.help, self.created = name, kind, help_, created
        self.v = {}

    def text(self, t0):
        out = []
        if self.kind == "counter":
            w = self.name + "_total"
            out += [f"# HELP {w} {self.help}", f"# TYPE {w} counter"]
            out += [f"{w}{{{lbl(dict(k))}}} {float(int(v))}" for k, v in self.v.items()]
            if self.created:
                out += [f"# HELP {self.name}_created {self.help}", f"# TYPE {self.name}_created gauge"]
                out += [f"{self.name}_created{{{lbl(dict(k))}}} {t0}" for k in self.v]
        elif self.kind == "gauge":
            out += [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} gauge"]
            out += [f"{self.name}{{{lbl(dict(k))}}} {float(v)}" for k, v in self.v.items()]
        else:
            out += [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
            for k, h in self.v.items():
                d = dict(k); cum = 0
                for le, c in zip(h.b, h.c):
                    cum += c
                    out.append(f'{self.name}_bucket{{{lbl({**d, "le": str(le)})}}} {float(cum)}')
                out.append(f'{self.name}_bucket{{{lbl({**d, "le": "+Inf"})}}} {float(h.n)}')
                out.append(f"{self.name}_count{{{lbl(d)}}} {float(h.n)}")
                out.append(f"{self.name}_sum{{{lbl(d)}}} {h.s}")
            if self.created:
                out += [f"# HELP {self.name}_created {self.help}", f"# TYPE {self.name}_created gauge"]
                out += [f"{self.name}_created{{{lbl(dict(k))}}} {t0}" for k in self.v]
        return out


def write(case, manifest, scrapes, server=None, engine_args=None, model_config=None, gpu=None, logs=None):
    b = ROOT / "cases" / case / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    (b / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", **manifest}, indent=1) + "\n")
    (b / "metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scrapes))
    for fn, obj in [("server.json", server), ("engine_args.json", engine_args), ("model_config.json", model_config)]:
        if obj is not None:
            (b / fn).write_text(json.dumps(obj, indent=1) + "\n")
    if gpu is not None:
        (b / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    if logs is not None:
        (b / "logs.txt").write_text(logs)


def ts(t, fmt="%m-%d %H:%M:%S"):
    import time
    return time.strftime(fmt, time.gmtime(t))


def proc_text(t0, t):
    return [
        "# HELP python_info Python platform information", "# TYPE python_info gauge",
        'python_info{implementation="CPython",major="3",minor="12",patchlevel="9",version="3.12.9"} 1.0',
        "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.",
        "# TYPE process_start_time_seconds gauge", f"process_start_time_seconds {t0}",
    ]


# --------------------------------------------------------------------------------------------
def qwq_l40():
    case = "s-qwq32b-fp8-l40-two-reasoning-fill-pool"
    rnd = random.Random(14412)
    M = "q32fp8"; L = (("model_name", M),)
    T0 = 1741330800.0  # 2025-03-07 07:00 UTC
    start = T0 + 1800.0; iv = 10.0; n = 61
    pool_blocks = 2240; pool = pool_blocks * 16
    fams = {
        "run": Fam("vllm:num_requests_running", "gauge", "Number of requests in model execution batches."),
        "wait": Fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed."),
        "kv": Fam("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage."),
        "pq": Fam("vllm:gpu_prefix_cache_queries", "counter", "GPU prefix cache queries, in terms of number of queried blocks.", True),
        "ph": Fam("vllm:gpu_prefix_cache_hits", "counter", "GPU prefix cache hits, in terms of number of cached blocks.", True),
        "pt": Fam("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.", True),
        "gt": Fam("vllm:generation_tokens", "counter", "Number of generation tokens processed.", True),
        "ok": Fam("vllm:request_success", "counter", "Count of successfully processed requests.", True),
        "ttft": Fam("vllm:time_to_first_token_seconds", "histogram", "Histogram of time to first token in seconds.", True),
        "tpot": Fam("vllm:time_per_output_token_seconds", "histogram", "Histogram of time per output token in seconds.", True),
        "e2e": Fam("vllm:e2e_request_latency_seconds", "histogram", "Histogram of e2e request latency in seconds.", True),
        "rpt": Fam("vllm:request_prompt_tokens", "histogram", "Number of prefill tokens processed.", True),
        "rgt": Fam("vllm:request_generation_tokens", "histogram", "Number of generation tokens processed.", True),
    }
    for k in ("ttft",): fams[k].v[L] = Hist(TTFT_OLD)
    fams["tpot"].v[L] = Hist(TPOT_OLD); fams["e2e"].v[L] = Hist(E2E_OLD)
    fams["rpt"].v[L] = Hist([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 32000])
    fams["rgt"].v[L] = Hist([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 32000])
    for k in ("pq", "ph", "pt", "gt"): fams[k].v[L] = 0
    fams["ok"].v[L + (("finished_reason", "stop"),)] = 0
    fams["ok"].v[L + (("finished_reason", "length"),)] = 0
    # carried-over state at capture start (server up for 30 min under the test)
    fams["pq"].v[L] = 3100; fams["ph"].v[L] = 420; fams["pt"].v[L] = 49600; fams["gt"].v[L] = 298000
    fams["ok"].v[L + (("finished_reason", "stop"),)] = 17
    for _ in range(17):
        fams["ttft"].v[L].obs(rnd.uniform(60, 400)); fams["e2e"].v[L].obs(rnd.uniform(60, 60))
        fams["rpt"].v[L].obs(rnd.randint(300, 900)); fams["rgt"].v[L].obs(rnd.randint(8000, 16000))
    fams["tpot"].v[L].obs(0.036, 298000 - 17)
    # two running requests (context tokens), the rest waiting
    running = [15800, 17600]
    waiting = 18
    scrapes, logs_run, gpu = [], [], []
    last_gen = 0
    for i in range(n):
        t = start + i * iv
        gen = 0
        # each running request decodes ~27 tok/s (batch 2, ~37 ms/token)
        for j in range(len(running)):
            step = int(10.0 / rnd.uniform(0.034, 0.039))
            running[j] += step; gen += step
            fams["tpot"].v[L].obs(rnd.uniform(0.034, 0.040), step)
        # a request finishes its thinking + answer now and then; the next waiting one is admitted
        done = [j for j in range(len(running)) if running[j] > rnd.uniform(17500, 19500)] if i % 9 == 4 else []
        for j in done:
            fams["ok"].v[L + (("finished_reason", "stop"),)] += 1
            fams["e2e"].v[L].obs(rnd.uniform(520, 760)); fams["rgt"].v[L].obs(running[j] - 600)
            p = rnd.randint(300, 900)
            fams["rpt"].v[L].obs(p); fams["pt"].v[L] += p; fams["pq"].v[L] += p // 16 + 1; fams["ph"].v[L] += rnd.choice([0, 3, 6])
            fams["ttft"].v[L].obs(rnd.uniform(240, 520))
            running[j] = p + 1
        used = sum(math.ceil(r / 16) for r in running)
        frac = min(1.0, used / pool_blocks)
        # when both grow past the pool, one is preempted (recompute) and running drops to 1 for a while
        nrun = 2 if used <= pool_blocks else 1
        if used > pool_blocks:
            running.sort(); running[-1] = running[-1]  # newest (shorter) gets kicked back to waiting
            short = running.pop(0); running.append(0); running[-1] = 0
            running = [r for r in running if r > 0]
            waiting_extra = 1
            used = sum(math.ceil(r / 16) for r in running); frac = used / pool_blocks
            running.append(short)  # re-admitted (recomputed) once blocks free up in the next step
        fams["gt"].v[L] += gen
        fams["run"].v[L] = nrun
        fams["wait"].v[L] = waiting + (1 if nrun == 1 else 0)
        fams["kv"].v[L] = round(max(frac, 0.965 + rnd.random() * 0.03), 4) if nrun == 2 else round(frac, 4)
        text = "\n".join(proc_text(T0, t) + sum((f.text(T0) for f in fams.values()), [])) + "\n"
        scrapes.append({"t": t, "status": 200, "text": text})
        logs_run.append(f"INFO {ts(t)} loggers.py:78] Avg prompt throughput: {0.0 if not done else 62.4:.1f} tokens/s, Avg generation throughput: {gen/10:.1f} tokens/s, Running: {nrun} reqs, Waiting: {fams['wait'].v[L]} reqs, GPU KV cache usage: {fams['kv'].v[L]*100:.1f}%, Prefix cache hit rate: 13.5%")
        gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA L40", "memory_total": 46068 * MiB, "memory_used": 44130 * MiB,
                                         "processes": [{"pid": 2871, "name": "python3", "used_memory": 43618 * MiB}]}]})
    logs = f"""INFO {ts(T0)} __init__.py:207] Automatically detected platform cuda.
INFO {ts(T0+2)} api_server.py:912] vLLM API server version 0.7.3
INFO {ts(T0+2)} api_server.py:913] args: Namespace(subparser='serve', model_tag='/aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic', config='', host=None, port=28081, model='/aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic', dtype='auto', max_model_len=32000, gpu_memory_utilization=0.95, max_num_seqs=20, served_model_name=['q32fp8'], enable_reasoning=True, reasoning_parser='deepseek_r1', kv_cache_dtype='auto', enable_prefix_caching=None, enable_chunked_prefill=None)
WARNING {ts(T0+3)} arg_utils.py:1385] Setting max_num_batched_tokens to 2048 for OPENAI_API_SERVER usage context.
INFO {ts(T0+10)} config.py:549] This model supports multiple tasks: {{'generate', 'embed', 'score', 'classify', 'reward'}}. Defaulting to 'generate'.
INFO {ts(T0+10)} config.py:1555] Chunked prefill is enabled with max_num_batched_tokens=2048.
INFO {ts(T0+12)} core.py:50] Initializing a V1 LLM engine (v0.7.3) with config: model='/aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic', speculative_config=None, tokenizer='/aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=q32fp8, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True
INFO {ts(T0+14)} gpu_model_runner.py:1049] Starting to load model /aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic...
INFO {ts(T0+14)} cuda.py:157] Using Flash Attention backend on V1 engine.
INFO {ts(T0+131)} gpu_model_runner.py:1061] Loading model weights took 32.0016 GB
INFO {ts(T0+152)} backends.py:408] Using cache directory: /root/.cache/vllm/torch_compile_cache/5c0a51d2e1/rank_0 for vLLM's torch.compile
INFO {ts(T0+152)} backends.py:418] Dynamo bytecode transform time: 14.21 s
INFO {ts(T0+178)} monitor.py:33] torch.compile takes 38.55 s in total
INFO {ts(T0+181)} kv_cache_utils.py:524] # GPU blocks: 2240
INFO {ts(T0+181)} kv_cache_utils.py:527] Maximum concurrency for 32000 tokens per request: 1.12x
INFO {ts(T0+212)} gpu_model_runner.py:1339] Graph capturing finished in 31 secs, took 0.42 GiB
INFO {ts(T0+212)} core.py:116] init engine (profile, create kv cache, warmup model) took 80.73 seconds
INFO {ts(T0+213)} api_server.py:958] Starting vLLM API server on http://0.0.0.0:28081
INFO:     Started server process [2871]
INFO:     Application startup complete.
"""
    logs += "\n".join(logs_run) + "\n"
    args = {"model": "/aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic", "port": 28081, "dtype": "auto", "max-num-seqs": 20,
            "served-model-name": "q32fp8", "enable-reasoning": True, "reasoning-parser": "deepseek_r1",
            "max_model_len": 32000, "gpu-memory-utilization": 0.95}
    argv = ["vllm", "serve", "/aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic", "--port", "28081", "--dtype", "auto",
            "--max-num-seqs", "20", "--served-model-name", "q32fp8", "--enable-reasoning", "--reasoning-parser",
            "deepseek_r1", "--max_model_len", "32000", "--gpu-memory-utilization", "0.95"]
    mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
          "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 27648,
          "max_position_embeddings": 40960, "max_window_layers": 64, "model_type": "qwen2", "num_attention_heads": 40,
          "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
          "sliding_window": 32768, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.49.0",
          "use_cache": True, "use_sliding_window": False, "vocab_size": 152064,
          "quantization_config": {"config_groups": {"group_0": {"input_activations": {"dynamic": True, "num_bits": 8, "strategy": "token", "symmetric": True, "type": "float"},
                                                                "targets": ["Linear"], "weights": {"dynamic": False, "num_bits": 8, "strategy": "channel", "symmetric": True, "type": "float"}}},
                                  "format": "float-quantized", "ignore": ["lm_head"], "quant_method": "compressed-tensors", "quantization_status": "compressed"}}
    write(case, {"endpoint": "http://127.0.0.1:28081", "started_at": start, "ended_at": scrapes[-1]["t"], "interval_s": iv,
                 "notes": "VLLM_USE_V1=1. Captured during the operator's concurrency test (20 parallel clients, QwQ reasoning answers)."},
          scrapes, server={"version": {"version": "0.7.3"}, "models": {"object": "list", "data": [{"id": M, "object": "model", "owned_by": "vllm", "root": "/aixunlian/weight/hub/Qwen/QwQ-32B-FP8-Dynamic", "max_model_len": 32000}]}, "health": 200},
          engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu, logs=logs)



def _v1_fams(engines, M, ttft_b, itl_b, e2e_b):
    F = {
        "kv": Fam("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage."),
        "run": Fam("vllm:num_requests_running", "gauge", "Number of requests in model execution batches."),
        "wait": Fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed."),
        "pre": Fam("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine.", True),
        "pt": Fam("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.", True),
        "gt": Fam("vllm:generation_tokens", "counter", "Number of generation tokens processed.", True),
        "pq": Fam("vllm:prefix_cache_queries", "counter", "Prefix cache queries, in terms of number of queried tokens.", True),
        "ph": Fam("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens.", True),
        "ok": Fam("vllm:request_success", "counter", "Count of successfully processed requests.", True),
        "ttft": Fam("vllm:time_to_first_token_seconds", "histogram", "Histogram of time to first token in seconds.", True),
        "itl": Fam("vllm:inter_token_latency_seconds", "histogram", "Histogram of inter-token latency in seconds.", True),
        "e2e": Fam("vllm:e2e_request_latency_seconds", "histogram", "Histogram of e2e request latency in seconds.", True),
        "q": Fam("vllm:request_queue_time_seconds", "histogram", "Histogram of time spent in WAITING phase for request.", True),
    }
    for e in engines:
        L = (("engine", str(e)), ("model_name", M))
        for k in ("pre", "pt", "gt", "pq", "ph"): F[k].v[L] = 0
        F["ok"].v[L + (("finished_reason", "length"),)] = 0
        F["ttft"].v[L] = Hist(ttft_b); F["itl"].v[L] = Hist(itl_b); F["e2e"].v[L] = Hist(e2e_b); F["q"].v[L] = Hist(e2e_b)
    return F


def minimax_b200():
    case = "s-minimax-m25-nvfp4-b200-dep2-cg-estimate-third-pool"
    rnd = random.Random(45178)
    M = "MiniMaxAI/MiniMax-M2.5-NVFP4"; T0 = 1781078400.0; start = T0 + 900; iv = 10.0; n = 61
    blocks = 15365; pool = 245840
    F = _v1_fams([0, 1], M, TTFT_NEW, TPOT_NEW, E2E_NEW)
    cinfo = ('_block_size_resolved="True",block_size="16",cache_dtype="fp8",calculate_kv_scales="False",enable_prefix_caching="True",'
             'gpu_memory_utilization="0.9",is_attention_free="False",kv_cache_memory_bytes="None",kv_offloading_backend="native",kv_offloading_size="None",'
             'kv_sharing_fast_prefill="False",mamba_block_size="None",mamba_cache_dtype="auto",mamba_cache_mode="none",mamba_page_size_padded="None",'
             'mamba_ssm_cache_dtype="auto",num_cpu_blocks="None",num_gpu_blocks="15365",num_gpu_blocks_override="None",prefix_caching_hash_algo="sha256",'
             'sliding_window="None",user_specified_block_size="False"')
    scrapes, gpu, lr = [], [], []
    for i in range(n):
        t = start + i * iv
        for e in (0, 1):
            L = (("engine", str(e)), ("model_name", M))
            nrun = rnd.randint(128, 152); nwait = 256 - nrun
            pre = rnd.randint(3, 9); fin = rnd.randint(9, 14)
            gen = int(nrun * 10 / rnd.uniform(0.030, 0.034))
            F["run"].v[L] = nrun; F["wait"].v[L] = nwait; F["kv"].v[L] = round(rnd.uniform(0.972, 0.998), 4)
            F["pre"].v[L] += pre; F["gt"].v[L] += gen; F["pt"].v[L] += (fin + pre) * 1024
            F["pq"].v[L] += (fin + pre) * 1024; F["ph"].v[L] += pre * 1024 // 2
            F["ok"].v[L + (("finished_reason", "length"),)] += fin
            F["itl"].v[L].obs(rnd.uniform(0.029, 0.034), gen)
            for _ in range(fin):
                q = rnd.uniform(20, 75)
                F["q"].v[L].obs(q); F["ttft"].v[L].obs(q + rnd.uniform(0.3, 2.0)); F["e2e"].v[L].obs(q + rnd.uniform(34, 48))
            lr.append(f"(APIServer pid=1) INFO {ts(t)} [loggers.py:257] Engine {e:03d}: Avg prompt throughput: {(fin+pre)*1024/10:.1f} tokens/s, Avg generation throughput: {gen/10:.1f} tokens/s, Running: {nrun} reqs, Waiting: {nwait} reqs, GPU KV cache usage: {F['kv'].v[L]*100:.1f}%, Prefix cache hit rate: {100*F['ph'].v[L]/F['pq'].v[L]:.1f}%")
        body = sum((f.text(T0) for f in F.values()), [])
        body += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig", "# TYPE vllm:cache_config_info gauge"]
        body += ["vllm:cache_config_info{" + cinfo.replace("enable_prefix", 'engine="%d",enable_prefix' % e) + "} 1.0" for e in (0, 1)]
        scrapes.append({"t": t, "status": 200, "text": "\n".join(proc_text(T0, t) + body) + "\n"})
        gpu.append({"t": t, "devices": [{"index": d, "name": "NVIDIA B200", "memory_total": 183359 * MiB, "memory_used": int((101.2 + rnd.uniform(-0.1, 0.1)) * GiB) + 620 * MiB,
                                         "processes": [{"pid": 405 + d, "name": "VLLM::EngineCore", "used_memory": int(101.2 * GiB)}]} for d in (0, 1)]})
    st = []
    for e in (0, 1):
        p = f"(EngineCore_DP{e} pid={405+e})"
        st += [f"{p} INFO {ts(T0+150)} [gpu_model_runner.py:4566] Model loading took 64.60 GiB memory and 121.338 seconds",
               f"{p} INFO {ts(T0+190)} [monitor.py:53] torch.compile took 24.31 s in total",
               f"{p} INFO {ts(T0+196)} [monitor.py:81] Initial profiling/warmup run took 5.92 s",
               f"{p} INFO {ts(T0+198)} [gpu_model_runner.py:6471] Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)",
               f"{p} INFO {ts(T0+231)} [gpu_model_runner.py:6596] Estimated CUDA graph memory: 61.98 GiB total",
               f"{p} INFO {ts(T0+231)} [gpu_worker.py:460] Available KV cache memory: 29.07 GiB",
               f"{p} INFO {ts(T0+231)} [gpu_worker.py:475] CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=0.9000 is equivalent to --gpu-memory-utilization=0.5539 without CUDA graph memory profiling. To maintain the same effective KV cache size as before, increase --gpu-memory-utilization to 1.2461. To disable, set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.",
               f"{p} INFO {ts(T0+231)} [kv_cache_utils.py:1733] GPU KV cache size: 245,840 tokens",
               f"{p} INFO {ts(T0+231)} [kv_cache_utils.py:1738] Maximum concurrency for 2,304 tokens per request: 106.70x",
               f"{p} INFO {ts(T0+262)} [gpu_model_runner.py:6810] Graph capturing finished in 31 secs, took 1.86 GiB"]
    logs = (f"(APIServer pid=1) INFO {ts(T0)} [utils.py:299] vLLM server version 0.22.0, serving model /models/MiniMax-M2.5-NVFP4\n"
            f"(APIServer pid=1) INFO {ts(T0)} [utils.py:233] non-default args: {{'model': '/models/MiniMax-M2.5-NVFP4', 'served_model_name': ['{M}'], 'trust_remote_code': True, 'max_model_len': 2304, 'kv_cache_dtype': 'fp8', 'data_parallel_size': 2, 'enable_expert_parallel': True, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 512}}\n"
            + "\n".join(st) + f"\n(APIServer pid=1) INFO {ts(T0+270)} [api_server.py:1912] Starting vLLM API server 0 on http://0.0.0.0:8888\n" + "\n".join(lr) + "\n")
    argv = ["vllm", "serve", "/models/MiniMax-M2.5-NVFP4", "--served-model-name", M, "--trust-remote-code", "--max-model-len", "2304",
            "--kv-cache-dtype", "fp8", "--data-parallel-size", "2", "--enable-expert-parallel", "--gpu-memory-utilization", "0.9", "--max-num-seqs", "512", "--port", "8888"]
    args = {"served-model-name": M, "trust-remote-code": True, "max-model-len": 2304, "kv-cache-dtype": "fp8", "data-parallel-size": 2,
            "enable-expert-parallel": True, "gpu-memory-utilization": 0.9, "max-num-seqs": 512, "port": 8888}
    mc = {"architectures": ["MiniMaxM2ForCausalLM"], "head_dim": 128, "hidden_size": 3072, "intermediate_size": 1536, "max_position_embeddings": 196608,
          "model_type": "minimax_m2", "num_attention_heads": 48, "num_experts_per_tok": 8, "num_hidden_layers": 62, "num_key_value_heads": 8,
          "num_local_experts": 256, "rotary_dim": 64, "rope_theta": 5000000, "torch_dtype": "bfloat16", "vocab_size": 200064, "use_qk_norm": True,
          "quantization_config": {"quant_algo": "NVFP4", "quant_method": "modelopt", "group_size": 16, "kv_cache_quant_algo": None}}
    write(case, {"endpoint": "http://bench-b200-01:8888", "started_at": start, "ended_at": scrapes[-1]["t"], "interval_s": iv,
                 "notes": "Fixed-length benchmark, 1024 in / 1024 out, concurrency 512, against DP2+EP on 2x B200; VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS not set (default)."},
          scrapes, server={"version": {"version": "0.22.0"}, "models": {"object": "list", "data": [{"id": M, "object": "model", "owned_by": "vllm", "max_model_len": 2304}]}, "health": 200},
          engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu, logs=logs)


def multistep_oom():
    case = "s-v0-multistep16-util0941-h100-runtime-oom"
    rnd = random.Random(9290)
    M = "meta-llama/Meta-Llama-3-8B-Instruct"; L = (("model_name", M),)
    T0 = 1728649200.0; start = T0 + 240; iv = 5.0; n_ok = 47
    F = {"run": Fam("vllm:num_requests_running", "gauge", "Number of requests currently running on GPU."),
         "sw": Fam("vllm:num_requests_swapped", "gauge", "Number of requests swapped to CPU."),
         "wait": Fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed."),
         "kv": Fam("vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage."),
         "ckv": Fam("vllm:cpu_cache_usage_perc", "gauge", "CPU KV-cache usage. 1 means 100 percent usage."),
         "pre": Fam("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine."),
         "pt": Fam("vllm:prompt_tokens", "counter", "Number of prefill tokens processed."),
         "gt": Fam("vllm:generation_tokens", "counter", "Number of generation tokens processed."),
         "ok": Fam("vllm:request_success", "counter", "Count of successfully processed requests."),
         "ttft": Fam("vllm:time_to_first_token_seconds", "histogram", "Histogram of time to first token in seconds."),
         "tpot": Fam("vllm:time_per_output_token_seconds", "histogram", "Histogram of time per output token in seconds."),
         "e2e": Fam("vllm:e2e_request_latency_seconds", "histogram", "Histogram of end to end request latency in seconds.")}
    for k in ("pre", "pt", "gt"): F[k].v[L] = 0
    F["ok"].v[L + (("finished_reason", "stop"),)] = 0; F["ok"].v[L + (("finished_reason", "length"),)] = 0
    F["ttft"].v[L] = Hist(TTFT_OLD); F["tpot"].v[L] = Hist(TPOT_OLD); F["e2e"].v[L] = Hist(E2E_OLD)
    cinfo = 'vllm:cache_config_info{block_size="16",cache_dtype="auto",cpu_offload_gb="0",enable_prefix_caching="False",gpu_memory_utilization="0.941",is_attention_free="False",num_cpu_blocks="2048",num_gpu_blocks="29634",num_gpu_blocks_override="None",sliding_window="None",swap_space="4"} 1.0'
    scrapes, gpu = [], []
    used = 74.92
    for i in range(n_ok + 6):
        t = start + i * iv
        if i >= n_ok:
            scrapes.append({"t": t, "error": "GET http://127.0.0.1:8000/metrics: connection refused ([Errno 111] Connection refused)"})
            gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 81559 * MiB, "memory_used": 530 * MiB, "processes": []}]})
            continue
        nrun = 256 if i > 1 else 128 * (i + 1); nw = 744 - 0 if i < 30 else max(0, 744 - (i - 30) * 40)
        gen = int(nrun * 5 / rnd.uniform(0.021, 0.025)); fin = rnd.randint(14, 24) if i > 4 else 0
        F["run"].v[L] = nrun; F["sw"].v[L] = 0; F["wait"].v[L] = max(0, 1000 - 256 - i * 16); F["ckv"].v[L] = 0.0
        F["kv"].v[L] = round(min(0.62, 0.05 + i * 0.014) + rnd.uniform(-0.01, 0.01), 4)
        F["gt"].v[L] += gen; F["pt"].v[L] += (fin if i > 1 else nrun) * 230
        F["ok"].v[L + (("finished_reason", "stop"),)] += fin
        F["tpot"].v[L].obs(rnd.uniform(0.021, 0.025), gen)
        for _ in range(fin if i > 1 else nrun):
            F["ttft"].v[L].obs(rnd.uniform(0.2, 1.4))
        for _ in range(fin): F["e2e"].v[L].obs(rnd.uniform(6, 18))
        body = ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge", cinfo]
        body += sum((f.text(T0) for f in F.values()), [])
        scrapes.append({"t": t, "status": 200, "text": "\n".join(body) + "\n"})
        used = min(79.12, 74.92 + max(0, i - 8) * 0.11)
        gpu.append({"t": t, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 81559 * MiB, "memory_used": int(used * GiB) + 530 * MiB,
                                         "processes": [{"pid": 31207, "name": "python3", "used_memory": int(used * GiB)}]}]})
    tend = start + n_ok * iv - 2.5
    logs = f"""INFO {ts(T0)} api_server.py:528] vLLM API server version 0.6.3
INFO {ts(T0)} api_server.py:529] args: Namespace(model='{M}', max_model_len=8192, gpu_memory_utilization=0.941, num_scheduler_steps=16, max_num_seqs=256, enforce_eager=False)
INFO {ts(T0+1)} api_server.py:166] Multiprocessing frontend to use ipc:///tmp/8a3f0c6e-3d1b-4e55-9c2e-41f0a7c2d9b1 for IPC Path.
INFO {ts(T0+1)} api_server.py:179] Started engine process with PID 31207
INFO {ts(T0+6)} llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='{M}', speculative_config=None, tokenizer='{M}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, rope_scaling=None, rope_theta=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, seed=0, served_model_name={M}, use_v2_block_manager=True, num_scheduler_steps=16, chunked_prefill_enabled=False multi_step_stream_outputs=True, enable_prefix_caching=False, use_async_output_proc=True, use_cached_outputs=True, mm_processor_kwargs=None)
INFO {ts(T0+8)} model_runner.py:1056] Starting to load model {M}...
INFO {ts(T0+12)} model_runner.py:1067] Loading model weights took 14.9888 GB
INFO {ts(T0+14)} gpu_executor.py:122] # GPU blocks: 29634, # CPU blocks: 2048
INFO {ts(T0+14)} gpu_executor.py:126] Maximum concurrency for 8192 tokens per request: 57.88x
INFO {ts(T0+16)} model_runner.py:1395] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.
INFO {ts(T0+16)} model_runner.py:1399] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.
INFO {ts(T0+27)} model_runner.py:1523] Graph capturing finished in 11 secs.
INFO {ts(T0+28)} launcher.py:19] Available routes are:
INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)
INFO {ts(start+60)} metrics.py:349] Avg prompt throughput: 4201.3 tokens/s, Avg generation throughput: 10893.6 tokens/s, Running: 256 reqs, Swapped: 0 reqs, Pending: 552 reqs, GPU KV cache usage: 22.4%, CPU KV cache usage: 0.0%.
INFO {ts(start+180)} metrics.py:349] Avg prompt throughput: 3950.8 tokens/s, Avg generation throughput: 10920.2 tokens/s, Running: 256 reqs, Swapped: 0 reqs, Pending: 328 reqs, GPU KV cache usage: 52.7%, CPU KV cache usage: 0.0%.
ERROR {ts(tend)} engine.py:157] OutOfMemoryError('CUDA out of memory. Tried to allocate 138.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 2.19 MiB is free. Including non-PyTorch memory, this process has 79.12 GiB memory in use. Of the allocated memory 71.57 GiB is allocated by PyTorch, with 39.77 MiB allocated in private pools (e.g., CUDA Graphs), and 611.60 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)')
ERROR {ts(tend)} engine.py:157] Traceback (most recent call last):
ERROR {ts(tend)} engine.py:157]   File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 155, in start
ERROR {ts(tend)} engine.py:157]     self.run_engine_loop()
ERROR {ts(tend)} engine.py:157]   File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 218, in run_engine_loop
ERROR {ts(tend)} engine.py:157]     request_outputs = self.engine_step()
ERROR {ts(tend)} engine.py:157] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 138.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 2.19 MiB is free.
CRITICAL {ts(tend+1)} launcher.py:88] MQLLMEngine is already dead, terminating server process
INFO:     Shutting down
"""
    argv = ["vllm", "serve", M, "--max-model-len", "8192", "--num-scheduler-steps", "16", "--gpu-memory-utilization", "0.941"]
    mc = {"architectures": ["LlamaForCausalLM"], "bos_token_id": 128000, "eos_token_id": 128009, "hidden_act": "silu", "hidden_size": 4096,
          "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
          "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 128256}
    write(case, {"endpoint": "http://127.0.0.1:8000", "started_at": start, "ended_at": scrapes[-1]["t"], "interval_s": iv,
                 "notes": "Throughput benchmark (1000 prompts, all sent at once) against vllm serve with --num-scheduler-steps 16; the server died during the capture."},
          scrapes, server={"version": {"version": "0.6.3"}, "models": {"object": "list", "data": [{"id": M, "object": "model", "owned_by": "vllm", "max_model_len": 8192}]}, "health": 200},
          engine_args={"argv": argv, "args": {"model": M, "max-model-len": 8192, "num-scheduler-steps": 16, "gpu-memory-utilization": 0.941}}, model_config=mc, gpu=gpu, logs=logs)


if __name__ == "__main__":
    import sys
    for f in sys.argv[1:] or ["qwq_l40", "minimax_b200", "multistep_oom"]:
        globals()[f]()
