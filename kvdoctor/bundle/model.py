"""The ``kvdoctor.bundle/1`` contract (docs/bundle.md) as typed records.

Readers ignore unknown keys and files (``extra="ignore"``): the contract lets newer writers add
them. Everything kvdoctor itself *produces* elsewhere forbids extra keys.

The reproducer record (``kvdoctor.reproducer/1``, one line of ``reproducers.jsonl``) is defined
here too: the bundle holds typed records, so every later stage (signals, rules, report) reads
the same validated type, and the bundle layer imports nothing above it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr

from kvdoctor.expfmt import Labels
from kvdoctor.factories import new_dict, new_list
from kvdoctor.vocab import ReproducerVerdict, Routing, Symptom

# A JSON object as read from (or written to) a bundle file: raw server bodies, engine flags, a
# model's config.json, an experiment's numbers. Typed as JSON rather than Any so that every
# reader narrows a value before using it.
JsonObject = dict[str, JsonValue]

BUNDLE_SCHEMA = "kvdoctor.bundle/1"
REPRODUCER_SCHEMA: Final = "kvdoctor.reproducer/1"
BUNDLE_MAJOR = 1

# File names inside a bundle directory (contract).
MANIFEST = "manifest.json"
METRICS = "metrics.jsonl"
SERVER = "server.json"
ENGINE_ARGS = "engine_args.json"
MODEL_CONFIG = "model_config.json"
GPU = "gpu.jsonl"
LOGS = "logs.txt"
REPRODUCERS = "reproducers.jsonl"
PROMPT_SAMPLE_FILE: Final = "prompt_sample.json"
PROMPT_SAMPLE_SCHEMA: Final = "kvdoctor.prompts/1"
# How a prompt sample's prompts were tokenised, and where they came from.
PromptTokenizer = Literal["given", "server", "local", "approximate"]
PromptSource = Literal["prompts-file", "request-log"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class NotChecked(BaseModel):
    """Something that could not be collected or checked, and why (first-class output)."""

    model_config = ConfigDict(extra="forbid")
    what: str
    why: str


class Manifest(_Record):
    schema_: str = Field(alias="schema", default=BUNDLE_SCHEMA)
    created_by: str
    endpoint: str
    started_at: float
    ended_at: float
    interval_s: float
    notes: str = ""
    # kvdoctor's own extension (unknown keys are ignored by other readers): what the probes
    # could not collect at capture time, so a replay reports the same "not checked" list.
    not_checked: list[NotChecked] = Field(default_factory=new_list)
    # The symptom the operator was called for (--complaint), so a replay weighs it the same.
    complaint: Symptom | None = None
    # The identical servers behind one router this server is one of (--replicas) and how the
    # router picks among them (--routing): each replica keeps its own prefix cache.
    replicas: int | None = Field(default=None, ge=1, le=100_000)
    routing: Routing | None = None


class Scrape(_Record):
    """One line of metrics.jsonl: a scrape (status + raw text) or a failed one (error)."""

    t: float
    status: int | None = None
    text: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None and self.status == 200


class ServerInfo(_Record):
    # The raw /version and /v1/models bodies (any JSON; the signals pick what they know).
    version: JsonValue = None
    models: JsonValue = None
    health: int | None = None


class EngineArgs(_Record):
    argv: list[str] | None = None
    args: JsonObject = Field(default_factory=new_dict)


class GpuProcess(_Record):
    pid: int
    name: str = ""
    used_memory: int | None = None


class GpuDevice(_Record):
    index: int
    name: str = ""
    memory_total: int
    memory_used: int
    processes: list[GpuProcess] = Field(default_factory=new_list)


class GpuSample(_Record):
    t: float
    devices: list[GpuDevice] = Field(default_factory=new_list)


class ReproducerRecord(BaseModel):
    """One reproducer run as ``reproducers.jsonl`` holds it (``kvdoctor.reproducer/1``).

    A replay re-renders a report from these records without sending any traffic.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["kvdoctor.reproducer/1"] = Field(default=REPRODUCER_SCHEMA, alias="schema")
    name: str
    # Overall verdict on the hypothesis the experiment was run for.
    verdict: ReproducerVerdict
    # An experiment can tell several causes apart (prefix-probe: caching off vs block larger
    # than prefix vs drift vs eviction): verdict per cause id, overriding ``verdict`` for it.
    cause_verdicts: dict[str, ReproducerVerdict] = Field(default_factory=new_dict)
    summary: str = ""
    expected: JsonObject = Field(default_factory=new_dict)
    measured: JsonObject = Field(default_factory=new_dict)
    started_at: float
    ended_at: float
    requests_sent: int = 0
    budget: JsonObject = Field(default_factory=new_dict)
    # Why the guard stopped the run early, or None when it ran to completion.
    aborted: str | None = None


