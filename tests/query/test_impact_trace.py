"""Exact impact and root-cause answers from a real Neo4j, checked against the SQL by reading it."""

from __future__ import annotations

import pytest

from catalog.errors import NotFound

pytestmark = pytest.mark.neo4j


def _answer(answer):
    return {(r.column.model, r.column.name): (r.depth, r.effect, tuple(h.type for h in r.hops)) for r in answer.columns}


def test_example_impact_of_order_id(build, ask, project_name, example):
    summary = build(example, project_name)
    assert summary.status == "active"
    answer = ask(project_name).impact(["stg_orders.order_id"])
    # orders: `orders.order_id` passes it through; order_events: a union branch passes it through;
    # customers: first_value(order_id) over (...); customer_orders_daily: count(distinct order_id);
    # customer_segments: select * from customers.
    assert _answer(answer) == {
        ("orders", "order_id"): (1, "passthrough", ("passthrough",)),
        ("order_events", "order_id"): (1, "passthrough", ("passthrough",)),
        ("customers", "first_order_id"): (2, "needs review", ("passthrough", "derived")),
        ("customer_orders_daily", "order_count"): (2, "needs review", ("passthrough", "derived")),
        ("customer_segments", "first_order_id"): (3, "needs review", ("passthrough", "derived", "passthrough")),
    }


def test_example_root_cause_of_lifetime_value(build, ask, project_name, example):
    build(example, project_name)
    answer = ask(project_name).trace(["CUSTOMERS.Lifetime_Value"])  # names are case-insensitive
    # customers: coalesce(customer_orders.lifetime_value, 0), where lifetime_value = sum(orders.amount_paid);
    # orders.amount_paid <- stg_payments.amount <- cast(amount_cents as decimal(10,2)) / 100 of the payments source.
    got = {(r.column.model, r.column.name): (r.depth, r.resource_type) for r in answer.columns}
    assert got == {
        ("orders", "amount_paid"): (1, "model"),
        ("stg_payments", "amount"): (2, "model"),
        ("shop.payments", "amount_cents"): (3, "source"),
    }
    deepest = next(r for r in answer.columns if r.depth == 3)
    assert [h.type for h in deepest.hops] == ["derived", "derived", "derived"]
    assert "amount_cents" in (deepest.hops[0].expr or "")


def test_example_python_model_through_its_declared_lineage(build, ask, project_name, example):
    """customer_scores is a Python model: no SQL, its lineage is what _marts.yml declares
    (value_per_order <- customers.lifetime_value and customers.order_count, is_loyal <-
    customers.order_count), stored as `declared` edges that impact and trace walk."""
    build(example, project_name)
    catalog = ask(project_name)
    # customer_segments: `select *` passes order_count through; its `case` reads it for segment.
    assert _answer(catalog.impact(["customers.order_count"])) == {
        ("customer_scores", "is_loyal"): (1, "needs review", ("declared",)),
        ("customer_scores", "value_per_order"): (1, "needs review", ("declared",)),
        ("customer_segments", "order_count"): (1, "passthrough", ("passthrough",)),
        ("customer_segments", "segment"): (1, "needs review", ("derived",)),
    }
    trace = catalog.trace(["customer_scores.value_per_order"])
    # customers.order_count is coalesce(count(*), 0): no column upstream of it. lifetime_value is
    # coalesce(sum(orders.amount_paid), 0), then as in test_example_root_cause_of_lifetime_value.
    # (hops in data-flow order: the declared edge is the last)
    got = {(r.column.model, r.column.name): (r.depth, r.resource_type, tuple(h.type for h in r.hops)) for r in trace.columns}
    assert got == {
        ("customers", "lifetime_value"): (1, "model", ("declared",)),
        ("customers", "order_count"): (1, "model", ("declared",)),
        ("orders", "amount_paid"): (2, "model", ("derived", "declared")),
        ("stg_payments", "amount"): (3, "model", ("derived", "derived", "declared")),
        ("shop.payments", "amount_cents"): (4, "source", ("derived", "derived", "derived", "declared")),
    }
    # customer_id is declared too: a declared edge is not a passthrough, whatever the Python does
    assert _answer(catalog.impact(["customers.customer_id"], max_depth=1))[("customer_scores", "customer_id")] == (
        1, "needs review", ("declared",),
    )  # fmt: skip


def test_corpus_jaffle_shop_duckdb(build, ask, project_name, shared_dir):
    target = shared_dir / "corpus" / "jaffle_shop_duckdb" / "target"
    build(target, project_name)
    catalog = ask(project_name)
    impact = catalog.impact(["stg_payments.amount"])
    # orders: sum(case when payment_method = ... then amount else 0 end) x4 and sum(amount) as amount;
    # customers: sum(amount) as customer_lifetime_value.
    assert _answer(impact) == {
        ("customers", "customer_lifetime_value"): (1, "needs review", ("derived",)),
        ("orders", "amount"): (1, "needs review", ("derived",)),
        ("orders", "bank_transfer_amount"): (1, "needs review", ("derived",)),
        ("orders", "coupon_amount"): (1, "needs review", ("derived",)),
        ("orders", "credit_card_amount"): (1, "needs review", ("derived",)),
        ("orders", "gift_card_amount"): (1, "needs review", ("derived",)),
    }
    trace = catalog.trace(["customers.customer_lifetime_value"])
    got = {(r.column.model, r.column.name): (r.depth, r.resource_type) for r in trace.columns}
    # stg_payments: amount / 100 as amount, over the raw_payments seed.
    assert got == {("stg_payments", "amount"): (1, "model"), ("raw_payments", "amount"): (2, "seed")}


