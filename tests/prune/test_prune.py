"""Pruning on the bundled example: exact model sets and reasons, from Neo4j and from artifacts.

Expected sets come from reading examples/coffee_shop/target/compiled (see each comment):
- stg_payments.payment_method feeds only orders' three per-method sums (case inside sum) and
  order_events.event_type ('payment_' || payment_method); nothing reads those further.
- stg_orders.status passes into orders.status (and orders.payment_status); customers keeps
  `where status <> 'cancelled'` on orders: condition lineage only, no customers column
  carries status. customer_segments is `select *, ... from customers`.
- stg_products.product_id is used only in int_order_items_priced's join (the item's own
  product_id is output): every model after it is reached through conditions alone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from catalog.analyze.project import analyze_project
from catalog.cli.app import app
from catalog.errors import NotFound
from catalog.extract import load_project
from catalog.compare import analyze_states
from catalog.prune import prune_artifacts, prune_graph, prune_state
from edits import edit_sql

neo4j = pytest.mark.neo4j

ORDERS = "model.coffee_shop.orders"
CUSTOMERS = "model.coffee_shop.customers"
STG_PAYMENTS = "model.coffee_shop.stg_payments"
STG_ORDERS = "model.coffee_shop.stg_orders"
CUSTOMER_COLUMNS = (
    "country_code", "country_name", "customer_id", "email", "first_order_id", "first_ordered_at", "full_name",
    "last_ordered_at", "lifetime_value", "order_count", "rank_in_country", "signup_date",
)  # fmt: skip



def reasons(plan) -> dict[str, tuple[str, int]]:
    return {m.name: (m.lineage, m.depth) for m in plan.models}


def hops(model) -> list[tuple[str, str, str, str | None]]:
    return [(h.kind, h.from_key, h.to_key, h.clause or h.type) for h in model.path]


def by_name(plan, name: str):
    return next(m for m in plan.models if m.name == name)


def analyzed(path: Path):
    project = load_project(path)
    return project, analyze_project(project, jobs=1)


def states(old_path: Path, new_path: Path):
    """Both versions analyzed as ``prune --state`` does it: definitions of changed models from
    the analysis's own parse."""
    old, new = load_project(old_path), load_project(new_path)
    old_lineages, new_lineages = analyze_states(old, new, jobs=1)
    return old, old_lineages, new, new_lineages


def neo4j_env(settings) -> dict[str, str]:
    return {
        "NEO4J_URI": settings.uri,
        "NEO4J_USER": settings.user,
        "NEO4J_PASSWORD": settings.password.get_secret_value(),
        "NEO4J_DATABASE": settings.database,
    }


# ---------------------------------------------------------------------------- --changed, from Neo4j
@neo4j
def test_a_column_feeding_leaves_does_not_drag_children(build, ask, project_name, example):
    build(example, project_name)
    plan = prune_graph(ask(project_name), ["stg_payments.payment_method"])
    assert reasons(plan) == {"stg_payments": ("changed", 0), "orders": ("value", 1), "order_events": ("value", 1)}
    assert by_name(plan, "orders").columns == ("bank_transfer_amount", "credit_card_amount", "gift_card_amount")
    assert hops(by_name(plan, "order_events")) == [
        ("feeds", f"{STG_PAYMENTS}.payment_method", "model.coffee_shop.order_events.event_type", "derived")
    ]
    # customers, customer_orders_daily, customer_segments depend on orders but read none of those columns
    assert plan.selector() == "order_events orders stg_payments"
    assert plan.changed_columns == (f"{STG_PAYMENTS}.payment_method",)


@neo4j
def test_a_model_reached_only_through_a_where_clause(build, ask, project_name, example):
    build(example, project_name)
    plan = prune_graph(ask(project_name), ["stg_orders.status"])
    assert reasons(plan) == {
        "stg_orders": ("changed", 0),
        "orders": ("value", 1),  # orders.status, orders.payment_status
        "customers": ("condition", 2),  # valid_orders: where status <> 'cancelled'
        "customer_segments": ("condition", 4),  # customers' rows change, so every column it reads does
        "customer_scores": ("condition", 4),  # as customer_segments: its declared lineage reads customers
    }
    customers = by_name(plan, "customers")
    assert hops(customers) == [
        ("feeds", f"{STG_ORDERS}.status", f"{ORDERS}.status", "passthrough"),
        ("conditions", f"{ORDERS}.status", CUSTOMERS, "where"),
    ]
    assert customers.via == f"{STG_ORDERS}.status" and customers.reached == CUSTOMERS
    assert customers.columns == CUSTOMER_COLUMNS
    assert by_name(plan, "orders").columns == ("payment_status", "status")
    assert [h.kind for h in by_name(plan, "customer_segments").path] == ["feeds", "conditions", "has", "feeds"]
    # neither customer_orders_daily nor order_events reads status
    assert plan.selector() == "customer_scores customer_segments customers orders stg_orders"


