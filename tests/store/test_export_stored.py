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
from catalog.query import Catalog

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
    assert len(expected) == 12

    stored = openlineage_events(stored_export_input(Catalog(graph, project_name), consumers=False), job_namespace=NS)
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

    now = openlineage_events(stored_export_input(Catalog(graph, project_name), consumers=False), job_namespace=NS)
    assert now == _from_artifacts(example_copy)
    before = openlineage_events(stored_export_input(Catalog(graph, project_name, first), consumers=False), job_namespace=NS)
    assert before == _from_artifacts(example)
    assert now != before


def test_path_and_build_together_is_a_usage_error(example):
    done = runner.invoke(app, ["export", str(example), "--build", "1"])
    assert done.exit_code == 2
    assert "give them without PATH" in done.output
