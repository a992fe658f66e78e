"""Bundle for zyo-3b-awq-16g-preallocated-healthy (vLLM #15204): 3B AWQ on an RTX 3090, ~16 GB reserved, healthy."""
import os, sys, calendar, time, random
sys.path.insert(0, os.path.dirname(__file__))
from common import write_json, write_jsonl, manifest, engine_args
from v1metrics081 import V1Metrics

D = os.path.join(os.path.dirname(__file__), "..", "..", "zyo-3b-awq-16g-preallocated-healthy", "bundle")
os.makedirs(D, exist_ok=True)
rnd = random.Random(15204)
MODEL = "Qwen/Qwen2.5-3B-Instruct-AWQ"
GiB, MiB = 2 ** 30, 2 ** 20
T_START = calendar.timegm((2025, 3, 20, 17, 28, 12))   # server start (quoted)
T0 = calendar.timegm((2025, 3, 20, 18, 10, 0))          # capture window
T1 = T0 + 600
INTERVAL = 10.0

# ---- KV math ----
tt, util, w, act, others, ctx = 23.69, 0.90, 1.99, 0.62, 5.30, 0.42
kv_gib = tt * util - w - act - others - ctx
per_tok = 2 * 36 * 2 * 128 * 2
blocks = int(kv_gib * GiB // (per_tok * 16))
pool = blocks * 16
caps = [1, 2, 4] + list(range(8, 513, 8))

engine_args(D, ["vllm", "serve", MODEL])
write_json(os.path.join(D, "server.json"), {"version": {"version": "0.8.1"}, "models": {"object": "list", "data": [
    {"id": MODEL, "object": "model", "created": T0, "owned_by": "vllm", "root": MODEL, "parent": None,
     "max_model_len": 32768, "permission": []}]}, "health": 200})
write_json(os.path.join(D, "model_config.json"), {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 11008,
    "max_position_embeddings": 32768, "max_window_layers": 70, "model_type": "qwen2", "num_attention_heads": 16,
    "num_hidden_layers": 36, "num_key_value_heads": 2,
    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None, "quant_method": "awq",
                            "version": "gemm", "zero_point": True},
    "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": True, "torch_dtype": "float16", "transformers_version": "4.45.2", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936})

cache_info = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
              "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
              "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks), "num_gpu_blocks_override": "None",
              "sliding_window": "None", "swap_space": "4", "swap_space_bytes": str(4 * GiB)}
M = V1Metrics(MODEL, 32768, caps, cache_info)

# ---- traffic: light interactive chat from server start to the end of the window ----
reqs = []
t = T_START + 120.0
while t < T1:
    t += rnd.expovariate(1 / 7.0)
    reqs.append({"arr": t, "p": rnd.randint(300, 1500), "o": rnd.randint(150, 500)})
SYS = 96  # shared system prompt tokens (6 blocks)

# step simulation
pending = list(reqs)
running = []
now = reqs[0]["arr"]
scrapes = [T0 + INTERVAL * i for i in range(int((T1 - T0) / INTERVAL) + 1)]
si = 0
rows, gpu_rows, loglines = [], [], []
win_p = win_g = 0
last_log = T_START + 60.0
first_seen = False

def snapshot(ts):
    M.running = len(running)
    M.waiting = 0
    used = sum((r["p"] + r["done"] + 15) // 16 for r in running)
    M.kv = used / blocks
    rows.append({"t": ts, "status": 200, "text": M.text()})

while si < len(scrapes):
    # admit arrivals
    while pending and pending[0]["arr"] <= now and len(running) < 3:   # client keeps <= 3 in flight
        r = pending.pop(0)
        r["arr"] = max(r["arr"], now)
        r.update(done=0, pre=False, start=now)
        running.append(r)
        M.pq += r["p"]
        M.ph += SYS if first_seen else 0
        first_seen = True
    if not running:
        nxt = max(pending[0]["arr"], now) if pending else T1 + 100
        # scrapes / logs while idle
        while si < len(scrapes) and scrapes[si] <= nxt:
            snapshot(scrapes[si]); si += 1
        now = nxt
        continue
    pre = [r for r in running if not r["pre"]]
    ptoks = sum(r["p"] - (SYS if True else 0) for r in pre)
    ndec = len(running) - len(pre)
    dt = 0.0094 + 0.000042 * ptoks + 0.00018 * ndec + rnd.uniform(0, 0.0008)
    tend = now + dt
    while si < len(scrapes) and scrapes[si] <= now:
        snapshot(scrapes[si]); si += 1
    M.h_iter.obs(ptoks + ndec + len(pre) * 0)
    M.prompt += sum(r["p"] for r in pre)
    win_p += sum(r["p"] for r in pre)
    fin = []
    for r in running:
        if not r["pre"]:
            r["pre"] = True
            r["ttft_t"] = tend
            r["done"] = 1
            M.h_ttft.obs(tend - r["arr"])
            M.h_queue.obs(r["start"] - r["arr"])
            r["last"] = tend
        else:
            r["done"] += 1
            M.h_tpot.obs(tend - r["last"])
            r["last"] = tend
        M.gen += 1
        win_g += 1
        if r["done"] >= r["o"]:
            fin.append(r)
    for r in fin:
        running.remove(r)
        reason = "length" if r["o"] == 500 else "stop"
        M.success[reason] += 1
        M.h_e2e.obs(tend - r["arr"])
        M.h_inf.obs(tend - r["start"])
        M.h_prefill.obs(r["ttft_t"] - r["start"])
        M.h_decode.obs(tend - r["ttft_t"])
        M.h_prompt.obs(r["p"])
        M.h_gen.obs(r["done"])
        if T0 - 30 <= tend <= T1:
            loglines.append((tend, 'INFO:     127.0.0.1:%d - "POST /v1/chat/completions HTTP/1.1" 200 OK' % rnd.randint(40000, 60000)))
    now = tend
    if now - last_log >= 5.0:
        el = now - last_log
        if T0 - 30 <= now <= T1 and (win_p or win_g):
            used = sum((r["p"] + r["done"] + 15) // 16 for r in running)
            hr = 100.0 * M.ph / M.pq if M.pq else 0.0
            loglines.append((now, "INFO %s [loggers.py:80] Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%"
                             % (time.strftime("%m-%d %H:%M:%S", time.gmtime(now)), win_p / el, win_g / el, len(running), 100.0 * used / blocks, hr)))
        win_p = win_g = 0
        last_log = now

write_jsonl(os.path.join(D, "metrics.jsonl"), rows)

# ---- NVML ----
NV_TOTAL = 24576 * MiB
procs = [{"pid": 2391, "name": "/usr/lib/xorg/Xorg", "used_memory": 1364 * MiB},
         {"pid": 2688, "name": "/usr/bin/gnome-shell", "used_memory": 287 * MiB},
         {"pid": 30417, "name": "/home/user/anaconda3/envs/sd/bin/python", "used_memory": 3776 * MiB},
         {"pid": 48211, "name": "/home/user/anaconda3/envs/vllm/bin/python", "used_memory": 15982 * MiB}]
used = sum(p["used_memory"] for p in procs) + 241 * MiB
for ts in scrapes:
    gpu_rows.append({"t": ts, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": NV_TOTAL,
                                           "memory_used": used, "processes": procs}]})
