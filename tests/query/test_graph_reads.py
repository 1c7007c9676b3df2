"""How :class:`Graph` turns the driver's records into rows, against a real Neo4j."""

from __future__ import annotations

import pytest
from neo4j.graph import Node, Path, Relationship

from catalog.store.graph import _dicts

neo4j = pytest.mark.neo4j

# rows of plain values, and rows holding a node, a relationship, a path, a list or a map
MIXED_ROWS = """
MATCH path = (m:Model)-[h:HAS]->(c:Column {project: $project})
WITH m, h, c, path ORDER BY c.key LIMIT 12
WITH collect([m, h, c, path]) AS found
UNWIND range(0, size(found) - 1) AS i
WITH i, found[i] AS f
RETURN i, f[2].key AS key, i / 2.0 AS half, i > 5 AS late, null AS nothing,
       CASE i % 6 WHEN 0 THEN f[0] WHEN 1 THEN f[1] WHEN 2 THEN f[3] WHEN 3 THEN [f[2], i] WHEN 4 THEN {column: f[2]}
                  ELSE f[2].name END AS mixed
"""


@neo4j
def test_rows_are_the_dicts_the_drivers_data_makes(build, project_name, example, neo4j_driver, neo4j_settings):
    """Plain rows take the quick way, the others still go through ``data()``: every row comes
    out as ``data()`` makes it."""
    build(example, project_name)
    records, _, _ = neo4j_driver.execute_query(MIXED_ROWS, project=project_name, database_=neo4j_settings.database)
    assert len(records) == 12
    kinds = [type(r["mixed"]) for r in records]
    for kind in (Node, Relationship, Path, list, dict, str):
        assert any(issubclass(k, kind) for k in kinds), kind
    rows = _dicts(records)
    assert rows == [r.data() for r in records]
    assert isinstance(rows[0]["mixed"], dict) and isinstance(rows[2]["mixed"], list)  # made plain
    assert _dicts([]) == []
