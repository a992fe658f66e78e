"""Small helpers shared by the zyj bundle builders (stdlib only)."""
import json, os

GIB = 1024 ** 3


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def write_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def bundle_dir(case_id):
    here = os.path.dirname(os.path.abspath(__file__))
    d = os.path.join(here, "..", "..", case_id, "bundle")
    os.makedirs(d, exist_ok=True)
    return os.path.normpath(d)


def manifest(d, endpoint, t0, t1, interval, notes):
    write_json(os.path.join(d, "manifest.json"), {
        "schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0",
        "endpoint": endpoint, "started_at": t0, "ended_at": t1,
        "interval_s": interval, "notes": notes})
