"""zxj-gemma4-swa-same-turn-edit-zero-hit (vllm-project/vllm#57610, measured in PR #57613).

vLLM 0.29.0 + vllm-metal on an M3 Ultra, Gemma 4 26B-A4B, prefix caching on. One chat conversation of
~4,000-5,600 tokens: new turns hit the 32-aligned prefix (~0.13 s), same-turn edits diverge inside the
last alignment block and hit 0 (~2.2 s prefill for ~4,100 tokens).

Run: python3 cases/_tools/zxj/gemma4_swa.py
"""
import datetime as dt
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxj-gemma4-swa-same-turn-edit-zero-hit"
MODEL = "google/gemma-4-26B-A4B-it"
SERVED = "gemma-4-26b-a4b"
VERSION = "0.29.0"
MML = 32768
BLOCK = 32
TOKENS = 664225
NUM_BLOCKS = TOKENS // BLOCK
INTERVAL = 10.0
N = 61
rng = random.Random(57610)
T_START = dt.datetime(2026, 9, 18, 8, 2, 0, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 420.0
T_END = T0 + INTERVAL * (N - 1)
PREFILL_TPS = 1880.0   # 4,100 tokens in ~2.2 s


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


WORDS = ("policy clause tenant invoice ledger quarterly revenue audit schedule vendor contract renewal "
         "liability warranty shipment customs tariff compliance report summary exception approval budget "
         "forecast variance margin region account balance payment terms notice period amendment").split()


def text(n_words, seed):
    r = random.Random(seed)
    return " ".join(r.choice(WORDS) for _ in range(n_words))


SYSTEM = "You are a contracts analyst. Answer from the document below.\n\n" + text(2900, 1)
messages = [{"role": "system", "content": SYSTEM}]
reqs, prompts = [], []
t = T0 - 12.0
plen = 4100
last_new_turn_len = None
k = 0
while t < T_END - 5:
    edit = last_new_turn_len is not None and rng.random() < 0.5
    if edit:
        # same turn: previous prompt with a few tokens appended to the last user message
        plen = last_new_turn_len + rng.randint(3, 9)
        messages[-1] = {"role": "user", "content": messages[-1]["content"] + " " + text(rng.randint(2, 6), 1000 + k)}
        hit = 0
    else:
        if len(messages) > 1:
            messages.append({"role": "assistant", "content": text(rng.randint(90, 160), 2000 + k)})
        messages.append({"role": "user", "content": text(rng.randint(12, 30), 3000 + k)})
        prev = plen
        plen = prev + rng.randint(140, 260) if k else 4100
        hit = (prev // BLOCK) * BLOCK if k else 0
        last_new_turn_len = plen
    gen = rng.randint(120, 260)
    prefill = round(0.04 + (plen - hit) / PREFILL_TPS, 3)
    r = Req(t_arrive=round(t, 3), prompt_len=plen, gen_len=gen, max_tokens=2048, queue_s=0.002,
            prefill_s=prefill, itl_s=round(rng.uniform(0.0235, 0.0255), 5), hit=hit)
    reqs.append(r)
    prompts.append({"messages": [dict(m) for m in messages], "max_tokens": 2048})
    t = r.t_end + rng.uniform(4.0, 14.0)
    k += 1

cache_labels = {"block_size": str(BLOCK), "gpu_memory_utilization": "0.9", "num_gpu_blocks": str(NUM_BLOCKS),
                "enable_prefix_caching": "True", "mamba_block_size": "None", "mamba_cache_mode": "none",
                "mamba_page_size_padded": "None", "sliding_window": "1024", "user_specified_block_size": "False"}
tpl = Template("zzm-qwen38-3090-block448")
created = T_START + 200.0
scrapes = []
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, caching=True)
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=SERVED, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels,
                                                           drop=("vllm:spec_decode",))})
print("reqs", len(reqs), "edits", sum(1 for r in reqs if r.hit == 0), st)

PA, PE = "(APIServer pid=4411) ", "(EngineCore_DP0 pid=4502) "
args = (f"{{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': {MML}, 'served_model_name': ['{SERVED}'], "
        f"'enable_prefix_caching': True}}")
L = [
    f"INFO {fts(T_START)} [__init__.py:216] Automatically detected platform metal.",
    f"{PA}INFO {fts(T_START+2)} [api_server.py:1947] vLLM API server version {VERSION}",
    f"{PA}INFO {fts(T_START+2)} [utils.py:299] non-default args: {args}",
    f"{PA}INFO {fts(T_START+9)} [model.py:552] Resolved architecture: Gemma4ForConditionalGeneration",
    f"{PA}INFO {fts(T_START+9)} [model.py:1712] Using max model len {MML}",
    f"{PA}INFO {fts(T_START+10)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{PE}INFO {fts(T_START+150)} [kv_cache_utils.py:1291] GPU KV cache size: {TOKENS:,} tokens",
    f"{PE}INFO {fts(T_START+150)} [kv_cache_utils.py:1296] Maximum concurrency for {MML:,} tokens per request: {TOKENS / MML:.2f}x",
    f"{PA}INFO {fts(T_START+199)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NUM_BLOCKS}",
    f"{PA}INFO {fts(T_START+200)} [api_server.py:2040] Starting vLLM API server 0 on http://0.0.0.0:8000",
    f"{PA}INFO:     Started server process [4411]",
    f"{PA}INFO:     Waiting for application startup.",
    f"{PA}INFO:     Application startup complete.",
]
ev = [(r.t_end, f"{PA}INFO:     127.0.0.1:{52100 + j} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK")
      for j, r in enumerate(reqs) if T0 - 15 <= r.t_end <= T_END]
ev += stats_lines(reqs, T0 - 10, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS,
                  loggers_line="loggers.py:257", prefix=PA)
L += [x for _, x in sorted(ev, key=lambda e: e[0])]

layer_types = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(30)]
model_config = {
    "architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4",
    "text_config": {"model_type": "gemma4_text", "hidden_size": 2816, "num_hidden_layers": 30,
                    "layer_types": layer_types, "sliding_window": 1024, "num_attention_heads": 16,
                    "num_key_value_heads": 8, "head_dim": 256, "num_global_key_value_heads": 2,
                    "global_head_dim": 512, "num_experts": 128, "num_experts_per_tok": 8,
                    "max_position_embeddings": 262144, "vocab_size": 262144, "torch_dtype": "bfloat16"},
    "torch_dtype": "bfloat16",
}
server = {"version": {"version": VERSION}, "models": models_body(SERVED, MODEL, MML, int(T_START + 200)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--served-model-name", SERVED, "--max-model-len", str(MML),
                        "--enable-prefix-caching"],
               "args": {"served-model-name": SERVED, "max-model-len": MML, "enable-prefix-caching": True}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://127.0.0.1:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL, "complaint": "prefix-miss",
            "notes": "Gemma 4 26B-A4B on vllm-metal (M3 Ultra), one chat conversation of ~4K tokens. Prefix caching is on, but editing the last message and resending often takes ~2 s again instead of ~0.1 s. /metrics every 10 s, server log; prompts are the chat client's requests."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, logs=L, prompts=prompts)
