"""What every command shares: options, the one error handler, the one place that prints.

stdout carries data (tables, JSON, Markdown); messages and progress go to stderr.
Exit codes: 0 answered, 1 not found or bad input (one ``Error:`` line), 2 usage,
3 ``neo4j status`` when the server is not running, 130 Ctrl-C (SIGINT), 143 SIGTERM
(one ``Error:`` line too).

User data (model, column and project names, SQL) is printed verbatim: the consoles below
never read rich markup (``[bold]``, ``[/]``, ``[link=...]``) or emoji codes in what they
print, so styles are only ever set with :class:`rich.text.Text`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, NoReturn, TypeVar

import typer

from catalog.errors import CatalogError

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from catalog.extract import InputWarning

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_COULD_NOT_RUN = 2  # a gate (check): usage, bad input or Neo4j unreachable, apart from 1 = findings
EXIT_NOT_RUNNING = 3

F = TypeVar("F", bound=Callable[..., Any])


class Interrupted(BaseException):
    """Ctrl-C (SIGINT) or SIGTERM: the command stops, ``finally`` blocks and clean-ups run,
    and it exits with 128 + the signal's number. ``detail`` says what was left how."""

    def __init__(self, signum: int, detail: str = ""):
        self.signum = signum
        self.detail = detail
        super().__init__(self.message)

    @classmethod
    def of(cls, error: BaseException, detail: str = "") -> "Interrupted":
        signum = error.signum if isinstance(error, Interrupted) else signal.SIGINT
        return cls(signum, detail)

    @property
    def message(self) -> str:
        what = "interrupted (Ctrl-C)" if self.signum == signal.SIGINT else f"stopped by {signal.Signals(self.signum).name}"
        return f"{what}; {self.detail}" if self.detail else what

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def stop_on_signals() -> None:
    """From now on SIGINT and SIGTERM raise :class:`Interrupted` in the main thread. A process
    forked from this one (the analysis workers) lets it pass: the main process stops them.
    A signal ignored when the command started (``nohup``, a background job's SIGINT) stays ignored."""
    main_pid = os.getpid()

    def handler(signum: int, _frame: Any) -> None:
        if os.getpid() != main_pid:
            return  # a worker ending on its own would break its pool while the main process stops it
        raise Interrupted(signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, handler)


@functools.cache
def _console(stderr: bool) -> Console:
    """stdout's or stderr's console, made on first use (rich loads only when something prints)."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # Without a terminal (pipes, CI) rich would wrap tables at 80 columns: 200 unless $COLUMNS says.
    return Console(
        stderr=stderr,
        soft_wrap=True,
        width=None if stream.isatty() or os.environ.get("COLUMNS", "").isdigit() else 200,
        markup=False,
        emoji=False,
        highlight=False,
    )


def show(renderable: RenderableType) -> None:
    """A table or other renderable on stdout."""
    _console(stderr=False).print(renderable)


def print_text(text: str) -> None:
    """Text on stdout exactly as given (Markdown, selectors)."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def print_json(data: Any) -> None:
    """JSON on stdout, indented (:func:`catalog.report.json_text.json_text`: with orjson when
    installed, the 12,500 columns of a hub's impact take a tenth of a second instead of four).
    A whole project's lineage is written model by model instead
    (:func:`catalog.report.lineage_json.write_lineage_json`)."""
    from catalog.report.json_text import json_text

    sys.stdout.write(json_text(data))


class Verbatim(str):
    """Text :func:`emit` writes exactly as it is, no newline added (a diff, newline-delimited JSON)."""


def text_lines(*parts: str) -> Verbatim:
    """Texts one below the other, each ending its line, as :func:`print_text` prints them."""
    return Verbatim("".join(p if p.endswith("\n") else p + "\n" for p in parts))


def emit(fmt: Any, as_json: bool = False, **renderers: Callable[[], Any]) -> Any:
    """Print a command's answer in the format asked: the one place every answer is written.
    ``fmt``: the ``--format`` value (``--json`` is ``--format json``), or the one format a
    command has; ``renderers``: per format name, what makes the answer in it: data (a dict or
    list) is printed as indented JSON, :class:`Verbatim` text exactly, other text as a line
    (Markdown, selectors, annotations), a function as a writer given stdout (an answer too large
    to hold whole; what it returns is returned), anything else as a rich renderable (tables)."""
    name = "json" if as_json else getattr(fmt, "value", fmt)
    out = renderers[name]()
    if isinstance(out, (dict, list)):
        print_json(out)
    elif isinstance(out, Verbatim):
        sys.stdout.write(out)
    elif isinstance(out, str):
        print_text(out)
    elif callable(out):
        return out(sys.stdout)
    else:
        show(out)
    return None


