"""The walks over column lineage, as plain functions over the graph a caller has: a stored
build's columns (:class:`~catalog.lineage.graph.ColumnGraph`), an impact's subgraph, a project
analyzed in memory (:class:`~catalog.lineage.records.LineageGraph`).

- :func:`shortest_paths`: breadth first from one node, each node reached at its shortest depth
  with one shortest path (impact, prune, check, the report's PII reach, nearest documented);
- :func:`reached`: the set of nodes reached, nothing more (reach counts, unmasked PII reach);
  :func:`reached_by_layer`, the same a layer at a time (check's PII reach, read from a build);
- :func:`depths`: each node reached at its shortest depth, without paths (the MCP server's
  column lineage);
- :func:`impact`: :func:`shortest_paths` from several asked columns, the nearest one kept;
- :func:`tainted`: the columns some path from the asked ones reaches through a computing hop;
- :func:`closest`: of several answers for one node, the one kept;
- :func:`post_order`, :func:`descendants`: order and closure of a graph of models or columns;
- :func:`upstream_first`: nodes in dependency order, safe from cycles (check's renames, the
  analysis's order of models); :func:`levels`: their longest-path levels (the analysis's waves). This module imports nothing of the catalog: every stage may call it.

The tie-break rule, the same for every walk: of several shortest paths to a node, the one
reported is the least by its hops in path order, a copying hop (passthrough, renamed) before
any other, then by type name; of paths equal in that, the one through the least node (each
depth's nodes are walked in order). Of several asked columns, the nearest is kept, then the
least key (:func:`closest`).
"""

from __future__ import annotations

import graphlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar

COPY_TYPES = frozenset({"passthrough", "renamed"})
# the types of FEEDS edges: catalog.analyze.records.ColumnKind's values (tests/lineage checks they
# agree), named here so that a read command walks lineage without loading the analyzer
FEED_TYPES = ("passthrough", "renamed", "derived", "source", "unknown", "declared")

N = TypeVar("N", bound=Hashable)
T = TypeVar("T")
Edge = Sequence[Any]  # (other node, hop type, step): a path is the steps of its edges


def hop_order(kind: str | None) -> tuple[int, str]:
    """Sort key of one hop: copying hops first, then by type name."""
    return (0 if kind in COPY_TYPES else 1, kind or "")


class HopRanks:
    """Each hop type's place in :func:`hop_order` as a small number, so that a path's rank is one
    integer (its hops' numbers side by side, the first hop the most significant). A type not
    among ``kinds`` comes after all of them."""

    def __init__(self, kinds: Iterable[str | None]):
        ordered = sorted(set(kinds), key=hop_order)
        self.code: dict[str | None, int] = _Codes({k: i for i, k in enumerate(ordered)})
        self.bits = (len(ordered) + 1).bit_length()


class _Codes(dict):
    def __missing__(self, kind: str | None) -> int:
        return len(self)


def shortest_paths(
    start: N,
    edges: Callable[[N], Iterable[Edge]],
    ranks: HopRanks,
    *,
    upstream: bool = False,
    max_depth: int | None = None,
    keep: Callable[[N], bool] | None = None,
) -> Iterator[tuple[int, dict[Any, tuple[Any, ...]]]]:
    """Breadth first from ``start`` along ``edges`` (each ``(other node, hop type, step)``):
    per depth, the nodes first reached there, each with the steps of its reported shortest path
    (the module's tie-break rule), in path order from ``start``, or with ``upstream`` (edges
    walked against the data's flow) in the data's order towards it. ``start`` itself may be
    reached again, through a cycle; nodes ``keep`` refuses are neither reached nor passed."""
    code, bits = ranks.code, ranks.bits
    seen: set[Any] = set()
    layer: dict[Any, tuple[Any, ...]] = {start: ()}
    ranked: dict[Any, int] = {start: 0}
    depth = 0
    while layer and (max_depth is None or depth < max_depth):
        shift = bits * depth
        depth += 1
        nxt: dict[Any, tuple[Any, ...]] = {}
        nxt_rank: dict[Any, int] = {}
        for node in sorted(layer) if len(layer) > 1 else layer:
            order, path = ranked[node], layer[node]
            for other, kind, step in edges(node):
                if other in seen or (keep is not None and other not in nxt and not keep(other)):
                    continue
                rank = order | (code[kind] << shift) if upstream else (order << bits) | code[kind]
                old = nxt_rank.get(other)
                if old is None or rank < old:
                    nxt_rank[other] = rank
                    nxt[other] = (step,) + path if upstream else path + (step,)
        if not nxt:
            return
        seen.update(nxt)
        yield depth, nxt
        layer, ranked = nxt, nxt_rank


def reached(starts: Iterable[N], out: Callable[[N], Iterable[N]], keep: Callable[[N], bool] | None = None) -> set[N]:
    """Every node reached from ``starts`` through one edge or more (a start too, when it lies on
    a cycle); nodes ``keep`` refuses are neither reached nor passed through."""
    seen: set[N] = set()
    stack = list(starts)
    while stack:
        for d in out(stack.pop()):
            if d not in seen and (keep is None or keep(d)):
                seen.add(d)
                stack.append(d)
    return seen


def reached_by_layer(starts: Iterable[str], step: Callable[[list[str]], Iterable[str]]) -> set[str]:
    """``starts`` and every node reached from them, any depth, ``step`` asked for the nodes one
    edge out of a whole layer at once (one read per depth when it asks a store), in order, each
    node in one layer only."""
    seen = set(starts)
    layer = sorted(seen)
    while layer:
        layer = sorted(set(step(layer)) - seen)
        seen.update(layer)
    return seen


