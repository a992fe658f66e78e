"""Fleets without Prometheus: several endpoints scraped directly, side by side.

``kvdoctor diagnose --endpoint A --endpoint B ...`` captures every replica concurrently over the
same window (the single-endpoint capture, one thread per replica), keeps each replica's own
``kvdoctor.bundle/1`` bundle (server info, engine flags, reproducer records: everything a
single-endpoint run has), and diagnoses them with the fleet code the Prometheus path uses
(:func:`kvdoctor.fleet.diagnose.diagnose_replicas`): the same per-replica table and the same
imbalance / config-drift / stale findings.

Everything after the capture is a pure function of the replica bundles: the fleet view (every
replica's ``vllm:`` series in one exposition per scrape step, engine label = replica/engine) is
rebuilt from them, so a saved fleet bundle replays to the same report byte for byte.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from kvdoctor import __version__
from kvdoctor.bundle.model import BUNDLE_SCHEMA, Bundle, Manifest, PromptSample, Scrape
from kvdoctor.bundle.reader import bundle_from_files
from kvdoctor.bundle.redact import Redactor
from kvdoctor.bundle.writer import bundle_files
from kvdoctor.capture import capture
from kvdoctor.errors import BundleError, KvdoctorError, ProbeError
from kvdoctor.expfmt import ExpositionError, Sample, parse
from kvdoctor.fleet.build import ReplicaData
from kvdoctor.fleet.bundle import ENDPOINTS_FILE, REPLICAS_DIR, fleet_files, write_files
from kvdoctor.fleet.diagnose import FleetDiagnosis, FleetOrigin, diagnose_replicas
from kvdoctor.fleet.series import SeriesData, reconstruct
from kvdoctor.pipeline import run_reproducers
from kvdoctor.probes.engine import endpoint_host_port
from kvdoctor.signals.fleet import STALE_STEPS
from kvdoctor.vllm_metrics import PREFIXES

if TYPE_CHECKING:
    from kvdoctor.capture import CaptureOptions

ENDPOINTS_SCHEMA = "kvdoctor.fleet-endpoints/1"
# One thread and one bundle per replica; beyond this a Prometheus is the tool for the job.
MAX_ENDPOINTS = 64
NO_STEP = "no replica answered /metrics at this step"
_META_RE = re.compile(r"^# (TYPE|HELP) (\S+)(?: (.*))?$")
_REPLICA_PATH = re.compile(rf"^{REPLICAS_DIR}/\d{{1,4}}$")
_MAX_NAME = 200

Named = list[tuple[str, Bundle]]


# --------------------------------------------------------------------------- names


def endpoint_names(urls: Sequence[str], redact: bool) -> list[str]:
    """Replica names: ``host:port`` (plus path) of each URL, or ``replica-<n>`` with --redact.

    Refuses an endpoint given twice: two threads scraping one server would be one replica
    counted twice, and every fleet comparison would be wrong.
    """
    if len(urls) > MAX_ENDPOINTS:
        raise KvdoctorError(
            f"{len(urls)} --endpoint flags: at most {MAX_ENDPOINTS} (for more, use --prometheus)"
        )
    names: list[str] = []
    for i, url in enumerate(urls, 1):
        parts = urlsplit(url)
        # Never the netloc: it holds user:password@ when the URL carries credentials, and a
        # replica's name goes into the report, fleet.json and every series' engine label.
        try:
            host = parts.hostname or ""
            port = parts.port
        except ValueError:
            raise KvdoctorError(f"--endpoint #{i}: not a valid URL (check the port)") from None
        if ":" in host:
            host = f"[{host}]"
        if port is not None:
            host += f":{port}"
        name = f"replica-{i}" if redact else host + parts.path.rstrip("/")
        if name in names:
            raise KvdoctorError(f"--endpoint {name} is given twice")
        names.append(name)
    return names


# --------------------------------------------------------------------------- live capture


def _down_bundle(opts: CaptureOptions, why: str, at: float) -> Bundle:
    """A replica that gave nothing: one failed scrape, so the report names it as down."""
    host, _ = endpoint_host_port(opts.endpoint)
    red = Redactor(secrets=opts.headers.values(), redact=opts.redact, hosts=[host])
    manifest = Manifest.model_validate(
        {
            "schema": BUNDLE_SCHEMA,
            "created_by": f"kvdoctor {__version__}",
            "endpoint": red.url(opts.endpoint),
            "started_at": at,
            "ended_at": at,
            "interval_s": opts.interval_s,
            "notes": opts.notes,
        }
    )
    return Bundle(manifest=manifest, scrapes=[Scrape(t=at, error=red.text(why))])


def capture_endpoints(
    opts_list: Sequence[CaptureOptions],
    *,
    capture_fn: Callable[[CaptureOptions], Bundle] | None = None,
    clock: Callable[[], float] | None = None,
) -> list[Bundle]:
    """Capture every endpoint at the same time (one thread each), in the order given.

    A replica that cannot be reached at all becomes a bundle of one failed scrape instead of
    ending the run: a dead replica is a finding about the fleet, not a usage error. Ctrl-C
    ends every replica's window early and keeps what was captured, as for one endpoint.
    """
    import threading
    import time

    stop = threading.Event()

    def pause(seconds: float) -> None:
        # Ctrl-C reaches only the main thread; the captures see it as an interrupted wait,
        # which the capture loop turns into an early end of its window.
        if stop.wait(max(0.0, seconds)):
            raise KeyboardInterrupt

    run = capture_fn or (lambda o: capture(o, progress=False, sleep=pause))
    now = clock or time.time

    def one(opts: CaptureOptions) -> Bundle:
        try:
            return run(opts)
        except ProbeError as exc:
            return _down_bundle(opts, str(exc), now())

    with ThreadPoolExecutor(max_workers=len(opts_list), thread_name_prefix="capture") as pool:
        futures = [pool.submit(one, opts) for opts in opts_list]
        try:
            return [f.result() for f in futures]
        except KeyboardInterrupt:
            stop.set()
            return [f.result() for f in futures]


def diagnose_endpoints(
    opts_list: Sequence[CaptureOptions],
    names: Sequence[str],
    *,
    reproduce: bool = True,
    allow_load: bool = False,
    reference_endpoint: str | None = None,
    reference_headers: dict[str, str] | None = None,
    save_bundle: str | Path | None = None,
    echo: Callable[[str], None] = lambda _line: None,
    capture_fn: Callable[[CaptureOptions], Bundle] | None = None,
) -> FleetDiagnosis:
    """Capture → per-replica reproducers → (saved fleet bundle) → :func:`diagnose_named`.

    Reproducers run replica by replica, one at a time (each is bounded and guarded on its own;
    running them together would add their load up). With ``save_bundle`` the diagnosis is made
    from the bundle as read back from disk, so ``diagnose --bundle`` on it prints the same bytes.
    """
    import time

    if len(opts_list) != len(names):
        raise KvdoctorError("one name per endpoint")
    window = max(o.window_s for o in opts_list)
    echo(f"kvdoctor: capturing {len(opts_list)} endpoints for {window:g} s")
    bundles = capture_endpoints(opts_list, capture_fn=capture_fn)
    named: Named = []
    for opts, name, bundle in zip(opts_list, names, bundles, strict=True):
        if reproduce and any(s.ok for s in bundle.scrapes):

            def say(line: str, name: str = name) -> None:
                echo(line.replace("kvdoctor: ", f"kvdoctor: [{name}] ", 1))

            records = run_reproducers(
                bundle,
                opts.endpoint,
                opts.headers,
                allow_load=allow_load,
                reference_endpoint=reference_endpoint,
                reference_headers=reference_headers,
                echo=say,
                clock=time.time,
                insecure=opts.insecure,
                redact=opts.redact,
            )
            bundle = bundle.with_reproducers(records)
        named.append((name, bundle))
    if save_bundle is not None:
        write_endpoints_bundle(named, save_bundle)
        named = read_endpoints_bundle(save_bundle)
    return diagnose_named(named)


# --------------------------------------------------------------------------- pure part


def _value_text(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(v)


def _metadata(texts: Sequence[str]) -> dict[str, Any]:
    """TYPE and HELP of the vLLM families, in the shape of Prometheus' /api/v1/metadata."""
    data: dict[str, dict[str, str]] = {}
    for text in texts:
        for line in text.split("\n"):
            if not line.startswith("# "):
                continue
            m = _META_RE.match(line)
            if m is None or not m.group(2).startswith(PREFIXES):
                continue
            entry = data.setdefault(m.group(2), {})
            key = "type" if m.group(1) == "TYPE" else "help"
            entry.setdefault(key, m.group(3) or "")
    return {"status": "success", "data": {k: [v] for k, v in sorted(data.items())}}


