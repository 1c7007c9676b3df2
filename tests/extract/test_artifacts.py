"""Manifests of every schema from v4 (dbt 1.0) to v12 read into the same records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project
from catalog.evaluate import from_lineages
from catalog.errors import ArtifactError
from catalog.extract import load_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"


def as_old_schema(tmp_path: Path, version: int) -> Path:
    """The example's artifacts rewritten the way dbt 1.0-1.2 wrote them: ``raw_sql`` and
    ``compiled_sql``, no ``language`` or ``access``, and (v4) no ``relation_name``; the catalog
    also lists ``test.*`` nodes, as store_failures leaves them. Python models came with dbt 1.3
    (v7): they are left out."""
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["metadata"]["dbt_schema_version"] = f"https://schemas.getdbt.com/dbt/manifest/v{version}.json"
    for uid in python_models(manifest):
        del manifest["nodes"][uid]
        for edges in (manifest["parent_map"], manifest["child_map"]):
            edges.pop(uid, None)
            for others in edges.values():
                if uid in others:
                    others.remove(uid)
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


def python_models(manifest: dict) -> list[str]:
    return [uid for uid, node in manifest["nodes"].items() if node.get("language") == "python"]


def test_the_example_has_one_python_model():
    manifest = json.loads((EXAMPLE / "manifest.json").read_text())
    assert python_models(manifest) == ["model.coffee_shop.customer_scores"]


@pytest.mark.parametrize("version", [4, 6])
def test_old_schemas_give_the_same_lineage(tmp_path, version):
    new = load_project(EXAMPLE)
    old = load_project(as_old_schema(tmp_path, version))
    del new.nodes["model.coffee_shop.customer_scores"]
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


def _old_manifest_copy(shared_dir: Path, name: str, dst: Path, edit=None) -> Path:
    """A copy of a corpus target whose manifest (dbt 1.5 or older) has no metadata.project_name."""
    shutil.copytree(shared_dir / "corpus" / name / "target", dst)
    manifest = json.loads((dst / "manifest.json").read_text())
    assert "project_name" not in manifest["metadata"]
    if edit:
        edit(manifest)
        (dst / "manifest.json").write_text(json.dumps(manifest))
    return dst


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "copy", "given", "project"),
    [
        # written from integration_tests/docs_generate (project input_layer), which installs the_tuva_project
        ("tuva", "target", "target", "input_layer"),
        ("flipside-thorchain", "pr-412/target", "pr-412", "thorchain_models"),
    ],
)
def test_an_old_manifest_names_its_project_not_its_folder(shared_dir, tmp_path, monkeypatch, name, copy, given, project):
    _old_manifest_copy(shared_dir, name, tmp_path / copy)
    monkeypatch.chdir(tmp_path)  # as in `catalog build target` or `catalog check pr-412`
    assert load_project(Path(given)).name == project


@pytest.mark.corpus
def test_without_project_id_the_package_of_most_models_names_the_project(shared_dir, tmp_path):
    target = _old_manifest_copy(shared_dir, "tuva", tmp_path / "target", lambda m: m["metadata"].pop("project_id"))
    assert load_project(target).name == "the_tuva_project"  # 295 models; input_layer has 12


@pytest.mark.corpus
def test_a_nameless_manifest_without_nodes_is_refused(shared_dir, tmp_path):
    target = _old_manifest_copy(shared_dir, "tuva", tmp_path / "target", lambda m: m.update(nodes={}, sources={}))
    with pytest.raises(ArtifactError) as e:
        load_project(target)
    assert str(e.value) == (
        f"{target / 'manifest.json'}: metadata.project_name is missing and no node names its package; "
        "is this the manifest of a dbt project?"
    )


ORDERS = "model.coffee_shop.int_order_items_priced"


def with_declared_column(tmp_path: Path, edit) -> Path:
    """The example's target with one YAML-declared column of one model edited."""
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    manifest = json.loads((target / "manifest.json").read_text())
    columns = manifest["nodes"][ORDERS]["columns"]
    columns["unit_price"] = edit(dict(columns["unit_price"]))
    (target / "manifest.json").write_text(json.dumps(manifest))
    return target


