"""``catalog builds``, ``catalog diff`` and ``catalog gc``: the history of stored builds."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Annotated

import typer

from catalog.cli.common import JsonOpt, ProjectOpt, emit, handle_errors, print_json, print_text, say, show
from catalog.cli.connect import DatabaseOpt, PasswordOpt, TimeoutOpt, UriOpt, UserOpt, graph_from

if TYPE_CHECKING:
    from catalog.store.graph import Graph



class DiffFormat(str, Enum):
    table = "table"
    json = "json"
    md = "md"


def _project(graph: Graph, project: str | None) -> str:
    from catalog.history import check_project
    from catalog.query import BuildView

    return check_project(graph, project) if project is not None else BuildView(graph).project


@handle_errors
def builds(
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
    uri: UriOpt = None,
    user: UserOpt = None,
    password: PasswordOpt = None,
    database: DatabaseOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """List the builds of a project, newest first, with their status and counts."""
    from catalog.history import list_builds
    from catalog.report.history import builds_table

    with graph_from(uri, user, password, database, timeout) as graph:
        rows = list_builds(graph, _project(graph, project))
    if as_json:
        print_json([b.model_dump() for b in rows])
    else:
        show(builds_table(rows))


@handle_errors
def diff(
    from_build: Annotated[int | None, typer.Argument(help="Older build id (default: the build before TO).", show_default=False)] = None,
    to_build: Annotated[int | None, typer.Argument(help="Newer build id (default: the active build).", show_default=False)] = None,
    fmt: Annotated[DiffFormat, typer.Option("--format", "-f", help="table, json, or md (a pull-request comment).")] = DiffFormat.table,
    as_json: JsonOpt = False,
    project: ProjectOpt = None,
    uri: UriOpt = None,
    user: UserOpt = None,
    password: PasswordOpt = None,
    database: DatabaseOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Column edges added, removed and changed (expression, type, resolved), condition edges,
    model status changes, and columns added, removed, or whose data type, description, tags,
    meta or PII flag changed, between two builds (default: the previous build and the active one)."""
    from catalog.history import diff_builds
    from catalog.report.history import diff_markdown, diff_table

    with graph_from(uri, user, password, database, timeout) as graph:
        d = diff_builds(graph, _project(graph, project), from_build, to_build)
    emit(fmt, as_json, json=lambda: {**d.model_dump(), "counts": d.counts()}, md=lambda: diff_markdown(d), table=lambda: diff_table(d))


@handle_errors
def gc(
    keep: Annotated[int, typer.Option("--keep", min=1, help="How many of the newest finished builds to keep (the active build is always kept).")] = 10,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
    uri: UriOpt = None,
    user: UserOpt = None,
    password: PasswordOpt = None,
    database: DatabaseOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Delete old builds and the relationships only they could see. The active build is never touched."""
    from catalog.history import collect_garbage

    with graph_from(uri, user, password, database, timeout) as graph:
        result = collect_garbage(graph, _project(graph, project), keep)
    if as_json:
        print_json(result.model_dump())
    else:
        read = "".join(f"; build {b} is read by {', '.join(w.replace('=', ' build ') for w in who)}" for b, who in result.read_by.items())
        print_text(
            f"kept builds {', '.join(map(str, result.kept))}{read}; deleted {result.builds_deleted} builds "
            f"and {result.relationships_deleted} relationships, {result.nodes_deleted} model and column nodes"
        )


@handle_errors
def forget(
    project: Annotated[str, typer.Argument(help="The project name, as `catalog builds` and `catalog query list_projects` show it.")],
    yes: Annotated[bool, typer.Option("--yes", help="Really delete: required, there is no undo.")] = False,
    as_json: JsonOpt = False,
    uri: UriOpt = None,
    user: UserOpt = None,
    password: PasswordOpt = None,
    database: DatabaseOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Delete every build, model and column stored for one project. Other projects are untouched."""
    if not yes:
        raise typer.BadParameter("pass --yes to delete the project's whole history", param_hint="--yes")
    from catalog.history import forget_project

    with graph_from(uri, user, password, database, timeout) as graph:
        result = forget_project(graph, project, progress=say)
    if as_json:
        print_json(result.model_dump())
    else:
        print_text(f"forgot {project}: {result.builds_deleted} builds, {result.nodes_deleted} models and columns")
