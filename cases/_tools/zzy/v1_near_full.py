"""zzy-v1-0101-near-full-kv-waiting-spike: vLLM 0.10.1.1 V1, Llama-3.1-8B on one H100,
closed-loop client 120 -> 600 concurrent; recompute preemption when the pool is full.
Families/HELP/buckets from vllm/v1/metrics/loggers.py (0.10 line, read_file commit 005a810b)."""
import os, sys, math, random, bisect
sys.path.insert(0, os.path.dirname(__file__))
from common import write_bundle, stamp

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "zzy-v1-0101-near-full-kv-waiting-spike", "bundle")
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
BLOCKS, BS = 27893, 16
MAXLEN = 131072
T0 = 1755850000.0                 # first scrape (2025-08-22)
WIN, INTERVAL, SUB = 900, 10.0, 0.1
rnd = random.Random(23444)

def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1

HB = {
 "vllm:iteration_tokens_total": ([1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384], "Histogram of number of tokens per engine_step."),
 "vllm:time_to_first_token_seconds": ([0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0], "Histogram of time to first token in seconds."),
 "vllm:time_per_output_token_seconds": ([0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0], "Histogram of time per output token in seconds."),
 "vllm:time_per_prefill_token_request_seconds": ([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0], "Time spent per token during prefill  phase in seconds"),
}
LAT = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
for n, h in (("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds."),
             ("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request."),
             ("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request."),
             ("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request."),
             ("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.")):
    HB[n] = (LAT, h)
for n, h in (("vllm:request_prompt_tokens", "Number of prefill tokens processed."),
             ("vllm:request_generation_tokens", "Number of generation tokens processed."),
             ("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens."),
             ("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.")):
    HB[n] = (b125(MAXLEN), h)
HB["vllm:request_params_n"] = ([1, 2, 5, 10, 20], "Histogram of the n request parameter.")
HIST_ORDER = ["vllm:request_prompt_tokens", "vllm:request_generation_tokens", "vllm:iteration_tokens_total",
    "vllm:request_max_num_generation_tokens", "vllm:request_params_n", "vllm:request_params_max_tokens",
    "vllm:time_to_first_token_seconds", "vllm:time_per_output_token_seconds", "vllm:time_per_prefill_token_request_seconds",
    "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds", "vllm:request_inference_time_seconds",
    "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds"]

class H:
    def __init__(self, les):
        self.les, self.c, self.n, self.s = les, [0] * len(les), 0, 0.0
    def obs(self, v, k=1):
        i = bisect.bisect_left(self.les, v)
        if i < len(self.les):
            self.c[i] += k
        self.n += k; self.s += v * k
hist = {n: H(HB[n][0]) for n in HIST_ORDER}
C = dict(preempt=0, prompt=0, gen=0, pq=0, ph=0, succ_stop=0, succ_length=0)

class Req:
    __slots__ = ("P", "G", "arr", "sched", "first", "kv", "gen", "need", "state", "pdone", "fpre")
    def __init__(s, t):
        s.P, s.G, s.arr = rnd.randint(1200, 1800), rnd.randint(1000, 2000), t
        s.sched = s.first = None; s.kv = 0; s.gen = 0; s.need = s.P; s.state = "W"; s.pdone = 0; s.fpre = None

