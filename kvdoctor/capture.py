"""The live capture: drive every probe over the window and produce a bundle.

Probes never raise; what they cannot collect becomes a ``not_checked`` entry of the manifest.
The one failure that ends a capture is having nothing at all: then :class:`ProbeError` says why
(connection refused, credentials needed, not a vLLM server, ...). Ctrl-C during the window ends
the window early; everything captured so far is kept (and, with a sink, written).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from kvdoctor import __version__
from kvdoctor.bundle.model import (
    BUNDLE_SCHEMA,
    Bundle,
    EngineArgs,
    GpuSample,
    Manifest,
    NotChecked,
    Scrape,
    ServerInfo,
)
from kvdoctor.bundle.redact import Redactor
from kvdoctor.bundle.writer import BundleSink
from kvdoctor.errors import ProbeError
from kvdoctor.probes.engine import endpoint_host_port, probe_engine_args
from kvdoctor.probes.gpu import GpuSampler
from kvdoctor.probes.logs import LogSource
from kvdoctor.probes.model_config import probe_model_config
from kvdoctor.vocab import Routing, Symptom

INTERRUPTED = "capture interrupted (Ctrl-C)"


def was_interrupted(bundle: Bundle) -> bool:
    """Whether the capture of ``bundle`` was ended early by Ctrl-C (recorded in its notes)."""
    return INTERRUPTED in bundle.manifest.notes


class CaptureOptions(BaseModel):
    """What to capture and how (shared by ``record`` and ``diagnose``)."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    endpoint: str
    window_s: float = Field(default=60.0, gt=0, le=24 * 3600)
    interval_s: float = Field(default=2.0, gt=0, le=3600)
    # "Name: value" pairs sent with every request; never written anywhere.
    headers: dict[str, str] = Field(default_factory=dict)
    insecure: bool = False
    model_config_path: str | None = None
    logs: str | None = None  # a file, or "-" for stdin
    engine_args: dict[str, Any] = Field(default_factory=dict)  # user-supplied engine flags
    redact: bool = False
    timeout: float = Field(default=5.0, gt=0, le=600)
    notes: str = ""
    # The symptom the operator was called for (--complaint), kept in the manifest.
    complaint: Symptom | None = None
    # This server's place behind a router (--replicas, --routing), kept in the manifest.
    replicas: int | None = Field(default=None, ge=1, le=100_000)
    routing: Routing | None = None
    # The user's service-level objectives in seconds (kvdoctor.slo), kept in the bundle.
    slo: dict[str, float] = Field(default_factory=dict)

    @field_validator("endpoint")
    @classmethod
    def _endpoint(cls, value: str) -> str:
        value = value.strip()
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("endpoint must be an http:// or https:// URL, e.g. http://host:8000")
        try:
            _ = parts.port
        except ValueError:
            raise ValueError("endpoint has an invalid port") from None
        path = parts.path.rstrip("/")
        if path.endswith("/metrics"):
            path = path[: -len("/metrics")]  # people paste the metrics URL; the root is meant
        return f"{parts.scheme}://{parts.netloc}{path}"


