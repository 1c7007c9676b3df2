"""Pruning: the smallest set of models to rebuild after some columns changed.

A change spreads three ways: a column changes the columns it FEEDS; a column used in a
model's WHERE, JOIN, GROUP BY, ... (condition lineage) changes that model's rows, so every
column of that model changes; and so on downstream, to any depth. The models holding a
changed or reached column, plus the conditioned ones, are the models to rebuild.

Two ways in:

- :func:`prune_graph`: the changed columns are named by the user; the closure is computed
  in Neo4j (``read/find_prune_models``) on a stored build.
- :func:`prune_state`: the changed columns are found by comparing an old dbt target
  (manifest.json and catalog.json, as with dbt's ``--state``) with the current one, column
  by column, and the closure is computed in memory from the current project's lineage
  (:class:`LineageGraph`, the same rules as the Cypher), so it runs in CI without a graph.

A column counts as changed when it is added, when the definition of its value changed
(its expression through every CTE and subquery, its upstream columns, its lineage type or
its data type in catalog.json), and every column of a model counts as changed when what
decides the model's rows changed (FROM, JOIN, WHERE, GROUP BY, HAVING, QUALIFY, DISTINCT,
LIMIT, set operations, in any CTE or subquery the model reads). A model whose SQL changed
but whose output columns are all identical (reformatting, comments, renamed aliases or
CTEs) changes nothing downstream.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from catalog.analyze.project import analyze_project
from catalog.analyze.records import ModelLineage, ModelStatus, column_key
from catalog.errors import NotFound
from catalog.extract import DbtNode, DbtProject
from catalog.idents import typed
from catalog.memory import paused_gc
from catalog.query import Catalog, column_splits, suggest
from catalog.store.keys import quote_column, short_label, unscoped_key

# changed / new: the model itself changed; value: reached through FEEDS alone; condition: only
# through a condition; dependency (--state): below a changed model whose columns are unknown
Lineage = Literal["changed", "new", "value", "condition", "dependency"]
BUILDABLE = frozenset({"model", "snapshot", "seed"})


# ---------------------------------------------------------------------------- records
class PruneHop(BaseModel, frozen=True):
    """One step of a change: ``feeds`` column -> column, ``conditions`` column -> model,
    ``has`` model -> column (a model whose rows change changes all its columns)."""

    kind: Literal["feeds", "conditions", "has"]
    from_key: str  # column id (<unique_id>.<column>) or model unique id
    to_key: str
    type: str | None = None  # feeds: passthrough, renamed, derived, ...
    expr: str | None = None  # feeds: the expression of the downstream column
    clause: str | None = None  # conditions: where, join, group_by, ...


class ColumnChange(BaseModel, frozen=True):
    """What ``--state`` found changed in a model (``column`` is ``*`` for its rows)."""

    column: str
    change: Literal["added", "removed", "modified", "rows", "new"]
    detail: str = ""
    # modified: what changed, among expression, lineage (upstream columns, lineage type,
    # resolution) and data_type
    aspects: tuple[str, ...] = ()


class PrunedModel(BaseModel, frozen=True):
    unique_id: str
    name: str
    resource_type: str
    materialized: str | None = None
    lineage: Lineage
    via: str | None = None  # the changed column the reason starts at
    reached: str | None = None  # the column (or, for a conditioned model, the model) it reaches
    depth: int = 0
    path: tuple[PruneHop, ...] = ()
    columns: tuple[str, ...] = ()  # the columns of this model that change
    changes: tuple[ColumnChange, ...] = ()  # --state: what changed in the model itself

    @property
    def selectable(self) -> bool:
        """Something ``dbt build`` builds: models (not ephemeral), snapshots and seeds."""
        return self.resource_type in BUILDABLE and self.materialized != "ephemeral"


class PrunePlan(BaseModel):
    project: str
    origin: Literal["graph", "artifacts"]
    build_id: int | None = None
    changed_columns: tuple[str, ...] = ()  # column ids the closure started from
    models: tuple[PrunedModel, ...] = ()
    removed_models: tuple[str, ...] = ()  # --state: in the old target, gone now
    unaffected_models: tuple[str, ...] = ()  # --state: SQL changed, output columns identical

    def selected(self) -> list[PrunedModel]:
        return [m for m in self.models if m.selectable]

    def selector(self) -> str:
        """The models to rebuild, as a dbt selector for ``dbt build -s``."""
        return " ".join(sorted({m.name for m in self.selected()}))

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "origin": self.origin,
            "build_id": self.build_id,
            "changed_columns": list(self.changed_columns),
            "selector": self.selector(),
            "models": [
                {
                    "unique_id": m.unique_id,
                    "name": m.name,
                    "resource_type": m.resource_type,
                    "materialized": m.materialized,
                    "selected": m.selectable,
                    "lineage": m.lineage,
                    "via": m.via,
                    "reached": m.reached,
                    "depth": m.depth,
                    "path": [_hop_dict(h) for h in m.path],
                    "columns": list(m.columns),
                    "changes": [c.model_dump() for c in m.changes],
                }
                for m in self.models
            ],
            "removed_models": list(self.removed_models),
            "unaffected_models": list(self.unaffected_models),
        }


def _hop_dict(h: PruneHop) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": h.kind, "from": h.from_key, "to": h.to_key}
    if h.kind == "feeds":
        d |= {"type": h.type, "expr": h.expr}
    elif h.kind == "conditions":
        d["clause"] = h.clause
    return d


def path_text(m: PrunedModel) -> str:
    """``stg_orders.status -[passthrough]-> orders.status -[where]-> customers``."""
    if not m.path:
        return ""
    parts = [short_label(m.path[0].from_key)]
    for h in m.path:
        if h.kind == "feeds":
            parts.append(f"-[{h.type}]-> {short_label(h.to_key)}")
        elif h.kind == "conditions":
            parts.append(f"-[{h.clause}]-> {short_label(h.to_key)} (rows)")
        else:
            parts.append(f"=> {short_label(h.to_key)}")
    return " ".join(parts)


# ---------------------------------------------------------------------------- from the graph
def prune_graph(catalog: Catalog, names: list[str]) -> PrunePlan:
    """The models to rebuild when the named columns change, from a stored build."""
    asked = [catalog.resolve(n) for n in names]
    keys = sorted({c.key for c in asked})
    rows = catalog.graph.read("read/find_prune_models", project=catalog.project, column_keys=keys, build_id=catalog.build_id)

    def strip(key: str | None) -> str | None:
        return unscoped_key(key, catalog.project) if key else key

    models = [
        PrunedModel(
            unique_id=r["unique_id"],
            name=r["model"] or r["unique_id"],
            resource_type=r["resource_type"] or "model",
            materialized=r["materialized"],
            lineage=r["lineage"],
            via=strip(r["via"]),
            reached=strip(r["reached"]),
            depth=r["depth"],
            path=tuple(
                PruneHop(kind=h["kind"], from_key=strip(h["from"]), to_key=strip(h["to"]), type=h["type"], expr=h["expr"], clause=h["clause"])
                for h in r["path"]
            ),
            columns=tuple(r["columns"]),
        )
        for r in rows
    ]
    return PrunePlan(
        project=catalog.project,
        origin="graph",
        build_id=catalog.build_id,
        changed_columns=tuple(strip(k) for k in keys),
        models=tuple(sorted(models, key=lambda m: m.unique_id)),
    )



# ---------------------------------------------------------------------------- in memory
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
        for up, down, kind, expr in consumers:
            if down not in self.column_model:
                self.column_model[down] = down
                self.column_name[down] = down.rsplit(".", 1)[-1]
            self.feeds[up].append((down, kind, expr))
        for uid, lin in lineages.items():
            for c in lin.columns:
                down = column_key(uid, c.name)
                kind = c.kind.value
                for s in c.sources:
                    self.feeds[self._add_column(s.unique_id, s.column)].append((down, kind, c.expr))
            for cond in lin.conditions:
                self.conditions[self._add_column(cond.column.unique_id, cond.column.column)].append((uid, cond.clause.value))
        for table in (self.feeds, self.conditions, self.model_columns):
            for k in table:
                table[k] = sorted(set(table[k]))  # type: ignore[index]

    def _add_column(self, uid: str, name: str) -> str:
        key = column_key(uid, name)
        if key not in self.column_model:
            self.column_model[key] = uid
            self.column_name[key] = typed(name)
        return key

    # ------------------------------------------------------------------ names
    def resolve(self, text: str) -> str:
        """A user's column name (as for ``catalog impact``) -> column id."""
        splits = column_splits(text, self.project.dialect)
        if not splits:
            raise NotFound(f"{text!r}: name a column as MODEL.COLUMN (for example orders.amount)")
        forms: dict[tuple[str, str], set[str]] = defaultdict(set)
        for key, uid in self.column_model.items():
            node = self.project.nodes.get(uid)
            for model in {(node.display_name if node else uid).lower(), uid.lower()}:
                forms[(model, self.column_name[key])].add(key)
        hits = next((forms[s] for s in splits if s in forms), set())
        if len(hits) == 1:
            return next(iter(hits))
        if hits:
            names = ", ".join(sorted(f"{self.column_model[k]}.{quote_column(self.column_name[k])}" for k in hits))
            raise NotFound(f"{text!r} is ambiguous; name one of: {names}")
        labels = {f"{model}.{quote_column(name)}": (model, name) for model, name in forms}
        raise NotFound(f"no column {text!r} in project {self.project.name!r}{suggest(text, labels, self.project.dialect)}")

    # ------------------------------------------------------------------ closure
    def prune(self, start_keys: Iterable[str]) -> list[PrunedModel]:
        """Same answer as ``read/find_prune_models`` (the path may differ among equally short ones)."""
        best: dict[str, tuple[tuple[int, int, str, str], dict, tuple[str, str]]] = {}
        columns: dict[str, set[str]] = defaultdict(set)
        for start in sorted(set(start_keys)):
            for mixed in (False, True):
                parent = self._bfs(start, mixed)
                for node, (depth, _, _) in parent.items():
                    if node[0] == "c":
                        uid = self.column_model[node[1]]
                        columns[uid].add(self.column_name[node[1]])
                    else:
                        uid = node[1]
                    if mixed and depth == 0:
                        continue
                    rank = (2 if mixed else (0 if depth == 0 else 1), depth, start, node[1])
                    if uid not in best or rank < best[uid][0]:
                        best[uid] = (rank, parent, node)
        out = []
        for uid, (rank, parent, node) in sorted(best.items()):
            path = self._path(parent, node)
            lineage = ("changed", "value", "condition")[rank[0]]
            model = self._model(uid, lineage, rank[2], rank[3], path)
            out.append(model.model_copy(update={"columns": tuple(sorted(columns[uid]))}))
        return out

    def _bfs(
        self, start: str, mixed: bool, keep: Callable[[str], bool] | None = None
    ) -> dict[tuple[str, str], tuple[int, tuple[str, str] | None, tuple | None]]:
        """Breadth-first from a column: node -> (depth, previous node, edge taken); columns
        and models ``keep`` refuses are neither reached nor passed through."""
        parent: dict[tuple[str, str], tuple[int, tuple[str, str] | None, tuple | None]] = {("c", start): (0, None, None)}
        queue = deque([("c", start)])
        while queue:
            node = queue.popleft()
            depth = parent[node][0] + 1
            kind, key = node
            if kind == "c":
                for down, typ, expr in self.feeds.get(key, ()):
                    if ("c", down) not in parent and (keep is None or keep(down)):
                        parent[("c", down)] = (depth, node, ("feeds", typ, expr))
                        queue.append(("c", down))
                if mixed:
                    for uid, clause in self.conditions.get(key, ()):
                        if ("m", uid) not in parent and (keep is None or keep(uid)):
                            parent[("m", uid)] = (depth, node, ("conditions", clause))
                            queue.append(("m", uid))
            elif mixed:
                for col in self.model_columns.get(key, ()):
                    if ("c", col) not in parent and (keep is None or keep(col)):
                        parent[("c", col)] = (depth, node, ("has",))
                        queue.append(("c", col))
        return parent

    @staticmethod
    def _path(parent: dict, node: tuple[str, str]) -> list[PruneHop]:
        hops: list[PruneHop] = []
        while True:
            _, prev, edge = parent[node]
            if prev is None:
                break
            if edge[0] == "feeds":
                hops.append(PruneHop(kind="feeds", from_key=prev[1], to_key=node[1], type=edge[1], expr=edge[2]))
            elif edge[0] == "conditions":
                hops.append(PruneHop(kind="conditions", from_key=prev[1], to_key=node[1], clause=edge[1]))
            else:
                hops.append(PruneHop(kind="has", from_key=prev[1], to_key=node[1]))
            node = prev
        hops.reverse()
        return hops

    def walk(self, start: str, with_conditions: bool, keep: Callable[[str], bool] | None = None) -> dict[str, list[PruneHop]]:
        """Every column (or consumer) downstream of ``start`` with one shortest path: through
        FEEDS only, or also through conditions (a reached model's rows, so all its columns);
        ``keep``: the columns and models the walk may go through."""
        parent = self._bfs(start, with_conditions, keep)
        return {node[1]: self._path(parent, node) for node in parent if node[0] == "c" and node[1] != start}

    def _model(self, uid: str, lineage: str, via: str, reached: str, path: list[PruneHop]) -> PrunedModel:
        node = self.project.nodes.get(uid)
        return PrunedModel(
            unique_id=uid,
            name=node.display_name if node else short_label(uid) if uid.count(".") >= 2 else uid,
            resource_type=node.resource_type if node else uid.split(".", 1)[0],
            materialized=node.materialized if node else None,
            lineage=lineage,  # type: ignore[arg-type]
            via=via,
            reached=reached,
            depth=len(path),
            path=tuple(path),
        )

    def descendants(self, uids: Iterable[str]) -> set[str]:
        """Model-level children, any depth (for models whose columns are unknown)."""
        children: dict[str, set[str]] = defaultdict(set)
        for node in self.project.nodes.values():
            for dep in node.depends_on:
                children[dep].add(node.unique_id)
        seen: set[str] = set()
        queue = deque(uids)
        while queue:
            for child in sorted(children.get(queue.popleft(), ())):
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
        return seen


