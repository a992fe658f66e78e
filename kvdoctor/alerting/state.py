"""What ``kvdoctor serve`` remembers across restarts: one SQLite file under the state dir.

* ``jobs``: one row per (group fingerprint, episode, kind) — ``firing`` (investigate) or
  ``resolved`` (compare) — queued, running, done, skipped or failed. The unique key is the
  deduplication: Alertmanager's retries and repeat notifications of a group that is already
  being (or was) investigated add nothing;
* ``replica_runs``: when each replica was last investigated (the per-replica rate limit);
* ``deliveries``: which sink already received a job's summary.

A job that was ``running`` when the process stopped is queued again at the next start
(nothing is lost); its finished steps are on disk (the bundle is written atomically, the
report is a pure function of it) and sinks it reached are in ``deliveries`` (nothing is sent
twice). Secrets never enter this file: only payloads (labels and annotations), which the
receiver checked before storing.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from kvdoctor.errors import KvdoctorError

Kind = Literal["firing", "resolved"]
Status = Literal["queued", "running", "done", "skipped", "failed"]
DB_NAME = "state.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    fingerprint TEXT NOT NULL, episode TEXT NOT NULL, kind TEXT NOT NULL,
    status TEXT NOT NULL, payload TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, detail TEXT NOT NULL DEFAULT '',
    UNIQUE (fingerprint, episode, kind));
CREATE TABLE IF NOT EXISTS replica_runs (
    replica TEXT NOT NULL, t REAL NOT NULL, job INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS replica_runs_by_replica ON replica_runs (replica, t);
CREATE TABLE IF NOT EXISTS findings (
    replica TEXT NOT NULL, id TEXT NOT NULL, symptom TEXT NOT NULL, cause TEXT NOT NULL,
    severity TEXT NOT NULL, status TEXT NOT NULL, PRIMARY KEY (replica, id, cause));
CREATE TABLE IF NOT EXISTS deliveries (
    job INTEGER NOT NULL, sink TEXT NOT NULL, t REAL NOT NULL, PRIMARY KEY (job, sink));
"""


@dataclass(frozen=True)
class Job:
    id: int
    fingerprint: str
    episode: str
    kind: Kind
    status: Status
    payload: str  # the webhook body (JSON) that created the job
    attempts: int
    detail: str


@dataclass(frozen=True)
class Enqueued:
    outcome: Literal["queued", "duplicate", "full", "ignored"]
    job: int | None
    why: str


