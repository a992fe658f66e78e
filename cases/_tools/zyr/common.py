"""Shared helpers for writer zyr's bundle builders: histograms, counters, exposition text,
bundle files. Deterministic (seeded); run each case script with no arguments."""
import json
import math
import os
import random


def fmt(v):
    if isinstance(v, float) and (math.isinf(v)):
        return "+Inf"
    return repr(float(v))


def lab(d):
    if not d:
        return ""
    return "{" + ",".join('%s="%s"' % (k, v) for k, v in d.items()) + "}"


class Hist:
    def __init__(self, name, doc, buckets, labels):
        self.name, self.doc, self.buckets, self.labels = name, doc, list(buckets), labels
        self.counts = [0] * len(self.buckets)
        self.inf = 0
        self.sum = 0.0

    def observe(self, v, n=1):
        for i, b in enumerate(self.buckets):
            if v <= b:
                self.counts[i] += n
        self.inf += n
        self.sum += v * n

    def render(self, created):
        out = ["# HELP %s %s" % (self.name, self.doc), "# TYPE %s histogram" % self.name]
        for b, c in zip(self.buckets, self.counts):
            d = dict(self.labels)
            d["le"] = fmt(float(b))
            out.append("%s_bucket%s %s" % (self.name, lab(d), fmt(float(c))))
        d = dict(self.labels)
        d["le"] = "+Inf"
        out.append("%s_bucket%s %s" % (self.name, lab(d), fmt(float(self.inf))))
        out.append("%s_count%s %s" % (self.name, lab(self.labels), fmt(float(self.inf))))
        out.append("%s_sum%s %s" % (self.name, lab(self.labels), fmt(self.sum)))
        if created is not None:
            out.append("# HELP %s_created %s" % (self.name, self.doc))
            out.append("# TYPE %s_created gauge" % self.name)
            out.append("%s_created%s %s" % (self.name, lab(self.labels), fmt(created)))
        return out


def counter_lines(name, doc, series, created=None):
    """series: list of (labels, value). name without _total."""
    out = ["# HELP %s_total %s" % (name, doc), "# TYPE %s_total counter" % name]
    for labels, v in series:
        out.append("%s_total%s %s" % (name, lab(labels), fmt(float(v))))
    if created is not None:
        out.append("# HELP %s_created %s" % (name, doc))
        out.append("# TYPE %s_created gauge" % name)
        for labels, v in series:
            out.append("%s_created%s %s" % (name, lab(labels), fmt(created)))
    return out


def gauge_lines(name, doc, series):
    out = ["# HELP %s %s" % (name, doc), "# TYPE %s gauge" % name]
    for labels, v in series:
        out.append("%s%s %s" % (name, lab(labels), fmt(float(v))))
    return out


def buckets_125(max_value):
    out, e = [], 0
    while True:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if v <= max_value:
                out.append(v)
            else:
                return out
        e += 1


def write_bundle(path, manifest, scrapes, server=None, engine_args=None, model_config=None,
                 gpu=None, logs=None):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    with open(os.path.join(path, "metrics.jsonl"), "w") as f:
        for s in scrapes:
            f.write(json.dumps(s) + "\n")
    for name, obj in (("server.json", server), ("engine_args.json", engine_args),
                      ("model_config.json", model_config)):
        if obj is not None:
            with open(os.path.join(path, name), "w") as f:
                json.dump(obj, f, indent=2)
                f.write("\n")
    if gpu is not None:
        with open(os.path.join(path, "gpu.jsonl"), "w") as f:
            for g in gpu:
                f.write(json.dumps(g) + "\n")
    if logs is not None:
        with open(os.path.join(path, "logs.txt"), "w") as f:
            f.write(logs)


def rng(seed):
    return random.Random(seed)
