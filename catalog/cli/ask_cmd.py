"""``catalog impact`` and ``catalog trace``: downstream and upstream of columns."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from catalog.cli.common import AtOpt, BuildOpt, FormatJsonOpt, ProjectOpt, build_ref, emit, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options
from catalog.report.limits import DEFAULT_ANSWER_ROWS


class Format(str, Enum):
    table = "table"
    json = "json"
    md = "md"
    selector = "selector"


Columns = Annotated[
    list[str],
    typer.Argument(
        help="Columns as MODEL.COLUMN (orders.amount), SOURCE.TABLE.COLUMN (shop.orders.id) or UNIQUE_ID.COLUMN; case-insensitive.",
        show_default=False,
    ),
]
DepthOpt = Annotated[int | None, typer.Option("--depth", min=1, help="Follow at most this many column edges (default: any depth).")]
MaxRowsOpt = Annotated[
    int,
    typer.Option("--max-rows", min=0, help="Columns listed in table and md output (0: all); json and selector always hold every one."),
]


def _emit(answer, kind: str, fmt: Format, as_json: bool, max_rows: int) -> None:
    from catalog.report.answers import answer_dict, answer_markdown, answer_selector, answer_table

    emit(
        fmt,
        as_json,
        json=lambda: answer_dict(answer, kind),
        md=lambda: answer_markdown(answer, kind, max_rows),
        selector=lambda: answer_selector(answer),
        table=lambda: answer_table(answer, kind, max_rows),
    )


@handle_errors
@neo4j_options()
def impact(
    columns: Columns,
    depth: DepthOpt = None,
    with_conditions: Annotated[
        bool, typer.Option("--with-conditions", help="Also list models these columns filter, join, group or order (condition lineage).")
    ] = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="table, json, md (Markdown) or selector (for dbt build -s).")] = Format.table,
    as_json: FormatJsonOpt = False,
    max_rows: MaxRowsOpt = DEFAULT_ANSWER_ROWS,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    at: AtOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """What changes downstream if these columns change: every column reached, at any depth,
    with the shortest path, the type of each hop, and whether it only passes the value
    through (safe to rename along) or feeds a calculation (needs review)."""
    from catalog.memory import paused_gc
    from catalog.query import BuildView

    with paused_gc(), neo4j.graph() as graph:  # tens of thousands of records, no cycles
        answer = BuildView(graph, project, build_ref(build, at)).impact(columns, max_depth=depth, with_conditions=with_conditions)
        _emit(answer, "impact", fmt, as_json, max_rows)
    say(f"{len(answer.columns)} downstream columns in {len(answer.models())} models")


@handle_errors
@neo4j_options()
def trace(
    columns: Columns,
    depth: DepthOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="table, json, md (Markdown) or selector.")] = Format.table,
    as_json: FormatJsonOpt = False,
    max_rows: MaxRowsOpt = DEFAULT_ANSWER_ROWS,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    at: AtOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Where these columns come from: every upstream column back to sources and seeds, with
    the expression at each hop, so you can read how the value is computed."""
    from catalog.memory import paused_gc
    from catalog.query import BuildView

    with paused_gc(), neo4j.graph() as graph:
        answer = BuildView(graph, project, build_ref(build, at)).trace(columns, max_depth=depth)
        _emit(answer, "trace", fmt, as_json, max_rows)
    say(f"{len(answer.columns)} upstream columns in {len(answer.models())} models")
