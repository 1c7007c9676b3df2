"""catalog.json is read at a glance when it has its usual shape and by pydantic otherwise:
both ways give the same tables and columns, and a bad catalog gets one error line naming
where it is bad."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog.artifacts import Catalog, load_catalog
from catalog.errors import ArtifactError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FIELDS = ("name", "type", "index", "comment")


def _tables(catalog: Catalog) -> dict[str, object]:
    return {
        section: {k: (t.unique_id, {c: {f: col.get(f) for f in FIELDS} for c, col in t.columns.items()}) for k, t in tables.items()}
        for section, tables in (("nodes", catalog.nodes), ("sources", catalog.sources))
    }


def _catalogs(shared_dir: Path | None) -> list[Path]:
    found = sorted(EXAMPLES.rglob("target/catalog.json"))
    if shared_dir is not None:
        found += sorted((shared_dir / "corpus").glob("*/target/catalog.json"))
    return found


def _written(tmp_path: Path, obj: dict) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(obj))
    return path


def _catalog(columns: dict) -> dict:
    return {
        "metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
        "nodes": {"model.p.m": {"unique_id": "model.p.m", "metadata": {"type": "VIEW"}, "columns": columns, "stats": {}}},
        "sources": {},
    }


def _same_both_ways(path: Path) -> None:
    read, _ = load_catalog(path)
    validated = Catalog.model_validate(json.loads(path.read_text()))
    assert _tables(read) == _tables(validated), path


def test_the_examples_catalogs_read_at_a_glance_as_pydantic_reads_them() -> None:
    paths = _catalogs(None)
    assert len(paths) >= 3
    for path in paths:
        _same_both_ways(path)


@pytest.mark.corpus
def test_the_corpus_catalogs_read_at_a_glance_as_pydantic_reads_them(shared_dir: Path) -> None:
    paths = _catalogs(shared_dir)
    assert len(paths) >= 6
    for path in paths:
        _same_both_ways(path)


def test_an_unusual_but_valid_column_is_read_as_pydantic_coerces_it(tmp_path: Path) -> None:
    path = _written(tmp_path, _catalog({"ID": {"name": "ID", "type": "INTEGER", "index": "2", "comment": None}}))
    read, _ = load_catalog(path)
    assert read.nodes["model.p.m"].columns["ID"]["index"] == 2
    _same_both_ways(path)


@pytest.mark.parametrize(
    ("column", "where"),
    [
        ({"type": "INTEGER", "index": 1}, "nodes.model.p.m.columns.ID.name: Field required"),
        ({"name": "ID", "type": 7, "index": 1}, "nodes.model.p.m.columns.ID.type: Input should be a valid string"),
        ({"name": "ID", "type": "INTEGER", "index": "first"}, "nodes.model.p.m.columns.ID.index: Input should be a valid integer"),
        ({"name": "ID", "type": "INTEGER", "index": None}, "nodes.model.p.m.columns.ID.index: Input should be a valid integer"),
    ],
)
def test_a_bad_column_gets_one_error_line_naming_where(tmp_path: Path, column: dict, where: str) -> None:
    path = _written(tmp_path, _catalog({"ID": column}))
    with pytest.raises(ArtifactError) as e:
        load_catalog(path)
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: unexpected catalog shape at {where}"), message


def test_columns_that_are_not_a_mapping_get_one_error_line(tmp_path: Path) -> None:
    obj = _catalog({})
    obj["nodes"]["model.p.m"]["columns"] = ["ID"]
    with pytest.raises(ArtifactError, match=r"unexpected catalog shape at nodes\.model\.p\.m\.columns: Input should be a valid dictionary"):
        load_catalog(_written(tmp_path, obj))


def test_with_msgspec_the_usual_shape_is_checked_by_the_decoder_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """No second pass over every column of a usual catalog: the decoder checks its shape, and
    what it reads is what pydantic reads."""
    from catalog import artifacts

    if artifacts.msgspec is None:
        pytest.skip("msgspec (the `fast` extra) is not installed")

    def second_pass(obj: dict) -> None:
        raise AssertionError("a usual catalog was checked column by column")

    monkeypatch.setattr(artifacts, "_usual_catalog", second_pass)
    for path in _catalogs(None):
        _same_both_ways(path)
