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

from typing import Any

from catalog.export.openlineage import ExportInput, export_input
from catalog.query import BuildView
from catalog.store.records import load_build_lineages, load_build_project


def stored_export_input(
    catalog: BuildView, *, consumers: bool, tests: bool = False, unique_ids: list[str] | None = None, build: dict[str, Any] | None = None,
) -> ExportInput:  # fmt: skip
    """The export's input from the build ``catalog`` reads (its project and build); with
    ``consumers``, its semantic models, metrics, exposures and saved queries too; with
    ``tests``, its tests with the columns the build found each reads. ``unique_ids``: only
    those nodes (with the consumers and the tests of their columns), as `catalog lsp` reads the nodes
    around one file; ``build``: the build's properties when they were read already."""
    graph, name, build_id = catalog.graph, catalog.project, catalog.build_id
    build = build or graph.read("read/find_build", project=name, build_id=build_id)[0]["build"]
    project = load_build_project(graph, name, build, unique_ids)
    return export_input(project, load_build_lineages(graph, name, build_id, unique_ids), consumers=consumers, build_id=build_id, tests=tests)