def blocks(tok):
    return -(-tok // BS)

def conc(t):
    return 120 if t < T0 + 240 else 600

waiting, running = [], []
used = 0
t = T0 - 60.0
active = 0
scr, logs_stats = [], []
next_scrape, next_log = T0, T0 - 50
acc_prompt = acc_gen = 0
gen_frac = {}
created = T0 - 3600

def scrape_text(now):
    lab = 'engine="0",model_name="%s"' % MODEL
    o = []
    def g(n, h, v):
        o.extend([f"# HELP {n} {h}", f"# TYPE {n} gauge", f"{n}{{{lab}}} {float(v)}"])
    def c(n, h, v):
        o.extend([f"# HELP {n}_total {h}", f"# TYPE {n}_total counter", f"{n}_total{{{lab}}} {float(v)}", f"{n}_created{{{lab}}} {created}"])
    u = used / BLOCKS
    g("vllm:num_requests_running", "Number of requests in model execution batches.", len(running))
    g("vllm:num_requests_waiting", "Number of requests waiting to be processed.", len(waiting))
    g("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.", u)
    c("vllm:gpu_prefix_cache_queries", "GPU prefix cache queries, in terms of number of queriedtokens. DEPRECATED: Use vllm:prefix_cache_queries instead.", C["pq"])
    c("vllm:gpu_prefix_cache_hits", "GPU prefix cache hits, in terms of number of cached tokens. DEPRECATED: Use vllm:prefix_cache_hits instead.", C["ph"])
    g("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", u)
    c("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", C["pq"])
    c("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", C["ph"])
    c("vllm:num_preemptions", "Cumulative number of preemption from the engine.", C["preempt"])
    c("vllm:prompt_tokens", "Number of prefill tokens processed.", C["prompt"])
    c("vllm:generation_tokens", "Number of generation tokens processed.", C["gen"])
    o.extend(["# HELP vllm:request_success_total Count of successfully processed requests.", "# TYPE vllm:request_success_total counter"])
    for r in ("stop", "length", "abort"):
        o.append(f'vllm:request_success_total{{{lab},finished_reason="{r}"}} {float(C.get("succ_" + r, 0))}')
    for r in ("stop", "length", "abort"):
        o.append(f'vllm:request_success_created{{{lab},finished_reason="{r}"}} {created}')
    for n in HIST_ORDER:
        hh = hist[n]
        o.extend([f"# HELP {n} {HB[n][1]}", f"# TYPE {n} histogram"])
        cum = 0
        for le, k in zip(hh.les, hh.c):
            cum += k
            o.append(f'{n}_bucket{{{lab},le="{float(le)}"}} {float(cum)}')
        o.append(f'{n}_bucket{{{lab},le="+Inf"}} {float(hh.n)}')
        o.append(f"{n}_count{{{lab}}} {float(hh.n)}")
        o.append(f"{n}_sum{{{lab}}} {round(hh.s, 6)}")
        o.append(f"{n}_created{{{lab}}} {created}")
    cc = dict(block_size="16", cache_dtype="auto", calculate_kv_scales="False", cpu_offload_gb="0", enable_prefix_caching="True",
              engine="0", gpu_memory_utilization="0.9", is_attention_free="False", kv_sharing_fast_prefill="False",
              num_cpu_blocks="None", num_gpu_blocks=str(BLOCKS), num_gpu_blocks_override="None", prefix_caching_hash_algo="builtin",
              sliding_window="None", swap_space="4")
    o.extend(["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig", "# TYPE vllm:cache_config_info gauge",
              "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(cc.items())) + "} 1.0"])
    return "\n".join(o) + "\n"

while t < T0 + WIN + 0.001:
    # closed-loop client
    while active < conc(t):
        waiting.append(Req(t)); active += 1
    # admission (V1: room for the tokens to compute now)
    while waiting and len(running) < 1024:
        r = waiting[0]
        if blocks(r.need) > BLOCKS - used:
            break
        waiting.pop(0)
        if r.sched is None:
            r.sched = t
            C["pq"] += r.P            # prefix lookup on first scheduling, no hits (unshared prompts)
        r.state, r.pdone, r.fpre = "P", 0, r.fpre or t
        r.kv = r.need; used += blocks(r.need)
        running.append(r)
    R = len(running)
    pre = [r for r in running if r.state == "P"]
    budget = 3000                      # prefill tokens per 0.1 s when sharing steps with decodes
    ptok = 0
    for r in pre:
        take = min(budget - ptok, r.need - r.pdone)
        if take <= 0:
            break
        r.pdone += take; ptok += take
        if r.pdone >= r.need:
            r.state = "D"
            if r.first is None:
                r.first = t + SUB
                r.gen = 1; C["gen"] += 1; r.kv += 1
                hist["vllm:time_to_first_token_seconds"].obs(r.first - r.arr)
    C["prompt"] += ptok; acc_prompt += ptok
    step = 0.010 + 0.00009 * R + 4.5e-8 * used * BS
    dec_time = SUB - ptok * 3.0e-5
    nsteps = max(0.0, dec_time / step)
    dec = [r for r in running if r.state == "D"]
    if dec and nsteps > 0:
        k_all = nsteps
        for r in list(dec):
            if r not in running:
                continue
            f = gen_frac.get(id(r), 0.0) + k_all
            k = int(f); gen_frac[id(r)] = f - k
            k = min(k, r.G - r.gen)
            if k <= 0:
                continue
            grow = blocks(r.kv + k) - blocks(r.kv)
            while grow > BLOCKS - used:
                victim = running[-1]
                if victim is r:
                    break
                running.pop(); used -= blocks(victim.kv)
                victim.need = victim.P + victim.gen; victim.kv = 0; victim.state = "W"
                waiting.insert(0, victim); C["preempt"] += 1
            if grow > BLOCKS - used:
                continue
            used += grow; r.kv += k; r.gen += k; C["gen"] += k; acc_gen += k
            hist["vllm:time_per_output_token_seconds"].obs(step, k)
            if r.gen >= r.G:
                running.remove(r); used -= blocks(r.kv); active -= 1
                end = t + SUB
                hist["vllm:e2e_request_latency_seconds"].obs(end - r.arr)
                hist["vllm:request_queue_time_seconds"].obs(r.sched - r.arr)
                hist["vllm:request_inference_time_seconds"].obs(end - r.sched)
                hist["vllm:request_prefill_time_seconds"].obs(r.first - r.sched)
                hist["vllm:time_per_prefill_token_request_seconds"].obs((r.first - r.sched) / r.P)
                hist["vllm:request_decode_time_seconds"].obs(end - r.first)
                hist["vllm:request_prompt_tokens"].obs(r.P)
                hist["vllm:request_generation_tokens"].obs(r.gen)
                hist["vllm:request_max_num_generation_tokens"].obs(2048)
                hist["vllm:request_params_max_tokens"].obs(2048)
                hist["vllm:request_params_n"].obs(1)
                C["succ_stop"] += 1
    ns = int(round(nsteps))
    if ns:
        hist["vllm:iteration_tokens_total"].obs(len(dec) + ptok / ns, ns)
    t = round(t + SUB, 3)
    if t >= next_log - 1e-6:
        logs_stats.append((t, acc_prompt / 10.0, acc_gen / 10.0, len(running), len(waiting), used / BLOCKS * 100))
        acc_prompt = acc_gen = 0; next_log += 10
    if t >= next_scrape - 1e-6:
        scr.append({"t": round(next_scrape, 3), "status": 200, "text": scrape_text(next_scrape)}); next_scrape += INTERVAL

# logs
L = []
def ln(tt, who, src, msg, lvl="INFO"):
    L.append(f"({who}) {lvl} {stamp(tt)} [{src}] {msg}")
A, E = "APIServer pid=1", "EngineCore_0 pid=287"
ts0 = T0 - 200
ln(ts0, A, "api_server.py:1805", "vLLM API server version 0.10.1.1")
ln(ts0 + 1, A, "utils.py:326", "non-default args: {'model_tag': '%s', 'host': '0.0.0.0', 'model': '%s'}" % (MODEL, MODEL))
ln(ts0 + 9, A, "__init__.py:711", "Resolved architecture: LlamaForCausalLM")
ln(ts0 + 9, A, "__init__.py:1750", "Using max model len 131072")
ln(ts0 + 10, A, "scheduler.py:222", "Chunked prefill is enabled with max_num_batched_tokens=8192.")
ln(ts0 + 14, E, "core.py:636", "Waiting for init message from front-end.")
ln(ts0 + 40, E, "gpu_model_runner.py:1953", "Model loading took 14.9889 GiB and 21.334102 seconds")
ln(ts0 + 58, E, "gpu_worker.py:276", "Available KV cache memory: 54.48 GiB")
ln(ts0 + 58, E, "kv_cache_utils.py:849", "GPU KV cache size: 446,288 tokens")
ln(ts0 + 58, E, "kv_cache_utils.py:853", "Maximum concurrency for 131,072 tokens per request: 3.40x")
ln(ts0 + 80, E, "gpu_model_runner.py:2567", "Graph capturing finished in 18 secs, took 0.61 GiB")
ln(ts0 + 81, E, "core.py:214", "init engine (profile, create kv cache, warmup model) took 41.52 seconds")
ln(ts0 + 82, A, "loggers.py:142", f"Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {BLOCKS}")
ln(ts0 + 83, A, "launcher.py:29", "Available routes are: /metrics, /health, /v1/models, /v1/completions, /v1/chat/completions")
L.append("(APIServer pid=1) INFO:     Started server process [1]")
L.append("(APIServer pid=1) INFO:     Application startup complete.")
for (tt, pt, gt, rr, ww, uu) in logs_stats:
    if tt < T0 - 1:
        continue
    ln(tt, A, "loggers.py:123", f"Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, Avg generation throughput: {gt:.1f} tokens/s, Running: {rr} reqs, Waiting: {ww} reqs, GPU KV cache usage: {uu:.1f}%, Prefix cache hit rate: 0.0%")

total = 85520809984
mem = int(total * 0.9) + int(0.61 * 2**30) + 520 * 2**20
gpu = [{"t": s["t"], "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_total": total, "memory_used": mem,
        "processes": [{"pid": 287, "name": "VLLM::EngineCore", "used_memory": mem - 3 * 2**20}]}]} for s in scr]
mc = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
      "eos_token_id": [128001, 128008, 128009], "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
      "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
      "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
      "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
      "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16", "transformers_version": "4.43.0.dev0",
      "use_cache": True, "vocab_size": 128256}
write_bundle(OUT,
    manifest={"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": "http://gpu-node-0:8000",
              "started_at": T0, "ended_at": scr[-1]["t"], "interval_s": INTERVAL,
              "notes": "vLLM 0.10.1.1 on GPU0 of an 8-GPU NVLink node; batch client raised from 120 to 600 concurrent requests at about 4 minutes."},
    scrapes=scr,
    server={"version": {"version": "0.10.1.1"}, "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm", "root": MODEL, "parent": None, "max_model_len": MAXLEN}]}, "health": 200},
    engine_args={"argv": ["vllm", "serve", MODEL, "--host", "0.0.0.0"], "args": {"model": MODEL, "host": "0.0.0.0"}},
    model_config=mc, gpu=gpu, logs="\n".join(L) + "\n")
for (tt, pt, gt, rr, ww, uu) in logs_stats[::6]:
    print(int(tt - T0), round(pt), round(gt), rr, ww, round(uu, 1))
print("preempt", C["preempt"], "finished", C["succ_stop"], "scrapes", len(scr))