def _samples(scrape: Scrape) -> list[Sample] | None:
    if not scrape.ok or scrape.text is None:
        return None
    try:
        return parse(scrape.text, PREFIXES)
    except ExpositionError:
        return None  # the replica's own diagnosis reports the bad scrape


def fleet_view(named: Sequence[tuple[str, Bundle]]) -> Bundle:
    """One bundle with every replica's vLLM series side by side (pure).

    Scrape ``k`` of every replica lands on step ``k`` of one grid (the replicas are scraped
    together, at the same interval, from the same start); the step's time is the earliest of
    those scrapes. The engine label becomes ``<replica>/<engine>``, so the local path
    aggregates the fleet as it aggregates the engines of one data-parallel server.
    """
    # A replica that never answered has no step of its own; its one failed scrape is stamped
    # when its capture gave up, which says nothing about the others' grid.
    answered = [b for _, b in named if any(s.ok for s in b.scrapes)] or [b for _, b in named]
    steps = max((len(b.scrapes) for b in answered), default=0)
    grid: list[float] = []
    for k in range(steps):
        grid.append(round(min(b.scrapes[k].t for b in answered if k < len(b.scrapes)), 3))
    flat: list[SeriesData] = []
    key_of: dict[int, str] = {}
    heads: list[str] = []
    for name, bundle in named:
        index: dict[tuple[str, tuple[tuple[str, str], ...]], SeriesData] = {}
        first_text: str | None = None
        for k, scrape in enumerate(bundle.scrapes[:steps]):
            samples = _samples(scrape)
            if samples is None:
                continue
            if first_text is None and scrape.text is not None:
                first_text = scrape.text
            for s in samples:
                sd = index.get((s.name, s.labels))
                if sd is None:
                    sd = index[(s.name, s.labels)] = SeriesData(s.name, dict(s.labels), [])
                    key_of[len(flat)] = name
                    flat.append(sd)
                sd.points.append((grid[k], _value_text(s.value)))
        if first_text is not None:
            heads.append(first_text)
    texts = reconstruct(flat, _metadata(heads), grid, key_of=key_of) if flat else []
    scrapes = [
        Scrape(t=t, status=200, text=text) if text is not None else Scrape(t=t, error=NO_STEP)
        for t, text in texts
    ]
    configs = {
        json.dumps(b.model_config_raw, sort_keys=True) for _, b in named if b.model_config_raw
    }
    shared_config = None
    if len(configs) == 1:
        # Every replica that has a model config has the same one: the fleet's KV math holds.
        shared_config = next(b.model_config_raw for _, b in named if b.model_config_raw)
    first = [b.manifest for _, b in named]
    manifest = Manifest.model_validate(
        {
            "schema": BUNDLE_SCHEMA,
            "created_by": f"kvdoctor {__version__}",
            "endpoint": f"fleet of {len(named)} endpoints",
            "started_at": grid[0] if grid else min(m.started_at for m in first),
            "ended_at": grid[-1] if grid else max(m.ended_at for m in first),
            "interval_s": max(m.interval_s for m in first),
            "notes": "fleet view: every replica's series side by side, engine label = "
            "replica/engine",
        }
    )
    return Bundle(
        manifest=manifest,
        scrapes=scrapes,
        model_config_raw=shared_config,
        source="endpoints:fleet",
    )


