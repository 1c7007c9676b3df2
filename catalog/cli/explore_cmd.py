"""``catalog explore [PATH]``: the lineage explorer, one self-contained HTML file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from catalog.cli.common import AtOpt, BuildOpt, DialectOpt, JobsOpt, JsonOpt, ProjectOpt, build_ref, emit, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options
from catalog.cli.inputs import OptionalProjectPath, read_input

DEFAULT_OUTPUT = Path("catalog-explorer.html")


@handle_errors
@neo4j_options(whole_build=True)
def explore(
    path: OptionalProjectPath = None,
    output: Annotated[
        Path, typer.Option("--output", "-o", dir_okay=False, help="The HTML file to write.")
    ] = DEFAULT_OUTPUT,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    at: AtOpt = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    neo4j: Neo4jOptions = NEO4J,
    as_json: JsonOpt = False,
) -> None:
    """Write the lineage explorer: one HTML file that works offline, opened from disk.

    Search any model or column by name (fuzzy, as you type); a column's lineage is drawn left
    to right, upstream to the sources and downstream to the last columns it feeds, each edge
    styled by its type (passthrough, renamed, derived, source, unknown) with its expression on
    hover and click. Conditions (where, join, group by, ...) can be shown, the depth limited;
    unresolved columns and failed models are marked with their reason. Clicking re-centres;
    the address (#col=UNIQUE_ID.COLUMN or #model=UNIQUE_ID) keeps the selection to share.

    Without PATH, reads a build stored in Neo4j (the active one, or --build); with PATH, runs
    the analysis on that dbt target without Neo4j.
    """
    t0 = time.perf_counter()
    from catalog.report.explorer import write_explorer

    data = read_input(
        path, dialect=dialect, jobs=jobs, project=project, build=build_ref(build, at),
        neo4j=neo4j, consumers=True,
    )  # fmt: skip
    size = write_explorer(output, data)
    if not as_json:
        say(f"Explorer of {len(data.relations)} nodes written in {time.perf_counter() - t0:.1f}s ({size / 1e6:.1f} MB):")
    emit("path", as_json, path=lambda: str(output.resolve()), json=lambda: {
        "path": str(output.resolve()), "bytes": size, "project": data.project, "build": data.build_id, "nodes": len(data.relations),
    })  # fmt: skip
