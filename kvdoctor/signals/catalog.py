"""The catalog of signal names: the vocabulary shared by the signal computation and the rules.

Every signal the pipeline may emit is declared here with its unit and meaning; a test checks
that computed signals and playbook references only use declared names. Values are JSON scalars.
Fractions are 0..1 (KV usage, hit rates); times are seconds; memory is bytes.
"""

from __future__ import annotations

from typing import NamedTuple


class SignalDef(NamedTuple):
    name: str
    unit: str
    doc: str


_DEFS: list[tuple[str, str, str]] = [
    # --- capture window
    ("window_s", "s", "Length of the capture window (first to last good scrape)."),
    ("scrapes_ok", "count", "Scrapes that returned a parsable exposition."),
    (
        "series_from_log",
        "bool",
        "No scrape held vLLM metrics, and the series (running, waiting, KV usage, token rates) "
        "was read from the engine's periodic stats lines in the log instead.",
    ),
    ("scrapes_failed", "count", "Scrapes that failed (connection, HTTP status, parse error)."),
    (
        "down_tail_s",
        "s",
        "Seconds from the last good scrape to the capture's last, when every scrape after it "
        "failed (two or more): the server stopped answering /metrics (0 when the capture ends "
        "with a good scrape).",
    ),
    ("counter_resets", "count", "Counter resets seen in the window (a server restart)."),
    ("engines", "count", "Distinct engine/model_name label sets seen (data parallelism)."),
    # --- this server among its copies (--replicas, --routing, or the bundle's notes)
    (
        "replicas",
        "count",
        "Identical servers behind one router that this server is one of (--replicas, or the "
        "bundle's notes: 'engine 2 of 4', 'one of 8 replicas').",
    ),
    (
        "routing_policy",
        "name",
        "How the router in front of the replicas picks one (--routing, or the bundle's notes): "
        "round-robin, random, least-loaded, consistent-hash or prefix-aware.",
    ),
    # --- KV usage and requests
    ("kv_usage_last", "fraction", "KV cache usage at the last scrape (vllm:kv_cache_usage_perc)."),
    ("kv_usage_max", "fraction", "Highest KV cache usage in the window."),
    ("kv_usage_mean", "fraction", "Mean KV cache usage over the window."),
    ("running_last", "requests", "Running requests at the last scrape."),
    ("running_max", "requests", "Most running requests in the window."),
    ("running_mean", "requests", "Mean running requests."),
    (
        "in_flight_max",
        "requests",
        "Most requests in the engine at one scrape, running and waiting together (1 when "
        "requests were sent one at a time).",
    ),
    (
        "engine_busiest_running_share",
        "fraction",
        "The busiest data-parallel engine's share of "
        "the running requests (mean over the window); 1/engines when they are balanced.",
    ),
    (
        "itl_engine_spread",
        "ratio",
        "Slowest engine's mean ITL over the fastest engine's (data "
        "parallelism; engines that decoded in the window).",
    ),
    (
        "engine_busiest_waiting_share",
        "fraction",
        "The data-parallel engine with the most requests waiting: its share of all waiting "
        "(mean over the window); 1 when the whole queue is on one engine.",
    ),
    (
        "kv_usage_max_other_engines",
        "fraction",
        "The fullest KV pool (peak usage) among the engines other than the one with the most "
        "requests waiting.",
    ),
    (
        "prefix_caching_requested",
        "bool",
        "--enable-prefix-caching as the operator gave it "
        "(engine flags), apart from whether the server runs with it.",
    ),
    (
        "running_max_per_engine",
        "requests",
        "Peak running requests of the busiest engine, "
        "when the endpoint serves several (data parallelism); None with one engine.",
    ),
    ("waiting_last", "requests", "Waiting requests at the last scrape."),
    ("waiting_max", "requests", "Most waiting requests in the window."),
    ("waiting_mean", "requests", "Mean waiting requests."),
    (
        "stalled_tail_s",
        "s",
        "Seconds at the window's end with requests running and no prompt token, output token "
        "or finished request counted: an engine that wedged mid-window.",
    ),
    (
        "stalled_span_s",
        "s",
        "The longest stretch of the window with requests running and no prompt token, output "
        "token or finished request counted (a stretch the next interval ends with prompt tokens "
        "counted may be one long prefill, not counted).",
    ),
    (
        "stalled_span_running",
        "requests",
        "The fewest requests running through that stretch.",
    ),
    (
        "stalled_share",
        "fraction",
        "Share of scrape intervals ending with requests waiting and no token processed.",
    ),
    ("preemptions_window", "count", "Preemptions during the window (counter increase)."),
    ("preemptions_per_s", "1/s", "Preemption rate over the window."),
    ("preemptions_lifetime", "count", "Preemptions since the server started (last value)."),
    ("requests_finished_window", "count", "Requests that finished during the window."),
    # --- prefix cache
    ("prefix_queries_window", "tokens", "Prefix-cache query tokens in the window."),
    ("prefix_hits_window", "tokens", "Prefix-cache hit tokens in the window."),
    ("prefix_hit_rate_window", "fraction", "Hits / queries over the window only."),
    ("prefix_hit_rate_lifetime", "fraction", "Hits / queries since start (differs from window)."),
    (
        "prefix_hit_rate_before",
        "fraction",
        "Hits / queries from server start to the window's first scrape (the window excluded).",
    ),
    # --- tokens
    ("prompt_tokens_per_s", "tokens/s", "Prompt tokens processed per second."),
    ("generation_tokens_per_s", "tokens/s", "Generated tokens per second."),
    (
        "release_counts_no_tokens",
        "bool",
        "The scrapes hold V0's averaged-throughput gauge and no token counter at all: a release "
        "that exported gauges only (vLLM before 0.4), not a capture that lost its counters.",
    ),
    ("mean_prompt_len", "tokens", "Mean prompt length of requests finished in the window."),
    ("mean_generation_len", "tokens", "Mean generation length of requests finished in window."),
    ("max_prompt_len_seen", "tokens", "Upper bucket bound of the longest prompt in the window."),
    ("prompt_tokens_recomputed_window", "tokens", "Prompt tokens recomputed after preemption."),
    # --- latency percentiles from histogram bucket deltas over the window
    *[
        (f"{h}_{q}", "s", f"{label} {q} over the window (histogram bucket deltas).")
        for h, label in (
            ("ttft", "Time to first token"),
            ("itl", "Inter-token latency"),
            ("queue_time", "Queue (waiting) time"),
            ("prefill_time", "Prefill time"),
            ("decode_time", "Decode time"),
            ("e2e_latency", "End-to-end request latency"),
        )
        for q in ("p50", "p95", "p99")
    ],
    ("ttft_mean", "s", "Mean time to first token over the window."),
    ("itl_mean", "s", "Mean inter-token latency over the window."),
    ("queue_time_mean", "s", "Mean queue time over the window."),
    ("prefill_time_mean", "s", "Mean prefill time over the window."),
    # --- the server's own baselines and per-interval evidence (signals/baselines.py)
    ("itl_baseline", "s", "This server's ITL at its lightest load in the window."),
    ("itl_loaded", "s", "Mean ITL of the most-loaded quarter of the window's scrape intervals."),
    ("itl_regression", "ratio", "itl_loaded / itl_baseline: how much decoding slowed under load."),
    ("itl_kv_fit_r2", "r2", "r² of ITL rising with resident KV tokens (0: not rising)."),
    ("itl_kv_fit_slope", "s/token", "ITL added per resident KV token (least-squares slope)."),
    ("itl_prefill_r2", "r2", "r² of interval ITL against prompt tokens arriving (prefill)."),
    (
        "decode_rate_light",
        "tokens/s",
        "Median generation tokens/s of the window's intervals with fewer sequences running "
        "than its busiest quarter.",
    ),
    (
        "decode_rate_heavy",
        "tokens/s",
        "Generation tokens/s of the window's busiest quarter of intervals (most running).",
    ),
    (
        "running_light",
        "requests",
        "Median running requests of the intervals behind decode_rate_light.",
    ),
    (
        "decode_rate_drop",
        "ratio",
        "decode_rate_light / decode_rate_heavy: how many times fewer tokens a second the "
        "busiest batches produced.",
    ),
    ("ttft_baseline", "s", "Mean TTFT over the window's intervals in which nothing waited."),
    ("ttft_p10", "s", "10th percentile of TTFT over the window (the quickest requests)."),
    ("prompt_len_p10", "tokens", "10th percentile of prompt length (finished requests)."),
    ("prompt_len_p50", "tokens", "Median prompt length (finished requests)."),
    ("prompt_len_p90", "tokens", "90th percentile of prompt length (finished requests)."),
    ("prefill_s_per_token", "s/token", "Window prefill seconds per prompt token (server's rate)."),
    (
        "ttft_tail_unexplained",
        "count",
        "First tokens slower than 1.5x what the window's longest prompt costs to prefill alone "
        "at the window's own rate: 0 when every slow first token can be a long prompt's own "
        "prefill, not a short one blocked behind it.",
    ),
    ("prompt_turnover", "ratio", "Computed prompt tokens in the window / KV pool tokens."),
    # --- the user's service-level objectives (--slo), from the bundle or the command line
    *[
        (f"slo_{h}_{q}", "s", f"User SLO for {label} {q} (--slo {h.replace('_', '-')}-{q}=...).")
        for h, label in (("ttft", "time to first token"), ("itl", "inter-token latency"))
        for q in ("p50", "p95", "p99")
    ],
    # --- what the operator was called for (--complaint), from the bundle or the command line
    (
        "complaint",
        "name",
        "The symptom users report (--complaint): preemption, high-ttft, slow-itl, "
        "prefix-miss, gpu-oom or quant-quality.",
    ),
    # --- engine configuration (cache_config_info labels, process argv, user flags)
    ("block_size", "tokens", "KV block size."),
    ("num_gpu_blocks", "blocks", "Number of KV blocks in the pool."),
    ("kv_capacity_tokens", "tokens", "block_size × num_gpu_blocks."),
    ("cache_dtype", "name", "KV cache dtype (auto, fp8, fp8_e4m3, ...)."),
    ("prefix_caching", "bool", "Whether automatic prefix caching is enabled."),
    ("gpu_memory_utilization", "fraction", "--gpu-memory-utilization."),
    ("max_model_len", "tokens", "Longest request the server admits."),
    ("max_num_seqs", "requests", "--max-num-seqs."),
    ("max_num_batched_tokens", "tokens", "--max-num-batched-tokens."),
    ("kv_cache_memory_bytes", "bytes", "Bytes reserved for the KV pool (when reported)."),
    (
        "tensor_parallel_size",
        "count",
        "--tensor-parallel-size, else the engine config log line: devices each layer's "
        "weights and KV heads are split over.",
    ),
    ("quantization", "name", "--quantization (awq, gptq, fp8, ...): the weights' kernel."),
    (
        "enforce_eager",
        "bool",
        "--enforce-eager, else the engine config log line; false from a full command line "
        "without it: no CUDA graphs are captured and every step launches its kernels eagerly.",
    ),
    (
        "flags_complete",
        "bool",
        "Every flag the server runs with is known: the full command line was recorded, or the "
        "log holds vLLM's 'non-default args' line; a flag named in neither is vLLM's default.",
    ),
    (
        "lora_enabled",
        "bool",
        "--enable-lora; false from a full command line without it: the scheduler admits "
        "requests for at most --max-loras distinct adapters per batch.",
    ),
    ("max_loras", "count", "--max-loras: distinct LoRA adapters per batch (vLLM's default 1)."),
    ("served_model", "name", "Served model name (first of /v1/models)."),
    ("vllm_version", "name", "vLLM version from /version."),
    # --- model and locker math
    ("kv_bytes_per_token", "bytes", "KV bytes per token for this model and cache dtype."),
    ("kv_demand_tokens", "tokens", "Live KV demand: running_max × (mean prompt + generation)."),
    ("kv_demand_ratio", "ratio", "kv_demand_tokens / kv_capacity_tokens."),
    (
        "request_capacity_tokens",
        "tokens",
        "KV tokens one request can use: the pool, or its share per pipeline virtual engine "
        "on a V0 engine.",
    ),
    ("max_model_len_over_capacity", "ratio", "max_model_len / request_capacity_tokens."),
    ("kv_config_mismatch", "ratio", "Reported KV bytes / (bytes per token × capacity); 1 = agree."),
    # --- GPU (NVML)
    ("gpu_memory_used_bytes", "bytes", "Highest used memory of the busiest device."),
    ("gpu_memory_total_bytes", "bytes", "Total memory of that device."),
    ("gpu_memory_used_fraction", "fraction", "used / total of that device."),
    ("gpu_other_process_bytes", "bytes", "Memory held by processes other than the server."),
    ("gpu_name", "name", "NVML name of the busiest device."),
    ("gpu_bandwidth", "bytes/s", "Published peak memory bandwidth of that device (physics.py)."),
    ("weights_bytes", "bytes", "Model weight bytes a decode step reads (dense estimate)."),
    (
        "max_model_len_held_share",
        "fraction",
        "Share of its tokens a max_model_len request holds of the pool as the engine counts it: "
        "1, less where sliding-window layers keep only the window.",
    ),
    (
        "kv_pool_groups",
        "count",
        "KV cache groups the engine's stated pool is divided by (blocks / groups × block size "
        "under vLLM's hybrid allocator); 1 where every layer counts full.",
    ),
    (
        "kv_held_share",
        "fraction",
        "Share of its tokens a sequence of the window's mean length holds in the pool as the "
        "engine counts it: below 1 where sliding-window layers keep only the window.",
    ),
    (
        "gpu_peak_flops",
        "FLOP/s",
        "Published dense peak of that device for the weights' precision (physics.py).",
    ),
    (
        "prefill_tokens_per_busy_s",
        "tokens/s",
        "Prompt tokens computed (not cached) per second the engine spent prefilling: finished "
        "requests' prompt tokens less the cached share over min(window, Σ prefill time).",
    ),
    (
        "prefill_flops_per_token",
        "FLOP",
        "FLOPs one prompt token costs this model at the window's mean prompt length "
        "(projections, routed experts, attention over the prompt).",
    ),
    (
        "prefill_mfu",
        "fraction",
        "Model FLOPs utilization of the prefill: prefill_tokens_per_busy_s × "
        "prefill_flops_per_token / (gpu_peak_flops × devices of the instance).",
    ),
    # --- logs
    ("log_no_cache_memory", "bool", "Log says 'No available memory for the cache blocks'."),
    ("log_oom", "bool", "Log shows a CUDA/torch out-of-memory error."),
    (
        "log_kv_transfer_without_connector",
        "count",
        "Requests that arrived with KV transfer parameters at an engine without a KV connector "
        "(vLLM's 'Got kv_transfer_params, but no KVConnector found' warning): each one "
        "recomputes the prompt a prefill instance already computed.",
    ),
    (
        "log_kv_transfer_errors",
        "count",
        "ERROR lines of a KV connector (module *_connector.py, NIXL, Mooncake, LMCache) or of a "
        "failed KV load, pull or transfer: a request whose remote KV never arrives can wait "
        "holding its blocks.",
    ),
    (
        "log_engine_deaths",
        "count",
        "Lines saying the engine process died while serving (EngineCore fatal error, "
        "EngineDeadError, 'Engine core died', V0's 'Engine loop has died').",
    ),
    (
        "log_quantization",
        "name",
        "The quantization the engine's config line names (gguf, awq, fp8, ...; empty where it "
        "says None).",
    ),
    (
        "log_startup_failed",
        "bool",
        "The log says the engine failed while starting (V1 'Engine core initialization "
        "failed', 'Engine process failed to start'): the server never served.",
    ),
    (
        "log_engine_death_site",
        "text",
        "The vLLM source file the engine died in: the innermost vLLM frame of the traceback at "
        "its death (e.g. distributed/kv_transfer/kv_connector/v1/offloading/scheduler.py).",
    ),
    (
        "log_kv_transfer_error_line",
        "text",
        "The message of the first such ERROR line.",
    ),
    (
        "log_oom_phase",
        "name",
        "Where the first out-of-memory error struck, from its traceback: cuda-graph-capture, "
        "sampler-warmup, wake-up, kv-allocation, weights-loading, profiling or serving.",
    ),
    ("log_oom_tried_bytes", "bytes", "What the first out-of-memory error tried to allocate."),
    (
        "log_oom_multimodal",
        "bool",
        "The out-of-memory traceback runs through the multimodal encoder (or the profiler "
        "warned that its multimodal worst case does not fit).",
    ),
    (
        "log_oom_prompt_logprobs",
        "bool",
        "The out-of-memory traceback computes prompt logprobs: every prompt token's logits over "
        "the whole vocabulary, gathered at once.",
    ),
    (
        "log_oom_device_bytes",
        "bytes",
        "The device's total capacity, as the first out-of-memory error states it.",
    ),
    (
        "log_oom_torch_bytes",
        "bytes",
        "Memory PyTorch's allocator held at the first out-of-memory error (allocated plus "
        "reserved but unallocated), as the error states it.",
    ),
    (
        "oom_in_activations",
        "bool",
        "The out-of-memory error struck an activation peak (the profiling run, the sampler's "
        "warm-up or a forward pass while serving) with the KV pool not full.",
    ),
    ("log_preemption_warnings", "count", "Preemption warnings in the log."),
    (
        "kv_usage_max_waiting",
        "fraction",
        "Peak KV cache usage (fullest engine) at the scrapes where requests waited, and the "
        "scrapes either side: how full the pool was while the queue stood.",
    ),
    (
        "prefix_hits_counter_silent",
        "bool",
        "The prefix-cache hits counter stayed at 0 while the engine counted at least 5 % of the "
        "queried prompt tokens as served from its own cache (prompt_tokens_by_source): the "
        "counter is not wired on this path, and those tokens are taken as the hits.",
    ),
    (
        "log_reports_preemptions",
        "bool",
        "The log is one that would show a preemption: a V0 scheduler's (it warns at its first "
        "preemption) or V1 stats lines that count them.",
    ),
    ("log_kv_cache_tokens", "tokens", "Startup line 'KV cache size: N tokens'."),
    ("log_max_concurrency", "ratio", "Startup line 'Maximum concurrency for N tokens: X'."),
    ("log_max_model_len_exceeds_kv", "bool", "Start-up refused: max_model_len above KV capacity."),
    ("log_fp8_kv_cache", "bool", "Log names a quantized KV cache dtype (fp8, int8, nvfp4...)."),
    (
        "log_prompts_over_pool",
        "count",
        "V0 warnings 'Input prompt ... exceeds the capacity of block_manager': prompts "
        "dropped with no output.",
    ),
    (
        "log_v0_engine",
        "bool",
        "The log's engine line is a V0 engine's ('Initializing an LLM engine (v...)').",
    ),
    (
        "log_pipeline_parallel_size",
        "count",
        "pipeline_parallel_size in the engine config log line.",
    ),
    (
        "log_estimated_max_model_len",
        "tokens",
        "Start-up refusal: 'the estimated maximum model length is N' (what the pool holds).",
    ),
    (
        "log_weights_bytes",
        "bytes",
        "Start-up line 'Model loading took X GiB memory': weight bytes on one device.",
    ),
    (
        "log_available_kv_bytes",
        "bytes",
        "Start-up line 'Available KV cache memory: X GiB': what utilization × memory left for "
        "the pool after weights, activations and CUDA graphs (one device).",
    ),
    (
        "log_vllm_hint",
        "text",
        "vLLM's own advice in its last start-up error ('Try increasing `gpu_memory_utilization`"
        " ...', 'Please try lowering `max_num_seqs` ...'), verbatim, one line.",
    ),
    ("gpu_device_count", "count", "Devices NVML sampled."),
    (
        "platform",
        "name",
        "Where the server keeps its KV cache: cpu (vLLM's CPU build: the log names the CPU "
        "platform or a CPU KV cache, or --device cpu) or gpu (NVML saw a device, or the log "
        "names a GPU KV cache or CUDA); unknown without either.",
    ),
]

