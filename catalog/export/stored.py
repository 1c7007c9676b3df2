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

from collections.abc import Collection
from typing import Any

from catalog.analyze.packed import RefCache, unpack
from catalog.analyze.records import ModelLineage, column_key
from catalog.export.openlineage import ExportInput, export_input
from catalog.query import BuildView
from catalog.store.graph import Graph
from catalog.store.records import load_build_project

ANALYZED = ("model", "snapshot")


def stored_export_input(
    catalog: BuildView, *, consumers: bool, tests: bool = False, unique_ids: list[str] | None = None, build: dict[str, Any] | None = None,
) -> ExportInput:  # fmt: skip
    """The export's input from the build ``catalog`` reads (its project and build); with
    ``consumers``, its semantic models, metrics, exposures and saved queries too; with
    ``tests``, its tests with the columns the build found each reads. ``unique_ids``: only
    those nodes (and the consumers, without tests or BI), as `catalog lsp` reads the nodes
    around one file; ``build``: the build's properties when they were read already."""
    graph, name, build_id = catalog.graph, catalog.project, catalog.build_id
    build = build or graph.read("read/find_build", project=name, build_id=build_id)[0]["build"]
    project = load_build_project(graph, name, build, unique_ids)
    return export_input(project, build_lineages(graph, name, build_id, unique_ids), consumers=consumers, build_id=build_id, tests=tests)


def build_lineages(
    graph: Graph, project: str, build_id: int, unique_ids: list[str] | None = None, columns: Collection[str] | None = None
) -> dict[str, ModelLineage]:
    """The analysis's ``ModelLineage`` of each analyzed model of the build (with ``unique_ids``,
    of those only; with ``columns``, column keys, of those columns only), read model by model (``list_build_model_lineage``) and made as the analysis
    makes them (:func:`unpack`, one ``ColumnRef`` per column): a large build's rows are never
    all in memory at once."""
    refs: RefCache = {}
    lineages: dict[str, ModelLineage] = {}
    rows = graph.stream_values("read/list_build_model_lineage", project=project, build_id=build_id, unique_ids=unique_ids)
    for uid, resource_type, status, reason, found, conditions in rows:
        if resource_type not in ANALYZED or not status:
            continue
        found = found if columns is None else [c for c in found if column_key(uid, c[0]) in columns]
        found.sort(key=lambda c: (c[5] is None, c[5] or 0))  # by position (stable: then by key)
        packed = (
            uid, status, reason,
            [(name, kind, bool(resolved), expr or "", sorted(map(tuple, sources)), why)
             for name, kind, expr, resolved, why, _position, sources in found],
            sorted(conditions),
            None, None,
        )  # fmt: skip
        lineages[uid] = unpack(packed, refs)
    return lineages
