"""`model`, `column_lineage` and `search` over a stored build read only what they are about
(catalog/mcp/questions.py), and answer as the build's whole view does (what they read before);
so does `unused` of one model (its columns' readers, not the whole build's).

Each corpus project and the example, built into Neo4j: every node's card, the lineage of columns
of every model (each direction, one hop and any, with conditions), searches of every kind, and
the pages a cursor walks through, from the per-question reads and from the whole build's
:class:`~catalog.mcp.view.ProjectView`: the same answer to the letter, errors included."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from catalog.builds import Builder
from catalog.errors import CatalogError
from catalog.history import forget_project
from catalog.mcp import tools
from catalog.mcp.stored import InMemory, Stored
from catalog.mcp.view import ProjectView

pytestmark = pytest.mark.neo4j

CORPUS = ["jaffle_shop_duckdb", "jaffle-shop", "dbt-project-evaluator", "fivetran-hubspot", "flipside-thorchain", "tuva"]
MOST_COLUMNS = 150  # columns whose lineage is asked per project (spread over its models)


class WholeView:
    """A stored build's answers from its whole view, read at once."""

    def __init__(self, view: ProjectView):
        self._view = view

    def view(self, project: str | None, build: int | None) -> ProjectView:
        return self._view

    node, column, search_index = InMemory.node, InMemory.column, InMemory.search_index


def both(whole: WholeView, stored: Stored, tool: str, *args: Any) -> tuple[Any, Any]:
    out = []
    for src in (whole, stored):
        try:
            out.append(getattr(tools, tool)(src, *args))
        except CatalogError as e:
            out.append(f"error: {e}")
    return out[0], out[1]


@contextmanager
def stored_build(graph: Any, settings: Any, target: Path) -> Iterator[tuple[WholeView, Stored]]:
    """The target built under a project name of its own, as the whole view and the per-question
    reads answer it; forgotten after."""
    name = f"test_{uuid.uuid4().hex[:10]}"
    Builder(graph, target, project_name=name, jobs=1).run()
    source = Stored(settings, project=name)
    try:
        yield WholeView(source.view(None, None)), source
    finally:
        source.close()
        forget_project(graph, name)


