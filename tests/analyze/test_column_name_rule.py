"""The column naming rule (catalog.idents) through a whole project: catalog.json and YAML
names, a model's analyzed columns read downstream, ``catalog lineage`` and ``evaluate``."""

from __future__ import annotations

import json

import pytest

from catalog.analyze.project import analyze_project
from catalog.evaluate import diff, from_document, from_lineages, score
from catalog.extract import DbtColumn, DbtNode, DbtProject
from catalog.idents import column_name, stored_name, typed, typed_key


@pytest.mark.parametrize(
    ("dialect", "written", "quoted", "name"),
    [
        ("postgres", "ID", False, "id"),
        ("postgres", "ID", True, '"ID"'),
        ("postgres", "id", True, "id"),
        ("postgres", "Order Id", True, '"Order Id"'),
        ("postgres", 'a"B', True, '"a""B"'),
        ("snowflake", "id", False, "id"),
        ("snowflake", "ID", True, "id"),
        ("snowflake", "id", True, '"id"'),
        ("snowflake", "Id", True, '"Id"'),
        ("duckdb", "ID", True, "id"),
        ("bigquery", "Id", True, "id"),
        ("redshift", "ID", True, "id"),
        ("mysql", "ID", True, "id"),
        ("clickhouse", "ID", False, '"ID"'),
        ("clickhouse", "id", False, "id"),
        (None, "ID", True, "id"),
    ],
)
def test_one_name_per_column(dialect, written, quoted, name) -> None:
    assert column_name(written, dialect, quoted) == name
    assert typed(name) == name  # the name is kept as it is by every later stage


def test_catalog_names_are_taken_as_stored() -> None:
    assert [stored_name(n, "postgres") for n in ("id", "ID")] == ["id", '"ID"']
    assert [stored_name(n, "snowflake") for n in ("ID", "id", "ORDER_ID")] == ["id", '"id"', "order_id"]
    assert typed_key('MODEL.P.A."ID"') == 'model.p.a."ID"'
    assert typed_key("MODEL.P.A.ID") == "model.p.a.id"


def _node(uid: str, sql: str | None = None, columns=(), declared=(), depends_on=()) -> DbtNode:
    name = uid.rsplit(".", 1)[-1]
    cols = [DbtColumn(name=c, in_catalog=True) for c in columns]
    cols += [DbtColumn(name=c, declared=True, quoted=q) for c, q in declared]
    return DbtNode(
        unique_id=uid,
        resource_type=uid.split(".", 1)[0],
        package_name="p",
        name=name,
        relation_name=f'"db"."main"."{name}"',
        materialized="table",
        sql=sql,
        sql_origin="compiled" if sql else None,
        columns=tuple(cols),
        depends_on=tuple(depends_on),
    )


def _project(dialect: str, nodes: list[DbtNode]) -> DbtProject:
    return DbtProject(
        name="p",
        target_dir="/nonexistent",
        adapter_type=dialect,
        dialect=dialect,
        dbt_version=None,
        manifest_sha256="",
        catalog_sha256=None,
        nodes={n.unique_id: n for n in nodes},
    )


def _edges(lineages) -> dict[str, dict[str, tuple[str, list[str]]]]:
    return {
        uid: {c.name: (c.kind.value, sorted(s.key for s in c.sources)) for c in lin.columns} for uid, lin in lineages.items()
    }


POSTGRES = [
    _node("source.p.raw", columns=("ID", "id", "key")),
    # not in catalog.json: its columns come from its own analysis
    _node("model.p.up", 'select "ID", id, key as "Key" from "db"."main"."raw"', depends_on=["source.p.raw"]),
    _node("model.p.down", 'select * from "db"."main"."up"', depends_on=["model.p.up"]),
    _node("model.p.picks", 'select u."ID" as a, u.id as b, u."Key" as c from "db"."main"."up" as u', depends_on=["model.p.up"]),
    # YAML only: ``Key`` unquoted is key; with ``quote: true`` "Key"
    _node("model.p.yaml", None, declared=(("ID", False), ("Key", True))),
]


def test_postgres_project_keeps_id_and_ID_apart_downstream() -> None:
    lineages = analyze_project(_project("postgres", POSTGRES), jobs=1)
    got = _edges(lineages)
    assert got["model.p.up"] == {
        '"ID"': ("passthrough", ['source.p.raw."ID"']),
        "id": ("passthrough", ["source.p.raw.id"]),
        '"Key"': ("renamed", ["source.p.raw.key"]),
    }
    assert got["model.p.down"] == {
        '"ID"': ("passthrough", ['model.p.up."ID"']),
        "id": ("passthrough", ["model.p.up.id"]),
        '"Key"': ("passthrough", ['model.p.up."Key"']),
    }
    assert got["model.p.picks"] == {
        "a": ("renamed", ['model.p.up."ID"']),
        "b": ("renamed", ["model.p.up.id"]),
        "c": ("renamed", ['model.p.up."Key"']),
    }
    assert [c.key_name("postgres") for c in POSTGRES[-1].columns] == ["id", '"Key"']


