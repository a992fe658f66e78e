"""Service-level objectives given by the user: the first basis a symptom is judged against.

``--slo ttft-p95=800ms --slo itl-p95=60ms`` (repeatable) or ``--slo-file slo.yaml`` (a mapping
of the same keys). A live run stores them in the bundle (``slo.json``), so a replay judges the
window against the same objectives; ``--slo`` at replay time replaces the stored ones.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from kvdoctor.errors import KvdoctorError
from kvdoctor.inputs import MAX_SLO_FILE_BYTES, read_capped_text
from kvdoctor.lazyre import LazyPattern

SLO_FILE = "slo.json"
KEYS: tuple[str, ...] = tuple(f"{h}-{q}" for h in ("ttft", "itl") for q in ("p50", "p95", "p99"))
_DURATION = LazyPattern(r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*(ms|s|us|µs)?\s*$")
_SCALE = {"ms": 1e-3, "s": 1.0, "us": 1e-6, "µs": 1e-6, None: 1.0}
# Seconds; an objective beyond a day is a typo, not an SLO.
_MAX_S = 86_400.0


def parse_duration(text: str, what: str) -> float:
    m = _DURATION.match(text)
    if m is None:
        raise KvdoctorError(f"{what}: {text!r} is not a duration (e.g. 800ms, 1.5s)")
    value = float(m.group(1)) * _SCALE[m.group(2)]
    if not math.isfinite(value) or value <= 0 or value > _MAX_S:
        raise KvdoctorError(f"{what}: {text!r} must be above 0 and at most a day")
    return value


def _put(out: dict[str, float], key: str, raw: object, what: str) -> None:
    # "ttft_p95" as the signal is spelled is the same objective as "ttft-p95".
    key = key.strip().lower().replace("_", "-")
    if key not in KEYS:
        raise KvdoctorError(f"{what}: unknown SLO {key!r} (known: {', '.join(KEYS)})")
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise KvdoctorError(f"{what}: {key} needs a duration such as 800ms")
    out[key] = parse_duration(str(raw), f"{what} {key}")


def parse_slo_options(values: Iterable[str]) -> dict[str, float]:
    """``["ttft-p95=800ms", ...]`` -> ``{"ttft-p95": 0.8}`` (seconds)."""
    out: dict[str, float] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep:
            raise KvdoctorError(f"--slo: {item!r} is not NAME=DURATION (e.g. ttft-p95=800ms)")
        _put(out, key, raw, "--slo")
    return dict(sorted(out.items()))


def load_slo_file(path: Path) -> dict[str, float]:
    """A YAML or JSON mapping of SLO keys to durations."""
    import yaml

    text = read_capped_text(path, "--slo-file", MAX_SLO_FILE_BYTES)
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):
        raise KvdoctorError(f"--slo-file: {path} is not valid YAML or JSON") from None
    if not isinstance(data, Mapping):
        raise KvdoctorError(f"--slo-file: {path} must hold a mapping such as 'ttft-p95: 800ms'")
    out: dict[str, float] = {}
    for key, raw in data.items():
        _put(out, str(key), raw, f"--slo-file {path.name}")
    return dict(sorted(out.items()))


def slo_from_bundle_file(raw: bytes) -> dict[str, float]:
    """The bundle's ``slo.json`` (written by kvdoctor; still validated: bundles are input)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise KvdoctorError(f"{SLO_FILE}: not valid JSON") from None
    if not isinstance(data, Mapping):
        raise KvdoctorError(f"{SLO_FILE}: must be a JSON object")
    out: dict[str, float] = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise KvdoctorError(f"{SLO_FILE}: {key!r} must be a number of seconds")
        _put(out, str(key), f"{float(value)!r}s" if math.isfinite(value) else "nan", SLO_FILE)
    return dict(sorted(out.items()))


def slo_json(slo: Mapping[str, float]) -> str:
    return json.dumps(dict(sorted(slo.items())), indent=2) + "\n"
