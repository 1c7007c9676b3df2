"""Where `catalog export` and `catalog explore` read a project from: a dbt target (analyzed
here, no Neo4j) or a build stored in Neo4j. Both give the same records (``ExportInput``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from catalog.cli.common import EXIT_USAGE, fail
from catalog.cli.connect import Neo4jOptions

if TYPE_CHECKING:
    from catalog.export.openlineage import ExportInput

OptionalProjectPath = Annotated[
    Path | None,
    typer.Argument(
        help="A dbt target folder (with manifest.json) or a dbt project folder that holds target/: "
        "analyzed here, without Neo4j. Without it, a build stored in Neo4j is read (--project, --build).",
        show_default=False,
    ),
]


def read_input(
    path: Path | None,
    *,
    dialect: str | None,
    jobs: int | None,
    project: str | None,
    build: str | None,
    neo4j: Neo4jOptions,
    consumers: bool,
) -> ExportInput:
    """The project's nodes and lineage, from PATH's artifacts or from a stored build; with
    ``consumers``, its semantic models, metrics, exposures and saved queries too."""
    from catalog.analyze.project import analyze_project
    from catalog.bi.sources import with_bi
    from catalog.export.openlineage import export_input
    from catalog.export.stored import stored_export_input
    from catalog.extract import load_project
    from catalog.query import BuildView

    if path is not None:
        if project is not None or build is not None:
            fail("--project, --build and --at read a build stored in Neo4j: give them without PATH", EXIT_USAGE)
        loaded = with_bi(load_project(path, dialect=dialect), path)
        return export_input(loaded, analyze_project(loaded, jobs=jobs), consumers=consumers)
    if dialect is not None:
        fail("--dialect applies to PATH: a stored build keeps the dialect it was built with", EXIT_USAGE)
    with neo4j.graph() as graph:
        return stored_export_input(BuildView(graph, project, build), consumers=consumers)
