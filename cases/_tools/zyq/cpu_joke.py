"""zyq-cpu-joke-prompt-below-block128: V0 CPU backend, Qwen2.5-1.5B, 33-token prompt, block 128 (vllm#17954)."""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from v0gen import timeline, write_bundle, check, v0_stat_logs, ts_fmt  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
CASE = ROOT / "cases" / "zyq-cpu-joke-prompt-below-block128"
MODEL = "Qwen/Qwen2.5-1.5B-Instruct"
T0 = 1746965050.0  # 2025-05-11 12:04:10 UTC
DUR, IV = 320.0, 10.0
BS, NB, MML = 128, 1170, 32768
PROMPT = 33

rng = random.Random(17954)
reqs = []
t = T0 + 7.2  # first request 12:04:17
for i in range(100):
    out = rng.randint(18, 46) if rng.random() < 0.8 else rng.randint(47, 60)
    r = timeline({"t": t, "prompt": PROMPT, "hit": 0, "out": out, "max_tokens": MML - PROMPT,
                  "prefill": round(rng.uniform(0.17, 0.23), 3), "tpot": round(rng.uniform(0.074, 0.079), 4),
                  "queue": 0.004, "reason": "stop", "id": "%032x" % rng.getrandbits(128)})
    reqs.append(r)
    t = r["t_end"] + rng.uniform(0.03, 0.08)

if "--numbers" in sys.argv:
    print("last end", reqs[-1]["t_end"] - T0, "prompt", sum(r["prompt"] for r in reqs), "gen", sum(r["out"] for r in reqs),
          "mean out", sum(r["out"] for r in reqs) / 100, "max tokens/req", max(r["prompt"] + r["out"] for r in reqs))
    sys.exit(0)

cache_labels = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False",
                "cpu_kvcache_space_bytes": str(4 * 1024 ** 3), "cpu_offload_gb": "0", "enable_prefix_caching": "True",
                "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "0",
                "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "builtin",
                "sliding_window": "None", "swap_space": "4", "swap_space_bytes": str(4 * 1024 ** 3)}
cfg = {"model_name": MODEL, "max_model_len": MML, "num_blocks": NB, "block_size": BS, "cache_labels": cache_labels}

TPL = ("<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n"
       "<|im_start|>user\\nTell me a joke<|im_end|>\\n<|im_start|>assistant\\n")
SP = ("SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.1, temperature=0.7, "
      "top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, "
      "ignore_eos=False, max_tokens=32735, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, "
      "spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, extra_args=None)")
head = [
    "INFO 05-11 12:03:43 [__init__.py:239] Automatically detected platform cpu.",
    "INFO 05-11 12:03:45 [api_server.py:1043] vLLM API server version 0.8.6.dev241+g9b0a3de99.cpu",
    "INFO 05-11 12:03:45 [api_server.py:1044] args: Namespace(subparser='serve', model_tag='Qwen/Qwen2.5-1.5B-Instruct', host=None, port=8000, model='Qwen/Qwen2.5-1.5B-Instruct', max_model_len=None, block_size=None, enable_prefix_caching=True, disable_log_requests=False, ...)",
    "WARNING 05-11 12:03:52 [cpu.py:101] Environment variable VLLM_CPU_KVCACHE_SPACE (GiB) for CPU backend is not set, using 4 by default.",
    "INFO 05-11 12:03:52 [config.py:1720] Defaulting to use mp for distributed inference",
    "INFO 05-11 12:03:53 [api_server.py:246] Started engine process with PID 2861",
    "INFO 05-11 12:03:58 [llm_engine.py:242] Initializing a V0 LLM engine (v0.8.6.dev241+g9b0a3de99.cpu) with config: model='Qwen/Qwen2.5-1.5B-Instruct', speculative_config=None, tokenizer='Qwen/Qwen2.5-1.5B-Instruct', dtype=torch.bfloat16, max_seq_len=32768, device_config=cpu, enforce_eager=True, kv_cache_dtype=auto, served_model_name=Qwen/Qwen2.5-1.5B-Instruct, enable_prefix_caching=True, chunked_prefill_enabled=False, use_async_output_proc=False",
    "INFO 05-11 12:04:01 [cpu.py:57] Using Torch SDPA backend.",
    "INFO 05-11 12:04:07 [default_loader.py:278] Loading weights took 0.21 seconds",
    "INFO 05-11 12:04:07 [executor_base.py:112] # cpu blocks: 1170, # CPU blocks: 0",
    "INFO 05-11 12:04:07 [executor_base.py:117] Maximum concurrency for 32768 tokens per request: 4.57x",
    "INFO 05-11 12:04:07 [llm_engine.py:435] init engine (profile, create kv cache, warmup model) took 0.15 seconds",
    "WARNING 05-11 12:04:08 [logger.py:64] Default sampling parameters have been overridden by the model's Hugging Face generation config recommended from the model creator. If this is not intended, please relaunch vLLM instance with `--generation-config vllm`.",
    "INFO 05-11 12:04:08 [serving_chat.py:116] Using default chat sampling params from model: {'repetition_penalty': 1.1, 'temperature': 0.7, 'top_k': 20, 'top_p': 0.8}",
    "INFO 05-11 12:04:08 [api_server.py:1091] Starting vLLM API server on http://0.0.0.0:8000",
    "INFO:     Started server process [2795]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
]
ev = []
for i, r in enumerate(reqs):
    ts = ts_fmt(r["t"])
    ev.append((r["t"], f"INFO {ts} [logger.py:39] Received request chatcmpl-{r['id']}: prompt: '{TPL}', params: {SP}, prompt_token_ids: None, lora_request: None, prompt_adapter_request: None."))
    ev.append((r["t"] + 0.002, f"INFO {ts_fmt(r['t'] + 0.002)} [engine.py:310] Added request chatcmpl-{r['id']}."))
    ev.append((r["t_end"] + 0.003, f'INFO:     127.0.0.1:{49294 + 2 * i} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
ev += v0_stat_logs(reqs, cfg, T0 - 5.0, T0 + DUR, ts_fmt, lambda s: "Prefix cache hit rate: GPU: 0.00%, CPU: 0.00%")
ev.sort(key=lambda x: x[0])
logs = head + [l for _, l in ev]

server = {"version": {"version": "0.8.6.dev241+g9b0a3de99.cpu"},
          "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": int(T0), "owned_by": "vllm",
                                                 "root": MODEL, "parent": None, "max_model_len": MML, "permission": []}]},
          "health": 200}
ea = {"argv": ["vllm", "serve", MODEL, "--enable-prefix-caching"], "args": {"enable-prefix-caching": True}}
mc = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
      "hidden_act": "silu", "hidden_size": 1536, "initializer_range": 0.02, "intermediate_size": 8960,
      "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 12,
      "num_hidden_layers": 28, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
      "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
      "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
write_bundle(CASE / "bundle", reqs=reqs, cfg=cfg, t0=T0, t1=T0 + DUR, interval=IV, server=server, engine_args=ea,
             model_config=mc, logs=logs,
             notes="CPU-only host (x86, IPEX installed), no NVIDIA driver. Client: a shell loop of 100 sequential curl chat requests 'Tell me a joke'.")
(CASE / "prompts.jsonl").write_text("\n".join('{"messages": [{"role": "user", "content": "Tell me a joke"}]}' for _ in reqs) + "\n")
check(CASE / "bundle")
