"""Builds over time: list them, diff two of them, and forget old ones.

Reads and writes go through :class:`~catalog.store.graph.Graph` (Cypher in ``cypher/``).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel

from catalog.errors import Ambiguous, NotFound, StoreError
from catalog.store.keys import unscoped_key
from catalog.store.graph import Graph


class BuildInfo(BaseModel):
    id: int
    project: str
    status: str
    started_at: str | None = None
    finished_at: str | None = None
    dialect: str | None = None
    models_total: int | None = None
    models_reused: int | None = None
    models_recomputed: int | None = None
    models_failed: int | None = None
    edges_total: int | None = None
    edges_written: int | None = None
    edges_closed: int | None = None
    manifest_sha256: str | None = None
    sqlglot_version: str | None = None
    catalog_version: str | None = None
    error: str | None = None
    timings: dict[str, float] = {}
    # where the build's inputs came from (catalog.builds.provenance); None on builds stored before
    git_commit: str | None = None
    git_branch: str | None = None
    git_dirty: bool | None = None
    git_source: str | None = None
    git_note: str | None = None
    invocation_id: str | None = None
    generated_at: str | None = None  # dbt's, from the manifest

    @property
    def commit_label(self) -> str:
        """The commit's first 10 characters, ``+dirty`` when the tree had changes; empty when not known."""
        if not self.git_commit:
            return ""
        return self.git_commit[:10] + ("+dirty" if self.git_dirty else "")

    @classmethod
    def from_row(cls, b: dict[str, Any]) -> "BuildInfo":
        data = dict(b)
        data["timings"] = json.loads(data.get("timings") or "{}")
        return cls.model_validate({k: v for k, v in data.items() if k in cls.model_fields})


class EdgeChange(BaseModel):
    change: str  # added | removed | changed
    kind: str  # feeds | conditions
    up: str  # <unique_id>.<column>
    down: str  # <unique_id>.<column> for feeds, the model's unique_id for conditions
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


class StatusChange(BaseModel):
    unique_id: str
    before: str | None  # None: the model is new
    after: str | None  # None: the model was removed
    reason: str | None = None


class ColumnDiff(BaseModel):
    change: str  # added | removed | changed
    unique_id: str
    column: str
    aspects: list[str] = []  # changed: data_type, description, tags, meta, pii
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


COLUMN_ASPECTS = ("data_type", "description", "tags", "meta", "pii")


class BuildDiff(BaseModel):
    project: str
    from_build: int
    to_build: int
    edges: list[EdgeChange]
    statuses: list[StatusChange]
    columns: list[ColumnDiff] = []

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.edges:
            k = f"{e.kind}_{e.change}"
            out[k] = out.get(k, 0) + 1
        for c in self.columns:
            k = f"columns_{c.change}"
            out[k] = out.get(k, 0) + 1
        out["status_changes"] = len(self.statuses)
        return dict(sorted(out.items()))


def list_builds(graph: Graph, project: str) -> list[BuildInfo]:
    return [BuildInfo.from_row(r["build"]) for r in graph.read("read/list_builds", project=project)]


def finished_builds(graph: Graph, project: str) -> list[BuildInfo]:
    """The builds of ``project`` that can be read (active or superseded), newest first."""
    builds = [b for b in list_builds(graph, project) if b.status in ("active", "superseded")]
    if not builds:
        raise NotFound(f"project {project!r} has no finished build")
    return builds


class BuildAt(str):
    """A commit (prefix) or time naming a build (``--at``), never read as a build id."""


_COMMIT_PREFIX = re.compile(r"[0-9a-f]{4,40}")
_DATE_FIRST = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_time(text: str) -> datetime | None:
    """``2026-11-01``, ``2026-11-01T14:30``, ``2026-11-01 14:30:00+01:00``, ``...Z`` as an aware
    time (UTC when no offset is given; a date is its first moment); None for anything else."""
    text = text.strip()
    if not _DATE_FIRST.match(text):
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _finished_at(b: BuildInfo) -> datetime | None:
    return parse_time(b.finished_at) if b.finished_at else None


def build_at(graph: Graph, project: str, ref: str) -> int:
    """The build ``ref`` names by its commit or a time: the newest finished build of the commit
    (a prefix of at least 4 hex digits), else the build that was active at that time (the last
    one to become active at or before it)."""
    text = ref.strip()
    builds = finished_builds(graph, project)
    prefix = text.lower()
    if _COMMIT_PREFIX.fullmatch(prefix):
        hits = [b for b in builds if b.git_commit and b.git_commit.startswith(prefix)]
        commits = sorted({b.git_commit or "" for b in hits})
        if len(commits) > 1:
            raise Ambiguous(f"commit {text!r} is ambiguous in project {project!r}: {', '.join(c[:12] for c in commits)}; give more of it")
        if hits:
            return hits[0].id
    when = parse_time(text)
    if when is None:
        if _COMMIT_PREFIX.fullmatch(prefix):
            raise NotFound(f"no finished build of project {project!r} was built from a commit starting with {text!r} (see `catalog builds`)")
        raise NotFound(f"{text!r} is neither a build id, a commit (4 or more hex digits) nor a time (2026-11-01, 2026-11-01T14:30:00Z)")
    active_then = [(at, b.id) for b in builds if (at := _finished_at(b)) is not None and at <= when]
    if not active_then:
        first = min((b.finished_at or "" for b in builds), default="")
        raise NotFound(f"no build of project {project!r} was active at {when.isoformat()}: the first became active at {first}")
    return max(active_then)[1]


