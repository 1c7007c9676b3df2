"""``catalog neo4j start|stop|status``: a local Neo4j Community server without Docker."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from catalog import local_neo4j
from catalog.errors import ServerError

app = typer.Typer(
    name="neo4j",
    help=(
        "Run a local Neo4j Community server for the catalog, without Docker.\n\n"
        f"The first start downloads Neo4j {local_neo4j.NEO4J_VERSION} (about 140 MB of jars) from "
        "Maven Central with 'mvn', then runs it with 'java' (17 or 21) in the background. "
        "The server listens on 127.0.0.1 only, with authentication off; its Bolt URI "
        "(bolt://127.0.0.1:7687 by default) is the catalog's default NEO4J_URI.\n\n"
        "Files live under $CATALOG_NEO4J_HOME (default ~/.cache/catalog/neo4j). Ports: "
        "$CATALOG_NEO4J_BOLT_PORT (7687) and $CATALOG_NEO4J_HTTP_PORT (7474)."
    ),
    no_args_is_help=True,
)

JsonFlag = Annotated[
    bool,
    typer.Option("--json", help="Print the server status as one JSON object on stdout (messages go to stderr)."),
]


def _say(message: str) -> None:
    typer.echo(message, err=True)


def _fail(exc: ServerError) -> NoReturn:
    summary, _, details = str(exc).partition("\n")
    _say(f"Error: {summary}")
    for line in details.splitlines():
        _say(f"  {line}")
    raise typer.Exit(2)


def _report(status: local_neo4j.ServerStatus, as_json: bool) -> None:
    if as_json:
        typer.echo(status.model_dump_json())
        return
    _say(f"Neo4j {status.version} (Community): {status.state}" + (f", pid {status.pid}" if status.pid else ""))
    if status.running:
        _say(f"  Bolt     {status.bolt_uri}")
        _say(f"  Browser  {status.browser_url}")
    _say(f"  Home     {status.home}")
    _say(f"  Log      {status.log_file}")


@app.command()
def start(
    as_json: JsonFlag = False,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Seconds to wait for Bolt to answer before giving up.")
    ] = 120,
) -> None:
    """Start the local server in the background and wait until Bolt answers.

    Downloads the jars on first use. Does nothing when the server already runs.

    Exits with 2 when a port is taken by another process or the server dies while starting.
    """
    try:
        was_running = local_neo4j.status().running
        current = local_neo4j.start(timeout=timeout, progress=_say)
    except ServerError as exc:
        _fail(exc)
    if was_running:
        _say("Already running.")
    _report(current, as_json)


@app.command()
def stop(
    as_json: JsonFlag = False,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Seconds to wait after SIGTERM before sending SIGKILL.")
    ] = 60,
) -> None:
    """Stop the local server started by 'catalog neo4j start' (and only that process)."""
    try:
        stopped = local_neo4j.stop(timeout=timeout)
        current = local_neo4j.status()
    except ServerError as exc:
        _fail(exc)
    _say("Stopped." if stopped else "Not running.")
    _report(current, as_json)


@app.command()
def status(as_json: JsonFlag = False) -> None:
    """Show whether the local server is installed and running, its PID, URIs and files."""
    try:
        current = local_neo4j.status()
    except ServerError as exc:
        _fail(exc)
    _report(current, as_json)
