"""The build's column graph (catalog/lineage/graph.py) and its walks on real projects analyzed
in memory: the bounded most-reaching search against every column's reach counted, the
inheritable descriptions made in one pass against the walk from each column, the PII reach
against the masked columns, and the graph the same whichever way its rows are split."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project
from catalog.extract import load_project
from catalog.docs.plan import DocsInput, lineage_rows
from catalog.lineage.graph import (
    ColumnGraph,
    downstream,
    inheritable,
    most_reaching,
    nearest_documented,
    reach_set,
    unmasked_reach,
)
from catalog.walks import COPY_TYPES, hop_order

PROJECTS = ["jaffle-shop", "jaffle_shop_duckdb", "dbt-project-evaluator"]


def _rows(target: Path) -> list:
    project = load_project(target)
    lineages = analyze_project(project, jobs=1)
    return lineage_rows(DocsInput(project=project.name, dialect=project.dialect, relations=project.nodes, lineages=lineages))


@pytest.fixture(scope="module", params=PROJECTS + ["example"])
def rows(request) -> list:
    if request.param == "example":
        return _rows(request.getfixturevalue("example"))
    return _rows(request.getfixturevalue("shared_dir") / "corpus" / request.param / "target")


def _reach(graph: ColumnGraph, start: int) -> set[int]:
    seen, frontier = set(), [start]
    while frontier:
        frontier = [d for n in frontier for d in graph.out[n] if d not in seen]
        seen.update(frontier)
    return seen


def test_the_rows_folded_in_any_split_make_the_same_graph(rows):
    whole = ColumnGraph(rows)
    for split in (1, len(rows) // 2):
        parts = ColumnGraph(itertools.chain(rows[:split], rows[split:]))
        assert parts.keys == whole.keys and parts.out == whole.out and parts.out_types == whole.out_types


def test_most_reaching_is_every_column_ranked_by_its_reach(rows):
    graph = ColumnGraph(rows)
    every = []
    for i, key in enumerate(graph.keys):
        if graph.in_build[i] and graph.out[i]:
            reach = _reach(graph, i)
            assert reach_set(graph, i) == reach
            models = len({graph.names[d][0] for d in reach if graph.names[d] is not None})
            every.append((key, len(graph.out[i]), len(reach), models))
    every.sort(key=lambda r: (-r[2], -r[1], r[0]))
    assert every, "no column with a downstream edge"
    assert [tuple(r) for r in most_reaching(graph, len(every))] == every
    assert [tuple(r) for r in most_reaching(graph, 5)] == every[:5]  # the bounded search finds the same top


def test_downstream_is_each_column_at_its_depth_on_the_least_shortest_path(rows):
    graph = ColumnGraph(rows)
    into: dict[int, list[tuple[int, str]]] = {}
    for u, (outs, types) in enumerate(zip(graph.out, graph.out_types)):
        for d, t in zip(outs, types):
            into.setdefault(d, []).append((u, t))
    starts = [k for i, k in enumerate(graph.keys) if graph.in_build[i] and graph.out[i]][:40]
    for key in starts:
        start = graph.index[key]
        # the least hop-order sequence of a shortest path to each column, layer by layer
        least: dict[int, tuple] = {start: ()}
        depth_of: dict[int, int] = {}
        layer, depth = [start], 0
        while layer:
            depth += 1
            nxt: dict[int, tuple] = {}
            for n in layer:
                for d, t in zip(graph.out[n], graph.out_types[n]):
                    if d in depth_of:
                        continue
                    cand = least[n] + (hop_order(t),)
                    if d not in nxt or cand < nxt[d]:
                        nxt[d] = cand
            for d, cand in nxt.items():
                depth_of[d], least[d] = depth, cand
            layer = list(nxt)
        found = {r.key: r for r in downstream(graph, key)}
        assert {graph.index[k] for k in found} == set(depth_of)
        for k, r in found.items():
            assert r.depth == depth_of[graph.index[k]] == len(r.types)
            assert tuple(map(hop_order, r.types)) == least[graph.index[k]]


def test_inheritable_in_one_pass_is_the_walk_from_each_column(rows):
    graph = ColumnGraph(rows)
    wanted = [k for i, k in enumerate(graph.keys)
              if graph.in_build[i] and not graph.documented[i] and graph.resource_type[i] in ("model", "snapshot")]  # fmt: skip
    walked = {k: near for k in wanted if (near := nearest_documented(graph, k))}
    assert inheritable(graph) == walked
    for key, near in walked.items():
        for n in near:
            assert graph.documented[graph.index[n.key]] and len(n.types) == n.distance
            assert all(t in COPY_TYPES for t in n.types)


def test_unmasked_reach_stops_at_a_masked_column(rows):
    graph = ColumnGraph(rows)
    masked = {i for i, m in enumerate(graph.masked) if m}
    for key in graph.pii_columns():
        start = graph.index[key]
        plain = {graph.keys[d] for d in _reach(graph, start)}
        found = unmasked_reach(graph, key)
        assert found <= plain and not any(graph.masked[graph.index[k]] for k in found)
        if not masked:
            assert found == plain
