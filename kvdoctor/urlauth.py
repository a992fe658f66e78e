"""Credentials given inside a URL, under one rule for every command that takes a server URL.

Rule (README, "On call"): ``user:password@`` in a URL is sent as ``Authorization: Basic`` and
refused together with an explicit ``--header 'Authorization: …'``; a query string is refused.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit, urlunsplit

from kvdoctor.errors import KvdoctorError


def url_credentials(url: str, headers: Mapping[str, str], flag: str) -> tuple[str, dict[str, str]]:
    """``url`` without ``user:password@`` and the headers to send, under one documented rule.

    Userinfo becomes an explicit ``Authorization: Basic`` header, so every later step sees a
    clean URL and one header the redactor knows as a secret (a URL travels into names, error
    messages and bundles; a header never does). Userinfo together with an explicit
    ``Authorization`` header is refused: one of them would be dropped silently. A query string
    is refused: it usually carries a token, and kvdoctor would have to leave it out of every
    name, message and file it writes; a header does the same job without that risk. Errors
    never echo the URL, which holds the credential.
    """
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
            f"{flag}: the URL carries user:password@ and --header gives Authorization too; "
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
