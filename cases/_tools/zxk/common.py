"""Writer zxe bundle helpers (kvdoctor.bundle/1), round 23; adapted from cases/_tools/zxc/common.py.

Metric family order, HELP/TYPE lines, label order and histogram bucket layouts are taken from the
first scrape of an existing capture of the same vLLM line in this corpus (a format example: the
0.23 development line from cases/k-qwen35-4b-align-ckpt-in-unique-suffix, 0.11.0 from
cases/d-kv-93pct-38-streams-healthy). Values come from a small request-level simulation so that
counters, histograms, gauges and the periodic stats lines in logs.txt agree. Token-count
histograms get 1-2-5 buckets up to the case's max_model_len, as vLLM builds them.
Self-contained: imports nothing from the kvdoctor package.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BASE_KEYS = ("engine", "model_name")
TOKEN_HISTS = {
    "vllm:request_prompt_tokens", "vllm:request_generation_tokens",
    "vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens",
    "vllm:request_prefill_kv_computed_tokens",
}
LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LAB = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def b125(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


def num(v):
    v = float(v)
    if v == int(v) and abs(v) < 1e15:
        return f"{v:.1f}"
    return repr(v)


def le_str(v):
    return num(v)


class Template:
    """Family layout of one release, read from a capture's first scrape."""

    def __init__(self, case_dir: str):
        text = json.loads((ROOT / "cases" / case_dir / "bundle" / "metrics.jsonl").open().readline())["text"]
        self.blocks = []  # [help, type_line, name, kind, samples[(name, [(k,v)...])]]
        cur = None
        for line in text.splitlines():
            if line.startswith("# HELP "):
                cur = [line, None, None, None, []]
                self.blocks.append(cur)
            elif line.startswith("# TYPE "):
                _, _, name, kind = line.split(" ", 3)
                cur[1], cur[2], cur[3] = line, name, kind
            elif line and not line.startswith("#"):
                m = LINE.match(line)
                cur[4].append((m.group(1), LAB.findall(m.group(2) or "")))

    def families(self):
        return [(b[2], b[3]) for b in self.blocks]


@dataclass
class Snap:
    counters: dict  # (name, frozenset(extra)) -> value   name without _total
    gauges: dict    # (name, frozenset(extra)) -> value
    hists: dict     # name -> list of observations


