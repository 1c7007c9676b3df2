"""Lightdash: the fields its dbt YAML ``meta`` defines, and its charts and dashboards as code.

Fields (read from the manifest's ``meta``, which merges ``meta:`` and ``config.meta:``; their
file and line from the schema YAML that writes them):

- a column's ``dimension`` (``sql`` overrides the column; a date or timestamp also gets one field
  per time interval, ``orders_order_date_month``), its ``metrics`` (reading the column's
  dimension, or their own ``sql``; ``filters`` read the dimensions they name) and its
  ``additional_dimensions``;
- a model's ``metrics`` (``type: number`` metrics built from other metrics) and the
  ``additional_dimensions`` of its ``explores``;
- any other column a chart or a field names: Lightdash makes every column a dimension.

A field's id is Lightdash's: ``<table>_<name>`` (``orders_total_order_amount``). In its SQL,
``${TABLE}.col`` is a column of its model, ``${name}`` a field of its table, ``${table.name}`` a
field of another (a joined model), a bare name a column of its model; ``${lightdash.*}`` and
``${ld.*}`` (parameters, user attributes) read no column.

Charts (``lightdash download`` YAML, ``metricQuery``): they show their dimensions and metrics,
the fields their filters and sorts name, their custom dimensions and table calculations (fields
of the chart, reading the fields they name). Dashboards hold the charts their tiles name
(``chartSlug``) and show the fields their filters name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catalog.analyze.relations import RelationIndex
from catalog.bi_records import BIChart, BIDashboard, BIField, Read, chart_uid, column_target, dashboard_uid, field_uid
from catalog.bi.sqlcolumns import sql_lineage
from catalog.bi.sqlrefs import sql_refs
from catalog.bi.yamlfile import Lined, line_of, read_yaml
from catalog.errors import ArtifactError
from catalog.extract import DbtNode, DbtProject

TOOL = "lightdash"
# the time intervals Lightdash gives a date or timestamp dimension unless it lists its own
DATE_INTERVALS = ("day", "week", "month", "quarter", "year")
TIMESTAMP_INTERVALS = ("raw", "day", "week", "month", "quarter", "year")
TRUNCATED = ("day", "week", "month", "quarter", "year")
_NO_COLUMN = ("lightdash.", "ld.")  # parameters and user attributes


@dataclass
class _Def:
    """A field before what it reads is resolved."""

    table: str
    node: DbtNode
    name: str
    kind: str  # dimension, metric, additional_dimension, interval
    sql: str  # as written; "" for a column's own dimension
    label: str = ""
    type: str = ""
    file: str = ""
    line: int | None = None
    column: str | None = None  # the column it belongs to
    filters: tuple[str, ...] = ()  # metric filters: the dimensions they name
    base: str = ""  # interval: the dimension it truncates
    aggregate: str = ""  # metric: sum, count_distinct, number, ...

    @property
    def tool_id(self) -> str:
        return f"{self.table}_{self.name}".replace(".", "__")


@dataclass
class _Lines:
    """Where each model, column and field is written in the schema YAML."""

    at: dict[tuple[str, ...], tuple[str, int | None]] = field(default_factory=dict)

    def get(self, *key: str) -> tuple[str, int | None]:
        return self.at.get(key) or self.at.get(key[:2]) or self.at.get(key[:1]) or ("", None)


def schema_lines(root: Path, models: set[str]) -> _Lines:
    """The file (relative to ``root``) and line of each model, column, metric and additional
    dimension the schema YAML under ``root`` writes (target/, dbt_packages/ and hidden folders aside)."""
    lines = _Lines()
    for path in sorted([*root.rglob("*.yml"), *root.rglob("*.yaml")]):
        rel = path.relative_to(root)
        if any(p.startswith(".") or p in ("target", "dbt_packages", "logs", "node_modules") for p in rel.parts[:-1]):
            continue
        try:
            doc = read_yaml(path)
        except ArtifactError:
            continue  # dbt read the manifest from valid files; a stray file only loses its lines
        if not isinstance(doc, dict) or not isinstance(doc.get("models"), list):
            continue
        for m in doc["models"]:
            if not isinstance(m, dict) or m.get("name") not in models:
                continue
            name = str(m["name"])
            lines.at[(name,)] = (str(rel), line_of(m))
            for key, line in _meta_items(m, "metrics") + _explore_dims(m):
                lines.at[(name, "field", key)] = (str(rel), line)
            for c in m.get("columns") or []:
                if isinstance(c, dict) and c.get("name"):
                    col = str(c["name"]).lower()
                    lines.at[(name, col)] = (str(rel), line_of(c))
                    for key, line in _meta_items(c, "metrics") + _meta_items(c, "additional_dimensions"):
                        lines.at[(name, "field", key)] = (str(rel), line)
    return lines


def _meta_items(d: dict[str, Any], key: str) -> list[tuple[str, int | None]]:
    """(name, line) of each entry of ``meta.<key>`` or ``config.meta.<key>`` (a mapping by name)."""
    out: list[tuple[str, int | None]] = []
    for meta in (d.get("meta"), (d.get("config") or {}).get("meta") if isinstance(d.get("config"), dict) else None):
        if isinstance(meta, dict) and isinstance(meta.get(key), dict):
            out += [(str(k), line_of(meta[key], str(k))) for k in meta[key]]
    return out


def _explore_dims(m: dict[str, Any]) -> list[tuple[str, int | None]]:
    out: list[tuple[str, int | None]] = []
    for meta in (m.get("meta"), (m.get("config") or {}).get("meta") if isinstance(m.get("config"), dict) else None):
        explores = meta.get("explores") if isinstance(meta, dict) else None
        for explore in explores.values() if isinstance(explores, dict) else ():
            dims = explore.get("additional_dimensions") if isinstance(explore, dict) else None
            out += [(str(k), line_of(dims, str(k))) for k in dims] if isinstance(dims, dict) else []
    return out


class Lightdash:
    """The Lightdash fields of a project, and the charts and dashboards of its folders."""

    def __init__(self, project: DbtProject, root: Path):
        self.project = project
        self.root = root
        self.nodes = {n.name: n for n in project.nodes.values() if n.resource_type in ("model", "seed", "snapshot")}
        self.lines = schema_lines(root, set(self.nodes))
        self.defs: dict[tuple[str, str], _Def] = {}  # (table, name) -> its definition
        self.explores: dict[str, str] = {}  # explore name -> its base table
        self.joins: dict[str, dict[str, str]] = {}  # table -> {joined alias: table}
        for node in self.nodes.values():
            self._model(node)
        self.fields: dict[str, BIField] = {}
        self.relations: RelationIndex | None = None  # made for the first SQL chart

    # ------------------------------------------------------------------ definitions
    def _model(self, node: DbtNode) -> None:
        table = node.name
        meta = node.meta or {}
        has_meta = bool(meta) or any(c.meta for c in node.columns)
        if not has_meta:
            return
        self.explores[table] = table
        for name, explore in (meta.get("explores") or {}).items():
            self.explores[str(name)] = table
            for dim, spec in ((explore or {}).get("additional_dimensions") or {}).items():
                self._add(table, node, str(dim), "additional_dimension", spec)
        self.joins[table] = {
            str(j.get("alias") or j["join"]): str(j["join"]) for j in meta.get("joins") or [] if isinstance(j, dict) and j.get("join")
        }
        for name, spec in (meta.get("metrics") or {}).items():
            self._add(table, node, str(name), "metric", spec)
        for col in node.columns:
            cmeta = col.meta or {}
            dim = cmeta.get("dimension")
            if dim is not None or cmeta.get("metrics") or cmeta.get("additional_dimensions"):
                self._dimension(table, node, col.name, dim if isinstance(dim, dict) else {}, col.data_type)
            for name, spec in (cmeta.get("metrics") or {}).items():
                self._add(table, node, str(name), "metric", spec, column=col.name)
            for name, spec in (cmeta.get("additional_dimensions") or {}).items():
                self._add(table, node, str(name), "additional_dimension", spec, column=col.name)

    def _dimension(self, table: str, node: DbtNode, column: str, spec: dict[str, Any], data_type: str | None) -> _Def:
        file, line = self.lines.get(table, column)
        d = _Def(table, node, column, "dimension", str(spec.get("sql") or ""), str(spec.get("label") or ""),
                 str(spec.get("type") or data_type or "").lower(), file, line, column=column)  # fmt: skip
        self.defs[(table, column)] = d
        intervals = spec.get("time_intervals")
        if intervals is None or intervals == "default":
            intervals = DATE_INTERVALS if d.type == "date" else TIMESTAMP_INTERVALS if d.type.startswith(("timestamp", "datetime")) else ()
        elif not isinstance(intervals, list):
            intervals = ()  # OFF
        for i in intervals:
            name = f"{column}_{str(i).lower()}"
            self.defs[(table, name)] = _Def(table, node, name, "interval", "", file=file, line=line, column=column, base=column)
        return d

    def _add(self, table: str, node: DbtNode, name: str, kind: str, spec: Any, column: str | None = None) -> None:
        spec = spec if isinstance(spec, dict) else {}
        file, line = self.lines.get(table, "field", name)
        if line is None and column:
            file, line = self.lines.get(table, column)
        filters = tuple(str(k) for f in spec.get("filters") or [] if isinstance(f, dict) for k in f)
        self.defs[(table, name)] = _Def(
            table, node, name, kind, str(spec.get("sql") or ""), str(spec.get("label") or ""), str(spec.get("type") or ""),
            file, line, column=column, filters=filters, aggregate=str(spec.get("type") or "") if kind == "metric" else "",
        )  # fmt: skip

    def _find(self, table: str, name: str, prefer_metric: bool = False) -> _Def | None:
        """The field ``name`` of ``table``; a plain column of its model is a dimension too."""
        d = self.defs.get((table, name))
        if d is not None and (not prefer_metric or d.kind == "metric"):
            return d
        node = self.nodes.get(table)
        if d is None and node is not None and any(c.name == name.lower() for c in node.columns):
            return self._dimension(table, node, name.lower(), {}, next(c.data_type for c in node.columns if c.name == name.lower()))
        return d

    # ------------------------------------------------------------------ fields
    def field_of(self, d: _Def) -> str:
        """The unique id of ``d``'s field, made (with what it reads) the first time."""
        uid = field_uid(TOOL, d.tool_id)
        if uid not in self.fields:
            self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=d.tool_id, name=d.name, label=d.label, kind=d.kind,
                                       table=d.table, node=d.node.unique_id, sql=self._shown_sql(d), file=d.file, line=d.line)  # fmt: skip
            self.fields[uid] = self.fields[uid].model_copy(update={"reads": self._reads(d)})
        return uid

    @staticmethod
    def _shown_sql(d: _Def) -> str:
        if d.base:  # a time interval: orders_order_date_month is date_trunc('month', ${order_date})
            interval = d.name[len(d.base) + 1 :]
            return f"date_trunc('{interval}', ${{{d.base}}})" if interval in TRUNCATED else f"{interval}(${{{d.base}}})"
        inner = d.sql or (f"${{TABLE}}.{d.column}" if d.column else "")
        if d.kind == "metric" and d.aggregate and d.aggregate != "number":
            inner = f"{d.aggregate}({inner})"
        return inner

    def _reads(self, d: _Def) -> tuple[Read, ...]:
        if d.base:
            return (self._ref(d.table, d.base, d.base),)
        if not d.sql:
            if d.kind == "metric" and d.column:
                return (self._ref(d.table, d.column, d.column), *(self._ref(d.table, f, f) for f in d.filters))
            if d.column:
                return (Read(kind="column", target=column_target(d.node.unique_id, d.column), text=d.column),)
            return (Read(kind="missing", text=d.name, reason=f"{d.kind} {d.name} has no sql and no column"),)
        refs = sql_refs(d.sql, self.project.dialect)
        out: list[Read] = [Read(kind="column", target=column_target(d.node.unique_id, c), text=f"${{TABLE}}.{c}") for c in refs.table_columns]
        out += [Read(kind="column", target=column_target(d.node.unique_id, c), text=c) for c in refs.bare_columns]
        for ref in refs.fields:
            if ref.startswith(_NO_COLUMN):
                continue
            table, _, name = ref.rpartition(".")
            out.append(self._ref(self.joins.get(d.table, {}).get(table, table) if table else d.table, name, ref, d.aggregate == "number"))
        out += [self._ref(d.table, f, f) for f in d.filters]
        if refs.error:
            out.append(Read(kind="missing", text=d.sql, reason=refs.error))
        return tuple(dict.fromkeys(out))

    def _ref(self, table: str, name: str, text: str, prefer_metric: bool = False) -> Read:
        if table not in self.nodes:
            return Read(kind="missing", text=text, reason=f"{text}: no model {table!r} in the project")
        target = self._find(table, name, prefer_metric)
        if target is None:
            return Read(kind="missing", text=text, reason=f"{text}: no field or column {name!r} in {table}")
        return Read(kind="field", target=self.field_of(target), text=text)

    def all_fields(self) -> None:
        """Every field the YAML defines (plain columns become fields only when named)."""
        for d in list(self.defs.values()):
            self.field_of(d)

    def by_id(self, explore: str, field_id: str) -> str:
        """The unique id of the field a chart of ``explore`` names ``field_id``; an unresolved
        field when there is none."""
        for (table, name), d in list(self.defs.items()):
            if d.tool_id == field_id:
                return self.field_of(d)
        base = self.explores.get(explore)
        tables = [base, *self.joins.get(base or "", {}).values()] if base else []
        for table in tables:  # a plain column of the explore's tables, or one of its time intervals
            if not table or not field_id.startswith(f"{table}_"):
                continue
            name = field_id[len(table) + 1 :]
            d = self._find(table, name) or self._find(table, name.rpartition("_")[0]) and self.defs.get((table, name))
            if d is not None:
                return self.field_of(d)
        reason = f"no explore {explore!r} in the project" if base is None else f"no field {field_id!r} in explore {explore!r}"
        return self._unresolved(field_id, reason)

    def _unresolved(self, tool_id: str, reason: str, file: str = "", line: int | None = None, sql: str = "", kind: str = "unknown") -> str:
        uid = field_uid(TOOL, tool_id)
        if uid not in self.fields:
            self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=tool_id, name=tool_id, kind=kind, file=file, line=line, sql=sql,
                                       reads=(Read(kind="missing", text=tool_id, reason=reason),))  # fmt: skip
        return uid

    # ------------------------------------------------------------------ charts and dashboards
    def chart(self, doc: Lined, file: str) -> BIChart:
        query = doc.get("metricQuery") or {}
        if not isinstance(query, dict):
            raise ArtifactError(f"{file}: metricQuery is not a mapping")
        slug = str(doc.get("slug") or Path(file).stem)
        explore = str(query.get("exploreName") or doc.get("tableName") or "")
        uid = chart_uid(TOOL, slug)
        own: dict[str, str] = {}  # the chart's own fields (custom dimensions, table calculations) by id
        for cd in query.get("customDimensions") or []:
            if isinstance(cd, dict) and cd.get("id"):
                own[str(cd["id"])] = self._own(slug, explore, str(cd["id"]), str(cd.get("name") or cd["id"]), "custom_dimension",
                                               str(cd.get("sql") or ""), file, line_of(cd), cd.get("dimensionId"))  # fmt: skip
        for am in query.get("additionalMetrics") or []:
            if isinstance(am, dict) and am.get("name"):
                fid = f"{am.get('table') or explore}_{am['name']}"
                own[fid] = self._own(slug, explore, fid, str(am["name"]), "custom_metric", str(am.get("sql") or ""), file, line_of(am),
                                     f"{am.get('table')}_{am.get('baseDimensionName')}" if am.get("baseDimensionName") else None)  # fmt: skip
        for tc in query.get("tableCalculations") or []:
            if isinstance(tc, dict) and tc.get("name"):
                own[str(tc["name"])] = self._own(slug, explore, str(tc["name"]), str(tc.get("displayName") or tc["name"]),
                                                 "table_calculation", str(tc.get("sql") or ""), file, line_of(tc), None)  # fmt: skip
        shows: dict[str, str] = {}

        def show(fid: str, role: str) -> None:
            uid_ = own.get(fid) or self.by_id(explore, fid)
            shows.setdefault(uid_, role)

        for fid in query.get("dimensions") or []:
            show(str(fid), "dimension")
        for fid in query.get("metrics") or []:
            show(str(fid), "metric")
        for fid in own:
            show(fid, self.fields[own[fid]].kind)
        for fid in _filter_fields(query.get("filters")):
            show(fid, "filter")
        for s in query.get("sorts") or []:
            if isinstance(s, dict) and s.get("fieldId"):
                show(str(s["fieldId"]), "sort")
        return BIChart(unique_id=uid, tool=TOOL, tool_id=slug, name=str(doc.get("name") or slug), explore=explore, file=file,
                       line=line_of(doc), shows=tuple(sorted(shows.items())))  # fmt: skip

    def _own(self, slug: str, explore: str, fid: str, name: str, kind: str, sql: str, file: str, line: int | None, base: Any) -> str:
        """A field of one chart: a custom dimension or metric, or a table calculation, reading
        the fields its SQL names (``${orders.status}``), or the dimension it bins."""
        uid = field_uid(TOOL, f"{slug}.{fid}")
        reads: list[Read] = []
        for ref in sql_refs(sql, self.project.dialect).fields if sql else ():
            if ref.startswith(_NO_COLUMN):
                continue
            table, _, name_ = ref.rpartition(".")
            target = self.by_id(explore, f"{table}_{name_}" if table else name_)
            reads.append(Read(kind="field", target=target, text=f"${{{ref}}}"))
        if base:
            reads.append(Read(kind="field", target=self.by_id(explore, str(base)), text=str(base)))
        if not reads:
            reads.append(Read(kind="missing", text=sql or fid, reason=f"{kind} {fid} names no field"))
        self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=fid, name=name, kind=kind, table=explore, sql=sql, file=file,
                                   line=line, reads=tuple(dict.fromkeys(reads)))  # fmt: skip
        return uid

    def sql_chart(self, doc: Lined, file: str) -> BIChart:
        """A SQL chart: each column of its SQL (analyzed like a model's, its tables matched to
        the project's relations) is a field of the chart reading the columns upstream of it."""
        slug = str(doc.get("slug") or Path(file).stem)
        if self.relations is None:
            self.relations = RelationIndex.for_project(self.project)
        columns, problem = sql_lineage(self.project, self.relations, slug, str(doc["sql"]))
        shows: list[tuple[str, str]] = []
        for column, (reads, expr, unchanged) in columns.items():
            uid = field_uid(TOOL, f"{slug}.{column}")
            found = tuple(Read(kind="column", target=column_target(n, c), text=f"{n}.{c}") for n, c in reads)
            self.fields[uid] = BIField(unique_id=uid, tool=TOOL, tool_id=column, name=column, kind="sql_column", sql=expr, file=file, line=line_of(doc, "sql"),
                                       unchanged=unchanged, reads=found or (Read(kind="missing", text=column, reason=f"{column} reads no column"),))  # fmt: skip
            shows.append((uid, "column"))
        if problem:
            shows.append((self._unresolved(f"{slug}.sql", f"the chart's SQL was not analyzed: {problem}", file, line_of(doc, "sql"), str(doc["sql"])), "column"))
        return BIChart(unique_id=chart_uid(TOOL, slug), tool=TOOL, tool_id=slug, name=str(doc.get("name") or slug), kind="sql_chart", file=file,
                       line=line_of(doc), shows=tuple(sorted(shows)))  # fmt: skip

    def dashboard(self, doc: Lined, file: str, charts: dict[str, BIChart]) -> BIDashboard:
        slug = str(doc.get("slug") or Path(file).stem)
        holds: list[str] = []
        for tile in doc.get("tiles") or []:
            props = tile.get("properties") if isinstance(tile, dict) else None
            chart = (props or {}).get("chartSlug") if isinstance(props, dict) else None
            if chart:
                uid = chart_uid(TOOL, str(chart))
                if uid not in charts:  # kept, unresolved: the dashboard still holds it
                    charts[uid] = BIChart(unique_id=uid, tool=TOOL, tool_id=str(chart), name=str(props.get("chartName") or chart), kind="unknown",
                                          file=file, line=line_of(tile), reason=f"no chart file of the BI folders defines chart {chart!r}")  # fmt: skip
                holds.append(uid)
        shows: dict[str, str] = {}
        filters = doc.get("filters") or {}
        for f in (filters.get("dimensions") or []) + (filters.get("metrics") or []) if isinstance(filters, dict) else []:
            target = f.get("target") if isinstance(f, dict) else None
            if isinstance(target, dict) and target.get("fieldId"):
                shows.setdefault(self.by_id(str(target.get("tableName") or ""), str(target["fieldId"])), "filter")
        return BIDashboard(unique_id=dashboard_uid(TOOL, slug), tool=TOOL, tool_id=slug, name=str(doc.get("name") or slug), file=file,
                           line=line_of(doc), holds=tuple(dict.fromkeys(holds)), shows=tuple(sorted(shows.items())))  # fmt: skip


def _filter_fields(filters: Any) -> list[str]:
    """The field ids a ``metricQuery.filters`` group names, at any depth (``and``/``or``)."""
    out: list[str] = []
    if isinstance(filters, dict):
        target = filters.get("target")
        if isinstance(target, dict) and target.get("fieldId"):
            out.append(str(target["fieldId"]))
        for key, value in filters.items():
            if key != "target":
                out += _filter_fields(value)
    elif isinstance(filters, list):
        for value in filters:
            out += _filter_fields(value)
    return out


def is_chart(doc: Any) -> bool:
    return isinstance(doc, dict) and ("metricQuery" in doc or is_sql_chart(doc))


def is_sql_chart(doc: Any) -> bool:
    """A SQL chart as code: its ``sql`` instead of a ``metricQuery`` (``contentType: sql_chart``)."""
    return isinstance(doc, dict) and "metricQuery" not in doc and isinstance(doc.get("sql"), str) and ("chartKind" in doc or "spaceSlug" in doc)


def is_dashboard(doc: Any) -> bool:
    return isinstance(doc, dict) and "tiles" in doc
