"""Small helpers shared by the zyv bundle builders (writing files only)."""
from __future__ import annotations

import calendar
import json
import os
import time

GIB = 1024 ** 3


def epoch(ts: str) -> float:
    """'2024-12-16 02:38:24' (UTC) -> unix seconds."""
    return float(calendar.timegm(time.strptime(ts, "%Y-%m-%d %H:%M:%S")))


def stamp(t: float, fmt: str = "%m-%d %H:%M:%S") -> str:
    return time.strftime(fmt, time.gmtime(t))


def write_json(path: str, obj) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def write_jsonl(path: str, rows) -> None:
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def manifest(out: str, endpoint: str, t0: float, t1: float, interval: float, notes: str) -> None:
    write_json(os.path.join(out, "manifest.json"), {
        "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0", "endpoint": endpoint,
        "started_at": t0, "ended_at": t1, "interval_s": interval, "notes": notes})
