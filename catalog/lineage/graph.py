"""The column graph of one build, compact: each column a number, its values in parallel lists
(tuned for builds of a million columns and more), read from ``cypher/read/report_build_columns``
rows as they stream in, or from a project analyzed in memory (the same rows,
:func:`record_rows`). The walks over it are functions:

- :func:`most_reaching`: the columns that reach the most distinct columns at any depth (ties
  broken by fan-out, then key), exactly, computing the reach only of the columns whose upper
  bound (the number of paths out of them, a count that never undercounts the distinct columns
  at their ends) can still make the top;
- :func:`downstream`: every column reached from one column, each at its shortest depth with one
  shortest path's hop types (:mod:`catalog.walks`' tie-break rule);
- :func:`unmasked_reach`: the columns a value reaches without passing a masked column;
- :func:`nearest_documented`, :func:`inheritable`: for an undocumented column, the nearest
  documented columns its value is copied from (passthrough and renamed hops through
  undocumented columns).

The answers are those of the any-depth Cypher queries they replace, kept for Neo4j Browser:
``report_most_depended_on``, ``report_pii_propagation`` and ``report_inheritable_descriptions``.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from catalog.analyze.records import ColumnKind, ModelLineage, column_key
from catalog.extract import DbtNode, is_pii
from catalog.walks import COPY_TYPES, HopRanks, hop_order, post_order, reached, shortest_paths
from catalog.masking import is_masked, masking_names

_EMPTY: list[Any] = []  # the edges of a column with none (never changed)
_NO_CANDIDATES: tuple[int, dict[Any, Any]] = (0, {})  # of a column no documented one is copied into (never changed)
GROWTH = 65536  # columns the lists of ColumnGraph grow by at a time

Candidates = dict[int, tuple[tuple[tuple[int, str], ...], tuple[str, ...]]]  # column -> (sort key, hop types)


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


class ColumnGraph:
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
        self.ranks = HopRanks(())
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
        self.ranks = HopRanks(t for types in kinds for t in types)

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

    def pii_columns(self) -> list[str]:
        return [self.keys[i] for i in range(len(self.keys)) if self.in_build[i] and self.pii[i]]

    def copies_into(self) -> list[list[tuple[int, str]]]:
        """Per column, the (column, type) of the passthrough and renamed edges into it."""
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

    def feeding(self, keys: Iterable[str]) -> set[int]:
        """The columns that feed any of ``keys`` through FEEDS, at any depth."""
        into: dict[int, list[int]] = {}
        for up, downs in enumerate(self.out):
            for d in downs:
                into.setdefault(d, []).append(up)
        return reached([self.index[k] for k in keys if k in self.index], lambda d: into.get(d, _EMPTY))


def record_rows(
    relations: Mapping[str, DbtNode], lineages: Mapping[str, ModelLineage], dialect: str, masking_functions: Iterable[str] = ()
) -> list[tuple[str, str, list[list[Any]]]]:
    """The rows ``cypher/read/report_build_columns`` returns for a build of these records (the
    build stores a model's analyzed columns, else its catalog and YAML columns), with each
    column's ``masked`` flag (``masking_functions``: the project's own, :mod:`catalog.masking`)."""
    functions = masking_names(tuple(masking_functions))
    feeds: dict[str, list[list[str]]] = defaultdict(list)
    names: dict[str, list[str]] = {}
    masked: set[str] = set()
    for uid, lin in lineages.items():
        names[uid] = [c.name for c in lin.columns]
        for c in lin.columns:
            down = column_key(uid, c.name)
            if c.kind == ColumnKind.DERIVED and is_masked(c.expr, dialect, functions):
                masked.add(down)
            for s in c.sources:
                feeds[s.key].append([down, c.kind.value])
    rows = []
    for uid in sorted(relations):
        node = relations[uid]
        documented = {c.key_name(dialect): c for c in node.columns}
        columns = []
        for name in names.get(uid) or list(documented):
            key = column_key(uid, name)
            c = documented.get(name)
            text = c.description if c is not None and c.description.strip() else None
            pii = c is not None and is_pii(c.tags, c.meta)
            columns.append([key, uid, node.display_name, name, text is not None, text, pii, sorted(feeds.get(key, [])), key in masked])
        rows.append((uid, node.resource_type, sorted(columns)))
    return rows


# ---------------------------------------------------------------------------- reach
def reach_set(graph: ColumnGraph, start: int) -> set[int]:
    """Every column reached from ``start`` through one edge or more (``start`` itself when
    it lies on a cycle)."""
    return reached([start], graph.out.__getitem__)


def unmasked_reach(graph: ColumnGraph, key: str) -> set[str]:
    """The columns ``key``'s value reaches through one edge or more without passing
    through a masked column (a masked column is not reached either)."""
    start = graph.index.get(key)
    if start is None:
        return set()
    masked = graph.masked
    return {graph.keys[d] for d in reached([start], graph.out.__getitem__, lambda d: not masked[d])}


def _path_counts(graph: ColumnGraph) -> list[int] | None:
    """Per column, the number of paths out of it (capped at the number of columns): an upper
    bound of its reach. None when the graph has a cycle."""
    n, out = len(graph.keys), graph.out
    order = post_order(n, out.__getitem__)
    if order is None:
        return None
    bound = [0] * n
    for node in order:
        bound[node] = min(n, sum(1 + bound[c] for c in out[node]))
    return bound


def most_reaching(graph: ColumnGraph, limit: int) -> list[Ranked]:
    """The ``limit`` columns of the build with a downstream edge that reach the most distinct
    columns at any depth, ordered by reach, fan-out (descending) and key."""
    starts = [i for i in range(len(graph.keys)) if graph.in_build[i] and graph.out[i]]
    bound = _path_counts(graph)
    if bound is not None:
        starts.sort(key=lambda i: -bound[i])
    ranked: list[tuple[int, int, str, int, int]] = []
    best: list[int] = []  # min-heap of the `limit` largest reaches so far
    for i in starts:
        if bound is not None and len(best) >= limit and bound[i] < best[0]:
            break  # no column left can reach as many as the limit-th so far
        found = reach_set(graph, i)
        reach = len(found)
        models = len({names[0] for d in found if (names := graph.names[d]) is not None})  # count(DISTINCT d.unique_id)
        ranked.append((-reach, -len(graph.out[i]), graph.keys[i], reach, models))
        if len(best) < limit:
            heapq.heappush(best, reach)
        elif reach > best[0]:
            heapq.heapreplace(best, reach)
    ranked.sort()
    return [Ranked(key=k, fanout=-nf, reach=r, models_reached=m) for _, nf, k, r, m in ranked[:limit]]


# ---------------------------------------------------------------------------- shortest paths
def downstream(graph: ColumnGraph, key: str) -> list[Reached]:
    """Every column reached from ``key`` through one edge or more, at its shortest depth,
    with the hop types of its reported shortest path."""
    start = graph.index.get(key)
    if start is None:
        return []
    out, out_types, keys = graph.out, graph.out_types, graph.keys
    found: list[Reached] = []
    for depth, layer in shortest_paths(start, lambda n: zip(out[n], out_types[n], out_types[n]), graph.ranks):
        found += [Reached(key=keys[d], depth=depth, types=types) for d, types in layer.items()]
    return found


def nearest_documented(graph: ColumnGraph, key: str) -> list[Nearest]:
    """The documented columns nearest upstream of ``key`` through passthrough and renamed
    hops whose intermediate columns are undocumented, with one shortest path each."""
    into = graph.copies_into()
    documented, keys = graph.documented, graph.keys
    for depth, layer in shortest_paths(graph.index[key], lambda d: ((u, t, t) for u, t in into[d]), graph.ranks, upstream=True):
        hits = [Nearest(key=keys[u], distance=depth, types=types) for u, types in layer.items() if documented[u]]
        if hits:
            return hits  # documented columns end the walk: none is passed through
    return []


def inheritable(graph: ColumnGraph) -> dict[str, list[Nearest]]:
    """:func:`nearest_documented` of every undocumented model and snapshot column that has
    one, each column's answer made from those of the columns it copies (one pass over the
    build when the copying edges between undocumented columns make no cycle)."""
    wanted = [
        i for i in range(len(graph.keys))
        if graph.in_build[i] and not graph.documented[i] and graph.resource_type[i] in ("model", "snapshot")
    ]  # fmt: skip
    nearest = _nearest_by_copies(graph)
    if nearest is None:  # a cycle: walk from each column
        found = {graph.keys[i]: nearest_documented(graph, graph.keys[i]) for i in wanted}
        return {k: v for k, v in found.items() if v}
    out: dict[str, list[Nearest]] = {}
    for i in wanted:
        distance, cands = nearest[i]
        nearest[i] = _NO_CANDIDATES  # its answer is made: let the walk's go
        if cands:
            out[graph.keys[i]] = [Nearest(key=graph.keys[u], distance=distance, types=types) for u, (_, types) in cands.items()]
    return out


def _nearest_by_copies(graph: ColumnGraph) -> list[tuple[int, Candidates]] | None:
    """Per undocumented column: the distance to its nearest documented columns and, per
    such column, the least of its shortest paths (as :func:`nearest_documented`); None when
    the copying edges between undocumented columns make a cycle."""
    into = graph.copies_into()
    documented = graph.documented
    order = post_order(len(graph.keys), lambda x: [] if documented[x] else [u for u, _ in into[x] if not documented[u]])
    if order is None:
        return None
    nearest: list[tuple[int, Candidates] | None] = [None] * len(graph.keys)
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
