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
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from pydantic import BaseModel, computed_field, model_serializer

from catalog.extract import PII_META_KEYS, PII_TAGS  # the rule that sets Column.pii
from catalog.memory import paused_gc
from catalog.query import BuildView
from catalog.report.ahead import ReadAhead
from catalog.report.limits import DEFAULT_TOP
from catalog.lineage import graph as column_graph
from catalog.lineage.graph import ColumnGraph, Nearest
from catalog.lineage.walks import COPY_TYPES, reached as walks_reached

STATUSES = ("resolved", "partial", "unresolved", "opaque", "failed")
SEVERITY = ("failed", "unresolved", "opaque", "partial", "resolved")  # order of the per-model table: problems first
ANALYZED = ("model", "snapshot")  # dbt nodes whose SQL is analyzed; sources and seeds are origins

PICTURES = 3
PICTURE_CANDIDATES = 30  # most depended-on columns considered as picture focuses
PICTURE_DOWNSTREAM_DEPTH = 4
PICTURE_UPSTREAM_DEPTH = 2
PICTURE_LAYER_WIDTH = 8  # columns drawn per layer; the rest is counted in a "+N more" box

# What each section means, shown with it in HTML and Markdown.
NOTES = {
    "coverage": (
        "Status of every analyzed model and snapshot: resolved (every column's origin proved), partial "
        "(some columns unresolved), unresolved (none could be, or no SQL) and failed (the analysis raised; "
        "the model keeps the lineage of an earlier build, marked carried over). Columns: resolved (upstream "
        "edges all proved), no upstream (proved to have no upstream column: literals, current_timestamp, "
        "count(*), row_number()), unresolved (an unproved edge, no edge in an unresolved model, or any "
        "column of a failed model) and untraced (no edge in a partial model: either no upstream column or an unresolved one, "
        "the graph does not record which). Sources and seeds are origins and are not counted, nor are the nodes of "
        "other dbt projects (external, dbt Mesh): their own project's report counts them."
    ),
    "pii": (
        "Columns tagged PII in dbt (meta contains_pii / pii / is_pii, or tag pii / sensitive / personal) and "
        "every column their values flow into, at any depth through FEEDS, with one shortest path. "
        "\"copied\": every hop passes the value through or renames it; \"transformed\": some hop computes "
        "with it (the result may still identify a person); \"masked\": every path passes through a column "
        "that hashes or masks it (md5, sha1/sha2/sha256, hash, farm_fingerprint or the project's "
        "vars.catalog_masking_functions), listed apart. Reached columns not tagged PII themselves and reached "
        "unmasked are marked: tag them (catalog docs --pii) or check that the value is no longer personal."
    ),
    "unused": (
        "Columns that no model, snapshot or seed reads (no outgoing FEEDS edge and no use in a WHERE, "
        "JOIN, GROUP BY, HAVING, QUALIFY, window or ORDER BY), on models, seeds and snapshots that at "
        "least one other node depends on: the dependents read the model but not these columns, so they "
        "are candidates to drop or to stop computing. Leaf models are left out (their columns are the "
        "project's output), and so are sources. Exposures, BI tools and ad-hoc queries are not known to "
        "the catalog. A dependent whose own lineage is not fully resolved may read a column unseen: such "
        "rows name it."
    ),
    "depended_on": (
        "Columns whose change reaches the most columns downstream: fan-out counts direct FEEDS edges, "
        "reach counts the distinct columns (and models) reached at any depth, conditions counts the "
        "models whose rows the column filters, joins, groups or orders."
    ),
    "inheritable": (
        "Undocumented columns of models and snapshots whose value is copied unchanged (passthrough or "
        "renamed hops only, through undocumented columns) from a documented column: the description they "
        "would inherit and where from. When the nearest documented columns disagree, every candidate is "
        "listed and none is proposed."
    ),
    "tests": (
        "Columns read by at least one dbt test of the build (a generic test's column, a relationships test's "
        "target column, a unit test's expected columns, and the columns that decide a singular test's result: "
        "those in its WHERE, JOIN, GROUP BY, HAVING and window clauses, and those its computed columns read), "
        "per model, snapshot, seed and source. Untested columns that matter: columns no test reads that belong "
        "to or feed (FEEDS, any depth) a public or contracted model, or feed a semantic model, metric, exposure "
        "or saved query; with the number of columns downstream of each and the consumers reached."
    ),
    "history": (
        "The headline figures of the project's last builds that completed, oldest first: columns of analyzed "
        "models whose lineage is resolved (or proved to have no upstream), columns of models and snapshots "
        "with a description, columns of models and snapshots that a dbt test reads, and the columns PII values "
        "reach unmasked, those not tagged PII among them."
    ),
    "pictures": (
        "The lineage around the most depended-on columns (each picture skips columns already drawn in an "
        "earlier one): upstream columns to the left, downstream to the right, in layers by distance; edges "
        "colored by type, dashed when unproved."
    ),
}


