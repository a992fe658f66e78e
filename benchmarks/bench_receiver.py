"""``kvdoctor serve`` under an alert storm: webhook → summary at the sink, and its memory.

    .venv/bin/python benchmarks/bench_receiver.py [--replicas 50] [--minutes 30]

Needs ``prometheus`` and ``promtool`` (``bash scripts/install-prometheus.sh``). A synthetic fleet
(``benchmarks/fleetsynth.py``: real recorded lab scrapes, a preemption storm planted on
replica 1) is backfilled into a TSDB and served by a Prometheus on loopback. A real
``kvdoctor serve`` process (default settings: 2 investigations at once) posts its summaries to
a local sink, which records when each one arrives. Measured in the same run:

* reference: one ``kvdoctor diagnose --prometheus`` process over the same window for one
  replica (what an engineer would run by hand), wall time;
* one alert: webhook sent → summary at the sink, printed as a ratio to the reference;
* N replicas alerting at once (N groups posted together): time until the last summary,
  per-summary latency (p50, p95, max), and the serve process's peak resident memory (VmHWM),
  printed as ratios to the reference times N / 2 (two at once) and to the idle process's RSS.

Exit status 0 when every summary arrives and replica 1's names the preemption.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import fleetsynth as fs  # noqa: E402

TOKEN = "bench-token"


class Sink:
    def __init__(self) -> None:
        self.arrived: dict[str, tuple[float, dict[str, Any]]] = {}
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with sink.lock:
                    sink.arrived[body["group"]] = (time.monotonic(), body)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                return

        self.port = fs.free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, groups: set[str], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self.lock:
                if groups <= set(self.arrived):
                    return
            time.sleep(0.05)
        raise SystemExit(f"only {len(set(self.arrived) & groups)} of {len(groups)} summaries")


def kvdoctor() -> list[str]:
    exe = Path(sys.executable).with_name("kvdoctor")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "kvdoctor"]


def memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def webhook(replica: str, starts: float, group: str) -> bytes:
    at = datetime.fromtimestamp(starts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps(
        {
            "version": "4",
            "groupKey": f'{{}}:{{alertname="KvdoctorPreemptionKvCapacity",group="{group}"}}',
            "status": "firing",
            "receiver": "kvdoctor",
            "groupLabels": {"group": group},
            "alerts": [
                {
                    "status": "firing",
                    "labels": {
                        "alertname": "KvdoctorPreemptionKvCapacity",
                        "instance": replica,
                        "job": fs.JOB,
                    },
                    "annotations": {},
                    "startsAt": at,
                    "endsAt": "0001-01-01T00:00:00Z",
                }
            ],
        }
    ).encode()


def post(url: str, data: bytes) -> str:
    r = httpx.post(
        f"{url}/alerts", content=data, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    )
    if r.status_code != 202:
        raise SystemExit(f"webhook refused: {r.status_code} {r.text}")
    return str(r.json()["group"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replicas", type=int, default=50)
    ap.add_argument("--minutes", type=float, default=30.0, help="history in the TSDB")
    args = ap.parse_args()
    end = float(int(time.time() // 60 * 60 - 60))
    fleet = fs.plant_fleet(max(8, args.replicas), end - args.minutes * 60, end, interval_s=30.0)
    starts = end - 60  # the alerts started a minute before the data ends
    lookback = "15m"
    work = Path(tempfile.mkdtemp(prefix="kvdoctor-bench-receiver-"))
    t0 = time.monotonic()
    with fs.fleet_prometheus(fleet, work) as prom:
        print(
            f"fleet of {args.replicas} replicas backfilled and served in "
            f"{time.monotonic() - t0:.0f} s"
        )
        # Reference: the same capture and diagnosis by hand, one replica.
        t = time.monotonic()
        ref = subprocess.run(
            [
                *kvdoctor(),
                "diagnose",
                "--prometheus",
                prom.url,
                "--selector",
                f'{{instance="{fs.replica_name(1)}", job="{fs.JOB}"}}',
                "--since",
                "16m",
                "--until",
                f"{starts + 60:.0f}",
                "--format",
                "json",
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        ref_s = time.monotonic() - t
        if ref.returncode not in (0, 1):
            raise SystemExit(f"reference diagnose failed: {ref.stderr[-500:]}")
        sink = Sink()
        port = fs.free_port()
        url = f"http://127.0.0.1:{port}"
        log = (work / "serve.log").open("wb")
        serve = subprocess.Popen(
            [
                *kvdoctor(),
                "serve",
                "--listen",
                f"127.0.0.1:{port}",
                "--state-dir",
                str(work / "state"),
                "--prometheus",
                prom.url,
                "--lookback",
                lookback,
                "--sink",
                f"webhook=http://127.0.0.1:{sink.port}",
                "--max-queue",
                "1000",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "KVDOCTOR_SERVE_TOKEN": TOKEN},
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if serve.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit((work / "serve.log").read_text()[-2000:])
                time.sleep(0.2)
            idle_kib = memory_kib(serve.pid, "VmRSS")
            # One alert.
            t = time.monotonic()
            g = post(url, webhook(fs.replica_name(1), starts, "single"))
            sink.wait({g}, 300)
            one_s = sink.arrived[g][0] - t
            primary = (sink.arrived[g][1].get("primary") or {}).get("symptom")
            # N replicas at once.
            sent: dict[str, float] = {}
            bodies = [webhook(fs.replica_name(i), starts, f"r{i}") for i in range(args.replicas)]
            t = time.monotonic()
            lock = threading.Lock()

            def send(data: bytes) -> None:
                at = time.monotonic()
                group = post(url, data)
                with lock:
                    sent[group] = at

            threads = [threading.Thread(target=send, args=(b,)) for b in bodies]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            accepted_s = time.monotonic() - t
            sink.wait(set(sent), 3600)
            latencies = sorted(sink.arrived[g][0] - sent[g] for g in sent)
            all_s = max(sink.arrived[g][0] for g in sent) - t
            peak_kib = memory_kib(serve.pid, "VmHWM")
        finally:
            os.killpg(serve.pid, signal.SIGTERM)
            serve.wait(timeout=30)
            log.close()
            sink.server.shutdown()
    n = args.replicas
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(f"reference: kvdoctor diagnose --prometheus, one replica, 16m window: {ref_s:.2f} s")
    print(
        f"one alert, webhook -> summary at the sink: {one_s:.2f} s "
        f"({one_s / ref_s:.2f}x the reference); primary finding: {primary}"
    )
    print(
        f"{n} replicas at once: all {n} webhooks accepted in {accepted_s:.2f} s; "
        f"last summary after {all_s:.1f} s ({all_s / (n * ref_s / 2):.2f}x the reference "
        f"x {n} / 2 at once)"
    )
    print(
        f"  per-summary latency: p50 {statistics.median(latencies):.1f} s, p95 {p95:.1f} s, "
        f"max {latencies[-1]:.1f} s"
    )
    print(
        f"  kvdoctor serve memory: idle {idle_kib / 1024:.0f} MiB, peak {peak_kib / 1024:.0f} MiB "
        f"({peak_kib / max(idle_kib, 1):.2f}x idle)"
    )
    ok = primary == "preemption" and len(latencies) == n
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
