"""zyu-nixl-handshake-decode-crash-a10: decode pod of a kthena P/D pair (Qwen2.5-0.5B, A10,
NixlConnector). Idle, then the first routed requests wait for remote KV, the NIXL handshake
with the prefill engine fails and the decode engine dies; later scrapes fail."""
import calendar, sys, time
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from prom import Engine, render, write_bundle

OUT = sys.argv[1] if len(sys.argv) > 1 else "cases/zyu-nixl-handshake-decode-crash-a10/bundle"
T0 = calendar.timegm((2025, 11, 22, 6, 55, 45))
IV, N = 5, 61
ARR = [126.4, 128.9, 131.2, 133.0]   # decode-side arrivals (after the prefill pod answered)
DEAD = 126                            # 06:57:51 = T0 + 126 s: handshake fails, engine dies at +11 s
DIE = 137
MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
MML, NBLK = 32768, 93940

def hs(s):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(T0 + s))

CI = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
      "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
      "kv_sharing_fast_prefill": "False", "mamba_cache_dtype": "auto", "mamba_page_size_padded": "None",
      "num_cpu_blocks": "None", "num_gpu_blocks": str(NBLK), "num_gpu_blocks_override": "None",
      "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
      "swap_space_bytes": str(4 * 1024 ** 3)}
scrapes, gpu = [], []
for k in range(N):
    s = k * IV
    if s < DIE:
        e = Engine(MML)
        e.waiting = sum(1 for a in ARR if a <= s)
        e.running = 0
        # remote-KV requests get their blocks allocated while they wait for the transfer
        e.kv = e.waiting * 7 / NBLK
        e.c["prefix_q"] = 0
        scrapes.append({"t": T0 + s, "status": 200, "text": render({0: e}, MODEL, CI, line="0.11")})
        used, procs = 21_930_000_000, [{"pid": 88, "name": "python3", "used_memory": 21_420_000_000}]
    else:
        scrapes.append({"t": T0 + s, "error": "GET http://10.244.1.23:8000/metrics: [Errno 111] Connection refused"})
        used, procs = 510_000_000, []
    gpu.append({"t": T0 + s, "devices": [{"index": 0, "name": "NVIDIA A10", "memory_total": 24_152_899_584,
                "memory_used": used, "processes": procs}]})

ep = "(EngineCore_DP0 pid=143)"
wk = "(EngineCore_DP0 pid=143)"
logs = [
    f"{ep} INFO 11-22 06:52:40 [gpu_worker.py:298] Available KV cache memory: 17.20 GiB\n",
    f"{ep} INFO 11-22 06:52:41 [kv_cache_utils.py:1087] GPU KV cache size: 1,503,040 tokens\n",
    f"{ep} INFO 11-22 06:52:41 [kv_cache_utils.py:1091] Maximum concurrency for 32,768 tokens per request: 45.87x\n",
    f"{ep} INFO 11-22 06:52:41 [nixl_connector.py:812] Registering KV_Caches. use_mla: False, kv_buffer_device: cuda\n",
    "(APIServer pid=1) INFO 11-22 06:53:20 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000\n",
]
for k in range(N):
    s = k * IV
    if s < DIE and k % 2 == 0:
        logs.append(f'(APIServer pid=1) INFO:     10.244.1.1:48122 - "GET /health HTTP/1.1" 200 OK\n')
logs += [
    f"{wk} ERROR {hs(DEAD)} [nixl_connector.py:548] Handshake with c00824be-282f-4719-9aeb-120dcb516863 failed\n",
    f"{wk} ERROR {hs(DEAD)} [nixl_connector.py:548] Traceback (most recent call last):\n",
    f'{wk} ERROR {hs(DEAD)} [nixl_connector.py:548]   File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py", line 544, in done_callback\n',
    f"{wk} ERROR {hs(DEAD)} [nixl_connector.py:548]     self._remote_agents[eid] = f.result()\n",
    f"{wk} ERROR {hs(DEAD)} [nixl_connector.py:548] zmq.error.Again: Resource temporarily unavailable\n",
    f"{ep} ERROR {hs(DIE-1)} [core.py:710] EngineCore encountered a fatal error.\n",
    f"{ep} ERROR {hs(DIE-1)} [core.py:710] KeyError: 'c00824be-282f-4719-9aeb-120dcb516863'\n",
    f"(APIServer pid=1) ERROR {hs(DIE-1)} [async_llm.py:485] AsyncLLM output_handler failed.\n",
    f"(APIServer pid=1) ERROR {hs(DIE-1)} [async_llm.py:485] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.\n",
] + [f'(APIServer pid=1) INFO:     10.244.1.7:{p} - "POST /v1/completions HTTP/1.1" 500 Internal Server Error\n' for p in (51012, 51020, 51034, 51041)] + [
    f"(APIServer pid=1) INFO {hs(DIE)} [launcher.py:101] Shutting down FastAPI HTTP server.\n",
    "INFO:     Shutting down\n", "INFO:     Finished server process [1]\n",
]

write_bundle(OUT,
    {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "http://10.244.1.23:8000",
     "started_at": T0, "ended_at": T0 + IV * (N - 1), "interval_s": float(IV),
     "notes": "decode pod of kthena pd-sample (NIXL); requests through the router time out after 10 s"},
    scrapes,
    server={"version": {"version": "0.11.0"},
            "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                       "root": MODEL, "max_model_len": MML}]}, "health": 200},
    engine_args={"argv": None, "args": {"model": MODEL, "max-model-len": MML, "gpu-memory-utilization": 0.9,
                 "kv-transfer-config": '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'}},
    model_config={"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896,
                  "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,
                  "num_key_value_heads": 2, "max_position_embeddings": 32768, "rms_norm_eps": 1e-06,
                  "rope_theta": 1000000.0, "tie_word_embeddings": True, "torch_dtype": "bfloat16",
                  "vocab_size": 151936, "sliding_window": 32768, "use_sliding_window": False},
    gpu=gpu, logs="".join(logs))
print("ok")
