"""The dbt tests of a project and the columns each reads (no Neo4j): generic tests by their
column (manifest v8 and v12), a relationships test by both ends, unit tests (v12) by their
expected rows' columns, and singular tests and column-less generic tests by the columns their
compiled SQL decides on (v6, v8, v12). Every expected answer is read off the test's YAML
arguments or compiled SQL, quoted beside it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from catalog.analyze.dbt_tests import columns_tested
from catalog.extract import load_project

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coffee_shop" / "target"


def columns_of(path: Path) -> tuple[dict[str, tuple[str, ...]], dict]:
    """Test name -> its columns as model.column; and the project's tests by name."""
    project = load_project(path)
    found = columns_tested(project)
    names = {t.name: t for t in project.tests.values()}
    short = {uid: tuple(f"{r.unique_id.split('.', 2)[2]}.{r.column}" for r in refs) for uid, refs in found.items()}
    return {t.name: short[uid] for uid, t in project.tests.items()}, names


def test_the_example_reads_one_column_per_generic_test():
    # models/marts/_marts.yml and models/staging/_staging.yml: unique and not_null on the keys,
    # seeds/_seeds.yml: unique on country_codes.country_code
    found, tests = columns_of(EXAMPLE)
    assert Counter(t.kind for t in tests.values()) == {"generic": 12}
    assert found == {
        "unique_country_codes_country_code": ("country_codes.country_code",),
        "unique_orders_order_id": ("orders.order_id",),
        "not_null_orders_order_id": ("orders.order_id",),
        "unique_customers_customer_id": ("customers.customer_id",),
        "not_null_customers_customer_id": ("customers.customer_id",),
        "unique_stg_customers_customer_id": ("stg_customers.customer_id",),
        "not_null_stg_customers_customer_id": ("stg_customers.customer_id",),
        "unique_stg_orders_order_id": ("stg_orders.order_id",),
        "not_null_stg_orders_order_id": ("stg_orders.order_id",),
        "unique_stg_order_items_order_item_id": ("stg_order_items.order_item_id",),
        "unique_stg_products_product_id": ("stg_products.product_id",),
        "not_null_stg_products_product_id": ("stg_products.product_id",),
    }
    assert tests["unique_orders_order_id"].test == "unique" and tests["unique_orders_order_id"].model == "model.coffee_shop.orders"


@pytest.mark.corpus
def test_jaffle_shop_generic_relationships_expression_and_unit_tests(shared_dir):
    found, tests = columns_of(shared_dir / "corpus" / "jaffle-shop" / "target")
    assert Counter(t.kind for t in tests.values()) == {"generic": 27, "unit": 3}
    # relationships: {column_name: order_id, to: ref('orders'), field: order_id} on order_items
    assert found["relationships_order_items_order_id__order_id__ref_orders_"] == ("order_items.order_id", "orders.order_id")
    # dbt_utils.expression_is_true {expression: 'lifetime_spend_pretax + lifetime_tax_paid = lifetime_spend'}:
    # compiled `select * from (select * from customers) where not(...)`: the WHERE decides, `*` only shows rows
    name = "dbt_utils_expression_is_true_customers_lifetime_spend_pretax_lifetime_tax_paid_lifetime_spend"
    assert tests[name].kind == "generic" and tests[name].test == "dbt_utils.expression_is_true"
    assert found[name] == ("customers.lifetime_spend", "customers.lifetime_spend_pretax", "customers.lifetime_tax_paid")
    assert found["dbt_utils_expression_is_true_orders_order_total_subtotal_tax_paid"] == ("orders.order_total", "orders.subtotal", "orders.tax_paid")
    # unit tests: the columns of their expected rows (expect: rows: [{order_id, product_id, supply_cost}, ...])
    assert found["test_supply_costs_sum_correctly"] == ("order_items.order_id", "order_items.product_id", "order_items.supply_cost")
    assert found["test_does_location_opened_at_trunc_to_date"] == (
        "stg_locations.location_id", "stg_locations.location_name", "stg_locations.opened_date", "stg_locations.tax_rate",
    )  # fmt: skip
    assert tests["test_supply_costs_sum_correctly"].model == "model.jaffle_shop.order_items"


