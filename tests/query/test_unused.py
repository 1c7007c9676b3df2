"""``catalog unused``: the columns nothing reads, of stored builds in the real Neo4j, on the
bundled example and two corpus projects, each answer checked against the compiled SQL, the
YAML (tests, semantic models, exposures) and the manifest by reading them."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from run_cli import answer, one_error, run

from catalog.builds import Builder
from catalog.history import forget_project
from edits import edit_manifest

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def example_build(graph, example) -> Iterator[tuple[str, int]]:
    """The bundled example, built once for the tests that only read it: (project, build id)."""
    name = f"test_{uuid.uuid4().hex[:10]}"
    try:
        yield name, Builder(graph, example, project_name=name, jobs=1).run().build_id
    finally:
        if graph.read("read/find_project", project=name):
            forget_project(graph, name)


def _listed(data: dict) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {f"{m['model']}.{c['column']}": (c["reason"], tuple(c["read_by"])) for m in data["models"] for c in m["columns"]}


# ---------------------------------------------------------------------------- the bundled example
def test_example_unused_columns(example_build, neo4j_env):
    project_name, b = example_build
    data = answer(neo4j_env, "unused", "--project", project_name, "--json")
    # the --json shape
    assert list(data) == ["project", "build", "end_models", "asked", "counts", "models"]
    assert (data["project"], data["build"], data["end_models"], data["asked"]) == (project_name, b, False, [])
    assert list(data["models"][0]) == ["unique_id", "model", "resource_type", "end_model", "dependents", "incomplete_dependents", "columns"]
    assert list(data["models"][0]["columns"][0]) == ["column", "data_type", "reason", "read_by"]
    # Nothing reads: the seed's region (customers joins country_codes on country_code and takes
    # country_name); int_order_items_priced's order_item_id and unit_price (orders and
    # product_sales read line_total, quantity, product_* and order_id of it); stg_payments'
    # payment_id; stg_products' is_active. Every column of orders is read by the exposure
    # sales_dashboard, which lists no meta.referenced_columns, so it reads them all.
    assert _listed(data) == {
        "country_codes.region": ("no reader", ()),
        "int_order_items_priced.order_item_id": ("no reader", ()),
        "int_order_items_priced.unit_price": ("no reader", ()),
        "stg_payments.payment_id": ("no reader", ()),
        "stg_products.is_active": ("no reader", ()),
    }
    assert data["counts"] == {"models": 4, "columns": 5}
    seed = data["models"][0]
    assert (seed["unique_id"], seed["resource_type"], seed["end_model"], seed["dependents"]) == (
        "seed.coffee_shop.country_codes", "seed", False, ["customers"])
    assert [m["dependents"] for m in data["models"][1:]] == [["orders", "product_sales"], ["order_events", "orders"], ["int_order_items_priced"]]

    # the table names what counts as a reader, and that end models are left out
    shown = run(neo4j_env, "unused", "--project", project_name)
    assert shown.exit_code == 0, shown.output
    assert "5 unused columns in 4 models" in shown.stdout and "payment_id" in shown.stdout
    assert "exposure (one without meta.referenced_columns reads every column of its models)" in shown.stderr
    assert "End models (nothing in the catalog reads them) are left out" in shown.stderr
    md = run(neo4j_env, "unused", "--project", project_name, "-f", "md").stdout
    assert "| `stg_payments` | `payment_id` | `INTEGER` | no reader |" in md


def test_example_end_models_and_transitive_reasons(example_build, neo4j_env):
    project_name, _ = example_build
    data = answer(neo4j_env, "unused", "--project", project_name, "--end-models", "--json")
    listed = _listed(data)
    ends = {m["model"] for m in data["models"] if m["end_model"]}
    # no node depends on these and no consumer reads them (the raw_* seeds are read through the
    # sources' relations, not by ref); time_spine_daily is MetricFlow's time spine
    assert ends == {"customer_orders_daily", "customer_scores", "customer_segments", "customers_snapshot", "order_events",
                    "product_sales", "raw_customers", "raw_order_items", "raw_orders", "raw_payments", "raw_products", "time_spine_daily"}  # fmt: skip
    # customer_orders_daily filters on its order_date (WHERE): read; its other columns are not
    assert [k for k in listed if k.startswith("customer_orders_daily.")] == [
        f"customer_orders_daily.{c}" for c in ("amount_paid", "customer_id", "last_ordered_at", "order_count")]
    assert listed["product_sales.revenue"] == ("no reader in the catalog (end model)", ())
    # customers: lifetime_value feeds customer_scores.value_per_order and customer_segments'
    # lifetime_value and segment, all end-model columns, so it is read only by unused columns;
    # customer_id is tested (unique, not_null) and stays read, and so is every column of orders
    # (the exposure), with stg_orders and stg_payments.amount that feed them
    assert listed["customers.lifetime_value"] == (
        "read only by unused columns", ("customer_scores.value_per_order", "customer_segments.lifetime_value", "customer_segments.segment"))
    assert "customers.customer_id" not in listed
    assert not [k for k in listed if k.startswith(("orders.", "stg_orders.", "int_order_items_priced.line_total"))]
    # two steps up: stg_customers.signup_date feeds only customers.signup_date, itself read only by
    # customer_segments.signup_date; country_codes.country_name only customers.country_name
    assert listed["stg_customers.signup_date"] == ("read only by unused columns", ("customers.signup_date",))
    assert listed["country_codes.country_name"] == ("read only by unused columns", ("customers.country_name",))
    assert listed["stg_payments.paid_at"] == ("read only by unused columns", ("order_events.event_at",))
    # customer_scores is a Python model (opaque): it may read a column of customers unseen
    customers = next(m for m in data["models"] if m["model"] == "customers")
    assert customers["incomplete_dependents"] == ["customer_scores"]
    assert data["counts"] == {"models": 18, "columns": 93}


def test_exposure_with_referenced_columns_reads_only_those(build, project_name, example_copy, neo4j_env):
    """An exposure at column precision reads the columns it lists; the others of its model are
    then unread. The earlier build, whose exposure read the whole model, still answers as it did."""
    first = build(example_copy, project_name).build_id

    def listed_columns(manifest: dict) -> None:
        exposure = next(e for e in manifest["exposures"].values() if e["name"] == "sales_dashboard")
        exposure["meta"]["referenced_columns"] = [{"column_name": c} for c in ("order_id", "order_date", "amount_paid", "status")]

    edit_manifest(example_copy, listed_columns)
    second = build(example_copy, project_name).build_id
    now = _listed(answer(neo4j_env, "unused", "orders", "--project", project_name, "--json"))
    # orders' columns the dashboard no longer reads, and nothing else reads (customers and
    # customer_orders_daily read customer_id, order_id, ordered_at, order_date, amount_paid, status)
    assert now == {f"orders.{c}": ("no reader", ()) for c in (
        "bank_transfer_amount", "credit_card_amount", "gift_card_amount", "item_count", "items_amount", "payment_status",
        "total_quantity")}  # fmt: skip
    before = answer(neo4j_env, "unused", "orders", "--project", project_name, "--build", str(first), "--json")
    assert (before["build"], before["asked"], before["models"]) == (first, ["model.coffee_shop.orders"], [])
    assert answer(neo4j_env, "unused", "orders", "--project", project_name, "--json")["build"] == second


def test_bad_model_names(example_build, neo4j_env):
    project_name, _ = example_build
    line = one_error(run(neo4j_env, "unused", "ordrs", "--project", project_name))
    assert line.startswith(f"Error: no model, seed or snapshot 'ordrs' in project '{project_name}' (build ")
    assert line.endswith("(sources are not judged); did you mean orders, stg_orders, raw_orders?")
    # a source is not judged: named, it is not found, with the models that come close
    line = one_error(run(neo4j_env, "unused", "shop.orders", "--project", project_name))
    assert "no model, seed or snapshot 'shop.orders'" in line
    assert one_error(run(neo4j_env, "unused", "--project", "no_such_project")).startswith("Error: ")
    done = run(neo4j_env, "unused", "--project", project_name, "--build", "999999999")
    assert one_error(done).startswith(f"Error: project '{project_name}' has no build 999999999")


# ---------------------------------------------------------------------------- corpus projects
def test_jaffle_shop_unused_columns(build, project_name, shared_dir, neo4j_env):
    """dbt Labs' current Jaffle Shop: orders keeps stg_orders' *_cents columns through
    ``select *`` and counts its items, but no model, test, semantic model or metric reads them
    (the orders semantic model reads order_total, tax_paid, order_cost, ...; customers sums
    subtotal, tax_paid and order_total). order_items takes products.product_name, which the
    order_item semantic model does not read."""
    build(shared_dir / "corpus" / "jaffle-shop", project_name)
    data = answer(neo4j_env, "unused", "--project", project_name, "--json")
    assert _listed(data) == {
        "order_items.product_name": ("no reader", ()),
        "orders.count_order_items": ("no reader", ()),
        "orders.order_total_cents": ("no reader", ()),
        "orders.subtotal_cents": ("no reader", ()),
        "orders.tax_paid_cents": ("no reader", ()),
        "stg_orders.order_total_cents": ("read only by unused columns", ("orders.order_total_cents",)),
        "stg_orders.subtotal_cents": ("read only by unused columns", ("orders.subtotal_cents",)),
        "stg_orders.tax_paid_cents": ("read only by unused columns", ("orders.tax_paid_cents",)),
    }
    assert [(m["model"], m["dependents"]) for m in data["models"]] == [
        ("order_items", ["orders"]), ("orders", ["customers"]), ("stg_orders", ["order_items", "orders"])]
    only = answer(neo4j_env, "unused", "stg_orders", "model.jaffle_shop.order_items", "--project", project_name, "--json")
    assert only["asked"] == ["model.jaffle_shop.stg_orders", "model.jaffle_shop.order_items"]
    assert [m["model"] for m in only["models"]] == ["order_items", "stg_orders"]


def test_jaffle_shop_duckdb_end_models(build, project_name, shared_dir, neo4j_env):
    """The classic Jaffle Shop: customers and orders are end models (no exposure, no semantic
    model), so by default nothing is unused; counted as unread, every column of theirs is, and
    what only they read: stg_customers' names (customers passes them through) and stg_orders'
    order_date (customers' first_order and most_recent_order, orders' order_date), and the seed
    columns behind those, two steps up."""
    build(shared_dir / "corpus" / "jaffle_shop_duckdb", project_name)
    assert answer(neo4j_env, "unused", "--project", project_name, "--json")["models"] == []
    data = answer(neo4j_env, "unused", "--project", project_name, "--end-models", "--json")
    listed = {k: v for k, v in _listed(data).items() if v[0] != "no reader in the catalog (end model)"}
    assert listed == {
        "raw_customers.first_name": ("read only by unused columns", ("stg_customers.first_name",)),
        "raw_customers.last_name": ("read only by unused columns", ("stg_customers.last_name",)),
        "raw_orders.order_date": ("read only by unused columns", ("stg_orders.order_date",)),
        "stg_customers.first_name": ("read only by unused columns", ("customers.first_name",)),
        "stg_customers.last_name": ("read only by unused columns", ("customers.last_name",)),
        "stg_orders.order_date": ("read only by unused columns", ("customers.first_order", "customers.most_recent_order", "orders.order_date")),
    }
    manifest = json.loads((shared_dir / "corpus" / "jaffle_shop_duckdb" / "target" / "manifest.json").read_text())
    catalog = json.loads((shared_dir / "corpus" / "jaffle_shop_duckdb" / "target" / "catalog.json").read_text())
    tested = {(t["attached_node"], t["column_name"].lower()) for t in manifest["nodes"].values()
              if t["resource_type"] == "test" and t.get("column_name")}  # fmt: skip
    ends = {m["unique_id"] for m in data["models"] if m["end_model"]}
    assert ends == {"model.jaffle_shop.customers", "model.jaffle_shop.orders"}
    # every column of the end models but those a test reads
    expected = {f"{catalog['nodes'][u]['metadata']['name']}.{c.lower()}" for u in ends for c in catalog["nodes"][u]["columns"]
                if (u, c.lower()) not in tested}  # fmt: skip
    assert {k for k, v in _listed(data).items() if v[0] == "no reader in the catalog (end model)"} == expected


# ---------------------------------------------------------------------------- one answer, in memory too
def test_in_memory_answer_is_the_stored_one(example_build, graph, example):
    """``catalog check`` asks the same question of a project analyzed in memory: its rows
    (:func:`readers_in_memory`) give the stored build's answer, end models counted or not."""
    from catalog.analyze.dbt_tests import columns_tested
    from catalog.analyze.project import analyze_project
    from catalog.check import lineage_graph
    from catalog.extract import load_project
    from catalog.lineage.unused import readers_in_memory, unused_columns
    from catalog.query import BuildView
    from catalog.unused_columns import find_unused

    project = load_project(example)
    lineages = analyze_project(project, jobs=1)
    nodes = readers_in_memory(lineage_graph(project, lineages), columns_tested(project, lineages))
    view = BuildView(graph, example_build[0])
    for end_models in (False, True):
        stored = find_unused(view, end_models=end_models).models
        assert stored and tuple(unused_columns(nodes, end_models)) == stored


