"""``catalog build``: extract -> analyze -> store one versioned, incremental build.

A build is written beside the active one and becomes active in one step at the end.
Per model, a lineage hash (its SQL, the columns of the relations it reads, dialect,
parser and analyzer versions) decides whether the stored lineage can be reused without
parsing; only models whose hash changed are analyzed, and only the relationships that
differ are closed (``until``) or created (``since``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlglot
from pydantic import BaseModel, Field

from catalog import __version__
from catalog.analyze.project import analyze_project, topological_models
from catalog.analyze.records import ColumnKind, ColumnLineage, ConditionClause, ModelLineage, ModelStatus
from catalog.analyze.semantic import semantic_lineage
from catalog.artifacts import find_target_dir, read_bytes
from catalog.errors import ArtifactError, ConnectionLost, StoreError
from catalog.extract import (
    DbtColumn,
    DbtNode,
    DbtProject,
    InputWarning,
    check_dialect,
    checked_dialect_for,
    dialect_for,
    input_warnings,
    is_pii,
    load_project,
    read_compiled_file,
)
from catalog.idents import typed
from catalog.masking import is_masked, masking_names, project_masking_functions
from catalog.memory import frozen_heap, paused_gc
from catalog.store import cypher
from catalog.store.consumers import write_consumers
from catalog.store.graph import SCHEMA_VERSION, Graph
from catalog.store.records import node_records, open_records, same_records, write_records
from catalog.store.keys import column_node_key, model_node_key

ANALYZER_VERSION = "4"  # bump when the analyzer's output changes for the same input
# bump when what a build stores, or where, changes: a build over an active build of another
# layout reuses nothing and rewrites every node and relationship it keeps
STORE_VERSION = 3
# The code that hashes nodes: a build keeps the active build's fingerprints only when that
# build was hashed by the same code (an edit here, or to how columns are named, rehashes all once)
def _hashing_code() -> str:
    try:
        code = Path(__file__).read_bytes() + (Path(__file__).parent / "idents.py").read_bytes()
    except OSError:  # not installed as files: the version alone tells builds apart
        code = __version__.encode()
    return hashlib.sha256(code).hexdigest()[:16]


HASHING_CODE = _hashing_code()
STALE_HEARTBEAT_SECONDS = 600  # a running build on another host not heard of for this long is dead
HEARTBEAT_SECONDS = 30

Progress = Callable[[str], None]


class ModelCounts(BaseModel):
    total: int = 0
    reused: int = 0
    recomputed: int = 0
    failed: int = 0
    carried_over: int = 0
    removed: int = 0


class EdgeCounts(BaseModel):
    written: int = 0  # FEEDS relationships created by this build
    closed: int = 0  # FEEDS relationships this build ended
    total: int = 0  # FEEDS edges of the build's lineage


class BuildSummary(BaseModel):
    build_id: int
    project: str
    status: str
    previous_build_id: int | None = None
    dialect: str
    models: ModelCounts = Field(default_factory=ModelCounts)
    statuses: dict[str, int] = Field(default_factory=dict)
    columns: int = 0
    edges: EdgeCounts = Field(default_factory=EdgeCounts)
    conditions_written: int = 0
    relationships_written: int = 0
    relationships_closed: int = 0
    recomputed_models: list[str] = Field(default_factory=list)  # unique ids analyzed by this build
    timings: dict[str, float] = Field(default_factory=dict)  # seconds per stage
    failures: dict[str, str] = Field(default_factory=dict)  # unique_id -> error
    warnings: list[InputWarning] = Field(default_factory=list)  # inputs the lineage is poorer without


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _sha(*parts: Any) -> str:
    """A digest of plain values (str, int, None, bool, tuples and lists of them); repr is
    deterministic for those and several times faster than JSON."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()


# ---------------------------------------------------------------------------- fingerprints
class Fingerprint(BaseModel, frozen=True):
    lineage_hash: str
    sql_hash: str | None
    meta_hash: str


