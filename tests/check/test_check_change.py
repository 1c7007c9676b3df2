"""``catalog check --state`` and the MCP tool ``check_change`` are two doors into one use case
(:func:`catalog.check_change.check_change`): on the same change they give the same report."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.mcp import tools
from catalog.mcp.stored import InMemory
from edits import edit_sql
from test_check import DROP_STATUS, EXAMPLE, STG_ORDERS, copy


def test_check_and_check_change_give_one_report(tmp_path):
    target = copy(EXAMPLE, tmp_path)
    edit_sql(target, STG_ORDERS, *DROP_STATUS)
    done = CliRunner().invoke(app, ["check", "--state", str(EXAMPLE), str(target), "--json", "--fail-on", "partial"])
    assert done.exit_code == 1, done.output  # a breaking finding fails --fail-on partial
    cli = json.loads(done.stdout)
    mcp = tools.check_change(InMemory(EXAMPLE), str(EXAMPLE), str(target), "partial", limit=100, cursor=None)
    assert mcp["fails"] is True and mcp["truncated"] is False
    paging = {"fails", "total", "limit", "truncated", "next_cursor"}
    assert {k: v for k, v in mcp.items() if k not in paging} == cli
    assert [(f["severity"], f["model"], f["column"]) for f in cli["findings"]] == [("breaking", "stg_orders", "status")]
