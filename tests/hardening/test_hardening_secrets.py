"""Issue 14, items 1-2: no credential leaves the machine, whatever path it takes.

Credentials are planted everywhere a user can put them (URL userinfo, a query token,
``--header``, ``--api-key``/``--hf-token`` in server logs in both ``--k v`` and ``--k=v``
forms) across the endpoint, fleet, Prometheus and log paths. The servers echo whatever they are
sent. Then every file the runs wrote (bundles, tar members, reports) and all of stdout/stderr
is searched for every planted value.
"""

from __future__ import annotations

import base64
from pathlib import Path

from _hostile import Echo, Run, kvdoctor, serve, written_texts

PW = "PWuserinfo7c1d"
QTOKEN = "QTOKENq9z8y7"
HDR = "HDRtoken5e4f3a2b"
PROM_PW = "PROMPWuserinfo42"
PROM_HDR = "PROMHDRtoken77"
LOG_SECRETS = [
    "sk-LOGKEYspace0123456789",  # --api-key sk-…
    "sk-LOGKEYequals012345678",  # --api-key=sk-…
    "hf_LOGHFspace0123456789ab",  # --hf-token hf_…
    "hf_LOGHFequals0123456789a",  # --hf-token=hf_…
    "plainAPIkeySpace99",  # a key without a recognisable shape, after the flag
    "plainAPIkeyEquals98",
]
LOCAL_FILE_SECRET = "LOCALFILEsecret31"
PLANTED = [
    PW,
    base64.b64encode(f"alice:{PW}".encode()).decode(),
    QTOKEN,
    HDR,
    PROM_PW,
    base64.b64encode(f"bob:{PROM_PW}".encode()).decode(),
    PROM_HDR,
    LOCAL_FILE_SECRET,
    *LOG_SECRETS,
]

LOG_TEXT = f"""\
INFO 12-01 04:00:00 [api_server.py:1] vLLM API server version 0.32.0
INFO 12-01 04:00:00 [cli_args.py:2] argv: vllm serve m --api-key {LOG_SECRETS[0]} --port 8000
INFO 12-01 04:00:00 [cli_args.py:2] argv: vllm serve m --api-key={LOG_SECRETS[1]}
INFO 12-01 04:00:00 [cli_args.py:2] argv: vllm serve m --hf-token {LOG_SECRETS[2]}
INFO 12-01 04:00:00 [cli_args.py:2] argv: vllm serve m --hf-token={LOG_SECRETS[3]}
INFO 12-01 04:00:00 [cli_args.py:2] argv: vllm serve m --api-key {LOG_SECRETS[4]}
INFO 12-01 04:00:00 [cli_args.py:2] argv: vllm serve m --api-key={LOG_SECRETS[5]}
"""

WINDOW = ["--window", "1s", "--interval", "0.5s", "--no-progress"]


def _leaks(runs: list[Run], root: Path) -> list[str]:
    texts = {f"stdout #{i}": r.stdout for i, r in enumerate(runs)}
    texts.update({f"stderr #{i}": r.stderr for i, r in enumerate(runs)})
    texts.update(written_texts(root))
    return [
        f"{secret} in {where}" for where, t in texts.items() for secret in PLANTED if secret in t
    ]