def replica_status(bundle: Bundle) -> str:
    """ "down": no scrape succeeded; "stale": it stopped answering before its window ended."""
    ok = [s.t for s in bundle.scrapes if s.ok]
    if not ok:
        return "down"
    last = bundle.scrapes[-1].t
    return "stale" if last - ok[-1] > STALE_STEPS * bundle.manifest.interval_s + 1e-9 else "up"


def replica_data(name: str, bundle: Bundle) -> ReplicaData:
    ok = [s for s in bundle.scrapes if s.ok]
    names: frozenset[str] = frozenset()
    if ok:
        samples = _samples(ok[-1])
        names = frozenset(s.name for s in samples or [])
    return ReplicaData(
        key=name,
        job="",
        # The source (a path on this machine, or "live") is not part of the diagnosis.
        bundle=bundle.model_copy(update={"source": f"endpoint:{name}"}),
        series=None,
        health=None,
        last_metric_t=ok[-1].t if ok else None,
        metric_names=names,
    )


def diagnose_named(
    named: Sequence[tuple[str, Bundle]], prompt_sample: PromptSample | None = None
) -> FleetDiagnosis:
    """Pure: the fleet diagnosis of replica bundles, in the order given. ``prompt_sample``:
    what the application's prompts share (``--prompts``), read against the fleet's hits: the
    traffic is one, spread over the replicas, so the view of all of them judges it."""
    if not named:
        raise KvdoctorError("no endpoints to diagnose")
    if not any(s.ok for _, b in named for s in b.scrapes):
        why = "; ".join(
            f"{name}: {next((s.error for s in b.scrapes if s.error), 'no scrape')}"
            for name, b in named
        )
        raise KvdoctorError(f"no replica could be diagnosed from the endpoints ({why})")
    view = fleet_view(named)
    if prompt_sample is not None:
        view = view.model_copy(update={"prompt_sample": prompt_sample})
    m = view.manifest
    origin = FleetOrigin("endpoints", "", "", m.started_at, m.ended_at, m.interval_s)
    pairs = [(replica_data(name, b), replica_status(b)) for name, b in named]
    return diagnose_replicas(pairs, view, origin, per_replica_not_checked=True)


