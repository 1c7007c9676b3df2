"""The impact command's output formats, against a real Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.build import Builder
from catalog.cli.app import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop"
runner = CliRunner()


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, list(args), env=env)


@pytest.mark.neo4j
def test_impact_cli_formats(neo4j_settings, graph, project_name):
    name = project_name
    Builder(graph, EXAMPLE, project_name=name).run()
    env = {"NEO4J_URI": neo4j_settings.uri, "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    as_json = invoke("impact", "stg_orders.order_id", "--project", name, "--json", env=env)
    assert as_json.exit_code == 0, as_json.stderr
    doc = json.loads(as_json.stdout)
    assert doc["models"] == sorted(
        f"model.coffee_shop.{m}" for m in ("customer_orders_daily", "customer_segments", "customers", "order_events", "orders")
    )
    selector = invoke("impact", "stg_orders.order_id", "--project", name, "-f", "selector", env=env)
    assert selector.stdout.strip() == "customer_orders_daily customer_segments customers order_events orders"
    md = invoke("impact", "stg_orders.order_id", "--project", name, "-f", "md", env=env)
    assert md.stdout.startswith("### Impact of `stg_orders.order_id`") and "| `orders` | `order_id` | 1 | passthrough |" in md.stdout
    missing = invoke("trace", "orders.nope", "--project", name, env=env)
    assert missing.exit_code == 1 and "no column 'orders.nope'" in missing.stderr


def test_forget_removes_one_project_only(neo4j_settings, graph, project_name):
    Builder(graph, EXAMPLE, project_name=project_name).run()
    Builder(graph, EXAMPLE, project_name=f"{project_name}_kept").run()
    env = {"NEO4J_URI": neo4j_settings.uri, "NEO4J_PASSWORD": neo4j_settings.password.get_secret_value()}
    refused = invoke("forget", project_name, env=env)
    assert refused.exit_code == 2  # --yes is required
    done = invoke("forget", project_name, "--yes", "--json", env=env)
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["builds_deleted"] == 1
    names = {r["name"] for r in graph.read("read/list_projects")}
    assert project_name not in names and f"{project_name}_kept" in names
    kept = invoke("trace", "customers.lifetime_value", "--project", f"{project_name}_kept", "--json", env=env)
    assert kept.exit_code == 0 and len(json.loads(kept.stdout)["columns"]) == 3
    again = invoke("forget", project_name, "--yes", env=env)
    assert again.exit_code == 1 and f"no project {project_name!r}" in again.stderr
