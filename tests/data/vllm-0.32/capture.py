"""Re-capture the raw vLLM 0.32 (CPU build) payloads in this directory from the lab.

Run from the repository root with kvdoctor's venv: ``.venv/bin/python tests/data/vllm-0.32/
capture.py``. It starts lab servers (kvdoctor.lab.server), drives them with plain concurrent
streaming completions over httpx (deliberately not kvdoctor's load generator, so that the
payloads do not depend on the code under test), writes the files and stops every server.
README.md in this directory says what each file is.
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from pathlib import Path

import httpx

from kvdoctor.lab.server import LabStartError, lab_server, start_lab

HERE = Path(__file__).resolve().parent
MODEL = "kvdoctor-tiny-llama"
WORDS = "abcdefghijklmnopqrstuvwxyz"


def prompt(i: int, tokens: int, shared: str = "") -> str:
    # The lab tokenizer is byte-level: one ASCII character is one token.
    own = f"[{i:05d}]"
    body = (WORDS * (tokens // len(WORDS) + 1))[: max(tokens - len(shared) - len(own), 0)]
    return shared + own + body


def stream_one(url: str, text: str, max_tokens: int) -> None:
    body = {
        "model": MODEL,
        "prompt": text,
        "max_tokens": max_tokens,
        "temperature": 0,
        "stream": True,
        "ignore_eos": True,
    }
    with (
        httpx.Client(timeout=120) as c,
        c.stream("POST", url + "/v1/completions", json=body) as r,
    ):
        for _ in r.iter_lines():
            pass


def load(url: str, prompts: list[str], max_tokens: int, concurrency: int) -> threading.Thread:
    """Send ``prompts`` with ``concurrency`` streams in flight, in a background thread."""
    queue = list(prompts)
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if not queue:
                    return
                text = queue.pop(0)
            stream_one(url, text, max_tokens)

    def run() -> None:
        workers = [threading.Thread(target=worker) for _ in range(concurrency)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    t = threading.Thread(target=run)
    t.start()
    return t


def metrics(url: str) -> str:
    return httpx.get(url + "/metrics", timeout=10).text


def write(name: str, text: str) -> None:
    (HERE / name).write_text(text)
    print(f"wrote {name} ({len(text)} chars)", file=sys.stderr)


def capture_healthy() -> None:
    with lab_server("healthy") as lab:
        url = lab.url
        write("version.json", httpx.get(url + "/version").text + "\n")
        write("models.json", httpx.get(url + "/v1/models").text + "\n")
        health = httpx.get(url + "/health")
        write("health.json", json.dumps({"status": health.status_code, "body": health.text}) + "\n")
        write("metrics-idle.txt", metrics(url))
        # Prefix caching on: 12 requests sharing a 512-token prefix, 2 at a time.
        shared = ("The system prompt. " * 40)[:512]
        t = load(url, [prompt(i, 700, shared) for i in range(12)], 32, 2)
        t.join()
        write("metrics-prefix-hits.txt", metrics(url))
        time.sleep(6)  # one more periodic stats line (VLLM_LOG_STATS_INTERVAL=5)
        write("log-startup-healthy.txt", lab.log_path.read_text())


def _busy(text: str) -> float:
    """running + waiting requests in one exposition (0 when absent)."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(("vllm:num_requests_running{", "vllm:num_requests_waiting{")):
            total += float(line.rsplit(" ", 1)[1])
    return total


def capture_preemption() -> None:
    with lab_server("preemption-storm") as lab:
        url = lab.url
        t = load(url, [prompt(i, 128) for i in range(48)], 768, 12)
        samples = []
        while t.is_alive():
            time.sleep(0.5)
            samples.append(metrics(url))
        t.join()
        # The busiest mid-load scrape: most running + waiting requests.
        busiest = max(samples, key=_busy) if samples else metrics(url)
        write("metrics-preemption-load.txt", busiest)
        write("metrics-preemption-after.txt", metrics(url))
        time.sleep(6)
        write("log-preemption.txt", lab.log_path.read_text())


def capture_fp8_startup() -> None:
    with lab_server("fp8-kv") as lab:
        write("metrics-fp8-idle.txt", metrics(lab.url))
        write("log-startup-fp8.txt", lab.log_path.read_text())


def capture_kv_too_small() -> None:
    try:
        handle = start_lab("kv-too-small")
    except LabStartError as exc:
        shutil.copyfile(exc.log_path, HERE / "log-startup-kv-too-small.txt")
        print("wrote log-startup-kv-too-small.txt", file=sys.stderr)
        return
    # vLLM started after all: record that loudly rather than silently keep an old file.
    from kvdoctor.lab.server import stop_lab

    stop_lab(handle)
    raise SystemExit("kv-too-small unexpectedly started: vLLM's behaviour changed")


def capture_kv_residency() -> None:
    """KV block residency histograms (vLLM 0.12+ ``--kv-cache-metrics``, every block sampled).

    eviction-churn's 24-block pool: requests sharing a 512-token prefix (reuse), then distinct
    1,000-token prompts that evict it, then the shared prefix again.
    """
    extra = ["--kv-cache-metrics", "--kv-cache-metrics-sample", "1.0"]
    with lab_server("eviction-churn", extra_args=extra) as lab:
        url = lab.url
        write("metrics-kv-residency-idle.txt", metrics(url))
        shared = ("The system prompt. " * 40)[:512]
        load(url, [prompt(i, 700, shared) for i in range(6)], 16, 2).join()
        load(url, [prompt(100 + i, 1000) for i in range(8)], 16, 2).join()
        load(url, [prompt(200 + i, 700, shared) for i in range(4)], 16, 2).join()
        write("metrics-kv-residency-after.txt", metrics(url))
        time.sleep(6)
        write("log-kv-residency.txt", lab.log_path.read_text())


STEPS = {
    "healthy": capture_healthy,
    "preemption": capture_preemption,
    "fp8": capture_fp8_startup,
    "kv-too-small": capture_kv_too_small,
    "kv-residency": capture_kv_residency,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(STEPS):
        STEPS[name]()
