"""What a user's Cypher may not do even in a READ transaction: read files or URLs (``LOAD
CSV``), end other users' transactions (``TERMINATE``), or switch to another database
(``USE``). The text is searched with its string literals, quoted names and comments left
out, so a name or a string that holds these words is not refused."""

from __future__ import annotations

import re

from catalog.errors import CatalogError

_SKIPPED = re.compile(
    r"'(?:[^'\\]|\\.)*'"  # 'string'
    r'|"(?:[^"\\]|\\.)*"'  # "string"
    r"|`(?:[^`]|``)*`"  # `quoted name`
    r"|//[^\n]*"  # line comment
    r"|/\*.*?\*/",  # block comment
    re.DOTALL,
)
_REFUSED = (
    (re.compile(r"\bLOAD\s+CSV\b", re.IGNORECASE), "LOAD CSV reads files and URLs outside the graph"),
    (re.compile(r"\bTERMINATE\b", re.IGNORECASE), "TERMINATE ends other users' transactions"),
    (re.compile(r"^\s*USE\b|\bCALL\s*\{\s*USE\b|\bUNION\b\s*USE\b", re.IGNORECASE), "USE reads another database than the catalog's"),
)


class QueryRefused(CatalogError):
    """A query that would change the graph or the server, or read outside the graph."""


def refusal(text: str) -> str:
    """Why ``text`` is refused (empty: it may run, read-only)."""
    bare = _SKIPPED.sub(" ", text)
    for pattern, why in _REFUSED:
        if pattern.search(bare):
            return f"{why}; the cypher tool runs read-only queries on the catalog graph only"
    return ""
