"""The receiver's work: accept a webhook, deduplicate, queue, run jobs with a cap.

``Service.submit`` is what the HTTP layer calls with a body that passed authentication and the
size limit; it answers (HTTP status, JSON body) and never raises for bad input. Jobs live in
the state file (:mod:`~kvdoctor.alerting.state`), so the queue survives a restart; at most
``max_concurrent`` run at once and at most ``max_queue`` wait (beyond it the webhook gets 503,
which Alertmanager retries later).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from kvdoctor.alerting.config import ServeConfig
from kvdoctor.alerting.investigate import Investigator, Outcome, episode_of
from kvdoctor.alerting.payload import PayloadError, parse_payload
from kvdoctor.alerting.sinks import Summary, deliver
from kvdoctor.alerting.state import Job, State
from kvdoctor.errors import KvdoctorError

# Receiver counters, in /metrics as kvdoctor_receiver_<name>_total.
COUNTERS: dict[str, str] = {
    "webhooks": "Webhook requests received.",
    "accepted": "Notifications that queued a job.",
    "duplicates": "Notifications of a group episode already queued or investigated.",
    "ignored": "Notifications with nothing to do (a resolve of an episode never investigated).",
    "malformed": "Webhooks refused with 400 (the reason is logged).",
    "unauthorized": "Webhooks refused with 401 (missing or wrong bearer token).",
    "oversized": "Webhooks refused with 413 (body above max_body_bytes).",
    "queue_full": "Webhooks refused with 503 (queue at max_queue; Alertmanager retries).",
    "jobs_done": "Jobs finished with a summary.",
    "jobs_skipped": "Jobs with nothing to investigate (rate limit, no replica).",
    "jobs_failed": "Jobs that ended with an error (logged).",
    "deliveries": "Summaries a sink accepted.",
    "delivery_failures": "Summary deliveries that failed after retries.",
}
DELIVERY_ATTEMPTS = 3


class Service:
    def __init__(
        self,
        config: ServeConfig,
        state: State,
        *,
        log: Callable[[str], None] = lambda _l: None,
        investigator: Investigator | None = None,
        deliver_fn: Callable[..., str | None] = deliver,
    ) -> None:
        self.config = config
        self.state = state
        self.log = log
        self.stop_event = threading.Event()
        self.investigator = investigator or Investigator(config, log=log, stop=self.stop_event)
        self.deliver_fn = deliver_fn
        self.counters: Counter[str] = Counter({name: 0 for name in COUNTERS})
        self._lock = threading.Lock()
        self._wake = threading.Condition()
        self._workers: list[threading.Thread] = []
        self.running = 0

    def count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self.counters[name] += n

    # --- intake ----------------------------------------------------------------------------

    def submit(self, body: bytes) -> tuple[int, dict[str, object]]:
        try:
            payload = parse_payload(body)
        except PayloadError as exc:
            self.count("malformed")
            self.log(f"webhook refused (400): {exc}")
            return 400, {"status": "error", "error": str(exc)}
        fp = payload.fingerprint()
        text = body.decode("utf-8")
        if payload.status == "firing":
            # One investigation per episode: while the group's last one is not resolved, a
            # firing notification (a new alert in the group, a critical replacing its
            # warning) is part of it.
            episode: str | None = self.state.open_episode(fp) or episode_of(payload.firing())
            kind = "firing"
        else:
            episode = self.state.episode_for_resolved(fp, max(a.starts for a in payload.alerts))
            kind = "resolved"
        if episode is None:
            self.count("ignored")
            return 200, {
                "status": "ignored",
                "group": fp,
                "why": "resolved before any investigation",
            }
        result = self.state.enqueue(fp, episode, kind, text, self.config.max_queue)  # type: ignore[arg-type]
        if result.outcome == "full":
            self.count("queue_full")
            self.log(f"webhook refused (503): {result.why}")
            return 503, {"status": "busy", "error": result.why}
        if result.outcome == "duplicate":
            self.count("duplicates")
            return 200, {"status": "duplicate", "group": fp, "episode": episode, "job": result.job}
        self.count("accepted")
        self.log(f"group {fp} episode {episode}: {kind} job {result.job} queued")
        with self._wake:
            self._wake.notify()
        return 202, {"status": "queued", "group": fp, "episode": episode, "job": result.job}

    # --- workers ---------------------------------------------------------------------------

    def start(self) -> None:
        n = self.state.requeue_interrupted()
        if n:
            self.log(f"{n} job(s) interrupted by the last stop are queued again")
        for i in range(self.config.max_concurrent):
            t = threading.Thread(target=self._worker, name=f"kvdoctor-job-{i}", daemon=True)
            t.start()
            self._workers.append(t)

    def stop(self, timeout_s: float = 10.0) -> None:
        self.stop_event.set()
        with self._wake:
            self._wake.notify_all()
        for t in self._workers:
            t.join(timeout=timeout_s)

    def _worker(self) -> None:
        while not self.stop_event.is_set():
            job = self.state.claim()
            if job is None:
                with self._wake:
                    self._wake.wait(timeout=1.0)
                continue
            with self._lock:
                self.running += 1
            try:
                self.run_job(job)
            finally:
                with self._lock:
                    self.running -= 1

    def run_job(self, job: Job) -> None:
        """One job to the end: its outcome, the findings gauge, the deliveries, the status."""
        try:
            payload = parse_payload(job.payload.encode("utf-8"))
            if job.kind == "firing":
                outcome = self.investigator.firing(
                    job.fingerprint,
                    payload,
                    lambda key: self.state.replica_allowed(
                        key, job.id, self.config.rate_limit, self._rate_window_s()
                    ),
                )
            else:
                outcome = self.investigator.resolved(job.fingerprint, job.episode, payload)
        except KvdoctorError as exc:
            if self.stop_event.is_set():
                return  # left running: queued again at the next start
            self.count("jobs_failed")
            self.log(f"job {job.id} ({job.kind}, group {job.fingerprint}) failed: {exc}")
            self.state.finish(job.id, "failed", str(exc))
            return
        except Exception as exc:
            self.count("jobs_failed")
            self.log(f"job {job.id} failed unexpectedly: {type(exc).__name__}: {exc}")
            self.state.finish(job.id, "failed", f"{type(exc).__name__}: {exc}")
            return
        self._finish(job, outcome)

    def _finish(self, job: Job, outcome: Outcome) -> None:
        if outcome.summary is None:
            self.count("jobs_skipped")
            self.log(
                f"job {job.id} ({job.kind}, group {job.fingerprint}): nothing done: {outcome.why}"
            )
            self.state.finish(job.id, "skipped", outcome.why)
            return
        for replica, rows in outcome.findings.items():
            self.state.set_findings(replica, rows)
        failures = self.deliver_all(job.id, outcome.summary)
        self.count("jobs_done")
        self.state.finish(job.id, "done", "; ".join(failures))
        self.log(f"job {job.id} ({job.kind}, group {job.fingerprint}): done")

    def deliver_all(self, job_id: int, summary: Summary) -> list[str]:
        failures: list[str] = []
        for sink, name in zip(self.config.sinks, self.config.sink_names(), strict=True):
            if self.state.delivered(job_id, name):
                continue
            why: str | None = "not tried"
            for attempt in range(DELIVERY_ATTEMPTS):
                why = self.deliver_fn(sink, summary)
                if why is None:
                    break
                if self.stop_event.wait(2.0**attempt):
                    break
            if why is None:
                self.state.mark_delivered(job_id, name)
                self.count("deliveries")
            else:
                self.count("delivery_failures")
                self.log(f"sink {name}: delivery failed: {why}")
                failures.append(f"{name}: {why}")
        return failures

    def _rate_window_s(self) -> float:
        from kvdoctor.fleet.promapi import parse_duration

        return parse_duration(self.config.rate_window, "rate_window")

    def wait_idle(self, timeout_s: float, clock: Callable[[], float] = time.monotonic) -> bool:
        """True once no job is queued or running (tests and ``investigate``)."""
        deadline = clock() + timeout_s
        while clock() < deadline:
            counts = self.state.counts()
            with self._lock:
                busy = self.running
            if not counts.get("queued") and not counts.get("running") and not busy:
                return True
            time.sleep(0.05)
        return False

    # --- /metrics --------------------------------------------------------------------------

    def metrics_text(self) -> str:
        lines: list[str] = []
        with self._lock:
            counters = dict(self.counters)
            running = self.running
        for name, help_text in COUNTERS.items():
            metric = f"kvdoctor_receiver_{name}_total"
            lines += [f"# HELP {metric} {help_text}", f"# TYPE {metric} counter"]
            lines.append(f"{metric} {counters.get(name, 0)}")
        counts = self.state.counts()
        lines += [
            "# HELP kvdoctor_receiver_jobs Jobs in the state by status.",
            "# TYPE kvdoctor_receiver_jobs gauge",
        ]
        for status in ("queued", "running", "done", "skipped", "failed"):
            lines.append(f'kvdoctor_receiver_jobs{{status="{status}"}} {counts.get(status, 0)}')
        lines += [
            "# HELP kvdoctor_receiver_running Jobs running in this process now.",
            "# TYPE kvdoctor_receiver_running gauge",
            f"kvdoctor_receiver_running {running}",
            "# HELP kvdoctor_finding What kvdoctor concluded about each replica at its latest "
            "investigation (1 confirmed, 0.5 suspected).",
            "# TYPE kvdoctor_finding gauge",
        ]
        seen: set[tuple[str, str, str, str]] = set()
        for replica, _id, symptom, cause, severity, status in self.state.findings():
            if (replica, symptom, cause, severity) in seen:
                continue
            seen.add((replica, symptom, cause, severity))
            value = "1" if status == "confirmed" else "0.5"
            labels = ",".join(
                f'{k}="{_escape(v)}"'
                for k, v in (
                    ("replica", replica),
                    ("symptom", symptom),
                    ("cause", cause),
                    ("severity", severity),
                )
            )
            lines.append(f"kvdoctor_finding{{{labels}}} {value}")
        return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
