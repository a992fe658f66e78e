"""Offline replay of a fixture bundle, side by side with the floor of what that path imports.

Target: each replay at most 1.5x its floor (``FLOOR_TARGET``), the floor being a fresh process
that only imports the libraries the path needs and builds one model: click, jinja2 and pydantic
for Markdown; click and pydantic for ``--format json``, which renders no template.

    .venv/bin/python benchmarks/bench_replay.py [--runs 15] [--fixture fixtures/healthy] [--as-is]

Each run is a fresh process, as a user types ``kvdoctor diagnose --bundle F``. The reference
measured in the same run is ``python -c pass`` with the same interpreter, so the ratio shows what
kvdoctor adds on this machine however loaded it is. The first runs warm the page cache and
kvdoctor's own caches (compiled report template, validated playbooks), as any second run on a
user's machine would.

Bytecode: an installed kvdoctor has its modules compiled (pip writes the ``.pyc`` files at
install time, and an editable checkout writes them on its first run). Where the environment
forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``, as on the project's shared hosts), every
run would compile kvdoctor's sources again, a cost no user pays; the children here get a private
bytecode cache in a temporary directory instead (``PYTHONPYCACHEPREFIX``), reference included.
``--as-is`` measures the environment unchanged.

Besides the bare interpreter, the run measures the floor no replay can go under while the CLI is
click, the contracts pydantic models and the report a jinja2 template: a process that only
imports those three and builds one model. What kvdoctor adds is printed above that floor too.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 150.0
# A replay at most this many times its floor, measured in the same run.
FLOOR_TARGET = 1.5
ROOT = Path(__file__).resolve().parent.parent
# Modules a replay has no use for (network clients, live probes, YAML once the validated
# playbooks are cached): importing any of them is start-up time spent for nothing.
NOT_FOR_REPLAY = ("httpx", "rich", "psutil", "pynvml", "prometheus_client", "yaml", "asyncio")
# The third-party floor: the imports every replay needs, and the first pydantic model (which
# imports the rest of pydantic's internals).
FLOOR_CODE = (
    "import click, jinja2\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    x: int\n"
)
# ``--format json`` renders no template: its floor leaves jinja2 out.
JSON_FLOOR_CODE = "import click\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    x: int\n"


def modules_imported(bundle: Path, env: dict[str, str], extra: tuple[str, ...] = ()) -> list[str]:
    """Which of NOT_FOR_REPLAY (and jinja2, for a run with ``extra`` options such as
    ``--format json``) a replay of ``bundle`` imported."""
    watched = ("jinja2", *NOT_FOR_REPLAY) if extra else NOT_FOR_REPLAY
    code = (
        "import sys\n"
        "from kvdoctor.cli import main\n"
        f"sys.argv = ['kvdoctor', 'diagnose', '--bundle', {str(bundle)!r}, *{list(extra)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"seen = [m for m in {watched!r} if m in sys.modules]\n"
        "print('IMPORTED:', *seen, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    line = next(ln for ln in out.stderr.splitlines() if ln.startswith("IMPORTED:"))
    return line.split()[1:]


def replay_modules(bundle: Path, env: dict[str, str]) -> list[str]:
    """kvdoctor's own modules a replay of ``bundle`` imports, in import order."""
    code = (
        "import sys\n"
        "from kvdoctor.cli import main\n"
        f"sys.argv = ['kvdoctor', 'diagnose', '--bundle', {str(bundle)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "mods = [m for m in sys.modules if m.startswith('kvdoctor')]\n"
        "print('MODULES:', *mods, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    line = next(ln for ln in out.stderr.splitlines() if ln.startswith("MODULES:"))
    return line.split()[1:]


def breakdown(bundle: Path, env: dict[str, str], runs: int) -> list[str]:
    """Where a replay's time goes: fresh processes that stop at each layer, medians (ms)."""
    steps = {
        "python -c pass": "pass",
        "import click": "import click",
        "import jinja2": "import jinja2",
        "pydantic: import and one model": FLOOR_CODE.split("\n", 1)[1],
        "third-party floor (all three)": FLOOR_CODE,
        "kvdoctor's replay modules, imported only": "import "
        + ", ".join(replay_modules(bundle, env)),
    }
    exe = Path(sys.executable).with_name("kvdoctor")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "kvdoctor"]
    cmds = {name: [sys.executable, "-c", code] for name, code in steps.items()}
    cmds[f"the whole replay of {bundle.parent.name}"] = [*base, "diagnose", "--bundle", str(bundle)]
    walls: dict[str, list[float]] = {name: [] for name in cmds}
    for cmd in cmds.values():
        run_ms(cmd, env)
    for _ in range(runs):
        for name, cmd in cmds.items():
            walls[name].append(run_ms(cmd, env)[0])
    med = {name: statistics.median(w) for name, w in walls.items()}
    lines = [f"  {name}: {ms:.1f} ms" for name, ms in med.items()]
    bare, floor, ours, whole = (
        med["python -c pass"],
        med["third-party floor (all three)"],
        med["kvdoctor's replay modules, imported only"],
        med[f"the whole replay of {bundle.parent.name}"],
    )
    lines.append(
        f"  = interpreter {bare:.0f} ms + click, jinja2, pydantic {floor - bare:.0f} ms"
        f" + kvdoctor's own modules {ours - floor:.0f} ms"
        f" + the replay's work {whole - ours:.0f} ms"
    )
    return lines


