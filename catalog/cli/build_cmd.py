"""``catalog build PATH``: analyze a dbt project and store it as a new build in Neo4j."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from catalog.cli.common import DialectOpt, Interrupted, JobsOpt, JsonOpt, ProjectPath, emit, handle_errors, say, warn_inputs
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options


@handle_errors
@neo4j_options()
def build(
    path: ProjectPath,
    full: Annotated[bool, typer.Option("--full", help="Analyze every model again, reusing nothing.")] = False,
    as_json: JsonOpt = False,
    project_name: Annotated[
        str | None,
        typer.Option("--project", help="Store under this name instead of the dbt project's name (e.g. one per environment)."),
    ] = None,
    upstream: Annotated[
        list[str] | None,
        typer.Option(
            "--upstream",
            metavar="PROJECT=BUILD",
            help="dbt Mesh: read the producer project PROJECT (as ref('PROJECT', ...) names it) from its build BUILD "
            "instead of its active build; repeat for several.",
        ),
    ] = None,
    bi: Annotated[
        list[Path] | None,
        typer.Option(
            "--bi",
            metavar="DIR",
            help="Read the BI definitions of DIR (Lightdash charts and dashboards as code, LookML, Metabase API JSON) and store their fields, "
            "charts and dashboards linked to the columns they read; repeat for several. A catalog.yml beside the "
            "project may list more under bi:.",
        ),
    ] = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Analyze a dbt project and store its column lineage in Neo4j as a new build.

    Only models whose SQL or upstream columns changed since the active build are analyzed
    again; the rest is reused. The new build becomes active in one step once it is fully
    written: a crash, a lost connection, Ctrl-C or SIGTERM leaves the previous build active
    and intact (the unfinished one is undone at once, or by the next build).

    dbt Mesh: the nodes of another project (injected by dbt-loom or dbt Cloud) are read from
    that project's active build in the same database (or the --upstream one), so lineage runs
    across the projects; the build records which producer builds it read.
    """
    from catalog.builds import Builder, BuildSummary
    from catalog.report.build_summary import summary_table
    from catalog.store.upstream import parse_upstream

    pins = parse_upstream(upstream or [])
    with neo4j.graph() as graph:
        builder = Builder(
            graph, path, full=full, dialect=dialect, jobs=jobs, progress=say, project_name=project_name, upstream=pins, bi=bi
        )
        try:
            summary: BuildSummary = builder.run()
        except (Interrupted, KeyboardInterrupt) as e:
            raise Interrupted.of(e, builder.left_behind() if builder.undone is not None else "") from None
    warn_inputs(summary.warnings)
    emit("table", as_json, json=lambda: summary.model_dump(mode="json"), table=lambda: summary_table(summary))
