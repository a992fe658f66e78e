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
