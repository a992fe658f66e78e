"""``kvdoctor serve`` / ``investigate`` settings: a YAML file, flags on top.

Secrets are never part of the file: the receiver's bearer token comes from ``token_file`` or
the environment variable ``token_env`` names, and each sink's credential from its own
``token_env``. The file holds names of secrets, not secrets, so it can be committed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kvdoctor.errors import KvdoctorError

SinkKind = Literal["webhook", "github", "gitlab", "slack"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SinkConfig(_Strict):
    kind: SinkKind
    # Where the summary is POSTed: the webhook, the comments API
    # (https://api.github.com/repos/O/R/issues/N/comments, GitLab's
    # /api/v4/projects/ID/issues/IID/notes) or a Slack incoming webhook.
    url: str
    # Name of the environment variable holding the credential (GitHub: a token sent as
    # "Authorization: Bearer", GitLab: "PRIVATE-TOKEN", webhook: "Authorization: Bearer").
    token_env: str | None = None
    name: str | None = None  # how the state and logs call it (default: kind + position)

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if not v.startswith(("http://", "https://")):
            raise ValueError("must be an http(s) URL")
        return v


class LoadRule(_Strict):
    """Experiments that add load are allowed for alerts whose labels match all of these."""

    match: dict[str, str]


class ServeConfig(_Strict):
    listen: str = "127.0.0.1:9095"
    state_dir: Path = Path("kvdoctor-state")
    token_file: Path | None = None
    token_env: str | None = "KVDOCTOR_SERVE_TOKEN"
    # Accept webhooks without a bearer token (only where the network already authenticates).
    no_auth: bool = False
    tls_cert: Path | None = None
    tls_key: Path | None = None
    prometheus: str | None = None
    prometheus_token_env: str | None = None
    mapping: Path | None = None
    # History before startsAt, range-query step ("auto": about 120 points), and after a resolve.
    lookback: str = "15m"
    step: str = "auto"
    after_window: str = "5m"
    # How long after the resolve the compare keeps waiting for a window with the replica's
    # data (the server restarting with its fix, Prometheus not scraping it yet).
    after_wait: str = "10m"
    # Short live capture of the replica (0 = none) and whether its no-load experiments run.
    live_window: str = "0s"
    experiments: bool = True
    allow_load: list[LoadRule] = Field(default_factory=list)
    max_concurrent: int = Field(default=2, ge=1, le=64)
    max_queue: int = Field(default=100, ge=1, le=100_000)
    max_body_bytes: int = Field(default=1_048_576, ge=1024, le=64 * 1_048_576)
    # At most rate_limit investigations of one replica per rate_window.
    rate_limit: int = Field(default=3, ge=1)
    rate_window: str = "1h"
    # Link to the full report in summaries: {fingerprint} and {episode} are filled; default:
    # this receiver's own /reports/ path under public_url, else the path in the state dir.
    report_url: str | None = None
    public_url: str | None = None
    sinks: list[SinkConfig] = Field(default_factory=list)

    def sink_names(self) -> list[str]:
        return [s.name or f"{s.kind}-{i + 1}" for i, s in enumerate(self.sinks)]

    def bearer_token(self) -> str | None:
        """The token webhooks must carry (None with ``no_auth``); never logged or written."""
        if self.no_auth:
            return None
        token: str | None = None
        if self.token_file is not None:
            try:
                token = self.token_file.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise KvdoctorError(
                    f"token_file {self.token_file}: {exc.strerror or exc}"
                ) from None
        elif self.token_env:
            token = os.environ.get(self.token_env, "").strip() or None
        if not token:
            where = f"token_file {self.token_file}" if self.token_file else f"${self.token_env}"
            raise KvdoctorError(
                f"no bearer token for the receiver ({where} is empty): set one, or pass "
                "--no-auth where the network already authenticates Alertmanager"
            )
        return token


def load_config(path: Path | None) -> ServeConfig:
    if path is None:
        return ServeConfig()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise KvdoctorError(f"--config {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise KvdoctorError(f"--config {path}: not YAML ({type(exc).__name__})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise KvdoctorError(f"--config {path}: must be a mapping of settings")
    try:
        return ServeConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise KvdoctorError(f"--config {path}: {where}: {msg}") from None


def parse_sink(text: str) -> SinkConfig:
    """``--sink KIND=URL[,token_env=NAME]`` → a sink."""
    kind, sep, rest = text.partition("=")
    if not sep:
        raise KvdoctorError(f"--sink {text!r}: expected KIND=URL (webhook, github, gitlab, slack)")
    url, _, opts = rest.partition(",")
    fields: dict[str, str] = {"kind": kind.strip(), "url": url.strip()}
    for opt in filter(None, opts.split(",")):
        k, _, v = opt.partition("=")
        if k.strip() not in ("token_env", "name"):
            raise KvdoctorError(f"--sink: unknown option {k.strip()!r} (token_env, name)")
        fields[k.strip()] = v.strip()
    try:
        return SinkConfig.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise KvdoctorError(f"--sink {kind}: {where}: {msg}") from None