def _children_cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_ms(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of one fresh process. On a shared host the wall time also holds the
    time spent waiting for a core; the CPU time (user + system) is what the process costs."""
    cpu0 = _children_cpu_s()
    t = time.perf_counter()
    # Exit code 1 means "a finding fires", which is what most fixtures are for.
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env).returncode
    wall = (time.perf_counter() - t) * 1000
    if rc not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {rc}")
    return wall, (_children_cpu_s() - cpu0) * 1000


def child_env(as_is: bool, pycache: str) -> tuple[dict[str, str], str]:
    """The children's environment, and a line saying how bytecode is handled."""
    env = dict(os.environ)
    if as_is or not env.get("PYTHONDONTWRITEBYTECODE"):
        return env, "bytecode: as the environment has it"
    env.pop("PYTHONDONTWRITEBYTECODE")
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env, (
        "bytecode: PYTHONDONTWRITEBYTECODE is set here; the runs use a private bytecode cache "
        "(as an installed kvdoctor has its .pyc files); --as-is to measure without"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument(
        "--fixture",
        action="append",
        help="fixture directory (repeatable; default: every fixture under fixtures/)",
    )
    ap.add_argument(
        "--as-is",
        action="store_true",
        help="keep the environment's bytecode setting (PYTHONDONTWRITEBYTECODE recompiles "
        "kvdoctor's sources in every run)",
    )
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also print where the time goes (interpreter, click, jinja2, pydantic, kvdoctor's "
        "imports, the replay's own work), measured layer by layer",
    )
    args = ap.parse_args()
    fixtures = (
        [Path(f) for f in args.fixture]
        if args.fixture
        else sorted(p.parent for p in (ROOT / "fixtures").glob("*/bundle.tar.gz"))
    )
    exe = Path(sys.executable).with_name("kvdoctor")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "kvdoctor"]
    ref_cmd = [sys.executable, "-c", "pass"]
    floor_cmd = [sys.executable, "-c", FLOOR_CODE]
    json_floor_cmd = [sys.executable, "-c", JSON_FLOOR_CODE]
    cmds = {f.name: [*base, "diagnose", "--bundle", str(f / "bundle.tar.gz")] for f in fixtures}
    json_cmds = {name: [*cmd, "--format", "json"] for name, cmd in cmds.items()}
    with tempfile.TemporaryDirectory(prefix="kvdoctor-bench-pyc-") as pycache:
        env, bytecode_line = child_env(args.as_is, pycache)
        warm = [ref_cmd, floor_cmd, json_floor_cmd, *cmds.values(), *json_cmds.values()]
        for cmd in warm:  # warm-up: page cache, caches
            run_ms(cmd, env)
            run_ms(cmd, env)
        # Interleave reference and kvdoctor runs so a load spike on a shared host hits both.
        ref: list[tuple[float, float]] = []
        floor: list[tuple[float, float]] = []
        json_floor: list[tuple[float, float]] = []
        ours: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
        ours_json: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
        for _ in range(args.runs):
            ref.append(run_ms(ref_cmd, env))
            for name, cmd in cmds.items():
                floor.append(run_ms(floor_cmd, env))
                ours[name].append(run_ms(cmd, env))
                json_floor.append(run_ms(json_floor_cmd, env))
                ours_json[name].append(run_ms(json_cmds[name], env))
        needless = sorted({m for f in fixtures for m in modules_imported(f / "bundle.tar.gz", env)})
        json_jinja = any(
            "jinja2" in modules_imported(f / "bundle.tar.gz", env, ("--format", "json"))
            for f in fixtures
        )
        layers = breakdown(fixtures[0] / "bundle.tar.gz", env, args.runs) if args.breakdown else []
    print(bytecode_line)
    ref_wall = statistics.median(w for w, _ in ref)
    ref_cpu = statistics.median(c for _, c in ref)
    floor_wall = statistics.median(w for w, _ in floor)
    floor_cpu = statistics.median(c for _, c in floor)
    json_floor_wall = statistics.median(w for w, _ in json_floor)
    print(
        f"python -c pass: median {ref_wall:.1f} ms wall, {ref_cpu:.1f} ms CPU "
        f"over {args.runs} runs (load average {os.getloadavg()[0]:.1f})"
    )
    print(
        f"Markdown floor (click + jinja2 + one pydantic model): median {floor_wall:.1f} ms "
        f"wall ({floor_wall / ref_wall:.1f}x), {floor_cpu:.1f} ms CPU"
    )
    print(f"JSON floor (click + one pydantic model): median {json_floor_wall:.1f} ms wall")
    worst = 0.0
    worst_ratio = 0.0
    for name, times in ours.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        jwall = statistics.median(w for w, _ in ours_json[name])
        worst = max(worst, wall)
        worst_ratio = max(worst_ratio, wall / floor_wall, jwall / json_floor_wall)
        print(
            f"diagnose --bundle {name}: median {wall:.1f} ms wall = {wall / floor_wall:.2f}x its "
            f"floor (+{wall - floor_wall:.0f} ms), {cpu:.1f} ms CPU; --format json "
            f"{jwall:.1f} ms = {jwall / json_floor_wall:.2f}x its floor; "
            f"{wall / ref_wall:.1f}x the bare interpreter, budget {wall / TARGET_MS:.2f}"
        )
    print(
        f"worst ratio to the floor {worst_ratio:.2f} / {FLOOR_TARGET}: "
        + ("PASS" if worst_ratio <= FLOOR_TARGET else "FAIL")
    )
    print(f"--format json imports jinja2: {'yes' if json_jinja else 'no'}")
    verdict = "PASS" if worst <= TARGET_MS else "FAIL"
    print(f"worst median wall {worst:.1f} / {TARGET_MS:.0f} ms: {verdict} (absolute, this host)")
    print(f"modules a replay does not need, imported: {', '.join(needless) or 'none'}")
    if layers:
        print("where the time goes (median wall, fresh process per run):")
        print("\n".join(layers))
    # Exit 1 on any of the three: a replay above FLOOR_TARGET times its floor (both floors are
    # measured in this run, interleaved with the replays), a module it has no use for, or jinja2
    # on the JSON path (which renders no template).
    return 0 if worst_ratio <= FLOOR_TARGET and not needless and not json_jinja else 1


if __name__ == "__main__":
    sys.exit(main())
