"""``kvdoctor investigate``: the receiver's work once, for a cron job or a one-off.

Three sources of alerts: ``--alertmanager URL`` (what is firing now, from its API),
``--payload FILE`` (a webhook body as Alertmanager posts it), or ``--bundle PATH`` (no alert:
the summary of a bundle already at hand, as the sinks would get it). The state directory is
the receiver's: a group already investigated there is not investigated again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from kvdoctor.commands._alerting_opts import alerting_options, build_config
from kvdoctor.errors import KvdoctorError


def _log(line: str) -> None:
    sys.stderr.write(f"kvdoctor investigate: {line}\n")


def _alertmanager_payloads(url: str, alertname: str | None, headers: dict[str, str]) -> list[bytes]:
    """What fires now, one webhook-shaped body per Alertmanager alert group."""
    import httpx

    from kvdoctor.urlauth import url_credentials

    if not url.startswith(("http://", "https://")):
        raise KvdoctorError("--alertmanager: not an http(s) URL, e.g. http://alertmanager:9093")
    base, sent = url_credentials(url, headers, "--alertmanager")
    api = base.rstrip("/") + "/api/v2/alerts/groups"
    params = {"active": "true", "silenced": "false", "inhibited": "false"}
    try:
        resp = httpx.get(api, params=params, headers=sent, timeout=30.0)
        groups = resp.json()
    except httpx.HTTPError as exc:
        raise KvdoctorError(f"cannot reach Alertmanager at {base}: {type(exc).__name__}") from None
    except ValueError:
        raise KvdoctorError(
            f"Alertmanager at {base} answered HTTP {resp.status_code}, not JSON"
        ) from None
    if resp.status_code != 200 or not isinstance(groups, list):
        raise KvdoctorError(f"Alertmanager at {base} answered HTTP {resp.status_code}")
    bodies: list[bytes] = []
    for g in groups:
        if not isinstance(g, dict) or not isinstance(g.get("alerts"), list):
            continue
        raw_labels = g.get("labels")
        labels: dict[str, Any] = raw_labels if isinstance(raw_labels, dict) else {}
        receiver = (
            g.get("receiver", {}).get("name", "") if isinstance(g.get("receiver"), dict) else ""
        )
        alerts = []
        for a in g["alerts"]:
            if not isinstance(a, dict) or not isinstance(a.get("labels"), dict):
                continue
            if alertname and a["labels"].get("alertname") != alertname:
                continue
            alerts.append(
                {
                    "status": "firing",
                    "labels": a["labels"],
                    "annotations": a.get("annotations") or {},
                    "startsAt": a.get("startsAt"),
                    "endsAt": a.get("endsAt") or "0001-01-01T00:00:00Z",
                    "generatorURL": a.get("generatorURL") or "",
                    "fingerprint": a.get("fingerprint") or "",
                }
            )
        if not alerts:
            continue
        key = json.dumps(sorted(labels.items()), separators=(",", ":"))
        body = {
            "version": "4",
            "groupKey": f"{receiver}:{key}",
            "status": "firing",
            "receiver": receiver,
            "groupLabels": labels,
            "commonLabels": {},
            "commonAnnotations": {},
            "externalURL": base,
            "alerts": alerts,
        }
        bodies.append(json.dumps(body, sort_keys=True).encode("utf-8"))
    return bodies


def _bundle_summary(path: Path, cfg: Any, fmt: str) -> int:
    """The summary of a bundle (single replica or fleet) as the sinks would receive it."""
    from kvdoctor.alerting.investigate import summary_of
    from kvdoctor.alerting.payload import group_fingerprint
    from kvdoctor.alerting.sinks import deliver, payload
    from kvdoctor.fleet import diagnose_fleet_bundle, is_fleet_bundle
    from kvdoctor.report.model import Report

    label = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
    if path.is_dir() and not is_fleet_bundle(path):
        from kvdoctor.replay import find_bundle

        path = find_bundle(path)  # a fixture directory: its bundle
    report: Report
    if is_fleet_bundle(path):
        fd = diagnose_fleet_bundle(path)
        report, replicas = fd.report, [r.key for r in fd.replicas]
    else:
        from kvdoctor.bundle.reader import read_bundle
        from kvdoctor.pipeline import diagnose

        report, replicas = diagnose(read_bundle(path)).report, [label]
    summary = summary_of(
        report,
        group=group_fingerprint(label),
        episode="0",
        alertnames=[],
        replicas=replicas,
        primary_replica=replicas[0] if len(replicas) == 1 else None,
        report_url=label,
    )
    failures = [f"{s.kind}: {why}" for s in cfg.sinks if (why := deliver(s, summary))]
    if fmt == "summary":
        click.echo(summary.to_json(), nl=False)
    else:
        click.echo(json.dumps(payload(fmt, summary), indent=2, sort_keys=True))  # type: ignore[arg-type]
    for f in failures:
        _log(f"sink {f}")
    return 2 if failures else 0


@click.command("investigate")
@alerting_options
@click.option("--alertmanager", default=None, metavar="URL", help="Diagnose what fires there now.")
@click.option("--alertname", default=None, metavar="NAME", help="Only alerts of this name.")
@click.option(
    "--payload",
    "payload_file",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="A webhook body (JSON, version 4) instead: a file, or - for stdin.",
)
@click.option(
    "--bundle",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="No alert: print (and post to --sink) the summary of this bundle.",
)
@click.option(
    "--sink-format",
    "fmt",
    type=click.Choice(["summary", "webhook", "github", "gitlab", "slack"]),
    default="summary",
    show_default=True,
    help="With --bundle: print the summary, or the body a sink of that kind receives.",
)
@click.option(
    "--timeout",
    default="30m",
    show_default=True,
    metavar="DURATION",
    help="Give up waiting for the investigations after this long.",
)
def investigate(
    alertmanager: str | None,
    alertname: str | None,
    payload_file: Path | None,
    bundle: Path | None,
    fmt: str,
    timeout: str,
    **params: Any,
) -> int:
    """Investigate alerts once: what fires in Alertmanager now, or one webhook payload.

    Writes the same group directories as `kvdoctor serve` and posts to the same sinks; prints
    one summary (JSON) per investigated group. Exit 0 when every job finished, 2 otherwise.
    """
    from kvdoctor.alerting.service import Service
    from kvdoctor.alerting.state import State
    from kvdoctor.fleet.promapi import parse_duration

    sources = [s for s in (alertmanager, payload_file, bundle) if s is not None]
    if len(sources) != 1:
        raise KvdoctorError("give one of --alertmanager URL, --payload FILE or --bundle PATH")
    if alertname and not alertmanager:
        raise KvdoctorError("--alertname goes with --alertmanager")
    cfg = build_config(params)
    if bundle is not None:
        return _bundle_summary(bundle, cfg, fmt)
    if fmt != "summary":
        raise KvdoctorError(
            "--sink-format goes with --bundle (the receiver posts each sink its own)"
        )
    if payload_file is not None:
        try:
            raw = sys.stdin.buffer.read() if str(payload_file) == "-" else payload_file.read_bytes()
        except OSError as exc:
            raise KvdoctorError(f"--payload {payload_file}: {exc.strerror or exc}") from None
        bodies = [raw]
    else:
        assert alertmanager is not None
        bodies = _alertmanager_payloads(alertmanager, alertname, {})
        if not bodies:
            _log("nothing fires" + (f" named {alertname}" if alertname else ""))
            return 0
    state = State(cfg.state_dir)
    service = Service(cfg, state, log=_log)
    try:
        jobs: list[int] = []
        for body in bodies:
            code, answer = service.submit(body)
            if code >= 400:
                raise KvdoctorError(f"payload refused: {answer.get('error')}")
            _log(f"group {answer.get('group')}: {answer.get('status')}")
            job_id = answer.get("job")
            if isinstance(job_id, int):
                jobs.append(job_id)
        service.start()
        if not service.wait_idle(parse_duration(timeout, "--timeout")):
            raise KvdoctorError(f"investigations still running after {timeout}")
        ok = True
        for job_id in jobs:
            job = state.job(job_id)
            if job is None:
                continue
            folder = cfg.state_dir / "groups" / job.fingerprint / job.episode
            name = "summary.json" if job.kind == "firing" else "compare-summary.json"
            if job.status == "done" and (folder / name).exists():
                click.echo((folder / name).read_text(encoding="utf-8"), nl=False)
            else:
                ok = ok and job.status in ("done", "skipped")
                _log(f"job {job.id} {job.status}: {job.detail}")
        return 0 if ok else 2
    finally:
        service.stop()
        state.close()
