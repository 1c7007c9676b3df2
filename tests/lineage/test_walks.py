"""The walks of catalog/walks.py against every path spelled out, on small random graphs
with cycles: shortest depths, the reported path and the one tie-break rule."""

from __future__ import annotations

import random

import pytest

from spelled import walks_from

from catalog.walks import COPY_TYPES, HopRanks, closest, depths, descendants, hop_order, impact, levels, reached, reached_by_layer, shortest_paths, tainted, upstream_first

TYPES = ["passthrough", "renamed", "derived", "unknown"]


def _graph(seed: int, nodes: int = 7, edges: int = 12) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    keys = [f"m{i}.c" for i in range(nodes)]
    found = {(rng.choice(keys), rng.choice(keys)): rng.choice(TYPES) for _ in range(edges)}  # one edge per pair, as FEEDS
    return sorted((u, d, t) for (u, d), t in found.items())


def _feeds(edges: list[tuple[str, str, str]]) -> dict[str, list[list[str]]]:
    feeds: dict[str, list[list[str]]] = {}
    for u, d, t in edges:
        feeds.setdefault(u, []).append((d, t, (u, d, t)))
    return feeds


@pytest.mark.parametrize("seed", range(40))
def test_each_node_has_its_shortest_depth_and_the_least_of_its_shortest_paths(seed):
    edges = _graph(seed)
    start = edges[0][0]
    feeds = _feeds(edges)
    walks = walks_from(start, edges, 14)
    found = {node: (depth, path) for depth, layer in shortest_paths(start, lambda k: feeds.get(k, ()), HopRanks(TYPES))
             for node, path in layer.items()}  # fmt: skip
    assert set(found) == {w[-1][1] for w in walks}
    for node, (depth, path) in found.items():
        shortest = [w for w in walks if w[-1][1] == node and len(w) == depth]
        assert shortest and depth == min(len(w) for w in walks if w[-1][1] == node)
        hops = list(path)
        assert hops in shortest  # a real walk, in path order
        least = min(tuple(hop_order(t) for _, _, t in w) for w in shortest)
        assert tuple(hop_order(t) for _, _, t in hops) == least  # copying hops first, then by type name


@pytest.mark.parametrize("seed", range(20))
def test_the_answer_does_not_depend_on_the_order_edges_are_listed_in(seed):
    edges = _graph(seed, nodes=9, edges=20)
    start = edges[0][0]
    answers = []
    for shuffle in range(3):
        listed = list(edges)
        random.Random(shuffle).shuffle(listed)
        feeds = _feeds(listed)
        answers.append({node: [tuple(e) for e in path] for _, layer in shortest_paths(start, lambda k: feeds.get(k, ()), HopRanks(TYPES))
                        for node, path in layer.items()})  # fmt: skip
    assert answers[0] == answers[1] == answers[2]


@pytest.mark.parametrize("seed", range(20))
def test_upstream_paths_are_in_the_data_s_order_and_least_from_the_far_end(seed):
    edges = _graph(seed)
    start = edges[-1][1]
    into: dict[str, list[list[str]]] = {}
    for u, d, t in edges:
        into.setdefault(d, []).append((u, t, t))
    backwards = [(d, u, t) for u, d, t in edges]
    walks = walks_from(start, backwards, 14)
    for depth, layer in shortest_paths(start, lambda k: into.get(k, ()), HopRanks(TYPES), upstream=True):
        for node, path in layer.items():
            shortest = [w for w in walks if w[-1][1] == node and len(w) == depth]
            types = tuple(path)  # from node down to start
            assert types in {tuple(t for _, _, t in reversed(w)) for w in shortest}
            assert tuple(map(hop_order, types)) == min(tuple(hop_order(t) for _, _, t in reversed(w)) for w in shortest)


def test_max_depth_and_keep_bound_the_walk():
    edges = [("a", "b", "passthrough"), ("b", "c", "derived"), ("a", "x", "passthrough"), ("x", "c", "passthrough"), ("c", "d", "renamed")]
    feeds = _feeds(edges)
    walk = lambda **kw: {n: d for d, layer in shortest_paths("a", lambda k: feeds.get(k, ()), HopRanks(TYPES), **kw) for n in layer}  # noqa: E731
    assert walk() == {"b": 1, "x": 1, "c": 2, "d": 3}
    assert walk(max_depth=2) == {"b": 1, "x": 1, "c": 2}
    assert walk(keep=lambda n: n != "c") == {"b": 1, "x": 1}
    # c is reached through x (a copying hop) though b comes first by name
    paths = {n: [e[1] for e in p] for _, layer in shortest_paths("a", lambda k: feeds.get(k, ()), HopRanks(TYPES)) for n, p in layer.items()}
    assert paths["c"] == ["x", "c"]


def test_impact_keeps_the_nearest_asked_column_then_the_least_key():
    edges = [("a", "m", "derived"), ("b", "m", "derived"), ("z", "n", "derived"), ("n", "m", "derived"), ("b", "q", "derived"), ("a", "p", "derived"), ("p", "q", "derived")]
    feeds = _feeds(edges)
    best = impact(["z", "b", "a"], lambda k: feeds.get(k, ()), HopRanks(TYPES))
    assert {k: (d, via) for k, (d, _, via) in best.items()} == {"m": (1, "a"), "n": (1, "z"), "p": (1, "a"), "q": (1, "b")}


