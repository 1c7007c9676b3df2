"""Turn dbt artifacts into the project records the analyzer reads.

One record per model, seed, snapshot and source: its relation, its columns (real ones from
catalog.json, else the ones declared in YAML), its SQL (compiled, else the compiled file,
else raw as a last resort) and its documentation, tags and meta.

Over 600 lines: the records and the readers that fill them from the manifest change together
(a field is declared next to where it is read), and every later stage imports them from here.
"""

from __future__ import annotations

import difflib
import json
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from catalog.artifacts import (
    Catalog,
    ManifestColumn,
    ManifestExposure,
    ManifestNode,
    declared_columns,
    find_target_dir,
    first_error,
    load_catalog,
    load_manifest,
    project_name,
)
from catalog.bi_records import BIChart, BIDashboard, BIField
from catalog.errors import ArtifactError
from catalog.idents import column_name, namer, typed
from catalog.masking import project_masking_functions
from catalog.memory import paused_gc

LINEAGE_TYPES = ("model", "seed", "snapshot", "source")

# dbt adapter type -> sqlglot dialect
DIALECTS = {
    "duckdb": "duckdb",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "postgres": "postgres",
    "redshift": "redshift",
    "databricks": "databricks",
    "spark": "spark",
    "trino": "trino",
    "athena": "athena",
    "sqlserver": "tsql",
    "fabric": "tsql",
    "synapse": "tsql",
    "clickhouse": "clickhouse",
    "mysql": "mysql",
    "oracle": "oracle",
    "materialize": "postgres",
    "sqlite": "sqlite",
}


# a column is PII when dbt tags it so, or its meta says so
PII_TAGS = ("pii", "sensitive", "personal")
PII_META_KEYS = ("contains_pii", "pii", "is_pii")


def is_pii(tags: tuple[str, ...] | list[str], meta: dict[str, Any]) -> bool:
    if tags and any(str(t).lower() in PII_TAGS for t in tags):
        return True
    return bool(meta) and any(str(k).lower() in PII_META_KEYS and bool(v) for k, v in meta.items())


def dialect_for(adapter_type: str) -> str:
    """The sqlglot dialect of a dbt adapter type (``sqlserver`` -> ``tsql``); unknown ones pass through."""
    low = adapter_type.lower()
    return DIALECTS.get(low, low)


def check_dialect(dialect: str, given_as: str, advice: str = "") -> str:
    """The dialect when sqlglot knows it, else an ArtifactError naming where it came from
    (``given_as``: "--dialect" or the manifest's adapter type) and the closest known names."""
    from sqlglot.dialects.dialect import Dialect

    try:
        Dialect.get_or_raise(dialect)
    except ValueError:
        known = sorted(k for k in Dialect.classes if k)
        close = difflib.get_close_matches(dialect.lower(), known, n=3, cutoff=0.6)
        hint = f"did you mean {', '.join(close)}?" if close else f"it knows {', '.join(known)}"
        raise ArtifactError(f"{given_as} {dialect!r} is not a SQL dialect sqlglot knows{advice}; {hint}") from None
    return dialect


def checked_dialect_for(adapter_type: str, manifest: Path) -> str:
    """The sqlglot dialect of the manifest's adapter type, checked (see :func:`check_dialect`)."""
    return check_dialect(dialect_for(adapter_type), f"{manifest}: adapter type {adapter_type!r}, dialect", " (pass --dialect)")


@dataclass(slots=True, unsafe_hash=True)
class DbtColumn:
    """A column of a relation (a slotted record: a large project has hundreds of thousands,
    and a pydantic model spends over a kilobyte on each). Treat it as immutable: it is
    hashable, and not frozen only because a frozen dataclass takes four times as long to
    make (extraction makes one per column of every relation)."""

    name: str
    data_type: str | None = None
    description: str = ""
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    in_catalog: bool = False  # False: only declared in YAML
    declared: bool = False  # True: declared in YAML
    quoted: bool = False  # declared with ``quote: true``

    def key_name(self, dialect: str | None) -> str:
        """The column's one name (:mod:`catalog.idents`): catalog.json's as the database stores
        it, a YAML name as SQL reads it (unquoted, unless ``quote: true``)."""
        return column_name(self.name, dialect, quoted=self.in_catalog or self.quoted)


def key_names(columns: Iterable[DbtColumn], dialect: str | None) -> list[str]:
    """Each column's :meth:`DbtColumn.key_name`, in order (one name rule looked up for all)."""
    name_of = namer(dialect)
    return [name_of(c.name, c.in_catalog or c.quoted) for c in columns]