def test_column_reached_only_through_conditions(build, ask, project_name, shared_dir):
    build(shared_dir / "corpus" / "jaffle_shop_duckdb" / "target", project_name)
    answer = ask(project_name).impact(["stg_payments.order_id"], with_conditions=True)
    # order_payments groups payments by order_id and is joined on it; customer_payments joins
    # payments to orders on it. No output column carries its value.
    assert answer.columns == ()
    got = {(c.model, c.clause) for c in answer.conditions}
    assert got == {("orders", "group_by"), ("orders", "join"), ("customers", "join")}


def test_depth_limit(build, ask, project_name, example):
    build(example, project_name)
    answer = ask(project_name).impact(["stg_orders.order_id"], max_depth=1)
    assert {(r.column.model, r.column.name) for r in answer.columns} == {("orders", "order_id"), ("order_events", "order_id")}


def test_unknown_column_suggests_closest(build, ask, project_name, example):
    build(example, project_name)
    with pytest.raises(NotFound) as err:
        ask(project_name).impact(["stg_order.order_id"])
    assert "did you mean" in str(err.value) and "stg_orders.order_id" in str(err.value)


def test_source_column_by_source_name_and_unique_id(build, ask, project_name, example):
    build(example, project_name)
    catalog = ask(project_name)
    by_name = catalog.resolve("shop.payments.amount_cents")
    by_id = catalog.resolve("source.coffee_shop.shop.payments.AMOUNT_CENTS")
    assert by_name == by_id
    assert by_name.unique_id == "source.coffee_shop.shop.payments"


def test_a_column_named_with_a_dot(build, ask, project_name, example_copy):
    """``"a.b"`` is a column of its own: asked for quoted, unquoted or by unique id; a typo
    gets it suggested in a form that works when pasted back."""
    from edits import edit_sql

    edit_sql(example_copy, "model.coffee_shop.orders", "    amount_paid,\n    case", '    amount_paid,\n    amount_paid as "a.b",\n    case')
    build(example_copy, project_name)
    catalog = ask(project_name)
    asked = catalog.resolve('orders."a.b"')
    assert (asked.model, asked.name) == ("orders", "a.b")
    assert catalog.resolve("orders.a.b") == asked == catalog.resolve("model.coffee_shop.orders.a.b")
    assert catalog.resolve('model.coffee_shop.orders."a.b"') == asked
    assert catalog.resolve("orders.amount_paid").name == "amount_paid"  # plain names are unchanged
    down = {(r.column.model, r.column.name) for r in catalog.impact(["stg_payments.amount"]).columns}
    assert ("orders", "a.b") in down
    up = {(r.column.model, r.column.name) for r in catalog.trace(['orders."a.b"']).columns}
    assert ("stg_payments", "amount") in up
    with pytest.raises(NotFound) as err:
        catalog.resolve('orders."a.c"')
    assert 'did you mean orders."a.b"' in str(err.value)
    suggested = str(err.value).split("did you mean ")[1].split(",")[0].rstrip("?")
    assert catalog.resolve(suggested) == asked


def test_a_long_expression_is_kept_whole_and_shown_cut(build, project_name, example_copy, neo4j_env):
    """A generated expression of 60,000 characters: the graph and --json keep it whole, the
    trace table shows its start and its length."""
    import json

    from typer.testing import CliRunner

    from catalog.cli.app import app
    from edits import edit_sql

    tail = " || ".join(f"'part_{i:05d}'" for i in range(4_000))
    old = "coalesce(lower(trim(status)), 'unknown') as status"
    new_expr = f"coalesce(lower(trim(status)), {tail})"
    edit_sql(example_copy, "model.coffee_shop.stg_orders", old, f"{new_expr} as status")
    build(example_copy, project_name)
    runner = CliRunner()
    as_json = runner.invoke(app, ["trace", "orders.status", "--project", project_name, "--json"], env=neo4j_env)
    assert as_json.exit_code == 0, as_json.output
    (expr,) = {h["expr"] for c in json.loads(as_json.stdout)["columns"] for h in c["path"] if h["from"].endswith("source.coffee_shop.shop.orders.status")}
    assert len(expr) == len(new_expr) > 60_000 and expr.endswith("'part_03999')")
    table = runner.invoke(app, ["trace", "orders.status", "--project", project_name], env={**neo4j_env, "COLUMNS": "400"})
    assert table.exit_code == 0, table.output
    assert f"… ({len(expr):,} characters)" in table.stdout
    assert "part_03999" not in table.stdout and len(table.stdout) < 5_000
