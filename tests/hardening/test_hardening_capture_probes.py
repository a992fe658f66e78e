"""The server probes beside the capture window, and model-config discovery under --redact.

A server whose /version, /v1/models and /health never answer must not cost the metrics window
its scrapes; --redact changes what is written, never what kvdoctor can find out (the served
model's config.json is still read from the path the local server process names).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

from _hostile import DATA, Echo, kvdoctor, serve


def test_silent_server_probes_leave_the_window_its_scrapes(tmp_path: Path) -> None:
    # Window 4 s at 1 s: five scrapes. Before, the three probes ran first under the window's own
    # deadline and used all of it: one scrape was taken.
    with serve("vllm", Echo(mode="slow-info")) as (hp, echo):
        started = time.monotonic()
        run = kvdoctor(
            [
                "record",
                "--endpoint",
                f"http://{hp}",
                "-o",
                str(tmp_path / "b"),
                "--window",
                "4s",
                "--interval",
                "1s",
                "--timeout",
                "10s",
                "--no-progress",
            ],
            cwd=tmp_path,
        )
        elapsed = time.monotonic() - started
    assert run.rc == 0, run.stderr
    assert "Traceback" not in run.stderr
    lines = (tmp_path / "b" / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5 and all("error" not in json.loads(x) for x in lines), lines
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))
    whats = {nc["what"]: nc["why"] for nc in manifest["not_checked"]}
    # Each probe stopped at the probes' own deadline (5 s), said in one line per probe.
    assert (
        whats["server"].count("no answer within 4.") + whats["server"].count("no answer within 5")
        == 3
    ), whats
    assert "scrapes not taken" not in manifest["notes"], manifest["notes"]
    # The probes' own deadline (5 s) runs beside the window, not after it.
    assert elapsed < 25.0, elapsed
    assert any(p == "/version" for p in echo.paths)


# A stand-in for a local `vllm serve` process: its command line names the model directory and
# the port, as vLLM's does, so kvdoctor's port probe finds it and trusts the path it serves.
SERVER = """
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, model, data = int(sys.argv[-3]), sys.argv[-5], sys.argv[-1]
metrics = open(data + "/metrics-idle.txt", encoding="utf-8").read()
models = json.load(open(data + "/models.json", encoding="utf-8"))
models["data"][0]["root"] = model
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        return
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/metrics":
            body, ctype = metrics, "text/plain; version=0.0.4"
        elif path == "/v1/models":
            body, ctype = json.dumps(models), "application/json"
        elif path == "/version":
            body, ctype = '{"version": "0.32.0"}', "application/json"
        else:
            body, ctype = "", "text/plain"
        raw = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
"""

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "hidden_size": 256,
    "head_dim": 64,
    "intermediate_size": 512,
    "torch_dtype": "bfloat16",
    "vocab_size": 1000,
    "max_position_embeddings": 2048,
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_redact_does_not_stop_model_config_discovery(tmp_path: Path) -> None:
    model = tmp_path / "private-models" / "acme-llama"
    model.mkdir(parents=True)
    (model / "config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    port = _free_port()
    argv = [
        sys.executable,
        "-c",
        SERVER,
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model),
        "--port",
        str(port),
        "--data",
        str(DATA),
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        runs = {}
        for mode in ("plain", "redact"):
            out = tmp_path / f"b-{mode}"
            args = [
                "record",
                "--endpoint",
                f"http://127.0.0.1:{port}",
                "-o",
                str(out),
                "--window",
                "1s",
                "--interval",
                "1s",
                "--no-progress",
            ]
            runs[mode] = kvdoctor([*args, "--redact"] if mode == "redact" else args, cwd=tmp_path)
            assert runs[mode].rc == 0, runs[mode].stderr
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    for mode in ("plain", "redact"):
        out = tmp_path / f"b-{mode}"
        # Found with --redact as without it: the model's own numbers are in the bundle.
        got = json.loads((out / "model_config.json").read_text(encoding="utf-8"))
        assert got["num_key_value_heads"] == 2 and got["head_dim"] == 64, (mode, got)
    # ...and only what is written is redacted: the path appears nowhere in the redacted bundle.
    written = "".join(
        p.read_text(encoding="utf-8") for p in (tmp_path / "b-redact").iterdir() if p.is_file()
    )
    assert "private-models" not in written and str(tmp_path) not in written
    manifest = json.loads((tmp_path / "b-redact" / "manifest.json").read_text(encoding="utf-8"))
    assert not any(nc["what"] == "model_config" for nc in manifest["not_checked"]), manifest
