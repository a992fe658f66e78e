"""Keep secrets (always) and identifying details (with ``--redact``) out of a bundle.

Always: header values given with ``--header`` (the token inside ``Bearer …``, and for ``Basic …``
the decoded ``user:password`` and password too), the values of key-ish arguments in logs
(``api_key=…``, ``'hf_token': …``, ``--api-key sk-…``, ``--hf-token=hf_…``) and tokens that
look like keys by their shape (``sk-…``, ``hf_…``, ``Bearer …``) are replaced by ``<secret>``
wherever they appear. With ``--redact``: host names (the known ones, and any dotted name under a
common or internal top-level domain), IPv4 and IPv6 addresses and absolute filesystem paths
(any root except the server's own URL paths such as ``/v1/…``) are replaced by stable
placeholders (``host-1``, ``ip-1``, ``<path-1>``): the same value always gets the same
placeholder within a bundle, so the data still lines up. Placeholders contain no quote or
backslash, so redacted exposition text still parses.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import ipaddress
import re
import socket
from collections.abc import Iterable
from typing import TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

_T = TypeVar("_T")

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
# Any other absolute path of two or more parts (/raid/models, /dev/shm/x): a fixed list of roots
# always misses the site's own. The server's HTTP routes are not local paths and stay.
_ANY_PATH = re.compile(
    r"(?<![\w:/.<~-])/(?!(?:v1|v2|api|metrics|health|version|tokenize|detokenize|invocations"
    r"|ping|docs|openapi\.json|pooling|score|rerank|classify|load|sleep|wake_up|is_sleeping"
    r"|reset_prefix_cache|server_info|collective_rpc)(?![\w.-]))"
    r"[A-Za-z0-9._+-]+(?:/[^\s\"'`,;:()\[\]{}<>|]*)+"
)
# Dotted names under a top-level domain that names hosts (public, or the usual internal ones):
# "gpu-node-17.corp.example.com", "vllm-0.vllm.default.svc.cluster.local". File names
# ("config.json", "worker.py") and Python modules ("vllm.engine") have no such suffix.
_TLDS = (
    "com|net|org|io|ai|dev|cloud|app|tech|site|xyz|info|biz|co|edu|gov|mil|int|eu|us|uk|de|fr"
    "|nl|be|at|ch|se|no|fi|dk|pl|es|it|pt|ie|jp|cn|kr|tw|hk|sg|in|au|nz|ca|br|ru|il|za"
    "|internal|local|localdomain|lan|corp|intra|intranet|priv|private|home|svc|cluster|example"
    "|test|invalid|k8s|kube|kubernetes|lab|prod|stg|staging|dc|site"
)
_FQDN = re.compile(
    r"(?<![\w.@/-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
    rf"(?:{_TLDS})(?![\w-]|\.[A-Za-z0-9])",
    re.IGNORECASE,
)
# "user@host" (ssh, scp, e-mail, git remotes): both parts identify someone or something. The
# host part is also learnt, so later bare mentions of it are replaced too.
_USER_AT_HOST = re.compile(
    r"(?<![\w.+/:%-])([A-Za-z_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?)"
    r"(?![\w-])"
)
_NOT_HOSTS = frozenset({"sha256", "sha512", "sha1", "md5", "latest"})
# A credential inside any URL (postgres://u:pass@db, redis://:pass@cache, https://u:p@host):
# always a secret, whether or not the URL is one kvdoctor was given.
_URL_PASSWORD = re.compile(r"(?<=://)([^/@\s:\"'<>]*):([^/@\s\"'<>]+)@")
# file:// URLs name local paths (file:///raid/models/x).
_FILE_URL = re.compile(r"(?<=file://)(?:localhost)?/[^\s\"'`<>|]*", re.IGNORECASE)
# JSON-valued flags and configs ({"token": "…"}, {"kv_connector_extra_config": {"auth_key": …}}):
# a quoted key that names a credential, then a quoted value.
_JSON_SECRET = re.compile(
    r"""((["'])(?:[A-Za-z0-9]*[_-])*(?:token|secret|password|passwd|api[_-]?key|access[_-]?key"""
    r"""|private[_-]?key|credentials?|auth)\2\s*:\s*)("(?:[^"\\]|\\.)*"|'[^']*')""",
    re.IGNORECASE,
)
_SECRET_KEY = re.compile(
    r"(?:^|[_-])(?:token|secret|password|passwd|api[_-]?keys?|access[_-]?key|private[_-]?key"
    r"|credentials?|auth)$",
    re.IGNORECASE,
)
# Candidates only; ipaddress decides (a time such as 12:34:56 is not an address).
_IPV6 = re.compile(r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
_URL_HOST = re.compile(r"(?<=://)(?:[^/@\s\"']*@)?([A-Za-z0-9][A-Za-z0-9.-]*)")
_KEYISH = (
    r"(?:api[_-]?keys?|hf[_-]?token|hugging[_-]?face[_-]?token|(?:access|auth|api|bearer)[_-]?token"
    r"|secret(?:[_-]?key)?|password|passwd)"
)
_API_ARG = re.compile(
    rf"""(['"]?(?<![A-Za-z0-9]){_KEYISH}['"]?\s*[:=]\s*)"""
    r"""(\[[^\]]*\]|'[^']*'|"[^"]*"|[^\s,}]+)""",
    re.IGNORECASE,
)
# The command-line form with a space: "--api-key sk-…", "--hf-token hf_…", "--token …".
# vLLM's --api-key takes several values (nargs="+"): every word up to the next flag is one.
_FLAG_ARG = re.compile(
    rf"""((?<![\w-])--(?:{_KEYISH}|token)\s+)"""
    r"""((?:(?!-)(?:'[^']*'|"[^"]*"|[^\s'"]+)(?:[ \t]+|(?=\s|$)))+)""",
    re.IGNORECASE,
)
# Tokens recognisable by their shape wherever they stand (OpenAI-style, Hugging Face, GitHub,
# and the credential after an HTTP auth scheme).
_TOKEN_SHAPE = re.compile(
    r"(?<![\w-])(?:sk-[A-Za-z0-9_-]{12,}|hf_[A-Za-z0-9]{12,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,})"
    r"|(?<=Bearer )[A-Za-z0-9._~+/=-]{8,}|(?<=Basic )[A-Za-z0-9+/=]{8,}"
)
_KEEP_IPS = {"127.0.0.1", "0.0.0.0"}
_KEEP_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "::1"}


def _api_value(m: re.Match[str]) -> str:
    value = m.group(2)
    if value.strip("'\"") == SECRET:
        return m.group(0)  # hidden already (as JSON): keep its quoting valid
    return m.group(1) + ('"' + SECRET + '"' if value.startswith('"') else repr(SECRET))


def _flag_values(m: re.Match[str]) -> str:
    """Every value after a secret flag (``--api-key K1 K2``) hidden, the spacing kept."""
    values = m.group(2)
    trail = values[len(values.rstrip(" \t")) :]
    return m.group(1) + " ".join(SECRET for _ in _WORDS.findall(values.rstrip(" \t"))) + trail


_WORDS = re.compile(r"""'[^']*'|"[^"]*"|[^\s'"]+""")


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
            token = token.strip()
            if token and scheme.lower() in ("bearer", "basic", "token") and len(token) >= 4:
                values.add(token)
            if token and scheme.lower() == "basic":
                # A server or proxy may echo the decoded pair ("user:password") or the password.
                with contextlib.suppress(binascii.Error, UnicodeDecodeError, ValueError):
                    pair = base64.b64decode(token, validate=True).decode("utf-8")
                    values.update(v for v in (pair, pair.partition(":")[2]) if len(v) >= 4)
        # Longest first, so a token inside a longer header value is replaced as a whole.
        self._secrets = sorted(values, key=len, reverse=True)
        self._secret_re = (
            re.compile("|".join(re.escape(v) for v in self._secrets), re.IGNORECASE)
            if self._secrets
            else None
        )
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
        if self._secret_re is not None:
            # Any letter case: a server or proxy may echo a header value upper- or lower-cased.
            s = self._secret_re.sub(SECRET, s)
        s = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}:{SECRET}@", s)
        s = _JSON_SECRET.sub(lambda m: m.group(1) + '"' + SECRET + '"', s)
        s = _API_ARG.sub(_api_value, s)
        s = _FLAG_ARG.sub(_flag_values, s)
        s = _TOKEN_SHAPE.sub(SECRET, s)
        if not self.redact:
            return s
        s = _FILE_URL.sub(lambda m: self._placeholder("path", m.group(0)), s)
        s = _PATH.sub(lambda m: self._placeholder("path", m.group(0)), s)
        s = _ANY_PATH.sub(lambda m: self._placeholder("path", m.group(0)), s)
        s = _IPV6.sub(self._ip6, s)
        s = _USER_AT_HOST.sub(self._user_at_host, s)
        for m in _URL_HOST.finditer(s):
            self._learn_host(m.group(1))
        for host in self._hosts:
            if host.lower() in s.lower():
                s = re.sub(
                    rf"(?<![\w.-]){re.escape(host)}(?![\w-])",
                    self._placeholder("host", host.lower()),
                    s,
                    flags=re.IGNORECASE,
                )
        s = _URL_HOST.sub(self._url_host, s)
        s = _FQDN.sub(self._fqdn, s)
        return _IPV4.sub(self._ip, s)

    def _learn_host(self, host: str) -> None:
        """A host seen in a URL or ``user@host``: its later bare mentions are replaced too (a
        log names "gpu-17" as often as "root@gpu-17")."""
        if (
            not host
            or host in _KEEP_HOSTS
            or _IPV4.fullmatch(host)
            or host.startswith("host-")
            or host.lower() in _NOT_HOSTS
            or len(host) < 3
            or host in self._hosts
        ):
            return
        self._hosts.append(host)
        self._hosts.sort(key=len, reverse=True)

    def _user_at_host(self, m: re.Match[str]) -> str:
        user, host = m.group(1), m.group(2)
        if host.lower() in _NOT_HOSTS:
            return m.group(0)
        self._learn_host(host)
        keep = host in _KEEP_HOSTS or _IPV4.fullmatch(host) is not None
        return (
            self._placeholder("user", user)
            + "@"
            + (host if keep else self._placeholder("host", host.lower()))
        )

    def _fqdn(self, m: re.Match[str]) -> str:
        host = m.group(0)
        return host if host.lower() in _KEEP_HOSTS else self._placeholder("host", host)

    def _ip6(self, m: re.Match[str]) -> str:
        text = m.group(0)
        try:
            addr = ipaddress.IPv6Address(text)
        except ValueError:
            return text
        if addr.is_loopback or addr.is_unspecified:
            return text
        return self._placeholder("ip", text)

    def _url_host(self, m: re.Match[str]) -> str:
        host = m.group(1)
        if host in _KEEP_HOSTS or _IPV4.fullmatch(host) or host.startswith("host-"):
            return m.group(0)
        return m.group(0)[: m.start(1) - m.start(0)] + self._placeholder("host", host)

    def _ip(self, m: re.Match[str]) -> str:
        ip = m.group(0)
        return ip if ip in _KEEP_IPS else self._placeholder("ip", ip)

    def data(self, obj: _T) -> _T:
        """Redact every string inside a JSON-like value (keys too, for paths used as keys); the
        value comes back with the same shape, so its type does too."""
        return cast(_T, self._data(obj))

    def _data(self, obj: object) -> object:
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, list):
            return [self._data(v) for v in obj]
        if isinstance(obj, dict):
            # A parsed JSON-valued flag ({"auth_token": "…"}): the key names a credential.
            return {
                self.text(k) if isinstance(k, str) else k: (
                    SECRET
                    if isinstance(k, str) and isinstance(v, str) and v and _SECRET_KEY.search(k)
                    else self._data(v)
                )
                for k, v in obj.items()
            }
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
