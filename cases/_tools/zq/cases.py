"""Build the zq-* bundles (round 10):
    cd <worktree> && /work/main/.venv/bin/python cases/_tools/zq/cases.py [case-id ...]
Seeded, no wall clock; every number is derived from the parameters in each case's case.yaml."""
from __future__ import annotations

import calendar
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen import INF, Capture, Engine, Req, stamp  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
C = ROOT / "cases"
GiB = 2 ** 30
H100 = 85520809984
H200 = 150754820096
B200 = 192265846784
RTX3090 = 25769803776


def ts(s: str) -> float:
    return float(calendar.timegm(__import__("time").strptime(s, "%Y-%m-%d %H:%M:%S")))


LABELS_011 = dict(block_size="16", cache_dtype="auto", calculate_kv_scales="False", cpu_kvcache_space_bytes="None",
                  cpu_offload_gb="0", enable_prefix_caching="True", gpu_memory_utilization="0.9",
                  is_attention_free="False", kv_cache_memory_bytes="None", kv_sharing_fast_prefill="False",
                  mamba_cache_dtype="auto", mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto",
                  num_cpu_blocks="None", num_gpu_blocks_override="None", prefix_caching_hash_algo="sha256",
                  sliding_window="None", swap_space="4")
LABELS_022 = dict(_block_size_resolved="True", calculate_kv_scales="False", cpu_kvcache_space_bytes="None",
                  enable_prefix_caching="True", is_attention_free="False", kv_cache_memory_bytes="None",
                  kv_offloading_backend="native", kv_offloading_size="None", kv_sharing_fast_prefill="False",
                  mamba_block_size="None", mamba_cache_dtype="auto", mamba_cache_mode="none",
                  mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto", num_cpu_blocks="None",
                  num_gpu_blocks_override="None", prefix_caching_hash_algo="sha256", sliding_window="None",
                  user_specified_block_size="False")
LABELS_026 = dict(_block_size_resolved="True", calculate_kv_scales="False", enable_prefix_caching="True",
                  hash_block_size="None", is_attention_free="False", kv_cache_dtype_skip_layers="[]",
                  kv_cache_memory_bytes="None", kv_offloading_backend="native", kv_offloading_size="None",
                  kv_sharing_fast_prefill="False", mamba_block_size="None", mamba_cache_dtype="auto",
                  mamba_cache_mode="none", mamba_page_size_padded="None", mamba_ssm_cache_dtype="auto",
                  num_cpu_blocks="None", num_gpu_blocks_override="None", prefix_caching_hash_algo="sha256",
                  sliding_window="None", user_specified_block_size="False", user_specified_mamba_block_size="False")


def gpus(name, total, used_list, pids, pname="VLLM::EngineCore"):
    def f(t):
        return [{"index": i, "name": name, "memory_total": total, "memory_used": u,
                 "processes": [{"pid": pids[i], "name": pname, "used_memory": u - 512 * 2 ** 20}]}
                for i, u in enumerate(used_list)]
    return f


