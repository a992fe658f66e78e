

def fp8_kv_or_skip(python: str) -> None:
    """Skip where the host's CPU cannot run vLLM's fp8 KV cache (no AVX-512 or AMX).

    An instruction set is not a missing environment: CI hosts differ, and a host without it
    cannot run the test at all. Everything else about the fp8 path is covered by the recorded
    fp8-kv fixture, which replays anywhere.
    """
    from kvdoctor.lab.host import fp8_kv_unsupported

    why = fp8_kv_unsupported(python)
    if why is not None:
        pytest.skip(why)
