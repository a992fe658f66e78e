"""Bundle builder for the w-* cases (kvdoctor.bundle/1).

Format only: the metric families, HELP texts, label sets and histogram bucket edges are read from
one scrape of an existing case's bundle of the same (or nearest) vLLM release, used as a format
example; every value is scripted by the case modules in this folder.
Run with /work/main/.venv/bin/python (needs prometheus_client for parsing the template).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[3]
GiB = 1 << 30


def load_template(case: str, line: int = 0):
    rec = json.loads((ROOT / "cases" / case / "bundle" / "metrics.jsonl").read_text().splitlines()[line])
    fams = []
    for fam in text_string_to_metric_families(rec["text"]):
        fams.append((fam.name, fam.type, fam.documentation,
                     [(s.name, dict(s.labels)) for s in fam.samples]))
    return fams


def fmt(v: float) -> str:
    v = float(v)
    if v == math.inf:
        return "+Inf"
    return repr(v)


def lab(d: dict) -> str:
    return ",".join(f'{k}="{v}"' for k, v in d.items())


class Hist:
    def __init__(self, edges):
        self.edges = list(edges)
        self.c = [0] * (len(self.edges) + 1)
        self.s = 0.0
        self.n = 0

    def obs(self, v: float, n: int = 1):
        for i, le in enumerate(self.edges):
            if v <= le:
                self.c[i] += n
                break
        else:
            self.c[-1] += n
        self.s += v * n
        self.n += n


class Engine:
    """Scripted state of one engine; render() writes the exposition in the template's layout."""

    def __init__(self, template, model_name: str, created: float, cache_info: dict | None,
                 reasons=("stop", "length", "abort", "error")):
        self.t = template
        self.model = model_name
        self.created = created
        self.cache_info = cache_info
        self.reasons = reasons
        self.g: dict = {}
        self.c: dict = {}
        self.h: dict[str, Hist] = {}
        self.waiting_reason = {"capacity": 0.0, "deferred": 0.0}
        for name, typ, _, samples in template:
            if typ == "histogram":
                edges = sorted({float(s[1]["le"]) for s in samples if s[0].endswith("_bucket")
                                and s[1]["le"] != "+Inf"})
                self.h[name] = Hist(edges)

    def inc(self, name, v, **extra):
        key = (name, tuple(sorted(extra.items())))
        self.c[key] = self.c.get(key, 0.0) + float(v)

    def _labels(self, tl: dict, extra: dict | None = None) -> dict:
        out = {}
        for k, v in tl.items():
            if k == "model_name":
                out[k] = self.model
            elif k == "le":
                continue
            else:
                out[k] = v
        if extra:
            out.update(extra)
        return out

    def render(self) -> str:
        out = []
        for name, typ, doc, samples in self.t:
            is_created = name.endswith("_created")
            if typ == "counter":
                wire = name + "_total"
                out += [f"# HELP {wire} {doc}", f"# TYPE {wire} counter"]
                if name == "vllm:request_success":
                    for r in self.reasons:
                        lb = self._labels(samples[0][1], {"finished_reason": r})
                        v = self.c.get((name, (("finished_reason", r),)), 0.0)
                        out.append(f"{wire}{{{lab(lb)}}} {fmt(v)}")
                    continue
                for sname, sl in samples:
                    extra = {k: v for k, v in sl.items() if k not in ("engine", "model_name")}
                    v = self.c.get((name, tuple(sorted(extra.items()))), 0.0)
                    out.append(f"{wire}{{{lab(self._labels(sl))}}} {fmt(v)}")
            elif typ == "histogram":
                out += [f"# HELP {name} {doc}", f"# TYPE {name} histogram"]
                h = self.h[name]
                base = self._labels(samples[0][1])
                cum = 0
                for le, cnt in zip(h.edges, h.c):
                    cum += cnt
                    out.append(f"{name}_bucket{{{lab({**base, 'le': fmt(le)})}}} {fmt(cum)}")
                out.append(f"{name}_bucket{{{lab({**base, 'le': '+Inf'})}}} {fmt(h.n)}")
                out.append(f"{name}_count{{{lab(base)}}} {fmt(h.n)}")
                out.append(f"{name}_sum{{{lab(base)}}} {fmt(h.s)}")
            else:  # gauge
                out += [f"# HELP {name} {doc}", f"# TYPE {name} gauge"]
                if is_created:
                    if name == "vllm:request_success_created":
                        for r in self.reasons:
                            lb = self._labels(samples[0][1], {"finished_reason": r})
                            out.append(f"{name}{{{lab(lb)}}} {fmt(self.created)}")
                        continue
                    for sname, sl in samples:
                        out.append(f"{name}{{{lab(self._labels(sl))}}} {fmt(self.created)}")
                elif name == "vllm:cache_config_info":
                    d = dict(samples[0][1])
                    d.update(self.cache_info or {})
                    d = {k: d[k] for k in sorted(d)}
                    out.append(f"{name}{{{lab(d)}}} 1.0")
                elif name == "vllm:engine_sleep_state":
                    for sname, sl in samples:
                        v = 1.0 if sl.get("sleep_state") == "awake" else 0.0
                        out.append(f"{name}{{{lab(self._labels(sl))}}} {fmt(v)}")
                elif name == "vllm:num_requests_waiting_by_reason":
                    for sname, sl in samples:
                        v = self.waiting_reason.get(sl["reason"], 0.0)
                        out.append(f"{name}{{{lab(self._labels(sl))}}} {fmt(v)}")
                else:
                    for sname, sl in samples:
                        out.append(f"{name}{{{lab(self._labels(sl))}}} {fmt(self.g.get(name, 0.0))}")
        return "\n".join(out) + "\n"


def write_bundle(case: str, manifest: dict, scrapes: list, server=None, engine_args=None,
                 model_config=None, gpu=None, logs=None):
    b = ROOT / "cases" / case / "bundle"
    b.mkdir(parents=True, exist_ok=True)
    (b / "manifest.json").write_text(json.dumps(
        {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", **manifest}, indent=1) + "\n")
    (b / "metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scrapes))
    for fn, obj in (("server.json", server), ("engine_args.json", engine_args),
                    ("model_config.json", model_config)):
        if obj is not None:
            (b / fn).write_text(json.dumps(obj, indent=1) + "\n")
    if gpu is not None:
        (b / "gpu.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gpu))
    if logs is not None:
        (b / "logs.txt").write_text(logs)


def models_body(mid: str, root: str, mml: int, created: int) -> dict:
    return {"object": "list", "data": [{
        "id": mid, "object": "model", "created": created, "owned_by": "vllm", "root": root,
        "parent": None, "max_model_len": mml,
        "permission": [{"id": "modelperm-7d2e41c09b8a4f6e9c1d3b5a7e0f2c48", "object": "model_permission",
                        "created": created, "allow_create_engine": False, "allow_sampling": True,
                        "allow_logprobs": True, "allow_search_indices": False, "allow_view": True,
                        "allow_fine_tuning": False, "organization": "*", "group": None,
                        "is_blocking": False}]}]}


def ts(t: float) -> str:
    import time
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t))
