"""Bundles of the zw-* cases whose state is mostly fixed (writer zw, round 11): the V1 0.8.5 engine
that stops after its third request (vllm#17972), and the 0.5.4 frontend that serves only process
metrics (vllm#7782). Deterministic, no wall clock.
"""

from __future__ import annotations

import calendar
import json
import random
from pathlib import Path

from gen import Hist, num, stamp, V1_TTFT, V1_ITL, V1_LAT, V1_ITER, N_B, b125

ROOT = Path(__file__).resolve().parents[3]
MiB = 1024 ** 2
GiB = 1024 ** 3


def epoch(y, mo, d, h=0, mi=0, s=0):
    return float(calendar.timegm((y, mo, d, h, mi, s)))


class Done:
    def __init__(self, scrapes):
        self.scrapes = scrapes

    def __repr__(self):
        return f"{len(self.scrapes)} scrapes"


def write_common(out, manifest, scrapes, server, engine_args, model_config, gpu_rows, logs):
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with (out / "metrics.jsonl").open("w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu_rows is not None:
        with (out / "gpu.jsonl").open("w") as f:
            for r in gpu_rows:
                f.write(json.dumps(r) + "\n")
    if logs is not None:
        (out / "logs.txt").write_text("\n".join(logs) + "\n")


# --------------------------------------------------------------------------- vllm#17972

INTERNVL_1B = {
    "_commit_hash": None, "architectures": ["InternVLChatModel"],
    "auto_map": {"AutoConfig": "configuration_internvl_chat.InternVLChatConfig",
                 "AutoModel": "modeling_internvl_chat.InternVLChatModel",
                 "AutoModelForCausalLM": "modeling_internvl_chat.InternVLChatModel"},
    "downsample_ratio": 0.5, "dynamic_image_size": True, "force_image_size": 448,
    "llm_config": {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
                   "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02,
                   "intermediate_size": 4864, "max_position_embeddings": 32768, "max_window_layers": 21,
                   "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24,
                   "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
                   "sliding_window": 32768, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                   "use_cache": True, "use_sliding_window": False, "vocab_size": 151674},
    "max_dynamic_patch": 12, "min_dynamic_patch": 1, "model_type": "internvl_chat", "ps_version": "v2",
    "select_layer": -1, "template": "internvl2_5", "torch_dtype": "bfloat16", "use_backbone_lora": 0,
    "use_llm_lora": 0, "use_thumbnail": True,
    "vision_config": {"architectures": ["InternVisionModel"], "hidden_size": 1024, "image_size": 448,
                      "intermediate_size": 4096, "model_type": "intern_vit_6b", "num_attention_heads": 16,
                      "num_channels": 3, "num_hidden_layers": 24, "patch_size": 14, "torch_dtype": "bfloat16"}}

V1_HELP_08 = {
    "vllm:num_requests_running": "Number of requests in model execution batches.",
    "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
    "vllm:gpu_cache_usage_perc": "GPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:gpu_prefix_cache_queries": "GPU prefix cache queries, in terms of number of queried tokens.",
    "vllm:gpu_prefix_cache_hits": "GPU prefix cache hits, in terms of number of cached tokens.",
    "vllm:num_preemptions": "Cumulative number of preemption from the engine.",
    "vllm:prompt_tokens": "Number of prefill tokens processed.",
    "vllm:generation_tokens": "Number of generation tokens processed.",
    "vllm:request_success": "Count of successfully processed requests.",
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:iteration_tokens_total": "Histogram of number of tokens per engine_step.",
    "vllm:request_max_num_generation_tokens": "Histogram of maximum number of requested generation tokens.",
    "vllm:request_params_n": "Histogram of the n request parameter.",
    "vllm:request_params_max_tokens": "Histogram of the max_tokens request parameter.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:time_per_output_token_seconds": "Histogram of time per output token in seconds.",
    "vllm:e2e_request_latency_seconds": "Histogram of e2e request latency in seconds.",
    "vllm:request_queue_time_seconds": "Histogram of time spent in WAITING phase for request.",
    "vllm:request_inference_time_seconds": "Histogram of time spent in RUNNING phase for request.",
    "vllm:request_prefill_time_seconds": "Histogram of time spent in PREFILL phase for request.",
    "vllm:request_decode_time_seconds": "Histogram of time spent in DECODE phase for request.",
}


class V1State:
    def __init__(self, model, nb, bs, mml, created, cache_info):
        self.model, self.nb, self.bs, self.mml, self.tc, self.ci = model, nb, bs, mml, created, cache_info
        self.running = 0
        self.waiting = 0
        self.used_blocks = 0
        self.c = {"prefix_q": 0, "prefix_h": 0, "preempt": 0, "prompt": 0, "gen": 0}
        self.success = {"length": 0, "stop": 0}
        tb = b125(mml)
        self.h = {"ptok": Hist(tb), "gtok": Hist(tb), "iter": Hist(V1_ITER), "maxgen": Hist(tb),
                  "n": Hist(N_B), "maxtok": Hist(tb), "ttft": Hist(V1_TTFT), "tpot": Hist(V1_ITL),
                  "e2e": Hist(V1_LAT), "queue": Hist(V1_LAT), "infer": Hist(V1_LAT), "prefill": Hist(V1_LAT),
                  "decode": Hist(V1_LAT)}

    def text(self):
        base = f'engine="0",model_name="{self.model}"'
        L = []

        def lab(extra=""):
            return "{" + base + ("," + extra if extra else "") + "}"

        def created(name, rows=None):
            L.append(f"# HELP {name}_created {V1_HELP_08[name]}")
            L.append(f"# TYPE {name}_created gauge")
            for e in (rows or [""]):
                L.append(f"{name}_created{lab(e)} {self.tc!r}")

        def g(name, v):
            L.extend([f"# HELP {name} {V1_HELP_08[name]}", f"# TYPE {name} gauge", f"{name}{lab()} {num(v)}"])

        def c(name, v, rows=None):
            L.extend([f"# HELP {name}_total {V1_HELP_08[name]}", f"# TYPE {name}_total counter"])
            if rows is None:
                L.append(f"{name}_total{lab()} {num(v)}")
                created(name)
            else:
                for e, vv in rows:
                    L.append(f"{name}_total{lab(e)} {num(vv)}")
                created(name, [e for e, _ in rows])

        def h(name, H):
            L.extend([f"# HELP {name} {V1_HELP_08[name]}", f"# TYPE {name} histogram"])
            for b, cc in zip(H.bounds, H.cum()):
                L.append(f'{name}_bucket{lab("le=" + json.dumps(num(b)))} {num(cc)}')
            L.append(f'{name}_bucket{lab("le=" + json.dumps("+Inf"))} {num(H.n)}')
            L.append(f"{name}_count{lab()} {num(H.n)}")
            L.append(f"{name}_sum{lab()} {num(H.s)}")
            created(name)

        g("vllm:num_requests_running", self.running)
        g("vllm:num_requests_waiting", self.waiting)
        g("vllm:gpu_cache_usage_perc", self.used_blocks / self.nb)
        c("vllm:gpu_prefix_cache_queries", self.c["prefix_q"])
        c("vllm:gpu_prefix_cache_hits", self.c["prefix_h"])
        c("vllm:num_preemptions", self.c["preempt"])
        c("vllm:prompt_tokens", self.c["prompt"])
        c("vllm:generation_tokens", self.c["gen"])
        rows = [(f'finished_reason="{k}"', v) for k, v in sorted(self.success.items()) if v]
        if rows:
            c("vllm:request_success", None, rows)
        else:
            L.extend(["# HELP vllm:request_success_total " + V1_HELP_08["vllm:request_success"],
                      "# TYPE vllm:request_success_total counter"])
        for name, key in (("vllm:request_prompt_tokens", "ptok"), ("vllm:request_generation_tokens", "gtok"),
                          ("vllm:iteration_tokens_total", "iter"),
                          ("vllm:request_max_num_generation_tokens", "maxgen"), ("vllm:request_params_n", "n"),
                          ("vllm:request_params_max_tokens", "maxtok"),
                          ("vllm:time_to_first_token_seconds", "ttft"),
                          ("vllm:time_per_output_token_seconds", "tpot"),
                          ("vllm:e2e_request_latency_seconds", "e2e"),
                          ("vllm:request_queue_time_seconds", "queue"),
                          ("vllm:request_inference_time_seconds", "infer"),
                          ("vllm:request_prefill_time_seconds", "prefill"),
                          ("vllm:request_decode_time_seconds", "decode")):
            h(name, self.h[key])
        ci = ",".join(f'{k}="{v}"' for k, v in sorted(self.ci.items()))
        L += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
              "# TYPE vllm:cache_config_info gauge", "vllm:cache_config_info{" + ci + "} 1.0"]
        return "\n".join(L) + "\n"


