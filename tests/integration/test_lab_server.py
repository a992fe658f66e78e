"""Process management of the lab server, against a fake "vLLM python" (no vLLM needed).

The fake interpreter accepts the real command line, serves /health like vLLM and starts a child
process in its group (like vLLM's engine core), so start/stop, PID files, log tails and the
no-orphans guarantee are tested for real, in about a second each.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest
from click.testing import CliRunner

from kvdoctor.lab import model, server

FAKE = """#!{python}
import http.server, os, subprocess, sys, time
args = sys.argv[1:]
assert args[:2] == ["-m", "vllm.entrypoints.openai.api_server"], args
port = int(args[args.index("--port") + 1])
mode = os.environ.get("FAKE_VLLM_MODE", "ok")
print("fake vllm starting on", port, "KVCACHE", os.environ.get("VLLM_CPU_KVCACHE_SPACE"))
print("args:", " ".join(args[2:]), flush=True)
if mode == "fail":
    print("ValueError: To serve at least one request with the model's max seq len", flush=True)
    sys.exit(3)
# A child in the same process group, like vLLM's EngineCore.
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
print("child", child.pid, flush=True)
if mode == "hang":
    time.sleep(300)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"""


@pytest.fixture
def fake_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KVDOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KVDOCTOR_LAB_DIR", str(tmp_path / "lab"))
    monkeypatch.delenv("FAKE_VLLM_MODE", raising=False)
    target = model.model_dir()
    target.mkdir(parents=True)
    (target / ".complete").write_text("fake\n")
    script = tmp_path / "fake-python"
    script.write_text(FAKE.format(python=sys.executable))
    script.chmod(0o755)
    return str(script)


def _child_pids(log: Path) -> list[int]:
    return [
        int(line.split()[1]) for line in log.read_text().splitlines() if line.startswith("child")
    ]


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_start_and_stop_leave_no_process_and_no_state(fake_python: str) -> None:
    handle = server.start_lab("healthy", vllm_python=fake_python, start_timeout_s=30)
    try:
        assert httpx.get(handle.url + "/health").status_code == 200
        assert 18000 <= handle.port <= 29999
        assert handle.model == model.SERVED_MODEL_NAME
        assert handle.instance == f"healthy-{handle.port}"
        log = handle.log_path.read_text()
        assert "--enforce-eager" in log and "KVCACHE 1" in log
        assert [h.instance for h in server.list_labs()] == [handle.instance]
        assert server.state_path(handle.instance).with_suffix(".pid").read_text().strip() == str(
            handle.pid
        )
        children = _child_pids(handle.log_path)
        assert children and all(not _gone(p) for p in children)
    finally:
        server.stop_lab(handle)
    assert _gone(handle.pid)
    assert all(_gone(p) for p in children)
    assert server.list_labs() == []


def test_failed_start_raises_with_log_tail_and_cleans_up(
    fake_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_MODE", "fail")
    with pytest.raises(server.LabStartError) as info:
        server.start_lab("kv-too-small", vllm_python=fake_python, start_timeout_s=30)
    err = info.value
    assert "exited with code 3 during start-up" in str(err)
    assert "\n" not in str(err)  # one line for the CLI; the tail is separate
    assert "max seq len" in err.log_tail
    assert err.log_path.is_file()  # the log stays: it is the scenario's evidence
    assert server.list_labs() == []


def test_start_timeout_stops_the_whole_group(
    fake_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_MODE", "hang")
    started = time.monotonic()
    with pytest.raises(server.LabStartError, match=r"not ready after 1\.5 s") as info:
        server.start_lab("healthy", vllm_python=fake_python, start_timeout_s=1.5)
    assert time.monotonic() - started < 20
    children = _child_pids(info.value.log_path)
    assert children and all(_gone(p) for p in children)
    assert server.list_labs() == []


def test_reference_scenario_starts_two_servers_and_down_stops_both(fake_python: str) -> None:
    handle = server.start_lab("fp8-kv", vllm_python=fake_python, start_timeout_s=30)
    ref = handle.reference
    assert ref is not None and ref.port != handle.port
    assert "--kv-cache-dtype fp8" in handle.log_path.read_text()
    assert "--kv-cache-dtype" not in ref.log_path.read_text()
    assert len(server.list_labs()) == 2
    server.stop_lab()  # no handle: everything recorded in the lab dir, as `lab down` does
    assert _gone(handle.pid) and _gone(ref.pid)
    assert server.list_labs() == []


def test_lab_server_context_manager_stops_on_error(fake_python: str) -> None:
    pid = None
    with (
        pytest.raises(RuntimeError, match="boom"),
        server.lab_server("queueing", vllm_python=fake_python, start_timeout_s=30) as lab,
    ):
        pid = lab.pid
        raise RuntimeError("boom")
    assert pid is not None and _gone(pid)


def test_cli_up_status_down(fake_python: str) -> None:
    from kvdoctor.commands.lab import lab

    runner = CliRunner()
    up = runner.invoke(
        lab, ["up", "--scenario", "healthy", "--vllm-python", fake_python], standalone_mode=False
    )
    assert up.exception is None, up.output
    assert up.return_value == 0
    assert "url: http://127.0.0.1:" in up.output
    status = runner.invoke(lab, ["status", "--json"], standalone_mode=False)
    assert '"state": "healthy"' in status.output
    down = runner.invoke(lab, ["down"], standalone_mode=False)
    assert "stopped healthy-" in down.output
    assert server.list_labs() == []


def test_cli_up_of_a_scenario_meant_to_fail_reports_its_log(
    fake_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kvdoctor.commands.lab import lab

    monkeypatch.setenv("FAKE_VLLM_MODE", "fail")
    result = CliRunner().invoke(
        lab,
        ["up", "--scenario", "kv-too-small", "--vllm-python", fake_python],
        standalone_mode=False,
    )
    assert result.exception is None
    assert "refused to start, as scenario kv-too-small intends" in result.output
    assert "log: " in result.output


def test_sigterm_during_start_stops_the_server_group(
    fake_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal
    import threading

    monkeypatch.setenv("FAKE_VLLM_MODE", "hang")
    lab_dir = Path(os.environ["KVDOCTOR_LAB_DIR"])

    def terminate_when_started() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            logs = list(lab_dir.glob("*.log"))
            if logs and _child_pids(logs[0]):
                break
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    killer = threading.Thread(target=terminate_when_started)
    killer.start()
    with pytest.raises(KeyboardInterrupt):
        server.start_lab("healthy", vllm_python=fake_python, start_timeout_s=30)
    killer.join()
    (log,) = lab_dir.glob("*.log")
    children = _child_pids(log)
    assert children and all(_gone(p) for p in children)
    assert server.list_labs() == []
    # The default SIGTERM disposition is back once the lab call returned.
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
