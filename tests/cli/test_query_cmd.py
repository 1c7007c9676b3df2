"""``catalog query``: any Cypher file of cypher/, read-only, against a real Neo4j."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.cli.query_cmd import parse_params, resolve_name
from catalog.errors import NotFound
from catalog.store import cypher

neo4j = pytest.mark.neo4j


def env_for(settings) -> dict[str, str]:
    return {
        "NEO4J_URI": settings.uri,
        "NEO4J_USER": settings.user,
        "NEO4J_PASSWORD": settings.password.get_secret_value(),
        "NEO4J_DATABASE": settings.database,
    }


def run(args: list[str], settings=None):
    return CliRunner().invoke(app, ["query", *args], env=env_for(settings) if settings else None)


def test_values_are_json_when_they_parse_else_strings():
    got = parse_params(["a=1", "b=null", "c=x y", 'd=["k"]', 'e="3"', "$f=true", "g=", "h=a=b"])
    assert got == {"a": 1, "b": None, "c": "x y", "d": ["k"], "e": "3", "f": True, "g": "", "h": "a=b"}


def test_names_with_or_without_folder():
    assert resolve_name("find_impact_downstream") == "read/find_impact_downstream"
    assert resolve_name("read/find_impact_downstream") == "read/find_impact_downstream"
    assert resolve_name("cypher/read/find_impact_downstream.cypher") == "read/find_impact_downstream"
    with pytest.raises(NotFound, match="did you mean"):
        resolve_name("find_impact_downstrem")


def test_list_shows_every_file_with_its_summary_and_parameters():
    done = run(["--list", "--json"])
    assert done.exit_code == 0, done.output
    listed = {q["name"]: q for q in json.loads(done.stdout)}
    assert set(listed) == set(cypher.names())
    impact = listed["read/find_impact_downstream"]
    assert impact["parameters"] == ["project", "build_id", "column_keys", "max_depth"]
    assert impact["summary"].startswith("Impact analysis") and impact["read_only"]
    assert not listed["write/create_build"]["read_only"] and not listed["schema/create_constraints"]["read_only"]
    table = run(["--list"])
    assert table.exit_code == 0 and "read/find_prune_models" in table.stdout and "$column_keys" in table.stdout


def test_usage_errors():
    assert run([]).exit_code == 2  # neither NAME nor --list
    assert run(["list_projects", "--param", "novalue"]).exit_code == 2
    assert run(["list_projects", "-p", "a=1", "-p", "a=2"]).exit_code == 2


@neo4j
def test_runs_a_read_query_with_parameters(build, project_name, example, neo4j_settings):
    build(example, project_name)
    key = f"{project_name}/model.coffee_shop.orders.status"
    done = run(
        ["find_conditioned_models", "-p", f"project={project_name}", "-p", f'column_keys=["{key}"]', "-p", "build_id=null", "-p", "builds={}", "--json"],
        neo4j_settings,
    )
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["query"] == "read/find_conditioned_models"
    assert doc["parameters"] == {"project": project_name, "column_keys": [key], "build_id": None, "builds": {}}
    assert doc["columns"] == ["column", "model_key", "unique_id", "model", "clause"]
    # customers: valid_orders filters `where status <> 'cancelled'`
    assert [(r["model"], r["clause"]) for r in doc["rows"]] == [("customers", "where")]
    assert "1 row" in done.stderr

    table = run(["read/find_active_build", "--param", f"project={project_name}"], neo4j_settings)
    assert table.exit_code == 0, table.output
    assert "build" in table.stdout and project_name in table.stdout


@neo4j
def test_an_int_parameter_and_an_empty_result(build, project_name, example, neo4j_settings):
    summary = build(example, project_name)
    done = run(["find_build", "-p", f"project={project_name}", "-p", f"build_id={summary.build_id}", "--json"], neo4j_settings)
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)["rows"]
    assert [r["build"]["id"] for r in rows] == [summary.build_id]
    empty = run(["find_build", "-p", f"project={project_name}", "-p", "build_id=-1"], neo4j_settings)
    assert empty.exit_code == 0 and "0 rows" in empty.stderr and "build" in empty.stdout  # header from Returns


@neo4j
def test_a_collected_query_prints_its_rows_in_the_declared_order(build, project_name, example, neo4j_settings):
    """list_node_records returns one row, `rows`, a list of maps: shown as rows, with the
    columns of its `// Returns:` line in that order, whatever order Neo4j gives map keys."""
    build(example, project_name)
    done = run(["list_node_records", "-p", f"project={project_name}", "--json"], neo4j_settings)
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["columns"] == ["id", "key", "sha256", "position"]
    assert [list(r) for r in doc["rows"]] == [doc["columns"]] * len(doc["rows"])
    keys = [r["key"] for r in doc["rows"]]
    assert keys == sorted(keys) and f"{project_name}/model.coffee_shop.orders" in keys
    assert sorted(r["position"] for r in doc["rows"]) == list(range(len(keys)))
    assert f"{len(keys)} rows" in done.stderr


@neo4j
def test_missing_and_unknown_parameters_are_named(neo4j_settings):
    done = run(["find_impact_downstream", "-p", "project=x", "-p", "build_id=null"], neo4j_settings)
    assert done.exit_code == 1
    assert "Error:" in done.stderr and "$column_keys" in done.stderr and "$max_depth" in done.stderr
    done = run(["list_projects", "-p", "project=x"], neo4j_settings)
    assert done.exit_code == 1 and "no parameter $project" in done.stderr


@neo4j
def test_write_and_schema_files_are_refused(neo4j_settings):
    # refused before any parameter check or connection
    for name in ("write/set_build_failed", "set_build_failed", "schema/create_constraints"):
        done = run([name, "-p", "ids=[]", "-p", "reason=x", "-p", "now=x"], neo4j_settings)
        assert done.exit_code == 1, name
        assert "read-only" in done.stderr


@neo4j
def test_a_writing_statement_fails_in_the_read_transaction(tmp_path, monkeypatch, neo4j_settings, graph):
    # a writing file put under read/ (here: the schema-version write, with the version this
    # database already has, so nothing would change even if it ran): the read transaction refuses it
    (tmp_path / "read").mkdir()
    shutil.copy(cypher.CYPHER_DIR / "write" / "set_schema_version.cypher", tmp_path / "read" / "sneaky.cypher")
    version = graph.read("read/find_schema_version")[0]["version"]
    monkeypatch.setattr(cypher, "CYPHER_DIR", tmp_path)
    cypher.load.cache_clear()
    try:
        done = run(["sneaky", "-p", f"version={version}"], neo4j_settings)
    finally:
        monkeypatch.undo()
        cypher.load.cache_clear()
    assert done.exit_code == 1
    assert "Error:" in done.stderr and "read access mode" in done.stderr


@neo4j
def test_unknown_query_name(neo4j_settings):
    done = run(["find_nothing_at_all"], neo4j_settings)
    assert done.exit_code == 1 and "no query" in done.stderr
