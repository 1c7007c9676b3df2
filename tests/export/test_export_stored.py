"""``catalog export`` without PATH: a build stored in Neo4j gives exactly the OpenLineage events
of the artifacts it was built from, for the active build and for an earlier one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.analyze.project import analyze_project
from catalog.cli.app import app
from catalog.export.openlineage import export_input, openlineage_events
from catalog.export.stored import stored_export_input
from catalog.extract import load_project
from catalog.query import BuildView

from edits import edit_sql

pytestmark = pytest.mark.neo4j
runner = CliRunner()
NS = "coffee_shop"


def _from_artifacts(target: Path) -> list[dict]:
    project = load_project(target)
    return openlineage_events(export_input(project, analyze_project(project, jobs=1)), job_namespace=NS)


def test_stored_build_gives_the_events_of_its_artifacts(build, graph, project_name, example, neo4j_env, tmp_path):
    build(example, project_name)
    expected = _from_artifacts(example)
    assert len(expected) == 15  # 14 models and snapshots, the exposure

    stored = openlineage_events(stored_export_input(BuildView(graph, project_name), consumers=False), job_namespace=NS)
    assert stored == expected

    out = tmp_path / "events.ndjson"
    done = runner.invoke(
        app, ["export", "--format", "openlineage", "--project", project_name, "--namespace", NS, "-o", str(out)],
        env=neo4j_env,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert [json.loads(line) for line in out.read_text().splitlines()] == expected


def test_each_build_exports_its_own_lineage(build, graph, project_name, example, example_copy):
    first = build(example, project_name).build_id
    # a change of SQL (recomputed) and of documentation only (the model is reused, its columns relabelled)
    edit_sql(example_copy, "model.coffee_shop.orders", "orders.order_date,", "orders.order_date as order_day,")
    manifest_path = example_copy / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["nodes"]["model.coffee_shop.stg_products"]["description"] = "Products, <renamed> & \"quoted\""
    manifest_path.write_text(json.dumps(manifest))
    second = build(example_copy, project_name).build_id
    assert second > first

    now = openlineage_events(stored_export_input(BuildView(graph, project_name), consumers=False), job_namespace=NS)
    assert now == _from_artifacts(example_copy)
    before = openlineage_events(stored_export_input(BuildView(graph, project_name, first), consumers=False), job_namespace=NS)
    assert before == _from_artifacts(example)
    assert now != before


def test_a_model_missing_from_catalog_json_has_its_yaml_columns_in_yaml_order(build, graph, project_name, example_copy):
    # customers is not in catalog.json, and its YAML lists its columns in another order than its
    # select does, with one the select no longer produces
    uid = "model.coffee_shop.customers"
    catalog_path, manifest_path = example_copy / "catalog.json", example_copy / "manifest.json"
    catalog = json.loads(catalog_path.read_text())
    del catalog["nodes"][uid]
    catalog_path.write_text(json.dumps(catalog))
    manifest = json.loads(manifest_path.read_text())
    columns = manifest["nodes"][uid]["columns"]
    yaml = dict(reversed(columns.items()))
    yaml["loyalty_tier"] = {**columns["email"], "name": "loyalty_tier", "description": "No longer selected."}
    manifest["nodes"][uid]["columns"] = yaml
    manifest_path.write_text(json.dumps(manifest))
    build(example_copy, project_name)

    stored = openlineage_events(stored_export_input(BuildView(graph, project_name), consumers=False), job_namespace=NS)
    assert stored == _from_artifacts(example_copy)
    event = next(e for e in stored if e["job"]["name"] == uid)
    fields = [(f["name"], f.get("type"), f["ordinal_position"]) for f in event["outputs"][0]["facets"]["schema"]["fields"]]
    assert fields == [
        ("rank_in_country", None, 1), ("lifetime_value", None, 2), ("first_order_id", None, 3), ("country_name", None, 4),
        ("email", None, 5), ("full_name", None, 6), ("customer_id", None, 7), ("loyalty_tier", None, 8),
    ]  # fmt: skip
    read_by = next(e for e in stored if e["job"]["name"] == "model.coffee_shop.customer_segments")
    read = next(d for d in read_by["inputs"] if d["name"] == event["outputs"][0]["name"])
    assert read["facets"]["schema"] == event["outputs"][0]["facets"]["schema"]


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["dbt-project-evaluator", "fivetran-hubspot"])
def test_corpus_build_gives_the_events_of_its_artifacts(build, graph, project_name, shared_dir, name):
    """Columns the analysis does not give as the artifacts do: catalog.json's order where the
    select's differs (dbt-project-evaluator's int_all_graph_resources), YAML columns the SQL does
    not produce (fivetran-hubspot's history models), as outputs and as inputs of their readers."""
    target = shared_dir / "corpus" / name / "target"
    build(target, project_name)
    stored = openlineage_events(stored_export_input(BuildView(graph, project_name), consumers=False), job_namespace=NS)
    assert stored == _from_artifacts(target)


def test_path_and_build_together_is_a_usage_error(example):
    done = runner.invoke(app, ["export", str(example), "--build", "1"])
    assert done.exit_code == 2
    assert "give them without PATH" in done.output


def _plain(lin) -> tuple:
    """A model's lineage as a stored build can give it back: each column's sources as a set."""
    return (
        lin.status, lin.reason,
        [(c.name, c.kind, c.resolved, c.expr, sorted({(s.unique_id, s.column) for s in c.sources}), c.reason) for c in lin.columns],
        sorted((c.column.unique_id, c.column.column, c.clause.value) for c in lin.conditions),
    )  # fmt: skip


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["jaffle-shop", "dbt-project-evaluator", "tuva", "flipside-thorchain"])
def test_corpus_build_read_model_by_model_is_its_analysis(build, graph, project_name, shared_dir, name):
    """What `catalog explore` and `export` of a stored build read, one model at a time
    (``list_build_model_lineage``): every model's status, columns in their order, the sources of
    each and its conditions, as the analysis of its artifacts gave them."""
    target = shared_dir / "corpus" / name / "target"
    build(target, project_name)
    stored = stored_export_input(BuildView(graph, project_name), consumers=True)
    analyzed = analyze_project(load_project(target), jobs=1)
    assert list(stored.lineages) == sorted(analyzed)
    assert {uid: _plain(lin) for uid, lin in stored.lineages.items()} == {uid: _plain(lin) for uid, lin in analyzed.items()}
    assert sum(len(c.sources) for lin in stored.lineages.values() for c in lin.columns) > 0
