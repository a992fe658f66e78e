"""zyg-nemotronh-block-4224-l40s: hybrid block (4224) larger than every prompt; zero hits."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "zyg-nemotronh-block-4224-l40s" / "bundle"

T0 = 1788264000.0          # window start (2026-09-01 12:00:00 UTC)
START = T0 - 2000.0        # server start
TRAFFIC0 = T0 - 1800.0     # steady traffic began 30 min before the window
LENS = [1820, 2140, 2460, 2780, 3100]
GENS = [52, 71, 44, 80, 63, 58, 40, 67]
PREFILL_TPS = 9000.0
ITL = 0.014
BLOCK = 4224
NUM_BLOCKS = 1851
GROUPS = 7
MODEL = "pipecat-ai/phonellm-alpha-1"


def main() -> None:
    reqs = []
    t, i = TRAFFIC0 + 1.0, 0
    while t < T0 + 600.0:
        p = LENS[i % 5]
        g = GENS[i % len(GENS)]
        r = sim.Req(rid=i, t_arr=t, prompt=p, gen=g, max_tokens=256, itl=ITL)
        r.t_sched = t + 0.004
        r.t_first = r.t_sched + p / PREFILL_TPS
        r.cached = 0
        reqs.append(r)
        t += 2.0
        i += 1
    steps = sorted({round(x, 3) for r in reqs for x in [r.t_first] + [r.t_first + k * ITL for k in range(1, r.gen)]})
    cc = {"block_size": str(BLOCK), "cache_dtype": "fp8", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "mamba_block_size": str(BLOCK), "mamba_cache_dtype": "auto", "mamba_cache_mode": "all",
          "mamba_page_size_padded": "4325376", "mamba_ssm_cache_dtype": "float32",
          "num_cpu_blocks": "None", "num_gpu_blocks": str(NUM_BLOCKS), "num_gpu_blocks_override": "None",
          "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=NUM_BLOCKS // GROUPS * BLOCK, block_size=BLOCK,
                   max_model_len=4096, reqs=reqs, step_times=steps, created=START + 95.0, cc_labels=cc)
    e.usage_fn = lambda tt: sum(1 for r in reqs if r.t_sched <= tt < r.t_end) * GROUPS / NUM_BLOCKS
    cache: dict = {}
    scrapes = [(T0 + k * 10.0, sim.scrape(e, T0 + k * 10.0, cache)) for k in range(61)]

    pid_api, pid_core = 1, 214
    def L(tt, lvl, ref, msg, who="APIServer", pid=pid_api):
        return (tt, f"({who} pid={pid}) {lvl} {sim.ts(tt)} [{ref}] {msg}")
    core = dict(who="EngineCore_DP0", pid=pid_core)
    logs = [
        L(START, "INFO", "api_server.py:1896", "vLLM API server version 0.28.1rc1.dev199+g383e409f"),
        L(START + 0.1, "INFO", "utils.py:328", f"non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': 4096, 'quantization': 'fp8', 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, 'mamba_cache_mode': 'all'}}"),
        L(START + 6.0, "INFO", "config.py:418", "Setting attention block size to 4224 tokens to ensure that attention page size is >= mamba page size.", **core),
        L(START + 6.0, "INFO", "config.py:439", "Padding mamba page size by 1.64% to ensure that mamba page size and attention page size are exactly equal.", **core),
        L(START + 41.0, "INFO", "gpu_model_runner.py:2890", "Model loading took 8.6012 GiB and 31.882109 seconds", **core),
        L(START + 70.0, "INFO", "gpu_worker.py:298", "Available KV cache memory: 29.84 GiB", **core),
        L(START + 70.2, "INFO", "kv_cache_utils.py:1087", "GPU KV cache size: 1,115,136 tokens", **core),
        L(START + 70.2, "INFO", "kv_cache_utils.py:1091", "Maximum concurrency for 4,096 tokens per request: 264.43x", **core),
        L(START + 95.0, "INFO", "api_server.py:1968", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    a = START + 95.5
    b = a + 10.0
    while b <= T0 + 600.0 + 1e-6:
        if any(a < r.t_first + r.gen * ITL and r.t_arr <= b for r in reqs):
            logs.append((b, sim.stats_line(e, a, b, pid_api, ref="loggers.py:236")))
        a, b = b, b + 10.0
    cfg = {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 4096,
           "num_hidden_layers": 52, "hybrid_override_pattern": "M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-",
           "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "mamba_num_heads": 128,
           "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4, "chunk_size": 128,
           "intermediate_size": 21504, "vocab_size": 131072, "max_position_embeddings": 8192,
           "torch_dtype": "bfloat16", "mamba_hidden_act": "silu", "mlp_hidden_act": "relu2", "rms_norm_eps": 1e-05}
    args = {"argv": None, "args": {"model": MODEL, "quantization": "fp8", "kv-cache-dtype": "fp8",
                                   "max-model-len": 4096, "enable-prefix-caching": True, "mamba-cache-mode": "all",
                                   "gpu-memory-utilization": 0.9}}
    gpu = []
    for k in range(61):
        tt = T0 + k * 10.0
        gpu.append({"t": tt, "devices": [{"index": 0, "name": "NVIDIA L40S", "memory_total": 48305799168,
                    "memory_used": 44006392832, "processes": [{"pid": 214, "name": "VLLM::EngineCore", "used_memory": 43477614592}]}]})
    sim.write_bundle(OUT, scrapes=scrapes, interval=10.0, endpoint="http://l40s-voice-01:8000", notes="phone agent, 10 min window",
                     server=sim.server_json("0.28.1rc1.dev199+g383e409f", MODEL, MODEL, 4096, int(START + 95)),
                     engine_args=args, model_config=cfg, gpu=gpu, logs=logs)
    w0 = [r for r in reqs if T0 < r.t_first <= T0 + 600]
    print("window reqs", len(w0), "queries", sum(r.prompt for r in w0), "hits", sum(r.cached for r in w0))


if __name__ == "__main__":
    main()
