"""Writer zxh (round 23), copied from writer x (cases/_tools/x/gen.py, itself from writer t): request-level simulator writing kvdoctor.bundle/1.

Metric families (names, HELP, TYPE, histogram bucket bounds) are taken from the V1 expositions of
existing case bundles of the same release line (fam_0110.json: vLLM 0.11.0; fam_0180.json: vLLM 0.18.0),
extracted once with the script in README.md. Every number of a bundle comes from one list of simulated
requests, so counters, histograms, gauges and the periodic stats lines agree.
"""
from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE.parents[1]


@dataclass
class Req:
    rid: str
    t_arrive: float
    prompt: int
    gen: int
    queue_s: float
    prefill_s: float
    itl_s: float
    hit: int = 0          # local (GPU) prefix-cache hit tokens
    queried: bool = True  # counted in prefix_cache_queries (False when APC is off)
    ext_q: int = 0        # external connector lookup tokens
    ext_hit: int = 0
    max_tokens: int = 0
    reason: str = "length"
    pre_ev: tuple = ()    # ((t, recomputed_tokens), ...) preemption events (writer x)

    @property
    def t_sched(self):
        return self.t_arrive + self.queue_s

    @property
    def t_first(self):
        return self.t_sched + self.prefill_s

    @property
    def t_end(self):
        return self.t_first + max(0, self.gen - 1) * self.itl_s

    def gen_by(self, t):
        if t < self.t_first:
            return 0
        if t >= self.t_end:
            return self.gen
        return min(self.gen, 1 + int((t - self.t_first) / self.itl_s))


def fams(ver: str) -> list[dict]:
    return json.loads((HERE / f"fam_{ver}.json").read_text())


def fmt(v: float) -> str:
    if isinstance(v, int) or float(v).is_integer():
        return f"{float(v):.1f}"
    return f"{v:.6g}" if abs(v) < 1e-3 else f"{round(v, 6)}"


def hist(values, les):
    out = []
    for le in les:
        b = math.inf if le == "+Inf" else float(le)
        out.append(sum(1 for v in values if v <= b))
    return out


