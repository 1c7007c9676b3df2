"""Analyze every model of a dbt project, upstream models first.

A model's ``select *`` over an upstream model needs that model's columns: catalog.json
gives them for built relations; for ephemeral models (never in catalog.json) and
relations missing from it, the upstream model's analyzed output is used instead.
"""

from __future__ import annotations

import graphlib
import traceback
from typing import Callable

from catalog.analyze.model import SNAPSHOT_META_COLUMNS, ModelAnalyzer
from catalog.analyze.records import ColumnKind, ColumnLineage, ModelLineage, ModelStatus
from catalog.analyze.relations import RelationIndex
from catalog.extract import DbtNode, DbtProject

Progress = Callable[[int, int], None]


def topological_models(project: DbtProject) -> list[DbtNode]:
    """Models and snapshots, every one after the models it depends on (stable order)."""
    models = {n.unique_id: n for n in project.models()}
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for uid in sorted(models):
        sorter.add(uid, *sorted(d for d in models[uid].depends_on if d in models and d != uid))
    try:
        order = list(sorter.static_order())
    except graphlib.CycleError:
        order = sorted(models)
    return [models[uid] for uid in order]


class ProjectColumns:
    """Column names per relation: catalog.json first, then analysis, then YAML."""

    def __init__(self, project: DbtProject):
        self._catalog: dict[str, list[str]] = {}
        self._declared: dict[str, list[str]] = {}
        for node in project.nodes.values():
            in_catalog = [c.name.lower() for c in node.columns if c.in_catalog]
            if in_catalog:
                self._catalog[node.unique_id] = in_catalog
            declared = [c.name.lower() for c in node.columns if c.declared]
            if declared:
                self._declared[node.unique_id] = declared
        self._analyzed: dict[str, list[str]] = {}

    def add_analyzed(self, lineage: ModelLineage) -> None:
        if lineage.status in (ModelStatus.RESOLVED, ModelStatus.PARTIAL) and lineage.columns:
            self._analyzed[lineage.unique_id] = [c.name for c in lineage.columns]

    def catalog(self, unique_id: str) -> list[str] | None:
        return self._catalog.get(unique_id)

    def __call__(self, unique_id: str) -> list[str] | None:
        return self._catalog.get(unique_id) or self._analyzed.get(unique_id) or self._declared.get(unique_id)


def analyze_node(node: DbtNode, dialect: str, relations: RelationIndex, columns: ProjectColumns) -> ModelLineage:
    """Lineage of one model; never raises (a failure is a ``failed`` status with the error)."""
    real_names = columns.catalog(node.unique_id)
    if node.language != "sql":
        return _without_sql(node, real_names, f"{node.language} model: no SQL to analyze")
    if not node.sql:
        return _without_sql(node, real_names, "no compiled or raw SQL in the manifest (run `dbt compile`)")
    try:
        lineage = ModelAnalyzer(node.unique_id, node.sql, dialect, relations, columns, real_names).run()
    except Exception as e:  # noqa: BLE001 - recorded as the model's failure, with the error
        where = traceback.extract_tb(e.__traceback__)[-1]
        reason = f"analysis raised {type(e).__name__}: {e} (at {where.name}:{where.lineno})"
        return _without_sql(node, real_names, reason, ModelStatus.FAILED)
    if node.resource_type == "snapshot":
        lineage = _with_snapshot_meta(lineage, real_names or [])
    if node.sql_origin == "raw" and lineage.status != ModelStatus.FAILED:
        lineage = lineage.model_copy(update={"reason": (lineage.reason or "") + " (analyzed raw SQL: no compiled SQL)"})
    return lineage


def analyze_project(project: DbtProject, progress: Progress | None = None) -> dict[str, ModelLineage]:
    relations = RelationIndex.for_project(project)
    columns = ProjectColumns(project)
    order = topological_models(project)
    result: dict[str, ModelLineage] = {}
    for i, node in enumerate(order):
        lineage = analyze_node(node, project.dialect, relations, columns)
        columns.add_analyzed(lineage)
        result[node.unique_id] = lineage
        if progress:
            progress(i + 1, len(order))
    return dict(sorted(result.items()))


def _without_sql(
    node: DbtNode, names: list[str] | None, reason: str, status: ModelStatus = ModelStatus.UNRESOLVED
) -> ModelLineage:
    cols = tuple(
        ColumnLineage(name=n, kind=ColumnKind.UNKNOWN, resolved=False, expr="", reason=reason) for n in (names or [])
    )
    return ModelLineage(unique_id=node.unique_id, status=status, reason=reason, columns=cols)


def _with_snapshot_meta(lineage: ModelLineage, real_names: list[str]) -> ModelLineage:
    have = {c.name for c in lineage.columns}
    extra = [
        ColumnLineage(name=n, kind=ColumnKind.SOURCE, resolved=True, expr=f"snapshot: {n}")
        for n in real_names
        if n in SNAPSHOT_META_COLUMNS and n not in have
    ]
    if not extra:
        return lineage
    return lineage.model_copy(update={"columns": lineage.columns + tuple(extra)})
