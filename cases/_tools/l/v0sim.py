"""A small V0 (vLLM 0.5.x / 0.6.x) server simulation for writer l: requests in, /metrics text out.

Format sources: V0 `vllm/engine/metrics.py` of the 0.5/0.6 family (names, HELP texts, bucket
layouts, `model_name` label, no `_created` series, request_success with finished_reason) and its
`metrics.py` "Avg prompt throughput" log line. Only the numbers are simulated here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HELP = {
    "vllm:num_requests_running": "Number of requests currently running on GPU.",
    "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
    "vllm:num_requests_swapped": "Number of requests swapped to CPU.",
    "vllm:gpu_cache_usage_perc": "GPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:cpu_cache_usage_perc": "CPU KV-cache usage. 1 means 100 percent usage.",
    "vllm:num_preemptions_total": "Cumulative number of preemption from the engine.",
    "vllm:prompt_tokens_total": "Number of prefill tokens processed.",
    "vllm:generation_tokens_total": "Number of generation tokens processed.",
    "vllm:time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "vllm:time_per_output_token_seconds": "Histogram of time per output token in seconds.",
    "vllm:e2e_request_latency_seconds": "Histogram of end to end request latency in seconds.",
    "vllm:request_prompt_tokens": "Number of prefill tokens processed.",
    "vllm:request_generation_tokens": "Number of generation tokens processed.",
    "vllm:request_success_total": "Count of successfully processed requests.",
    "vllm:spec_decode_draft_acceptance_rate": "Speulative token acceptance rate.",
    "vllm:spec_decode_efficiency": "Speculative decoding system efficiency.",
    "vllm:spec_decode_num_accepted_tokens_total": "Number of accepted tokens.",
    "vllm:spec_decode_num_draft_tokens_total": "Number of draft tokens.",
    "vllm:spec_decode_num_emitted_tokens_total": "Number of emitted tokens.",
}
BUCKETS = {
    "vllm:time_to_first_token_seconds": [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
                                         1.0, 2.5, 5.0, 7.5, 10.0],
    "vllm:time_per_output_token_seconds": [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
                                           1.0, 2.5],
    "vllm:e2e_request_latency_seconds": [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0],
}
GAUGES = ["vllm:num_requests_running", "vllm:num_requests_swapped", "vllm:num_requests_waiting",
          "vllm:gpu_cache_usage_perc", "vllm:cpu_cache_usage_perc"]
COUNTERS = ["vllm:num_preemptions_total", "vllm:prompt_tokens_total", "vllm:generation_tokens_total"]
HISTS = ["vllm:time_to_first_token_seconds", "vllm:time_per_output_token_seconds",
         "vllm:e2e_request_latency_seconds", "vllm:request_prompt_tokens", "vllm:request_generation_tokens"]
SPEC_GAUGES = ["vllm:spec_decode_draft_acceptance_rate", "vllm:spec_decode_efficiency"]
SPEC_COUNTERS = ["vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_draft_tokens_total",
                 "vllm:spec_decode_num_emitted_tokens_total"]


def buckets_125(max_len: int) -> list[float]:
    """vLLM's build_1_2_5_buckets(max_model_len)."""
    out, exp = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** exp
            if v <= max_len:
                out.append(float(v))
            else:
                return out
        exp += 1


@dataclass
class Hist:
    bounds: list[float]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    n: int = 0

    def __post_init__(self) -> None:
        self.counts = [0] * (len(self.bounds) + 1)

    def observe(self, v: float, k: int = 1) -> None:
        for i, b in enumerate(self.bounds):
            if v <= b:
                self.counts[i] += k
                break
        else:
            self.counts[-1] += k
        self.total += v * k
        self.n += k


