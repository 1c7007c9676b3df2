"""`catalog mcp` on the hub project of benchmarks/hub_project.py: hub.value reaches exactly
50 * 50 * 5 = 12,500 columns (benchmarks/hub_project.py's expected_impact gives them). Every
answer holds at most `limit` hits, says the total and whether it is cut, and its pages put
together are the whole answer (no timing here: see benchmarks/mcp_latency.py)."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.mcp.server import make_server
from catalog.mcp.stored import Stored
from test_mcp import answer, at

pytestmark = pytest.mark.neo4j

FANS, WIDTH, CHAIN = 50, 50, 4


@pytest.fixture
def hub_server(build, project_name, tmp_path, benchmark_module, neo4j_settings) -> Any:
    hub = benchmark_module("hub_project")
    summary = build(hub.write_hub_project(tmp_path / "hub", FANS, WIDTH, CHAIN), project_name)
    assert summary.status == "active"
    source = Stored(neo4j_settings, project=project_name)
    yield make_server(source), hub.expected_impact(FANS, WIDTH, CHAIN)
    source.close()


def _pages(server: Any, tool: str, args: dict[str, Any], key: str, limit: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every page of one answer: the pages' bounds, and their items put together."""
    bounds, items, cursor = [], [], None
    while True:
        got = answer(server, tool, {**args, "limit": limit, "cursor": cursor})
        assert len(got[key]) <= limit
        bounds.append({k: got[k] for k in ("total", "truncated", "next_cursor")})
        items += got[key]
        cursor = got["next_cursor"]
        if cursor is None:
            return bounds, items


def test_impact_and_column_lineage_of_the_hub_are_bounded_and_whole(hub_server):
    server, expected = hub_server
    reached = expected["hub.value"]
    assert len(reached) == 12_500

    first = answer(server, "impact", {"columns": ["hub.value"]})
    assert (len(first["hits"]), first["total"], first["truncated"], at(first["next_cursor"])) == (200, 12_500, True, 200)
    assert first["summary"] == {
        "models": FANS * (CHAIN + 1), "columns": 12_500, "metrics": 0, "exposures": 0, "saved_queries": 0, "semantic_models": 0,
        "selector": " ".join(sorted(f"fan_{i}{s}" for i in range(FANS) for s in ["", *(f"_{k}" for k in range(1, CHAIN + 1))])),
    }  # fmt: skip
    bounds, hits = _pages(server, "impact", {"columns": ["hub.value"]}, "hits", 2000)
    assert [b["next_cursor"] and at(b["next_cursor"]) for b in bounds] == [2000, 4000, 6000, 8000, 10000, 12000, None]
    assert all(b["total"] == 12_500 for b in bounds) and [b["truncated"] for b in bounds] == [True] * 6 + [False]
    assert len(hits) == 12_500 and {f"{h['model']}.{h['name']}" for h in hits} == reached

    lineage = answer(server, "column_lineage", {"column": "hub.value", "direction": "downstream", "limit": 150})
    assert (len(lineage["nodes"]), lineage["total"], lineage["truncated"]) == (150, 12_500, True)
    # each node comes with the edges into it: one per column here (a rename or a pass-through)
    assert len(lineage["edges"]) == 150 and {e["to"] for e in lineage["edges"]} == {n["column"] for n in lineage["nodes"]}
    bounds, nodes = _pages(server, "column_lineage", {"column": "hub.value", "direction": "downstream"}, "nodes", 2000)
    assert len(bounds) == 7 and {f"{n['model']}.{n['name']}" for n in nodes} == reached
    assert {n["distance"] for n in nodes} == set(range(1, CHAIN + 2))

    ids = answer(server, "impact", {"columns": ["hub.id"], "limit": 300})
    assert (ids["total"], ids["truncated"], ids["next_cursor"], len(ids["hits"])) == (FANS * (CHAIN + 1), False, None, FANS * (CHAIN + 1))
