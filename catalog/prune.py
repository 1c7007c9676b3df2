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

import difflib
import hashlib
import json
from collections import defaultdict, deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import sqlglot
from pydantic import BaseModel
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.scope import Scope, build_scope

from catalog.analyze.records import ModelLineage, ModelStatus, column_key
from catalog.analyze.relations import EPHEMERAL_PREFIX, RelationIndex
from catalog.errors import NotFound
from catalog.extract import DbtNode, DbtProject
from catalog.memory import paused_gc
from catalog.query import Catalog
from catalog.store.keys import short_label, unscoped_key

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

    def __init__(self, project: DbtProject, lineages: dict[str, ModelLineage]):
        with paused_gc():  # hundreds of thousands of small tuples, no cycles
            self._load(project, lineages)

    def _load(self, project: DbtProject, lineages: dict[str, ModelLineage]) -> None:
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
            self.column_name[key] = name.lower()
        return key

    # ------------------------------------------------------------------ names
    def resolve(self, text: str) -> str:
        """A user's column name (as for ``catalog impact``) -> column id."""
        wanted = text.strip().lower()
        if "." not in wanted:
            raise NotFound(f"{text!r}: name a column as MODEL.COLUMN (for example orders.amount)")
        forms: dict[str, set[str]] = defaultdict(set)
        for key, uid in self.column_model.items():
            node = self.project.nodes.get(uid)
            display = node.display_name if node else uid
            forms[f"{display}.{self.column_name[key]}".lower()].add(key)
            forms[key.lower()].add(key)
        hits = forms.get(wanted, set())
        if len(hits) == 1:
            return next(iter(hits))
        if hits:
            raise NotFound(f"{text!r} is ambiguous; name one of: {', '.join(sorted(hits))}")
        close = difflib.get_close_matches(wanted, list(forms), n=5, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise NotFound(f"no column {text!r} in project {self.project.name!r}{hint}")

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

    def _bfs(self, start: str, mixed: bool) -> dict[tuple[str, str], tuple[int, tuple[str, str] | None, tuple | None]]:
        """Breadth-first from a column: node -> (depth, previous node, edge taken)."""
        parent: dict[tuple[str, str], tuple[int, tuple[str, str] | None, tuple | None]] = {("c", start): (0, None, None)}
        queue = deque([("c", start)])
        while queue:
            node = queue.popleft()
            depth = parent[node][0] + 1
            kind, key = node
            if kind == "c":
                for down, typ, expr in self.feeds.get(key, ()):
                    if ("c", down) not in parent:
                        parent[("c", down)] = (depth, node, ("feeds", typ, expr))
                        queue.append(("c", down))
                if mixed:
                    for uid, clause in self.conditions.get(key, ()):
                        if ("m", uid) not in parent:
                            parent[("m", uid)] = (depth, node, ("conditions", clause))
                            queue.append(("m", uid))
            elif mixed:
                for col in self.model_columns.get(key, ()):
                    if ("c", col) not in parent:
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

    def _model(self, uid: str, lineage: str, via: str, reached: str, path: list[PruneHop]) -> PrunedModel:
        node = self.project.nodes.get(uid)
        return PrunedModel(
            unique_id=uid,
            name=node.display_name if node else uid,
            resource_type=node.resource_type if node else "model",
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
    old_fp = _Fingerprints(old)
    new_fp = _Fingerprints(new)
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
            found, rows = _model_changes(before, old_lineages.get(uid), node, lin, old_fp, new_fp)
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
            found = _relation_changes(before, node)
            if uid in new_seeds and uid in old_seeds and new_seeds[uid] != old_seeds[uid]:
                found.append(ColumnChange(column="*", change="rows", detail="seed file changed"))
                start.update(column_key(uid, c.name) for c in node.columns)
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


def prune_state(
    old: DbtProject,
    old_lineages: dict[str, ModelLineage],
    new: DbtProject,
    new_lineages: dict[str, ModelLineage],
    also_changed: list[str] | None = None,
) -> PrunePlan:
    """``--state``: compare two targets of one project and prune from what changed."""
    diff = diff_state(old, old_lineages, new, new_lineages)
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
    old_fp: "_Fingerprints",
    new_fp: "_Fingerprints",
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
    if sql_changed:
        definitions_old, problem_old = old_fp.model(before, list(old_cols))
        definitions_new, problem_new = new_fp.model(node, list(new_cols))
        problem = problem_new or problem_old
    failed = any(lin is not None and lin.status == ModelStatus.FAILED for lin in (old_lin, new_lin))
    if sql_changed and (problem or failed or definitions_old is None or definitions_new is None):
        why = problem or "the analysis failed"
        return found + [ColumnChange(column="*", change="rows", detail=f"SQL changed and could not be compared: {why}")], True

    old_types = {c.name.lower(): (c.data_type or "").lower() for c in before.columns if c.in_catalog}
    new_types = {c.name.lower(): (c.data_type or "").lower() for c in node.columns if c.in_catalog}
    for name in sorted(set(old_cols) & set(new_cols)):
        a, b = old_cols[name], new_cols[name]
        what = []
        if definitions_old is not None and definitions_new is not None:
            if definitions_old.columns.get(name) != definitions_new.columns.get(name):
                what.append(f"expression {a.expr!r} -> {b.expr!r}" if a.expr != b.expr else "expression (in a CTE or subquery)")
        elif a.expr != b.expr:
            what.append(f"expression {a.expr!r} -> {b.expr!r}")
        if sorted(s.key for s in a.sources) != sorted(s.key for s in b.sources):
            gone = sorted({s.key for s in a.sources} - {s.key for s in b.sources})
            came = sorted({s.key for s in b.sources} - {s.key for s in a.sources})
            what.append("sources" + (f" -{', -'.join(gone)}" if gone else "") + (f" +{', +'.join(came)}" if came else ""))
        if a.kind != b.kind:
            what.append(f"type {a.kind.value} -> {b.kind.value}")
        if a.resolved != b.resolved:
            what.append(f"resolved {a.resolved} -> {b.resolved}")
        if name in old_types and name in new_types and old_types[name] != new_types[name]:
            what.append(f"data type {old_types[name] or '?'} -> {new_types[name] or '?'}")
        if what:
            found.append(ColumnChange(column=name, change="modified", detail="; ".join(what)))

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


def _relation_changes(before: DbtNode, node: DbtNode) -> list[ColumnChange]:
    """Seeds and sources: columns added, removed or retyped, when both catalogs know them."""
    old_types = {c.name.lower(): (c.data_type or "").lower() for c in before.columns if c.in_catalog}
    new_types = {c.name.lower(): (c.data_type or "").lower() for c in node.columns if c.in_catalog}
    if not old_types or not new_types:
        return []
    found = [ColumnChange(column=n, change="added") for n in sorted(set(new_types) - set(old_types))]
    found += [ColumnChange(column=n, change="removed") for n in sorted(set(old_types) - set(new_types))]
    found += [
        ColumnChange(column=n, change="modified", detail=f"data type {old_types[n]} -> {new_types[n]}")
        for n in sorted(set(old_types) & set(new_types))
        if old_types[n] != new_types[n]
    ]
    return found


# ---------------------------------------------------------------------------- SQL fingerprints
class Definitions(BaseModel, frozen=True):
    """What a model's SQL says, independent of formatting, comments, aliases and CTE names."""

    rows: str  # hash of everything that decides which rows the model has
    columns: dict[str, str]  # per output column: hash of its value's definition, through CTEs


class _Fingerprints:
    """Definitions of the models of one project (their relations mapped to unique ids)."""

    def __init__(self, project: DbtProject):
        self.project = project
        self.relations = RelationIndex.for_project(project)

    def model(self, node: DbtNode, names: list[str]) -> tuple[Definitions | None, str]:
        if not node.sql:
            return None, "no SQL"
        try:
            return _ModelFingerprint(self, node).run(names), ""
        except (SqlglotError, RecursionError, ValueError) as e:
            return None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"

    def table_columns(self, uid: str) -> set[str] | None:
        node = self.project.nodes.get(uid)
        if node is None or not node.columns:
            return None
        return {c.name.lower() for c in node.columns}


def _h(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:20]


class _ModelFingerprint:
    """Walks one model's scopes once: per output column the definition of its value (its
    expression, with every column read from a CTE or subquery replaced by that column's own
    definition, down to the model's input relations), and the definition of its rows."""

    def __init__(self, owner: _Fingerprints, node: DbtNode):
        self.owner = owner
        self.node = node
        self.dialect = owner.project.dialect
        self._d: dict[tuple[int, str], str] = {}
        self._r: dict[int, str] = {}
        self._busy: set[tuple] = set()

    def run(self, names: list[str]) -> Definitions:
        statements = [s for s in sqlglot.parse(self.node.sql or "", read=self.dialect) if s is not None]
        query = next((s for s in reversed(statements) if isinstance(s, exp.Query)), None)
        if query is None:
            raise ValueError("no SELECT statement")
        query = normalize_identifiers(query, dialect=self.dialect)
        self._drop_ephemeral_ctes(query)
        root = build_scope(query)
        if root is None:
            raise ValueError("no query scope")
        return Definitions(rows=self.rows(root), columns={n: self.value(n.lower(), root) for n in names})

    def _drop_ephemeral_ctes(self, query: exp.Expression) -> None:
        with_ = query.args.get("with_")
        if not with_:
            return
        keep = [
            c for c in with_.expressions
            if not (c.alias_or_name.lower().startswith(EPHEMERAL_PREFIX) and self.owner.relations.ephemeral(c.alias_or_name))
        ]
        if len(keep) != len(with_.expressions):
            if keep:
                with_.set("expressions", keep)
            else:
                query.set("with_", None)

    # ------------------------------------------------------------------ outputs of a scope
    @staticmethod
    def _projections(scope: Scope) -> list[exp.Expression]:
        return list(scope.expression.expressions) if isinstance(scope.expression, exp.Select) else []

    def _names(self, scope: Scope) -> tuple[list[str], bool]:
        """Output names of a scope, and whether a star makes the list incomplete."""
        e = scope.expression
        if isinstance(e, exp.SetOperation):
            branches = scope.set_operation_scopes
            return self._names(branches[0]) if branches else ([], True)
        if not isinstance(e, exp.Select):
            return [], True
        names, star = [], False
        for p in e.expressions:
            if _is_star(p):
                star = True
            else:
                names.append(p.alias_or_name.lower())
        return names, star

    def _may_have(self, source: Any, name: str) -> bool:
        if isinstance(source, Scope):
            names, star = self._names(source)
            return name in names or star
        if isinstance(source, exp.Table):
            uid = self._table_uid(source)
            cols = self.owner.table_columns(uid) if uid else None
            return cols is None or name in cols
        return True

    # ------------------------------------------------------------------ value of a column
    def value(self, name: str, scope: Scope) -> str:
        key = (id(scope), name)
        if key in self._d:
            return self._d[key]
        if key in self._busy:
            return _h("recursive", name)
        self._busy.add(key)
        try:
            e = scope.expression
            if isinstance(e, exp.SetOperation):
                names, _ = self._names(scope)
                out = self._value_at(names.index(name), scope) if name in names else _h("all", self.whole(scope))
            elif isinstance(e, exp.Select):
                out = self._select_value(name, scope)
            else:
                out = _h("opaque", self.whole(scope))
        finally:
            self._busy.discard(key)
        self._d[key] = out
        return out

    def _select_value(self, name: str, scope: Scope) -> str:
        """A bare column passed through under its own name (``x``, ``t.x`` or a star) reads
        the same whichever way it is written; anything else is its canonical expression."""
        projections = self._projections(scope)
        for p in projections:
            if not _is_star(p) and p.alias_or_name.lower() == name:
                inner = _unalias(p)
                if isinstance(inner, exp.Column) and inner.name.lower() == name:
                    return _h("pass", self._column_token(inner, scope, own=name))
                return _h("col", self.canon(inner, scope, own=name), self._windows(scope))
        tokens: set[str] = set()
        modifiers = []
        for p in projections:
            if not _is_star(p):
                continue
            star = p.this if isinstance(p, exp.Column) else p
            args = {k: v for k, v in star.args.items() if v}
            replaced = {r.alias_or_name.lower(): r for r in args.pop("replace", [])}
            renamed = {r.alias_or_name.lower(): _unalias(r) for r in args.pop("rename", [])}
            excluded = {c.name.lower() for c in args.pop("except_", []) if isinstance(c, exp.Column)}
            if name in replaced:  # * REPLACE (expr AS name)
                return _h("col", self.canon(_unalias(replaced[name]), scope, own=name), self._windows(scope))
            source_name = renamed[name].name.lower() if name in renamed and isinstance(renamed[name], exp.Column) else name
            if source_name in excluded or (name not in renamed and name in {r.name.lower() for r in renamed.values() if isinstance(r, exp.Column)}):
                continue  # * EXCLUDE (name), or renamed away by * RENAME
            table = p.table if isinstance(p, exp.Column) else ""
            sources = {table: scope.sources.get(table)} if table else {a: s for a, (_, s) in scope.selected_sources.items()}
            for src in sources.values():
                if self._may_have(src, source_name):
                    tokens.add(self._source_token(src, source_name))
            if args:  # a star modifier not understood here: keep all of it
                modifiers.append(self.canon(p, scope))
        if not tokens:
            return _h("unknown", name)
        return _h("pass", "|".join(sorted(tokens)), *modifiers)

    def _source_token(self, src: Any, name: str) -> str:
        if isinstance(src, Scope):
            return "d:" + self.value(name, src)
        if isinstance(src, exp.Table):
            return f"c:{self._table_id(src)}.{name}"
        return "x:" + name

    def _value_at(self, index: int, scope: Scope) -> str:
        e = scope.expression
        if isinstance(e, exp.SetOperation):
            return _h("setop", *(self._value_at(index, b) for b in scope.set_operation_scopes))
        projections = self._projections(scope)
        if index >= len(projections) or any(_is_star(p) for p in projections[: index + 1]):
            return _h("all", self.whole(scope))
        p = projections[index]
        return _h("col", self.canon(_unalias(p), scope, own=p.alias_or_name.lower()), self._windows(scope))

    def _windows(self, scope: Scope) -> str:
        windows = scope.expression.args.get("windows") if isinstance(scope.expression, exp.Select) else None
        return "|".join(self.canon(w, scope) for w in windows) if windows else ""

    # ------------------------------------------------------------------ rows of a scope
    def rows(self, scope: Scope) -> str:
        key = id(scope)
        if key in self._r:
            return self._r[key]
        if ("rows", key) in self._busy:
            return _h("recursive rows")
        self._busy.add(("rows", key))
        try:
            out = self._rows(scope)
        finally:
            self._busy.discard(("rows", key))
        self._r[key] = out
        return out

    def _rows(self, scope: Scope) -> str:
        e = scope.expression
        limited = any(e.args.get(k) for k in ("limit", "offset", "fetch"))
        skip = {"expressions", "with_", "windows"} | (set() if limited else {"order"})
        if isinstance(e, exp.SetOperation):
            skip |= {"this", "expression"}  # the branches: their own rows below
        parts = [type(e).__name__]
        for arg, value in sorted(e.args.items()):
            if arg in skip or value is None or value is False or value == []:
                continue
            if arg == "group" and isinstance(e, exp.Select):
                parts.append("group:" + self._group_keys(value, scope))
                continue
            if arg == "distinct" and isinstance(e, exp.Select) and not value.args.get("on"):
                parts.append("distinct:" + ",".join(self.value(n, scope) for n in self._names(scope)[0]))
                parts.append(",".join(self.canon(p, scope) for p in self._projections(scope) if _is_star(p)))
                continue
            if isinstance(value, list):
                parts.append(f"{arg}:" + "|".join(self.canon(v, scope) if isinstance(v, exp.Expression) else str(v) for v in value))
            elif isinstance(value, exp.Expression):
                parts.append(f"{arg}:" + self.canon(value, scope))
            else:
                parts.append(f"{arg}:{value}")
        if isinstance(e, exp.Select):
            parts += sorted(f"source:{self.rows(src)}" for _, src in scope.selected_sources.values() if isinstance(src, Scope))
        elif isinstance(e, exp.SetOperation):
            branches = scope.set_operation_scopes
            parts += [f"branch:{self.rows(b)}" for b in branches]
            if e.args.get("distinct"):
                parts += [f"distinct:{self.whole(b)}" for b in branches]
        return _h(*parts)

    def _group_keys(self, group: exp.Group, scope: Scope) -> str:
        """GROUP BY keys; ``GROUP BY 1`` and ``GROUP BY col`` naming a bare projection read the
        same, and ``GROUP BY ALL`` groups by every projection without an aggregate."""
        projections = self._projections(scope)
        by_name = {p.alias_or_name.lower(): p for p in projections if not _is_star(p)}
        keys = []
        for g in group.expressions:
            p = None
            if isinstance(g, exp.Literal) and g.is_int and 0 < int(g.this) <= len(projections):
                p = projections[int(g.this) - 1]
            elif isinstance(g, exp.Column) and not g.table and g.name.lower() in by_name:
                cand = by_name[g.name.lower()]
                if isinstance(_unalias(cand), exp.Column) and _unalias(cand).name.lower() == g.name.lower():
                    p = cand
            if p is not None and not _is_star(p):
                keys.append(self.canon(_unalias(p), scope, own=p.alias_or_name.lower()))
            else:
                keys.append(self.canon(g, scope))
        for arg, value in sorted(group.args.items()):
            if arg == "expressions" or not value:
                continue
            if arg == "all":
                keys.append("all:" + ",".join(self.value(n, scope) for n, p in by_name.items() if not _aggregates(p)))
            else:
                keys.append(f"{arg}:" + "|".join(self.canon(v, scope) for v in (value if isinstance(value, list) else [value])))
        return ",".join(keys)

    def whole(self, scope: Scope) -> str:
        """Rows and every column of a scope."""
        names, star = self._names(scope)
        parts = [self.rows(scope)] + [self.value(n, scope) for n in names]
        if star and isinstance(scope.expression, exp.Select):
            parts += [self.canon(p, scope) for p in self._projections(scope) if _is_star(p)]
        return _h("whole", *parts)

    # ------------------------------------------------------------------ canonical text
    def canon(self, node: exp.Expression, scope: Scope, own: str | None = None) -> str:
        """The SQL of ``node`` with column references replaced by their definitions, tables by
        unique ids and nested queries by their definitions: stable across formatting, comments,
        table aliases and CTE names. ``own``: the projection's own name (not a lateral alias)."""
        children = {}
        for child in scope.subquery_scopes + scope.derived_table_scopes + scope.udtf_scopes:
            children[id(child.expression)] = child
        copy = node.copy()
        replace: list[tuple[exp.Expression, str]] = []
        for orig, dup in zip(node.walk(), copy.walk()):
            if isinstance(orig, exp.Subquery) and id(orig.this) in children:
                sub = children[id(orig.this)]
                replace.append((dup, ("r:" + self.rows(sub)) if sub.is_derived_table else ("q:" + self.whole(sub))))
            elif isinstance(orig, (exp.Select, exp.SetOperation)) and id(orig) in children and orig is not node:
                replace.append((dup, "q:" + self.whole(children[id(orig)])))
            elif isinstance(orig, exp.Column) and not isinstance(orig.this, exp.Star):
                if orig.find_ancestor(exp.Select, exp.SetOperation) is scope.expression:
                    replace.append((dup, self._column_token(orig, scope, own)))
            elif isinstance(orig, exp.Table) and orig.find_ancestor(exp.Select, exp.SetOperation) is scope.expression:
                src = scope.sources.get(orig.alias_or_name)
                if isinstance(src, Scope):
                    replace.append((dup, "r:" + self.rows(src)))
                elif not isinstance(orig.this, exp.Func):
                    replace.append((dup, "t:" + self._table_id(orig)))
        for dup, token in replace:
            if dup is copy:
                return token
            dup.replace(exp.Var(this=token))
        try:
            return copy.sql(dialect=self.dialect, comments=False)
        except SqlglotError:
            return copy.sql(comments=False)

    def _column_token(self, col: exp.Column, scope: Scope, own: str | None) -> str:
        name = col.name.lower()
        table = col.table
        if table:
            src = scope.sources.get(table)
            if isinstance(src, (Scope, exp.Table)):
                return self._source_token(src, name)
            return "x:" + ".".join(p.name.lower() for p in col.parts)
        cands = [self._source_token(src, name) for _, src in scope.selected_sources.values() if self._may_have(src, name)]
        names, _ = self._names(scope)
        if name in names and name != own and isinstance(scope.expression, exp.Select):
            cands.append("a:" + self.value(name, scope))  # a projection's alias, read in a clause
        return "|".join(sorted(set(cands))) if cands else "x:" + name

    def _table_uid(self, table: exp.Table) -> str | None:
        parts = tuple(p.lower() for p in (table.catalog, table.db, table.name) if p)
        return self.owner.relations.lookup(parts)

    def _table_id(self, table: exp.Table) -> str:
        uid = self._table_uid(table)
        if uid:
            return uid
        return ".".join(p.lower() for p in (table.catalog, table.db, table.name) if p) or table.sql(dialect=self.dialect)


def _is_star(p: exp.Expression) -> bool:
    return isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))


def _unalias(p: exp.Expression) -> exp.Expression:
    return p.this if isinstance(p, exp.Alias) else p


def _aggregates(p: exp.Expression) -> bool:
    return p.find(exp.AggFunc) is not None
