"""``catalog unused``'s answer as a table and as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from catalog.lineage.unused import why_unused
from catalog.report import markdown as md

if TYPE_CHECKING:
    from catalog.lineage.unused import UnusedModel
    from catalog.unused_columns import UnusedAnswer

READERS = (
    "Read means: fed into a column or a BI field, used in a WHERE, JOIN, GROUP BY, HAVING, QUALIFY, window or "
    "ORDER BY, read by a semantic model, metric, exposure (one without meta.referenced_columns reads every column "
    "of its models) or saved query, or by a dbt test."
)
END_MODELS = "End models (nothing in the catalog reads them) are left out: their readers are outside dbt; --end-models counts them too."


def summary(a: UnusedAnswer) -> str:
    c = a.counts()
    return f"{c['columns']} unused columns in {c['models']} models of project {a.project} (build {a.build})."


def notes(a: UnusedAnswer) -> list[str]:
    """What the answer counts as a reader, and what it leaves out."""
    out = [READERS]
    if not a.end_models:
        out.append(END_MODELS)
    incomplete = sorted({d for m in a.models for d in m.incomplete_dependents})
    if incomplete:
        out.append(f"Not fully resolved, so they may read a listed column unseen: {', '.join(incomplete)}.")
    return out


def _model(m: UnusedModel) -> str:
    kind = f" ({m.resource_type})" if m.resource_type != "model" else ""
    return f"{m.model}{kind}"


def unused_table(a: UnusedAnswer) -> Table | Text:
    if not a.models:
        return Text(summary(a))
    t = Table(title=summary(a), title_justify="left")
    for col in ("model", "column", "data type", "why"):
        t.add_column(col)
    for m in a.models:
        for i, c in enumerate(m.columns):
            t.add_row(Text(_model(m) if i == 0 else ""), Text(c.column), Text(c.data_type or ""), Text(why_unused(c)))
    return t


def unused_markdown(a: UnusedAnswer) -> str:
    lines = [f"### Unused columns ({md.code(a.project, table=False)}, build {a.build})", "", md.text(summary(a)), ""]
    rows = [(md.code(_model(m)), md.code(c.column), md.code(c.data_type), md.text(why_unused(c))) for m in a.models for c in m.columns]
    if rows:
        lines += md.table(["model", "column", "data type", "why"], rows)
    lines += [line for n in notes(a) for line in ("", md.text(n))]
    return "\n".join(lines) + "\n"
