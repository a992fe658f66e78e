"""Writer zxl (copied from writer zyz): small helpers to write kvdoctor.bundle/1 directories (docs/bundle.md).

Deterministic (seeded generators only, no wall clock). Exposition text follows the metric names,
label sets and bucket lists of vLLM's PrometheusStatLogger (vllm/v1/metrics/loggers.py) for V1
and vllm/engine/metrics.py for V0; each case script says which release it imitates.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import json
from pathlib import Path

CASES = Path(__file__).resolve().parents[2]
GiB = 1 << 30
MiB = 1 << 20

TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
                10.0, 20.0, 40.0, 80.0]
REQ_LAT_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
                   60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]


def build_1_2_5(max_value: int) -> list[int]:
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > max_value:
                return out
            out.append(v)
        e += 1


def epoch(y, mo, d, h=0, mi=0, s=0.0) -> float:
    return _dt.datetime(y, mo, d, h, mi, 0, tzinfo=_dt.timezone.utc).timestamp() + s


def stamp(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, tz=_dt.timezone.utc).strftime("%m-%d %H:%M:%S")


def fmt(v: float) -> str:
    if isinstance(v, int) or float(v).is_integer():
        return f"{float(v):.1f}"
    return repr(float(v))


def lbl(d: dict) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


class Hist:
    def __init__(self, buckets):
        self.buckets = list(buckets)
        self.counts = [0] * (len(self.buckets) + 1)
        self.sum = 0.0
        self.n = 0

    def observe(self, v: float, n: int = 1):
        i = bisect.bisect_left(self.buckets, v)
        self.counts[i] += n
        self.sum += v * n
        self.n += n

    def lines(self, name: str, labels: dict) -> list[str]:
        out, cum = [], 0
        for b, c in zip(self.buckets + ["+Inf"], self.counts):
            cum += c
            le = "+Inf" if b == "+Inf" else fmt(b)
            out.append(f"{name}_bucket{lbl({**labels, 'le': le})} {fmt(cum)}")
        out.append(f"{name}_count{lbl(labels)} {fmt(self.n)}")
        out.append(f"{name}_sum{lbl(labels)} {fmt(round(self.sum, 6))}")
        return out


def family(name: str, typ: str, doc: str, lines: list[str]) -> list[str]:
    return [f"# HELP {name} {doc}", f"# TYPE {name} {typ}"] + lines


def write_bundle(case_id: str, *, endpoint: str, started_at: float, interval_s: float, notes: str,
                 scrapes: list[dict], server=None, engine_args=None, model_config=None, gpu=None,
                 logs=None) -> Path:
    b = CASES / case_id / "bundle"
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


def models_body(served: str, root: str, max_len: int, created: int) -> dict:
    return {"object": "list", "data": [{"id": served, "object": "model", "created": created,
                                        "owned_by": "vllm", "root": root, "parent": None,
                                        "max_model_len": max_len}]}
