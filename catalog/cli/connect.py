"""Neo4j connection options shared by every command that reads or writes the graph."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

import typer

from catalog import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from catalog.store.graph import Graph

_PANEL = "Neo4j connection"
UriOpt = Annotated[
    str | None,
    typer.Option("--uri", help="bolt://, neo4j:// or neo4j+s:// URI. Default: $NEO4J_URI, else the local server.", rich_help_panel=_PANEL),
]
UserOpt = Annotated[str | None, typer.Option("--user", help="Default: $NEO4J_USER, else neo4j.", rich_help_panel=_PANEL)]
PasswordOpt = Annotated[
    str | None, typer.Option(
        "--password",
        help="Default: $NEO4J_PASSWORD, else, for the local server's URI, its password file "
        "($CATALOG_NEO4J_HOME/server/password, see `catalog neo4j status`). Never printed.",
        rich_help_panel=_PANEL,
    ),
]
DatabaseOpt = Annotated[
    str | None, typer.Option("--database", help="Default: $NEO4J_DATABASE, else neo4j.", rich_help_panel=_PANEL)
]

TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0.001,
        help=(
            "Seconds to wait for Neo4j: to connect, for one transaction, and to retry one after a lock "
            f"conflict. Default: $NEO4J_TIMEOUT, else {DEFAULT_TIMEOUT:g}."
        ),
        rich_help_panel=_PANEL,
    ),
]

ReadTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0.001,
        help=(
            "Seconds to wait for Neo4j to connect and, when given (or $NEO4J_TIMEOUT is set), for one "
            f"transaction. Default: {DEFAULT_TIMEOUT:g} to connect, no limit on reading the build (its time grows with the project)."
        ),
        rich_help_panel=_PANEL,
    ),
]


@contextlib.contextmanager
def graph_from(
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    timeout: float | None = None,
    whole_build: bool = False,
) -> Iterator[Graph]:
    """The graph of the configured Neo4j. ``whole_build``: the command reads every column of a
    build (a report, an explorer page, an export), which takes longer the larger the project, so
    its transactions are not ended after the default timeout unless --timeout or NEO4J_TIMEOUT
    asks for one (connecting is bounded either way)."""
    from catalog.settings import Neo4jSettings
    from catalog.store.connection import open_driver
    from catalog.store.graph import Graph

    settings = Neo4jSettings.from_env(uri, user, password, database, timeout)
    asked = timeout is not None or bool(os.environ.get("NEO4J_TIMEOUT", "").strip())
    with open_driver(settings) as driver:
        yield Graph(driver, settings.database, timeout=settings.timeout if asked or not whole_build else None, uri=settings.uri)
