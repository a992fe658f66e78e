"""The built-in model catalog's entries (``kvdoctor/data/models.yaml``): public config values of
well-known checkpoints, each with its source. Plain data, read by :meth:`KvModel.from_catalog`
and by the lookup in :mod:`kvdoctor.kvmath.catalog`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from kvdoctor.errors import KvdoctorError

# Inside the package (kvdoctor/data/), so it ships in the wheel as it is.
_CATALOG_PATH = Path(__file__).resolve().parent.parent / "data" / "models.yaml"


@lru_cache(maxsize=1)
def _catalog() -> dict[str, dict[str, Any]]:
    import yaml  # only here: a replay never reads the catalog, and PyYAML costs it ~15 ms

    try:
        raw = yaml.safe_load(_CATALOG_PATH.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise KvdoctorError(f"cannot read the model catalog {_CATALOG_PATH.name}: {exc}") from exc
    models = raw.get("models") if isinstance(raw, dict) else None
    if not isinstance(models, dict):
        raise KvdoctorError("model catalog has no 'models' mapping")
    out: dict[str, dict[str, Any]] = {}
    for name, entry in models.items():
        out[str(name)] = {"name": str(name), **entry}
    return out


def catalog_names() -> list[str]:
    """Names of the built-in catalog, sorted."""
    return sorted(_catalog())


def catalog_entry(name: str) -> dict[str, Any]:
    """One catalog entry (keys: name, hf_id, source, params, weights_dtype, config)."""
    key = name.strip().lower()
    for entry_name, entry in _catalog().items():
        hf_id = str(entry.get("hf_id", "")).lower()
        if key in (entry_name.lower(), hf_id, hf_id.rsplit("/", 1)[-1]):
            return entry
    raise KvdoctorError(
        f"unknown model {name!r}: not in the built-in catalog (see `kvdoctor kv --list-models`)"
    )
