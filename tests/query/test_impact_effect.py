"""Impact's effect flag: a column is safe to rename along only when no path to it computes.

The propagation is plain Python over the subgraph ``find_impact_subgraph`` returns (the walk
`BuildView.impact` runs); this feeds it edges directly (the query itself is exercised against
Neo4j in tests/query)."""

from __future__ import annotations

import random

import pytest

from spelled import walks_from

from catalog.walks import hop_order
from catalog.query import SAFE_TYPES, ColumnId, downstream_of


def _col(key: str) -> ColumnId:
    return ColumnId(key=key, unique_id=key.rsplit(".", 1)[0], model=key, name=key.rsplit(".", 1)[1])


def _subgraph(edges: list[tuple[str, str, str]]) -> list[list]:
    """``find_impact_subgraph``'s columns over ``edges`` (up, down, type)."""
    keys = sorted({k for u, d, _ in edges for k in (u, d)})
    return [[k, k.rsplit(".", 1)[0], k.split(".")[0], k.rsplit(".", 1)[1], [[d, t, None, True] for u, d, t in edges if u == k], False, None] for k in keys]


def test_a_second_computing_path_makes_a_column_need_review():
    # s.x -> a.x (passthrough) -> c.x (passthrough); s.x -> b.y (derived) -> c.x (passthrough); c.x -> d.z (renamed)
    edges = [("s.x", "a.x", "passthrough"), ("a.x", "c.x", "passthrough"), ("s.x", "b.y", "derived"), ("b.y", "c.x", "passthrough"), ("c.x", "d.z", "renamed"), ("s.x", "e.x", "renamed")]
    reached = downstream_of([_col("s.x")], _subgraph(edges), None)
    assert {r.column.key: (r.depth, [h.from_key for h in r.hops], r.effect) for r in reached} == {
        "a.x": (1, ["s.x"], "passthrough"),
        "b.y": (1, ["s.x"], "needs review"),
        "c.x": (2, ["s.x", "a.x"], "needs review"),  # its shortest path passes through, the other computes
        "d.z": (3, ["s.x", "a.x", "c.x"], "needs review"),
        "e.x": (1, ["s.x"], "passthrough"),
    }


@pytest.mark.parametrize("seed", range(40))
def test_the_walk_over_a_subgraph_matches_every_path_spelled_out(seed):
    """Random small graphs with cycles and several asked columns: each reached column's depth is
    its shortest walk from any asked column, its path is a real walk of that length from the
    asked column it names, and it needs review exactly when some walk to it computes."""
    rng = random.Random(seed)
    keys = [f"p/m{i}.c" for i in range(7)]
    edges = sorted({(rng.choice(keys), rng.choice(keys), rng.choice(["passthrough", "renamed", "derived"])) for _ in range(10)})
    edges = list({(u, d): (u, d, t) for u, d, t in edges}.values())  # one edge per pair, as FEEDS
    asked = [_col(k) for k in rng.sample(keys, rng.choice([1, 2]))]
    walks = [w for a in asked for w in walks_from(a.key, edges, len(keys) * 2)]
    reachable = {w[-1][1] for w in walks}
    columns = [[k, k.rsplit(".", 1)[0], k.split("/")[1].split(".")[0], "c", [[d, t, None, True] for u, d, t in edges if u == k], False, None]
               for k in sorted(reachable | {a.key for a in asked})]
    reached = {r.column.key: r for r in downstream_of(asked, columns, None)}
    assert set(reached) == reachable
    for key, r in reached.items():
        shortest = min(len(w) for w in walks if w[-1][1] == key)
        assert r.depth == shortest == len(r.hops)
        # the path reported: copying hops first, then by type name (catalog.walks)
        least = min(tuple(hop_order(t) for _, _, t in w) for w in walks if w[-1][1] == key and len(w) == shortest and w[0][0] == r.via)
        assert tuple(hop_order(h.type) for h in r.hops) == least
        assert r.hops[0].from_key == r.via and r.hops[-1].to_key == key
        assert all(a.to_key == b.from_key for a, b in zip(r.hops, r.hops[1:]))
        assert all((h.from_key, h.to_key, h.type) in edges for h in r.hops)
        computes = any(w[-1][1] == key and any(t not in SAFE_TYPES for _, _, t in w) for w in walks)
        assert r.effect == ("needs review" if computes else "passthrough"), key


def test_of_two_equally_short_paths_the_copying_one_is_shown():
    # s.x -> a.y (derived) -> c.z and s.x -> b.x (passthrough) -> c.z: c.z is shown through b.x,
    # though a.y comes first by name
    edges = [("s.x", "a.y", "derived"), ("a.y", "c.z", "passthrough"), ("s.x", "b.x", "passthrough"), ("b.x", "c.z", "passthrough")]
    reached = {r.column.key: r for r in downstream_of([_col("s.x")], _subgraph(edges), None)}
    assert [(h.from_key, h.to_key, h.type) for h in reached["c.z"].hops] == [("s.x", "b.x", "passthrough"), ("b.x", "c.z", "passthrough")]
    assert reached["c.z"].effect == "needs review"  # the other path computes