# --------------------------------------------------------------------------- on disk


def endpoints_files(named: Sequence[tuple[str, Bundle]]) -> dict[str, bytes]:
    """Relative path → bytes of an endpoints fleet bundle (see :mod:`kvdoctor.fleet.bundle`)."""
    files = {k: v.encode("utf-8") for k, v in bundle_files(fleet_view(named)).items()}
    index = {
        "schema": ENDPOINTS_SCHEMA,
        "replicas": [{"name": n, "path": f"{REPLICAS_DIR}/{i}"} for i, (n, _) in enumerate(named)],
    }
    files[ENDPOINTS_FILE] = (json.dumps(index, indent=2, ensure_ascii=False) + "\n").encode()
    for i, (_, bundle) in enumerate(named):
        for rel, text in bundle_files(bundle).items():
            files[f"{REPLICAS_DIR}/{i}/{rel}"] = text.encode("utf-8")
    return files


def write_endpoints_bundle(named: Sequence[tuple[str, Bundle]], dest: str | Path) -> Path:
    """Write the replicas' bundles and the fleet view atomically (directory or .tar.gz)."""
    mtime = int(max((b.manifest.ended_at for _, b in named), default=0))
    return write_files(endpoints_files(named), dest, mtime)


def _index(files: dict[str, bytes], where: str) -> list[tuple[str, str]]:
    raw = files.get(ENDPOINTS_FILE)
    if raw is None:
        raise BundleError(f"{where}: fleet bundle lacks {ENDPOINTS_FILE}")
    try:
        index = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BundleError(f"{where}: {ENDPOINTS_FILE} is not valid JSON") from None
    if not isinstance(index, dict) or index.get("schema") != ENDPOINTS_SCHEMA:
        raise BundleError(f"{where}: {ENDPOINTS_FILE} is not a {ENDPOINTS_SCHEMA} record")
    entries = index.get("replicas")
    if not isinstance(entries, list) or not entries or len(entries) > MAX_ENDPOINTS:
        raise BundleError(f"{where}: {ENDPOINTS_FILE} must list 1 to {MAX_ENDPOINTS} replicas")
    out: list[tuple[str, str]] = []
    for e in entries:
        name = e.get("name") if isinstance(e, dict) else None
        path = e.get("path") if isinstance(e, dict) else None
        if not isinstance(name, str) or not name.strip() or len(name) > _MAX_NAME:
            raise BundleError(f"{where}: {ENDPOINTS_FILE} has a replica without a usable name")
        if not isinstance(path, str) or not _REPLICA_PATH.match(path):
            # Untrusted input: only replicas/<n>, never a path leaving the bundle.
            raise BundleError(f"{where}: {ENDPOINTS_FILE} replica path {path!r} refused")
        if any(name == n or path == p for n, p in out):
            raise BundleError(f"{where}: {ENDPOINTS_FILE} lists {name!r} or {path!r} twice")
        out.append((name, path))
    return out


def read_endpoints_bundle(path: str | Path) -> Named:
    """The (name, bundle) pairs of an endpoints fleet bundle. Bad content → one-line error."""
    where = Path(path).name
    files = fleet_files(path)
    named: Named = []
    for name, rel in _index(files, where):
        prefix = rel + "/"
        sub = {k[len(prefix) :]: v for k, v in files.items() if k.startswith(prefix)}
        if not sub:
            raise BundleError(f"{where}: replica {name!r} has no bundle at {rel}/")
        try:
            named.append((name, bundle_from_files(sub, f"{where}/{rel}")))
        except BundleError as exc:
            raise BundleError(f"{where}: replica {name!r} ({rel}/): {exc}") from None
    return named


def diagnose_endpoints_bundle(
    path: str | Path, prompt_sample: PromptSample | None = None
) -> FleetDiagnosis:
    """Replay an endpoints fleet bundle offline (``prompt_sample``: see :func:`diagnose_named`)."""
    return diagnose_named(read_endpoints_bundle(path), prompt_sample)
