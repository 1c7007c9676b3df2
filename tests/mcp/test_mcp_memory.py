"""`catalog mcp PATH`: the same tools answered from a dbt target analyzed in memory, without
Neo4j (no builds, diff or cypher), and `check_change` between two targets.

The coffee_shop example: stg_orders.status is `coalesce(lower(trim(status)), 'unknown')`;
orders passes it through, customers filters on it (`where status <> 'cancelled'`), the
exposure sales_dashboard reads orders (see tests/store/test_check.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from typing import Any

import anyio
import pytest
from mcp import Client

from catalog.mcp.server import make_server
from catalog.mcp.stored import InMemory
from edits import edit_sql
from test_check import DROP_STATUS, EXAMPLE, STG_ORDERS
from test_dbt_tests import singular_test
from test_mcp import REPO, SHOP, answer, at, call, failure


@pytest.fixture(scope="module")
def jaffle_memory(shared_dir) -> Any:
    return make_server(InMemory(shared_dir / "corpus" / "jaffle-shop" / "target", jobs=1))


@pytest.fixture(scope="module")
def example_memory() -> Any:
    return make_server(InMemory(EXAMPLE, jobs=1))


def test_in_memory_impact_is_the_stored_build_s(jaffle_memory):
    got = answer(jaffle_memory, "impact", {"columns": ["stg_orders.order_total"]})
    assert (got["project"], got["build"]) == ("jaffle_shop", None)
    assert got["summary"] == {
        "models": 2, "columns": 2, "metrics": 1, "exposures": 0, "saved_queries": 1, "semantic_models": 3,
        "selector": "customers orders",
    }  # fmt: skip
    assert [(h["kind"], h["name"], h["depth"]) for h in got["hits"]] == [
        ("metric", "order_total", 3),
        ("saved_query", "order_metrics", 4),
        ("semantic_model", "customers.lifetime_spend", 3),
        ("semantic_model", "orders.order_total", 2),
        ("semantic_model", "orders.order_total_dim", 2),
        ("column", "lifetime_spend", 2),
        ("column", "order_total", 1),
    ]
    metric = got["hits"][0]
    assert [(h["to"], h["type"]) for h in metric["path"]] == [
        (f"{SHOP}.orders.order_total", "passthrough"),
        ("semantic_model.jaffle_shop.orders.order_total", "passthrough"),
        ("metric.jaffle_shop.order_total", "measure"),
    ]


def test_in_memory_trace_of_a_metric_reaches_the_source(jaffle_memory):
    got = answer(jaffle_memory, "trace", {"column": "metric:order_total"})
    assert [(c["column"], c["depth"]) for c in got["columns"]] == [
        ("source.jaffle_shop.ecom.raw_orders.order_total", 4),
        (f"{SHOP}.orders.order_total", 2),
        ("semantic_model.jaffle_shop.orders.order_total", 1),
        (f"{SHOP}.stg_orders.order_total", 3),
    ]
    assert got["columns"][0]["path"][0]["expr"] == "CAST((order_total / 100) AS DECIMAL(16, 2))"


def test_in_memory_has_no_stored_build_tools(example_memory):
    async def names() -> list[str]:
        async with Client(example_memory) as client:
            return sorted(t.name for t in (await client.list_tools()).tools)

    assert anyio.run(names) == ["check_change", "column_lineage", "impact", "model", "path", "search", "trace"]
    assert "answers from" in failure(example_memory, "impact", {"columns": ["orders.status"], "build": 3})
    assert failure(example_memory, "impact", {"columns": ["orders.statu"]}) == (
        "Error executing tool impact: no column 'orders.statu' in project 'coffee_shop'; did you mean "
        "orders.status, stg_orders.status, raw_orders.status, shop.orders.status, orders.payment_status?"
    )
    assert call(example_memory, "cypher", {"query": "RETURN 1"}).is_error


def test_in_memory_path_and_conditions(example_memory):
    got = answer(example_memory, "path", {"from_column": "stg_orders.status", "to_column": "customers.lifetime_value"})
    assert got["value_path"] is None
    cond = got["condition_path"]
    assert (cond["model"], cond["clause"]) == ("customers", "where")


def test_check_change_gives_the_findings_of_catalog_check(example_memory, tmp_path):
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    edit_sql(target, STG_ORDERS, *DROP_STATUS)
    got = answer(example_memory, "check_change", {"base_target": str(EXAMPLE), "target": str(target)})
    assert (got["counts"], got["fails"], got["total"], got["truncated"]) == ({"breaking": 1, "policy": 0, "partial": 0, "safe": 0}, True, 1, False)
    (f,) = got["findings"]
    assert (f["severity"], f["model"], f["column"], f["changes"]) == ("breaking", "stg_orders", "status", ["removed"])
    assert (f["models_hit"], f["exposures_hit"]) == (["customer_scores", "customer_segments", "customers", "orders"], ["sales_dashboard"])
    passes = answer(example_memory, "check_change", {"base_target": str(EXAMPLE), "target": str(target), "fail_on": "never"})
    assert passes["fails"] is False
    missing = failure(example_memory, "check_change", {"base_target": str(EXAMPLE), "target": str(tmp_path / "nowhere")})
    assert str(tmp_path / "nowhere") in missing


def test_search_is_bounded(example_memory):
    first = answer(example_memory, "search", {"query": "o", "limit": 5})
    assert (len(first["results"]), first["truncated"], at(first["next_cursor"])) == (5, True, 5)
    every = answer(example_memory, "search", {"query": "o", "limit": 2000})
    assert every["total"] == first["total"] == len(every["results"]) and every["truncated"] is False
    assert failure(example_memory, "search", {"query": "o", "cursor": "abc"}).endswith(
        "cursor 'abc' is not one this server gave: pass the next_cursor of the previous answer, or none to start again"
    )


def test_in_memory_errors_keep_the_server_answering(example_memory):
    assert "Error executing tool model" in failure(example_memory, "model", {"name": "nope"})
    assert answer(example_memory, "model", {"name": "orders"})["unique_id"] == "model.coffee_shop.orders"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_binds_localhost_checks_host_origin_and_the_token(tmp_path):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "CATALOG_MCP_TOKEN": "s3cret-token"}
    args = [sys.executable, "-m", "catalog.cli.app", "mcp", str(EXAMPLE), "--http", "--port", str(port), "--jobs", "1"]
    server = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 300  # the analysis of the example, then uvicorn's start (slow on a loaded machine)
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                assert server.poll() is None, server.communicate()[1].decode()
                assert time.monotonic() < deadline, "catalog mcp --http did not listen within 300 s"
                time.sleep(0.1)
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        assert httpx2.post(url, json=body, headers=headers).status_code == 401
        auth = {**headers, "Authorization": "Bearer s3cret-token"}
        assert httpx2.post(url, json=body, headers={**auth, "Authorization": "Bearer wrong"}).status_code == 401
        assert httpx2.post(url, json=body, headers={**auth, "Host": f"evil.example:{port}"}).status_code == 421
        assert httpx2.post(url, json=body, headers={**auth, "Origin": "http://evil.example"}).status_code == 403

        async def ask() -> Any:
            async with httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret-token"}) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return await client.call_tool("impact", {"columns": ["stg_orders.status"], "limit": 1})

        got = anyio.run(ask)
        assert not got.is_error
        # orders passes status through and computes payment_status from it (customers only filters
        # on it); the semantic model orders has the dimension status; the exposure reads orders
        assert [h["name"] for h in got.structured_content["hits"]] == ["sales_dashboard"]
        assert (got.structured_content["total"], got.structured_content["truncated"]) == (4, True)
        assert got.structured_content["summary"]["columns"] == 2
        assert got.structured_content["summary"]["selector"] == "orders"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_model_gives_each_column_its_tests_and_the_coverage(example_memory):
    # models/staging/_staging.yml: unique and not_null on stg_orders.order_id, nothing else
    got = answer(example_memory, "model", {"name": "stg_orders"})
    assert got["test_coverage"] == {"tested": 1, "columns": 5}
    assert [(c["name"], c["tests"]) for c in got["columns"]] == [
        ("order_id", [
            {"name": "not_null_stg_orders_order_id", "unique_id": "test.coffee_shop.not_null_stg_orders_order_id.81cfe2fe64",
             "kind": "generic", "test": "not_null"},
            {"name": "unique_stg_orders_order_id", "unique_id": "test.coffee_shop.unique_stg_orders_order_id.e3b841c71a",
             "kind": "generic", "test": "unique"},
        ]),
        ("customer_id", []), ("ordered_at", []), ("order_date", []), ("status", []),
    ]  # fmt: skip
    # a page of columns: the coverage is still the model's
    one = answer(example_memory, "model", {"name": "stg_orders", "limit": 1})
    assert (len(one["columns"]), one["test_coverage"]) == (1, {"tested": 1, "columns": 5})
    # a consumer has no test coverage
    assert answer(example_memory, "model", {"name": "exposure:sales_dashboard"})["test_coverage"] is None


def test_model_counts_a_singular_test_by_the_columns_that_decide_it(tmp_path):
    # `where amount_paid < 0`: amount_paid decides whether it returns rows; order_id is only shown
    sql = 'select order_id from "coffee_shop"."main"."orders" where amount_paid < 0'
    target = singular_test(EXAMPLE, tmp_path, "no_negative_payments", sql, ["model.coffee_shop.orders"])
    got = answer(make_server(InMemory(target, jobs=1)), "model", {"name": "orders"})
    tests = {c["name"]: [(t["name"], t["kind"], t["test"]) for t in c["tests"]] for c in got["columns"] if c["tests"]}
    assert tests == {
        "order_id": [("not_null_orders_order_id", "generic", "not_null"), ("unique_orders_order_id", "generic", "unique")],
        "amount_paid": [("no_negative_payments", "singular", None)],
    }
    assert got["test_coverage"] == {"tested": 2, "columns": 13}