@pytest.mark.parametrize("seed", range(30))
def test_tainted_is_every_column_some_walk_reaches_through_a_computing_hop(seed):
    edges = _graph(seed)
    starts = sorted({edges[0][0], edges[-1][0]})
    walks = [w for s in starts for w in walks_from(s, edges, 14)]
    expected = {w[-1][1] for w in walks if any(t not in COPY_TYPES for _, _, t in w)}
    assert tainted(starts, _feeds(edges)) == expected


@pytest.mark.parametrize("seed", range(20))
def test_reached_and_descendants_are_the_ends_of_every_walk(seed):
    edges = _graph(seed)
    start = edges[0][0]
    out = {u: [d for uu, d, _ in edges if uu == u] for u, _, _ in edges}
    walks = walks_from(start, edges, 14)
    assert reached([start], lambda k: out.get(k, ())) == {w[-1][1] for w in walks}
    assert descendants([start], lambda k: out.get(k, ())) == {w[-1][1] for w in walks}
    assert descendants([start], lambda k: out.get(k, ()), 2) == {w[-1][1] for w in walks if len(w) <= 2}
    keep = lambda k: not k.startswith("m3")  # noqa: E731
    assert reached([start], lambda k: out.get(k, ()), keep) == {w[-1][1] for w in walks if all(keep(d) for _, d, _ in w)}


@pytest.mark.parametrize("seed", range(20))
def test_reached_by_layer_asks_one_layer_per_depth_and_ends_where_every_walk_ends(seed):
    edges = _graph(seed)
    starts = sorted({edges[0][0], edges[-1][0]})
    out = {u: [d for uu, d, _ in edges if uu == u] for u, _, _ in edges}
    asked: list[list[str]] = []

    def step(layer: list[str]) -> list[str]:
        asked.append(layer)
        return [d for u in layer for d in out.get(u, ())]

    got = reached_by_layer(starts, step)
    ends = {w[-1][1] for s in starts for w in walks_from(s, edges, 14)}
    assert got == set(starts) | ends
    assert asked[0] == starts and all(layer == sorted(layer) for layer in asked)
    assert sorted(k for layer in asked for k in layer) == sorted(got)  # each node asked about once
    assert len(asked) == max(descendants_depths(starts, out).values()) + 1  # one call per depth, the last finding nothing new


def descendants_depths(starts: list[str], out: dict[str, list[str]]) -> dict[str, int]:
    """Each node's shortest depth from any start (0 for the starts)."""
    found = {s: 0 for s in starts}
    for s in starts:
        for node, depth in depths(s, lambda k: out.get(k, ())).items():
            found[node] = min(found.get(node, depth), depth)
    return found


@pytest.mark.parametrize("seed", range(20))
def test_depths_are_each_node_s_shortest_walk_and_leave_the_start_out(seed):
    edges = _graph(seed)
    start = edges[0][0]
    out = {u: [d for uu, d, _ in edges if uu == u] for u, _, _ in edges}
    walks = [w for w in walks_from(start, edges, 14) if all(d != start for _, d, _ in w)]  # not through the start again
    shortest = {w[-1][1]: min(len(v) for v in walks if v[-1][1] == w[-1][1]) for w in walks}
    assert depths(start, lambda k: out.get(k, ())) == shortest
    assert depths(start, lambda k: out.get(k, ()), 2) == {k: d for k, d in shortest.items() if d <= 2}
    assert depths(start, lambda k: out.get(k, ()), 0) == {}


def test_closest_is_the_nearest_then_the_least_asked_column():
    from collections import namedtuple

    R = namedtuple("R", "key depth via")
    found = [R("x", 2, "a"), R("x", 1, "c"), R("x", 1, "b"), R("y", 3, "b"), R("y", 3, "a")]
    assert closest(found, lambda r: r.key) == {"x": R("x", 1, "b"), "y": R("y", 3, "a")}


def test_the_feed_types_walked_are_the_analyzer_s_column_kinds():
    """A read command ranks hops without loading the analyzer: the names it ranks must be the
    analyzer's kinds, each ranked once, the copying ones first."""
    from catalog.analyze.records import ColumnKind
    from catalog.walks import FEED_TYPES

    assert sorted(FEED_TYPES) == sorted(k.value for k in ColumnKind) and len(set(FEED_TYPES)) == len(FEED_TYPES)
    ranks = HopRanks(FEED_TYPES)
    assert sorted(ranks.code.values()) == list(range(len(FEED_TYPES)))
    assert {k for k in FEED_TYPES if ranks.code[k] < len(COPY_TYPES)} == COPY_TYPES


@pytest.mark.parametrize("seed", range(20))
def test_levels_are_each_node_s_longest_walk_from_a_node_without_parents(seed):
    rng = random.Random(seed)
    keys = [f"m{i}.c" for i in range(8)]
    edges = sorted({(keys[i], keys[j], "derived") for i, j in (sorted(rng.sample(range(8), 2)) for _ in range(12))})  # acyclic
    parents = {k: [u for u, d, _ in edges if d == k] for k in keys}
    got = levels(upstream_first(keys, lambda k: parents[k]), lambda k: parents[k])
    longest = {k: max((len(w) for s in keys for w in walks_from(s, edges, 14) if w[-1][1] == k), default=0) for k in keys}
    assert got == longest


def test_upstream_first_puts_each_node_after_what_it_reads_and_survives_a_cycle():
    reads = {"c": ["a", "b", "outside"], "b": ["a", "b"], "a": [], "d": ["c"]}
    order = upstream_first(reads, lambda n: reads[n])
    assert order == ["a", "b", "c", "d"]
    cyclic = {"a": ["b"], "b": ["a"], "c": []}
    assert upstream_first(cyclic, lambda n: cyclic[n]) == ["a", "b", "c"]