def fingerprints(project: DbtProject, known: dict[str, Fingerprint] | None = None) -> dict[str, Fingerprint]:
    """Per dbt node: what its lineage depends on, and what its documentation is.

    ``known``: fingerprints computed before (by the same catalog, analyzer, sqlglot and
    dialect) of nodes whose record (:func:`catalog.store.records.node_records`) is the same
    now. A node keeps its known fingerprint when every node it depends on is in the project
    and keeps its own (its lineage hash names theirs); the others are computed. The result is
    the same either way; ``known`` only saves hashing what did not change.
    """
    known = known or {}
    out: dict[str, Fingerprint] = {}
    # each node's real columns (catalog.json) and all its columns, digested once (and only
    # for the nodes whose fingerprint is computed, or read by one that is): a model's hash
    # names its upstream nodes' digests, not their column lists again for every reader
    catalog_cols: dict[str, str | None] = {}
    all_cols: dict[str, str] = {}

    def digest_columns(uid: str) -> None:
        if uid in all_cols:
            return
        n = project.nodes[uid]
        names = [c.key_name(project.dialect) for c in n.columns]
        real = [(name, c.data_type) for name, c in zip(names, n.columns) if c.in_catalog]
        catalog_cols[uid] = _sha(real) if real else None
        all_cols[uid] = _sha(names)

    # the project's masking functions decide the columns' masked flags: a new list, new hashes
    base = (ANALYZER_VERSION, sqlglot.__version__, project.dialect) + ((project.masking_functions,) if project.masking_functions else ())
    for node in project.nodes.values():
        if node.resource_type in ("source", "seed"):
            uid = node.unique_id
            if uid in known:
                out[uid] = known[uid]
                continue
            digest_columns(uid)
            out[uid] = Fingerprint(lineage_hash=_sha(base, catalog_cols[uid], all_cols[uid]), sql_hash=None, meta_hash=_meta_hash(node))
    kept = set(out) & set(known)
    for node in topological_models(project):
        uid = node.unique_id
        if uid in known and all(dep in kept for dep in node.depends_on):
            out[uid] = known[uid]
            kept.add(uid)
            continue
        sql_hash = _sha(node.sql, node.language)
        upstream = []
        for dep in sorted(node.depends_on):
            if dep in project.nodes:
                digest_columns(dep)
            if catalog_cols.get(dep):
                upstream.append((dep, catalog_cols[dep]))
            elif dep in out:
                upstream.append((dep, out[dep].lineage_hash))
            elif dep in project.nodes:
                upstream.append((dep, all_cols[dep]))
        digest_columns(uid)
        lineage_hash = _sha(base, sql_hash, upstream, catalog_cols[uid], node.resource_type)
        out[uid] = Fingerprint(lineage_hash=lineage_hash, sql_hash=sql_hash, meta_hash=_meta_hash(node))
    return out


def _meta_hash(node: DbtNode) -> str:
    """What the graph shows of a node besides its lineage: types, docs, tags, meta."""
    model = sorted((k, repr(v)) for k, v in _model_props(node).items())
    columns = [
        (c.name, c.data_type, c.description, c.tags, repr(sorted(c.meta.items())) if c.meta else "[]", c.declared, c.in_catalog)
        for c in node.columns
    ]
    return _sha(model, columns)


# ---------------------------------------------------------------------------- node properties
# Model and Column nodes hold only what their key determines. Everything that can change
# from one build to the next lives on the relationship of that build: a model's on its
# CONTAINS, a column's on its HAS; a change closes that relationship and creates a new one.
def _model_identity(project: str, unique_id: str, name: str, resource_type: str) -> dict[str, Any]:
    return {
        "key": model_node_key(project, unique_id),
        "project": project,
        "unique_id": unique_id,
        "name": name,
        "resource_type": resource_type,
    }


def _model_props(node: DbtNode) -> dict[str, Any]:
    """A model's properties in one build (on its CONTAINS relationship)."""
    return {
        "package": node.package_name,
        "materialized": node.materialized,
        "relation_name": node.relation_name,
        "database": node.database,
        "schema": node.schema_name,
        "identifier": node.identifier,
        "sql": node.sql,
        "description": node.description,
        "tags": list(node.tags),
        "meta": json.dumps(node.meta, sort_keys=True, default=str),
        "access": node.access,
        "path": node.path,
        "language": node.language,
    }


def _column_identity(project: str, unique_id: str, model_name: str, column: str) -> dict[str, Any]:
    return {
        "key": column_node_key(project, unique_id, column),
        "project": project,
        "unique_id": unique_id,
        "model_name": model_name,
        "name": typed(column),
    }


def _column_props(col: DbtColumn, name: str, position: int) -> dict[str, Any]:
    """A column's properties in one build (on its HAS relationship); empty values are left out.
    ``name``: the column's name (:mod:`catalog.idents`); the warehouse's spelling is kept
    as ``display_name`` when it differs (``ORDER_ID``, or ``ID`` named ``"ID"``)."""
    return _present({
        "display_name": col.name if col.name != name else None,
        "position": position,
        "data_type": col.data_type or None,
        "description": col.description or None,
        "tags": list(col.tags) or None,
        "meta": json.dumps(col.meta, sort_keys=True, default=str) if col.meta else None,
        "pii": is_pii(col.tags, col.meta) or None,
        "declared": col.declared or None,
        "in_catalog": col.in_catalog or None,
    })  # fmt: skip


# what the analysis says of a model's column, kept on its HAS relationship
LINEAGE_PROPS = ("kind", "expr", "resolved", "reason")


def _column_lineage_props(col: ColumnLineage) -> dict[str, Any]:
    """A column's lineage in one build (on its HAS relationship): kind, expr, resolved, reason."""
    return _present({"kind": _VALUE[col.kind], "expr": col.expr, "resolved": col.resolved, "reason": col.reason})


def _present(props: dict[str, Any]) -> dict[str, Any]:
    """Properties as Neo4j stores them: a null is no property."""
    return {k: v for k, v in props.items() if v is not None}


def _stored(props: dict[str, Any] | None) -> dict[str, Any]:
    """A relationship's properties without its versions."""
    return {k: v for k, v in (props or {}).items() if k not in ("since", "until")}


# ---------------------------------------------------------------------------- inputs
_METADATA_RE = re.compile(rb'^\s*\{\s*"metadata"\s*:\s*')


