"""The governance report's records: what each section holds, with the note shown beside it
(:data:`NOTES`). Plain frozen records in a deterministic order; :mod:`catalog.report.governance`
fills them, ``governance_render`` writes them as JSON and Markdown, ``governance_html`` as HTML.

The report's long lists (unresolved, PII, undocumented, unused, inheritable) are made as their
JSON without the records (:func:`col_json`), which the JSON report writes as it comes; the
Markdown and HTML reports hold them packed (:class:`PackedRows`), each record made when read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Annotated, Any, Generic, TypeVar, overload

from pydantic import BaseModel, ValidatorFunctionWrapHandler, WrapValidator, computed_field, model_serializer

try:
    import orjson
except ImportError:  # pragma: no cover - the fast extra is optional
    orjson = None  # type: ignore[assignment]

R = TypeVar("R", bound=BaseModel)


class PackedRows(Sequence[R], Generic[R]):
    """A long list of the report's records held as the JSON text of each (a few hundred bytes,
    where the record and its strings take several times that), each record made when it is
    read: the Markdown and HTML reports of a large build hold their lists this way and make
    records only of the rows they show."""

    def __init__(self, record: type[R], items: Iterable[dict[str, Any]]):
        self.record = record
        # as text: orjson's bytes keep the buffer they were written in (4 kB for a row of 250 bytes)
        encode = json.dumps if orjson is None else lambda v: orjson.dumps(v).decode()
        self._items = [encode(item) for item in items]

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, at: int) -> R: ...
    @overload
    def __getitem__(self, at: slice) -> tuple[R, ...]: ...
    def __getitem__(self, at: int | slice) -> R | tuple[R, ...]:
        if isinstance(at, slice):
            return tuple(map(self.record.model_validate_json, self._items[at]))
        return self.record.model_validate_json(self._items[at])

    def __iter__(self) -> Iterator[R]:
        return map(self.record.model_validate_json, self._items)


def _packed_as_it_is(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    return value if isinstance(value, PackedRows) else handler(value)


# a long list of the report: a tuple of records, or those records packed (PackedRows)
Rows = Annotated[tuple[R, ...], WrapValidator(_packed_as_it_is)]

from catalog.walks import COPY_TYPES

STATUSES = ("resolved", "partial", "unresolved", "opaque", "failed")
SEVERITY = ("failed", "unresolved", "opaque", "partial", "resolved")  # order of the per-model table: problems first
ANALYZED = ("model", "snapshot")  # dbt nodes whose SQL is analyzed; sources and seeds are origins

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
        "Columns nothing reads, as catalog unused lists them: no column or BI field they feed, no use in a "
        "WHERE, JOIN, GROUP BY, HAVING, QUALIFY, window or ORDER BY, no semantic model, metric, exposure, "
        "saved query or dbt test reading them (an exposure without meta.referenced_columns reads every "
        "column of its models); or read only by columns that are unused themselves (drop those first). "
        "They are candidates to drop or to stop computing. End models, which no node depends on and no "
        "consumer reads, are left out (their columns are the project's output, read outside the catalog "
        "if at all), and so are sources. A dependent whose own lineage is not fully resolved may read a "
        "column unseen: such rows name it."
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
    "bi": (
        "The BI fields, charts and dashboards the build read from the BI tools' files (catalog build --bi), by "
        "tool, and the fields that are unresolved, with their reason: a column that is not in the model (neither "
        "in its SQL nor in the warehouse), a field or explore that does not exist, or no column read at all. "
        "Column impact reaches the resolved ones; an unresolved field keeps what it does read."
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
    :func:`col_json` (the report's long lists): a field changed here changes there too."""

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
        return pct(self.by_status.get("resolved", 0), self.models)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def columns_resolved_pct(self) -> float:
        return pct(self.resolved + self.no_upstream, self.columns)


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
    unresolved_columns: Rows[UnresolvedColumn]


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
    columns: Rows[PiiColumn]
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
    columns: Rows[UndocumentedColumn]


class UnusedColumn(BaseModel, frozen=True):
    column: Col
    resource_type: str
    data_type: str | None
    dependents: int
    incomplete_dependents: tuple[str, ...]
    reason: str  # no reader, or read only by unused columns (catalog.lineage.unused)
    read_by: tuple[str, ...] = ()  # the unused columns that read it


class UnresolvedBIField(BaseModel, frozen=True):
    tool: str
    tool_id: str  # the tool's own id: orders_total_order_amount, orders.total_revenue
    kind: str
    file: str | None = None
    line: int | None = None
    reason: str


class BIFields(BaseModel, frozen=True):
    """The build's BI definitions: how many of each, by tool, and the unresolved fields."""

    fields: int = 0
    charts: int = 0
    dashboards: int = 0
    by_tool: dict[str, int] = {}  # fields per tool
    unresolved: tuple[UnresolvedBIField, ...] = ()  # fields, and charts a dashboard names that no file defines


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
        return pct(self.resolved, self.columns)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def documented_pct(self) -> float:
        return pct(self.documented, self.columns)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tested_pct(self) -> float:
        return pct(self.tested, self.columns)


class ModelTests(BaseModel, frozen=True):
    unique_id: str
    name: str
    resource_type: str
    columns: int
    tested: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tested_pct(self) -> float:
        return pct(self.tested, self.columns)


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
        return pct(self.tested, self.columns)


class GovernanceReport(BaseModel, frozen=True):
    project: str
    build: BuildInfo
    coverage: Coverage
    pii: Pii
    undocumented: Undocumented
    unused: Rows[UnusedColumn]
    depended_on: tuple[DependedOn, ...]
    inheritable: Rows[Inheritable]
    pictures: tuple[Picture, ...]
    tests: DbtTestCoverage
    history: tuple[TrendPoint, ...] = ()  # only with collect_report(history=N)
    bi: BIFields = BIFields()  # only when the build read BI folders


# ---------------------------------------------------------------------------- columns
def pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 100.0


def col_record(model: str | None, unique_id: str, name: str, project: str | None = None) -> Col:
    # thousands of rows per report: a validated record is built faster than model_construct() builds one
    return Col(model=model or unique_id, unique_id=unique_id, name=name, project=project)


def col_json(model: str | None, unique_id: str, name: str, project: str | None = None) -> dict[str, Any]:
    """``col_record(...).model_dump(mode="json")`` made without the record: the long lists of the report
    (unresolved, PII, undocumented, unused, inheritable) are made as their JSON, which the JSON
    report writes as it comes and :func:`collect_report` validates into the records."""
    model = model or unique_id
    if project is None:
        return {"model": model, "unique_id": unique_id, "name": name, "label": f"{model}.{name}"}
    return {"model": model, "unique_id": unique_id, "name": name, "project": project, "label": f"{project}:{model}.{name}"}


def other_project(key: str, own_key: str) -> str | None:
    """The project of the column ``key`` (``<project>/<unique_id>.<column>``) when it is not
    that of ``own_key``, a column of the report's own build (dbt Mesh: a consumer's or producer's)."""
    project, own = key.split("/", 1)[0], own_key.split("/", 1)[0]
    return project if project != own else None
