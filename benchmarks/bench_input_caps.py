"""Peak memory of each capped input at its cap and at ten times it, and label-parse scaling.

Issue 25: every input kvdoctor reads has a cap; at the cap a run stays within 512 MiB of peak
RSS, past it the run ends with one line (exit 2) and no more memory. Each case runs in its own
child process (``kvdoctor.cli.main`` on a file written beforehand), so each peak is its own; the
reference is the same child printing ``kvdoctor --help`` (the interpreter and imports alone).

The exposition parser is measured in this process: 320,000 labels in one series against
20,000 (the ratio to a linear 16x is printed, with the absolute time).

Run: ``python benchmarks/bench_input_caps.py`` (about a minute on the 2-core lab host).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kvdoctor import expfmt  # noqa: E402
from kvdoctor.bundle import reader  # noqa: E402
from kvdoctor.fleet import series  # noqa: E402
from kvdoctor.inputs import MAX_CONFIG_BYTES, MAX_SLO_FILE_BYTES  # noqa: E402
from kvdoctor.probes.logs import MAX_LOG_CHARS  # noqa: E402

LIMIT_MIB = 512
# VmHWM, not getrusage: Linux carries ru_maxrss across exec, so a child would report the
# parent's peak from before it started.
CHILD = """
import sys
from kvdoctor.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
with open("/proc/self/status") as fh:
    hwm = next(line.split()[1] for line in fh if line.startswith("VmHWM:"))
sys.stderr.write(f"\\nRSS {hwm}\\n")
sys.exit(code if isinstance(code, int) else 2)
"""


def child(args: list[str], cwd: Path) -> tuple[int, float, str]:
    """Exit code, peak RSS in MiB and the first stderr line of ``kvdoctor ARGS``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    rss_kib = 0
    lines = []
    for line in proc.stderr.splitlines():
        if line.startswith("RSS "):
            rss_kib = int(line.split()[1])
        elif line.strip():
            lines.append(line)
    return proc.returncode, rss_kib / 1024, lines[0] if lines else ""


def tar_bundle(path: Path, extra: dict[str, bytes]) -> Path:
    manifest = json.dumps(
        {
            "schema": "kvdoctor.bundle/1",
            "created_by": "bench",
            "endpoint": "e",
            "started_at": 1.0,
            "ended_at": 2.0,
            "interval_s": 1.0,
        }
    ).encode()
    text = (ROOT / "tests" / "data" / "vllm-0.32" / "metrics-idle.txt").read_text()
    files = {
        "manifest.json": manifest,
        "metrics.jsonl": (json.dumps({"t": 1.0, "status": 200, "text": text}) + "\n").encode(),
    }
    files.update(extra)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"b/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(buf.getvalue(), compresslevel=6))
    return path


