"""One project's nodes, columns and lineage indexed in memory, for the questions no single
query of the graph answers (search, a model's card, the lineage subgraph around a column) and
for every question of ``catalog mcp PATH``, where there is no graph.

Made from :class:`~catalog.export.openlineage.ExportInput`, the records `catalog explore`
reads from a stored build or from a dbt target: the same answers from both. Column keys are
the graph's (``<project>/<unique_id>.<column>``), so the answers of
:class:`~catalog.query.BuildView` and of this view are written out by the same code.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from itertools import accumulate
from dataclasses import dataclass, field
from typing import Any

from catalog.analyze.records import column_key
from catalog.errors import NotFound
from catalog.export.openlineage import ExportInput
from catalog.extract import DbtTest, is_pii
from catalog.idents import typed
from catalog.lineage.names import resolve_column
from catalog.walks import closest, depths, descendants, shortest_paths
from catalog.query import (
    CONSUMER_KINDS,
    FEED_RANKS,
    Answer,
    ColumnId,
    ConditionUse,
    ConsumerHit,
    Hop,
    Reached,
    downstream_of,
)
from catalog.store.keys import quote_column

NODE_KINDS = ("model", "source", "seed", "snapshot", "semantic_model", "metric", "exposure", "saved_query")
SEARCH_KINDS = (*NODE_KINDS, "column")
UNDECLARED = "not declared: known only from the SQL that reads it"  # the reason of such a source column


@dataclass(slots=True)
class Node:
    kind: str
    name: str  # as users type it: orders, shop.orders for a source
    unique_id: str
    status: str
    reason: str
    materialized: str
    description: str
    columns: list[str] = field(default_factory=list)  # column keys, in the node's order
    path: str | None = None  # its file, relative to its package's folder (dbt's original_file_path)


@dataclass(slots=True)
class Column:
    id: ColumnId
    kind: str | None  # the analysis's (passthrough, renamed, ...); None when not analyzed (a source's)
    expr: str | None
    resolved: bool | None
    reason: str | None
    data_type: str | None
    description: str
    pii: bool


@dataclass(slots=True)
class Edge:
    up: str
    down: str
    type: str
    expr: str | None
    resolved: bool | None


class SearchIndex:
    """Every searchable name of one build: its nodes (kind, name as users type it, unique id) and
    the columns of its models, sources, seeds and snapshots (key, the node's unique id and name,
    the column's name). Made from a :class:`ProjectView`, or from a stored build's records and
    column names alone (:meth:`catalog.mcp.stored.Stored.search_index`), so that a first search
    does not wait for the whole build."""

    def __init__(self, project: str, build_id: int | None, nodes: list[tuple[str, str, str]], columns: list[tuple[str, str, str, str]],
                 matching: str | None = None, unread: int = 0):  # fmt: skip
        """``matching``: a query as searched (:func:`_plain`) that the label of every one of
        ``columns`` is known to hold in order (a stored build's search reads only those): its
        search takes them without matching them again, and the index searches for it alone.
        ``unread``: how many more columns match it than ``columns`` holds (a stored build's
        search reads those of the pages asked: its ranking begins as the whole build's does)."""
        self.project = project
        self.unread = unread
        self.build_id = build_id
        self.nodes = {uid: (kind, name) for kind, name, uid in nodes}
        self.columns = {key: (uid, model, name) for key, uid, model, name in columns}
        # (lower label, kind, key or uid) of every searchable name: the nodes', then the columns'
        # (``model.column``)
        self.labels = [(_plain(name), kind, uid) for kind, name, uid in nodes]
        self._nodes = _Names([label for label, _, _ in self.labels])
        self._matching = matching
        self._first_column = len(self.labels)
        if matching is not None:
            plain: dict[str, str] = {}  # a name -> as searched (a model's, and column names repeat)
            for key, _, model, name in columns:
                m, n = plain.get(model), plain.get(name)
                if m is None:
                    m = plain[model] = _plain(model)
                if n is None:
                    n = plain[name] = _plain(name)
                self.labels.append((f"{m}.{n}", "column", key))
            return
        # a column's label is its node's name, a dot and its name: both parts are matched once
        # each (5,500 node names and 18,500 distinct column names instead of 350,000 labels at
        # 5,000 models), see :meth:`_column_matches`
        models: dict[str, int] = {}
        names: dict[str, int] = {}
        self._model_columns: list[dict[str, list[int]]] = []  # by model: column name -> label indexes
        for key, _, model, name in columns:
            m, n = _plain(model), _plain(name)
            if m not in models:
                models[m] = len(models)
                self._model_columns.append({})
            names.setdefault(n, len(names))
            self._model_columns[models[m]].setdefault(n, []).append(len(self.labels))
            self.labels.append((f"{m}.{n}", "column", key))
        self._models = _Names([m + "." for m in models])
        self._column_names = list(names)
        self._reversed_names = _Names([n[::-1] for n in names])

    def search(self, query: str, kinds: list[str] | None) -> list[dict[str, Any]]:
        """Nodes and columns whose name matches ``query``, best first, as the explorer ranks
        them: exact, the name after a dot, a prefix (of the name or a part after ``.`` or
        ``_``), a substring, then the letters in order with gaps; shorter names first."""
        return [self.hit(found) for found in self.ranked(query, kinds)]

    def ranked(self, query: str, kinds: list[str] | None) -> list[tuple[int, int, str, str, str]]:
        """:meth:`search`'s matches in its order, as (rank, length, label, kind, key or uid):
        :meth:`hit` makes each an answer, so that a page makes only its own."""
        q = _plain(query.strip())
        if not q:
            return []
        wanted = set(kinds or SEARCH_KINDS)
        found = [i for i in self._nodes.matching(q) if self.labels[i][1] in wanted]
        if "column" in wanted:
            found += self._column_matches(q)
        labels = self.labels
        ranked = [(_rank(labels[i][0], q, in_order=True), len(labels[i][0]), *labels[i]) for i in found]
        ranked.sort()
        return ranked

    def _column_matches(self, q: str) -> list[int]:
        """The indexes of the column labels that hold the letters of ``q`` in order. The earliest
        letters of ``q`` the node's name and its dot hold (k of them) leave the rest, ``q[k:]``,
        to the column's name (matching the letters as early as they come loses no match); a
        name holds ``q[k:]`` when it holds at least the last ``len(q) - k`` letters."""
        if self._matching is not None:
            if q != self._matching:
                raise ValueError(f"this index holds the columns that match {self._matching!r}, not {q!r}")
            return list(range(self._first_column, len(self.labels)))
        if len(q) > NESTED_MAX:  # too deep for one pattern: each model's columns one by one
            in_order = letters_in_order(q)
            return [i for m, cols in enumerate(self._model_columns) for n, ids in cols.items()
                    if in_order.search(self._models.names[m] + n) for i in ids]  # fmt: skip
        in_models = self._models.depths(q)
        in_names = self._reversed_names.depths(q[::-1])  # how many of the last letters each name holds
        by_depth: dict[int, list[str]] = defaultdict(list)
        for name, depth in zip(self._column_names, in_names):
            by_depth[depth].append(name)
        holding: dict[int, set[str]] = {}  # k -> the names that hold q[k:]
        found: list[int] = []
        for m, k in enumerate(in_models):
            cols = self._model_columns[m]
            if k == len(q):
                names = cols.keys()
            else:
                if k not in holding:
                    holding[k] = {n for d in range(len(q) - k, len(q) + 1) for n in by_depth.get(d, ())}
                names = cols.keys() & holding[k]
            for n in names:
                found += cols[n]
        return found

    def hit(self, found: tuple[int, int, str, str, str]) -> dict[str, Any]:
        kind, ident = found[3], found[4]
        if kind == "column":
            uid, model, name = self.columns[ident]
            return {"kind": "column", "name": f"{model}.{quote_column(name)}", "unique_id": uid, "column": name}
        kind, name = self.nodes[ident]
        return {"kind": kind, "name": name, "unique_id": ident}


def columns_to_read(q: str, nodes: list[tuple[str, str]], names: list[str]) -> list[dict[str, Any]]:
    """What to read so that the columns whose label holds the letters of ``q`` in order are
    read (``q`` as searched, at most :data:`NESTED_MAX` letters; ``nodes``: (unique id, name)
    of each; ``names``: every column name, perhaps more), as :meth:`SearchIndex._column_matches`
    matches them: a node's name and its dot hold q's first k letters, its columns' names must
    hold the rest. For each k, the nodes and the names that hold the rest (None: any), as the
    keys of maps, and whether to find them from the names (the smaller part of its kind) or
    from the nodes (``find_search_page``)."""
    if not nodes or not names:
        return []
    in_nodes = _Names([_plain(name) + "." for _, name in nodes]).depths(q)
    in_names = _Names([_plain(n)[::-1] for n in names]).depths(q[::-1])  # how many of the last letters each name holds
    by_depth: dict[int, list[str]] = defaultdict(list)
    for (uid, _), k in zip(nodes, in_nodes):
        by_depth[k].append(uid)
    asks: list[dict[str, Any]] = []
    for k, ids in sorted(by_depth.items()):
        holding = [n for n, d in zip(names, in_names) if d >= len(q) - k] if k < len(q) else None
        by_name = holding is not None and len(holding) / len(names) <= len(ids) / len(nodes)
        asks.append({"names": None if holding is None else dict.fromkeys(holding, True), "nodes": dict.fromkeys(ids, True), "by_name": by_name})
    return asks


def letters_in_order(q: str) -> re.Pattern[str]:
    """A pattern found in a text that holds the letters of ``q`` in order."""
    return re.compile(".*?".join(map(re.escape, q)), re.DOTALL)


def _plain(name: str) -> str:
    """A name as searched: lower case, without NUL (which separates the names in :class:`_Names`)."""
    return name.lower().replace("\x00", "")


NESTED_MAX = 64  # letters of a query matched with one nested pattern (deeper: one name at a time)


class _Names:
    """Names joined in one text, each after a NUL, for the regex engine to scan at once."""

    def __init__(self, names: list[str]):
        self.names = names
        self.text = "".join("\x00" + n for n in names)
        self.starts = list(accumulate((len(n) + 1 for n in names), initial=0))[:-1]

    def matching(self, q: str) -> list[int]:
        """The indexes of the names that hold the letters of ``q`` in order: one scan, resumed
        after each name found; each gap runs to the next letter's first place."""
        pattern = re.compile(re.escape(q[0]) + "".join(f"[^\x00{re.escape(c)}]*{re.escape(c)}" for c in q[1:]))
        found, pos, end, last = [], 0, len(self.text), len(self.starts) - 1
        while pos < end:
            hit = pattern.search(self.text, pos)
            if hit is None:
                break
            i = bisect.bisect_right(self.starts, hit.start()) - 1
            found.append(i)
            pos = self.starts[i + 1] if i < last else end
        return found

    def depths(self, q: str) -> list[int]:
        """For each name, how many of the first letters of ``q`` it holds in order: one match
        per name, of nested optional steps each marked by an empty group (the last one matched
        is the depth reached)."""
        inner = ""
        for c in reversed(q):
            e = re.escape(c)
            inner = f"(?:[^\x00{e}]*{e}(){inner})?"
        return [hit.lastindex or 0 for hit in re.finditer("\x00" + inner, self.text)]


class ProjectView:
    """Every node, column, column edge, condition and dependency of one project (one build)."""

    def __init__(self, data: ExportInput):
        self.project = data.project
        self.build_id = data.build_id
        self.dialect = data.dialect
        self.nodes: dict[str, Node] = {}
        self.columns: dict[str, Column] = {}
        self.ups: dict[str, list[Edge]] = defaultdict(list)  # column key -> edges into it
        self.downs: dict[str, list[Edge]] = defaultdict(list)  # column key -> edges out of it
        self.conditions: dict[str, list[tuple[str, str]]] = defaultdict(list)  # column key -> (model uid, clause)
        self.parents: dict[str, set[str]] = defaultdict(set)
        self.children: dict[str, set[str]] = defaultdict(set)
        # a column into a semantic model's column, a measure into a metric, a metric into a metric,
        # saved query or exposure, a model column into an exposure (the graph's INPUT_OF): ends
        # are column keys or a consumer's <project>/<unique_id>, edges (other end, type, expr)
        self.consumer_reads: dict[str, list[tuple[str, str, str | None]]] = defaultdict(list)
        self.consumer_inputs: dict[str, list[tuple[str, str, str | None]]] = defaultdict(list)
        # column key -> the tests that read it (a stored build's TESTS, the report's test coverage)
        self.tests: dict[str, list[DbtTest]] = defaultdict(list)
        self._index(data)
        self._by_name: dict[tuple[str, str], list[str]] | None = None
        self._search: SearchIndex | None = None

    def key(self, unique_id: str, column: str) -> str:
        return f"{self.project}/{column_key(unique_id, column)}"

    def _index(self, data: ExportInput) -> None:
        for uid in sorted(data.relations):
            rel = data.relations[uid]
            lin = data.lineages.get(uid)
            node = Node(rel.resource_type, rel.display_name, uid, lin.status.value if lin else "", (lin.reason or "") if lin else "",
                        rel.materialized or "", rel.description, path=rel.path)  # fmt: skip
            self.nodes[uid] = node
            declared = {c.key_name(data.dialect): c for c in rel.columns}
            analyzed = {c.name: c for c in lin.columns} if lin is not None and lin.columns else {}
            for name in list(analyzed) or list(declared):
                c, d = analyzed.get(name), declared.get(name)
                key = self.key(uid, name)
                node.columns.append(key)
                self.columns[key] = Column(
                    id=ColumnId(key, uid, rel.display_name, typed(name)),
                    kind=c.kind.value if c else None,
                    expr=c.expr if c else None,
                    resolved=c.resolved if c else None,
                    reason=c.reason if c else None,
                    data_type=d.data_type if d else None,
                    description=d.description if d else "",
                    pii=is_pii(d.tags, d.meta) if d else False,
                )
        for uid, con in sorted(data.consumers.items()):
            lin = data.semantic.get(uid)
            node = Node(con.kind, con.name, uid, lin.status.value if lin else "", (lin.reason or "") if lin else "", con.detail,
                        con.description or con.label or "")  # fmt: skip
            self.nodes[uid] = node
            for c in lin.columns if lin is not None else ():
                key = self.key(uid, c.name)
                node.columns.append(key)
                self.columns[key] = Column(ColumnId(key, uid, f"{con.kind}:{con.name}", c.name), c.kind.value, c.expr, c.resolved, c.reason,
                                           None, "", False)  # fmt: skip
        for uid, lin in sorted(data.lineages.items()):
            for c in lin.columns:
                down = self.key(uid, c.name)
                for src in c.sources:
                    self._edge(Edge(self._read_column(src.unique_id, src.column), down, c.kind.value, c.expr, c.resolved))
            for cond in lin.conditions:
                self.conditions[self._read_column(cond.column.unique_id, cond.column.column)].append((uid, cond.clause.value))
        for uid, lin in sorted(data.semantic.items()):  # a semantic model's columns read its model's
            for c in lin.columns:
                for src in c.sources:
                    self._use(self.key(src.unique_id, src.column), self.key(uid, c.name), c.kind.value, c.expr)
        for up, down, kind, expr in data.consumer_edges:
            source = f"{self.project}/{up}" if up in data.consumers else self._column_of(up)
            if down in data.consumers and source is not None:
                self._use(source, f"{self.project}/{down}", kind, expr or None)
        for uid in sorted(data.tests):
            test = data.tests[uid]
            for column_uid, name in test.columns:
                key = self.key(column_uid, name)
                if key in self.columns:
                    self.tests[key].append(test)
        readers = [(uid, rel.depends_on) for uid, rel in data.relations.items()] + [(uid, con.depends_on) for uid, con in data.consumers.items()]
        for uid, reads in readers:
            for dep in set(reads):
                if dep != uid and dep in self.nodes:
                    self.parents[uid].add(dep)
                    self.children[dep].add(uid)

    def _read_column(self, uid: str, name: str) -> str:
        """The key of a column the analysis found read; a source's or seed's column that only
        this SQL names (the source declares no such column: a CSV file, say) becomes one of
        its columns, with that said as its reason, as the stored build keeps it."""
        key = self.key(uid, name)
        node = self.nodes.get(uid)
        if key not in self.columns and node is not None and node.kind in ("source", "seed"):
            node.columns.append(key)
            self.columns[key] = Column(ColumnId(key, uid, node.name, typed(name)), None, None, None, UNDECLARED, None, "", False)
        return key

    def _column_of(self, text: str) -> str | None:
        """The key of ``<unique_id>.<column>`` when it names a column of this project."""
        uid, _, name = text.rpartition(".")
        key = self.key(uid, name) if uid else ""
        return key if key in self.columns else None

    def _use(self, up: str, down: str, kind: str, expr: str | None) -> None:
        self.consumer_reads[up].append((down, kind, expr))
        self.consumer_inputs[down].append((up, kind, expr))

    def _edge(self, edge: Edge) -> None:
        if edge.up not in self.columns:  # a column of a node the project does not describe
            return
        self.ups[edge.down].append(edge)
        self.downs[edge.up].append(edge)

    # ------------------------------------------------------------------ names
    def resolve(self, text: str) -> ColumnId:
        """A column named as `catalog impact` takes it, with the same errors and suggestions."""
        where = f"in project {self.project!r}" + (f" (build {self.build_id})" if self.build_id is not None else "")
        key = resolve_column(
            text, self.dialect, self._name_index, key=lambda k: k,
            label=lambda k: f"{self.columns[k].id.unique_id}.{quote_column(self.columns[k].id.name)}", where=where,
        )  # fmt: skip
        return self.columns[key].id

    def _name_index(self) -> dict[tuple[str, str], list[str]]:
        if self._by_name is None:
            index: dict[tuple[str, str], list[str]] = defaultdict(list)
            for key, c in self.columns.items():
                if self.nodes[c.id.unique_id].kind in CONSUMER_KINDS or c.id.unique_id.startswith("semantic_model."):
                    continue
                for model in {c.id.model.lower(), c.id.unique_id.lower()}:
                    index[(model, c.id.name)].append(key)
            self._by_name = dict(index)
        return self._by_name

    def resolve_node(self, text: str) -> Node:
        """A model, source, seed, snapshot or consumer by name (``orders``, ``shop.orders``,
        ``metric:revenue``) or unique id."""
        return self.nodes[find_node([(n.kind, n.name, n.unique_id) for n in self.nodes.values()], text, self.project)]

    # ------------------------------------------------------------------ search
    def search_index(self) -> SearchIndex:
        if self._search is None:
            relations = [(c.id.key, c.id.unique_id, c.id.model, c.id.name) for c in self.columns.values()
                         if self.nodes[c.id.unique_id].kind not in CONSUMER_KINDS and not c.id.unique_id.startswith("semantic_model.")]  # fmt: skip
            self._search = SearchIndex(self.project, self.build_id, [(n.kind, n.name, n.unique_id) for n in self.nodes.values()], relations)
        return self._search

    def search(self, query: str, kinds: list[str] | None) -> list[dict[str, Any]]:
        return self.search_index().search(query, kinds)

    def ranked(self, query: str, kinds: list[str] | None) -> list[tuple[int, int, str, str, str]]:
        return self.search_index().ranked(query, kinds)

    def hit(self, found: tuple[int, int, str, str, str]) -> dict[str, Any]:
        return self.search_index().hit(found)

    def _search_index(self) -> list[tuple[str, str, str]]:
        return self.search_index().labels

    # ------------------------------------------------------------------ lineage
    def lineage(self, start: ColumnId, direction: str, depth: int | None) -> list[tuple[Column, int, str, list[Edge]]]:
        """Every column up- and/or downstream of ``start`` within ``depth`` hops: (column, its
        shortest distance, ``upstream`` or ``downstream``, the edges that reach it from the
        side of ``start``), nearest first."""
        out: list[tuple[Column, int, str, list[Edge]]] = []
        for side, edges, far in (("upstream", self.ups, "up"), ("downstream", self.downs, "down")):
            if direction not in (side, "both"):
                continue
            dist = depths(start.key, lambda k, edges=edges, far=far: (getattr(e, far) for e in edges.get(k, ())), depth)
            for key, d in dist.items():
                near = [e for e in (self.downs if side == "upstream" else self.ups).get(key, ())
                        if (e.down if side == "upstream" else e.up) in dist or (e.down if side == "upstream" else e.up) == start.key]  # fmt: skip
                out.append((self.columns[key], d, side, near))
        out.sort(key=lambda t: (t[2] != "upstream", t[1], t[0].id.model, t[0].id.name))
        return out

    def impact(self, names: list[str], max_depth: int | None = None, with_conditions: bool = False) -> Answer:
        """:meth:`catalog.query.BuildView.impact` over this view."""
        asked = [self.resolve(n) for n in names]
        reach = descendants([a.key for a in asked], lambda k: (e.down for e in self.downs.get(k, ())), max_depth)
        keys = sorted(reach | {a.key for a in asked})
        subgraph = [
            [k, self.columns[k].id.unique_id, self.columns[k].id.model, self.columns[k].id.name,
             [[e.down, e.type, e.expr, e.resolved] for e in self.downs.get(k, ())], k in self.consumer_reads, None]
            for k in keys
        ]  # fmt: skip
        reached = downstream_of(asked, subgraph, max_depth)
        conditions = self._condition_uses([a.key for a in asked] + [r.column.key for r in reached]) if with_conditions else []
        return Answer(self.project, self.build_id or 0, tuple(asked), tuple(reached), tuple(conditions), tuple(self._consumers(asked, reached, max_depth)))

    def _condition_uses(self, keys: list[str]) -> list[ConditionUse]:
        out = []
        for k in dict.fromkeys(keys):
            for uid, clause in self.conditions.get(k, ()):
                out.append(ConditionUse(k, f"{self.project}/{uid}", uid, self.nodes[uid].name, clause))
        return sorted(out, key=lambda c: (c.model, c.clause, c.column))

    def _consumers(self, asked: list[ColumnId], reached: list[Reached], max_depth: int | None) -> list[ConsumerHit]:
        """The consumers reached from the asked and reached columns, at their shortest depth,
        at most ``max_depth`` edges away."""
        starts = {a.key: (0, (), a.key) for a in asked} | {r.column.key: (r.depth, r.hops, r.via) for r in reached}
        hits: list[ConsumerHit] = []
        for start in sorted(k for k in starts if k in self.consumer_reads):
            before, hops, via = starts[start]
            for depth, layer in shortest_paths(start, self._reads, FEED_RANKS, max_depth=None if max_depth is None else max_depth - before):
                hits.extend(self._consumer_hit(target, before + depth, via, hops + path) for target, path in layer.items())
        best = closest(hits, lambda h: h.key)
        return sorted((h for h in best.values() if max_depth is None or h.depth <= max_depth), key=lambda h: (h.kind, h.name))

    def _reads(self, key: str) -> list[tuple[str, str, Hop]]:
        """The consumers' reads of ``key`` (a column or a consumer), each (reader, type, its hop)."""
        return [(target, kind, Hop(key, target, kind, expr, True)) for target, kind, expr in self.consumer_reads.get(key, ())]

    def _consumer_hit(self, target: str, depth: int, via: str, hops: tuple[Hop, ...]) -> ConsumerHit:
        column = self.columns.get(target)
        if column is not None:  # a semantic model's column
            uid, name, what = column.id.unique_id, f"{self.nodes[column.id.unique_id].name}.{column.id.name}", "semantic_model"
        else:
            uid = target.split("/", 1)[1] if target.startswith(f"{self.project}/") else target
            name, what = self.nodes[uid].name, self.nodes[uid].kind
        # an exposure's detail ends with its precision (``dashboard, column-level``), as the stored hit gives it
        level = self.nodes[uid].materialized.rpartition(" ")[2] if what == "exposure" else ""
        return ConsumerHit(target, uid, name, what, depth, via, tuple(hops),
                           precision=level.removesuffix("-level") if level.endswith("-level") else None)  # fmt: skip

    def resolve_consumer(self, text: str) -> ColumnId | None:
        kind, sep, name = text.strip().partition(":")
        if not sep or kind.lower() not in CONSUMER_KINDS:
            return None
        node = next((n for n in self.nodes.values() if n.kind == kind.lower() and n.name.lower() == name.lower()), None)
        if node is None:
            raise NotFound(f"no {kind.lower()} {name!r} in project {self.project!r}")
        return ColumnId(f"{self.project}/{node.unique_id}", node.unique_id, node.kind, node.name)

    def trace(self, names: list[str], max_depth: int | None = None) -> Answer:
        """:meth:`catalog.query.BuildView.trace` over this view."""
        asked: list[ColumnId] = []
        found: list[Reached] = []
        for n in names:
            consumer = self.resolve_consumer(n)
            start = consumer or self.resolve(n)
            asked.append(start)
            for depth, layer in shortest_paths(start.key, self._feeders, FEED_RANKS, upstream=True, max_depth=max_depth,
                                               keep=lambda k, start=start.key: k != start):  # fmt: skip
                for key, hops in layer.items():
                    if key in self.columns:
                        kind = self.nodes[self.columns[key].id.unique_id].kind
                        found.append(Reached(self.columns[key].id, depth, hops, start.key, None if kind == "semantic_model" else kind))
        columns = sorted(closest(found, lambda r: r.column.key).values(), key=lambda r: (r.column.model, r.column.name))
        return Answer(self.project, self.build_id or 0, tuple(asked), tuple(columns))

    def _feeders(self, key: str) -> list[tuple[str, str, Hop]]:
        """What feeds ``key`` (a column or a consumer): its FEEDS and a consumer's reads, each
        (upstream end, type, its hop)."""
        feeds = [(e.up, e.type, Hop(e.up, key, e.type, e.expr, e.resolved)) for e in self.ups.get(key, ())]
        return feeds + [(up, kind, Hop(up, key, kind, expr, True)) for up, kind, expr in self.consumer_inputs.get(key, ())]


def find_node(nodes: list[tuple[str, str, str]], text: str, project: str) -> str:
    """The unique id of the node ``text`` names among ``nodes`` (kind, name, unique id): by name
    (``orders``, ``shop.orders``, ``metric:revenue``) or unique id; a model before a semantic
    model named after it; NotFound naming the candidates, or the closest names."""
    wanted = text.strip()
    kind, sep, rest = wanted.partition(":")
    if sep and kind.lower() in NODE_KINDS:
        hits = [n for n in nodes if n[0] == kind.lower() and n[1].lower() == rest.lower()]
    else:
        hits = [n for n in nodes if wanted.lower() in (n[2].lower(), n[1].lower())]
    relations = [n for n in hits if n[0] not in CONSUMER_KINDS and n[0] != "semantic_model"]
    if len(hits) > 1 and len(relations) == 1:  # orders: the model, not the semantic model named after it
        return relations[0][2]
    if len(hits) == 1:
        return hits[0][2]
    if hits:
        raise NotFound(f"{text!r} is ambiguous; name one of: {', '.join(sorted(n[2] for n in hits))}")
    import difflib

    close = difflib.get_close_matches(wanted.lower(), sorted({n[1].lower() for n in nodes}), n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise NotFound(f"no model, source or consumer {text!r} in project {project!r}{hint}")


def _rank(label: str, q: str, in_order: bool = False) -> int:
    """0 exact, 1 ends with the query after a dot, 2 prefix (of the label or of a part after
    ``.`` or ``_``), 3 substring, 4 the query's letters in order with gaps, -1 no match.
    ``in_order``: the label is known to have the query's letters in order."""
    if label == q:
        return 0
    at = label.find(q)
    if at >= 0:
        if at + len(q) == len(label) and at > 0 and label[at - 1] == ".":
            return 1
        return 2 if at == 0 or label[at - 1] in "._" else 3
    if in_order:
        return 4
    j = 0
    for ch in label:
        if j < len(q) and ch == q[j]:
            j += 1
    return 4 if j == len(q) else -1