# ---------------------------------------------------------------------------- records
class Col(BaseModel, frozen=True):
    """A column as people and scripts name it. Its JSON is also made without the record, by
    :func:`_col_json` (the report's long lists): a field changed here changes there too."""

    model: str  # display name: orders, or shop.orders for a source
    unique_id: str
    name: str
    project: str | None = None  # the stored project it belongs to, when not the report's (dbt Mesh)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        """``orders.amount``; ``platform:stg_orders.amount`` for another project's column."""
        return f"{self.project + ':' if self.project else ''}{self.model}.{self.name}"

    @model_serializer(mode="wrap")
    def _without_own_project(self, handler):  # JSON names a project only where it is another
        data = handler(self)
        if self.project is None:
            data.pop("project", None)
        return data


class BuildInfo(BaseModel, frozen=True):
    id: int
    status: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    dialect: str | None = None


class ModelCoverage(BaseModel, frozen=True):
    unique_id: str
    name: str
    resource_type: str
    materialized: str | None
    access: str | None
    status: str
    reason: str | None
    carried_over: bool
    columns: int
    resolved: int
    no_upstream: int
    unresolved: int
    untraced: int


class CoverageTotals(BaseModel, frozen=True):
    models: int
    by_status: dict[str, int]
    columns: int
    resolved: int
    no_upstream: int
    unresolved: int
    untraced: int
    sources: int
    seeds: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def models_resolved_pct(self) -> float:
        return _pct(self.by_status.get("resolved", 0), self.models)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def columns_resolved_pct(self) -> float:
        return _pct(self.resolved + self.no_upstream, self.columns)


class ReasonGroup(BaseModel, frozen=True):
    status: str
    reason: str
    models: tuple[str, ...]


class UnresolvedColumn(BaseModel, frozen=True):
    column: Col
    model_status: str
    kind: str  # analysis_failed | unproved_edge | no_edge
    reason: str | None
    expr: str | None


class Coverage(BaseModel, frozen=True):
    totals: CoverageTotals
    models: tuple[ModelCoverage, ...]
    reasons: tuple[ReasonGroup, ...]
    unresolved_columns: tuple[UnresolvedColumn, ...]


class PiiReach(BaseModel, frozen=True):
    column: Col
    depth: int
    types: tuple[str, ...]
    tagged: bool
    masked: bool = False  # every path to it passes through a masked column (catalog.masking)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def effect(self) -> str:
        if self.masked:
            return "masked"
        return "copied" if all(t in COPY_TYPES for t in self.types) else "transformed"


class PiiColumn(BaseModel, frozen=True):
    column: Col
    tagged_by: tuple[str, ...]
    reaches: tuple[PiiReach, ...]


class Pii(BaseModel, frozen=True):
    columns: tuple[PiiColumn, ...]
    reached: tuple[Col, ...]  # every distinct column reached from any PII column
    untagged: tuple[Col, ...]  # those not tagged PII themselves, reached unmasked
    masked: tuple[Col, ...] = ()  # those reached only through a masked column


class UndocumentedColumn(BaseModel, frozen=True):
    column: Col
    access: str | None
    data_type: str | None
    declared: bool


class Undocumented(BaseModel, frozen=True):
    scope: str  # public_models | all_models
    public_models: int
    models_in_scope: int
    columns_in_scope: int
    columns: tuple[UndocumentedColumn, ...]


class UnusedColumn(BaseModel, frozen=True):
    column: Col
    resource_type: str
    data_type: str | None
    dependents: int
    incomplete_dependents: tuple[str, ...]


class DependedOn(BaseModel, frozen=True):
    key: str
    column: Col
    description: str | None
    pii: bool
    fanout: int
    reach: int
    models_reached: int
    conditions: int


class Candidate(BaseModel, frozen=True):
    column: Col
    description: str
    hops: tuple[str, ...]  # edge types from the documented column down to the undocumented one


class Inheritable(BaseModel, frozen=True):
    column: Col
    description: str | None  # the proposal; None when the candidates disagree
    source: Col | None
    hops: tuple[str, ...]
    candidates: tuple[Candidate, ...]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def conflict(self) -> bool:
        return self.description is None


class PictureNode(BaseModel, frozen=True):
    key: str
    column: Col | None  # None for a "+N more" box
    layer: int  # 0: the focus column; negative upstream, positive downstream
    pii: bool = False
    focus: bool = False
    more: int = 0  # columns not drawn in this layer


class PictureEdge(BaseModel, frozen=True):
    up: str
    down: str
    type: str
    expr: str | None
    resolved: bool | None


class Picture(BaseModel, frozen=True):
    focus: Col
    nodes: tuple[PictureNode, ...]
    edges: tuple[PictureEdge, ...]
    truncated: bool  # some columns were left out (depth or width limits)