def prune_artifacts(project: DbtProject, lineages: dict[str, ModelLineage], names: list[str]) -> PrunePlan:
    """``--changed`` on a project's artifacts, without Neo4j."""
    graph = LineageGraph(project, lineages)
    keys = sorted({graph.resolve(n) for n in names})
    return PrunePlan(project=project.name, origin="artifacts", changed_columns=tuple(keys), models=tuple(graph.prune(keys)))


# ---------------------------------------------------------------------------- --state
class StateDiff(BaseModel):
    """Per model of the current project, what changed since the old target."""

    changes: dict[str, tuple[ColumnChange, ...]]  # unique id -> changes (models, snapshots, seeds, sources)
    start_keys: tuple[str, ...]  # column ids of the current project that changed
    new_models: tuple[str, ...]
    removed_models: tuple[str, ...]
    opaque_models: tuple[str, ...]  # changed, but with no known columns to follow
    unaffected_models: tuple[str, ...]  # SQL changed, output columns identical


def diff_state(
    old: DbtProject, old_lineages: dict[str, ModelLineage], new: DbtProject, new_lineages: dict[str, ModelLineage]
) -> StateDiff:
    changes: dict[str, list[ColumnChange]] = {}
    start: set[str] = set()
    new_models: list[str] = []
    opaque: list[str] = []
    unaffected: list[str] = []
    old_seeds, new_seeds = _seed_checksums(old), _seed_checksums(new)
    for uid in sorted(new.nodes):
        node = new.nodes[uid]
        before = old.nodes.get(uid)
        if node.resource_type in ("model", "snapshot"):
            lin = new_lineages.get(uid)
            names = [c.name for c in lin.columns] if lin else []
            if before is None or before.resource_type not in ("model", "snapshot"):
                new_models.append(uid)
                changes[uid] = [ColumnChange(column="*", change="new", detail=f"new {node.resource_type}")]
                start.update(column_key(uid, n) for n in names)
                if not names:
                    opaque.append(uid)
                continue
            found, rows = _model_changes(before, old_lineages.get(uid), node, lin, new.dialect)
            if rows:
                start.update(column_key(uid, n) for n in names)
            else:
                start.update(column_key(uid, c.column) for c in found if c.change in ("added", "modified"))
            if found:
                changes[uid] = found
                if not names and (rows or any(c.change != "removed" for c in found)):
                    opaque.append(uid)
            elif _sql_text(before.sql) != _sql_text(node.sql):
                unaffected.append(uid)
        elif node.resource_type in ("seed", "source") and before is not None:
            found = _relation_changes(before, node, new.dialect)
            if uid in new_seeds and uid in old_seeds and new_seeds[uid] != old_seeds[uid]:
                found.append(ColumnChange(column="*", change="rows", detail="seed file changed"))
                start.update(column_key(uid, c.key_name(new.dialect)) for c in node.columns)
            if found:
                changes[uid] = found
                start.update(column_key(uid, c.column) for c in found if c.change in ("added", "modified"))
    removed = sorted(
        uid
        for uid, n in old.nodes.items()
        if n.resource_type in ("model", "snapshot", "seed") and uid not in new.nodes
    )
    return StateDiff(
        changes={k: tuple(v) for k, v in changes.items()},
        start_keys=tuple(sorted(start)),
        new_models=tuple(new_models),
        removed_models=tuple(removed),
        opaque_models=tuple(sorted(opaque)),
        unaffected_models=tuple(sorted(unaffected)),
    )


