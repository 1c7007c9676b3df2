"""Column names whose case matters, stored in a real Neo4j: in Postgres, quoted ``"ID"`` and
``id`` are two columns, two Column nodes, each with its own lineage and its own answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.cli.app import app
from catalog.errors import NotFound

from edits import edit_manifest, edit_sql

pytestmark = pytest.mark.neo4j
runner = CliRunner()
ORDERS = "model.coffee_shop.orders"
DAILY = "model.coffee_shop.customer_orders_daily"


def _postgres_with_both(target: Path) -> None:
    """The example as a Postgres project whose orders model gives "ID" (the order id) and id
    (the amount paid), as two columns of catalog.json, and a model that reads each."""
    edit_manifest(target, lambda m: m["metadata"].update(adapter_type="postgres"))
    edit_sql(target, ORDERS, "    amount_paid,\n    case", '    amount_paid,\n    order_id as "ID",\n    amount_paid as "id",\n    case')
    edit_sql(
        target,
        DAILY,
        "    max(ordered_at) as last_ordered_at\n",
        '    max(ordered_at) as last_ordered_at,\n    max("ID") as max_upper_id,\n    max(id) as max_lower_id\n',
    )
    path = target / "catalog.json"
    catalog = json.loads(path.read_text())
    columns = catalog["nodes"][ORDERS]["columns"]
    for name in ("ID", "id"):  # Postgres reports a quoted name as it is stored
        columns[name] = {"type": "integer", "index": len(columns) + 1, "name": name, "comment": None}
    path.write_text(json.dumps(catalog))


def _down(answer) -> dict[tuple[str, str], tuple[str, ...]]:
    return {(r.column.model, r.column.name): tuple(h.type for h in r.hops) for r in answer.columns}


def test_quoted_upper_and_lower_names_are_two_columns(build, ask, graph, project_name, example_copy):
    _postgres_with_both(example_copy)
    summary = build(example_copy, project_name)
    assert summary.status == "active"
    catalog = ask(project_name)
    columns = {c.key: c.name for c in catalog.columns() if c.unique_id == ORDERS}
    assert columns[f'{project_name}/{ORDERS}."ID"'] == '"ID"'
    assert columns[f"{project_name}/{ORDERS}.id"] == "id"
    upper, lower = catalog.resolve('orders."ID"'), catalog.resolve("orders.id")
    assert (upper.name, lower.name) == ('"ID"', "id")
    # unquoted names fold to lower case, as Postgres reads them; "id" quoted is id
    assert catalog.resolve("orders.ID") == lower == catalog.resolve('orders."id"') == catalog.resolve("ORDERS.Id")
    assert catalog.resolve(f'{ORDERS}."ID"') == upper

    # orders."ID" = order_id <- stg_orders.order_id; orders.id = amount_paid = coalesce(sum(amount), 0)
    assert _down(catalog.impact(['orders."ID"'])) == {("customer_orders_daily", "max_upper_id"): ("derived",)}
    assert _down(catalog.impact(["orders.id"])) == {("customer_orders_daily", "max_lower_id"): ("derived",)}
    up_upper = _down(catalog.trace(["customer_orders_daily.max_upper_id"]))
    up_lower = _down(catalog.trace(["customer_orders_daily.max_lower_id"]))
    assert up_upper == {
        ("orders", '"ID"'): ("derived",),
        ("stg_orders", "order_id"): ("renamed", "derived"),
        ("shop.orders", "id"): ("renamed", "renamed", "derived"),
    }
    assert up_lower == {
        ("orders", "id"): ("derived",),
        ("stg_payments", "amount"): ("derived", "derived"),
        ("shop.payments", "amount_cents"): ("derived", "derived", "derived"),
    }
    assert ("orders", '"ID"') in _down(catalog.impact(["stg_orders.order_id"]))
    assert ("orders", '"ID"') not in _down(catalog.impact(["stg_payments.amount"]))

    # both are Column nodes of their own, with the warehouse's spelling beside the name
    rows = graph.read("read/list_column_properties", project=project_name, build_id=None)
    props = {r["name"]: r["display_name"] for r in rows if r["unique_id"] == ORDERS and r["name"] in ('"ID"', "id")}
    assert props == {'"ID"': "ID", "id": "id"}

    with pytest.raises(NotFound) as err:  # a name that only differs by case from "ID" is not it
        catalog.resolve('orders."Id"')
    assert 'orders."ID"' in str(err.value)
    suggested = str(err.value).split("did you mean ")[1].split(",")[0].rstrip("?")
    assert catalog.resolve(suggested) == upper


def test_cli_impact_of_a_quoted_name(build, project_name, example_copy, neo4j_env):
    _postgres_with_both(example_copy)
    build(example_copy, project_name)

    def impact(name: str) -> list[str]:
        result = runner.invoke(app, ["impact", name, "--project", project_name, "--json"], env=neo4j_env)
        assert result.exit_code == 0, result.output
        return sorted(c["column"] for c in json.loads(result.stdout)["columns"])

    assert impact('orders."ID"') == [f"{DAILY}.max_upper_id"]
    assert impact("orders.id") == [f"{DAILY}.max_lower_id"]
    result = runner.invoke(app, ["impact", 'orders."Id"', "--project", project_name], env=neo4j_env)
    assert result.exit_code == 1
    assert result.output.startswith("Error: no column 'orders.\"Id\"'")
    assert 'orders."ID"' in result.output