@neo4j
def test_a_join_key_whose_value_goes_nowhere(build, ask, project_name, example):
    build(example, project_name)
    plan = prune_graph(ask(project_name), ["stg_products.product_id"])
    assert reasons(plan) == {
        "stg_products": ("changed", 0),
        "int_order_items_priced": ("condition", 1),  # join ... on items.product_id = products.product_id
        "orders": ("condition", 3),  # int rows -> int.order_id -> join / group by in orders
        "product_sales": ("condition", 3),  # int rows -> group by product_id, ...
        "customers": ("condition", 5),
        "customer_orders_daily": ("condition", 5),
        "customer_segments": ("condition", 6),
        "customer_scores": ("condition", 6),
    }
    assert hops(by_name(plan, "int_order_items_priced")) == [
        ("conditions", "model.coffee_shop.stg_products.product_id", "model.coffee_shop.int_order_items_priced", "join")
    ]
    assert [h.kind for h in by_name(plan, "orders").path] == ["conditions", "has", "conditions"]
    # the ephemeral model is inlined, not built: reported, not selected
    assert not by_name(plan, "int_order_items_priced").selectable
    assert plan.selector() == "customer_orders_daily customer_scores customer_segments customers orders product_sales stg_products"


@neo4j
def test_a_source_column_used_only_in_a_filter(build, ask, project_name, example):
    build(example, project_name)
    plan = prune_graph(ask(project_name), ["shop.payments.status"])  # stg_payments: where status = 'success'
    assert reasons(plan) == {
        "shop.payments": ("changed", 0),
        "stg_payments": ("condition", 1),
        "orders": ("condition", 3),  # join and group by stg_payments.order_id
        "order_events": ("condition", 3),  # join on payments.order_id
        "customers": ("condition", 4),
        "customer_orders_daily": ("condition", 4),
        "customer_segments": ("condition", 5),
        "customer_scores": ("condition", 5),
    }
    assert plan.selector() == "customer_orders_daily customer_scores customer_segments customers order_events orders stg_payments"


@neo4j
def test_graph_and_in_memory_closures_agree(build, ask, project_name, example):
    build(example, project_name)
    catalog = ask(project_name)
    project, lineages = analyzed(example)
    for names in (
        ["stg_orders.order_id"],
        ["stg_customers.country_code", "country_codes.country_code"],
        ["orders.amount_paid", "stg_products.price"],
        ["customer_orders_daily.order_date"],  # conditions its own model (the incremental filter)
    ):
        graph_plan = prune_graph(catalog, names)
        memory_plan = prune_artifacts(project, lineages, names)

        def key(plan):
            return {
                m.unique_id: (m.lineage, m.via, m.reached, m.depth, m.columns, m.selectable, m.path[0].from_key if m.path else None)
                for m in plan.models
            }

        assert key(graph_plan) == key(memory_plan), names
        assert graph_plan.selector() == memory_plan.selector()


@neo4j
def test_pruning_as_of_an_older_build(build, ask, project_name, example_copy):
    first = build(example_copy, project_name)
    edit_sql(example_copy, CUSTOMERS, "    where status <> 'cancelled'\n", "")
    second = build(example_copy, project_name)
    assert second.build_id > first.build_id
    now = prune_graph(ask(project_name), ["stg_orders.status"])
    assert set(reasons(now)) == {"stg_orders", "orders"}
    before = prune_graph(ask(project_name, first.build_id), ["stg_orders.status"])
    assert set(reasons(before)) == {"stg_orders", "orders", "customers", "customer_segments", "customer_scores"}


@neo4j
def test_unknown_column_is_not_found(build, ask, project_name, example):
    build(example, project_name)
    with pytest.raises(NotFound, match="did you mean stg_orders.status"):
        prune_graph(ask(project_name), ["stg_orders.statuss"])


