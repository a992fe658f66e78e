"""zyj-qwen7b-a10-tp2-prealloc-healthy: vLLM 0.2.1 OpenAI server, Qwen-7B-Chat at TP 2 on
two A10; both cards flat at 18506 MiB (the pre-allocated pool), light healthy traffic."""
import os, random, time
from common import GIB, write_json, write_jsonl, bundle_dir, manifest

CASE = "zyj-qwen7b-a10-tp2-prealloc-healthy"
MODEL = "Qwen/Qwen-7B-Chat"
d = bundle_dir(CASE)
rnd = random.Random(1512)
T0 = 1698760800.0     # 2023-10-31 14:00:00 UTC
DT = 10.0
T1 = T0 + 600.0
POOL_TOKENS = 2670 * 16
USED = 18506 * 1024 * 1024

manifest(d, "http://10.0.0.12:8000", T0, T1, DT,
         "vLLM OpenAI server (TP 2 on two A10) scraped every 10 s for 10 minutes of internal chat traffic; server log attached.")

def expo(run, wait, kv, ptp, gtp):
    lab = '{model_name="%s"}' % MODEL
    fams = [("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s.", ptp),
            ("vllm:avg_generation_throughput_toks_per_s", "Average generation throughput in tokens/s.", gtp),
            ("vllm:num_requests_running", "Number of requests that is currently running for inference.", run),
            ("vllm:num_requests_swapped", "Number requests swapped to CPU.", 0),
            ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", wait),
            ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", kv),
            ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", 0.0)]
    L = []
    for n, h, v in fams:
        L += [f"# HELP {n} {h}", f"# TYPE {n} gauge", f"{n}{lab} {v}"]
    return "\n".join(L) + "\n"

rows, stats = [], []
t = T0 + DT
while t <= T1 + 1e-6:
    run = rnd.choice([1, 1, 2, 2, 3, 4])
    toks = sum(rnd.randint(500, 1700) for _ in range(run))
    kv = round(toks / POOL_TOKENS, 4)
    ptp = round(rnd.uniform(80, 420), 1)
    gtp = round(run * rnd.uniform(26, 31), 1)
    rows.append({"t": t, "status": 200, "text": expo(run, 0, kv, ptp, gtp)})
    s = time.strftime("%m-%d %H:%M:%S", time.gmtime(t))
    stats.append(f"INFO {s} llm_engine.py:624] Avg prompt throughput: {ptp:.1f} tokens/s, Avg generation throughput: {gtp:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {kv*100:.1f}%, CPU KV cache usage: 0.0%")
    t += DT
write_jsonl(os.path.join(d, "metrics.jsonl"), rows)

write_json(os.path.join(d, "server.json"), {
    "version": None,
    "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                                           "root": MODEL, "parent": None}]},
    "health": 200})
argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL,
        "--trust-remote-code", "--tensor-parallel-size", "2"]
write_json(os.path.join(d, "engine_args.json"), {"argv": argv, "args": {
    "model": MODEL, "trust-remote-code": True, "tensor-parallel-size": 2}})
write_json(os.path.join(d, "model_config.json"), {
    "architectures": ["QWenLMHeadModel"], "auto_map": {"AutoConfig": "configuration_qwen.QWenConfig",
    "AutoModelForCausalLM": "modeling_qwen.QWenLMHeadModel"}, "attn_dropout_prob": 0.0,
    "bf16": False, "emb_dropout_prob": 0.0, "fp16": False, "fp32": False, "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 22016, "kv_channels": 128,
    "layer_norm_epsilon": 1e-06, "max_position_embeddings": 8192, "model_type": "qwen",
    "no_bias": True, "num_attention_heads": 32, "num_hidden_layers": 32, "onnx_safe": None,
    "rotary_emb_base": 10000, "rotary_pct": 1.0, "scale_attn_weights": True, "seq_length": 8192,
    "tie_word_embeddings": False, "tokenizer_class": "QWenTokenizer", "torch_dtype": "bfloat16",
    "transformers_version": "4.32.0", "use_cache": True, "use_dynamic_ntk": True,
    "use_flash_attn": "auto", "use_logn_attn": True, "vocab_size": 151936})

g = []
t = T0
while t <= T1 + 1e-6:
    devs = []
    for i, pid in enumerate([21877, 22104]):
        u = USED + rnd.choice([0, 0, 2 * 1024 * 1024])
        devs.append({"index": i, "name": "NVIDIA A10", "memory_total": 23028 * 1024 * 1024,
                     "memory_used": u, "processes": [{"pid": pid, "name": "python" if i == 0 else "ray::RayWorkerVllm",
                                                      "used_memory": u - 4 * 1024 * 1024}]})
    g.append({"t": t, "devices": devs})
    t += DT
write_jsonl(os.path.join(d, "gpu.jsonl"), g)

S = T0 - 240
def ts(x):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(x))
L = [f"INFO {ts(S)} api_server.py:638] args: Namespace(host=None, port=8000, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], served_model_name=None, model='{MODEL}', tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=True, download_dir=None, load_format='auto', dtype='auto', max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=2, max_parallel_loading_workers=None, block_size=16, seed=0, swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, disable_log_stats=False, quantization=None, engine_use_ray=False, disable_log_requests=False, max_log_len=None)",
     f"{ts(S+3)},114\tINFO worker.py:1673 -- Started a local Ray instance.",
     f"INFO {ts(S+5)} llm_engine.py:72] Initializing an LLM engine with config: model='{MODEL}', tokenizer='{MODEL}', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=auto, tensor_parallel_size=2, quantization=None, seed=0)",
     f"WARNING {ts(S+6)} tokenizer.py:66] Using a slow tokenizer. This might cause a significant slowdown. Consider using a fast tokenizer instead.",
     f"INFO {ts(S+118)} llm_engine.py:207] # GPU blocks: 2670, # CPU blocks: 1024",
     f"INFO {ts(S+124)} api_server.py:113] Using default chat template:",
     "INFO:     Started server process [21877]",
     "INFO:     Waiting for application startup.",
     "INFO:     Application startup complete.",
     "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"]
L += stats
with open(os.path.join(d, "logs.txt"), "w") as f:
    f.write("\n".join(L) + "\n")
print("wrote", d)
