"""Start and stop a real vLLM server for the lab (docs/lab.md).

The server runs from the lab's own virtual environment as the leader of a new process group, with
its output captured to a log file that the log probe can read. A PID/state file in the lab
directory lets ``kvdoctor lab down`` and ``lab status`` work from another process. Nothing is left
behind: a failed start, a timeout or Ctrl-C stops the whole group before the error propagates.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

from kvdoctor.errors import KvdoctorError
from kvdoctor.lab.host import check_engine_args
from kvdoctor.lab.model import SERVED_MODEL_NAME, ensure_model
from kvdoctor.lab.scenarios import Scenario, get_scenario

DEFAULT_VENV = Path.home() / ".cache" / "kvdoctor" / "vllm-venv"
# Start-up takes ~20-30 s on an idle 2-core machine; leave room for a busy one.
DEFAULT_START_TIMEOUT_S = 300.0
STOP_TIMEOUT_S = 20.0
LOG_TAIL_LINES = 25
PORT_RANGE = (18000, 29999)


class LabStartError(KvdoctorError):
    """vLLM did not become ready; ``log_tail`` holds the end of its log for the user."""

    def __init__(
        self, message: str, log_path: Path, log_tail: str, handle: LabHandle | None = None
    ) -> None:
        super().__init__(message)
        self.log_path = log_path
        self.log_tail = log_tail
        # The server that failed (argv, port, log), for callers that diagnose the failure.
        self.handle = handle


@dataclass
class LabHandle:
    """A running lab server (and, for scenarios that need one, its reference server)."""

    url: str
    port: int
    pid: int
    model: str
    log_path: Path
    scenario: str
    instance: str = ""
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    create_time: float = 0.0
    # The process's start in clock ticks since boot (/proc/<pid>/stat): the identity that
    # survives a stepped wall clock (see _process). 0 where the platform does not give it.
    start_ticks: int = 0
    reference: LabHandle | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["log_path"] = str(self.log_path)
        data["reference"] = self.reference.to_json() if self.reference else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LabHandle:
        ref = data.get("reference")
        return cls(
            url=str(data["url"]),
            port=int(data["port"]),
            pid=int(data["pid"]),
            model=str(data["model"]),
            log_path=Path(data["log_path"]),
            scenario=str(data["scenario"]),
            instance=str(data.get("instance", "")),
            argv=[str(a) for a in data.get("argv", [])],
            env={str(k): str(v) for k, v in dict(data.get("env", {})).items()},
            create_time=float(data.get("create_time", 0.0)),
            start_ticks=int(data.get("start_ticks", 0)),
            reference=cls.from_json(ref) if isinstance(ref, dict) else None,
        )


# ---------------------------------------------------------------- locations


def lab_dir() -> Path:
    """The lab's state directory: ``$KVDOCTOR_LAB_DIR`` or ``.lab`` in the working directory."""
    env = os.environ.get("KVDOCTOR_LAB_DIR")
    return Path(env) if env else Path.cwd() / ".lab"


def state_path(instance: str) -> Path:
    return lab_dir() / f"{instance}.json"


def resolve_vllm_python(vllm_python: str | None = None) -> str:
    """The lab venv's python: the argument, else ``$KVDOCTOR_VLLM_VENV``, else the default venv."""
    if vllm_python:
        candidate = Path(vllm_python)
    else:
        venv = os.environ.get("KVDOCTOR_VLLM_VENV")
        candidate = (Path(venv) if venv else DEFAULT_VENV) / "bin" / "python"
    if not (candidate.is_file() and os.access(candidate, os.X_OK)):
        raise KvdoctorError(
            f"no lab vLLM python at {candidate}: run scripts/setup-lab.sh or pass --vllm-python"
        )
    return str(candidate)


def free_port() -> int:
    """A free loopback port above 18000, picked at random so parallel labs rarely collide."""
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randint(*PORT_RANGE)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise KvdoctorError("no free port found in 18000-29999")


# ---------------------------------------------------------------- start


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While a lab runs, SIGTERM raises KeyboardInterrupt like Ctrl-C does.

    Python's default SIGTERM ends the process without running ``finally`` blocks, which would
    orphan the server (it lives in its own session, so it does not get the signal itself). Only
    the main thread can install handlers; elsewhere this is a no-op.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def build_command(
    vllm_python: str,
    model_dir: Path,
    port: int,
    engine_args: list[str],
) -> list[str]:
    return [
        vllm_python,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model_dir),
        "--served-model-name",
        SERVED_MODEL_NAME,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        # Eager mode: no torch.compile, start-up in ~20 s instead of minutes on 2 cores.
        "--enforce-eager",
        *engine_args,
    ]


def build_env(scenario_env: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            # Nothing may be downloaded: the model is local, the machine may be offline.
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            # Logs go to a file: no progress bars, no colour codes.
            "VLLM_LOGGING_COLOR": "0",
            "NO_COLOR": "1",
            "PYTHONUNBUFFERED": "1",
            # The periodic stats line (running/waiting/preemptions/KV usage) every 5 s instead
            # of 10 s, so that short lab windows still leave some in the log.
            "VLLM_LOG_STATS_INTERVAL": "5",
        }
    )
    env.update(scenario_env)
    return env


def tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def last_error_line(log_tail: str) -> str | None:
    """The last line of a vLLM log that names an error (what a start-up failure message quotes).

    A traceback ends with ``SomeError: message``; vLLM's own refusals are logged as ``ERROR``.
    """
    for line in reversed(log_tail.splitlines()):
        text = line.strip()
        head = text.split(":", 1)[0]
        if head.endswith(("Error", "Exception")) or " ERROR " in f" {text} ":
            return text[:300]
    return None


def _launch(
    scenario: Scenario,
    instance: str,
    engine_args: list[str],
    env_extra: dict[str, str],
    port: int | None,
    vllm_python: str,
    start_timeout_s: float,
    model_dir: Path | None = None,
) -> LabHandle:
    check_engine_args(vllm_python, engine_args)
    model_dir = model_dir or ensure_model(vllm_python)
    port = port or free_port()
    argv = build_command(vllm_python, model_dir, port, engine_args)
    directory = lab_dir()
    directory.mkdir(parents=True, exist_ok=True)
    log_path = directory / f"{instance}.log"
    env = build_env(env_extra)
    with log_path.open("wb") as log:
        # Its own process group: stopping the group stops vLLM's engine-core and worker
        # children too, and Ctrl-C in our terminal reaches only us, so we decide the shutdown
        # order. Not its own session: with the kernel's autogroup scheduling (on by default) a
        # new session is a new scheduling group, and a client in another group sharing the CPU
        # with vLLM's busy engine was starved for seconds at a time (client TTFT of 2-4 s while
        # the server's own histogram said 50 ms). In one session the lab's load generator, the
        # reproducers and the benchmark get their fair share of the CPU.
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            process_group=0,
        )
    try:
        create_time = psutil.Process(proc.pid).create_time()
    except psutil.Error:
        create_time = 0.0
    start_ticks = start_ticks_since_boot(proc.pid) or 0
    handle = LabHandle(
        url=f"http://127.0.0.1:{port}",
        port=port,
        pid=proc.pid,
        model=SERVED_MODEL_NAME,
        log_path=log_path,
        scenario=scenario.name,
        instance=instance,
        argv=argv,
        env=env_extra,
        create_time=create_time,
        start_ticks=start_ticks,
    )
    _write_state(handle)
    try:
        _wait_ready(handle, proc, start_timeout_s)
    except BaseException:
        _stop_one(handle)
        raise
    return handle


