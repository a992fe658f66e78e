"""Builds the zxf-* bundles (writer zxf, round 23) with gen.py (copied from writer zxb) and sim.py.

Run: python cases/_tools/zxf/build.py [case ...]   (deterministic: fixed seeds)
"""
from __future__ import annotations

import datetime as dt
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import Req, Scenario  # noqa: E402
from sim import SimScenario, simulate  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
GiB = 1024 ** 3


def ts(t):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def cache_labels(block, blocks, util, prefix=True, dtype="auto", extra=None):
    d = {"block_size": str(block), "cache_dtype": dtype, "calculate_kv_scales": "False",
         "cpu_offload_gb": "0", "enable_prefix_caching": str(prefix), "gpu_memory_utilization": str(util),
         "is_attention_free": "False", "num_cpu_blocks": "None", "num_gpu_blocks": str(blocks),
         "num_gpu_blocks_override": "None", "prefix_caching_hash_algo": "builtin",
         "sliding_window": "None", "swap_space": "4", "swap_space_bytes": "4294967296"}
    if extra:
        d.update(extra)
    return d


QWQ_CONFIG = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 5120, "initializer_range": 0.02,
    "intermediate_size": 27648, "max_position_embeddings": 40960, "max_window_layers": 64,
    "model_type": "qwen2", "num_attention_heads": 40, "num_hidden_layers": 64, "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05, "rope_scaling": None, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.1",
    "use_cache": True, "use_sliding_window": False, "vocab_size": 152064}


