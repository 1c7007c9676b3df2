"""What a build reads: compiled SQL files are part of its inputs, bad inputs are refused
before anything is written, and the project's name is the manifest's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.builds import Builder
from catalog.cli.app import app
from catalog.errors import ArtifactError
from catalog.history import list_builds

pytestmark = pytest.mark.neo4j

runner = CliRunner()
STG_PAYMENTS = "model.coffee_shop.stg_payments"
PAYMENTS_SQL = Path("compiled/coffee_shop/models/staging/stg_payments.sql")


def without_compiled_code(target: Path) -> None:
    """A manifest that names no compiled SQL for its models: theirs comes from target/compiled/
    (the snapshot, which has no compiled file there, keeps its compiled SQL)."""
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    for node in manifest["nodes"].values():
        if node["resource_type"] == "model":
            node.pop("compiled_code", None)
    path.write_text(json.dumps(manifest))


def projects(graph) -> set[str]:
    return {r["name"] for r in graph.read("read/list_projects")}


def exprs(ask, project: str) -> list[str]:
    return [h.expr for r in ask(project).trace(["stg_payments.amount"]).columns for h in r.hops]


def test_an_edited_compiled_file_is_analyzed_again(build, project_name, example_copy, ask):
    without_compiled_code(example_copy)
    first = build(example_copy, project_name)
    assert first.models.recomputed == 15 and first.models.failed == 0 and exprs(ask, project_name) == ["CAST(amount_cents AS DECIMAL(10, 2)) / 100"]
    again = build(example_copy, project_name)
    assert again.models.reused == 15 and "extract" not in again.timings  # still the one-transaction no-change build

    sql = example_copy / PAYMENTS_SQL
    sql.write_text(sql.read_text().replace("amount_cents::decimal(10, 2) / 100 as amount", "amount_cents as amount"))
    edited = build(example_copy, project_name)
    assert edited.recomputed_models == [STG_PAYMENTS] and (edited.edges.written, edited.edges.closed) == (1, 1)
    assert exprs(ask, project_name) == ["amount_cents"]

    sql.unlink()  # no compiled file: the raw SQL is analyzed instead, which is a change too
    fallback = build(example_copy, project_name)
    assert fallback.recomputed_models == [STG_PAYMENTS]


def _broken_catalog(target: Path) -> None:
    (target / "catalog.json").write_text("{not json")


def _unsupported_manifest(target: Path) -> None:
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["metadata"]["dbt_schema_version"] = "https://schemas.getdbt.com/dbt/manifest/v99.json"
    path.write_text(json.dumps(manifest))


def _unknown_adapter(target: Path) -> None:
    path = target / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["metadata"]["adapter_type"] = "no_such_warehouse"
    path.write_text(json.dumps(manifest))


def _binary_compiled_file(target: Path) -> None:
    without_compiled_code(target)
    (target / PAYMENTS_SQL).write_bytes(b"select \xff\xfe from x")


BAD_INPUTS = {
    "catalog.json": (_broken_catalog, "catalog.json: not valid JSON"),
    "manifest schema": (_unsupported_manifest, "manifest schema v99"),
    "adapter": (_unknown_adapter, "dialect 'no_such_warehouse' is not a SQL dialect sqlglot knows"),
    "compiled file": (_binary_compiled_file, "stg_payments.sql: not UTF-8 text"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_artifacts_write_nothing(build, project_name, example_copy, example, graph, neo4j_settings, case):
    other = f"{project_name}_ok"
    ok = build(example, other)
    spoil, message = BAD_INPUTS[case]
    spoil(example_copy)
    # a new project: no Project node, no build, no lock, no build id used
    with pytest.raises(ArtifactError, match=message):
        build(example_copy, project_name)
    assert projects(graph) >= {other} and project_name not in projects(graph)
    assert list_builds(graph, project_name) == []
    # an existing project: no failed build either, the active one stays
    with pytest.raises(ArtifactError, match=message):
        build(example_copy, other)
    assert [(b.id, b.status) for b in list_builds(graph, other)] == [(ok.build_id, "active")]
    assert build(example, other, full=True).build_id == ok.build_id + 1
    # the command says so in one line
    env = {"NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
           "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}  # fmt: skip
    result = runner.invoke(app, ["build", str(example_copy), "--project", project_name], env=env)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.stderr
    assert project_name not in projects(graph)


def test_unknown_dialect_option_writes_nothing(project_name, example, graph):
    with pytest.raises(ArtifactError, match="--dialect 'nope' is not a SQL dialect sqlglot knows"):
        Builder(graph, example, project_name=project_name, dialect="nope").run()
    assert project_name not in projects(graph)


def test_the_project_name_is_the_manifests_not_one_in_its_env(project_name, example_copy, graph):
    path = example_copy / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["metadata"]["env"] = {"project_name": f"{project_name}_env", "adapter_type": "postgres"}
    manifest["metadata"]["project_name"] = project_name
    path.write_text(json.dumps(manifest))
    for _ in range(2):  # a first build, then a no-change one
        summary = Builder(graph, example_copy, jobs=1).run()
        assert summary.project == project_name and summary.status == "active" and summary.dialect == "duckdb"
    assert project_name in projects(graph) and f"{project_name}_env" not in projects(graph)
    builds = list_builds(graph, project_name)
    assert [b.status for b in builds] == ["active", "superseded"] and builds[0].models_reused == 15


def test_a_manifest_whose_metadata_is_not_first_builds_under_its_name(project_name, example_copy, graph):
    path = example_copy / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["metadata"]["project_name"] = project_name
    path.write_text(json.dumps({"nodes": manifest.pop("nodes"), **manifest}))
    summary = Builder(graph, example_copy, jobs=1).run()
    assert summary.project == project_name and [b.status for b in list_builds(graph, project_name)] == ["active"]

