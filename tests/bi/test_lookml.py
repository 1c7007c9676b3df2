"""LookML read with lkml: a small LookML project written against the jaffle-shop corpus project
(tests/fixtures/bi/lookml_jaffle, see its SOURCE.md), each field of its dashboard's three charts
checked by hand against the models' SQL and the derived table's."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project
from catalog.bi.link import Linked, bi_edges
from catalog.bi.sources import read_bi
from catalog.errors import ArtifactError
from catalog.extract import load_project

LOOKML = Path(__file__).resolve().parents[1] / "fixtures" / "bi" / "lookml_jaffle"
F = "bi_field.looker."
C = "chart.looker.sales."
ORDERS = "model.jaffle_shop.orders."


@pytest.fixture(scope="module")
def jaffle(shared_dir: Path) -> Path:
    return shared_dir / "corpus" / "jaffle-shop"


@pytest.fixture(scope="module")
def linked(jaffle: Path):
    project = read_bi(load_project(jaffle), jaffle, [LOOKML])
    lineages = analyze_project(project, jobs=1)
    return project, Linked(project, lineages), bi_edges(project, lineages)


def into(edges, down: str) -> set[tuple[str, str]]:
    return {(up, typ) for up, d, typ, _ in edges if d == down}


def test_views_map_to_the_models_whose_relation_they_read(linked) -> None:
    """main.orders (schema and name), "jaffle_shop"."main"."customers" (in full), locations
    (a name only the locations model has: stg_locations is another name)."""
    project, _, _ = linked
    tables = {f.table: f.node for f in project.bi_fields.values() if f.kind != "table_calculation"}
    assert tables == {
        "orders": "model.jaffle_shop.orders", "customers": "model.jaffle_shop.customers",
        "locations": "model.jaffle_shop.locations", "location_revenue": None,
    }  # fmt: skip


def test_revenue_by_month_field_by_field(linked) -> None:
    """ordered_month is ordered_at by month; total_revenue is sum(${order_total}); food_revenue
    the same filtered on is_food_order; the Customer type filter listens on customers.customer_type."""
    project, links, edges = linked
    assert dict(project.charts[C + "revenue_by_month"].shows) == {
        F + "orders.ordered_month": "field", F + "orders.total_revenue": "field", F + "orders.food_revenue": "field",
        F + "customers.customer_type": "filter",
    }  # fmt: skip
    assert into(edges, F + "orders.ordered_month") == {(ORDERS + "ordered_at", "derived")}
    assert into(edges, F + "orders.total_revenue") == {(ORDERS + "order_total", "derived")}
    assert into(edges, F + "orders.food_revenue") == {(ORDERS + "order_total", "derived"), (ORDERS + "is_food_order", "derived")}
    assert into(edges, F + "customers.customer_type") == {("model.jaffle_shop.customers.customer_type", "passthrough")}
    total = project.bi_fields[F + "orders.total_revenue"]
    assert (total.tool_id, total.sql, total.line) == ("orders.total_revenue", "sum(${order_total})", 51)


def test_revenue_by_store_reads_the_joined_view_and_a_table_calculation(linked) -> None:
    """`store` is the explore's join `from: locations`; the table calculation `share` reads
    ${orders.total_revenue}."""
    project, _, edges = linked
    assert dict(project.charts[C + "revenue_by_store"].shows) == {
        F + "locations.location_name": "field", F + "orders.total_revenue": "field", F + "sales.revenue_by_store.share": "field",
    }  # fmt: skip
    assert into(edges, F + "locations.location_name") == {("model.jaffle_shop.locations.location_name", "passthrough")}
    assert into(edges, F + "sales.revenue_by_store.share") == {(ORDERS + "order_total", "derived")}


def test_a_derived_table_reads_the_columns_upstream_of_its_sql(linked) -> None:
    """location_revenue: `select l.location_name, sum(o.order_total) as revenue from main.orders o
    join main.locations l ...`."""
    project, _, edges = linked
    assert into(edges, F + "location_revenue.location_name") == {("model.jaffle_shop.locations.location_name", "passthrough")}
    assert into(edges, F + "location_revenue.total_revenue") == {(ORDERS + "order_total", "derived")}
    board = project.dashboards["dashboard.looker.sales"]
    assert board.holds == (C + "revenue_by_month", C + "revenue_by_store", C + "location_revenue")
    assert board.shows == ((F + "customers.customer_type", "filter"),)


def test_a_count_reads_the_primary_key_and_a_missing_column_is_unresolved(linked) -> None:
    project, links, edges = linked
    assert into(edges, F + "orders.count") == {(ORDERS + "order_id", "derived")}
    assert links.status(F + "orders.discount_code") == (
        "unresolved", "column orders.discount_code is not in the model (neither in its SQL nor in the warehouse)",
    )  # fmt: skip
    assert into(edges, F + "orders.discount_code") == set()


def test_bad_lookml_is_one_error_naming_the_file(jaffle: Path, tmp_path: Path) -> None:
    (tmp_path / "broken.view.lkml").write_text("view: orders {\n  dimension: id {\n    sql: ${TABLE}.id ;;\n")
    with pytest.raises(ArtifactError, match=r"broken\.view\.lkml: not valid LookML"):
        read_bi(load_project(jaffle), jaffle, [tmp_path])
