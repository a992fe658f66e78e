"""zyd-v0-opt125m-t400-1000-threads: vLLM 0.4.2 (V0), opt-125m on a T400, 1000 concurrent
max_tokens=2040 requests; 256 admitted into a 5,242-block pool -> recompute preemption storm.
Families from vllm/engine/metrics.py of the 0.4 line (read through the search tool), without
vllm:num_preemptions_total, which came after 0.4.2."""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Prom, b125, write_bundle  # noqa: E402

CASE = "zyd-v0-opt125m-t400-1000-threads"
MODEL = "facebook/opt-125m"
T0 = 1716629700  # 2024-05-25 09:35:00 UTC: metrics window starts 270 s into the run
N, INTERVAL = 61, 10
BLOCKS, PROMPT, MAXTOK = 5242, 6, 2040
rng = random.Random(5051)
g, c, h = "gauge", "counter", "histogram"
fams = [
    ("vllm:num_requests_running", g, "Number of requests currently running on GPU.", None),
    ("vllm:num_requests_waiting", g, "Number of requests waiting to be processed.", None),
    ("vllm:num_requests_swapped", g, "Number of requests swapped to CPU.", None),
    ("vllm:gpu_cache_usage_perc", g, "GPU KV-cache usage. 1 means 100 percent usage.", None),
    ("vllm:cpu_cache_usage_perc", g, "CPU KV-cache usage. 1 means 100 percent usage.", None),
    ("vllm:prompt_tokens", c, "Number of prefill tokens processed.", None),
    ("vllm:generation_tokens", c, "Number of generation tokens processed.", None),
    ("vllm:time_to_first_token_seconds", h, "Histogram of time to first token in seconds.",
     [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]),
    ("vllm:time_per_output_token_seconds", h, "Histogram of time per output token in seconds.",
     [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]),
    ("vllm:e2e_request_latency_seconds", h, "Histogram of end to end request latency in seconds.",
     [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]),
    ("vllm:request_prompt_tokens", h, "Number of prefill tokens processed.", b125(2048)),
    ("vllm:request_generation_tokens", h, "Number of generation tokens processed.", b125(2048)),
    ("vllm:request_params_best_of", h, "Histogram of the best_of request parameter.", [1, 2, 5, 10, 20]),
    ("vllm:request_params_n", h, "Histogram of the n request parameter.", [1, 2, 5, 10, 20]),
    ("vllm:request_success", c, "Count of successfully processed requests.", None),
    ("vllm:avg_prompt_throughput_toks_per_s", g, "Average prefill throughput in tokens/s.", None),
    ("vllm:avg_generation_throughput_toks_per_s", g, "Average generation throughput in tokens/s.", None),
]
info = [("vllm:cache_config_info", "information of cache_config", {
    "block_size": "16", "cache_dtype": "auto", "cpu_offload_gb": "0", "enable_prefix_caching": "False",
    "gpu_memory_utilization": "0.9", "num_cpu_blocks": "7281", "num_gpu_blocks": str(BLOCKS),
    "num_gpu_blocks_override": "None", "sliding_window": "None", "swap_space_bytes": "4294967296"})]
P = Prom(fams, {"model_name": MODEL}, info=info, finish_reasons=("length", "stop"))
ts = lambda s: dt.datetime.fromtimestamp(T0 + s, dt.timezone.utc).strftime("%m-%d %H:%M:%S")