@pytest.mark.corpus
def test_flipside_singular_tests_read_what_decides_them(shared_dir):
    """Manifest v6 (dbt 1.2, compiled_sql): `LAG(day) over (order by day)` and
    `DATEDIFF(days, prev_day, day) > 1` over fact_daily_tvl decide; `day` is the only column read."""
    found, tests = columns_of(shared_dir / "corpus" / "flipside-thorchain" / "target")
    assert Counter(t.kind for t in tests.values()) == {"generic": 791, "singular": 12}
    assert found["tests__fact_daily_tvl__day_assert_no_gaps"] == ("core__fact_daily_tvl.day",)
    # a singular test the manifest holds no compiled SQL for reads no known column
    assert found["tests__fact_swaps_assert_all_ids_exist_swap_events"] == ()


@pytest.mark.corpus
def test_tuva_generic_test_of_an_expression_reads_its_columns(shared_dir):
    """Manifest v8: `unique` of column_name `(claim_id||'-'||claim_line_number)` (no plain column):
    compiled `... where (claim_id||'-'||claim_line_number) is not null group by (...)`."""
    found, _ = columns_of(shared_dir / "corpus" / "tuva" / "target")
    assert found["unique_core__medical_claim__claim_id_claim_line_number_"] == ("core__medical_claim.claim_id", "core__medical_claim.claim_line_number")
    assert found["unique_core__condition_condition_id"] == ("core__condition.condition_id",)


@pytest.mark.corpus
def test_evaluator_combination_of_columns_and_an_always_passing_singular_test(shared_dir):
    found, tests = columns_of(shared_dir / "corpus" / "dbt-project-evaluator" / "target")
    # dbt_utils.unique_combination_of_columns {combination_of_columns: [id, color]}: group by id, color
    assert found["dbt_utils_unique_combination_of_columns_stg_model_3_id__color"] == ("stg_model_3.color", "stg_model_3.id")
    # `select * from __dbt__cte__stg_model_1 where false`: nothing decides it
    assert tests["sample_custom_test"].kind == "singular" and found["sample_custom_test"] == ()
    # equality_fct_model_directories: `select resource_name, current_file_path, change_file_path_to`
    # of test_fct_model_directories EXCEPT the same of fct_model_directories, and the other way
    compared = ("change_file_path_to", "current_file_path", "resource_name")
    assert found["equality_fct_model_directories"] == tuple(f"{m}.{c}" for m in ("fct_model_directories", "test_fct_model_directories") for c in compared)


def singular_test(target: Path, tmp_path: Path, name: str, sql: str, parents: list[str]) -> Path:
    """A copy of ``target`` whose manifest has one more singular test, compiled to ``sql``."""
    import json
    import shutil

    copy = tmp_path / "target"
    shutil.copytree(target, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    base = next(n for n in manifest["nodes"].values() if n["resource_type"] == "test")
    uid = f"test.coffee_shop.{name}"
    node = {**base, "unique_id": uid, "name": name, "alias": name, "fqn": ["coffee_shop", name], "test_metadata": None,
            "column_name": None, "attached_node": None, "compiled_code": sql, "raw_code": sql,
            "original_file_path": f"tests/{name}.sql", "path": f"{name}.sql", "depends_on": {"macros": [], "nodes": parents}}
    manifest["nodes"][uid] = node
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return copy


def test_a_singular_test_comparing_rows_reads_every_column_it_compares(tmp_path):
    customers, segments = '"coffee_shop"."main"."customers"', '"coffee_shop"."main"."customer_segments"'
    sql = f"select customer_id, email from {customers} except select customer_id, email from {segments}"
    target = singular_test(EXAMPLE, tmp_path, "segments_keep_every_customer", sql,
                           ["model.coffee_shop.customers", "model.coffee_shop.customer_segments"])
    found, tests = columns_of(target)
    assert tests["segments_keep_every_customer"].kind == "singular"
    # the rows left by EXCEPT depend on both columns of both sides
    assert found["segments_keep_every_customer"] == (
        "customer_segments.customer_id", "customer_segments.email", "customers.customer_id", "customers.email"
    )
    # the same columns only shown: nothing decides it
    shown = singular_test(EXAMPLE, tmp_path / "shown", "show_customers", f"select customer_id, email from {customers}",
                          ["model.coffee_shop.customers"])
    assert columns_of(shown)[0]["show_customers"] == ()
