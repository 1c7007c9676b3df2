"""``catalog neo4j start|stop|status``: a local Neo4j Community server without Docker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from catalog import NEO4J_VERSION
from catalog.cli.common import EXIT_NOT_RUNNING, emit, handle_errors, say

if TYPE_CHECKING:
    from catalog.local_neo4j import ServerStatus

app = typer.Typer(
    name="neo4j",
    help=(
        "Run a local Neo4j Community server for the catalog, without Docker.\n\n"
        f"The first start downloads Neo4j {NEO4J_VERSION} (139 MB of jars) from "
        "Maven Central with 'mvn', then runs it with 'java' (17 or 21) in the background. "
        "The server listens on 127.0.0.1 only; its Bolt URI (bolt://127.0.0.1:7687 by default) "
        "is the catalog's default NEO4J_URI.\n\n"
        "Authentication is on: the first start generates a password for the user neo4j and "
        "keeps it in $CATALOG_NEO4J_HOME/server/password, readable only by you. Every catalog "
        "command that connects to this server reads it from there ('catalog neo4j status' "
        "shows where it is, to log into Neo4j Browser).\n\n"
        "Files live under $CATALOG_NEO4J_HOME (default ~/.cache/catalog/neo4j). Ports: "
        "$CATALOG_NEO4J_BOLT_PORT (7687) and $CATALOG_NEO4J_HTTP_PORT (7474).\n\n"
        "Memory: heap, young generation and page cache are sized at each start from the memory "
        "this machine has free and the database's size on disk ('catalog neo4j status' shows them "
        "and why); $CATALOG_NEO4J_HEAP, $CATALOG_NEO4J_YOUNG and $CATALOG_NEO4J_PAGECACHE (512m, 2g) set them instead."
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)

JsonFlag = Annotated[
    bool,
    typer.Option("--json", help="Print the server status as one JSON object on stdout (messages go to stderr)."),
]


def _report(status: ServerStatus, as_json: bool) -> None:
    if as_json:
        emit("json", json=status.model_dump_json)  # one line, as text
        return
    say(f"Neo4j {status.version} (Community): {status.state}" + (f", pid {status.pid}" if status.pid else ""))
    if status.running:
        say(f"  Bolt     {status.bolt_uri}")
        say(f"  Browser  {status.browser_url}")
    if status.auth and status.password_file:
        say(f"  User     {status.user}, password in {status.password_file}")
    elif status.auth:
        say(f"  User     {status.user}, password generated at the first start (catalog neo4j start)")
    else:
        say("  Auth     off (started with --no-auth): any user and password log in")
    memory, later = status.memory, "" if status.pid else " at the next start"
    say(f"  Heap     {memory.heap_mb} MB{later} ({memory.heap_from})")
    say(f"  Young    {memory.young_mb} MB of the heap ({memory.young_from})")
    say(f"  Cache    {memory.pagecache_mb} MB of page cache ({memory.pagecache_from})")
    say(f"  Home     {status.home}")
    say(f"  Log      {status.log_file}")


@app.command()
@handle_errors
def start(
    as_json: JsonFlag = False,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Seconds to wait for Bolt to answer before giving up.")
    ] = 120,
    no_auth: Annotated[
        bool,
        typer.Option(
            "--no-auth",
            help="Run without authentication: any user and password log in (anyone on this machine can "
            "then read and change the graph). The password file is kept for the next start with authentication.",
        ),
    ] = False,
) -> None:
    """Start the local server in the background and wait until Bolt answers.

    Downloads the jars on first use. Does nothing when the server already runs.

    Authentication is on unless --no-auth: the first start generates a random password for the
    user neo4j into $CATALOG_NEO4J_HOME/server/password (mode 0600) and sets it on the server;
    a data directory used before without authentication gets it too. Catalog commands read it
    from there; give it to Neo4j Browser to log in.

    Exits with 1 when a port is taken by another process or the server dies while starting.
    """
    from catalog import local_neo4j
    from catalog.store.connection import start_local_server

    was_running = local_neo4j.status().running
    current = start_local_server(timeout=timeout, progress=say, auth=not no_auth)
    if was_running:
        say("Already running.")
        if current.auth == no_auth:
            say(f"It runs {'with' if current.auth else 'without'} authentication: stop it and start it again to change that.")
    _report(current, as_json)


@app.command()
@handle_errors
def stop(
    as_json: JsonFlag = False,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Seconds to wait after SIGTERM before sending SIGKILL.")
    ] = 60,
) -> None:
    """Stop the local server started by 'catalog neo4j start' (and only that process)."""
    from catalog import local_neo4j

    stopped = local_neo4j.stop(timeout=timeout)
    current = local_neo4j.status()
    say("Stopped." if stopped else "Not running.")
    _report(current, as_json)


@app.command()
@handle_errors
def status(as_json: JsonFlag = False) -> None:
    """Show whether the local server is installed and running, its PID, URIs and files.

    Exits with 3 when the server is not running (as `pg_ctl status` does), so scripts can test it.
    """
    from catalog import local_neo4j

    current = local_neo4j.status()
    _report(current, as_json)
    if not current.running:
        raise typer.Exit(EXIT_NOT_RUNNING)