class DbtConstraint(BaseModel):
    """A constraint of a model contract (dbt 1.5+), column- or model-level, as the manifest has it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    type: str  # not_null, unique, primary_key, foreign_key, check, custom
    name: str | None = None
    expression: str | None = None
    columns: tuple[str, ...] = ()  # model-level: the columns it holds on
    to: str | None = None  # foreign keys: the relation and columns referenced
    to_columns: tuple[str, ...] = ()
    warn_unenforced: bool = True
    warn_unsupported: bool = True

    def label(self) -> str:
        on = f" on ({', '.join(self.columns)})" if self.columns else ""
        return f"{self.type}{f' {self.name!r}' if self.name else ''}{on}"


class DbtContractColumn(BaseModel):
    """A column of an enforced contract: its YAML name (as :mod:`catalog.idents` writes it),
    declared ``data_type`` (as written) and constraints."""

    model_config = ConfigDict(frozen=True)

    name: str
    data_type: str | None = None
    constraints: tuple[DbtConstraint, ...] = ()


class DbtContract(BaseModel):
    """A model's contract (``config.contract``, dbt 1.5+); the declared columns and the
    model-level constraints are kept when it is enforced (what dbt's state comparison reads)."""

    model_config = ConfigDict(frozen=True)

    enforced: bool = False
    columns: tuple[DbtContractColumn, ...] = ()
    constraints: tuple[DbtConstraint, ...] = ()

    def column(self, name: str) -> DbtContractColumn | None:
        wanted = typed(name)
        return next((c for c in self.columns if c.name == wanted), None)


class DbtNode(BaseModel):
    model_config = ConfigDict(frozen=True)

    unique_id: str
    resource_type: str
    package_name: str
    name: str
    relation_name: str | None = None
    database: str | None = None
    schema_name: str | None = None
    identifier: str | None = None
    source_name: str | None = None
    materialized: str | None = None
    language: str = "sql"
    sql: str | None = None
    sql_origin: str | None = None  # compiled | compiled_file | raw
    # without compiled SQL in the manifest: the file under target/ consulted for it (it may
    # not exist); a build hashes these files to know whether the SQL changed
    compiled_path: str | None = None
    columns: tuple[DbtColumn, ...] = ()
    depends_on: tuple[str, ...] = ()
    description: str = ""
    tags: tuple[str, ...] = ()
    meta: dict[str, Any] = {}
    access: str | None = None
    contract_enforced: bool = False  # config.contract.enforced
    # None: no contract in the manifest (dbt before 1.5), or a record made before contracts were kept
    contract: DbtContract | None = None
    path: str | None = None
    external_project: str | None = None  # the dbt project it belongs to, when not this one (dbt Mesh)
    # a foreign node found in its project's stored build: that build's model key and id (its
    # columns are then that build's; see catalog.store.upstream)
    upstream_key: str | None = None
    upstream_build: int | None = None

    def column(self, name: str, dialect: str | None) -> DbtColumn | None:
        """Its column of that name (as :mod:`catalog.idents` writes names)."""
        wanted = typed(name)
        return next((c for c in self.columns if c.key_name(dialect) == wanted), None)

    def catalog_types(self, dialect: str | None) -> dict[str, str]:
        """catalog.json's data type of each of its columns, by name, lower case."""
        return {c.key_name(dialect): (c.data_type or "").lower() for c in self.columns if c.in_catalog}

    @property
    def is_ephemeral(self) -> bool:
        return self.materialized == "ephemeral"

    @property
    def display_name(self) -> str:
        if self.resource_type == "source":
            return f"{self.source_name}.{self.name}"
        return self.name


class DbtSemanticElement(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # lower case
    kind: str  # entity | dimension | measure
    type: str | None = None  # primary, foreign, categorical, time, ...
    expr: str  # SQL over the semantic model's model columns (the name when not given)
    agg: str | None = None  # measures: sum, count, ...
    description: str = ""


class DbtSemanticModel(BaseModel):
    model_config = ConfigDict(frozen=True)

    unique_id: str
    name: str
    model: str | None = None  # the unique id of the model it reads
    description: str = ""
    elements: tuple[DbtSemanticElement, ...] = ()

    def element(self, name: str) -> DbtSemanticElement | None:
        return next((e for e in self.elements if e.name == name.lower()), None)


class DbtMetric(BaseModel):
    model_config = ConfigDict(frozen=True)

    unique_id: str
    name: str
    type: str | None = None  # simple, ratio, derived, cumulative, conversion
    label: str | None = None
    description: str = ""
    measures: tuple[str, ...] = ()  # the measures it aggregates (simple, cumulative, conversion)
    metrics: tuple[str, ...] = ()  # the unique ids of the metrics it reads (ratio, derived)
    expr: str | None = None  # derived: over its input metrics
    definition: str = ""  # its type, inputs, expression and filters, for comparing versions


class DbtReferencedColumn(BaseModel):
    """A column an exposure reads, from its ``meta.referenced_columns`` (Elementary's convention)."""

    model_config = ConfigDict(frozen=True)

    name: str  # as catalog.idents writes names (YAML: as SQL reads an unquoted name)
    node: str | None = None  # the unique id of the node it belongs to; None: any node the exposure reads
    data_type: str | None = None
    written_node: str | None = None  # ``node`` as written, when it names no node the exposure reads


class DbtExposure(BaseModel):
    model_config = ConfigDict(frozen=True)

    unique_id: str
    name: str
    type: str | None = None  # dashboard, notebook, analysis, ml, application
    label: str | None = None
    url: str | None = None
    maturity: str | None = None
    owner: str | None = None
    description: str = ""
    depends_on: tuple[str, ...] = ()  # models, sources, snapshots, seeds, metrics
    referenced_columns: tuple[DbtReferencedColumn, ...] = ()  # the columns it reads; () : every column

    @property
    def precision(self) -> str:
        """``column`` when it lists the columns it reads, ``model`` when it reads every column of its models."""
        return "column" if self.referenced_columns else "model"


class DbtSavedQuery(BaseModel):
    model_config = ConfigDict(frozen=True)

    unique_id: str
    name: str
    description: str = ""
    depends_on: tuple[str, ...] = ()  # the unique ids of its metrics


class DbtTest(BaseModel):
    """A dbt test and the columns it reads: a generic data test its column (and a
    ``relationships`` test the column it points to), a unit test the columns its expected
    rows give. A singular test, or a generic one without a plain column, keeps its compiled
    SQL instead: the analysis reads its columns from it (:mod:`catalog.analyze.dbt_tests`)."""

    model_config = ConfigDict(frozen=True)

    unique_id: str
    name: str  # what `dbt build -s` selects it by
    kind: str  # generic | singular | unit
    test: str | None = None  # a generic test's macro: not_null, unique, dbt_utils.expression_is_true, ...
    model: str | None = None  # the unique id of the node it is attached to (a unit test: its model)
    columns: tuple[tuple[str, str], ...] = ()  # (unique id, column name) of each column it reads
    sql: str | None = None  # compiled SQL whose columns are still to be read
    depends_on: tuple[str, ...] = ()
    path: str | None = None


class DbtProject(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    target_dir: str
    adapter_type: str
    dialect: str
    dbt_version: str | None
    generated_at: str | None = None  # the manifest's metadata.generated_at, as written
    manifest_sha256: str
    catalog_sha256: str | None
    nodes: dict[str, DbtNode]
    # the consumers: the dbt Semantic Layer and exposures
    semantic_models: dict[str, DbtSemanticModel] = {}
    metrics: dict[str, DbtMetric] = {}
    exposures: dict[str, DbtExposure] = {}
    saved_queries: dict[str, DbtSavedQuery] = {}
    # the project's own masking functions (dbt_project.yml's vars, see catalog.masking)
    masking_functions: tuple[str, ...] = ()
    tests: dict[str, DbtTest] = {}  # data tests and unit tests, by unique id
    # BI definitions read from the BI tools' files (catalog.bi): fields, charts, dashboards
    bi_fields: dict[str, BIField] = {}
    charts: dict[str, BIChart] = {}
    dashboards: dict[str, BIDashboard] = {}
    bi_sources: tuple[str, ...] = ()  # the BI folders read
    bi_sha256: str | None = None  # of the BI files read

    def models(self) -> list[DbtNode]:
        return [n for n in self.nodes.values() if n.resource_type in ("model", "snapshot")]


def load_project(
    path: Path, dialect: str | None = None, manifest_bytes: bytes | None = None, catalog_bytes: bytes | None = None
) -> DbtProject:
    """Read ``manifest.json`` (required), ``catalog.json`` (optional) and compiled SQL.

    ``manifest_bytes`` and ``catalog_bytes``: those files' contents when the caller has read
    them already (a build hashes them first), so that each artifact is read once.
    """
    with paused_gc():
        return _load_project(path, dialect, manifest_bytes, catalog_bytes)


def _load_project(path: Path, dialect: str | None, manifest_bytes: bytes | None, catalog_bytes: bytes | None) -> DbtProject:
    target = find_target_dir(Path(path))
    manifest, manifest_sha = load_manifest(target / "manifest.json", manifest_bytes)
    catalog_path = target / "catalog.json"
    if catalog_bytes is not None or catalog_path.exists():
        catalog, catalog_sha = load_catalog(catalog_path, catalog_bytes)
    else:
        catalog, catalog_sha = Catalog(), None

    adapter = (manifest.metadata.adapter_type or "").lower()
    if dialect is None:
        if not adapter:
            raise ArtifactError(f"{target / 'manifest.json'}: metadata.adapter_type is missing; pass --dialect")
        dialect = checked_dialect_for(adapter, target / "manifest.json")
    else:
        check_dialect(dialect, "--dialect")

    name = project_name(manifest, target / "manifest.json")
    upstream = dependency_projects(target.parent / "dependencies.yml")
    # each node's fields as plain data (its columns already records), validated in one call
    nodes: dict[str, dict[str, Any]] = {}
    manifest_path, name_of = target / "manifest.json", namer(dialect)
    for section, entries in (("nodes", manifest.nodes), ("sources", manifest.sources)):
        for key, raw in entries.items():
            if raw.resource_type not in LINEAGE_TYPES:
                continue
            # taken out of the catalog: its column dicts are let go once the node's columns are made
            table = (catalog.sources if raw.resource_type == "source" else catalog.nodes).pop(raw.unique_id, None)
            declared = declared_columns(raw, manifest_path, f"{section}.{key}")
            nodes[raw.unique_id] = _node(raw, declared, table, target, name_of)
            if section == "nodes" and is_external(raw, name, upstream):
                nodes[raw.unique_id] |= _external(raw)
    metadata = manifest.metadata
    consumers = _consumers(manifest, dialect)
    masking = project_masking_functions(target.parent, name)
    tests = _tests(manifest, nodes, dialect)
    del manifest, catalog  # freed before the project's records are made: a lower peak

    return DbtProject.model_validate(dict(
        name=name,
        target_dir=str(target),
        adapter_type=adapter or dialect,
        dialect=dialect,
        dbt_version=metadata.dbt_version,
        generated_at=metadata.generated_at,
        manifest_sha256=manifest_sha,
        catalog_sha256=catalog_sha,
        nodes=nodes,
        masking_functions=masking,
        **consumers,
        tests=tests,
    ))  # fmt: skip


def _consumers(manifest, dialect: str) -> dict[str, Any]:
    """Semantic models, metrics, exposures and saved queries, as typed records."""
    semantic: dict[str, DbtSemanticModel] = {}
    measure_owner: dict[str, str] = {}
    for raw in manifest.semantic_models.values():
        elements: list[DbtSemanticElement] = []
        for kind, items in (("entity", raw.entities), ("dimension", raw.dimensions), ("measure", raw.measures)):
            for e in items:
                expr = e.name if e.expr is None or isinstance(e.expr, bool) and e.expr is False else str(e.expr)
                if isinstance(e.expr, bool) and e.expr:
                    expr = "true"
                elements.append(
                    DbtSemanticElement(name=e.name.lower(), kind=kind, type=e.type, expr=expr, agg=e.agg, description=e.description or "")
                )
                if kind == "measure":
                    measure_owner.setdefault(e.name.lower(), raw.unique_id)
        models = [d for d in raw.depends_on.get("nodes") or () if d.startswith(("model.", "snapshot.", "seed."))]
        semantic[raw.unique_id] = DbtSemanticModel(
            unique_id=raw.unique_id,
            name=raw.name,
            model=models[0] if models else None,
            description=raw.description or "",
            elements=tuple(elements),
        )
    metrics: dict[str, DbtMetric] = {}
    for raw in manifest.metrics.values():
        tp = raw.type_params or {}
        inputs = [d for d in raw.depends_on.get("nodes") or () if d.startswith("metric.")]
        names: list[str] = []
        if not inputs:
            for m in [tp.get("measure")] + list(tp.get("input_measures") or []):
                if isinstance(m, dict) and m.get("name"):
                    names.append(str(m["name"]).lower())
            conv = tp.get("conversion_type_params") or {}
            for k in ("base_measure", "conversion_measure"):
                if isinstance(conv.get(k), dict) and conv[k].get("name"):
                    names.append(str(conv[k]["name"]).lower())
        definition = json.dumps({"type": raw.type, "type_params": tp, "filter": raw.filter}, sort_keys=True, default=str)
        metrics[raw.unique_id] = DbtMetric(
            unique_id=raw.unique_id,
            name=raw.name,
            type=raw.type,
            label=raw.label,
            description=raw.description or "",
            measures=tuple(dict.fromkeys(n for n in names if n in measure_owner)),
            metrics=tuple(dict.fromkeys(inputs)),
            expr=tp.get("expr") if isinstance(tp.get("expr"), str) else None,
            definition=definition,
        )
    exposures = {
        raw.unique_id: DbtExposure(
            unique_id=raw.unique_id,
            name=raw.name,
            type=raw.type,
            label=raw.label,
            url=raw.url,
            maturity=raw.maturity,
            owner=(raw.owner or {}).get("name") or (raw.owner or {}).get("email"),
            description=raw.description or "",
            depends_on=tuple(raw.depends_on.get("nodes") or ()),
            referenced_columns=referenced_columns(raw, dialect),
        )
        for raw in manifest.exposures.values()
    }
    saved = {
        raw.unique_id: DbtSavedQuery(
            unique_id=raw.unique_id,
            name=raw.name,
            description=raw.description or "",
            depends_on=tuple(d for d in raw.depends_on.get("nodes") or () if d.startswith("metric.")),
        )
        for raw in manifest.saved_queries.values()
    }
    return {"semantic_models": semantic, "metrics": metrics, "exposures": exposures, "saved_queries": saved}


_NODE_CALL = re.compile(r"^\s*(ref|source)\s*\((.*)\)\s*$", re.S)
_QUOTED = re.compile(r"""['"]([^'"]*)['"]""")


def referenced_columns(raw: ManifestExposure, dialect: str) -> tuple[DbtReferencedColumn, ...]:
    """``meta.referenced_columns`` (or ``config.meta``'s): ``[{column_name, data_type?, node?}]``,
    ``node`` a ``ref(...)``, ``source(...)``, unique id or name of a node the exposure reads;
    without it, the exposure's one model, else any node it reads that has the column."""
    listed = raw.meta.get("referenced_columns") or (raw.config.get("meta") or {}).get("referenced_columns") or []
    if not isinstance(listed, list):
        return ()
    reads = [d for d in raw.depends_on.get("nodes") or () if not d.startswith("metric.")]
    out: list[DbtReferencedColumn] = []
    for item in listed:
        if not isinstance(item, dict) or not item.get("column_name"):
            continue
        written = item.get("node")
        node = _referenced_node(str(written), reads) if written else (reads[0] if len(reads) == 1 else None)
        out.append(DbtReferencedColumn(
            name=column_name(str(item["column_name"]), dialect),
            node=node,
            data_type=str(item["data_type"]) if item.get("data_type") else None,
            written_node=str(written) if written and node is None else None,
        ))  # fmt: skip
    return tuple(dict.fromkeys(out))


def _referenced_node(written: str, reads: list[str]) -> str | None:
    """The node of ``reads`` that ``ref('pkg', 'name')``, ``source('src', 'table')``, a unique id or a name names."""
    if written in reads:
        return written
    call = _NODE_CALL.match(written)
    args = _QUOTED.findall(call.group(2)) if call else [written.strip()]
    if not args:
        return None
    if call and call.group(1) == "source":
        wanted = ".".join(args[:2]).lower()
        found = [u for u in reads if u.startswith("source.") and ".".join(u.split(".")[-2:]).lower() == wanted]
    else:
        package = args[0].lower() if call and len(args) > 1 else None
        found = [u for u in reads if not u.startswith("source.") and u.split(".")[-1].lower() == args[-1].lower()
                 and (package is None or u.split(".")[1].lower() == package)]  # fmt: skip
    return found[0] if len(found) == 1 else None


_PLAIN_NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_$]*|"[^"]+"')
_REF = re.compile(r"""\bref\(\s*(?:['"][^'"]+['"]\s*,\s*)?['"]([^'"]+)['"]""")
_SOURCE = re.compile(r"""\bsource\(\s*['"]([^'"]+)['"]\s*,\s*['"]([^'"]+)['"]""")


def _tests(manifest, nodes: dict[str, dict[str, Any]], dialect: str) -> dict[str, DbtTest]:
    """The manifest's data tests (generic and singular) and unit tests, as :class:`DbtTest`."""
    out: dict[str, DbtTest] = {}
    name_of = namer(dialect)
    for raw in manifest.nodes.values():
        if raw.resource_type != "test":
            continue
        depends = tuple(raw.depends_on.get("nodes") or ())
        fields: dict[str, Any] = dict(unique_id=raw.unique_id, name=raw.name, depends_on=depends, path=raw.original_file_path)
        if raw.test_metadata is None:
            out[raw.unique_id] = DbtTest(kind="singular", sql=raw.compiled_code, **fields)
            continue
        meta = raw.test_metadata
        kwargs = meta.get("kwargs") or {}
        namespace = meta.get("namespace")
        model = raw.attached_node or _referenced(str(kwargs.get("model") or ""), depends, nodes)
        if model is None and len([d for d in depends if d in nodes]) == 1:
            model = next(d for d in depends if d in nodes)
        column = raw.column_name or kwargs.get("column_name")
        columns = [(model, column)] if model and isinstance(column, str) and _PLAIN_NAME.fullmatch(column) else []
        if columns and isinstance(kwargs.get("field"), str) and isinstance(kwargs.get("to"), str):  # relationships
            to = _referenced(kwargs["to"], depends, nodes)
            if to is not None and _PLAIN_NAME.fullmatch(kwargs["field"]):
                columns.append((to, kwargs["field"]))
        out[raw.unique_id] = DbtTest(
            kind="generic",
            test=f"{namespace}.{meta.get('name')}" if namespace else meta.get("name"),
            model=model,
            columns=tuple((uid, _test_column(name_of, c)) for uid, c in columns),
            sql=None if columns else raw.compiled_code,
            **fields,
        )
    for raw in manifest.unit_tests.values():
        depends = tuple(raw.depends_on.get("nodes") or ())
        model = next((d for d in depends if d in nodes and nodes[d]["name"] == raw.model), depends[0] if depends else None)
        expected = _expected_columns(raw.expect)
        out[raw.unique_id] = DbtTest(
            unique_id=raw.unique_id, name=raw.name, kind="unit", model=model,
            columns=tuple((model, name_of(c, False)) for c in expected) if model else (),
            depends_on=depends, path=raw.original_file_path,
        )  # fmt: skip
    return out


def _test_column(name_of: Any, column: str) -> str:
    """A test's column as YAML writes it (``order_id``, or ``"Order ID"`` quoted) -> its one name."""
    if column.startswith('"') and column.endswith('"'):
        return name_of(column[1:-1], True)
    return name_of(column, False)


def _referenced(text: str, depends: tuple[str, ...], nodes: dict[str, dict[str, Any]]) -> str | None:
    """The node of ``depends`` that ``ref('x')`` or ``source('s', 't')`` in ``text`` names."""
    found = _REF.search(text)
    if found:
        return next((d for d in depends if d in nodes and nodes[d]["resource_type"] != "source" and nodes[d]["name"] == found.group(1)), None)
    found = _SOURCE.search(text)
    if found:
        wanted = (found.group(1), found.group(2))
        return next((d for d in depends if d in nodes and (nodes[d]["source_name"], nodes[d]["name"]) == wanted), None)
    return None


def _expected_columns(expect: dict[str, Any]) -> list[str]:
    """The columns a unit test's expected rows give (format dict or csv; none for sql or a fixture file)."""
    rows = expect.get("rows")
    fmt = expect.get("format") or "dict"
    if fmt == "dict" and isinstance(rows, list):
        return list(dict.fromkeys(str(k) for row in rows if isinstance(row, dict) for k in row))
    if fmt == "csv" and isinstance(rows, str) and rows.strip():
        header = rows.strip().splitlines()[0]
        return [c.strip() for c in header.split(",") if c.strip()]
    return []


def measure_owners(project: DbtProject) -> dict[str, str]:
    """measure name -> the unique id of the semantic model that defines it."""
    out: dict[str, str] = {}
    for sm in project.semantic_models.values():
        for e in sm.elements:
            if e.kind == "measure":
                out.setdefault(e.name, sm.unique_id)
    return out


def dependency_projects(path: Path) -> frozenset[str]:
    """The projects ``dependencies.yml`` names under ``projects:`` (dbt Mesh), lower case; none
    without the file. Its ``packages:`` are installed packages, whose models are the project's own."""
    if not path.is_file():
        return frozenset()
    import yaml

    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise ArtifactError(f"{path}: not readable as YAML ({str(e).splitlines()[0]})") from e
    projects = doc.get("projects") if isinstance(doc, dict) else None
    return frozenset(str(p["name"]).lower() for p in projects or () if isinstance(p, dict) and p.get("name"))


def is_external(raw: ManifestNode, project: str, upstream: frozenset[str]) -> bool:
    """Whether a manifest node belongs to another dbt project (dbt Mesh): injected by dbt-loom or
    dbt Cloud (another package, and no file: empty ``path`` and ``original_file_path``), or of a
    project ``dependencies.yml`` names."""
    package = raw.package_name.lower()
    if package == project.lower():
        return False
    return (not raw.path and not raw.original_file_path) or package in upstream


def _external(raw: ManifestNode) -> dict[str, Any]:
    """A foreign node's own fields: its project, and its resource type as its unique id says it
    (dbt-loom injects a seed as a ``model`` named ``seed.<project>.<name>``)."""
    kind = raw.unique_id.split(".", 1)[0]
    return {"external_project": raw.package_name, "resource_type": kind if kind in LINEAGE_TYPES else raw.resource_type}


_BY_INDEX = operator.methodcaller("get", "index", 0)  # catalog.json's column order


def _node(raw: ManifestNode, yaml_columns: list[ManifestColumn], table, target: Path, name_of: Callable[[str, bool], str]) -> dict[str, Any]:
    """The fields of a :class:`DbtNode`. A YAML column documents the catalog.json column of
    its name (names compared as the dialect compares them: ``name_of``, the dialect's
    :func:`catalog.idents.namer`)."""
    declared = {name_of(col["name"], bool(col.get("quote"))): col for col in yaml_columns}
    columns: list[DbtColumn] = []
    seen: set[str] = set()
    if table is not None:
        for col in sorted(table.columns.values(), key=_BY_INDEX):
            name = col["name"]
            key = name_of(name, True)
            columns.append(_column(name, col.get("type"), declared.get(key), in_catalog=True))
            seen.add(key)
    for key, doc in declared.items():
        if key not in seen:
            columns.append(_column(doc["name"], doc.get("data_type"), doc, in_catalog=False))
    sql, origin, compiled_path = _sql(raw, target)
    config_tags = raw.config.tags if isinstance(raw.config.tags, list) else [raw.config.tags]
    return dict(
        unique_id=raw.unique_id,
        resource_type=raw.resource_type,
        package_name=raw.package_name,
        name=raw.name,
        relation_name=raw.relation_name,
        database=raw.database,
        schema_name=raw.schema_,
        identifier=raw.identifier or raw.alias or raw.name,
        source_name=raw.source_name,
        materialized=raw.config.materialized,
        language=raw.language or "sql",
        sql=sql,
        sql_origin=origin,
        compiled_path=compiled_path,
        columns=columns,
        depends_on=tuple(raw.depends_on.get("nodes") or ()),
        description=raw.description or "",
        tags=tuple(dict.fromkeys([*raw.tags, *config_tags])),
        meta={**raw.config.meta, **raw.meta},
        access=raw.access,
        contract_enforced=bool((raw.config.contract or {}).get("enforced")),
        contract=_contract(raw, declared, target),
        path=raw.original_file_path,
    )


def _contract(raw: ManifestNode, declared: dict[str, ManifestColumn], target: Path) -> DbtContract | None:
    """The model's contract, its declared columns and constraints when it is enforced
    (``declared``: the YAML columns by name as SQL reads them; ``target``: the folder of the
    manifest.json that errors name)."""
    if raw.config.contract is None:
        return None
    if not raw.config.contract.get("enforced"):
        return DbtContract(enforced=False)
    manifest = target / "manifest.json"
    at = f"nodes.{raw.unique_id}"
    columns = tuple(
        DbtContractColumn(
            name=key, data_type=doc.get("data_type"), constraints=_constraints(doc.get("constraints"), manifest, f"{at}.columns.{doc['name']}")
        )
        for key, doc in declared.items()
    )
    return DbtContract(enforced=True, columns=columns, constraints=_constraints(raw.constraints, manifest, at))


def _constraints(items: Any, manifest: Path, at: str) -> tuple[DbtConstraint, ...]:
    """Constraints as the manifest lists them, each checked, with a one-line error naming where."""
    if items is not None and not isinstance(items, list):
        raise ArtifactError(f"{manifest}: unexpected manifest shape at {at}.constraints: Input should be a valid list")
    out = []
    for i, item in enumerate(items or ()):
        try:
            out.append(DbtConstraint.model_validate(item))
        except ValidationError as e:
            raise ArtifactError(f"{manifest}: unexpected manifest shape at {at}.constraints.{i}{'.' if e.errors()[0]['loc'] else ''}{first_error(e)}") from None
    return tuple(out)


def _column(name: str, data_type: str | None, doc: ManifestColumn | None, in_catalog: bool) -> DbtColumn:
    """A :class:`DbtColumn`, made here rather than validated from a dict by pydantic (which
    took twice as long): its fields are the manifest's and catalog's, validated already."""
    if doc is None:
        return DbtColumn(name, data_type, "", (), {}, in_catalog, False, False)
    return DbtColumn(
        name, data_type or doc.get("data_type"), doc.get("description") or "", tuple(doc.get("tags") or ()),
        doc.get("meta") or {}, in_catalog, True, bool(doc.get("quote")),
    )


def _sql(raw: ManifestNode, target: Path) -> tuple[str | None, str | None, str | None]:
    """The SQL to analyze, where it came from, and the compiled file consulted (if any)."""
    if raw.resource_type not in ("model", "snapshot"):
        return None, None, None
    if raw.compiled_code:
        return raw.compiled_code, "compiled", None
    compiled_path = compiled_file_path(raw.package_name, raw.original_file_path) if raw.original_file_path else None
    if compiled_path:
        sql = read_compiled_file(target, compiled_path)
        if sql is not None:
            return sql, "compiled_file", compiled_path
    if raw.raw_code:
        return raw.raw_code, "raw", compiled_path
    return None, None, compiled_path


def compiled_file_path(package: str, original_file_path: str) -> str:
    """Where dbt writes a node's compiled SQL, relative to the target folder."""
    return f"compiled/{package}/{original_file_path}"


def read_compiled_file(target: Path, relative: str) -> str | None:
    """The text of a compiled SQL file under ``target``, or None when there is none."""
    path = target / relative
    if not path.is_file():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise ArtifactError(f"{path}: cannot read ({e.strerror or e})") from e
    except UnicodeDecodeError as e:
        raise ArtifactError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start}); save it as UTF-8") from e


