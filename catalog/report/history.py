"""Build lists and build diffs as tables and Markdown (for a pull-request comment)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from catalog.history import BuildDiff, BuildInfo
from catalog.report import markdown as md

if TYPE_CHECKING:
    from catalog.column_history import NodeHistory


def builds_table(builds: list[BuildInfo]) -> Table:
    t = Table(title="Builds", title_justify="left")
    left = ("status", "started", "commit", "branch")
    for col in ("id", "status", "started", "commit", "branch", "models", "reused", "recomputed", "failed", "edges", "+edges", "-edges", "total s"):
        t.add_column(col, justify="left" if col in left else "right")
    for b in builds:
        t.add_row(
            str(b.id),
            Text(b.status, style="bold green" if b.status == "active" else "red" if b.status == "failed" else ""),
            (b.started_at or "")[:19].replace("T", " "),
            Text(b.commit_label or ("(no git)" if b.git_note and not b.git_commit else ""), style="" if b.git_commit else "dim"),
            Text(b.git_branch or ""),
            *(str(v) if v is not None else "" for v in (b.models_total, b.models_reused, b.models_recomputed, b.models_failed, b.edges_total, b.edges_written, b.edges_closed)),
            f"{b.timings.get('total', 0):.2f}" if b.timings else "",
        )
    return t


def _edge_text(e) -> str:
    if e.kind == "feeds":
        return f"{e.up} -> {e.down}"
    return f"{e.up} conditions {e.down} ({(e.after or e.before or {}).get('clause')})"


def _props(p: dict | None) -> str:
    if not p:
        return ""
    return ", ".join(f"{k}={v}" for k, v in p.items() if v is not None)


def _column_props(p: dict | None, aspects: list[str]) -> str:
    """The changed properties of a column (all of them for an added or removed one)."""
    if not p:
        return ""
    return ", ".join(f"{k}={v}" for k, v in p.items() if v not in (None, "", []) and (not aspects or k in aspects))


def diff_table(d: BuildDiff) -> Table:
    t = Table(title=f"Changes in {d.project} from build {d.from_build} to build {d.to_build}", title_justify="left")
    t.add_column("change")
    t.add_column("edge")
    t.add_column("before")
    t.add_column("after")
    for e in d.edges:
        style = {"added": "green", "removed": "red", "changed": "yellow"}[e.change]
        t.add_row(Text(e.change, style=style), Text(_edge_text(e)), Text(_props(e.before)), Text(_props(e.after)))
    for s in d.statuses:
        t.add_row(Text("status", style="cyan"), Text(s.unique_id), Text(s.before or "(new)"), Text(s.after or "(removed)"))
    for c in d.columns:
        style = {"added": "green", "removed": "red", "changed": "yellow"}[c.change]
        t.add_row(
            Text(f"column {c.change}", style=style),
            Text(f"{c.unique_id}.{c.column}"),
            Text(_column_props(c.before, c.aspects)),
            Text(_column_props(c.after, c.aspects)),
        )
    if not d.edges and not d.statuses and not d.columns:
        t.add_row("", Text("no lineage changes", style="dim"), "", "")
    return t


def diff_markdown(d: BuildDiff) -> str:
    c = d.counts()
    lines = [
        f"### Column lineage changes: build {d.from_build} → {d.to_build} ({md.code(d.project, table=False)})",
        "",
        f"{c.get('feeds_added', 0)} column edges added, {c.get('feeds_removed', 0)} removed, "
        f"{c.get('feeds_changed', 0)} changed; {c.get('conditions_added', 0) + c.get('conditions_removed', 0)} "
        f"condition edges changed; {c['status_changes']} model status changes; "
        f"{c.get('columns_added', 0)} columns added, {c.get('columns_removed', 0)} removed, {c.get('columns_changed', 0)} changed.",
        "",
    ]
    if d.edges:
        rows = [(e.change, md.code(_edge_text(e)), md.code(_props(e.before)), md.code(_props(e.after))) for e in d.edges]
        lines += md.table(["change", "edge", "before", "after"], rows)
    if d.statuses:
        rows = [(md.code(s.unique_id), s.before or "(new)", s.after or "(removed)") for s in d.statuses]
        lines += ["", *md.table(["model", "before", "after"], rows)]
    if d.columns:
        rows = [
            (c.change, md.code(f"{c.unique_id}.{c.column}"), ", ".join(c.aspects), md.code(_column_props(c.before, c.aspects)), md.code(_column_props(c.after, c.aspects)))
            for c in d.columns
        ]
        lines += ["", *md.table(["column", "name", "what", "before", "after"], rows)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- a column's history
def _value(v: Any) -> str:
    if v is None or v == "" or v == []:
        return ""
    if isinstance(v, dict):
        return ", ".join(f"{k}={_value(x)}" for k, x in v.items())
    if isinstance(v, list):
        return ", ".join(map(str, v))
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _history_lines(h: NodeHistory) -> list[tuple[str, str, str, str, str, str, str]]:
    """One line per change: build, commit, time (on a build's first line only), column, what, before, after."""
    out = []
    shown = None  # the build whose head is written
    for row in h.rows:
        for i, c in enumerate(row.changes):
            head = ("", "", "")
            if row.build != shown:
                head = (str(row.build), (row.commit or "")[:10] + ("+dirty" if row.dirty else ""), (row.time or "")[:19].replace("T", " "))
                shown = row.build
            out.append((*head, row.column if i == 0 else "", c.what, _value(c.before), _value(c.after)))
    return out


def history_title(h: NodeHistory) -> str:
    around = f" and the {h.columns - 1} columns it reads" if h.upstream else ""
    return f"History of {h.asked}{around} (project {h.project})"


def history_notes(h: NodeHistory) -> list[str]:
    """What the rows do not say: where history begins, and rows left out by --limit."""
    notes = []
    if h.known_from is not None:
        notes.append(f"known from build {h.known_from} on: `catalog gc` deleted the builds before it")
    if h.total > len(h.rows):
        notes.append(f"{len(h.rows)} of {h.total} changed builds shown (--limit)")
    if not h.total:
        notes.append("no change recorded" + (" since that build" if h.since is not None else ""))
    return notes


def history_table(h: NodeHistory) -> Table:
    t = Table(title=history_title(h), title_justify="left")
    for col in ("build", "commit", "time", "column", "change", "before", "after"):
        t.add_column(col, justify="right" if col == "build" else "left")
    for line in _history_lines(h):
        t.add_row(*(Text(v) for v in line))
    return t


def history_markdown(h: NodeHistory) -> str:
    lines = [f"### {md.text(history_title(h))}", ""]
    rows = [(b, md.code(commit), time, md.code(column), what, md.code(before), md.code(after)) for b, commit, time, column, what, before, after in _history_lines(h)]
    if rows:
        lines += md.table(["build", "commit", "time", "column", "change", "before", "after"], rows)
    lines += ["", *(f"_{md.text(n)}_" for n in history_notes(h))] if history_notes(h) else []
    return "\n".join(lines) + "\n"
