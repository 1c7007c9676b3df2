"""``catalog check --format md``: a pull-request comment, summary first, details folded.

The comment stays under GitHub's limit however large the change: the table says what changed
for each finding, and each finding's ``<details>`` summarizes its hits (counts by kind and by
model, the first paths, the rest counted) instead of listing them all. A hidden marker on the
first line lets a CI step find and update its own comment instead of adding one per push.
"""

from __future__ import annotations

from collections import Counter

from catalog.check import CheckReport, Finding
from catalog.lineage.records import PruneHop
from catalog.report.limits import MD_CHARS, cut
from catalog.report.markdown import code, table, text
from catalog.store.keys import short_label

LIMIT = MD_CHARS  # GitHub refuses comments over 65,536 characters
MARKER = "<!-- catalog-check -->"
ICONS = {"breaking": "🔴", "policy": "🟣", "partial": "🟡", "safe": "🟢"}
CHANGE_CHARS = 160  # of a finding's change (an old -> new expression) in the table
DETAIL_CHARS = 2_000  # of the same in its <details>
PATHS = 5  # paths shown per finding; the rest are counted
MODELS = 10  # models named with their counts per finding
KIND_LABELS = (
    ("column", "column(s)"), ("semantic", "semantic model element(s)"), ("metric", "metric(s)"), ("exposure", "exposure(s)"),
    ("saved_query", "saved query(ies)"), ("dashboard", "dashboard(s)"), ("chart", "chart(s)"), ("bi_field", "BI field(s)"),
)  # fmt: skip


def hit_summary(f: Finding) -> str:
    """``2 models (orders, customers), 3 columns; metrics: order_total; exposures: sales``."""
    parts = []
    models = f.hit_models()
    columns = [h for h in f.hits if h.kind == "column"]
    if models:
        parts.append(f"{len(models)} model(s) ({', '.join(models[:5])}{', ...' if len(models) > 5 else ''}), {len(columns)} column(s)")
    for kind, label in (("semantic", "semantic"), ("metric", "metrics"), ("exposure", "exposures"), ("saved_query", "saved queries"),
                        ("dashboard", "dashboards"), ("chart", "charts"), ("bi_field", "BI fields")):  # fmt: skip
        names = f.hit_names(kind)
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    return "; ".join(parts) or "-"


TESTS_NAMED = 20  # test names in one line; the rest are counted


def tests_text(names: list[str] | tuple[str, ...]) -> str:
    shown = ", ".join(code(n, table=False) for n in names[:TESTS_NAMED])
    return shown + (f" and {len(names) - TESTS_NAMED} more" if len(names) > TESTS_NAMED else "")


def path_of(path: tuple[PruneHop, ...]) -> str:
    if not path:
        return ""
    out = [short_label(path[0].from_key)]
    for h in path:
        label = h.type if h.kind == "feeds" else h.clause if h.kind == "conditions" else "rows"
        out.append(f"-[{label}]-> {short_label(h.to_key)}")
    return " ".join(out)


def change_text(f: Finding) -> str:
    """What changed: the kinds, then the old -> new expression, type or condition."""
    kinds = ", ".join(f.changes) + (f" → {f.renamed_to}" if f.renamed_to else "")
    return f"{kinds}: {f.detail}" if f.detail else kinds


