"""The model-config probe: the served model's HF ``config.json``.

From ``--model-config`` (a file, a directory, or a model id in the local Hugging Face cache),
else from what the server says it serves (the ``--model`` flag of a local process, or the
``root``/``id`` of ``/v1/models``) when that resolves locally. Nothing is downloaded.
"""

from __future__ import annotations

from typing import Any

from kvdoctor.bundle.model import EngineArgs, NotChecked, ServerInfo
from kvdoctor.errors import KvdoctorError


def _served_candidates(server: ServerInfo | None, engine: EngineArgs | None) -> list[str]:
    out: list[str] = []
    if engine is not None and isinstance(engine.args.get("model"), str):
        out.append(engine.args["model"])
    models = server.models if server is not None else None
    data = models.get("data") if isinstance(models, dict) else None
    if isinstance(data, list):
        for entry in data[:1]:
            if isinstance(entry, dict):
                for key in ("root", "id"):
                    if isinstance(entry.get(key), str):
                        out.append(entry[key])
    seen: list[str] = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return seen


def probe_model_config(
    spec: str | None, server: ServerInfo | None, engine: EngineArgs | None
) -> tuple[dict[str, Any] | None, NotChecked | None]:
    from kvdoctor.kvmath import load_model_config

    if spec:
        try:
            return load_model_config(spec), None
        except KvdoctorError as exc:
            return None, NotChecked(what="model_config", why=str(exc))
    candidates = _served_candidates(server, engine)
    for cand in candidates:
        try:
            return load_model_config(cand), None
        except KvdoctorError:
            continue
    if candidates:
        why = (
            f"no --model-config given and the served model {candidates[0]!r} is not a local"
            " path, in the Hugging Face cache, or in the built-in catalog"
        )
    else:
        why = "no --model-config given and the server did not say which model it serves"
    return None, NotChecked(what="model_config", why=why)