def case_v1_frozen():
    cid = "zw-v1-internvl-l4-running1-frozen"
    rng = random.Random(17972)
    model = "tech4humans/InternVL2_5-1B-MPO-swift-r4-rslora-bf16-merged-tuned"
    nb, bs, mml = 89_120, 16, 32768
    t_srv = epoch(2025, 5, 11, 18, 0, 31)
    t0 = epoch(2025, 5, 11, 18, 2, 0)
    t1 = t0 + 600.0
    created = t_srv + 0.41
    ci = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "num_cpu_blocks": "None", "num_gpu_blocks": str(nb), "num_gpu_blocks_override": "None",
          "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4",
          "swap_space_bytes": str(4 * GiB)}
    st = V1State(model, nb, bs, mml, created, ci)
    itl = 0.0071
    # (arrive, prompt, output) of the two completed requests and the stuck third one
    plan = [(epoch(2025, 5, 11, 18, 2, 41) + 0.31, 419, 184), (epoch(2025, 5, 11, 18, 3, 55) + 0.78, 411, 171)]
    t_stuck = epoch(2025, 5, 11, 18, 4, 51) + 0.22
    p_stuck, g_stuck = 416, 4
    events = []   # (time, fn)
    logs_ev = []
    rid = lambda: "chatcmpl-" + "%032x" % rng.getrandbits(128)
    for arr, p, o in plan:
        r = rid()
        ttft = 0.148 + rng.uniform(0, 0.02)
        tf = arr + ttft
        te = tf + (o - 1) * itl
        logs_ev.append((arr + 0.002, f"INFO {stamp(arr)} [logger.py:39] Received request {r}: prompt: '<|im_start|>system\\n...<|im_end|>\\n<|im_start|>user\\n<image>\\nExtract the fields of this document as JSON.<|im_end|>\\n<|im_start|>assistant\\n', params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.0, top_p=1.0, top_k=-1, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=1024, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, extra_args=None), prompt_token_ids: None, lora_request: None, prompt_adapter_request: None."))
        logs_ev.append((arr + 0.004, f"INFO {stamp(arr)} [async_llm.py:252] Added request {r}."))
        logs_ev.append((te + 0.003, f'INFO:     10.101.56.92:{35000 + rng.randint(0, 900)} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
        events.append((arr, "admit", p, o, arr, tf, te))
    events.append((t_stuck, "stuck", p_stuck, g_stuck, t_stuck, t_stuck + 0.151, None))
    r = rid()
    logs_ev.append((t_stuck + 0.002, f"INFO {stamp(t_stuck)} [logger.py:39] Received request {r}: prompt: '<|im_start|>system\\n...<|im_end|>\\n<|im_start|>user\\n<image>\\nExtract the fields of this document as JSON.<|im_end|>\\n<|im_start|>assistant\\n', params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.0, top_p=1.0, top_k=-1, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=1024, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, extra_args=None), prompt_token_ids: None, lora_request: None, prompt_adapter_request: None."))
    logs_ev.append((t_stuck + 0.004, f"INFO {stamp(t_stuck)} [async_llm.py:252] Added request {r}."))
    # client: 20 s timeout, retry 5 s later; the frontend adds and aborts, the engine never answers
    tc = t_stuck + 20.0
    while tc < t1:
        logs_ev.append((tc, f"INFO {stamp(tc)} [async_llm.py:378] Aborted request {r}."))
        tn = tc + 5.0
        r = rid()
        logs_ev.append((tn, f"INFO {stamp(tn)} [async_llm.py:252] Added request {r}."))
        tc = tn + 20.0
    # health probes every 10 s (HF endpoint), kvdoctor scrapes every 5 s
    tp = t0 - 55.7
    while tp < t1:
        logs_ev.append((tp, f"DEBUG {stamp(tp)} [async_llm.py:467] Called check_health."))
        logs_ev.append((tp + 0.0005, f'INFO:     10.101.56.92:{35100 + int(tp) % 97} - "GET /health HTTP/1.1" 200 OK'))
        tp += 10.0

    # stats log every 10 s (INFO with activity, DEBUG when idle), ticks at ..:04
    scrapes = []
    ts = [t0 + 5.0 * i for i in range(121)]
    tl = epoch(2025, 5, 11, 18, 1, 4)
    win = {"p": 0, "g": 0}
    last_tp = [0.0, 0.0]
    state_log = {"running": 0}

    def apply_until(t, evs, applied):
        for k, e in enumerate(evs):
            if k in applied:
                continue
            kind, p, o, arr, tf, te = e[1], e[2], e[3], e[4], e[5], e[6]
            if kind == "admit":
                if t >= tf and ("f", k) not in applied:
                    applied.add(("f", k))
                    st.c["prompt"] += p
                    st.c["prefix_q"] += p
                    st.c["gen"] += 1
                    win["p"] += p
                    win["g"] += 1
                    st.h["ttft"].obs(tf - arr)
                    st.h["iter"].obs(p)
                    st.running = 1
                    st.used_blocks = (p + bs - 1) // bs
                if t >= te:
                    applied.add(k)
                    st.c["gen"] += o - 1
                    win["g"] += o - 1
                    for _ in range(o - 1):
                        st.h["tpot"].obs(itl)
                        st.h["iter"].obs(1)
                    st.running = 0
                    st.used_blocks = 0
                    st.success["stop"] += 1
                    st.h["ptok"].obs(p)
                    st.h["gtok"].obs(o)
                    st.h["maxgen"].obs(1024)
                    st.h["maxtok"].obs(1024)
                    st.h["n"].obs(1)
                    st.h["e2e"].obs(te - arr)
                    st.h["queue"].obs(0.0021)
                    st.h["infer"].obs(te - arr - 0.0021)
                    st.h["prefill"].obs(tf - arr - 0.0021)
                    st.h["decode"].obs(te - tf)
            else:
                if t >= tf:
                    applied.add(k)
                    st.c["prompt"] += p
                    st.c["prefix_q"] += p
                    st.c["gen"] += o
                    win["p"] += p
                    win["g"] += o
                    st.h["ttft"].obs(tf - arr)
                    st.h["iter"].obs(p)
                    for _ in range(o - 1):
                        st.h["tpot"].obs(itl)
                        st.h["iter"].obs(1)
                    st.running = 1
                    st.used_blocks = (p + o + bs - 1) // bs

    applied = set()
    stat_logs = []
    allt = sorted(set(ts) | {tl + 10.0 * i for i in range(80) if tl + 10.0 * i <= t1})
    for t in allt:
        apply_until(t, events, applied)
        if t in ts:
            scrapes.append({"t": t, "status": 200, "text": st.text()})
        if (t - tl) % 10.0 == 0 and t >= tl:
            p_tp, g_tp = win["p"] / 10.0, win["g"] / 10.0
            lvl = "INFO" if any((p_tp, g_tp, last_tp[0], last_tp[1])) else "DEBUG"
            u = 100.0 * st.used_blocks / nb
            stat_logs.append((t, f"{lvl} {stamp(t)} [loggers.py:111] Engine 000: Avg prompt throughput: {p_tp:.1f} tokens/s, "
                                 f"Avg generation throughput: {g_tp:.1f} tokens/s, Running: {st.running} reqs, Waiting: "
                                 f"{st.waiting} reqs, GPU KV cache usage: {u:.1f}%, Prefix cache hit rate: 0.0%"))
            last_tp[:] = [p_tp, g_tp]
            win["p"] = win["g"] = 0
    for t in ts:
        logs_ev.append((t + 0.004, f'INFO:     127.0.0.1:{51800 + int(t) % 113} - "GET /metrics HTTP/1.1" 200 OK'))
    s0 = t_srv - 74
    A = ""
    startup = [
        f"INFO {stamp(s0)} [__init__.py:239] Automatically detected platform cuda.",
        f"INFO {stamp(s0 + 3)} [api_server.py:1043] vLLM API server version 0.8.5.post1",
        f"INFO {stamp(s0 + 3)} [api_server.py:1044] args: Namespace(subparser='serve', model_tag='{model}', config='', host='0.0.0.0', port=80, uvicorn_log_level='info', disable_uvicorn_access_log=False, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, chat_template_content_format='auto', response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, enable_ssl_refresh=False, ssl_cert_reqs=0, root_path=None, middleware=[], return_tokens_as_token_ids=False, disable_frontend_multiprocessing=False, enable_request_id_headers=False, enable_auto_tool_choice=False, tool_call_parser=None, tool_parser_plugin='', model='{model}', task='auto', tokenizer=None, hf_config_path=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=True, allowed_local_media_path=None, load_format='auto', download_dir=None, model_loader_extra_config={{}}, use_tqdm_on_load=True, config_format=<ConfigFormat.AUTO: 'auto'>, dtype='auto', max_model_len=None, guided_decoding_backend='auto', reasoning_parser=None, logits_processor_pattern=None, model_impl='auto', distributed_executor_backend=None, pipeline_parallel_size=1, tensor_parallel_size=1, data_parallel_size=1, enable_expert_parallel=False, max_parallel_loading_workers=None, ray_workers_use_nsight=False, disable_custom_all_reduce=True, block_size=None, gpu_memory_utilization=0.9, swap_space=4, kv_cache_dtype='auto', num_gpu_blocks_override=None, enable_prefix_caching=None, prefix_caching_hash_algo='builtin', cpu_offload_gb=0, calculate_kv_scales=False, disable_sliding_window=False, use_v2_block_manager=True, seed=None, max_logprobs=20, disable_log_stats=False, quantization=None, rope_scaling=None, rope_theta=None, hf_token=None, hf_overrides=None, enforce_eager=True, max_seq_len_to_capture=8192, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config={{}}, limit_mm_per_prompt={{}}, mm_processor_kwargs=None, disable_mm_preprocessor_cache=False, enable_lora=None, enable_lora_bias=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', long_lora_scaling_factors=None, max_cpu_loras=None, fully_sharded_loras=False, enable_prompt_adapter=None, max_prompt_adapters=1, max_prompt_adapter_token=0, device='auto', speculative_config=None, ignore_patterns=[], served_model_name=None, qlora_adapter_name_or_path=None, show_hidden_metrics_for_version=None, otlp_traces_endpoint=None, collect_detailed_traces=None, disable_async_output_proc=False, max_num_batched_tokens=None, max_num_seqs=None, max_num_partial_prefills=1, max_long_partial_prefills=1, long_prefill_token_threshold=0, num_lookahead_slots=0, scheduler_delay_factor=0.0, preemption_mode=None, num_scheduler_steps=1, multi_step_stream_outputs=True, scheduling_policy='fcfs', enable_chunked_prefill=None, disable_chunked_mm_input=False, scheduler_cls='vllm.core.scheduler.Scheduler', override_neuron_config=None, override_pooler_config=None, compilation_config=None, kv_transfer_config=None, worker_cls='auto', worker_extension_cls='', generation_config='auto', override_generation_config=None, enable_sleep_mode=False, additional_config=None, enable_reasoning=False, disable_cascade_attn=False, disable_log_requests=False, max_log_len=None, disable_fastapi_docs=False, enable_prompt_tokens_details=False, enable_server_load_tracking=False)",
        f"INFO {stamp(s0 + 14)} [config.py:717] This model supports multiple tasks: {{'generate', 'score', 'embed', 'reward', 'classify'}}. Defaulting to 'generate'.",
        f"INFO {stamp(s0 + 14)} [config.py:2003] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"WARNING {stamp(s0 + 14)} [cuda.py:93] To see benefits of async output processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used",
        f"INFO {stamp(s0 + 20)} [core.py:58] Initializing a V1 LLM engine (v0.8.5.post1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=True, quantization=None, enforce_eager=True, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='auto', reasoning_backend=None), observability_config=ObservabilityConfig(show_hidden_metrics=False, otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=None, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=False, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[],\"max_capture_size\":0}}",
        f"INFO {stamp(s0 + 27)} [gpu_model_runner.py:1329] Starting to load model {model}...",
        f"INFO {stamp(s0 + 41)} [gpu_model_runner.py:1347] Model loading took 1.8771 GiB and 13.402231 seconds",
        f"INFO {stamp(s0 + 44)} [gpu_model_runner.py:1620] Encoder cache will be initialized with a budget of 3328 tokens, and profiled with 1 image items of the maximum feature size.",
        f"INFO {stamp(s0 + 52)} [kv_cache_utils.py:634] GPU KV cache size: {nb * bs:,} tokens",
        f"INFO {stamp(s0 + 52)} [kv_cache_utils.py:637] Maximum concurrency for 32,768 tokens per request: {nb * bs / 32768:.2f}x",
        f"INFO {stamp(s0 + 53)} [core.py:159] init engine (profile, create kv cache, warmup model) took 10.96 seconds",
        f"INFO {stamp(s0 + 53)} [core_client.py:439] Core engine process 0 ready.",
        f"INFO {stamp(t_srv)} [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:80",
        "INFO:     Started server process [1]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
    ]
    ev = [e for e in logs_ev + stat_logs if t0 - 60 <= e[0] <= t1]
    ev.sort(key=lambda x: x[0])
    logs = startup + [l for _, l in ev]
    total = 24_152_899_584

    def gpu(t):
        util_used = int(0.9 * total) + 344 * MiB
        return [{"index": 0, "name": "NVIDIA L4", "memory_total": total, "memory_used": util_used,
                 "processes": [{"pid": 118, "name": "python3", "used_memory": util_used - 344 * MiB}]}]

    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0",
                "endpoint": "https://xxxxxxxx.us-east-1.aws.endpoints.huggingface.cloud", "started_at": t0,
                "ended_at": t1, "interval_s": 5.0,
                "notes": "Hugging Face Inference Endpoint, 1x NVIDIA L4, vllm-openai image (InternVL2.5-1B MPO "
                         "fine-tune), --enforce-eager --disable-custom-all-reduce, VLLM_LOGGING_LEVEL=DEBUG. Operator "
                         "report: after 1-2 successful requests every further /v1/chat/completions call times out; "
                         "GPU utilization drops; /health stays 200. Recorded from the first request on."}
    server = {"version": {"version": "0.8.5.post1"},
              "models": {"object": "list", "data": [{"id": model, "object": "model", "created": int(t_srv + 5),
                                                     "owned_by": "vllm", "root": model, "parent": None,
                                                     "max_model_len": mml}]},
              "health": 200}
    engine_args = {"argv": ["vllm", "serve", model, "--host", "0.0.0.0", "--port", "80", "--trust-remote-code",
                            "--enforce-eager", "--disable-custom-all-reduce"],
                   "args": {"model": model, "trust-remote-code": True, "enforce-eager": True,
                            "disable-custom-all-reduce": True}}
    write_common(ROOT / "cases" / cid / "bundle", manifest, scrapes, server, engine_args, INTERNVL_1B,
                 [{"t": s["t"], "devices": gpu(s["t"])} for s in scrapes], logs)
    return Done(scrapes)


# --------------------------------------------------------------------------- vllm#7782

LLAMA3_70B_AWQ = {
    "_name_or_path": "casperhansen/llama-3-70b-instruct-awq", "architectures": ["LlamaForCausalLM"],
    "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000, "eos_token_id": 128009,
    "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 28672,
    "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 64, "num_hidden_layers": 80,
    "num_key_value_heads": 8, "pretraining_tp": 1,
    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq",
                            "version": "gemm", "zero_point": True},
    "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 500000.0, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.40.1", "use_cache": True, "vocab_size": 128256}


