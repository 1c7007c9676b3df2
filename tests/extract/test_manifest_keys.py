"""manifest.json and catalog.json are decoded for only the keys their records read (msgspec,
the `fast` extra): the records, digests and error lines are exactly those of a whole parse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import catalog.artifacts as artifacts
from catalog.artifacts import Catalog, CatalogColumn, Manifest, ManifestColumn, load_catalog, load_manifest
from catalog.errors import ArtifactError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MANIFEST_V12 = "https://schemas.getdbt.com/dbt/manifest/v12.json"


@pytest.fixture(autouse=True)
def _needs_msgspec() -> None:
    if artifacts.msgspec is None:  # pragma: no cover - depends on the extras installed
        pytest.skip("msgspec (the `fast` extra) is not installed: every file is parsed whole")


def _both_ways(load, path: Path, monkeypatch: pytest.MonkeyPatch, json_module: bool = False) -> tuple[object, object]:
    """(what ``load`` gives with only the read keys decoded, what it gives parsing the whole file):
    each a (record, sha256) pair or the error line. ``json_module``: the whole file parsed by
    the json module, as without the `fast` extra (orjson reads an integer past 64 bits as a float)."""

    def attempt():
        try:
            return load(path)
        except ArtifactError as e:
            return f"Error: {e}"

    keys = attempt()
    with monkeypatch.context() as m:
        m.setattr(artifacts, "msgspec", None)
        if json_module:
            m.setattr(artifacts, "orjson", None)
        whole = attempt()
    return _as_read(keys), _as_read(whole)


def _as_read(result: object) -> object:
    """A loaded manifest as catalog reads it: its declared columns by the keys of
    :class:`ManifestColumn` (the only ones decoded; a whole parse keeps the others too)."""
    if isinstance(result, tuple) and isinstance(result[0], Catalog):  # its columns by the keys of CatalogColumn, as pydantic reads them
        catalog, digest = result
        return {
            section: {k: (t.unique_id, {c: {f: v for f, v in col.items() if f in CatalogColumn.__annotations__} for c, col in t.columns.items()}) for k, t in tables.items()}
            for section, tables in (("nodes", catalog.nodes), ("sources", catalog.sources))
        }, digest
    if not (isinstance(result, tuple) and isinstance(result[0], Manifest)):
        return result
    manifest, digest = result
    dump = manifest.model_dump()
    for section in ("nodes", "sources"):
        for node in dump[section].values():
            node["columns"] = {
                k: {f: v for f, v in c.items() if f in ManifestColumn.__annotations__} if isinstance(c, dict) else c
                for k, c in node["columns"].items()
            }
    return dump, digest


def _artifacts(shared_dir: Path | None, name: str) -> list[Path]:
    found = sorted(EXAMPLES.rglob(f"target/{name}"))
    if shared_dir is not None:
        found += sorted((shared_dir / "corpus").glob(f"*/target/{name}"))
    return found


def test_the_examples_read_the_same_as_a_whole_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    manifests, catalogs = _artifacts(None, "manifest.json"), _artifacts(None, "catalog.json")
    assert len(manifests) >= 3 and len(catalogs) >= 3
    for path in manifests:
        keys, whole = _both_ways(load_manifest, path, monkeypatch)
        assert isinstance(keys, tuple) and keys == whole, path
    for path in catalogs:
        keys, whole = _both_ways(load_catalog, path, monkeypatch)
        assert isinstance(keys, tuple) and keys == whole, path


@pytest.mark.corpus
def test_the_corpus_reads_the_same_as_a_whole_parse(shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Six real projects, dbt 1.2 (raw_sql, compiled_sql) to 1.12: every field of every record equal."""
    manifests, catalogs = _artifacts(shared_dir, "manifest.json"), _artifacts(shared_dir, "catalog.json")
    assert len(manifests) >= 9 and len(catalogs) >= 9
    for path in manifests:
        keys, whole = _both_ways(load_manifest, path, monkeypatch)
        assert isinstance(keys, tuple) and keys == whole, path
        assert keys[0]["nodes"], path
    for path in catalogs:
        keys, whole = _both_ways(load_catalog, path, monkeypatch)
        assert isinstance(keys, tuple) and keys == whole, path


def _manifest(node: object, **top: object) -> dict:
    return {"metadata": {"dbt_schema_version": MANIFEST_V12, "adapter_type": "duckdb"}, "nodes": {"model.p.m": node}, **top}


