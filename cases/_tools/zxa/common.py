"""Small helpers for writer zyt's bundle builders (stdlib only)."""
import json
import os

GIB = 1024 ** 3
MIB = 1024 ** 2


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def write_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def manifest(d, endpoint, t0, t1, interval, notes):
    write_json(os.path.join(d, "manifest.json"), {
        "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0",
        "endpoint": endpoint, "started_at": t0, "ended_at": t1,
        "interval_s": interval, "notes": notes})


def parse_argv(argv, first_flag=3):
    """argv: ['vllm', 'serve', model, '--flag', value, ...] -> {flag: value}."""
    args = {}
    i = first_flag
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            k = a[2:]
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                v = argv[i + 1]
                for cast in (int, float):
                    try:
                        v = cast(v)
                        break
                    except ValueError:
                        pass
                args[k] = v
                i += 2
                continue
            args[k] = True
        i += 1
    return args


def engine_args(d, argv):
    write_json(os.path.join(d, "engine_args.json"), {"argv": argv, "args": parse_argv(argv)})


def fmt_ts(t, tz_offset=0):
    """vLLM log time 'MM-DD HH:MM:SS' (UTC unless an offset is given)."""
    import time
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t + tz_offset))


# --- writer zxa additions: a start-up failure bundle (server never listens) ---
def refused_scrapes(d, t0, t1, interval, url="http://127.0.0.1:8000/metrics"):
    rows, t = [], t0
    while t <= t1:
        rows.append({"t": t, "error": "GET %s: [Errno 111] Connection refused" % url})
        t += interval
    write_jsonl(os.path.join(d, "metrics.jsonl"), rows)
    return rows


def nvml(d, t0, t1, interval, ndev, name, total_bytes, used_fn, pids, base_mib=0):
    """used_fn(t, rank) -> GiB held by the vLLM worker on that rank (0 when gone)."""
    rows, t = [], t0
    while t <= t1:
        devs = []
        for r in range(ndev):
            u = used_fn(t, r)
            procs = [{"pid": pids[r], "name": "/usr/bin/python3", "used_memory": int(u * GIB)}] if u > 0 else []
            devs.append({"index": r, "name": name, "memory_total": total_bytes,
                         "memory_used": int(u * GIB) + base_mib * MIB, "processes": procs})
        rows.append({"t": t, "devices": devs})
        t += interval
    write_jsonl(os.path.join(d, "gpu.jsonl"), rows)


class Log:
    def __init__(self):
        self.lines = []

    def add(self, t, msg, pre="", lvl="INFO", src="x.py:1"):
        self.lines.append("%s%s %s [%s] %s" % (pre, lvl, fmt_ts(t), src, msg))

    def raw(self, line):
        self.lines.append(line)

    def write(self, d):
        with open(os.path.join(d, "logs.txt"), "w") as f:
            f.write("\n".join(self.lines) + "\n")
