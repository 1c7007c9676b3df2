"""``catalog build``: extract -> analyze -> store one versioned, incremental build.

A build is written beside the active one and becomes active in one step at the end.
Per model, a lineage hash (its SQL, the columns of the relations it reads, dialect,
parser and analyzer versions) decides whether the stored lineage can be reused without
parsing; only models whose hash changed are analyzed, and only the relationships that
differ are closed (``until``) or created (``since``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlglot

from catalog import __version__
from catalog.analyze.packed import unpack
from catalog.analyze.project import analyze_project_packed
from catalog.analyze.records import ModelLineage, ModelStatus
from catalog.analyze.dbt_tests import columns_tested
from catalog.artifacts import find_target_dir, read_bytes
from catalog.builds.fingerprints import ANALYZER_VERSION, HASHING_CODE, Fingerprint, fingerprints
from catalog.builds.inputs import compiled_digest, compiled_inputs, quick_metadata, text
from catalog.builds.provenance import read_provenance
from catalog.builds.summary import BuildSummary, build_properties, unchanged_summary
from catalog.builds.writer import LineageWriter, Progress
from catalog.errors import ConnectionLost, StoreError
from catalog.extract import DbtNode, DbtProject, check_dialect, checked_dialect_for, dialect_for, input_warnings, load_project
from catalog.masking import project_masking_functions
from catalog.memory import frozen_heap, paused_gc
from catalog.bi.link import Linked, consumer_lineage
from catalog.bi.sources import bi_digest, bi_folders, read_bi
from catalog.store.consumers import write_consumers
from catalog.store.graph import SCHEMA_VERSION, BuildStart, Graph
from catalog.store.records import node_digests, open_records, same_records, write_records
from catalog.store.upstream import UpstreamBuild, check_pins, foreign_projects, upstream_builds, with_upstream

# bump when what a build stores, or where, changes: a build over an active build of another
# layout reuses no analysis, sets every node's identity again, and writes every relationship
# whose stored properties differ from the new layout's (one already equal is kept)
STORE_VERSION = 4
STALE_HEARTBEAT_SECONDS = 600  # a running build on another host not heard of for this long is dead
HEARTBEAT_SECONDS = 30



def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


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
        upstream: dict[str, int] | None = None,
        bi: list[Path] | None = None,
    ):
        self.graph = graph
        self.bi = list(bi or [])  # --bi folders; catalog.yml beside the project may list more
        self.path = Path(path)
        self.full = full
        self.dialect = dialect
        self.jobs = jobs
        self.say = progress or (lambda _msg: None)
        self.project_name = project_name  # store under this name instead of the dbt project's
        # dbt Mesh: {producer project: build id} pinned (--upstream), and the builds read
        self.pins = {k.lower(): v for k, v in (upstream or {}).items()}
        self.upstream: dict[str, UpstreamBuild] = {}
        # fault injection for crash-safety tests: "<stage>" raises after that stage,
        # "kill:<stage>" kills the process with SIGKILL there, "stop:<stage>" stops it there
        # (SIGSTOP: it goes on at a SIGCONT)
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
        if self.fail_after == f"stop:{name}":
            os.kill(os.getpid(), signal.SIGSTOP)
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
        metadata = quick_metadata(manifest_bytes)
        self.bi = bi_folders(target.parent, self.bi)
        bi_sha = bi_digest(self.bi)
        t = self._stage("read", t)

        project_name = self.project_name or text(metadata.get("project_name"))
        project: DbtProject | None = None
        if project_name is None:
            project = self._load(target)
            project_name = project.name
            t = self._stage("extract", t)

        adapter_type = text(metadata.get("adapter_type"))
        masking = list(project_masking_functions(target.parent, text(metadata.get("project_name")) or project_name))
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
                and sorted(active.get("upstream") or []) == inputs["upstream"]
                and active.get("bi_sha256") == bi_sha
            )

        inputs = {
            "manifest_sha256": manifest_sha,
            "catalog_sha256": catalog_sha,
            "adapter_type": adapter_type,
            "generated_at": text(metadata.get("generated_at")),
            "masking_functions": masking,
            # where the inputs came from (git commit, branch, dirty flag, dbt's invocation id): recorded, never compared
            **read_provenance(target, metadata).model_dump(exclude_none=True),
            # the BI folders read (catalog.bi) and the digest of their files
            **({"bi_sources": [str(f) for f in self.bi], "bi_sha256": bi_sha} if self.bi else {}),
        }
        project = self._read_producers(project_name, project, inputs)
        try:
            build_id, active, schema_version, done = self._start(project_name, inputs, unchanged, project)
        except _NotChecked:  # the inputs changed: read and check them all before writing anything
            project = self._load(target)
            t = self._stage("extract", t)
            project = self._read_producers(project.name, project, inputs)
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

    def _read_producers(self, project_name: str, project: DbtProject | None, inputs: dict[str, Any]) -> DbtProject | None:
        """Find the producer builds this build of ``project_name`` reads (dbt Mesh) and record
        them in ``inputs``: of the projects the manifest's foreign nodes name, or before it is
        parsed (``project`` None) those the active build named (the same ones if it is
        unchanged). Returns ``project`` with their columns."""
        if project is not None:
            check_pins(self.pins, project)
            producers = foreign_projects(project)
        else:
            producers = list((self.graph.find_active_build(project_name) or {}).get("foreign_projects") or [])
        self.upstream = upstream_builds(self.graph, producers, self.pins, consumer=project_name)
        inputs["foreign_projects"] = producers
        inputs["upstream"] = sorted(b.entry for b in self.upstream.values())
        return with_upstream(self.graph, project, self.upstream) if project is not None else None

    def _load(self, target: Path) -> DbtProject:
        manifest_bytes, catalog_bytes = self._inputs
        self._inputs = (None, None)  # parsed once; a large manifest's bytes are not kept for the whole build
        project = load_project(target, dialect=self.dialect, manifest_bytes=manifest_bytes, catalog_bytes=catalog_bytes)
        if self.project_name:
            project = project.model_copy(update={"name": self.project_name})
        return read_bi(project, target.parent, self.bi)

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

        def work(tx: BuildStart):
            state = tx.lock_project(project, now)
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
            tx.create_build(project, build)
            if no_change:
                summary = unchanged_summary(project, state["next_id"], active)
                summary.timings = self.timings
                row = tx.activate(project, state["next_id"], build_properties(summary), _now())
                summary.previous_build_id = row["previous_id"]
                summary.status = "active"
                return state["next_id"], state, dead, summary
            return state["next_id"], state, dead, None

        build_id, state, dead, done = self.graph.build_start(work)
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
        row = self.graph.activate_build(project, build_id, build_properties(summary), _now())
        if row is None:
            raise StoreError(f"build {build_id} was marked failed by another process before it could become active")
        self._stage("activate", t)
        summary.previous_build_id = row["previous_id"]
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
            # the active build's states and records are read while this build's records are digested
            with ThreadPoolExecutor(max_workers=1) as pool:
                stored = pool.submit(self._stored_state, name, active_id)
                digests = node_digests(project)
                states, current_records = stored.result()
            known = self._known_fingerprints(project, active, states, digests, current_records)
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

        # the analysis streams into the store: each part of the lineage is written as it is
        # analyzed and let go, as `catalog lineage --json` writes it
        writer = LineageWriter(self.graph, project, build_id, fps, states, reuse, self.say)
        writer.rewrite_nodes = active is not None and not same_layout
        writer.previous_edges = int((active or {}).get("edges_total") or 0)
        writer.checkpoint = lambda stage: self._stage(stage, time.perf_counter())
        writer.beat = self._heartbeat
        # closed when the writes stop, also on an error: no analysis goes on past them
        with paused_gc(), contextlib.closing(self._analyzed(project, recompute, states)) as lineages:
            summary = writer.write(lineages)
        self._write_consumers(project, writer.outcomes, build_id, digests, current_records)
        summary.dialect = project.dialect
        summary.failures = {uid: reason or "" for uid, (status, reason, _) in sorted(writer.outcomes.items()) if status == ModelStatus.FAILED}
        summary.warnings = input_warnings(project)
        t = self._stage("store", t + self.timings.get("analyze", 0.0))  # the writes' time, without the analysis's
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
        digests: dict[str, str],
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
        for uid in same_records(project, digests, current_records):
            s = states.get(uid)
            if s is None or not s.get("lineage_hash") or not s.get("meta_hash"):
                continue
            known[uid] = Fingerprint(lineage_hash=s["lineage_hash"], sql_hash=s.get("sql_hash"), meta_hash=s["meta_hash"])
        return known

    def _write_consumers(
        self,
        project: DbtProject,
        outcomes: dict[str, tuple[ModelStatus, str | None, list[str]]],
        build_id: int,
        digests: dict[str, str],
        current_records: dict[str, dict[str, Any]],
    ) -> None:
        """Semantic models, metrics, exposures, saved queries and tests (catalog.store.consumers),
        and the records of what the build read (catalog.store.records); ``outcomes``: the
        writer's, whose column names stand for the models this build analyzed."""
        analyzed = {uid: names for uid, (_, _, names) in outcomes.items()}
        semantic, edges = consumer_lineage(project, analyzed)
        linked = Linked(project, analyzed)
        bi_status = {uid: linked.status(uid) for uid in project.bi_fields}
        counts = write_consumers(self.graph, project, semantic, edges, build_id, columns_tested(project, analyzed), bi_status)
        write_records(self.graph, project, build_id, digests, current_records)
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

    def _analyzed(self, project: DbtProject, recompute: list[DbtNode], states: dict[str, Any]) -> Iterator[ModelLineage]:
        """The lineage of each model of ``recompute``, as the analysis gives it (upstream models
        first); its time is the ``analyze`` stage's, the writes between its models are not."""
        if not recompute:
            self._stage("analyze", time.perf_counter())
            return
        packed = analyze_project_packed(
            project,
            jobs=self.jobs,
            progress=self._analysis_progress(),
            only={n.unique_id for n in recompute},
            known_columns={uid: s["columns"] for uid, s in states.items() if s.get("columns")},
        )
        t = time.perf_counter()
        for lineage in packed:
            self.timings["analyze"] = self.timings.get("analyze", 0.0) + time.perf_counter() - t
            yield unpack(lineage)
            t = time.perf_counter()
        self._stage("analyze", t)


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


