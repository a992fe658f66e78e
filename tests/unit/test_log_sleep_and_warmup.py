"""Log lines that decide a GPU out-of-memory error: vLLM's sleep-mode allocator, what a sleeping
engine keeps, and the sampler warm-up's batch (external cases y-reranker and v-r1)."""

from __future__ import annotations

from _bundle_factory import bundle

from kvdoctor.signals.compute import compute_signals
from kvdoctor.signals.logs import oom_phase

WAKE_OOM = """\
(EngineCore_DP0 pid=88) INFO 06-08 10:48:20 [gpu_worker.py:151] Sleep mode freed 2.05 GiB memory, 5.06 GiB memory is still in use.
(EngineCore_DP0 pid=88) ERROR 06-08 10:55:13 [core.py:1120] Invocation of wake_up method failed
(EngineCore_DP0 pid=88) ERROR 06-08 10:55:13 [core.py:1120] Traceback (most recent call last):
(EngineCore_DP0 pid=88) ERROR 06-08 10:55:13 [core.py:1120]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 165, in wake_up
(EngineCore_DP0 pid=88) ERROR 06-08 10:55:13 [core.py:1120]     allocator.wake_up(tags)
(EngineCore_DP0 pid=88) ERROR 06-08 10:55:13 [core.py:1120]   File "/usr/local/lib/python3.12/dist-packages/vllm/device_allocator/cumem.py", line 262, in wake_up
(EngineCore_DP0 pid=88) ERROR 06-08 10:55:13 [core.py:1120] RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:163
"""  # noqa: E501

SAMPLER_OOM = (
    "ERROR 03-27 17:34:18 [core.py:343] RuntimeError: CUDA out of memory occurred when warming "
    "up sampler with 1024 dummy requests. Please try lowering `max_num_seqs` or "
    "`gpu_memory_utilization` when initializing the engine.\n"
)


def test_a_wake_up_out_of_memory_is_read_with_its_phase_and_the_sleep_residual() -> None:
    assert oom_phase(WAKE_OOM)[0] == "wake-up"
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": WAKE_OOM}))
    assert ss.get("log_oom") is True
    assert ss.get("log_oom_phase") == "wake-up"
    assert ss.get("log_sleep_residual_gib") == 5.06


def test_cuda_error_out_of_memory_outside_torch_is_an_out_of_memory_error() -> None:
    line = "RuntimeError: CUDA error: out of memory\n"
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": line}))
    assert ss.get("log_oom") is True


def test_the_sampler_warm_up_names_the_batch_it_ran_out_of_memory_at() -> None:
    b = bundle("healthy").model_copy(update={"logs": SAMPLER_OOM, "engine_args": None})
    ss = compute_signals(b)
    assert ss.get("log_sampler_warmup_seqs") == 1024
    assert ss.get("log_oom") is True
    # Nothing else states --max-num-seqs here (no flags, no label): the warm-up's count does.
    assert ss.get("max_num_seqs") == 1024
    assert ss.values["max_num_seqs"].provenance.startswith("logs.txt")


def test_the_sleep_allocator_in_the_error_does_not_make_a_profiling_oom_a_wake_up() -> None:
    # Every allocation of a sleep-mode server goes through the cumem allocator: its file name
    # in the error says nothing of the phase; the frames do.
    profiling = (
        "Traceback (most recent call last):\n"
        '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 2900, in profile_run\n'
        "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:163\n"
    )
    assert oom_phase(profiling)[0] == "profiling"


def test_a_process_killed_after_the_pool_was_sized_ran_out_while_allocating_it() -> None:
    sized = (
        "INFO 01-23 07:34:26 gpu_executor.py:122] # GPU blocks: 11836, # CPU blocks: 4681\n"
        "INFO 01-23 07:34:26 gpu_executor.py:126] Maximum concurrency for 200 tokens per "
        "request: 946.88x\n"
    )
    assert oom_phase(sized + "Killed\n") == ("kv-allocation", None, False)
    # "Killed" elsewhere in a line is no out-of-memory kill; alone after other lines, the
    # phase is not known.
    assert oom_phase(sized + "INFO worker Killed by the user\n") == (None, None, False)
    assert (
        oom_phase("INFO 01-23 07:31:59 model_runner.py:1] Starting to load model\nKilled\n")[0]
        is None
    )


