"""`catalog mcp` driven as an attacker or a careless agent would, against the real Neo4j server:
what the cypher tool refuses before it runs (each side effect looked for from a second
connection), the bounds on what an agent sends and gets back, cursors that outlive their
answer, and the server's words (its own arguments, one-line errors, a start without Neo4j)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from catalog.builds import Builder
from catalog.history import forget_project
from catalog.mcp.server import make_server
from catalog.mcp.stored import Stored
from run_cli import unknown_project_hint
from test_mcp import REPO, answer, failure, jaffle, server  # noqa: F401 - fixtures

pytestmark = pytest.mark.neo4j


# ------------------------------------------------------------------ 1. read-only by construction
@pytest.fixture
def victim(neo4j_driver) -> Iterator[tuple[Any, str]]:
    """Another client's open transaction, and the id of its connection."""
    marker = uuid.uuid4().hex
    with neo4j_driver.session() as session:
        tx = session.begin_transaction(metadata={"catalog_victim": marker})
        tx.run("RETURN 1").consume()
        rows, _, _ = neo4j_driver.execute_query(
            "SHOW TRANSACTIONS YIELD connectionId, metaData WHERE metaData.catalog_victim = $m RETURN connectionId", m=marker
        )
        try:
            yield tx, rows[0]["connectionId"]
        finally:
            tx.close()


def test_kill_connection_is_refused_before_it_runs_and_the_victim_lives(server, victim):
    tx, connection = victim
    refused = failure(server, "cypher", {"query": "CALL dbms.killConnection($id)", "params": {"id": connection}})
    assert tx.run("RETURN 2 AS two").single()["two"] == 2  # its connection was not killed
    assert refused.startswith("Error executing tool cypher: CALL dbms.killConnection: not a procedure that reads the catalog graph")


def collector(driver) -> str:
    rows, _, _ = driver.execute_query("CALL db.stats.status() YIELD section, status WHERE section = 'QUERIES' RETURN status")
    return rows[0]["status"]


def test_the_query_collector_is_neither_started_nor_read(server, neo4j_driver):
    before = collector(neo4j_driver)
    try:
        assert "CALL db.stats.collect: not a procedure" in failure(server, "cypher", {"query": "CALL db.stats.collect('QUERIES')"})
        assert collector(neo4j_driver) == before  # idle stays idle
        assert "CALL db.stats.retrieve: not a procedure" in failure(server, "cypher", {"query": "CALL db.stats.retrieve('QUERIES')"})
    finally:
        if collector(neo4j_driver) != before:  # the old tool started it: leave the server as it was
            neo4j_driver.execute_query("CALL db.stats.stop('QUERIES')")
            neo4j_driver.execute_query("CALL db.stats.clear('QUERIES')")


@pytest.mark.parametrize(
    "query, why",
    [
        ("CALL db.clearQueryCaches()", "CALL db.clearQueryCaches: not a procedure that reads the catalog graph"),
        ("CALL db.resampleIndex('catalog_column_project_name')", "CALL db.resampleIndex: not a procedure"),
        ("CALL db.prepareForReplanning()", "CALL db.prepareForReplanning: not a procedure"),
        ("UNWIND [1] AS i CALL tx.setMetaData({probe: 1}) RETURN i", "CALL tx.setMetaData: not a procedure"),
        ("CALL { CALL db.clearQueryCaches() YIELD value RETURN value } RETURN value", "CALL db.clearQueryCaches: not a procedure"),
        ("CALL `db`.`clearQueryCaches`()", "CALL db.clearQueryCaches: not a procedure"),
        ("SHOW SETTINGS", "SHOW SETTINGS reads the server or other clients"),
        ("SHOW TRANSACTIONS YIELD currentQuery RETURN currentQuery", "SHOW TRANSACTIONS reads the server or other clients"),
        ("SHOW PROCEDURES", "SHOW PROCEDURES reads the server"),
    ],
)
def test_procedures_and_commands_outside_the_graph_are_refused_unrun(server, neo4j_driver, query, why):
    """The refused query is planned, never run: the query collector, started from a second
    connection, sees its EXPLAIN and not the query itself."""
    probe = f"{query} // probe {uuid.uuid4().hex}"
    was = collector(neo4j_driver)
    if was == "idle":
        neo4j_driver.execute_query("CALL db.stats.collect('QUERIES')")
    try:
        message = failure(server, "cypher", {"query": probe})
        time.sleep(0.5)
        rows, _, _ = neo4j_driver.execute_query("CALL db.stats.retrieve('QUERIES') YIELD data RETURN data.query AS query")
    finally:
        if was == "idle":
            neo4j_driver.execute_query("CALL db.stats.stop('QUERIES')")
            neo4j_driver.execute_query("CALL db.stats.clear('QUERIES')")
    ran = [r["query"] for r in rows if r["query"] and probe in r["query"]]
    assert ran and all(q.lstrip().upper().startswith("EXPLAIN") for q in ran), ran
    assert why in message and message.endswith("the cypher tool runs read-only queries on the catalog graph only")


