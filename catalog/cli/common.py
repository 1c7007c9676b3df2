"""What every command shares: options, the one error handler, output helpers.

stdout carries data (tables, JSON); messages and progress go to stderr.
Exit codes: 0 answered, 1 not found or bad input (one ``Error:`` line), 2 usage.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from catalog.errors import CatalogError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

F = TypeVar("F", bound=Callable[..., Any])

# Without a terminal (pipes, CI) rich would wrap tables at 80 columns.
out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, soft_wrap=True, width=None if sys.stderr.isatty() else 200)


def handle_errors(func: F) -> F:
    """Turn a CatalogError into one red line on stderr and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CatalogError as e:
            if os.environ.get("CATALOG_DEBUG"):
                raise
            err.print(f"[bold red]Error:[/] {escape(str(e))}", highlight=False, markup=True)  # names verbatim
            raise typer.Exit(EXIT_FAILED) from None

    return wrapper  # type: ignore[return-value]


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")


ProjectPath = Annotated[
    Path,
    typer.Argument(help="A dbt target folder (with manifest.json) or a dbt project folder that holds target/."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON on stdout instead of a table.")]
DialectOpt = Annotated[
    str | None,
    typer.Option("--dialect", help="SQL dialect for sqlglot; default: from the manifest's adapter type."),
]
JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", min=1, help="Processes for the analysis (default: one per CPU)."),
]
