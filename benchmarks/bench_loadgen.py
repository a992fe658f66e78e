"""kvdoctor's load generator against vLLM's own serving benchmark, same server, same workload.

    python benchmarks/bench_loadgen.py --endpoint http://127.0.0.1:PORT [--model-dir DIR]
    python benchmarks/bench_loadgen.py --lab        # start the lab's healthy server for the run

Runs ``vllm.benchmarks.serve`` (from the lab's vLLM venv, in a subprocess) and :func:`run_load`
with the same workload (prompts of N tokens, M output tokens with ignore_eos, fixed
concurrency), in alternating order over ``--rounds`` rounds, and prints the medians of:

- output tok/s: kvdoctor / vLLM bench             (target ≥ 0.95)
- client CPU s: kvdoctor / vLLM bench process      (target ≤ 1.0)
- TTFT p50: kvdoctor client / the server's own TTFT histogram over kvdoctor's requests
  (target within 10 %). The server's p50 is interpolated inside a histogram bucket (vLLM's
  buckets around 100-250 ms are 150 ms wide), so the client's TTFTs are put through the same
  buckets and the same interpolation for the like-for-like ratio; the exact client p50 and the
  ratio of means (exact on both sides: histogram sum / count) are printed next to it.

vLLM's TTFT clock (0.32) starts when its renderer takes the request, after the API server has
received and validated it, and stops when the API server processes the first token, before it
is written out; a client's clock runs from before it sends until the token arrives. The gap is
the server's front end, and it grows with concurrency on a small host (measured on the lab:
kernel receive timestamps, SO_TIMESTAMPNS, agree with the client's own clock within 0.6 ms,
so the client is not the gap). So the same ratio is printed for vLLM's benchmark client over
its own requests as the reference, with the per-request time outside the engine, and the
ratio at concurrency 1.

Both clients' requests must cost the server the same: each round prints the share of prompt
tokens served from the prefix cache per client. ``--lab`` starts the server with prefix caching
off because vLLM's "random" prompts share most of their blocks on the lab's tiny vocabulary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

from kvdoctor.reproducers.loadgen import LoadSpec, percentile, run_load
from kvdoctor.reproducers.metrics import Snapshot, scrape

VLLM_PY = os.path.expanduser("~/.cache/kvdoctor/vllm-venv/bin/python")

BENCH_SNIPPET = """
import sys
from vllm.benchmarks.serve import add_cli_args, main
from vllm.utils.argparse_utils import FlexibleArgumentParser
p = FlexibleArgumentParser()
add_cli_args(p)
main(p.parse_args(sys.argv[1:]))
"""


def vllm_bench(
    base: str, model: str, tokenizer: str, n: int, inp: int, out: int, conc: int, result_dir: str
) -> tuple[dict[str, float], float]:
    args = [
        "--backend",
        "openai",
        "--base-url",
        base,
        "--endpoint",
        "/v1/completions",
        "--model",
        model,
        "--tokenizer",
        tokenizer,
        "--dataset-name",
        "random",
        "--random-input-len",
        str(inp),
        "--random-output-len",
        str(out),
        "--num-prompts",
        str(n),
        "--max-concurrency",
        str(conc),
        "--ignore-eos",
        "--disable-tqdm",
        "--save-result",
        "--result-dir",
        result_dir,
        "--result-filename",
        "bench.json",
        "--seed",
        str(int(time.time())),
    ]
    scrape_before = asyncio.run(_scrape(base))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [VLLM_PY, "-c", BENCH_SNIPPET, *args], capture_output=True, text=True, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    scrape_after = asyncio.run(_scrape(base))
    if proc.returncode != 0:
        sys.exit(f"vllm bench failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    data = json.loads(Path(result_dir, "bench.json").read_text())
    data.update(server_side(scrape_before, scrape_after))
    return data, cpu


NAN = float("nan")


def server_side(
    before: Snapshot | None, after: Snapshot | None, client_ttfts: list[float] | None = None
) -> dict[str, float]:
    """What the server's own metrics say about the requests sent between two scrapes: TTFT p50
    and mean, e2e mean, prefix-cache hit share; with ``client_ttfts``, those TTFTs binned and
    interpolated like the server's histogram (the like-for-like p50)."""
    keys = ("server_ttft_p50", "server_ttft_mean", "server_e2e_mean", "prefix_hit_share")
    out = dict.fromkeys((*keys, "ttft_p50_binned"), NAN)
    if before is None or after is None:  # a failed scrape: NaN ratios, not a crash
        return out
    ttft, e2e = after.hist_delta(before, "ttft"), after.hist_delta(before, "e2e")
    hits, queries = after.delta(before, "prefix_hits"), after.delta(before, "prefix_queries")
    if ttft is not None:
        out["server_ttft_p50"] = ttft.quantile(0.5) or NAN
        out["server_ttft_mean"] = ttft.mean or NAN
        if client_ttfts is not None:
            out["ttft_p50_binned"] = ttft.binned(client_ttfts).quantile(0.5) or NAN
    if e2e is not None:
        out["server_e2e_mean"] = e2e.mean or NAN
    out["prefix_hit_share"] = (hits or 0.0) / queries if queries else 0.0
    return out