class TrendPoint(BaseModel, frozen=True):
    """One build's headline figures."""

    build: int
    finished_at: str | None
    models: int
    columns: int
    resolved: int  # resolved or proved to have no upstream
    documented: int  # of the columns of models and snapshots
    tested: int  # read by at least one dbt test, of the columns of models and snapshots
    pii_reached: int  # distinct columns PII values reach unmasked
    pii_untagged: int  # of them, those not tagged PII

    @computed_field  # type: ignore[prop-decorator]
    @property
    def resolved_pct(self) -> float:
        return _pct(self.resolved, self.columns)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def documented_pct(self) -> float:
        return _pct(self.documented, self.columns)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tested_pct(self) -> float:
        return _pct(self.tested, self.columns)


class ModelTests(BaseModel, frozen=True):
    unique_id: str
    name: str
    resource_type: str
    columns: int
    tested: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tested_pct(self) -> float:
        return _pct(self.tested, self.columns)


class UntestedColumn(BaseModel, frozen=True):
    column: Col
    downstream_columns: int  # distinct columns reached through FEEDS, any depth
    protected_models: tuple[str, ...]  # public or contracted models it belongs to or feeds
    consumers: tuple[str, ...]  # kind:name of the semantic models, metrics, exposures and saved queries it feeds


class DbtTestCoverage(BaseModel, frozen=True):
    tests: int
    by_kind: dict[str, int]  # generic, singular, unit
    columns: int
    tested: int
    models: tuple[ModelTests, ...]  # least tested first
    untested: tuple[UntestedColumn, ...]  # untested columns that matter, most depended on first

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tested_pct(self) -> float:
        return _pct(self.tested, self.columns)


class GovernanceReport(BaseModel, frozen=True):
    project: str
    build: BuildInfo
    coverage: Coverage
    pii: Pii
    undocumented: Undocumented
    unused: tuple[UnusedColumn, ...]
    depended_on: tuple[DependedOn, ...]
    inheritable: tuple[Inheritable, ...]
    pictures: tuple[Picture, ...]
    tests: DbtTestCoverage
    history: tuple[TrendPoint, ...] = ()  # only with collect_report(history=N)


# ---------------------------------------------------------------------------- collection
ALL_ROWS = 2**62  # LIMIT of a read that takes every row from its SKIP on
AHEAD = 32  # rows a streamed read keeps waiting for its reader (a row: one model, or one model's columns)


def collect_report(
    catalog: BuildView, top: int = DEFAULT_TOP, progress: Callable[[str], None] | None = None, history: int = 0
) -> GovernanceReport:
    """Read every section of the report for ``catalog``'s project and build; with ``history``,
    the trends of the last ``history`` completed builds up to that one."""
    with report_parts(catalog, top, progress, history) as parts:
        return GovernanceReport(**{name: _held(value) for name, value in parts.items()})


def _held(value: Any) -> Any:
    """A part of :func:`report_parts` with each of its iterators read into a tuple."""
    if isinstance(value, Iterator):
        return tuple(value)
    if isinstance(value, dict):
        return {k: _held(v) for k, v in value.items()}
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
    graph, project, build_id = catalog.graph, catalog.project, catalog.build_id
    params = {"project": project, "build_id": build_id}

    def read(name: str, **extra: Any) -> list[dict[str, Any]]:
        t0 = time.perf_counter()
        rows = graph.read(f"read/{name}", **params, **extra)
        say(f"{name}: {len(rows)} rows in {time.perf_counter() - t0:.2f}s")
        return rows

    def stream(name: str, what: str = "rows", ahead: int = AHEAD, **extra: Any) -> ReadAhead[tuple[Any, ...]]:
        """The rows of ``name``, read from now on in a thread of their own, at most ``ahead``
        rows ahead of their reader (0: as many as come)."""
        t0 = time.perf_counter()

        def counted() -> Iterator[tuple[Any, ...]]:
            n = 0
            for n, row in enumerate(graph.stream_values(f"read/{name}", **params, **extra), 1):  # noqa: B007
                yield row
            skip = f" from model {extra['skip']}" if "skip" in extra else ""
            say(f"{name}{skip}: {n} {what} in {time.perf_counter() - t0:.2f}s")

        return stack.enter_context(ReadAhead(counted(), ahead))

    build_rows = graph.read("read/find_build", project=project, build_id=build_id)
    build = _build_info(build_id, build_rows[0]["build"] if build_rows else {})
    with contextlib.ExitStack() as stack, ThreadPoolExecutor(max_workers=4) as pool:
        # The reads are independent and run side by side (the driver is thread-safe), those of
        # every model or column streamed: the build's columns and edges, the longest read, in
        # two halves, one per Neo4j worker.
        half = int(build_rows[0]["build"].get("models_total") or 0) // 2 if build_rows else 0
        lineage = [stream("report_build_columns", "models", skip=0, limit=half),
                   stream("report_build_columns", "models", skip=half, limit=ALL_ROWS)]  # fmt: skip
        unresolved = stream("report_unresolved_columns")
        futures = {name: pool.submit(read, name) for name in ("report_model_coverage", "report_consumer_inputs", "list_build_tests")}
        # the edges first: a streamed read waits for its reader, and they are the longest read
        t0 = time.perf_counter()
        walked = ColumnGraph(itertools.chain(*lineage))
        say(f"report_build_columns: {len(walked.keys)} columns in {time.perf_counter() - t0:.2f}s")
        model_rows = futures["report_model_coverage"].result()
        coverage = _coverage(model_rows, unresolved)
        public = sum(1 for m in coverage["models"] if m.resource_type == "model" and m.access == "public")
        # undocumented columns (of public models when there are any) and unused ones, read whole
        # while the lineage is walked in memory below (a few rows per model; the walk takes
        # longer), so that the report is written without waiting for Neo4j
        undocumented = stream("report_undocumented_columns", ahead=0, public_only=public > 0)
        unused = stream("report_unused_columns", ahead=0)
        t0 = time.perf_counter()
        walked_rows = _walked_rows(walked, max(top, PICTURE_CANDIDATES), lambda keys: _details(graph, params, keys))
        test_rows = futures["list_build_tests"].result()
        tests = _test_coverage(_tested(model_rows, test_rows, walked), test_rows, futures["report_consumer_inputs"].result(), walked)
        inheritable = column_graph.inheritable(walked)  # while Neo4j still reads the sections written before it
        say(f"reach, PII flow, untested columns and inheritable descriptions in memory in {time.perf_counter() - t0:.2f}s")
        depended_all = [_depended_on(r) for r in walked_rows["depended_on"]]
        t0 = time.perf_counter()
        pictures = _pictures(lambda keys: graph.read("read/report_feeds_of_columns", **params, column_keys=keys), depended_all)
        say(f"report_feeds_of_columns: {len(pictures)} pictures in {time.perf_counter() - t0:.2f}s")
        trends = collect_trends(catalog, history, say) if history else ()
        yield {
            "project": project,
            "build": build,
            "coverage": coverage,
            "pii": _pii(walked_rows["pii"]),
            "undocumented": _undocumented(undocumented, coverage["models"], public),
            "unused": _unused(unused),
            "depended_on": tuple(depended_all[:top]),
            "inheritable": inheritable_stream(walked, inheritable),
            "pictures": pictures,
            "tests": tests,
            "history": trends,
        }


