"""BI charts and dashboards exported as OpenLineage jobs (catalog.yml beside the Lightdash
jaffle shop, read where it stands in ../shared/bi): valid against the spec and the custom
facet's schema, with each field's input fields as the hand-checked lineage gives them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_openlineage import assert_valid, export

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bi"


@pytest.fixture(scope="module")
def events(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    project = tmp_path_factory.mktemp("bi") / "dbt"
    shutil.copytree(shared_dir / "bi" / "lightdash-jaffle-shop" / "dbt", project)
    (project / "catalog.yml").write_text(f"bi:\n  - charts\n  - {FIXTURES / 'lightdash_dashboard'}\n")
    return {e["job"]["name"]: e for e in export(str(project), "--format", "openlineage")}


def test_charts_and_dashboards_are_jobs_reading_what_their_fields_read(events) -> None:
    chart = events["chart.lightdash.regional-sales-total-row-total-demo"]
    board = events["dashboard.lightdash.sales-overview"]
    for event in (chart, board):
        assert_valid(event)
    facet = chart["job"]["facets"]["dbtColumnCatalog_bi"]
    assert (facet["tool"], facet["toolId"], facet["file"]) == ("lightdash", "regional-sales-total-row-total-demo", "charts/regional-sales-total-row-total-demo.yml")
    fields = {f["toolId"]: [i["field"] for i in f["inputFields"]] for f in facet["fields"]}
    assert fields == {
        "_of_grand_total": ["revenue"], "_of_monthly_total": ["revenue"], "regional_sales_region": ["region"],
        "regional_sales_sale_date_month": ["sale_date"], "regional_sales_total_revenue": ["revenue"],
    }  # fmt: skip
    assert [i["name"] for i in chart["inputs"]] == ["jaffle_shop.main.regional_sales"]
    assert chart["job"]["facets"]["jobType"]["jobType"] == "CHART" and chart["outputs"] == []
    board_facet = board["job"]["facets"]["dbtColumnCatalog_bi"]
    assert board_facet["charts"] == ["pre-aggregate-custom-sql-dimension", "regional-sales-total-row-total-demo"]
    assert {i["name"] for i in board["inputs"]} == {"jaffle_shop.main.orders", "jaffle_shop.main.regional_sales"}
    assert next(f for f in board_facet["fields"] if f["toolId"] == "orders_status")["role"] == "filter"
