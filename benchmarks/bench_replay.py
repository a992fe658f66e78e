"""Offline replay of a fixture bundle (target: median ≤ 150 ms), against the bare interpreter.

    .venv/bin/python benchmarks/bench_replay.py [--runs 15] [--fixture fixtures/healthy]

Each run is a fresh process, as a user types ``kvdoctor diagnose --bundle F``. The reference
measured in the same run is ``python -c pass`` with the same interpreter, so the ratio shows what
kvdoctor adds on this machine however loaded it is. The first runs warm the page cache and
kvdoctor's own caches (compiled report template, validated playbooks), as any second run on a
user's machine would.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 150.0
ROOT = Path(__file__).resolve().parent.parent
# Modules a replay has no use for (network clients, live probes, YAML once the validated
# playbooks are cached): importing any of them is start-up time spent for nothing.
NOT_FOR_REPLAY = ("httpx", "rich", "psutil", "pynvml", "prometheus_client", "yaml", "asyncio")


def modules_imported(bundle: Path) -> list[str]:
    code = (
        "import sys\n"
        "from kvdoctor.cli import main\n"
        f"sys.argv = ['kvdoctor', 'diagnose', '--bundle', {str(bundle)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"seen = [m for m in {NOT_FOR_REPLAY!r} if m in sys.modules]\n"
        "print('IMPORTED:', *seen, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    line = next(ln for ln in out.stderr.splitlines() if ln.startswith("IMPORTED:"))
    return line.split()[1:]


def _children_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_ms(cmd: list[str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one fresh process. On a shared host the wall time also holds the
    time spent waiting for a core; the CPU time (user + system) is what the process costs."""
    cpu0 = _children_cpu_s()
    t = time.perf_counter()
    # Exit code 1 means "a finding fires", which is what most fixtures are for.
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
    wall = (time.perf_counter() - t) * 1000
    if rc not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {rc}")
    return wall, (_children_cpu_s() - cpu0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument(
        "--fixture",
        action="append",
        help="fixture directory (repeatable; default: every fixture under fixtures/)",
    )
    args = ap.parse_args()
    fixtures = [Path(f) for f in args.fixture] if args.fixture else sorted(
        p.parent for p in (ROOT / "fixtures").glob("*/bundle.tar.gz")
    )
    exe = Path(sys.executable).with_name("kvdoctor")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "kvdoctor"]
    ref_cmd = [sys.executable, "-c", "pass"]
    cmds = {f.name: [*base, "diagnose", "--bundle", str(f / "bundle.tar.gz")] for f in fixtures}
    for cmd in [ref_cmd, *cmds.values()]:  # warm-up: page cache and kvdoctor's caches
        run_ms(cmd)
        run_ms(cmd)
    # Interleave reference and kvdoctor runs so a load spike on a shared host hits both.
    ref: list[tuple[float, float]] = []
    ours: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
    for _ in range(args.runs):
        ref.append(run_ms(ref_cmd))
        for name, cmd in cmds.items():
            ours[name].append(run_ms(cmd))
    ref_wall = statistics.median(w for w, _ in ref)
    ref_cpu = statistics.median(c for _, c in ref)
    print(
        f"python -c pass: median {ref_wall:.1f} ms wall, {ref_cpu:.1f} ms CPU "
        f"over {args.runs} runs (load average {os.getloadavg()[0]:.1f})"
    )
    worst = 0.0
    for name, times in ours.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        worst = max(worst, wall)
        print(
            f"diagnose --bundle {name}: median {wall:.1f} ms wall "
            f"({wall / ref_wall:.1f}x the bare interpreter), {cpu:.1f} ms CPU "
            f"({cpu / max(ref_cpu, 0.1):.1f}x); budget {wall / TARGET_MS:.2f}"
        )
    verdict = "PASS" if worst <= TARGET_MS else "FAIL"
    print(f"worst median wall {worst:.1f} / {TARGET_MS:.0f} ms: {verdict}")
    needless = sorted({m for f in fixtures for m in modules_imported(f / "bundle.tar.gz")})
    print(f"modules a replay does not need, imported: {', '.join(needless) or 'none'}")
    return 0 if worst <= TARGET_MS and not needless else 1


if __name__ == "__main__":
    sys.exit(main())