# ---------------------------------------------------------------------------- trends
TREND_STATUSES = ("active", "superseded")  # builds that completed


def collect_trends(catalog: BuildView, count: int, say: Callable[[str], None] = lambda _msg: None) -> tuple[TrendPoint, ...]:
    """The figures of the last ``count`` completed builds of ``catalog``'s project up to its
    build, oldest first, each read as that build (``report_model_coverage``,
    ``report_build_columns`` and ``list_build_tests`` with its id)."""
    graph, project = catalog.graph, catalog.project
    builds = [r["build"] for r in graph.read("read/list_builds", project=project)]
    chosen = [b for b in builds if b.get("status") in TREND_STATUSES and b["id"] <= catalog.build_id][:count]
    points = []
    for b in reversed(chosen):
        t0 = time.perf_counter()
        params = {"project": project, "build_id": b["id"]}
        model_rows = graph.read("read/report_model_coverage", **params)
        totals: CoverageTotals = _coverage(model_rows, ())["totals"]
        walked = ColumnGraph(graph.stream_values("read/report_build_columns", **params, skip=0, limit=ALL_ROWS))
        analyzed = [i for i in range(len(walked.keys)) if walked.in_build[i] and walked.resource_type[i] in ANALYZED]
        reached = set().union(*(column_graph.unmasked_reach(walked, k) for k in walked.pii_columns()))
        tests = _tested(model_rows, graph.read("read/list_build_tests", **params), walked)
        tested = sum(m.tested for m in tests.models if m.resource_type in ANALYZED)
        points.append(TrendPoint(
            build=b["id"], finished_at=None if b.get("finished_at") is None else str(b["finished_at"]),
            models=totals.models, columns=totals.columns, resolved=totals.resolved + totals.no_upstream,
            documented=sum(1 for i in analyzed if walked.documented[i]), tested=tested,
            pii_reached=len(reached), pii_untagged=sum(1 for k in reached if not walked.pii[walked.index[k]]),
        ))  # fmt: skip
        say(f"trends: build {b['id']} in {time.perf_counter() - t0:.2f}s")
    return tuple(points)


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 100.0


def _col(model: str | None, unique_id: str, name: str, project: str | None = None) -> Col:
    # thousands of rows per report: a validated record is built faster than model_construct() builds one
    return Col(model=model or unique_id, unique_id=unique_id, name=name, project=project)


def _col_json(model: str | None, unique_id: str, name: str, project: str | None = None) -> dict[str, Any]:
    """``_col(...).model_dump(mode="json")`` made without the record: the long lists of the report
    (unresolved, PII, undocumented, unused, inheritable) are made as their JSON, which the JSON
    report writes as it comes and :func:`collect_report` validates into the records."""
    model = model or unique_id
    if project is None:
        return {"model": model, "unique_id": unique_id, "name": name, "label": f"{model}.{name}"}
    return {"model": model, "unique_id": unique_id, "name": name, "project": project, "label": f"{project}:{model}.{name}"}


