"""Writer zys: writes the files of a kvdoctor.bundle/1 directory."""
import datetime as dt
import json
from pathlib import Path


def write_bundle(out: Path, manifest, scrapes, server=None, engine_args=None, model_config=None,
                 gpu=None, logs=None):
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    with open(out / "metrics.jsonl", "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    if server is not None:
        (out / "server.json").write_text(json.dumps(server, indent=1) + "\n")
    if engine_args is not None:
        (out / "engine_args.json").write_text(json.dumps(engine_args, indent=1) + "\n")
    if model_config is not None:
        (out / "model_config.json").write_text(json.dumps(model_config, indent=1) + "\n")
    if gpu is not None:
        with open(out / "gpu.jsonl", "w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        (out / "logs.txt").write_text(logs)


def ts(t, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt)
