"""Writer zym: a small fluid simulator of one vLLM V1 engine and a kvdoctor.bundle/1 writer.

Metric names, labels and buckets follow vLLM's V1 PrometheusStatLogger
(vllm/v1/metrics/loggers.py) and SpecDecodingProm (vllm/v1/spec_decode/metrics.py); the later
releases' names vllm:inter_token_latency_seconds and vllm:request_time_per_output_token_seconds
replace vllm:time_per_output_token_seconds. Deterministic: seeded random only, no wall clock.
"""
from __future__ import annotations

import bisect
import datetime as _dt
import json
import random
from pathlib import Path

CASES = Path(__file__).resolve().parents[2]
GiB = 1 << 30

TTFT_B = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
          10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL_B = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
         20.0, 40.0, 80.0]
LAT_B = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
         240.0, 480.0, 960.0, 1920.0, 7680.0]
ITER_B = [1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]


def b125(mx):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > mx:
                return out
            out.append(v)
        e += 1


def epoch(y, mo, d, h, mi):
    return _dt.datetime(y, mo, d, h, mi, tzinfo=_dt.timezone.utc).timestamp()


def stamp(t):
    return _dt.datetime.fromtimestamp(t, tz=_dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def fmt(v):
    v = float(v)
    return f"{v:.1f}" if v.is_integer() else repr(round(v, 6))


def lbl(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


class Hist:
    def __init__(self, b):
        self.b = list(b)
        self.c = [0] * (len(self.b) + 1)
        self.s = 0.0
        self.n = 0

    def obs(self, v, n=1):
        if n <= 0:
            return
        self.c[bisect.bisect_left(self.b, v)] += n
        self.s += v * n
        self.n += n

    def lines(self, name, L):
        out, cum = [], 0
        for b, c in zip(self.b + ["+Inf"], self.c):
            cum += c
            out.append(f"{name}_bucket{lbl({**L, 'le': '+Inf' if b == '+Inf' else fmt(b)})} {fmt(cum)}")
        out.append(f"{name}_count{lbl(L)} {fmt(self.n)}")
        out.append(f"{name}_sum{lbl(L)} {fmt(round(self.s, 4))}")
        return out


def fam(name, typ, doc, lines):
    return [f"# HELP {name} {doc}", f"# TYPE {name} {typ}"] + lines


class Engine:
    """One engine's cumulative state; `step()` advances it by one scrape interval (fluid model)."""

    def __init__(self, model, max_model_len, cache_info, engine="0", num_spec=0, seed=1):
        self.L = {"model_name": model, "engine": engine}
        self.cache_info = cache_info
        self.num_spec = num_spec
        self.rng = random.Random(seed)
        self.running = 0
        self.waiting = 0
        self.kv = 0.0
        self.c = dict(prompt=0, gen=0, preempt=0, pq=0, ph=0, drafts=0, dtok=0, acc=0)
        self.pos = [0] * num_spec
        self.succ = {"stop": 0, "length": 0, "abort": 0, "error": 0}
        self.h = {k: Hist(b) for k, b in (("ttft", TTFT_B), ("itl", ITL_B), ("tpot", ITL_B),
                                          ("e2e", LAT_B), ("queue", LAT_B), ("inf", LAT_B),
                                          ("pre", LAT_B), ("dec", LAT_B), ("iter", ITER_B))}
        self.h["ptok"] = Hist(b125(max_model_len))
        self.h["gtok"] = Hist(b125(max_model_len))
        self.h["mtok"] = Hist(b125(max_model_len))
        # carry fractional amounts between intervals
        self._frac = {}

    def _int(self, key, x):
        x += self._frac.get(key, 0.0)
        n = int(x)
        self._frac[key] = x - n
        return n

    def step(self, dt, *, running, waiting, kv, step_s, accept_rate=0.0, pos_rates=None,
             decode_frac=1.0, new_reqs=0, prompt_len=0, ttft_s=0.0, queue_s=0.0, fin_reqs=0,
             out_len=1, max_tokens=1, dec_s=0.0, prefill_hit=0.0, preempt=0, jitter=0.06,
             prefill_tokens_per_step=0):
        """Advance dt seconds: `running` requests decode during decode_frac*dt at step_s per
        engine step; new_reqs prompts are admitted; fin_reqs requests finish (their TTFT, decode
        time and lengths given)."""
        self.running, self.waiting, self.kv = running, waiting, kv
        steps = dt * decode_frac / step_s
        k = self.num_spec
        if k and running:
            drafts = self._int("drafts", running * steps)
            pr = pos_rates or [accept_rate] * k
            acc_pos = [self._int(f"pos{i}", drafts * p) for i, p in enumerate(pr)]
            acc = sum(acc_pos)
            self.c["drafts"] += drafts
            self.c["dtok"] += drafts * k
            self.c["acc"] += acc
            for i, a in enumerate(acc_pos):
                self.pos[i] += a
            gen = drafts + acc
        else:
            drafts = acc = 0
            gen = self._int("gen", running * steps)
        gen += new_reqs  # each prefill emits its first token
        newp = new_reqs * prompt_len
        hit = self._int("hit", newp * prefill_hit)
        self.c["gen"] += gen
        self.c["prompt"] += newp
        self.c["pq"] += newp
        self.c["ph"] += hit
        self.c["preempt"] += preempt
        n_itl = self._int("itl", running * steps)
        q = n_itl // 8
        for _ in range(8):
            self.h["itl"].obs(step_s * (1 + self.rng.uniform(-jitter, jitter)), q)
        self.h["itl"].obs(step_s, n_itl - 8 * q)
        n_steps = self._int("steps", steps)
        self.h["iter"].obs(running * (1 + k) + prefill_tokens_per_step, n_steps)
        if new_reqs and prompt_len:
            n_pf = self._int("pfsteps", newp / 8192)
            self.h["iter"].obs(8192, n_pf)
        for _ in range(new_reqs):
            self.h["ttft"].obs(ttft_s * (1 + self.rng.uniform(-jitter, jitter)))
        for _ in range(fin_reqs):
            j = 1 + self.rng.uniform(-jitter, jitter)
            dec = dec_s * j
            self.h["tpot"].obs(dec / max(out_len - 1, 1))
            self.h["queue"].obs(queue_s)
            self.h["pre"].obs(max(ttft_s - queue_s, 0.001))
            self.h["dec"].obs(dec)
            self.h["inf"].obs(ttft_s - queue_s + dec)
            self.h["e2e"].obs(ttft_s + dec)
            self.h["ptok"].obs(prompt_len)
            self.h["gtok"].obs(out_len)
            self.h["mtok"].obs(max_tokens)
            self.succ["length" if out_len >= max_tokens else "stop"] += 1
        return dict(gen=gen, prompt=newp, drafts=drafts, acc=acc,
                    hit_rate=(hit / newp if newp else 0.0))

    def text(self):
        L = self.L
        o = []
        o += fam("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.",
                 [f"vllm:num_requests_running{lbl(L)} {fmt(self.running)}"])
        o += fam("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.",
                 [f"vllm:num_requests_waiting{lbl(L)} {fmt(self.waiting)}"])
        o += fam("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.",
                 [f"vllm:kv_cache_usage_perc{lbl(L)} {fmt(round(self.kv, 6))}"])
        for n, key, doc in (("vllm:prefix_cache_queries", "pq", "Prefix cache queries, in terms of number of queried tokens."),
                            ("vllm:prefix_cache_hits", "ph", "Prefix cache hits, in terms of number of cached tokens."),
                            ("vllm:num_preemptions", "preempt", "Cumulative number of preemption from the engine."),
                            ("vllm:prompt_tokens", "prompt", "Number of prefill tokens processed."),
                            ("vllm:generation_tokens", "gen", "Number of generation tokens processed.")):
            o += fam(n, "counter", doc, [f"{n}_total{lbl(L)} {fmt(self.c[key])}"])
        o += fam("vllm:request_success", "counter", "Count of successfully processed requests.",
                 [f"vllm:request_success_total{lbl({**L, 'finished_reason': r})} {fmt(v)}"
                  for r, v in self.succ.items()])
        if self.num_spec:
            for n, key, doc in (("vllm:spec_decode_num_drafts", "drafts", "Number of spec decoding drafts."),
                                ("vllm:spec_decode_num_draft_tokens", "dtok", "Number of draft tokens."),
                                ("vllm:spec_decode_num_accepted_tokens", "acc", "Number of accepted tokens.")):
                o += fam(n, "counter", doc, [f"{n}_total{lbl(L)} {fmt(self.c[key])}"])
            o += fam("vllm:spec_decode_num_accepted_tokens_per_pos", "counter",
                     "Accepted tokens per draft position.",
                     [f"vllm:spec_decode_num_accepted_tokens_per_pos_total{lbl({**L, 'position': str(i)})} {fmt(v)}"
                      for i, v in enumerate(self.pos)])
        for n, key, doc in (("vllm:request_prompt_tokens", "ptok", "Number of prefill tokens processed."),
                            ("vllm:request_generation_tokens", "gtok", "Number of generation tokens processed."),
                            ("vllm:iteration_tokens_total", "iter", "Histogram of number of tokens per engine_step."),
                            ("vllm:request_max_num_generation_tokens", "mtok", "Histogram of maximum number of requested generation tokens."),
                            ("vllm:time_to_first_token_seconds", "ttft", "Histogram of time to first token in seconds."),
                            ("vllm:inter_token_latency_seconds", "itl", "Histogram of inter-token latency in seconds."),
                            ("vllm:request_time_per_output_token_seconds", "tpot", "Histogram of time_per_output_token_seconds per request."),
                            ("vllm:e2e_request_latency_seconds", "e2e", "Histogram of e2e request latency in seconds."),
                            ("vllm:request_queue_time_seconds", "queue", "Histogram of time spent in WAITING phase for request."),
                            ("vllm:request_inference_time_seconds", "inf", "Histogram of time spent in RUNNING phase for request."),
                            ("vllm:request_prefill_time_seconds", "pre", "Histogram of time spent in PREFILL phase for request."),
                            ("vllm:request_decode_time_seconds", "dec", "Histogram of time spent in DECODE phase for request.")):
            o += fam(n, "histogram", doc, self.h[key].lines(n, L))
        o += fam("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig",
                 [f"vllm:cache_config_info{lbl({**self.cache_info, 'engine': L['engine']})} 1.0"])
        return "\n".join(o) + "\n"


def log_lines(t, pid, eng_idx, dt, r, running, waiting, kv, prefix_rate, spec=None, k=0,
              logger_line=271, spec_line=101, prefix=""):
    """The LoggingStatLogger line, and the SpecDecoding line when spec decode is on."""
    s = stamp(t)
    out = [f"{prefix}(APIServer pid={pid}) INFO {s} [loggers.py:{logger_line}] Engine {eng_idx:03d}: "
           f"Avg prompt throughput: {r['prompt'] / dt:.1f} tokens/s, Avg generation throughput: "
           f"{r['gen'] / dt:.1f} tokens/s, Running: {running} reqs, Waiting: {waiting} reqs, "
           f"GPU KV cache usage: {kv * 100:.1f}%, Prefix cache hit rate: {prefix_rate * 100:.1f}%"]
    if k and r["drafts"]:
        d, a = r["drafts"], r["acc"]
        pos = ", ".join(f"{p:.3f}" for p in spec)
        out.append(f"{prefix}(APIServer pid={pid}) INFO {s} [metrics.py:{spec_line}] SpecDecoding metrics: "
                   f"Mean acceptance length: {1 + a / d:.2f}, Accepted throughput: {a / dt:.2f} tokens/s, "
                   f"Drafted throughput: {d * k / dt:.2f} tokens/s, Accepted: {a} tokens, Drafted: {d * k} tokens, "
                   f"Per-position acceptance rate: {pos}, Avg Draft acceptance rate: {100 * a / (d * k):.1f}%")
    return out


def write_bundle(case_id, *, endpoint, started_at, interval_s, notes, scrapes, server=None,
                 engine_args=None, model_config=None, gpu=None, logs=None):
    b = CASES / case_id / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    for old in b.iterdir():
        old.unlink()
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
           "started_at": started_at, "ended_at": max(s["t"] for s in scrapes),
           "interval_s": interval_s, "notes": notes}
    (b / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    with (b / "metrics.jsonl").open("w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    for name, obj in (("server.json", server), ("engine_args.json", engine_args),
                      ("model_config.json", model_config)):
        if obj is not None:
            (b / name).write_text(json.dumps(obj, indent=1) + "\n")
    if gpu is not None:
        with (b / "gpu.jsonl").open("w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        (b / "logs.txt").write_text(logs)
    return b


def models_body(served, root, max_len, created):
    return {"object": "list", "data": [{"id": served, "object": "model", "created": created,
                                        "owned_by": "vllm", "root": root, "parent": None,
                                        "max_model_len": max_len}]}


def merge_texts(texts):
    """Merge several engines' expositions into one, one HELP/TYPE header per family."""
    order, fams = [], {}
    for text in texts:
        cur = None
        for line in text.splitlines():
            if line.startswith("# HELP "):
                cur = line.split()[2]
                if cur not in fams:
                    order.append(cur)
                    fams[cur] = {"head": [line], "samples": []}
            elif line.startswith("# TYPE "):
                if len(fams[cur]["head"]) == 1:
                    fams[cur]["head"].append(line)
            elif line:
                fams[cur]["samples"].append(line)
    out = []
    for n in order:
        out += fams[n]["head"] + fams[n]["samples"]
    return "\n".join(out) + "\n"