@pytest.mark.parametrize(
    "query",
    [
        "CALL db.labels() YIELD label RETURN label",
        "CALL db.relationshipTypes",
        "CALL db.schema.nodeTypeProperties() YIELD nodeType RETURN nodeType",
        "SHOW INDEXES YIELD name RETURN name",
        "SHOW CONSTRAINTS",
        "MATCH (show:Project) RETURN show.name AS show LIMIT 1",
        "CYPHER runtime=slotted MATCH (p:Project) RETURN count(p) AS n",
    ],
)
def test_reads_of_the_graph_and_its_schema_still_run(server, query):
    got = answer(server, "cypher", {"query": query})
    assert got["columns"] and got["total"] and got["rows"]


# ------------------------------------------------------------------ 2 and 3. bounds
@pytest.mark.parametrize(
    "query, what, deep",
    [
        ("RETURN " + "(" * 5000 + "1" + ")" * 5000, "brackets and CASE nested", 5000),
        ("RETURN " + "[" * 3000 + "]" * 3000, "brackets and CASE nested", 3000),
        ("RETURN " + "CASE WHEN true THEN " * 600 + "1" + " END" * 600, "brackets and CASE nested", 600),
        ("RETURN " + "NOT " * 3000 + "true", "NOT repeated", 3000),
        ("WITH {} AS m RETURN m" + ".`a`" * 3000, "property accesses and indexes chained", 3000),
        ("WITH [] AS m RETURN m" + "[0]" * 3000, "property accesses and indexes chained", 3000),
    ],
)
def test_deep_nesting_is_refused_before_neo4j_sees_it_and_the_server_goes_on(server, query, what, deep):
    """Each of these, 1,000 deep, made Neo4j's parser overflow: the connection waited 120 s."""
    refused = failure(server, "cypher", {"query": query})
    assert refused == f"Error executing tool cypher: query: {what} {deep} deep, more than the 64 allowed (Neo4j's parser fails on deep nesting)"
    assert answer(server, "cypher", {"query": "RETURN 1 AS one"})["rows"] == [{"one": 1}]


def test_the_wall_clock_bound_holds_when_neo4j_never_answers(graph):
    """A query nested 5,000 deep given to Neo4j as it is (the tool refuses it first): Neo4j
    never answers, the bound ends the wait at the timeout, and the graph answers the next read."""
    from catalog.mcp.limits import NoAnswer, within

    with pytest.raises(NoAnswer) as ended:
        within(1, lambda: graph.read_any("RETURN " + "(" * 5000 + "1" + ")" * 5000, {}, 0, 10, 1))
    assert str(ended.value) == (
        "Neo4j did not answer the query within the 1 s timeout: the call was ended (the server goes on answering); "
        "allow longer with --timeout or NEO4J_TIMEOUT"
    )
    assert graph.read_any("RETURN 1 AS one", {}, 0, 10, 5).rows == [{"one": 1}]


@pytest.mark.parametrize(
    "tool, args, argument",
    [
        ("impact", {"column": "orders." + "x" * 1_000_000}, "column"),
        ("trace", {"column": "x" * 1_000_000}, "column"),
        ("model", {"name": "m" * 1_000_000}, "name"),
        ("search", {"query": "o" * 1_000_000}, "query"),
        ("cypher", {"query": "RETURN " + "+".join(["1"] * 200_000)}, "query"),
        ("path", {"from_column": "a.b", "to_column": "c." + "d" * 600}, "to_column"),
        ("impact", {"columns": [f"orders.c{i}" for i in range(500)]}, "columns"),
    ],
)
def test_oversized_inputs_are_refused_in_one_short_line(server, tool, args, argument):
    from catalog.mcp.limits import MAX_ERROR

    message = failure(server, tool, args)
    assert message.startswith(f"Error executing tool {tool}: argument {argument}: ")
    assert "\n" not in message and len(message) < MAX_ERROR and "https://" not in message


def test_an_echoed_input_is_cut_and_large_params_are_refused(server):
    from catalog.mcp.limits import MAX_ERROR

    typo = failure(server, "impact", {"column": "orders." + "q" * 480})
    assert "no column 'orders.qqqq" in typo and len(typo) <= MAX_ERROR + 40 and "more characters)" in typo
    big = failure(server, "cypher", {"query": "RETURN size($p) AS n", "params": {"p": "x" * 200_000}})
    assert big == "Error executing tool cypher: params are 200,009 characters as JSON, more than the 100,000 allowed"