@neo4j
def test_cli_prints_a_selector_and_json_reasons(build, project_name, example, neo4j_settings):
    build(example, project_name)
    runner = CliRunner()
    env = neo4j_env(neo4j_settings)
    done = runner.invoke(app, ["prune", "--changed", "stg_orders.status", "--project", project_name], env=env)
    assert done.exit_code == 0, done.output
    assert done.stdout == "customer_scores customer_segments customers orders stg_orders\n"

    done = runner.invoke(app, ["prune", "-c", "stg_orders.status,stg_payments.payment_method", "--project", project_name, "--json"], env=env)
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["selector"] == "customer_scores customer_segments customers order_events orders stg_orders stg_payments"
    assert doc["build_id"] is not None and doc["origin"] == "graph"
    customers = next(m for m in doc["models"] if m["name"] == "customers")
    assert customers["lineage"] == "condition" and customers["via"] == f"{STG_ORDERS}.status"
    assert customers["path"][-1] == {"kind": "conditions", "from": f"{ORDERS}.status", "to": CUSTOMERS, "clause": "where"}

    done = runner.invoke(app, ["prune", "-c", "orders.nope", "--project", project_name], env=env)
    assert done.exit_code == 1
    assert "Error:" in done.stderr and "orders.nope" in done.stderr


def test_cli_usage_errors():
    runner = CliRunner()
    assert runner.invoke(app, ["prune"]).exit_code == 2
    assert runner.invoke(app, ["prune", "--state", "somewhere"]).exit_code == 2  # no current PATH
    assert runner.invoke(app, ["prune", "-c", "a.b", "x", "--build", "3"]).exit_code == 2


def test_changed_on_artifacts_needs_no_graph(example):
    project, lineages = analyzed(example)
    plan = prune_artifacts(project, lineages, ["STG_PAYMENTS.Payment_Method"])
    assert plan.origin == "artifacts" and plan.build_id is None
    assert reasons(plan) == {"stg_payments": ("changed", 0), "orders": ("value", 1), "order_events": ("value", 1)}


# ---------------------------------------------------------------------------- --state
def test_state_sql_changed_but_columns_identical_changes_nothing(example, example_copy):
    # orders: a CTE renamed, a comment, other spacing and keyword case: same columns, same rows
    edit_sql(example_copy, ORDERS, "order_payments", "payments_by_order")
    edit_sql(example_copy, ORDERS, "    select * from", "    -- every column\n    SELECT  *  FROM")
    plan = prune_state(*states(example, example_copy))
    assert plan.models == ()
    assert plan.selector() == ""
    assert plan.unaffected_models == (ORDERS,)


def test_state_parses_every_model_once_and_fingerprints_only_changed_ones(example, example_copy, monkeypatch):
    import sqlglot

    edit_sql(example_copy, STG_PAYMENTS, "lower(payment_method)", "upper(payment_method)")
    parsed: list[str] = []
    real_parse = sqlglot.parse

    def counting_parse(sql, *args, **kwargs):
        parsed.append(sql)
        return real_parse(sql, *args, **kwargs)

    monkeypatch.setattr(sqlglot, "parse", counting_parse)
    old, old_lineages, new, new_lineages = states(example, example_copy)
    with_sql = [n.sql for n in old.models() if n.sql and n.language == "sql"]  # Python is not parsed
    # the base: one parse per model, no second one; the change: the edited model alone (catalog.json
    # lists its columns: what its children read is unchanged)
    assert sorted(parsed) == sorted([*with_sql, new.nodes[STG_PAYMENTS].sql])
    for lineages in (old_lineages, new_lineages):
        assert {uid for uid, m in lineages.items() if m.definitions is not None} == {STG_PAYMENTS}
    assert old_lineages[STG_PAYMENTS].definitions.columns["payment_method"] != new_lineages[STG_PAYMENTS].definitions.columns["payment_method"]
    assert old_lineages[STG_PAYMENTS].definitions.columns["amount"] == new_lineages[STG_PAYMENTS].definitions.columns["amount"]
    plan = prune_state(old, old_lineages, new, new_lineages)
    assert STG_PAYMENTS in {m.unique_id for m in plan.models}


