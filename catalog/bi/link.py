"""BI fields linked to the columns of the analyzed project: the edges the graph stores as
``(:Column)-[:FEEDS]->(:BIField)``, ``(:Chart)-[:SHOWS]->(:BIField)`` and
``(:Dashboard)-[:HOLDS]->(:Chart)``, and whether each field is resolved.

A field reads the columns it names and, through the fields it names (a metric built from
metrics, a table calculation), theirs: it is FED by each, ``passthrough`` when it is the column
itself, ``derived`` otherwise. A field is ``unresolved`` with its reason when something it names
is not found, when a column it reads is not in the model (neither in its SQL nor in the
warehouse), or when it reads no column at all; it is stored all the same, with what it does read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from catalog.analyze.records import ModelLineage, column_key
from catalog.analyze.semantic import semantic_lineage
from catalog.bi_records import BIField
from catalog.extract import DbtProject

# (upstream key, consumer key, type, expr), as catalog.analyze.semantic.ConsumerEdge
Edge = tuple[str, str, str, str]


# the column names of each analyzed model (catalog.analyze.records.column_names)
Analyzed = Mapping[str, Sequence[str]]


def _known_columns(project: DbtProject, analyzed: Analyzed) -> dict[str, set[str]]:
    """Each node's columns: as its SQL's analysis found them, else the warehouse's (catalog.json)."""
    out: dict[str, set[str]] = {}
    for uid, node in project.nodes.items():
        names = analyzed.get(uid)
        if names:
            out[uid] = set(names)
        else:
            out[uid] = {c.name for c in node.columns if c.in_catalog or node.resource_type == "source"}
    return out


class Linked:
    """Each field's columns (any depth) and, when unresolved, why."""

    def __init__(self, project: DbtProject, analyzed: Analyzed):
        self.project = project
        self.known = _known_columns(project, analyzed)
        self.columns: dict[str, dict[str, bool]] = {}  # field -> {column key: read directly as itself}
        self.problems: dict[str, list[str]] = {}
        for uid in project.bi_fields:
            self._link(uid, ())

    def _link(self, uid: str, seen: tuple[str, ...]) -> tuple[dict[str, bool], list[str]]:
        if uid in self.columns:
            return self.columns[uid], self.problems[uid]
        f = self.project.bi_fields.get(uid)
        cols: dict[str, bool] = {}
        problems: list[str] = []
        if f is None:
            return cols, [f"no field {uid}"]
        for r in f.reads:
            if r.kind == "missing":
                problems.append(r.reason)
            elif r.kind == "column":
                node, _, name = r.target.partition("\t")
                if name in self.known.get(node, set()):
                    cols[column_key(node, name)] = _plain(f)
                else:
                    model = self.project.nodes[node].name if node in self.project.nodes else node
                    problems.append(f"column {model}.{name} is not in the model (neither in its SQL nor in the warehouse)")
            elif r.target in seen:
                problems.append(f"{r.text}: reads itself")
            else:
                up_cols, up_problems = self._link(r.target, (*seen, uid))
                for key in up_cols:
                    cols.setdefault(key, False)
                problems += up_problems
        if not cols and not problems:
            problems.append("reads no column")
        self.columns[uid], self.problems[uid] = cols, list(dict.fromkeys(problems))
        return cols, self.problems[uid]

    def status(self, uid: str) -> tuple[str, str | None]:
        problems = self.problems.get(uid) or []
        return ("unresolved", "; ".join(problems)) if problems else ("resolved", None)


def _plain(f: BIField) -> bool:
    """The field is its column, as it is: a dimension without SQL of its own."""
    return f.unchanged or f.kind == "dimension" and (not f.sql or f.sql == f"${{TABLE}}.{f.name}")


def consumer_lineage(project: DbtProject, analyzed: Analyzed) -> tuple[dict[str, ModelLineage], list[Edge]]:
    """:func:`catalog.analyze.semantic.semantic_lineage` (semantic models' lineage, the edges to
    metrics, exposures and saved queries) with the BI edges of :func:`bi_edges` after them."""
    semantic, edges = semantic_lineage(project, analyzed)
    return semantic, edges + bi_edges(project, analyzed)


def bi_reached(project: DbtProject, linked: Linked, columns: set[str]) -> list[tuple[str, str, str, str]]:
    """(kind, unique id, tool, tool id) of every BI field reading one of ``columns`` (column ids),
    every chart or dashboard showing such a field, every dashboard holding such a chart."""
    fields = {uid for uid, cols in linked.columns.items() if columns & cols.keys()}
    charts = {uid for uid, c in project.charts.items() if any(f in fields for f, _ in c.shows)}
    boards = {uid for uid, d in project.dashboards.items() if charts & set(d.holds) or any(f in fields for f, _ in d.shows)}
    out = [("bi_field", uid, project.bi_fields[uid].tool, project.bi_fields[uid].tool_id) for uid in sorted(fields)]
    out += [("chart", uid, project.charts[uid].tool, project.charts[uid].tool_id) for uid in sorted(charts)]
    return out + [("dashboard", uid, project.dashboards[uid].tool, project.dashboards[uid].tool_id) for uid in sorted(boards)]


def bi_edges(project: DbtProject, analyzed: Analyzed, linked: Linked | None = None) -> list[Edge]:
    """Column -> field (``passthrough`` or ``derived``, with the field's SQL), field -> chart and
    field -> dashboard (``shows``: the field's role), chart -> dashboard (``holds``)."""
    if not project.bi_fields:
        return []
    linked = linked or Linked(project, analyzed)
    edges: list[Edge] = []
    for uid, f in sorted(project.bi_fields.items()):
        for key, plain in sorted(linked.columns[uid].items()):
            edges.append((key, uid, "passthrough" if plain else "derived", f.sql))
    for uid, c in sorted(project.charts.items()):
        edges += [(fid, uid, "shows", role) for fid, role in c.shows]
    for uid, d in sorted(project.dashboards.items()):
        edges += [(cid, uid, "holds", "") for cid in d.holds]
        edges += [(fid, uid, "shows", role) for fid, role in d.shows]
    return edges
