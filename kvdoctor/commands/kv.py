"""``kvdoctor kv``: the locker math for one model, as a table, JSON or Markdown.

The numbers all come from :mod:`kvdoctor.kvmath` (the answer itself from
:func:`kvdoctor.kvmath.query.kv_report`); this module only parses the flags into a request and
renders the typed result. ``bytes_per_token`` is always at the top level of the JSON object.
"""

from __future__ import annotations

import json
from fractions import Fraction

import click

from kvdoctor import kvmath
from kvdoctor.errors import KvdoctorError
from kvdoctor.kvmath import (
    KV_SCHEMA,
    KvModel,
    KvResult,
    PlanAnswer,
    format_bytes,
    short_bytes,
)
from kvdoctor.kvmath.query import DEFAULT_CONTEXT, VLLM_DEFAULT_GMU, KvRequest, kv_report

# KV_SCHEMA and KvResult live in kvdoctor.kvmath.result; re-exported where they used to be.
__all__ = ["KV_SCHEMA", "KvRequest", "KvResult", "kv", "kv_report", "render_markdown"]

# ---------------------------------------------------------------------- rendering

Section = tuple[str, list[str], list[list[str]]]


def _sections(r: KvResult) -> list[Section]:
    m = r.model
    shape = (
        f"MLA latent {m.kv_lora_rank} + RoPE {m.qk_rope_head_dim}"
        if m.layout == "mla"
        else f"{m.kv_heads} KV heads × head_dim {m.head_dim}"
    )
    per_token = [
        ["model", f"{m.name or m.model_type or 'model'} ({m.layout}, {m.layer_mix})"],
        ["shape", f"{m.attention_layers} attention layers × {shape}"],
        ["KV dtype", r.kv_dtype],
        ["bytes per token", format_bytes(r.bytes_per_token)],
    ]
    if r.bytes_per_token_unshared is not None:
        per_token.append(["without KV-head sharing", format_bytes(r.bytes_per_token_unshared)])
    if r.bytes_per_token_beyond_window is not None:
        per_token.append(
            [
                f"per token past the {m.sliding_window:,}-token window",
                format_bytes(r.bytes_per_token_beyond_window),
            ]
        )
    sections: list[Section] = [("Per token", ["", "value"], per_token)]

    rows = []
    for c in r.contexts:
        ratio = c.decode_step.kv_to_weights_ratio
        rows.append(
            [
                f"{c.context:,}"
                + (" (above max_position_embeddings)" if c.above_max_position_embeddings else ""),
                short_bytes(c.sequence_bytes),
                short_bytes(c.batch_bytes),
                "-" if c.capacity_sequences is None else f"{c.capacity_sequences:,}",
                "-" if ratio is None else f"{ratio:.2f}× weights",
            ]
        )
    batch = r.contexts[0].batch
    sections.append(
        (
            "Per sequence and batch",
            ["context", "per sequence", f"batch of {batch}", "fits (seqs)", "KV read / step"],
            rows,
        )
    )
    first = r.contexts[0].decode_step
    if first.crossover_batch_x_context is not None:
        sections.append(
            (
                "Decode traffic (each step reads all live KV and all weights)",
                ["", "value"],
                [
                    ["weights read per step", short_bytes(first.weights_bytes)],
                    [
                        "KV reads = weight reads at batch × context",
                        f"{first.crossover_batch_x_context:,} tokens",
                    ],
                ],
            )
        )
    if r.logits is not None:
        lg = r.logits
        sections.append(
            (
                "Logits",
                ["", "value"],
                [
                    [
                        f"vLLM: sampled positions only, {lg.vllm_positions:,} "
                        f"(one per sequence) × {lg.vocab_size:,} vocab "
                        f"× {lg.vllm_dtype_bytes} B (all prompt positions only with "
                        "prompt_logprobs)",
                        format_bytes(lg.vllm_bytes),
                    ],
                    [
                        f"naive full prefill (Hugging Face generate): {lg.tokens:,} tokens "
                        f"× {lg.vocab_size:,} vocab × {lg.dtype_bytes} B",
                        format_bytes(lg.bytes),
                    ],
                    ["KV of the same tokens", format_bytes(lg.kv_bytes_same_tokens)],
                ],
            )
        )
    if r.budget is not None:
        sections.append(
            (
                "Memory budget",
                ["item", "size", "note"],
                [[b.item, short_bytes(b.bytes), b.note] for b in r.budget],
            )
        )
    if r.plan is not None:
        sections.append(("Plan", ["question", "answer"], _plan_rows(r.plan)))
    if r.notes:
        sections.append(("Notes", ["note"], [[n] for n in r.notes]))
    return sections