def _other_project(key: str, own_key: str) -> str | None:
    """The project of the column ``key`` (``<project>/<unique_id>.<column>``) when it is not
    that of ``own_key``, a column of the report's own build (dbt Mesh: a consumer's or producer's)."""
    project, own = key.split("/", 1)[0], own_key.split("/", 1)[0]
    return project if project != own else None


def _build_info(build_id: int, b: dict[str, Any]) -> BuildInfo:
    def text(v: Any) -> str | None:
        return None if v is None else str(v)

    return BuildInfo(id=build_id, status=b.get("status"), started_at=text(b.get("started_at")),
                     finished_at=text(b.get("finished_at")), dialect=b.get("dialect"))


# ---------------------------------------------------------------------------- any-depth sections
def _details(graph: Any, params: dict[str, Any], keys: list[str]) -> dict[str, list[Any]]:
    """``report_column_details`` of ``keys``: key -> [key, unique_id, model, column,
    model_unique_id, description, pii, tags, meta, conditions]."""
    if not keys:
        return {}
    rows = graph.read_values("read/report_column_details", **params, column_keys=keys)
    return {c[0]: c for c in rows[0][0]} if rows else {}


def _walked_rows(
    walked: ColumnGraph, limit: int, details: Callable[[list[str]], dict[str, list[Any]]]
) -> dict[str, list[dict[str, Any]]]:
    """The rows ``report_most_depended_on`` and ``report_pii_propagation`` return, computed
    over the build's edges in memory (those of ``report_inheritable_descriptions``:
    :func:`inheritable_rows`)."""
    ranked = column_graph.most_reaching(walked, limit)
    pii_keys = walked.pii_columns()
    pii_reach = {k: column_graph.downstream(walked, k) for k in pii_keys}
    unmasked = {k: column_graph.unmasked_reach(walked, k) for k in pii_keys}
    # names and flags of the build's columns came with the edges; the few rows that show more
    # (conditions, tags, meta), and columns fed from outside the build if any, are read here
    wanted = {r.key for r in ranked} | set(pii_keys)
    wanted.update(d.key for reaches in pii_reach.values() for d in reaches if walked.names[walked.index[d.key]] is None)
    info = details(sorted(wanted))

    def reached(key: str) -> dict[str, Any]:
        i = walked.index[key]
        names = walked.names[i]
        if names is None:
            return {"key": key, "unique_id": info[key][1], "model": info[key][2], "column": info[key][3], "pii": info[key][6]}
        return {"key": key, "unique_id": names[0], "model": names[1], "column": names[2], "pii": walked.pii[i]}

    depended_on = [
        {"key": r.key, "unique_id": info[r.key][4], "model": info[r.key][2], "column": info[r.key][3],
         "description": info[r.key][5], "pii": info[r.key][6], "fanout": r.fanout, "reach": r.reach,
         "models_reached": r.models_reached, "conditions": info[r.key][9]}
        for r in ranked
    ]
    pii = [
        {"key": k, "unique_id": info[k][4], "model": info[k][2], "column": info[k][3], "tags": info[k][7], "meta": info[k][8],
         "reaches": [reached(d.key) | {"depth": d.depth, "types": list(d.types), "masked": d.key not in unmasked[k]} for d in reaches]}
        for k, reaches in pii_reach.items()
    ]
    return {"depended_on": depended_on, "pii": pii}


# ---------------------------------------------------------------------------- coverage
def _severity(status: str) -> int:
    return SEVERITY.index(status) if status in SEVERITY else -1


_PARTIAL_PREFIX = re.compile(r"^\d+ of \d+ columns unresolved: ")


def _coverage(model_rows: list[dict[str, Any]], column_rows: Iterable[Sequence[Any]]) -> dict[str, Any]:
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
    models.sort(key=lambda m: (_severity(m.status), m.name, m.unique_id))
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
        for (s, reason), names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), _severity(kv[0][0]), kv[0][1]))
    )
    unresolved = (  # UnresolvedColumn's JSON
        {"column": _col_json(model, unique_id, column), "model_status": model_status, "kind": kind, "reason": reason,
         "expr": expr or None}
        for unique_id, model, column, model_status, reason, kind, expr in column_rows
    )  # fmt: skip
    return {"totals": totals, "models": tuple(models), "reasons": reasons, "unresolved_columns": unresolved}


# ---------------------------------------------------------------------------- PII
def _tagged_by(tags: list[str] | None, meta: str | None) -> tuple[str, ...]:
    found = [f"tag {t}" for t in (tags or []) if str(t).lower() in PII_TAGS]
    try:
        meta_dict = json.loads(meta) if meta else {}
    except ValueError:
        meta_dict = {}
    if isinstance(meta_dict, dict):
        found += [f"meta {k}" for k, v in meta_dict.items() if str(k).lower() in PII_META_KEYS and v]
    return tuple(sorted(found)) or ("pii",)


