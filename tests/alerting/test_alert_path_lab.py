"""The whole alert path with real parts (lab tier).

A lab vLLM mis-sized on purpose (the preemption-storm scenario: 16 usable KV blocks), a real
Prometheus scraping it and evaluating the rules of ``kvdoctor alerts``, a real Alertmanager
(Debian's ``prometheus-alertmanager``) with the shipped inhibition rules routing to
``kvdoctor serve``, and a local sink. The sink must get the summary naming the primary
finding; then the fix (the change the summary puts first: drop the block override, same
port), the alert resolves, and the compare arrives at the same sink.

Sized for a 2-core host: one vLLM at a time, windows of 30 s, about 4 minutes in all.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from click.testing import CliRunner
from labenv import lab_python_or_skip, tool_or_skip

from kvdoctor.alerting.config import ServeConfig, SinkConfig
from kvdoctor.alerting.server import make_server, serve_in_thread
from kvdoctor.alerting.service import Service
from kvdoctor.alerting.state import State
from kvdoctor.cli import cli
from kvdoctor.lab.scenarios import get_scenario
from kvdoctor.lab.server import lab_server
from kvdoctor.reproducers.loadgen import LoadSpec, run_load_sync
from tests.alerting.conftest import Sink
from tests.fleet.conftest import free_port

pytestmark = pytest.mark.lab

TOKEN = "lab-token"
# Long outputs at 12 at once: live KV demand is several times the storm's 2,048-token pool.
STORM = LoadSpec(prompt_tokens=128, max_tokens=384, concurrency=12, requests=60, duration_s=50)
# After the fix the same kind of traffic keeps the after-window busy (no preemption now).
AFTER = LoadSpec(prompt_tokens=128, max_tokens=128, concurrency=4, requests=400, duration_s=75)


def _wait_ready(url: str, proc: subprocess.Popen[bytes], log: Path, path: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(log.read_text()[-3000:])
        try:
            if httpx.get(url + path, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(log.read_text()[-3000:])


class Stack:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, argv: list[str], name: str, url: str, ready: str) -> None:
        log = self.tmp / f"{name}.log"
        with log.open("wb") as fh:
            proc = subprocess.Popen(argv, stdout=fh, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        _wait_ready(url, proc, log, ready)

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    s = Stack(tmp_path)
    yield s
    s.stop()


def test_alert_to_ticket_then_fix_and_compare(
    tmp_path: Path, stack: Stack, sink: Sink, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = lab_python_or_skip()
    prometheus = tool_or_skip("prometheus")
    alertmanager = tool_or_skip("prometheus-alertmanager")
    monkeypatch.setenv("KVDOCTOR_LAB_DIR", str(tmp_path / "lab"))

    # kvdoctor serve, in this process.
    state = State(tmp_path / "state")
    cfg = ServeConfig(
        state_dir=tmp_path / "state",
        lookback="60s",
        step="1s",
        after_window="30s",
        sinks=[SinkConfig(kind="webhook", url=sink.url)],
    )
    serve_port = free_port()
    am_port, prom_port = free_port(), free_port()
    cfg = cfg.model_copy(update={"prometheus": f"http://127.0.0.1:{prom_port}"})
    service = Service(cfg, state)
    server = make_server(service, f"127.0.0.1:{serve_port}", TOKEN, lambda _l: None)
    service.start()
    serve_in_thread(server)

    # The rules and the inhibition rules, as an operator generates them.
    rules, inhibit = tmp_path / "rules.yml", tmp_path / "inhibit.yml"
    result = CliRunner().invoke(
        cli,
        [
            "alerts",
            "--window",
            "30s",
            "--for",
            "5s",
            "-o",
            str(rules),
            "--inhibit-rules",
            str(inhibit),
        ],
        standalone_mode=False,
    )
    assert result.exception is None, result.output

    storm = get_scenario("preemption-storm")
    try:
        with lab_server("preemption-storm", vllm_python=python) as lab:
            target = f"127.0.0.1:{lab.port}"
            am_cfg = {
                "route": {
                    "receiver": "other",
                    "routes": [
                        {
                            "receiver": "kvdoctor",
                            "matchers": [
                                'kvdoctor_playbook="preemption"',
                                'kvdoctor_cause="kv-capacity"',
                            ],
                            "group_by": ["kvdoctor_playbook", "kvdoctor_cause", "instance"],
                            "group_wait": "1s",
                            "group_interval": "2s",
                            "repeat_interval": "1h",
                        }
                    ],
                },
                "receivers": [
                    {"name": "other"},
                    {
                        "name": "kvdoctor",
                        "webhook_configs": [
                            {
                                "url": f"http://127.0.0.1:{serve_port}/alerts",
                                "send_resolved": True,
                                "http_config": {
                                    "authorization": {"type": "Bearer", "credentials": TOKEN}
                                },
                            }
                        ],
                    },
                ],
                **yaml.safe_load(inhibit.read_text()),
            }
            (tmp_path / "am.yml").write_text(yaml.safe_dump(am_cfg))
            stack.start(
                [
                    alertmanager,
                    f"--config.file={tmp_path / 'am.yml'}",
                    f"--storage.path={tmp_path / 'am-data'}",
                    f"--web.listen-address=127.0.0.1:{am_port}",
                    "--cluster.listen-address=",
                ],
                "alertmanager",
                f"http://127.0.0.1:{am_port}",
                "/-/ready",
            )
            prom_cfg = {
                "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                "rule_files": [str(rules)],
                "alerting": {
                    "alertmanagers": [{"static_configs": [{"targets": [f"127.0.0.1:{am_port}"]}]}]
                },
                "scrape_configs": [{"job_name": "vllm", "static_configs": [{"targets": [target]}]}],
            }
            (tmp_path / "prom.yml").write_text(yaml.safe_dump(prom_cfg))
            stack.start(
                [
                    prometheus,
                    f"--config.file={tmp_path / 'prom.yml'}",
                    f"--web.listen-address=127.0.0.1:{prom_port}",
                    f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                ],
                "prometheus",
                f"http://127.0.0.1:{prom_port}",
                "/-/ready",
            )
            load = threading.Thread(target=run_load_sync, args=(lab.url, lab.model, STORM))
            load.start()
            got = sink.wait(1, timeout_s=150)
            load.join(timeout=STORM.duration_s + 60)

        first = got[0]["body"]
        assert first["kind"] == "diagnosis", first
        assert first["replicas"] == [target], first
        assert first["primary"]["symptom"] == "preemption", first
        assert first["primary"]["cause"] == "kv-capacity", first
        assert first["alertnames"][0].startswith("KvdoctorPreemptionKvCapacity"), first

        # The fix: the change the summary puts first, on the same server and port. History
        # from Prometheus carries no process argv, so the block override stays invisible and
        # the first change is a --max-num-seqs the pool holds; the server's own value (16) is
        # not in the bundle, so the summary never states one (vLLM's default 128 is not it).
        change = first["change_first"] or ""
        flags = list(storm.engine_args)
        if change.startswith("Remove --num-gpu-blocks-override"):
            i = flags.index("--num-gpu-blocks-override")
            del flags[i : i + 2]
        else:
            m = re.match(
                r"Lower --max-num-seqs to (\d+) \(the bundle does not record its value\)", change
            )
            assert m is not None, change
            flags[flags.index("--max-num-seqs") + 1] = m.group(1)
        fixed_flags = flags
        with lab_server(
            "preemption-storm", port=lab.port, vllm_python=python, engine_args=fixed_flags
        ) as fixed:
            load = threading.Thread(target=run_load_sync, args=(fixed.url, fixed.model, AFTER))
            load.start()
            got = sink.wait(2, timeout_s=200)
            load.join(timeout=AFTER.duration_s + 60)
        after = got[1]["body"]
        assert after["kind"] == "compare", after
        assert after["group"] == first["group"] and after["episode"] == first["episode"]
        assert after["compare"]["primary"] == "preemption/kv-capacity", after
        assert after["compare"]["primary_result"] == "gone", after
        assert after["compare"]["verified"] is True, after
        folder = tmp_path / "state" / "groups" / first["group"] / first["episode"]
        assert "preemption" in (folder / "compare.md").read_text()
    finally:
        service.stop()
        server.shutdown()
        server.server_close()
        state.close()
