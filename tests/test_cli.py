"""The command line: help, bad input, exit codes, JSON on stdout and messages on stderr."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "coffee_shop"
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


@pytest.mark.parametrize(
    "command",
    ["build", "impact", "trace", "prune", "query", "report", "builds", "diff", "gc", "forget", "lineage", "evaluate", "export", "neo4j"],
)
def test_every_command_explains_itself(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output and len(result.output.splitlines()) > 5


def test_lineage_json_of_the_example_matches_its_golden():
    result = invoke("lineage", str(EXAMPLE), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    golden = json.loads((EXAMPLE / "expected_lineage.json").read_text())["models"]
    assert sorted(doc["models"]) == sorted(golden)
    for uid, expected in golden.items():
        got = doc["models"][uid]
        assert {c: (v["type"], v["sources"]) for c, v in got["columns"].items()} == {
            c: (v["type"], sorted(v["sources"])) for c, v in expected["columns"].items()
        }, uid
        assert got["conditions"] == sorted(expected["conditions"], key=lambda c: (c["column"], c["clause"])), uid
    assert "models analyzed" in result.stderr  # messages go to stderr, stdout is pure JSON


def test_missing_path_is_one_line_naming_it():
    result = invoke("lineage", "/no/such/dir")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == ["Error: /no/such/dir: no such file or directory"]


def _broken_copy(tmp_path: Path, text: str) -> Path:
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE / "target", target)
    (target / "manifest.json").write_text(text)
    return target


def test_corrupt_manifest_names_the_file(tmp_path):
    target = _broken_copy(tmp_path, '{"metadata": {')
    result = invoke("lineage", str(target))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(target / "manifest.json") in lines[0] and "not valid JSON" in lines[0]


@pytest.mark.parametrize("version", [3, 13])
def test_unsupported_manifest_version_says_which_are_read(tmp_path, version):
    manifest = json.loads((EXAMPLE / "target" / "manifest.json").read_text())
    manifest["metadata"]["dbt_schema_version"] = f"https://schemas.getdbt.com/dbt/manifest/v{version}.json"
    target = _broken_copy(tmp_path, json.dumps(manifest))
    result = invoke("lineage", str(target))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert f"manifest schema v{version}" in lines[0] and "v4-v12" in lines[0] and "dbt 0.21 to 1.12" in lines[0]


def test_not_a_manifest(tmp_path):
    target = _broken_copy(tmp_path, json.dumps({"hello": 1}))
    result = invoke("lineage", str(target))
    assert result.exit_code == 1
    assert "dbt_schema_version is missing" in result.stderr


def test_unreachable_neo4j_is_one_clear_line(tmp_path):
    result = invoke("build", str(EXAMPLE), env={"NEO4J_URI": "bolt://127.0.0.1:1"})
    assert result.exit_code == 1
    assert "cannot reach Neo4j at bolt://127.0.0.1:1" in result.stderr
    assert "Traceback" not in result.output


def test_usage_error_exits_2():
    result = invoke("impact", "--depth", "zero", "x.y")
    assert result.exit_code == 2