def _pii(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The fields of :class:`Pii` from the rows of ``report_pii_propagation``, as their JSON, the
    PII columns made as they are read."""
    reached: dict[str, tuple[dict[str, Any], bool]] = {}  # key -> (Col's JSON, tagged PII)
    unmasked: set[str] = set()
    for r in rows:
        for d in r["reaches"]:
            if d["key"] not in reached:
                reached[d["key"]] = (_col_json(d["model"], d["unique_id"], d["column"], _other_project(d["key"], r["key"])), bool(d["pii"]))
            if not d.get("masked"):
                unmasked.add(d["key"])
    order = sorted(reached.items(), key=lambda kv: (kv[1][0]["model"], kv[1][0]["name"], kv[1][0]["unique_id"]))
    return {
        "columns": (_pii_column(r, reached) for r in sorted(rows, key=lambda r: (r["model"] or r["unique_id"], r["column"], r["unique_id"]))),
        "reached": tuple(c for _, (c, _) in order),
        "untagged": tuple(c for k, (c, tagged) in order if not tagged and k in unmasked),
        "masked": tuple(c for k, (c, _) in order if k not in unmasked),
    }


def _pii_column(r: dict[str, Any], reached: dict[str, tuple[dict[str, Any], bool]]) -> dict[str, Any]:
    """A :class:`PiiColumn`'s JSON, its reaches :class:`PiiReach`'s."""
    reaches = []
    for d in r["reaches"]:
        masked, types = bool(d.get("masked")), list(d["types"])
        effect = "masked" if masked else "copied" if all(t in COPY_TYPES for t in types) else "transformed"
        reaches.append({"column": reached[d["key"]][0], "depth": d["depth"], "types": types, "tagged": bool(d["pii"]),
                        "masked": masked, "effect": effect})
    reaches.sort(key=lambda x: (x["depth"], x["column"]["model"], x["column"]["name"], x["column"]["unique_id"]))
    return {"column": _col_json(r["model"], r["unique_id"], r["column"]), "tagged_by": list(_tagged_by(r["tags"], r["meta"])),
            "reaches": reaches}


# ---------------------------------------------------------------------------- documentation, use
def _undocumented(rows: Iterable[Sequence[Any]], models: Sequence[ModelCoverage], public: int) -> dict[str, Any]:
    """The fields of :class:`Undocumented` from ``report_undocumented_columns``'s (unique_id,
    model, access, [[column, data_type, declared]]), each column's JSON made as it is read."""
    in_scope = [m for m in models if m.resource_type == "model" and (not public or m.access == "public")]
    return {
        "scope": "public_models" if public else "all_models",
        "public_models": public,
        "models_in_scope": len(in_scope),
        "columns_in_scope": sum(m.columns for m in in_scope),
        "columns": (  # UndocumentedColumn's JSON
            {"column": _col_json(model, unique_id, column), "access": access, "data_type": data_type, "declared": bool(declared)}
            for unique_id, model, access, columns in rows
            for column, data_type, declared in columns
        ),
    }


def _unused(rows: Iterable[Sequence[Any]]) -> Iterator[dict[str, Any]]:
    """From ``report_unused_columns``: (unique_id, model, resource_type, dependents, incomplete,
    [[column, data_type]]), each :class:`UnusedColumn`'s JSON made as it is read."""
    for unique_id, model, resource_type, dependents, incomplete, columns in rows:
        incomplete = sorted(incomplete or [])
        for column, data_type in columns:
            yield {"column": _col_json(model, unique_id, column), "resource_type": resource_type, "data_type": data_type,
                   "dependents": dependents, "incomplete_dependents": incomplete}


def _depended_on(r: dict[str, Any]) -> DependedOn:
    return DependedOn(
        key=r["key"], column=_col(r["model"], r["unique_id"], r["column"]), description=r["description"] or None,
        pii=bool(r["pii"]), fanout=r["fanout"], reach=r["reach"], models_reached=r["models_reached"],
        conditions=r["conditions"],
    )


def inheritable_descriptions(walked: ColumnGraph) -> tuple[Inheritable, ...]:
    """What each undocumented model and snapshot column of ``walked`` could inherit, as the
    report's records (``catalog docs`` reads them)."""
    return tuple(Inheritable.model_validate(i) for i in inheritable_stream(walked))


