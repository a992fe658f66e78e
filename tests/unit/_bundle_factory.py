"""Bundles built in memory from vLLM 0.32-style exposition text, for pipeline tests.

The metric names, labels and layout follow vLLM 0.32's V1 Prometheus logger
(vllm/v1/metrics/loggers.py); only the numbers are scripted per scenario.
"""

from __future__ import annotations

from typing import Any

from kvdoctor.bundle.model import (
    Bundle,
    EngineArgs,
    Manifest,
    NotChecked,
    ReproducerRecord,
    Scrape,
    ServerInfo,
)

T0 = 1_700_000_000.0
LABELS = 'engine="0",model_name="tiny-llama"'
_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
)


def _histogram(name: str, count: int, value: float) -> str:
    """A histogram where every observation so far equals ``value``."""
    lines = [f"# TYPE {name} histogram"]
    for le in _BUCKETS:
        lines.append(f'{name}_bucket{{{LABELS},le="{le}"}} {count if value <= le else 0}')
    lines.append(f'{name}_bucket{{{LABELS},le="+Inf"}} {count}')
    lines.append(f"{name}_count{{{LABELS}}} {count}")
    lines.append(f"{name}_sum{{{LABELS}}} {count * value}")
    return "\n".join(lines)


def exposition(
    *,
    kv: float,
    running: int,
    waiting: int,
    preemptions: int,
    finished: int,
    prefix_queries: int,
    prefix_hits: int,
    ttft: float = 0.05,
    itl: float = 0.02,
    queue: float = 0.01,
    block_size: int = 16,
    num_gpu_blocks: int = 512,
    prefix_caching: bool = True,
) -> str:
    cache_labels = (
        f'block_size="{block_size}",cache_dtype="auto",enable_prefix_caching="{prefix_caching}",'
        f'gpu_memory_utilization="0.9",num_cpu_blocks="None",num_gpu_blocks="{num_gpu_blocks}",'
        f'num_gpu_blocks_override="None"'
    )
    parts = [
        "# TYPE vllm:cache_config_info gauge",
        f'vllm:cache_config_info{{{cache_labels},engine="0"}} 1.0',
        "# TYPE vllm:num_requests_running gauge",
        f"vllm:num_requests_running{{{LABELS}}} {running}",
        "# TYPE vllm:num_requests_waiting gauge",
        f"vllm:num_requests_waiting{{{LABELS}}} {waiting}",
        "# TYPE vllm:kv_cache_usage_perc gauge",
        f"vllm:kv_cache_usage_perc{{{LABELS}}} {kv}",
        "# TYPE vllm:num_preemptions_total counter",
        f"vllm:num_preemptions_total{{{LABELS}}} {preemptions}",
        "# TYPE vllm:prefix_cache_queries_total counter",
        f"vllm:prefix_cache_queries_total{{{LABELS}}} {prefix_queries}",
        "# TYPE vllm:prefix_cache_hits_total counter",
        f"vllm:prefix_cache_hits_total{{{LABELS}}} {prefix_hits}",
        "# TYPE vllm:prompt_tokens_total counter",
        f"vllm:prompt_tokens_total{{{LABELS}}} {finished * 512}",
        "# TYPE vllm:generation_tokens_total counter",
        f"vllm:generation_tokens_total{{{LABELS}}} {finished * 128}",
        "# TYPE vllm:request_success_total counter",
        f'vllm:request_success_total{{{LABELS},finished_reason="length"}} {finished}',
        _histogram("vllm:request_prompt_tokens", finished, 512),
        _histogram("vllm:request_generation_tokens", finished, 128),
        _histogram("vllm:time_to_first_token_seconds", finished, ttft),
        _histogram("vllm:inter_token_latency_seconds", finished * 127, itl),
        _histogram("vllm:request_queue_time_seconds", finished, queue),
        _histogram("vllm:request_prefill_time_seconds", finished, ttft / 2),
    ]
    return "\n".join(parts) + "\n"


def bundle(
    scenario: str = "preemption",
    *,
    n: int = 20,
    source: str = "live",
    reproducers: list[ReproducerRecord] | None = None,
    not_checked: list[NotChecked] | None = None,
    **engine: Any,
) -> Bundle:
    """A 2 s-interval capture of ``n`` scrapes: "preemption", "healthy" or "queueing"."""
    scrapes: list[Scrape] = []
    for i in range(n):
        if scenario == "preemption":
            values = dict(
                kv=min(1.0, 0.5 + i / 10),
                running=16,
                waiting=2 + i // 4,
                preemptions=3 * i,
                finished=2 * i,
                prefix_queries=1000 * i,
                prefix_hits=400 * i,
                ttft=2.5,
                queue=1.0,
            )
        elif scenario == "queueing":
            values = dict(
                kv=0.1,
                running=2,
                waiting=10 + i,
                preemptions=0,
                finished=i,
                prefix_queries=500 * i,
                prefix_hits=250 * i,
                ttft=8.0,
                queue=7.5,
            )
        else:
            values = dict(
                kv=0.2 + 0.01 * (i % 3),
                running=3,
                waiting=0,
                preemptions=0,
                finished=3 * i,
                prefix_queries=1000 * i,
                prefix_hits=600 * i,
            )
        values.update(engine)
        scrapes.append(Scrape(t=T0 + 2 * i, status=200, text=exposition(**values)))
    manifest = Manifest(
        created_by="kvdoctor 0.1.0",
        endpoint="http://127.0.0.1:18001",
        started_at=T0,
        ended_at=T0 + 2 * (n - 1),
        interval_s=2.0,
        not_checked=not_checked or [],
    )
    return Bundle(
        manifest=manifest,
        scrapes=scrapes,
        server=ServerInfo(
            version={"version": "0.32.0"},
            models={"object": "list", "data": [{"id": "tiny-llama", "max_model_len": 4096}]},
            health=200,
        ),
        engine_args=EngineArgs(argv=None, args={"max-num-seqs": 16, "block-size": 16}),
        model_config_raw={
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "hidden_size": 256,
            "head_dim": 64,
            "torch_dtype": "bfloat16",
            "vocab_size": 1024,
        },
        reproducers=reproducers,
        source=source,
    )
