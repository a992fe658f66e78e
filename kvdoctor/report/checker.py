"""A consistency checker for rendered reports: the errors an on-call reader would catch.

Every report the tests render (golden fixtures, property-generated bundles) goes through
:func:`check_report`. It reads the Markdown as a reader does, not the template: a sentence or a
table row that states something false is an error wherever its words came from (template,
playbook, experiment record). Kinds of problem, each with a test that shows it caught:

``verdict-exit``        the verdict line disagrees with the report or with the exit code
                        (healthy if and only if exit code 0, docs/report.md)
``false-comparison``    an evidence row whose value contradicts its expectation ("2 | above the 2
                        sequences the pool holds"), or a share above 100 % ("explain 500 % of")
``suspect-confirmed``   "a suspect until a canary ..." said of a finding its experiment confirmed
``duplicate-row``       the same table row twice
``raw-json``            JSON text in a table cell
``repeated-words``      "fp8 (fp8)", "512 B (512 B)", "the the"
``empty-row``           a table row whose values are all "—"
``jargon``              "the locker" used before (or without) being defined as the KV cache
``percentile-order``    p50 ≤ p95 ≤ p99 broken
``percentile-mean``     a percentile the window mean rules out (Markov: p_q ≤ mean / (1 − q))
``part-above-ttft``     prefill (or queue) time shown above the time to first token
``mixed-units``         a fraction next to a percent in one row; "1,200 ms" or "0.5 s"
``too-long``            more than ``max_visible`` lines above the fold
``note-severity``       a note (report/1.2) that is not an unrefuted info item: a note never
                        carries harm, so a warning or a refuted cause there hides a finding
``claim-card-full``     "GPU memory is full" (any "memory is full") without what shows it: an
                        out-of-memory line, vLLM finding no memory for the pool, or NVML at
                        ``CARD_FULL`` of the card
``claim-oom``           "out of memory" / "OOM" said as a fact (not negated) with no
                        out-of-memory line (or no-cache-memory refusal) in the log
``claim-gpu-on-cpu``    a GPU or CUDA named on a server whose bundle says it is the CPU build
                        (signal ``platform``), outside the not-checked table and code spans
``healthy-row``         a healthy verdict whose "why this reads as healthy" row says a
                        condition its own number does not meet
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from kvdoctor.report.exitcode import exit_code_for as exit_code_for
from kvdoctor.report.model import Report
from kvdoctor.thresholds import CARD_FULL
from kvdoctor.vocab import ACTIVE_STATUSES

MAX_VISIBLE_LINES = 60
_FIRING = ACTIVE_STATUSES


@dataclass(frozen=True)
class Problem:
    kind: str
    line: int  # 1-based line of the Markdown, 0 for the report as a whole
    detail: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{self.kind}: {where}{self.detail}"


# --------------------------------------------------------------------------- reading Markdown


def visible_lines(markdown: str) -> int:
    """Lines a reader sees before unfolding: outside ``<details>``, plus one per summary."""
    count = 0
    depth = 0
    for line in markdown.splitlines():
        opens = line.count("<details>")
        closes = line.count("</details>")
        if depth == 0 and (opens or not closes):
            count += 1 if opens == 0 or "<summary>" in line else 0
        depth = max(0, depth + opens - closes)
    return count


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


@dataclass
class _Table:
    start: int
    header: list[str]
    rows: list[tuple[int, list[str]]]


def _tables(lines: Sequence[str]) -> Iterator[_Table]:
    i = 0
    while i < len(lines):
        if (
            lines[i].startswith("|")
            and i + 1 < len(lines)
            and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1].strip())
        ):
            table = _Table(i + 1, _cells(lines[i]), [])
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                table.rows.append((i + 1, _cells(lines[i])))
                i += 1
            yield table
        else:
            i += 1


_UNIT_S = {"ms": 1e-3, "s": 1.0, "µs": 1e-6}
_NUMBER = r"\d[\d,]*(?:\.\d+)?"


def _to_float(text: str) -> float:
    return float(text.replace(",", ""))


@dataclass(frozen=True)
class _Range:
    lo: float
    hi: float


def _duration(cell: str) -> _Range | None:
    """A duration cell as the range it claims: "12 ms", "≤ 300 ms, ...", "between 2 and 5 s"."""
    text = cell.strip()
    m = re.fullmatch(rf"between ({_NUMBER}) ?(ms|s|µs)? and ({_NUMBER}) (ms|s|µs)", text)
    if m:
        hi_unit = _UNIT_S[m.group(4)]
        lo_unit = _UNIT_S[m.group(2)] if m.group(2) else hi_unit
        return _Range(_to_float(m.group(1)) * lo_unit, _to_float(m.group(3)) * hi_unit)
    m = re.match(rf"≤ ({_NUMBER}) (ms|s|µs)\b", text)
    if m:
        return _Range(0.0, _to_float(m.group(1)) * _UNIT_S[m.group(2)])
    m = re.match(rf"> ({_NUMBER}) (ms|s|µs)\b", text)
    if m:
        return _Range(_to_float(m.group(1)) * _UNIT_S[m.group(2)], float("inf"))
    m = re.fullmatch(rf"({_NUMBER}) (ms|s|µs)", text)
    if m:
        v = _to_float(m.group(1)) * _UNIT_S[m.group(2)]
        return _Range(v, v)
    return None


def _plain_number(cell: str) -> tuple[float, str] | None:
    """A cell that is one number with an optional unit: "7", "100 %", "2.06×", "45"."""
    m = re.fullmatch(rf"(-?{_NUMBER}) ?(%|×|ms|s|/s|B|KiB|MiB|GiB)?", cell.strip())
    if m is None:
        return None
    return _to_float(m.group(1)), m.group(2) or ""


# --------------------------------------------------------------------------- the checks


_VERDICT = re.compile(r"\*\*Verdict: (?P<v>[a-z]+)\.\*\*")
_COMPARATOR = re.compile(
    rf"^(?P<op>≥|≤|>|<|above|below|at least|at most|under|over)\s*"
    rf"(?P<words>[^\d:;,]{{0,30}}?)(?P<n>-?{_NUMBER})\s*(?P<u>%|×|ms|s\b)?"
)
_SHARE = re.compile(rf"\bexplains? (?P<n>{_NUMBER}) ?% of\b")
_SUSPECT = re.compile(r"suspect(?:ed)? until (?:a|the) (?:canary|experiment|reproducer)", re.I)
_REPEATED_PAREN = re.compile(r"(?<!\S)(?P<w>[^\s()|][^()|]{0,40}?) \((?P=w)\)")
_DOUBLED_WORD = re.compile(r"\b(?P<w>[A-Za-z]{2,}) (?P=w)\b", re.I)
_RAW_JSON = re.compile(r"\[\{|\{\"|\[\"")
_LOCKER = re.compile(r"\blocker\b", re.I)
_LOCKER_DEFINED = re.compile(
    r"locker\W{0,3}\s*\((?:the )?KV cache|KV cache\W{0,3}\s*\((?:the )?[\"“]?locker", re.I
)
_BIG_MS = re.compile(rf"(?<![\d.,])(?P<n>{_NUMBER}) ms\b")
_SMALL_S = re.compile(r"(?<![\d.,/])(?P<n>0\.\d+) s\b")


def _holds(op: str, value: float, bound: float) -> bool:
    if op in ("≥", "at least"):
        return value >= bound
    if op in ("≤", "at most"):
        return value <= bound
    if op in (">", "above", "over"):
        return value > bound
    return value < bound  # "<", "below", "under"


def _check_verdict(lines: Sequence[str], report: Report, exit_code: int | None) -> list[Problem]:
    problems: list[Problem] = []
    found = [(i + 1, m.group("v")) for i, ln in enumerate(lines) if (m := _VERDICT.search(ln))]
    if not found:
        return [Problem("verdict-exit", 0, "no **Verdict: ...** line")]
    line, shown = found[0]
    if shown != report.verdict:
        problems.append(
            Problem("verdict-exit", line, f"says {shown}, the report is {report.verdict}")
        )
    for note in report.notes:
        if note.severity != "info" or note.status not in _FIRING:
            problems.append(
                Problem(
                    "note-severity",
                    0,
                    f"note {note.symptom}/{note.cause} is {note.status} {note.severity}",
                )
            )
    if exit_code is not None and (report.verdict == "healthy") != (exit_code == 0):
        problems.append(
            Problem(
                "verdict-exit",
                line,
                f"verdict {report.verdict} with exit code {exit_code} (healthy iff 0)",
            )
        )
    return problems


def stated_comparison(value_cell: str, expected: str) -> tuple[bool, bool] | None:
    """Whether an evidence row's value meets the condition its expectation states.

    Returns ``(holds, mixed_units)``, or None when the row states no checkable condition. Only
    an expectation that states the condition the finding saw can be checked: "≥ 0.90: the pool
    fills up", "above the 3 sequences the pool holds". A norm the finding says was broken
    ("> 128 tokens for any block to be cacheable") is false by design and is not judged.
    """
    value = _plain_number(value_cell)
    m = _COMPARATOR.match(expected)
    if value is None or m is None:
        return None
    rest = expected[m.end() :].lstrip()
    stated = rest.startswith(":") or (
        m.group("op") in ("above", "below") and m.group("words") == "the "
    )
    if not stated:
        return None
    number, unit = value
    bound = _to_float(m.group("n"))
    bound_unit = m.group("u") or ""
    mixed = False
    if unit == "%" and bound_unit != "%":
        if not (bound <= 1 and "." in m.group("n")):
            return None
        mixed = True
        bound *= 100
    elif unit in _UNIT_S and bound_unit in _UNIT_S:
        number, bound = number * _UNIT_S[unit], bound * _UNIT_S[bound_unit]
    elif bound_unit and bound_unit != unit:
        return None
    return _holds(m.group("op"), number, bound), mixed


def _check_evidence_row(line_no: int, cells: Sequence[str]) -> list[Problem]:
    if len(cells) != 3:
        return []
    judged = stated_comparison(cells[1], cells[2])
    if judged is None:
        return []
    holds, mixed = judged
    problems: list[Problem] = []
    if mixed:
        problems.append(Problem("mixed-units", line_no, f"{cells[1]} next to {cells[2]}"))
    if not holds:
        problems.append(Problem("false-comparison", line_no, f"{cells[0]} {cells[1]}: {cells[2]}"))
    return problems


def _check_tables(lines: Sequence[str]) -> list[Problem]:
    problems: list[Problem] = []
    for table in _tables(lines):
        seen: dict[tuple[str, ...], int] = {}
        evidence = [h.lower() for h in table.header[1:3]] == ["value", "expected"]
        # The engine-arguments table quotes the command line as given: a JSON-valued flag
        # (--kv-transfer-config) is the operator's text, not a structure the report dumped.
        quotes_argv = [h.lower() for h in table.header] == ["flag", "value"]
        for line_no, cells in table.rows:
            key = tuple(cells)
            if key in seen:
                problems.append(Problem("duplicate-row", line_no, f"same row as line {seen[key]}"))
            else:
                seen[key] = line_no
            for cell in cells if not quotes_argv else ():
                if _RAW_JSON.search(cell):
                    problems.append(Problem("raw-json", line_no, cell[:80]))
            labelled = [c for c in cells if c]
            values = labelled[1:]
            if values and all(c == "—" for c in values):
                problems.append(Problem("empty-row", line_no, " | ".join(cells)))
            if evidence:
                problems.extend(_check_evidence_row(line_no, cells))
    return problems


def _check_text(lines: Sequence[str], report: Report) -> list[Problem]:
    problems: list[Problem] = []
    confirmed_titles = [
        f.title
        for f in [*report.findings, *report.notes]
        if f.status == "confirmed"
        and f.reproducer is not None
        and f.reproducer.verdict == "confirmed"
    ]
    confirmed_suspect = any(_SUSPECT.search(t) for t in confirmed_titles)
    locker_defined = False
    quoted = _operator_text_rows(lines)
    for i, line in enumerate(lines, 1):
        if i in quoted:
            continue
        if _SUSPECT.search(line) and (confirmed_suspect or "**confirmed**" in line):
            problems.append(
                Problem("suspect-confirmed", i, "says 'suspect until ...' of a confirmed finding")
            )
        for m in _SHARE.finditer(line):
            if _to_float(m.group("n")) > 100:
                problems.append(Problem("false-comparison", i, m.group(0)))
        for m in _REPEATED_PAREN.finditer(line):
            problems.append(Problem("repeated-words", i, m.group(0)))
        for m in _DOUBLED_WORD.finditer(line):
            problems.append(Problem("repeated-words", i, m.group(0)))
        if _LOCKER.search(line) and not locker_defined:
            if _LOCKER_DEFINED.search(line):
                locker_defined = True
            else:
                problems.append(Problem("jargon", i, "'locker' used before it is defined"))
                locker_defined = True  # one report of the same jargon is enough
        for m in _BIG_MS.finditer(line):
            if _to_float(m.group("n")) >= 1000:
                problems.append(Problem("mixed-units", i, f"{m.group(0)} (seconds above 1 s)"))
        for m in _SMALL_S.finditer(line):
            problems.append(Problem("mixed-units", i, f"{m.group(0)} (ms below 1 s)"))
    return problems


_MEAN = re.compile(rf"mean ({_NUMBER} (?:ms|s|µs))")
_PART = re.compile(r"(prefill|queue time) p50 (.+?)(?:;|$)")


def _check_six_signals(lines: Sequence[str]) -> list[Problem]:
    problems: list[Problem] = []
    ttft_p50: _Range | None = None
    parts: list[tuple[int, str, _Range]] = []
    for table in _tables(lines):
        header = [h.lower() for h in table.header]
        if not {"p50", "p95", "p99"} <= set(header):
            continue
        at = {q: header.index(q) for q in ("p50", "p95", "p99")}
        notes_at = header.index("notes") if "notes" in header else None
        for line_no, cells in table.rows:
            if len(cells) != len(header):
                continue
            qs = [cells[at[q]] for q in ("p50", "p95", "p99")]
            label = cells[header.index("signal")] if "signal" in header else cells[0]
            durations = [_duration(c) for c in qs]
            if all(d is not None for d in durations):
                rs = [d for d in durations if d is not None]
                for (qa, a), (qb, b) in zip(
                    zip(("p50", "p95", "p99"), rs, strict=True),
                    list(zip(("p50", "p95", "p99"), rs, strict=True))[1:],
                    strict=False,
                ):
                    if a.lo > b.hi:
                        problems.append(
                            Problem("percentile-order", line_no, f"{label}: {qa} above {qb}")
                        )
                notes = cells[notes_at] if notes_at is not None else ""
                mean_m = _MEAN.search(notes)
                mean = _duration(mean_m.group(1)) if mean_m else None
                if mean is not None:
                    for q_name, q, r in zip(
                        ("p50", "p95", "p99"), (0.5, 0.95, 0.99), rs, strict=True
                    ):
                        # Markov: at least (1 - q) of the observations are ≥ p_q's lower end.
                        if r.lo * (1 - q) > mean.hi * 1.001:
                            problems.append(
                                Problem(
                                    "percentile-mean",
                                    line_no,
                                    f"{label} {q_name} {cells[at[q_name]]} is impossible "
                                    f"with a mean of {mean_m.group(1) if mean_m else ''}",
                                )
                            )
                if "first token" in label.lower():
                    ttft_p50 = rs[0]
                elif "queue" in label.lower():
                    parts.append((line_no, "queue time", rs[0]))
                for pm in _PART.finditer(notes):
                    part = _duration(pm.group(2).strip())
                    if part is not None and pm.group(1) == "prefill":
                        parts.append((line_no, "prefill", part))
            elif "request lengths" in label:
                mean_m = re.search(rf"mean prompt ({_NUMBER})", " ".join(cells))
                top_m = re.search(rf"longest prompt ≤ ({_NUMBER})", " ".join(cells))
                if mean_m and top_m and _to_float(top_m.group(1)) < _to_float(mean_m.group(1)):
                    problems.append(
                        Problem("false-comparison", line_no, "longest prompt below the mean")
                    )
            else:
                plain = [_plain_number(c) for c in qs]
                if all(p is not None for p in plain):
                    nums = [p[0] for p in plain if p is not None]
                    if not nums[0] <= nums[1] <= nums[2]:
                        problems.append(
                            Problem("percentile-order", line_no, f"{label}: {' / '.join(qs)}")
                        )
    if ttft_p50 is not None:
        for line_no, what, part in parts:
            if part.hi > ttft_p50.hi * 1.001:
                problems.append(
                    Problem("part-above-ttft", line_no, f"{what} p50 above the TTFT p50")
                )
    return problems


_CARD_FULL_CLAIM = re.compile(r"\bmemory is full\b|\b(?:GPU|card) is full\b", re.I)
_OOM_CLAIM = re.compile(r"\bout[- ]of[- ]memory\b|(?<![\w-])OOMs?\b")
_GPU_WORD = re.compile(r"\bGPUs?\b|\bCUDA\b|\bNVML\b")
# A claim is negated when its clause says so before it ("reported no out-of-memory error",
# "not a full card", "without an OOM").
_NEGATION = re.compile(r"\b(?:no|not|never|without|nor|neither)\b", re.I)
_CODE_SPAN = re.compile(r"`[^`]*`")


def _negated(line: str, start: int) -> bool:
    before = line[max(0, start - 60) : start]
    clause = re.split(r"[.;:(|]|, (?:but|while)\b", before)[-1]
    return bool(_NEGATION.search(clause))


def _evidence_expected_cells(lines: Sequence[str]) -> dict[int, list[str]]:
    """Line number -> the cells of an evidence-style table row that claim nothing about this
    server: the "expected" cell (what a reader should expect for a cause is a norm) and the
    row's name ("log shows a CUDA out-of-memory error" names what was looked for; the value
    cell beside it says whether it was seen)."""
    out: dict[int, list[str]] = {}
    for table in _tables(lines):
        header = [h.lower() for h in table.header]
        if "expected" in header:
            at = header.index("expected")
            for line_no, cells in table.rows:
                if at < len(cells):
                    out[line_no] = [cells[at], *cells[:1]]
    return out


def _operator_text_rows(lines: Sequence[str]) -> set[int]:
    """Rows that quote the operator's own words (the bundle's notes): not the report's claims."""
    out: set[int] = set()
    for table in _tables(lines):
        for line_no, cells in table.rows:
            if cells and cells[0].strip().lower() == "notes":
                out.add(line_no)
    return out


