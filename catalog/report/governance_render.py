"""The governance report as JSON (for scripts) and Markdown (for pull-request comments).

Both carry the same sections in the same order as the HTML report. JSON always holds every
row; Markdown and HTML show at most ``max_rows`` rows per list (0: no limit) and say how many
were left out. The lineage pictures are drawn only in HTML; JSON carries their nodes and
edges, Markdown names their focus columns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from pydantic import BaseModel

from catalog.report import markdown
from catalog.report.governance_model import NOTES, GovernanceReport, Inheritable, UnusedColumn
from catalog.report.json_text import json_text, write_json
from catalog.report.limits import DEFAULT_MAX_ROWS, MD_CHARS, TableRows, capped, cut


def report_dict(r: GovernanceReport) -> dict[str, Any]:
    """Plain JSON-ready data: every section, every row, plus what each section means."""
    return _with_notes(r.model_dump(mode="json"))


def report_json(r: GovernanceReport) -> str:
    """:func:`report_dict` as indented JSON text, ending with a newline (with orjson when
    installed: a large report's tens of MB take a tenth of the time)."""
    return json_text(report_dict(r))


def write_report_json(out: TextIO, parts: dict[str, Any]) -> None:
    """:func:`report_json` of the report of :func:`~catalog.report.governance.report_parts`
    written on ``out`` as its sections are made: each row of a long list is encoded, written
    and let go, so the report of a large build is never whole in memory (nor its text)."""
    write_json(out, _with_notes({name: _plain(value) for name, value in parts.items()}))


def _with_notes(data: dict[str, Any]) -> dict[str, Any]:
    notes = dict(NOTES)
    if not data["history"]:  # a section only when asked for (--history)
        del data["history"], notes["history"]
    if not (data["bi"]["fields"] or data["bi"]["charts"] or data["bi"]["dashboards"]):  # only when the build read BI folders
        del data["bi"], notes["bi"]
    data["notes"] = notes
    return data


def _plain(value: Any) -> Any:
    """A part of the report as ``model_dump(mode="json")`` makes it. An iterator's items are
    the JSON of records already (the long lists are made so), and pass as they are."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Iterator):
        return value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def summary_lines(r: GovernanceReport) -> list[tuple[str, str]]:
    """The headline figures, as (what, value) pairs shared by Markdown and HTML."""
    t = r.coverage.totals
    by = t.by_status
    un = r.undocumented
    conflicts = sum(1 for i in r.inheritable if i.conflict)
    scope = "public models" if un.scope == "public_models" else "all models (no public model)"
    return [
        ("Models analyzed", f"{t.models}: {by.get('resolved', 0)} resolved ({t.models_resolved_pct}%), "
                            f"{by.get('partial', 0)} partial, {by.get('unresolved', 0)} unresolved, {by.get('failed', 0)} failed"),
        ("Columns of analyzed models", f"{t.columns}: {t.resolved} resolved, {t.no_upstream} with no upstream, "
                                       f"{t.unresolved} unresolved, {t.untraced} untraced ({t.columns_resolved_pct}% resolved)"),
        ("PII", f"{len(r.pii.columns)} columns tagged PII reach {len(r.pii.reached)} columns, "
                f"{len(r.pii.untagged)} of them not tagged PII"
                + (f", {len(r.pii.masked)} reached only masked" if r.pii.masked else "")),
        ("Undocumented columns", f"{len(un.columns)} of {un.columns_in_scope} in {un.models_in_scope} {scope}"),
        ("Unused columns", f"{len(r.unused)} that nothing reads, end models aside"),
        ("Inheritable descriptions", f"{len(r.inheritable) - conflicts} columns (+{conflicts} with conflicting candidates)"),
        ("Tested columns", tests_line(r)),
    ] + ([("BI fields", bi_line(r))] if has_bi(r) else [])


def has_bi(r: GovernanceReport) -> bool:
    return bool(r.bi.fields or r.bi.charts or r.bi.dashboards)


def bi_line(r: GovernanceReport) -> str:
    tools = ", ".join(f"{n} {tool}" for tool, n in r.bi.by_tool.items())
    return f"{r.bi.fields} fields ({tools}), {r.bi.charts} charts, {r.bi.dashboards} dashboards; {len(r.bi.unresolved)} fields unresolved"


def bi_rows(r: GovernanceReport, code: Any, text: Any) -> list[tuple[Any, ...]]:
    """The rows of the unresolved BI fields table (Markdown and HTML)."""
    return [(code(u.tool_id), text(u.tool), text(f"{u.file}:{u.line}" if u.line else u.file or ""), text(u.reason)) for u in r.bi.unresolved]


def tests_line(r: GovernanceReport) -> str:
    t = r.tests
    kinds = ", ".join(f"{n} {k}" for k, n in t.by_kind.items())
    return (f"{t.tested} of {t.columns} ({t.tested_pct}%) read by {t.tests} tests ({kinds}); "
            f"{len(t.untested)} untested columns feed metrics, exposures or public or contracted models")


def untested_rows(r: GovernanceReport, code: Any, column: Any) -> list[tuple[Any, ...]]:
    """The rows of the untested-columns table (Markdown and HTML): ``code`` formats a name, ``column`` a column."""
    return [
        (column(u.column), str(u.downstream_columns), ", ".join(code(m) for m in u.protected_models),
         str(len(u.consumers)), ", ".join(code(c) for c in u.consumers))
        for u in r.tests.untested
    ]  # fmt: skip


def path_text(types: Sequence[str]) -> str:
    return " → ".join(types)


# ---------------------------------------------------------------------------- Markdown
class _Md:
    def __init__(self, max_rows: int):
        self.lines: list[str] = []
        self.max_rows = max_rows
        self.sections: list[tuple[str, int]] = []  # (title, its first line) of each ## section
        self.longest = 0  # rows of the longest table

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def section(self, title: str, *lines: str) -> None:
        """A ``## title`` section, then ``lines``."""
        self.sections.append((title, len(self.lines)))
        self.add(f"## {title}", *lines)

    def table(self, header: Sequence[str], rows: Sequence[Sequence[Any]], empty: str, align: str = "") -> None:
        if not rows:
            self.add(f"_{empty}_", "")
            return
        self.longest = max(self.longest, len(rows))
        shown, hidden = capped(rows, self.max_rows)
        self.add(*markdown.table(header, shown, align))
        if hidden:
            self.add("", f"_… and {hidden} more rows (all of them in `--format json`)._")
        self.add("")


MIN_ROWS = 5  # rows per table a report cut to size keeps; past that, it leaves out its last sections


def report_markdown(r: GovernanceReport, max_rows: int = DEFAULT_MAX_ROWS, limit: int = MD_CHARS) -> str:
    """The report in Markdown, for a pull request: at most ``limit`` characters (0: no limit).
    A report too long has fewer rows per table, then loses its last sections, and says so at
    its top."""
    summary = summary_lines(r)  # once: it reads every inheritable description
    md = _markdown(r, max_rows, summary)
    text = "\n".join(md.lines).rstrip() + "\n"
    if not limit or len(text) <= limit:
        return text
    whole = len(text)
    room = limit - 800  # the note saying what was cut
    # the most rows per table that fit (at least MIN_ROWS): the text grows with them
    low, high = MIN_ROWS, min(max_rows or md.longest, md.longest)
    while low < high:
        middle = (low + high + 1) // 2
        if len("\n".join(_markdown(r, middle, summary).lines)) <= room:
            low = middle
        else:
            high = middle - 1
    rows = low
    md = _markdown(r, rows, summary)
    text = "\n".join(md.lines).rstrip() + "\n"
    dropped: list[str] = []
    while len(text) > room and len(md.sections) > 1:
        title, start = md.sections.pop()
        dropped.insert(0, title)
        md.lines = md.lines[:start]
        text = "\n".join(md.lines).rstrip() + "\n"
    cuts = [f"tables show at most {rows} rows each"] if rows < (max_rows or md.longest) else []
    cuts += [f"left out: {', '.join(dropped)}"] if dropped else []
    note = (
        f"_Cut to stay under GitHub's limit ({limit:,} characters; the whole report has {whole:,}): "
        + "; ".join(cuts) + ". `--format html` or `--format json` has everything; `--max-chars 0` gives the whole Markdown._"
    )
    at = 2 if len(md.lines) > 2 else len(md.lines)  # below the title
    md.lines[at:at] = [note, ""]
    text = "\n".join(md.lines).rstrip() + "\n"
    return text if len(text) <= limit else text[: limit - 1] + "\n"


def _markdown(r: GovernanceReport, max_rows: int, summary: list[tuple[str, str]]) -> _Md:
    md = _Md(max_rows)
    b = r.build
    md.add(f"# Governance report: {markdown.text(r.project)}, build {b.id}", "")
    md.add(f"Build {b.id} ({b.status or 'unknown status'}; finished {b.finished_at or '-'}; dialect {markdown.text(b.dialect or '-')}).", "")

    md.section("Summary", "")
    md.table(["figure", "value"], [(markdown.text(k), markdown.text(v)) for k, v in summary], "nothing")

    # coverage
    cov = r.coverage
    md.section("Lineage coverage", "", NOTES["coverage"], "")
    by = cov.totals.by_status
    md.table(["status", "models"], [(s, by[s]) for s in by], "no analyzed models", "lr")
    md.add("### Models", "")
    md.table(
        ["model", "type", "status", "columns", "resolved", "no upstream", "unresolved", "untraced", "reason"],
        [
            (markdown.code(m.name), m.resource_type, m.status + (" (carried over)" if m.carried_over else ""), m.columns, m.resolved,
             m.no_upstream, m.unresolved, m.untraced, markdown.text(m.reason))
            for m in cov.models
        ],
        "no analyzed models",
        "lllrrrrrl",
    )
    md.add("### Reasons", "")
    md.table(["status", "reason", "models"], [(g.status, markdown.text(g.reason), ", ".join(markdown.code(n) for n in g.models)) for g in cov.reasons],
             "every model is resolved")
    md.add("### Unresolved columns", "")
    md.table(
        ["column", "model status", "kind", "reason", "expression"],
        TableRows(cov.unresolved_columns, lambda u: (
            markdown.code(u.column.label), u.model_status, u.kind.replace("_", " "), markdown.text(u.reason), markdown.code(cut(u.expr or "")))),
        "no unresolved column",
    )

    # PII
    md.section("PII propagation", "", NOTES["pii"], "")
    rows: list[tuple[Any, ...]] = []
    for p in r.pii.columns:
        tag = markdown.text(", ".join(p.tagged_by))
        if not p.reaches:
            rows.append((markdown.code(p.column.label), tag, "_nothing downstream_", "", "", "", ""))
        for x in p.reaches:
            rows.append((markdown.code(p.column.label), tag, markdown.code(x.column.label), x.depth, path_text(x.types), x.effect,
                         "yes" if x.tagged else "no" if x.masked else "**no**"))
    md.table(["PII column", "tagged by", "reaches", "depth", "path", "effect", "tagged PII"], rows, "no column is tagged PII",
             "lllrlll")
    if r.pii.untagged:
        md.add("Reached but not tagged PII: " + ", ".join(markdown.code(c.label, table=False) for c in r.pii.untagged[: max_rows or None])
               + (" …" if max_rows and len(r.pii.untagged) > max_rows else ""), "")
    if r.pii.masked:
        md.add("Reached only through a hash or mask: " + ", ".join(markdown.code(c.label, table=False) for c in r.pii.masked[: max_rows or None])
               + (" …" if max_rows and len(r.pii.masked) > max_rows else ""), "")

    # undocumented
    un = r.undocumented
    md.section("Undocumented columns", "")
    if un.scope == "public_models":
        md.add(f"Columns with no description on the {un.public_models} public models (access: public).", "")
    else:
        md.add("**The project has no public model** (access: public): undocumented columns of **all models** are "
               "listed instead.", "")
    md.table(["column", "access", "data type", "declared in YAML"],
             TableRows(un.columns, lambda u: (markdown.code(u.column.label), markdown.text(u.access), markdown.text(u.data_type),
                                              "yes" if u.declared else "no")),
             "every column in scope is documented")

    # unused
    md.section("Unused columns", "", NOTES["unused"], "")
    md.table(["column", "node", "data type", "why", "dependents", "dependents with incomplete lineage"],
             TableRows(r.unused, lambda u: (markdown.code(u.column.label), u.resource_type, markdown.text(u.data_type), _why_unused(u), u.dependents,
                                           ", ".join(markdown.code(n) for n in u.incomplete_dependents))),
             "every column of a depended-on model is read", "llllrl")

    # depended-on
    md.section("Most depended-on columns", "", NOTES["depended_on"], "")
    md.table(["column", "fan-out", "reach (columns)", "models reached", "conditions", "PII", "description"],
             [(markdown.code(d.column.label), d.fanout, d.reach, d.models_reached, d.conditions, "yes" if d.pii else "",
               markdown.text(d.description)) for d in r.depended_on],
             "no column feeds another", "lrrrrll")

    # inheritable
    md.section("Inheritable descriptions", "", NOTES["inheritable"], "")
    md.table(["column", "would inherit", "from", "path"], TableRows(r.inheritable, _inheritable_row), "no undocumented column copies a documented one")

    # tests
    t = r.tests
    md.section("Test coverage", "", NOTES["tests"], "", markdown.text(tests_line(r)) + ".", "")
    md.add("### Per model", "")
    md.table(["model", "type", "columns", "tested", "%"],
             [(markdown.code(m.name), m.resource_type, m.columns, m.tested, m.tested_pct) for m in t.models],
             "no node with columns", "llrrr")
    md.add("### Untested columns that matter", "")
    md.table(["column", "columns downstream", "public or contracted models", "consumers", "consumers reached"],
             untested_rows(r, markdown.code, lambda c: markdown.code(c.label)),
             "every column that feeds a consumer or a public or contracted model is tested", "lrlrl")

    # pictures
    md.section("Lineage pictures", "")
    if r.pictures:
        md.add("Drawn in the HTML report (`catalog report --format html`). Focus columns:", "")
        for p in r.pictures:
            drawn = sum(1 for n in p.nodes if n.column is not None)
            md.add(f"- {markdown.code(p.focus.label, table=False)}: {drawn} columns, {len(p.edges)} edges" + (" (trimmed)" if p.truncated else ""))
        md.add("")
    else:
        md.add("_No column feeds another: nothing to draw._", "")

    if has_bi(r):
        md.section("BI fields", "", NOTES["bi"], "", bi_line(r) + ".", "")
        md.table(["field", "tool", "where", "why unresolved"], bi_rows(r, markdown.code, markdown.text), "every BI field is resolved")
    if r.history:
        md.section("Trends", "", NOTES["history"], "")
        md.table(TREND_HEADER, trend_rows(r), "no completed build", "lllllrr")
    return md


def _inheritable_row(i: Inheritable) -> tuple[str, ...]:
    if i.conflict:
        options = "; ".join(f"{markdown.code(c.column.label)}: {markdown.text(c.description)}" for c in i.candidates)
        return (markdown.code(i.column.label), f"_conflicting:_ {options}", "", "")
    assert i.source is not None
    return (markdown.code(i.column.label), markdown.text(i.description), markdown.code(i.source.label), path_text(i.hops))


TREND_HEADER = ["build", "finished", "resolved", "documented", "tested", "PII reach", "PII untagged"]


def trend_rows(r: GovernanceReport) -> list[tuple[str, ...]]:
    """The trends table's rows (plain text), shared by Markdown and HTML."""
    return [
        (str(p.build), (p.finished_at or "-")[:19].replace("T", " "), f"{p.resolved} of {p.columns} ({p.resolved_pct}%)",
         f"{p.documented} of {p.columns} ({p.documented_pct}%)", f"{p.tested} of {p.columns} ({p.tested_pct}%)",
         str(p.pii_reached), str(p.pii_untagged))
        for p in r.history
    ]


def _why_unused(u: UnusedColumn) -> str:
    if not u.read_by:
        return markdown.text(u.reason)
    return markdown.text(f"{u.reason}:") + " " + ", ".join(markdown.code(n) for n in u.read_by)
