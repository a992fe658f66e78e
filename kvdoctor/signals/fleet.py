"""The fleet signals: the vocabulary of the fleet playbooks (``playbooks/fleet/*.yaml``).

A replica's signals (kvdoctor.signals.catalog) describe one server over the window; the fleet
signals compare replicas: which are busy, which idle, how much more traffic the busy ones get,
which replica's settings differ from its peers', which targets are down. They are computed by
:mod:`kvdoctor.fleet.signals` from the per-replica diagnoses and evaluated by the same rule
engine as the replica playbooks; the loader checks every name a fleet playbook uses against
this registry (and a replica playbook's names against the replica catalog).

The thresholds the comparisons use are here too, as constant signals: a condition reads them
with ``value_from`` and the prose with ``{placeholders}``, so the text says what the code does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from kvdoctor.signals.model import Scalar
from kvdoctor.vocab import Symptom

# A fleet signal is a scalar, a list of names (rendered "a, b") or a table keyed by replica or
# setting (expanded into one evidence row per entry).
FleetValue = Scalar | Sequence[str] | Mapping[str, Scalar]
Kind = Literal["scalar", "names", "table"]

# Imbalance thresholds. "Hot": preempting, or a real queue; "cool": no queue, no preemption and
# at least half of its KV pool free. Routing is blamed only when the hot replicas get clearly
# more work than the cool ones; with equal traffic, the difference is in the replicas.
HOT_WAITING_MEAN = 1.0
COOL_KV_USAGE_MAX = 0.5
LOAD_SKEW = 1.5
# Traffic measures, best first; the first one known on every replica decides alone.
# ARRIVALS: requests that reached the replica in the window, by conservation: finished in the
# window plus the growth of running + waiting. Unlike the others it does not depend on how fast
# the replica works through them. Prompt tokens are counted at a request's first prefill, so
# a slow replica that admits late shows more of them in a window opened mid-load; finished
# requests undercount a slow replica. Running requests are left out altogether: by Little's law
# a slower replica holds more of them under the *same* traffic, which is the mis-tuned-replica
# case, not a routing one.
ARRIVALS = "requests_arrived_per_s"
LOAD_SIGNALS: tuple[str, ...] = (ARRIVALS, "prompt_tokens_per_s", "requests_finished_window")

# Engine settings compared across replicas, with the symptom a difference would produce.
# ``metric_names`` (appended last) compares the vLLM metric generation a replica exposes (old
# vs new names: another vLLM release).
DRIFT_SETTINGS: tuple[tuple[str, Symptom], ...] = (
    ("num_gpu_blocks", "preemption"),
    ("kv_capacity_tokens", "preemption"),
    ("gpu_memory_utilization", "preemption"),
    ("block_size", "prefix-miss"),
    ("prefix_caching", "prefix-miss"),
    ("cache_dtype", "quant-quality"),
    ("max_model_len", "preemption"),
    ("max_num_seqs", "high-ttft"),
    ("max_num_batched_tokens", "high-ttft"),
    ("vllm_version", "high-ttft"),
    ("metric_names", "high-ttft"),
)

# A replica is stale when its last good sample is more than this many steps (range-query
# steps, or scrape intervals of a direct endpoint) before the window's end.
STALE_STEPS = 2


@dataclass(frozen=True)
class FleetSignalDef:
    name: str
    unit: str
    doc: str
    kind: Kind = "scalar"
    const: FleetValue = None  # the value of a constant (a threshold), else None


_DEFS: list[FleetSignalDef] = [
    # --- constants: the thresholds, readable by conditions (value_from) and prose
    FleetSignalDef(
        "hot_waiting_mean",
        "requests",
        "Mean waiting requests that make a replica busy.",
        const=HOT_WAITING_MEAN,
    ),
    FleetSignalDef(
        "cool_kv_usage_max",
        "fraction",
        "Highest KV usage of an idle replica.",
        const=COOL_KV_USAGE_MAX,
    ),
    FleetSignalDef(
        "load_skew_min",
        "ratio",
        "Busy/idle traffic ratio from which routing is blamed.",
        const=LOAD_SKEW,
    ),
    FleetSignalDef(
        "load_signals",
        "names",
        "Traffic measures, best first (the first known everywhere).",
        kind="names",
        const=LOAD_SIGNALS,
    ),
    FleetSignalDef(
        "drift_settings",
        "names",
        "Engine settings compared across replicas.",
        kind="names",
        const=tuple(name for name, _ in DRIFT_SETTINGS),
    ),
    FleetSignalDef(
        "stale_steps",
        "steps",
        "Steps before the window's end after which a replica is stale.",
        const=STALE_STEPS,
    ),
    # --- imbalance (one set per fleet)
    FleetSignalDef(
        "busy_replicas",
        "names",
        "Replicas that preempt or hold a mean queue of hot_waiting_mean or more.",
        kind="names",
    ),
    FleetSignalDef(
        "idle_replicas",
        "names",
        "Replicas with nothing ever waiting and KV usage at most cool_kv_usage_max.",
        kind="names",
    ),
    FleetSignalDef("busy_count", "replicas", "Number of busy replicas."),
    FleetSignalDef("idle_count", "replicas", "Number of idle replicas."),
    FleetSignalDef("busy_preempting", "bool", "At least one busy replica preempted in the window."),
    FleetSignalDef(
        "imbalance_symptom", "symptom", "preemption when a busy replica preempts, else high-ttft."
    ),
    FleetSignalDef(
        "load_measure",
        "name",
        "The traffic measure that decides: the first of load_signals "
        "known on every busy and idle replica.",
    ),
    FleetSignalDef(
        "load_skew",
        "ratio",
        "Least busy replica's traffic / the idle replicas' median, by "
        "load_measure (unknown when infinite: see load_skew_unbounded).",
    ),
    FleetSignalDef(
        "load_skew_unbounded", "bool", "The busy replicas got traffic and the idle ones none."
    ),
    FleetSignalDef("load_skew_text", "text", "load_skew as the report writes it (3.5×, or ∞)."),
    FleetSignalDef(
        "load_skew_by_measure",
        "ratio",
        'load_skew keyed by load_measure (rounded; "inf" when unbounded): the evidence row.',
        kind="table",
    ),
    FleetSignalDef("imbalance_confidence", "fraction", "0.6 + 0.1 per unit of skew, up to 0.9."),
    # --- config drift (one set per replica that differs from its peers)
    FleetSignalDef("drift_replica", "name", "The replica whose settings differ."),
    FleetSignalDef("drift_peers", "names", "The other live replicas.", kind="names"),
    FleetSignalDef(
        "drift_diffs",
        "names",
        "Each differing setting as setting=value (peers: majority).",
        kind="names",
    ),
    FleetSignalDef(
        "drift_values", "value", "Differing setting → the replica's value.", kind="table"
    ),
    FleetSignalDef(
        "drift_peer_values",
        "value",
        "Differing setting → the majority's value (unknown when there is no majority).",
        kind="table",
    ),
    FleetSignalDef("drift_count", "settings", "Number of differing settings."),
    FleetSignalDef(
        "drift_symptom", "symptom", "The symptom the first differing setting would produce."
    ),
    FleetSignalDef(
        "drift_in_trouble", "bool", "The replica has a warning or critical finding of its own."
    ),
    FleetSignalDef(
        "drift_no_majority", "bool", "No differing setting has a majority value to compare with."
    ),
    FleetSignalDef(
        "drift_trouble_elsewhere", "bool", "Another replica that differs is in trouble."
    ),
    # --- stale or missing targets (one set per fleet)
    FleetSignalDef(
        "stale_targets",
        "names",
        "Replicas down or stale, then targets without vLLM metrics.",
        kind="names",
    ),
    FleetSignalDef("stale_states", "names", "Each of stale_targets with its state.", kind="names"),
    FleetSignalDef("stale_count", "targets", "Number of stale or missing targets."),
    FleetSignalDef(
        "target_up",
        "value",
        "Down or stale replica → its target's last `up` (Prometheus).",
        kind="table",
    ),
    FleetSignalDef(
        "target_scrapes_ok",
        "text",
        'Down or stale replica → its good scrapes, "n of m" (direct endpoints).',
        kind="table",
    ),
    FleetSignalDef(
        "via_prometheus", "bool", "The replicas were read through Prometheus (else directly)."
    ),
]

FLEET_SIGNALS: dict[str, FleetSignalDef] = {d.name: d for d in _DEFS}


def constant(name: str) -> FleetValue:
    """A constant fleet signal's value (None for a computed one)."""
    d = FLEET_SIGNALS.get(name)
    return None if d is None else d.const


@dataclass
class FleetSignals:
    """One set of fleet signals: what the rule engine reads for the fleet playbooks.

    The same read interface as the replica view (:class:`kvdoctor.rules.predicates.SignalView`):
    ``value`` (constants included), ``num``, and no series. A name that is not set is unknown,
    so a fleet playbook does not fire on a set computed for another finding.
    """

    values: dict[str, FleetValue] = field(default_factory=dict)
    # Symptom states (replica views only); kept for the engine's common interface.
    symptoms: dict[str, bool | None] = field(default_factory=dict)

    def set(self, name: str, value: FleetValue) -> None:
        if name not in FLEET_SIGNALS:
            raise KeyError(f"undeclared fleet signal {name!r}")
        self.values[name] = value

    def value(self, name: str) -> FleetValue:
        if name in self.values:
            return self.values[name]
        return constant(name)

    def num(self, name: str) -> float | None:
        v = self.value(name)
        if isinstance(v, bool) or not isinstance(v, int | float):
            return None
        return float(v)

    def fraction_of_window(self, series: str, op: str, threshold: float) -> float | None:
        return None  # fleet signals have no series
