"""The model-config probe: the served model's HF ``config.json``.

From ``--model-config`` (a file, a directory, or a model id in the local Hugging Face cache),
else from what the server says it serves (the ``--model`` flag of a local process, or the
``root``/``id`` of ``/v1/models``) when that resolves locally. Nothing is downloaded.

What the server names is not trusted: a ``/v1/models`` answer can name any directory of this
machine ("root": "/home/me/.docker"). A path the server names is read only when the server is
provably this machine's (the port probe found its process), and anything read on the server's
word is kept only when it parses as a model config; otherwise the not-checked line says why.
"""

from __future__ import annotations

from pathlib import Path

from kvdoctor.bundle.model import EngineArgs, JsonObject, NotChecked, ServerInfo
from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath import KvModel, load_model_config


def _served_candidates(server: ServerInfo | None, engine: EngineArgs | None) -> list[str]:
    out: list[str] = []
    model = engine.args.get("model") if engine is not None else None
    if isinstance(model, str):
        out.append(model)
    models = server.models if server is not None else None
    data = models.get("data") if isinstance(models, dict) else None
    if isinstance(data, list):
        for entry in data[:1]:
            if isinstance(entry, dict):
                for key in ("root", "id"):
                    name = entry.get(key)
                    if isinstance(name, str):
                        out.append(name)
    seen: list[str] = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return seen


def _is_local_path(name: str) -> bool:
    """Whether ``name`` would be read as a path of this machine rather than a model id."""
    if name.startswith(("/", "~", ".", "\\")) or "\\" in name or ".." in name:
        return True
    return Path(name).expanduser().exists()


def probe_model_config(
    spec: str | None,
    server: ServerInfo | None,
    engine: EngineArgs | None,
    server_local: bool = False,
    source: list[str] | None = None,
) -> tuple[JsonObject | None, NotChecked | None]:
    """``server_local``: the port probe found the server's process on this machine.

    ``source`` (when given) receives where a config found on the server's word was read, so
    the report can say so.
    """
    if spec:
        try:
            return load_model_config(spec), None
        except KvdoctorError as exc:
            return None, NotChecked(what="model_config", why=str(exc))
    candidates = _served_candidates(server, engine)
    refused: str | None = None
    for cand in candidates:
        if not server_local and _is_local_path(cand):
            refused = refused or cand
            continue
        try:
            cfg = load_model_config(cand)
            KvModel.from_hf_config(cfg)
        except KvdoctorError:
            continue
        if source is not None:
            source.append(cand)
        return cfg, None
    if refused is not None:
        why = (
            f"no --model-config given; the server names the local path {refused!r}, which was "
            "not read because no server process on this machine serves that port "
            "(pass --model-config)"
        )
    elif candidates:
        why = (
            f"no --model-config given and the served model {candidates[0]!r} is not a local"
            " path, in the Hugging Face cache, or in the built-in catalog"
        )
    else:
        why = "no --model-config given and the server did not say which model it serves"
    return None, NotChecked(what="model_config", why=why)
