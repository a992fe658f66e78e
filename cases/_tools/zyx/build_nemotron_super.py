"""zyx-nemotron-super-block8320-mml4096: hybrid block 8320 > max_model_len 4096, zero hits (vllm#48401)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "zyx-nemotron-super-block8320-mml4096" / "bundle"
T0 = 1783857600.0          # 2026-07-12 12:00:00 UTC
START = T0 - 900.0
MODEL = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
VER = "0.23.1rc1.dev214+g429f40574"
BLOCK, NB, GROUPS, MML = 8320, 393, 6, 4096
PREFILL, ITL = 6000.0, 0.024


def main() -> None:
    reqs = []
    for i in range(4):
        t = T0 + 30.0 + i * 45.0
        r = sim.Req(rid=i, t_arr=t, prompt=2652, gen=128, max_tokens=128, itl=ITL, reason="length")
        r.t_sched = t + 0.003
        r.t_first = r.t_sched + 0.05 + 2652 / PREFILL
        r.cached = 0
        reqs.append(r)
    cc = {"_block_size_resolved": "True", "block_size": str(BLOCK), "cache_dtype": "fp8", "calculate_kv_scales": "False",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "hash_block_size": "None",
          "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_sharing_fast_prefill": "False",
          "mamba_block_size": str(BLOCK), "mamba_cache_dtype": "auto", "mamba_cache_mode": "align",
          "mamba_page_size_padded": "4259840", "mamba_ssm_cache_dtype": "float32", "num_cpu_blocks": "None",
          "num_gpu_blocks": str(NB), "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
          "sliding_window": "None", "user_specified_block_size": "False"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=NB // GROUPS * BLOCK, block_size=BLOCK, max_model_len=MML,
                   reqs=reqs, step_times=sim.steps_for(reqs), created=START + 410.0, cc_labels=cc)
    e.usage_fn = lambda tt: sum(1 for r in reqs if r.t_sched <= tt < r.t_end) * GROUPS / NB
    cache: dict = {}
    scr = [(T0 + k * 10.0, sim.scrape_v2(e, T0 + k * 10.0, cache)) for k in range(31)]

    def L(tt, lvl, ref, msg, who="APIServer", pid=1):
        return (tt, f"({who} pid={pid}) {lvl} {sim.ts(tt)} [{ref}] {msg}")
    core = dict(who="EngineCore_DP0", pid=318)
    logs = [
        (START, f"INFO {sim.ts(START)} [__init__.py:216] Automatically detected platform cuda."),
        L(START + 2, "INFO", "api_server.py:1885", f"vLLM API server version {VER}"),
        L(START + 2, "INFO", "utils.py:299", f"non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': 4096, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True}}"),
        L(START + 9, "INFO", "model.py:1510", "Using max model len 4096"),
        L(START + 9, "INFO", "config.py:392", "Setting attention block size to 8320 tokens to ensure that attention page size is >= mamba page size.", **core),
        L(START + 9, "INFO", "config.py:416", "Padding mamba page size by 0.10% to ensure that mamba page size and attention page size are exactly equal.", **core),
        L(START + 21, "INFO", "core.py:93", f"Initializing a V1 LLM engine (v{VER}) with config: model='{MODEL}', dtype=torch.bfloat16, max_seq_len=4096, tensor_parallel_size=1, quantization=modelopt_fp4, kv_cache_dtype=fp8, enable_prefix_caching=True", **core),
        L(START + 262, "INFO", "gpu_model_runner.py:3120", "Model loading took 69.8041 GiB and 231.204117 seconds", **core),
        L(START + 330, "INFO", "gpu_worker.py:391", "Available KV cache memory: 12.50 GiB", **core),
        L(START + 330.2, "INFO", "kv_cache_utils.py:1229", "GPU KV cache size: 540,800 tokens", **core),
        L(START + 330.2, "INFO", "kv_cache_utils.py:1234", "Maximum concurrency for 4,096 tokens per request: 65.50x", **core),
        L(START + 405, "INFO", "core.py:251", "init engine (profile, create kv cache, warmup model) took 139.71 seconds", **core),
        L(START + 410, "INFO", "loggers.py:176", f"Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {NB}"),
        L(START + 411, "INFO", "api_server.py:1957", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    for r in reqs:
        logs.append(L(r.t_arr + 0.001, "INFO", "logger.py:71", f"Received request cmpl-{r.rid:032x}-0: params: SamplingParams(n=1, temperature=0.0, max_tokens=128), prompt_token_ids: None, lora_request: None."))
        logs.append((r.t_end + 0.01, f"(APIServer pid=1) INFO:     10.0.0.12:{51200 + r.rid} - \"POST /v1/completions HTTP/1.1\" 200 OK"))
    logs += sim.stats_logs(e, T0, T0 + 300.0, 1, "loggers.py:257")
    cfg = {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 8192,
           "num_hidden_layers": 88, "hybrid_override_pattern": "M-M-M-M-M-*" * 8,
           "num_attention_heads": 64, "num_key_value_heads": 2, "head_dim": 128, "mamba_num_heads": 128,
           "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4, "chunk_size": 128,
           "n_routed_experts": 512, "num_experts_per_tok": 22, "moe_intermediate_size": 2688,
           "vocab_size": 131072, "max_position_embeddings": 262144, "torch_dtype": "bfloat16",
           "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
    args = {"argv": ["vllm", "serve", MODEL, "--max-model-len", "4096", "--kv-cache-dtype", "fp8", "--enable-prefix-caching"],
            "args": {"model": MODEL, "max-model-len": 4096, "kv-cache-dtype": "fp8", "enable-prefix-caching": True}}
    tot = 102626574336
    gpu = [{"t": T0 + k * 10.0, "devices": [{"index": 0, "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
            "memory_total": tot, "memory_used": 93414653952, "processes": [{"pid": 318, "name": "VLLM::EngineCore", "used_memory": 92878831616}]}]}
           for k in range(31)]
    sim.write_bundle(OUT, scrapes=scr, interval=10.0, endpoint="http://localhost:8000", notes="prefix-reuse test, 4 requests, max_model_len 4096",
                     server=sim.server_json(VER, MODEL, MODEL, MML, int(START + 411)), engine_args=args, model_config=cfg, gpu=gpu, logs=logs)
    print("queries", sum(r.prompt for r in reqs), "hits", sum(r.cached for r in reqs))


if __name__ == "__main__":
    main()
