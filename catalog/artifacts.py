"""Read dbt's artifact files into small typed records, with one clear error per bad file.

Only the fields the catalog reads are modelled (``extra="ignore"``), so newer dbt
versions that add keys keep working. Schema versions are checked explicitly.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from typing_extensions import Required, TypedDict

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, model_validator

from catalog.errors import ArtifactError

try:  # the `fast` extra: parses a large manifest two to three times faster than json
    import orjson
except ImportError:  # pragma: no cover - depends on the extras installed
    orjson = None  # type: ignore[assignment]

try:  # the `fast` extra: reads only the manifest's keys that the records below read
    import msgspec
except ImportError:  # pragma: no cover - depends on the extras installed
    msgspec = None  # type: ignore[assignment]

# dbt 1.0 (v4), 1.1 (v5), 1.2 (v6), 1.3 (v7), 1.4 (v8), 1.5 (v9), 1.6 (v10), 1.7 (v11), 1.8 and newer (v12)
SUPPORTED_MANIFEST_VERSIONS = range(4, 13)
SUPPORTED_DBT = "dbt 1.0 to 1.12"
_VERSION_RE = re.compile(r"/manifest/v(\d+)\.json$")


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class ManifestColumn(TypedDict, total=False):
    """A column declared in YAML, as the manifest has it: a plain dict checked by
    :func:`declared_columns` when its node is read (a large project declares tens of
    thousands; validating them up front took most of the manifest's validation). Absent keys
    mean: description "", data_type null, meta {}, tags [], quote null, constraints []."""

    name: Required[str]
    description: str | None
    data_type: str | None
    meta: dict[str, Any]
    tags: list[str]
    quote: bool | None
    constraints: list[dict[str, Any]]  # dbt 1.5+: {"type": "not_null", "name": ..., "expression": ...}


class NodeConfig(_Record):
    materialized: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    tags: list[str] | str = Field(default_factory=list)
    contract: dict[str, Any] | None = None  # dbt 1.5+: {"enforced": true, "alias_types": true}


_RELATIONS = ("model", "seed", "snapshot", "source")


class ManifestNode(_Record):
    """A model, seed, snapshot or source as the manifest describes it."""

    unique_id: str
    resource_type: str
    package_name: str
    name: str
    database: str | None = None
    schema_: str | None = Field(default=None, alias="schema")
    alias: str | None = None
    identifier: str | None = None  # sources
    source_name: str | None = None  # sources
    relation_name: str | None = None
    original_file_path: str | None = None
    patch_path: str | None = None  # the YAML file that documents it: "<package>://models/schema.yml"
    path: str | None = None
    language: str | None = "sql"
    # schemas up to v6 (dbt 1.2) name them raw_sql and compiled_sql
    raw_code: str | None = Field(default=None, validation_alias=AliasChoices("raw_code", "raw_sql"))
    compiled_code: str | None = Field(default=None, validation_alias=AliasChoices("compiled_code", "compiled_sql"))
    description: str | None = ""
    columns: dict[str, Any] = Field(default_factory=dict)  # ManifestColumns (only their keys decoded), see declared_columns()
    meta: dict[str, Any] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    config: NodeConfig = Field(default_factory=NodeConfig)
    depends_on: dict[str, Any] = Field(default_factory=dict)
    access: str | None = None
    checksum: dict[str, Any] | None = None
    # dbt 1.5+: model-level constraints, {"type": "primary_key", "columns": [...], ...}
    constraints: list[dict[str, Any]] = Field(default_factory=list)
    # data tests (resource_type "test"): a generic test's name, namespace and arguments, and
    # the column and node it is attached to (attached_node: dbt 1.5+)
    test_metadata: dict[str, Any] | None = None
    column_name: str | None = None
    attached_node: str | None = None
    # dbt 1.5+: a versioned model's version (``v:`` in its YAML: a number or any string)
    version: str | int | float | None = None
    latest_version: str | int | float | None = None  # of its model (the highest when the YAML names none)

    @model_validator(mode="after")
    def _relation_name_of_old_schemas(self) -> ManifestNode:
        """Old manifests may lack ``relation_name``: rebuild it as dbt renders it, ``database.schema.identifier``."""
        if self.relation_name or self.config.materialized == "ephemeral" or self.resource_type not in _RELATIONS:
            return self
        ident = self.identifier or self.alias or self.name
        parts = [p for p in (self.database, self.schema_, ident) if p]
        object.__setattr__(self, "relation_name", ".".join(parts))
        return self


class ManifestMetadata(_Record):
    dbt_schema_version: str
    dbt_version: str | None = None
    generated_at: str | None = None
    project_name: str | None = None  # dbt 1.6+
    project_id: str | None = None  # the MD5 of the project's name
    adapter_type: str | None = None


class ManifestExposure(_Record):
    """A dashboard, notebook, application, ... that reads models, sources or metrics."""

    unique_id: str
    name: str
    type: str | None = None
    label: str | None = None
    url: str | None = None
    maturity: str | None = None
    description: str | None = ""
    owner: dict[str, Any] | None = None
    depends_on: dict[str, Any] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)
    config: dict[str, Any] = Field(default_factory=dict)  # dbt 1.10+: its meta may be here


class SemanticElement(_Record):
    """An entity, dimension or measure of a semantic model (dbt 1.6+)."""

    name: str
    type: str | None = None
    expr: str | bool | int | float | None = None  # SQL over the model's columns; the name when absent
    agg: str | None = None  # measures
    description: str | None = ""


class ManifestSemanticModel(_Record):
    unique_id: str
    name: str
    package_name: str = ""
    model: str | None = None  # "ref('orders')"
    description: str | None = ""
    depends_on: dict[str, Any] = Field(default_factory=dict)
    entities: list[SemanticElement] = Field(default_factory=list)
    dimensions: list[SemanticElement] = Field(default_factory=list)
    measures: list[SemanticElement] = Field(default_factory=list)


class ManifestMetric(_Record):
    """A metric; dbt 1.6+ shapes (simple, ratio, derived, cumulative, conversion) are read in full,
    older ones (dbt_metrics) for their name and dependencies."""

    unique_id: str
    name: str
    package_name: str = ""
    type: str | None = None
    label: str | None = None
    description: str | None = ""
    type_params: dict[str, Any] = Field(default_factory=dict)
    filter: Any = None
    depends_on: dict[str, Any] = Field(default_factory=dict)


class ManifestSavedQuery(_Record):
    unique_id: str
    name: str
    package_name: str = ""
    description: str | None = ""
    query_params: dict[str, Any] = Field(default_factory=dict)
    depends_on: dict[str, Any] = Field(default_factory=dict)


class ManifestUnitTest(_Record):
    """A unit test (dbt 1.8+, manifest v12): given rows in, the rows a model must return."""

    unique_id: str
    name: str
    package_name: str = ""
    model: str | None = None  # the tested model's name
    expect: dict[str, Any] = Field(default_factory=dict)  # {format: dict | csv | sql, rows, fixture}
    depends_on: dict[str, Any] = Field(default_factory=dict)
    original_file_path: str | None = None


class Manifest(_Record):
    metadata: ManifestMetadata
    nodes: dict[str, ManifestNode]
    sources: dict[str, ManifestNode] = Field(default_factory=dict)
    exposures: dict[str, ManifestExposure] = Field(default_factory=dict)
    semantic_models: dict[str, ManifestSemanticModel] = Field(default_factory=dict)
    metrics: dict[str, ManifestMetric] = Field(default_factory=dict)
    saved_queries: dict[str, ManifestSavedQuery] = Field(default_factory=dict)
    unit_tests: dict[str, ManifestUnitTest] = Field(default_factory=dict)


class CatalogColumn(TypedDict, total=False):
    """A column of catalog.json, validated by pydantic as a plain dict: catalog.json lists
    every column of every relation, and a dict is made in half the time a record is."""

    name: Required[str]
    type: str | None
    index: int
    comment: str | None


class CatalogTable(_Record):
    unique_id: str | None = None
    columns: dict[str, CatalogColumn] = Field(default_factory=dict)


class Catalog(_Record):
    metadata: dict[str, Any] = Field(default_factory=dict)
    nodes: dict[str, CatalogTable] = Field(default_factory=dict)
    sources: dict[str, CatalogTable] = Field(default_factory=dict)


def find_target_dir(path: Path) -> Path:
    """Accept a dbt target folder or a project folder that holds ``target/``."""
    path = Path(path)
    if not path.exists():
        raise ArtifactError(f"{path}: no such file or directory")
    if path.is_file():
        if path.name == "manifest.json":
            return path.parent
        raise ArtifactError(f"{path}: expected a dbt target folder, a project folder or a manifest.json")
    if (path / "manifest.json").is_file():
        return path
    if (path / "target" / "manifest.json").is_file():
        return path / "target"
    raise ArtifactError(
        f"{path}: no manifest.json here or in {path / 'target'} (run `dbt compile` or `dbt docs generate` first)"
    )


def read_dbt_project(project_dir: Path) -> dict[str, Any]:
    """``project_dir/dbt_project.yml`` as a mapping; empty when the file is absent."""
    path = project_dir / "dbt_project.yml"
    if not path.is_file():
        return {}
    from ruamel.yaml import YAML, YAMLError

    try:
        reader = YAML(typ="safe", pure=True)
        reader.allow_duplicate_keys = True  # as dbt's own loader reads them: the last one wins
        doc = reader.load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError) as e:
        raise ArtifactError(f"{path}: cannot read it as YAML ({str(e).splitlines()[0] if str(e) else type(e).__name__})") from e
    return doc if isinstance(doc, dict) else {}


def packages_install_path(project_dir: Path) -> str:
    """Where ``dbt deps`` puts the project's packages, relative to it (``packages-install-path``;
    ``modules-path`` before dbt 1.0; ``dbt_packages`` by default)."""
    settings = read_dbt_project(project_dir)
    found = settings.get("packages-install-path", settings.get("modules-path"))
    return found.strip().rstrip("/") if isinstance(found, str) and found.strip() else "dbt_packages"


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise ArtifactError(f"{path}: cannot read ({e.strerror or e})") from e


def parse_json(data: bytes) -> Any:
    """JSON text as Python values: with orjson when it is installed, else (or when orjson
    refuses what json accepts, such as NaN) with json."""
    if orjson is not None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data)


def seed_checksums(path: Path) -> dict[str, str]:
    """The checksum of each seed's file, by unique id, from manifest.json at ``path`` (the
    records extraction makes do not keep it): with msgspec, only the nodes' resource types and
    checksums are decoded. Raises OSError or ValueError for a file that cannot be read."""
    data = path.read_bytes()
    nodes: dict[str, Any] = {}
    if msgspec is not None:
        decoded = _decode_keys(data, _SEED_KEYS)
        if decoded is not None:
            nodes = decoded.get("nodes") or {}
    if not nodes:
        nodes = parse_json(data).get("nodes", {})
    return {
        uid: str((n.get("checksum") or {}).get("checksum"))
        for uid, n in nodes.items()
        if n.get("resource_type") == "seed" and isinstance(n.get("checksum"), dict) and n["checksum"].get("checksum")
    }


class _SeedNode(TypedDict, total=False):
    resource_type: Any
    checksum: Any


class _SeedManifest(TypedDict, total=False):
    nodes: dict[str, _SeedNode] | None


_SEED_KEYS: Any = _SeedManifest


def read_json(path: Path, data: bytes | None = None, keys: Any = None) -> tuple[dict[str, Any], str]:
    """The parsed JSON object and the sha256 of the file's bytes (``data``: the bytes, when
    the caller has already read them, so no file is read twice). ``keys``: a TypedDict
    type (see :func:`_keys_of`): only its keys are decoded when msgspec takes the text."""
    if data is None:
        data = read_bytes(path)
    digest = hashlib.sha256(data).hexdigest()
    decoded = _decode_keys(data, keys)
    if decoded is not None:
        return decoded, digest
    try:
        obj = parse_json(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ArtifactError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(obj, dict):
        raise ArtifactError(f"{path}: expected a JSON object at the top level")
    return obj, digest


def first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}"


def load_manifest(path: Path, data: bytes | None = None) -> tuple[Manifest, str]:
    obj, digest = read_json(path, data, _keys(Manifest))
    version_url = (obj.get("metadata") or {}).get("dbt_schema_version")
    if not isinstance(version_url, str):
        raise ArtifactError(f"{path}: metadata.dbt_schema_version is missing; is this a dbt manifest.json?")
    m = _VERSION_RE.search(version_url)
    if not m:
        raise ArtifactError(f"{path}: {version_url!r} is not a manifest schema")
    version = int(m.group(1))
    if version not in SUPPORTED_MANIFEST_VERSIONS:
        lo, hi = SUPPORTED_MANIFEST_VERSIONS.start, SUPPORTED_MANIFEST_VERSIONS.stop - 1
        raise ArtifactError(
            f"{path}: manifest schema v{version}{' (dbt ' + str(obj['metadata'].get('dbt_version')) + ')' if obj['metadata'].get('dbt_version') else ''}; "
            f"this version of catalog reads manifest schemas v{lo}-v{hi} ({SUPPORTED_DBT})"
        )
    try:
        return Manifest.model_validate(obj), digest
    except ValidationError as e:
        raise ArtifactError(f"{path}: unexpected manifest shape at {first_error(e)}") from e


def _decode_keys(data: bytes, shape: Any) -> Any:
    """The JSON object in ``data`` with only the keys of ``shape`` (a TypedDict type, see
    :func:`_keys_of`), as dicts: every other key is skipped by the decoder and never made into
    Python values. A 20,000-model manifest.json (322 MB) is read this way in two thirds of the
    time of a whole parse, at 0.75 GB of peak memory instead of 1.7 GB (macros, parent and
    child maps, each node's unrendered config and each declared column's config are most of
    what is skipped).

    None when msgspec is not installed, or it refuses the text (not valid JSON or UTF-8, NaN,
    a lone surrogate, a number too large for a float), or a kept part has another shape than
    ``shape`` expects (not an object where one should be): then the whole file is parsed and
    read as before, with the same values and the same error lines.
    """
    if shape is None:  # no msgspec (see _keys), or the caller asked for a whole parse
        return None
    try:
        return msgspec.json.decode(data, type=shape)
    except (msgspec.DecodeError, UnicodeDecodeError):  # its ValidationError is a DecodeError
        return None


def _keys_of(model: type[BaseModel], seen: dict[type, Any]) -> Any:
    """A TypedDict type (every key optional: absent keys stay absent) with a key for each key
    pydantic reads for ``model`` (its names, aliases and alias choices), typed Any except for
    nested records and sections of records. msgspec decodes into it plain dicts of those keys
    alone. Made from the records, so it cannot fall behind them."""
    if model in seen:
        return seen[model]
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation, kind = info.annotation, Any
        if (model, name) in _MAPPINGS_OF:
            kind = dict[str, _typed_dict_keys(_MAPPINGS_OF[model, name], seen)]  # type: ignore[misc]
        elif isinstance(annotation, type) and issubclass(annotation, _Record):
            kind = _keys_of(annotation, seen)
        elif getattr(annotation, "__origin__", None) is dict:
            value = annotation.__args__[1]
            if isinstance(value, type) and issubclass(value, _Record):
                kind = dict[str, _keys_of(value, seen)]  # type: ignore[misc]
        keys = [name]
        if info.alias:
            keys.append(info.alias)
        if isinstance(info.validation_alias, str):
            keys.append(info.validation_alias)
        elif isinstance(info.validation_alias, AliasChoices):
            keys += [c for c in info.validation_alias.choices if isinstance(c, str)]
        for key in keys:
            fields[key] = kind
    seen[model] = TypedDict(f"{model.__name__}Keys", fields, total=False)  # type: ignore[operator]
    return seen[model]


def _typed_dict_keys(shape: type, seen: dict[type, Any]) -> Any:
    """A TypedDict type with the keys of ``shape`` (a TypedDict), each typed Any and optional."""
    if shape not in seen:
        seen[shape] = TypedDict(f"{shape.__name__}Keys", dict.fromkeys(shape.__annotations__, Any), total=False)  # type: ignore[operator]
    return seen[shape]


# fields kept as plain data whose values are dicts of a TypedDict's keys: only those keys are
# decoded (a declared column's config, granularity and doc blocks are never read)
_MAPPINGS_OF: dict[tuple[type, str], type] = {(ManifestNode, "columns"): ManifestColumn}
_KEYS: dict[type, Any] = {}


def _keys(model: type[BaseModel]) -> Any:
    """:func:`_keys_of` ``model``, made once; None without msgspec (the file is parsed whole)."""
    return None if msgspec is None else _keys_of(model, _KEYS)


def project_name(manifest: Manifest, path: Path) -> str:
    """The name of the dbt project the manifest was written for (not of a package it installs):
    metadata.project_name (dbt 1.6+); before, the package whose name's MD5 is
    metadata.project_id (dbt writes that hash); else the package of most models.
    ``path``: the manifest, for the error when no node names a package."""
    if manifest.metadata.project_name:
        return manifest.metadata.project_name
    nodes = [*manifest.nodes.values(), *manifest.sources.values()]
    for name in dict.fromkeys(n.package_name for n in nodes):
        if hashlib.md5(name.encode(), usedforsecurity=False).hexdigest() == manifest.metadata.project_id:
            return name
    models = Counter(n.package_name for n in nodes if n.resource_type == "model")
    packages = models or Counter(n.package_name for n in nodes)
    if not packages:
        raise ArtifactError(f"{path}: metadata.project_name is missing and no node names its package; is this the manifest of a dbt project?")
    return packages.most_common(1)[0][0]


# what pydantic's lax mode reads as a boolean, as a ManifestColumn's quote was read
_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}


def declared_columns(raw: ManifestNode, manifest: Path, where: str) -> list[ManifestColumn]:
    """The YAML-declared columns of ``raw``, each checked as a :class:`ManifestColumn`, with
    the one-line error a bad manifest gets (``where``: the node's place in it, such as
    ``nodes.model.shop.orders``)."""
    out: list[ManifestColumn] = []
    for key, col in raw.columns.items():
        if not _usual_column(col):
            field, problem = _column_problem(col)
            if problem:
                at = f"{where}.columns.{key}" + (f".{field}" if field else "")
                raise ArtifactError(f"{manifest}: unexpected manifest shape at {at}: {problem}")
            if not isinstance(col.get("quote"), (bool, type(None))):
                col = {**col, "quote": str(col["quote"]).lower() in _TRUE}
        out.append(col)
    return out


_TEXT = (str, type(None))
_FLAG = (bool, type(None))


def _usual_column(col: Any) -> bool:
    """The shape nearly every declared column has, told at a glance (no quote to coerce)."""
    return (
        type(col) is dict
        and type(col.get("name")) is str
        and type(col.get("description")) in _TEXT
        and type(col.get("data_type")) in _TEXT
        and ("meta" not in col or type(col["meta"]) is dict)
        and type(col.get("quote")) in _FLAG
        and ("tags" not in col or type(col["tags"]) is list and all(type(t) is str for t in col["tags"]))
    )


def _column_problem(col: Any) -> tuple[str, str | None]:
    """(field, problem) of a declared column that is not a :class:`ManifestColumn`; problem None when it is."""
    if not isinstance(col, dict):
        return "", "Input should be a valid dictionary"
    if "name" not in col:
        return "name", "Field required"
    for field in ("name", "description", "data_type"):
        value = col.get(field)
        if not (isinstance(value, str) or value is None and field != "name"):
            return field, "Input should be a valid string"
    if "meta" in col and not isinstance(col["meta"], dict):
        return "meta", "Input should be a valid dictionary"
    if "tags" in col:
        tags = col["tags"]
        if not isinstance(tags, list):
            return "tags", "Input should be a valid list"
        for i, tag in enumerate(tags):
            if not isinstance(tag, str):
                return f"tags.{i}", "Input should be a valid string"
    quote = col.get("quote")
    if not isinstance(quote, (bool, type(None))) and not (isinstance(quote, (str, int)) and str(quote).lower() in _TRUE | _FALSE):
        return "quote", "Input should be a valid boolean"
    return "", None


class _UsualColumn(TypedDict, total=False):  # the usual shape of a catalog.json column, as _usual_catalog tells it
    name: Required[str]
    type: str | None
    index: int
    comment: str | None


class _UsualTable(TypedDict, total=False):
    unique_id: str | None
    columns: dict[str, _UsualColumn]


class _UsualCatalog(TypedDict, total=False):
    metadata: dict[str, Any]
    nodes: dict[str, _UsualTable]
    sources: dict[str, _UsualTable]


def load_catalog(path: Path, data: bytes | None = None) -> tuple[Catalog, str]:
    if data is None:
        data = read_bytes(path)
    # the usual shape (see _usual_catalog), checked by msgspec as it decodes, strictly (no coercion)
    usual = _decode_keys(data, _UsualCatalog if msgspec is not None else None)
    if usual is not None and "/catalog/" in str((usual.get("metadata") or {}).get("dbt_schema_version", "")):
        return _catalog_of(usual), hashlib.sha256(data).hexdigest()
    obj, digest = read_json(path, data, _keys(Catalog))
    version_url = (obj.get("metadata") or {}).get("dbt_schema_version", "")
    if "/catalog/" not in str(version_url):
        raise ArtifactError(f"{path}: metadata.dbt_schema_version is not a dbt catalog schema")
    usual = _usual_catalog(obj)
    if usual is not None:
        return usual, digest
    try:
        return Catalog.model_validate(obj), digest
    except ValidationError as e:
        raise ArtifactError(f"{path}: unexpected catalog shape at {first_error(e)}") from e


def _usual_catalog(obj: dict[str, Any]) -> Catalog | None:
    """The catalog as it nearly always is, told at a glance and kept as parsed: every table a
    dict with a text ``unique_id`` and a dict of columns, every column a dict with a text
    name, type and comment and a whole-number index. None when anything else is there: then
    pydantic reads it (and coerces, or names the first problem). Validating its hundreds of
    thousands of columns took longer than parsing the file. (With msgspec, :func:`load_catalog`
    has the decoder check the same shape, :class:`_UsualCatalog`, and comes here only when
    the file has another.)"""
    for section in ("nodes", "sources"):
        entries = obj.get(section, {})
        if type(entries) is not dict:
            return None
        for table in entries.values():
            if type(table) is not dict or type(table.get("unique_id")) not in _TEXT:
                return None
            columns = table.get("columns", {})
            if type(columns) is not dict:
                return None
            for col in columns.values():
                if not (
                    type(col) is dict
                    and type(col.get("name")) is str
                    and type(col.get("type")) in _TEXT
                    and type(col.get("comment")) in _TEXT
                    and ("index" not in col or type(col["index"]) is int)
                ):
                    return None
    return _catalog_of(obj)


def _catalog_of(obj: dict[str, Any]) -> Catalog:
    """The catalog of a catalog.json of the usual shape, its column dicts kept as they are."""
    sections = {
        section: {key: CatalogTable.model_construct(unique_id=table.get("unique_id"), columns=table.get("columns", {})) for key, table in obj.get(section, {}).items()}
        for section in ("nodes", "sources")
    }
    return Catalog.model_construct(**sections)
