"""What a user's Cypher may do: read the catalog graph, nothing else.

Decided before the query runs, in two steps. :func:`refusal` reads the text: no ``LOAD CSV``
(files and URLs), ``TERMINATE`` (others' transactions) or ``USE`` (another database). The text is searched with its string literals, quoted names and
comments left out, so a name or a string that holds these words is not refused. Then
:func:`plan_refusal` reads Neo4j's plan of the query (``EXPLAIN``, which runs nothing): its type
must be read-only, every procedure it calls one of :data:`READ_PROCEDURES` (a READ transaction
stops graph writes, not DBMS procedures such as ``dbms.killConnection`` or ``db.stats.collect``),
and every ``SHOW`` one of indexes or constraints (settings and transactions are the server's
and other clients')."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

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
# the procedures that read the catalog graph: its labels, types, keys, schema and full-text indexes
READ_PROCEDURES = frozenset({
    "db.labels", "db.relationshipTypes", "db.propertyKeys",
    "db.schema.visualization", "db.schema.nodeTypeProperties", "db.schema.relTypeProperties",
    "db.index.fulltext.queryNodes", "db.index.fulltext.queryRelationships", "db.index.fulltext.listAvailableAnalyzers",
})  # fmt: skip
SHOWN = frozenset({"ShowIndexes", "ShowConstraints"})  # the SHOW commands that read the catalog graph's schema
ONLY = "the cypher tool runs read-only queries on the catalog graph only"


class QueryRefused(CatalogError):
    """A query that would change the graph or the server, or read outside the graph."""


def bare(text: str, literal: str = " ") -> str:
    """``text`` with its strings, quoted names and comments left out (each string and name
    becomes ``literal``)."""
    return _SKIPPED.sub(lambda m: " " if m.group().startswith("/") else literal, text)


def refusal(text: str) -> str:
    """Why ``text`` is refused before Neo4j sees it (empty: it may be planned)."""
    plain = bare(text)
    for pattern, why in _REFUSED:
        if pattern.search(plain):
            return f"{why}; {ONLY}"
    return ""


def plan_refusal(query_type: str | None, plan: dict[str, Any] | None) -> str:
    """Why the query Neo4j planned as ``plan`` (of type ``query_type``) is refused (empty: it
    reads the catalog graph only)."""
    for operator, details in _operators(plan):
        if operator == "ProcedureCall":
            name = details.split("(", 1)[0].strip().strip("`")
            if name not in READ_PROCEDURES:
                return (f"CALL {name}: not a procedure that reads the catalog graph (allowed: {', '.join(sorted(READ_PROCEDURES))}); "
                        f"{ONLY}")  # fmt: skip
        elif operator.startswith("Show") and operator not in SHOWN:
            what = re.sub(r"(?<!^)(?=[A-Z])", " ", operator[4:]).upper()
            return f"SHOW {what} reads the server or other clients, not the catalog graph (SHOW INDEXES and SHOW CONSTRAINTS may run); {ONLY}"
        elif operator in ("TerminateTransactions", "LoadCSV"):
            return f"{operator} does not read the catalog graph; {ONLY}"
    if query_type not in (None, "r"):
        return f"the query is of type {query_type!r} (it writes to the graph or the schema), not read-only; {ONLY}"
    return ""


def _operators(plan: dict[str, Any] | None) -> Iterator[tuple[str, str]]:
    """Every operator of a plan: (its type without the ``@database`` tail, its details)."""
    if not plan:
        return
    yield plan.get("operatorType", "").split("@", 1)[0], str(plan.get("args", {}).get("Details", ""))
    for child in plan.get("children", ()):
        yield from _operators(child)
