"""Signals from the server log (logs.txt): the vLLM messages that matter for the KV cache."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from kvdoctor.bundle.model import Bundle
from kvdoctor.kvmath.capacity import GPU_DEFAULT_BLOCK_SIZE
from kvdoctor.lazyre import LazyPattern
from kvdoctor.signals.common import Out, not_checked_reason
from kvdoctor.signals.config import to_float, to_int
from kvdoctor.thresholds import POOL_FULL
from kvdoctor.vocab import QUANTIZED_KV_DTYPE_PATTERN

# Message texts from vLLM 0.32's source (v1/core/kv_cache_utils.py, config/cache.py) and
# older releases (V0 scheduler preemption warning). Every pattern in this module is compiled on
# its first search (kvdoctor.lazyre): most logs never reach most of them.
_LOG_PATTERNS: dict[str, LazyPattern] = {
    "no_cache_memory": LazyPattern(r"No available memory for the cache blocks"),
    "oom": LazyPattern(
        r"(CUDA out of memory|torch\.(?:cuda\.)?OutOfMemoryError|OutOfMemoryError: |"
        # ROCm, Ascend (torch_npu: "NPU out of memory", external case zyo-ascend-qwen25vl)
        # and Intel (XPU) say the same of their devices.
        r"(?:HIP|NPU|XPU) out of memory|out of memory occurred|"
        # Outside torch's caching allocator: "RuntimeError: CUDA error: out of memory" (a
        # kernel, NCCL, cuBLAS) and vLLM's sleep-mode allocator ("CUDA Error: out of memory
        # at .../cumem_allocator.cpp:163", external case y-reranker).
        r"CUDA [Ee]rror: out of memory|"
        # The shell's word for a child the kernel's out-of-memory killer ended with SIGKILL,
        # alone on its line (external case zza-orin, round 12: a Jetson's unified memory,
        # "Killed" right after the pool was sized).
        r"^Killed\s*$)",
        re.MULTILINE,
    ),
    # The guard of "oom", _OOM_NEEDLES, as those given to _found and _seen, holds texts one of
    # which every match holds: a log without any is not searched (test_log_pattern_search.py).
    "preemption": LazyPattern(
        r"(is preempted by PreemptionMode\.\w+ mode because there is not enough KV cache space"
        r"|preempted by .*not enough KV cache space)"
    ),
    # V0's scheduler drops a prompt that no block manager can ever hold (scheduler.py
    # _schedule_prefills); the request finishes with no output. With chunked prefill the
    # number printed is the chunk, not the prompt.
    "prompt_over_pool": LazyPattern(
        r"Input prompt \((\d+) tokens\) is too long and exceeds (?:the )?capacity of "
        r"(?:the )?block_?manager"
    ),
    # V0 engines print "Initializing an LLM engine (v0.5.5)", and from 0.8 on, beside V1,
    # "Initializing a V0 LLM engine (v0.8.6)"; V1 "Initializing a V1 LLM engine".
    "v0_engine": LazyPattern(r"Initializing (?:an|a V0) LLM engine \(v?[\d.]+"),
    # V1's sampler warm-up refusal (gpu_model_runner.py): "CUDA out of memory occurred when
    # warming up sampler with 1024 dummy requests": the count is --max-num-seqs.
    "sampler_warmup": LazyPattern(r"warming up sampler with (\d+) dummy requests"),
    # Sleep mode (gpu_worker.py): "Sleep mode freed 2.05 GiB memory, 5.06 GiB memory is still
    # in use." What stays in use while asleep is held against whatever wakes next.
    "sleep_residual": LazyPattern(
        r"Sleep mode freed [\d.]+ GiB memory, ([\d.]+) GiB memory is still in use"
    ),
    "pipeline": LazyPattern(r"pipeline_parallel_size=(\d+)"),
    # The engine config line (enforce_eager=True) or the non-default args dict
    # ('enforce_eager': True).
    "eager": LazyPattern(r"enforce_eager'?\s*[=:]\s*(True|False)"),
    # The engine config line (tensor_parallel_size=8) or the non-default args dict
    # ('tensor_parallel_size': 8).
    "tensor": LazyPattern(r"tensor_parallel_size'?\s*[=:]\s*(\d+)"),
    # The API server's args line (V0: "args: Namespace(... max_num_seqs=256, ...)") or the
    # non-default args dict ('max_num_seqs': 64).
    # Without its leading \b (searched by _at_word_start): a pattern that starts with a
    # literal is found at memory speed, one that starts with \b is tried at every position.
    "max_num_seqs": LazyPattern(r"max_num_seqs'?\s*[=:]\s*(\d+)"),
    # The engine config line at start-up: "... max_seq_len=32768, ..." (V0 and V1).
    "max_seq_len": LazyPattern(r"max_seq_len=(\d+)"),  # \b: _at_word_start
    # The engine config line's quantization (None, or the method: gguf, awq, fp8, ...).
    "quantization": LazyPattern(r"quantization=([A-Za-z0-9_]+)"),  # \b: _at_word_start
    # "GPU KV cache size: N tokens" (any device name in capitals, optionally " + host"): the
    # pattern starts at its literal and _kv_cache_sizes checks the device name before it, as
    # the others here do (a leading class is tried at every position: ~1.2 ms on a 30 KB log).
    "kv_tokens": LazyPattern(r" KV cache size: ([\d,]+) tokens"),
    "concurrency": LazyPattern(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x"),
    # vLLM writes "(196608), (23.25 GiB KV cache is needed"; builds that dropped the stray
    # parenthesis ("(196608), 23.25 GiB KV cache") are the same refusal.
    "exceeds": LazyPattern(
        r"max seq len \((\d+)\), \(?([\d.]+) GiB KV cache is needed, which is larger than the "
        r"available KV cache memory"
    ),
    # The same refusal in V0 (worker/worker.py raise_if_cache_size_invalid, 0.4 to 0.10):
    # "The model's max seq len (N) is larger than the maximum number of tokens that can be
    # stored in KV cache (M)". M is the pool, so a max_model_len of M fits.
    "exceeds_v0": LazyPattern(
        r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be "
        r"stored in KV cache \((\d+)\)"
    ),
    # V0's memory profiling line (worker/worker.py): "model weights take 13.95GiB".
    "weights_v0": LazyPattern(r"model weights take ([\d.]+) ?GiB"),
    # The config line at engine start ("kv_cache_dtype=fp8, ...") or the cache-config notice.
    "fp8": LazyPattern(
        rf"Using ({QUANTIZED_KV_DTYPE_PATTERN}) data type to store kv cache"
        rf"|kv_cache_dtype=({QUANTIZED_KV_DTYPE_PATTERN})\b"
    ),
    # v1/engine/core.py: a request carries kv_transfer_params (a P/D router sent it) but the
    # engine was started without --kv-transfer-config: it recomputes the prompt itself.
    "no_connector": LazyPattern(r"Got kv_transfer_params, but no KVConnector found"),
    # An ERROR from a KV connector (NIXL, Mooncake, LMCache, P2P NCCL: their modules are named
    # *_connector.py) or an ERROR that says a KV load, pull or transfer failed. Before a
    # connector reports a failed load to the scheduler, the log is the only trace: the request
    # stays waiting for its remote KV while holding its blocks (external case: Mooncake's
    # "pulling kv_caches for [...] failed: Timeout waiting for P side ready").
    "kv_transfer_error": LazyPattern(
        r"^[^\n]*\bERROR\b[^\n]*(?:\[[\w.]*(?:connector|nixl|mooncake|lmcache)[\w.]*\.py:\d+\]"
        r"|(?i:(?:pull|load|recv|receiv|transfer|fetch)\w*\s+(?:of\s+)?(?:the\s+)?"
        r"(?:remote\s+)?kv(?:_caches?|\s+caches?|\s+blocks?)?\b[^\n]*(?:fail|timeout|timed out)))"
        r"[^\n]*$",
        re.MULTILINE,
    ),
    # The engine process died while serving (V1: core.py "EngineCore encountered a fatal
    # error", then EngineDeadError on every request in flight and "Engine core died; shutting
    # down the API server"; V0: AsyncEngineDeadError, "Engine loop has died"). The API server
    # may then exit with status 0 (external case zzg-engine-death, vLLM 0.24: an assertion in
    # the KV offloading scheduler, every later scrape refused).
    # The engine failed before it served (V1 core.py "Engine core initialization failed. See
    # root cause above.", the API server's "Engine process failed to start"); the root cause
    # is a traceback above it, which a cut log may not hold (external case zzp-internvl3,
    # holdout-15: a 78B model at TP4 on 40 GB cards, the log cut before its error).
    "startup_failed": LazyPattern(
        r"Engine core initialization failed|Engine process failed to start"
    ),
    "engine_death": LazyPattern(
        r"EngineCore encountered a fatal error|EngineDeadError|Engine core died"
        r"|Engine loop has died|Engine core proc \S+ died unexpectedly"
    ),
    "v0_stats": LazyPattern(r"Running: \d+ reqs, Swapped: \d+ reqs, Pending: \d+ reqs"),
    # vLLM V1 logs no per-request warning; its periodic stats line carries "Preemptions: N".
    "stats_preemptions": LazyPattern(r"Preemptions: (\d+)"),
    "estimated": LazyPattern(r"the estimated maximum model length is (\d+)"),
    # v1/worker/gpu_model_runner.py and gpu_worker.py (0.10 to 0.32).
    # "Model loading took 14.99 GiB" (V1) and V0's "Loading model weights took 3.8842 GB"
    # (V0 printed GiB under the name GB).
    "weights": LazyPattern(r"(?:Model loading|Loading model weights) took ([\d.]+) ?Gi?B"),
    # V1: "Available KV cache memory: 5.16 GiB"; V0 0.6 (worker.py's profiling line):
    # "Memory profiling results: total_gpu_memory=47.74GiB ... kv_cache_size=0.39GiB".
    "available_kv": LazyPattern(r"(?:Available KV cache memory: |\bkv_cache_size=)(-?[\d.]+) ?GiB"),
    # vLLM's own advice in its start-up errors (kv_cache_utils.py, gpu_model_runner.py,
    # gpu_worker.py).
    "hint": LazyPattern(
        r"((?:Please )?[Tt]ry (?:increasing|lowering|decreasing) `[a-z_]+`[^.\n]*"
        r"|Decrease GPU memory utilization or reduce GPU memory used by other processes)"
    ),
    # V1 gpu_worker.py init_device: the device had less free memory at start-up than
    # --gpu-memory-utilization asks for (memory held before this server allocated any).
    # Releases before the device name was added write "Free memory on device (5.31/79.18 GiB)".
    "startup_free": LazyPattern(
        r"Free memory on device (?:(\S+) )?\(([\d.]+)/([\d.]+) GiB\) on startup is less than "
        r"desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\)"
    ),
}

_GIB = 1 << 30
# Every match of the "oom" pattern holds one of these.
_OOM_NEEDLES = ("out of memory", "OutOfMemoryError", "Killed")
# Every match of the "hint" pattern holds one of these (a backtick alone is in most logs).
_HINT_NEEDLES = ("ry increasing `", "ry lowering `", "ry decreasing `", "Decrease GPU memory")

# Where an out-of-memory error struck, read from the frames of its traceback (first match
# wins): the phase decides the cause. CUDA graph capture and the KV allocation are sized by
# their own knobs; the profiling run, the sampler's warm-up and a forward pass while serving
# are activation peaks (memory the pool's sizing left for activations ran out).
_OOM_PHASES: tuple[tuple[str, LazyPattern], ...] = (
    (
        "cuda-graph-capture",
        LazyPattern(
            r"capture_model|_capture_cudagraphs|cuda_?graph\.capture|"
            r"CUDAGraph|graph_capture"
        ),
    ),
    ("sampler-warmup", LazyPattern(r"_dummy_sampler_run")),
    # Sleep mode gives the weights' and the pool's memory back to the device; waking maps it
    # again, and fails when another process (or what sleeping left behind) holds it. Only the
    # wake_up frame says so: every allocation of a sleep-mode server goes through the cumem
    # allocator, so its file name in the error would claim a profiling run too.
    ("wake-up", LazyPattern(r"\bwake_up\b")),
    (
        "kv-allocation",
        LazyPattern(
            r"_allocate_kv_cache|initialize_kv_cache|_initialize_kv_caches|"
            r"_init_cache_engine|CacheEngine|allocate_kv"
        ),
    ),
    # Loading the weights: nothing but the weights is on the device yet, so they do not fit
    # at this parallelism (external case zyj-tp8: a 70B model at TP8 on 14.6 GiB cards).
    (
        "weights-loading",
        LazyPattern(r"\bload_model\b|\bload_weights\b|_initialize_model|model_loader"),
    ),
    (
        "profiling",
        LazyPattern(
            r"profile_run|_dummy_run|determine_num_available_blocks|"
            r"determine_available_memory"
        ),
    ),
    (
        "serving",
        LazyPattern(
            r"execute_model|model_executable|serving_chat|serving_completion|"
            r"in forward$|\.forward\(|step_with_batch_queue"
        ),
    ),
)
# A traceback line: the header, a frame, a source line under it, or the error, in any of the
# prefixes vLLM's processes put before them.
_TRACEBACK_LINE = LazyPattern(
    r"Traceback|File \"|^\s|\] {2,}\S|\]\s+\w+(?:\.\w+)*(?:Error|Exception)\b|ERROR"
)
# A request was served before the error: vLLM's request log, the access log, a stats line
# with tokens moving.
_SERVED = LazyPattern(
    r"Received request |Added request |\"POST /v1/|Avg prompt throughput: (?!0\.0 )[\d.]+"
)
_TRIED = LazyPattern(r"Tried to allocate ([\d.]+) (GiB|MiB)")
# PyTorch's account of the device at the error: its capacity, and what PyTorch's own allocator
# held (allocated plus reserved but unallocated), beside memory outside it (CUDA context, NCCL).
_TORCH_HELD = LazyPattern(
    r"total capacity of ([\d.]+) (GiB|MiB).*?allocated memory ([\d.]+) (GiB|MiB) is allocated "
    # Newer releases name the CUDA graphs' private pools, a part of the allocated memory.
    r"by PyTorch,(?: with [\d.]+ (?:GiB|MiB) allocated in private pools \([^)]*\),)? and "
    r"([\d.]+) (GiB|MiB) is reserved by PyTorch but unallocated"
)
# The engine's own report of the pool it is about to allocate (V0 and V1).
_KV_SIZED = LazyPattern(
    r"# GPU blocks: \d+|KV cache size: [\d,]+ tokens|Maximum concurrency for [\d,]+ tokens"
)
# The multimodal encoder's own frames, or the profiler's multimodal warning.
_MULTIMODAL = LazyPattern(
    # V1's model runner runs the encoder of each step's new images in _execute_mm_encoder
    # (external case zzp-vl-image-burst, holdout-15: vLLM 0.11, a burst of image requests).
    r"_execute_mm_encoder|"
    r"_process_image_input|_process_video_input|get_multimodal_embeddings|vision_tower|"
    r"visual\.|encoder_cache|multi-modal embeddings in the worst case|"
    # V0's encoder-decoder runner (mllama): "Starting profile run for multi-modal models."
    # and the vision model's frames.
    r"profile run for multi-modal models|vision_model\("
)


# The frames that compute prompt logprobs: the logits of every prompt token over the whole
# vocabulary, gathered at once in fp32 (external case zxg-kimi-k26: 6,260 tokens × 163,840 ×
# 4 bytes = 3.82 GiB for one request at 0.95 utilization).
_PROMPT_LOGPROBS = LazyPattern(r"_get_prompt_logprobs_dict|prompt_logprobs")


_PHASE_RX = dict(_OOM_PHASES)


class OomReading(NamedTuple):
    """What the first out-of-memory error's traceback says."""

    # Where it struck (None when the traceback does not say).
    phase: str | None = None
    # The bytes it tried to allocate.
    tried: int | None = None
    # The multimodal encoder was in it.
    multimodal: bool = False
    # It was computing prompt logprobs.
    prompt_logprobs: bool = False
    # The device's capacity and what PyTorch's allocator held at the error (bytes), from the
    # error's own message.
    device_bytes: int | None = None
    torch_bytes: int | None = None


