"""Reads start from what they are given: a read about one project, column or metric seeks its
start in an index and expands from there. It never scans every node of a label (or every
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
# reads that mean to visit every node of their kind, and why that stays small
SCANS_ALLOWED = {
    "read/list_projects": "every project of the database, by definition",
    "read/list_builds": "builds are few: `catalog gc` keeps a handful per project",
    "read/find_schema_version": "one Catalog node",
    "read/list_consumer_relationships": "INPUT_OF relationships of every project: metrics and exposures are few",
    "read/list_project_nodes": "benchmarks/bulk_import.py reads a whole project once",
    "read/list_project_relationships": "benchmarks/bulk_import.py reads a whole project once",
}
READS = [n for n in cypher.names("read/") if n not in SCANS_ALLOWED]
# values of the parameters' types: Neo4j plans with the values it is given
SAMPLE_VALUES = {"build_id": 1, "from_build": 1, "to_build": 2, "limit": 10, "skip": 0, "max_depth": 3, "public_only": True}


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
def test_no_read_scans_the_whole_database(name, neo4j_driver, neo4j_settings):
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
