"""kvdoctor's accuracy on randomized lab servers whose truth is known by construction (issue 12).

    python benchmarks/bench_accuracy.py --seed S --count K [--out DIR]   # record and score
    python benchmarks/bench_accuracy.py --replay DIR                      # re-score, seconds

Each draw (:func:`kvaccuracy.randomized.draw`) is a failure class with every server and
traffic parameter drawn at random. Recording a draw: take the lab lock
(``/tmp/kvdoctor-lab.lock``, per draw, so other lab users interleave), start its vLLM server
(its own model geometry and engine flags), measure a single-request baseline, start its
workload, run ``kvdoctor diagnose --endpoint ... --reproduce --allow-load --save-bundle`` while
the workload runs, stop everything, release the lock. ``DIR/draw-S-I/`` then holds ``bundle/``,
``report.json`` (the live report, with reproducers), ``stderr.txt`` and ``truth.json`` (the
draw, its baseline and control).

Scoring, for two reports per draw:
- offline: the bundle replayed without its reproducer records (what ``diagnose --bundle`` says
  on a capture alone), always with the current code;
- live: the report of the run itself; with ``--replay``, the bundle replayed with its recorded
  reproducer results through the current rules (the experiments are not run again).
The control (does the server's own window show the symptom?) is recomputed from the bundle, so
a draw whose scenario did not produce its symptom is "control failed", not a kvdoctor miss.

A batch stops cleanly before its next draw when ``OUT/STOP`` exists, or on SIGTERM / Ctrl-C
(the current draw's server is stopped first); the draws recorded so far are scored.

Printed: confusion matrices (truth x predicted) of symptom and cause, and the rates of right
symptom, right cause, confirmed where an experiment exists, "healthy" on a broken server and a
finding on a healthy server. Seeds 1000-1999 are development seeds; report accuracy on others.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from kvaccuracy import scoring as accuracy
from kvaccuracy.randomized import (
    NOT_DRAWN,
    PROMPT_SAMPLE_SIZE,
    TRUTH,
    UNDECIDABLE_OFFLINE,
    Control,
    Draw,
    also_right,
    check_control,
    draw,
    prompt_bound,
    window_metrics,
)
from kvdoctor.bundle.reader import read_bundle
from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.scenarios import LAB_TAG
from kvdoctor.reproducers.loadgen import LoadSpec, run_load, sample_prompts

LOCK_PATH = Path("/tmp/kvdoctor-lab.lock")
WARMUP_S = 4.0
BASELINE_REQUESTS = 4


@contextlib.contextmanager
def lab_lock(path: Path | None) -> Iterator[None]:
    """The lab lock (flock(2), the same lock as ``flock /tmp/kvdoctor-lab.lock CMD``)."""
    if path is None:
        yield
        return
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _metrics(url: str) -> str:
    return httpx.get(url + "/metrics", timeout=10.0).text


def measure_baseline(url: str, model: str) -> dict[str, Any]:
    """The server's own TTFT and ITL for single short requests, one at a time, on a quiet server.

    The reference every latency control compares against: same server, same draw, same host
    load, so no absolute threshold is needed.
    """
    spec = LoadSpec(
        prompt_tokens=64,
        max_tokens=32,
        concurrency=1,
        requests=BASELINE_REQUESTS,
        duration_s=120.0,
        tag=LAB_TAG,
    )
    # One request first so that the measured ones do not pay first-request warm-up.
    asyncio.run(run_load(url, model, spec.model_copy(update={"requests": 1})))
    before = _metrics(url)
    result = asyncio.run(run_load(url, model, spec))
    after = _metrics(url)
    m = window_metrics([before, after])
    return {
        "ttft_s": m.ttft_sum / m.ttft_count if m.ttft_count else None,
        "itl_s": m.itl_sum / m.itl_count if m.itl_count else None,
        "requests": result.ok,
    }


def write_prompt_sample(url: str, model: str, d: Draw, path: Path) -> None:
    """A sample of the draw's traffic as ``--prompts`` JSONL: an equal share of each stream,
    each stream with its own seed (its own shared text), as the load generator builds them."""
    per = -(-PROMPT_SAMPLE_SIZE // max(1, len(d.phases)))
    lines: list[str] = []
    for k, phase in enumerate(d.phases):
        spec = phase.spec.model_copy(update={"seed": 7000 + k})
        for obj in asyncio.run(sample_prompts(url, model, spec, per)):
            lines.append(json.dumps(obj, sort_keys=True))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def record_draw(d: Draw, out: Path, args: argparse.Namespace) -> None:
    """Run one draw on the lab and save its bundle, live report and truth under ``out``."""
    from kvdoctor.lab.host import LabUnsupportedError
    from kvdoctor.lab.model import ensure_model
    from kvdoctor.lab.server import LabStartError, resolve_vllm_python, start_lab, stop_lab
    from kvdoctor.lab.session import _run_cli, diagnose_command
    from kvdoctor.lab.workload import WorkloadRunner, run_groups

    ddir = out / d.name
    shutil.rmtree(ddir, ignore_errors=True)
    ddir.mkdir(parents=True)
    python = resolve_vllm_python(args.vllm_python)
    # Generated before taking the lock: it needs no server.
    model_dir = ensure_model(python, d.geometry.as_tuple())
    truth: dict[str, Any] = {"schema": "kvdoctor.accuracy-draw/1", "draw": d.to_json()}
    t0 = time.monotonic()
    lock = None if args.no_lock else LOCK_PATH
    with lab_lock(lock):
        truth["lock_wait_s"] = round(time.monotonic() - t0, 1)
        t1 = time.monotonic()
        try:
            lab = start_lab(d.scenario(), vllm_python=python, model_dir=model_dir)
        except LabUnsupportedError as exc:
            # The host cannot run this class at all (fp8 KV without AVX-512): not run, not scored.
            truth["status"] = "unsupported-on-host"
            truth["error"] = str(exc)
            (ddir / "truth.json").write_text(json.dumps(truth, indent=2, sort_keys=True) + "\n")
            return
        except LabStartError as exc:
            truth["status"] = "start-failed"
            truth["error"] = str(exc)
            truth["log_tail"] = exc.log_tail
            (ddir / "truth.json").write_text(json.dumps(truth, indent=2, sort_keys=True) + "\n")
            return
        runner: WorkloadRunner | None = None
        code, report, stderr = 2, None, ""
        try:
            truth["baseline"] = measure_baseline(lab.url, lab.model)
            if d.history:
                # The server's past, run to the end before the window (see Draw.history).
                asyncio.run(run_groups(lab.url, lab.model, [list(d.history)]))
            runner = WorkloadRunner(lab.url, lab.model, d.scenario(), repeat=True).start()
            time.sleep(WARMUP_S)
            argv = diagnose_command(
                lab,
                window_s=args.window,
                interval_s=args.interval,
                save_bundle=ddir / "bundle",
                model_config=model_dir,
            )
            if d.klass in UNDECIDABLE_OFFLINE:
                # The operator hands over a sample of the application's requests (--prompts):
                # live, the evidence that decides these classes is given.
                sample = ddir / "prompts.jsonl"
                write_prompt_sample(lab.url, lab.model, d, sample)
                argv += ["--prompts", str(sample)]
            live_runner = runner

            def stop_load() -> None:
                threading.Thread(target=live_runner.stop, daemon=True).start()

            code, report, stderr = _run_cli(argv, None if d.load_during_reproducers else stop_load)
        except (httpx.HTTPError, OSError) as exc:
            # The draw is lost (server died, port trouble): recorded, not scored, batch goes on.
            truth["status"] = "error"
            truth["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            if runner is not None:
                runner.stop()
            stop_lab(lab)
        truth["held_s"] = round(time.monotonic() - t1, 1)
    truth.setdefault("status", "ran")
    truth["exit_code"] = code
    truth["workload_error"] = repr(runner.error) if runner and runner.error else None
    (ddir / "stderr.txt").write_text(stderr[-20000:])
    if report is not None:
        (ddir / "report.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    (ddir / "truth.json").write_text(json.dumps(truth, indent=2, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- scoring


def experiments_by_cause() -> dict[str, bool]:
    from kvdoctor.rules.load import load_playbooks

    return {c.id: bool(c.reproducer) for pb in load_playbooks() for c in pb.causes}


def notes_by_cause() -> dict[str, bool]:
    """Causes that are expected-behaviour notes (severity info): healthy is their right verdict."""
    from kvdoctor.rules.load import load_playbooks

    return {c.id: c.severity == "info" for pb in load_playbooks() for c in pb.causes}


def score_dir(
    ddir: Path, has_exp: dict[str, bool], notes: dict[str, bool], *, replay_live: bool
) -> tuple[accuracy.Outcome, accuracy.Outcome, dict[str, Any]]:
    """(offline outcome, live outcome, control measurements) of one saved draw."""
    from kvdoctor.pipeline import diagnose_bundle

    truth = json.loads((ddir / "truth.json").read_text())
    dj = truth["draw"]
    klass = str(dj["class"])
    t = (dj["truth"]["symptom"], dj["truth"]["cause"])
    exp = bool(t[1] and has_exp.get(t[1], False))
    note = bool(t[1] and notes.get(t[1], False))
    offline_report: dict[str, Any] | None = None
    live_report: dict[str, Any] | None = None
    control_ok: bool | None = None
    also: tuple[tuple[str, str], ...] = ()
    why = truth.get("error") or truth.get("status", "")
    measured: dict[str, Any] = {}
    bundle_path = ddir / "bundle"
    if truth.get("status") == "ran" and bundle_path.exists():
        try:
            bundle = read_bundle(bundle_path)
        except KvdoctorError as exc:
            why = f"bundle unreadable: {exc}"
        else:
            texts = [s.text for s in bundle.scrapes if s.ok and s.text is not None]
            control = Control.from_json(dj["control"])
            if control.kind == "hol" and control.short_prompt_range == (0, 0):
                # Recorded before the control counted short requests: derive their range.
                short = min(int(ph["prompt_tokens"]) for ph in dj["phases"])
                control = replace(control, short_prompt_range=(short, prompt_bound(short)))
            ctl = check_control(control, texts, truth.get("baseline", {}))
            control_ok, why, measured = ctl.ok, ctl.why, ctl.measured
            also = also_right(klass, measured)
            # Offline: the capture alone, without the experiments' records and without the
            # operator's prompt sample (what the metrics, logs and config can decide).
            quiet = bundle.model_copy(
                update={"reproducers": None, "unread_reproducers": [], "prompt_sample": None}
            )
            offline_report = diagnose_bundle(quiet).model_dump(mode="json", by_alias=True)
            if replay_live:
                live_report = diagnose_bundle(bundle).model_dump(mode="json", by_alias=True)
    elif truth.get("status") == "ran":
        why = "no bundle was saved (diagnose failed)"
    if not replay_live and (ddir / "report.json").exists():
        live_report = json.loads((ddir / "report.json").read_text())
    name = ddir.name
    undecidable = klass in UNDECIDABLE_OFFLINE
    off = accuracy.outcome(
        name, klass, t, control_ok, why, offline_report, exp, note, also, undecidable
    )
    live = accuracy.outcome(name, klass, t, control_ok, why, live_report, exp, note, also)
    return off, live, measured


def print_scores(dirs: list[Path], *, replay_live: bool) -> str:
    """Print the per-draw lines, both sections and what is not drawn; return the same text."""
    lines: list[str] = []

    def out(text: str = "") -> None:
        lines.append(text)
        sys.stdout.write(text + "\n")

    has_exp = experiments_by_cause()
    notes = notes_by_cause()
    offline: list[accuracy.Outcome] = []
    live: list[accuracy.Outcome] = []
    out("draws:")
    for ddir in dirs:
        off, lv, _measured = score_dir(ddir, has_exp, notes, replay_live=replay_live)
        offline.append(off)
        live.append(lv)
        state = {True: "control ok", False: "CONTROL FAILED", None: "did not run"}[off.control_ok]
        out(
            f"  {ddir.name:<16} {off.klass:<25} {state:<14} offline {off.predicted_symptom}/"
            f"{off.predicted_cause}  live {lv.predicted_symptom}/{lv.predicted_cause} "
            f"({lv.predicted_status})"
        )
        out(f"  {'':<16} control: {off.control_why}")
    live_title = (
        "live: current rules over the recorded reproducer results"
        if replay_live
        else "live: diagnose --endpoint --reproduce --allow-load, as run"
    )
    out()
    out(accuracy.render_section("offline replay (bundle without reproducers)", offline, live=False))
    out()
    out(accuracy.render_section(live_title, live, live=True))
    out()
    out("classes not drawn:")
    for name, why in NOT_DRAWN.items():
        out(f"  {name}: {why}")
    return "\n".join(lines) + "\n"


def draw_dirs(root: Path) -> list[Path]:
    def key(p: Path) -> tuple[int, int]:
        parts = p.name.split("-")
        return (int(parts[1]), int(parts[2]))

    return sorted((p for p in root.glob("draw-*-*") if (p / "truth.json").is_file()), key=key)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench_accuracy.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, help="seed of the draws (1000-1999: development seeds)")
    p.add_argument("--count", type=int, default=1, help="number of draws (indices from --start)")
    p.add_argument("--start", type=int, default=0, help="first draw index")
    p.add_argument("--out", type=Path, default=Path("accuracy-out"))
    p.add_argument("--replay", type=Path, help="re-score the draws saved under this directory")
    p.add_argument("--window", type=float, default=20.0, help="capture window, seconds")
    p.add_argument("--interval", type=float, default=1.0, help="scrape interval, seconds")
    p.add_argument("--vllm-python")
    p.add_argument(
        "--no-lock",
        action="store_true",
        help="do not take /tmp/kvdoctor-lab.lock per draw (the caller already holds it)",
    )
    p.add_argument("--list", action="store_true", help="print the draws' parameters and exit")
    args = p.parse_args(argv)
    if args.replay is not None:
        dirs = draw_dirs(args.replay)
        if not dirs:
            print(f"bench_accuracy: no draws under {args.replay}", file=sys.stderr)
            return 2
        print_scores(dirs, replay_live=True)
        return 0
    if args.seed is None:
        print("bench_accuracy: --seed is required (or --replay DIR)", file=sys.stderr)
        return 2
    draws = [draw(args.seed, i) for i in range(args.start, args.start + args.count)]
    if args.list:
        for d in draws:
            print(json.dumps(d.to_json(), sort_keys=True))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    stop_file = args.out / "STOP"
    # SIGTERM ends the batch like Ctrl-C: the current draw's server and workload are stopped
    # by their finally blocks instead of being orphaned.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        for d in draws:
            if stop_file.exists():
                print(f"{stop_file} exists: stopping before {d.name}", flush=True)
                break
            print(f"{d.name}: {d.klass} ({TRUTH[d.klass]}) {' '.join(d.engine_args)}", flush=True)
            t0 = time.monotonic()
            try:
                record_draw(d, args.out, args)
            except KvdoctorError as exc:
                print(f"  failed: {exc}", flush=True)
                continue
            print(f"  recorded in {time.monotonic() - t0:.0f} s", flush=True)
    except KeyboardInterrupt:
        print("interrupted: scoring the draws recorded so far", flush=True)
    print_scores(
        [args.out / d.name for d in draws if (args.out / d.name / "truth.json").exists()],
        replay_live=False,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
