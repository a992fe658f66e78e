"""Fleet diagnosis through a real Prometheus at scale (goal: 50 replicas x 1 h in <= 10 s).

    .venv/bin/python benchmarks/bench_fleet.py [--replicas 10 50 200] [--hours 1 6]

Needs ``prometheus`` and ``promtool`` (``bash scripts/install-prometheus.sh``). One synthetic
fleet of max(--replicas) replicas over max(--hours) hours is built from real recorded lab
scrapes (``benchmarks/fleetsynth.py``: four planted problems on replicas 1, 3, 5, 7), backfilled
into a TSDB with ``promtool tsdb create-blocks-from openmetrics``, and served by a Prometheus on
loopback (a free port above 18000, stopped by PID). Each (N, H) run is one fresh
``kvdoctor diagnose --prometheus URL --selector <first N replicas> --since Hh --format json``
process, timed end to end, with its peak memory and CPU time (``wait4``), and the range queries
and answer bytes it cost as counted by Prometheus itself (``prometheus_http_*`` on /metrics).

The findings are checked: each planted problem must be found on its replica, and no firing
finding may name any other replica. Exit status 0 when every run passes that check and the
50 x 1 h run (when measured) takes at most 10 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import fleetsynth as fs  # noqa: E402

GOAL = (50, 1.0, 10.0)  # replicas, hours, seconds
_REPLICA = re.compile(r"replica-\d{3}:8000")


def selector(n: int) -> str:
    names = "|".join(fs.replica_name(i) for i in range(n))  # no regex metacharacters
    return f'{{job="{fs.JOB}", instance=~"{names}"}}'


def run_diagnose(url: str, n: int, hours: float, end: float, out: Path) -> dict[str, Any]:
    exe = Path(sys.executable).with_name("kvdoctor")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "kvdoctor"]
    cmd = [
        *base,
        "diagnose",
        "--prometheus",
        url,
        "--selector",
        selector(n),
        "--since",
        f"{hours:g}h",
        # The window ends at the fleet's last sample: building the TSDB takes minutes, and
        # every replica would look stale against "now".
        "--until",
        f"{end:.0f}",
        "--format",
        "json",
        "-o",
        str(out),
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"kvdoctor diagnose exited {proc.returncode}: {err.strip()[-500:]}")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,
        "report": json.loads(out.read_text()),
    }


def check_findings(report: dict[str, Any], n: int) -> tuple[bool, list[str]]:
    """Each planted problem on its replica; no firing finding naming another replica."""
    planted = {fs.replica_name(i): what for i, what in fs.PLANTED.items() if i < n}
    lines: list[str] = []
    found: dict[str, set[str]] = {r: set() for r in planted}
    ok = True
    for f in report["findings"]:
        if f["status"] == "refuted":
            continue
        text = " ".join([f["title"], *(str(e.get("value")) for e in f["evidence"])])
        names = sorted(set(_REPLICA.findall(text)))
        label = f"{f['id']}/{f['cause']}"
        stray = [r for r in names if r not in planted]
        if stray or not names:
            ok = False
        for r in names:
            if r in found:
                found[r] |= {f["id"], label}
        mark = "UNEXPECTED " if stray or not names else ""
        lines.append(f"    {mark}{label} ({f['status']}, {f['severity']}): {', '.join(names)}")
    for replica, (what, finding) in planted.items():
        hit = finding in found[replica]
        ok = ok and hit
        lines.append(f"    {'found' if hit else 'MISSED'}: {replica} {what} -> {finding}")
    return ok, lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, nargs="+", default=[10, 50, 200])
    ap.add_argument("--hours", type=float, nargs="+", default=[1.0, 6.0])
    ap.add_argument(
        "--interval", type=float, default=30.0, help="scrape interval of the synthetic fleet (s)"
    )
    ap.add_argument(
        "--workdir",
        type=Path,
        help="keep the TSDB here, and reuse it when it holds the fleet asked for (default: a temp "
        "dir)",
    )
    args = ap.parse_args()
    for tool in ("prometheus", "promtool"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found: bash scripts/install-prometheus.sh")
    n_max, h_max = max(args.replicas), max(args.hours)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="kvdoctor-bench-fleet-"))
    work.mkdir(parents=True, exist_ok=True)
    record = work / "fleet.json"
    wanted = {"replicas": n_max, "hours": h_max, "interval_s": args.interval}
    try:
        built = json.loads(record.read_text()) if record.is_file() else {}
        covers = (
            built.get("interval_s") == args.interval
            and built.get("replicas", 0) >= n_max
            and built.get("hours", 0) >= h_max
        )
        if covers and (work / "tsdb").is_dir():  # a larger fleet holds every smaller one
            end = float(built["end"])
            print(f"synthetic fleet: reusing {work / 'tsdb'} ({json.dumps(built)})")
        else:
            end = float(int(time.time() // 60 * 60 - 60))
            fleet = fs.plant_fleet(n_max, end - h_max * 3600, end, interval_s=args.interval)
            shutil.rmtree(work / "tsdb", ignore_errors=True)
            t0 = time.perf_counter()
            om = work / "fleet.om"
            samples = fs.write_openmetrics(fleet, om)
            size = om.stat().st_size
            t1 = time.perf_counter()
            fs.backfill(om, work / "tsdb")
            om.unlink()
            t2 = time.perf_counter()
            record.write_text(json.dumps({**wanted, "end": end}))
            print(
                f"synthetic fleet: {n_max} replicas x {h_max:g} h at {args.interval:g} s, "
                f"{samples:,} samples ({size / 2**20:.0f} MiB OpenMetrics) written in "
                f"{t1 - t0:.1f} s, backfilled by promtool in {t2 - t1:.1f} s"
            )
        print(
            "planted: "
            + "; ".join(f"{fs.replica_name(i)} {w}" for i, (w, _) in sorted(fs.PLANTED.items()))
        )
        rows: list[tuple[int, float, dict[str, Any], int, float, bool]] = []
        all_ok = True
        goal_s: float | None = None
        with fs.running_prometheus(work / "tsdb", work) as prom:
            for hours in sorted(args.hours):
                for n in sorted(args.replicas):
                    q0, b0, c0 = prom.stats()
                    report = work / f"report-{n}-{hours:g}.json"
                    res = run_diagnose(prom.url, n, hours, end, report)
                    q1, b1, c1 = prom.stats()
                    res["prom_cpu_s"] = c1 - c0
                    ok, lines = check_findings(res["report"], n)
                    all_ok = all_ok and ok
                    rows.append((n, hours, res, q1 - q0, b1 - b0, ok))
                    if (n, hours) == GOAL[:2]:
                        goal_s = res["wall_s"]
                    print(
                        f"N={n} H={hours:g}: {res['wall_s']:.2f} s, findings "
                        f"{'as planted' if ok else 'WRONG'}"
                    )
                    print("\n".join(lines))
        print()
        print(
            f"{'replicas':>8} {'hours':>5} {'time s':>7} {'CPU s':>6} {'+prom CPU':>9} "
            f"{'peak MiB':>8} {'queries':>7} {'MiB fetched':>11} {'s/replica':>9}  findings"
        )
        for n, hours, res, queries, fetched, ok in rows:
            print(
                f"{n:>8} {hours:>5g} {res['wall_s']:>7.2f} {res['cpu_s']:>6.2f} "
                f"{res['prom_cpu_s']:>9.2f} {res['peak_mib']:>8.0f} {queries:>7} "
                f"{fetched / 2**20:>11.1f} {res['wall_s'] / n:>9.3f}  "
                f"{'as planted' if ok else 'WRONG'}"
            )
        print(
            "time: wall clock of the kvdoctor process; CPU s: its CPU time; +prom CPU: what "
            "Prometheus spent answering it; MiB fetched: answer bytes as sent (gzip)"
        )
        print(f"load average during the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        if goal_s is not None:
            verdict = "PASS" if goal_s <= GOAL[2] else "FAIL"
            print(f"goal 50 x 1 h <= {GOAL[2]:.0f} s: {goal_s:.2f} s {verdict}")
        return 0 if all_ok and (goal_s is None or goal_s <= GOAL[2]) else 1
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
