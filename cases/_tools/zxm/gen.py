"""Writer zxm's bundle builder (kvdoctor.bundle/1); copied unchanged from cases/_tools/zxg/gen.py (itself from zzb, zx, zr, zj, zf, y, u, q).
Change: spec-decode families of the template are skipped and written only when the case speculates.

A small event simulator: requests (arrival, prompt, cached tokens, output length) are admitted
FIFO into max_num_seqs slots and a KV pool; each running request decodes at the case's step time
and tokens per step (speculative decoding: mean acceptance length). Every counter, histogram,
gauge and stats log line is computed from that one request list, so they agree.

Family names, HELP texts, TYPEs and bucket layouts are copied from the last scrape of an existing
case bundle of a nearby vLLM release (format examples allowed by the brief):
  V1: cases/b-hybrid-qwen35-block528/bundle (vLLM 0.19.1)
  V0: cases/c-v0-recompute-warnings-limo32b/bundle (vLLM 0.7.3)
Speculative-decoding counters are added from vllm/v1/spec_decode/metrics.py (SpecDecodingProm).
"""
from __future__ import annotations

import datetime as dt
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _template(case: str) -> list[dict]:
    from prometheus_client.parser import text_string_to_metric_families
    lines = (ROOT / "cases" / case / "bundle" / "metrics.jsonl").read_text().splitlines()
    text = [json.loads(x) for x in lines if '"text"' in x][-1]["text"]  # zzb: last served scrape
    helps = {}
    for ln in text.splitlines():
        if ln.startswith("# HELP "):
            n, h = ln[7:].split(" ", 1)
            helps[n] = h
    fams = []
    for f in text_string_to_metric_families(text):
        if f.name.endswith("_created"):
            continue
        les = sorted({float(s.labels["le"]) for s in f.samples if "le" in s.labels and s.labels["le"] != "+Inf"})
        expo = f.name + ("_total" if f.type == "counter" else "")
        fams.append({"name": f.name, "type": f.type, "help": helps.get(expo, helps.get(f.name, "")), "les": les})
    return fams


V1_T = "b-hybrid-qwen35-block528"
V0_T = "c-v0-recompute-warnings-limo32b"
SPEC_FAMS = [
    ("vllm:spec_decode_num_drafts", "Number of spec decoding drafts."),
    ("vllm:spec_decode_num_draft_tokens", "Number of draft tokens."),
    ("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens."),
    ("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position."),
]


@dataclass
class Req:
    rid: int
    t_arr: float
    prompt: int
    cached: int
    gen: int
    max_tokens: int
    reason: str = "stop"
    mm: int = 0  # multimodal items
    t_sched: float = 0.0
    t_first: float = 0.0
    t_end: float = 0.0
    step_s: float = 0.0
    tps: float = 1.0  # tokens per decode step

    def steps(self) -> int:
        return max(0, math.ceil((self.gen - 1) / self.tps))

    def gen_by(self, t: float) -> int:
        if t < self.t_first:
            return 0
        if t >= self.t_end:
            return self.gen
        return min(self.gen, 1 + int(int((t - self.t_first) / self.step_s) * self.tps))

    def steps_by(self, t: float) -> int:
        if t < self.t_first:
            return 0
        if t >= self.t_end:
            return self.steps()
        return int((t - self.t_first) / self.step_s)


@dataclass
class Case:
    cid: str
    version: str
    v0: bool
    model_name: str
    model_root: str
    max_model_len: int
    start: float  # unix time of first scrape
    n_scrapes: int
    interval: float
    labels_cc: dict
    pool_tokens: int
    block_size: int
    max_num_seqs: int
    kv_factor: float = 1.0  # blocks charged per token relative to attention (hybrid groups)
    spec_k: int = 0
    spec_pos_rates: list = field(default_factory=list)
    reqs: list = field(default_factory=list)
    tmpl: str = "b-hybrid-qwen35-block528"  # case bundle whose last scrape gives families/HELP/buckets
    engine: str = "0"
    mm_hits: bool = True
    iter_fn: object = None  # optional: (case, t) -> list of iteration_tokens observations