def _plan_rows(p: PlanAnswer) -> list[list[str]]:
    users, context = p.users, p.context
    verdict = "fits" if p.fits else "does NOT fit"
    # When it fits these are the limits (room left); when it does not, the three ways out.
    prefix = "limit" if p.fits else "way out"
    max_context = p.shorter_context.max_context
    rows = [
        [
            f"{users:,} users × {context:,} tokens",
            f"{verdict}: needs {short_bytes(p.need_bytes)} of a "
            f"{short_bytes(p.pool_bytes)} KV pool",
        ],
        [
            f"{prefix}: fewer users",
            f"at most {p.fewer_users.max_users:,} users at {context:,} tokens",
        ],
        [
            f"{prefix}: shorter context",
            "not bound by KV (windowed layers)"
            if max_context is None
            else f"at most {max_context:,} tokens each for {users:,} users",
        ],
    ]
    for q in p.quantized_kv:
        scales = " (scales not counted)" if q.scale_overhead_excluded else ""
        rows.append(
            [
                f"{prefix}: --kv-cache-dtype {q.kv_dtype}",
                f"{'fits' if q.fits else 'still does not fit'}: "
                f"{short_bytes(q.need_bytes)}, up to {q.max_users:,} users{scales}",
            ]
        )
    return rows


def render_markdown(r: KvResult) -> str:
    """The result as Markdown tables; every cell escaped (a model config is untrusted text: a
    ``model_type`` of ``<img onerror=…>`` must not render in a ticket)."""
    from kvdoctor.report.escape import escape_md

    out: list[str] = []
    for title, headers, rows in _sections(r):
        out.append(f"### {title}\n")
        out.append("| " + " | ".join(headers) + " |")
        out.append("|" + "---|" * len(headers))
        for row in rows:
            out.append("| " + " | ".join(str(escape_md(cell, None)) for cell in row) + " |")
        out.append("")
    return "\n".join(out)


def _print_rich(r: KvResult) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for title, headers, rows in _sections(r):
        table = Table(title=title, title_justify="left", show_header=any(headers))
        for i, h in enumerate(headers):
            table.add_column(h, justify="right" if i and title != "Notes" else "left")
        for row in rows:
            table.add_row(*row)
        console.print(table)


# ---------------------------------------------------------------------- the command


def _max_positions(model_config: str | None, model_name: str | None) -> int | None:
    """max_position_embeddings of the config or catalog entry asked for (None when unknown)."""
    if model_config:
        cfg: object = kvmath.load_model_config(model_config)
    elif model_name:
        cfg = kvmath.catalog_entry(model_name).get("config")
    else:
        return None
    if not isinstance(cfg, dict):
        return None
    text = cfg.get("text_config")
    value = cfg.get("max_position_embeddings")
    if value is None and isinstance(text, dict):
        value = text.get("max_position_embeddings")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _model_from_flags(
    model_config: str | None,
    model_name: str | None,
    shape: dict[str, int | None],
    dtype: str,
) -> KvModel:
    given = [x for x in (model_config, model_name) if x]
    explicit = shape["layers"] is not None
    if len(given) + explicit != 1:
        raise KvdoctorError(
            "give exactly one of --model-config P, --model NAME, or --layers/--kv-heads/--head-dim"
        )
    if model_config:
        return kvmath.resolve_model(model_config)
    if model_name:
        return KvModel.from_catalog(model_name)
    layers, kv_heads, head_dim = shape["layers"], shape["kv_heads"], shape["head_dim"]
    if layers is None or kv_heads is None or head_dim is None:
        raise KvdoctorError("--layers needs --kv-heads and --head-dim as well")
    return KvModel.from_shape(
        layers=layers,
        kv_heads=kv_heads,
        head_dim=head_dim,
        attention_heads=shape["attention_heads"],
        vocab_size=shape["vocab_size"],
        dtype=dtype,
    )


def _gmu(text: str) -> Fraction:
    try:
        g = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise KvdoctorError(f"--gpu-memory-utilization must be a number, got {text!r}") from None
    if not 0 < g <= 1:
        raise KvdoctorError(f"--gpu-memory-utilization must be in (0, 1], got {text}")
    return g


