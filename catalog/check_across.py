"""``catalog check`` across projects (dbt Mesh): what a producer's change hits in the consumer
projects stored in the same database.

The comparison itself (:mod:`catalog.check`) knows one project. For each finding on a column
that the producer's stored build has, the stored graph's impact (:class:`catalog.query.BuildView`,
every other project as of its active build) gives the columns, metrics and exposures of other
projects it reaches. They are added as hits named with their project
(``finance:customer_revenue.email``), and a removed, renamed or retyped column that another
project reads makes the finding ``breaking``.
"""

from __future__ import annotations

from catalog.check import CheckReport, Finding, Hit
from catalog.errors import NotFound
from catalog.lineage.records import PruneHop
from catalog.query import Answer, BuildView, Hop
from catalog.store.keys import quote_column

# changes that break a reader of the column in another project, as a finding's `why` words them
BREAKING = {"removed": "removed", "renamed": "renamed", "data_type": "retyped"}
_KINDS = {"semantic_model": "semantic"}


def with_consumer_projects(report: CheckReport, catalog: BuildView) -> CheckReport:
    """``report`` with the hits of each finding in other projects (``catalog``: the producer's
    build the change is compared with)."""
    findings: list[Finding] = []
    precision, owners = dict(report.exposure_precision), dict(report.exposure_owners)
    for f in report.findings:
        answer = _impact(catalog, f)
        hits = _hits(answer) if answer is not None else ()
        if not hits:
            findings.append(f)
            continue
        update: dict = {"hits": f.hits + hits}
        readers = sorted({h.owner for h in hits if h.kind == "column"})
        if set(f.changes) & set(BREAKING) and f.severity != "breaking":
            update |= {"severity": "breaking", "why": f"a {'/'.join(BREAKING[c] for c in f.changes if c in BREAKING)} column that another project reads ({', '.join(readers)})"}
        findings.append(f.model_copy(update=update))
        # named with their project, as the hits are (finance:customer_dashboard)
        precision |= {f"{c.project}:{c.name}": c.precision for c in answer.consumers if c.project and c.precision}
        owners |= {f"{c.project}:{c.name}": c.owner for c in answer.consumers if c.project and c.owner}
    return report.model_copy(update={"findings": tuple(findings), "exposure_precision": precision, "exposure_owners": owners})


def _impact(catalog: BuildView, f: Finding) -> Answer | None:
    """The stored impact of the finding's column, when the stored build has that column."""
    if f.column == "*":
        return None
    try:
        return catalog.impact([f"{f.unique_id}.{quote_column(f.column)}"])
    except NotFound:  # a column the change adds: nothing reads it yet
        return None


def _path(hops: tuple[Hop, ...]) -> tuple[PruneHop, ...]:
    return tuple(PruneHop(kind="feeds", from_key=h.from_key, to_key=h.to_key, type=h.type, expr=h.expr) for h in hops)


def _hits(answer: Answer) -> tuple[Hit, ...]:
    """The columns and consumers of other projects that the answer reaches."""
    hits = [
        Hit(key=r.column.key, name=r.column.label, kind="column", owner=f"{r.column.project}:{r.column.model}", lineage="value", path=_path(r.hops))
        for r in answer.columns
        if r.column.project
    ]
    hits += [
        Hit(key=c.key, name=f"{c.project}:{c.name}", kind=_KINDS.get(c.kind, c.kind), owner=f"{c.project}:{c.unique_id}", lineage="value", path=_path(c.hops))
        for c in answer.consumers
        if c.project
    ]
    return tuple(hits)