# ---------------------------------------------------------------- 1 QwQ-32B TP2 at 0.5: recompute
def qwq_gmu05():
    t0 = 1747128600.0  # 2025-05-13 09:30 UTC
    window, interval = 600.0, 10.0
    block, nblocks = 128, 1331          # 20.81 GiB per GPU / (128 tok x 128 KiB)
    mml = 8192

    def prompt_fn(rng):
        return rng.randint(150, 450)

    def gen_fn(rng):
        if rng.random() < 0.4:
            return 3072, "length"
        return rng.randint(1500, 3071), "stop"

    def step_fn(n_dec, pref, rng):
        return (0.030 + 0.00016 * n_dec + 0.000105 * pref) * rng.uniform(0.97, 1.04)

    reqs, tl = simulate(seed=18055, t_start=t0 - 1200.0, t_stop=t0 + window + 1.0, inflight=128,
                        num_blocks=nblocks, block=block, budget=8192, max_seqs=1024, prompt_fn=prompt_fn,
                        gen_fn=gen_fn, max_tokens=3072, step_fn=step_fn)
    reqs = [r for r in reqs if r.sched0 is not None and len(r.tok)]
    sc = SimScenario(timeline=tl, num_blocks=nblocks, model="/path/to/QwQ-32B", version="0.8.5.post1",
                     max_model_len=mml, pool_tokens=nblocks * block, block_size=block,
                     cache_labels=cache_labels(block, nblocks, 0.5), reqs=reqs, t0=t0, window=window,
                     interval=interval, families="0.9.2", step_s=0.045, t_start=t0 - 1500.0)
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model=/path/to/QwQ-32B", "--trust-remote-code",
            "--max-model-len", "8192", "-tp", "2", "--port", "8006", "--block-size", "128",
            "--enable-prefix-caching", "--gpu-memory-utilization", "0.5"]
    args = {"argv": argv, "args": {"model": "/path/to/QwQ-32B", "trust-remote-code": True, "max-model-len": 8192,
                                   "tensor-parallel-size": 2, "port": 8006, "block-size": 128,
                                   "enable-prefix-caching": True, "gpu-memory-utilization": 0.5}}
    s0 = t0 - 1500.0
    start = [
        f"INFO {ts(s0)} [__init__.py:239] Automatically detected platform cuda.",
        f"INFO {ts(s0 + 3)} [api_server.py:1043] vLLM API server version 0.8.5.post1",
        f"INFO {ts(s0 + 12)} [config.py:717] This model supports multiple tasks: {{'generate', 'reward', 'classify', 'score', 'embed'}}. Defaulting to 'generate'.",
        f"INFO {ts(s0 + 12)} [config.py:1770] Defaulting to use mp for distributed inference",
        f"INFO {ts(s0 + 12)} [config.py:2003] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"INFO {ts(s0 + 20)} [core.py:58] Initializing a V1 LLM engine (v0.8.5.post1) with config: model='/path/to/QwQ-32B', speculative_config=None, tokenizer='/path/to/QwQ-32B', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=2, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=None, served_model_name=/path/to/QwQ-32B, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True",
        f"(VllmWorker rank=0 pid=2291) INFO {ts(s0 + 95)} [gpu_model_runner.py:1347] Model loading took 15.3336 GiB and 71.402159 seconds",
        f"(VllmWorker rank=1 pid=2292) INFO {ts(s0 + 95)} [gpu_model_runner.py:1347] Model loading took 15.3336 GiB and 71.611828 seconds",
        f"(VllmWorker rank=0 pid=2291) INFO {ts(s0 + 118)} [gpu_worker.py:212] Memory profiling takes 22.41 seconds\n(VllmWorker rank=0 pid=2291) INFO {ts(s0 + 118)} [gpu_worker.py:212] the current vLLM instance can use total_gpu_memory (79.25GiB) x gpu_memory_utilization (0.50) = 39.62GiB\n(VllmWorker rank=0 pid=2291) INFO {ts(s0 + 118)} [gpu_worker.py:212] model weights take 15.33GiB; non_torch_memory takes 0.94GiB; PyTorch activation peak memory takes 2.54GiB; the rest of the memory reserved for KV Cache is 20.81GiB.",
        f"INFO {ts(s0 + 119)} [kv_cache_utils.py:634] GPU KV cache size: 170,368 tokens",
        f"INFO {ts(s0 + 119)} [kv_cache_utils.py:637] Maximum concurrency for 8,192 tokens per request: 20.80x",
        f"(VllmWorker rank=0 pid=2291) INFO {ts(s0 + 151)} [gpu_model_runner.py:1686] Graph capturing finished in 31 secs, took 1.87 GiB",
        f"INFO {ts(s0 + 152)} [core.py:159] init engine (profile, create kv cache, warmup model) took 56.93 seconds",
        f"INFO {ts(s0 + 153)} [loggers.py:134] vllm cache_config_info with initialization after num_gpu_blocks is: 1331",
        f"INFO {ts(s0 + 155)} [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8006",
    ]
    start = [x for l in start for x in l.split("\n")]

    def gpu(t):
        devs = []
        for i, pid in enumerate((2291, 2292)):
            used = int(41.52 * GiB) + (i * 3 * 1024 ** 2)
            devs.append({"index": i, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920,
                         "memory_used": used, "processes": [{"pid": pid, "name": "python3", "used_memory": used - 540 * 1024 ** 2}]})
        return devs
    sc.write(ROOT / "cases/zxf-qwq32b-tp2-gmu05-recompute/bundle",
             manifest_notes="QwQ-32B, TP2, --gpu-memory-utilization 0.5, prefix caching on; an evaluation client keeps 128 requests in flight (max_tokens 3072); scores are lower than in the run at the default 0.9",
             endpoint="http://eval-qwq:8006", engine_args=args, model_config=QWQ_CONFIG, served_name="/path/to/QwQ-32B",
             startup_logs=start, log_prefix="", logger_line="loggers.py:111", gpu=gpu,
             access_prefix="", server_version={"version": "0.8.5.post1"})
    n_pre = tl[-1][4]
    print("qwq: reqs", len(reqs), "preemptions total", n_pre, "in window",
          sc.preemptions_at(t0 + window) - sc.preemptions_at(t0))


CASES = {"qwq": qwq_gmu05}