def say(message: str) -> None:
    """A message on stderr, verbatim."""
    from rich.text import Text

    _console(stderr=True).print(Text(message))


def warn(message: str) -> None:
    """A ``Warning:`` line on stderr: the command goes on, with a weaker answer."""
    from rich.text import Text

    _console(stderr=True).print(Text.assemble(("Warning:", "bold yellow"), " ", message))


def warn_inputs(warnings: Sequence[InputWarning]) -> list[dict[str, Any]]:
    """Say each weaker input on stderr; return them as JSON data (``"warnings"`` of --json)."""
    for w in warnings:
        warn(w.message)
    return [w.model_dump(mode="json") for w in warnings]


def error(message: str) -> None:
    """One ``Error:`` line on stderr (further lines of the message indented below it)."""
    from rich.text import Text

    summary, _, details = message.strip().partition("\n")
    err = _console(stderr=True)
    err.print(Text.assemble(("Error:", "bold red"), " ", summary))
    for line in details.splitlines():
        err.print(Text(f"  {line}"))


def fail(message: str, code: int = EXIT_FAILED) -> NoReturn:
    """One ``Error:`` line on stderr, then exit."""
    error(message)
    raise typer.Exit(code)


def handle_errors(func: F) -> F:
    """Turn any failure into one ``Error:`` line on stderr and exit code 1, never a traceback
    (Ctrl-C and SIGTERM: one line too, exit 130 / 143).

    A CatalogError says what and where; anything else is a bug, named by its type
    (``CATALOG_DEBUG=1`` shows its traceback). Typer's own exits and usage errors pass.
    """
    return _guarded(func, EXIT_FAILED)


def handle_gate_errors(func: F) -> F:
    """:func:`handle_errors` for a command that is a gate (``check``): its exit code 1 means
    "findings at or above --fail-on", so a failure to run exits 2, as a usage error does."""
    return _guarded(func, EXIT_COULD_NOT_RUN)


def _guarded(func: F, failed: int) -> F:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except (Interrupted, KeyboardInterrupt) as e:
            stop = e if isinstance(e, Interrupted) else Interrupted.of(e)
            fail(stop.message, stop.exit_code)
        except BrokenPipeError:  # the reader stopped reading (`| head`): nothing to tell it
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(failed) from None
        except CatalogError as e:
            if os.environ.get("CATALOG_DEBUG"):
                raise
            fail(str(e), failed)
        except Exception as e:  # noqa: BLE001 - the last resort: no traceback reaches a user
            if os.environ.get("CATALOG_DEBUG"):
                raise
            fail(f"unexpected {type(e).__name__}: {e} (set CATALOG_DEBUG=1 to see where)", failed)

    return wrapper  # type: ignore[return-value]


ProjectPath = Annotated[
    Path,
    typer.Argument(help="A dbt target folder (with manifest.json) or a dbt project folder that holds target/."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON on stdout instead of a table.")]
FormatJsonOpt = Annotated[bool, typer.Option("--json", help="Same as --format json.")]
ProjectOpt = Annotated[str | None, typer.Option("--project", help="dbt project name in the graph; needed only when the database holds several.")]
BuildOpt = Annotated[
    str | None,
    typer.Option("--build", help="Read this build: its id, a commit (prefix) it was built from, or a time (the build active then); default: the active build."),
]
AtOpt = Annotated[
    str | None,
    typer.Option("--at", help="Read the build that was active at this time (2026-11-01, 2026-11-01T14:30:00Z; UTC unless an offset is given) or the newest built from this commit (prefix)."),
]


def build_ref(build: str | None, at: str | None) -> str | None:
    """The build a command reads: ``--build`` (an id, commit or time) or ``--at`` (a commit or
    time, never an id: ``--at 1234567`` is a commit), not both; resolved against the stored
    builds by :class:`catalog.query.BuildView`."""
    if build is not None and at is not None:
        raise typer.BadParameter("give --build or --at, not both", param_hint="--at")
    if build is not None and build.strip().isdigit() and int(build) < 1:
        raise typer.BadParameter(f"{build} is not a build id (ids start at 1)", param_hint="--build")
    if at is None:
        return build
    from catalog.history import BuildAt

    return BuildAt(at)


DialectOpt = Annotated[
    str | None,
    typer.Option("--dialect", help="SQL dialect for sqlglot; default: from the manifest's adapter type."),
]
JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", min=1, help="Processes for the analysis (default: one per CPU)."),
]
