"""The logs probe: server log text from ``--logs FILE`` or ``--logs -`` (stdin).

Logs can be huge (days of ``kubectl logs``). The head (start-up KV sizing lines) and the tail
(recent warnings, OOM tracebacks) are what matter, so beyond a cap the middle is dropped and a
marker line says how much. Stdin is read on a background thread during the capture window, so
``kubectl logs -f ... | kvdoctor record --logs -`` works as well as a finished pipe.
"""

from __future__ import annotations

import codecs
import sys
import threading
from collections import deque
from pathlib import Path
from typing import TextIO

from kvdoctor.bundle.model import NotChecked

MAX_LOG_CHARS = 32 * 1024 * 1024
_HEAD_SHARE = 4  # a quarter of the cap for the head, the rest for the tail


class _Capped:
    def __init__(self, limit: int) -> None:
        self.head_limit = limit // _HEAD_SHARE
        self.tail_limit = limit - self.head_limit
        self.head: list[str] = []
        self.head_len = 0
        self.tail: deque[str] = deque()
        self.tail_len = 0
        self.dropped = 0

    def add(self, chunk: str) -> None:
        if self.head_len < self.head_limit:
            take = chunk[: self.head_limit - self.head_len]
            self.head.append(take)
            self.head_len += len(take)
            chunk = chunk[len(take) :]
        if not chunk:
            return
        self.tail.append(chunk)
        self.tail_len += len(chunk)
        while self.tail_len > self.tail_limit and self.tail:
            extra = self.tail_len - self.tail_limit
            first = self.tail[0]
            if len(first) <= extra:
                self.tail.popleft()
                self.tail_len -= len(first)
                self.dropped += len(first)
            else:
                self.tail[0] = first[extra:]
                self.tail_len -= extra
                self.dropped += extra

    def text(self) -> str:
        head = "".join(self.head)
        tail = "".join(self.tail)
        if not self.dropped:
            return head + tail
        marker = f"\n[kvdoctor: {self.dropped} characters of log cut here]\n"
        return head + marker + tail


def read_capped(stream: TextIO, limit: int = MAX_LOG_CHARS) -> str:
    buf = _Capped(limit)
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        buf.add(chunk)
    return buf.text()


def _valid_utf8(text: str) -> str:
    """``text`` with lone surrogates (bytes a text stream smuggled in) as U+FFFD."""
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # surrogates that stand for no byte
        data = text.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "replace")


class LogSource:
    """Logs from a file (read at the end of the window) or stdin (read while capturing)."""

    def __init__(self, spec: str | None, stdin: TextIO | None = None, limit: int = MAX_LOG_CHARS):
        self.spec = spec
        self.limit = limit
        self._buf = _Capped(limit)
        # The pump thread may still be adding (a `-f` pipe) while the capture takes the text.
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._error: str | None = None
        self._stdin: TextIO | None = stdin if stdin is not None else sys.stdin
        if spec == "-" and self._stdin is None:
            self._error = "no standard input to read logs from"
        elif spec == "-":
            self._thread = threading.Thread(target=self._pump, name="kvdoctor-logs", daemon=True)
            self._thread.start()

    def _pump(self) -> None:
        assert self._stdin is not None
        # Bytes, decoded here with replacement: a log is not guaranteed UTF-8 (a binary blob, a
        # latin-1 line), and the text layer of stdin would either raise mid-window or pass
        # surrogates that no UTF-8 file can hold. One bad byte costs one character, not the run.
        raw = getattr(self._stdin, "buffer", None)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            while True:
                if raw is not None:
                    data = raw.read1(1 << 16) if hasattr(raw, "read1") else raw.read(1 << 16)
                    chunk = decoder.decode(data, final=not data)
                    if not data:
                        with self._lock:
                            self._buf.add(chunk)
                        return
                else:
                    chunk = self._stdin.read(1 << 16)
                    if not chunk:
                        return
                with self._lock:
                    self._buf.add(chunk)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            self._error = f"reading stdin failed: {exc}"

    def collect(self, wait_s: float = 1.0) -> tuple[str | None, NotChecked | None]:
        if self.spec is None:
            return None, NotChecked(what="logs", why="no --logs given")
        if self.spec == "-":
            # A finished pipe ends the thread at once; a `-f` pipe keeps going: take what came.
            if self._thread is not None:
                self._thread.join(timeout=wait_s)
            if self._error:
                return None, NotChecked(what="logs", why=self._error)
            with self._lock:
                return _valid_utf8(self._buf.text()), None
        path = Path(self.spec).expanduser()
        try:
            with path.open("r", encoding="utf-8", errors="replace") as fh:
                return read_capped(fh, self.limit), None
        except OSError as exc:
            return None, NotChecked(what="logs", why=f"cannot read {path}: {exc.strerror or exc}")
