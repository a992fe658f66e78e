"""zyr-tpu-fp8kv-calibrated-gsm8k: Llama-3.1-8B-Instruct-FP8-KV (calibrated KV scales) served with
kv_cache_dtype=fp8 on one TPU v6e chip; GSM8K 5-shot replay at 16 concurrent; outputs run to 256."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import Hist, counter_lines, gauge_lines, buckets_125, write_bundle, rng  # noqa

CASE = os.path.join(os.path.dirname(__file__), "..", "..", "zyr-tpu-fp8kv-calibrated-gsm8k")
MODEL = "chengjiyao/Llama-3.1-8B-Instruct-FP8-KV"
L = {"model_name": MODEL, "engine": "0"}
T0 = 1751976000.0            # 2025-07-08 12:00:00 UTC
START = T0 - 420.0
INTERVAL = 10.0
N = 49
CONC = 16
MAX_LEN = 4096
BLOCK = 16
BYTES_PER_TOKEN = 2 * 32 * 8 * 128 * 1       # fp8 KV: 65,536
KV_GIB = 31.25 * 0.9 - 14.96 - 1.91          # 11.255
NUM_BLOCKS = int(KV_GIB * 2 ** 30 // (BYTES_PER_TOKEN * BLOCK))
SHARED = 256                                 # 5-shot prefix tokens shared by every prompt (16 blocks)
STEP = 0.0118                                # decode step at batch 16
PREFILL_TPS = 9000.0

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
         120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]


def ts(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))


def main():
    r = rng(19292)
    H = {
        "ttft": Hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_B, L),
        "tpot": Hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", TPOT_B, L),
        "e2e": Hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", LAT_B, L),
        "queue": Hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", LAT_B, L),
        "infer": Hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", LAT_B, L),
        "prefill": Hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", LAT_B, L),
        "decode": Hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", LAT_B, L),
        "ptok": Hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", buckets_125(MAX_LEN), L),
        "gtok": Hist("vllm:request_generation_tokens", "Number of generation tokens processed.", buckets_125(MAX_LEN), L),
        "iter": Hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
                     [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], L),
        "maxgen": Hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", buckets_125(MAX_LEN), L),
        "n": Hist("vllm:request_params_n", "Histogram of the n request parameter.", [1, 2, 5, 10, 20], L),
        "maxtok": Hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", buckets_125(MAX_LEN), L),
    }
    C = {"prompt": 0, "gen": 0, "stop": 0, "length": 0, "pq": 0, "ph": 0}
    scrapes, logs = [], []
    carry = 0.0
    for i in range(-20, N):
        t = T0 + i * INTERVAL
        steps = int(INTERVAL / (STEP * r.uniform(0.98, 1.03)))
        gen = steps * CONC
        # each finished request generated 256 (length) or a short stopped answer
        outs = []
        carry += gen
        while True:
            o = 256 if r.random() < 0.90 else r.randint(40, 200)
            if carry < o:
                break
            carry -= o
            outs.append(o)
        ptoks_l = [SHARED + r.randint(24, 48) for _ in outs]
        hits = [SHARED if r.random() < 0.995 else 0 for _ in outs]
        C["pq"] += sum(ptoks_l)
        C["ph"] += sum(hits)
        C["prompt"] += sum(ptoks_l)
        C["gen"] += gen
        for o, p, h in zip(outs, ptoks_l, hits):
            C["length" if o == 256 else "stop"] += 1
            q = r.uniform(0.0005, 0.003)
            pre = (p - h) / PREFILL_TPS + r.uniform(0.005, 0.03)
            tp = STEP * r.uniform(0.97, 1.06)
            dec = (o - 1) * tp
            H["ttft"].observe(q + pre)
            H["queue"].observe(q)
            H["prefill"].observe(pre)
            H["decode"].observe(dec)
            H["infer"].observe(pre + dec)
            H["e2e"].observe(q + pre + dec)
            H["tpot"].observe(tp, o - 1)
            H["ptok"].observe(p)
            H["gtok"].observe(o)
            H["maxgen"].observe(256)
            H["n"].observe(1)
            H["maxtok"].observe(256)
        for s in range(steps):
            H["iter"].observe(CONC + (36 if s < len(outs) else 0))
        ctx = [r.randint(24, 48) + r.randint(1, 256) for _ in range(CONC)]
        used = -(-SHARED // BLOCK) + sum(-(-c // BLOCK) for c in ctx)
        usage = used / NUM_BLOCKS
        if i >= 0:
            scrapes.append({"t": t + 0.3, "status": 200, "text": render(H, C, usage)})
            hit = 100.0 * C["ph"] / C["pq"]
            logs.append("INFO %s [loggers.py:118] Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%" % (ts(t - 4), sum(ptoks_l) / INTERVAL, gen / INTERVAL, CONC, usage * 100, hit))
    write(scrapes, logs)


def render(H, C, usage):
    cr = START + 95.0
    out = []
    out += gauge_lines("vllm:num_requests_running", "Number of requests in model execution batches.", [(L, CONC)])
    out += gauge_lines("vllm:num_requests_waiting", "Number of requests waiting to be processed.", [(L, 0)])
    out += gauge_lines("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.", [(L, round(usage, 6))])
    out += counter_lines("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", [(L, C["pq"])], cr)
    out += counter_lines("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", [(L, C["ph"])], cr)
    out += gauge_lines("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", [(L, round(usage, 6))])
    out += counter_lines("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", [(L, C["pq"])], cr)
    out += counter_lines("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", [(L, C["ph"])], cr)
    out += counter_lines("vllm:num_preemptions", "Cumulative number of preemption from the engine.", [(L, 0)], cr)
    out += counter_lines("vllm:prompt_tokens", "Number of prefill tokens processed.", [(L, C["prompt"])], cr)
    out += counter_lines("vllm:generation_tokens", "Number of generation tokens processed.", [(L, C["gen"])], cr)
    rs = []
    for reason in ("stop", "length", "abort"):
        d = dict(L)
        d["finished_reason"] = reason
        rs.append((d, C.get(reason, 0)))
    out += counter_lines("vllm:request_success", "Count of successfully processed requests.", rs, cr)
    for k in ("ptok", "gtok", "iter", "maxgen", "n", "maxtok", "ttft", "tpot", "e2e", "queue", "infer", "prefill", "decode"):
        out += H[k].render(cr)
    info = {"block_size": str(BLOCK), "cache_dtype": "fp8", "calculate_kv_scales": "False", "cpu_offload_gb": "0",
            "enable_prefix_caching": "True", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
            "num_cpu_blocks": "None", "num_gpu_blocks": str(NUM_BLOCKS), "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "builtin", "sliding_window": "None", "swap_space": "4",
            "swap_space_bytes": str(4 * 2 ** 30), "engine": "0"}
    out += gauge_lines("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", [(info, 1.0)])
    return "\n".join(out) + "\n"


FEWSHOT = [
    ("A baker fills 6 trays with 14 rolls each and sells 59 rolls before noon. How many rolls are left?",
     "The baker made 6 * 14 = 84 rolls. After selling 59, 84 - 59 = 25 rolls are left. #### 25"),
    ("Maya reads 18 pages on Monday and twice as many on Tuesday. How many pages did she read in the two days?",
     "On Tuesday she read 2 * 18 = 36 pages. In total she read 18 + 36 = 54 pages. #### 54"),
    ("A bike costs $240. Leo has saved $95 and earns $29 a week. How many weeks until he can buy the bike?",
     "He still needs 240 - 95 = 145 dollars. 145 / 29 = 5 weeks. #### 5"),
    ("A garden has 7 rows of 9 tulips. 15 tulips are picked. How many tulips remain?",
     "There are 7 * 9 = 63 tulips. 63 - 15 = 48 remain. #### 48"),
    ("Sam buys 3 notebooks at $4 each and a pen for $2. He pays with a $20 bill. How much change does he get?",
     "The notebooks cost 3 * 4 = 12 dollars, plus 2 for the pen is 14. Change is 20 - 14 = 6 dollars. #### 6"),
]
QUESTIONS = [
    "A farmer collects 42 eggs a day. He keeps 6 each day and sells the rest in cartons of 12. How many cartons does he sell in a week?",
    "Nina runs 3 km on weekdays and 5 km on each weekend day. How many km does she run in 4 weeks?",
    "A school orders 18 boxes of markers with 24 markers per box. 37 markers are broken. How many usable markers are there?",
    "Tom earns $15 an hour and works 6 hours on Saturday and 4 on Sunday. He spends a third of it. How much does he keep?",
    "A tank holds 360 liters. It is 3/4 full and a pump removes 25 liters per minute. How many minutes until it is empty?",
    "Ava has 5 times as many stickers as Ben. Together they have 84. How many stickers does Ava have?",
    "A train travels 72 km per hour for 2.5 hours, then 60 km per hour for 1.5 hours. How far does it travel?",
    "A shop sells pencils at 3 for $1. How many dollars do 48 pencils cost?",
]


def write(scrapes, run_logs):
    s = START
    head = [
        "INFO %s [__init__.py:244] Automatically detected platform tpu." % ts(s),
        "INFO %s [api_server.py:1395] vLLM API server version 0.9.2.dev364+g5e1f4b7a2" % ts(s + 3),
        "INFO %s [cli_args.py:325] non-default args: {'model': 'chengjiyao/Llama-3.1-8B-Instruct-FP8-KV', 'max_model_len': 4096, 'kv_cache_dtype': 'fp8'}" % ts(s + 3),
        "INFO %s [config.py:841] This model supports multiple tasks: {'embed', 'classify', 'generate', 'reward'}. Defaulting to 'generate'." % ts(s + 11),
        "INFO %s [config.py:1632] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor." % ts(s + 11),
        "INFO %s [config.py:2196] Chunked prefill is enabled with max_num_batched_tokens=8192." % ts(s + 11),
        "INFO %s [tpu.py:107] [TPU] Forcing DYNAMO_ONCE compilation level" % ts(s + 11),
        "INFO %s [core.py:526] Waiting for init message from front-end." % ts(s + 20),
        "INFO %s [core.py:69] Initializing a V1 LLM engine (v0.9.2.dev364+g5e1f4b7a2) with config: model='chengjiyao/Llama-3.1-8B-Instruct-FP8-KV', speculative_config=None, tokenizer='chengjiyao/Llama-3.1-8B-Instruct-FP8-KV', dtype=torch.bfloat16, max_seq_len=4096, tensor_parallel_size=1, quantization=compressed-tensors, enforce_eager=False, kv_cache_dtype=fp8, device_config=None, enable_prefix_caching=True, chunked_prefill_enabled=True" % ts(s + 20),
        "INFO %s [tpu_model_runner.py:1347] Loading model from scratch..." % ts(s + 31),
        "INFO %s [tpu_model_runner.py:1363] Loading model weights took 14.96 GiB" % ts(s + 58),
        "INFO %s [kv_cache_utils.py:716] GPU KV cache size: %s tokens" % (ts(s + 71), format(NUM_BLOCKS * BLOCK, ",")),
        "INFO %s [kv_cache_utils.py:720] Maximum concurrency for 4,096 tokens per request: %.2fx" % (ts(s + 71), NUM_BLOCKS * BLOCK / MAX_LEN),
        "INFO %s [tpu_model_runner.py:1270] Compilation finished in 61.37 [secs]." % ts(s + 88),
        "INFO %s [core.py:172] init engine (profile, create kv cache, warmup model) took 97.14 seconds" % ts(s + 90),
        "INFO %s [api_server.py:1457] Starting vLLM API server 0 on http://0.0.0.0:8000" % ts(s + 95),
    ]
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": "http://localhost:8000",
                "started_at": scrapes[0]["t"], "ended_at": scrapes[-1]["t"], "interval_s": INTERVAL,
                "notes": "Llama-3.1-8B-Instruct-FP8-KV with kv_cache_dtype fp8 on TPU; GSM8K 5-shot replay at 16 concurrent."}
    server = {"version": {"version": "0.9.2.dev364+g5e1f4b7a2"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "max_model_len": MAX_LEN}]},
              "health": 200}
    engine_args = {"argv": ["vllm", "serve", MODEL, "--max-model-len", "4096", "--kv-cache-dtype", "fp8"],
                   "args": {"max-model-len": 4096, "kv-cache-dtype": "fp8", "block_size": BLOCK, "cache_dtype": "fp8",
                            "num_gpu_blocks": NUM_BLOCKS, "enable_prefix_caching": True, "gpu_memory_utilization": 0.9}}
    model_config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                    "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "head_dim": 128,
                    "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
                    "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
                    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1,
                    "quantization_config": {"config_groups": {}, "format": "dense", "global_compression_ratio": None,
                                            "ignore": [], "kv_cache_scheme": {"actorder": None, "block_structure": None,
                                                                              "dynamic": False, "group_size": None, "num_bits": 8,
                                                                              "observer": "minmax", "observer_kwargs": {},
                                                                              "strategy": "tensor", "symmetric": True, "type": "float"},
                                            "quant_method": "compressed-tensors", "quantization_status": "compressed"},
                    "rms_norm_eps": 1e-05, "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                                            "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                    "transformers_version": "4.52.4", "use_cache": True, "vocab_size": 128256}
    write_bundle(os.path.join(CASE, "bundle"), manifest, scrapes, server, engine_args, model_config, None,
                 "\n".join(head + run_logs) + "\n")
    prefix = "".join("Question: %s\nAnswer: %s\n\n" % qa for qa in FEWSHOT)
    with open(os.path.join(CASE, "prompts.jsonl"), "w") as f:
        for q in QUESTIONS:
            f.write(json.dumps({"prompt": prefix + "Question: %s\nAnswer:" % q}) + "\n")
    print("blocks", NUM_BLOCKS, "tokens", NUM_BLOCKS * BLOCK)


if __name__ == "__main__":
    main()
