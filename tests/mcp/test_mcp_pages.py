"""The bounds of every `catalog mcp` answer, and what its cypher tool refuses before running a
query (Neo4j's READ access mode refuses the writes: tests/store/test_mcp.py)."""

from __future__ import annotations

import pytest

from catalog.mcp import pages
from catalog.mcp.pages import BadArgument, page
from catalog.store.readonly import refusal


def test_pages_cover_every_item_once_and_say_what_is_left():
    items = list(range(7))
    asked = pages.question("impact", "shop", ["orders.amount"])
    first, bounds = page(items, 3, None, 4, asked)
    assert (first, bounds) == ([0, 1, 2], {"total": 7, "limit": 3, "truncated": True, "next_cursor": f"3.4.{asked}"})
    second, bounds = page(items, 3, bounds["next_cursor"], 4, asked)
    assert (second, bounds) == ([3, 4, 5], {"total": 7, "limit": 3, "truncated": True, "next_cursor": f"6.4.{asked}"})
    assert page(items, 3, bounds["next_cursor"], 4, asked) == ([6], {"total": 7, "limit": 3, "truncated": False, "next_cursor": None})
    assert page(items, 7, None)[1]["truncated"] is False
    assert page([], 5, None) == ([], {"total": 0, "limit": 5, "truncated": False, "next_cursor": None})
    with pytest.raises(BadArgument, match="limit 0 is out of range: give 1 to 2000"):
        page(items, 0, None)
    with pytest.raises(BadArgument, match="cursor '-1' is not one this server gave"):
        page(items, 3, "-1")
    with pytest.raises(BadArgument, match="cursor '3' is not one this server gave"):
        page(items, 3, "3")  # a bare offset: it names no build or question


def test_a_cursor_of_another_build_or_question_is_refused_in_one_line():
    asked = pages.question("trace", "shop", ["orders.amount"], None)
    cursor = page(list(range(7)), 3, None, 4, asked)[1]["next_cursor"]
    with pytest.raises(BadArgument) as stale:
        page(list(range(7)), 3, cursor, 5, asked)
    assert str(stale.value) == f"cursor {cursor!r} is a page of build 4, this answer is build 5's: start again without cursor"
    with pytest.raises(BadArgument) as other:
        page(list(range(7)), 3, cursor, 4, pages.question("trace", "shop", ["orders.id"], None))
    assert str(other.value).endswith("is a page of another question: start again without cursor (a cursor goes with the arguments it was given for)")


@pytest.mark.parametrize(
    "query, why",
    [
        ("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV"),
        ("load\n csv with headers from $url AS r RETURN r", "LOAD CSV"),
        ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "TERMINATE"),
        ("USE system SHOW USERS", "USE"),
        ("CALL { USE system SHOW DATABASES YIELD name RETURN name } RETURN name", "USE"),
        ("", ""),
        ("MATCH (c:Column) RETURN c.name AS `LOAD CSV`", ""),
        ("RETURN 'LOAD CSV from file' AS s, \"TERMINATE\" AS t // LOAD CSV in a comment", ""),
        ("/* USE system */ MATCH (b:Build) RETURN b.id AS used", ""),
        ("MATCH (m:Model) WHERE m.name CONTAINS 'use' RETURN m.name", ""),
    ],
)
def test_refused_before_running(query, why):
    assert refusal(query).startswith(why) if why else refusal(query) == ""
