"""``kvdoctor kv`` end to end through the console entry point (exit codes, one-line errors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from kvdoctor.cli import main
from kvdoctor.kvmath import KvResult

GiB = 1 << 30
MiB = 1 << 20


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    code = info.value.code
    assert isinstance(code, int)
    return code, out, err


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run([*argv, "--format", "json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_llama3_8b_capacity_on_80_gib(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(
        [
            "kv",
            "--model",
            "llama-3-8b",
            "--gpu-mem",
            "80GiB",
            "--gpu-memory-utilization",
            "1",
            "--weights",
            "16GiB",
            "--overhead",
            "3 GiB",
            "--context",
            "4096",
            "--context",
            "32,768",
        ],
        capsys,
    )
    assert r["bytes_per_token"] == 131_072
    assert [c["capacity_sequences"] for c in r["contexts"]] == [122, 15]
    assert r["gpu"]["kv_pool_bytes"] == 61 * GiB
    assert r["gpu"]["weights_source"] == "given"


def test_llama3_8b_batch_and_decode(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(
        ["kv", "--model", "llama-3-8b", "--context", "8192", "--batch", "32", "--weights", "16GB"],
        capsys,
    )
    c = r["contexts"][0]
    assert c["sequence_bytes"] == GiB
    assert c["batch_bytes"] == 32 * GiB
    assert c["decode_step"]["kv_bytes"] == 32 * GiB
    assert round(c["decode_step"]["kv_to_weights_ratio"]) == 2


def test_catalog_weights_used_when_not_given(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(["kv", "--model", "llama-3-8b", "--gpu-mem", "80GiB"], capsys)
    assert r["gpu"]["weights_bytes"] == 16_060_000_000
    assert r["gpu"]["weights_source"].startswith("catalog")


def test_explicit_shape_lesson_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(
        [
            "kv",
            "--layers",
            "24",
            "--kv-heads",
            "8",
            "--head-dim",
            "128",
            "--dtype",
            "float16",
            "--context",
            "8000",
            "--batch",
            "50",
        ],
        capsys,
    )
    assert r["bytes_per_token"] == 96 * 1024
    assert r["contexts"][0]["sequence_bytes"] == 750 * MiB
    assert r["contexts"][0]["batch_bytes"] == 37_500 * MiB


def test_model_config_file_tiny_lab_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = {
        "model_type": "llama",
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "hidden_size": 256,
        "vocab_size": 512,
        "torch_dtype": "bfloat16",
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    assert run_json(["kv", "--model-config", str(tmp_path)], capsys)["bytes_per_token"] == 1024
    fp8 = run_json(["kv", "--model-config", str(tmp_path), "--kv-dtype", "fp8"], capsys)
    assert fp8["bytes_per_token"] == 512 and fp8["kv_dtype"] == "fp8"
    pool = run_json(
        [
            "kv",
            "--model-config",
            str(tmp_path),
            "--gpu-mem",
            "1GiB",
            "--gpu-memory-utilization",
            "1",
            "--weights",
            "0",
        ],
        capsys,
    )
    assert pool["gpu"]["capacity_tokens"] == 1_048_576


def test_qwen_logits_for_a_prefill_chunk(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(["kv", "--model", "qwen2.5-1.5b", "--prefill-chunk", "8192"], capsys)
    assert r["bytes_per_token"] == 28_672
    assert r["bytes_per_token_unshared"] == 168 * 1024
    assert r["logits"]["bytes"] == 2_489_319_424
    assert r["logits"]["kv_bytes_same_tokens"] == 8192 * 28_672


def test_plan_json(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(
        [
            "kv",
            "--model",
            "llama-3-8b",
            "--gpu-mem",
            "80GiB",
            "--gpu-memory-utilization",
            "1",
            "--weights",
            "16GiB",
            "--overhead",
            "3GiB",
            "--context",
            "4096",
            "--users",
            "200",
        ],
        capsys,
    )
    p = r["plan"]
    assert p["fits"] is False
    assert p["fewer_users"]["max_users"] == 122
    assert p["shorter_context"]["max_context"] == 2498
    assert [q["kv_dtype"] for q in p["quantized_kv"]] == ["fp8", "nvfp4"]
    assert p["quantized_kv"][0]["fits"] is True
    budget = {row["item"]: row["bytes"] for row in r["budget"]}
    assert budget["kv_cache"] == 100 * GiB
    assert budget["headroom"] == 80 * GiB - (16 + 100 + 3) * GiB


def test_markdown_and_table_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["kv", "--model", "gemma-2-9b", "--gpu-mem", "80GiB", "--users", "10", "--format", "md"],
        capsys,
    )
    assert code == 0
    assert "| bytes per token | 336 KiB (344,064 B) |" in out
    assert "4,096-token window" in out
    code, out, _ = run(["kv", "--model", "llama-3-8b"], capsys)
    assert code == 0 and "131,072" in out


def test_json_output_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["kv", "--model", "deepseek-v3", "--gpu-mem", "141GB", "--weights", "100GiB"]
    code1, a, _ = run([*argv, "--format", "json"], capsys)
    code2, b, _ = run([*argv, "--format", "json"], capsys)
    assert code1 == code2 == 0 and a == b


def test_list_models(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["kv", "--list-models"], capsys)
    assert code == 0 and "meta-llama/Meta-Llama-3-8B" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["kv"], "exactly one of"),
        (["kv", "--model", "llama-3-8b", "--model-config", "x.json"], "exactly one of"),
        (["kv", "--model", "gpt-5"], "unknown model"),
        (["kv", "--model-config", "/nonexistent/config.json"], "cannot find model config"),
        (["kv", "--model", "llama-3-8b", "--kv-dtype", "fp3"], "unknown KV cache dtype"),
        (["kv", "--model", "llama-3-8b", "--gpu-mem", "80 parsecs"], "unknown size unit"),
        (["kv", "--model", "llama-3-8b", "--gpu-mem", "lots"], "cannot read size"),
        (["kv", "--model", "llama-3-8b", "--context", "32k"], "whole number"),
        (["kv", "--model", "llama-3-8b", "--context", "0"], "at least one token"),
        (["kv", "--model", "llama-3-8b", "--users", "5"], "--users needs --gpu-mem"),
        (
            ["kv", "--layers", "2", "--kv-heads", "2", "--head-dim", "64", "--gpu-mem", "1GiB"],
            "--weights",
        ),
        (["kv", "--layers", "2"], "--kv-heads"),
        (
            [
                "kv",
                "--layers",
                "2",
                "--kv-heads",
                "3",
                "--head-dim",
                "64",
                "--attention-heads",
                "4",
            ],
            "multiple",
        ),
        (["kv", "--model", "llama-3-8b", "--gpu-memory-utilization", "1.5"], "in (0, 1]"),
        (["kv", "--model", "llama-3-8b", "--kv-dtype", "fp8_ds_mla"], "MLA models only"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out == ""


def test_tensor_parallel_numbers_are_per_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(
        [
            "kv",
            "--model",
            "llama-3-70b",
            "--tp",
            "4",
            "--gpu-mem",
            "80GiB",
            "--gpu-memory-utilization",
            "1",
            "--weights",
            "140GB",
            "--context",
            "8192",
        ],
        capsys,
    )
    assert r["tensor_parallel"] == 4
    assert r["bytes_per_token"] == 80 * 1024
    assert r["gpu"]["weights_bytes"] == 35 * 10**9
    assert r["gpu"]["kv_pool_bytes"] == 80 * GiB - 35 * 10**9


def test_defaults_follow_vllm_and_flag_what_vllm_would_refuse(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # vLLM reserves 90 % of the card by default; a context past max_position_embeddings (8,192
    # for Llama 3 8B) is flagged; logits: vLLM's sampled positions beside the naive prefill.
    r = run_json(
        [
            "kv",
            "--model",
            "llama-3-8b",
            "--gpu-mem",
            "80GiB",
            "--context",
            "20000",
            "--batch",
            "4",
        ],
        capsys,
    )
    assert r["gpu"]["gpu_memory_utilization"] == 0.9
    assert r["gpu"]["usable_bytes"] == 80 * 2**30 * 9 // 10
    assert r["max_position_embeddings"] == 8192
    assert r["contexts"][0]["above_max_position_embeddings"] is True
    assert any("max_position_embeddings" in n for n in r["notes"])
    lg = r["logits"]
    assert lg["vllm_bytes"] == 4 * 128256 * 4  # 4 sampled positions × vocab × float32
    assert lg["bytes"] == 20000 * 128256 * 2  # every prompt position × vocab × bf16
    overhead = next(b for b in r["budget"] if b["item"] == "workspace_overhead")
    assert "estimate" in overhead["note"]


@pytest.mark.parametrize(
    "argv",
    [
        "kv --model llama-3-8b",
        # MLA and a plan that does not fit.
        "kv --model deepseek-v2-lite --gpu-mem 80GiB --users 64",
        # Windowed layers (a plan not bound by KV, bytes past the window), fp8.
        "kv --model mistral-7b-v0.1 --context 65536 --gpu-mem 24GiB --users 4 --kv-dtype fp8",
        # Logits in the budget, tensor parallel, a context above max_position_embeddings.
        "kv --model llama-3-70b --tp 4 --gpu-mem 80GiB --weights 140GB --prefill-chunk 2048 "
        "--context 10000 --users 8",
        # No vocabulary, no weights: logits, gpu, budget and plan all null.
        "kv --layers 2 --kv-heads 2 --head-dim 64",
    ],
)
def test_json_validates_against_the_model_and_round_trips(
    argv: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*argv.split(), "--format", "json"], capsys)
    assert code == 0, err
    result = KvResult.model_validate_json(out)
    assert KvResult.model_validate(json.loads(out)) == result
    # Written again, the model gives the same bytes: key order and nulls included.
    assert json.dumps(result.to_json_dict(), indent=2) + "\n" == out
    assert list(json.loads(out))[:2] == ["schema", "bytes_per_token"]


def test_kv_result_model_forbids_unknown_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(["kv", "--model", "llama-3-8b", "--gpu-mem", "80GiB", "--users", "10"], capsys)
    KvResult.model_validate(data)
    with pytest.raises(ValidationError):
        KvResult.model_validate({**data, "surprise": 1})
    with pytest.raises(ValidationError):
        KvResult.model_validate({**data, "plan": {**data["plan"], "surprise": 1}})
    with pytest.raises(ValidationError):
        KvResult.model_validate({**data, "schema": "kvdoctor.kv/2"})
