"""Impact's effect flag: a column is safe to rename along only when no path to it computes.

The propagation is plain Python over the edges a query returns; this feeds it edges directly
(the query itself is exercised against Neo4j in tests/store)."""

from __future__ import annotations

from catalog.query import Catalog, ColumnId, Hop, Reached


class _Edges:
    def __init__(self, edges):
        self.edges = edges

    def read(self, name, **params):
        assert name == "read/find_edges_between"
        return [{"up": u, "down": d, "type": t} for u, d, t in self.edges]


def _col(key: str) -> ColumnId:
    return ColumnId(key=key, unique_id=key.rsplit(".", 1)[0], model=key, name=key.rsplit(".", 1)[1])


def _reached(key: str, *types: str) -> Reached:
    return Reached(column=_col(key), depth=len(types), hops=tuple(Hop(from_key="a", to_key="b", type=t, expr=None, resolved=True) for t in types), via="s.x")


def test_a_second_computing_path_makes_a_column_need_review():
    catalog = Catalog.__new__(Catalog)
    catalog.project, catalog.build_id = "p", 1
    # s.x -> a.x (passthrough) -> c.x (passthrough); s.x -> b.y (derived) -> c.x (passthrough); c.x -> d.x (renamed)
    catalog.graph = _Edges([("s.x", "a.x", "passthrough"), ("a.x", "c.x", "passthrough"), ("s.x", "b.y", "derived"), ("b.y", "c.x", "passthrough"), ("c.x", "d.z", "renamed"), ("s.x", "e.x", "renamed")])
    reached = [_reached("a.x", "passthrough"), _reached("b.y", "derived"), _reached("c.x", "passthrough", "passthrough"), _reached("d.z", "passthrough", "passthrough", "renamed"), _reached("e.x", "renamed")]
    marked = {r.column.key: r.effect for r in catalog._mark_safe([_col("s.x")], reached)}
    assert marked == {"a.x": "passthrough", "b.y": "needs review", "c.x": "needs review", "d.z": "needs review", "e.x": "passthrough"}