def oom_phase(text: str) -> tuple[str | None, int | None, bool]:
    """The phase of the first out-of-memory error (``None`` when its traceback does not say),
    the bytes it tried to allocate, and whether the multimodal encoder was in it."""
    got = read_oom(text)
    return got.phase, got.tried, got.multimodal


def read_oom(text: str) -> OomReading:
    """The first out-of-memory error's traceback, read once (an empty reading without one)."""
    if not any(n in text for n in _OOM_NEEDLES):
        return OomReading()
    lines = text.splitlines()
    oom = _LOG_PATTERNS["oom"]
    first = next((i for i, ln in enumerate(lines) if oom.search(ln)), None)
    if first is None:
        return OomReading()
    start = first
    while start > 0 and _TRACEBACK_LINE.search(lines[start - 1]) and first - start < 400:
        start -= 1
    end = first
    if start == first:
        # V0's multiprocessing engine logs the error's repr first and its traceback after it
        # ("OutOfMemoryError('CUDA out of memory ...')", then "Traceback", the frames, and the
        # error again): read the frames up to that second line (external case zzc-mllama).
        again = next(
            (j for j in range(first + 1, min(len(lines), first + 400)) if oom.search(lines[j])),
            None,
        )
        if again is not None and any("Traceback" in ln for ln in lines[first + 1 : again]):
            end = again
    frames = "\n".join(lines[start : end + 1])
    phase = next((name for name, rx in _OOM_PHASES if rx.search(frames)), None)
    if phase == "kv-allocation":
        # V0's _initialize_kv_caches profiles first, then allocates: the innermost of the two
        # frames is where it ran out.
        alloc = max(m.start() for m in _PHASE_RX["kv-allocation"].finditer(frames))
        prof = [m.start() for m in _PHASE_RX["profiling"].finditer(frames)]
        if prof and max(prof) > alloc:
            phase = "profiling"
    if phase is None and any(_SERVED.search(ln) for ln in lines[:start]):
        phase = "serving"
    if phase is None and lines[first].strip() == "Killed":
        # No traceback from a killed process: the last line it wrote says where it was. The
        # pool is allocated right after it is sized ("# GPU blocks", "KV cache size").
        before = next((ln for ln in reversed(lines[:first]) if ln.strip()), "")
        if _KV_SIZED.search(before):
            phase = "kv-allocation"
    tried = _TRIED.search(lines[first])
    size = _bytes(tried.group(1), tried.group(2)) if tried else None
    multimodal = bool(_MULTIMODAL.search(frames)) or (
        phase == "profiling" and bool(_MULTIMODAL.search("\n".join(lines[:first])))
    )
    held = _TORCH_HELD.search(lines[first])
    device = torch = None
    if held:
        device = _bytes(held.group(1), held.group(2))
        torch = _bytes(held.group(3), held.group(4)) + _bytes(held.group(5), held.group(6))
    return OomReading(phase, size, multimodal, bool(_PROMPT_LOGPROBS.search(frames)), device, torch)


