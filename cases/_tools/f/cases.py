#!/usr/bin/env python3
"""Build the bundles of the f-* cases.

    /work/main/.venv/bin/python cases/_tools/f/cases.py [case-id ...]

Each builder turns the scenario of its case.yaml (`quoted` / `assumed`) into a list of simulated
requests; engine.py (adapted from writer b's simulator) writes consistent scrapes, NVML samples
and log lines from them. Deterministic (seeded, no wall clock).
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import engine_cfg_str, labels_v1, poisson_arrivals, v0_labels, v1_refs, v1_startup  # noqa: E402
from engine import Req, Server, Sim, epoch, gpu_devices, lab, models_body, num, stats_lines, ts, write_bundle  # noqa: E402
from logs import http_started, join  # noqa: E402

CASES = Path(__file__).resolve().parents[2]
GiB = 1024 ** 3

QWEN25_7B = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151645,
    "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02, "intermediate_size": 18944,
    "max_position_embeddings": 32768, "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
    "sliding_window": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 152064,
}
QWEN3_32B_FP8 = {
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 25600, "max_position_embeddings": 40960, "max_window_layers": 64, "model_type": "qwen3",
    "num_attention_heads": 64, "num_hidden_layers": 64, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True, "use_sliding_window": False,
    "vocab_size": 151936,
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]},
}
LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                             "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.0.dev0",
    "use_cache": True, "vocab_size": 128256,
}
LLAMA2_7B = {
    "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 11008, "max_position_embeddings": 4096, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "pretraining_tp": 1,
    "rms_norm_eps": 1e-05, "rope_scaling": None, "tie_word_embeddings": False, "torch_dtype": "float16",
    "transformers_version": "4.32.0.dev0", "use_cache": True, "vocab_size": 32000,
}
LLAMA32_3B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009], "head_dim": 128, "hidden_act": "silu", "hidden_size": 3072,
    "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 131072, "mlp_bias": False,
    "model_type": "llama", "num_attention_heads": 24, "num_hidden_layers": 28, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.45.0.dev0",
    "use_cache": True, "vocab_size": 128256,
}


def rid(rng: random.Random) -> str:
    return f"chatcmpl-{rng.getrandbits(128):032x}"


def slot_queue(reqs: list[Req], slots: int) -> list[Req]:
    """FCFS admission into at most `slots` running sequences (no KV limit)."""
    ends: list[float] = []
    for r in sorted(reqs, key=lambda r: r.t_arrive):
        r.finish()
        dur = r.t_end - r.t_sched
        ends = sorted(e for e in ends if e > r.t_arrive)
        start = r.t_arrive + r.queue_s
        if len(ends) >= slots:
            start = max(start, ends[len(ends) - slots] + 0.004)
        r.queue_s = round(start - r.t_arrive, 4)
        r.finish()
        ends.append(r.t_sched + dur)
    return reqs


# =========================================================================== 1
def f_pd_decode_no_kv_connector_prefill_twice() -> None:
    cid = "f-pd-decode-no-kv-connector-prefill-twice"
    rng = random.Random(601)
    start = epoch(2026, 8, 10, 13, 2, 11)
    n, iv = 36, 5.0
    t0 = start + 1800.0
    t_end = t0 + iv * (n - 1)
    reqs = []
    for ta in poisson_arrivals(rng, start + 200, t_end, 3.0):
        plen = rng.randint(2400, 4600)
        gen = rng.randint(120, 320)
        hit = 96 if rng.random() < 0.6 else 0  # the shared chat-template head only
        reqs.append(Req(rid=rid(rng), t_arrive=ta, prompt_len=plen, hit=hit, gen_len=gen, max_tokens=512,
                        queue_s=round(rng.uniform(0.002, 0.02) if rng.random() < 0.8 else rng.uniform(0.05, 0.25), 4),
                        prefill_s=round(0.03 + (plen - hit) / 13000.0 + rng.uniform(0.0, 0.12), 4),
                        itl_s=round(rng.uniform(0.0135, 0.0165), 4),
                        finished_reason="stop" if gen < 300 else "length"))
    table, version = "0.24.0", "0.25.1"
    blocks = 30576
    lab_ = labels_v1(table, num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9",
                     kv_cache_size_tokens=str(blocks * 16), kv_cache_max_concurrency="14.93",
                     kv_cache_memory_bytes="None", cpu_kvcache_space_bytes="None")
    srv = Server(version, table, "Qwen/Qwen2.5-7B-Instruct", 32768, 16, blocks, lab_, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:257"
    srv.iter_batch = 14
    sim = Sim(srv, reqs)
    A, E, W = "(APIServer pid=1)", "(EngineCore_DP0 pid=312)", "(EngineCore_DP0 pid=312)"
    refs = v1_refs(version) | {"model_path": "/mnt/models"}
    nondefault = ("{'model_tag': '/mnt/models', 'host': '0.0.0.0', 'port': 8001, 'model': '/mnt/models', "
                  "'served_model_name': ['Qwen/Qwen2.5-7B-Instruct'], 'max_model_len': 32768, 'enable_prefix_caching': True}")
    logs = v1_startup(
        t=start, version=version, api_pid=1, core_pid=312, worker="EngineCore_DP0", worker_pid=312,
        nondefault=nondefault, arch="Qwen2ForCausalLM", max_model_len=32768,
        engine_cfg=engine_cfg_str("/mnt/models", "Qwen/Qwen2.5-7B-Instruct", dtype="torch.bfloat16", max_seq_len=32768, tp=1),
        extra_cfg_lines=[], weights_gib=14.2488, kv_gib=26.13, kv_tokens=blocks * 16, concurrency=14.93,
        num_gpu_blocks=blocks, refs=refs, combined_kv_line=False,
    )
    logs += stats_lines(sim, start + 210, t_end, "v1", A)
    port = 41000
    for r in sim.reqs:
        if r.t_arrive < t0 - 60:
            continue
        port += 1
        logs.append((r.t_arrive + 0.001, f"{E} WARNING {ts(r.t_arrive)} [core.py:367] Got kv_transfer_params, but no KVConnector found. Disabling KVTransfer for this request."))
        logs.append((r.t_end + 0.001, f'{A} INFO:     127.0.0.1:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
    gpus = gpu_devices("NVIDIA H100 80GB HBM3", 81559, [74012], [(312, "VLLM::EngineCore", 73452)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://rag-qwen-kserve-workload-decode.llm.svc:8001",
        notes=("decode pod of the LLMInferenceService 'rag-qwen' (spec.prefill set: a prefill Deployment on the other GPU of the node, "
               "llm-d-routing-sidecar --kv-connector=nixlv2 in front of this engine, EPP scheduler). Users see first tokens later than "
               "before the move to P/D. /metrics of the decode engine every 5 s for 3 min, NVML of the decode GPU, decode pod log "
               "(kubectl logs -c main)."),
        version_body={"version": version},
        models_body=models_body("Qwen/Qwen2.5-7B-Instruct", "/mnt/models", 32768, int(start + 130)),
        argv=["vllm", "serve", "/mnt/models", "--served-model-name", "Qwen/Qwen2.5-7B-Instruct", "--port", "8001",
              "--host", "0.0.0.0", "--max-model-len", "32768", "--enable-prefix-caching"],
        args={"served-model-name": "Qwen/Qwen2.5-7B-Instruct", "port": 8001, "host": "0.0.0.0", "max-model-len": 32768,
              "enable-prefix-caching": True},
        model_config=QWEN25_7B, gpus=gpus, logs=join(logs),
    )


# =========================================================================== 2
def f_xpu_one_running_fourteen_waiting() -> None:
    cid = "f-xpu-one-running-fourteen-waiting"
    rng = random.Random(602)
    start = epoch(2026, 4, 28, 20, 12, 40)
    n, iv = 31, 10.0
    t0 = epoch(2026, 4, 28, 22, 54, 32) - 0.4
    t_end = t0 + iv * (n - 1)
    blocks = 2616
    reqs = []
    # finished history: agent turns that shared the conversation prefix
    t = start + 300
    for i in range(40):
        plen = rng.randint(14000, 22000)
        hit = int(plen * 0.92) // 16 * 16
        gen = rng.randint(150, 900)
        reqs.append(Req(rid=rid(rng), t_arrive=t, prompt_len=plen, hit=hit, gen_len=gen, max_tokens=8192,
                        queue_s=0.01, prefill_s=round(0.4 + (plen - hit) / 1900.0, 4), itl_s=round(rng.uniform(0.11, 0.17), 4),
                        finished_reason="stop"))
        t = reqs[-1].finish().t_end + rng.uniform(2, 25)
    # the long one: admitted ~61 min before the capture, still decoding (max_tokens 28672)
    t_long = t + 3
    plen = 12288
    hit = 11200
    long_req = Req(rid=rid(rng), t_arrive=t_long, prompt_len=plen, hit=hit, gen_len=28000, max_tokens=28672,
                   queue_s=0.01, prefill_s=round(0.4 + (plen - hit) / 1900.0, 4), itl_s=0.185, finished_reason="length")
    reqs.append(long_req)
    long_req.finish()
    # context at t0 must be ~0.765 of the pool
    # (prompt + generated) / 16 / blocks = 0.765 -> generated ~= 0.765*1960*16 - 20512
    want_gen = int(0.765 * blocks * 16) - plen
    long_req.t_arrive = round(t0 - want_gen * long_req.itl_s - long_req.prefill_s - 0.01 - 1.0, 3)
    long_req.finish()
    assert max(r.t_end for r in reqs[:-1]) < long_req.t_arrive, 'history overlaps the long request'
    span = (t0 - 600) - (long_req.t_sched + 60)
    for i in range(14):
        ta = long_req.t_sched + 60 + span * (i + rng.uniform(0.1, 0.9)) / 14
        p = rng.randint(18000, 24000)
        reqs.append(Req(rid=rid(rng), t_arrive=round(ta, 3), prompt_len=p, hit=int(p * 0.9) // 16 * 16, gen_len=400,
                        max_tokens=32768, queue_s=20000.0, prefill_s=2.0, itl_s=0.15, finished_reason="stop"))
    table, version = "0.12.0", "0.12.0+xpu"
    lab_ = labels_v1(table, num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9", cpu_kvcache_space_bytes="None")
    srv = Server(version, table, "Qwen3-8B", 40960, 16, blocks, lab_, start)
    srv.extra_gauges["_loggers_ref"] = "loggers.py:257"
    srv.iter_batch = 1
    sim = Sim(srv, reqs)
    A = "(APIServer pid=851)"
    logs = []
    tt = t0 - 40.0
    while tt <= t_end + 0.1:
        for line_t, line in stats_lines(sim, tt, tt, "v1", A):
            logs.append((line_t, line))
        logs.append((tt + 2.1, f'{A} INFO:     10.109.20.86:59146 - "GET /metrics HTTP/1.1" 200 OK'))
        logs.append((tt + 7.1, f'{A} INFO:     10.109.20.86:59146 - "GET /metrics HTTP/1.1" 200 OK'))
        tt += 10.0
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://10.109.20.31:8000",
        notes=("llm-scaler vLLM container on an Intel XPU host. For over an hour the log shows 'Running: 1 reqs, Waiting: 14 reqs' "
               "and users say their requests never start; nobody is sending new prompts. /metrics every 10 s for 5 min and the "
               "container log (docker logs --tail). The launch command was not recorded; no NVML on this host."),
        version_body={"version": version},
        models_body=models_body("Qwen3-8B", "/llm/models/Qwen3-8B", 40960, int(start + 150)),
        argv=None, args={}, model_config=None, gpus=None, logs=join(logs),
    )


# =========================================================================== 3
SPEC_K = 3
SPEC_POS = [0.730, 0.594, 0.506]  # sums to 1.83 accepted per draft: mean acceptance length 2.83


def _spec_expo(sim: Sim, t: float) -> list[str]:
    gen = sim.at(t)["gen"]
    nreq = len([r for r in sim.reqs if r.t_first <= t])
    drafts = round((gen - nreq) / (1 + sum(SPEC_POS)))  # the first token of each request comes from prefill
    base = {"engine": "0", "model_name": sim.srv.model_name}
    created = sim.srv.start_time + 12.5
    L = []
    for name, v in (("vllm:spec_decode_num_drafts", drafts), ("vllm:spec_decode_num_draft_tokens", drafts * SPEC_K),
                    ("vllm:spec_decode_num_accepted_tokens", sum(round(drafts * p) for p in SPEC_POS))):
        L.append(f"# HELP {name}_total Number of {name.split('num_')[1].replace('_', ' ')}.")
        L.append(f"# TYPE {name}_total counter")
        L.append(f"{name}_total{{{lab(base)}}} {num(v)}")
        L.append(f"# HELP {name}_created Number of {name.split('num_')[1].replace('_', ' ')}.")
        L.append(f"# TYPE {name}_created gauge")
        L.append(f"{name}_created{{{lab(base)}}} {num(created)}")
    return L


def f_ngram_spec_600_running_qwen3_32b_fp8() -> None:
    cid = "f-ngram-spec-600-running-qwen3-32b-fp8"
    rng = random.Random(603)
    start = epoch(2025, 6, 6, 14, 8, 2)
    n, iv = 36, 5.0
    t0 = start + 900.0
    t_end = t0 + iv * (n - 1)
    reqs = []
    for ta in poisson_arrivals(rng, t0 - 240, t_end, 12.0):
        plen = rng.randint(120, 330)
        gen = rng.randint(150, 420)
        reqs.append(Req(rid=rid(rng), t_arrive=ta, prompt_len=plen, hit=0 if rng.random() < 0.97 else 16, gen_len=gen,
                        max_tokens=1024, queue_s=round(rng.uniform(0.003, 0.05), 4),
                        prefill_s=round(rng.uniform(0.35, 0.9), 4), itl_s=round(rng.uniform(0.172, 0.188), 4),
                        finished_reason="stop" if gen < 400 else "length"))
    table, version = "0.9.2", "0.9.0.1"
    blocks = 73152
    lab_ = labels_v1(table, num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9", cpu_kvcache_space_bytes="None")
    srv = Server(version, table, "Qwen3-32B-FP8", 32768, 16, blocks, lab_, start)
    srv.exclude = {"vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries", "vllm:prefix_cache_hits",
                   "vllm:spec_decode_num_accepted_tokens_per_pos"}
    srv.extra_gauges["_loggers_ref"] = "loggers.py:116"
    srv.extra_expo = _spec_expo
    srv.iter_batch = 600
    sim = Sim(srv, reqs)
    A = "INFO"
    refs = v1_refs("0.9.0") | {"model_path": "Qwen/Qwen3-32B-FP8", "sched": "config.py:2131", "mnbt": "8192"}
    spec = ("SpeculativeConfig(method='ngram', model=None, num_spec_tokens=3)")
    nondefault = ("{'model': 'Qwen/Qwen3-32B-FP8', 'served_model_name': ['Qwen3-32B-FP8'], 'tensor_parallel_size': 4, "
                  "'max_model_len': 32768, 'max_num_seqs': 1024, 'speculative_config': {'method': 'ngram', "
                  "'num_speculative_tokens': 3, 'prompt_lookup_max': 4, 'prompt_lookup_min': 2}}")
    logs = v1_startup(
        t=start, version=version, api_pid=0, core_pid=5121, worker="VllmWorker rank=0", worker_pid=5190,
        nondefault=nondefault, arch="Qwen3ForCausalLM", max_model_len=32768,
        engine_cfg=engine_cfg_str("Qwen/Qwen3-32B-FP8", "Qwen3-32B-FP8", dtype="torch.bfloat16", max_seq_len=32768, tp=4,
                                  quant="fp8").replace("speculative_config=None", f"speculative_config={spec}"),
        extra_cfg_lines=[], weights_gib=8.4712, kv_gib=70.31, kv_tokens=blocks * 16, concurrency=35.72,
        num_gpu_blocks=blocks, refs=refs, combined_kv_line=False,
    )
    # V1 0.9.0 lines carry no "(APIServer pid=...)" prefix
    logs = [(t, l.replace("(APIServer pid=0) ", "")) for t, l in logs]
    st_lines = stats_lines(sim, t0 - 60, t_end, "v1", "")
    for t, line in st_lines:
        line = line.lstrip()
        logs.append((t, line))
        a, b = sim.at(t - 10.0), sim.at(t)
        gen_d = (b["gen"] - a["gen"]) - (len([r for r in sim.reqs if t - 10 < r.t_first <= t]))
        drafts = max(1, round(gen_d / (1 + sum(SPEC_POS))))
        acc = sum(round(drafts * p) for p in SPEC_POS)
        logs.append((t + 0.001, f"INFO {ts(t)} [metrics.py:86] SpecDecoding metrics: Draft acceptance rate: "
                                f"{100 * acc / (drafts * SPEC_K):.1f}%, Mean acceptance length: {1 + acc / drafts:.2f}, "
                                f"Accepted: {acc} tokens, Drafted: {drafts * SPEC_K} tokens, Per-position acceptance rate: "
                                + ", ".join(f"{p:.3f}" for p in SPEC_POS)))
    gpus = gpu_devices("NVIDIA H20", 97871, [89210] * 4,
                       [(5190 + i, f"VllmWorker rank={i}" if False else "python3", 88650) for i in range(4)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://10.12.3.40:8000",
        notes=("Qwen3-32B-FP8 served with n-gram speculative decoding for a batch-style chat workload (~600 concurrent streams). "
               "Output tokens/s per stream is lower than on our replica without speculative decoding. /metrics every 5 s for 3 min, "
               "NVML, server log."),
        version_body={"version": version},
        models_body=models_body("Qwen3-32B-FP8", "Qwen/Qwen3-32B-FP8", 32768, int(start + 200)),
        argv=["vllm", "serve", "Qwen/Qwen3-32B-FP8", "--served-model-name", "Qwen3-32B-FP8", "--tensor-parallel-size", "4",
              "--max-model-len", "32768", "--max-num-seqs", "1024", "--speculative-config",
              '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4, "prompt_lookup_min": 2}'],
        args={"served-model-name": "Qwen3-32B-FP8", "tensor-parallel-size": 4, "max-model-len": 32768, "max-num-seqs": 1024,
              "speculative-config": '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4, "prompt_lookup_min": 2}'},
        model_config=QWEN3_32B_FP8, gpus=gpus, logs=join(logs),
    )


# =========================================================================== 4
def f_fa3_fp8_kv_long_context_tp2() -> None:
    cid = "f-fa3-fp8-kv-long-context-tp2"
    rng = random.Random(604)
    start = epoch(2025, 8, 27, 9, 41, 5)
    n, iv = 40, 5.0
    t0 = start + 1500.0
    t_end = t0 + iv * (n - 1)
    reqs = []
    # two client workers, closed loop: next request right after the previous one finished
    for w in range(2):
        t = start + 400 + w * 3.7
        while t < t_end + 30:
            plen = rng.randint(96000, 124000)
            gen = rng.randint(16, 48)
            r = Req(rid=f"cmpl-{rng.getrandbits(128):032x}", t_arrive=round(t, 3), prompt_len=plen, hit=0, gen_len=gen,
                    max_tokens=64, queue_s=round(rng.uniform(0.002, 0.01), 4),
                    prefill_s=round(plen / 15500.0 + plen * plen / 9.0e9, 4), itl_s=round(rng.uniform(0.0088, 0.0098), 4),
                    finished_reason="stop")
            reqs.append(r.finish())
            t = r.t_end + rng.uniform(0.05, 0.4)
    table, version = "0.9.2", "0.8.5.post1"
    blocks = 63408
    lab_ = labels_v1(table, num_gpu_blocks=str(blocks), gpu_memory_utilization="0.9", cache_dtype="fp8",
                     cpu_kvcache_space_bytes="None", enable_prefix_caching="True")
    srv = Server(version, table, "meta-llama/Llama-3.1-8B-Instruct", 131072, 16, blocks, lab_, start)
    srv.exclude = {"vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries", "vllm:prefix_cache_hits",
                   "vllm:spec_decode_num_accepted_tokens_per_pos"}
    srv.extra_gauges["_loggers_ref"] = "loggers.py:111"
    srv.iter_batch = 2
    sim = Sim(srv, reqs)
    refs = v1_refs("0.8.5") | {"model_path": "meta-llama/Llama-3.1-8B-Instruct", "mnbt": "2048"}
    nondefault = ("{'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 131072, 'tensor_parallel_size': 2, "
                  "'kv_cache_dtype': 'fp8'}")
    W = "(VllmWorker rank=0 pid=20931)"
    logs = v1_startup(
        t=start, version=version, api_pid=0, core_pid=20877, worker="VllmWorker rank=0", worker_pid=20931,
        nondefault=nondefault, arch="LlamaForCausalLM", max_model_len=131072,
        engine_cfg=engine_cfg_str("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", dtype="torch.bfloat16",
                                  max_seq_len=131072, tp=2, kv_dtype="fp8"),
        extra_cfg_lines=["[cache.py:122] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor"],
        weights_gib=7.5123, kv_gib=30.96, kv_tokens=blocks * 16, concurrency=7.74,
        num_gpu_blocks=blocks, refs=refs, combined_kv_line=False,
        extra_after_kv=[],
    )
    logs = [(t, l.replace("(APIServer pid=0) ", "")) for t, l in logs]
    logs.append((start + 24, f"{W} INFO {ts(start + 24)} [cuda.py:221] Using Flash Attention backend on V1 engine."))
    logs.append((start + 24.1, f"{W} INFO {ts(start + 24)} [flash_attn.py:89] Using FlashAttention version 3"))
    logs.append((start + 69, f"{W} WARNING {ts(start + 69)} [kv_cache.py:86] Using KV cache scaling factor 1.0 for fp8_e4m3. This may cause accuracy issues. Please make sure k/v_scale scaling factors are available in the fp8 checkpoint."))
    logs += [(t, l.lstrip()) for t, l in stats_lines(sim, start + 410, t_end, "v1", "")]
    gpus = gpu_devices("NVIDIA H100 80GB HBM3", 81559, [75820, 75820], [(20931, "python3", 75260), (20932, "python3", 75260)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://h100-node-2:8000",
        notes=("Llama-3.1-8B-Instruct, TP=2, --kv-cache-dtype fp8, serving our long-document QA. Users report wrong or garbled "
               "answers on long documents (100k+ tokens); short prompts look fine. Our needle-in-a-haystack eval at ~100k-124k "
               "tokens scores far lower on this TP=2 server than on the TP=1 server with the same flags. Capture taken while the "
               "eval runs (2 workers): /metrics every 5 s, NVML, server log."),
        version_body={"version": version},
        models_body=models_body("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", 131072, int(start + 140)),
        argv=["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "131072", "--tensor-parallel-size", "2",
              "--kv-cache-dtype", "fp8"],
        args={"max-model-len": 131072, "tensor-parallel-size": 2, "kv-cache-dtype": "fp8"},
        model_config=LLAMA31_8B, gpus=gpus, logs=join(logs),
    )


# =========================================================================== 5
def v04_startup(t: float, *, model: str, tp: int, gpu_blocks: int, cpu_blocks: int, extra: str) -> list[tuple[float, str]]:
    return [
        (t, f"INFO {ts(t)} api_server.py:151] vLLM API server version 0.4.1"),
        (t, f"INFO {ts(t)} api_server.py:152] args: Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, ssl_ca_certs=None, ssl_cert_reqs=0, root_path=None, middleware=[], model='{model}', tokenizer=None, skip_tokenizer_init=False, revision=None, code_revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', quantization_param_path=None, max_model_len=None, guided_decoding_backend='outlines', worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size={tp}, max_parallel_loading_workers=None, ray_workers_use_nsight=False, block_size=16, enable_prefix_caching=False, use_v2_block_manager=False, num_lookahead_slots=0, seed=0, swap_space=4, gpu_memory_utilization=0.9, num_gpu_blocks_override=None, max_num_batched_tokens=None, max_num_seqs=1, max_logprobs=5, disable_log_stats=False, quantization=None, enforce_eager=False, max_context_len_to_capture=8192, disable_custom_all_reduce=False, tokenizer_pool_size=0, tokenizer_pool_type='ray', tokenizer_pool_extra_config=None, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, lora_dtype='auto', max_cpu_loras=None, device='auto', image_input_type=None, image_token_id=None, image_input_shape=None, image_feature_size=None, scheduler_delay_factor=0.0, enable_chunked_prefill=False, speculative_model=None, num_speculative_tokens=None, speculative_max_model_len=None, model_loader_extra_config=None, engine_use_ray=False, disable_log_requests=True, max_log_len=None{extra})"),
        (t + 6, f"INFO {ts(t + 6)} llm_engine.py:98] Initializing an LLM engine (v0.4.1) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=4096, download_dir=None, load_format=auto, tensor_parallel_size={tp}, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, quantization_param_path=None, device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='outlines'), seed=0)"),
        (t + 40, f"INFO {ts(t + 40)} model_runner.py:173] Loading model weights took 6.2831 GB"),
        (t + 46, f"INFO {ts(t + 46)} distributed_gpu_executor.py:45] # GPU blocks: {gpu_blocks}, # CPU blocks: {cpu_blocks}"),
        (t + 49, f"INFO {ts(t + 49)} model_runner.py:872] Capturing the model for CUDA graphs. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI."),
        (t + 49, f"INFO {ts(t + 49)} model_runner.py:876] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage."),
        (t + 55, f"INFO {ts(t + 55)} model_runner.py:953] Graph capturing finished in 6 secs."),
        (t + 56, f"INFO {ts(t + 56)} serving_chat.py:339] Using default chat template:"),
    ] + [(t + 57, l) for _, l in http_started(t + 57, 0, v0=True)] + [
        (t + 57, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")]


def f_max_num_seqs_1_burst_ttft_a30() -> None:
    cid = "f-max-num-seqs-1-burst-ttft-a30"
    rng = random.Random(605)
    start = epoch(2024, 4, 22, 6, 11, 40)
    n, iv = 40, 5.0
    t_burst = start + 300.0
    t0 = t_burst + 25.0
    reqs = []
    for i in range(200):
        plen = rng.randint(60, 700)
        gen = rng.randint(40, 400)
        reqs.append(Req(rid=f"cmpl-{rng.getrandbits(128):032x}", t_arrive=round(t_burst + i * 0.0015, 4), prompt_len=plen, hit=0,
                        gen_len=gen, max_tokens=gen, queue_s=0.0, prefill_s=round(0.02 + plen / 9000.0, 4),
                        itl_s=round(rng.uniform(0.0165, 0.0178), 4), finished_reason="length"))
    slot_queue(reqs, 1)
    srv = Server("0.4.1", None, "meta-llama/Llama-2-7b-chat-hf", 4096, 16, 2878, v0_labels(2878, False) | {"num_cpu_blocks": "1024"}, start)
    srv.cache_labels = {k: v for k, v in srv.cache_labels.items() if k not in ("is_attention_free", "cpu_offload_gb")}
    srv.cache_labels["swap_space_bytes"] = "4294967296"
    srv.keep_queue = True
    sim = Sim(srv, reqs)
    logs = v04_startup(start, model="meta-llama/Llama-2-7b-chat-hf", tp=2, gpu_blocks=2878, cpu_blocks=1024, extra="")
    for t, line in stats_lines(sim, t_burst + 5, t0 + iv * (n - 1), "v0:229", ""):
        if "Prefix cache" in line:
            continue
        logs.append((t, line))
    for r in sim.reqs:
        logs.append((r.t_end + 0.001, f'INFO:     10.5.1.7:{51000 + int(r.t_arrive * 1000) % 9000} - "POST /v1/completions HTTP/1.1" 200 OK'))
    gpus = gpu_devices("NVIDIA A30", 24576, [22890, 22890], [(2171, "python", 22380), (2390, "ray::RayWorkerWrapper", 22380)])
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://127.0.0.1:8000",
        notes=("benchmark of a batch-size-1 deployment: server started with --max-num-seqs 1, benchmarks/benchmark_serving.py run "
               "with 200 prompts at request rate inf. The TTFT and latency reported per request keep growing during the run and look "
               "abnormal. /metrics every 5 s, NVML, server log."),
        version_body={"version": "0.4.1"},
        models_body=models_body("meta-llama/Llama-2-7b-chat-hf", "meta-llama/Llama-2-7b-chat-hf", 4096, int(start + 57)),
        argv=["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "meta-llama/Llama-2-7b-chat-hf",
              "--tensor-parallel-size", "2", "--max-num-seqs", "1", "--disable-log-requests"],
        args={"model": "meta-llama/Llama-2-7b-chat-hf", "tensor-parallel-size": 2, "max-num-seqs": 1, "disable-log-requests": True},
        model_config=LLAMA2_7B, gpus=gpus, logs=join(logs),
    )


# =========================================================================== 6
def f_itl_9ms_max_num_seqs_32_healthy() -> None:
    cid = "f-itl-9ms-max-num-seqs-32-healthy"
    rng = random.Random(606)
    start = epoch(2025, 5, 2, 19, 20, 4)
    n, iv = 36, 5.0
    t0 = start + 420.0
    t_end = t0 + iv * (n - 1)
    reqs = []
    for ta in poisson_arrivals(rng, start + 150, t_end, 16.0):
        plen = max(40, min(600, int(rng.lognormvariate(5.2, 0.6))))
        gen = max(30, min(260, int(rng.lognormvariate(4.65, 0.5))))
        reqs.append(Req(rid=f"cmpl-{rng.getrandbits(128):032x}", t_arrive=ta, prompt_len=plen, hit=0, gen_len=gen,
                        max_tokens=gen, queue_s=round(rng.uniform(0.004, 0.03), 4), prefill_s=round(0.018 + plen / 30000.0 + rng.uniform(0, 0.04), 4),
                        itl_s=round(rng.uniform(0.0088, 0.0100), 4), finished_reason="length"))
    slot_queue(reqs, 32)
    srv = Server("0.8.5", None, "meta-llama/Llama-3.2-3B-Instruct", 4096, 16, 36960, v0_labels(36960, False), start)
    srv.keep_queue = True
    sim = Sim(srv, reqs)
    logs = [
        (start, f"INFO {ts(start)} [__init__.py:239] Automatically detected platform cuda."),
        (start + 2, f"INFO {ts(start + 2)} [api_server.py:1043] vLLM API server version 0.8.5"),
        (start + 2, f"INFO {ts(start + 2)} [api_server.py:1044] args: Namespace(host=None, port=8000, model='meta-llama/Llama-3.2-3B-Instruct', max_model_len=4096, max_num_seqs=32, num_scheduler_steps=10, disable_log_requests=True, ...)"),
        (start + 9, f"WARNING {ts(start + 9)} [arg_utils.py:1658] --num-scheduler-steps is not supported by the V1 Engine. Falling back to V0. "),
        (start + 9, f"INFO {ts(start + 9)} [llm_engine.py:240] Initializing a V0 LLM engine (v0.8.5) with config: model='meta-llama/Llama-3.2-3B-Instruct', speculative_config=None, tokenizer='meta-llama/Llama-3.2-3B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=4096, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, seed=None, served_model_name=meta-llama/Llama-3.2-3B-Instruct, num_scheduler_steps=10, multi_step_stream_outputs=True, enable_prefix_caching=None, chunked_prefill_enabled=False, use_async_output_proc=True, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={{\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[32,24,16,8,4,2,1],\"max_capture_size\":32}}, use_cached_outputs=True, "),
        (start + 30, f"INFO {ts(start + 30)} [model_runner.py:1140] Model loading took 6.0160 GiB and 18.216133 seconds"),
        (start + 34, f"INFO {ts(start + 34)} [executor_base.py:112] # cuda blocks: 36960, # CPU blocks: 2340"),
        (start + 34, f"INFO {ts(start + 34)} [executor_base.py:117] Maximum concurrency for 4096 tokens per request: 144.38x"),
        (start + 40, f"INFO {ts(start + 40)} [model_runner.py:1592] Graph capturing finished in 6 secs, took 0.16 GiB"),
        (start + 40, f"INFO {ts(start + 40)} [llm_engine.py:437] init engine (profile, create kv cache, warmup model) took 9.87 seconds"),
        (start + 41, f"INFO {ts(start + 41)} [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000"),
    ]
    for t, line in stats_lines(sim, start + 160, t_end, "v0:486", ""):
        if "Prefix cache" in line:
            continue
        logs.append((t, line.replace(" metrics.py:486] ", " [metrics.py:486] ")))
    gpus = gpu_devices("NVIDIA H100 PCIe", 81559, [74490], [(31977, "python", 73930)])
    srv.cache_labels["enable_prefix_caching"] = "False"
    write_bundle(
        CASES / cid / "bundle", sim, t0=t0, n=n, interval=iv,
        endpoint="http://127.0.0.1:8000",
        notes=("benchmark_serving at --request-rate 16 against the server started with --max-num-seqs 32 (same flags otherwise as the "
               "--max-num-seqs 16 run, which gave mean ITL 8.2 ms; this one gives 9.4 ms). Is the higher ITL a problem? /metrics every "
               "5 s during the run, NVML, server log."),
        version_body={"version": "0.8.5"},
        models_body=models_body("meta-llama/Llama-3.2-3B-Instruct", "meta-llama/Llama-3.2-3B-Instruct", 4096, int(start + 41)),
        argv=["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "meta-llama/Llama-3.2-3B-Instruct",
              "--disable-log-requests", "--num-scheduler-steps", "10", "--max_model_len", "4096", "--max-num-seqs", "32"],
        args={"model": "meta-llama/Llama-3.2-3B-Instruct", "disable-log-requests": True, "num-scheduler-steps": 10,
              "max_model_len": 4096, "max-num-seqs": 32},
        model_config=LLAMA32_3B, gpus=gpus, logs=join(logs),
    )


BUILDERS = {
    "f-pd-decode-no-kv-connector-prefill-twice": f_pd_decode_no_kv_connector_prefill_twice,
    "f-xpu-one-running-fourteen-waiting": f_xpu_one_running_fourteen_waiting,
    "f-ngram-spec-600-running-qwen3-32b-fp8": f_ngram_spec_600_running_qwen3_32b_fp8,
    "f-fa3-fp8-kv-long-context-tp2": f_fa3_fp8_kv_long_context_tp2,
    "f-max-num-seqs-1-burst-ttft-a30": f_max_num_seqs_1_burst_ttft_a30,
    "f-itl-9ms-max-num-seqs-32-healthy": f_itl_9ms_max_num_seqs_32_healthy,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(BUILDERS):
        BUILDERS[name]()
        print("built", name)