# ------------------------------------------------------------------ 5. cursors
def test_a_cursor_read_after_a_new_build_or_for_another_question_is_refused(graph, shared_dir, neo4j_settings):
    name = f"test_{uuid.uuid4().hex[:10]}"
    target = shared_dir / "corpus" / "jaffle-shop" / "target"
    source = Stored(neo4j_settings, project=name)
    try:
        first_build = Builder(graph, target, project_name=name, jobs=1).run().build_id
        mcp = make_server(source)
        first = answer(mcp, "impact", {"columns": ["stg_orders.order_total"], "limit": 3})
        other = failure(mcp, "impact", {"columns": ["stg_orders.tax_paid"], "limit": 3, "cursor": first["next_cursor"]})
        assert other.endswith("is a page of another question: start again without cursor (a cursor goes with the arguments it was given for)")
        second_build = Builder(graph, target, project_name=name, jobs=1).run().build_id
        stale = failure(mcp, "impact", {"columns": ["stg_orders.order_total"], "limit": 3, "cursor": first["next_cursor"]})
        assert stale == (
            f"Error executing tool impact: cursor {first['next_cursor']!r} is a page of build {first_build}, this answer is build "
            f"{second_build}'s: start again without cursor"
        )
        pinned = answer(mcp, "impact", {"columns": ["stg_orders.order_total"], "limit": 3, "cursor": first["next_cursor"], "build": first_build})
        assert pinned["build"] == first_build and len(pinned["hits"]) == 3
    finally:
        source.close()
        forget_project(graph, name)


# ------------------------------------------------------------------ 6. made for an agent
def test_projects_lists_each_project_with_its_active_build(server, jaffle, graph):  # noqa: F811
    from test_mcp import BUILDS

    got = answer(server, "projects", {"limit": 2000})
    mine = [p for p in got["projects"] if p["project"] == jaffle]
    assert len(mine) == 1 and (mine[0]["active_build"], mine[0]["models"]) == (BUILDS[1], 13)
    assert mine[0]["built_at"] and got["total"] == len(graph.read("read/list_projects"))


def test_errors_name_the_tools_own_arguments(neo4j_settings, graph, jaffle):  # noqa: F811
    source = Stored(neo4j_settings)  # no default project, and the graph holds several
    try:
        message = failure(make_server(source), "impact", {"column": "orders.order_total"})
    finally:
        source.close()
    assert message.startswith("Error executing tool impact: several projects in this database (")
    assert message.endswith("): give the `project` argument (the `projects` tool lists them)") and "--project" not in message


def test_closed_sets_are_enums_and_a_schema_violation_is_one_line(server):
    async def schemas() -> dict[str, Any]:
        async with Client(server) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    tools = anyio.run(schemas)
    kinds = tools["search"]["properties"]["kinds"]["anyOf"][0]["items"]
    assert kinds["enum"] == ["model", "source", "seed", "snapshot", "semantic_model", "metric", "exposure", "saved_query", "column"]
    assert tools["column_lineage"]["properties"]["direction"]["enum"] == ["upstream", "downstream", "both"]
    wrong = failure(server, "search", {"query": "orders", "kinds": ["table"], "limit": 0})
    assert wrong == (
        "Error executing tool search: argument kinds.0: Input should be 'model', 'source', 'seed', 'snapshot', 'semantic_model', "
        "'metric', 'exposure', 'saved_query' or 'column'; argument limit: Input should be greater than or equal to 1"
    )


def start_mcp(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "catalog.cli.app", "mcp", *args], env={**os.environ, **env, "PYTHONPATH": str(REPO)},
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_a_start_without_neo4j_warns_in_one_line_and_serves(neo4j_env):
    proc = start_mcp({**neo4j_env, "NEO4J_URI": "bolt://127.0.0.1:1"}, "--timeout", "2")
    try:
        first = proc.stderr.readline()
        assert first == (
            "catalog mcp: warning: cannot reach Neo4j at bolt://127.0.0.1:1: connection refused (check NEO4J_URI / --uri, NEO4J_USER "
            "and NEO4J_PASSWORD); serving anyway, each question tries again\n"
        )
        assert proc.stderr.readline().startswith("catalog mcp: answering from Neo4j at bolt://127.0.0.1:1 on stdio")
        assert proc.poll() is None  # still serving
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


def test_a_start_with_a_project_the_graph_does_not_hold_exits_2(neo4j_env, jaffle):  # noqa: F811
    proc = start_mcp(neo4j_env, "--project", jaffle + "_typo")
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # still serving: the project was not checked
        proc.kill()
        _, err = proc.communicate()
    assert proc.returncode == 2
    [said] = err.strip().splitlines()
    assert unknown_project_hint(said, f"{jaffle}_typo")[0] == jaffle
