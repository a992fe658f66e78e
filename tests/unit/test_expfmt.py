"""The focused exposition parser, checked against prometheus_client on real vLLM payloads."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from kvdoctor.errors import KvdoctorError
from kvdoctor.expfmt import ExpositionError, parse

DATA = Path(__file__).resolve().parents[1] / "data" / "vllm-0.32"
PAYLOADS = sorted(DATA.glob("metrics-*.txt"))


def _reference(text: str) -> list[tuple[str, tuple[tuple[str, str], ...], float]]:
    out = []
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.append((s.name, tuple(sorted(s.labels.items())), s.value))
    return out


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def test_real_payloads_exist() -> None:
    assert PAYLOADS, "tests/data/vllm-0.32 holds no metrics-*.txt capture"


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: p.name)
def test_matches_prometheus_client_on_real_payload(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    ref = _reference(text)
    mine = [(s.name, s.labels, s.value) for s in parse(text)]
    assert len(mine) == len(ref) > 100
    for (n1, l1, v1), (n2, l2, v2) in zip(mine, ref, strict=True):
        assert (n1, l1) == (n2, l2)
        assert _same(v1, v2)


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: p.name)
def test_prefix_filter_keeps_exactly_the_vllm_samples(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    full = [s for s in parse(text) if s.name.startswith(("vllm:", "ray_vllm:"))]
    assert parse(text, ("vllm:", "ray_vllm:")) == full
    assert any(s.name == "vllm:kv_cache_usage_perc" for s in full)


def test_escapes_spaces_braces_and_commas_in_label_values() -> None:
    text = (
        'm{a="x y",b="q\\"uote",c="back\\\\slash",d="new\\nline",e="br}ace, comma"} 3\n'
        "plain 4.5\n"
        'trailing_comma{a="1",} 5\n'
    )
    ref = _reference(text)
    mine = [(s.name, s.labels, s.value) for s in parse(text)]
    assert mine == ref
    assert parse(text)[0].label("b") == 'q"uote'
    assert parse(text)[0].label("d") == "new\nline"


def test_timestamps_are_accepted_and_dropped() -> None:
    samples = parse('a{x="1"} 2.5 1700000000000\nb 7 1700000000000\n')
    assert [(s.name, s.value) for s in samples] == [("a", 2.5), ("b", 7.0)]


def test_nan_and_infinities_are_values() -> None:
    samples = parse("a NaN\nb +Inf\nc -Inf\nd 1e-3\n")
    assert math.isnan(samples[0].value)
    assert samples[1].value == math.inf
    assert samples[2].value == -math.inf
    assert samples[3].value == 0.001


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('vllm:x{engine="0" 1\n', "line 1"),
        ("vllm:x{engine=0} 1\n", "malformed labels"),
        ("9bad 1\n", "invalid metric name"),
        ("vllm:x one\n", "invalid sample value"),
        ("vllm:x 1_000\n", "invalid sample value"),
        ("ok 1\nvllm:x\n", "line 2"),
        ("\x00\x01garbage here\n", "line 1"),
    ],
)
def test_garbage_is_refused_with_a_one_line_message(text: str, fragment: str) -> None:
    with pytest.raises(ExpositionError) as err:
        parse(text)
    assert fragment in str(err.value)
    assert "\n" not in str(err.value)
    assert isinstance(err.value, KvdoctorError)


def test_html_page_is_named_as_such() -> None:
    with pytest.raises(ExpositionError, match="HTML"):
        parse("<!DOCTYPE html>\n<html><body>Sign in</body></html>\n")


def test_truncated_payload_is_refused() -> None:
    text = (DATA / "metrics-idle.txt").read_text(encoding="utf-8")
    cut = text[: len(text) // 2]
    assert not cut.endswith("\n")
    with pytest.raises(ExpositionError, match="truncated"):
        parse(cut)


def test_empty_text_is_no_samples() -> None:
    assert parse("") == []
    assert parse("# HELP only comments\n# TYPE x gauge\n\n") == []


# Lines parse_values must leave to the line-by-line loop, each after a line it reads at once.
UNCOMMON_LINES = (
    'vllm:x{engine="0"} 1 1700000000000\n',  # a timestamp
    'vllm:x{engine="0"}  2\n',  # two blanks before the value
    'vllm:x{engine="0"} 1_000\n',  # a value float() takes and the format does not
    'vllm:x{engine="0"} one\n',
    'vllm:x{engine="0"}\t3\n',
    'vllm:new{engine="0"} 4\n',  # a key not seen yet
    "vllm:x{engine=0} 1\n",
    'vllm:x{engine="0"} \n',
    'vllm:x{engine="0"} 5\r\n',
    "vllm:x\n",
    'ray_vllm:x{engine="0"} 6\n',
)


def _outcome(fn: object, text: str) -> object:
    try:
        return [tuple(s) for s in fn(text, ("vllm:", "ray_vllm:"))]  # type: ignore[operator]
    except ExpositionError as exc:
        return str(exc)


@pytest.mark.parametrize("line", UNCOMMON_LINES)
def test_parse_values_is_parse(line: str) -> None:
    from kvdoctor import expfmt

    common = '# TYPE vllm:x gauge\nvllm:x{engine="0"} 0.5\npython_info{x="y"} 1\n'
    expfmt._KEY_CACHE.clear()
    for text in (common, common + line, line + common, common):
        assert _outcome(expfmt.parse_values, text) == _outcome(parse, text)


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: p.name)
def test_parse_values_is_parse_on_real_payloads(path: Path) -> None:
    from kvdoctor import expfmt

    text = path.read_text(encoding="utf-8")
    expfmt._KEY_CACHE.clear()
    cold = expfmt.parse_values(text, ("vllm:",))
    warm = expfmt.parse_values(text, ("vllm:",))  # every key cached: read at once
    assert cold == warm == [tuple(s) for s in parse(text, ("vllm:",))]
    assert len(warm) > 100
