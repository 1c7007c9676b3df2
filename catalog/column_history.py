"""``catalog history``: when a column (or metric, exposure, saved query) changed, what it read
then, and which commit the build was made from; with ``upstream``, what changed in everything
it reads, newest first (the root-cause question).

Every stored build is kept as relationships with ``since``/``until``: one read of everything
recorded of the asked nodes (``cypher/read/list_node_history``), and each build that began or
ended one of their relationships compared with the build before it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from catalog.errors import Ambiguous, NotFound
from catalog.history import BuildInfo, build_at, named_build, finished_builds, list_builds, parse_time, visible
from catalog.query import BuildView, ColumnId
from catalog.store.graph import Graph
from catalog.store.keys import short_label, unscoped_key


class Change(BaseModel):
    """One thing about a column (or consumer) that differs from the build before."""

    what: str  # appeared, removed, expression, transformation, data_type, description, tags, pii, meta, resolved,
    # reason, upstream added, upstream removed, status (of its model)
    before: Any = None
    after: Any = None


class HistoryRow(BaseModel):
    """A build in which something about one column changed, with where that build came from."""

    build: int
    commit: str | None = None
    branch: str | None = None
    dirty: bool | None = None
    time: str | None = None  # when the build became active
    column: str  # what changed: orders.amount, shop.orders.id (a source), metric.revenue
    key: str  # its unique id and column (what `diff` names)
    changes: list[Change]


class NodeHistory(BaseModel):
    project: str
    asked: str
    key: str
    read_at: int  # the build that named the column (the active one, else the newest that had it) and, with upstream, what it reads
    upstream: bool = False
    columns: int = 1  # the columns and consumers whose changes are listed (with upstream: it and all it reads)
    known_from: int | None = None  # `catalog gc` deleted the builds before this one: nothing earlier is known
    since: int | None = None
    total: int = 0  # rows before --limit
    rows: list[HistoryRow] = []


# a presence's properties compared between builds, in the order changes are listed, named as users
# know them; any other property too, after these, but not where the column sits or how it is spelled
HISTORY_ASPECTS = {"kind": "transformation", "expr": "expression", "data_type": "data_type", "resolved": "resolved",
                   "reason": "reason", "description": "description", "tags": "tags", "pii": "pii", "meta": "meta"}  # fmt: skip
_NOT_COMPARED = frozenset({"since", "until", "position", "display_name", "declared", "in_catalog", "record"})  # record: a digest of the whole node


def _at(rels: list[dict[str, Any]], build: int) -> dict[str, Any] | None:
    seen = [r for r in rels if visible(r, build)]
    return max(seen, key=lambda r: r["since"]) if seen else None


def _summary(props: dict[str, Any]) -> dict[str, Any]:
    return {HISTORY_ASPECTS[k]: props[k] for k in ("kind", "expr", "data_type") if props.get(k) not in (None, "")}


def _compare(row: dict[str, Any], project: str, old: int, new: int) -> list[Change]:
    """What differs about one node (a ``list_node_history`` row) from build ``old`` to build ``new``."""
    before, after = _at(row["presence"], old), _at(row["presence"], new)
    if before is None or after is None:
        if before is None and after is None:
            return []
        return [Change(what="appeared", after=_summary(after))] if before is None else [Change(what="removed", before=_summary(before or {}))]
    keys = [k for k in HISTORY_ASPECTS if k in before or k in after]
    keys += sorted((set(before) | set(after)) - set(HISTORY_ASPECTS) - _NOT_COMPARED)
    changes = [Change(what=HISTORY_ASPECTS.get(k, k), before=before.get(k), after=after.get(k)) for k in keys if before.get(k) != after.get(k)]
    ups_before = {i["up"] for i in row["inputs"] if visible(i, old)}
    ups_after = {i["up"] for i in row["inputs"] if visible(i, new)}
    changes += [Change(what="upstream added", after=short_label(k, project)) for k in sorted(ups_after - ups_before)]
    changes += [Change(what="upstream removed", before=short_label(k, project)) for k in sorted(ups_before - ups_after)]
    s_before, s_after = _at(row["states"], old), _at(row["states"], new)
    if s_before and s_after and (s_before.get("status"), s_before.get("reason")) != (s_after.get("status"), s_after.get("reason")):
        changes.append(Change(what="status", before=_status(s_before), after=_status(s_after)))
    return changes


def _status(state: dict[str, Any]) -> str:
    return f"{state.get('status')} ({state['reason']})" if state.get("reason") else str(state.get("status"))


def node_changes(row: dict[str, Any], project: str, known_from: int | None) -> dict[int, list[Change]]:
    """Per build, what changed about one node (a ``list_node_history`` row) from the build before:
    only the builds that began or ended one of its relationships can differ. Nothing is said of
    ``known_from`` and earlier builds (what they saw before may have been deleted by gc)."""
    rels = row["presence"] + row["inputs"] + row["states"]
    bounds = sorted({v for r in rels for v in (r["since"], r.get("until")) if v is not None and (known_from is None or v > known_from)})
    out: dict[int, list[Change]] = {}
    for b in bounds:
        changes = _compare(row, project, b - 1, b)  # build ids only grow: b - 1 sees what the build before b saw
        if changes:
            out[b] = changes
    return out


def _find_node(graph: Graph, project: str | None, name: str) -> tuple[BuildView, ColumnId]:
    """The column or consumer ``name`` names in the active build, else in the newest finished
    build that had it (a column since removed or renamed), with that build's view."""
    view = BuildView(graph, project)
    try:
        return view, view.resolve_consumer(name) or view.resolve(name)
    except Ambiguous:
        raise
    except NotFound as missing:
        for b in finished_builds(graph, view.project):
            if b.id >= view.build_id:
                continue
            older = BuildView(graph, view.project, b.id)
            try:
                return older, older.resolve_consumer(name) or older.resolve(name)
            except Ambiguous:
                raise
            except NotFound:
                continue
        raise missing


