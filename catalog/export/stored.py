"""A build stored in Neo4j as the records the analysis gave: ``ExportInput`` (dbt nodes and
``ModelLineage`` per model), so that `catalog export` and `catalog explore` read a stored build
through the same code as artifacts.

Everything comes from the build's own relationships: a node's properties from its ``CONTAINS``,
a column's from its ``HAS`` (including the analysis's kind, expression, resolved flag and
reason), edges from ``FEEDS``, ``CONDITIONS`` and ``DEPENDS_ON`` of that build.

What the graph does not keep: columns declared in YAML that a model's SQL does not produce
(a model's columns are the analysis's), and the file a model's compiled SQL was read from.
"""

from __future__ import annotations

import json
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
from catalog.export.openlineage import ExportInput
from catalog.extract import DbtColumn, DbtNode
from catalog.query import Catalog

ANALYZED = ("model", "snapshot")


def stored_export_input(catalog: Catalog) -> ExportInput:
    """The export's input from the build ``catalog`` reads (its project and build)."""
    graph, project, build_id = catalog.graph, catalog.project, catalog.build_id
    build = graph.read("read/find_build", project=project, build_id=build_id)[0]["build"]
    models = graph.read("read/list_model_properties", project=project, build_id=build_id)
    columns = graph.read("read/list_column_properties", project=project, build_id=build_id)
    edges = graph.read("read/list_build_lineage", project=project, build_id=build_id)

    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in columns:
        by_model[c["unique_id"]].append(c)
    sources: dict[tuple[str, str], list[ColumnRef]] = defaultdict(list)
    conditions: dict[str, list[Condition]] = defaultdict(list)
    parents: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        if e["kind"] == "feeds":
            sources[(e["unique_id"], e["column"])].append(ColumnRef(unique_id=e["up_unique_id"], column=e["up_column"]))
        elif e["kind"] == "conditions":
            ref = ColumnRef(unique_id=e["up_unique_id"], column=e["up_column"])
            conditions[e["unique_id"]].append(Condition(column=ref, clause=ConditionClause(e["clause"])))
        else:
            parents[e["unique_id"]].append(e["up_unique_id"])

    relations: dict[str, DbtNode] = {}
    lineages: dict[str, ModelLineage] = {}
    for m in models:
        uid = m["unique_id"]
        cols = sorted(by_model.get(uid, []), key=lambda c: (c["position"] is None, c["position"] or 0))
        relations[uid] = _node(m, cols, sorted(parents.get(uid, [])))
        if m["resource_type"] in ANALYZED and m["status"]:
            lineages[uid] = ModelLineage(
                unique_id=uid,
                status=ModelStatus(m["status"]),
                reason=m["reason"],
                columns=tuple(_column(c, sources) for c in cols if c["kind"]),
                conditions=tuple(
                    sorted(conditions.get(uid, []), key=lambda x: (x.column.unique_id, x.column.column, x.clause.value))
                ),
            )
    return ExportInput(
        project=project,
        adapter_type=build.get("adapter_type") or build.get("dialect") or "",
        dialect=build.get("dialect") or "",
        generated_at=build.get("generated_at"),
        build_id=build_id,
        relations=relations,
        lineages=lineages,
    )


def _node(m: dict[str, Any], columns: list[dict[str, Any]], depends_on: list[str]) -> DbtNode:
    name, source_name = m["name"], None
    if m["resource_type"] == "source" and "." in name:
        source_name, name = name.split(".", 1)
    # catalog.json's columns first, in its order, then those only declared in YAML (as extract orders them)
    documented = [c for c in columns if c["in_catalog"]] + [c for c in columns if c["declared"] and not c["in_catalog"]]
    return DbtNode(
        unique_id=m["unique_id"],
        resource_type=m["resource_type"],
        package_name=m["package"] or "",
        name=name,
        source_name=source_name,
        relation_name=m["relation_name"],
        database=m["database"],
        schema_name=m["schema"],
        identifier=m["identifier"],
        materialized=m["materialized"],
        language=m["language"] or "sql",
        sql=m["sql"],
        columns=tuple(
            DbtColumn(
                name=c["display_name"],
                data_type=c["data_type"],
                description=c["description"] or "",
                tags=tuple(c["tags"] or ()),
                meta=_json(c["meta"]),
                in_catalog=c["in_catalog"],
                declared=c["declared"],
            )
            for c in documented
        ),
        depends_on=tuple(depends_on),
        description=m["description"] or "",
        tags=tuple(m["tags"] or ()),
        meta=_json(m["meta"]),
        access=m["access"],
        path=m["path"],
    )


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


def _json(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
