"""Writer zzm's cases (round 15): builds cases/zzm-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzm/cases.py
gen.py is zzl's (zzg's) builder copied unchanged. Seeded, no wall clock. Numbers not quoted are under `assumed:`.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB, MiB = 1024 ** 3, 1024 ** 2
ts = gen.ts
V1T = "b-hybrid-qwen35-block528"


def utc(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def args_of(argv):
    a, i = {}, 2
    while i < len(argv):
        k = argv[i][2:]
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            v = argv[i + 1]
            for cast in (int, float):
                try:
                    v = cast(v); break
                except ValueError:
                    pass
            a[k] = v; i += 2
        else:
            a[k] = True; i += 1
    return a


def common_logs(c, pid, version, root, nondefault, blocks, block, extra):
    s = c.start - 420
    L = [(s, f"INFO {ts(s)} [__init__.py:216] Automatically detected platform cuda."),
         (s + 2, f"(APIServer pid={pid}) INFO {ts(s + 2)} [api_server.py:1947] vLLM API server version {version}"),
         (s + 2.1, f"(APIServer pid={pid}) INFO {ts(s + 2)} [utils.py:299] non-default args: {nondefault}")]
    L += [(s + 10 + i * 0.1, f"(APIServer pid={pid}) INFO {ts(s + 10)} {x}") for i, x in enumerate(extra)]
    t = s + 200
    L += [(t, f"(EngineCore_DP0 pid={pid + 300}) INFO {ts(t)} [kv_cache_utils.py:1291] GPU KV cache size: {blocks * block:,} tokens"),
          (t + .1, f"(EngineCore_DP0 pid={pid + 300}) INFO {ts(t)} [kv_cache_utils.py:1296] Maximum concurrency for {c.max_model_len:,} tokens per request: {blocks * block / c.max_model_len:.2f}x"),
          (t + 60, f"(APIServer pid={pid}) INFO {ts(t + 60)} [loggers.py:176] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
          (t + 61, f"(APIServer pid={pid}) INFO {ts(t + 61)} [api_server.py:2040] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


def finish(c, pid, logs, served, root, version, argv, notes, gpu, mc=None, prompts=None, path="/v1/chat/completions"):
    logs = logs + gen.stats_lines(c, c.start - 60, c.start + (c.n_scrapes - 1) * c.interval, pid, "loggers.py:257")
    logs += gen.access_lines(c, pid, path)
    out = ROOT / "cases" / c.cid / "bundle"
    gen.write(c, out, server=gen.server_json(version, served, root, c.max_model_len, int(c.start - 150)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes=notes, endpoint="http://vllm:8000")
    if prompts is not None:
        (ROOT / "cases" / c.cid / "prompts.jsonl").write_text("".join(json.dumps(p) + "\n" for p in prompts))


WORDS = ("repo file patch test build lint diff branch commit module function class import return value error "
         "trace config option path cache token block layer shell command output result status check").split()


def text(rnd, n):
    return " ".join(rnd.choice(WORDS) for _ in range(n))


# ------------------------------------------------ 1: Reederey87/glm53-flash-exl3-2x-dgx-spark#16 (dev-15)
def glm53():
    cid = "zzm-glm53-hybrid-block3584"
    rnd = random.Random(16)
    t0 = utc(2026, 8, 31, 14, 0, 0)
    interval, n = 10.0, 61
    block, blocks = 3584, 64
    reqs, t, rid = [], t0 - 40, 0
    while t < t0 + 595:
        t += rnd.uniform(6.5, 9.5)
        reqs.append(Req(rid, t, rnd.randint(700, 1150), 0, rnd.randint(80, 220), 2048)); rid += 1
    root = "/models/GLM-5.3-Flash-EXL3"
    c = Case(cid=cid, version="0.1.dev20051+g487ecf187", v0=False, model_name="glm53-flash", model_root=root, max_model_len=65536,
             start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V1T, block_size=str(block), mamba_block_size=str(block), num_gpu_blocks=str(blocks),
                                   gpu_memory_utilization="0.85", mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto"),
             pool_tokens=blocks * block, block_size=block, max_num_seqs=32, tmpl=V1T)
    gen.simulate(c, reqs, lambda k: 0.045 + 0.002 * k, lambda r, k: r.prompt / 820.0, gen_reserve=False)
    argv = ["vllm", "serve", root, "--served-model-name", "glm53-flash", "--tensor-parallel-size", "2", "--max-model-len", "65536",
            "--gpu-memory-utilization", "0.85", "--enable-prefix-caching", "--trust-remote-code"]
    pid = 1184
    logs = common_logs(c, pid, c.version, root,
                       "{'model_tag': '%s', 'model': '%s', 'trust_remote_code': True, 'max_model_len': 65536, 'served_model_name': ['glm53-flash'], 'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.85, 'enable_prefix_caching': True}" % (root, root),
                       blocks, block,
                       ["[model.py:1677] Using max model len 65536",
                        f"[interface.py:928] Setting attention block size to {block} tokens to ensure that attention page size is >= mamba page size.",
                        "[interface.py:952] Padding mamba page size by 1.12% to ensure that mamba page size and attention page size are exactly equal."])
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA GB10", "memory_total": 128 * GiB - 2 * GiB, "memory_used": 104 * GiB,
                               "processes": [{"pid": pid + 300, "name": "VLLM::Worker_TP0", "used_memory": 101 * GiB}]}])
    sysp = text(random.Random(7), 470)
    prompts = []
    pr = random.Random(161)
    for k in range(24):
        prompts.append({"messages": [{"role": "system", "content": "You are a coding agent working in the user's repository. Tools: read_file, write_file, run_shell, search. " + sysp},
                                     {"role": "user", "content": text(pr, pr.randint(60, 380))}]})
        if k % 6 == 5:
            prompts.append(prompts[-1])  # byte-identical repeat
    finish(c, pid, logs, "glm53-flash", root, c.version, argv,
           "Rank-0 node of a TP2 pair of DGX Spark boxes; short-turn coding agent (~900 tokens a turn) with prefix caching on. Operator: prefix_cache_hits stays 0 even for byte-identical repeated prompts.",
           gpu, prompts=prompts)


# ------------------------------------------------ 2: vllm-project/vllm#51771 (holdout-15)
def dsv4_dspark():
    cid = "zzm-dsv4-dspark-eagle-drop"
    rnd = random.Random(51771)
    t0 = utc(2026, 8, 11, 9, 30, 0)
    interval, n = 10.0, 61
    block, blocks = 256, 2600
    reqs, t, rid = [], t0 - 60, 0
    nxt_ctl = t0 - 30
    while t < t0 + 590:
        t += rnd.uniform(13.0, 17.0)
        reqs.append(Req(rid, t, 44032 + rnd.randint(150, 600), 0, rnd.randint(150, 400), 1024)); rid += 1
        if t > nxt_ctl:
            reqs.append(Req(rid, t + 4.0, rnd.randint(11800, 12300), 0, rnd.randint(150, 400), 1024)); rid += 1
            nxt_ctl += 60
    root = "deepseek-ai/DeepSeek-V4-Flash"
    c = Case(cid=cid, version="0.27.1.dev412+g5c1e0a7d2", v0=False, model_name=root, model_root=root, max_model_len=131072,
             start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V1T, block_size=str(block), mamba_block_size="None", mamba_cache_mode="none", mamba_page_size_padded="None",
                                   mamba_ssm_cache_dtype="auto", num_gpu_blocks=str(blocks), cache_dtype="fp8", gpu_memory_utilization="0.9",
                                   user_specified_block_size="True"),
             pool_tokens=blocks * block, block_size=block, max_num_seqs=64, tmpl=V1T,
             spec_k=3, spec_pos_rates=[0.70, 0.44, 0.24])
    for r in reqs:
        r.tps = 2.38
    gen.simulate(c, reqs, lambda k: 0.034 + 0.001 * k,
                 lambda r, k: (12.36 if r.prompt > 40000 else 3.50) * rnd.uniform(0.97, 1.03), gen_reserve=False)
    spec = '{"method": "dspark", "num_speculative_tokens": 3}'
    argv = ["vllm", "serve", root, "--tensor-parallel-size", "4", "--kv-cache-dtype", "fp8", "--block-size", "256", "--max-model-len", "131072",
            "--enable-prefix-caching", "--trust-remote-code", "--tokenizer-mode", "deepseek_v4", "--speculative-config", spec]
    pid = 2210
    logs = common_logs(c, pid, c.version, root,
                       "{'model_tag': '%s', 'model': '%s', 'trust_remote_code': True, 'tokenizer_mode': 'deepseek_v4', 'max_model_len': 131072, 'tensor_parallel_size': 4, 'block_size': 256, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, 'speculative_config': %s}" % (root, root, spec),
                       blocks, block,
                       ["[model.py:552] Resolved architecture: DeepseekV4ForCausalLM",
                        "[speculative.py:611] Using DSpark speculative decoding with 3 speculative tokens.",
                        "[kv_cache_utils.py:1012] Hybrid KV cache manager: 4 KV cache groups (FullAttentionSpec block_size=256, SlidingWindowSpec block_size=64, SlidingWindowSpec block_size=4, SlidingWindowSpec block_size=8)"])
    used = 128 * GiB
    gpu = gen.gpu_samples(c, [{"index": i, "name": "NVIDIA H200", "memory_total": 143771 * MiB, "memory_used": used + 600 * MiB,
                               "processes": [{"pid": pid + 300 + i, "name": f"VLLM::Worker_TP{i}", "used_memory": used}]} for i in range(4)])
    finish(c, pid, logs, root, root, c.version, argv,
           "DeepSeek-V4-Flash with DSpark speculative decoding; benchmark repeats a long shared prefix (~44k tokens) with a short unique question, plus a ~12k-token control without shared prefix every minute.",
           gpu, path="/v1/completions")


# ------------------------------------------------ 3: vllm-project/vllm-ascend#8977 (holdout-15)
def dsv4_ascend():
    cid = "zzm-dsv4-ascend-prefix2000"
    rnd = random.Random(8977)
    t0 = utc(2026, 5, 8, 6, 0, 0)
    interval, n = 10.0, 31
    block, blocks = 128, 9800
    reqs, rid = [], 0
    for run_start in (t0 + 15, t0 + 105, t0 + 195):
        # 32 requests, 8 in flight: client sends the next when one finishes; approximate with waves
        for w in range(4):
            for j in range(8):
                reqs.append(Req(rid, run_start + w * 11.5 + j * 0.05, 2000 + 500 + rnd.randint(8, 14), 0, 50, 50, "length")); rid += 1
    root = "/models/DeepSeek-V4-Flash"
    c = Case(cid=cid, version="0.18.0", v0=False, model_name="dsv4", model_root=root, max_model_len=32768,
             start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V1T, block_size=str(block), mamba_block_size="None", mamba_cache_mode="none", mamba_page_size_padded="None",
                                   mamba_ssm_cache_dtype="auto", num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9"),
             pool_tokens=blocks * block, block_size=block, max_num_seqs=16, tmpl=V1T)
    gen.simulate(c, reqs, lambda k: 0.12 + 0.006 * k, lambda r, k: 0.9 + 0.35 * k * rnd.uniform(0.9, 1.1), gen_reserve=True)
    argv = ["vllm", "serve", root, "--served-model-name", "dsv4", "--tensor-parallel-size", "8", "--enable-expert-parallel",
            "--max-model-len", "32768", "--max-num-seqs", "16", "--tokenizer-mode", "deepseek_v4", "--trust-remote-code", "--enable-prefix-caching"]
    pid = 3120
    logs = common_logs(c, pid, c.version, root,
                       "{'model_tag': '%s', 'model': '%s', 'trust_remote_code': True, 'tokenizer_mode': 'deepseek_v4', 'max_model_len': 32768, 'served_model_name': ['dsv4'], 'tensor_parallel_size': 8, 'enable_expert_parallel': True, 'max_num_seqs': 16, 'enable_prefix_caching': True}" % (root, root),
                       blocks, block, ["[model.py:552] Resolved architecture: DeepseekV4ForCausalLM", "[model.py:1677] Using max model len 32768"])
    logs[0] = (logs[0][0], logs[0][1].replace("Automatically detected platform cuda.", "Platform plugin ascend is activated"))
    finish(c, pid, logs, "dsv4", root, c.version, argv,
           "Atlas A2 node, 8 NPUs (no NVML). evalscope perf --parallel 8 --number 32 --prefix-length 2000 --min/max-prompt-length 500 --max-tokens 50, run three times; prefix cache hit stays 0.",
           [])


# ------------------------------------------------ 4: syv-ai/qwen38-27b-rtx3090#102 (holdout-15)
def qwen38():
    cid = "zzm-qwen38-3090-block448"
    rnd = random.Random(102)
    t0 = utc(2026, 9, 13, 18, 0, 0)
    interval, n = 10.0, 61
    block, blocks = 448, 52
    B = block
    reqs, rid = [], 0
    sys_len = 1300
    for s in range(6):
        t = t0 - 90 + s * 17 + rnd.uniform(0, 10)
        first_session = True
        while t < t0 + 600:
            hist = sys_len + rnd.randint(100, 250)
            prev_total = None
            while t < t0 + 600 and hist < 4400:
                prompt = hist
                if prev_total is None:
                    cached = 0 if (s == 0 and first_session) else max(0, (sys_len // B - 1) * B)
                else:
                    cached = max(0, (min(prev_total, prompt) // B - 1) * B)
                out = rnd.randint(60, 250)
                reqs.append(Req(rid, t, prompt, cached, out, 2048)); rid += 1
                prev_total = prompt + out
                hist = prompt + out + rnd.randint(150, 350)
                t += rnd.uniform(24, 40)
            first_session = False
            t += rnd.uniform(10, 30)
    root = "Qwen/Qwen3.8-27B"
    c = Case(cid=cid, version="0.29.0", v0=False, model_name="qwen3.8-27b", model_root=root, max_model_len=16384,
             start=t0, n_scrapes=n, interval=interval,
             labels_cc=gen.tmpl_cc(V1T, block_size=str(block), mamba_block_size=str(block), num_gpu_blocks=str(blocks),
                                   gpu_memory_utilization="0.94"),
             pool_tokens=blocks * block, block_size=block, max_num_seqs=8, tmpl=V1T, spec_k=7,
             spec_pos_rates=[0.78, 0.6, 0.45, 0.33, 0.24, 0.17, 0.12])
    for r in reqs:
        r.tps = 1 + sum(c.spec_pos_rates)
    gen.simulate(c, reqs, lambda k: 0.040 + 0.006 * k, lambda r, k: (r.prompt - r.cached) / 1900.0 + 0.08, gen_reserve=False)
    spec = '{"method": "dflash", "num_speculative_tokens": 7}'
    argv = ["vllm", "serve", root, "--served-model-name", "qwen3.8-27b", "--max-model-len", "16384", "--gpu-memory-utilization", "0.94",
            "--max-num-seqs", "8", "--enable-prefix-caching", "--mamba-cache-mode", "align", "--speculative-config", spec]
    pid = 911
    logs = common_logs(c, pid, c.version, root,
                       "{'model_tag': '%s', 'model': '%s', 'max_model_len': 16384, 'served_model_name': ['qwen3.8-27b'], 'gpu_memory_utilization': 0.94, 'max_num_seqs': 8, 'enable_prefix_caching': True, 'mamba_cache_mode': 'align', 'speculative_config': %s}" % (root, root, spec),
                       blocks, block,
                       ["[model.py:552] Resolved architecture: Qwen3_5ForConditionalGeneration",
                        f"[config.py:281] Setting attention block size to {block} tokens to ensure that attention page size is >= mamba page size.",
                        "[config.py:305] Padding mamba page size by 3.23% to ensure that mamba page size and attention page size are exactly equal."])
    used = 22400 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": 24576 * MiB, "memory_used": used + 380 * MiB,
                               "processes": [{"pid": pid + 300, "name": "VLLM::EngineCore", "used_memory": used}]}])
    finish(c, pid, logs, "qwen3.8-27b", root, c.version, argv,
           "Single RTX 3090, launcher profile CTX=fast SPEC=dflash2 DFLASH_TOKENS=7 PREFIX_CACHE=1; multi-turn coding-agent sessions that re-send their history every turn.",
           gpu)


if __name__ == "__main__":
    for f in (glm53, dsv4_dspark, dsv4_ascend, qwen38):
        f()
        print("built", f.__name__)