def ask_everything(whole: WholeView, stored: Stored) -> None:
    view = whole.view(None, None)
    for node in view.nodes.values():  # every node's card, by name and by kind:name
        for name in (node.unique_id, f"{node.kind}:{node.name}", node.name):
            old, new = both(whole, stored, "model", name, 500, None, None, None)
            assert old == new, name
    first, rest = both(whole, stored, "model", next(iter(view.nodes.values())).unique_id, 1, None, None, None)
    assert first == rest
    for name in ("no_such_model", "ordrs", "customer"):  # misses, with their suggestions
        assert len(set(map(str, both(whole, stored, "model", name, 50, None, None, None)))) == 1, name
    columns = [c for c in view.columns.values() if view.nodes[c.id.unique_id].kind in ("model", "snapshot", "source", "seed")]
    for c in columns[:: max(1, len(columns) // MOST_COLUMNS)]:
        label = f"{c.id.unique_id}.{c.id.name}"
        for direction, depth, conditions in (("both", None, False), ("upstream", 1, True), ("downstream", None, True), ("downstream", 1, False)):
            old, new = both(whole, stored, "column_lineage", label, direction, depth, conditions, 2000, None, None, None)
            assert not isinstance(old, str) and old == new, (label, direction, depth, conditions)
    for name in ("no_such.column", f"{columns[0].id.model}.no_such_column"):
        old, new = both(whole, stored, "column_lineage", name, "both", None, False, 50, None, None, None)
        assert isinstance(old, str) and old.replace(f" (build {stored.catalog(None, None).build_id})", "") == new.replace(
            f" (build {stored.catalog(None, None).build_id})", ""
        )  # fmt: skip
    last = f"{columns[-1].id.model}.{columns[-1].id.name}"
    queries = ["order", "ord_tot", "cust", "id", "revenue", "zzz", "a.b", columns[0].id.model[:5], last[: len(last) - 3], "ORDER", "s.i",
               last[::2], (last * 8)[:70]]  # fmt: skip
    for query in queries:
        for kinds in (None, ["column"], ["model", "source"], ["metric", "column"]):
            old, new = both(whole, stored, "search", query, kinds, 500, None, None, None)
            assert old == new, (query, kinds)
    search_pages(whole, stored, ["order", "id", columns[0].id.model[:4], "s.i"])


def unused_alike(stored: Stored) -> None:
    """`unused` of each model alone (read from it and what depends on it) says of it what the
    answer for every model says, end models counted or not."""
    from catalog.unused_columns import find_unused

    view = stored.catalog(None, None)
    judged = [r["unique_id"] for r in view.graph.read("read/list_build_nodes", project=view.project, build_id=view.build_id)
              if r["resource_type"] != "source" and r["status"] != "external"]  # fmt: skip
    assert judged
    for end_models in (False, True):
        every = find_unused(view, None, end_models).models
        for uid in judged:
            assert find_unused(view, [uid], end_models).models == tuple(m for m in every if m.unique_id == uid), uid


def walk_pages(whole: WholeView, stored: Stored, tool: str, *args: Any, most: int = 4) -> int:
    """The pages a cursor walks through (at most ``most``) are the same from both; how many
    items they show."""
    cursor: str | None = None
    shown = 0
    for _ in range(most):
        old, new = both(whole, stored, tool, *args, cursor, None, None)
        assert old == new, (tool, args, cursor)
        shown += len(new.get("results", ()))
        cursor = new["next_cursor"]
        if cursor is None:
            break
    return shown


def search_pages(whole: WholeView, stored: Stored, queries: list[str]) -> None:
    """Each query's pages, of 1, 7 and 50 results, every one of them for the short ones: a
    stored build's search ranks the first pages in Neo4j and counts the rest, which must be
    the page, the total and the order (ties by key) of the whole build's ranking."""
    for query in queries:
        for kinds in (None, ["column"]):
            total = both(whole, stored, "search", query, kinds, 1, None, None, None)[0]["total"]
            for limit in (1, 7, 50):
                assert walk_pages(whole, stored, "search", query, kinds, limit, most=25) == min(total, 25 * limit), (query, kinds, limit)


def test_the_example_answers_alike_from_its_parts_and_from_its_whole_build(graph, neo4j_settings, example):
    with stored_build(graph, neo4j_settings, example) as (whole, source):
        ask_everything(whole, source)
        unused_alike(source)
        walk_pages(whole, source, "search", "order", None, 3)
        walk_pages(whole, source, "model", "orders", 3)
        walk_pages(whole, source, "column_lineage", "stg_orders.order_id", "both", None, True, 3)


UNUSUAL = ["café_total", "ünïcode", "\U0001f600_emoji", "\ue000_private", "x\U0001f600y", "x\ue001y", "x\uffffy", "İd", "ΣΑΣ", "straße"]


def with_unusual_and_tied_names(target: Path) -> None:
    """The example with two more sources that no model reads: ``shop.customers`` of another
    package (its labels are those of the example's, ties a search orders by key), and
    ``shöp.ünï\U0001f600`` whose columns' names are not ASCII (Python and Neo4j lower some of
    them apart, order some of them apart: U+E000 and up against U+10000 and up)."""
    manifest = json.loads((target / "manifest.json").read_text())
    catalog = json.loads((target / "catalog.json").read_text())
    uid = "source.coffee_shop.shop.customers"
    twin = {**manifest["sources"][uid], "package_name": "other_shop", "unique_id": "source.other_shop.shop.customers"}
    odd_uid = "source.coffee_shop.shöp.ünï\U0001f600"
    odd = {**manifest["sources"][uid], "unique_id": odd_uid, "source_name": "shöp", "name": "ünï\U0001f600", "identifier": "raw_odd",
           "relation_name": '"coffee_shop"."raw"."raw_odd"',
           "columns": {n: {**next(iter(manifest["sources"][uid]["columns"].values())), "name": n} for n in UNUSUAL}}
    manifest["sources"] |= {twin["unique_id"]: twin, odd_uid: odd}
    entry = catalog["sources"][uid]
    catalog["sources"] |= {
        twin["unique_id"]: {**entry, "unique_id": twin["unique_id"]},
        odd_uid: {**entry, "unique_id": odd_uid,
                  "columns": {n: {"type": "TEXT", "index": i + 1, "name": n, "comment": None} for i, n in enumerate(UNUSUAL)}},
    }  # fmt: skip
    (target / "manifest.json").write_text(json.dumps(manifest))
    (target / "catalog.json").write_text(json.dumps(catalog))


def test_searches_of_tied_labels_and_of_names_out_of_ascii_answer_alike_page_by_page(graph, neo4j_settings, example_copy):
    with_unusual_and_tied_names(example_copy)
    with stored_build(graph, neo4j_settings, example_copy) as (whole, source):
        view = whole.view(None, None)
        assert {"source.other_shop.shop.customers", "source.coffee_shop.shöp.ünï\U0001f600"} <= set(view.nodes)
        tied = both(whole, source, "search", "shop.customers.", ["column"], 50, None, None, None)[1]["results"]
        assert len(tied) == 2 * len(view.nodes["source.coffee_shop.shop.customers"].columns)  # each label twice, in order of key
        queries = ["shop.customers", "customers.id", "id", "x", "xy", "ü", "ï\U0001f600", "\U0001f600", "\ue000", "i", "σ", "σας", "ss", "é", "c"]
        search_pages(whole, source, queries)


@pytest.mark.parametrize("project", CORPUS)
def test_every_corpus_project_answers_alike_from_its_parts_and_from_its_whole_build(graph, neo4j_settings, shared_dir, project):
    with stored_build(graph, neo4j_settings, shared_dir / "corpus" / project / "target") as (whole, source):
        ask_everything(whole, source)
        unused_alike(source)