@click.command("kv")
@click.option(
    "--model-config", "model_config", metavar="P", help="config.json, its dir, or a cached HF id."
)
@click.option("--model", "model_name", metavar="NAME", help="A model of the built-in catalog.")
@click.option("--layers", type=int, help="Explicit shape: decoder layers.")
@click.option("--kv-heads", type=int, help="Explicit shape: KV heads.")
@click.option("--head-dim", type=int, help="Explicit shape: head dimension.")
@click.option(
    "--attention-heads", type=int, help="Explicit shape: query heads (default: KV heads)."
)
@click.option("--vocab-size", type=int, help="Explicit shape: vocabulary (for logits).")
@click.option("--dtype", default="bfloat16", show_default=True, help="Explicit shape: model dtype.")
@click.option(
    "--kv-dtype", default="auto", show_default=True, help="KV cache dtype (auto, fp8, ...)."
)
@click.option(
    "--context",
    "contexts",
    multiple=True,
    metavar="TOKENS",
    help="Tokens per sequence; repeatable.",
)
@click.option("--batch", default="1", show_default=True, metavar="N", help="Live sequences.")
@click.option("--gpu-mem", metavar="SIZE", help="Device memory, e.g. 80GiB.")
@click.option(
    "--weights", metavar="SIZE", help="Weight bytes, e.g. 16GB (default: catalog estimate)."
)
@click.option(
    "--overhead",
    default="0",
    metavar="SIZE",
    help="Your estimate of the runtime/CUDA graph/workspace reserve, e.g. 3GiB (vLLM only "
    "knows it after profiling the card).",
)
@click.option(
    "--gpu-memory-utilization",
    "gmu",
    default=str(float(VLLM_DEFAULT_GMU)),
    show_default=True,
    metavar="F",
    help="Share of the GPU vLLM may use (default: vLLM's own default).",
)
@click.option("--users", metavar="N", help="Plan: do N users at the first --context fit?")
@click.option(
    "--prefill-chunk",
    metavar="TOKENS",
    help="Count the naive logits of a chunk this long (all positions) in the budget.",
)
@click.option(
    "--tp",
    "tp",
    default="1",
    show_default=True,
    metavar="N",
    help="Tensor parallel size: numbers per GPU.",
)
@click.option("--list-models", is_flag=True, help="List the built-in catalog and exit.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "md", "json"]),
    default="text",
    show_default=True,
    help="Terminal tables, Markdown, or the kvdoctor.kv/1 JSON object.",
)
def kv(
    model_config: str | None,
    model_name: str | None,
    layers: int | None,
    kv_heads: int | None,
    head_dim: int | None,
    attention_heads: int | None,
    vocab_size: int | None,
    dtype: str,
    kv_dtype: str,
    contexts: tuple[str, ...],
    batch: str,
    gpu_mem: str | None,
    weights: str | None,
    overhead: str,
    gmu: str,
    users: str | None,
    prefill_chunk: str | None,
    tp: str,
    list_models: bool,
    fmt: str,
) -> int:
    """The locker math: KV bytes per token, per sequence and batch, capacity, planning."""
    if list_models:
        rows = [
            {"name": n, "hf_id": e["hf_id"], "source": e["source"]}
            for n, e in ((n, kvmath.catalog_entry(n)) for n in kvmath.catalog_names())
        ]
        if fmt == "json":
            click.echo(json.dumps(rows, indent=2))
        else:
            for row in rows:
                click.echo(f"{row['name']:<18} {row['hf_id']}")
        return 0
    model = _model_from_flags(
        model_config,
        model_name,
        {
            "layers": layers,
            "kv_heads": kv_heads,
            "head_dim": head_dim,
            "attention_heads": attention_heads,
            "vocab_size": vocab_size,
        },
        dtype,
    )
    parsed_contexts = tuple(kvmath.parse_count(c, "--context") for c in contexts) or (
        DEFAULT_CONTEXT,
    )
    if any(c <= 0 for c in parsed_contexts):
        raise KvdoctorError("--context must be at least one token")
    req = KvRequest(
        contexts=parsed_contexts,
        batch=kvmath.parse_count(batch, "--batch"),
        kv_dtype=kv_dtype,
        gpu_bytes=kvmath.parse_size(gpu_mem) if gpu_mem is not None else None,
        weights_bytes=kvmath.parse_size(weights) if weights is not None else None,
        overhead_bytes=kvmath.parse_size(overhead),
        gpu_memory_utilization=_gmu(gmu),
        users=kvmath.parse_count(users, "--users") if users is not None else None,
        prefill_chunk=(
            kvmath.parse_count(prefill_chunk, "--prefill-chunk") if prefill_chunk else None
        ),
        tensor_parallel=kvmath.parse_count(tp, "--tp"),
        max_positions=_max_positions(model_config, model_name),
    )
    result = kv_report(model, req)
    if fmt == "json":
        click.echo(json.dumps(result.to_json_dict(), indent=2))
    elif fmt == "md":
        click.echo(render_markdown(result))
    else:
        _print_rich(result)
    return 0