def inheritable_stream(walked: ColumnGraph, found: dict[str, list[Nearest]] | None = None) -> Iterator[dict[str, Any]]:
    """:func:`inheritable_descriptions` in the report's order (by model, column and unique id),
    each :class:`Inheritable`'s JSON made as it is read: per column, its nearest candidates and
    the description they agree on (None when they disagree). ``found``: ``column_graph.inheritable(walked)``,
    when made already (it is emptied as the records are made)."""
    found = column_graph.inheritable(walked) if found is None else found
    index, names, unique_ids, descriptions = walked.index, walked.names, walked.unique_id, walked.description

    def named(key: str) -> tuple[str, str, str, str]:
        i = index[key]
        _, model, column = names[i]  # type: ignore[misc]
        unique_id = unique_ids[i] or ""
        return (model or unique_id, column, unique_id, key)

    def candidate(n: Nearest) -> dict[str, Any]:
        u = index[n.key]
        from_unique_id, from_model, from_column = names[u]  # type: ignore[misc]
        return {"column": _col_json(from_model, from_unique_id, from_column), "description": (descriptions[u] or "").strip(),
                "hops": list(n.types)}  # fmt: skip

    for model, column, unique_id, key in sorted(map(named, found)):
        near = found.pop(key)  # let each answer go once written
        if len(near) == 1:  # most columns: one candidate
            candidates = [candidate(near[0])]
        else:
            nearest = min(n.distance for n in near)
            best = []
            for n in near:
                if n.distance == nearest:
                    _, from_model, from_column = names[index[n.key]]  # type: ignore[misc]
                    best.append((from_model or "", from_column, n.key, n))
            candidates = [candidate(n) for *_, n in sorted(best)]
        first = candidates[0]
        agreed = all(c["description"] == first["description"] for c in candidates)
        yield {
            "column": _col_json(model, unique_id, column),
            "description": first["description"] if agreed else None,
            "source": first["column"] if agreed else None,
            "hops": first["hops"] if agreed else [],
            "candidates": candidates,
            "conflict": not agreed,
        }


def inheritable_rows(walked: ColumnGraph) -> list[dict[str, Any]]:
    """The rows ``report_inheritable_descriptions`` returns, computed in memory."""
    rows = []
    for k, near in column_graph.inheritable(walked).items():
        i = walked.index[k]
        _, model, column = walked.names[i]  # type: ignore[misc]
        for n in near:
            u = walked.index[n.key]
            from_unique_id, from_model, from_column = walked.names[u]  # type: ignore[misc]
            rows.append(
                {"key": k, "unique_id": walked.unique_id[i], "model": model, "column": column, "from_key": n.key,
                 "from_unique_id": from_unique_id, "from_model": from_model, "from_column": from_column,
                 "description": walked.description[u], "distance": n.distance, "types": list(n.types)}
            )
    return rows


# ---------------------------------------------------------------------------- tests
class Tested(NamedTuple):
    """Per node its test counts, and the columns that matter later."""

    models: list[ModelTests]
    untested: list[int]  # the columns no test reads (numbers of ColumnGraph)
    protected: dict[str, str]  # column key -> its public or contracted model


def _tested(model_rows: list[dict[str, Any]], test_rows: list[dict[str, Any]], walked: ColumnGraph) -> Tested:
    """Which columns of each node a test reads: the nodes are ``report_model_coverage``'s rows,
    their columns those of the build in ``walked``, the tests ``list_build_tests``'s, each with
    the columns it reads."""
    read = {key for t in test_rows for key in t["columns"]}
    by_node: dict[str | None, list[int]] = defaultdict(list)
    for i, (unique_id, in_build) in enumerate(zip(walked.unique_id, walked.in_build)):
        if in_build:
            by_node[unique_id].append(i)
    folded = Tested([], [], {})
    keys = walked.keys
    for r in model_rows:
        columns = by_node.get(r["unique_id"])
        if not columns:
            continue
        untested = [i for i in columns if keys[i] not in read]
        folded.models.append(ModelTests(unique_id=r["unique_id"], name=r["name"], resource_type=r["resource_type"],
                                        columns=len(columns), tested=len(columns) - len(untested)))  # fmt: skip
        folded.untested.extend(untested)
        if r["resource_type"] == "model" and (r["access"] == "public" or r["contract"]):
            folded.protected.update((keys[i], r["name"]) for i in columns)
    return folded


def _test_coverage(
    folded: Tested, test_rows: list[dict[str, Any]], input_rows: list[dict[str, Any]], walked: ColumnGraph
) -> DbtTestCoverage:
    """From :func:`_tested`, ``list_build_tests`` and ``report_consumer_inputs``, with the
    build's FEEDS walked in memory for what each untested column reaches."""
    models, protected, untested = folded.models, folded.protected, folded.untested
    models.sort(key=lambda m: (m.tested_pct, m.name, m.unique_id))
    inputs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in input_rows:
        inputs[r["up"]].append((r["down"], f"{r['kind']}:{r['name']}"))
    rows: list[UntestedColumn] = []
    feeding = walked.feeding(set(protected) | set(inputs))
    for i in untested:
        key = walked.keys[i]
        if key not in protected and key not in inputs and i not in feeding:
            continue  # feeds nothing that matters: its reach is not walked
        reach = {walked.keys[d] for d in column_graph.reach_set(walked, i)}
        guarded_models = sorted({protected[k] for k in reach | {key} if k in protected})
        consumers = sorted(_consumers_fed(reach | {key}, inputs))
        if guarded_models or consumers:
            unique_id, model, column = walked.names[i]  # type: ignore[misc]
            rows.append(UntestedColumn(column=_col(model, unique_id, column), downstream_columns=len(reach), protected_models=tuple(guarded_models),
                                       consumers=tuple(consumers)))  # fmt: skip
    rows.sort(key=lambda u: (-u.downstream_columns, -len(u.consumers), u.column.model, u.column.name, u.column.unique_id))
    by_kind = {k: 0 for k in ("generic", "singular", "unit")}
    for t in test_rows:
        by_kind[t["kind"]] = by_kind.get(t["kind"], 0) + 1
    return DbtTestCoverage(
        tests=len(test_rows), by_kind=by_kind, columns=sum(m.columns for m in models), tested=sum(m.tested for m in models),
        models=tuple(models), untested=tuple(rows),
    )  # fmt: skip


