"""A hub-heavy project (benchmarks/hub_project.py): one column reaching 10,000+ columns builds,
and its impact is exactly the lineage the generator wrote (no timing here: see
benchmarks/query_latency.py --hub)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.neo4j

def test_hub_column_impact_is_exactly_the_generated_lineage(build, ask, project_name, tmp_path, benchmark_module):
    hub = benchmark_module("hub_project")
    fans, width, chain = 40, 50, 4  # 10,000 columns downstream of hub.value
    target = hub.write_hub_project(tmp_path / "hub", fans, width, chain)
    summary = build(target, project_name)
    assert summary.status == "active" and summary.failures == {}
    expected = hub.expected_impact(fans, width, chain)
    assert len(expected["hub.value"]) >= 10_000
    catalog = ask(project_name)
    for column, reached in expected.items():
        answer = catalog.impact([column])
        assert {c.column.label for c in answer.columns} == reached
        depth = {c.column.label: c.depth for c in answer.columns}
        assert depth["fan_0.v_0" if column == "hub.value" else "fan_0.id"] == 1
        assert depth[f"fan_{fans - 1}_{chain}." + ("v_7" if column == "hub.value" else "id")] == chain + 1
        assert all(c.safe for c in answer.columns)  # renames and pass-throughs only
        assert all(len(c.hops) == c.depth and c.hops[-1].to_key == c.column.key for c in answer.columns)
    limited = catalog.impact(["hub.value"], max_depth=2)
    assert {c.column.label for c in limited.columns} == {
        f"fan_{i}{step}.v_{j}" for i in range(fans) for j in range(width) for step in ("", "_1")
    }
