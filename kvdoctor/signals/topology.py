"""Where this server stands among its copies: the replicas behind one router and its policy.

Every replica (and every data-parallel engine) keeps its own prefix cache, so a router that picks
a server without regard to what it holds sends a conversation's next turn, or another user's
request for the same document, to a server that never saw the prefix. One server's metrics
cannot show its siblings; the operator can: ``--replicas N --routing POLICY`` at capture or at
replay, kept in the manifest. Older bundles often say it in their free-text notes ("engine 2 of
4 behind vllm-router --policy round_robin"); those words are read as a fallback, and the signal
quotes the words it read, so a reader can check them.
"""

from __future__ import annotations

import re

from kvdoctor.bundle.model import Bundle
from kvdoctor.lazyre import LazyPattern
from kvdoctor.signals.common import Out
from kvdoctor.vocab import Routing

_NUMBER_WORDS = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
}
_COPY = r"(?:engine|replica|rank|worker|pod|instance|server|node)"
# "engine 2 of 4", "DP rank 3 of 8", "engine rollout-0 of 4": this one's index among N.
_INDEX_OF = LazyPattern(_COPY + r"s?\b[^.;,()\n]{0,12}?\b\d+\s+of\s+(\d+)\b", re.I)
# "one of 8 identical vLLM replicas", "one of four engines".
_ONE_OF = LazyPattern(
    r"\bone\s+of\s+(?:the\s+)?(\d+|"
    + "|".join(_NUMBER_WORDS)
    + r")\s+(?:[\w-]+\s+){0,3}?"
    + _COPY
    + r"s\b",
    re.I,
)
# Router policies, most specific first: the first that matches is the policy.
_POLICIES: tuple[tuple[Routing, LazyPattern], ...] = (
    (
        "prefix-aware",
        LazyPattern(
            r"cache[-_ ]aware|prefix[-_ ]?(?:hash|aware)|kv[-_ ]aware|session[-_ ]affinity|"
            r"sticky[-_ ]session",
            re.I,
        ),
    ),
    ("consistent-hash", LazyPattern(r"consistent[-_ ]hash", re.I)),
    ("round-robin", LazyPattern(r"round[-_ ]?robin", re.I)),
    (
        "least-loaded",
        LazyPattern(
            r"least[-_ ]?(?:loaded|load|request)|shortest[-_ ]queue|power[-_ ]of[-_ ]two", re.I
        ),
    ),
    (
        "random",
        LazyPattern(r"kube-proxy|clusterip|kubernetes service|random(?:ly)?[-_ ]rout", re.I),
    ),
)


def replicas_in_notes(notes: str) -> tuple[int, str] | None:
    """The largest count of copies the notes name ("engine 2 of 4", "one of 8 replicas"),
    with the words it came from; None when they name none."""
    found: list[tuple[int, str]] = []
    for m in _INDEX_OF.finditer(notes):
        found.append((int(m.group(1)), m.group(0)))
    for m in _ONE_OF.finditer(notes):
        word = m.group(1).lower()
        found.append((int(word) if word.isdigit() else _NUMBER_WORDS[word], m.group(0)))
    found = [f for f in found if f[0] >= 2]
    if not found:
        return None
    return max(found, key=lambda f: f[0])


def routing_in_notes(notes: str) -> tuple[Routing, str] | None:
    """The router policy the notes name, with the words it came from."""
    for policy, pattern in _POLICIES:
        m = pattern.search(notes)
        if m is not None:
            return policy, m.group(0)
    return None


def topology(out: Out, bundle: Bundle) -> None:
    """``replicas`` and ``routing_policy``: the option kept in the manifest, else the notes."""
    m = bundle.manifest
    _stated(out, "replicas", m.replicas, replicas_in_notes(m.notes), "--replicas", "replicas")
    _stated(out, "routing_policy", m.routing, routing_in_notes(m.notes), "--routing", "policy")


def _stated(
    out: Out,
    name: str,
    given: int | str | None,
    in_notes: tuple[int | str, str] | None,
    flag: str,
    what: str,
) -> None:
    if given is not None:
        out.set(name, given, f"{flag} (kept in the bundle's manifest)")
    elif in_notes is not None:
        out.set(name, in_notes[0], f'the bundle\'s notes: "{in_notes[1]}"')
    else:
        out.set(name, None, reason=f"no {flag} given and the notes name no {what}")