def test_evaluate_scores_exact_names_against_a_golden() -> None:
    lineages = analyze_project(_project("postgres", POSTGRES), jobs=1)
    golden = {
        "models": {
            "model.p.picks": {
                "columns": {
                    "A": {"type": "renamed", "sources": ['model.p.up."ID"']},
                    "b": {"type": "renamed", "sources": ["MODEL.P.UP.ID"]},
                    "c": {"type": "renamed", "sources": ['model.p.up."Key"']},
                }
            }
        }
    }
    ours = from_lineages(lineages)
    scores = score({k: v for k, v in ours.items() if k == "model.p.picks"}, from_document(golden))
    assert (scores.edge_precision.value, scores.edge_recall.value, scores.type_accuracy.value) == (1.0, 1.0, 1.0)
    # a golden that swaps them is wrong on both edges
    golden["models"]["model.p.picks"]["columns"]["a"] = golden["models"]["model.p.picks"]["columns"].pop("A")
    golden["models"]["model.p.picks"]["columns"]["a"]["sources"] = ["model.p.up.id"]
    golden["models"]["model.p.picks"]["columns"]["b"]["sources"] = ['model.p.up."ID"']
    (found,) = diff(ours, from_document(golden), ["model.p.picks"])
    assert found.lines == ["- a <- model.p.up.id", '+ a <- model.p.up."ID"', '- b <- model.p.up."ID"', "+ b <- model.p.up.id"]


def test_duckdb_project_reads_ID_and_id_as_one_column() -> None:
    nodes = [
        _node("source.p.raw", columns=("id", "key")),
        _node("model.p.up", 'select "ID" as "X", x.Key from "db"."main"."raw" as x', depends_on=["source.p.raw"]),
    ]
    got = _edges(analyze_project(_project("duckdb", nodes), jobs=1))
    assert got["model.p.up"] == {"x": ("renamed", ["source.p.raw.id"]), "key": ("passthrough", ["source.p.raw.key"])}


def test_lineage_json_and_evaluate_from_the_cli(tmp_path) -> None:
    """``catalog lineage --json`` writes "ID" as a name of its own, and ``catalog evaluate``
    reads it as one from a golden file written by hand."""
    import shutil
    from pathlib import Path

    from typer.testing import CliRunner

    from catalog.cli.app import app

    target = tmp_path / "target"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target", target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["metadata"]["adapter_type"] = "postgres"
    node = manifest["nodes"]["model.coffee_shop.orders"]
    node["compiled_code"] = node["compiled_code"].replace("    amount_paid,\n    case", '    amount_paid,\n    order_id as "ID",\n    amount_paid as id,\n    case')
    (target / "manifest.json").write_text(json.dumps(manifest))
    runner = CliRunner()
    result = runner.invoke(app, ["lineage", str(target), "--json"])
    assert result.exit_code == 0, result.output
    orders = json.loads(result.stdout)["models"]["model.coffee_shop.orders"]
    assert orders["status"] == "resolved"
    assert orders["columns"]['"ID"']["sources"] == ["model.coffee_shop.stg_orders.order_id"]
    assert orders["columns"]["id"]["sources"] == ["model.coffee_shop.stg_payments.amount"]
    # the golden is the example's own (hand-written from its SQL), with the two added columns written by hand
    doc = json.loads((Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "expected_lineage.json").read_text())
    doc["models"]["model.coffee_shop.orders"]["columns"].update(
        {
            '"ID"': {"type": "renamed", "sources": ["model.coffee_shop.stg_orders.order_id"]},
            "id": {"type": "derived", "sources": ["model.coffee_shop.stg_payments.amount"]},
        }
    )
    golden = tmp_path / "golden.json"
    golden.write_text(json.dumps(doc))
    columns = sum(len(m["columns"]) for m in doc["models"].values())
    result = runner.invoke(app, ["evaluate", str(target), "--golden", str(golden), "--json"])
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)
    assert (scores["edge_precision"]["value"], scores["edge_recall"]["value"], scores["columns_missing"], scores["columns_extra"]) == (1.0, 1.0, 0, 0)
    assert scores["type_accuracy"] == {"value": 1.0, "hits": columns, "total": columns}
    # the golden read as one folded column would miss one of the two
    doc["models"]["model.coffee_shop.orders"]["columns"].pop('"ID"')
    golden.write_text(json.dumps(doc))
    scores = json.loads(runner.invoke(app, ["evaluate", str(target), "--golden", str(golden), "--json"]).stdout)
    assert (scores["columns_missing"], scores["columns_extra"], scores["edge_recall"]["value"]) == (0, 1, 1.0)


def test_known_case_rules_are_sqlglots_for_every_dialect() -> None:
    """The rules kept in catalog.idents (so that naming a column does not import sqlglot) are
    the ones sqlglot's normalization strategies give, for every dialect it knows."""
    from sqlglot.dialects.dialect import Dialects

    from catalog.idents import KNOWN_RULES, sqlglot_case_rule

    dialects = sorted(d.value for d in Dialects if d.value)
    assert sorted(KNOWN_RULES) == dialects
    assert {d: sqlglot_case_rule(d) for d in dialects} == KNOWN_RULES
