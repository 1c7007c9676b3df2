"""LookML (read with the ``lkml`` package): views, explores and ``.dashboard.lookml`` dashboards.

- A view reads the dbt node its ``sql_table_name`` names (matched like a table in a model's
  SQL: by full relation name, schema and name, or a name only one node has), or its
  ``derived_table: sql``, analyzed like a model (its columns are the SQL's output columns,
  each reading the columns upstream of it).
- Its dimensions, measures and dimension groups (one field per timeframe, ``created_date``) are
  fields with LookML's own id ``view.field``. In their ``sql``, ``${TABLE}.col`` is a column of
  the view's table, ``${field}`` a field of the same view, ``${view.field}`` a field of another; a
  dimension without ``sql`` is ``${TABLE}.<name>``; a ``count`` measure without ``sql`` counts the
  view's primary key; a measure's ``filters`` read the fields they name.
- An explore names its base view and joins (``from:`` a view under another name).
- A dashboard's elements are charts showing their ``fields``, the fields their ``filters``,
  ``sorts``, ``pivots`` and ``listen`` name, and their ``dynamic_fields`` (table calculations,
  fields of the element); the dashboard holds its elements and shows the fields of its filters.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import lkml

from catalog.analyze.relations import split_relation
from catalog.bi_records import BIChart, BIDashboard, BIDefinitions, BIField, Read, chart_uid, column_target, dashboard_uid, field_uid
from catalog.bi.sqlcolumns import sql_columns
from catalog.bi.sqlrefs import sql_refs
from catalog.bi.tables import Tables
from catalog.bi.yamlfile import line_of, read_yaml
from catalog.errors import ArtifactError
from catalog.extract import DbtProject

TOOL = "looker"
DEFAULT_TIMEFRAMES = ("raw", "time", "date", "week", "month", "quarter", "year")
_CONSTANT = re.compile(r"@\{[^}]*\}\.?")


class _View:
    def __init__(self, doc: dict[str, Any], file: str, text: str):
        self.name = str(doc["name"])
        self.doc = doc
        self.file = file
        self.text = text
        self.node: str | None = None  # the dbt node it reads
        self.derived: dict[str, tuple[tuple[str, str], ...]] = {}  # derived table column -> (node, column) it reads
        self.reason = ""  # why its table is not known
        self.fields: dict[str, dict[str, Any]] = {}  # field name -> its LookML, with _kind and _sql
        for d in doc.get("dimensions") or []:
            self.fields[d["name"]] = {**d, "_kind": "dimension", "_sql": d.get("sql") or f"${{TABLE}}.{d['name']}"}
        for d in doc.get("filters") or []:
            if d.get("sql"):
                self.fields[d["name"]] = {**d, "_kind": "filter", "_sql": d["sql"]}
        for g in doc.get("dimension_groups") or []:
            if g.get("type") == "duration":
                sql = f"{g.get('sql_start', '')} - {g.get('sql_end', '')}"
                frames = [f"{i}s" for i in g.get("intervals") or ("day",)]
                names = [f"{f}_{g['name']}" for f in frames]
            else:
                sql = g.get("sql") or f"${{TABLE}}.{g['name']}"
                names = [f"{g['name']}_{tf}" for tf in g.get("timeframes") or DEFAULT_TIMEFRAMES]
            for n in names:
                self.fields[n] = {**g, "name": n, "_kind": "dimension_group", "_sql": sql, "_group": g["name"]}
        for m in doc.get("measures") or []:
            self.fields[m["name"]] = {**m, "_kind": "measure", "_sql": m.get("sql") or ""}

    def line(self, kind: str, name: str) -> int | None:
        """The line of ``kind: name`` in the view's file (after the view's own line)."""
        start = self.text.find(f"view: {self.name}")
        m = re.compile(rf"\b{kind}:\s*{re.escape(name)}\b").search(self.text, max(start, 0))
        return self.text.count("\n", 0, m.start()) + 1 if m else None

    def primary_key(self) -> str | None:
        return next((n for n, f in self.fields.items() if f["_kind"] == "dimension" and f.get("primary_key") == "yes"), None)


class LookML:
    def __init__(self, project: DbtProject, files: list[tuple[Path, str]]):
        self.project = project
        self.tables = Tables(project)
        self.relations = self.tables.relations
        self.views: dict[str, _View] = {}
        self.explores: dict[str, dict[str, str]] = {}  # explore -> {name in it: view}
        dashboards: list[tuple[Path, str]] = []
        for path, shown in files:
            if path.name.endswith(".dashboard.lookml"):
                dashboards.append((path, shown))
                continue
            text = path.read_text(encoding="utf-8")
            try:
                doc = lkml.load(text)
            except SyntaxError as e:
                raise ArtifactError(f"{path}: not valid LookML ({str(e).splitlines()[0] if str(e) else 'syntax error'})") from None
            for v in doc.get("views") or []:
                if v.get("name") and v["name"] not in self.views:
                    self.views[str(v["name"])] = _View(v, shown, text)
            for e in doc.get("explores") or []:
                if e.get("name"):
                    base = str(e.get("from") or e.get("view_name") or e["name"])
                    names = {str(e.get("view_name") or e["name"]): base}
                    names |= {str(j["name"]): str(j.get("from") or j["name"]) for j in e.get("joins") or [] if j.get("name")}
                    self.explores[str(e["name"])] = names
        for view in self.views.values():
            self._table(view)
        self.fields: dict[str, BIField] = {}
        for view in self.views.values():
            for name in view.fields:
                self.field(view.name, name)
        self.charts: dict[str, BIChart] = {}
        self.dashboards: dict[str, BIDashboard] = {}
        for path, shown in dashboards:
            self._dashboards(path, shown)

    # ------------------------------------------------------------------ views
    def _table(self, view: _View) -> None:
        derived = view.doc.get("derived_table") or {}
        if derived.get("sql"):
            self._derived(view, str(derived["sql"]))
            return
        table = view.doc.get("sql_table_name")
        if not table:
            view.reason = f"view {view.name} has neither sql_table_name nor derived_table sql"
            return
        parts = split_relation(_CONSTANT.sub("", str(table)))
        uid = self.tables.node(parts)
        view.node = uid
        if uid is None:
            view.reason = f"view {view.name}: table {str(table).strip()} is no model, seed, snapshot or source of the project"

    def _derived(self, view: _View, sql: str) -> None:
        """A derived table's columns, each with the columns it reads, as the analyzer finds them."""
        text = _CONSTANT.sub("", re.sub(r"\$\{[^}]*\}", "NULL", sql))
        view.derived, problem = sql_columns(self.project, self.relations, view.name, text)
        if problem:
            view.reason = f"view {view.name}: derived_table sql not analyzed ({problem})"

    def field(self, view_name: str, name: str) -> str:
        """The unique id of field ``view.name``, made with what it reads the first time."""
        uid = field_uid(TOOL, f"{view_name}.{name}")
        if uid in self.fields:
            return uid
        view = self.views.get(view_name)
        spec = view.fields.get(name) if view else None
        if view is None or spec is None:
            reason = f"no view {view_name!r}" if view is None else f"no field {name!r} in view {view_name}"
            self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=f"{view_name}.{name}", name=name, kind="unknown", table=view_name,
                                       reads=(Read(kind="missing", text=f"{view_name}.{name}", reason=reason),))  # fmt: skip
            return uid
        kind = "dimension_group" if spec["_kind"] == "dimension_group" else spec["_kind"]
        line = view.line("dimension_group", spec["_group"]) if "_group" in spec else view.line(spec["_kind"], name)
        sql = spec["_sql"]
        if kind == "measure" and spec.get("type") == "count" and not sql and view.primary_key():
            sql = f"count(${{{view.primary_key()}}})"
        elif kind == "measure" and spec.get("type") not in (None, "number") and sql:
            sql = f"{spec['type']}({sql})"
        self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=f"{view_name}.{name}", name=name, label=str(spec.get("label") or ""),
                                   kind=kind, table=view_name, node=view.node, sql=sql, file=view.file, line=line)  # fmt: skip
        self.fields[uid] = self.fields[uid].model_copy(update={"reads": self._reads(view, name, spec)})
        return uid

    def _reads(self, view: _View, name: str, spec: dict[str, Any]) -> tuple[Read, ...]:
        out: list[Read] = []
        sql = spec["_sql"]
        if not sql and spec["_kind"] == "measure" and spec.get("type") == "count":
            pk = view.primary_key()
            if pk:
                out.append(Read(kind="field", target=self.field(view.name, pk), text=pk))
        refs = sql_refs(sql, self.project.dialect) if sql else None
        for col in (refs.table_columns + refs.bare_columns) if refs else ():
            out += self._column(view, col)
        for ref in refs.fields if refs else ():
            other, _, field = ref.rpartition(".")
            out.append(Read(kind="field", target=self.field(other or view.name, field), text=f"${{{ref}}}"))
        for f in _filter_fields(spec):
            other, _, field = f.rpartition(".")
            out.append(Read(kind="field", target=self.field(other or view.name, field), text=f))
        if refs is not None and refs.error:
            out.append(Read(kind="missing", text=sql, reason=refs.error))
        return tuple(dict.fromkeys(out))

    def _column(self, view: _View, column: str) -> list[Read]:
        if view.reason:
            return [Read(kind="missing", text=f"${{TABLE}}.{column}", reason=view.reason)]
        if view.node is not None:
            return [Read(kind="column", target=column_target(view.node, column), text=f"${{TABLE}}.{column}")]
        sources = view.derived.get(column)
        if sources is None:
            return [Read(kind="missing", text=f"${{TABLE}}.{column}", reason=f"view {view.name}: its derived table has no column {column}")]
        return [Read(kind="column", target=column_target(n, c), text=f"${{TABLE}}.{column}") for n, c in sources]

    # ------------------------------------------------------------------ dashboards
    def _dashboards(self, path: Path, shown: str) -> None:
        doc = read_yaml(path)
        for board in doc if isinstance(doc, list) else []:
            if not isinstance(board, dict) or not board.get("dashboard"):
                raise ArtifactError(f"{path}: line {line_of(board) or 1}: a dashboard needs `dashboard: NAME`")
            name = str(board["dashboard"])
            holds: list[str] = []
            for el in board.get("elements") or []:
                if isinstance(el, dict) and el.get("explore") and el.get("fields"):
                    chart = self._element(name, el, shown)
                    self.charts[chart.unique_id] = chart
                    holds.append(chart.unique_id)
            shows = {}
            for f in board.get("filters") or []:
                if isinstance(f, dict) and f.get("field"):
                    shows.setdefault(self._named(str(f.get("explore") or ""), str(f["field"])), "filter")
            uid = dashboard_uid(TOOL, name)
            self.dashboards[uid] = BIDashboard(unique_id=uid, tool=TOOL, tool_id=name, name=str(board.get("title") or name), file=shown,
                                               line=line_of(board), holds=tuple(holds), shows=tuple(sorted(shows.items())))  # fmt: skip

    def _named(self, explore: str, field_id: str) -> str:
        """The field ``view.field`` names in ``explore`` (a join's name stands for its view)."""
        view, _, name = field_id.partition(".")
        if explore and explore not in self.explores:
            uid = field_uid(TOOL, field_id)
            self.fields.setdefault(uid, BIField(unique_id=uid, tool=TOOL, tool_id=field_id, name=name, kind="unknown",
                                                reads=(Read(kind="missing", text=field_id, reason=f"no explore {explore!r}"),)))  # fmt: skip
            return uid
        return self.field(self.explores.get(explore, {}).get(view, view), name)

    def _element(self, board: str, el: dict[str, Any], file: str) -> BIChart:
        explore = str(el["explore"])
        tool_id = f"{board}.{el.get('name') or el.get('title')}"
        own: dict[str, str] = {}
        for dyn in el.get("dynamic_fields") or []:
            calc = dyn.get("table_calculation") or dyn.get("measure") or dyn.get("dimension") if isinstance(dyn, dict) else None
            if calc:
                uid = field_uid(TOOL, f"{tool_id}.{calc}")
                sql = str(dyn.get("expression") or dyn.get("sql") or "")
                reads = [Read(kind="field", target=self._named(explore, r), text=f"${{{r}}}") for r in sql_refs(sql, None).fields if "." in r]
                if dyn.get("based_on"):
                    reads.append(Read(kind="field", target=self._named(explore, str(dyn["based_on"])), text=str(dyn["based_on"])))
                self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=str(calc), name=str(calc), kind="table_calculation", table=explore,
                                           sql=sql, file=file, line=line_of(dyn),
                                           reads=tuple(dict.fromkeys(reads)) or (Read(kind="missing", text=sql, reason=f"{calc} names no field"),))  # fmt: skip
                own[str(calc)] = uid
        shows: dict[str, str] = {}

        def show(fid: str, role: str) -> None:
            shows.setdefault(own.get(fid) or self._named(explore, fid), role)

        for f in el.get("fields") or []:
            show(str(f), "field")
        for f in (el.get("filters") or {}) if isinstance(el.get("filters"), dict) else {}:
            show(str(f), "filter")
        for f in el.get("pivots") or []:
            show(str(f), "pivot")
        for s in el.get("sorts") or []:
            show(str(s).split()[0], "sort")
        for f in (el.get("listen") or {}).values() if isinstance(el.get("listen"), dict) else ():
            show(str(f), "filter")
        return BIChart(unique_id=chart_uid(TOOL, tool_id), tool=TOOL, tool_id=tool_id, name=str(el.get("title") or el.get("name") or tool_id),
                       kind="tile", explore=explore, file=file, line=line_of(el), shows=tuple(sorted(shows.items())))  # fmt: skip


def _filter_fields(spec: dict[str, Any]) -> list[str]:
    """The fields a measure's ``filters`` name: ``[status: "x"]`` (lkml's ``filters__all``) or ``[{field, value}]``."""
    out: list[str] = []
    for group in spec.get("filters__all") or []:
        for item in group if isinstance(group, list) else [group]:
            out += [str(k) for k in item] if isinstance(item, dict) else []
    for item in spec.get("filters") or []:
        if isinstance(item, dict) and item.get("field"):
            out.append(str(item["field"]))
    return out


def read_lookml(project: DbtProject, files: list[tuple[Path, str]]) -> BIDefinitions:
    """The fields, charts and dashboards of LookML ``files`` ((path, as stored))."""
    tool = LookML(project, files)
    return BIDefinitions(fields=tool.fields, charts=tool.charts, dashboards=tool.dashboards)
