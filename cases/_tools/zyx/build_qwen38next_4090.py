"""zyx-qwen38next-4090-tp4-zero-hits: repeated 15.6k prompt gets 0 cached tokens on a TP4 hybrid backport (undecided)."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "zyx-qwen38next-4090-tp4-zero-hits"
T0 = 1788091200.0   # 2026-08-30 12:00:00 UTC
START = T0 - 1500.0
MODEL = "qwen38-flash"
PATH = "/models/wtdcode/Qwen3.8-Flash-Next-AWQ-W4A16"
VER = "0.13.1"
RUNS = [(62, 98, 0.140, 0.816), (15593, 256, 2.054, 3.853), (15589, 256, 2.053, 3.947),
        (15592, 256, 2.060, 4.011), (15592, 256, 2.056, 4.006)]
BLOCK, NB, GROUPS, POOL = 272, 16224, 4, 1103232


def main() -> None:
    reqs, t = [], T0 + 40.0
    for i, (p, g, ttft, tot) in enumerate(RUNS):
        r = sim.Req(rid=i, t_arr=t, prompt=p, gen=g, max_tokens=g, itl=(tot - ttft) / (g - 1), reason="length")
        r.t_sched = t + 0.002
        r.t_first = t + ttft
        r.cached = 0
        reqs.append(r)
        t = r.t_end + 20.0
    cc = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.93", "is_attention_free": "False", "kv_sharing_fast_prefill": "False",
          "mamba_block_size": str(BLOCK), "mamba_cache_dtype": "auto", "mamba_cache_mode": "align",
          "mamba_page_size_padded": "278528", "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None",
          "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
          "sliding_window": "None"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=POOL, block_size=BLOCK, max_model_len=262144, reqs=reqs,
                   step_times=sim.steps_for(reqs), created=START + 1100.0, cc_labels=cc)
    cache: dict = {}
    scr = [(T0 + k * 10.0, sim.scrape_v2(e, T0 + k * 10.0, cache, era="mid")) for k in range(31)]

    def L(tt, lvl, ref, msg, who="APIServer", pid=1):
        return (tt, f"({who} pid={pid}) {lvl} {sim.ts(tt)} [{ref}] {msg}")
    core = dict(who="EngineCore_DP0", pid=211)
    logs = [
        L(START + 2, "INFO", "api_server.py:1772", f"vLLM API server version {VER}"),
        L(START + 2, "INFO", "utils.py:233", f"non-default args: {{'model_tag': '{PATH}', 'model': '{PATH}', 'served_model_name': ['{MODEL}', 'default_assistant_model'], 'max_model_len': 262144, 'tensor_parallel_size': 4, 'gpu_memory_utilization': 0.93, 'enable_prefix_caching': True}}"),
        L(START + 11, "INFO", "config.py:310", "Hybrid or mamba-based model detected without support for prefix caching with Mamba cache 'all' mode: falling back to 'align' mode.", **core),
        L(START + 11, "INFO", "config.py:386", "Setting attention block size to 272 tokens to ensure that attention page size is >= mamba page size.", **core),
        L(START + 11, "INFO", "config.py:410", "Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are exactly equal.", **core),
        L(START + 880, "INFO", "kv_cache_utils.py:1199", f"GPU KV cache size: {POOL:,} tokens", **core),
        L(START + 880, "INFO", "kv_cache_utils.py:1203", "Maximum concurrency for 262,144 tokens per request: 4.21x", **core),
        L(START + 1100, "INFO", "loggers.py:160", f"Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NB}"),
        L(START + 1101, "INFO", "api_server.py:1850", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    for r in reqs:
        logs.append((r.t_end + 0.01, f"(APIServer pid=1) INFO:     172.17.0.1:{38800 + r.rid} - \"POST /v1/completions HTTP/1.1\" 200 OK"))
    logs += sim.stats_logs(e, T0, T0 + 300.0, 1, "loggers.py:236")
    cfg = {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 2048,
           "num_hidden_layers": 48, "full_attention_interval": 4, "num_attention_heads": 16, "num_key_value_heads": 2,
           "head_dim": 256, "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
           "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10,
           "moe_intermediate_size": 512, "vocab_size": 151936, "max_position_embeddings": 262144, "torch_dtype": "bfloat16",
           "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}}
    args = {"argv": None, "args": {"model": PATH, "served-model-name": [MODEL, "default_assistant_model"],
            "tensor-parallel-size": 4, "gpu-memory-utilization": 0.93, "max-model-len": 262144,
            "enable-prefix-caching": True}}
    tot = 51527024640
    gpu = [{"t": T0 + k * 10.0, "devices": [{"index": i, "name": "NVIDIA GeForce RTX 4090", "memory_total": tot,
            "memory_used": 48213524480, "processes": [{"pid": 260 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": 47706013696}]}
            for i in range(4)]} for k in range(31)]
    sim.write_bundle(CASE / "bundle", scrapes=scr, interval=10.0, endpoint="http://localhost:8000", notes="warmup + 3 cache-bust runs + 1 repeat run; env NCCL_P2P_DISABLE=1 VLLM_PLE_CPU_OFFLOAD=1",
                     server=sim.server_json(VER, MODEL, PATH, 262144, int(START + 1101)), engine_args=args, model_config=cfg, gpu=gpu, logs=logs)
    rng = random.Random(27)
    body = [rng.randrange(1000, 150000) for _ in range(15600)]
    def ids(n, tag):
        head = [151644, 8948, 198] + [rng.randrange(1000, 150000) for _ in range(6)] if tag else [151644, 8948, 198]
        return (head + body)[:n]
    warm = [151644, 872, 198] + [rng.randrange(1000, 150000) for _ in range(59)]
    p2, p3, p4 = ids(15593, 1), ids(15589, 1), ids(15592, 1)
    lines = [warm, p2, p3, p4, list(p4)]
    (CASE / "prompts.jsonl").write_text("".join(json.dumps({"prompt_token_ids": x}) + "\n" for x in lines))
    print("queries", sum(r.prompt for r in reqs), "hits 0", [len(x) for x in lines])


if __name__ == "__main__":
    main()
