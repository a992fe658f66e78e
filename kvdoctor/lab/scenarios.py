"""Lab scenarios: an engine configuration plus a workload that makes one symptom really happen.

The registry is data: each :class:`Scenario` names its engine flags, the KV pool it gets, the
workload that drives it (phases of :class:`~kvdoctor.reproducers.loadgen.LoadSpec`, run through
the reproducers' load generator), the diagnosis kvdoctor is expected to reach, and its docs:
what it demonstrates and where the CPU build of vLLM cannot reproduce the real-GPU situation.

Each phase's request budget is large and its deadline long: a workload keeps the server busy
for as long as the capture needs and is stopped by its runner (the load generator spends a few
seconds calibrating at the start of every run, so short runs would leave idle gaps).

Sizes are in tokens. The lab model's KV costs 1,024 B/token and the CPU backend uses 128-token
blocks, so one block is 128 KiB and ``--num-gpu-blocks-override N`` is a pool of
``128 (N - 1)`` usable tokens (vLLM 0.32 keeps one block as its null block: 16 blocks give an
"estimated maximum model length" of 1,920). ``VLLM_CPU_KVCACHE_SPACE`` (whole GiB) bounds the
memory vLLM reserves; the block override then trims the pool to the size a scenario needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kvdoctor.errors import KvdoctorError
from kvdoctor.reproducers.loadgen import LoadSpec

BLOCK_SIZE = 128
LAB_TAG = "kvdoctor-lab"


@dataclass(frozen=True)
class Phase:
    """One part of a workload: a load spec, run alone or beside the other concurrent phases."""

    spec: LoadSpec
    # Phases with the same group run at the same time; groups run one after the other.
    group: int = 0


@dataclass(frozen=True)
class HostSizedPrompt:
    """A phase whose prompt length is set by this host's prefill speed, not fixed.

    What the scenario needs is a prefill that takes a while (about a second, as on the hosts the
    lab was tuned on), not a number of tokens: CPU prefill speed differs 4x between CI hosts, and
    at a fixed 8,000 tokens a slow host spent 4.8 s on every long prompt, which made its tests
    several minutes longer and no more telling. :func:`kvdoctor.lab.workload.fit_to_host`
    measures the host and picks the length, between ``least`` and ``most`` tokens.
    """

    phase: int
    prefill_s: float
    least: int
    most: int


@dataclass(frozen=True)
class Expected:
    """What ``kvdoctor diagnose --reproduce --allow-load`` should conclude on this scenario."""

    symptom: str | None
    cause: str | None
    # The primary finding's status ("confirmed" once the reproducer agrees); None when healthy.
    status: str | None = "confirmed"
    # The cause is expected behaviour with no harm (an info cause): the report's verdict is
    # healthy and the cause is its lead note (report/1.2 ``notes``), with no finding.
    note: bool = False
    # The verdict, when it is not the one the symptom implies: "inconclusive" where the
    # capture cannot decide (report/1.3; e.g. 0 % hits over long prompts with no prompt sample).
    verdict: str | None = None


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    demonstrates: str
    engine_args: tuple[str, ...]
    workload: tuple[Phase, ...]
    expected: Expected
    # Whole GiB for VLLM_CPU_KVCACHE_SPACE (the memory reserved; blocks may trim the pool).
    kv_cache_space_gib: int = 1
    # Flags of a second server with the same model, for experiments that compare against a
    # reference (fp8-kv: the same server with an ``auto`` cache). None: no reference server.
    reference_args: tuple[str, ...] | None = None
    # True when vLLM is expected to refuse to start (the log is the evidence).
    fails_at_startup: bool = False
    cpu_limits: str = ""
    # Keep the workload running while ``diagnose`` runs its reproducers (as production traffic
    # would). Needed where the experiment measures the live pressure (queueing, head-of-line,
    # eviction); off where the experiment needs a quiet server to measure its own requests
    # (capacity-ramp counts preemptions, prefix-probe counts cache hits).
    load_during_reproducers: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)
    host_sized: HostSizedPrompt | None = None

    def engine_env(self) -> dict[str, str]:
        return {"VLLM_CPU_KVCACHE_SPACE": str(self.kv_cache_space_gib), **self.extra_env}

    def phases_by_group(self) -> list[list[Phase]]:
        groups: dict[int, list[Phase]] = {}
        for phase in self.workload:
            groups.setdefault(phase.group, []).append(phase)
        return [groups[g] for g in sorted(groups)]


def _spec(**kw: object) -> LoadSpec:
    kw.setdefault("tag", LAB_TAG)
    return LoadSpec.model_validate(kw)


def _blocks(n: int) -> tuple[str, ...]:
    return ("--num-gpu-blocks-override", str(n))


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            name="healthy",
            title="Healthy: a roomy pool, caching on, light traffic",
            demonstrates=(
                "The control case: a 1M-token pool, prefix caching on, two concurrent requests "
                "sharing a long system prompt. Nothing should fire and every reproducer should "
                "refute its hypothesis."
            ),
            engine_args=("--max-model-len", "4096", "--max-num-seqs", "16"),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=512,
                        max_tokens=64,
                        concurrency=2,
                        requests=200,
                        prefix="shared",
                        shared_prefix_tokens=384,
                        duration_s=180,
                    )
                ),
            ),
            expected=Expected(symptom=None, cause=None, status=None),
        ),
        Scenario(
            name="preemption-storm",
            title="Preemption storm: 16 usable KV blocks, 12 concurrent long outputs",
            demonstrates=(
                "A 2,048-token pool (16 usable blocks of 128; vLLM keeps one of the 17 as its "
                "null block) under 12 concurrent requests that each "
                "grow to ~640 tokens: live KV demand is ~4x the pool, so the scheduler preempts "
                "and recomputes requests again and again (vllm:num_preemptions climbs, KV usage "
                "sits near 100%)."
            ),
            engine_args=(*_blocks(17), "--max-model-len", "2048", "--max-num-seqs", "16"),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=128,
                        max_tokens=512,
                        concurrency=12,
                        requests=360,
                        duration_s=180,
                    )
                ),
            ),
            expected=Expected(symptom="preemption", cause="kv-capacity"),
            cpu_limits=(
                "On a GPU the pool is sized by --gpu-memory-utilization; on CPU the block "
                "override stands in for a small gpu_memory_utilization. The GPU-headroom "
                "evidence (NVML) is not available, so the report cannot say whether raising "
                "gpu_memory_utilization is safe."
            ),
        ),
        Scenario(
            name="prefix-off",
            title="Prefix caching off under a shared system prompt",
            demonstrates=(
                "Every request starts with the same 512-token system prompt, but automatic "
                "prefix caching is disabled, so each prefill recomputes it (no prefix-cache "
                "queries or hits at all; cache_config_info says enable_prefix_caching=False)."
            ),
            engine_args=("--max-model-len", "4096", "--no-enable-prefix-caching"),
            workload=(
                Phase(
                    _spec(
                        # One request at a time, 640 tokens: the recomputed prefix costs
                        # prefill time, yet first tokens stay well under the 1 s basis on a
                        # slow CPU too (0.21-0.33 s measured on a 2-core host without AVX-512, where
                        # four concurrent 1,024-token prompts took 1.2-1.5 s and the report
                        # turned degraded/prefill-bound: a verdict set by the host's speed).
                        prompt_tokens=640,
                        max_tokens=32,
                        concurrency=1,
                        requests=240,
                        prefix="shared",
                        shared_prefix_tokens=512,
                        duration_s=180,
                    )
                ),
            ),
            # Caching off is a setting: with no harm measured and no prompt sample it is a
            # (confirmed) note and the report is inconclusive (issue 28).
            expected=Expected(
                symptom="prefix-miss", cause="caching-disabled", note=True, verdict="inconclusive"
            ),
        ),
        Scenario(
            name="prefix-short",
            title="Shared prefix shorter than one KV block",
            demonstrates=(
                "Caching is on, but prompts are short (120 tokens, of which 96 are shared) and the "
                "CPU backend's block is 128 tokens: only full blocks are cached, so requests "
                "that share their whole prefix still miss. Zero hits is expected behaviour here, "
                "not a bug."
            ),
            engine_args=("--max-model-len", "4096"),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=120,
                        max_tokens=32,
                        concurrency=4,
                        requests=320,
                        prefix="shared",
                        shared_prefix_tokens=96,
                        duration_s=180,
                    )
                ),
            ),
            expected=Expected(symptom="prefix-miss", cause="block-larger-than-prefix", note=True),
            cpu_limits=(
                "GPU deployments usually run 16-token blocks, where the same miss needs a "
                "prefix under 16 tokens; the CPU backend's 128-token default makes the effect "
                "easy to trigger with realistic prompt sizes."
            ),
        ),
        Scenario(
            name="prefix-drift",
            title="Prefix drift: a per-request value first in every prompt",
            demonstrates=(
                "Prompts share a 768-token body, but each starts with a different short header "
                "(like a timestamp in the system prompt), so no two prompts share even their "
                "first block and the prefix cache never hits."
            ),
            engine_args=("--max-model-len", "4096"),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=1024,
                        max_tokens=32,
                        concurrency=4,
                        requests=240,
                        prefix="timestamp-first",
                        shared_prefix_tokens=768,
                        duration_s=180,
                    )
                ),
            ),
            # From the server's side this traffic shares nothing: it never hit its prefix
            # cache (lifetime 0 %), so the window cannot tell drifting prompts from unrelated
            # ones: without a prompt sample the report is inconclusive, never healthy (issue
            # 28). The prefix probe proves the cache works (caching-disabled refuted), no more.
            expected=Expected(symptom=None, cause=None, status=None, verdict="inconclusive"),
        ),
        Scenario(
            name="eviction-churn",
            title="Eviction churn: cached prefixes pushed out before they are reused",
            demonstrates=(
                "Caching is on and requests share a 512-token prefix, but the pool is small "
                "(24 blocks, 2,944 usable tokens) and a stream of long unique prompts (1,400 "
                "tokens, three at a time) runs beside them: the pool stays full, the shared "
                "blocks are evicted between uses, so the hit rate stays low although the prefix "
                "is reused. The same pressure preempts sequences, so a preemption/kv-capacity "
                "finding appears beside it (ranked below while its reproducer is inconclusive)."
            ),
            engine_args=(*_blocks(24), "--max-model-len", "2048", "--max-num-seqs", "8"),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=640,
                        max_tokens=16,
                        concurrency=1,
                        requests=200,
                        prefix="shared",
                        shared_prefix_tokens=512,
                        duration_s=180,
                    ),
                    group=0,
                ),
                Phase(
                    _spec(
                        # 11 blocks at admission, 12 after 8 output tokens: two of them admitted
                        # together (22 of 23 usable blocks) outgrow the pool, so it stays full,
                        # running sequences reclaim the cached prefix blocks and one is preempted.
                        prompt_tokens=1400,
                        max_tokens=24,
                        concurrency=3,
                        requests=360,
                        duration_s=180,
                    ),
                    group=0,
                ),
            ),
            # The pool this scenario shrinks also preempts several sequences a second: a
            # critical preemption storm, which docs/report.md ranks above the eviction churn
            # it causes (the fixture requires the churn finding too).
            expected=Expected(symptom="preemption", cause="kv-capacity"),
            # The primary finding's experiment (capacity-ramp) needs the server drained, as on
            # a replica taken out of rotation; under the live workload it can only say
            # "inconclusive". The eviction itself is proven under load by its own lab test
            # (test_prefix_probe_confirms_eviction_churn_under_its_workload) and the fixture.
            load_during_reproducers=False,
        ),
        Scenario(
            name="queueing",
            title="Queueing: max_num_seqs far below the offered concurrency",
            demonstrates=(
                "The pool is roomy but --max-num-seqs 2 admits only two requests at a time "
                "while 8 are offered: requests wait in the queue (vllm:num_requests_waiting "
                "stays high) and time to first token is dominated by queue time, not prefill. "
                "Prompts are long and outputs short so that the engine, not the streaming "
                "front end, is the bottleneck on 2 cores (short prompts with long streamed "
                "outputs left the engine's queue empty while the front end lagged)."
            ),
            engine_args=("--max-model-len", "4096", "--max-num-seqs", "2"),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=1536,
                        max_tokens=32,
                        # Six waiting are a queue as plain as sixteen; each sequential
                        # ttft-split probe waits behind all of them, so a longer queue only
                        # lengthens the experiment.
                        concurrency=8,
                        requests=480,
                        duration_s=180,
                    )
                ),
            ),
            expected=Expected(symptom="high-ttft", cause="queueing"),
            load_during_reproducers=True,
        ),
        Scenario(
            name="long-prefill-hol",
            title="Long prefills stall running requests (head-of-line prefill)",
            demonstrates=(
                "Chunked prefill is off and the token budget is large, so a long prompt (up to "
                "8,000 tokens, sized so that its prefill takes about a second on the host) is "
                "prefilled in one engine step while short interactive requests are decoding: "
                "every long arrival freezes their token stream for the whole prefill (gaps of "
                "~1 s against a few ms). kvdoctor names it slow-itl / prefill-interference and "
                "the itl-context reproducer confirms the spikes."
            ),
            engine_args=(
                "--max-model-len",
                "8192",
                "--max-num-batched-tokens",
                "8192",
                "--no-enable-chunked-prefill",
            ),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=8000,
                        max_tokens=8,
                        concurrency=1,
                        requests=200,
                        duration_s=180,
                    ),
                    group=0,
                ),
                Phase(
                    _spec(
                        prompt_tokens=64,
                        max_tokens=64,
                        concurrency=4,
                        requests=400,
                        duration_s=180,
                    ),
                    group=0,
                ),
            ),
            expected=Expected(symptom="slow-itl", cause="prefill-interference"),
            load_during_reproducers=True,
            cpu_limits=(
                "CPU prefill is orders of magnitude slower than on a GPU, so the stalls are "
                "about a second rather than tens of milliseconds; the shape is the same. The "
                "TTFT side of head-of-line blocking (high-ttft / long-prefill-hol) needs a probe "
                "to land behind a long prefill: ttft-split's few sequential probes rarely do "
                "here and refute it, so the scenario is asserted on the ITL side."
            ),
            host_sized=HostSizedPrompt(phase=0, prefill_s=1.2, least=2048, most=8000),
        ),
        Scenario(
            name="fp8-kv",
            title="fp8 KV cache changes greedy outputs",
            demonstrates=(
                "The server stores K and V in fp8 (e4m3). A reference server with the default "
                "(bf16) cache runs beside it: the canary sends the same greedy prompts to both "
                "and the outputs diverge, while two runs on the reference agree exactly."
            ),
            engine_args=("--max-model-len", "4096", "--kv-cache-dtype", "fp8"),
            reference_args=("--max-model-len", "4096"),
            workload=(
                Phase(
                    _spec(
                        prompt_tokens=512,
                        max_tokens=64,
                        concurrency=2,
                        # A shared system prompt, as chat traffic has: the cache hits, so no
                        # prefix-miss finding competes with the quantization one.
                        prefix="shared",
                        shared_prefix_tokens=384,
                        requests=200,
                        duration_s=180,
                    )
                ),
            ),
            expected=Expected(symptom="quant-quality", cause="fp8-kv-cache"),
            cpu_limits=(
                "The CPU backend's fp8 KV cache needs AVX-512 or AMX; it uses unit scales "
                "(no calibrated k/v scales), which exaggerates the drift compared with a "
                "calibrated GPU deployment."
            ),
        ),
        Scenario(
            name="kv-too-small",
            title="max_model_len above the KV pool: vLLM refuses to start",
            demonstrates=(
                "The pool holds 1,920 tokens (16 blocks, one kept as the null block) but "
                "--max-model-len is 8,192: vLLM 0.32 "
                "refuses at start-up ('To serve at least one request with the model's max seq "
                "len ... KV cache is needed, which is larger than the available KV cache "
                "memory'), and the log's estimated maximum model length says what fits."
            ),
            engine_args=(*_blocks(16), "--max-model-len", "8192"),
            workload=(),
            expected=Expected(symptom="gpu-oom", cause="kv-pool-too-small"),
            fails_at_startup=True,
            cpu_limits=(
                "On a GPU the same refusal comes from a low --gpu-memory-utilization or a big "
                "model; a real CUDA out-of-memory at run time cannot happen on CPU, so that "
                "cause is covered by a fixture derived from a real capture instead."
            ),
        ),
    )
}


def get_scenario(name: str) -> Scenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        known = ", ".join(sorted(SCENARIOS))
        raise KvdoctorError(f"unknown lab scenario {name!r}; known: {known}") from None
