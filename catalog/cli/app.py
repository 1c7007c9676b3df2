"""The ``catalog`` command line: one module per command, registered here.

Starting fast: a command module imports at its top only typer and what its options need;
the work (sqlglot and the analyzer, the Neo4j driver, pydantic records, the report, rich
tables) is imported inside the command, so `catalog --help` loads none of it and each
command loads only its own. A run that names its command registers that command alone
(typer reads the signature of every command it registers, about a tenth of a second for
all of them); `catalog --help` and anything else registers them all. Help is click's plain
text (typer's rich help alone would double the start time).
"""

from __future__ import annotations

import gc
import importlib
import sys
from typing import Any

import typer

from catalog import __version__
from catalog.cli.common import Interrupted, emit, error, stop_on_signals

# name -> (module under catalog.cli, its function or, for a group, its Typer app), in the
# order of a user's day: store, ask, look back, analyze without Neo4j, run the server
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("build_cmd", "build"),
    "impact": ("ask_cmd", "impact"),
    "trace": ("ask_cmd", "trace"),
    "prune": ("prune_cmd", "prune"),
    "check": ("check_cmd", "check"),
    "query": ("query_cmd", "query"),
    "report": ("report_cmd", "report"),
    "unused": ("unused_cmd", "unused"),
    "docs": ("docs_cmd", "docs"),
    "builds": ("history_cmd", "builds"),
    "diff": ("history_cmd", "diff"),
    "history": ("history_cmd", "history"),
    "gc": ("history_cmd", "gc"),
    "forget": ("history_cmd", "forget"),
    "lineage": ("lineage_cmd", "lineage"),
    "evaluate": ("evaluate_cmd", "evaluate"),
    "export": ("export_cmd", "export"),
    "explore": ("explore_cmd", "explore"),
    "mcp": ("mcp_cmd", "mcp"),
    "lsp": ("lsp_cmd", "lsp"),
    "neo4j": ("neo4j_cmd", "app"),
}


def _version(value: bool) -> None:
    if value:
        emit("text", text=lambda: f"catalog {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Column-level lineage catalog for dbt projects, stored as versioned builds in Neo4j."""


def make_app(only: str | None = None) -> typer.Typer:
    """The command line with every command, or with the command ``only`` alone."""
    cli = typer.Typer(
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
    for name, (module, attr) in COMMANDS.items():
        if only is not None and name != only:
            continue
        target = getattr(importlib.import_module(f"catalog.cli.{module}"), attr)
        if isinstance(target, typer.Typer):
            cli.add_typer(target, name=name)
        else:
            cli.command(name)(target)
    cli.callback()(_root)
    return cli


def __getattr__(name: str) -> Any:
    """``app``: the command line with every command (made on first use)."""
    if name == "app":
        globals()["app"] = full = make_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    stop_on_signals()
    args = sys.argv[1:]
    try:
        make_app(args[0] if args and args[0] in COMMANDS else None)()
    except Interrupted as e:  # between commands' own handlers (option parsing, start-up)
        error(e.message)
        sys.exit(e.exit_code)
    finally:
        # the process ends: the objects left (a large project's, the analysis's cyclic
        # syntax trees) are not scanned by one more collection on the way out (0.2 s after
        # a check of 5,000 models); at-exit handlers and the streams' flushes still run
        gc.freeze()


if __name__ == "__main__":
    main()
