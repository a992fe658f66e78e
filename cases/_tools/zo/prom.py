"""Render one /metrics scrape with the real prometheus_client (run as a child process).

stdin: JSON {"mode": "mp" | "default", "spec": [...], "labels": {...}, "gauges": {...},
"counters": {...}, "success": {...}, "hists": {...}, "info": {...}, "lora_ts": float | null,
"created": float}.  The spec (cases/_tools/zo/specs/<case>.json) lists the families exactly as the
release's vllm/engine/metrics.py declares them (name, HELP text, labels, buckets, multiprocess
mode); values come from the builder's simulation.

"mp": vLLM >= 0.6 with the multiprocessing frontend sets PROMETHEUS_MULTIPROC_DIR and serves a
MultiProcessCollector registry: only families with samples, no _created samples, no process
collectors.  "default": vLLM 0.5.x serves the default registry: every declared family (HELP/TYPE
only when it has no child yet), _created samples, after the python/process collectors (added by
the builder).
"""
from __future__ import annotations

import glob
import json
import os
import re
import sys
import tempfile


def main() -> None:
    req = json.load(sys.stdin)
    mode = req["mode"]
    if mode == "mp":
        d = tempfile.mkdtemp(prefix="zo-prom-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = d
    import prometheus_client as pc
    from prometheus_client import CollectorRegistry, generate_latest

    reg = None if mode == "mp" else CollectorRegistry()
    kw = {} if mode == "mp" else {"registry": reg}
    objs = {}
    for f in req["spec"]:
        a = dict(name=f["name"], documentation=f["doc"], labelnames=f["labelnames"], **kw)
        if f["type"] == "gauge":
            if mode == "mp" and f["multiprocess_mode"]:
                a["multiprocess_mode"] = f["multiprocess_mode"]
            objs[f["name"]] = pc.Gauge(**a)
        elif f["type"] == "counter":
            objs[f["name"]] = pc.Counter(**a)
        elif f["type"] == "histogram":
            objs[f["name"]] = pc.Histogram(buckets=f["buckets"], **a)
        elif f["type"] == "info":
            objs[f["name"]] = pc.Info(name=f["name"], documentation=f["doc"], **kw)
    lab = req["labels"]
    if req.get("info") is not None:
        if mode == "mp":
            info = req["info"]
            g = pc.Gauge(name="vllm:cache_config_info", documentation="Information of the LLMEngine CacheConfig",
                         labelnames=list(info.keys()), multiprocess_mode="mostrecent")
            g.labels(**info).set(1)
        else:
            objs["vllm:cache_config"].info(req["info"])
    for n, v in req["gauges"].items():
        objs[n].labels(**lab).set(v)
    if req.get("lora_ts") is not None and "vllm:lora_requests_info" in objs:
        objs["vllm:lora_requests_info"].labels(running_lora_adapters="", max_lora="0", waiting_lora_adapters="").set(req["lora_ts"])
    for n, v in req["counters"].items():
        objs[n].labels(**lab).inc(v)
    for reason, v in req.get("success", {}).items():
        objs["vllm:request_success_total"].labels(**lab, finished_reason=reason).inc(v)
    for n, vals in req["hists"].items():
        if vals:
            h = objs[n].labels(**lab)
            for x in vals:
                h.observe(x)
    if mode == "mp":
        from prometheus_client import multiprocess
        real_glob = glob.glob
        glob.glob = lambda p, **k: sorted(real_glob(p, **k))  # a fixed file order (the server's is arbitrary)
        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)
        text = generate_latest(reg).decode()
        import shutil
        shutil.rmtree(d, ignore_errors=True)
    else:
        text = generate_latest(reg).decode()
        from prometheus_client.utils import floatToGoString
        created = floatToGoString(req["created"])
        text = re.sub(r"^(\S+_created(\{[^}]*\})?) \S+$", lambda m: f"{m.group(1)} {created}", text, flags=re.M)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
