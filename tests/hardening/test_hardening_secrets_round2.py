"""Issue 25, credentials: no path the first round missed takes a secret or a local detail out.

Planted: userinfo on ``--reference-endpoint`` and on ``compare``'s AFTER URL, an ``X-Api-Key``
header a Prometheus redirect would carry to another server, secrets in server logs in the shapes
redaction missed, a header echoed back in another letter case, and (with ``--redact``) the
reference host, the ``--save-bundle`` path and local paths. Every file the runs wrote and all of
stdout/stderr are searched for each of them.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from _hostile import Echo, PromFleet, Run, kvdoctor, prom_handler, serve, written_texts

REF_PW = "REFPWuserinfo3b9"
CMP_PW = "CMPPWuserinfo8d2"
API_KEY = "XAPIKEYheader61c"
ECHO_HDR = "echoCaseToken7a1b"
LOG_SECRETS = {
    "pg": "PGPASSinurl55",
    "k2": "SECONDapikey77x",
    "json": "JSONFLAGtoken99",
}
_PFX = "INFO 12-01 04:00:00 [cli_args.py:2]"
LOG_TEXT = "\n".join(
    [
        "INFO 12-01 04:00:00 [api_server.py:1] vLLM API server version 0.32.0",
        f"{_PFX} argv: vllm serve m --api-key FIRSTapikey66 {LOG_SECRETS['k2']} --port 8000",
        f'{_PFX} kv_transfer_config={{"kv_connector_extra_config": '
        f'{{"token": "{LOG_SECRETS["json"]}"}}}}',
        f"{_PFX} metrics sink postgres://vllm:{LOG_SECRETS['pg']}@db.corp.example.com/m",
        f"{_PFX} deployed by ssh root@gpu-17.corp.example.com from bastion-2.k8s",
        f"{_PFX} loading weights from file:///raid/models/llama",
        "",
    ]
)
REDACTED_DETAILS = [
    "gpu-17.corp.example.com",
    "root@",
    "bastion-2.k8s",
    "/raid/models",
    "127.0.0.2",
]
# A generous per-request timeout: these runs share a small host with other test servers.
WINDOW = ["--window", "2s", "--interval", "1s", "--no-progress", "--timeout", "20s"]


def _b64(pair: str) -> str:
    return base64.b64encode(pair.encode()).decode()


def _texts(runs: list[Run], root: Path) -> dict[str, str]:
    texts = {f"stdout #{i}": r.stdout for i, r in enumerate(runs)}
    texts.update({f"stderr #{i}": r.stderr for i, r in enumerate(runs)})
    texts.update(written_texts(root))
    return texts


def _found(needles: list[str], texts: dict[str, str]) -> list[str]:
    return [f"{n!r} in {where}" for where, t in texts.items() for n in needles if n in t]


def test_reference_compare_and_logs_leak_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    logs = tmp_path / "server.log"
    logs.write_text(LOG_TEXT, encoding="utf-8")
    runs: list[Run] = []
    echo_t = Echo(case="upper")
    with (
        serve("vllm", echo_t) as (hp, _),
        serve("vllm", host="127.0.0.2") as (ref_hp, ref_echo),
    ):
        ref_url = f"http://carol:{REF_PW}@{ref_hp}"
        # The reference carries userinfo; the target echoes its header upper-cased.
        live = kvdoctor(
            [
                "diagnose",
                "--endpoint",
                f"http://{hp}",
                "--header",
                f"Authorization: Bearer {ECHO_HDR}",
                "--reference-endpoint",
                ref_url,
                *WINDOW,
                "--logs",
                str(logs),
                "--save-bundle",
                str(out / "live"),
                "-o",
                str(out / "live.md"),
                "--redact",
            ],
            cwd=out,
        )
        runs.append(live)
        # The same logs recorded without --redact: the secrets still never reach the bundle.
        runs.append(
            kvdoctor(
                [
                    "record",
                    "--endpoint",
                    f"http://{hp}",
                    *WINDOW,
                    "--logs",
                    str(logs),
                    "-o",
                    str(out / "plain"),
                ],
                cwd=out,
            )
        )
        # compare BEFORE with AFTER = a URL with userinfo, with and without --redact.
        for i, extra in enumerate(([], ["--redact"])):
            runs.append(
                kvdoctor(
                    [
                        "compare",
                        str(out / "plain"),
                        f"http://alice:{CMP_PW}@{hp}",
                        *WINDOW,
                        "--no-reproduce",
                        "-o",
                        str(out / f"compare-{i}.md"),
                        *extra,
                    ],
                    cwd=out,
                )
            )
        # A query string on the reference is refused, in one line, before anything is sent.
        query = kvdoctor(
            [
                "diagnose",
                "--endpoint",
                f"http://{hp}",
                "--reference-endpoint",
                f"http://{ref_hp}/?token={REF_PW}",
                *WINDOW,
            ],
            cwd=out,
        )
        runs.append(query)
    assert runs[1].rc == 0, runs[1].stderr
    basic = "Basic " + _b64(f"carol:{REF_PW}")
    # The reference got its credential as a header, and only the reference got it.
    assert basic in ref_echo.authorizations, ref_echo.authorizations
    assert basic not in echo_t.authorizations
    assert f"Bearer {ECHO_HDR}" not in ref_echo.authorizations
    assert live.rc in (0, 1), live.stderr
    assert (out / "live.md").is_file() and (out / "live" / "reproducers.jsonl").is_file()
    for i in (0, 1):
        assert runs[2 + i].rc in (0, 1, 2) and "Traceback" not in runs[2 + i].stderr
        assert (out / f"compare-{i}.md").is_file(), runs[2 + i].stderr
    assert query.rc == 2 and "query string" in query.stderr and query.stderr.count("\n") == 1

    texts = _texts(runs, out)
    secrets = [
        REF_PW,
        _b64(f"carol:{REF_PW}"),
        CMP_PW,
        _b64(f"alice:{CMP_PW}"),
        ECHO_HDR,
        ECHO_HDR.upper(),
        *LOG_SECRETS.values(),
    ]
    assert _found(secrets, texts) == []
    # With --redact: hosts (the reference's too), users, local paths and the bundle's absolute
    # path are gone from the report and the bundle it saved.
    redacted = {k: v for k, v in texts.items() if "live" in k or k.startswith(("stdout #0",))}
    assert _found([*REDACTED_DETAILS, str(out)], redacted) == []
    assert "alice" not in (out / "compare-0.md").read_text(encoding="utf-8")


def test_prometheus_redirect_to_another_server_carries_no_header(tmp_path: Path) -> None:
    other = PromFleet(pods={"p-0": {"kv_cache_usage_perc": 0.5}})
    with serve(handler=prom_handler(other)) as (other_hp, _):
        first = PromFleet(mode="redirect", redirect_to=f"http://{other_hp}")
        with serve(handler=prom_handler(first)) as (first_hp, _):
            run = kvdoctor(
                [
                    "diagnose",
                    "--prometheus",
                    f"http://{first_hp}",
                    "--header",
                    f"X-Api-Key: {API_KEY}",
                    "--header",
                    f"Authorization: Bearer {API_KEY}x",
                ],
                cwd=tmp_path,
            )
    assert first.headers_seen and first.headers_seen[0].get("X-Api-Key") == API_KEY
    # Nothing reached the other server: not the key, not even a request.
    assert other.headers_seen == []
    assert run.rc == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "redirected" in run.stderr and "not followed" in run.stderr
    assert API_KEY not in run.stderr + run.stdout


def test_prometheus_redirect_within_its_origin_is_followed(tmp_path: Path) -> None:
    fleet = PromFleet(
        pods={"p-0": {"kv_cache_usage_perc": 0.5, "num_requests_running": 1.0}},
        info={"p-0": {"block_size": "16"}},
    )
    handler = prom_handler(fleet)

    class Redirecting(handler):  # type: ignore[misc, valid-type]
        def do_POST(self) -> None:
            if self.path.startswith("/api/"):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                self._send(307, b"{}", {"Location": "/prom" + self.path})
                return
            self.path = self.path.removeprefix("/prom")
            super().do_POST()

    with serve(handler=Redirecting) as (hp, _):
        run = kvdoctor(
            [
                "diagnose",
                "--prometheus",
                f"http://{hp}",
                "--header",
                f"X-Api-Key: {API_KEY}",
                "--since",
                "5m",
                "--format",
                "json",
            ],
            cwd=tmp_path,
        )
    assert "redirected" not in run.stderr, run.stderr
    # The answers were read through the redirect: the fleet report is there (two series of one
    # pod are too little to diagnose, so it may say "unknown").
    assert '"schema": "kvdoctor.report/1"' in run.stdout, run.stderr
    assert len(fleet.headers_seen) >= 3
    assert all(h.get("X-Api-Key") == API_KEY for h in fleet.headers_seen)


def test_redact_hides_the_save_bundle_path_in_a_replay_too(tmp_path: Path) -> None:
    with serve() as (hp, _):
        run = kvdoctor(
            ["record", "--endpoint", f"http://{hp}", *WINDOW, "-o", str(tmp_path / "b")],
            cwd=tmp_path,
        )
    assert run.rc == 0, run.stderr
    replay = kvdoctor(["diagnose", "--bundle", str(tmp_path / "b"), "--redact"], cwd=tmp_path)
    assert str(tmp_path) not in replay.stdout and "`b`" in replay.stdout
    assert os.sep + "b`" not in replay.stdout
