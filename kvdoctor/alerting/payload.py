"""Alertmanager's webhook payload (``webhook_configs``, version 4), parsed and checked.

Alertmanager posts one JSON object per notification of an alert group::

    {"version": "4", "groupKey": "{}:{alertname=\\"X\\"}", "truncatedAlerts": 0,
     "status": "firing" | "resolved", "receiver": "...", "groupLabels": {...},
     "commonLabels": {...}, "commonAnnotations": {...}, "externalURL": "...",
     "alerts": [{"status": "firing" | "resolved", "labels": {...}, "annotations": {...},
                 "startsAt": "RFC 3339", "endsAt": "RFC 3339", "generatorURL": "...",
                 "fingerprint": "hex"}]}

Anything else is refused with a :class:`PayloadError` whose message is the one line the
receiver sends back in its 400 (and logs): a payload is untrusted input.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kvdoctor.errors import KvdoctorError

SUPPORTED_VERSION = "4"
# A group of a few hundred alerts is already a lot; more is refused, not held in memory.
MAX_ALERTS = 1000
MAX_LABELS = 64
MAX_TEXT = 16_384
# Alertmanager's zero time ("0001-01-01T00:00:00Z"): endsAt of an alert with no end yet.
_ZERO_YEAR = 1


class PayloadError(KvdoctorError):
    """A webhook body kvdoctor cannot use; ``str()`` is the reason sent back with the 400."""


class _Loose(BaseModel):
    # Alertmanager adds fields over releases; unknown keys are ignored, known ones checked.
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


def _labels(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object of strings")
    if len(value) > MAX_LABELS:
        raise ValueError(f"{what} has {len(value)} entries (at most {MAX_LABELS})")
    out: dict[str, str] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise ValueError(f"{what} must map strings to strings")
        if len(k) > 256 or len(v) > MAX_TEXT:
            raise ValueError(f"{what}: an entry is too long")
        out[k] = v
    return out


class Alert(_Loose):
    status: Literal["firing", "resolved"]
    labels: dict[str, str]
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: datetime = Field(alias="startsAt")
    ends_at: datetime | None = Field(default=None, alias="endsAt")
    generator_url: str = Field(default="", alias="generatorURL")
    fingerprint: str = ""

    @field_validator("labels", mode="before")
    @classmethod
    def _check_labels(cls, v: Any) -> dict[str, str]:
        return _labels(v, "labels")

    @field_validator("annotations", mode="before")
    @classmethod
    def _check_annotations(cls, v: Any) -> dict[str, str]:
        return _labels(v, "annotations")

    @field_validator("starts_at", "ends_at")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        if v is not None and v.tzinfo is None:
            raise ValueError("times must carry a UTC offset (RFC 3339)")
        return v

    @property
    def starts(self) -> float:
        return self.starts_at.timestamp()

    @property
    def ends(self) -> float | None:
        """End time, or None while the alert has none (Alertmanager's zero time)."""
        if self.ends_at is None or self.ends_at.year <= _ZERO_YEAR:
            return None
        return self.ends_at.timestamp()

    def key(self) -> str:
        """The alert's identity: Alertmanager's fingerprint, else a hash of its labels."""
        if self.fingerprint:
            return self.fingerprint
        text = json.dumps(sorted(self.labels.items()))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


class WebhookPayload(_Loose):
    version: str
    group_key: str = Field(alias="groupKey")
    truncated_alerts: int = Field(default=0, alias="truncatedAlerts")
    status: Literal["firing", "resolved"]
    receiver: str = ""
    group_labels: dict[str, str] = Field(default_factory=dict, alias="groupLabels")
    common_labels: dict[str, str] = Field(default_factory=dict, alias="commonLabels")
    common_annotations: dict[str, str] = Field(default_factory=dict, alias="commonAnnotations")
    external_url: str = Field(default="", alias="externalURL")
    alerts: list[Alert]

    @field_validator("group_labels", "common_labels", "common_annotations", mode="before")
    @classmethod
    def _check_maps(cls, v: Any) -> dict[str, str]:
        return _labels(v, "group labels")

    def fingerprint(self) -> str:
        """The group's fingerprint: a hash of Alertmanager's ``groupKey`` (receiver, route and
        group labels), the same across retries, repeats and restarts of either side."""
        return group_fingerprint(self.group_key)

    def firing(self) -> list[Alert]:
        return [a for a in self.alerts if a.status == "firing"]

    def alertnames(self) -> list[str]:
        return sorted({a.labels.get("alertname", "") for a in self.alerts} - {""})


def group_fingerprint(group_key: str) -> str:
    return hashlib.sha256(group_key.encode("utf-8")).hexdigest()[:16]


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "payload"
    msg = str(err.get("msg", "invalid"))
    msg = msg.removeprefix("Value error, ")
    return f"{where}: {msg}"


def parse_payload(body: bytes) -> WebhookPayload:
    """Bytes of a webhook request → the payload; anything else → :class:`PayloadError`."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise PayloadError(f"body is not JSON ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise PayloadError("body is not a JSON object")
    version = data.get("version")
    if version != SUPPORTED_VERSION:
        raise PayloadError(
            f"payload version {version!r} is not supported (Alertmanager webhook version "
            f"{SUPPORTED_VERSION} only)"
        )
    alerts = data.get("alerts")
    if not isinstance(alerts, list) or not alerts:
        raise PayloadError("alerts: a non-empty list is required")
    if len(alerts) > MAX_ALERTS:
        raise PayloadError(f"alerts: {len(alerts)} alerts in one group (at most {MAX_ALERTS})")
    try:
        payload = WebhookPayload.model_validate(data)
    except ValidationError as exc:
        raise PayloadError(_first_error(exc)) from None
    if not payload.group_key:
        raise PayloadError("groupKey: must not be empty")
    return payload