def _not_checked_rows(lines: Sequence[str]) -> set[int]:
    rows: set[int] = set()
    for table in _tables(lines):
        if [h.lower() for h in table.header] == ["what", "why"]:
            rows.update(line_no for line_no, _ in table.rows)
    return rows


def _check_claims(lines: Sequence[str], report: Report) -> list[Problem]:
    """Sentences that claim what the bundle's own data does not show."""
    sig = report.signals
    oom_logged = sig.get("log_oom") is True or sig.get("log_no_cache_memory") is True
    fraction = sig.get("gpu_memory_used_fraction")
    card_full = oom_logged or (
        isinstance(fraction, int | float)
        and not isinstance(fraction, bool)
        and fraction >= CARD_FULL
    )
    on_cpu = sig.get("platform") == "cpu"
    norms = _evidence_expected_cells(lines)
    skip_gpu = _not_checked_rows(lines)
    problems: list[Problem] = []
    for i, raw in enumerate(lines, 1):
        if raw.startswith("| notes |"):
            # The capture's notes are the operator's words, quoted (external case
            # zzp-internvl3: "the operator reports 'OOM'"), not a claim the report makes.
            continue
        line = _CODE_SPAN.sub("", raw)
        for cell in norms.get(i, ()):
            # The expectation column states a norm ("a CUDA out-of-memory error in the log"),
            # the first column names the measure.
            line = line.replace(cell, "")
        if not card_full:
            for m in _CARD_FULL_CLAIM.finditer(line):
                if not _negated(line, m.start()):
                    problems.append(
                        Problem(
                            "claim-card-full",
                            i,
                            f"{m.group(0)!r} with no out-of-memory line, no-cache-memory "
                            f"refusal or NVML at {CARD_FULL:.0%} of the card",
                        )
                    )
        if not oom_logged:
            for m in _OOM_CLAIM.finditer(line):
                if not _negated(line, m.start()):
                    problems.append(
                        Problem("claim-oom", i, f"{m.group(0)!r} with no out-of-memory line logged")
                    )
        if on_cpu and i not in skip_gpu:
            for m in _GPU_WORD.finditer(line):
                problems.append(Problem("claim-gpu-on-cpu", i, f"{m.group(0)!r} on a CPU server"))
    return problems


