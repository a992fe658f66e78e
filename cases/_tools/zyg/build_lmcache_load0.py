"""zyg-lmcache-tp4-repeat-load0: same 26-token completions request 8 times; LMCache stores, never loads."""
from __future__ import annotations

import datetime as dt
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sim  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "zyg-lmcache-tp4-repeat-load0"
OUT = CASE / "bundle"

T0 = 1768644000.0          # 2026-01-17 10:00:00 UTC
START = T0 - 420.0
MODEL = "Qwen2.5-14B-Instruct"
PROMPT = ("Qwen3 is the latest generation of large language models in Qwen series, offering a comprehensive "
          "suite of dense and mixture-of-experts")
PLEN = 26
GEN = 100
ITL = 0.021
TTFT = 0.048


def lm_ts(t: float) -> str:
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S,") + f"{int(d.microsecond / 1000):03d}"


def main() -> None:
    rng = random.Random(2426)
    reqs, logs = [], []
    for i in range(8):
        t = T0 + 20.0 + 30.0 * i + rng.uniform(0, 4)
        r = sim.Req(rid=i, t_arr=t, prompt=PLEN, gen=GEN, max_tokens=GEN, itl=ITL)
        r.t_sched = t + 0.002
        r.t_first = t + TTFT
        reqs.append(r)
        rid = f"cmpl-{rng.getrandbits(128):032x}-0"
        logs.append((t + 0.001, f"(APIServer pid=1) INFO {sim.ts(t)} [logger.py:71] Received request {rid}: params: SamplingParams(n=1, temperature=0.7, max_tokens=100), prompt_token_ids: [...], lora_request: None."))
        logs.append((t + 0.002, f"(EngineCore_DP0 pid=688) [{lm_ts(t + 0.002)}] LMCache INFO: Reqid: {rid}, Total tokens {PLEN}, LMCache hit tokens: 0, need to load: 0 (vllm_v1_adapter.py:1189:lmcache.integration.vllm.vllm_v1_adapter)"))
        for k in range(4):
            ts = t + TTFT - 0.004 + 0.0003 * k
            logs.append((ts, f"(Worker_TP{k} pid={712 + k}) [{lm_ts(ts)}] LMCache INFO: Storing KV cache for {PLEN} out of {PLEN} tokens (skip_leading_tokens=0) for request {rid} (vllm_v1_adapter.py:1045:lmcache.integration.vllm.vllm_v1_adapter)"))
    steps = sorted({round(x, 3) for r in reqs for x in [r.t_first] + [r.t_first + k * ITL for k in range(1, r.gen)]})
    cc = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
          "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
          "num_cpu_blocks": "None", "num_gpu_blocks": "16640", "num_gpu_blocks_override": "None",
          "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4"}
    e = sim.Engine(model_name=MODEL, engine="0", pool_tokens=16640 * 16, block_size=16, max_model_len=4196,
                   reqs=reqs, step_times=steps, created=START + 180.0, cc_labels=cc)
    cache: dict = {}
    texts = []
    for k in range(31):
        tt = T0 + k * 10.0
        txt = sim.scrape(e, tt, cache)
        # prefix caching is off: the engine reports no prefix-cache queries or hits at all
        out = []
        for ln in txt.splitlines():
            if ("prefix_cache_queries" in ln or "prefix_cache_hits" in ln) and not ln.startswith("#") and "_created" not in ln:
                name = ln.split("{")[0]
                ln = ln[:ln.rindex(" ")] + " 0.0"
            out.append(ln)
        texts.append((tt, "\n".join(out) + "\n"))
    logs += [
        (START, f"(APIServer pid=1) INFO {sim.ts(START)} [api_server.py:1896] vLLM API server version 0.10.2"),
        (START + 0.2, f"(APIServer pid=1) INFO {sim.ts(START + 0.2)} [utils.py:328] non-default args: {{'model_tag': '/root/vLLM/models/Qwen/Qwen2.5-14B-Instruct/', 'port': 8000, 'model': '/root/vLLM/models/Qwen/Qwen2.5-14B-Instruct/', 'trust_remote_code': True, 'max_model_len': 4196, 'served_model_name': ['Qwen2.5-14B-Instruct'], 'tensor_parallel_size': 4, 'enable_prefix_caching': False, 'kv_transfer_config': KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')}}"),
        (START + 180.0, f"(APIServer pid=1) INFO {sim.ts(START + 180.0)} [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    a = T0 + 0.5
    while a + 10.0 <= T0 + 300.0:
        b = a + 10.0
        if any(r.t_arr <= b and r.t_end > a for r in reqs) or any(a - 10.0 < r.t_end <= a for r in reqs):
            logs.append((b, sim.stats_line(e, a, b, 1, ref="loggers.py:123")))
        a = b
    args = {"argv": ["vllm", "serve", "/root/vLLM/models/Qwen/Qwen2.5-14B-Instruct/", "--tensor-parallel-size", "4",
                     "--served-model-name", MODEL, "--max-model-len", "4196", "--port", "8000", "--trust-remote-code",
                     "--no-enable-prefix-caching", "--kv-transfer-config",
                     "{\"kv_connector\":\"LMCacheConnectorV1\", \"kv_role\":\"kv_both\"}"],
            "args": {"tensor-parallel-size": 4, "max-model-len": 4196, "enable-prefix-caching": False,
                     "kv-transfer-config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}}}
    cfg = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 13824,
           "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "max_position_embeddings": 32768,
           "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "use_sliding_window": False,
           "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 152064}
    sim.write_bundle(OUT, scrapes=texts, interval=10.0, endpoint="http://localhost:8000",
                     notes="LMCache repeat test: same completions request x8",
                     server=sim.server_json("0.10.2", MODEL, "/root/vLLM/models/Qwen/Qwen2.5-14B-Instruct/", 4196, int(START + 180)),
                     engine_args=args, model_config=cfg, gpu=None, logs=logs)
    with open(CASE / "prompts.jsonl", "w") as f:
        for _ in range(8):
            f.write(json.dumps({"prompt": PROMPT}) + "\n")
    print("reqs", len(reqs), "prompt tokens", sum(r.prompt for r in reqs), "end", round(max(r.t_end for r in reqs) - T0, 1))


if __name__ == "__main__":
    main()