def depths(start: N, out: Callable[[N], Iterable[N]], max_depth: int | None = None) -> dict[N, int]:
    """Each node reached from ``start`` through one edge or more, at most ``max_depth`` edges
    away: its least number of edges. ``start`` itself is not among them (it is at depth 0),
    nor passed through again."""
    found: dict[N, int] = {}
    layer = [start]
    depth = 0
    while layer and (max_depth is None or depth < max_depth):
        depth += 1
        nxt: list[N] = []
        for node in layer:
            for other in out(node):
                if other != start and other not in found:
                    found[other] = depth
                    nxt.append(other)
        layer = nxt
    return found


class Near(Protocol):
    depth: int
    via: str


NearT = TypeVar("NearT", bound=Near)


def closest(found: Iterable[NearT], key: Callable[[NearT], str]) -> dict[str, NearT]:
    """One answer per ``key``: the nearest (least depth), then the one from the least asked
    column (``via``); the first of equal ones."""
    best: dict[str, NearT] = {}
    for item in found:
        k = key(item)
        old = best.get(k)
        if old is None or (item.depth, item.via) < (old.depth, old.via):
            best[k] = item
    return best


def impact(
    asked: Sequence[str], edges: Callable[[str], Iterable[Edge]], ranks: HopRanks, max_depth: int | None = None
) -> dict[str, tuple[int, tuple[Any, ...], str]]:
    """Every column reached from an ``asked`` one along ``edges``, at most ``max_depth`` edges
    away: its depth, the steps of its reported path and the asked column that path starts at,
    the nearest asked column kept (then the least key)."""
    best: dict[str, tuple[int, tuple[Any, ...], str]] = {}
    for start in sorted(asked):
        for depth, layer in shortest_paths(start, edges, ranks, max_depth=max_depth):
            for key, path in layer.items():
                old = best.get(key)
                if old is None or depth < old[0]:
                    best[key] = (depth, path, start)
    return best


def tainted(starts: Iterable[str], feeds: Mapping[str, Sequence[Sequence[Any]]]) -> set[str]:
    """The columns some path from a ``starts`` column reaches through a computing hop, over
    ``feeds`` (column -> its edges, each ``[down, type, ...]``): the ends of the computing edges
    out of the columns copied from a start, and everything downstream of them."""
    empty: tuple[Sequence[Any], ...] = ()
    clean: set[str] = set()  # reached from a start over pass-throughs and renames only
    bad: list[str] = []  # the ends of the computing edges out of those
    stack = list(starts)
    while stack:
        key = stack.pop()
        if key not in clean:
            clean.add(key)
            for edge in feeds.get(key, empty):
                (stack if edge[1] in COPY_TYPES else bad).append(edge[0])
    found: set[str] = set()
    while bad:
        key = bad.pop()
        if key not in found:
            found.add(key)
            bad.extend(edge[0] for edge in feeds.get(key, empty))
    return found


def descendants(starts: Iterable[N], step: Callable[[N], Iterable[N]], depth: int | None = None) -> set[N]:
    """The nodes ``step`` leads to from ``starts``, at most ``depth`` steps away (any depth when
    None); a start only when a step leads back to it."""
    seen: set[N] = set()
    layer = list(starts)
    level = 0
    while layer and (depth is None or level < depth):
        level += 1
        layer = [n for u in layer for n in step(u) if n not in seen]
        seen.update(layer)
    return seen


def post_order(n: int, children: Callable[[int], list[int]]) -> list[int] | None:
    """Nodes ``0..n-1`` each after all its children (depth first, no recursion); None when
    the graph has a cycle."""
    state = bytearray(n)  # 0 new, 1 on the stack, 2 done
    order: list[int] = []
    for root in range(n):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, children(root), 0)]
        while stack:
            node, kids, i = stack[-1]
            if i < len(kids):
                stack[-1] = (node, kids, i + 1)
                child = kids[i]
                if state[child] == 0:
                    state[child] = 1
                    stack.append((child, children(child), 0))
                elif state[child] == 1:
                    return None
            else:
                stack.pop()
                state[node] = 2
                order.append(node)
    return order



def levels(nodes: Iterable[N], parents: Callable[[N], Iterable[N]]) -> dict[N, int]:
    """Each of ``nodes`` (given upstream first, as :func:`upstream_first` orders them) at its
    level: 0 without a parent among them, else one more than its highest parent's (the longest
    path to it). A parent not met yet (a cycle) is not counted."""
    level: dict[N, int] = {}
    for node in nodes:
        level[node] = max((level[p] + 1 for p in parents(node) if p in level), default=0)
    return level


def upstream_first(nodes: Iterable[N], parents: Callable[[N], Iterable[N]]) -> list[N]:
    """``nodes`` each after those of them it depends on (``parents``; other nodes and itself
    ignored), in a stable order; in sorted order when they depend on each other in a cycle."""
    ordered = sorted(set(nodes))  # type: ignore[type-var]
    inside = set(ordered)
    sorter: graphlib.TopologicalSorter[N] = graphlib.TopologicalSorter()
    for node in ordered:
        sorter.add(node, *sorted(p for p in parents(node) if p in inside and p != node))  # type: ignore[type-var]
    try:
        return list(sorter.static_order())
    except graphlib.CycleError:
        return ordered

