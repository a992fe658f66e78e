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