def analyze_states(
    old: DbtProject, new: DbtProject, jobs: int | None = None
) -> tuple[dict[str, ModelLineage], dict[str, ModelLineage]]:
    """The lineages of both versions of a project, for :func:`prune_state`; models whose SQL
    changed also get the definitions of their columns and rows, from the analysis's own parse."""
    changed = sql_changed_models(old, new)
    return analyze_project(old, jobs=jobs, fingerprints=changed), analyze_project(new, jobs=jobs, fingerprints=changed)


def sql_changed_models(old: DbtProject, new: DbtProject) -> set[str]:
    """Models and snapshots in both projects whose SQL text differs (whitespace aside)."""
    return {
        uid
        for uid, node in new.nodes.items()
        if node.resource_type in ("model", "snapshot")
        and (before := old.nodes.get(uid)) is not None
        and before.resource_type in ("model", "snapshot")
        and _sql_text(before.sql) != _sql_text(node.sql)
    }


def prune_state(
    old: DbtProject,
    old_lineages: dict[str, ModelLineage],
    new: DbtProject,
    new_lineages: dict[str, ModelLineage],
    also_changed: list[str] | None = None,
    diff: StateDiff | None = None,
) -> PrunePlan:
    """``--state``: compare two targets of one project and prune from what changed (``diff``:
    their :func:`diff_state`, when the caller has made it already)."""
    diff = diff or diff_state(old, old_lineages, new, new_lineages)
    graph = LineageGraph(new, new_lineages)
    extra = [graph.resolve(n) for n in also_changed or []]
    keys = sorted(set(diff.start_keys) | set(extra))
    models = {m.unique_id: m for m in graph.prune(keys)}
    # models changed in themselves: their own changes are the reason, even if no column of
    # theirs is followed (removed columns, or no known columns)
    for uid, found in diff.changes.items():
        node = new.nodes[uid]
        if node.resource_type == "source" and uid not in models:
            continue
        kept = models.get(uid)
        lineage = "new" if uid in diff.new_models else "changed"
        models[uid] = PrunedModel(
            unique_id=uid,
            name=node.display_name,
            resource_type=node.resource_type,
            materialized=node.materialized,
            lineage=lineage,
            columns=kept.columns if kept else (),
            changes=found,
        )
    for uid in sorted(graph.descendants(diff.opaque_models)):
        if uid not in models and uid in new.nodes and new.nodes[uid].resource_type in ("model", "snapshot"):
            node = new.nodes[uid]
            models[uid] = PrunedModel(
                unique_id=uid,
                name=node.display_name,
                resource_type=node.resource_type,
                materialized=node.materialized,
                lineage="dependency",
                changes=(ColumnChange(column="*", change="rows", detail="downstream of a changed model whose columns are unknown"),),
            )
    return PrunePlan(
        project=new.name,
        origin="artifacts",
        changed_columns=tuple(keys),
        models=tuple(models[k] for k in sorted(models)),
        removed_models=diff.removed_models,
        unaffected_models=diff.unaffected_models,
    )


