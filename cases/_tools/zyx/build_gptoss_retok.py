"""zyx-gptoss-text-append-retokenized: multi-turn text-append; generated segments never hit (inference-perf#649)."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "zyx-gptoss-text-append-retokenized"
T0 = 1784376000.0   # 2026-07-18 12:00:00 UTC
START = T0 - 2400.0
MODEL = "openai/gpt-oss-120b"
VER = "0.23.1rc1.dev88+g5e3b1c7a2"
BS, POOL, MML = 64, 181376, 32768
PREFILL, ITL = 9000.0, 0.011


def main() -> None:
    rng = random.Random(649)
    reqs, convs = [], []
    rid = 0
    for slot in range(8):
        t = T0 - 60.0 + slot * 4.1
        first_conv = True
        while t < T0 + 600.0:
            p1 = 5047 if (slot == 0 and first_conv) else rng.randrange(4900, 5200)
            prev_prompt, turns = None, []
            for k in range(5):
                if k == 0:
                    prompt, hit = p1, 0
                else:
                    ans_tok = turns[-1][1]
                    if slot == 0 and first_conv and k == 1:
                        prompt = 5753
                    else:
                        prompt = prev_prompt + ans_tok + rng.randrange(-8, 9) + 6
                    hit = (prev_prompt - 1) // BS * BS
                gen = 706 if (slot == 0 and first_conv and k == 0) else rng.randrange(680, 761)
                r = sim.Req(rid=rid, t_arr=t, prompt=prompt, gen=gen, max_tokens=800, itl=ITL)
                r.t_sched = t + 0.003
                r.t_first = r.t_sched + 0.03 + (prompt - hit) / PREFILL
                r.cached = hit
                reqs.append(r)
                turns.append((prompt, gen, hit))
                rid += 1
                prev_prompt = prompt
                t = r.t_end + 0.05
            convs.append(turns)
            first_conv = False
    cc = {"_block_size_resolved": "True", "block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False",
          "enable_prefix_caching": "True", "gpu_memory_utilization": "0.95", "hash_block_size": "None",
          "is_attention_free": "False", "kv_cache_memory_bytes": "None", "kv_sharing_fast_prefill": "False",
          "mamba_block_size": "None", "mamba_cache_dtype": "auto", "mamba_cache_mode": "none", "num_cpu_blocks": "None",
          "num_gpu_blocks": "5668", "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "sha256",
          "sliding_window": "128", "user_specified_block_size": "True"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=POOL, block_size=BS, max_model_len=MML, reqs=reqs,
                   step_times=sim.steps_for(reqs), created=START + 700.0, cc_labels=cc)
    cache: dict = {}
    scr = [(T0 + k * 10.0, sim.scrape_v2(e, T0 + k * 10.0, cache)) for k in range(61)]

    def L(tt, lvl, ref, msg, who="APIServer", pid=1):
        return (tt, f"({who} pid={pid}) {lvl} {sim.ts(tt)} [{ref}] {msg}")
    core = dict(who="EngineCore_DP0", pid=97)
    logs = [
        L(START + 2, "INFO", "api_server.py:1885", f"vLLM API server version {VER}"),
        L(START + 2, "INFO", "utils.py:299", f"non-default args: {{'model_tag': '{MODEL}', 'model': '{MODEL}', 'max_model_len': 32768, 'block_size': 64, 'gpu_memory_utilization': 0.95, 'enable_prefix_caching': True}}"),
        L(START + 300, "INFO", "gpu_model_runner.py:3120", "Model loading took 60.8163 GiB and 251.662040 seconds", **core),
        L(START + 360, "INFO", "gpu_worker.py:391", "Available KV cache memory: 11.08 GiB", **core),
        L(START + 360.2, "INFO", "kv_cache_utils.py:1229", f"GPU KV cache size: {POOL:,} tokens", **core),
        L(START + 360.2, "INFO", "kv_cache_utils.py:1234", "Maximum concurrency for 32,768 tokens per request: 10.87x", **core),
        L(START + 700, "INFO", "api_server.py:1957", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    logs += sim.stats_logs(e, T0, T0 + 600.0, 1, "loggers.py:257")
    cfg = {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880, "num_hidden_layers": 36,
           "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "sliding_window": 128,
           "layer_types": ["sliding_attention", "full_attention"] * 18, "num_local_experts": 128,
           "num_experts_per_tok": 4, "intermediate_size": 2880, "vocab_size": 201088, "max_position_embeddings": 131072,
           "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "mxfp4"}}
    args = {"argv": ["vllm", "serve", MODEL, "--max-model-len", "32768", "--block-size", "64", "--gpu-memory-utilization", "0.95", "--enable-prefix-caching"],
            "args": {"model": MODEL, "max-model-len": 32768, "block-size": 64, "gpu-memory-utilization": 0.95, "enable-prefix-caching": True}}
    gpu = [{"t": T0 + k * 10.0, "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": 85520809984,
            "memory_used": 81810128896, "processes": [{"pid": 97, "name": "VLLM::EngineCore", "used_memory": 81273257984}]}]}
           for k in range(61)]
    sim.write_bundle(CASE / "bundle", scrapes=scr, interval=10.0, endpoint="http://vllm-0.bench:8000", notes="inference-perf multi-turn (text append over /v1/completions), 8 concurrent conversations",
                     server=sim.server_json(VER, MODEL, MODEL, MML, int(START + 700)), engine_args=args, model_config=cfg, gpu=gpu, logs=logs)
    # prompt sample: two conversations, five turns each, text append
    words = ("the quarterly report lists revenue by region and the analyst notes that margins improved while costs "
             "in logistics rose sharply during the second half because of fuel prices and new contracts").split()
    def text(n):
        return " ".join(rng.choice(words) for _ in range(int(n * 0.78)))
    lines = []
    for c in range(2):
        P = "Context document:\n" + text(5030)
        cur = P + " Q1:"
        for k in range(5):
            lines.append(json.dumps({"prompt": cur}))
            cur = cur + " " + text(715) + f" Q{k + 2}:"
    (CASE / "prompts.jsonl").write_text("\n".join(lines) + "\n")
    w = [r for r in reqs if T0 < r.t_first <= T0 + 600]
    q, h = sum(r.prompt for r in w), sum(r.cached for r in w)
    print("window reqs", len(w), "queries", q, "hits", h, "rate %.3f" % (h / q), "conv0", convs[0])
    usage = max(sim.state(e, T0 + k * 10.0)["usage"] for k in range(61))
    print("max usage %.3f" % usage)


if __name__ == "__main__":
    main()
