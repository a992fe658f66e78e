"""Writer zz: serving bundles with traffic (zz-codellama-112-blocks-16k on vLLM 0.2.5,
zz-llama3-8b-200k-decode on vLLM 0.4.2). A small V0 scheduler: whole-prompt prefill, decode
steps whose time depends on the context read, block-granular KV accounting. Deterministic.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import GiB, device, epoch, models_body, stamp, write_bundle  # noqa: E402


def fnum(v: float) -> str:
    return repr(float(v))


# ---------------------------------------------------------------- 0.2.5 (aioprometheus gauges only)
G025 = [("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s."),
        ("vllm:avg_generation_throughput_toks_per_s", "Average generation throughput in tokens/s."),
        ("vllm:num_requests_running", "Number of requests that is currently running for inference."),
        ("vllm:num_requests_swapped", "Number requests swapped to CPU."),
        ("vllm:num_requests_waiting", "Number of requests waiting to be processed."),
        ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage."),
        ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.")]


def text025(vals: dict, model: str) -> str:
    out = []
    for name, help_ in G025:
        out += [f"# HELP {name} {help_}", f"# TYPE {name} gauge", f'{name}{{model_name="{model}"}} {fnum(vals.get(name, 0.0))}']
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- 0.4.2 (prometheus_client)
class Hist:
    def __init__(self, bounds):
        self.b = list(bounds)
        self.c = [0] * (len(self.b) + 1)
        self.s = 0.0
        self.n = 0

    def obs(self, v):
        for i, x in enumerate(self.b):
            if v <= x:
                self.c[i] += 1
                break
        else:
            self.c[-1] += 1
        self.s += v
        self.n += 1


def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(float(v))
        e += 1


H042 = {"vllm:time_to_first_token_seconds": ("Histogram of time to first token in seconds.",
                                             [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]),
        "vllm:time_per_output_token_seconds": ("Histogram of time per output token in seconds.",
                                               [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]),
        "vllm:e2e_request_latency_seconds": ("Histogram of end to end request latency in seconds.",
                                             [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0])}


class S042:
    def __init__(self, model, max_len, cache_info):
        self.model, self.cache_info = model, cache_info
        self.g = {k: 0.0 for k in ["vllm:num_requests_running", "vllm:num_requests_swapped", "vllm:num_requests_waiting",
                                   "vllm:gpu_cache_usage_perc", "vllm:cpu_cache_usage_perc",
                                   "vllm:avg_prompt_throughput_toks_per_s", "vllm:avg_generation_throughput_toks_per_s"]}
        self.c = {"vllm:prompt_tokens_total": 0, "vllm:generation_tokens_total": 0}
        self.h = {k: Hist(v[1]) for k, v in H042.items()}
        self.h["vllm:request_prompt_tokens"] = Hist(b125(max_len))
        self.h["vllm:request_generation_tokens"] = Hist(b125(max_len))
        self.h["vllm:request_params_n"] = Hist([1, 2, 5, 10, 20])
        self.h["vllm:request_params_best_of"] = Hist([1, 2, 5, 10, 20])
        self.success = {}

    def text(self):
        lab = f'model_name="{self.model}"'
        help_ = {"vllm:num_requests_running": "Number of requests currently running on GPU.",
                 "vllm:num_requests_swapped": "Number of requests swapped to CPU.",
                 "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
                 "vllm:gpu_cache_usage_perc": "GPU KV-cache usage. 1 means 100 percent usage.",
                 "vllm:cpu_cache_usage_perc": "CPU KV-cache usage. 1 means 100 percent usage.",
                 "vllm:avg_prompt_throughput_toks_per_s": "Average prefill throughput in tokens/s.",
                 "vllm:avg_generation_throughput_toks_per_s": "Average generation throughput in tokens/s.",
                 "vllm:prompt_tokens_total": "Number of prefill tokens processed.",
                 "vllm:generation_tokens_total": "Number of generation tokens processed.",
                 "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
                 "vllm:request_generation_tokens": "Number of generation tokens processed.",
                 "vllm:request_params_n": "Histogram of the n request parameter.",
                 "vllm:request_params_best_of": "Histogram of the best_of request parameter.",
                 "vllm:request_success_total": "Count of successfully processed requests."}
        out = ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge",
               "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(self.cache_info.items())) + "} 1.0"]
        for k, v in self.g.items():
            out += [f"# HELP {k} {help_[k]}", f"# TYPE {k} gauge", f"{k}{{{lab}}} {fnum(v)}"]
        for k, v in self.c.items():
            out += [f"# HELP {k} {help_[k]}", f"# TYPE {k} counter", f"{k}{{{lab}}} {fnum(v)}"]
        for k, H in self.h.items():
            out += [f"# HELP {k} {H042[k][0] if k in H042 else help_[k]}", f"# TYPE {k} histogram"]
            cum = 0
            for b, c in zip(H.b, H.c):
                cum += c
                out.append(f'{k}_bucket{{{lab},le="{float(b)}"}} {fnum(cum)}')
            out.append(f'{k}_bucket{{{lab},le="+Inf"}} {fnum(H.n)}')
            out.append(f"{k}_count{{{lab}}} {fnum(H.n)}")
            out.append(f"{k}_sum{{{lab}}} {fnum(H.s)}")
        k = "vllm:request_success_total"
        out += [f"# HELP {k} {help_[k]}", f"# TYPE {k} counter"]
        for r in sorted(self.success):
            out.append(f'{k}{{finished_reason="{r}",{lab}}} {fnum(self.success[r])}')
        return "\n".join(out) + "\n"


def blocks(n, bs=16):
    return (n + bs - 1) // bs


# ---------------------------------------------------------------- case: CodeLlama 13B, 0.2.5, 112 blocks
def case_codellama():
    cid = "zz-codellama-112-blocks-16k"
    rng = random.Random(2136)
    t0 = epoch(2023, 12, 15, 10, 0)
    start = t0 + 120
    end = start + 600
    NB, BS, WM = 112, 16, 1
    model = "model"
    logs = []

    def L(t, s):
        logs.append((t, s.replace("@", stamp(t))))
    L(t0, "INFO @ api_server.py:727] args: Namespace(host='0.0.0.0', port=8000, allow_credentials=False, "
      "allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], served_model_name='model', "
      "chat_template='/home/user/bin/templates/llama-2-chat.jinja', response_role='assistant', "
      "model='TheBloke/CodeLlama-13B-Instruct-fp16', tokenizer=None, revision=None, tokenizer_revision=None, "
      "tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', "
      "max_model_len=16384, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=2, "
      "max_parallel_loading_workers=None, block_size=16, seed=0, swap_space=8, gpu_memory_utilization=0.95, "
      "max_num_batched_tokens=None, max_num_seqs=16, max_paddings=256, disable_log_stats=False, quantization=None, "
      "enforce_eager=False, max_context_len_to_capture=8192, engine_use_ray=False, disable_log_requests=True, max_log_len=None)")
    L(t0 + 4, "INFO @ llm_engine.py:73] Initializing an LLM engine with config: model='TheBloke/CodeLlama-13B-Instruct-fp16', "
      "tokenizer='TheBloke/CodeLlama-13B-Instruct-fp16', tokenizer_mode=auto, revision=None, tokenizer_revision=None, "
      "trust_remote_code=False, dtype=torch.float16, max_seq_len=16384, download_dir=None, load_format=auto, "
      "tensor_parallel_size=2, quantization=None, enforce_eager=False, seed=0)")
    L(t0 + 71, "INFO @ llm_engine.py:222] # GPU blocks: 112, # CPU blocks: 1310")
    L(t0 + 73, "INFO @ model_runner.py:394] Capturing the model for CUDA graphs. This may lead to unexpected consequences "
      "if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.")
    L(t0 + 73, "INFO @ model_runner.py:398] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of "
      "memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the "
      "`max_num_seqs` as needed to decrease memory usage.")
    L(t0 + 94, "INFO @ model_runner.py:439] Graph capturing finished in 21 secs.")
    L(t0 + 95, "INFO:     Started server process [3021]")
    L(t0 + 95, "INFO:     Waiting for application startup.")
    L(t0 + 95, "INFO:     Application startup complete.")
    L(t0 + 95, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")
    # requests
    reqs = []
    t = start + 3
    while t < end - 5:
        p = int(rng.choice([rng.uniform(600, 1700), rng.uniform(1800, 9000), rng.uniform(1800, 9000)]))
        o = int(rng.uniform(200, 600))
        reqs.append({"a": t, "p": p, "o": o})
        t += rng.expovariate(0.2)
    waiting, running = [], []
    scrapes = []
    win_p = win_g = 0
    last_log = start
    step = 0.036
    now = start
    idx = 0
    ns = start
    nl = start + 5
    done = []

    def used():
        return sum(blocks(r["p"] + r["g"]) for r in running)

    def emit(upto):
        nonlocal ns, nl, win_p, win_g
        while ns <= upto and ns <= end:
            scrapes.append({"t": round(ns, 3), "status": 200, "text": text025({
                "vllm:avg_prompt_throughput_toks_per_s": lastp, "vllm:avg_generation_throughput_toks_per_s": lastg,
                "vllm:num_requests_running": len(running), "vllm:num_requests_waiting": len(waiting),
                "vllm:gpu_cache_usage_perc": used() / NB, "vllm:num_requests_swapped": 0,
                "vllm:cpu_cache_usage_perc": 0.0}, model)})
            ns += 10
        while nl <= upto and nl <= end:
            pass_p, pass_g = win_p / 5.0, win_g / 5.0
            if pass_p or pass_g or running or waiting:
                L(nl, f"INFO @ llm_engine.py:649] Avg prompt throughput: {pass_p:.1f} tokens/s, Avg generation throughput: "
                  f"{pass_g:.1f} tokens/s, Running: {len(running)} reqs, Swapped: 0 reqs, Pending: {len(waiting)} reqs, "
                  f"GPU KV cache usage: {100.0 * used() / NB:.1f}%, CPU KV cache usage: 0.0%")
            set_last(pass_p, pass_g)
            win_p = win_g = 0
            nl += 5
    lastp = lastg = 0.0

    def set_last(p, g):
        nonlocal lastp, lastg
        lastp, lastg = p, g
    while now < end:
        while idx < len(reqs) and reqs[idx]["a"] <= now:
            r = reqs[idx]
            r["g"] = 0
            waiting.append(r)
            idx += 1
        admitted = False
        # scheduler: admit from waiting in FCFS order
        while waiting:
            r = waiting[0]
            need = blocks(r["p"] + r["g"])
            if NB - need < WM:
                L(now, f"WARNING @ scheduler.py:195] Input prompt ({r['p'] + r['g']} tokens) is too long and exceeds the "
                  "capacity of block_manager")
                waiting.pop(0)
                r["end"] = now
                done.append(r)
                continue
            if NB - used() - need < WM:
                break
            waiting.pop(0)
            dur = 0.02 + (r["p"] + r["g"]) / 6500.0
            emit(now + dur)
            now += dur
            win_p += r["p"] + r["g"]
            r["g"] += 1
            running.append(r)
            admitted = True
        if running:
            emit(now + step)
            now += step
            # append slots; preempt the newest when the pool is out
            for r in list(running):
                if r not in running:
                    continue
                if blocks(r["p"] + r["g"] + 1) > blocks(r["p"] + r["g"]) and used() + 1 > NB:
                    victim = running[-1]
                    running.remove(victim)
                    waiting.insert(0, victim)
                    if victim is r:
                        continue
                r["g"] += 1
                win_g += 1
                if r["g"] >= r["o"]:
                    running.remove(r)
                    r["end"] = now
                    done.append(r)
        elif not admitted:
            nxt = reqs[idx]["a"] if idx < len(reqs) else end
            emit(min(nxt, end))
            now = max(now + 0.01, min(nxt, end))
    emit(end)
    logs.sort(key=lambda x: x[0])
    total = 25757220864  # 23.99 GiB, RTX 4090
    gpu = []
    for i in range(61):
        tt = start + i * 10
        gpu.append({"t": tt, "devices": [device(k, "NVIDIA GeForce RTX 4090", total, [(3021 + k * 60, "python", int(22.3 * GiB))])
                                         for k in range(2)]})
    write_bundle(cid, endpoint="http://127.0.0.1:8000", started_at=start, interval_s=10.0,
                 notes="Long-context coding assistant on CodeLlama 13B after upgrading 0.2.4 -> 0.2.5; long prompts come back empty.",
                 scrapes=scrapes,
                 server={"version": {"version": "0.2.5"}, "models": models_body("model", "TheBloke/CodeLlama-13B-Instruct-fp16", 16384, int(t0 + 95)), "health": 200},
                 engine_args={"argv": ["python", "-O", "-u", "-m", "vllm.entrypoints.openai.api_server",
                                       "--model=TheBloke/CodeLlama-13B-Instruct-fp16",
                                       "--chat-template=/home/user/bin/templates/llama-2-chat.jinja",
                                       "--served-model-name=model", "--host=0.0.0.0", "--port=8000", "--max-model-len=16384",
                                       "--max-num-seqs=16", "--tensor-parallel-size=2", "--swap-space=8",
                                       "--gpu-memory-utilization=0.95", "--disable-log-requests"],
                              "args": {"model": "TheBloke/CodeLlama-13B-Instruct-fp16", "served-model-name": "model",
                                       "max-model-len": 16384, "max-num-seqs": 16, "tensor-parallel-size": 2,
                                       "swap-space": 8, "gpu-memory-utilization": 0.95, "disable-log-requests": True}},
                 model_config={"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
                               "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
                               "intermediate_size": 13824, "max_position_embeddings": 16384, "model_type": "llama",
                               "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 40,
                               "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000,
                               "tie_word_embeddings": False, "torch_dtype": "float16", "transformers_version": "4.33.0.dev0",
                               "use_cache": True, "vocab_size": 32016},
                 gpu=gpu, logs="\n".join(s for _, s in logs) + "\n")
    return done


# ---------------------------------------------------------------- case: Llama-3-8B at 200k, 0.4.2
def case_200k():
    cid = "zz-llama3-8b-200k-decode"
    t0 = epoch(2024, 5, 17, 6, 0)
    start = t0 + 150
    end = start + 600
    NB = 17937
    model = "Meta-Llama-3-8B-Instruct"
    st = S042(model, 212992, {"block_size": "16", "cache_dtype": "auto", "enable_prefix_caching": "False",
                              "gpu_memory_utilization": "0.9", "num_cpu_blocks": "2048", "num_gpu_blocks": "17937",
                              "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": "4294967296"})
    logs = []

    def L(t, s):
        logs.append((t, s.replace("@", stamp(t))))
    L(t0, "INFO @ api_server.py:151] vLLM API server version 0.4.2")
    L(t0, "INFO @ api_server.py:152] args: Namespace(host=None, port=8000, model='/models/Meta-Llama-3-8B-Instruct', "
      "served_model_name=['Meta-Llama-3-8B-Instruct'], max_model_len=212992, tensor_parallel_size=1, block_size=16, "
      "gpu_memory_utilization=0.9, swap_space=4, enable_chunked_prefill=False, max_num_batched_tokens=None, "
      "max_num_seqs=256, enforce_eager=False, enable_prefix_caching=False, disable_log_requests=True)")
    L(t0 + 1, "INFO @ llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='/models/Meta-Llama-3-8B-Instruct', "
      "speculative_config=None, tokenizer='/models/Meta-Llama-3-8B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, "
      "revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=212992, "
      "download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, "
      "quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, "
      "decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name=Meta-Llama-3-8B-Instruct)")
    L(t0 + 9, "INFO @ model_runner.py:175] Loading model weights took 14.9595 GB")
    L(t0 + 58, "INFO @ gpu_executor.py:114] # GPU blocks: 17937, # CPU blocks: 2048")
    L(t0 + 60, "INFO @ model_runner.py:937] Capturing the model for CUDA graphs. This may lead to unexpected consequences if "
      "the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.")
    L(t0 + 80, "INFO @ model_runner.py:1017] Graph capturing finished in 20 secs.")
    L(t0 + 81, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")
    # sequential benchmark: 200k, 1k, 1k, 200k, ...
    plan = []
    pattern = [204790, 1014, 1014]
    for k in range(30):
        plan.append(pattern[k % 3])
    scrapes = []
    now = start + 2
    ns, nl = start, start + 10
    cur = {"p": 0, "g": 0, "phase": None}
    win = {"p": 0, "g": 0}

    def usedb():
        return (cur["p"] + cur["g"] + 15) // 16 if cur["phase"] else 0

    def emit(upto):
        nonlocal ns, nl
        while ns <= upto and ns <= end:
            st.g["vllm:num_requests_running"] = 1.0 if cur["phase"] else 0.0
            st.g["vllm:gpu_cache_usage_perc"] = usedb() / NB
            scrapes.append({"t": round(ns, 3), "status": 200, "text": st.text()})
            ns += 10
        while nl <= upto and nl <= end:
            if cur["phase"] == "prefill":  # V0 logs only when a step completes
                nl += 10
                continue
            pp, gg = win["p"] / 10.0, win["g"] / 10.0
            st.g["vllm:avg_prompt_throughput_toks_per_s"] = pp
            st.g["vllm:avg_generation_throughput_toks_per_s"] = gg
            L(nl, f"INFO @ metrics.py:229] Avg prompt throughput: {pp:.1f} tokens/s, Avg generation throughput: {gg:.1f} "
              f"tokens/s, Running: {1 if cur['phase'] else 0} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: "
              f"{100.0 * usedb() / NB:.1f}%, CPU KV cache usage: 0.0%")
            win["p"] = win["g"] = 0
            nl += 10
    for p in plan:
        if now >= end:
            break
        a = now
        cur.update(p=p, g=0, phase="prefill")
        # prefill: linear part + quadratic attention (H800, Llama-3-8B)
        dur = 0.03 + p / 21000.0 + (p / 204800.0) ** 2 * 18.0
        emit(now + dur)
        now += dur
        win["p"] += p
        st.c["vllm:prompt_tokens_total"] += p
        st.c["vllm:generation_tokens_total"] += 1
        win["g"] += 1
        cur["g"] = 1
        st.h["vllm:time_to_first_token_seconds"].obs(now - a)
        cur["phase"] = "decode"
        for _ in range(511):
            dt = 0.0086 + 0.0214 * (p + cur["g"]) / 204800.0
            emit(now + dt)
            now += dt
            cur["g"] += 1
            win["g"] += 1
            st.c["vllm:generation_tokens_total"] += 1
            st.h["vllm:time_per_output_token_seconds"].obs(dt)
            if now >= end:
                break
        if cur["g"] >= 512:
            st.h["vllm:e2e_request_latency_seconds"].obs(now - a)
            st.h["vllm:request_prompt_tokens"].obs(p)
            st.h["vllm:request_generation_tokens"].obs(512)
            st.h["vllm:request_params_n"].obs(1)
            st.h["vllm:request_params_best_of"].obs(1)
            st.success["length"] = st.success.get("length", 0) + 1
        cur.update(p=0, g=0, phase=None)
        gap = 2.0
        emit(now + gap)
        now += gap
    emit(end)
    logs.sort(key=lambda x: x[0])
    total = 85520809984
    gpu = [{"t": start + i * 10, "devices": [device(0, "NVIDIA H800", total, [(1187, "python3", int(72.6 * GiB))])]}
           for i in range(61)]
    mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
          "eos_token_id": 128009, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
          "intermediate_size": 14336, "max_position_embeddings": 409600, "model_type": "llama", "num_attention_heads": 32,
          "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
          "rope_scaling": None, "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
          "transformers_version": "4.40.0.dev0", "use_cache": True, "vocab_size": 128256}
    write_bundle(cid, endpoint="http://127.0.0.1:8000", started_at=start, interval_s=10.0,
                 notes="Long-context decode check: 200k-token prompts and 1k-token prompts, one at a time, 512 output tokens each.",
                 scrapes=scrapes,
                 server={"version": {"version": "0.4.2"}, "models": models_body(model, "/models/Meta-Llama-3-8B-Instruct", 212992, int(t0 + 81)), "health": 200},
                 engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model",
                                       "/models/Meta-Llama-3-8B-Instruct", "--served-model-name", model,
                                       "--max-model-len", "212992", "--disable-log-requests"],
                              "args": {"model": "/models/Meta-Llama-3-8B-Instruct", "served-model-name": model,
                                       "max-model-len": 212992, "disable-log-requests": True}},
                 model_config=mc, gpu=gpu, logs="\n".join(s for _, s in logs) + "\n")


if __name__ == "__main__":
    d = case_codellama()
    case_200k()
