"""Reads that start from given columns walk out from those columns, whatever the statistics.

A relationship index on `since` once let the planner answer `f.since <= $build` by seeking
every FEEDS relationship of the graph for each column reached (a hub's impact took 40 s
instead of 0.6 s). These reads must expand from their start nodes: no relationship index,
no scan over all relationships of a type, in the plan Neo4j makes for a stored build.

Nor may they scan every node of a label, or every node: such a scan grows with every project
stored. Two did: name resolution scanned every Column node (90 ms with 92,000 columns, on each
`catalog impact`), and a metric's inputs tried every Column node as a path's end (1.6 s); on a
fresh database, root cause, impact per path and consumers did the same.
"""

from __future__ import annotations

import pytest

from catalog.store import cypher

pytestmark = pytest.mark.neo4j

# reads of given columns, models or consumers: what they visit is bounded by what they are given
# (a read of a whole project may scan: when the project is most of the database, Neo4j rightly
# prefers it, and in the full suite's database it does)
GIVEN = {"column_keys", "key", "keys", "column_name", "name", "unique_ids"}
ANCHORED = [n for n in cypher.names("read/") if GIVEN & set(cypher.describe(n).parameters)]
MAPS = {"needs", "values"}  # parameters that are maps (looked up by a node's property)
# operators that read every node with a label, every node, or every relationship of a type
WHOLE_DATABASE_SCANS = {
    "NodeByLabelScan", "AllNodesScan", "DirectedRelationshipTypeScan", "UndirectedRelationshipTypeScan",
    "DirectedAllRelationshipsScan", "UndirectedAllRelationshipsScan", "UnionNodeByLabelsScan",
    "IntersectionNodeByLabelsScan",
}  # fmt: skip


def operators(plan) -> list[str]:
    found = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        found += operators(child)
    return found


def whole_database_scans(plan) -> list[str]:
    return [op for op in operators(plan) if op in WHOLE_DATABASE_SCANS]


@pytest.fixture(scope="module")
def stored_build(graph, example):
    """A build of the example, so that the planner has statistics of a real graph."""
    from catalog.builds import Builder
    from catalog.history import forget_project

    name = "test_query_plans_example"
    summary = Builder(graph, example, project_name=name, jobs=1).run()
    yield name, summary.build_id
    forget_project(graph, name)


def test_column_anchored_reads_are_listed():
    assert {"read/find_impact_subgraph", "read/find_root_cause_subgraph", "read/find_consumers_downstream",
            "read/find_columns_named", "read/list_build_records", "read/list_build_model_lineage", "read/find_model_neighbours"} <= set(ANCHORED)  # fmt: skip


@pytest.mark.parametrize("name", ANCHORED)
def test_column_anchored_read_expands_from_its_columns(graph, stored_build, name):
    project, build_id = stored_build
    known = {"project": project, "build_id": build_id, "max_depth": None, "builds": {}}
    params = {p: known[p] if p in known else ["x"] if p.endswith(("keys", "ids", "identifiers")) else {} if p in MAPS else "x" for p in cypher.describe(name).parameters}
    with graph.driver.session(database=graph.database) as session:
        summary = session.run("EXPLAIN " + cypher.load(name), params).consume()
    used = operators(summary.plan)
    whole_graph = [op for op in used if "Relationship" in op and ("Index" in op or "Scan" in op)]
    assert whole_graph == [], f"{name} reads relationships outside the walk from its columns: {whole_graph}"
    assert whole_database_scans(summary.plan) == [], f"{name} scans the whole database: {used}"
    assert any(op.startswith("NodeUniqueIndexSeek") for op in used), used


def test_name_resolution_and_a_metrics_inputs_seek_their_start(graph, stored_build):
    """Run with the values of a real question, where the planner once chose the scans."""
    project, _ = stored_build

    def profiled(name: str, **params):
        with graph.driver.session(database=graph.database) as session:
            result = session.run("PROFILE " + cypher.load(name), params)
            rows = [r.data() for r in result]
            return rows, result.consume().profile

    rows, plan = profiled("read/find_columns_named", project=project, model="orders", column_name="amount_paid", build_id=None)
    assert [r["key"] for r in rows] == [f"{project}/model.coffee_shop.orders.amount_paid"]
    assert whole_database_scans(plan) == []
    rows, plan = profiled("read/find_root_cause_subgraph", project=project, keys=[f"{project}/metric.coffee_shop.revenue"], build_id=None,
                          max_depth=None, builds={})  # fmt: skip
    # revenue sums the measure amount_paid of the orders semantic model, over orders.amount_paid
    feeders = {n[0]: [f[0] for f in n[7]] for n in rows[0]["nodes"]}
    assert feeders[f"{project}/metric.coffee_shop.revenue"] == [f"{project}/semantic_model.coffee_shop.orders.amount_paid"]
    assert feeders[f"{project}/semantic_model.coffee_shop.orders.amount_paid"] == [f"{project}/model.coffee_shop.orders.amount_paid"]
    assert whole_database_scans(plan) == []


DIFF_INDEXES = {"catalog_feeds_since_model": ["since", "model"], "catalog_has_since_position": ["since", "position"],
                "catalog_conditions_since_clause": ["since", "clause"]}  # fmt: skip


def test_no_relationship_index_on_since_alone(graph):
    """Such an index makes the plans above depend on statistics; the schema drops old ones. The
    build diff's composite ones serve only a query that asks their second property too."""
    with graph.driver.session(database=graph.database) as session:
        rows = session.run("SHOW INDEXES YIELD name, entityType, properties RETURN name, entityType, properties").data()
    assert any(r["entityType"] == "RELATIONSHIP" and r["properties"] == ["until"] for r in rows), rows
    with_since = {r["name"]: r["properties"] for r in rows if r["entityType"] == "RELATIONSHIP" and "since" in (r["properties"] or [])}
    assert with_since == DIFF_INDEXES


def steps(plan) -> list[tuple[str, str]]:
    found = [(plan["operatorType"].split("@")[0], plan.get("args", {}).get("Details", ""))]
    for child in plan.get("children", []):
        found += steps(child)
    return found


def test_a_build_diff_seeks_the_column_edges_and_columns_that_began_or_ended_in_its_range(graph, stored_build):
    """The FEEDS and HAS a diff reads are found in the indexes, not by expanding every column of
    the project (595 ms at 5,000 models); a project's CONDITIONS are few, Neo4j may expand them."""
    project, build_id = stored_build
    params = {"project": project, "from_build": build_id - 1, "to_build": build_id}
    seeks = []
    for name in ("read/find_build_edge_changes", "read/find_build_column_changes"):
        with graph.driver.session(database=graph.database) as session:
            plan = session.run("EXPLAIN " + cypher.load(name), params).consume().plan
        used = steps(plan)
        assert [d for op, d in used if op.startswith("Expand") and (":FEEDS" in d or ":HAS" in d)] == [], used
        assert whole_database_scans(plan) == [], used
        seeks += sorted(d.split("]")[0].split(":")[1] for op, d in used if op.startswith("DirectedRelationshipIndex") and ":CONDITIONS" not in d)
    # each index at least once (a planner may seek one twice, on a database of other projects)
    assert sorted(set(seeks)) == ["FEEDS(since, model)", "FEEDS(until)", "HAS(since, position)", "HAS(until)"]
