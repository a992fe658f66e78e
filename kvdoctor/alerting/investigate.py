"""One job of the receiver: investigate a firing alert group, or compare after it resolved.

Everything is written under ``<state dir>/groups/<group fingerprint>/<episode>/`` (the episode
is the unix second the group's first alert started):

* ``replicas.json`` — the replicas the alerts resolved to (fixed at the first attempt, so a
  rerun after a restart and the later compare look at the same ones);
* ``before.bundle/`` — the Prometheus history before ``startsAt`` (a fleet bundle, the same
  capture as ``kvdoctor diagnose --prometheus``; ``kvdoctor diagnose --bundle`` replays it);
* ``live-<replica>.bundle/`` and ``live-<replica>.md`` — the optional short live capture with
  the experiments the configuration allows;
* ``report.md`` / ``report.json`` and ``summary.json`` — the diagnosis and what the sinks got;
* after the resolve: ``after.bundle/``, ``compare.md`` / ``compare.json``,
  ``compare-summary.json``.

A step whose output is on disk is not done again: a job rerun after a restart reads the bundle
it captured (the report is a pure function of it) instead of capturing a different window.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kvdoctor.alerting.config import ServeConfig
from kvdoctor.alerting.payload import Alert, WebhookPayload
from kvdoctor.alerting.resolve import Replica, load_mapping, resolve, selector_for
from kvdoctor.alerting.sinks import CompareResult, PrimaryFinding, Summary
from kvdoctor.errors import KvdoctorError

if TYPE_CHECKING:
    from kvdoctor.fleet.diagnose import FleetDiagnosis
    from kvdoctor.pipeline import Diagnosis
    from kvdoctor.report.model import Report

# The history reaches this far past startsAt when the notification comes later (group_wait).
AFTER_START_S = 60.0


@dataclass
class Outcome:
    summary: Summary | None
    why: str = ""  # when there is no summary: why nothing was investigated
    findings: dict[str, list[tuple[str, str, str, str, str]]] = field(default_factory=dict)


def episode_of(alerts: Sequence[Alert]) -> str:
    return str(int(min(a.starts for a in alerts)))


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "replica"


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _duration(text: str, what: str) -> float:
    from kvdoctor.fleet.promapi import parse_duration

    if text.strip() in ("0", "0s"):
        return 0.0
    return parse_duration(text, what)


def _replica_rows(report: Report) -> list[tuple[str, str, str, str, str]]:
    return [
        (f.id, f.symptom, f.cause, f.severity, f.status)
        for f in report.findings
        if f.status != "refuted"
    ]


def summary_of(
    report: Report,
    *,
    group: str,
    episode: str,
    alertnames: list[str],
    replicas: list[str],
    primary_replica: str | None,
    report_url: str,
    skipped: Sequence[str] = (),
) -> Summary:
    """What the sinks get from a report: verdict, primary finding, change first, the link."""
    from kvdoctor.report.render import change_first

    lead = report.lead()
    primary = None
    if lead is not None and lead.status != "refuted" and lead in report.findings:
        primary = PrimaryFinding(
            id=lead.id,
            cause=lead.cause,
            symptom=lead.symptom,
            status=lead.status,
            severity=lead.severity,
            title=lead.title,
            replica=primary_replica,
        )
    return Summary(
        kind="diagnosis",
        group=group,
        episode=episode,
        alertnames=alertnames,
        replicas=replicas,
        verdict=report.verdict,
        sentence=report.summary,
        primary=primary,
        change_first=report.change_first or change_first(report),
        report_url=report_url,
        skipped=list(skipped),
    )


class Investigator:
    """Runs jobs for the service; every network call is bounded and every error is a line."""

    def __init__(
        self,
        config: ServeConfig,
        *,
        log: Callable[[str], None] = lambda _l: None,
        clock: Callable[[], float] = time.time,
        stop: threading.Event | None = None,
    ) -> None:
        self.config = config
        self.log = log
        self.clock = clock
        self.stop = stop or threading.Event()
        self.mapping = load_mapping(config.mapping) if config.mapping else []

    # --- paths and links -----------------------------------------------------------------

    def episode_dir(self, fingerprint: str, episode: str) -> Path:
        return self.config.state_dir / "groups" / fingerprint / episode

    def report_url(self, fingerprint: str, episode: str, name: str = "report.md") -> str:
        c = self.config
        if c.report_url:
            url = c.report_url.format(fingerprint=fingerprint, episode=episode)
            return url if name == "report.md" else url.rsplit("/", 1)[0] + "/" + name
        if c.public_url:
            return f"{c.public_url.rstrip('/')}/reports/{fingerprint}/{episode}/{name}"
        return str(self.episode_dir(fingerprint, episode) / name)

    # --- Prometheus ------------------------------------------------------------------------

    def _prom_headers(self) -> dict[str, str]:
        env = self.config.prometheus_token_env
        token = os.environ.get(env, "") if env else ""
        return {"Authorization": f"Bearer {token}"} if token else {}

    def _targets(self) -> dict[str, object] | None:
        if not self.config.prometheus:
            return None
        from kvdoctor.fleet.promapi import PromClient

        try:
            with PromClient(self.config.prometheus, headers=self._prom_headers()) as prom:
                return prom.targets().body
        except KvdoctorError as exc:
            self.log(f"target metadata unavailable ({exc}); resolving from mapping and labels")
            return None

    def _capture(
        self, replicas: Sequence[Replica], start: float, end: float, dest: Path
    ) -> FleetDiagnosis:
        from kvdoctor.fleet import diagnose_fleet, diagnose_fleet_bundle
        from kvdoctor.fleet.promapi import format_duration

        if dest.exists():
            return diagnose_fleet_bundle(dest)
        if not self.config.prometheus:
            raise KvdoctorError("no Prometheus configured (--prometheus): nothing to capture")
        return diagnose_fleet(
            self.config.prometheus,
            selector=selector_for(replicas),
            since=format_duration(max(1.0, round(end - start))),
            step=self.config.step,
            headers=self._prom_headers(),
            save_bundle=dest,
            end=end,
        )

    # --- firing: investigate ----------------------------------------------------------------

    def resolve_replicas(
        self, alerts: Sequence[Alert], allowed: Callable[[str], bool]
    ) -> tuple[list[Replica], list[str]]:
        from kvdoctor.alerting.resolve import from_mapping

        targets = None
        if not all(from_mapping(a.labels, self.mapping) for a in alerts):
            targets = self._targets()
        replicas: dict[str, Replica] = {}
        skipped: list[str] = []
        for a in alerts:
            r = resolve(a.labels, self.mapping, targets)
            name = a.labels.get("alertname", "alert")
            if r is None:
                skipped.append(f"{name}: its labels name no replica (pod or instance)")
            elif r.key not in replicas:
                replicas[r.key] = r
        kept: list[Replica] = []
        for key in sorted(replicas):
            if allowed(key):
                kept.append(replicas[key])
            else:
                skipped.append(
                    f"{key}: rate limit ({self.config.rate_limit} per {self.config.rate_window})"
                )
        return kept, skipped

    def firing(
        self,
        fingerprint: str,
        payload: WebhookPayload,
        allowed: Callable[[str], bool],
    ) -> Outcome:
        alerts = payload.firing() or payload.alerts
        episode = episode_of(alerts)
        folder = self.episode_dir(fingerprint, episode)
        saved = folder / "replicas.json"
        skipped: list[str] = []
        if saved.exists():
            replicas = [
                Replica(
                    r["key"], tuple((m[0], m[1]) for m in r["matchers"]), r["endpoint"], r["source"]
                )
                for r in json.loads(saved.read_text(encoding="utf-8"))["replicas"]
            ]
            skipped = list(json.loads(saved.read_text(encoding="utf-8"))["skipped"])
        else:
            replicas, skipped = self.resolve_replicas(alerts, allowed)
            if not replicas:
                return Outcome(None, "; ".join(skipped) or "no replica to investigate")
            write_atomic(
                saved,
                json.dumps(
                    {
                        "replicas": [
                            {
                                "key": r.key,
                                "matchers": r.matchers,
                                "endpoint": r.endpoint,
                                "source": r.source,
                            }
                            for r in replicas
                        ],
                        "skipped": skipped,
                    },
                    indent=2,
                    sort_keys=True,
                )
                + "\n",
            )
        starts = min(a.starts for a in alerts)
        lookback = _duration(self.config.lookback, "lookback")
        end = min(self.clock(), starts + AFTER_START_S)
        fd = self._capture(replicas, starts - lookback, end, folder / "before.bundle")
        self.log(f"group {fingerprint} episode {episode}: captured {len(fd.replicas)} replica(s)")
        skipped += self._live(replicas, alerts, folder)
        return self._diagnosis_outcome(fingerprint, episode, payload, fd, skipped)

    def _live(
        self, replicas: Sequence[Replica], alerts: Sequence[Alert], folder: Path
    ) -> list[str]:
        window = _duration(self.config.live_window, "live_window")
        if window <= 0:
            return []
        from kvdoctor.capture import CaptureOptions
        from kvdoctor.pipeline import diagnose, run_live
        from kvdoctor.report.render import render_markdown

        notes: list[str] = []
        load = any(
            all(a.labels.get(k) == v for k, v in rule.match.items())
            for rule in self.config.allow_load
            for a in alerts
        )
        for r in replicas:
            if r.endpoint is None:
                notes.append(
                    f"{r.key}: no endpoint known (mapping or target metadata): history only"
                )
                continue
            dest = folder / f"live-{slug(r.key)}.bundle"
            try:
                if dest.exists():
                    from kvdoctor.bundle.reader import read_bundle

                    d = diagnose(read_bundle(dest))
                else:
                    opts = CaptureOptions(
                        endpoint=r.endpoint, window_s=window, interval_s=min(2.0, window / 4)
                    )
                    d = run_live(
                        opts,
                        reproduce=self.config.experiments,
                        allow_load=load,
                        save_bundle=dest,
                        echo=self.log,
                    )
                write_atomic(
                    folder / f"live-{slug(r.key)}.md", render_markdown(d.report, d.context)
                )
            except KvdoctorError as exc:
                notes.append(f"{r.key}: live capture failed: {exc}")
        return notes

    def _diagnosis_outcome(
        self,
        fingerprint: str,
        episode: str,
        payload: WebhookPayload,
        fd: FleetDiagnosis,
        skipped: list[str],
    ) -> Outcome:
        from kvdoctor.fleet import render_fleet_markdown
        from kvdoctor.report.render import render_json

        folder = self.episode_dir(fingerprint, episode)
        write_atomic(folder / "report.md", render_fleet_markdown(fd))
        write_atomic(folder / "report.json", render_json(fd.report))
        diagnosed = [r for r in fd.replicas if r.report is not None]
        if len(diagnosed) == 1 and diagnosed[0].report is not None:
            report, where = diagnosed[0].report, [diagnosed[0].key] * 1
        else:
            report = fd.report
            lead = report.lead()
            where = [
                r.key
                for r in diagnosed
                if r.report is not None
                and lead is not None
                and any((f.id, f.cause) == (lead.id, lead.cause) for f in r.report.findings)
            ]
        summary = summary_of(
            report,
            group=fingerprint,
            episode=episode,
            alertnames=payload.alertnames(),
            replicas=[r.key for r in fd.replicas],
            primary_replica=where[0] if where else None,
            report_url=self.report_url(fingerprint, episode),
            skipped=skipped,
        )
        write_atomic(folder / "summary.json", summary.to_json())
        rows = {r.key: _replica_rows(r.report) for r in diagnosed if r.report is not None}
        return Outcome(summary, findings=rows)

    # --- resolved: compare -----------------------------------------------------------------

    def resolved(self, fingerprint: str, episode: str, payload: WebhookPayload) -> Outcome:
        from kvdoctor.compare import compare, render_json, render_markdown
        from kvdoctor.fleet.build import build_fleet
        from kvdoctor.fleet.store import read_fleet_capture
        from kvdoctor.pipeline import diagnose

        folder = self.episode_dir(fingerprint, episode)
        before_path = folder / "before.bundle"
        saved = folder / "replicas.json"
        if not before_path.exists() or not saved.exists():
            return Outcome(None, "the firing alert was not investigated: nothing to compare")
        replicas = [
            Replica(
                r["key"], tuple((m[0], m[1]) for m in r["matchers"]), r["endpoint"], r["source"]
            )
            for r in json.loads(saved.read_text(encoding="utf-8"))["replicas"]
        ]
        ended = [a.ends for a in payload.alerts if a.ends is not None]
        resolved_at = max(ended) if ended else self.clock()
        after_s = _duration(self.config.after_window, "after_window")
        wait_s = _duration(self.config.after_wait, "after_wait")
        after_path = folder / "after.bundle"
        attempt = 0
        while not after_path.exists():
            # The window after the resolve, when the server runs with its fix: wait for it to
            # pass, then take the latest one that holds the replica's data (a server that
            # restarts with its fix has none for a while).
            ready_at = resolved_at + after_s
            while self.clock() < ready_at:
                if self.stop.wait(min(5.0, ready_at - self.clock())):
                    raise KvdoctorError("stopped while waiting for the window after the resolve")
            end = self.clock()
            attempt += 1
            trial = folder / f".after-{attempt}.bundle"
            why = ""
            try:
                fd = self._capture(replicas, end - after_s, end, trial)
                # Only a window the server was up for from start to end: a restart inside it
                # would compare with a server that was down, not with the fix.
                have = {
                    r.key
                    for r in fd.replicas
                    if r.report is not None
                    and r.status == "up"
                    and r.data.health is not None
                    and r.data.health.down_steps == 0
                }
                if have & {r.key for r in replicas}:
                    os.replace(trial, after_path)
                    break
                why = "no replica was up for the whole window after the resolve yet"
            except KvdoctorError as exc:
                why = str(exc)
            if trial.exists():
                import shutil

                shutil.rmtree(trial, ignore_errors=True)
            if end > resolved_at + after_s + wait_s:
                raise KvdoctorError(f"no data after the resolve to compare with: {why}")
            self.log(f"group {fingerprint} episode {episode}: compare waits ({why})")
            if self.stop.wait(10.0):
                raise KvdoctorError("stopped while waiting for data after the resolve")
        from kvdoctor.fleet import diagnose_fleet_bundle

        after_fd = diagnose_fleet_bundle(after_path)
        before = build_fleet(read_fleet_capture(before_path)).replicas
        after = build_fleet(read_fleet_capture(folder / "after.bundle")).replicas
        sections: list[str] = []
        results: list[dict[str, object]] = []
        first: CompareResult | None = None
        verified_all = True
        rows: dict[str, list[tuple[str, str, str, str, str]]] = {}
        for key in sorted(set(before) & set(after)):
            db: Diagnosis = diagnose(before[key].bundle)
            da: Diagnosis = diagnose(after[key].bundle)
            c = compare(db, da)
            rows[key] = _replica_rows(da.report)
            header = f"## Replica {key}\n\n" if len(before) > 1 else ""
            sections.append(
                header + render_markdown(c, "before (alert firing)", "after (alert resolved)")
            )
            results.append({"replica": key, "compare": json.loads(render_json(c))})
            verified_all = verified_all and c.verified
            if first is None or (c.primary is not None and first.primary is None):
                first = CompareResult(
                    verified=c.verified,
                    primary=c.primary,
                    primary_result=c.primary_result,
                    verdict_before=c.verdict_before,
                    verdict_after=c.verdict_after,
                )
        if first is None:
            return Outcome(
                None, f"no replica has data both before and after ({len(after_fd.replicas)} after)"
            )
        first = first.model_copy(update={"verified": verified_all})
        write_atomic(folder / "compare.md", "\n".join(sections))
        write_atomic(folder / "compare.json", json.dumps(results, indent=2) + "\n")
        summary = Summary(
            kind="compare",
            group=fingerprint,
            episode=episode,
            alertnames=payload.alertnames(),
            replicas=sorted(set(before) & set(after)),
            verdict=first.verdict_after,
            compare=first,
            report_url=self.report_url(fingerprint, episode, "compare.md"),
        )
        write_atomic(folder / "compare-summary.json", summary.to_json())
        return Outcome(summary, findings=rows)