def named_build(graph: Graph, project: str, ref: str) -> int:
    """The build ``--build`` names: its id, or a commit (prefix) or time (:func:`build_at`). Digits
    are a build id when the project has that build; otherwise a commit prefix of only digits
    (one in 25 short commit hashes), and when no commit matches either, the build id again, whose
    error then says there is no such build."""
    text = ref.strip()
    if text.isdigit() and (len(text) < 4 or any(b.id == int(text) for b in finished_builds(graph, project))):
        return int(text)
    try:
        return build_at(graph, project, text)
    except NotFound:
        if text.isdigit():
            return int(text)
        raise


def visible(row: dict[str, Any], build: int) -> bool:
    """Whether a relationship (its ``since`` and ``until``) is seen by ``build``."""
    return row["since"] <= build and (row.get("until") is None or row["until"] > build)


def diff_builds(graph: Graph, project: str, from_build: int | None = None, to_build: int | None = None) -> BuildDiff:
    """What changed from one build to another (defaults: the previous finished build to the active one)."""
    builds = [b for b in list_builds(graph, project) if b.status in ("active", "superseded")]
    if not builds:
        raise NotFound(f"project {project!r} has no finished build")
    ids = sorted(b.id for b in builds)
    active = next((b.id for b in builds if b.status == "active"), ids[-1])
    to_build = to_build if to_build is not None else active
    if from_build is None:
        earlier = [i for i in ids if i < to_build]
        if not earlier:
            raise NotFound(f"build {to_build} is the first build of {project!r}: nothing to diff against")
        from_build = earlier[-1]
    for b in (from_build, to_build):
        if b not in ids:
            raise NotFound(f"project {project!r} has no finished build {b} (see `catalog builds`)")
    lo, hi = sorted((from_build, to_build))
    rows = graph.read("read/find_build_edge_changes", project=project, from_build=lo, to_build=hi)

    before: dict[tuple, dict[str, Any]] = {}
    after: dict[tuple, dict[str, Any]] = {}
    for r in rows:
        if r["kind"] == "feeds":
            ident = ("feeds", unscoped_key(r["up"], project), unscoped_key(r["down"], project))
            props = {"expr": r["expr"], "type": r["type"], "resolved": r["resolved"]}
        else:
            ident = ("conditions", unscoped_key(r["up"], project), unscoped_key(r["model"], project), r["clause"])
            props = {"clause": r["clause"]}
        if visible(r, from_build):
            before[ident] = props
        if visible(r, to_build):
            after[ident] = props
    edges: list[EdgeChange] = []
    for ident in sorted(set(before) | set(after)):
        b, a = before.get(ident), after.get(ident)
        if b == a:
            continue
        change = "added" if b is None else "removed" if a is None else "changed"
        edges.append(EdgeChange(change=change, kind=ident[0], up=ident[1], down=ident[2], before=b, after=a))

    state_rows = graph.read("read/find_build_status_changes", project=project, from_build=lo, to_build=hi)
    old: dict[str, dict[str, Any]] = {}
    new: dict[str, dict[str, Any]] = {}
    for r in state_rows:
        if visible(r, from_build):
            old[r["unique_id"]] = r
        if visible(r, to_build):
            new[r["unique_id"]] = r
    statuses = []
    for uid in sorted(set(old) | set(new)):
        o, n = old.get(uid), new.get(uid)
        so, sn = (o or {}).get("status"), (n or {}).get("status")
        if so != sn:
            statuses.append(StatusChange(unique_id=uid, before=so, after=sn, reason=(n or {}).get("reason")))
    columns = _column_changes(graph, project, from_build, to_build, lo, hi)
    return BuildDiff(project=project, from_build=from_build, to_build=to_build, edges=edges, statuses=statuses, columns=columns)


def _column_changes(graph: Graph, project: str, from_build: int, to_build: int, lo: int, hi: int) -> list[ColumnDiff]:
    """Columns added, removed, or whose type, documentation, tags or PII flag changed."""
    old: dict[tuple[str, str], dict[str, Any]] = {}
    new: dict[tuple[str, str], dict[str, Any]] = {}
    for r in graph.read("read/find_build_column_changes", project=project, from_build=lo, to_build=hi):
        props = {k: r[k] for k in COLUMN_ASPECTS}
        if visible(r, from_build):
            old[(r["unique_id"], r["column"])] = props
        if visible(r, to_build):
            new[(r["unique_id"], r["column"])] = props
    out = []
    for ident in sorted(set(old) | set(new)):
        b, a = old.get(ident), new.get(ident)
        if b is None or a is None:
            out.append(ColumnDiff(change="added" if b is None else "removed", unique_id=ident[0], column=ident[1], before=b, after=a))
            continue
        aspects = [k for k in COLUMN_ASPECTS if (b[k] or None) != (a[k] or None)]
        if aspects:
            out.append(ColumnDiff(change="changed", unique_id=ident[0], column=ident[1], aspects=aspects, before=b, after=a))
    return out


