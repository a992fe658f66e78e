"""``kvdoctor serve``: receive Alertmanager webhooks and put the diagnosis on the ticket."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any

import click

from kvdoctor.commands._alerting_opts import alerting_options, build_config
from kvdoctor.errors import KvdoctorError


def _log(line: str) -> None:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    sys.stderr.write(f"{stamp} kvdoctor serve: {line}\n")
    sys.stderr.flush()


@click.command("serve")
@alerting_options
@click.option("--listen", default=None, metavar="HOST:PORT", help="Address (127.0.0.1:9095).")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File holding the bearer token webhooks must carry (default: $KVDOCTOR_SERVE_TOKEN).",
)
@click.option("--no-auth", is_flag=True, default=None, help="Accept webhooks without a token.")
@click.option("--tls-cert", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--tls-key", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--max-concurrent", type=int, default=None, help="Investigations at once (2).")
@click.option("--max-queue", type=int, default=None, help="Jobs waiting at most (100).")
@click.option(
    "--check-config",
    is_flag=True,
    help="Print the effective settings (no secrets) and exit.",
)
def serve(check_config: bool, **params: Any) -> int:
    """Receive Alertmanager webhooks (webhook_configs, version 4) and diagnose what fires.

    Each alert group is investigated once per episode: the Prometheus history before the
    alert started, the report in <state dir>/groups/<fingerprint>/<episode>/, a summary to
    each sink; when the group resolves, a compare of before and after. Endpoints: POST
    /alerts, GET /healthz, GET /metrics.
    """
    from kvdoctor.alerting.server import make_server, parse_listen
    from kvdoctor.alerting.service import Service
    from kvdoctor.alerting.state import State

    extra = {
        k: params.pop(k)
        for k in list(params)
        if k
        in ("listen", "token_file", "no_auth", "tls_cert", "tls_key", "max_concurrent", "max_queue")
    }
    cfg = build_config(params, **extra)
    if (cfg.tls_cert is None) != (cfg.tls_key is None):
        raise KvdoctorError("--tls-cert and --tls-key go together")
    if check_config:
        from urllib.parse import urlsplit

        import yaml

        shown = cfg.model_dump(mode="json")
        for sink in shown["sinks"]:
            # A Slack webhook's path is its secret: show where it goes, not the credential.
            parts = urlsplit(sink["url"])
            sink["url"] = (
                f"{parts.scheme}://{parts.netloc}/…" if parts.path.strip("/") else sink["url"]
            )

        click.echo(yaml.safe_dump(shown, sort_keys=True, allow_unicode=True), nl=False)
        return 0
    parse_listen(cfg.listen)
    token = cfg.bearer_token()
    state = State(cfg.state_dir)
    service = Service(cfg, state, log=_log)
    tls = (cfg.tls_cert, cfg.tls_key) if cfg.tls_cert and cfg.tls_key else None
    server = make_server(service, cfg.listen, token, _log, tls)
    host, port = str(server.server_address[0]), int(server.server_address[1])
    scheme = "https" if tls else "http"

    def _terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    service.start()
    _log(
        f"listening on {scheme}://{host}:{port} (state {cfg.state_dir}, "
        f"{cfg.max_concurrent} at once, queue {cfg.max_queue}, "
        f"{'no auth' if token is None else 'bearer token required'})"
    )
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        _log("stopping: running jobs are queued again at the next start")
    finally:
        service.stop(timeout_s=5.0)
        server.server_close()
        state.close()
    return 0