START = -270.0
logs = [
    f"INFO {ts(START - 40)} api_server.py:151] vLLM API server version 0.4.2",
    f"INFO {ts(START - 40)} api_server.py:152] args: Namespace(host=None, port=8000, model='{MODEL}', max_model_len=None, gpu_memory_utilization=0.9, swap_space=4, max_num_seqs=256, max_num_batched_tokens=None, enable_chunked_prefill=False, enable_prefix_caching=False, disable_log_requests=False, disable_log_stats=False)",
    f"INFO {ts(START - 38)} llm_engine.py:100] Initializing an LLM engine (v0.4.2) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0, served_model_name={MODEL})",
    f"INFO {ts(START - 31)} model_runner.py:175] Loading model weights took 0.2389 GB",
    f"INFO {ts(START - 29)} gpu_executor.py:114] # GPU blocks: {BLOCKS}, # CPU blocks: 7281",
    f"INFO {ts(START - 28)} model_runner.py:937] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI.",
    f"INFO {ts(START - 10)} model_runner.py:1013] Graph capturing finished in 18 secs.",
    "INFO:     Started server process [2210]",
    "INFO:     Waiting for application startup.",
    "INFO:     Application startup complete.",
    "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
]
ev = []
for i in range(1000):
    a = START + i * 0.004
    if i < 3 or i % 97 == 0:
        ev.append((a, f"INFO {ts(a)} async_llm_engine.py:529] Received request cmpl-{i:032x}: prompt: 'Sachin Tendulkar is', sampling_params: SamplingParams(n=1, best_of=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=1.0, top_p=1.0, top_k=-1, min_p=0.0, seed=None, use_beam_search=False, length_penalty=1.0, early_stopping=False, stop=[], stop_token_ids=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=2040, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None), prompt_token_ids: [2, 104, 1488, 179, 4407, 27913], lora_request: None."))