# ---------------------------------------------------------------- 2 GLM-5.2-FP8 200K c16: healthy
def glm52_healthy():
    rng = random.Random(51)
    t0 = 1785316800.0  # 2026-07-29 09:20 UTC
    window, interval = 600.0, 10.0
    block, nblocks = 64, 17472           # 1,118,208 tokens
    reqs = []
    for lane in range(16):
        t = t0 - 900.0 + rng.uniform(0, 8.0)
        while t < t0 + window + 60:
            p = rng.randint(9000, 15000)
            gen = max(120, int(rng.gauss(258, 40)))
            q = rng.uniform(0.004, 0.03)
            pre = 0.30 + p / 8600.0 * rng.uniform(0.9, 1.2)
            itl = rng.uniform(0.0124, 0.0142)
            reqs.append(Req(t_arrive=t, prompt=p, hit=rng.choice([0, 0, 0, 64, 128]), gen=gen, queue=q,
                            prefill=pre, itl=itl, max_tokens=8192))
            t = reqs[-1].t_end + rng.uniform(0.05, 0.3)
    sc = Scenario(model="zai-org/GLM-5.2-FP8", version="0.25.0", max_model_len=200000,
                  pool_tokens=nblocks * block, block_size=block, cache_labels=cache_labels(block, nblocks, 0.95),
                  reqs=reqs, t0=t0, window=window, interval=interval, families="0.12.0", step_s=0.0133,
                  t_start=t0 - 2400.0)
    args = {"argv": ["vllm", "serve", "zai-org/GLM-5.2-FP8", "--tensor-parallel-size", "8", "--max-model-len", "200000",
                     "--gpu-memory-utilization", "0.95", "--tool-call-parser", "glm47", "--reasoning-parser", "glm47",
                     "--enable-auto-tool-choice", "--host", "0.0.0.0", "--port", "8000"],
            "args": {"model": "zai-org/GLM-5.2-FP8", "tensor-parallel-size": 8, "max-model-len": 200000,
                     "gpu-memory-utilization": 0.95, "tool-call-parser": "glm47", "reasoning-parser": "glm47",
                     "enable-auto-tool-choice": True}}
    s0 = t0 - 2400.0
    A, E = "(APIServer pid=1)", "(EngineCore_DP0 pid=318)"
    start = [
        f"{A} INFO {ts(s0)} [utils.py:253] vLLM API server version 0.25.0",
        f"{A} INFO {ts(s0 + 1)} [utils.py:253] non-default args: {{'model_tag': 'zai-org/GLM-5.2-FP8', 'host': '0.0.0.0', 'enable_auto_tool_choice': True, 'tool_call_parser': 'glm47', 'model': 'zai-org/GLM-5.2-FP8', 'max_model_len': 200000, 'reasoning_parser': 'glm47', 'tensor_parallel_size': 8, 'gpu_memory_utilization': 0.95}}",
        f"(Worker_TP0 pid=455) INFO {ts(s0 + 610)} [gpu_model_runner.py:3338] Model loading took 93.71 GiB memory and 588.214 seconds",
        f"(Worker_TP0 pid=455) INFO {ts(s0 + 700)} [gpu_worker.py:440] Available KV cache memory: 52.94 GiB",
        f"{E} INFO {ts(s0 + 701)} [kv_cache_utils.py:1291] GPU KV cache size: 1,118,208 tokens",
        f"{E} INFO {ts(s0 + 701)} [kv_cache_utils.py:1296] Maximum concurrency for 200,000 tokens per request: 5.59x",
        f"{E} INFO {ts(s0 + 760)} [core.py:250] init engine (profile, create kv cache, warmup model) took 148.62 seconds",
        f"{A} INFO {ts(s0 + 775)} [api_server.py:1937] Starting vLLM API server 0 on http://0.0.0.0:8000",
    ]

    def gpu(t):
        return [{"index": i, "name": "NVIDIA H200", "memory_total": 150754820096, "memory_used": 143422914560 + i * 2097152,
                 "processes": [{"pid": 455 + i, "name": f"VLLM::Worker_TP{i}", "used_memory": 142880000000 + i * 2097152}]}
                for i in range(8)]
    sc.write(ROOT / "cases/zxf-glm52-fp8-200k-c16-healthy/bundle",
             manifest_notes="GLM-5.2-FP8 on p5en.48xlarge (8x H200), TP8, 200K window, 0.95; concurrency sweep step c16 (streaming chat completions) held for 10 minutes",
             endpoint="http://p5en-glm52:8000", engine_args=args, model_config=None, served_name="zai-org/GLM-5.2-FP8",
             startup_logs=start, log_prefix=A, logger_line="loggers.py:271", gpu=gpu, access_prefix=A,
             server_version={"version": "0.25.0"})
    inw = [r for r in reqs if t0 <= r.t_end < t0 + window]
    print("glm: reqs in window", len(inw), "req/s", len(inw) / window,
          "out tok/s", sum(r.gen for r in inw) / window)


CASES["glm"] = glm52_healthy


if __name__ == "__main__":
    for name in (sys.argv[1:] or CASES):
        CASES[name]()