def render(tpl: Template, snap: Snap, *, model_name: str, created: float, max_model_len: int,
           cache_labels: dict, drop: tuple = ()) -> str:
    out = []
    for help_, type_, name, kind, samples in tpl.blocks:
        fam = name[:-len("_created")] if name.endswith("_created") else name
        if any(fam.startswith(d) for d in drop):
            continue
        out.append(help_)
        out.append(type_)
        if kind == "histogram":
            order = [k for k, _ in next(s for s in samples if s[0].endswith("_bucket"))[1]]
            les = [float(v) for s in samples if s[0].endswith("_bucket") for k, v in s[1] if k == "le" and v != "+Inf"]
            if name in TOKEN_HISTS:
                les = [float(x) for x in b125(max_model_len)]
            obs = snap.hists.get(name, [])

            def lab(extra):
                d = {"engine": "0", "model_name": model_name, **extra}
                keys = [k for k in order if k in d] + [k for k in d if k not in order]
                return "{" + ",".join(f'{k}="{d[k]}"' for k in keys) + "}"
            for le in les:
                out.append(f"{name}_bucket{lab({'le': le_str(le)})} {num(sum(1 for x in obs if x <= le))}")
            out.append(f"{name}_bucket{lab({'le': '+Inf'})} {num(len(obs))}")
            out.append(f"{name}_count{lab({})} {num(len(obs))}")
            out.append(f"{name}_sum{lab({})} {num(round(sum(obs), 6))}")
            continue
        for sname, labels in samples:
            if name == "vllm:cache_config_info":
                keys = [k for k, _ in labels]
                if set(keys) != set(cache_labels) | {"engine"}:
                    raise SystemExit(f"cache_config_info labels differ: {sorted(set(keys) ^ (set(cache_labels) | {'engine'}))}")
                d = {**cache_labels, "engine": "0"}
                out.append(f"{sname}{{" + ",".join(f'{k}="{d[k]}"' for k in keys) + "} 1.0")
                continue
            extra = {k: v for k, v in labels if k not in BASE_KEYS}
            lab = "{" + ",".join(f'{k}="{model_name if k == "model_name" else v}"' for k, v in labels) + "}"
            if name.endswith("_created") or sname.endswith("_created"):
                val = created
            elif kind == "counter":
                base = sname[:-len("_total")] if sname.endswith("_total") else sname
                val = snap.counters.get((base, frozenset(extra.items())), 0.0)
            else:
                val = snap.gauges.get((sname, frozenset(extra.items())), 0.0)
            out.append(f"{sname}{lab} {num(round(val, 6))}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- requests

@dataclass
class Req:
    t_arrive: float
    prompt_len: int
    gen_len: int
    queue_s: float
    prefill_s: float
    itl_s: float
    hit: int = 0
    max_tokens: int = 0
    finished_reason: str = "stop"

    def __post_init__(self):
        self.max_tokens = self.max_tokens or self.gen_len
        self.t_sched = self.t_arrive + self.queue_s
        self.t_first = self.t_sched + self.prefill_s
        self.t_end = self.t_first + max(0, self.gen_len - 1) * self.itl_s

    def gen_by(self, t):
        if t < self.t_first:
            return 0
        return min(self.gen_len, 1 + int((t - self.t_first) / self.itl_s + 1e-9)) if self.itl_s > 0 else self.gen_len


def snapshot(reqs, t, *, block_size, num_blocks, caching=True, groups=1, step_tokens=None):
    sched = [r for r in reqs if r.t_sched <= t]
    first = [r for r in reqs if r.t_first <= t]
    done = [r for r in reqs if r.t_end <= t]
    running = [r for r in reqs if r.t_sched <= t < r.t_end]
    waiting = [r for r in reqs if r.t_arrive <= t < r.t_sched]
    blocks = sum(math.ceil((r.prompt_len + r.gen_by(t)) / block_size) for r in running)
    usage = min(1.0, blocks * groups / num_blocks) if running else 0.0
    gen = sum(r.gen_by(t) for r in reqs)
    itl = []
    for r in reqs:
        g = r.gen_by(t)
        if g > 1:
            itl.extend([r.itl_s] * (g - 1))
    c = {}

    def C(name, v, **extra):
        c[(name, frozenset(extra.items()))] = float(v)
    q = sum(r.prompt_len for r in sched) if caching else 0
    h = sum(r.hit for r in sched) if caching else 0
    C("vllm:prefix_cache_queries", q)
    C("vllm:prefix_cache_hits", h)
    C("vllm:prompt_tokens", sum(r.prompt_len for r in first))
    C("vllm:prompt_tokens_by_source", sum(r.prompt_len - r.hit for r in first), source="local_compute")
    C("vllm:prompt_tokens_by_source", sum(r.hit for r in first), source="local_cache_hit")
    C("vllm:prompt_tokens_by_source", 0, source="external_kv_transfer")
    C("vllm:prompt_tokens_cached", sum(r.hit for r in first))
    C("vllm:generation_tokens", gen)
    for fr in ("stop", "length", "abort", "error"):
        C("vllm:request_success", sum(1 for r in done if r.finished_reason == fr), finished_reason=fr)
    g = {}
    g[("vllm:num_requests_running", frozenset())] = len(running)
    g[("vllm:num_requests_waiting", frozenset())] = len(waiting)
    g[("vllm:kv_cache_usage_perc", frozenset())] = round(usage, 6)
    g[("vllm:engine_sleep_state", frozenset({("sleep_state", "awake")}))] = 1
    # iteration tokens: one decode step per itl for each running request, plus prefill chunks
    it = []
    for r in reqs:
        if r.t_first <= t:
            it.append(min(r.prompt_len - r.hit, step_tokens or 8192))
    n_dec = max(0, len(itl))
    it.extend([1.0] * n_dec)
    hs = {
        "vllm:request_prompt_tokens": [r.prompt_len for r in done],
        "vllm:request_generation_tokens": [r.gen_len for r in done],
        "vllm:iteration_tokens_total": it,
        "vllm:request_max_num_generation_tokens": [r.max_tokens for r in done],
        "vllm:request_params_n": [1 for _ in done],
        "vllm:request_params_max_tokens": [r.max_tokens for r in done],
        "vllm:time_to_first_token_seconds": [round(r.t_first - r.t_arrive, 4) for r in first],
        "vllm:inter_token_latency_seconds": itl,
        "vllm:time_per_output_token_seconds": itl,
        "vllm:request_time_per_output_token_seconds": [r.itl_s for r in done if r.gen_len > 1],
        "vllm:e2e_request_latency_seconds": [round(r.t_end - r.t_arrive, 4) for r in done],
        "vllm:request_queue_time_seconds": [r.queue_s for r in done],
        "vllm:request_inference_time_seconds": [round(r.t_end - r.t_sched, 4) for r in done],
        "vllm:request_prefill_time_seconds": [r.prefill_s for r in done],
        "vllm:request_decode_time_seconds": [round(r.t_end - r.t_first, 4) for r in done],
        "vllm:request_prefill_kv_computed_tokens": [r.prompt_len - r.hit for r in done],
    }
    return Snap(c, g, hs), {"running": len(running), "waiting": len(waiting), "usage": usage,
                            "prompt": sum(r.prompt_len for r in first), "gen": gen,
                            "q": q, "h": h}


def stats_lines(reqs, t0, t1, step, fmt_ts, *, block_size, num_blocks, caching=True, groups=1,
                loggers_line="loggers.py:259", prefix="(APIServer pid=1) "):
    """Engine 000 periodic stats lines, every `step` s between t0 and t1 (printed only when the
    engine had work in the interval or has requests, as the V1 logger does)."""
    out = []
    t = t0
    prev = snapshot(reqs, t - step, block_size=block_size, num_blocks=num_blocks, caching=caching, groups=groups)[1]
    while t <= t1 + 1e-6:
        cur = snapshot(reqs, t, block_size=block_size, num_blocks=num_blocks, caching=caching, groups=groups)[1]
        pt = (cur["prompt"] - prev["prompt"]) / step
        gt = (cur["gen"] - prev["gen"]) / step
        # hit rate over the most recent requests (cumulative here: short captures)
        hr = 100.0 * cur["h"] / cur["q"] if cur["q"] else 0.0
        if pt or gt or cur["running"] or cur["waiting"]:
            out.append((t, f"{prefix}INFO {fmt_ts(t)} [{loggers_line}] Engine 000: Avg prompt throughput: {pt:.1f} tokens/s, "
                           f"Avg generation throughput: {gt:.1f} tokens/s, Running: {cur['running']} reqs, Waiting: {cur['waiting']} reqs, "
                           f"GPU KV cache usage: {100*cur['usage']:.1f}%, Prefix cache hit rate: {hr:.1f}%"))
        prev = cur
        t += step
    return out


def write_bundle(case_id, *, manifest, scrapes, server=None, engine_args=None, model_config=None,
                 gpu=None, logs=None, prompts=None):
    d = ROOT / "cases" / case_id / "bundle"
    d.mkdir(parents=True, exist_ok=True)
    for f in d.iterdir():
        f.unlink()
    (d / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", **manifest}, indent=1) + "\n")
    with open(d / "metrics.jsonl", "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    if server is not None:
        (d / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (d / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (d / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with open(d / "gpu.jsonl", "w") as f:
            for row in gpu:
                f.write(json.dumps(row) + "\n")
    if logs is not None:
        (d / "logs.txt").write_text("\n".join(logs) + "\n")
    if prompts is not None:
        with open(ROOT / "cases" / case_id / "prompts.jsonl", "w") as f:
            for p in prompts:
                f.write(json.dumps(p) + "\n")
    return d


def models_body(served, root, mml, created):
    return {"object": "list", "data": [{
        "id": served, "object": "model", "created": created, "owned_by": "vllm", "root": root,
        "parent": None, "max_model_len": mml,
        "permission": [{"id": "modelperm-" + hashlib.sha256(f"{served}{created}".encode()).hexdigest()[:32],
                        "object": "model_permission", "created": created, "allow_create_engine": False,
                        "allow_sampling": True, "allow_logprobs": True, "allow_search_indices": False,
                        "allow_view": True, "allow_fine_tuning": False, "organization": "*", "group": None,
                        "is_blocking": False}]}]}
