"""zyp-llmd-burst-herding-8x70b: fleet bundle of 8 vLLM 0.10.1.1 replicas (Llama-3.3-70B
FP8, TP2 on 2x H100) behind an endpoint picker that scores pods on a 50 ms snapshot of
waiting queue + KV usage (weights 1:1) and sends every request of a burst to the best
pod of the last snapshot. guidellm concurrency 800, 1000 in / 1000 out.
Run from the worktree root: python3 cases/_tools/zyp/llmd_herding.py"""
import calendar
import heapq
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import write_bundle  # noqa
from prom0101 import EngineMetrics, render, cache_info  # noqa
from stepsim import Engine, Req  # noqa

OUT = "cases/zyp-llmd-burst-herding-8x70b/bundle"
MODEL = "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic"
T0 = calendar.timegm((2025, 8, 14, 15, 20, 0))
INTERVAL, N = 15, int(os.environ.get("NSCRAPE", "41"))
NREP, CONC = 8, 800
MAXLEN, BUDGET, MAXSEQ, BLOCK, NUM_BLOCKS = 8192, 8192, 1024, 16, 14080   # 225,280 tokens
ISL, OSL = 1000, 1000
REFRESH = float(os.environ.get("REFRESH", "0.05"))
PRATE = float(os.environ.get("PRATE", "12000"))
rng = random.Random(int(os.environ.get("SEED", "298")))
NAMES = [f"10.131.{2 + i // 4}.{17 + 9 * i}:8000" for i in range(NREP)]


def step_time(pt, nd, e):
    ctx = 0
    for r in e.running:
        ctx += r.done + r.gen
    return (0.017 + pt / PRATE + 0.00006 * nd + ctx * 2.5e-8) * rng.uniform(0.98, 1.02)


engs = [Engine(EngineMetrics(MAXLEN), MAXSEQ, BUDGET, NUM_BLOCKS, BLOCK, step_time) for _ in range(NREP)]
snap = [(0, 0.0)] * NREP
next_refresh = None


def pick():
    qs = [s[0] for s in snap]
    lo, hi = min(qs), max(qs)
    best, cand = -1.0, []
    for i, (q, kv) in enumerate(snap):
        qs_ = 1.0 if hi == lo else (hi - q) / (hi - lo)
        sc = qs_ + (1.0 - kv)
        if sc > best + 1e-12:
            best, cand = sc, [i]
        elif abs(sc - best) <= 1e-12:
            cand.append(i)
    return rng.choice(cand)


rid = 0


def send(t):
    global rid
    rid += 1
    i = pick()
    r = Req("cmpl-%032x-0" % rng.getrandbits(128), ISL + rng.randint(-3, 3), OSL, t, None, OSL)
    r.tag = i
    engs[i].add(r)
    return i


START = T0 - float(os.environ.get("WARM", "420"))
next_refresh = START
END = T0 + (N - 1) * INTERVAL
heap = []   # (time, engine index)
idle = set(range(NREP))


def wake(i, t):
    if i in idle:
        idle.discard(i)
        heapq.heappush(heap, (t, i))