def case_v054_process_only():
    cid = "zw-v054-metrics-only-process-families"
    rng = random.Random(7782)
    model = "casperhansen/llama-3-70b-instruct-awq"
    t0 = epoch(2024, 8, 22, 9, 40, 0)
    t1 = t0 + 300.0
    start = t0 - 5310.27
    gc0, gc1, gc2 = 7902, 4609, 1618
    n0, n1, n2 = 956, 85, 79
    cpu = 412.61
    rss = 1_391_276_032
    scrapes = []
    for i in range(31):
        t = t0 + 10.0 * i
        d = rng.randint(20, 90)
        gc0 += d * 9
        gc1 += d * 2
        gc2 += rng.randint(0, 3)
        n0 += d // 10
        n1 += 1 if i % 4 == 0 else 0
        n2 += 1 if i % 15 == 0 else 0
        cpu += rng.uniform(1.1, 2.6)
        rss += rng.randint(-2, 6) * 4096
        fds = 58 + rng.randint(0, 6)
        text = "\n".join([
            "# HELP python_gc_objects_collected_total Objects collected during gc",
            "# TYPE python_gc_objects_collected_total counter",
            f'python_gc_objects_collected_total{{generation="0"}} {gc0:.1f}',
            f'python_gc_objects_collected_total{{generation="1"}} {gc1:.1f}',
            f'python_gc_objects_collected_total{{generation="2"}} {gc2:.1f}',
            "# HELP python_gc_objects_uncollectable_total Uncollectable objects found during GC",
            "# TYPE python_gc_objects_uncollectable_total counter",
            'python_gc_objects_uncollectable_total{generation="0"} 0.0',
            'python_gc_objects_uncollectable_total{generation="1"} 0.0',
            'python_gc_objects_uncollectable_total{generation="2"} 0.0',
            "# HELP python_gc_collections_total Number of times this generation was collected",
            "# TYPE python_gc_collections_total counter",
            f'python_gc_collections_total{{generation="0"}} {n0:.1f}',
            f'python_gc_collections_total{{generation="1"}} {n1:.1f}',
            f'python_gc_collections_total{{generation="2"}} {n2:.1f}',
            "# HELP python_info Python platform information",
            "# TYPE python_info gauge",
            'python_info{implementation="CPython",major="3",minor="10",patchlevel="12",version="3.10.12"} 1.0',
            "# HELP process_virtual_memory_bytes Virtual memory size in bytes.",
            "# TYPE process_virtual_memory_bytes gauge",
            "process_virtual_memory_bytes 1.0322907136e+011",
            "# HELP process_resident_memory_bytes Resident memory size in bytes.",
            "# TYPE process_resident_memory_bytes gauge",
            f"process_resident_memory_bytes {float(rss):.10e}".replace("e+0", "e+0"),
            "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.",
            "# TYPE process_start_time_seconds gauge",
            f"process_start_time_seconds {start:.2f}",
            "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.",
            "# TYPE process_cpu_seconds_total counter",
            f"process_cpu_seconds_total {cpu:.2f}",
            "# HELP process_open_fds Number of open file descriptors.",
            "# TYPE process_open_fds gauge",
            f"process_open_fds {fds:.1f}",
            "# HELP process_max_fds Maximum number of open file descriptors.",
            "# TYPE process_max_fds gauge",
            "process_max_fds 1.048576e+06",
        ]) + "\n"
        scrapes.append({"t": t, "status": 200, "text": text})
    total = 85_899_345_920

    def gpu(t):
        used = int(0.94 * total) + 528 * MiB
        return [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total, "memory_used": used,
                 "processes": [{"pid": 2871467, "name": "python3", "used_memory": used - 528 * MiB}]}]

    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://localhost:5432",
                "started_at": t0, "ended_at": t1, "interval_s": 10.0,
                "notes": "vllm/vllm-openai:v0.5.4 container (docker run --gpus '\"device=2\"' -p 5432:8000), "
                         "llama-3-70b-instruct-awq. Operator report: /metrics shows less information than with the "
                         "0.5.1 image; gpu_cache_usage_perc and the other vLLM metrics are gone. No server log "
                         "passed."}
    server = {"version": {"version": "0.5.4"},
              "models": {"object": "list", "data": [{"id": model, "object": "model", "created": int(t0),
                                                     "owned_by": "vllm", "root": model, "parent": None,
                                                     "max_model_len": 8000}]},
              "health": 200}
    argv = ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", model, "--dtype", "half",
            "--max_model_len", "8000", "-q", "awq", "--gpu-memory-utilization", "0.94", "--enable-prefix-caching"]
    engine_args = {"argv": argv, "args": {"model": model, "dtype": "half", "max-model-len": 8000,
                                          "quantization": "awq", "gpu-memory-utilization": 0.94,
                                          "enable-prefix-caching": True}}
    write_common(ROOT / "cases" / cid / "bundle", {**manifest}, scrapes, server, engine_args, LLAMA3_70B_AWQ,
                 [{"t": s["t"], "devices": gpu(s["t"])} for s in scrapes], None)
    return Done(scrapes)