def drop(key):
    return lambda c: {k: v for k, v in c.items() if k != key}


def put(key, value):
    return lambda c: {**c, key: value}


@pytest.mark.parametrize(
    "edit, where, problem",
    [
        (drop("name"), "unit_price.name", "Field required"),
        (put("name", 3), "unit_price.name", "Input should be a valid string"),
        (put("description", ["x"]), "unit_price.description", "Input should be a valid string"),
        (put("meta", None), "unit_price.meta", "Input should be a valid dictionary"),
        (put("tags", None), "unit_price.tags", "Input should be a valid list"),
        (put("tags", ["a", 1]), "unit_price.tags.1", "Input should be a valid string"),
        (put("quote", "maybe"), "unit_price.quote", "Input should be a valid boolean"),
        (lambda c: "unit_price", "unit_price", "Input should be a valid dictionary"),
    ],
)
def test_a_bad_declared_column_is_named_in_one_line(tmp_path, edit, where, problem):
    target = with_declared_column(tmp_path, edit)
    with pytest.raises(ArtifactError) as e:
        load_project(target)
    assert str(e.value) == f"{target / 'manifest.json'}: unexpected manifest shape at nodes.{ORDERS}.columns.{where}: {problem}"


@pytest.mark.parametrize("quote, quoted", [("true", True), ("no", False), (1, True), (None, False), (True, True)])
def test_a_declared_columns_quote_is_read_as_a_boolean(tmp_path, quote, quoted):
    target = with_declared_column(tmp_path, put("quote", quote))
    column = next(c for c in load_project(target).nodes[ORDERS].columns if c.name.lower() == "unit_price")
    assert column.quoted is quoted and column.declared


# ---------------------------------------------------------------------------- contracts
EVALUATOR_DIM = "model.dbt_project_evaluator_integration_tests.dim_model_7"


def as_dbt_1_5(tmp_path: Path, source: Path) -> Path:
    """A v12 target rewritten as dbt 1.5 wrote contracts (v9): ``contract`` without
    ``alias_types``, constraints without ``to`` and ``to_columns``."""
    target = tmp_path / "target"
    shutil.copytree(source, target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/manifest/v9.json"
    for node in manifest["nodes"].values():
        (node.get("config") or {}).get("contract", {}).pop("alias_types", None)
        for col in node.get("columns", {}).values():
            for c in col.get("constraints", []):
                c.pop("to", None), c.pop("to_columns", None)
    (target / "manifest.json").write_text(json.dumps(manifest))
    return target


@pytest.mark.corpus
def test_an_enforced_contract_is_read_from_every_schema_that_has_one(shared_dir, tmp_path):
    """dbt-project-evaluator's dim_model_7 declares `id` int, not_null, with its contract
    enforced; read the same from v12 and from the v9 shape; a v8 manifest (dbt 1.4) has none."""
    from catalog.extract import DbtConstraint, DbtContract, DbtContractColumn

    expected = DbtContract(
        enforced=True, columns=(DbtContractColumn(name="id", data_type="int", constraints=(DbtConstraint(type="not_null"),)),)
    )
    v12 = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    for target in (v12, as_dbt_1_5(tmp_path, v12)):
        project = load_project(target)
        assert project.nodes[EVALUATOR_DIM].contract == expected
        plain = project.nodes["model.dbt_project_evaluator_integration_tests.fct_model_6"]
        assert plain.contract == DbtContract(enforced=False) and not plain.contract_enforced
    tuva = load_project(shared_dir / "corpus" / "tuva" / "target")
    assert {n.contract for n in tuva.nodes.values()} == {None}


def test_a_bad_constraint_is_named_in_one_line(tmp_path):
    target = with_declared_column(tmp_path, put("constraints", [{"name": "positive", "expression": "unit_price > 0"}]))
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["nodes"][ORDERS]["config"]["contract"] = {"enforced": True}
    (target / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ArtifactError) as e:
        load_project(target)
    assert str(e.value) == f"{target / 'manifest.json'}: unexpected manifest shape at nodes.{ORDERS}.columns.unit_price.constraints.0.type: Field required"