# ---------------------------------------------------------------------------- declared lineage
class DeclaredLineage(BaseModel):
    """A model's column lineage as its YAML declares it, for models without SQL to analyze
    (Python models): ``meta: {catalog_lineage: {column: [parent.column, ...]}}`` (or, as first
    documented, ``meta: {catalog: {lineage: ...}}``, on which dbt 1.10+ warns because ``catalog``
    is also a dbt config name), where a
    parent is a model, seed or snapshot the model refs (by name) or a source it reads
    (``source_name.table``). Only columns of the model's real parents are kept, and of those
    catalog.json lists, where it lists the parent's."""

    model_config = ConfigDict(frozen=True)

    columns: dict[str, tuple[tuple[str, str], ...]] = {}  # column -> (parent unique id, column), sorted
    problems: tuple[str, ...] = ()  # what the declaration says that the project contradicts


def lineage_declaration(node: DbtNode) -> Any:
    """What ``meta.catalog_lineage`` (else ``meta.catalog.lineage``) holds, or None."""
    if node.meta.get("catalog_lineage") is not None:
        return node.meta["catalog_lineage"]
    nested = node.meta.get("catalog")
    return nested.get("lineage") if isinstance(nested, dict) else None


def declared_lineage(node: DbtNode, nodes: dict[str, DbtNode], dialect: str) -> DeclaredLineage | None:
    """The lineage ``node``'s YAML declares, checked against its parents; None when it declares none."""
    spec = lineage_declaration(node)
    if spec is None:
        return None
    if not isinstance(spec, dict):
        return DeclaredLineage(problems=("meta.catalog_lineage must map each column to a list of `parent.column`",))
    parents = {p.display_name.lower(): p for p in (nodes.get(uid) for uid in node.depends_on) if p is not None}
    others = {n.display_name.lower() for n in nodes.values() if n.resource_type in LINEAGE_TYPES}
    columns: dict[str, tuple[tuple[str, str], ...]] = {}
    problems: list[str] = []
    used: set[str] = set()
    for column, upstream in spec.items():
        refs: set[tuple[str, str]] = set()
        for text in [upstream] if isinstance(upstream, str) else upstream if isinstance(upstream, list) else [None]:
            relation, _, name = str(text).rpartition(".")
            parent = parents.get(relation.lower())
            if text is None or not relation or not name:
                problems.append(f"{column}: {text!r} is not `parent.column`")
            elif parent is None:
                why = "is not a parent of the model (ref it in the model)" if relation.lower() in others else "names no model, seed, snapshot or source"
                problems.append(f"{column}: {relation} {why}")
            elif _lacks(parent, column_name(name, dialect, quoted=False), dialect):
                problems.append(f"{column}: {parent.display_name} has no column {name!r}")
            else:
                refs.add((parent.unique_id, column_name(name, dialect, quoted=False)))
                used.add(parent.unique_id)
        columns[column_name(str(column), dialect, quoted=False)] = tuple(sorted(refs))
    problems += [f"parent {p.display_name} feeds no declared column" for p in parents.values() if p.unique_id not in used]
    return DeclaredLineage(columns=columns, problems=tuple(problems))


