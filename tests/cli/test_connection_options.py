"""Every command that reads or writes the graph takes the same five connection options, in
the same place and with the same help, and connects with what they say."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
import typer

from catalog.cli.app import app
from run_cli import one_error, run

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "coffee_shop"
CONNECTION = ["uri", "user", "password", "database", "timeout"]
WHOLE_BUILD = {"report", "docs", "explore", "export", "check"}  # they read a whole build: no read limit by default
GRAPH_COMMANDS = {
    "build": [str(EXAMPLE)],
    "impact": ["orders.amount"],
    "trace": ["orders.amount"],
    "prune": ["-c", "orders.amount"],
    "check": [str(EXAMPLE)],
    "query": ["list_projects"],
    "report": ["-f", "json"],
    "docs": [str(EXAMPLE), "--project", "coffee_shop"],
    "builds": [],
    "diff": [],
    "history": ["orders.amount"],
    "gc": [],
    "forget": ["coffee_shop", "--yes"],
    "explore": ["-o", "{tmp}/explorer.html"],
    "export": [],
}
GATES = {"check", "docs"}  # exit 2 when they cannot run


def _commands() -> dict[str, click.Command]:
    return typer.main.get_command(app).commands  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", [*GRAPH_COMMANDS, "mcp", "lsp"])
def test_the_five_options_come_together_with_one_help(name):
    commands = _commands()
    params = [p.name for p in commands[name].params]
    start = params.index("uri")
    assert params[start : start + 5] == CONNECTION
    reference = {p.name: p.help for p in commands["impact" if name not in WHOLE_BUILD else "report"].params}
    assert {p.name: p.help for p in commands[name].params if p.name in CONNECTION} == {n: reference[n] for n in CONNECTION}
    timeout_help = next(p.help for p in commands[name].params if p.name == "timeout")
    assert ("no limit on reading the build" in timeout_help) == (name in WHOLE_BUILD)


@pytest.mark.parametrize("name", GRAPH_COMMANDS)
def test_each_connects_where_the_options_say(name, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in GRAPH_COMMANDS[name]]
    result = run({"NEO4J_URI": None}, name, *args, "--uri", "bolt://127.0.0.1:1", "--user", "someone", "--password", "x", "--timeout", "2")
    line = one_error(result, 2 if name in GATES else 1)
    assert "cannot reach Neo4j at bolt://127.0.0.1:1" in line
