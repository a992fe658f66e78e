#!/usr/bin/env python3
"""Build the bundles of the j-* cases.

    /work/main/.venv/bin/python cases/_tools/j/cases.py [case-id ...]

engine.py / logs.py / common.py are writer f's tools (cases/_tools/f/), engine.py extended with a
preemption timeline and two-part inter-token mixes. Each builder turns the scenario of its
case.yaml (`quoted` / `assumed`) into simulated requests. Deterministic (seeded, no wall clock).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import engine_cfg_str, labels_v1, poisson_arrivals, v1_refs, v1_startup  # noqa: E402
from engine import Req, Server, Sim, epoch, gpu_devices, lab, models_body, num, stats_lines, ts, write_bundle  # noqa: E402
from logs import join  # noqa: E402

CASES = Path(__file__).resolve().parents[2]


def rid(rng: random.Random) -> str:
    return f"chatcmpl-{rng.getrandbits(128):032x}"


# =========================================================================== 1
def j_gemma4_100k_prompt_above_76k_pool_stalls_queue() -> None:
    cid = "j-gemma4-100k-prompt-above-76k-pool-stalls-queue"
    rng = random.Random(39734)
    start = epoch(2026, 4, 15, 13, 20, 0)
    t_big = epoch(2026, 4, 15, 14, 2, 10)
    t0 = t_big + 50.0
    n, iv = 37, 5.0
    t_end = t0 + iv * (n - 1)
    model, mml, blocks = "google/gemma-4-31B-it", 262144, 4790
    reqs = []
    # served normally before the big prompt (chats finish long before it arrives blocks anything)
    for ta in poisson_arrivals(rng, start + 240, t_big - 15.0, 0.3):
        plen = rng.randint(1000, 6000)
        gen = rng.randint(100, 600)
        reqs.append(Req(rid=rid(rng), t_arrive=ta, prompt_len=plen, hit=0, gen_len=gen, max_tokens=1024,
                        queue_s=round(rng.uniform(0.002, 0.02), 4), prefill_s=round(0.05 + plen / 20000.0, 4),
                        itl_s=round(rng.uniform(0.0155, 0.0175), 4), finished_reason="stop"))
    # the 101,233-token prompt: never admitted (it cannot fit the 76,640-token pool)
    reqs.append(Req(rid=rid(rng), t_arrive=t_big, prompt_len=101233, hit=0, gen_len=800, max_tokens=2048,
                    queue_s=100000.0, prefill_s=9.0, itl_s=0.02, finished_reason="stop"))
    # every later chat waits behind it
    for ta in poisson_arrivals(rng, t_big + 22.0, t_end + 1.0, 0.17):
        plen = rng.randint(1000, 6000)
        reqs.append(Req(rid=rid(rng), t_arrive=ta, prompt_len=plen, hit=0, gen_len=300, max_tokens=1024,
                        queue_s=100000.0, prefill_s=0.3, itl_s=0.017, finished_reason="stop"))
    table, version = "0.18.0", "0.19.1rc1.dev301+g60995c05b"
    lab_ = labels_v1(table, num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9", enable_prefix_caching="True")
    srv = Server(version, table, model, mml, 16, blocks, lab_, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:259"
    srv.iter_batch = 6
    srv.keep_queue = True
    sim = Sim(srv, reqs)
    A = "(APIServer pid=1327189)"
    refs = v1_refs("0.19") | {"model_path": model}
    nondefault = ("{'model_tag': 'google/gemma-4-31B-it', 'model': 'google/gemma-4-31B-it', 'tensor_parallel_size': 2}")
    logs = v1_startup(
        t=start, version=version, api_pid=1327189, core_pid=1327402, worker="Worker_TP0", worker_pid=1327560,
        nondefault=nondefault, arch="Gemma4ForConditionalGeneration", max_model_len=mml,
        engine_cfg=engine_cfg_str(model, model, dtype="torch.bfloat16", max_seq_len=mml, tp=2),
        extra_cfg_lines=[], weights_gib=29.4112, kv_gib=36.62, kv_tokens=blocks * 16, concurrency=blocks * 16 / mml,
        num_gpu_blocks=blocks, refs=refs, combined_kv_line=False,
    )
    logs += stats_lines(sim, start + 250, t_end, "v1", A)
    port = 52000
    for r in sim.reqs:
        if r.t_end <= t_end:
            port += 1
            logs.append((r.t_end + 0.001, f'{A} INFO:     10.42.7.19:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    gpus = gpu_devices("NVIDIA H100 80GB HBM3", 81559, [74101, 74087],
                       [(1327560, "VLLM::Worker_TP0", 73540), (1327561, "VLLM::Worker_TP1", 73526)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://10.42.7.5:8000",
        notes=("internal chat/RAG endpoint on 2x H100 (TP=2). Since about 14:02 nothing answers: every request hangs, the "
               "server stays up and /health is 200. /metrics every 5 s for 3 min, NVML, server log (tail since start)."),
        version_body={"version": version},
        models_body=models_body(model, model, mml, int(start + 140)),
        argv=["vllm", "serve", model, "--tensor-parallel-size", "2"],
        args={"model": model, "tensor-parallel-size": 2},
        model_config=None, gpus=gpus, logs=join(logs),
    )


# =========================================================================== 2
def j_glm47_ascend_kv99_tpot_quadruples() -> None:
    cid = "j-glm47-ascend-kv99-tpot-quadruples"
    rng = random.Random(5859)
    start = epoch(2026, 1, 13, 8, 40, 0)
    tb = start + 420.0  # benchmark start (8 clients)
    t0 = tb + 1500.0
    n, iv = 49, 5.0
    t_end = t0 + iv * (n - 1)
    served, path, mml, block, blocks = "glm-4.7", "/models/GLM-4.7-W8A8", 40960, 128, 2112
    fast, slow, w_slow = 0.112, 1.25, 0.279  # decode step alone / step carrying an 8,192-token (re)prefill chunk
    itl_mean = round(fast * (1 - w_slow) + slow * w_slow, 4)
    reqs = []
    for c in range(8):
        t = tb + c * 55.0 + rng.uniform(0, 3)
        while t < t_end + 60:
            plen = rng.randint(32000, 32600)
            r = Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=1024, max_tokens=1024,
                    queue_s=round(rng.uniform(0.3, 2.0), 4), prefill_s=round(plen / 8192 * slow, 4),
                    itl_s=itl_mean, itl_mix=[(fast, 1 - w_slow), (slow, w_slow)], finished_reason="length")
            reqs.append(r.finish())
            t = r.t_end + 0.5
    table, version = "0.11.0", "0.11.0"
    lab_ = labels_v1(table, num_gpu_blocks=str(blocks), block_size=str(block), gpu_memory_utilization="0.9",
                     swap_space="0")
    srv = Server(version, table, served, mml, block, blocks, lab_, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:123"
    srv.iter_batch = 8
    srv.keep_queue = True
    # preemptions (recompute mode): about one every 9 s once the 8 streams fill the pool
    tp = tb + 8 * 55.0 + 30.0
    while tp < t_end + 30:
        srv.preempt_times.append(round(tp, 3))
        srv.recompute_tokens.append(rng.randint(32300, 33500))
        tp += rng.uniform(7.0, 11.0)
    sim = Sim(srv, reqs)
    A = "(APIServer pid=4127)"
    refs = v1_refs("0.11.0") | {"model_path": path, "mnbt": "8192"}
    nondefault = ("{'model_tag': '/models/GLM-4.7-W8A8', 'host': '0.0.0.0', 'port': 8000, 'model': '/models/GLM-4.7-W8A8', "
                  "'trust_remote_code': True, 'max_model_len': 40960, 'quantization': 'ascend', 'served_model_name': ['glm-4.7'], "
                  "'tensor_parallel_size': 8, 'enable_expert_parallel': True, 'block_size': 128, 'gpu_memory_utilization': 0.9, "
                  "'max_num_batched_tokens': 8192, 'max_num_seqs': 16}")
    logs = v1_startup(
        t=start, version=version, api_pid=4127, core_pid=4390, worker="Worker_TP0", worker_pid=4512,
        nondefault=nondefault, arch="Glm4MoeForCausalLM", max_model_len=mml,
        engine_cfg=engine_cfg_str(path, served, dtype="torch.bfloat16", max_seq_len=mml, tp=8, quant="ascend"),
        extra_cfg_lines=[], weights_gib=45.8120, kv_gib=8.25, kv_tokens=blocks * block, concurrency=blocks * block / mml,
        num_gpu_blocks=blocks, refs=refs, combined_kv_line=False,
    )
    logs = [(t, l.replace("[__init__.py:216] Automatically detected platform cuda.",
                          "[__init__.py:207] Platform plugin ascend is activated")) for t, l in logs]
    logs += stats_lines(sim, tb, t_end, "v1", A)
    port = 38000
    for r in sim.reqs:
        if r.t_end <= t_end:
            port += 1
            logs.append((r.t_end + 0.001, f'{A} INFO:     127.0.0.1:{port} - "POST /v1/completions HTTP/1.1" 200 OK'))
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://127.0.0.1:8000",
        notes=("vllm-ascend 0.11.0rc2 image, one node with 8 Ascend A2 64G, GLM-4.7-W8A8. Benchmark with 32K input / 1K output at "
               "8 concurrent requests: TPOT is ~4x what 6-7 concurrent requests get. /metrics every 5 s for 4 min and the server "
               "log; no NVML on this host (NPUs)."),
        version_body={"version": version},
        models_body=models_body(served, path, mml, int(start + 300)),
        argv=["vllm", "serve", path, "--served-model-name", served, "--host", "0.0.0.0", "--port", "8000",
              "--trust-remote-code", "--quantization", "ascend", "--tensor-parallel-size", "8", "--enable-expert-parallel",
              "--max-model-len", "40960", "--max-num-seqs", "16", "--max-num-batched-tokens", "8192", "--block-size", "128",
              "--gpu-memory-utilization", "0.9"],
        args={"served-model-name": served, "host": "0.0.0.0", "port": 8000, "trust-remote-code": True,
              "quantization": "ascend", "tensor-parallel-size": 8, "enable-expert-parallel": True, "max-model-len": 40960,
              "max-num-seqs": 16, "max-num-batched-tokens": 8192, "block-size": 128, "gpu-memory-utilization": 0.9},
        model_config=None, gpus=None, logs=join(logs),
    )


# =========================================================================== 3
SPEC_POS3 = [0.93, 0.86]  # MTP, 2 speculative tokens: mean acceptance length 2.79


def _spec_expo3(sim: Sim, t: float) -> list[str]:
    gen = sim.at(t)["gen"]
    nreq = len([r for r in sim.reqs if r.t_first <= t])
    drafts = round((gen - nreq) / (1 + sum(SPEC_POS3)))
    base = {"engine": "0", "model_name": sim.srv.model_name}
    created = sim.srv.start_time + 12.5
    L = []
    for name, v in (("vllm:spec_decode_num_drafts", drafts), ("vllm:spec_decode_num_draft_tokens", drafts * 2),
                    ("vllm:spec_decode_num_accepted_tokens", sum(round(drafts * p) for p in SPEC_POS3))):
        L.append(f"# HELP {name}_total Number of {name.split('num_')[1].replace('_', ' ')}.")
        L.append(f"# TYPE {name}_total counter")
        L.append(f"{name}_total{{{lab(base)}}} {num(v)}")
        L.append(f"# HELP {name}_created Number of {name.split('num_')[1].replace('_', ' ')}.")
        L.append(f"# TYPE {name}_created gauge")
        L.append(f"{name}_created{{{lab(base)}}} {num(created)}")
    name = "vllm:spec_decode_num_accepted_tokens_per_pos"
    L.append(f"# HELP {name}_total Accepted tokens per draft position.")
    L.append(f"# TYPE {name}_total counter")
    for i, p in enumerate(SPEC_POS3):
        L.append(f"{name}_total{{{lab(base | {'position': str(i)})}}} {num(round(drafts * p))}")
    return L


def j_dgx_two_72k_prefills_starve_decode() -> None:
    cid = "j-dgx-two-72k-prefills-starve-decode"
    rng = random.Random(909)
    start = epoch(2026, 9, 7, 5, 58, 0)
    t0 = epoch(2026, 9, 7, 6, 34, 0)
    n, iv = 61, 5.0
    t_end = t0 + iv * (n - 1)
    served, mml, block, blocks = "qwen3.8-flash", 262144, 1056, 303
    fast, stall = 0.037, 5.5
    reqs = []
    # earlier turns of the three users (warm prompts, nothing cold overlapping)
    t = start + 400
    while t < t0 - 400:
        plen = rng.randint(4000, 20000)
        gen = rng.randint(200, 1500)
        reqs.append(Req(rid=rid(rng), t_arrive=round(t, 3), prompt_len=plen, hit=int(plen * 0.9) // 16 * 16, gen_len=gen,
                        max_tokens=8192, queue_s=0.01, prefill_s=round(0.3 + plen * 0.1 / 2000.0, 4),
                        itl_s=round(rng.uniform(0.035, 0.039), 4), finished_reason="stop"))
        t = reqs[-1].finish().t_end + rng.uniform(5, 60)
    ta = t0 + 12.0          # user A: long answer, warm prompt
    tb = ta + 10.0          # users B and C: cold ~72k prompts
    pb, pc = 104.0, 110.0   # their prefills (8,192-token chunks at ~6 s each, interleaved)
    a = Req(rid=rid(rng), t_arrive=ta, prompt_len=6200, hit=5600, gen_len=0, max_tokens=8192, queue_s=0.01,
            prefill_s=0.6, itl_s=fast, finished_reason="stop")
    a_first = ta + 0.61
    a.segments = [(fast, tb + 0.5 - a_first), (stall, tb + pc - (tb + 0.5)), (fast, 24.0)]
    # cold prompt of A's next turn arrives at t_cold and stalls B and C for ~55 s
    b = Req(rid=rid(rng), t_arrive=tb, prompt_len=72000, hit=0, gen_len=0, max_tokens=8192, queue_s=0.01,
            prefill_s=pb, itl_s=fast, finished_reason="stop")
    c = Req(rid=rid(rng), t_arrive=tb + 0.4, prompt_len=71400, hit=0, gen_len=0, max_tokens=8192, queue_s=0.01,
            prefill_s=pc - 0.4, itl_s=fast, finished_reason="stop")
    t_cold = tb + pc + 30.0
    p_cold = 55.0
    b_first, c_first = tb + 0.01 + pb, tb + 0.4 + 0.01 + pc - 0.4
    b.segments = [(fast, t_cold + 0.5 - b_first), (stall, p_cold), (fast, 40.0)]
    c.segments = [(fast, t_cold + 0.5 - c_first), (stall, p_cold), (fast, 25.0)]
    a2 = Req(rid=rid(rng), t_arrive=t_cold, prompt_len=70100, hit=0, gen_len=0, max_tokens=8192, queue_s=0.01,
             prefill_s=p_cold + 0.5, itl_s=fast, finished_reason="stop")
    a2.segments = [(fast, 80.0)]
    for r in (a, b, c, a2):
        r.finish()
        r.itl_s = round((r.t_end - r.t_first) / max(1, r.gen_len - 1), 4)
        reqs.append(r)
    table, version = "0.33.0", "0.33.0"
    lab_ = labels_v1(table, num_gpu_blocks=str(blocks), gpu_memory_utilization="0.8", block_size=str(block),
                     mamba_cache_mode="align", mamba_ssm_cache_dtype="float32", cache_hit_alignment_tokens="None",
                     effective_attention_block_size=str(block), enable_mamba_shared_prefix_checkpoint="False",
                     kv_cache_layout="None", kv_cache_max_concurrency=f"{blocks * block / mml:.2f}",
                     kv_cache_size_tokens=str(blocks * block), prefix_cache_retention_interval="0",
                     prefix_match_unit="None", replayssm_buffer_len="16", simple_cpu_offload_num_blocks="None",
                     skip_page_size_padded="None", swa_bounded_replay="True", use_kda_recoverssm="False",
                     use_replayssm="False", kv_cache_memory_bytes="None")
    srv = Server(version, table, served, mml, block, blocks, lab_, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:310"
    srv.iter_batch = 3
    srv.keep_queue = True
    srv.extra_expo = _spec_expo3
    sim = Sim(srv, reqs)
    A = "(APIServer pid=1)"
    logs = []
    for tl, line in stats_lines(sim, t0 - 120, t_end, "v1", A):
        logs.append((tl, line))
        pt, gt = sim.throughput(tl - 10, tl)
        acc = round(gt * (sum(SPEC_POS3) / (1 + sum(SPEC_POS3))), 2)
        dr = round(gt / (1 + sum(SPEC_POS3)) * 2, 2)
        if gt > 0:
            logs.append((tl + 0.001, f"{A} INFO {ts(tl)} [metrics.py:120] SpecDecoding metrics: Mean acceptance length: "
                                     f"{1 + sum(SPEC_POS3):.2f}, Accepted throughput: {acc:.2f} tokens/s, Drafted throughput: "
                                     f"{dr:.2f} tokens/s, Accepted: {int(acc * 10)} tokens, Drafted: {int(dr * 10)} tokens, "
                                     f"Per-position acceptance rate: {SPEC_POS3[0]:.3f}, {SPEC_POS3[1]:.3f}, Avg Draft acceptance "
                                     f"rate: {100 * sum(SPEC_POS3) / 2:.1f}%"))
    port = 46000
    for r in sim.reqs:
        if t0 - 120 <= r.t_end <= t_end:
            port += 1
            logs.append((r.t_end + 0.001, f'{A} INFO:     172.17.0.1:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    gpus = gpu_devices("NVIDIA GB10", 124546, [104210], [(431, "VLLM::EngineCore", 98320)])
    argv = ["vllm", "serve", "/models/qwen3.8-flash", "--served-model-name", served, "--host", "0.0.0.0", "--port", "8000",
            "--gpu-memory-utilization", "0.80", "--enable-prefix-caching", "--speculative-config",
            '{"method":"mtp","num_speculative_tokens":2}', "--max-model-len", "262144", "--max-num-seqs", "8"]
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://127.0.0.1:8000",
        notes=("qwen3.8-Flash-DGX recipe on one DGX Spark, shared by three people with a coding assistant. A user streaming an "
               "answer sees it drop from 30+ tok/s to ~0.2 tok/s for a minute or two, then back to 30+, when the others send "
               "requests. /metrics every 5 s for 5 min, NVML, container log (docker logs)."),
        version_body={"version": version},
        models_body=models_body(served, "/models/qwen3.8-flash", mml, int(start + 600)),
        argv=argv,
        args={"served-model-name": served, "host": "0.0.0.0", "port": 8000, "gpu-memory-utilization": 0.8,
              "enable-prefix-caching": True, "speculative-config": {"method": "mtp", "num_speculative_tokens": 2},
              "max-model-len": 262144, "max-num-seqs": 8},
        model_config=None, gpus=gpus, logs=join(logs),
    )


BUILDERS = {
    "j-gemma4-100k-prompt-above-76k-pool-stalls-queue": j_gemma4_100k_prompt_above_76k_pool_stalls_queue,
    "j-glm47-ascend-kv99-tpot-quadruples": j_glm47_ascend_kv99_tpot_quadruples,
    "j-dgx-two-72k-prefills-starve-decode": j_dgx_two_72k_prefills_starve_decode,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(BUILDERS):
        BUILDERS[name]()
        print("built", name)
