"""zzy-v020-a10-awq-util040-freeze: vLLM 0.2.0 OpenAI server, A10, AWQ 13B, util 0.40.
One chat grows past the 92-block pool (1,472 tokens); V0 preempts it by recompute and
can never re-admit it; no stats line is printed once nothing is scheduled."""
import os, sys, random
sys.path.insert(0, os.path.dirname(__file__))
from common import write_bundle, stamp

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "zzy-v020-a10-awq-util040-freeze", "bundle")
T0 = 1696000000.0          # 2023-09-29 15:06:40 UTC
BLOCKS, BS, CPU_BLOCKS = 92, 16, 327
MODEL = "TheBloke/Wizard-Vicuna-13B-Uncensored-AWQ"
rnd = random.Random(1206)

logs = []
def L(t, src, msg, lvl="INFO"):
    logs.append(f"{lvl} {stamp(t)} {src}] {msg}")

L(T0 - 95, "llm_engine.py:72", "Initializing an LLM engine with config: model='%s', tokenizer='%s', tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2048, download_dir=None, load_format=auto, tensor_parallel_size=1, quantization=awq, seed=0)" % (MODEL, MODEL))
L(T0 - 60, "llm_engine.py:207", f"# GPU blocks: {BLOCKS}, # CPU blocks: {CPU_BLOCKS}")
logs.append("INFO:     Started server process [4127]")
logs.append("INFO:     Waiting for application startup.")
logs.append("INFO:     Application startup complete.")
logs.append("INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")

# Timeline: window 600 s, stats lines every ~5 s while the engine steps.
# Phase A (0-300 s): 2-3 short chats plus one long chat whose history grows.
# At ~t=300 the long chat alone holds all 92 blocks -> preempted (recompute) -> frozen.
req = 0
def received(t, ntok, max_tokens):
    global req
    rid = f"cmpl-{rnd.getrandbits(128):032x}"
    req += 1
    L(t, "async_llm_engine.py:371", f"Received request {rid}: prompt: '<chat history, {ntok} tokens>', sampling params: SamplingParams(n=1, best_of=1, presence_penalty=0.0, frequency_penalty=0.0, temperature=0.7, top_p=1.0, top_k=-1, use_beam_search=False, length_penalty=1.0, early_stopping=False, stop=[], ignore_eos=False, max_tokens={max_tokens}, logprobs=None, skip_special_tokens=True), prompt token ids: None.")
    return rid

long_len = 720    # long chat: history tokens at t=0
t = T0
received(T0 + 1, 720, 1328)
short_active = 2
freeze_at = None
while t < T0 + 600:
    t += 5
    if freeze_at is None:
        long_len += 28   # ~5.6 tok/s decode for the long chat
        if t - T0 > 110:
            short_active = 0   # the other chats have finished; the long one decodes alone
        # short chats: 40-200 tokens each, come and go
        short_tokens = short_active * rnd.randint(90, 160)
        used_tokens = long_len + short_tokens
        used_blocks = min(BLOCKS - 3 if short_active else BLOCKS, -(-long_len // BS) + short_active * 4)
        if long_len >= BLOCKS * BS - 8:
            used_blocks = BLOCKS
        gen = (1 + short_active) * rnd.uniform(5.4, 6.2)
        prompt_tp = rnd.choice([0.0, 0.0, 31.6, 48.2])
        if short_active and rnd.random() < 0.25:
            received(t - 2, rnd.randint(60, 180), 512)
        if rnd.random() < 0.3:
            logs.append(f'INFO:     10.0.3.{rnd.randint(2,40)}:{rnd.randint(40000,60000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK')
        L(t, "llm_engine.py:624", f"Avg prompt throughput: {prompt_tp:.1f} tokens/s, Avg generation throughput: {gen:.1f} tokens/s, Running: {1 + short_active} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {used_blocks / BLOCKS * 100:.1f}%, CPU KV cache usage: 0.0%")
        if used_blocks == BLOCKS and long_len >= BLOCKS * BS - 8:
            short_active = 0
            freeze_at = t + 3
    else:
        # nothing is scheduled: step() returns before _log_system_stats; only arrivals are logged
        if rnd.random() < 0.35:
            received(t - rnd.uniform(0, 4), rnd.randint(40, 400), 512)
        short_active = 0

logs.append("")
# failed scrapes every 10 s: 0.2.0 has no /metrics route
scrapes = [{"t": T0 + i * 10.0, "error": 'HTTP 404 Not Found: {"detail":"Not Found"} (no /metrics route in vLLM 0.2.0)'} for i in range(61)]

total = 24146608128
used = int(total * 0.40) + 310 * 2**20   # budget + CUDA context
gpu = [{"t": T0 + i * 10.0, "devices": [{"index": 0, "name": "NVIDIA A10", "memory_total": total, "memory_used": used,
        "processes": [{"pid": 4127, "name": "python", "used_memory": used - 2 * 2**20}]}]} for i in range(61)]

model_config = {"_name_or_path": "TheBloke/Wizard-Vicuna-13B-Uncensored-AWQ", "architectures": ["LlamaForCausalLM"],
    "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 13824, "max_position_embeddings": 2048, "model_type": "llama", "num_attention_heads": 40,
    "num_hidden_layers": 40, "pad_token_id": 0, "rms_norm_eps": 1e-06, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.31.0", "use_cache": True, "vocab_size": 32000,
    "quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq", "version": "gemm", "zero_point": True}}

write_bundle(OUT,
    manifest={"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://a10-host:8000",
              "started_at": T0, "ended_at": T0 + 600, "interval_s": 10.0,
              "notes": "vLLM 0.2.0 OpenAI server: /metrics does not exist in this release (404 on every scrape); server log piped in with --logs."},
    scrapes=scrapes,
    server={"version": None, "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "parent": None}]}, "health": None},
    engine_args={"argv": ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL, "--quantization", "awq", "--host", "0.0.0.0", "--gpu-memory-utilization", "0.40"],
                 "args": {"model": MODEL, "quantization": "awq", "host": "0.0.0.0", "gpu_memory_utilization": 0.40}},
    model_config=model_config, gpu=gpu, logs="\n".join(logs))
print("freeze at", freeze_at - T0 if freeze_at else None, "requests", req)