def _seed_checksums(project: DbtProject) -> dict[str, str]:
    """The manifest's checksum of each seed file (the extracted records do not keep it)."""
    if not any(n.resource_type == "seed" for n in project.nodes.values()):
        return {}
    try:
        nodes = json.loads((Path(project.target_dir) / "manifest.json").read_bytes()).get("nodes", {})
    except (OSError, ValueError):
        return {}
    return {
        uid: str((n.get("checksum") or {}).get("checksum"))
        for uid, n in nodes.items()
        if n.get("resource_type") == "seed" and (n.get("checksum") or {}).get("checksum")
    }


def _sql_text(sql: str | None) -> str:
    return " ".join((sql or "").split())


def _model_changes(
    before: DbtNode,
    old_lin: ModelLineage | None,
    node: DbtNode,
    new_lin: ModelLineage | None,
    dialect: str,
) -> tuple[list[ColumnChange], bool]:
    """The changes of one model, and whether its rows changed (then all columns change)."""
    old_cols = {c.name: c for c in old_lin.columns} if old_lin else {}
    new_cols = {c.name: c for c in new_lin.columns} if new_lin else {}
    found: list[ColumnChange] = []
    for name in sorted(set(new_cols) - set(old_cols)):
        found.append(ColumnChange(column=name, change="added"))
    for name in sorted(set(old_cols) - set(new_cols)):
        found.append(ColumnChange(column=name, change="removed"))

    sql_changed = _sql_text(before.sql) != _sql_text(node.sql)
    definitions_old = definitions_new = None
    problem = ""
    if sql_changed:  # the analysis made them from its own parse (see sql_changed_models)
        definitions_old = old_lin.definitions if old_lin else None
        definitions_new = new_lin.definitions if new_lin else None
        problem = (new_lin.definitions_problem if new_lin else None) or (old_lin.definitions_problem if old_lin else None) or ""
    failed = any(lin is not None and lin.status == ModelStatus.FAILED for lin in (old_lin, new_lin))
    if sql_changed and (problem or failed or definitions_old is None or definitions_new is None):
        why = problem or "the analysis failed"
        return found + [ColumnChange(column="*", change="rows", detail=f"SQL changed and could not be compared: {why}")], True

    old_types, new_types = before.catalog_types(dialect), node.catalog_types(dialect)
    for name in sorted(set(old_cols) & set(new_cols)):
        a, b = old_cols[name], new_cols[name]
        what = []
        aspects: dict[str, None] = {}
        # with the SQL unchanged, the expression is too (a column read from a missing one
        # has its name for expression): what changed is its lineage
        if definitions_old is not None and definitions_new is not None:
            if definitions_old.columns.get(name) != definitions_new.columns.get(name):
                what.append(f"expression {a.expr!r} -> {b.expr!r}" if a.expr != b.expr else "expression (in a CTE or subquery)")
                aspects["expression"] = None
        if sorted(s.key for s in a.sources) != sorted(s.key for s in b.sources):
            gone = sorted({s.key for s in a.sources} - {s.key for s in b.sources})
            came = sorted({s.key for s in b.sources} - {s.key for s in a.sources})
            what.append("sources" + (f" -{', -'.join(gone)}" if gone else "") + (f" +{', +'.join(came)}" if came else ""))
            aspects["lineage"] = None
        if a.kind != b.kind:
            what.append(f"type {a.kind.value} -> {b.kind.value}")
            aspects["lineage"] = None
        if a.resolved != b.resolved:
            what.append(f"resolved {a.resolved} -> {b.resolved}" + (f" ({b.reason})" if b.reason else ""))
            aspects["lineage"] = None
        if name in old_types and name in new_types and old_types[name] != new_types[name]:
            what.append(f"data type {old_types[name] or '?'} -> {new_types[name] or '?'}")
            aspects["data_type"] = None
        if what:
            found.append(ColumnChange(column=name, change="modified", detail="; ".join(what), aspects=tuple(aspects)))

    old_conds = {(c.column.key, c.clause.value) for c in old_lin.conditions} if old_lin else set()
    new_conds = {(c.column.key, c.clause.value) for c in new_lin.conditions} if new_lin else set()
    rows_why = []
    if old_conds != new_conds:
        rows_why += [f"-{clause} {key}" for key, clause in sorted(old_conds - new_conds)]
        rows_why += [f"+{clause} {key}" for key, clause in sorted(new_conds - old_conds)]
        rows_why = ["conditions " + ", ".join(rows_why)]
    elif definitions_old is not None and definitions_new is not None and definitions_old.rows != definitions_new.rows:
        rows_why = ["FROM / JOIN / WHERE / GROUP BY / HAVING / QUALIFY / DISTINCT / LIMIT changed"]
    if rows_why:
        found.append(ColumnChange(column="*", change="rows", detail=rows_why[0]))
    return found, bool(rows_why)


def _relation_changes(before: DbtNode, node: DbtNode, dialect: str) -> list[ColumnChange]:
    """Seeds and sources: columns added, removed or retyped, when both catalogs know them."""
    old_types, new_types = before.catalog_types(dialect), node.catalog_types(dialect)
    if not old_types or not new_types:
        return []
    found = [ColumnChange(column=n, change="added") for n in sorted(set(new_types) - set(old_types))]
    found += [ColumnChange(column=n, change="removed") for n in sorted(set(old_types) - set(new_types))]
    found += [
        ColumnChange(column=n, change="modified", detail=f"data type {old_types[n]} -> {new_types[n]}", aspects=("data_type",))
        for n in sorted(set(old_types) & set(new_types))
        if old_types[n] != new_types[n]
    ]
    return found
