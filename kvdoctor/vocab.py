"""The words of the report/1 contract, defined once (docs/report.md).

Symptoms, finding statuses, severities, overall verdicts and reproducer verdicts are used by the
rules, the experiments, the report models and the renderers; each vocabulary lives here so that
a grep finds one definition and the type checker holds every other use to it.
"""

from __future__ import annotations

from typing import Final, Literal

Symptom = Literal["preemption", "high-ttft", "slow-itl", "prefix-miss", "gpu-oom", "quant-quality"]
SYMPTOMS: tuple[Symptom, ...] = (
    "preemption",
    "high-ttft",
    "slow-itl",
    "prefix-miss",
    "gpu-oom",
    "quant-quality",
)
# How a router in front of identical servers picks one for each request (--routing, or the
# bundle's notes). The first three ignore what a replica holds in its prefix cache.
Routing = Literal["round-robin", "random", "least-loaded", "consistent-hash", "prefix-aware"]
ROUTINGS: tuple[Routing, ...] = (
    "round-robin",
    "random",
    "least-loaded",
    "consistent-hash",
    "prefix-aware",
)
ROUTING_IGNORES_PREFIX: tuple[Routing, ...] = ("round-robin", "random", "least-loaded")
Status = Literal["confirmed", "suspected", "refuted"]
Severity = Literal["critical", "warning", "info"]
Verdict = Literal["healthy", "degraded", "critical", "inconclusive", "unknown"]

# The orderings of the ranking contract (docs/report.md): strongest first.
# Every module that sorts or compares findings reads these; a test fails on a module that
# spells an ordering out again.
STATUSES: tuple[Status, ...] = ("confirmed", "suspected", "refuted")
SEVERITIES: tuple[Severity, ...] = ("critical", "warning", "info")
STATUS_RANK: Final[dict[str, int]] = {s: i for i, s in enumerate(STATUSES)}
SEVERITY_RANK: Final[dict[str, int]] = {s: i for i, s in enumerate(SEVERITIES)}
# A fleet's overall verdict is its worst replica's: worst first.
VERDICT_ORDER: tuple[Verdict, ...] = ("critical", "degraded", "inconclusive", "healthy", "unknown")
VERDICT_RANK: Final[dict[str, int]] = {v: i for i, v in enumerate(VERDICT_ORDER)}
# A finding that fires: it sets the verdict and exit code (unless info), and gets an experiment.
ACTIVE_STATUSES: tuple[Status, ...] = ("confirmed", "suspected")

# What an experiment concluded about one cause (or overall).
ReproducerVerdict = Literal["confirmed", "refuted", "inconclusive"]
CONFIRMED: Final = "confirmed"
REFUTED: Final = "refuted"
INCONCLUSIVE: Final = "inconclusive"
REPRODUCER_VERDICTS: tuple[ReproducerVerdict, ...] = (CONFIRMED, REFUTED, INCONCLUSIVE)

# Every cause a playbook may name, per playbook (a finding's ``cause``). The playbook loader
# refuses a cause missing here (kvdoctor.rules.validate.check_playbook) and a unit test refuses an
# entry no shipped playbook has, so code that names a cause (the planner, the renderer, the
# experiment catalog) is checked against one list.
CAUSES: Final[dict[str, tuple[str, ...]]] = {
    "preemption": (
        "kv-capacity",
        "request-exceeds-kv-capacity",
        "cudagraph-profiling-shrinks-pool",
    ),
    "high-ttft": (
        "queueing",
        "prefill-bound",
        "long-prefill-hol",
        "engine-imbalance",
        "kv-admission",
        "deferred-admission",
        "kv-transfer-trouble",
        "scheduler-stall",
        "engine-died",
    ),
    "slow-itl": (
        "kv-read-bound",
        "prefill-interference",
        "preemption-recompute",
        "spec-decode-low-acceptance",
        "engine-imbalance",
        "cpu-offload-weights",
        "eager-decode",
        "scheduler-stall",
        "cudagraph-batch-above-capture",
    ),
    "prefix-miss": (
        "caching-disabled",
        "block-larger-than-prefix",
        "eviction-churn",
        "prefix-drift",
        "adapter-or-salt-split",
        "engine-scatter",
        "engine-not-caching",
        "unshared-traffic",
        "external-cache-never-serves",
        "hybrid-alignment-miss",
    ),
    "gpu-oom": (
        "kv-pool-too-small",
        "other-process",
        "utilization-too-high",
        "activation-peak",
        "weights-exceed-device",
    ),
    "quant-quality": ("fp8-kv-cache",),
    # The fleet playbooks (playbooks/fleet/): findings that compare replicas.
    "fleet-imbalance": ("routing-imbalance",),
    "fleet-config-drift": ("replica-config-drift",),
    "fleet-stale-targets": ("stale-or-missing-targets",),
}
# The cause of a finding whose symptom fired with no cause to explain it.
UNIDENTIFIED: Final = "unidentified"

# Causes whose story is the full KV pool itself: when one of them leads (or nothing leads), the
# report opens with "the KV cache is full, not GPU memory". Any other lead opens with its own
# title and the full pool follows it (external case: an engine that died in its KV connector
# with the pool full was headlined as a full KV cache).
KV_POOL_CAUSES: Final[frozenset[str]] = frozenset(
    {
        "kv-capacity",
        "request-exceeds-kv-capacity",
        "cudagraph-profiling-shrinks-pool",
        "queueing",
        "kv-admission",
        "deferred-admission",
        "scheduler-stall",
        "long-prefill-hol",
        "eviction-churn",
        "kv-read-bound",
        "preemption-recompute",
        UNIDENTIFIED,
    }
)

# KV dtypes with fewer bits than the model's own: their keys and values are rounded, so they can
# change the outputs. One pattern for the config value and the start-up log; the PromQL form is
# fully anchored there and short enough for one line of an alert expression (every quantized
# dtype names fp8, int or fp4).
QUANTIZED_KV_DTYPE_PATTERN: Final = r"(?:fp8|int8|int4|uint8|nvfp4|mxfp4|fp4)\w*"
QUANTIZED_KV_DTYPE_PROMQL: Final = ".*(fp8|int|fp4).*"