async def _scrape(base: str) -> Snapshot | None:
    async with httpx.AsyncClient() as http:
        return await scrape(http, base)


async def ours(
    base: str, model: str, n: int, inp: int, out: int, conc: int
) -> tuple[dict[str, float], float]:
    spec = LoadSpec(prompt_tokens=inp, max_tokens=out, concurrency=conc, requests=n, duration_s=900)
    async with httpx.AsyncClient() as http:
        before = await scrape(http, base)
        cpu0 = time.process_time()
        res = await run_load(base, model, spec)
        cpu = time.process_time() - cpu0
        after = await scrape(http, base)
    if res.failed:
        sys.exit(f"kvdoctor run had failures: {res.first_error()}")
    ttfts = res.ttfts()
    return {
        "output_throughput": res.output_tok_per_s,
        "ttft_p50": percentile(ttfts, 0.5) or 0.0,
        "ttft_mean": sum(ttfts) / len(ttfts),
        "e2e_mean": sum(r.e2e_s or 0.0 for r in res.ok_requests()) / max(res.ok, 1),
        **server_side(before, after, ttfts),
    }, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--endpoint")
    ap.add_argument("--model", default="kvdoctor-tiny-llama")
    ap.add_argument("--model-dir", help="tokenizer directory for vllm bench (default: lab model)")
    ap.add_argument("--lab", action="store_true", help="start the lab's healthy server")
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--input", type=int, default=128)
    ap.add_argument("--output", type=int, default=128)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    from kvdoctor.lab.model import ensure_model

    tokenizer = a.model_dir or str(ensure_model(VLLM_PY))
    if a.lab:
        from kvdoctor.lab.server import lab_server

        # Prefix caching off: vllm.benchmarks.serve's "random" prompts are runs of consecutive
        # token ids, and over the lab model's 258-token vocabulary they share most of their
        # blocks (65-69 % of prompt tokens were cache hits, measured), while kvdoctor's prompts
        # are unique by design (0 %). With the cache on, vLLM's bench gets cheaper requests.
        with lab_server("healthy", extra_args=["--no-enable-prefix-caching"]) as handle:
            run(handle.url, a, tokenizer)
    else:
        if not a.endpoint:
            sys.exit("--endpoint URL or --lab")
        run(a.endpoint.rstrip("/"), a, tokenizer)


def median(xs: list[float]) -> float:
    return percentile(xs, 0.5) or NAN


