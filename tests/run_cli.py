"""The command line as a user runs it, for the tests that check its exact answers."""

from __future__ import annotations

import json
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

from catalog.cli.app import app

runner = CliRunner()


def run(env: dict[str, str | None], *args: str) -> Result:
    """``catalog ARGS`` with ``env`` (the test server's NEO4J_ variables; None unsets one); never a traceback."""
    result = runner.invoke(app, list(args), env=env)
    assert "Traceback" not in result.output, result.output
    return result


def answer(env: dict[str, str | None], *args: str) -> Any:
    """The JSON document a command that answered (exit 0) printed on stdout."""
    result = run(env, *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def one_error(result: Result, code: int = 1) -> str:
    """The one ``Error:`` line of a command that failed with ``code``, and nothing on stdout."""
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    assert result.stdout == ""
    return lines[0]


def unknown_project_hint(line: str, wanted: str) -> list[str]:
    """The names an unknown project's error line suggests, nearest first; the line is checked
    word for word around them. Other tests' projects (``test_<hex>``) may be near the asked one
    too, so a test checks its own project comes first rather than alone."""
    head = f"Error: no project {wanted!r} in this database; did you mean "
    assert line.startswith(head) and line.endswith("?"), line
    return line[len(head) : -1].split(", ")
