"""zyg-qwen35-align-checkpoint-unique: 1,500 shared + 700 unique tokens, block 528, align mode: 0 hits."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "zyg-qwen35-align-checkpoint-unique"
OUT = CASE / "bundle"

T0 = 1781179200.0          # 2026-06-11 12:00:00 UTC
START = T0 - 300.0
TTFT = 0.905
ITL = 0.020
GEN = 32
BLOCK = 528
NUM_BLOCKS = 1800
MODEL = "Qwen/Qwen3.5-4B"


def main() -> None:
    reqs = []
    t = T0 + 2.0
    for i in range(192):
        r = sim.Req(rid=i, t_arr=t, prompt=2200, gen=GEN, max_tokens=GEN, itl=ITL)
        r.t_sched = t + 0.003
        r.t_first = t + TTFT
        reqs.append(r)
        t = r.t_end + 0.001
    assert t < T0 + 300.0, t
    steps = sorted({round(x, 3) for r in reqs for x in [r.t_first] + [r.t_first + k * ITL for k in range(1, r.gen)]})
    cc = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "mamba_block_size": str(BLOCK), "mamba_cache_dtype": "auto", "mamba_cache_mode": "align",
          "mamba_ssm_cache_dtype": "auto", "num_cpu_blocks": "None", "num_gpu_blocks": str(NUM_BLOCKS),
          "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=NUM_BLOCKS * BLOCK, block_size=BLOCK, max_model_len=8192,
                   reqs=reqs, step_times=steps, created=START + 120.0, cc_labels=cc)
    e.usage_fn = lambda tt: sum(1 for r in reqs if r.t_sched <= tt < r.t_end) * 20 / NUM_BLOCKS
    cache: dict = {}
    scrapes = [(T0 + k * 10.0, sim.scrape(e, T0 + k * 10.0, cache)) for k in range(31)]
    pid = 1
    def L(tt, ref, msg, who="APIServer", p=pid):
        return (tt, f"({who} pid={p}) INFO {sim.ts(tt)} [{ref}] {msg}")
    core = dict(who="EngineCore_DP0", p=97)
    logs = [
        L(START, "api_server.py:1885", "vLLM API server version 0.22.1.dev412+g16282a9c4"),
        L(START + 5.0, "utils.py:328", f"non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': 8192, 'enforce_eager': True, 'enable_prefix_caching': True, 'mamba_cache_mode': 'align'}}"),
        L(START + 9.0, "config.py:418", "Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size.", **core),
        L(START + 120.0, "api_server.py:1957", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    a = T0 + 0.5
    while a + 10.0 <= T0 + 300.0:
        b = a + 10.0
        if any(r.t_arr <= b and r.t_end > a for r in reqs):
            logs.append((b, sim.stats_line(e, a, b, pid, ref="loggers.py:236")))
        a = b
    args = {"argv": None, "args": {"model": MODEL, "max-model-len": 8192, "enforce-eager": True,
                                   "enable-prefix-caching": True, "mamba-cache-mode": "align"}}
    sim.write_bundle(OUT, scrapes=scrapes, interval=10.0, endpoint="http://localhost:8000",
                     notes="shared 1500 / unique 700 prompt benchmark, concurrency 1",
                     server=sim.server_json("0.22.1.dev412+g16282a9c4", MODEL, MODEL, 8192, int(START + 120)),
                     engine_args=args, model_config=None, gpu=None, logs=logs)
    rng = random.Random(45238)
    shared = [rng.randrange(1000, 150000) for _ in range(1500)]
    with open(CASE / "prompts.jsonl", "w") as f:
        for i in range(16):
            f.write(json.dumps({"prompt_token_ids": shared + [rng.randrange(1000, 150000) for _ in range(700)]}) + "\n")
    print("queries", sum(r.prompt for r in reqs), "hits", sum(r.cached for r in reqs), "end", round(t - T0, 1))


if __name__ == "__main__":
    main()