def run(base: str, a: argparse.Namespace, tokenizer: str) -> None:
    w = (a.prompts, a.input, a.output, a.concurrency)
    print(
        f"workload: {a.prompts} prompts, {a.input} in / {a.output} out, concurrency "
        f"{a.concurrency}; {a.rounds} rounds, order alternating (ABBA)"
    )
    # Warm-ups, discarded: a CPU server gets faster over its first runs (kernels, allocator),
    # and whoever went first would pay for it.
    with tempfile.TemporaryDirectory() as tmp:
        vllm_bench(base, a.model, tokenizer, 16, a.input, 16, a.concurrency, tmp)
    asyncio.run(ours(base, a.model, 16, a.input, 16, a.concurrency))
    r: dict[str, list[float]] = defaultdict(list)  # per-round ratios and numbers
    for i in range(a.rounds):
        vllm_first = i % 2 == 0
        if not vllm_first:
            ko, kcpu = asyncio.run(ours(base, a.model, *w))
        with tempfile.TemporaryDirectory() as tmp:
            vb, vcpu = vllm_bench(base, a.model, tokenizer, *w, tmp)
        if vllm_first:
            ko, kcpu = asyncio.run(ours(base, a.model, *w))
        r["tput"].append(ko["output_throughput"] / vb["output_throughput"])
        r["tput_ours"].append(ko["output_throughput"])
        r["tput_vllm"].append(vb["output_throughput"])
        r["cpu"].append(kcpu / vcpu)
        r["p50"].append(ko["ttft_p50"] / ko["server_ttft_p50"])
        r["p50_binned"].append(ko["ttft_p50_binned"] / ko["server_ttft_p50"])
        r["mean"].append(ko["ttft_mean"] / ko["server_ttft_mean"])
        r["ref_p50"].append(vb["median_ttft_ms"] / 1000 / vb["server_ttft_p50"])
        r["ref_mean"].append(vb["mean_ttft_ms"] / 1000 / vb["server_ttft_mean"])
        r["gap"].append(ko["e2e_mean"] - ko["server_e2e_mean"])
        print(
            f"round {i + 1} ({'vllm first' if vllm_first else 'kvdoctor first'}): vllm bench "
            f"{vb['output_throughput']:.1f} tok/s, TTFT p50 {vb['median_ttft_ms']:.1f} ms "
            f"(server {vb['server_ttft_p50'] * 1000:.1f}), CPU {vcpu:.2f} s | kvdoctor "
            f"{ko['output_throughput']:.1f} tok/s, TTFT p50 {ko['ttft_p50'] * 1000:.1f} ms "
            f"(binned {ko['ttft_p50_binned'] * 1000:.1f}, server "
            f"{ko['server_ttft_p50'] * 1000:.1f}; mean {ko['ttft_mean'] * 1000:.1f} vs "
            f"{ko['server_ttft_mean'] * 1000:.1f}), CPU {kcpu:.2f} s | prefix-cache hits: "
            f"vllm bench {vb['prefix_hit_share']:.0%}, kvdoctor {ko['prefix_hit_share']:.0%}"
        )

    print(
        f"output tok/s ratio (kvdoctor / vllm bench): median of rounds {median(r['tput']):.3f}, "
        f"of the round means {sum(r['tput_ours']) / sum(r['tput_vllm']):.3f}  (target >= 0.95)"
    )
    print(f"client CPU ratio (kvdoctor / vllm bench): {median(r['cpu']):.3f}  (target <= 1.0)")
    print(
        f"TTFT p50 ratio (client binned like the server / server histogram): "
        f"{median(r['p50_binned']):.3f}  (target 0.9..1.1)"
    )
    print(f"TTFT p50 ratio (client exact / server histogram): {median(r['p50']):.3f}")
    print(f"TTFT mean ratio (client / server sum/count, both exact): {median(r['mean']):.3f}")
    print(
        f"reference, vLLM bench's client over its own requests: TTFT p50 ratio "
        f"{median(r['ref_p50']):.3f}, mean ratio {median(r['ref_mean']):.3f}"
    )
    print(
        f"time outside the engine per request (client e2e mean - server e2e mean): "
        f"{median(r['gap']) * 1000:.1f} ms"
    )
    # One request at a time: no queue in the server's front end, so what is left between the
    # two clocks is HTTP handling plus the client itself.
    seq, _ = asyncio.run(ours(base, a.model, 16, a.input, 8, 1))
    print(
        f"TTFT at concurrency 1 (16 requests, 8 out): client mean {seq['ttft_mean'] * 1000:.1f} ms"
        f" / server mean {seq['server_ttft_mean'] * 1000:.1f} ms = "
        f"{seq['ttft_mean'] / seq['server_ttft_mean']:.3f}"
    )


if __name__ == "__main__":
    main()
