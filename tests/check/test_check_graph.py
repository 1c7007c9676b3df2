"""``catalog check PATH`` against the active build in Neo4j gives the answers of
``catalog check --state BASE_TARGET PATH`` for the same edits (see test_check.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from edits import edit_catalog_type, edit_column, edit_measure_expr, edit_sql
from test_check import DROP_STATUS, EVALUATOR, EXAMPLE, STG_ORDERS
from test_prune import neo4j_env

pytestmark = pytest.mark.neo4j


def _measure(target: Path) -> None:
    edit_measure_expr(target, "semantic_model.coffee_shop.orders", "amount_paid", "amount_paid - credit_card_amount")


def _cast(target: Path) -> None:
    edit_sql(target, STG_ORDERS, "cast(ordered_at as date) as order_date", "cast(ordered_at as timestamp) as order_date")
    edit_catalog_type(target, STG_ORDERS, "order_date", "TIMESTAMP")


EXAMPLE_EDITS = {
    "drop": lambda t: edit_sql(t, STG_ORDERS, *DROP_STATUS),
    "rename": lambda t: edit_sql(t, STG_ORDERS, "'unknown') as status", "'unknown') as order_status"),
    "cast": _cast,
    "where": lambda t: edit_sql(t, STG_ORDERS, '"raw_orders"', '"raw_orders"\nwhere status is not null'),
    "add": lambda t: edit_sql(t, STG_ORDERS, "as status\n", "as status,\n    1 as flag\n"),
    "measure": _measure,
    "pii": lambda t: edit_sql(t, "model.coffee_shop.stg_customers", "first_name,", "first_name,\n    first_name as greeting_name,"),
}


def _both(base: Path, target: Path, project: str, env: dict[str, str]) -> tuple[dict, dict]:
    runner = CliRunner()
    state = runner.invoke(app, ["check", "--state", str(base), str(target), "--json", "--fail-on", "never"])
    graph = runner.invoke(app, ["check", str(target), "--project", project, "--json", "--fail-on", "never"], env=env)
    assert state.exit_code == 0, state.output
    assert graph.exit_code == 0, graph.output
    return json.loads(state.stdout), json.loads(graph.stdout)


def test_graph_mode_answers_as_state_mode(build, project_name, neo4j_settings, tmp_path):
    first = build(EXAMPLE, project_name)
    env = neo4j_env(neo4j_settings)
    for name, edit in EXAMPLE_EDITS.items():
        target = tmp_path / name
        shutil.copytree(EXAMPLE, target)
        edit(target)
        state, graph = _both(EXAMPLE, target, project_name, env)
        assert graph["base"] == f"build {first.build_id}"
        assert graph["findings"] == state["findings"], name
        assert state["findings"], name
    # exit codes as in --state mode
    done = CliRunner().invoke(app, ["check", str(tmp_path / "drop"), "--project", project_name], env=env)
    assert done.exit_code == 1
    done = CliRunner().invoke(app, ["check", str(tmp_path / "drop"), "--project", f"{project_name}_none"], env=env)
    assert done.exit_code == 2 and "has no active build" in done.output


@pytest.mark.corpus
def test_graph_mode_on_the_evaluator(build, project_name, neo4j_settings, shared_dir, tmp_path):
    base = shared_dir / "corpus" / "dbt-project-evaluator" / "target"
    build(base, project_name)
    env = neo4j_env(neo4j_settings)
    edits = {
        "exposure": lambda t: edit_sql(t, f"{EVALUATOR}.fct_model_6", "select 1 as id", "select 1 as ident"),
        "contract_added": lambda t: edit_sql(
            t, f"{EVALUATOR}.dim_model_7", "select * from __dbt__cte__stg_model_4", "select id, 1 as version from __dbt__cte__stg_model_4"
        ),
        # the build keeps the contract: dim_model_7's not_null on id, removed, breaks it
        "contract_constraint": lambda t: edit_column(t, f"{EVALUATOR}.dim_model_7", "id", constraints=[]),
    }
    severities = {"exposure": "breaking", "contract_added": "safe", "contract_constraint": "breaking"}
    for name, edit in edits.items():
        target = tmp_path / name
        shutil.copytree(base, target)
        edit(target)
        state, graph = _both(base, target, project_name, env)
        assert graph["findings"] == state["findings"], name
        assert [f["severity"] for f in graph["findings"]][0] == severities[name], name


@pytest.mark.corpus
def test_a_pr_copy_of_an_old_manifest_is_checked_against_its_project(neo4j_settings, shared_dir, tmp_path):
    """dbt 1.2's manifest has no metadata.project_name: the project looked up is the manifest's
    (thorchain_models, which no test builds), not the pull request's folder."""
    pr = tmp_path / "pr-412"
    shutil.copytree(shared_dir / "corpus" / "flipside-thorchain" / "target", pr / "target")
    done = CliRunner().invoke(app, ["check", str(pr)], env=neo4j_env(neo4j_settings))
    assert done.exit_code == 2, done.output  # could not run
    assert done.stderr.strip() == (
        "Error: project 'thorchain_models' has no active build: run `catalog build`, pass --project, or compare with --state"
    )
