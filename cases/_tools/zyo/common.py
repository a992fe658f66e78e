"""Small helpers shared by writer zyo's bundle builders (no dependencies)."""
import json, os

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

def engine_args(d, argv):
    """argv: list starting with 'vllm', 'serve', model. Flags parsed into args."""
    args = {}
    i = 3
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            k = a[2:]
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                v = argv[i + 1]
                try:
                    v = int(v)
                except ValueError:
                    try:
                        v = float(v)
                    except ValueError:
                        pass
                args[k] = v
                i += 2
                continue
            args[k] = True
        i += 1
    write_json(os.path.join(d, "engine_args.json"), {"argv": argv, "args": args})