def cases(tmp: Path) -> list[tuple[str, int, Callable[[int], list[str]], str]]:
    """(input, cap, args for a given size, what ten times the cap must say in its one line)."""

    def repro(n: int) -> list[str]:
        b = tar_bundle(tmp / f"r{n}.tar.gz", {"reproducers.jsonl": b"{}\n" * n})
        return ["diagnose", "--bundle", str(b), "--format", "json"]

    def scrapes(n: int) -> list[str]:
        b = tar_bundle(tmp / f"s{n}.tar.gz", {"metrics.jsonl": b'{"t":1,"error":"x"}\n' * n})
        return ["diagnose", "--bundle", str(b), "--format", "json"]

    base = tar_bundle(tmp / "base.tar.gz", {})

    def slo_file(n: int) -> list[str]:
        f = tmp / f"slo{n}.yaml"
        f.write_bytes(b"ttft-p95: 800ms\n" + b"#" * (n - 17) + b"\n")
        return ["diagnose", "--bundle", str(base), "--slo-file", str(f), "--format", "json"]

    def model_config(n: int) -> list[str]:
        f = tmp / f"cfg{n}.json"
        f.write_bytes(b'{"num_hidden_layers": 2, "pad": "' + b"x" * (n - 40) + b'"}')
        return ["kv", "--model-config", str(f)]

    def logs(n: int) -> list[str]:
        f = tmp / f"log{n}.txt"
        line = b"INFO 12-01 04:00:00 [engine.py:1] all good\n"
        with f.open("wb") as fh:
            for _ in range(n // len(line)):
                fh.write(line)
        return ["diagnose", "--bundle", str(base), "--logs", str(f), "--format", "json"]

    def label_value(n: int) -> list[str]:
        text = (ROOT / "tests" / "data" / "vllm-0.32" / "metrics-idle.txt").read_text()
        text += 'vllm:num_requests_running{engine="0",model_name="' + "m" * n + '"} 1\n'
        line = json.dumps({"t": 1.0, "status": 200, "text": text}) + "\n"
        b = tar_bundle(tmp / f"lv{n}.tar.gz", {"metrics.jsonl": line.encode() * 3})
        return ["diagnose", "--bundle", str(b), "--format", "json"]

    # The logs are cut, not refused (head and tail kept: docs/bundle.md), so past their cap the
    # run goes on; this bundle has no server.json, so it ends "nothing could be diagnosed".
    return [
        ("reproducers.jsonl lines", reader.MAX_LINES["reproducers.jsonl"], repro, "(cap "),
        ("metrics.jsonl scrapes", reader.MAX_LINES["metrics.jsonl"], scrapes, "(cap "),
        ("--slo-file bytes", MAX_SLO_FILE_BYTES, slo_file, "larger than"),
        ("--model-config bytes", MAX_CONFIG_BYTES, model_config, "larger than"),
        ("--logs characters (cut)", MAX_LOG_CHARS, logs, "nothing could be diagnosed"),
        ("/metrics label value chars", expfmt.MAX_LABEL_VALUE_CHARS, label_value, "label"),
    ]


def prom_label_case() -> list[str]:
    """Prometheus label size, in this process (the cap is checked while parsing the answer)."""
    out = []
    for factor in (1, 10):
        n = series.MAX_LABEL_CHARS * factor - len("pod")
        body = {
            "data": {
                "result": [
                    {"metric": {"__name__": "vllm:x", "pod": "p" * n}, "values": [[1.0, "1"]] * 100}
                ]
                * 2
            }
        }
        before = _hwm()
        try:
            series.parse_matrix(body, "bench")
            result = "read"
        except Exception as exc:
            result = f"refused: {str(exc)[:60]}"
        peak = _hwm()
        out.append(
            f"  Prometheus label chars  x{factor:<3} {n:>12,}  peak {peak:7.1f} MiB "
            f"(+{peak - before:.1f})  {result}"
        )
    return out


def _hwm() -> float:
    with open("/proc/self/status") as fh:
        return int(next(line.split()[1] for line in fh if line.startswith("VmHWM:"))) / 1024


def label_scaling() -> list[str]:
    def best(n: int) -> float:
        text = "vllm:x{" + ",".join(f'l{i}="v{i}"' for i in range(n)) + "} 1\n"
        # CPU time of this process, best of five: the host is shared, wall time is noisy.
        times = []
        for _ in range(5):
            expfmt._KEY_CACHE.clear()
            t = time.process_time()
            expfmt.parse(text)
            times.append(time.process_time() - t)
        return min(times)

    small, big = best(20_000), best(320_000)
    return [
        f"  20,000 labels: {small:.3f} s (reference)",
        f"  320,000 labels: {big:.3f} s  = {big / small:.1f}x the reference for 16x the labels "
        f"({big / (16 * small):.2f} of linear); under 1 s: {'yes' if big < 1 else 'NO'}",
    ]


def main() -> int:
    failed = False
    # First, in this process, before it holds any of the large files below.
    prom = prom_label_case()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _, ref_rss, _ = child(["--help"], tmp)
        print(f"reference: `kvdoctor --help` peak RSS {ref_rss:.1f} MiB\n")
        print(f"{'input':28} {'size':>5} {'value':>12}  {'exit':>4} {'peak':>10} {'x ref':>6}")
        for name, cap, make, says in cases(tmp):
            for factor in (1, 10):
                args = make(cap * factor)
                rc, rss, line = child(args, tmp)
                over = rss > LIMIT_MIB
                refused = rc == 2 and says in line and "Traceback" not in line
                ok = not over and (factor == 1 or refused)
                failed |= not ok
                print(
                    f"{name:28} x{factor:<4} {cap * factor:>12,}  {rc:>4} {rss:7.1f} MiB "
                    f"{rss / ref_rss:6.1f}  {'ok' if ok else 'FAIL'}  {line if rc else ''}"
                )
    print()
    print("\n".join(prom))
    print("\nexposition label parsing (one series):")
    scaling = label_scaling()
    print("\n".join(scaling))
    failed |= "NO" in scaling[-1]
    print(
        f"\n{'FAIL' if failed else 'ok'}: peak at most {LIMIT_MIB} MiB at each cap, a one-line "
        "refusal (exit 2) at ten times it"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
