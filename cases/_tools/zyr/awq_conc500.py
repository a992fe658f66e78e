"""zyr-awq72b-tp4-eager-conc500: vLLM 0.3.3 (V0), Qwen1.5-72B-Chat-AWQ, TP4 on A800, --enforce-eager,
500 closed-loop client streams, max_num_seqs 256, no chunked prefill. Step-level simulation."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Hist, counter_lines, gauge_lines, write_bundle, rng  # noqa

CASE = os.path.join(os.path.dirname(__file__), "..", "..", "zyr-awq72b-tp4-eager-conc500")
MODEL = "/xxx/Qwen1.5-72B-Chat-AWQ/"
L = {"model_name": MODEL}
RUN0 = 1710396000.0          # 2024-03-14 06:00:00 UTC: the 500 streams start
WIN0 = RUN0 + 700.0
INTERVAL = 10.0
N = 61                       # 10 minutes
CLIENTS = 500
MAX_SEQS = 256
MAX_BATCHED = 2048
BLOCK = 16
# per GPU (TP4): 79.15 GiB x 0.95 = 75.19 - 10.45 weights - 2.24 activation peak = 62.50 GiB;
# Qwen1.5-72B is MHA: 64 KV heads / 4 = 16 per GPU -> 2 x 80 x 16 x 128 x 2 = 655,360 B/token/GPU
KV_GIB = 75.19 - 10.45 - 2.24
NUM_BLOCKS = int(KV_GIB * 2 ** 30 // (655360 * BLOCK))
CPU_BLOCKS = int(4 * 2 ** 30 // (655360 * BLOCK))
WATERMARK = int(0.01 * NUM_BLOCKS)


def dec_time(n):
    return 0.03 + 0.15 * n / 256.0


def pre_time(tok):
    return 0.03 + 0.000378 * tok


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
E2E_B = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]


def main():
    r = rng(3399)
    H = {"ttft": Hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B, L),
         "tpot": Hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B, L),
         "e2e": Hist("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", E2E_B, L)}
    C = {"prompt": 0, "gen": 0}
    t = RUN0
    waiting = []               # (arrival, P, O)
    for _ in range(CLIENTS):
        waiting.append([t + r.uniform(0, 0.5), r.randint(200, 244), r.randint(161, 163)])
    waiting.sort()
    running = []               # dict: arr, P, O, g, last, first
    scrapes, logs = [], []
    next_scrape = WIN0
    next_log = RUN0 + 5.0
    lp = lg = 0
    pending_arrivals = []
    stats = {"pre_steps": [], "pre_time": 0.0, "dec_time": 0.0, "fin": 0}
    end = WIN0 + (N - 1) * INTERVAL + 1.0
    while t < end:
        # arrivals that have reached the server
        for a in [x for x in pending_arrivals if x[0] <= t]:
            waiting.append(a)
            pending_arrivals.remove(a)
        used = sum(-(-(q["P"] + q["g"]) // BLOCK) for q in running)
        batch, tok = [], 0
        while waiting and waiting[0][0] <= t and len(running) + len(batch) < MAX_SEQS:
            a, P, O = waiting[0]
            need = -(-P // BLOCK)
            if tok + P > MAX_BATCHED or NUM_BLOCKS - used - need < WATERMARK:
                break
            batch.append(waiting.pop(0))
            tok += P
            used += need
        if batch:
            dt = pre_time(tok)
            t += dt
            if t >= WIN0 and t < end:
                stats["pre_steps"].append(tok)
                stats["pre_time"] += dt
            for a, P, O in batch:
                running.append({"arr": a, "P": P, "O": O, "g": 1, "last": t})
                H["ttft"].observe(t - a)
                C["prompt"] += P
                C["gen"] += 1
                lp += P
                lg += 1
        elif running:
            dt = dec_time(len(running))
            t += dt
            if t >= WIN0 and t < end:
                stats["dec_time"] += dt
            keep = []
            gaps = {}
            for q in running:
                g = round(t - q["last"], 4)
                gaps[g] = gaps.get(g, 0) + 1
                q["last"] = t
                q["g"] += 1
                C["gen"] += 1
                lg += 1
                if q["g"] >= q["O"]:
                    H["e2e"].observe(t - q["arr"])
                    if t >= WIN0:
                        stats["fin"] += 1
                    pending_arrivals.append([t + r.uniform(0.01, 0.06), r.randint(200, 244), r.randint(161, 163)])
                else:
                    keep.append(q)
            for g, n in gaps.items():
                H["tpot"].observe(g, n)
            running = keep
        else:
            t += 0.01
        used = sum(-(-(q["P"] + q["g"]) // BLOCK) for q in running)
        nwait = len(waiting) + len([x for x in pending_arrivals if x[0] <= t])
        while t >= next_log:
            el = 5.0
            if next_log >= WIN0 - 60:
                logs.append("INFO %s metrics.py:161] Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Swapped: 0 reqs, Pending: %d reqs, GPU KV cache usage: %.1f%%, CPU KV cache usage: 0.0%%" % (ts(t), lp / el, lg / el, len(running), nwait, 100.0 * used / NUM_BLOCKS))
            last_pt, last_gt = lp / el, lg / el
            lp = lg = 0
            next_log += 5.0
        while t >= next_scrape and len(scrapes) < N:
            scrapes.append({"t": round(next_scrape + 0.2, 3), "status": 200,
                            "text": render(H, C, len(running), nwait, used / NUM_BLOCKS, last_pt, last_gt)})
            next_scrape += INTERVAL
    ps = stats["pre_steps"]
    wall = end - WIN0
    print("big steps", sum(1 for x in ps if x >= 1800) / len(ps), "time share of big", sum(pre_time(x) for x in ps if x >= 1800) / stats["pre_time"])
    print("blocks", NUM_BLOCKS, "prefill steps", len(ps), "mean tok", sum(ps) / len(ps), "pre frac",
          stats["pre_time"] / wall, "fin/s", stats["fin"] / wall)
    write(scrapes, logs)


def render(H, C, running, waiting, usage, pt, gt):
    out = []
    out += gauge_lines("vllm:num_requests_running", "Number of requests currently running on GPU.", [(L, running)])
    out += gauge_lines("vllm:num_requests_swapped", "Number of requests swapped to CPU.", [(L, 0)])
    out += gauge_lines("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(L, waiting)])
    out += gauge_lines("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", [(L, round(usage, 6))])
    out += gauge_lines("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", [(L, 0.0)])
    out += counter_lines("vllm:prompt_tokens", "Number of prefill tokens processed.", [(L, C["prompt"])])
    out += counter_lines("vllm:generation_tokens", "Number of generation tokens processed.", [(L, C["gen"])])
    out += H["ttft"].render(None)
    out += H["tpot"].render(None)
    out += H["e2e"].render(None)
    out += gauge_lines("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s.", [(L, round(pt, 3))])
    out += gauge_lines("vllm:avg_generation_throughput_toks_per_s", "Average generation throughput in tokens/s.", [(L, round(gt, 3))])
    return "\n".join(out) + "\n"


def write(scrapes, run_logs):
    s = RUN0 - 600.0
    head = [
        "INFO %s api_server.py:228] args: Namespace(host=None, port=30142, allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, served_model_name=None, lora_modules=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, root_path=None, middleware=[], model='/xxx/Qwen1.5-72B-Chat-AWQ/', tokenizer=None, revision=None, tokenizer_revision=None, tokenizer_mode='auto', trust_remote_code=False, download_dir=None, load_format='auto', dtype='half', kv_cache_dtype='auto', max_model_len=2000, worker_use_ray=False, pipeline_parallel_size=1, tensor_parallel_size=4, max_parallel_loading_workers=None, block_size=16, seed=0, swap_space=4, gpu_memory_utilization=0.95, max_num_batched_tokens=None, max_num_seqs=256, max_paddings=256, max_logprobs=5, disable_log_stats=False, quantization='awq', enforce_eager=True, max_context_len_to_capture=8192, disable_custom_all_reduce=False, enable_lora=False, max_loras=1, max_lora_rank=16, lora_extra_vocab_size=256, max_cpu_loras=None, device='auto', engine_use_ray=False, disable_log_requests=False, max_log_len=None)" % ts(s),
        "WARNING %s config.py:193] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models." % ts(s + 2),
        "INFO %s llm_engine.py:87] Initializing an LLM engine with config: model='/xxx/Qwen1.5-72B-Chat-AWQ/', tokenizer='/xxx/Qwen1.5-72B-Chat-AWQ/', tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.float16, max_seq_len=2000, download_dir=None, load_format=auto, tensor_parallel_size=4, disable_custom_all_reduce=False, quantization=awq, enforce_eager=True, kv_cache_dtype=auto, device_config=cuda, seed=0)" % ts(s + 2),
        "INFO %s llm_engine.py:357] # GPU blocks: %d, # CPU blocks: %d" % (ts(s + 95), NUM_BLOCKS, CPU_BLOCKS),
        "INFO %s serving_chat.py:260] Using default chat template:" % ts(s + 97),
        "INFO:     Started server process [41522]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
        "INFO:     Uvicorn running on http://0.0.0.0:30142 (Press CTRL+C to quit)",
    ]
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://localhost:30142",
                "started_at": scrapes[0]["t"], "ended_at": scrapes[-1]["t"], "interval_s": INTERVAL,
                "notes": "Qwen1.5-72B-Chat-AWQ, TP4 A800, --enforce-eager; 10,000 address-parsing requests at 500 concurrent."}
    server = {"version": {"version": "0.3.3"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL}]},
              "health": 200}
    argv = ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", MODEL, "--tensor-parallel-size", "4",
            "--port", "30142", "--dtype", "half", "--max-model-len", "2000", "--gpu-memory-utilization", "0.95",
            "--enforce-eager", "--quantization", "awq"]
    engine_args = {"argv": argv, "args": {"model": MODEL, "tensor-parallel-size": 4, "port": 30142, "dtype": "half",
                                          "max-model-len": 2000, "gpu-memory-utilization": 0.95, "enforce-eager": True,
                                          "quantization": "awq", "block_size": 16, "max_num_seqs": 256,
                                          "num_gpu_blocks": NUM_BLOCKS}}
    model_config = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
                    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02,
                    "intermediate_size": 24576, "max_position_embeddings": 32768, "max_window_layers": 70,
                    "model_type": "qwen2", "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 64,
                    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None,
                                            "quant_method": "awq", "version": "gemm", "zero_point": True},
                    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False,
                    "torch_dtype": "float16", "transformers_version": "4.37.0", "use_cache": True,
                    "use_sliding_window": False, "vocab_size": 152064}
    used = int((75.19 + 0.61) * 2 ** 30)
    gpu = [{"t": x["t"], "devices": [{"index": i, "name": "NVIDIA A800-SXM4-80GB", "memory_total": 85899345920,
                                      "memory_used": used, "processes": [{"pid": 41522 + i, "name": "python" if i == 0 else "ray::RayWorkerVllm", "used_memory": used - 500 * 2 ** 20}]}
                                     for i in range(4)]} for x in scrapes]
    write_bundle(os.path.join(CASE, "bundle"), manifest, scrapes, server, engine_args, model_config, gpu,
                 "\n".join(head + run_logs) + "\n")


if __name__ == "__main__":
    main()
