"""The governance report of one build: what a data-platform team checks before trusting the
lineage and the documentation of a dbt project.

Sections (read with the ``cypher/read/report_*.cypher`` files, runnable in Neo4j Browser; the
any-depth ones and test coverage computed in memory over ``report_build_columns``):

- lineage coverage: every model's status and reason, and how many columns are resolved;
- PII: columns tagged PII in dbt and every column downstream of them, at any depth;
- undocumented columns of public models (of all models when the project has no public one);
- unused columns: on models that others depend on, columns nothing reads;
- the most depended-on columns (fan-out and everything reached downstream);
- descriptions an undocumented column could inherit through passthrough and renamed edges;
- pictures of the lineage around the most depended-on columns (nodes in layers, edges);
- test coverage: per node, the columns its tests read, and the untested columns that feed
  metrics, exposures and public or contracted models, with how much depends on each.
- with ``history``, trends: the headline figures of the project's last builds.

:func:`collect_report` returns a :class:`GovernanceReport` (plain records, deterministic
order); ``governance_render`` turns it into JSON and Markdown, ``governance_html`` into one
self-contained HTML file with inline SVG.

This module runs the reads (:class:`catalog.store.report_reads.BuildReads`, side by side) and
hands their rows to the sections: ``governance_sections`` (made straight from the rows),
``governance_reach`` (walked in memory), ``governance_pictures``; the records are in
``governance_model``.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple, TypeVar, get_args

from catalog.lineage import graph as column_graph
from catalog.lineage.graph import ColumnGraph
from catalog.lineage.unused import nodes_from_rows, unused_columns
from catalog.query import BuildView
from catalog.report import governance_reach as reach
from catalog.report import governance_sections as sections
from catalog.report.ahead import ReadAhead
from catalog.report.governance_model import ANALYZED, CoverageTotals, GovernanceReport, PackedRows, TrendPoint
from catalog.report.governance_pictures import PICTURE_CANDIDATES, pictures
from catalog.report.limits import DEFAULT_TOP
from catalog.store.report_reads import BuildReads

AHEAD = 32  # rows a streamed read keeps waiting for its reader (a row: one model, or one model's columns)
T = TypeVar("T")


def collect_report(
    catalog: BuildView,
    top: int = DEFAULT_TOP,
    progress: Callable[[str], None] | None = None,
    history: int = 0,
    packed: bool = False,
) -> GovernanceReport:
    """Read every section of the report for ``catalog``'s project and build; with ``history``,
    the trends of the last ``history`` completed builds up to that one. With ``packed``, the
    long lists are held as :class:`PackedRows` (for the Markdown and HTML reports, which show
    a few hundred of their rows), not as tuples of records."""
    with report_parts(catalog, top, progress, history) as parts:
        fields = GovernanceReport.model_fields
        return GovernanceReport(**{name: _held(value, fields[name].annotation, packed) for name, value in parts.items()})


def _held(value: Any, annotation: Any, packed: bool) -> Any:
    """A part of :func:`report_parts` (a field of type ``annotation``) with each of its
    iterators read into a tuple, or with ``packed`` into :class:`PackedRows` of its records."""
    if isinstance(value, Iterator):
        return PackedRows(get_args(annotation)[0], value) if packed else tuple(value)
    if isinstance(value, dict):
        fields = annotation.model_fields
        return {k: _held(v, fields[k].annotation, packed) for k, v in value.items()}
    return value


@contextlib.contextmanager
def report_parts(
    catalog: BuildView, top: int = DEFAULT_TOP, progress: Callable[[str], None] | None = None, history: int = 0
) -> Iterator[dict[str, Any]]:
    """The fields of the :class:`GovernanceReport` of ``catalog``'s build, in its order, each a
    record, or a dict of the fields of a section's record, in which the lists that grow with
    the build (the columns of the PII, undocumented, unused, unresolved and inheritable
    sections) are iterators, each record made as it is read (from Neo4j, row by row, or from the
    lineage walked in memory): :func:`collect_report` holds them, the JSON report writes each
    and lets it go. The iterators read from Neo4j until the block ends, in the order given."""
    say = progress or (lambda _msg: None)
    reads = BuildReads(catalog.graph, catalog.project, catalog.build_id)

    def read(name: str, rows_of: Callable[[], list[T]]) -> list[T]:
        t0 = time.perf_counter()
        rows = rows_of()
        say(f"{name}: {len(rows)} rows in {time.perf_counter() - t0:.2f}s")
        return rows

    def stream(
        name: str, rows: Iterator[tuple[Any, ...]], what: str = "rows", ahead: int = AHEAD, skip: int | None = None
    ) -> ReadAhead[tuple[Any, ...]]:
        """``rows`` (the read ``name``), read from now on in a thread of their own, at most
        ``ahead`` rows ahead of their reader (0: as many as come)."""
        t0 = time.perf_counter()

        def counted() -> Iterator[tuple[Any, ...]]:
            n = 0
            for n, row in enumerate(rows, 1):  # noqa: B007
                yield row
            say(f"{name}{'' if skip is None else f' from model {skip}'}: {n} {what} in {time.perf_counter() - t0:.2f}s")

        return stack.enter_context(ReadAhead(counted(), ahead))

    stored = reads.build()
    build = sections.build_info(catalog.build_id, stored or {})
    with contextlib.ExitStack() as stack, ThreadPoolExecutor(max_workers=4) as pool:
        # The reads are independent and run side by side (the driver is thread-safe), those of
        # every model or column streamed: the build's columns and edges, the longest read, in
        # two halves, one per Neo4j worker.
        half = int(stored.get("models_total") or 0) // 2 if stored else 0
        lineage = [stream("report_build_columns", reads.build_columns(0, half), "models", skip=0),
                   stream("report_build_columns", reads.build_columns(half), "models", skip=half)]  # fmt: skip
        unresolved = stream("report_unresolved_columns", reads.unresolved_columns())
        model_rows = pool.submit(read, "report_model_coverage", reads.model_coverage)
        input_rows = pool.submit(read, "report_consumer_inputs", reads.consumer_inputs)
        test_rows = pool.submit(read, "list_build_tests", reads.build_tests)
        bi_rows = pool.submit(read, "list_build_bi", reads.bi)
        # the edges first: a streamed read waits for its reader, and they are the longest read
        t0 = time.perf_counter()
        walked = ColumnGraph(itertools.chain(*lineage))
        say(f"report_build_columns: {len(walked.keys)} columns in {time.perf_counter() - t0:.2f}s")
        coverage = sections.coverage(model_rows.result(), unresolved)
        public = sum(1 for m in coverage["models"] if m.resource_type == "model" and m.access == "public")
        # undocumented columns (of public models when there are any) and unused ones, read whole
        # while the lineage is walked in memory below (a few rows per model; the walk takes
        # longer), so that the report is written without waiting for Neo4j
        undocumented = stream("report_undocumented_columns", reads.undocumented_columns(public_only=public > 0), ahead=0)
        unused = stream("list_column_readers", nodes_from_rows(reads.column_readers()), "models", ahead=0)
        t0 = time.perf_counter()
        walked_rows = reach.walked_rows(walked, max(top, PICTURE_CANDIDATES), reads.column_details)
        tested = reach.tested_columns(model_rows.result(), test_rows.result(), walked)
        tests = reach.dbt_test_coverage(tested, test_rows.result(), input_rows.result(), walked)
        inheritable = column_graph.inheritable(walked)  # while Neo4j still reads the sections written before it
        say(f"reach, PII flow, untested columns and inheritable descriptions in memory in {time.perf_counter() - t0:.2f}s")
        depended_all = [reach.depended_on_record(r) for r in walked_rows["depended_on"]]
        t0 = time.perf_counter()
        drawn = pictures(reads.feeds_of_columns, depended_all)
        say(f"report_feeds_of_columns: {len(drawn)} pictures in {time.perf_counter() - t0:.2f}s")
        unread = unused_columns(unused)  # before the trends: every column's readers let go first
        trends = collect_trends(catalog, history, say, BuildRead(model_rows.result(), walked, test_rows.result())) if history else ()
        yield {
            "project": catalog.project,
            "build": build,
            "coverage": coverage,
            "pii": reach.pii_section(walked_rows["pii"]),
            "undocumented": sections.undocumented(undocumented, coverage["models"], public),
            "unused": sections.unused(unread),
            "depended_on": tuple(depended_all[:top]),
            "inheritable": reach.inheritable_stream(walked, inheritable),
            "pictures": drawn,
            "tests": tests,
            "history": trends,
            "bi": sections.bi(bi_rows.result()),
        }


# ---------------------------------------------------------------------------- trends
TREND_STATUSES = ("active", "superseded")  # builds that completed


def collect_trends(
    catalog: BuildView, count: int, say: Callable[[str], None] = lambda _msg: None, read: BuildRead | None = None
) -> tuple[TrendPoint, ...]:
    """The figures of the last ``count`` completed builds of ``catalog``'s project up to its
    build, oldest first, each read as that build (``report_model_coverage``,
    ``report_build_columns`` and ``list_build_tests`` with its id); ``read``: those of
    ``catalog``'s build, when the caller holds them already (not read a second time)."""
    builds = BuildReads(catalog.graph, catalog.project, catalog.build_id).builds()
    chosen = [b for b in builds if b.get("status") in TREND_STATUSES and b["id"] <= catalog.build_id][:count]
    points = []
    for b in reversed(chosen):
        t0 = time.perf_counter()
        held = read is not None and b["id"] == catalog.build_id
        points.append(_trend_point(b, read if held else _read_build(catalog, b["id"])))
        say(f"trends: build {b['id']} in {time.perf_counter() - t0:.2f}s")
    return tuple(points)