def node_history(
    graph: Graph, project: str | None, name: str, *, since: str | None = None, limit: int | None = None, upstream: bool = False
) -> NodeHistory:
    """One row per build in which something about the column (or metric, exposure, saved query)
    ``name`` changed, newest first; with ``upstream``, also every column it reads (as the build
    that names it traces them). ``since``: a build id or commit (rows of that build on) or a
    time (rows of the builds that became active then or later)."""
    view, node = _find_node(graph, project, name)
    p = view.project
    labels = {node.key: _label(node)}
    if upstream:
        for r in view.trace([name]).columns:
            labels.setdefault(r.column.key, r.column.label)
    builds = {b.id: b for b in list_builds(graph, p)}
    found = graph.read("read/find_project", project=p)
    known_from = found[0].get("history_from") if found else None
    since_id = None if since is None else _first_since(graph, p, since, builds)
    rows: list[HistoryRow] = []
    for r in graph.read("read/list_node_history", project=p, keys=list(labels)):
        for b, changes in node_changes(r, p, known_from).items():
            if since_id is not None and b < since_id:
                continue
            info = builds.get(b)
            rows.append(HistoryRow(
                build=b, commit=info and info.git_commit, branch=info and info.git_branch, dirty=info and info.git_dirty,
                time=info and (info.finished_at or info.started_at), column=labels[r["key"]], key=unscoped_key(r["key"], p), changes=changes,
            ))  # fmt: skip
    asked = unscoped_key(node.key, p)
    rows.sort(key=lambda row: (-row.build, row.key != asked, row.column))
    return NodeHistory(
        project=p, asked=labels[node.key], key=asked, read_at=view.build_id, upstream=upstream, columns=len(labels),
        known_from=known_from, since=since_id, total=len(rows), rows=rows[:limit] if limit else rows,
    )  # fmt: skip


def _first_since(graph: Graph, project: str, since: str, builds: dict[int, BuildInfo]) -> int:
    """The first build ``--since`` keeps: the build of an id or commit; for a time, the first
    to become active at or after it (none yet: one past the newest)."""
    text = since.strip()
    when = parse_time(text)
    if text.isdigit() or when is None:
        return named_build(graph, project, text)
    later = [b.id for b in builds.values() if b.status in ("active", "superseded") and b.finished_at and (parse_time(b.finished_at) or when) >= when]
    return min(later) if later else max(builds, default=0) + 1


def _label(node: ColumnId) -> str:
    """How a history names what it is about: ``orders.amount``, or ``metric:revenue``."""
    return f"{node.model}:{node.name}" if node.unique_id.split(".")[0] in ("metric", "exposure", "saved_query") else node.label
