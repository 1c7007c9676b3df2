"""A project's column lineage in memory, for the questions asked of two dbt targets without
Neo4j (``catalog prune --state``, ``catalog check``): the same graph as a stored build's
``(column)-[:FEEDS]->(column)`` and ``(column)-[:CONDITIONS]->(model)``, made from the analyzed
records, walked with :func:`catalog.walks.shortest_paths`.

- :meth:`LineageGraph.reach`: everything downstream of one column, each node (a column, or a
  model reached through a condition) at its shortest depth with its path;
- :meth:`LineageGraph.walk`: the same as one shortest path (:class:`PruneHop` list) per column;
- :meth:`LineageGraph.resolve`: a user's column name, as ``catalog impact`` takes it;
- :meth:`LineageGraph.descendants`: model-level children, for models whose columns are unknown.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Literal

from pydantic import BaseModel

from catalog.analyze.records import ModelLineage, column_key
from catalog.extract import DbtProject
from catalog.idents import typed
from catalog.lineage.names import resolve_column
from catalog.walks import HopRanks, descendants, shortest_paths
from catalog.memory import paused_gc
from catalog.store.keys import quote_column

Node = tuple[str, str]  # ("c", column id) or ("m", model unique id)
Step = tuple[str, str, str | None, str]  # (key reached, feeds type or kind, expr or clause, feeds/conditions/has)
Reach = dict[Node, tuple[int, tuple[Step, ...]]]  # node -> (depth, the steps of its path)


class PruneHop(BaseModel, frozen=True):
    """One step of a change: ``feeds`` column -> column, ``conditions`` column -> model,
    ``has`` model -> column (a model whose rows change changes all its columns)."""

    kind: Literal["feeds", "conditions", "has"]
    from_key: str  # column id (<unique_id>.<column>) or model unique id
    to_key: str
    type: str | None = None  # feeds: passthrough, renamed, derived, ...
    expr: str | None = None  # feeds: the expression of the downstream column
    clause: str | None = None  # conditions: where, join, group_by, ...


def hop_dict(h: PruneHop) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": h.kind, "from": h.from_key, "to": h.to_key}
    if h.kind == "feeds":
        d |= {"type": h.type, "expr": h.expr}
    elif h.kind == "conditions":
        d["clause"] = h.clause
    return d


class LineageGraph:
    """A project's column lineage in memory: the graph ``find_prune_models`` walks in Neo4j."""

    def __init__(
        self,
        project: DbtProject,
        lineages: dict[str, ModelLineage],
        consumers: Iterable[tuple[str, str, str, str]] = (),
    ):
        """``lineages`` may hold semantic models too (their elements are columns);
        ``consumers``: (upstream key, consumer key, type, expr) edges to metrics, exposures and
        saved queries, each a node keyed by its unique id that is its own model."""
        with paused_gc():  # hundreds of thousands of small tuples, no cycles
            self._load(project, lineages, list(consumers))

    def _load(self, project: DbtProject, lineages: dict[str, ModelLineage], consumers: list[tuple[str, str, str, str]]) -> None:
        self.project = project
        self.lineages = lineages
        self._by_form: dict[tuple[str, str], set[str]] | None = None
        self.column_model: dict[str, str] = {}  # column id -> unique id
        self.column_name: dict[str, str] = {}
        self.model_columns: dict[str, list[str]] = defaultdict(list)  # unique id -> column ids
        self.feeds: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # up -> [(down, type, expr)]
        self.conditions: dict[str, list[tuple[str, str]]] = defaultdict(list)  # column -> [(model, clause)]
        for node in project.nodes.values():
            lin = lineages.get(node.unique_id)
            names = [c.name for c in lin.columns] if lin is not None and lin.columns else [c.name for c in node.columns]
            owned = self.model_columns[node.unique_id]
            for name in names:
                owned.append(self._add_column(node.unique_id, name))
        for uid, lin in lineages.items():
            if uid not in project.nodes:  # semantic models: their entities, dimensions, measures
                owned = self.model_columns[uid]
                for c in lin.columns:
                    owned.append(self._add_column(uid, c.name))
        self.consumer_edges = consumers  # as given: (upstream key, consumer key, type, expr)
        for up, down, kind, expr in consumers:
            if down not in self.column_model:
                self.column_model[down] = down
                self.column_name[down] = down.rsplit(".", 1)[-1]
            self.feeds[up].append((down, kind, expr))
        for uid, lin in lineages.items():
            # a lineage's column ids, made above in its columns' order: one string each, not one per edge
            for down, c in zip(self.model_columns[uid], lin.columns):
                kind = c.kind.value
                for s in c.sources:
                    self.feeds[self._add_column(s.unique_id, s.column)].append((down, kind, c.expr))
            for cond in lin.conditions:
                self.conditions[self._add_column(cond.column.unique_id, cond.column.column)].append((uid, cond.clause.value))
        for table in (self.feeds, self.conditions, self.model_columns):
            for k in table:
                table[k] = sorted(set(table[k]))  # type: ignore[index]
        self.ranks = HopRanks([t for edges in self.feeds.values() for _, t, _ in edges] + ["conditions", "has"])
        self._steps: dict[bool, dict[Node, list[tuple[Node, str, Step]]]] = {}

    def _add_column(self, uid: str, name: str) -> str:
        key = column_key(uid, name)
        if key not in self.column_model:
            self.column_model[key] = uid
            name_typed = typed(name)
            self.column_name[key] = name if name_typed == name else name_typed  # the record's own string when it is the same
        return key

    # ------------------------------------------------------------------ names
    def resolve(self, text: str) -> str:
        """A user's column name (as for ``catalog impact``) -> column id."""
        return resolve_column(
            text,
            self.project.dialect,
            self._name_index,
            key=lambda k: k,
            label=lambda k: f"{self.column_model[k]}.{quote_column(self.column_name[k])}",
            where=f"in project {self.project.name!r}",
        )

    def _name_index(self) -> dict[tuple[str, str], set[str]]:
        if self._by_form is None:
            forms: dict[tuple[str, str], set[str]] = defaultdict(set)
            for key, uid in self.column_model.items():
                node = self.project.nodes.get(uid)
                for model in {(node.display_name if node else uid).lower(), uid.lower()}:
                    forms[(model, self.column_name[key])].add(key)
            self._by_form = dict(forms)
        return self._by_form

    # ------------------------------------------------------------------ walks
    def _edges(self, mixed: bool) -> Callable[[Node], list[tuple[Node, str, Step]]]:
        """Each node's edges out, (node, type, step): FEEDS, and with ``mixed`` the models a
        column conditions and a reached model's columns. Made for the nodes a walk reaches, the
        first time it does (kept for the next walk), never for the whole graph at once."""
        steps = self._steps.setdefault(mixed, {})

        def out(node: Node) -> list[tuple[Node, str, Step]]:
            found = steps.get(node)
            if found is None:
                kind, key = node
                if kind == "m":
                    found = [(("c", col), "has", (col, "has", None, "has")) for col in self.model_columns.get(key, ())] if mixed else []
                else:
                    found = [(("c", down), typ, (down, typ, expr, "feeds")) for down, typ, expr in self.feeds.get(key, ())]
                    if mixed:
                        found += [(("m", uid), "conditions", (uid, "conditions", clause, "conditions")) for uid, clause in self.conditions.get(key, ())]
                steps[node] = found
            return found

        return out

    def reach(self, start: str, mixed: bool, keep: Callable[[str], bool] | None = None) -> Reach:
        """Every node downstream of column ``start`` (itself at depth 0) at its shortest depth,
        with the steps of its reported path; through FEEDS only, or (``mixed``) also through
        conditions and a reached model's columns; columns and models ``keep`` refuses are
        neither reached nor passed through."""
        found: Reach = {("c", start): (0, ())}
        only = None if keep is None else lambda node: keep(node[1])
        for depth, layer in shortest_paths(("c", start), self._edges(mixed), self.ranks, keep=only):
            for node, path in layer.items():
                found.setdefault(node, (depth, path))
        return found

    @staticmethod
    def path_to(start: str, path: tuple[Step, ...]) -> list[PruneHop]:
        """The :class:`PruneHop` of each step of ``path`` from column ``start``."""
        hops: list[PruneHop] = []
        prev = start
        for key, kind_or_type, detail, edge in path:
            if edge == "feeds":
                hops.append(PruneHop(kind="feeds", from_key=prev, to_key=key, type=kind_or_type, expr=detail))
            elif edge == "conditions":
                hops.append(PruneHop(kind="conditions", from_key=prev, to_key=key, clause=detail))
            else:
                hops.append(PruneHop(kind="has", from_key=prev, to_key=key))
            prev = key
        return hops

    def walk(self, start: str, with_conditions: bool, keep: Callable[[str], bool] | None = None) -> dict[str, list[PruneHop]]:
        """Every column (or consumer) downstream of ``start`` with one shortest path: through
        FEEDS only, or also through conditions (a reached model's rows, so all its columns);
        ``keep``: the columns and models the walk may go through."""
        found = self.reach(start, with_conditions, keep)
        return {node[1]: self.path_to(start, path) for node, (_, path) in found.items() if node[0] == "c" and node[1] != start}

    def descendants(self, uids: Iterable[str]) -> set[str]:
        """Model-level children, any depth (for models whose columns are unknown)."""
        children: dict[str, set[str]] = defaultdict(set)
        for node in self.project.nodes.values():
            for dep in node.depends_on:
                children[dep].add(node.unique_id)
        return descendants(uids, lambda u: children.get(u, ()))
