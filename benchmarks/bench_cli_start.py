"""Cold start of ``kvdoctor --help`` (target: median ≤ 250 ms), against the bare interpreter.

    .venv/bin/python benchmarks/bench_cli_start.py [--runs 15]

Each run is a fresh process (as a user types it). The reference measured in the same run is
``python -c pass`` with the same interpreter, so the ratio shows what kvdoctor itself adds. It
also lists heavy modules (pydantic, httpx, rich, ...) imported by ``--help``: there must be none.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HEAVY = ("pydantic", "httpx", "rich", "jinja2", "yaml", "psutil", "pynvml", "prometheus_client")
TARGET_MS = 250.0


def median_ms(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def heavy_imports() -> list[str]:
    code = (
        "import sys\n"
        "from kvdoctor.cli import cli\n"
        "try:\n    cli.main(['--help'], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        f"print('HEAVY:', *[m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("HEAVY:"))
    return line.split()[1:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    exe = Path(sys.executable).with_name("kvdoctor")
    cmd = [str(exe), "--help"] if exe.exists() else [sys.executable, "-m", "kvdoctor", "--help"]
    if not exe.exists() and shutil.which("kvdoctor"):
        cmd = ["kvdoctor", "--help"]
    median_ms([sys.executable, "-c", "pass"], 2)  # warm the page cache for both
    median_ms(cmd, 2)
    ref = median_ms([sys.executable, "-c", "pass"], args.runs)
    ours = median_ms(cmd, args.runs)
    heavy = heavy_imports()
    print(f"python -c pass: median {ref:.1f} ms over {args.runs} runs")
    print(f"{' '.join(Path(c).name for c in cmd)}: median {ours:.1f} ms over {args.runs} runs")
    print(f"ratio (kvdoctor --help / bare interpreter): {ours / ref:.2f}x")
    print(
        f"budget: {ours:.1f} / {TARGET_MS:.0f} ms = {ours / TARGET_MS:.2f} "
        f"{'PASS' if ours <= TARGET_MS else 'FAIL'}"
    )
    print(f"heavy modules imported by --help: {', '.join(heavy) if heavy else 'none'}")
    return 0 if ours <= TARGET_MS and not heavy else 1


if __name__ == "__main__":
    sys.exit(main())
