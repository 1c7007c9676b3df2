"""A build's lineage in the graph: models, columns, FEEDS, CONDITIONS, DEPENDS_ON and model
states, written as the difference from the active build (:mod:`catalog.store.versioned`)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable
from typing import Any

from catalog.analyze.project import external_reason
from catalog.analyze.records import ModelLineage, ModelStatus
from catalog.builds.fingerprints import Fingerprint
from catalog.builds.rows import (
    LINEAGE_PROPS,
    VALUE,
    column_count,
    column_identity,
    column_lineage_props,
    column_props,
    columns_by_model,
    feeds_by_column,
    model_identity,
    model_props,
    present,
    stored_props,
    up_count,
)
from catalog.builds.summary import BuildSummary, EdgeCounts, ModelCounts
from catalog.extract import DbtProject
from catalog.idents import typed
from catalog.masking import is_masked, masking_names
from catalog.store.graph import Graph
from catalog.store.keys import column_node_key, model_node_key
from catalog.store.versioned import changes

Progress = Callable[[str], None]


PART_COLUMNS = 20_000  # columns of analyzed models a part of the build holds before it is written


class LineageWriter:
    """Computes the difference between the stored lineage and the new one, and writes it.

    Nothing it writes is visible to readers of an earlier build: nodes get only their
    identity (what their key determines), and everything else is on relationships created
    with ``since`` = this build, or ended with ``until`` = this build.

    The new lineage comes as the analysis makes it, model by model, and is written in parts
    of about :data:`PART_COLUMNS` columns: each part's relationships are compared with the
    open ones of the same models and written, then let go. What stays for the whole build is
    each analyzed model's status and column names (:attr:`outcomes`).
    """

    def __init__(
        self,
        graph: Graph,
        project: DbtProject,
        build_id: int,
        fps: dict[str, Fingerprint],
        states: dict[str, dict[str, Any]],
        reuse: set[str],
        say: Progress,
    ):
        self.graph = graph
        self.project = project
        self.build_id = build_id
        self.fps = fps
        self.states = states  # the active build's model states, by unique id
        self.reuse = reuse  # models whose stored lineage is kept as it is
        self.say = say
        self.masking = masking_names(project.masking_functions)
        self.previous_edges = 0
        self.rewrite_nodes = False  # the active build has another layout: set every node's identity anew
        self.checkpoint: Callable[[str], None] = lambda _stage: None
        self.beat: Callable[[], None] = lambda: None  # between statements: the build is alive
        # of each model analyzed by this build: (status, reason, its columns' names)
        self.outcomes: dict[str, tuple[ModelStatus, str | None, list[str]]] = {}
        self._counts = {"has": 0, "created": 0, "closed": 0, "feeds": 0, "feeds_closed": 0, "conditions": 0}
        self._has_created: set[str] = set()  # keys of the columns this build gave a HAS (they exist as nodes)
        self._endpoints: set[str] = set()  # keys of columns written as edges' endpoints before any HAS of theirs
        self._model_keys: set[str] = set()  # keys of the models this build wrote as nodes

    def _mkey(self, uid: str) -> str:
        return model_node_key(self.project.name, uid)

    def _ckey(self, uid: str, col: str) -> str:
        return column_node_key(self.project.name, uid, col)

    def write(self, lineages: Iterable[ModelLineage]) -> BuildSummary:
        """Write the build's difference from the active one: ``lineages`` are the models this
        build analyzes (those not in :attr:`reuse`), read once, in any order."""
        p = self.project
        name = p.name
        summary = BuildSummary(build_id=self.build_id, project=name, status="running", dialect=p.dialect)

        # nodes whose documentation, types or tags changed (or that are new to the build)
        changed_meta = {
            uid for uid in p.nodes if (s := self.states.get(uid)) is None or s.get("meta_hash") != self.fps[uid].meta_hash
        }
        # nodes: identity only, for nodes new to the build (or all of them, over another layout)
        model_rows = [
            {"node": model_identity(name, n.unique_id, n.display_name, n.resource_type)}
            for n in p.nodes.values()
            if self.rewrite_nodes or n.unique_id not in self.states
        ]
        self._model_keys.update(r["node"]["key"] for r in model_rows)
        self.graph.write_batches("write/merge_models", model_rows)
        # whose owned relationships must be compared: recomputed models (as they come), sources
        # and seeds whose columns or their documentation changed, removed nodes
        owners = [
            uid for uid, fp in self.fps.items()
            if p.nodes[uid].resource_type not in ("model", "snapshot")
            and ((s := self.states.get(uid)) is None or s["lineage_hash"] != fp.lineage_hash or uid in changed_meta)
        ]  # fmt: skip
        # models whose lineage is kept but whose documentation changed: their columns' properties
        relabel = sorted(uid for uid in changed_meta if uid in self.reuse)
        removed = [uid for uid in self.states if uid not in p.nodes]
        self._write_part(owners + removed, relabel, {})

        carried: set[str] = set()
        part: dict[str, ModelLineage] = {}
        held = 0
        for lin in lineages:
            uid = lin.unique_id
            self.outcomes[uid] = (lin.status, lin.reason, [c.name for c in lin.columns])
            s = self.states.get(uid)
            if lin.status == ModelStatus.FAILED and s is not None and (s.get("status") != ModelStatus.FAILED.value or s.get("carried_over")):
                carried.add(uid)  # keep the last good lineage
                if uid in changed_meta:
                    self._write_part([], [uid], {})
                continue
            part[uid] = lin
            held += len(lin.columns) + len(lin.conditions) + 1
            if held >= PART_COLUMNS:
                self._write_part(list(part), [], part)
                part, held = {}, 0
        if part:
            self._write_part(list(part), [], part)
        n = self._counts
        columns = n["has"] + len(self._endpoints - self._has_created)
        self.say(f"writing {len(self._model_keys)} models, {columns} columns, {n['created']} new relationships, closing {n['closed']}")
        self.checkpoint("relationships")
        created, closed = n["created"], n["closed"]

        # model states: a new CONTAINS for every node whose state or properties changed; close the old one
        state_rows, state_close = [], []
        for uid, fp in self.fps.items():
            node = p.nodes[uid]
            s = self.states.get(uid)
            same_meta = s is not None and s.get("meta_hash") == fp.meta_hash
            if uid in self.reuse:
                if same_meta:
                    continue
                state = {k: s.get(k) for k in ("status", "reason", "lineage_hash", "sql_hash", "carried_over", "error")}
            else:
                status, reason, _ = self.outcomes.get(uid) or (None, None, None)
                failed = status == ModelStatus.FAILED
                foreign = status is None and node.external_project is not None  # another project's seed or source (dbt Mesh)
                state = {
                    "status": status.value if status else "external" if foreign else "resolved",
                    "reason": reason if status else external_reason(node) if foreign else None,
                    "lineage_hash": None if failed else fp.lineage_hash,
                    "sql_hash": fp.sql_hash,
                    "carried_over": uid in carried,
                    "error": reason if failed else None,
                }
                if (
                    same_meta
                    and s["lineage_hash"] == state["lineage_hash"]
                    and s["status"] == state["status"]
                    and bool(s.get("carried_over")) == state["carried_over"]
                ):
                    continue
            if s is not None:
                state_close.append(s["state_id"])
            state_rows.append({"model": self._mkey(uid), "state": present({**state, **model_props(node), "meta_hash": fp.meta_hash})})
        for uid in removed:
            state_close.append(self.states[uid]["state_id"])
        g = self.graph
        closed += g.close_relationships(self.build_id, state_close)
        created += g.write_batches("write/create_model_states", state_rows, project=name, build_id=self.build_id)

        # summary
        all_models = p.models()
        summary.recomputed_models = sorted(n.unique_id for n in all_models if n.unique_id not in self.reuse)
        summary.models = ModelCounts(
            total=len(all_models),
            reused=len(self.reuse),
            recomputed=len(all_models) - len(self.reuse),
            failed=sum(1 for status, _, _ in self.outcomes.values() if status == ModelStatus.FAILED),
            carried_over=len(carried),
            removed=len(removed),
        )
        statuses: dict[str, int] = {}
        for node in all_models:
            if node.unique_id in self.outcomes:
                st = self.outcomes[node.unique_id][0].value
            else:
                st = (self.states.get(node.unique_id) or {}).get("status") or "resolved"
            statuses[st] = statuses.get(st, 0) + 1
        summary.statuses = dict(sorted(statuses.items()))
        summary.edges = EdgeCounts(
            written=n["feeds"], closed=n["feeds_closed"], total=self.previous_edges + n["feeds"] - n["feeds_closed"]
        )
        summary.conditions_written = n["conditions"]
        summary.relationships_written = created
        summary.relationships_closed = closed
        summary.columns = sum(len(node.columns) for node in all_models)
        return summary

    def _write_part(self, owners: list[str], relabel: list[str], lineages: dict[str, ModelLineage]) -> None:
        """Compare the open relationships of ``owners`` (their columns, edges into them,
        conditions and dependencies; ``lineages`` has the new lineage of those analyzed) and of
        the columns of ``relabel`` with what this build wants of them, and write the difference."""
        if not owners and not relabel:
            return
        name = self.project.name
        existing = self.graph.list_model_relationships([self._mkey(u) for u in owners + relabel])
        relabel_keys = {self._mkey(u) for u in relabel}
        current: dict[tuple, dict[str, Any]] = {}
        stored_columns: dict[str, list[tuple[Any, str]]] = {}
        stored_lineage: dict[str, dict[str, dict[str, Any]]] = {}
        for r in existing:
            if r["kind"] == "has":
                k = ("has", r["model"], r["a"])
                r["same"] = stored_props(r["props"])
                stored_columns.setdefault(r["model"], []).append((r["same"].get("position", 0), r["a"]))
                kept = {k: r["same"][k] for k in LINEAGE_PROPS if k in r["same"]}
                if kept:
                    stored_lineage.setdefault(r["model"], {})[r["a"][len(r["model"]) + 1 :]] = kept
            elif r["model"] in relabel_keys:
                continue  # only the columns of these models are compared
            elif r["kind"] == "feeds":
                k = ("feeds", r["a"], r["b"])
                r["same"] = (r["expr"], r["type"], r["resolved"])
            elif r["kind"] == "conditions":
                k = ("conditions", r["a"], r["model"], r["clause"])
            else:
                k = ("depends_on", r["model"], r["a"])
            current[k] = r
        del existing

        desired: dict[tuple, dict[str, Any]] = {}
        for uid in owners:
            if uid in self.project.nodes:
                self._desired_for(uid, desired, lineages.get(uid))
        for uid in relabel:
            mkey = self._mkey(uid)
            names = [key[len(mkey) + 1 :] for _, key in sorted(stored_columns.get(mkey, []))]
            self._desired_columns(uid, names, desired, stored_lineage.get(mkey))

        diff = changes({k: v.get("same") for k, v in desired.items()}, {k: (r["id"], r.get("same")) for k, r in current.items()})
        to_close = diff.close
        to_create = {k: desired[k] for k in diff.create}

        # endpoints of new edges that no model of this build has (yet) must exist as nodes too
        has_keys = {k[2] for k in to_create if k[0] == "has"}
        self._has_created |= has_keys
        column_rows: dict[str, dict[str, Any]] = {}
        model_rows: list[dict[str, Any]] = []
        for k, v in to_create.items():
            for uid, col in v.get("endpoints", ()):
                key = self._ckey(uid, col)
                if key not in column_rows and key not in self._has_created:
                    column_rows[key] = {"node": self._column_node(uid, col)}
            if k[0] == "depends_on" and k[2] not in self._model_keys and v["parent_uid"] not in self.project.nodes:
                parent_uid = v["parent_uid"]
                self._model_keys.add(k[2])
                label = ".".join(parent_uid.split(".")[2:]) or parent_uid
                model_rows.append({"node": model_identity(name, parent_uid, label, parent_uid.split(".")[0])})
        has_rows = [v["row"] for k, v in to_create.items() if k[0] == "has"]

        g = self.graph
        bid = self.build_id
        n = self._counts
        n["has"] += len(has_rows)
        self._endpoints.update(column_rows)
        g.write_batches("write/merge_models", model_rows)
        g.write_batches("write/merge_columns", list(column_rows.values()))
        closed_ids = set(to_close)
        n["closed"] += g.close_relationships(bid, to_close)
        n["feeds_closed"] += sum(1 for k, r in current.items() if k[0] == "feeds" and r["id"] in closed_ids)
        self.checkpoint("close")
        rows: dict[str, list[dict[str, Any]]] = {"has": [], "feeds": [], "conditions": [], "depends_on": []}
        for k, v in to_create.items():
            rows[k[0]].append(v["row"])
        n["created"] += g.write_batches(
            "write/merge_model_columns", columns_by_model(has_rows), weight=column_count,
            project=name, build_id=bid, rewrite=self.rewrite_nodes,
        )  # fmt: skip
        self.beat()
        n["created"] += g.write_batches("write/create_depends_on", rows["depends_on"], build_id=bid)
        feeds_written = g.write_batches("write/create_feeds", feeds_by_column(rows["feeds"]), weight=up_count, build_id=bid)
        self.beat()
        conditions_written = g.write_batches("write/create_conditions", rows["conditions"], build_id=bid)
        self.beat()
        n["created"] += feeds_written + conditions_written
        n["feeds"] += feeds_written
        n["conditions"] += conditions_written
        # the collector is off while a build writes (catalog.memory); what this part made that
        # only it reads, Neo4j's transactions among it, is let go here: only objects made since
        # the last part are scanned
        gc.collect(1)
        self.checkpoint("part")

    def _column_node(self, uid: str, col: str) -> dict[str, Any]:
        node = self.project.nodes.get(uid)
        return column_identity(self.project.name, uid, node.display_name if node else uid, col)

    def _desired_columns(
        self,
        uid: str,
        names: list[str],
        desired: dict[tuple, dict[str, Any]],
        lineage: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        """The model's HAS relationships, with each column's properties of this build; a
        column's position is its place in ``names`` (the model's columns in order) and
        ``lineage`` gives, per name, the analysis's kind, expr, resolved and reason (names as
        :mod:`catalog.idents` writes them)."""
        node = self.project.nodes[uid]
        mkey = self._mkey(uid)
        dialect = self.project.dialect
        documented = {c.key_name(dialect): c for c in node.columns}
        for i, col in enumerate(names):
            col = typed(col)
            c = documented.get(col)
            props = column_props(c, col, i) if c is not None else {"position": i}
            if lineage and col in lineage:
                props.update(lineage[col])
                if props.get("kind") == "derived" and is_masked(props.get("expr"), dialect, self.masking):
                    props["masked"] = True
            identity = self._column_node(uid, col)
            desired[("has", mkey, identity["key"])] = {
                "row": {"model": mkey, "key": identity["key"], "node": identity, "props": props},
                "same": props,
            }

    def _upstream_key(self, uid: str, col: str) -> str | None:
        """The producer's column a foreign node's column is (dbt Mesh), or None."""
        node = self.project.nodes.get(uid)
        return f"{node.upstream_key}.{typed(col)}" if node is not None and node.upstream_key is not None else None

    def _desired_for(self, uid: str, desired: dict[tuple, dict[str, Any]], lin: ModelLineage | None) -> None:
        node = self.project.nodes[uid]
        mkey = self._mkey(uid)
        if node.upstream_key is not None:
            return  # its columns are the producer's: the consumer's columns are fed by those
        if node.resource_type in ("source", "seed"):
            self._desired_columns(uid, [c.key_name(self.project.dialect) for c in node.columns], desired)
            return
        assert lin is not None  # a model's or snapshot's, analyzed by this build
        analyzed = {c.name: column_lineage_props(c) for c in lin.columns}
        names = [c.name for c in lin.columns] or [c.key_name(self.project.dialect) for c in node.columns]
        self._desired_columns(uid, names, desired, analyzed)
        for c in lin.columns:
            down = self._ckey(uid, c.name)
            kind = VALUE[c.kind]
            for src in c.sources:
                foreign = self._upstream_key(src.unique_id, src.column)
                up = foreign or self._ckey(src.unique_id, src.column)
                desired[("feeds", up, down)] = {
                    "row": {"up": up, "down": down, "expr": c.expr, "type": kind, "resolved": c.resolved, "model": mkey},
                    "endpoints": [] if foreign else [(src.unique_id, src.column)],
                    "same": (c.expr, kind, c.resolved),
                }
        for cond in lin.conditions:
            foreign = self._upstream_key(cond.column.unique_id, cond.column.column)
            ckey = foreign or self._ckey(cond.column.unique_id, cond.column.column)
            clause = VALUE[cond.clause]
            desired[("conditions", ckey, mkey, clause)] = {
                "row": {"column": ckey, "model": mkey, "clause": clause},
                "endpoints": [] if foreign else [(cond.column.unique_id, cond.column.column)],
            }
        for dep in node.depends_on:
            if dep == uid:
                continue
            pkey = self._mkey(dep)
            desired[("depends_on", mkey, pkey)] = {"row": {"child": mkey, "parent": pkey}, "parent_uid": dep}