@dataclass
class State:
    model_name: str
    max_model_len: int
    cache_info: dict[str, str]
    gauges: dict[str, float] = field(default_factory=dict)
    counters: dict[str, float] = field(default_factory=dict)
    success: dict[str, int] = field(default_factory=dict)
    hists: dict[str, Hist] = field(default_factory=dict)
    spec: bool = False

    def __post_init__(self) -> None:
        for g in GAUGES:
            self.gauges[g] = 0.0
        for c in COUNTERS:
            self.counters[c] = 0.0
        for h in HISTS:
            b = BUCKETS.get(h) or buckets_125(self.max_model_len)
            self.hists[h] = Hist(list(b))
        self.success = {"stop": 0, "length": 0}
        if self.spec:
            for g in SPEC_GAUGES:
                self.gauges[g] = 0.0
            for c in SPEC_COUNTERS:
                self.counters[c] = 0.0

    def text(self) -> str:
        lab = f'model_name="{self.model_name}"'
        out = ["# HELP vllm:cache_config_info information of cache_config",
               "# TYPE vllm:cache_config_info gauge",
               "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(self.cache_info.items()))
               + "} 1.0"]
        for g in GAUGES + (SPEC_GAUGES if self.spec else []):
            out += [f"# HELP {g} {HELP[g]}", f"# TYPE {g} gauge", f"{g}{{{lab}}} {float(self.gauges[g])!r}"]
        for c in COUNTERS + (SPEC_COUNTERS if self.spec else []):
            out += [f"# HELP {c} {HELP[c]}", f"# TYPE {c} counter", f"{c}{{{lab}}} {float(int(self.counters[c]))!r}"]
        for h in HISTS:
            H = self.hists[h]
            out += [f"# HELP {h} {HELP[h]}", f"# TYPE {h} histogram"]
            cum = 0
            for b, c in zip(H.bounds, H.counts):
                cum += c
                out.append(f'{h}_bucket{{{lab},le="{b}"}} {float(cum)!r}')
            out.append(f'{h}_bucket{{{lab},le="+Inf"}} {float(H.n)!r}')
            out.append(f"{h}_count{{{lab}}} {float(H.n)!r}")
            out.append(f"{h}_sum{{{lab}}} {H.total!r}")
        c = "vllm:request_success_total"
        out += [f"# HELP {c} {HELP[c]}", f"# TYPE {c} counter"]
        for reason in sorted(r for r in self.success if self.success[r]):
            out.append(f'{c}{{{lab},finished_reason="{reason}"}} {float(self.success[reason])!r}')
        return "\n".join(out) + "\n"


@dataclass
class Req:
    arrival: float
    prompt: int
    out: int
    reason: str
    first: float | None = None
    done_tokens: int = 0
    end: float | None = None


