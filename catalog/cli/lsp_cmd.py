"""``catalog lsp``: column lineage in the editor, as a Language Server Protocol server on stdio."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Annotated, BinaryIO

import typer

from catalog.cli.common import EXIT_USAGE, DialectOpt, JobsOpt, fail, handle_errors
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options


@handle_errors
@neo4j_options()
def lsp(
    memory: Annotated[
        bool,
        typer.Option("--memory", help="Answer from each project's target/ analyzed in memory, without Neo4j (re-read when target/manifest.json changes)."),
    ] = False,
    project: Annotated[
        str | None,
        typer.Option("--project", help="The project in the graph (default: the name in the dbt project's dbt_project.yml, else the only one)."),
    ] = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    hover_wait: Annotated[
        float,
        typer.Option("--hover-wait", min=0, help="Seconds a hover waits for a project's lineage while it is first read; then the hover says it is loading."),
    ] = 1.5,
    whole_build: Annotated[
        bool,
        typer.Option("--whole-build", help="Stored: read the whole active build into memory before answering (a longer start), instead of asking Neo4j per question."),
    ] = False,
    stdio: Annotated[bool, typer.Option("--stdio", help="Serve on stdin and stdout (the default and only transport; editors pass it).")] = True,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Serve column lineage to an editor over the Language Server Protocol (stdio), for the
    model, snapshot and analysis .sql files and the schema YAML of dbt projects.

    Hover on a column (its alias or select item, as written in the raw Jinja SQL): type,
    description, PII, status, transformation and expression, its upstream columns one hop
    away with the count back to sources and seeds, and its readers downstream (models,
    metrics, exposures and dashboards, saved queries, semantic models). Go to definition:
    where the upstream columns are written; find references: where the columns that read it
    are. Code lenses: "N downstream" and "M upstream" above each column, running impact or
    trace, whose answer opens as a Markdown document. Diagnostics: unresolved and unknown
    columns with their reason, and over a stored build, once a saved file was compiled (`dbt
    compile`), `catalog check`'s findings against the active build. Where the raw SQL does
    not name a column with certainty, the hover says so and navigation goes to the file's
    first line.

    Answers come from the project's active build stored in Neo4j (--project and the
    connection options; a new build is used once it is active), each asked when it is asked
    (the file's model and its neighbours, one walk of the graph for the counts) unless
    --whole-build reads the whole build into memory first, or with --memory from the
    project's target/ analyzed in memory (a new target/manifest.json, after `dbt compile`, is
    used without a restart). Problems (a file outside any dbt project, a project never built,
    Neo4j down, a half-written manifest) are shown as messages; the server goes on. While a
    project's lineage is first read (a large target is analyzed, a large build read), a hover
    says so and what is being read, after --hover-wait seconds, instead of keeping the editor
    waiting; it answers once the lineage is read.
    """
    try:
        from catalog.lsp.server import make_server
    except ImportError as e:
        fail(f"catalog lsp needs pygls ({e.name} is not installed): pip install 'dbt-column-catalog[lsp]'")
    from catalog.lsp.sources import Options, stop_analyzer

    if memory:
        if project is not None or whole_build:
            fail(f"{'--project' if project is not None else '--whole-build'} names a build stored in Neo4j: give it without --memory", EXIT_USAGE)
        options = Options(memory=True, dialect=dialect, jobs=jobs, hover_wait=hover_wait)
    else:
        if dialect is not None:
            fail("--dialect applies to --memory: a stored build keeps the dialect it was built with", EXIT_USAGE)
        from catalog.mcp.stored import Stored
        settings = neo4j.settings()
        asked = neo4j.timeout_asked  # as `catalog mcp` reads a build
        stored = Stored(settings, project=project, jobs=jobs, whole_build_timeout=settings.timeout if asked else None)
        options = Options(memory=False, project=project, jobs=jobs, stored=stored, hover_wait=hover_wait, whole_build=whole_build)
    server = make_server(options)
    stdin, stdout = _own_stdio()
    try:
        server.start_io(stdin, stdout)
    finally:
        if options.stored is not None:
            options.stored.close()
        stop_analyzer()
        shutil.rmtree(server.answers_dir, ignore_errors=True)


def _own_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The editor's connection on file descriptors of the server's own (not inherited by the
    processes it starts), and devnull on 0 and 1: a child process that outlives a killed server
    cannot hold the connection open, nor write into it; stray prints go to stderr."""
    stdin, stdout = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY)):
        null = os.open(os.devnull, mode)
        os.dup2(null, fd)
        os.close(null)
    sys.stdout = sys.stderr
    return stdin, stdout
