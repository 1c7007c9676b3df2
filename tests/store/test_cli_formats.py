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
def test_impact_cli_formats(neo4j_settings, graph, tmp_path):
    name = f"cli_{tmp_path.name[-8:]}"
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
    assert md.stdout.startswith("### Impact of `stg_orders.order_id`") and "| orders | order_id | 1 | passthrough |" in md.stdout
    missing = invoke("trace", "orders.nope", "--project", name, env=env)
    assert missing.exit_code == 1 and "no column 'orders.nope'" in missing.stderr