class Engine:
    def __init__(self, *, ver, model, reqs, pool_tokens, block_size, cache_cfg: dict, engine="0",
                 t_created, extra_labels=None, step_tokens=2048):
        self.ver, self.model, self.reqs = ver, model, sorted(reqs, key=lambda r: r.t_arrive)
        self.pool, self.bs, self.cache_cfg, self.engine = pool_tokens, block_size, cache_cfg, engine
        self.t_created = t_created
        self.step_tokens = step_tokens
        self.decode_batch = 4
        self.kv_fn = None     # optional override of KV usage (writer x)

    # ---- state at time t
    def running(self, t):
        return [r for r in self.reqs if r.t_sched <= t < r.t_end]

    def waiting(self, t):
        return [r for r in self.reqs if r.t_arrive <= t < r.t_sched]

    def kv_usage(self, t):
        if self.kv_fn is not None:
            return self.kv_fn(t)
        used = 0
        for r in self.running(t):
            toks = r.prompt + r.gen_by(t)
            used += math.ceil(toks / self.bs) * self.bs
        return min(1.0, used / self.pool)

    def scheduled(self, t):
        return [r for r in self.reqs if r.t_sched <= t]

    def done(self, t):
        return [r for r in self.reqs if r.t_end <= t]

    def exposition(self, t) -> str:
        L = {"engine": self.engine, "model_name": self.model}
        lab = lambda extra=None: "{" + ",".join(f'{k}="{v}"' for k, v in sorted({**L, **(extra or {})}.items())) + "}"
        sch = self.scheduled(t)
        pre = [r for r in self.reqs if r.t_first <= t]
        done = self.done(t)
        firsts = [r for r in self.reqs if r.t_first <= t]
        vals = {
            "vllm:num_requests_running": [(lab(), len(self.running(t)))],
            "vllm:num_requests_waiting": [(lab(), len(self.waiting(t)))],
            "vllm:kv_cache_usage_perc": [(lab(), self.kv_usage(t))],
            "vllm:engine_sleep_state": [(lab({"sleep_state": "awake"}), 1.0)],
            "vllm:prefix_cache_queries_total": [(lab(), sum(r.prompt for r in sch if r.queried))],
            "vllm:prefix_cache_hits_total": [(lab(), sum(r.hit for r in sch if r.queried))],
            "vllm:external_prefix_cache_queries_total": [(lab(), sum(r.ext_q for r in sch))],
            "vllm:external_prefix_cache_hits_total": [(lab(), sum(r.ext_hit for r in sch))],
            "vllm:mm_cache_queries_total": [(lab(), 0.0)],
            "vllm:mm_cache_hits_total": [(lab(), 0.0)],
            "vllm:num_preemptions_total": [(lab(), sum(1 for r in self.reqs for (te, _) in r.pre_ev if te <= t))],
            "vllm:prompt_tokens_total": [(lab(), sum(r.prompt for r in pre))],
            "vllm:prompt_tokens_by_source_total": [
                (lab({"source": "local_compute"}), sum(r.prompt - r.hit - r.ext_hit for r in pre)),
                (lab({"source": "local_cache_hit"}), sum(r.hit for r in pre)),
                (lab({"source": "external_kv_transfer"}), sum(r.ext_hit for r in pre))],
            "vllm:prompt_tokens_cached_total": [(lab(), sum(r.hit + r.ext_hit for r in pre))],
            "vllm:prompt_tokens_recomputed_total": [(lab(), sum(n for r in self.reqs for (te, n) in r.pre_ev if te <= t))],
            "vllm:generation_tokens_total": [(lab(), sum(r.gen_by(t) for r in self.reqs))],
            "vllm:request_success_total": [(lab({"finished_reason": fr}), sum(1 for r in done if r.reason == fr))
                                           for fr in ("abort", "error", "length", "repetition", "stop")
                                           if self.ver == "0180" or fr in ("stop", "length")],
            "vllm:estimated_flops_per_gpu_total": [(lab(), 0.0)],
            "vllm:estimated_read_bytes_per_gpu_total": [(lab(), 0.0)],
            "vllm:estimated_write_bytes_per_gpu_total": [(lab(), 0.0)],
        }
        itls = []
        for r in self.reqs:
            n = max(0, r.gen_by(t) - 1)
            itls += [r.itl_s] * n
        hvals = {
            "vllm:request_prompt_tokens": [r.prompt for r in done],
            "vllm:request_generation_tokens": [r.gen for r in done],
            "vllm:request_max_num_generation_tokens": [r.max_tokens or r.gen for r in done],
            "vllm:request_params_n": [1 for r in done],
            "vllm:request_params_max_tokens": [r.max_tokens or r.gen for r in done],
            "vllm:time_to_first_token_seconds": [r.t_first - r.t_arrive for r in firsts],
            "vllm:time_per_output_token_seconds": itls,
            "vllm:inter_token_latency_seconds": itls,
            "vllm:request_time_per_output_token_seconds": [r.itl_s for r in done],
            "vllm:e2e_request_latency_seconds": [r.t_end - r.t_arrive for r in done],
            "vllm:request_queue_time_seconds": [r.queue_s for r in done],
            "vllm:request_inference_time_seconds": [r.t_end - r.t_sched for r in done],
            "vllm:request_prefill_time_seconds": [r.prefill_s for r in done],
            "vllm:request_decode_time_seconds": [r.t_end - r.t_first for r in done],
            "vllm:request_prefill_kv_computed_tokens": [r.prompt - r.hit - r.ext_hit for r in done],
        }
        # iteration tokens: approximate steps of the engine
        its = []
        for r in pre:
            left = r.prompt - r.hit - r.ext_hit
            while left > 0:
                its.append(min(left, self.step_tokens)); left -= self.step_tokens
        ngen = sum(r.gen_by(t) for r in self.reqs)
        its += [self.decode_batch] * int(ngen / self.decode_batch)
        hvals["vllm:iteration_tokens_total"] = its

        out = []
        for f in fams(self.ver):
            n, typ = f["name"], f["type"]
            out.append(f"# HELP {n} {f['help']}")
            out.append(f"# TYPE {n} {typ}")
            if n.endswith("_created"):
                base = n[: -len("_created")]
                src = vals.get(base + "_total") or ([(lab(), 0)] if base in hvals else None)
                for l, _ in (src or [(lab(), 0)]):
                    out.append(f"{n}{l} {fmt(self.t_created)}")
                continue
            if n == "vllm:cache_config_info":
                cl = dict(self.cache_cfg); cl["engine"] = self.engine
                out.append(n + "{" + ",".join(f'{k}="{v}"' for k, v in sorted(cl.items())) + "} 1.0")
                continue
            if n == "vllm:lora_requests_info":
                continue
            if typ == "histogram":
                v = hvals.get(n, [])
                for le, c in zip(f["le"], hist(v, f["le"])):
                    out.append(f"{n}_bucket{lab({'le': le})} {fmt(c)}")
                out.append(f"{n}_count{lab()} {fmt(len(v))}")
                out.append(f"{n}_sum{lab()} {fmt(round(sum(v), 4))}")
                continue
            for l, v in vals.get(n, [(lab(), 0.0)]):
                out.append(f"{n}{l} {fmt(v)}")
        return "\n".join(out) + "\n"

    # ---- V1 periodic stats line (loggers.py), every `step` seconds
    def stats_line(self, t0, t1):
        p = sum(r.prompt - r.hit - r.ext_hit for r in self.reqs if t0 < r.t_first <= t1)
        g = sum(r.gen_by(t1) - r.gen_by(t0) for r in self.reqs)
        recent = [r for r in self.reqs if r.t_sched <= t1 and r.queried][-1000:]
        q = sum(r.prompt for r in recent); h = sum(r.hit for r in recent)
        hr = 100.0 * h / q if q else 0.0
        return (f"Engine {int(self.engine):03d}: Avg prompt throughput: {p / (t1 - t0):.1f} tokens/s, "
                f"Avg generation throughput: {g / (t1 - t0):.1f} tokens/s, Running: {len(self.running(t1))} reqs, "
                f"Waiting: {len(self.waiting(t1))} reqs, GPU KV cache usage: {100 * self.kv_usage(t1):.1f}%, "
                f"Prefix cache hit rate: {hr:.1f}%")