def _lacks(node: DbtNode, column: str, dialect: str) -> bool:
    """Whether catalog.json lists the relation's columns without ``column`` (YAML may document
    only some of them: it proves nothing missing)."""
    if not any(c.in_catalog for c in node.columns):
        return False
    found = node.column(column, dialect)
    return found is None or not found.in_catalog


# ---------------------------------------------------------------------------- weaker inputs
class InputWarning(BaseModel):
    """An input the lineage is poorer without: the build goes on, and says so."""

    model_config = ConfigDict(frozen=True)

    code: str  # no_catalog | foreign_catalog | no_compiled_sql | unknown_referenced_column | declared_lineage
    message: str
    models: tuple[str, ...] = ()  # the unique ids concerned, when some are


def input_warnings(project: DbtProject) -> list[InputWarning]:
    """What is missing from the project's artifacts that a full lineage needs: catalog.json
    (real columns for ``select *``, and types), one that describes this project, and compiled SQL."""
    warnings: list[InputWarning] = []
    target = Path(project.target_dir)
    relations = [n for n in project.nodes.values() if n.resource_type in LINEAGE_TYPES]
    weaker = "`select *` is expanded from the columns declared in YAML and column types are unknown"
    if project.catalog_sha256 is None:
        warnings.append(InputWarning(
            code="no_catalog",
            message=f"{target / 'catalog.json'} is missing: {weaker} (run `dbt docs generate`)",
        ))  # fmt: skip
    elif relations and not any(c.in_catalog for n in relations for c in n.columns):
        warnings.append(InputWarning(
            code="foreign_catalog",
            message=f"{target / 'catalog.json'} describes none of the project's {len(relations)} models, seeds, "
            f"snapshots and sources (is it another project's, or older than the manifest?): {weaker} "
            "(run `dbt docs generate` for this project)",
        ))  # fmt: skip
    for node in project.models():
        if node.language == "sql":
            continue
        declared = declared_lineage(node, project.nodes, project.dialect)
        if declared is None or declared.problems:
            problem = "declares no lineage (meta.catalog_lineage): its columns' lineage is unknown" if declared is None else "; ".join(declared.problems)
            warnings.append(InputWarning(
                code="declared_lineage",
                message=f"{node.language} model {node.name} ({node.path or node.unique_id}): {problem}",
                models=(node.unique_id,),
            ))  # fmt: skip
    raw = sorted(n.unique_id for n in project.models() if n.sql_origin == "raw" and n.language == "sql")
    if raw:
        names = ", ".join(uid.split(".", 2)[-1] for uid in raw[:5]) + (f" and {len(raw) - 5} more" if len(raw) > 5 else "")
        warnings.append(InputWarning(
            code="no_compiled_sql",
            message=f"{len(raw)} of {len(project.models())} models have no compiled SQL (neither in manifest.json nor "
            f"under {target / 'compiled'}): their Jinja source is analyzed instead, which may fail or miss lineage "
            f"(run `dbt compile`): {names}",
            models=tuple(raw),
        ))  # fmt: skip
    for uid, exposure in sorted(project.exposures.items()):
        unknown = unknown_referenced_columns(project, exposure)
        if unknown:
            warnings.append(InputWarning(
                code="unknown_referenced_column",
                message=f"exposure {exposure.name}: meta.referenced_columns names {', '.join(unknown)}, "
                "which it does not read (no such column, or no such node among its depends_on): left out of its lineage",
                models=(uid,),
            ))  # fmt: skip
    return warnings


def unknown_referenced_columns(project: DbtProject, exposure: DbtExposure) -> list[str]:
    """The referenced columns of an exposure that name no column of the nodes it reads, as
    ``model.column`` (``column`` when it names no node); a node of unknown columns is not judged."""
    reads = [project.nodes[d] for d in exposure.depends_on if d in project.nodes]
    known = {n.unique_id: {c.key_name(project.dialect) for c in n.columns} for n in reads}
    out: list[str] = []
    for r in exposure.referenced_columns:
        if r.written_node is not None:
            out.append(f"{r.written_node}.{r.name}")
        elif r.node is not None:
            if known.get(r.node) and r.name not in known[r.node]:
                out.append(f"{project.nodes[r.node].display_name}.{r.name}")
        elif all(known.values()) and not any(r.name in cols for cols in known.values()):
            out.append(r.name)
    return out