def simulate(state: State, reqs: list[Req], *, t0: float, t1: float, scrape_dt: float, pool_tokens: int,
             block: int, prefill_tps: float, step_fn, log_stamp, spec_fn=None, log_dt: float = 5.0):
    """Run a V0-style scheduler (whole-prompt prefill steps, then decode steps) from t0 to t1.

    step_fn(batch) -> seconds of one decode step; spec_fn(rng-free, step_index) -> (drafted, accepted, extra_s)
    per sequence per step (None: no speculation). Returns (scrapes, log_lines)."""
    pending = sorted(reqs, key=lambda r: r.arrival)
    running: list[Req] = []
    t = t0
    scrapes, logs = [], []
    next_scrape, next_log = t0, t0 + log_dt
    win_p = win_g = 0
    k_step = 0
    spec_acc = spec_draft = spec_emit = 0

    def flush(upto: float):
        nonlocal next_scrape, next_log, win_p, win_g
        while next_scrape <= upto and next_scrape <= t1 + 1e-9:
            used = sum((r.prompt + r.done_tokens + block - 1) // block * block for r in running)
            state.gauges["vllm:num_requests_running"] = float(len(running))
            state.gauges["vllm:num_requests_waiting"] = float(sum(1 for r in pending if r.arrival <= next_scrape))
            state.gauges["vllm:gpu_cache_usage_perc"] = used / pool_tokens
            scrapes.append({"t": round(next_scrape, 3), "status": 200, "text": state.text()})
            next_scrape += scrape_dt
        while next_log <= upto and next_log <= t1 + 1e-9:
            used = sum((r.prompt + r.done_tokens + block - 1) // block * block for r in running)
            logs.append((next_log, f"INFO {log_stamp(next_log)} metrics.py:406] Avg prompt throughput: "
                         f"{win_p / log_dt:.1f} tokens/s, Avg generation throughput: {win_g / log_dt:.1f} tokens/s, "
                         f"Running: {len(running)} reqs, Swapped: 0 reqs, Pending: "
                         f"{sum(1 for r in pending if r.arrival <= next_log)} reqs, GPU KV cache usage: "
                         f"{100.0 * used / pool_tokens:.1f}%, CPU KV cache usage: 0.0%."))
            if spec_fn is not None and spec_draft:
                rate = spec_acc / spec_draft
                eff = spec_emit / max(1, (spec_draft // 5) * 6)
                logs.append((next_log, f"INFO {log_stamp(next_log)} metrics.py:422] Speculative metrics: Draft "
                             f"acceptance rate: {rate:.3f}, System efficiency: {eff:.3f}, Number of speculative "
                             f"tokens: 5, Number of accepted tokens: {spec_acc}, Number of draft tokens: "
                             f"{spec_draft}, Number of emitted tokens: {spec_emit}."))
            win_p = win_g = 0
            next_log += log_dt

    while t < t1:
        arrived = [r for r in pending if r.arrival <= t]
        if arrived:
            # one prefill step for everything that arrived (no chunked prefill)
            ntok = sum(r.prompt for r in arrived)
            dur = 0.012 + ntok / prefill_tps
            flush(t + dur)
            t += dur
            for r in arrived:
                pending.remove(r)
                r.first = t
                r.done_tokens = 1
                running.append(r)
                state.counters["vllm:prompt_tokens_total"] += r.prompt
                state.counters["vllm:generation_tokens_total"] += 1
                state.hists["vllm:time_to_first_token_seconds"].observe(t - r.arrival)
                win_p += r.prompt
                win_g += 1
        elif running:
            dur = step_fn(len(running))
            per = []
            for r in running:
                if spec_fn is not None:
                    drafted, accepted, extra = spec_fn(k_step)
                    dur = max(dur, step_fn(len(running)) + extra)
                    per.append((r, 1 + accepted, drafted, accepted))
                else:
                    per.append((r, 1, 0, 0))
            k_step += 1
            flush(t + dur)
            t += dur
            finished = []
            for r, n, drafted, accepted in per:
                n = min(n, r.out - r.done_tokens)
                r.done_tokens += n
                state.counters["vllm:generation_tokens_total"] += n
                state.hists["vllm:time_per_output_token_seconds"].observe(dur)
                win_g += n
                if spec_fn is not None and drafted:
                    spec_draft += drafted
                    spec_acc += accepted
                    spec_emit += n
                if r.done_tokens >= r.out:
                    finished.append(r)
            if spec_fn is not None and spec_draft:
                state.counters["vllm:spec_decode_num_draft_tokens_total"] = spec_draft
                state.counters["vllm:spec_decode_num_accepted_tokens_total"] = spec_acc
                state.counters["vllm:spec_decode_num_emitted_tokens_total"] = spec_emit
                state.gauges["vllm:spec_decode_draft_acceptance_rate"] = spec_acc / spec_draft
                state.gauges["vllm:spec_decode_efficiency"] = spec_emit / max(1, (spec_draft // 5) * 6)
            for r in finished:
                running.remove(r)
                r.end = t
                state.hists["vllm:e2e_request_latency_seconds"].observe(t - r.arrival)
                state.hists["vllm:request_prompt_tokens"].observe(r.prompt)
                state.hists["vllm:request_generation_tokens"].observe(r.out)
                state.success[r.reason] = state.success.get(r.reason, 0) + 1
        else:
            nxt = min([r.arrival for r in pending] + [t1])
            flush(nxt)
            t = max(nxt, t + 1e-3)
    flush(t1)
    return scrapes, logs
