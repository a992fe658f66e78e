"""zxi-n4-children-count-healthy (vllm-project/vllm#56361).

vLLM 0.28.0, Qwen2.5-0.5B-Instruct on one RTX 4090, --enforce-eager --enable-prefix-caching
--enable-prompt-tokens-details. Every user request has n=4: the per-request histograms and
prompt_tokens_total count the four children, request_params_n / request_params_max_tokens count the
user request once. The dashboard reads ~4x the gateway's request rate; the server is healthy.

Run: python3 cases/_tools/zxi/n4_children.py
"""
import datetime as dt
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import Req, Template, models_body, render, snapshot, stats_lines, write_bundle  # noqa: E402

CID = "zxi-n4-children-count-healthy"
MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
VERSION = "0.28.0"
MML = 32768
BLOCK = 16
KV_GIB = 18.3
BPT = 24 * 2 * 64 * 2 * 2        # 12,288 bytes per token, bf16
NUM_BLOCKS = int(KV_GIB * 2**30 // (BPT * BLOCK))
TOKENS = NUM_BLOCKS * BLOCK
TOTAL = 25757220864              # RTX 4090
INTERVAL = 5.0
NCH = 4
rng = random.Random(56361)

T_START = dt.datetime(2026, 9, 11, 8, 0, 0, tzinfo=dt.timezone.utc).timestamp()
T0 = T_START + 1800.0
N = 73
T_END = T0 + INTERVAL * (N - 1)


def fts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


parents, reqs = [], []
t = T0 - 60.0
while t < T_END + 5:
    t += rng.expovariate(1.5)
    p = rng.randint(10, 60)
    mt = rng.choice([32, 64, 128])
    kids = []
    for c in range(NCH):
        g = rng.randint(max(4, mt // 3), mt)
        hit = (p // BLOCK) * BLOCK if c > 0 else 0
        r = Req(t_arrive=round(t, 3), prompt_len=p, gen_len=g, max_tokens=mt, hit=hit,
                queue_s=round(rng.uniform(0.0008, 0.002), 4), prefill_s=round(rng.uniform(0.010, 0.014), 4),
                itl_s=round(rng.uniform(0.0058, 0.0064), 5), finished_reason="length" if g == mt else "stop")
        kids.append(r)
    reqs += kids
    parents.append((kids, mt))

cache_labels = {
    "block_size": str(BLOCK), "cache_dtype": "auto", "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9",
    "kv_cache_max_concurrency": f"{TOKENS / MML:.2f}", "kv_cache_size_tokens": str(TOKENS), "num_gpu_blocks": str(NUM_BLOCKS),
}
tpl = Template("zzl-tls-lb-sse-buffer-healthy")
created = T_START + 63.0
scrapes, peak, maxrun = [], 0, 0
for i in range(N):
    tt = T0 + i * INTERVAL
    snap, st = snapshot(reqs, tt, block_size=BLOCK, num_blocks=NUM_BLOCKS, step_tokens=8192)
    # parent-level de-duplication for the two metrics ParentRequest.observe_finished_request() covers
    done_parents = [(k, mt) for k, mt in parents if max(r.t_end for r in k) <= tt]
    snap.hists["vllm:request_params_n"] = [NCH for _ in done_parents]
    snap.hists["vllm:request_params_max_tokens"] = [mt for _, mt in done_parents]
    peak = max(peak, st["usage"])
    maxrun = max(maxrun, st["running"])
    scrapes.append({"t": tt, "status": 200, "text": render(tpl, snap, model_name=MODEL, created=created,
                                                           max_model_len=MML, cache_labels=cache_labels)})
print("blocks", NUM_BLOCKS, "tokens", TOKENS, "peak", round(peak, 5), "max running", maxrun, "parents", len(parents), st)

P_API, P_ENG = "(APIServer pid=1) ", "(EngineCore pid=143) "
L = [
    f"{P_API}INFO {fts(T_START)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version {VERSION}",
    f"{P_API}INFO {fts(T_START)} [utils.py:233] non-default args: {{'model_tag': '{MODEL}', 'enable_prompt_tokens_details': True, 'model': '{MODEL}', 'enforce_eager': True, 'enable_prefix_caching': True}}",
    f"{P_API}INFO {fts(T_START+6)} [model.py:561] Resolved architecture: Qwen2ForCausalLM",
    f"{P_API}INFO {fts(T_START+6)} [model.py:1702] Using max model len {MML}",
    f"{P_API}INFO {fts(T_START+7)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=8192.",
    f"{P_API}WARNING {fts(T_START+7)} [vllm.py:712] Enforce eager set, disabling torch.compile and CUDAGraphs. This is equivalent to setting -cc.mode=none -cc.cudagraph_mode=none",
    f"{P_ENG}INFO {fts(T_START+14)} [core.py:114] Initializing a V1 LLM engine (v{VERSION}) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', dtype=torch.bfloat16, max_seq_len={MML}, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, enable_prefix_caching=True, enable_chunked_prefill=True",
    f"{P_ENG}INFO {fts(T_START+18)} [gpu_model_runner.py:5311] Starting to load model {MODEL}...",
    f"{P_ENG}INFO {fts(T_START+19)} [cuda.py:412] Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']",
    f"{P_ENG}INFO {fts(T_START+24)} [gpu_model_runner.py:5405] Model loading took 0.93 GiB memory and 4.822317 seconds",
    f"{P_ENG}INFO {fts(T_START+31)} [gpu_worker.py:563] Available KV cache memory: {KV_GIB:.2f} GiB",
    f"{P_ENG}INFO {fts(T_START+31)} [kv_cache_utils.py:2146] GPU KV cache size: {TOKENS:,} tokens",
    f"{P_ENG}INFO {fts(T_START+31)} [kv_cache_utils.py:2147] Maximum concurrency for {MML:,} tokens per request: {TOKENS / MML:.2f}x",
    f"{P_ENG}INFO {fts(T_START+32)} [core.py:282] init engine (profile, create kv cache, warmup model) took 8.04 seconds",
    f"{P_API}INFO {fts(T_START+62)} [api_server.py:602] Starting vLLM server on http://0.0.0.0:8000",
    f"{P_API}INFO:     Started server process [1]",
    f"{P_API}INFO:     Waiting for application startup.",
    f"{P_API}INFO:     Application startup complete.",
]
events = []
for k, (kids, _) in enumerate(parents):
    te = max(r.t_end for r in kids)
    if T0 - 40 <= te <= T_END:
        events.append((te, f"{P_API}INFO:     10.1.3.8:{52000 + k % 9000} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
events += stats_lines(reqs, T0 - 40, T_END, 10.0, fts, block_size=BLOCK, num_blocks=NUM_BLOCKS, loggers_line="loggers.py:257")
L += [x for _, x in sorted(events, key=lambda e: e[0])]

proc = 22_080_000_000
gpu = [{"t": T0 + i * INTERVAL, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "memory_total": TOTAL,
        "memory_used": proc + 612_368_384, "processes": [{"pid": 143, "name": "VLLM::EngineCore", "used_memory": proc}]}]}
       for i in range(N)]
model_config = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
    "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2", "num_attention_heads": 14,
    "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "sliding_window": 32768, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
}
server = {"version": {"version": VERSION}, "models": models_body(MODEL, MODEL, MML, int(T_START + 62)), "health": 200}
engine_args = {"argv": ["vllm", "serve", MODEL, "--enforce-eager", "--enable-prefix-caching", "--enable-prompt-tokens-details"],
               "args": {"enforce-eager": True, "enable-prefix-caching": True, "enable-prompt-tokens-details": True}}
manifest = {"created_by": "kvdoctor 0.2.0", "endpoint": "http://10.1.3.20:8000", "started_at": T0, "ended_at": T_END,
            "interval_s": INTERVAL,
            "notes": "Grafana shows ~6 requests/s and ~4x the prompt tokens/s that the gateway and the billed usage.prompt_tokens report (~1.5 requests/s); is the server retrying or double-processing? The application asks for n=4 completions per chat request. /metrics every 5 s for 6 min, NVML, server log."}
write_bundle(CID, manifest=manifest, scrapes=scrapes, server=server, engine_args=engine_args,
             model_config=model_config, gpu=gpu, logs=L)
