"""``catalog check --format md``: a pull-request comment, summary first, details folded."""

from __future__ import annotations

from catalog.check import CheckReport, Finding
from catalog.prune import PruneHop
from catalog.report.markdown import code, table, text
from catalog.store.keys import short_label

LIMIT = 60_000  # GitHub refuses comments over 65,536 characters
ICONS = {"breaking": "🔴", "policy": "🟣", "partial": "🟡", "safe": "🟢"}


def hit_summary(f: Finding) -> str:
    """``2 models (orders, customers), 3 columns; metrics: order_total; exposures: sales``."""
    parts = []
    models = f.hit_models()
    columns = [h for h in f.hits if h.kind == "column"]
    if models:
        parts.append(f"{len(models)} model(s) ({', '.join(models[:5])}{', ...' if len(models) > 5 else ''}), {len(columns)} column(s)")
    for kind, label in (("semantic", "semantic"), ("metric", "metrics"), ("exposure", "exposures"), ("saved_query", "saved queries")):
        names = f.hit_names(kind)
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    return "; ".join(parts) or "-"


def path_of(path: tuple[PruneHop, ...]) -> str:
    if not path:
        return ""
    out = [short_label(path[0].from_key)]
    for h in path:
        label = h.type if h.kind == "feeds" else h.clause if h.kind == "conditions" else "rows"
        out.append(f"-[{label}]-> {short_label(h.to_key)}")
    return " ".join(out)


def check_markdown(report: CheckReport, fail_on: str, limit: int = LIMIT) -> str:
    counts = report.counts()
    failing = report.failing(fail_on)  # type: ignore[arg-type]
    head = [
        f"## catalog check: {code(report.project, table=False)}",
        "",
        ("**Blocks the merge**" if failing else "**Passes**") + f" (`--fail-on {fail_on}`): "
        + ", ".join(f"{ICONS[k]} {n} {k}" for k, n in counts.items()),
        "",
    ]
    if not report.findings:
        return "\n".join(head + ["No column changed."])
    rows = []
    shown = report.findings[:500]  # the summary table alone stays well under the limit
    for f in shown:
        change = ", ".join(f.changes) + (f" → {code(f.renamed_to)}" if f.renamed_to else "")
        rows.append([f"{ICONS[f.severity]} {f.severity}", code(f"{f.model}.{f.column}"), change, text(hit_summary(f)), text(f.why)])
    head += table(["class", "column", "change", "hits downstream", "why"], rows)
    if len(shown) < len(report.findings):
        head += ["", f"_{len(report.findings) - len(shown)} more finding(s) not in this table._"]
    if report.removed_models:
        head += ["", "Removed models: " + ", ".join(code(m, table=False) for m in report.removed_models)]
    body = "\n".join(head)
    details = []
    for f in report.findings:
        if not f.hits and not f.detail:
            continue
        lines = ["", f"<details><summary>{text(f.model + '.' + f.column)}: {text(', '.join(f.changes))} ({f.severity}, {len(f.hits)} hit(s))</summary>", ""]
        if f.detail:
            lines += [text(f.detail), ""]
        if f.hits:
            lines += table(
                ["hit", "kind", "lineage", "path"],
                [[code(h.name), h.kind, h.lineage, code(path_of(h.path))] for h in f.hits],
            )
        lines += ["", "</details>"]
        details.append("\n".join(lines))
    note = "\n\n_Cut: {n} more finding(s) not shown; run `catalog check --json` for all._"
    out = body
    for i, d in enumerate(details):
        if len(out) + len(d) + len(note) + 20 > limit:
            return out + note.format(n=len(details) - i)
        out += "\n" + d
    return out