def _quick_metadata(manifest: bytes) -> dict[str, Any]:
    """The manifest's top-level ``metadata`` object, read from the start of the file without
    parsing the rest (dbt writes it first); empty when it is not there."""
    m = _METADATA_RE.match(manifest)
    if not m:
        return {}
    decoder = json.JSONDecoder()
    for size in (8192, 65536):
        try:
            obj, _ = decoder.raw_decode(manifest[m.end() : m.end() + size].decode("utf-8", "replace"))
        except json.JSONDecodeError:
            continue
        return obj if isinstance(obj, dict) else {}
    return {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def compiled_inputs(project: DbtProject) -> tuple[list[str], str]:
    """The compiled SQL files the build reads (models without compiled SQL in the manifest,
    whether the file exists or not) and a digest of their contents as analyzed."""
    files = {n.compiled_path: n.sql if n.sql_origin == "compiled_file" else None for n in project.models() if n.compiled_path}
    paths = sorted(files)
    return paths, _sha([(p, files[p]) for p in paths])


def compiled_digest(target: Path, paths: list[str]) -> str | None:
    """The digest of :func:`compiled_inputs` from the files as they are now; None when one is unreadable."""
    try:
        return _sha([(p, read_compiled_file(target, p)) for p in paths])
    except ArtifactError:
        return None


# ---------------------------------------------------------------------------- the build
class _NotChecked(Exception):
    """The build needs its inputs read and checked in full before anything is written."""


class Builder:
    """One ``catalog build`` run against one graph."""

    def __init__(
        self,
        graph: Graph,
        path: Path,
        full: bool = False,
        dialect: str | None = None,
        jobs: int | None = None,
        progress: Progress | None = None,
        project_name: str | None = None,
        fail_after: str | None = None,
    ):
        self.graph = graph
        self.path = Path(path)
        self.full = full
        self.dialect = dialect
        self.jobs = jobs
        self.say = progress or (lambda _msg: None)
        self.project_name = project_name  # store under this name instead of the dbt project's
        # fault injection for crash-safety tests: "<stage>" raises after that stage,
        # "kill:<stage>" kills the process with SIGKILL there
        self.fail_after = fail_after or os.environ.get("CATALOG_FAULT_AFTER")
        self.timings: dict[str, float] = {}
        # manifest.json and catalog.json as run() read them, until parsed (None: read the file)
        self._inputs: tuple[bytes | None, bytes | None] = (None, None)
        self.build_id: int | None = None  # once started
        self.undone: bool | None = None  # once failed: were its writes undone and itself marked failed?
        self._last_heartbeat = time.monotonic()

    def _stage(self, name: str, started: float) -> float:
        now = time.perf_counter()
        self.timings[name] = round(self.timings.get(name, 0.0) + now - started, 6)
        if self.fail_after == name:
            raise RuntimeError(f"injected failure after stage {name}")
        if self.fail_after == f"kill:{name}":
            os.kill(os.getpid(), signal.SIGKILL)
        self._heartbeat()
        return now

    def _heartbeat(self) -> None:
        """Tell other hosts this build is alive (they treat a silent one as dead after a while)."""
        if self.build_id is None or time.monotonic() - self._last_heartbeat < HEARTBEAT_SECONDS:
            return
        self._last_heartbeat = time.monotonic()
        self.graph.heartbeat(self.build_id, _now())

    def run(self) -> BuildSummary:
        """Nothing is written before the inputs are known good: either they are the very bytes
        of the active build (a no-change build, one transaction), or they were read and
        checked in full before the build is created."""
        t_start = time.perf_counter()
        t = t_start
        target = find_target_dir(self.path)
        # each artifact is read once: hashed here, parsed from the same bytes when it changed
        manifest_bytes = read_bytes(target / "manifest.json")
        catalog_path = target / "catalog.json"
        catalog_bytes = read_bytes(catalog_path) if catalog_path.is_file() else None
        manifest_sha = hashlib.sha256(manifest_bytes).hexdigest()
        catalog_sha = hashlib.sha256(catalog_bytes).hexdigest() if catalog_bytes is not None else None
        self._inputs = (manifest_bytes, catalog_bytes)
        metadata = _quick_metadata(manifest_bytes)
        t = self._stage("read", t)

        project_name = self.project_name or _text(metadata.get("project_name"))
        project: DbtProject | None = None
        if project_name is None:
            project = self._load(target)
            project_name = project.name
            t = self._stage("extract", t)

        adapter_type = _text(metadata.get("adapter_type"))
        masking = list(project_masking_functions(target.parent, _text(metadata.get("project_name")) or project_name))
        dialect_hint = self.dialect or (adapter_type and dialect_for(adapter_type))
        if self.dialect is not None:  # bad input fails here, before a build is started
            check_dialect(self.dialect, "--dialect")
        elif adapter_type:
            checked_dialect_for(adapter_type, target / "manifest.json")

        def unchanged(active: dict[str, Any] | None) -> bool:
            """Same inputs as the active build: nothing to analyze or write."""
            return (
                not self.full
                and active is not None
                and active.get("store_version") == STORE_VERSION
                and active.get("manifest_sha256") == manifest_sha
                and active.get("catalog_sha256") == catalog_sha
                and active.get("sqlglot_version") == sqlglot.__version__
                and active.get("analyzer_version") == ANALYZER_VERSION
                and active.get("hashing_code") == HASHING_CODE  # its hashes are this code's, kept by the next build
                and active.get("dialect") == dialect_hint
                and list(active.get("masking_functions") or []) == masking
                and not active.get("models_failed")
                and active.get("compiled_sha256") == compiled_digest(target, list(active.get("compiled_files") or []))
            )

        inputs = {
            "manifest_sha256": manifest_sha,
            "catalog_sha256": catalog_sha,
            "adapter_type": adapter_type,
            "generated_at": _text(metadata.get("generated_at")),
            "masking_functions": masking,
        }
        try:
            build_id, active, schema_version, done = self._start(project_name, inputs, unchanged, project)
        except _NotChecked:  # the inputs changed: read and check them all before writing anything
            project = self._load(target)
            t = self._stage("extract", t)
            build_id, active, schema_version, done = self._start(project.name, inputs, unchanged, project)
        if done is not None:  # the no-change build was created and made active in that one transaction
            self._stage("start", t)
            if catalog_sha is None or not (target / "compiled").is_dir():  # weak inputs: say which, again
                done.warnings = input_warnings(project or self._load(target))
            self.timings["total"] = round(time.perf_counter() - t_start, 6)
            return done
        assert project is not None
        try:
            t = self._stage("start", t)
            if schema_version != SCHEMA_VERSION:
                self.graph.create_constraints()
                t = self._stage("prepare", t)
            with frozen_heap():  # the extracted project lives as long as the build
                summary = self._incremental(project, build_id, active, manifest_sha, catalog_sha, t_start)
            return summary
        except BaseException as e:
            self.undone = False  # until Neo4j says otherwise (a second signal stops the clean-up too)
            self.undone = self._abandon(build_id, e)
            if isinstance(e, ConnectionLost):
                raise ConnectionLost(f"{e}; {self.left_behind()}") from e
            raise

    def _load(self, target: Path) -> DbtProject:
        manifest_bytes, catalog_bytes = self._inputs
        self._inputs = (None, None)  # parsed once; a large manifest's bytes are not kept for the whole build
        project = load_project(target, dialect=self.dialect, manifest_bytes=manifest_bytes, catalog_bytes=catalog_bytes)
        if self.project_name:
            project = project.model_copy(update={"name": self.project_name})
        return project

    # ------------------------------------------------------------------ start / stop
    def _start(
        self,
        project: str,
        inputs: dict[str, Any],
        unchanged: Callable[[dict[str, Any] | None], bool],
        checked: DbtProject | None,
    ) -> tuple[int, dict[str, Any] | None, Any, BuildSummary | None]:
        """Lock the project and create the running build; when nothing changed, also make it
        active in the same transaction (one commit for a no-change build).

        Without ``checked`` (the project read and validated in full) only a no-change build
        may be created: otherwise the transaction is rolled back (no project, lock, counter
        or build is left) and :class:`_NotChecked` raised. Another live build of the project
        rolls back too, with a :class:`StoreError`.
        """
        host = socket.gethostname()
        pid = os.getpid()
        now = _now()

        def work(tx):
            state = tx.run(cypher.load("write/lock_project"), project=project, now=now).single()
            dead, alive = [], []
            for r in state["running"]:
                (alive if _is_alive(r, host) else dead).append(r)
            if alive:
                other = alive[0]
                raise StoreError(
                    f"another `catalog build` of project {project!r} is running (build {other['id']}, "
                    f"pid {other['pid']} on {other['host']}, last seen {other['heartbeat_at']}); "
                    "wait for it to finish and run again"
                )
            active = state["active"]
            no_change = not dead and state["schema_version"] == SCHEMA_VERSION and unchanged(active)
            if not no_change and checked is None:
                raise _NotChecked()
            if no_change:
                compiled = {"compiled_files": active.get("compiled_files") or [], "compiled_sha256": active.get("compiled_sha256")}
            else:
                files, digest = compiled_inputs(checked)
                compiled = {"compiled_files": files, "compiled_sha256": digest}
            build = {
                "id": state["next_id"],
                "started_at": now,
                "host": host,
                "pid": pid,
                **inputs,
                **compiled,
                "sqlglot_version": sqlglot.__version__,
                "catalog_version": __version__,
                "hashing_code": HASHING_CODE,
                "analyzer_version": ANALYZER_VERSION,
                "store_version": STORE_VERSION,
                "full": self.full,
            }
            tx.run(cypher.load("write/create_build"), project=project, build=build).consume()
            if no_change:
                summary = _unchanged_summary(project, state["next_id"], active)
                summary.timings = self.timings
                row = tx.run(
                    cypher.load("write/set_active_build"),
                    project=project, build_id=state["next_id"], summary=_flat(summary), now=_now(),
                ).single()  # fmt: skip
                summary.previous_build_id = row["previous_id"]
                summary.status = "active"
                return state["next_id"], state, dead, summary
            return state["next_id"], state, dead, None

        build_id, state, dead, done = self.graph.transaction("write/lock_project", work)
        self.build_id = build_id
        self._last_heartbeat = time.monotonic()
        for r in dead:  # undone first, then marked failed: a dead build is never left failed and not undone
            undone = self.graph.delete_build_changes(r["id"], timeout_=0)  # no time limit: it must finish
            self.graph.set_build_failed([r["id"]], "the process running this build died before it finished", _now())
            self.say(
                f"cleaned up build {r['id']} left by a process that died: "
                f"{undone['deleted']} relationships removed, {undone['reopened']} reopened"
            )
        return build_id, state["active"], state["schema_version"], done

    def _abandon(self, build_id: int, error: BaseException) -> bool:
        """The build failed: undo its writes, then record why; the active build stays. False
        when Neo4j did not answer (or a second signal came): the build stays ``running`` and
        the next build, seeing its process gone, undoes it and marks it failed."""
        reason = f"{type(error).__name__}: {error}"[:500]
        try:
            self.graph.delete_build_changes(build_id)  # within the transaction timeout
            self.graph.set_build_failed([build_id], reason, _now())
        except Exception:  # noqa: BLE001 - the next build cleans up; keep the original error
            return False
        return True

    def left_behind(self) -> str:
        """What became of a build that did not finish, for its error line."""
        if self.build_id is None:
            return "no build was started"
        if self.undone:
            return f"build {self.build_id} was marked failed and its writes undone"
        return f"build {self.build_id} is left for the next build to undo"

    def _activate(self, project: str, build_id: int, summary: BuildSummary) -> BuildSummary:
        t = time.perf_counter()
        flat = _flat(summary)
        rows = self.graph.write("write/set_active_build", project=project, build_id=build_id, summary=flat, now=_now())
        if not rows:
            raise StoreError(f"build {build_id} was marked failed by another process before it could become active")
        self._stage("activate", t)
        summary.previous_build_id = rows[0]["previous_id"]
        summary.status = "active"
        return summary

    # ------------------------------------------------------------------ the general case
    def _incremental(
        self,
        project: DbtProject,
        build_id: int,
        active: dict[str, Any] | None,
        manifest_sha: str,
        catalog_sha: str | None,
        t_start: float,
    ) -> BuildSummary:
        t = time.perf_counter()
        name = project.name
        active_id = active["id"] if active else None
        # tens of thousands of rows beside the project's millions of records: the collector
        # would walk all of those again and again while these are made
        with paused_gc():
            # the active build's states and records are read while this build's records are made
            with ThreadPoolExecutor(max_workers=1) as pool:
                stored = pool.submit(self._stored_state, name, active_id)
                records = node_records(project)
                states, current_records = stored.result()
            known = self._known_fingerprints(project, active, states, records, current_records)
            fps = fingerprints(project, known)
        t = self._stage("compare", t)

        models = [n for n in project.models()]
        reuse: set[str] = set()
        same_layout = active is not None and active.get("store_version") == STORE_VERSION
        if not self.full and same_layout:
            for node in models:
                s = states.get(node.unique_id)
                if s and s["lineage_hash"] == fps[node.unique_id].lineage_hash and s["status"] != ModelStatus.FAILED.value:
                    reuse.add(node.unique_id)
        recompute = [n for n in models if n.unique_id not in reuse]
        self.say(f"build {build_id} of {name}: {len(reuse)} models reused, {len(recompute)} to analyze")

        lineages = self._analyze(project, recompute, states)
        t = self._stage("analyze", t)

        writer = _Writer(self.graph, project, build_id, fps, states, lineages, reuse, self.say)
        writer.rewrite_nodes = active is not None and not same_layout
        writer.previous_edges = int((active or {}).get("edges_total") or 0)
        writer.checkpoint = lambda stage: self._stage(stage, time.perf_counter())
        writer.beat = self._heartbeat
        with paused_gc():
            summary = writer.write()
        self._write_consumers(project, lineages, build_id, records, current_records)
        summary.dialect = project.dialect
        summary.failures = {uid: lin.reason or "" for uid, lin in sorted(lineages.items()) if lin.status == ModelStatus.FAILED}
        summary.warnings = input_warnings(project)
        t = self._stage("store", t)
        self.timings["total"] = round(time.perf_counter() - t_start, 6)
        summary.timings = self.timings
        summary = self._activate(name, build_id, summary)
        self.timings["total"] = round(time.perf_counter() - t_start, 6)
        return summary

    def _stored_state(self, name: str, active_id: int | None) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """The active build's model states (by unique id) and the project's open node records."""
        states = {s["unique_id"]: s for s in self.graph.list_model_states(name, active_id)} if active_id else {}
        return states, open_records(self.graph, name)

    def _known_fingerprints(
        self,
        project: DbtProject,
        active: dict[str, Any] | None,
        states: dict[str, dict[str, Any]],
        records: dict[str, str],
        current_records: dict[str, dict[str, Any]],
    ) -> dict[str, Fingerprint]:
        """The active build's fingerprints of the nodes whose record did not change, when that
        build was made the way this one is (store layout, catalog and its hashing code, analyzer,
        sqlglot, dialect); none for ``--full``. :func:`fingerprints` then hashes only what changed and what reads it."""
        if (
            self.full
            or active is None
            or active.get("store_version") != STORE_VERSION
            or active.get("catalog_version") != __version__
            or active.get("hashing_code") != HASHING_CODE
            or active.get("analyzer_version") != ANALYZER_VERSION
            or active.get("sqlglot_version") != sqlglot.__version__
            or active.get("dialect") != project.dialect
            or list(active.get("masking_functions") or []) != list(project.masking_functions)
        ):
            return {}
        known: dict[str, Fingerprint] = {}
        for uid in same_records(project, records, current_records):
            s = states.get(uid)
            if s is None or not s.get("lineage_hash") or not s.get("meta_hash"):
                continue
            known[uid] = Fingerprint(lineage_hash=s["lineage_hash"], sql_hash=s.get("sql_hash"), meta_hash=s["meta_hash"])
        return known

    def _write_consumers(
        self,
        project: DbtProject,
        lineages: dict[str, ModelLineage],
        build_id: int,
        records: dict[str, str],
        current_records: dict[str, dict[str, Any]],
    ) -> None:
        """Semantic models, metrics, exposures and saved queries (catalog.store.consumers), and
        the records of what the build read (catalog.store.records)."""
        semantic, edges = semantic_lineage(project, lineages)
        counts = write_consumers(self.graph, project, semantic, edges, build_id)
        write_records(self.graph, project, build_id, records, current_records)
        self.say(f"consumers: {counts['consumers']}, {counts['consumer_relationships_written']} relationships written")

    def _analysis_progress(self) -> Callable[[int, int], None]:
        """Say how far the analysis is, at most about ten times."""
        said = [0]

        def progress(done: int, total: int) -> None:
            step = max(1, total // 10)
            if total >= 100 and (done == total or done - said[0] >= step):
                said[0] = done
                self.say(f"analyzed {done}/{total} models")
            self._heartbeat()

        return progress

    def _analyze(self, project: DbtProject, recompute: list[DbtNode], states: dict[str, Any]) -> dict[str, ModelLineage]:
        if not recompute:
            return {}
        return analyze_project(
            project,
            jobs=self.jobs,
            progress=self._analysis_progress(),
            only={n.unique_id for n in recompute},
            known_columns={uid: s["columns"] for uid, s in states.items() if s.get("columns")},
        )


def _columns_by_model(has_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """HAS rows as ``write/merge_model_columns`` takes them: one row per model, with its columns."""
    out: dict[str, dict[str, Any]] = {}
    for r in has_rows:
        group = out.get(r["model"])
        if group is None:
            node = r["node"]
            group = out[r["model"]] = {"model": r["model"], "unique_id": node["unique_id"], "model_name": node["model_name"], "columns": []}
        group["columns"].append({"key": r["key"], "name": r["node"]["name"], "props": r["props"]})
    return list(out.values())


def _column_count(group: dict[str, Any]) -> int:
    return len(group["columns"])


def _feeds_by_column(feed_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """FEEDS rows as ``write/create_feeds`` takes them: one row per downstream column (and its
    expression, type and resolved flag, the same for all its upstream columns), with its upstream columns."""
    out: dict[tuple, dict[str, Any]] = {}
    for r in feed_rows:
        k = (r["down"], r["expr"], r["type"], r["resolved"], r["model"])
        group = out.get(k)
        if group is None:
            group = out[k] = {"down": r["down"], "ups": [], "expr": r["expr"], "type": r["type"], "resolved": r["resolved"], "model": r["model"]}
        group["ups"].append(r["up"])
    return list(out.values())


def _up_count(group: dict[str, Any]) -> int:
    return len(group["ups"])


# enum -> its string, without Enum.value's descriptor on hot paths
_VALUE: dict[Any, str] = {m: m.value for m in (*ColumnKind, *ConditionClause)}


def _flat(summary: BuildSummary) -> dict[str, Any]:
    """The summary as Build node properties."""
    return {
        "dialect": summary.dialect,
        "models_total": summary.models.total,
        "models_reused": summary.models.reused,
        "models_recomputed": summary.models.recomputed,
        "models_failed": summary.models.failed,
        "models_carried_over": summary.models.carried_over,
        "models_removed": summary.models.removed,
        "columns": summary.columns,
        "edges_total": summary.edges.total,
        "edges_written": summary.edges.written,
        "edges_closed": summary.edges.closed,
        "statuses": json.dumps(summary.statuses),
        "recomputed_models": summary.recomputed_models,
        "timings": json.dumps(summary.timings),
    }


def _unchanged_summary(project: str, build_id: int, active: dict[str, Any]) -> BuildSummary:
    """A build with the active build's inputs: everything reused, nothing written."""
    total = int(active.get("models_total") or 0)
    return BuildSummary(
        build_id=build_id,
        project=project,
        status="running",
        dialect=active.get("dialect") or "",
        models=ModelCounts(total=total, reused=total),
        statuses=json.loads(active.get("statuses") or "{}"),
        columns=int(active.get("columns") or 0),
        edges=EdgeCounts(total=int(active.get("edges_total") or 0)),
    )


def _is_alive(running: dict[str, Any], host: str) -> bool:
    if running.get("host") == host and running.get("pid"):
        try:
            os.kill(int(running["pid"]), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    seen = running.get("heartbeat_at")
    if not seen:
        return False
    try:
        age = datetime.now(timezone.utc) - datetime.fromisoformat(str(seen))
    except ValueError:
        return False
    return age.total_seconds() < STALE_HEARTBEAT_SECONDS


class _Writer:
    """Computes the difference between the stored lineage and the new one, and writes it.

    Nothing it writes is visible to readers of an earlier build: nodes get only their
    identity (what their key determines), and everything else is on relationships created
    with ``since`` = this build, or ended with ``until`` = this build.
    """

    def __init__(
        self,
        graph: Graph,
        project: DbtProject,
        build_id: int,
        fps: dict[str, Fingerprint],
        states: dict[str, dict[str, Any]],
        lineages: dict[str, ModelLineage],
        reuse: set[str],
        say: Progress,
    ):
        self.graph = graph
        self.project = project
        self.build_id = build_id
        self.fps = fps
        self.states = states  # the active build's model states, by unique id
        self.lineages = lineages  # new lineage of the models analyzed by this build
        self.reuse = reuse  # models whose stored lineage is kept as it is
        self.say = say
        self.masking = masking_names(project.masking_functions)
        self.previous_edges = 0
        self.rewrite_nodes = False  # the active build has another layout: set every node's identity anew
        self.checkpoint: Callable[[str], None] = lambda _stage: None
        self.beat: Callable[[], None] = lambda: None  # between statements: the build is alive

    def _mkey(self, uid: str) -> str:
        return model_node_key(self.project.name, uid)

    def _ckey(self, uid: str, col: str) -> str:
        return column_node_key(self.project.name, uid, col)

    def write(self) -> BuildSummary:
        p = self.project
        name = p.name
        summary = BuildSummary(build_id=self.build_id, project=name, status="running", dialect=p.dialect)

        # nodes whose documentation, types or tags changed (or that are new to the build)
        changed_meta = {
            uid for uid in p.nodes if (s := self.states.get(uid)) is None or s.get("meta_hash") != self.fps[uid].meta_hash
        }
        # whose owned relationships must be compared: recomputed models, sources/seeds whose
        # columns or their documentation changed, removed nodes
        carried: set[str] = set()
        owners: list[str] = []
        for uid, fp in self.fps.items():
            node = p.nodes[uid]
            s = self.states.get(uid)
            if node.resource_type in ("model", "snapshot"):
                if uid in self.reuse:
                    continue
                lin = self.lineages[uid]
                if lin.status == ModelStatus.FAILED and s is not None and s.get("status") != ModelStatus.FAILED.value:
                    carried.add(uid)  # keep the last good lineage
                    continue
                if lin.status == ModelStatus.FAILED and s is not None and s.get("carried_over"):
                    carried.add(uid)
                    continue
                owners.append(uid)
            elif s is None or s["lineage_hash"] != fp.lineage_hash or uid in changed_meta:
                owners.append(uid)
        # models whose lineage is kept but whose documentation changed: their columns' properties
        relabel = sorted(uid for uid in changed_meta if uid in self.reuse or uid in carried)
        removed = [uid for uid in self.states if uid not in p.nodes]

        existing = self.graph.list_model_relationships([self._mkey(u) for u in owners + removed + relabel])
        relabel_keys = {self._mkey(u) for u in relabel}
        current: dict[tuple, dict[str, Any]] = {}
        stored_columns: dict[str, list[tuple[Any, str]]] = {}
        stored_lineage: dict[str, dict[str, dict[str, Any]]] = {}
        for r in existing:
            if r["kind"] == "has":
                k = ("has", r["model"], r["a"])
                r["same"] = _stored(r["props"])
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

        desired: dict[tuple, dict[str, Any]] = {}
        for uid in owners:
            self._desired_for(uid, desired)
        for uid in relabel:
            mkey = self._mkey(uid)
            names = [key[len(mkey) + 1 :] for _, key in sorted(stored_columns.get(mkey, []))]
            self._desired_columns(uid, names, desired, stored_lineage.get(mkey))

        to_close = [r["id"] for k, r in current.items() if k not in desired or desired[k].get("same") != r.get("same")]
        closed_ids = set(to_close)
        to_create = {k: v for k, v in desired.items() if k not in current or current[k]["id"] in closed_ids}

        # nodes: identity only, for nodes new to the build (or all of them, over another layout)
        model_rows = [
            {"node": _model_identity(name, n.unique_id, n.display_name, n.resource_type)}
            for n in p.nodes.values()
            if self.rewrite_nodes or n.unique_id not in self.states
        ]
        model_keys = {r["node"]["key"] for r in model_rows}
        # endpoints of new edges that no model of this build has (yet) must exist as nodes too
        has_keys = {k[2] for k in to_create if k[0] == "has"}
        column_rows: dict[str, dict[str, Any]] = {}
        for k, v in to_create.items():
            for uid, col in v.get("endpoints", ()):
                key = self._ckey(uid, col)
                if key not in column_rows and key not in has_keys:
                    column_rows[key] = {"node": self._column_identity(uid, col)}
            if k[0] == "depends_on" and k[2] not in model_keys and v["parent_uid"] not in p.nodes:
                parent_uid = v["parent_uid"]
                model_keys.add(k[2])
                label = ".".join(parent_uid.split(".")[2:]) or parent_uid
                model_rows.append({"node": _model_identity(name, parent_uid, label, parent_uid.split(".")[0])})
        has_rows = [v["row"] for k, v in to_create.items() if k[0] == "has"]

        self.say(
            f"writing {len(model_rows)} models, {len(column_rows) + len(has_rows)} columns, {len(to_create)} new relationships, "
            f"closing {len(to_close)}"
        )
        g = self.graph
        bid = self.build_id
        g.write_batches("write/merge_models", model_rows)
        g.write_batches("write/merge_columns", list(column_rows.values()))
        closed = g.close_relationships(bid, to_close)
        self.checkpoint("close")
        rows: dict[str, list[dict[str, Any]]] = {"has": [], "feeds": [], "conditions": [], "depends_on": []}
        for k, v in to_create.items():
            rows[k[0]].append(v["row"])
        created = 0
        created += g.write_batches(
            "write/merge_model_columns", _columns_by_model(has_rows), weight=_column_count,
            project=name, build_id=bid, rewrite=self.rewrite_nodes,
        )  # fmt: skip
        self.beat()
        created += g.write_batches("write/create_depends_on", rows["depends_on"], build_id=bid)
        feeds_written = g.write_batches("write/create_feeds", _feeds_by_column(rows["feeds"]), weight=_up_count, build_id=bid)
        self.beat()
        conditions_written = g.write_batches("write/create_conditions", rows["conditions"], build_id=bid)
        self.beat()
        created += feeds_written + conditions_written
        self.checkpoint("relationships")

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
                lin = self.lineages.get(uid)
                failed = lin is not None and lin.status == ModelStatus.FAILED
                state = {
                    "status": lin.status.value if lin else "resolved",
                    "reason": lin.reason if lin else None,
                    "lineage_hash": None if failed else fp.lineage_hash,
                    "sql_hash": fp.sql_hash,
                    "carried_over": uid in carried,
                    "error": lin.reason if failed else None,
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
            state_rows.append({"model": self._mkey(uid), "state": _present({**state, **_model_props(node), "meta_hash": fp.meta_hash})})
        for uid in removed:
            state_close.append(self.states[uid]["state_id"])
        closed += g.close_relationships(bid, state_close)
        created += g.write_batches("write/create_model_states", state_rows, project=name, build_id=bid)

        # summary
        all_models = p.models()
        summary.recomputed_models = sorted(n.unique_id for n in all_models if n.unique_id not in self.reuse)
        summary.models = ModelCounts(
            total=len(all_models),
            reused=len(self.reuse),
            recomputed=len(all_models) - len(self.reuse),
            failed=sum(1 for lin in self.lineages.values() if lin.status == ModelStatus.FAILED),
            carried_over=len(carried),
            removed=len(removed),
        )
        statuses: dict[str, int] = {}
        for n in all_models:
            if n.unique_id in self.lineages:
                st = self.lineages[n.unique_id].status.value
            else:
                st = (self.states.get(n.unique_id) or {}).get("status") or "resolved"
            statuses[st] = statuses.get(st, 0) + 1
        summary.statuses = dict(sorted(statuses.items()))
        feeds_closed = sum(1 for k, r in current.items() if k[0] == "feeds" and r["id"] in closed_ids)
        summary.edges = EdgeCounts(
            written=feeds_written, closed=feeds_closed, total=self.previous_edges + feeds_written - feeds_closed
        )
        summary.conditions_written = conditions_written
        summary.relationships_written = created
        summary.relationships_closed = closed
        summary.columns = sum(len(n.columns) for n in all_models)
        return summary

    def _column_identity(self, uid: str, col: str) -> dict[str, Any]:
        node = self.project.nodes.get(uid)
        return _column_identity(self.project.name, uid, node.display_name if node else uid, col)

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
            props = _column_props(c, col, i) if c is not None else {"position": i}
            if lineage and col in lineage:
                props.update(lineage[col])
                if props.get("kind") == "derived" and is_masked(props.get("expr"), dialect, self.masking):
                    props["masked"] = True
            identity = self._column_identity(uid, col)
            desired[("has", mkey, identity["key"])] = {
                "row": {"model": mkey, "key": identity["key"], "node": identity, "props": props},
                "same": props,
            }

    def _desired_for(self, uid: str, desired: dict[tuple, dict[str, Any]]) -> None:
        node = self.project.nodes[uid]
        mkey = self._mkey(uid)
        if node.resource_type in ("source", "seed"):
            self._desired_columns(uid, [c.key_name(self.project.dialect) for c in node.columns], desired)
            return
        lin = self.lineages[uid]
        analyzed = {c.name: _column_lineage_props(c) for c in lin.columns}
        names = [c.name for c in lin.columns] or [c.key_name(self.project.dialect) for c in node.columns]
        self._desired_columns(uid, names, desired, analyzed)
        for c in lin.columns:
            down = self._ckey(uid, c.name)
            kind = _VALUE[c.kind]
            for src in c.sources:
                up = self._ckey(src.unique_id, src.column)
                desired[("feeds", up, down)] = {
                    "row": {"up": up, "down": down, "expr": c.expr, "type": kind, "resolved": c.resolved, "model": mkey},
                    "endpoints": [(src.unique_id, src.column)],
                    "same": (c.expr, kind, c.resolved),
                }
        for cond in lin.conditions:
            ckey = self._ckey(cond.column.unique_id, cond.column.column)
            clause = _VALUE[cond.clause]
            desired[("conditions", ckey, mkey, clause)] = {
                "row": {"column": ckey, "model": mkey, "clause": clause},
                "endpoints": [(cond.column.unique_id, cond.column.column)],
            }
        for dep in node.depends_on:
            if dep == uid:
                continue
            pkey = self._mkey(dep)
            desired[("depends_on", mkey, pkey)] = {"row": {"child": mkey, "parent": pkey}, "parent_uid": dep}
