"""The lineage of a dbt project as OpenLineage run events (spec 2-0-2).

One ``COMPLETE`` run event per model and snapshot (ephemeral models are no dataset: their
lineage is folded into the models that read them, as dbt inlines them). Each event has:

- ``job``: namespace (``--namespace``, default the dbt project name), name the model's
  unique id; facets ``jobType`` (integration ``DBT``, ``MODEL`` or ``SNAPSHOT``) and ``sql``.
- ``inputs``: the relations the model reads, with their ``schema`` facet.
- ``outputs``: the model's relation with facets ``schema``, ``documentation`` and
  ``columnLineage``: per output column its input columns, ``DIRECT`` with subtype
  ``IDENTITY`` (passthrough, renamed), ``AGGREGATION`` (an aggregate function in the
  expression) or ``TRANSFORMATION`` (any other expression), the expression as description,
  and ``masking: true`` when the column is a hash or mask of its inputs (:mod:`catalog.masking`);
  and in ``dataset`` the columns used in conditions, ``INDIRECT`` with subtype ``JOIN``,
  ``FILTER`` (where, having, qualify), ``GROUP_BY``, ``SORT`` or ``WINDOW``, the clause as
  description. A column with no upstream column (a constant, ``count(*)``) has no input
  fields; a column whose origin is unknown is left out.
- ``run``: a run id derived from the job and the event time, and an ``extractionError``
  facet where the analysis left columns unresolved.

Then one event per exposure (a dashboard, notebook, application: a job that reads datasets
and writes none): ``job`` in the same namespace, named by the exposure's unique id, with
``jobType`` (``DBT``, ``EXPOSURE``) and the custom facet ``dbtColumnCatalog_exposure``
(schema: ``ExposureJobFacet.json`` beside this file): its ``precision`` (``column`` when
``meta.referenced_columns`` lists what it reads, else ``model``), type, url, owner, maturity,
description and, with column precision,
the ``referencedColumns`` as input fields (``namespace``, ``name``, ``field``); ``inputs``: the
relations it depends on (another project's model in that project's namespace, dbt Mesh).

Then one event per BI chart and dashboard (``catalog build --bi``, :mod:`catalog.bi`): a job
named by its unique id (``chart.lightdash.<slug>``), ``jobType`` (integration ``LIGHTDASH``,
``LOOKER`` or ``METABASE``, ``CHART`` or ``DASHBOARD``), the custom facet ``dbtColumnCatalog_bi`` (same schema
file): its tool, the tool's id, name, file and line, and every field it shows (a dashboard:
those of its charts and its filters) with its role, status and input fields; ``inputs``: the
relations those fields read.

Everything is deterministic for the same input: the event time is the manifest's
``generated_at`` and the run id a UUID (version 5) of the job namespace, job name and that
time. The conversion reads ``ExportInput`` (dbt nodes and ``ModelLineage`` records), so that
a build stored in Neo4j can be exported through the same code.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime, timezone
from enum import IntEnum
from typing import Any

import sqlglot
from pydantic import BaseModel, ConfigDict
from sqlglot import exp

from catalog import __version__
from catalog.analyze.records import ColumnKind, ColumnLineage, ConditionClause, ModelLineage, ModelStatus, column_names
from catalog.bi_records import BIChart, BIDashboard, BIField
from catalog.extract import DbtColumn, DbtExposure, DbtNode, DbtProject, DbtTest, measure_owners
from catalog.idents import typed
from catalog.masking import is_masked, masking_names
from catalog.walks import reached

SPEC_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
FACETS_URL = "https://openlineage.io/spec/facets"
PRODUCER = f"urn:dbt-column-catalog:{__version__}"
EPOCH = "1970-01-01T00:00:00.000000Z"
RUN_ID_NAMESPACE = uuid.UUID("9f5b5e2e-6f43-5b1e-8d7a-0c7e3c1d2a41")  # fixed: run ids never change meaning


# --------------------------------------------------------------------------- input records


def dataset_name(node: DbtNode) -> str:
    """``database.schema.table``, the parts the warehouse has (OpenLineage's naming for SQL warehouses)."""
    return ".".join(p for p in (node.database, node.schema_name, node.identifier) if p)


class ExportInput(BaseModel):
    """A project's nodes and their analyzed lineage: everything an export reads.

    Of a node it uses the relation (database, schema_name, identifier), resource_type,
    materialized, description, sql, columns (name, data_type, description) and depends_on.
    """

    model_config = ConfigDict(frozen=True)

    project: str
    adapter_type: str
    dialect: str
    generated_at: str | None = None
    build_id: int | None = None  # the stored build read, when read from Neo4j
    relations: dict[str, DbtNode]
    lineages: dict[str, ModelLineage]
    # the consumers (read by the explorer, not exported): semantic models, metrics, exposures
    # and saved queries; a semantic model's lineage; (upstream, consumer, type, expr) edges
    consumers: dict[str, ConsumerNode] = {}
    semantic: dict[str, ModelLineage] = {}
    consumer_edges: tuple[tuple[str, str, str, str], ...] = ()
    exposures: dict[str, DbtExposure] = {}  # exported as jobs that read their models
    # with ``tests``: the project's data and unit tests, each with the columns it reads
    # (catalog.analyze.dbt_tests: a stored build's own record of them)
    tests: dict[str, DbtTest] = {}
    masking_functions: tuple[str, ...] = ()  # the project's own (catalog.masking), besides the built-in ones
    # BI (catalog.bi): fields, charts and dashboards, exported as jobs; each field's columns
    # (column ids) and status (resolved or unresolved, reason)
    bi_fields: dict[str, BIField] = {}
    charts: dict[str, BIChart] = {}
    dashboards: dict[str, BIDashboard] = {}
    bi_columns: dict[str, tuple[str, ...]] = {}
    bi_status: dict[str, tuple[str, str | None]] = {}


class ConsumerNode(BaseModel):
    """A semantic model, metric, exposure or saved query, as the explorer shows it."""

    model_config = ConfigDict(frozen=True)

    unique_id: str
    kind: str  # semantic_model, metric, exposure, saved_query
    name: str
    label: str | None = None
    description: str = ""
    detail: str = ""  # a metric's type, an exposure's type and precision (``dashboard, column-level``), the model a semantic model reads
    depends_on: tuple[str, ...] = ()  # the nodes and consumers it reads
    elements: tuple[tuple[str, str], ...] = ()  # a semantic model's (name, entity | dimension | measure)


def export_input(
    project: DbtProject, lineages: dict[str, ModelLineage], *, consumers: bool = False, build_id: int | None = None,
    tests: bool = False,
) -> ExportInput:
    """The export's input from artifacts read by ``load_project`` and analyzed by ``analyze_project``,
    or from the records and lineage of stored build ``build_id``; with ``consumers``, also the
    project's semantic models, metrics, exposures and saved queries; with ``tests``, its tests
    and the columns each reads."""
    extra: dict[str, Any] = {}
    if consumers:
        from catalog.bi.link import consumer_lineage

        semantic, edges = consumer_lineage(project, column_names(lineages))
        extra = {"consumers": consumer_nodes(project), "semantic": semantic, "consumer_edges": tuple(edges)}
    if tests and any(t.sql is not None for t in project.tests.values()):  # SQL still to read: artifacts
        from catalog.analyze.dbt_tests import columns_tested, with_columns

        extra["tests"] = {uid: with_columns(project.tests[uid], refs) for uid, refs in columns_tested(project, column_names(lineages)).items()}
    elif tests:  # each with its columns already (a stored build's records), read without the analyzer
        extra["tests"] = dict(project.tests)
    if project.bi_fields:
        from catalog.bi.link import Linked

        linked = Linked(project, column_names(lineages))
        extra |= {
            "bi_fields": project.bi_fields, "charts": project.charts, "dashboards": project.dashboards,
            "bi_columns": {uid: tuple(sorted(cols)) for uid, cols in linked.columns.items()},
            "bi_status": {uid: linked.status(uid) for uid in project.bi_fields},
        }  # fmt: skip
    return ExportInput(
        project=project.name,
        adapter_type=project.adapter_type,
        dialect=project.dialect,
        generated_at=project.generated_at,
        build_id=build_id,
        relations=project.nodes,
        lineages=lineages,
        exposures=project.exposures,
        masking_functions=project.masking_functions,
        **extra,
    )


def consumer_nodes(project: DbtProject) -> dict[str, ConsumerNode]:
    """Every consumer of ``project`` with what it reads, keyed by unique id."""
    owners = measure_owners(project)
    out: dict[str, ConsumerNode] = {}
    for uid, sm in project.semantic_models.items():
        out[uid] = ConsumerNode(unique_id=uid, kind="semantic_model", name=sm.name, description=sm.description,
                                detail=(sm.model or "").rsplit(".", 1)[-1], depends_on=(sm.model,) if sm.model else (),
                                elements=tuple((e.name, e.kind) for e in sm.elements))  # fmt: skip
    for uid, m in project.metrics.items():
        reads = [owners[n] for n in m.measures if n in owners] + list(m.metrics)
        out[uid] = ConsumerNode(unique_id=uid, kind="metric", name=m.name, label=m.label, description=m.description,
                                detail=m.type or "", depends_on=tuple(dict.fromkeys(reads)))  # fmt: skip
    for uid, e in project.exposures.items():
        out[uid] = ConsumerNode(unique_id=uid, kind="exposure", name=e.name, label=e.label, description=e.description,
                                detail=", ".join(filter(None, (e.type, f"{e.precision}-level"))), depends_on=e.depends_on)  # fmt: skip
    for uid, q in project.saved_queries.items():
        out[uid] = ConsumerNode(unique_id=uid, kind="saved_query", name=q.name, description=q.description, depends_on=q.depends_on)
    for uid, f in project.bi_fields.items():  # a BI field reads its model's columns and the fields it names
        reads = [r.target.split("\t", 1)[0] if r.kind == "column" else r.target for r in f.reads if r.kind != "missing"]
        out[uid] = ConsumerNode(unique_id=uid, kind="bi_field", name=f.tool_id, label=f.label or None, description=f.sql,
                                detail=f"{f.tool} {f.kind}", depends_on=tuple(dict.fromkeys(reads)))  # fmt: skip
    for uid, c in project.charts.items():
        out[uid] = ConsumerNode(unique_id=uid, kind="chart", name=c.tool_id, label=c.name, detail=f"{c.tool} {c.kind}",
                                depends_on=tuple(f for f, _ in c.shows))  # fmt: skip
    for uid, d in project.dashboards.items():
        out[uid] = ConsumerNode(unique_id=uid, kind="dashboard", name=d.tool_id, label=d.name, detail=d.tool,
                                depends_on=(*d.holds, *(f for f, _ in d.shows)))  # fmt: skip
    return out


# --------------------------------------------------------------------------- naming

# dbt adapter type -> OpenLineage dataset namespace scheme (the spec's naming conventions)
SCHEMES = {
    "snowflake": "snowflake",
    "postgres": "postgres",
    "redshift": "redshift",
    "bigquery": "bigquery",
    "duckdb": "duckdb",
    "databricks": "databricks",
    "spark": "spark",
    "trino": "trino",
    "athena": "awsathena",
    "sqlserver": "mssql",
    "fabric": "fabric-warehouse",
    "synapse": "sqlserver",
    "clickhouse": "clickhouse",
    "mysql": "mysql",
    "oracle": "oracle",
}
# what the namespace would need that dbt's artifacts do not hold
MISSING_PART = {"snowflake": "account", "duckdb": "database file's path", "athena": "region"}
UNKNOWN = "unknown"


def default_dataset_namespace(data: ExportInput) -> tuple[str, str | None]:
    """The dataset namespace for the project's warehouse, and what is missing from it (None: complete).

    ``bigquery`` is complete. DuckDB's is ``duckdb://{database}.duckdb``: dbt-duckdb names the
    database after the file. Every other warehouse needs a host, port or account that the
    artifacts do not hold: ``{scheme}://unknown``.
    """
    adapter = data.adapter_type.lower()
    scheme = SCHEMES.get(adapter, adapter)
    if scheme == "bigquery":
        return "bigquery", None
    missing = MISSING_PART.get(adapter, "host and port")
    if adapter == "duckdb":
        databases = sorted(
            r.database for r in data.relations.values() if r.database and r.resource_type in ("model", "snapshot") and not r.external_project
        )
        if databases:
            most = max(dict.fromkeys(databases), key=databases.count)
            return f"duckdb://{most}.duckdb", missing
    return f"{scheme}://{UNKNOWN}", missing


def namespace_of(data: ExportInput, rel: DbtNode, default: str) -> str:
    """A dataset's namespace: the project's, except for another project's model in DuckDB (dbt
    Mesh), which lives in that project's file (dbt-duckdb names the database after it): the
    namespace that project's own export gives the dataset."""
    if rel.external_project and rel.database and data.adapter_type.lower() == "duckdb":
        return f"duckdb://{rel.database}.duckdb"
    return default


def run_id(job_namespace: str, job_name: str, event_time: str) -> str:
    return str(uuid.uuid5(RUN_ID_NAMESPACE, f"{job_namespace}\n{job_name}\n{event_time}"))


def event_time(generated_at: str | None) -> str:
    """The manifest's ``generated_at`` in UTC (``...Z``); the epoch when the manifest has none."""
    if not generated_at:
        return EPOCH
    try:
        moment = datetime.fromisoformat(generated_at.replace("Z", "+00:00"))
    except ValueError:
        return EPOCH
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# --------------------------------------------------------------------------- transformations


class Direct(IntEnum):
    """DIRECT subtypes, weakest first: through an ephemeral model the strongest one wins."""

    IDENTITY = 1
    TRANSFORMATION = 2
    AGGREGATION = 3


INDIRECT = {
    ConditionClause.JOIN: "JOIN",
    ConditionClause.WHERE: "FILTER",
    ConditionClause.HAVING: "FILTER",
    ConditionClause.QUALIFY: "FILTER",
    ConditionClause.GROUP_BY: "GROUP_BY",
    ConditionClause.ORDER_BY: "SORT",
    ConditionClause.WINDOW: "WINDOW",
}


def has_aggregate(expr: str, dialect: str) -> bool:
    """Whether the expression calls an aggregate function (``sum``, ``count``, ``first_value`` ...)."""
    try:
        tree = sqlglot.parse_one(expr, read=dialect)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return False
    return tree is not None and tree.find(exp.AggFunc) is not None


def direct_subtype(column: ColumnLineage, dialect: str) -> Direct:
    if column.kind in (ColumnKind.PASSTHROUGH, ColumnKind.RENAMED):
        return Direct.IDENTITY
    return Direct.AGGREGATION if has_aggregate(column.expr, dialect) else Direct.TRANSFORMATION


Field = tuple[str, str]  # (unique id of a relation, lower-case column)


class _Lineage:
    """Column lineage between datasets: ephemeral models are looked through."""

    def __init__(self, data: ExportInput) -> None:
        self.data = data
        self._through: dict[Field, dict[Field, Direct]] = {}

    def is_ephemeral(self, uid: str) -> bool:
        rel = self.data.relations.get(uid)
        return rel is not None and rel.is_ephemeral

    def feeds(self, column: ColumnLineage) -> dict[Field, Direct]:
        """The dataset columns that feed an output column, with the strongest subtype on the way."""
        own = direct_subtype(column, self.data.dialect)
        found: dict[Field, Direct] = {}
        for src in column.sources:
            key = (src.unique_id, typed(src.column))
            upstream = self.through(key) if self.is_ephemeral(src.unique_id) else {key: Direct.IDENTITY}
            for field, sub in upstream.items():
                found[field] = max(found.get(field, Direct.IDENTITY), own, sub)
        return found

    def through(self, field: Field) -> dict[Field, Direct]:
        """What feeds a column of an ephemeral model (nothing when its lineage is not known)."""
        if field not in self._through:
            self._through[field] = {}  # a cycle ends here
            lineage = self.data.lineages.get(field[0])
            column = lineage.column(field[1]) if lineage else None
            self._through[field] = self.feeds(column) if column else {}
        return self._through[field]

    def conditions(self, uid: str) -> dict[Field, set[str]]:
        """The dataset columns used in the conditions of a model and of the ephemeral models it reads."""
        found: dict[Field, set[str]] = {}
        for model in [uid, *self.ephemeral_upstream(uid)]:
            lineage = self.data.lineages.get(model)
            for cond in lineage.conditions if lineage else ():
                key = (cond.column.unique_id, typed(cond.column.column))
                fields = self.through(key) if self.is_ephemeral(key[0]) else {key: Direct.IDENTITY}
                for field in fields:
                    found.setdefault(field, set()).add(cond.clause.value)
        return found

    def ephemeral_upstream(self, uid: str) -> list[str]:
        """The ephemeral models a model reads, directly or through other ephemeral models."""
        return sorted(reached([uid], self._depends_on, keep=self.is_ephemeral))

    def inputs(self, uid: str) -> list[str]:
        """The relations a model reads, ephemeral models replaced by what they read."""
        found = {d for m in [uid, *self.ephemeral_upstream(uid)] for d in self._depends_on(m) if not self.is_ephemeral(d)}
        return sorted(found)

    def _depends_on(self, uid: str) -> tuple[str, ...]:
        rel = self.data.relations.get(uid)
        return tuple(d for d in rel.depends_on if d in self.data.relations) if rel else ()


# --------------------------------------------------------------------------- events


def _facet(name: str, version: str, **body: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": f"{FACETS_URL}/{version}/{name}.json#/$defs/{name}", **body}


class _Names:
    """Column names as the warehouse spells them, from a column's name (:mod:`catalog.idents`)."""

    def __init__(self, data: ExportInput) -> None:
        self._by_relation = {
            uid: {c.key_name(data.dialect): c.name for c in rel.columns} for uid, rel in data.relations.items()
        }

    def __call__(self, uid: str, column: str) -> str:
        return self._by_relation.get(uid, {}).get(typed(column), column)


def openlineage_events(
    data: ExportInput, job_namespace: str | None = None, dataset_namespace: str | None = None
) -> list[dict[str, Any]]:
    """One COMPLETE run event per model and snapshot that has a relation, sorted by unique id."""
    job_ns = job_namespace or data.project
    dataset_ns = dataset_namespace or default_dataset_namespace(data)[0]
    when = event_time(data.generated_at)
    lineage = _Lineage(data)
    names = _Names(data)
    events = []
    for uid, rel in sorted(data.relations.items()):
        if rel.resource_type not in ("model", "snapshot") or rel.is_ephemeral or rel.external_project:
            continue  # another project's model (dbt Mesh) is a job of that project's export
        events.append(_event(data, rel, lineage, names, job_ns, dataset_ns, when))
    for uid, exposure in sorted(data.exposures.items()):
        events.append(_exposure_event(data, exposure, lineage, names, job_ns, dataset_ns, when))
    for uid in sorted(data.charts) + sorted(data.dashboards):
        events.append(_bi_event(data, uid, names, job_ns, dataset_ns, when))
    return events


BI_FACET = "dbtColumnCatalog_bi"


def _bi_event(data: ExportInput, uid: str, names: _Names, job_ns: str, dataset_ns: str, when: str) -> dict[str, Any]:
    """A BI chart or dashboard as a job run that reads the relations its fields read and writes
    no dataset; its tool, id, file and fields (each with its status and input fields) in its own facet."""
    item: BIChart | BIDashboard = data.charts.get(uid) or data.dashboards[uid]
    shown = dict(item.shows)
    charts = [data.charts[c] for c in item.holds] if isinstance(item, BIDashboard) else []
    for c in charts:
        for f, role in c.shows:
            shown.setdefault(f, role)
    fields = []
    read: set[str] = set()
    for fid, role in sorted(shown.items()):
        f = data.bi_fields.get(fid)
        if f is None:
            continue
        status, reason = data.bi_status.get(fid, ("unresolved", "not linked"))
        inputs = []
        for key in data.bi_columns.get(fid, ()):
            node, column = key.rsplit(".", 1)
            rel = data.relations.get(node)
            if rel is not None:
                read.add(node)
                inputs.append({"namespace": namespace_of(data, rel, dataset_ns), "name": dataset_name(rel), "field": names(node, column)})
        entry = {"toolId": f.tool_id, "kind": f.kind, "role": role, "status": status, "inputFields": inputs}
        fields.append(entry | ({"reason": reason} if reason else {}) | ({"expression": f.sql} if f.sql else {}))
    body: dict[str, Any] = {"tool": item.tool, "toolId": item.tool_id, "name": item.name, "file": item.file, "fields": fields}
    body |= {"line": item.line} if item.line is not None else {}
    body |= {"charts": [c.tool_id for c in charts]} if isinstance(item, BIDashboard) else {}
    facets: dict[str, Any] = {
        "jobType": _facet("JobTypeJobFacet", "2-0-4", processingType="BATCH", integration=item.tool.upper(),
                          jobType="DASHBOARD" if isinstance(item, BIDashboard) else "CHART"),
        BI_FACET: {"_producer": PRODUCER, "_schemaURL": f"{EXPOSURE_SCHEMA}#/$defs/BIJobFacet", **body},
    }  # fmt: skip
    return {
        "eventType": "COMPLETE",
        "eventTime": when,
        "producer": PRODUCER,
        "schemaURL": f"{SPEC_URL}#/$defs/RunEvent",
        "run": {"runId": run_id(job_ns, uid, when)},
        "job": {"namespace": job_ns, "name": uid, "facets": facets},
        "inputs": [_dataset(data.relations[n], namespace_of(data, data.relations[n], dataset_ns), _dataset_facets(data.relations[n], data.lineages.get(n))) for n in sorted(read)],
        "outputs": [],
    }


# the exposure's custom job facet (OpenLineage: a custom facet's name has its producer's prefix)
EXPOSURE_FACET = "dbtColumnCatalog_exposure"
EXPOSURE_SCHEMA = "urn:dbt-column-catalog:facets:1-0-0:ExposureJobFacet.json"  # the $id of catalog/export/ExposureJobFacet.json


def _exposure_event(
    data: ExportInput, exposure: DbtExposure, lineage: _Lineage, names: _Names, job_ns: str, dataset_ns: str, when: str
) -> dict[str, Any]:
    """An exposure as a job run that reads the relations it depends on (ephemeral models
    replaced by what they read) and writes no dataset; its precision in its own facet."""
    reads = {d for d in exposure.depends_on if d in data.relations}
    found = sorted({d for d in reads if not lineage.is_ephemeral(d)} | {i for d in reads if lineage.is_ephemeral(d) for i in lineage.inputs(d)})
    body: dict[str, Any] = {"precision": exposure.precision}
    written = (("type", exposure.type), ("url", exposure.url), ("owner", exposure.owner), ("maturity", exposure.maturity), ("description", exposure.description))
    body |= {k: v for k, v in written if v}
    if exposure.referenced_columns:
        fields = []
        for rc in exposure.referenced_columns:
            nodes = [rc.node] if rc.node else found
            for uid in nodes:
                rel = data.relations.get(uid)
                if rel is not None and uid in found and any(c.key_name(data.dialect) == typed(rc.name) for c in rel.columns):
                    fields.append({"namespace": namespace_of(data, rel, dataset_ns), "name": dataset_name(rel), "field": names(uid, rc.name)})
        body["referencedColumns"] = fields
    facets: dict[str, Any] = {
        "jobType": _facet("JobTypeJobFacet", "2-0-4", processingType="BATCH", integration="DBT", jobType="EXPOSURE"),
        EXPOSURE_FACET: {"_producer": PRODUCER, "_schemaURL": f"{EXPOSURE_SCHEMA}#/$defs/ExposureJobFacet", **body},
    }
    return {
        "eventType": "COMPLETE",
        "eventTime": when,
        "producer": PRODUCER,
        "schemaURL": f"{SPEC_URL}#/$defs/RunEvent",
        "run": {"runId": run_id(job_ns, exposure.unique_id, when)},
        "job": {"namespace": job_ns, "name": exposure.unique_id, "facets": facets},
        "inputs": [_dataset(data.relations[uid], namespace_of(data, data.relations[uid], dataset_ns), _dataset_facets(data.relations[uid], data.lineages.get(uid))) for uid in found],
        "outputs": [],
    }


def _event(
    data: ExportInput, rel: DbtNode, lineage: _Lineage, names: _Names, job_ns: str, dataset_ns: str, when: str
) -> dict[str, Any]:
    model = data.lineages.get(rel.unique_id)
    column_lineage, fields_read = _column_lineage(data, rel, model, lineage, names, dataset_ns)
    read = set(lineage.inputs(rel.unique_id)) | {uid for uid, _ in fields_read}
    job_facets: dict[str, Any] = {
        "jobType": _facet(
            "JobTypeJobFacet",
            "2-0-4",
            processingType="BATCH",
            integration="DBT",
            jobType="SNAPSHOT" if rel.resource_type == "snapshot" else "MODEL",
        )
    }
    if rel.sql:
        job_facets["sql"] = _facet("SQLJobFacet", "1-1-0", query=rel.sql, dialect=data.dialect)
    output_facets = _dataset_facets(rel, model)
    if column_lineage:
        output_facets["columnLineage"] = _facet("ColumnLineageDatasetFacet", "1-2-0", **column_lineage)
    run: dict[str, Any] = {"runId": run_id(job_ns, rel.unique_id, when)}
    if model is not None and (error := _extraction_error(model)):
        run["facets"] = {"extractionError": error}
    return {
        "eventType": "COMPLETE",
        "eventTime": when,
        "producer": PRODUCER,
        "schemaURL": f"{SPEC_URL}#/$defs/RunEvent",
        "run": run,
        "job": {"namespace": job_ns, "name": rel.unique_id, "facets": job_facets},
        "inputs": [
            _dataset(data.relations[uid], namespace_of(data, data.relations[uid], dataset_ns), _dataset_facets(data.relations[uid], data.lineages.get(uid)))
            for uid in sorted(read)
        ],
        "outputs": [_dataset(rel, dataset_ns, output_facets)],
    }


def _dataset(rel: DbtNode, namespace: str, facets: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"namespace": namespace, "name": dataset_name(rel)}
    if facets:
        entry["facets"] = facets
    return entry


def _dataset_facets(rel: DbtNode, model: ModelLineage | None) -> dict[str, Any]:
    """``schema`` (the columns of catalog.json or YAML, else of the analysis) and ``documentation``."""
    if rel.columns:
        fields = [_schema_field(c, i) for i, c in enumerate(rel.columns, start=1)]
    else:
        fields = [{"name": c.name} for c in model.columns] if model else []
    facets: dict[str, Any] = {}
    if fields:
        facets["schema"] = _facet("SchemaDatasetFacet", "1-2-0", fields=fields)
    if rel.description:
        facets["documentation"] = _facet("DocumentationDatasetFacet", "1-1-0", description=rel.description)
    return facets


def _schema_field(column: DbtColumn, position: int) -> dict[str, Any]:
    field: dict[str, Any] = {"name": column.name}
    if column.data_type:
        field["type"] = column.data_type
    if column.description:
        field["description"] = column.description
    field["ordinal_position"] = position
    return field


def _column_lineage(
    data: ExportInput,
    rel: DbtNode,
    model: ModelLineage | None,
    lineage: _Lineage,
    names: _Names,
    namespace: str,
) -> tuple[dict[str, Any] | None, set[Field]]:
    """The ``columnLineage`` facet's body (None when empty) and the input columns it names."""
    read: set[Field] = set()
    if model is None:
        return None, read

    def input_field(field: Field, transformations: list[dict[str, Any]]) -> dict[str, Any]:
        read.add(field)
        return {
            "namespace": namespace_of(data, data.relations[field[0]], namespace),
            "name": dataset_name(data.relations[field[0]]),
            "field": names(*field),
            "transformations": transformations,
        }

    fields: dict[str, Any] = {}
    masking = masking_names(data.masking_functions)
    for column in model.columns:
        feeds = {f: sub for f, sub in lineage.feeds(column).items() if f[0] in data.relations}
        if not feeds and (not column.resolved or column.kind is ColumnKind.UNKNOWN):
            continue  # origin unknown: no edge is guessed
        # a hash or mask of its inputs (md5(email)): the facet's `masking` flag
        masked = {"masking": True} if column.kind is ColumnKind.DERIVED and is_masked(column.expr, data.dialect, masking) else {}
        fields[names(rel.unique_id, column.name)] = {
            "inputFields": [
                input_field(f, [{"type": "DIRECT", "subtype": sub.name, "description": column.expr, **masked}])
                for f, sub in sorted(feeds.items())
            ]
        }
    conditions = {f: clauses for f, clauses in lineage.conditions(rel.unique_id).items() if f[0] in data.relations}
    dataset = [input_field(f, _indirect(clauses)) for f, clauses in sorted(conditions.items())]
    if not fields and not dataset:
        return None, read
    body: dict[str, Any] = {"fields": dict(sorted(fields.items()))}
    if dataset:
        body["dataset"] = dataset
    return body, read


def _indirect(clauses: Iterable[str]) -> list[dict[str, Any]]:
    by_subtype = sorted((INDIRECT[ConditionClause(c)], c) for c in clauses)
    return [{"type": "INDIRECT", "subtype": sub, "description": clause} for sub, clause in by_subtype]


def _extraction_error(model: ModelLineage) -> dict[str, Any] | None:
    """What the analysis could not resolve in a model, as OpenLineage's ``extractionError`` run facet."""
    if model.status is ModelStatus.RESOLVED:
        return None
    errors = [
        {"errorMessage": c.reason or "origin not proved", "task": c.name}
        for c in model.columns
        if not c.resolved
    ]
    if not errors:
        errors = [{"errorMessage": model.reason or model.status.value, "task": model.unique_id}]
    return _facet(
        "ExtractionErrorRunFacet",
        "1-1-2",
        totalTasks=max(len(model.columns), len(errors)),
        failedTasks=len(errors),
        errors=errors,
    )