def simulate(c: Case, reqs: list[Req], step_fn, prefill_fn, gen_reserve: bool = True, gen_frac: float = 1.0) -> None:
    """FIFO admission into max_num_seqs slots and the KV pool; step time from step_fn(n_running)."""
    pending = sorted(reqs, key=lambda r: r.t_arr)
    running: list[Req] = []
    t = pending[0].t_arr if pending else 0
    i = 0
    waiting: list[Req] = []
    while i < len(pending) or waiting:
        while i < len(pending) and pending[i].t_arr <= t:
            waiting.append(pending[i]); i += 1
        running = [r for r in running if r.t_end > t]
        used = sum((r.prompt + (r.max_tokens if gen_reserve else r.gen * gen_frac)) for r in running) * c.kv_factor
        while waiting and len(running) < c.max_num_seqs:
            r = waiting[0]
            need = (r.prompt + (r.max_tokens if gen_reserve else r.gen * gen_frac)) * c.kv_factor
            if used + need > c.pool_tokens and running:
                break
            waiting.pop(0)
            r.t_sched = max(t, r.t_arr)
            n = len(running) + 1
            r.step_s = step_fn(n)
            r.t_first = r.t_sched + prefill_fn(r, n)
            r.t_end = r.t_first + r.steps() * r.step_s
            running.append(r); used += need
        nxt = [r.t_end for r in running] + ([pending[i].t_arr] if i < len(pending) else [])
        if not nxt:
            break
        t = max(t + 1e-6, min(nxt))
    c.reqs = reqs


def _lab(d: dict) -> str:
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def _num(v: float) -> str:
    return repr(float(v))


def _hist(lines, name, base, vals, les):
    vals = sorted(vals)
    j = 0
    for le in les:
        while j < len(vals) and vals[j] <= le:
            j += 1
        lines.append(f'{name}_bucket{{{_lab({**base, "le": _num(le)})}}} {_num(j)}')
    lines.append(f'{name}_bucket{{{_lab({**base, "le": "+Inf"})}}} {_num(len(vals))}')
    lines.append(f"{name}_count{{{_lab(base)}}} {_num(len(vals))}")
    lines.append(f"{name}_sum{{{_lab(base)}}} {_num(round(sum(vals), 6))}")