def test_state_one_changed_column_includes_only_what_it_reaches(example, example_copy):
    edit_sql(example_copy, ORDERS, "order_payments", "payments_by_order")  # no effect, as above
    edit_sql(example_copy, STG_PAYMENTS, "lower(payment_method)", "upper(payment_method)")
    plan = prune_state(*states(example, example_copy))
    assert reasons(plan) == {"stg_payments": ("changed", 0), "orders": ("value", 1), "order_events": ("value", 1)}
    changes = by_name(plan, "stg_payments").changes
    assert [(c.column, c.change) for c in changes] == [("payment_method", "modified")]
    assert "UPPER(payment_method)" in changes[0].detail
    assert by_name(plan, "orders").columns == ("bank_transfer_amount", "credit_card_amount", "gift_card_amount")
    assert plan.selector() == "order_events orders stg_payments"
    assert plan.changed_columns == (f"{STG_PAYMENTS}.payment_method",)
    assert plan.unaffected_models == (ORDERS,)  # its own edit changed nothing; it is in for its input


def test_state_change_inside_a_cte_is_a_column_change(example, example_copy):
    # orders.amount_paid is coalesce(order_payments.total_paid, 0): its expression did not
    # change, the CTE's sum did; payment_status reads amount_paid
    edit_sql(example_copy, ORDERS, "sum(amount) as total_paid", "sum(amount) * 100 as total_paid")
    plan = prune_state(*states(example, example_copy))
    orders = by_name(plan, "orders")
    assert [(c.column, c.change) for c in orders.changes] == [("amount_paid", "modified"), ("payment_status", "modified")]
    assert reasons(plan) == {
        "orders": ("changed", 0),
        "customers": ("value", 1),  # lifetime_value = sum(amount_paid), also a window order key
        "customer_orders_daily": ("value", 1),  # sum(amount_paid)
        "customer_segments": ("value", 2),
        "customer_scores": ("value", 2),  # value_per_order is declared from lifetime_value
    }


def test_state_a_name_reads_the_relation_before_a_projection(example, example_copy, tmp_path):
    # stg_orders: `ordered_at::timestamp as ordered_at`, and `cast(ordered_at as date) as
    # order_date`, which reads raw_orders.ordered_at, not the projection beside it
    edit_sql(example_copy, STG_ORDERS, "ordered_at::timestamp as ordered_at", "ordered_at::timestamptz as ordered_at")
    plan = prune_state(*states(example, example_copy))
    assert [(c.column, c.change) for c in by_name(plan, "stg_orders").changes] == [("ordered_at", "modified")]
    # a name no relation has reads the projection (a lateral alias): it changes with it
    base, target = tmp_path / "base", tmp_path / "lateral"
    shutil.copytree(example, base)
    edit_sql(base, STG_ORDERS, "as order_date,\n", "as order_date,\n    order_date + 1 as next_day,\n")
    shutil.copytree(base, target)
    edit_sql(target, STG_ORDERS, "cast(ordered_at as date) as order_date", "cast(ordered_at as date) - 1 as order_date")
    plan = prune_state(*states(base, target))
    assert [(c.column, c.change) for c in by_name(plan, "stg_orders").changes] == [("next_day", "modified"), ("order_date", "modified")]


def test_state_star_replace_changes_only_the_replaced_column(example, example_copy):
    # stg_order_items: `id as order_item_id, * exclude (id, _etl_loaded_at)`
    edit_sql(
        example_copy,
        "model.coffee_shop.stg_order_items",
        "* exclude (id, _etl_loaded_at)",
        "* exclude (_etl_loaded_at, id) replace (quantity * 2 as quantity)",
    )
    plan = prune_state(*states(example, example_copy))
    assert [(c.column, c.change) for c in by_name(plan, "stg_order_items").changes] == [("quantity", "modified")]
    # int_order_items_priced: quantity, line_total = quantity * price; orders: total_quantity,
    # items_amount, payment_status; product_sales: units_sold, revenue (and its HAVING)
    assert reasons(plan) == {
        "stg_order_items": ("changed", 0),
        "int_order_items_priced": ("value", 1),
        "orders": ("value", 2),
        "product_sales": ("value", 2),
    }
    assert by_name(plan, "orders").columns == ("items_amount", "payment_status", "total_quantity")
    assert plan.selector() == "orders product_sales stg_order_items"


