"""The built-in model catalog (``kvdoctor/data/models.yaml``) and config lookup.

A model is named by a ``config.json`` path, a directory holding one, a model id in the local
Hugging Face cache, or a catalog name (public config values, each with its source).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kvdoctor.errors import KvdoctorError
from kvdoctor.inputs import MAX_CONFIG_BYTES, read_capped_bytes
from kvdoctor.kvmath.entries import catalog_entry, catalog_names
from kvdoctor.kvmath.model import KvModel

__all__ = ["catalog_entry", "catalog_names", "load_model_config", "resolve_model"]


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, honouring HF_HUB_CACHE and HF_HOME like huggingface_hub."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return Path.home() / ".cache" / "huggingface" / "hub"


def _hf_cached_config(model_id: str) -> Path | None:
    if model_id.count("/") != 1 or model_id.startswith(("/", ".")):
        return None
    repo = hf_cache_dir() / ("models--" + model_id.replace("/", "--"))
    snapshots = repo / "snapshots"
    if not snapshots.is_dir():
        return None
    # The snapshot `main` points to is the one a plain from_pretrained would load.
    ref = repo / "refs" / "main"
    if ref.is_file():
        candidate = snapshots / ref.read_text(encoding="utf-8").strip() / "config.json"
        if candidate.is_file():
            return candidate
    found = sorted(p for p in snapshots.glob("*/config.json") if p.is_file())
    return found[0] if found else None


def _read_json_config(path: Path) -> dict[str, Any]:

    raw = read_capped_bytes(path, "model config", MAX_CONFIG_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise KvdoctorError(f"model config {path} is not valid JSON: {exc}") from None
    except (RecursionError, ValueError):
        raise KvdoctorError(f"model config {path} is not a usable JSON object") from None
    if not isinstance(data, dict):
        raise KvdoctorError(f"model config {path} is not a JSON object")
    return data


def load_model_config(spec: str) -> dict[str, Any]:
    """Resolve ``spec`` to a raw HF config dict.

    Tried in order: a ``config.json`` file; a directory holding one; a model id ("org/name") in
    the local Hugging Face cache; a name of the built-in catalog (its public config values).
    """
    if not spec or not spec.strip():
        raise KvdoctorError("empty model config path or name")
    path = Path(spec).expanduser()
    if path.is_file():
        return _read_json_config(path)
    if path.is_dir():
        config = path / "config.json"
        if not config.is_file():
            raise KvdoctorError(f"directory {spec} holds no config.json")
        return _read_json_config(config)
    cached = _hf_cached_config(spec.strip())
    if cached is not None:
        return _read_json_config(cached)
    try:
        entry = catalog_entry(spec)
    except KvdoctorError:
        raise KvdoctorError(
            f"cannot find model config {spec!r}: not a file, not a directory with config.json, "
            f"not in the Hugging Face cache ({hf_cache_dir()}), not in the built-in catalog"
        ) from None
    return dict(entry["config"])


def resolve_model(spec: str) -> KvModel:
    """A :class:`KvModel` for ``spec`` (path, cached id or catalog name; see load_model_config).

    A catalog name keeps the catalog's parameter count and source, which a bare config lacks.
    """
    path = Path(spec).expanduser()
    if not path.exists() and _hf_cached_config(spec.strip()) is None:
        try:
            return KvModel.from_catalog(spec)
        except KvdoctorError:
            pass
    name = spec if not path.exists() else (path.parent.name if path.is_file() else path.name)
    return KvModel.from_hf_config(load_model_config(spec), name=name)
