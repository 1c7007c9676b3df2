"""Neo4j connection options shared by every command that reads or writes the graph: declared
once here (:func:`neo4j_options`), and the one place the graph is opened (:func:`graph_from`)."""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from catalog import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from catalog.settings import Neo4jSettings
    from catalog.store.graph import Graph

F = TypeVar("F", bound=Callable[..., Any])

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


def graph_from(
    uri: str | None = None,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    timeout: float | None = None,
    whole_build: bool = False,
) -> contextlib.AbstractContextManager[Graph]:
    """The graph of the configured Neo4j (:meth:`Neo4jOptions.graph`)."""
    return Neo4jOptions(uri, user, password, database, timeout, whole_build).graph()


@dataclass(frozen=True)
class Neo4jOptions:
    """The five connection options as a command received them (None: not given)."""

    uri: str | None = None
    user: str | None = None
    password: str | None = None
    database: str | None = None
    timeout: float | None = None
    whole_build: bool = False

    @contextlib.contextmanager
    def graph(self) -> Iterator[Graph]:
        """The graph these options name, open for the length of a ``with`` block: the one place
        a command connects. ``whole_build``: the command reads every column of a build (a
        report, an explorer page, an export), which takes longer the larger the project, so its
        transactions are not ended after the default timeout unless --timeout or NEO4J_TIMEOUT
        asks for one (connecting is bounded either way)."""
        from catalog.store.graph import open_graph

        settings = self.settings()
        with open_graph(settings, settings.timeout if self.timeout_asked or not self.whole_build else None) as graph:
            yield graph

    def settings(self) -> Neo4jSettings:
        """The settings these options and the environment give, without connecting."""
        from catalog.settings import Neo4jSettings

        return Neo4jSettings.from_env(self.uri, self.user, self.password, self.database, self.timeout)

    @property
    def timeout_asked(self) -> bool:
        """--timeout or $NEO4J_TIMEOUT was given (a whole build's read is bounded only then)."""
        return self.timeout is not None or bool(os.environ.get("NEO4J_TIMEOUT", "").strip())


def neo4j_options(whole_build: bool = False) -> Callable[[F], F]:
    """A command's ``neo4j: Neo4jOptions`` parameter becomes --uri, --user, --password,
    --database and --timeout at its place in the command's options (and --help), and reaches
    the command as one :class:`Neo4jOptions`. ``whole_build``: the command reads a whole build
    (:func:`graph_from`), and --timeout says so."""
    names = ("uri", "user", "password", "database", "timeout")
    kinds = (UriOpt, UserOpt, PasswordOpt, DatabaseOpt, ReadTimeoutOpt if whole_build else TimeoutOpt)

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        params: list[inspect.Parameter] = []
        for p in signature.parameters.values():
            if p.name == "neo4j":
                params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=k) for n, k in zip(names, kinds)]
            else:
                params.append(p.replace(kind=inspect.Parameter.KEYWORD_ONLY))
        if "neo4j" not in signature.parameters:
            raise TypeError(f"{command.__name__} takes no neo4j parameter")

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            given = {n: kwargs.pop(n, None) for n in names}
            return command(**kwargs, neo4j=Neo4jOptions(**given, whole_build=whole_build))

        wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in params} | {"return": signature.return_annotation}
        return wrapper  # type: ignore[return-value]

    return decorate


NEO4J = Neo4jOptions()  # a command's `neo4j` default, replaced by :func:`neo4j_options`
