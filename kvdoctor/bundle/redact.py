"""Keep secrets (always) and identifying details (with ``--redact``) out of a bundle.

Always: header values given with ``--header`` (and the token inside ``Bearer …``), and the
values of API-key/token arguments in logs, are replaced by ``<secret>`` wherever they appear.
With ``--redact``: host names, IPv4 addresses and local filesystem paths are replaced by stable
placeholders (``host-1``, ``ip-1``, ``<path-1>``): the same value always gets the same
placeholder within a bundle, so the data still lines up. Placeholders contain no quote or
backslash, so redacted exposition text still parses.
"""

from __future__ import annotations

import contextlib
import re
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

SECRET = "<secret>"

_IPV4 = re.compile(
    r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\d.])"
)
# Absolute paths under the roots where models, homes and data live. URL paths such as
# "/v1/models" are not local paths and are left alone.
_PATH = re.compile(
    r"(?<![\w:/.<-])(?:~|/(?:home|root|Users|tmp|mnt|data|models|opt|srv|workspace|work|scratch"
    r"|nfs|var|media|shared|gpfs|lustre|fsx|efs|nvme|cache|checkpoints|weights|etc|usr))"
    r"(?:/[^\s\"'`,;:()\[\]{}<>|]*)+"
)
_URL_HOST = re.compile(r"(?<=://)(?:[^/@\s\"']*@)?([A-Za-z0-9][A-Za-z0-9.-]*)")
_API_ARG = re.compile(
    r"""(['"]?(?:api[_-]?key|hf[_-]?token|api[_-]?keys)['"]?\s*[:=]\s*)"""
    r"""(\[[^\]]*\]|'[^']*'|"[^"]*"|[^\s,}]+)""",
    re.IGNORECASE,
)
_KEEP_IPS = {"127.0.0.1", "0.0.0.0"}
_KEEP_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "::1"}


class Redactor:
    def __init__(
        self, secrets: Iterable[str] = (), redact: bool = False, hosts: Iterable[str] = ()
    ) -> None:
        values: set[str] = set()
        for s in secrets:
            s = s.strip()
            if len(s) >= 4:
                values.add(s)
            scheme, _, token = s.partition(" ")
            if token and scheme.lower() in ("bearer", "basic", "token") and len(token) >= 4:
                values.add(token.strip())
        # Longest first, so a token inside a longer header value is replaced as a whole.
        self._secrets = sorted(values, key=len, reverse=True)
        self.redact = redact
        self._map: dict[str, str] = {}
        self._counts: dict[str, int] = {}
        self._hosts: list[str] = []
        if redact:
            names = set(hosts)
            with contextlib.suppress(OSError):
                names.update({socket.gethostname(), socket.getfqdn()})
            self._hosts = sorted(
                (h for h in names if h and h not in _KEEP_HOSTS and not _IPV4.fullmatch(h)),
                key=len,
                reverse=True,
            )

    def _placeholder(self, kind: str, value: str) -> str:
        key = f"{kind}\0{value}"
        hit = self._map.get(key)
        if hit is None:
            n = self._counts.get(kind, 0) + 1
            self._counts[kind] = n
            hit = f"<path-{n}>" if kind == "path" else f"{kind}-{n}"
            self._map[key] = hit
        return hit

    def text(self, s: str) -> str:
        for secret in self._secrets:
            if secret in s:
                s = s.replace(secret, SECRET)
        s = _API_ARG.sub(lambda m: m.group(1) + repr(SECRET), s)
        if not self.redact:
            return s
        s = _PATH.sub(lambda m: self._placeholder("path", m.group(0)), s)
        for host in self._hosts:
            if host in s:
                s = re.sub(
                    rf"(?<![\w.-]){re.escape(host)}(?![\w-])",
                    self._placeholder("host", host),
                    s,
                )
        s = _URL_HOST.sub(self._url_host, s)
        return _IPV4.sub(self._ip, s)

    def _url_host(self, m: re.Match[str]) -> str:
        host = m.group(1)
        if host in _KEEP_HOSTS or _IPV4.fullmatch(host) or host.startswith("host-"):
            return m.group(0)
        return m.group(0)[: m.start(1) - m.start(0)] + self._placeholder("host", host)

    def _ip(self, m: re.Match[str]) -> str:
        ip = m.group(0)
        return ip if ip in _KEEP_IPS else self._placeholder("ip", ip)

    def data(self, obj: Any) -> Any:
        """Redact every string inside a JSON-like value (keys too, for paths used as keys)."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, list):
            return [self.data(v) for v in obj]
        if isinstance(obj, dict):
            return {self.text(k) if isinstance(k, str) else k: self.data(v) for k, v in obj.items()}
        return obj

    def url(self, endpoint: str) -> str:
        """The endpoint as it may be stored: never credentials; host redacted on request."""
        parts = urlsplit(endpoint)
        netloc = parts.hostname or ""
        if ":" in netloc:
            netloc = f"[{netloc}]"
        try:
            port = parts.port
        except ValueError:
            port = None
        if port is not None:
            netloc += f":{port}"
        clean = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
        return self.text(clean)
