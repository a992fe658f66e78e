"""The experiments kvdoctor knows, as plain data: name, what it tests, what it measures, needs.

This is the one home of those facts. The playbook loader checks every ``reproducer:`` and
``measured:`` key against it, the pipeline says from it why an experiment did not run, the CLI
lists it in ``reproduce --help``, and each experiment class under
:mod:`kvdoctor.reproducers.experiments` takes its name, causes and needs from its entry here
(its measured model's fields must equal ``measures``: checked when the class is defined).

It imports nothing but the standard library, so the rules, the report and a replay read it
without importing the experiments (and with them httpx and asyncio).
"""

from __future__ import annotations

from typing import NamedTuple


class CauseRef(NamedTuple):
    """A cause as the playbooks name it: playbook id and cause id."""

    playbook: str
    cause: str

    def __str__(self) -> str:
        return f"{self.playbook}/{self.cause}"


class ExperimentSpec(NamedTuple):
    """What one experiment is, without the code that runs it."""

    name: str
    description: str
    # The playbook causes it gives a verdict on.
    causes: tuple[CauseRef, ...]
    # The keys of its measured numbers: what a playbook's ``measured:`` conditions may read.
    measures: tuple[str, ...]
    # Adds real load: refuses to run without --allow-load.
    needs_load: bool = False
    # Compares the server with a reference server (--reference-endpoint).
    needs_reference: bool = False

    def needs_flags(self) -> tuple[str, ...]:
        """The options a run needs beyond --endpoint, as the CLI spells them."""
        return tuple(
            flag
            for flag, needed in (
                ("--allow-load", self.needs_load),
                ("--reference-endpoint", self.needs_reference),
            )
            if needed
        )

    def symptoms(self) -> tuple[str, ...]:
        """The playbooks whose causes it tests, in the order of its causes."""
        return tuple(dict.fromkeys(ref.playbook for ref in self.causes))