def _bytes(number: str, unit: str) -> int:
    return int(float(number) * (_GIB if unit == "GiB" else 1 << 20))


# A frame of vLLM's own source in a traceback: 'File ".../vllm/v1/core/sched/scheduler.py"'.
_VLLM_FRAME = LazyPattern(r'File "[^"\n]*?/vllm/([\w/]+\.py)"')
# The traceback's last line, the error itself ("AssertionError", "ValueError: ..."), alone
# or after a log prefix ("... [core.py:1110] AssertionError"); source lines are indented.
_ERROR_LINE = LazyPattern(r"(?:^|\]\s?)(?:\w+\.)*\w+(?:Error|Exception)\b")
# How far around the first death line its traceback is looked for (V1 prints the traceback
# after "EngineCore encountered a fatal error"; V0's AsyncEngineDeadError follows it).
_DEATH_CONTEXT = 12_000


def _death_site(text: str, at: int) -> str | None:
    """The vLLM file the engine died in: the last vLLM frame of the first traceback that
    starts near the first death line (a traceback's innermost frame is its last)."""
    start = text.find("Traceback", max(0, at - _DEATH_CONTEXT), at + _DEATH_CONTEXT)
    if start < 0:
        return None
    frames: list[str] = []
    for line in text[start : at + _DEATH_CONTEXT].splitlines()[1:]:
        frame = _VLLM_FRAME.search(line)
        if frame is not None:
            frames.append(frame.group(1))
        elif _ERROR_LINE.search(line):
            break
    return frames[-1] if frames else None


