"""Reads that start from given columns walk out from those columns, whatever the statistics.

A relationship index on `since` once let the planner answer `f.since <= $build` by seeking
every FEEDS relationship of the graph for each column reached (a hub's impact took 40 s
instead of 0.6 s). These reads must expand from their start nodes: no relationship index,
no scan over all relationships of a type, in the plan Neo4j makes for a stored build.
"""

from __future__ import annotations

import pytest

from catalog.store import cypher

pytestmark = pytest.mark.neo4j

ANCHORED = [n for n in cypher.names() if n.startswith("read/") and ("$column_keys" in cypher.load(n) or "$key" in cypher.load(n))]


def operators(plan) -> list[str]:
    found = [plan["operatorType"].split("@")[0]]
    for child in plan.get("children", []):
        found += operators(child)
    return found


@pytest.fixture(scope="module")
def stored_build(graph, example):
    """A build of the example, so that the planner has statistics of a real graph."""
    from catalog.build import Builder
    from catalog.history import forget_project

    name = "test_query_plans_example"
    summary = Builder(graph, example, project_name=name, jobs=1).run()
    yield name, summary.build_id
    forget_project(graph, name)


def test_column_anchored_reads_are_listed():
    assert {"read/find_impact_subgraph", "read/find_root_cause_upstream", "read/find_consumers_downstream"} <= set(ANCHORED)


@pytest.mark.parametrize("name", ANCHORED)
def test_column_anchored_read_expands_from_its_columns(graph, stored_build, name):
    project, build_id = stored_build
    with graph.driver.session(database=graph.database) as session:
        summary = session.run("EXPLAIN " + cypher.load(name), project=project, build_id=build_id,
                              column_keys=["x"], key="x", max_depth=None).consume()
    used = operators(summary.plan)
    whole_graph = [op for op in used if "Relationship" in op and ("Index" in op or "Scan" in op)]
    assert whole_graph == [], f"{name} reads relationships outside the walk from its columns: {whole_graph}"
    assert any(op.startswith("NodeUniqueIndexSeek") for op in used), used


def test_no_relationship_index_on_since(graph):
    """Such an index makes the plans above depend on statistics; the schema drops old ones."""
    with graph.driver.session(database=graph.database) as session:
        rows = session.run("SHOW INDEXES YIELD name, entityType, properties RETURN name, entityType, properties").data()
    assert any(r["entityType"] == "RELATIONSHIP" and r["properties"] == ["until"] for r in rows), rows
    assert [r["name"] for r in rows if r["entityType"] == "RELATIONSHIP" and "since" in (r["properties"] or [])] == []
