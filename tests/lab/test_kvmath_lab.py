"""The locker math against a real vLLM: the lab's tiny model and the pool the server reports.

The server's ``vllm:cache_config_info`` labels (block size, blocks, reserved bytes, cache dtype)
and its start-up "KV cache size" log line are what kvdoctor reads in the field; bytes per token
× capacity from the model's config.json must agree with them.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest
from labenv import fp8_kv_or_skip, lab_python_or_skip

from kvdoctor import expfmt
from kvdoctor.kvmath import GiB, KvModel, kv_section
from kvdoctor.lab.model import model_dir
from kvdoctor.lab.server import lab_server

pytestmark = pytest.mark.lab


def _vllm_python() -> str:
    return lab_python_or_skip()


@pytest.mark.parametrize(("kv_dtype", "bytes_per_token"), [("auto", 1024), ("fp8", 512)])
def test_kv_section_agrees_with_the_real_server(kv_dtype: str, bytes_per_token: int) -> None:
    python = _vllm_python()
    extra = [] if kv_dtype == "auto" else ["--kv-cache-dtype", kv_dtype]
    if kv_dtype != "auto":
        fp8_kv_or_skip(python)
    with lab_server("healthy", vllm_python=python, extra_args=extra) as lab:
        metrics = httpx.get(f"{lab.url}/metrics", timeout=30).text
        log = lab.log_path.read_text(encoding="utf-8", errors="replace")
    info = [s for s in expfmt.parse(metrics) if s.name == "vllm:cache_config_info"]
    assert info, "the server exports vllm:cache_config_info"
    labels = dict(info[0].labels)
    config = json.loads((model_dir() / "config.json").read_text(encoding="utf-8"))

    assert KvModel.from_hf_config(config).bytes_per_token(kv_dtype) == bytes_per_token
    kv = kv_section(
        config,
        labels["cache_dtype"],
        int(labels["block_size"]),
        int(labels["num_gpu_blocks"]),
        int(labels["kv_cache_memory_bytes"]),
        None,
    )
    assert kv.bytes_per_token == bytes_per_token
    assert int(labels["kv_cache_memory_bytes"]) == GiB  # VLLM_CPU_KVCACHE_SPACE=1
    assert kv.cross_check.status == "agree", kv.cross_check
    # 1 GiB at 1,024 B/token is 1,048,576 tokens (2,097,152 with fp8); the server's own
    # start-up line says the same.
    assert kv.capacity_tokens == GiB // bytes_per_token
    m = re.search(r"KV cache size: ([\d,]+) tokens", log)
    assert m is not None, "start-up log has the KV cache size line"
    assert int(m.group(1).replace(",", "")) == GiB // bytes_per_token
