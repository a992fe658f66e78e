"""Writer zk's bundle renderer (kvdoctor.bundle/1).

Adapted from cases/_tools/zf/gen.py (itself from y, u, q): family names, HELP texts, TYPEs and
bucket layouts are copied from the last scrape of an existing case bundle of a nearby vLLM
release (format examples the brief allows):
  V1: cases/b-hybrid-qwen35-block528/bundle (vLLM 0.19.1)
  V0: cases/c-v0-recompute-warnings-limo32b/bundle (vLLM 0.7.3)
Unlike zf, the simulators in cases.py produce one snapshot per scrape (gauges, cumulative
counters, cumulative histogram observations) and this module only renders them.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
V1_T = "b-hybrid-qwen35-block528"
V0_T = "c-v0-recompute-warnings-limo32b"
SPEC_FAMS = [
    ("vllm:spec_decode_num_drafts", "Number of spec decoding drafts."),
    ("vllm:spec_decode_num_draft_tokens", "Number of draft tokens."),
    ("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens."),
    ("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position."),
]


def template(case: str) -> list[dict]:
    from prometheus_client.parser import text_string_to_metric_families
    lines = (ROOT / "cases" / case / "bundle" / "metrics.jsonl").read_text().splitlines()
    text = json.loads(lines[-1])["text"]
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


def _lab(d: dict) -> str:
    return ",".join(f'{k}="{v}"' for k, v in d.items())


def _num(v: float) -> str:
    return repr(float(v))


class Hacc:
    """Incremental histogram: observations with weights; snapshot() gives cumulative bucket counts."""
    def __init__(self):
        self.obs = {}

    def add(self, v: float, w: int = 1):
        self.obs[v] = self.obs.get(v, 0) + w

    def snapshot(self):
        return dict(self.obs)


def _hist(lines, name, base, vals, les):
    if isinstance(vals, dict):
        items = sorted(vals.items())
        cnt = sum(w for _, w in items)
        tot = sum(v * w for v, w in items)
        j, acc = 0, 0
        for le in les:
            while j < len(items) and items[j][0] <= le:
                acc += items[j][1]; j += 1
            lines.append(f'{name}_bucket{{{_lab({**base, "le": _num(le)})}}} {_num(acc)}')
        lines.append(f'{name}_bucket{{{_lab({**base, "le": "+Inf"})}}} {_num(cnt)}')
        lines.append(f"{name}_count{{{_lab(base)}}} {_num(cnt)}")
        lines.append(f"{name}_sum{{{_lab(base)}}} {_num(round(tot, 6))}")
        return
    vals = sorted(vals)
    j = 0
    for le in les:
        while j < len(vals) and vals[j] <= le:
            j += 1
        lines.append(f'{name}_bucket{{{_lab({**base, "le": _num(le)})}}} {_num(j)}')
    lines.append(f'{name}_bucket{{{_lab({**base, "le": "+Inf"})}}} {_num(len(vals))}')
    lines.append(f"{name}_count{{{_lab(base)}}} {_num(len(vals))}")
    lines.append(f"{name}_sum{{{_lab(base)}}} {_num(round(sum(vals), 6))}")


def render(snap: dict, *, v0: bool, model_name: str, cc: dict, engine: str = "0", spec: dict | None = None) -> str:
    """snap: {"vals": {family: number}, "hists": {family: [obs]}, "success": {reason: n}, "by_source": {...}}"""
    fams = template(V0_T if v0 else V1_T)
    base = {"model_name": model_name} if v0 else {"engine": engine, "model_name": model_name}
    vals, hists = snap["vals"], snap["hists"]
    out: list[str] = []
    for f in fams:
        n, ty = f["name"], f["type"]
        if n in ("vllm:cache_config_info", "vllm:lora_requests_info"):
            continue
        expo = n + "_total" if ty == "counter" else n
        out.append(f"# HELP {expo} {f['help']}")
        out.append(f"# TYPE {expo} {ty}")
        if n == "vllm:engine_sleep_state":
            for s, v in (("awake", 1), ("weights_offloaded", 0), ("discard_all", 0)):
                out.append(f'{n}{{{_lab({**base, "sleep_state": s})}}} {_num(v)}')
        elif n == "vllm:prompt_tokens_by_source":
            bs = snap.get("by_source", {})
            for s in ("local_compute", "local_cache_hit", "external_kv_transfer"):
                out.append(f'{n}_total{{{_lab({**base, "source": s})}}} {_num(bs.get(s, 0))}')
        elif n == "vllm:request_success":
            for reason in (("stop", "length") if v0 else ("stop", "length", "abort", "error")):
                out.append(f'{n}_total{{{_lab({**base, "finished_reason": reason})}}} {_num(snap["success"].get(reason, 0))}')
        elif ty == "histogram":
            _hist(out, n, base, hists.get(n, []), f["les"])
        elif ty == "counter":
            out.append(f"{n}_total{{{_lab(base)}}} {_num(vals.get(n, 0))}")
        else:
            out.append(f"{n}{{{_lab(base)}}} {_num(vals.get(n, 0))}")
    if spec is not None:
        for n, h in SPEC_FAMS:
            out.append(f"# HELP {n}_total {h}")
            out.append(f"# TYPE {n}_total counter")
            if n.endswith("_per_pos"):
                for p, v in enumerate(spec["per_pos"]):
                    out.append(f'{n}_total{{{_lab({**base, "position": str(p)})}}} {_num(v)}')
            else:
                out.append(f"{n}_total{{{_lab(base)}}} {_num(spec[n])}")
    out.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig")
    out.append("# TYPE vllm:cache_config_info gauge")
    labs = dict(sorted((({} if v0 else {"engine": engine}) | cc).items()))
    out.append(f"vllm:cache_config_info{{{_lab(labs)}}} 1.0")
    return "\n".join(out) + "\n"


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def tmpl_cc(case: str, **kw) -> dict:
    import re
    lines = (ROOT / "cases" / case / "bundle" / "metrics.jsonl").read_text().splitlines()
    text = json.loads(lines[-1])["text"]
    for ln in text.splitlines():
        if ln.startswith("vllm:cache_config_info{"):
            labs = dict(re.findall(r'(\w+)="([^"]*)"', ln[ln.index("{"):ln.rindex("}")]))
            labs.pop("engine", None)
            labs.update({k: str(v) for k, v in kw.items()})
            return dict(sorted(labs.items()))
    raise ValueError(case)


def server_json(version: str, served: str, root: str, mml: int, created: int) -> dict:
    return {"version": {"version": version}, "models": {"object": "list", "data": [{
        "id": served, "object": "model", "created": created, "owned_by": "vllm", "root": root, "parent": None,
        "max_model_len": mml, "permission": [{"id": "modelperm-" + hashlib.md5((served + version).encode()).hexdigest(),
        "object": "model_permission", "created": created, "allow_create_engine": False, "allow_sampling": True,
        "allow_logprobs": True, "allow_search_indices": False, "allow_view": True, "allow_fine_tuning": False,
        "organization": "*", "group": None, "is_blocking": False}]}]}, "health": 200}


def write(out: Path, *, start: float, interval: float, texts: list[str], server: dict | None, engine_args: dict,
          model_config: dict | None, gpu: list, logs: list[tuple[float, str]], notes: str, endpoint: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    recs = [json.dumps({"t": round(start + k * interval, 3), "status": 200, "text": tx}) for k, tx in enumerate(texts)]
    (out / "metrics.jsonl").write_text("\n".join(recs) + "\n")
    man = {"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint, "started_at": start,
           "ended_at": start + (len(texts) - 1) * interval, "interval_s": interval, "notes": notes}
    (out / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")
    if server is not None:
        (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu:
        (out / "gpu.jsonl").write_text("\n".join(json.dumps(g) for g in gpu) + "\n")
    (out / "logs.txt").write_text("\n".join(l for _, l in sorted(logs, key=lambda x: x[0])) + "\n")
