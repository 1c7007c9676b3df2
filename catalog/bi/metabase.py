"""Metabase: questions (cards) and dashboards as its API returns them (``GET /api/card/:id``,
``GET /api/dashboard/:id``), with the table metadata that names its field ids
(``GET /api/database/:id/metadata``), saved as JSON files in a folder.

- A Metabase table is the dbt model, seed, snapshot or source whose relation it is (schema and
  name, or a name only one node has). Each field a card or dashboard names is a BI field with
  Metabase's own field id (``84``), its column of that node, as it is.
- A query card (MBQL, the legacy form ``{"type": "query", "query": ...}`` or the staged one of
  MBQL 5) shows the columns of its result (``result_metadata``; without it its ``fields``,
  ``breakout`` and ``aggregation``, else every field of its source table), and the fields its
  filters, joins and sorts name. Its aggregations and custom expressions are fields of the card
  (``<card id>.<name>`` in the key), reading the fields they name. A column of a card built on
  another card (``card__27``, ``source-card``) is that card's column of the same name.
- A native card's SQL (its ``{{variables}}`` read as NULL, its ``[[optional]]`` clauses kept) is
  analyzed like a model, its tables matched to the project's relations: each output column is a
  field of the card (an expression without an alias named as ``result_metadata`` records it)
  reading the columns upstream of it; the fields its field filters
  (``template-tags`` of type dimension) name are shown as filters.
- A dashboard holds the cards of its dashcards (and their ``series``) and shows the fields its
  parameters are mapped to. A dashcard's card that no card file defines is read from the copy the
  dashboard carries, else kept as an unresolved chart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from catalog.bi_records import BIChart, BIDashboard, BIDefinitions, BIField, Read, chart_uid, column_target, dashboard_uid, field_uid
from catalog.bi.sqlcolumns import sql_lineage
from catalog.bi.tables import Tables
from catalog.errors import ArtifactError
from catalog.extract import DbtProject

TOOL = "metabase"
# a query's clauses and the role of the fields they name
ROLES = (("fields", "column"), ("breakout", "dimension"), ("aggregation", "metric"), ("expressions", "expression"),
         ("filter", "filter"), ("filters", "filter"), ("joins", "join"), ("order-by", "sort"))  # fmt: skip
_VARIABLE = re.compile(r"\{\{[^}]*\}\}")
_OPTIONAL = re.compile(r"\[\[|\]\]")
_UNNAMED = re.compile(r"_col_\d+")  # sqlglot's name for an output column without one


def read_json(path: Path) -> tuple[str, Any]:
    """The text of ``path`` and its JSON document; one error naming the file when it does not parse."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ArtifactError(f"{path}: cannot be read ({e})") from None
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as e:
        raise ArtifactError(f"{path}: line {e.lineno}: not valid JSON ({e.msg})") from None


def kind_of(doc: Any) -> str | None:
    """``card``, ``dashboard`` or ``metadata`` (a database's tables and fields); None otherwise."""
    if not isinstance(doc, dict) or not isinstance(doc.get("id"), int) or isinstance(doc["id"], bool):
        return None
    if isinstance(doc.get("dataset_query"), dict):
        return "card"
    if isinstance(doc.get("dashcards"), list) or isinstance(doc.get("ordered_cards"), list):
        return "dashboard"
    if isinstance(doc.get("tables"), list) and "engine" in doc:
        return "metadata"
    return None


def _refs(clause: Any) -> Iterator[int | str]:
    """The fields a clause names, at any depth: a field id (``["field", 84, opts]``, MBQL 5's
    ``["field", opts, 84]``) or a column name of the source card (``["field", "count", opts]``)."""
    if isinstance(clause, dict):
        for value in clause.values():
            yield from _refs(value)
    elif isinstance(clause, list):
        if len(clause) >= 2 and clause[0] in ("field", "field-id"):
            ref = clause[2] if isinstance(clause[1], dict) and len(clause) > 2 else clause[1]
            if isinstance(ref, (int, str)) and not isinstance(ref, bool):
                yield ref
                return
        for value in clause:
            yield from _refs(value)


def _stages(query: dict[str, Any]) -> list[dict[str, Any]]:
    """An MBQL query's stages, innermost first: MBQL 5's ``stages``, or the legacy ``query`` and
    its nested ``source-query``."""
    if isinstance(query.get("stages"), list):
        return [s for s in query["stages"] if isinstance(s, dict)]
    out: list[dict[str, Any]] = []
    inner = query.get("query")
    while isinstance(inner, dict):
        out.insert(0, inner)
        inner = inner.get("source-query")
    return out


