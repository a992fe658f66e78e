"""Log-text helpers in vLLM's own line formats (see case.yaml `assumed` for line numbers)."""

from __future__ import annotations

from engine import ts


def v1_prefix(proc: str, pid: int) -> str:
    return f"({proc} pid={pid})"


def join(lines: list[tuple[float, str]]) -> str:
    return "\n".join(l for _, l in sorted(lines, key=lambda x: x[0])) + "\n"


def access_lines(sim, api_pid: int, path: str, client: str = "10.0.3.17", v0: bool = False) -> list[tuple[float, str]]:
    out = []
    port = 40000
    for r in sim.reqs:
        port = 40000 + (port - 39999) % 20000
        pre = "" if v0 else f"(APIServer pid={api_pid}) "
        out.append((r.t_arrive + 0.002, f'{pre}INFO:     {client}:{port} - "POST {path} HTTP/1.1" 200 OK'))
    return out


def sampling_params_repr(version: str, *, temperature: float, top_p: float, top_k: int, max_tokens: int, stop_token_ids: list[int] | None = None, repetition_penalty: float = 1.0) -> str:
    """SamplingParams.__repr__ of the release (vllm/sampling_params.py)."""
    sti = stop_token_ids or []
    if version.startswith("0.6"):
        return (
            f"SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty={repetition_penalty}, "
            f"temperature={temperature}, top_p={top_p}, top_k={top_k}, min_p=0.0, seed=None, stop=[], stop_token_ids={sti}, "
            f"bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens={max_tokens}, min_tokens=0, "
            f"logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, "
            f"truncate_prompt_tokens=None, guided_decoding=None)"
        )
    return (
        f"SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty={repetition_penalty}, "
        f"temperature={temperature}, top_p={top_p}, top_k={top_k}, min_p=0.0, seed=None, stop=[], stop_token_ids={sti}, "
        f"bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens={max_tokens}, min_tokens=0, "
        f"logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, "
        f"truncate_prompt_tokens=None, structured_outputs=None, extra_args=None)"
    )


def lora_repr(name: str, int_id: int, path: str, base: str) -> str:
    """LoRARequest (msgspec.Struct) repr of the 0.11 line."""
    return (
        f"LoRARequest(lora_name='{name}', lora_int_id={int_id}, lora_path='{path}', lora_local_path=None, "
        f"long_lora_max_len=None, base_model_name='{base}', tensorizer_config_dict=None)"
    )


def http_started(t: float, api_pid: int, port: int = 8000, v0: bool = False) -> list[tuple[float, str]]:
    pre = "" if v0 else f"(APIServer pid={api_pid}) "
    return [
        (t, f"{pre}INFO:     Started server process [{api_pid}]"),
        (t, f"{pre}INFO:     Waiting for application startup."),
        (t, f"{pre}INFO:     Application startup complete."),
    ]
