"""Shared helpers for zzy's bundle builders (kvdoctor.bundle/1)."""
import json, os, time

def write_bundle(out, manifest, scrapes, server=None, engine_args=None,
                 model_config=None, gpu=None, logs=None):
    os.makedirs(out, exist_ok=True)
    def dump(name, obj):
        with open(os.path.join(out, name), "w") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
    dump("manifest.json", manifest)
    with open(os.path.join(out, "metrics.jsonl"), "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    if server is not None:
        dump("server.json", server)
    if engine_args is not None:
        dump("engine_args.json", engine_args)
    if model_config is not None:
        dump("model_config.json", model_config)
    if gpu is not None:
        with open(os.path.join(out, "gpu.jsonl"), "w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        with open(os.path.join(out, "logs.txt"), "w") as f:
            f.write(logs)

def stamp(t, fmt="%m-%d %H:%M:%S"):
    return time.strftime(fmt, time.gmtime(t))