def _native_sql(query: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A native query's SQL and template tags."""
    if query.get("type") == "native" and isinstance(query.get("native"), dict):
        return str(query["native"].get("query") or ""), query["native"].get("template-tags") or {}
    for stage in _stages(query):
        if isinstance(stage.get("native"), str):
            return stage["native"], stage.get("template-tags") or {}
    return None


def _source(stage: dict[str, Any]) -> tuple[int | None, int | None]:
    """(source table id, source card id) of a stage."""
    table, card = stage.get("source-table"), stage.get("source-card")
    if isinstance(table, str) and table.startswith("card__") and table[6:].isdigit():
        return None, int(table[6:])
    return (table if isinstance(table, int) else None), (card if isinstance(card, int) else None)


def _line_of(text: str, value: str) -> int | None:
    """The line of a JSON file's text where the string ``value`` is written."""
    at = text.find(json.dumps(value, ensure_ascii=False)[:60])
    if at < 0:
        at = text.find(json.dumps(value)[:60])
    return text.count("\n", 0, at) + 1 if at >= 0 else None


class Metabase:
    def __init__(self, project: DbtProject, files: list[tuple[Path, str, str, Any]]):
        """``files``: (path, as stored, text, document) of each card, dashboard and metadata file."""
        self.project = project
        self.match = Tables(project)
        self.relations = self.match.relations
        self.tables: dict[int, tuple[str, str | None, str]] = {}  # id -> (schema.name, node, why no node)
        self.columns: dict[int, tuple[int, str, str]] = {}  # field id -> (table id, column, metadata file)
        self.cards: dict[int, tuple[dict[str, Any], str, str]] = {}  # card id -> (card, file, its text)
        boards: list[tuple[dict[str, Any], str]] = []
        for path, shown, text, doc in files:
            kind = kind_of(doc)
            if kind == "metadata":
                self._metadata(doc, shown)
            elif kind == "card":
                if doc["id"] in self.cards:
                    raise ArtifactError(f"{path}: card {doc['id']} is also the card of {self.cards[doc['id']][1]}")
                self.cards[doc["id"]] = (doc, shown, text)
            elif kind == "dashboard":
                boards.append((doc, shown))
        for doc, shown in boards:  # the copies dashboards carry of cards no file defines
            for dashcard in _dashcards(doc):
                card = dashcard.get("card")
                if kind_of(card) == "card" and card["id"] not in self.cards:
                    self.cards[card["id"]] = (card, shown, "")
        self.fields: dict[str, BIField] = {}
        self.charts: dict[str, BIChart] = {}
        self._columns_of: dict[int, dict[str, str]] = {}  # card id -> {result column: field uid}
        for cid in sorted(self.cards):
            self.card(cid)
        self.dashboards = {d.unique_id: d for d in (self.dashboard(doc, shown) for doc, shown in boards)}

    # ------------------------------------------------------------------ tables and fields
    def _metadata(self, doc: dict[str, Any], file: str) -> None:
        for table in doc["tables"]:  # a list: kind_of says so
            if not isinstance(table, dict) or not isinstance(table.get("id"), int):
                continue
            schema, name = table.get("schema"), str(table.get("name") or "")
            parts = tuple(p.lower() for p in (schema, name) if p)
            node = self.match.node(parts)
            shown = ".".join(p for p in (schema, name) if p)
            why = "" if node else f"Metabase table {shown} (id {table['id']}) is no model, seed, snapshot or source of the project"
            self.tables[table["id"]] = (shown, node, why)
            for f in table.get("fields") if isinstance(table.get("fields"), list) else []:
                if isinstance(f, dict) and isinstance(f.get("id"), int) and f.get("name"):
                    self.columns[f["id"]] = (table["id"], str(f["name"]), file)

    def field(self, fid: int) -> str:
        """The unique id of Metabase field ``fid``, made the first time: its table's column."""
        uid = field_uid(TOOL, str(fid))
        if uid in self.fields:
            return uid
        if fid not in self.columns:
            reason = f"no field id {fid} in the Metabase metadata (database/ID/metadata.json) of the BI folders"
            self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=str(fid), name=str(fid), kind="unknown",
                                       reads=(Read(kind="missing", text=str(fid), reason=reason),))  # fmt: skip
            return uid
        table_id, column, file = self.columns[fid]
        table, node, why = self.tables[table_id]
        read = Read(kind="column", target=column_target(node, column), text=f"{table}.{column}") if node else Read(kind="missing", text=f"{table}.{column}", reason=why)
        self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=str(fid), name=column, kind="column", table=table, node=node,
                                   file=file, unchanged=True, reads=(read,))  # fmt: skip
        return uid

    def _own(self, cid: int, name: str, kind: str, sql: str, reads: tuple[Read, ...], file: str, line: int | None, unchanged: bool = False) -> str:
        """A field of card ``cid`` (an aggregation, an expression, a native column)."""
        uid = field_uid(TOOL, f"{cid}.{name}")
        self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=name, name=name, kind=kind, table=f"card {cid}", sql=sql, file=file, line=line,
                                   unchanged=unchanged, reads=reads or (Read(kind="missing", text=name, reason=f"{name} reads no column"),))  # fmt: skip
        return uid

    # ------------------------------------------------------------------ cards
    def card(self, cid: int, seen: tuple[int, ...] = ()) -> dict[str, str]:
        """Make card ``cid``'s chart (the first time) and return its result columns' fields."""
        if cid in self._columns_of:
            return self._columns_of[cid]
        if cid in seen or cid not in self.cards:
            return {}
        doc, file, text = self.cards[cid]
        query = doc["dataset_query"]
        native = _native_sql(query)
        columns, shows = self._native(cid, native, file, text) if native is not None else self._query(cid, query, file, (*seen, cid))
        self._columns_of[cid] = columns
        kind = "native_" if native is not None else ""
        self.charts[chart_uid(TOOL, str(cid))] = BIChart(
            unique_id=chart_uid(TOOL, str(cid)), tool=TOOL, tool_id=str(cid), name=str(doc.get("name") or cid),
            kind=f"{kind}{doc.get('type') or 'question'}", file=file, line=1 if text else None, shows=tuple(sorted(shows.items())),
        )  # fmt: skip
        return columns

    def _native(self, cid: int, native: tuple[str, dict[str, Any]], file: str, text: str) -> tuple[dict[str, str], dict[str, str]]:
        sql, tags = native
        line = _line_of(text, sql) if text else None
        found, problem = sql_lineage(self.project, self.relations, f"metabase_card_{cid}", _OPTIONAL.sub("", _VARIABLE.sub("NULL", sql)))
        recorded = [str(c.get("name") or "") for c in doc_result(self.cards[cid][0])]
        names = list(found)
        if len(recorded) == len(found):  # an expression without an alias: named as the warehouse named it
            names = [r if _UNNAMED.fullmatch(n) and r else n for n, r in zip(names, recorded)]
        columns: dict[str, str] = {}
        for column, (reads, expr, unchanged) in zip(names, found.values()):
            got = tuple(Read(kind="column", target=column_target(n, c), text=f"{n}.{c}") for n, c in reads)
            columns[column] = self._own(cid, column, "sql_column", expr, got, file, line, unchanged)
        shows = {uid: "column" for uid in columns.values()}
        if problem:
            reason = f"the card's SQL was not analyzed: {problem}"
            shows[self._own(cid, "sql", "unknown", sql, (Read(kind="missing", text=sql, reason=reason),), file, line)] = "column"
        for ref in _refs([t.get("dimension") for t in (tags.values() if isinstance(tags, dict) else []) if isinstance(t, dict)]):
            if isinstance(ref, int):
                shows.setdefault(self.field(ref), "filter")
        return columns, shows

    def _query(self, cid: int, query: dict[str, Any], file: str, seen: tuple[int, ...]) -> tuple[dict[str, str], dict[str, str]]:
        stages = _stages(query)
        first = stages[0] if stages else {}
        table, source_card = _source(first)
        upstream = self.card(source_card, seen) if source_card is not None else {}
        last = stages[-1] if stages else {}

        def named(ref: int | str) -> str:
            if isinstance(ref, int):
                return self.field(ref)
            if ref in upstream:
                return upstream[ref]
            where = f"card {source_card}" if source_card is not None else "its source table"
            return self._own(cid, ref, "unknown", "", (Read(kind="missing", text=ref, reason=f"{ref}: no column of {where}"),), file, None)

        def own(name: str, kind: str, clause: Any) -> str:
            reads = tuple(Read(kind="field", target=named(r), text=str(r)) for r in dict.fromkeys(_refs(clause)))
            return self._own(cid, name, kind, json.dumps(clause), reads, file, None)

        columns: dict[str, str] = {}
        aggregations = last.get("aggregation") if isinstance(last.get("aggregation"), list) else []
        expressions = last.get("expressions") or {}
        for col in doc_result(self.cards[cid][0]):
            ref = col.get("field_ref") if isinstance(col.get("field_ref"), list) and len(col["field_ref"]) > 1 else [None, None]
            name = str(col.get("name") or "")
            if ref[0] == "aggregation" and isinstance(ref[1], int) and ref[1] < len(aggregations):
                columns[name] = own(name, "aggregation", aggregations[ref[1]])
            elif ref[0] == "expression" and isinstance(expressions, dict) and isinstance(ref[1], str) and ref[1] in expressions:
                columns[name] = own(name, "expression", expressions[ref[1]])
            else:
                refs = list(_refs([ref])) or ([col["id"]] if isinstance(col.get("id"), int) else [])
                if refs:
                    columns[name] = named(refs[0])
        if not columns and not any(last.get(k) for k in ("fields", "breakout", "aggregation")) and table is not None:
            columns = {self.columns[f][1]: self.field(f) for f in sorted(self.columns) if self.columns[f][0] == table}
        if not columns and table is not None and table not in self.tables:
            reason = f"card {cid}: source table id {table} is in no Metabase metadata (database/ID/metadata.json) of the BI folders"
            columns[f"table {table}"] = self._own(cid, f"table {table}", "unknown", "", (Read(kind="missing", text=str(table), reason=reason),), file, None)
        shows = {uid: "column" for uid in columns.values()}
        for stage in stages:
            for key, role in ROLES:
                for ref in _refs(stage.get(key)):
                    shows.setdefault(named(ref), role)
        return columns, shows

    # ------------------------------------------------------------------ dashboards
    def dashboard(self, doc: dict[str, Any], file: str) -> BIDashboard:
        holds: list[str] = []
        shows: dict[str, str] = {}
        for dashcard in _dashcards(doc):
            series = dashcard.get("series") if isinstance(dashcard.get("series"), list) else []
            ids = [dashcard.get("card_id")] + [s.get("id") for s in series if isinstance(s, dict)]
            for cid in ids:
                if isinstance(cid, int):
                    holds.append(self._held(cid, file))
            for mapping in dashcard.get("parameter_mappings") if isinstance(dashcard.get("parameter_mappings"), list) else []:
                for ref in _refs(mapping.get("target") if isinstance(mapping, dict) else None):
                    if isinstance(ref, int):
                        shows.setdefault(self.field(ref), "filter")
        uid = dashboard_uid(TOOL, str(doc["id"]))
        return BIDashboard(unique_id=uid, tool=TOOL, tool_id=str(doc["id"]), name=str(doc.get("name") or doc["id"]), file=file, line=1,
                           holds=tuple(dict.fromkeys(holds)), shows=tuple(sorted(shows.items())))  # fmt: skip

    def _held(self, cid: int, file: str) -> str:
        uid = chart_uid(TOOL, str(cid))
        if uid not in self.charts:  # kept, unresolved: the dashboard still holds it
            self.charts[uid] = BIChart(unique_id=uid, tool=TOOL, tool_id=str(cid), name=str(cid), kind="unknown", file=file,
                                       reason=f"no card file of the BI folders defines card {cid}")  # fmt: skip
        return uid


def doc_result(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The columns of a card's result, as Metabase recorded them."""
    result = card.get("result_metadata")
    return [c for c in result if isinstance(c, dict)] if isinstance(result, list) else []


def _dashcards(board: dict[str, Any]) -> list[dict[str, Any]]:
    """A dashboard's cards (``ordered_cards`` before Metabase 47)."""
    cards = board.get("dashcards") if isinstance(board.get("dashcards"), list) else board.get("ordered_cards")
    return [c for c in cards if isinstance(c, dict)] if isinstance(cards, list) else []


def read_metabase(project: DbtProject, files: list[tuple[Path, str, str, Any]]) -> BIDefinitions:
    """The fields, charts and dashboards of Metabase's JSON ``files`` ((path, as stored, text, document))."""
    tool = Metabase(project, files)
    return BIDefinitions(fields=tool.fields, charts=tool.charts, dashboards=tool.dashboards)