def _wait_ready(handle: LabHandle, proc: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    with httpx.Client(timeout=2.0) as client:
        while True:
            code = proc.poll()
            if code is not None:
                log_tail = tail(handle.log_path)
                cause = last_error_line(log_tail)
                raise LabStartError(
                    f"vLLM ({handle.instance}, scenario {handle.scenario}) exited with code "
                    f"{code} during start-up"
                    + (f" ({cause})" if cause else "")
                    + f"; log: {handle.log_path}",
                    handle.log_path,
                    log_tail,
                    handle,
                )
            try:
                if client.get(handle.url + "/health").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise LabStartError(
                    f"vLLM ({handle.instance}, scenario {handle.scenario}) not ready after "
                    f"{timeout_s:g} s; log: {handle.log_path}",
                    handle.log_path,
                    tail(handle.log_path),
                    handle,
                )
            time.sleep(0.25)


def start_lab(
    scenario: str | Scenario,
    port: int | None = None,
    vllm_python: str | None = None,
    extra_args: list[str] | None = None,
    *,
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
    model_dir: Path | None = None,
    engine_args: Sequence[str] | None = None,
) -> LabHandle:
    """Start the scenario's server (and its reference server, if it has one); wait until ready.

    Several labs may run at once (one per port); each has its own state and log file named
    ``<scenario>-<port>`` in the lab directory. Raises :class:`LabStartError` (a
    :class:`KvdoctorError`) when vLLM exits or is not ready in time, after stopping everything
    it started. A scenario that is *meant* to fail at start-up (``kv-too-small``) raises the
    same error: its log is the evidence. A :class:`Scenario` object (a randomized draw, not in
    the registry) and a ``model_dir`` (another generated geometry) may be passed instead;
    ``engine_args`` replaces the scenario's own flags (the same workload on a changed server:
    ``kvdoctor compare`` in the lab).
    """
    with terminate_as_interrupt():
        return _start(
            scenario, port, vllm_python, extra_args, start_timeout_s, model_dir, engine_args
        )


def _start(
    scenario: str | Scenario,
    port: int | None,
    vllm_python: str | None,
    extra_args: list[str] | None,
    start_timeout_s: float,
    model_dir: Path | None = None,
    engine_args: Sequence[str] | None = None,
) -> LabHandle:
    sc = get_scenario(scenario) if isinstance(scenario, str) else scenario
    base_args = list(sc.engine_args if engine_args is None else engine_args)
    python = resolve_vllm_python(vllm_python)
    port = port or free_port()
    instance = f"{sc.name}-{port}"
    reference: LabHandle | None = None
    if sc.reference_args is not None:
        ref_port = free_port()
        while ref_port == port:
            ref_port = free_port()
        reference = _launch(
            sc,
            f"{instance}-reference",
            list(sc.reference_args),
            sc.engine_env(),
            ref_port,
            python,
            start_timeout_s,
            model_dir,
        )
    try:
        handle = _launch(
            sc,
            instance,
            [*base_args, *(extra_args or [])],
            sc.engine_env(),
            port,
            python,
            start_timeout_s,
            model_dir,
        )
    except BaseException:
        if reference is not None:
            _stop_one(reference)
        raise
    handle.reference = reference
    _write_state(handle)
    return handle


# ---------------------------------------------------------------- state and stop


def _write_state(handle: LabHandle) -> None:
    path = state_path(handle.instance)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(handle.to_json(), indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
    path.with_suffix(".pid").write_text(f"{handle.pid}\n")


def _clear_state(handle: LabHandle) -> None:
    path = state_path(handle.instance)
    for p in (path, path.with_suffix(".pid")):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


def _read_handle(path: Path) -> LabHandle | None:
    try:
        return LabHandle.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def list_labs() -> list[LabHandle]:
    """Every server recorded in the lab directory (running or not), main servers first.

    A reference server is listed on its own too: if its main server never came up (the process
    that started it was killed), ``lab down`` must still find it.
    """
    directory = lab_dir()
    if not directory.is_dir():
        return []
    handles = [h for p in sorted(directory.glob("*.json")) if (h := _read_handle(p)) is not None]
    return sorted(handles, key=lambda h: (h.instance.endswith("-reference"), h.instance))


def start_ticks_since_boot(pid: int) -> int | None:
    """The process's start in clock ticks since boot (field 22 of ``/proc/<pid>/stat``).

    Unlike psutil's ``create_time()`` (boot time read from the wall clock, plus this), it does
    not move when the wall clock is stepped: a VM paused and resumed, NTP. None off Linux or
    when the process is gone.
    """
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = raw[raw.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def _process(handle: LabHandle) -> psutil.Process | None:
    """The server's process if it is still the one we started (guards against PID reuse).

    The identity is the start in clock ticks since boot where it was recorded: a server that
    outlived a stepped wall clock (its psutil start time moves with it) is still found and
    stopped, and a recycled PID started at another tick is not ours. State written without
    it (an older kvdoctor) falls back to the wall-clock start time, and to the command line
    the lab started where that moved.
    """
    try:
        proc = psutil.Process(handle.pid)
        if handle.start_ticks:
            if start_ticks_since_boot(handle.pid) != handle.start_ticks:
                return None
        else:
            moved = handle.create_time and abs(proc.create_time() - handle.create_time) > 1.0
            if moved and (not handle.argv or proc.cmdline() != list(handle.argv)):
                return None
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return proc
    except psutil.Error:
        return None


def is_running(handle: LabHandle) -> bool:
    return _process(handle) is not None


def _stop_one(handle: LabHandle) -> None:
    proc = _process(handle)
    if proc is not None:
        try:
            family = [proc, *proc.children(recursive=True)]
        except psutil.Error:
            family = [proc]
        # SIGTERM to the group first: vLLM shuts its engine core down cleanly on it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(handle.pid, signal.SIGTERM)
        _, alive = psutil.wait_procs(family, timeout=STOP_TIMEOUT_S)
        # Whatever ignored SIGTERM (or left the group) is killed one by one, by PID.
        for p in alive:
            with contextlib.suppress(psutil.Error):
                p.kill()
        psutil.wait_procs(alive, timeout=5.0)
        # Reap our own child so it does not linger as a zombie in a long-lived process.
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(handle.pid, os.WNOHANG)
    _clear_state(handle)


def stop_lab(handle: LabHandle | None = None) -> None:
    """Stop a lab server and its reference server; with no handle, every one in the lab dir."""
    handles: list[LabHandle] = []
    if handle is None:
        handles = list_labs()
    else:
        handles = [handle]
        if handle.reference is not None:
            handles.append(handle.reference)
    for h in handles:
        _stop_one(h)


@contextlib.contextmanager
def lab_server(
    scenario: str,
    port: int | None = None,
    vllm_python: str | None = None,
    extra_args: list[str] | None = None,
    *,
    start_timeout_s: float = DEFAULT_START_TIMEOUT_S,
    engine_args: Sequence[str] | None = None,
) -> Iterator[LabHandle]:
    """``with lab_server("healthy") as lab: ...``: the server is stopped on any exit."""
    with terminate_as_interrupt():
        handle = start_lab(
            scenario,
            port,
            vllm_python,
            extra_args,
            start_timeout_s=start_timeout_s,
            engine_args=engine_args,
        )
        try:
            yield handle
        finally:
            stop_lab(handle)