def vtime(t: float) -> str:  # vLLM logger time: MM-DD HH:MM:SS
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def lmtime(t: float) -> str:  # LMCache logger time
    d = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S") + f",{int((t % 1) * 1000):03d}"


def epoch(*a) -> float:
    return dt.datetime(*a, tzinfo=dt.timezone.utc).timestamp()


def write_bundle(cid, *, engines, t0, t1, interval, endpoint, notes, server=None, engine_args=None,
                 model_config=None, gpu=None, logs=None, merge=None):
    d = CASES / cid / "bundle"
    d.mkdir(parents=True, exist_ok=True)
    for p in d.iterdir():
        p.unlink()
    (d / "manifest.json").write_text(json.dumps({
        "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.1.0", "endpoint": endpoint,
        "started_at": t0, "ended_at": t1, "interval_s": interval, "notes": notes}, indent=1) + "\n")
    rows = []
    t = t0
    while t <= t1 + 1e-6:
        texts = [e.exposition(t) for e in engines]
        text = merge(texts) if merge else texts[0]
        rows.append(json.dumps({"t": round(t, 3), "status": 200, "text": text}))
        t += interval
    (d / "metrics.jsonl").write_text("\n".join(rows) + "\n")
    if server is not None:
        (d / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (d / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (d / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        (d / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    if logs is not None:
        (d / "logs.txt").write_text("\n".join(logs) + "\n")
    return d


def merge_expositions(texts):
    """Merge per-engine expositions (same families) into one text, samples grouped under one HELP/TYPE."""
    order, blocks = [], {}
    for text in texts:
        cur = None
        for line in text.splitlines():
            if line.startswith("# HELP"):
                cur = line.split(" ")[2]
                if cur not in blocks:
                    order.append(cur); blocks[cur] = {"head": [line], "samples": []}
            elif line.startswith("# TYPE"):
                if len(blocks[cur]["head"]) < 2:
                    blocks[cur]["head"].append(line)
            else:
                blocks[cur]["samples"].append(line)
    out = []
    for n in order:
        out += blocks[n]["head"] + blocks[n]["samples"]
    return "\n".join(out) + "\n"
