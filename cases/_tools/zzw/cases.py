"""Writer zzw's four cases (round 17). Run: /work/main/.venv/bin/python cases/_tools/zzw/cases.py"""
import math, random, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from gen import build

H100 = ("NVIDIA H100 80GB HBM3", 85520809984)
TOPICS = ["a leaking kitchen faucet", "the French revolution", "binary search trees", "sourdough starters", "tax brackets in Canada",
          "the Krebs cycle", "writing a cover letter", "TCP congestion control", "Roman aqueducts", "training for a marathon",
          "the Monty Hall problem", "Rust lifetimes", "composting in apartments", "the causes of inflation", "a haiku about autumn",
          "SQL window functions", "how vaccines work", "choosing a used car", "the plot of Hamlet", "Kubernetes liveness probes"]


def words(rng, n):
    w = ["data", "please", "explain", "why", "step", "example", "between", "detail", "simple", "compare", "list", "reason", "short", "code", "history"]
    return " ".join(rng.choice(w) for _ in range(n))


def block784():
    SYS = ("You are Atlas, the support assistant for Northwind Logistics. Answer in the customer's language, cite the order id when "
           "one is given, never promise delivery dates, escalate refunds above 500 EUR to a human, and keep answers under 150 words. ") * 4
    rng = random.Random(7841)
    prompts = []
    for i in range(60):
        u = f"Order NW-{rng.randint(100000, 999999)}: " + words(rng, rng.randint(110, 380))
        prompts.append({"messages": [{"role": "system", "content": SYS.strip()}, {"role": "user", "content": u}]})

    def mk(rng, t):
        p = 240 + rng.randint(150, 500)
        return {"prompt": p, "cached": 0, "gen": rng.randint(60, 220), "max_tokens": 512}
    start = 1788339600.0  # 2026-09-02 09:00 UTC
    pool_blocks = 1536
    cc = {"block_size": "784", "cache_dtype": "auto", "calculate_kv_scales": "False", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.9", "is_attention_free": "False", "mamba_cache_mode": "align", "num_cpu_blocks": "None",
          "num_gpu_blocks": str(pool_blocks), "prefix_caching_hash_algo": "sha256", "prefix_match_unit": "None", "sliding_window": "None", "swap_space": "4"}
    build(dict(id="zzw-block784-prefix240", seed=1, start=start, interval=10, n=61, model="hybrid-9b-chat", engine="0",
               max_model_len=32768, rate=2.0, mk_req=mk, ttft_fn=lambda r: 0.035 + r["prompt"] / 18000, tpot=0.011,
               kv_usage_fn=lambda t, run: min(1, sum(math.ceil((r["prompt"] + r["gen"]) / 784) for r in run) / pool_blocks),
               cc_labels=cc, version="0.27.1", endpoint="http://support-llm:8000",
               log_prefix="(EngineCore_DP0 pid=412) ", log_line=196,
               log_head=[f"(EngineCore_DP0 pid=412) INFO 09-02 08:41:12 [loggers.py:213] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {pool_blocks}"],
               engine_args={"argv": ["vllm", "serve", "/models/hybrid-9b-chat", "--served-model-name", "hybrid-9b-chat", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9", "--enable-prefix-caching"],
                            "args": {"served-model-name": "hybrid-9b-chat", "max-model-len": 32768, "gpu-memory-utilization": 0.9, "enable-prefix-caching": True}},
               notes="support assistant; every request starts with the same ~240-token system prompt. Operator complaint: prefix cache hit rate 0%.",
               gpu=(H100[0], H100[1], 77309411328), pid=412, prompts=prompts))


def dp8():
    SYS = ("You are a software engineering agent working in a sandboxed repository. Tools: bash(cmd), str_replace(path, old, new), "
           "view(path, range), submit(). Always run the tests before submitting. ") * 18
    rng = random.Random(8822)
    prompts = []
    for s in range(6):
        hist = [{"role": "system", "content": SYS.strip()}, {"role": "user", "content": f"Fix issue #{rng.randint(1000, 9999)} in repo r2e/{rng.choice(['sympy', 'pandas', 'requests', 'tornado'])}: " + words(rng, 120)}]
        for turn in range(rng.randint(3, 5)):
            prompts.append({"messages": [dict(m) for m in hist]})
            hist.append({"role": "assistant", "content": "bash(cmd=\"" + words(rng, 12) + "\")"})
            hist.append({"role": "tool", "content": words(rng, rng.randint(200, 500))})
    BS = 528; BASE = 3200

    def mk(rng, t):
        turn = rng.randint(1, 12)
        p = BASE + 900 * turn + rng.randint(0, 300)
        prev = p - 900
        same = turn > 1 and rng.random() < 1 / 8
        cached = (prev // BS) * BS if same else (BASE // BS) * BS
        return {"prompt": p, "cached": cached, "gen": rng.randint(80, 400), "max_tokens": 2048}
    start = 1781600400.0  # 2026-06-16 09:00 UTC
    pool = 1003200; nb = pool // BS
    cc = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": str(nb),
          "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    build(dict(id="zzw-dp8-session-scatter", seed=2, start=start, interval=10, n=61, model="Qwen/Qwen3.5-4B", engine="3",
               max_model_len=65536, rate=3.0, mk_req=mk, ttft_fn=lambda r: 0.04 + (r["prompt"] - r["cached"]) / 22000, tpot=0.014,
               kv_usage_fn=lambda t, run: min(1, sum(math.ceil((r["prompt"] + r["gen"]) / BS) for r in run) / nb),
               cc_labels=cc, version="0.20.1", endpoint="http://inference-1:8003",
               log_prefix="(EngineCore_DP3 pid=2291) ", log_line=194,
               log_head=[f"(EngineCore_DP3 pid=2291) INFO 06-16 08:52:40 [loggers.py:211] Engine 003: vllm cache_config_info with initialization after num_gpu_blocks is: {nb}"],
               engine_args={"argv": ["vllm", "serve", "Qwen/Qwen3.5-4B", "--data-parallel-size", "8", "--data-parallel-rank", "3", "--data-parallel-external-lb", "--port", "8003", "--max-model-len", "65536", "--enable-prefix-caching"],
                            "args": {"data-parallel-size": 8, "data-parallel-rank": 3, "data-parallel-external-lb": True, "max-model-len": 65536, "enable-prefix-caching": True}},
               notes="RL rollout engine, DP rank 3 of 8 (replica 1 of 2) behind vllm-router consistent_hash; clients send no request-id header. Agentic SWE rollouts (r2e-gym), multi-turn.",
               gpu=(H100[0], H100[1], 76235669504), pid=2291, prompts=prompts))