def _gib_bytes(text: str) -> int | None:
    v = to_float(text)
    return None if v is None else int(v * _GIB)


# "(Worker pid=1) ERROR 08-01 12:42:13 [mooncake_connector.py:1899] pulling ... failed: ..."
_LOG_PREFIX = LazyPattern(r"^.*?\bERROR\b\s*(?:[\d\-/]+\s+[\d:.,]+\s*)?(?:\[[^\]]*\]\s*)?")


def _found(rx: LazyPattern, text: str, needles: tuple[str, ...]) -> Iterator[re.Match[str]]:
    """``rx.finditer(text)``, where every match of ``rx`` holds one of ``needles``: a plain
    substring test first. These patterns start with ``\\b``, a class or an optional group, so the
    regex engine tries them at every position of the log (~1 ms each on a 30 KB log) where
    ``in`` skips a log without the text at memory speed."""
    return rx.finditer(text) if any(n in text for n in needles) else iter(())


def _seen(rx: LazyPattern, text: str, needles: tuple[str, ...]) -> bool:
    """``rx.search(text) is not None``, with the guard of :func:`_found`."""
    return any(n in text for n in needles) and rx.search(text) is not None


def _at_word_start(rx: LazyPattern, text: str) -> list[re.Match[str]]:
    """The matches of ``r"\\b" + rx.pattern``: those not preceded by a word character (``\\w``
    is what ``str.isalnum`` or ``_`` is), found with ``rx`` itself, which starts with a literal."""
    return [
        m
        for m in rx.finditer(text)
        if not m.start() or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")
    ]


def _kv_cache_sizes(rx: LazyPattern, text: str) -> list[str]:
    """The token counts of ``r"[A-Z]+(?: \\+ host)? KV cache size: ([\\d,]+) tokens"``, found
    with ``rx`` (the part from its literal on): a match counts when a capital letter ends the
    text before it, directly or before " + host"."""
    out = []
    for m in rx.finditer(text):
        at = m.start()
        if text.endswith(" + host", 0, at):
            at -= len(" + host")
        if at and "A" <= text[at - 1] <= "Z":
            out.append(m.group(1))
    return out


def _error_message(line: str, limit: int = 160) -> str:
    """The message of one ERROR line, without the process, level, time and source prefix."""
    message = _LOG_PREFIX.sub("", line.strip(), count=1).strip() or line.strip()
    return message if len(message) <= limit else message[: limit - 1] + "…"


