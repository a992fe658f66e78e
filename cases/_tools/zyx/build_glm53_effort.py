"""zyx-glm53-effort-line-head-drift: reasoning-effort line at token ~8 changes; turn 7 full re-prefill."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "zyx-glm53-effort-line-head-drift"
T0 = 1788350400.0   # 2026-09-02 12:00:00 UTC
START = T0 - 5400.0
MODEL = "GLM-5.3-Flash-EXL3"
VER = "0.28.0"
CTX = [41836, 41885, 41917, 41961, 41967, 41982, 42029, 42065, 42107]
HIT = [0, 41792, 41856, 41856, 41920, 41920, 0, 41984, 41920]
TOTAL = [53.5, 4.4, 5.5, 5.4, 6.5, 5.5, 54.5, 6.3, 10.1]
KW = ["default", "default", "default", "thinking", "thinking", "default", "high", "high", "default"]
PREFILL, ITL = 860.0, 0.032
POOL, BLOCK, NB = 502059, 3584, 1120


def main() -> None:
    reqs, t = [], T0 + 12.0
    for i, (c, h, tot) in enumerate(zip(CTX, HIT, TOTAL)):
        pre = 0.08 + (c - h) / PREFILL
        gen = max(2, int(round((tot - pre) / ITL)) + 1)
        r = sim.Req(rid=i, t_arr=t, prompt=c, gen=gen, max_tokens=8192, itl=ITL)
        r.t_sched = t + 0.004
        r.t_first = r.t_sched + pre
        r.cached = h
        reqs.append(r)
        t = r.t_end + 15.0
    cc = {"_block_size_resolved": "True", "block_size": str(BLOCK), "cache_dtype": "fp8", "calculate_kv_scales": "False",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.87", "hash_block_size": "64",
          "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_cache_size_tokens": str(POOL),
          "kv_sharing_fast_prefill": "False", "mamba_block_size": str(BLOCK), "mamba_cache_dtype": "auto",
          "mamba_cache_mode": "align", "num_cpu_blocks": "None", "num_gpu_blocks": str(NB),
          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None",
          "user_specified_block_size": "False"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=POOL, block_size=64, max_model_len=131072, reqs=reqs,
                   step_times=sim.steps_for(reqs), created=START + 900.0, cc_labels=cc)
    cache: dict = {}
    scr = [(T0 + k * 10.0, sim.scrape_v2(e, T0 + k * 10.0, cache)) for k in range(31)]

    def L(tt, lvl, ref, msg, who="APIServer", pid=1):
        return (tt, f"({who} pid={pid}) {lvl} {sim.ts(tt)} [{ref}] {msg}")
    core = dict(who="EngineCore_DP0", pid=402)
    logs = [
        L(START + 2, "INFO", "api_server.py:1947", f"vLLM API server version {VER}"),
        L(START + 2, "INFO", "utils.py:299", f"non-default args: {{'model': '/models/GLM-5.3-Flash-EXL3', 'served_model_name': ['{MODEL}'], 'max_model_len': 131072, 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.87, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, 'max_num_seqs': 4, 'max_num_batched_tokens': 2048}}"),
        L(START + 640, "INFO", "kv_cache_utils.py:1229", f"GPU KV cache size: {POOL:,} tokens", **core),
        L(START + 640, "INFO", "kv_cache_utils.py:1234", "Maximum concurrency for 131,072 tokens per request: 3.83x", **core),
        L(START + 900, "INFO", "api_server.py:1957", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    for r in reqs:
        logs.append((r.t_end + 0.01, f"(APIServer pid=1) INFO:     10.0.0.7:{40100 + r.rid} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
    logs += sim.stats_logs(e, T0, T0 + 300.0, 1, "loggers.py:263")
    cfg = {"architectures": ["Glm53FlashForCausalLM"], "model_type": "glm5_3_flash", "hidden_size": 4096,
           "num_hidden_layers": 48, "num_attention_heads": 32, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
           "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 154880, "max_position_embeddings": 1048576,
           "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "exl3"}}
    args = {"argv": None, "args": {"model": "/models/GLM-5.3-Flash-EXL3", "served-model-name": MODEL,
            "tensor-parallel-size": 2, "max-model-len": 131072, "gpu-memory-utilization": 0.87, "kv-cache-dtype": "fp8",
            "enable-prefix-caching": True, "max-num-seqs": 4, "max-num-batched-tokens": 2048}}
    gpu = [{"t": T0 + k * 10.0, "devices": [{"index": 0, "name": "NVIDIA GB10", "memory_total": 128526278656,
            "memory_used": 112862347264, "processes": [{"pid": 402, "name": "VLLM::EngineCore", "used_memory": 111669428224}]}]}
           for k in range(31)]
    out = CASE / "bundle"
    sim.write_bundle(out, scrapes=scr, interval=10.0, endpoint="http://spark-head:8000", notes="one conversation, 9 turns, chat_template_kwargs varied; node 0 NVML only",
                     server=sim.server_json(VER, MODEL, "/models/GLM-5.3-Flash-EXL3", 131072, int(START + 900)), engine_args=args, model_config=cfg, gpu=gpu, logs=logs)
    # rendered prompts: head line + stable system/tools + growing conversation (~4 chars per token)
    rng = random.Random(111)
    words = ("the function returns a list of paths under src and tests that match the pattern so we can "
             "refactor the parser module without touching the public interface of the tool call handler").split()
    def filler(ntok):
        return " ".join(rng.choice(words) for _ in range(int(ntok * 0.8)))
    system = "<|system|>\nYou are a coding agent working in the repository. Tools follow.\n" + filler(9000)
    body = filler(CTX[0] - 9000 - 40)
    lines = []
    for i, c in enumerate(CTX):
        effort = "High" if KW[i] == "high" else "Max"
        if i > 0:
            body += "\n<|assistant|>\n" + filler(20) + "\n<|user|>\n" + filler(CTX[i] - CTX[i - 1] - 28)
        think = "" if KW[i] == "default" else "<think>"
        prompt = f"[gMASK]<sop><|system|>Reasoning Effort: {effort}\n" + system + "\n<|user|>\n" + body + "\n<|assistant|>" + think
        lines.append(json.dumps({"prompt": prompt}))
    (CASE / "prompts.jsonl").write_text("\n".join(lines) + "\n")
    print("queries", sum(CTX), "hits", sum(HIT), "end", max(r.t_end for r in reqs) - T0)


if __name__ == "__main__":
    main()