# --- metrics vLLM added from 0.12 to 0.33 (kvdoctor/signals/v1_extra.py); None where absent
_DEFS += [
    (
        "waiting_deferred_max",
        "requests",
        "Most requests waiting as 'deferred' (LoRA budget, KV "
        "transfer), num_requests_waiting_by_reason (0.24+).",
    ),
    ("waiting_capacity_max", "requests", "Most requests waiting for scheduling capacity."),
    ("waiting_deferred_share", "fraction", "Deferred / all waiting requests, over the window."),
    (
        "prompt_cached_share_window",
        "fraction",
        "Prompt tokens served from the local prefix cache "
        "or an external KV transfer / all prompt tokens (prompt_tokens_by_source, 0.18+).",
    ),
    (
        "prompt_external_share_window",
        "fraction",
        "Prompt tokens that arrived through an external KV transfer / all prompt tokens "
        "(prompt_tokens_by_source, 0.18+): near 1 on the decode side of a disaggregated pair.",
    ),
    (
        "prompt_tokens_external_window",
        "tokens",
        "Prompt tokens that arrived by external KV transfer (a connector or offload tier).",
    ),
    ("prompt_tokens_cached_window", "tokens", "Cached prompt tokens (prompt_tokens_cached)."),
    (
        "prompt_tokens_cached_offloaded_window",
        "tokens",
        "Cached prompt tokens served by a tier "
        "other than the device pool: host, disk, p2p (prompt_tokens_cached_by_source, 0.32+).",
    ),
    (
        "external_prefix_queries_window",
        "tokens",
        "External (KV connector / offload) prefix-cache query tokens (0.12+).",
    ),
    ("external_prefix_hits_window", "tokens", "External prefix-cache hit tokens."),
    ("external_prefix_hit_rate_window", "fraction", "External hits / external queries."),
    (
        "cpu_offload_gb",
        "GB",
        "--cpu-offload-gb: weights per GPU kept in CPU memory and streamed to the GPU in every "
        "forward pass (cache_config_info label or the flag).",
    ),
    (
        "log_sampler_warmup_seqs",
        "requests",
        "Dummy requests of the sampler warm-up that ran out of memory (--max-num-seqs).",
    ),
    (
        "log_sleep_residual_gib",
        "GiB",
        "Sleep mode: memory still in use after the engine fell asleep (its last sleep line).",
    ),
    ("log_external_lookups", "count", "LMCache lookup lines in the log (one per request)."),
    (
        "log_external_lookup_tokens",
        "tokens",
        "Prompt tokens LMCache looked up, from its per-request log lines.",
    ),
    (
        "log_completions_failing_tail",
        "requests",
        "Completion requests the access log answered with a server error (5xx) after the last "
        "one it answered below 500: at the log's end the server fails every request.",
    ),
    (
        "log_requests_while_engine_silent",
        "requests",
        "Requests the log shows arriving after the engine's last stats line, where its stats "
        "lines stood in for /metrics and stopped for three logging intervals or more after the "
        "first of them: an engine that stopped stepping.",
    ),
    (
        "log_engine_silent_s",
        "s",
        "Seconds from the first request after the engine's last stats line to the log's end.",
    ),
    (
        "log_requests_after_engine_idle",
        "requests",
        "Completion requests the access log accepted (200) after the engine's stats line read "
        "idle and never busy again: requests that never reached the engine.",
    ),
    ("log_external_hit_rate", "fraction", "LMCache hit tokens / looked-up tokens, from its log."),
    (
        "log_external_repeat_share",
        "fraction",
        "Share of LMCache lookups of 512+ tokens whose exact length an earlier lookup had, "
        "beyond the repeats lengths drawn at random from their own p10-p90 range would give "
        "((observed - chance) / (1 - chance)): prompts sent again.",
    ),
    ("log_external_stored_tokens", "tokens", "Tokens LMCache logged as stored."),
    (
        "log_external_retrieve_tokens",
        "tokens",
        "Tokens LMCache set out to retrieve after lookups that hit ('Retrieved N out of M').",
    ),
    (
        "log_external_retrieved_share",
        "fraction",
        "Share of those tokens LMCache's retrievals returned: under 1 %, the tier finds what it "
        "holds and loads none of it (its reads fail).",
    ),
    (
        "log_external_store_busy_share",
        "fraction",
        "Share of the wall clock one process spent storing KV to LMCache (the cost its store "
        "lines log, over their span; the busiest process): stores run inside the engine's step.",
    ),
    (
        "kv_block_lifetime_p50",
        "s",
        "Median KV block lifetime, allocation to eviction (--kv-cache-metrics, 0.12+).",
    ),
    ("kv_block_idle_before_evict_p50", "s", "Median idle time of a KV block before eviction."),
    ("kv_block_reuse_gap_p50", "s", "Median time between reuses of a cached KV block."),
    ("kv_block_evictions_sampled_window", "blocks", "Sampled KV block evictions in the window."),
    (
        "prefill_kv_computed_tokens_mean",
        "tokens",
        "Mean prompt tokens a request had to compute "
        "(not cached), request_prefill_kv_computed_tokens (0.18+).",
    ),
    ("iteration_tokens_p99", "tokens", "p99 of tokens scheduled per engine step."),
    (
        "iteration_tokens_budget_share",
        "fraction",
        "iteration_tokens_p99 / "
        "--max-num-batched-tokens: near 1, steps fill the batched-token budget.",
    ),
    ("request_preemptions_mean", "count", "Mean preemptions per finished request (0.32+)."),
    ("spec_decode_draft_tokens_window", "tokens", "Speculative draft tokens proposed."),
    ("spec_decode_acceptance_rate", "fraction", "Accepted / proposed draft tokens."),
    (
        "spec_decode_accepted_per_draft",
        "tokens",
        "Accepted draft tokens per verification step (each step also yields one token of its own).",
    ),
    (
        "spec_decode_tokens_per_draft",
        "tokens",
        "Draft tokens proposed per verification step (num_speculative_tokens in effect).",
    ),
    ("spec_decode_configured", "bool", "Speculative decoding is configured or exporting."),
    (
        "spec_off_change",
        "text",
        "How to switch speculation off in this server's own flags (V0: --speculative-model and "
        "--num-speculative-tokens; later: --speculative-config).",
    ),
    (
        "spec_k_setting",
        "text",
        "Where this server sets the tokens drafted per step (V0: --num-speculative-tokens; later: "
        "num_speculative_tokens in --speculative-config).",
    ),
    (
        "cache_lookup_settings",
        "text",
        "The engine's flags that change how KV blocks are stored or looked up (decode context "
        "parallelism above 1, a KV connector or offloading, a block hash, speculation), joined.",
    ),
    ("kv_offload_store_bytes_window", "bytes", "Bytes stored to the KV offload tier (0.24+)."),
    ("kv_offload_load_bytes_window", "bytes", "Bytes loaded back from the KV offload tier."),
    ("nixl_failed_transfers_window", "count", "Failed NIXL KV transfers (P/D disaggregation)."),
    ("nixl_xfer_time_mean", "s", "Mean time of one NIXL KV transfer over the window."),
    (
        "nixl_post_time_mean",
        "s",
        "Mean time to post one NIXL transfer's reads over the window (the engine's own work "
        "before the transfer runs).",
    ),
    ("nixl_failed_notifications_window", "count", "Failed NIXL transfer notifications."),
    (
        "nixl_expired_requests_window",
        "count",
        "Requests whose KV expired on the prefill side before the decode side fetched it (0.18+).",
    ),
    (
        "kv_fetch_requests_max",
        "requests",
        "Most requests held in KV fetch stages on a KV "
        "consumer, num_requests_kv_fetch_by_stage (0.32+).",
    ),
    ("kv_transfer_configured", "bool", "A KV connector is configured (--kv-transfer-config)."),
    ("kv_connector", "name", "kv_connector of --kv-transfer-config (NixlConnector, ...)."),
    (
        "kv_role",
        "name",
        "kv_role of --kv-transfer-config: kv_producer (computes prompts and sends their KV), "
        "kv_consumer (receives the KV and decodes) or kv_both.",
    ),
    ("mamba_cache_mode", "name", "cache_config_info mamba_cache_mode (hybrid models)."),
    ("sliding_window", "tokens", "cache_config_info sliding_window."),
    ("hash_block_size", "tokens", "cache_config_info hash_block_size (prefix-hash granularity)."),
    ("mamba_block_size", "tokens", "cache_config_info mamba_block_size."),
    ("kv_offloading", "bool", "A KV offloading size is configured (cache_config_info)."),
    (
        "hybrid_model",
        "bool",
        "Hybrid model (Mamba / linear-attention layers beside attention), "
        "from the model config or cache_config_info's Mamba labels.",
    ),
    (
        "mamba_state_bytes_per_seq",
        "bytes",
        "Mamba (conv + SSM) state of one sequence over all "
        "attention-free layers; it does not grow with context, unlike KV.",
    ),
    (
        "prefix_hit_granularity_tokens",
        "tokens",
        "Tokens at which prefix-cache hits land: "
        "cache_hit_alignment_tokens (0.32+), else the block size (times the largest KV "
        "compression ratio of a compressed-attention model, twice that with speculation).",
    ),
    (
        "kv_compress_ratio_max",
        "ratio",
        "The largest KV compression ratio of the model's layers (compress_ratios in "
        "config.json, DeepSeek-V4): a compressed layer keeps one KV entry per that many tokens "
        "(1 for a model that compresses none).",
    ),
    (
        "log_cudagraph_full_largest",
        "requests",
        "Largest FULL (whole-step) CUDA graph batch captured at start-up "
        "('Profiling CUDA graph memory' line); larger decode batches fall back to "
        "PIECEWISE graphs.",
    ),
    (
        "cudagraph_decode_ceiling",
        "requests",
        "The largest decode batch that replays the best graph this server captured: the "
        "largest FULL graph when FULL graphs were captured, else the largest capture size.",
    ),
    (
        "log_cudagraph_max_capture_size",
        "requests",
        "Largest CUDA graph batch size captured at "
        "start-up (compilation_config); decode batches above it run without graphs.",
    ),
    ("log_cudagraph_truncated", "bool", "Start-up log: capture sizes truncated or overridden."),
    ("log_cudagraph_memory_gib", "GiB", "CUDA graph memory estimated or taken at capture."),
    (
        "log_cudagraph_estimate_gib",
        "GiB",
        "Start-up log: CUDA graph memory the profiler estimated and charged before sizing the "
        "KV pool (vLLM 0.21+).",
    ),
    ("log_cudagraph_taken_gib", "GiB", "Start-up log: memory the CUDA graph capture took."),
    (
        "log_cudagraph_kv_util_taken",
        "fraction",
        "GPU memory fraction CUDA graph profiling "
        "takes from the KV pool (vLLM 0.21+ start-up line).",
    ),
    (
        "log_cudagraph_suggested_utilization",
        "fraction",
        "--gpu-memory-utilization that start-up line suggests to keep the pre-0.21 KV pool size.",
    ),
    (
        "log_startup_free_short",
        "bool",
        "Start-up log: vLLM refused to start because the "
        "device had less free memory than --gpu-memory-utilization asks (memory held elsewhere).",
    ),
    ("log_startup_free_gib", "GiB", "Free device memory vLLM found at start-up (that refusal)."),
    ("log_startup_wanted_gib", "GiB", "Device memory --gpu-memory-utilization asked for there."),
    (
        "itl_stalls_window",
        "count",
        "Token gaps of a second or more in the window (ITL histogram above its first bound "
        "≥ 1 s): streams that froze mid-answer, however few against the percentiles.",
    ),
    (
        "itl_p10",
        "s",
        "10th percentile of inter-token latency (the fastest tokens: the decode "
        "floor when most steps carry something else); None inside the first bucket.",
    ),
    ("itl_stall_min_s", "s", "The bucket bound the counted stalls are above (1 s or more)."),
    (
        "itl_crawl_tokens_window",
        "count",
        "Tokens in the window that came at least 0.2 s and 10x the median step apart (ITL "
        "histogram above that bound): streams crawling below reading speed for a while, which "
        "no percentile shows when they are a small share of the tokens.",
    ),
    (
        "itl_crawl_seconds_window",
        "s",
        "The time those crawling tokens took at least (each at its bucket's lower bound).",
    ),
    ("itl_crawl_min_s", "s", "The bucket bound the crawling tokens are above."),
    (
        "prefix_hit_rate_late",
        "fraction",
        "Prefix-cache hit rate over the window's last third (hits / queries increases).",
    ),
    (
        "finished_length_shift",
        "fraction",
        "Share of the window's last third of finished requests that ran to max_tokens, less the "
        "share of its first third: answers that stopped ending while the server ran.",
    ),
    (
        "finished_length_share_window",
        "fraction",
        "Share of the window's finished requests that stopped at max_tokens "
        "(finished_reason=length) rather than at a stop token.",
    ),
    (
        "runaway_answer_share",
        "fraction",
        "Share of the window's finished answers eight times the median answer's length or "
        "longer (request_generation_tokens buckets; a lower bound): answers that never end "
        "pile up far beyond the rest.",
    ),
    # --- the evidence that decides a prefix miss (kvdoctor.signals.prompts)
    ("prompt_sample_prompts", "count", "Prompts analysed from --prompts or the request log."),
    (
        "prompt_sample_source",
        "name",
        "Where the prompt sample came from: prompts-file "
        "(--prompts) or request-log (vLLM --enable-log-requests lines).",
    ),
    (
        "prompt_sample_tokenizer",
        "name",
        "How the sample was tokenised: given (token ids), "
        "server (/tokenize) or approximate (word pieces; counts are approximate).",
    ),
    (
        "prompt_share_pattern",
        "name",
        "What the prompts share: shared (whole blocks, same "
        "adapter and salt), identity-split (the text shares blocks, adapters or salts differ), "
        "drift (they differ early and share at least a block after that), sub-block (a shared "
        "prefix shorter than one block), unshared (nothing worth caching).",
    ),
    (
        "prompt_shared_prefix_tokens",
        "tokens",
        "Median tokens a prompt shares from the start "
        "with the most similar earlier prompt of the sample.",
    ),
    (
        "prompt_shared_prefix_blocks",
        "blocks",
        "Median whole blocks a prompt shares with an "
        "earlier prompt of the same adapter and cache salt: what the cache can reuse.",
    ),
    (
        "prompt_shared_after_difference_tokens",
        "tokens",
        "Median tokens shared after the first "
        "difference: what a prefix would share if what differs came later.",
    ),
    (
        "prompt_first_difference_in_block",
        "tokens",
        "Where the prompts first differ, as a token offset inside its block (0 = on a boundary).",
    ),
    (
        "prompt_difference_kind",
        "name",
        "What the text differs in where prompts first differ: "
        "timestamp, date, uuid, hex id, number or text.",
    ),
    (
        "prompt_shareable_fraction",
        "fraction",
        "Share of the sample's prompt tokens the cache "
        "could serve: whole shared blocks (same adapter and salt), or for identity-split, drift "
        "and sub-block traffic what it would serve once that is fixed; 0 for unshared traffic.",
    ),
    (
        "prompt_identity_split_fraction",
        "fraction",
        "Share of the sample's prompt tokens whose text repeats whole blocks of an earlier "
        "prompt under another adapter or cache salt and of none under its own: the hits the "
        "identity split costs, whatever most prompts show.",
    ),
    (
        "prompt_exact_repeats",
        "count",
        "Later prompts of the sample that repeat an earlier one of their adapter and salt whole "
        "(two blocks or more): a working cache serves them, whatever else the sample shows.",
    ),
    (
        "prompt_drift_fraction",
        "fraction",
        "Share of the sample's later prompt tokens that repeat whole blocks of an earlier prompt "
        "after an early difference (drift), whatever most prompts show: the hits the drift "
        "costs.",
    ),
    ("prompt_drift_prompts", "count", "Prompts of the sample that drift (see above)."),
    (
        "prompt_drift_at_tokens",
        "tokens",
        "Median tokens the drifted prompts share before their first difference.",
    ),
    (
        "prompt_drift_shared_after_tokens",
        "tokens",
        "Median tokens the drifted prompts share with an earlier prompt after the difference.",
    ),
    (
        "prompt_sample_length_ratio",
        "ratio",
        "The prompt sample's mean length over the window's mean prompt: far from 1, the "
        "sample's token shares do not stand for the server's (prompt_shareable_fraction is then "
        "unknown).",
    ),
    ("prompt_identities", "count", "Distinct (LoRA adapter, cache salt) pairs in the sample."),
    ("prompt_adapters", "count", "Distinct LoRA adapters in the sample (the base model is one)."),
    (
        "prompt_cache_salts",
        "count",
        "Distinct cache_salt values in the sample (none counts one); unknown for a request log.",
    ),
    (
        "request_log_adapters",
        "count",
        "Distinct lora_request values over vLLM's 'Received "
        "request' log lines (None counts as one: the base model).",
    ),
    (
        "kv_retention_horizon_s",
        "s",
        "How long a freed KV block survives before eviction: "
        "measured (kv_block_idle_before_evict median) or estimated from the pool's free tokens "
        "over the tokens claimed per second. A prefix recurring less often than this misses.",
    ),
]

