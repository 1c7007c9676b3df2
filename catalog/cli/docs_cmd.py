"""``catalog docs PATH``: descriptions and PII tags written back into the project's YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from catalog.cli.common import (
    EXIT_USAGE,
    BuildOpt,
    DialectOpt,
    JobsOpt,
    JsonOpt,
    ProjectOpt,
    Verbatim,
    emit,
    fail,
    handle_gate_errors,
    say,
)
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options

EXIT_CHANGES = 1  # --check: something would change; 2: could not run (handle_gate_errors)


@handle_gate_errors
@neo4j_options(whole_build=True)
def docs(
    path: Annotated[Path, typer.Argument(help="A dbt project folder: its YAML files are read and written, its target/ read.")],
    write: Annotated[bool, typer.Option("--write", help="Apply the changes to the YAML files.")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 1 when something would change, 0 otherwise (2: could not run).")
    ] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the changes as a unified diff (the default).")] = False,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", "-s", help="Only these models: dbt names with + graph operators (+orders, stg_orders+); name.v2 for one version, version:latest; a,b intersects."),
    ] = None,
    pii: Annotated[bool, typer.Option("--pii", help="Also tag pii the columns PII values reach unmasked.")] = False,
    descriptions: Annotated[
        bool, typer.Option("--docs/--no-docs", help="Write inherited descriptions (--no-docs: only the PII tags of --pii).")
    ] = True,
    as_json: JsonOpt = False,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Write undocumented columns' descriptions and missing PII tags into the project's YAML,
    along the column lineage.

    A column without a description inherits the one of the nearest documented column its
    value is copied from (passthrough and renamed edges, so a renamed column inherits too);
    when the nearest candidates disagree nothing is written and they are listed. With --pii,
    a column that a PII-tagged column's value reaches (any depth, not through a hash or
    masking function) gets the tag pii. Existing descriptions and tags are never replaced;
    comments, order and quoting of the rest of each file stay byte for byte.

    The lineage is PATH's, analyzed here without Neo4j; with --project or --build, that of
    the build stored in Neo4j instead. Prints a unified diff (--diff, the default), applies
    it (--write) or only says whether anything would change (--check, for CI).
    """
    from catalog.cli.inputs import read_input
    from catalog.docs.run import plan_project_docs, write_docs

    if write and check:
        fail("--write and --check exclude each other: --check changes nothing", EXIT_USAGE)
    if not descriptions and not pii:
        fail("--no-docs without --pii leaves nothing to write", EXIT_USAGE)
    stored = project is not None or build is not None
    loaded = read_input(None if stored else path, dialect=dialect, jobs=jobs, project=project, build=build, neo4j=neo4j, consumers=False)
    run = plan_project_docs(path, loaded, select=select, docs=descriptions, pii=pii)
    for conflict in run.conflicts():
        say(conflict)
    if as_json or not write or diff:
        emit("diff", as_json, diff=lambda: Verbatim(run.diff()), json=run.to_dict)
    if write:
        write_docs(run)
    say(run.summary(written=write))
    if check and run.plan.files:
        raise typer.Exit(EXIT_CHANGES)