def logs(out: Out, bundle: Bundle) -> None:
    names = (
        "log_no_cache_memory",
        "log_startup_free_short",
        "log_startup_free_gib",
        "log_startup_wanted_gib",
        "log_oom",
        "log_oom_phase",
        "log_oom_tried_bytes",
        "log_oom_multimodal",
        "log_oom_prompt_logprobs",
        "log_oom_device_bytes",
        "log_oom_torch_bytes",
        "oom_in_activations",
        "log_preemption_warnings",
        "log_reports_preemptions",
        "log_kv_cache_tokens",
        "log_max_concurrency",
        "log_max_model_len_exceeds_kv",
        "log_fp8_kv_cache",
        "log_estimated_max_model_len",
        "log_weights_bytes",
        "log_available_kv_bytes",
        "log_vllm_hint",
        "log_prompts_over_pool",
        "log_kv_transfer_without_connector",
        "log_kv_transfer_errors",
        "log_kv_transfer_error_line",
        "log_v0_engine",
        "log_pipeline_parallel_size",
        "log_sleep_residual_gib",
        "log_sampler_warmup_seqs",
        "log_requests_after_engine_idle",
        "log_engine_deaths",
        "log_engine_death_site",
        "log_startup_failed",
        "log_quantization",
        *_EXTERNAL_LOOKUP_SIGNALS,
    )
    text = bundle.logs
    if text is None:
        why = not_checked_reason(bundle, "logs", "no logs in the bundle (--logs FILE or -)")
        for n in names:
            out.set(n, None, reason=why)
        return
    p = _LOG_PATTERNS
    prov = "logs.txt"
    out.set("log_no_cache_memory", bool(p["no_cache_memory"].search(text)), prov)
    free = p["startup_free"].search(text)
    out.set("log_startup_free_short", free is not None, prov)
    out.set(
        "log_startup_free_gib",
        to_float(free.group(2)) if free else None,
        "logs.txt: 'Free memory on device ... on startup' refusal",
        reason="no start-up refusal for free memory in the logs",
    )
    out.set(
        "log_startup_wanted_gib",
        to_float(free.group(5)) if free else None,
        "logs.txt: 'Free memory on device ... on startup' refusal",
        reason="no start-up refusal for free memory in the logs",
    )
    out.set("log_oom", _seen(p["oom"], text, _OOM_NEEDLES), prov)
    phase, tried, multimodal, prompt_logprobs, device, torch = read_oom(text)
    out.set(
        "log_oom_phase",
        phase,
        "logs.txt: the frames of the first out-of-memory traceback",
        reason="no out-of-memory error in the logs, or its traceback names no phase",
    )
    out.set(
        "log_oom_tried_bytes",
        tried,
        "logs.txt: 'Tried to allocate X GiB' of the first out-of-memory error",
        reason="no out-of-memory error with the size it tried to allocate",
    )
    out.set("log_oom_multimodal", multimodal, "logs.txt: multimodal encoder frames or warning")
    out.set(
        "log_oom_prompt_logprobs",
        prompt_logprobs,
        "logs.txt: the first out-of-memory traceback computes prompt logprobs",
    )
    held = "logs.txt: the first out-of-memory error's own account of the device"
    no_held = "no out-of-memory error stating PyTorch's allocated and reserved memory"
    out.set("log_oom_device_bytes", device, held, reason=no_held)
    out.set("log_oom_torch_bytes", torch, held, reason=no_held)
    # A forward pass that runs out while the pool sits below full ran out of activation memory,
    # not KV: the pool is allocated up front and does not grow.
    usage = out.ss.get("kv_usage_max")
    pool_not_full = not isinstance(usage, (int, float)) or usage < POOL_FULL
    # The vision encoder's activations while serving are an activation peak however full the
    # pool is: encoder outputs are not KV blocks.
    out.set(
        "oom_in_activations",
        phase in ("profiling", "sampler-warmup")
        or (phase == "serving" and (pool_not_full or multimodal)),
        "logs.txt: the out-of-memory traceback's phase (and its encoder frames); the window's "
        "peak KV usage",
    )
    v0 = sum(1 for _ in _found(p["preemption"], text, ("not enough KV cache space",)))
    v1 = sum(int(m.group(1)) for m in p["stats_preemptions"].finditer(text))
    out.set(
        "log_preemption_warnings",
        v0 + v1,
        "logs.txt: V0 preemption warnings + 'Preemptions: N' of V1 periodic stats lines",
    )
    # Whether this log would show a preemption at all: the V0 scheduler warns at its first one
    # (and every 50th after), and its stats lines say "Pending"; some V1 stats lines count them.
    out.set(
        "log_reports_preemptions",
        bool(p["v0_stats"].search(text) or p["stats_preemptions"].search(text)),
        "logs.txt: V0 stats lines ('Swapped: N reqs, Pending: N reqs', a scheduler that warns "
        "at its first preemption) or V1 stats lines with 'Preemptions: N'",
    )
    v0_refusals = list(p["exceeds_v0"].finditer(text))
    out.set(
        "log_max_model_len_exceeds_kv",
        bool(p["exceeds"].search(text)) or bool(v0_refusals),
        prov,
    )
    fp8 = _seen(p["fp8"], text, ("data type to store kv cache", "kv_cache_dtype="))
    out.set("log_fp8_kv_cache", fp8, prov)
    out.set(
        "log_prompts_over_pool",
        len(p["prompt_over_pool"].findall(text)),
        "logs.txt: 'Input prompt (N tokens) is too long and exceeds the capacity of "
        "block_manager' warnings",
    )
    out.set(
        "log_kv_transfer_without_connector",
        len(p["no_connector"].findall(text)),
        "logs.txt: 'Got kv_transfer_params, but no KVConnector found' warnings",
    )
    transfer_errors = [m.group(0) for m in _found(p["kv_transfer_error"], text, ("ERROR",))]
    out.set(
        "log_kv_transfer_errors",
        len(transfer_errors),
        "logs.txt: ERROR lines of a KV connector or of a failed KV load, pull or transfer",
    )
    out.set(
        "log_kv_transfer_error_line",
        _error_message(transfer_errors[0]) if transfer_errors else None,
        "logs.txt: the first ERROR line of a KV connector, its message",
        reason="no ERROR line of a KV connector in the logs",
    )
    out.set("log_v0_engine", bool(p["v0_engine"].search(text)), prov)
    deaths = [m.start() for m in p["engine_death"].finditer(text)]
    out.set(
        "log_engine_deaths",
        len(deaths),
        "logs.txt: lines saying the engine died (EngineCore fatal error, EngineDeadError, "
        "'Engine core died', 'Engine loop has died')",
    )
    out.set(
        "log_startup_failed",
        bool(p["startup_failed"].search(text)),
        "logs.txt: 'Engine core initialization failed' or 'Engine process failed to start'",
    )
    site = _death_site(text, deaths[0]) if deaths else None
    out.set(
        "log_engine_death_site",
        site,
        "logs.txt: the last vLLM source file of the traceback at the engine's death",
        reason="no engine death with a traceback through vLLM's source in the logs",
    )
    _external_lookups(out, text)
    _external_store_share(out, text)
    _requests_after_idle(out, text)
    _failing_completions(out, text)
    warm = [int(m.group(1)) for m in p["sampler_warmup"].finditer(text)]
    out.set(
        "log_sampler_warmup_seqs",
        warm[-1] if warm else None,
        "logs.txt: 'warming up sampler with N dummy requests' (N is --max-num-seqs)",
        reason="no sampler warm-up failure in the logs",
    )
    if warm and out.ss.get("max_num_seqs") is None:
        out.set("max_num_seqs", warm[-1], "logs.txt: the sampler warm-up's dummy requests")
    residual = [float(m.group(1)) for m in p["sleep_residual"].finditer(text)]
    out.set(
        "log_sleep_residual_gib",
        residual[-1] if residual else None,
        "logs.txt: last 'Sleep mode freed X GiB memory, Y GiB memory is still in use' line",
        reason="no sleep-mode line in the logs",
    )
    seq = [int(m.group(1)) for m in _at_word_start(p["max_seq_len"], text)]
    if seq and out.ss.get("max_model_len") is None:
        # No server answered /v1/models and no flag says it (a start-up failure, an offline
        # LLM()): the engine's own config line does.
        out.set("max_model_len", seq[-1], "logs.txt: engine config line max_seq_len")
    tp = [int(m.group(1)) for m in p["tensor"].finditer(text)]
    if tp and out.ss.get("tensor_parallel_size") is None:
        out.set("tensor_parallel_size", tp[-1], "logs.txt: engine config tensor_parallel_size")
    seqs = [int(m.group(1)) for m in _at_word_start(p["max_num_seqs"], text)]
    if seqs and out.ss.get("max_num_seqs") is None:
        # No flag recorded: the server's own args line says what it ran with (external case
        # zze-llama3-8b, vLLM 0.5.3: 256 running, 2,450 waiting, the cap only in the log).
        out.set("max_num_seqs", seqs[-1], "logs.txt: the server's args line max_num_seqs")
    if out.ss.get("flags_complete") is None and "non-default args:" in text:
        # vLLM prints every flag that differs from its default on this line: one it does not
        # name runs at the default.
        out.set("flags_complete", True, "logs.txt: vLLM's non-default args line")
    eager = [m.group(1) == "True" for m in p["eager"].finditer(text)]
    if eager and out.ss.get("enforce_eager") is None:
        out.set("enforce_eager", eager[-1], "logs.txt: engine config enforce_eager")
    quant = [m.group(1) for m in _at_word_start(p["quantization"], text)]
    out.set(
        "log_quantization",
        quant[-1] if quant and quant[-1] != "None" else ("" if quant else None),
        "logs.txt: engine config line quantization ('' where it says None)",
        reason="no engine config line with quantization in the logs",
    )
    pp = [int(m.group(1)) for m in p["pipeline"].finditer(text)]
    out.set(
        "log_pipeline_parallel_size",
        pp[-1] if pp else None,
        "logs.txt: engine config line pipeline_parallel_size",
        reason="no pipeline_parallel_size in the logs",
    )
    est = [m.group(1) for m in p["estimated"].finditer(text)]
    est += [m.group(2) for m in v0_refusals]
    out.set(
        "log_estimated_max_model_len",
        to_int(est[-1]) if est else None,
        "logs.txt: start-up refusal 'the estimated maximum model length is N'",
        reason="no start-up refusal with an estimated maximum model length in the logs",
    )
    tokens = _kv_cache_sizes(p["kv_tokens"], text) or [m.group(2) for m in v0_refusals]
    v0_blocks = [m.group(1) for m in _found(_V0_GPU_BLOCKS, text, ("# GPU blocks: ",))]
    if tokens or not v0_blocks:
        out.set(
            "log_kv_cache_tokens",
            to_int(tokens[-1]) if tokens else None,
            "logs.txt: last 'KV cache size: N tokens' line",
            reason="no KV cache size line in the logs",
        )
    else:
        # A V0 engine states its pool in blocks; its block is the flag's, else 16 on GPUs.
        bs = out.ss.get("block_size")
        size = bs if isinstance(bs, int) and bs > 0 else GPU_DEFAULT_BLOCK_SIZE
        why = "block_size" if size == bs else f"V0's default block of {size} tokens on GPUs"
        out.set(
            "log_kv_cache_tokens",
            int(v0_blocks[-1]) * size,
            f"logs.txt: last V0 start-up line '# GPU blocks: {v0_blocks[-1]}' × {why}",
        )
    conc = [m.group(2) for m in p["concurrency"].finditer(text)]
    out.set(
        "log_max_concurrency",
        to_float(conc[-1]) if conc else None,
        "logs.txt: last 'Maximum concurrency' line",
        reason="no maximum concurrency line in the logs",
    )
    weights = [m.group(1) for m in p["weights"].finditer(text)] or [
        m.group(1) for m in p["weights_v0"].finditer(text)
    ]
    out.set(
        "log_weights_bytes",
        _gib_bytes(weights[-1]) if weights else None,
        "logs.txt: last 'Model loading took X GiB memory' line",
        reason="no model loading line in the logs",
    )
    avail = [
        m.group(1)
        for m in _found(p["available_kv"], text, ("Available KV cache memory: ", "kv_cache_size="))
    ]
    out.set(
        "log_available_kv_bytes",
        _gib_bytes(avail[-1]) if avail else None,
        "logs.txt: last 'Available KV cache memory' (V0: profiling 'kv_cache_size=') line",
        reason="no available KV cache memory line in the logs",
    )
    hints = [m.group(1).strip() for m in _found(p["hint"], text, _HINT_NEEDLES)]
    out.set(
        "log_vllm_hint",
        hints[-1] if hints else None,
        "logs.txt: vLLM's own advice in its last start-up error",
        reason="no advice from vLLM in the logs",
    )


