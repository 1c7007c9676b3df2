"""Map the relations sqlglot finds in SQL back to dbt unique ids, and know their columns.

A compiled model says ``"db"."schema"."orders"``; the graph must say
``model.shop.orders``. Ephemeral models appear as ``__dbt__cte__<name>`` CTEs.
"""

from __future__ import annotations

import re
import weakref
from collections import defaultdict

from catalog.extract import DbtNode, DbtProject

EPHEMERAL_PREFIX = "__dbt__cte__"
_QUOTED = re.compile(r"'((?:[^']|'')*)'")


def external_path(relation_name: str | None, meta: dict | None = None, name: str = "") -> str | None:
    """The file a dbt-duckdb external source reads: its relation name is a quoted path
    (``'data/x.csv'``) or a reader call (``read_parquet('s3://b/x.parquet')``), or its meta
    gives ``external_location`` (``{name}`` is the source table's name)."""
    location = (meta or {}).get("external_location")
    if isinstance(location, str) and location.strip():
        try:
            location = location.format(name=name, identifier=name)
        except (KeyError, IndexError, ValueError):
            pass
        found = _QUOTED.search(location)
        return normal_path(found.group(1) if found else location)
    text = (relation_name or "").strip()
    if text.startswith("'") or "(" in text:
        found = _QUOTED.search(text)
        if found:
            return normal_path(found.group(1))
    return None


def normal_path(path: str) -> str:
    path = path.replace("''", "'").strip()
    return path[2:] if path.startswith("./") else path


# one piece of a relation name: a quoted part (to its closing quote, or the end), a run of
# unquoted characters, or a dot between parts
_RELATION_PIECE = re.compile(r'"([^"]*)"?|`([^`]*)`?|\[([^\]]*)\]?|([^."`\[]+)|(\.)')


def split_relation(name: str) -> tuple[str, ...]:
    """``"DB"."sch".tbl`` -> ``("db", "sch", "tbl")``; quotes of ", ` and [] removed (a dot
    inside them is part of the name; an unclosed one runs to the end), lower-cased."""
    parts: list[str] = []
    part = ""
    for double, back, bracket, bare, dot in _RELATION_PIECE.findall(name.strip()):
        if dot:
            parts.append(part)
            part = ""
        else:
            part += double or back or bracket or bare
    parts.append(part)
    return tuple(p.strip().lower() for p in parts if p.strip() != "")


_LAST_INDEX: list[tuple[weakref.ReferenceType[DbtProject], RelationIndex] | None] = [None]


class RelationIndex:
    """Finds the dbt node a table reference points at, by 3-, 2- or 1-part name."""

    def __init__(self, nodes: list[DbtNode]):
        self._full: dict[tuple[str, ...], str] = {}
        self._by_schema: dict[tuple[str, str], set[str]] = defaultdict(set)
        self._by_name: dict[str, set[str]] = defaultdict(set)
        self._ephemeral: dict[str, str] = {}
        self._paths: dict[str, str] = {}  # external file -> source unique id
        for node in nodes:
            if node.resource_type not in ("model", "seed", "snapshot", "source"):
                continue
            if node.is_ephemeral:
                self._ephemeral[EPHEMERAL_PREFIX + node.name.lower()] = node.unique_id
                continue
            if node.resource_type == "source":
                path = external_path(node.relation_name, node.meta, node.identifier or node.name)
                if path is not None:
                    self._paths[path] = node.unique_id
                    continue
            if node.relation_name:
                parts = split_relation(node.relation_name)
            else:
                parts = tuple(p.lower() for p in (node.database, node.schema_name, node.identifier) if p)
            if not parts:
                continue
            self._full[parts] = node.unique_id
            if len(parts) >= 2:
                self._by_schema[parts[-2:]].add(node.unique_id)  # type: ignore[index]
            self._by_name[parts[-1]].add(node.unique_id)
        self._ephemeral_ids = frozenset(self._ephemeral.values())

    @classmethod
    def for_project(cls, project: DbtProject) -> "RelationIndex":
        """The index of ``project``'s nodes; the last one made is kept while its project lives
        (a check's base is analyzed a few models at a time, each time against the whole project)."""
        last = _LAST_INDEX[0]
        if last is not None and last[0]() is project:
            return last[1]
        index = cls(list(project.nodes.values()))
        _LAST_INDEX[0] = (weakref.ref(project), index)
        return index

    def ephemeral(self, name: str) -> str | None:
        return self._ephemeral.get(name.lower())

    def is_ephemeral(self, unique_id: str) -> bool:
        return unique_id in self._ephemeral_ids


    def lookup_path(self, path: str) -> str | None:
        """The external source that reads the file ``path``, if one does."""
        return self._paths.get(normal_path(path)) if self._paths else None

    def lookup(self, parts: tuple[str, ...]) -> str | None:
        """``parts`` are lower-case catalog/db/name, left parts optional."""
        if not parts:
            return None
        if len(parts) == 1 and parts[0] in self._ephemeral:
            return self._ephemeral[parts[0]]
        hit = self._full.get(parts)
        if hit:
            return hit
        if len(parts) >= 2:
            cands = self._by_schema.get(parts[-2:])  # type: ignore[arg-type]
        else:
            cands = self._by_name.get(parts[-1])
        if cands and len(cands) == 1:
            return next(iter(cands))
        return None
