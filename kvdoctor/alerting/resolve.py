"""From an alert's labels to the replica it is about.

A replica is what kvdoctor's fleet path calls one (``pod``, else ``instance``, the key of
:func:`kvdoctor.fleet.series.replica_key`): the label matchers that select its series in
Prometheus, and, when known, the URL of its vLLM server for a live capture.

Three sources, first match wins:

1. a mapping file, for setups without target metadata (or to name endpoints behind a proxy)::

       replicas:
         - match: {namespace: llm, pod: vllm-0}      # alert labels, all must be equal
           endpoint: http://vllm-0.llm.svc:8000       # optional: enables the live capture
           selector: '{namespace="llm", pod="vllm-0"}'  # optional: default from match

2. Prometheus target metadata (``/api/v1/targets``): the active target whose labels agree with
   the alert's ``pod``/``instance`` (and ``namespace``/``job`` where both have them) gives the
   selector and the scrape URL, whose root is the vLLM server;
3. the alert's own ``pod``/``instance`` labels: history only, no live capture.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from kvdoctor.errors import KvdoctorError

# Labels that identify a replica, most specific first (the fleet path's REPLICA_LABELS).
KEY_LABELS: tuple[str, ...] = ("pod", "pod_name", "instance")
# Labels that must agree when both the alert and the target carry them.
SCOPE_LABELS: tuple[str, ...] = ("namespace", "job")
# An alert label naming the served model (vLLM's own label, or a common relabelling).
MODEL_LABELS: tuple[str, ...] = ("model_name", "model")
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


@dataclass(frozen=True)
class Replica:
    key: str  # pod, else instance: the fleet report's replica name
    matchers: tuple[tuple[str, str], ...]  # label = value pairs selecting its series
    endpoint: str | None  # vLLM server root, when known
    source: str  # "mapping", "prometheus targets" or "alert labels"


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    match: dict[str, str]
    endpoint: str | None = None
    selector: str | None = None


class _Mapping(BaseModel):
    model_config = ConfigDict(extra="forbid")
    replicas: list[_Entry]


def load_mapping(path: Path) -> list[_Entry]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return _Mapping.model_validate(data).replicas
    except OSError as exc:
        raise KvdoctorError(f"--mapping {path}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise KvdoctorError(f"--mapping {path}: not YAML ({type(exc).__name__})") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        raise KvdoctorError(f"--mapping {path}: {where}: {err.get('msg')}") from None


def _key_of(labels: Mapping[str, str]) -> str | None:
    for name in KEY_LABELS:
        if labels.get(name):
            return labels[name]
    return None


def _parse_selector(selector: str) -> tuple[tuple[str, str], ...]:
    from kvdoctor.fleet.capture import selector_matchers

    inner = selector_matchers(selector)
    out: list[tuple[str, str]] = []
    for part in filter(None, (p.strip() for p in inner.split(","))):
        m = re.fullmatch(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"', part)
        if m is None:
            raise KvdoctorError(f'mapping selector {selector!r}: only label="value" matchers')
        out.append((m.group(1), m.group(2).replace('\\"', '"').replace("\\\\", "\\")))
    return tuple(out)


def _root(scrape_url: str) -> str | None:
    parts = urlsplit(scrape_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    path = parts.path.rstrip("/")
    path = path.removesuffix("/metrics")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _agrees(alert: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    key_hit = False
    for name in KEY_LABELS:
        if alert.get(name) and labels.get(name):
            if alert[name] != labels[name]:
                return False
            key_hit = True
    if not key_hit:
        return False
    return all(alert[n] == labels[n] for n in SCOPE_LABELS if alert.get(n) and labels.get(n))


def from_mapping(alert: Mapping[str, str], entries: Sequence[_Entry]) -> Replica | None:
    for e in entries:
        if e.match and all(alert.get(k) == v for k, v in e.match.items()):
            matchers = (
                _parse_selector(e.selector)
                if e.selector
                else tuple(sorted((k, v) for k, v in e.match.items() if k not in MODEL_LABELS))
            )
            if not matchers:
                raise KvdoctorError(
                    "mapping entry matching only a model needs a selector for its series"
                )
            key = _key_of(dict(matchers)) or _key_of(alert) or e.endpoint or "unknown"
            return Replica(key, matchers, e.endpoint, "mapping")
    return None


def from_targets(alert: Mapping[str, str], targets_body: Mapping[str, Any]) -> Replica | None:
    data = targets_body.get("data")
    active = data.get("activeTargets") if isinstance(data, dict) else None
    if not isinstance(active, list):
        return None
    for t in active:
        if not isinstance(t, dict) or not isinstance(t.get("labels"), dict):
            continue
        labels = {str(k): str(v) for k, v in t["labels"].items()}
        if not _agrees(alert, labels):
            continue
        key = _key_of(labels) or "unknown"
        names = [n for n in (*KEY_LABELS, *SCOPE_LABELS) if labels.get(n)]
        matchers = tuple((n, labels[n]) for n in sorted(names))
        url = t.get("scrapeUrl")
        return Replica(key, matchers, _root(url) if isinstance(url, str) else None, "targets")
    return None


def from_labels(alert: Mapping[str, str]) -> Replica | None:
    key = _key_of(alert)
    if key is None:
        return None
    names = [n for n in (*KEY_LABELS, *SCOPE_LABELS) if alert.get(n)]
    return Replica(key, tuple((n, alert[n]) for n in sorted(names)), None, "alert labels")


def resolve(
    alert: Mapping[str, str],
    entries: Sequence[_Entry] = (),
    targets_body: Mapping[str, Any] | None = None,
) -> Replica | None:
    """The replica an alert is about, or None when its labels name none."""
    return (
        from_mapping(alert, entries)
        or (from_targets(alert, targets_body) if targets_body is not None else None)
        or from_labels(alert)
    )


def _regex_escape(value: str) -> str:
    # RE2 inside a PromQL string: escape regex metacharacters, then the string's own quoting.
    escaped = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", value)
    return escaped.replace("\\", "\\\\").replace('"', '\\"')


def selector_for(replicas: Sequence[Replica]) -> str:
    """One Prometheus selector covering every replica (a regex union per label)."""
    values: dict[str, list[str]] = {}
    for r in replicas:
        for name, value in r.matchers:
            if not _LABEL_NAME.match(name):
                raise KvdoctorError(f"label name {name!r} is not a Prometheus label name")
            values.setdefault(name, [])
            if value not in values[name]:
                values[name].append(value)
    # A label only some replicas carry cannot narrow the union: keep the shared ones.
    shared = [
        n for n in sorted(values) if all(any(m[0] == n for m in r.matchers) for r in replicas)
    ]
    parts = []
    for name in shared:
        vals = sorted(values[name])
        if len(vals) == 1:
            v = vals[0].replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'{name}="{v}"')
        else:
            parts.append(f'{name}=~"' + "|".join(_regex_escape(v) for v in vals) + '"')
    return "{" + ", ".join(parts) + "}"
