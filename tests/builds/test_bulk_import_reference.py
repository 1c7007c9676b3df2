"""benchmarks/bulk_import.py: the store's physical reference imports exactly the graph a build
wrote (every node, relationship and property), so the benchmark compares like with like."""

from __future__ import annotations

import pytest

from catalog import local_neo4j

pytestmark = pytest.mark.neo4j

def test_bulk_import_writes_every_node_relationship_and_property_of_a_build(graph, build, project_name, example, neo4j_jars, benchmark_module):
    assert local_neo4j.layout().lib_dir == neo4j_jars  # the importer runs the jars of `catalog neo4j start`
    bulk = benchmark_module("bulk_import")
    summary = build(example, project_name)
    assert summary.status == "active"
    nodes = graph.read("read/list_project_nodes", project=project_name)
    relationships = graph.read("read/list_project_relationships", project=project_name)
    assert {"Project", "Build", "Model", "Column"} <= {label for n in nodes for label in n["labels"]}
    assert {"HAS", "FEEDS", "DEPENDS_ON", "ACTIVE"} <= {r["type"] for r in relationships}
    got = bulk.reference(graph, project_name)
    assert isinstance(got, bulk.Imported), got
    assert (got.nodes, got.relationships) == (len(nodes), len(relationships))
    # an empty string or list is a property in Neo4j, and an empty cell the importer skips
    held = sum(1 for row in nodes + relationships for v in row["props"].values() if v not in ("", []))
    assert got.properties == held
