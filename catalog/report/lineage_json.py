"""The lineage as plain data: the ``catalog lineage --json`` document.

Shape (sorted keys and lists, for stable diffs)::

    {"project": ..., "dialect": ..., "warnings": [{"code", "message", "models"}, ...],
     "models": {"<unique_id>": {"status": ..., "reason": ...,
        "columns": {"<column>": {"type": ..., "resolved": true, "expr": "...",
                                 "sources": ["<upstream unique_id>.<column>", ...]}},
        "conditions": [{"column": "<upstream unique_id>.<column>", "clause": "where"}]}}}
"""

from __future__ import annotations

from typing import Any

from catalog.analyze.records import ModelLineage


def model_to_dict(m: ModelLineage) -> dict[str, Any]:
    columns: dict[str, Any] = {}
    for c in m.columns:
        entry: dict[str, Any] = {
            "type": c.kind.value,
            "resolved": c.resolved,
            "expr": c.expr,
            "sources": sorted(s.key for s in c.sources),
        }
        if c.reason:
            entry["reason"] = c.reason
        columns[c.name] = entry
    conditions = sorted(
        ({"column": c.column.key, "clause": c.clause.value} for c in m.conditions),
        key=lambda d: (d["column"], d["clause"]),
    )
    return {
        "status": m.status.value,
        "reason": m.reason,
        "columns": dict(sorted(columns.items())),
        "conditions": conditions,
    }


def lineage_document(
    project: str, dialect: str, lineages: dict[str, ModelLineage], warnings: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "project": project,
        "dialect": dialect,
        "warnings": warnings or [],
        "models": {uid: model_to_dict(m) for uid, m in sorted(lineages.items())},
    }
