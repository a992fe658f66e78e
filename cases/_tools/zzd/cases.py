"""Writer zzd's cases (round 13): builds cases/zzd-*/bundle (and prompts.jsonl). Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzd/cases.py [case-id ...]
Numbers not quoted from the source are listed under `assumed:` in each case.yaml. Seeded, no wall clock.
Families / HELP / buckets come from the last scrape of an existing case bundle of a nearby release (gen._template).
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
WORDS = ("data report system value user agent file tool result query table index build test model plan step "
         "check update list note task code path error config service request token cache order item price team "
         "review change merge branch commit deploy metric alert graph node queue batch stream event time").split()


def utc(y, mo, d, h, mi, sec=0.0) -> float:
    return dt.datetime(y, mo, d, h, mi, int(sec), tzinfo=dt.timezone.utc).timestamp() + (sec - int(sec))


def text(rng: random.Random, n: int) -> str:
    """~1 token per word stand-in text."""
    return " ".join(rng.choice(WORDS) for _ in range(max(1, n)))


def gpu_dev(index, name, total, used, pid, pname, pused):
    return {"index": index, "name": name, "memory_total": total, "memory_used": used,
            "processes": [{"pid": pid, "name": pname, "used_memory": pused}]}


def write_prompts(path: Path, recs: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))


# ------------------------------------------------------------------ 1: discuss.vllm.ai/t/1111 (dev-13)
def rolling() -> None:
    cid = "zzd-rolling-hit-rate-same-message-healthy"
    out = ROOT / "cases" / cid / "bundle"
    t0 = utc(2025, 7, 18, 9, 41, 0)  # first scrape; requests from 09:42:17
    model = "/data/models/Qwen2.5-7B-Instruct"
    served = "Qwen2.5-7B-Instruct"
    pool = 1_068_928  # 66,808 blocks: A100 80GB x 0.9 - 14.25 GiB weights - 4.6 GiB peak -> ~52.2 GiB / 56 KiB per token
    c = Case(cid=cid, version="0.9.2", v0=False, model_name=served, model_root=model, max_model_len=60000,
             start=t0, n_scrapes=31, interval=10.0, labels_cc={}, pool_tokens=pool, block_size=16, max_num_seqs=256,
             tmpl="e-lmcache-gpu-already-hits-healthy")
    c.labels_cc = gen.tmpl_cc(c.tmpl, block_size=16, gpu_memory_utilization=0.9, enable_prefix_caching="True",
                              num_gpu_blocks=pool // 16, cache_dtype="auto")
    arr = [utc(2025, 7, 18, 9, 42, 17.2), utc(2025, 7, 18, 9, 42, 43.1), utc(2025, 7, 18, 9, 43, 7.4),
           utc(2025, 7, 18, 9, 43, 29.8), utc(2025, 7, 18, 9, 43, 55.6)]
    gens = [148, 152, 141, 156, 149]
    reqs = []
    for i, (ta, g) in enumerate(zip(arr, gens)):
        r = Req(rid=i, t_arr=ta, prompt=40, cached=0 if i == 0 else 32, gen=g, max_tokens=59960)
        r.t_sched = ta + 0.004
        r.t_first = r.t_sched + (0.031 if i == 0 else 0.019)
        r.step_s = 0.0102
        r.t_end = r.t_first + r.steps() * r.step_s
        reqs.append(r)
    c.reqs = reqs
    api = 2771
    pfx = lambda t: f"INFO {ts(t)} [loggers.py:111] "
    L = []
    boot = t0 - 190
    L.append((boot, f"INFO {ts(boot)} [__init__.py:244] Automatically detected platform cuda."))
    L.append((boot + 3, f"INFO {ts(boot + 3)} [api_server.py:1395] vLLM API server version 0.9.2"))
    L.append((boot + 3, f"INFO {ts(boot + 3)} [cli_args.py:325] non-default args: {{'model_tag': '{model}', 'port': 8000, 'model': '{model}', 'max_model_len': 60000, 'served_model_name': ['{served}']}}"))
    L.append((boot + 11, f"INFO {ts(boot + 11)} [config.py:841] This model supports multiple tasks: {{'classify', 'embed', 'generate', 'reward'}}. Defaulting to 'generate'."))
    L.append((boot + 11, f"INFO {ts(boot + 11)} [config.py:2281] Chunked prefill is enabled with max_num_batched_tokens=8192."))
    L.append((boot + 19, f"INFO {ts(boot + 19)} [core.py:526] Waiting for init message from front-end."))
    L.append((boot + 19, f"INFO {ts(boot + 19)} [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=60000, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={served}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True"))
    L.append((boot + 52, f"INFO {ts(boot + 52)} [gpu_model_runner.py:1595] Model loading took 14.2488 GiB and 31.402113 seconds"))
    L.append((boot + 71, f"INFO {ts(boot + 71)} [gpu_worker.py:227] Available KV cache memory: 51.00 GiB"))
    L.append((boot + 71, f"INFO {ts(boot + 71)} [kv_cache_utils.py:715] GPU KV cache size: {pool:,} tokens"))
    L.append((boot + 71, f"INFO {ts(boot + 71)} [kv_cache_utils.py:719] Maximum concurrency for 60,000 tokens per request: 17.81x"))
    L.append((boot + 96, f"INFO {ts(boot + 96)} [gpu_model_runner.py:2048] Graph capturing finished in 24 secs, took 0.52 GiB"))
    L.append((boot + 97, f"INFO {ts(boot + 97)} [core.py:172] init engine (profile, create kv cache, warmup model) took 44.63 seconds"))
    L.append((boot + 99, f"INFO {ts(boot + 99)} [loggers.py:137] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool // 16}"))
    L.append((boot + 100, f"INFO {ts(boot + 100)} [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000"))
    L.append((boot + 101, f"INFO:     Application startup complete."))
    prompt = ("<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n"
              "<|im_start|>user\\n给我写一篇100字的春游作文<|im_end|>\\n<|im_start|>assistant\\n")
    ids = ["6575a190105c45a0a33ff6c33a4e6623", "ecdfeaeff8a3453ba779437f5f335819", "3b0c1e7d2a9f4c5e8e21d7f4a6b90c11",
           "9d41f0b2c7e84a6fb3e5c2d1a0f97e42", "51ae8c0d3f2b47e9a6c4d8e2b1f03a77"]
    for i, r in enumerate(reqs):
        t = r.t_arr
        if i == 0:
            L.append((t - 0.001, f"INFO {ts(t)} [chat_utils.py:397] Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this."))
        L.append((t, f"INFO {ts(t)} [logger.py:39] Received request chatcmpl-{ids[i]}: prompt: '{prompt}', params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.05, temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=59960, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, extra_args=None), prompt_token_ids: None, lora_request: None, prompt_adapter_request: None."))
        L.append((t + 0.001, f'INFO:     10.45.230.17:{65109 + 7 * i} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
        L.append((t + 0.002, f"INFO {ts(t)} [async_llm.py:252] Added request chatcmpl-{ids[i]}."))
    # stats lines on the engine's own 10 s clock (first line 09:42:27 as quoted)
    first_log = utc(2025, 7, 18, 9, 42, 27)
    L += [(tt, s) for tt, s in gen.rolling_stats_lines(c, first_log - 10 * 9, c.start + 300, pfx, "loggers.py:111")
          if tt >= t0]
    used = int(71.27 * GiB + 1.31 * GiB)
    gpu = gen.gpu_samples(c, [gpu_dev(0, "NVIDIA A100-SXM4-80GB", 85899345920, used, 2904, "VLLM::EngineCore", used - 1 * GiB)])
    gen.write(c, out, server=gen.server_json("0.9.2", served, model, 60000, int(boot + 100)),
              engine_args={"argv": ["vllm", "serve", model, "--max-model-len", "60000", "--served-model-name", served],
                           "args": {"max-model-len": 60000, "served-model-name": served}},
              model_config=QWEN25_7B, gpu=gpu, logs=L,
              notes=("single-user test of a Qwen2.5-7B-Instruct chat endpoint (1x A100 80GB): the same chat message sent "
                     "five times, one after the other; the operator asks why the logged 'Prefix cache hit rate' climbs "
                     "0, 40, 53, 60, 64 % instead of reading the same value each time; /metrics every 10 s for 5 min, NVML, server log"),
              endpoint="http://10.45.230.21:8000")


QWEN25_7B = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
             "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
             "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
             "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06,
             "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
             "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
             "transformers_version": "4.43.1", "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}

LLAMA31_8B_FP8 = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
                  "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
                  "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
                  "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
                  "quantization_config": {"activation_scheme": "static", "ignored_layers": ["lm_head"], "quant_method": "fp8"},
                  "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                  "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0,
                  "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.44.0", "use_cache": True,
                  "vocab_size": 128256}

QWEN3_32B = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
             "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
             "intermediate_size": 25600, "max_position_embeddings": 40960, "max_window_layers": 64, "model_type": "qwen3",
             "num_attention_heads": 64, "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
             "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
             "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
             "vocab_size": 151936}

QWEN3_8B = {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
            "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
            "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
            "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
            "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
            "vocab_size": 151936}


# ------------------------------------------------------------------ 2: kubeai prefix-aware LB benchmark (holdout-13)
def scatter() -> None:
    cid = "zzd-k8s-service-8-replicas-scatter-sharegpt"
    out = ROOT / "cases" / cid / "bundle"
    rng = random.Random(1302)
    t0 = utc(2025, 2, 19, 14, 20, 0)
    run0 = t0 + 40.0
    served = "llama-3.1-8b-instruct-fp8-l4"
    model = "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"
    pool = 185_152
    B = 16
    c = Case(cid=cid, version="0.7.3", v0=True, model_name=served, model_root=model, max_model_len=16384,
             start=t0, n_scrapes=31, interval=10.0, labels_cc={}, pool_tokens=pool, block_size=B, max_num_seqs=256,
             tmpl="s-qwq32b-fp8-l40-two-reasoning-fill-pool", block_counts=True, with_cc=False,
             labels_base={"model_name": served})
    SYS = 26  # Llama 3.1 default system header (knowledge / today date)
    convs = []
    for k in range(800):
        turns = []
        hist = SYS
        for j in range(10):
            u = max(8, int(rng.lognormvariate(math.log(60), 0.8)))
            a = max(8, int(rng.lognormvariate(math.log(70), 0.7)))
            turns.append((hist + u, a, u))
            hist += u + a
        convs.append(turns)
    # closed loop: each conversation sends turn j after turn j-1 finished; each request to a random replica
    mine, seen, cid_turns = [], {}, {}
    rid = 0
    for k, turns in enumerate(convs):
        t = run0 + rng.uniform(0, 1.0)
        for j, (p, a, u) in enumerate(turns):
            rep = rng.randrange(8)
            ttft = min(14.0, rng.lognormvariate(math.log(0.60), 1.05))
            tpot = max(0.08, rng.gauss(0.189, 0.03))
            g = max(4, int(rng.lognormvariate(math.log(66), 0.55)))
            if rep == 0:
                best = 0
                for (pj, tj) in seen.get(k, []):
                    if tj <= t and pj <= p:
                        best = max(best, (pj // B) * B)
                anyone = any(True for _ in mine)
                cached = min(max(best, B if anyone else 0), ((p - 1) // B) * B)
                r = Req(rid=rid, t_arr=t, prompt=p, cached=cached, gen=g, max_tokens=g if rng.random() < 0.3 else 4096)
                r.reason = "length" if r.max_tokens == g else "stop"
                r.t_sched = t + ttft * rng.uniform(0.45, 0.7)
                r.t_first = t + ttft
                r.step_s = tpot
                r.t_end = r.t_first + r.steps() * tpot
                mine.append(r)
                seen.setdefault(k, []).append((p, r.t_first))
                cid_turns[rid] = (k, j)
                rid += 1
                t_end = r.t_end
            else:
                t_end = t + ttft + (g - 1) * tpot
            t = t_end + 0.01
    c.reqs = mine
    api = 1
    pfx = lambda t: f"INFO {ts(t)} loggers.py:78] "
    L = []
    boot = t0 - 1500
    L.append((boot, f"INFO {ts(boot)} __init__.py:207] Automatically detected platform cuda."))
    L.append((boot + 2, f"INFO {ts(boot + 2)} api_server.py:912] vLLM API server version 0.7.3"))
    L.append((boot + 2, f"INFO {ts(boot + 2)} api_server.py:913] args: Namespace(subparser='serve', model_tag='/model', host=None, port=8000, model='/model', served_model_name=['{served}'], max_model_len=16384, max_num_batched_tokens=16384, gpu_memory_utilization=0.95, kv_cache_dtype='fp8', enable_prefix_caching=True, disable_log_requests=True)"))
    L.append((boot + 9, f"WARNING {ts(boot + 9)} arg_utils.py:1385] Setting max_num_batched_tokens to 16384 for OPENAI_API_SERVER usage context."))
    L.append((boot + 9, f"INFO {ts(boot + 9)} config.py:549] This model supports multiple tasks: {{'generate', 'reward', 'embed', 'score', 'classify'}}. Defaulting to 'generate'."))
    L.append((boot + 9, f"INFO {ts(boot + 9)} config.py:1138] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor"))
    L.append((boot + 16, f"INFO {ts(boot + 16)} core.py:50] Initializing a V1 LLM engine (v0.7.3) with config: model='/model', speculative_config=None, tokenizer='/model', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=fp8, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), observability_config=ObservabilityConfig(otlp_traces_endpoint=None, collect_model_forward_time=False, collect_model_execute_time=False), seed=0, served_model_name={served}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"level\":3,\"custom_ops\":[\"none\"],\"splitting_ops\":[\"vllm.unified_attention\",\"vllm.unified_attention_with_output\"],\"use_inductor\":true,\"compile_sizes\":[],\"use_cudagraph\":true,\"cudagraph_num_of_warmups\":1,\"cudagraph_capture_sizes\":[512,504,496,488,480,472,464,456,448,440,432,424,416,408,400,392,384,376,368,360,352,344,336,328,320,312,304,296,288,280,272,264,256,248,240,232,224,216,208,200,192,184,176,168,160,152,144,136,128,120,112,104,96,88,80,72,64,56,48,40,32,24,16,8,4,2,1],\"max_capture_size\":512}}"))
    L.append((boot + 58, f"INFO {ts(boot + 58)} gpu_model_runner.py:1049] Loading model weights took 8.4890 GB"))
    L.append((boot + 91, f"INFO {ts(boot + 91)} kv_cache_utils.py:524] GPU KV cache size: {pool:,} tokens"))
    L.append((boot + 91, f"INFO {ts(boot + 91)} kv_cache_utils.py:527] Maximum concurrency for 16,384 tokens per request: 11.30x"))
    L.append((boot + 118, f"INFO {ts(boot + 118)} gpu_model_runner.py:1344] Graph capturing finished in 27 secs, took 0.41 GiB"))
    L.append((boot + 119, f"INFO {ts(boot + 119)} core.py:116] init engine (profile, create kv cache, warmup model) took 60.25 seconds"))
    L.append((boot + 121, f"INFO {ts(boot + 121)} api_server.py:958] Starting vLLM API server on http://0.0.0.0:8000"))
    for r in mine:
        L.append((r.t_arr + 0.002, f'INFO:     10.244.3.{17 + r.rid % 5}:{40000 + r.rid % 20000} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    L += gen.rolling_stats_lines(c, t0 - 10 * 0, c.start + 300, pfx, "loggers.py:78", engine_tag="")
    used = 23034 * MiB - 1150 * MiB
    gpu = gen.gpu_samples(c, [gpu_dev(0, "NVIDIA L4", 24152899584, used, 1, "python3", used - 480 * MiB)])
    gen.write(c, out, server=gen.server_json("0.7.3", served, "/model", 16384, int(boot + 121)),
              engine_args={"argv": ["vllm", "serve", "/model", "--served-model-name", served, "--enable-prefix-caching",
                                    "--max-model-len=16384", "--max-num-batched-token=16384", "--gpu-memory-utilization=0.95",
                                    "--disable-log-requests", "--kv-cache-dtype=fp8"],
                           "args": {"enable-prefix-caching": True, "max-model-len": 16384, "max-num-batched-tokens": 16384,
                                    "gpu-memory-utilization": 0.95, "disable-log-requests": True, "kv-cache-dtype": "fp8",
                                    "served-model-name": served}},
              model_config=LLAMA31_8B_FP8, gpu=gpu, logs=L,
              notes=("pod vllm-llama-3.1-8b-instruct-fp8-l4-0, one of 8 identical vLLM replicas (1x L4 each, env VLLM_USE_V1=1) "
                     "behind a plain Kubernetes ClusterIP Service (vllm-direct, kube-proxy spreads requests over the 8 pods). "
                     "Load: benchmark_serving over multi-turn ShareGPT conversations (>=16 messages, 800 conversations, "
                     "max-concurrency 800, 8000 prompts) sent to the Service; recorded on this one pod during the run: "
                     "/metrics every 10 s for 5 min, NVML, pod log; request sample in prompts.jsonl"),
              endpoint="http://10.244.3.9:8000")
    # prompts: a sample of this replica's requests as chat messages
    prng = random.Random(77)
    recs = []
    sample = [r for r in mine if r.rid % 10 == 0][:80]
    for r in sample:
        k, j = cid_turns[r.rid]
        msgs = [{"role": "system", "content": "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024"}]
        crng = random.Random(k * 1000)
        for jj in range(j + 1):
            p, a, u = convs[k][jj]
            msgs.append({"role": "user", "content": f"[conv {k:03d}] " + text(crng, u - 4)})
            if jj < j:
                msgs.append({"role": "assistant", "content": text(crng, a)})
        recs.append({"model": served, "messages": msgs, "max_tokens": r.max_tokens})
    write_prompts(ROOT / "cases" / cid / "prompts.jsonl", recs)
    q = sum(r.prompt // B for r in mine); h = sum(r.cached // B for r in mine)
    print(cid, "reqs", len(mine), "block hit", round(h / q, 3), "token hit", round(sum(r.cached for r in mine) / sum(r.prompt for r in mine), 3))


# ------------------------------------------------------------------ 3: agentic-kvc LRU eviction (holdout-13)
def churn(ia: float = 6.5, cold=(30, 70), gaps=(2, 3, 4, 6, 8, 10, 12), sp: float = 0.25, nt=(3, 4), write: bool = True) -> None:
    cid = "zzd-agentic-turns-evicted-lru-550-blocks"
    out = ROOT / "cases" / cid / "bundle"
    rng = random.Random(1303)
    t0 = utc(2025, 11, 4, 10, 0, 0)
    served = "qwen3-32b"
    model = "Qwen/Qwen3-32B"
    TB = 512            # analysis block (tokens)
    CAP = 550           # blocks of TB per instance
    pool = CAP * TB     # 281,600 tokens
    SYSB = 8            # 4k-token shared system/tool prefix
    dur = 660.0
    # build the arrival stream: cold requests and multi-turn sessions
    events = []  # (t_arr, key, blocks(list of ids), gen, session, turn)
    nxt = 0

    def newids(n):
        nonlocal nxt
        ids = list(range(nxt, nxt + n)); nxt += n
        return ids
    t = t0 - 60.0
    sessions = []
    while t < t0 + dur:
        t += rng.expovariate(1 / ia)
        if rng.random() < sp:
            ctx = newids(rng.randint(80, 96))
            sessions.append({"t": t, "ctx": ctx, "turns": rng.randint(*nt)})
            events.append([t, ["S"] + ctx, rng.randint(200, 420), len(sessions) - 1, 0])
        else:
            events.append([t, ["S"] + newids(rng.randint(*cold)), rng.randint(150, 450), None, 0])
    # engine model: FIFO admission, pinned blocks for running requests, LRU over free cached blocks
    decode = lambda n: 0.031 + 0.0011 * n
    prefill_rate = 9000.0
    cache = {}          # block key -> last use time (free cached blocks)
    pinned = {}         # block key -> refcount
    reqs, pending, running = [], sorted(events, key=lambda e: e[0]), []
    infinite = set()
    inf_hits = 0
    rid = 0
    now = pending[0][0]
    queue = []
    sess_next = []      # follow-up turns scheduled on completion

    def keys_of(ev):
        ids = ev[1]
        ks = [("sys", i) for i in range(SYSB)]
        ks += [("blk", i) for i in ids[1:]]
        return ks
    while pending or queue or running or sess_next:
        cand = [e[0] for e in pending[:1]] + [r["end"] for r in running] + [e[0] for e in sess_next]
        if not queue and cand:
            now = max(now, min(cand))
        # finish
        for r in [r for r in running if r["end"] <= now]:
            running.remove(r)
            for k in r["keys"]:
                pinned[k] -= 1
                if pinned[k] == 0:
                    del pinned[k]
                    cache[k] = now
            if r["sess"] is not None:
                s = sessions[r["sess"]]
                if r["turn"] + 1 < s["turns"]:
                    add = newids(rng.randint(2, 4))  # answer + tool result / next user message
                    s["ctx"] = s["ctx"] + add
                    gap = rng.choice(gaps)
                    sess_next.append([now + gap, ["S"] + s["ctx"], rng.randint(200, 420), r["sess"], r["turn"] + 1])
        for e in sorted([e for e in sess_next if e[0] <= now], key=lambda e: e[0]):
            sess_next.remove(e); queue.append(e)
        while pending and pending[0][0] <= now:
            queue.append(pending.pop(0))
        queue.sort(key=lambda e: e[0])
        progressed = False
        while queue:
            e = queue[0]
            ks = keys_of(e)
            hit = 0
            for k in ks:
                if k in cache or k in pinned:
                    hit += 1
                else:
                    break
            ihit = 0
            for k in ks:
                if k in infinite:
                    ihit += 1
                else:
                    break
            need_new = len(ks) - hit
            free_cap = CAP - len(pinned) - sum(1 for k in ks[:hit] if k in cache)
            if need_new > free_cap and running:
                break
            queue.pop(0)
            for k in ks[:hit]:
                cache.pop(k, None)
            for k in ks:
                pinned[k] = pinned.get(k, 0) + 1
            while len(pinned) + len(cache) > CAP and cache:
                old = min(cache, key=cache.get)
                del cache[old]
            infinite.update(ks)
            ptok = len(ks) * TB - rng.randint(0, TB - 40)
            ctok = min(hit * TB, ptok - 1)
            ctok = (ctok // 16) * 16
            ictok = (min(ihit * TB, ptok - 1) // 16) * 16
            inf_hits += ictok
            r = Req(rid=rid, t_arr=e[0], prompt=ptok, cached=ctok, gen=e[2], max_tokens=8192)
            r.t_sched = max(now, e[0])
            n = len(running) + 1
            r.t_first = r.t_sched + 0.06 + (ptok - ctok) / prefill_rate
            r.step_s = decode(n)
            r.t_end = r.t_first + r.steps() * r.step_s
            r.sess, r.turn, r.inf = e[3], e[4], ictok
            reqs.append(r); rid += 1
            running.append({"end": r.t_end, "keys": ks, "sess": e[3], "turn": e[4]})
            progressed = True
        if not progressed and not running and not queue and not pending and not sess_next:
            break
        if queue and not progressed:
            now = min([r["end"] for r in running] + [now + 0.5])
    reqs = [r for r in reqs if r.t_arr <= t0 + dur]
    c = Case(cid=cid, version="0.11.0", v0=False, model_name=served, model_root=model, max_model_len=40960,
             start=t0, n_scrapes=61, interval=10.0, labels_cc={}, pool_tokens=pool, block_size=16, max_num_seqs=256,
             tmpl="b-eviction-churn-contract-qa")
    c.labels_cc = gen.tmpl_cc(c.tmpl, block_size=16, gpu_memory_utilization=0.88, num_gpu_blocks=pool // 16)
    c.reqs = reqs
    win = [r for r in reqs if t0 <= r.t_first <= t0 + 600]
    P = sum(r.prompt for r in win)
    print(cid, "reqs", len(win), "LRU hit", round(sum(r.cached for r in win) / P, 3), "infinite hit",
          round(sum(r.inf for r in win) / P, 3), "mean prompt", int(P / len(win)),
          "followups", sum(1 for r in win if r.turn > 0))
    if not write:
        return
    api, core = 812, 1044
    pfx = lambda t: f"(APIServer pid={api}) INFO {ts(t)} [loggers.py:123] "
    L = []
    boot = t0 - 900
    E = lambda t, s: (t, f"(EngineCore_DP0 pid={core}) INFO {ts(t)} {s}")
    A = lambda t, s: (t, f"(APIServer pid={api}) INFO {ts(t)} {s}")
    L.append(A(boot, "[api_server.py:1839] vLLM API server version 0.11.0"))
    L.append(A(boot, f"[utils.py:233] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 40960, 'served_model_name': ['{served}'], 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.88}}"))
    L.append(A(boot + 8, "[model.py:547] Resolved architecture: Qwen3ForCausalLM"))
    L.append(A(boot + 8, "[model.py:1510] Using max model len 40960"))
    L.append(A(boot + 9, "[scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192."))
    L.append(E(boot + 70, "[default_loader.py:267] Loading weights took 24.81 seconds"))
    L.append(E(boot + 71, "[gpu_model_runner.py:2602] Model loading took 30.5855 GiB and 25.913740 seconds"))
    L.append(E(boot + 104, "[gpu_worker.py:298] Available KV cache memory: 34.38 GiB"))
    L.append(E(boot + 105, f"[kv_cache_utils.py:1087] GPU KV cache size: {pool:,} tokens"))
    L.append(E(boot + 105, "[kv_cache_utils.py:1091] Maximum concurrency for 40,960 tokens per request: 6.88x"))
    L.append(E(boot + 131, "[gpu_model_runner.py:3480] Graph capturing finished in 25 secs, took 1.12 GiB"))
    L.append(E(boot + 132, "[core.py:210] init engine (profile, create kv cache, warmup model) took 59.84 seconds"))
    L.append(A(boot + 134, f"[loggers.py:142] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool // 16}"))
    L.append(A(boot + 135, "[api_server.py:1634] Starting vLLM API server 0 on http://0.0.0.0:8000"))
    for r in reqs:
        if r.t_arr >= t0 - 1:
            L.append((r.t_arr + 0.002, f'(APIServer pid={api}) INFO:     10.12.0.{21 + r.rid % 4}:{43000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    L += gen.rolling_stats_lines(c, t0 - 60, c.start + 600, pfx, "loggers.py:123")
    per = int(74.6 * GiB)
    gpu = gen.gpu_samples(c, [gpu_dev(i, "NVIDIA H100 80GB HBM3", 85520809984, per + 560 * MiB, 1044 + i * 3,
                                      "VLLM::Worker_TP%d" % i, per) for i in range(2)])
    gen.write(c, out, server=gen.server_json("0.11.0", served, model, 40960, int(boot + 135)),
              engine_args={"argv": ["vllm", "serve", model, "--served-model-name", served, "--tensor-parallel-size", "2",
                                    "--max-model-len", "40960", "--gpu-memory-utilization", "0.88"],
                           "args": {"served-model-name": served, "tensor-parallel-size": 2, "max-model-len": 40960,
                                    "gpu-memory-utilization": 0.88}},
              model_config=QWEN3_32B, gpu=gpu, logs=L,
              notes=("one inference instance (Qwen3-32B, TP=2 on 2x H100) serving an agentic coding/tool workload: "
                     "mostly one-shot agent calls plus multi-turn sessions whose next turn resends the whole previous "
                     "context (~47k tokens) a few requests later; prefill cost per session turn is higher than expected; "
                     "/metrics every 10 s for 10 min, NVML, server log; request sample in prompts.jsonl"),
              endpoint="http://10.12.0.5:8000")
    # prompts: two sessions (all their turns) and a few one-shot calls, text sized to the token counts
    prng = random.Random(9)
    sysmsg = "You are a coding agent. Tools: read_file, grep, run_tests, apply_patch. " + text(prng, 3990)
    recs = []
    sess_ids = sorted({r.sess for r in reqs if r.sess is not None and t0 <= r.t_arr})[:1]
    for sid in sess_ids:
        turns = sorted([r for r in reqs if r.sess == sid], key=lambda r: r.turn)
        srng = random.Random(sid)
        msgs = [{"role": "system", "content": sysmsg},
                {"role": "user", "content": text(srng, turns[0].prompt - 4000)}]
        for r in turns:
            recs.append({"model": served, "messages": [dict(m) for m in msgs], "max_tokens": 8192})
            msgs.append({"role": "assistant", "content": text(srng, r.gen)})
            msgs.append({"role": "tool", "content": text(srng, 700)})
    for r in [r for r in reqs if r.sess is None and r.t_arr >= t0][:2]:
        orng = random.Random(r.rid)
        recs.append({"model": served, "messages": [{"role": "system", "content": sysmsg},
                                                    {"role": "user", "content": text(orng, r.prompt - 4000)}], "max_tokens": 8192})
    write_prompts(ROOT / "cases" / cid / "prompts.jsonl", recs)


# ------------------------------------------------------------------ 4: vllm-vcr agentic multiturn capture (holdout-13)
def vcr() -> None:
    cid = "zzd-agentic-multiturn-10k-prefix-healthy"
    out = ROOT / "cases" / cid / "bundle"
    rng = random.Random(1304)
    t0 = utc(2026, 6, 9, 15, 0, 0)
    served = "Qwen/Qwen3-8B"
    model = "Qwen/Qwen3-8B"
    pool = 379_424
    B = 16
    PRE = 10_240
    reqs = []
    rid = 0
    t = t0 + 12.0
    warm = set()
    sess_meta = []
    for s in range(99):
        t += rng.expovariate(0.19)
        if t > t0 + 560:
            break
        pre = s % 2
        ctx = PRE + rng.randint(150, 260)
        ts_ = t
        for k in range(5):
            if t > t0 + 585 and k > 0:
                break
            g = max(40, int(rng.gauss(150, 35)))
            if k == 0:
                cached = PRE if pre in warm else 0
                warm.add(pre)
                prompt = ctx
            else:
                cached = ((prev_p + prev_g) // B) * B
                prompt = prev_p + prev_g + rng.randint(90, 150)
            new = prompt - cached
            r = Req(rid=rid, t_arr=ts_, prompt=prompt, cached=cached, gen=g, max_tokens=1024)
            r.t_sched = ts_ + 0.002
            base = 0.027 + new / 19000.0
            r.t_first = r.t_sched + base * rng.lognormvariate(0, 0.25) + (rng.expovariate(1 / 0.03) if rng.random() < 0.08 else 0)
            r.step_s = 0.0074
            r.t_end = r.t_first + r.steps() * r.step_s
            reqs.append(r); rid += 1
            sess_meta.append((s, k))
            prev_p, prev_g = prompt, g
            ts_ = r.t_end + rng.uniform(2.0, 6.0)
    c = Case(cid=cid, version="0.19.1", v0=False, model_name=served, model_root=model, max_model_len=32768,
             start=t0, n_scrapes=61, interval=10.0, labels_cc={}, pool_tokens=pool, block_size=B, max_num_seqs=256,
             tmpl="b-hybrid-qwen35-block528")
    c.labels_cc = gen.tmpl_cc(c.tmpl, block_size=16, gpu_memory_utilization=0.9, num_gpu_blocks=pool // 16,
                              mamba_block_size="None", mamba_cache_mode="none")
    c.reqs = reqs
    P = sum(r.prompt for r in reqs)
    tt = sorted(r.t_first - r.t_arr for r in reqs)
    print(cid, "reqs", len(reqs), "cold", sum(1 for r in reqs if r.cached == 0), "hit", round(sum(r.cached for r in reqs) / P, 3),
          "ttft p50", round(tt[len(tt) // 2], 3), "p99", round(tt[int(len(tt) * 0.99)], 3))
    api, core = 301, 388
    pfx = lambda t: f"(APIServer pid={api}) INFO {ts(t)} [loggers.py:259] "
    L = []
    boot = t0 - 600
    E = lambda t, s: (t, f"(EngineCore pid={core}) INFO {ts(t)} {s}")
    A = lambda t, s: (t, f"(APIServer pid={api}) INFO {ts(t)} {s}")
    L.append(A(boot, "[utils.py:325] vLLM server version 0.19.1, serving model Qwen/Qwen3-8B"))
    L.append(A(boot, f"[utils.py:261] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'max_model_len': 32768}}"))
    L.append(A(boot + 7, "[model.py:549] Resolved architecture: Qwen3ForCausalLM"))
    L.append(A(boot + 7, "[model.py:1678] Using max model len 32768"))
    L.append(A(boot + 8, "[scheduler.py:238] Chunked prefill is enabled with max_num_batched_tokens=8192."))
    L.append(E(boot + 40, "[gpu_model_runner.py:4667] Model loading took 15.27 GiB memory and 19.844131 seconds"))
    L.append(E(boot + 66, "[gpu_worker.py:424] Available KV cache memory: 52.11 GiB"))
    L.append(E(boot + 66, f"[kv_cache_utils.py:1313] GPU KV cache size: {pool:,} tokens, Maximum concurrency for 32,768 tokens per request: 11.58x"))
    L.append(E(boot + 88, "[gpu_model_runner.py:5733] Graph capturing finished in 19 secs, took 0.64 GiB"))
    L.append(E(boot + 89, "[core.py:282] init engine (profile, create kv cache, warmup model) took 48.12 seconds"))
    L.append(A(boot + 92, "[api_server.py:598] Starting vLLM server on http://0.0.0.0:8000"))
    for r in reqs:
        L.append((r.t_arr + 0.002, f'(APIServer pid={api}) INFO:     127.0.0.1:{52000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    L += gen.rolling_stats_lines(c, t0, c.start + 600, pfx, "loggers.py:259")
    used = int(71.27 * GiB + 0.52 * GiB)
    gpu = gen.gpu_samples(c, [gpu_dev(0, "NVIDIA H100 80GB HBM3", 85520809984, used, core, "VLLM::EngineCore", used - 560 * MiB)])
    gen.write(c, out, server=gen.server_json("0.19.1", served, model, 32768, int(boot + 92)),
              engine_args={"argv": ["vllm", "serve", model, "--max-model-len", "32768"], "args": {"max-model-len": 32768}},
              model_config=QWEN3_8B, gpu=gpu, logs=L,
              notes=("agentic multi-turn load (loadgen --pattern multiturn: sessions arrive Poisson, 5 closed-loop turns each, "
                     "context grows by the answer and a tool result on top of one of two ~10k-token shared prefixes) "
                     "against one vLLM server on 1x H100; checking that the prefix cache carries the sessions before a "
                     "trace capture; /metrics every 10 s for 10 min, NVML, server log; request sample in prompts.jsonl"),
              endpoint="http://127.0.0.1:8000")
    prng = random.Random(5)
    prefixes = ["You are an autonomous software agent. " + text(random.Random(100 + i), PRE - 8) for i in range(2)]
    recs = []
    for s in (0, 1, 2):
        srng = random.Random(1000 + s)
        rs = [r for r, (ss, k) in zip(reqs, sess_meta) if ss == s]
        msgs = [{"role": "system", "content": prefixes[s % 2]}, {"role": "user", "content": text(srng, rs[0].prompt - PRE - 10)}]
        for r in rs:
            recs.append({"model": served, "messages": [dict(m) for m in msgs], "max_tokens": 1024})
            msgs.append({"role": "assistant", "content": text(srng, r.gen)})
            msgs.append({"role": "user", "content": text(srng, 110)})
    write_prompts(ROOT / "cases" / cid / "prompts.jsonl", recs)


BUILDERS = {"zzd-rolling-hit-rate-same-message-healthy": rolling,
            "zzd-k8s-service-8-replicas-scatter-sharegpt": scatter,
            "zzd-agentic-turns-evicted-lru-550-blocks": churn,
            "zzd-agentic-multiturn-10k-prefix-healthy": vcr}

if __name__ == "__main__":
    for name in (sys.argv[1:] or BUILDERS):
        BUILDERS[name]()
