"""What a prompt sample shows about sharing (kvdoctor.promptshare): pure logic, no server."""

from __future__ import annotations

import json
import random

import pytest

from kvdoctor.errors import KvdoctorError
from kvdoctor.promptshare import (
    PromptSample,
    RawPrompt,
    adapters_in_log,
    analyse,
    read_prompts_file,
    requests_from_log,
    sharing,
)

SYSTEM = " ".join(f"rule {k}: answer briefly, cite the manual, never guess." for k in range(40))


def _texts(texts: list[str], **kw: str) -> list[RawPrompt]:
    return [RawPrompt(text=t, token_ids=None, **kw) for t in texts]


def _random_words(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return " ".join(f"w{rng.randint(0, 10**6)}" for _ in range(n))


def test_a_timestamp_first_is_drift_and_says_what_differs() -> None:
    prompts = _texts([f"Now: 2026-12-02T06:{i:02d}:13Z. {SYSTEM} question {i}" for i in range(10)])
    share = sharing(analyse(prompts, "prompts-file"), 16)
    assert share is not None
    assert share.pattern == "drift"
    assert share.difference == "timestamp"
    assert share.shared_prefix_tokens < 16
    assert share.shared_after_difference_tokens >= 16 * 10
    assert share.first_difference_in_block == int(share.shared_prefix_tokens) % 16


def test_traffic_that_shares_nothing_is_unshared() -> None:
    share = sharing(analyse(_texts([_random_words(i, 300) for i in range(10)]), "prompts-file"), 16)
    assert share is not None and share.pattern == "unshared"
    assert share.blocks_shared == 0


def test_a_short_system_prompt_before_unique_text_is_sub_block_at_a_large_block() -> None:
    head = (
        "You are a careful assistant for the ACME support desk. Answer in English, briefly "
        "and correctly, cite the manual section, and never guess at prices or dates. "
    )
    prompts = _texts([head + _random_words(i, 400) for i in range(10)])
    sample = analyse(prompts, "prompts-file")
    assert sharing(sample, 128).pattern == "sub-block"  # type: ignore[union-attr]
    # The same prefix fills whole 16-token blocks: the cache can reuse it there.
    assert sharing(sample, 16).pattern == "shared"  # type: ignore[union-attr]


def test_a_short_prompt_sent_again_whole_is_sub_block_not_unshared() -> None:
    # Shorter than MIN_SHARED_TOKENS, but the whole prompt repeats: the cache could reuse it
    # with a block that small, so it is shared traffic that one block cannot hold.
    sample = analyse(_texts(["Tell me a joke"] * 20), "prompts-file")
    assert sample.prompts[1].shared_prefix == sample.prompts[1].tokens < 16
    share = sharing(sample, 128)
    assert share is not None and share.pattern == "sub-block"
    # Short prompts that differ share only their first words: still nothing.
    other = analyse(_texts([f"Tell me {_random_words(i, 3)}" for i in range(20)]), "prompts-file")
    assert sharing(other, 128).pattern == "unshared"  # type: ignore[union-attr]


def test_identical_text_under_a_salt_per_user_is_an_identity_split() -> None:
    prompts = [
        RawPrompt(text=f"{SYSTEM} question {i}", token_ids=None, salt=f"user-{i}")
        for i in range(10)
    ]
    sample = analyse(prompts, "prompts-file")
    share = sharing(sample, 16)
    assert share is not None and share.pattern == "identity-split"
    assert share.identities == 10 and sample.salts == 10


def test_tenants_with_their_own_adapter_still_share_within_a_tenant() -> None:
    prompts = [
        RawPrompt(text=f"{SYSTEM} q{i}", token_ids=None, adapter=f"tenant{i % 2}")
        for i in range(12)
    ]
    share = sharing(analyse(prompts, "prompts-file"), 16)
    assert share is not None and share.pattern == "shared"


def test_a_minority_repeating_text_under_another_adapter_is_counted_as_split() -> None:
    # A base-model warm-up, then the same prompt under a LoRA adapter (external case
    # n-lora): most prompts share within their identity, one request in three only across.
    ids = list(range(2000, 4048))
    prompts = [
        RawPrompt(text=None, token_ids=ids),
        RawPrompt(text=None, token_ids=ids),
        RawPrompt(text=None, token_ids=ids),
        RawPrompt(text=None, token_ids=ids, adapter="r16"),
    ]
    share = sharing(analyse(prompts, "prompts-file"), 16)
    assert share is not None and share.pattern == "shared"
    assert share.identity_split_fraction == pytest.approx(1 / 3, abs=1e-3)
    # Under one identity nothing is split.
    same = sharing(analyse(prompts[:3], "prompts-file"), 16)
    assert same is not None and same.identity_split_fraction == 0.0


def test_one_turn_that_drifts_in_a_shared_conversation_is_counted_as_drift() -> None:
    # A conversation whose turns extend each other, one turn with a changed first line
    # (external case zyx-glm53: "Reasoning Effort: High" for "Max"): most prompts share, the
    # drifted turn's shared tokens after the difference are counted apart.
    head, body = [1, 2, 3, 4, 5, 6, 7, 8], list(range(100, 1700))
    turns = [[*head, *body[: 400 + 200 * k]] for k in range(6)]
    drifted = [*head[:3], 99, *head[4:], *body[:1600]]
    prompts = [RawPrompt(text=None, token_ids=t) for t in [*turns, drifted]]
    share = sharing(analyse(prompts, "prompts-file"), 16)
    assert share is not None and share.pattern == "shared"
    assert share.drift_prompts == 1
    assert share.drift_at_tokens == 3
    # Shared after the difference with the longest earlier turn: 4 head tokens + 1,400.
    assert share.drift_shared_after_tokens == 1404
    later = sum(len(t) for t in [*turns[1:], drifted])
    assert share.drift_fraction == pytest.approx((1404 // 16) * 16 / later, abs=1e-3)
    # Without the drifted turn nothing drifts.
    clean = sharing(analyse(prompts[:-1], "prompts-file"), 16)
    assert clean is not None and clean.drift_fraction == 0.0 and clean.drift_at_tokens is None


def test_given_token_ids_are_used_as_they_are() -> None:
    base = list(range(1000, 1100))
    prompts = [RawPrompt(text=None, token_ids=[7000 + i, *base]) for i in range(6)]
    sample = analyse(prompts, "prompts-file")
    assert sample.tokenizer == "given"
    share = sharing(sample, 16)
    assert share is not None and share.pattern == "drift"
    assert share.shared_prefix_tokens == 0
    assert share.difference is None  # no text: what differs cannot be named


def test_a_server_tokenizer_is_preferred_and_reported() -> None:
    calls: list[str] = []

    def tokenize(text: str) -> list[int]:
        calls.append(text)
        return [ord(c) for c in text]

    sample = analyse(_texts([SYSTEM + " a", SYSTEM + " b"]), "prompts-file", tokenize)
    assert sample.tokenizer == "server" and len(calls) == 2
    assert sample.prompts[1].shared_prefix == len(SYSTEM) + 1


def test_the_stored_sample_holds_no_text_and_round_trips() -> None:
    secret = "ACME-INTERNAL-SECRET-42"
    sample = analyse(_texts([f"{secret} {SYSTEM} {i}" for i in range(4)]), "prompts-file")
    text = sample.to_json()
    assert secret not in text and "rule 3" not in text
    assert PromptSample.model_validate(json.loads(text)) == sample


def test_prompts_file_forms_and_errors() -> None:
    data = "\n".join(
        [
            json.dumps({"prompt": "hello", "cache_salt": "t1"}),
            json.dumps(
                {
                    "messages": [
                        {"role": "system", "content": "s"},
                        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                    ],
                    "lora": "sql",
                }
            ),
            json.dumps({"prompt_token_ids": [1, 2, 3]}),
            "",
        ]
    ).encode()
    got = read_prompts_file(data)
    assert [p.salt for p in got] == ["t1", None, None]
    assert got[1].adapter == "sql" and "hi" in (got[1].text or "")
    assert got[2].token_ids == [1, 2, 3]
    for bad, why in [
        (b"not json\n", "not JSON"),
        (b"[1]\n", "not a JSON object"),
        (b'{"model": "m"}\n', "needs prompt"),
        (b'{"prompt_token_ids": ["a"]}\n', "list of integers"),
        (b"\n\n", "no prompt"),
        (b"\xff\xfe", "UTF-8"),
    ]:
        with pytest.raises(KvdoctorError, match=why):
            read_prompts_file(bad)


def test_request_log_lines_of_both_vllm_formats() -> None:
    log = "\n".join(
        [
            # vLLM <= 0.10: one INFO line with the prompt and its ids.
            "INFO 05-01 12:00:00 [logger.py:43] Received request cmpl-a: prompt: 'It''s 09:01. "
            "Hello', params: SamplingParams(n=1), prompt_token_ids: [1, 5, 9, 2], "
            "lora_request: None.",
            # vLLM >= 0.11: the adapter at INFO, the ids at DEBUG, the body with the salt.
            "INFO 05-01 12:00:01 [request_logger.py:66] Received request cmpl-b: params: "
            "SamplingParams(n=1), lora_request: LoRARequest(lora_name='sql', lora_int_id=1).",
            "DEBUG 05-01 12:00:01 [request_logger.py:50] Request cmpl-b details: prompt: "
            "'Hello there', prompt_token_ids: [1, 5, 7], prompt_embeds shape: None.",
            "DEBUG 05-01 12:00:01 [request_logger.py:80] Request cmpl-b JSON body: "
            '{"prompt": "Hello there", "cache_salt": "tenant-9"}',
            "INFO 05-01 12:00:02 [request_logger.py:66] Received request cmpl-c: params: "
            "SamplingParams(n=1), lora_request: None.",
        ]
    )
    raw, logged = requests_from_log(log)
    assert logged == 3
    assert [r.token_ids for r in raw] == [[1, 5, 9, 2], [1, 5, 7]]
    assert raw[1].adapter == "sql" and raw[1].salt == "tenant-9"
    assert adapters_in_log(log) == (3, 2)


def test_one_prompt_decides_nothing() -> None:
    assert sharing(analyse(_texts(["only one"]), "prompts-file"), 16) is None
