"""``catalog mcp [PATH]``: the catalog as a read-only MCP server for AI assistants."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from catalog.cli.common import EXIT_USAGE, BuildOpt, DialectOpt, JobsOpt, ProjectOpt, fail, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options


@handle_errors
@neo4j_options()
def mcp(
    path: Annotated[
        Path | None,
        typer.Argument(
            help="A dbt target folder (or a project folder holding target/): answer from it, analyzed in memory, without "
            "Neo4j (no builds, diff or cypher tools). Without it, answer from the builds stored in Neo4j.",
            show_default=False,
        ),
    ] = None,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    dialect: DialectOpt = None,
    jobs: JobsOpt = None,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1 instead of stdio.")] = False,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="With --http: the port on 127.0.0.1.")] = 8765,
    token: Annotated[
        str | None,
        typer.Option("--token", envvar="CATALOG_MCP_TOKEN", help="With --http: requests must carry `Authorization: Bearer TOKEN` (default: $CATALOG_MCP_TOKEN).", show_default=False),
    ] = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Serve the catalog over the Model Context Protocol (stdio by default), read-only, for
    Claude, VS Code, Cursor and other MCP clients.

    Tools: search, column_lineage, impact, trace, path, model, check_change, and over stored
    builds projects, builds, diff, cypher (read-only Cypher of the catalog graph, planned and
    refused before it runs unless it only reads the graph, ended at --timeout, with a row cap)
    and graph_schema. Each tool takes `project` and `build` (default: --project, --build, else the
    active build); every list is bounded (`limit`, `total`, `truncated`, `next_cursor`), and so is
    every input. Errors are tool errors with the CLI's one-line message; the server goes on
    answering.

    Over stored builds, Neo4j is asked once at start: unreachable, one warning line on stderr
    and the server still starts (each question connects again; a failure is the answer to the
    question that met it); a --project or --build it does not hold exits 2. Each question reads
    what it is about: search, model and column_lineage never read a whole build.
    """
    from catalog.errors import NotFound
    from catalog.mcp.server import make_server
    from catalog.mcp.stored import InMemory, Stored

    if path is not None:
        if project is not None or build is not None:
            fail("--project and --build read a build stored in Neo4j: give them without PATH", EXIT_USAGE)
        source = InMemory(path, dialect=dialect, jobs=jobs)
        where = f"{path} (in memory)"
    else:
        if dialect is not None:
            fail("--dialect applies to PATH: a stored build keeps the dialect it was built with", EXIT_USAGE)
        settings = neo4j.settings()
        asked = neo4j.timeout_asked  # as `catalog explore` reads a build
        source = Stored(settings, project=project, build=build, jobs=jobs, whole_build_timeout=settings.timeout if asked else None)
        unreachable = source.unreachable()
        if unreachable:  # Neo4j may start later: each question connects again
            say(f"catalog mcp: warning: {unreachable}; serving anyway, each question tries again")
        else:
            try:
                source.check_defaults()
            except NotFound as e:
                fail(str(e), EXIT_USAGE)
        source.prepare()
        where = f"Neo4j at {settings.uri}"
    if token is not None and not http:
        fail("--token applies to --http", EXIT_USAGE)
    server = make_server(source, timeout=neo4j.timeout)
    try:
        if http:
            from catalog.mcp.http import serve_http

            say(f"catalog mcp: answering from {where} on http://127.0.0.1:{port}/mcp")
            serve_http(server, port, token)
        else:
            say(f"catalog mcp: answering from {where} on stdio")
            server.run("stdio")
    finally:
        source.close()
