"""Writer zi's bundle builder (kvdoctor.bundle/1) for the zi-* cases.

All three cases are servers that die at start-up, so a bundle is: the start-up log, the
flags, NVML samples where the operator would have them, and /metrics scrapes that were refused
(or no /metrics at all for an offline LLM() in CI). Formats follow existing case bundles of the
same vLLM lines (format examples allowed by the brief):
  0.9.x : cases/m-tp2-rank1-31gib-free-other-container/bundle
  V1 KV check : cases/zc-pp8-glm47-a100-unified-kv-check/bundle, a-stale-instance-holds-gpu
Run: python cases/_tools/zi/gen.py  (from the worktree root)
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GiB = 1024 ** 3
MiB = 1024 ** 2
SITE = "/usr/local/lib/python3.12/dist-packages"


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def write(cid: str, manifest: dict, metrics: list, logs: str, engine_args: dict | None = None,
          gpu: list | None = None, model_config: dict | None = None, server: dict | None = None) -> None:
    b = ROOT / "cases" / cid / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    m = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0"}
    m.update(manifest)
    (b / "manifest.json").write_text(json.dumps(m, indent=1) + "\n")
    (b / "metrics.jsonl").write_text("".join(json.dumps(x) + "\n" for x in metrics))
    (b / "logs.txt").write_text(logs)
    if engine_args is not None:
        (b / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if gpu is not None:
        (b / "gpu.jsonl").write_text("".join(json.dumps(x) + "\n" for x in gpu))
    if model_config is not None:
        (b / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if server is not None:
        (b / "server.json").write_text(json.dumps(server, indent=1) + "\n")


def refused(endpoint: str, t0: float, n: int, step: float) -> list:
    return [{"t": t0 + i * step, "error": f"GET {endpoint}/metrics: connection refused ([Errno 111] Connection refused)"}
            for i in range(n)]


# --------------------------------------------------------------------------------------------
# zi-kvcached-second-instance-a100: vLLM 0.9.2, second instance on an A100 the first one uses
# --------------------------------------------------------------------------------------------
def kvcached() -> None:
    cid = "zi-kvcached-second-instance-a100"
    t0 = dt.datetime(2025, 9, 9, 10, 20, 40, tzinfo=dt.timezone.utc).timestamp()
    model = "meta-llama/Llama-3.1-8B-Instruct"
    total = int(79.25 * GiB)
    used_other = int(12.01 * GiB)          # 79.25 - 67.24, quoted
    first = int(11.52 * GiB)               # assumed split: first instance's EngineCore
    L = []
    e = lambda t, s: L.append(f"ERROR {ts(t)} [core.py:586] {s}")
    L.append(f"INFO {ts(t0)} [__init__.py:244] Automatically detected platform cuda.")
    L.append(f"INFO {ts(t0+3)} [api_server.py:1395] vLLM API server version 0.9.2")
    L.append(f"INFO {ts(t0+3)} [cli_args.py:325] non-default args: {{'model': '{model}', 'port': 12347}}")
    L.append(f"INFO {ts(t0+10)} [config.py:841] This model supports multiple tasks: {{'embed', 'reward', 'classify', 'score', 'generate'}}. Defaulting to 'generate'.")
    L.append(f"INFO {ts(t0+10)} [config.py:1472] Using max model len 131072")
    L.append(f"INFO {ts(t0+10)} [config.py:2285] Chunked prefill is enabled with max_num_batched_tokens=8192.")
    L.append(f"INFO {ts(t0+16)} [__init__.py:244] Automatically detected platform cuda.")
    L.append(f"INFO {ts(t0+18)} [core.py:526] Waiting for init message from front-end.")
    L.append(f"INFO {ts(t0+18)} [core.py:69] Initializing a V1 LLM engine (v0.9.2) with config: model='{model}', speculative_config=None, tokenizer='{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config={{}}, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=131072, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto,  device_config=cuda, seed=0, served_model_name={model}, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=True, chunked_prefill_enabled=True, use_async_output_proc=True, pooler_config=None")
    t = t0 + 20
    e(t, "EngineCore failed to start.")
    tb = [
        "Traceback (most recent call last):",
        f'  File "{SITE}/vllm/v1/engine/core.py", line 577, in run_engine_core',
        "    engine_core = EngineCoreProc(*args, **kwargs)",
        f'  File "{SITE}/vllm/v1/engine/core.py", line 404, in __init__',
        "    super().__init__(vllm_config, executor_class, log_stats,",
        f'  File "{SITE}/vllm/v1/engine/core.py", line 75, in __init__',
        "    self.model_executor = executor_class(vllm_config)",
        f'  File "{SITE}/vllm/executor/executor_base.py", line 53, in __init__',
        "    self._init_executor()",
        f'  File "{SITE}/vllm/executor/uniproc_executor.py", line 47, in _init_executor',
        '    self.collective_rpc("init_device")',
        f'  File "{SITE}/vllm/worker/worker_base.py", line 606, in init_device',
        "    self.worker.init_device()  # type: ignore",
        f'  File "{SITE}/vllm/v1/worker/gpu_worker.py", line 146, in init_device',
        "    raise ValueError(",
        "ValueError: Free memory on device (67.24/79.25 GiB) on startup is less than desired GPU memory utilization (0.9, 71.33 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
    ]
    for s in tb:
        e(t, s)
    L += ["Process EngineCore_0:", "Traceback (most recent call last):",
          "ValueError: Free memory on device (67.24/79.25 GiB) on startup is less than desired GPU memory utilization (0.9, 71.33 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
          "Traceback (most recent call last):",
          '  File "/usr/local/bin/vllm", line 8, in <module>',
          "    sys.exit(main())",
          f'  File "{SITE}/vllm/v1/engine/core_client.py", line 448, in __init__',
          "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"]
    logs = "\n".join(L) + "\n"
    gpu = []
    for i in range(7):
        ti = t0 + 5 + i * 5
        procs = [{"pid": 48211, "name": "VLLM::EngineCore", "used_memory": first}]
        used = used_other
        if t0 + 16 <= ti <= t0 + 20:   # second instance's CUDA context during init
            procs.append({"pid": 49377, "name": "VLLM::EngineCore", "used_memory": int(0.41 * GiB)})
            used += int(0.41 * GiB)
        gpu.append({"t": ti, "devices": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": total,
                                          "memory_used": used, "processes": procs}]})
    ep = "http://127.0.0.1:12347"
    write(cid,
          {"endpoint": ep, "started_at": t0 + 5, "ended_at": t0 + 35, "interval_s": 5.0,
           "notes": "Second vLLM 0.9.2 instance (kvcached enabled via ENABLE_KVCACHED=true) started on an A100 80GB on which a first instance of the same model was already serving; recorded while the second one started. It exited at start-up; /metrics never answered."},
          refused(ep, t0 + 5, 7, 5.0), logs,
          engine_args={"argv": ["vllm", "serve", model, "--port", "12347"],
                       "args": {"model": model, "port": 12347}},
          gpu=gpu, model_config=LLAMA31_8B)


LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu",
    "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": True, "vocab_size": 128256,
}


# --------------------------------------------------------------------------------------------
# zi-3090-long-text-180k-kv-short: RTX 3090, 180K + 0.93, 2.19 GiB of KV < 2.8 GiB needed
# --------------------------------------------------------------------------------------------
def club3090() -> None:
    cid = "zi-3090-long-text-180k-kv-short"
    t0 = dt.datetime(2026, 5, 2, 8, 14, 0, tzinfo=dt.timezone.utc).timestamp()
    model = "Qwen3.6-27B"
    nvml_total = 24576 * MiB
    torch_total = 23.56
    budget = round(0.93 * torch_total, 2)            # 21.91 GiB
    weights = 17.62                                   # assumed
    act, cg = 1.34, 0.76                              # assumed: peak activation, cudagraph estimate
    kv = round(budget - weights - act - cg - 0.0, 2)  # 2.19 GiB (rounded)
    assert abs(kv - 2.19) < 0.011, kv
    P = "(EngineCore pid=187)"
    A = "(APIServer pid=1)"
    L = []
    L.append(f"{A} INFO {ts(t0)} [utils.py:299] vLLM API server version 0.20.1")
    L.append(f"{A} INFO {ts(t0)} [utils.py:233] non-default args: {{'model_tag': '/models/{model}', 'host': '0.0.0.0', 'port': 8000, 'model': '/models/{model}', 'served_model_name': ['{model.lower()}'], 'max_model_len': 180000, 'gpu_memory_utilization': 0.93, 'max_num_seqs': 1, 'enable_prefix_caching': True, 'trust_remote_code': True}}")
    L.append(f"{A} INFO {ts(t0+6)} [model.py:541] Resolved architecture: Qwen3_5ForConditionalGeneration")
    L.append(f"{A} INFO {ts(t0+6)} [model.py:1561] Using max model len 180000")
    L.append(f"{A} INFO {ts(t0+6)} [scheduler.py:231] Chunked prefill is enabled with max_num_batched_tokens=2048.")
    L.append(f"{P} INFO {ts(t0+14)} [core.py:96] Initializing a V1 LLM engine (v0.20.1) with config: model='/models/{model}', speculative_config=None, tokenizer='/models/{model}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=180000, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=False, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name={model.lower()}, enable_prefix_caching=True, enable_chunked_prefill=True")
    L.append(f"{P} INFO {ts(t0+17)} [parallel_state.py:1325] rank 0 in world size 1 is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank 0, EP rank N/A")
    L.append(f"{P} INFO {ts(t0+18)} [gpu_model_runner.py:3402] Starting to load model /models/{model}...")
    L.append(f"{P} INFO {ts(t0+101)} [default_loader.py:314] Loading weights took 79.84 seconds")
    L.append(f"{P} INFO {ts(t0+103)} [gpu_model_runner.py:3498] Model loading took {weights:.4f} GiB memory and 84.710342 seconds")
    L.append(f"{P} INFO {ts(t0+131)} [backends.py:631] Using cache directory: /root/.cache/vllm/torch_compile_cache/5b0d2e4c1a/rank_0_0/backbone for vLLM's torch.compile")
    L.append(f"{P} INFO {ts(t0+131)} [backends.py:647] Dynamo bytecode transform time: 21.37 s")
    L.append(f"{P} INFO {ts(t0+158)} [monitor.py:34] torch.compile takes 47.92 s in total")
    L.append(f"{P} INFO {ts(t0+163)} [gpu_worker.py:456] CUDA graph memory profiling estimate: {cg:.2f} GiB")
    L.append(f"{P} INFO {ts(t0+164)} [gpu_worker.py:489] Available KV cache memory: {kv:.2f} GiB")
    t = t0 + 165
    err = (f"ValueError: To serve at least one request with the model's max seq len (180000), (2.8 GiB KV cache is needed, "
           f"which is larger than the available KV cache memory (2.19 GiB). Based on the available memory, the estimated "
           f"maximum model length is 111456. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine. "
           f"See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
    tb = ["EngineCore failed to start.", "Traceback (most recent call last):",
          f'  File "{SITE}/vllm/v1/engine/core.py", line 1096, in run_engine_core',
          "    engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
          f'  File "{SITE}/vllm/v1/engine/core.py", line 843, in __init__',
          "    super().__init__(",
          f'  File "{SITE}/vllm/v1/engine/core.py", line 121, in __init__',
          "    kv_cache_config = self._initialize_kv_caches(vllm_config)",
          f'  File "{SITE}/vllm/v1/engine/core.py", line 258, in _initialize_kv_caches',
          "    kv_cache_configs = get_kv_cache_configs(",
          f'  File "{SITE}/vllm/v1/core/kv_cache_utils.py", line 1612, in get_kv_cache_configs',
          "    _check_enough_kv_cache_memory(",
          f'  File "{SITE}/vllm/v1/core/kv_cache_utils.py", line 664, in _check_enough_kv_cache_memory',
          "    raise ValueError(", err]
    for s in tb:
        L.append(f"{P} ERROR {ts(t)} [core.py:1105] {s}")
    L.append(f"{A} ERROR {ts(t+2)} [api_server.py:1301] RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}")
    logs = "\n".join(L) + "\n"
    gpu = []
    for i in range(19):
        ti = t0 + i * 10
        e = ti - t0
        if e < 17:
            used, procs = 1 * MiB, []
        elif e < 103:
            w = int(min(weights, weights * (e - 17) / 86) * GiB) + int(0.52 * GiB)
            used, procs = w + 1 * MiB, [{"pid": 187, "name": "VLLM::EngineCore", "used_memory": w}]
        elif e <= 165:
            w = int((weights + 0.52 + act + cg) * GiB)
            used, procs = w + 1 * MiB, [{"pid": 187, "name": "VLLM::EngineCore", "used_memory": w}]
        else:
            used, procs = 1 * MiB, []
        gpu.append({"t": ti, "devices": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "memory_total": nvml_total,
                                          "memory_used": used, "processes": procs}]})
    ep = "http://127.0.0.1:8020"
    write(cid,
          {"endpoint": ep, "started_at": t0, "ended_at": t0 + 180, "interval_s": 10.0,
           "notes": "club-3090 docker-compose.long-text.yml (vllm/long-text variant) booting on a headless single RTX 3090 24 GB; recorded from container start until the engine exited at the KV-cache check. /metrics never answered."},
          refused(ep, t0, 19, 10.0), logs,
          engine_args={"argv": None, "args": {"model": f"/models/{model}", "served-model-name": model.lower(),
                                              "max-model-len": 180000, "gpu-memory-utilization": 0.93,
                                              "max-num-seqs": 1, "enable-prefix-caching": True,
                                              "trust-remote-code": True}},
          gpu=gpu)


# --------------------------------------------------------------------------------------------
# zi-torch211-l4-pp2-free-check: vLLM CI, Ray PP=2 on 2x L4, torch 2.11+cu130
# --------------------------------------------------------------------------------------------
def torch211() -> None:
    cid = "zi-torch211-l4-pp2-free-check"
    t0 = dt.datetime(2026, 2, 24, 20, 21, 20, tzinfo=dt.timezone.utc).timestamp()
    model = "microsoft/Phi-3.5-MoE-instruct"
    z = lambda t: dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("[%Y-%m-%dT%H:%M:%SZ]")
    loc = lambda t: dt.datetime.fromtimestamp(t - 8 * 3600, dt.timezone.utc).strftime("%m-%d %H:%M:%S")
    E = "(EngineCore_DP0 pid=6940)"
    L = []
    L.append(f"{z(t0)} INFO {loc(t0)} [utils.py:261] non-default args: {{'model': '{model}', 'trust_remote_code': True, 'load_format': 'dummy', 'distributed_executor_backend': 'ray', 'pipeline_parallel_size': 2}}")
    L.append(f"{z(t0+6)} INFO {loc(t0+6)} [model.py:541] Resolved architecture: PhiMoEForCausalLM")
    L.append(f"{z(t0+6)} INFO {loc(t0+6)} [model.py:1561] Using max model len 131072")
    L.append(f"{z(t0+13)} {E} INFO {loc(t0+13)} [core.py:96] Initializing a V1 LLM engine with config: model='{model}', trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=131072, load_format=dummy, tensor_parallel_size=1, pipeline_parallel_size=2, data_parallel_size=1, disable_custom_all_reduce=False, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0")
    L.append(f"{z(t0+15)} {E} INFO {loc(t0+15)} [ray_utils.py:345] No current placement group found. Creating a new placement group.")
    L.append(f"{z(t0+26)} {E} INFO {loc(t0+26)} [ray_executor.py:118] Using Ray distributed executor with 2 workers (pipeline parallel 2).")
    L.append(f"{z(t0+33)} {E} (RayWorkerWrapper pid=7311) INFO {loc(t0+33)} [parallel_state.py:1325] rank 0 in world size 2 is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank 0, EP rank N/A")
    L.append(f"{z(t0+33)} {E} (RayWorkerWrapper pid=7312) INFO {loc(t0+33)} [parallel_state.py:1325] rank 1 in world size 2 is assigned as DP rank 0, PP rank 1, PCP rank 0, TP rank 0, EP rank N/A")
    msg0 = "ValueError: Free memory on device cuda:0 (19.77/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, 19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes."
    msg1 = msg0.replace("cuda:0", "cuda:1")
    t = t0 + 38
    L.append(f"{z(t)} {E} (RayWorkerWrapper pid=7311) ERROR {loc(t)} [worker_base.py:368] Error executing method 'init_device'. This might cause deadlock in distributed execution.")
    L.append(f"{z(t)} {E} (RayWorkerWrapper pid=7311) ERROR {loc(t)} [worker_base.py:368] {msg0}")
    L.append(f"{z(t)} {E} (RayWorkerWrapper pid=7312) ERROR {loc(t)} [worker_base.py:368] Error executing method 'init_device'. This might cause deadlock in distributed execution.")
    L.append(f"{z(t)} {E} (RayWorkerWrapper pid=7312) ERROR {loc(t)} [worker_base.py:368] {msg1}")
    tb = ["EngineCore failed to start.", "Traceback (most recent call last):",
          f'  File "{SITE}/vllm/v1/engine/core.py", line 1087, in run_engine_core',
          "    engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)",
          f'  File "{SITE}/vllm/v1/executor/ray_executor.py", line 412, in _init_workers_ray',
          '    self.collective_rpc("init_device")',
          f'  File "{SITE}/vllm/v1/worker/gpu_worker.py", line 271, in init_device',
          "    raise ValueError(", msg1]
    for s in tb:
        L.append(f"{z(t+1)} {E} ERROR {loc(t+1)} [core.py:1096] {s}")
    L.append(f"{z(t+1)} {E} ValueError: {msg1[len('ValueError: '):]}")
    L.append(f"{z(t+2)} RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {{}}")
    L.append(f"{z(t+2)} FAILED distributed/test_pipeline_parallel.py::test_tp_language_generation[{model}-parallel_setup-ray-0-auto-test_options] - RuntimeError: Engine core initialization failed.")
    logs = "\n".join(L) + "\n"
    write(cid,
          {"endpoint": "buildkite:vllm/ci build 52911 (offline LLM(), no HTTP server)", "started_at": t0, "ended_at": t0 + 40,
           "interval_s": 5.0,
           "notes": "vLLM CI distributed test against PyTorch 2.11.0+cu130 release candidate: Ray executor, pipeline parallel 2 on 2x NVIDIA L4, dummy weights. Only the job log and the test's arguments exist; no NVML samples, no /metrics."},
          [{"t": t0 + 40, "error": "no /metrics endpoint: offline LLM() in a CI test, no HTTP server"}], logs,
          engine_args={"argv": None, "args": {"model": model, "trust-remote-code": True, "load-format": "dummy",
                                              "distributed-executor-backend": "ray", "pipeline-parallel-size": 2,
                                              "tensor-parallel-size": 1}})


if __name__ == "__main__":
    kvcached()
    club3090()
    torch211()
