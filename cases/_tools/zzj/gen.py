"""Writer zzj's bundle builder (kvdoctor.bundle/1), written from scratch.

Each case is a per-second timeline (running / waiting / swapped, KV usage, token rates, finished
requests); gauges are sampled from it at every scrape, counters and histograms are its running
sums, and the V0 stats log lines are printed from the same timeline every 5 s.
V0.2.6 serves gauges only (aioprometheus, model_name label); V0.6.x families/HELP texts follow
vllm/engine/metrics.py of that release (as in cases/s-v0-multistep16-util0941-h100-runtime-oom).
Run: python cases/_tools/zzj/gen.py
"""
from __future__ import annotations
import datetime as dt, json, math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GiB = 1024 ** 3

H026 = [
    ("vllm:avg_prompt_throughput_toks_per_s", "Average prefill throughput in tokens/s.", "ptps5"),
    ("vllm:avg_generation_throughput_toks_per_s", "Average generation throughput in tokens/s.", "gtps5"),
    ("vllm:num_requests_running", "Number of requests that is currently running for inference.", "run"),
    ("vllm:num_requests_swapped", "Number requests swapped to CPU.", "swp"),
    ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", "wait"),
    ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", "gpu"),
    ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", "cpu"),
]
TTFT_LE = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
TPOT_LE = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
E2E_LE = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]


def f(v):
    return repr(float(v))


def hist(out, name, help_, lab, vals, les):
    out += [f"# HELP {name} {help_}", f"# TYPE {name} histogram"]
    vals = sorted(vals)
    for le in les:
        out.append(f'{name}_bucket{{{lab},le="{le}"}} {f(sum(1 for v in vals if v <= le))}')
    out.append(f'{name}_bucket{{{lab},le="+Inf"}} {f(len(vals))}')
    out.append(f"{name}_count{{{lab}}} {f(len(vals))}")
    out.append(f"{name}_sum{{{lab}}} {f(round(sum(vals), 4))}")


def expo(c, s, cum):
    lab = f'model_name="{c["served"]}"'
    out = []
    if c["v026"]:
        for n, h, k in H026:
            out += [f"# HELP {n} {h}", f"# TYPE {n} gauge", f"{n}{{{lab}}} {f(round(s[k], 4))}"]
        return "\n".join(out) + "\n"
    cc = ",".join(f'{k}="{v}"' for k, v in c["cc"].items())
    out += ["# HELP vllm:cache_config_info information of cache_config", "# TYPE vllm:cache_config_info gauge",
            f"vllm:cache_config_info{{{cc}}} 1.0"]
    for n, h, k in [("vllm:num_requests_running", "Number of requests currently running on GPU.", "run"),
                    ("vllm:num_requests_swapped", "Number of requests swapped to CPU.", "swp"),
                    ("vllm:num_requests_waiting", "Number of requests waiting to be processed.", "wait"),
                    ("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", "gpu"),
                    ("vllm:cpu_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.", "cpu")]:
        out += [f"# HELP {n} {h}", f"# TYPE {n} gauge", f"{n}{{{lab}}} {f(round(s[k], 4))}"]
    for n, h, k in [("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", "pre"),
                    ("vllm:prompt_tokens_total", "Number of prefill tokens processed.", "ptok"),
                    ("vllm:generation_tokens_total", "Number of generation tokens processed.", "gtok")]:
        out += [f"# HELP {n} {h}", f"# TYPE {n} counter", f"{n}{{{lab}}} {f(round(cum[k]))}"]
    out += ["# HELP vllm:request_success_total Count of successfully processed requests.",
            "# TYPE vllm:request_success_total counter"]
    for reason in ("stop", "length"):
        out.append(f'vllm:request_success_total{{finished_reason="{reason}",{lab}}} {f(sum(1 for r in cum["done"] if r[3] == reason))}')
    hist(out, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", lab, [r[0] for r in cum["done"]], TTFT_LE)
    hist(out, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.", lab, cum["tpot"], TPOT_LE)
    hist(out, "vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", lab, [r[1] for r in cum["done"]], E2E_LE)
    return "\n".join(out) + "\n"


def stamp(t, fmt="%m-%d %H:%M:%S"):
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime(fmt)


def build(c):
    d = ROOT / "cases" / c["id"] / "bundle"
    d.mkdir(parents=True, exist_ok=True)
    t0, n, iv = c["start"], c["n"], c["interval"]
    dur = int(n * iv)
    cum = {"ptok": 0.0, "gtok": 0.0, "pre": 0, "done": [], "tpot": []}
    rows, logs = [], list(c["startup_logs"])
    for sec in range(dur + 1):
        s = c["state"](sec)
        cum["ptok"] += s["ptps"]; cum["gtok"] += s["gtps"]; cum["pre"] += s.get("pre", 0)
        for r in s.get("done", []):
            cum["done"].append(r); cum["tpot"] += [r[2]] * max(1, int(r[4]) - 1)
        for line in s.get("log", []):
            logs.append(line.format(ts=stamp(t0 + sec)))
        if sec % 5 == 0 and sec > 0:
            logs.append(c["statfmt"].format(ts=stamp(t0 + sec), **s))
        if sec % int(iv) == 0:
            rows.append({"t": t0 + sec, "status": 200, "text": expo(c, s, cum)})
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "manifest.json").write_text(json.dumps({"schema": "kvdoctor.bundle/1", "created_by": "kvdoctor 0.2.0",
        "endpoint": "http://127.0.0.1:8000", "started_at": t0, "ended_at": t0 + dur, "interval_s": iv,
        "notes": c["notes"]}, indent=1) + "\n")
    (d / "server.json").write_text(json.dumps({"version": {"version": c["version"]}, "models": {"object": "list",
        "data": [{"id": c["served"], "object": "model", "owned_by": "vllm", **({} if c["v026"] else {"max_model_len": c["mml"]})}]},
        "health": 200}, indent=1) + "\n")
    (d / "engine_args.json").write_text(json.dumps({"argv": c["argv"], "args": c["args"]}, indent=1) + "\n")
    (d / "model_config.json").write_text(json.dumps(c["model_config"], indent=1) + "\n")
    g = []
    for sec in range(0, dur + 1, int(iv)):
        g.append({"t": t0 + sec, "devices": [{"index": i, "name": c["gpu_name"], "memory_total": c["gpu_total"],
            "memory_used": c["gpu_used"] + 500 * 2**20, "processes": [{"pid": c["pid"] + i, "name": "python3", "used_memory": c["gpu_used"]}]}
            for i in range(c["ngpu"])]})
    (d / "gpu.jsonl").write_text("".join(json.dumps(x) + "\n" for x in g))
    (d / "logs.txt").write_text("\n".join(logs) + "\n")


if __name__ == "__main__":
    import importlib.util, sys
    sys.path.insert(0, str(Path(__file__).parent))
    from cases import CASES
    for c in CASES:
        build(c); print("built", c["id"])
