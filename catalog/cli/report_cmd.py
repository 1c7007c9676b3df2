"""``catalog report``: the governance report of a build, as HTML, Markdown or JSON."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, TextIO

import typer

from catalog.cli.common import EXIT_USAGE, AtOpt, BuildOpt, ProjectOpt, build_ref, emit, fail, handle_errors, say
from catalog.cli.connect import NEO4J, Neo4jOptions, neo4j_options
from catalog.errors import CatalogError
from catalog.report.limits import DEFAULT_MAX_ROWS, DEFAULT_TOP, MD_CHARS

DEFAULT_HTML = Path("catalog-report.html")


class Format(str, Enum):
    html = "html"
    md = "md"
    json = "json"




@handle_errors
@neo4j_options(whole_build=True)
def report(
    fmt: Annotated[
        Format, typer.Option("--format", "-f", help="html (one self-contained file), md (Markdown, for a pull request) or json.")
    ] = Format.html,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help=f"Write here. Default: {DEFAULT_HTML} for html, stdout for md and json.", dir_okay=False),
    ] = None,
    top: Annotated[int, typer.Option("--top", min=1, help="How many most depended-on columns to list.")] = DEFAULT_TOP,
    max_rows: Annotated[
        int,
        typer.Option("--max-rows", min=0, help="Rows shown per list in html and md (0: all); json always has every row."),
    ] = DEFAULT_MAX_ROWS,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars", min=0,
            help=f"md: at most this many characters, for a pull request (fewer rows per table, then the last sections "
            f"left out, and said so at its top; 0: no limit). Default {MD_CHARS:,}, under GitHub's limit.",
        ),
    ] = MD_CHARS,
    explorer: Annotated[
        Path | None,
        typer.Option(
            "--explorer",
            dir_okay=False,
            help="Also write the lineage explorer of the same build here (html only); "
            "every column the report lists links to its lineage in it.",
        ),
    ] = None,
    history: Annotated[
        int,
        typer.Option("--history", min=0, help="Also show the trends of the last N completed builds up to this one: resolved, "
                     "documented, tested and PII-reach figures, as a table and a chart (0: none)."),
    ] = 0,
    project: ProjectOpt = None,
    build: BuildOpt = None,
    at: AtOpt = None,
    neo4j: Neo4jOptions = NEO4J,
) -> None:
    """Governance report of a build: lineage coverage (model statuses and reasons, resolved
    and unresolved columns), where PII-tagged columns flow, undocumented columns of public
    models, unused columns, the most depended-on columns, descriptions that could be inherited
    along passthrough and renamed edges, and pictures of the lineage around key columns; with
    --history N, how those figures moved over the last N builds."""
    from catalog.report.run import governance_report

    t0 = time.perf_counter()
    if explorer is not None and fmt != Format.html:
        fail("--explorer goes with the html report (--format html)", EXIT_USAGE)
    target = output if output is not None else (DEFAULT_HTML if fmt == Format.html else None)
    governance_report(
        neo4j.graph, fmt.value, lambda write: _output(target, fmt, write), project=project, build=build_ref(build, at),
        top=top, history=history, max_rows=max_rows, max_chars=max_chars, explorer=explorer, target=target, say=say,
    )  # fmt: skip
    _done(target, t0)


def _output(target: Path | None, fmt: Format, write: Callable[[TextIO], object]) -> None:
    """The report, written by ``write``, on stdout or into ``target``."""
    if target is None:
        emit(fmt, **{fmt.value: lambda: write})
        return
    with _written(target) as out:
        write(out)


@contextlib.contextmanager
def _written(target: Path) -> Iterator[TextIO]:
    """``target`` written next to it first, becoming ``target`` once the report is whole (an
    error on the way leaves no half report); anything else (/dev/null, a pipe) is written as it is."""
    direct = target.exists() and not target.is_file()
    part = target if direct else target.with_name(f".{target.name}.part")
    try:
        with part.open("w", encoding="utf-8") as out:
            yield out
        if not direct:
            part.replace(target)
    except OSError as e:
        raise CatalogError(f"{target}: cannot write the report ({e.strerror})") from e
    finally:
        if not direct:
            part.unlink(missing_ok=True)


def _done(target: Path | None, t0: float) -> None:
    if target is not None:
        say(f"Report written in {time.perf_counter() - t0:.1f}s:")
        emit("path", path=lambda: str(target.resolve()))
