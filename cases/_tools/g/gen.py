"""Bundle builder helpers for the g-* external cases (kvdoctor.bundle/1); a copy of cases/_tools/d/gen.py.

Only formats are taken from the repository's reference material:
- metric names/kinds/labels per release: kvdoctor/data/vllm_metrics.yaml (via kvdoctor.vllm_metrics);
  for a release between two table rows only the names both neighbours export are written;
- HELP texts and histogram bucket layouts: the real vLLM 0.32 recordings in tests/data/vllm-0.32;
- V0 (<= 0.7.x) names, HELP texts and bucket layouts: vllm/engine/metrics.py of the V0 engine.
The numbers are scripted per case in cases.py. Nothing here reads the diagnosis code.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from kvdoctor.vllm_metrics import exported_names, metric_entry

ROOT = Path(__file__).resolve().parents[3]
REC = ROOT / "tests" / "data" / "vllm-0.32"
GiB = 1 << 30
MiB = 1 << 20


def _help_texts() -> dict[str, str]:
    out: dict[str, str] = {}
    for f in sorted(REC.glob("metrics-*.txt")):
        for m in re.finditer(r"^# HELP (vllm:[a-z0-9_]+) (.*)$", f.read_text(), re.M):
            out.setdefault(m.group(1), m.group(2))
    return out


def _buckets() -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    text = (REC / "metrics-prefix-hits.txt").read_text()
    for m in re.finditer(r'^(vllm:[a-z0-9_]+)_bucket\{[^}]*le="([^"]+)"', text, re.M):
        if m.group(2) != "+Inf":
            out.setdefault(m.group(1), []).append(float(m.group(2)))
    return {k: sorted(set(v)) for k, v in out.items()}


HELP = _help_texts()
BUCKETS = _buckets()
BUCKETS.setdefault("vllm:time_per_output_token_seconds", BUCKETS["vllm:inter_token_latency_seconds"])


def names_for(versions: tuple[str, ...]) -> set[str]:
    """Names every listed release exports (a release between table rows: both neighbours)."""
    sets = [exported_names(v) for v in versions]
    out = set(sets[0])
    for s in sets[1:]:
        out &= s
    return out


def _num(v: float) -> str:
    return repr(float(v))


def _cnt(v: float) -> str:
    """A counter / bucket count on the wire: whole events (the state keeps fractions)."""
    return repr(float(int(v + 1e-9)))


def _help(name: str, wire: str) -> str:
    return HELP.get(wire, HELP.get(name, name))


@dataclass
class Hist:
    buckets: list[float]
    counts: list[float] = field(default_factory=list)  # per bucket, non-cumulative, +Inf last
    total: float = 0.0
    n: float = 0.0

    def __post_init__(self) -> None:
        if not self.counts:
            self.counts = [0.0] * (len(self.buckets) + 1)

    def observe(self, value: float, n: float = 1.0) -> None:
        for i, le in enumerate(self.buckets):
            if value <= le:
                self.counts[i] += n
                break
        else:
            self.counts[-1] += n
        self.total += value * n
        self.n += n


@dataclass
class Engine:
    """The metric state of one engine (engine label) of a V1 server."""

    labels: dict[str, str]
    gauges: dict[str, float] = field(default_factory=dict)
    counters: dict[str, float] = field(default_factory=dict)
    labelled: dict[tuple[str, str, str], float] = field(default_factory=dict)
    hists: dict[str, Hist] = field(default_factory=dict)
    created: float = 0.0

    def inc(self, name: str, v: float) -> None:
        assert v >= 0, (name, v)
        self.counters[name] = self.counters.get(name, 0.0) + v

    def inc_l(self, name: str, label: str, value: str, v: float) -> None:
        assert v >= 0, (name, v)
        k = (name, label, value)
        self.labelled[k] = self.labelled.get(k, 0.0) + v

    def observe(self, name: str, value: float, n: float = 1.0) -> None:
        if name not in self.hists:
            self.hists[name] = Hist(BUCKETS.get(name, [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]))
        self.hists[name].observe(value, n)


def _lbl(d: dict[str, str]) -> str:
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def v1_text(versions: tuple[str, ...], engines: list[Engine], cache_info: dict[str, str] | None,
            extra_lines: list[str] | None = None) -> str:
    """A V1 /metrics body: HELP/TYPE per family, `_total` + `_created` for counters."""
    have = names_for(versions)

    def kind(name: str) -> str | None:
        if name not in have:
            return None
        e = metric_entry(versions[0], name)
        return None if e is None else str(e["kind"])

    out: list[str] = list(extra_lines or [])
    gnames = sorted({n for e in engines for n in e.gauges})
    for name in gnames:
        if kind(name) != "gauge":
            continue
        out += [f"# HELP {name} {_help(name, name)}", f"# TYPE {name} gauge"]
        out += [f"{name}{{{_lbl(e.labels)}}} {_num(e.gauges[name])}" for e in engines if name in e.gauges]
    lnames = sorted({k[0] for e in engines for k in e.labelled})
    for name in lnames:
        k = kind(name)
        if k is None:
            continue
        wire = name + ("_total" if k == "counter" else "")
        out += [f"# HELP {wire} {_help(name, wire)}", f"# TYPE {wire} {k}"]
        for e in engines:
            for (n, label, value), v in sorted(e.labelled.items()):
                if n == name:
                    out.append(f"{wire}{{{_lbl(e.labels)},{label}=\"{value}\"}} {_cnt(v) if k == 'counter' else _num(v)}")
        if k == "counter":
            out += [f"# HELP {name}_created {_help(name, wire)}", f"# TYPE {name}_created gauge"]
            for e in engines:
                for (n, label, value), _v in sorted(e.labelled.items()):
                    if n == name:
                        out.append(f"{name}_created{{{_lbl(e.labels)},{label}=\"{value}\"}} {_num(e.created)}")
    cnames = sorted({n for e in engines for n in e.counters})
    for name in cnames:
        if kind(name) != "counter":
            continue
        out += [f"# HELP {name}_total {_help(name, name + '_total')}", f"# TYPE {name}_total counter"]
        out += [f"{name}_total{{{_lbl(e.labels)}}} {_cnt(e.counters[name])}" for e in engines if name in e.counters]
        out += [f"# HELP {name}_created {_help(name, name + '_total')}", f"# TYPE {name}_created gauge"]
        out += [f"{name}_created{{{_lbl(e.labels)}}} {_num(e.created)}" for e in engines if name in e.counters]
    hnames = sorted({n for e in engines for n in e.hists})
    for name in hnames:
        if kind(name) != "histogram":
            continue
        out += [f"# HELP {name} {_help(name, name)}", f"# TYPE {name} histogram"]
        for e in engines:
            h = e.hists.get(name)
            if h is None:
                continue
            cum = 0.0
            for le, c in zip(h.buckets, h.counts):
                cum += c
                out.append(f'{name}_bucket{{{_lbl(e.labels)},le="{le}"}} {_cnt(cum)}')
            out.append(f'{name}_bucket{{{_lbl(e.labels)},le="+Inf"}} {_cnt(h.n)}')
            out.append(f"{name}_count{{{_lbl(e.labels)}}} {_cnt(h.n)}")
            out.append(f"{name}_sum{{{_lbl(e.labels)}}} {_num(h.total)}")
        out += [f"# HELP {name}_created {_help(name, name)}", f"# TYPE {name}_created gauge"]
        out += [f"{name}_created{{{_lbl(e.labels)}}} {_num(e.created)}" for e in engines if name in e.hists]
    if cache_info is not None and "vllm:cache_config_info" in have:
        allowed = set(metric_entry(versions[0], "vllm:cache_config_info")["labels"])  # type: ignore[index]
        for v in versions[1:]:
            allowed &= set(metric_entry(v, "vllm:cache_config_info")["labels"])  # type: ignore[index]
        out += ["# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig",
                "# TYPE vllm:cache_config_info gauge"]
        for e in engines:
            lab = dict(cache_info)
            lab["engine"] = e.labels.get("engine", "0")
            body = ",".join(f'{k}="{v}"' for k, v in sorted(lab.items()) if k in allowed)
            out.append(f"vllm:cache_config_info{{{body}}} 1.0")
    return "\n".join(out) + "\n"


# ---- V0 engine (vLLM <= 0.7.x with VLLM_USE_V1=0): vllm/engine/metrics.py ----
V0_HELP = {
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
    "vllm:request_success_total": "Count of successfully processed requests.",
}
V0_BUCKETS = {
    "vllm:time_to_first_token_seconds": [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
                                         0.75, 1.0, 2.5, 5.0, 7.5, 10.0],
    "vllm:time_per_output_token_seconds": [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
                                           0.75, 1.0, 2.5],
    "vllm:e2e_request_latency_seconds": [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0],
}


def v0_text(e: Engine, cache_info: dict[str, str] | None) -> str:
    """A V0 /metrics body (no `_created`: V0 calls prometheus_client.disable_created_metrics())."""
    out: list[str] = []
    if cache_info is not None:
        out += ["# HELP vllm:cache_config_info information of cache_config",
                "# TYPE vllm:cache_config_info gauge",
                "vllm:cache_config_info{" + ",".join(f'{k}="{v}"' for k, v in sorted(cache_info.items())) + "} 1.0"]
    for name, v in e.gauges.items():
        out += [f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} gauge", f"{name}{{{_lbl(e.labels)}}} {_num(v)}"]
    for name, v in e.counters.items():
        out += [f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} counter", f"{name}{{{_lbl(e.labels)}}} {_cnt(v)}"]
    for (name, label, value), v in sorted(e.labelled.items()):
        out += [f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} counter",
                f"{name}{{{_lbl(e.labels)},{label}=\"{value}\"}} {_cnt(v)}"]
    for name, h in e.hists.items():
        out += [f"# HELP {name} {V0_HELP[name]}", f"# TYPE {name} histogram"]
        cum = 0.0
        for le, c in zip(h.buckets, h.counts):
            cum += c
            out.append(f'{name}_bucket{{{_lbl(e.labels)},le="{le}"}} {_cnt(cum)}')
        out.append(f'{name}_bucket{{{_lbl(e.labels)},le="+Inf"}} {_cnt(h.n)}')
        out.append(f"{name}_count{{{_lbl(e.labels)}}} {_cnt(h.n)}")
        out.append(f"{name}_sum{{{_lbl(e.labels)}}} {_num(h.total)}")
    return "\n".join(out) + "\n"


def v0_engine(model_name: str, extended_buckets: bool = True) -> Engine:
    """extended_buckets: the longer TTFT/TPOT/e2e layouts later V0 releases (0.6+) share with V1."""
    e = Engine(labels={"model_name": model_name})
    for n, b in V0_BUCKETS.items():
        e.hists[n] = Hist(list(BUCKETS[n]) if extended_buckets and n in BUCKETS else list(b))
    return e


# ---- GPU samples ----
def device(index: int, name: str, total: int, procs: list[tuple[int, str, int]], extra_used: int = 0) -> dict:
    used = sum(p[2] for p in procs) + extra_used
    return {"index": index, "name": name, "memory_total": int(total), "memory_used": int(min(used, total)),
            "processes": [{"pid": p, "name": n, "used_memory": int(u)} for p, n, u in procs]}


# ---- writing ----
def write_bundle(dest: Path, *, endpoint: str, started_at: float, interval_s: float, notes: str,
                 scrapes: list[dict], server: dict | None = None, engine_args: dict | None = None,
                 model_config: dict | None = None, gpu: list[dict] | None = None,
                 logs: str | None = None) -> None:
    b = dest / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    for old in b.iterdir():
        old.unlink()
    ended = max([s["t"] for s in scrapes] + [started_at])
    manifest = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
                "started_at": started_at, "ended_at": ended, "interval_s": interval_s, "notes": notes}
    (b / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with (b / "metrics.jsonl").open("w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    if server is not None:
        (b / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (b / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (b / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with (b / "gpu.jsonl").open("w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        (b / "logs.txt").write_text(logs)


def prom_error(t: float, port: int = 8000, host: str = "127.0.0.1") -> dict:
    return {"t": t, "error": f"GET http://{host}:{port}/metrics: connection refused ([Errno 111] Connection refused)"}
