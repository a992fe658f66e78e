"""The lab model's layout: the KV math must give 1,024 B/token, and the cache key must move."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from kvdoctor.kvmath import KvModel
from kvdoctor.lab import _genmodel, model


def test_generator_config_matches_declared_kv_layout() -> None:
    cfg = _genmodel.config()
    assert cfg["architectures"] == ["LlamaForCausalLM"]
    assert cfg["num_hidden_layers"] == model.NUM_LAYERS == 2
    assert cfg["num_key_value_heads"] == model.NUM_KV_HEADS == 2
    assert cfg["num_attention_heads"] == 4
    assert cfg["hidden_size"] == 256
    assert cfg["head_dim"] == model.HEAD_DIM == 64
    assert cfg["torch_dtype"] == "bfloat16"
    assert cfg["max_position_embeddings"] >= 8192
    assert model.BYTES_PER_TOKEN == 1024


def test_kvmath_gives_1024_bytes_per_token_for_the_lab_model() -> None:
    # The shared locker math (docs/kvmath.md) must agree with the lab's own constant.
    kv = KvModel.from_hf_config(_genmodel.config())
    assert kv.bytes_per_token("auto") == model.BYTES_PER_TOKEN


def test_tokenizer_config_has_a_chat_template_and_specials() -> None:
    tc = _genmodel.tokenizer_config()
    assert "add_generation_prompt" in tc["chat_template"]
    assert tc["eos_token"] == _genmodel.SPECIALS[_genmodel.EOS_ID - 256]
    assert _genmodel.VOCAB == _genmodel.config()["vocab_size"] == 258


def test_byte_table_is_a_bijection_over_all_bytes() -> None:
    table = _genmodel._bytes_to_unicode()
    assert sorted(table) == list(range(256))
    assert len(set(table.values())) == 256


def test_model_dir_follows_the_generator_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDOCTOR_CACHE_DIR", str(tmp_path))
    first = model.model_dir()
    assert first.parent == tmp_path
    assert first.name == f"lab-model-{model.model_hash()}"
    fake = tmp_path / "_genmodel.py"
    fake.write_text(model.GENERATOR.read_text() + "\n# changed\n")
    monkeypatch.setattr(model, "GENERATOR", fake)
    assert model.model_dir() != first


def test_ensure_model_reuses_a_complete_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KVDOCTOR_CACHE_DIR", str(tmp_path))
    target = model.model_dir()
    target.mkdir(parents=True)
    (target / ".complete").write_text("x\n")
    # No python is run at all: a nonexistent interpreter proves the cache was used.
    assert model.ensure_model("/nonexistent/python") == target


def test_ensure_model_reports_a_failing_generator_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kvdoctor.errors import KvdoctorError

    monkeypatch.setenv("KVDOCTOR_CACHE_DIR", str(tmp_path))
    with pytest.raises(KvdoctorError, match="generating the lab model failed"):
        model.ensure_model("/bin/false")
    # No half-written model or temporary directory is left behind.
    assert list(tmp_path.iterdir()) == []


def test_generator_module_imports_without_numpy() -> None:
    # kvdoctor's venv has no numpy/tokenizers: the module must still import (lazy imports).
    importlib.reload(_genmodel)
