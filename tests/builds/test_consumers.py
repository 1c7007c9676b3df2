"""Semantic models, metrics, exposures and saved queries in Neo4j: versioned, reached by
`catalog impact` and traced back by `catalog trace metric:NAME`.

The example's semantic model orders reads orders (measure amount_paid = sum(amount_paid));
the metric revenue reads that measure; the exposure sales_dashboard reads orders and revenue.
orders.amount_paid is coalesce(sum(stg_payments.amount), 0) and stg_payments.amount comes from
the source column payments.amount_cents.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.errors import NotFound
from edits import edit_measure_expr
from test_prune import neo4j_env

pytestmark = pytest.mark.neo4j

REVENUE = "metric.coffee_shop.revenue"
FINANCE = Path(__file__).resolve().parents[2] / "examples" / "mesh" / "finance" / "target"
DASHBOARD = "exposure.coffee_shop.sales_dashboard"


def test_impact_reaches_metrics_and_exposures(build, project_name, example, ask):
    build(example, project_name)
    answer = ask(project_name).impact(["stg_payments.amount"])
    assert [(c.kind, c.name, c.depth) for c in answer.consumers] == [
        ("exposure", "sales_dashboard", 2),
        ("metric", "revenue", 3),
        ("semantic_model", "orders.amount_paid", 2),
    ]
    metric = answer.consumers[1]
    assert [(h.type, h.to_key.split("/", 1)[1]) for h in metric.hops] == [
        ("derived", "model.coffee_shop.orders.amount_paid"),
        ("passthrough", "semantic_model.coffee_shop.orders.amount_paid"),
        ("measure", REVENUE),
    ]
    # model-level answers stay about models: the columns are model columns only
    assert all(r.column.unique_id.startswith(("model.", "snapshot.")) for r in answer.columns)


def test_trace_a_metric_back_to_sources(build, project_name, example, ask):
    build_id = build(example, project_name).build_id
    answer = ask(project_name).trace(["metric:revenue"])
    assert [c.label for c in answer.asked] == ["metric.revenue"]
    labels = {r.column.label: r.depth for r in answer.columns}
    assert labels["semantic_model:orders.amount_paid"] == 1
    assert labels["orders.amount_paid"] == 2
    assert labels["stg_payments.amount"] == 3
    assert labels["shop.payments.amount_cents"] == 4
    with pytest.raises(NotFound) as err:
        ask(project_name).trace(["metric:nope"])
    assert str(err.value) == f"no metric 'nope' in project {project_name!r} (build {build_id})"


def test_consumers_are_versioned(build, project_name, example_copy, ask):
    first = build(example_copy, project_name)
    edit_measure_expr(example_copy, "semantic_model.coffee_shop.orders", "amount_paid", "amount_paid - credit_card_amount")
    second = build(example_copy, project_name)
    old = ask(project_name, first.build_id).impact(["orders.credit_card_amount"])
    new = ask(project_name, second.build_id).impact(["orders.credit_card_amount"])
    assert [c.name for c in old.consumers] == ["sales_dashboard"]  # the exposure reads every column of orders
    assert [c.name for c in new.consumers] == ["sales_dashboard", "revenue", "orders.amount_paid"]
    # an unchanged rebuild keeps every consumer relationship
    third = build(example_copy, project_name)
    assert [c.name for c in ask(project_name, third.build_id).impact(["orders.credit_card_amount"]).consumers] == [
        "sales_dashboard", "revenue", "orders.amount_paid"
    ]  # fmt: skip


@pytest.mark.corpus
def test_jaffle_shop_metrics_in_impact_and_trace(build, project_name, shared_dir, neo4j_settings):
    build(shared_dir / "corpus" / "jaffle-shop" / "target", project_name)
    runner = CliRunner()
    env = neo4j_env(neo4j_settings)
    done = runner.invoke(app, ["impact", "stg_orders.order_total", "--project", project_name, "--json"], env=env)
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert [(c["kind"], c["name"]) for c in data["consumers"]] == [
        ("metric", "order_total"),
        ("saved_query", "order_metrics"),
        ("semantic_model", "customers.lifetime_spend"),
        ("semantic_model", "orders.order_total"),
        ("semantic_model", "orders.order_total_dim"),
    ]
    done = runner.invoke(app, ["trace", "metric:order_total", "--project", project_name, "--json"], env=env)
    assert done.exit_code == 0, done.output
    columns = {c["column"] for c in json.loads(done.stdout)["columns"]}
    assert "source.jaffle_shop.ecom.raw_orders.order_total" in columns
    done = runner.invoke(app, ["impact", "stg_orders.order_total", "--project", project_name, "--format", "md"], env=env)
    assert "Metrics, exposures and saved queries hit:" in done.stdout


def test_impact_says_the_precision_of_each_exposure(build, project_name, neo4j_settings):
    """examples/mesh/finance (built alone): customer_dashboard lists customer_revenue's email and
    revenue; board_report reads every column of revenue_by_country, which sums customer_revenue.revenue."""
    build(FINANCE, project_name)
    runner = CliRunner()
    env = neo4j_env(neo4j_settings)

    def consumers(column: str) -> list[tuple]:
        done = runner.invoke(app, ["impact", column, "--project", project_name, "--json"], env=env)
        assert done.exit_code == 0, done.output
        return [(c["kind"], c["name"], c["depth"], c.get("precision")) for c in json.loads(done.stdout)["consumers"]]

    assert consumers("customer_revenue.revenue") == [("exposure", "board_report", 2, "model"), ("exposure", "customer_dashboard", 1, "column")]
    assert consumers("customer_revenue.order_count") == []
    assert consumers("customer_revenue.customer_name") == []
    done = runner.invoke(app, ["impact", "customer_revenue.revenue", "--project", project_name], env=env)
    assert "customer_dashboard" in done.stdout and "column" in done.stdout
