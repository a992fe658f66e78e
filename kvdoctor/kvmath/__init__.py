"""The locker math (docs/kvmath.md): exact KV-cache and memory arithmetic for one model.

Everything here is a pure function of a :class:`KvModel` and a few sizes, shared by the ``kv``
command, the signals, the rules and the report. Byte counts are exact integers: per-layer sizes
are kept as fractions (a 4-bit cache stores half a byte per element) and rounded up only once,
at the end, so no float ever leaks into a byte count.

A model comes from a Hugging Face ``config.json`` (:meth:`KvModel.from_hf_config`), from the
built-in catalog of public shapes (:meth:`KvModel.from_catalog`, ``kvdoctor/data/models.yaml``),
from a path / cached model id / catalog name (:func:`resolve_model`), or from explicit numbers
(:meth:`KvModel.from_shape`).

Modules: ``model`` (the shape and config parsing), ``catalog`` (catalog and config lookup),
``sizes`` (parsing and printing sizes), ``memory`` (sequences, capacity, decode traffic,
logits, budget, plans, and the models of the ``kv`` command's parts), ``result`` (the ``kv``
command's result, ``kvdoctor.kv/1``) and ``section`` (the report's ``kv`` object).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kvdoctor.kvmath.catalog import (
        catalog_entry,
        catalog_names,
        hf_cache_dir,
        load_model_config,
        resolve_model,
    )
    from kvdoctor.kvmath.memory import (
        BudgetItem,
        BudgetRow,
        DecodeRead,
        DecodeStep,
        FewerUsers,
        Plan,
        PlanAnswer,
        QuantizedKvOption,
        QuantOption,
        ShorterContext,
        budget_table,
        capacity_sequences,
        capacity_tokens,
        decode_read,
        kv_bytes,
        kv_pool_bytes,
        logits_bytes,
        max_context,
        plan,
        usable_bytes,
    )
    from kvdoctor.kvmath.model import (
        KV_DTYPES,
        MLA_ONLY_KV_DTYPES,
        SCALED_KV_DTYPES,
        GiB,
        KiB,
        KvModel,
        KvModelSummary,
        Layout,
        MiB,
        TiB,
        model_dtype_bytes,
    )
    from kvdoctor.kvmath.result import KV_SCHEMA, ContextRow, GpuCapacity, KvResult, LogitsSizes
    from kvdoctor.kvmath.section import CrossCheck, KvSection, kv_section
    from kvdoctor.kvmath.sizes import format_bytes, parse_count, parse_size, short_bytes

# Each name is imported from its module on first use (PEP 562): a replay needs the model, the
# capacity math and the report's section, not the kv command's plans, budgets and catalog, whose
# pydantic models and tables cost start-up time (benchmarks/bench_replay.py).
_LAZY: dict[str, str] = {
    "BudgetItem": "kvdoctor.kvmath.memory",
    "BudgetRow": "kvdoctor.kvmath.memory",
    "ContextRow": "kvdoctor.kvmath.result",
    "CrossCheck": "kvdoctor.kvmath.section",
    "DecodeRead": "kvdoctor.kvmath.memory",
    "DecodeStep": "kvdoctor.kvmath.memory",
    "FewerUsers": "kvdoctor.kvmath.memory",
    "GiB": "kvdoctor.kvmath.model",
    "GpuCapacity": "kvdoctor.kvmath.result",
    "KV_DTYPES": "kvdoctor.kvmath.model",
    "KV_SCHEMA": "kvdoctor.kvmath.result",
    "KiB": "kvdoctor.kvmath.model",
    "KvModel": "kvdoctor.kvmath.model",
    "KvModelSummary": "kvdoctor.kvmath.model",
    "KvResult": "kvdoctor.kvmath.result",
    "KvSection": "kvdoctor.kvmath.section",
    "Layout": "kvdoctor.kvmath.model",
    "LogitsSizes": "kvdoctor.kvmath.result",
    "MLA_ONLY_KV_DTYPES": "kvdoctor.kvmath.model",
    "MiB": "kvdoctor.kvmath.model",
    "Plan": "kvdoctor.kvmath.memory",
    "PlanAnswer": "kvdoctor.kvmath.memory",
    "QuantOption": "kvdoctor.kvmath.memory",
    "QuantizedKvOption": "kvdoctor.kvmath.memory",
    "SCALED_KV_DTYPES": "kvdoctor.kvmath.model",
    "ShorterContext": "kvdoctor.kvmath.memory",
    "TiB": "kvdoctor.kvmath.model",
    "budget_table": "kvdoctor.kvmath.memory",
    "capacity_sequences": "kvdoctor.kvmath.memory",
    "capacity_tokens": "kvdoctor.kvmath.memory",
    "catalog_entry": "kvdoctor.kvmath.catalog",
    "catalog_names": "kvdoctor.kvmath.catalog",
    "decode_read": "kvdoctor.kvmath.memory",
    "format_bytes": "kvdoctor.kvmath.sizes",
    "hf_cache_dir": "kvdoctor.kvmath.catalog",
    "kv_bytes": "kvdoctor.kvmath.memory",
    "kv_pool_bytes": "kvdoctor.kvmath.memory",
    "kv_section": "kvdoctor.kvmath.section",
    "load_model_config": "kvdoctor.kvmath.catalog",
    "logits_bytes": "kvdoctor.kvmath.memory",
    "max_context": "kvdoctor.kvmath.memory",
    "model_dtype_bytes": "kvdoctor.kvmath.model",
    "parse_count": "kvdoctor.kvmath.sizes",
    "parse_size": "kvdoctor.kvmath.sizes",
    "plan": "kvdoctor.kvmath.memory",
    "resolve_model": "kvdoctor.kvmath.catalog",
    "short_bytes": "kvdoctor.kvmath.sizes",
    "usable_bytes": "kvdoctor.kvmath.memory",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "KV_DTYPES",
    "KV_SCHEMA",
    "MLA_ONLY_KV_DTYPES",
    "SCALED_KV_DTYPES",
    "BudgetItem",
    "BudgetRow",
    "ContextRow",
    "CrossCheck",
    "DecodeRead",
    "DecodeStep",
    "FewerUsers",
    "GiB",
    "GpuCapacity",
    "KiB",
    "KvModel",
    "KvModelSummary",
    "KvResult",
    "KvSection",
    "Layout",
    "LogitsSizes",
    "MiB",
    "Plan",
    "PlanAnswer",
    "QuantOption",
    "QuantizedKvOption",
    "ShorterContext",
    "TiB",
    "budget_table",
    "capacity_sequences",
    "capacity_tokens",
    "catalog_entry",
    "catalog_names",
    "decode_read",
    "format_bytes",
    "hf_cache_dir",
    "kv_bytes",
    "kv_pool_bytes",
    "kv_section",
    "load_model_config",
    "logits_bytes",
    "max_context",
    "model_dtype_bytes",
    "parse_count",
    "parse_size",
    "plan",
    "resolve_model",
    "short_bytes",
    "usable_bytes",
]
