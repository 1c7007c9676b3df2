"""Manifests of every schema from v4 (dbt 0.21) to v12 read into the same records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project
from catalog.evaluate import from_lineages
from catalog.extract import load_project

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "coffee_shop" / "target"


def as_old_schema(tmp_path: Path, version: int) -> Path:
    """The example's artifacts rewritten the way dbt 0.21-1.2 wrote them: ``raw_sql`` and
    ``compiled_sql``, no ``language`` or ``access``, and (v4) no ``relation_name``; the catalog
    also lists ``test.*`` nodes, as store_failures leaves them."""
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["metadata"]["dbt_schema_version"] = f"https://schemas.getdbt.com/dbt/manifest/v{version}.json"
    for node in [*manifest["nodes"].values(), *manifest["sources"].values()]:
        for new, old in (("raw_code", "raw_sql"), ("compiled_code", "compiled_sql")):
            if new in node:
                node[old] = node.pop(new)
        for key in ("language", "access", "contract", "constraints", "version", "latest_version"):
            node.pop(key, None)
        if version < 5:
            node.pop("relation_name", None)
    (target / "manifest.json").write_text(json.dumps(manifest))
    catalog = json.loads((target / "catalog.json").read_text())
    catalog["nodes"]["test.coffee_shop.not_null_orders_order_id"] = {
        "metadata": {"type": "BASE TABLE", "schema": "dbt_test__audit", "name": "not_null_orders_order_id"},
        "columns": {"order_id": {"type": "INTEGER", "index": 1, "name": "order_id", "comment": None}},
        "stats": {},
        "unique_id": "test.coffee_shop.not_null_orders_order_id",
    }
    (target / "catalog.json").write_text(json.dumps(catalog))
    return target


@pytest.mark.parametrize("version", [4, 6])
def test_old_schemas_give_the_same_lineage(tmp_path, version):
    new = load_project(EXAMPLE)
    old = load_project(as_old_schema(tmp_path, version))
    assert set(old.nodes) == set(new.nodes)
    for uid, node in new.nodes.items():
        was = old.nodes[uid]
        assert (was.sql, was.sql_origin, was.relation_name, was.columns) == (
            node.sql,
            node.sql_origin,
            node.relation_name.replace('"', "") if node.relation_name and version < 5 else node.relation_name,
            node.columns,
        ), uid
    assert from_lineages(analyze_project(old, jobs=1)) == from_lineages(analyze_project(new, jobs=1))


@pytest.mark.corpus
@pytest.mark.parametrize(("name", "version", "field"), [("flipside-thorchain", 6, "compiled_sql"), ("tuva", 8, "compiled_code")])
def test_committed_old_manifests_load(shared_dir, name, version, field):
    target = shared_dir / "corpus" / name / "target"
    raw = json.loads((target / "manifest.json").read_text())
    assert raw["metadata"]["dbt_schema_version"].endswith(f"/v{version}.json")
    project = load_project(target)
    models = project.models()
    with_sql = [n for n in raw["nodes"].values() if n["resource_type"] == "model" and n.get(field)]
    assert len(models) == len(with_sql) > 100
    assert all(m.sql and m.sql_origin == "compiled" for m in models)
    assert all(m.relation_name for m in models if not m.is_ephemeral)
