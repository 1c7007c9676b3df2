"""What a build did: its counts, timings, failures and warnings, as ``catalog build`` prints
them and as the Build node keeps them."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from catalog.extract import InputWarning

class ModelCounts(BaseModel):
    total: int = 0
    reused: int = 0
    recomputed: int = 0
    failed: int = 0
    carried_over: int = 0
    removed: int = 0


class EdgeCounts(BaseModel):
    written: int = 0  # FEEDS relationships created by this build
    closed: int = 0  # FEEDS relationships this build ended
    total: int = 0  # FEEDS edges of the build's lineage


class BuildSummary(BaseModel):
    build_id: int
    project: str
    status: str
    previous_build_id: int | None = None
    dialect: str
    models: ModelCounts = Field(default_factory=ModelCounts)
    statuses: dict[str, int] = Field(default_factory=dict)
    columns: int = 0
    edges: EdgeCounts = Field(default_factory=EdgeCounts)
    conditions_written: int = 0
    relationships_written: int = 0
    relationships_closed: int = 0
    recomputed_models: list[str] = Field(default_factory=list)  # unique ids analyzed by this build
    timings: dict[str, float] = Field(default_factory=dict)  # seconds per stage
    failures: dict[str, str] = Field(default_factory=dict)  # unique_id -> error
    warnings: list[InputWarning] = Field(default_factory=list)  # inputs the lineage is poorer without


def build_properties(summary: BuildSummary) -> dict[str, Any]:
    """The summary as Build node properties."""
    return {
        "dialect": summary.dialect,
        "models_total": summary.models.total,
        "models_reused": summary.models.reused,
        "models_recomputed": summary.models.recomputed,
        "models_failed": summary.models.failed,
        "models_carried_over": summary.models.carried_over,
        "models_removed": summary.models.removed,
        "columns": summary.columns,
        "edges_total": summary.edges.total,
        "edges_written": summary.edges.written,
        "edges_closed": summary.edges.closed,
        "statuses": json.dumps(summary.statuses),
        "recomputed_models": summary.recomputed_models,
        "timings": json.dumps(summary.timings),
    }


def unchanged_summary(project: str, build_id: int, active: dict[str, Any]) -> BuildSummary:
    """A build with the active build's inputs: everything reused, nothing written."""
    total = int(active.get("models_total") or 0)
    return BuildSummary(
        build_id=build_id,
        project=project,
        status="running",
        dialect=active.get("dialect") or "",
        models=ModelCounts(total=total, reused=total),
        statuses=json.loads(active.get("statuses") or "{}"),
        columns=int(active.get("columns") or 0),
        edges=EdgeCounts(total=int(active.get("edges_total") or 0)),
    )
