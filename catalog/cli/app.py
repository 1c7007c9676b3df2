"""The ``catalog`` command line: one module per command, registered here.

Starting fast: a command module imports at its top only typer and what its options need;
the work (sqlglot and the analyzer, the Neo4j driver, pydantic records, the report, rich
tables) is imported inside the command, so `catalog --help` loads none of it and each
command loads only its own. Help is click's plain text (typer's rich help alone would
double the start time).
"""

from __future__ import annotations

import sys

import typer

from catalog import __version__
from catalog.cli import (
    ask_cmd,
    build_cmd,
    check_cmd,
    evaluate_cmd,
    explore_cmd,
    export_cmd,
    history_cmd,
    lineage_cmd,
    neo4j_cmd,
    prune_cmd,
    query_cmd,
    report_cmd,
)
from catalog.cli.common import Interrupted, error, stop_on_signals

app = typer.Typer(
    name="catalog",
    help=(
        "Column-level lineage catalog for dbt projects, stored as versioned builds in Neo4j.\n\n"
        "Start with `catalog neo4j start`, then `catalog build PATH` and `catalog impact MODEL.COLUMN`."
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)
# in the order of a user's day: store, ask, look back, analyze without Neo4j, run the server
app.command("build")(build_cmd.build)
app.command("impact")(ask_cmd.impact)
app.command("trace")(ask_cmd.trace)
app.command("prune")(prune_cmd.prune)
app.command("check")(check_cmd.check)
app.command("query")(query_cmd.query)
app.command("report")(report_cmd.report)
app.command("builds")(history_cmd.builds)
app.command("diff")(history_cmd.diff)
app.command("gc")(history_cmd.gc)
app.command("forget")(history_cmd.forget)
app.command("lineage")(lineage_cmd.lineage)
app.command("evaluate")(evaluate_cmd.evaluate)
app.command("export")(export_cmd.export)
app.command("explore")(explore_cmd.explore)
app.add_typer(neo4j_cmd.app, name="neo4j")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"catalog {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Column-level lineage catalog for dbt projects, stored as versioned builds in Neo4j."""


def main() -> None:
    stop_on_signals()
    try:
        app()
    except Interrupted as e:  # between commands' own handlers (option parsing, start-up)
        error(e.message)
        sys.exit(e.exit_code)


if __name__ == "__main__":
    main()