def _consumers_fed(keys: set[str], inputs: dict[str, list[tuple[str, str]]]) -> set[str]:
    """kind:name of everything INPUT_OF edges reach from ``keys``, at any depth."""
    inputs_of = {up: [down for down, _ in edges] for up, edges in inputs.items()}
    fed = keys | walks_reached([k for k in keys if k in inputs], lambda k: inputs_of.get(k, ()))
    return {label for k in fed for _, label in inputs.get(k, ())}


# ---------------------------------------------------------------------------- pictures
def _pictures(read_feeds: Callable[[list[str]], list[dict[str, Any]]], ranked: list[DependedOn]) -> tuple[Picture, ...]:
    pictures: list[Picture] = []
    drawn: set[str] = set()
    for d in ranked:
        if len(pictures) == PICTURES:
            break
        if d.key in drawn:
            continue
        pic = _picture(read_feeds, d)
        drawn.update(n.key for n in pic.nodes)
        pictures.append(pic)
    return tuple(pictures)


def _picture(read_feeds: Callable[[list[str]], list[dict[str, Any]]], focus: DependedOn) -> Picture:
    """Walk out from the focus column, layer by layer, both ways, keeping each layer small."""
    cols: dict[str, tuple[Col, bool]] = {focus.key: (focus.column, focus.pii)}
    edges: dict[tuple[str, str], PictureEdge] = {}
    more: dict[int, int] = {}
    truncated = False
    for direction, depth_limit, sign in (("out", PICTURE_DOWNSTREAM_DEPTH, 1), ("in", PICTURE_UPSTREAM_DEPTH, -1)):
        frontier = [focus.key]
        for depth in range(1, depth_limit + 1):
            rows = [r for r in read_feeds(frontier) if r["direction"] == direction]
            found: dict[str, tuple[Col, bool]] = {}
            pending: list[tuple[str, dict[str, Any]]] = []
            for r in rows:
                end = "down" if direction == "out" else "up"
                key = r[f"{end}_key"]
                pending.append((key, r))
                if key not in cols:
                    col = _col(r[f"{end}_model"], r[f"{end}_unique_id"], r[f"{end}_column"], _other_project(key, focus.key))
                    found[key] = (col, bool(r[f"{end}_pii"]))
            kept = sorted(found, key=lambda k: (found[k][0].model, found[k][0].name, k))
            if len(kept) > PICTURE_LAYER_WIDTH:
                more[sign * depth] = len(kept) - PICTURE_LAYER_WIDTH
                kept = kept[:PICTURE_LAYER_WIDTH]
                truncated = True
            for k in kept:
                cols[k] = found[k]
            for key, r in pending:
                if key in cols:
                    edges[(r["up_key"], r["down_key"])] = PictureEdge(
                        up=r["up_key"], down=r["down_key"], type=r["type"], expr=r["expr"], resolved=r["resolved"]
                    )
            frontier = kept
            if not frontier:
                break
        else:
            if frontier and any(r["direction"] == direction for r in read_feeds(frontier)):
                truncated = True
    layers = _layers(focus.key, cols, list(edges.values()))
    nodes = [
        PictureNode(key=k, column=c, layer=layers[k], pii=pii, focus=k == focus.key)
        for k, (c, pii) in cols.items()
    ]
    nodes += [PictureNode(key=f"more:{layer}", column=None, layer=layer, more=n) for layer, n in more.items()]
    nodes.sort(key=lambda n: (n.layer, n.more > 0, n.column.model if n.column else "", n.column.name if n.column else "", n.key))
    return Picture(
        focus=focus.column,
        nodes=tuple(nodes),
        edges=tuple(sorted(edges.values(), key=lambda e: (e.up, e.down))),
        truncated=truncated,
    )


def _layers(focus: str, cols: dict[str, Any], edges: list[PictureEdge]) -> dict[str, int]:
    """Downstream columns at their longest distance from the focus, upstream ones at minus
    their longest distance to it, so that every edge points right."""
    children: dict[str, list[str]] = defaultdict(list)
    parents: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        children[e.up].append(e.down)
        parents[e.down].append(e.up)
    layer = {focus: 0}
    for adjacency, sign in ((children, 1), (parents, -1)):
        stack = [focus]
        bound = len(cols)  # longest simple path; guards against a cycle
        while stack:
            k = stack.pop()
            for n in adjacency.get(k, []):
                want = layer[k] + sign
                if n not in layer or (sign > 0 and want > layer[n]) or (sign < 0 and want < layer[n]):
                    if abs(want) <= bound:
                        layer[n] = want
                        stack.append(n)
    for k in cols:
        layer.setdefault(k, 0)
    return layer