# =====================================================================================================
# A  dev-10: DP2 Llama-3-8B, gsm8k via lm_eval at 128 concurrent, hang at ~95% (vllm#28224)
# =====================================================================================================
def case_dp2_hang():
    cid = "zq-dp2-llama3-8b-gsm8k-hang-95pct"
    rng = random.Random(28224)
    t0 = ts("2025-11-06 14:20:00")
    t_up = t0 - 420.0
    n, iv = 48, 10.0
    t_run = t0 + 25.0
    bpt = 32 * 8 * 128 * 2 * 2                      # 131,072 B/token
    kv_bytes = 28062 * 16 * bpt + 1_000_000
    blocks = kv_bytes // (16 * bpt)
    pool = blocks * 16
    step = 0.022
    shared = 688                                      # 43 blocks of few-shot prefix
    # closed loop, 128 slots, 1,290 visible requests (the 29 routed to the hung engine 1 never show)
    total_visible, done_at_hang = 1290, 1253
    slots = [t_run + 0.004 * i for i in range(128)]
    reqs = []
    for i in range(total_visible):
        k = min(range(128), key=lambda j: slots[j])
        ta = slots[k]
        p = rng.randint(760, 880)
        g = 256 if rng.random() < 0.12 else rng.randint(85, 235)
        r = Req(t_arrive=round(ta, 4), prompt=p, gen=g, max_tokens=256, hit=(shared if i > 0 else 0),
                t_sched=ta + 0.002, prefill=0.045 + 0.0004 * rng.randint(0, 120), itl=step,
                reason="length" if g == 256 else "stop")
        reqs.append(r)
        slots[k] = r.t_last + 0.003
    ends = sorted(r.t_last for r in reqs)
    t_hang = (ends[done_at_hang - 1] + ends[done_at_hang]) / 2
    inflight = [r for r in reqs if r.t_arrive <= t_hang < r.t_last]
    assert len(inflight) == total_visible - done_at_hang, len(inflight)
    e0, e1 = [], []
    load = [0, 0]
    for r in sorted(reqs, key=lambda x: x.t_arrive):
        if r in inflight:
            e0.append(r)
            continue
        a = [sum(1 for x in e if x.t_arrive <= r.t_arrive < x.t_last) for e in (e0, e1)]
        (e0 if a[0] <= a[1] else e1).append(r)
    for r in inflight:
        r.t_stall = t_hang
        r.t_end = INF
    lab = dict(LABELS_011, num_gpu_blocks=str(blocks))
    E = [Engine(0, blocks, 16, e0, lab, freeze_at=t_hang, step_s=step, shared_prefix=shared),
         Engine(1, blocks, 16, e1, lab, freeze_at=t_hang, step_s=step, shared_prefix=shared)]
    model = "meta-llama/Meta-Llama-3-8B-Instruct"
    cap = Capture(fam="v011", model=model, version="0.11.1rc5", mml=8192, engines=E, t0=t0, n=n,
                  interval=iv, t_start=t_up + 70)
    api, cores = 2214471, [2214733, 2214734]
    A = f"(APIServer pid={api}) "
    kv_gib = kv_bytes / GiB
    L = [(t_up, f"{A}INFO {stamp(t_up)} [api_server.py:1839] vLLM API server version 0.11.1rc5"),
         (t_up + 0.1, f"{A}INFO {stamp(t_up)} [utils.py:233] non-default args: {{'model_tag': '{model}', 'model': '{model}', 'data_parallel_size': 2}}"),
         (t_up + 6, f"{A}INFO {stamp(t_up + 6)} [model.py:1510] Using max model len 8192"),
         (t_up + 6.1, f"{A}INFO {stamp(t_up + 6)} [scheduler.py:205] Chunked prefill is enabled with max_num_batched_tokens=8192.")]
    for i in (0, 1):
        Ep = f"(EngineCore_DP{i} pid={cores[i]}) "
        L += [(t_up + 14 + i * 0.01, f"{Ep}INFO {stamp(t_up + 14)} [core.py:730] Waiting for init message from front-end."),
              (t_up + 16 + i * 0.01, f"{Ep}INFO {stamp(t_up + 16)} [parallel_state.py:1208] rank {i} in world size 2 is assigned as DP rank {i}, PP rank 0, TP rank 0, EP rank {i}"),
              (t_up + 40 + i * 0.01, f"{Ep}INFO {stamp(t_up + 40)} [gpu_model_runner.py:2653] Model loading took 14.9889 GiB and 19.412035 seconds"),
              (t_up + 52 + i * 0.01, f"{Ep}INFO {stamp(t_up + 52)} [gpu_worker.py:298] Available KV cache memory: {kv_gib:.2f} GiB"),
              (t_up + 52.1 + i * 0.01, f"{Ep}INFO {stamp(t_up + 52)} [kv_cache_utils.py:1087] GPU KV cache size: {pool:,} tokens"),
              (t_up + 52.2 + i * 0.01, f"{Ep}INFO {stamp(t_up + 52)} [kv_cache_utils.py:1091] Maximum concurrency for 8,192 tokens per request: {pool / 8192:.2f}x"),
              (t_up + 63 + i * 0.01, f"{Ep}INFO {stamp(t_up + 63)} [gpu_model_runner.py:3480] Graph capturing finished in 9 secs, took 0.53 GiB"),
              (t_up + 64 + i * 0.01, f"{Ep}INFO {stamp(t_up + 64)} [core.py:227] init engine (profile, create kv cache, warmup model) took 23.86 seconds")]
    L += [(t_up + 66, f"{A}INFO {stamp(t_up + 66)} [loggers.py:147] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
          (t_up + 66.01, f"{A}INFO {stamp(t_up + 66)} [loggers.py:147] Engine 001: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
          (t_up + 70, f"{A}INFO {stamp(t_up + 70)} [api_server.py:1992] Starting vLLM API server 0 on http://0.0.0.0:8000"),
          (t_up + 70.1, f"{A}INFO:     Started server process [{api}]"),
          (t_up + 70.2, f"{A}INFO:     Application startup complete.")]
    L += cap.stats_lines(A, "loggers.py:123", t0 - 30, t0 + n * iv)
    for j, r in enumerate(sorted(e0 + e1, key=lambda x: x.t_last)):
        if r.t_last <= t_hang and j % 4 == 0:
            L.append((r.t_last + 0.002, f"{A}INFO:     127.0.0.1:{41000 + j % 20000} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
    used = int(0.9 * H100) + 480 * 2 ** 20
    cap.write(C / cid / "bundle", notes=(
        "meta-llama/Meta-Llama-3-8B-Instruct with -dp 2 (two engines behind one API server, one GPU each). "
        "lm_eval gsm8k through /v1/chat/completions with num_concurrent=128 is started ~25 s into the capture; "
        "the run stops making progress at about 95% and never finishes. /metrics every 10 s for 8 min, the server log, NVML."),
        endpoint="http://localhost:8000", served=model,
        engine_args={"argv": ["vllm", "serve", model, "-dp", "2"],
                     "args": {"model": model, "data-parallel-size": 2, "tensor-parallel-size": 1,
                              "gpu-memory-utilization": 0.9, "max-model-len": 8192}},
        model_config={"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
                      "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
                      "num_key_value_heads": 8, "max_position_embeddings": 8192, "rope_theta": 500000.0,
                      "vocab_size": 128256, "torch_dtype": "bfloat16", "bos_token_id": 128000,
                      "eos_token_id": 128009, "rms_norm_eps": 1e-05, "tie_word_embeddings": False},
        logs=L, gpu=gpus("NVIDIA H100 80GB HBM3", H100, [used, used + 2 ** 20], cores))
    return cap


# =====================================================================================================
# B  holdout-10: A.X-K2 2P2D on H200, decode worker fills to 51 running at 100% KV and stops (dynamo#14318)
# =====================================================================================================
def case_axk2():
    cid = "zq-axk2-2p2d-decode-kv-full-stall"
    rng = random.Random(14318)
    t0 = ts("2026-09-15 09:00:00")
    t_up = t0 - 1500.0
    n, iv = 60, 10.0
    bs, blocks = 64, 13506
    bpt = 61 * (656 + 132)                                  # 48,068 B/token, fp8_ds_mla + indexer keys
    kv_bytes = blocks * bs * bpt + 2_100_000
    assert kv_bytes // (bs * bpt) == blocks
    pool = blocks * bs
    P, G = 16384, 1024
    step = 0.042
    t_bench = t0 + 40.0
    t_abort = t_bench + 480.0
    arrivals = sorted(t_bench + 0.9 + 0.40 * i + rng.uniform(0.0, 0.35) for i in range(64))
    reqs = []
    for ta in arrivals:
        x = rng.uniform(0.19, 0.31)
        reqs.append(Req(t_arrive=round(ta, 3), prompt=P, gen=G, max_tokens=G, hit=0, ext=P - 1,
                        t_defer=round(ta, 3), prefill=0.05, itl=step, hold=P, reason="length",
                        xfer={"dur": x, "post": rng.uniform(0.0018, 0.0062), "bytes": P * bpt,
                              "descs": (P // bs) * 61 * 2}))
    # admission: a handoff is accepted when 256 blocks are free; the pull then runs for xfer["dur"]
    adm = []
    t = t_bench
    pending = list(reqs)
    t_stall = INF
    while t < t_abort and t_stall == INF:
        used = 0
        for r in adm:
            if t >= r.t_sched:
                used += math.ceil((P + r.gen_by(t) + 1) / bs)
            else:
                used += P // bs
        while pending and pending[0].t_arrive <= t and blocks - used >= P // bs + 1:
            r = pending.pop(0)
            r.t_sched = round(max(r.t_arrive, t) + r.xfer["dur"], 4)
            adm.append(r)
            used += P // bs
        if used >= blocks and all(t >= r.t_sched for r in adm):
            t_stall = t
        t += step
    for r in adm:
        r.t_stall = t_stall
        r.t_end = t_abort
        r.reason = "abort"
    for r in pending:          # never admitted: wait for capacity until the client aborts
        r.t_defer = None
        r.t_end = t_abort
        r.reason = "abort"
    nrun, nwait = len(adm), len(pending)
    model = "skt/A.X-K2"
    lab = dict(LABELS_022, block_size=str(bs), cache_dtype="fp8_ds_mla", gpu_memory_utilization="0.9",
               num_gpu_blocks=str(blocks))
    E = [Engine(0, blocks, bs, reqs, lab, budget=2048, step_s=step)]
    cap = Capture(fam="v022", model=model, version="0.23.0", mml=131072, engines=E, t0=t0, n=n, interval=iv,
                  t_start=t_up + 1380, nixl=True, connector=True, served="A.X-K2")
    core = 4187
    Ep = f"(EngineCore_DP0 pid={core}) "
    nondef = ("{'model': 'skt/A.X-K2', 'served_model_name': ['A.X-K2'], 'trust_remote_code': True, "
              "'tensor_parallel_size': 8, 'enable_expert_parallel': True, 'kv_cache_dtype': 'fp8_ds_mla', "
              "'gpu_memory_utilization': 0.9, 'max_num_seqs': 256, 'max_num_batched_tokens': 2048, "
              "'enable_prefix_caching': True, 'moe_backend': 'triton', "
              "'kv_transfer_config': {'kv_connector': 'NixlConnector', 'kv_role': 'kv_both'}}")
    L = [(t_up, f"INFO {stamp(t_up)} [utils.py:233] non-default args: {nondef}"),
         (t_up + 20, f"{Ep}INFO {stamp(t_up + 20)} [core.py:104] Initializing a V1 LLM engine (v0.23.0) with config: model='skt/A.X-K2', tokenizer='skt/A.X-K2', trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=131072, tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8, enforce_eager=False, kv_cache_dtype=fp8_ds_mla, enable_prefix_caching=True, enable_chunked_prefill=True"),
         (t_up + 900, f"{Ep}INFO {stamp(t_up + 900)} [gpu_model_runner.py:4631] Model loading took 80.13 GiB memory and 702.55 seconds"),
         (t_up + 1240, f"{Ep}INFO {stamp(t_up + 1240)} [gpu_worker.py:402] Available KV cache memory: {kv_bytes / GiB:.2f} GiB"),
         (t_up + 1240.1, f"{Ep}INFO {stamp(t_up + 1240)} [kv_cache_utils.py:1388] GPU KV cache size: {pool:,} tokens"),
         (t_up + 1240.2, f"{Ep}INFO {stamp(t_up + 1240)} [kv_cache_utils.py:1392] Maximum concurrency for 131,072 tokens per request: {pool / 131072:.2f}x"),
         (t_up + 1330, f"{Ep}INFO {stamp(t_up + 1330)} [gpu_model_runner.py:4807] Graph capturing finished in 71 secs, took 2.31 GiB"),
         (t_up + 1345, f"{Ep}INFO {stamp(t_up + 1345)} [nixl_connector.py:1012] Initializing NIXL worker with backends ['UCX']"),
         (t_up + 1380, f"INFO {stamp(t_up + 1380)} [loggers.py:183] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}")]
    L += cap.stats_lines("", "loggers.py:257", t0 - 60, t0 + n * iv)
    used = int(0.9 * H200) + 700 * 2 ** 20
    pids = [4301 + i for i in range(8)]
    argv = ["python3", "-m", "dynamo.vllm", "--model", "skt/A.X-K2", "--served-model-name", "A.X-K2",
            "--trust-remote-code", "--tensor-parallel-size", "8", "--enable-expert-parallel", "--kv-cache-dtype",
            "fp8_ds_mla", "--gpu-memory-utilization", "0.90", "--max-num-seqs", "256", "--max-num-batched-tokens",
            "2048", "--enable-prefix-caching", "--moe-backend", "triton", "--dyn-reasoning-parser", "deepseek_v3",
            "--dyn-tool-call-parser", "hermes", "--dyn-default-thinking-mode", "enabled", "--disaggregation-mode",
            "decode", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
    mc = {"architectures": ["AXK2ForCausalLM"], "model_type": "axk2", "hidden_size": 7168,
          "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
          "num_attention_heads": 64, "num_key_value_heads": 64, "q_lora_rank": 1536, "kv_lora_rank": 512,
          "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "index_head_dim": 128,
          "index_n_heads": 64, "index_topk": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
          "num_experts_per_tok": 8, "first_k_dense_replace": 1, "max_position_embeddings": 131072,
          "vocab_size": 163840, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128],
                                  "activation_scheme": "dynamic"}}
    cap.write(C / cid / "bundle", notes=(
        "Decode worker 0 of a Dynamo 2P2D deployment of A.X-K2 on 4 H200 nodes (decode: TP8 + EP, NixlConnector). "
        "A benchmark of 128 concurrent cold 16K-input / 1K-output requests, random routing, starts ~40 s into the capture; "
        "generation stops soon after and resumes only when the client gives up. /metrics every 10 s for 10 min, the worker log, NVML."),
        endpoint="http://axk2-vllm-disagg-h200-decodeworker-0:9090", served="A.X-K2",
        engine_args={"argv": argv, "args": {"model": "skt/A.X-K2", "tensor-parallel-size": 8,
                                            "enable-expert-parallel": True, "kv-cache-dtype": "fp8_ds_mla",
                                            "gpu-memory-utilization": 0.9, "max-num-seqs": 256,
                                            "max-num-batched-tokens": 2048, "enable-prefix-caching": True,
                                            "kv-transfer-config": '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'}},
        model_config=mc, logs=L, gpu=gpus("NVIDIA H200", H200, [used + 2 ** 20 * i for i in range(8)], pids,
                                            pname="python3"))
    print(f"  admitted {nrun}, waiting {nwait}, stall at +{t_stall - t0:.1f}s, abort at +{t_abort - t0:.0f}s")
    return cap


# =====================================================================================================
# C  holdout-10: Kimi-K2.5 P/D, decode DP4 at bs24 / util 0.92: handoffs rationed by staging headroom
# =====================================================================================================
def sim_decode_pool(rng, *, slots, dmin, dmax, itl, dcap, t_a, t_b, blocks, bs, P, G, maxseq, n_eng, xfer):
    """Closed loop of `slots` clients, random routing to n_eng decode engines. A handoff is accepted
    (prompt blocks allocated, request deferred until the remote prefill + pull complete) while the blocks
    of the running batch at full length plus the staged prompts fit; loaded requests join the running
    batch while it has fewer than maxseq. Returns per-engine request lists."""
    dt = 0.05
    E = [dict(waiting=[], active=[], reqs=[]) for _ in range(n_eng)]
    nxt = [t_a + rng.uniform(0, 60) for _ in range(slots)]
    full, pb = math.ceil((P + G) / bs), math.ceil(P / bs)
    t, over = t_a, 0
    while t < t_b:
        for k in range(slots):
            if nxt[k] is not None and nxt[k] <= t:
                e = rng.randrange(n_eng)
                r = Req(t_arrive=round(t, 3), prompt=P, gen=G, max_tokens=G, ext=P - 1, prefill=0.05, itl=itl,
                        hold=P, xfer=xfer(rng))
                r.slot = k
                nxt[k] = None
                E[e]["waiting"].append(r)
                E[e]["reqs"].append(r)
        for en in E:
            for r in list(en["active"]):
                if r.t_sched < INF and r.t_last <= t:
                    en["active"].remove(r)
                    nxt[r.slot] = r.t_last + rng.uniform(0.05, 0.4)
            act = en["active"]
            used = sum(math.ceil((P + r.gen_by(t) + 1) / bs) if r.t_sched <= t else pb for r in act)
            over += used > blocks
            run = sum(1 for r in act if r.t_sched <= t)
            for r in sorted([r for r in act if r.t_sched == INF and r.t_loaded <= t], key=lambda x: x.t_loaded):
                if run < maxseq:
                    r.t_sched = round(t, 3)
                    run += 1
            reserve = sum(full - math.ceil((P + r.gen_by(t) + 1) / bs) for r in act if r.t_sched <= t)
            staged = sum(1 for r in act if r.t_sched == INF and r.t_loaded > t)
            while en["waiting"] and blocks - used - reserve >= pb and staged < dcap:
                r = en["waiting"].pop(0)
                r.t_defer = round(t, 3)
                r.t_loaded = round(t + rng.uniform(dmin, dmax), 3)
                act.append(r)
                used += pb
                staged += 1
        t += dt
    assert over == 0, over
    return [en["reqs"] for en in E]


def case_kimi_staging():
    cid = "zq-kimi-k25-pd-decode-staging-starved"
    rng = random.Random(1380)
    t0 = ts("2026-08-08 16:40:00")
    t_up = t0 - 2400.0
    n, iv = 60, 10.0
    bs, blocks = 64, 4042
    bpt = 61 * 576                                   # 35,136 B/token, MLA fp8
    kv_bytes = blocks * bs * bpt + 1_400_000
    assert kv_bytes // (bs * bpt) == blocks
    pool = blocks * bs
    P, G = 8150, 1024
    itl = 0.051
    mix = [(0.0166, 0.8), (round((itl - 0.8 * 0.0166) / 0.2, 4), 0.2)]

    def xfer(r):
        d = r.uniform(0.048, 0.092)
        return {"dur": d, "post": r.uniform(0.004, 0.014), "bytes": P * bpt, "descs": (P // bs + 1) * 61}
    per = sim_decode_pool(rng, slots=100, dmin=4.5, dmax=10.5, itl=itl, dcap=8, t_a=t0 - 1500, t_b=t0 + n * iv + 5,
                          blocks=blocks, bs=bs, P=P, G=G, maxseq=24, n_eng=4, xfer=xfer)
    model = "moonshotai/Kimi-K2.5-NVFP4"
    lab = dict(LABELS_022, block_size=str(bs), cache_dtype="fp8", gpu_memory_utilization="0.92",
               num_gpu_blocks=str(blocks))
    E = [Engine(i, blocks, bs, per[i], lab, budget=8192, itl_mix=mix, step_s=itl) for i in range(4)]
    cap = Capture(fam="v022", model=model, version="0.22.0", mml=9216, engines=E, t0=t0, n=n, interval=iv,
                  t_start=t_up + 900, nixl=True, connector=True, sim_from=t0 - 1500)
    nondef = ("{'model': 'moonshotai/Kimi-K2.5-NVFP4', 'trust_remote_code': True, 'load_format': 'dummy', "
              "'max_model_len': 9216, 'data_parallel_size': 4, 'enable_expert_parallel': True, "
              "'kv_cache_dtype': 'fp8', 'gpu_memory_utilization': 0.92, 'max_num_seqs': 24, "
              "'kv_transfer_config': {'kv_connector': 'NixlConnector', 'kv_role': 'kv_both'}}")
    L = [(t_up, f"INFO {stamp(t_up)} [utils.py:233] non-default args: {nondef}")]
    for i in range(4):
        Ep = f"(EngineCore_DP{i} pid={6120 + i * 4}) "
        L += [(t_up + 15 + i * 0.01, f"{Ep}INFO {stamp(t_up + 15)} [parallel_state.py:1411] rank {i} in world size 4 is assigned as DP rank {i}, PP rank 0, PCP rank 0, TP rank 0, EP rank {i}"),
              (t_up + 300 + i * 0.01, f"{Ep}INFO {stamp(t_up + 300)} [gpu_model_runner.py:4631] Model loading took 150.12 GiB memory and 241.07 seconds"),
              (t_up + 700 + i * 0.01, f"{Ep}INFO {stamp(t_up + 700)} [gpu_worker.py:402] Available KV cache memory: {kv_bytes / GiB:.2f} GiB"),
              (t_up + 700.1 + i * 0.01, f"{Ep}INFO {stamp(t_up + 700)} [kv_cache_utils.py:1388] GPU KV cache size: {pool:,} tokens"),
              (t_up + 700.2 + i * 0.01, f"{Ep}INFO {stamp(t_up + 700)} [kv_cache_utils.py:1392] Maximum concurrency for 9,216 tokens per request: {pool / 9216:.2f}x"),
              (t_up + 820 + i * 0.01, f"{Ep}INFO {stamp(t_up + 820)} [gpu_model_runner.py:4807] Graph capturing finished in 64 secs, took 1.21 GiB"),
              (t_up + 840 + i * 0.01, f"{Ep}INFO {stamp(t_up + 840)} [nixl_connector.py:1012] Initializing NIXL worker with backends ['UCX']")]
    for i in range(4):
        L.append((t_up + 900 + i * 0.01, f"INFO {stamp(t_up + 900)} [loggers.py:183] Engine {i:03d}: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"))
    L += cap.stats_lines("", "loggers.py:257", t0 - 60, t0 + n * iv)
    used = int(0.92 * B200) + 820 * 2 ** 20
    argv = ["python3", "-m", "dynamo.vllm", "--model", model, "--trust-remote-code", "--load-format", "dummy",
            "--max-model-len", "9216", "--data-parallel-size", "4", "--enable-expert-parallel",
            "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.92", "--max-num-seqs", "24",
            "--disaggregation-mode", "decode", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
    mc = {"architectures": ["KimiK25ForConditionalGeneration"], "model_type": "kimi_k25",
          "text_config": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
                          "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
                          "num_attention_heads": 64, "num_key_value_heads": 64, "q_lora_rank": 1536,
                          "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                          "n_routed_experts": 384, "n_shared_experts": 1, "num_experts_per_tok": 8,
                          "first_k_dense_replace": 1, "max_position_embeddings": 262144, "vocab_size": 163840,
                          "torch_dtype": "bfloat16"},
          "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}, "torch_dtype": "bfloat16"}
    cap.write(C / cid / "bundle", notes=(
        "Decode worker of a Dynamo P/D benchmark of Kimi-K2.5-NVFP4 (dummy weights) on 8x B200: 4 prefill GPUs (DP4+EP), "
        "4 decode GPUs (DP4, TP1, EP4) in one vLLM process, NixlConnector, fp8 KV, decode max_num_seqs 24 at "
        "gpu_memory_utilization 0.92. Synthetic 8150-token prompts, 1024 output tokens. Complaint: throughput is far below "
        "what the GPUs should give and first tokens take seconds. /metrics every 10 s for 10 min, the worker log, NVML."),
        endpoint="http://kimi-decode-0.dyn.svc:9090", served=model,
        engine_args={"argv": argv, "args": {"model": model, "load-format": "dummy", "max-model-len": 9216,
                                            "data-parallel-size": 4, "enable-expert-parallel": True,
                                            "kv-cache-dtype": "fp8", "gpu-memory-utilization": 0.92,
                                            "max-num-seqs": 24,
                                            "kv-transfer-config": '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'}},
        model_config=mc, logs=L, gpu=gpus("NVIDIA B200", B200, [used + 2 ** 20 * i for i in range(4)],
                                          [6120 + i * 4 for i in range(4)], pname="python3"))
    return cap


# =====================================================================================================
# D  holdout-10: hybrid 27B on 2x 3090 TP2 with SimpleCPUOffloadConnector: parked loads stranded (vllm#53868)
# =====================================================================================================
def case_offload_wedge():
    cid = "zq-tp2-3090-offload-parked-loads-wedge"
    rng = random.Random(53868)
    t0 = ts("2026-08-26 21:30:00")
    t_up = t0 - 5400.0
    n, iv = 60, 10.0
    bs, blocks, groups = 1648, 182, 4
    page = bs * 2 * 2 * 256                            # fp8: 2 KV heads/rank x 256 x (K,V) x 1 B
    per_block = 16 * page                              # 16 layer slots
    kv_bytes = blocks * per_block + 7_000_000
    assert kv_bytes // per_block == blocks
    tokens_logged = blocks // groups * bs
    mml = 131072
    conc = blocks / (math.ceil(mml / bs) + 3)
    t_w = t0 + 210.0                                   # last running request ends -> wedge
    itl = 0.024
    reqs = []
    # three agent sessions, each sends its next turn 3-40 s after the previous answer
    for sess in range(3):
        t = t0 - 900 + rng.uniform(0, 30)
        ctx = rng.randint(38000, 52000)
        while True:
            new = rng.randint(900, 5200)
            P = ctx + new
            ext = int(ctx * rng.uniform(0.80, 0.92)) // 16 * 16
            hit = min(ctx - ext, int(P * rng.uniform(0.02, 0.08))) // 16 * 16
            g = rng.randint(150, 1200)
            r = Req(t_arrive=round(t, 3), prompt=P, gen=g, max_tokens=8192, hit=hit, ext=ext, extra_blocks=3,
                    itl=itl, reason="stop")
            r.t_defer = r.t_arrive + 0.01
            r.t_loaded = r.t_defer + round(0.15 + ext / 300000.0, 3)
            r.t_sched = r.t_loaded + 0.01
            r.prefill = round((P - hit - ext) / 2600.0 + P / 400000.0, 3)
            if r.t_last > t_w - 0.5:
                break
            reqs.append(r)
            ctx = P + g
            if ctx > 96000:
                ctx = rng.randint(38000, 52000)
            t = r.t_last + rng.uniform(3.0, 40.0)
    # the session turn that finishes just before the wedge (R0)
    r0 = Req(t_arrive=t_w - 24.0, prompt=46210, gen=498, max_tokens=8192, hit=2048, ext=41216, extra_blocks=3,
             itl=itl, reason="stop")
    r0.t_defer, r0.t_loaded = r0.t_arrive + 0.01, r0.t_arrive + 0.3
    r0.t_sched = r0.t_loaded + 0.01
    r0.prefill = round((r0.prompt - r0.hit - r0.ext) / 2600.0 + r0.prompt / 400000.0, 3)
    r0.itl = (t_w - 0.5 - r0.t_first) / (r0.gen - 1)
    reqs = [r for r in reqs if r.t_last < r0.t_arrive - 1.0 or r.t_arrive > t_w] + [r0]
    # the two parked loads and the capacity-blocked head
    a = Req(t_arrive=t_w - 9.0, prompt=106030, gen=0, max_tokens=8192, ext=100400, extra_blocks=3, hold=100400)
    a.t_defer = a.t_arrive + 0.01
    b = Req(t_arrive=t_w - 8.5, prompt=99140, gen=0, max_tokens=8192, ext=95300, extra_blocks=3, hold=95300)
    b.t_defer = b.t_arrive + 0.01
    h = Req(t_arrive=t_w - 8.0, prompt=105220, gen=0, max_tokens=8192, extra_blocks=3)
    for x in (a, b, h):
        x.t_end = INF
    reqs += [a, b, h]
    model = "Qwen/Qwen3.6-27B-FP8"
    lab = dict(LABELS_026, block_size=str(bs), cache_dtype="fp8", gpu_memory_utilization="0.9",
               num_gpu_blocks=str(blocks), kv_offloading_size="60.0", mamba_block_size=str(bs),
               mamba_cache_mode="align", mamba_page_size_padded=str(page), mamba_ssm_cache_dtype="float32",
               kv_cache_max_concurrency=f"{conc:.2f}", kv_cache_size_tokens=str(tokens_logged))
    E = [Engine(0, blocks, bs, reqs, lab, budget=4096, step_s=itl)]
    cap = Capture(fam="v022", model=model, version="0.26.1rc1.dev1214+gf6130145c", mml=mml, engines=E, t0=t0,
                  n=n, interval=iv, t_start=t_up + 260, connector=True, sim_from=t0 - 900,
                  spec=(7, [0.88, 0.74, 0.61, 0.49, 0.38, 0.29, 0.21]))
    A = "(APIServer pid=1) "
    Ep = "(EngineCore pid=231) "
    nondef = ("{'model_tag': 'Qwen/Qwen3.6-27B-FP8', 'host': '0.0.0.0', 'model': 'Qwen/Qwen3.6-27B-FP8', "
              "'trust_remote_code': True, 'max_model_len': 131072, 'tensor_parallel_size': 2, "
              "'gpu_memory_utilization': 0.9, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, "
              "'enable_chunked_prefill': True, 'max_num_batched_tokens': 4096, 'max_num_seqs': 6, "
              "'kv_offloading_size': 60.0, 'kv_offloading_backend': 'native', "
              "'speculative_config': {'method': 'dflash', 'model': 'z-lab/Qwen3.6-27B-DFlash', 'num_speculative_tokens': 7}}")
    L = [(t_up, f"{A}INFO {stamp(t_up)} [utils.py:302] non-default args: {nondef}"),
         (t_up + 8, f"{A}INFO {stamp(t_up + 8)} [interface.py:773] Setting attention block size to {bs} tokens to ensure that attention page size is >= mamba page size."),
         (t_up + 8.1, f"{A}INFO {stamp(t_up + 8)} [interface.py:797] Padding mamba page size by 0.73% to ensure that mamba page size and attention page size are exactly equal."),
         (t_up + 30, f"{Ep}INFO {stamp(t_up + 30)} [simple_cpu_offload_connector.py:118] SimpleCPUOffloadConnector: eager offload, CPU pool 60.00 GiB (30.00 GiB per rank)"),
         (t_up + 140, f"(Worker_TP0 pid=302) INFO {stamp(t_up + 140)} [gpu_model_runner.py:4631] Model loading took 15.64 GiB memory and 96.20 seconds"),
         (t_up + 200, f"(Worker_TP0 pid=302) INFO {stamp(t_up + 200)} [gpu_worker.py:402] Available KV cache memory: {kv_bytes / GiB:.2f} GiB"),
         (t_up + 200.1, f"{Ep}INFO {stamp(t_up + 200)} [kv_cache_utils.py:2065] GPU KV cache size: {tokens_logged:,} tokens"),
         (t_up + 200.2, f"{Ep}INFO {stamp(t_up + 200)} [kv_cache_utils.py:2069] Maximum concurrency for 131,072 tokens per request: {conc:.2f}x"),
         (t_up + 230, f"{Ep}INFO {stamp(t_up + 230)} [core.py:287] init engine (profile, create kv cache, warmup model) took 61.04 seconds"),
         (t_up + 255, f"{A}INFO {stamp(t_up + 255)} [loggers.py:183] Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {blocks}"),
         (t_up + 260, f"{A}INFO {stamp(t_up + 260)} [api_server.py:2031] Starting vLLM API server 0 on http://0.0.0.0:8000")]
    L += cap.stats_lines(A, "loggers.py:263", t0 - 120, t0 + n * iv)
    for r in reqs:
        if r.t_end is None and t0 - 120 <= r.t_last < t0 + n * iv:
            L.append((r.t_last + 0.01, f"{A}INFO:     172.18.0.1:{50000 + int(r.t_arrive) % 9000} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
    used = int(0.9 * RTX3090) + 310 * 2 ** 20
    argv = ["vllm", "serve", "Qwen/Qwen3.6-27B-FP8", "--host", "0.0.0.0", "--trust-remote-code", "--max-model-len",
            "131072", "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.9", "--kv-cache-dtype", "fp8",
            "--enable-prefix-caching", "--enable-chunked-prefill", "--max-num-batched-tokens", "4096",
            "--max-num-seqs", "6", "--kv-offloading-size", "60", "--kv-offloading-backend", "native",
            "--speculative-config", '{"method":"dflash","model":"z-lab/Qwen3.6-27B-DFlash","num_speculative_tokens":7}']
    mc = {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
          "text_config": {"model_type": "qwen3_5_text", "hidden_size": 5120, "intermediate_size": 17408,
                          "num_hidden_layers": 64, "full_attention_interval": 4, "num_attention_heads": 24,
                          "num_key_value_heads": 4, "head_dim": 256, "linear_num_value_heads": 48,
                          "linear_num_key_heads": 16, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                          "linear_conv_kernel_dim": 4, "max_position_embeddings": 262144, "vocab_size": 248320,
                          "torch_dtype": "bfloat16"},
          "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128],
                                  "activation_scheme": "dynamic"}, "torch_dtype": "bfloat16"}
    cap.write(C / cid / "bundle", notes=(
        "Qwen3.6-27B-FP8 (hybrid GDN/attention) on 2x RTX 3090, TP=2, fp8 KV, SimpleCPUOffloadConnector "
        "(--kv-offloading-size 60, VLLM_USE_SIMPLE_KV_OFFLOAD=1, eager), DFlash speculative decoding (7 tokens), "
        "max-num-seqs 6. Agentic traffic (~270 requests/hour, long reused contexts). Complaint: the server stops "
        "answering; /health is 200 and the log goes quiet. /metrics every 10 s for 10 min, the server log, NVML."),
        endpoint="http://127.0.0.1:8000", served=model,
        engine_args={"argv": argv, "args": {"model": model, "max-model-len": 131072, "tensor-parallel-size": 2,
                                            "gpu-memory-utilization": 0.9, "kv-cache-dtype": "fp8",
                                            "enable-prefix-caching": True, "enable-chunked-prefill": True,
                                            "max-num-batched-tokens": 4096, "max-num-seqs": 6,
                                            "kv-offloading-size": 60, "kv-offloading-backend": "native",
                                            "speculative-config": '{"method":"dflash","model":"z-lab/Qwen3.6-27B-DFlash","num_speculative_tokens":7}'}},
        model_config=mc, logs=L, gpu=gpus("NVIDIA GeForce RTX 3090", RTX3090, [used, used + 3 * 2 ** 20], [302, 303],
                                          pname="VLLM::Worker_TP"))
    return cap


BUILDERS = {"zq-dp2-llama3-8b-gsm8k-hang-95pct": case_dp2_hang, "zq-axk2-2p2d-decode-kv-full-stall": case_axk2,
            "zq-kimi-k25-pd-decode-staging-starved": case_kimi_staging,
            "zq-tp2-3090-offload-parked-loads-wedge": case_offload_wedge}

if __name__ == "__main__":
    want = sys.argv[1:] or list(BUILDERS)
    for cid in want:
        BUILDERS[cid]()
        print("built", cid)