def test_planted_credentials_reach_no_file_and_no_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    logs = tmp_path / "server.log"
    logs.write_text(LOG_TEXT, encoding="utf-8")
    # A directory the server names as its model root: JSON that is no model config.
    local_dir = tmp_path / "docker"
    local_dir.mkdir()
    (local_dir / "config.json").write_text(
        '{"auths": {"registry": {"auth": "' + LOCAL_FILE_SECRET + '"}}}', encoding="utf-8"
    )
    runs: list[Run] = []
    echo_a = Echo(model_root=str(local_dir))
    with serve("vllm", echo_a) as (hp_a, _), serve("vllm") as (hp_b, echo_b):
        # Endpoint: userinfo, bundle as .tar.gz, logs from a file.
        runs.append(
            kvdoctor(
                [
                    "diagnose",
                    "--endpoint",
                    f"http://alice:{PW}@{hp_a}",
                    *WINDOW,
                    "--logs",
                    str(logs),
                    "--save-bundle",
                    str(out / "one.tar.gz"),
                    "-o",
                    str(out / "one.md"),
                ],
                cwd=out,
            )
        )
        # Endpoint: an explicit header, logs on stdin in both flag forms, JSON on stdout.
        runs.append(
            kvdoctor(
                [
                    "diagnose",
                    "--endpoint",
                    f"http://{hp_b}",
                    *WINDOW,
                    "--header",
                    f"Authorization: Bearer {HDR}",
                    "--logs",
                    "-",
                    "--save-bundle",
                    str(out / "two"),
                    "--format",
                    "json",
                    "--redact",
                ],
                cwd=out,
                stdin=LOG_TEXT.encode(),
            )
        )
        # Fleet: the same userinfo on two replicas.
        runs.append(
            kvdoctor(
                [
                    "diagnose",
                    "--endpoint",
                    f"http://alice:{PW}@{hp_a}",
                    "--endpoint",
                    f"http://alice:{PW}@{hp_b}",
                    *WINDOW,
                    "--save-bundle",
                    str(out / "fleet"),
                    "-o",
                    str(out / "fleet.md"),
                ],
                cwd=out,
            )
        )
        # One reproducer on its own, saved as a bundle.
        runs.append(
            kvdoctor(
                [
                    "reproduce",
                    "prefix-probe",
                    "--endpoint",
                    f"http://alice:{PW}@{hp_a}",
                    "--save-bundle",
                    str(out / "repro"),
                ],
                cwd=out,
            )
        )
        # Refused combinations: userinfo with an Authorization header; a query token.
        both = kvdoctor(
            [
                "diagnose",
                "--endpoint",
                f"http://alice:{PW}@{hp_a}",
                "--header",
                f"Authorization: Bearer {HDR}",
                *WINDOW,
            ],
            cwd=out,
        )
        query = kvdoctor(
            ["diagnose", "--endpoint", f"http://{hp_a}/?token={QTOKEN}", *WINDOW], cwd=out
        )
        runs += [both, query]
    with serve("prom") as (prom_hp, prom_echo):
        # Prometheus: userinfo with an answer that echoes it, and with a header.
        runs.append(
            kvdoctor(["diagnose", "--prometheus", f"http://bob:{PROM_PW}@{prom_hp}"], cwd=out)
        )
        runs.append(
            kvdoctor(
                [
                    "diagnose",
                    "--prometheus",
                    f"http://{prom_hp}",
                    "--header",
                    f"Authorization: Bearer {PROM_HDR}",
                ],
                cwd=out,
            )
        )
    # Prometheus down (the server just stopped): the error names it without the password.
    runs.append(kvdoctor(["diagnose", "--prometheus", f"http://bob:{PROM_PW}@{prom_hp}"], cwd=out))

    # The credentials did travel: each server got them as the user meant.
    basic = "Basic " + base64.b64encode(f"alice:{PW}".encode()).decode()
    assert basic in echo_a.authorizations and basic in echo_b.authorizations
    assert f"Bearer {HDR}" in echo_b.authorizations
    assert "Basic " + base64.b64encode(f"bob:{PROM_PW}".encode()).decode() in (
        prom_echo.authorizations
    )
    assert f"Bearer {PROM_HDR}" in prom_echo.authorizations
    # The runs did what they should: reports and bundles exist, refusals are one line, exit 2.
    assert runs[0].rc in (0, 1) and (out / "one.md").is_file() and (out / "one.tar.gz").is_file()
    assert runs[1].rc in (0, 1) and '"schema": "kvdoctor.report/1"' in runs[1].stdout
    assert runs[2].rc in (0, 1) and (out / "fleet.md").is_file()
    # The hostile server answers 404 to the probe, echoing what it was sent: a one-line error.
    assert runs[3].rc == 2 and "the first probe failed" in runs[3].stderr
    for refused in (both, query, *runs[6:]):
        assert refused.rc == 2, refused.stderr
        assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert "use one of them" in both.stderr and "query string" in query.stderr
    assert "cannot reach Prometheus" in runs[-1].stderr
    # The server-named directory was not read, and the report says why.
    assert "not read because no server process" in (out / "one.md").read_text(encoding="utf-8")

    assert _leaks(runs, out) == []
