"""zyr-lora-awq72b-eager-6tps: vLLM 0.7.0 (V0 engine), Qwen2.5-72B-Instruct-AWQ + LoRA lora1,
--enforce-eager, one A100 80GB, a single chat user. Decode ~154 ms per token."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Hist, counter_lines, gauge_lines, buckets_125, write_bundle, rng  # noqa

CASE = os.path.join(os.path.dirname(__file__), "..", "..", "zyr-lora-awq72b-eager-6tps")
MODEL = "models/Qwen2.5-72B-Instruct-AWQ"
L = {"model_name": MODEL}
T0 = 1739455200.0           # 2025-02-13 14:00:00 UTC
START = T0 - 900.0
INTERVAL = 10.0
N = 49                      # 8 minutes
MAX_LEN = 32768
BLOCK = 16
BYTES_PER_TOKEN = 2 * 80 * 8 * 128 * 2      # 80 layers, 8 KV heads, d=128, fp16 = 327,680
KV_GIB = 71.24 - 38.84 - 0.19 - 4.72        # = 27.49
NUM_BLOCKS = int(KV_GIB * 2 ** 30 // (BYTES_PER_TOKEN * BLOCK))
CPU_BLOCKS = int(4 * 2 ** 30 // (BYTES_PER_TOKEN * BLOCK))
TPOT = 0.154                # with LoRA, eager
PREFILL_TPS = 1900.0        # prompt tokens/s for one request

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
         120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


def main():
    r = rng(13204)
    # request timeline: one user, sequential, from T0-200 on
    reqs = []
    t = T0 - 200.0
    while t < T0 + N * INTERVAL + 60:
        p = r.randint(1100, 2300)
        o = r.randint(140, 600)
        q = r.uniform(0.002, 0.01)
        pre = p / PREFILL_TPS * r.uniform(0.95, 1.08)
        tp = [TPOT * r.uniform(0.965, 1.04) for _ in range(o - 1)]
        start = t
        first = start + q + pre
        end = first + sum(tp)
        reqs.append({"arr": start, "q": q, "first": first, "end": end, "p": p, "o": o, "tp": tp})
        t = end + r.uniform(3.0, 25.0)
    H = {
        "ttft": Hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B, L),
        "tpot": Hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B, L),
        "e2e": Hist("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", LAT_B, L),
        "queue": Hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B, L),
        "infer": Hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B, L),
        "prefill": Hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B, L),
        "decode": Hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B, L),
        "ptok": Hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", buckets_125(MAX_LEN), L),
        "gtok": Hist("vllm:request_generation_tokens", "Number of generation tokens processed.", buckets_125(MAX_LEN), L),
        "maxtok": Hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", buckets_125(MAX_LEN), L),
        "n": Hist("vllm:request_params_n", "Histogram of the n request parameter.", [1, 2, 5, 10, 20], L),
        "iter": Hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
                     [1, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256, 8192], L),
    }
    C = {"prompt": 0, "gen": 0, "stop": 0, "length": 0}
    scrapes, logs = [], []
    done_first, done_tok, done_end = set(), {}, set()
    tgrid = [T0 - 200.0 + 5.0 * k for k in range(int((N * INTERVAL + 200) / 5) + 1)]
    prev_lt = None
    lp, lg = 0, 0
    for lt in tgrid:
        # advance all events up to lt
        for i, q in enumerate(reqs):
            if q["first"] <= lt and i not in done_first:
                done_first.add(i)
                C["prompt"] += q["p"]
                lp += q["p"]
                C["gen"] += 1
                lg += 1
                H["ttft"].observe(q["first"] - q["arr"])
                H["iter"].observe(q["p"])
                done_tok[i] = 1
            if i in done_first and done_tok.get(i, 0) < q["o"]:
                tt = q["first"]
                k = 0
                while k < done_tok[i] - 1:
                    tt += q["tp"][k]
                    k += 1
                while done_tok[i] < q["o"] and tt + q["tp"][done_tok[i] - 1] <= lt:
                    tt += q["tp"][done_tok[i] - 1]
                    H["tpot"].observe(q["tp"][done_tok[i] - 1])
                    H["iter"].observe(1)
                    done_tok[i] += 1
                    C["gen"] += 1
                    lg += 1
            if i in done_first and done_tok.get(i) == q["o"] and i not in done_end:
                done_end.add(i)
                reason = "length" if q["o"] >= 600 else "stop"
                C[reason] += 1
                H["e2e"].observe(q["end"] - q["arr"])
                H["queue"].observe(q["q"])
                H["prefill"].observe(q["first"] - q["arr"] - q["q"])
                H["decode"].observe(q["end"] - q["first"])
                H["infer"].observe(q["end"] - q["arr"] - q["q"])
                H["ptok"].observe(q["p"])
                H["gtok"].observe(q["o"])
                H["maxtok"].observe(1024)
                H["n"].observe(1)
        running = [q for i, q in enumerate(reqs) if q["arr"] <= lt < q["end"]]
        used = 0
        for i, q in enumerate(reqs):
            if q["arr"] <= lt < q["end"]:
                used += -(-(q["p"] + done_tok.get(i, 0)) // BLOCK)
        usage = used / NUM_BLOCKS
        if prev_lt is not None and (running or lg or lp):
            logs.append("INFO %s metrics.py:455] Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: %.1f%%, CPU KV cache usage: 0.0%%." % (ts(lt), lp / 5.0, lg / 5.0, len(running), usage * 100))
            lp, lg = 0, 0
        prev_lt = lt
        if lt >= T0 and (lt - T0) % INTERVAL == 0 and len(scrapes) < N:
            scrapes.append({"t": lt + 0.4, "status": 200, "text": render(H, C, len(running), usage, lt)})
    write(scrapes, logs)


def render(H, C, running, usage, now):
    out = []
    info = {"block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
            "enable_prefix_caching": "False", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
            "num_cpu_blocks": str(CPU_BLOCKS), "num_gpu_blocks": str(NUM_BLOCKS), "num_gpu_blocks_override": "None",
            "sliding_window": "None", "swap_space_bytes": str(4 * 2 ** 30)}
    out += gauge_lines("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", [(info, 1.0)])
    out += gauge_lines("vllm:num_requests_running", "Number of requests currently running on GPU.", [(L, running)])
    out += gauge_lines("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(L, 0)])
    lora = {"max_lora": "1", "running_lora_adapters": "lora1" if running else "", "waiting_lora_adapters": ""}
    out += gauge_lines("vllm:lora_requests_info", "Running stats on lora requests.", [(lora, round(now, 3))])
    out += gauge_lines("vllm:num_requests_swapped", "Number of requests swapped to CPU.", [(L, 0)])
    out += gauge_lines("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", [(L, round(usage, 6))])
    out += gauge_lines("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", [(L, 0.0)])
    out += gauge_lines("vllm:cpu_prefix_cache_hit_rate", "CPU prefix cache block hit rate.", [(L, -1.0)])
    out += gauge_lines("vllm:gpu_prefix_cache_hit_rate", "GPU prefix cache block hit rate.", [(L, -1.0)])
    out += counter_lines("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [(L, 0)])
    out += counter_lines("vllm:prompt_tokens", "Number of prefill tokens processed.", [(L, C["prompt"])])
    out += counter_lines("vllm:generation_tokens", "Number of generation tokens processed.", [(L, C["gen"])])
    out += H["iter"].render(None)
    for k in ("ttft", "tpot", "e2e", "queue", "infer", "prefill", "decode", "ptok", "gtok", "n", "maxtok"):
        out += H[k].render(None)
    rs = []
    for reason in ("stop", "length"):
        d = dict(L)
        d["finished_reason"] = reason
        rs.append((d, C[reason]))
    out += counter_lines("vllm:request_success", "Count of successfully processed requests.", rs)
    return "\n".join(out) + "\n"


def write(scrapes, run_logs):
    s = START
    head = [
        "INFO %s api_server.py:838] vLLM API server version 0.7.0" % ts(s),
        "INFO %s api_server.py:839] args: Namespace(subparser='serve', model_tag='models/Qwen2.5-72B-Instruct-AWQ', config='', host=None, port=8001, lora_modules=[LoRAModulePath(name='lora1', path='/LLaMA-Factory/saves/Qwen2.5-72B-Instruct-AWQ/lora/train_2025-02-12-11-57-47', base_model_name=None)], model='models/Qwen2.5-72B-Instruct-AWQ', trust_remote_code=True, max_model_len=None, tensor_parallel_size=1, block_size=None, enable_prefix_caching=None, swap_space=4, cpu_offload_gb=0, gpu_memory_utilization=0.9, max_num_batched_tokens=None, max_num_seqs=None, quantization='awq', enforce_eager=True, max_seq_len_to_capture=8192, enable_lora=True, max_loras=1, max_lora_rank=16, fully_sharded_loras=False, speculative_model=None, disable_log_requests=False)" % ts(s + 1),
        "INFO %s config.py:510] This model supports multiple tasks: {'generate', 'score', 'embed', 'reward', 'classify'}. Defaulting to 'generate'." % ts(s + 9),
        "INFO %s awq_marlin.py:111] Detected that the model can run with awq_marlin, however you specified quantization=awq explicitly, so forcing awq. Use quantization=awq_marlin for faster inference" % ts(s + 9),
        "WARNING %s config.py:588] awq quantization is not fully optimized yet. The speed can be slower than non-quantized models." % ts(s + 9),
        "WARNING %s config.py:3277] LoRA with quantization is an experimental feature and may not work properly." % ts(s + 9),
        "INFO %s llm_engine.py:232] Initializing an LLM engine (v0.7.0) with config: model='models/Qwen2.5-72B-Instruct-AWQ', speculative_config=None, tokenizer='models/Qwen2.5-72B-Instruct-AWQ', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.float16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=1, pipeline_parallel_size=1, disable_custom_all_reduce=False, quantization=awq, enforce_eager=True, kv_cache_dtype=auto,  device_config=cuda, decoding_config=DecodingConfig(guided_decoding_backend='xgrammar'), seed=0, served_model_name=models/Qwen2.5-72B-Instruct-AWQ, num_scheduler_steps=1, multi_step_stream_outputs=True, enable_prefix_caching=False, chunked_prefill_enabled=False, use_async_output_proc=False, disable_mm_preprocessor_cache=False, mm_processor_kwargs=None, pooler_config=None, compilation_config={\"splitting_ops\":[],\"compile_sizes\":[],\"cudagraph_capture_sizes\":[],\"max_capture_size\":0}, use_cached_outputs=True, " % ts(s + 10),
        "INFO %s model_runner.py:1115] Loading model weights took 38.8400 GB" % ts(s + 212),
        "INFO %s punica_selector.py:11] Using PunicaWrapperGPU." % ts(s + 213),
        "INFO %s worker.py:266] Memory profiling takes 7.32 seconds" % ts(s + 221),
        "INFO %s worker.py:266] the current vLLM instance can use total_gpu_memory (79.15GiB) x gpu_memory_utilization (0.90) = 71.24GiB" % ts(s + 221),
        "INFO %s worker.py:266] model weights take 38.84GiB; non_torch_memory takes 0.19GiB; PyTorch activation peak memory takes 4.72GiB; the rest of the memory reserved for KV Cache is %.2fGiB." % (ts(s + 221), KV_GIB),
        "INFO %s executor_base.py:108] # CUDA blocks: %d, # CPU blocks: %d" % (ts(s + 222), NUM_BLOCKS, CPU_BLOCKS),
        "INFO %s executor_base.py:113] Maximum concurrency for 32768 tokens per request: %.2fx" % (ts(s + 222), NUM_BLOCKS * BLOCK / MAX_LEN),
        "INFO %s llm_engine.py:429] init engine (profile, create kv cache, warmup model) took 11.06 seconds" % ts(s + 223),
        "INFO %s serving_models.py:174] Loaded new LoRA adapter: name 'lora1', path '/LLaMA-Factory/saves/Qwen2.5-72B-Instruct-AWQ/lora/train_2025-02-12-11-57-47'" % ts(s + 224),
        "INFO %s api_server.py:937] Starting vLLM API server on http://0.0.0.0:8001" % ts(s + 225),
    ]
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://localhost:8001",
                "started_at": scrapes[0]["t"], "ended_at": scrapes[-1]["t"], "interval_s": INTERVAL,
                "notes": "Qwen2.5-72B-Instruct-AWQ with LoRA lora1 on one GPU, --enforce-eager; one chat user."}
    server = {"version": {"version": "0.7.0"},
              "models": {"object": "list", "data": [
                  {"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "parent": None, "max_model_len": MAX_LEN},
                  {"id": "lora1", "object": "model", "owned_by": "vllm", "root": "/LLaMA-Factory/saves/Qwen2.5-72B-Instruct-AWQ/lora/train_2025-02-12-11-57-47", "parent": MODEL, "max_model_len": None}]},
              "health": 200}
    argv = ["vllm", "serve", "models/Qwen2.5-72B-Instruct-AWQ", "--port", "8001", "--trust-remote-code",
            "--tensor-parallel-size", "1", "--quantization", "awq", "--enforce-eager", "--gpu-memory-utilization", "0.9",
            "--enable-lora", "--lora-modules", "lora1=/LLaMA-Factory/saves/Qwen2.5-72B-Instruct-AWQ/lora/train_2025-02-12-11-57-47"]
    engine_args = {"argv": argv, "args": {"port": 8001, "trust-remote-code": True, "tensor-parallel-size": 1,
                                          "quantization": "awq", "enforce-eager": True, "gpu-memory-utilization": 0.9,
                                          "enable-lora": True,
                                          "lora-modules": "lora1=/LLaMA-Factory/saves/Qwen2.5-72B-Instruct-AWQ/lora/train_2025-02-12-11-57-47",
                                          "block_size": 16, "num_gpu_blocks": NUM_BLOCKS, "enable_prefix_caching": False}}
    model_config = {"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
                    "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02,
                    "intermediate_size": 29568, "max_position_embeddings": 32768, "max_window_layers": 80,
                    "model_type": "qwen2", "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
                    "quantization_config": {"bits": 4, "group_size": 128, "modules_to_not_convert": None,
                                            "quant_method": "awq", "version": "gemm", "zero_point": True},
                    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": False,
                    "torch_dtype": "float16", "transformers_version": "4.41.1", "use_cache": True,
                    "use_sliding_window": False, "vocab_size": 152064}
    used = int((71.24 + 0.52) * 2 ** 30)
    gpu = [{"t": x["t"], "devices": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "memory_total": 85899345920,
                                      "memory_used": used, "processes": [{"pid": 2871, "name": "python3", "used_memory": used - 470 * 2 ** 20}]}]}
           for x in scrapes]
    write_bundle(os.path.join(CASE, "bundle"), manifest, scrapes, server, engine_args, model_config, gpu,
                 "\n".join(head + run_logs) + "\n")
    print("blocks", NUM_BLOCKS, "cpu", CPU_BLOCKS)


if __name__ == "__main__":
    main()
