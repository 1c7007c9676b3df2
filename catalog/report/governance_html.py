"""The governance report as one self-contained HTML file: inline CSS, a few lines of inline
JavaScript (table filters) and inline SVG pictures. Nothing is fetched when it is opened."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from catalog import __version__
from catalog.report.governance_model import NOTES, STATUSES, Col, GovernanceReport, Inheritable
from catalog.report.governance_render import (
    DEFAULT_MAX_ROWS,
    TREND_HEADER,
    bi_line,
    bi_rows,
    capped,
    has_bi,
    path_text,
    summary_lines,
    tests_line,
    trend_rows,
    untested_rows,
)
from catalog.report.limits import TableRows, cut
from catalog.report.governance_svg import render_picture, render_trends

FILTER_FROM = 12  # tables with more rows than this get a filter box

CSS = """
:root { --fg: #1a202c; --muted: #5a6578; --line: #e2e8f0; --bg: #f7fafc; --accent: #2b6cb0;
        --resolved: #2f855a; --partial: #d69e2e; --unresolved: #c53030; --failed: #742a2a; --pii: #c53030; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header { background: #1a365d; color: #fff; padding: 20px 32px 12px; }
header h1 { margin: 0 0 4px; font-size: 22px; }
header .meta { margin: 0 0 10px; color: #cbd5e0; }
nav a { color: #bee3f8; margin-right: 16px; text-decoration: none; font-size: 13px; }
nav a:hover { text-decoration: underline; }
main { padding: 8px 32px 40px; max-width: 1400px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 8px 20px 16px; margin: 18px 0; }
h2 { font-size: 18px; margin: 12px 0 6px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
p.note { color: var(--muted); margin: 4px 0 12px; max-width: 1000px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; }
.card .what { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 14px; margin-top: 2px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 4px; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #edf2f7; font-weight: 600; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
a.explore { color: inherit; text-decoration: underline dotted #2b6cb0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.status { display: inline-block; padding: 0 8px; border-radius: 10px; color: #fff; font-size: 12px; }
.status.resolved { background: var(--resolved); } .status.partial { background: var(--partial); }
.status.unresolved { background: var(--unresolved); } .status.failed { background: var(--failed); }
.bar { display: flex; height: 14px; border-radius: 7px; overflow: hidden; background: var(--line); margin: 8px 0 4px; max-width: 720px; }
.bar span { display: block; height: 100%; }
.bar .resolved { background: var(--resolved); } .bar .partial { background: var(--partial); }
.bar .unresolved { background: var(--unresolved); } .bar .failed { background: var(--failed); }
.bar .no_upstream { background: #68d391; } .bar .untraced { background: #a0aec0; }
.legend-inline span { margin-right: 14px; font-size: 12px; color: var(--muted); }
.legend-inline i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
.flag { color: var(--pii); font-weight: 600; }
.badge { display: inline-block; border: 1px solid var(--pii); color: var(--pii); border-radius: 3px; font-size: 11px; padding: 0 4px; }
.scope-all { background: #fffaf0; border: 1px solid #f6ad55; border-radius: 6px; padding: 6px 10px; }
.empty { color: var(--muted); font-style: italic; }
.more { color: var(--muted); font-style: italic; margin: 4px 0; }
input.filter { display: none; }
body.js input.filter { display: inline-block; margin: 4px 0; padding: 4px 8px; width: 320px; border: 1px solid #cbd5e0; border-radius: 4px; font: inherit; }
figure { margin: 12px 0 20px; }
figcaption { color: var(--muted); font-size: 13px; margin-bottom: 6px; }
.picture { overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
svg.lineage text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; fill: #1a202c; }
svg.lineage .legend text, svg.lineage text.layer { font-family: -apple-system, "Segoe UI", Roboto, Arial, sans-serif; font-size: 12px; fill: #5a6578; }
svg.lineage .node rect { fill: #fff; stroke: #718096; stroke-width: 1.2; }
svg.lineage .node.focus rect { fill: #fefcbf; stroke: #b7791f; stroke-width: 2.4; }
svg.lineage .node.more rect { fill: #f7fafc; stroke-dasharray: 4 3; }
svg.lineage .node text.model { font-size: 10.5px; fill: #5a6578; }
svg.lineage .node text.column { font-weight: 600; }
svg.lineage .node.more text { fill: #5a6578; font-style: italic; }
svg.lineage rect.pii-badge { fill: #fff5f5; stroke: #c53030; stroke-width: 1; }
svg.lineage text.pii-text { font-size: 9.5px; fill: #c53030; font-weight: 700; }
svg.lineage .edge-label { font-size: 10px; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg.lineage g.edge:hover path { stroke-width: 3; }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 24px; }
"""

JS = """
document.body.classList.add('js');
document.querySelectorAll('input.filter').forEach(function (box) {
  var table = document.getElementById(box.dataset.table);
  box.addEventListener('input', function () {
    var q = box.value.toLowerCase();
    table.querySelectorAll('tbody tr').forEach(function (tr) {
      tr.style.display = tr.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none';
    });
  });
});
"""

SECTIONS = [
    ("summary", "Summary"),
    ("coverage", "Lineage coverage"),
    ("pii", "PII propagation"),
    ("undocumented", "Undocumented columns"),
    ("unused", "Unused columns"),
    ("depended-on", "Most depended-on columns"),
    ("inheritable", "Inheritable descriptions"),
    ("tests", "Test coverage"),
    ("pictures", "Lineage pictures"),
    ("bi", "BI fields"),
    ("history", "Trends"),
]


def _e(value: Any) -> str:
    return escape("" if value is None else str(value))


def _code(value: str | None) -> str:
    return f"<code>{_e(value)}</code>" if value else ""


def _status(status: str) -> str:
    return f'<span class="status {_e(status)}">{_e(status)}</span>'


class _Page:
    def __init__(self, max_rows: int, explorer: str | None = None):
        self.parts: list[str] = []
        self.max_rows = max_rows
        self.tables = 0
        self.explorer = explorer

    def col(self, column: Col | None) -> str:
        """A column's name, linked to its lineage in the explorer when one is written beside the report."""
        if column is None:
            return ""
        if self.explorer is None:
            return _code(column.label)
        href = f"{self.explorer}#col={quote(f'{column.unique_id}.{column.name}', safe='')}"
        return f'<a class="explore" href="{_e(href)}" title="lineage in the explorer">{_code(column.label)}</a>'

    def add(self, *html: str) -> None:
        self.parts.extend(html)

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]], empty: str, numeric: Sequence[int] = ()) -> None:
        """Cells are HTML already escaped; ``numeric`` columns are right-aligned."""
        if not rows:
            self.add(f'<p class="empty">{_e(empty)}</p>')
            return
        self.tables += 1
        ident = f"t{self.tables}"
        shown, hidden = capped(rows, self.max_rows)
        if len(shown) > FILTER_FROM:
            self.add(f'<input class="filter" type="search" placeholder="Filter these {len(shown)} rows" data-table="{ident}">')
        heads = "".join(f'<th{" class=num" if i in numeric else ""}>{_e(h)}</th>' for i, h in enumerate(header))
        self.add(f'<table id="{ident}"><thead><tr>{heads}</tr></thead><tbody>')
        for row in shown:
            cells = "".join(f'<td{" class=num" if i in numeric else ""}>{c}</td>' for i, c in enumerate(row))
            self.add(f"<tr>{cells}</tr>")
        self.add("</tbody></table>")
        if hidden:
            self.add(f'<p class="more">… and {hidden} more rows (all of them in <code>--format json</code>).</p>')


def report_html(r: GovernanceReport, max_rows: int = DEFAULT_MAX_ROWS, explorer: str | None = None) -> str:
    """The report; with ``explorer`` (the explorer page's address relative to the report, e.g.
    ``explore.html``) every column it lists links to its lineage there."""
    page = _Page(max_rows, explorer)
    b = r.build
    title = f"Governance report: {r.project}, build {b.id}"
    page.add(
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f'<header><h1>{_e(title)}</h1><p class="meta">build {b.id} · {_e(b.status or "unknown status")} · finished '
        f'{_e(b.finished_at or "-")} · dialect {_e(b.dialect or "-")}</p><nav>'
        + "".join(f'<a href="#{ident}">{_e(name)}</a>' for ident, name in SECTIONS if (ident != "history" or r.history) and (ident != "bi" or has_bi(r)))
        + "</nav></header><main>",
    )
    _summary(page, r)
    _coverage(page, r)
    _pii(page, r)
    _undocumented(page, r)
    _unused(page, r)
    _depended_on(page, r)
    _inheritable(page, r)
    _tests(page, r)
    _pictures(page, r)
    if has_bi(r):
        _bi(page, r)
    if r.history:
        _trends(page, r)
    page.add(
        "</main>",
        f"<footer>Made by catalog {_e(__version__)} from build {b.id} of project {_e(r.project)} "
        "(<code>catalog report --format json</code> gives the same data for scripts).</footer>",
        f"<script>{JS}</script>",
        "</body></html>",
    )
    return "\n".join(page.parts) + "\n"


def _section(page: _Page, ident: str, note: str | None = None) -> None:
    name = dict(SECTIONS)[ident]
    page.add(f'<section id="{ident}"><h2>{_e(name)}</h2>')
    if note:
        page.add(f'<p class="note">{_e(note)}</p>')


def _summary(page: _Page, r: GovernanceReport) -> None:
    _section(page, "summary")
    page.add('<div class="cards">')
    for what, value in summary_lines(r):
        page.add(f'<div class="card"><div class="what">{_e(what)}</div><div class="value">{_e(value)}</div></div>')
    page.add("</div></section>")


def _bar(parts: Sequence[tuple[str, int]], total: int, labels: dict[str, str] | None = None) -> str:
    """A stacked bar of ``parts`` (CSS class, count); ``labels``: what a class is called, when not its name."""
    if not total:
        return ""
    named = {cls: (labels or {}).get(cls, cls.replace("_", " ")) for cls, _ in parts}
    spans = "".join(
        f'<span class="{cls}" style="width:{100.0 * n / total:.2f}%" title="{_e(named[cls])}: {n}"></span>'
        for cls, n in parts if n
    )
    legend = "".join(
        f'<span><i class="{cls}" style="background:var(--{cls}, {"#68d391" if cls == "no_upstream" else "#a0aec0"})"></i>'
        f'{_e(named[cls])} {n}</span>'
        for cls, n in parts
    )
    return f'<div class="bar">{spans}</div><div class="legend-inline">{legend}</div>'


def _coverage(page: _Page, r: GovernanceReport) -> None:
    cov, t = r.coverage, r.coverage.totals
    _section(page, "coverage", NOTES["coverage"])
    page.add(f"<h3>Models ({t.models} analyzed; {t.sources} sources and {t.seeds} seeds not counted)</h3>")
    page.add(_bar([(s, t.by_status.get(s, 0)) for s in STATUSES], t.models))
    page.add(f"<h3>Columns ({t.columns})</h3>")
    page.add(_bar([("resolved", t.resolved), ("no_upstream", t.no_upstream), ("unresolved", t.unresolved),
                   ("untraced", t.untraced)], t.columns))
    page.add("<h3>Per model</h3>")
    page.table(
        ["model", "type", "materialized", "status", "columns", "resolved", "no upstream", "unresolved", "untraced", "reason"],
        [
            (_code(m.name), _e(m.resource_type), _e(m.materialized), _status(m.status) + (" carried over" if m.carried_over else ""),
             str(m.columns), str(m.resolved), str(m.no_upstream), str(m.unresolved), str(m.untraced), _e(m.reason))
            for m in cov.models
        ],
        "No analyzed model in this build.",
        numeric=(4, 5, 6, 7, 8),
    )
    page.add("<h3>Reasons</h3>")
    page.table(["status", "reason", "models"],
               [(_status(g.status), _e(g.reason), ", ".join(_code(n) for n in g.models)) for g in cov.reasons],
               "Every model is resolved.")
    page.add("<h3>Unresolved columns</h3>")
    page.table(
        ["column", "model status", "kind", "reason", "expression"],
        TableRows(cov.unresolved_columns, lambda u: (
            page.col(u.column), _status(u.model_status), _e(u.kind.replace("_", " ")), _e(u.reason), _code(cut(u.expr or "")))),
        "No unresolved column.",
    )
    page.add("</section>")


def _pii(page: _Page, r: GovernanceReport) -> None:
    _section(page, "pii", NOTES["pii"])
    rows: list[tuple[str, ...]] = []
    for p in r.pii.columns:
        tag = _e(", ".join(p.tagged_by))
        if not p.reaches:
            rows.append((page.col(p.column), tag, '<span class="empty">nothing downstream</span>', "", "", "", ""))
        for x in p.reaches:
            rows.append((page.col(p.column), tag, page.col(x.column), str(x.depth), _e(path_text(x.types)), _e(x.effect),
                         "yes" if x.tagged else "no" if x.masked else '<span class="flag">no</span>'))
    page.table(["PII column", "tagged by", "reaches", "depth", "path", "effect", "tagged PII"], rows,
               "No column is tagged PII in dbt.", numeric=(3,))
    if r.pii.untagged:
        page.add("<h3>Reached but not tagged PII</h3>")
        page.add("<p>" + ", ".join(page.col(c) for c in r.pii.untagged) + "</p>")
    if r.pii.masked:
        page.add("<h3>Reached only through a hash or mask</h3>")
        page.add("<p>" + ", ".join(page.col(c) for c in r.pii.masked) + "</p>")
    page.add("</section>")


def _undocumented(page: _Page, r: GovernanceReport) -> None:
    un = r.undocumented
    _section(page, "undocumented")
    if un.scope == "public_models":
        page.add(f'<p class="note">Columns with no description on the {un.public_models} public models (access: public): '
                 f"{len(un.columns)} of {un.columns_in_scope}.</p>")
    else:
        page.add('<p class="note scope-all"><strong>The project has no public model</strong> (access: public): '
                 f"undocumented columns of <strong>all models</strong> are listed instead ({len(un.columns)} of "
                 f"{un.columns_in_scope}).</p>")
    page.table(["column", "access", "data type", "declared in YAML"],
               TableRows(un.columns, lambda u: (page.col(u.column), _e(u.access), _e(u.data_type), "yes" if u.declared else "no")),
               "Every column in scope is documented.")
    page.add("</section>")


def _unused(page: _Page, r: GovernanceReport) -> None:
    _section(page, "unused", NOTES["unused"])
    page.table(["column", "node", "data type", "why", "dependents", "dependents with incomplete lineage"],
               TableRows(r.unused, lambda u: (page.col(u.column), _e(u.resource_type), _e(u.data_type),
                                              _e(u.reason + (": " + ", ".join(u.read_by) if u.read_by else "")), str(u.dependents),
                                              ", ".join(_code(n) for n in u.incomplete_dependents))),
               "Every column of a depended-on model is read.", numeric=(4,))
    page.add("</section>")


def _depended_on(page: _Page, r: GovernanceReport) -> None:
    _section(page, "depended-on", NOTES["depended_on"])
    page.table(["column", "fan-out", "reach (columns)", "models reached", "conditions", "PII", "description"],
               [(page.col(d.column), str(d.fanout), str(d.reach), str(d.models_reached), str(d.conditions),
                 '<span class="badge">PII</span>' if d.pii else "", _e(d.description)) for d in r.depended_on],
               "No column feeds another.", numeric=(1, 2, 3, 4))
    page.add("</section>")


def _inheritable(page: _Page, r: GovernanceReport) -> None:
    _section(page, "inheritable", NOTES["inheritable"])
    def row(i: Inheritable) -> tuple[str, ...]:
        if i.conflict:
            options = "<br>".join(f"{page.col(c.column)}: {_e(c.description)}" for c in i.candidates)
            return (page.col(i.column), f"<em>conflicting candidates:</em><br>{options}", "", "")
        return (page.col(i.column), _e(i.description), page.col(i.source), _e(path_text(i.hops)))

    page.table(["column", "would inherit", "from", "path"], TableRows(r.inheritable, row), "No undocumented column copies a documented one.")
    page.add("</section>")


def _bi(page: _Page, r: GovernanceReport) -> None:
    _section(page, "bi", NOTES["bi"])
    page.add(f"<p>{_e(bi_line(r))}.</p>")
    page.table(["field", "tool", "where", "why unresolved"], bi_rows(r, _code, _e), "Every BI field is resolved.")
    page.add("</section>")


def _trends(page: _Page, r: GovernanceReport) -> None:
    _section(page, "history", NOTES["history"])
    page.add(render_trends(r.history))
    page.table(TREND_HEADER, [tuple(_e(v) for v in row) for row in trend_rows(r)], "No completed build.", numeric=(5, 6))
    page.add("</section>")


def _tests(page: _Page, r: GovernanceReport) -> None:
    t = r.tests
    _section(page, "tests", NOTES["tests"])
    page.add(f"<h3>Columns ({t.columns})</h3>")
    page.add(_bar([("resolved", t.tested), ("untraced", t.columns - t.tested)], t.columns, {"resolved": "tested", "untraced": "untested"}))
    page.add(f"<p>{_e(tests_line(r))}.</p>")
    page.add("<h3>Per model</h3>")
    page.table(["model", "type", "columns", "tested", "%"],
               [(_code(m.name), _e(m.resource_type), str(m.columns), str(m.tested), str(m.tested_pct)) for m in t.models],
               "No node with columns in this build.", numeric=(2, 3, 4))
    page.add("<h3>Untested columns that matter</h3>")
    page.table(["column", "columns downstream", "public or contracted models", "consumers", "consumers reached"],
               untested_rows(r, _code, page.col),
               "Every column that feeds a consumer or a public or contracted model is tested.", numeric=(1, 3))
    page.add("</section>")


def _pictures(page: _Page, r: GovernanceReport) -> None:
    _section(page, "pictures", NOTES["pictures"])
    if not r.pictures:
        page.add('<p class="empty">No column feeds another: nothing to draw.</p>')
    for i, p in enumerate(r.pictures, 1):
        drawn = sum(1 for n in p.nodes if n.column is not None)
        trimmed = " Trimmed: deeper or wider lineage is left out." if p.truncated else ""
        page.add(
            f'<figure id="picture-{i}"><figcaption><strong>{i}. {page.col(p.focus)}</strong>: {drawn} columns, '
            f"{len(p.edges)} edges. Hover an edge for its expression.{trimmed}</figcaption>",
            f'<div class="picture">{render_picture(p, f"pic{i}")}</div></figure>',
        )
    page.add("</section>")