_HEALTHY_FOLD = "Why this reads as healthy"


def _check_healthy_rows(lines: Sequence[str], report: Report) -> list[Problem]:
    """The healthy table's words agree with its numbers: no "not met:" (a healthy row that
    states what its number contradicts) and no stated comparison its value breaks."""
    if report.verdict != "healthy":
        return []
    problems: list[Problem] = []
    for table in _tables(lines):
        if table.start < 2 or _HEALTHY_FOLD not in "\n".join(
            lines[max(0, table.start - 4) : table.start]
        ):
            continue
        for line_no, cells in table.rows:
            if len(cells) != 3:
                continue
            if cells[2].startswith("not met"):
                problems.append(
                    Problem("healthy-row", line_no, f"{cells[0]} {cells[1]}: {cells[2]}")
                )
                continue
            judged = stated_comparison(cells[1], cells[2])
            if judged is not None and not judged[0]:
                problems.append(
                    Problem("healthy-row", line_no, f"{cells[0]} {cells[1]}: {cells[2]}")
                )
    return problems


def check_report(
    markdown: str,
    report: Report,
    *,
    exit_code: int | None = None,
    max_visible: int | None = MAX_VISIBLE_LINES,
) -> list[Problem]:
    """Every problem found in one rendered report (empty when it reads consistently).

    ``exit_code`` is the code the command returned (or would return) for ``report``;
    ``max_visible`` limits the lines above the fold (None: no limit, e.g. ``--detail full``).
    """
    lines = markdown.splitlines()
    problems = _check_verdict(lines, report, exit_code)
    problems += _check_tables(lines)
    problems += _check_text(lines, report)
    problems += _check_six_signals(lines)
    problems += _check_claims(lines, report)
    problems += _check_healthy_rows(lines, report)
    if max_visible is not None:
        n = visible_lines(markdown)
        if n > max_visible:
            problems.append(Problem("too-long", 0, f"{n} visible lines (at most {max_visible})"))
    return sorted(set(problems), key=lambda p: (p.line, p.kind, p.detail))
