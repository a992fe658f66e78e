"""Credentials given inside a URL, under one rule for every command that takes a server URL.

Rule (README, "On call"): ``user:password@`` in a URL is sent as ``Authorization: Basic`` and
refused together with an explicit ``--header 'Authorization: …'``; a query string is refused.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit, urlunsplit

from kvdoctor.errors import KvdoctorError


def url_credentials(
    url: str, headers: Mapping[str, str], flag: str, header_flag: str = "--header"
) -> tuple[str, dict[str, str]]:
    """``url`` without ``user:password@`` and the headers to send, under one documented rule.

    Userinfo becomes an explicit ``Authorization: Basic`` header, so every later step sees a
    clean URL and one header the redactor knows as a secret (a URL travels into names, error
    messages and bundles; a header never does). Userinfo together with an explicit
    ``Authorization`` header is refused: one of them would be dropped silently. A query string
    is refused: it usually carries a token, and kvdoctor would have to leave it out of every
    name, message and file it writes; a header does the same job without that risk. Errors
    never echo the URL, which holds the credential.
    """
    check_header_values(headers, header_flag)
    try:
        parts = urlsplit(url.strip())
        user, password, host, port = parts.username, parts.password, parts.hostname, parts.port
    except ValueError:
        raise KvdoctorError(f"{flag}: not a valid URL (check the host and port)") from None
    if parts.query or parts.fragment:
        raise KvdoctorError(
            f"{flag}: the URL has a query string or fragment (?…/#…); kvdoctor does not send "
            "tokens in URLs: pass them with --header 'Authorization: Bearer …'"
        )
    out = dict(headers)
    if user is None and password is None:
        return url.strip(), out
    if any(name.lower() == "authorization" for name in out):
        raise KvdoctorError(
            f"{flag}: the URL carries user:password@ and {header_flag} gives Authorization too; "
            "use one of them"
        )
    netloc = host or ""
    if ":" in netloc:
        netloc = f"[{netloc}]"
    if port is not None:
        netloc += f":{port}"
    pair = f"{unquote(user or '')}:{unquote(password or '')}"
    out["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")), out


def server_url(
    url: str, headers: Mapping[str, str], flag: str, header_flag: str = "--header"
) -> tuple[str, dict[str, str]]:
    """:func:`url_credentials` for a server URL kvdoctor will call: http(s) with a host too."""
    clean, out = url_credentials(url, headers, flag, header_flag)
    try:
        parts = urlsplit(clean)
        _ = parts.port
    except ValueError:
        raise KvdoctorError(f"{flag}: not a valid URL (check the host and port)") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise KvdoctorError(f"{flag}: not an http(s) URL, e.g. http://host:8000")
    return clean, out


def origin(url: str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` of ``url``, the default port made explicit (RFC 6454)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ("", "", None)
    scheme = parts.scheme.lower()
    if port is None:
        port = {"http": 80, "https": 443}.get(scheme)
    return (scheme, (parts.hostname or "").lower(), port)


def same_origin(a: str, b: str) -> bool:
    """Whether a redirect from ``a`` to ``b`` stays on the server the user named.

    Every header kvdoctor sends (``--header``, the Basic pair of a URL) is meant for the server
    the user named; a redirect to another scheme, host or port is never followed with them.
    """
    oa = origin(a)
    return bool(oa[0]) and bool(oa[1]) and oa == origin(b)


def check_header_values(headers: Mapping[str, str], flag: str) -> None:
    """Refuse header values HTTP cannot carry, and headers kvdoctor must set itself.

    Non-ASCII and control characters would fail deep inside the HTTP client; framing headers
    (``Content-Length``, ``Transfer-Encoding``, ``Host``, ``Connection``) given by hand would
    break each request. The value is never echoed: it is usually a credential.
    """
    for name, value in headers.items():
        if name.lower() in _FRAMING:
            raise KvdoctorError(f"{flag} {name}: kvdoctor sets this header itself; leave it out")
        try:
            value.encode("ascii")
        except UnicodeEncodeError:
            raise KvdoctorError(
                f"{flag} {name}: the value has non-ASCII characters, which HTTP headers cannot "
                "carry (percent- or base64-encode it)"
            ) from None
        if any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in value):
            raise KvdoctorError(f"{flag} {name}: the value has control characters")


_FRAMING = frozenset(
    {"content-length", "transfer-encoding", "host", "connection", "upgrade", "te", "trailer"}
)
