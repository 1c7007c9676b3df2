"""The report's any-depth questions, answered in memory over one read of a build's column edges.

``cypher/read/report_build_columns`` returns every column of a build with its FEEDS edges, its
names, documentation and PII flags; :class:`BuildLineage` indexes them once, then answers:

- :meth:`BuildLineage.most_reaching`: the columns that reach the most distinct columns at any
  depth (ties broken by fan-out, then key), exactly, computing the reach only of the columns
  whose upper bound (the number of paths out of them, a count that never undercounts the
  distinct columns at their ends) can still make the top;
- :meth:`BuildLineage.downstream`: every column reached from one column, each at its shortest
  depth with one shortest path's hop types;
- :meth:`BuildLineage.nearest_documented`: for an undocumented column, the nearest documented
  columns its value is copied from (passthrough and renamed hops through undocumented columns).

Where several shortest paths lead to a column, the one reported is the same every time: the
least by its hops in order, a copying hop (passthrough, renamed) before any other, then by name.
The answers are those of the any-depth Cypher queries they replace, kept for Neo4j Browser and
for the test that compares both: ``report_most_depended_on``, ``report_pii_propagation`` and
``report_inheritable_descriptions``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NamedTuple

COPY_TYPES = frozenset({"passthrough", "renamed"})
_EMPTY: list[Any] = []  # the edges of a column with none (never changed)
_NO_CANDIDATES: tuple[int, dict[Any, Any]] = (0, {})  # of a column no documented one is copied into (never changed)
GROWTH = 65536  # columns the lists of BuildLineage grow by at a time


def hop_order(kind: str | None) -> tuple[int, str]:
    """Sort key of one hop: copying hops first, then by type name."""
    return (0 if kind in COPY_TYPES else 1, kind or "")


Layer = dict[int, tuple[tuple[tuple[int, str], ...], tuple[str, ...]]]  # column -> (sort key, hop types)


class Ranked(NamedTuple):
    key: str
    fanout: int
    reach: int
    models_reached: int


class Reached(NamedTuple):
    key: str
    depth: int
    types: tuple[str, ...]


class Nearest(NamedTuple):
    key: str  # the documented column
    distance: int
    types: tuple[str, ...]  # hop types from the documented column down to the undocumented one


class BuildLineage:
    """The column graph of one build: nodes are column keys, edges the build's FEEDS."""

    def __init__(self, rows: Iterable[Sequence[Any]]):
        """``rows``: ``report_build_columns``'s (unique_id, resource_type, columns), each column
        [key, unique_id, model, column, documented, description, pii, feeds, masked], each feed
        [downstream key, type]; ``masked`` (optional, false when absent): the column's value
        is a hash or mask of its inputs (:mod:`catalog.masking`).

        The rows are read one at a time and folded in (a streamed read is never held whole):
        a column gets its number when it is first seen, as a column of the build or as the
        downstream end of a feed (whose own row may come later, or never: a column fed from
        the build but outside it, no edge out of which is read). The strings the rows repeat
        (a model's names on each of its columns, the edge types) are kept once."""
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        self.unique_id: list[str | None] = []
        self.resource_type: list[str | None] = []
        self.names: list[tuple[str, str | None, str] | None] = []  # the column's (unique_id, model, column)
        self.description: list[str | None] = []
        self.documented: list[bool] = []
        self.pii: list[bool] = []
        self.masked: list[bool] = []
        self.in_build: list[bool] = []
        self.out: list[list[int]] = []
        self.out_types: list[list[str]] = []
        self._into: list[list[tuple[int, str]]] | None = None
        kinds: dict[tuple[str, ...], list[str]] = {}
        index, keys, number = self.index, self.keys, self._number
        for unique_id, resource_type, cols in rows:
            shared: dict[Any, Any] = {unique_id: unique_id}  # one string of each of the model's names
            for c in cols:
                i = index.get(c[0])
                if i is None:
                    i = number(c[0])
                model_uid, model = shared.setdefault(c[1], c[1]), shared.setdefault(c[2], c[2])
                self.unique_id[i], self.resource_type[i], self.names[i] = unique_id, resource_type, (model_uid, model, c[3])
                self.documented[i], self.description[i], self.pii[i] = bool(c[4]), c[5], bool(c[6])
                self.masked[i], self.in_build[i] = len(c) > 8 and bool(c[8]), True
                if c[7]:
                    self.out[i] = [index[d] if d in index else number(d) for d, _ in c[7]]
                    types = tuple(t for _, t in c[7])
                    self.out_types[i] = kinds.get(types) or kinds.setdefault(types, list(types))  # one list of each sequence
        for values, _ in self._columns():
            del values[len(keys):]  # the room made ahead and not used

    def _columns(self) -> list[tuple[list[Any], Any]]:
        """Each list of the columns' values, with the value of a column nothing is known of."""
        return [(self.unique_id, None), (self.resource_type, None), (self.names, None), (self.description, None),
                (self.documented, False), (self.pii, False), (self.masked, False), (self.in_build, False),
                (self.out, _EMPTY), (self.out_types, _EMPTY)]  # fmt: skip

    def _number(self, key: str) -> int:
        """Give the new column ``key`` the next number (the lists of values grow ahead, many
        columns at a time); return it."""
        i = self.index[key] = len(self.keys)
        self.keys.append(key)
        if i == len(self.in_build):
            for values, default in self._columns():
                values.extend([default] * GROWTH)
        return i

    # ------------------------------------------------------------------ reach
    def reach_set(self, start: int) -> set[int]:
        """Every column reached from ``start`` through one edge or more (``start`` itself when
        it lies on a cycle)."""
        out = self.out
        seen = set(out[start])
        stack = list(seen)
        while stack:
            for d in out[stack.pop()]:
                if d not in seen:
                    seen.add(d)
                    stack.append(d)
        return seen

    def _path_counts(self) -> list[int] | None:
        """Per column, the number of paths out of it (capped at the number of columns): an upper
        bound of its reach. None when the graph has a cycle."""
        n, out = len(self.keys), self.out
        order = post_order(n, out.__getitem__)
        if order is None:
            return None
        bound = [0] * n
        for node in order:
            bound[node] = min(n, sum(1 + bound[c] for c in out[node]))
        return bound

    def most_reaching(self, limit: int) -> list[Ranked]:
        """The ``limit`` columns of the build with a downstream edge that reach the most distinct
        columns at any depth, ordered by reach, fan-out (descending) and key."""
        starts = [i for i in range(len(self.keys)) if self.in_build[i] and self.out[i]]
        bound = self._path_counts()
        if bound is not None:
            starts.sort(key=lambda i: -bound[i])
        ranked: list[tuple[int, int, str, int, int]] = []
        best: list[int] = []  # min-heap of the `limit` largest reaches so far
        for i in starts:
            if bound is not None and len(best) >= limit and bound[i] < best[0]:
                break  # no column left can reach as many as the limit-th so far
            reached = self.reach_set(i)
            reach = len(reached)
            models = len({names[0] for d in reached if (names := self.names[d]) is not None})  # count(DISTINCT d.unique_id)
            ranked.append((-reach, -len(self.out[i]), self.keys[i], reach, models))
            if len(best) < limit:
                heapq.heappush(best, reach)
            elif reach > best[0]:
                heapq.heapreplace(best, reach)
        ranked.sort()
        return [Ranked(key=k, fanout=-nf, reach=r, models_reached=m) for _, nf, k, r, m in ranked[:limit]]

    # ------------------------------------------------------------------ shortest paths
    def _layers(self, start: int, edges: Callable[[int], Iterable[tuple[int, str]]], forward: bool) -> Iterator[Layer]:
        """Breadth-first from ``start`` along ``edges``: per depth, each column first reached
        there with the least (see :func:`hop_order`) of its shortest paths' hop types, in
        path order from ``start`` (``forward``) or towards it."""
        seen: set[int] = set() if forward else {start}  # downstream, a cycle may come back to the start
        layer: Layer = {start: ((), ())}
        while layer:
            nxt: Layer = {}
            for node, (order, types) in layer.items():
                for other, kind in edges(node):
                    if other in seen:
                        continue
                    hop = hop_order(kind)
                    cand = (order + (hop,), types + (kind,)) if forward else ((hop,) + order, (kind,) + types)
                    old = nxt.get(other)
                    if old is None or cand[0] < old[0]:
                        nxt[other] = cand
            seen.update(nxt)
            if nxt:
                yield nxt
            layer = nxt

    def downstream(self, key: str) -> list[Reached]:
        """Every column reached from ``key`` through one edge or more, at its shortest depth,
        with the hop types of one shortest path (the least in :func:`hop_order`)."""
        start = self.index.get(key)
        if start is None:
            return []
        out, out_types = self.out, self.out_types
        found: list[Reached] = []
        for depth, layer in enumerate(self._layers(start, lambda n: zip(out[n], out_types[n]), forward=True), 1):
            found += [Reached(key=self.keys[d], depth=depth, types=types) for d, (_, types) in layer.items()]
        return found

    def _copies_into(self) -> list[list[tuple[int, str]]]:
        if self._into is None:
            into: list[list[tuple[int, str]]] = [_EMPTY] * len(self.keys)  # most columns copy nothing
            for u, (outs, types) in enumerate(zip(self.out, self.out_types)):
                for d, t in zip(outs, types):
                    if t in COPY_TYPES:
                        if into[d] is _EMPTY:
                            into[d] = []
                        into[d].append((u, t))
            self._into = into
        return self._into

    def nearest_documented(self, key: str) -> list[Nearest]:
        """The documented columns nearest upstream of ``key`` through passthrough and renamed
        hops whose intermediate columns are undocumented, with one shortest path each."""
        into = self._copies_into()
        documented = self.documented
        for depth, layer in enumerate(self._layers(self.index[key], into.__getitem__, forward=False), 1):
            hits = [Nearest(key=self.keys[u], distance=depth, types=types) for u, (_, types) in layer.items() if documented[u]]
            if hits:
                return hits  # documented columns end the walk: none is passed through
        return []

    def inheritable(self) -> dict[str, list[Nearest]]:
        """:meth:`nearest_documented` of every undocumented model and snapshot column that has
        one, each column's answer made from those of the columns it copies (one pass over the
        build when the copying edges between undocumented columns make no cycle)."""
        wanted = [
            i for i in range(len(self.keys))
            if self.in_build[i] and not self.documented[i] and self.resource_type[i] in ("model", "snapshot")
        ]
        nearest = self._nearest_by_copies()
        if nearest is None:  # a cycle: walk from each column
            found = {self.keys[i]: self.nearest_documented(self.keys[i]) for i in wanted}
            return {k: v for k, v in found.items() if v}
        out: dict[str, list[Nearest]] = {}
        for i in wanted:
            distance, cands = nearest[i]
            nearest[i] = _NO_CANDIDATES  # its answer is made: let the walk's go
            if cands:
                out[self.keys[i]] = [Nearest(key=self.keys[u], distance=distance, types=types) for u, (_, types) in cands.items()]
        return out

    def _nearest_by_copies(self) -> list[tuple[int, Layer]] | None:
        """Per undocumented column: the distance to its nearest documented columns and, per
        such column, the least of its shortest paths (as :meth:`nearest_documented`); None when
        the copying edges between undocumented columns make a cycle."""
        into = self._copies_into()
        documented = self.documented
        order = post_order(len(self.keys), lambda x: [] if documented[x] else [u for u, _ in into[x] if not documented[u]])
        if order is None:
            return None
        nearest: list[tuple[int, Layer] | None] = [None] * len(self.keys)
        for node in order:
            if documented[node]:
                continue
            best, cands = 0, {}
            for up, kind in into[node]:
                hop = hop_order(kind)
                if documented[up]:
                    distance, items = 1, [(up, (hop,), (kind,))]
                else:
                    d, found = nearest[up]  # type: ignore[misc]
                    if not found:
                        continue
                    distance, items = d + 1, [(u, order_ + (hop,), types + (kind,)) for u, (order_, types) in found.items()]
                if best and distance > best:
                    continue
                if distance < best or not best:
                    best, cands = distance, {}
                for u, order_, types in items:
                    old = cands.get(u)
                    if old is None or order_ < old[0]:
                        cands[u] = (order_, types)
            nearest[node] = (best, cands) if cands else _NO_CANDIDATES
        return [n if n is not None else _NO_CANDIDATES for n in nearest]

    def unmasked_reach(self, key: str) -> set[str]:
        """The columns ``key``'s value reaches through one edge or more without passing
        through a masked column (a masked column is not reached either)."""
        start = self.index.get(key)
        if start is None:
            return set()
        out, masked = self.out, self.masked
        seen: set[int] = set()
        stack = [start]
        while stack:
            for d in out[stack.pop()]:
                if d not in seen and not masked[d]:
                    seen.add(d)
                    stack.append(d)
        return {self.keys[d] for d in seen}

    def pii_columns(self) -> list[str]:
        return [self.keys[i] for i in range(len(self.keys)) if self.in_build[i] and self.pii[i]]


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
