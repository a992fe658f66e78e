"""Webhook bodies as Alertmanager (webhook_configs, version 4) sends them."""

from __future__ import annotations

import json
from typing import Any

ZERO = "0001-01-01T00:00:00Z"


def alert(
    instance: str,
    *,
    status: str = "firing",
    alertname: str = "KvdoctorPreemptionKvCapacity",
    starts: str = "2026-12-01T03:00:00Z",
    ends: str = ZERO,
    **labels: str,
) -> dict[str, Any]:
    return {
        "status": status,
        "labels": {
            "alertname": alertname,
            "instance": instance,
            "job": "vllm",
            "severity": "critical",
            **labels,
        },
        "annotations": {"summary": f"{instance}: preemptions"},
        "startsAt": starts,
        "endsAt": ends,
        "generatorURL": "http://prometheus.test/graph",
        "fingerprint": f"fp-{instance}-{alertname}",
    }


def payload(*alerts: dict[str, Any], status: str = "firing", group: str = "g1") -> dict[str, Any]:
    return {
        "version": "4",
        "groupKey": f'{{}}/{{}}:{{alertname="{group}"}}',
        "truncatedAlerts": 0,
        "status": status,
        "receiver": "kvdoctor",
        "groupLabels": {"alertname": group},
        "commonLabels": {"job": "vllm"},
        "commonAnnotations": {},
        "externalURL": "http://alertmanager.test",
        "alerts": list(alerts),
    }


def body(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode("utf-8")