def scrape(c: Case, t: float, created: float) -> str:
    R = c.reqs
    base = {"model_name": c.model_name} if c.v0 else {"engine": c.engine, "model_name": c.model_name}
    arrived = [r for r in R if r.t_arr <= t]
    running = [r for r in arrived if r.t_sched <= t < r.t_end]
    waiting = [r for r in arrived if t < r.t_sched]
    done = [r for r in R if r.t_end <= t]
    first = [r for r in R if r.t_first <= t]
    used_tok = sum(r.prompt + r.gen_by(t) for r in running) * c.kv_factor
    blocks = sum(math.ceil((r.prompt + r.gen_by(t)) * c.kv_factor / c.block_size) for r in running)
    usage = min(1.0, blocks * c.block_size / c.pool_tokens)
    prompt_tot = sum(r.prompt for r in first)
    cached_tot = sum(r.cached for r in first)
    gen_tot = sum(r.gen_by(t) for r in R)
    itl_obs, tpot, steps_tot = [], [], 0
    for r in R:
        s = r.steps_by(t)
        steps_tot += s
        if hasattr(r, "itl_by"):
            itl_obs.extend(r.itl_by(t))
        else:
            itl_obs.extend([r.step_s] * s)
    for r in done:
        if r.gen > 1:
            tpot.append((r.t_end - r.t_first) / (r.gen - 1))
    it_obs = []
    for r in first:
        it_obs.append(r.prompt - r.cached)
    if c.iter_fn is not None:
        it_obs = c.iter_fn(c, t)
    else:
        it_obs.extend([max(1, round(len(running) * (1 + c.spec_k)))] * min(steps_tot, 4000))
    vals = {
        "vllm:num_requests_running": len(running), "vllm:num_requests_waiting": len(waiting),
        "vllm:num_requests_swapped": 0, "vllm:kv_cache_usage_perc": usage, "vllm:gpu_cache_usage_perc": usage,
        "vllm:cpu_cache_usage_perc": 0.0,
        "vllm:gpu_prefix_cache_hit_rate": (cached_tot / prompt_tot) if prompt_tot else 0.0,
        "vllm:cpu_prefix_cache_hit_rate": 0.0,
        "vllm:prefix_cache_queries": prompt_tot, "vllm:prefix_cache_hits": cached_tot,
        "vllm:external_prefix_cache_queries": 0, "vllm:external_prefix_cache_hits": 0,
        "vllm:mm_cache_queries": sum(r.mm for r in first), "vllm:mm_cache_hits": sum(min(r.mm, 1) for r in first if r.cached > 0) if c.mm_hits else 0,
        "vllm:num_preemptions": 0, "vllm:prompt_tokens": prompt_tot, "vllm:prompt_tokens_cached": cached_tot,
        "vllm:prompt_tokens_recomputed": 0, "vllm:generation_tokens": gen_tot, "vllm:tokens": prompt_tot + gen_tot,
        "vllm:estimated_flops_per_gpu": 0, "vllm:estimated_read_bytes_per_gpu": 0, "vllm:estimated_write_bytes_per_gpu": 0,
    }
    hists = {
        "vllm:time_to_first_token_seconds": [r.t_first - r.t_arr for r in first],
        "vllm:inter_token_latency_seconds": itl_obs, "vllm:time_per_output_token_seconds": itl_obs,
        "vllm:request_time_per_output_token_seconds": tpot,
        "vllm:e2e_request_latency_seconds": [r.t_end - r.t_arr for r in done],
        "vllm:request_queue_time_seconds": [r.t_sched - r.t_arr for r in done],
        "vllm:time_in_queue_requests": [r.t_sched - r.t_arr for r in done],
        "vllm:request_inference_time_seconds": [r.t_end - r.t_sched for r in done],
        "vllm:request_prefill_time_seconds": [r.t_first - r.t_sched for r in done],
        "vllm:request_decode_time_seconds": [r.t_end - r.t_first for r in done],
        "vllm:request_prompt_tokens": [r.prompt for r in done], "vllm:request_generation_tokens": [r.gen for r in done],
        "vllm:request_max_num_generation_tokens": [r.max_tokens for r in done],
        "vllm:request_params_max_tokens": [r.max_tokens for r in done], "vllm:request_params_n": [1 for r in done],
        "vllm:request_prefill_kv_computed_tokens": [r.prompt - r.cached for r in done],
        "vllm:iteration_tokens_total": it_obs,
    }
    out: list[str] = []
    fams = _template(c.tmpl)
    for f in fams:
        n, ty = f["name"], f["type"]
        if n in ("vllm:cache_config_info", "vllm:lora_requests_info") or n.startswith("vllm:spec_decode"):
            continue
        out.append(f"# HELP {n if ty != 'counter' else n + '_total'} {f['help']}")
        out.append(f"# TYPE {n if ty != 'counter' else n + '_total'} {ty}")
        if n == "vllm:engine_sleep_state":
            for s, v in (("awake", 1), ("weights_offloaded", 0), ("discard_all", 0)):
                out.append(f'{n}{{{_lab({**base, "sleep_state": s})}}} {_num(v)}')
        elif n == "vllm:prompt_tokens_by_source":
            for s, v in (("local_compute", prompt_tot - cached_tot), ("local_cache_hit", cached_tot), ("external_kv_transfer", 0)):
                out.append(f'{n}_total{{{_lab({**base, "source": s})}}} {_num(v)}')
        elif n == "vllm:request_success":
            for reason in ("stop", "length", "abort", "error") if not c.v0 else ("stop", "length"):
                v = sum(1 for r in done if r.reason == reason)
                out.append(f'{n}_total{{{_lab({**base, "finished_reason": reason})}}} {_num(v)}')
        elif ty == "histogram":
            _hist(out, n, base, hists.get(n, []), f["les"])
        elif ty == "counter":
            out.append(f"{n}_total{{{_lab(base)}}} {_num(vals.get(n, 0))}")
        else:
            out.append(f"{n}{{{_lab(base)}}} {_num(vals.get(n, 0))}")
    if c.spec_k:
        drafts = steps_tot
        acc_pos = [round(drafts * p) for p in c.spec_pos_rates]
        sv = {"vllm:spec_decode_num_drafts": drafts, "vllm:spec_decode_num_draft_tokens": drafts * c.spec_k,
              "vllm:spec_decode_num_accepted_tokens": sum(acc_pos)}
        for n, h in SPEC_FAMS:
            out.append(f"# HELP {n}_total {h}")
            out.append(f"# TYPE {n}_total counter")
            if n.endswith("_per_pos"):
                for p, v in enumerate(acc_pos):
                    out.append(f'{n}_total{{{_lab({**base, "position": str(p)})}}} {_num(v)}')
            else:
                out.append(f"{n}_total{{{_lab(base)}}} {_num(sv[n])}")
    out.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
    out.append("# TYPE vllm:cache_config_info gauge")
    out.append(f"vllm:cache_config_info{{{_lab(dict(sorted((({} if c.v0 else {'engine': c.engine}) | c.labels_cc).items())))}}} 1.0")
    return "\n".join(out) + "\n"


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def stats_lines(c: Case, t0: float, t1: float, api_pid: int, logger_ref: str, spec_ref: str = "metrics.py:101", eng: str = "000", prefix: bool = True, mm_line: bool = None) -> list[tuple[float, str]]:
    """Engine 000 stats line every 10 s (V1 loggers.py format) and the SpecDecoding line."""
    L = []
    t = t0 + 10
    pre = lambda r_t: [r for r in c.reqs if r.t_first <= r_t]
    while t <= t1:
        a, b = t - 10, t
        pt = sum(r.prompt for r in pre(b)) - sum(r.prompt for r in pre(a))
        ct = sum(r.cached for r in pre(b)) - sum(r.cached for r in pre(a))
        gt = sum(r.gen_by(b) - r.gen_by(a) for r in c.reqs)
        run = sum(1 for r in c.reqs if r.t_sched <= b < r.t_end)
        wait = sum(1 for r in c.reqs if r.t_arr <= b < r.t_sched)
        blocks = sum(math.ceil((r.prompt + r.gen_by(b)) * c.kv_factor / c.block_size) for r in c.reqs if r.t_sched <= b < r.t_end)
        usage = min(1.0, blocks * c.block_size / c.pool_tokens) * 100
        hit = (100.0 * ct / pt) if pt else 0.0
        mm = ""
        if (any(r.mm for r in c.reqs) if mm_line is None else mm_line):
            mq = sum(r.mm for r in pre(b)) - sum(r.mm for r in pre(a))
            mh = sum(min(r.mm, 1) for r in pre(b) if r.cached > 0) - sum(min(r.mm, 1) for r in pre(a) if r.cached > 0)
            mm = f", MM cache hit rate: {(100.0 * mh / mq if mq else 0.0) if c.mm_hits else 0.0:.1f}%"
        pfx = f"(APIServer pid={api_pid}) " if prefix else ""
        L.append((b, f"{pfx}INFO {ts(b)} [{logger_ref}] Engine {eng}: Avg prompt throughput: {pt / 10:.1f} tokens/s, "
                     f"Avg generation throughput: {gt / 10:.1f} tokens/s, Running: {run} reqs, Waiting: {wait} reqs, "
                     f"GPU KV cache usage: {usage:.1f}%, Prefix cache hit rate: {hit:.1f}%{mm}"))
        if c.spec_k:
            d = sum(r.steps_by(b) - r.steps_by(a) for r in c.reqs)
            if d:
                acc = [round(d * p) for p in c.spec_pos_rates]
                na = sum(acc)
                L.append((b + 0.001, f"(APIServer pid={api_pid}) INFO {ts(b)} [{spec_ref}] SpecDecoding metrics: Mean acceptance length: {1 + na / d:.2f}, "
                                     f"Accepted throughput: {na / 10:.2f} tokens/s, Drafted throughput: {d * c.spec_k / 10:.2f} tokens/s, "
                                     f"Accepted: {na} tokens, Drafted: {d * c.spec_k} tokens, Per-position acceptance rate: "
                                     f"{', '.join(f'{a / d:.3f}' for a in acc)}, Avg Draft acceptance rate: {100.0 * na / (d * c.spec_k):.1f}%"))
        t += 10
    return L


