"""Writer zzq's cases (round 15): builds cases/zzq-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzq/cases.py
gen.py is zzl's (zzg's) builder copied unchanged. Seeded, no wall clock. Numbers not quoted are under `assumed:`.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB, MiB = 1024 ** 3, 1024 ** 2
ts = gen.ts
V18 = "b-cache-salt-per-user"               # vLLM 0.18.0 bundle: families / buckets
V28 = "a-max-num-seqs-100-piecewise-cliff"  # vLLM 0.28.0 bundle
V026 = "zzj-qwen72b-awq-a800-10854-prompt"  # vLLM 0.2.6 bundle
NIXL_T = "zh-nixl-3p1d-block16-descriptor-handover"


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


def qwen3_32b():
    return {"architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "bos_token_id": 151643, "eos_token_id": 151645,
            "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "intermediate_size": 25600, "max_position_embeddings": 40960,
            "max_window_layers": 64, "model_type": "qwen3", "num_attention_heads": 64, "num_hidden_layers": 64, "num_key_value_heads": 8,
            "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
            "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}


def v1_start_logs(s, root, version, nd, tp, blocks, mml, extra_nd="", api=1, core=211, pre_lines=()):
    pool = blocks * 16
    L = [(s, f"(APIServer pid={api}) INFO {ts(s)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version {version}"),
         (s + .1, f"(APIServer pid={api}) INFO {ts(s)} [utils.py:233] non-default args: {nd}"),
         (s + 9, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 9)} [core.py:93] Initializing a V1 LLM engine (v{version}) with config: model='{root}', "
                 f"speculative_config=None, tokenizer='{root}', dtype=torch.bfloat16, max_seq_len={mml}, tensor_parallel_size={tp}, pipeline_parallel_size=1, "
                 f"data_parallel_size=1, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda{extra_nd}")]
    L += list(pre_lines)
    L += [(s + 95, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 95)} [kv_cache_utils.py:1316] GPU KV cache size: {pool:,} tokens"),
          (s + 95.1, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 95)} [kv_cache_utils.py:1321] Maximum concurrency for {mml:,} tokens per request: {pool / mml:.2f}x"),
          (s + 130, f"(APIServer pid={api}) INFO {ts(s + 130)} [api_server.py:1860] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


def h100_pair(c, used_each, pid=211):
    devs = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "memory_total": 81559 * MiB, "memory_used": used_each + 540 * MiB,
             "processes": [{"pid": 400 + i, "name": "VLLM::Worker_TP%d" % i, "used_memory": used_each}]} for i in range(2)]
    return gen.gpu_samples(c, devs)


# ------------------------------------------------ 1: llm-d/llm-d#1096 (dev-15)
def itl_panel():
    cid = "zzq-itl-panel-deprecated-metric"
    t0 = utc(2026, 4, 7, 15, 20, 0)
    rnd = random.Random(1096)
    interval, n = 10.0, 61
    reqs, rid = [], 0
    for u in range(48):
        t = t0 - 90 + rnd.uniform(0, 30)
        while t < t0 + 620:
            p, g = rnd.randint(600, 2500), rnd.randint(150, 600)
            reqs.append(Req(rid, t, p, 0, g, 1024, "stop")); rid += 1
            t += 0.3 + g * 0.055 + rnd.uniform(1.0, 6.0)
    root = "Qwen/Qwen3-32B"
    blocks = 18944
    pool = blocks * 16
    cc = gen.tmpl_cc(V18, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), block_size="16", enable_prefix_caching="True")
    c = Case(cid=cid, version="0.18.0", v0=False, model_name=root, model_root=root, max_model_len=32768, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V18)
    gen.simulate(c, reqs, lambda k: rnd.uniform(0.042, 0.049) + 0.00035 * k, lambda r, k: 0.06 + r.prompt * 0.00009 + rnd.uniform(0.0, 0.05), gen_reserve=False)
    argv = ["vllm", "serve", root, "--tensor-parallel-size", "2", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9", "--port", "8000"]
    s = t0 - 5400
    nd = {"model_tag": root, "model": root, "max_model_len": 32768, "tensor_parallel_size": 2, "gpu_memory_utilization": 0.9}
    logs = v1_start_logs(s, root, "0.18.0", nd, 2, blocks, 32768, ", enable_prefix_caching=True, enable_chunked_prefill=True")
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, 1, "loggers.py:257")
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    gpu = h100_pair(c, 73_420 * MiB)
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.18.0", root, root, 32768, int(s + 130)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=qwen3_32b(), gpu=gpu, logs=logs,
              notes="llm-d inference-scheduling decode pod (namespace llmd-is). The Performance Dashboard's ITL panel is blank; captured to check whether the server is at fault.",
              endpoint="http://qwen3-32b-decode.llmd-is.svc:8000")


# ------------------------------------------------ 2: vllm#45211 (holdout-15)
def _nixl_fams():
    text = [json.loads(x) for x in (ROOT / "cases" / NIXL_T / "bundle" / "metrics.jsonl").read_text().splitlines() if '"text"' in x][-1]["text"]
    from prometheus_client.parser import text_string_to_metric_families
    helps = {}
    for ln in text.splitlines():
        if ln.startswith("# HELP ") and "nixl" in ln:
            nm, h = ln[7:].split(" ", 1)
            helps[nm] = h
    out = []
    for f in text_string_to_metric_families(text):
        if "nixl" not in f.name or f.name.endswith("_created"):
            continue
        les = sorted({float(s.labels["le"]) for s in f.samples if "le" in s.labels and s.labels["le"] != "+Inf"})
        expo = f.name + ("_total" if f.type == "counter" else "")
        out.append((f.name, f.type, helps.get(expo, helps.get(f.name, "")), les))
    return out


def nixl_pull():
    cid = "zzq-nixl-pull-post-decode-ttft"
    t0 = utc(2026, 9, 2, 9, 0, 0)
    rnd = random.Random(45211)
    interval, n = 10.0, 61
    reqs, t, rid = [], t0 - 60, 0
    while t < t0 + 610:
        t += rnd.expovariate(8.0)
        reqs.append(Req(rid, t, rnd.randint(2040, 2056), 0, 128, 128, "length")); rid += 1
    xfer = {}
    post = {}
    for r in reqs:
        post[r.rid] = max(0.018, rnd.gauss(0.036, 0.006))
        xfer[r.rid] = max(0.03, rnd.gauss(0.046, 0.007))
    root = "Qwen/Qwen3-32B"
    blocks = 18944
    pool = blocks * 16
    version = "0.28.1rc1.dev300+gd1e5e66ee"
    cc = gen.tmpl_cc(V28, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), block_size="16", enable_prefix_caching="False")
    for k in list(cc):
        if k == "kv_cache_size_tokens":
            cc[k] = str(pool)
        if k == "kv_cache_max_concurrency":
            cc[k] = f"{pool / 8192:.2f}"
    c = Case(cid=cid, version=version, v0=False, model_name=root, model_root=root, max_model_len=8192, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V28)

    def prefill(r, k):
        # wait for the next step boundary, post READs on the engine thread (queued behind other posts), transfer, then one step
        backlog = rnd.uniform(0.05, 0.30)
        return 0.03 + backlog + post[r.rid] + xfer[r.rid] + 0.034 + rnd.uniform(0.10, 0.30)
    gen.simulate(c, reqs, lambda k: rnd.uniform(0.031, 0.036), prefill, gen_reserve=False)
    nf = _nixl_fams()
    orig = gen.scrape

    def scrape(cc_, tt, created):
        text = orig(cc_, tt, created)
        first = [r for r in reqs if r.t_first <= tt]
        # decode computes only the last token locally; the rest arrives by KV transfer
        loc = len(first)
        ext = sum(r.prompt - 1 for r in first)
        text = re.sub(r'(vllm:prompt_tokens_by_source_total\{[^}]*source="local_compute"\}) \S+', lambda m: f"{m.group(1)} {float(loc)!r}", text)
        text = re.sub(r'(vllm:prompt_tokens_by_source_total\{[^}]*source="external_kv_transfer"\}) \S+', lambda m: f"{m.group(1)} {float(ext)!r}", text)
        text = re.sub(r'(vllm:external_prefix_cache_queries_total\{[^}]*\}) \S+', lambda m: f"{m.group(1)} {float(sum(r.prompt for r in first))!r}", text)
        text = re.sub(r'(vllm:external_prefix_cache_hits_total\{[^}]*\}) \S+', lambda m: f"{m.group(1)} {float(ext)!r}", text)
        text = re.sub(r'(vllm:request_prefill_kv_computed_tokens_sum\{[^}]*\}) \S+',
                      lambda m: m.group(1) + " " + repr(float(sum(1 for r in reqs if r.t_end <= tt))), text)
        base = {"engine": "0", "model_name": root}
        obs = {"vllm:nixl_xfer_time_seconds": [xfer[r.rid] for r in first], "vllm:nixl_post_time_seconds": [post[r.rid] for r in first],
               "vllm:nixl_bytes_transferred": [float(math.ceil(r.prompt / 16) * 16 * 131072) for r in first],
               "vllm:nixl_num_descriptors": [float(math.ceil(r.prompt / 16) * 128) for r in first]}
        out = []
        for name, ty, h, les in nf:
            expo = name + ("_total" if ty == "counter" else "")
            out += [f"# HELP {expo} {h}", f"# TYPE {expo} {ty}"]
            if ty == "histogram":
                gen._hist(out, name, base, obs.get(name, []), les)
            else:
                out.append(f"{expo}{{{gen._lab(base)}}} 0.0")
        i = text.index("# HELP vllm:cache_config_info")
        return text[:i] + "\n".join(out) + "\n" + text[i:]
    gen.scrape = scrape
    ktc = '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    argv = ["vllm", "serve", root, "--tensor-parallel-size", "2", "--max-model-len", "8192", "--gpu-memory-utilization", "0.9",
            "--no-enable-prefix-caching", "--port", "8200", "--kv-transfer-config", ktc]
    s = t0 - 1500
    nd = {"model_tag": root, "model": root, "port": 8200, "max_model_len": 8192, "tensor_parallel_size": 2, "enable_prefix_caching": False,
          "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}}
    pre = [(s + 30, f"(Worker_TP0 pid=402) INFO {ts(s + 30)} [factory.py:51] Creating v1 connector with name: NixlConnector and engine_id: 5b1e0c2a-9d0f-4f7e-a3c4-1d2e3f4a5b6c"),
           (s + 30.2, f"(Worker_TP0 pid=402) INFO {ts(s + 30)} [nixl_connector.py:812] Initializing NIXL wrapper"),
           (s + 30.3, f"(Worker_TP0 pid=402) INFO {ts(s + 30)} [nixl_connector.py:833] Initializing NIXL worker 5b1e0c2a-9d0f-4f7e-a3c4-1d2e3f4a5b6c"),
           (s + 96, f"(Worker_TP0 pid=402) INFO {ts(s + 96)} [nixl_connector.py:1402] Registering KV_Caches. use_mla: False, kv_buffer_device: cuda, use_host_buffer: False")]
    logs = v1_start_logs(s, root, version, nd, 2, blocks, 8192, ", enable_prefix_caching=False, enable_chunked_prefill=True", pre_lines=pre)
    # stats + KV transfer lines every 10 s
    t = t0 - 50
    pre_f = lambda x: [r for r in reqs if r.t_first <= x]
    while t <= t0 + (n - 1) * interval:
        a, b = t - 10, t
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        wait = sum(1 for r in reqs if r.t_arr <= b < r.t_sched) + sum(1 for r in reqs if r.t_sched <= b < r.t_first)
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        newr = [r for r in pre_f(b) if r.t_first > a]
        pt = sum(r.prompt for r in newr)
        blk = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
        logs.append((b, f"(APIServer pid=1) INFO {ts(b)} [loggers.py:259] Engine 000: Avg prompt throughput: {pt / 10:.1f} tokens/s, Avg generation throughput: {gt / 10:.1f} tokens/s, "
                        f"Running: {run} reqs, Waiting: {wait} reqs, GPU KV cache usage: {100 * blk * 16 / pool:.1f}%, Prefix cache hit rate: 0.0%, External prefix cache hit rate: {100.0 * (pt - len(newr)) / pt if pt else 0.0:.1f}%"))
        if newr:
            xs = sorted(xfer[r.rid] for r in newr); ps = sorted(post[r.rid] for r in newr)
            mb = sum(math.ceil(r.prompt / 16) * 16 * 131072 for r in newr) / len(newr) / 1e6
            logs.append((b + .001, f"(APIServer pid=1) INFO {ts(b)} [loggers.py:259] KV Transfer metrics: Num successful transfers={len(newr)}, Avg xfer time (ms)={1000 * sum(xs) / len(xs):.3f}, "
                                   f"P90 xfer time (ms)={1000 * xs[int(0.9 * (len(xs) - 1))]:.3f}, Avg post time (ms)={1000 * sum(ps) / len(ps):.3f}, P90 post time (ms)={1000 * ps[int(0.9 * (len(ps) - 1))]:.3f}, "
                                   f"Avg MB per transfer={mb:.3f}, Throughput (MB/s)={mb / (sum(xs) / len(xs)):.3f}, Avg number of descriptors={sum(math.ceil(r.prompt / 16) * 128 for r in newr) / len(newr):.1f}"))
        t += 10
    logs += [(r.t_arr + .002, f'(APIServer pid=1) INFO:     10.0.3.7:{40000 + r.rid % 20000} - "POST /v1/completions HTTP/1.1" 200 OK') for r in reqs]
    gpu = h100_pair(c, 73_460 * MiB)
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json(version, root, root, 8192, int(s + 130)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=qwen3_32b(), gpu=gpu, logs=logs,
              notes="Decode instance of a 1P1D NIXL (pull mode) pair, both TP=2 on one 8x H100 node; benchmark random 2048 in / 128 out at QPS 8 through the toy proxy. TTFT is the complaint.",
              endpoint="http://localhost:8200")
    gen.scrape = orig


# ------------------------------------------------ 3: vllm-ascend#16916 (holdout-15)
def mamba_align():
    cid = "zzq-mamba-align-prefill-serialize"
    t0 = utc(2026, 9, 19, 6, 0, 0)
    rnd = random.Random(16916)
    interval, n = 10.0, 61
    reqs, rid = [], 0
    tb = t0 - 120
    while tb < t0 + 600:
        for j in range(4):
            reqs.append(Req(rid, tb + j * 0.05, rnd.randint(10200, 10700), 0, rnd.randint(60, 128), 128, "stop")); rid += 1
        tb += rnd.uniform(55, 65)
    root = "Qwen/Qwen3.6-35B-A3B"
    mc = json.loads((ROOT / "cases" / "n-qwen36-35b-align-conc1-zero-hits" / "bundle" / "model_config.json").read_text())
    blocks = 61
    bs = 2048
    pool = blocks * bs
    cc = gen.tmpl_cc(V28, gpu_memory_utilization="0.9", num_gpu_blocks=str(blocks), block_size=str(bs), enable_prefix_caching="True",
                     mamba_cache_mode="align", mamba_block_size=str(bs), user_specified_block_size="False")
    for k in list(cc):
        if k == "kv_cache_size_tokens":
            cc[k] = str(pool)
        if k == "kv_cache_max_concurrency":
            cc[k] = f"{pool / 65536:.2f}"
    c = Case(cid=cid, version="0.28.0", v0=False, model_name=root, model_root=root, max_model_len=65536, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=bs, max_num_seqs=1, tmpl=V28)
    gen.simulate(c, reqs, lambda k: rnd.uniform(0.038, 0.043), lambda r, k: math.ceil(r.prompt / 2048) * rnd.uniform(1.17, 1.23), gen_reserve=False)

    def iters(cc_, tt):
        o = []
        for r in reqs:
            if r.t_sched <= tt:
                full = r.prompt // 2048
                steps_done = min(math.ceil(r.prompt / 2048), int((min(tt, r.t_first) - r.t_sched) / 1.2) + (1 if tt >= r.t_first else 0))
                o += [2048] * min(full, steps_done)
                if steps_done > full:
                    o.append(r.prompt - full * 2048)
                o += [1] * r.steps_by(tt)
        return o
    c.iter_fn = iters
    argv = ["vllm", "serve", root, "--tensor-parallel-size", "2", "--max-model-len", "65536", "--enable-prefix-caching", "--port", "8000"]
    s = t0 - 2400
    nd = {"model_tag": root, "model": root, "max_model_len": 65536, "tensor_parallel_size": 2, "enable_prefix_caching": True}
    logs = [(s, f"(APIServer pid=1) INFO {ts(s)} [utils.py:297]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.28.0"),
            (s + .1, f"(APIServer pid=1) INFO {ts(s)} [utils.py:233] non-default args: {nd}"),
            (s + 3, f"(APIServer pid=1) INFO {ts(s + 3)} [platform.py:183] Platform plugin ascend is activated"),
            (s + 5, f"(APIServer pid=1) INFO {ts(s + 5)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=2048."),
            (s + 5.1, f"(APIServer pid=1) INFO {ts(s + 5)} [config.py:312] Setting attention block size to {bs} tokens to ensure that attention page size is >= mamba page size."),
            (s + 5.2, f"(APIServer pid=1) INFO {ts(s + 5)} [config.py:332] Mamba cache mode is set to 'align' for {root} by default when prefix caching is enabled"),
            (s + 12, f"(EngineCore_DP0 pid=211) INFO {ts(s + 12)} [core.py:93] Initializing a V1 LLM engine (v0.28.0) with config: model='{root}', speculative_config=None, "
                     f"tokenizer='{root}', dtype=torch.bfloat16, max_seq_len=65536, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, quantization=None, "
                     f"enforce_eager=False, kv_cache_dtype=auto, device_config=npu, enable_prefix_caching=True, enable_chunked_prefill=True"),
            (s + 140, f"(EngineCore_DP0 pid=211) INFO {ts(s + 140)} [kv_cache_utils.py:1316] GPU KV cache size: {pool:,} tokens"),
            (s + 140.1, f"(EngineCore_DP0 pid=211) INFO {ts(s + 140)} [kv_cache_utils.py:1321] Maximum concurrency for 65,536 tokens per request: {pool / 65536 * 4:.2f}x"),
            (s + 200, f"(APIServer pid=1) INFO {ts(s + 200)} [api_server.py:1860] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, 1, "loggers.py:259")
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.28.0", root, root, 65536, int(s + 200)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=[], logs=logs,
              notes="vllm-ascend on two Ascend A3 64 GB chips (TP=2); RAG bursts of four ~10.5k-token prompts. Complaint: TTFT of later requests in each burst is tens of seconds. No NVML on this platform.",
              endpoint="http://rag-llm-a3:8000")


# ------------------------------------------------ 4: BerriAI/litellm#1148 (holdout-15)
def litellm_proxy():
    cid = "zzq-litellm-proxy-stream-chunks-healthy"
    t0 = utc(2023, 12, 15, 16, 0, 0)
    rnd = random.Random(1148)
    interval, n = 10.0, 61
    reqs, rid = [], 0
    for u in range(3):
        t = t0 - 60 + rnd.uniform(0, 20)
        while t < t0 + 610:
            p, g = rnd.randint(200, 1500), rnd.randint(100, 500)
            reqs.append(Req(rid, t, p, 0, g, 1024, "stop")); rid += 1
            t += 0.2 + g * 0.022 + rnd.uniform(8, 40)
    root = "mistralai/Mistral-7B-Instruct-v0.2"
    blocks = 2900
    pool = blocks * 16
    cc = {}  # 0.2.6 exports no vllm:cache_config_info; the family is stripped from each scrape below
    c = Case(cid=cid, version="0.2.6", v0=True, model_name=root, model_root=root, max_model_len=32768, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=V026)
    gen.simulate(c, reqs, lambda k: rnd.uniform(0.0212, 0.0226) + 0.0003 * k, lambda r, k: 0.03 + r.prompt * 0.00011 + rnd.uniform(0.0, 0.04), gen_reserve=False)
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", root, "--host", "0.0.0.0", "--port", "8000", "--gpu-memory-utilization", "0.9"]
    s = t0 - 7200
    logs = [(s, f"INFO {ts(s)} api_server.py:727] args: Namespace(host='0.0.0.0', port=8000, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], "
                f"allowed_headers=['*'], served_model_name=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, model='{root}', "
                f"tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', "
                f"max_model_len=None, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=1, max_parallel_loading_workers=None, block_size=16, seed=0, "
                f"swap_space=4, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, disable_log_stats=False, quantization=None, "
                f"enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, engine_use_ray=False, disable_log_requests=True, max_log_len=None)"),
            (s + 2, f"INFO {ts(s + 2)} llm_engine.py:73] Initializing an LLM engine with config: model='{root}', tokenizer='{root}', tokenizer_mode=auto, revision=None, "
                    f"tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=auto, tensor_parallel_size=1, "
                    f"quantization=None, enforce_eager=False, seed=0)"),
            (s + 60, f"INFO {ts(s + 60)} llm_engine.py:222] # GPU blocks: {blocks}, # CPU blocks: 2048"),
            (s + 62, f"INFO {ts(s + 62)} model_runner.py:403] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. "
                     f"To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
            (s + 80, f"INFO {ts(s + 80)} model_runner.py:437] Graph capturing finished in 18 secs."),
            (s + 82, f"INFO:     Started server process [1]"),
            (s + 82.1, f"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]
    tt = t0 - 60
    pre = lambda x: [r for r in reqs if r.t_first <= x]
    while tt + 5 <= t0 + (n - 1) * interval:
        a, b = tt, tt + 5
        run = sum(1 for r in reqs if r.t_sched <= b < r.t_end)
        pend = sum(1 for r in reqs if r.t_arr <= b < r.t_sched)
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in reqs)
        blk = sum(math.ceil((r.prompt + r.gen_by(b)) / 16) for r in reqs if r.t_sched <= b < r.t_end)
        if run or pt or gt:
            logs.append((b, f"INFO {ts(b)} llm_engine.py:649] Avg prompt throughput: {pt / 5:.1f} tokens/s, Avg generation throughput: {gt / 5:.1f} tokens/s, "
                            f"Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, GPU KV cache usage: {100 * blk * 16 / pool:.1f}%, CPU KV cache usage: 0.0%"))
        tt = b
    logs += [(r.t_arr + .002, f'INFO:     10.0.0.14:{50000 + r.rid} - "POST /v1/chat/completions HTTP/1.1" 200 OK') for r in reqs]
    used = 21_010 * MiB
    gpu = gen.gpu_samples(c, [{"index": 0, "name": "NVIDIA A10G", "memory_total": 23028 * MiB, "memory_used": used + 260 * MiB,
                               "processes": [{"pid": 1, "name": "python", "used_memory": used}]}])
    mc = {"architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
          "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32,
          "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "sliding_window": None, "tie_word_embeddings": False,
          "torch_dtype": "bfloat16", "transformers_version": "4.36.0", "use_cache": True, "vocab_size": 32000}
    orig = gen.scrape
    def scrape4(cc_, tt_, cr_):
        text = orig(cc_, tt_, cr_).split("# HELP vllm:cache_config_info")[0]
        # 0.2.6 gauges: throughput over the last 5 s logging interval
        a = tt_ - 5
        pt = sum(r.prompt for r in reqs if a < r.t_first <= tt_)
        gt = sum(r.gen_by(tt_) - r.gen_by(a) for r in reqs)
        text = re.sub(r"(vllm:avg_prompt_throughput_toks_per_s\{[^}]*\}) \S+", lambda m: f"{m.group(1)} {pt / 5.0!r}", text)
        return re.sub(r"(vllm:avg_generation_throughput_toks_per_s\{[^}]*\}) \S+", lambda m: f"{m.group(1)} {gt / 5.0!r}", text)
    gen.scrape = scrape4
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json("0.2.6", root, root, 32768, int(s + 82)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=mc, gpu=gpu, logs=logs,
              notes="vLLM behind a LiteLLM proxy (10.0.0.14). Users see streamed text arrive in blocks about every 2 s through the proxy; direct to vLLM it streams token by token.",
              endpoint="http://vllm-mistral:8000")
    gen.scrape = orig


if __name__ == "__main__":
    which = sys.argv[1:] or ["1", "2", "3", "4"]
    for k, f in (("1", itl_panel), ("2", nixl_pull), ("3", mamba_align), ("4", litellm_proxy)):
        if k in which:
            f(); print("built", f.__name__)