SIGNALS: dict[str, SignalDef] = {name: SignalDef(name, unit, doc) for name, unit, doc in _DEFS}

# Short plain-language names for the signals the rules' conditions read, as the report's
# "why this and not a look-alike" lines say them (the docs above are for `kvdoctor rules`).
# A signal without one falls back to its doc's first clause; tests/rules hold every signal a
# cause's condition reads to a label, so no rule-variable name reaches the first screen.
LABELS: dict[str, str] = {
    "block_size": "the KV block size",
    "enforce_eager": "CUDA graphs off (--enforce-eager)",
    "lora_enabled": "LoRA adapters enabled (--enable-lora)",
    "kv_role": "the KV connector role (kv_role)",
    "flags_complete": "every flag known (command line or non-default args line)",
    "max_loras": "adapters per batch (--max-loras)",
    "kv_usage_max_waiting": "peak KV cache usage while requests waited",
    "platform": "where the KV cache lives (gpu or cpu)",
    "engines": "engines behind the endpoint",
    "iteration_tokens_budget_share": "busy steps' tokens over the step budget",
    "stalled_share": "the share of the window the engine computed nothing",
    "log_oom_torch_bytes": "memory PyTorch held at the out-of-memory error",
    "log_oom_device_bytes": "the device's capacity at the out-of-memory error",
    "replicas": "replicas behind the router",
    "routing_policy": "the router's policy",
    "itl_engine_spread": "the slowest engine's ITL over the fastest engine's",
    "engine_busiest_waiting_share": "the share of the waiting requests on one engine",
    "kv_usage_max_other_engines": "the fullest KV pool of the other engines",
    "external_prefix_hit_rate_window": "the external cache's hit rate",
    "cpu_offload_gb": "weights offloaded to CPU memory per GPU (--cpu-offload-gb)",
    "log_sleep_residual_gib": "memory the engine still held asleep",
    "log_sampler_warmup_seqs": "the sampler warm-up's dummy requests",
    "log_external_lookups": "LMCache lookups in the log",
    "log_external_lookup_tokens": "tokens LMCache looked up (its log)",
    "log_external_hit_rate": "LMCache's hit rate (its log)",
    "log_external_repeat_share": "LMCache lookups that repeat an earlier prompt's length",
    "log_external_stored_tokens": "tokens LMCache stored (its log)",
    "log_external_retrieve_tokens": "tokens LMCache set out to retrieve (its log)",
    "log_external_retrieved_share": "the share of them LMCache retrieved (its log)",
    "log_external_store_busy_share": "the share of the time spent storing KV to LMCache",
    "external_prefix_queries_window": "tokens looked up in the external cache",
    "gpu_memory_used_fraction": "device memory in use",
    "gpu_memory_utilization": "--gpu-memory-utilization",
    "gpu_other_process_bytes": "memory other processes hold on the card",
    "itl_kv_fit_r2": "how closely ITL follows the resident KV tokens (r²)",
    "itl_kv_fit_slope": "ITL added per resident KV token",
    "itl_p10": "ITL p10",
    "itl_p50": "ITL p50",
    "itl_p95": "ITL p95",
    "itl_prefill_r2": "how closely ITL follows the arriving prompt tokens (r²)",
    "itl_stalls_window": "token gaps of a second or more",
    "itl_crawl_tokens_window": "tokens slower than reading speed and 10x the median step",
    "itl_crawl_seconds_window": "the time streams crawled below reading speed",
    "ttft_tail_unexplained": "slow first tokens beyond the long prompts' own prefill",
    "kv_fetch_requests_max": "requests waiting for a KV fetch",
    "kv_usage_max": "peak KV cache usage",
    "kv_usage_mean": "mean KV cache usage",
    "log_cudagraph_kv_util_taken": "memory the captured graphs take from the KV pool",
    "log_cudagraph_max_capture_size": "the largest graph batch captured at start-up",
    "cudagraph_decode_ceiling": "the largest decode batch with the best captured graph",
    "decode_rate_drop": "how many times fewer tokens a second the busiest batches produced",
    "max_model_len": "the longest request the server admits",
    "max_model_len_over_capacity": "the longest request over the KV pool",
    "request_capacity_tokens": "the KV tokens one request can use",
    "log_prompts_over_pool": "prompts dropped because no block manager can hold them",
    "log_kv_transfer_without_connector": (
        "requests whose KV transfer an engine without a KV connector ignored"
    ),
    "log_kv_transfer_errors": "KV connector errors in the log (failed KV loads or transfers)",
    "log_kv_transfer_error_line": "what the first KV connector error says",
    "log_engine_deaths": "lines saying the engine died",
    "log_startup_failed": "the engine failed while starting",
    "log_engine_death_site": "the vLLM file the engine died in",
    "down_tail_s": "the capture's end during which the server did not answer /metrics",
    "counter_resets": "restarts of the server in the window (counters that dropped)",
    "log_oom_phase": "where the out-of-memory error struck",
    "cache_lookup_settings": "settings that change how blocks are stored or looked up",
    "log_estimated_max_model_len": "the longest request the pool holds (vLLM's estimate)",
    "log_max_model_len_exceeds_kv": "start-up refused max_model_len",
    "log_no_cache_memory": "log says no memory was left for KV cache blocks",
    "log_oom_tried_bytes": "what the failed allocation asked for",
    "max_num_batched_tokens": "--max-num-batched-tokens",
    "max_num_seqs": "--max-num-seqs",
    "mean_prompt_len": "the mean prompt",
    "prompt_len_p90": "the 90th-percentile prompt",
    "engine_busiest_running_share": "the busiest engine's share of the running requests",
    "nixl_expired_requests_window": "KV transfers that expired before the decode side fetched them",
    "nixl_failed_notifications_window": "failed KV transfer notifications",
    "nixl_failed_transfers_window": "failed KV transfers",
    "preemptions_window": "preemptions in the window",
    "prefix_queries_window": "prefix-cache lookups in the window",
    "prefix_hit_rate_window": "prefix-cache hit rate in the window",
    "prefix_hit_rate_lifetime": "prefix-cache hit rate since the server started",
    "prompt_share_pattern": "what the prompts share",
    "prompt_identities": "distinct adapters and cache salts in the prompt sample",
    "complaint": "the symptom users report",
    "log_cudagraph_estimate_gib": "CUDA graph memory the profiler charged before sizing the pool",
    "log_weights_bytes": "the weights the start-up log says it loaded",
    "log_cudagraph_taken_gib": "CUDA graph memory the capture took",
    "prompt_sample_length_ratio": "the prompt sample's mean length over the server's",
    "prompt_adapters": "distinct LoRA adapters in the prompt sample",
    "prompt_cache_salts": "distinct cache salts in the prompt sample",
    "itl_regression": "ITL under load over this server's quiet ITL",
    "kv_demand_ratio": "live KV demand over the pool",
    "queue_time_p95": "queue time p95",
    "prompt_shareable_fraction": "share of the sample's prompt tokens a cache could serve",
    "prompt_identity_split_fraction": "share of the prompt tokens kept apart by adapter or salt",
    "prompt_drift_fraction": "share of the prompt tokens shared only after an early difference",
    "prompt_exact_repeats": "sampled prompts sent again whole",
    "prompt_tokens_per_s": "prompt tokens per second",
    "prompt_turnover": "new prompt tokens in the window per token of KV pool",
    "request_log_adapters": "LoRA adapters in the request log",
    "running_max": "peak running requests",
    "in_flight_max": "the most requests in the engine at one scrape",
    "kv_compress_ratio_max": "the largest KV compression ratio of the model's layers",
    "prefill_mfu": "the prefill's share of the GPUs' peak compute",
    "stalled_tail_s": "the window's end with requests running and nothing computed",
    "stalled_span_s": "the longest stretch with requests running and nothing computed",
    "finished_length_shift": "more answers running to max_tokens late in the window than early",
    "runaway_answer_share": "answers eight times the median answer's length or longer",
    "prefix_hit_rate_late": "the hit rate over the window's last third",
    "log_requests_after_engine_idle": "requests accepted after the engine went idle for good",
    "log_requests_while_engine_silent": "requests that arrived after the engine's last stats line",
    "log_completions_failing_tail": "completions failed with a server error at the log's end",
    "log_engine_silent_s": "how long the engine logged no stats line while requests arrived",
    "spec_decode_accepted_per_draft": "draft tokens accepted per verification step",
    "spec_decode_draft_tokens_window": "speculative draft tokens",
    "spec_decode_tokens_per_draft": "tokens drafted per step",
    "spec_decode_acceptance_rate": "share of the drafted tokens accepted",
    "ttft_p95": "TTFT p95",
    "waiting_deferred_max": "requests deferred (LoRA budget, KV transfer)",
    "waiting_deferred_share": "share of the waiting requests that were deferred",
    "waiting_max": "peak waiting requests",
}

