"""The remediation, proven on the lab's real vLLM.

1. vLLM accepts every suggested flag set of every recorded fixture (it builds its engine
   configuration from each, as ``vllm serve`` does before allocating anything) and refuses the
   known-bad sets kvdoctor's constraints reject: the constraints are vLLM's, not a guess.
2. Applying a scenario's "change first" to the server and re-running the same workload makes
   ``kvdoctor compare`` report the primary finding gone. BEFORE is the scenario's recorded
   fixture bundle (a real run of the same server and workload); AFTER is a fresh run.

Run one at a time under the lab lock: ``flock /tmp/kvdoctor-lab.lock pytest tests/lab/
test_remediation_lab.py -k ...``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kvdoctor.bundle.reader import read_bundle
from kvdoctor.lab.model import ensure_model
from kvdoctor.lab.scenarios import get_scenario
from kvdoctor.lab.session import diagnose_scenario
from kvdoctor.pipeline import plan_bundle
from kvdoctor.remediation.constraints import edit_flags, parse_flags, problems
from kvdoctor.remediation.validate import vllm_accepts

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "bundle.tar.gz").is_file())
WINDOW_S = 20.0
INTERVAL_S = 1.0

# Flag sets vLLM 0.32 refuses when it builds its configuration, on top of long-prefill-hol's
# server (--max-model-len 8192 --max-num-batched-tokens 8192 --no-enable-chunked-prefill).
KNOWN_BAD: tuple[tuple[str, ...], ...] = (
    ("--max-num-batched-tokens", "4096"),  # below max_model_len without chunked prefill
    ("--gpu-memory-utilization", "1.2"),
    ("--max-num-seqs", "9000"),  # above max_num_batched_tokens
    ("--max-model-len", "40000"),  # above the model's max_position_embeddings (16,384)
    ("--kv-cache-dtype", "int3"),
)


def test_vllm_accepts_every_plan_and_refuses_the_known_bad_sets(vllm_python: str) -> None:
    model = str(ensure_model(vllm_python))
    cases: list[tuple[str, list[str]]] = []
    for name in NAMES:
        cfg, findings, plans = plan_bundle(read_bundle(FIXTURES / name / "bundle.tar.gz"))
        for p in plans:
            for ch in p.changes:
                if ch.edits:
                    label = f"{name} {findings[p.index].cause}: {ch.render(cfg)[:80]}"
                    cases.append((label, ["--model", model, *ch.argv(cfg)]))
    assert len(cases) >= 8, cases  # every fixture with a flag edit contributes
    base_cfg, _, _ = plan_bundle(read_bundle(FIXTURES / "long-prefill-hol" / "bundle.tar.gz"))
    base = ["--max-model-len", "8192", "--max-num-batched-tokens", "8192"]
    base += ["--no-enable-chunked-prefill"]
    bad: list[tuple[str, list[str]]] = []
    for extra in KNOWN_BAD:
        argv = [*base, *extra]
        # kvdoctor's constraints refuse each of them too, without asking vLLM.
        assert problems(base_cfg, {**base_cfg.args, **parse_flags(extra)}), extra
        bad.append((" ".join(extra), ["--model", model, *argv]))
    verdicts = vllm_accepts(vllm_python, [argv for _, argv in cases + bad])
    refused = [(label, v.error) for (label, _), v in zip(cases, verdicts, strict=False) if not v.ok]
    assert refused == [], refused
    accepted = [label for (label, _), v in zip(bad, verdicts[len(cases) :], strict=True) if v.ok]
    assert accepted == [], accepted


def _after_run(name: str, vllm_python: str, tmp_path: Path) -> tuple[int, str]:
    """Apply the fixture's change-first to the scenario's flags, re-run, compare."""
    before = FIXTURES / name / "bundle.tar.gz"
    cfg, advised, plans = plan_bundle(read_bundle(before))
    # The report's lead: the first live finding, else the first note (prefix-off: caching off
    # is a confirmed note, report/1.3).
    lead = next(i for i, f in enumerate(advised) if f.status != "refuted")
    first = next(p for p in plans if p.index == lead).changes[0]
    assert first.edits, f"{name}: the change first is not a flag edit: {first.render(cfg)}"
    flags = edit_flags(get_scenario(name).engine_args, first.edits)
    after = tmp_path / "after"
    run = diagnose_scenario(
        name,
        window_s=WINDOW_S,
        interval_s=INTERVAL_S,
        save_bundle=after,
        vllm_python=vllm_python,
        engine_args=flags,
    )
    assert run.report is not None, run.stderr[-2000:]
    proc = subprocess.run(
        [sys.executable, "-m", "kvdoctor", "compare", str(before), str(after)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("name", ["preemption-storm", "prefix-off", "long-prefill-hol"])
def test_change_first_makes_the_primary_finding_go_away(
    name: str, vllm_python: str, tmp_path: Path
) -> None:
    rc, out = _after_run(name, vllm_python, tmp_path)
    print(out)  # the ticket section, shown with -rA: the numbers behind the verdict
    assert rc == 0, out
    assert out.startswith("## Fix verified: "), out
