"""``catalog builds``, ``catalog diff``, ``catalog history`` and ``catalog gc``: the history of stored builds."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Annotated

import typer

from catalog.cli.common import FormatJsonOpt, JsonOpt, ProjectOpt, emit, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options

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
@neo4j_options()
def builds(
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """List the builds of a project, newest first, with their status, the git commit (+dirty
    when the tree had changes) and branch of the project they were built from, and counts."""
    from catalog.history import list_builds
    from catalog.report.history import builds_table

    with neo4j.graph() as graph:
        rows = list_builds(graph, _project(graph, project))
    emit("table", as_json, json=lambda: [b.model_dump() for b in rows], table=lambda: builds_table(rows))


@handle_errors
@neo4j_options()
def diff(
    from_build: Annotated[int | None, typer.Argument(help="Older build id (default: the build before TO).", show_default=False)] = None,
    to_build: Annotated[int | None, typer.Argument(help="Newer build id (default: the active build).", show_default=False)] = None,
    fmt: Annotated[DiffFormat, typer.Option("--format", "-f", help="table, json, or md (a pull-request comment).")] = DiffFormat.table,
    as_json: JsonOpt = False,
    project: ProjectOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Column edges added, removed and changed (expression, type, resolved), condition edges,
    model status changes, and columns added, removed, or whose data type, description, tags,
    meta or PII flag changed, between two builds (default: the previous build and the active one)."""
    from catalog.history import diff_builds
    from catalog.report.history import diff_markdown, diff_table

    with neo4j.graph() as graph:
        d = diff_builds(graph, _project(graph, project), from_build, to_build)
    emit(fmt, as_json, json=lambda: {**d.model_dump(), "counts": d.counts()}, md=lambda: diff_markdown(d), table=lambda: diff_table(d))


@handle_errors
@neo4j_options()
def history(
    name: Annotated[
        str,
        typer.Argument(help="A column as MODEL.COLUMN (orders.amount), SOURCE.TABLE.COLUMN or UNIQUE_ID.COLUMN, or metric:NAME, exposure:NAME, saved_query:NAME.", show_default=False),
    ],
    upstream: Annotated[bool, typer.Option("--upstream", help="Also the changes of every column it reads, at any depth: what changed upstream, newest first.")] = False,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Only builds from this one on (a build id or a commit prefix), or that became active at or after a time (2026-11-01, UTC)."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most this many rows, the newest (default: all).")] = None,
    fmt: Annotated[DiffFormat, typer.Option("--format", "-f", help="table, json, or md (Markdown).")] = DiffFormat.table,
    as_json: FormatJsonOpt = False,
    project: ProjectOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """When a column changed, what it read then, and which commit did it: one row per build in
    which anything about it changed (appeared, expression, transformation type, upstream columns
    added or removed, data type, description, tags, PII, its model's status, removed), with the
    build's commit and time, newest first. A column since removed or renamed is found in the
    newest build that had it. --upstream widens it to every column it reads (as that build
    traces them): the root-cause question."""
    from catalog.column_history import node_history
    from catalog.report.history import history_markdown, history_notes, history_table

    with neo4j.graph() as graph:
        h = node_history(graph, _project(graph, project), name, since=since, limit=limit, upstream=upstream)
    emit(fmt, as_json, json=lambda: h.model_dump(), md=lambda: history_markdown(h), table=lambda: history_table(h))
    if fmt == DiffFormat.table and not as_json:
        for note in history_notes(h):
            say(note)


@handle_errors
@neo4j_options()
def gc(
    keep: Annotated[int, typer.Option("--keep", min=1, help="How many of the newest finished builds to keep (the active build is always kept).")] = 10,
    project: ProjectOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Delete old builds and the relationships only they could see. The active build is never
    touched. `catalog history` then says from which build on it knows."""
    from catalog.history import collect_garbage

    with neo4j.graph() as graph:
        result = collect_garbage(graph, _project(graph, project), keep)
    read = "".join(f"; build {b} is read by {', '.join(w.replace('=', ' build ') for w in who)}" for b, who in result.read_by.items())
    emit("text", as_json, json=result.model_dump, text=lambda: (
        f"kept builds {', '.join(map(str, result.kept))}{read}; deleted {result.builds_deleted} builds "
        f"and {result.relationships_deleted} relationships, {result.nodes_deleted} model and column nodes"
    ))  # fmt: skip


@handle_errors
@neo4j_options()
def forget(
    project: Annotated[str, typer.Argument(help="The project name, as `catalog builds` and `catalog query list_projects` show it.")],
    yes: Annotated[bool, typer.Option("--yes", help="Really delete: required, there is no undo.")] = False,
    as_json: JsonOpt = False,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Delete every build, model and column stored for one project. Other projects are untouched."""
    if not yes:
        raise typer.BadParameter("pass --yes to delete the project's whole history", param_hint="--yes")
    from catalog.history import forget_project

    with neo4j.graph() as graph:
        result = forget_project(graph, project, progress=say)
    emit("text", as_json, json=result.model_dump, text=lambda: f"forgot {project}: {result.builds_deleted} builds, {result.nodes_deleted} models and columns")