# A count that was zero, in words ("no request waited" for waiting_max 0).
NONE: dict[str, str] = {
    "waiting_max": "no request waited",
    "waiting_deferred_max": "no request was deferred",
    "preemptions_window": "no preemption in the window",
    "itl_stalls_window": "no token gap of a second or more",
    "nixl_failed_transfers_window": "no KV transfer failed",
    "nixl_failed_notifications_window": "no KV transfer notification failed",
    "nixl_expired_requests_window": "no KV transfer expired",
    "external_prefix_queries_window": "nothing was looked up in the external cache",
    "log_external_lookup_tokens": "no LMCache lookup in the log",
    "cpu_offload_gb": "no weights offloaded to CPU memory",
    "spec_decode_draft_tokens_window": "no speculative draft tokens",
    "prefix_queries_window": "no prefix-cache lookups in the window",
    "kv_fetch_requests_max": "no request waited for a KV fetch",
    "request_log_adapters": "no LoRA adapter in the request log",
    "gpu_other_process_bytes": "no other process holds memory on the card",
    "log_kv_transfer_without_connector": "no KV transfer was ignored for want of a connector",
    "log_kv_transfer_errors": "no KV connector error in the log",
    "log_engine_deaths": "no engine death in the log",
}

# Text signals with a fixed vocabulary, each value in words: a "why not" line says what the
# value is against what a cause needs ("the prompts share whole blocks, not less than one
# block"), never "shared (needs exactly sub-block)".
VALUES: dict[str, dict[str, str]] = {
    "prompt_share_pattern": {
        "shared": "the prompts share whole blocks",
        "identity-split": "the prompts share text but differ in LoRA adapter or cache salt",
        "drift": "the prompts differ early and share content after the difference",
        "sub-block": "the prompts share less than one block",
        "unshared": "the prompts share nothing",
    },
    "log_oom_phase": {
        "cuda-graph-capture": "the out-of-memory error struck during CUDA graph capture",
        "sampler-warmup": "the out-of-memory error struck during the sampler's warm-up",
        "wake-up": "the out-of-memory error struck while waking from sleep mode",
        "kv-allocation": "the out-of-memory error struck while allocating the KV pool",
        "weights-loading": "the out-of-memory error struck while loading the weights",
        "profiling": "the out-of-memory error struck during the profiling run",
        "serving": "the out-of-memory error struck while serving",
    },
}

