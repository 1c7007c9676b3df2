"""Reads start from what they are given: a read about given columns, models or metrics seeks
its start in an index and expands from there. It never scans every node of a label (or every
relationship of a type) in the database, whose cost grows with every project stored. Two
did: name resolution scanned every Column node (90 ms with 92,000 columns, on each `catalog
impact`), and a metric's inputs tried every Column node as a path's end (1.6 s)."""

from __future__ import annotations

import pytest

from catalog.store import cypher

pytestmark = pytest.mark.neo4j

WHOLE_DATABASE_SCANS = {
    "NodeByLabelScan", "AllNodesScan", "DirectedRelationshipTypeScan", "UndirectedRelationshipTypeScan",
    "DirectedAllRelationshipsScan", "UndirectedAllRelationshipsScan", "UnionNodeByLabelsScan",
    "IntersectionNodeByLabelsScan",
}  # fmt: skip
# Reads about given columns, models or consumers: what they visit is bounded by what they are
# given. (A read of a whole project may scan a label or type: when the project is most of the
# database, Neo4j rightly prefers it, and it does.)
GIVEN = {"column_keys", "key", "keys", "column_name", "name"}
READS = [n for n in cypher.names("read/") if GIVEN & set(cypher.describe(n).parameters)]
# values of the parameters' types: Neo4j plans with the values it is given
SAMPLE_VALUES = {"build_id": 1, "max_depth": 3}


def _sample(param: str) -> object:
    if param in SAMPLE_VALUES:
        return SAMPLE_VALUES[param]
    return ["x"] if param.endswith(("keys", "ids", "names")) else "x"


def _scans(plan: dict) -> list[str]:
    op = plan["operatorType"].split("@")[0]
    found = [f"{op} {plan.get('args', {}).get('Details', '')}"] if op in WHOLE_DATABASE_SCANS else []
    for child in plan.get("children", []):
        found += _scans(child)
    return found


def _plan(driver, settings, name: str, params: dict, profile: bool = False) -> tuple[list, dict]:
    with driver.session(database=settings.database) as session:
        result = session.run(("PROFILE " if profile else "EXPLAIN ") + cypher.load(name), params)
        rows = [r.data() for r in result]
        summary = result.consume()
    return rows, summary.profile if profile else summary.plan


@pytest.mark.parametrize("name", READS)
def test_no_read_of_given_columns_scans_the_whole_database(name, neo4j_driver, neo4j_settings):
    params = {p: _sample(p) for p in cypher.describe(name).parameters}
    _, plan = _plan(neo4j_driver, neo4j_settings, name, params)
    assert not _scans(plan), f"{name} scans the whole database: {_scans(plan)}"


def test_name_resolution_and_a_metrics_inputs_seek_their_start(build, ask, project_name, example, neo4j_driver, neo4j_settings):
    """With the values of a real question, where the planner once chose the scans."""
    assert build(example, project_name).status == "active"
    catalog = ask(project_name)
    rows, plan = _plan(neo4j_driver, neo4j_settings, "read/find_columns_named", {
        "project": project_name, "model": "orders", "column_name": "amount_paid", "build_id": None}, profile=True)  # fmt: skip
    assert [r["key"] for r in rows] == [f"{project_name}/model.coffee_shop.orders.amount_paid"]
    assert not _scans(plan), _scans(plan)
    metric = catalog.resolve_consumer("metric:revenue")
    rows, plan = _plan(neo4j_driver, neo4j_settings, "read/find_consumer_inputs", {
        "project": project_name, "key": metric.key, "build_id": None}, profile=True)  # fmt: skip
    # revenue sums the measure amount_paid of the orders semantic model, over orders.amount_paid
    assert [(r["column"], r["depth"]) for r in rows] == [
        (f"{project_name}/semantic_model.coffee_shop.orders.amount_paid", 1),
        (f"{project_name}/model.coffee_shop.orders.amount_paid", 2),
    ]
    assert not _scans(plan), _scans(plan)