# LMCache's vLLM adapter logs one line per lookup at INFO ("Reqid: X, Total tokens 7058,
# LMCache hit tokens: 0, need to load: 0", vllm_v1_adapter.py) and one per store ("Stored 7058
# out of total 7058 tokens", cache_engine.py). Releases before vLLM's external prefix-cache
# counters (0.12) say whether the tier served only there (external case t-lmcache: TP2 without
# PYTHONHASHSEED, every lookup 0 over documents resent ten times each).
_LMCACHE_LOOKUP = LazyPattern(r"Total tokens (\d+), LMCache hit tokens: (\d+)")
_LMCACHE_STORE = LazyPattern(r"LMCache INFO: Stored (\d+) out of total \d+ tokens")
# A retrieval after a lookup that hit ("Retrieved 0 out of 184 out of total 1976 tokens",
# cache_engine.py; older releases "Retrieved N out of total M tokens"): what the tier was to
# load and what it did. A store whose reads fail finds every chunk and loads none (external
# case zyq-lmcache-mooncake, holdout-21: batch_get_buffer missing from the mooncake client).
_LMCACHE_RETRIEVE = LazyPattern(r"Retrieved (\d+) out of (?:(\d+) out of )?total (\d+) tokens")
# A lookup of two LMCache chunks (256 tokens each, its default) or more: a resent prompt of
# that length is unlikely to be another prompt of the same length by chance.
_REPEAT_MIN_TOKENS = 512
_EXTERNAL_LOOKUP_SIGNALS = (
    "log_external_lookups",
    "log_external_lookup_tokens",
    "log_external_hit_rate",
    "log_external_repeat_share",
    "log_external_stored_tokens",
    "log_external_retrieve_tokens",
    "log_external_retrieved_share",
)


