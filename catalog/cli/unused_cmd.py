"""``catalog unused``: the columns nothing reads, by model."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from catalog.cli.common import AtOpt, BuildOpt, FormatJsonOpt, ProjectOpt, build_ref, emit, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options


class Format(str, Enum):
    table = "table"
    json = "json"
    md = "md"


@handle_errors
@neo4j_options()
def unused(
    models: Annotated[
        list[str] | None,
        typer.Argument(help="Only these models, seeds or snapshots (name or unique id); default: every one.", show_default=False),
    ] = None,
    end_models: Annotated[
        bool,
        typer.Option("--end-models", help="Also the columns of end models (nothing in the catalog reads them: a dashboard the "
                     "catalog does not know may), and what only they read."),
    ] = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="table, json, or md (Markdown).")] = Format.table,
    as_json: FormatJsonOpt = False,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    at: AtOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Columns nothing reads, by the model that could drop them, with why: `no reader`, or
    `read only by unused columns` (drop those first).

    A column is read when it feeds a column or a BI field, is used in a WHERE, JOIN, GROUP BY,
    HAVING, QUALIFY, window or ORDER BY, or is read by a semantic model, metric, exposure, saved
    query or dbt test. An exposure without meta.referenced_columns reads every column of its
    models. Sources are not judged. End models, which nothing in the catalog reads, are the
    project's output and left out unless --end-models."""
    from catalog.query import BuildView
    from catalog.report.unused import notes, unused_markdown, unused_table
    from catalog.unused_columns import find_unused

    with neo4j.graph() as graph:
        answer = find_unused(BuildView(graph, project, build_ref(build, at)), models, end_models)
    emit(fmt, as_json, json=answer.to_dict, md=lambda: unused_markdown(answer), table=lambda: unused_table(answer))
    if fmt == Format.table and not as_json:
        for note in notes(answer):
            say(note)