def test_check_says_an_added_column_nobody_reads(example, tmp_path):
    """`catalog check`: an added column is safe; one nothing reads says so, and why, as
    `catalog unused` would say it of the change."""
    import shutil

    from catalog.check import check_states
    from catalog.compare import analyze_states
    from catalog.extract import load_project
    from edits import edit_sql

    base, target = tmp_path / "base", tmp_path / "target"
    shutil.copytree(example, base)
    payments, events, orders = "model.coffee_shop.stg_payments", "model.coffee_shop.order_events", "model.coffee_shop.orders"
    # order_events and orders protected (a public model's every change but documentation is breaking)
    edit_manifest(base, lambda m: [m["nodes"][uid].update(access="protected") for uid in (events, orders)])
    shutil.copytree(base, target)
    # stg_payments gains method_code (nothing reads it) and batch_id, which order_events, an end
    # model, passes on; orders gains a column, which the exposure sales_dashboard reads (it
    # lists no meta.referenced_columns: every column of orders)
    edit_sql(target, payments, "    created_at as paid_at\n", "    created_at as paid_at,\n    upper(payment_method) as method_code,\n    order_id * 10 as batch_id\n")
    edit_sql(target, events, "as amount\nfrom", "as amount,\n    cast(null as integer) as batch_id\nfrom")
    edit_sql(target, events, "    payments.amount\n", "    payments.amount,\n    payments.batch_id\n")
    edit_sql(target, orders, "    end as payment_status\n", "    end as payment_status,\n    amount_paid * 2 as double_paid\n")
    old, new = load_project(base), load_project(target)
    old_lineages, lineages = analyze_states(old, new, jobs=1)
    report = check_states(old, old_lineages, new, lineages, base=str(base))
    assert [(f.severity, f.model, f.column, f.changes, f.why) for f in report.findings] == [
        ("safe", "order_events", "batch_id", ("added",), "no value changes; unused: no reader in the catalog (end model)"),
        ("safe", "orders", "double_paid", ("added",), "no value changes"),
        ("safe", "stg_payments", "batch_id", ("added",), "no value changes; unused: read only by unused columns: order_events.batch_id"),
        ("safe", "stg_payments", "method_code", ("added",), "no value changes; unused: no reader"),
    ]
