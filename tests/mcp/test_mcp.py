"""`catalog mcp` over builds stored in Neo4j, driven by the MCP SDK's client: in memory
(the SDK connects its Client to the server object), and end to end over stdio.

jaffle-shop's compiled SQL: stg_orders.order_total is `(order_total / 100)::numeric(16, 2)`
of the source ecom.raw_orders ("raw"."raw_orders"); orders passes it through (`select orders.*`); customers.lifetime_spend
is `sum(orders.order_total)`, grouped by orders.customer_id (`group by 1`) and joined on
customer_id. The semantic model orders has the measure order_total = sum(order_total), the
metric order_total reads it and the saved query order_metrics reads the metric; the semantic
model customers has lifetime_spend.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from catalog.builds import Builder
from catalog.history import forget_project
from catalog.mcp.server import make_server
from catalog.mcp.stored import Stored
from catalog.settings import Neo4jSettings

pytestmark = pytest.mark.neo4j

REPO = Path(__file__).resolve().parents[2]
SHOP = "model.jaffle_shop"


BUILDS: list[int] = []  # the two builds of jaffle-shop, oldest first


@pytest.fixture(scope="module")
def jaffle(graph, shared_dir) -> Iterator[str]:
    """jaffle-shop built once (two builds of the same target) under a project name of its own."""
    name = f"test_{uuid.uuid4().hex[:10]}"
    target = shared_dir / "corpus" / "jaffle-shop" / "target"
    try:
        BUILDS[:] = [Builder(graph, target, project_name=name, jobs=1).run().build_id for _ in range(2)]
        yield name
    finally:
        forget_project(graph, name)


def call(server: Any, name: str, args: dict[str, Any] | None = None) -> Any:
    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool(name, args or {})

    return anyio.run(run)


def answer(server: Any, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    result = call(server, name, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


def at(cursor: str) -> int:
    """The place a next_cursor points at (it also names its build and question)."""
    return int(cursor.split(".")[0])


def failure(server: Any, name: str, args: dict[str, Any] | None = None) -> str:
    result = call(server, name, args)
    assert result.is_error
    return result.content[0].text


@pytest.fixture(scope="module")
def server(jaffle, neo4j_settings) -> Iterator[Any]:
    source = Stored(neo4j_settings, project=jaffle)
    yield make_server(source, timeout=5)
    source.close()


def test_impact_of_an_order_total_reaches_lifetime_spend_and_the_metric(server, jaffle):
    got = answer(server, "impact", {"columns": ["stg_orders.order_total"]})
    assert got["project"] == jaffle and got["build"] == BUILDS[1]
    assert got["summary"] == {
        "models": 2, "columns": 2, "metrics": 1, "exposures": 0, "saved_queries": 1, "semantic_models": 3,
        "selector": "customers orders",
    }  # fmt: skip
    assert (got["total"], got["truncated"], got["next_cursor"]) == (7, False, None)
    hits = {(h["kind"], h["name"]): h for h in got["hits"]}
    assert set(hits) == {
        ("metric", "order_total"), ("saved_query", "order_metrics"), ("semantic_model", "customers.lifetime_spend"),
        ("semantic_model", "orders.order_total"), ("semantic_model", "orders.order_total_dim"),
        ("column", "order_total"), ("column", "lifetime_spend"),
    }  # fmt: skip
    spend = hits[("column", "lifetime_spend")]
    assert (spend["model"], spend["depth"], spend["effect"]) == ("customers", 2, "needs review")
    assert [(h["from"], h["to"], h["type"]) for h in spend["path"]] == [
        (f"{SHOP}.stg_orders.order_total", f"{SHOP}.orders.order_total", "passthrough"),
        (f"{SHOP}.orders.order_total", f"{SHOP}.customers.lifetime_spend", "derived"),
    ]
    assert spend["path"][1]["expr"].lower() == "sum(orders.order_total)"
    metric = hits[("metric", "order_total")]
    assert [h["type"] for h in metric["path"]] == ["passthrough", "passthrough", "measure"]
    assert hits[("column", "order_total")]["effect"] == "passthrough"


def test_impact_takes_one_column_or_several(server):
    one = answer(server, "impact", {"column": "stg_orders.order_total"})
    assert one == answer(server, "impact", {"columns": ["stg_orders.order_total"]})
    both = answer(server, "impact", {"columns": ["stg_orders.order_total"], "column": "stg_orders.tax_paid"})
    assert both["columns_asked"] == ["stg_orders.order_total", "stg_orders.tax_paid"]
    assert failure(server, "impact", {}) == "Error executing tool impact: name at least one column as MODEL.COLUMN"


def test_impact_with_conditions_lists_them_as_hits(server):
    got = answer(server, "impact", {"columns": ["stg_orders.customer_id"], "conditions": True, "limit": 1000})
    conditions = [h for h in got["hits"] if h["kind"] == "condition"]
    assert got["summary"]["conditions"] == len(conditions) and got["total"] == len(got["hits"])
    # customers groups its orders summary by orders.customer_id (`group by 1`)
    assert {"kind": "condition", "column": f"{SHOP}.orders.customer_id", "model": "customers", "unique_id": f"{SHOP}.customers",
            "clause": "group_by"} in conditions  # fmt: skip


def test_impact_pages_say_what_is_left(server):
    first = answer(server, "impact", {"columns": ["stg_orders.order_total"], "limit": 3})
    assert (len(first["hits"]), first["total"], first["truncated"], at(first["next_cursor"])) == (3, 7, True, 3)
    rest = answer(server, "impact", {"columns": ["stg_orders.order_total"], "limit": 3, "cursor": first["next_cursor"]})
    assert at(rest["next_cursor"]) == 6
    last = answer(server, "impact", {"columns": ["stg_orders.order_total"], "limit": 3, "cursor": rest["next_cursor"]})
    assert (rest["truncated"], last["truncated"], last["next_cursor"], len(last["hits"])) == (True, False, None, 1)
    every = answer(server, "impact", {"columns": ["stg_orders.order_total"]})["hits"]
    assert first["hits"] + rest["hits"] + last["hits"] == every
    assert first["summary"] == last["summary"]  # the counts are the whole answer's on every page


def test_trace_goes_back_to_the_seed_with_each_expression(server):
    got = answer(server, "trace", {"column": "customers.lifetime_spend"})
    assert got["summary"] == {"columns": 3, "models": 3, "sources_and_seeds": 1}
    cols = {c["column"]: c for c in got["columns"]}
    assert {k: c["depth"] for k, c in cols.items()} == {
        f"{SHOP}.orders.order_total": 1,
        f"{SHOP}.stg_orders.order_total": 2,
        "source.jaffle_shop.ecom.raw_orders.order_total": 3,
    }
    seed = cols["source.jaffle_shop.ecom.raw_orders.order_total"]
    assert [h["type"] for h in seed["path"]] == ["derived", "passthrough", "derived"]
    assert seed["path"][0]["expr"] == "CAST((order_total / 100) AS DECIMAL(16, 2))"  # (order_total / 100)::numeric(16, 2)
    metric = answer(server, "trace", {"column": "metric:order_total"})
    assert "source.jaffle_shop.ecom.raw_orders.order_total" in {c["column"] for c in metric["columns"]}


def test_path_gives_a_value_path_a_condition_path_or_why_none(server):
    value = answer(server, "path", {"from_column": "stg_orders.order_total", "to_column": "customers.lifetime_spend"})
    assert [h["to"] for h in value["value_path"]] == [f"{SHOP}.orders.order_total", f"{SHOP}.customers.lifetime_spend"]
    rows = answer(server, "path", {"from_column": "stg_orders.customer_id", "to_column": "customers.lifetime_spend"})
    assert rows["value_path"] is None  # lifetime_spend sums order_total; customer_id only groups and joins
    cond = rows["condition_path"]
    assert (cond["column"], cond["model"]) == (f"{SHOP}.orders.customer_id", "customers")
    assert cond["clause"] in ("group_by", "join")
    assert [h["to"] for h in cond["path"]] == [f"{SHOP}.orders.customer_id"]
    back = answer(server, "path", {"from_column": "customers.lifetime_spend", "to_column": "stg_orders.order_total"})
    assert back["value_path"] is None and back["condition_path"] is None
    assert back["why_none"] == "stg_orders.order_total is upstream of customers.lifetime_spend, not downstream: ask path the other way round"


def test_column_lineage_lists_nodes_and_edges_both_ways(server):
    got = answer(server, "column_lineage", {"column": "orders.order_total"})
    assert {(n["column"], n["direction"], n["distance"]) for n in got["nodes"]} == {
        ("source.jaffle_shop.ecom.raw_orders.order_total", "upstream", 2),
        (f"{SHOP}.stg_orders.order_total", "upstream", 1),
        (f"{SHOP}.customers.lifetime_spend", "downstream", 1),
    }
    assert {(e["from"], e["to"], e["type"]) for e in got["edges"]} == {
        ("source.jaffle_shop.ecom.raw_orders.order_total", f"{SHOP}.stg_orders.order_total", "derived"),
        (f"{SHOP}.stg_orders.order_total", f"{SHOP}.orders.order_total", "passthrough"),
        (f"{SHOP}.orders.order_total", f"{SHOP}.customers.lifetime_spend", "derived"),
    }
    down = answer(server, "column_lineage", {"column": "orders.order_total", "direction": "downstream", "limit": 1})
    assert (down["total"], down["truncated"], [n["name"] for n in down["nodes"]]) == (1, False, ["lifetime_spend"])


def test_search_and_model(server):
    found = answer(server, "search", {"query": "lifetime_spend"})
    # the name after a dot first, then prefixes (of a name or a part after a dot), shorter first
    assert found["results"][:3] == [
        {"kind": "column", "name": "customers.lifetime_spend", "unique_id": f"{SHOP}.customers", "column": "lifetime_spend"},
        {"kind": "metric", "name": "lifetime_spend_pretax", "unique_id": "metric.jaffle_shop.lifetime_spend_pretax"},
        {"kind": "column", "name": "customers.lifetime_spend_pretax", "unique_id": f"{SHOP}.customers", "column": "lifetime_spend_pretax"},
    ]
    metrics = answer(server, "search", {"query": "order_total", "kinds": ["metric"]})
    assert [r["unique_id"] for r in metrics["results"]] == ["metric.jaffle_shop.order_total"]
    card = answer(server, "model", {"name": "customers"})
    assert (card["kind"], card["unique_id"], card["status"]) == ("model", f"{SHOP}.customers", "resolved")
    assert {p["name"] for p in card["parents"]} == {"stg_customers", "orders"}
    assert (card["parents_total"], card["parents_truncated"]) == (2, False)
    one = answer(server, "model", {"name": "customers", "limit": 1})
    assert (len(one["parents"]), one["parents_total"], one["parents_truncated"], len(one["columns"]), one["truncated"]) == (1, 2, True, 1, True)
    cols = {c["name"]: c for c in card["columns"]}
    assert (cols["lifetime_spend"]["type"], cols["customer_id"]["type"]) == ("derived", "passthrough")
    assert card["total"] == len(cols) and card["truncated"] is False


def test_model_gives_the_stored_tests_of_each_column(server):
    # models/marts/order_items.yml: unique and not_null on order_item_id, relationships from
    # order_id to orders; the unit test test_supply_costs_sum_correctly expects order_id,
    # product_id and supply_cost
    card = answer(server, "model", {"name": "order_items"})
    assert card["test_coverage"] == {"tested": 4, "columns": 9}
    unit = ("test_supply_costs_sum_correctly", "unit", None)
    assert {c["name"]: [(t["name"], t["kind"], t["test"]) for t in c["tests"]] for c in card["columns"] if c["tests"]} == {
        "order_item_id": [("not_null_order_items_order_item_id", "generic", "not_null"), ("unique_order_items_order_item_id", "generic", "unique")],
        "order_id": [("relationships_order_items_order_id__order_id__ref_orders_", "generic", "relationships"), unit],
        "product_id": [unit],
        "supply_cost": [unit],
    }  # fmt: skip
    assert card["columns"][0]["tests"][0]["unique_id"] == "test.jaffle_shop.not_null_order_items_order_item_id.c6fda366bd"


def test_builds_diff_and_the_graph_schema(server, jaffle):
    builds = answer(server, "builds")
    assert [(b["id"], b["status"]) for b in builds["builds"]] == [(BUILDS[1], "active"), (BUILDS[0], "superseded")]
    same = answer(server, "diff")
    assert (same["from_build"], same["to_build"], same["total"], same["changes"]) == (BUILDS[0], BUILDS[1], 0, [])
    schema = answer(server, "graph_schema")["result"]
    assert "since <= b.id AND (s.until IS NULL OR s.until > b.id)" in schema and "(:Column)-[:FEEDS]->(:Column)" in schema

    async def resource() -> str:
        async with Client(server) as client:
            return (await client.read_resource("catalog://graph-schema")).contents[0].text

    assert anyio.run(resource) == schema


def answer_rows(graph) -> list[int]:
    # one count of each (with COUNT {} beside count(n), the relationships would group the nodes)
    (row,) = graph.read_any("MATCH (n) WITH count(n) AS n RETURN n, COUNT { ()-[]->() } AS r", {}, 0, 10, 30).rows
    return [row["n"], row["r"]]


@pytest.mark.parametrize(
    "query, refused",
    [
        ("CREATE (:Intruder {name: 'x'})", "read-only"),
        ("MERGE (p:Project {name: 'intruder'}) RETURN p", "read-only"),
        ("MATCH (b:Build) SET b.status = 'failed'", "read-only"),
        ("MATCH (c:Column) DETACH DELETE c", "read-only"),
        ("CALL db.createLabel('Intruder')", "read-only"),
        # its first page is read before any row writes: the type of the query refuses it
        ("UNWIND range(1, 500) AS i CALL (i) { WITH i WHERE i > 400 CREATE (:Intruder) } RETURN i", "read-only"),
        ("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV reads files and URLs"),
        ("load csv with headers from 'https://example.com/a.csv' AS row CREATE (:X)", "LOAD CSV reads files and URLs"),
    ],
)
def test_cypher_refuses_writes_and_leaves_the_graph_unchanged(server, graph, query, refused):
    before = answer_rows(graph)
    assert refused in failure(server, "cypher", {"query": query})
    assert answer_rows(graph) == before


def test_cypher_reads_with_a_row_cap_and_a_timeout(server, jaffle):
    got = answer(server, "cypher", {"query": "UNWIND range(1, 450) AS i RETURN i, 'LOAD CSV' AS text", "limit": 200})
    # the rows after the page and the one past it are not read, so not counted
    assert (got["columns"], got["total"], got["total_counted"], got["truncated"], at(got["next_cursor"])) == (["i", "text"], None, False, True, 200)
    assert [r["i"] for r in got["rows"]] == list(range(1, 201))
    second = answer(server, "cypher", {"query": "UNWIND range(1, 450) AS i RETURN i, 'LOAD CSV' AS text", "limit": 200, "cursor": got["next_cursor"]})
    assert ([r["i"] for r in second["rows"]], at(second["next_cursor"])) == (list(range(201, 401)), 400)
    last = answer(server, "cypher", {"query": "UNWIND range(1, 450) AS i RETURN i, 'LOAD CSV' AS text", "limit": 200, "cursor": second["next_cursor"]})
    assert ([r["i"] for r in last["rows"]], last["total"], last["total_counted"], last["truncated"], last["next_cursor"]) == (
        list(range(401, 451)), 450, True, False, None)  # fmt: skip
    exact = answer(server, "cypher", {"query": "UNWIND range(1, 200) AS i RETURN i", "limit": 200})
    assert (len(exact["rows"]), exact["total"], exact["total_counted"], exact["truncated"], exact["next_cursor"]) == (200, 200, True, False, None)
    one_more = answer(server, "cypher", {"query": "UNWIND range(1, 201) AS i RETURN i", "limit": 200})
    assert (one_more["rows"][-1], one_more["total"], one_more["truncated"], at(one_more["next_cursor"])) == ({"i": 200}, None, True, 200)
    profiled = answer(server, "cypher", {"query": "PROFILE UNWIND range(1, 300) AS i RETURN i", "limit": 10})  # read to its end
    assert ([r["i"] for r in profiled["rows"]], profiled["total"], profiled["truncated"], at(profiled["next_cursor"])) == (list(range(1, 11)), 300, True, 10)
    params = answer(server, "cypher", {"query": "MATCH (p:Project {name: $name})-[:ACTIVE]->(b:Build) RETURN b.id AS id", "params": {"name": jaffle}})
    assert params["rows"] == [{"id": BUILDS[1]}]
    slow = failure(server, "cypher", {"query": "UNWIND range(1, 1000000000) AS i WITH i WHERE i < 0 RETURN count(i)"})
    assert "Neo4j did not answer the query within the 5 s timeout: the call was ended" in slow


def test_errors_are_the_cli_s_lines_and_the_server_goes_on(server, jaffle, neo4j_settings):
    typo = failure(server, "impact", {"columns": ["stg_orders.order_totl"]})
    assert typo == (
        f"Error executing tool impact: no column 'stg_orders.order_totl' in project {jaffle!r} (build {BUILDS[1]}); did you mean "
        "stg_orders.order_total, orders.order_total, stg_orders.ordered_at, stg_orders.order_total_cents, stg_orders.order_id?"
    )
    assert "project 'no_such_project' has no active build" in failure(server, "trace", {"column": "orders.order_total", "project": "no_such_project"})
    assert f"project {jaffle!r} has no build {BUILDS[1] + 100} (the `builds` tool lists them)" in failure(server, "model", {"name": "orders", "build": BUILDS[1] + 100})
    assert answer(server, "impact", {"columns": ["stg_orders.order_total"]})["total"] == 7  # still answering
    down = Stored(Neo4jSettings(uri="bolt://127.0.0.1:1", password=neo4j_settings.password, timeout=2), project=jaffle)
    assert failure(make_server(down), "impact", {"columns": ["orders.order_total"]}) == (
        "Error executing tool impact: cannot reach Neo4j at bolt://127.0.0.1:1: connection refused (check NEO4J_URI / --uri, NEO4J_USER and NEO4J_PASSWORD)"
    )


def test_unused_pages_the_columns_nothing_reads(server, jaffle):
    """`unused` is `catalog unused --json` one column a row (tests/query/test_unused.py checks
    jaffle-shop's answer against its SQL and YAML), paged, with what counts as a reader."""
    first = answer(server, "unused", {"limit": 3})
    assert (first["project"], first["build"], first["counts"], first["total"], first["truncated"]) == (
        jaffle, BUILDS[1], {"models": 3, "columns": 8}, 8, True)
    assert [(c["model"], c["column"], c["reason"]) for c in first["columns"]] == [
        ("order_items", "product_name", "no reader"), ("orders", "count_order_items", "no reader"), ("orders", "order_total_cents", "no reader")]
    assert first["notes"][0].startswith("Read means: fed into a column or a BI field")
    rest = answer(server, "unused", {"limit": 10, "cursor": first["next_cursor"]})
    assert (len(rest["columns"]), rest["truncated"], rest["next_cursor"]) == (5, False, None)
    assert rest["columns"][-1] == {
        "model": "stg_orders", "unique_id": f"{SHOP}.stg_orders", "resource_type": "model", "end_model": False,
        "incomplete_dependents": [], "column": "tax_paid_cents", "data_type": "INTEGER", "reason": "read only by unused columns",
        "read_by": ["orders.tax_paid_cents"],
    }  # fmt: skip
    # a cursor goes with its question; a model named wrong is the CLI's line
    assert "a page of another question" in failure(server, "unused", {"models": ["orders"], "cursor": first["next_cursor"]})
    assert answer(server, "unused", {"models": ["orders"], "build": BUILDS[0]})["counts"] == {"models": 1, "columns": 4}
    assert failure(server, "unused", {"models": ["ordes"]}).endswith("(sources are not judged); did you mean orders, stg_orders, raw_orders, order_items?")
    assert answer(server, "unused", {"end_models": True})["counts"] == {"models": 10, "columns": 35}


def test_catalog_mcp_over_stdio_answers_an_agent(jaffle, neo4j_env):
    """`catalog mcp` started as a subprocess, driven over stdio by the SDK's client."""
    env = {**os.environ, **neo4j_env, "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "catalog.cli.app", "mcp", "--project", jaffle], env=env)

    async def run() -> tuple[list[str], Any, Any]:
        async with Client(params) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            hit = await client.call_tool("impact", {"columns": ["stg_orders.order_total"], "limit": 2})
            typo = await client.call_tool("model", {"name": "custmers"})
            return names, hit, typo

    names, hit, typo = anyio.run(run)
    assert names == ["builds", "check_change", "column_lineage", "cypher", "diff", "graph_schema", "history", "impact", "model", "path", "projects", "search", "trace", "unused"]
    assert (hit.structured_content["total"], hit.structured_content["truncated"], len(hit.structured_content["hits"])) == (7, True, 2)
    assert typo.is_error and "no model, source or consumer 'custmers'" in typo.content[0].text and "did you mean customers" in typo.content[0].text


@pytest.mark.parametrize(
    "tool, args",
    [
        ("impact", {"columns": ["stg_orders.order_total", "stg_customers.customer_id"], "conditions": True}),
        ("trace", {"column": "customers.lifetime_spend"}),
        ("trace", {"column": "metric:order_total"}),
        ("path", {"from_column": "stg_orders.customer_id", "to_column": "customers.lifetime_spend"}),
        ("column_lineage", {"column": "orders.order_total", "conditions": True}),
        ("model", {"name": "orders"}),
        ("search", {"query": "cust"}),
    ],
)
def test_a_target_in_memory_answers_as_its_stored_build(server, shared_dir, tool, args):
    from catalog.mcp.stored import InMemory

    memory = make_server(InMemory(shared_dir / "corpus" / "jaffle-shop" / "target", jobs=1))
    stored, alone = answer(server, tool, args), answer(memory, tool, args)
    for got in (stored, alone):
        del got["project"], got["build"]
        if args.get("column", "").startswith("metric:"):  # a stored trace does not name the kind of a column a consumer reads
            for c in got["columns"]:
                del c["resource_type"]
    assert alone == stored


@pytest.mark.parametrize("which", [0, 1])
def test_search_model_and_column_lineage_read_what_they_ask_about_and_answer_as_the_whole_build(jaffle, neo4j_settings, which):
    """None of them reads the whole build (each reads the build asked, an older one too), and
    each answers as the whole build's view does."""
    from catalog.mcp import tools
    from catalog.mcp.stored import InMemory

    source = Stored(neo4j_settings, project=jaffle)
    build = BUILDS[which]
    asked = [
        ("search", ("order", None, 50, None)), ("search", ("ord_tot", ["column"], 5, None)), ("search", ("cust", ["model", "source"], 50, None)),
        ("model", ("orders", 50, None)), ("model", ("metric:order_total", 50, None)),
        ("column_lineage", ("orders.order_total", "both", None, True, 50, None)),
    ]  # fmt: skip
    try:
        parts = [getattr(tools, tool)(source, *args, None, build) for tool, args in asked]
        assert source._views == {}  # no question read the whole build
        whole = source.view(None, build)

        class Whole:
            node, column, search_index = InMemory.node, InMemory.column, InMemory.search_index

            def view(self, project: str | None, build: int | None) -> Any:
                return whole

        assert parts == [getattr(tools, tool)(Whole(), *args, None, build) for tool, args in asked]
        assert {p["build"] for p in parts} == {build}
    finally:
        source.close()
