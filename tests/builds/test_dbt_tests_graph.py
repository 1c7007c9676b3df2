"""dbt tests as facts of a build: ``(:Test)-[:TESTS]->(:Column)``, versioned like the rest of
the graph. A later build that removes a test and adds another leaves every read of the earlier
build as it was (the whole view, as test_build_views compares it, and the report); the report's
test coverage and ``catalog check PATH`` against the stored build read them.

examples/coffee_shop tests 7 columns (models/marts/_marts.yml, models/staging/_staging.yml,
seeds/_seeds.yml: unique and not_null on the keys): orders.order_id, customers.customer_id,
stg_customers.customer_id, stg_orders.order_id, stg_order_items.order_item_id,
stg_products.product_id, country_codes.country_code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.query import BuildView
from catalog.report.governance import collect_report
from catalog.report.governance_render import report_dict, report_markdown
from catalog.report.governance_html import report_html
from edits import edit_manifest, edit_sql
from test_build_views import view
from test_check import EXAMPLE, STG_ORDERS
from test_prune import neo4j_env

pytestmark = pytest.mark.neo4j

TESTED = {
    "model.coffee_shop.orders.order_id": ["not_null_orders_order_id", "unique_orders_order_id"],
    "model.coffee_shop.customers.customer_id": ["not_null_customers_customer_id", "unique_customers_customer_id"],
    "model.coffee_shop.stg_customers.customer_id": ["not_null_stg_customers_customer_id", "unique_stg_customers_customer_id"],
    "model.coffee_shop.stg_orders.order_id": ["not_null_stg_orders_order_id", "unique_stg_orders_order_id"],
    "model.coffee_shop.stg_order_items.order_item_id": ["unique_stg_order_items_order_item_id"],
    "model.coffee_shop.stg_products.product_id": ["not_null_stg_products_product_id", "unique_stg_products_product_id"],
    "seed.coffee_shop.country_codes.country_code": ["unique_country_codes_country_code"],
}


def build_tests(graph, project: str, build_id: int | None) -> dict[str, list[str]]:
    """Test name -> the columns it reads in that build (keys without the project)."""
    rows = graph.read("read/list_build_tests", project=project, build_id=build_id)
    return {r["name"]: [k.split("/", 1)[1] for k in r["columns"]] for r in rows}


def swap_tests(target: Path) -> None:
    """Drop not_null of orders.order_id; add not_null of stg_orders.status (as YAML would)."""

    def change(manifest) -> None:
        nodes = manifest["nodes"]
        dropped = next(k for k, n in nodes.items() if n["name"] == "not_null_orders_order_id")
        template = nodes.pop(dropped)
        added = json.loads(json.dumps(template))
        added.update(unique_id="test.coffee_shop.not_null_stg_orders_status.0a1b2c3d4e", name="not_null_stg_orders_status",
                     column_name="status", attached_node=STG_ORDERS)  # fmt: skip
        added["depends_on"]["nodes"] = [STG_ORDERS]
        added["test_metadata"]["kwargs"] = {"column_name": "status", "model": "{{ get_where_subquery(ref('stg_orders')) }}"}
        nodes[added["unique_id"]] = added

    edit_manifest(target, change)


def test_a_later_build_that_changes_tests_leaves_the_earlier_view(build, project_name, example_copy, graph):
    first = build(example_copy, project_name)
    before = view(graph, project_name, first.build_id)
    assert "read/list_build_tests" in before and before["read/list_build_tests"]
    report_before = report_dict(collect_report(BuildView(graph, project_name, first.build_id)))
    expected = {}
    for key, names in TESTED.items():
        for name in names:
            expected[name] = [key]
    assert build_tests(graph, project_name, first.build_id) == expected

    swap_tests(example_copy)
    second = build(example_copy, project_name)
    assert second.edges.written == second.edges.closed == 0  # tests only: no lineage change
    assert view(graph, project_name, first.build_id) == before
    report_after = report_dict(collect_report(BuildView(graph, project_name, first.build_id)))
    report_before["build"].pop("status"), report_after["build"].pop("status")  # active, then superseded
    assert report_after == report_before

    now = build_tests(graph, project_name, None)
    assert "not_null_orders_order_id" not in now and now["not_null_stg_orders_status"] == ["model.coffee_shop.stg_orders.status"]
    assert {k: v for k, v in now.items() if k != "not_null_stg_orders_status"} == {k: v for k, v in expected.items() if k != "not_null_orders_order_id"}

    # the same artifacts again: a no-change build, the same view
    third = build(example_copy, project_name)
    assert third.relationships_written == third.relationships_closed == 0
    assert view(graph, project_name, third.build_id) == view(graph, project_name, second.build_id)


def test_report_gives_coverage_by_model_and_the_untested_columns_that_matter(build, project_name, graph):
    first = build(EXAMPLE, project_name)
    catalog = BuildView(graph, project_name, first.build_id)
    report = collect_report(catalog)
    t = report.tests
    assert (t.tests, t.by_kind, t.tested) == (12, {"generic": 12, "singular": 0, "unit": 0}, len(TESTED))
    columns = {r["unique_id"]: r for r in graph.read("read/list_column_properties", project=project_name, build_id=first.build_id)}
    per_model = {m.name: (m.columns, m.tested) for m in t.models}
    catalog_json = json.loads((EXAMPLE / "catalog.json").read_text())
    assert per_model["orders"] == (len(catalog_json["nodes"]["model.coffee_shop.orders"]["columns"]), 1)
    assert per_model["stg_payments"][1] == 0 and per_model["country_codes"] == (3, 1)
    assert t.columns == sum(n for n, _ in per_model.values()) and columns

    untested = {u.column.label: u for u in t.untested}
    assert not set(untested) & {"orders.order_id", "stg_orders.order_id"}  # tested
    # orders.amount_paid: the measure amount_paid of the semantic model orders, the metric revenue
    # over it, the exposure sales_dashboard (it reads orders and revenue); orders is public
    paid = untested["orders.amount_paid"]
    assert paid.consumers == ("exposure:sales_dashboard", "metric:revenue", "semantic_model:orders.amount_paid")
    impact = catalog.impact(["orders.amount_paid"])
    assert paid.downstream_columns == len({h.column.key for h in impact.columns}) > 0
    assert "orders" in paid.protected_models
    # every untested column listed feeds something that matters; none is listed twice
    assert all(u.consumers or u.protected_models for u in t.untested) and len(untested) == len(t.untested)
    md, html = report_markdown(report), report_html(report)
    assert "## Test coverage" in md and "| `orders.amount_paid` |" in md
    assert 'id="tests"' in html and "orders.amount_paid" in html


def test_check_against_the_stored_build_reads_its_tests(build, project_name, neo4j_settings, tmp_path):
    build(EXAMPLE, project_name)
    target = tmp_path / "target"
    shutil.copytree(EXAMPLE, target)
    edit_sql(target, STG_ORDERS, "id as order_id", "id + 0 as order_id")
    runner = CliRunner()
    args = [str(target), "--json", "--fail-on", "never"]
    state = runner.invoke(app, ["check", "--state", str(EXAMPLE), *args])
    stored = runner.invoke(app, ["check", "--project", project_name, *args], env=neo4j_env(neo4j_settings))
    assert state.exit_code == stored.exit_code == 0, stored.output
    a, b = json.loads(state.stdout), json.loads(stored.stdout)
    assert [t["name"] for t in b["tests"]] == TESTED["model.coffee_shop.stg_orders.order_id"]
    assert (a["tests"], a["selector"]) == (b["tests"], b["selector"])