# per-second state machine of the aggregate
admitted_ttft = []      # first tokens of newly admitted requests
done = 0
running = 0
waiting = 0
first_tok = 0           # requests that ever produced a first token
pending = []            # finished request e2e to observe
t_prev = 0.0
state = {"run": 0, "wait": 0, "kv": 0.0, "pt": 0.0, "gt": 0.0}
scr = []
progress_done = 0.0
for k in range(N):
    t = k * INTERVAL
    if True:
        pt_i = gt_i = 0.0
        for s in range(int(START) if k == 0 else int(t - INTERVAL), int(t)):
            if s < START:
                continue
            el = s - START
            if el < 1:
                running, waiting = 256, 744 - done
                ft = 256
            else:
                # running decays from 256 to ~45 after the pool fills at ~9 s
                target = 256 if el < 9 else max(42, int(256 * 0.93 ** (el - 9)))
                running = max(40, min(256, target + rng.randint(-4, 5)))
                waiting = 1000 - done - running
                ft = 0
            if el < 9:
                gt = running * 36.0
                pt = (PROMPT * 256) if el < 1 else 0.0
                kv = min(0.99, (256 * (PROMPT + el * 36)) / (BLOCKS * 16))
            else:
                step = 0.040 + 0.0001 * running
                gt = running / step * 0.97
                pt = rng.uniform(1500, 2500)
                kv = rng.uniform(0.972, 1.0)
            # TTFT: first 256 get a first token in the first second; later admissions: their first ever token
            if el < 1:
                for j in range(256):
                    P.obs("vllm:time_to_first_token_seconds", 0.35 + j * 0.0025)
                first_tok = 256
            elif el >= 9 and first_tok < 1000 and rng.random() < 0.45:
                nft = rng.randint(1, 3)
                for _ in range(min(nft, 1000 - first_tok)):
                    P.obs("vllm:time_to_first_token_seconds", el + rng.uniform(0.0, 0.5))
                first_tok = min(1000, first_tok + nft)
            # TPOT observations: normal steps plus preemption gaps
            nstep = int(gt) // max(1, running)
            for _ in range(min(nstep, 40)):
                for _ in range(max(1, running // 8)):
                    P.obs("vllm:time_per_output_token_seconds", (0.028 if el < 9 else 0.052) + rng.uniform(-0.004, 0.01))
            if el >= 9:
                for _ in range(rng.randint(3, 8)):
                    P.obs("vllm:time_per_output_token_seconds", rng.uniform(1.2, 40.0))
            # completions: effective progress (tokens kept) / 2040
            if el >= 90:
                progress_done += gt / MAXTOK
                while progress_done >= 1 and done < 1000:
                    progress_done -= 1
                    done += 1
                    e2e = el + rng.uniform(-0.5, 0.5)
                    P.obs("vllm:e2e_request_latency_seconds", e2e)
                    P.obs("vllm:request_prompt_tokens", PROMPT)
                    P.obs("vllm:request_generation_tokens", MAXTOK)
                    P.obs("vllm:request_params_best_of", 1)
                    P.obs("vllm:request_params_n", 1)
                    P.inc("vllm:request_success", 1, reason="length")
                    ev.append((s + 0.5, f"INFO {ts(s + 0.5)} async_llm_engine.py:120] Finished request cmpl-{done:032x}."))
                    ev.append((s + 0.5, f"INFO:     127.0.0.1:{45000 + done} - \"POST /v1/completions HTTP/1.1\" 200 OK"))
            P.inc("vllm:prompt_tokens", round(pt))
            P.inc("vllm:generation_tokens", round(gt))
            pt_i += pt
            gt_i += gt
            state.update(run=running, wait=1000 - done - running if el >= 0 else 0, kv=kv)
            if int(el) % 5 == 4:
                ev.append((s + 0.9, f"INFO {ts(s + 0.9)} metrics.py:229] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {running} reqs, Swapped: 0 reqs, Pending: {1000 - done - running} reqs, GPU KV cache usage: {kv*100:.1f}%, CPU KV cache usage: 0.0%"))
        P.set("vllm:avg_prompt_throughput_toks_per_s", round(pt, 1))
        P.set("vllm:avg_generation_throughput_toks_per_s", round(gt, 1))
    P.set("vllm:num_requests_running", state["run"])
    P.set("vllm:num_requests_waiting", state["wait"])
    P.set("vllm:num_requests_swapped", 0)
    P.set("vllm:gpu_cache_usage_perc", round(state["kv"], 4))
    P.set("vllm:cpu_cache_usage_perc", 0.0)
    scr.append((T0 + t, P.text()))
    ev.append((t + 0.2, f"INFO:     10.0.0.9:{50000 + k} - \"GET /metrics HTTP/1.1\" 200 OK"))
ev.sort(key=lambda e: e[0])
logs += [e[1] for e in ev if e[0] <= 600]
mc = {"_name_or_path": "facebook/opt-125m", "activation_dropout": 0.0, "activation_function": "relu",
      "architectures": ["OPTForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 2, "do_layer_norm_before": True,
      "dropout": 0.1, "eos_token_id": 2, "ffn_dim": 3072, "hidden_size": 768, "init_std": 0.02, "layerdrop": 0.0,
      "max_position_embeddings": 2048, "model_type": "opt", "num_attention_heads": 12, "num_hidden_layers": 12,
      "pad_token_id": 1, "prefix": "</s>", "torch_dtype": "float16", "transformers_version": "4.21.0.dev0",
      "use_cache": True, "vocab_size": 50272, "word_embed_proj_dim": 768}
write_bundle(CASE, start=T0, end=T0 + 600, interval=INTERVAL, scrapes=scr,
             notes="vLLM 0.4.2 OpenAI server, facebook/opt-125m on one NVIDIA T400; 1000 client threads each asking for max_tokens=2040",
             server={"version": {"version": "0.4.2"}, "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "parent": None}]}, "health": 200},
             engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL], "args": {"model": MODEL}},
             model_config=mc,
             gpu=[{"t": T0 + k * 10, "devices": [{"index": 0, "name": "NVIDIA T400 4GB", "memory_total": 4_294_967_296,
                   "memory_used": 3_871_000_000 + rng.randint(-1, 1) * 1_048_576,
                   "processes": [{"pid": 2210, "name": "python", "used_memory": 3_760_000_000}]}]} for k in range(N)],
             logs=logs)
print("done", done)
