"""The report's sections made straight from their reads' rows (no walk): the build, lineage
coverage (every model's status and reason, the unresolved columns), undocumented columns and
unused columns, BI fields. Each takes the rows of its read (:class:`catalog.store.report_reads.BuildReads`)
and returns the fields of its record, the long lists as iterators of their JSON.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from catalog.lineage.unused import UnusedModel
from catalog.report.governance_model import (
    ANALYZED,
    BIFields,
    UnresolvedBIField,
    SEVERITY,
    STATUSES,
    BuildInfo,
    CoverageTotals,
    ModelCoverage,
    ReasonGroup,
    col_json,
)


def build_info(build_id: int, b: dict[str, Any]) -> BuildInfo:
    def text(v: Any) -> str | None:
        return None if v is None else str(v)

    return BuildInfo(id=build_id, status=b.get("status"), started_at=text(b.get("started_at")),
                     finished_at=text(b.get("finished_at")), dialect=b.get("dialect"))


def severity(status: str) -> int:
    return SEVERITY.index(status) if status in SEVERITY else -1


_PARTIAL_PREFIX = re.compile(r"^\d+ of \d+ columns unresolved: ")


def coverage(model_rows: list[dict[str, Any]], column_rows: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """The fields of :class:`Coverage` from ``report_model_coverage``'s rows and
    ``report_unresolved_columns``'s (unique_id, model, column, model_status, reason, kind,
    expr), these made as their JSON as they are read."""
    models: list[ModelCoverage] = []
    sources = seeds = 0
    for r in model_rows:
        status = r["status"] or "resolved"
        if status == "external":
            continue  # another dbt project's node (dbt Mesh, a seed too): counted in that project's report
        if r["resource_type"] not in ANALYZED:
            sources += r["resource_type"] == "source"
            seeds += r["resource_type"] == "seed"
            continue
        unfed = r["unfed"]
        failed = status == "failed"  # lineage carried over from an earlier build proves nothing about this SQL
        models.append(
            ModelCoverage(
                unique_id=r["unique_id"], name=r["name"], resource_type=r["resource_type"],
                materialized=r["materialized"], access=r["access"], status=status, reason=r["reason"],
                carried_over=bool(r["carried_over"]), columns=r["columns"], resolved=0 if failed else r["fed_resolved"],
                no_upstream=unfed if status == "resolved" else 0,
                unresolved=r["columns"] if failed else r["fed_unresolved"] + (unfed if status in ("unresolved", "opaque") else 0),
                untraced=unfed if status == "partial" else 0,
            )
        )
    models.sort(key=lambda m: (severity(m.status), m.name, m.unique_id))
    by_status = {s: 0 for s in STATUSES}
    for m in models:
        by_status[m.status] = by_status.get(m.status, 0) + 1
    totals = CoverageTotals(
        models=len(models), by_status=by_status, columns=sum(m.columns for m in models),
        resolved=sum(m.resolved for m in models), no_upstream=sum(m.no_upstream for m in models),
        unresolved=sum(m.unresolved for m in models), untraced=sum(m.untraced for m in models),
        sources=sources, seeds=seeds,
    )
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for m in models:
        if m.status != "resolved":
            reason = _PARTIAL_PREFIX.sub("", m.reason or "no reason recorded")
            groups[(m.status, reason)].append(m.name)
    reasons = tuple(
        ReasonGroup(status=s, reason=reason, models=tuple(sorted(names)))
        for (s, reason), names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), severity(kv[0][0]), kv[0][1]))
    )
    unresolved = (  # UnresolvedColumn's JSON
        {"column": col_json(model, unique_id, column), "model_status": model_status, "kind": kind, "reason": reason,
         "expr": expr or None}
        for unique_id, model, column, model_status, reason, kind, expr in column_rows
    )  # fmt: skip
    return {"totals": totals, "models": tuple(models), "reasons": reasons, "unresolved_columns": unresolved}


def undocumented(rows: Iterable[Sequence[Any]], models: Sequence[ModelCoverage], public: int) -> dict[str, Any]:
    """The fields of :class:`Undocumented` from ``report_undocumented_columns``'s (unique_id,
    model, access, [[column, data_type, declared]]), each column's JSON made as it is read."""
    in_scope = [m for m in models if m.resource_type == "model" and (not public or m.access == "public")]
    return {
        "scope": "public_models" if public else "all_models",
        "public_models": public,
        "models_in_scope": len(in_scope),
        "columns_in_scope": sum(m.columns for m in in_scope),
        "columns": (  # UndocumentedColumn's JSON
            {"column": col_json(model, unique_id, column), "access": access, "data_type": data_type, "declared": bool(declared)}
            for unique_id, model, access, columns in rows
            for column, data_type, declared in columns
        ),
    }


def unused(models: Iterable[UnusedModel]) -> Iterator[dict[str, Any]]:
    """From the answer of ``catalog unused`` (:func:`catalog.lineage.unused.unused_columns`
    of ``list_column_readers``'s rows, end models left out): each :class:`UnusedColumn`'s JSON."""
    for m in models:
        for c in m.columns:
            yield {"column": col_json(m.model, m.unique_id, c.column), "resource_type": m.resource_type, "data_type": c.data_type,
                   "dependents": len(m.dependents), "incomplete_dependents": list(m.incomplete_dependents),
                   "reason": c.reason, "read_by": list(c.read_by)}


def bi(rows: Iterable[dict[str, Any]]) -> BIFields:
    """From ``list_build_bi``: the counts of fields, charts and dashboards, fields per tool, and
    the unresolved fields and charts (by tool and id)."""
    counts: dict[str, int] = defaultdict(int)
    by_tool: dict[str, int] = defaultdict(int)
    unresolved = []
    for r in rows:
        counts[r["kind"]] += 1
        if r["kind"] == "bi_field":
            by_tool[r["tool"]] += 1
        if r["status"] == "unresolved":  # a field, or a chart a dashboard names that no file defines
            kind = r["kind"] if r["kind"] != "bi_field" else r["field_kind"] or ""
            unresolved.append(UnresolvedBIField(tool=r["tool"], tool_id=r["tool_id"], kind=kind, file=r["file"], line=r["line"], reason=r["reason"] or ""))
    return BIFields(fields=counts["bi_field"], charts=counts["chart"], dashboards=counts["dashboard"], by_tool=dict(sorted(by_tool.items())),
                    unresolved=tuple(sorted(unresolved, key=lambda u: (u.tool, u.tool_id))))  # fmt: skip