def access_lines(c: Case, api_pid: int, path: str, v0: bool = False) -> list[tuple[float, str]]:
    pre = "" if v0 else f"(APIServer pid={api_pid}) "
    return [(r.t_arr + 0.002, f'{pre}INFO:     10.20.0.{11 + r.rid % 3}:{41000 + r.rid} - "POST {path} HTTP/1.1" 200 OK') for r in c.reqs]


def write(c: Case, out: Path, *, server: dict, engine_args: dict, model_config: dict | None, gpu: list, logs: list[tuple[float, str]], notes: str, endpoint: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    created = c.start - 3600
    recs = []
    for k in range(c.n_scrapes):
        t = c.start + k * c.interval
        recs.append(json.dumps({"t": round(t, 3), "status": 200, "text": scrape(c, t, created)}))
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    end = c.start + (c.n_scrapes - 1) * c.interval
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": c.start,
           "ended_at": end, "interval_s": c.interval, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu:
        (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")


def server_json(version: str, served: str, root: str, mml: int, created: int) -> dict:
    return {"version": {"version": version}, "models": {"object": "list", "data": [{
        "id": served, "object": "model", "created": created, "owned_by": "vllm", "root": root, "parent": None,
        "max_model_len": mml, "permission": [{"id": "modelperm-" + __import__("hashlib").md5((served + version).encode()).hexdigest(),
        "object": "model_permission", "created": created, "allow_create_engine": False, "allow_sampling": True,
        "allow_logprobs": True, "allow_search_indices": False, "allow_view": True, "allow_fine_tuning": False,
        "organization": "*", "group": None, "is_blocking": False}]}]}, "health": 200}


def gpu_samples(c: Case, devices: list[dict]) -> list[dict]:
    return [{"t": round(c.start + k * c.interval, 3), "devices": devices} for k in range(c.n_scrapes)]


def cc_labels(**kw) -> dict:
    base = {"_block_size_resolved": "True", "block_size": "16", "cache_dtype": "auto", "calculate_kv_scales": "False",
            "cpu_kvcache_space_bytes": "None", "cpu_offload_gb": "0", "enable_prefix_caching": "True",
            "gpu_memory_utilization": "0.9", "is_attention_free": "False", "kv_cache_dtype_skip_layers": "[]",
            "kv_cache_memory_bytes": "None", "kv_offloading_backend": "native", "kv_offloading_size": "None",
            "kv_sharing_fast_prefill": "False", "mamba_block_size": "None", "mamba_cache_dtype": "auto",
            "mamba_cache_mode": "none", "mamba_page_size_padded": "None", "mamba_ssm_cache_dtype": "auto",
            "num_cpu_blocks": "None", "num_gpu_blocks": "0", "num_gpu_blocks_override": "None",
            "prefix_caching_hash_algo": "sha256", "sliding_window": "None", "swap_space": "4",
            "user_specified_block_size": "False"}
    base.update({k: str(v) for k, v in kw.items()})
    return dict(sorted(base.items()))


def tmpl_cc(case: str, **kw) -> dict:
    """cache_config_info labels (without engine) of the template bundle's release, with overrides."""
    lines = (ROOT / "cases" / case / "bundle" / "metrics.jsonl").read_text().splitlines()
    text = [json.loads(x) for x in lines if '"text"' in x][-1]["text"]  # zzb: last served scrape
    import re
    for ln in text.splitlines():
        if ln.startswith("vllm:cache_config_info{"):
            labs = dict(re.findall(r'(\w+)="([^"]*)"', ln[ln.index("{"):ln.rindex("}")]))
            labs.pop("engine", None)
            labs.update({k: str(v) for k, v in kw.items()})
            return dict(sorted(labs.items()))
    raise ValueError(case)


def merge_scrapes(texts: list[str]) -> str:
    """Merge per-engine expositions: one HELP/TYPE per family, samples of every engine."""
    order, fam = [], {}
    for text in texts:
        cur = None
        for ln in text.splitlines():
            if ln.startswith("# HELP "):
                cur = ln.split()[2]
                if cur not in fam:
                    fam[cur] = [[ln], []]; order.append(cur)
            elif ln.startswith("# TYPE "):
                if len(fam[cur][0]) < 2:
                    fam[cur][0].append(ln)
            elif ln:
                fam[cur][1].append(ln)
    out = []
    for n in order:
        out += fam[n][0] + fam[n][1]
    return "\n".join(out) + "\n"