def _repeats_beyond_chance(lengths: list[int]) -> float:
    """Share of lookups repeating an earlier one's exact length, beyond chance (0..1).

    A resent prompt has exactly the length it had; but prompts of one fixed length (a
    benchmark's 1,000 random tokens, give or take the template) repeat lengths without being
    resent (external case: 414 lookups of 998-1,003 tokens, none shared). Chance is the repeat
    share of as many lengths drawn evenly from the lookups' own p10-p90 range; the result is
    (observed - chance) / (1 - chance), 0 when the range itself forces the repeats.
    """
    seen: set[int] = set()
    repeats = 0
    for tokens in lengths:
        repeats += tokens in seen
        seen.add(tokens)
    n = len(lengths)
    observed = repeats / n
    ordered = sorted(lengths)
    width = ordered[(9 * (n - 1)) // 10] - ordered[(n - 1) // 10] + 1
    distinct = width * (1 - (1 - 1 / width) ** n)
    chance = 1 - distinct / n
    if chance >= 1:
        return 0.0
    return round(max(0.0, (observed - chance) / (1 - chance)), 4)


# V0's start-up line sizing its pool: "# GPU blocks: 92, # CPU blocks: 327" (llm_engine.py).
_V0_GPU_BLOCKS = LazyPattern(r"# GPU blocks: (\d+)")
# vLLM's periodic stats line (V1 LoggingStatLogger).
_STATS_LINE = LazyPattern(
    r"Avg prompt throughput: ([\d.]+) tokens/s, Avg generation throughput: ([\d.]+) tokens/s, "
    r"Running: (\d+) reqs, (?:Swapped: \d+ reqs, )?(?:Pending|Waiting): (\d+) reqs"
)


# The access log's answer to a completion request, whatever its status.
_COMPLETION_STATUS = LazyPattern(r'"POST /v1/(?:chat/)?completions HTTP/[\d.]+" (\d{3})')


def _failing_completions(out: Out, text: str) -> None:
    """Completion requests the access log answered with a server error (5xx) after the last
    one it answered 200: the server's state when the log ends is to fail every request
    (external case zyd-v0-llama7b: vLLM 0.2.1's stats lines stopped at 98.7 % of the pool and
    every completion after them got a 500, with no /metrics to show it)."""
    if "/completions HTTP/" not in text:
        out.set(
            "log_completions_failing_tail",
            None,
            reason="no completion request in the access log",
        )
        return
    statuses = [int(m.group(1)) for m in _COMPLETION_STATUS.finditer(text)]
    tail = 0
    for status in reversed(statuses):
        if status < 500:
            break
        tail += 1
    out.set(
        "log_completions_failing_tail",
        tail,
        "logs.txt: access-log completion requests answered 5xx after the last one answered "
        "below 500",
    )


def _requests_after_idle(out: Out, text: str) -> None:
    """Completion requests the API server accepted after the engine last did anything.

    The engine's stats line says what it runs; once it reads idle (nothing running or waiting,
    no tokens) every request the access log accepts after it should show in the next one. Ones
    that never do never reached the engine: its input path hangs while the API server and
    /health answer (external case zf-mm: an input thread stuck evicting from the multimodal
    cache, 130 requests accepted and none computed).
    """
    lines = text.splitlines()
    stats = [(i, m) for i, ln in enumerate(lines) if (m := _STATS_LINE.search(ln))]
    if not stats:
        out.set(
            "log_requests_after_engine_idle",
            None,
            reason="no engine stats line in the logs (vLLM's periodic 'Avg prompt throughput')",
        )
        return

    def busy(m: re.Match[str]) -> bool:
        return (
            float(m.group(1)) > 0 or float(m.group(2)) > 0 or int(m.group(3)) + int(m.group(4)) > 0
        )

    last_busy = max((i for i, m in stats if busy(m)), default=-1)
    idle_after = [i for i, m in stats if i > last_busy and not busy(m)]
    if not idle_after:
        out.set(
            "log_requests_after_engine_idle",
            0,
            "logs.txt: the last engine stats line shows it busy",
        )
        return
    count = sum(
        1
        for ln in lines[idle_after[0] + 1 :]
        if (m := _COMPLETION_STATUS.search(ln)) is not None and m.group(1) == "200"
    )
    out.set(
        "log_requests_after_engine_idle",
        count,
        "logs.txt: access-log completions accepted (200) after the engine's stats line first read "
        "idle (nothing running or waiting, no tokens) and never busy again",
    )


# LMCache's store line with its own time stamp and cost ("[2025-09-18 15:03:29,994] LMCache
# INFO: Stored 2048 out of total 2048 tokens. size: 0.3750 GB, cost 742.7079 ms", cache_engine.py).
# What comes before the stamp names the process (one per tensor-parallel worker).
_LMCACHE_STORE_COST = LazyPattern(
    r"^(.*?)\[\d{4}-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3})\] LMCache INFO: Stored \d+ out "
    r"of total \d+ tokens\. size: [\d.]+ [Gg][Bb], cost ([\d.]+) ms",
    re.MULTILINE,
)
# Store lines a process must log before its share of time spent storing means anything.
_STORE_LINES_MIN = 5


def _external_store_share(out: Out, text: str) -> None:
    """The share of the time one process spent storing KV to LMCache, from its store lines.

    A store runs inside the engine's step (the connector saves each request's KV before the
    step returns), so a process that stores for most of the wall clock serves little else
    (external case zyf-lmcache: a remote store of 0.74 s per 2,048-token request at 2 req/s;
    the queue grew while the pool sat at 13 %). The busiest process counts: tensor-parallel
    workers store side by side.
    """
    if "LMCache INFO: Stored" not in text:
        out.set(
            "log_external_store_busy_share",
            None,
            reason="no LMCache store line with a cost in the logs",
        )
        return
    by_process: dict[str, list[tuple[float, float]]] = {}
    for m in _LMCACHE_STORE_COST.finditer(text):
        mon, day, hh, mm, ss, ms = (int(m.group(i)) for i in range(2, 8))
        if not 1 <= mon <= 12:
            continue
        t = ((mon * 31 + day) * 24 + hh) * 3600.0 + mm * 60 + ss + ms / 1000
        by_process.setdefault(m.group(1).strip(), []).append((t, float(m.group(8)) / 1000))
    shares = []
    for stores in by_process.values():
        if len(stores) < _STORE_LINES_MIN:
            continue
        stores.sort()
        span = stores[-1][0] - stores[0][0]
        if span > 0:
            # The first store opens the span; the costs of the later ones fall inside it.
            shares.append(min(1.0, sum(cost for _, cost in stores[1:]) / span))
    out.set(
        "log_external_store_busy_share",
        round(max(shares), 3) if shares else None,
        "logs.txt: LMCache 'Stored ... cost X ms' lines: the busiest process's store time over "
        "the span of its store lines",
        reason=f"fewer than {_STORE_LINES_MIN} LMCache store lines with a cost per process",
    )


def _external_lookups(out: Out, text: str) -> None:
    lookups = [(int(m.group(1)), int(m.group(2))) for m in _LMCACHE_LOOKUP.finditer(text)]
    if not lookups:
        if "LMCache" not in text:
            # No LMCache in this server's log at all: it looked nothing up.
            out.set("log_external_lookups", 0, "logs.txt: no LMCache line")
            out.set("log_external_lookup_tokens", 0, "logs.txt: no LMCache line")
            for n in _EXTERNAL_LOOKUP_SIGNALS[2:]:
                out.set(n, None, reason="no LMCache line in the logs")
            return
        for n in _EXTERNAL_LOOKUP_SIGNALS:
            out.set(n, None, reason="no LMCache lookup lines in the logs (INFO level or above)")
        return
    prov = "logs.txt: LMCache 'Total tokens N, LMCache hit tokens: H' lookup lines"
    total = sum(t for t, _ in lookups)
    hits = sum(min(h, t) for t, h in lookups)
    out.set("log_external_lookups", len(lookups), prov)
    out.set("log_external_lookup_tokens", total, prov)
    out.set(
        "log_external_hit_rate",
        round(hits / total, 4) if total > 0 else None,
        prov,
        reason="every LMCache lookup in the logs was of 0 tokens",
    )
    lengths = [tokens for tokens, _ in lookups if tokens >= _REPEAT_MIN_TOKENS]
    out.set(
        "log_external_repeat_share",
        _repeats_beyond_chance(lengths) if len(lengths) >= 4 else None,
        f"{prov}: lookups of {_REPEAT_MIN_TOKENS}+ tokens whose exact length an earlier one had, "
        "beyond what lengths drawn at random from their own p10-p90 range would repeat",
        reason=f"fewer than 4 LMCache lookups of {_REPEAT_MIN_TOKENS} tokens or more in the logs",
    )
    stored = [int(m.group(1)) for m in _LMCACHE_STORE.finditer(text)]
    out.set(
        "log_external_stored_tokens",
        sum(stored),
        "logs.txt: LMCache 'Stored N out of total M tokens' lines",
    )
    retrieves = [
        (int(m.group(1)), int(m.group(2) or m.group(3))) for m in _LMCACHE_RETRIEVE.finditer(text)
    ]
    wanted = sum(w for _, w in retrieves)
    rprov = "logs.txt: LMCache 'Retrieved N out of M' lines"
    out.set("log_external_retrieve_tokens", wanted, rprov)
    out.set(
        "log_external_retrieved_share",
        round(sum(min(g, w) for g, w in retrieves) / wanted, 4) if wanted > 0 else None,
        rprov,
        reason="no LMCache retrieval of any token in the logs",
    )