def _progress(enabled: bool, total: int) -> Any:
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        TextColumn("[bold]capturing[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    progress.start()
    progress.add_task("/metrics", total=total)
    return progress


def _fatal_first(scrape: Scrape) -> bool:
    """A first-scrape failure that will not heal by itself within a window."""
    err = (scrape.error or "").lower()
    if scrape.status in (401, 403, 404):
        return True
    return any(
        s in err
        for s in (
            "connection refused",
            "cannot resolve",
            "tls handshake",
            "unsupported url",
            "invalid url",
            "not prometheus exposition",
            "no vllm metrics",
        )
    )


def capture(
    opts: CaptureOptions,
    progress: bool = True,
    sink: Path | None = None,
    *,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    stdin: TextIO | None = None,
) -> Bundle:
    """Capture a bundle from ``opts.endpoint`` (see the module docstring)."""
    from kvdoctor.probes.metrics import MetricsClient
    from kvdoctor.probes.server import ServerProbe

    endpoint = opts.endpoint
    host, _ = endpoint_host_port(endpoint)
    red = Redactor(secrets=opts.headers.values(), redact=opts.redact, hosts=[host])
    endpoint_label = red.url(endpoint)
    not_checked: list[NotChecked] = []
    logs = LogSource(opts.logs, stdin=stdin)

    engine, missing, server_pids = probe_engine_args(endpoint, opts.engine_args)
    not_checked.extend(missing)
    gpu = GpuSampler(server_pids)
    if gpu.not_checked is not None:
        not_checked.append(gpu.not_checked)

    started = clock()
    # Every request ends by the end of the window plus one interval (the last scrape's share),
    # on the real clock: a hanging or dripping server cannot hold a 6 s window for 40 s.
    window_end = time.monotonic() + opts.window_s + opts.interval_s
    manifest = Manifest(
        schema=BUNDLE_SCHEMA,
        created_by=f"kvdoctor {__version__}",
        endpoint=endpoint_label,
        started_at=started,
        ended_at=started,
        interval_s=opts.interval_s,
        notes=opts.notes,
        complaint=opts.complaint,
        replicas=opts.replicas,
        routing=opts.routing,
    )
    writer: BundleSink | None = None
    scrapes: list[Scrape] = []
    gpu_samples: list[GpuSample] = []
    bar = None
    try:
        # Inside the try: a SIGTERM right after the staging directory appears still removes it.
        writer = BundleSink(sink, manifest) if sink is not None else None
        metrics = MetricsClient(endpoint, opts.headers, opts.insecure, opts.timeout, redactor=red)
        # /version, /v1/models and /health beside the window, under their own short deadline:
        # slow answers there cost the metrics window none of its scrapes.
        server_probe = ServerProbe(metrics.open, endpoint, opts.timeout)
        with metrics.open() as client:
            if writer is not None and opts.slo:
                writer.set_slo(opts.slo)
            total = max(1, math.floor(opts.window_s / opts.interval_s + 1e-9)) + 1
            bar = _progress(progress, total)
            interrupted = False
            out_of_time = 0
            try:
                for k in range(total):
                    due = started + k * opts.interval_s
                    wait = due - clock()
                    if wait > 0:
                        sleep(wait)
                    if scrapes and time.monotonic() >= window_end:
                        out_of_time = total - k
                        break
                    scrape = metrics.scrape(client, clock=clock, deadline=window_end)
                    if k == 0 and not scrape.ok and _fatal_first(scrape):
                        raise ProbeError(f"nothing collected from {endpoint_label}: {scrape.error}")
                    scrapes.append(scrape)
                    if writer is not None:
                        writer.add_scrape(scrape)
                    sample = gpu.sample(scrape.t)
                    if sample is not None:
                        sample = GpuSample.model_validate(red.data(sample.model_dump()))
                        gpu_samples.append(sample)
                        if writer is not None:
                            writer.add_gpu(sample)
                    if bar is not None:
                        bar.advance(bar.task_ids[0])
            except KeyboardInterrupt:
                interrupted = True
            if bar is not None:
                bar.stop()
                bar = None
        raw_server, missing = server_probe.result()
        not_checked.extend(missing)
        # The served model's config is found from what the server and the process said, as
        # they said it; --redact and the secrets apply to what is written, not to discovery.
        cfg_source: list[str] = []
        model_cfg, nc = probe_model_config(
            opts.model_config_path,
            raw_server,
            engine,
            server_local=bool(server_pids),
            source=cfg_source,
        )
        if nc is not None:
            # It may name the path or model the server gave: written as redaction leaves it.
            not_checked.append(NotChecked(what=nc.what, why=red.text(nc.why)))
        server = (
            None
            if raw_server is None
            else ServerInfo.model_validate(red.data(raw_server.model_dump()))
        )
        engine = (
            None if engine is None else EngineArgs.model_validate(red.data(engine.model_dump()))
        )
        if writer is not None:
            if server is not None:
                writer.set_server(server)
            if engine is not None:
                writer.set_engine_args(engine)
            if model_cfg is not None:
                writer.set_model_config(red.data(model_cfg))
        if gpu.why_not is not None and gpu.not_checked not in not_checked:
            not_checked.append(gpu.not_checked)  # type: ignore[arg-type]
        log_text, nc = logs.collect()
        if nc is not None:
            not_checked.append(nc)
        if log_text is not None:
            log_text = red.text(log_text)
            if writer is not None:
                writer.set_logs(log_text)

        if not any(s.ok for s in scrapes):
            first = next((s.error for s in scrapes if s.error), "no scrape completed")
            raise ProbeError(f"nothing collected from {endpoint_label}: {first}")
        notes = opts.notes
        if cfg_source:
            note = red.text(
                f"model config read from {cfg_source[0]}, the model the server names "
                "(no --model-config given)"
            )
            notes = f"{notes}; {note}" if notes else note
        if interrupted:
            note = f"{INTERRUPTED} after {len(scrapes)} of {total} scrapes"
            notes = f"{notes}; {note}" if notes else note
        if out_of_time:
            note = (
                f"the window ended with {out_of_time} of {total} scrapes not taken "
                "(the server answered slowly)"
            )
            notes = f"{notes}; {note}" if notes else note
        manifest = manifest.model_copy(
            update={
                "ended_at": scrapes[-1].t,
                "notes": notes,
                "not_checked": sorted(not_checked, key=lambda n: (n.what, n.why)),
            }
        )
        bundle = Bundle(
            manifest=manifest,
            scrapes=scrapes,
            server=server,
            engine_args=engine,
            model_config_raw=None if model_cfg is None else red.data(model_cfg),
            gpu=gpu_samples if gpu.nvml is not None and gpu_samples else None,
            logs=log_text,
            reproducers=None,
            slo=dict(opts.slo) or None,
            source="live",
        )
        if writer is not None:
            writer.finalize(manifest)
            writer = None
        return bundle
    finally:
        if bar is not None:
            bar.stop()
        gpu.close()
        if writer is not None:
            writer.abort()