V0_REPR_FIRST = """\
INFO 10-24 18:10:14 enc_dec_model_runner.py:301] Starting profile run for multi-modal models.
ERROR 10-24 18:10:27 engine.py:160] OutOfMemoryError('CUDA out of memory. Tried to allocate 15.70 GiB. GPU 0 has a total capacity of 95.00 GiB of which 10.21 GiB is free. Process 2891 has 84.78 GiB memory in use.')
ERROR 10-24 18:10:27 engine.py:160] Traceback (most recent call last):
ERROR 10-24 18:10:27 engine.py:160]   File "/x/vllm/engine/llm_engine.py", line 348, in __init__
ERROR 10-24 18:10:27 engine.py:160]     self._initialize_kv_caches()
ERROR 10-24 18:10:27 engine.py:160]   File "/x/vllm/worker/worker.py", line 223, in determine_num_available_blocks
ERROR 10-24 18:10:27 engine.py:160]     self.model_runner.profile_run()
ERROR 10-24 18:10:27 engine.py:160]   File "/x/vllm/model_executor/models/mllama.py", line 1232, in forward
ERROR 10-24 18:10:27 engine.py:160]     cross_attention_states = self.vision_model(pixel_values,
ERROR 10-24 18:10:27 engine.py:160] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 15.70 GiB.
"""  # noqa: E501


def test_a_v0_error_logged_before_its_traceback_is_read_through_the_traceback_after_it() -> None:
    # _initialize_kv_caches profiles, then allocates: the innermost frame (profile_run) wins.
    phase, tried, multimodal = oom_phase(V0_REPR_FIRST)
    assert phase == "profiling"
    assert tried == int(15.70 * (1 << 30))
    assert multimodal is True


def test_the_sole_process_an_oom_message_lists_is_the_servers_own() -> None:
    from kvdoctor.signals.gpu import server_pids

    assert 2891 in server_pids(V0_REPR_FIRST)
    two = (
        "of which 1 GiB is free. Process 1 has 2 GiB memory in use. "
        "Process 7 has 3 GiB memory in use."
    )
    assert server_pids(two) == frozenset()


def test_the_vision_encoders_frame_makes_a_serving_oom_an_activation_peak() -> None:
    # V1 runs each step's new images through _execute_mm_encoder; an out-of-memory there is
    # no KV block however full the pool (external case zzp-vl-image-burst).
    log = (
        'ERROR 10-24 01:26:57 [core.py:710]   File "/v/vllm/v1/worker/gpu_model_runner.py", '
        "line 2401, in execute_model\n"
        "ERROR 10-24 01:26:57 [core.py:710]     self._execute_mm_encoder(scheduler_output)\n"
        "ERROR 10-24 01:26:57 [core.py:710] torch.OutOfMemoryError: CUDA out of memory. Tried "
        "to allocate 960.00 MiB.\n"
    )
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": log}))
    assert ss.get("log_oom_phase") == "serving"
    assert ss.get("log_oom_multimodal") is True
    assert ss.get("oom_in_activations") is True


def test_the_engine_config_lines_quantization_and_a_failed_start_are_read() -> None:
    log = (
        "INFO 04-17 09:40:47 [core.py:61] Initializing a V1 LLM engine (v0.8.4) with config: "
        "model='./m.gguf', quantization=gguf, enforce_eager=False\n"
        "ERROR 04-17 09:42:13 [core.py:396] RuntimeError: Engine core initialization failed. "
        "See root cause above.\n"
    )
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": log}))
    assert ss.get("log_quantization") == "gguf"
    assert ss.get("log_startup_failed") is True
    plain = log.replace("quantization=gguf", "quantization=None").splitlines()[0] + "\n"
    ss = compute_signals(bundle("healthy").model_copy(update={"logs": plain}))
    assert ss.get("log_quantization") == "" and ss.get("log_startup_failed") is False