NODE = {
    "unique_id": "model.p.m",
    "resource_type": "model",
    "package_name": "p",
    "name": "m",
    "schema": "main",
    "raw_sql": "select 1 as id",  # a dbt 1.2 name, read as raw_code
    "compiled_code": "select 1 as id",
    "config": {"materialized": "table", "unrendered": {"big": [1, 2, 3]}},
    "columns": {"id": {"name": "id", "description": "the key", "extra": {"kept": True}}},
    "fqn": ["p", "m"],
    "unrendered_config": {"materialized": "table"},
}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(_manifest(NODE, macros={"macro.p.x": {"name": "x"}}, child_map={"model.p.m": []})),
        json.dumps(_manifest({**NODE, "schema_": "by its Python name", "version": 2, "latest_version": "2"})),
        json.dumps(_manifest({**NODE, "description": "\ud800"})),  # a lone surrogate: msgspec refuses it, json reads it
        json.dumps(_manifest({**NODE, "meta": {"ratio": float("nan")}})),  # NaN: json reads it
        json.dumps(_manifest({**NODE, "macros": 7}, macros=None)),  # keys no record reads, of any shape
    ],
    ids=["skipped-sections", "aliases-and-versions", "lone-surrogate", "nan", "unread-keys-any-shape"],
)
def test_unusual_but_valid_manifests_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(text)
    keys, whole = _both_ways(load_manifest, path, monkeypatch)
    assert isinstance(keys, tuple), keys
    assert keys == whole
    assert keys[0]["nodes"]["model.p.m"]["raw_code"] == "select 1 as id"
    assert keys[0]["nodes"]["model.p.m"]["columns"]["id"] == {"name": "id", "description": "the key"}


def test_keys_no_record_reads_are_not_decoded(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(_manifest(NODE, macros={"macro.p.x": {"name": "x"}})))
    manifest, _ = load_manifest(path)
    assert manifest.nodes["model.p.m"].columns["id"] == {"name": "id", "description": "the key"}  # no "extra"
    assert manifest.nodes["model.p.m"].config.materialized == "table"


def test_an_integer_past_64_bits_is_read_exactly_as_the_json_module_reads_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(orjson's whole parse makes it a float.)"""
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(_manifest({**NODE, "meta": {"big": 10**30, "huge": 1e308}})))
    keys, whole = _both_ways(load_manifest, path, monkeypatch, json_module=True)
    assert isinstance(keys, tuple) and keys == whole
    assert keys[0]["nodes"]["model.p.m"]["meta"] == {"big": 10**30, "huge": 1e308}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (json.dumps(_manifest("not a node")), "unexpected manifest shape at nodes.model.p.m"),
        (json.dumps(_manifest({**NODE, "config": None})), "unexpected manifest shape at nodes.model.p.m.config"),
        (json.dumps(_manifest({k: v for k, v in NODE.items() if k != "name"})), "unexpected manifest shape at nodes.model.p.m.name"),
        (json.dumps({"nodes": {}}), "metadata.dbt_schema_version is missing"),
        (json.dumps({**_manifest(NODE), "metadata": None}), "metadata.dbt_schema_version is missing"),
        (json.dumps([1, 2]), "expected a JSON object at the top level"),
        ('{"metadata": {', "not valid JSON"),
        (b'{"metadata": "\xff"}', "not valid JSON"),
    ],
    ids=["node-not-an-object", "config-null", "name-missing", "no-metadata", "metadata-null", "a-list", "cut-short", "not-utf8"],
)
def test_a_bad_manifest_gets_the_same_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | bytes, problem: str) -> None:
    path = tmp_path / "manifest.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    keys, whole = _both_ways(load_manifest, path, monkeypatch)
    assert keys == whole
    assert isinstance(keys, str) and "\n" not in keys
    assert keys.startswith(f"Error: {path}: ") and problem in keys, keys


def test_a_bad_catalog_gets_the_same_one_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "catalog.json"
    meta = {"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"}
    for obj, problem in (
        ({"metadata": meta, "nodes": {"model.p.m": ["ID"]}}, "unexpected catalog shape at nodes.model.p.m"),
        ({"metadata": meta, "nodes": {"model.p.m": {"unique_id": 5, "columns": {}}}}, "unexpected catalog shape at nodes.model.p.m.unique_id"),
        ({"metadata": {}, "nodes": {}}, "is not a dbt catalog schema"),
    ):
        path.write_text(json.dumps(obj))
        keys, whole = _both_ways(load_catalog, path, monkeypatch)
        assert keys == whole
        assert isinstance(keys, str) and problem in keys, keys


def test_the_decoded_keys_are_the_records_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every name, alias and alias choice pydantic reads for a node is decoded; a field added to
    a record is decoded without another list to keep up."""
    shape = artifacts._keys(Manifest)
    node = shape.__annotations__["nodes"].__args__[1]
    keys = set(node.__annotations__)
    assert {"raw_code", "raw_sql", "compiled_code", "compiled_sql", "schema", "schema_", "config", "columns"} <= keys
    for name, info in artifacts.ManifestNode.model_fields.items():
        assert name in keys and (info.alias is None or info.alias in keys)
    assert "fqn" not in keys and "unrendered_config" not in keys
    column = node.__annotations__["columns"].__args__[1]
    assert set(column.__annotations__) == set(ManifestColumn.__annotations__)
    assert not column.__required_keys__ and not node.__required_keys__  # an absent key stays absent