# Yes/no signals in words: what the value says when true, and when false.
STATES: dict[str, tuple[str, str]] = {
    "flags_complete": (
        "every flag the server runs with is known",
        "the server's flags are not all known",
    ),
    "lora_enabled": (
        "LoRA adapters are enabled (--enable-lora)",
        "LoRA adapters are off (no --enable-lora)",
    ),
    "enforce_eager": (
        "CUDA graphs are off (--enforce-eager)",
        "CUDA graphs are captured (no --enforce-eager)",
    ),
    "hybrid_model": ("the model is hybrid (Mamba or linear attention)", "the model is not hybrid"),
    "kv_transfer_configured": ("a KV connector is configured", "no KV connector is configured"),
    "log_oom": ("the log shows an out-of-memory error", "no out-of-memory error in the log"),
    "log_oom_multimodal": (
        "the multimodal encoder was in the out-of-memory traceback",
        "no multimodal encoder in the out-of-memory traceback",
    ),
    "log_oom_prompt_logprobs": (
        "the out-of-memory traceback computes prompt logprobs",
        "the out-of-memory traceback computes no prompt logprobs",
    ),
    "oom_in_activations": (
        "the out-of-memory error struck an activation peak, not the KV pool",
        "the out-of-memory error did not strike an activation peak",
    ),
    "log_startup_free_short": (
        "the server refused to start: too little free memory on the device",
        "no start-up refusal for free device memory",
    ),
    "log_no_cache_memory": (
        "the log says no memory was left for KV cache blocks",
        "the log does not say memory ran short for KV cache blocks",
    ),
    "log_max_model_len_exceeds_kv": (
        "the server refused max_model_len at start-up",
        "no start-up refusal of max_model_len",
    ),
    "prefix_caching": ("prefix caching is on", "prefix caching is off"),
    "spec_decode_configured": (
        "speculative decoding is configured",
        "speculative decoding is not configured",
    ),
}


def label(name: str) -> str:
    """The plain-language name of ``name`` (LABELS, else its doc's first clause)."""
    if name in LABELS:
        return LABELS[name]
    definition = SIGNALS.get(name)
    if definition is None or not definition.doc:
        return name.replace("_", " ")
    first = definition.doc.split(": ")[0].split(" (")[0].rstrip(".")
    return first[0].lower() + first[1:] if not first[:2].isupper() else first
