"""w-int8-kv-prefix-pinned-pool-gemma4: vLLM 0.26.0, Gemma-4 31B AWQ on 2x RTX 3090, int8_per_token_head KV,
prefix caching on, pool pinned at ~100%, zero preemptions (source: vllm-project/vllm#50702, arm Z1)."""
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen import ROOT, Engine, load_template, write_bundle, models_body, ts  # noqa: E402

CASE = "w-int8-kv-prefix-pinned-pool-gemma4"
MODEL = "cyankiwi/gemma-4-31B-it-AWQ-4bit"
FORMAT_EXAMPLE = "g-mrv2-gemma4-runtime-oom-3090-tp2"  # a 0.26.0 bundle, used for format only


def main():
    rnd = random.Random(50702)
    tpl = load_template(FORMAT_EXAMPLE, 20)
    boot = 1785575400.0          # 2026-08-01 09:10 UTC
    t0 = 1785577200.0            # capture start 09:40
    iv, n = 10.0, 61
    pool_tokens, blocks = 103812, 38928
    cache_info = {"block_size": "16", "cache_dtype": "int8_per_token_head", "enable_prefix_caching": "True",
                  "gpu_memory_utilization": "0.94", "kv_cache_max_concurrency": "6.34",
                  "kv_cache_size_tokens": str(pool_tokens), "num_gpu_blocks": str(blocks),
                  "kv_sharing_fast_prefill": "True", "sliding_window": "1024"}
    e = Engine(tpl, MODEL, boot + 12.0, cache_info)
    # warm state before the window: 35 min of the same load
    pre_done = 420
    e.inc("vllm:prompt_tokens", pre_done * 702 + 44 * 702)
    e.inc("vllm:prompt_tokens_by_source", pre_done * 414 + 44 * 414, source="local_compute")
    e.inc("vllm:prompt_tokens_by_source", pre_done * 288 + 44 * 288, source="local_cache_hit")
    e.inc("vllm:prompt_tokens_cached", pre_done * 288 + 44 * 288)
    e.inc("vllm:prefix_cache_queries", pre_done * 702 + 44 * 702)
    e.inc("vllm:prefix_cache_hits", pre_done * 288 + 44 * 288)
    e.inc("vllm:generation_tokens", pre_done * 3290 + 44 * 1600)
    H = e.h

    def finish(n_req, queue_s):
        for _ in range(n_req):
            pt = rnd.randint(560, 860)
            length = rnd.random() < 0.10
            gt = 4096 if length else rnd.randint(1500, 3800)
            itl = rnd.uniform(0.078, 0.092)
            q = max(1.0, rnd.gauss(queue_s, 8.0))
            pre = rnd.uniform(0.35, 0.9)
            dec = gt * itl
            H["vllm:request_queue_time_seconds"].obs(q)
            H["vllm:time_to_first_token_seconds"].obs(q + pre)
            H["vllm:request_prefill_time_seconds"].obs(pre)
            H["vllm:request_decode_time_seconds"].obs(dec)
            H["vllm:request_inference_time_seconds"].obs(pre + dec)
            H["vllm:e2e_request_latency_seconds"].obs(q + pre + dec)
            H["vllm:request_time_per_output_token_seconds"].obs(itl)
            H["vllm:request_prompt_tokens"].obs(pt)
            H["vllm:request_generation_tokens"].obs(gt)
            H["vllm:request_max_num_generation_tokens"].obs(4096)
            H["vllm:request_params_max_tokens"].obs(4096)
            H["vllm:request_params_n"].obs(1)
            H["vllm:request_prefill_kv_computed_tokens"].obs(pt - 288)
            e.inc("vllm:request_success", 1, finished_reason="length" if length else "stop")

    # histograms before the window (so _count is not zero at the first scrape)
    finish(pre_done, 48.0)
    for _ in range(pre_done * 3290 // 50):
        H["vllm:inter_token_latency_seconds"].obs(rnd.uniform(0.078, 0.092), 50)
    H["vllm:iteration_tokens_total"].obs(44, 30000)
    H["vllm:iteration_tokens_total"].obs(44 + 702, 900)

    scrapes, logs_loop, gpu = [], [], []
    prev_pt = prev_gt = None
    carry = 0.0
    for i in range(n):
        t = t0 + iv * i
        running = rnd.choice([43, 44, 44, 45, 44, 43, 46])
        waiting = rnd.choice([7, 8, 8, 9, 8, 7, 10])
        usage = round(rnd.uniform(0.991, 0.9995), 6)
        if i > 0:
            gen = int(running * iv / rnd.uniform(0.082, 0.088))
            e.inc("vllm:generation_tokens", gen)
            for _ in range(gen // 50):
                H["vllm:inter_token_latency_seconds"].obs(rnd.uniform(0.078, 0.095), 50)
            carry += running * iv / (3300 * 0.085)
            done = int(carry)
            carry -= done
            finish(done, 50.0)
            new_pt = done * 702
            e.inc("vllm:prompt_tokens", new_pt)
            e.inc("vllm:prompt_tokens_by_source", done * 414, source="local_compute")
            e.inc("vllm:prompt_tokens_by_source", done * 288, source="local_cache_hit")
            e.inc("vllm:prompt_tokens_cached", done * 288)
            e.inc("vllm:prefix_cache_queries", new_pt)
            e.inc("vllm:prefix_cache_hits", done * 288)
            steps = int(iv / 0.085)
            H["vllm:iteration_tokens_total"].obs(running, max(0, steps - done))
            if done:
                H["vllm:iteration_tokens_total"].obs(running + 702, done)
            pt_rate = new_pt / iv
            gen_rate = gen / iv
            hit = 100.0 * 288 / 702 if done else 0.0
            logs_loop.append((t, f"(APIServer pid=1) INFO {ts(t)} [loggers.py:259] Engine 000: Avg prompt throughput: {pt_rate:.1f} tokens/s, Avg generation throughput: {gen_rate:.1f} tokens/s, Running: {running} reqs, Waiting: {waiting} reqs, GPU KV cache usage: {usage*100:.1f}%, Prefix cache hit rate: {41.0 + rnd.uniform(-0.4, 0.4):.1f}%"))
            for k in range(done):
                logs_loop.append((t - 3 - k, f"(APIServer pid=1) INFO:     10.0.3.{rnd.randint(11, 18)}:{rnd.randint(40000, 60000)} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK"))
        e.g["vllm:kv_cache_usage_perc"] = usage
        e.g["vllm:num_requests_running"] = float(running)
        e.g["vllm:num_requests_waiting"] = float(waiting)
        e.waiting_reason = {"capacity": float(waiting), "deferred": 0.0}
        st = round(t + 0.013 * ((i * 7) % 5), 3)
        scrapes.append({"t": st, "status": 200, "text": e.render()})
        used = 24381243392 + rnd.randint(-2, 2) * 1048576
        gpu.append({"t": st + 0.4, "devices": [
            {"index": d, "name": "NVIDIA GeForce RTX 3090", "memory_total": 25769803776, "memory_used": used,
             "processes": [{"pid": 2311 + d, "name": f"VLLM::Worker_TP{d}", "used_memory": used - 268435456}]}
            for d in (0, 1)]})

    b = boot
    head = [
        f"(APIServer pid=1) INFO {ts(b)} [utils.py:299] vLLM API server version 0.26.0",
        f"(APIServer pid=1) INFO {ts(b)} [utils.py:233] non-default args: {{'model_tag': '{MODEL}', 'host': '0.0.0.0', 'model': '{MODEL}', 'max_model_len': 16384, 'tensor_parallel_size': 2, 'disable_custom_all_reduce': True, 'gpu_memory_utilization': 0.94, 'kv_cache_dtype': 'int8_per_token_head', 'enable_chunked_prefill': True, 'max_num_seqs': 48, 'kv_sharing_fast_prefill': True, 'attention_backend': 'TRITON_ATTN'}}",
        f"(APIServer pid=1) INFO {ts(b)} [model.py:552] Resolved architecture: Gemma4ForConditionalGeneration",
        f"(APIServer pid=1) INFO {ts(b)} [scheduler.py:233] Chunked prefill is enabled with max_num_batched_tokens=2048.",
        f"(EngineCore pid=118) INFO {ts(b+9)} [core.py:101] Initializing a V1 LLM engine (v0.26.0) with config: model='{MODEL}', speculative_config=None, tokenizer='{MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=16384, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, disable_custom_all_reduce=True, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=int8_per_token_head, device_config=cuda, seed=0, served_model_name={MODEL}, enable_prefix_caching=True, enable_chunked_prefill=True",
        f"(Worker_TP0 pid=2311) INFO {ts(b+21)} [gpu_model_runner.py:4410] Starting to load model {MODEL}...",
        f"(Worker_TP0 pid=2311) INFO {ts(b+21)} [cuda.py:368] Using AttentionBackendEnum.TRITON_ATTN backend.",
        f"(Worker_TP0 pid=2311) INFO {ts(b+63)} [gpu_model_runner.py:4502] Model loading took 9.87 GiB memory and 41.877104 seconds",
        f"(Worker_TP1 pid=2312) INFO {ts(b+63)} [gpu_model_runner.py:4502] Model loading took 9.87 GiB memory and 42.010336 seconds",
        f"(Worker_TP0 pid=2311) INFO {ts(b+78)} [monitor.py:34] torch.compile takes 12.04 s in total",
        f"(Worker_TP0 pid=2311) INFO {ts(b+83)} [gpu_model_runner.py:6365] Estimated CUDA graph memory: 0.10 GiB total",
        f"(Worker_TP0 pid=2311) INFO {ts(b+83)} [gpu_worker.py:466] Available KV cache memory: 11.43 GiB",
        f"(Worker_TP1 pid=2312) INFO {ts(b+83)} [gpu_worker.py:466] Available KV cache memory: 11.43 GiB",
        f"(EngineCore pid=118) INFO {ts(b+84)} [kv_cache_utils.py:1733] GPU KV cache size: 103,812 tokens",
        f"(EngineCore pid=118) INFO {ts(b+84)} [kv_cache_utils.py:1734] Maximum concurrency for 16,384 tokens per request: 6.34x",
        f"(Worker_TP0 pid=2311) INFO {ts(b+91)} [gpu_model_runner.py:5120] Graph capturing finished in 7 secs, took 0.31 GiB",
        f"(EngineCore pid=118) INFO {ts(b+92)} [core.py:274] init engine (profile, create kv cache, warmup model) took 28.77 seconds",
        f"(APIServer pid=1) INFO {ts(b+96)} [api_server.py:1942] Starting vLLM API server 0 on http://0.0.0.0:8000",
        f"(APIServer pid=1) INFO {ts(b+96)} [launcher.py:47] Available routes are: /v1/models, /v1/chat/completions, /v1/completions, /metrics, /health",
    ]
    logs_loop.sort(key=lambda x: x[0])
    logs = "\n".join(head + [l for _, l in logs_loop]) + "\n"
    mc = json.loads((ROOT / "cases" / FORMAT_EXAMPLE / "bundle" / "model_config.json").read_text())
    argv = ["vllm", "serve", MODEL, "--host", "0.0.0.0", "--tensor-parallel-size", "2", "--disable-custom-all-reduce",
            "--attention-backend=TRITON_ATTN", "--kv-cache-dtype=int8_per_token_head", "--enable-chunked-prefill",
            "--kv-sharing-fast-prefill", "--max-num-seqs=48", "--max-model-len=16384", "--gpu-memory-utilization", "0.94"]
    args = {"model": MODEL, "tensor-parallel-size": 2, "disable-custom-all-reduce": True, "attention-backend": "TRITON_ATTN",
            "kv-cache-dtype": "int8_per_token_head", "enable-chunked-prefill": True, "kv-sharing-fast-prefill": True,
            "max-num-seqs": 48, "max-model-len": 16384, "gpu-memory-utilization": 0.94}
    write_bundle(CASE, {"endpoint": "http://10.0.3.7:8000", "started_at": t0, "ended_at": t0 + iv * (n - 1),
                        "interval_s": iv, "complaint": "quant-quality",
                        "notes": "Overload run (unique-prompt, decode-heavy flood) with strict-JSON probes at T=0.7; about 13% of the probe responses came back with skipped keys, spliced fragments or runaway strings. Prefix caching on, int8_per_token_head KV."},
                 scrapes, server={"version": {"version": "0.26.0"}, "models": models_body(MODEL, MODEL, 16384, int(boot + 96)), "health": 200},
                 engine_args={"argv": argv, "args": args}, model_config=mc, gpu=gpu, logs=logs)


if __name__ == "__main__":
    main()