def sharegpt():
    rng = random.Random(5478)
    openers = ["Can you", "How do I", "What is", "Write", "Explain", "Why does", "Help me with", "Give me", "I need", "Tell me about", "Is it true that", "Compare"]
    prompts = []
    for i in range(80):
        prompts.append({"messages": [{"role": "user", "content": f"{rng.choice(openers)} {rng.choice(TOPICS)}? " + words(rng, rng.randint(8, 300))}]})

    def mk(rng, t):
        p = int(min(1024, max(12, rng.lognormvariate(4.6, 0.9))))
        g = int(min(1024, max(4, rng.lognormvariate(5.2, 0.8))))
        return {"prompt": p, "cached": 0, "gen": g, "max_tokens": g, "reason": "length"}
    start = 1788602400.0  # 2026-09-05 10:00 UTC
    BS = 512; nb = 9100
    cc = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.9", "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": str(nb),
          "prefix_caching_hash_algo": "sha256", "prefix_match_unit": "None", "sliding_window": "None", "swap_space": "4"}
    build(dict(id="zzw-sharegpt-single-turn", seed=3, start=start, interval=10, n=61, model="google/gemma-4-E2B-it", engine="0",
               max_model_len=8192, rate=4.0, mk_req=mk, ttft_fn=lambda r: 0.02 + r["prompt"] / 40000, tpot=0.008,
               kv_usage_fn=lambda t, run: min(1, sum(math.ceil((r["prompt"] + r["gen"]) / BS) for r in run) / nb),
               cc_labels=cc, version="0.27.1", endpoint="http://localhost:8000",
               log_prefix="(EngineCore_DP0 pid=1187) ", log_line=196,
               log_head=[f"(EngineCore_DP0 pid=1187) INFO 09-05 09:58:03 [loggers.py:213] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {nb}"],
               engine_args={"argv": ["vllm", "serve", "google/gemma-4-E2B-it", "--max-model-len", "8192", "--enable-prefix-caching"],
                            "args": {"max-model-len": 8192, "enable-prefix-caching": True}},
               notes="vllm bench serve --dataset-name sharegpt --num-prompts 2400 --request-rate 4 against this server; the prompt sample is the benchmark's dataset.",
               gpu=(H100[0], H100[1], 77846282240), pid=1187, prompts=prompts))


