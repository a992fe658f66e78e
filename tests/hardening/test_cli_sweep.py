"""Issue 25: a sweep of hostile command lines, as an on-call engineer (or a fuzzer) types them.

Every invocation runs the real CLI entry point in this process (``kvdoctor.cli.main``) and must
end with an exit code of 0, 1 or 2 and, on 2, a reason (``check`` prints its per-fixture
results on stdout): never a traceback, no "internal error", never
an exception escaping the CLI. Network flags point at a closed loopback port, so nothing waits.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from kvdoctor.cli import main

DEAD = "http://127.0.0.1:9"
BAD_DURATIONS = ["nan", "inf", "-1s", "0", "1e400", "10x", "", " ", "٣s", "1" * 400]
BAD_URLS = [
    "not a url",
    "ftp://h",
    "http://",
    "http://[::1",
    "http://h:99999",
    "http://u:p@h/?token=x",
    "http://h/#frag",
    "https://h:-1",
    "\x00",
    "http://é.example",
]
BAD_HEADERS = ["NoColon", ": v", "X: é", "Content-Length: 9", "Host: x", "X: a\x7fb", "X Y: z"]
BAD_NUMBERS = ["nan", "-5", "1e999", "abc", "0x10", "", "99999999999999999999999"]


def _invocations(tmp: Path) -> list[list[str]]:
    junk = tmp / "junk.bin"
    junk.write_bytes(b"\xff\xfe\x00garbage")
    empty_dir = tmp / "empty"
    empty_dir.mkdir(exist_ok=True)
    deep = tmp / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    out: list[list[str]] = []
    for d in BAD_DURATIONS:
        out += [
            ["diagnose", "--endpoint", DEAD, "--window", d],
            ["record", "--endpoint", DEAD, "-o", str(tmp / "r"), "--interval", d],
            ["diagnose", "--prometheus", DEAD, "--since", d],
            ["alerts", "--range", d],
        ]
    for u in BAD_URLS:
        out += [
            ["diagnose", "--endpoint", u, "--window", "1s", "--interval", "1s"],
            ["diagnose", "--prometheus", u],
            ["diagnose", "--endpoint", DEAD, "--reference-endpoint", u],
            ["compare", str(empty_dir), u],
            ["reproduce", "prefix-probe", "--endpoint", u],
            ["alerts", "--endpoint", u],
        ]
    for h in BAD_HEADERS:
        out += [
            ["diagnose", "--endpoint", DEAD, "--header", h],
            ["diagnose", "--prometheus", DEAD, "--header", h],
            ["reproduce", "prefix-probe", "--endpoint", DEAD, "--header", h],
            ["diagnose", "--endpoint", DEAD, "--reference-endpoint", DEAD, "--reference-header", h],
        ]
    for n in BAD_NUMBERS:
        out += [
            ["kv", "--model-config", "llama-3-8b", "--context", n],
            ["kv", "--model-config", "llama-3-8b", "--batch", n],
            ["kv", "--model-config", "llama-3-8b", "--gpu-mem", n],
            ["diagnose", "--prometheus", DEAD, "--until", n],
            ["reproduce", "prefix-probe", "--shared-prefix-tokens", n, "--dry-run"],
        ]
    for path in (junk, empty_dir, deep, tmp / "missing", Path("/dev/zero"), Path("/")):
        out += [
            ["diagnose", "--bundle", str(path)],
            ["compare", str(path), str(path)],
            ["check", str(path)],
            ["kv", "--model-config", str(path)],
            ["diagnose", "--bundle", str(empty_dir), "--slo-file", str(path)],
            ["diagnose", "--bundle", str(empty_dir), "--logs", str(path)],
        ]
    for fmt, cmd in itertools.product(["xml", "", "JSON"], ["diagnose", "kv", "rules", "compare"]):
        out.append([cmd, "--format", fmt])
    out += [
        [],
        ["--help"],
        ["nosuchcommand"],
        ["diagnose"],
        ["diagnose", "--endpoint", DEAD, "--bundle", str(empty_dir)],
        ["diagnose", "--bundle", str(empty_dir), "--window", "5s"],
        ["diagnose", "--bundle", str(empty_dir), "--allow-load"],
        ["diagnose", "--bundle", str(empty_dir), "--engine-arg", "max-num-seqs=1"],
        ["diagnose", "--endpoint", DEAD, "--since", "5m"],
        ["diagnose", "--endpoint", DEAD, "--engine-arg", "=="],
        ["diagnose", "--endpoint", DEAD, "--slo", "ttft-p95"],
        ["diagnose", "--endpoint", DEAD, "--slo", "nope=1s"],
        ["diagnose", "--endpoint", DEAD, "--endpoint", DEAD],
        ["diagnose", "--endpoint", DEAD, "-o", "/"],
        ["diagnose", "--endpoint", DEAD, "-o", "/dev/null"],
        ["diagnose", "--endpoint", DEAD, "-o", str(tmp / "no" / "such" / "dir.md")],
        ["diagnose", "--prometheus", DEAD, "--selector", "{{{"],
        ["diagnose", "--prometheus", DEAD, "--selector", '{__name__="x"}'],
        ["diagnose", "--prometheus", DEAD, "--step", "0s"],
        ["record"],
        ["record", "--endpoint", DEAD],
        ["record", "--endpoint", DEAD, "-o", "/"],
        ["reproduce"],
        ["reproduce", "no-such-experiment", "--endpoint", DEAD],
        ["reproduce", "quant-canary", "--endpoint", DEAD],
        ["reproduce", "capacity-ramp", "--endpoint", DEAD, "--dry-run", "--format", "md"],
        ["explain", "no-such-playbook"],
        ["explain", "../../etc/passwd"],
        ["explain", "\x00"],
        ["rules", "--format", "md"],
        ["kv"],
        ["kv", "--model-config", "no/such-model"],
        ["kv", "--model-config", "llama-3-8b", "--kv-dtype", "fp3"],
        ["check"],
        ["compare", str(empty_dir)],
        ["compare", DEAD, str(empty_dir)],
        ["compare", str(empty_dir), str(empty_dir), "--window", "5s"],
        ["alerts", "--vllm-version", "banana"],
        ["alerts", "--vllm-version", "0.11.0", "--endpoint", DEAD],
        ["alerts", "--metric-prefix", "x:"],
        ["alerts", "--for", "nan"],
        ["alerts", "--runbook-url-base", "javascript:alert(1)"],
        ["alerts", "--write-runbooks", "/proc/version"],
        ["alerts", "--write-runbooks", str(tmp / "rb"), "--vllm-version", "0.11.0"],
        ["alerts", "-o", "/"],
        ["lab", "up", "--scenario", "no-such-scenario"],
        ["lab", "nosuchaction"],
        ["demo", "--scenario", "no-such-scenario"],
        ["demo", "--window", "1h"],
    ]
    return out


def test_hostile_command_lines_never_trace_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    invocations = _invocations(tmp_path)
    assert len(invocations) >= 150
    problems: list[str] = []
    for argv in invocations:
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
        except BaseException as exc:
            problems.append(f"{argv!r}: {type(exc).__name__} escaped: {exc}"[:300])
            continue
        else:
            code = 0
        out, err = capsys.readouterr()
        if "Traceback" in out + err or "internal error" in err:
            problems.append(f"{argv!r}: {err.strip()[:300]}")
        elif code not in (0, 1, 2):
            problems.append(f"{argv!r}: exit {code}")
        elif code == 2 and argv and not (err.strip() or out.strip()):
            problems.append(f"{argv!r}: exit 2 without a reason")
    assert problems == [], "\n".join(problems)