# guidellm ramps the 800 streams over ~10 s
arrivals = sorted(START + rng.uniform(0, 10.0) for _ in range(CONC))
ai = 0
CTICK = float(os.environ.get("CTICK", "0.5"))
pending = []
scr = [[] for _ in range(NREP)]
fleet = []
next_scrape = T0
while True:
    t_next = heap[0][0] if heap else float("inf")
    t_arr = arrivals[ai] if ai < len(arrivals) else float("inf")
    t_pend = pending[0] if pending else float("inf")
    if t_pend < t_arr:
        t_arr = t_pend
    t = min(t_next, t_arr, next_refresh, next_scrape)
    if t > END + 1:
        break
    if t == next_scrape:
        next_scrape_t = next_scrape
        for i in range(NREP):
            txt = render({0: engs[i].em}, MODEL, cache_info(NUM_BLOCKS, 0.9, prefix=False))
            scr[i].append({"t": next_scrape_t, "status": 200, "text": txt})
        fleet.append({"t": next_scrape_t, "status": 200,
                      "text": render({f"{NAMES[i]}/0": engs[i].em for i in range(NREP)}, MODEL,
                                     cache_info(NUM_BLOCKS, 0.9, prefix=False))})
        next_scrape += INTERVAL
        if next_scrape > END:
            next_scrape = float("inf")
        continue
    if t == next_refresh:
        snap = [(len(e.waiting), e.used / NUM_BLOCKS) for e in engs]
        next_refresh += REFRESH
        continue
    if t == t_arr:
        i = send(t_arr)
        if pending and pending[0] == t_arr:
            heapq.heappop(pending)
        else:
            ai += 1
        wake(i, t_arr)
        continue
    _, i = heapq.heappop(heap)
    e = engs[i]
    n = len(e.finished)
    t2 = e.step(t)
    for r in e.finished[n:]:
        # the client's event loop picks completions up in batches: the next request of each
        # finished stream leaves at the next client tick
        tick = (int((r.end - START) / CTICK) + 1) * CTICK + START
        heapq.heappush(pending, tick)
    e.finished = e.finished[-50:] if len(e.finished) > 5000 else e.finished
    if t2 > t:
        heapq.heappush(heap, (t2, i))
    else:
        idle.add(i)
        if e.waiting or e.running:
            idle.discard(i)
            heapq.heappush(heap, (t + 0.001, i))

# ---- write the fleet bundle ---------------------------------------------------
KV = {"model": MODEL, "tensor-parallel-size": 2, "gpu-memory-utilization": 0.9, "max-model-len": MAXLEN,
      "no-enable-prefix-caching": True, "port": 8000}
argv = ["vllm", "serve", MODEL, "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.9",
        "--max-model-len", str(MAXLEN), "--no-enable-prefix-caching", "--port", "8000"]
model_config = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
                "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009], "head_dim": 128,
                "hidden_act": "silu", "hidden_size": 8192, "initializer_range": 0.02, "intermediate_size": 28672,
                "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
                "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8, "pretraining_tp": 1,
                "quantization_config": {"config_groups": {"group_0": {"input_activations": {"dynamic": True, "num_bits": 8, "strategy": "token", "symmetric": True, "type": "float"},
                                                                      "targets": ["Linear"],
                                                                      "weights": {"dynamic": False, "num_bits": 8, "strategy": "channel", "symmetric": True, "type": "float"}}},
                                        "format": "float-quantized", "ignore": ["lm_head"], "quant_method": "compressed-tensors"},
                "rms_norm_eps": 1e-05,
                "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                 "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
                "transformers_version": "4.47.0", "use_cache": True, "vocab_size": 128256}
for i in range(NREP):
    d = f"{OUT}/replicas/{i}"
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": f"http://{NAMES[i]}",
           "started_at": T0, "ended_at": END, "interval_s": float(INTERVAL), "notes": ""}
    server = {"version": {"version": "0.10.1.1"},
              "models": {"object": "list", "data": [{"id": MODEL, "object": "model", "created": END, "owned_by": "vllm",
                                                      "root": MODEL, "parent": None, "max_model_len": MAXLEN}]},
              "health": 200}
    write_bundle(d, man, scr[i], server, {"argv": None, "args": KV}, model_config)
man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.9.0", "endpoint": "fleet: 8 endpoints",
       "started_at": T0, "ended_at": END, "interval_s": float(INTERVAL),
       "notes": "8 llm-d replicas of Llama-3.3-70B FP8 (TP2) under guidellm concurrency 800, 1000/1000 tokens; TTFT much worse than with request-count load balancing"}
write_bundle(OUT, man, fleet)
with open(f"{OUT}/fleet.json", "w") as f:
    json.dump({"schema": "kvdoctor.fleet-endpoints/1",
               "replicas": [{"name": NAMES[i], "path": f"replicas/{i}"} for i in range(NREP)]}, f, indent=2)
print("done", sum(e.em.c["preempt"] for e in engs), "preemptions;", [e.em.c["preempt"] for e in engs])
