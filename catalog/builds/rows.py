"""What a build writes to the graph, as rows of the ``write/*`` queries.

Model and Column nodes hold only what their key determines (their identity). Everything that
can change from one build to the next lives on the relationship of that build: a model's on its
``CONTAINS``, a column's on its ``HAS``; a change closes that relationship and creates a new one
(:mod:`catalog.store.versioned`).
"""

from __future__ import annotations

import json
from typing import Any

from catalog.analyze.records import ColumnKind, ColumnLineage, ConditionClause
from catalog.extract import DbtColumn, DbtNode, is_pii
from catalog.idents import typed
from catalog.store.keys import column_node_key, model_node_key

# enum -> its string, without Enum.value's descriptor on hot paths
VALUE: dict[Any, str] = {m: m.value for m in (*ColumnKind, *ConditionClause)}


# ---------------------------------------------------------------------------- node properties
def model_identity(project: str, unique_id: str, name: str, resource_type: str) -> dict[str, Any]:
    return {
        "key": model_node_key(project, unique_id),
        "project": project,
        "unique_id": unique_id,
        "name": name,
        "resource_type": resource_type,
    }


def model_props(node: DbtNode) -> dict[str, Any]:
    """A model's properties in one build (on its CONTAINS relationship)."""
    return {
        "package": node.package_name,
        "materialized": node.materialized,
        "relation_name": node.relation_name,
        "database": node.database,
        "schema": node.schema_name,
        "identifier": node.identifier,
        "sql": node.sql,
        "description": node.description,
        "tags": list(node.tags),
        "meta": json.dumps(node.meta, sort_keys=True, default=str),
        "access": node.access,
        "contract": node.contract_enforced or None,
        "path": node.path,
        "language": node.language,
        "upstream": node.upstream_key,  # dbt Mesh: the producer's model a foreign node was matched to
    }


def column_identity(project: str, unique_id: str, model_name: str, column: str) -> dict[str, Any]:
    return {
        "key": column_node_key(project, unique_id, column),
        "project": project,
        "unique_id": unique_id,
        "model_name": model_name,
        "name": typed(column),
    }


def column_props(col: DbtColumn, name: str, position: int) -> dict[str, Any]:
    """A column's properties in one build (on its HAS relationship); empty values are left out.
    ``name``: the column's name (:mod:`catalog.idents`); the warehouse's spelling is kept
    as ``display_name`` when it differs (``ORDER_ID``, or ``ID`` named ``"ID"``)."""
    return present({
        "display_name": col.name if col.name != name else None,
        "position": position,
        "data_type": col.data_type or None,
        "description": col.description or None,
        "tags": list(col.tags) or None,
        "meta": json.dumps(col.meta, sort_keys=True, default=str) if col.meta else None,
        "pii": is_pii(col.tags, col.meta) or None,
        "declared": col.declared or None,
        "in_catalog": col.in_catalog or None,
    })  # fmt: skip


# what the analysis says of a model's column, kept on its HAS relationship
LINEAGE_PROPS = ("kind", "expr", "resolved", "reason")


def column_lineage_props(col: ColumnLineage) -> dict[str, Any]:
    """A column's lineage in one build (on its HAS relationship): kind, expr, resolved, reason."""
    return present({"kind": VALUE[col.kind], "expr": col.expr, "resolved": col.resolved, "reason": col.reason})


def present(props: dict[str, Any]) -> dict[str, Any]:
    """Properties as Neo4j stores them: a null is no property."""
    return {k: v for k, v in props.items() if v is not None}


def stored_props(props: dict[str, Any] | None) -> dict[str, Any]:
    """A relationship's properties without its versions."""
    return {k: v for k, v in (props or {}).items() if k not in ("since", "until")}


# ---------------------------------------------------------------------------- batches
def columns_by_model(has_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """HAS rows as ``write/merge_model_columns`` takes them: one row per model, with its columns."""
    out: dict[str, dict[str, Any]] = {}
    for r in has_rows:
        group = out.get(r["model"])
        if group is None:
            node = r["node"]
            group = out[r["model"]] = {"model": r["model"], "unique_id": node["unique_id"], "model_name": node["model_name"], "columns": []}
        group["columns"].append({"key": r["key"], "name": r["node"]["name"], "props": r["props"]})
    return list(out.values())


def column_count(group: dict[str, Any]) -> int:
    return len(group["columns"])


def feeds_by_column(feed_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """FEEDS rows as ``write/create_feeds`` takes them: one row per downstream column (and its
    expression, type and resolved flag, the same for all its upstream columns), with its upstream columns."""
    out: dict[tuple, dict[str, Any]] = {}
    for r in feed_rows:
        k = (r["down"], r["expr"], r["type"], r["resolved"], r["model"])
        group = out.get(k)
        if group is None:
            group = out[k] = {"down": r["down"], "ups": [], "expr": r["expr"], "type": r["type"], "resolved": r["resolved"], "model": r["model"]}
        group["ups"].append(r["up"])
    return list(out.values())


def up_count(group: dict[str, Any]) -> int:
    return len(group["ups"])
