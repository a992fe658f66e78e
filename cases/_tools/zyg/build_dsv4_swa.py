"""zyg-dsv4-swa-min-32kx8-spark: 16K x 8 replays hit, 32K x 8 replays miss (hybrid min over SWA groups)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "zyg-dsv4-swa-min-32kx8-spark" / "bundle"

T0 = 1786881600.0          # 2026-08-16 12:00:00 UTC
START = T0 - 240.0
RATE = 3000.0              # aggregate prefill tokens/s
ITL = 0.045
BLOCK = 256
POOL = 4320 * BLOCK
MODEL = "deepseek-v4-flash"
GEN = 16


def phase(reqs, t, plen, hits, rid0):
    """8 lanes arriving together; chunked prefill serves them in order at RATE tokens/s."""
    done = t + 0.05
    for k in range(8):
        r = sim.Req(rid=rid0 + k, t_arr=t + 0.01 * k, prompt=plen, gen=GEN, max_tokens=GEN, itl=ITL)
        r.t_sched = r.t_arr + 0.002
        r.cached = hits[k]
        done += (plen - hits[k]) / RATE
        r.t_first = done
        reqs.append(r)
    return max(r.t_end for r in reqs[-8:])


def main() -> None:
    reqs = []
    h16 = [15872] * 8
    phase(reqs, T0 + 20.0, 16000, [0] * 8, 0)
    phase(reqs, T0 + 80.0, 16000, h16, 8)
    phase(reqs, T0 + 100.0, 16000, h16, 16)
    phase(reqs, T0 + 130.0, 32000, [0] * 8, 24)
    phase(reqs, T0 + 240.0, 32000, [0] * 8, 32)
    end = phase(reqs, T0 + 350.0, 32000, [0, 0, 0, 31744, 0, 0, 0, 0], 40)
    assert end < T0 + 480
    steps = sorted({round(x, 3) for r in reqs for x in [r.t_first] + [r.t_first + k * ITL for k in range(1, r.gen)]})
    # prefill chunk steps (8192 tokens each) between arrival and first token
    for r in reqs:
        n = int((r.t_first - r.t_sched) / (8192 / RATE))
        steps.extend(round(r.t_sched + (j + 1) * 8192 / RATE, 3) for j in range(n))
    steps = sorted(set(steps))
    cc = {"block_size": str(BLOCK), "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.835", "is_attention_free": "False",
          "num_cpu_blocks": "None", "num_gpu_blocks": "4320", "num_gpu_blocks_override": "None",
          "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=POOL, block_size=BLOCK, max_model_len=1048576,
                   reqs=reqs, step_times=steps, created=START + 200.0, cc_labels=cc)
    cache: dict = {}
    scrapes = [(T0 + k * 10.0, sim.scrape(e, T0 + k * 10.0, cache)) for k in range(61)]
    pid = 1
    def L(tt, ref, msg, who="APIServer", p=pid, lvl="INFO"):
        return (tt, f"({who} pid={p}) {lvl} {sim.ts(tt)} [{ref}] {msg}")
    core = dict(who="EngineCore_DP0", p=288)
    logs = [
        L(START, "api_server.py:1885", "vLLM API server version 0.25.2.dev0"),
        L(START + 150.0, "kv_cache_utils.py:1087", "GPU KV cache size: 1,105,920 tokens", **core),
        L(START + 150.0, "kv_cache_utils.py:1091", "Maximum concurrency for 1,048,576 tokens per request: 1.05x", **core),
        L(START + 200.0, "api_server.py:1957", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    a = T0 + 0.5
    while a + 10.0 <= T0 + 600.0:
        b = a + 10.0
        if any(r.t_arr <= b and r.t_end > a for r in reqs) or any(a - 10.0 < r.t_end <= a for r in reqs):
            logs.append((b, sim.stats_line(e, a, b, pid, ref="loggers.py:236")))
        a = b
    args = {"argv": None, "args": {"model": "deepseek-ai/DeepSeek-V4-Flash", "served-model-name": MODEL,
                                   "tensor-parallel-size": 2, "max-model-len": 1048576, "block-size": 256,
                                   "enable-prefix-caching": True, "gpu-memory-utilization": 0.835}}
    sim.write_bundle(OUT, scrapes=scrapes, interval=10.0, endpoint="http://spark-a:8000",
                     notes="prefix retention probe: 16K x 8 then 32K x 8, cold + 2 exact warm replays",
                     server=sim.server_json("0.25.2.dev0", MODEL, "deepseek-ai/DeepSeek-V4-Flash", 1048576, int(START + 200)),
                     engine_args=args, model_config=None, gpu=None, logs=logs)
    q = sum(r.prompt for r in reqs); h = sum(r.cached for r in reqs)
    print("queries", q, "hits", h, round(h / q, 4), "end", end - T0)
    for i in range(0, 48, 8):
        g = reqs[i:i + 8]
        print(i // 8, g[0].prompt, sum(r.cached for r in g), round(max(r.t_first - r.t_arr for r in g), 1))


if __name__ == "__main__":
    main()
