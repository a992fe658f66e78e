"""The pipeline: bundle → signals → findings (with reproducer records) → report.

``diagnose_bundle`` is a pure function of the bundle: a live run and a replay of its saved
bundle give the same report byte for byte. The live flow (``run_live``) only adds what happens
before: capture, preliminary findings, the planned reproducers, their records appended to the
bundle, and then the very same ``diagnose_bundle``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from kvdoctor.bundle.model import (
    ENGINE_ARGS,
    GPU,
    LOGS,
    MODEL_CONFIG,
    SERVER,
    Bundle,
    NotChecked,
    PromptSample,
    ReproducerRecord,
)
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.errors import KvdoctorError
from kvdoctor.experiment_catalog import why_not_run
from kvdoctor.kvmath import kv_section
from kvdoctor.kvmath.section import KvSection
from kvdoctor.observations import Observations, observe
from kvdoctor.remediation import EngineConfig, engine_config, plan, remediate
from kvdoctor.remediation.planner import FindingPlan
from kvdoctor.report.bounds import RATIOS_OF_PERCENTILES, Bound, percentile_bounds, ratio_range
from kvdoctor.report.context import RenderContext, SignalInfo
from kvdoctor.report.model import Evidence, Finding, LatencyBound, Report, Scalar
from kvdoctor.report.sentences import change_first, summary_sentence
from kvdoctor.reproducers.host import cpu_share_warning
from kvdoctor.requestlog import RawPrompt
from kvdoctor.rules.evaluate import evaluate, triage
from kvdoctor.rules.experiments import experiment_of, plan_for
from kvdoctor.rules.load import load_playbooks
from kvdoctor.rules.predicates import DERIVED, SignalView
from kvdoctor.rules.runtime import Playbook
from kvdoctor.rules.verdict import healthy_evidence, overall_verdict, verdict_facts
from kvdoctor.signals import v1_extra
from kvdoctor.signals.catalog import SIGNALS
from kvdoctor.signals.compute import compute_signals
from kvdoctor.signals.locker import blocks_override
from kvdoctor.signals.metrics import LATENCY_HISTOGRAMS
from kvdoctor.signals.model import SignalSet

# Optional bundle files and what their absence leaves unchecked (docs/bundle.md: absence is
# "not checked", never an error). The keywords find an entry the capture already wrote.
_OPTIONAL_FILES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    (
        SERVER,
        "server info",
        "no server.json in the bundle (/version, /v1/models, /health)",
        ("server", "version", "/v1/models", "health"),
    ),
    (
        ENGINE_ARGS,
        "engine arguments",
        "no engine_args.json in the bundle",
        ("engine", "argv", "flags"),
    ),
    (
        MODEL_CONFIG,
        "model config (KV bytes per token)",
        "no model_config.json in the bundle; pass --model-config",
        ("model config", "config.json", "model_config"),
    ),
    (GPU, "GPU memory", "no gpu.jsonl in the bundle", ("gpu", "nvml")),
    (LOGS, "server logs", "no logs.txt in the bundle; pass --logs FILE or --logs -", ("log",)),
)

# Signals whose absence changes what the report can claim, grouped by what they measure. Each
# group is reported once, with the reason of its first null signal, unless the file it comes
# from is absent (already reported above).
_IMPORTANT_SIGNALS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("KV cache usage", ("kv_usage_max",), None),
    ("preemptions", ("preemptions_window",), None),
    ("KV pool size (block size, number of blocks)", ("block_size", "num_gpu_blocks"), None),
    ("prefix cache hit rate", ("prefix_hit_rate_window",), None),
    ("queue time percentiles", ("queue_time_p50",), None),
    ("TTFT percentiles", ("ttft_p50",), None),
    ("inter-token latency percentiles", ("itl_p50",), None),
    ("KV bytes per token", ("kv_bytes_per_token",), MODEL_CONFIG),
    ("GPU memory use", ("gpu_memory_used_bytes",), GPU),
)


class Diagnosis(NamedTuple):
    """A report plus what its Markdown rendering needs besides the JSON contract."""

    report: Report
    context: RenderContext
    signals: SignalSet


# --------------------------------------------------------------------------- pure part


# Printed on stderr before each reproducer of a live run: a harness that drives load beside
# a `diagnose` subprocess (the lab) watches for it to stop its load first.
REPRODUCER_ANNOUNCE = "kvdoctor: reproducer"


def reproducer_records(bundle: Bundle) -> tuple[list[ReproducerRecord], list[NotChecked]]:
    """The bundle's reproducer records, and why any line of ``reproducers.jsonl`` is not used
    (the reader kept such lines aside: skipped and reported, not fatal)."""
    return list(bundle.reproducers or []), [u.problem for u in bundle.unread_reproducers]


def _finite(value: Scalar) -> Scalar:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _first_failure(bundle: Bundle) -> str:
    for scrape in bundle.scrapes:
        if scrape.error:
            return scrape.error
        if scrape.status not in (None, 200):
            return f"HTTP {scrape.status}"
    return "no scrape in the bundle"


def _covered(entries: Sequence[NotChecked], keywords: Iterable[str]) -> bool:
    texts = [f"{e.what} {e.why}".lower() for e in entries]
    return any(k in t for k in keywords for t in texts)


def _file_present(bundle: Bundle, name: str) -> bool:
    present = {
        SERVER: bundle.server is not None,
        ENGINE_ARGS: bundle.engine_args is not None,
        MODEL_CONFIG: bundle.model_config_raw is not None,
        GPU: bool(bundle.gpu),
        LOGS: bundle.logs is not None,
    }
    return present.get(name, True)


def not_checked_for(
    bundle: Bundle,
    signals: SignalSet,
    findings: Sequence[Finding],
    extra: Sequence[NotChecked] = (),
    reproducer_of: Callable[[Finding], tuple[str, str] | None] | None = None,
    recorded: frozenset[str] = frozenset(),
) -> list[NotChecked]:
    """What could not be checked, and why, in a stable order without duplicates.

    Order: what the capture recorded, absent optional files, signals that matter and are null,
    reproducers that did not run for a firing finding, then ``extra`` (pipeline problems).
    """
    out: list[NotChecked] = list(bundle.manifest.not_checked)
    for what, why, counts in (
        (
            "impossible metric values",
            "left out as invalid data (NaN or infinite, negative, usage above 100 % or "
            "absurdly large)",
            signals.impossible,
        ),
        (
            "repeated metric series",
            "a scrape wrote the same series more than once (a malformed exposition; the first "
            "value of each was kept)",
            signals.repeated,
        ),
        (
            "counters that decreased without a restart",
            "left out: one series dropped while the other counters kept counting (a malformed "
            "exposition; a restart drops them all)",
            signals.decreased,
        ),
    ):
        if counts:
            listed = ", ".join(f"{name} ({n}×)" for name, n in counts.items())
            out.append(NotChecked(what=what, why=f"{why}: {listed}"))
    for name, what, why, keywords in _OPTIONAL_FILES:
        if not _file_present(bundle, name) and not _covered(bundle.manifest.not_checked, keywords):
            out.append(NotChecked(what=what, why=why))
    for what, names, source_file in _IMPORTANT_SIGNALS:
        if source_file is not None and not _file_present(bundle, source_file):
            continue
        for name in names:
            sv = signals.values.get(name)
            if sv is not None and sv.value is None:
                out.append(NotChecked(what=what, why=sv.reason or "not available"))
                break
    # A prompt sample was given but its shares could not be set against the hit rate (its
    # prompts are not the lengths the server prefilled, or the block size is unknown).
    shared = signals.values.get("prompt_shareable_fraction")
    sampled = signals.get("prompt_sample_prompts") is not None
    if sampled and shared is not None and shared.value is None:
        out.append(
            NotChecked(
                what="the prompt sample's shares against the prefix hit rate",
                why=shared.reason or "not available",
            )
        )
    if reproducer_of is not None:
        for finding in findings:
            if finding.status == "refuted" or finding.reproducer is not None:
                continue
            planned = reproducer_of(finding)
            # A symptom no cause explains has no outcome of its own; the experiment that ran for
            # its causes (and ruled them out) is in the bundle, so nothing is missing.
            if planned is not None and not (
                finding.cause == "unidentified" and planned[0] in recorded
            ):
                name, why = planned
                out.append(
                    NotChecked(
                        what=f"reproducer {name} for {finding.symptom}/{finding.cause}", why=why
                    )
                )
    out.extend(NotChecked(what=w, why=y) for w, y in v1_extra.not_checked(signals, bundle))
    out.extend(extra)
    seen: set[tuple[str, str]] = set()
    unique: list[NotChecked] = []
    for entry in out:
        key = (entry.what, entry.why)
        if key not in seen:
            seen.add(key)
            unique.append(entry)
    return unique


def _int_or_none(value: Scalar) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return int(value)


def _num_or_none(value: Scalar) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


_TP_LOG = re.compile(r"\btensor_parallel_size=(\d+)")


def tensor_parallel_of(bundle: Bundle) -> int | None:
    """The tensor-parallel size the server ran with: its flag, else the engine config line of
    its start-up log (vLLM prints ``tensor_parallel_size=N`` in both V0 and V1)."""
    args = bundle.engine_args.args if bundle.engine_args else {}
    for key in ("tensor-parallel-size", "tensor_parallel_size", "tp"):
        value = args.get(key)
        if isinstance(value, int | str) and not isinstance(value, bool) and str(value).isdigit():
            return int(value)
    found = _TP_LOG.findall(bundle.logs or "")
    return int(found[-1]) if found else None


def kv_for(bundle: Bundle, signals: SignalSet) -> KvSection:
    """The report's ``kv`` object: the locker math for this model and this server, per GPU
    under tensor parallelism (vLLM's pool and blocks are per GPU)."""
    prompt = _num_or_none(signals.get("mean_prompt_len"))
    output = _num_or_none(signals.get("mean_generation_len"))
    mean_sequence = prompt + output if prompt is not None and output is not None else None
    dtype = signals.get("cache_dtype")
    return kv_section(
        bundle.model_config_raw,
        dtype if isinstance(dtype, str) else None,
        _int_or_none(signals.get("block_size")),
        _int_or_none(signals.get("num_gpu_blocks")),
        _int_or_none(signals.get("kv_cache_memory_bytes")),
        _num_or_none(signals.get("kv_demand_tokens")),
        mean_sequence_tokens=mean_sequence,
        reported_capacity_tokens=_int_or_none(signals.get("kv_capacity_tokens")),
        log_capacity_tokens=_int_or_none(signals.get("log_kv_cache_tokens")),
        num_gpu_blocks_override=blocks_override(bundle),
        tensor_parallel_size=tensor_parallel_of(bundle),
        held_share=_num_or_none(signals.get("kv_held_share")),
    )


def _latency_buckets(obs: Observations) -> dict[str, list[tuple[float, float]]]:
    """The window's latency histograms, for a report that prints bucket bounds, not guesses."""
    out: dict[str, list[tuple[float, float]]] = {}
    for short, base in LATENCY_HISTOGRAMS.items():
        hist = obs.histogram_window(base)
        if hist is not None and hist[0] and hist[0][-1][1] > 0:
            out[short] = [(float(le), float(c)) for le, c in hist[0]]
    return out


def latency_bounds(obs: Observations, signals: SignalSet) -> dict[str, Bound]:
    """``{"ttft_p95": Bound, ...}``: what the window's histograms support for each percentile
    (bucket range, tightened by the exact mean and, for queue and prefill, by TTFT)."""
    buckets = _latency_buckets(obs)
    means: dict[str, float | None] = {}
    for name in buckets:
        mean = signals.get(f"{name}_mean") if f"{name}_mean" in SIGNALS else None
        means[name] = (
            float(mean) if isinstance(mean, int | float) and not isinstance(mean, bool) else None
        )
    return {
        f"{h}_{q}": b
        for h, per_q in percentile_bounds(buckets, means).items()
        for q, b in per_q.items()
    }


def _ratio_ranges(signals: SignalSet, bounds: Mapping[str, Bound]) -> dict[str, str]:
    """Ratios over an interpolated percentile as the buckets support them ("between 126× and
    253×"), for the sentences that state them."""
    view = SignalView(signals)
    out: dict[str, str] = {}
    for name, (top, bottom) in RATIOS_OF_PERCENTILES.items():
        if view.value(name) is None:
            continue
        text = ratio_range(bounds.get(top, view.num(top)), bounds.get(bottom, view.num(bottom)))
        if text is not None:
            out[name] = text
    return out


def _context(
    bundle: Bundle,
    obs: Observations,
    signals: SignalSet,
    records: list[ReproducerRecord],
    healthy: list[Evidence],
) -> RenderContext:
    m = bundle.manifest
    engine = bundle.engine_args
    return RenderContext(
        source=bundle.source,
        endpoint=m.endpoint,
        created_by=m.created_by,
        started_at=m.started_at,
        ended_at=m.ended_at,
        interval_s=m.interval_s,
        notes=m.notes,
        scrapes_total=len(bundle.scrapes),
        engine_args=dict(engine.args) if engine else {},
        argv=list(engine.argv) if engine and engine.argv is not None else None,
        series={
            name: [(float(t), float(v)) for t, v in samples]
            for name, samples in sorted(signals.series.items())
        },
        latency_buckets=_latency_buckets(obs),
        signal_info={
            name: SignalInfo(provenance=sv.provenance, reason=sv.reason)
            for name, sv in sorted(signals.values.items())
        },
        derived_units={name: d.unit for name, d in sorted(DERIVED.items())},
        reproducers=list(records),
        healthy_evidence=list(healthy),
    )


def _reproducer_lookup(
    playbooks: Sequence[Playbook],
) -> Callable[[Finding], tuple[str, str] | None]:
    # The playbooks name the experiment of each cause and of each symptom no cause explains
    # (kvdoctor.rules.experiments.experiment_of, the one map); here with why it did not run.
    experiment = experiment_of(playbooks)

    def lookup(finding: Finding) -> tuple[str, str] | None:
        name = experiment(finding)
        return None if name is None else (name, why_not_run(name))

    return lookup


def diagnose(bundle: Bundle) -> Diagnosis:
    """The whole offline diagnosis of ``bundle`` (pure: same bundle, same result)."""
    # A server that refused to start has no metrics but its log still names the cause
    # (e.g. "No available memory for the cache blocks"): diagnose what is there.
    if not any(s.ok for s in bundle.scrapes) and not bundle.logs and not bundle.gpu:
        raise KvdoctorError(
            f"nothing to diagnose: none of the {len(bundle.scrapes)} scrapes in the bundle "
            f"succeeded ({_first_failure(bundle)})"
        )
    # Parsed once: the signals and the report's latency histograms read the same observations.
    obs = observe(bundle)
    signals = compute_signals(bundle, obs)
    # Latency percentiles are interpolated inside a histogram bucket: every sentence states the
    # bucket range instead (the playbooks' placeholders print it), and the JSON carries it.
    bounds = latency_bounds(obs, signals)
    signals.shown = {name: b.text() for name, b in bounds.items()}
    signals.shown.update(_ratio_ranges(signals, bounds))
    records, record_problems = reproducer_records(bundle)
    playbooks = load_playbooks()
    # Only the records that passed validation: one bad line is reported as "not checked"
    # instead of ending the diagnosis.
    triaged = triage(signals, records, playbooks)
    kv = kv_for(bundle, signals)
    # Advice for the server in front of us: flag edits from its own configuration, valid for
    # its vLLM, each with a predicted effect (kvdoctor/remediation). Findings and notes are
    # planned together, so a note never advises against a finding's change.
    # The playbooks loaded above: loading them again (cache key, unpickling) cost ~4 ms a replay.
    planned = remediate([*triaged.findings, *triaged.notes], bundle, signals, kv, playbooks)
    findings, notes = planned[: len(triaged.findings)], planned[len(triaged.findings) :]
    verdict = overall_verdict(findings, signals, triaged.undecided)
    healthy = list(healthy_evidence(signals)) if verdict == "healthy" else []
    not_checked = not_checked_for(
        bundle,
        signals,
        [*findings, *notes],
        extra=record_problems,
        reproducer_of=_reproducer_lookup(playbooks),
        recorded=frozenset(r.name for r in records),
    )
    report = Report(
        verdict=verdict,
        findings=findings,
        notes=notes,
        undecided=triaged.undecided,
        signals={name: _finite(value) for name, value in signals.flat().items()},
        kv=kv,
        not_checked=not_checked,
        latency={name: LatencyBound.model_validate(b.as_json()) for name, b in bounds.items()},
        facts=verdict_facts(signals.flat(), findings),
    )
    context = _context(bundle, obs, signals, records, healthy)
    # The verdict sentence and the change to make first, word for word as the Markdown states
    # them (report/1.1): a ticket bot reading the JSON quotes the same text a human reads.

    report = report.model_copy(
        update={
            "summary": summary_sentence(report, context),
            "change_first": change_first(report),
        }
    )
    return Diagnosis(report, context, signals)


def diagnose_bundle(bundle: Bundle) -> Report:
    """The ``kvdoctor.report/1`` object for ``bundle`` (pure)."""
    return diagnose(bundle).report


# --------------------------------------------------------------------------- live flow


def _not_run_record(name: str, why: str, at: float) -> ReproducerRecord:
    # A reproducer that could not run still leaves a record, so the saved bundle (and any replay
    # of it) says what was attempted and why it proved nothing.
    return ReproducerRecord(
        name=name,
        verdict="inconclusive",
        summary=f"did not run: {why}",
        started_at=at,
        ended_at=at,
        requests_sent=0,
        aborted=why,
    )


def run_reproducers(
    bundle: Bundle,
    endpoint: str,
    headers: dict[str, str],
    *,
    allow_load: bool,
    reference_endpoint: str | None,
    echo: Callable[[str], None],
    clock: Callable[[], float],
    insecure: bool = False,
    reference_headers: dict[str, str] | None = None,
    redact: bool = False,
    prompts: Sequence[RawPrompt] | None = None,
) -> list[ReproducerRecord]:
    """Preliminary findings from the capture, then the experiments that test them.

    ``headers`` go to the target only and ``reference_headers`` to the reference only: the
    target's auth is never sent to another server.
    """
    from kvdoctor.reproducers.experiments import ReproContext, run_experiment

    signals = compute_signals(bundle)
    earlier, _ = reproducer_records(bundle)
    playbooks = load_playbooks()
    preliminary = evaluate(signals, earlier, playbooks)
    names = plan_for(preliminary, allow_load, reference_endpoint is not None, playbooks)
    ctx = ReproContext.from_signals(
        signals,
        endpoint,
        headers=dict(headers),
        allow_load=allow_load,
        reference_endpoint=reference_endpoint,
        reference_headers=dict(reference_headers or {}),
        insecure=insecure,
        # Two of the operator's prompts with text, for the prefix probe's replay (in memory).
        sample_prompts=[(p.text, p.salt) for p in (prompts or ()) if p.text][:2],
    )
    records: list[ReproducerRecord] = []
    from urllib.parse import urlsplit

    from kvdoctor.bundle.redact import Redactor

    hosts = [urlsplit(u).hostname or "" for u in (endpoint, reference_endpoint or "")]
    # Both servers' credentials (a reference's echo lands in the same records), and with
    # --redact both hosts.
    scrub = Redactor(
        secrets=[*headers.values(), *(reference_headers or {}).values()],
        redact=redact,
        hosts=[h for h in hosts if h],
    )
    warning = cpu_share_warning(endpoint) if names else None
    if warning:
        echo(f"kvdoctor: warning: {warning}")
    for name in names:
        echo(f"{REPRODUCER_ANNOUNCE} {name} ...")
        try:
            record = run_experiment(name, ctx)
        except KvdoctorError as exc:
            record = _not_run_record(name, str(exc), clock())
        # Error texts quote server answers, and a server may echo the credential it was sent.
        record = ReproducerRecord.model_validate(scrub.data(record.model_dump()))
        echo(f"{REPRODUCER_ANNOUNCE} {name}: {record.verdict}")
        records.append(record)
    return records


def prompt_sample_live(bundle: Bundle, opts: Any, prompts: Sequence[RawPrompt]) -> PromptSample:
    """The operator's prompts analysed with the server's own tokenizer (``/tokenize``), so the
    first difference is placed in the tokens the prefix cache hashes; approximate when the
    server has no ``/tokenize``."""
    from kvdoctor.probes.http import make_client
    from kvdoctor.probes.tokenize import server_tokenizer
    from kvdoctor.promptshare import analyse

    model = None
    if bundle.server is not None and isinstance(bundle.server.models, dict):
        data = bundle.server.models.get("data")
        if isinstance(data, list) and data and isinstance(data[0], dict):
            first = data[0].get("id")
            model = first if isinstance(first, str) else None
    with make_client(opts.headers, insecure=opts.insecure) as client:
        return analyse(prompts, "prompts-file", server_tokenizer(client, opts.endpoint, model))


def run_live(
    opts: Any,
    *,
    reproduce: bool = True,
    allow_load: bool = False,
    reference_endpoint: str | None = None,
    reference_headers: dict[str, str] | None = None,
    save_bundle: Path | None = None,
    progress: bool = False,
    echo: Callable[[str], None] = lambda _line: None,
    prompts: Sequence[RawPrompt] | None = None,
) -> Diagnosis:
    """Capture → reproducers → records into the bundle → :func:`diagnose` (``opts``:
    :class:`kvdoctor.capture.CaptureOptions`).

    With ``save_bundle`` the diagnosis is made from the bundle as read back from disk, which is
    exactly what ``diagnose --bundle`` on it will read: the two reports are the same bytes.
    """
    import time

    from kvdoctor.bundle.writer import append_reproducers
    from kvdoctor.capture import capture

    bundle = capture(opts, progress=progress, sink=save_bundle)
    if prompts:
        sample = prompt_sample_live(bundle, opts, prompts)
        bundle = bundle.model_copy(update={"prompt_sample": sample})
        if save_bundle is not None:
            from kvdoctor.bundle.writer import add_prompt_sample

            add_prompt_sample(save_bundle, sample)
    records: list[ReproducerRecord] = []
    if reproduce:
        records = run_reproducers(
            bundle,
            opts.endpoint,
            opts.headers,
            allow_load=allow_load,
            reference_endpoint=reference_endpoint,
            echo=echo,
            clock=time.time,
            insecure=opts.insecure,
            reference_headers=reference_headers,
            redact=opts.redact,
            prompts=prompts,
        )
    if save_bundle is not None:
        if records:
            append_reproducers(save_bundle, records)
        bundle = read_bundle(save_bundle)
        if opts.redact:
            # The report names the bundle; with --redact never by this machine's path.
            bundle = bundle.model_copy(update={"source": Path(save_bundle).name})
    else:
        bundle = bundle.with_reproducers(records)
    return diagnose(bundle)


def plan_bundle(bundle: Bundle) -> tuple[EngineConfig, list[Finding], list[FindingPlan]]:
    """Diagnose ``bundle`` and return its configuration, findings and notes, and their plans.

    The plans are the same objects the report's remediation lines were rendered from (the
    planner only rewrites remediation, so planning the final findings again is identical); tests,
    the lab proof and the benchmark read the flag sets from here.
    """
    d = diagnose(bundle)
    cfg = engine_config(bundle, d.signals, d.report.kv)
    # Findings then notes (report/1.2), planned together as the pipeline plans them.
    advised = [*d.report.findings, *d.report.notes]
    return cfg, advised, plan(advised, cfg, d.signals)
