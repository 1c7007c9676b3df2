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
  by column (:mod:`catalog.compare`), and the closure is computed in memory from the current
  project's lineage (:class:`~catalog.lineage.records.LineageGraph`, the same rules as the
  Cypher), so it runs in CI without a graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel

from catalog.analyze.records import ModelLineage, column_names
from catalog.compare import ColumnChange, StateDiff, diff_state
from catalog.extract import DbtProject
from catalog.lineage.records import LineageGraph, PruneHop, hop_dict
from catalog.query import BuildView
from catalog.store.keys import short_label, unscoped_key

# changed / new: the model itself changed; value: reached through FEEDS alone; condition: only
# through a condition; dependency (--state): below a changed model whose columns are unknown
Lineage = Literal["changed", "new", "value", "condition", "dependency"]
BUILDABLE = frozenset({"model", "snapshot", "seed"})


# ---------------------------------------------------------------------------- records
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


class BIHit(BaseModel, frozen=True):
    """A BI field, chart or dashboard that reads a column the plan changes."""

    kind: str  # bi_field, chart, dashboard
    unique_id: str
    tool: str
    tool_id: str


class PrunePlan(BaseModel):
    project: str
    origin: Literal["graph", "artifacts"]
    build_id: int | None = None
    changed_columns: tuple[str, ...] = ()  # column ids the closure started from
    models: tuple[PrunedModel, ...] = ()
    removed_models: tuple[str, ...] = ()  # --state: in the old target, gone now
    unaffected_models: tuple[str, ...] = ()  # --state: SQL changed, output columns identical
    bi: tuple[BIHit, ...] = ()  # the BI fields, charts and dashboards that show data the rebuild changes

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
                    "path": [hop_dict(h) for h in m.path],
                    "columns": list(m.columns),
                    "changes": [c.model_dump(exclude=set() if c.clauses else {"clauses"}) for c in m.changes],  # clauses: of a changed condition
                }
                for m in self.models
            ],
            "removed_models": list(self.removed_models),
            "unaffected_models": list(self.unaffected_models),
            **({"bi": [h.model_dump() for h in self.bi]} if self.bi else {}),
        }


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
def prune_graph(catalog: BuildView, names: list[str]) -> PrunePlan:
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
    changed = set(keys) | {f"{catalog.project}/{m.unique_id}.{c}" for m in models for c in m.columns}  # names as stored
    rows = catalog.graph.read(
        "read/find_bi_downstream", project=catalog.project, column_keys=sorted(changed), build_id=catalog.build_id, builds={}
    )
    bi = {r["unique_id"]: BIHit(kind=r["kind"], unique_id=r["unique_id"], tool=r["tool"], tool_id=r["tool_id"]) for r in rows}
    return PrunePlan(
        project=catalog.project,
        origin="graph",
        build_id=catalog.build_id,
        changed_columns=tuple(strip(k) for k in keys),
        models=tuple(sorted(models, key=lambda m: m.unique_id)),
        bi=tuple(sorted(bi.values(), key=lambda h: (BI_ORDER.index(h.kind), h.unique_id))),
    )


BI_ORDER = ("bi_field", "chart", "dashboard")


def bi_hits(project: DbtProject, lineages: dict[str, ModelLineage], models: Iterable[PrunedModel], keys: Iterable[str]) -> tuple[BIHit, ...]:
    """In memory: the BI fields, charts and dashboards reading a changed column (``keys``) or a
    column of a reached model (its ``columns``)."""
    if not project.bi_fields:
        return ()
    from catalog.analyze.records import column_key
    from catalog.bi.link import Linked, bi_reached

    changed = set(keys) | {column_key(m.unique_id, c) for m in models for c in m.columns}
    return tuple(BIHit(kind=k, unique_id=u, tool=t, tool_id=i) for k, u, t, i in bi_reached(project, Linked(project, column_names(lineages)), changed))



# ---------------------------------------------------------------------------- in memory
def closure(graph: LineageGraph, start_keys: Iterable[str]) -> list[PrunedModel]:
    """The models to rebuild when ``start_keys`` change, in memory: the same answer as
    ``read/find_prune_models`` (the path may differ among equally short ones)."""
    best: dict[str, tuple[tuple[int, int, str, str], tuple]] = {}
    columns: dict[str, set[str]] = defaultdict(set)
    for start in sorted(set(start_keys)):
        for mixed in (False, True):
            for node, (depth, path) in graph.reach(start, mixed).items():
                if node[0] == "c":
                    uid = graph.column_model[node[1]]
                    columns[uid].add(graph.column_name[node[1]])
                else:
                    uid = node[1]
                if mixed and depth == 0:
                    continue
                rank = (2 if mixed else (0 if depth == 0 else 1), depth, start, node[1])
                if uid not in best or rank < best[uid][0]:
                    best[uid] = (rank, path)
    out = []
    for uid, (rank, steps) in sorted(best.items()):
        path = graph.path_to(rank[2], steps)
        lineage = ("changed", "value", "condition")[rank[0]]
        model = _reached_model(graph.project, uid, lineage, rank[2], rank[3], path)
        out.append(model.model_copy(update={"columns": tuple(sorted(columns[uid]))}))
    return out


def _reached_model(project: DbtProject, uid: str, lineage: str, via: str, reached: str, path: list[PruneHop]) -> PrunedModel:
    node = project.nodes.get(uid)
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


def prune_artifacts(project: DbtProject, lineages: dict[str, ModelLineage], names: list[str]) -> PrunePlan:
    """``--changed`` on a project's artifacts, without Neo4j."""
    graph = LineageGraph(project, lineages)
    keys = sorted({graph.resolve(n) for n in names})
    models = tuple(closure(graph, keys))
    return PrunePlan(project=project.name, origin="artifacts", changed_columns=tuple(keys), models=models, bi=bi_hits(project, lineages, models, keys))


# ---------------------------------------------------------------------------- --state
def prune_state(
    old: DbtProject,
    old_lineages: dict[str, ModelLineage],
    new: DbtProject,
    new_lineages: dict[str, ModelLineage],
    also_changed: list[str] | None = None,
    diff: StateDiff | None = None,
    graph: LineageGraph | None = None,
) -> PrunePlan:
    """``--state``: compare two targets of one project and prune from what changed (``diff``:
    their :func:`diff_state`, when the caller has made it already; ``graph``: the change's
    :class:`LineageGraph`, when the caller has one: its consumers, never buildable, add no
    model to rebuild)."""
    diff = diff or diff_state(old, old_lineages, new, new_lineages)
    graph = graph or LineageGraph(new, new_lineages)
    extra = [graph.resolve(n) for n in also_changed or []]
    keys = sorted(set(diff.start_keys) | set(extra))
    models = {m.unique_id: m for m in closure(graph, keys)}
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
        bi=bi_hits(new, new_lineages, models.values(), keys),
    )


