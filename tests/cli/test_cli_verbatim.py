"""Every command that echoes a stored name prints it as written, against a real Neo4j;
failures are one ``Error:`` line with the documented exit code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.report import markdown as md

from edits import edit_sql
from run_cli import unknown_project_hint

pytestmark = pytest.mark.neo4j
runner = CliRunner()
STG_PAYMENTS = "model.coffee_shop.stg_payments"


@pytest.fixture
def cli(neo4j_settings):
    env = {
        "NEO4J_URI": neo4j_settings.uri,
        "NEO4J_USER": neo4j_settings.user,
        "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value(),
        "NEO4J_DATABASE": neo4j_settings.database,
    }

    def invoke(*args: str):
        result = runner.invoke(app, list(args), env=env)
        assert "Traceback" not in result.output
        return result

    return invoke


def _ok(result) -> list[str]:
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _error(result, code: int = 1) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    return lines[0]


@pytest.mark.parametrize("suffix", ["[/]", "[prod]", "[link=http://x]y[/link]", "[bold]x"])
def test_every_command_prints_names_verbatim(cli, project_name, example_copy, suffix):
    name = project_name + suffix
    first = json.loads(cli("build", str(example_copy), "--project", name, "--json").stdout)["build_id"]
    edit_sql(example_copy, STG_PAYMENTS, "/ 100 as amount", "/ 1000 as amount")
    built = _ok(cli("build", str(example_copy), "--project", name))
    second = first + 1
    assert built[0].strip() == f"Build {second} of {name}: active"

    impact = cli("impact", "stg_payments.amount", "--project", name)
    assert _ok(impact)[0].strip() == f"Impact of stg_payments.amount (project {name}, build {second})"
    trace = cli("trace", "orders.amount_paid", "--project", name)
    assert _ok(trace)[0].strip() == f"Root cause of orders.amount_paid (project {name}, build {second})"
    as_md = _ok(cli("impact", "stg_payments.amount", "--project", name, "-f", "md"))
    assert as_md[2] == f"Project `{name}`, build {second}: 11 columns in 6 models."
    pruned = cli("prune", "-c", "stg_payments.amount", "--project", name, "-f", "table")
    assert _ok(pruned)[0].strip() == f"Models to rebuild (project {name}, build {second})"

    assert re.search(rf"│ *{second} │ active", cli("builds", "--project", name).stdout)  # ids are padded to the column
    assert _ok(cli("diff", "--project", name))[0].strip() == f"Changes in {name} from build {first} to build {second}"
    assert _ok(cli("diff", "--project", name, "-f", "md"))[0] == f"### Column lineage changes: build {first} → {second} (`{name}`)"
    rows = cli("query", "find_build", "-p", f"project={name}", "-p", "build_id=null", "--json")
    assert json.loads(rows.stdout)["rows"][0]["build"]["project"] == name

    report = cli("report", "--project", name, "-f", "md")
    assert _ok(report)[0] == f"# Governance report: {md.text(name)}, build {second}"
    assert report.stderr.splitlines()[0] == f"Reading build {second} of {name}…"

    missing = cli("impact", f"orders.{suffix}", "--project", name)
    assert _error(missing).startswith(f"Error: no column {'orders.' + suffix!r} in project {name!r} (build {second})")

    assert _ok(cli("gc", "--keep", "1", "--project", name))[0].startswith(f"kept builds {second}; deleted 1 builds and ")
    assert _ok(cli("forget", name, "--yes"))[0].startswith(f"forgot {name}: 1 builds, ")
    assert _error(cli("builds", "--project", name)).startswith(f"Error: no project {name!r} in this database")


def test_a_slash_in_the_project_name_stays_out_of_answer_keys(cli, project_name, example_copy):
    name = f"{project_name}/eu"
    _ok(cli("build", str(example_copy), "--project", name))
    edit_sql(example_copy, STG_PAYMENTS, "/ 100 as amount", "/ 1000 as amount")
    _ok(cli("build", str(example_copy), "--project", name))

    impact = json.loads(cli("impact", "stg_orders.status", "--project", name, "--with-conditions", "--json").stdout)
    hops = [h for c in impact["columns"] for h in c["path"]]
    assert hops and all(h["from"].startswith("model.") and h["to"].startswith("model.") for h in hops)
    assert impact["conditions"] == [
        {"column": "model.coffee_shop.orders.status", "model": "customers", "unique_id": "model.coffee_shop.customers", "clause": "where"}
    ]
    trace = json.loads(cli("trace", "orders.amount_paid", "--project", name, "--json").stdout)
    assert {c["via"] for c in trace["columns"]} == {"orders.amount_paid"}
    assert all(h["from"].startswith(("model.", "source.")) for c in trace["columns"] for h in c["path"])

    d = json.loads(cli("diff", "--project", name, "--json").stdout)
    assert [(e["change"], e["up"], e["down"]) for e in d["edges"]] == [
        ("changed", "source.coffee_shop.shop.payments.amount_cents", "model.coffee_shop.stg_payments.amount")
    ]
    plan = json.loads(cli("prune", "-c", "stg_payments.amount", "--project", name, "--json").stdout)
    assert plan["changed_columns"] == ["model.coffee_shop.stg_payments.amount"]
    assert all(m["via"] in (None, "model.coffee_shop.stg_payments.amount") for m in plan["models"])


def test_builds_of_an_unknown_project_is_not_found(cli, project_name, example_copy):
    _ok(cli("build", str(example_copy), "--project", project_name))
    wanted = f"{project_name}x"
    assert unknown_project_hint(_error(cli("builds", "--project", wanted)), wanted)[0] == project_name
    assert _error(cli("diff", "--project", wanted)).startswith(f"Error: no project {wanted!r} in this database")
    assert _error(cli("gc", "--project", wanted)).startswith(f"Error: no project {wanted!r} in this database")


def test_build_id_null_means_the_active_build(cli, graph, project_name, example_copy):
    _ok(cli("build", str(example_copy), "--project", project_name))
    edit_sql(example_copy, STG_PAYMENTS, "/ 100 as amount", "/ 1000 as amount")
    _ok(cli("build", str(example_copy), "--project", project_name))
    active = graph.find_active_build(project_name)["id"]

    found = json.loads(cli("query", "find_build", "-p", f"project={project_name}", "-p", "build_id=null", "--json").stdout)
    assert [r["build"]["id"] for r in found["rows"]] == [active]
    states = cli("query", "list_model_states", "-p", f"project={project_name}", "-p", "build_id=null", "--json")
    by_id = cli("query", "list_model_states", "-p", f"project={project_name}", "-p", f"build_id={active}", "--json")
    assert json.loads(states.stdout)["rows"] == json.loads(by_id.stdout)["rows"] != []


def test_build_json_names_failed_models(cli, project_name, example_copy):
    edit_sql(example_copy, STG_PAYMENTS, 'from "coffee_shop"', 'from from ((( "coffee_shop"')
    summary = json.loads(cli("build", str(example_copy), "--project", project_name, "--json").stdout)
    assert list(summary["failures"]) == [STG_PAYMENTS]
    assert summary["failures"][STG_PAYMENTS].startswith("cannot parse SQL: ")
    assert summary["models"]["failed"] == 1


def test_unknown_dialect_starts_no_build(cli, graph, project_name, example_copy):
    line = _error(cli("build", str(example_copy), "--project", project_name, "--dialect", "duckdbb"))
    assert line == "Error: --dialect 'duckdbb' is not a SQL dialect sqlglot knows; did you mean duckdb?"
    assert not graph.read("read/find_project", project=project_name)


def test_build_warns_of_weaker_inputs_every_time(cli, project_name, example_copy: Path):
    (example_copy / "catalog.json").unlink()
    expected = (
        f"Warning: {example_copy / 'catalog.json'} is missing: `select *` is expanded from the columns declared in "
        "YAML and column types are unknown (run `dbt docs generate`)"
    )
    for _ in range(2):  # the second build changes nothing, and says it again
        result = cli("build", str(example_copy), "--project", project_name, "--json")
        summary = json.loads(result.stdout)
        assert [line for line in result.stderr.splitlines() if line.startswith("Warning:")] == [expected]
        assert [(w["code"], w["message"]) for w in summary["warnings"]] == [("no_catalog", expected[len("Warning: ") :])]
    assert summary["models"]["reused"] == summary["models"]["total"]