def geo3k():
    BS = 16; BASE = 1600
    state = {"k": 0}

    def mk(rng, t):
        turn = rng.randint(1, 5)
        p = BASE + 250 * (turn - 1) + rng.randint(0, 120)
        # round_robin over 4 engines: the previous turn is here 1 time in 4; the first-turn prefix
        # (system + image + question) is on every engine because GRPO sends each prompt n times.
        same = turn > 1 and rng.random() < 0.25
        # a new batch of rollout prompts arrives cold on every engine; warm phases follow (period ~20 min)
        warm = rng.random() < 0.58 + 0.48 * math.sin((t - start) / 190.0)
        cached = ((p - 250) // BS) * BS if same else (((BASE - 8) // BS) * BS if warm else 0)
        return {"prompt": p, "cached": min(cached, p - 1), "gen": rng.randint(100, 700), "max_tokens": 1024}
    start = 1780311600.0  # 2026-06-01 11:00 UTC
    nb = 52000; pool = nb * BS

    def usage(t, run):
        return min(1, 0.45 + 0.2 * math.sin((t - start) / 90.0) + sum(math.ceil((r["prompt"] + r["gen"]) / BS) for r in run) / nb * 0.3)
    cc = {"block_size": str(BS), "cache_dtype": "auto", "calculate_kv_scales": "False", "enable_prefix_caching": "True",
          "gpu_memory_utilization": "0.85", "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": str(nb),
          "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4"}
    build(dict(id="zzw-round-robin-geo3k", seed=4, start=start, interval=10, n=61, model="Qwen/Qwen2.5-VL-7B-Instruct", engine="0",
               max_model_len=16384, rate=2.5, mk_req=mk, ttft_fn=lambda r: 0.05 + (r["prompt"] - r["cached"]) / 15000, tpot=0.012,
               kv_usage_fn=usage, cc_labels=cc, version="0.22.0", endpoint="http://rollout-engine-2:8000",
               log_prefix="(EngineCore_DP0 pid=733) ", log_line=194,
               log_head=[f"(EngineCore_DP0 pid=733) INFO 06-01 10:51:27 [loggers.py:211] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {nb}"],
               engine_args={"argv": None, "args": {"max-model-len": 16384, "gpu-memory-utilization": 0.85, "enable-prefix-caching": True}},
               notes="rollout engine 2 of 4 behind vllm-router --policy round_robin; Geo3K VLM multi-turn GRPO rollouts.",
               gpu=(H100[0], H100[1], 73014444032), pid=733, prompts=None))


if __name__ == "__main__":
    block784(); dp8(); sharegpt(); geo3k()
