"""Small helpers shared by the zyl case builders (adapted from zyk): cumulative histograms and
counters, Prometheus exposition text, bundle writing. Pure stdlib."""
import json
import os
import random


def fmt(v):
    if isinstance(v, float) and v == float("inf"):
        return "+Inf"
    if isinstance(v, int):
        return f"{float(v)}"
    return repr(float(v))


def lbl(d):
    if not d:
        return ""
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


class Hist:
    def __init__(self, buckets):
        self.b = list(buckets)
        self.c = [0] * (len(self.b) + 1)
        self.sum = 0.0
        self.n = 0

    def observe(self, v, k=1):
        for i, ub in enumerate(self.b):
            if v <= ub:
                self.c[i] += k
                break
        else:
            self.c[-1] += k
        self.sum += v * k
        self.n += k

    def lines(self, name, labels):
        out = []
        cum = 0
        for i, ub in enumerate(self.b):
            cum += self.c[i]
            out.append(f"{name}_bucket{lbl({**labels, 'le': fmt(float(ub))})} {fmt(float(cum))}")
        cum += self.c[-1]
        out.append(f"{name}_bucket{lbl({**labels, 'le': '+Inf'})} {fmt(float(cum))}")
        out.append(f"{name}_count{lbl(labels)} {fmt(float(self.n))}")
        out.append(f"{name}_sum{lbl(labels)} {fmt(float(self.sum))}")
        return out


def family(name, typ, help_, samples):
    """samples: list of (suffix_name, labels, value) or pre-rendered lines."""
    out = [f"# HELP {name} {help_}", f"# TYPE {name} {typ}"]
    for s in samples:
        if isinstance(s, str):
            out.append(s)
        else:
            n, l, v = s
            out.append(f"{n}{lbl(l)} {fmt(v)}")
    return out


def one_two_five(maxv):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v > maxv:
                return out
            out.append(v)
        e += 1


def write_bundle(path, manifest, scrapes, server=None, engine_args=None,
                 model_config=None, gpu=None, logs=None):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    with open(os.path.join(path, "metrics.jsonl"), "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    if server is not None:
        with open(os.path.join(path, "server.json"), "w") as f:
            json.dump(server, f, indent=2)
    if engine_args is not None:
        with open(os.path.join(path, "engine_args.json"), "w") as f:
            json.dump(engine_args, f, indent=2)
    if model_config is not None:
        with open(os.path.join(path, "model_config.json"), "w") as f:
            json.dump(model_config, f, indent=2)
    if gpu is not None:
        with open(os.path.join(path, "gpu.jsonl"), "w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        with open(os.path.join(path, "logs.txt"), "w") as f:
            f.write(logs)