class UnreadRecord(BaseModel):
    """A line of ``reproducers.jsonl`` that is JSON but not a valid record.

    It is not used (the pipeline lists ``problem`` under "not checked" and diagnoses without
    it), and it is kept as the exact line it was, so that rewriting the bundle (appending to an
    archive) loses nothing a newer kvdoctor might read.
    """

    model_config = ConfigDict(extra="forbid")

    # Its place among the file's records (0-based, blank lines not counted), so that a rewrite
    # puts it back where it was: the order of the lines decides which run of an experiment
    # counts on a tie.
    position: int = Field(ge=0)
    line: str
    problem: NotChecked


class PromptStat(BaseModel):
    """One prompt of the sample, as lengths only (kvdoctor.promptshare analyses the prompts)."""

    model_config = ConfigDict(extra="forbid")

    tokens: int = Field(ge=0)
    # Tokens it shares from the start with the most similar earlier prompt (any identity).
    shared_prefix: int = Field(ge=0)
    # The same, counting only earlier prompts with the same adapter and cache salt: what the
    # cache can actually reuse.
    shared_prefix_same_identity: int | None = Field(default=None, ge=0)
    # Tokens after the first difference that the most similar earlier prompt also holds
    # (content a prefix would share if what differs came later).
    shared_after_difference: int = Field(default=0, ge=0)
    # What the text differs in at the first difference: "timestamp", "date", "uuid",
    # "hex id", "number", "text" or None (no text, or no difference).
    difference: str | None = None
    # An opaque hash of (adapter, cache salt), equal for requests the cache may share between.
    identity: str = ""


class PromptSample(BaseModel):
    """``prompt_sample.json`` in a bundle: what a prompt sample shows, without its text."""

    schema_: Literal["kvdoctor.prompts/1"] = Field(default=PROMPT_SAMPLE_SCHEMA, alias="schema")
    source: PromptSource
    tokenizer: PromptTokenizer
    prompts: list[PromptStat] = Field(default_factory=new_list)
    adapters: int = Field(default=0, ge=0)
    salts: int = Field(default=0, ge=0)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def to_json(self) -> str:
        body = self.model_dump(mode="json", by_alias=True)
        return json.dumps(body, indent=2, sort_keys=True) + "\n"


class Bundle(BaseModel):
    """A whole bundle in memory. Optional parts are ``None`` when their file is absent."""

    model_config = ConfigDict(extra="forbid")

    manifest: Manifest
    scrapes: list[Scrape]
    server: ServerInfo | None = None
    engine_args: EngineArgs | None = None
    model_config_raw: JsonObject | None = None
    gpu: list[GpuSample] | None = None
    logs: str | None = None
    # The valid records of reproducers.jsonl, in file order (None: no such file).
    reproducers: list[ReproducerRecord] | None = None
    # Its lines that are not valid records (see UnreadRecord).
    unread_reproducers: list[UnreadRecord] = Field(default_factory=new_list)
    # The user's service-level objectives (slo.json, seconds), when the run was given any.
    slo: dict[str, float] | None = None
    # What the operator's prompt sample (--prompts) showed about sharing: lengths only, never
    # text or token ids (prompt_sample.json; kvdoctor.promptshare).
    prompt_sample: PromptSample | None = None
    # Where the bundle was read from (a path or "live"); never part of the rendered diagnosis
    # except the appendix, so a replay of a copy still renders the same bytes elsewhere.
    source: str = "live"
    # The scrapes' samples as columns, when whoever wrote the texts had them already (the
    # fleet path rebuilds expositions from Prometheus series): (scrape times, {(sample name,
    # labels): value per scrape in time order, None where absent}). Observations read them
    # instead of parsing every text again, which was most of a large fleet's diagnosis.
    # Private, so never serialized: the bundle on disk, and a replay of it, are the same.
    _columns: tuple[list[float], dict[tuple[str, Labels], list[float | None]]] | None = PrivateAttr(
        default=None
    )

    def with_columns(
        self, times: list[float], columns: dict[tuple[str, Labels], list[float | None]]
    ) -> Bundle:
        """Attach the parsed samples of the scrape texts (exactly what parsing them gives),
        ``times`` being the scrapes' times in order; returns this bundle."""
        self._columns = (times, columns)
        return self

    def columns_for(
        self, times: list[float]
    ) -> dict[tuple[str, Labels], list[float | None]] | None:
        """The attached columns, if they were made for scrapes at exactly ``times``."""
        if self._columns is None or self._columns[0] != times:
            return None
        return self._columns[1]

    def with_reproducers(self, records: Iterable[ReproducerRecord]) -> Bundle:
        """This bundle with ``records`` appended to its reproducer results (a new object)."""
        added = list(records)
        if not added:
            return self
        return self.model_copy(update={"reproducers": [*(self.reproducers or []), *added]})
