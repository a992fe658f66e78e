"""zyd-v0-llama7b-a100-hang-pending20: vLLM 0.2.1 (no /metrics), LLaMA-7b on one A100 40G.
The log climbs to 98.7% KV with 2 running / 20 pending, then the stats lines stop and
completions answer 500 while GET /v1/models answers 200."""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import write_bundle  # noqa: E402

CASE = "zyd-v0-llama7b-a100-hang-pending20"
MODEL = "/data/models/llama-7b"
T0 = 1698438900  # 2023-10-27 20:35:00 UTC
HANG = 575       # last stats line at 20:44:35
rng = random.Random(1492)
ts = lambda s: dt.datetime.fromtimestamp(T0 + s, dt.timezone.utc).strftime("%m-%d %H:%M:%S")

logs = [
    f"INFO {ts(-95)} llm_engine.py:72] Initializing an LLM engine with config: model='{MODEL}', tokenizer='{MODEL}', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=auto, tensor_parallel_size=1, quantization=None, seed=0)",
    f"INFO {ts(-62)} llm_engine.py:207] # GPU blocks: 2777, # CPU blocks: 512",
    f"INFO:     Started server process [41873]",
    f"INFO:     Waiting for application startup.",
    f"INFO:     Application startup complete.",
    f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
]
ev = []
# stats lines every 5 s up to the hang: running falls, pending and KV usage climb
for s in range(5, HANG + 1, 5):
    f = s / HANG
    if s == HANG:
        pt, gt, run, pend, kv = 642.0, 61.0, 2, 20, 98.7
    else:
        run = max(2, round(14 - 11 * f ** 1.5 + rng.uniform(-1, 1)))
        pend = max(0, round(20 * max(0.0, (f - 0.35) / 0.65) ** 1.2 + rng.uniform(-0.6, 0.6)))
        kv = min(98.6, 31.0 + 67.0 * f ** 1.3 + rng.uniform(-1.2, 1.2))
        pt = max(0.0, rng.gauss(700 - 200 * f, 160))
        gt = max(40.0, 24.0 * run * (1.0 - 0.45 * f) + rng.uniform(-8, 8))
    ev.append((s, f"INFO {ts(s)} llm_engine.py:624] Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, GPU KV cache usage: {kv:.1f}%, CPU KV cache usage: 0.0%"))
# requests: received / finished / access lines before the hang; 500s after it
rid = 0
t = 1.0
while t < 600:
    port = 40000 + rid % 20000
    ev.append((t, f"INFO {ts(t)} async_llm_engine.py:371] Received request cmpl-{rid:032x}: prompt: '<s>[system] You are a helpful agent...', sampling params: SamplingParams(n=1, best_of=1, presence_penalty=0.0, frequency_penalty=0.0, temperature=0.0, top_p=1.0, top_k=-1, use_beam_search=False, length_penalty=1.0, early_stopping=False, stop=['</s>'], ignore_eos=False, max_tokens=512, logprobs=None, skip_special_tokens=True), prompt token ids: None."))
    if t < HANG - 90:
        d = rng.uniform(6, 40) * (1 + 3 * t / HANG)
        if t + d < HANG:
            ev.append((t + d, f"INFO {ts(t + d)} async_llm_engine.py:111] Finished request cmpl-{rid:032x}."))
            ev.append((t + d, f"INFO:     10.1.4.22:{port} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
    elif t > HANG + 4:
        ev.append((t + 0.05, f"INFO:     10.1.4.22:{port} - \"POST /v1/chat/completions HTTP/1.1\" 500 Internal Server Error"))
    rid += 1
    t += rng.uniform(1.5, 5.0) if t < HANG else rng.uniform(3.0, 9.0)
for s in range(30, 600, 30):
    ev.append((s + 0.2, f"INFO:     10.1.4.22:{38000 + s} - \"GET /v1/models HTTP/1.1\" 200 OK"))
ev.sort(key=lambda e: e[0])
logs += [e[1] for e in ev if e[0] <= 600]

scrapes_err = [{"t": T0 + k * 10, "error": "HTTP 404 Not Found"} for k in range(61)]
d = write_bundle(CASE, start=T0, end=T0 + 600, interval=10, scrapes=[],
                 notes="vLLM OpenAI server (0.2.1) on one A100 40G serving LLaMA-7b to several benchmark clients; /metrics not served by this release, logs collected with --logs",
                 server={"version": None, "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "parent": None}]}, "health": 200},
                 engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL, "--host", "0.0.0.0", "--port", "8000"],
                              "args": {"model": MODEL}},
                 model_config={"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                               "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
                               "max_position_embeddings": 2048, "max_sequence_length": 2048, "rms_norm_eps": 1e-06,
                               "vocab_size": 32000, "torch_dtype": "float16", "bos_token_id": 1, "eos_token_id": 2,
                               "pad_token_id": 0, "hidden_act": "silu", "initializer_range": 0.02, "tie_word_embeddings": False,
                               "transformers_version": "4.28.0.dev0", "use_cache": True},
                 gpu=[{"t": T0 + k * 10, "devices": [{"index": 0, "name": "NVIDIA A100-SXM4-40GB", "memory_total": 42_949_672_960,
                        "memory_used": 39_108_000_000 + rng.randint(-2, 2) * 1_048_576,
                        "processes": [{"pid": 41873, "name": "python", "used_memory": 38_640_000_000}]}]} for k in range(61)],
                 logs=logs)
import json
with open(d / "metrics.jsonl", "w") as f:
    for r in scrapes_err:
        f.write(json.dumps(r) + "\n")
print("ok")