def finding_details(f: Finding, owners: list[str], paths: int = PATHS, models: int = MODELS, precision: dict[str, str] | None = None) -> str:
    """One finding's folded block: what changed in full, then its hits summarized."""
    lines = ["", f"<details><summary>{text(f.model + '.' + f.column)}: {text(', '.join(f.changes))} ({f.severity}, {len(f.hits)} hit(s))</summary>", ""]
    if f.detail:
        lines += [code(cut(f.detail, DETAIL_CHARS), table=False), ""]
    if f.hits:
        kinds = Counter(h.kind for h in f.hits)
        by_lineage = Counter(h.lineage for h in f.hits)
        lines.append(
            "Hits: "
            + ", ".join(f"{kinds[k]} {label}" for k, label in KIND_LABELS if kinds[k])
            + f" ({by_lineage['value']} by value, {by_lineage['condition']} by condition only)."
        )
        per_model = f.hit_model_counts()
        if per_model:
            named = [f"{code(m, table=False)} {n}" for m, n in sorted(per_model.items(), key=lambda kv: (-kv[1], kv[0]))[:models]]
            rest = len(per_model) - len(named)
            lines.append("Columns hit per model: " + ", ".join(named) + (f", and {rest} more model(s)" if rest else "") + ".")
        if f.tests:
            lines.append("Tests that read it: " + tests_text(f.tests) + ".")
        if owners:
            lines.append("Owners of the exposures hit: " + ", ".join(text(o) for o in owners) + ".")
        levels = [f"{code(n, table=False)} ({precision[n]}-level)" for n in f.hit_names("exposure") if n in (precision or {})]
        if levels:
            lines.append("Exposures hit: " + ", ".join(levels) + " (column-level: through the columns it lists).")
        shown = f.hits[:paths]
        lines += ["", *table(["hit", "kind", "lineage", "path"], [[code(h.name), h.kind, h.lineage, code(path_of(h.path))] for h in shown])]
        if len(f.hits) > len(shown):
            lines += ["", f"_and {len(f.hits) - len(shown)} more hit(s): `catalog check --json` lists every one with its path._"]
    lines += ["", "</details>"]
    return "\n".join(lines)


def check_markdown(report: CheckReport, fail_on: str, limit: int = LIMIT) -> str:
    counts = report.counts()
    failing = report.failing(fail_on)  # type: ignore[arg-type]
    head = [
        MARKER,
        f"## catalog check: {code(report.project, table=False)}",
        "",
        ("**Blocks the merge**" if failing else "**Passes**") + f" (`--fail-on {fail_on}`): "
        + ", ".join(f"{ICONS[k]} {n} {k}" for k, n in counts.items()),
        "",
    ]
    if report.selector:
        head += [f"Rebuild: {code('dbt build -s ' + report.selector, table=False)}", ""]
    if report.tests:
        head += [f"Tests that read a changed column ({len(report.tests)}, in the selector): " + tests_text([t.name for t in report.tests]), ""]
    if not report.findings:
        return "\n".join(head + ["No column changed."])
    tail = []
    if report.removed_models:
        tail += ["", "Removed models: " + ", ".join(code(m, table=False) for m in report.removed_models)]
    rows = []
    budget = limit // 2  # the table takes at most half the comment; the details the rest
    used = sum(len(line) + 1 for line in head + tail) + 200
    for f in report.findings:
        row = [f"{ICONS[f.severity]} {f.severity}", code(f"{f.model}.{f.column}"), code(cut(change_text(f), CHANGE_CHARS)), text(hit_summary(f)), text(f.why)]
        size = sum(len(c) + 3 for c in row) + 2
        if used + size > budget:
            break
        rows.append(row)
        used += size
    body = head + table(["class", "column", "change", "hits downstream", "why"], rows)
    if len(rows) < len(report.findings):
        body += ["", f"_{len(report.findings) - len(rows)} more finding(s) not in this table: `catalog check --json` lists them all._"]
    out = "\n".join(body + tail)
    # every finding in the table keeps a block: in full where the others still fit in short,
    # else in short (one path, three models); only past that is a block left out
    detailed = [f for f in report.findings[: len(rows)] if f.hits or f.detail]
    short = [finding_details(f, report.owners_hit(f), paths=1, models=3, precision=report.exposure_precision) for f in detailed]
    room = limit - 400 - len(out)
    still = sum(len(b) + 1 for b in short)
    left: list[Finding] = []
    for f, compact in zip(detailed, short):
        still -= len(compact) + 1
        block = finding_details(f, report.owners_hit(f), precision=report.exposure_precision)
        if len(block) + 1 + still > room:
            block = compact
        if len(block) + 1 > room:
            left.append(f)
            continue
        out += "\n" + block
        room -= len(block) + 1
    if left:
        names = ", ".join(code(f"{f.model}.{f.column}", table=False) for f in left[:20])
        more = f" and {len(left) - 20} more" if len(left) > 20 else ""
        out += f"\n\n_Details of {len(left)} finding(s) in the table left out to stay under GitHub's limit ({names}{more}): `catalog check --json` has them._"
    return out