_ALL: tuple[ExperimentSpec, ...] = (
    ExperimentSpec(
        name="prefix-probe",
        description=(
            "A multi-block prompt repeated at once must hit whole blocks; repeated after the "
            "workload turned the pool over, it tells eviction apart."
        ),
        causes=(
            CauseRef("prefix-miss", "caching-disabled"),
            CauseRef("prefix-miss", "block-larger-than-prefix"),
            CauseRef("prefix-miss", "eviction-churn"),
            CauseRef("prefix-miss", "prefix-drift"),
            CauseRef("prefix-miss", "adapter-or-salt-split"),
            CauseRef("prefix-miss", "engine-not-caching"),
        ),
        measures=(
            "prompt_tokens",
            "block_size",
            "repeat_hit_tokens",
            "first_token_changed_hit_tokens",
            "late_repeat_hit_tokens",
            "late_repeat_after_s",
            "shared_prefix_tokens",
            "shared_prefix_hit_tokens",
            "turnover_tokens",
            "pool_tokens",
            "turnover_fraction",
            "evictions",
            "idle_before_evict_p50_s",
            "reuse_gap_p90_s",
            "window_hit_rate",
            "prefix_caching",
            "effect",
            "sample_pattern",
            "user_repeat_hit_tokens",
            "user_next_hit_tokens",
            "repeat_error",
        ),
    ),
    ExperimentSpec(
        name="ttft-split",
        description=(
            "Short and workload-length probes: the server's queue share of TTFT over the probe, "
            "and whether TTFT grows with the prompt."
        ),
        causes=(
            CauseRef("high-ttft", "queueing"),
            CauseRef("high-ttft", "prefill-bound"),
            CauseRef("high-ttft", "long-prefill-hol"),
        ),
        measures=(
            "prompt_tokens",
            "short_prompt_tokens",
            "probes_ok",
            "rounds",
            "client_ttft_p50_s",
            "client_ttft_short_p50_s",
            "client_ttft_max_s",
            "server_requests",
            "server_ttft_mean_s",
            "server_queue_time_mean_s",
            "server_prefill_time_mean_s",
            "queue_share",
            "queue_effect",
            "length_effect",
            "hol_long_prompt_tokens",
            "hol_long_ttft_p50_s",
            "hol_effect",
            "hol_waited_fraction",
        ),
    ),
    ExperimentSpec(
        name="itl-context",
        description=(
            "Inter-token latency at short vs long context: the slope per 1k tokens vs the "
            "KV-read model."
        ),
        causes=(
            CauseRef("slow-itl", "kv-read-bound"),
            CauseRef("slow-itl", "prefill-interference"),
        ),
        measures=(
            "short_context_tokens",
            "long_context_tokens",
            "itl_p50_short_s",
            "itl_p50_long_s",
            "itl_p99_long_s",
            "itl_ratio",
            "slope_s_per_1k_tokens",
            "spike_fraction",
            "live_kv_tokens",
            "window_itl_p50_s",
            "itl_ratio_memory_bound_model",
            "effect",
        ),
    ),
    ExperimentSpec(
        name="capacity-ramp",
        description=(
            "Held concurrency below and well above where the KV math says the pool fills: "
            "preemptions must appear above and not below."
        ),
        causes=(
            CauseRef("preemption", "kv-capacity"),
            CauseRef("high-ttft", "kv-admission"),
        ),
        measures=(
            "prompt_tokens",
            "output_tokens",
            "tokens_per_seq",
            "pool_blocks",
            "blocks_per_seq",
            "knee_predicted",
            "quiet_before",
            "skipped",
            "baseline",
            "treatment",
            "knee_concurrency",
            "effect",
        ),
        needs_load=True,
    ),
    ExperimentSpec(
        name="memory-headroom",
        description=(
            "Weights + KV pool + activations vs total memory; with --allow-load, one "
            "max-length request."
        ),
        causes=(
            CauseRef("preemption", "request-exceeds-kv-capacity"),
            CauseRef("gpu-oom", "kv-pool-too-small"),
            CauseRef("gpu-oom", "other-process"),
            CauseRef("gpu-oom", "utilization-too-high"),
            CauseRef("gpu-oom", "activation-peak"),
        ),
        measures=(
            "gpu_memory_total_bytes",
            "gpu_memory_used_bytes",
            "kv_cache_memory_bytes",
            "weight_bytes",
            "max_model_len",
            "kv_capacity_tokens",
            "max_len_request_ok",
            "max_len_request_error",
            "server_budget_bytes",
        ),
    ),
    ExperimentSpec(
        name="quant-canary",
        description=(
            "Fixed greedy prompts with logprobs on the target (twice) and on a reference server."
        ),
        causes=(CauseRef("quant-quality", "fp8-kv-cache"),),
        measures=(
            "token_agreement",
            "baseline_agreement",
            "reference_agreement",
            "baseline_mean_abs_dlogprob",
            "reference_mean_abs_dlogprob",
            "first_divergence",
            "prompts",
            "effect",
        ),
        needs_reference=True,
    ),
)

EXPERIMENTS: dict[str, ExperimentSpec] = {e.name: e for e in _ALL}
NAMES: tuple[str, ...] = tuple(EXPERIMENTS)
# Run when nothing is suspected: light, and able to show a healthy server healthy.
DEFAULT_SET: tuple[str, ...] = ("ttft-split", "prefix-probe")


def why_not_run(name: str) -> str:
    """Why an experiment has no result in a bundle, from what it needs (live and replayed)."""
    spec = EXPERIMENTS.get(name)
    needs: list[str] = []
    if spec is not None and spec.needs_load:
        needs.append("--allow-load (it adds real load to the server)")
    if spec is not None and spec.needs_reference:
        needs.append("--reference-endpoint (it compares with a reference server)")
    if needs:
        return "no result in the bundle; it runs only with " + " and ".join(needs)
    return "no result in the bundle (diagnosed with --no-reproduce, or from a plain recording)"
