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


def read_capped(stream: TextIO, limit: int = MAX_LOG_CHARS, budget: int | None = None) -> str:
    """Head and tail of ``stream`` within ``limit`` characters. ``budget``: stop reading after
    that many characters (a device or a pipe that never ends: ``--logs /dev/zero``)."""
    buf = _Capped(limit)
    seen = 0
    while budget is None or seen < budget:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        seen += len(chunk)
        buf.add(chunk)
    else:
        buf.add(
            f"\n[kvdoctor: the log stream did not end; reading stopped after {seen} characters]\n"
        )
    return buf.text()


def read_log_file(path: Path, limit: int = MAX_LOG_CHARS) -> str:
    """A log file's head and tail within ``limit``: a regular file is read around its middle
    (seek, never the gigabytes between), anything else (a device, a FIFO) until a budget of
    four times the limit."""
    import io
    import os
    import stat

    with path.open("rb") as raw:
        st = os.fstat(raw.fileno())
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
        if not stat.S_ISREG(st.st_mode):
            return read_capped(text, limit, budget=4 * limit)
        # UTF-8 takes up to 4 bytes a character: a file within 4 × limit bytes is read whole.
        if st.st_size <= 4 * limit:
            return read_capped(text, limit)
        head = text.read(limit // _HEAD_SHARE)
        tail_bytes = 4 * (limit - limit // _HEAD_SHARE)
        raw.seek(st.st_size - tail_bytes)
        tail = raw.read(tail_bytes).decode("utf-8", errors="replace")
        tail = tail[-(limit - len(head)) :]
        dropped = (
            st.st_size - len(head.encode("utf-8", "replace")) - len(tail.encode("utf-8", "replace"))
        )
        return head + f"\n[kvdoctor: about {max(dropped, 0)} bytes of log cut here]\n" + tail


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
            return read_log_file(path, self.limit), None
        except OSError as exc:
            return None, NotChecked(what="logs", why=f"cannot read {path}: {exc.strerror or exc}")
