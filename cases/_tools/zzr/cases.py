"""Writer zzr's cases (round 16): builds cases/zzr-*/bundle. Run from the worktree root:
    /work/main/.venv/bin/python cases/_tools/zzr/cases.py
gen.py is zzq's builder with one change (Case.ext). Seeded, no wall clock. Numbers not quoted are under `assumed:`.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen  # noqa: E402
from gen import Case, Req, ROOT  # noqa: E402

GiB, MiB = 1024 ** 3, 1024 ** 2
ts = gen.ts
V18 = "b-cache-salt-per-user"       # vLLM 0.18.0 bundle: families / buckets
V19 = "b-hybrid-qwen35-block528"    # vLLM 0.19.1 bundle


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


def lmts(t: float) -> str:
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def start_logs(s, root, version, nd, tp, pool, mml, core, extra="", pre=()):
    L = [(s, f"(APIServer pid=1) INFO {ts(s)} [utils.py:297]  version {version}"),
         (s + .1, f"(APIServer pid=1) INFO {ts(s)} [utils.py:233] non-default args: {nd}"),
         (s + 9, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 9)} [core.py:93] Initializing a V1 LLM engine (v{version}) with config: model='{root}', "
                 f"speculative_config=None, tokenizer='{root}', max_seq_len={mml}, tensor_parallel_size={tp}, pipeline_parallel_size=1, "
                 f"data_parallel_size=1, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda{extra}")]
    L += list(pre)
    L += [(s + 95, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 95)} [kv_cache_utils.py:1316] GPU KV cache size: {pool:,} tokens"),
          (s + 95.1, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 95)} [kv_cache_utils.py:1321] Maximum concurrency for {mml:,} tokens per request: {pool / mml:.2f}x"),
          (s + 130, f"(APIServer pid=1) INFO {ts(s + 130)} [api_server.py:1860] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    return L


def lmcache_lines(c, core, adapter_ref, engine_ref, chunk):
    L = []
    for r in c.reqs:
        rid = "chatcmpl-" + hashlib.md5(f"{c.cid}{r.rid}".encode()).hexdigest()[:16]
        L.append((r.t_sched + 0.001, f"(EngineCore_DP0 pid={core}) [{lmts(r.t_sched + 0.001)}] LMCache INFO: Reqid: {rid}, Total tokens {r.prompt}, "
                                     f"LMCache hit tokens: 0, need to load: 0 ({adapter_ref}:lmcache.integration.vllm.vllm_v1_adapter)"))
        n = (r.prompt // chunk) * chunk if r.prompt >= chunk else r.prompt
        st = r.t_first + 0.02
        gb = n * c.bpt / 1e9
        ms = max(0.5, gb / 18.0 * 1000)
        L.append((st, f"(EngineCore_DP0 pid={core}) [{lmts(st)}] LMCache INFO: Stored {n} out of total {n} tokens. size: {gb:.4f} gb, cost {ms:.4f} ms, "
                      f"throughput: {gb / ms * 1000:.4f} GB/s; offload_time: {ms * 0.95:.4f} ms, put_time: {ms * 0.05:.4f} ms ({engine_ref}:lmcache.v1.cache_engine)"))
    return L


def devs(name, total_mib, used, n, pname="VLLM::Worker_TP%d"):
    return [{"index": i, "name": name, "memory_total": total_mib * MiB, "memory_used": used + 560 * MiB,
             "processes": [{"pid": 300 + i, "name": pname % i if n > 1 else "VLLM::EngineCore", "used_memory": used}]} for i in range(n)]


# ------------------------------------------------ 1: vllm#47430 (dev-16)
SYS = ("You are the support assistant of Northwind Outdoor Gear. Answer questions about orders, shipping, returns, warranties and product care. "
       "Always be polite and concise. Never invent order numbers, tracking codes or prices; if the customer did not give an order number, ask for it. "
       "Returns are accepted within 30 days of delivery for unused items in their original packaging; footwear may be tried indoors only. "
       "Warranty claims for tents, sleeping bags and backpacks are handled for two years from purchase and require a photo of the defect. "
       "Shipping inside the EU takes 2 to 5 working days; express delivery is available for orders placed before 14:00 on working days. "
       "Customers outside the EU pay import duties on delivery. Gift cards cannot be refunded or exchanged for cash. "
       "When a customer is angry, acknowledge the problem first, then offer the next concrete step. "
       "If the question concerns safety (stoves, fuel, avalanche equipment, climbing hardware), recommend reading the manufacturer's manual and, "
       "for climbing hardware, retiring any item that has held a severe fall. Do not give medical advice. "
       "Answer in the language of the customer. Format lists with short bullet points. Keep answers under 150 words unless the customer asks for detail. "
       "For product recommendations, ask about the intended use, season, budget and size before suggesting items, and suggest at most three. "
       "Available categories: tents, sleeping bags, sleeping pads, backpacks, hiking boots, trail runners, rain jackets, insulated jackets, base layers, "
       "stoves, cookware, water filters, headlamps, trekking poles, climbing harnesses, helmets, ropes, carabiners, avalanche transceivers, shovels and probes. "
       "Store opening hours: Monday to Friday 9:00 to 19:00, Saturday 9:00 to 17:00, closed on Sundays and public holidays. "
       "Repairs of zippers, seams and buckles are done in the Munich workshop; typical turnaround is ten working days plus shipping. "
       "Loyalty members get free standard shipping and an extended return window of 60 days. "
       "If you cannot answer, offer to hand the conversation to a human agent and say that the typical waiting time is under five minutes during opening hours.")
QS = ["Where is my order 4471-2290?", "Can I return boots I wore on one hike?", "Which sleeping bag for -5 C in March?", "Is express shipping possible to Austria?",
      "My tent pole broke after a year, what now?", "Do you repair backpack zippers?", "How long do refunds take?", "What headlamp for night trail running?",
      "I never got my gift card code.", "Is the store open on Saturday?", "Which stove works at high altitude?", "Can I change my delivery address?"]


def qwen36():
    return {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 24, "num_key_value_heads": 4,
        "head_dim": 256, "full_attention_interval": 4, "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 16,
        "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
        "intermediate_size": 17408, "max_position_embeddings": 262144, "vocab_size": 248320, "torch_dtype": "bfloat16"},
        "torch_dtype": "bfloat16", "transformers_version": "4.57.0"}


def qwen36_case():
    cid = "zzr-qwen36-27b-sysprompt-block784"
    rnd = random.Random(47430)
    t0 = utc(2026, 7, 2, 19, 30, 0)
    interval, n = 10.0, 61
    reqs, t, rid = [], t0 - 120, 0
    while t < t0 + 610:
        t += rnd.expovariate(1.5)
        reqs.append(Req(rid, t, 520 + rnd.randint(40, 200), 0, rnd.randint(60, 300), 2048, "stop")); rid += 1
    root, bs, blocks = "Qwen/Qwen3.6-27B", 784, 253
    pool = bs * blocks
    cc = gen.tmpl_cc(V19, block_size=str(bs), num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9", enable_prefix_caching="True",
                     mamba_block_size="784", mamba_cache_mode="align", user_specified_block_size="False")
    c = Case(cid=cid, version="0.23.0", v0=False, model_name=root, model_root=root, max_model_len=32768, start=t0, n_scrapes=n,
             interval=interval, labels_cc=cc, pool_tokens=pool, block_size=bs, max_num_seqs=256, tmpl=V19)
    gen.simulate(c, reqs, lambda k: 0.030 + 0.0006 * k, lambda r, k: 0.05 + r.prompt * 0.00011, gen_reserve=False)
    argv = ["vllm", "serve", root, "--max-model-len", "32768", "--gpu-memory-utilization", "0.9", "--port", "8000"]
    s = t0 - 3600
    nd = {"model_tag": root, "model": root, "max_model_len": 32768}
    pre = [(s + 12, f"(EngineCore_DP0 pid=214) INFO {ts(s + 12)} [interface.py:773] Setting attention block size to {bs} tokens to ensure that attention page size is >= mamba page size."),
           (s + 12.1, f"(EngineCore_DP0 pid=214) INFO {ts(s + 12)} [interface.py:804] Padding mamba page size by 0.76% to ensure that mamba page size and attention page size are exactly equal.")]
    logs = start_logs(s, root, "0.23.0", nd, 1, pool, 32768, 214, ", enable_prefix_caching=True, enable_chunked_prefill=True", pre)
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, 1, "loggers.py:257")
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    gpu = gen.gpu_samples(c, devs("NVIDIA H100 80GB HBM3", 81559, 73_380 * MiB, 1))
    out = ROOT / "cases" / cid
    gen.write(c, out / "bundle", server=gen.server_json("0.23.0", root, root, 32768, int(s + 130)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=qwen36(), gpu=gpu, logs=logs,
              notes="Customer-support chat on Qwen3.6-27B; every request carries the same system prompt, yet the dashboard shows prefix cache hit rate 0.0%.",
              endpoint="http://qwen36-support:8000")
    with open(out / "prompts.jsonl", "w") as f:
        for i in range(40):
            f.write(json.dumps({"messages": [{"role": "system", "content": SYS}, {"role": "user", "content": QS[i % len(QS)] + ("" if i < 12 else f" (ticket {1000 + i})")}]}) + "\n")


# ------------------------------------------------ LMCache cases
def lm_case(cid, seed, t0, root, version, tmpl, tp, blocks, mml, bpt, gpu_dev, gpu_used, core, adapter_ref, engine_ref, chunk,
            gen_reqs, argv, nd, extra, notes, endpoint, model_config, step, pre=()):
    rnd = random.Random(seed)
    interval, n = 10.0, 61
    reqs = gen_reqs(rnd, t0)
    pool = blocks * 16
    cc = gen.tmpl_cc(tmpl, block_size="16", num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9", enable_prefix_caching="True")
    c = Case(cid=cid, version=version, v0=False, model_name=nd.get("served_model_name", root), model_root=root, max_model_len=mml, start=t0,
             n_scrapes=n, interval=interval, labels_cc=cc, pool_tokens=pool, block_size=16, max_num_seqs=256, tmpl=tmpl, ext=True)
    c.bpt = bpt
    gen.simulate(c, reqs, lambda k: step + 0.0004 * k, lambda r, k: 0.04 + (r.prompt - r.cached) * 0.00006, gen_reserve=False)
    s = t0 - 5400
    logs = start_logs(s, root, version, nd, tp, pool, mml, core, extra, pre)
    logs += [(s + 20, f"(EngineCore_DP0 pid={core}) INFO {ts(s + 20)} [factory.py:51] Creating v1 connector with name: LMCacheConnectorV1 and engine_id: 7c1e2a90-4b8d-4f1e-9a55-2e0c6d1b3f77")]
    logs += gen.stats_lines(c, t0 - 60, t0 + (n - 1) * interval, 1, "loggers.py:257")
    logs += gen.access_lines(c, 1, "/v1/chat/completions")
    logs += lmcache_lines(c, core, adapter_ref, engine_ref, chunk)
    gpu = gen.gpu_samples(c, devs(gpu_dev[0], gpu_dev[1], gpu_used, tp)) if gpu_dev else []
    gen.write(c, ROOT / "cases" / cid / "bundle", server=gen.server_json(version, c.model_name, root, mml, int(s + 130)),
              engine_args={"argv": argv, "args": args_of(argv)}, model_config=model_config, gpu=gpu, logs=logs, notes=notes, endpoint=endpoint)
    return c


def minimax():
    def reqs(rnd, t0):
        R, rid, t = [], 0, t0 - 120
        hist = []
        while t < t0 + 610:
            # target chat: turn 1 cold, turns 2-4 hit the local prefix cache, then noise overwrites GPU KV,
            # then a return turn that LMCache should serve (only what survived locally is hit)
            h = rnd.randint(11000, 13000)
            R.append(Req(rid, t, h, 0, rnd.randint(200, 400), 4096, "stop")); rid += 1
            for _ in range(3):
                t += rnd.uniform(3, 6)
                h2 = h + rnd.randint(300, 600)
                R.append(Req(rid, t, h2, h // 16 * 16, rnd.randint(200, 400), 4096, "stop")); rid += 1
                h = h2
            for _ in range(2):  # noise requests
                t += rnd.uniform(1.0, 3.0)
                R.append(Req(rid, t, rnd.randint(18000, 22000), 0, rnd.randint(50, 150), 256, "stop")); rid += 1
            t += rnd.uniform(2, 5)
            h2 = h + rnd.randint(300, 600)
            R.append(Req(rid, t, h2, int(h * rnd.uniform(0.3, 0.7)) // 16 * 16, rnd.randint(200, 400), 4096, "stop")); rid += 1
            t += rnd.uniform(2, 6)
        return R
    root = "MiniMaxAI/MiniMax-M2.5"
    argv = ["vllm", "serve", root, "--trust-remote-code", "--tensor-parallel-size", "4", "--enable-prefix-caching", "--port", "8000",
            "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}']
    nd = {"model_tag": root, "model": root, "trust_remote_code": True, "tensor_parallel_size": 4, "enable_prefix_caching": True,
          "kv_transfer_config": "KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')"}
    mc = {"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "hidden_size": 3072, "num_hidden_layers": 62,
          "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 256, "num_experts_per_tok": 8,
          "intermediate_size": 1536, "max_position_embeddings": 196608, "rope_theta": 5000000, "vocab_size": 200064, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "fp8", "fmt": "float8_e4m3fn", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}}
    # KV bytes/token: 62 layers * 8 heads * 128 * 2 (K,V) * 2 B = 253,952 (63,488 per GPU at TP4)
    lm_case("zzr-lmcache-minimax-m25-zero-hits", 2924, utc(2026, 4, 1, 8, 0, 0), root, "0.18.1rc1.dev220+g5b8c30d62", V18, 4, 66560, 196608,
            253952, ("NVIDIA H200", 143771), 128_900 * MiB, 389, "vllm_v1_adapter.py:1602", "cache_engine.py:437", 256, reqs, argv, nd,
            ", enable_prefix_caching=True, enable_chunked_prefill=True",
            "MiniMax-M2.5 on 4x H200 with LMCache (LMCacheConnectorV1, local CPU tier). Test loop: target chat turn 1, noise requests to overwrite GPU KV, turn 2 expected from LMCache. LMCache hit tokens are always 0.",
            "http://minimax-m25:8000", mc, 0.021)


def mooncake():
    def reqs(rnd, t0):
        R, rid, t = [], 0, t0 - 120
        while t < t0 + 610:
            t += rnd.expovariate(1.0)
            sysp = rnd.randint(3300, 3700)
            hist = rnd.randint(1000, 6000)
            R.append(Req(rid, t, sysp + hist, (sysp + int(hist * rnd.uniform(0.0, 0.4))) // 16 * 16, rnd.randint(80, 500), 2048, "stop")); rid += 1
        return R
    root = "Qwen/Qwen3-8B"
    argv = ["vllm", "serve", root, "--trust-remote-code", "--gpu-memory-utilization", "0.9", "--enable-prefix-caching", "--enable-auto-tool-choice",
            "--tool-call-parser", "hermes", "--max-model-len", "32768", "--enable-log-requests",
            "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}']
    nd = {"model_tag": root, "model": root, "trust_remote_code": True, "enable_auto_tool_choice": True, "tool_call_parser": "hermes",
          "max_model_len": 32768, "enable_log_requests": True, "kv_transfer_config": "KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')"}
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096, "num_hidden_layers": 36, "num_attention_heads": 32,
          "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288, "max_position_embeddings": 40960, "rope_theta": 1000000,
          "vocab_size": 151936, "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    # 36 * 8 * 128 * 2 * 2 = 147,456 B/token; ~51.6 GiB KV -> 23,488 blocks
    lm_case("zzr-mooncake-puts-no-hits", 2493, utc(2026, 1, 27, 6, 0, 0), root, "0.12.0", V19, 1, 23488, 32768, 147456,
            ("NVIDIA H100 80GB HBM3", 81559), 73_500 * MiB, 163, "vllm_v1_adapter.py:1284", "cache_engine.py:437", 128, reqs, argv, nd,
            ", enable_prefix_caching=True, enable_chunked_prefill=True",
            "Agent service (Qwen3-8B, hermes tools) with LMCache remote backend mooncakestore://mooncake-master.models.svc.cluster.local:50051/. Mooncake master shows the puts; LMCache hit tokens stay 0.",
            "http://kvcache-serve-svc.models.svc.cluster.local:8000", mc, 0.012)


def lm037():
    def reqs(rnd, t0):
        R, rid, t = [], 0, t0 - 120
        base = [rnd.randint(1900, 2100) for _ in range(24)]
        seen = set()
        while t < t0 + 610:
            t += rnd.expovariate(0.5)
            k = rnd.randrange(len(base))
            p = base[k]
            cached = 0 if k not in seen else (p // 16) * 16
            if k in seen and rnd.random() < 0.2:
                cached = 0  # evicted between repeats -> LMCache should serve, does not
            seen.add(k)
            R.append(Req(rid, t, p, cached, rnd.randint(100, 300), 512, "length")); rid += 1
        return R
    root = "/models/qwen3/Qwen3-14B"
    argv = ["vllm", "serve", root, "-tp", "2", "--trust-remote-code", "--dtype", "float16", "--gpu-memory-utilization", "0.9",
            "--max-model-len", "32768", "--enable-prefix-caching", "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}']
    nd = {"model_tag": root, "model": root, "trust_remote_code": True, "dtype": "float16", "tensor_parallel_size": 2, "max_model_len": 32768,
          "enable_prefix_caching": True, "kv_transfer_config": "KVTransferConfig(kv_connector='LMCacheConnectorV1', kv_role='kv_both')"}
    mc = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 5120, "num_hidden_layers": 40, "num_attention_heads": 40,
          "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 17408, "max_position_embeddings": 40960, "rope_theta": 1000000,
          "vocab_size": 151936, "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    # 40 * 8 * 128 * 2 * 2 = 163,840 B/token (81,920 per GPU at TP2)
    lm_case("zzr-lmcache-037-repeat-zero-hits", 1803, utc(2025, 10, 15, 3, 0, 0), root, "0.11.0", V19, 2, 32640, 32768, 163840,
            None, 0, 3379, "vllm_v1_adapter.py:1189", "cache_engine.py:309", 256, reqs, argv, nd,
            ", enable_prefix_caching=True, enable_chunked_prefill=True, device_config=cuda",
            "Qwen3-14B, TP2 on two AMD GPUs (HIP_VISIBLE_DEVICES=6,7), LMCache 0.3.7 local CPU tier (chunk_size 256, max_local_cpu_size 128), PYTHONHASHSEED=0. Repeating the same request gives LMCache hit tokens: 0; LMCache 0.3.4 is fine.",
            "http://10.0.0.16:8000", mc, 0.016)


if __name__ == "__main__":
    qwen36_case(); minimax(); mooncake(); lm037()