class GcResult(BaseModel):
    project: str
    kept: list[int]
    builds_deleted: int
    relationships_deleted: int
    nodes_deleted: int  # model and column nodes no kept build sees
    # builds kept because a stored build of another project reads them (dbt Mesh), as
    # {build id: ["finance=7", ...]} (the consumer project and its build)
    read_by: dict[int, list[str]] = {}


def consumer_reads(graph: Graph, project: str) -> dict[int, list[str]]:
    """The builds of ``project`` that stored builds of other projects read (their recorded
    ``Build.upstream``): {build id: ["finance=7", ...]}."""
    out: dict[int, list[str]] = {}
    for r in graph.read("read/list_builds_read_by_consumers", project=project):
        out.setdefault(int(r["build_id"]), []).append(f"{r['consumer']}={r['consumer_build']}")
    return out


def collect_garbage(graph: Graph, project: str, keep: int) -> GcResult:
    """Keep the ``keep`` newest finished builds (the active one always) and every build that a
    stored build of another project reads, delete the rest: what any kept build of any
    project sees stays as it was."""
    builds = [b for b in list_builds(graph, project) if b.status in ("active", "superseded")]
    if not builds:
        raise NotFound(f"project {project!r} has no finished build")
    newest = sorted(builds, key=lambda b: b.id, reverse=True)[: max(1, keep)]
    active = [b for b in builds if b.status == "active"]
    own = {b.id for b in newest} | {b.id for b in active}
    read_by = {b: who for b, who in consumer_reads(graph, project).items() if b not in own}
    # deletion is by age (what ended before the oldest kept build): every build from the oldest
    # one read by a consumer on stays
    kept = sorted(b.id for b in builds if b.id >= min(own | set(read_by)))
    keep_from = kept[0]
    graph.write("write/set_history_from", project=project, keep_from=keep_from)  # first: `history` says what it no longer knows
    rels = graph.run_autocommit("write/delete_old_relationships", project=project, keep_from=keep_from)
    deleted = graph.write("write/delete_old_builds", project=project, keep_from=keep_from)
    nodes = graph.run_autocommit("write/delete_unseen_nodes", project=project)
    return GcResult(
        project=project,
        kept=kept,
        builds_deleted=int(deleted[0]["deleted"]) if deleted else 0,
        relationships_deleted=int(rels[0]["deleted"]) if rels else 0,
        nodes_deleted=int(nodes[0]["deleted"]) if nodes else 0,
        read_by=read_by,
    )


class ForgetResult(BaseModel):
    project: str
    nodes_deleted: int
    builds_deleted: int


def check_project(graph: Graph, project: str) -> str:
    """The project when the database holds it, else NotFound naming the ones it holds."""
    if graph.read("read/find_project", project=project):
        return project
    names = [r["name"] for r in graph.read("read/list_projects")]
    close = difflib.get_close_matches(project, names, n=3, cutoff=0.6)
    held = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    hint = f"; did you mean {', '.join(close)}?" if close else (f"; it holds {held}" if names else "")
    raise NotFound(f"no project {project!r} in this database{hint}")


def forget_project(graph: Graph, project: str, progress: Callable[[str], None] | None = None) -> ForgetResult:
    """Delete everything stored for one project; other projects are untouched. Refused while
    a stored build of another project reads one of its builds (dbt Mesh): forgetting it would
    change what that build shows."""
    say = progress or (lambda _msg: None)
    check_project(graph, project)
    readers = sorted({who for whos in consumer_reads(graph, project).values() for who in whos})
    if readers:
        projects = sorted({r.partition("=")[0] for r in readers})
        named = ", ".join(f"{p} build {b}" for p, _, b in (r.partition("=") for r in readers))
        first = " ".join(f"`catalog forget {p} --yes`" for p in projects)
        raise StoreError(
            f"{project} is read by builds of other projects ({named}): forgetting it would change what they show; "
            f"forget {'that project' if len(projects) == 1 else 'those projects'} first ({first}), then {project}"
        )
    try:
        say(f"Deleting the columns of {project}…")
        columns = graph.run_autocommit("write/delete_project_columns", project=project)
        say(f"Deleting the models and builds of {project}…")
        nodes = graph.run_autocommit("write/delete_project_nodes", project=project)
        builds = graph.write("write/delete_project_builds", project=project)
    except StoreError as e:  # the batches done so far stay deleted: the same command finishes the rest
        raise type(e)(f"{e}; {project} is partly forgotten: run `catalog forget {project} --yes` again to finish") from e
    return ForgetResult(
        project=project,
        nodes_deleted=sum(int(rows[0]["deleted"]) for rows in (columns, nodes) if rows),
        builds_deleted=int(builds[0]["deleted"]) if builds else 0,
    )
