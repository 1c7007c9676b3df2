"""A build stored in Neo4j as the records the analysis gave: ``ExportInput`` made by the same
:func:`~catalog.export.openlineage.export_input` as from artifacts, so that `catalog export`,
`catalog explore` and `catalog report --explorer` read a stored build through the same code
as the artifacts it was built from.

The dbt nodes, semantic models, metrics, exposures and saved queries are the records the build
kept of what it read (:func:`catalog.store.records.load_build_project`): a node's columns in
catalog.json's order, then those only declared in YAML, with their types and documentation,
exactly as extraction made them. The analysis's lineage comes from the build's relationships:
a model's status and reason from its ``CONTAINS``, its columns (kind, expression, resolved
flag, reason) from its ``HAS``, edges from ``FEEDS`` and ``CONDITIONS`` of that build.

With ``consumers``, the semantic models' expressions are analyzed over the build's model
columns, as the build did.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from catalog.analyze.records import (
    ColumnKind,
    ColumnLineage,
    ColumnRef,
    Condition,
    ConditionClause,
    ModelLineage,
    ModelStatus,
)
from catalog.export.openlineage import ExportInput, export_input
from catalog.query import BuildView
from catalog.store.graph import Graph
from catalog.store.records import load_build_project

ANALYZED = ("model", "snapshot")


def stored_export_input(catalog: BuildView, *, consumers: bool, tests: bool = False) -> ExportInput:
    """The export's input from the build ``catalog`` reads (its project and build); with
    ``consumers``, its semantic models, metrics, exposures and saved queries too; with
    ``tests``, its tests with the columns the build found each reads."""
    graph, name, build_id = catalog.graph, catalog.project, catalog.build_id
    build = graph.read("read/find_build", project=name, build_id=build_id)[0]["build"]
    project = load_build_project(graph, name, build)
    return export_input(project, _lineages(graph, name, build_id), consumers=consumers, build_id=build_id, tests=tests)


def _lineages(graph: Graph, project: str, build_id: int) -> dict[str, ModelLineage]:
    """The analysis's ``ModelLineage`` of each analyzed model of the build."""
    states = graph.list_model_states(project, build_id)
    columns = graph.read("read/list_column_properties", project=project, build_id=build_id)
    edges = graph.read("read/list_build_lineage", project=project, build_id=build_id)

    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in columns:
        by_model[c["unique_id"]].append(c)
    sources: dict[tuple[str, str], list[ColumnRef]] = defaultdict(list)
    conditions: dict[str, list[Condition]] = defaultdict(list)
    for e in edges:
        if e["kind"] == "feeds":
            sources[(e["unique_id"], e["column"])].append(ColumnRef(unique_id=e["up_unique_id"], column=e["up_column"]))
        elif e["kind"] == "conditions":
            ref = ColumnRef(unique_id=e["up_unique_id"], column=e["up_column"])
            conditions[e["unique_id"]].append(Condition(column=ref, clause=ConditionClause(e["clause"])))

    lineages: dict[str, ModelLineage] = {}
    for s in states:
        uid = s["unique_id"]
        if s["resource_type"] not in ANALYZED or not s["status"]:
            continue
        cols = sorted(by_model.get(uid, []), key=lambda c: (c["position"] is None, c["position"] or 0))
        lineages[uid] = ModelLineage(
            unique_id=uid,
            status=ModelStatus(s["status"]),
            reason=s["reason"],
            columns=tuple(_column(c, sources) for c in cols if c["kind"]),
            conditions=tuple(
                sorted(conditions.get(uid, []), key=lambda x: (x.column.unique_id, x.column.column, x.clause.value))
            ),
        )
    return lineages


def _column(c: dict[str, Any], sources: dict[tuple[str, str], list[ColumnRef]]) -> ColumnLineage:
    refs = sorted(sources.get((c["unique_id"], c["name"]), []), key=lambda r: (r.unique_id, r.column))
    return ColumnLineage(
        name=c["name"],
        kind=ColumnKind(c["kind"]),
        resolved=bool(c["resolved"]),
        expr=c["expr"] or "",
        sources=tuple(refs),
        reason=c["reason"],
    )