def test_state_changed_filter_changes_every_column(example, example_copy):
    edit_sql(example_copy, CUSTOMERS, "where status <> 'cancelled'", "where status not in ('cancelled', 'returned')")
    plan = prune_state(*states(example, example_copy))
    customers = by_name(plan, "customers")
    assert [(c.column, c.change) for c in customers.changes] == [("*", "rows")]
    assert customers.columns == CUSTOMER_COLUMNS
    assert reasons(plan) == {"customers": ("changed", 0), "customer_segments": ("value", 1), "customer_scores": ("value", 1)}
    assert len(by_name(plan, "customer_segments").columns) == 13


def test_state_new_removed_and_added(example, example_copy):
    path = example_copy / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["nodes"]["model.coffee_shop.customer_segments"]
    new = json.loads(json.dumps(manifest["nodes"]["model.coffee_shop.order_events"]))
    new.update(unique_id="model.coffee_shop.order_events_v2", name="order_events_v2", alias="order_events_v2")
    new["relation_name"] = '"coffee_shop"."main"."order_events_v2"'
    manifest["nodes"]["model.coffee_shop.order_events_v2"] = new
    sql = manifest["nodes"][STG_ORDERS]["compiled_code"]
    manifest["nodes"][STG_ORDERS]["compiled_code"] = sql.replace("    coalesce(", "    'web' as channel,\n    coalesce(")
    path.write_text(json.dumps(manifest))

    plan = prune_state(*states(example, example_copy))
    # stg_orders gains `channel`; orders reads stg_orders with `select *`, but catalog.json
    # (unchanged here) lists the columns it really had: nothing downstream reads channel
    assert reasons(plan) == {"order_events_v2": ("new", 0), "stg_orders": ("changed", 0)}
    assert [(c.column, c.change) for c in by_name(plan, "stg_orders").changes] == [("channel", "added")]
    assert plan.removed_models == ("model.coffee_shop.customer_segments",)
    assert plan.selector() == "order_events_v2 stg_orders"


def test_state_changed_seed_file_changes_its_rows(example, example_copy):
    path = example_copy / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["nodes"]["seed.coffee_shop.country_codes"]["checksum"]["checksum"] = "0" * 64
    path.write_text(json.dumps(manifest))
    plan = prune_state(*states(example, example_copy))
    # customers: countries.country_name, and the join on country_code; customer_segments: select *;
    # customer_scores reads no country column, only customers' rows (join, then has, then declared)
    assert reasons(plan) == {
        "country_codes": ("changed", 0), "customers": ("value", 1), "customer_segments": ("value", 2),
        "customer_scores": ("condition", 3),
    }  # fmt: skip
    assert [(c.column, c.change) for c in by_name(plan, "country_codes").changes] == [("*", "rows")]
    assert plan.selector() == "country_codes customer_scores customer_segments customers"


def test_state_model_without_known_columns_drags_its_dependants(example, example_copy):
    # stg_orders no longer parses and catalog.json lost it: its columns are unknown, so
    # everything depending on it is included, model by model
    edit_sql(example_copy, STG_ORDERS, "select\n    id as order_id", "select from from where")
    path = example_copy / "catalog.json"
    catalog = json.loads(path.read_text())
    del catalog["nodes"][STG_ORDERS]
    path.write_text(json.dumps(catalog))
    plan = prune_state(*states(example, example_copy))
    assert by_name(plan, "stg_orders").lineage == "changed"
    assert ("*", "rows") in [(c.column, c.change) for c in by_name(plan, "stg_orders").changes]
    assert {m.name for m in plan.models if m.lineage == "dependency"} == {
        "orders", "order_events", "customers", "customer_orders_daily", "customer_segments", "customer_scores",
    }  # fmt: skip


def test_state_cli_needs_no_graph(example, example_copy, tmp_path):
    edit_sql(example_copy, STG_PAYMENTS, "lower(payment_method)", "upper(payment_method)")
    env = {"NEO4J_URI": "bolt://127.0.0.1:1"}  # nothing listens there: --state must not connect
    done = CliRunner().invoke(app, ["prune", "--state", str(example), str(example_copy)], env=env)
    assert done.exit_code == 0, done.output
    assert done.stdout == "order_events orders stg_payments\n"
    done = CliRunner().invoke(app, ["prune", "--state", str(example), str(example_copy), "--json"], env=env)
    doc = json.loads(done.stdout)
    assert doc["origin"] == "artifacts"
    assert [m["name"] for m in doc["models"]] == ["order_events", "orders", "stg_payments"]
    stg = doc["models"][-1]
    assert stg["lineage"] == "changed" and stg["changes"][0]["column"] == "payment_method"
