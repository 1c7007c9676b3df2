"""Impact and root-cause answers as tables, JSON, Markdown and dbt selectors."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from catalog.query import Answer, ConsumerHit, Reached
from catalog.report import markdown as md
from catalog.report.limits import capped, cut
from catalog.store.keys import short_label, unscoped_key


def path_text(r: Reached, project: str) -> str:
    if not r.hops:
        return ""
    out = [short_label(r.hops[0].from_key, project)]
    for h in r.hops:
        out.append(f"-[{h.type}]-> {short_label(h.to_key, project)}")
    return " ".join(out)


def model_label(r: Reached) -> str:
    """The model of a reached column, named with its project when it is another one's."""
    return f"{r.column.project}:{r.column.model}" if r.column.project else r.column.model


def answer_dict(a: Answer, kind: str) -> dict[str, Any]:
    return {
        "project": a.project,
        "build_id": a.build_id,
        "question": kind,
        "columns_asked": [c.label for c in a.asked],
        "columns": [
            {
                "column": f"{r.column.unique_id}.{r.column.name}",
                **({"project": r.column.project} if r.column.project else {}),
                "model": r.column.model,
                "unique_id": r.column.unique_id,
                "name": r.column.name,
                "depth": r.depth,
                **({"effect": r.effect} if kind == "impact" else {"resource_type": r.resource_type}),
                "via": short_label(r.via, a.project),
                "path": [
                    {
                        "from": unscoped_key(h.from_key, a.project),
                        "to": unscoped_key(h.to_key, a.project),
                        "type": h.type,
                        "expr": h.expr,
                        "resolved": h.resolved,
                    }
                    for h in r.hops
                ],
            }
            for r in a.columns
        ],
        "conditions": [
            {"column": unscoped_key(c.column, a.project), "model": c.model, "unique_id": c.unique_id, "clause": c.clause}
            for c in a.conditions
        ],
        "models": a.models(),
        **({"consumers": [consumer_dict(c, a.project) for c in a.consumers]} if kind == "impact" else {}),
    }


def consumer_dict(c: ConsumerHit, project: str) -> dict[str, Any]:
    return {
        "kind": c.kind,
        "name": c.name,
        **({"project": c.project} if c.project else {}),
        "unique_id": c.unique_id,
        "depth": c.depth,
        **({"precision": c.precision} if c.precision else {}),
        **{k: v for k, v in (("tool", c.tool), ("tool_id", c.tool_id), ("file", c.file), ("line", c.line), ("status", c.status), ("reason", c.reason)) if v is not None},
        "via": short_label(c.via, project),
        "path": [{"from": unscoped_key(h.from_key, project), "to": unscoped_key(h.to_key, project), "type": h.type, "expr": h.expr} for h in c.hops],
    }


def consumer_path(c: ConsumerHit, project: str) -> str:
    if not c.hops:
        return ""
    return " ".join([short_label(c.hops[0].from_key, project)] + [f"-[{h.type}]-> {short_label(h.to_key, project)}" for h in c.hops])


def consumers_title(a: Answer) -> str:
    bi = any(c.tool for c in a.consumers)
    return "Metrics, exposures, saved queries and BI fields, charts and dashboards hit" if bi else "Metrics, exposures and saved queries hit"


def left_out_note(count: int) -> str:
    return f"{count} more columns not shown: --max-rows 0 shows every row, --format json lists them all"


def answer_table(a: Answer, kind: str, max_rows: int = 0) -> Group:
    asked = ", ".join(c.label for c in a.asked)
    title = f"{'Impact of' if kind == 'impact' else 'Root cause of'} {asked} (project {a.project}, build {a.build_id})"
    t = Table(title=title, title_justify="left")
    t.add_column("model")
    t.add_column("column")
    t.add_column("depth", justify="right")
    t.add_column("effect" if kind == "impact" else "kind")
    t.add_column("path" if kind == "impact" else "how (last hop expression)")
    shown, left_out = capped(a.columns, max_rows)
    for model, group in groupby(shown, key=model_label):
        first = True
        for r in group:
            if kind == "impact":
                effect = Text(r.effect, style="green" if r.safe else "yellow")
                detail = path_text(r, a.project)
            else:
                effect = Text(r.resource_type or "")
                detail = " <- ".join(reversed([cut(h.expr or "") for h in r.hops]))
            t.add_row(model if first else "", r.column.name, str(r.depth), effect, Text(detail))
            first = False
    parts: list[Any] = [t]
    if left_out:
        parts.append(Text(left_out_note(left_out), style="dim"))
    if not a.columns:
        parts.append(Text("nothing found" + (" downstream" if kind == "impact" else " upstream"), style="dim"))
    if a.consumers:
        k = Table(title=consumers_title(a), title_justify="left")
        for col in ("kind", "name", "depth", "precision", "path"):
            k.add_column(col, justify="right" if col == "depth" else "left")
        for hit in a.consumers:
            shown = hit.tool_id or hit.name
            k.add_row(hit.kind, Text(f"{hit.project}:{shown}" if hit.project else shown), str(hit.depth), hit.precision or "", Text(consumer_path(hit, a.project)))
        parts.append(k)
    if a.conditions:
        c = Table(title="Condition lineage (changes which rows, not values)", title_justify="left")
        c.add_column("model")
        c.add_column("clause")
        c.add_column("column")
        for cond in a.conditions:
            c.add_row(Text(cond.model), Text(cond.clause), Text(short_label(cond.column, a.project)))
        parts.append(c)
    return Group(*parts)


def answer_markdown(a: Answer, kind: str, max_rows: int = 0) -> str:
    asked = ", ".join(md.code(c.label, table=False) for c in a.asked)
    lines = [f"### {'Impact of' if kind == 'impact' else 'Root cause of'} {asked}", ""]
    lines.append(f"Project {md.code(a.project, table=False)}, build {a.build_id}: {len(a.columns)} columns in {len(a.models())} models.")
    lines.append("")
    shown, left_out = capped(a.columns, max_rows)
    if kind == "impact":
        rows = [(md.code(model_label(r)), md.code(r.column.name), r.depth, r.effect, md.code(path_text(r, a.project))) for r in shown]
        lines += md.table(["model", "column", "depth", "effect", "path"], rows, "llrll")
    else:
        rows = [
            (md.code(model_label(r)), md.code(r.column.name), r.depth, md.text(r.resource_type), md.code(cut(r.hops[-1].expr or "") if r.hops else ""))
            for r in shown
        ]
        lines += md.table(["model", "column", "depth", "kind", "expression at last hop"], rows, "llrll")
    if left_out:
        lines += ["", f"_{md.text(left_out_note(left_out))}._"]
    if a.consumers:
        rows = [(c.kind, md.code(c.name), c.depth, c.precision or "", md.code(consumer_path(c, a.project))) for c in a.consumers]
        lines += ["", f"{consumers_title(a)}:", "", *md.table(["kind", "name", "depth", "precision", "path"], rows, "llrll")]
    if a.conditions:
        rows = [(md.code(c.model), c.clause, md.code(short_label(c.column, a.project))) for c in a.conditions]
        lines += ["", "Condition lineage:", "", *md.table(["model", "clause", "column"], rows)]
    return "\n".join(lines) + "\n"


def answer_selector(a: Answer) -> str:
    """The models reached, as a dbt selector for ``dbt build -s``."""
    names = sorted({uid.split(".")[-1] for uid in a.models() if uid.startswith(("model.", "snapshot."))})
    return " ".join(names)
