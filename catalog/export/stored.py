"""A build stored in Neo4j as the records the analysis gave: ``ExportInput`` (dbt nodes and
``ModelLineage`` per model), so that `catalog export` and `catalog explore` read a stored build
through the same code as artifacts.

Everything comes from the build's own relationships: a node's properties from its ``CONTAINS``,
a column's from its ``HAS`` (including the analysis's kind, expression, resolved flag and
reason), edges from ``FEEDS``, ``CONDITIONS`` and ``DEPENDS_ON`` of that build.

With ``consumers``, the build's semantic models, metrics, exposures and saved queries are read
from the records their ``DEFINES`` keep, and the semantic models' expressions analyzed over the
build's model columns, as the build did.

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
from catalog.export.openlineage import ExportInput, consumer_nodes
from catalog.extract import DbtColumn, DbtExposure, DbtMetric, DbtNode, DbtProject, DbtSavedQuery, DbtSemanticModel
from catalog.idents import is_exact
from catalog.query import Catalog

ANALYZED = ("model", "snapshot")


CONSUMER_RECORDS = {
    "semantic_model": ("semantic_models", DbtSemanticModel),
    "metric": ("metrics", DbtMetric),
    "exposure": ("exposures", DbtExposure),
    "saved_query": ("saved_queries", DbtSavedQuery),
}


def stored_export_input(catalog: Catalog, *, consumers: bool) -> ExportInput:
    """The export's input from the build ``catalog`` reads (its project and build); with
    ``consumers``, its semantic models, metrics, exposures and saved queries too."""
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
    data = ExportInput(
        project=project,
        adapter_type=build.get("adapter_type") or build.get("dialect") or "",
        dialect=build.get("dialect") or "",
        generated_at=build.get("generated_at"),
        build_id=build_id,
        relations=relations,
        lineages=lineages,
    )
    return _with_consumers(catalog, data) if consumers else data


def _with_consumers(catalog: Catalog, data: ExportInput) -> ExportInput:
    from catalog.analyze.semantic import semantic_lineage

    tables: dict[str, dict[str, Any]] = {table: {} for table, _ in CONSUMER_RECORDS.values()}
    for r in catalog.graph.read("read/list_build_consumers", project=catalog.project, build_id=catalog.build_id):
        table, record = CONSUMER_RECORDS.get(r["resource_type"], (None, None))
        if table is not None and r["record"]:
            tables[table][r["unique_id"]] = record.model_validate_json(r["record"])
    if not any(tables.values()):
        return data
    project = DbtProject(
        name=data.project, target_dir="", adapter_type=data.adapter_type, dialect=data.dialect, dbt_version=None,
        generated_at=data.generated_at, manifest_sha256="", catalog_sha256=None, nodes=data.relations, **tables,
    )  # fmt: skip
    semantic, edges = semantic_lineage(project, data.lineages)
    return data.model_copy(update={"consumers": consumer_nodes(project), "semantic": semantic, "consumer_edges": tuple(edges)})


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
                quoted=is_exact(c["name"]),  # a YAML name whose case matters
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