write_jsonl(os.path.join(D, "gpu.jsonl"), gpu_rows)

# ---- logs ----
def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))
S = T_START
head = [
 f"INFO {ts(S)} [__init__.py:256] Automatically detected platform cuda.",
 f"INFO {ts(S+1)} [api_server.py:977] vLLM API server version 0.8.1",
 f"INFO {ts(S+1)} [api_server.py:978] args: Namespace(subparser='serve', model_tag='{MODEL}', config='', host=None, port=8000, model='{MODEL}', max_model_len=None, gpu_memory_utilization=0.9, enforce_eager=False, ...)",
 f"INFO {ts(S+8)} [config.py:583] This model supports multiple tasks: {{'generate', 'classify', 'score', 'embed', 'reward'}}. Defaulting to 'generate'.",
 f"INFO {ts(S+8)} [awq_marlin.py:114] The model is convertible to awq_marlin during runtime. Using awq_marlin kernel.",
 f"INFO {ts(S+8)} [config.py:1693] Chunked prefill is enabled with max_num_batched_tokens=2048.",
 f"INFO {ts(S+11)} [core.py:53] Initializing a V1 LLM engine (v0.8.1) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq_marlin, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, served_model_name={MODEL}, enable_prefix_caching=True, chunked_prefill_enabled=True, ...",
 f"INFO {ts(S+12)} [gpu_model_runner.py:1128] Starting to load model {MODEL}...",
 f"INFO {ts(S+12)} [cuda.py:215] Using Flash Attention backend on V1 engine.",
 f"INFO {ts(S+16)} [gpu_model_runner.py:1140] Loading model weights took {w:.4f} GB",
 f"INFO {ts(S+23)} [backends.py:409] Using cache directory: /home/user/.cache/vllm/torch_compile_cache/0b9c2d6f4e/rank_0_0 for vLLM's torch.compile",
 f"INFO {ts(S+23)} [backends.py:419] Dynamo bytecode transform time: 6.12 s",
 f"INFO {ts(S+41)} [backends.py:132] Compiling a graph for general shape takes 17.35 s",
 f"INFO {ts(S+44)} [monitor.py:33] torch.compile takes 23.47 s in total",
 f"INFO {ts(S+45)} [kv_cache_utils.py:537] GPU KV cache size: {pool:,} tokens",
 f"INFO {ts(S+45)} [kv_cache_utils.py:540] Maximum concurrency for 32,768 tokens per request: {pool/32768:.2f}x",
 f"INFO {ts(S+63)} [gpu_model_runner.py:1426] Graph capturing finished in 18 secs, took 0.17 GiB",
 f"INFO {ts(S+63)} [core.py:138] init engine (profile, create kv cache, warmup model) took 47.21 seconds",
 f"INFO {ts(S+64)} [api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000",
 f"INFO {ts(S+64)} [launcher.py:26] Available routes are:",
 "INFO:     Started server process [48102]",
 "INFO:     Waiting for application startup.",
 "INFO:     Application startup complete.",
 "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
 "...",
]
loglines.sort(key=lambda x: x[0])
with open(os.path.join(D, "logs.txt"), "w") as f:
    f.write("\n".join(head + [l for _, l in loglines]) + "\n")

manifest(D, "http://127.0.0.1:8000", T0, T1, INTERVAL,
         "vLLM 0.8.1 serving Qwen2.5-3B-Instruct-AWQ on a desktop RTX 3090; operator asked why nvidia-smi shows ~16 GB for a 3B model.")
kvs = [r for r in rows]
print("kv_gib %.2f blocks %d pool %d conc %.2f" % (kv_gib, blocks, pool, pool / 32768))
