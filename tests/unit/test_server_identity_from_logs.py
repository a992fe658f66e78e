"""A server that never answered /version (it failed to start, or only its log was handed over)
is still named: the version vLLM printed at start-up and the model it was started with."""

from __future__ import annotations

from _bundle_factory import bundle

from kvdoctor.bundle.model import EngineArgs
from kvdoctor.signals.compute import compute_signals

V1_BANNER = "(APIServer pid=1) INFO 07-20 13:05:11 [utils.py:299] vLLM API server version 0.25.1\n"
V0_ENGINE = (
    "INFO 09-13 10:00:00 llm_engine.py:232] Initializing an LLM engine (v0.6.1.post2) with "
    "config: model='Qwen2-7B-Instruct'\n"
)


def test_version_and_model_come_from_the_log_and_argv_without_server_json() -> None:
    b = bundle("healthy").model_copy(
        update={
            "server": None,
            "logs": V1_BANNER,
            "engine_args": EngineArgs(argv=["vllm", "serve", "org/m"], args={"model": "org/m"}),
        }
    )
    ss = compute_signals(b)
    assert ss.get("vllm_version") == "0.25.1"
    assert ss.get("served_model") == "org/m"
    v0 = compute_signals(b.model_copy(update={"logs": V0_ENGINE}))
    assert v0.get("vllm_version") == "0.6.1.post2"


def test_server_json_wins_over_the_log() -> None:
    b = bundle("healthy").model_copy(update={"logs": V1_BANNER})
    assert b.server is not None
    assert compute_signals(b).get("vllm_version") != "0.25.1"


def test_tensor_parallel_size_comes_from_the_flag_else_the_log() -> None:
    line = (
        "(EngineCore_DP0 pid=9) INFO 07-20 13:05:20 [core.py:77] Initializing a V1 LLM engine "
        "(v0.25.1) with config: model='org/m', tensor_parallel_size=4, pipeline_parallel_size=1\n"
    )
    args_dict = (
        "(APIServer pid=1) INFO 07-20 13:05:11 [utils.py:233] non-default args: "
        "{'model': 'org/m', 'tensor_parallel_size': 8}\n"
    )
    b = bundle("healthy").model_copy(
        update={
            "logs": line,
            "engine_args": EngineArgs(argv=None, args={"model": "org/m"}),
        }
    )
    assert compute_signals(b).get("tensor_parallel_size") == 4
    assert (
        compute_signals(b.model_copy(update={"logs": args_dict})).get("tensor_parallel_size") == 8
    )
    flagged = b.model_copy(
        update={"engine_args": EngineArgs(argv=None, args={"tensor-parallel-size": 2})}
    )
    assert compute_signals(flagged).get("tensor_parallel_size") == 2


def test_enforce_eager_comes_from_the_flag_else_the_log_else_a_full_command_line() -> None:
    line = (
        "INFO 05-12 09:00:02 [core.py:58] Initializing a V1 LLM engine (v0.8.5) with config: "
        "model='org/m', enforce_eager=True, kv_cache_dtype=auto\n"
    )
    b = bundle("healthy").model_copy(
        update={"logs": line, "engine_args": EngineArgs(argv=None, args={"model": "org/m"})}
    )
    assert compute_signals(b).get("enforce_eager") is True
    off = b.model_copy(update={"logs": line.replace("enforce_eager=True", "enforce_eager=False")})
    assert compute_signals(off).get("enforce_eager") is False
    flagged = b.model_copy(
        update={"logs": "", "engine_args": EngineArgs(argv=None, args={"enforce-eager": True})}
    )
    assert compute_signals(flagged).get("enforce_eager") is True
    # A recorded command line without the flag captures graphs (vLLM's default).
    argv = b.model_copy(
        update={"logs": "", "engine_args": EngineArgs(argv=["vllm", "serve", "org/m"], args={})}
    )
    assert compute_signals(argv).get("enforce_eager") is False
    # Neither flags nor a log line: not known.
    unknown = b.model_copy(update={"logs": "", "engine_args": None})
    assert compute_signals(unknown).get("enforce_eager") is None
