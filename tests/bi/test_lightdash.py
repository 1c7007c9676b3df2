"""Lightdash read where it stands (../shared/bi/lightdash-jaffle-shop, from lightdash/lightdash):
each field of both charts, and of the dashboard written for these tests, checked by hand
against the models' SQL; the fields that read what the model lacks are unresolved with their
reason; bad BI input is one error naming the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from catalog.analyze.project import analyze_project
from catalog.bi.link import Linked, bi_edges
from catalog.bi.sources import bi_folders, read_bi
from catalog.errors import ArtifactError
from catalog.extract import load_project

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bi"
F = "bi_field.lightdash."
C = "chart.lightdash."
ORDERS = "model.jaffle_shop.orders."
SALES = "model.jaffle_shop.regional_sales."


@pytest.fixture(scope="module")
def jaffle(shared_dir: Path) -> Path:
    return shared_dir / "bi" / "lightdash-jaffle-shop" / "dbt"


@pytest.fixture(scope="module")
def linked(jaffle: Path):
    project = read_bi(load_project(jaffle), jaffle, [jaffle / "charts", FIXTURES / "lightdash_dashboard"])
    lineages = analyze_project(project, jobs=1)
    return project, Linked(project, lineages), bi_edges(project, lineages)


def into(edges, down: str) -> set[tuple[str, str]]:
    return {(up, typ) for up, d, typ, _ in edges if d == down}


def test_the_orders_chart_field_by_field(linked) -> None:
    """pre-aggregate-custom-sql-dimension: orders_order_date_month is orders.order_date by
    month; orders_total_order_amount is sum(amount), amount being order_payments.total_amount
    in orders.sql; the custom dimension status_present is `${orders.status} IS NOT NULL`."""
    project, links, edges = linked
    chart = project.charts[C + "pre-aggregate-custom-sql-dimension"]
    assert dict(chart.shows) == {
        F + "orders_order_date_month": "dimension",
        F + "orders_total_order_amount": "metric",
        F + "pre-aggregate-custom-sql-dimension.status_present": "dimension",
    }
    assert into(edges, F + "orders_order_date_month") == {(ORDERS + "order_date", "derived")}
    assert into(edges, F + "orders_total_order_amount") == {(ORDERS + "amount", "derived")}
    assert into(edges, F + "pre-aggregate-custom-sql-dimension.status_present") == {(ORDERS + "status", "derived")}
    assert project.bi_fields[F + "orders_total_order_amount"].sql == "sum(${TABLE}.amount)"
    assert project.bi_fields[F + "orders_order_date_month"].sql == "date_trunc('month', ${order_date})"
    assert all(links.status(uid) == ("resolved", None) for uid, _ in chart.shows)


def test_the_regional_sales_chart_field_by_field(linked) -> None:
    """regional-sales-total-row-total-demo: region and sale_date by month are columns of
    regional_sales (a select of stg_regional_sales); total_revenue is sum(revenue); both table
    calculations read ${regional_sales.total_revenue}, so revenue."""
    project, links, edges = linked
    chart = project.charts[C + "regional-sales-total-row-total-demo"]
    shown = dict(chart.shows)
    assert shown == {
        F + "regional_sales_sale_date_month": "dimension",
        F + "regional_sales_region": "dimension",
        F + "regional_sales_total_revenue": "metric",
        F + "regional-sales-total-row-total-demo._of_grand_total": "table_calculation",
        F + "regional-sales-total-row-total-demo._of_monthly_total": "table_calculation",
    }
    assert into(edges, F + "regional_sales_region") == {(SALES + "region", "passthrough")}
    assert into(edges, F + "regional_sales_sale_date_month") == {(SALES + "sale_date", "derived")}
    for field in ("regional_sales_total_revenue", "regional-sales-total-row-total-demo._of_grand_total",
                  "regional-sales-total-row-total-demo._of_monthly_total"):  # fmt: skip
        assert into(edges, F + field) == {(SALES + "revenue", "derived")}
    calc = project.bi_fields[F + "regional-sales-total-row-total-demo._of_grand_total"]
    assert (calc.tool_id, calc.kind, calc.file, calc.line) == ("_of_grand_total", "table_calculation", "charts/regional-sales-total-row-total-demo.yml", 20)
    metric = project.bi_fields[F + "regional_sales_total_revenue"]
    assert (metric.tool_id, metric.file, metric.line) == ("regional_sales_total_revenue", "models/regional_sales.yml", 63)  # the line of `total_revenue:`
    assert into(edges, C + "regional-sales-total-row-total-demo") == {(f, "shows") for f in shown}


def test_the_dashboard_holds_both_charts_and_shows_its_filter(linked) -> None:
    project, _, edges = linked
    board = project.dashboards["dashboard.lightdash.sales-overview"]
    assert board.holds == (C + "pre-aggregate-custom-sql-dimension", C + "regional-sales-total-row-total-demo")
    assert board.shows == ((F + "orders_status", "filter"),)
    assert into(edges, F + "orders_status") == {(ORDERS + "status", "passthrough")}
    assert into(edges, "dashboard.lightdash.sales-overview") == {
        (C + "pre-aggregate-custom-sql-dimension", "holds"), (C + "regional-sales-total-row-total-demo", "holds"), (F + "orders_status", "shows"),
    }  # fmt: skip


def test_fields_reading_what_the_model_lacks_are_unresolved_with_their_reason(linked) -> None:
    """customers.age is in customers.yml only (not in customers.sql nor the warehouse);
    total_order_amount_deduped is defined nowhere in this subset; constant_one is `1`."""
    project, links, edges = linked
    age = links.status(F + "orders_order_amount_plus_average_customer_age")
    assert age == ("unresolved", "column customers.age is not in the model (neither in its SQL nor in the warehouse)")
    # still linked to what it does read: ${total_order_amount}, so orders.amount
    assert into(edges, F + "orders_order_amount_plus_average_customer_age") == {(ORDERS + "amount", "derived")}
    assert links.status(F + "orders_deduped_revenue_per_order")[1].startswith(
        "customers.total_order_amount_deduped: no field or column 'total_order_amount_deduped' in customers"
    )
    assert links.status(F + "orders_constant_one") == ("unresolved", "reads no column")


def test_a_chart_of_an_unknown_explore_keeps_its_fields_unresolved(jaffle: Path) -> None:
    project = read_bi(load_project(jaffle), jaffle, [FIXTURES / "lightdash_bad_explore"])
    chart = project.charts[C + "refunds-by-month"]
    links = Linked(project, analyze_project(project, jobs=1))
    assert [links.status(uid) for uid, _ in chart.shows] == [("unresolved", "no explore 'refunds' in the project")] * 2


def test_bad_bi_input_is_one_error_naming_the_file(jaffle: Path, tmp_path: Path) -> None:
    project = load_project(jaffle)
    with pytest.raises(ArtifactError, match=r"broken\.yml: line 6: not valid YAML"):
        read_bi(project, jaffle, [FIXTURES / "broken_yaml"])
    with pytest.raises(ArtifactError, match="no such BI folder"):
        read_bi(project, jaffle, [tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ArtifactError, match="no Lightdash charts or dashboards"):
        read_bi(project, jaffle, [tmp_path / "empty"])


def test_catalog_yml_lists_bi_folders_beside_the_project(tmp_path: Path) -> None:
    (tmp_path / "charts").mkdir()
    (tmp_path / "catalog.yml").write_text("bi:\n  - charts\n")
    assert bi_folders(tmp_path, [tmp_path / "more"]) == [(tmp_path / "more").resolve(), (tmp_path / "charts").resolve()]
    (tmp_path / "catalog.yml").write_text("bi: charts\n")
    with pytest.raises(ArtifactError, match="bi: must be a list of folders"):
        bi_folders(tmp_path)
    shutil.rmtree(tmp_path / "charts")


def test_prune_names_the_bi_fields_charts_and_dashboards_a_change_reaches(jaffle: Path) -> None:
    """stg_regional_sales.revenue feeds regional_sales.revenue, which the regional sales chart
    shows through total_revenue and both table calculations, on the dashboard."""
    from catalog.prune import prune_artifacts

    project = read_bi(load_project(jaffle), jaffle, [jaffle / "charts", FIXTURES / "lightdash_dashboard"])
    plan = prune_artifacts(project, analyze_project(project, jobs=1), ["stg_regional_sales.revenue"])
    assert {(h.kind, h.tool_id) for h in plan.bi} == {
        ("bi_field", "regional_sales_revenue"), ("bi_field", "regional_sales_total_revenue"), ("bi_field", "regional_sales_avg_revenue"),
        ("bi_field", "_of_grand_total"), ("bi_field", "_of_monthly_total"),
        ("chart", "regional-sales-total-row-total-demo"), ("dashboard", "sales-overview"),
    }  # fmt: skip


def test_a_sql_chart_shows_its_sql_columns_each_reading_what_the_sql_reads(jaffle: Path) -> None:
    """select region, sum(revenue) as revenue, count(distinct customer_id) as customers,
    current_date as as_of from "jaffle_shop"."main"."regional_sales" group by region."""
    project = read_bi(load_project(jaffle), jaffle, [FIXTURES / "lightdash_sql"])
    links = Linked(project, analyze_project(project, jobs=1))
    edges = bi_edges(project, analyze_project(project, jobs=1))
    chart = project.charts[C + "revenue-by-region-sql"]
    slug = F + "revenue-by-region-sql."
    assert (chart.kind, dict(chart.shows)) == ("sql_chart", {slug + c: "column" for c in ("region", "revenue", "customers", "as_of")})
    assert into(edges, slug + "region") == {(SALES + "region", "passthrough")}
    assert into(edges, slug + "revenue") == {(SALES + "revenue", "derived")}
    assert into(edges, slug + "customers") == {(SALES + "customer_id", "derived")}
    assert links.status(slug + "as_of") == ("unresolved", "as_of reads no column")


def test_the_lightdash_e2e_chart_and_dashboard(jaffle: Path) -> None:
    """Lightdash's own end-to-end fixtures (tests/fixtures/bi/lightdash_e2e, copied from
    lightdash/lightdash): the chart bins payments.amount and shows the joined orders metric; the
    dashboard's five charts are in no file here, kept unresolved; its filters are orders fields."""
    project = read_bi(load_project(jaffle), jaffle, [FIXTURES / "lightdash_e2e"])
    lineages = analyze_project(project, jobs=1)
    edges = bi_edges(project, lineages)
    chart = project.charts[C + "how-do-payment-methods-vary-across-different-amount-ranges"]
    own = F + "how-do-payment-methods-vary-across-different-amount-ranges.amount_range"
    assert dict(chart.shows) == {own: "dimension", F + "payments_payment_method": "dimension", F + "orders_total_order_amount": "metric"}
    assert into(edges, own) == {("model.jaffle_shop.payments.amount", "derived")}
    assert into(edges, F + "payments_payment_method") == {("model.jaffle_shop.payments.payment_method", "passthrough")}
    assert into(edges, F + "orders_total_order_amount") == {(ORDERS + "amount", "derived")}
    board = project.dashboards["dashboard.lightdash.jaffle-dashboard"]
    assert [project.charts[c].reason for c in board.holds] == [
        f"no chart file of the BI folders defines chart {slug!r}"
        for slug in ("how-much-revenue-do-we-have-per-payment-method", "what-s-our-total-revenue-to-date", "how-many-orders-we-have-over-time",
                     "what-s-the-average-spend-per-customer", "which-customers-have-not-recently-ordered-an-item")
    ]  # fmt: skip
    assert board.shows == ((F + "orders_is_completed", "filter"), (F + "orders_order_date_year", "filter"))
    assert into(edges, F + "orders_order_date_year") == {(ORDERS + "order_date", "derived")}
