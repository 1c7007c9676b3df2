"""``catalog build PATH``: analyze a dbt project and store it as a new build in Neo4j."""

from __future__ import annotations

from typing import Annotated

import typer

from catalog.cli.common import DialectOpt, JobsOpt, JsonOpt, ProjectPath, handle_errors, print_json, say, show, warn_inputs
from catalog.cli.connect import DatabaseOpt, PasswordOpt, UriOpt, UserOpt, graph_from


@handle_errors
def build(
    path: ProjectPath,
    full: Annotated[bool, typer.Option("--full", help="Analyze every model again, reusing nothing.")] = False,
    as_json: JsonOpt = False,
    project_name: Annotated[
        str | None,
        typer.Option("--project", help="Store under this name instead of the dbt project's name (e.g. one per environment)."),
    ] = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    uri: UriOpt = None,
    user: UserOpt = None,
    password: PasswordOpt = None,
    database: DatabaseOpt = None,
) -> None:
    """Analyze a dbt project and store its column lineage in Neo4j as a new build.

    Only models whose SQL or upstream columns changed since the active build are analyzed
    again; the rest is reused. The new build becomes active in one step once it is fully
    written: a crash or Ctrl-C leaves the previous build active and intact.
    """
    from catalog.build import Builder
    from catalog.report.build_summary import summary_table

    with graph_from(uri, user, password, database) as graph:
        summary = Builder(
            graph, path, full=full, dialect=dialect, jobs=jobs, progress=say,
            project_name=project_name,
        ).run()
    warn_inputs(summary.warnings)
    if as_json:
        print_json(summary.model_dump(mode="json"))
    else:
        show(summary_table(summary))