class BuildRead(NamedTuple):
    """What a build's trend point is made of: its ``report_model_coverage``, its column graph
    (``report_build_columns``) and its ``list_build_tests``."""

    model_rows: list[dict[str, Any]]
    walked: ColumnGraph
    test_rows: list[dict[str, Any]]


def _read_build(catalog: BuildView, build_id: int) -> BuildRead:
    reads = BuildReads(catalog.graph, catalog.project, build_id)
    return BuildRead(reads.model_coverage(), ColumnGraph(reads.build_columns()), reads.build_tests())


def _trend_point(build: dict[str, Any], read: BuildRead) -> TrendPoint:
    model_rows, walked, test_rows = read
    totals: CoverageTotals = sections.coverage(model_rows, ())["totals"]
    analyzed = [i for i in range(len(walked.keys)) if walked.in_build[i] and walked.resource_type[i] in ANALYZED]
    reached = set().union(*(column_graph.unmasked_reach(walked, k) for k in walked.pii_columns()))
    tests = reach.tested_columns(model_rows, test_rows, walked)
    tested = sum(m.tested for m in tests.models if m.resource_type in ANALYZED)
    return TrendPoint(
        build=build["id"], finished_at=None if build.get("finished_at") is None else str(build["finished_at"]),
        models=totals.models, columns=totals.columns, resolved=totals.resolved + totals.no_upstream,
        documented=sum(1 for i in analyzed if walked.documented[i]), tested=tested,
        pii_reached=len(reached), pii_untagged=sum(1 for k in reached if not walked.pii[walked.index[k]]),
    )  # fmt: skip