class State:
    """Thread-safe access to the state file (one connection, one lock)."""

    def __init__(self, state_dir: Path, clock: Callable[[], float] = time.time) -> None:
        self.dir = state_dir
        self.clock = clock
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                state_dir / DB_NAME, check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise KvdoctorError(f"--state-dir {state_dir}: cannot open the state: {exc}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- notifications and jobs --------------------------------------------------------------

    def enqueue(
        self, fingerprint: str, episode: str, kind: Kind, payload: str, max_queued: int
    ) -> Enqueued:
        with self._lock:
            row = self._db.execute(
                "SELECT id, status FROM jobs WHERE fingerprint=? AND episode=? AND kind=?",
                (fingerprint, episode, kind),
            ).fetchone()
            if row is not None:
                return Enqueued("duplicate", int(row[0]), f"{kind} job {row[0]} is {row[1]}")
            (queued,) = self._db.execute(
                "SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')"
            ).fetchone()
            if queued >= max_queued:
                return Enqueued(
                    "full", None, f"{queued} jobs waiting (the queue holds {max_queued})"
                )
            now = self.clock()
            cur = self._db.execute(
                "INSERT INTO jobs (fingerprint, episode, kind, status, payload, created, updated)"
                " VALUES (?, ?, ?, 'queued', ?, ?, ?)",
                (fingerprint, episode, kind, payload, now, now),
            )
            return Enqueued("queued", int(cur.lastrowid or 0), "")

    def episode_for_resolved(self, fingerprint: str, latest_start: float) -> str | None:
        """The investigated episode a resolve notification closes: the group's latest one that
        started no later than the alerts it carries."""
        with self._lock:
            row = self._db.execute(
                "SELECT episode FROM jobs WHERE fingerprint=? AND kind='firing' AND "
                "CAST(episode AS REAL) <= ? ORDER BY CAST(episode AS REAL) DESC LIMIT 1",
                (fingerprint, latest_start),
            ).fetchone()
        return None if row is None else str(row[0])

    def open_episode(self, fingerprint: str) -> str | None:
        """The group's episode still open (investigated or queued, not yet resolved): a firing
        notification while it is open belongs to it (an alert joined the group, a warning was
        replaced by its critical, Alertmanager repeated itself)."""
        with self._lock:
            row = self._db.execute(
                "SELECT f.episode FROM jobs f WHERE f.fingerprint=? AND f.kind='firing' AND "
                "NOT EXISTS (SELECT 1 FROM jobs r WHERE r.fingerprint=f.fingerprint AND "
                "r.episode=f.episode AND r.kind='resolved') "
                "ORDER BY CAST(f.episode AS REAL) DESC LIMIT 1",
                (fingerprint,),
            ).fetchone()
        return None if row is None else str(row[0])

    def requeue_interrupted(self) -> int:
        """Jobs left ``running`` by a stop go back to the queue (at start, before workers)."""
        with self._lock:
            cur = self._db.execute(
                "UPDATE jobs SET status='queued', updated=? WHERE status='running'", (self.clock(),)
            )
            return cur.rowcount

    def claim(self) -> Job | None:
        """The oldest queued job that may run now (a compare waits for its investigation)."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM jobs j WHERE status='queued' AND NOT (kind='resolved' AND EXISTS ("
                " SELECT 1 FROM jobs f WHERE f.fingerprint=j.fingerprint AND f.episode=j.episode"
                " AND f.kind='firing' AND f.status IN ('queued', 'running'))) ORDER BY id LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            self._db.execute(
                "UPDATE jobs SET status='running', attempts=attempts+1, updated=? WHERE id=?",
                (self.clock(), row[0]),
            )
            return self._job(row, status="running", attempts=int(row[8]) + 1)

    def finish(self, job: int, status: Status, detail: str = "") -> None:
        with self._lock:
            self._db.execute(
                "UPDATE jobs SET status=?, detail=?, updated=? WHERE id=?",
                (status, detail, self.clock(), job),
            )

    def job(self, job_id: int) -> Job | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM jobs WHERE id=?", (job_id,)).fetchone()
        return None if row is None else self._job(row)

    def jobs(self) -> list[Job]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM jobs ORDER BY id").fetchall()
        return [self._job(r) for r in rows]

    def counts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status").fetchall()
        return {str(s): int(n) for s, n in rows}

    @staticmethod
    def _job(row: tuple[object, ...], **override: object) -> Job:
        fields = {
            "id": int(str(row[0])),
            "fingerprint": str(row[1]),
            "episode": str(row[2]),
            "kind": str(row[3]),
            "status": str(row[4]),
            "payload": str(row[5]),
            "attempts": int(str(row[8])),
            "detail": str(row[9]),
        }
        fields.update(override)
        return Job(**fields)  # type: ignore[arg-type]  # kind/status come from our own writes

    # --- rate limits -------------------------------------------------------------------------

    def replica_allowed(self, replica: str, job: int, limit: int, window_s: float) -> bool:
        """True (and the run is recorded) when ``replica`` had fewer than ``limit`` runs within
        the last ``window_s`` seconds. A job that already counted the replica (it ran before a
        restart) is allowed again without counting twice."""
        with self._lock:
            now = self.clock()
            mine = self._db.execute(
                "SELECT 1 FROM replica_runs WHERE replica=? AND job=?", (replica, job)
            ).fetchone()
            if mine is not None:
                return True
            (n,) = self._db.execute(
                "SELECT COUNT(*) FROM replica_runs WHERE replica=? AND t>?",
                (replica, now - window_s),
            ).fetchone()
            if n >= limit:
                return False
            self._db.execute("INSERT INTO replica_runs VALUES (?, ?, ?)", (replica, now, job))
            return True

    # --- what kvdoctor concluded, per replica (the /metrics gauge) ---------------------------

    def set_findings(self, replica: str, rows: list[tuple[str, str, str, str, str]]) -> None:
        """Replace the replica's findings with ``(id, symptom, cause, severity, status)`` rows."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM findings WHERE replica=?", (replica,))
            self._db.executemany(
                "INSERT OR REPLACE INTO findings VALUES (?, ?, ?, ?, ?, ?)",
                [(replica, *r) for r in rows],
            )
            self._db.execute("COMMIT")

    def findings(self) -> list[tuple[str, str, str, str, str, str]]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM findings ORDER BY replica, id, cause").fetchall()
        return [tuple(str(c) for c in r) for r in rows]  # type: ignore[misc]

    # --- deliveries --------------------------------------------------------------------------

    def delivered(self, job: int, sink: str) -> bool:
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM deliveries WHERE job=? AND sink=?", (job, sink)
            ).fetchone()
        return row is not None

    def mark_delivered(self, job: int, sink: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)", (job, sink, self.clock())
            )


def payload_json(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))
